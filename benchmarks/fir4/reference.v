// Reference fir4: direct-form 4-tap FIR, h = {3, 7, 7, 3}, signed 8-bit samples, registered 13-bit output.
module fir4 (
    input  wire               clk,
    input  wire               rst_n,
    input  wire               in_valid,
    input  wire signed [7:0]  x,
    output reg                out_valid,
    output reg  signed [12:0] y
);
    reg signed [7:0] d1, d2, d3;  // the three previous accepted samples

    // 13 bits hold the worst case exactly: 20 * -128 = -2560 .. 20 * 127 = 2540.
    wire signed [12:0] acc = 13'sd3 * x + 13'sd7 * d1 + 13'sd7 * d2 + 13'sd3 * d3;

    always @(posedge clk or negedge rst_n) begin
        if (!rst_n) begin
            d1 <= 8'sd0;
            d2 <= 8'sd0;
            d3 <= 8'sd0;
            y  <= 13'sd0;
            out_valid <= 1'b0;
        end else begin
            out_valid <= in_valid;
            if (in_valid) begin
                y  <= acc;
                d1 <= x;
                d2 <= d1;
                d3 <= d2;
            end
        end
    end
endmodule

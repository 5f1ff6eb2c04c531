// SEED: faulty - sign lost: the delay line is declared unsigned, so negative older samples are zero-extended into the sum
module fir4 (
    input  wire               clk,
    input  wire               rst_n,
    input  wire               in_valid,
    input  wire signed [7:0]  x,
    output reg                out_valid,
    output reg  signed [12:0] y
);
    reg [7:0] x1, x2, x3;

    always @(posedge clk or negedge rst_n) begin
        if (!rst_n) begin
            x1 <= 8'd0;
            x2 <= 8'd0;
            x3 <= 8'd0;
            y <= 13'sd0;
            out_valid <= 1'b0;
        end else begin
            out_valid <= in_valid;
            if (in_valid) begin
                y <= 13'sd3 * x + 13'sd7 * x1 + 13'sd7 * x2 + 13'sd3 * x3;
                x1 <= x;
                x2 <= x1;
                x3 <= x2;
            end
        end
    end
endmodule

// SEED: faulty - latch: the combinational sum is only assigned when in_valid is high, so synthesis infers a latch on acc
module fir4 (
    input  wire               clk,
    input  wire               rst_n,
    input  wire               in_valid,
    input  wire signed [7:0]  x,
    output reg                out_valid,
    output reg  signed [12:0] y
);
    reg signed [7:0] x1, x2, x3;
    reg signed [12:0] acc;

    always @(*) begin
        if (in_valid)
            acc = 13'sd3 * x + 13'sd7 * x1 + 13'sd7 * x2 + 13'sd3 * x3;
    end

    always @(posedge clk or negedge rst_n) begin
        if (!rst_n) begin
            x1 <= 8'sd0;
            x2 <= 8'sd0;
            x3 <= 8'sd0;
            y <= 13'sd0;
            out_valid <= 1'b0;
        end else begin
            out_valid <= in_valid;
            if (in_valid) begin
                y <= acc;
                x1 <= x;
                x2 <= x1;
                x3 <= x2;
            end
        end
    end
endmodule

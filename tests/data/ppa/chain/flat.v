// Sum of four registered 16-bit operands in one cycle (unpipelined).
module chain (
    input  wire        clk,
    input  wire [15:0] a, b, c, d,
    output reg  [15:0] y
);
    reg [15:0] ra, rb, rc, rd;
    always @(posedge clk) begin
        ra <= a; rb <= b; rc <= c; rd <= d;
        y <= ra * rb + rc * rd;
    end
endmodule

// Same sum, with the products registered first (one extra pipeline stage).
module chain (
    input  wire        clk,
    input  wire [15:0] a, b, c, d,
    output reg  [15:0] y
);
    reg [15:0] ra, rb, rc, rd, p0, p1;
    always @(posedge clk) begin
        ra <= a; rb <= b; rc <= c; rd <= d;
        p0 <= ra * rb;
        p1 <= rc * rd;
        y <= p0 + p1;
    end
endmodule

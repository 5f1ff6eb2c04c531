// Operand registers load only when en is high, so the multiplier is quiet otherwise.
module mac (
    input  wire        clk,
    input  wire        en,
    input  wire [7:0]  a,
    input  wire [7:0]  b,
    output wire [15:0] p
);
    reg [7:0] ra, rb;
    always @(posedge clk) if (en) begin ra <= a; rb <= b; end
    assign p = ra * rb;
endmodule

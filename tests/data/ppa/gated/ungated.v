// Operand registers load every cycle: the multiplier toggles with the raw inputs.
module mac (
    input  wire        clk,
    input  wire        en,
    input  wire [7:0]  a,
    input  wire [7:0]  b,
    output wire [15:0] p
);
    reg [7:0] ra, rb;
    always @(posedge clk) begin ra <= a; rb <= b; end
    assign p = ra * rb;
endmodule

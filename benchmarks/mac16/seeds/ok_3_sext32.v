// SEED: valid - sign-extends both operands to 32 bits and multiplies them as 32-bit numbers keeping the low 32 bits (a wider multiplier than the 16x16 needed)
module mac16 (
    input  wire               clk,
    input  wire               rst_n,
    input  wire               clr,
    input  wire               en,
    input  wire signed [15:0] a,
    input  wire signed [15:0] b,
    output reg  signed [31:0] acc
);
    wire [31:0] a32 = {{16{a[15]}}, a};
    wire [31:0] b32 = {{16{b[15]}}, b};
    wire [31:0] wide = a32 * b32;  // low half of a 32x32 product

    always @(posedge clk or negedge rst_n) begin
        if (!rst_n) begin
            acc <= 32'sd0;
        end else if (clr) begin
            acc <= 32'sd0;
        end else if (en) begin
            acc <= acc + $signed(wide);
        end
    end
endmodule

// SEED: faulty - truncated width: the product wire is 16 bits, so a * b loses its upper half before it is sign-extended into the accumulator
module mac16 (
    input  wire               clk,
    input  wire               rst_n,
    input  wire               clr,
    input  wire               en,
    input  wire signed [15:0] a,
    input  wire signed [15:0] b,
    output reg  signed [31:0] acc
);
    wire signed [15:0] product = a * b;

    always @(posedge clk or negedge rst_n) begin
        if (!rst_n) begin
            acc <= 32'sd0;
        end else if (clr) begin
            acc <= 32'sd0;
        end else if (en) begin
            acc <= acc + product;
        end
    end
endmodule

// SEED: faulty - signedness lost: the accumulator register is declared unsigned, so acc_r + a * b is evaluated unsigned and a, b are zero-extended (wrong for negative operands)
module mac16 (
    input  wire               clk,
    input  wire               rst_n,
    input  wire               clr,
    input  wire               en,
    input  wire signed [15:0] a,
    input  wire signed [15:0] b,
    output wire signed [31:0] acc
);
    reg [31:0] acc_r;

    always @(posedge clk or negedge rst_n) begin
        if (!rst_n) begin
            acc_r <= 32'd0;
        end else if (clr) begin
            acc_r <= 32'd0;
        end else if (en) begin
            acc_r <= acc_r + a * b;
        end
    end

    assign acc = acc_r;
endmodule

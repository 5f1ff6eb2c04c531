// SEED: valid - operand-gated accumulate: the adder always runs on (en ? a*b : 0) and the register loads every cycle; clear muxes the next value to 0
module mac16 (
    input  wire               clk,
    input  wire               rst_n,
    input  wire               clr,
    input  wire               en,
    input  wire signed [15:0] a,
    input  wire signed [15:0] b,
    output wire signed [31:0] acc
);
    reg  signed [31:0] acc_q;
    wire signed [31:0] product = $signed(a) * $signed(b);
    wire signed [31:0] addend = en ? product : 32'sd0;
    wire signed [31:0] acc_d = clr ? 32'sd0 : acc_q + addend;

    always @(posedge clk or negedge rst_n) begin
        if (!rst_n) begin
            acc_q <= 32'sd0;
        end else begin
            acc_q <= acc_d;
        end
    end

    assign acc = acc_q;
endmodule

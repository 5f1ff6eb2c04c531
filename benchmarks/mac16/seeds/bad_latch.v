// SEED: faulty - latch: the next-state block has no final else, so acc_next is latched when clr and en are both 0
module mac16 (
    input  wire               clk,
    input  wire               rst_n,
    input  wire               clr,
    input  wire               en,
    input  wire signed [15:0] a,
    input  wire signed [15:0] b,
    output reg  signed [31:0] acc
);
    reg signed [31:0] acc_next;

    always @(*) begin
        if (clr) begin
            acc_next = 32'sd0;
        end else if (en) begin
            acc_next = acc + a * b;
        end
    end

    always @(posedge clk or negedge rst_n) begin
        if (!rst_n) begin
            acc <= 32'sd0;
        end else begin
            acc <= acc_next;
        end
    end
endmodule

// SEED: faulty - truncated width: the sum is computed in a 32-bit wire, so the real carry is lost and cout is guessed from bit 31
module adder32 (
    input  wire [31:0] a,
    input  wire [31:0] b,
    input  wire        cin,
    output wire [31:0] sum,
    output wire        cout
);
    wire [31:0] total = a + b + cin;

    assign sum = total;
    assign cout = total[31];
endmodule

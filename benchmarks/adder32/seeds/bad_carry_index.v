// SEED: faulty - off-by-one: cout is taken from c[31] (the carry into bit 31) instead of c[32] (the carry out of bit 31)
module adder32 (
    input  wire [31:0] a,
    input  wire [31:0] b,
    input  wire        cin,
    output wire [31:0] sum,
    output wire        cout
);
    wire [32:0] c;
    assign c[0] = cin;

    genvar i;
    generate
        for (i = 0; i < 32; i = i + 1) begin : g_fa
            assign sum[i] = a[i] ^ b[i] ^ c[i];
            assign c[i + 1] = (a[i] & b[i]) | (a[i] & c[i]) | (b[i] & c[i]);
        end
    endgenerate

    assign cout = c[31];
endmodule

// SEED: valid - behavioural adder that duplicates the 32-bit addition in both branches of a cin mux (two adders plus a 33-bit mux)
module adder32 (
    input  wire [31:0] a,
    input  wire [31:0] b,
    input  wire        cin,
    output wire [31:0] sum,
    output wire        cout
);
    wire [32:0] with_carry = {1'b0, a} + {1'b0, b} + 33'd1;
    wire [32:0] without_carry = {1'b0, a} + {1'b0, b};

    // Handle the carry-in by choosing between two precomputed results.
    assign {cout, sum} = cin ? with_carry : without_carry;
endmodule

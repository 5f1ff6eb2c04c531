// SEED: faulty - latch: cout is assigned only when cin is 1, so synthesis infers a latch on cout in the always block
module adder32 (
    input  wire [31:0] a,
    input  wire [31:0] b,
    input  wire        cin,
    output reg  [31:0] sum,
    output reg         cout
);
    always @(*) begin
        if (cin) begin
            {cout, sum} = {1'b0, a} + {1'b0, b} + 33'd1;
        end else begin
            sum = a + b;
        end
    end
endmodule

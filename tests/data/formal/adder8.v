// 8-bit adder with carry in and carry out (reference).
module adder8 (input wire [7:0] a, input wire [7:0] b, input wire cin, output wire [7:0] sum, output wire cout);
    assign {cout, sum} = a + b + cin;
endmodule

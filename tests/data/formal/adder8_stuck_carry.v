// carry-out stuck at 1: the unsound miter (-ignore_gold_x without -enable_undef) called this equivalent
module adder8 (input wire [7:0] a, input wire [7:0] b, input wire cin, output wire [7:0] sum, output wire cout);
    wire [8:0] s = a + b + cin;
    assign sum = s[7:0];
    assign cout = 1'b1;
endmodule

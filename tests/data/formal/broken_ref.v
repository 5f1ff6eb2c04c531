// Not Verilog Yosys can read: the reference itself is broken (a configuration error).
module adder8 (input wire [7:0] a, input wire [7:0] b, input wire cin, output wire [7:0] sum, output wire cout);
    assign {cout, sum} = a + b + cin
endmodule

// 12x12 unsigned multiplier, behavioural (the reference).
module mul12 (input wire [11:0] a, input wire [11:0] b, output wire [23:0] p);
    assign p = a * b;
endmodule

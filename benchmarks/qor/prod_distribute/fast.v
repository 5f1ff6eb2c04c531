module prod_distribute(input [3:0] a, input [3:0] b, input [3:0] c, output [7:0] p, output [7:0] q, output [8:0] r);
  wire [7:0] ab = a * b;
  wire [7:0] ac = a * c;
  assign p = ab;
  assign q = ac;
  assign r = ab + ac;
endmodule

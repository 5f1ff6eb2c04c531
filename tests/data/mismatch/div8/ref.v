module div8 (input [7:0] A, input [7:0] B, output [7:0] Q, output [7:0] R);
    assign Q = B == 0 ? 8'hff : A / B;
    assign R = B == 0 ? A : A % B;
endmodule

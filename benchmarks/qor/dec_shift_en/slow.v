module dec_shift_en(input en, input [3:0] sel, output [15:0] y);
  assign y = en ? (16'd1 << sel) : 16'd0;
endmodule

module dec_shift_en(input en, input [3:0] sel, output [15:0] y);
  genvar i;
  generate
    for (i = 0; i < 16; i = i + 1) begin : g
      assign y[i] = en & (sel == i);
    end
  endgenerate
endmodule

module fc_found_any_loop(input [31:0] a, input [7:0] key, output y);
  assign y = (a[7:0] == key) | (a[15:8] == key) | (a[23:16] == key) | (a[31:24] == key);
endmodule

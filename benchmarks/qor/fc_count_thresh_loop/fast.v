module fc_count_thresh_loop(input [15:0] x, output y);
  wire [2:0] n0 = x[0] + x[1] + x[2] + x[3];
  wire [2:0] n1 = x[4] + x[5] + x[6] + x[7];
  wire [2:0] n2 = x[8] + x[9] + x[10] + x[11];
  wire [2:0] n3 = x[12] + x[13] + x[14] + x[15];
  wire [4:0] n = (n0 + n1) + (n2 + n3);
  assign y = n >= 5'd12;
endmodule

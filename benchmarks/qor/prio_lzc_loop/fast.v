module prio_lzc_loop(input [15:0] x, output [4:0] lz);
  // two-level count: the first non-zero nibble from the top, then the leading zeros inside it
  wire [3:0] nz = {|x[15:12], |x[11:8], |x[7:4], |x[3:0]};
  wire [1:0] hi = nz[3] ? 2'd0 : nz[2] ? 2'd1 : nz[1] ? 2'd2 : 2'd3;
  wire [15:0] sh = x << {hi, 2'b00};
  wire [3:0] nib = sh[15:12];
  wire [1:0] lo = nib[3] ? 2'd0 : nib[2] ? 2'd1 : nib[1] ? 2'd2 : 2'd3;
  assign lz = (|nz) ? {1'b0, hi, lo} : 5'd16;
endmodule

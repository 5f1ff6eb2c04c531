module prio_found_loop(input [15:0] req, output [3:0] idx, output valid);
  // two-level encoder: the lowest non-empty nibble, then the lowest bit in it
  wire [3:0] nz = {|req[15:12], |req[11:8], |req[7:4], |req[3:0]};
  wire [1:0] hi = nz[0] ? 2'd0 : nz[1] ? 2'd1 : nz[2] ? 2'd2 : 2'd3;
  wire [3:0] nib = req >> {hi, 2'b00};
  wire [1:0] lo = nib[0] ? 2'd0 : nib[1] ? 2'd1 : nib[2] ? 2'd2 : 2'd3;
  assign valid = |nz;
  assign idx = valid ? {hi, lo} : 4'd0;
endmodule

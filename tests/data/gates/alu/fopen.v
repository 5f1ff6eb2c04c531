module alu (input [7:0] a, input [7:0] b, input [1:0] op, output [7:0] y);
    integer fd;
    assign y = a + b;
    always @(a) begin fd = $fopen("/etc/hh_out", "w"); $fwrite(fd, "%h", a); end
endmodule

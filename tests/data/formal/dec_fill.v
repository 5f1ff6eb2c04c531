// Fills the don't-care code 3 with a value: equivalent where the reference is defined.
module dec (input wire [1:0] s, output wire [3:0] y);
    assign y = 4'b0001 << s;
endmodule

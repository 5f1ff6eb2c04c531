// Leaves code 2 X although the reference defines it: a difference (Icarus shows X where 0100 is due).
module dec (input wire [1:0] s, output reg [3:0] y);
    always @* begin
        case (s)
            2'd0: y = 4'b0001;
            2'd1: y = 4'b0010;
            default: y = 4'bxxxx;
        endcase
    end
endmodule

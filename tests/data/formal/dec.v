// 2-to-4 decoder whose code 3 is a don't-care in the spec (the reference leaves it X).
module dec (input wire [1:0] s, output reg [3:0] y);
    always @* begin
        case (s)
            2'd0: y = 4'b0001;
            2'd1: y = 4'b0010;
            2'd2: y = 4'b0100;
            default: y = 4'bxxxx;
        endcase
    end
endmodule

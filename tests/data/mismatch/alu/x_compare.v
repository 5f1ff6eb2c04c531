module alu (input [7:0] a, input [7:0] b, input [1:0] op, output [7:0] y);
    reg [7:0] nxt;
    always @(*) begin
        case (op)
            2'd0: nxt = a + b;
            2'd1: nxt = a - b;
            2'd2: nxt = a & b;
            default: nxt = a ^ b;
        endcase
        if (nxt === 8'bx) nxt = 0;
    end
    assign y = nxt;
endmodule

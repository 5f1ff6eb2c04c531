module alu (input [7:0] a, input [7:0] b, input [1:0] op, output reg [7:0] y);
    always @(*) begin
        if (op == 2'd0) y = a + b;
        else if (op == 2'd1) y = a - b;
        else if (op == 2'd2) y = a & b;
    end
endmodule

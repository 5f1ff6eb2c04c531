module alu (input [7:0] a, input [7:0] b, input [1:0] op, output reg [7:0] y);
    always @(*) begin
        if ($isunknown(op)) y = 8'd0;
        else case (op)
            2'd0: y = a + b;
            2'd1: y = a - b;
            2'd2: y = a & b;
            default: y = a ^ b;
        endcase
    end
endmodule

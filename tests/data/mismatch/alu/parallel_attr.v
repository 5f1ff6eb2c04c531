module alu (input [7:0] a, input [7:0] b, input [1:0] op, output reg [7:0] y);
    always @(*) begin
        (* parallel_case *)
        casez (op)
            2'b00: y = a + b;
            2'b01: y = a - b;
            2'b10: y = a & b;
            2'b1?: y = a ^ b;
        endcase
    end
endmodule

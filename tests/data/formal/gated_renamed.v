// gated.v with the register renamed (total): no golden register of the same name to share a start value with.
module gated (input wire clk, input wire rst_n, input wire en, input wire [3:0] d,
              output wire [3:0] acc, output wire odd);
    reg [3:0] total;
    always @(posedge clk)
        if (en) begin
            if (!rst_n) total <= 4'd0;
            else total <= total + d;
        end
    assign odd = total[0];
    assign acc = total;
endmodule

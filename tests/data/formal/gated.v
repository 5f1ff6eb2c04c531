// The reset acts only while en is 1 (a clock-enabled register bank).
module gated (input wire clk, input wire rst_n, input wire en, input wire [3:0] d,
              output reg [3:0] acc, output wire odd);
    always @(posedge clk)
        if (en) begin
            if (!rst_n) acc <= 4'd0;
            else acc <= acc + d;
        end
    assign odd = acc[0];
endmodule

// Registers data_in every cycle (fewer gates): data_out differs from the reference only while valid_out is 0.
module stream (input wire clk, input wire rst_n, input wire valid_in, input wire [7:0] data_in,
               output reg valid_out, output reg [7:0] data_out);
    always @(posedge clk) begin
        if (!rst_n) begin
            valid_out <= 1'b0;
            data_out <= 8'd0;
        end else begin
            valid_out <= valid_in;
            data_out <= data_in;
        end
    end
endmodule

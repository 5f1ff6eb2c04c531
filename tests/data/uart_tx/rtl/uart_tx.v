// 8N1 transmitter: a start bit (0), eight data bits LSB first, a stop bit (1); idle high
module uart_tx (
  input  wire       clk,
  input  wire       rst,
  input  wire       start,
  input  wire [7:0] data,
  output reg        tx,
  output wire       busy
);
  reg [3:0] bitn;   // 0: start bit, 1..8: data bits, 9: stop bit
  reg [7:0] shreg;
  reg       active;
  wire      tick;
  baud_tick #(.DIV(4)) u_baud (.clk(clk), .rst(rst), .en(active), .tick(tick));
  assign busy = active;
  always @(posedge clk)
    if (rst) begin
      active <= 1'b0; bitn <= 4'd0; shreg <= 8'd0; tx <= 1'b1;
    end else if (!active) begin
      tx <= 1'b1;
      if (start) begin
        active <= 1'b1; bitn <= 4'd0; shreg <= data; tx <= 1'b0;  // the start bit
      end
    end else if (tick) begin
      if (bitn == 4'd9) begin
        active <= 1'b0; tx <= 1'b1;
      end else begin
        bitn <= bitn + 4'd1;
        if (bitn == 4'd8) tx <= 1'b1;  // the stop bit
        else begin
          tx <= shreg[0]; shreg <= {1'b0, shreg[7:1]};
        end
      end
    end
endmodule

module fsm_onehot(input clk, input rst, input go, input ack, input err, output busy, output fail);
  localparam [7:0] IDLE = 8'b00000001, REQ = 8'b00000010, WAIT = 8'b00000100, XFER = 8'b00001000,
                   CHK = 8'b00010000, DONE = 8'b00100000, ERR = 8'b01000000, RETRY = 8'b10000000;
  reg [7:0] state, nxt;
  always @(posedge clk)
    if (rst) state <= IDLE; else state <= nxt;
  always @* begin
    nxt = state;
    case (state)
      IDLE: if (go) nxt = REQ;
      REQ: nxt = WAIT;
      WAIT: if (ack) nxt = XFER; else if (err) nxt = ERR;
      XFER: nxt = CHK;
      CHK: nxt = err ? RETRY : DONE;
      DONE: nxt = IDLE;
      ERR: if (!err) nxt = IDLE;
      RETRY: nxt = REQ;
      default: nxt = IDLE;
    endcase
  end
  assign busy = (state != IDLE) && (state != DONE);
  assign fail = state == ERR;
endmodule

module fsm_onehot(input clk, input rst, input go, input ack, input err, output busy, output fail);
  localparam [2:0] IDLE = 3'd0, REQ = 3'd1, WAIT = 3'd2, XFER = 3'd3,
                   CHK = 3'd4, DONE = 3'd5, ERR = 3'd6, RETRY = 3'd7;
  reg [2:0] state, nxt;
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

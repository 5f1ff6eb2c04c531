// SEED: faulty - latch: the lights are decoded in an always @(*) case where walk is assigned only in the WALK branch (no default), so walk is held by a latch
module traffic_fsm (
    input  wire clk,
    input  wire rst_n,
    input  wire ped_req,
    output reg  green,
    output reg  yellow,
    output reg  red,
    output reg  walk,
    output reg  ped_wait
);
    localparam [1:0] S_GREEN = 2'd0, S_YELLOW = 2'd1, S_RED = 2'd2, S_WALK = 2'd3;

    reg [1:0] state;
    reg [1:0] state_n;
    reg [2:0] t;
    reg [2:0] last;

    wire pending = ped_wait | ped_req;

    always @(*) begin
        case (state)
            S_GREEN:  last = 3'd7;
            S_YELLOW: last = 3'd1;
            S_RED:    last = 3'd3;
            default:  last = 3'd5;
        endcase
        state_n = state;
        if (t == last) begin
            case (state)
                S_GREEN:  state_n = S_YELLOW;
                S_YELLOW: state_n = pending ? S_WALK : S_RED;
                default:  state_n = S_GREEN;
            endcase
        end
    end

    always @(*) begin
        case (state)
            S_GREEN:  begin green = 1'b1; yellow = 1'b0; red = 1'b0; end
            S_YELLOW: begin green = 1'b0; yellow = 1'b1; red = 1'b0; end
            S_RED:    begin green = 1'b0; yellow = 1'b0; red = 1'b1; end
            default:  begin green = 1'b0; yellow = 1'b0; red = 1'b1; walk = 1'b1; end
        endcase
        if (state == S_GREEN) walk = 1'b0;
    end

    always @(posedge clk or negedge rst_n) begin
        if (!rst_n) begin
            state    <= S_GREEN;
            t        <= 3'd0;
            ped_wait <= 1'b0;
        end else begin
            state    <= state_n;
            t        <= (t == last) ? 3'd0 : t + 3'd1;
            ped_wait <= (state_n == S_WALK) ? 1'b0 : pending;
        end
    end
endmodule

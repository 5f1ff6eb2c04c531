// SEED: faulty - off-by-one: the yellow timer compares against 2 instead of 1, so yellow lasts 3 cycles instead of 2
module traffic_fsm (
    input  wire clk,
    input  wire rst_n,
    input  wire ped_req,
    output wire green,
    output wire yellow,
    output wire red,
    output wire walk,
    output reg  ped_wait
);
    localparam [1:0] S_GREEN = 2'd0, S_YELLOW = 2'd1, S_RED = 2'd2, S_WALK = 2'd3;

    reg [1:0] state;
    reg [1:0] state_n;
    reg [2:0] t;
    reg [2:0] last;  // duration - 1 of the current state

    wire pending = ped_wait | ped_req;

    always @(*) begin
        case (state)
            S_GREEN:  last = 3'd7;
            S_YELLOW: last = 3'd2;
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

    always @(posedge clk or negedge rst_n) begin
        if (!rst_n) begin
            state    <= S_GREEN;
            t        <= 3'd0;
            ped_wait <= 1'b0;
        end else begin
            state    <= state_n;
            t        <= (t == last) ? 3'd0 : t + 3'd1;
            // served (cleared) whenever the next state is WALK, otherwise latched until then
            ped_wait <= (state_n == S_WALK) ? 1'b0 : pending;
        end
    end

    assign green  = (state == S_GREEN);
    assign yellow = (state == S_YELLOW);
    assign red    = (state == S_RED) || (state == S_WALK);
    assign walk   = (state == S_WALK);
endmodule

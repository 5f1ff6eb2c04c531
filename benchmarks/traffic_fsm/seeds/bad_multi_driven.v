// SEED: faulty - multiply-driven net: ped_wait is set by the button in one always block and cleared by the FSM in another, so two processes drive the same register
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
    reg [2:0] t;
    reg [2:0] last;

    always @(*) begin
        case (state)
            S_GREEN:  last = 3'd7;
            S_YELLOW: last = 3'd1;
            S_RED:    last = 3'd3;
            default:  last = 3'd5;
        endcase
    end

    // button side: latch the request
    always @(posedge clk or negedge rst_n) begin
        if (!rst_n)
            ped_wait <= 1'b0;
        else if (ped_req && state != S_WALK)
            ped_wait <= 1'b1;
    end

    // FSM side: sequence the lights and clear the request when it is served
    always @(posedge clk or negedge rst_n) begin
        if (!rst_n) begin
            state <= S_GREEN;
            t     <= 3'd0;
        end else if (t == last) begin
            t <= 3'd0;
            case (state)
                S_GREEN:  state <= S_YELLOW;
                S_YELLOW: begin
                    if (ped_wait | ped_req) begin
                        state    <= S_WALK;
                        ped_wait <= 1'b0;
                    end else begin
                        state <= S_RED;
                    end
                end
                default:  state <= S_GREEN;
            endcase
        end else begin
            t <= t + 3'd1;
        end
    end

    assign green  = (state == S_GREEN);
    assign yellow = (state == S_YELLOW);
    assign red    = (state == S_RED) || (state == S_WALK);
    assign walk   = (state == S_WALK);
endmodule

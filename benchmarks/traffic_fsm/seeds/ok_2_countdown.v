// SEED: valid - down-counter loaded with the next state's duration - 1 on every transition (the transition fires at zero); state codes one-hot when ONEHOT = 1, binary when ONEHOT = 0
module traffic_fsm #(
    parameter ONEHOT = 1
) (
    input  wire clk,
    input  wire rst_n,
    input  wire ped_req,
    output wire green,
    output wire yellow,
    output wire red,
    output wire walk,
    output reg  ped_wait
);
    localparam [3:0] S_GREEN  = ONEHOT ? 4'b0001 : 4'd0;
    localparam [3:0] S_YELLOW = ONEHOT ? 4'b0010 : 4'd1;
    localparam [3:0] S_RED    = ONEHOT ? 4'b0100 : 4'd2;
    localparam [3:0] S_WALK   = ONEHOT ? 4'b1000 : 4'd3;

    reg [3:0] state;
    reg [3:0] state_n;
    reg [2:0] left;  // cycles left in this state after the current one
    reg [2:0] load;

    wire pending = ped_wait | ped_req;

    always @(*) begin
        state_n = state;
        if (left == 3'd0) begin
            case (state)
                S_GREEN:  state_n = S_YELLOW;
                S_YELLOW: state_n = pending ? S_WALK : S_RED;
                default:  state_n = S_GREEN;
            endcase
        end
        case (state_n)
            S_GREEN:  load = 3'd7;
            S_YELLOW: load = 3'd1;
            S_RED:    load = 3'd3;
            default:  load = 3'd5;
        endcase
    end

    always @(posedge clk or negedge rst_n) begin
        if (!rst_n) begin
            state    <= S_GREEN;
            left     <= 3'd7;
            ped_wait <= 1'b0;
        end else begin
            state    <= state_n;
            left     <= (left == 3'd0) ? load : left - 3'd1;
            ped_wait <= (state_n == S_WALK) ? 1'b0 : pending;
        end
    end

    assign green  = (state == S_GREEN);
    assign yellow = (state == S_YELLOW);
    assign red    = (state == S_RED) || (state == S_WALK);
    assign walk   = (state == S_WALK);
endmodule

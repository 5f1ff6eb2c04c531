// SEED: valid - naive: binary state codes in a 3-bit register, an 8-bit up-counter where 3 bits suffice, the duration compare repeated in every state branch, outputs decoded by comparisons
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
    localparam S_GREEN = 3'd0, S_YELLOW = 3'd1, S_RED = 3'd2, S_WALK = 3'd3;

    reg [2:0] state;
    reg [7:0] timer;

    always @(posedge clk or negedge rst_n) begin
        if (!rst_n) begin
            state    <= S_GREEN;
            timer    <= 8'd0;
            ped_wait <= 1'b0;
        end else begin
            case (state)
                S_GREEN: begin
                    if (timer == 8'd7) begin
                        state <= S_YELLOW;
                        timer <= 8'd0;
                    end else begin
                        timer <= timer + 8'd1;
                    end
                    ped_wait <= ped_wait | ped_req;
                end
                S_YELLOW: begin
                    if (timer == 8'd1) begin
                        timer <= 8'd0;
                        if (ped_wait | ped_req) begin
                            state    <= S_WALK;
                            ped_wait <= 1'b0;
                        end else begin
                            state    <= S_RED;
                            ped_wait <= 1'b0;
                        end
                    end else begin
                        timer    <= timer + 8'd1;
                        ped_wait <= ped_wait | ped_req;
                    end
                end
                S_RED: begin
                    if (timer == 8'd3) begin
                        state <= S_GREEN;
                        timer <= 8'd0;
                    end else begin
                        timer <= timer + 8'd1;
                    end
                    ped_wait <= ped_wait | ped_req;
                end
                default: begin
                    if (timer == 8'd5) begin
                        state    <= S_GREEN;
                        timer    <= 8'd0;
                        ped_wait <= ped_req;
                    end else begin
                        timer    <= timer + 8'd1;
                        ped_wait <= 1'b0;
                    end
                end
            endcase
        end
    end

    assign green  = (state == S_GREEN);
    assign yellow = (state == S_YELLOW);
    assign red    = (state == S_RED) || (state == S_WALK);
    assign walk   = (state == S_WALK);
endmodule

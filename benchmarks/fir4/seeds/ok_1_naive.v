// SEED: valid - naive: four general 13-bit signed multipliers by constants, a separate output-valid pipeline and every register reset
module fir4 (
    input  wire               clk,
    input  wire               rst_n,
    input  wire               in_valid,
    input  wire signed [7:0]  x,
    output reg                out_valid,
    output reg  signed [12:0] y
);
    reg signed [7:0] x1, x2, x3;
    reg signed [12:0] c0, c1, c2, c3;
    wire signed [12:0] p0, p1, p2, p3;

    // Coefficients kept in registers "so they could be changed later".
    always @(posedge clk or negedge rst_n) begin
        if (!rst_n) begin
            c0 <= 13'sd3;
            c1 <= 13'sd7;
            c2 <= 13'sd7;
            c3 <= 13'sd3;
        end else begin
            c0 <= 13'sd3;
            c1 <= 13'sd7;
            c2 <= 13'sd7;
            c3 <= 13'sd3;
        end
    end

    assign p0 = c0 * x;
    assign p1 = c1 * x1;
    assign p2 = c2 * x2;
    assign p3 = c3 * x3;

    always @(posedge clk or negedge rst_n) begin
        if (!rst_n) begin
            x1 <= 8'sd0;
            x2 <= 8'sd0;
            x3 <= 8'sd0;
            y <= 13'sd0;
            out_valid <= 1'b0;
        end else begin
            if (in_valid) begin
                y <= p0 + p1 + p2 + p3;
                x1 <= x;
                x2 <= x1;
                x3 <= x2;
                out_valid <= 1'b1;
            end else begin
                out_valid <= 1'b0;
            end
        end
    end
endmodule

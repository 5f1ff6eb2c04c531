// SEED: valid - alternative architecture: symmetric taps pre-added, constant multiplies as shift-add; ARCH=1 balances the final sum as a tree
module fir4 #(
    parameter ARCH = 0
) (
    input  wire               clk,
    input  wire               rst_n,
    input  wire               in_valid,
    input  wire signed [7:0]  x,
    output reg                out_valid,
    output reg  signed [12:0] y
);
    reg signed [7:0] x1, x2, x3;

    // h = {3, 7, 7, 3} is symmetric: y = 3*(x + x3) + 7*(x1 + x2).
    wire signed [8:0] s_outer = x + x3;
    wire signed [8:0] s_inner = x1 + x2;
    wire signed [12:0] outer = {{4{s_outer[8]}}, s_outer};
    wire signed [12:0] inner = {{4{s_inner[8]}}, s_inner};
    // 3*a = (a << 1) + a ; 7*a = (a << 3) - a
    wire signed [12:0] acc = (ARCH == 0) ? ((outer <<< 1) + outer + (inner <<< 3) - inner)
                                         : (((outer <<< 1) + outer) + ((inner <<< 3) - inner));

    always @(posedge clk or negedge rst_n) begin
        if (!rst_n) begin
            x1 <= 8'sd0;
            x2 <= 8'sd0;
            x3 <= 8'sd0;
            y <= 13'sd0;
            out_valid <= 1'b0;
        end else begin
            out_valid <= in_valid;
            if (in_valid) begin
                y <= acc;
                x1 <= x;
                x2 <= x1;
                x3 <= x2;
            end
        end
    end
endmodule

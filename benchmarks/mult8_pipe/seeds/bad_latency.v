// SEED: faulty - off-by-one latency: a single register stage, so products and out_valid appear 1 cycle after the operands instead of 2
module mult8_pipe (
    input  wire        clk,
    input  wire        rst_n,
    input  wire        in_valid,
    input  wire [7:0]  a,
    input  wire [7:0]  b,
    output reg         out_valid,
    output reg  [15:0] p
);
    always @(posedge clk or negedge rst_n) begin
        if (!rst_n) begin
            out_valid <= 1'b0;
            p <= 16'd0;
        end else begin
            out_valid <= in_valid;
            if (in_valid) begin
                p <= a * b;
            end
        end
    end
endmodule

// SEED: valid - balanced pipeline: stage 1 forms two partial products a*b[SPLIT-1:0] and a*b[7:SPLIT] (enabled by in_valid), stage 2 adds them; SPLIT moves the stage boundary
module mult8_pipe #(
    parameter SPLIT = 4
) (
    input  wire        clk,
    input  wire        rst_n,
    input  wire        in_valid,
    input  wire [7:0]  a,
    input  wire [7:0]  b,
    output reg         out_valid,
    output reg  [15:0] p
);
    reg        v1;
    reg [15:0] lo_pp;  // a * b[SPLIT-1:0]
    reg [15:0] hi_pp;  // a * b[7:SPLIT], not yet shifted

    wire [15:0] a_ext = {8'd0, a};
    wire [15:0] b_lo = {8'd0, b & ((8'd1 << SPLIT) - 8'd1)};
    wire [15:0] b_hi = {8'd0, b >> SPLIT};

    always @(posedge clk or negedge rst_n) begin
        if (!rst_n) begin
            v1 <= 1'b0;
            out_valid <= 1'b0;
        end else begin
            v1 <= in_valid;
            out_valid <= v1;
        end
    end

    // Partial-product registers only load when a pair is accepted.
    always @(posedge clk) begin
        if (in_valid) begin
            lo_pp <= a_ext * b_lo;
            hi_pp <= a_ext * b_hi;
        end
    end

    always @(posedge clk or negedge rst_n) begin
        if (!rst_n) begin
            p <= 16'd0;
        end else if (v1) begin
            p <= lo_pp + (hi_pp << SPLIT);
        end
    end
endmodule

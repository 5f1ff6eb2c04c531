// SEED: valid - naive: stage 1 only registers the operands (reset on datapath regs, clocked every cycle, no enable); stage 2 multiplies with an unbalanced chain of 8 shifted partial products
module mult8_pipe (
    input  wire        clk,
    input  wire        rst_n,
    input  wire        in_valid,
    input  wire [7:0]  a,
    input  wire [7:0]  b,
    output reg         out_valid,
    output reg  [15:0] p
);
    reg       valid_s1;
    reg [7:0] a_s1;
    reg [7:0] b_s1;

    always @(posedge clk or negedge rst_n) begin
        if (!rst_n) begin
            valid_s1 <= 1'b0;
            a_s1 <= 8'd0;
            b_s1 <= 8'd0;
        end else begin
            valid_s1 <= in_valid;
            a_s1 <= a;
            b_s1 <= b;
        end
    end

    // Shift-and-add: one partial product per multiplier bit, summed left to right.
    wire [15:0] pp0 = b_s1[0] ? {8'd0, a_s1}      : 16'd0;
    wire [15:0] pp1 = b_s1[1] ? {7'd0, a_s1, 1'b0} : 16'd0;
    wire [15:0] pp2 = b_s1[2] ? {6'd0, a_s1, 2'b0} : 16'd0;
    wire [15:0] pp3 = b_s1[3] ? {5'd0, a_s1, 3'b0} : 16'd0;
    wire [15:0] pp4 = b_s1[4] ? {4'd0, a_s1, 4'b0} : 16'd0;
    wire [15:0] pp5 = b_s1[5] ? {3'd0, a_s1, 5'b0} : 16'd0;
    wire [15:0] pp6 = b_s1[6] ? {2'd0, a_s1, 6'b0} : 16'd0;
    wire [15:0] pp7 = b_s1[7] ? {1'd0, a_s1, 7'b0} : 16'd0;
    wire [15:0] product = pp0 + pp1 + pp2 + pp3 + pp4 + pp5 + pp6 + pp7;

    always @(posedge clk or negedge rst_n) begin
        if (!rst_n) begin
            out_valid <= 1'b0;
            p <= 16'd0;
        end else begin
            out_valid <= valid_s1;
            if (valid_s1) begin
                p <= product;
            end
        end
    end
endmodule

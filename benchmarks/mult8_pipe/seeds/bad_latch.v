// SEED: faulty - latch: the next product is computed in an always @(*) block that assigns it only when v1 is 1, inferring a latch to "hold" p
module mult8_pipe (
    input  wire        clk,
    input  wire        rst_n,
    input  wire        in_valid,
    input  wire [7:0]  a,
    input  wire [7:0]  b,
    output reg         out_valid,
    output reg  [15:0] p
);
    reg        v1;
    reg [7:0]  a1;
    reg [7:0]  b1;
    reg [15:0] p_next;

    always @(posedge clk or negedge rst_n) begin
        if (!rst_n) begin
            v1 <= 1'b0;
            a1 <= 8'd0;
            b1 <= 8'd0;
            out_valid <= 1'b0;
        end else begin
            v1 <= in_valid;
            a1 <= a;
            b1 <= b;
            out_valid <= v1;
        end
    end

    always @(*) begin
        if (v1) begin
            p_next = a1 * b1;
        end
    end

    always @(posedge clk or negedge rst_n) begin
        if (!rst_n) begin
            p <= 16'd0;
        end else begin
            p <= p_next;
        end
    end
endmodule

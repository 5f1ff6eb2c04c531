// Reference mult8_pipe: stage 1 captures the operands, stage 2 multiplies and registers p.
module mult8_pipe (
    input  wire        clk,
    input  wire        rst_n,
    input  wire        in_valid,
    input  wire [7:0]  a,
    input  wire [7:0]  b,
    output reg         out_valid,
    output reg  [15:0] p
);
    reg       v1;
    reg [7:0] a1;
    reg [7:0] b1;

    always @(posedge clk or negedge rst_n) begin
        if (!rst_n) begin
            v1 <= 1'b0;
            out_valid <= 1'b0;
        end else begin
            v1 <= in_valid;
            out_valid <= v1;
        end
    end

    // Operand registers need no reset: they are only observed after v1 has been set by a load.
    always @(posedge clk) begin
        if (in_valid) begin
            a1 <= a;
            b1 <= b;
        end
    end

    always @(posedge clk or negedge rst_n) begin
        if (!rst_n) begin
            p <= 16'h0000;
        end else if (v1) begin
            p <= a1 * b1;
        end
    end
endmodule

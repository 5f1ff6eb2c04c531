// SEED: faulty - truncated width: the stage-1 product register is 8 bits wide, so the upper byte of every product is lost
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
    reg [7:0] prod1;

    always @(posedge clk or negedge rst_n) begin
        if (!rst_n) begin
            v1 <= 1'b0;
            prod1 <= 8'd0;
            out_valid <= 1'b0;
            p <= 16'd0;
        end else begin
            v1 <= in_valid;
            out_valid <= v1;
            if (in_valid) begin
                prod1 <= a * b;
            end
            if (v1) begin
                p <= {8'd0, prod1};
            end
        end
    end
endmodule

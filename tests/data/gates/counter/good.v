// A valid counter written differently from the reference (sync-style enable mux, separate wrap logic).
module counter (
    input  wire       clk,
    input  wire       rst_n,
    input  wire       en,
    output reg  [7:0] count,
    output wire       wrap
);
    wire [7:0] next = en ? count + 8'd1 : count;
    always @(posedge clk or negedge rst_n)
        if (~rst_n) count <= 8'h00;
        else        count <= next;
    assign wrap = &count;
endmodule

// Wrong reset polarity: clears on rst_n high.
module counter (
    input  wire       clk,
    input  wire       rst_n,
    input  wire       en,
    output reg  [7:0] count,
    output wire       wrap
);
    always @(posedge clk or posedge rst_n)
        if (rst_n) count <= 8'd0;
        else if (en) count <= count + 8'd1;
    assign wrap = (count == 8'hff);
endmodule

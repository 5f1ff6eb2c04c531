// SEED: valid - naive: redundant state (3-bit pointers plus a separately counted occupancy with its own +1/-1 adders), every storage byte reset to 0 on rst_n (64 needless reset flops), flags compared in each branch
module fifo8 (
    input  wire       clk,
    input  wire       rst_n,
    input  wire       wr_en,
    input  wire [7:0] din,
    input  wire       rd_en,
    output reg  [7:0] dout,
    output reg        full,
    output reg        empty,
    output reg  [3:0] count
);
    reg [7:0] mem [0:7];
    reg [2:0] wptr;
    reg [2:0] rptr;
    integer i;

    always @(posedge clk or negedge rst_n) begin
        if (!rst_n) begin
            for (i = 0; i < 8; i = i + 1)
                mem[i] <= 8'h00;
            wptr  <= 3'd0;
            rptr  <= 3'd0;
            count <= 4'd0;
            full  <= 1'b0;
            empty <= 1'b1;
            dout  <= 8'h00;
        end else begin
            if (wr_en && !full && rd_en && !empty) begin
                mem[wptr] <= din;
                wptr <= wptr + 3'd1;
                dout <= mem[rptr];
                rptr <= rptr + 3'd1;
                count <= count;
            end else if (wr_en && !full) begin
                mem[wptr] <= din;
                wptr <= wptr + 3'd1;
                count <= count + 4'd1;
                full <= (count + 4'd1 == 4'd8);
                empty <= 1'b0;
            end else if (rd_en && !empty) begin
                dout <= mem[rptr];
                rptr <= rptr + 3'd1;
                count <= count - 4'd1;
                empty <= (count - 4'd1 == 4'd0);
                full <= 1'b0;
            end
        end
    end
endmodule

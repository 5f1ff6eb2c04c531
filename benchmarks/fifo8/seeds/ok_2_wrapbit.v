// SEED: valid - wrap-bit pointers: 4-bit read/write pointers (extra MSB tells full from empty), count = wptr - rptr, no separate occupancy register, storage without reset
module fifo8 (
    input  wire       clk,
    input  wire       rst_n,
    input  wire       wr_en,
    input  wire [7:0] din,
    input  wire       rd_en,
    output reg  [7:0] dout,
    output wire       full,
    output wire       empty,
    output wire [3:0] count
);
    reg [7:0] mem [0:7];
    reg [3:0] wptr;
    reg [3:0] rptr;

    assign empty = (wptr == rptr);
    assign full  = (wptr[3] != rptr[3]) && (wptr[2:0] == rptr[2:0]);
    assign count = wptr - rptr;

    wire do_wr = wr_en && !full;
    wire do_rd = rd_en && !empty;

    always @(posedge clk) begin
        if (do_wr) mem[wptr[2:0]] <= din;
    end

    always @(posedge clk or negedge rst_n) begin
        if (!rst_n) begin
            wptr <= 4'd0;
            rptr <= 4'd0;
            dout <= 8'h00;
        end else begin
            if (do_wr) wptr <= wptr + 4'd1;
            if (do_rd) begin
                rptr <= rptr + 4'd1;
                dout <= mem[rptr[2:0]];
            end
        end
    end
endmodule

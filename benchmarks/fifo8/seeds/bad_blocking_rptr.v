// SEED: faulty - blocking/non-blocking mix-up: rptr is incremented with a blocking assignment before dout <= mem[rptr], so every read returns the entry after the oldest one
module fifo8 (
    input  wire       clk,
    input  wire       rst_n,
    input  wire       wr_en,
    input  wire [7:0] din,
    input  wire       rd_en,
    output reg  [7:0] dout,
    output wire       full,
    output wire       empty,
    output reg  [3:0] count
);
    reg [7:0] mem [0:7];
    reg [2:0] wptr;
    reg [2:0] rptr;

    assign full  = (count == 4'd8);
    assign empty = (count == 4'd0);

    wire do_wr = wr_en & ~full;
    wire do_rd = rd_en & ~empty;

    always @(posedge clk) begin
        if (do_wr) mem[wptr] <= din;
    end

    always @(posedge clk or negedge rst_n) begin
        if (!rst_n) begin
            wptr  <= 3'd0;
            rptr  = 3'd0;
            count <= 4'd0;
            dout  <= 8'h00;
        end else begin
            if (do_wr) wptr <= wptr + 3'd1;
            if (do_rd) begin
                rptr = rptr + 3'd1;
                dout <= mem[rptr];
            end
            if (do_wr && !do_rd) count <= count + 4'd1;
            else if (do_rd && !do_wr) count <= count - 4'd1;
        end
    end
endmodule

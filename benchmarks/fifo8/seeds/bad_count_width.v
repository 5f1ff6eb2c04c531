// SEED: faulty - truncated width: count is declared 3 bits ("8 entries need 3 address bits"), so the port is narrower than the interface and 8 reads back as 0
module fifo8 (
    input  wire       clk,
    input  wire       rst_n,
    input  wire       wr_en,
    input  wire [7:0] din,
    input  wire       rd_en,
    output reg  [7:0] dout,
    output reg        full,
    output wire       empty,
    output reg  [2:0] count
);
    reg [7:0] mem [0:7];
    reg [2:0] wptr;
    reg [2:0] rptr;

    assign empty = (count == 3'd0) && !full;

    wire do_wr = wr_en & ~full;
    wire do_rd = rd_en & ~empty;

    always @(posedge clk) begin
        if (do_wr) mem[wptr] <= din;
    end

    always @(posedge clk or negedge rst_n) begin
        if (!rst_n) begin
            wptr  <= 3'd0;
            rptr  <= 3'd0;
            count <= 3'd0;
            full  <= 1'b0;
            dout  <= 8'h00;
        end else begin
            if (do_wr) wptr <= wptr + 3'd1;
            if (do_rd) begin
                rptr <= rptr + 3'd1;
                dout <= mem[rptr];
            end
            if (do_wr && !do_rd) begin
                count <= count + 3'd1;
                full  <= (count == 3'd7);
            end else if (do_rd && !do_wr) begin
                count <= count - 3'd1;
                full  <= 1'b0;
            end
        end
    end
endmodule

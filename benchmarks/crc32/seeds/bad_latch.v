// SEED: faulty - latch: the next CRC is computed in an always @(*) block that assigns it only when valid is 1, inferring a latch to hold it
module crc32 (
    input  wire        clk,
    input  wire        rst_n,
    input  wire        init,
    input  wire        valid,
    input  wire [7:0]  data,
    output wire [31:0] crc
);
    reg [31:0] state;
    reg [31:0] next;
    reg [31:0] x;
    integer k;

    always @(*) begin
        if (valid) begin
            x = (init ? 32'hFFFFFFFF : state) ^ {24'h000000, data};
            for (k = 0; k < 8; k = k + 1)
                x = x[0] ? ((x >> 1) ^ 32'hEDB88320) : (x >> 1);
            next = x;
        end
    end

    always @(posedge clk or negedge rst_n) begin
        if (!rst_n)
            state <= 32'hFFFFFFFF;
        else if (valid)
            state <= next;
        else if (init)
            state <= 32'hFFFFFFFF;
    end

    assign crc = ~state;
endmodule

// SEED: faulty - not reflected: MSB-first shift with the normal polynomial 0x04C11DB7 (the textbook CRC-32/BZIP2 form) instead of the reflected LSB-first register
module crc32 (
    input  wire        clk,
    input  wire        rst_n,
    input  wire        init,
    input  wire        valid,
    input  wire [7:0]  data,
    output wire [31:0] crc
);
    reg [31:0] state;

    function [31:0] crc_byte(input [31:0] c, input [7:0] d);
        integer k;
        reg [31:0] x;
        begin
            x = c ^ {d, 24'h000000};
            for (k = 0; k < 8; k = k + 1)
                x = x[31] ? ((x << 1) ^ 32'h04C11DB7) : (x << 1);
            crc_byte = x;
        end
    endfunction

    wire [31:0] base = init ? 32'hFFFFFFFF : state;

    always @(posedge clk or negedge rst_n) begin
        if (!rst_n)
            state <= 32'hFFFFFFFF;
        else if (valid)
            state <= crc_byte(base, data);
        else
            state <= base;
    end

    assign crc = ~state;
endmodule

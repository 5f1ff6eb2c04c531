// Reference crc32: CRC-32 (IEEE 802.3, reflected, poly 0xEDB88320), one byte per cycle, crc = ~state.
module crc32 (
    input  wire        clk,
    input  wire        rst_n,
    input  wire        init,
    input  wire        valid,
    input  wire [7:0]  data,
    output wire [31:0] crc
);
    reg [31:0] state;

    // Eight LSB-first shift steps of the reflected CRC register with the byte XORed in.
    function [31:0] crc_byte(input [31:0] c, input [7:0] d);
        integer k;
        reg [31:0] x;
        begin
            x = c ^ {24'h000000, d};
            for (k = 0; k < 8; k = k + 1)
                x = x[0] ? ((x >> 1) ^ 32'hEDB88320) : (x >> 1);
            crc_byte = x;
        end
    endfunction

    // init restarts the message; a byte valid in the same cycle is its first byte.
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

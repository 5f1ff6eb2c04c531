// SEED: faulty - init has priority over valid: a byte presented together with init is dropped instead of starting the new message
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
            x = c ^ {24'h000000, d};
            for (k = 0; k < 8; k = k + 1)
                x = x[0] ? ((x >> 1) ^ 32'hEDB88320) : (x >> 1);
            crc_byte = x;
        end
    endfunction

    always @(posedge clk or negedge rst_n) begin
        if (!rst_n)
            state <= 32'hFFFFFFFF;
        else if (init)
            state <= 32'hFFFFFFFF;
        else if (valid)
            state <= crc_byte(state, data);
    end

    assign crc = ~state;
endmodule

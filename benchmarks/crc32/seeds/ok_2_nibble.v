// SEED: valid - nibble lookup tables (Sarwate, 4 bits at a time: two 16-entry ROMs in series) when ARCH = 0, bit-serial loop unrolled by synthesis when ARCH = 1
module crc32 #(
    parameter ARCH = 0
) (
    input  wire        clk,
    input  wire        rst_n,
    input  wire        init,
    input  wire        valid,
    input  wire [7:0]  data,
    output wire [31:0] crc
);
    reg [31:0] state;

    // CRC of a 4-bit index pushed through four reflected shift steps.
    function [31:0] nib(input [3:0] i);
        begin
            case (i)
            4'h0: nib = 32'h00000000;
            4'h1: nib = 32'h1db71064;
            4'h2: nib = 32'h3b6e20c8;
            4'h3: nib = 32'h26d930ac;
            4'h4: nib = 32'h76dc4190;
            4'h5: nib = 32'h6b6b51f4;
            4'h6: nib = 32'h4db26158;
            4'h7: nib = 32'h5005713c;
            4'h8: nib = 32'hedb88320;
            4'h9: nib = 32'hf00f9344;
            4'ha: nib = 32'hd6d6a3e8;
            4'hb: nib = 32'hcb61b38c;
            4'hc: nib = 32'h9b64c2b0;
            4'hd: nib = 32'h86d3d2d4;
            4'he: nib = 32'ha00ae278;
            4'hf: nib = 32'hbdbdf21c;
                default: nib = 32'h00000000;
            endcase
        end
    endfunction

    function [31:0] by_table(input [31:0] c, input [7:0] d);
        reg [31:0] lo;
        begin
            lo = (c >> 4) ^ nib(c[3:0] ^ d[3:0]);
            by_table = (lo >> 4) ^ nib(lo[3:0] ^ d[7:4]);
        end
    endfunction

    function [31:0] by_bits(input [31:0] c, input [7:0] d);
        integer k;
        reg [31:0] x;
        begin
            x = c ^ {24'h000000, d};
            for (k = 0; k < 8; k = k + 1)
                x = x[0] ? ((x >> 1) ^ 32'hEDB88320) : (x >> 1);
            by_bits = x;
        end
    endfunction

    wire [31:0] base = init ? 32'hFFFFFFFF : state;
    wire [31:0] upd  = (ARCH == 0) ? by_table(base, data) : by_bits(base, data);

    always @(posedge clk or negedge rst_n) begin
        if (!rst_n)
            state <= 32'hFFFFFFFF;
        else if (valid)
            state <= upd;
        else
            state <= base;
    end

    assign crc = ~state;
endmodule

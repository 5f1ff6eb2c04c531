// SEED: valid - parallel XOR matrix: every next-state bit written out as an explicit XOR of register and data bits (t = low byte XOR data), as a generated "CRC equations" block
module crc32 (
    input  wire        clk,
    input  wire        rst_n,
    input  wire        init,
    input  wire        valid,
    input  wire [7:0]  data,
    output wire [31:0] crc
);
    reg  [31:0] state;
    wire [31:0] base = init ? 32'hFFFFFFFF : state;
    wire [7:0]  t = base[7:0] ^ data;
    wire [31:0] nxt;

    assign nxt[0] = t[2] ^ base[8];
    assign nxt[1] = t[0] ^ t[3] ^ base[9];
    assign nxt[2] = t[0] ^ t[1] ^ t[4] ^ base[10];
    assign nxt[3] = t[1] ^ t[2] ^ t[5] ^ base[11];
    assign nxt[4] = t[0] ^ t[2] ^ t[3] ^ t[6] ^ base[12];
    assign nxt[5] = t[1] ^ t[3] ^ t[4] ^ t[7] ^ base[13];
    assign nxt[6] = t[4] ^ t[5] ^ base[14];
    assign nxt[7] = t[0] ^ t[5] ^ t[6] ^ base[15];
    assign nxt[8] = t[1] ^ t[6] ^ t[7] ^ base[16];
    assign nxt[9] = t[7] ^ base[17];
    assign nxt[10] = t[2] ^ base[18];
    assign nxt[11] = t[3] ^ base[19];
    assign nxt[12] = t[0] ^ t[4] ^ base[20];
    assign nxt[13] = t[0] ^ t[1] ^ t[5] ^ base[21];
    assign nxt[14] = t[1] ^ t[2] ^ t[6] ^ base[22];
    assign nxt[15] = t[2] ^ t[3] ^ t[7] ^ base[23];
    assign nxt[16] = t[0] ^ t[2] ^ t[3] ^ t[4] ^ base[24];
    assign nxt[17] = t[0] ^ t[1] ^ t[3] ^ t[4] ^ t[5] ^ base[25];
    assign nxt[18] = t[0] ^ t[1] ^ t[2] ^ t[4] ^ t[5] ^ t[6] ^ base[26];
    assign nxt[19] = t[1] ^ t[2] ^ t[3] ^ t[5] ^ t[6] ^ t[7] ^ base[27];
    assign nxt[20] = t[3] ^ t[4] ^ t[6] ^ t[7] ^ base[28];
    assign nxt[21] = t[2] ^ t[4] ^ t[5] ^ t[7] ^ base[29];
    assign nxt[22] = t[2] ^ t[3] ^ t[5] ^ t[6] ^ base[30];
    assign nxt[23] = t[3] ^ t[4] ^ t[6] ^ t[7] ^ base[31];
    assign nxt[24] = t[0] ^ t[2] ^ t[4] ^ t[5] ^ t[7];
    assign nxt[25] = t[0] ^ t[1] ^ t[2] ^ t[3] ^ t[5] ^ t[6];
    assign nxt[26] = t[0] ^ t[1] ^ t[2] ^ t[3] ^ t[4] ^ t[6] ^ t[7];
    assign nxt[27] = t[1] ^ t[3] ^ t[4] ^ t[5] ^ t[7];
    assign nxt[28] = t[0] ^ t[4] ^ t[5] ^ t[6];
    assign nxt[29] = t[0] ^ t[1] ^ t[5] ^ t[6] ^ t[7];
    assign nxt[30] = t[0] ^ t[1] ^ t[6] ^ t[7];
    assign nxt[31] = t[1] ^ t[7];

    always @(posedge clk or negedge rst_n) begin
        if (!rst_n)
            state <= 32'hFFFFFFFF;
        else if (valid)
            state <= nxt;
        else
            state <= base;
    end

    assign crc = ~state;
endmodule

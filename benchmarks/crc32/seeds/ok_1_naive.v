// SEED: valid - naive: duplicated arithmetic in mux branches (a separate bit-serial XOR tree for the init+valid case), plus a second 32-bit output register loaded every cycle with ~next instead of decoding ~state
module crc32 (
    input  wire        clk,
    input  wire        rst_n,
    input  wire        init,
    input  wire        valid,
    input  wire [7:0]  data,
    output reg  [31:0] crc
);
    reg [31:0] state;
    reg [31:0] next;
    reg [31:0] x;
    integer k;

    always @(*) begin
        k = 0;
        x = state;
        if (init && valid) begin
            x = 32'hFFFFFFFF ^ {24'h000000, data};
            for (k = 0; k < 8; k = k + 1)
                if (x[0]) x = (x >> 1) ^ 32'hEDB88320;
                else x = x >> 1;
            next = x;
        end else if (valid) begin
            x = state ^ {24'h000000, data};
            for (k = 0; k < 8; k = k + 1)
                if (x[0]) x = (x >> 1) ^ 32'hEDB88320;
                else x = x >> 1;
            next = x;
        end else if (init) begin
            next = 32'hFFFFFFFF;
        end else begin
            next = state;
        end
    end

    always @(posedge clk or negedge rst_n) begin
        if (!rst_n) begin
            state <= 32'hFFFFFFFF;
            crc   <= 32'h00000000;
        end else begin
            state <= next;
            crc   <= ~next;
        end
    end
endmodule

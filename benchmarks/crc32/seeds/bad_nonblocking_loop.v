// SEED: faulty - blocking/non-blocking mix-up: the 8 shift steps are a for loop of non-blocking assignments to state, so every iteration reads the old state and only the last step takes effect
module crc32 (
    input  wire        clk,
    input  wire        rst_n,
    input  wire        init,
    input  wire        valid,
    input  wire [7:0]  data,
    output wire [31:0] crc
);
    reg [31:0] state;
    reg [31:0] x;
    integer k;

    always @(posedge clk or negedge rst_n) begin
        if (!rst_n) begin
            state <= 32'hFFFFFFFF;
        end else if (valid) begin
            x = (init ? 32'hFFFFFFFF : state) ^ {24'h000000, data};
            for (k = 0; k < 8; k = k + 1)
                state <= x[0] ? ((x >> 1) ^ 32'hEDB88320) : (x >> 1);
        end else if (init) begin
            state <= 32'hFFFFFFFF;
        end
    end

    assign crc = ~state;
endmodule

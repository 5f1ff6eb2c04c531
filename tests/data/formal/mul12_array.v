// 12x12 array multiplier: rows of ripple-carry adders over the partial products.
module mul12 (input wire [11:0] a, input wire [11:0] b, output wire [23:0] p);
    wire [23:0] row [0:12];
    assign row[0] = 24'd0;
    genvar i, j;
    generate
        for (i = 0; i < 12; i = i + 1) begin : r
            wire [23:0] pp = b[i] ? ({12'd0, a} << i) : 24'd0;
            wire [24:0] c;
            assign c[0] = 1'b0;
            for (j = 0; j < 24; j = j + 1) begin : fa
                assign row[i + 1][j] = row[i][j] ^ pp[j] ^ c[j];
                assign c[j + 1] = (row[i][j] & pp[j]) | (c[j] & (row[i][j] ^ pp[j]));
            end
        end
    endgenerate
    assign p = row[12];
endmodule

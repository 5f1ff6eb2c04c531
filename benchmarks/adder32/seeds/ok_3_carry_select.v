// SEED: valid - carry-select adder: four 8-bit blocks, each upper block computed for both carry values and muxed (duplicated block adders)
module adder32 (
    input  wire [31:0] a,
    input  wire [31:0] b,
    input  wire        cin,
    output wire [31:0] sum,
    output wire        cout
);
    wire [4:0] carry;
    assign carry[0] = cin;

    // Block 0 sees the real carry-in directly.
    assign {carry[1], sum[7:0]} = {1'b0, a[7:0]} + {1'b0, b[7:0]} + {8'd0, carry[0]};

    genvar blk;
    generate
        for (blk = 1; blk < 4; blk = blk + 1) begin : g_block
            wire [8:0] s0 = {1'b0, a[8*blk +: 8]} + {1'b0, b[8*blk +: 8]};
            wire [8:0] s1 = {1'b0, a[8*blk +: 8]} + {1'b0, b[8*blk +: 8]} + 9'd1;
            assign sum[8*blk +: 8] = carry[blk] ? s1[7:0] : s0[7:0];
            assign carry[blk + 1] = carry[blk] ? s1[8] : s0[8];
        end
    endgenerate

    assign cout = carry[4];
endmodule

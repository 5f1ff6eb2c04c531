// SEED: valid - ARCH=0 explicit ripple-carry chain of full adders (32 carry levels), ARCH=1 Kogge-Stone parallel-prefix carries (log2 depth)
module adder32 #(
    parameter ARCH = 0
) (
    input  wire [31:0] a,
    input  wire [31:0] b,
    input  wire        cin,
    output wire [31:0] sum,
    output wire        cout
);
    wire [31:0] p = a ^ b;
    wire [31:0] g = a & b;
    wire [32:0] c;

    assign c[0] = cin;

    generate
        if (ARCH == 0) begin : g_ripple
            genvar i;
            for (i = 0; i < 32; i = i + 1) begin : g_bit
                assign c[i + 1] = g[i] | (p[i] & c[i]);
            end
        end else begin : g_prefix
            // Kogge-Stone: level k combines (G,P) pairs 2^k bits apart; cin enters as bit -1.
            wire [32:0] gl [0:6];
            wire [32:0] pl [0:6];
            assign gl[0] = {g, cin};
            assign pl[0] = {p, 1'b0};
            genvar k, j;
            for (k = 0; k < 6; k = k + 1) begin : g_level
                for (j = 0; j < 33; j = j + 1) begin : g_node
                    if (j >= (1 << k)) begin : g_combine
                        assign gl[k + 1][j] = gl[k][j] | (pl[k][j] & gl[k][j - (1 << k)]);
                        assign pl[k + 1][j] = pl[k][j] & pl[k][j - (1 << k)];
                    end else begin : g_pass
                        assign gl[k + 1][j] = gl[k][j];
                        assign pl[k + 1][j] = pl[k][j];
                    end
                end
            end
            // gl[6][j] is the carry into bit j (bit 0 of the vector is cin itself).
            assign c[32:1] = gl[6][32:1];
        end
    endgenerate

    assign sum = p ^ c[31:0];
    assign cout = c[32];
endmodule

// SEED: valid - naive sign-magnitude multiply: negates both operands to magnitudes, multiplies unsigned, then conditionally negates the 32-bit product (three extra negators and muxes)
module mac16 (
    input  wire               clk,
    input  wire               rst_n,
    input  wire               clr,
    input  wire               en,
    input  wire signed [15:0] a,
    input  wire signed [15:0] b,
    output reg  signed [31:0] acc
);
    // |a| and |b| fit in 16 unsigned bits, including |-32768| = 32768.
    wire [15:0] mag_a = a[15] ? (~a + 16'd1) : a;
    wire [15:0] mag_b = b[15] ? (~b + 16'd1) : b;
    wire [31:0] mag_p = mag_a * mag_b;
    wire        neg = a[15] ^ b[15];
    wire [31:0] product = neg ? (~mag_p + 32'd1) : mag_p;

    always @(posedge clk or negedge rst_n) begin
        if (!rst_n) begin
            acc <= 32'sd0;
        end else begin
            case ({clr, en})
                2'b10, 2'b11: acc <= 32'sd0;
                2'b01: acc <= acc + $signed(product);
                default: acc <= acc;
            endcase
        end
    end
endmodule

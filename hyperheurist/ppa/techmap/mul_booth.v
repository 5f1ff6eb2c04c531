// HyperHeurist techmap (recipe multiplier: booth): $mul as radix-4 (modified) Booth partial products,
// reduced by \$__hh_csa_sum (csa.v: carry-save tree + one final `+`). Map with both files.
//
// Multiplier M (the narrower operand) is extended to an even width so that, read as a signed number,
// it equals the operand; digit i in {-2..2} is -2*m[2i+1] + m[2i] + m[2i-1]. Row i is the digit times
// the multiplicand X (sign- or zero-extended to K bits) as K bits: X or 2X, inverted when negative, the
// +1 of the negation added at bit 2i of the next row. Sign extension is replaced by inverting each
// row's top bit and adding one constant row (-2^(K-1+2i) summed over the rows). Everything is computed
// modulo 2^P, P = min(Y_WIDTH, A_WIDTH + B_WIDTH), which holds the whole product; wider Y is extended.
// Yosys keeps its own mapping (_TECHMAP_FAIL_) for a constant operand (shift-add is better there) and
// mixed signedness; which other cells this file may take is the recipe's choice (ppa/techmap/__init__.py).

(* techmap_celltype = "$mul" *)
module _hh_mul_booth (A, B, Y);
	parameter A_SIGNED = 0;
	parameter B_SIGNED = 0;
	parameter A_WIDTH = 1;
	parameter B_WIDTH = 1;
	parameter Y_WIDTH = 1;
	parameter [A_WIDTH-1:0] _TECHMAP_CONSTMSK_A_ = 0;
	parameter [B_WIDTH-1:0] _TECHMAP_CONSTMSK_B_ = 0;

	(* force_downto *)
	input [A_WIDTH-1:0] A;
	(* force_downto *)
	input [B_WIDTH-1:0] B;
	(* force_downto *)
	output [Y_WIDTH-1:0] Y;

	localparam S = A_SIGNED;
	localparam SWAP = B_WIDTH > A_WIDTH;
	localparam XW = SWAP ? B_WIDTH : A_WIDTH;  // multiplicand
	localparam MW = SWAP ? A_WIDTH : B_WIDTH;  // multiplier
	localparam P = Y_WIDTH < A_WIDTH + B_WIDTH ? Y_WIDTH : A_WIDTH + B_WIDTH;
	localparam K = S ? XW + 1 : XW + 2;  // row width: the multiplicand as a signed number, times 2
	localparam ME = S ? MW + MW % 2 : MW + 2 - MW % 2;  // the multiplier as an even-width signed number
	localparam D = ME / 2;  // Booth digits, one row each

	wire _TECHMAP_FAIL_ = A_SIGNED != B_SIGNED || &_TECHMAP_CONSTMSK_A_ || &_TECHMAP_CONSTMSK_B_ ||
		MW < 2 || P < 2;

	// the constant row: -sum of 2^(K-1+2i) over the rows that reach into the P bits
	function [P-1:0] sign_fix;
		input integer unused;
		integer i;
		reg [P-1:0] one;
		begin
			one = 1;
			sign_fix = 0;
			for (i = 0; i < D; i = i + 1)
				if (K - 1 + 2*i < P)
					sign_fix = sign_fix - (one << (K - 1 + 2*i));
		end
	endfunction

	(* force_downto *)
	wire [XW-1:0] X;
	(* force_downto *)
	wire [MW-1:0] M;
	generate
		if (SWAP) begin:swap
			assign X = B, M = A;
		end else begin:keep
			assign X = A, M = B;
		end
	endgenerate

	(* force_downto *)
	wire [K-1:0] Xs = {{(K - XW){S ? X[XW-1] : 1'b0}}, X};
	(* force_downto *)
	wire [K-1:0] X2 = {Xs[K-2:0], 1'b0};
	(* force_downto *)
	wire [ME:0] Me = {{(ME - MW){S ? M[MW-1] : 1'b0}}, M, 1'b0};  // Me[j+1] = multiplier bit j, Me[0] = 0
	(* force_downto *)
	wire [D-1:0] neg;
	(* force_downto *)
	wire [(D+2)*P-1:0] rows;

	genvar i;
	generate
		for (i = 0; i < D; i = i + 1) begin:digit
			wire lo = Me[2*i], mid = Me[2*i+1], hi = Me[2*i+2];
			wire one = mid ^ lo;
			wire two = (hi & ~mid & ~lo) | (~hi & mid & lo);
			assign neg[i] = hi & ~(mid & lo);
			(* force_downto *)
			wire [K-1:0] pp = {K{neg[i]}} ^ (({K{one}} & Xs) | ({K{two}} & X2));
			// top bit inverted (sign extension by the constant row); bit 2i-2 carries the previous row's +1
			(* force_downto *)
			wire [P+K+1:0] row = {{P{1'b0}}, ~pp[K-1], pp[K-2:0], 2'b00} << (2*i);
			if (i == 0) begin:first
				assign rows[0 +: P] = row[P+1:2];
			end else begin:next
				(* force_downto *)
				wire [P+1:0] carry_in = {{P{1'b0}}, neg[i-1]} << (2*i);
				assign rows[i*P +: P] = row[P+1:2] | carry_in[P+1:2];
			end
		end
		if (2*(D-1) < P) begin:last_neg
			assign rows[D*P +: P] = {{P{1'b0}}, neg[D-1]} << (2*(D-1));
		end else begin:no_last_neg
			assign rows[D*P +: P] = 0;
		end
	endgenerate
	assign rows[(D+1)*P +: P] = sign_fix(0);

	(* force_downto *)
	wire [P-1:0] product;
	\$__hh_csa_sum #(.N(D + 2), .W(P)) sum (.R(rows), .Y(product));

	generate
		if (Y_WIDTH > P) begin:extend
			assign Y = {{(Y_WIDTH - P){S ? product[P-1] : 1'b0}}, product};
		end else begin:fit
			assign Y = product;
		end
	endgenerate
endmodule

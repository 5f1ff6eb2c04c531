// HyperHeurist techmap (recipe multiplier: wallace): $mul as plain AND partial products, reduced by
// \$__hh_csa_sum (csa.v: carry-save tree + one final `+`). Map with both files.
//
// Row i is the multiplicand X ANDed with bit i of the multiplier M (the narrower operand), at bit i.
// Signed operands (Baugh-Wooley): row i < MW-1 is signed X times m[i], the top row is minus that
// (m's top bit weighs -2^(MW-1)); each row's sign extension is replaced by inverting its top bit (the
// top row: all bits but the top one, its +1 of negation at bit MW-1) and one constant row. Everything is
// computed modulo 2^P, P = min(Y_WIDTH, A_WIDTH + B_WIDTH), which holds the whole product; wider Y is
// extended. Yosys keeps its own mapping (_TECHMAP_FAIL_) for a constant operand (shift-add is better
// there) and mixed signedness; which other cells this file may take is the recipe's choice
// (ppa/techmap/__init__.py).

(* techmap_celltype = "$mul" *)
module _hh_mul_wallace (A, B, Y);
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

	wire _TECHMAP_FAIL_ = A_SIGNED != B_SIGNED || &_TECHMAP_CONSTMSK_A_ || &_TECHMAP_CONSTMSK_B_ ||
		MW < 2 || P < 2;

	// the constant row (signed only): -2^(XW-1+i) for every row, +2^(MW-1) for the top row's negation
	function [P-1:0] sign_fix;
		input integer unused;
		integer i;
		reg [P-1:0] one;
		begin
			one = 1;
			sign_fix = 0;
			if (S) begin
				for (i = 0; i < MW; i = i + 1)
					if (XW - 1 + i < P)
						sign_fix = sign_fix - (one << (XW - 1 + i));
				if (MW - 1 < P)
					sign_fix = sign_fix + (one << (MW - 1));
			end
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
	wire [(MW+1)*P-1:0] rows;

	genvar i;
	generate
		for (i = 0; i < MW; i = i + 1) begin:bit
			(* force_downto *)
			wire [XW-1:0] pp = X & {XW{M[i]}};
			// signed: the top bit inverted, and for the top row every other bit instead
			(* force_downto *)
			wire [XW-1:0] flip = !S ? {XW{1'b0}} : i < MW - 1 ? {1'b1, {(XW-1){1'b0}}} : {1'b0, {(XW-1){1'b1}}};
			(* force_downto *)
			wire [P+XW-1:0] row = {{P{1'b0}}, pp ^ flip} << i;
			assign rows[i*P +: P] = row[P-1:0];
		end
	endgenerate
	assign rows[MW*P +: P] = sign_fix(0);

	(* force_downto *)
	wire [P-1:0] product;
	\$__hh_csa_sum #(.N(MW + 1), .W(P)) sum (.R(rows), .Y(product));

	generate
		if (Y_WIDTH > P) begin:extend
			assign Y = {{(Y_WIDTH - P){S ? product[P-1] : 1'b0}}, product};
		end else begin:fit
			assign Y = product;
		end
	endgenerate
endmodule

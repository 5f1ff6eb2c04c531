// HyperHeurist techmap helper: the sum of N rows of W bits, reduced by a word-level carry-save tree
// (3:2 compressors, Wallace order: each level adds rows three at a time) and one final `+`.
// Rows are packed in R, row r at R[r*W +: W]; the sum is taken modulo 2^W. Constant-zero bits of a row
// (shifted partial products) fold away after mapping, so a compressor over them becomes a half adder
// or a wire.
module \$__hh_csa_sum (R, Y);
	parameter N = 3;
	parameter W = 2;

	(* force_downto *)
	input [N*W-1:0] R;
	(* force_downto *)
	output [W-1:0] Y;

	// rows left after `level` levels of 3:2 compression
	function integer rows_at;
		input integer n, level;
		integer l;
		begin
			rows_at = n;
			for (l = 0; l < level; l = l + 1)
				if (rows_at > 2)
					rows_at = 2 * (rows_at / 3) + rows_at % 3;
		end
	endfunction

	function integer depth;
		input integer n;
		begin
			depth = 0;
			while (rows_at(n, depth) > 2)
				depth = depth + 1;
		end
	endfunction

	localparam L = depth(N);

	// level l's rows at T[(l*N + r)*W +: W]
	(* force_downto *)
	wire [(L+1)*N*W-1:0] T;
	assign T[N*W-1:0] = R;

	genvar l, r;
	generate
		for (l = 0; l < L; l = l + 1) begin:level
			localparam C = rows_at(N, l);
			localparam G = C / 3;
			for (r = 0; r < 2*G + C % 3; r = r + 1) begin:row
				if (r < 2*G) begin:csa
					(* force_downto *)
					wire [W-1:0] a = T[(l*N + 3*(r/2))*W +: W];
					(* force_downto *)
					wire [W-1:0] b = T[(l*N + 3*(r/2) + 1)*W +: W];
					(* force_downto *)
					wire [W-1:0] c = T[(l*N + 3*(r/2) + 2)*W +: W];
					if (r % 2 == 0) begin:s
						assign T[((l+1)*N + r)*W +: W] = a ^ b ^ c;
					end else begin:co
						(* force_downto *)
						wire [W-1:0] maj = (a & b) | (a & c) | (b & c);
						assign T[((l+1)*N + r)*W +: W] = {maj[W-2:0], 1'b0};
					end
				end else begin:pass
					assign T[((l+1)*N + r)*W +: W] = T[(l*N + 3*G + r - 2*G)*W +: W];
				end
			end
		end
		if (rows_at(N, L) == 1) begin:one
			assign Y = T[L*N*W +: W];
		end else begin:two
			assign Y = T[L*N*W +: W] + T[(L*N + 1)*W +: W];
		end
	endgenerate
endmodule

// Sklansky (divide-and-conquer) $lcu: log2(WIDTH) levels, at level l every bit of the upper half of a
// 2^(l+1) block combines with the top bit of the lower half (minimal depth, fan-out up to WIDTH/2).
// Same semantics as Yosys' _90_lcu: CO[i] = G[i] | P[i] & CO[i-1], with CO[-1] = CI.
// Apply together with the generic map: `techmap -map +/techmap.v -map lcu_sklansky.v` (no $lcu exists
// before $alu is mapped); the _80_ prefix sorts before _90_lcu, so techmap picks this module first.
(* techmap_celltype = "$lcu" *)
module _80_lcu_sklansky (P, G, CI, CO);
	parameter WIDTH = 2;

	(* force_downto *)
	input [WIDTH-1:0] P, G;
	input CI;

	(* force_downto *)
	output [WIDTH-1:0] CO;

	integer l, j, k;
	(* force_downto *)
	reg [WIDTH-1:0] p, g;

	wire [1023:0] _TECHMAP_DO_ = "proc; opt -fast";

	always @* begin
		p = P;
		g = G;
		g[0] = g[0] | (p[0] & CI);
		// before level l, bit j spans down to j with its low l bits cleared; k (bit l clear) is not
		// written at this level, so the order within a level does not matter
		for (l = 0; (1 << l) < WIDTH; l = l + 1) begin
			for (j = 0; j < WIDTH; j = j + 1) begin
				if ((j >> l) % 2 == 1) begin
					k = ((j >> l) << l) - 1;
					g[j] = g[j] | (p[j] & g[k]);
					p[j] = p[j] & p[k];
				end
			end
		end
	end

	assign CO = g;
endmodule

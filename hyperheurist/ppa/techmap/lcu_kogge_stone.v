// Kogge-Stone $lcu: log2(WIDTH) levels, every bit combines with the bit 2^l below it at level l
// (the shallowest tree with fan-out 2, and the most prefix nodes).
// Same semantics as Yosys' _90_lcu: CO[i] = G[i] | P[i] & CO[i-1], with CO[-1] = CI.
// Apply together with the generic map: `techmap -map +/techmap.v -map lcu_kogge_stone.v` (no $lcu exists
// before $alu is mapped); the _80_ prefix sorts before _90_lcu, so techmap picks this module first.
(* techmap_celltype = "$lcu" *)
module _80_lcu_kogge_stone (P, G, CI, CO);
	parameter WIDTH = 2;

	(* force_downto *)
	input [WIDTH-1:0] P, G;
	input CI;

	(* force_downto *)
	output [WIDTH-1:0] CO;

	integer d, j, k;
	(* force_downto *)
	reg [WIDTH-1:0] p, g;

	wire [1023:0] _TECHMAP_DO_ = "proc; opt -fast";

	always @* begin
		p = P;
		g = G;
		g[0] = g[0] | (p[0] & CI);
		// top bit first, so g[k] and p[k] still hold the previous level's span when bit j reads them
		for (d = 1; d < WIDTH; d = d * 2) begin
			for (j = WIDTH - 1; j >= d; j = j - 1) begin
				k = j - d;
				g[j] = g[j] | (p[j] & g[k]);
				p[j] = p[j] & p[k];
			end
		end
	end

	assign CO = g;
endmodule

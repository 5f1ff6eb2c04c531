// Ripple-carry $lcu: one prefix node per bit, in series (the fewest gates, the longest path).
// Same semantics as Yosys' _90_lcu: CO[i] = G[i] | P[i] & CO[i-1], with CO[-1] = CI.
// Apply together with the generic map: `techmap -map +/techmap.v -map lcu_ripple.v` (no $lcu exists
// before $alu is mapped); the _80_ prefix sorts before _90_lcu, so techmap picks this module first.
(* techmap_celltype = "$lcu" *)
module _80_lcu_ripple (P, G, CI, CO);
	parameter WIDTH = 2;

	(* force_downto *)
	input [WIDTH-1:0] P, G;
	input CI;

	(* force_downto *)
	output [WIDTH-1:0] CO;

	integer j, k;
	(* force_downto *)
	reg [WIDTH-1:0] p, g;

	wire [1023:0] _TECHMAP_DO_ = "proc; opt -fast";

	always @* begin
		p = P;
		g = G;
		g[0] = g[0] | (p[0] & CI);
		// g[k] already holds the carry out of bit k when bit k+1 reads it
		for (j = 1; j < WIDTH; j = j + 1) begin
			k = j - 1;
			g[j] = g[j] | (p[j] & g[k]);
		end
	end

	assign CO = g;
endmodule

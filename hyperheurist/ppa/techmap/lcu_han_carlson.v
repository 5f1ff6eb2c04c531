// Han-Carlson $lcu: Kogge-Stone over the odd bits (each first paired with the even bit below it), then
// one more level for the even bits: one level deeper than Kogge-Stone, about half its prefix nodes.
// Same semantics as Yosys' _90_lcu: CO[i] = G[i] | P[i] & CO[i-1], with CO[-1] = CI.
// Apply together with the generic map: `techmap -map +/techmap.v -map lcu_han_carlson.v` (no $lcu exists
// before $alu is mapped); the _80_ prefix sorts before _90_lcu, so techmap picks this module first.
(* techmap_celltype = "$lcu" *)
module _80_lcu_han_carlson (P, G, CI, CO);
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
		for (j = 1; j < WIDTH; j = j + 2) begin
			k = j - 1;
			g[j] = g[j] | (p[j] & g[k]);
			p[j] = p[j] & p[k];
		end
		// odd bits, top first: g[k] and p[k] still hold the previous level's span when bit j reads them
		for (d = 2; d < WIDTH; d = d * 2) begin
			for (j = WIDTH - 1; j > d; j = j - 1) begin
				if (j % 2 == 1) begin
					k = j - d;
					g[j] = g[j] | (p[j] & g[k]);
					p[j] = p[j] & p[k];
				end
			end
		end
		// every odd bit now holds its carry; each even bit takes the one below it
		for (j = 2; j < WIDTH; j = j + 2) begin
			k = j - 1;
			g[j] = g[j] | (p[j] & g[k]);
		end
	end

	assign CO = g;
endmodule

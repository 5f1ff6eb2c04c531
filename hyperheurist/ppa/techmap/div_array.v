// HyperHeurist techmap (the wide-operator fallback, ppa/synth.py): $div and $mod as a restoring array
// divider of WIDTH stages, each one (WIDTH+1)-bit subtraction whose borrow is the quotient bit and selects
// the partial remainder. Yosys' own map (techmap.v, \$__div_mod_u) compares and subtracts separately on
// operands up to 2*WIDTH-1 bits wide: about three times the adder bits, which Yosys 0.23 took more than
// 600 s to map and optimise for a 32-bit `/` beside a `%`. The signed wrapper is Yosys' own
// (\$__div_mod_trunc): operands made positive, quotient and remainder negated as Verilog's truncating
// division asks. Division by zero gives what Yosys' map gives: an all-ones quotient, the dividend as
// remainder. A $div and a $mod of the same operands map to one divider (opt_merge joins the copies).

module \$__hh_div_mod_u (A, B, Y, R);
	parameter WIDTH = 1;

	(* force_downto *)
	input [WIDTH-1:0] A, B;
	(* force_downto *)
	output [WIDTH-1:0] Y, R;

	(* force_downto *)
	wire [WIDTH*WIDTH-1:0] rem;  // the partial remainder after each stage (< B, or the dividend's top bits)
	assign R = rem[WIDTH*WIDTH-1:(WIDTH-1)*WIDTH];

	genvar i;
	generate
		for (i = 0; i < WIDTH; i = i + 1) begin:stage
			(* force_downto *)
			wire [WIDTH-1:0] prev;
			if (i == 0) begin:first
				assign prev = {WIDTH{1'b0}};
			end else begin:next
				assign prev = rem[i*WIDTH-1:(i-1)*WIDTH];
			end
			(* force_downto *)
			wire [WIDTH:0] shifted = {prev, A[WIDTH-1-i]};
			(* force_downto *)
			wire [WIDTH+1:0] diff = {1'b0, shifted} - {2'b00, B};
			assign Y[WIDTH-1-i] = !diff[WIDTH+1];
			assign rem[(i+1)*WIDTH-1:i*WIDTH] = diff[WIDTH+1] ? shifted[WIDTH-1:0] : diff[WIDTH-1:0];
		end
	endgenerate
endmodule

module \$__hh_div_mod_trunc (A, B, Y, R);
	parameter A_SIGNED = 0;
	parameter B_SIGNED = 0;
	parameter A_WIDTH = 1;
	parameter B_WIDTH = 1;
	parameter Y_WIDTH = 1;

	localparam WIDTH =
			A_WIDTH >= B_WIDTH && A_WIDTH >= Y_WIDTH ? A_WIDTH :
			B_WIDTH >= A_WIDTH && B_WIDTH >= Y_WIDTH ? B_WIDTH : Y_WIDTH;

	(* force_downto *)
	input [A_WIDTH-1:0] A;
	(* force_downto *)
	input [B_WIDTH-1:0] B;
	(* force_downto *)
	output [Y_WIDTH-1:0] Y, R;

	(* force_downto *)
	wire [WIDTH-1:0] A_buf, B_buf;
	\$pos #(.A_SIGNED(A_SIGNED), .A_WIDTH(A_WIDTH), .Y_WIDTH(WIDTH)) A_conv (.A(A), .Y(A_buf));
	\$pos #(.A_SIGNED(B_SIGNED), .A_WIDTH(B_WIDTH), .Y_WIDTH(WIDTH)) B_conv (.A(B), .Y(B_buf));

	(* force_downto *)
	wire [WIDTH-1:0] A_buf_u, B_buf_u, Y_u, R_u;
	assign A_buf_u = A_SIGNED && A_buf[WIDTH-1] ? -A_buf : A_buf;
	assign B_buf_u = B_SIGNED && B_buf[WIDTH-1] ? -B_buf : B_buf;

	\$__hh_div_mod_u #(.WIDTH(WIDTH)) div_mod_u (.A(A_buf_u), .B(B_buf_u), .Y(Y_u), .R(R_u));

	assign Y = A_SIGNED && B_SIGNED && (A_buf[WIDTH-1] != B_buf[WIDTH-1]) ? -Y_u : Y_u;
	assign R = A_SIGNED && B_SIGNED && A_buf[WIDTH-1] ? -R_u : R_u;
endmodule

(* techmap_celltype = "$div" *)
module _hh_div_array (A, B, Y);
	parameter A_SIGNED = 0;
	parameter B_SIGNED = 0;
	parameter A_WIDTH = 1;
	parameter B_WIDTH = 1;
	parameter Y_WIDTH = 1;

	(* force_downto *)
	input [A_WIDTH-1:0] A;
	(* force_downto *)
	input [B_WIDTH-1:0] B;
	(* force_downto *)
	output [Y_WIDTH-1:0] Y;

	\$__hh_div_mod_trunc #(.A_SIGNED(A_SIGNED), .B_SIGNED(B_SIGNED), .A_WIDTH(A_WIDTH), .B_WIDTH(B_WIDTH),
		.Y_WIDTH(Y_WIDTH)) div_mod (.A(A), .B(B), .Y(Y));
endmodule

(* techmap_celltype = "$mod" *)
module _hh_mod_array (A, B, Y);
	parameter A_SIGNED = 0;
	parameter B_SIGNED = 0;
	parameter A_WIDTH = 1;
	parameter B_WIDTH = 1;
	parameter Y_WIDTH = 1;

	(* force_downto *)
	input [A_WIDTH-1:0] A;
	(* force_downto *)
	input [B_WIDTH-1:0] B;
	(* force_downto *)
	output [Y_WIDTH-1:0] Y;

	\$__hh_div_mod_trunc #(.A_SIGNED(A_SIGNED), .B_SIGNED(B_SIGNED), .A_WIDTH(A_WIDTH), .B_WIDTH(B_WIDTH),
		.Y_WIDTH(Y_WIDTH)) div_mod (.A(A), .B(B), .R(Y));
endmodule

// Registered accumulator: s <= s + d when en; WIDTH sets the datapath width.
module acc #(parameter WIDTH = 8) (
    input  wire             clk,
    input  wire             rst_n,
    input  wire             en,
    input  wire [WIDTH-1:0] d,
    output reg  [WIDTH-1:0] s
);
    always @(posedge clk) begin
        if (!rst_n) s <= {WIDTH{1'b0}};
        else if (en) s <= s + d;
    end
endmodule

module div8 (input [7:0] A, input [7:0] B, output reg [7:0] Q, output reg [7:0] R);
    reg [7:0] q, r;
    always @(A, B) begin
        q <= B == 0 ? 8'hff : A / B;
        r <= B == 0 ? A : A % B;
    end
    always @(A, B) begin
        Q <= q;
        R <= r;
    end
endmodule

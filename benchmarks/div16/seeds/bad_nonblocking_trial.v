// SEED: faulty - blocking/non-blocking mix-up: the shifted trial remainder is a register written with <= and compared in the same cycle, so every step tests the previous cycle's value
module div16 (
    input  wire        clk,
    input  wire        rst_n,
    input  wire        start,
    input  wire [15:0] dividend,
    input  wire [7:0]  divisor,
    output reg         busy,
    output reg         done,
    output reg  [15:0] quotient,
    output reg  [7:0]  remainder
);
    reg [15:0] work;
    reg [7:0]  part;
    reg [8:0]  trial;
    reg [7:0]  dsr;
    reg [3:0]  count;

    always @(posedge clk or negedge rst_n) begin
        if (!rst_n) begin
            busy <= 1'b0;
            done <= 1'b0;
            quotient <= 16'd0;
            remainder <= 8'd0;
            count <= 4'd0;
            work <= 16'd0;
            part <= 8'd0;
            trial <= 9'd0;
            dsr <= 8'd0;
        end else begin
            done <= 1'b0;
            if (busy) begin
                trial <= {part, work[15]};
                if (trial >= {1'b0, dsr}) begin
                    part <= trial[7:0] - dsr;
                    work <= {work[14:0], 1'b1};
                end else begin
                    part <= trial[7:0];
                    work <= {work[14:0], 1'b0};
                end
                count <= count + 4'd1;
                if (count == 4'd15) begin
                    busy <= 1'b0;
                    done <= 1'b1;
                    quotient <= work;
                    remainder <= part;
                end
            end else if (start) begin
                busy <= 1'b1;
                count <= 4'd0;
                work <= dividend;
                part <= 8'd0;
                trial <= 9'd0;
                dsr <= divisor;
            end
        end
    end
endmodule

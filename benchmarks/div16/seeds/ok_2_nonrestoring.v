// SEED: valid - non-restoring divider: signed 11-bit partial remainder, one add-or-subtract per cycle (no compare), final remainder correction and an explicit divide-by-zero quotient at completion
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
    reg signed [10:0] pr;    // partial remainder, -divisor <= pr < divisor
    reg        [15:0] work;  // dividend bits shift out of the top, quotient bits enter at the bottom
    reg        [7:0]  dsr;
    reg        [3:0]  count;

    wire signed [10:0] dsr_s = $signed({3'b000, dsr});
    wire signed [10:0] shifted = $signed({pr[9:0], work[15]});
    wire signed [10:0] pr_next = pr[10] ? shifted + dsr_s : shifted - dsr_s;
    wire        [15:0] work_next = {work[14:0], ~pr_next[10]};
    // Non-restoring leaves a negative remainder one divisor too low; fix it once at the end.
    wire signed [10:0] pr_fixed = pr_next[10] ? pr_next + dsr_s : pr_next;

    always @(posedge clk or negedge rst_n) begin
        if (!rst_n) begin
            busy <= 1'b0;
            done <= 1'b0;
            quotient <= 16'd0;
            remainder <= 8'd0;
            count <= 4'd0;
        end else begin
            done <= 1'b0;
            if (busy) begin
                count <= count + 4'd1;
                if (count == 4'd15) begin
                    busy <= 1'b0;
                    done <= 1'b1;
                    // With divisor 0 every step adds or subtracts 0, so pr ends as the low
                    // dividend bits (the required remainder) but the quotient bits are
                    // meaningless: force the specified all-ones quotient.
                    quotient <= (dsr == 8'd0) ? 16'hFFFF : work_next;
                    remainder <= pr_fixed[7:0];
                end
            end else if (start) begin
                busy <= 1'b1;
                count <= 4'd0;
            end
        end
    end

    always @(posedge clk) begin
        if (busy) begin
            pr <= pr_next;
            work <= work_next;
        end else if (start) begin
            pr <= 11'sd0;
            work <= dividend;
            dsr <= divisor;
        end
    end
endmodule

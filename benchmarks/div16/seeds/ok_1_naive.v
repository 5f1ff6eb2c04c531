// SEED: valid - naive restoring divider: 16-bit partial remainder and 16-bit subtractor (twice the needed width), separate dividend/quotient shift registers, 5-bit down-counter, reset on every datapath register
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
    reg [15:0] rem_w;
    reg [15:0] dvd_w;
    reg [15:0] quo_w;
    reg [15:0] dsr_w;
    reg [4:0]  steps_left;

    wire [15:0] shifted = {rem_w[14:0], dvd_w[15]};
    wire        ge = shifted >= dsr_w;
    wire [15:0] rem_next = ge ? shifted - dsr_w : shifted;
    wire [15:0] quo_next = {quo_w[14:0], ge};

    always @(posedge clk or negedge rst_n) begin
        if (!rst_n) begin
            busy <= 1'b0;
            done <= 1'b0;
            quotient <= 16'd0;
            remainder <= 8'd0;
            rem_w <= 16'd0;
            dvd_w <= 16'd0;
            quo_w <= 16'd0;
            dsr_w <= 16'd0;
            steps_left <= 5'd0;
        end else begin
            done <= 1'b0;
            if (busy) begin
                rem_w <= rem_next;
                dvd_w <= {dvd_w[14:0], 1'b0};
                quo_w <= quo_next;
                steps_left <= steps_left - 5'd1;
                if (steps_left == 5'd1) begin
                    busy <= 1'b0;
                    done <= 1'b1;
                    // divide by zero: every step "fits", so quo = FFFF and rem = dividend
                    quotient <= quo_next;
                    remainder <= rem_next[7:0];
                end
            end else if (start) begin
                busy <= 1'b1;
                rem_w <= 16'd0;
                dvd_w <= dividend;
                quo_w <= 16'd0;
                dsr_w <= {8'd0, divisor};
                steps_left <= 5'd16;
            end
        end
    end
endmodule

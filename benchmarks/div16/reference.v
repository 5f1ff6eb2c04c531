// Reference div16: restoring shift-subtract divider, one quotient bit per cycle, 16 cycles.
// The dividend register shifts left while quotient bits enter at the bottom.
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
    reg [15:0] work;   // remaining dividend bits (top) and quotient bits so far (bottom)
    reg [7:0]  part;   // partial remainder, always < divisor (or any value when divisor = 0)
    reg [7:0]  dsr;
    reg [3:0]  count;

    // One restoring step: shift in the next dividend bit, subtract if it fits.
    wire [8:0] trial = {part, work[15]};
    wire       fits = trial >= {1'b0, dsr};
    wire [7:0] diff = trial[7:0] - dsr;  // exact when fits: the true difference is < 256
    wire [7:0] part_next = fits ? diff : trial[7:0];
    wire [15:0] work_next = {work[14:0], fits};

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
                    quotient <= work_next;
                    remainder <= part_next;
                end
            end else if (start) begin
                busy <= 1'b1;
                count <= 4'd0;
            end
        end
    end

    // Datapath registers need no reset: they are loaded on accept before being used.
    always @(posedge clk) begin
        if (busy) begin
            work <= work_next;
            part <= part_next;
        end else if (start) begin
            work <= dividend;
            part <= 8'd0;
            dsr <= divisor;
        end
    end
endmodule

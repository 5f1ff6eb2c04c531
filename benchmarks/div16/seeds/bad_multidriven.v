// SEED: faulty - multi-driven: done is cleared in a separate always block from the one that sets it, so two processes drive the same register
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
    reg [7:0]  dsr;
    reg [3:0]  count;

    wire [8:0] trial = {part, work[15]};
    wire       fits = trial >= {1'b0, dsr};
    wire [7:0] part_next = fits ? trial[7:0] - dsr : trial[7:0];
    wire [15:0] work_next = {work[14:0], fits};

    // Clear the done pulse one cycle after it was raised.
    always @(posedge clk) begin
        if (done) begin
            done <= 1'b0;
        end
    end

    always @(posedge clk or negedge rst_n) begin
        if (!rst_n) begin
            busy <= 1'b0;
            done <= 1'b0;
            quotient <= 16'd0;
            remainder <= 8'd0;
            count <= 4'd0;
        end else begin
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

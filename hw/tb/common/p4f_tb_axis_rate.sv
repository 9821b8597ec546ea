// p4f_tb_axis_rate: a throughput monitor on one AXI-Stream interface. While `measure` is set it
// counts the cycles the sender was refused (tvalid without tready), the beats taken, and the
// cycle numbers (the testbench's own counter, `cycle`) of the first and the last beat taken.
// Clearing `measure` resets the counts. Every testbench's 1-beat-per-cycle phase uses it.
`timescale 1ns / 1ps
`default_nettype none

module p4f_tb_axis_rate (
    input  wire             clk,
    input  wire             measure,
    input  longint unsigned cycle,
    input  wire             tvalid,
    input  wire             tready,
    output longint unsigned refused,
    output longint unsigned beats,
    output longint unsigned first,
    output longint unsigned last
);
    logic seen;
    always @(posedge clk) begin
        if (!measure) begin
            refused <= 0; beats <= 0; seen <= 1'b0;
        end else begin
            if (tvalid && !tready) refused <= refused + 1;
            if (tvalid && tready) begin
                beats <= beats + 1;
                if (!seen) first <= cycle;
                last <= cycle;
                seen <= 1'b1;
            end
        end
    end
endmodule

`default_nettype wire

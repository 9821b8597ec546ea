// Testbench for p4f_axis_fifo: a random source into the FIFO, a checking sink out of it, in
// phases that cross source idling and sink backpressure, then a phase with neither that must
// run at exactly one beat per cycle on both sides. +seed=N picks the run.
`timescale 1ns / 1ps
`default_nettype none

module tb_p4f_axis_fifo;
    localparam int DATA_W = 64;
    localparam int KEEP_W = DATA_W / 8;
    localparam int USER_W = 3;
    localparam int DEPTH  = 16;

    logic clk;
    initial clk = 1'b0;
    logic rst = 1'b1;
    always #2 clk = ~clk;

    int unsigned     idle_pct = 0, stall_pct = 0;
    longint unsigned packet_limit = 0;
    longint unsigned beats_sent, beats_received, packets_received;
    int unsigned     errors;
    logic            start_pulse;
    logic [0:0]      start_tid;

    logic [DATA_W-1:0] s_tdata, m_tdata;
    logic [KEEP_W-1:0] s_tkeep, m_tkeep;
    logic [USER_W-1:0] s_tuser, m_tuser;
    logic s_tvalid, s_tready, s_tlast, m_tvalid, m_tready, m_tlast;

    p4f_tb_axis_source #(.DATA_W(DATA_W), .USER_W(USER_W)) u_src (
        .clk, .rst, .idle_pct, .packet_limit, .beats_sent,
        .m_axis_tdata(s_tdata), .m_axis_tkeep(s_tkeep), .m_axis_tvalid(s_tvalid),
        .m_axis_tready(s_tready), .m_axis_tlast(s_tlast), .m_axis_tuser(s_tuser));

    p4f_axis_fifo #(.DATA_W(DATA_W), .USER_W(USER_W), .DEPTH(DEPTH)) dut (
        .clk, .rst,
        .s_axis_tdata(s_tdata), .s_axis_tkeep(s_tkeep), .s_axis_tvalid(s_tvalid),
        .s_axis_tready(s_tready), .s_axis_tlast(s_tlast), .s_axis_tuser(s_tuser),
        .m_axis_tdata(m_tdata), .m_axis_tkeep(m_tkeep), .m_axis_tvalid(m_tvalid),
        .m_axis_tready(m_tready), .m_axis_tlast(m_tlast), .m_axis_tuser(m_tuser));

    p4f_tb_axis_sink #(.DATA_W(DATA_W), .USER_W(USER_W), .NAME("fifo out")) u_sink (
        .clk, .rst, .stall_pct, .beats_received, .packets_received, .errors,
        .start_tid, .start_pulse,
        .s_axis_tdata(m_tdata), .s_axis_tkeep(m_tkeep), .s_axis_tvalid(m_tvalid),
        .s_axis_tready(m_tready), .s_axis_tlast(m_tlast), .s_axis_tid(1'b0), .s_axis_tuser(m_tuser));

    // Throughput monitors: while `measure` is set, count input cycles refused by the FIFO and
    // the cycles between the first and the last output beat.
    logic            measure = 1'b0;
    longint unsigned in_refused, out_beats, out_first, out_last, cycle;
    always @(posedge clk) cycle <= rst ? 0 : cycle + 1;
    // Each monitor leaves unconnected the counts this testbench does not check.
    /* verilator lint_off PINCONNECTEMPTY */
    p4f_tb_axis_rate u_in_rate (
        .clk, .measure, .cycle, .tvalid(s_tvalid), .tready(s_tready),
        .refused(in_refused), .beats(), .first(), .last());
    p4f_tb_axis_rate u_out_rate (
        .clk, .measure, .cycle, .tvalid(m_tvalid), .tready(m_tready),
        .refused(), .beats(out_beats), .first(out_first), .last(out_last));
    /* verilator lint_on PINCONNECTEMPTY */

    // check() and phase(): the shared phase control.
    `include "p4f_tb_phase.svh"

    initial begin
        repeat (5) @(posedge clk);
        // Released between edges so no flop sees it change at its own edge.
        @(negedge clk) rst = 1'b0;
        $display("tb_p4f_axis_fifo: seed %0d, DATA_W %0d, DEPTH %0d", p4f_tb_pkg::run_seed(), DATA_W, DEPTH);
        phase("idle and backpressure", 30, 30, 300);
        phase("heavy backpressure (fills)", 5, 90, 200);
        phase("heavy idle (empties)", 90, 5, 200);
        phase("light random", 10, 10, 300);

        // Full rate: both sides must move one beat every cycle, no refusal, no bubble.
        @(negedge clk) measure = 1'b1;
        phase("no stalls (throughput)", 0, 0, 300);
        check(in_refused == 0, $sformatf("throughput: FIFO refused input %0d times", in_refused));
        check(out_last - out_first + 1 == out_beats,
              $sformatf("throughput: %0d beats over %0d cycles", out_beats, out_last - out_first + 1));
        $display("throughput: %0d beats in %0d cycles", out_beats, out_last - out_first + 1);
        @(negedge clk) measure = 1'b0;

        phase("idle and backpressure again", 40, 40, 200);

        end_run("tb_p4f_axis_fifo", $sformatf("(seed %0d): %0d packets, %0d beats checked",
                p4f_tb_pkg::run_seed(), packets_received, beats_received));
    end

endmodule

`default_nettype wire

// Testbench for p4f_axis_async_fifo: source on s_clk, checking sink on m_clk, two unrelated
// clocks (+s_period_ps=, +m_period_ps=, defaults 6400 and 4000: the 156.25 MHz MAC side into the
// 250 MHz pipeline; swap them for the TX direction) with a seeded phase offset between them.
// Phases cross source idling and sink backpressure; a final phase with neither checks that the
// slower side moves one beat every one of its cycles. +seed=N picks the run.
`timescale 1ns / 1ps
`default_nettype none

module tb_p4f_axis_async_fifo;
    localparam int DATA_W = 64;
    localparam int KEEP_W = DATA_W / 8;
    localparam int USER_W = 2;
    localparam int DEPTH  = 16;

    int unsigned s_period_ps, m_period_ps, offset_ps;
    logic s_clk, m_clk;
    logic s_rst = 1'b1, m_rst = 1'b1;

    // The periods come from plusargs, so Verilator cannot prove the delays non-zero.
    /* verilator lint_off ZERODLY */
    initial begin
        p4f_tb_pkg::prng r;
        if (!$value$plusargs("s_period_ps=%d", s_period_ps)) s_period_ps = 6400;
        if (!$value$plusargs("m_period_ps=%d", m_period_ps)) m_period_ps = 4000;
        r = new(p4f_tb_pkg::run_seed() ^ 64'hc10c);
        offset_ps = r.below(m_period_ps);
        s_clk = 1'b0;
        m_clk = 1'b0;
        fork
            forever #(s_period_ps * 1ps / 2) s_clk = ~s_clk;
            begin
                #(offset_ps * 1ps);
                forever #(m_period_ps * 1ps / 2) m_clk = ~m_clk;
            end
        join_none
    end

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
        .clk(s_clk), .rst(s_rst), .idle_pct, .packet_limit, .beats_sent,
        .m_axis_tdata(s_tdata), .m_axis_tkeep(s_tkeep), .m_axis_tvalid(s_tvalid),
        .m_axis_tready(s_tready), .m_axis_tlast(s_tlast), .m_axis_tuser(s_tuser));

    p4f_axis_async_fifo #(.DATA_W(DATA_W), .USER_W(USER_W), .DEPTH(DEPTH)) dut (
        .s_clk, .s_rst,
        .s_axis_tdata(s_tdata), .s_axis_tkeep(s_tkeep), .s_axis_tvalid(s_tvalid),
        .s_axis_tready(s_tready), .s_axis_tlast(s_tlast), .s_axis_tuser(s_tuser),
        .m_clk, .m_rst,
        .m_axis_tdata(m_tdata), .m_axis_tkeep(m_tkeep), .m_axis_tvalid(m_tvalid),
        .m_axis_tready(m_tready), .m_axis_tlast(m_tlast), .m_axis_tuser(m_tuser));

    p4f_tb_axis_sink #(.DATA_W(DATA_W), .USER_W(USER_W), .NAME("async fifo out")) u_sink (
        .clk(m_clk), .rst(m_rst), .stall_pct, .beats_received, .packets_received, .errors,
        .start_tid, .start_pulse,
        .s_axis_tdata(m_tdata), .s_axis_tkeep(m_tkeep), .s_axis_tvalid(m_tvalid),
        .s_axis_tready(m_tready), .s_axis_tlast(m_tlast), .s_axis_tid(1'b0), .s_axis_tuser(m_tuser));

    // Throughput monitors, one per clock domain, active while `measure` is set.
    logic            measure = 1'b0;
    longint unsigned in_refused, in_beats, in_first, in_last, s_cycle;
    longint unsigned out_beats, out_first, out_last, m_cycle;
    always @(posedge s_clk) s_cycle <= s_cycle + 1;
    always @(posedge m_clk) m_cycle <= m_cycle + 1;
    // Each monitor leaves unconnected the counts this testbench does not check.
    /* verilator lint_off PINCONNECTEMPTY */
    p4f_tb_axis_rate u_in_rate (
        .clk(s_clk), .measure, .cycle(s_cycle), .tvalid(s_tvalid), .tready(s_tready),
        .refused(in_refused), .beats(in_beats), .first(in_first), .last(in_last));
    p4f_tb_axis_rate u_out_rate (
        .clk(m_clk), .measure, .cycle(m_cycle), .tvalid(m_tvalid), .tready(m_tready),
        .refused(), .beats(out_beats), .first(out_first), .last(out_last));
    /* verilator lint_on PINCONNECTEMPTY */

    // check() and phase(), on the sink's clock.
    `define P4F_TB_CLK m_clk
    `define P4F_TB_CYCLE m_cycle
    `define P4F_TB_CYCLES_NAME "m_clk cycles"
    `define P4F_TB_TIMEOUT 400000
    `include "p4f_tb_phase.svh"

    initial begin
        s_cycle = 0;
        m_cycle = 0;
        // Both resets held together long enough for either clock, released each on its own edge.
        #(20 * (s_period_ps + m_period_ps) * 1ps);
        // Released between edges so no flop sees it change at its own edge.
        @(negedge s_clk) s_rst = 1'b0;
        @(negedge m_clk) m_rst = 1'b0;
        $display("tb_p4f_axis_async_fifo: seed %0d, s_clk %0d ps, m_clk %0d ps (offset %0d ps), DEPTH %0d",
                 p4f_tb_pkg::run_seed(), s_period_ps, m_period_ps, offset_ps, DEPTH);
        phase("idle and backpressure", 30, 30, 300);
        phase("heavy backpressure (fills)", 5, 90, 200);
        phase("heavy idle (empties)", 90, 5, 200);
        phase("light random", 10, 10, 300);

        @(negedge m_clk) measure = 1'b1;
        phase("no stalls (throughput)", 0, 0, 400);
        if (s_period_ps >= m_period_ps) begin
            // The writer is the slower side: it must never be refused.
            check(in_refused == 0, $sformatf("throughput: FIFO refused input %0d times", in_refused));
            check(in_last - in_first + 1 == in_beats,
                  $sformatf("throughput: %0d beats in over %0d s_clk cycles", in_beats, in_last - in_first + 1));
        end else begin
            // The reader is the slower side: once started it must get a beat every cycle.
            check(out_last - out_first + 1 == out_beats,
                  $sformatf("throughput: %0d beats out over %0d m_clk cycles", out_beats, out_last - out_first + 1));
        end
        $display("throughput: in %0d beats / %0d s_clk cycles (%0d refused), out %0d beats / %0d m_clk cycles",
                 in_beats, in_last - in_first + 1, in_refused, out_beats, out_last - out_first + 1);
        @(negedge m_clk) measure = 1'b0;

        phase("idle and backpressure again", 40, 40, 200);

        end_run("tb_p4f_axis_async_fifo", $sformatf("(seed %0d, %0d ps -> %0d ps): %0d packets, %0d beats checked",
                p4f_tb_pkg::run_seed(), s_period_ps, m_period_ps, packets_received, beats_received));
    end

/* verilator lint_on ZERODLY */
endmodule

`default_nettype wire

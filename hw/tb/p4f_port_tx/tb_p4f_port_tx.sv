// Testbench for p4f_port_tx: a random source on s_clk (the pipeline), a sink with random
// backpressure on m_clk (the MAC), two unrelated clocks (+s_period_ps=, +m_period_ps=, defaults
// 4000 and 6400 as in the seed design) with a seeded phase offset. The packet FIFO holds 8 beats
// and packets are 1-12 beats: p4f_tb_pkt_check.svh checks that every packet out is a whole packet
// sent, in order, with no gap between its first and last beat (what the MAC needs), and that
// exactly the packets longer than 8 beats are dropped and counted; the rest wait, however long
// the MAC stalls. +seed=N.
`timescale 1ns / 1ps
`default_nettype none

module tb_p4f_port_tx;
    localparam int DATA_W      = 64;
    localparam int KEEP_W      = DATA_W / 8;
    localparam int USER_W      = 2;
    localparam int ASYNC_DEPTH = 16;
    localparam int DEPTH       = 8;
    localparam int MAX_BEATS   = 12;

    int unsigned s_period_ps, m_period_ps, offset_ps;
    logic s_clk, m_clk;
    logic s_rst = 1'b1, m_rst = 1'b1;

    // The periods come from plusargs, so Verilator cannot prove the delays non-zero.
    /* verilator lint_off ZERODLY */
    initial begin
        p4f_tb_pkg::prng r;
        if (!$value$plusargs("s_period_ps=%d", s_period_ps)) s_period_ps = 4000;
        if (!$value$plusargs("m_period_ps=%d", m_period_ps)) m_period_ps = 6400;
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
    longint unsigned beats_sent, beats_received = 0, packets_received = 0;

    logic [DATA_W-1:0] s_tdata, m_tdata;
    logic [KEEP_W-1:0] s_tkeep, m_tkeep;
    logic [USER_W-1:0] s_tuser, m_tuser;
    logic s_tvalid, s_tready, s_tlast, m_tvalid, m_tready, m_tlast;
    logic [31:0] drop_count;

    p4f_tb_axis_source #(.DATA_W(DATA_W), .USER_W(USER_W), .MAX_BEATS(MAX_BEATS)) u_src (
        .clk(s_clk), .rst(s_rst), .idle_pct, .packet_limit, .beats_sent,
        .m_axis_tdata(s_tdata), .m_axis_tkeep(s_tkeep), .m_axis_tvalid(s_tvalid),
        .m_axis_tready(s_tready), .m_axis_tlast(s_tlast), .m_axis_tuser(s_tuser));

    p4f_port_tx #(.DATA_W(DATA_W), .USER_W(USER_W), .ASYNC_DEPTH(ASYNC_DEPTH), .DEPTH(DEPTH)) dut (
        .s_clk, .s_rst,
        .s_axis_tdata(s_tdata), .s_axis_tkeep(s_tkeep), .s_axis_tvalid(s_tvalid),
        .s_axis_tready(s_tready), .s_axis_tlast(s_tlast), .s_axis_tuser(s_tuser),
        .m_clk, .m_rst,
        .m_axis_tdata(m_tdata), .m_axis_tkeep(m_tkeep), .m_axis_tvalid(m_tvalid),
        .m_axis_tready(m_tready), .m_axis_tlast(m_tlast), .m_axis_tuser(m_tuser),
        .drop_count);

    p4f_tb_pkg::prng stall_rng;
    initial stall_rng = new(p4f_tb_pkg::run_seed() ^ 64'h57a1);
    always @(posedge m_clk) m_tready <= !m_rst && stall_rng.below(100) >= stall_pct;

    // Only a packet that can never fit may be dropped.
    function automatic bit pc_drop_ok(input int unsigned beats);
        return beats > DEPTH;
    endfunction
    function automatic bit pc_pass_ok(input int unsigned beats);
        return beats <= DEPTH;
    endfunction
    `include "p4f_tb_pkt_check.svh"

    logic            measure = 1'b0;
    longint unsigned in_refused, in_beats, in_first, in_last, s_cycle = 0, m_cycle = 0;
    always @(posedge s_clk) s_cycle <= s_cycle + 1;
    always @(posedge m_clk) m_cycle <= m_cycle + 1;
    p4f_tb_axis_rate u_in_rate (
        .clk(s_clk), .measure, .cycle(s_cycle), .tvalid(s_tvalid), .tready(s_tready),
        .refused(in_refused), .beats(in_beats), .first(in_first), .last(in_last));

    `define P4F_TB_CLK m_clk
    `define P4F_TB_CYCLE m_cycle
    `define P4F_TB_CYCLES_NAME "m_clk cycles"
    `define P4F_TB_TIMEOUT 400000
    `define P4F_TB_CHECK_TIME
    `include "p4f_tb_phase.svh"

    task automatic run_phase(input string name, input int unsigned idle, input int unsigned stall,
                             input int unsigned packets);
        longint unsigned d0 = pc_skipped;
        phase(name, idle, stall, packets);
        repeat (8) @(posedge m_clk);
        pc_settle(name);
        $display("      %0d packets dropped in this phase", pc_skipped - d0);
    endtask

    initial begin
        #(20 * (s_period_ps + m_period_ps) * 1ps);
        @(negedge s_clk) s_rst = 1'b0;
        @(negedge m_clk) m_rst = 1'b0;
        $display("tb_p4f_port_tx: seed %0d, s_clk (pipeline) %0d ps, m_clk (MAC) %0d ps (offset %0d ps), DEPTH %0d",
                 p4f_tb_pkg::run_seed(), s_period_ps, m_period_ps, offset_ps, DEPTH);
        run_phase("idle and backpressure", 30, 30, 300);
        run_phase("heavy backpressure", 5, 90, 200);
        run_phase("heavy idle", 90, 5, 200);
        run_phase("light random", 10, 10, 300);

        @(negedge m_clk) measure = 1'b1;
        run_phase("no stalls (throughput)", 0, 0, 400);
        $display("throughput: in %0d beats / %0d s_clk cycles (%0d refused)", in_beats, in_last - in_first + 1, in_refused);
        @(negedge m_clk) measure = 1'b0;

        run_phase("idle and backpressure again", 40, 40, 200);

        check(pc_skipped > 0, "no packet longer than DEPTH was tried");
        end_run("tb_p4f_port_tx", $sformatf("(seed %0d, %0d ps -> %0d ps): %0d packets out whole, %0d longer than DEPTH dropped whole",
                p4f_tb_pkg::run_seed(), s_period_ps, m_period_ps, pc_matched, pc_skipped));
    end

/* verilator lint_on ZERODLY */
endmodule

`default_nettype wire

// Testbench for p4f_axis_pkt_fifo (DROP_WHEN_FULL, the RX mode; p4f_port_tx's testbench covers
// the waiting mode and packets longer than the FIFO): a random source, a sink with random
// backpressure, a 16-beat FIFO and packets of 1-12 beats. p4f_tb_pkt_check.svh checks that every
// packet out is a whole packet sent, in order, with no gap inside, and that drops are whole
// packets counted by drop_count. Drops are allowed only while the sink stalls: at full rate a
// packet shares the RAM only with the one before it (at most 12 + 1 beats here), so none may be
// dropped then, and input is never refused. +seed=N.
`timescale 1ns / 1ps
`default_nettype none

module tb_p4f_axis_pkt_fifo;
    localparam int DATA_W    = 64;
    localparam int KEEP_W    = DATA_W / 8;
    localparam int USER_W    = 2;
    localparam int DEPTH     = 16;
    localparam int MAX_BEATS = 12;

    logic clk;
    initial clk = 1'b0;
    logic rst = 1'b1;
    always #2 clk = ~clk;
    wire logic s_rst = rst, m_rst = rst;

    int unsigned     idle_pct = 0, stall_pct = 0;
    longint unsigned packet_limit = 0;
    longint unsigned beats_sent, beats_received = 0, packets_received = 0;
    bit              drops_allowed = 1'b1;

    logic [DATA_W-1:0] s_tdata, m_tdata;
    logic [KEEP_W-1:0] s_tkeep, m_tkeep;
    logic [USER_W-1:0] s_tuser, m_tuser;
    logic s_tvalid, s_tready, s_tlast, m_tvalid, m_tready, m_tlast;
    logic [31:0] drop_count;

    p4f_tb_axis_source #(.DATA_W(DATA_W), .USER_W(USER_W), .MAX_BEATS(MAX_BEATS)) u_src (
        .clk, .rst, .idle_pct, .packet_limit, .beats_sent,
        .m_axis_tdata(s_tdata), .m_axis_tkeep(s_tkeep), .m_axis_tvalid(s_tvalid),
        .m_axis_tready(s_tready), .m_axis_tlast(s_tlast), .m_axis_tuser(s_tuser));

    p4f_axis_pkt_fifo #(.DATA_W(DATA_W), .USER_W(USER_W), .DEPTH(DEPTH), .DROP_WHEN_FULL(1'b1)) dut (
        .clk, .rst,
        .s_axis_tdata(s_tdata), .s_axis_tkeep(s_tkeep), .s_axis_tvalid(s_tvalid),
        .s_axis_tready(s_tready), .s_axis_tlast(s_tlast), .s_axis_tuser(s_tuser),
        .m_axis_tdata(m_tdata), .m_axis_tkeep(m_tkeep), .m_axis_tvalid(m_tvalid),
        .m_axis_tready(m_tready), .m_axis_tlast(m_tlast), .m_axis_tuser(m_tuser),
        .drop_count);

    p4f_tb_pkg::prng stall_rng;
    initial stall_rng = new(p4f_tb_pkg::run_seed() ^ 64'h57a1);
    always @(posedge clk) m_tready <= !rst && stall_rng.below(100) >= stall_pct;

    function automatic bit pc_drop_ok(input int unsigned beats);
        return drops_allowed;
    endfunction
    function automatic bit pc_pass_ok(input int unsigned beats);
        return 1'b1;
    endfunction
    `define P4F_PC_S_CLK clk
    `define P4F_PC_M_CLK clk
    `include "p4f_tb_pkt_check.svh"

    logic            measure = 1'b0;
    longint unsigned in_refused, cycle;
    always @(posedge clk) cycle <= rst ? 0 : cycle + 1;
    /* verilator lint_off PINCONNECTEMPTY */
    p4f_tb_axis_rate u_in_rate (
        .clk, .measure, .cycle, .tvalid(s_tvalid), .tready(s_tready),
        .refused(in_refused), .beats(), .first(), .last());
    /* verilator lint_on PINCONNECTEMPTY */

    `define P4F_TB_CHECK_TIME
    `include "p4f_tb_phase.svh"

    task automatic run_phase(input string name, input int unsigned idle, input int unsigned stall,
                             input int unsigned packets);
        longint unsigned d0 = pc_skipped;
        drops_allowed = stall != 0;
        phase(name, idle, stall, packets);
        repeat (4) @(posedge clk);
        pc_settle(name);
        $display("      %0d packets dropped in this phase", pc_skipped - d0);
    endtask

    initial begin
        longint unsigned d0;
        repeat (5) @(posedge clk);
        @(negedge clk) rst = 1'b0;
        $display("tb_p4f_axis_pkt_fifo: seed %0d, DATA_W %0d, DEPTH %0d, packets up to %0d beats",
                 p4f_tb_pkg::run_seed(), DATA_W, DEPTH, MAX_BEATS);
        run_phase("idle and backpressure", 30, 30, 300);
        d0 = pc_skipped;
        run_phase("heavy backpressure (drops)", 5, 90, 200);
        check(pc_skipped > d0, "heavy backpressure: no packet was dropped");
        run_phase("heavy idle", 90, 5, 200);
        run_phase("light random", 10, 10, 300);
        @(negedge clk) measure = 1'b1;
        run_phase("no stalls (throughput)", 0, 0, 300);
        check(in_refused == 0, $sformatf("throughput: input refused %0d times", in_refused));
        @(negedge clk) measure = 1'b0;
        run_phase("idle and backpressure again", 40, 40, 200);
        end_run("tb_p4f_axis_pkt_fifo", $sformatf("(seed %0d): %0d packets out whole, %0d dropped whole",
                p4f_tb_pkg::run_seed(), pc_matched, pc_skipped));
    end

endmodule

`default_nettype wire

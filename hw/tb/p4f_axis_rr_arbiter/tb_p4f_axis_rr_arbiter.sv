// Testbench for p4f_axis_rr_arbiter: S_COUNT random sources (each its own stream of packets)
// into the arbiter, one checking sink that uses m_axis_tid to pick the stream each packet must
// continue, so every beat of every input is checked in order and a packet interrupted by another
// input is an error. A fairness monitor on the inputs checks the round robin: an input with a
// packet waiting is passed over by at most S_COUNT-1 packets. With no idling and no backpressure
// the output must carry a beat every cycle, across packet boundaries too. +seed=N.
`timescale 1ns / 1ps
`default_nettype none

module tb_p4f_axis_rr_arbiter;
    localparam int S_COUNT = 4;
    localparam int DATA_W  = 32;
    localparam int KEEP_W  = DATA_W / 8;
    localparam int USER_W  = 2;
    localparam int ID_W    = 2;

    logic clk;
    initial clk = 1'b0;
    logic rst = 1'b1;
    always #2 clk = ~clk;

    int unsigned     idle_pct = 0, stall_pct = 0;
    longint unsigned packet_limit = 0;
    longint unsigned beats_sent [S_COUNT];
    longint unsigned beats_received, packets_received;
    int unsigned     errors;
    logic            start_pulse;
    logic [ID_W-1:0] start_tid;

    logic [S_COUNT*DATA_W-1:0] s_tdata;
    logic [S_COUNT*KEEP_W-1:0] s_tkeep;
    logic [S_COUNT*USER_W-1:0] s_tuser;
    logic [S_COUNT-1:0]        s_tvalid, s_tready, s_tlast;
    logic [DATA_W-1:0] m_tdata;
    logic [KEEP_W-1:0] m_tkeep;
    logic [USER_W-1:0] m_tuser;
    logic [ID_W-1:0]   m_tid;
    logic m_tvalid, m_tready, m_tlast;

    for (genvar i = 0; i < S_COUNT; i++) begin : g_src
        p4f_tb_axis_source #(.DATA_W(DATA_W), .USER_W(USER_W), .STREAM(i)) u_src (
            .clk, .rst, .idle_pct, .packet_limit, .beats_sent(beats_sent[i]),
            .m_axis_tdata(s_tdata[i*DATA_W +: DATA_W]), .m_axis_tkeep(s_tkeep[i*KEEP_W +: KEEP_W]),
            .m_axis_tvalid(s_tvalid[i]), .m_axis_tready(s_tready[i]), .m_axis_tlast(s_tlast[i]),
            .m_axis_tuser(s_tuser[i*USER_W +: USER_W]));
    end

    p4f_axis_rr_arbiter #(.S_COUNT(S_COUNT), .DATA_W(DATA_W), .USER_W(USER_W)) dut (
        .clk, .rst,
        .s_axis_tdata(s_tdata), .s_axis_tkeep(s_tkeep), .s_axis_tvalid(s_tvalid),
        .s_axis_tready(s_tready), .s_axis_tlast(s_tlast), .s_axis_tuser(s_tuser),
        .m_axis_tdata(m_tdata), .m_axis_tkeep(m_tkeep), .m_axis_tvalid(m_tvalid),
        .m_axis_tready(m_tready), .m_axis_tlast(m_tlast), .m_axis_tid(m_tid), .m_axis_tuser(m_tuser));

    p4f_tb_axis_sink #(.DATA_W(DATA_W), .USER_W(USER_W), .ID_W(ID_W), .STREAMS(S_COUNT),
                       .NAME("arbiter out")) u_sink (
        .clk, .rst, .stall_pct, .beats_received, .packets_received, .errors,
        .start_tid, .start_pulse,
        .s_axis_tdata(m_tdata), .s_axis_tkeep(m_tkeep), .s_axis_tvalid(m_tvalid),
        .s_axis_tready(m_tready), .s_axis_tlast(m_tlast), .s_axis_tid(m_tid), .s_axis_tuser(m_tuser));

    function automatic longint unsigned total_sent();
        longint unsigned n = 0;
        for (int i = 0; i < S_COUNT; i++) n += beats_sent[i];
        return n;
    endfunction

    // check() and phase(): every source sends `packets` more packets per phase.
    `define P4F_TB_TIMEOUT 400000
    `define P4F_TB_PACKETS_DUE (S_COUNT * packet_limit)
    `define P4F_TB_PACKETS_SHOWN packets_received
    `define P4F_TB_BEATS_SENT total_sent()
    `define P4F_TB_CHECK_TIME
    `include "p4f_tb_phase.svh"

    // Fairness: the arbiter picks among the waiting inputs in the cycle a packet's first beat is
    // taken, so every other input showing tvalid at a packet start then was passed over.
    logic [S_COUNT-1:0] in_packet;
    int unsigned        passed_over [S_COUNT];
    int unsigned        max_passed_over;
    always @(posedge clk) begin
        if (rst) begin
            in_packet <= '0;
            max_passed_over <= 0;
            for (int i = 0; i < S_COUNT; i++) passed_over[i] <= 0;
        end else begin
            for (int j = 0; j < S_COUNT; j++) begin
                if (s_tvalid[j] && s_tready[j]) begin
                    in_packet[j] <= !s_tlast[j];
                    if (!in_packet[j]) begin
                        passed_over[j] <= 0;
                        for (int i = 0; i < S_COUNT; i++) begin
                            if (i != j && s_tvalid[i] && !in_packet[i]) begin
                                passed_over[i] <= passed_over[i] + 1;
                                if (passed_over[i] + 1 > max_passed_over) max_passed_over <= passed_over[i] + 1;
                                check(passed_over[i] + 1 <= S_COUNT - 1,
                                      $sformatf("input %0d waited through %0d packets", i, passed_over[i] + 1));
                            end
                        end
                    end
                end
            end
            // Two inputs must never start or continue in the same cycle.
            check($countones(s_tvalid & s_tready) <= 1, "two inputs taken in one cycle");
        end
    end

    // Output throughput while `measure` is set.
    logic            measure = 1'b0;
    longint unsigned out_beats, out_first, out_last, cycle;
    always @(posedge clk) cycle <= rst ? 0 : cycle + 1;
    // Each monitor leaves unconnected the counts this testbench does not check.
    /* verilator lint_off PINCONNECTEMPTY */
    p4f_tb_axis_rate u_out_rate (
        .clk, .measure, .cycle, .tvalid(m_tvalid), .tready(m_tready),
        .refused(), .beats(out_beats), .first(out_first), .last(out_last));
    /* verilator lint_on PINCONNECTEMPTY */

    initial begin
        repeat (5) @(posedge clk);
        @(negedge clk) rst = 1'b0;
        $display("tb_p4f_axis_rr_arbiter: seed %0d, S_COUNT %0d, DATA_W %0d", p4f_tb_pkg::run_seed(), S_COUNT, DATA_W);
        phase("idle and backpressure", 30, 30, 100);
        phase("heavy backpressure", 5, 90, 50);
        phase("heavy idle", 90, 5, 50);
        phase("light random", 10, 10, 100);

        // Every input always has a packet waiting and the sink never stalls: the output must
        // carry a beat every cycle, including from one packet to the next.
        @(negedge clk) measure = 1'b1;
        phase("no stalls (throughput)", 0, 0, 100);
        check(out_last - out_first + 1 == out_beats,
              $sformatf("throughput: %0d beats over %0d cycles", out_beats, out_last - out_first + 1));
        $display("throughput: %0d beats in %0d cycles", out_beats, out_last - out_first + 1);
        @(negedge clk) measure = 1'b0;

        phase("idle and backpressure again", 40, 40, 50);

        check(max_passed_over == S_COUNT - 1,
              $sformatf("fairness never tested at its bound: at most %0d packets passed a waiting input", max_passed_over));
        end_run("tb_p4f_axis_rr_arbiter", $sformatf("(seed %0d): %0d packets, %0d beats checked, a waiting input passed over by at most %0d packets",
                p4f_tb_pkg::run_seed(), packets_received, beats_received, max_passed_over));
    end

endmodule

`default_nettype wire

// Testbench for p4f_axis_crossbar: S_COUNT random sources, each packet's tdest drawn from its
// first beat (one in eight out of range, to be dropped), M_COUNT outputs with random
// backpressure each. A model queues every beat taken by (input, output); each output beat must be
// the next one queued for (m_axis_tid, that output), so a lost, duplicated, reordered, misrouted
// or corrupted beat, or a packet interleaved with another, is an error; out-of-range packets must
// never come out and drop_count must count them. With no idling and no backpressure, a
// permutation (every input to its own output) must move every input and every output at one beat
// per cycle, in parallel, and all inputs into one output must keep that output busy every
// cycle. +seed=N.
`timescale 1ns / 1ps
`default_nettype none

module tb_p4f_axis_crossbar;
    localparam int S_COUNT = 3;
    localparam int M_COUNT = 4;
    localparam int DATA_W  = 32;
    localparam int KEEP_W  = DATA_W / 8;
    localparam int USER_W  = 2;
    localparam int DEST_W  = 3;
    localparam int ID_W    = 2;
    localparam int WORD_W  = DATA_W + KEEP_W + USER_W + 1;

    logic clk;
    initial clk = 1'b0;
    logic rst = 1'b1;
    always #2 clk = ~clk;

    int unsigned     idle_pct = 0, stall_pct = 0;
    longint unsigned packet_limit = 0;
    longint unsigned beats_sent [S_COUNT];
    longint unsigned beats_received = 0, packets_received = 0;
    int unsigned     errors = 0;

    logic [S_COUNT*DATA_W-1:0] s_tdata;
    logic [S_COUNT*KEEP_W-1:0] s_tkeep;
    logic [S_COUNT*USER_W-1:0] s_tuser;
    logic [S_COUNT*DEST_W-1:0] s_tdest;
    logic [S_COUNT-1:0]        s_tvalid, s_tready, s_tlast;
    logic [M_COUNT*DATA_W-1:0] m_tdata;
    logic [M_COUNT*KEEP_W-1:0] m_tkeep;
    logic [M_COUNT*USER_W-1:0] m_tuser;
    logic [M_COUNT*ID_W-1:0]   m_tid;
    logic [M_COUNT-1:0]        m_tvalid, m_tready, m_tlast;
    logic [31:0]               drop_count;

    for (genvar i = 0; i < S_COUNT; i++) begin : g_src
        p4f_tb_axis_source #(.DATA_W(DATA_W), .USER_W(USER_W), .STREAM(i)) u_src (
            .clk, .rst, .idle_pct, .packet_limit, .beats_sent(beats_sent[i]),
            .m_axis_tdata(s_tdata[i*DATA_W +: DATA_W]), .m_axis_tkeep(s_tkeep[i*KEEP_W +: KEEP_W]),
            .m_axis_tvalid(s_tvalid[i]), .m_axis_tready(s_tready[i]), .m_axis_tlast(s_tlast[i]),
            .m_axis_tuser(s_tuser[i*USER_W +: USER_W]));
    end

    p4f_axis_crossbar #(.S_COUNT(S_COUNT), .M_COUNT(M_COUNT), .DATA_W(DATA_W), .USER_W(USER_W),
                        .DEST_W(DEST_W), .ID_W(ID_W)) dut (
        .clk, .rst,
        .s_axis_tdata(s_tdata), .s_axis_tkeep(s_tkeep), .s_axis_tvalid(s_tvalid),
        .s_axis_tready(s_tready), .s_axis_tlast(s_tlast), .s_axis_tdest(s_tdest), .s_axis_tuser(s_tuser),
        .m_axis_tdata(m_tdata), .m_axis_tkeep(m_tkeep), .m_axis_tvalid(m_tvalid),
        .m_axis_tready(m_tready), .m_axis_tlast(m_tlast), .m_axis_tid(m_tid), .m_axis_tuser(m_tuser),
        .drop_count);

    // tdest of a first beat: mode 0: from the beat's data (1/8 out of range); 1: input i to output
    // (i + rot) % M_COUNT; 2: all to `rot`. On later beats it is junk, which the DUT must ignore.
    int unsigned        mode = 0, rot = 0;
    logic [S_COUNT-1:0] src_in_pkt;
    logic [DEST_W-1:0]  src_dest [S_COUNT];

    function automatic logic [DEST_W-1:0] pick_dest(input int i, input logic [DATA_W-1:0] d);
        if (mode == 1) return DEST_W'((i + int'(rot)) % M_COUNT);
        if (mode == 2) return DEST_W'(rot);
        if (d[2:0] == 3'd0) return DEST_W'(M_COUNT + int'(d[9:8]));   // 4..7: out of range
        return DEST_W'(int'(d[7:3]) % M_COUNT);
    endfunction

    always @(posedge clk) begin
        for (int i = 0; i < S_COUNT; i++) begin
            if (rst) begin
                src_in_pkt[i] <= 1'b0;
            end else if (s_tvalid[i] && s_tready[i]) begin
                if (!src_in_pkt[i]) src_dest[i] <= s_tdest[i*DEST_W +: DEST_W];
                src_in_pkt[i] <= !s_tlast[i];
            end
        end
    end

    always_comb begin
        for (int i = 0; i < S_COUNT; i++)
            s_tdest[i*DEST_W +: DEST_W] = src_in_pkt[i] ? s_tdata[i*DATA_W + 11 +: DEST_W]
                                                         : pick_dest(i, s_tdata[i*DATA_W +: DATA_W]);
    end

    // The model: beats queued by (input, output); dropped packets counted at the input.
    // Fixed ring buffers, not queues: this Verilator (5.049 dev) merges the queues that a for
    // loop pushes onto by index. Beats wait here only while inside the DUT (a few per output).
    localparam int QDEPTH = 64;
    logic [WORD_W-1:0] q [S_COUNT*M_COUNT][QDEPTH];
    int unsigned       q_head [S_COUNT*M_COUNT], q_count [S_COUNT*M_COUNT];
    initial for (int k = 0; k < S_COUNT * M_COUNT; k++) begin q_head[k] = 0; q_count[k] = 0; end
    logic [M_COUNT-1:0] out_in_pkt;
    logic [ID_W-1:0]    out_tid [M_COUNT];
    logic [M_COUNT-1:0] m_stalled;
    logic [WORD_W-1:0]  m_prev [M_COUNT];
    longint unsigned    model_drops = 0;
    longint unsigned    routed [M_COUNT];
    p4f_tb_pkg::prng    rng;
    initial rng = new(p4f_tb_pkg::run_seed() ^ 64'hc805);

    function automatic logic [WORD_W-1:0] out_word(input int o);
        return {m_tlast[o], m_tuser[o*USER_W +: USER_W], m_tkeep[o*KEEP_W +: KEEP_W], m_tdata[o*DATA_W +: DATA_W]};
    endfunction

    task automatic fail(input string what);
        errors++;
        if (errors < 10) $display("[%0t] ERROR %s", $time, what);
    endtask

    // The model's state is its own (blocking); what drives the DUT is nonblocking.
    /* verilator lint_off BLKSEQ */
    always @(posedge clk) begin
        if (rst) begin
            out_in_pkt = '0;
            m_stalled = '0;
            m_tready <= '0;
            for (int o = 0; o < M_COUNT; o++) routed[o] = 0;
        end else begin
            for (int i = 0; i < S_COUNT; i++) begin
                if (s_tvalid[i] && s_tready[i]) begin
                    logic [DEST_W-1:0] d;
                    d = src_in_pkt[i] ? src_dest[i] : s_tdest[i*DEST_W +: DEST_W];
                    if (int'(d) >= M_COUNT) begin
                        beats_received++;
                        if (s_tlast[i]) begin
                            packets_received++;
                            model_drops++;
                        end
                    end else begin
                        int unsigned k;
                        k = i * M_COUNT + int'(d);
                        if (q_count[k] == QDEPTH) fail("model queue overflow");
                        q[k][(q_head[k] + q_count[k]) % QDEPTH] = {s_tlast[i], s_tuser[i*USER_W +: USER_W],
                            s_tkeep[i*KEEP_W +: KEEP_W], s_tdata[i*DATA_W +: DATA_W]};
                        q_count[k]++;
                    end
                end
            end
            for (int o = 0; o < M_COUNT; o++) begin
                logic [WORD_W-1:0] w, want;
                int unsigned sid;
                w = out_word(o);
                sid = int'(m_tid[o*ID_W +: ID_W]);
                if (m_stalled[o] && (!m_tvalid[o] || w != m_prev[o]))
                    fail($sformatf("output %0d: beat changed or dropped while stalled", o));
                m_stalled[o] = m_tvalid[o] && !m_tready[o];
                m_prev[o] = w;
                if (m_tvalid[o] && m_tready[o]) begin
                    if (sid >= S_COUNT) begin
                        fail($sformatf("output %0d: tid %0d out of range", o, sid));
                    end else if (out_in_pkt[o] && out_tid[o] != ID_W'(sid)) begin
                        fail($sformatf("output %0d: packet from input %0d interrupted by input %0d", o, out_tid[o], sid));
                    end else if (q_count[sid*M_COUNT + o] == 0) begin
                        fail($sformatf("output %0d: beat from input %0d that was not sent there", o, sid));
                    end else begin
                        int unsigned k;
                        k = sid * M_COUNT + o;
                        want = q[k][q_head[k]];
                        q_head[k] = (q_head[k] + 1) % QDEPTH;
                        q_count[k]--;
                        if (w != want) fail($sformatf("output %0d from input %0d: got %h, want %h", o, sid, w, want));
                    end
                    out_in_pkt[o] = !m_tlast[o];
                    out_tid[o] = ID_W'(sid);
                    beats_received++;
                    if (m_tlast[o]) begin
                        packets_received++;
                        routed[o]++;
                    end
                end
                m_tready[o] <= rng.below(100) >= stall_pct;
            end
        end
    end
    /* verilator lint_on BLKSEQ */

    function automatic longint unsigned total_sent();
        longint unsigned n = 0;
        for (int i = 0; i < S_COUNT; i++) n += beats_sent[i];
        return n;
    endfunction

    `define P4F_TB_TIMEOUT 400000
    `define P4F_TB_PACKETS_DUE (S_COUNT * packet_limit)
    `define P4F_TB_PACKETS_SHOWN packets_received
    `define P4F_TB_BEATS_SENT total_sent()
    `define P4F_TB_CHECK_TIME
    `include "p4f_tb_phase.svh"

    // Throughput monitors on every input and output.
    logic            measure = 1'b0;
    longint unsigned cycle;
    longint unsigned in_refused [S_COUNT];
    longint unsigned out_beats [M_COUNT], out_first [M_COUNT], out_last [M_COUNT];
    always @(posedge clk) cycle <= rst ? 0 : cycle + 1;
    /* verilator lint_off PINCONNECTEMPTY */
    for (genvar i = 0; i < S_COUNT; i++) begin : g_in_rate
        p4f_tb_axis_rate u_rate (
            .clk, .measure, .cycle, .tvalid(s_tvalid[i]), .tready(s_tready[i]),
            .refused(in_refused[i]), .beats(), .first(), .last());
    end
    for (genvar o = 0; o < M_COUNT; o++) begin : g_out_rate
        p4f_tb_axis_rate u_rate (
            .clk, .measure, .cycle, .tvalid(m_tvalid[o]), .tready(m_tready[o]),
            .refused(), .beats(out_beats[o]), .first(out_first[o]), .last(out_last[o]));
    end
    /* verilator lint_on PINCONNECTEMPTY */

    task automatic settled(input string name);
        for (int k = 0; k < S_COUNT * M_COUNT; k++)
            check(q_count[k] == 0, $sformatf("%s: %0d beats from input %0d for output %0d never came out",
                                               name, q_count[k], k / M_COUNT, k % M_COUNT));
        check(longint'(drop_count) == model_drops, $sformatf("%s: drop_count %0d, %0d packets had an out-of-range tdest",
                                                        name, drop_count, model_drops));
    endtask

    initial begin
        repeat (5) @(posedge clk);
        @(negedge clk) rst = 1'b0;
        $display("tb_p4f_axis_crossbar: seed %0d, %0d inputs, %0d outputs, DATA_W %0d", p4f_tb_pkg::run_seed(), S_COUNT, M_COUNT, DATA_W);
        phase("idle and backpressure", 30, 30, 150);
        settled("idle and backpressure");
        phase("heavy backpressure", 5, 90, 60);
        phase("heavy idle", 90, 5, 60);
        phase("light random", 10, 10, 150);
        settled("random phases");

        // A permutation: every input and every output it uses at one beat per cycle, in parallel.
        for (int r = 0; r < M_COUNT; r++) begin
            mode = 1; rot = r;
            @(negedge clk) measure = 1'b1;
            phase($sformatf("permutation %0d (throughput)", r), 0, 0, 100);
            for (int i = 0; i < S_COUNT; i++) begin
                automatic int o = (i + r) % M_COUNT;
                check(in_refused[i] == 0, $sformatf("permutation %0d: input %0d refused %0d times", r, i, in_refused[i]));
                check(out_last[o] - out_first[o] + 1 == out_beats[o],
                      $sformatf("permutation %0d: output %0d moved %0d beats over %0d cycles", r, o, out_beats[o], out_last[o] - out_first[o] + 1));
            end
            @(negedge clk) measure = 1'b0;
        end
        // Every input into one output: that output busy every cycle.
        mode = 2; rot = 2;
        @(negedge clk) measure = 1'b1;
        phase("all into output 2 (throughput)", 0, 0, 100);
        check(out_last[2] - out_first[2] + 1 == out_beats[2],
              $sformatf("all into one: %0d beats over %0d cycles", out_beats[2], out_last[2] - out_first[2] + 1));
        @(negedge clk) measure = 1'b0;
        settled("throughput");
        $display("throughput: permutations at 1 beat/cycle on every input and output, one output fed by all at 1 beat/cycle");

        mode = 0;
        phase("idle and backpressure again", 40, 40, 100);
        settled("end");
        for (int o = 0; o < M_COUNT; o++) check(routed[o] > 0, $sformatf("output %0d never used", o));
        check(model_drops > 0, "no out-of-range packet was tried");

        end_run("tb_p4f_axis_crossbar", $sformatf("(seed %0d): %0d packets, %0d beats checked, %0d dropped (tdest out of range); per output %0d/%0d/%0d/%0d",
                p4f_tb_pkg::run_seed(), packets_received, beats_received, model_drops, routed[0], routed[1], routed[2], routed[3]));
    end

endmodule

`default_nettype wire

// Testbench for p4f_decoupler (PP 2): a random source into it, two stand-in processors behind it,
// a random-backpressure sink on m_axis, and swaps 0 -> 1 -> 0 ... requested at random times.
//
// The processors (tb_p4f_decoupler_pp) are FIFOs with a random latency and random input
// backpressure; processor p marks every packet it forwards (tdest = 3 + 5p on every beat, byte 1
// of the first beat xored with 8'h5A or 8'hA5) and drops the packets whose first byte ends in
// 3'b101 (when drops are on), counting them on its pp_drops: processor 0 on the first beat,
// processor 1 three cycles after the tlast (a drop counted early and one counted late). While
// held in reset for "reconfiguration" a processor drives junk on all its outputs.
//
// The model takes every packet on s_axis and gives it to the processor that is active (by the
// model's own record of the swaps) when its first beat is taken. Each beat reaching processor p
// must be the next one given to p; each beat on m_axis must be the next packet not dropped, in
// s_axis order, with p's marks and every bit of tdata/tkeep/tlast/tuser as sent. So a packet
// lost, cut, duplicated, reordered, or sent through the wrong processor is an error. Per cycle:
// active and swap_busy as the model expects (a request is accepted only when not busy and for
// the other processor), a switch only to the requested processor, with nothing of the old one's
// packets still in it and no packet part-way in on s_axis, no packet starting on s_axis while a
// swap is under way, swaps/swap_ignored/drain_cycles as counted, stray_beats 0, the processor
// not active gets tvalid 0 and gives tready 1, pp_rst = rst | (pp_hold_rst & not active).
// Also: the stalled beat on m_axis unchanged, and a 0/0 phase at one beat per cycle. CNT_W is 8,
// so the decoupler's per-processor packet counts, swaps, swap_ignored and the longest
// drain_cycles wrap. PP 2 makes swap_to one bit: a request for a processor >= PP cannot be made.
// +seed=N.
`timescale 1ns / 1ps
`default_nettype none

package tb_p4f_decoupler_pkg;
    // The processors' rule: drop a packet whose first byte ends in 3'b101 (one in eight).
    function automatic bit drop_rule(input logic [63:0] first_data);
        return first_data[2:0] == 3'b101;
    endfunction
    // Processor p's marks: byte 1 of the first beat xored, and its tdest.
    function automatic logic [63:0] mark(input logic [63:0] d, input int p);
        return d ^ (64'(p == 0 ? 8'h5A : 8'hA5) << 8);
    endfunction
    function automatic logic [3:0] dest_of(input int p);
        return 4'(3 + 5 * p);
    endfunction
endpackage

// A stand-in packet processor: a FIFO of at most DEPTH beats, each beat out lat_min +
// random(0..lat_rand) cycles after it came in (in order), random input backpressure; marks and
// drops packets as the package says. In reset it holds nothing, and with `reconfig` drives junk.
module tb_p4f_decoupler_pp #(
    parameter int DATA_W    = 64,
    parameter int KEEP_W    = DATA_W / 8,
    parameter int USER_W    = 1,
    parameter int DEST_W    = 4,
    parameter int CNT_W     = 8,
    parameter int ID        = 0,
    parameter int DROP_LATE = 0,  // 0: a drop counted on the packet's first beat; N: N cycles after its tlast
    parameter int DEPTH     = 24
) (
    input  wire logic              clk,
    input  wire logic              rst,
    input  int unsigned            stall_pct,
    input  int unsigned            lat_min,
    input  int unsigned            lat_rand,
    input  wire logic              drop_en,
    input  wire logic              reconfig,

    input  wire logic [DATA_W-1:0] s_tdata,
    input  wire logic [KEEP_W-1:0] s_tkeep,
    input  wire logic              s_tvalid,
    output logic                   s_tready,
    input  wire logic              s_tlast,
    input  wire logic [USER_W-1:0] s_tuser,

    output logic      [DATA_W-1:0] m_tdata,
    output logic      [KEEP_W-1:0] m_tkeep,
    output logic                   m_tvalid,
    input  wire logic              m_tready,
    output logic                   m_tlast,
    output logic      [USER_W-1:0] m_tuser,
    output logic      [DEST_W-1:0] m_tdest,

    output logic      [CNT_W-1:0]  drops
);
    import p4f_tb_pkg::*;
    import tb_p4f_decoupler_pkg::*;

    localparam int W = 1 + USER_W + KEEP_W + DATA_W;

    prng rng;
    initial rng = new(run_seed() ^ 64'hdec0_0000 ^ longint'(ID));

    logic [W-1:0]    q[$];
    longint unsigned q_due[$], late_due[$];
    longint unsigned now = 0;
    logic [CNT_W-1:0] cnt = '0;
    bit              in_pkt = 1'b0, dropping = 1'b0;

    // The model's own state is blocking; what it drives is nonblocking.
    /* verilator lint_off BLKSEQ */
    always @(posedge clk) begin
        now++;
        if (rst) begin
            q.delete();
            q_due.delete();
            late_due.delete();
            in_pkt = 1'b0;
            dropping = 1'b0;
            cnt = '0;
            drops <= '0;
            if (reconfig) begin
                m_tvalid <= rng.below(2) == 1;
                m_tdata  <= random_bits#(DATA_W)::from(rng);
                m_tkeep  <= random_bits#(KEEP_W)::from(rng);
                m_tlast  <= rng.below(2) == 1;
                m_tuser  <= random_bits#(USER_W)::from(rng);
                m_tdest  <= random_bits#(DEST_W)::from(rng);
                s_tready <= rng.below(2) == 1;
            end else begin
                m_tvalid <= 1'b0;
                s_tready <= 1'b0;
            end
        end else begin
            if (s_tvalid && s_tready) begin
                logic [DATA_W-1:0] d;
                d = s_tdata;
                if (!in_pkt) begin
                    dropping = drop_en && drop_rule(s_tdata);
                    if (dropping && DROP_LATE == 0) cnt++;
                    d = mark(s_tdata, ID);
                end
                if (!dropping) begin
                    q.push_back({s_tlast, s_tuser, s_tkeep, d});
                    q_due.push_back(now + longint'(lat_min) + longint'(rng.below(lat_rand + 1)));
                end else if (s_tlast && DROP_LATE != 0) begin
                    late_due.push_back(now + longint'(DROP_LATE));
                end
                in_pkt = !s_tlast;
            end
            while (late_due.size() != 0 && late_due[0] <= now) begin
                void'(late_due.pop_front());
                cnt++;
            end
            drops <= cnt;
            if (!m_tvalid || m_tready) begin
                if (q.size() != 0 && q_due[0] <= now) begin
                    {m_tlast, m_tuser, m_tkeep, m_tdata} <= q.pop_front();
                    void'(q_due.pop_front());
                    m_tdest  <= DEST_W'(dest_of(ID));
                    m_tvalid <= 1'b1;
                end else begin
                    m_tvalid <= 1'b0;
                end
            end
            s_tready <= q.size() + 2 < DEPTH && rng.below(100) >= stall_pct;
        end
    end
    /* verilator lint_on BLKSEQ */
endmodule

module tb_p4f_decoupler;
    import tb_p4f_decoupler_pkg::*;

    localparam int DATA_W    = 64;
    localparam int KEEP_W    = DATA_W / 8;
    localparam int USER_W    = 3;
    localparam int DEST_W    = 4;
    localparam int PP        = 2;
    localparam int CNT_W     = 8;
    localparam int SEL_W     = 1;
    localparam int MAX_BEATS = 20;
    localparam int IN_W      = 1 + USER_W + KEEP_W + DATA_W;  // {tlast, tuser, tkeep, tdata}
    localparam int OUT_W     = DEST_W + IN_W;                 // {tdest, ...}
    localparam int QDEPTH    = 64;

    logic clk;
    initial clk = 1'b0;
    logic rst = 1'b1;
    always #2 clk = ~clk;

    int unsigned     idle_pct = 0, stall_pct = 0;
    longint unsigned packet_limit = 0;
    longint unsigned beats_sent, beats_received = 0, packets_received = 0;
    int unsigned     errors = 0;

    // The processors' knobs.
    int unsigned     pp_stall_pct = 20, lat_min = 2, lat_rand = 6;
    logic            drop_en = 1'b1;
    logic [PP-1:0]   reconfig = '0, pp_hold_rst = '0;

    logic [DATA_W-1:0] s_tdata, m_tdata;
    logic [KEEP_W-1:0] s_tkeep, m_tkeep;
    logic [USER_W-1:0] s_tuser, m_tuser;
    logic [DEST_W-1:0] m_tdest;
    logic              s_tvalid, s_tready, s_tlast, m_tvalid, m_tready, m_tlast;

    logic [PP*DATA_W-1:0] to_tdata, from_tdata;
    logic [PP*KEEP_W-1:0] to_tkeep, from_tkeep;
    logic [PP*USER_W-1:0] to_tuser, from_tuser;
    logic [PP*DEST_W-1:0] from_tdest;
    logic [PP-1:0]        to_tvalid, to_tready, to_tlast, from_tvalid, from_tready, from_tlast;
    logic [PP*CNT_W-1:0]  pp_drops;
    logic [PP-1:0]        pp_rst;

    logic             swap_req = 1'b0;
    logic [SEL_W-1:0] swap_to = '0;
    logic [SEL_W-1:0] active;
    logic             swap_busy;
    logic [CNT_W-1:0] swaps, swap_ignored, drain_cycles, stray_beats;

    p4f_tb_axis_source #(.DATA_W(DATA_W), .USER_W(USER_W), .MAX_BEATS(MAX_BEATS)) u_src (
        .clk, .rst, .idle_pct, .packet_limit, .beats_sent,
        .m_axis_tdata(s_tdata), .m_axis_tkeep(s_tkeep), .m_axis_tvalid(s_tvalid),
        .m_axis_tready(s_tready), .m_axis_tlast(s_tlast), .m_axis_tuser(s_tuser));

    p4f_decoupler #(.DATA_W(DATA_W), .USER_W(USER_W), .DEST_W(DEST_W), .PP(PP), .CNT_W(CNT_W)) dut (
        .clk, .rst,
        .s_axis_tdata(s_tdata), .s_axis_tkeep(s_tkeep), .s_axis_tvalid(s_tvalid),
        .s_axis_tready(s_tready), .s_axis_tlast(s_tlast), .s_axis_tuser(s_tuser),
        .m_pp_axis_tdata(to_tdata), .m_pp_axis_tkeep(to_tkeep), .m_pp_axis_tvalid(to_tvalid),
        .m_pp_axis_tready(to_tready), .m_pp_axis_tlast(to_tlast), .m_pp_axis_tuser(to_tuser),
        .s_pp_axis_tdata(from_tdata), .s_pp_axis_tkeep(from_tkeep), .s_pp_axis_tvalid(from_tvalid),
        .s_pp_axis_tready(from_tready), .s_pp_axis_tlast(from_tlast), .s_pp_axis_tuser(from_tuser),
        .s_pp_axis_tdest(from_tdest),
        .m_axis_tdata(m_tdata), .m_axis_tkeep(m_tkeep), .m_axis_tvalid(m_tvalid),
        .m_axis_tready(m_tready), .m_axis_tlast(m_tlast), .m_axis_tuser(m_tuser), .m_axis_tdest(m_tdest),
        .pp_drops, .pp_hold_rst, .pp_rst, .swap_req, .swap_to,
        .active, .swap_busy, .swaps, .swap_ignored, .drain_cycles, .stray_beats);

    for (genvar p = 0; p < PP; p++) begin : g_pp
        tb_p4f_decoupler_pp #(.DATA_W(DATA_W), .USER_W(USER_W), .DEST_W(DEST_W), .CNT_W(CNT_W),
                              .ID(p), .DROP_LATE(p == 0 ? 0 : 3)) u_pp (
            .clk, .rst(pp_rst[p]), .stall_pct(pp_stall_pct), .lat_min, .lat_rand, .drop_en,
            .reconfig(reconfig[p]),
            .s_tdata(to_tdata[p*DATA_W +: DATA_W]), .s_tkeep(to_tkeep[p*KEEP_W +: KEEP_W]),
            .s_tvalid(to_tvalid[p]), .s_tready(to_tready[p]), .s_tlast(to_tlast[p]),
            .s_tuser(to_tuser[p*USER_W +: USER_W]),
            .m_tdata(from_tdata[p*DATA_W +: DATA_W]), .m_tkeep(from_tkeep[p*KEEP_W +: KEEP_W]),
            .m_tvalid(from_tvalid[p]), .m_tready(from_tready[p]), .m_tlast(from_tlast[p]),
            .m_tuser(from_tuser[p*USER_W +: USER_W]), .m_tdest(from_tdest[p*DEST_W +: DEST_W]),
            .drops(pp_drops[p*CNT_W +: CNT_W]));
    end

    longint unsigned cycle;
    always @(posedge clk) cycle <= rst ? 0 : cycle + 1;

    // ---- the model ----
    // Beats given to each processor ({drop, beat}), fixed ring buffers (this Verilator merges
    // the queues of an array of queues pushed by index); the beats expected on m_axis, in order.
    logic [IN_W:0]     pq [PP][QDEPTH];
    int unsigned       pq_head [PP], pq_count [PP];
    logic [OUT_W-1:0]  exp_q[$];
    int                exp_proc[$];
    int                outstanding [PP];           // packets given to p, not yet out or dropped
    longint unsigned   handled [PP], dropped [PP]; // packets out of p, and dropped by p
    logic              tb_busy = 1'b0;
    logic [SEL_W-1:0]  tb_active = '0, tb_target = '0;
    longint unsigned   accept_cycle = 0, accepted = 0, ignored = 0, completed = 0;
    longint unsigned   ignored_to_active = 0, accepted_mid_packet = 0, max_drain = 0;
    bit                s_in_pkt = 1'b0, cur_drop = 1'b0;
    int                cur_proc = 0;
    logic              m_stalled = 1'b0;
    logic [OUT_W-1:0]  m_prev;
    p4f_tb_pkg::prng   rng;
    initial begin
        rng = new(p4f_tb_pkg::run_seed() ^ 64'hdec0);
        for (int p = 0; p < PP; p++) begin
            pq_head[p] = 0; pq_count[p] = 0; outstanding[p] = 0; handled[p] = 0; dropped[p] = 0;
        end
    end

    task automatic fail(input string what);
        errors++;
        if (errors < 10) $display("[%0t] ERROR %s", $time, what);
        if (errors == 100) $fatal(1, "FAIL tb_p4f_decoupler (seed %0d): 100 errors, stopped", p4f_tb_pkg::run_seed());
    endtask

    /* verilator lint_off BLKSEQ */
    always @(posedge clk) begin
        // pp_rst, also during rst.
        for (int p = 0; p < PP; p++)
            if (pp_rst[p] != (rst || (pp_hold_rst[p] && int'(active) != p)))
                fail($sformatf("pp_rst[%0d] = %b with rst %b, pp_hold_rst %b, active %0d", p, pp_rst[p], rst, pp_hold_rst[p], active));
        if (rst) begin
            m_tready <= 1'b0;
        end else begin
            // A switch shows as a new `active`: it must be the swap accepted, with the old
            // processor drained and no packet part-way in on s_axis.
            if (active != tb_active) begin
                if (!tb_busy) fail($sformatf("active changed %0d -> %0d with no swap under way", tb_active, active));
                else if (active != tb_target) fail($sformatf("switched to %0d, the swap asked for %0d", active, tb_target));
                if (outstanding[tb_active] != 0)
                    fail($sformatf("switched from processor %0d with %0d of its packets not yet out or dropped", tb_active, outstanding[tb_active]));
                if (s_in_pkt) fail("switched with a packet part-way in on s_axis");
                if (drain_cycles != CNT_W'(cycle - accept_cycle - 1))
                    fail($sformatf("drain_cycles %0d, the swap was busy %0d cycles", drain_cycles, cycle - accept_cycle - 1));
                if (cycle - accept_cycle - 1 > max_drain) max_drain = cycle - accept_cycle - 1;
                tb_active = active;
                tb_busy = 1'b0;
                completed++;
            end
            if (swap_busy != tb_busy) fail($sformatf("swap_busy %b, expected %b", swap_busy, tb_busy));
            if (swaps != CNT_W'(completed)) fail($sformatf("swaps %0d, %0d swaps completed", swaps, completed));
            if (swap_ignored != CNT_W'(ignored)) fail($sformatf("swap_ignored %0d, %0d requests ignored", swap_ignored, ignored));
            if (stray_beats != 0) fail($sformatf("stray_beats %0d", stray_beats));
            for (int p = 0; p < PP; p++) begin
                if (p != int'(tb_active) && to_tvalid[p]) fail($sformatf("tvalid to processor %0d, which is not active", p));
                if (p != int'(tb_active) && !from_tready[p]) fail($sformatf("tready 0 to processor %0d, which is not active", p));
            end

            // A request: accepted when no swap is under way and it is for the other processor.
            if (swap_req) begin
                if (!tb_busy && swap_to != tb_active && int'(swap_to) < PP) begin
                    tb_busy = 1'b1;
                    tb_target = swap_to;
                    accept_cycle = cycle;
                    accepted++;
                    if (s_in_pkt) accepted_mid_packet++;
                end else begin
                    ignored++;
                    if (!tb_busy && swap_to == tb_active) ignored_to_active++;
                end
            end

            // s_axis: a packet goes to the processor active at its first beat.
            if (s_tvalid && s_tready) begin
                if (swap_busy && !s_in_pkt) fail("a packet started on s_axis while a swap holds it");
                if (!s_in_pkt) begin
                    cur_proc = int'(tb_active);
                    cur_drop = drop_en && drop_rule(s_tdata);
                    outstanding[cur_proc]++;
                end
                if (pq_count[cur_proc] == QDEPTH) fail("model queue overflow");
                pq[cur_proc][(pq_head[cur_proc] + pq_count[cur_proc]) % QDEPTH] = {cur_drop, s_tlast, s_tuser, s_tkeep, s_tdata};
                pq_count[cur_proc]++;
                if (!cur_drop) begin
                    exp_q.push_back({dest_of(cur_proc), s_tlast, s_tuser, s_tkeep,
                                     s_in_pkt ? s_tdata : mark(s_tdata, cur_proc)});
                    exp_proc.push_back(cur_proc);
                end
                s_in_pkt = !s_tlast;
            end

            // Each processor's input: the next beat given to it.
            for (int p = 0; p < PP; p++) begin
                if (to_tvalid[p] && to_tready[p]) begin
                    logic [IN_W-1:0] got;
                    logic [IN_W:0]   want;
                    got = {to_tlast[p], to_tuser[p*USER_W +: USER_W], to_tkeep[p*KEEP_W +: KEEP_W], to_tdata[p*DATA_W +: DATA_W]};
                    if (pq_count[p] == 0) begin
                        fail($sformatf("a beat to processor %0d that s_axis did not give it", p));
                    end else begin
                        want = pq[p][pq_head[p]];
                        pq_head[p] = (pq_head[p] + 1) % QDEPTH;
                        pq_count[p]--;
                        if (got != want[IN_W-1:0]) fail($sformatf("processor %0d in: got %h, want %h", p, got, want[IN_W-1:0]));
                        if (want[IN_W]) begin  // dropped by the processor: done once it has the tlast
                            beats_received++;
                            if (want[IN_W-1]) begin
                                packets_received++;
                                outstanding[p]--;
                                dropped[p]++;
                            end
                        end
                    end
                end
            end

            // m_axis: the next packet not dropped, in order, with its processor's marks.
            if (m_stalled && (!m_tvalid || {m_tdest, m_tlast, m_tuser, m_tkeep, m_tdata} != m_prev))
                fail("m_axis beat changed or dropped while stalled");
            m_stalled = m_tvalid && !m_tready;
            m_prev = {m_tdest, m_tlast, m_tuser, m_tkeep, m_tdata};
            if (m_tvalid && m_tready) begin
                if (exp_q.size() == 0) begin
                    fail($sformatf("a beat on m_axis that nothing was sent for: %h", m_prev));
                end else begin
                    logic [OUT_W-1:0] want;
                    int p;
                    want = exp_q.pop_front();
                    p = exp_proc.pop_front();
                    if (m_prev != want) fail($sformatf("m_axis (packet through processor %0d): got %h, want %h", p, m_prev, want));
                    beats_received++;
                    if (m_tlast) begin
                        packets_received++;
                        outstanding[p]--;
                        handled[p]++;
                    end
                end
            end
            m_tready <= rng.below(100) >= stall_pct;
        end
    end
    /* verilator lint_on BLKSEQ */

    // Watchdog: a swap that never completes would otherwise hang a run.
    always @(posedge clk) if (cycle > 3000000) $fatal(1, "FAIL tb_p4f_decoupler: watchdog after %0d cycles", cycle);

    // ---- the swap requests ----
    // While swap_en: after a random wait, one of: a request to the other processor; one made
    // while a packet is part-way in on s_axis; one to the active processor (ignored); one to the
    // other followed by more while it is busy (ignored), some in back-to-back cycles.
    bit              swap_en = 1'b0, swap_driving = 1'b0;
    int unsigned     swap_gap = 200;
    p4f_tb_pkg::prng srng;
    initial srng = new(p4f_tb_pkg::run_seed() ^ 64'h5a9);

    task automatic pulse(input logic [SEL_W-1:0] to);
        swap_to = to;
        swap_req = 1'b1;
        @(negedge clk);
        swap_req = 1'b0;
    endtask

    initial begin : swap_driver
        int unsigned kind, w;
        forever begin
            @(negedge clk);
            if (swap_en) begin
                repeat (srng.below(swap_gap)) @(negedge clk);
                if (swap_en) begin
                    swap_driving = 1'b1;
                    kind = srng.below(10);
                    if (kind == 1 || kind == 2) begin
                        w = 0;
                        while (!s_in_pkt && w < 2000) begin @(negedge clk); w++; end
                    end
                    pulse(kind == 0 ? tb_active : ~tb_active);
                    if (kind == 2 || kind == 3) begin
                        repeat (1 + srng.below(3)) begin
                            repeat (srng.below(3)) @(negedge clk);
                            pulse(SEL_W'(srng.below(2)));
                        end
                    end
                    swap_driving = 1'b0;
                end
            end
        end
    end

    task automatic swaps_off();
        longint unsigned t0 = cycle;
        swap_en = 1'b0;
        while (swap_driving || tb_busy) begin
            @(negedge clk);
            if (cycle - t0 > 100000) $fatal(1, "FAIL tb_p4f_decoupler (seed %0d): a swap never completed", p4f_tb_pkg::run_seed());
        end
    endtask

    `define P4F_TB_TIMEOUT 400000
    `define P4F_TB_CHECK_TIME
    `include "p4f_tb_phase.svh"

    // Throughput monitors.
    logic            measure = 1'b0;
    longint unsigned in_refused, out_beats, out_first, out_last;
    /* verilator lint_off PINCONNECTEMPTY */
    p4f_tb_axis_rate u_in_rate (
        .clk, .measure, .cycle, .tvalid(s_tvalid), .tready(s_tready),
        .refused(in_refused), .beats(), .first(), .last());
    p4f_tb_axis_rate u_out_rate (
        .clk, .measure, .cycle, .tvalid(m_tvalid), .tready(m_tready),
        .refused(), .beats(out_beats), .first(out_first), .last(out_last));
    /* verilator lint_on PINCONNECTEMPTY */

    task automatic settled(input string name);
        for (int p = 0; p < PP; p++) begin
            check(pq_count[p] == 0, $sformatf("%s: %0d beats given to processor %0d never reached it", name, pq_count[p], p));
            check(outstanding[p] == 0, $sformatf("%s: %0d packets in processor %0d never came out", name, outstanding[p], p));
        end
        check(exp_q.size() == 0, $sformatf("%s: %0d beats never came out", name, exp_q.size()));
    endtask

    // Hold the processor that is not active in reset ("reconfiguring": it drives junk), check
    // pp_rst (a hold on the active one is ignored), run traffic, release it and swap to it.
    task automatic hold_test();
        int other;
        longint unsigned swaps_before;
        swaps_off();
        other = 1 - int'(tb_active);
        @(negedge clk);
        pp_hold_rst[other] = 1'b1;
        reconfig[other] = 1'b1;
        @(negedge clk);
        check(pp_rst[other] && !pp_rst[tb_active], $sformatf("hold: pp_rst %b, holding %0d, active %0d", pp_rst, other, tb_active));
        pp_hold_rst[tb_active] = 1'b1;
        @(negedge clk);
        check(pp_rst[other] && !pp_rst[tb_active], $sformatf("hold on the active one: pp_rst %b, active %0d", pp_rst, tb_active));
        phase("other processor reconfiguring", 20, 20, 200);
        @(negedge clk);
        reconfig[other] = 1'b0;  // configured, still held
        pp_hold_rst[tb_active] = 1'b0;
        repeat (5) @(negedge clk);
        check(pp_rst[other] && !pp_rst[tb_active], $sformatf("hold: pp_rst %b", pp_rst));
        pp_hold_rst[other] = 1'b0;
        @(negedge clk);
        check(pp_rst == '0, $sformatf("released: pp_rst %b", pp_rst));
        swaps_before = completed;
        fork
            phase("swap to the released processor", 20, 20, 200);
            begin
                repeat (30) @(negedge clk);
                pulse(SEL_W'(other));
            end
        join
        check(completed == swaps_before + 1 && int'(tb_active) == other,
              $sformatf("swap to the released processor %0d: active %0d, %0d swaps", other, tb_active, completed - swaps_before));
        $display("hold: processor %0d held in reset and reconfigured under traffic, released, swapped to", other);
    endtask

    initial begin
        repeat (5) @(posedge clk);
        @(negedge clk) rst = 1'b0;
        $display("tb_p4f_decoupler: seed %0d, PP %0d, DATA_W %0d, CNT_W %0d", p4f_tb_pkg::run_seed(), PP, DATA_W, CNT_W);
        swap_en = 1'b1;
        phase("idle and backpressure", 30, 30, 600);
        phase("heavy backpressure", 5, 90, 250);
        phase("heavy idle", 90, 5, 250);
        swap_gap = 20;
        phase("frequent swaps", 10, 30, 400);
        swap_gap = 200;
        phase("light random", 10, 10, 600);
        swaps_off();
        settled("random phases");

        hold_test();
        settled("hold");

        // Full rate through the active processor: no refusal on s_axis, no gap on m_axis.
        drop_en = 1'b0;
        pp_stall_pct = 0;
        lat_rand = 0;
        @(negedge clk) measure = 1'b1;
        phase("no stalls (throughput)", 0, 0, 300);
        check(in_refused == 0, $sformatf("throughput: s_axis refused %0d times", in_refused));
        check(out_last - out_first + 1 == out_beats,
              $sformatf("throughput: %0d beats over %0d cycles", out_beats, out_last - out_first + 1));
        $display("throughput: %0d beats in %0d cycles", out_beats, out_last - out_first + 1);
        @(negedge clk) measure = 1'b0;
        drop_en = 1'b1;
        pp_stall_pct = 20;
        lat_rand = 6;

        swap_en = 1'b1;
        phase("idle and backpressure again", 40, 40, 600);
        swaps_off();
        settled("end");

        check(completed == accepted, $sformatf("%0d swaps accepted, %0d completed", accepted, completed));
        check(completed >= 20, $sformatf("only %0d swaps", completed));
        check(accepted_mid_packet > 0, "no swap was requested with a packet part-way in");
        check(ignored_to_active > 0, "no request to the active processor");
        check(ignored > ignored_to_active, "no request while a swap was under way");
        for (int p = 0; p < PP; p++) begin
            check(handled[p] > 0, $sformatf("processor %0d never forwarded a packet", p));
            check(dropped[p] > 0, $sformatf("processor %0d never dropped a packet", p));
        end

        end_run("tb_p4f_decoupler", $sformatf("(seed %0d): %0d packets, %0d beats checked; %0d swaps (%0d requested mid-packet, longest %0d cycles), %0d requests ignored (%0d to the active one); processor 0 forwarded %0d dropped %0d, processor 1 forwarded %0d dropped %0d",
                p4f_tb_pkg::run_seed(), packets_received, beats_received, completed, accepted_mid_packet, max_drain,
                ignored, ignored_to_active, handled[0], dropped[0], handled[1], dropped[1]));
    end

endmodule

`default_nettype wire

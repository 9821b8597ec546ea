// Testbench for p4f_pkt_buffer: a random source writes packets into a small buffer (64 pages of
// 4 beats); a model records every packet taken and pairs it with its descriptor, or with a drop
// (drop_count); a random reader requests stored packets in random order, reads some without
// freeing (copies) and frees each one eventually; every output beat is checked against the
// packet the model says that id holds. Random idling on the source and the reader, random
// backpressure on the descriptors and on m_axis. A drop is only allowed while no page was free
// during the packet; after every phase, once all packets are freed, free_pages must be back to
// all pages (no page leaked or freed twice). Rounds with no stalls check that input is never
// refused and that back-to-back reads come out one beat per cycle. +seed=N.
`timescale 1ns / 1ps
`default_nettype none

module tb_p4f_pkt_buffer;
    localparam int DATA_W     = 128;
    localparam int KEEP_W     = DATA_W / 8;
    localparam int USER_W     = 2;
    localparam int BUF_BYTES  = 4096;
    localparam int PAGE_BYTES = 64;
    localparam int PAGES      = BUF_BYTES / PAGE_BYTES;
    localparam int DESC_DEPTH = 4;
    localparam int ID_W       = $clog2(PAGES);
    localparam int LEN_W      = $clog2(BUF_BYTES + 1);
    localparam int MAX_BEATS  = 12;
    localparam int WORD_W     = DATA_W + KEEP_W + USER_W + 1;

    logic clk;
    initial clk = 1'b0;
    logic rst = 1'b1;
    always #2 clk = ~clk;

    int unsigned     idle_pct = 0, stall_pct = 0;
    int unsigned     rd_idle_pct = 0, rd_free_pct = 70;
    bit              rd_pause = 1'b0;
    longint unsigned packet_limit = 0;
    longint unsigned beats_sent, beats_received = 0, packets_received = 0;
    int unsigned     errors = 0;

    logic [DATA_W-1:0] s_tdata, m_tdata;
    logic [KEEP_W-1:0] s_tkeep, m_tkeep;
    logic [USER_W-1:0] s_tuser, m_tuser;
    logic s_tvalid, s_tready, s_tlast, m_tvalid, m_tready, m_tlast;
    logic d_valid, d_ready;
    logic [ID_W-1:0] d_id;
    logic [LEN_W-1:0] d_len;
    logic [USER_W-1:0] d_user;
    logic r_valid, r_ready, r_free;
    logic [ID_W-1:0] r_id;
    logic [ID_W:0] free_pages;
    logic [31:0] drop_count;

    p4f_tb_axis_source #(.DATA_W(DATA_W), .USER_W(USER_W), .MAX_BEATS(MAX_BEATS)) u_src (
        .clk, .rst, .idle_pct, .packet_limit, .beats_sent,
        .m_axis_tdata(s_tdata), .m_axis_tkeep(s_tkeep), .m_axis_tvalid(s_tvalid),
        .m_axis_tready(s_tready), .m_axis_tlast(s_tlast), .m_axis_tuser(s_tuser));

    p4f_pkt_buffer #(.DATA_W(DATA_W), .USER_W(USER_W), .BUF_BYTES(BUF_BYTES), .PAGE_BYTES(PAGE_BYTES),
                     .DESC_DEPTH(DESC_DEPTH)) dut (
        .clk, .rst,
        .s_axis_tdata(s_tdata), .s_axis_tkeep(s_tkeep), .s_axis_tvalid(s_tvalid),
        .s_axis_tready(s_tready), .s_axis_tlast(s_tlast), .s_axis_tuser(s_tuser),
        .d_valid, .d_ready, .d_id, .d_len, .d_user,
        .r_valid, .r_ready, .r_id, .r_free,
        .m_axis_tdata(m_tdata), .m_axis_tkeep(m_tkeep), .m_axis_tvalid(m_tvalid),
        .m_axis_tready(m_tready), .m_axis_tlast(m_tlast), .m_axis_tuser(m_tuser),
        .free_pages, .drop_count);

    // A packet as it went in: each beat {tlast, tuser, tkeep, tdata}, and its length in bytes.
    class pkt_t;
        logic [WORD_W-1:0] beats[$];
        int unsigned len;
    endclass

    pkt_t            cur = new;          // the packet being received
    pkt_t            done_pkt;           // a packet whose last beat was taken last cycle
    bit              done_pending = 1'b0;
    bit              zero_seen;          // free_pages was 0 while `cur` was being taken
    bit              done_zero_seen;
    pkt_t            expect_desc[$];     // stored packets, descriptors not yet seen
    pkt_t            stored[PAGES];      // packet held by each id (null: none)
    int unsigned     live[$];            // ids the reader may still request
    pkt_t            expect_out[$];      // requested reads, in request order
    bit              expect_free[$];
    int unsigned     out_beat = 0;
    longint unsigned drops = 0, descs = 0, reads = 0, copies = 0;
    logic [31:0]     last_drops = 0;

    p4f_tb_pkg::prng rng;
    initial rng = new(p4f_tb_pkg::run_seed() ^ 64'hb0ff);

    task automatic fail(input string what);
        errors++;
        if (errors < 10) $display("[%0t] ERROR %s", $time, what);
    endtask

    // m_axis must hold a stalled beat unchanged.
    logic              m_stalled = 1'b0;
    logic [WORD_W-1:0] m_prev;
    wire logic [WORD_W-1:0] m_word = {m_tlast, m_tuser, m_tkeep, m_tdata};

    // The model updates its own state with blocking assignments (it is read only inside this
    // process); what drives the DUT uses nonblocking ones.
    /* verilator lint_off BLKSEQ */
    always @(posedge clk) begin
        pkt_t p;
        int unsigned i;
        bit f;
        if (rst) begin
            r_valid <= 1'b0;
            d_ready <= 1'b0;
            m_tready <= 1'b0;
        end else begin
            // 1. The packet that ended last cycle: dropped (drop_count went up) or stored.
            if (drop_count != last_drops) begin
                if (!done_pending || drop_count != last_drops + 1) fail($sformatf("drop_count %0d -> %0d with no packet end", last_drops, drop_count));
            end
            if (done_pending) begin
                if (drop_count != last_drops) begin
                    if (!done_zero_seen) fail($sformatf("packet of %0d bytes dropped while free pages never ran out", done_pkt.len));
                    drops++;
                    packets_received++;
                    beats_received += longint'(done_pkt.beats.size());
                end else begin
                    expect_desc.push_back(done_pkt);
                end
                done_pending = 1'b0;
            end
            last_drops = drop_count;
            if (free_pages > (ID_W + 1)'(PAGES)) fail($sformatf("free_pages %0d > %0d", free_pages, PAGES));

            // 2. Input beats.
            if (s_tvalid && s_tready) begin
                zero_seen = (cur.beats.size() == 0 ? 1'b0 : zero_seen) || free_pages == 0;
                cur.beats.push_back({s_tlast, s_tuser, s_tkeep, s_tdata});
                cur.len += s_tlast ? $countones(s_tkeep) : KEEP_W;
                if (s_tlast) begin
                    done_pkt = cur;
                    done_zero_seen = zero_seen;
                    done_pending = 1'b1;
                    cur = new;
                end
            end

            // 3. Descriptors, in the order the packets were stored.
            if (d_valid && d_ready) begin
                if (expect_desc.size() == 0) begin
                    fail($sformatf("descriptor id %0d len %0d with no stored packet", d_id, d_len));
                end else begin
                    p = expect_desc.pop_front();
                    if (int'(d_len) != int'(p.len)) fail($sformatf("descriptor id %0d: len %0d, want %0d", d_id, d_len, p.len));
                    if (d_user != p.beats[p.beats.size() - 1][DATA_W + KEEP_W +: USER_W])
                        fail($sformatf("descriptor id %0d: d_user %0d, want the last beat's tuser", d_id, d_user));
                    if (stored[d_id] != null) fail($sformatf("descriptor id %0d still holds a packet", d_id));
                    stored[d_id] = p;
                    live.push_back(int'(d_id));
                    descs++;
                end
            end

            // 4. Read requests: a random live packet; freed with probability rd_free_pct.
            if (r_valid && r_ready) begin
                expect_out.push_back(stored[r_id]);
                expect_free.push_back(r_free);
                if (r_free) stored[r_id] = null;
                reads++;
                if (!r_free) copies++;
            end
            if (!r_valid || r_ready) begin
                if (live.size() != 0 && !rd_pause && rng.below(100) >= rd_idle_pct) begin
                    i = rng.below(live.size());
                    f = rng.below(100) < rd_free_pct;
                    r_valid <= 1'b1;
                    r_id <= ID_W'(live[i]);
                    r_free <= f;
                    if (f) live.delete(i);
                end else begin
                    r_valid <= 1'b0;
                end
            end

            // 5. Output beats against the requested packets.
            if (m_stalled && (!m_tvalid || m_word != m_prev)) fail("m_axis beat changed or dropped while stalled");
            m_stalled = m_tvalid && !m_tready;
            m_prev = m_word;
            if (m_tvalid && m_tready) begin
                if (expect_out.size() == 0) begin
                    fail("output beat with no read requested");
                end else begin
                    p = expect_out[0];
                    if (m_word != p.beats[out_beat])
                        fail($sformatf("read beat %0d of %0d: got %h, want %h", out_beat, p.beats.size(), m_word, p.beats[out_beat]));
                    out_beat++;
                    if (m_tlast || out_beat >= p.beats.size()) begin
                        if (expect_free[0]) begin
                            packets_received++;
                            beats_received += longint'(p.beats.size());
                        end
                        void'(expect_out.pop_front());
                        void'(expect_free.pop_front());
                        out_beat = 0;
                    end
                end
            end
            m_tready <= rng.below(100) >= stall_pct;
            d_ready <= rng.below(100) >= stall_pct;
        end
    end
    /* verilator lint_on BLKSEQ */

    // Throughput monitors.
    logic            measure = 1'b0;
    longint unsigned in_refused, out_beats, out_first, out_last, cycle;
    always @(posedge clk) cycle <= rst ? 0 : cycle + 1;
    /* verilator lint_off PINCONNECTEMPTY */
    p4f_tb_axis_rate u_in_rate (
        .clk, .measure, .cycle, .tvalid(s_tvalid), .tready(s_tready),
        .refused(in_refused), .beats(), .first(), .last());
    p4f_tb_axis_rate u_out_rate (
        .clk, .measure, .cycle, .tvalid(m_tvalid), .tready(m_tready),
        .refused(), .beats(out_beats), .first(out_first), .last(out_last));
    /* verilator lint_on PINCONNECTEMPTY */

    `define P4F_TB_CHECK_TIME
    `define P4F_TB_PACKETS_SHOWN packets_received
    `include "p4f_tb_phase.svh"

    // After a phase everything is freed: every page must be free again.
    task automatic all_free(input string name);
        repeat (4) @(posedge clk);
        check(free_pages == (ID_W + 1)'(PAGES), $sformatf("%s: %0d of %0d pages free after all packets were freed", name, free_pages, PAGES));
        check(expect_desc.size() == 0 && live.size() == 0 && expect_out.size() == 0, $sformatf("%s: packets left over", name));
    endtask

    // No stalls anywhere: `n` packets go in with the reader paused (they fit: at most 3 pages
    // each), input must never be refused and none dropped; then all are read back to back and
    // freed, and the output must carry a beat every cycle.
    task automatic throughput_round(input int unsigned n);
        longint unsigned d0 = drops;
        longint unsigned t0 = cycle;
        @(negedge clk);
        rd_pause = 1'b1; idle_pct = 0; stall_pct = 0; rd_idle_pct = 0; rd_free_pct = 100;
        measure = 1'b1;
        packet_limit += longint'(n);
        while (live.size() + int'(drops - d0) < int'(n) && cycle - t0 < 10000) @(posedge clk);
        check(in_refused == 0, $sformatf("throughput: input refused %0d times", in_refused));
        check(drops == d0, "throughput: packets dropped with the buffer not full");
        @(negedge clk) measure = 1'b0;
        @(negedge clk) measure = 1'b1;
        rd_pause = 1'b0;
        while (packets_received < packet_limit && cycle - t0 < 20000) @(posedge clk);
        repeat (2) @(posedge clk);
        check(out_beats > 0 && out_last - out_first + 1 == out_beats,
              $sformatf("throughput: %0d beats out over %0d cycles", out_beats, out_last - out_first + 1));
        @(negedge clk) measure = 1'b0;
        rd_free_pct = 70;
        all_free("throughput");
    endtask

    initial begin
        longint unsigned d0;
        repeat (5) @(posedge clk);
        @(negedge clk) rst = 1'b0;
        $display("tb_p4f_pkt_buffer: seed %0d, DATA_W %0d, %0d pages of %0d bytes", p4f_tb_pkg::run_seed(), DATA_W, PAGES, PAGE_BYTES);
        check(free_pages == (ID_W + 1)'(PAGES), "free_pages after reset");
        rd_idle_pct = 30;
        phase("idle and backpressure", 30, 30, 300);
        all_free("idle and backpressure");
        d0 = drops;
        rd_idle_pct = 96;
        phase("slow reader (fills, drops)", 5, 10, 400);
        all_free("slow reader");
        check(drops > d0, "slow reader: the buffer never filled (no drop)");
        rd_idle_pct = 10;
        phase("heavy backpressure", 5, 90, 150);
        all_free("heavy backpressure");
        rd_idle_pct = 50;
        phase("heavy idle", 90, 5, 150);
        all_free("heavy idle");
        rd_idle_pct = 10;
        phase("light random", 10, 10, 300);
        all_free("light random");

        for (int i = 0; i < 5; i++) throughput_round(16);
        $display("throughput: 5 rounds of 16 packets, no input refused, reads back to back at 1 beat/cycle");

        rd_idle_pct = 40;
        phase("idle and backpressure again", 40, 40, 200);
        all_free("again");

        end_run("tb_p4f_pkt_buffer", $sformatf("(seed %0d): %0d packets, %0d beats accounted; %0d stored, %0d dropped, %0d reads (%0d copies)",
                p4f_tb_pkg::run_seed(), packets_received, beats_received, descs, drops, reads, copies));
    end

endmodule

`default_nettype wire

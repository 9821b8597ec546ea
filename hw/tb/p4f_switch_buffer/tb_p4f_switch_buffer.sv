// Testbench for p4f_switch_buffer: a random source (tdest from each packet's first beat, one in
// eight naming no port) into a small buffer (2 KiB of 32-byte pages) with 3 output ports, each
// with random backpressure. A model keeps, per output port, the beats of every packet sent there
// that the buffer did not drop (the DUT's drop_count of that port moved two edges after the
// packet's last beat), and every output beat must be the next one of its port, so a lost,
// duplicated, reordered, misrouted or corrupted beat, or two packets interleaved, is an error.
// Each packet's tuser (from its first beat's data; later beats carry junk) must come out with
// every one of its beats.
// Phases:
// - random idle and backpressure; drops are allowed only under heavy backpressure (the buffer
//   fills), none with light traffic;
// - head of line: output 0 held not ready while 12 packets wait for it, then 60 packets for
//   outputs 1 and 2 must all come out (port 0 still blocked, its packets neither lost nor out);
//   then output 0 is released and its packets arrive in order;
// - share: output 0 blocked while 40 packets come for it: they may hold at most PORT_PAGES pages
//   (plus the packets not counted yet), the rest are dropped and counted on its drop_count, so 60 packets
//   for outputs 1 and 2 still all come out without a drop;
// - throughput: no idle, no backpressure: the input is never refused;
// - at the end: every page back (free_pages), drop_count per port and bad_dest_count equal to
//   the model's counts. +seed=N.
`timescale 1ns / 1ps
`default_nettype none

module tb_p4f_switch_buffer;
    localparam int DATA_W     = 64;
    localparam int KEEP_W     = DATA_W / 8;
    localparam int PORTS      = 3;
    localparam int DEST_W     = 3;
    localparam int BUF_BYTES  = 2048;
    localparam int PAGE_BYTES = 32;
    localparam int PAGES      = BUF_BYTES / PAGE_BYTES;
    localparam int OUT_DEPTH  = 16;
    localparam int PORT_PAGES = 40;   // of 64: a blocked port leaves 24 pages to the others
    localparam int MAX_BEATS  = 12;
    localparam int USER_W     = 5;
    localparam int WORD_W     = USER_W + DATA_W + KEEP_W + 1;

    logic clk;
    initial clk = 1'b0;
    logic rst = 1'b1;
    always #2 clk = ~clk;

    int unsigned     idle_pct = 0, stall_pct = 0;
    longint unsigned packet_limit = 0;
    longint unsigned beats_sent, beats_received = 0, packets_received = 0;
    int unsigned     errors = 0;

    logic [DATA_W-1:0]       s_tdata;
    logic [KEEP_W-1:0]       s_tkeep;
    logic                    s_tvalid, s_tready, s_tlast;
    logic                    s_tuser_unused;
    logic [DEST_W-1:0]       s_tdest;
    logic [USER_W-1:0]       s_tuser;
    logic [PORTS*USER_W-1:0] m_tuser;
    logic [PORTS*DATA_W-1:0] m_tdata;
    logic [PORTS*KEEP_W-1:0] m_tkeep;
    logic [PORTS-1:0]        m_tvalid, m_tready, m_tlast;
    logic [PORTS*32-1:0]     drop_count;
    logic [31:0]             bad_dest_count;
    logic [$clog2(PAGES):0]  free_pages;

    p4f_tb_axis_source #(.DATA_W(DATA_W), .USER_W(1), .MAX_BEATS(MAX_BEATS)) u_src (
        .clk, .rst, .idle_pct, .packet_limit, .beats_sent,
        .m_axis_tdata(s_tdata), .m_axis_tkeep(s_tkeep), .m_axis_tvalid(s_tvalid),
        .m_axis_tready(s_tready), .m_axis_tlast(s_tlast), .m_axis_tuser(s_tuser_unused));

    p4f_switch_buffer #(.DATA_W(DATA_W), .PORTS(PORTS), .DEST_W(DEST_W), .USER_W(USER_W), .BUF_BYTES(BUF_BYTES),
                        .PAGE_BYTES(PAGE_BYTES), .OUT_DEPTH(OUT_DEPTH), .PORT_PAGES(PORT_PAGES)) dut (
        .clk, .rst,
        .s_axis_tdata(s_tdata), .s_axis_tkeep(s_tkeep), .s_axis_tvalid(s_tvalid), .s_axis_tready(s_tready),
        .s_axis_tlast(s_tlast), .s_axis_tdest(s_tdest), .s_axis_tuser(s_tuser),
        .m_axis_tdata(m_tdata), .m_axis_tkeep(m_tkeep), .m_axis_tvalid(m_tvalid), .m_axis_tready(m_tready),
        .m_axis_tlast(m_tlast), .m_axis_tuser(m_tuser),
        .drop_count, .bad_dest_count, .free_pages);

    // tdest of a first beat: mode 0: from the data (1/8 naming no port); 1: port 0; 2: ports 1
    // and 2 by the data. Later beats carry junk, which the DUT must ignore.
    int unsigned       mode = 0;
    logic              src_in_pkt;
    logic [DEST_W-1:0] src_dest;
    function automatic logic [DEST_W-1:0] pick_dest(input logic [DATA_W-1:0] d);
        if (mode == 1) return '0;
        if (mode == 2) return DEST_W'(1 + int'(d[5]));
        if (d[2:0] == 3'd0) return DEST_W'(PORTS + int'(d[4:3]) % (8 - PORTS));
        return DEST_W'(int'(d[7:3]) % PORTS);
    endfunction
    always_comb s_tdest = src_in_pkt ? s_tdata[13 +: DEST_W] : pick_dest(s_tdata);
    // tuser: the first beat's bits 20.. (junk on the others); the model keeps the first beat's.
    logic [USER_W-1:0] src_user;
    always_comb s_tuser = s_tdata[20 +: USER_W];

    // The model: the packet being taken, then per port a ring of expected beats.
    localparam int QDEPTH = 1024;
    logic [WORD_W-1:0] cur [MAX_BEATS];
    int unsigned       cur_len = 0;
    logic [WORD_W-1:0] q [PORTS][QDEPTH];
    int unsigned       q_head [PORTS], q_count [PORTS];
    // A packet that ended waits two edges for its verdict: the buffer counts a drop at the edge
    // that takes the last beat, and the DUT moves that port's drop_count one edge later.
    bit                done_pending = 1'b0, wait_pending = 1'b0;
    int unsigned       done_port, done_len, wait_port, wait_len;
    logic [WORD_W-1:0] done_beats [MAX_BEATS], wait_beats [MAX_BEATS];
    logic [31:0]       drops_seen [PORTS];
    longint unsigned   model_drops [PORTS], model_bad = 0, out_pkts [PORTS];
    bit                drops_allowed = 1'b1;
    logic [PORTS-1:0]  hold_ready = '0;  // outputs held not ready
    logic [PORTS-1:0]  out_in_pkt, m_stalled;
    logic [WORD_W-1:0] m_prev [PORTS];
    p4f_tb_pkg::prng   rng;
    initial rng = new(p4f_tb_pkg::run_seed() ^ 64'h5b0f);
    initial for (int p = 0; p < PORTS; p++) begin
        q_head[p] = 0; q_count[p] = 0; model_drops[p] = 0; out_pkts[p] = 0;
    end

    task automatic fail(input string what);
        errors++;
        if (errors < 10) $display("[%0t] ERROR %s", $time, what);
    endtask

    /* verilator lint_off BLKSEQ */
    always @(posedge clk) begin
        if (rst) begin
            src_in_pkt <= 1'b0;
            m_tready <= '0;
            out_in_pkt = '0;
            m_stalled = '0;
            for (int p = 0; p < PORTS; p++) drops_seen[p] = '0;
        end else begin
            // 1. The packet whose last beat was taken last cycle: dropped or stored for its port.
            for (int p = 0; p < PORTS; p++) begin
                logic [31:0] now;
                now = drop_count[p*32 +: 32];
                if (now != drops_seen[p]) begin
                    if (!done_pending || done_port != p || now != drops_seen[p] + 1)
                        fail($sformatf("drop_count[%0d] %0d -> %0d with no packet for it ending", p, drops_seen[p], now));
                end
            end
            if (done_pending) begin
                if (drop_count[done_port*32 +: 32] != drops_seen[done_port]) begin
                    if (!drops_allowed) fail($sformatf("packet for port %0d dropped with light traffic", done_port));
                    model_drops[done_port]++;
                    packets_received++;
                    beats_received += longint'(done_len);
                end else begin
                    for (int b = 0; b < int'(done_len); b++) begin
                        if (q_count[done_port] == QDEPTH) fail("model queue overflow");
                        q[done_port][(q_head[done_port] + q_count[done_port]) % QDEPTH] = done_beats[b];
                        q_count[done_port]++;
                    end
                end
                done_pending = 1'b0;
            end
            if (wait_pending) begin
                done_pending = 1'b1;
                done_port = wait_port;
                done_len = wait_len;
                done_beats = wait_beats;
                wait_pending = 1'b0;
            end
            for (int p = 0; p < PORTS; p++) drops_seen[p] = drop_count[p*32 +: 32];

            // 2. Input beats.
            if (s_tvalid && s_tready) begin
                logic [DEST_W-1:0] d;
                logic [USER_W-1:0] u;
                d = src_in_pkt ? src_dest : s_tdest;
                u = src_in_pkt ? src_user : s_tuser;
                if (!src_in_pkt) begin src_dest <= s_tdest; src_user <= s_tuser; end
                src_in_pkt <= !s_tlast;
                cur[cur_len] = {u, s_tlast, s_tkeep, s_tdata};
                cur_len++;
                if (s_tlast) begin
                    if (int'(d) >= PORTS) begin
                        model_bad++;
                        packets_received++;
                        beats_received += longint'(cur_len);
                    end else begin
                        wait_pending = 1'b1;
                        wait_port = int'(d);
                        wait_len = cur_len;
                        wait_beats = cur;
                    end
                    cur_len = 0;
                end
            end

            // 3. Output beats, each the next one expected on its port.
            for (int p = 0; p < PORTS; p++) begin
                logic [WORD_W-1:0] w;
                w = {m_tuser[p*USER_W +: USER_W], m_tlast[p], m_tkeep[p*KEEP_W +: KEEP_W], m_tdata[p*DATA_W +: DATA_W]};
                if (m_stalled[p] && (!m_tvalid[p] || w != m_prev[p])) fail($sformatf("port %0d: beat changed while stalled", p));
                m_stalled[p] = m_tvalid[p] && !m_tready[p];
                m_prev[p] = w;
                if (m_tvalid[p] && m_tready[p]) begin
                    if (q_count[p] == 0) begin
                        fail($sformatf("port %0d: beat %h with none expected", p, w));
                    end else begin
                        if (w != q[p][q_head[p]]) fail($sformatf("port %0d: got %h, want %h", p, w, q[p][q_head[p]]));
                        q_head[p] = (q_head[p] + 1) % QDEPTH;
                        q_count[p]--;
                    end
                    beats_received++;
                    if (m_tlast[p]) begin
                        packets_received++;
                        out_pkts[p]++;
                    end
                end
                m_tready[p] <= !hold_ready[p] && rng.below(100) >= stall_pct;
            end
        end
    end
    /* verilator lint_on BLKSEQ */

    `define P4F_TB_TIMEOUT 400000
    `define P4F_TB_CHECK_TIME
    `include "p4f_tb_phase.svh"

    logic            measure = 1'b0;
    longint unsigned cycle;
    longint unsigned in_refused;
    always @(posedge clk) cycle <= rst ? 0 : cycle + 1;
    /* verilator lint_off PINCONNECTEMPTY */
    p4f_tb_axis_rate u_in_rate (.clk, .measure, .cycle, .tvalid(s_tvalid), .tready(s_tready),
                                .refused(in_refused), .beats(), .first(), .last());
    /* verilator lint_on PINCONNECTEMPTY */

    // The fewest free pages seen while `watch_free` is set.
    bit          watch_free = 1'b0;
    int unsigned min_free = PAGES;
    always @(posedge clk) if (watch_free && int'(free_pages) < min_free) min_free <= int'(free_pages);

    function automatic longint unsigned all_drops();
        longint unsigned n = 0;
        for (int p = 0; p < PORTS; p++) n += model_drops[p];
        return n;
    endfunction

    task automatic settled(input string name);
        repeat (20) @(posedge clk);
        for (int p = 0; p < PORTS; p++) begin
            check(q_count[p] == 0, $sformatf("%s: %0d beats for port %0d never came out", name, q_count[p], p));
            check(longint'(drop_count[p*32 +: 32]) == model_drops[p],
                  $sformatf("%s: drop_count[%0d] %0d, model %0d", name, p, drop_count[p*32 +: 32], model_drops[p]));
        end
        check(longint'(bad_dest_count) == model_bad, $sformatf("%s: bad_dest_count %0d, model %0d", name, bad_dest_count, model_bad));
        check(int'(free_pages) == PAGES, $sformatf("%s: free_pages %0d, want %0d", name, free_pages, PAGES));
    endtask

    initial begin
        longint unsigned out_before [PORTS];
        repeat (5) @(posedge clk);
        @(negedge clk) rst = 1'b0;
        $display("tb_p4f_switch_buffer: seed %0d, %0d ports, %0d pages of %0d bytes, DATA_W %0d",
                 p4f_tb_pkg::run_seed(), PORTS, PAGES, PAGE_BYTES, DATA_W);
        drops_allowed = 1'b0;
        phase("light traffic", 50, 10, 150);
        phase("idle and backpressure", 30, 30, 150);
        settled("light");
        drops_allowed = 1'b1;
        phase("heavy backpressure", 0, 95, 150);
        phase("random", 20, 40, 150);
        settled("heavy");
        check(all_drops() > 0, "heavy backpressure never filled the buffer");

        // Head of line: 12 packets wait for a blocked output 0 (at most 12 beats, 3 pages, each:
        // they fit in the 64 pages), then outputs 1 and 2 must carry all of theirs.
        drops_allowed = 1'b0;
        idle_pct = 0;
        stall_pct = 0;
        for (int p = 0; p < PORTS; p++) out_before[p] = out_pkts[p];
        hold_ready[0] = 1'b1;
        mode = 1;
        packet_limit += 12;
        repeat (12 * MAX_BEATS + 50) @(posedge clk);
        mode = 2;
        packet_limit += 60;
        begin
            automatic longint unsigned t0 = cycle;
            while (out_pkts[1] + out_pkts[2] - out_before[1] - out_before[2] < 60 && cycle - t0 < 20000) @(posedge clk);
        end
        check(out_pkts[1] + out_pkts[2] - out_before[1] - out_before[2] == 60,
              $sformatf("head of line: %0d of 60 packets for outputs 1 and 2 came out while output 0 was blocked",
                        out_pkts[1] + out_pkts[2] - out_before[1] - out_before[2]));
        check(out_pkts[0] == out_before[0] && q_count[0] > 0, "head of line: output 0 was not held");
        hold_ready[0] = 1'b0;
        phase("head of line released", 0, 0, 0);
        settled("head of line");
        $display("head of line: 60 packets for outputs 1 and 2 passed 12 waiting for a blocked output 0");

        // Share: a blocked output 0 gets 40 packets (up to 120 pages); it may keep PORT_PAGES of
        // them plus the packets not counted yet (the one being written, 3 pages at most, and those
        // that ended in the 3 cycles their descriptor takes to be counted: 1-beat packets, a page
        // each), and outputs 1 and 2 still get every one of theirs.
        for (int p = 0; p < PORTS; p++) out_before[p] = out_pkts[p];
        hold_ready[0] = 1'b1;
        mode = 1;
        drops_allowed = 1'b1;
        min_free = PAGES;
        watch_free = 1'b1;
        packet_limit += 40;
        repeat (40 * MAX_BEATS + 50) @(posedge clk);
        check(min_free + 6 >= PAGES - PORT_PAGES,
              $sformatf("share: a blocked port left %0d free pages, want at least %0d", min_free, PAGES - PORT_PAGES - 6));
        check(model_drops[0] > 0, "share: the blocked port's packets were never over its share");
        drops_allowed = 1'b0;
        mode = 2;
        packet_limit += 60;
        begin
            automatic longint unsigned t0 = cycle;
            while (out_pkts[1] + out_pkts[2] - out_before[1] - out_before[2] < 60 && cycle - t0 < 20000) @(posedge clk);
        end
        check(out_pkts[1] + out_pkts[2] - out_before[1] - out_before[2] == 60,
              $sformatf("share: %0d of 60 packets for outputs 1 and 2 came out beside a full blocked output 0",
                        out_pkts[1] + out_pkts[2] - out_before[1] - out_before[2]));
        watch_free = 1'b0;
        hold_ready[0] = 1'b0;
        phase("share released", 0, 0, 0);
        settled("share");
        $display("share: a blocked output kept at most %0d of %0d pages; the others lost nothing", PAGES - min_free, PAGES);

        // Throughput: nothing idle, nothing stalled: the buffer takes a beat every cycle.
        mode = 0;
        @(negedge clk) measure = 1'b1;
        phase("throughput", 0, 0, 150);
        check(in_refused == 0, $sformatf("throughput: the input was refused %0d times", in_refused));
        @(negedge clk) measure = 1'b0;
        settled("throughput");

        phase("idle and backpressure again", 40, 40, 100);
        settled("end");
        for (int p = 0; p < PORTS; p++) check(out_pkts[p] > 0, $sformatf("port %0d never used", p));
        check(model_bad > 0, "no packet with a tdest naming no port was tried");
        end_run("tb_p4f_switch_buffer", $sformatf("(seed %0d): %0d packets, %0d beats checked; out %0d/%0d/%0d, dropped %0d (buffer full or over its share), %0d (no such port)",
                p4f_tb_pkg::run_seed(), packets_received, beats_received, out_pkts[0], out_pkts[1], out_pkts[2], all_drops(), model_bad));
    end

endmodule

`default_nettype wire

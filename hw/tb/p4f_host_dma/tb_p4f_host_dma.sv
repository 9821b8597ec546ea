// Testbench for p4f_host_dma (DATA_W 64, RING_W 4, so rings wrap often): a host-memory model and
// a software model around the module, packets both ways.
//
// Host memory: a byte array. Each cycle m_mem_req_ready is drawn at random; a write is applied
// when taken (wdata means nothing on a read), a read's data is taken when the read is taken and answered in order after a random
// latency (at least 2 cycles). Checked on every request: aligned address; a stalled request stays
// unchanged; a write touches only the bytes it may: the current RX descriptor's buffer (its first
// `size` bytes, none for a refused one) or its write-back bytes 12..14.
//
// Software, TX: writes a packet of random length (1..300 bytes, random bytes) into the buffer of
// the slot at the tail and its descriptor, then advances tx_tail, while the ring has room (at most
// entries-1 posted). About 1 in 12 descriptors is bad (misaligned buffer or length 0). The m_axis
// sink (random tready) checks each packet byte for byte against the good descriptors in order,
// tkeep contiguous and full but on the last beat, and that a stalled beat stays unchanged. When
// tx_head moves past a good descriptor its packet must have left entirely; the slot's buffer is
// then rewritten for the next packet (a read after the head moved would send the new bytes).
//
// Software, RX: posts descriptors with random buffer sizes (64..340, not always a multiple of 8,
// so some packets are truncated), about 1 in 12 bad (misaligned or size under 64); a good buffer
// and the 16 bytes after it are filled with random canary bytes, and the descriptor's bytes 10..15
// with junk. The s_axis source (random idle cycles) sends random packets of 1..300 bytes. When
// rx_head moves past a descriptor: bytes 0..11 and 15 unchanged; a bad one has length 0, flags 4;
// a good one holds the next packet sent: length min(packet, size), flags 1 (3 if truncated), the
// buffer holds the packet's first bytes and the canary after them.
//
// Phases, each after a reset, with different ring sizes for TX and RX (2 to 16 entries, and a
// log2 above RING_W, which counts as RING_W), ring bases, memory stall and latency, m_axis stall
// and s_axis idle odds. The first phase starts with `enable` low for 300 cycles with descriptors
// posted and a packet offered: nothing may move. The last two run one direction alone at line
// rate (memory always ready, every read answered 5 cycles after it was taken, no stalls): no gap
// inside a TX packet on m_axis, no beat refused inside an RX packet on s_axis. After each phase the
// four counters must equal the model's; over the run both rings must have wrapped and truncated
// packets and bad descriptors must have occurred. At most RSP_DEPTH reads may be in flight. +seed=N.
`timescale 1ns / 1ps
`default_nettype none

module tb_p4f_host_dma #(
    parameter int DATA_W = 64                // 64 in `make sim`; 128 and 256 also pass (-GDATA_W=...)
);
    import p4f_tb_pkg::*;

    localparam int KEEP_W  = DATA_W / 8;
    localparam int RING_W  = 4;
    localparam int RSP_DEPTH = 8;            // the module's default
    localparam int MAX_PKT = 300;            // packet bytes, both ways
    localparam longint unsigned TX_BUF = 64'h0000_0001_0000_0000;
    localparam longint unsigned RX_BUF = 64'h0000_0002_0000_0000;

    logic clk;
    initial clk = 1'b0;
    logic rst = 1'b1;
    always #2 clk = ~clk;

    longint unsigned cycle = 0;
    always @(posedge clk) cycle <= cycle + 1;

    // ---- DUT
    logic              enable = 1'b0;
    logic [63:0]       tx_ring_base = '0, rx_ring_base = '0;
    logic [4:0]        tx_ring_log2 = 5'd2, rx_ring_log2 = 5'd2;
    logic [RING_W-1:0] tx_tail = '0, rx_tail = '0, tx_head, rx_head;
    logic [31:0]       tx_packets, rx_packets, rx_truncated, desc_errors;
    logic              mem_req_valid, mem_req_ready = 1'b0, mem_req_write, mem_rsp_valid = 1'b0;
    logic [63:0]       mem_req_addr;
    logic [DATA_W-1:0] mem_req_wdata, mem_rsp_rdata;
    logic [KEEP_W-1:0] mem_req_wstrb;
    logic [DATA_W-1:0] m_tdata, s_tdata;
    logic [KEEP_W-1:0] m_tkeep, s_tkeep;
    logic              m_tvalid, m_tready = 1'b0, m_tlast, s_tvalid = 1'b0, s_tready, s_tlast;

    p4f_host_dma #(.DATA_W(DATA_W), .RING_W(RING_W)) dut (
        .clk, .rst, .enable,
        .tx_ring_base, .tx_ring_log2, .tx_tail, .tx_head,
        .rx_ring_base, .rx_ring_log2, .rx_tail, .rx_head,
        .tx_packets, .rx_packets, .rx_truncated, .desc_errors,
        .m_mem_req_valid(mem_req_valid), .m_mem_req_ready(mem_req_ready), .m_mem_req_write(mem_req_write),
        .m_mem_req_addr(mem_req_addr), .m_mem_req_wdata(mem_req_wdata), .m_mem_req_wstrb(mem_req_wstrb),
        .m_mem_rsp_valid(mem_rsp_valid), .m_mem_rsp_rdata(mem_rsp_rdata),
        .m_axis_tdata(m_tdata), .m_axis_tkeep(m_tkeep), .m_axis_tvalid(m_tvalid), .m_axis_tready(m_tready),
        .m_axis_tlast(m_tlast),
        .s_axis_tdata(s_tdata), .s_axis_tkeep(s_tkeep), .s_axis_tvalid(s_tvalid), .s_axis_tready(s_tready),
        .s_axis_tlast(s_tlast));

    int unsigned errors = 0;
    function automatic void fail(input string what);
        errors++;
        if (errors <= 10) $display("[%0t] ERROR %s", $time, what);
    endfunction

    prng mem_rng, sw_rng, src_rng, sink_rng;
    initial begin
        mem_rng  = new(run_seed() ^ 64'hd4a_0001);
        sw_rng   = new(run_seed() ^ 64'hd4a_0002);
        src_rng  = new(run_seed() ^ 64'hd4a_0003);
        sink_rng = new(run_seed() ^ 64'hd4a_0004);
    end

    // Knobs, per phase.
    int unsigned mem_stall_pct = 0, mem_lat_min = 0, mem_lat_max = 1, m_stall_pct = 0, s_idle_pct = 0, post_pct = 50;
    bit          line_check = 1'b0;      // no gap inside a TX packet, no refused beat inside an RX packet

    class pkt;
        byte unsigned b[$];
    endclass

    // ---- host memory
    `include "p4f_tb_host_mem.svh"

    // The RX descriptors posted and not yet finished, oldest first (the one being filled).
    class rx_desc;
        int unsigned     slot;
        longint unsigned daddr, addr;
        int unsigned     size;
        bit              bad;
        logic [7:0]      d[16];      // the descriptor as posted
        logic [7:0]      canary[$];  // the buffer as posted, and 16 bytes after it
    endclass
    rx_desc rxq[$];

    function automatic bit write_ok(input longint unsigned a);
        if (rxq.size() == 0) return 1'b0;
        if (a >= rxq[0].daddr + 12 && a < rxq[0].daddr + 15) return 1'b1;
        return !rxq[0].bad && a >= rxq[0].addr && a < rxq[0].addr + longint'(rxq[0].size);
    endfunction

    longint unsigned   rsp_due[$];
    logic [DATA_W-1:0] rsp_data[$];
    longint unsigned   last_due = 0, reads = 0, writes = 0, mem_reqs = 0, max_out = 0;
    bit                req_stalled = 1'b0;
    logic [64+DATA_W+KEEP_W:0] req_prev;

    /* verilator lint_off BLKSEQ */
    always @(posedge clk) begin
        logic [64+DATA_W+KEEP_W:0] w;
        // wdata is free on a read.
        w = {mem_req_write, mem_req_addr, mem_req_write ? mem_req_wdata : '0, mem_req_wstrb};
        if (rst) begin
            rsp_due.delete();
            rsp_data.delete();
            req_stalled = 1'b0;
            mem_rsp_valid <= 1'b0;
            mem_req_ready <= 1'b0;
        end else begin
            if (req_stalled && (!mem_req_valid || w != req_prev)) fail($sformatf("memory request changed or withdrawn while stalled: %h -> %b %h", req_prev, mem_req_valid, w));
            req_stalled = mem_req_valid && !mem_req_ready;
            req_prev = w;
            if (mem_req_valid && mem_req_ready) begin
                mem_reqs++;
                if (mem_req_addr % 64'(KEEP_W) != 0) fail($sformatf("memory request at %h: not aligned", mem_req_addr));
                if (mem_req_write) begin
                    writes++;
                    if (mem_req_wstrb == '0) fail("write without byte enables");
                    for (int i = 0; i < KEEP_W; i++) if (mem_req_wstrb[i]) begin
                        if (!write_ok(mem_req_addr + longint'(i)))
                            fail($sformatf("write to byte %h, outside the current RX buffer and write-back", mem_req_addr + longint'(i)));
                        wr8(mem_req_addr + longint'(i), mem_req_wdata[8*i +: 8]);
                    end
                end else begin
                    logic [DATA_W-1:0] d;
                    longint unsigned due;
                    reads++;
                    for (int i = 0; i < KEEP_W; i++) d[8*i +: 8] = rd8(mem_req_addr + longint'(i));
                    due = cycle + 1 + longint'(mem_lat_min) + longint'(mem_rng.below(mem_lat_max + 1));
                    if (due <= last_due) due = last_due + 1;
                    last_due = due;
                    rsp_due.push_back(due);
                    rsp_data.push_back(d);
                    if (longint'(rsp_due.size()) > max_out) max_out = longint'(rsp_due.size());
                    if (rsp_due.size() > RSP_DEPTH) fail($sformatf("%0d reads in flight, over RSP_DEPTH", rsp_due.size()));
                end
            end
            if (rsp_due.size() != 0 && rsp_due[0] <= cycle) begin
                mem_rsp_valid <= 1'b1;
                mem_rsp_rdata <= rsp_data.pop_front();
                void'(rsp_due.pop_front());
            end else begin
                mem_rsp_valid <= 1'b0;
            end
            mem_req_ready <= mem_rng.below(100) >= mem_stall_pct;
        end
    end

    // ---- m_axis sink: TX packets out
    pkt              tx_exp[$];          // good TX packets posted, in order
    pkt              tx_cur = new;
    longint unsigned tx_rcv = 0;
    bit              m_stalled = 1'b0, m_in_pkt = 1'b0;
    logic [DATA_W+KEEP_W:0] m_prev;

    always @(posedge clk) begin
        logic [DATA_W+KEEP_W:0] w;
        w = {m_tlast, m_tkeep, m_tdata};
        if (rst) begin
            m_stalled = 1'b0;
            m_tready <= 1'b0;
            tx_cur = new;
        end else begin
            if (m_stalled && (!m_tvalid || w != m_prev)) fail("m_axis beat changed or withdrawn while stalled");
            m_stalled = m_tvalid && !m_tready;
            m_prev = w;
            if (line_check && m_in_pkt && !m_tvalid) fail("line rate: a gap inside a TX packet on m_axis");
            if (m_tvalid && m_tready) m_in_pkt = !m_tlast;
            if (m_tvalid && m_tready) begin
                automatic int n = $countones(m_tkeep);
                if (m_tkeep != KEEP_W'((1 << n) - 1) || n == 0 || (!m_tlast && n != KEEP_W))
                    fail($sformatf("m_axis tkeep %b (last %b)", m_tkeep, m_tlast));
                for (int i = 0; i < n; i++) tx_cur.b.push_back(m_tdata[8*i +: 8]);
                if (m_tlast) begin
                    if (tx_exp.size() == 0) begin
                        fail($sformatf("m_axis: a packet of %0d bytes, none expected", tx_cur.b.size()));
                    end else begin
                        automatic pkt e = tx_exp.pop_front();
                        if (e.b != tx_cur.b)
                            fail($sformatf("m_axis packet %0d: %0d bytes, want %0d, or different bytes", tx_rcv, tx_cur.b.size(), e.b.size()));
                    end
                    tx_rcv++;
                    tx_cur = new;
                end
            end
            m_tready <= sink_rng.below(100) >= m_stall_pct;
        end
    end

    // ---- s_axis source: RX packets in
    pkt              rx_sent[$];         // packets whose last beat was taken, in order
    pkt              src_pkt;
    int unsigned     src_pos = 0;
    longint unsigned rx_limit = 0, rx_started = 0;

    always @(posedge clk) begin
        if (rst) begin
            s_tvalid <= 1'b0;
            src_pkt = null;
        end else begin
            if (line_check && s_tvalid && !s_tready && src_pos != 0) fail("line rate: s_axis refused a beat inside a packet");
            if (s_tvalid && s_tready) begin
                if (s_tlast) begin
                    rx_sent.push_back(src_pkt);
                    src_pkt = null;
                end else begin
                    src_pos += KEEP_W;
                end
            end
            if (!s_tvalid || s_tready) begin
                if (src_pkt == null && rx_started < rx_limit && src_rng.below(100) >= s_idle_pct) begin
                    automatic int len = 1 + int'(src_rng.below(MAX_PKT));
                    src_pkt = new;
                    for (int i = 0; i < len; i++) src_pkt.b.push_back(8'(src_rng.next()));
                    src_pos = 0;
                    rx_started++;
                end
                if (src_pkt != null && (src_pos == 0 || src_rng.below(100) >= s_idle_pct)) begin
                    automatic int n = src_pkt.b.size() - int'(src_pos);
                    if (n > KEEP_W) n = KEEP_W;
                    for (int i = 0; i < KEEP_W; i++) begin
                        s_tdata[8*i +: 8] <= i < n ? src_pkt.b[src_pos + i] : 8'(src_rng.next());
                        s_tkeep[i] <= i < n;
                    end
                    s_tlast <= src_pos + KEEP_W >= src_pkt.b.size();
                    s_tvalid <= 1'b1;
                end else begin
                    s_tvalid <= 1'b0;
                end
            end
        end
    end

    // ---- software
    int unsigned     tx_entries, rx_entries;
    int unsigned     sw_tx_head = 0, sw_rx_head = 0, tx_posted = 0, rx_posted = 0;
    bit              tx_bad_q[$];
    longint unsigned tx_limit = 0, tx_posted_total = 0, tx_good_done = 0;
    longint unsigned rx_good_posted = 0, rx_good_done = 0;
    longint unsigned exp_tx_pkts = 0, exp_rx_pkts = 0, exp_trunc = 0, exp_errors = 0;
    longint unsigned tot_tx = 0, tot_rx = 0, tot_trunc = 0, tot_err = 0, tx_wraps = 0, rx_wraps = 0;
    bit              sw_on = 1'b0;

    function automatic longint unsigned ring_desc(input logic [63:0] base, input int unsigned slot);
        return (base & ~64'hf) + 16 * longint'(slot);
    endfunction

    task automatic post_tx();
        int unsigned     slot = int'(tx_tail);
        longint unsigned buf_addr = TX_BUF + 64'h1000 * longint'(slot);
        int unsigned     len = 1 + sw_rng.below(MAX_PKT);
        bit              bad = sw_rng.below(12) == 0;
        longint unsigned d = ring_desc(tx_ring_base, slot);
        if (bad) begin
            if (sw_rng.below(2) == 0) buf_addr += 1 + longint'(sw_rng.below(KEEP_W - 1));
            else len = 0;
        end else begin
            pkt p = new;
            for (int i = 0; i < int'(len); i++) begin
                p.b.push_back(8'(sw_rng.next()));
                wr8(buf_addr + longint'(i), p.b[i]);
            end
            tx_exp.push_back(p);
        end
        wr_le(d, 8, buf_addr);
        wr_le(d + 8, 8, longint'(len));
        tx_bad_q.push_back(bad);
        tx_posted++;
        tx_posted_total++;
        tx_tail = RING_W'((slot + 1) % tx_entries);
    endtask

    task automatic post_rx();
        rx_desc r = new;
        r.slot = int'(rx_tail);
        r.daddr = ring_desc(rx_ring_base, r.slot);
        r.addr = RX_BUF + 64'h1000 * longint'(r.slot);
        r.size = 64 + sw_rng.below(MAX_PKT + 40 - 64);
        r.bad = sw_rng.below(12) == 0;
        if (r.bad) begin
            if (sw_rng.below(2) == 0) r.addr += 1 + longint'(sw_rng.below(KEEP_W - 1));
            else r.size = sw_rng.below(64);
        end else begin
            for (int i = 0; i < int'(r.size) + 16; i++) begin
                logic [7:0] c = 8'(sw_rng.next());
                r.canary.push_back(c);
                wr8(r.addr + longint'(i), c);
            end
            rx_good_posted++;
        end
        for (int i = 0; i < 8; i++) r.d[i] = 8'(r.addr >> (8 * i));
        r.d[8] = 8'(r.size);
        r.d[9] = 8'(r.size >> 8);
        for (int i = 10; i < 16; i++) r.d[i] = 8'(sw_rng.next());
        for (int i = 0; i < 16; i++) wr8(r.daddr + longint'(i), r.d[i]);
        rxq.push_back(r);
        rx_posted++;
        rx_tail = RING_W'((r.slot + 1) % rx_entries);
    endtask

    // A finished RX descriptor: its write-back and buffer.
    task automatic check_rx(input rx_desc r);
        int unsigned len = int'(rd_le(r.daddr + 12, 2));
        logic [7:0]  flags = rd8(r.daddr + 14);
        for (int i = 0; i < 16; i++)
            if ((i < 12 || i == 15) && rd8(r.daddr + longint'(i)) != r.d[i])
                fail($sformatf("RX descriptor %0d: byte %0d changed", r.slot, i));
        if (r.bad) begin
            exp_errors++;
            if (len != 0 || flags != 8'h04) fail($sformatf("bad RX descriptor %0d: length %0d flags %h, want 0 and 04", r.slot, len, flags));
            return;
        end
        if (rx_sent.size() == 0) begin
            fail($sformatf("RX descriptor %0d finished (length %0d) before a packet was sent", r.slot, len));
            return;
        end
        begin
            pkt p = rx_sent.pop_front();
            int unsigned want = p.b.size() > r.size ? r.size : p.b.size();
            logic [7:0] want_flags = p.b.size() > r.size ? 8'h03 : 8'h01;
            exp_rx_pkts++;
            if (p.b.size() > r.size) exp_trunc++;
            rx_good_done++;
            if (len != want || flags != want_flags)
                fail($sformatf("RX descriptor %0d (size %0d, packet %0d bytes): length %0d flags %h, want %0d and %h",
                               r.slot, r.size, p.b.size(), len, flags, want, want_flags));
            for (int i = 0; i < int'(r.size) + 16; i++) begin
                logic [7:0] w = i < int'(want) ? p.b[i] : r.canary[i];
                if (rd8(r.addr + longint'(i)) != w) begin
                    fail($sformatf("RX descriptor %0d (size %0d, packet %0d bytes): buffer byte %0d is %h, want %h%s",
                                   r.slot, r.size, p.b.size(), i, rd8(r.addr + longint'(i)), w, i < int'(want) ? "" : " (canary)"));
                    break;
                end
            end
        end
    endtask

    always @(negedge clk) begin
        if (!rst && sw_on) begin
            // Finished descriptors.
            while (sw_tx_head != int'(tx_head)) begin
                automatic bit bad = tx_bad_q.pop_front();
                if (tx_posted == 0) begin
                    fail("tx_head moved past tx_tail");
                    break;
                end
                tx_posted--;
                if (bad) begin
                    exp_errors++;
                end else begin
                    exp_tx_pkts++;
                    tx_good_done++;
                    if (tx_good_done > tx_rcv) fail($sformatf("tx_head moved past packet %0d before it left", tx_good_done - 1));
                end
                sw_tx_head = (sw_tx_head + 1) % tx_entries;
                if (sw_tx_head == 0) tx_wraps++;
            end
            while (sw_rx_head != int'(rx_head)) begin
                if (rx_posted == 0) begin
                    fail("rx_head moved past rx_tail");
                    break;
                end
                check_rx(rxq.pop_front());
                rx_posted--;
                sw_rx_head = (sw_rx_head + 1) % rx_entries;
                if (sw_rx_head == 0) rx_wraps++;
            end
            // New descriptors.
            if (tx_posted_total < tx_limit && tx_posted < tx_entries - 1 && sw_rng.below(100) < post_pct) post_tx();
            if (rx_good_posted < rx_limit && rx_posted < rx_entries - 1 && sw_rng.below(100) < post_pct) post_rx();
        end
    end
    /* verilator lint_on BLKSEQ */

    // ---- phases
    task automatic phase(input string name, input int unsigned tx_log2, input int unsigned rx_log2,
                         input int unsigned tx_n, input int unsigned rx_n, input int unsigned mem_stall,
                         input int unsigned lat, input int unsigned m_stall, input int unsigned s_idle,
                         input bit hold_enable, input bit line_rate);
        longint unsigned t0;
        // Reset: the queues restart from index 0.
        @(negedge clk);
        rst = 1'b1;
        sw_on = 1'b0;
        enable = 1'b0;
        repeat (3) @(negedge clk);
        if (rxq.size() != 0 || tx_exp.size() != 0 || rx_sent.size() != 0 || tx_bad_q.size() != 0)
            fail("the model is not empty between phases");
        tx_ring_log2 = 5'(tx_log2);
        rx_ring_log2 = 5'(rx_log2);
        tx_entries = 1 << (tx_log2 > RING_W ? RING_W : tx_log2);
        rx_entries = 1 << (rx_log2 > RING_W ? RING_W : rx_log2);
        tx_ring_base = 64'h0000_0000_1000_0000 + 64'h10 * 64'(sw_rng.below(4096));
        rx_ring_base = 64'h0000_0000_2000_0000 + 64'h10 * 64'(sw_rng.below(4096));
        tx_tail = '0; rx_tail = '0;
        sw_tx_head = 0; sw_rx_head = 0; tx_posted = 0; rx_posted = 0;
        tx_limit = tx_posted_total + longint'(tx_n);
        rx_good_posted = 0; rx_good_done = 0;
        rx_limit = longint'(rx_n);
        rx_started = 0;
        exp_tx_pkts = 0; exp_rx_pkts = 0; exp_trunc = 0; exp_errors = 0;
        mem_stall_pct = mem_stall; mem_lat_max = lat; m_stall_pct = m_stall; s_idle_pct = s_idle;
        rst = 1'b0;
        sw_on = 1'b1;
        t0 = cycle;
        if (hold_enable) begin
            // Descriptors posted, a packet offered: with enable low nothing may move.
            post_pct = 100;
            repeat (300) begin
                @(negedge clk);
                if (mem_req_valid || m_tvalid || s_tready || tx_head != 0 || rx_head != 0)
                    fail("activity while enable is low");
            end
        end
        post_pct = line_rate ? 100 : 30 + sw_rng.below(70);
        line_check = line_rate;
        // At line rate the memory answers every read after the same latency (a random one would
        // leave gaps in the responses), long enough that the read credits must cover it.
        mem_lat_min = line_rate ? 3 : 0;
        enable = 1'b1;
        while (tx_posted_total < tx_limit || tx_posted != 0 || rx_good_done < rx_limit || rx_posted != 0) begin
            @(negedge clk);
            if (cycle - t0 > 400000) begin
                fail($sformatf("%s: timeout: TX %0d posted, %0d to go; RX %0d of %0d done, %0d posted",
                               name, tx_posted_total, tx_posted, rx_good_done, rx_limit, rx_posted));
                break;
            end
        end
        repeat (5) @(negedge clk);
        line_check = 1'b0;
        if (tx_exp.size() != 0) fail($sformatf("%s: %0d TX packets never left", name, tx_exp.size()));
        if (64'(tx_packets) != exp_tx_pkts || 64'(rx_packets) != exp_rx_pkts || 64'(rx_truncated) != exp_trunc
                || 64'(desc_errors) != exp_errors)
            fail($sformatf("%s: counters tx %0d rx %0d truncated %0d errors %0d, want %0d %0d %0d %0d", name,
                           tx_packets, rx_packets, rx_truncated, desc_errors, exp_tx_pkts, exp_rx_pkts, exp_trunc, exp_errors));
        tot_tx += exp_tx_pkts; tot_rx += exp_rx_pkts; tot_trunc += exp_trunc; tot_err += exp_errors;
        $display("phase %-22s rings %2d/%2d  mem stall %2d%% lat %0d..%2d  m stall %2d%% s idle %2d%%: tx %0d rx %0d (%0d truncated) bad %0d, %0d cycles",
                 name, tx_entries, rx_entries, mem_stall, mem_lat_min, mem_lat_min + lat, m_stall, s_idle, exp_tx_pkts, exp_rx_pkts, exp_trunc,
                 exp_errors, cycle - t0);
    endtask

    initial begin
        $display("tb_p4f_host_dma: seed %0d, DATA_W %0d, RING_W %0d", run_seed(), DATA_W, RING_W);
        phase("enable held, mixed",  4, 2, 120, 120, 30,  8, 30, 30, 1'b1, 1'b0);
        phase("fast memory",         1, 3, 100, 100,  0,  1,  0,  0, 1'b0, 1'b0);
        phase("slow memory",         3, 4, 100, 100, 60, 20, 10, 10, 1'b0, 1'b0);
        phase("heavy backpressure",  2, 1,  80,  80, 20,  4, 85, 85, 1'b0, 1'b0);
        phase("log2 over RING_W",    6, 4, 100, 100, 10,  3,  5,  5, 1'b0, 1'b0);
        phase("TX alone, line rate", 3, 2,  60,   0,  0,  0,  0,  0, 1'b0, 1'b1);
        phase("RX alone, line rate", 2, 3,   0,  60,  0,  0,  0,  0, 1'b0, 1'b1);
        if (tx_wraps == 0 || rx_wraps == 0 || tot_trunc == 0 || tot_err == 0)
            fail($sformatf("not exercised: %0d TX wraps, %0d RX wraps, %0d truncated, %0d bad descriptors",
                           tx_wraps, rx_wraps, tot_trunc, tot_err));
        if (errors == 0) begin
            $display("PASS tb_p4f_host_dma (seed %0d): %0d TX and %0d RX packets (%0d truncated), %0d bad descriptors, %0d/%0d ring wraps, %0d reads, %0d writes, at most %0d reads in flight",
                     run_seed(), tot_tx, tot_rx, tot_trunc, tot_err, tx_wraps, rx_wraps, reads, writes, max_out);
            $finish;
        end else begin
            $fatal(1, "FAIL tb_p4f_host_dma (seed %0d): %0d failed checks", run_seed(), errors);
        end
    end

endmodule

`default_nettype wire

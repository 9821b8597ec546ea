// Testbench for p4f_host_dma_mq (NQ 4, DATA_W 64, RING_W 4 so that rings wrap often; the RX queue in
// the top two bits of byte 0 of a packet, QSEL_BYTE 0 and QSEL_LSB 6, as the VDP pipeline's dma
// header puts it): a host-memory model and one software model per queue around the module, packets
// both ways on every queue.
//
// Host memory: a byte array. Each cycle m_mem_req_ready is drawn at random; a write is applied when
// taken, a read's data is taken when the read is taken and answered in order after a random latency.
// Queue q's rings and buffers lie in their own 16 MB window (address bits 27:24 = q), so the queue a
// request serves is known from its address. Checked on every request: aligned address; a stalled
// request stays unchanged; a write touches only bytes it may: those of the current RX descriptor of
// the queue whose window it falls in (its buffer's first `size` bytes, none for a refused descriptor,
// or its write-back bytes 12..14); at most RSP_DEPTH reads of one queue in flight.
//
// Software, TX, per queue: writes a packet of random length (1..300 bytes, a tenth of them 1..8)
// into the buffer of the slot at the tail and its descriptor, then advances that queue's tx_tail,
// while the ring has room. Byte 0 of a packet is its queue, bytes 1..2 its number in the queue (the
// stream carries no queue id: the packets name themselves). About 1 in 12 descriptors is bad
// (misaligned buffer or length 0). The m_axis sink (random tready) takes each packet whole and
// checks it byte for byte against the oldest good packet of the queue its byte 0 names (so a packet
// out of its queue's order, or two packets interleaved, is an error), tkeep contiguous and full but
// on the last beat, and a stalled beat unchanged. When a queue's tx_head moves past a descriptor, its
// buffer and the descriptor are overwritten with junk at once (a read after that would corrupt the
// packet), and the packets whose head has moved but that have not left m_axis, all queues together,
// must fit in the arbiter's output register (2 beats).
//
// Software, RX, per queue: posts descriptors with random buffer sizes (64..339, so some packets are
// truncated), about 1 in 12 bad (misaligned or size under 64), a good buffer and the 16 bytes after
// it filled with canary bytes. The s_axis source (random idle cycles) sends packets of 1..300 random
// bytes (an eighth of them 1..8 bytes, one beat), each for a random queue: the queue number in bits
// [QSEL_LSB +: 2] of byte QSEL_BYTE; that byte of every later beat names another queue, so only the
// first beat may choose. A packet's first beat must not be taken before a good descriptor of its
// queue is posted for it. When a queue's rx_head moves past a descriptor: bytes 0..11 and 15 are
// unchanged; a bad one has length 0, flags 4; a good one holds the next packet sent to that queue:
// length min(packet, size), flags 1 (3 if truncated), the buffer the packet's first bytes and the
// canary after them.
//
// Phases, each after a reset, with random ring sizes per queue and direction (2 to 16 entries, and
// a log2 above RING_W), ring bases, memory stall and latency, m_axis stall and s_axis idle odds:
//  - enable held: all four enables low for 300 cycles with descriptors posted and a packet offered:
//    nothing may move; then one queue's enable stays low for 3000 more cycles while the others run
//    (the source sends it nothing meanwhile): it must not touch memory, move a head or count, and
//    the others must send and receive packets;
//  - RX queue starved: one queue gets no RX descriptors until a packet for it has waited at the head
//    of s_axis for 1000 cycles (s_axis_tready low all along: nothing taken, nothing lost) while the
//    other queues' TX must go on; then its descriptors are posted and everything completes;
//  - line-rate phases (memory always ready, every read answered 5 cycles after it is taken, no
//    stalls, no idle cycles, rings of 16 kept full). With every queue: TX alone, RX alone, both;
//    inside an RX packet s_axis may refuse a beat only in a cycle the memory takes another request
//    (the channel is shared: no bubble); the beats per cycle each way and the memory's requests per
//    cycle are printed (one RX beat per cycle is not reachable: each packet also needs its
//    write-back and the next descriptor's reads on the one channel, and a packet for a queue still
//    busy with those waits). With one queue alone, TX then RX: no gap inside a TX packet on m_axis
//    and no beat refused inside an RX packet, as for p4f_host_dma.
// The memory arbiter's round robin is checked inside the module (the engines' requests are not
// ports): a waiting request is passed over by at most NQ-1 requests of other queues.
// After each phase the four counters of every queue must equal the model's; over the run every
// queue's rings must have wrapped, truncated packets and bad descriptors must have occurred, and
// some request must have been passed over NQ-1 times.
// +seed=N. Also passes with -GQSEL_BYTE=5 (a packet shorter than 6 bytes then goes to queue 0 whatever
// its padding says) and -GNQ=2 or 1.
`timescale 1ns / 1ps
`default_nettype none

module tb_p4f_host_dma_mq #(
    parameter int NQ        = 4,             // 4 in `make sim`
    parameter int QSEL_BYTE = 0              // 0 in `make sim`
);
    import p4f_tb_pkg::*;

    localparam int DATA_W    = 64;
    localparam int KEEP_W    = DATA_W / 8;
    localparam int RING_W    = 4;
    localparam int RSP_DEPTH = 8;            // the module's default
    localparam int QW        = NQ > 1 ? $clog2(NQ) : 1;
    localparam int QSEL_LSB  = 8 - QW;       // the queue in the top bits of the byte: 6 for NQ 4
    localparam logic [7:0] QSEL_MASK = 8'(((1 << QW) - 1) << QSEL_LSB);
    localparam int MAX_PKT   = 300;          // packet bytes, both ways
    localparam longint unsigned TX_RING  = 64'h0000_0000_1000_0000;
    localparam longint unsigned RX_RING  = 64'h0000_0000_2000_0000;
    localparam longint unsigned TX_BUF   = 64'h0000_0001_0000_0000;
    localparam longint unsigned RX_BUF   = 64'h0000_0002_0000_0000;
    localparam longint unsigned Q_STRIDE = 64'h0000_0000_0100_0000; // queue q's window: + q * Q_STRIDE

    logic clk;
    initial clk = 1'b0;
    logic rst = 1'b1;
    always #2 clk = ~clk;

    longint unsigned cycle = 0;
    always @(posedge clk) cycle <= cycle + 1;

    // ---- DUT
    logic [NQ-1:0]        enable = '0;
    logic [NQ*64-1:0]     tx_ring_base = '0, rx_ring_base = '0;
    logic [NQ*5-1:0]      tx_ring_log2 = '0, rx_ring_log2 = '0;
    logic [NQ*RING_W-1:0] tx_tail = '0, rx_tail = '0, tx_head, rx_head;
    logic [NQ*32-1:0]     tx_packets, rx_packets, rx_truncated, desc_errors;
    logic                 mem_req_valid, mem_req_ready = 1'b0, mem_req_write, mem_rsp_valid = 1'b0;
    logic [63:0]          mem_req_addr;
    logic [DATA_W-1:0]    mem_req_wdata, mem_rsp_rdata;
    logic [KEEP_W-1:0]    mem_req_wstrb;
    logic [DATA_W-1:0]    m_tdata, s_tdata;
    logic [KEEP_W-1:0]    m_tkeep, s_tkeep;
    logic                 m_tvalid, m_tready = 1'b0, m_tlast, s_tvalid = 1'b0, s_tready, s_tlast;

    p4f_host_dma_mq #(.NQ(NQ), .DATA_W(DATA_W), .RING_W(RING_W), .RSP_DEPTH(RSP_DEPTH),
                      .QSEL_BYTE(QSEL_BYTE), .QSEL_LSB(QSEL_LSB)) dut (
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

    function automatic int unsigned head_tx(input int q);
        return int'(tx_head[q*RING_W +: RING_W]);
    endfunction
    function automatic int unsigned head_rx(input int q);
        return int'(rx_head[q*RING_W +: RING_W]);
    endfunction
    function automatic int unsigned tail_tx(input int q);
        return int'(tx_tail[q*RING_W +: RING_W]);
    endfunction
    function automatic int unsigned tail_rx(input int q);
        return int'(rx_tail[q*RING_W +: RING_W]);
    endfunction
    function automatic longint unsigned cnt(input logic [NQ*32-1:0] v, input int q);
        return longint'(v[q*32 +: 32]);
    endfunction
    // The queue whose window holds an address (NQ or more: none).
    function automatic int addr_q(input longint unsigned a);
        return int'((a >> 24) & 64'hf);
    endfunction

    int unsigned errors = 0;
    function automatic void fail(input string what);
        errors++;
        if (errors <= 10) $display("[%0t] ERROR %s", $time, what);
    endfunction

    prng mem_rng, sw_rng, src_rng, sink_rng;
    initial begin
        mem_rng  = new(run_seed() ^ 64'hd4b_0001);
        sw_rng   = new(run_seed() ^ 64'hd4b_0002);
        src_rng  = new(run_seed() ^ 64'hd4b_0003);
        sink_rng = new(run_seed() ^ 64'hd4b_0004);
    end

    // Knobs, per phase.
    int unsigned mem_stall_pct = 0, mem_lat_min = 0, mem_lat_max = 1, m_stall_pct = 0, s_idle_pct = 0, post_pct = 50;
    bit          line_check = 1'b0;      // inside an RX packet, s_axis refuses a beat only while the memory is busy
    bit          line_strict = 1'b0;     // no gap inside a TX packet, no beat refused inside an RX packet
    int          quiet_q = -1;           // a queue whose enable is low: no request, no packet
    int          starve_q = -1;          // a queue that gets no RX descriptors
    bit [NQ-1:0] rx_allow = '1;          // the queues the source may send to

    class pkt;
        int          q;
        byte unsigned b[$];
    endclass

    // The RX descriptors posted and not yet finished, oldest first (the one being filled).
    class rx_desc;
        int unsigned     slot;
        longint unsigned daddr, addr;
        int unsigned     size;
        bit              bad;
        logic [7:0]      d[16];      // the descriptor as posted
        logic [7:0]      canary[$];  // the buffer as posted, and 16 bytes after it
    endclass

    // One queue's software and scoreboard (an object each: this Verilator merges the queues of an
    // unpacked array of queues).
    class qmodel;
        // TX
        pkt              tx_exp[$];          // good packets posted, not yet out, in order
        bit              tx_bad_q[$];        // posted descriptors, bad or not, in order
        int unsigned     tx_entries, sw_tx_head, tx_posted;
        longint unsigned tx_limit, tx_posted_total, tx_good_done, tx_rcv, tx_seq;
        longint unsigned tx_base;
        // RX
        rx_desc          rxq[$];
        pkt              rx_sent[$];         // packets for this queue whose last beat was taken, in order
        int unsigned     rx_entries, sw_rx_head, rx_posted;
        longint unsigned rx_limit, rx_good_posted, rx_good_done, rx_started, rx_avail;
        longint unsigned rx_base;
        // Counters, this phase and the run.
        longint unsigned exp_tx, exp_rx, exp_trunc, exp_err;
        longint unsigned tot_tx, tot_rx, tx_wraps, rx_wraps;
        int unsigned     inflight;           // reads taken and not answered
        function new();
            tx_posted_total = 0; tx_seq = 0; tot_tx = 0; tot_rx = 0; tx_wraps = 0; rx_wraps = 0; inflight = 0;
        endfunction
    endclass
    qmodel qs[NQ];
    initial for (int q = 0; q < NQ; q++) qs[q] = new;

    // ---- host memory
    `include "p4f_tb_host_mem.svh"

    function automatic bit write_ok(input longint unsigned a);
        int q = addr_q(a);
        rx_desc r;
        if (q >= NQ || qs[q].rxq.size() == 0) return 1'b0;
        r = qs[q].rxq[0];
        if (a >= r.daddr + 12 && a < r.daddr + 15) return 1'b1;
        return !r.bad && a >= r.addr && a < r.addr + longint'(r.size);
    endfunction

    longint unsigned   rsp_due[$];
    logic [DATA_W-1:0] rsp_data[$];
    int                rsp_q[$];
    longint unsigned   last_due = 0, reads = 0, writes = 0, mem_reqs = 0, max_out = 0, max_q_out = 0;
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
            rsp_q.delete();
            for (int q = 0; q < NQ; q++) qs[q].inflight = 0;
            req_stalled = 1'b0;
            mem_rsp_valid <= 1'b0;
            mem_req_ready <= 1'b0;
        end else begin
            if (req_stalled && (!mem_req_valid || w != req_prev)) fail($sformatf("memory request changed or withdrawn while stalled: %h -> %b %h", req_prev, mem_req_valid, w));
            req_stalled = mem_req_valid && !mem_req_ready;
            req_prev = w;
            if (mem_req_valid && quiet_q >= 0 && addr_q(mem_req_addr) == quiet_q)
                fail($sformatf("memory request at %h for queue %0d, whose enable is low", mem_req_addr, quiet_q));
            if (mem_req_valid && mem_req_ready) begin
                mem_reqs++;
                if (mem_req_addr % 64'(KEEP_W) != 0) fail($sformatf("memory request at %h: not aligned", mem_req_addr));
                if (mem_req_write) begin
                    writes++;
                    if (mem_req_wstrb == '0) fail("write without byte enables");
                    for (int i = 0; i < KEEP_W; i++) if (mem_req_wstrb[i]) begin
                        if (!write_ok(mem_req_addr + longint'(i)))
                            fail($sformatf("write to byte %h, outside its queue's current RX buffer and write-back", mem_req_addr + longint'(i)));
                        wr8(mem_req_addr + longint'(i), mem_req_wdata[8*i +: 8]);
                    end
                end else begin
                    logic [DATA_W-1:0] d;
                    longint unsigned due;
                    qmodel m;
                    automatic int q = addr_q(mem_req_addr);
                    reads++;
                    for (int i = 0; i < KEEP_W; i++) d[8*i +: 8] = rd8(mem_req_addr + longint'(i));
                    due = cycle + 1 + longint'(mem_lat_min) + longint'(mem_rng.below(mem_lat_max + 1));
                    if (due <= last_due) due = last_due + 1;
                    last_due = due;
                    rsp_due.push_back(due);
                    rsp_data.push_back(d);
                    if (q >= NQ) begin
                        fail($sformatf("read at %h, in no queue's window", mem_req_addr));
                        q = 0;
                    end
                    rsp_q.push_back(q);
                    m = qs[q];
                    m.inflight++;
                    if (longint'(rsp_due.size()) > max_out) max_out = longint'(rsp_due.size());
                    if (longint'(m.inflight) > max_q_out) max_q_out = longint'(m.inflight);
                    if (m.inflight > RSP_DEPTH) fail($sformatf("queue %0d: %0d reads in flight, over RSP_DEPTH", q, m.inflight));
                end
            end
            if (rsp_due.size() != 0 && rsp_due[0] <= cycle) begin
                automatic int    q = rsp_q.pop_front();
                automatic qmodel m = qs[q];
                mem_rsp_valid <= 1'b1;
                mem_rsp_rdata <= rsp_data.pop_front();
                void'(rsp_due.pop_front());
                m.inflight--;
            end else begin
                mem_rsp_valid <= 1'b0;
            end
            mem_req_ready <= mem_rng.below(100) >= mem_stall_pct;
        end
    end

    // The memory arbiter's round robin, seen inside the DUT (the engines' requests are not ports):
    // a request waiting is passed over by at most NQ-1 requests taken from other queues.
    int unsigned max_passed = 0;
    if (NQ > 1) begin : g_fair
        int unsigned passed [NQ];
        always @(posedge clk) begin
            if (rst) begin
                for (int q = 0; q < NQ; q++) passed[q] = 0;
            end else if (mem_req_valid && mem_req_ready) begin
                for (int q = 0; q < NQ; q++) begin
                    if (dut.g_many.e_req_valid[q] && !dut.g_many.e_req_ready[q]) begin
                        passed[q]++;
                        if (passed[q] > max_passed) max_passed = passed[q];
                        if (passed[q] > NQ - 1) fail($sformatf("queue %0d's memory request passed over %0d times", q, passed[q]));
                    end else begin
                        passed[q] = 0;
                    end
                end
            end
        end
    end

    // ---- m_axis sink: TX packets out
    pkt              tx_cur = new;
    bit              m_stalled = 1'b0, m_in_pkt = 1'b0;
    logic [DATA_W+KEEP_W:0] m_prev;
    longint unsigned m_beats = 0, m_gaps = 0, m_first = 0, m_last = 0;

    always @(posedge clk) begin
        logic [DATA_W+KEEP_W:0] w;
        w = {m_tlast, m_tkeep, m_tdata};
        if (rst) begin
            m_stalled = 1'b0;
            m_in_pkt = 1'b0;
            m_tready <= 1'b0;
            tx_cur = new;
        end else begin
            if (m_stalled && (!m_tvalid || w != m_prev)) fail("m_axis beat changed or withdrawn while stalled");
            m_stalled = m_tvalid && !m_tready;
            m_prev = w;
            if (m_in_pkt && !m_tvalid) begin
                m_gaps++;
                if (line_strict) fail("line rate, one queue: a gap inside a TX packet on m_axis");
            end
            if (m_tvalid && m_tready) begin
                automatic int n = $countones(m_tkeep);
                if (m_beats == 0) m_first = cycle;
                m_last = cycle;
                m_beats++;
                m_in_pkt = !m_tlast;
                if (m_tkeep != KEEP_W'((1 << n) - 1) || n == 0 || (!m_tlast && n != KEEP_W))
                    fail($sformatf("m_axis tkeep %b (last %b)", m_tkeep, m_tlast));
                for (int i = 0; i < n; i++) tx_cur.b.push_back(m_tdata[8*i +: 8]);
                if (m_tlast) begin
                    automatic int q = int'(tx_cur.b[0]);
                    if (q >= NQ) begin
                        fail($sformatf("m_axis: a packet of %0d bytes whose byte 0 (%0d) names no queue", tx_cur.b.size(), q));
                    end else begin
                        // Through a handle: with NQ 1 this Verilator pops qs[q].tx_exp twice.
                        automatic qmodel m = qs[q];
                        if (q == quiet_q) fail($sformatf("m_axis: a packet from queue %0d, whose enable is low", q));
                        if (m.tx_exp.size() == 0) begin
                            fail($sformatf("m_axis: a packet of %0d bytes for queue %0d, none expected", tx_cur.b.size(), q));
                        end else begin
                            automatic pkt e = m.tx_exp.pop_front();
                            if (e.b != tx_cur.b)
                                fail($sformatf("m_axis: queue %0d packet %0d: %0d bytes, want %0d, or different bytes (interleaved, reordered or corrupt)",
                                               q, m.tx_rcv, tx_cur.b.size(), e.b.size()));
                        end
                        m.tx_rcv++;
                    end
                    tx_cur = new;
                end
            end
            m_tready <= sink_rng.below(100) >= m_stall_pct;
        end
    end

    // ---- s_axis source: RX packets in, each for a random queue
    pkt              src_pkt;
    int unsigned     src_pos = 0;
    longint unsigned s_beats = 0, s_first = 0, s_last = 0, s_refused_in = 0, s_refused_first = 0, rx_multi = 0;

    function automatic byte unsigned with_q(input byte unsigned b, input int q);
        return (b & ~QSEL_MASK) | (8'(q) << QSEL_LSB);
    endfunction

    function automatic pkt make_rx_pkt(input int q);
        pkt p = new;
        int len = src_rng.below(8) == 0 ? 1 + int'(src_rng.below(KEEP_W)) : 1 + int'(src_rng.below(MAX_PKT));
        if (q != 0 && len <= QSEL_BYTE) len = QSEL_BYTE + 1 + int'(src_rng.below(MAX_PKT - QSEL_BYTE));
        p.q = q;
        for (int i = 0; i < len; i++) p.b.push_back(8'(src_rng.next()));
        // A first beat not covering QSEL_BYTE goes to queue 0 (only q 0 gets such packets).
        if (len > QSEL_BYTE) p.b[QSEL_BYTE] = with_q(p.b[QSEL_BYTE], q);
        // Later beats name other queues in that byte.
        if (NQ > 1)
            for (int i = KEEP_W + QSEL_BYTE; i < len; i += KEEP_W)
                p.b[i] = with_q(p.b[i], (q + 1 + int'(src_rng.below(NQ - 1))) % NQ);
        if (len > KEEP_W) rx_multi++;
        return p;
    endfunction

    // A queue the source may send to and that has packets left this phase (-1: none).
    function automatic int pick_q();
        int c[$];
        for (int q = 0; q < NQ; q++) if (rx_allow[q] && qs[q].rx_started < qs[q].rx_limit) c.push_back(q);
        if (c.size() == 0) return -1;
        return c[src_rng.below(c.size())];
    endfunction

    always @(posedge clk) begin
        if (rst) begin
            s_tvalid <= 1'b0;
            src_pkt = null;
        end else begin
            if (s_tvalid && !s_tready) begin
                if (src_pos == 0) s_refused_first++;
                else begin
                    s_refused_in++;
                    if (line_strict) fail("line rate, one queue: s_axis refused a beat inside a packet");
                    if (line_check && !(mem_req_valid && mem_req_ready))
                        fail("line rate: s_axis refused a beat inside a packet while the memory took no request");
                end
            end
            if (s_tvalid && s_tready) begin
                if (s_beats == 0) s_first = cycle;
                s_last = cycle;
                s_beats++;
                if (src_pos == 0) begin
                    automatic qmodel m = qs[src_pkt.q];
                    if (src_pkt.q == quiet_q) fail($sformatf("s_axis: a packet taken for queue %0d, whose enable is low", src_pkt.q));
                    if (m.rx_avail == 0)
                        fail($sformatf("s_axis: a packet for queue %0d taken while no RX descriptor of that queue is posted for it", src_pkt.q));
                    else
                        m.rx_avail--;
                end
                if (s_tlast) begin
                    automatic qmodel m = qs[src_pkt.q];
                    m.rx_sent.push_back(src_pkt);
                    src_pkt = null;
                end else begin
                    src_pos += KEEP_W;
                end
            end
            if (!s_tvalid || s_tready) begin
                if (src_pkt == null && src_rng.below(100) >= s_idle_pct) begin
                    automatic int q = pick_q();
                    if (q >= 0) begin
                        automatic qmodel m = qs[q];
                        src_pkt = make_rx_pkt(q);
                        src_pos = 0;
                        m.rx_started++;
                    end
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
    bit sw_on = 1'b0;

    function automatic longint unsigned ring_desc(input longint unsigned base, input int unsigned slot);
        return (base & ~64'hf) + 16 * longint'(slot);
    endfunction
    function automatic longint unsigned tx_buf(input int q, input int unsigned slot);
        return TX_BUF + Q_STRIDE * longint'(q) + 64'h1000 * longint'(slot);
    endfunction

    task automatic post_tx(input int q);
        qmodel           m = qs[q];
        int unsigned     slot = tail_tx(q);
        longint unsigned buf_addr = tx_buf(q, slot);
        int unsigned     len = sw_rng.below(10) == 0 ? 1 + sw_rng.below(KEEP_W) : 1 + sw_rng.below(MAX_PKT);
        bit              bad = sw_rng.below(12) == 0;
        longint unsigned d = ring_desc(m.tx_base, slot);
        if (bad) begin
            if (sw_rng.below(2) == 0) buf_addr += 1 + longint'(sw_rng.below(KEEP_W - 1));
            else len = 0;
        end else begin
            pkt p = new;
            p.q = q;
            for (int i = 0; i < int'(len); i++) p.b.push_back(8'(sw_rng.next()));
            p.b[0] = 8'(q);
            if (len >= 3) begin
                p.b[1] = 8'(m.tx_seq);
                p.b[2] = 8'(m.tx_seq >> 8);
            end
            m.tx_seq++;
            for (int i = 0; i < int'(len); i++) wr8(buf_addr + longint'(i), p.b[i]);
            m.tx_exp.push_back(p);
        end
        wr_le(d, 8, buf_addr);
        wr_le(d + 8, 8, longint'(len));
        m.tx_bad_q.push_back(bad);
        m.tx_posted++;
        m.tx_posted_total++;
        tx_tail[q*RING_W +: RING_W] = RING_W'((slot + 1) % m.tx_entries);
    endtask

    task automatic post_rx(input int q);
        qmodel  m = qs[q];
        rx_desc r = new;
        r.slot = tail_rx(q);
        r.daddr = ring_desc(m.rx_base, r.slot);
        r.addr = RX_BUF + Q_STRIDE * longint'(q) + 64'h1000 * longint'(r.slot);
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
            m.rx_good_posted++;
            m.rx_avail++;
        end
        for (int i = 0; i < 8; i++) r.d[i] = 8'(r.addr >> (8 * i));
        r.d[8] = 8'(r.size);
        r.d[9] = 8'(r.size >> 8);
        for (int i = 10; i < 16; i++) r.d[i] = 8'(sw_rng.next());
        for (int i = 0; i < 16; i++) wr8(r.daddr + longint'(i), r.d[i]);
        m.rxq.push_back(r);
        m.rx_posted++;
        rx_tail[q*RING_W +: RING_W] = RING_W'((r.slot + 1) % m.rx_entries);
    endtask

    // A finished RX descriptor of queue q: its write-back and buffer.
    task automatic check_rx(input int q, input rx_desc r);
        qmodel       m = qs[q];
        int unsigned len = int'(rd_le(r.daddr + 12, 2));
        logic [7:0]  flags = rd8(r.daddr + 14);
        for (int i = 0; i < 16; i++)
            if ((i < 12 || i == 15) && rd8(r.daddr + longint'(i)) != r.d[i])
                fail($sformatf("queue %0d RX descriptor %0d: byte %0d changed", q, r.slot, i));
        if (r.bad) begin
            m.exp_err++;
            if (len != 0 || flags != 8'h04) fail($sformatf("queue %0d bad RX descriptor %0d: length %0d flags %h, want 0 and 04", q, r.slot, len, flags));
            return;
        end
        if (m.rx_sent.size() == 0) begin
            fail($sformatf("queue %0d RX descriptor %0d finished (length %0d) before a packet for the queue was sent", q, r.slot, len));
            return;
        end
        begin
            pkt p = m.rx_sent.pop_front();
            int unsigned want = p.b.size() > r.size ? r.size : p.b.size();
            logic [7:0] want_flags = p.b.size() > r.size ? 8'h03 : 8'h01;
            m.exp_rx++;
            if (p.b.size() > r.size) m.exp_trunc++;
            m.rx_good_done++;
            if (len != want || flags != want_flags)
                fail($sformatf("queue %0d RX descriptor %0d (size %0d, packet %0d bytes): length %0d flags %h, want %0d and %h",
                               q, r.slot, r.size, p.b.size(), len, flags, want, want_flags));
            for (int i = 0; i < int'(r.size) + 16; i++) begin
                logic [7:0] w = i < int'(want) ? p.b[i] : r.canary[i];
                if (rd8(r.addr + longint'(i)) != w) begin
                    fail($sformatf("queue %0d RX descriptor %0d (size %0d, packet %0d bytes): buffer byte %0d is %h, want %h%s",
                                   q, r.slot, r.size, p.b.size(), i, rd8(r.addr + longint'(i)), w, i < int'(want) ? "" : " (canary)"));
                    break;
                end
            end
        end
    endtask

    always @(negedge clk) begin
        if (!rst && sw_on) begin
            automatic longint unsigned not_out = 0;
            for (int q = 0; q < NQ; q++) begin
                automatic qmodel m = qs[q];
                // Finished descriptors.
                while (m.sw_tx_head != head_tx(q)) begin
                    automatic bit bad;
                    if (m.tx_posted == 0) begin
                        fail($sformatf("queue %0d: tx_head moved past tx_tail", q));
                        break;
                    end
                    bad = m.tx_bad_q.pop_front();
                    m.tx_posted--;
                    if (bad) begin
                        m.exp_err++;
                    end else begin
                        m.exp_tx++;
                        m.tx_good_done++;
                    end
                    // The buffer and the descriptor are free: junk in them now would show in a
                    // packet read after this.
                    for (int i = 0; i < MAX_PKT; i++) wr8(tx_buf(q, m.sw_tx_head) + longint'(i), 8'(sw_rng.next()));
                    for (int i = 0; i < 16; i++) wr8(ring_desc(m.tx_base, m.sw_tx_head) + longint'(i), 8'(sw_rng.next()));
                    m.sw_tx_head = (m.sw_tx_head + 1) % m.tx_entries;
                    if (m.sw_tx_head == 0) m.tx_wraps++;
                end
                if (m.tx_good_done > m.tx_rcv) not_out += m.tx_good_done - m.tx_rcv;
                while (m.sw_rx_head != head_rx(q)) begin
                    if (m.rx_posted == 0) begin
                        fail($sformatf("queue %0d: rx_head moved past rx_tail", q));
                        break;
                    end
                    check_rx(q, m.rxq.pop_front());
                    m.rx_posted--;
                    m.sw_rx_head = (m.sw_rx_head + 1) % m.rx_entries;
                    if (m.sw_rx_head == 0) m.rx_wraps++;
                end
                // New descriptors.
                if (m.tx_posted_total < m.tx_limit && m.tx_posted < m.tx_entries - 1 && sw_rng.below(100) < post_pct) post_tx(q);
                if (q != starve_q && m.rx_good_posted < m.rx_limit && m.rx_posted < m.rx_entries - 1 && sw_rng.below(100) < post_pct)
                    post_rx(q);
            end
            // A packet whose tx_head has moved has left its engine; the ones not out yet sit in the
            // arbiter's output register, two beats at most.
            if (not_out > 2) fail($sformatf("%0d packets past their tx_head have not left m_axis", not_out));
        end
    end
    /* verilator lint_on BLKSEQ */

    // ---- phases
    // M_LINE: line rate, every queue; M_LINE1: line rate, one queue alone (no bubble either way).
    typedef enum int { M_PLAIN, M_ENABLE, M_STARVE, M_LINE, M_LINE1 } mode_t;

    function automatic bit all_done();
        for (int q = 0; q < NQ; q++)
            if (qs[q].tx_posted_total < qs[q].tx_limit || qs[q].tx_posted != 0 || qs[q].rx_good_done < qs[q].rx_limit
                    || qs[q].rx_posted != 0)
                return 1'b0;
        return 1'b1;
    endfunction

    function automatic longint unsigned others(input logic [NQ*32-1:0] v, input int skip);
        longint unsigned s = 0;
        for (int q = 0; q < NQ; q++) if (q != skip) s += cnt(v, q);
        return s;
    endfunction

    longint unsigned tot_trunc = 0, tot_err = 0, tot_tx = 0, tot_rx = 0;

    task automatic phase(input string name, input int unsigned tx_n, input int unsigned rx_n, input int unsigned mem_stall,
                         input int unsigned lat, input int unsigned m_stall, input int unsigned s_idle, input mode_t mode);
        longint unsigned t0, mem0, trunc = 0, err = 0, ptx = 0, prx = 0;
        int              d = -1;
        string           rings = "";
        // Reset: the queues restart from index 0.
        @(negedge clk);
        rst = 1'b1;
        sw_on = 1'b0;
        enable = '0;
        repeat (3) @(negedge clk);
        if (mode == M_ENABLE || mode == M_STARVE || mode == M_LINE1) d = int'(sw_rng.below(NQ));
        for (int q = 0; q < NQ; q++) begin
            automatic qmodel m = qs[q];
            automatic bit    line = mode == M_LINE || mode == M_LINE1;
            automatic bit    on = mode != M_LINE1 || q == d;
            automatic int unsigned tl = line ? 4 : 1 + sw_rng.below(6);
            automatic int unsigned rl = line ? 4 : 1 + sw_rng.below(6);
            if (m.rxq.size() != 0 || m.tx_exp.size() != 0 || m.rx_sent.size() != 0 || m.tx_bad_q.size() != 0)
                fail($sformatf("queue %0d: the model is not empty between phases", q));
            tx_ring_log2[q*5 +: 5] = 5'(tl);
            rx_ring_log2[q*5 +: 5] = 5'(rl);
            m.tx_entries = 1 << (tl > RING_W ? RING_W : tl);
            m.rx_entries = 1 << (rl > RING_W ? RING_W : rl);
            rings = {rings, $sformatf(" %0d/%0d", m.tx_entries, m.rx_entries)};
            m.tx_base = TX_RING + Q_STRIDE * longint'(q) + 64'h10 * 64'(sw_rng.below(4096));
            m.rx_base = RX_RING + Q_STRIDE * longint'(q) + 64'h10 * 64'(sw_rng.below(4096));
            tx_ring_base[q*64 +: 64] = m.tx_base;
            rx_ring_base[q*64 +: 64] = m.rx_base;
            m.sw_tx_head = 0; m.sw_rx_head = 0; m.tx_posted = 0; m.rx_posted = 0;
            m.tx_limit = m.tx_posted_total + (on ? longint'(tx_n) : 0);
            m.tx_good_done = 0; m.tx_rcv = 0;
            m.rx_limit = on ? longint'(rx_n) : 0;
            m.rx_good_posted = 0; m.rx_good_done = 0; m.rx_started = 0; m.rx_avail = 0;
            m.exp_tx = 0; m.exp_rx = 0; m.exp_trunc = 0; m.exp_err = 0;
        end
        tx_tail = '0; rx_tail = '0;
        quiet_q = -1; starve_q = -1; rx_allow = '1;
        if (mode == M_ENABLE) rx_allow[d] = 1'b0;
        if (mode == M_STARVE) starve_q = d;
        mem_stall_pct = mem_stall; mem_lat_max = lat; m_stall_pct = m_stall; s_idle_pct = s_idle;
        // At line rate the memory answers every read after the same latency (a random one would
        // leave gaps in the responses), long enough that the read credits must cover it.
        mem_lat_min = mode == M_LINE || mode == M_LINE1 ? 3 : 0;
        m_beats = 0; m_gaps = 0; s_beats = 0; s_refused_in = 0; s_refused_first = 0;
        rst = 1'b0;
        sw_on = 1'b1;
        t0 = cycle;
        mem0 = mem_reqs;
        if (mode == M_ENABLE) begin
            // Descriptors posted, a packet offered: with every enable low nothing may move.
            post_pct = 100;
            repeat (300) begin
                @(negedge clk);
                if (mem_req_valid || m_tvalid || s_tready || tx_head != '0 || rx_head != '0)
                    fail("activity while every enable is low");
            end
            // Queue d held, the others running.
            quiet_q = d;
            enable = ~(NQ'(1) << d);
            post_pct = 30 + sw_rng.below(70);
            repeat (3000) begin
                @(negedge clk);
                if (head_tx(d) != 0 || head_rx(d) != 0 || cnt(tx_packets, d) != 0 || cnt(rx_packets, d) != 0
                        || cnt(desc_errors, d) != 0)
                    fail($sformatf("queue %0d moved while its enable is low", d));
            end
            if (NQ > 1 && ((tx_n != 0 && others(tx_packets, d) == 0) || (rx_n != 0 && others(rx_packets, d) == 0)))
                fail($sformatf("with queue %0d's enable low the others did not run: %0d TX, %0d RX packets", d,
                               others(tx_packets, d), others(rx_packets, d)));
            $display("  queue %0d held for 3000 cycles: the others sent %0d and received %0d packets", d,
                     others(tx_packets, d), others(rx_packets, d));
            quiet_q = -1;
            rx_allow = '1;
        end
        post_pct = mode == M_LINE || mode == M_LINE1 ? 100 : 30 + sw_rng.below(70);
        line_check = mode == M_LINE || mode == M_LINE1;
        line_strict = mode == M_LINE1;
        enable = '1;
        if (mode == M_STARVE) begin
            // Wait until a packet for queue d has been refused at the head of s_axis for 1000 cycles.
            int unsigned     held = 0;
            longint unsigned tx0 = 0;
            bit              tx_work = 1'b0;
            while (held < 1000) begin
                @(negedge clk);
                if (s_tvalid && src_pos == 0 && src_pkt != null && src_pkt.q == d) begin
                    if (s_tready) fail($sformatf("queue %0d has no RX descriptor, yet s_axis_tready is high for its packet", d));
                    if (held == 0) begin
                        tx0 = others(tx_packets, d);
                        tx_work = 1'b0;
                        for (int q = 0; q < NQ; q++)
                            if (q != d && (qs[q].tx_exp.size() >= 3 || qs[q].tx_limit - qs[q].tx_posted_total >= 4)) tx_work = 1'b1;
                    end
                    held++;
                end else begin
                    held = 0;
                end
                if (cycle - t0 > 200000) begin
                    fail($sformatf("%s: no packet for queue %0d reached the head of s_axis", name, d));
                    break;
                end
            end
            if (tx_work && others(tx_packets, d) == tx0)
                fail($sformatf("while s_axis waited for queue %0d's RX descriptor, the other queues sent no TX packet", d));
            if (tx_work) $display("  queue %0d starved: s_axis held 1000 cycles, the others sent %0d TX packets meanwhile", d,
                                  others(tx_packets, d) - tx0);
            else $display("  queue %0d starved: s_axis held 1000 cycles (the others' TX was done)", d);
            starve_q = -1;
        end
        while (!all_done()) begin
            @(negedge clk);
            if (cycle - t0 > 600000) begin
                fail($sformatf("%s: timeout", name));
                for (int q = 0; q < NQ; q++)
                    $display("  queue %0d: TX %0d of %0d posted, %0d to go; RX %0d of %0d done, %0d posted, %0d started",
                             q, qs[q].tx_posted_total, qs[q].tx_limit, qs[q].tx_posted, qs[q].rx_good_done, qs[q].rx_limit,
                             qs[q].rx_posted, qs[q].rx_started);
                break;
            end
        end
        repeat (5) @(negedge clk);
        line_check = 1'b0;
        line_strict = 1'b0;
        for (int q = 0; q < NQ; q++) begin
            automatic qmodel m = qs[q];
            if (m.tx_exp.size() != 0) fail($sformatf("%s: queue %0d: %0d TX packets never left", name, q, m.tx_exp.size()));
            if (m.rx_sent.size() != 0) fail($sformatf("%s: queue %0d: %0d RX packets sent and not in its ring", name, q, m.rx_sent.size()));
            if (cnt(tx_packets, q) != m.exp_tx || cnt(rx_packets, q) != m.exp_rx || cnt(rx_truncated, q) != m.exp_trunc
                    || cnt(desc_errors, q) != m.exp_err)
                fail($sformatf("%s: queue %0d: counters tx %0d rx %0d truncated %0d errors %0d, want %0d %0d %0d %0d", name, q,
                               cnt(tx_packets, q), cnt(rx_packets, q), cnt(rx_truncated, q), cnt(desc_errors, q),
                               m.exp_tx, m.exp_rx, m.exp_trunc, m.exp_err));
            m.tot_tx += m.exp_tx; m.tot_rx += m.exp_rx;
            ptx += m.exp_tx; prx += m.exp_rx; trunc += m.exp_trunc; err += m.exp_err;
        end
        tot_tx += ptx; tot_rx += prx; tot_trunc += trunc; tot_err += err;
        $display("phase %-22s rings%s  mem stall %2d%% lat %0d..%2d  m stall %2d%% s idle %2d%%: tx %0d rx %0d (%0d truncated) bad %0d, %0d cycles",
                 name, rings, mem_stall, mem_lat_min, mem_lat_min + lat, m_stall, s_idle, ptx, prx, trunc, err, cycle - t0);
        if (mode == M_LINE || mode == M_LINE1) begin
            string what = mode == M_LINE1 ? $sformatf("  line rate, queue %0d alone:", d) : "  line rate:";
            if (m_beats != 0)
                what = {what, $sformatf(" TX %0d beats in %0d cycles (%.3f/cycle, %0d gaps inside packets);", m_beats,
                                        m_last - m_first + 1, real'(m_beats) / real'(m_last - m_first + 1), m_gaps)};
            if (s_beats != 0)
                what = {what, $sformatf(" RX %0d beats in %0d cycles (%.3f/cycle; refused %0d inside packets, the memory busy each time, %0d at a first beat);",
                                        s_beats, s_last - s_first + 1, real'(s_beats) / real'(s_last - s_first + 1),
                                        s_refused_in, s_refused_first)};
            $display("%s memory %.3f requests/cycle", what, real'(mem_reqs - mem0) / real'(cycle - t0));
        end
    endtask

    initial begin
        $display("tb_p4f_host_dma_mq: seed %0d, NQ %0d, DATA_W %0d, RING_W %0d, QSEL_BYTE %0d, QSEL_LSB %0d",
                 run_seed(), NQ, DATA_W, RING_W, QSEL_BYTE, QSEL_LSB);
        phase("enable held, mixed",   60, 60, 30,  8, 30, 30, M_ENABLE);
        phase("fast memory",          60, 60,  0,  1,  0,  0, M_PLAIN);
        phase("slow memory",          40, 40, 60, 20, 10, 10, M_PLAIN);
        phase("heavy backpressure",   30, 30, 20,  4, 85, 85, M_PLAIN);
        phase("RX queue starved",     60, 60, 10,  3,  5,  5, M_STARVE);
        phase("mixed",                60, 60, 10,  6, 20, 20, M_PLAIN);
        phase("TX alone, line rate",  60,  0,  0,  0,  0,  0, M_LINE);
        phase("RX alone, line rate",   0, 60,  0,  0,  0,  0, M_LINE);
        phase("both, line rate",      60, 60,  0,  0,  0,  0, M_LINE);
        phase("one TX, line rate",   100,  0,  0,  0,  0,  0, M_LINE1);
        phase("one RX, line rate",     0,100,  0,  0,  0,  0, M_LINE1);
        for (int q = 0; q < NQ; q++)
            if (qs[q].tx_wraps == 0 || qs[q].rx_wraps == 0)
                fail($sformatf("not exercised: queue %0d: %0d TX wraps, %0d RX wraps", q, qs[q].tx_wraps, qs[q].rx_wraps));
        if (tot_trunc == 0 || tot_err == 0 || rx_multi == 0 || (NQ > 1 && max_passed != NQ - 1))
            fail($sformatf("not exercised: %0d truncated, %0d bad descriptors, %0d multi-beat RX packets, a memory request passed over at most %0d times",
                           tot_trunc, tot_err, rx_multi, max_passed));
        if (errors == 0) begin
            $display("PASS tb_p4f_host_dma_mq (seed %0d): %0d TX and %0d RX packets over %0d queues (%0d truncated), %0d bad descriptors, %0d reads, %0d writes, at most %0d reads in flight (%0d of one queue)",
                     run_seed(), tot_tx, tot_rx, NQ, tot_trunc, tot_err, reads, writes, max_out, max_q_out);
            $finish;
        end else begin
            $fatal(1, "FAIL tb_p4f_host_dma_mq (seed %0d): %0d failed checks", run_seed(), errors);
        end
    end

endmodule

`default_nettype wire

// Testbench for p4f_table_exact_hash: three configurations side by side (72-bit keys, 40-bit data,
// 8 buckets of 4 ways; 13-bit keys in 4 buckets of 3 ways, so wr_way can name a way that does not
// exist; 32-bit keys in 65536 buckets of 1 way, with the CRC known-answer test). Each bench acts
// as a hostile control plane: from a pool of keys (several per bucket, so buckets fill up and keys
// collide), it inserts into a free way of the key's bucket, overwrites data, replaces a key with
// another of the same bucket, deletes, writes a key into two ways of its bucket (the lower way
// must win), writes a key into a bucket that is not its own (it must never hit) and writes random
// slots; interleaved with lookups of present, absent, pool, random and one-bit-off keys. ce is
// random per phase (one phase with ce = 1 every cycle must give one result per cycle); the lookup
// and write inputs are random in cycles where they must be ignored.
//
// The model: per slot {valid, key, data}; the bucket of a key is the bit-serial CRC-32 below (and
// a byte-wise copy of p4-rtl's tables::hash_bucket, compared on every key). At each enabled edge a
// lookup's answer is computed from the model before and after that edge's write (either is
// allowed when the write hits the same bucket) and moves down a two-stage pipeline advanced by
// enabled edges only; the DUT's result_* are compared with the stage-2 answer every cycle, so a
// result one enabled edge early or late, or one that changes while ce = 0, is an error. result_
// index is checked on every hit, and the DUT's internal bucket (dut.lk_bucket) against the model's
// on every lookup. A reset in the middle, with the table full: init_done must be 0 for exactly
// BUCKETS cycles, lookups then (of keys stored before the reset) must miss, writes then are
// ignored, and afterwards everything misses until written again. +seed=N.
`timescale 1ns / 1ps
`default_nettype none
// The model and the drivers keep their state as blocking variables in one clocked process.
/* verilator lint_off BLKSEQ */

module hash_bench #(
    parameter int    KEY_W   = 72,
    parameter int    DATA_W  = 40,
    parameter int    BUCKETS = 8,
    parameter int    WAYS    = 4,
    parameter int    POOL    = 64,     // keys the control plane draws from
    parameter bit    KAT     = 1'b0,   // run the CRC known-answer test (KEY_W must be 32)
    parameter int    SALT    = 0,
    parameter string NAME    = "hash"
) (
    input  wire logic clk,
    output logic      done
);
    import p4f_tb_pkg::*;
    localparam int BKT_W = BUCKETS > 1 ? $clog2(BUCKETS) : 1;
    localparam int WAY_W = WAYS > 1 ? $clog2(WAYS) : 1;
    localparam int SLOTS = BUCKETS * WAYS;
    localparam logic [31:0] POLY = 32'h04C11DB7;

    logic              rst = 1'b1, ce = 1'b0, init_done;
    logic              lookup_valid = 1'b0;
    logic [KEY_W-1:0]  lookup_key = '0;
    logic              result_valid, result_hit;
    logic [BKT_W+WAY_W-1:0] result_index;
    logic [DATA_W-1:0] result_data;
    logic              wr_en = 1'b0, wr_valid = 1'b0;
    logic [BKT_W-1:0]  wr_bucket = '0;
    logic [WAY_W-1:0]  wr_way = '0;
    logic [KEY_W-1:0]  wr_key = '0;
    logic [DATA_W-1:0] wr_data = '0;

    p4f_table_exact_hash #(.KEY_W(KEY_W), .DATA_W(DATA_W), .BUCKETS(BUCKETS), .WAYS(WAYS)) dut (
        .clk, .rst, .ce, .init_done,
        .lookup_valid, .lookup_key,
        .result_valid, .result_hit, .result_index, .result_data,
        .wr_en, .wr_bucket, .wr_way, .wr_valid, .wr_key, .wr_data);

    // ---- The reference hash.
    // Bit-serial, as specified: key bits from KEY_W-1 down to 0.
    function automatic logic [31:0] ref_crc(input logic [KEY_W-1:0] key);
        logic [31:0] crc = '0;
        logic fb;
        for (int i = KEY_W - 1; i >= 0; i--) begin
            fb = crc[31] ^ key[i];
            crc = {crc[30:0], 1'b0} ^ (fb ? POLY : 32'd0);
        end
        return crc;
    endfunction
    // p4-rtl's tables::hash_bucket line by line (key as big-endian bytes, right-aligned).
    function automatic logic [31:0] rust_crc(input logic [KEY_W-1:0] key);
        localparam int NBYTES = (KEY_W + 7) / 8;
        byte unsigned b [NBYTES];
        logic [NBYTES*8-1:0] k = (NBYTES * 8)'(key);
        logic [31:0] crc = '0;
        int total = NBYTES * 8, pos;
        logic bit_, fb;
        for (int j = 0; j < NBYTES; j++) b[j] = k[(NBYTES - 1 - j) * 8 +: 8];
        for (int i = KEY_W - 1; i >= 0; i--) begin
            pos = total - 1 - i;
            bit_ = b[pos / 8][7 - pos % 8];
            fb = crc[31] ^ bit_;
            crc = {crc[30:0], 1'b0} ^ (fb ? POLY : 32'd0);
        end
        return crc;
    endfunction
    function automatic int bucket_of(input logic [KEY_W-1:0] key);
        return int'(ref_crc(key) & 32'(BUCKETS - 1));
    endfunction

    // ---- The model.
    bit                m_valid [SLOTS];
    logic [KEY_W-1:0]  m_key   [SLOTS];
    logic [DATA_W-1:0] m_data  [SLOTS];
    int                occ [$];              // slots holding a valid entry
    logic [KEY_W-1:0]  pool [POOL];
    int                pool_bkt [POOL];

    typedef struct packed {
        logic                   hit;
        logic [BKT_W+WAY_W-1:0] index;
        logic [DATA_W-1:0]      data;
    } answer_t;
    typedef struct packed {
        logic    valid;
        answer_t a, b;   // either answer is right (b differs when the lookup met a write)
    } expect_t;
    expect_t s1 = '0, s2 = '0;

    function automatic answer_t model_lookup(input logic [KEY_W-1:0] key);
        answer_t r = '0;
        int b = bucket_of(key);
        for (int w = 0; w < WAYS; w++) begin
            if (m_valid[b * WAYS + w] && m_key[b * WAYS + w] == key) begin
                r.hit = 1'b1;
                r.index = {BKT_W'(b), WAY_W'(w)};
                r.data = m_data[b * WAYS + w];
                return r;
            end
        end
        return r;
    endfunction

    function automatic void model_write(input int b, input int w, input bit v,
                                        input logic [KEY_W-1:0] key, input logic [DATA_W-1:0] data);
        int s = b * WAYS + w;
        if (w >= WAYS) return;
        if (m_valid[s] && !v) begin
            foreach (occ[i]) if (occ[i] == s) begin occ.delete(i); break; end
        end
        if (!m_valid[s] && v) occ.push_back(s);
        m_valid[s] = v;
        m_key[s] = key;
        m_data[s] = data;
    endfunction

    function automatic void model_clear();
        for (int s = 0; s < SLOTS; s++) m_valid[s] = 1'b0;
        occ.delete();
    endfunction

    function automatic bit present(input int b, input logic [KEY_W-1:0] key);
        for (int w = 0; w < WAYS; w++) if (m_valid[b * WAYS + w] && m_key[b * WAYS + w] == key) return 1'b1;
        return 1'b0;
    endfunction

    prng rng;
    int errors = 0;
    function automatic void fail(input string what);
        errors++;
        if (errors <= 10) $display("[%0t] %s: ERROR %s", $time, NAME, what);
    endfunction

    function automatic logic [KEY_W-1:0] rand_key();
        return random_bits#(KEY_W)::from(rng);
    endfunction
    function automatic logic [DATA_W-1:0] rand_data();
        return random_bits#(DATA_W)::from(rng);
    endfunction
    function automatic int free_way(input int b);   // a random free way of bucket b, -1: full
        int start = int'(rng.below(WAYS));
        for (int j = 0; j < WAYS; j++) begin
            int w = (start + j) % WAYS;
            if (!m_valid[b * WAYS + w]) return w;
        end
        return -1;
    endfunction

    // ---- Knobs (set by the phases) and counters.
    int unsigned ce_pct = 100, lk_pct = 100, wr_pct = 10;
    bit          rst_req = 1'b1;
    longint unsigned cycles = 0, since_rst = 0;
    longint unsigned lookups = 0, results = 0, hits = 0, misses = 0, writes = 0, ignored_writes = 0;
    longint unsigned dup_hits = 0, full = 0, same_edge = 0, misplaced = 0, init_lookups = 0;
    longint unsigned res_count = 0, lk_count = 0;   // per phase

    bit seen_rst = 1'b0;

    // Inputs for one edge, queued by the known-answer test (random inputs while it is empty).
    typedef struct packed {
        logic              ce, lookup_valid;
        logic [KEY_W-1:0]  lookup_key;
        logic              wr_en;
        logic [BKT_W-1:0]  wr_bucket;
        logic [WAY_W-1:0]  wr_way;
        logic              wr_valid;
        logic [KEY_W-1:0]  wr_key;
        logic [DATA_W-1:0] wr_data;
    } drive_t;
    drive_t dq [$];

    always @(posedge clk) begin
        expect_t e;
        answer_t a;
        bit busy, wr_now, v0;
        int kind, s, b, w, k, n;
        logic [KEY_W-1:0] key, k0;
        logic [DATA_W-1:0] d0;
        drive_t d;
        cycles++;

        // 1. What the DUT shows after the previous edge (once it has been reset).
        if (!seen_rst) begin
        end else if (result_valid !== s2.valid) begin
            fail($sformatf("result_valid %b, want %b", result_valid, s2.valid));
        end else if (s2.valid) begin
            results++;
            res_count++;
            if (!((result_hit === s2.a.hit && (!s2.a.hit || result_index === s2.a.index) && result_data === s2.a.data) ||
                  (result_hit === s2.b.hit && (!s2.b.hit || result_index === s2.b.index) && result_data === s2.b.data)))
                fail($sformatf("result hit %b index %h data %h, want hit %b index %h data %h%s", result_hit, result_index, result_data,
                               s2.a.hit, s2.a.index, s2.a.data,
                               s2.a != s2.b ? $sformatf(" or hit %b index %h data %h", s2.b.hit, s2.b.index, s2.b.data) : ""));
        end
        if (seen_rst && init_done !== (since_rst >= longint'(BUCKETS)))
            fail($sformatf("init_done %b %0d cycles after reset (BUCKETS %0d)", init_done, since_rst, BUCKETS));

        // 2. This edge: the inputs on the wires now.
        busy = since_rst < longint'(BUCKETS);
        if (rst) begin
            seen_rst = 1'b1;
            model_clear();
            s1 = '0;
            s2 = '0;
            since_rst = 0;
        end else begin
            wr_now = wr_en && !busy;
            if (wr_en && busy) ignored_writes++;
            if (ce) begin
                s2 = s1;
                e = '0;
                e.valid = lookup_valid;
                if (lookup_valid) begin
                    lookups++;
                    lk_count++;
                    if (int'(dut.lk_bucket) != bucket_of(lookup_key))
                        fail($sformatf("hash of %h: bucket %0d, want %0d", lookup_key, dut.lk_bucket, bucket_of(lookup_key)));
                    if (ref_crc(lookup_key) != rust_crc(lookup_key))
                        fail($sformatf("reference CRCs disagree on %h", lookup_key));
                    if (busy) begin
                        init_lookups++;
                    end else begin
                        e.a = model_lookup(lookup_key);
                        e.b = e.a;
                        if (e.a.hit) hits++; else misses++;
                        if (e.a.hit) begin
                            n = 0;
                            b = bucket_of(lookup_key);
                            for (w = 0; w < WAYS; w++) if (m_valid[b * WAYS + w] && m_key[b * WAYS + w] == lookup_key) n++;
                            if (n > 1) dup_hits++;
                        end
                        if (wr_now && int'(wr_bucket) == bucket_of(lookup_key) && int'(wr_way) < WAYS) begin
                            same_edge++;
                            s = int'(wr_bucket) * WAYS + int'(wr_way);
                            v0 = m_valid[s]; k0 = m_key[s]; d0 = m_data[s];
                            m_valid[s] = wr_valid; m_key[s] = wr_key; m_data[s] = wr_data;
                            e.b = model_lookup(lookup_key);
                            m_valid[s] = v0; m_key[s] = k0; m_data[s] = d0;
                        end
                    end
                end
                s1 = e;
            end
            if (wr_now) begin
                writes++;
                model_write(int'(wr_bucket), int'(wr_way), wr_valid, wr_key, wr_data);
            end
            since_rst++;
        end

        // 3. The next inputs.
        rst <= rst_req;
        if (dq.size() != 0) begin
            d = dq.pop_front();
            ce <= d.ce; lookup_valid <= d.lookup_valid; lookup_key <= d.lookup_key;
            wr_en <= d.wr_en; wr_bucket <= d.wr_bucket; wr_way <= d.wr_way; wr_valid <= d.wr_valid;
            wr_key <= d.wr_key; wr_data <= d.wr_data;
        end else begin
            ce <= rng.below(100) < ce_pct;
            lookup_valid <= rng.below(100) < lk_pct;
            kind = int'(rng.below(100));
            if (kind < 45 && occ.size() != 0) key = m_key[occ[rng.below(occ.size())]];
            else if (kind < 80) key = pool[rng.below(POOL)];
            else if (kind < 90 || occ.size() == 0) key = rand_key();
            else begin
                key = m_key[occ[rng.below(occ.size())]];
                key[rng.below(KEY_W)] ^= 1'b1;
            end
            lookup_key <= key;

            // A write: fields chosen against the model, which is up to date with this edge.
            wr_now = rng.below(100) < wr_pct;   // (reused: the write chosen for the next edge)
            wr_en <= wr_now;
            b = int'(rng.below(BUCKETS));
            w = int'(rng.below(1 << WAY_W));
            wr_bucket <= BKT_W'(b);
            wr_way <= WAY_W'(w);
            wr_valid <= rng.below(2) == 0;
            wr_key <= rand_key();
            wr_data <= rand_data();
            kind = int'(rng.below(100));
            if (kind < 35) begin                                  // insert a pool key
                k = int'(rng.below(POOL));
                b = pool_bkt[k];
                w = free_way(b);
                if (w < 0 && wr_now) full++;
                if (w >= 0 && !present(b, pool[k])) begin
                    wr_bucket <= BKT_W'(b); wr_way <= WAY_W'(w); wr_valid <= 1'b1; wr_key <= pool[k];
                end
            end else if (kind < 55 && occ.size() != 0) begin      // new data for a stored key
                s = occ[rng.below(occ.size())];
                wr_bucket <= BKT_W'(s / WAYS); wr_way <= WAY_W'(s % WAYS); wr_valid <= 1'b1; wr_key <= m_key[s];
            end else if (kind < 65 && occ.size() != 0) begin      // another key of the same bucket
                s = occ[rng.below(occ.size())];
                k = int'(rng.below(POOL));
                for (int j = 0; j < POOL; j++) begin
                    n = (k + j) % POOL;
                    if (pool_bkt[n] == s / WAYS && !present(s / WAYS, pool[n])) begin
                        wr_bucket <= BKT_W'(s / WAYS); wr_way <= WAY_W'(s % WAYS); wr_valid <= 1'b1; wr_key <= pool[n];
                        break;
                    end
                end
            end else if (kind < 85 && occ.size() != 0) begin      // delete
                s = occ[rng.below(occ.size())];
                wr_bucket <= BKT_W'(s / WAYS); wr_way <= WAY_W'(s % WAYS); wr_valid <= 1'b0;
            end else if (kind < 90 && occ.size() != 0) begin      // the same key in a second way
                s = occ[rng.below(occ.size())];
                w = free_way(s / WAYS);
                if (w >= 0) begin
                    wr_bucket <= BKT_W'(s / WAYS); wr_way <= WAY_W'(w); wr_valid <= 1'b1; wr_key <= m_key[s];
                end
            end else if (kind < 95) begin                         // a key outside its bucket
                k = int'(rng.below(POOL));
                b = (pool_bkt[k] + 1 + int'(rng.below(BUCKETS - 1))) % BUCKETS;
                w = free_way(b);
                if (w >= 0) begin
                    if (wr_now) misplaced++;
                    wr_bucket <= BKT_W'(b); wr_way <= WAY_W'(w); wr_valid <= 1'b1; wr_key <= pool[k];
                end
            end                                                   // else: random slot, fields
        end
    end

    // Run `n` cycles with these odds; with lk = 100 and ce = 100, one result every cycle.
    task automatic phase(input string name, input int unsigned n, input int unsigned ce_p,
                         input int unsigned lk_p, input int unsigned wr_p);
        @(negedge clk);
        ce_pct = ce_p; lk_pct = lk_p; wr_pct = wr_p;
        res_count = 0; lk_count = 0;
        repeat (n) @(posedge clk);
        if (ce_p == 100 && lk_p == 100 && res_count < longint'(n) - 4)
            fail($sformatf("%s: %0d results in %0d cycles with ce and lookup_valid always 1", name, res_count, n));
        $display("%s: phase %-24s ce %3d%% lookup %3d%% write %2d%%: %0d lookups, %0d results",
                 NAME, name, ce_p, lk_p, wr_p, lk_count, res_count);
    endtask

    // Queue one input set for one edge (the directed test).
    function automatic void drive(input bit c, input bit lv, input logic [KEY_W-1:0] lk, input bit we,
                                  input int b, input int w, input bit v, input logic [KEY_W-1:0] wk,
                                  input logic [DATA_W-1:0] wd);
        dq.push_back('{ce: c, lookup_valid: lv, lookup_key: lk, wr_en: we, wr_bucket: BKT_W'(b),
                       wr_way: WAY_W'(w), wr_valid: v, wr_key: wk, wr_data: wd});
    endfunction

    // The CRC known-answer test. The values come from p4-rtl's hash_bucket run by hand (Python
    // port; the same function gives 0x765E7680 = CRC-32/POSIX's check value for "123456789" after
    // the final xor). Every key is written at its model bucket, then looked up: the hit, its
    // index and dut.lk_bucket (checked in the clocked process) prove the hardware hash.
    localparam int NKAT = 4;
    logic [31:0] kat_key [NKAT] = '{32'h01020304, 32'hDEADBEEF, 32'h0A000001, 32'h80000000};
    logic [31:0] kat_crc [NKAT] = '{32'hBE33EAB6, 32'h46DEC763, 32'h4131AD64, 32'hA6E63D1D};
    task automatic kat();
        longint unsigned h0 = hits;
        for (int i = 0; i < NKAT; i++) begin
            if (ref_crc(KEY_W'(kat_key[i])) != kat_crc[i] || rust_crc(KEY_W'(kat_key[i])) != kat_crc[i])
                fail($sformatf("CRC of %h: %h / %h, want %h", kat_key[i], ref_crc(KEY_W'(kat_key[i])),
                               rust_crc(KEY_W'(kat_key[i])), kat_crc[i]));
        end
        @(negedge clk) lk_pct = 0;   // no random lookups in between (they would add hits)
        for (int i = 0; i < NKAT; i++)
            drive(1'b0, 1'b0, '0, 1'b1, int'(kat_crc[i] & 32'(BUCKETS - 1)), 0, 1'b1, KEY_W'(kat_key[i]), DATA_W'(i + 1));
        for (int i = 0; i < NKAT; i++)
            drive(1'b1, 1'b1, KEY_W'(kat_key[i]), 1'b0, 0, 0, 1'b0, '0, '0);
        repeat (3) drive(1'b1, 1'b0, '0, 1'b0, 0, 0, 1'b0, '0, '0);
        while (dq.size() != 0) @(posedge clk);
        repeat (2) @(posedge clk);
        if (hits - h0 != longint'(NKAT)) fail($sformatf("CRC known answers: %0d of %0d keys hit", hits - h0, NKAT));
        $display("%s: CRC known answers: %0d keys, e.g. %h -> %h, bucket %0d (of %0d)", NAME, NKAT,
                 kat_key[0], kat_crc[0], kat_crc[0] & 32'(BUCKETS - 1), BUCKETS);
    endtask

    initial begin
        rng = new(run_seed() ^ (64'h4a5_0000 + longint'(SALT)));
        for (int i = 0; i < POOL; i++) begin
            pool[i] = rand_key();
            pool_bkt[i] = bucket_of(pool[i]);
        end
        done = 1'b0;
        rst_req = 1'b1;
        repeat (4) @(posedge clk);
        @(negedge clk) rst_req = 1'b0;
        wr_pct = 0;
        repeat (BUCKETS + 4) @(posedge clk);
        if (KAT) kat();

        phase("ce always, back to back", 2000, 100, 100, 15);
        phase("random stalls", 3000, 60, 80, 15);
        phase("heavy stalls", 2000, 20, 100, 20);
        phase("write storm", 2000, 80, 100, 60);
        phase("fill", 1000, 100, 100, 30);

        // Reset with the table full: everything misses during and after the clearing.
        @(negedge clk) rst_req = 1'b1;
        repeat (3) @(posedge clk);
        @(negedge clk) rst_req = 1'b0;
        phase("during and after init", BUCKETS + 500, 100, 100, 10);
        phase("ce always again", 1500, 100, 100, 15);
        phase("random stalls again", 1500, 50, 90, 20);
        @(negedge clk) begin ce_pct = 100; lk_pct = 0; wr_pct = 0; end
        repeat (4) @(posedge clk);

        if (hits < 200 || misses < 200) fail($sformatf("only %0d hits and %0d misses", hits, misses));
        if (WAYS > 1 && dup_hits == 0) fail("no lookup met a key stored in two ways");
        if (BUCKETS * WAYS < POOL && full == 0) fail("no bucket filled up");
        if (2 * init_lookups < longint'(BUCKETS) || (BUCKETS >= 64 && ignored_writes == 0)) fail("the init phase saw too few lookups or writes");
        $display("%s: KEY_W %0d DATA_W %0d BUCKETS %0d WAYS %0d: %0d lookups (%0d hits, %0d misses, %0d during init), %0d writes (+%0d ignored during init), %0d two-way hits, %0d full buckets met, %0d misplaced keys, %0d same-edge read/write, %0d errors",
                 NAME, KEY_W, DATA_W, BUCKETS, WAYS, lookups, hits, misses, init_lookups, writes, ignored_writes,
                 dup_hits, full, misplaced, same_edge, errors);
        done = 1'b1;
    end

endmodule

module tb_p4f_table_exact_hash;
    logic clk;
    initial clk = 1'b0;
    always #2 clk = ~clk;

    logic [2:0] done;
    int         fails;
    longint unsigned cycle = 0;

    hash_bench #(.KEY_W(72), .DATA_W(40), .BUCKETS(8), .WAYS(4), .POOL(72), .SALT(1), .NAME("k72 b8 w4")) b0 (.clk, .done(done[0]));
    hash_bench #(.KEY_W(13), .DATA_W(5), .BUCKETS(4), .WAYS(3), .POOL(20), .SALT(2), .NAME("k13 b4 w3")) b1 (.clk, .done(done[1]));
    hash_bench #(.KEY_W(32), .DATA_W(8), .BUCKETS(65536), .WAYS(1), .POOL(64), .KAT(1'b1), .SALT(3), .NAME("k32 b65536 w1")) b2 (.clk, .done(done[2]));

    // Watchdog: the whole run is about 80000 cycles.
    always @(posedge clk) begin
        cycle <= cycle + 1;
        if (cycle > 400000) $fatal(1, "FAIL tb_p4f_table_exact_hash (seed %0d): watchdog, done %b", p4f_tb_pkg::run_seed(), done);
    end

    initial begin
        $display("tb_p4f_table_exact_hash: seed %0d", p4f_tb_pkg::run_seed());
        wait (&done);
        fails = b0.errors + b1.errors + b2.errors;
        if (fails == 0) begin
            $display("PASS tb_p4f_table_exact_hash (seed %0d): 3 configurations, %0d lookups (%0d hits), %0d writes, every result checked",
                     p4f_tb_pkg::run_seed(), b0.lookups + b1.lookups + b2.lookups, b0.hits + b1.hits + b2.hits,
                     b0.writes + b1.writes + b2.writes);
            $finish;
        end else begin
            $fatal(1, "FAIL tb_p4f_table_exact_hash (seed %0d): %0d errors", p4f_tb_pkg::run_seed(), fails);
        end
    end
endmodule

/* verilator lint_on BLKSEQ */
`default_nettype wire

// Testbench for p4f_table_tcam: three configurations side by side (40-bit keys in 24 entries, not
// a power of two, so wr_index can name an entry that does not exist; 6-bit keys in 5 entries, so
// nearly every lookup matches several entries; 32-bit keys in a single entry). Entries get keys
// drawn from a few base patterns and masks of every kind (all ones as in a BCAM, prefixes as in
// LPM, dense and sparse random masks, the empty mask that matches everything), so several entries
// match one key and the priority decides. Writes insert, overwrite, delete and rewrite at random
// indices, interleaved with lookups of keys made to match a given entry (its don't-care bits
// randomised), near-misses and random keys. ce is random per phase (one phase with ce = 1 every
// cycle must give one result per cycle); the lookup and write inputs are random in cycles where
// they must be ignored. A reset in the middle of a full table must make everything miss.
//
// The model: per entry {valid, key, mask, data}. At each enabled edge the lookup's match vector is
// computed from the model before that edge's write and moves into stage 1; a write at that edge or
// at any later edge, up to the lookup's second enabled edge, clears the written entry's bit of the
// vector (the module's promise: an entry rewritten while a lookup is in flight counts as deleted
// for it). At the second enabled edge the lowest set bit, its index and the model's data for it
// make the answer, which the DUT's result_* must equal in every cycle until the next enabled
// edge: a result one enabled edge early or late, or one that changes while ce = 0, is an error.
// +seed=N.
`timescale 1ns / 1ps
`default_nettype none
// The model and the drivers keep their state as blocking variables in one clocked process.
/* verilator lint_off BLKSEQ */

module tcam_bench #(
    parameter int    KEY_W   = 40,
    parameter int    DATA_W  = 12,
    parameter int    ENTRIES = 24,
    parameter int    BASES   = 6,      // base key patterns the entries' keys come from
    parameter int    SALT    = 0,
    parameter string NAME    = "tcam"
) (
    input  wire logic clk,
    output logic      done
);
    import p4f_tb_pkg::*;
    localparam int IDX_W = ENTRIES > 1 ? $clog2(ENTRIES) : 1;

    logic              rst = 1'b1, ce = 1'b0;
    logic              lookup_valid = 1'b0;
    logic [KEY_W-1:0]  lookup_key = '0;
    logic              result_valid, result_hit;
    logic [IDX_W-1:0]  result_index;
    logic [DATA_W-1:0] result_data;
    logic              wr_en = 1'b0, wr_valid = 1'b0;
    logic [IDX_W-1:0]  wr_index = '0;
    logic [KEY_W-1:0]  wr_key = '0, wr_mask = '0;
    logic [DATA_W-1:0] wr_data = '0;

    p4f_table_tcam #(.KEY_W(KEY_W), .DATA_W(DATA_W), .ENTRIES(ENTRIES)) dut (
        .clk, .rst, .ce,
        .lookup_valid, .lookup_key,
        .result_valid, .result_hit, .result_index, .result_data,
        .wr_en, .wr_index, .wr_valid, .wr_key, .wr_mask, .wr_data);

    // ---- The model.
    bit                m_valid [ENTRIES];
    logic [KEY_W-1:0]  m_key   [ENTRIES];
    logic [KEY_W-1:0]  m_mask  [ENTRIES];
    logic [DATA_W-1:0] m_data  [ENTRIES];
    logic [KEY_W-1:0]  bases   [BASES];

    typedef struct packed {
        logic               valid;
        logic [ENTRIES-1:0] vec;
    } stage1_t;
    typedef struct packed {
        logic              valid, hit;
        logic [IDX_W-1:0]  index;
        logic [DATA_W-1:0] data;
    } stage2_t;
    stage1_t s1 = '0;
    stage2_t s2 = '0;

    function automatic logic [ENTRIES-1:0] match_vec(input logic [KEY_W-1:0] key);
        logic [ENTRIES-1:0] v = '0;
        for (int i = 0; i < ENTRIES; i++) v[i] = m_valid[i] && ((key ^ m_key[i]) & m_mask[i]) == '0;
        return v;
    endfunction

    function automatic stage2_t resolve(input stage1_t s);
        stage2_t r = '0;
        r.valid = s.valid;
        for (int i = 0; i < ENTRIES; i++) begin
            if (s.vec[i]) begin
                r.hit = 1'b1;
                r.index = IDX_W'(i);
                r.data = m_data[i];
                break;
            end
        end
        return r;
    endfunction

    prng rng;
    int errors = 0;
    function automatic void fail(input string what);
        errors++;
        if (errors <= 10) $display("[%0t] %s: ERROR %s", $time, NAME, what);
    endfunction

    function automatic logic [KEY_W-1:0] rand_bits();
        return random_bits#(KEY_W)::from(rng);
    endfunction
    function automatic logic [DATA_W-1:0] rand_data();
        return random_bits#(DATA_W)::from(rng);
    endfunction
    // A mask of one of the kinds a P4 table produces, or a random one.
    function automatic logic [KEY_W-1:0] rand_mask();
        return random_mask#(KEY_W)::from(rng);
    endfunction
    // A key near the base patterns: a base with a few bits flipped now and then.
    function automatic logic [KEY_W-1:0] near_key();
        logic [KEY_W-1:0] k = bases[rng.below(BASES)];
        int n = int'(rng.below(3));
        for (int j = 0; j < n; j++) k[rng.below(KEY_W)] ^= 1'b1;
        return k;
    endfunction

    // ---- Knobs (set by the phases) and counters.
    int unsigned ce_pct = 100, lk_pct = 100, wr_pct = 10;
    bit          rst_req = 1'b1, seen_rst = 1'b0;
    longint unsigned lookups = 0, results = 0, hits = 0, misses = 0, writes = 0, multi = 0, cleared = 0;
    longint unsigned res_count = 0, lk_count = 0;   // per phase
    longint unsigned hit_at [ENTRIES];               // hits per winning index

    always @(posedge clk) begin
        stage1_t e;
        int i, kind;
        logic [KEY_W-1:0] key;

        // 1. What the DUT shows after the previous edge (once it has been reset).
        if (!seen_rst) begin
        end else if (result_valid !== s2.valid) begin
            fail($sformatf("result_valid %b, want %b", result_valid, s2.valid));
        end else if (s2.valid) begin
            results++;
            res_count++;
            if (result_hit !== s2.hit || (s2.hit && result_index !== s2.index) || result_data !== s2.data)
                fail($sformatf("result hit %b index %0d data %h, want hit %b index %0d data %h",
                               result_hit, result_index, result_data, s2.hit, s2.index, s2.data));
        end

        // 2. This edge: the inputs on the wires now.
        if (rst) begin
            seen_rst = 1'b1;
            for (i = 0; i < ENTRIES; i++) m_valid[i] = 1'b0;
            s1 = '0;
            s2 = '0;
        end else begin
            if (ce) begin
                s2 = resolve(s1);
                if (s2.valid) begin
                    if (s2.hit) begin hits++; hit_at[s2.index]++; end else misses++;
                end
                e.valid = lookup_valid;
                e.vec = lookup_valid ? match_vec(lookup_key) : '0;
                if (lookup_valid) begin
                    lookups++;
                    lk_count++;
                    if ($countones(e.vec) > 1) multi++;
                end
                s1 = e;
            end
            if (wr_en && int'(wr_index) < ENTRIES) begin
                if (s1.valid && s1.vec[wr_index]) cleared++;
                s1.vec[wr_index] = 1'b0;
                writes++;
                m_valid[wr_index] = wr_valid;
                m_key[wr_index] = wr_key;
                m_mask[wr_index] = wr_mask;
                m_data[wr_index] = wr_data;
            end
        end

        // 3. The next inputs.
        rst <= rst_req;
        ce <= rng.below(100) < ce_pct;
        lookup_valid <= rng.below(100) < lk_pct;
        kind = int'(rng.below(100));
        i = int'(rng.below(ENTRIES));
        if (kind < 50) begin                      // made to match entry i (if it is valid)
            key = (m_key[i] & m_mask[i]) | (rand_bits() & ~m_mask[i]);
        end else if (kind < 60) begin             // entry i's key with one cared-for bit flipped
            key = m_key[i];
            if (m_mask[i] != '0) begin
                do kind = int'(rng.below(KEY_W)); while (!m_mask[i][kind]);
                key[kind] ^= 1'b1;
            end
        end else if (kind < 90) begin
            key = near_key();
        end else begin
            key = rand_bits();
        end
        lookup_key <= key;

        wr_en <= rng.below(100) < wr_pct;
        i = int'(rng.below(1 << IDX_W));          // beyond ENTRIES: must be ignored
        if (rng.below(4) != 0) i = i % ENTRIES;
        wr_index <= IDX_W'(i);
        wr_valid <= rng.below(100) < 80;
        wr_key <= rng.below(8) == 0 ? rand_bits() : near_key();
        wr_mask <= rand_mask();
        wr_data <= rand_data();
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

    initial begin
        int used;
        rng = new(run_seed() ^ (64'h7ca_0000 + longint'(SALT)));
        for (int i = 0; i < BASES; i++) bases[i] = rand_bits();
        for (int i = 0; i < ENTRIES; i++) begin
            m_key[i] = '0; m_mask[i] = '0; m_data[i] = '0; m_valid[i] = 1'b0; hit_at[i] = 0;
        end
        done = 1'b0;
        repeat (4) @(posedge clk);
        @(negedge clk) rst_req = 1'b0;

        phase("fill", 200, 100, 50, 60);
        phase("ce always, back to back", 2000, 100, 100, 10);
        phase("random stalls", 3000, 60, 80, 15);
        phase("heavy stalls", 2000, 20, 100, 20);
        phase("write storm", 2000, 80, 100, 60);

        // Reset with the table full: everything misses afterwards until written again.
        @(negedge clk) rst_req = 1'b1;
        repeat (3) @(posedge clk);
        @(negedge clk) rst_req = 1'b0;
        phase("after reset", 300, 100, 100, 5);
        phase("ce always again", 1500, 100, 100, 15);
        phase("random stalls again", 1500, 50, 90, 20);

        @(negedge clk) begin ce_pct = 100; lk_pct = 0; wr_pct = 0; end
        repeat (4) @(posedge clk);
        used = 0;
        for (int i = 0; i < ENTRIES; i++) if (hit_at[i] != 0) used++;
        if (hits < 500 || misses < 200) fail($sformatf("only %0d hits and %0d misses", hits, misses));
        if (ENTRIES > 1 && multi < 200) fail($sformatf("only %0d lookups matched several entries", multi));
        if (ENTRIES > 1 && cleared == 0) fail("no write ever met a lookup in flight on the same entry");
        if (used < ENTRIES) fail($sformatf("only %0d of %0d entries ever won a lookup", used, ENTRIES));
        $display("%s: KEY_W %0d DATA_W %0d ENTRIES %0d: %0d lookups (%0d hits, %0d misses, %0d matching several entries), %0d writes, %0d in-flight matches dropped by a write, %0d of %0d entries won, %0d errors",
                 NAME, KEY_W, DATA_W, ENTRIES, lookups, hits, misses, multi, writes, cleared, used, ENTRIES, errors);
        done = 1'b1;
    end

endmodule

module tb_p4f_table_tcam;
    logic clk;
    initial clk = 1'b0;
    always #2 clk = ~clk;

    logic [2:0] done;
    int         fails;
    longint unsigned cycle = 0;

    tcam_bench #(.KEY_W(40), .DATA_W(12), .ENTRIES(24), .BASES(6), .SALT(1), .NAME("k40 e24")) b0 (.clk, .done(done[0]));
    tcam_bench #(.KEY_W(6),  .DATA_W(3),  .ENTRIES(5),  .BASES(3), .SALT(2), .NAME("k6 e5"))   b1 (.clk, .done(done[1]));
    tcam_bench #(.KEY_W(32), .DATA_W(16), .ENTRIES(1),  .BASES(2), .SALT(3), .NAME("k32 e1"))  b2 (.clk, .done(done[2]));

    // Watchdog: the whole run is about 13000 cycles.
    always @(posedge clk) begin
        cycle <= cycle + 1;
        if (cycle > 100000) $fatal(1, "FAIL tb_p4f_table_tcam (seed %0d): watchdog, done %b", p4f_tb_pkg::run_seed(), done);
    end

    initial begin
        $display("tb_p4f_table_tcam: seed %0d", p4f_tb_pkg::run_seed());
        wait (&done);
        fails = b0.errors + b1.errors + b2.errors;
        if (fails == 0) begin
            $display("PASS tb_p4f_table_tcam (seed %0d): 3 configurations, %0d lookups (%0d hits, %0d matching several entries), %0d writes, every result checked",
                     p4f_tb_pkg::run_seed(), b0.lookups + b1.lookups + b2.lookups, b0.hits + b1.hits + b2.hits,
                     b0.multi + b1.multi + b2.multi, b0.writes + b1.writes + b2.writes);
            $finish;
        end else begin
            $fatal(1, "FAIL tb_p4f_table_tcam (seed %0d): %0d errors", p4f_tb_pkg::run_seed(), fails);
        end
    end
endmodule

/* verilator lint_on BLKSEQ */
`default_nettype wire

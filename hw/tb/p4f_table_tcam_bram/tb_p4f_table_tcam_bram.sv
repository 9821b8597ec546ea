// Testbench for p4f_table_tcam_bram: four configurations side by side (40-bit keys in 26 entries
// with 4-bit slices: ten slice RAMs, three lanes, entries 24 and 25 in the ninth bit of lanes 0 and
// 1, lane 2's ninth bit padding, and wr_index able to name an entry that does not exist; 6-bit
// keys in 5 entries with 4-bit slices, so nearly every lookup matches several entries and the last
// slice is padded; 32-bit keys in a single entry; 12 entries of 32-bit keys with the default 9-bit
// slices, whose updates take 1026 enabled cycles).
// Entries get keys from a few base patterns and masks of every kind (all ones as in a BCAM,
// prefixes as in LPM, dense and sparse random masks, the empty mask), so several entries match one
// key and the priority decides. Writes (inserts, rewrites, deletes, indices beyond the table) are
// presented at random, also while wr_ready is 0 (they must be ignored), while lookups flow with
// random ce stalls; the lookup and write inputs are random in cycles where they must be ignored. A
// reset in the middle of a full table, and of an update, must make everything miss.
//
// The model: per entry {valid, key, mask, data}, and the update in progress (entry, new value).
// After reset the module clears its RAMs for max(2^SLICE_W, ENTRIES) cycles: wr_ready must be 0
// and every lookup whose first enabled edge falls in them must miss. A write (insert or delete)
// taken at an edge becomes the model's table at the 2 * 2^SLICE_W + 2-th enabled edge after it,
// where wr_ready must rise (and not before). A lookup whose first enabled edge falls strictly inside
// an update may see the entry as it was or as rewritten (the expectation carries both answers, each
// with the match vector and the data of that time); otherwise exactly one. The answer must show on result_* after the lookup's fourth enabled edge and stay until the next:
// an answer early, late, changing while ce = 0, or matching neither the old nor the new table, is
// an error; and once a lookup has seen the new entry, no later lookup of that update may see the
// old. During an update a third of the lookups use mixed keys, each slice taken from the old or
// from the new entry's key (don't-care bits random): a module that let a lookup see some slices
// rewritten and others not would answer them with the entry where neither table has it.
// +seed=N.
`timescale 1ns / 1ps
`default_nettype none
// The model and the drivers keep their state as blocking variables in one clocked process.
/* verilator lint_off BLKSEQ */

module tcam_bram_bench #(
    parameter int    KEY_W   = 40,
    parameter int    DATA_W  = 12,
    parameter int    ENTRIES = 24,
    parameter int    SLICE_W = 4,
    parameter int    BASES   = 6,      // base key patterns the entries' keys come from
    parameter int    SALT    = 0,
    parameter int    SCALE   = 1,      // phase lengths multiplied by this
    parameter string NAME    = "tcam"
) (
    input  wire logic clk,
    output logic      done
);
    import p4f_tb_pkg::*;
    localparam int IDX_W   = ENTRIES > 1 ? $clog2(ENTRIES) : 1;
    localparam int UPD     = 2 * (1 << SLICE_W) + 2;   // enabled cycles of an insert
    localparam int NSLICES = (KEY_W + SLICE_W - 1) / SLICE_W;
    localparam int LAT     = 4;
    localparam int INIT_N  = (1 << SLICE_W) > ENTRIES ? (1 << SLICE_W) : ENTRIES;
    localparam longint unsigned SLACK = 6;   // results a phase may miss: the pipeline filling

    logic              rst = 1'b1, ce = 1'b0;
    logic              lookup_valid = 1'b0;
    logic [KEY_W-1:0]  lookup_key = '0;
    logic              result_valid, result_hit;
    logic [IDX_W-1:0]  result_index;
    logic [DATA_W-1:0] result_data;
    logic              wr_ready;
    logic              wr_en = 1'b0, wr_valid = 1'b0;
    logic [IDX_W-1:0]  wr_index = '0;
    logic [KEY_W-1:0]  wr_key = '0, wr_mask = '0;
    logic [DATA_W-1:0] wr_data = '0;

    p4f_table_tcam_bram #(.KEY_W(KEY_W), .DATA_W(DATA_W), .ENTRIES(ENTRIES), .SLICE_W(SLICE_W)) dut (
        .clk, .rst, .ce,
        .lookup_valid, .lookup_key,
        .result_valid, .result_hit, .result_index, .result_data,
        .wr_ready, .wr_en, .wr_index, .wr_valid, .wr_key, .wr_mask, .wr_data);

    // ---- The model: the table, and the insert in progress.
    bit                m_valid [ENTRIES];
    logic [KEY_W-1:0]  m_key   [ENTRIES];
    logic [KEY_W-1:0]  m_mask  [ENTRIES];
    logic [DATA_W-1:0] m_data  [ENTRIES];
    logic [KEY_W-1:0]  bases   [BASES];
    bit                pend = 1'b0, p_valid = 1'b0;
    int                pend_steps = 0, p_index = 0, upd_id = 0, init_edges = 0;
    logic [KEY_W-1:0]  p_key, p_mask;
    logic [DATA_W-1:0] p_data;

    // An answer of the table as it is (new = 0) or as it will be after the insert (new = 1).
    typedef struct packed {
        logic               valid, two;   // two: either answer is right
        logic [31:0]        upd;          // the update it straddles
        logic [ENTRIES-1:0] vec_old, vec_new;
    } exp_t;
    exp_t              pipe [LAT];
    logic [DATA_W-1:0] data_old [LAT][ENTRIES];
    logic [DATA_W-1:0] data_new [LAT][ENTRIES];
    int                seen_new_upd = -1;

    function automatic bit entry_match(input logic [KEY_W-1:0] key, input int i, input bit newer);
        if (newer && pend && i == p_index) return p_valid && ((key ^ p_key) & p_mask) == '0;
        return m_valid[i] && ((key ^ m_key[i]) & m_mask[i]) == '0;
    endfunction
    function automatic logic [ENTRIES-1:0] match_vec(input logic [KEY_W-1:0] key, input bit newer);
        logic [ENTRIES-1:0] v = '0;
        for (int i = 0; i < ENTRIES; i++) v[i] = entry_match(key, i, newer);
        return v;
    endfunction
    function automatic int lowest(input logic [ENTRIES-1:0] v);
        for (int i = 0; i < ENTRIES; i++) if (v[i]) return i;
        return -1;
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
    function automatic logic [KEY_W-1:0] near_key();
        logic [KEY_W-1:0] k = bases[rng.below(BASES)];
        int n = int'(rng.below(3));
        for (int j = 0; j < n; j++) k[rng.below(KEY_W)] ^= 1'b1;
        return k;
    endfunction
    // A key matching {key, mask} (its don't-care bits random).
    function automatic logic [KEY_W-1:0] matching(input logic [KEY_W-1:0] key, input logic [KEY_W-1:0] mask);
        return (key & mask) | (rand_bits() & ~mask);
    endfunction

    // ---- Knobs (set by the phases) and counters.
    int unsigned ce_pct = 100, lk_pct = 100, wr_pct = 10, del_pct = 20;
    bit          rst_req = 1'b1, seen_rst = 1'b0;
    longint unsigned lookups = 0, results = 0, hits = 0, misses = 0, inserts = 0, deletes = 0, multi = 0;
    longint unsigned straddled = 0, saw_old = 0, saw_new = 0, mixed = 0, mixed_neither = 0, ignored = 0;
    longint unsigned res_count = 0, lk_count = 0, inits = 0;
    longint unsigned hit_at [ENTRIES];
    bit          was_mixed_q = 1'b0;   // lookup_key is a mixed key
    bit          prev_ce = 1'b0;       // the last edge was enabled

    always @(posedge clk) begin
        exp_t e;
        int i, kind, w_old, w_new;
        bit ok_old, ok_new, was_mixed;
        logic [KEY_W-1:0] key, ka, kb;
        logic [DATA_W-1:0] d_old, d_new;

        // 1. What the DUT shows after the previous edge (once it has been reset).
        if (seen_rst && !rst) begin
            if (wr_ready !== (!pend && init_edges >= INIT_N))
                fail($sformatf("wr_ready %b with %0s update in progress, %0d cycles after reset", wr_ready, pend ? "an" : "no", init_edges));
            if (result_valid !== pipe[LAT-1].valid) begin
                fail($sformatf("result_valid %b, want %b", result_valid, pipe[LAT-1].valid));
            end else if (pipe[LAT-1].valid) begin
                e = pipe[LAT-1];
                w_old = lowest(e.vec_old);
                w_new = lowest(e.vec_new);
                d_old = w_old < 0 ? '0 : data_old[LAT-1][w_old];
                d_new = w_new < 0 ? '0 : data_new[LAT-1][w_new];
                ok_old = result_hit === (w_old >= 0) && (w_old < 0 || int'(result_index) == w_old) && result_data === d_old;
                ok_new = result_hit === (w_new >= 0) && (w_new < 0 || int'(result_index) == w_new) && result_data === d_new;
                if (!e.two) ok_new = 1'b0;
                if (!ok_old && !ok_new) begin
                    if (e.two)
                        fail($sformatf("result hit %b index %0d data %h, want (old) %0d data %h or (new) %0d data %h",
                                       result_hit, result_index, result_data, w_old, d_old, w_new, d_new));
                    else
                        fail($sformatf("result hit %b index %0d data %h, want %0d data %h",
                                       result_hit, result_index, result_data, w_old, d_old));
                end
                if (e.two && ok_new && !ok_old) seen_new_upd = int'(e.upd);
                if (e.two && ok_old && !ok_new && seen_new_upd == int'(e.upd))
                    fail("a lookup saw the old entry after an earlier lookup saw the new one");
                if (prev_ce) begin                    // a new result (not one held by ce = 0)
                    results++;
                    res_count++;
                    if (e.two && ok_new && !ok_old) saw_new++;
                    if (e.two && ok_old && !ok_new) saw_old++;
                    if (result_hit) begin hits++; hit_at[result_index]++; end else misses++;
                end
            end
        end

        // 2. This edge: the inputs on the wires now.
        prev_ce = ce && !rst;
        if (rst) begin
            seen_rst = 1'b1;
            for (i = 0; i < ENTRIES; i++) m_valid[i] = 1'b0;
            for (i = 0; i < LAT; i++) pipe[i] = '0;
            pend = 1'b0;
            init_edges = 0;
        end else begin
            if (ce) begin
                if (pend) begin
                    pend_steps++;
                    if (pend_steps == UPD) begin     // the unflip: the model takes the new entry
                        m_valid[p_index] = p_valid;
                        m_key[p_index] = p_key;
                        m_mask[p_index] = p_mask;
                        m_data[p_index] = p_data;
                        pend = 1'b0;
                    end
                end
                for (i = LAT - 1; i > 0; i--) begin
                    pipe[i] = pipe[i - 1];
                    data_old[i] = data_old[i - 1];
                    data_new[i] = data_new[i - 1];
                end
                e = '0;
                e.valid = lookup_valid;
                if (lookup_valid) begin
                    // pend_steps >= 1: strictly after the edge the insert was taken at.
                    e.two = pend && pend_steps >= 1;
                    e.upd = 32'(upd_id);
                    e.vec_old = init_edges < INIT_N ? '0 : match_vec(lookup_key, 1'b0);
                    e.vec_new = e.two ? match_vec(lookup_key, 1'b1) : e.vec_old;
                    for (i = 0; i < ENTRIES; i++) begin
                        data_old[0][i] = m_data[i];
                        data_new[0][i] = pend && i == p_index ? p_data : m_data[i];
                    end
                    lookups++;
                    lk_count++;
                    if (init_edges < INIT_N && seen_rst) inits++;
                    if ($countones(e.vec_old) > 1) multi++;
                    if (e.two) begin
                        straddled++;
                        if (was_mixed_q && !e.vec_old[p_index] && !e.vec_new[p_index]) mixed_neither++;
                    end
                end
                pipe[0] = e;
            end
            if (wr_en && !wr_ready) ignored++;
            if (wr_en && wr_ready && int'(wr_index) < ENTRIES) begin
                if (wr_valid) inserts++; else deletes++;
                pend = 1'b1;
                pend_steps = 0;
                upd_id++;
                p_index = int'(wr_index);
                p_valid = wr_valid;
                p_key = wr_key;
                p_mask = wr_mask;
                p_data = wr_data;
            end
            init_edges++;
        end

        // 3. The next inputs.
        rst <= rst_req;
        ce <= rng.below(100) < ce_pct;
        lookup_valid <= rng.below(100) < lk_pct;
        kind = int'(rng.below(100));
        i = int'(rng.below(ENTRIES));
        was_mixed = 1'b0;
        if (pend && kind < 35) begin              // during an update: slices from old and new
            ka = matching(m_key[p_index], m_mask[p_index]);
            kb = matching(p_key, p_mask);
            key = '0;
            for (int s = 0; s < NSLICES; s++) begin
                for (int b = s * SLICE_W; b < (s + 1) * SLICE_W && b < KEY_W; b++)
                    key[b] = s % 2 == int'(upd_id % 2) ? ka[b] : kb[b];
            end
            if (rng.below(4) == 0) key = rng.below(2) == 0 ? ka : kb;
            else was_mixed = 1'b1;
            if (was_mixed) mixed++;
        end else if (kind < 50) begin
            key = matching(m_key[i], m_mask[i]);
        end else if (kind < 60) begin
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
        was_mixed_q <= was_mixed;

        wr_en <= rng.below(100) < wr_pct;
        i = int'(rng.below(1 << IDX_W));
        if (rng.below(4) != 0) i = i % ENTRIES;
        wr_index <= IDX_W'(i);
        wr_valid <= rng.below(100) >= del_pct;
        wr_key <= rng.below(8) == 0 ? rand_bits() : near_key();
        wr_mask <= rand_mask();
        wr_data <= rand_data();
    end

    task automatic phase(input string name, input int unsigned n, input int unsigned ce_p,
                         input int unsigned lk_p, input int unsigned wr_p);
        @(negedge clk);
        ce_pct = ce_p; lk_pct = lk_p; wr_pct = wr_p;
        res_count = 0; lk_count = 0;
        repeat (n * SCALE) @(posedge clk);
        if (ce_p == 100 && lk_p == 100 && res_count + SLACK < longint'(n * SCALE))
            fail($sformatf("%s: %0d results in %0d cycles with ce and lookup_valid always 1", name, res_count, n * SCALE));
        $display("%s: phase %-24s ce %3d%% lookup %3d%% write %2d%%: %0d lookups, %0d results",
                 NAME, name, ce_p, lk_p, wr_p, lk_count, res_count);
    endtask

    initial begin
        int used;
        rng = new(run_seed() ^ (64'h7cb_0000 + longint'(SALT)));
        for (int i = 0; i < BASES; i++) bases[i] = rand_bits();
        for (int i = 0; i < ENTRIES; i++) begin
            m_key[i] = '0; m_mask[i] = '0; m_data[i] = '0; m_valid[i] = 1'b0; hit_at[i] = 0;
        end
        for (int i = 0; i < LAT; i++) pipe[i] = '0;
        done = 1'b0;
        repeat (4) @(posedge clk);
        @(negedge clk) rst_req = 1'b0;

        del_pct = 5;
        phase("fill", 1500, 100, 50, 80);
        del_pct = 20;
        phase("ce always, back to back", 2000, 100, 100, 30);
        phase("random stalls", 3000, 60, 80, 30);
        phase("heavy stalls", 2000, 20, 100, 50);
        phase("write storm", 2000, 80, 100, 90);

        // Reset with the table full, in an update or not: everything misses until written again.
        @(negedge clk) rst_req = 1'b1;
        repeat (3) @(posedge clk);
        @(negedge clk) rst_req = 1'b0;
        phase("after reset", 300, 100, 100, 5);
        del_pct = 5;
        phase("refill", 1500, 100, 60, 80);
        del_pct = 20;
        phase("ce always again", 1500, 100, 100, 30);
        phase("random stalls again", 1500, 50, 90, 40);

        @(negedge clk) begin ce_pct = 100; lk_pct = 0; wr_pct = 0; end
        repeat (UPD + 8) @(posedge clk);
        if (inits < 2) fail($sformatf("only %0d lookups during the clearing after reset", inits));
        used = 0;
        for (int i = 0; i < ENTRIES; i++) if (hit_at[i] != 0) used++;
        if (hits < 500 || misses < 200) fail($sformatf("only %0d hits and %0d misses", hits, misses));
        if (ENTRIES > 1 && multi < 200) fail($sformatf("only %0d lookups matched several entries", multi));
        if (inserts < 10 || deletes < 3) fail($sformatf("only %0d inserts and %0d deletes", inserts, deletes));
        if (saw_old == 0 || saw_new == 0) fail($sformatf("lookups during updates: %0d saw only the old entry, %0d only the new", saw_old, saw_new));
        if (mixed_neither < 20) fail($sformatf("only %0d mixed keys matched neither the old nor the new entry", mixed_neither));
        if (used < ENTRIES) fail($sformatf("only %0d of %0d entries ever won a lookup", used, ENTRIES));
        $display("%s: KEY_W %0d DATA_W %0d ENTRIES %0d SLICE_W %0d (update %0d cycles): %0d lookups (%0d hits, %0d misses, %0d matching several entries), %0d inserts, %0d deletes, %0d writes ignored while busy, %0d lookups during updates (%0d saw only the old entry, %0d only the new; %0d mixed keys, %0d matching neither), %0d of %0d entries won, %0d errors",
                 NAME, KEY_W, DATA_W, ENTRIES, SLICE_W, UPD, lookups, hits, misses, multi, inserts, deletes, ignored,
                 straddled, saw_old, saw_new, mixed, mixed_neither, used, ENTRIES, errors);
        done = 1'b1;
    end

endmodule

module tb_p4f_table_tcam_bram;
    logic clk;
    initial clk = 1'b0;
    always #2 clk = ~clk;

    logic [3:0] done;
    int         fails;
    longint unsigned cycle = 0;

    tcam_bram_bench #(.KEY_W(40), .DATA_W(12), .ENTRIES(26), .SLICE_W(4), .BASES(6), .SALT(1), .SCALE(2), .NAME("k40 e26 s4")) b0 (.clk, .done(done[0]));
    tcam_bram_bench #(.KEY_W(6),  .DATA_W(3),  .ENTRIES(5),  .SLICE_W(4), .BASES(3), .SALT(2), .NAME("k6 e5 s4"))   b1 (.clk, .done(done[1]));
    tcam_bram_bench #(.KEY_W(32), .DATA_W(16), .ENTRIES(1),  .SLICE_W(5), .BASES(2), .SALT(3), .NAME("k32 e1 s5"))  b2 (.clk, .done(done[2]));
    tcam_bram_bench #(.KEY_W(32), .DATA_W(16), .ENTRIES(12), .SLICE_W(9), .BASES(4), .SALT(4), .SCALE(8), .NAME("k32 e12 s9")) b3 (.clk, .done(done[3]));

    // Watchdog: the longest bench runs about 120000 cycles.
    always @(posedge clk) begin
        cycle <= cycle + 1;
        if (cycle > 400000) $fatal(1, "FAIL tb_p4f_table_tcam_bram (seed %0d): watchdog, done %b", p4f_tb_pkg::run_seed(), done);
    end

    initial begin
        $display("tb_p4f_table_tcam_bram: seed %0d", p4f_tb_pkg::run_seed());
        wait (&done);
        fails = b0.errors + b1.errors + b2.errors + b3.errors;
        if (fails == 0) begin
            $display("PASS tb_p4f_table_tcam_bram (seed %0d): 4 configurations, %0d lookups (%0d hits, %0d during updates: %0d saw the old entry, %0d the new, %0d mixed keys matching neither), %0d inserts, %0d deletes, every result checked",
                     p4f_tb_pkg::run_seed(), b0.lookups + b1.lookups + b2.lookups + b3.lookups,
                     b0.hits + b1.hits + b2.hits + b3.hits,
                     b0.straddled + b1.straddled + b2.straddled + b3.straddled,
                     b0.saw_old + b1.saw_old + b2.saw_old + b3.saw_old,
                     b0.saw_new + b1.saw_new + b2.saw_new + b3.saw_new,
                     b0.mixed_neither + b1.mixed_neither + b2.mixed_neither + b3.mixed_neither,
                     b0.inserts + b1.inserts + b2.inserts + b3.inserts, b0.deletes + b1.deletes + b2.deletes + b3.deletes);
            $finish;
        end else begin
            $fatal(1, "FAIL tb_p4f_table_tcam_bram (seed %0d): %0d errors", p4f_tb_pkg::run_seed(), fails);
        end
    end
endmodule

/* verilator lint_on BLKSEQ */
`default_nettype wire

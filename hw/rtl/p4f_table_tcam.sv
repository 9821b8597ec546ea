// p4f_table_tcam: ternary match table (TCAM emulated in flip-flops), lowest index wins.
//
// ENTRIES entries, each {valid, key, mask, data} in flops. Entry i matches a lookup key k when it
// is valid and ((k ^ key) & mask) == 0: bits with mask 0 are "don't care". The lowest matching
// index wins (the control plane writes entries in precedence order: LPM longest prefix first,
// ternary by priority); result_data is its data and result_index its index. A miss gives
// result_hit 0, result_data 0. With an all-ones mask it is a BCAM (exact match).
//
// ce is the pipeline's clock enable. Every register on the lookup path advances only in cycles
// with ce = 1 and holds otherwise. Latency 2 enabled cycles: a lookup presented in a cycle with
// ce = 1 shows on result_* after the second enabled clock edge from there, and stays there until
// the next enabled edge. One lookup per enabled cycle, back to back. result_valid is lookup_valid
// delayed the same way.
//   enabled edge 1: every entry compares the key in parallel; the match vector is registered.
//   enabled edge 2: a priority encoder picks the lowest set bit, its data is multiplexed out, and
//                   hit/index/data are registered into result_*.
// Two stages because the compare (a KEY_W-wide reduction per entry) and the ENTRIES-wide priority
// encoder and data multiplexer would not both fit in one cycle for a table of any size.
//
// Writes (wr_en for one cycle, whatever ce is): entry wr_index gets {wr_valid, wr_key, wr_mask,
// wr_data}; wr_valid = 0 deletes; wr_index >= ENTRIES is ignored. A lookup sees the table as it
// was at its first enabled edge, except that an entry written at that edge or after it, before the
// lookup's second enabled edge, is dropped from its match vector: a lookup in flight sees a
// rewritten entry as deleted (never the old entry's match with the new entry's data). A lookup
// whose first enabled edge comes after a write sees the write. After reset every entry is invalid.
`default_nettype none

module p4f_table_tcam #(
    parameter int KEY_W   = 32,                                // key width in bits
    parameter int DATA_W  = 16,                                // result data width in bits
    parameter int ENTRIES = 16,                                // entries, at least 1
    parameter int IDX_W   = ENTRIES > 1 ? $clog2(ENTRIES) : 1  // wr_index width (derived)
) (
    input  wire logic              clk,
    input  wire logic              rst,
    input  wire logic              ce,

    input  wire logic              lookup_valid,
    input  wire logic [KEY_W-1:0]  lookup_key,

    output logic                   result_valid,
    output logic                   result_hit,
    output logic      [IDX_W-1:0]  result_index,  // the winning entry
    output logic      [DATA_W-1:0] result_data,   // 0 on a miss

    input  wire logic              wr_en,
    input  wire logic [IDX_W-1:0]  wr_index,
    input  wire logic              wr_valid,
    input  wire logic [KEY_W-1:0]  wr_key,
    input  wire logic [KEY_W-1:0]  wr_mask,
    input  wire logic [DATA_W-1:0] wr_data
);
    if (ENTRIES < 1) begin : g_bad_entries
        $error("p4f_table_tcam: ENTRIES must be at least 1");
    end

    // ---- The entries.
    logic [ENTRIES-1:0] ent_valid;
    logic [KEY_W-1:0]   ent_key  [ENTRIES];
    logic [KEY_W-1:0]   ent_mask [ENTRIES];
    logic [DATA_W-1:0]  ent_data [ENTRIES];
    logic [ENTRIES-1:0] we;

    for (genvar i = 0; i < ENTRIES; i++) begin : g_ent
        assign we[i] = wr_en && wr_index == IDX_W'(i);
        always_ff @(posedge clk) begin
            if (we[i]) begin
                ent_key[i]  <= wr_key;
                ent_mask[i] <= wr_mask;
                ent_data[i] <= wr_data;
            end
        end
        always_ff @(posedge clk) begin
            if (rst)        ent_valid[i] <= 1'b0;
            else if (we[i]) ent_valid[i] <= wr_valid;
        end
    end

    // ---- Stage 1: compare every entry; a write clears the entry's bit of a lookup in flight.
    logic [ENTRIES-1:0] s1_match;
    logic               s1_valid;
    for (genvar i = 0; i < ENTRIES; i++) begin : g_cmp
        wire logic m = ent_valid[i] && ((lookup_key ^ ent_key[i]) & ent_mask[i]) == '0;
        always_ff @(posedge clk) begin
            if (ce)          s1_match[i] <= m && !we[i];
            else if (we[i])  s1_match[i] <= 1'b0;
        end
    end

    // ---- Stage 2: the lowest set bit of the match vector, its index and data, by a binary tree
    // (log2(ENTRIES) levels of 2:1 multiplexers, the lower half winning): shallow logic, where a
    // loop over the entries would make a chain ENTRIES long.
    localparam int LEAVES = 1 << IDX_W;
    logic [LEAVES-1:0]             t_hit;
    logic [LEAVES-1:0][IDX_W-1:0]  t_index;
    logic [LEAVES-1:0][DATA_W-1:0] t_data;
    always_comb begin
        for (int i = 0; i < LEAVES; i++) begin
            t_hit[i]   = i < ENTRIES ? s1_match[i % ENTRIES] : 1'b0;
            t_index[i] = IDX_W'(i);
            t_data[i]  = ent_data[i % ENTRIES];
        end
        // Level by level, in place: node i of a level is built from nodes 2i and 2i+1 of the one
        // below, which no lower node of this level has overwritten yet.
        for (int n = LEAVES / 2; n >= 1; n = n / 2) begin
            for (int i = 0; i < n; i++) begin
                t_index[i] = t_hit[2 * i] ? t_index[2 * i] : t_index[2 * i + 1];
                t_data[i]  = t_hit[2 * i] ? t_data[2 * i]  : t_data[2 * i + 1];
                t_hit[i]   = t_hit[2 * i] || t_hit[2 * i + 1];
            end
        end
    end

    always_ff @(posedge clk) begin
        if (ce) begin
            result_hit   <= s1_valid && t_hit[0];
            result_index <= t_index[0];
            result_data  <= s1_valid && t_hit[0] ? t_data[0] : '0;
        end
    end

    always_ff @(posedge clk) begin
        if (rst) begin
            s1_valid     <= 1'b0;
            result_valid <= 1'b0;
        end else if (ce) begin
            s1_valid     <= lookup_valid;
            result_valid <= s1_valid;
        end
    end

endmodule

`default_nettype wire

// p4f_table_tcam_bram: ternary match table on block RAM, lowest index wins.
//
// The lookup interface and its meaning are those of p4f_table_tcam: entry i matches a key k when
// it is valid and ((k ^ key) & mask) == 0; the lowest matching index wins; result_index its index,
// result_data its data, a miss gives result_hit 0, result_data 0; an all-ones mask makes it a
// BCAM. ce stalls every lookup register; one lookup per enabled cycle, back to back.
//
// Structure. The key (zero-padded to NSLICES * SLICE_W bits) is cut into NSLICES slices of
// SLICE_W bits. Slice s has a RAM of 2^SLICE_W rows; bit j of row v is 1 when entry j is valid and
// its key and mask accept the value v in slice s (so the valid bit is in the bitmaps: an invalid
// entry's bits are 0). A lookup reads one row per slice (addressed by its key's slices), ANDs them,
// and a two-level priority encoder picks the lowest set bit (the first group of GS = 32 entries with
// a match, then its first entry); the data comes from a RAM by index. A row is 9 * NLANES columns
// in lanes of 9 (a 7-series block RAM's byte with its parity bit; the unit of a write): entries
// 8L .. 8L+7 and 8 * NLANES + L in lane L (so an entry's lane is a shift or a subtraction away);
// then one spare lane, whose bit 0 is the spare column (below). A key/mask RAM of ENTRIES x
// {valid, mask, key} keeps every entry for the update engine.
//
// Latency 4 enabled (ce) cycles, result_valid being lookup_valid delayed the same way.
// Every stage is at most a few LUTs deep (the AND is cut by a register, the encoder in two):
//   enabled edge 1: every slice RAM is read at the key's slice (block RAM output register);
//   enabled edge 2: the AND's first level: pieces of 6 rows (AND_P per entry), registered;
//   enabled edge 3: the AND's root gives the match vector (the entry being moved taken out, in a
//                   piece or per group); per group whether an entry matches (the spare entry
//                   counting in its entry's group); the first such group, one-hot; the match
//                   vector kept for that group only (the others zeroed);
//   enabled edge 4: the OR of the groups is the winning group's entries (the spare standing in for
//                   its entry), its lowest set bit the index; the data RAM is read at that index
//                   (its output register, reset on a miss or when the spare wins): result_* show
//                   after this edge and stay until the next enabled edge.
//
// After reset the RAMs are cleared, one row per cycle for max(2^SLICE_W, ENTRIES) cycles whatever
// ce is: wr_ready is 0 meanwhile and a lookup whose first enabled edge falls in them misses. After
// that every entry is invalid. A reset during an update abandons it.
//
// Writes. wr_ready is 1 when a write may be presented. A write is taken at an edge with wr_en and
// wr_ready (whatever ce is); wr_index >= ENTRIES is ignored. A write of entry i (wr_valid 0
// deletes it) takes UPDATE_CYCLES = 2 * 2^SLICE_W + 2 enabled cycles after the edge it is taken at
// (1026 with SLICE_W 9); wr_ready is 0 meanwhile. The engine advances only in enabled cycles, as
// lookups do (the RAMs' write port writes the engine's current row in every cycle of a phase,
// enabled or not: a row written again gets the same bits):
//   phase 1 (2^SLICE_W enabled edges): every row of the spare column gets the new entry's bits,
//     one row per edge in all slices at once; meanwhile the key/mask RAM gives the keys and masks
//     of the 9 entries of i's lane (i's own is the new one, written when the write was taken);
//   flip (1 enabled edge): entry i's column is hidden and the spare column stands for entry i (its
//     index and data are registers, set at this edge);
//   phase 2 (2^SLICE_W enabled edges): every row of i's lane is rewritten from the 9 keys and
//     masks: entry i's bits become the new ones, the other 8 are written as they already were;
//   unflip (1 enabled edge): entry i's column is shown again, the data RAM gets the new data, and
//     the spare column is released.
// Consistency: a lookup is interpreted with the state after its first enabled edge (carried along
// the pipeline: the hidden entry, the spare's data) and the rows it read at that edge: before the
// flip it sees the old entry i in full (its column is untouched until after the flip, and its data
// is read at its 4th enabled edge, at most 2 enabled edges after the flip, well before the unflip
// writes the data RAM);
// from the flip to the unflip it sees the new entry in the spare column (written in full before the
// flip; its data is carried along the pipeline); after the unflip it sees the new entry in column
// i (rewritten in full before the unflip). So a lookup sees every entry either as it was or as
// rewritten, never a mix of old and new slice bits, and once a lookup has seen the new entry no
// later one sees the old.
`default_nettype none

module p4f_table_tcam_bram #(
    parameter int KEY_W   = 32,                                // key width in bits
    parameter int DATA_W  = 16,                                // result data width in bits
    parameter int ENTRIES = 16,                                // entries, at least 1
    parameter int SLICE_W = 9,                                 // key bits per slice RAM (4 .. 12)
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

    output logic                   wr_ready,      // a write may be taken
    input  wire logic              wr_en,
    input  wire logic [IDX_W-1:0]  wr_index,
    input  wire logic              wr_valid,
    input  wire logic [KEY_W-1:0]  wr_key,
    input  wire logic [KEY_W-1:0]  wr_mask,
    input  wire logic [DATA_W-1:0] wr_data
);
    localparam int NSLICES = (KEY_W + SLICE_W - 1) / SLICE_W;
    localparam int KEY_P   = NSLICES * SLICE_W;        // padded key width
    localparam int ROWS    = 1 << SLICE_W;
    localparam int LANE    = 9;                        // entries per write lane
    localparam int NLANES  = (ENTRIES + LANE - 1) / LANE;
    localparam int ROW_W   = (NLANES + 1) * LANE;      // the entries' lanes, then the spare lane
    localparam int SPARE   = NLANES * LANE;            // the spare column
    // Entry j's column: entries 8L .. 8L+7 fill the first 8 bits of lane L, the rest (from N8 on)
    // bit 8 of lanes 0, 1, ...: finding an entry's lane then takes a shift or a subtraction, not a
    // division by 9 (the lookup does not care: the match vector is the columns in entry order).
    localparam int N8      = 8 * NLANES;
    localparam int LANE_W  = $clog2(NLANES + 1);
    localparam int CHUNK   = 8;                        // lanes per slice RAM
    localparam int NCHUNKS = (NLANES + CHUNK) / CHUNK;
    localparam int RD_W    = 4;                        // counts the 10 steps of the lane read
    localparam int INIT_N  = ROWS > ENTRIES ? ROWS : ENTRIES;  // cycles of the clearing after reset
    localparam int INIT_W  = $clog2(INIT_N);
    // The priority encoder works on NG groups of GS entries (the index padded to PAD_W bits): the
    // first group with a match in stage 3, the lowest entry of that group in stage 4.
    localparam int PAD_W   = IDX_W > 2 ? IDX_W : 2;
    localparam int GS_W    = PAD_W > 6 ? 5 : PAD_W - 1;
    localparam int NG_W    = PAD_W - GS_W;
    localparam int GS      = 1 << GS_W;
    localparam int NG      = 1 << NG_W;
    // The AND of an entry's NSLICES rows takes AND_L LUT6s (a k-input AND needs ceil((k-1)/5)):
    // AND_P of them, each the AND of 6 inputs, registered in stage 2, and the root, the AND of
    // those and the remaining inputs (at most 6), in stage 3. Registered, each piece is one LUT
    // whatever the mapper prefers (it builds a 16-input AND from 4 LUTs to save a level).
    // The hidden entry (below) is taken out of the match vector where it costs no LUT: in the AND
    // when its two extra inputs (hide_hi, hide_lo) fit in those LUTs, else in the OR of each group
    // in stage 3 only.
    localparam int AND_L   = NSLICES > 1 ? (NSLICES + 3) / 5 : 1;
    localparam int AND_P   = AND_L - 1;
    localparam bit HIDE_IN_AND = 5 * AND_L + 1 >= NSLICES + 2;
    localparam int AND_IN  = NSLICES + (HIDE_IN_AND ? 2 : 0);   // inputs of an entry's AND
    localparam int AND_R   = AND_IN > 6 * AND_P ? AND_IN - 6 * AND_P : 0;  // inputs not in a part
    localparam int ROOT_W  = AND_P + AND_R;                     // inputs of the root (at most 6)
    localparam int KM_W    = 2 * KEY_W + 1;            // {valid, mask, key}

    if (ENTRIES < 1) begin : g_bad_entries
        $error("p4f_table_tcam_bram: ENTRIES must be at least 1");
    end
    if (SLICE_W < 4 || SLICE_W > 12) begin : g_bad_slice
        $error("p4f_table_tcam_bram: SLICE_W must be from 4 to 12");
    end

    function automatic logic slice_match(input logic [SLICE_W-1:0] v, input logic [SLICE_W-1:0] key,
                                         input logic [SLICE_W-1:0] mask);
        slice_match = ((v ^ key) & mask) == '0;
    endfunction

    // The k-th entry of lane l (k from 0 to 8; it may be past the last entry).
    function automatic int member(input logic [LANE_W-1:0] l, input logic [RD_W-1:0] k);
        member = k < 8 ? 8 * int'(l) + int'(k) : N8 + int'(l);
    endfunction

    // ---- The update engine: its state, and the write being made.
    typedef enum logic [2:0] {INIT, IDLE, P1, FLIP, P2, UNFLIP} state_t;
    state_t             state;
    logic [INIT_W-1:0]  init_row;
    logic [SLICE_W-1:0] row, row_nx;                   // row_nx: row + 1
    logic [RD_W-1:0]    rd_step;
    logic [IDX_W-1:0]   n_index;
    logic               n_valid;
    logic [KEY_P-1:0]   n_key, n_mask;
    logic [DATA_W-1:0]  n_data;
    logic [LANE_W-1:0]  n_lane;
    logic [LANE-1:0]    l_valid;                       // the lane's entries
    logic [KEY_P-1:0]   l_key  [LANE];
    logic [KEY_P-1:0]   l_mask [LANE];
    wire logic          step = ce && state != IDLE && state != INIT;

    assign wr_ready = state == IDLE;
    wire logic take = wr_en && wr_ready && 32'(wr_index) < ENTRIES;

    // ---- The spare column: while remap is 1 it stands for entry n_index, whose own column is
    // hidden (hide_hi/hide_lo: its group and its place in the group, one-hot while remapped;
    // sp_lo: its place in the group).
    logic                 remap;
    logic [GS_W-1:0]      sp_lo;
    logic [DATA_W-1:0]    sp_data;
    logic [NG-1:0]        hide_hi;
    logic [GS-1:0]        hide_lo;

    always_ff @(posedge clk) begin
        if (rst) begin
            state    <= INIT;
            init_row <= '0;
            remap    <= 1'b0;
            hide_hi  <= '0;
            hide_lo  <= '0;
        end else begin
            if (state == INIT) begin
                init_row <= init_row + 1'b1;
                if (32'(init_row) == INIT_N - 1) state <= IDLE;
            end
            if (take) state <= P1;
            if (step) begin
                case (state)
                    P1: if (&row) state <= FLIP;      // the last spare row
                    FLIP: begin
                        state   <= P2;
                        remap   <= 1'b1;
                        hide_hi <= NG'(1) << (32'(n_index) >> GS_W);
                        hide_lo <= GS'(1) << (32'(n_index) % GS);
                    end
                    P2: if (&row) state <= UNFLIP;    // the last row of the lane
                    UNFLIP: begin
                        state   <= IDLE;
                        remap   <= 1'b0;
                        hide_hi <= '0;
                        hide_lo <= '0;
                    end
                    default: ;
                endcase
            end
        end
    end

    // n_valid and l_valid are reset so that the clearing after reset writes zeros (below).
    always_ff @(posedge clk) begin
        if (rst)       n_valid <= 1'b0;
        else if (take) n_valid <= wr_valid;
    end
    always_ff @(posedge clk) begin
        if (take) begin
            n_index   <= wr_index;
            n_key     <= KEY_P'(wr_key);
            n_mask    <= KEY_P'(wr_mask);
            n_data    <= wr_data;
            n_lane    <= 32'(wr_index) < N8 ? LANE_W'(wr_index >> 3) : LANE_W'(32'(wr_index) - N8);
            row       <= '0;
            row_nx    <= SLICE_W'(1);
            rd_step   <= '0;
        end else if (step) begin
            if (advance) begin
                row    <= row_nx;
                row_nx <= row_nx + 1'b1;
            end
            if (state == P1 && rd_step != RD_W'(LANE + 1)) rd_step <= rd_step + 1'b1;
        end
        if (step && state == FLIP) begin
            sp_lo    <= GS_W'(n_index);
            sp_data  <= n_data;
        end
    end

    // ---- The key/mask RAM: cleared after reset, written when a write is taken, read by the engine
    // in phase 1 (one enabled step per lane entry: the address at step c, the word into l_*[c-1] at
    // step c+1).
    logic [KM_W-1:0]       km_mem [ENTRIES];
    logic [KM_W-1:0]       km_q;
    wire logic [IDX_W-1:0] km_ra = IDX_W'(member(n_lane, rd_step));
    wire logic             km_init = state == INIT && 32'(init_row) < ENTRIES;
    always_ff @(posedge clk) begin
        if (take)         km_mem[wr_index] <= {wr_valid, wr_mask, wr_key};
        else if (km_init) km_mem[IDX_W'(init_row)] <= '0;
    end
    always_ff @(posedge clk) begin
        if (step) km_q <= km_mem[km_ra];
    end
    always_ff @(posedge clk) begin
        if (rst) l_valid <= '0;
        else if (step && state == P1) begin
            for (int k = 0; k < LANE; k++)
                if (rd_step == RD_W'(k + 1)) l_valid[k] <= km_q[KM_W-1] && member(n_lane, RD_W'(k)) < ENTRIES;
        end
    end
    always_ff @(posedge clk) begin
        if (step && state == P1) begin
            for (int k = 0; k < LANE; k++) begin
                if (rd_step == RD_W'(k + 1)) begin
                    l_key[k]   <= KEY_P'(km_q[KEY_W-1:0]);
                    l_mask[k]  <= KEY_P'(km_q[2*KEY_W-1:KEY_W]);
                end
            end
        end
    end

    // ---- The slice RAMs. One write port, which writes the current row in every cycle of a phase,
    // enabled or not (the row and the value change only in enabled cycles, so a row written again
    // gets the same bits; a row is written at the latest at the enabled edge that leaves it): the
    // clearing after reset writes zeros in every lane (the match inputs are reset), phase 1 the
    // spare lane, phase 2 the entry's lane. The 9-bit lane value is repeated across the row and the
    // lanes enabled. The lane enables are flip-flops (lane_sel, set and cleared through their
    // shared reset and enable, one pair of signals per 8 lanes), so they cost no LUT per lane.
    wire logic advance = step && (state == P1 || state == P2);   // the row moves on
    wire logic [SLICE_W-1:0] w_row = state == INIT ? SLICE_W'(init_row) : row;
    localparam int NSEL = (NLANES + 7) / 8;
    logic [NLANES-1:0] lane_sel;                       // the entries' lanes: the clearing, phase 2
    logic              spare_sel;                      // the spare lane: the clearing, phase 1
    wire logic         sel_clr = !rst && (state == INIT && 32'(init_row) == INIT_N - 1 || step && state == UNFLIP);
    logic [NSEL-1:0]   sel_ce;
    logic [7:0]        sel_d;
    always_comb begin
        for (int c = 0; c < NSEL; c++) sel_ce[c] = rst || step && state == FLIP && 32'(n_lane) / 8 == c;
        for (int k = 0; k < 8; k++) sel_d[k] = rst || 32'(n_lane) % 8 == k;
    end
    always_ff @(posedge clk) begin
        for (int l = 0; l < NLANES; l++) begin
            if (sel_clr)            lane_sel[l] <= 1'b0;
            else if (sel_ce[l / 8]) lane_sel[l] <= sel_d[l % 8];
        end
        if (rst) spare_sel <= 1'b1;
        else if (take) spare_sel <= 1'b1;
        else if (state == INIT && 32'(init_row) == INIT_N - 1 || step && state == FLIP) spare_sel <= 1'b0;
    end
    wire logic [NLANES:0] lane_we = {spare_sel, lane_sel};

    // Phase 2's match bits come from registered pieces, each one LUT: per lane entry and slice the
    // match of 2 key bits (and of the odd last bit with the valid bit), for the row the engine is
    // at: computed from row_nx when the row moves on (and reset, for the clearing). The spare's bit
    // in phase 1 is computed directly from row (one per slice).
    localparam int NPC = (SLICE_W + 1) / 2;
    logic [NSLICES-1:0][LANE-1:0][NPC-1:0] pc, pc_d;
    always_comb begin
        for (int s = 0; s < NSLICES; s++)
            for (int k = 0; k < LANE; k++)
                for (int p = 0; p < NPC; p++) begin
                    pc_d[s][k][p] = 1'b1;
                    for (int b = 2 * p; b < 2 * p + 2 && b < SLICE_W; b++)
                        pc_d[s][k][p] &= !l_mask[k][s*SLICE_W + b] || row_nx[b] == l_key[k][s*SLICE_W + b];
                    if (SLICE_W % 2 == 1 && p == NPC - 1) pc_d[s][k][p] &= l_valid[k];
                end
    end
    always_ff @(posedge clk) begin
        if (rst)          pc <= '0;
        else if (advance) pc <= pc_d;
    end

    logic [NSLICES*ROW_W-1:0] s1_rows;                 // slice s in bits [s*ROW_W +: ROW_W]
    wire logic [KEY_P-1:0] key_p = KEY_P'(lookup_key);
    for (genvar s = 0; s < NSLICES; s++) begin : g_slice
        logic [LANE-1:0] lane_val;
        always_comb begin
            for (int k = 0; k < LANE; k++) lane_val[k] = &pc[s][k] && (SLICE_W % 2 == 1 || l_valid[k]);
            if (spare_sel) lane_val[0] = n_valid && slice_match(row, n_key[s*SLICE_W +: SLICE_W], n_mask[s*SLICE_W +: SLICE_W]);
        end

        // One RAM per CHUNK lanes (a 512 x 72 block RAM with SLICE_W 9), each written by lane.
        for (genvar c = 0; c < NCHUNKS; c++) begin : g_chunk
            localparam int L0 = c * CHUNK;
            localparam int NL = NLANES + 1 - L0 < CHUNK ? NLANES + 1 - L0 : CHUNK;
            logic [NL*LANE-1:0] mem [ROWS];
            always_ff @(posedge clk) begin
                for (int l = 0; l < NL; l++)
                    if (lane_we[L0 + l]) mem[w_row][l*LANE +: LANE] <= lane_val;
            end
            always_ff @(posedge clk) begin
                if (ce) s1_rows[s*ROW_W + L0*LANE +: NL*LANE] <= mem[key_p[s*SLICE_W +: SLICE_W]];
            end
        end
    end

    // ---- Stage 2: the first level of the AND of the rows (see AND_L), the hidden entry taken out
    // here or in stage 3 (see HIDE_IN_AND); the spare entry's match, and the state the lookup is
    // interpreted with (that after its first edge): the hidden entry, the spare's data.
    // The AND works on whole rows (columns, not entries: vector operations, which Yosys elaborates
    // quickly); its input i is, with HIDE_IN_AND, for i = 0 and 1 the hidden entry taken out as one
    // term (hide_c, and ones: they always fall in the same piece), then the rows.
    localparam int HIDE_N = HIDE_IN_AND ? 2 : 0;
    localparam int EXT_W  = 9 * NLANES > NG * GS ? 9 * NLANES : NG * GS;
    // Columns to entries: entry j of the result is column col_of(j) (zeros past ENTRIES).
    function automatic logic [NG*GS-1:0] to_entries(input logic [ROW_W-1:0] c);
        to_entries = '0;
        for (int l = 0; l < NLANES; l++) begin
            for (int k = 0; k < 8; k++) if (8*l + k < ENTRIES) to_entries[8*l + k] = c[LANE*l + k];
            if (N8 + l < ENTRIES) to_entries[N8 + l] = c[LANE*l + 8];
        end
    endfunction
    // Entries to columns (the spare lane's columns 1).
    function automatic logic [ROW_W-1:0] to_columns(input logic [NG*GS-1:0] e);
        logic [EXT_W-1:0] x;
        x = '1;
        x[NG*GS-1:0] = e;
        to_columns = '1;
        for (int l = 0; l < NLANES; l++) begin
            to_columns[LANE*l +: 8]  = x[8*l +: 8];
            to_columns[LANE*l + 8]   = x[N8 + l];
        end
    endfunction
    function automatic logic [ROW_W-1:0] hidden_cols(input logic [NG-1:0] hi, input logic [GS-1:0] lo);
        logic [NG*GS-1:0] e;
        for (int g = 0; g < NG; g++) e[g*GS +: GS] = hi[g] ? ~lo : '1;
        hidden_cols = to_columns(e);
    endfunction
    wire logic [ROW_W-1:0] hide_c = hidden_cols(hide_hi, hide_lo);
    function automatic logic [ROW_W-1:0] and_in(input int i);
        if (i >= AND_IN || i == 1 && HIDE_N == 2) and_in = '1;      // (the last piece may be short)
        else if (i == 0 && HIDE_N == 2) and_in = hide_c;
        else and_in = s1_rows[(i - HIDE_N)*ROW_W +: ROW_W];
    endfunction
    logic [ROOT_W-1:0][ROW_W-1:0] s2_in_d;    // the root's inputs
    always_comb begin
        for (int i = 0; i < AND_P; i++)
            s2_in_d[i] = and_in(6*i) & and_in(6*i + 1) & and_in(6*i + 2) & and_in(6*i + 3) & and_in(6*i + 4) & and_in(6*i + 5);
        // Without pieces the hidden entry is taken out in stage 3 (from s2_hide_*).
        for (int i = 0; i < AND_R; i++)
            s2_in_d[AND_P + i] = 6*AND_P + i < HIDE_N ? '1 : and_in(6*AND_P + i);
    end
    logic s2_sp_and;
    always_comb begin
        s2_sp_and = remap;
        for (int s = 0; s < NSLICES; s++) s2_sp_and &= s1_rows[s*ROW_W + SPARE];
    end

    logic                         s1_valid, s1_ok, s2_valid, s2_ok, s3_valid;
    logic [ROOT_W-1:0][ROW_W-1:0] s2_in;
    logic                         s2_sp_hit;
    logic [NG-1:0]                s2_hide_hi;
    logic [GS-1:0]                s2_hide_lo;
    logic [GS_W-1:0]              s2_sp_lo;
    logic [DATA_W-1:0]            s2_sp_data;
    always_ff @(posedge clk) begin
        if (ce) begin
            s2_in      <= s2_in_d;
            s2_sp_hit  <= s2_sp_and;
            s2_hide_hi <= hide_hi;
            s2_hide_lo <= hide_lo;
            s2_sp_lo   <= sp_lo;
            s2_sp_data <= sp_data;
        end
    end

    // ---- Stage 3: the root of the AND (the match vector); per group of GS entries whether one
    // matches (the hidden one not counting, the spare counting in its group), and the first such
    // group, one-hot, by blocks of FB groups; the match vector carried along with every other
    // group zeroed, so that stage 4 gets the winning group by an OR instead of a multiplexer (the
    // zeroing is the flip-flops' own synchronous reset: one signal per group, no LUT per entry).
    logic [ROW_W-1:0] root;
    always_comb begin
        root = HIDE_N == 2 && AND_P == 0 ? hidden_cols(s2_hide_hi, s2_hide_lo) : '1;
        for (int i = 0; i < ROOT_W; i++) root &= s2_in[i];
    end
    wire logic [NG*GS-1:0] match = to_entries(root);
    localparam int FB   = NG < 8 ? NG : 8;
    localparam int NFB  = NG / FB;
    logic [NG-1:0]  any_eff, first_1h;
    logic [NFB-1:0] blk_any;
    always_comb begin
        for (int g = 0; g < NG; g++) begin
            if (HIDE_IN_AND) any_eff[g] = |match[g*GS +: GS];
            else any_eff[g] = |(match[g*GS +: GS] & ~(s2_hide_hi[g] ? s2_hide_lo : '0));
            any_eff[g] = any_eff[g] || (s2_sp_hit && s2_hide_hi[g]);
        end
        for (int f = 0; f < NFB; f++) blk_any[f] = |any_eff[f*FB +: FB];
        for (int f = 0; f < NFB; f++) begin
            for (int k = 0; k < FB; k++) begin
                first_1h[f*FB + k] = any_eff[f*FB + k];
                for (int e = 0; e < f; e++) first_1h[f*FB + k] &= !blk_any[e];
                for (int e = 0; e < k; e++) first_1h[f*FB + k] &= !any_eff[f*FB + e];
            end
        end
    end

    logic [NG*GS-1:0]  s3_match;
    logic [NG-1:0]     s3_first;
    logic              s3_hit, s3_sp_hit;
    logic [NG-1:0]     s3_hide_hi;
    logic [GS-1:0]     s3_sp_bit;
    logic [GS_W-1:0]   s3_sp_lo;
    logic [DATA_W-1:0] s3_sp_data;
    always_ff @(posedge clk) begin
        if (ce) begin
            for (int g = 0; g < NG; g++)
                s3_match[g*GS +: GS] <= first_1h[g] ? match[g*GS +: GS] : '0;
            s3_first   <= first_1h;
            s3_hit     <= s2_valid && s2_ok && |blk_any;
            s3_hide_hi <= s2_hide_hi;
            s3_sp_hit  <= s2_sp_hit;
            s3_sp_bit  <= s2_hide_lo;
            s3_sp_lo   <= s2_sp_lo;
            s3_sp_data <= s2_sp_data;
        end
    end

    // ---- Stage 4: the winning group's entries (the OR of the groups), the spare standing for its
    // entry; the lowest set bit; the data RAM read at that index (written at the unflip), its
    // output register reset unless the hit is in the data RAM; the spare entry's data beside it.
    // Whether the spare's group won (here rather than in stage 3, beside the OR of the groups).
    wire logic s3_in_sp = |(s3_first & s3_hide_hi);
    logic [GS-1:0]   grp_raw, grp;
    logic [NG_W-1:0] win_g;
    always_comb begin
        grp_raw = '0;
        win_g   = '0;
        for (int g = 0; g < NG; g++) begin
            grp_raw |= s3_match[g*GS +: GS];
            if (s3_first[g]) win_g |= NG_W'(g);
        end
        for (int b = 0; b < GS; b++) grp[b] = s3_in_sp && s3_sp_bit[b] ? s3_sp_hit : grp_raw[b];
    end
    // The lowest set bit of grp, shallow: per sub-block of SB entries whether one is set and the
    // lowest (each output a function of SB inputs), then the first sub-block's.
    localparam int SB_W = GS_W > 3 ? 3 : GS_W;
    localparam int SB   = 1 << SB_W;
    localparam int NSB  = GS / SB;
    logic [NSB-1:0]           sb_any;
    logic [NSB-1:0][SB_W-1:0] sb_low;
    logic [GS_W-1:0]          first_b;
    always_comb begin
        for (int q = 0; q < NSB; q++) begin
            sb_any[q] = |grp[q*SB +: SB];
            sb_low[q] = '0;
            for (int i = SB - 1; i >= 0; i--) if (grp[q*SB + i]) sb_low[q] = SB_W'(i);
        end
        first_b = '0;
        for (int q = NSB - 1; q >= 0; q--) if (sb_any[q]) first_b = GS_W'(q * SB) | GS_W'(sb_low[q]);
    end
    wire logic [IDX_W-1:0] win  = IDX_W'({win_g, first_b});
    // The spare entry wins when it stands in the winning group and no entry of the group before it
    // matches (a mask, beside the encoder rather than after it).
    logic [GS-1:0] sp_before;
    always_comb begin
        for (int i = 0; i < GS; i++) sp_before[i] = GS_W'(i) < s3_sp_lo;
    end
    wire logic use_sp = s3_in_sp && s3_sp_hit && (grp_raw & sp_before) == '0;

    logic [DATA_W-1:0] d_mem [ENTRIES];
    logic [DATA_W-1:0] d_q, r_sp_data;
    always_ff @(posedge clk) begin
        if (step && state == UNFLIP) d_mem[n_index] <= n_data;
    end
    always_ff @(posedge clk) begin
        if (ce) begin
            if (!s3_hit || use_sp) d_q <= '0;
            else                   d_q <= d_mem[win];
        end
    end
    always_ff @(posedge clk) begin
        if (ce) begin
            result_hit   <= s3_hit;
            result_index <= win;
            r_sp_data    <= s3_hit && use_sp ? s3_sp_data : '0;
        end
    end
    assign result_data = d_q | r_sp_data;

    // s1_ok: the clearing was over before the lookup's first edge (else the rows it read may be stale).
    always_ff @(posedge clk) begin
        if (rst) begin
            s1_valid     <= 1'b0;
            s2_valid     <= 1'b0;
            s3_valid     <= 1'b0;
            result_valid <= 1'b0;
        end else if (ce) begin
            s1_valid     <= lookup_valid;
            s2_valid     <= s1_valid;
            s3_valid     <= s2_valid;
            result_valid <= s3_valid;
        end
    end
    always_ff @(posedge clk) begin
        if (ce) begin
            s1_ok <= state != INIT;
            s2_ok <= s1_ok;
        end
    end

endmodule

`default_nettype wire

// p4f_table_tcam_bram: ternary match table on block RAM, lowest index wins.
//
// The lookup interface and its meaning are those of p4f_table_tcam: entry i matches a key k when
// it is valid and ((k ^ key) & mask) == 0; the lowest matching index wins; result_index its index,
// result_data its data, a miss gives result_hit 0, result_data 0; an all-ones mask makes it a
// BCAM. ce stalls every lookup register; one lookup per enabled cycle, back to back.
//
// Structure. The key (zero-padded to NSLICES * SLICE_W bits) is cut into NSLICES slices of
// SLICE_W bits. Slice s has a RAM of 2^SLICE_W rows; bit j of row v says whether entry j's key and
// mask accept the value v in slice s. A lookup reads one row per slice (addressed by its key's
// slices), ANDs the rows and a valid vector (flops), and a priority encoder picks the lowest set
// bit; the data comes from a RAM by index. A row is ENTRIES bits in lanes of 9 (a 7-series block
// RAM's byte with its parity bit) plus one spare lane, whose bit 0 is the spare column (below).
// A key/mask RAM (ENTRIES x 2*KEY_W) keeps every entry's key and mask for the update engine.
//
// Latency 4 enabled (ce) cycles, result_valid being lookup_valid delayed the same way:
//   enabled edge 1: every slice RAM is read at the key's slice (block RAM output register);
//   enabled edge 2: the rows are ANDed with each other and the valid vector into a match vector;
//   enabled edge 3: a priority encoder picks the lowest set bit (or the spare entry, below);
//   enabled edge 4: the data RAM is read at that index (its output register, reset on a miss):
//                   result_* show after this edge and stay until the next enabled edge.
//
// Writes. wr_ready is 1 when a write may be presented. A write is taken at an edge with wr_en and
// wr_ready (whatever ce is); wr_index >= ENTRIES is ignored. A delete (wr_valid 0) clears the
// entry's valid bit at that edge and wr_ready stays 1. An insert or rewrite of entry i takes
// UPDATE_CYCLES = 2 * 2^SLICE_W + 2 enabled cycles after the edge it is taken at (wr_ready is 0
// meanwhile; 1026 with SLICE_W 9); the engine advances only in enabled cycles, as lookups do:
//   phase 1 (2^SLICE_W enabled edges): every row of the spare column gets the new entry's bits,
//     one row per edge in all slices at once; meanwhile the key/mask RAM gives the keys and masks
//     of the 9 entries of i's lane (i's own is the new one, written when the write was taken);
//   flip (1 enabled edge): entry i's valid bit is cleared and the spare column stands for entry i
//     (its index and data are registers, set at this edge);
//   phase 2 (2^SLICE_W enabled edges): every row of i's lane is rewritten from the 9 keys and
//     masks: entry i's bits become the new ones, the other 8 are written as they already were;
//   unflip (1 enabled edge): entry i's valid bit is set, the data RAM gets the new data, and the
//     spare column is released.
// Consistency: a lookup is interpreted with the state after its first enabled edge and the rows it
// read at that edge: before the flip it sees the old entry i in full (its column is untouched and
// its data is read at most 2 enabled edges after the flip, before the unflip writes the data RAM);
// from the flip to the unflip it sees the new entry in the spare column (written in full before the
// flip; its data is carried along the pipeline); after the unflip it sees the new entry in column
// i (rewritten in full before the unflip). So a lookup sees every entry either as it was or as
// rewritten, never a mix of old and new slice bits, and once a lookup has seen the new entry no
// later one sees the old. After reset every entry is invalid (the RAMs are not cleared, nor need
// to be); a reset during an update abandons it.
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
    localparam int LANE_W  = NLANES > 1 ? $clog2(NLANES + 1) : 1;
    localparam int RD_W    = 4;                        // counts the 10 steps of the lane read

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

    // ---- The update engine: its state, and the write being made.
    typedef enum logic [1:0] {IDLE, P1, P2, UNFLIP} state_t;
    state_t             state;
    logic [SLICE_W-1:0] row;
    logic [RD_W-1:0]    rd_step;
    logic [IDX_W-1:0]   n_index;
    logic [KEY_P-1:0]   n_key, n_mask;
    logic [DATA_W-1:0]  n_data;
    logic [IDX_W-1:0]   lane_base;                     // first entry of n_index's lane
    logic [LANE_W-1:0]  n_lane;
    logic [KEY_P-1:0]   l_key  [LANE];                 // the lane's keys and masks
    logic [KEY_P-1:0]   l_mask [LANE];
    logic               flip_done;                     // the spare column stands for n_index
    wire logic          step = ce && state != IDLE;

    assign wr_ready = state == IDLE;
    wire logic take   = wr_en && wr_ready && 32'(wr_index) < ENTRIES;
    wire logic insert = take && wr_valid;

    // ---- Valid bits, the spare entry's registers.
    logic [ENTRIES-1:0] ent_valid;
    logic               remap;                         // the spare column is entry sp_index
    logic [IDX_W-1:0]   sp_index;
    logic [DATA_W-1:0]  sp_data;

    always_ff @(posedge clk) begin
        if (rst) begin
            state     <= IDLE;
            ent_valid <= '0;
            remap     <= 1'b0;
            flip_done <= 1'b0;
        end else begin
            if (take && !wr_valid) ent_valid[wr_index] <= 1'b0;
            if (insert) begin
                state     <= P1;
                flip_done <= 1'b0;
            end
            if (step) begin
                case (state)
                    P1: if (&row) begin               // the last spare row: the flip is next
                        state <= P2;
                    end
                    P2: begin
                        if (!flip_done) begin         // the flip (no RAM write in this step)
                            flip_done            <= 1'b1;
                            ent_valid[n_index]   <= 1'b0;
                            remap                <= 1'b1;
                        end else if (&row) begin
                            state <= UNFLIP;
                        end
                    end
                    UNFLIP: begin
                        ent_valid[n_index] <= 1'b1;
                        remap              <= 1'b0;
                        state              <= IDLE;
                    end
                    default: ;
                endcase
            end
        end
    end

    always_ff @(posedge clk) begin
        if (insert) begin
            n_index   <= wr_index;
            n_key     <= KEY_P'(wr_key);
            n_mask    <= KEY_P'(wr_mask);
            n_data    <= wr_data;
            lane_base <= IDX_W'((32'(wr_index) / LANE) * LANE);
            n_lane    <= LANE_W'(32'(wr_index) / LANE);
            row       <= '0;
            rd_step   <= '0;
        end else if (step) begin
            if (state == P1 || (state == P2 && flip_done)) row <= row + 1'b1;
            if (state == P1 && rd_step != RD_W'(LANE + 1)) rd_step <= rd_step + 1'b1;
        end
        if (step && state == P2 && !flip_done) begin
            sp_index <= n_index;
            sp_data  <= n_data;
        end
    end

    // ---- The key/mask RAM: written when a write is taken, read by the engine (one enabled step
    // per lane entry, in phase 1: the address at step c, the word into l_*[c-1] at step c+1).
    logic [2*KEY_W-1:0] km_mem [ENTRIES];
    logic [2*KEY_W-1:0] km_q;
    wire logic [IDX_W-1:0] km_ra = lane_base + IDX_W'(rd_step);
    always_ff @(posedge clk) begin
        if (insert) km_mem[wr_index] <= {wr_mask, wr_key};
    end
    always_ff @(posedge clk) begin
        if (step) km_q <= km_mem[km_ra];
    end
    always_ff @(posedge clk) begin
        if (step && state == P1) begin
            for (int k = 0; k < LANE; k++) begin
                if (rd_step == RD_W'(k + 1)) begin
                    l_key[k]  <= KEY_P'(km_q[KEY_W-1:0]);
                    l_mask[k] <= KEY_P'(km_q[2*KEY_W-1:KEY_W]);
                end
            end
        end
    end

    // ---- The slice RAMs. One write port: phase 1 writes the spare lane of row `row`, phase 2 the
    // entry's lane; the 9-bit lane value is repeated across the row and one lane enabled.
    wire logic           row_we  = step && (state == P1 || (state == P2 && flip_done));
    wire logic [LANE_W-1:0] we_lane = state == P1 ? LANE_W'(NLANES) : n_lane;
    logic [NLANES:0]     lane_we;
    always_comb begin
        for (int l = 0; l <= NLANES; l++) lane_we[l] = row_we && we_lane == LANE_W'(l);
    end

    logic [ROW_W-1:0] s1_row [NSLICES];
    wire logic [KEY_P-1:0] key_p = KEY_P'(lookup_key);
    for (genvar s = 0; s < NSLICES; s++) begin : g_slice
        logic [LANE-1:0] lane_val;
        always_comb begin
            if (state == P1) begin
                lane_val    = '0;
                lane_val[0] = slice_match(row, n_key[s*SLICE_W +: SLICE_W], n_mask[s*SLICE_W +: SLICE_W]);
            end else begin
                for (int k = 0; k < LANE; k++)
                    lane_val[k] = 32'(lane_base) + k < ENTRIES
                               && slice_match(row, l_key[k][s*SLICE_W +: SLICE_W], l_mask[k][s*SLICE_W +: SLICE_W]);
            end
        end

        logic [ROW_W-1:0] mem [ROWS];
        always_ff @(posedge clk) begin
            for (int l = 0; l <= NLANES; l++)
                if (lane_we[l]) mem[row][l*LANE +: LANE] <= lane_val;
        end
        always_ff @(posedge clk) begin
            if (ce) s1_row[s] <= mem[key_p[s*SLICE_W +: SLICE_W]];
        end
    end

    // ---- Stage 2: AND of the rows and the valid vector; the spare entry's match, index and data
    // as they are after the lookup's first edge.
    logic [ROW_W-1:0]   all_row;
    always_comb begin
        all_row = '1;
        for (int s = 0; s < NSLICES; s++) all_row &= s1_row[s];
    end

    logic               s1_valid, s2_valid, s3_valid;
    logic [ENTRIES-1:0] s2_match;
    logic               s2_sp_hit;
    logic [IDX_W-1:0]   s2_sp_index;
    logic [DATA_W-1:0]  s2_sp_data;
    always_ff @(posedge clk) begin
        if (ce) begin
            s2_match    <= all_row[ENTRIES-1:0] & ent_valid;
            s2_sp_hit   <= remap && all_row[SPARE];
            s2_sp_index <= sp_index;
            s2_sp_data  <= sp_data;
        end
    end

    // ---- Stage 3: the lowest set bit of the match vector by a binary tree (the lower half
    // winning), then the spare entry if it comes first.
    localparam int LEAVES = 1 << IDX_W;
    logic [LEAVES-1:0]            t_hit;
    logic [LEAVES-1:0][IDX_W-1:0] t_index;
    always_comb begin
        for (int i = 0; i < LEAVES; i++) begin
            t_hit[i]   = i < ENTRIES ? s2_match[i % ENTRIES] : 1'b0;
            t_index[i] = IDX_W'(i);
        end
        for (int n = LEAVES / 2; n >= 1; n = n / 2) begin
            for (int i = 0; i < n; i++) begin
                t_index[i] = t_hit[2 * i] ? t_index[2 * i] : t_index[2 * i + 1];
                t_hit[i]   = t_hit[2 * i] || t_hit[2 * i + 1];
            end
        end
    end
    wire logic use_sp = s2_sp_hit && (!t_hit[0] || s2_sp_index < t_index[0]);

    logic               s3_hit, s3_sp;
    logic [IDX_W-1:0]   s3_index;
    logic [DATA_W-1:0]  s3_sp_data;
    always_ff @(posedge clk) begin
        if (ce) begin
            s3_hit     <= s2_valid && (t_hit[0] || s2_sp_hit);
            s3_sp      <= use_sp;
            s3_index   <= use_sp ? s2_sp_index : t_index[0];
            s3_sp_data <= s2_sp_data;
        end
    end

    // ---- Stage 4: the data RAM (written at the unflip), its output register reset unless the hit
    // is in the data RAM; the spare entry's data beside it.
    logic [DATA_W-1:0] d_mem [ENTRIES];
    logic [DATA_W-1:0] d_q, r_sp_data;
    always_ff @(posedge clk) begin
        if (step && state == UNFLIP) d_mem[n_index] <= n_data;
    end
    always_ff @(posedge clk) begin
        if (ce) begin
            if (!s3_hit || s3_sp) d_q <= '0;
            else                  d_q <= d_mem[s3_index];
        end
    end
    always_ff @(posedge clk) begin
        if (ce) begin
            result_hit   <= s3_hit;
            result_index <= s3_index;
            r_sp_data    <= s3_hit && s3_sp ? s3_sp_data : '0;
        end
    end
    assign result_data = d_q | r_sp_data;

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

endmodule

`default_nettype wire

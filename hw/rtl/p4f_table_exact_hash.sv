// p4f_table_exact_hash: exact-match table, hashed and set-associative, keys and data in block RAM.
//
// BUCKETS buckets of WAYS ways. Slot (bucket, way) holds {valid, key, data}. A key lives in the
// bucket given by its hash: the CRC-32 of the key with polynomial 0x04C11DB7, initial value 0, no
// reflection and no final xor, over the key bits most significant first (lookup_key[KEY_W-1]
// first); the bucket is the CRC's low log2(BUCKETS) bits. The control plane (p4-rtl's
// tables::hash_bucket computes the same function) picks the slot: it writes a key only into a way
// of its own bucket, and never more than WAYS keys into one bucket.
//
// Lookup (lookup_valid, lookup_key): a hit when a valid way of the key's bucket holds that key;
// result_data is that way's data (the lowest such way if several do), result_index {bucket, way}.
// A miss gives result_hit 0, result_data 0. result_valid is lookup_valid delayed like the result.
//
// ce is the pipeline's clock enable. Every register on the lookup path, the RAM read included,
// advances only in cycles with ce = 1 and holds otherwise. Latency 2 enabled cycles: a lookup
// presented in a cycle with ce = 1 shows on result_* after the second enabled clock edge from
// there, and stays there until the next enabled edge. One lookup per enabled cycle, back to back.
//   enabled edge 1: the bucket (a combinational XOR network on lookup_key) addresses the WAYS
//                   RAMs, one per way, whose synchronous read (read enable = ce) captures the
//                   bucket's slots; lookup_key is registered beside them.
//   enabled edge 2: the WAYS stored keys are compared with the registered key, the lowest hitting
//                   way selected, and hit/data/index registered into result_*.
// Two stages because a block RAM read costs a clock edge and the wide compare after it would not
// fit in the same cycle as the hash before it.
//
// Writes (wr_en for one cycle, whatever ce is): slot (wr_bucket, wr_way) gets {wr_valid, wr_key,
// wr_data}; wr_valid = 0 deletes. A write to a way >= WAYS is ignored. A lookup whose first
// enabled edge comes after the write's edge sees it; one whose first enabled edge is the write's
// edge may see the bucket before or after the write. A lookup sees the table as it was at its
// first enabled edge (later writes do not reach it: the RAM read has already been taken).
//
// Reset: the valid bits live in the RAMs with the keys (flops for them would cost a LUT per slot
// to write and a BUCKETS-to-1 multiplexer per way to read), so after reset the module clears
// every bucket, one per cycle, all ways at once: init_done is 0 for BUCKETS cycles after rst
// falls. Lookups during that time miss; writes during that time are ignored.
`default_nettype none

module p4f_table_exact_hash #(
    parameter int KEY_W   = 32,                              // key width in bits
    parameter int DATA_W  = 16,                              // result data width in bits
    parameter int BUCKETS = 16,                              // buckets: a power of two, at least 2
    parameter int WAYS    = 4,                               // ways (slots) per bucket, at least 1
    parameter int BKT_W   = BUCKETS > 1 ? $clog2(BUCKETS) : 1, // wr_bucket width (derived)
    parameter int WAY_W   = WAYS > 1 ? $clog2(WAYS) : 1      // wr_way width (derived)
) (
    input  wire logic                     clk,
    input  wire logic                     rst,
    input  wire logic                     ce,
    output logic                          init_done,

    input  wire logic                     lookup_valid,
    input  wire logic [KEY_W-1:0]         lookup_key,

    output logic                          result_valid,
    output logic                          result_hit,
    output logic      [BKT_W+WAY_W-1:0]   result_index,  // {bucket, way} of the hit
    output logic      [DATA_W-1:0]        result_data,   // 0 on a miss

    input  wire logic                     wr_en,
    input  wire logic [BKT_W-1:0]         wr_bucket,
    input  wire logic [WAY_W-1:0]         wr_way,
    input  wire logic                     wr_valid,
    input  wire logic [KEY_W-1:0]         wr_key,
    input  wire logic [DATA_W-1:0]        wr_data
);
    localparam logic [31:0] POLY = 32'h04C11DB7;
    localparam int ENT_W = 1 + KEY_W + DATA_W;  // one slot: {valid, key, data}

    if (BUCKETS < 2 || (1 << BKT_W) != BUCKETS || BKT_W > 32) begin : g_bad_buckets
        $error("p4f_table_exact_hash: BUCKETS must be a power of two, at least 2");
    end
    if (WAYS < 1) begin : g_bad_ways
        $error("p4f_table_exact_hash: WAYS must be at least 1");
    end

    // ---- The hash. The CRC (initial value 0) is linear in the key bits: CRC bit j is the XOR of
    // the key bits whose own CRC has bit j set. The CRC of a key with only bit i set is POLY after
    // that bit is shifted in, then i zero bits more, so crc_mask(j) finds those bits at
    // elaboration and the hardware is one XOR per bucket bit.
    function automatic logic [KEY_W-1:0] crc_mask(input logic [4:0] j);
        logic [31:0] crc;
        logic [KEY_W-1:0] m;
        crc = POLY;                      // key bit 0: shifted in last
        m = '0;
        for (int i = 0; i < KEY_W; i++) begin
            m[i] = crc[j];
            crc = {crc[30:0], 1'b0} ^ (crc[31] ? POLY : 32'd0);  // one more bit after it
        end
        crc_mask = m;
    endfunction

    logic [BKT_W-1:0] lk_bucket;
    for (genvar j = 0; j < BKT_W; j++) begin : g_crc
        localparam logic [KEY_W-1:0] MASK = crc_mask(5'(j));
        assign lk_bucket[j] = ^(lookup_key & MASK);
    end

    // ---- Clearing after reset: one bucket per cycle, every way.
    logic             init_busy;
    logic [BKT_W-1:0] init_ptr;
    always_ff @(posedge clk) begin
        if (rst) begin
            init_busy <= 1'b1;
            init_ptr  <= '0;
        end else if (init_busy) begin
            init_ptr <= init_ptr + 1'b1;
            if (init_ptr == BKT_W'(BUCKETS - 1)) init_busy <= 1'b0;
        end
    end
    assign init_done = !init_busy;

    // The one write port of every way's RAM: the clearing walk, else the control plane.
    wire logic [BKT_W-1:0] w_addr  = init_busy ? init_ptr : wr_bucket;
    wire logic [ENT_W-1:0] w_entry = {wr_valid && !init_busy, wr_key, wr_data};

    // ---- Stage 1: the RAM reads, and the key, valid and bucket beside them.
    logic [ENT_W-1:0] s1_entry [WAYS];
    logic             s1_valid, s1_ok;
    logic [KEY_W-1:0] s1_key;
    logic [BKT_W-1:0] s1_bucket;

    for (genvar w = 0; w < WAYS; w++) begin : g_way
        logic [ENT_W-1:0] mem [BUCKETS];
        wire logic we = init_busy || (wr_en && wr_way == WAY_W'(w));
        always_ff @(posedge clk) begin
            if (we) mem[w_addr] <= w_entry;
        end
        // Synchronous read with ce as its enable: a block RAM port with its output latch.
        always_ff @(posedge clk) begin
            if (ce) s1_entry[w] <= mem[lk_bucket];
        end
    end

    always_ff @(posedge clk) begin
        if (ce) begin
            s1_key    <= lookup_key;
            s1_bucket <= lk_bucket;
            s1_ok     <= !init_busy;   // read before the bucket was cleared: a miss
        end
    end

    // ---- Stage 2: compare every way, lowest hit wins.
    logic              hit;
    logic [WAY_W-1:0]  hit_way;
    logic [DATA_W-1:0] hit_data;
    always_comb begin
        hit = 1'b0;
        hit_way = '0;
        hit_data = '0;
        for (int w = WAYS - 1; w >= 0; w--) begin
            if (s1_entry[w][ENT_W-1] && s1_entry[w][DATA_W +: KEY_W] == s1_key) begin
                hit = 1'b1;
                hit_way = WAY_W'(w);
                hit_data = s1_entry[w][DATA_W-1:0];
            end
        end
        hit = hit && s1_ok && s1_valid;
    end

    always_ff @(posedge clk) begin
        if (ce) begin
            result_hit   <= hit;
            result_index <= {s1_bucket, hit_way};
            result_data  <= hit ? hit_data : '0;
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

// p4f_pkt_buffer: packet buffer with a memory-management unit (the seed design's MMU: malloc and
// free of 256-byte pages, a packet id per packet).
//
// Storage: a RAM of BUF_BYTES/PAGE_BYTES pages, each PAGE_BYTES bytes (PAGE_BYTES/KEEP_W beats).
// A packet occupies a chain of pages; its id is the number of its first page.
//
// Write side (malloc): s_axis packets are stored as they arrive. The first beat of a packet, and
// every beat that starts a new page, takes a free page and links it after the previous one. On
// the tlast beat the descriptor {d_id, d_len, d_user} (d_len in bytes, d_user the tlast beat's
// tuser: e.g. the output port, so the descriptor can be queued without reading the packet) is queued for d_valid/d_ready
// (DESC_DEPTH deep; s_axis_tready goes low only while that queue is full). If a beat needs a page
// and none is free, the packet is dropped whole: its pages go back to the free pages, the rest of
// its beats are taken and discarded, no descriptor is made, and drop_count increments (on the
// tlast beat). A freed page can be allocated again from the second cycle after it was freed.
// tkeep: all ones on every beat but the last, contiguous from bit 0 on the last (as from a MAC);
// only the byte count is stored, and m_axis_tkeep is rebuilt from it. tuser is stored per beat.
//
// Read side: r_valid/r_ready with r_id (a descriptor's d_id) and r_free. The packet is read out
// on m_axis, one beat per cycle, back to back across requests. With r_free each page goes back
// to the free pages as its last beat is read; without it the packet stays (read it again for
// another copy, e.g. multicast; the last read frees it). Reading an id that is not a stored
// packet, or freeing a packet twice, is the user's error and corrupts the free pages.
// r_ready is high when no packet is being read, or in the cycle the last beat of the current one
// is read, so it depends combinationally on m_axis_tready. Latency: the first beat is on m_axis
// one cycle after the request is taken (the RAM's registered read is the output register).
//
// free_pages counts the pages not held by any packet (PAGES after reset; every page allocated is
// counted back when freed, so after all traffic drains and every packet is freed it is PAGES).
`default_nettype none

module p4f_pkt_buffer #(
    parameter int DATA_W     = 512,                      // tdata width in bits, 8 * a power of two
    parameter int KEEP_W     = (DATA_W + 7) / 8,         // tkeep width: one bit per byte
    parameter int USER_W     = 1,                        // tuser width in bits, stored per beat
    parameter int BUF_BYTES  = 65536,                    // buffer size in bytes (a power of two)
    parameter int PAGE_BYTES = 256,                      // page size in bytes; at least 2 beats
    parameter int DESC_DEPTH = 16,                       // descriptor queue depth (power of two)
    parameter int ID_W       = $clog2(BUF_BYTES / PAGE_BYTES), // packet id (page number) width
    parameter int LEN_W      = $clog2(BUF_BYTES + 1)     // byte length width
) (
    input  wire logic              clk,
    input  wire logic              rst,

    input  wire logic [DATA_W-1:0] s_axis_tdata,
    input  wire logic [KEEP_W-1:0] s_axis_tkeep,
    input  wire logic              s_axis_tvalid,
    output logic                   s_axis_tready,
    input  wire logic              s_axis_tlast,
    input  wire logic [USER_W-1:0] s_axis_tuser,

    // One descriptor per stored packet, in arrival order.
    output logic                   d_valid,
    input  wire logic              d_ready,
    output logic      [ID_W-1:0]   d_id,
    output logic      [LEN_W-1:0]  d_len,
    output logic      [USER_W-1:0] d_user,

    // Read requests.
    input  wire logic              r_valid,
    output logic                   r_ready,
    input  wire logic [ID_W-1:0]   r_id,
    input  wire logic              r_free,

    output logic      [DATA_W-1:0] m_axis_tdata,
    output logic      [KEEP_W-1:0] m_axis_tkeep,
    output logic                   m_axis_tvalid,
    input  wire logic              m_axis_tready,
    output logic                   m_axis_tlast,
    output logic      [USER_W-1:0] m_axis_tuser,

    output logic      [ID_W:0]     free_pages,
    output logic      [31:0]       drop_count
);
    localparam int PAGES  = BUF_BYTES / PAGE_BYTES;
    localparam int BPP    = PAGE_BYTES / KEEP_W; // beats per page
    localparam int BEAT_W = $clog2(BPP);
    localparam int WORD_W = DATA_W + USER_W;
    localparam int DESC_W = 8 * ((USER_W + ID_W + LEN_W + 7) / 8);

    if ((1 << $clog2(KEEP_W)) != KEEP_W || (1 << ID_W) != PAGES || PAGES < 2 || BPP < 2
            || (1 << BEAT_W) != BPP || (1 << LEN_W) <= BUF_BYTES) begin : g_bad_params
        $error("p4f_pkt_buffer: KEEP_W, PAGE_BYTES/KEEP_W (>= 2) and the page count must be powers of two");
    end

    logic [WORD_W-1:0] mem [PAGES * BPP];
    logic [ID_W-1:0]   next_page [PAGES]; // the page after each page of a chain
    logic [LEN_W-1:0]  pkt_len [PAGES];   // byte length, by packet id

    // ---- free pages: never-used pages (fresh), the chain of a dropped packet (spare), and the
    // free list of pages returned by the reader. Allocation takes them in that order.
    logic [ID_W:0]   fresh_reg;           // pages 0..fresh_reg-1 have been used
    logic [ID_W-1:0] spare_head_reg;
    logic [ID_W:0]   spare_count_reg;
    logic [ID_W-1:0] fl_mem [PAGES];
    logic [ID_W-1:0] fl_rd_reg, fl_wr_reg;
    logic [ID_W:0]   fl_count_reg;

    wire logic from_spare = spare_count_reg != 0;
    wire logic fresh_left = fresh_reg != (ID_W + 1)'(PAGES);
    wire logic have_page  = from_spare || fresh_left || fl_count_reg != 0;
    wire logic [ID_W-1:0] new_page = from_spare ? spare_head_reg
                                   : fresh_left ? fresh_reg[ID_W-1:0] : fl_mem[fl_rd_reg];

    assign free_pages = (ID_W + 1)'(PAGES) - fresh_reg + fl_count_reg + spare_count_reg;

    // ---- write side
    logic              wr_in_pkt_reg;  // a packet has started and not ended
    logic              wr_drop_reg;    // discarding the rest of a packet
    logic [ID_W-1:0]   wr_head_reg, wr_page_reg;
    logic [ID_W:0]     wr_npages_reg;  // pages of the current packet
    logic [BEAT_W-1:0] wr_beat_reg;    // beat within the page of the next beat
    logic [LEN_W-1:0]  wr_len_reg;     // bytes of the current packet so far

    logic desc_ready;
    assign s_axis_tready = desc_ready;

    wire logic s_fire    = s_axis_tvalid && s_axis_tready;
    wire logic need_page = wr_beat_reg == '0;
    wire logic store     = s_fire && !wr_drop_reg && (!need_page || have_page);
    wire logic alloc     = store && need_page;
    wire logic drop_now  = s_fire && !wr_drop_reg && need_page && !have_page;
    wire logic [ID_W-1:0] wr_page = need_page ? new_page : wr_page_reg;
    wire logic [ID_W-1:0] wr_head = wr_in_pkt_reg ? wr_head_reg : new_page;

    // Bytes in this beat: KEEP_W, or on the last beat the number of tkeep bits set.
    logic [LEN_W-1:0] beat_bytes;
    always_comb begin
        beat_bytes = LEN_W'(KEEP_W);
        if (s_axis_tlast) begin
            beat_bytes = '0;
            for (int i = 0; i < KEEP_W; i++) if (s_axis_tkeep[i]) beat_bytes = LEN_W'(i + 1);
        end
    end
    wire logic [LEN_W-1:0] wr_len_next = (wr_in_pkt_reg ? wr_len_reg : '0) + beat_bytes;

    logic rd_push; // the reader frees a page this cycle
    logic [ID_W-1:0] rd_push_page;
    wire logic fl_pop = alloc && !from_spare && !fresh_left;

    always_ff @(posedge clk) begin
        if (store) mem[{wr_page, wr_beat_reg}] <= {s_axis_tuser, s_axis_tdata};
        if (alloc && wr_in_pkt_reg) next_page[wr_page_reg] <= new_page;
        if (store && s_axis_tlast) pkt_len[wr_head] <= wr_len_next;
        if (rd_push) fl_mem[fl_wr_reg] <= rd_push_page;
        if (store) begin
            wr_page_reg <= wr_page;
            wr_head_reg <= wr_head;
            wr_len_reg  <= wr_len_next;
        end
    end

    always_ff @(posedge clk) begin
        if (rst) begin
            wr_in_pkt_reg   <= 1'b0;
            wr_drop_reg     <= 1'b0;
            wr_beat_reg     <= '0;
            wr_npages_reg   <= '0;
            drop_count      <= '0;
            fresh_reg       <= '0;
            spare_count_reg <= '0;
            fl_rd_reg       <= '0;
            fl_wr_reg       <= '0;
            fl_count_reg    <= '0;
        end else begin
            if (store) begin
                wr_in_pkt_reg <= !s_axis_tlast;
                wr_beat_reg   <= s_axis_tlast ? '0 : wr_beat_reg + 1'b1;
                if (alloc) wr_npages_reg <= wr_in_pkt_reg ? wr_npages_reg + 1'b1 : (ID_W + 1)'(1);
            end else if (drop_now) begin
                // Out of pages: the pages taken so far become the spare chain (the spare chain is
                // empty, or a page would have been found) and the rest of the packet is discarded.
                if (wr_in_pkt_reg) begin
                    spare_head_reg  <= wr_head_reg;
                    spare_count_reg <= wr_npages_reg;
                end
                wr_in_pkt_reg <= 1'b0;
                wr_beat_reg   <= '0;
                wr_drop_reg   <= !s_axis_tlast;
                if (s_axis_tlast) drop_count <= drop_count + 1'b1;
            end else if (s_fire && wr_drop_reg && s_axis_tlast) begin
                wr_drop_reg <= 1'b0;
                drop_count  <= drop_count + 1'b1;
            end
            if (alloc && from_spare) begin
                spare_head_reg  <= next_page[spare_head_reg];
                spare_count_reg <= spare_count_reg - 1'b1;
            end
            if (alloc && !from_spare && fresh_left) fresh_reg <= fresh_reg + 1'b1;
            if (fl_pop)  fl_rd_reg <= fl_rd_reg + 1'b1;
            if (rd_push) fl_wr_reg <= fl_wr_reg + 1'b1;
            fl_count_reg <= fl_count_reg + (ID_W + 1)'(rd_push) - (ID_W + 1)'(fl_pop);
        end
    end

    // Descriptor queue.
    /* verilator lint_off UNUSEDSIGNAL */
    logic [DESC_W-1:0] desc_out; // padded to whole bytes; the padding is unused
    logic desc_keep_unused, desc_last_unused, desc_user_unused;
    /* verilator lint_on UNUSEDSIGNAL */
    p4f_axis_fifo #(.DATA_W(DESC_W), .KEEP_W(1), .USER_W(1), .DEPTH(DESC_DEPTH)) u_desc (
        .clk, .rst,
        .s_axis_tdata (DESC_W'({s_axis_tuser, wr_head, wr_len_next})),
        .s_axis_tkeep (1'b1),
        .s_axis_tvalid(store && s_axis_tlast),
        .s_axis_tready(desc_ready),
        .s_axis_tlast (1'b1),
        .s_axis_tuser (1'b0),
        .m_axis_tdata (desc_out),
        .m_axis_tkeep (desc_keep_unused),
        .m_axis_tvalid(d_valid),
        .m_axis_tready(d_ready),
        .m_axis_tlast (desc_last_unused),
        .m_axis_tuser (desc_user_unused)
    );
    assign {d_user, d_id, d_len} = desc_out[USER_W + ID_W + LEN_W - 1:0];

    // ---- read side
    logic              rd_active_reg, rd_free_reg;
    logic [ID_W-1:0]   rd_page_reg;
    logic [BEAT_W-1:0] rd_beat_reg;
    logic [LEN_W-1:0]  rd_left_reg;    // bytes left, this beat's included
    logic              out_valid_reg, out_last_reg;
    logic [WORD_W-1:0] out_word_reg;
    logic [KEEP_W-1:0] out_keep_reg;

    wire logic do_read  = rd_active_reg && (!out_valid_reg || m_axis_tready);
    wire logic rd_last  = rd_left_reg <= LEN_W'(KEEP_W);
    wire logic page_end = rd_beat_reg == BEAT_W'(BPP - 1);
    assign r_ready      = !rd_active_reg || (do_read && rd_last);
    wire logic r_fire   = r_valid && r_ready;

    assign rd_push      = do_read && rd_free_reg && (page_end || rd_last);
    assign rd_push_page = rd_page_reg;

    always_ff @(posedge clk) begin
        if (do_read) begin
            out_word_reg <= mem[{rd_page_reg, rd_beat_reg}];
            out_last_reg <= rd_last;
            for (int i = 0; i < KEEP_W; i++) out_keep_reg[i] <= !rd_last || LEN_W'(i) < rd_left_reg;
            if (page_end) rd_page_reg <= next_page[rd_page_reg];
            rd_beat_reg <= rd_beat_reg + 1'b1;
            rd_left_reg <= rd_left_reg - LEN_W'(KEEP_W);
        end
        if (r_fire) begin
            rd_page_reg <= r_id;
            rd_beat_reg <= '0;
            rd_left_reg <= pkt_len[r_id];
            rd_free_reg <= r_free;
        end
    end

    always_ff @(posedge clk) begin
        if (rst) begin
            rd_active_reg <= 1'b0;
            out_valid_reg <= 1'b0;
        end else begin
            if (r_fire)                 rd_active_reg <= 1'b1;
            else if (do_read && rd_last) rd_active_reg <= 1'b0;
            if (do_read)            out_valid_reg <= 1'b1;
            else if (m_axis_tready) out_valid_reg <= 1'b0;
        end
    end

    assign m_axis_tvalid = out_valid_reg;
    assign m_axis_tlast  = out_last_reg;
    assign m_axis_tkeep  = out_keep_reg;
    assign {m_axis_tuser, m_axis_tdata} = out_word_reg;

endmodule

`default_nettype wire

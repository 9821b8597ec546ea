// p4f_host_dma: the switch's host port. A DMA queue pair over descriptor rings in host memory,
// so that software can send packets into the switch (TX: host -> m_axis) and receive packets from
// it (RX: s_axis -> host), like a CPU port.
//
// Rings. Each ring holds 2^*_ring_log2 16-byte descriptors (at most 2^RING_W; a larger log2 counts
// as RING_W) at *_ring_base + 16*index; *_ring_base must be 16-byte aligned (its low 4 bits are
// ignored). Software advances *_tail past the descriptors it has written; the module advances
// *_head past those it has finished. head == tail means the ring is empty, so a ring of N entries
// has at most N-1 descriptors posted. Heads count from 0 after reset; reset is how software
// restarts a queue (or changes a ring's size). With `enable` low no new descriptor is started;
// the one under way finishes.
//
// TX descriptor: bytes 0..7 buffer address, 8..9 length in bytes, 10..15 ignored. The module reads
// the descriptor, reads ceil(length/KEEP_W) beats from the buffer and sends them as one packet on
// m_axis (tkeep all ones but on the last beat), then advances tx_head at the edge the last beat
// is taken, and counts tx_packets: from then on the buffer and the descriptor are free.
// RX descriptor: bytes 0..7 buffer address, 8..9 buffer size in bytes (software writes these).
// The module reads the descriptor (ahead of any packet), takes the next packet on s_axis, writes
// it from the buffer's byte 0 (only the packet's bytes: wstrb follows tkeep), then writes back
// bytes 12..13 = the bytes written into the buffer and byte 14 = flags (bit 0 done, bit 1
// truncated); bytes 8..11 and 15 are left alone. A packet longer than the buffer fills it (length
// written back = buffer size), the rest of the packet is taken from s_axis and dropped, and
// rx_truncated counts it (rx_packets counts it too). rx_head advances at the edge the write-back's
// request is taken (requests are in order, so every write of the packet was taken before it).
// With no RX descriptor posted, s_axis_tready stays low: nothing is lost.
//
// Refused descriptors (counted in desc_errors, the head advances, no data moves): a TX descriptor
// whose buffer address is not a multiple of KEEP_W, or whose length is 0 or above 2^LEN_W-1; an
// RX descriptor whose buffer address is not a multiple of KEEP_W or whose size is under 64: its
// write-back is length 0, flags 4 (bit 2 error; done stays 0: nothing was received). Nothing
// here waits on a condition software could fail to meet, except posted descriptors and the
// memory's and streams' handshakes.
//
// Memory. One request channel (valid/ready; a read or a write of one aligned DATA_W beat, write
// bytes selected by wstrb), read responses in request order and without ready. Reads are issued
// only against credits: RSP_DEPTH response slots (a FIFO of LUT RAM) minus the reads issued and
// not yet consumed, so a response always has room. The TX and RX engines each hold one request
// register; a round-robin arbiter picks between them (a read needs a credit), and a request
// offered and not taken stays offered unchanged (m_mem_req_wdata means nothing on a read and may
// change while a read waits). m_mem_req_* come from registers through that two-way mux only.
//
// Timing. TX: descriptor read (1 beat for DATA_W >= 128, else 2), then buffer reads back to back
// while credits last; one beat per cycle on m_axis when the memory answers within RSP_DEPTH
// cycles. Between packets a descriptor fetch (its round trip through the memory) and one idle
// cycle. RX: the next descriptor is fetched as soon as one is posted; s_axis is then taken at one
// beat per cycle while the memory takes a write per cycle (s_axis_tready depends combinationally
// on m_mem_req_ready); between packets the write-back and the next descriptor fetch.
`default_nettype none

module p4f_host_dma #(
    parameter int DATA_W    = 64,                      // stream and memory data width, a multiple of 64
    parameter int KEEP_W    = DATA_W / 8,              // tkeep / wstrb width: one bit per byte
    parameter int RING_W    = 8,                       // ring index width: rings up to 2^RING_W entries
    parameter int LEN_W     = 16,                      // packet length width in bytes (at most 16)
    parameter int RSP_DEPTH = 8                        // read response FIFO slots (= reads in flight); a power of two >= 2
) (
    input  wire logic                clk,
    input  wire logic                rst,

    // Control, from registers.
    input  wire logic                enable,
    input  wire logic [63:0]         tx_ring_base,
    input  wire logic [4:0]          tx_ring_log2,
    input  wire logic [RING_W-1:0]   tx_tail,
    output logic      [RING_W-1:0]   tx_head,
    input  wire logic [63:0]         rx_ring_base,
    input  wire logic [4:0]          rx_ring_log2,
    input  wire logic [RING_W-1:0]   rx_tail,
    output logic      [RING_W-1:0]   rx_head,
    output logic      [31:0]         tx_packets,
    output logic      [31:0]         rx_packets,
    output logic      [31:0]         rx_truncated,
    output logic      [31:0]         desc_errors,

    // Host memory.
    output logic                     m_mem_req_valid,
    input  wire logic                m_mem_req_ready,
    output logic                     m_mem_req_write,
    output logic      [63:0]         m_mem_req_addr,
    output logic      [DATA_W-1:0]   m_mem_req_wdata,
    output logic      [KEEP_W-1:0]   m_mem_req_wstrb,
    input  wire logic                m_mem_rsp_valid,
    input  wire logic [DATA_W-1:0]   m_mem_rsp_rdata,

    // Host -> switch.
    output logic      [DATA_W-1:0]   m_axis_tdata,
    output logic      [KEEP_W-1:0]   m_axis_tkeep,
    output logic                     m_axis_tvalid,
    input  wire logic                m_axis_tready,
    output logic                     m_axis_tlast,

    // Switch -> host.
    input  wire logic [DATA_W-1:0]   s_axis_tdata,
    input  wire logic [KEEP_W-1:0]   s_axis_tkeep,
    input  wire logic                s_axis_tvalid,
    output logic                     s_axis_tready,
    input  wire logic                s_axis_tlast
);
    localparam int OFF_W      = $clog2(KEEP_W);                  // byte offset inside a beat
    localparam int DESC_BEATS = DATA_W >= 128 ? 1 : 128 / DATA_W; // beats a descriptor spans
    localparam int DBUF_W     = DESC_BEATS * DATA_W;
    localparam int SLOT_W     = $clog2(RSP_DEPTH);
    localparam int CRED_W     = SLOT_W + 1;
    localparam int BEAT_W     = LEN_W + 1;                       // beat counts of a buffer
    localparam int CNT_W      = $clog2(KEEP_W + 1);              // bytes of one beat
    localparam int RXLEN_W    = LEN_W + 1;

    if (DATA_W < 64 || DATA_W % 64 != 0) begin : g_bad_data_w
        $error("p4f_host_dma: DATA_W must be a multiple of 64");
    end
    if (RSP_DEPTH < 2 || (1 << SLOT_W) != RSP_DEPTH) begin : g_bad_depth
        $error("p4f_host_dma: RSP_DEPTH must be a power of two >= 2");
    end
    if (LEN_W < 7 || LEN_W > 16 || RING_W < 1 || RING_W > 16) begin : g_bad_widths
        $error("p4f_host_dma: LEN_W must be 7..16, RING_W 1..16");
    end

    function automatic logic [RING_W-1:0] ring_mask(input logic [4:0] log2);
        for (int i = 0; i < RING_W; i++) ring_mask[i] = 5'(i) < log2;
    endfunction

    function automatic logic [63:0] desc_addr(input logic [63:0] base, input logic [RING_W-1:0] index);
        desc_addr = (base & ~64'hf) + {{(60 - RING_W){1'b0}}, index, 4'b0};
    endfunction

    function automatic logic [63:0] beat_align(input logic [63:0] a);
        beat_align = a & ~64'(KEEP_W - 1);
    endfunction

    // tkeep / wstrb of n bytes from byte 0 (n >= KEEP_W: all).
    function automatic logic [KEEP_W-1:0] low_bytes(input logic [RXLEN_W-1:0] n);
        for (int i = 0; i < KEEP_W; i++) low_bytes[i] = RXLEN_W'(i) < n;
    endfunction

    // ---- memory request arbiter and read credits
    logic              tx_req_valid;                 // TX only reads
    logic [63:0]       tx_req_addr;
    logic              rx_req_valid, rx_req_write;
    logic [63:0]       rx_req_addr;
    logic [DATA_W-1:0] rx_req_wdata;
    logic [KEEP_W-1:0] rx_req_wstrb;

    logic              held_reg, held_rx_reg, rr_rx_reg;
    logic [CRED_W-1:0] credits_reg;

    wire logic tx_elig = tx_req_valid && credits_reg != '0;
    wire logic rx_elig = rx_req_valid && (rx_req_write || credits_reg != '0);
    wire logic sel_rx  = held_reg ? held_rx_reg : (rx_elig && (!tx_elig || rr_rx_reg));

    assign m_mem_req_valid = sel_rx ? rx_elig : tx_elig;
    assign m_mem_req_write = sel_rx && rx_req_write;
    assign m_mem_req_addr  = sel_rx ? rx_req_addr : tx_req_addr;
    assign m_mem_req_wdata = rx_req_wdata;
    assign m_mem_req_wstrb = sel_rx ? rx_req_wstrb : '0;

    wire logic req_fire = m_mem_req_valid && m_mem_req_ready;
    wire logic tx_taken = req_fire && !sel_rx;
    wire logic rx_taken = req_fire && sel_rx;
    wire logic rd_fire  = req_fire && !m_mem_req_write;

    // Response slots: request k's tag (1: RX) and response k's data share slot k mod RSP_DEPTH.
    logic              tag_mem [RSP_DEPTH];
    logic [DATA_W-1:0] rsp_mem [RSP_DEPTH];
    logic [SLOT_W:0]   tag_ptr_reg, rsp_wr_ptr_reg, rsp_rd_ptr_reg;

    wire logic              rsp_avail = rsp_wr_ptr_reg != rsp_rd_ptr_reg;
    wire logic              rsp_is_rx = tag_mem[rsp_rd_ptr_reg[SLOT_W-1:0]];
    wire logic [DATA_W-1:0] rsp_data  = rsp_mem[rsp_rd_ptr_reg[SLOT_W-1:0]];
    logic tx_pop, rx_pop;
    wire logic rsp_pop = tx_pop || rx_pop;

    always_ff @(posedge clk) begin
        if (rd_fire) tag_mem[tag_ptr_reg[SLOT_W-1:0]] <= sel_rx;
        if (m_mem_rsp_valid) rsp_mem[rsp_wr_ptr_reg[SLOT_W-1:0]] <= m_mem_rsp_rdata;
    end

    always_ff @(posedge clk) begin
        if (rst) begin
            held_reg       <= 1'b0;
            held_rx_reg    <= 1'b0;
            rr_rx_reg      <= 1'b0;
            credits_reg    <= CRED_W'(RSP_DEPTH);
            tag_ptr_reg    <= '0;
            rsp_wr_ptr_reg <= '0;
            rsp_rd_ptr_reg <= '0;
        end else begin
            held_reg    <= m_mem_req_valid && !m_mem_req_ready;
            held_rx_reg <= sel_rx;
            if (req_fire) rr_rx_reg <= !sel_rx;
            credits_reg <= credits_reg - CRED_W'(rd_fire) + CRED_W'(rsp_pop);
            if (rd_fire) tag_ptr_reg <= tag_ptr_reg + 1'b1;
            if (m_mem_rsp_valid) rsp_wr_ptr_reg <= rsp_wr_ptr_reg + 1'b1;
            if (rsp_pop) rsp_rd_ptr_reg <= rsp_rd_ptr_reg + 1'b1;
        end
    end

    // ---- TX engine
    typedef enum logic [1:0] { T_IDLE, T_DESC, T_DATA, T_LAST } tx_state_t;
    tx_state_t          tx_state;
    logic [1:0]         tx_dreq_left, tx_drsp_left;  // descriptor beats to request / to receive
    logic [DBUF_W-1:0]  tx_dbuf;
    logic [OFF_W-1:0]   tx_doff;                     // descriptor's byte offset in its beat
    logic [BEAT_W-1:0]  tx_req_left, tx_rsp_left;    // buffer beats to request / to receive
    logic [KEEP_W-1:0]  tx_last_keep;
    logic               tx_out_valid;

    // The descriptor as it stands once its last beat arrives (that beat still on rsp_data).
    logic [DBUF_W-1:0] tx_dbuf_next;
    always_comb begin
        tx_dbuf_next = tx_dbuf;
        for (int k = 0; k < DESC_BEATS; k++)
            if (k == DESC_BEATS - int'(tx_drsp_left)) tx_dbuf_next[k*DATA_W +: DATA_W] = rsp_data;
    end
    wire logic [79:0]  tx_desc_next = 80'(tx_dbuf_next >> {tx_doff, 3'b0});
    wire logic [63:0]  tx_d_addr    = tx_desc_next[63:0];
    wire logic [15:0]  tx_d_len     = tx_desc_next[79:64];
    wire logic         tx_d_bad     = tx_d_addr[OFF_W-1:0] != '0 || tx_d_len == '0
                                      || (LEN_W < 16 && (tx_d_len >> LEN_W) != '0);
    wire logic [BEAT_W-1:0] tx_d_beats = BEAT_W'((17'(tx_d_len) + 17'(KEEP_W - 1)) >> OFF_W);
    wire logic [OFF_W-1:0]  tx_d_rem   = tx_d_len[OFF_W-1:0];

    wire logic [63:0] tx_daddr = desc_addr(tx_ring_base, tx_head);
    wire logic tx_out_free = !tx_out_valid || m_axis_tready;
    assign tx_pop = rsp_avail && !rsp_is_rx
                    && (tx_state == T_DESC || (tx_state == T_DATA && tx_out_free));
    wire logic tx_desc_done = tx_pop && tx_state == T_DESC && tx_drsp_left == 2'd1;
    wire logic tx_start     = tx_state == T_IDLE && enable && tx_head != tx_tail;
    wire logic tx_advance   = (tx_desc_done && tx_d_bad)
                              || (tx_state == T_LAST && m_axis_tvalid && m_axis_tready);

    assign m_axis_tvalid = tx_out_valid;

    always_ff @(posedge clk) begin
        if (tx_start) tx_doff <= tx_daddr[OFF_W-1:0];
        if (tx_pop && tx_state == T_DESC) tx_dbuf <= tx_dbuf_next;
        if (tx_desc_done) tx_last_keep <= tx_d_rem == '0 ? '1 : low_bytes(RXLEN_W'(tx_d_rem));
        if (tx_pop && tx_state == T_DATA) begin
            m_axis_tdata <= rsp_data;
            m_axis_tlast <= tx_rsp_left == BEAT_W'(1);
            m_axis_tkeep <= tx_rsp_left == BEAT_W'(1) ? tx_last_keep : '1;
        end
        // The request register: loaded when empty, moved on when taken.
        if (tx_start) tx_req_addr <= beat_align(tx_daddr);
        else if (tx_desc_done) tx_req_addr <= tx_d_addr;
        else if (tx_taken) tx_req_addr <= tx_req_addr + 64'(KEEP_W);
    end

    always_ff @(posedge clk) begin
        if (rst) begin
            tx_state     <= T_IDLE;
            tx_head      <= '0;
            tx_req_valid <= 1'b0;
            tx_out_valid <= 1'b0;
            tx_packets   <= '0;
        end else begin
            if (tx_pop && tx_state == T_DATA) tx_out_valid <= 1'b1;
            else if (m_axis_tready) tx_out_valid <= 1'b0;
            case (tx_state)
                T_IDLE: if (tx_start) begin
                    tx_state     <= T_DESC;
                    tx_req_valid <= 1'b1;
                    tx_dreq_left <= 2'(DESC_BEATS);
                    tx_drsp_left <= 2'(DESC_BEATS);
                end
                T_DESC: begin
                    if (tx_taken) begin
                        tx_dreq_left <= tx_dreq_left - 1'b1;
                        if (tx_dreq_left == 2'd1) tx_req_valid <= 1'b0;
                    end
                    if (tx_pop) tx_drsp_left <= tx_drsp_left - 1'b1;
                    if (tx_desc_done) begin
                        if (tx_d_bad) begin
                            tx_state <= T_IDLE;
                        end else begin
                            tx_state     <= T_DATA;
                            tx_req_valid <= 1'b1;
                            tx_req_left  <= tx_d_beats;
                            tx_rsp_left  <= tx_d_beats;
                        end
                    end
                end
                T_DATA: begin
                    if (tx_taken) begin
                        tx_req_left <= tx_req_left - 1'b1;
                        if (tx_req_left == BEAT_W'(1)) tx_req_valid <= 1'b0;
                    end
                    if (tx_pop) begin
                        tx_rsp_left <= tx_rsp_left - 1'b1;
                        if (tx_rsp_left == BEAT_W'(1)) tx_state <= T_LAST;
                    end
                end
                default: if (tx_advance) begin   // T_LAST: the last beat is out
                    tx_state   <= T_IDLE;
                    tx_packets <= tx_packets + 1'b1;
                end
            endcase
            if (tx_advance) tx_head <= (tx_head + 1'b1) & ring_mask(tx_ring_log2);
        end
    end

    // ---- RX engine
    typedef enum logic [2:0] { R_IDLE, R_DESC, R_DATA, R_WB, R_WB_WAIT } rx_state_t;
    rx_state_t            rx_state;
    logic [1:0]           rx_dreq_left, rx_drsp_left;
    logic [DBUF_W-1:0]    rx_dbuf;
    logic [63:0]          rx_daddr;                  // the descriptor's address
    logic [63:0]          rx_wr_addr;                // next buffer beat's address
    logic [RXLEN_W-1:0]   rx_room;                   // buffer bytes left
    logic [RXLEN_W-1:0]   rx_written;                // bytes written so far
    logic                 rx_trunc;
    logic [7:0]           rx_flags;

    logic [DBUF_W-1:0] rx_dbuf_next;
    always_comb begin
        rx_dbuf_next = rx_dbuf;
        for (int k = 0; k < DESC_BEATS; k++)
            if (k == DESC_BEATS - int'(rx_drsp_left)) rx_dbuf_next[k*DATA_W +: DATA_W] = rsp_data;
    end
    wire logic [79:0]  rx_desc_next = 80'(rx_dbuf_next >> {rx_daddr[OFF_W-1:0], 3'b0});
    wire logic [63:0]  rx_d_addr    = rx_desc_next[63:0];
    wire logic [15:0]  rx_d_size    = rx_desc_next[79:64];
    wire logic         rx_d_bad     = rx_d_addr[OFF_W-1:0] != '0 || rx_d_size < 16'd64;

    assign rx_pop = rsp_avail && rsp_is_rx && rx_state == R_DESC;
    wire logic rx_desc_done = rx_pop && rx_drsp_left == 2'd1;
    wire logic rx_start     = rx_state == R_IDLE && enable && rx_head != rx_tail;
    wire logic rx_slot_free = !rx_req_valid || rx_taken;

    // An s_axis beat: its bytes, those that fit, and whether it overflows the buffer.
    wire logic [CNT_W-1:0]   rx_n      = CNT_W'($countones(s_axis_tkeep));
    wire logic               rx_over   = RXLEN_W'(rx_n) > rx_room;
    wire logic [RXLEN_W-1:0] rx_fit    = rx_over ? rx_room : RXLEN_W'(rx_n);
    wire logic [KEEP_W-1:0]  rx_strb   = s_axis_tkeep & low_bytes(rx_room);
    assign s_axis_tready = rx_state == R_DATA && (rx_trunc || rx_slot_free);
    wire logic rx_beat   = s_axis_tvalid && s_axis_tready;
    wire logic rx_write  = rx_beat && !rx_trunc && rx_strb != '0;

    // Write-back: {flags, length} at byte 12 of the descriptor.
    wire logic [63:0]      rx_wb_byte = rx_daddr + 64'd12;
    wire logic [OFF_W-1:0] rx_wb_off  = rx_wb_byte[OFF_W-1:0];
    wire logic             rx_wb_load = rx_state == R_WB && rx_slot_free;
    wire logic             rx_advance = rx_state == R_WB_WAIT && rx_taken;

    always_ff @(posedge clk) begin
        if (rx_start) rx_daddr <= desc_addr(rx_ring_base, rx_head);
        if (rx_pop) rx_dbuf <= rx_dbuf_next;
        if (rx_start) rx_req_addr <= beat_align(desc_addr(rx_ring_base, rx_head));
        else if (rx_taken && !rx_req_write) rx_req_addr <= rx_req_addr + 64'(KEEP_W);
        if (rx_desc_done) begin
            rx_wr_addr <= rx_d_addr;
            rx_room    <= RXLEN_W'(rx_d_size);
            rx_written <= '0;
            rx_trunc   <= 1'b0;
            rx_flags   <= rx_d_bad ? 8'h04 : 8'h01;
        end
        if (rx_beat && !rx_trunc) begin
            rx_wr_addr <= rx_wr_addr + 64'(KEEP_W);
            rx_room    <= rx_room - rx_fit;
            rx_written <= rx_written + rx_fit;
            if (rx_over) begin
                rx_trunc <= 1'b1;
                rx_flags <= 8'h03;
            end
        end
        if (rx_write) begin
            rx_req_addr  <= rx_wr_addr;
            rx_req_write <= 1'b1;
            rx_req_wdata <= s_axis_tdata;
            rx_req_wstrb <= rx_strb;
        end else if (rx_wb_load) begin
            rx_req_addr  <= beat_align(rx_wb_byte);
            rx_req_write <= 1'b1;
            rx_req_wdata <= DATA_W'({rx_flags, rx_written[15:0]}) << {rx_wb_off, 3'b0};
            rx_req_wstrb <= KEEP_W'(3'b111) << rx_wb_off;
        end else if (rx_start) begin
            rx_req_write <= 1'b0;
        end
    end

    always_ff @(posedge clk) begin
        if (rst) begin
            rx_state     <= R_IDLE;
            rx_head      <= '0;
            rx_req_valid <= 1'b0;
            rx_packets   <= '0;
            rx_truncated <= '0;
        end else begin
            if (rx_taken) rx_req_valid <= 1'b0;
            case (rx_state)
                R_IDLE: if (rx_start) begin
                    rx_state     <= R_DESC;
                    rx_req_valid <= 1'b1;
                    rx_dreq_left <= 2'(DESC_BEATS);
                    rx_drsp_left <= 2'(DESC_BEATS);
                end
                R_DESC: begin
                    if (rx_taken) begin
                        rx_dreq_left <= rx_dreq_left - 1'b1;
                        rx_req_valid <= rx_dreq_left != 2'd1;
                    end
                    if (rx_pop) rx_drsp_left <= rx_drsp_left - 1'b1;
                    if (rx_desc_done) rx_state <= rx_d_bad ? R_WB : R_DATA;
                end
                R_DATA: begin
                    if (rx_write) rx_req_valid <= 1'b1;
                    if (rx_beat && s_axis_tlast) rx_state <= R_WB;
                end
                R_WB: if (rx_wb_load) begin
                    rx_state     <= R_WB_WAIT;
                    rx_req_valid <= 1'b1;
                end
                default: if (rx_advance) begin   // R_WB_WAIT
                    rx_state <= R_IDLE;
                    if (!rx_flags[2]) rx_packets <= rx_packets + 1'b1;
                    if (rx_flags[1]) rx_truncated <= rx_truncated + 1'b1;
                end
            endcase
            if (rx_advance) rx_head <= (rx_head + 1'b1) & ring_mask(rx_ring_log2);
        end
    end

    // ---- descriptor errors, from both engines
    always_ff @(posedge clk) begin
        if (rst) desc_errors <= '0;
        else desc_errors <= desc_errors + 32'(tx_desc_done && tx_d_bad) + 32'(rx_desc_done && rx_d_bad);
    end

endmodule

`default_nettype wire

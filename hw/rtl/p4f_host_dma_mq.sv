// p4f_host_dma_mq: the switch's host port with NQ DMA queue pairs (the VDP seed's slow path polls
// four independent RX and TX rings). Each queue is a p4f_host_dma with its own rings, registers
// and counters; this module shares the host port's one stream in each direction and the one
// host-memory channel between them.
//
// Switch -> host: the queue of a packet is a field of its first beat, bits
// [QSEL_LSB +: log2 NQ] of byte QSEL_BYTE (the P4 program puts it there; for the VDP pipeline, the
// channel in the dma_t header in front of the packet). A first beat whose tkeep does not cover
// that byte goes to queue 0. The packet's beats all go to that queue's engine; while it has no RX
// descriptor posted the stream waits (the packets behind it wait too: the switch has one queue
// for its host port).
// Host -> switch: the engines' packets are merged whole, round robin (p4f_axis_rr_arbiter; one
// cycle of latency, m_axis_* from flops), so one queue's packets stay in their order. A queue's
// tx_head moves (and tx_packets counts) when its engine hands the last beat to the arbiter, whose
// output register holds up to two beats while m_axis stalls: the packet may not have left m_axis
// yet, but its buffer is already free.
// Memory: the engines' request registers are served round robin; a request offered and not
// taken keeps the grant, so m_mem_req_* stay unchanged until taken. Read responses come back in
// request order, so a FIFO of the queue numbers of the reads taken routes each response to its
// engine. Every engine issues reads only against its own RSP_DEPTH credits, so NQ*RSP_DEPTH slots
// never overflow and responses need no ready.
//
// NQ = 1 is one p4f_host_dma wired straight through (no arbiter, no FIFO).
// Per-queue control and counters are flat vectors, queue q in bits [q*W +: W].
`default_nettype none

module p4f_host_dma_mq #(
    parameter int NQ        = 4,                       // queue pairs: 1, 2, 4, 8 or 16
    parameter int DATA_W    = 64,                      // stream and memory data width, a multiple of 64
    parameter int KEEP_W    = DATA_W / 8,
    parameter int RING_W    = 8,
    parameter int LEN_W     = 16,
    parameter int RSP_DEPTH = 8,                       // per queue
    parameter int QSEL_BYTE = 0,                       // the first beat's byte that names the RX queue
    parameter int QSEL_LSB  = 0,                       // and its lowest bit of the queue number
    parameter int QW        = NQ > 1 ? $clog2(NQ) : 1
) (
    input  wire logic                  clk,
    input  wire logic                  rst,

    input  wire logic [NQ-1:0]         enable,
    input  wire logic [NQ*64-1:0]      tx_ring_base,
    input  wire logic [NQ*5-1:0]       tx_ring_log2,
    input  wire logic [NQ*RING_W-1:0]  tx_tail,
    output logic      [NQ*RING_W-1:0]  tx_head,
    input  wire logic [NQ*64-1:0]      rx_ring_base,
    input  wire logic [NQ*5-1:0]       rx_ring_log2,
    input  wire logic [NQ*RING_W-1:0]  rx_tail,
    output logic      [NQ*RING_W-1:0]  rx_head,
    output logic      [NQ*32-1:0]      tx_packets,
    output logic      [NQ*32-1:0]      rx_packets,
    output logic      [NQ*32-1:0]      rx_truncated,
    output logic      [NQ*32-1:0]      desc_errors,

    output logic                       m_mem_req_valid,
    input  wire logic                  m_mem_req_ready,
    output logic                       m_mem_req_write,
    output logic      [63:0]           m_mem_req_addr,
    output logic      [DATA_W-1:0]     m_mem_req_wdata,
    output logic      [KEEP_W-1:0]     m_mem_req_wstrb,
    input  wire logic                  m_mem_rsp_valid,
    input  wire logic [DATA_W-1:0]     m_mem_rsp_rdata,

    output logic      [DATA_W-1:0]     m_axis_tdata,
    output logic      [KEEP_W-1:0]     m_axis_tkeep,
    output logic                       m_axis_tvalid,
    input  wire logic                  m_axis_tready,
    output logic                       m_axis_tlast,

    input  wire logic [DATA_W-1:0]     s_axis_tdata,
    input  wire logic [KEEP_W-1:0]     s_axis_tkeep,
    input  wire logic                  s_axis_tvalid,
    output logic                       s_axis_tready,
    input  wire logic                  s_axis_tlast
);
    if (NQ != 1 && NQ != 2 && NQ != 4 && NQ != 8 && NQ != 16) begin : g_bad_nq
        $error("p4f_host_dma_mq: NQ must be 1, 2, 4, 8 or 16");
    end
    if (QSEL_BYTE < 0 || QSEL_BYTE >= KEEP_W || QSEL_LSB < 0 || (NQ > 1 && QSEL_LSB + QW > 8)) begin : g_bad_qsel
        $error("p4f_host_dma_mq: the queue field must lie inside one byte of the first beat");
    end

    if (NQ == 1) begin : g_one
        p4f_host_dma #(.DATA_W(DATA_W), .KEEP_W(KEEP_W), .RING_W(RING_W), .LEN_W(LEN_W), .RSP_DEPTH(RSP_DEPTH)) u_q (
            .clk(clk), .rst(rst), .enable(enable[0]),
            .tx_ring_base(tx_ring_base), .tx_ring_log2(tx_ring_log2), .tx_tail(tx_tail), .tx_head(tx_head),
            .rx_ring_base(rx_ring_base), .rx_ring_log2(rx_ring_log2), .rx_tail(rx_tail), .rx_head(rx_head),
            .tx_packets(tx_packets), .rx_packets(rx_packets), .rx_truncated(rx_truncated), .desc_errors(desc_errors),
            .m_mem_req_valid(m_mem_req_valid), .m_mem_req_ready(m_mem_req_ready), .m_mem_req_write(m_mem_req_write),
            .m_mem_req_addr(m_mem_req_addr), .m_mem_req_wdata(m_mem_req_wdata), .m_mem_req_wstrb(m_mem_req_wstrb),
            .m_mem_rsp_valid(m_mem_rsp_valid), .m_mem_rsp_rdata(m_mem_rsp_rdata),
            .m_axis_tdata(m_axis_tdata), .m_axis_tkeep(m_axis_tkeep), .m_axis_tvalid(m_axis_tvalid),
            .m_axis_tready(m_axis_tready), .m_axis_tlast(m_axis_tlast),
            .s_axis_tdata(s_axis_tdata), .s_axis_tkeep(s_axis_tkeep), .s_axis_tvalid(s_axis_tvalid),
            .s_axis_tready(s_axis_tready), .s_axis_tlast(s_axis_tlast)
        );
    end else begin : g_many
        localparam int IDS   = NQ * RSP_DEPTH;            // reads in flight, all queues
        localparam int IDS_W = $clog2(IDS);

        // The engines' sides.
        logic [NQ-1:0]        e_req_valid, e_req_ready, e_req_write, e_rsp_valid;
        logic [NQ*64-1:0]     e_req_addr;
        logic [NQ*DATA_W-1:0] e_req_wdata;
        logic [NQ*KEEP_W-1:0] e_req_wstrb;
        logic [NQ*DATA_W-1:0] e_tx_tdata;
        logic [NQ*KEEP_W-1:0] e_tx_tkeep;
        logic [NQ-1:0]        e_tx_tvalid, e_tx_tready, e_tx_tlast;
        logic [NQ-1:0]        e_rx_tvalid, e_rx_tready;

        for (genvar q = 0; q < NQ; q++) begin : g_q
            p4f_host_dma #(.DATA_W(DATA_W), .KEEP_W(KEEP_W), .RING_W(RING_W), .LEN_W(LEN_W), .RSP_DEPTH(RSP_DEPTH)) u_q (
                .clk(clk), .rst(rst), .enable(enable[q]),
                .tx_ring_base(tx_ring_base[q*64 +: 64]), .tx_ring_log2(tx_ring_log2[q*5 +: 5]),
                .tx_tail(tx_tail[q*RING_W +: RING_W]), .tx_head(tx_head[q*RING_W +: RING_W]),
                .rx_ring_base(rx_ring_base[q*64 +: 64]), .rx_ring_log2(rx_ring_log2[q*5 +: 5]),
                .rx_tail(rx_tail[q*RING_W +: RING_W]), .rx_head(rx_head[q*RING_W +: RING_W]),
                .tx_packets(tx_packets[q*32 +: 32]), .rx_packets(rx_packets[q*32 +: 32]),
                .rx_truncated(rx_truncated[q*32 +: 32]), .desc_errors(desc_errors[q*32 +: 32]),
                .m_mem_req_valid(e_req_valid[q]), .m_mem_req_ready(e_req_ready[q]), .m_mem_req_write(e_req_write[q]),
                .m_mem_req_addr(e_req_addr[q*64 +: 64]), .m_mem_req_wdata(e_req_wdata[q*DATA_W +: DATA_W]),
                .m_mem_req_wstrb(e_req_wstrb[q*KEEP_W +: KEEP_W]),
                .m_mem_rsp_valid(e_rsp_valid[q]), .m_mem_rsp_rdata(m_mem_rsp_rdata),
                .m_axis_tdata(e_tx_tdata[q*DATA_W +: DATA_W]), .m_axis_tkeep(e_tx_tkeep[q*KEEP_W +: KEEP_W]),
                .m_axis_tvalid(e_tx_tvalid[q]), .m_axis_tready(e_tx_tready[q]), .m_axis_tlast(e_tx_tlast[q]),
                .s_axis_tdata(s_axis_tdata), .s_axis_tkeep(s_axis_tkeep), .s_axis_tvalid(e_rx_tvalid[q]),
                .s_axis_tready(e_rx_tready[q]), .s_axis_tlast(s_axis_tlast)
            );
        end

        // ---- memory: round robin over the engines' requests, a held request keeps the grant
        logic [QW-1:0] grant, grant_reg, last_reg;
        logic          held_reg;
        always_comb begin
            logic [QW-1:0] idx;
            grant = last_reg;
            // Farthest first, so that the nearest valid one after the last served wins.
            for (int k = NQ; k >= 1; k--) begin
                idx = last_reg + QW'(k);
                if (e_req_valid[idx]) grant = idx;
            end
            if (held_reg) grant = grant_reg;
        end

        assign m_mem_req_valid = e_req_valid[grant];
        assign m_mem_req_write = e_req_write[grant];
        assign m_mem_req_addr  = e_req_addr[grant*64 +: 64];
        assign m_mem_req_wdata = e_req_wdata[grant*DATA_W +: DATA_W];
        assign m_mem_req_wstrb = e_req_wstrb[grant*KEEP_W +: KEEP_W];
        always_comb begin
            e_req_ready = '0;
            e_req_ready[grant] = m_mem_req_ready;
        end

        wire logic req_fire = m_mem_req_valid && m_mem_req_ready;
        wire logic rd_fire  = req_fire && !m_mem_req_write;

        // The queue of each read taken, in order; the oldest one's engine takes the next response.
        logic [QW-1:0]  id_mem [IDS];
        logic [IDS_W:0] id_wr_reg, id_rd_reg;
        wire logic [QW-1:0] rsp_q = id_mem[id_rd_reg[IDS_W-1:0]];
        always_comb begin
            e_rsp_valid = '0;
            e_rsp_valid[rsp_q] = m_mem_rsp_valid;
        end

        always_ff @(posedge clk) begin
            if (rd_fire) id_mem[id_wr_reg[IDS_W-1:0]] <= grant;
        end

        always_ff @(posedge clk) begin
            if (rst) begin
                held_reg  <= 1'b0;
                grant_reg <= '0;
                last_reg  <= QW'(NQ - 1);
                id_wr_reg <= '0;
                id_rd_reg <= '0;
            end else begin
                held_reg  <= m_mem_req_valid && !m_mem_req_ready;
                grant_reg <= grant;
                if (req_fire) last_reg <= grant;
                if (rd_fire) id_wr_reg <= id_wr_reg + 1'b1;
                if (m_mem_rsp_valid) id_rd_reg <= id_rd_reg + 1'b1;
            end
        end

        // ---- switch -> host: the queue named by the first beat takes the whole packet
        logic          rx_in_pkt_reg;
        logic [QW-1:0] rx_q_reg;
        wire logic [QW-1:0] first_q   = s_axis_tkeep[QSEL_BYTE] ? s_axis_tdata[QSEL_BYTE*8 + QSEL_LSB +: QW] : '0;
        wire logic [QW-1:0] rx_q      = rx_in_pkt_reg ? rx_q_reg : first_q;
        always_comb begin
            e_rx_tvalid = '0;
            e_rx_tvalid[rx_q] = s_axis_tvalid;
        end
        assign s_axis_tready = e_rx_tready[rx_q];

        always_ff @(posedge clk) begin
            if (rst) begin
                rx_in_pkt_reg <= 1'b0;
                rx_q_reg      <= '0;
            end else if (s_axis_tvalid && s_axis_tready) begin
                rx_in_pkt_reg <= !s_axis_tlast;
                rx_q_reg      <= rx_q;
            end
        end

        // ---- host -> switch: whole packets, round robin
        /* verilator lint_off UNUSEDSIGNAL */
        logic [QW-1:0] tx_from_q;   // the queue each packet came from (not passed on)
        logic          tx_user_unused;
        /* verilator lint_on UNUSEDSIGNAL */
        p4f_axis_rr_arbiter #(.S_COUNT(NQ), .DATA_W(DATA_W), .KEEP_W(KEEP_W), .USER_W(1), .ID_W(QW)) u_tx_arb (
            .clk(clk), .rst(rst),
            .s_axis_tdata(e_tx_tdata), .s_axis_tkeep(e_tx_tkeep), .s_axis_tvalid(e_tx_tvalid),
            .s_axis_tready(e_tx_tready), .s_axis_tlast(e_tx_tlast), .s_axis_tuser('0),
            .m_axis_tdata(m_axis_tdata), .m_axis_tkeep(m_axis_tkeep), .m_axis_tvalid(m_axis_tvalid),
            .m_axis_tready(m_axis_tready), .m_axis_tlast(m_axis_tlast), .m_axis_tid(tx_from_q),
            .m_axis_tuser(tx_user_unused)
        );
    end
endmodule

`default_nettype wire

// p4f_port_traffic: one switch port's on-chip traffic units, in the port's MAC clock, controlled
// from the control clock: a p4f_pkt_gen whose packets replace the MAC's RX stream while the
// generator is enabled, and a p4f_pkt_cap monitoring the port's TX stream (every packet the MAC
// takes: valid && ready), so a switch measures its own throughput without outside traffic.
//
//   MAC rx ──┐                                     (to the port's p4f_timestamp, which stamps
//            ├─ mux (gen_enable) ─► m_rx_axis       generated packets with their real arrival time)
//   p4f_pkt_gen ┘
//   tx (after the port's p4f_timestamp) ─► valid && ready ─► p4f_pkt_cap (link monitor)
//
// Mux: while enabled the generator's stream goes on, and the MAC's rx tready is low (its stream
// is held: a real MAC cannot wait, so enable the generator only while the link is quiet). The
// source changes only between packets, in a cycle where the current source offers no beat (a
// MAC's inter-frame gap, a generator's pacing), so no packet is cut or interleaved and no valid
// beat is withdrawn.
//
// Clock-domain crossing (ctl_clk -> mac_clk and back); no multi-bit value crosses unsynchronized:
//   - templates: each beat {data, keep, last} with its address as tuser through a
//     p4f_axis_async_fifo (tpl_valid/tpl_ready in ctl_clk); written into the generator's RAM as
//     it comes out. Write templates while the generator is idle (it replays what is there).
//   - start: a pulse on `start` (ignored while a start is pending) registers count, period,
//     tpl_end, seq_offset and seq_en in ctl_clk and toggles a request bit; mac_clk synchronizes
//     the toggle (2 flops), starts the generator on its edge with the registered settings (held
//     unchanged since at least two mac_clk edges before, until the next start, so they are read
//     stable: a bundled-data crossing) and toggles its acknowledge back (2 flops).
//     start_pending is high from the pulse until that acknowledge arrives.
//   - gen_enable: a level, through 2 flops.
//   - status: a pulse on `snap` (with `snap_clear` sampled beside it) toggles a request; on its
//     synchronized edge mac_clk copies the generator's and the capturer's counters into snapshot
//     registers (and, with snap_clear, clears the capturer after the copy), then toggles the
//     acknowledge. snap_done (ctl_clk) is high when the acknowledge has come back: the snapshot
//     registers then hold still until the next snap and are read directly in ctl_clk.
//     The snapshot: gen_busy, gen_runs (generator runs started, 8 bits, wrapping), gen_pkts
//     (packets sent by the last run), cap_pkts, cap_bytes, cap_first_ts, cap_last_ts, cap_last_len
//     (p4f_pkt_cap's link monitor since the last clear).
`default_nettype none

module p4f_port_traffic #(
    parameter int DATA_W    = 64,
    parameter int KEEP_W    = DATA_W / 8,
    parameter int TPL_DEPTH = 512,                // template beats; a power of two >= 2
    parameter int TPL_W     = $clog2(TPL_DEPTH),
    parameter int PER_W     = 24,                 // period, fixed point with 8 fractional bits
    parameter int ASYNC_DEPTH = 16
) (
    input  wire logic              ctl_clk,
    input  wire logic              ctl_rst,
    input  wire logic              mac_clk,
    input  wire logic              mac_rst,
    input  wire logic [63:0]       now,             // mac_clk: the port's time

    // ctl_clk: templates, run control, status.
    input  wire logic              tpl_valid,
    output logic                   tpl_ready,
    input  wire logic [TPL_W-1:0]  tpl_addr,
    input  wire logic [DATA_W-1:0] tpl_data,
    input  wire logic [KEEP_W-1:0] tpl_keep,
    input  wire logic              tpl_last,
    input  wire logic              gen_enable,
    input  wire logic              start,
    input  wire logic [31:0]       count,
    input  wire logic [PER_W-1:0]  period,
    input  wire logic [TPL_W-1:0]  tpl_end,
    input  wire logic [15:0]       seq_offset,
    input  wire logic              seq_en,
    output logic                   start_pending,
    input  wire logic              snap,
    input  wire logic              snap_clear,
    output logic                   snap_done,
    output logic                   snap_gen_busy,
    output logic      [7:0]        snap_gen_runs,
    output logic      [31:0]       snap_gen_pkts,
    output logic      [31:0]       snap_cap_pkts,
    output logic      [63:0]       snap_cap_bytes,
    output logic      [63:0]       snap_cap_first_ts,
    output logic      [63:0]       snap_cap_last_ts,
    output logic      [31:0]       snap_cap_last_len,

    // mac_clk: the MAC's RX stream in, the stream towards the port's timestamp unit out.
    input  wire logic [DATA_W-1:0] s_rx_axis_tdata,
    input  wire logic [KEEP_W-1:0] s_rx_axis_tkeep,
    input  wire logic              s_rx_axis_tvalid,
    output logic                   s_rx_axis_tready,
    input  wire logic              s_rx_axis_tlast,
    output logic      [DATA_W-1:0] m_rx_axis_tdata,
    output logic      [KEEP_W-1:0] m_rx_axis_tkeep,
    output logic                   m_rx_axis_tvalid,
    input  wire logic              m_rx_axis_tready,
    output logic                   m_rx_axis_tlast,

    // mac_clk: the TX stream to watch (the MAC's handshake).
    input  wire logic [KEEP_W-1:0] tx_axis_tkeep,
    input  wire logic              tx_axis_tvalid,
    input  wire logic              tx_axis_tready,
    input  wire logic              tx_axis_tlast
);
    // ---------------- ctl_clk side
    logic              start_req_reg, snap_req_reg, snap_clear_reg;
    logic [31:0]       count_reg;
    logic [PER_W-1:0]  period_reg;
    logic [TPL_W-1:0]  tpl_end_reg;
    logic [15:0]       seq_offset_reg;
    logic              seq_en_reg;
    (* ASYNC_REG = "TRUE" *) logic [1:0] start_ack_sync, snap_ack_sync;
    logic              start_ack_reg, snap_ack_reg;  // mac_clk

    assign start_pending = start_req_reg != start_ack_sync[1];
    assign snap_done     = snap_req_reg == snap_ack_sync[1];

    always_ff @(posedge ctl_clk) begin
        if (ctl_rst) begin
            start_req_reg  <= 1'b0;
            snap_req_reg   <= 1'b0;
            snap_clear_reg <= 1'b0;
            count_reg      <= '0;
            period_reg     <= '0;
            tpl_end_reg    <= '0;
            seq_offset_reg <= '0;
            seq_en_reg     <= 1'b0;
            start_ack_sync <= '0;
            snap_ack_sync  <= '0;
        end else begin
            start_ack_sync <= {start_ack_sync[0], start_ack_reg};
            snap_ack_sync  <= {snap_ack_sync[0], snap_ack_reg};
            if (start && !start_pending) begin
                start_req_reg  <= !start_req_reg;
                count_reg      <= count;
                period_reg     <= period;
                tpl_end_reg    <= tpl_end;
                seq_offset_reg <= seq_offset;
                seq_en_reg     <= seq_en;
            end
            if (snap && snap_done) begin
                snap_req_reg   <= !snap_req_reg;
                snap_clear_reg <= snap_clear;
            end
        end
    end

    // Templates through the async FIFO, the beat's address as tuser.
    logic [DATA_W-1:0] t_data;
    logic [KEEP_W-1:0] t_keep;
    logic              t_valid, t_last;
    logic [TPL_W-1:0]  t_addr;
    p4f_axis_async_fifo #(.DATA_W(DATA_W), .KEEP_W(KEEP_W), .USER_W(TPL_W), .DEPTH(ASYNC_DEPTH)) u_tpl_fifo (
        .s_clk(ctl_clk), .s_rst(ctl_rst),
        .s_axis_tdata(tpl_data), .s_axis_tkeep(tpl_keep), .s_axis_tvalid(tpl_valid), .s_axis_tready(tpl_ready),
        .s_axis_tlast(tpl_last), .s_axis_tuser(tpl_addr),
        .m_clk(mac_clk), .m_rst(mac_rst),
        .m_axis_tdata(t_data), .m_axis_tkeep(t_keep), .m_axis_tvalid(t_valid), .m_axis_tready(1'b1),
        .m_axis_tlast(t_last), .m_axis_tuser(t_addr)
    );

    // ---------------- mac_clk side
    (* ASYNC_REG = "TRUE" *) logic [1:0] start_req_sync, snap_req_sync, enable_sync;
    logic start_seen_reg, snap_seen_reg;  // the request's synchronized value, one edge later
    always_ff @(posedge mac_clk) begin
        if (mac_rst) begin
            start_req_sync <= '0;
            snap_req_sync  <= '0;
            enable_sync    <= '0;
            start_seen_reg <= 1'b0;
            snap_seen_reg  <= 1'b0;
        end else begin
            start_req_sync <= {start_req_sync[0], start_req_reg};
            snap_req_sync  <= {snap_req_sync[0], snap_req_reg};
            enable_sync    <= {enable_sync[0], gen_enable};
            start_seen_reg <= start_req_sync[1];
            snap_seen_reg  <= snap_req_sync[1];
        end
    end
    wire logic gen_start = start_req_sync[1] != start_seen_reg;
    wire logic do_snap   = snap_req_sync[1] != snap_seen_reg;

    logic [DATA_W-1:0] g_tdata;
    logic [KEEP_W-1:0] g_tkeep;
    logic              g_tvalid, g_tready, g_tlast;
    logic              gen_busy;
    logic [31:0]       gen_pkts;
    /* verilator lint_off UNUSEDSIGNAL */
    logic [31:0]       gen_unused_beats;
    logic              gen_unused_tuser;
    /* verilator lint_on UNUSEDSIGNAL */
    p4f_pkt_gen #(.DATA_W(DATA_W), .KEEP_W(KEEP_W), .USER_W(1), .DEPTH(TPL_DEPTH), .CNT_W(32), .GAP_W(2),
                  .SEQ_W(32), .OFF_W(16), .PER_W(PER_W), .PER_FRAC(8)) u_gen (
        .clk(mac_clk), .rst(mac_rst),
        .tpl_we(t_valid), .tpl_addr(t_addr), .tpl_data(t_data), .tpl_keep(t_keep), .tpl_last(t_last), .tpl_user(1'b0),
        .start(gen_start), .stop(1'b0), .count(count_reg), .gap(2'd0), .period(period_reg), .tpl_end(tpl_end_reg),
        .seq_en(seq_en_reg), .seq_offset(seq_offset_reg),
        .m_axis_tdata(g_tdata), .m_axis_tkeep(g_tkeep), .m_axis_tvalid(g_tvalid), .m_axis_tready(g_tready),
        .m_axis_tlast(g_tlast), .m_axis_tuser(gen_unused_tuser),
        .busy(gen_busy), .pkts_sent(gen_pkts), .beats_sent(gen_unused_beats)
    );

    // The RX mux: the source changes between packets, when the current one offers no beat (the
    // other may: its valid simply shows from the next cycle on).
    logic sel_gen_reg, rx_in_pkt_reg;
    assign m_rx_axis_tdata  = sel_gen_reg ? g_tdata : s_rx_axis_tdata;
    assign m_rx_axis_tkeep  = sel_gen_reg ? g_tkeep : s_rx_axis_tkeep;
    assign m_rx_axis_tlast  = sel_gen_reg ? g_tlast : s_rx_axis_tlast;
    assign m_rx_axis_tvalid = sel_gen_reg ? g_tvalid : s_rx_axis_tvalid;
    assign g_tready         = sel_gen_reg && m_rx_axis_tready;
    assign s_rx_axis_tready = !sel_gen_reg && m_rx_axis_tready;
    always_ff @(posedge mac_clk) begin
        if (mac_rst) begin
            sel_gen_reg   <= 1'b0;
            rx_in_pkt_reg <= 1'b0;
        end else begin
            if (m_rx_axis_tvalid && m_rx_axis_tready) rx_in_pkt_reg <= !m_rx_axis_tlast;
            if (!rx_in_pkt_reg && !m_rx_axis_tvalid) sel_gen_reg <= enable_sync[1];
        end
    end

    // The TX monitor: a capturer with the smallest RAM (its link monitor is what is read).
    logic [31:0] cap_pkts, cap_last_len;
    logic [63:0] cap_bytes, cap_first_ts, cap_last_ts;
    logic        cap_clear_reg;
    /* verilator lint_off UNUSEDSIGNAL */
    /* verilator lint_off PINCONNECTEMPTY */
    logic [DATA_W-1:0] cap_unused_data;
    logic [KEEP_W-1:0] cap_unused_keep;
    logic [31:0]       cap_unused_captured, cap_unused_dropped, cap_unused_bytes;
    p4f_pkt_cap #(.DATA_W(DATA_W), .KEEP_W(KEEP_W), .USER_W(1), .DEPTH(2), .DESC_DEPTH(2), .TS_W(64)) u_cap (
        .clk(mac_clk), .rst(mac_rst), .now(now), .clear(cap_clear_reg),
        .s_axis_tdata('0), .s_axis_tkeep(tx_axis_tkeep), .s_axis_tvalid(tx_axis_tvalid && tx_axis_tready),
        .s_axis_tready(), .s_axis_tlast(tx_axis_tlast), .s_axis_tuser(1'b0),
        .rd_addr(1'b0), .rd_data(cap_unused_data), .rd_keep(cap_unused_keep),
        .desc_rd_addr(1'b0), .desc_len(), .desc_addr(), .desc_ts(), .desc_user(),
        .pkts_captured(cap_unused_captured), .pkts_dropped(cap_unused_dropped), .bytes_captured(cap_unused_bytes),
        .beats_used(),
        .seen_pkts(cap_pkts), .seen_bytes(cap_bytes), .first_ts(cap_first_ts), .last_ts(cap_last_ts),
        .last_len(cap_last_len)
    );
    /* verilator lint_on PINCONNECTEMPTY */
    /* verilator lint_on UNUSEDSIGNAL */

    // Run counter and the snapshot.
    logic [7:0] runs_reg;
    always_ff @(posedge mac_clk) begin
        if (mac_rst) begin
            runs_reg          <= '0;
            start_ack_reg     <= 1'b0;
            snap_ack_reg      <= 1'b0;
            cap_clear_reg     <= 1'b0;
            snap_gen_busy     <= 1'b0;
            snap_gen_runs     <= '0;
            snap_gen_pkts     <= '0;
            snap_cap_pkts     <= '0;
            snap_cap_bytes    <= '0;
            snap_cap_first_ts <= '0;
            snap_cap_last_ts  <= '0;
            snap_cap_last_len <= '0;
        end else begin
            // The generator takes a start only while idle; a run counts if it took it.
            if (gen_start && !gen_busy) runs_reg <= runs_reg + 1'b1;
            start_ack_reg <= start_req_sync[1];
            cap_clear_reg <= 1'b0;
            if (do_snap) begin
                snap_gen_busy     <= gen_busy || gen_start;
                snap_gen_runs     <= runs_reg + 8'(gen_start && !gen_busy);
                snap_gen_pkts     <= gen_pkts;
                snap_cap_pkts     <= cap_pkts;
                snap_cap_bytes    <= cap_bytes;
                snap_cap_first_ts <= cap_first_ts;
                snap_cap_last_ts  <= cap_last_ts;
                snap_cap_last_len <= cap_last_len;
                cap_clear_reg     <= snap_clear_reg;
                snap_ack_reg      <= snap_req_sync[1];
            end
        end
    end

endmodule

`default_nettype wire

// p4f_pkt_cap: packet capturer. Records the packets arriving on s_axis into a RAM of DEPTH beats,
// with one descriptor per packet, for software or a testbench to read back afterwards (what a
// port really sent, with arrival times; the receiving end of p4f_pkt_gen's traffic).
//
// A monitor: s_axis_tready is always high, the capturer never holds its source back. To watch a
// link without joining it, drive s_axis_tvalid with the link's tvalid && tready. A packet that
// does not fit is dropped whole (its beats are taken and thrown away) and counted:
//   - its first beat finds DESC_DEPTH descriptors stored, or
//   - one of its beats finds the RAM full (DEPTH beats stored); the beats it already wrote are
//     given back, so a later, shorter packet may still fit.
// pkts_dropped counts a drop at the beat that decides it. Packets are stored back to back from
// beat 0 in arrival order, descriptor i for the i-th packet captured since the last clear; each
// beat as {tkeep, tdata}.
// Descriptor: len (bytes: the set tkeep bits of all its beats), addr (its first beat's RAM
// address), ts (`now` in the cycle its first beat was taken) and user (its first beat's tuser).
// It is written, and pkts_captured, bytes_captured and beats_used count the packet, at the edge
// its last beat is taken.
//
// Link monitor, whatever is stored: seen_pkts and seen_bytes count every whole packet on s_axis,
// and first_ts / last_ts are the times (`now` as its first beat was taken) of the first and the
// last of them, last_len the last one's length; all move at the edge a packet's last beat is
// taken. So a capturer with a small RAM still measures a link's packets, bytes and rate (bytes
// over the time from the first packet to the last), as a switch's traffic units do.
//
// clear (a pulse) empties the capture: descriptors, RAM pointer and the counters go back to
// 0 (the RAM keeps its contents, it is only overwritten). A beat taken in the cycle of a clear is
// ignored, and so is the rest of a packet it cuts: capture restarts at the next packet's first
// beat. Reset does the same as clear.
//
// Read ports, for software: rd_data/rd_keep show RAM beat rd_addr one cycle after rd_addr, and
// desc_* show descriptor desc_rd_addr one cycle after desc_rd_addr (block or distributed RAM read
// registers, read every cycle). An entry is valid once the counters include it (a descriptor i
// < pkts_captured, a beat < beats_used); both stay unchanged until the next clear, and may be
// read while capture goes on.
//
// Timing: one beat per cycle, no latency that matters (the counters move at the edge a beat is
// taken). The drop decision is a compare of registers, with s_axis_tvalid and tlast as late
// inputs.
`default_nettype none

module p4f_pkt_cap #(
    parameter int DATA_W      = 64,                           // tdata width in bits, a multiple of 8
    parameter int KEEP_W      = (DATA_W + 7) / 8,             // tkeep width: one bit per byte
    parameter int USER_W      = 1,                            // tuser width in bits (at least 1)
    parameter int DEPTH       = 512,                          // RAM beats; a power of two >= 2
    parameter int ADDR_W      = $clog2(DEPTH),                // RAM address width
    parameter int DESC_DEPTH  = 64,                           // descriptors; a power of two >= 2
    parameter int DESC_ADDR_W = $clog2(DESC_DEPTH),           // descriptor address width
    parameter int TS_W        = 64,                           // width of `now` and the timestamps
    parameter int LEN_W       = $clog2(DEPTH * KEEP_W + 1),   // packet length width (bytes)
    parameter int LO_W        = 32                            // seen_bytes' low part (its carry chain); 8 to 56
) (
    input  wire logic                   clk,
    input  wire logic                   rst,
    input  wire logic [TS_W-1:0]        now,
    input  wire logic                   clear,

    input  wire logic [DATA_W-1:0]      s_axis_tdata,
    input  wire logic [KEEP_W-1:0]      s_axis_tkeep,
    input  wire logic                   s_axis_tvalid,
    output logic                        s_axis_tready,
    input  wire logic                   s_axis_tlast,
    input  wire logic [USER_W-1:0]      s_axis_tuser,

    // RAM read port: beat rd_addr, one cycle later.
    input  wire logic [ADDR_W-1:0]      rd_addr,
    output logic      [DATA_W-1:0]      rd_data,
    output logic      [KEEP_W-1:0]      rd_keep,

    // Descriptor read port: descriptor desc_rd_addr, one cycle later.
    input  wire logic [DESC_ADDR_W-1:0] desc_rd_addr,
    output logic      [LEN_W-1:0]       desc_len,
    output logic      [ADDR_W-1:0]      desc_addr,
    output logic      [TS_W-1:0]        desc_ts,
    output logic      [USER_W-1:0]      desc_user,

    output logic      [31:0]            pkts_captured,
    output logic      [31:0]            pkts_dropped,
    output logic      [31:0]            bytes_captured,
    output logic      [ADDR_W:0]        beats_used,

    // The link monitor (every packet, stored or not).
    output logic      [31:0]            seen_pkts,
    output logic      [63:0]            seen_bytes,
    output logic      [TS_W-1:0]        first_ts,
    output logic      [TS_W-1:0]        last_ts,
    output logic      [31:0]            last_len
);
    localparam int DESC_W = USER_W + TS_W + ADDR_W + LEN_W;

    if (DEPTH < 2 || (1 << ADDR_W) != DEPTH || DESC_DEPTH < 2 || (1 << DESC_ADDR_W) != DESC_DEPTH) begin : g_bad_depth
        $error("p4f_pkt_cap: DEPTH and DESC_DEPTH must be powers of two >= 2");
    end
    if (LO_W < 8 || LO_W > 56) begin : g_bad_lo
        $error("p4f_pkt_cap: LO_W must be 8 to 56");
    end

    logic [DATA_W+KEEP_W-1:0] mem [DEPTH];
    logic [DESC_W-1:0]        desc_mem [DESC_DEPTH];

    // Pointers carry one more bit than an address, so a RAM (or descriptor queue) holding all its
    // entries reads as full rather than empty.
    logic                 in_pkt_reg;   // s_axis is inside a packet (the protocol, whatever is stored)
    logic                 discard_reg;  // the rest of the current packet is thrown away
    logic [ADDR_W:0]      wr_ptr_reg;   // next beat's address; back to beats_used at a drop
    logic [DESC_ADDR_W:0] desc_cnt_reg;
    logic [LEN_W-1:0]     len_reg;      // bytes of the current packet so far
    logic [TS_W-1:0]      ts_reg;
    logic [USER_W-1:0]    user_reg;

    assign s_axis_tready = 1'b1;

    wire logic take      = s_axis_tvalid && !clear;
    wire logic first     = !in_pkt_reg;
    wire logic skip      = !first && discard_reg;
    wire logic mem_full  = wr_ptr_reg[ADDR_W];
    wire logic desc_full = desc_cnt_reg[DESC_ADDR_W];
    wire logic drop      = take && !skip && (mem_full || (first && desc_full));
    wire logic store     = take && !skip && !drop;
    wire logic done      = store && s_axis_tlast;

    wire logic [LEN_W-1:0]  len_now  = (first ? '0 : len_reg) + LEN_W'($countones(s_axis_tkeep));
    wire logic [TS_W-1:0]   ts_now   = first ? now : ts_reg;
    wire logic [USER_W-1:0] user_now = first ? s_axis_tuser : user_reg;

    always_ff @(posedge clk) begin
        if (store) mem[wr_ptr_reg[ADDR_W-1:0]] <= {s_axis_tkeep, s_axis_tdata};
        if (done)  desc_mem[desc_cnt_reg[DESC_ADDR_W-1:0]] <= {user_now, ts_now, beats_used[ADDR_W-1:0], len_now};
        if (store) begin
            len_reg  <= len_now;
            ts_reg   <= ts_now;
            user_reg <= user_now;
        end
        {rd_keep, rd_data} <= mem[rd_addr];
        {desc_user, desc_ts, desc_addr, desc_len} <= desc_mem[desc_rd_addr];
    end

    always_ff @(posedge clk) begin
        if (rst) begin
            in_pkt_reg <= 1'b0;
        end else if (s_axis_tvalid) begin
            in_pkt_reg <= !s_axis_tlast;
        end
    end

    always_ff @(posedge clk) begin
        if (rst || clear) begin
            // After reset s_axis is at a packet boundary (first beat next); after a clear the
            // packet in progress, if any, is cut.
            discard_reg    <= 1'b1;
            wr_ptr_reg     <= '0;
            desc_cnt_reg   <= '0;
            pkts_dropped   <= '0;
            bytes_captured <= '0;
            beats_used     <= '0;
        end else begin
            if (drop) begin
                discard_reg  <= 1'b1;
                wr_ptr_reg   <= beats_used;
                pkts_dropped <= pkts_dropped + 1'b1;
            end
            if (store) begin
                discard_reg <= 1'b0;
                wr_ptr_reg  <= wr_ptr_reg + 1'b1;
            end
            if (done) begin
                desc_cnt_reg   <= desc_cnt_reg + 1'b1;
                bytes_captured <= bytes_captured + 32'(len_now);
                beats_used     <= wr_ptr_reg + 1'b1;
            end
        end
    end

    assign pkts_captured = 32'(desc_cnt_reg);

    // ---- the link monitor: the packet in progress counts if its first beat came after the
    // last clear.
    logic            mon_in_reg;   // inside a packet that counts
    logic [31:0]     mon_len_reg;
    // Bytes of the counted packets, the one in progress included, as {hi + c, lo}: a beat adds
    // its bytes to lo (the carry out into c) while hi takes the previous carry, two carry chains
    // side by side (LO_W and 64 - LO_W bits) instead of one of 64. seen_bytes takes the three at a
    // last beat and is {seen_hi + seen_c, seen_lo}, an addition of registers on the output.
    localparam int HI_W = 64 - LO_W;
    logic [LO_W-1:0] mon_lo_reg, seen_lo_reg;
    logic [HI_W-1:0] mon_hi_reg, seen_hi_reg;
    logic            mon_c_reg, seen_c_reg;
    logic [TS_W-1:0] mon_ts_reg;
    wire logic            mon_take    = take && (first || mon_in_reg);
    wire logic [31:0]     mon_len_now = (first ? 32'd0 : mon_len_reg) + 32'($countones(s_axis_tkeep));
    wire logic [TS_W-1:0] mon_ts_now  = first ? now : mon_ts_reg;
    wire logic [LO_W:0]   mon_lo_now  = {1'b0, mon_lo_reg} + (LO_W + 1)'($countones(s_axis_tkeep));
    wire logic [HI_W-1:0] mon_hi_now  = mon_hi_reg + HI_W'(mon_c_reg);
    assign seen_bytes = {seen_hi_reg + HI_W'(seen_c_reg), seen_lo_reg};

    always_ff @(posedge clk) begin
        if (mon_take) begin
            mon_len_reg <= mon_len_now;
            mon_ts_reg  <= mon_ts_now;
        end
    end

    always_ff @(posedge clk) begin
        if (rst || clear) begin
            mon_in_reg <= 1'b0;
            mon_lo_reg  <= '0;
            mon_hi_reg  <= '0;
            mon_c_reg   <= 1'b0;
            seen_lo_reg <= '0;
            seen_hi_reg <= '0;
            seen_c_reg  <= 1'b0;
            seen_pkts  <= '0;
            first_ts   <= '0;
            last_ts    <= '0;
            last_len   <= '0;
        end else if (mon_take) begin
            mon_in_reg    <= !s_axis_tlast;
            {mon_c_reg, mon_lo_reg} <= mon_lo_now;
            mon_hi_reg    <= mon_hi_now;
            if (s_axis_tlast) begin
                seen_pkts  <= seen_pkts + 1'b1;
                {seen_c_reg, seen_lo_reg} <= mon_lo_now;
                seen_hi_reg <= mon_hi_now;
                last_ts    <= mon_ts_now;
                last_len   <= mon_len_now;
                if (seen_pkts == '0) first_ts <= mon_ts_now;
            end
        end
    end

endmodule

`default_nettype wire

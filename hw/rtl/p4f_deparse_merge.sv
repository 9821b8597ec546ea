// p4f_deparse_merge: the deparser's last step. For each packet it takes one descriptor (the
// emitted header bytes, how many bytes of the original packet the parser consumed, a length
// limit, drop, egress port) and the original packet from the payload FIFO, and emits the header
// bytes followed by the original bytes from d_skip_len to the end, cut to its first d_max_len
// bytes, with tdest = d_dest on every beat.
//
// Byte order: AXI4-Stream, byte 0 of a beat is tdata[7:0]; byte i of d_hdr_data is
// d_hdr_data[i*8 +: 8], byte 0 first on the wire. tkeep is contiguous from bit 0.
//
// Descriptor handshake: the descriptor stays at the head (d_valid high, d_* unchanged, as
// valid/ready requires) for the whole packet and is taken (d_ready) in the cycle the packet's
// last input beat is taken. Descriptors and packets pair up in order.
//   - d_hdr_len above HDR_BYTES counts as HDR_BYTES.
//   - d_skip_len at or beyond the packet length: the payload part is empty.
//   - d_max_len: the output (header bytes, then payload) is cut to its first d_max_len bytes,
//     inside the header bytes too if d_max_len < d_hdr_len. It implements P4 v1model's
//     truncate(length). 16'hFFFF cuts nothing in practice (outputs are shorter than 64 KiB).
//     The whole input packet is still consumed; the input beats after the cut are discarded.
//   - d_drop: the packet is consumed and nothing is emitted.
//   - an output of 0 bytes (d_hdr_len 0 and nothing left after the skip, or d_max_len 0) emits
//     nothing at all: AXI4-Stream has no empty packet. The descriptor and the input packet are
//     consumed.
//
// How: a byte buffer of two beats with a count. Each cycle it emits its first beat when it holds
// more than one beat, exactly one beat and more bytes of the packet are certain to follow, or
// the end of the packet. Into the bytes that remain it appends, at the count position, the next
// header chunk (one beat of header per cycle; rotated into place) and the input beat with its
// skipped bytes removed (one rotation does both the compaction and the placement). The packet's
// last header chunk and its first payload bytes go in together, so a packet whose output is one
// beat goes in and out in one cycle. Input beats that lie wholly inside the skip are consumed
// while header chunks are still going in. The buffer holds one packet at a time; the next
// packet starts in the cycle the previous one's last beat leaves.
// The cut shortens the header to min(d_hdr_len, d_max_len) and ends the payload at input byte
// d_skip_len + (d_max_len - that header): bytes of a beat beyond it are not appended, as those
// before the skip are not. The append that reaches the cut ends the output there and then (it
// does not wait for the input's tlast); the packet's remaining input beats are then taken one
// per cycle and discarded, even while its last output beats wait to leave.
//
// Timing: with OUT_REG = 1 the output goes through p4f_axis_register: m_axis_* are flops and
// m_axis_tready reaches no input. s_axis_tready and d_ready depend on registers, d_* and on the
// input beat itself (tkeep, tlast), never on m_axis_tready. Latency from an input beat to the
// output beat carrying its first byte: 2 cycles (OUT_REG = 1) or 1 cycle (OUT_REG = 0, where
// m_axis_tready reaches s_axis_tready and d_ready combinationally).
// Throughput: one output beat per cycle while the output is at least as long as the input; one
// packet per cycle when every packet's output fits one beat (e.g. 64-byte packets on a 512-bit
// bus with d_hdr_len = d_skip_len, or differing by a few bytes while the output still fits).
// Cost: two DATA_W-bit byte rotators and a 2*DATA_W-bit buffer with a per-byte 4-way select,
// plus a few adders and comparators on 17-bit byte offsets for the skip and the cut.
`default_nettype none

module p4f_deparse_merge #(
    parameter int DATA_W    = 512,              // tdata width in bits; DATA_W/8 a power of two, at least 2
    parameter int KEEP_W    = (DATA_W + 7) / 8, // tkeep width: one bit per byte
    parameter int HDR_BYTES = 64,               // capacity of d_hdr_data in bytes (at least 1)
    parameter int DEST_W    = 9,                // tdest width in bits (at least 1)
    parameter bit OUT_REG   = 1'b1              // 1: register slice on the output (latency 2); 0: none (latency 1)
) (
    input  wire logic                   clk,
    input  wire logic                   rst,

    input  wire logic                   d_valid,
    output logic                        d_ready,
    input  wire logic [HDR_BYTES*8-1:0] d_hdr_data,
    input  wire logic [15:0]            d_hdr_len,
    input  wire logic [15:0]            d_skip_len,
    input  wire logic [15:0]            d_max_len,
    input  wire logic                   d_drop,
    input  wire logic [DEST_W-1:0]      d_dest,

    input  wire logic [DATA_W-1:0]      s_axis_tdata,
    input  wire logic [KEEP_W-1:0]      s_axis_tkeep,
    input  wire logic                   s_axis_tvalid,
    output logic                        s_axis_tready,
    input  wire logic                   s_axis_tlast,

    output logic      [DATA_W-1:0]      m_axis_tdata,
    output logic      [KEEP_W-1:0]      m_axis_tkeep,
    output logic                        m_axis_tvalid,
    input  wire logic                   m_axis_tready,
    output logic                        m_axis_tlast,
    output logic      [DEST_W-1:0]      m_axis_tdest
);
    localparam int W          = KEEP_W;                        // bytes per beat
    localparam int SH_W       = $clog2(W);                     // a byte position within a beat
    localparam int CNT_W      = $clog2(2 * W + 1);             // buffer fill, 0..2W bytes
    localparam int HDR_CHUNKS = (HDR_BYTES + W - 1) / W;       // header beats
    localparam int HCH_W      = HDR_CHUNKS > 1 ? $clog2(HDR_CHUNKS) : 1;
    localparam int OFF_W      = 17;                            // input byte offset, saturating at 2^16

    if (W < 2 || (1 << SH_W) != W || DATA_W != 8 * W) begin : g_bad_width
        $error("p4f_deparse_merge: DATA_W/8 must be a power of two >= 2");
    end

    // Rotate a beat left by n bytes: result byte k = x byte (k - n) mod W.
    function automatic logic [DATA_W-1:0] rotl_bytes(input logic [DATA_W-1:0] x, input logic [SH_W-1:0] n);
        /* verilator lint_off UNUSEDSIGNAL */
        logic [2*DATA_W-1:0] t; // the low half is the rotation's spill
        /* verilator lint_on UNUSEDSIGNAL */
        t = {x, x} << {n, 3'b000};
        rotl_bytes = t[2*DATA_W-1 -: DATA_W];
    endfunction

    // ---- state: the byte buffer, and where the packet at the descriptor head has got to
    logic [2*DATA_W-1:0] buf_reg;        // bytes beyond cnt_reg are zero
    logic [CNT_W-1:0]    cnt_reg;
    logic                end_reg;        // the buffer holds the end of its packet
    logic                more_reg;       // not ended, and more bytes of the packet are certain
    logic [DEST_W-1:0]   dest_reg;       // tdest of the packet in the buffer
    logic [HCH_W-1:0]    hdr_chunk_reg;  // header beats appended so far
    logic                hdr_done_reg;   // whole header appended
    logic [OFF_W-1:0]    in_off_reg;     // byte offset of the next input beat in its packet
    logic                cut_reg;        // the packet at the descriptor head has reached its cut:
                                         // its output has ended, its remaining beats are discarded

    logic o_valid, o_ready, o_last;
    logic [DATA_W-1:0] o_data;
    logic [KEEP_W-1:0] o_keep;

    // ---- emission of the buffer's first beat
    int c;          // bytes left in the buffer after this cycle's emission
    logic end_kept; // the buffer still holds an ended packet after this cycle
    logic emit_fire;
    always_comb begin
        o_valid = int'(cnt_reg) > W || (int'(cnt_reg) == W && more_reg) || end_reg;
        o_last  = end_reg && int'(cnt_reg) <= W;
        o_data  = buf_reg[DATA_W-1:0];
        for (int i = 0; i < W; i++) o_keep[i] = i < int'(cnt_reg);
        emit_fire = o_valid && o_ready;
        c = !emit_fire ? int'(cnt_reg) : o_last ? 0 : int'(cnt_reg) - W;
        end_kept = end_reg && !(emit_fire && o_last);
    end

    // ---- appending the packet at the descriptor head
    logic [HDR_CHUNKS*DATA_W-1:0] hdr_padded;
    logic [DATA_W-1:0]            hdr_rot, pay_rot;
    logic [2*DATA_W-1:0]          buf_next, kept;
    logic active, take_hdr, take_beat, hdr_final, more_next, cut_next;
    int   hdr_len, hdr_rem, h, nbytes, lo, hi, p, a, cnt_next, skip_left, end_left, pay_max, in_off_next;

    assign hdr_padded = (HDR_CHUNKS*DATA_W)'(d_hdr_data);

    always_comb begin
        // After the cut the packet's remaining beats are discarded while its output drains.
        active  = d_valid && (cut_reg || !end_kept);
        hdr_len = d_drop ? 0 : int'(d_hdr_len) > HDR_BYTES ? HDR_BYTES : int'(d_hdr_len);
        if (hdr_len > int'(d_max_len)) hdr_len = int'(d_max_len);
        pay_max = int'(d_max_len) - hdr_len; // payload bytes the cut leaves room for
        hdr_rem = hdr_done_reg ? 0 : hdr_len - int'(hdr_chunk_reg) * W;
        if (hdr_rem < 0) hdr_rem = 0;
        h         = hdr_rem < W ? hdr_rem : W;
        hdr_final = hdr_rem <= W;
        take_hdr  = active && h != 0 && c + h <= 2 * W;

        nbytes = 0;
        for (int i = 0; i < W; i++) if (s_axis_tkeep[i]) nbytes = i + 1;
        // The beat's bytes [lo, hi) go out: those from the skip on, up to the cut.
        skip_left = int'(d_skip_len) - int'(in_off_reg);
        end_left  = skip_left + pay_max;
        lo = d_drop ? nbytes : skip_left <= 0 ? 0 : skip_left >= nbytes ? nbytes : skip_left;
        hi = end_left <= 0 ? 0 : end_left >= nbytes ? nbytes : end_left;
        p  = hi > lo ? hi - lo : 0;
        // A beat with bytes to append waits for the last header chunk and room for a whole
        // beat; a beat wholly inside the skip or after the cut goes any time, except the last
        // one, which must wait for the header to be complete (it ends the packet).
        if (p == 0) s_axis_tready = active && (!s_axis_tlast || (hdr_final && c + h <= 2 * W));
        else        s_axis_tready = active && hdr_final && c + h <= W;
        take_beat = s_axis_tready && s_axis_tvalid;
        d_ready   = take_beat && s_axis_tlast;

        a        = c + (take_hdr ? h : 0);
        cnt_next = a + (take_beat ? p : 0);
        in_off_next = int'(in_off_reg);
        if (take_beat && in_off_reg[OFF_W-1] == 1'b0) in_off_next = int'(in_off_reg) + W;
        // No term for the cut: until the cut is reached, a next beat that starts at or after the
        // skip starts before the cut, so it has bytes to append; the append that reaches the cut
        // ends the output (cut_next), and more_reg does not count for an ended output.
        more_next = active && !d_ready
                    && (hdr_rem - (take_hdr ? h : 0) != 0 || (!d_drop && in_off_next >= int'(d_skip_len)));
        // This cycle's append reaches the cut before the packet's last beat: the output ends now.
        cut_next = !d_ready && ((take_hdr && hdr_final && pay_max == 0) || (take_beat && p != 0 && end_left <= nbytes));

        // What stays in the buffer: its second beat moves down when the first leaves.
        kept = {buf_reg[2*DATA_W-1:DATA_W], emit_fire ? buf_reg[2*DATA_W-1:DATA_W] : buf_reg[DATA_W-1:0]};
        hdr_rot = rotl_bytes(hdr_padded[int'(hdr_chunk_reg) * DATA_W +: DATA_W], SH_W'(c));
        pay_rot = rotl_bytes(s_axis_tdata, SH_W'(a - lo));
        for (int i = 0; i < 2 * W; i++) begin
            if (i < c)             buf_next[i*8 +: 8] = kept[i*8 +: 8];
            else if (i < a)        buf_next[i*8 +: 8] = hdr_rot[(i % W)*8 +: 8];
            else if (i < cnt_next) buf_next[i*8 +: 8] = pay_rot[(i % W)*8 +: 8];
            else                   buf_next[i*8 +: 8] = 8'h00;
        end
    end

    // Datapath registers: no reset.
    always_ff @(posedge clk) begin
        buf_reg <= buf_next;
        if (active) dest_reg <= d_dest;
    end

    always_ff @(posedge clk) begin
        if (rst) begin
            cnt_reg       <= '0;
            end_reg       <= 1'b0;
            more_reg      <= 1'b0;
            hdr_chunk_reg <= '0;
            hdr_done_reg  <= 1'b0;
            in_off_reg    <= '0;
            cut_reg       <= 1'b0;
        end else begin
            cnt_reg  <= CNT_W'(cnt_next);
            // An output of no bytes at all never reaches the buffer: nothing to end. After the
            // cut nothing is appended: at the packet's last beat cnt_next is what is left of the
            // output that has already ended (end_kept), or 0.
            end_reg  <= end_kept || ((d_ready || cut_next) && cnt_next != 0);
            more_reg <= more_next;
            if (d_ready) begin
                hdr_chunk_reg <= '0;
                hdr_done_reg  <= 1'b0;
                in_off_reg    <= '0;
                cut_reg       <= 1'b0;
            end else begin
                if (cut_next) cut_reg <= 1'b1;
                if (take_hdr) begin
                    if (hdr_final) hdr_done_reg <= 1'b1;
                    else           hdr_chunk_reg <= hdr_chunk_reg + 1'b1;
                end
                in_off_reg <= OFF_W'(in_off_next);
            end
        end
    end

    // ---- output
    if (OUT_REG) begin : g_out_reg
        /* verilator lint_off UNUSEDSIGNAL */
        logic unused_tuser;
        /* verilator lint_on UNUSEDSIGNAL */
        p4f_axis_register #(.DATA_W(DATA_W), .KEEP_W(KEEP_W), .ID_W(DEST_W), .USER_W(1)) u_out_reg (
            .clk(clk), .rst(rst),
            .s_axis_tdata(o_data), .s_axis_tkeep(o_keep), .s_axis_tvalid(o_valid),
            .s_axis_tready(o_ready), .s_axis_tlast(o_last), .s_axis_tid(dest_reg), .s_axis_tuser(1'b0),
            .m_axis_tdata, .m_axis_tkeep, .m_axis_tvalid, .m_axis_tready, .m_axis_tlast,
            .m_axis_tid(m_axis_tdest), .m_axis_tuser(unused_tuser));
    end else begin : g_no_out_reg
        assign m_axis_tdata  = o_data;
        assign m_axis_tkeep  = o_keep;
        assign m_axis_tvalid = o_valid;
        assign m_axis_tlast  = o_last;
        assign m_axis_tdest  = dest_reg;
        assign o_ready       = m_axis_tready;
    end

endmodule

`default_nettype wire

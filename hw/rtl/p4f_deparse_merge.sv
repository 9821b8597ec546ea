// p4f_deparse_merge: the deparser's last step. For each packet it takes one descriptor (the
// emitted header bytes, how many bytes of the original packet the parser consumed, a length
// limit, drop, replay, egress port) and the original packet from the payload FIFO, and emits the
// header bytes followed by the original bytes from d_skip_len to the end, cut to its first
// d_max_len bytes, with tdest = d_dest on every beat.
//
// Byte order: AXI4-Stream, byte 0 of a beat is tdata[7:0]; byte i of d_hdr_data is
// d_hdr_data[i*8 +: 8], byte 0 first on the wire. tkeep is contiguous from bit 0, and every beat
// but a packet's last is full.
//
// Descriptors and packets pair up in order. A descriptor is taken into the module's own
// two-stage descriptor pipeline as soon as there is room (d_ready comes from a flop), so it
// leaves the queue before its packet does; s_axis_replay is the d_replay of the packet whose
// beats s_axis is taking (a replay FIFO reads it with the packet's last beat).
//   - d_hdr_len above HDR_BYTES counts as HDR_BYTES.
//   - d_skip_len at or beyond the packet length: the payload part is empty.
//   - d_max_len: the output (header bytes, then payload) is cut to its first d_max_len bytes,
//     inside the header bytes too if d_max_len < d_hdr_len. It implements P4 v1model's
//     truncate(length). 16'hFFFF cuts nothing in practice (outputs are shorter than 64 KiB).
//     The whole input packet is still consumed; the input beats after the cut are discarded,
//     one per cycle, never refused once the beat holding the cut is in.
//   - d_drop: the packet is consumed and nothing is emitted.
//   - an output of 0 bytes (d_hdr_len 0 and nothing left after the skip, or d_max_len 0) emits
//     nothing at all: AXI4-Stream has no empty packet.
//
// How: five register stages, none of them deeper than a few LUTs (the bound the generator's
// designs keep is 12 cells on any register-to-register path):
//   D1, D2 (descriptor, p4f_axis_register each): the header length capped at HDR_BYTES and at
//     d_max_len, the payload bytes the cut leaves (pay), and the input offset where the cut
//     falls (skip + pay), each a single adder or compare per stage.
//   S1 (input beat, into a p4f_axis_register): the beat's bytes from the skip on and before the
//     cut, moved down to byte 0 (one rotation by the skip's low bits) with their mask, a
//     thermometer of the count; per-packet counters of the skip and the cut left, one
//     subtraction of a beat per beat. After the beat holding a cut, the packet's remaining beats
//     are taken and dropped here.
//   P (packer): a ring of 4 beat slots. The next byte goes to slot s0 at offset off; a packet
//     starts at a slot boundary, so its header chunks (whole beats but the last) go in at offset
//     0 unrotated, and the payload bytes of a record go in after them, rotated left by one
//     amount (offB) into s0 and s0 + 1. A slot is complete when full and more bytes of its
//     packet are certain, or when its packet ends in it (then with tlast and its tkeep); a full
//     slot whose successor is not certain waits (pend) until the next write or the end. The
//     packet's last header chunk and its first payload bytes go in together, so a packet whose
//     output is one beat goes in and out at one per cycle.
//   out: the oldest complete slot, bytes beyond tkeep zeroed, through p4f_axis_register (OUT_REG).
// Every count the packer needs is read off a thermometer mask by indexing it (no adder in front
// of a decision): whether offB + the record's bytes reach W, W + 1 or 2W.
//
// Timing: s_axis_tready and d_ready come from flops (with OUT_REG = 1 so do m_axis_*); no path
// runs from m_axis_tready to an input. Latency from an input beat to the output beat carrying its
// first byte: 3 cycles (OUT_REG = 1) or 2 (OUT_REG = 0); a descriptor reaches S1 2 cycles after
// it is taken.
// Throughput: one output beat per cycle while the output is at least as long as the input; one
// packet per cycle when every packet's output fits one beat; the input waits only for a
// descriptor that is not through D2 yet or for a full ring.
`default_nettype none

module p4f_deparse_merge #(
    parameter int DATA_W    = 512,              // tdata width in bits; DATA_W/8 a power of two, at least 2
    parameter int KEEP_W    = (DATA_W + 7) / 8, // tkeep width: one bit per byte
    parameter int HDR_BYTES = 64,               // capacity of d_hdr_data in bytes (at least 1)
    parameter int DEST_W    = 9,                // tdest width in bits (at least 1)
    parameter bit OUT_REG   = 1'b1              // 1: register slice on the output (latency 3); 0: none (latency 2)
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
    input  wire logic                   d_replay,
    input  wire logic [DEST_W-1:0]      d_dest,

    input  wire logic [DATA_W-1:0]      s_axis_tdata,
    input  wire logic [KEEP_W-1:0]      s_axis_tkeep,
    input  wire logic                   s_axis_tvalid,
    output logic                        s_axis_tready,
    input  wire logic                   s_axis_tlast,
    output logic                        s_axis_replay,   // d_replay of the packet s_axis is in

    output logic      [DATA_W-1:0]      m_axis_tdata,
    output logic      [KEEP_W-1:0]      m_axis_tkeep,
    output logic                        m_axis_tvalid,
    input  wire logic                   m_axis_tready,
    output logic                        m_axis_tlast,
    output logic      [DEST_W-1:0]      m_axis_tdest
);
    localparam int W          = KEEP_W;                       // bytes per beat
    localparam int SH_W       = $clog2(W);                    // a byte position within a beat
    localparam int N_W        = SH_W + 1;                     // a byte count 0..W
    localparam int HB_W       = HDR_BYTES * 8;
    localparam int HDR_CHUNKS = (HDR_BYTES + W - 1) / W;      // header beats
    localparam int CH_W       = $clog2(HDR_CHUNKS + 2);       // a chunk count 0..HDR_CHUNKS (+1 spare)
    localparam int HL_W       = $clog2(HDR_BYTES + 1) > N_W ? $clog2(HDR_BYTES + 1) : N_W; // a header length
    localparam int LEN_W      = 17;                           // input offsets: skip + length limit

    if (W < 2 || (1 << SH_W) != W || DATA_W != 8 * W) begin : g_bad_width
        $error("p4f_deparse_merge: DATA_W/8 must be a power of two >= 2");
    end

    // ---- byte and bit helpers
    // Rotate a beat left by n bytes: result byte k = x byte (k - n) mod W.
    function automatic logic [DATA_W-1:0] rotl_bytes(input logic [DATA_W-1:0] x, input logic [SH_W-1:0] n);
        /* verilator lint_off UNUSEDSIGNAL */
        logic [2*DATA_W-1:0] t; // the low half is the rotation's spill
        /* verilator lint_on UNUSEDSIGNAL */
        t = {x, x} << {n, 3'b000};
        rotl_bytes = t[2*DATA_W-1 -: DATA_W];
    endfunction
    // Rotate a beat right by n bytes: result byte k = x byte (k + n) mod W.
    function automatic logic [DATA_W-1:0] rotr_bytes(input logic [DATA_W-1:0] x, input logic [SH_W-1:0] n);
        /* verilator lint_off UNUSEDSIGNAL */
        logic [2*DATA_W-1:0] t;
        /* verilator lint_on UNUSEDSIGNAL */
        t = {x, x} >> {n, 3'b000};
        rotr_bytes = t[DATA_W-1:0];
    endfunction
    function automatic logic [W-1:0] rotl_bits(input logic [W-1:0] x, input logic [SH_W-1:0] n);
        /* verilator lint_off UNUSEDSIGNAL */
        logic [2*W-1:0] t;
        /* verilator lint_on UNUSEDSIGNAL */
        t = {x, x} << n;
        rotl_bits = t[2*W-1 -: W];
    endfunction
    function automatic logic [W-1:0] rotr_bits(input logic [W-1:0] x, input logic [SH_W-1:0] n);
        /* verilator lint_off UNUSEDSIGNAL */
        logic [2*W-1:0] t;
        /* verilator lint_on UNUSEDSIGNAL */
        t = {x, x} >> n;
        rotr_bits = t[W-1:0];
    endfunction
    // Bits 0 .. n-1 set (n = 0..W).
    function automatic logic [W-1:0] thermo(input logic [N_W-1:0] n);
        for (int b = 0; b < W; b++) thermo[b] = N_W'(b) < n;
    endfunction
    // The count of a thermometer mask, one balanced OR per count bit (no priority chain).
    function automatic logic [N_W-1:0] thermo_count(input logic [W-1:0] m);
        logic [W:1] top; // top[j]: exactly bits 0 .. j-1 set
        for (int j = 1; j < W; j++) top[j] = m[j-1] & ~m[j];
        top[W] = m[W-1];
        for (int k = 0; k < N_W; k++) begin
            thermo_count[k] = 1'b0;
            for (int j = 1; j <= W; j++) if (((j >> k) & 1) != 0) thermo_count[k] = thermo_count[k] | top[j];
        end
    endfunction

    /* verilator lint_off PINCONNECTEMPTY */

    // ---- D1: the header length capped at HDR_BYTES, and skip + length limit
    localparam int D1_W = (HB_W-1+1) + (DEST_W-1+1) + 1 + 1 + (15+1) + (15+1) + (15+1) + (LEN_W-1+1);
    logic [HB_W-1:0] d1_in_hdr, d1_hdr;
    logic [DEST_W-1:0] d1_in_dest, d1_dest;
    logic d1_in_drop, d1_drop;
    logic d1_in_replay, d1_replay;
    logic [15:0] d1_in_hcap, d1_hcap;  // min(d_hdr_len, HDR_BYTES)
    logic [15:0] d1_in_max, d1_max;
    logic [15:0] d1_in_skip, d1_skip;
    logic [LEN_W-1:0] d1_in_sum, d1_sum;  // skip + max
    localparam int D1_PW = (D1_W + 7) / 8 * 8;
    /* verilator lint_off UNUSEDSIGNAL */ // the padding to whole bytes
    logic [D1_PW-1:0] d1_word;
    /* verilator lint_on UNUSEDSIGNAL */
    logic d1_valid, d1_ready;
    always_comb begin
        d1_in_hdr    = d_hdr_data;
        d1_in_dest   = d_dest;
        d1_in_drop   = d_drop;
        d1_in_replay = d_replay;
        d1_in_hcap   = d_hdr_len > 16'(HDR_BYTES) ? 16'(HDR_BYTES) : d_hdr_len;
        d1_in_max    = d_max_len;
        d1_in_skip   = d_skip_len;
        d1_in_sum    = LEN_W'(d_skip_len) + LEN_W'(d_max_len);
    end
    p4f_axis_register #(.DATA_W(D1_PW), .KEEP_W(1), .ID_W(1), .USER_W(1)) u_d1 (
        .clk, .rst,
        .s_axis_tdata(D1_PW'({d1_in_hdr, d1_in_dest, d1_in_drop, d1_in_replay, d1_in_hcap, d1_in_max, d1_in_skip, d1_in_sum})), .s_axis_tkeep(1'b1), .s_axis_tvalid(d_valid), .s_axis_tready(d_ready),
        .s_axis_tlast(1'b1), .s_axis_tid(1'b0), .s_axis_tuser(1'b0),
        .m_axis_tdata(d1_word), .m_axis_tkeep(), .m_axis_tvalid(d1_valid), .m_axis_tready(d1_ready),
        .m_axis_tlast(), .m_axis_tid(), .m_axis_tuser());
    assign {d1_hdr, d1_dest, d1_drop, d1_replay, d1_hcap, d1_max, d1_skip, d1_sum} = d1_word[D1_W-1:0];

    // ---- D2: what the cut leaves of the header and the payload, and where it falls
    localparam int D2_W = (HB_W-1+1) + (DEST_W-1+1) + 1 + (HL_W-1+1) + 1 + (LEN_W-1+1) + (LEN_W-1+1) + (LEN_W-1+1);
    logic [HB_W-1:0] d2_in_hdr, d2_hdr;
    logic [DEST_W-1:0] d2_in_dest, d2_dest;
    logic d2_in_replay, d2_replay;
    logic [HL_W-1:0] d2_in_hlen, d2_hlen;  // header bytes that go out
    logic d2_in_pay0, d2_pay0;  // no payload byte goes out: the output ends with the header
    logic [LEN_W-1:0] d2_in_pay, d2_pay;  // payload bytes the cut leaves room for
    logic [LEN_W-1:0] d2_in_skip, d2_skip;  // input bytes before the payload (2^16 for a drop: all of them)
    logic [LEN_W-1:0] d2_in_cut, d2_cut;  // input offset of the cut: skip + pay
    localparam int D2_PW = (D2_W + 7) / 8 * 8;
    /* verilator lint_off UNUSEDSIGNAL */ // the padding to whole bytes
    logic [D2_PW-1:0] d2_word;
    /* verilator lint_on UNUSEDSIGNAL */
    logic d2_valid, d2_ready;
    logic cut_in_hdr;
    always_comb begin
        cut_in_hdr    = d1_max <= d1_hcap;
        d2_in_hdr     = d1_hdr;
        d2_in_dest    = d1_dest;
        d2_in_replay  = d1_replay;
        d2_in_hlen    = d1_drop ? '0 : cut_in_hdr ? HL_W'(d1_max) : HL_W'(d1_hcap);
        d2_in_pay0    = d1_drop || cut_in_hdr;
        d2_in_pay     = (d1_drop || cut_in_hdr) ? '0 : LEN_W'(d1_max - d1_hcap);
        d2_in_skip    = d1_drop ? LEN_W'(17'h10000) : LEN_W'(d1_skip);
        d2_in_cut     = d1_drop ? '0 : cut_in_hdr ? LEN_W'(d1_skip) : d1_sum - LEN_W'(d1_hcap);
    end
    p4f_axis_register #(.DATA_W(D2_PW), .KEEP_W(1), .ID_W(1), .USER_W(1)) u_d2 (
        .clk, .rst,
        .s_axis_tdata(D2_PW'({d2_in_hdr, d2_in_dest, d2_in_replay, d2_in_hlen, d2_in_pay0, d2_in_pay, d2_in_skip, d2_in_cut})), .s_axis_tkeep(1'b1), .s_axis_tvalid(d1_valid), .s_axis_tready(d1_ready),
        .s_axis_tlast(1'b1), .s_axis_tid(1'b0), .s_axis_tuser(1'b0),
        .m_axis_tdata(d2_word), .m_axis_tkeep(), .m_axis_tvalid(d2_valid), .m_axis_tready(d2_ready),
        .m_axis_tlast(), .m_axis_tid(), .m_axis_tuser());
    assign {d2_hdr, d2_dest, d2_replay, d2_hlen, d2_pay0, d2_pay, d2_skip, d2_cut} = d2_word[D2_W-1:0];

    // ---- S1: each input beat's bytes that go out, moved down to byte 0
    localparam int REC_W = (DATA_W-1+1) + (W-1+1) + 1 + 1 + 1 + 1 + (HB_W-1+1) + (DEST_W-1+1) + 1 + (CH_W-1+1) + (N_W-1+1) + (N_W-1+1) + 1 + 1;
    logic [DATA_W-1:0] rec_in_data, r_data;  // the beat rotated right by the skip's low bits
    logic [W-1:0] rec_in_mask, r_mask;  // its bytes that go out: a thermometer from bit 0
    logic rec_in_cut, r_cut;  // the cut falls in this beat (ends the output if it has bytes)
    logic rec_in_more, r_more;  // the packet's next beat has bytes that go out
    logic rec_in_last, r_last;
    logic rec_in_first, r_first;
    logic [HB_W-1:0] rec_in_hdr, r_hdr;
    logic [DEST_W-1:0] rec_in_dest, r_dest;
    logic rec_in_pay0, r_pay0;
    logic [CH_W-1:0] rec_in_nch, r_nch;  // header chunks (beats)
    logic [N_W-1:0] rec_in_lasth, r_lasth;  // bytes of the last chunk
    logic [N_W-1:0] rec_in_h0, r_h0;  // bytes of the first chunk (0: no header)
    logic rec_in_fin0, r_fin0;  // the first chunk is the last
    logic rec_in_nch2, r_nch2;  // two chunks
    localparam int REC_PW = (REC_W + 7) / 8 * 8;
    /* verilator lint_off UNUSEDSIGNAL */ // the padding to whole bytes
    logic [REC_PW-1:0] r_word;
    /* verilator lint_on UNUSEDSIGNAL */
    logic r_in_valid, r_in_ready, r_valid, r_ready;

    logic             s1_first, cut_seen;
    logic [LEN_W-1:0] skip_reg, cut_reg;
    logic [LEN_W-1:0] cur_skip, cur_cut, er;
    logic [SH_W-1:0]  sh;
    logic             skip_big, cut_big, take_in;
    logic [W-1:0]     er_mask, fits, cut_mask;
    logic [HL_W:0]    hround;
    always_comb begin
        cur_skip = s1_first ? d2_skip : skip_reg;
        cur_cut  = s1_first ? d2_cut : cut_reg;
        skip_big = |cur_skip[LEN_W-1:SH_W];                // the skip goes past this beat
        cut_big  = |cur_cut[LEN_W-1:SH_W];
        sh       = cur_skip[SH_W-1:0];
        // Bytes from the skip to the cut, counted from the skip: pay while the skip is ahead
        // (cut - skip stays pay), the cut itself once the skip is behind.
        er       = cur_skip == '0 ? cur_cut : d2_pay;
        for (int b = 0; b < W; b++) begin
            er_mask[b]  = |er[LEN_W-1:SH_W] || er[SH_W-1:0] > SH_W'(b);
            fits[b]     = 32'(sh) < W - b;                 // byte b + sh is in this beat
            cut_mask[b] = cur_cut[SH_W-1:0] > SH_W'(b);    // bytes before the cut, when it is in this beat
        end
        rec_in_data  = rotr_bytes(s_axis_tdata, sh);
        rec_in_mask  = skip_big ? '0 : rotr_bits(s_axis_tkeep, sh) & er_mask & fits;
        // The cut is in this beat when every byte before it is: cut <= the beat's byte count.
        rec_in_cut   = (!cut_big && (cut_mask & ~s_axis_tkeep) == '0)
                       || (cur_cut[LEN_W-1:SH_W] == (LEN_W-SH_W)'(1) && cur_cut[SH_W-1:0] == '0 && s_axis_tkeep[W-1]);
        // The next beat starts at or after the skip and before the cut (and every beat has a byte).
        rec_in_more  = !s_axis_tlast
                       && !(|cur_skip[LEN_W-1:SH_W+1]) && !(cur_skip[SH_W] && |cur_skip[SH_W-1:0])
                       && (|cur_cut[LEN_W-1:SH_W+1] || (cur_cut[SH_W] && |cur_cut[SH_W-1:0]));
        rec_in_last  = s_axis_tlast;
        rec_in_first = s1_first;
        rec_in_hdr   = d2_hdr;
        rec_in_dest  = d2_dest;
        rec_in_pay0  = d2_pay0;
        hround       = (HL_W+1)'(d2_hlen) + (HL_W+1)'(W - 1);
        rec_in_nch   = CH_W'(hround >> SH_W);
        rec_in_lasth = d2_hlen == '0 ? '0 : d2_hlen[SH_W-1:0] == '0 ? N_W'(W) : N_W'(d2_hlen[SH_W-1:0]);
        rec_in_fin0  = rec_in_nch <= CH_W'(1);
        rec_in_h0    = rec_in_fin0 ? rec_in_lasth : N_W'(W);
        rec_in_nch2  = rec_in_nch == CH_W'(2);

        s_axis_tready = d2_valid && (cut_seen || r_in_ready);
        r_in_valid    = s_axis_tvalid && d2_valid && !cut_seen;
        take_in       = s_axis_tvalid && s_axis_tready;
        d2_ready      = take_in && s_axis_tlast;
    end
    assign s_axis_replay = d2_replay;

    always_ff @(posedge clk) begin
        if (rst) begin
            s1_first <= 1'b1;
            cut_seen <= 1'b0;
        end else if (take_in) begin
            s1_first <= s_axis_tlast;
            // After the beat that ends the output at the cut, the packet's other beats are dropped here.
            cut_seen <= !s_axis_tlast && (cut_seen || (rec_in_cut && rec_in_mask[0]));
        end
    end
    always_ff @(posedge clk) begin
        if (take_in) begin
            skip_reg <= skip_big ? cur_skip - LEN_W'(W) : '0;
            cut_reg  <= cut_big ? cur_cut - LEN_W'(W) : '0;
        end
    end

    p4f_axis_register #(.DATA_W(REC_PW), .KEEP_W(1), .ID_W(1), .USER_W(1)) u_rec (
        .clk, .rst,
        .s_axis_tdata(REC_PW'({rec_in_data, rec_in_mask, rec_in_cut, rec_in_more, rec_in_last, rec_in_first, rec_in_hdr, rec_in_dest, rec_in_pay0, rec_in_nch, rec_in_lasth, rec_in_h0, rec_in_fin0, rec_in_nch2})), .s_axis_tkeep(1'b1), .s_axis_tvalid(r_in_valid), .s_axis_tready(r_in_ready),
        .s_axis_tlast(1'b1), .s_axis_tid(1'b0), .s_axis_tuser(1'b0),
        .m_axis_tdata(r_word), .m_axis_tkeep(), .m_axis_tvalid(r_valid), .m_axis_tready(r_ready),
        .m_axis_tlast(), .m_axis_tid(), .m_axis_tuser());
    assign {r_data, r_mask, r_cut, r_more, r_last, r_first, r_hdr, r_dest, r_pay0, r_nch, r_lasth, r_h0, r_fin0, r_nch2} = r_word[REC_W-1:0];

    /* verilator lint_on PINCONNECTEMPTY */

    // ---- P: the packer, a ring of 4 beat slots
    logic [DATA_W-1:0] ring      [4];
    logic [W-1:0]      slot_keep [4];
    logic [DEST_W-1:0] slot_dest [4];
    logic [3:0]        slot_done, slot_last;   // complete (emittable); with tlast
    logic [2:0]        s0, rp;                 // slot of the next byte; slot of the next output (mod 8)
    logic [SH_W-1:0]   off;                    // offset of the next byte in slot s0
    logic              pend;                   // slot s0 - 1 is full, not yet complete
    logic              in_pkt, ended, pkt_bytes, pkt_pay0;
    logic [DEST_W-1:0] pkt_dest;
    logic              hdr_pend, hdr_fin;      // header chunks still to go in; the next is the last
    logic [CH_W-1:0]   hdr_left;
    logic [N_W-1:0]    hdr_lasth;
    logic [HDR_CHUNKS*DATA_W-1:0] hdr_rest;    // the chunks still to go in, the next one lowest

    logic o_valid, o_ready, o_last, emit;
    logic [DATA_W-1:0] o_data;
    logic [KEEP_W-1:0] o_keep;
    logic [DEST_W-1:0] o_dest;

    logic start, chunk, ch_final, ch_nz, pay0, p_nz, room_ok, rec_ok, need_room, go, chunk_go, take_rec;
    logic closes, end_now, wrote, has_bytes, more;
    logic [DATA_W-1:0] ch_data, pay_rot;
    logic [N_W-1:0]    ch_h, offB;
    /* verilator lint_off UNUSEDSIGNAL */ // bit SH_W (p == W) is read off the mask instead
    logic [N_W-1:0]    p;
    /* verilator lint_on UNUSEDSIGNAL */
    logic [SH_W-1:0]   e_lo;
    logic [W-1:0]      pay_msk, lowpart, hdr_msk, keep0, keep1, mask_sh;
    logic              e_geW, e_gtW, e_2W, e_zero;
    logic              comp_m1, comp_0, comp_1, last_m1, last_0, last_1, pend_n;
    logic [1:0]        s0_adv;
    logic [SH_W-1:0]   off_n;
    logic [DEST_W-1:0] cur_dest;
    logic [HDR_CHUNKS*DATA_W-1:0] r_hdr_pad;

    assign r_hdr_pad = (HDR_CHUNKS*DATA_W)'(r_hdr);

    always_comb begin
        start    = r_valid && r_first && !in_pkt;
        chunk    = start || hdr_pend;
        ch_data  = start ? r_hdr_pad[DATA_W-1:0] : hdr_rest[DATA_W-1:0];
        ch_h     = start ? r_h0 : hdr_fin ? hdr_lasth : N_W'(W);
        ch_final = start ? r_fin0 : hdr_fin;
        ch_nz    = !start || r_h0 != '0;   // a chunk after the first has bytes
        pay0     = start ? r_pay0 : pkt_pay0;
        cur_dest = start ? r_dest : pkt_dest;
        p_nz     = r_mask[0];
        p        = thermo_count(r_mask);
        room_ok  = 3'(s0 - rp) <= 3'd2;    // slots s0 and s0 + 1 are free to write
        // A record goes in alone, with the packet's last header chunk, or beside an earlier chunk
        // when it has no byte to add and does not end the packet.
        rec_ok    = r_valid && (in_pkt || start) && (!chunk || ch_final || (!p_nz && !r_last));
        need_room = (chunk && ch_nz) || (rec_ok && p_nz);
        go        = (chunk || rec_ok) && (!need_room || room_ok);
        chunk_go  = chunk && go;
        take_rec  = rec_ok && go;
        closes    = take_rec && (r_last || (r_cut && p_nz));
        end_now   = !ended && ((chunk_go && ch_final && pay0) || closes);
        wrote     = (chunk_go && ch_nz) || (take_rec && p_nz);
        has_bytes = pkt_bytes || wrote;
        // More bytes of the packet are certain: more header, or a next beat with bytes.
        more      = (chunk_go && !ch_final) || (take_rec && r_more);

        // Where this cycle's bytes go: a chunk at offset 0 (a packet starts at a slot boundary),
        // the record's payload after it (or after the bytes already in slot s0).
        offB    = chunk ? ch_h : N_W'(off);
        pay_rot = rotl_bytes(r_data, offB[SH_W-1:0]);
        pay_msk = take_rec ? rotl_bits(r_mask, offB[SH_W-1:0]) : '0;
        lowpart = ~thermo(offB);                      // bytes at or after offB: in slot s0
        hdr_msk = chunk_go ? thermo(ch_h) : '0;
        keep0   = thermo(offB) | (pay_msk & lowpart);  // bytes [0, end) when the end is in s0
        keep1   = pay_msk & ~lowpart;                 // bytes [0, end - W) when it is in s0 + 1
        // offB + (payload bytes) against W, W + 1 and 2W, read off the mask: p >= W - offB is
        // bit W - 1 - offB of the thermometer.
        mask_sh = r_mask >> 1;
        e_geW   = offB[SH_W] || (take_rec && r_mask[~offB[SH_W-1:0]]);
        e_gtW   = take_rec && (offB[SH_W] ? p_nz : mask_sh[~offB[SH_W-1:0]]);
        e_2W    = take_rec && offB[SH_W] && r_mask[W-1];
        e_zero  = offB == '0 && !(take_rec && p_nz);
        e_lo    = offB[SH_W-1:0] + (take_rec ? p[SH_W-1:0] : '0);

        comp_m1 = 1'b0; comp_0 = 1'b0; comp_1 = 1'b0;
        last_m1 = 1'b0; last_0 = 1'b0; last_1 = 1'b0;
        s0_adv  = 2'd0; off_n = off; pend_n = pend;
        if (end_now) begin
            if (has_bytes) begin
                comp_m1 = pend;
                if (e_zero)      last_m1 = 1'b1;                       // ends in the waiting slot
                else if (!e_gtW) begin comp_0 = 1'b1; last_0 = 1'b1; end
                else             begin comp_0 = 1'b1; comp_1 = 1'b1; last_1 = 1'b1; end
                s0_adv = e_zero ? 2'd0 : e_gtW ? 2'd2 : 2'd1;
            end
            off_n  = '0;
            pend_n = 1'b0;
        end else if (wrote) begin
            comp_m1 = pend;
            if (!e_geW)      begin off_n = e_lo; pend_n = 1'b0; end
            else if (!e_gtW) begin comp_0 = more; s0_adv = 2'd1; off_n = '0; pend_n = !more; end
            else if (!e_2W)  begin comp_0 = 1'b1; s0_adv = 2'd1; off_n = e_lo; pend_n = 1'b0; end
            else             begin comp_0 = 1'b1; comp_1 = more; s0_adv = 2'd2; off_n = '0; pend_n = !more; end
        end

        o_valid = slot_done[rp[1:0]];
        o_last  = slot_last[rp[1:0]];
        o_keep  = slot_keep[rp[1:0]];
        o_dest  = slot_dest[rp[1:0]];
        for (int b = 0; b < W; b++) o_data[b*8 +: 8] = o_keep[b] ? ring[rp[1:0]][b*8 +: 8] : 8'h00;
        emit    = o_valid && o_ready;
        r_ready = take_rec;
    end

    // Ring bytes and slot bookkeeping.
    for (genvar i = 0; i < 4; i++) begin : g_slot
        wire logic at_m1 = 2'(s0[1:0] - 2'd1) == 2'(i);
        wire logic at_0  = s0[1:0] == 2'(i);
        wire logic at_1  = 2'(s0[1:0] + 2'd1) == 2'(i);
        always_ff @(posedge clk) begin
            for (int b = 0; b < W; b++) begin
                if (hdr_msk[b] && at_0)                             ring[i][b*8 +: 8] <= ch_data[b*8 +: 8];
                else if (pay_msk[b] && (lowpart[b] ? at_0 : at_1))  ring[i][b*8 +: 8] <= pay_rot[b*8 +: 8];
            end
            if ((comp_m1 && at_m1) || (comp_0 && at_0) || (comp_1 && at_1)) begin
                slot_last[i] <= (last_m1 && at_m1) || (last_0 && at_0) || (last_1 && at_1);
                slot_keep[i] <= (last_0 && at_0) ? keep0 : (last_1 && at_1) ? keep1 : '1;
                slot_dest[i] <= cur_dest;
            end
        end
        always_ff @(posedge clk) begin
            if (rst) slot_done[i] <= 1'b0;
            else if ((comp_m1 && at_m1) || (comp_0 && at_0) || (comp_1 && at_1)) slot_done[i] <= 1'b1;
            else if (emit && rp[1:0] == 2'(i)) slot_done[i] <= 1'b0;
        end
    end

    always_ff @(posedge clk) begin
        if (rst) begin
            s0        <= '0;
            rp        <= '0;
            off       <= '0;
            pend      <= 1'b0;
            in_pkt    <= 1'b0;
            ended     <= 1'b0;
            pkt_bytes <= 1'b0;
            hdr_pend  <= 1'b0;
            hdr_fin   <= 1'b0;
        end else begin
            s0        <= s0 + 3'(s0_adv);
            off       <= off_n;
            pend      <= pend_n;
            if (emit) rp <= rp + 3'd1;
            in_pkt    <= (in_pkt || (start && chunk_go)) && !closes;
            ended     <= (ended || end_now) && !closes;
            pkt_bytes <= (pkt_bytes || wrote) && !closes;
            if (chunk_go) begin
                hdr_pend <= !ch_final;
                hdr_fin  <= start ? r_nch2 : hdr_left == CH_W'(2);
            end
        end
    end
    always_ff @(posedge clk) begin
        if (start && chunk_go) begin
            pkt_dest  <= r_dest;
            pkt_pay0  <= r_pay0;
            hdr_lasth <= r_lasth;
        end
        if (chunk_go) hdr_left <= (start ? r_nch : hdr_left) - CH_W'(1);
    end
    if (HDR_CHUNKS > 1) begin : g_hdr_rest
        always_ff @(posedge clk) begin
            if (chunk_go) hdr_rest <= (start ? r_hdr_pad : hdr_rest) >> DATA_W;
        end
    end else begin : g_no_hdr_rest
        assign hdr_rest = '0;   // a header is one chunk: nothing follows the first
    end

    // ---- output
    if (OUT_REG) begin : g_out_reg
        /* verilator lint_off UNUSEDSIGNAL */
        logic unused_tuser;
        /* verilator lint_on UNUSEDSIGNAL */
        p4f_axis_register #(.DATA_W(DATA_W), .KEEP_W(KEEP_W), .ID_W(DEST_W), .USER_W(1)) u_out_reg (
            .clk(clk), .rst(rst),
            .s_axis_tdata(o_data), .s_axis_tkeep(o_keep), .s_axis_tvalid(o_valid),
            .s_axis_tready(o_ready), .s_axis_tlast(o_last), .s_axis_tid(o_dest), .s_axis_tuser(1'b0),
            .m_axis_tdata, .m_axis_tkeep, .m_axis_tvalid, .m_axis_tready, .m_axis_tlast,
            .m_axis_tid(m_axis_tdest), .m_axis_tuser(unused_tuser));
    end else begin : g_no_out_reg
        assign m_axis_tdata  = o_data;
        assign m_axis_tkeep  = o_keep;
        assign m_axis_tvalid = o_valid;
        assign m_axis_tlast  = o_last;
        assign m_axis_tdest  = o_dest;
        assign o_ready       = m_axis_tready;
    end

endmodule

`default_nettype wire

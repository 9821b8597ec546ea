// p4f_pkt_split: the parser's front end. Passes the packet stream through unchanged on m_axis_*
// (the payload path, into the payload FIFO) and makes one window descriptor per packet: the
// packet's first WIN_BYTES bytes as one vector, for the parser to look at all at once.
//
// Byte order: AXI4-Stream, byte 0 of a beat is tdata[7:0]; byte i of win_data is
// win_data[i*8 +: 8], byte 0 first on the wire. tkeep must be contiguous from bit 0 (all ones
// except possibly on a packet's last beat).
//
// The descriptor (win_valid/win_ready):
//   win_data     the first WIN_BYTES bytes of the packet; zero beyond the packet's end
//   win_len      valid bytes in win_data: min(packet length, WIN_BYTES)
//   win_user     tuser of the packet's first beat
//   win_pkt_len  the packet's length when the completing beat (below) is its last, which it
//                always is with WAIT_FOR_LAST = 1; otherwise (the window filled before the
//                packet's end) 65535, "not known yet": cut-through users must not need it.
//                Lengths above 65535 read 65535 too.
// It is offered one cycle after the beat that completes it: the beat that brings the
// WIN_BYTES-th byte or the packet's last beat, whichever comes first (WAIT_FOR_LAST = 0), or
// always the last beat (WAIT_FOR_LAST = 1).
//
// Coupling: a beat is taken only when the payload path can take it and, if the beat completes
// a descriptor, the descriptor's two-entry output buffer has room. So a descriptor the parser
// does not take stalls the input at the next packet's completing beat, not before: the rest of
// the packet (WAIT_FOR_LAST = 0) and the next packet's beats up to its completing beat still go
// to the payload path. s_axis_tready depends on registers and, through "does this beat complete
// the window", on s_axis_tlast (a whole beat completes it from the beat count alone); never on
// win_ready, and on m_axis_tready only when PAYLOAD_REG = 0. The lengths need no adder either:
// the bytes before a beat are a multiple of the beat, so the total is a register (+ W) or that
// register with the beat's byte count in its low bits.
//
// Throughput: one beat per cycle on both outputs; back-to-back single-beat packets give one
// descriptor per cycle. Latency: descriptor 1 cycle after its completing beat; payload 1 cycle
// (PAYLOAD_REG = 1, through p4f_axis_register) or 0 (PAYLOAD_REG = 0, combinational).
// Cost: the window accumulator and two descriptor registers, 3 * (WIN_BYTES*8 + 33 + USER_W)
// flops, and the payload register slice.
`default_nettype none

module p4f_pkt_split #(
    parameter int DATA_W        = 512,              // tdata width in bits, a multiple of 8
    parameter int KEEP_W        = (DATA_W + 7) / 8, // tkeep width: one bit per byte
    parameter int USER_W        = 16,               // tuser width in bits (at least 1)
    parameter int WIN_BYTES     = 64,               // bytes in the window descriptor, at least 1
    parameter bit WAIT_FOR_LAST = 1'b0,             // 1: offer the descriptor only at the packet's last beat
    parameter bit PAYLOAD_REG   = 1'b1              // 1: payload through a register slice; 0: combinational
) (
    input  wire logic                   clk,
    input  wire logic                   rst,

    input  wire logic [DATA_W-1:0]      s_axis_tdata,
    input  wire logic [KEEP_W-1:0]      s_axis_tkeep,
    input  wire logic                   s_axis_tvalid,
    output logic                        s_axis_tready,
    input  wire logic                   s_axis_tlast,
    input  wire logic [USER_W-1:0]      s_axis_tuser,

    output logic      [DATA_W-1:0]      m_axis_tdata,
    output logic      [KEEP_W-1:0]      m_axis_tkeep,
    output logic                        m_axis_tvalid,
    input  wire logic                   m_axis_tready,
    output logic                        m_axis_tlast,
    output logic      [USER_W-1:0]      m_axis_tuser,

    output logic                        win_valid,
    input  wire logic                   win_ready,
    output logic      [WIN_BYTES*8-1:0] win_data,
    output logic      [15:0]            win_len,
    output logic      [USER_W-1:0]      win_user,
    output logic      [15:0]            win_pkt_len
);
    localparam int W         = KEEP_W;                      // bytes per beat
    localparam int WIN_BEATS = (WIN_BYTES + W - 1) / W;     // beats that touch the window
    localparam int IDX_W     = $clog2(WIN_BEATS + 1);       // 0..WIN_BEATS
    localparam int DESC_W    = WIN_BYTES * 8 + 16 + USER_W + 16;
    localparam int SH_W      = $clog2(W);                   // a byte position within a beat
    localparam int CNT_W     = 17;                          // bytes taken, saturating at 2^16

    // The count of a contiguous tkeep, one balanced OR per count bit (no priority chain).
    function automatic logic [SH_W:0] keep_count(input logic [W-1:0] k);
        logic [W:1] top; // top[j]: exactly bits 0 .. j-1 set
        for (int j = 1; j < W; j++) top[j] = k[j-1] & ~k[j];
        top[W] = k[W-1];
        for (int b = 0; b <= SH_W; b++) begin
            keep_count[b] = 1'b0;
            for (int j = 1; j <= W; j++) if (((j >> b) & 1) != 0) keep_count[b] = keep_count[b] | top[j];
        end
    endfunction

    // ---- where the current packet has got to
    logic [IDX_W-1:0]       beat_idx_reg;  // beats taken, saturating at WIN_BEATS
    /* verilator lint_off UNUSEDSIGNAL */ // its low SH_W bits are zero: whole beats
    logic [CNT_W-1:0]       off_reg;       // bytes taken (whole beats), saturating at 2^16
    /* verilator lint_on UNUSEDSIGNAL */
    logic [CNT_W-1:0]       off_w_reg;     // off_reg + W, saturating likewise
    logic                   win_in_reg;    // beat_idx_reg >= WIN_BEATS - 1: a whole beat now fills the window
    logic                   sent_reg;      // this packet's descriptor is made (WAIT_FOR_LAST = 0)
    logic [USER_W-1:0]      user_reg;      // tuser of the first beat
    logic [WIN_BYTES*8-1:0] acc_reg;       // window bytes of the beats taken so far

    // ---- the descriptor output: a two-entry skid buffer, like p4f_axis_register
    logic              dout_valid_reg, dskid_valid_reg;
    logic [DESC_W-1:0] dout_reg, dskid_reg;

    logic              pay_ready, completes, take;
    logic [DESC_W-1:0] desc;
    logic [WIN_BYTES*8-1:0] merged;
    logic [SH_W:0]     nbytes;
    logic [CNT_W-1:0]  total;
    logic [15:0]       total16;

    always_comb begin
        // Every beat but a packet's last is whole, so the bytes before this beat are a multiple of
        // W and the total needs no adder: off + W, or off with this beat's count in its low bits.
        nbytes  = keep_count(s_axis_tkeep);
        total   = nbytes[SH_W] ? off_w_reg : {off_reg[CNT_W-1:SH_W], nbytes[SH_W-1:0]};
        total16 = total[CNT_W-1] ? 16'hFFFF : total[15:0];
        // Window byte i comes from beat i / W: this beat's byte, an earlier beat's (kept in
        // acc_reg) or nothing yet (zero).
        for (int i = 0; i < WIN_BYTES; i++) begin
            if (i / W == int'(beat_idx_reg))
                merged[i*8 +: 8] = s_axis_tkeep[i % W] ? s_axis_tdata[(i % W)*8 +: 8] : 8'h00;
            else if (i / W < int'(beat_idx_reg))
                merged[i*8 +: 8] = acc_reg[i*8 +: 8];
            else
                merged[i*8 +: 8] = 8'h00;
        end
        if (WAIT_FOR_LAST) completes = s_axis_tlast;
        else               completes = !sent_reg && (s_axis_tlast || win_in_reg);
        desc = {s_axis_tlast ? total16 : 16'hFFFF,
                beat_idx_reg == '0 ? s_axis_tuser : user_reg,
                total < CNT_W'(WIN_BYTES) ? total16 : 16'(WIN_BYTES),
                merged};
        s_axis_tready = pay_ready && (!completes || !dskid_valid_reg);
        take = s_axis_tvalid && s_axis_tready;
    end

    always_ff @(posedge clk) begin
        if (take) begin
            acc_reg <= merged;
            if (beat_idx_reg == '0) user_reg <= s_axis_tuser;
        end
    end

    always_ff @(posedge clk) begin
        if (rst) begin
            beat_idx_reg <= '0;
            off_reg      <= '0;
            off_w_reg    <= CNT_W'(W);
            win_in_reg   <= WIN_BEATS <= 1;
            sent_reg     <= 1'b0;
        end else if (take) begin
            if (s_axis_tlast) begin
                beat_idx_reg <= '0;
                off_reg      <= '0;
                off_w_reg    <= CNT_W'(W);
                win_in_reg   <= WIN_BEATS <= 1;
                sent_reg     <= 1'b0;
            end else begin
                if (int'(beat_idx_reg) < WIN_BEATS) beat_idx_reg <= beat_idx_reg + 1'b1;
                win_in_reg <= int'(beat_idx_reg) + 2 >= WIN_BEATS;
                off_reg    <= off_w_reg;
                off_w_reg  <= off_w_reg[CNT_W-1] ? off_w_reg : off_w_reg + CNT_W'(W);
                if (completes) sent_reg <= 1'b1;
            end
        end
    end

    // Descriptor skid buffer: ready for a new descriptor while the skid entry is empty.
    wire logic desc_in  = take && completes;
    wire logic dout_free = !dout_valid_reg || win_ready;
    always_ff @(posedge clk) begin
        if (dout_free) begin
            if (dskid_valid_reg) dout_reg <= dskid_reg;
            else if (desc_in)    dout_reg <= desc;
        end else if (desc_in) begin
            dskid_reg <= desc;
        end
    end
    always_ff @(posedge clk) begin
        if (rst) begin
            dout_valid_reg  <= 1'b0;
            dskid_valid_reg <= 1'b0;
        end else if (dout_free) begin
            dout_valid_reg  <= dskid_valid_reg || desc_in;
            dskid_valid_reg <= 1'b0;
        end else if (desc_in) begin
            dskid_valid_reg <= 1'b1;
        end
    end
    assign win_valid = dout_valid_reg;
    assign {win_pkt_len, win_user, win_len, win_data} = dout_reg;

    // ---- payload path
    wire logic pay_valid = s_axis_tvalid && (!completes || !dskid_valid_reg);
    if (PAYLOAD_REG) begin : g_payload_reg
        /* verilator lint_off UNUSEDSIGNAL */
        logic unused_tid;
        /* verilator lint_on UNUSEDSIGNAL */
        p4f_axis_register #(.DATA_W(DATA_W), .KEEP_W(KEEP_W), .ID_W(1), .USER_W(USER_W)) u_payload_reg (
            .clk(clk), .rst(rst),
            .s_axis_tdata, .s_axis_tkeep, .s_axis_tvalid(pay_valid), .s_axis_tready(pay_ready),
            .s_axis_tlast, .s_axis_tid(1'b0), .s_axis_tuser,
            .m_axis_tdata, .m_axis_tkeep, .m_axis_tvalid, .m_axis_tready, .m_axis_tlast,
            .m_axis_tid(unused_tid), .m_axis_tuser);
    end else begin : g_payload_direct
        assign m_axis_tdata  = s_axis_tdata;
        assign m_axis_tkeep  = s_axis_tkeep;
        assign m_axis_tvalid = pay_valid;
        assign m_axis_tlast  = s_axis_tlast;
        assign m_axis_tuser  = s_axis_tuser;
        assign pay_ready     = m_axis_tready;
    end

endmodule

`default_nettype wire

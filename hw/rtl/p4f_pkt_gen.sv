// p4f_pkt_gen: packet generator. Plays packets held in a template RAM on m_axis, in order and
// cyclically, for a requested number of packets or until stopped; for traffic tests on the board
// (line-rate load, loss measurement) without a host in the data path.
//
// Templates: beats 0 .. tpl_end of the RAM, one or more packets back to back, each beat
// {tlast, tuser, tkeep, tdata}, written one beat per cycle through the tpl_we port (a plain
// write port rather than p4f_axil_regs words: a beat is wider than a register, and whatever
// bridges the control bus to it also decides how beats are packed into words). After beat tpl_end
// playing starts over at beat 0, and beat tpl_end always leaves with tlast set, so a forgotten
// tlast can never run a packet into the next round. tkeep is passed through, not consulted.
// Rewriting beats that a run is playing is allowed, but a beat read at the same time may leave
// old or new; write templates while busy is low.
//
// Control: a start pulse while busy is low samples count, gap, period, tpl_end, seq_en and
// seq_offset for the whole run (start while busy is ignored) and clears pkts_sent and beats_sent.
//   count  packets to send, 0 = until stopped.
//   stop   a pulse: no packet starts from this cycle on; the packets already started finish
//          (never a truncated packet), then busy falls. Ignored in the cycle of a start.
//   gap    idle cycles on m_axis (tvalid low) after each packet's last beat is taken before the
//          next packet's first beat shows: exactly gap while packets follow, whatever tready
//          does, as the next beat already waits in the pipeline. 0 = back to back, full line
//          rate. The gap after a run's last packet also delays the first packet of the next run.
//   period cycles from one packet's start (its first beat shown on m_axis) to the next one's, in
//          fixed point with PER_FRAC fractional bits; 0 = no pacing (gap alone). A link whose
//          wire time is not a whole number of cycles per packet (a 64-byte frame and its 20
//          bytes of preamble and gap at 10 Gb/s: 10.5 cycles of 156.25 MHz) is paced exactly:
//          packet k of the run starts in cycle ceil(k * period) after the first one's, so the
//          average rate is exact and no start is more than a cycle off its ideal time. A start
//          delayed by backpressure (or by gap, which still applies) is made up by the following
//          starts, at most one period's worth, so a late generator catches up but does not burst.
//   seq_en, seq_offset  stamp each packet's sequence number (0 for the run's first packet, +1 per
//          packet, SEQ_W bits wrapping) big-endian at byte offset seq_offset of the packet (byte 0 =
//          tdata[7:0] of its first beat; the number may straddle beats). Bytes past the packet's last
//          beat are not written (the packet is not lengthened); tkeep is not consulted. A
//          receiver's gaps in the numbers are the packets lost.
// Status: busy (a run is reading templates or beats are still in flight), pkts_sent and
// beats_sent (handshakes on m_axis since the last start).
//
// Timing: the first beat is on m_axis two cycles after start (RAM read, then the output
// register). One beat per cycle while m_axis_tready is high, no bubble inside a packet ever, and
// none between packets when gap is 0. Three stages: read address, the RAM's own output register
// (stage 1, so the RAM maps to block RAM), and the output register where the sequence number is
// merged in (every m_axis output is a flop). Stage 1 and the output register each take a new beat
// when they are empty or being emptied, so the stall path is m_axis_tready to both load enables
// and the RAM's read enable, as in p4f_axis_fifo.
`default_nettype none

module p4f_pkt_gen #(
    parameter int DATA_W = 64,               // tdata width in bits, a multiple of 8
    parameter int KEEP_W = (DATA_W + 7) / 8, // tkeep width: one bit per byte
    parameter int USER_W = 1,                // tuser width in bits (at least 1)
    parameter int DEPTH  = 512,              // template RAM beats; a power of two >= 2
    parameter int ADDR_W = $clog2(DEPTH),    // template address width
    parameter int CNT_W  = 32,               // width of count, pkts_sent and beats_sent
    parameter int GAP_W  = 16,               // width of gap (idle cycles between packets)
    parameter int SEQ_W  = 32,               // sequence number width, a multiple of 8
    parameter int OFF_W  = 16,               // seq_offset width: byte offsets up to 2^OFF_W-1
    parameter int PER_W  = 24,               // width of period
    parameter int PER_FRAC = 8               // fractional bits of period
) (
    input  wire logic              clk,
    input  wire logic              rst,

    // Template write port: beat tpl_addr := {tpl_last, tpl_user, tpl_keep, tpl_data}.
    input  wire logic              tpl_we,
    input  wire logic [ADDR_W-1:0] tpl_addr,
    input  wire logic [DATA_W-1:0] tpl_data,
    input  wire logic [KEEP_W-1:0] tpl_keep,
    input  wire logic              tpl_last,
    input  wire logic [USER_W-1:0] tpl_user,

    // Run control: sampled with start while busy is low.
    input  wire logic              start,
    input  wire logic              stop,
    input  wire logic [CNT_W-1:0]  count,      // packets; 0 = until stopped
    input  wire logic [GAP_W-1:0]  gap,        // idle cycles between packets
    input  wire logic [PER_W-1:0]  period,     // cycles between packet starts (fixed point); 0 = off
    input  wire logic [ADDR_W-1:0] tpl_end,    // the templates' last beat
    input  wire logic              seq_en,
    input  wire logic [OFF_W-1:0]  seq_offset, // byte offset of the sequence number

    output logic      [DATA_W-1:0] m_axis_tdata,
    output logic      [KEEP_W-1:0] m_axis_tkeep,
    output logic                   m_axis_tvalid,
    input  wire logic              m_axis_tready,
    output logic                   m_axis_tlast,
    output logic      [USER_W-1:0] m_axis_tuser,

    output logic                   busy,
    output logic      [CNT_W-1:0]  pkts_sent,
    output logic      [CNT_W-1:0]  beats_sent
);
    localparam int WORD_W    = DATA_W + KEEP_W + USER_W + 1;
    localparam int SEQ_BYTES = SEQ_W / 8;
    // Byte position in the packet of the beat being loaded into the output register. It stops
    // counting once its top bit is set (at 2^(OFF_W+1) bytes or more, past any stamp), so a long
    // packet never wraps it back onto the stamp's bytes.
    localparam int POS_W     = OFF_W + 2;
    localparam int REL_W     = POS_W + 1;

    if (DEPTH < 2 || (1 << ADDR_W) != DEPTH) begin : g_bad_depth
        $error("p4f_pkt_gen: DEPTH must be a power of two >= 2");
    end
    if (SEQ_W < 8 || SEQ_W % 8 != 0 || (1 << OFF_W) < SEQ_BYTES || KEEP_W >= (1 << (OFF_W + 1))) begin : g_bad_seq
        $error("p4f_pkt_gen: SEQ_W must be a multiple of 8 with 2^OFF_W >= SEQ_W/8 and KEEP_W < 2^(OFF_W+1)");
    end

    logic [WORD_W-1:0] mem [DEPTH];

    always_ff @(posedge clk) begin
        if (tpl_we) mem[tpl_addr] <= {tpl_last, tpl_user, tpl_keep, tpl_data};
    end

    // ---- the run's settings
    logic [ADDR_W-1:0] end_reg;
    logic [GAP_W-1:0]  gap_reg;
    logic              seq_en_reg;
    logic [OFF_W-1:0]  off_reg;
    logic [PER_W-1:0]  period_reg;

    // ---- read side: which beat to read next
    logic              running_reg;  // the run may still read beats
    logic              forever_reg;  // count was 0
    logic [CNT_W-1:0]  left_reg;     // packets still to start (when !forever_reg)
    logic              stop_reg;     // stop seen: start no more packets
    logic              read_any_reg; // a beat was read in this run (stage 1's word is this run's)
    logic [ADDR_W-1:0] rd_addr_reg;

    // ---- stage 1: the RAM's output register, holding the last beat read
    logic [WORD_W-1:0] s1_word_reg;
    logic              s1_wrap_reg;  // it was beat tpl_end: a packet ends there whatever its tlast
    logic              s1_valid_reg; // and it is still to be loaded into the output register

    // ---- output register
    logic [WORD_W-1:0] out_word_reg;
    logic              out_valid_reg;
    logic [GAP_W-1:0]  gap_cnt_reg;  // idle cycles still owed, this one included
    logic [POS_W-1:0]  pos_reg;      // byte position of stage 1's beat in its packet
    logic [SEQ_W-1:0]  seq_reg;      // sequence number of stage 1's beat's packet
    // Pacing: the next packet's ideal start time less the current cycle, in fixed point. A packet
    // may start (its first beat load the output register) when it is not above 0; it grows by
    // period at each start and falls by 1.0 every cycle, down to -period (the backlog made up);
    // before the run's first start it stays at 0 (the first packet is on time by definition).
    localparam int DUE_W = PER_W + 2;
    logic signed [DUE_W-1:0] due_reg;
    logic                    paced_reg;  // a packet of this run has started
    // The run's constants for the update, so that each candidate is one carry chain from
    // registers: period - 1.0 (added at a start), -period (the floor) and 1.0 - period (the
    // floor plus 1.0, compared with due_reg instead of due_reg - 1.0 with the floor).
    logic signed [DUE_W-1:0] per_m1_reg, neg_per_reg, floor_p1_reg;

    wire logic s1_last = s1_word_reg[WORD_W-1] || s1_wrap_reg;

    // Output side first: the read side's enable depends on stage 1 being emptied.
    wire logic out_take = out_valid_reg && m_axis_tready;
    wire logic out_free = !out_valid_reg || m_axis_tready;
    // The gap starts at the last beat's handshake: at that edge nothing may load unless gap is 0;
    // then one idle cycle per count, the load happening at the end of the last one.
    wire logic gap_hold = (out_take && out_word_reg[WORD_W-1]) ? gap_reg != '0 : gap_cnt_reg > GAP_W'(1);
    wire logic s1_first = pos_reg == '0;  // stage 1's beat starts a packet
    wire logic pace_hold = period_reg != '0 && s1_first && due_reg > 0;
    wire logic load_out = s1_valid_reg && out_free && !gap_hold && !pace_hold;
    localparam logic signed [DUE_W-1:0] ONE = DUE_W'(1) <<< PER_FRAC;
    wire logic signed [DUE_W-1:0] due_floor = paced_reg ? neg_per_reg : '0;
    wire logic signed [DUE_W-1:0] due_less  = due_reg - ONE;
    wire logic signed [DUE_W-1:0] due_start = due_reg + per_m1_reg;
    wire logic                    due_above = due_reg >= (paced_reg ? floor_p1_reg : ONE);  // due_less >= due_floor

    // Read side. Stage 1 always holds the last beat read, so whether that beat closed a packet
    // (the next read starts one) is known from its register, not from a copy of the RAM.
    wire logic in_pkt    = read_any_reg && !s1_last;
    wire logic may_start = !stop_reg && !stop && (forever_reg || left_reg != '0);
    wire logic do_read   = running_reg && (in_pkt || may_start) && (!s1_valid_reg || load_out);
    wire logic do_start  = start && !busy;

    always_ff @(posedge clk) begin
        if (do_read) begin
            s1_word_reg <= mem[rd_addr_reg];
            s1_wrap_reg <= rd_addr_reg == end_reg;
        end
    end

    always_ff @(posedge clk) begin
        if (rst) begin
            running_reg  <= 1'b0;
            forever_reg  <= 1'b0;
            left_reg     <= '0;
            stop_reg     <= 1'b0;
            read_any_reg <= 1'b0;
            rd_addr_reg  <= '0;
            end_reg      <= '0;
            gap_reg      <= '0;
            seq_en_reg   <= 1'b0;
            off_reg      <= '0;
            period_reg   <= '0;
            s1_valid_reg <= 1'b0;
        end else begin
            if (do_start) begin
                running_reg  <= 1'b1;
                forever_reg  <= count == '0;
                left_reg     <= count;
                stop_reg     <= 1'b0;
                read_any_reg <= 1'b0;
                rd_addr_reg  <= '0;
                end_reg      <= tpl_end;
                gap_reg      <= gap;
                seq_en_reg   <= seq_en;
                off_reg      <= seq_offset;
                period_reg   <= period;
            end else begin
                if (stop) stop_reg <= 1'b1;
                // At a packet boundary with nothing more to start, the run is over.
                if (running_reg && !in_pkt && !may_start) running_reg <= 1'b0;
                if (do_read) begin
                    read_any_reg <= 1'b1;
                    rd_addr_reg  <= rd_addr_reg == end_reg ? '0 : rd_addr_reg + 1'b1;
                    if (!in_pkt && !forever_reg) left_reg <= left_reg - 1'b1;
                end
            end
            if (do_read)       s1_valid_reg <= 1'b1;
            else if (load_out) s1_valid_reg <= 1'b0;
        end
    end

    // Stage 1's beat with the sequence number merged in: byte j is packet byte pos+j, which takes
    // number byte (pos+j-offset) when that is 0 .. SEQ_BYTES-1 (big-endian).
    logic [DATA_W-1:0] stamped;
    always_comb begin
        stamped = s1_word_reg[DATA_W-1:0];
        for (int j = 0; j < KEEP_W; j++) begin
            logic [REL_W-1:0] rel;
            rel = REL_W'(pos_reg) + REL_W'(j) - REL_W'(off_reg);
            for (int b = 0; b < SEQ_BYTES; b++) begin
                if (seq_en_reg && rel == REL_W'(b)) stamped[j*8 +: 8] = seq_reg[(SEQ_BYTES - 1 - b)*8 +: 8];
            end
        end
    end

    always_ff @(posedge clk) begin
        if (load_out) out_word_reg <= {s1_last, s1_word_reg[WORD_W-2:DATA_W], stamped};
    end

    always_ff @(posedge clk) begin
        if (rst) begin
            out_valid_reg <= 1'b0;
            gap_cnt_reg   <= '0;
            pos_reg       <= '0;
            seq_reg       <= '0;
            due_reg       <= '0;
            paced_reg     <= 1'b0;
            per_m1_reg    <= '0;
            neg_per_reg   <= '0;
            floor_p1_reg  <= '0;
            pkts_sent     <= '0;
            beats_sent    <= '0;
        end else begin
            if (load_out)      out_valid_reg <= 1'b1;
            else if (out_take) out_valid_reg <= 1'b0;
            if (out_take && out_word_reg[WORD_W-1]) gap_cnt_reg <= gap_reg;
            else if (gap_cnt_reg != '0)             gap_cnt_reg <= gap_cnt_reg - 1'b1;
            if (do_start) begin
                // Stage 1 and the output register are empty here (busy was low).
                pos_reg    <= '0;
                seq_reg    <= '0;
                due_reg    <= '0;  // the run's first packet starts as soon as it is read
                paced_reg  <= 1'b0;
                per_m1_reg   <= $signed({2'b00, period}) - ONE;
                neg_per_reg  <= -$signed({2'b00, period});
                floor_p1_reg <= ONE - $signed({2'b00, period});
                pkts_sent  <= '0;
                beats_sent <= '0;
            end else begin
                if (load_out) begin
                    if (s1_last) begin
                        pos_reg <= '0;
                        seq_reg <= seq_reg + 1'b1;
                    end else if (!pos_reg[POS_W-1]) begin
                        pos_reg <= pos_reg + POS_W'(KEEP_W);
                    end
                end
                if (load_out && s1_first)   paced_reg <= 1'b1;
                if (load_out && s1_first) due_reg <= due_start;
                else if (due_above)       due_reg <= due_less;
                else                      due_reg <= due_floor;
                if (out_take) begin
                    beats_sent <= beats_sent + 1'b1;
                    if (out_word_reg[WORD_W-1]) pkts_sent <= pkts_sent + 1'b1;
                end
            end
        end
    end

    assign busy = running_reg || s1_valid_reg || out_valid_reg;
    assign m_axis_tvalid = out_valid_reg;
    assign {m_axis_tlast, m_axis_tuser, m_axis_tkeep, m_axis_tdata} = out_word_reg;

endmodule

`default_nettype wire

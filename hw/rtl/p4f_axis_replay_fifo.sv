// p4f_axis_replay_fifo: synchronous AXI4-Stream FIFO that can present a packet again (a traffic
// manager's multicast: one packet's payload read once per copy).
//
// Beats are stored as they come, as in p4f_axis_fifo. m_axis_replay is sampled in the cycle a
// packet's last beat is taken (m_axis_tvalid && m_axis_tready && m_axis_tlast), and only then:
// 1 presents the same packet again from its first beat (every beat identical: tdata, tkeep,
// tuser, tlast); 0 releases it, so its RAM space is freed and the next packet follows. A mark
// pointer holds the first beat of the oldest unreleased packet (the one being presented), and the
// RAM counts as full from the mark, not from the read pointer: a packet's beats stay stored until
// it is released.
//
// Timing: a beat accepted at clock edge t is presented on m_axis at edge t+2 (one cycle in the
// RAM, one in the output register). One beat per cycle in and out when neither full nor empty.
// A replay costs no bubble: at the last-beat handshake with m_axis_replay high, the RAM read
// of that same cycle comes from the mark, so the copy's first beat is on m_axis in the next
// cycle (the read pointer becomes mark + 1). A release frees the packet's space at that edge:
// s_axis_tready can rise in the next cycle. At one beat per cycle without replays the input is
// never refused if a packet plus two beats fit (DEPTH >= longest packet + 2): while a packet's
// last beat is in the output register, the next beat is stored and another is being written, and
// the packet's space comes back only when that last beat is taken. Longer packets (up to DEPTH)
// pause the input near their end and can leave a gap on the output after them. Replays take
// the output's time, so the input then waits.
// Capacity is DEPTH beats in the RAM; the output register holds a copy of a stored beat, not an
// extra one (unlike p4f_axis_fifo), since a beat's space is held until its packet is released.
// A packet must fit in DEPTH beats: a longer one fills the RAM from its own first beat before its
// tlast is stored, so it can never be released and the FIFO deadlocks. The user refuses longer
// packets before they reach it.
// s_axis_tready depends only on registers (no path from m_axis_tready or m_axis_replay), so
// chains of FIFOs close timing one FIFO at a time. m_axis_tready and m_axis_replay reach the
// RAM's read address through one 2:1 mux (mark or read pointer), and its read enable, as
// m_axis_tready does in p4f_axis_fifo.
`default_nettype none

module p4f_axis_replay_fifo #(
    parameter int DATA_W = 64,             // tdata width in bits, a multiple of 8
    parameter int KEEP_W = (DATA_W + 7) / 8, // tkeep width: one bit per byte
    parameter int USER_W = 1,              // tuser width in bits (at least 1)
    parameter int DEPTH  = 16              // RAM entries; a power of two >= 2; also the longest packet
) (
    input  wire logic              clk,
    input  wire logic              rst,

    input  wire logic [DATA_W-1:0] s_axis_tdata,
    input  wire logic [KEEP_W-1:0] s_axis_tkeep,
    input  wire logic              s_axis_tvalid,
    output logic                   s_axis_tready,
    input  wire logic              s_axis_tlast,
    input  wire logic [USER_W-1:0] s_axis_tuser,

    output logic      [DATA_W-1:0] m_axis_tdata,
    output logic      [KEEP_W-1:0] m_axis_tkeep,
    output logic                   m_axis_tvalid,
    input  wire logic              m_axis_tready,
    output logic                   m_axis_tlast,
    output logic      [USER_W-1:0] m_axis_tuser,
    // With the last beat's handshake: 1 presents the packet again, 0 releases it.
    input  wire logic              m_axis_replay
);
    localparam int ADDR_W = $clog2(DEPTH);
    // One RAM word holds a whole beat; tlast (the top bit) is all the FIFO knows of packets.
    localparam int WORD_W = DATA_W + KEEP_W + 1 + USER_W;

    if (DEPTH < 2 || (1 << ADDR_W) != DEPTH) begin : g_bad_depth
        $error("p4f_axis_replay_fifo: DEPTH must be a power of two >= 2");
    end

    logic [WORD_W-1:0] mem [DEPTH];

    // Pointers carry one extra bit so full (same address, different lap) and empty (same
    // address, same lap) are told apart without a separate counter. mark_reg <= rd_ptr_reg <=
    // wr_ptr_reg around the ring: mark_reg is the first beat of the packet being presented.
    logic [ADDR_W:0] wr_ptr_reg, rd_ptr_reg, mark_reg;
    logic            out_valid_reg;
    logic [WORD_W-1:0] out_word_reg;

    wire logic empty = wr_ptr_reg == rd_ptr_reg;
    // Full counts from the mark: the packet being presented still owns its beats.
    wire logic full  = wr_ptr_reg == {~mark_reg[ADDR_W], mark_reg[ADDR_W-1:0]};

    wire logic do_write = s_axis_tvalid && !full;

    // The packet's last beat leaves now: replay it or release it.
    wire logic pkt_end    = out_valid_reg && m_axis_tready && out_word_reg[WORD_W-1];
    wire logic do_replay  = pkt_end && m_axis_replay;
    wire logic do_release = pkt_end && !m_axis_replay;

    // Refill the output register whenever it is empty or being emptied this cycle: from the
    // mark on a replay (always stored: the packet is held), else the next unread beat.
    // The output register always holds the beat at rd_ptr_reg - 1.
    wire logic            do_read = do_replay || (!empty && (!out_valid_reg || m_axis_tready));
    wire logic [ADDR_W:0] rd_addr = do_replay ? mark_reg : rd_ptr_reg;

    assign s_axis_tready = !full;

    always_ff @(posedge clk) begin
        if (do_write) begin
            mem[wr_ptr_reg[ADDR_W-1:0]] <= {s_axis_tlast, s_axis_tuser, s_axis_tkeep, s_axis_tdata};
        end
        // A registered read of the RAM: this is what lets synthesis map mem to block or
        // distributed RAM with its output register.
        if (do_read) begin
            out_word_reg <= mem[rd_addr[ADDR_W-1:0]];
        end
    end

    always_ff @(posedge clk) begin
        if (rst) begin
            wr_ptr_reg    <= '0;
            rd_ptr_reg    <= '0;
            mark_reg      <= '0;
            out_valid_reg <= 1'b0;
        end else begin
            if (do_write)   wr_ptr_reg <= wr_ptr_reg + 1'b1;
            if (do_read)    rd_ptr_reg <= rd_addr + 1'b1;
            // The next packet starts right after the released one's last beat.
            if (do_release) mark_reg   <= rd_ptr_reg;
            if (do_read)                out_valid_reg <= 1'b1;
            else if (m_axis_tready)     out_valid_reg <= 1'b0;
        end
    end

    assign m_axis_tvalid = out_valid_reg;
    assign {m_axis_tlast, m_axis_tuser, m_axis_tkeep, m_axis_tdata} = out_word_reg;

endmodule

`default_nettype wire

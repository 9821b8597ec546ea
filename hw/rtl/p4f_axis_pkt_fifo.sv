// p4f_axis_pkt_fifo: synchronous store-and-forward packet FIFO; whole packets in, whole packets
// out, never a truncated one.
//
// Beats are written as they come, but m_axis sees a packet only once its tlast beat is stored,
// so a packet leaves back to back, one beat per cycle, with no gap inside it (what a MAC's TX
// side needs: it cannot wait mid-frame). A packet that does not fit is dropped whole: when a beat
// finds the RAM full, the packet's beats already written are discarded, its remaining beats are
// taken and thrown away, and drop_count increments (on the beat that found the RAM full).
//   DROP_WHEN_FULL = 1 (RX: the MAC cannot be held back): s_axis_tready is always high and a
//     packet that meets a full RAM is dropped.
//   DROP_WHEN_FULL = 0 (TX: the pipeline can wait): a packet that meets a full RAM waits
//     (s_axis_tready low) for packets ahead of it to leave; only a packet longer than DEPTH
//     beats, which could never fit, is dropped.
// Timing: a packet's first beat is on m_axis 2 cycles after its tlast beat is taken (one cycle
// to commit, one in the output register); capacity DEPTH beats plus one in the output register.
// s_axis_tready comes from registers only.
`default_nettype none

module p4f_axis_pkt_fifo #(
    parameter int DATA_W         = 64,               // tdata width in bits, a multiple of 8
    parameter int KEEP_W         = (DATA_W + 7) / 8, // tkeep width: one bit per byte
    parameter int USER_W         = 1,                // tuser width in bits (at least 1)
    parameter int DEPTH          = 512,              // RAM entries (beats); a power of two >= 2
    parameter bit DROP_WHEN_FULL = 1'b1              // 1: drop what does not fit; 0: wait
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

    output logic      [31:0]       drop_count
);
    localparam int ADDR_W = $clog2(DEPTH);
    localparam int WORD_W = DATA_W + KEEP_W + 1 + USER_W;

    if (DEPTH < 2 || (1 << ADDR_W) != DEPTH) begin : g_bad_depth
        $error("p4f_axis_pkt_fifo: DEPTH must be a power of two >= 2");
    end

    logic [WORD_W-1:0] mem [DEPTH];

    // wr_ptr_reg: next beat of the packet being written; commit_reg: the end of the last whole
    // packet (what the reader may read up to). Pointers carry one lap bit.
    logic [ADDR_W:0] wr_ptr_reg, commit_reg, rd_ptr_reg;
    logic            dropping_reg;
    logic            out_valid_reg;
    logic [WORD_W-1:0] out_word_reg;

    wire logic full = wr_ptr_reg == {~rd_ptr_reg[ADDR_W], rd_ptr_reg[ADDR_W-1:0]};
    // Nothing whole is stored ahead of the packet being written: waiting would never end.
    wire logic hopeless = commit_reg == rd_ptr_reg;
    wire logic give_up  = DROP_WHEN_FULL || hopeless;

    assign s_axis_tready = dropping_reg || !full || give_up;

    wire logic s_fire   = s_axis_tvalid && s_axis_tready;
    wire logic do_write = s_fire && !dropping_reg && !full;
    wire logic drop_now = s_fire && !dropping_reg && full; // s_axis_tready implies give_up here

    wire logic empty   = rd_ptr_reg == commit_reg;
    wire logic do_read = !empty && (!out_valid_reg || m_axis_tready);

    always_ff @(posedge clk) begin
        if (do_write) mem[wr_ptr_reg[ADDR_W-1:0]] <= {s_axis_tlast, s_axis_tuser, s_axis_tkeep, s_axis_tdata};
        if (do_read)  out_word_reg <= mem[rd_ptr_reg[ADDR_W-1:0]];
    end

    always_ff @(posedge clk) begin
        if (rst) begin
            wr_ptr_reg    <= '0;
            commit_reg    <= '0;
            rd_ptr_reg    <= '0;
            dropping_reg  <= 1'b0;
            out_valid_reg <= 1'b0;
            drop_count    <= '0;
        end else begin
            if (do_write) begin
                wr_ptr_reg <= wr_ptr_reg + 1'b1;
                if (s_axis_tlast) commit_reg <= wr_ptr_reg + 1'b1;
            end
            if (drop_now) begin
                wr_ptr_reg   <= commit_reg;
                dropping_reg <= !s_axis_tlast;
                drop_count   <= drop_count + 1'b1;
            end else if (s_fire && dropping_reg && s_axis_tlast) begin
                dropping_reg <= 1'b0;
            end
            if (do_read) rd_ptr_reg <= rd_ptr_reg + 1'b1;
            if (do_read)            out_valid_reg <= 1'b1;
            else if (m_axis_tready) out_valid_reg <= 1'b0;
        end
    end

    assign m_axis_tvalid = out_valid_reg;
    assign {m_axis_tlast, m_axis_tuser, m_axis_tkeep, m_axis_tdata} = out_word_reg;

endmodule

`default_nettype wire

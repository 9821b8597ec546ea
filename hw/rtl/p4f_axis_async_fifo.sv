// p4f_axis_async_fifo: AXI4-Stream FIFO between two unrelated clocks (the MAC side at 156.25 MHz
// and the pipeline at 250 MHz in the seed design, in either direction).
//
// Each side keeps a binary pointer for addressing and a Gray-coded copy in a register; only the
// Gray copy crosses, through two flops, so a pointer sampled mid-change is off by at most one
// step and never wrong by more (it errs towards full on the write side, towards empty on the
// read side). The RAM is written on s_clk and read on m_clk; a word is read only after its
// write pointer has crossed, so its contents are stable by then.
//
// Timing: a beat appears on m_axis about 3-4 m_clk cycles after it is accepted (synchroniser
// plus output register). Full throughput on both sides as long as the other side keeps up;
// a pointer takes ~3 cycles to cross back, so DEPTH >= 8 is needed to keep streaming.
// Reset: s_rst and m_rst must be asserted together (overlapping for a few cycles of the slower
// clock); each clears its own domain's pointers.
`default_nettype none

module p4f_axis_async_fifo #(
    parameter int DATA_W = 64,               // tdata width in bits, a multiple of 8
    parameter int KEEP_W = (DATA_W + 7) / 8, // tkeep width: one bit per byte
    parameter int USER_W = 1,                // tuser width in bits (at least 1)
    parameter int DEPTH  = 16                // RAM entries; a power of two, at least 4
) (
    input  wire logic              s_clk,
    input  wire logic              s_rst,
    input  wire logic [DATA_W-1:0] s_axis_tdata,
    input  wire logic [KEEP_W-1:0] s_axis_tkeep,
    input  wire logic              s_axis_tvalid,
    output logic                   s_axis_tready,
    input  wire logic              s_axis_tlast,
    input  wire logic [USER_W-1:0] s_axis_tuser,

    input  wire logic              m_clk,
    input  wire logic              m_rst,
    output logic      [DATA_W-1:0] m_axis_tdata,
    output logic      [KEEP_W-1:0] m_axis_tkeep,
    output logic                   m_axis_tvalid,
    input  wire logic              m_axis_tready,
    output logic                   m_axis_tlast,
    output logic      [USER_W-1:0] m_axis_tuser
);
    localparam int ADDR_W = $clog2(DEPTH);
    localparam int WORD_W = DATA_W + KEEP_W + 1 + USER_W;

    if (DEPTH < 4 || (1 << ADDR_W) != DEPTH) begin : g_bad_depth
        $error("p4f_axis_async_fifo: DEPTH must be a power of two >= 4");
    end

    logic [WORD_W-1:0] mem [DEPTH];

    // ---- write side (s_clk) ----
    logic [ADDR_W:0] wr_bin_reg, wr_gray_reg;
    (* ASYNC_REG = "TRUE" *) logic [ADDR_W:0] rd_gray_sync1_reg, rd_gray_sync2_reg;

    // Full when the write pointer is one lap ahead of the (synchronised) read pointer: in Gray
    // code that is the two top bits inverted and the rest equal.
    wire logic full = wr_gray_reg ==
        {~rd_gray_sync2_reg[ADDR_W:ADDR_W-1], rd_gray_sync2_reg[ADDR_W-2:0]};
    wire logic do_write = s_axis_tvalid && !full;
    wire logic [ADDR_W:0] wr_bin_next  = wr_bin_reg + 1'b1;
    wire logic [ADDR_W:0] wr_gray_next = wr_bin_next ^ (wr_bin_next >> 1);

    assign s_axis_tready = !full;

    always_ff @(posedge s_clk) begin
        if (do_write) begin
            mem[wr_bin_reg[ADDR_W-1:0]] <= {s_axis_tlast, s_axis_tuser, s_axis_tkeep, s_axis_tdata};
        end
    end

    always_ff @(posedge s_clk) begin
        if (s_rst) begin
            wr_bin_reg        <= '0;
            wr_gray_reg       <= '0;
            rd_gray_sync1_reg <= '0;
            rd_gray_sync2_reg <= '0;
        end else begin
            if (do_write) begin
                wr_bin_reg  <= wr_bin_next;
                wr_gray_reg <= wr_gray_next; // a flop, so the crossing sees no glitches
            end
            rd_gray_sync1_reg <= rd_gray_reg;
            rd_gray_sync2_reg <= rd_gray_sync1_reg;
        end
    end

    // ---- read side (m_clk) ----
    logic [ADDR_W:0] rd_bin_reg, rd_gray_reg;
    (* ASYNC_REG = "TRUE" *) logic [ADDR_W:0] wr_gray_sync1_reg, wr_gray_sync2_reg;
    logic              out_valid_reg;
    logic [WORD_W-1:0] out_word_reg;

    wire logic empty   = rd_gray_reg == wr_gray_sync2_reg;
    wire logic do_read = !empty && (!out_valid_reg || m_axis_tready);
    wire logic [ADDR_W:0] rd_bin_next  = rd_bin_reg + 1'b1;
    wire logic [ADDR_W:0] rd_gray_next = rd_bin_next ^ (rd_bin_next >> 1);

    always_ff @(posedge m_clk) begin
        if (do_read) begin
            out_word_reg <= mem[rd_bin_reg[ADDR_W-1:0]];
        end
    end

    always_ff @(posedge m_clk) begin
        if (m_rst) begin
            rd_bin_reg        <= '0;
            rd_gray_reg       <= '0;
            wr_gray_sync1_reg <= '0;
            wr_gray_sync2_reg <= '0;
            out_valid_reg     <= 1'b0;
        end else begin
            if (do_read) begin
                rd_bin_reg  <= rd_bin_next;
                rd_gray_reg <= rd_gray_next;
            end
            wr_gray_sync1_reg <= wr_gray_reg;
            wr_gray_sync2_reg <= wr_gray_sync1_reg;
            if (do_read)            out_valid_reg <= 1'b1;
            else if (m_axis_tready) out_valid_reg <= 1'b0;
        end
    end

    assign m_axis_tvalid = out_valid_reg;
    assign {m_axis_tlast, m_axis_tuser, m_axis_tkeep, m_axis_tdata} = out_word_reg;

endmodule

`default_nettype wire

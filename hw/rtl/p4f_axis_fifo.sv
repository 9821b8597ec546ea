// p4f_axis_fifo: synchronous AXI4-Stream FIFO, packet-agnostic (beats are stored as they come;
// tlast is just another stored bit).
//
// Timing: a beat accepted at clock edge t is presented on m_axis at edge t+2 (one cycle in the
// RAM, one in the output register). One beat per cycle in and out when neither full nor empty.
// Capacity is DEPTH beats in the RAM plus one in the output register.
// s_axis_tready depends only on registers (no path from m_axis_tready), so chains of FIFOs close
// timing one FIFO at a time.
`default_nettype none

module p4f_axis_fifo #(
    parameter int DATA_W = 64,             // tdata width in bits, a multiple of 8
    parameter int KEEP_W = (DATA_W + 7) / 8, // tkeep width: one bit per byte
    parameter int USER_W = 1,              // tuser width in bits (at least 1)
    parameter int DEPTH  = 16              // RAM entries; a power of two, at least 2
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
    output logic      [USER_W-1:0] m_axis_tuser
);
    localparam int ADDR_W = $clog2(DEPTH);
    // One RAM word holds a whole beat, so the FIFO never needs to know about packets.
    localparam int WORD_W = DATA_W + KEEP_W + 1 + USER_W;

    if (DEPTH < 2 || (1 << ADDR_W) != DEPTH) begin : g_bad_depth
        $error("p4f_axis_fifo: DEPTH must be a power of two >= 2");
    end

    logic [WORD_W-1:0] mem [DEPTH];

    // Pointers carry one extra bit so full (same address, different lap) and empty (same
    // address, same lap) are told apart without a separate counter.
    logic [ADDR_W:0] wr_ptr_reg, rd_ptr_reg;
    logic            out_valid_reg;
    logic [WORD_W-1:0] out_word_reg;

    wire logic empty = wr_ptr_reg == rd_ptr_reg;
    wire logic full  = wr_ptr_reg == {~rd_ptr_reg[ADDR_W], rd_ptr_reg[ADDR_W-1:0]};

    wire logic do_write = s_axis_tvalid && !full;
    // Refill the output register whenever it is empty or being emptied this cycle.
    wire logic do_read  = !empty && (!out_valid_reg || m_axis_tready);

    assign s_axis_tready = !full;

    always_ff @(posedge clk) begin
        if (do_write) begin
            mem[wr_ptr_reg[ADDR_W-1:0]] <= {s_axis_tlast, s_axis_tuser, s_axis_tkeep, s_axis_tdata};
        end
        // A registered read of the RAM: this is what lets synthesis map mem to block or
        // distributed RAM with its output register.
        if (do_read) begin
            out_word_reg <= mem[rd_ptr_reg[ADDR_W-1:0]];
        end
    end

    always_ff @(posedge clk) begin
        if (rst) begin
            wr_ptr_reg    <= '0;
            rd_ptr_reg    <= '0;
            out_valid_reg <= 1'b0;
        end else begin
            if (do_write) wr_ptr_reg <= wr_ptr_reg + 1'b1;
            if (do_read)  rd_ptr_reg <= rd_ptr_reg + 1'b1;
            if (do_read)                out_valid_reg <= 1'b1;
            else if (m_axis_tready)     out_valid_reg <= 1'b0;
        end
    end

    assign m_axis_tvalid = out_valid_reg;
    assign {m_axis_tlast, m_axis_tuser, m_axis_tkeep, m_axis_tdata} = out_word_reg;

endmodule

`default_nettype wire

// p4f_axis_register: AXI4-Stream register slice (a two-entry skid buffer).
//
// Cuts every combinational path through it: m_axis_* and s_axis_tready all come straight from
// flops. One cycle of latency, one beat per cycle. When m_axis_tready drops, the beat already in
// flight on s_axis lands in the skid register instead of being lost, which is what lets
// s_axis_tready be registered.
`default_nettype none

module p4f_axis_register #(
    parameter int DATA_W = 64,               // tdata width in bits, a multiple of 8
    parameter int KEEP_W = (DATA_W + 7) / 8, // tkeep width: one bit per byte
    parameter int ID_W   = 1,                // tid width in bits (at least 1)
    parameter int USER_W = 1                 // tuser width in bits (at least 1)
) (
    input  wire logic              clk,
    input  wire logic              rst,

    input  wire logic [DATA_W-1:0] s_axis_tdata,
    input  wire logic [KEEP_W-1:0] s_axis_tkeep,
    input  wire logic              s_axis_tvalid,
    output logic                   s_axis_tready,
    input  wire logic              s_axis_tlast,
    input  wire logic [ID_W-1:0]   s_axis_tid,
    input  wire logic [USER_W-1:0] s_axis_tuser,

    output logic      [DATA_W-1:0] m_axis_tdata,
    output logic      [KEEP_W-1:0] m_axis_tkeep,
    output logic                   m_axis_tvalid,
    input  wire logic              m_axis_tready,
    output logic                   m_axis_tlast,
    output logic      [ID_W-1:0]   m_axis_tid,
    output logic      [USER_W-1:0] m_axis_tuser
);
    localparam int WORD_W = DATA_W + KEEP_W + 1 + ID_W + USER_W;

    logic              out_valid_reg, skid_valid_reg;
    logic [WORD_W-1:0] out_word_reg, skid_word_reg;

    wire logic [WORD_W-1:0] in_word = {s_axis_tlast, s_axis_tid, s_axis_tuser, s_axis_tkeep, s_axis_tdata};
    wire logic              out_free = !out_valid_reg || m_axis_tready;

    // Ready while the skid register is empty: at most one beat can arrive after the sink stalls.
    assign s_axis_tready = !skid_valid_reg;
    wire logic s_fire = s_axis_tvalid && !skid_valid_reg;

    // Datapath registers: no reset, only loaded when a valid bit says so.
    always_ff @(posedge clk) begin
        if (out_free) begin
            if (skid_valid_reg) out_word_reg <= skid_word_reg;
            else if (s_fire)    out_word_reg <= in_word;
        end else if (s_fire) begin
            skid_word_reg <= in_word;
        end
    end

    always_ff @(posedge clk) begin
        if (rst) begin
            out_valid_reg  <= 1'b0;
            skid_valid_reg <= 1'b0;
        end else if (out_free) begin
            out_valid_reg  <= skid_valid_reg || s_fire;
            skid_valid_reg <= 1'b0;
        end else if (s_fire) begin
            skid_valid_reg <= 1'b1;
        end
    end

    assign m_axis_tvalid = out_valid_reg;
    assign {m_axis_tlast, m_axis_tid, m_axis_tuser, m_axis_tkeep, m_axis_tdata} = out_word_reg;

endmodule

`default_nettype wire

// p4f_port_rx: one port's receive queue: the MAC's stream (s_clk, 156.25 MHz in the seed design)
// into the pipeline's clock domain (m_clk, 250 MHz), whole packets only.
//
// p4f_axis_async_fifo carries the beats across, then p4f_axis_pkt_fifo (in the pipeline's
// domain, DROP_WHEN_FULL) stores each packet and releases it only once complete. A packet that
// does not fit in the packet FIFO is dropped whole, never truncated, and counted on drop_count
// (m_clk domain, for the control registers). The pipeline therefore sees each packet back to
// back at one beat per cycle, and a stalled pipeline costs whole packets, not the MAC's timing.
// s_axis_tready is the async FIFO's: it stays high as long as m_clk moves at least as many beats
// as s_clk brings (true for the seed design's clocks; a MAC's RX side cannot wait anyway).
// Reset: s_rst and m_rst asserted together, as for p4f_axis_async_fifo.
`default_nettype none

module p4f_port_rx #(
    parameter int DATA_W      = 64,               // tdata width in bits, a multiple of 8
    parameter int KEEP_W      = (DATA_W + 7) / 8, // tkeep width: one bit per byte
    parameter int USER_W      = 1,                // tuser width in bits (at least 1)
    parameter int ASYNC_DEPTH = 16,               // clock-crossing FIFO entries (power of two >= 8)
    parameter int DEPTH       = 512               // packet FIFO beats (power of two); the largest packet
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
    output logic      [USER_W-1:0] m_axis_tuser,

    output logic      [31:0]       drop_count     // m_clk domain
);
    logic [DATA_W-1:0] x_tdata;
    logic [KEEP_W-1:0] x_tkeep;
    logic [USER_W-1:0] x_tuser;
    logic              x_tvalid, x_tready, x_tlast;

    p4f_axis_async_fifo #(.DATA_W(DATA_W), .KEEP_W(KEEP_W), .USER_W(USER_W), .DEPTH(ASYNC_DEPTH)) u_cross (
        .s_clk, .s_rst,
        .s_axis_tdata, .s_axis_tkeep, .s_axis_tvalid, .s_axis_tready, .s_axis_tlast, .s_axis_tuser,
        .m_clk, .m_rst,
        .m_axis_tdata(x_tdata), .m_axis_tkeep(x_tkeep), .m_axis_tvalid(x_tvalid),
        .m_axis_tready(x_tready), .m_axis_tlast(x_tlast), .m_axis_tuser(x_tuser)
    );

    p4f_axis_pkt_fifo #(.DATA_W(DATA_W), .KEEP_W(KEEP_W), .USER_W(USER_W), .DEPTH(DEPTH),
                        .DROP_WHEN_FULL(1'b1)) u_pkt (
        .clk(m_clk), .rst(m_rst),
        .s_axis_tdata(x_tdata), .s_axis_tkeep(x_tkeep), .s_axis_tvalid(x_tvalid),
        .s_axis_tready(x_tready), .s_axis_tlast(x_tlast), .s_axis_tuser(x_tuser),
        .m_axis_tdata, .m_axis_tkeep, .m_axis_tvalid, .m_axis_tready, .m_axis_tlast, .m_axis_tuser,
        .drop_count
    );

endmodule

`default_nettype wire

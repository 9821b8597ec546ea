// p4f_port_tx: one port's transmit queue: the pipeline's stream (s_clk, 250 MHz in the seed
// design) into the MAC's clock domain (m_clk, 156.25 MHz), whole packets only.
//
// p4f_axis_async_fifo carries the beats across, then p4f_axis_pkt_fifo (in the MAC's domain,
// waiting rather than dropping) stores each packet and starts it only once complete, so the MAC
// gets every packet without a gap between its first and last beat (a MAC cannot pause mid-frame).
// The pipeline is held back (s_axis_tready low) while the queue is full. A packet longer than
// DEPTH beats could never be stored whole: it is dropped and counted on drop_count (m_clk domain).
// Reset: s_rst and m_rst asserted together, as for p4f_axis_async_fifo.
`default_nettype none

module p4f_port_tx #(
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

    output logic      [31:0]       drop_count     // m_clk domain: packets longer than DEPTH beats
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
                        .DROP_WHEN_FULL(1'b0)) u_pkt (
        .clk(m_clk), .rst(m_rst),
        .s_axis_tdata(x_tdata), .s_axis_tkeep(x_tkeep), .s_axis_tvalid(x_tvalid),
        .s_axis_tready(x_tready), .s_axis_tlast(x_tlast), .s_axis_tuser(x_tuser),
        .m_axis_tdata, .m_axis_tkeep, .m_axis_tvalid, .m_axis_tready, .m_axis_tlast, .m_axis_tuser,
        .drop_count
    );

endmodule

`default_nettype wire

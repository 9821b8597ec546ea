// p4f_tb_axis_source: drives one AXI4-Stream with the beats of beat_gen(seed, STREAM).
// Before each new beat it idles for a cycle with probability idle_pct/100 (re-drawn every
// cycle), and it never starts a packet beyond packet_limit, so the test can run in phases.
// Holds tvalid and the beat until taken, as AXI4-Stream requires; tvalid never depends on tready.
`timescale 1ns / 1ps
`default_nettype none

module p4f_tb_axis_source #(
    parameter int DATA_W    = 64,
    parameter int KEEP_W    = (DATA_W + 7) / 8,
    parameter int USER_W    = 1,
    parameter int MAX_BEATS = 8,
    parameter int STREAM    = 0
) (
    input  wire logic              clk,
    input  wire logic              rst,
    input  int unsigned            idle_pct,
    input  longint unsigned        packet_limit,
    output longint unsigned        beats_sent,

    output logic      [DATA_W-1:0] m_axis_tdata,
    output logic      [KEEP_W-1:0] m_axis_tkeep,
    output logic                   m_axis_tvalid,
    input  wire logic              m_axis_tready,
    output logic                   m_axis_tlast,
    output logic      [USER_W-1:0] m_axis_tuser
);
    import p4f_tb_pkg::*;

    beat_gen #(DATA_W, USER_W, MAX_BEATS) gen;
    prng idle_rng;
    initial begin
        gen = new(run_seed(), STREAM);
        idle_rng = new(run_seed() ^ 64'h5eed_0000 ^ longint'(STREAM));
    end

    always @(posedge clk) begin
        if (rst) begin
            m_axis_tvalid <= 1'b0;
            beats_sent <= 0;
        end else begin
            if (m_axis_tvalid && m_axis_tready) beats_sent <= beats_sent + 1;
            if (!m_axis_tvalid || m_axis_tready) begin
                // At a packet boundary, stop once the phase's packets are all out.
                if ((gen.beats_left != 0 || gen.packets < packet_limit)
                        && idle_rng.below(100) >= idle_pct) begin
                    logic [DATA_W-1:0] d;
                    logic [KEEP_W-1:0] k;
                    logic [USER_W-1:0] u;
                    logic l;
                    gen.next(d, k, u, l);
                    m_axis_tdata  <= d;
                    m_axis_tkeep  <= k;
                    m_axis_tuser  <= u;
                    m_axis_tlast  <= l;
                    m_axis_tvalid <= 1'b1;
                end else begin
                    m_axis_tvalid <= 1'b0;
                end
            end
        end
    end

endmodule

`default_nettype wire

// p4f_tb_axis_sink: takes one AXI4-Stream carrying STREAMS interleaved-by-packet streams
// (tid says which; STREAMS = 1 ignores tid) and checks every beat against beat_gen(seed, tid).
// Also checks the AXI4-Stream rule a DUT output must keep: once tvalid is up, tvalid and the beat
// stay unchanged until taken. tready is low with probability stall_pct/100, re-drawn every cycle.
`timescale 1ns / 1ps
`default_nettype none

module p4f_tb_axis_sink #(
    parameter int DATA_W    = 64,
    parameter int KEEP_W    = (DATA_W + 7) / 8,
    parameter int USER_W    = 1,
    parameter int ID_W      = 1,
    parameter int STREAMS   = 1,
    parameter int MAX_BEATS = 8,
    parameter string NAME   = "sink"
) (
    input  wire logic              clk,
    input  wire logic              rst,
    input  int unsigned            stall_pct,
    output longint unsigned        beats_received,
    output longint unsigned        packets_received,
    output int unsigned            errors,
    // tid of the last packet that started, and a pulse on each packet's first beat
    output logic      [ID_W-1:0]   start_tid,
    output logic                   start_pulse,

    input  wire logic [DATA_W-1:0] s_axis_tdata,
    input  wire logic [KEEP_W-1:0] s_axis_tkeep,
    input  wire logic              s_axis_tvalid,
    output logic                   s_axis_tready,
    input  wire logic              s_axis_tlast,
    input  wire logic [ID_W-1:0]   s_axis_tid,
    input  wire logic [USER_W-1:0] s_axis_tuser
);
    import p4f_tb_pkg::*;

    localparam int WORD_W = DATA_W + KEEP_W + 1 + ID_W + USER_W;

    beat_gen #(DATA_W, USER_W, MAX_BEATS) gens[STREAMS];
    prng stall_rng;
    initial begin
        for (int i = 0; i < STREAMS; i++) gens[i] = new(run_seed(), i);
        stall_rng = new(run_seed() ^ 64'h57a1_0000);
    end

    logic              in_packet;
    logic [ID_W-1:0]   packet_tid;
    logic              stalled;      // last cycle had tvalid && !tready
    logic [WORD_W-1:0] stalled_word; // the beat offered then

    wire logic [WORD_W-1:0] word = {s_axis_tlast, s_axis_tid, s_axis_tuser, s_axis_tkeep, s_axis_tdata};

    task automatic fail(input string what);
        errors <= errors + 1;
        if (errors < 10) $display("[%0t] %s: ERROR %s", $time, NAME, what);
    endtask

    always @(posedge clk) begin
        if (rst) begin
            s_axis_tready <= 1'b0;
            beats_received <= 0;
            packets_received <= 0;
            errors <= 0;
            in_packet <= 1'b0;
            packet_tid <= '0;
            stalled <= 1'b0;
            start_pulse <= 1'b0;
            start_tid <= '0;
        end else begin
            start_pulse <= 1'b0;
            if (stalled && !s_axis_tvalid) fail("tvalid dropped before the beat was taken");
            else if (stalled && word != stalled_word) fail("beat changed while stalled");
            stalled <= s_axis_tvalid && !s_axis_tready;
            stalled_word <= word;

            if (s_axis_tvalid && s_axis_tready) begin
                int unsigned sid;
                logic [DATA_W-1:0] d;
                logic [KEEP_W-1:0] k;
                logic [USER_W-1:0] u;
                logic l;
                sid = STREAMS == 1 ? 0 : int'(s_axis_tid);
                if (sid >= STREAMS) begin
                    fail($sformatf("tid %0d out of range", s_axis_tid));
                end else begin
                    if (!in_packet) begin
                        start_pulse <= 1'b1;
                        start_tid <= s_axis_tid;
                    end else if (STREAMS > 1 && s_axis_tid != packet_tid) begin
                        fail($sformatf("packet from tid %0d interrupted by tid %0d", packet_tid, s_axis_tid));
                    end
                    gens[sid].next(d, k, u, l);
                    if (s_axis_tdata != d || s_axis_tkeep != k || s_axis_tuser != u || s_axis_tlast != l)
                        fail($sformatf("stream %0d beat %0d: got data=%h keep=%h user=%h last=%b, want data=%h keep=%h user=%h last=%b",
                            sid, gens[sid].beats - 1, s_axis_tdata, s_axis_tkeep, s_axis_tuser, s_axis_tlast, d, k, u, l));
                end
                packet_tid <= s_axis_tid;
                in_packet <= !s_axis_tlast;
                beats_received <= beats_received + 1;
                if (s_axis_tlast) packets_received <= packets_received + 1;
            end
            s_axis_tready <= stall_rng.below(100) >= stall_pct;
        end
    end

endmodule

`default_nettype wire

// Testbench for p4f_axis_replay_fifo: four configurations side by side (64 bits with DEPTH 8
// and packets of 1-8 beats, so a packet can fill the RAM by itself; 8 bits with DEPTH 2, the
// smallest; 64 bits with DEPTH 16 and packets of 1-14 beats, where one beat per cycle must hold;
// 512 bits with DEPTH 32 and packets of 1-32 beats). A random source (p4f_tb_axis_source:
// random lengths, tuser and last-beat tkeep) with random idle cycles; on the output random
// backpressure, and for each packet a random number of replays (0-3, drawn when its first beat
// goes in) driven on m_axis_replay with its last beat; at any other time m_axis_replay is noise.
//
// The model keeps every beat taken and not yet released (the DUT's RAM from its mark). Each beat
// out must equal the next beat of the oldest held packet; a replay starts it over, a release
// drops it from the model. So every packet must come out exactly replays + 1 times, beat for beat,
// in order, and anything else out is an error. Every cycle s_axis_tready must be exactly "fewer
// than DEPTH beats held": space is held from the first beat of the packet being presented until
// its release, never longer. A hold phase replays the oldest packet until the input has been
// refused for a while with DEPTH beats held, then releases it. Throughput phases (where a packet
// plus two beats fit): with no stalls and no replays the input is never refused, the output has
// no gap and a beat is out 2 cycles after it went in; with replays the output still has no gap
// (a replay costs no bubble). +seed=N.
`timescale 1ns / 1ps
`default_nettype none
// The scoreboard keeps its queues and counters as blocking state.
/* verilator lint_off BLKSEQ */

module replay_bench #(
    parameter int DATA_W    = 64,
    parameter int USER_W    = 3,
    parameter int DEPTH     = 8,
    parameter int MAX_BEATS = 8,
    parameter int SALT      = 0,
    parameter string NAME   = "replay"
) (
    input  wire logic clk,
    input  wire logic rst,
    output logic      done
);
    import p4f_tb_pkg::*;
    localparam int KEEP_W = DATA_W / 8;
    localparam int WORD_W = DATA_W + KEEP_W + 1 + USER_W;
    // The module's header: at one beat per cycle, without replays, the input is never refused
    // if a packet plus two beats fit; with them, the output never waits for the input.
    localparam bit RATE_CHECKS = MAX_BEATS + 2 <= DEPTH;
    localparam int HOLD_CYCLES = 4 * DEPTH + 40;

    logic [DATA_W-1:0] s_tdata, m_tdata;
    logic [KEEP_W-1:0] s_tkeep, m_tkeep;
    logic [USER_W-1:0] s_tuser, m_tuser;
    logic s_tvalid, s_tready, s_tlast, m_tvalid, m_tready, m_tlast, m_replay;

    int unsigned     idle_pct = 0, stall_pct = 0, max_replays = 0;
    longint unsigned packet_limit = 0, beats_sent;
    bit              hold = 1'b0;  // replay the oldest packet whatever it is owed

    p4f_tb_axis_source #(.DATA_W(DATA_W), .USER_W(USER_W), .MAX_BEATS(MAX_BEATS), .STREAM(SALT)) u_src (
        .clk, .rst, .idle_pct, .packet_limit, .beats_sent,
        .m_axis_tdata(s_tdata), .m_axis_tkeep(s_tkeep), .m_axis_tvalid(s_tvalid),
        .m_axis_tready(s_tready), .m_axis_tlast(s_tlast), .m_axis_tuser(s_tuser));

    p4f_axis_replay_fifo #(.DATA_W(DATA_W), .USER_W(USER_W), .DEPTH(DEPTH)) dut (
        .clk, .rst,
        .s_axis_tdata(s_tdata), .s_axis_tkeep(s_tkeep), .s_axis_tvalid(s_tvalid),
        .s_axis_tready(s_tready), .s_axis_tlast(s_tlast), .s_axis_tuser(s_tuser),
        .m_axis_tdata(m_tdata), .m_axis_tkeep(m_tkeep), .m_axis_tvalid(m_tvalid),
        .m_axis_tready(m_tready), .m_axis_tlast(m_tlast), .m_axis_tuser(m_tuser),
        .m_axis_replay(m_replay));

    prng m_rng, rep_rng;
    initial begin
        m_rng   = new(run_seed() ^ (64'h3e3_2000 + longint'(SALT)));
        rep_rng = new(run_seed() ^ (64'h7e7_2000 + longint'(SALT)));
    end

    int errors = 0;
    function automatic void fail(input string what);
        errors++;
        if (errors <= 10) $display("[%0t] %s: ERROR %s", $time, NAME, what);
    endfunction
    task automatic check(input bit ok, input string what);
        if (!ok) fail(what);
    endtask

    // ---- scoreboard
    logic [WORD_W-1:0] held_q [$];    // beats taken, not yet released, oldest first
    int unsigned       copies_q [$];  // per packet started, not yet released: replays it is owed
    int unsigned       out_pos = 0;   // index in held_q of the next beat m_axis owes
    logic              in_pkt = 1'b0; // s_axis is inside a packet
    logic              want_replay;   // the oldest packet is owed a copy (a flop: drives m_replay)
    logic              junk;          // m_axis_replay when it means nothing
    logic              m_stalled;
    logic [WORD_W-1:0] m_stalled_word;
    longint unsigned   packets_released = 0, beats_released = 0, copies_out = 0, beats_out = 0;
    longint unsigned   full_refused = 0;  // cycles a beat was refused with DEPTH beats held
    longint unsigned   replay_hist [4] = '{0, 0, 0, 0};  // packets released after 0..3 replays
    int unsigned       replays_done = 0;  // of the oldest packet

    wire logic [WORD_W-1:0] s_word = {s_tlast, s_tuser, s_tkeep, s_tdata};
    wire logic [WORD_W-1:0] m_word = {m_tlast, m_tuser, m_tkeep, m_tdata};
    wire logic              m_end  = m_tvalid && m_tready && m_tlast;
    // m_axis_replay counts only with a last beat's handshake: noise otherwise, so a DUT that
    // samples it at any other time is caught.
    assign m_replay = m_end ? (hold || want_replay) : junk;

    always @(posedge clk) begin
        if (rst) begin
            m_tready <= 1'b0;
            m_stalled <= 1'b0;
            want_replay <= 1'b0;
            junk <= 1'b0;
        end else begin
            // Space is held from the mark: tready is exactly "fewer than DEPTH beats held".
            if (s_tready != (held_q.size() < DEPTH))
                fail($sformatf("s_axis_tready %b with %0d of %0d beats held", s_tready, held_q.size(), DEPTH));
            if (s_tvalid && !s_tready && held_q.size() == DEPTH) full_refused++;

            if (m_stalled && !m_tvalid) fail("m_axis_tvalid dropped before the beat was taken");
            else if (m_stalled && m_word != m_stalled_word) fail("m_axis beat changed while stalled");
            m_stalled <= m_tvalid && !m_tready;
            m_stalled_word <= m_word;

            if (m_tvalid && m_tready) begin
                if (out_pos >= held_q.size())
                    fail($sformatf("beat out %0d: %h, but the %0d beats held are all out", beats_out, m_word, held_q.size()));
                else if (m_word != held_q[out_pos])
                    fail($sformatf("packet %0d copy %0d beat %0d: got last=%b user=%h keep=%h data=%h, want %h",
                         packets_released, replays_done, out_pos, m_tlast, m_tuser, m_tkeep, m_tdata, held_q[out_pos]));
                out_pos++;
                beats_out++;
                if (m_tlast) begin
                    copies_out++;
                    if (m_replay) begin
                        if (copies_q.size() != 0 && copies_q[0] != 0) copies_q[0] = copies_q[0] - 1;
                        replays_done++;
                    end else begin
                        if (copies_q.size() != 0) void'(copies_q.pop_front());
                        for (int i = 0; i < int'(out_pos); i++) void'(held_q.pop_front());
                        packets_released++;
                        beats_released += longint'(out_pos);
                        replay_hist[replays_done < 3 ? replays_done : 3]++;
                        replays_done = 0;
                    end
                    out_pos = 0;
                end
            end

            if (s_tvalid && s_tready) begin
                if (!in_pkt) copies_q.push_back(rep_rng.below(max_replays + 1));
                held_q.push_back(s_word);
                in_pkt = !s_tlast;
            end

            want_replay <= copies_q.size() != 0 && copies_q[0] != 0;
            m_tready <= m_rng.below(100) >= stall_pct;
            junk <= 1'(m_rng.next());
        end
    end

    // ---- throughput monitors
    logic            measure = 1'b0;
    longint unsigned cycle, s_refused, s_first, m_beats, m_first, m_last;
    always @(posedge clk) cycle <= rst ? 0 : cycle + 1;
    /* verilator lint_off PINCONNECTEMPTY */
    p4f_tb_axis_rate u_s_rate (.clk, .measure, .cycle, .tvalid(s_tvalid), .tready(s_tready),
        .refused(s_refused), .beats(), .first(s_first), .last());
    p4f_tb_axis_rate u_m_rate (.clk, .measure, .cycle, .tvalid(m_tvalid), .tready(m_tready),
        .refused(), .beats(m_beats), .first(m_first), .last(m_last));
    /* verilator lint_on PINCONNECTEMPTY */

    // Let the source send `packets` more packets, each owed 0..replays replays; wait until all
    // are released, then check that every beat sent was released and nothing is left.
    task automatic phase(input string name, input int unsigned idle, input int unsigned stall,
                         input int unsigned replays, input int unsigned packets);
        longint unsigned t0 = cycle, c0 = copies_out;
        @(negedge clk);
        idle_pct = idle; stall_pct = stall; max_replays = replays;
        packet_limit += longint'(packets);
        while (packets_released < packet_limit) begin
            @(posedge clk);
            if (cycle - t0 > 200000) begin
                fail($sformatf("%s: timeout, %0d of %0d packets released, %0d beats held",
                     name, packets_released, packet_limit, held_q.size()));
                return;
            end
        end
        repeat (6) @(posedge clk);
        check(beats_released == beats_sent, $sformatf("%s: %0d beats sent, %0d released", name, beats_sent, beats_released));
        check(held_q.size() == 0 && !m_tvalid, $sformatf("%s: output after the last packet's release", name));
        $display("%s: phase %-32s idle %2d%% stall %2d%% replays 0-%0d: %0d packets, %0d copies, %0d cycles",
                 NAME, name, idle, stall, replays, packets, copies_out - c0, cycle - t0);
    endtask

    initial begin
        longint unsigned r0, c0;
        done = 1'b0;
        @(negedge rst);
        phase("idle and backpressure", 30, 30, 3, 300);
        phase("heavy backpressure (fills)", 5, 90, 3, 200);
        phase("heavy idle (empties)", 90, 5, 3, 200);
        phase("no replays", 10, 50, 0, 200);

        // Hold: the oldest packet is replayed until the input has been refused for a while with
        // DEPTH beats held, then released (the scoreboard checks tready every cycle).
        r0 = full_refused;
        c0 = copies_out;
        @(negedge clk) hold = 1'b1;
        fork
            phase("held packet blocks input", 0, 20, 3, 3 * DEPTH);
            begin
                repeat (HOLD_CYCLES) @(posedge clk);
                check(copies_out - c0 >= 2, "hold: the held packet was not replayed");
                $display("%s: hold: input refused %0d of %0d cycles with %0d beats held, %0d copies out",
                         NAME, full_refused - r0, HOLD_CYCLES, DEPTH, copies_out - c0);
                check(full_refused - r0 >= longint'(HOLD_CYCLES) / 2,
                      $sformatf("hold: input refused only %0d cycles with the RAM full", full_refused - r0));
                @(negedge clk) hold = 1'b0;
            end
        join

        // Full rate. Without replays: no refusal, no gap, 2 cycles through. With replays: the
        // output has no gap (the input waits, as the copies take the output's time).
        @(negedge clk) measure = 1'b1;
        phase("no stalls, no replays (throughput)", 0, 0, 0, 300);
        $display("%s: no replays: %0d beats out in %0d cycles, input refused %0d times, first beat %0d cycles after",
                 NAME, m_beats, m_last - m_first + 1, s_refused, m_first - s_first);
        if (RATE_CHECKS) begin
            check(s_refused == 0, $sformatf("throughput: input refused %0d times", s_refused));
            check(m_last - m_first + 1 == m_beats,
                  $sformatf("throughput: %0d beats out over %0d cycles", m_beats, m_last - m_first + 1));
            check(m_first == s_first + 2, $sformatf("latency: first beat in at cycle %0d, out at %0d", s_first, m_first));
        end
        @(negedge clk) measure = 1'b0;
        @(negedge clk) measure = 1'b1;
        phase("no stalls, replays (throughput)", 0, 0, 3, 200);
        $display("%s: replays: %0d beats out in %0d cycles", NAME, m_beats, m_last - m_first + 1);
        if (RATE_CHECKS)
            check(m_last - m_first + 1 == m_beats,
                  $sformatf("throughput with replays: %0d beats out over %0d cycles", m_beats, m_last - m_first + 1));
        @(negedge clk) measure = 1'b0;

        phase("idle and backpressure again", 40, 40, 3, 200);
        for (int i = 0; i < 4; i++)
            check(replay_hist[i] != 0, $sformatf("no packet was released after %0d replays", i));
        $display("%s: %0d packets released after 0/1/2/3+ replays: %0d/%0d/%0d/%0d, %0d copies, %0d beats out",
                 NAME, packets_released, replay_hist[0], replay_hist[1], replay_hist[2], replay_hist[3],
                 copies_out, beats_out);
        done = 1'b1;
    end

endmodule

module tb_p4f_axis_replay_fifo;
    logic clk;
    initial clk = 1'b0;
    logic rst = 1'b1;
    always #2 clk = ~clk;

    logic [3:0] done;
    int         fails;

    replay_bench #(.DATA_W(64),  .USER_W(3),  .DEPTH(8),  .MAX_BEATS(8),  .SALT(1),
                   .NAME("d8 pkt1-8"))        b0 (.clk, .rst, .done(done[0]));
    replay_bench #(.DATA_W(8),   .USER_W(1),  .DEPTH(2),  .MAX_BEATS(2),  .SALT(2),
                   .NAME("d2 pkt1-2 w8"))     b1 (.clk, .rst, .done(done[1]));
    replay_bench #(.DATA_W(64),  .USER_W(3),  .DEPTH(16), .MAX_BEATS(14), .SALT(3),
                   .NAME("d16 pkt1-14"))      b2 (.clk, .rst, .done(done[2]));
    replay_bench #(.DATA_W(512), .USER_W(16), .DEPTH(32), .MAX_BEATS(32), .SALT(4),
                   .NAME("d32 pkt1-32 w512")) b3 (.clk, .rst, .done(done[3]));

    initial begin
        repeat (5) @(posedge clk);
        // Released between edges so no flop sees it change at its own edge.
        @(negedge clk) rst = 1'b0;
        $display("tb_p4f_axis_replay_fifo: seed %0d", p4f_tb_pkg::run_seed());
        wait (&done);
        fails = b0.errors + b1.errors + b2.errors + b3.errors;
        if (fails == 0) begin
            $display("PASS tb_p4f_axis_replay_fifo (seed %0d): 4 configurations, %0d packets, %0d copies, %0d beats checked",
                     p4f_tb_pkg::run_seed(),
                     b0.packets_released + b1.packets_released + b2.packets_released + b3.packets_released,
                     b0.copies_out + b1.copies_out + b2.copies_out + b3.copies_out,
                     b0.beats_out + b1.beats_out + b2.beats_out + b3.beats_out);
            $finish;
        end else begin
            $fatal(1, "FAIL tb_p4f_axis_replay_fifo (seed %0d): %0d errors", p4f_tb_pkg::run_seed(), fails);
        end
    end
endmodule

`default_nettype wire

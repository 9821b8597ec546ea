// Testbench for p4f_pkt_gen: 40 runs per seed, each on templates written through the write port
// with random idle cycles (1-5 packets of 1-10 beats, sometimes one of 17-40 beats so the stamp's
// byte position must stop counting; random data, tkeep and tuser; junk beats after tpl_end;
// a third of the time tpl_end's beat stored without tlast, which the generator must add). Each run
// has random backpressure (0, 5, 30, 50 or 90 % of cycles), a random gap (0 half the time, else
// 1-6 cycles), sequence stamping on or off at a random offset (0-31 bytes: at the packet's start,
// straddling beats of 4 bytes, past its end), and sends a random count of packets (1-40) or
// runs until a stop pulse; some counted runs are stopped early too, and start pulses while busy
// (with other settings) must be ignored.
//
// The model replays the templates: every beat out must be the next template beat (cyclically,
// from beat 0 at each start) with the sequence number of its packet in the run stamped where
// asked, bit for bit. Checked every cycle: a stalled beat stays unchanged; no cycle without
// tvalid inside a packet; after each packet's last beat exactly `gap` idle cycles before the next
// packet of the run (whatever the backpressure); the first beat two cycles after start when no
// gap is pending; pkts_sent and beats_sent equal the model's counts; busy is high exactly until
// the last packet's last beat is taken (a counted run sends exactly count packets), low after,
// and nothing leaves while it is low. After a stop the run ends at a packet boundary with the
// packets already started (on m_axis, or the one beat read ahead) and no other. A stall-free run
// with gap 0 must send one beat per cycle from first beat to last (p4f_tb_axis_rate).
// Pacing (period): 8 runs of 30 packets with a random fixed-point period (whole cycles above the
// longest packet, random fraction). Without backpressure packet k's first beat must show exactly
// ceil(k * period) cycles after the first packet's (so the average rate is exact); with random
// backpressure no start may come before that time. Every beat is still checked against the
// model. `hw/tb/mutants.sh p4f_pkt_gen` shows generators that drop or do not carry the fraction failing this.
// +seed=N.
`timescale 1ns / 1ps
`default_nettype none

module tb_p4f_pkt_gen;
    import p4f_tb_pkg::*;

    localparam int DATA_W    = 32;
    localparam int KEEP_W    = DATA_W / 8;
    localparam int USER_W    = 2;
    localparam int DEPTH     = 64;
    localparam int ADDR_W    = $clog2(DEPTH);
    localparam int CNT_W     = 16;
    localparam int GAP_W     = 4;
    localparam int SEQ_W     = 32;
    localparam int OFF_W     = 5;
    localparam int WORD_W    = DATA_W + KEEP_W + USER_W + 1;
    localparam int SEQ_BYTES = SEQ_W / 8;
    localparam int RUNS      = 40;
    localparam int PER_W     = 16;
    localparam int PER_FRAC  = 8;

    logic clk;
    initial clk = 1'b0;
    logic rst = 1'b1;
    always #2 clk = ~clk;

    logic              tpl_we = 1'b0, tpl_last = 1'b0;
    logic [ADDR_W-1:0] tpl_addr = '0, tpl_end = '0;
    logic [DATA_W-1:0] tpl_data = '0;
    logic [KEEP_W-1:0] tpl_keep = '0;
    logic [USER_W-1:0] tpl_user = '0;
    logic              start = 1'b0, stop = 1'b0, seq_en = 1'b0;
    logic [CNT_W-1:0]  count = '0;
    logic [GAP_W-1:0]  gap = '0;
    logic [PER_W-1:0]  period = '0;
    logic [OFF_W-1:0]  seq_offset = '0;
    logic [DATA_W-1:0] m_tdata;
    logic [KEEP_W-1:0] m_tkeep;
    logic [USER_W-1:0] m_tuser;
    logic              m_tvalid, m_tready, m_tlast, busy;
    logic [CNT_W-1:0]  pkts_sent, beats_sent;

    p4f_pkt_gen #(.DATA_W(DATA_W), .USER_W(USER_W), .DEPTH(DEPTH), .CNT_W(CNT_W), .GAP_W(GAP_W),
                  .SEQ_W(SEQ_W), .OFF_W(OFF_W), .PER_W(PER_W), .PER_FRAC(PER_FRAC)) dut (
        .clk, .rst,
        .tpl_we, .tpl_addr, .tpl_data, .tpl_keep, .tpl_last, .tpl_user,
        .start, .stop, .count, .gap, .period, .tpl_end, .seq_en, .seq_offset,
        .m_axis_tdata(m_tdata), .m_axis_tkeep(m_tkeep), .m_axis_tvalid(m_tvalid),
        .m_axis_tready(m_tready), .m_axis_tlast(m_tlast), .m_axis_tuser(m_tuser),
        .busy, .pkts_sent, .beats_sent);

    prng rng, stall_rng;
    initial begin
        rng       = new(run_seed() ^ 64'h9e4_0001);
        stall_rng = new(run_seed() ^ 64'h9e4_0002);
    end

    int unsigned errors = 0;
    function automatic void fail(input string what);
        errors++;
        if (errors <= 10) $display("[%0t] ERROR %s", $time, what);
    endfunction

    // ---- the templates as the generator must play them (tpl_end's beat with tlast)
    logic [WORD_W-1:0] tpl [DEPTH];
    int unsigned       tpl_beats = 1;

    // ---- the model of the run, updated at each clock edge (blocking state)
    int unsigned     stall_pct = 0;
    bit              run_on = 1'b0;      // the model's busy: started and not finished
    bit              run_stopped = 1'b0; // a stop was taken during the run
    longint unsigned stop_min = 0, stop_max = 0;  // packets a stopped run may end with
    longint unsigned run_count = 0, run_gap = 0, run_off = 0, run_end = 0, run_period = 0;
    longint unsigned cycle;
    longint unsigned starts [$];         // cycle of each packet's first beat on m_axis (this run)
    bit              run_seq = 1'b0;
    longint unsigned pkts_out = 0, beats_out = 0, runs_done = 0, stopped_runs = 0, gaps_checked = 0;
    int unsigned     idx = 0, pos = 0;   // next template beat, its byte position in its packet
    bit              out_in_pkt = 1'b0, stalled = 1'b0, gap_counting = 1'b0, want_first = 1'b0;
    int unsigned     idle = 0, since_start = 0, since_last = 1000;
    logic [WORD_W-1:0] stalled_word;

    wire logic [WORD_W-1:0] m_word = {m_tlast, m_tuser, m_tkeep, m_tdata};

    function automatic logic [WORD_W-1:0] expected(input int unsigned i, input int unsigned p,
                                                   input longint unsigned seq);
        logic [WORD_W-1:0] w = tpl[i];
        logic [SEQ_W-1:0] s = SEQ_W'(seq);
        if (run_seq) begin
            for (int j = 0; j < KEEP_W; j++) begin
                automatic int rel = int'(p) + j - int'(run_off);
                if (rel >= 0 && rel < SEQ_BYTES) w[j*8 +: 8] = s[(SEQ_BYTES - 1 - rel)*8 +: 8];
            end
        end
        return w;
    endfunction

    /* verilator lint_off BLKSEQ */
    always @(posedge clk) begin
        if (rst) begin
            m_tready <= 1'b0;
        end else begin
            // Values seen here are those of the cycle now ending.
            if (m_tvalid && !out_in_pkt && !stalled) starts.push_back(cycle);
            if (stalled && (!m_tvalid || m_word != stalled_word)) fail("m_axis beat changed or dropped while stalled");
            stalled = m_tvalid && !m_tready;
            stalled_word = m_word;
            if (m_tvalid && !busy) fail("m_axis_tvalid while busy is low");
            if (out_in_pkt && !m_tvalid) fail($sformatf("no beat inside packet %0d", pkts_out));
            if (pkts_sent != CNT_W'(pkts_out) || beats_sent != CNT_W'(beats_out))
                fail($sformatf("pkts_sent %0d beats_sent %0d, want %0d %0d", pkts_sent, beats_sent, pkts_out, beats_out));

            // busy: exactly while the run owes packets; a stopped run may end at a packet
            // boundary once it has sent the packets it had started.
            if (run_on && busy && ((run_count != 0 && pkts_out >= run_count) || (run_stopped && pkts_out >= stop_max))) begin
                fail($sformatf("busy still high after the run's last packet (%0d sent)", pkts_out));
            end
            if (run_on && !busy) begin
                if (!run_stopped) begin
                    if (pkts_out != run_count) fail($sformatf("busy fell after %0d of %0d packets", pkts_out, run_count));
                end else if (out_in_pkt || pkts_out < stop_min || pkts_out > stop_max)
                    fail($sformatf("stopped run ended after %0d packets (in a packet: %b), want %0d..%0d",
                                   pkts_out, out_in_pkt, stop_min, stop_max));
                run_on = 1'b0;
                runs_done++;
            end else if (!run_on && busy) begin
                fail("busy without a run");
            end

            // Idle cycles after a last beat, then the first beat after start.
            if (gap_counting && run_period == 0) begin
                if (m_tvalid) begin
                    if (longint'(idle) != run_gap) fail($sformatf("%0d idle cycles after packet %0d, gap is %0d", idle, pkts_out, run_gap));
                    gaps_checked++;
                    gap_counting = 1'b0;
                end else begin
                    idle++;
                end
            end
            since_start++;
            since_last++;
            if (want_first && m_tvalid) begin
                if (since_start != 3) fail($sformatf("first beat shows %0d cycles after start, want 2", since_start - 1));
                want_first = 1'b0;
            end

            if (m_tvalid && m_tready) begin
                logic [WORD_W-1:0] want;
                want = expected(idx, pos, pkts_out);
                if (!run_on) fail("beat with no run");
                else if (m_word != want)
                    fail($sformatf("packet %0d template beat %0d: got last=%b user=%h keep=%h data=%h, want %h",
                                   pkts_out, idx, m_tlast, m_tuser, m_tkeep, m_tdata, want));
                idx = longint'(idx) == run_end ? 0 : idx + 1;
                pos += KEEP_W;
                beats_out++;
                out_in_pkt = !m_tlast;
                if (m_tlast) begin
                    pkts_out++;
                    pos = 0;
                    since_last = 0;
                    // The next packet of this run must follow after exactly `gap` idle cycles.
                    gap_counting = run_count == 0 || pkts_out < run_count;
                    idle = 0;
                    if (run_count != 0 && pkts_out > run_count) fail($sformatf("%0d packets sent, count is %0d", pkts_out, run_count));
                end
            end

            if (stop && run_on && !(start && !busy) && !run_stopped) begin
                // Packets started: the one on m_axis (or being sent), plus at most the one whose
                // first beat was read ahead.
                run_stopped = 1'b1;
                stopped_runs++;
                stop_min = pkts_out + ((m_tvalid && !(m_tready && m_tlast)) || out_in_pkt ? 1 : 0);
                stop_max = stop_min + 1;
                if (run_count != 0 && stop_max > run_count) stop_max = run_count;
                if (stop_min > stop_max) stop_min = stop_max;
            end

            if (start && !busy) begin
                run_on = 1'b1;
                run_stopped = 1'b0;
                run_count = longint'(count);
                run_gap = longint'(gap);
                run_period = longint'(period);
                starts.delete();
                run_seq = seq_en;
                run_off = longint'(seq_offset);
                run_end = longint'(tpl_end);
                pkts_out = 0;
                beats_out = 0;
                idx = 0;
                pos = 0;
                gap_counting = 1'b0;
                since_start = 0;
                // A gap left by the previous run may delay the first beat.
                want_first = since_last > 20;
            end
            m_tready <= stall_rng.below(100) >= stall_pct;
        end
    end
    /* verilator lint_on BLKSEQ */

    logic            measure = 1'b0;
    longint unsigned rate_beats, rate_first, rate_last;
    always @(posedge clk) cycle <= rst ? 0 : cycle + 1;
    /* verilator lint_off PINCONNECTEMPTY */
    p4f_tb_axis_rate u_rate (.clk, .measure, .cycle, .tvalid(m_tvalid), .tready(m_tready),
        .refused(), .beats(rate_beats), .first(rate_first), .last(rate_last));
    /* verilator lint_on PINCONNECTEMPTY */

    // New templates: packets back to back from beat 0, junk after them; random idle cycles
    // between writes.
    task automatic load_templates();
        int unsigned n = 0, npk = 1 + rng.below(5);
        bit          long_one = rng.below(4) == 0;
        logic [WORD_W-1:0] ram [DEPTH];
        for (int p = 0; p < int'(npk); p++) begin
            int unsigned len = (long_one && p == 0) ? 17 + rng.below(24) : 1 + rng.below(10);
            if (n + len > DEPTH) break;
            for (int b = 0; b < int'(len); b++) begin
                tpl[n] = random_bits#(WORD_W)::from(rng);
                tpl[n][WORD_W-1] = b == int'(len) - 1;
                n++;
            end
        end
        tpl_beats = n;
        for (int i = 0; i < DEPTH; i++) ram[i] = i < int'(n) ? tpl[i] : random_bits#(WORD_W)::from(rng);
        if (rng.below(3) == 0) ram[n - 1][WORD_W-1] = 1'b0;  // the generator must end the packet
        for (int i = 0; i < DEPTH; i++) begin
            @(negedge clk);
            while (rng.below(3) == 0) begin
                tpl_we = 1'b0;
                @(negedge clk);
            end
            tpl_we = 1'b1;
            tpl_addr = ADDR_W'(i);
            {tpl_last, tpl_user, tpl_keep, tpl_data} = ram[i];
        end
        @(negedge clk) tpl_we = 1'b0;
    endtask

    // One run: start with the given settings, noise on start (ignored while busy) and maybe a
    // stop after stop_after cycles, then wait for busy to fall.
    task automatic run(input int unsigned cnt, input int unsigned g, input int unsigned stall,
                       input int stop_after, input int unsigned per = 0);
        int unsigned t = 0;
        @(negedge clk);
        stall_pct = stall;
        start = 1'b1;
        count = CNT_W'(cnt);
        gap = GAP_W'(g);
        period = PER_W'(per);
        tpl_end = ADDR_W'(tpl_beats - 1);
        seq_en = rng.below(2) == 0;
        seq_offset = OFF_W'(rng.below(32));
        @(negedge clk);
        start = 1'b0;
        while (busy || run_on) begin
            // Settings and start pulses while busy mean nothing.
            count = CNT_W'(rng.below(5));
            gap = GAP_W'(rng.below(16));
            period = PER_W'(rng.below(1 << PER_W));
            tpl_end = ADDR_W'(rng.below(DEPTH));
            seq_en = rng.below(2) == 0;
            seq_offset = OFF_W'(rng.below(32));
            start = (cnt == 0 || pkts_out + 2 < longint'(cnt)) && !run_stopped && rng.below(20) == 0;
            stop = stop_after >= 0 && t == stop_after;
            t++;
            if (t > 100000) begin
                fail("run does not end");
                break;
            end
            @(negedge clk);
        end
        start = 1'b0;
        stop = 1'b0;
        period = '0;
        // Mostly long enough for the trailing gap to run out; sometimes a start right away.
        repeat (rng.below(4) == 0 ? 0 : 20) @(negedge clk);
    endtask

    int unsigned stalls [5] = '{0, 5, 30, 50, 90};
    initial begin
        automatic longint unsigned pkts_total = 0;
        automatic int unsigned paced_runs = 0;
        repeat (5) @(posedge clk);
        @(negedge clk) rst = 1'b0;
        $display("tb_p4f_pkt_gen: seed %0d, DATA_W %0d, DEPTH %0d", run_seed(), DATA_W, DEPTH);
        // A stop while idle is ignored (the next run must still send its count).
        @(negedge clk) stop = 1'b1;
        @(negedge clk) stop = 1'b0;
        for (int r = 0; r < RUNS; r++) begin
            int unsigned cnt, g, st;
            automatic int stop_after = -1;
            if (r % 3 == 0) load_templates();
            g  = rng.below(2) == 0 ? 0 : 1 + rng.below(6);
            st = stalls[rng.below(5)];
            case (rng.below(4))
                0: begin cnt = 0; stop_after = 5 + int'(rng.below(300)); end    // until stopped
                1: begin cnt = 1 + rng.below(40); stop_after = int'(rng.below(60)); end  // maybe cut
                default: cnt = 1 + rng.below(40);
            endcase
            run(cnt, g, st, stop_after);
            pkts_total += pkts_out;
        end
        // Full line rate: gap 0 and no backpressure, one beat every cycle from first to last.
        load_templates();
        @(negedge clk) measure = 1'b1;
        run(60, 0, 0, -1);
        if (rate_beats != beats_out || rate_last - rate_first + 1 != rate_beats)
            fail($sformatf("line rate: %0d beats over %0d cycles", rate_beats, rate_last - rate_first + 1));
        @(negedge clk) measure = 1'b0;
        pkts_total += pkts_out;
        // Pacing: starts at the fixed-point times, exactly without backpressure, never early with it.
        for (int r = 0; r < 8; r++) begin
            automatic int unsigned per, st = r % 2 == 0 ? 0 : 30;
            load_templates();
            per = (41 + rng.below(20)) * (1 << PER_FRAC) + rng.below(1 << PER_FRAC);
            if (r == 0) per = 10 * (1 << PER_FRAC) + (1 << (PER_FRAC - 1));  // 10.5: 64-byte frames at 10 Gb/s, 156.25 MHz
            if (r == 0) begin
                tpl_beats = 1;  // beat 0 alone, tlast added by the generator
                tpl[0][WORD_W-1] = 1'b1;
            end
            run(30, 0, st, -1, per);
            if (starts.size() != 30) fail($sformatf("paced run: %0d starts seen, want 30", starts.size()));
            else for (int k = 1; k < 30; k++) begin
                automatic longint unsigned ideal = (longint'(k) * per + (1 << PER_FRAC) - 1) >> PER_FRAC;
                automatic longint unsigned got = starts[k] - starts[0];
                if (st == 0 ? got != ideal : got < ideal)
                    fail($sformatf("period %0d/256, stall %0d%%: packet %0d starts %0d cycles after the first, want %s%0d",
                                   per, st, k, got, st == 0 ? "" : ">= ", ideal));
            end
            paced_runs++;
            pkts_total += pkts_out;
        end
        if (runs_done != longint'(RUNS) + 9) fail($sformatf("%0d runs ended, %0d started", runs_done, RUNS + 9));
        if (stopped_runs < 5 || gaps_checked < 100) fail($sformatf("too few stops (%0d) or gaps (%0d) exercised", stopped_runs, gaps_checked));
        if (errors == 0) begin
            $display("PASS tb_p4f_pkt_gen (seed %0d): %0d runs (%0d stopped, %0d paced), %0d packets checked, %0d gaps",
                     run_seed(), runs_done, stopped_runs, paced_runs, pkts_total, gaps_checked);
            $finish;
        end else begin
            $fatal(1, "FAIL tb_p4f_pkt_gen (seed %0d): %0d failed checks", run_seed(), errors);
        end
    end

endmodule

`default_nettype wire

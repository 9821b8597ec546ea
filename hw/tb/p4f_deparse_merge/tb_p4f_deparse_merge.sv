// Testbench for p4f_deparse_merge: four configurations side by side (64-bit bus with a header
// of 20 and of 64 bytes, so headers span many beats and the last header beat is partial; 128-bit
// without the output register; the 512-bit default). Each bench makes random packets (1 byte, a
// beat, a beat plus or minus one, multiples of a beat, anything up to several beats) with random
// descriptors (header 0..HDR_BYTES bytes, skip 0..past the end, equal to the header, a few bytes
// either side of it, drops, random tdest, garbage beyond d_hdr_len; length limit d_max_len
// 16'hFFFF half the time, otherwise 0, 1, inside the header bytes, the output length, one less,
// anything below it, a beat edge, or a little above it), drives descriptors and packets as two
// independent random-idle sources, and checks every output beat (data, tkeep, tlast, tdest, zero
// bytes beyond tkeep, stable while stalled) against the model
// (hdr[0..hdr_len) ++ packet[skip..end]) cut to its first max_len bytes. Throughput phases:
// packets whose output is one beat go at one packet per cycle (in and out); packets whose output
// is at least their input go at one output beat per cycle; cut packets (header = skip, at most a
// beat) take an input beat every cycle and their last output beat leaves within the module's
// latency (3 cycles, 2 without OUT_REG) of the input beat holding the cut, not at the input's
// end. In every phase, the input beats after a cut in the payload are never refused. +seed=N.
`timescale 1ns / 1ps
`default_nettype none
// The drivers and the scoreboard keep their queues and counters as blocking state.
/* verilator lint_off BLKSEQ */

module merge_bench #(
    parameter int DATA_W    = 64,
    parameter int HDR_BYTES = 64,
    parameter bit OUT_REG   = 1'b1,
    parameter int SALT      = 0,
    parameter string NAME   = "merge"
) (
    input  wire logic clk,
    input  wire logic rst,
    output logic      done
);
    import p4f_tb_pkg::*;
    localparam int W       = DATA_W / 8;
    localparam int DEST_W  = 9;
    localparam int LATENCY = OUT_REG ? 3 : 2; // input beat taken to output beat taken, no stalls
    // Cycles a throughput phase's first input beats wait for the first descriptor to cross the
    // module's two descriptor stages: the only refusals such a phase allows.
    localparam int DESC_FILL = 2;
    localparam int NO_LIMIT = 'hFFFF;         // d_max_len that cuts nothing

    logic                   d_valid, d_ready, d_drop, d_replay, s_replay;
    logic [HDR_BYTES*8-1:0] d_hdr_data;
    logic [15:0]            d_hdr_len, d_skip_len, d_max_len;
    logic [DEST_W-1:0]      d_dest;
    logic [DATA_W-1:0]      s_tdata, m_tdata;
    logic [W-1:0]           s_tkeep, m_tkeep;
    logic                   s_tvalid, s_tready, s_tlast, m_tvalid, m_tready, m_tlast;
    logic [DEST_W-1:0]      m_tdest;

    p4f_deparse_merge #(.DATA_W(DATA_W), .HDR_BYTES(HDR_BYTES), .DEST_W(DEST_W), .OUT_REG(OUT_REG)) dut (
        .clk, .rst,
        .d_valid, .d_ready, .d_hdr_data, .d_hdr_len, .d_skip_len, .d_max_len, .d_drop, .d_replay, .d_dest,
        .s_axis_tdata(s_tdata), .s_axis_tkeep(s_tkeep), .s_axis_tvalid(s_tvalid),
        .s_axis_tready(s_tready), .s_axis_tlast(s_tlast), .s_axis_replay(s_replay),
        .m_axis_tdata(m_tdata), .m_axis_tkeep(m_tkeep), .m_axis_tvalid(m_tvalid),
        .m_axis_tready(m_tready), .m_axis_tlast(m_tlast), .m_axis_tdest(m_tdest));

    prng gen_rng, d_rng, s_rng, m_rng;
    initial begin
        gen_rng = new(run_seed() ^ (64'h6e6_0000 + longint'(SALT)));
        d_rng   = new(run_seed() ^ (64'hd0d_0000 + longint'(SALT)));
        s_rng   = new(run_seed() ^ (64'h5a5_0000 + longint'(SALT)));
        m_rng   = new(run_seed() ^ (64'h3e3_0000 + longint'(SALT)));
    end

    int unsigned d_idle_pct = 0, s_idle_pct = 0, stall_pct = 0;

    // What the drivers still have to send and what the sink still expects.
    logic [HDR_BYTES*8-1:0] dq_hdr [$];
    int                     dq_hlen [$], dq_skip [$], dq_max [$];
    bit                     dq_drop [$];
    logic [DEST_W-1:0]      dq_dest [$];
    bit                     dq_replay [$], in_replay_q [$]; // per descriptor; per input packet
    int                     in_len_q [$];
    byte unsigned           in_bytes_q [$];
    int                     exp_len_q [$];
    logic [DEST_W-1:0]      exp_dest_q [$];
    byte unsigned           exp_bytes_q [$];
    // The latency check of cut packets: per input packet and per expected output packet, the
    // index of the input beat holding the output's last byte (-1: not checked), and the cycles
    // at which those input beats were taken.
    int                     in_cut_beat_q [$], exp_cut_beat_q [$];
    longint unsigned        cut_cycle_q [$];
    // Per input packet cut inside its payload before its last beat, the index of the beat
    // holding the cut (-1: none): the beats after it must never be refused, stalls or not.
    int                     in_tail_q [$];

    int  errors = 0;
    int  long_headers = 0;   // packets made with a header of more than one beat
    // Packets whose output the limit cut: in the payload, inside the header bytes, to nothing.
    int  cut_payload = 0, cut_header = 0, cut_empty = 0;
    longint unsigned packets_out = 0, beats_out = 0, packets_in = 0, packets_made = 0;

    function automatic void fail(input string what);
        errors++;
        if (errors <= 10) $display("[%0t] %s: ERROR %s", $time, NAME, what);
    endfunction

    // A packet length that hits the beat edges often.
    function automatic int pick_len(input int max_len);
        int k = 1 + int'(gen_rng.below(4));
        case (gen_rng.below(8))
            0: return 1;
            1: return W;
            2: return W + 1;
            3: return k * W;
            4: return k * W + 1;
            5: return k * W - 1 > 0 ? k * W - 1 : 1;
            default: return 1 + int'(gen_rng.below(max_len));
        endcase
    endfunction

    // A length limit for an output of out_len bytes whose header part is hlen bytes: no limit
    // half the time, otherwise mostly a cut.
    function automatic int pick_max(input int out_len, input int hlen);
        case (gen_rng.below(16))
            0: return 0;
            1: return 1;
            2: return hlen > 0 ? int'(gen_rng.below(hlen)) : 0;   // inside the header bytes
            3: return out_len;
            4: return out_len > 0 ? out_len - 1 : 0;
            5: return int'(gen_rng.below(out_len + 1));
            6: return W * (1 + int'(gen_rng.below(3))) + int'(gen_rng.below(3)) - 1; // a beat edge
            7: return out_len + 1 + int'(gen_rng.below(2 * W));  // above: cuts nothing
            default: return NO_LIMIT;
        endcase
    endfunction

    // Make one packet and its descriptor; queue both and the expected output.
    // mode 0: anything; 1: output fits one beat and is not empty; 2: output >= input, not empty;
    // 3: header = skip (at most a beat), output cut to 1..its length bytes, latency checked.
    task automatic make_packet(input int mode);
        int len, hlen, skip, out_len, max_len, cut_beat, tail_beat;
        bit drop;
        logic [HDR_BYTES*8-1:0] hdr;
        logic [DEST_W-1:0] dest;
        byte unsigned pkt [];
        for (int i = 0; i < HDR_BYTES; i++) hdr[i*8 +: 8] = 8'(gen_rng.next());
        dest = DEST_W'(gen_rng.next());
        drop = 1'b0;
        if (mode == 1) begin
            // Around one beat: skip and header equal, or a few bytes apart, output <= W.
            len  = W - int'(gen_rng.below(W < 8 ? W : 8));
            skip = int'(gen_rng.below(len + 1));
            if (skip > HDR_BYTES) skip = HDR_BYTES;
            hlen = skip - int'(gen_rng.below(4)) + (gen_rng.below(3) == 0 ? W - len : 0);
            if (hlen < 0) hlen = 0;
            if (hlen > HDR_BYTES) hlen = HDR_BYTES;
            if (hlen + len - skip <= 0) hlen = 1;
        end else if (mode == 2) begin
            len  = pick_len(4 * W);
            skip = int'(gen_rng.below((len < HDR_BYTES ? len : HDR_BYTES) + 1));
            hlen = skip + int'(gen_rng.below(HDR_BYTES - skip + 1));
            if (hlen == 0) hlen = 1;
        end else if (mode == 3) begin
            skip = int'(gen_rng.below((W < HDR_BYTES ? W : HDR_BYTES) + 1));
            hlen = skip;
            len  = skip + pick_len(4 * W);
        end else begin
            len = pick_len(HDR_BYTES + 4 * W);
            case (gen_rng.below(6))
                0: hlen = 0;
                1: hlen = HDR_BYTES;
                2: hlen = W < HDR_BYTES ? W : HDR_BYTES;
                default: hlen = int'(gen_rng.below(HDR_BYTES + 1));
            endcase
            case (gen_rng.below(6))
                0: skip = 0;
                1: skip = hlen;
                2: skip = hlen + int'(gen_rng.below(9)) - 4;
                3: skip = len + int'(gen_rng.below(2 * W));    // past the end
                default: skip = int'(gen_rng.below(len + 1));
            endcase
            if (skip < 0) skip = 0;
            drop = gen_rng.below(16) == 0;
            // Now and then a header longer than HDR_BYTES: it must count as HDR_BYTES.
            if (gen_rng.below(32) == 0) hlen = HDR_BYTES + 1 + int'(gen_rng.below(100));
        end
        if (hlen > W) long_headers++;
        pkt = new[len];
        for (int i = 0; i < len; i++) pkt[i] = 8'(gen_rng.next());
        for (int i = 0; i < len; i++) in_bytes_q.push_back(pkt[i]);
        in_len_q.push_back(len);
        dq_hdr.push_back(hdr); dq_hlen.push_back(hlen); dq_skip.push_back(skip);
        dq_drop.push_back(drop); dq_dest.push_back(dest);
        begin
            bit replay = gen_rng.below(2) != 0;
            dq_replay.push_back(replay); in_replay_q.push_back(replay);
        end
        if (hlen > HDR_BYTES) hlen = HDR_BYTES;
        out_len = hlen + (len > skip ? len - skip : 0);
        // The limit: any in mode 0; in mode 1 never 0 (one beat out per packet); in mode 2 none
        // or at least the output (the output stays at least the input); in mode 3 1..out_len.
        case (mode)
            0: max_len = pick_max(out_len, hlen);
            1: max_len = gen_rng.below(2) == 0 ? NO_LIMIT : 1 + int'(gen_rng.below(out_len));
            2: max_len = gen_rng.below(4) != 0 ? NO_LIMIT : out_len + int'(gen_rng.below(3));
            default: max_len = 1 + int'(gen_rng.below(out_len));
        endcase
        if (max_len > NO_LIMIT) max_len = NO_LIMIT;
        dq_max.push_back(max_len);
        if (!drop && max_len < out_len) begin
            if (max_len == 0) cut_empty++;
            else if (max_len < hlen) cut_header++;
            else cut_payload++;
        end
        // With header = skip, output byte i is input byte i (the header bytes go in with beat 0).
        cut_beat = mode == 3 ? (max_len - 1) / W : -1;
        in_cut_beat_q.push_back(cut_beat);
        tail_beat = -1;
        if (!drop && max_len > hlen && max_len < out_len && (skip + max_len - hlen - 1) / W < (len - 1) / W)
            tail_beat = (skip + max_len - hlen - 1) / W;
        in_tail_q.push_back(tail_beat);
        if (max_len < out_len) out_len = max_len;
        if (!drop && out_len > 0) begin
            for (int i = 0; i < hlen && i < out_len; i++) exp_bytes_q.push_back(hdr[i*8 +: 8]);
            for (int i = skip; i < len && i - skip + hlen < out_len; i++) exp_bytes_q.push_back(pkt[i]);
            exp_len_q.push_back(out_len);
            exp_dest_q.push_back(dest);
            exp_cut_beat_q.push_back(cut_beat);
        end
        packets_made++;
    endtask

    // ---- descriptor source
    always @(posedge clk) begin
        if (rst) begin
            d_valid <= 1'b0;
        end else begin
            if (d_valid && d_ready) begin
                void'(dq_hdr.pop_front()); void'(dq_hlen.pop_front()); void'(dq_skip.pop_front());
                void'(dq_max.pop_front()); void'(dq_drop.pop_front()); void'(dq_dest.pop_front());
                void'(dq_replay.pop_front());
            end
            if (!d_valid || d_ready) begin
                // The head of the queue is the descriptor on offer (popped above once taken).
                if (dq_hdr.size() != 0 && d_rng.below(100) >= d_idle_pct) begin
                    d_valid    <= 1'b1;
                    d_hdr_data <= dq_hdr[0];
                    d_hdr_len  <= 16'(dq_hlen[0]);
                    d_skip_len <= 16'(dq_skip[0]);
                    d_max_len  <= 16'(dq_max[0]);
                    d_drop     <= dq_drop[0];
                    d_dest     <= dq_dest[0];
                    d_replay   <= dq_replay[0];
                end else begin
                    d_valid <= 1'b0;
                end
            end
        end
    end

    // ---- packet source: beats cut from the byte queue
    int in_left = 0;   // bytes of the current packet not yet put on the bus
    int in_beat = 0;   // index in its packet of the beat on the bus
    always @(posedge clk) begin
        if (rst) begin
            s_tvalid <= 1'b0;
        end else begin
            if (s_tvalid && !s_tready && in_tail_q[0] >= 0 && in_beat > in_tail_q[0])
                fail($sformatf("input packet %0d: beat %0d, after the cut, refused", packets_in, in_beat));
            if (s_tvalid && s_tready) begin
                if (s_replay != in_replay_q[0])
                    fail($sformatf("input packet %0d: s_axis_replay %0b, its descriptor's d_replay %0b", packets_in, s_replay, in_replay_q[0]));
                if (in_beat == in_cut_beat_q[0]) cut_cycle_q.push_back(cycle);
                in_beat++;
                if (s_tlast) begin
                    void'(in_cut_beat_q.pop_front());
                    void'(in_tail_q.pop_front());
                    void'(in_replay_q.pop_front());
                    in_beat = 0;
                    packets_in++;
                end
            end
            if (!s_tvalid || s_tready) begin
                if ((in_left != 0 || in_len_q.size() != 0) && s_rng.below(100) >= s_idle_pct) begin
                    int n;
                    if (in_left == 0) in_left = in_len_q.pop_front();
                    n = in_left < W ? in_left : W;
                    for (int i = 0; i < W; i++) begin
                        s_tdata[i*8 +: 8] <= i < n ? in_bytes_q.pop_front() : 8'(s_rng.next());
                        s_tkeep[i] <= i < n;
                    end
                    in_left -= n;
                    s_tlast  <= in_left == 0;
                    s_tvalid <= 1'b1;
                end else begin
                    s_tvalid <= 1'b0;
                end
            end
        end
    end

    // ---- sink: random backpressure, every beat checked
    int exp_left = 0;
    logic stalled;
    logic [DATA_W+W+1+DEST_W-1:0] stalled_beat;
    wire logic [DATA_W+W+1+DEST_W-1:0] beat = {m_tdata, m_tkeep, m_tlast, m_tdest};
    always @(posedge clk) begin
        if (rst) begin
            m_tready <= 1'b0;
            stalled <= 1'b0;
        end else begin
            if (stalled && !m_tvalid) fail("tvalid dropped before the beat was taken");
            else if (stalled && beat != stalled_beat) fail("beat changed while stalled");
            stalled <= m_tvalid && !m_tready;
            stalled_beat <= beat;
            if (m_tvalid && m_tready) begin
                if (exp_left == 0 && exp_len_q.size() == 0) begin
                    fail("output beat with no packet expected");
                end else begin
                    int n;
                    logic [DATA_W-1:0] d;
                    logic [W-1:0] k;
                    logic [DEST_W-1:0] dest;
                    longint unsigned t_in;
                    if (exp_left == 0) exp_left = exp_len_q.pop_front();
                    dest = exp_dest_q[0];
                    n = exp_left < W ? exp_left : W;
                    for (int i = 0; i < W; i++) begin
                        d[i*8 +: 8] = i < n ? exp_bytes_q.pop_front() : 8'h00;
                        k[i] = i < n;
                    end
                    exp_left -= n;
                    if (m_tdata != d || m_tkeep != k || m_tlast != (exp_left == 0) || m_tdest != dest)
                        fail($sformatf("packet %0d beat: got data=%h keep=%h last=%b dest=%h, want data=%h keep=%h last=%b dest=%h",
                             packets_out, m_tdata, m_tkeep, m_tlast, m_tdest, d, k, exp_left == 0, dest));
                    if (exp_left == 0) begin
                        void'(exp_dest_q.pop_front());
                        // A cut output ends when the beat holding the cut goes in, not at tlast.
                        if (exp_cut_beat_q.pop_front() >= 0) begin
                            if (cut_cycle_q.size() == 0) begin
                                fail($sformatf("packet %0d: last beat out before the beat holding the cut went in", packets_out));
                            end else begin
                                t_in = cut_cycle_q.pop_front();
                                if (cycle - t_in > longint'(LATENCY))
                                    fail($sformatf("packet %0d: last beat out %0d cycles after the beat holding the cut went in, want <= %0d",
                                         packets_out, cycle - t_in, LATENCY));
                            end
                        end
                        packets_out++;
                    end
                end
                beats_out++;
            end
            m_tready <= m_rng.below(100) >= stall_pct;
        end
    end

    // ---- throughput monitors
    logic            measure = 1'b0;
    longint unsigned cycle, s_refused, d_refused, m_beats, m_first, m_last, d_taken;
    always @(posedge clk) cycle <= rst ? 0 : cycle + 1;
    /* verilator lint_off PINCONNECTEMPTY */
    p4f_tb_axis_rate u_s_rate (.clk, .measure, .cycle, .tvalid(s_tvalid), .tready(s_tready),
        .refused(s_refused), .beats(), .first(), .last());
    p4f_tb_axis_rate u_d_rate (.clk, .measure, .cycle, .tvalid(d_valid), .tready(d_ready),
        .refused(d_refused), .beats(d_taken), .first(), .last());
    p4f_tb_axis_rate u_m_rate (.clk, .measure, .cycle, .tvalid(m_tvalid), .tready(m_tready),
        .refused(), .beats(m_beats), .first(m_first), .last(m_last));
    /* verilator lint_on PINCONNECTEMPTY */

    task automatic check(input bit ok, input string what);
        if (!ok) fail(what);
    endtask

    task automatic phase(input string name, input int unsigned d_idle, input int unsigned s_idle,
                         input int unsigned stall, input int packets, input int mode);
        longint unsigned t0 = cycle;
        @(negedge clk);
        d_idle_pct = d_idle; s_idle_pct = s_idle; stall_pct = stall;
        for (int i = 0; i < packets; i++) make_packet(mode);
        while (exp_len_q.size() != 0 || exp_left != 0 || in_len_q.size() != 0 || in_left != 0
               || dq_hdr.size() != 0 || s_tvalid || d_valid) begin
            @(posedge clk);
            if (cycle - t0 > 200000) begin
                fail($sformatf("%s: timeout: %0d packets expected out, %0d descriptors left", name,
                     exp_len_q.size(), dq_hdr.size()));
                return;
            end
        end
        repeat (6) @(posedge clk);
        check(!m_tvalid, $sformatf("%s: output beat after the last expected one", name));
        $display("%s: phase %-30s d-idle %2d%% s-idle %2d%% stall %2d%%: %0d packets out of %0d, %0d beats, %0d cycles",
                 NAME, name, d_idle, s_idle, stall, packets_out, packets_made, beats_out, cycle - t0);
    endtask

    initial begin
        done = 1'b0;
        @(negedge rst);
        phase("idle and backpressure", 30, 30, 30, 800, 0);
        phase("heavy backpressure", 5, 5, 90, 300, 0);
        phase("heavy idle", 90, 90, 5, 300, 0);
        phase("descriptors late", 80, 0, 10, 400, 0);
        phase("packets late", 0, 80, 10, 400, 0);
        phase("no stalls, any packets", 0, 0, 0, 800, 0);

        // One-beat outputs: one packet per cycle, in and out.
        @(negedge clk) measure = 1'b1;
        phase("one-beat outputs (throughput)", 0, 0, 0, 300, 1);
        check(s_refused <= longint'(DESC_FILL) && d_refused == 0,
              $sformatf("one-beat throughput: input refused %0d times, descriptor %0d times", s_refused, d_refused));
        check(m_beats == 300 && m_last - m_first + 1 == m_beats,
              $sformatf("one-beat throughput: %0d beats over %0d cycles", m_beats, m_last - m_first + 1));
        $display("%s: one-beat outputs: %0d packets in %0d cycles", NAME, m_beats, m_last - m_first + 1);
        @(negedge clk) measure = 1'b0;

        // Output at least as long as the input: one output beat per cycle, except for at most
        // one idle cycle per packet whose header is longer than a beat.
        @(negedge clk) begin measure = 1'b1; long_headers = 0; end
        phase("growing outputs (throughput)", 0, 0, 0, 200, 2);
        check(m_last - m_first + 1 <= m_beats + longint'(long_headers),
              $sformatf("beat throughput: %0d beats over %0d cycles, %0d packets with long headers",
                        m_beats, m_last - m_first + 1, long_headers));
        $display("%s: growing outputs: %0d beats in %0d cycles (%0d packets with headers over a beat)",
                 NAME, m_beats, m_last - m_first + 1, long_headers);
        @(negedge clk) measure = 1'b0;

        // Cut outputs: an input beat every cycle (the beats after the cut are discarded at
        // that rate), and the latency check of every packet's last output beat.
        @(negedge clk) measure = 1'b1;
        phase("cut outputs (throughput)", 0, 0, 0, 300, 3);
        check(s_refused <= longint'(DESC_FILL), $sformatf("cut outputs: input refused %0d times", s_refused));
        @(negedge clk) measure = 1'b0;

        phase("idle and backpressure again", 40, 40, 40, 800, 0);
        // The limit must have cut payloads, header bytes and whole outputs.
        check(cut_payload > 0 && cut_header > 0 && cut_empty > 0,
              $sformatf("cuts made: %0d in the payload, %0d in the header, %0d to nothing", cut_payload, cut_header, cut_empty));
        $display("%s: cut outputs: %0d in the payload, %0d in the header bytes, %0d to nothing",
                 NAME, cut_payload, cut_header, cut_empty);
        done = 1'b1;
    end

endmodule

module tb_p4f_deparse_merge;
    logic clk;
    initial clk = 1'b0;
    logic rst = 1'b1;
    always #2 clk = ~clk;

    logic [3:0] done;
    int         fails;

    merge_bench #(.DATA_W(64),  .HDR_BYTES(20), .OUT_REG(1'b1), .SALT(1), .NAME("w64 h20"))  b0 (.clk, .rst, .done(done[0]));
    merge_bench #(.DATA_W(64),  .HDR_BYTES(64), .OUT_REG(1'b1), .SALT(2), .NAME("w64 h64"))  b1 (.clk, .rst, .done(done[1]));
    merge_bench #(.DATA_W(128), .HDR_BYTES(40), .OUT_REG(1'b0), .SALT(3), .NAME("w128 h40 noreg")) b2 (.clk, .rst, .done(done[2]));
    merge_bench #(.DATA_W(512), .HDR_BYTES(64), .OUT_REG(1'b1), .SALT(4), .NAME("w512 h64")) b3 (.clk, .rst, .done(done[3]));

    initial begin
        repeat (5) @(posedge clk);
        @(negedge clk) rst = 1'b0;
        $display("tb_p4f_deparse_merge: seed %0d", p4f_tb_pkg::run_seed());
        wait (&done);
        fails = b0.errors + b1.errors + b2.errors + b3.errors;
        if (fails == 0) begin
            $display("PASS tb_p4f_deparse_merge (seed %0d): 4 configurations, %0d packets out (%0d cut)",
                     p4f_tb_pkg::run_seed(), b0.packets_out + b1.packets_out + b2.packets_out + b3.packets_out,
                     b0.cut_payload + b0.cut_header + b1.cut_payload + b1.cut_header
                     + b2.cut_payload + b2.cut_header + b3.cut_payload + b3.cut_header);
            $finish;
        end else begin
            $fatal(1, "FAIL tb_p4f_deparse_merge (seed %0d): %0d errors", p4f_tb_pkg::run_seed(), fails);
        end
    end
endmodule

/* verilator lint_on BLKSEQ */
`default_nettype wire

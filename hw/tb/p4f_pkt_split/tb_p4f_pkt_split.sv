// Testbench for p4f_pkt_split: five configurations side by side (64-bit bus with a 20-byte and
// a 64-byte window, so windows span several beats and end mid-beat; a 1-byte window on 128 bits;
// 512 bits with the default 64-byte window and with a 100-byte one; offering at the window or
// only at tlast; payload register or not). Random packets (1 byte, a beat, a beat plus or minus
// one, multiples of a beat, anything up to several beats past the window) with random tuser per
// beat; random idle on the input and independent random backpressure on the payload output and
// on the descriptor output. Every payload beat must equal the input beat; every descriptor is
// checked against a model (data zero-padded, len, first beat's tuser, pkt_len). Throughput
// phases: no refusal on the input, payload beats every cycle, and for single-beat packets one
// descriptor per cycle; descriptors 1 cycle after the beat that completes them. +seed=N.
`timescale 1ns / 1ps
`default_nettype none
// The drivers and the scoreboards keep their queues and counters as blocking state.
/* verilator lint_off BLKSEQ */

module split_bench #(
    parameter int DATA_W        = 64,
    parameter int USER_W        = 3,
    parameter int WIN_BYTES     = 20,
    parameter bit WAIT_FOR_LAST = 1'b0,
    parameter bit PAYLOAD_REG   = 1'b1,
    parameter int SALT          = 0,
    parameter string NAME       = "split"
) (
    input  wire logic clk,
    input  wire logic rst,
    output logic      done
);
    import p4f_tb_pkg::*;
    localparam int W      = DATA_W / 8;
    localparam int BEAT_W = DATA_W + W + 1 + USER_W;
    localparam int DESC_W = WIN_BYTES * 8 + 16 + USER_W + 16;

    logic [DATA_W-1:0]      s_tdata, m_tdata;
    logic [W-1:0]           s_tkeep, m_tkeep;
    logic [USER_W-1:0]      s_tuser, m_tuser, win_user;
    logic                   s_tvalid, s_tready, s_tlast, m_tvalid, m_tready, m_tlast;
    logic                   win_valid, win_ready;
    logic [WIN_BYTES*8-1:0] win_data;
    logic [15:0]            win_len, win_pkt_len;

    p4f_pkt_split #(.DATA_W(DATA_W), .USER_W(USER_W), .WIN_BYTES(WIN_BYTES),
                    .WAIT_FOR_LAST(WAIT_FOR_LAST), .PAYLOAD_REG(PAYLOAD_REG)) dut (
        .clk, .rst,
        .s_axis_tdata(s_tdata), .s_axis_tkeep(s_tkeep), .s_axis_tvalid(s_tvalid),
        .s_axis_tready(s_tready), .s_axis_tlast(s_tlast), .s_axis_tuser(s_tuser),
        .m_axis_tdata(m_tdata), .m_axis_tkeep(m_tkeep), .m_axis_tvalid(m_tvalid),
        .m_axis_tready(m_tready), .m_axis_tlast(m_tlast), .m_axis_tuser(m_tuser),
        .win_valid, .win_ready, .win_data, .win_len, .win_user, .win_pkt_len);

    prng gen_rng, s_rng, m_rng, w_rng;
    initial begin
        gen_rng = new(run_seed() ^ (64'h6e6_1000 + longint'(SALT)));
        s_rng   = new(run_seed() ^ (64'h5a5_1000 + longint'(SALT)));
        m_rng   = new(run_seed() ^ (64'h3e3_1000 + longint'(SALT)));
        w_rng   = new(run_seed() ^ (64'h7e7_1000 + longint'(SALT)));
    end

    int unsigned idle_pct = 0, m_stall_pct = 0, w_stall_pct = 0;

    logic [BEAT_W-1:0] send_q [$];   // beats still to drive
    logic [BEAT_W-1:0] pay_q [$];    // beats the payload output still owes
    logic [DESC_W-1:0] desc_q [$];   // descriptors the window output still owes
    int                comp_q [$];   // for each beat: 1 if it completes a descriptor

    int errors = 0;
    longint unsigned packets_made = 0, beats_out = 0, descs_out = 0;

    function automatic void fail(input string what);
        errors++;
        if (errors <= 10) $display("[%0t] %s: ERROR %s", $time, NAME, what);
    endfunction

    function automatic int pick_len(input int max_len);
        int k = 1 + int'(gen_rng.below(4));
        case (gen_rng.below(9))
            0: return 1;
            1: return W;
            2: return W + 1;
            3: return k * W;
            4: return k * W + 1;
            5: return k * W - 1 > 0 ? k * W - 1 : 1;
            6: return WIN_BYTES + int'(gen_rng.below(3)) - (WIN_BYTES > 1 ? 1 : 0);
            default: return 1 + int'(gen_rng.below(max_len));
        endcase
    endfunction

    // One packet: its beats, and the descriptor the model says it makes.
    task automatic make_packet(input bit single_beat);
        int len, nbeats, comp_beat;
        byte unsigned pkt [];
        logic [WIN_BYTES*8-1:0] wd;
        logic [USER_W-1:0] first_user;
        int wlen, plen;
        len = single_beat ? 1 + int'(gen_rng.below(W)) : pick_len(WIN_BYTES + 3 * W);
        nbeats = (len + W - 1) / W;
        pkt = new[len];
        for (int i = 0; i < len; i++) pkt[i] = 8'(gen_rng.next());
        // The completing beat: the one holding byte WIN_BYTES-1, or the last.
        comp_beat = WAIT_FOR_LAST || len <= WIN_BYTES ? nbeats - 1 : (WIN_BYTES - 1) / W;
        for (int b = 0; b < nbeats; b++) begin
            logic [DATA_W-1:0] d;
            logic [W-1:0] k;
            logic [USER_W-1:0] u;
            for (int i = 0; i < W; i++) begin
                d[i*8 +: 8] = b * W + i < len ? pkt[b * W + i] : 8'(gen_rng.next());
                k[i] = b * W + i < len;
            end
            u = USER_W'(gen_rng.next());
            if (b == 0) first_user = u;
            send_q.push_back({d, k, b == nbeats - 1, u});
            pay_q.push_back({d, k, b == nbeats - 1, u});
            comp_q.push_back(b == comp_beat ? 1 : 0);
        end
        for (int i = 0; i < WIN_BYTES; i++) wd[i*8 +: 8] = i < len ? pkt[i] : 8'h00;
        wlen = len < WIN_BYTES ? len : WIN_BYTES;
        // The length is known only when the completing beat is the last (65535 otherwise).
        plen = comp_beat == nbeats - 1 ? (len < 65535 ? len : 65535) : 65535;
        desc_q.push_back({16'(plen), first_user, 16'(wlen), wd});
        packets_made++;
    endtask

    // ---- source
    longint unsigned cycle;
    int comp_cycle_q [$];   // cycles in which a completing beat was taken
    always @(posedge clk) cycle <= rst ? 0 : cycle + 1;
    always @(posedge clk) begin
        if (rst) begin
            s_tvalid <= 1'b0;
        end else begin
            if (s_tvalid && s_tready) begin
                if (comp_q.pop_front() != 0) comp_cycle_q.push_back(int'(cycle));
            end
            if (!s_tvalid || s_tready) begin
                if (send_q.size() != 0 && s_rng.below(100) >= idle_pct) begin
                    {s_tdata, s_tkeep, s_tlast, s_tuser} <= send_q.pop_front();
                    s_tvalid <= 1'b1;
                end else begin
                    s_tvalid <= 1'b0;
                end
            end
        end
    end

    // ---- payload sink
    logic m_stalled, w_stalled;
    logic [BEAT_W-1:0] m_stalled_beat;
    logic [DESC_W-1:0] w_stalled_desc;
    wire logic [BEAT_W-1:0] m_beat = {m_tdata, m_tkeep, m_tlast, m_tuser};
    wire logic [DESC_W-1:0] w_desc = {win_pkt_len, win_user, win_len, win_data};
    logic check_latency = 1'b0;
    always @(posedge clk) begin
        if (rst) begin
            m_tready <= 1'b0;
            win_ready <= 1'b0;
            m_stalled <= 1'b0;
            w_stalled <= 1'b0;
        end else begin
            if (m_stalled && !m_tvalid) fail("payload tvalid dropped before the beat was taken");
            else if (m_stalled && m_beat != m_stalled_beat) fail("payload beat changed while stalled");
            if (w_stalled && !win_valid) fail("win_valid dropped before the descriptor was taken");
            else if (w_stalled && w_desc != w_stalled_desc) fail("descriptor changed while stalled");
            m_stalled <= m_tvalid && !m_tready;
            m_stalled_beat <= m_beat;
            w_stalled <= win_valid && !win_ready;
            w_stalled_desc <= w_desc;
            if (m_tvalid && m_tready) begin
                if (pay_q.size() == 0) fail("payload beat with none expected");
                else begin
                    logic [BEAT_W-1:0] e;
                    e = pay_q.pop_front();
                    if (m_beat != e) fail($sformatf("payload beat %0d: got %h, want %h", beats_out, m_beat, e));
                end
                beats_out++;
            end
            if (win_valid && win_ready) begin
                if (desc_q.size() == 0) fail("descriptor with none expected");
                else begin
                    logic [DESC_W-1:0] e;
                    int cc;
                    e = desc_q.pop_front();
                    cc = comp_cycle_q.pop_front();
                    if (w_desc != e)
                        fail($sformatf("descriptor %0d: got pkt_len=%0d user=%h len=%0d data=%h, want pkt_len=%0d user=%h len=%0d data=%h",
                             descs_out, win_pkt_len, win_user, win_len, win_data,
                             e[DESC_W-1 -: 16], e[WIN_BYTES*8+16 +: USER_W], e[WIN_BYTES*8 +: 16], e[WIN_BYTES*8-1:0]));
                    // With no backpressure on it, a descriptor is taken the cycle it appears.
                    if (check_latency && int'(cycle) != cc + 1)
                        fail($sformatf("descriptor %0d: completing beat in cycle %0d, offered in %0d", descs_out, cc, cycle));
                end
                descs_out++;
            end
            m_tready  <= m_rng.below(100) >= m_stall_pct;
            win_ready <= w_rng.below(100) >= w_stall_pct;
        end
    end

    // ---- throughput monitors
    logic            measure = 1'b0;
    longint unsigned s_refused, m_beats, m_first, m_last, w_beats, w_first, w_last;
    /* verilator lint_off PINCONNECTEMPTY */
    p4f_tb_axis_rate u_s_rate (.clk, .measure, .cycle, .tvalid(s_tvalid), .tready(s_tready),
        .refused(s_refused), .beats(), .first(), .last());
    p4f_tb_axis_rate u_m_rate (.clk, .measure, .cycle, .tvalid(m_tvalid), .tready(m_tready),
        .refused(), .beats(m_beats), .first(m_first), .last(m_last));
    p4f_tb_axis_rate u_w_rate (.clk, .measure, .cycle, .tvalid(win_valid), .tready(win_ready),
        .refused(), .beats(w_beats), .first(w_first), .last(w_last));
    /* verilator lint_on PINCONNECTEMPTY */

    task automatic check(input bit ok, input string what);
        if (!ok) fail(what);
    endtask

    task automatic phase(input string name, input int unsigned idle, input int unsigned m_stall,
                         input int unsigned w_stall, input int packets, input bit single_beat);
        longint unsigned t0 = cycle;
        @(negedge clk);
        idle_pct = idle; m_stall_pct = m_stall; w_stall_pct = w_stall;
        for (int i = 0; i < packets; i++) make_packet(single_beat);
        while (send_q.size() != 0 || pay_q.size() != 0 || desc_q.size() != 0 || s_tvalid) begin
            @(posedge clk);
            if (cycle - t0 > 200000) begin
                fail($sformatf("%s: timeout: %0d beats and %0d descriptors still owed", name,
                     pay_q.size(), desc_q.size()));
                return;
            end
        end
        repeat (6) @(posedge clk);
        check(!m_tvalid && !win_valid, $sformatf("%s: output after the last expected one", name));
        $display("%s: phase %-30s idle %2d%% stall payload %2d%% window %2d%%: %0d packets, %0d beats, %0d cycles",
                 NAME, name, idle, m_stall, w_stall, packets_made, beats_out, cycle - t0);
    endtask

    initial begin
        done = 1'b0;
        @(negedge rst);
        phase("idle and backpressure", 30, 30, 30, 800, 1'b0);
        phase("payload stalls", 5, 90, 5, 300, 1'b0);
        phase("descriptor stalls", 5, 5, 90, 300, 1'b0);
        phase("heavy idle", 90, 5, 5, 300, 1'b0);
        phase("single beats, stalls", 20, 40, 40, 400, 1'b1);

        // Full rate: the input is never refused, both outputs move every cycle.
        @(negedge clk) begin measure = 1'b1; check_latency = 1'b1; end
        phase("single beats (throughput)", 0, 0, 0, 400, 1'b1);
        check(s_refused == 0, $sformatf("single beats: input refused %0d times", s_refused));
        check(w_beats == 400 && w_last - w_first + 1 == w_beats,
              $sformatf("single beats: %0d descriptors over %0d cycles", w_beats, w_last - w_first + 1));
        check(m_last - m_first + 1 == m_beats,
              $sformatf("single beats: %0d payload beats over %0d cycles", m_beats, m_last - m_first + 1));
        @(negedge clk) measure = 1'b0;
        @(negedge clk) measure = 1'b1;
        phase("any packets (throughput)", 0, 0, 0, 400, 1'b0);
        check(s_refused == 0, $sformatf("any packets: input refused %0d times", s_refused));
        check(m_last - m_first + 1 == m_beats,
              $sformatf("any packets: %0d payload beats over %0d cycles", m_beats, m_last - m_first + 1));
        $display("%s: any packets: %0d beats in %0d cycles, %0d descriptors", NAME, m_beats, m_last - m_first + 1, w_beats);
        @(negedge clk) begin measure = 1'b0; check_latency = 1'b0; end

        phase("idle and backpressure again", 40, 40, 40, 800, 1'b0);
        done = 1'b1;
    end

endmodule

module tb_p4f_pkt_split;
    logic clk;
    initial clk = 1'b0;
    logic rst = 1'b1;
    always #2 clk = ~clk;

    logic [4:0] done;
    int         fails;

    split_bench #(.DATA_W(64),  .USER_W(3),  .WIN_BYTES(20),  .WAIT_FOR_LAST(1'b0), .PAYLOAD_REG(1'b1), .SALT(1),
                  .NAME("w64 win20"))            b0 (.clk, .rst, .done(done[0]));
    split_bench #(.DATA_W(64),  .USER_W(3),  .WIN_BYTES(64),  .WAIT_FOR_LAST(1'b1), .PAYLOAD_REG(1'b0), .SALT(2),
                  .NAME("w64 win64 last noreg")) b1 (.clk, .rst, .done(done[1]));
    split_bench #(.DATA_W(128), .USER_W(1),  .WIN_BYTES(1),   .WAIT_FOR_LAST(1'b0), .PAYLOAD_REG(1'b0), .SALT(3),
                  .NAME("w128 win1 noreg"))      b2 (.clk, .rst, .done(done[2]));
    split_bench #(.DATA_W(512), .USER_W(16), .WIN_BYTES(64),  .WAIT_FOR_LAST(1'b0), .PAYLOAD_REG(1'b1), .SALT(4),
                  .NAME("w512 win64"))           b3 (.clk, .rst, .done(done[3]));
    split_bench #(.DATA_W(512), .USER_W(16), .WIN_BYTES(100), .WAIT_FOR_LAST(1'b1), .PAYLOAD_REG(1'b1), .SALT(5),
                  .NAME("w512 win100 last"))     b4 (.clk, .rst, .done(done[4]));

    initial begin
        repeat (5) @(posedge clk);
        @(negedge clk) rst = 1'b0;
        $display("tb_p4f_pkt_split: seed %0d", p4f_tb_pkg::run_seed());
        wait (&done);
        fails = b0.errors + b1.errors + b2.errors + b3.errors + b4.errors;
        if (fails == 0) begin
            $display("PASS tb_p4f_pkt_split (seed %0d): 5 configurations, %0d packets, %0d descriptors checked",
                     p4f_tb_pkg::run_seed(), b0.packets_made + b1.packets_made + b2.packets_made + b3.packets_made + b4.packets_made,
                     b0.descs_out + b1.descs_out + b2.descs_out + b3.descs_out + b4.descs_out);
            $finish;
        end else begin
            $fatal(1, "FAIL tb_p4f_pkt_split (seed %0d): %0d errors", p4f_tb_pkg::run_seed(), fails);
        end
    end
endmodule

/* verilator lint_on BLKSEQ */
`default_nettype wire

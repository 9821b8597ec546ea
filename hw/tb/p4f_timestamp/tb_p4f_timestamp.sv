// Testbench for p4f_timestamp: random sources on the RX and TX paths, random backpressure on both
// outputs, and a `now` that advances by uneven steps (so an off-by-one-cycle stamp is wrong).
// RX: the checking sink compares every beat with what was sent (low tuser bits included), and
// every beat's stamp must be `now` of the cycle its packet's first beat was taken. TX: each
// packet's insert flag and byte offset come from its first beat's data (a quarter not stamped;
// offsets from 0 to past the packet's end, so the 8 bytes start, end or straddle beats of 4
// bytes, or fall partly or wholly outside the packet); every beat out must be the beat sent with
// exactly the model's bytes replaced by the big-endian `now` of the cycle before the first beat
// showed on m_tx_axis, and tx_ts must report that time. +seed=N.
`timescale 1ns / 1ps
`default_nettype none

module tb_p4f_timestamp;
    localparam int DATA_W    = 32;
    localparam int KEEP_W    = DATA_W / 8;
    localparam int USER_W    = 2;
    localparam int OFF_W     = 8;
    localparam int MAX_BEATS = 8;
    localparam int WORD_W    = DATA_W + KEEP_W + USER_W + 1;

    logic clk;
    initial clk = 1'b0;
    logic rst = 1'b1;
    always #2 clk = ~clk;

    int unsigned     idle_pct = 0, stall_pct = 0;
    longint unsigned packet_limit = 0;
    longint unsigned rx_sent, tx_sent, rx_beats, rx_packets, tx_beats = 0, tx_packets = 0;
    longint unsigned beats_received, packets_received;
    int unsigned     rx_errors, tx_errors = 0, errors;
    logic            start_pulse;
    logic [0:0]      start_tid;

    // `now`: uneven steps; now_last is its value in the previous cycle.
    logic [63:0] now, now_last;
    p4f_tb_pkg::prng rng;
    initial rng = new(p4f_tb_pkg::run_seed() ^ 64'h7153);
    always @(posedge clk) begin
        if (rst) begin
            now <= 64'h0123_4567_89ab_cd00 ^ p4f_tb_pkg::mix64(p4f_tb_pkg::run_seed());
        end else begin
            now <= now + 64'(1) + (rng.below(4) == 0 ? 64'(rng.below(1000)) : 64'(0));
        end
        now_last <= now;
    end

    logic [DATA_W-1:0] rs_tdata, rm_tdata, ts_tdata, tm_tdata;
    logic [KEEP_W-1:0] rs_tkeep, rm_tkeep, ts_tkeep, tm_tkeep;
    logic [USER_W-1:0] rs_tuser, ts_tuser, tm_tuser;
    logic [USER_W+63:0] rm_tuser;
    logic rs_tvalid, rs_tready, rs_tlast, rm_tvalid, rm_tready, rm_tlast;
    logic ts_tvalid, ts_tready, ts_tlast, tm_tvalid, tm_tready, tm_tlast;
    logic ts_insert;
    logic [OFF_W-1:0] ts_offset;
    logic [63:0] tx_ts;
    logic tx_ts_valid;

    p4f_tb_axis_source #(.DATA_W(DATA_W), .USER_W(USER_W), .MAX_BEATS(MAX_BEATS), .STREAM(0)) u_rx_src (
        .clk, .rst, .idle_pct, .packet_limit, .beats_sent(rx_sent),
        .m_axis_tdata(rs_tdata), .m_axis_tkeep(rs_tkeep), .m_axis_tvalid(rs_tvalid),
        .m_axis_tready(rs_tready), .m_axis_tlast(rs_tlast), .m_axis_tuser(rs_tuser));
    p4f_tb_axis_source #(.DATA_W(DATA_W), .USER_W(USER_W), .MAX_BEATS(MAX_BEATS), .STREAM(1)) u_tx_src (
        .clk, .rst, .idle_pct, .packet_limit, .beats_sent(tx_sent),
        .m_axis_tdata(ts_tdata), .m_axis_tkeep(ts_tkeep), .m_axis_tvalid(ts_tvalid),
        .m_axis_tready(ts_tready), .m_axis_tlast(ts_tlast), .m_axis_tuser(ts_tuser));

    p4f_timestamp #(.DATA_W(DATA_W), .USER_W(USER_W), .OFF_W(OFF_W)) dut (
        .clk, .rst, .now,
        .s_rx_axis_tdata(rs_tdata), .s_rx_axis_tkeep(rs_tkeep), .s_rx_axis_tvalid(rs_tvalid),
        .s_rx_axis_tready(rs_tready), .s_rx_axis_tlast(rs_tlast), .s_rx_axis_tuser(rs_tuser),
        .m_rx_axis_tdata(rm_tdata), .m_rx_axis_tkeep(rm_tkeep), .m_rx_axis_tvalid(rm_tvalid),
        .m_rx_axis_tready(rm_tready), .m_rx_axis_tlast(rm_tlast), .m_rx_axis_tuser(rm_tuser),
        .s_tx_axis_tdata(ts_tdata), .s_tx_axis_tkeep(ts_tkeep), .s_tx_axis_tvalid(ts_tvalid),
        .s_tx_axis_tready(ts_tready), .s_tx_axis_tlast(ts_tlast), .s_tx_axis_tuser(ts_tuser),
        .s_tx_ts_insert(ts_insert), .s_tx_ts_offset(ts_offset),
        .m_tx_axis_tdata(tm_tdata), .m_tx_axis_tkeep(tm_tkeep), .m_tx_axis_tvalid(tm_tvalid),
        .m_tx_axis_tready(tm_tready), .m_tx_axis_tlast(tm_tlast), .m_tx_axis_tuser(tm_tuser),
        .tx_ts, .tx_ts_valid);

    p4f_tb_axis_sink #(.DATA_W(DATA_W), .USER_W(USER_W), .MAX_BEATS(MAX_BEATS), .NAME("rx out")) u_rx_sink (
        .clk, .rst, .stall_pct, .beats_received(rx_beats), .packets_received(rx_packets), .errors(rx_errors),
        .start_tid, .start_pulse,
        .s_axis_tdata(rm_tdata), .s_axis_tkeep(rm_tkeep), .s_axis_tvalid(rm_tvalid),
        .s_axis_tready(rm_tready), .s_axis_tlast(rm_tlast), .s_axis_tid(1'b0), .s_axis_tuser(rm_tuser[USER_W-1:0]));

    always_comb begin
        beats_received = rx_beats + tx_beats;
        packets_received = rx_packets + tx_packets;
        errors = rx_errors + tx_errors;
    end

    task automatic fail(input string what);
        tx_errors++;
        if (tx_errors < 10) $display("[%0t] ERROR %s", $time, what);
    endtask

    // RX: the stamp of every beat is `now` when its packet's first beat was taken.
    logic [63:0] rx_ts_q[$];
    logic        rx_in_in_pkt = 1'b0, rx_out_in_pkt = 1'b0;

    // TX sideband: from the first beat's data; junk on the other beats (the DUT ignores it).
    logic tx_src_in_pkt = 1'b0;
    always_comb begin
        if (!tx_src_in_pkt) begin
            ts_insert = ts_tdata[1:0] != 2'b00;
            ts_offset = OFF_W'(int'(ts_tdata[15:8]) % (MAX_BEATS * KEEP_W + 4));
        end else begin
            ts_insert = ts_tdata[5];
            ts_offset = ts_tdata[23:16];
        end
    end

    // TX model: beats as sent, with their packet's insert flag and offset and their byte position.
    class tx_beat;
        logic [WORD_W-1:0] word;
        bit ins;
        int unsigned off, pos;
    endclass
    tx_beat      tx_q[$];
    bit          tx_ins;
    int unsigned tx_off, tx_pos;
    logic        tx_out_in_pkt = 1'b0, tx_seen_first = 1'b0, tm_stalled = 1'b0;
    logic [63:0] tx_ts_exp;
    logic [WORD_W-1:0] tm_prev;
    longint unsigned stamped = 0, straddled = 0;

    /* verilator lint_off BLKSEQ */
    always @(posedge clk) begin
        logic [WORD_W-1:0] w, want;
        tx_beat b;
        if (rst) begin
            tm_tready <= 1'b0;
        end else begin
            // RX stamps.
            if (rs_tvalid && rs_tready) begin
                if (!rx_in_in_pkt) rx_ts_q.push_back(now);
                rx_in_in_pkt = !rs_tlast;
            end
            if (rm_tvalid && rm_tready) begin
                if (rx_ts_q.size() == 0) fail("rx beat with no packet sent");
                else if (rm_tuser[USER_W +: 64] != rx_ts_q[0])
                    fail($sformatf("rx stamp %h, want %h", rm_tuser[USER_W +: 64], rx_ts_q[0]));
                if (rm_tlast && rx_ts_q.size() != 0) void'(rx_ts_q.pop_front());
            end

            // TX input.
            if (ts_tvalid && ts_tready) begin
                if (!tx_src_in_pkt) begin
                    tx_ins = ts_insert;
                    tx_off = int'(ts_offset);
                    tx_pos = 0;
                end
                b = new;
                b.word = {ts_tlast, ts_tuser, ts_tkeep, ts_tdata};
                b.ins = tx_ins; b.off = tx_off; b.pos = tx_pos;
                tx_q.push_back(b);
                tx_pos += KEEP_W;
            end

            // TX output: the stamp is `now` of the cycle before the first beat showed.
            w = {tm_tlast, tm_tuser, tm_tkeep, tm_tdata};
            if (tm_stalled && (!tm_tvalid || w != tm_prev)) fail("tx beat changed or dropped while stalled");
            tm_stalled = tm_tvalid && !tm_tready;
            tm_prev = w;
            if (tm_tvalid && !tx_out_in_pkt && !tx_seen_first) begin
                tx_ts_exp = now_last;
                tx_seen_first = 1'b1;
                if (!tx_ts_valid || tx_ts != now_last) fail($sformatf("tx_ts %h (valid %b), want %h", tx_ts, tx_ts_valid, now_last));
            end else if (tx_ts_valid) begin
                fail("tx_ts_valid without a packet starting");
            end
            if (tm_tvalid && tm_tready) begin
                if (tx_q.size() == 0) begin
                    fail("tx beat with no beat sent");
                end else begin
                    b = tx_q.pop_front();
                    want = b.word;
                    if (b.ins) begin
                        for (int j = 0; j < KEEP_W; j++) begin
                            automatic int rel = int'(b.pos) + j - int'(b.off);
                            if (rel >= 0 && rel < 8) want[j*8 +: 8] = tx_ts_exp[(7 - rel)*8 +: 8];
                        end
                        if (b.pos == 0) begin
                            stamped++;
                            if (b.off % KEEP_W != 0) straddled++;
                        end
                    end
                    if (w != want) fail($sformatf("tx beat at byte %0d (offset %0d, insert %b): got %h, want %h",
                                                  b.pos, b.off, b.ins, w, want));
                end
                tx_beats++;
                if (tm_tlast) tx_packets++;
                tx_out_in_pkt = !tm_tlast;
                tx_seen_first = 1'b0;
            end
            tm_tready <= rng.below(100) >= stall_pct;
        end
    end
    /* verilator lint_on BLKSEQ */

    always @(posedge clk) if (!rst && ts_tvalid && ts_tready) tx_src_in_pkt <= !ts_tlast;

    logic            measure = 1'b0;
    longint unsigned cycle;
    longint unsigned rx_refused, tx_refused, rx_out, rx_first, rx_last, tx_out, tx_first, tx_last;
    always @(posedge clk) cycle <= rst ? 0 : cycle + 1;
    /* verilator lint_off PINCONNECTEMPTY */
    p4f_tb_axis_rate u_rx_in (.clk, .measure, .cycle, .tvalid(rs_tvalid), .tready(rs_tready),
        .refused(rx_refused), .beats(), .first(), .last());
    p4f_tb_axis_rate u_tx_in (.clk, .measure, .cycle, .tvalid(ts_tvalid), .tready(ts_tready),
        .refused(tx_refused), .beats(), .first(), .last());
    p4f_tb_axis_rate u_rx_out (.clk, .measure, .cycle, .tvalid(rm_tvalid), .tready(rm_tready),
        .refused(), .beats(rx_out), .first(rx_first), .last(rx_last));
    p4f_tb_axis_rate u_tx_out (.clk, .measure, .cycle, .tvalid(tm_tvalid), .tready(tm_tready),
        .refused(), .beats(tx_out), .first(tx_first), .last(tx_last));
    /* verilator lint_on PINCONNECTEMPTY */

    `define P4F_TB_PACKETS_DUE (2 * packet_limit)
    `define P4F_TB_PACKETS_SHOWN packets_received
    `define P4F_TB_BEATS_SENT (rx_sent + tx_sent)
    `define P4F_TB_CHECK_TIME
    `include "p4f_tb_phase.svh"

    initial begin
        repeat (5) @(posedge clk);
        @(negedge clk) rst = 1'b0;
        $display("tb_p4f_timestamp: seed %0d, DATA_W %0d", p4f_tb_pkg::run_seed(), DATA_W);
        phase("idle and backpressure", 30, 30, 300);
        phase("heavy backpressure", 5, 90, 150);
        phase("heavy idle", 90, 5, 150);
        phase("light random", 10, 10, 300);
        @(negedge clk) measure = 1'b1;
        phase("no stalls (throughput)", 0, 0, 300);
        check(rx_refused == 0 && tx_refused == 0, $sformatf("throughput: inputs refused %0d/%0d times", rx_refused, tx_refused));
        check(rx_last - rx_first + 1 == rx_out && tx_last - tx_first + 1 == tx_out,
              $sformatf("throughput: rx %0d beats over %0d cycles, tx %0d over %0d", rx_out, rx_last - rx_first + 1, tx_out, tx_last - tx_first + 1));
        @(negedge clk) measure = 1'b0;
        phase("idle and backpressure again", 40, 40, 200);
        check(stamped > 100 && straddled > 10, $sformatf("too few stamped packets (%0d, %0d not beat-aligned)", stamped, straddled));
        end_run("tb_p4f_timestamp", $sformatf("(seed %0d): %0d packets, %0d beats checked; %0d tx packets stamped",
                p4f_tb_pkg::run_seed(), packets_received, beats_received, stamped));
    end

endmodule

`default_nettype wire

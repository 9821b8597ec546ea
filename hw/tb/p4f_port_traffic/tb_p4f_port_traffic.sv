// Testbench for p4f_port_traffic: the control clock at 4 ns, the MAC clock at 6.4 ns (the seed
// design's 250 and 156.25 MHz; +ctl_period_ps/+mac_period_ps change them). The unit's RX output is
// always ready and loops back into its TX monitor. A MAC source offers 2-beat packets (first byte
// 0xAA) with 1-3 idle cycles between them.
//
// Per seed 8 runs, each: a random template (1-4 beats, the last partial, first byte 0x55) written
// through the async FIFO with random idle cycles; the generator enabled, on a quiet link (MAC
// source stopped) or while the MAC sends (every packet must stay whole); a snapshot with clear
// (counters 0 after it); the MAC source on (it must be held: none of its packets may pass while
// the generator is enabled); a start with a random count
// (10-40), a random fixed-point period (whole cycles above the template's beats, random
// fraction) and a random sequence-number offset. Checked on the RX output in mac_clk: every
// generated packet is the template with its number in the run stamped big-endian at the offset,
// bit for bit; packet k starts exactly ceil(k * period) MAC cycles after the first. Snapshots are
// polled until the generator is idle with one more run and its count sent; the snapshot must then
// give that count, the capturer the same packets and bytes, the first and last packet's `now` and
// the last's length. Disabled again, the MAC's packets must pass; every MAC packet the unit took
// must have come out. Runs with the clocks the other way round too (hw/Makefile). +seed=N.
`timescale 1ns / 1ps
`default_nettype none

module tb_p4f_port_traffic;
    import p4f_tb_pkg::*;

    localparam int DATA_W    = 64;
    localparam int KEEP_W    = DATA_W / 8;
    localparam int TPL_DEPTH = 64;
    localparam int TPL_W     = $clog2(TPL_DEPTH);
    localparam int PER_W     = 24;
    localparam int RUNS      = 8;

    int unsigned ctl_period_ps, mac_period_ps, offset_ps;
    logic ctl_clk, mac_clk;
    logic ctl_rst = 1'b1, mac_rst = 1'b1;
    // The periods come from plusargs, so Verilator cannot prove the delays non-zero.
    /* verilator lint_off ZERODLY */
    initial begin
        prng r;
        if (!$value$plusargs("ctl_period_ps=%d", ctl_period_ps)) ctl_period_ps = 4000;
        if (!$value$plusargs("mac_period_ps=%d", mac_period_ps)) mac_period_ps = 6400;
        r = new(run_seed() ^ 64'h7af_c10c);
        offset_ps = r.below(mac_period_ps);  // unrelated phases
        ctl_clk = 1'b0;
        mac_clk = 1'b0;
        fork
            forever #(ctl_period_ps * 1ps / 2) ctl_clk = ~ctl_clk;
            begin
                #(offset_ps * 1ps);
                forever #(mac_period_ps * 1ps / 2) mac_clk = ~mac_clk;
            end
        join_none
    end
    /* verilator lint_on ZERODLY */

    longint unsigned mac_cycle = 0;
    always @(posedge mac_clk) mac_cycle <= mac_cycle + 1;
    wire logic [63:0] now = 64'(mac_cycle) * 64'd7 + 64'd5;  // any rising time; the capturer records it

    // ---- control side (driven at ctl_clk's falling edge)
    logic              tpl_valid = 1'b0, tpl_last = 1'b0, gen_enable = 1'b0, start = 1'b0, seq_en = 1'b0;
    logic              snap = 1'b0, snap_clear = 1'b0;
    logic [TPL_W-1:0]  tpl_addr = '0, tpl_end = '0;
    logic [DATA_W-1:0] tpl_data = '0;
    logic [KEEP_W-1:0] tpl_keep = '0;
    logic [31:0]       count = '0;
    logic [PER_W-1:0]  period = '0;
    logic [15:0]       seq_offset = '0;
    logic              tpl_ready, start_pending, snap_done, s_gen_busy;
    logic [7:0]        s_gen_runs;
    logic [31:0]       s_gen_pkts, s_cap_pkts, s_cap_last_len;
    logic [63:0]       s_cap_bytes, s_cap_first, s_cap_last;

    // ---- MAC side
    logic [DATA_W-1:0] mac_tdata = '0, rx_tdata;
    logic [KEEP_W-1:0] mac_tkeep = '0, rx_tkeep;
    logic              mac_tvalid = 1'b0, mac_tready, mac_tlast = 1'b0;
    logic              rx_tvalid, rx_tlast;

    p4f_port_traffic #(.DATA_W(DATA_W), .TPL_DEPTH(TPL_DEPTH), .PER_W(PER_W)) dut (
        .ctl_clk, .ctl_rst, .mac_clk, .mac_rst, .now,
        .tpl_valid, .tpl_ready, .tpl_addr, .tpl_data, .tpl_keep, .tpl_last,
        .gen_enable, .start, .count, .period, .tpl_end, .seq_offset, .seq_en, .start_pending,
        .snap, .snap_clear, .snap_done, .snap_gen_busy(s_gen_busy), .snap_gen_runs(s_gen_runs),
        .snap_gen_pkts(s_gen_pkts), .snap_cap_pkts(s_cap_pkts), .snap_cap_bytes(s_cap_bytes),
        .snap_cap_first_ts(s_cap_first), .snap_cap_last_ts(s_cap_last), .snap_cap_last_len(s_cap_last_len),
        .s_rx_axis_tdata(mac_tdata), .s_rx_axis_tkeep(mac_tkeep), .s_rx_axis_tvalid(mac_tvalid),
        .s_rx_axis_tready(mac_tready), .s_rx_axis_tlast(mac_tlast),
        .m_rx_axis_tdata(rx_tdata), .m_rx_axis_tkeep(rx_tkeep), .m_rx_axis_tvalid(rx_tvalid),
        .m_rx_axis_tready(1'b1), .m_rx_axis_tlast(rx_tlast),
        .tx_axis_tkeep(rx_tkeep), .tx_axis_tvalid(rx_tvalid), .tx_axis_tready(1'b1), .tx_axis_tlast(rx_tlast));

    prng rng, mac_rng;
    initial begin
        rng     = new(run_seed() ^ 64'h7af_0001);
        mac_rng = new(run_seed() ^ 64'h7af_0002);
    end

    int unsigned errors = 0;
    function automatic void fail(input string what);
        errors++;
        if (errors <= 10) $display("[%0t] ERROR %s", $time, what);
    endfunction

    // ---- the MAC source: 2-beat packets, first byte 0xAA, 1-3 idle cycles between them; it
    // holds a beat until it is taken.
    bit          mac_on = 1'b0;
    int unsigned mac_beat = 0, mac_idle = 0;
    longint unsigned mac_sent = 0;  // MAC packets taken from the source
    /* verilator lint_off BLKSEQ */
    always @(posedge mac_clk) begin
        if (mac_rst) begin
            mac_tvalid <= 1'b0;
        end else begin
            if (mac_tvalid && mac_tready) begin
                mac_beat = mac_tlast ? 0 : mac_beat + 1;
                if (mac_tlast) mac_idle = 1 + mac_rng.below(3);
                if (mac_tlast) mac_sent++;
            end
            if (!(mac_tvalid && !mac_tready)) begin
                if (mac_idle > 0) begin
                    mac_idle--;
                    mac_tvalid <= 1'b0;
                end else if (mac_on || mac_beat != 0) begin
                    mac_tvalid <= 1'b1;
                    mac_tdata  <= {random_bits#(DATA_W-8)::from(mac_rng), mac_beat == 0 ? 8'haa : 8'h00};
                    mac_tkeep  <= '1;
                    mac_tlast  <= mac_beat == 1;
                end else begin
                    mac_tvalid <= 1'b0;
                end
            end
        end
    end

    /* verilator lint_on BLKSEQ */

    // ---- the RX output: who sent each packet, and the generated ones checked
    logic [DATA_W+KEEP_W:0] tpl [TPL_DEPTH];  // {last, keep, data}
    int unsigned     tpl_beats = 1, tpl_bytes = 0, run_off = 0;
    longint unsigned run_period = 0;
    bit              gen_window = 1'b0;       // from the first generated packet to the disable
    bit              out_in_pkt = 1'b0, out_gen = 1'b0;
    int unsigned     out_beat = 0;
    longint unsigned gen_seen = 0, mac_seen = 0, mac_seen_in_window = 0;
    longint unsigned starts [$];
    logic [63:0]     first_now, last_now;

    /* verilator lint_off BLKSEQ */
    always @(posedge mac_clk) begin
        if (!mac_rst && rx_tvalid) begin
            if (!out_in_pkt) begin
                out_gen = rx_tdata[7:0] == 8'h55;
                out_beat = 0;
                if (out_gen) begin
                    starts.push_back(mac_cycle);
                    if (gen_seen == 0) first_now = now;
                    last_now = now;
                    gen_window = 1'b1;
                end
            end
            if (out_gen) begin
                logic [DATA_W+KEEP_W:0] want;
                logic [31:0] seq;
                want = tpl[out_beat];
                seq = 32'(gen_seen);
                for (int j = 0; j < KEEP_W; j++) begin
                    automatic int rel = int'(out_beat) * KEEP_W + j - int'(run_off);
                    if (rel >= 0 && rel < 4) want[j*8 +: 8] = seq[(3 - rel)*8 +: 8];
                end
                if ({rx_tlast, rx_tkeep, rx_tdata} != want)
                    fail($sformatf("generated packet %0d beat %0d: got last=%b keep=%h data=%h, want %h",
                                   gen_seen, out_beat, rx_tlast, rx_tkeep, rx_tdata, want));
                if (rx_tlast) gen_seen++;
            end else if (rx_tlast) begin
                mac_seen++;
                if (gen_window) mac_seen_in_window++;
            end
            out_beat++;
            out_in_pkt = !rx_tlast;
        end
    end
    /* verilator lint_on BLKSEQ */

    // ---- control tasks
    task automatic ctl_cycles(input int n);
        repeat (n) @(negedge ctl_clk);
    endtask

    task automatic write_template();
        tpl_beats = 1 + rng.below(4);
        tpl_bytes = 0;
        for (int b = 0; b < int'(tpl_beats); b++) begin
            logic [DATA_W-1:0] d = random_bits#(DATA_W)::from(rng);
            logic [KEEP_W-1:0] k = '1;
            bit last = b == int'(tpl_beats) - 1;
            if (b == 0) d[7:0] = 8'h55;
            if (last && b > 0) k = KEEP_W'((1 << (1 + rng.below(KEEP_W))) - 1);
            tpl[b] = {last, k, d};
            tpl_bytes += $countones(k);
        end
        for (int b = 0; b < int'(tpl_beats); b++) begin
            @(negedge ctl_clk);
            while (rng.below(3) == 0) begin
                tpl_valid = 1'b0;
                @(negedge ctl_clk);
            end
            tpl_valid = 1'b1;
            tpl_addr = TPL_W'(b);
            {tpl_last, tpl_keep, tpl_data} = tpl[b];
            @(posedge ctl_clk);
            while (!tpl_ready) @(posedge ctl_clk);
        end
        @(negedge ctl_clk) tpl_valid = 1'b0;
    endtask

    task automatic take_snapshot(input bit clear);
        @(negedge ctl_clk);
        snap = 1'b1;
        snap_clear = clear;
        @(negedge ctl_clk);
        snap = 1'b0;
        snap_clear = 1'b0;
        if (snap_done) fail("snap_done still high the cycle after a request");
        for (int t = 0; !snap_done; t++) begin
            if (t > 1000) begin
                fail("snapshot never done");
                break;
            end
            @(negedge ctl_clk);
        end
    endtask

    initial begin
        automatic longint unsigned total = 0;
        automatic logic [7:0] runs = 0;
        repeat (8) @(posedge mac_clk);
        @(negedge ctl_clk) ctl_rst = 1'b0;
        mac_rst = 1'b0;
        $display("tb_p4f_port_traffic: seed %0d, ctl %0d ps, mac %0d ps (offset %0d)", run_seed(), ctl_period_ps, mac_period_ps, offset_ps);
        mac_on = 1'b1;
        ctl_cycles(100);
        if (mac_seen == 0) fail("the MAC's packets do not pass while the generator is disabled");
        for (int r = 0; r < RUNS; r++) begin
            automatic int unsigned n = 10 + rng.below(31);
            automatic longint unsigned m0;
            write_template();
            // The generator enabled on a quiet link (every fourth run) or while the MAC sends (the
            // source must change between two of its packets), then the capturer cleared and the
            // MAC sending: it must be held.
            if (r % 4 == 0) begin
                mac_on = 1'b0;
                ctl_cycles(20);
            end
            ctl_cycles(int'(rng.below(7)));
            gen_enable = 1'b1;
            ctl_cycles(20);
            take_snapshot(1'b1);
            take_snapshot(1'b0);
            if (s_cap_pkts != 0 || s_cap_bytes != 0 || s_cap_first != 0 || s_cap_last != 0 || s_cap_last_len != 0)
                fail($sformatf("run %0d: capturer not cleared: %0d packets %0d bytes", r, s_cap_pkts, s_cap_bytes));
            runs = s_gen_runs;
            m0 = mac_seen;
            mac_on = 1'b1;
            ctl_cycles(20);
            if (mac_seen != m0) fail($sformatf("run %0d: %0d MAC packets passed while the generator was enabled", r, mac_seen - m0));
            // The run.
            starts.delete();
            gen_seen = 0;
            run_off = 1 + rng.below(tpl_bytes + 1);  // byte 0 keeps the 0x55 that marks a generated packet
            run_period = (longint'(tpl_beats) + 1 + longint'(rng.below(12))) * 256 + longint'(rng.below(256));
            @(negedge ctl_clk);
            start = 1'b1;
            count = n;
            period = PER_W'(run_period);
            tpl_end = TPL_W'(tpl_beats - 1);
            seq_offset = 16'(run_off);
            seq_en = 1'b1;
            @(negedge ctl_clk);
            start = 1'b0;
            count = '0;  // the settings were registered with the pulse
            period = '0;
            for (int t = 0; ; t++) begin
                take_snapshot(1'b0);
                if (!s_gen_busy && s_gen_runs == runs + 8'd1 && s_gen_pkts == n) break;
                if (t > 2000) begin
                    fail($sformatf("run %0d: the generator never finished (%0d of %0d sent)", r, s_gen_pkts, n));
                    break;
                end
            end
            ctl_cycles(10);
            take_snapshot(1'b0);
            if (gen_seen != longint'(n)) fail($sformatf("run %0d: %0d generated packets seen, want %0d", r, gen_seen, n));
            if (s_cap_pkts != n || s_cap_bytes != longint'(n) * tpl_bytes || s_cap_last_len != tpl_bytes
                    || s_cap_first != first_now || s_cap_last != last_now)
                fail($sformatf("run %0d: capturer %0d packets %0d bytes len %0d first %0d last %0d, want %0d %0d %0d %0d %0d",
                               r, s_cap_pkts, s_cap_bytes, s_cap_last_len, s_cap_first, s_cap_last,
                               n, longint'(n) * tpl_bytes, tpl_bytes, first_now, last_now));
            for (int k = 1; k < starts.size(); k++) begin
                automatic longint unsigned ideal = (longint'(k) * run_period + 255) >> 8;
                if (starts[k] - starts[0] != ideal)
                    fail($sformatf("run %0d, period %0d/256: packet %0d starts %0d MAC cycles after the first, want %0d",
                                   r, run_period, k, starts[k] - starts[0], ideal));
            end
            total += longint'(n);
            // Disabled: the MAC's held packet and the next ones pass.
            m0 = mac_seen;
            gen_enable = 1'b0;
            gen_window = 1'b0;
            ctl_cycles(60);
            if (mac_seen == m0) fail($sformatf("run %0d: the MAC's packets do not pass after the generator is disabled", r));
        end
        // Every MAC packet taken came out (none lost while held).
        mac_on = 1'b0;
        ctl_cycles(50);
        if (mac_sent != mac_seen) fail($sformatf("%0d MAC packets taken, %0d came out", mac_sent, mac_seen));
        if (mac_seen_in_window != 0) fail($sformatf("%0d MAC packets inside generated runs", mac_seen_in_window));
        if (errors == 0) begin
            $display("PASS tb_p4f_port_traffic (seed %0d): %0d runs, %0d generated packets checked, %0d MAC packets passed",
                     run_seed(), RUNS, total, mac_seen);
            $finish;
        end else begin
            $fatal(1, "FAIL tb_p4f_port_traffic (seed %0d): %0d failed checks", run_seed(), errors);
        end
    end

endmodule

`default_nettype wire

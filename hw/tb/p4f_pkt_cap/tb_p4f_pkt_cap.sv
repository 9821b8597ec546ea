// Testbench for p4f_pkt_cap: a random source (p4f_tb_axis_source: packets of 1-12 beats, random
// data, tuser and last-beat tkeep) with random idle cycles into a capturer of 64 beats and 16
// descriptors, so captures fill up: packets are dropped for want of RAM and for want of a
// descriptor, and shorter packets still fit after a longer one was dropped. `now` advances by
// uneven steps (a stamp one cycle off is wrong). Phases at 30, 0 (line rate), 90, 10 and 50 %
// idle; the last two with random clear pulses (about one per 100 and 200 cycles), which also cut
// packets in progress and meet beats in their own cycle.
//
// The model captures as the module's header says, from the beats on the bus. Checked every
// cycle: s_axis_tready is high; pkts_captured, pkts_dropped, bytes_captured and beats_used equal
// the model's; the read ports, at random addresses of captured beats and descriptors while capture
// goes on, return one cycle later what the model stored (data, tkeep; length, first beat address,
// timestamp, tuser). After each phase every descriptor and every captured beat is read back and
// compared, then a clear must zero the counters. The link monitor (seen_pkts, seen_bytes,
// first_ts, last_ts, last_len) must count every whole packet whose first beat came after the
// last clear, stored or dropped (seen_bytes' low part is 8 bits here, so its carries into the
// high part are exercised). Over the run each kind of drop and a packet cut
// by a clear must have happened. +seed=N.
`timescale 1ns / 1ps
`default_nettype none

module tb_p4f_pkt_cap;
    import p4f_tb_pkg::*;

    localparam int DATA_W      = 32;
    localparam int KEEP_W      = DATA_W / 8;
    localparam int USER_W      = 3;
    localparam int DEPTH       = 64;
    localparam int ADDR_W      = $clog2(DEPTH);
    localparam int DESC_DEPTH  = 16;
    localparam int DESC_ADDR_W = $clog2(DESC_DEPTH);
    localparam int TS_W        = 64;
    localparam int LEN_W       = $clog2(DEPTH * KEEP_W + 1);
    localparam int MAX_BEATS   = 12;

    logic clk;
    initial clk = 1'b0;
    logic rst = 1'b1;
    always #2 clk = ~clk;

    int unsigned     idle_pct = 0, clear_permille = 0;
    longint unsigned packet_limit = 0, beats_sent;

    logic [DATA_W-1:0]      s_tdata, rd_data;
    logic [KEEP_W-1:0]      s_tkeep, rd_keep;
    logic [USER_W-1:0]      s_tuser, desc_user;
    logic                   s_tvalid, s_tready, s_tlast;
    logic                   clear, clear_rand = 1'b0, clear_cmd = 1'b0;
    logic [ADDR_W-1:0]      rd_addr = '0, desc_addr;
    logic [DESC_ADDR_W-1:0] desc_rd_addr = '0;
    logic [LEN_W-1:0]       desc_len;
    logic [TS_W-1:0]        desc_ts, now;
    logic [31:0]            pkts_captured, pkts_dropped, bytes_captured;
    logic [ADDR_W:0]        beats_used;
    logic [31:0]            seen_pkts, last_len;
    logic [63:0]            seen_bytes;
    logic [TS_W-1:0]        first_ts, last_ts;

    assign clear = clear_rand || clear_cmd;

    p4f_tb_axis_source #(.DATA_W(DATA_W), .USER_W(USER_W), .MAX_BEATS(MAX_BEATS), .STREAM(0)) u_src (
        .clk, .rst, .idle_pct, .packet_limit, .beats_sent,
        .m_axis_tdata(s_tdata), .m_axis_tkeep(s_tkeep), .m_axis_tvalid(s_tvalid),
        .m_axis_tready(s_tready), .m_axis_tlast(s_tlast), .m_axis_tuser(s_tuser));

    // LO_W 8: seen_bytes' low part carries into the high part every 256 bytes or so.
    p4f_pkt_cap #(.DATA_W(DATA_W), .USER_W(USER_W), .DEPTH(DEPTH), .DESC_DEPTH(DESC_DEPTH), .TS_W(TS_W), .LO_W(8)) dut (
        .clk, .rst, .now, .clear,
        .s_axis_tdata(s_tdata), .s_axis_tkeep(s_tkeep), .s_axis_tvalid(s_tvalid),
        .s_axis_tready(s_tready), .s_axis_tlast(s_tlast), .s_axis_tuser(s_tuser),
        .rd_addr, .rd_data, .rd_keep,
        .desc_rd_addr, .desc_len, .desc_addr, .desc_ts, .desc_user,
        .pkts_captured, .pkts_dropped, .bytes_captured, .beats_used,
        .seen_pkts, .seen_bytes, .first_ts, .last_ts, .last_len);

    prng rng, clear_rng, rd_rng;
    initial begin
        rng       = new(run_seed() ^ 64'hca9_0001);
        clear_rng = new(run_seed() ^ 64'hca9_0002);
        rd_rng    = new(run_seed() ^ 64'hca9_0003);
    end

    // `now`: uneven steps.
    always @(posedge clk) begin
        if (rst) now <= 64'h0fed_cba9_8765_4300 ^ mix64(run_seed());
        else     now <= now + 64'(1) + (rng.below(4) == 0 ? 64'(rng.below(500)) : 64'(0));
    end

    always @(posedge clk) clear_rand <= !rst && clear_rng.below(1000) < clear_permille;

    int unsigned errors = 0;
    function automatic void fail(input string what);
        errors++;
        if (errors <= 10) $display("[%0t] ERROR %s", $time, what);
    endfunction

    // ---- the model: what the capture must hold (blocking state, updated at each edge)
    logic [DATA_W+KEEP_W-1:0] exp_mem [DEPTH];
    logic [LEN_W-1:0]         exp_len [DESC_DEPTH];
    logic [ADDR_W-1:0]        exp_addr [DESC_DEPTH];
    logic [TS_W-1:0]          exp_ts [DESC_DEPTH];
    logic [USER_W-1:0]        exp_user [DESC_DEPTH];
    int unsigned     m_used = 0, m_wr = 0, m_ndesc = 0, cur_len = 0;
    longint unsigned m_dropped = 0, m_bytes = 0;
    logic [TS_W-1:0]   cur_ts;
    logic [USER_W-1:0] cur_user;
    int unsigned       cur_addr = 0;
    bit              m_in_pkt = 1'b0, m_discard = 1'b1;
    // The link monitor's model.
    bit              mon_in = 1'b0;
    longint unsigned mon_len = 0, mon_pkts = 0, mon_bytes = 0, mon_last_len = 0, mon_counted = 0;
    logic [TS_W-1:0] mon_ts, mon_first = '0, mon_last = '0;
    longint unsigned pkts_seen = 0, captured_total = 0, mem_drops = 0, desc_drops = 0, cuts = 0, reads_checked = 0;

    /* verilator lint_off BLKSEQ */
    always @(posedge clk) begin
        if (!rst) begin
            if (!s_tready) fail("s_axis_tready low");
            if (clear) begin
                mon_in = 1'b0; mon_pkts = 0; mon_bytes = 0; mon_first = '0; mon_last = '0; mon_last_len = 0;
            end else if (s_tvalid && (!m_in_pkt || mon_in)) begin
                if (!m_in_pkt) begin
                    mon_len = 0;
                    mon_ts = now;
                end
                mon_len += $countones(s_tkeep);
                mon_in = !s_tlast;
                if (s_tlast) begin
                    if (mon_pkts == 0) mon_first = mon_ts;
                    mon_pkts++;
                    mon_counted++;
                    mon_bytes += mon_len;
                    mon_last = mon_ts;
                    mon_last_len = mon_len;
                end
            end
            if (clear) begin
                if (s_tvalid ? !s_tlast : m_in_pkt) cuts++;
                m_used = 0; m_wr = 0; m_ndesc = 0; m_dropped = 0; m_bytes = 0; m_discard = 1'b1;
            end else if (s_tvalid && (!m_in_pkt || !m_discard)) begin
                if (!m_in_pkt) begin
                    cur_addr = m_used;
                    cur_ts = now;
                    cur_user = s_tuser;
                    cur_len = 0;
                    m_wr = m_used;
                end
                if (m_wr == DEPTH || (!m_in_pkt && m_ndesc == DESC_DEPTH)) begin
                    if (!m_in_pkt && m_ndesc == DESC_DEPTH) desc_drops++;
                    else mem_drops++;
                    m_dropped++;
                    m_discard = 1'b1;
                    m_wr = m_used;
                end else begin
                    exp_mem[m_wr] = {s_tkeep, s_tdata};
                    m_wr++;
                    cur_len += $countones(s_tkeep);
                    m_discard = 1'b0;
                    if (s_tlast) begin
                        exp_len[m_ndesc] = LEN_W'(cur_len);
                        exp_addr[m_ndesc] = ADDR_W'(cur_addr);
                        exp_ts[m_ndesc] = cur_ts;
                        exp_user[m_ndesc] = cur_user;
                        m_ndesc++;
                        m_used = m_wr;
                        m_bytes += longint'(cur_len);
                        captured_total++;
                    end
                end
            end
            if (s_tvalid) begin
                m_in_pkt = !s_tlast;
                if (s_tlast) pkts_seen++;
            end
        end
    end

    // ---- counters every cycle; the read ports at random captured entries (bg_read) or as the
    // readout drives them. A read set up at a falling edge shows at the next falling edge.
    bit                       bg_read = 1'b0, rd_check = 1'b0, desc_check = 1'b0, ro_on = 1'b0;
    int unsigned              ro_i = 0;
    logic [DATA_W+KEEP_W-1:0] rd_want;
    logic [LEN_W+ADDR_W+TS_W+USER_W-1:0] desc_want;

    always @(negedge clk) begin
        if (!rst) begin
            if (pkts_captured != 32'(m_ndesc) || pkts_dropped != 32'(m_dropped) || bytes_captured != 32'(m_bytes)
                    || beats_used != (ADDR_W + 1)'(m_used))
                fail($sformatf("counters: captured %0d dropped %0d bytes %0d beats %0d, want %0d %0d %0d %0d",
                               pkts_captured, pkts_dropped, bytes_captured, beats_used, m_ndesc, m_dropped, m_bytes, m_used));
            if (seen_pkts != 32'(mon_pkts) || seen_bytes != mon_bytes || first_ts != mon_first || last_ts != mon_last
                    || last_len != 32'(mon_last_len))
                fail($sformatf("monitor: %0d packets %0d bytes first %h last %h len %0d, want %0d %0d %h %h %0d",
                               seen_pkts, seen_bytes, first_ts, last_ts, last_len, mon_pkts, mon_bytes, mon_first, mon_last, mon_last_len));
            if (rd_check && {rd_keep, rd_data} != rd_want)
                fail($sformatf("beat read: got keep=%h data=%h, want %h", rd_keep, rd_data, rd_want));
            if (desc_check && {desc_len, desc_addr, desc_ts, desc_user} != desc_want)
                fail($sformatf("descriptor read: got len=%0d addr=%0d ts=%h user=%h, want %h",
                               desc_len, desc_addr, desc_ts, desc_user, desc_want));
            reads_checked += longint'(rd_check) + longint'(desc_check);
            rd_check = 1'b0;
            desc_check = 1'b0;
            if (ro_on) begin
                // The readout: entry ro_i of both ports.
                if (ro_i < m_ndesc) begin
                    desc_rd_addr = DESC_ADDR_W'(ro_i);
                    desc_want = {exp_len[ro_i], exp_addr[ro_i], exp_ts[ro_i], exp_user[ro_i]};
                    desc_check = 1'b1;
                end
                if (ro_i < m_used) begin
                    rd_addr = ADDR_W'(ro_i);
                    rd_want = exp_mem[ro_i];
                    rd_check = 1'b1;
                end
                ro_i++;
                ro_on = ro_i < m_ndesc || ro_i < m_used;
            end else if (bg_read) begin
                if (m_used != 0) begin
                    rd_addr = ADDR_W'(rd_rng.below(m_used));
                    rd_want = exp_mem[rd_addr];
                    rd_check = 1'b1;
                end
                if (m_ndesc != 0) begin
                    desc_rd_addr = DESC_ADDR_W'(rd_rng.below(m_ndesc));
                    desc_want = {exp_len[desc_rd_addr], exp_addr[desc_rd_addr], exp_ts[desc_rd_addr], exp_user[desc_rd_addr]};
                    desc_check = 1'b1;
                end
            end
        end
    end
    /* verilator lint_on BLKSEQ */

    // Read back every descriptor and every captured beat (capture idle), through the checker
    // above (driving the ports from here would race with it at the falling edge).
    task automatic readout();
        bg_read = 1'b0;
        @(negedge clk);
        ro_i = 0;
        ro_on = 1'b1;
        while (ro_on) @(negedge clk);
        repeat (2) @(negedge clk);
    endtask

    logic            measure = 1'b0;
    longint unsigned cycle, refused;
    always @(posedge clk) cycle <= rst ? 0 : cycle + 1;
    /* verilator lint_off PINCONNECTEMPTY */
    p4f_tb_axis_rate u_rate (.clk, .measure, .cycle, .tvalid(s_tvalid), .tready(s_tready),
        .refused, .beats(), .first(), .last());
    /* verilator lint_on PINCONNECTEMPTY */

    // Send `packets` more packets with the given idle odds and clear rate, read everything back,
    // then clear.
    task automatic phase(input string name, input int unsigned idle, input int unsigned clears,
                         input int unsigned packets);
        longint unsigned t0 = cycle, drops0 = mem_drops + desc_drops;
        @(negedge clk);
        idle_pct = idle;
        clear_permille = clears;
        bg_read = 1'b1;
        packet_limit += longint'(packets);
        while (pkts_seen < packet_limit) begin
            @(negedge clk);
            if (cycle - t0 > 100000) begin
                fail($sformatf("%s: timeout, %0d of %0d packets sent", name, pkts_seen, packet_limit));
                break;
            end
        end
        clear_permille = 0;
        repeat (3) @(negedge clk);
        $display("phase %-24s idle %2d%% clears %2d/1000: %0d packets, %0d captured and %0d dropped at the end, %0d drops, %0d cycles",
                 name, idle, clears, packets, m_ndesc, m_dropped, mem_drops + desc_drops - drops0, cycle - t0);
        readout();
        clear_cmd = 1'b1;
        @(negedge clk) clear_cmd = 1'b0;
        if (m_ndesc != 0 || m_used != 0) fail("clear left the model non-empty");
    endtask

    initial begin
        repeat (5) @(posedge clk);
        @(negedge clk) rst = 1'b0;
        $display("tb_p4f_pkt_cap: seed %0d, DATA_W %0d, DEPTH %0d, DESC_DEPTH %0d", run_seed(), DATA_W, DEPTH, DESC_DEPTH);
        phase("idle", 30, 0, 80);
        measure = 1'b1;
        phase("line rate", 0, 0, 80);
        if (refused != 0) fail($sformatf("line rate: %0d beats refused", refused));
        measure = 1'b0;
        phase("heavy idle", 90, 0, 40);
        phase("clears", 10, 10, 300);
        phase("clears, idle", 50, 5, 200);
        // Every captured packet is seen too, and some dropped ones (a drop cut by a clear is not).
        if (mon_counted <= captured_total)
            fail($sformatf("monitor counted %0d packets, not more than the %0d captured", mon_counted, captured_total));
        if (mem_drops == 0 || desc_drops == 0 || cuts == 0)
            fail($sformatf("not exercised: %0d drops for RAM, %0d for descriptors, %0d packets cut by clear",
                           mem_drops, desc_drops, cuts));
        if (errors == 0) begin
            $display("PASS tb_p4f_pkt_cap (seed %0d): %0d packets sent, %0d captured, %0d dropped (%0d RAM, %0d descriptors), %0d cut by clear, %0d reads checked, %0d monitored",
                     run_seed(), pkts_seen, captured_total, mem_drops + desc_drops, mem_drops, desc_drops, cuts, reads_checked, mon_counted);
            $finish;
        end else begin
            $fatal(1, "FAIL tb_p4f_pkt_cap (seed %0d): %0d failed checks", run_seed(), errors);
        end
    end

endmodule

`default_nettype wire

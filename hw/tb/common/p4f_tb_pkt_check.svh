// p4f_tb_pkt_check.svh: the scoreboard for queues that may drop whole packets (p4f_axis_pkt_fifo,
// p4f_port_rx, p4f_port_tx), `included inside the testbench module before p4f_tb_phase.svh.
//
// Every packet taken on s_axis is recorded whole (on P4F_PC_S_CLK). Each packet leaving m_axis
// (on P4F_PC_M_CLK) must equal, bit for bit, the oldest recorded packet not yet matched; the
// recorded packets it passes over are the dropped ones, and each must satisfy the testbench's
// pc_drop_ok(beats). So a truncated, corrupted, reordered or duplicated packet matches nothing and
// is an error, and a drop the DUT was not allowed to make is an error. pc_settle() (after a phase
// has drained) counts the packets never seen as dropped too and compares the total with the DUT's
// drop_count. Also checked on m_axis: a stalled beat stays unchanged, and there is no cycle
// without tvalid between a packet's first and last beat (store-and-forward: no gap inside).
//
// Expects, declared before the include: DATA_W, KEEP_W, USER_W; s_rst, m_rst; s_t*/m_t* stream
// signals; drop_count; packets_received and beats_received (this file drives them: packets
// matched plus those dropped and whole, and beats matched plus beats of the packets passed over
// or waiting);
// function bit pc_drop_ok(int unsigned beats) and pc_pass_ok(int unsigned beats).
// Declares `errors` (the phase include's end_run reads it).
`ifndef P4F_PC_S_CLK
`define P4F_PC_S_CLK s_clk
`endif
`ifndef P4F_PC_M_CLK
`define P4F_PC_M_CLK m_clk
`endif

    localparam int PC_WORD_W = DATA_W + KEEP_W + USER_W + 1;

    class pc_pkt;
        logic [PC_WORD_W-1:0] beats[$];
    endclass

    int unsigned     errors = 0;
    pc_pkt           pc_in_q[$];            // packets taken, not yet matched or passed over
    pc_pkt           pc_cur_in = new, pc_cur_out = new;
    longint unsigned pc_matched = 0, pc_skipped = 0;
    longint unsigned pc_matched_beats = 0, pc_skipped_beats = 0, pc_queued_beats = 0;
    logic            pc_out_in_pkt = 1'b0, pc_stalled = 1'b0;
    logic [PC_WORD_W-1:0] pc_prev;

    task automatic pc_fail(input string what);
        errors++;
        if (errors < 10) $display("[%0t] ERROR %s", $time, what);
    endtask

    function automatic bit pc_same(input pc_pkt a, input pc_pkt b);
        if (a.beats.size() != b.beats.size()) return 1'b0;
        foreach (a.beats[i]) if (a.beats[i] != b.beats[i]) return 1'b0;
        return 1'b1;
    endfunction

    // The model's own state is updated with blocking assignments.
    /* verilator lint_off BLKSEQ */
    always @(posedge `P4F_PC_S_CLK) begin
        if (!s_rst && s_tvalid && s_tready) begin
            pc_cur_in.beats.push_back({s_tlast, s_tuser, s_tkeep, s_tdata});
            if (s_tlast) begin
                pc_in_q.push_back(pc_cur_in);
                pc_queued_beats += longint'(pc_cur_in.beats.size());
                pc_cur_in = new;
            end
        end
    end

    always @(posedge `P4F_PC_M_CLK) begin
        logic [PC_WORD_W-1:0] w;
        pc_pkt p;
        w = {m_tlast, m_tuser, m_tkeep, m_tdata};
        if (!m_rst) begin
            if (pc_stalled && (!m_tvalid || w != pc_prev)) pc_fail("m_axis beat changed or dropped while stalled");
            if (pc_out_in_pkt && !m_tvalid) pc_fail("gap inside a packet on m_axis");
            pc_stalled = m_tvalid && !m_tready;
            pc_prev = w;
            if (m_tvalid && m_tready) begin
                pc_cur_out.beats.push_back(w);
                pc_out_in_pkt = !m_tlast;
                if (m_tlast) begin
                    while (pc_in_q.size() != 0 && !pc_same(pc_in_q[0], pc_cur_out)) begin
                        p = pc_in_q.pop_front();
                        if (!pc_drop_ok(p.beats.size()))
                            pc_fail($sformatf("packet %0d (%0d beats) dropped, or the packet out differs from it",
                                              pc_matched + pc_skipped, p.beats.size()));
                        pc_skipped++;
                        pc_skipped_beats += longint'(p.beats.size());
                        pc_queued_beats -= longint'(p.beats.size());
                    end
                    if (pc_in_q.size() == 0) begin
                        pc_fail($sformatf("a packet of %0d beats out matches no packet sent (corrupt, reordered or duplicated)",
                                          pc_cur_out.beats.size()));
                    end else begin
                        p = pc_in_q.pop_front();
                        if (!pc_pass_ok(p.beats.size())) pc_fail($sformatf("a packet of %0d beats should have been dropped", p.beats.size()));
                        pc_matched++;
                        pc_matched_beats += longint'(p.beats.size());
                        pc_queued_beats -= longint'(p.beats.size());
                    end
                    pc_cur_out = new;
                end
            end
            // A dropped packet counts once all its beats have been sent (drop_count may go up
            // on its first beat).
            packets_received = pc_matched + ((longint'(drop_count) < pc_skipped + longint'(pc_in_q.size()))
                                             ? longint'(drop_count) : pc_skipped + longint'(pc_in_q.size()));
            beats_received = pc_matched_beats + pc_skipped_beats + pc_queued_beats;
        end
    end
    /* verilator lint_on BLKSEQ */

    // After a phase has drained: the packets still recorded never came out, so they were dropped;
    // all drops together must be what the DUT counted.
    task automatic pc_settle(input string name);
        pc_pkt p;
        while (pc_in_q.size() != 0) begin
            p = pc_in_q.pop_front();
            if (!pc_drop_ok(p.beats.size())) pc_fail($sformatf("%s: a packet of %0d beats never came out", name, p.beats.size()));
            pc_skipped++;
            pc_skipped_beats += longint'(p.beats.size());
            pc_queued_beats -= longint'(p.beats.size());
        end
        if (pc_skipped != longint'(drop_count))
            pc_fail($sformatf("%s: %0d packets dropped, drop_count says %0d", name, pc_skipped, drop_count));
    endtask

`undef P4F_PC_S_CLK
`undef P4F_PC_M_CLK

// p4f_tb_phase.svh: the check counter and the phase control every AXI-Stream testbench shares,
// `included inside the testbench module. It expects, declared before the include: idle_pct,
// stall_pct, packet_limit (the sources' knobs), packets_received and beats_received (the sink's
// counts). A testbench whose defaults below do not fit defines these macros before the include
// (the include undefines them all at its end). end_run() also reads the sink's `errors`.
//   P4F_TB_CLK            clock the phase waits on                  (clk)
//   P4F_TB_CYCLE          cycle counter on that clock               (cycle)
//   P4F_TB_CYCLES_NAME    what the phase line calls those cycles    ("cycles")
//   P4F_TB_TIMEOUT        cycles a phase may take                   (200000)
//   P4F_TB_PACKETS_DUE    packets the sink must have seen           (packet_limit)
//   P4F_TB_PACKETS_SHOWN  packet count the phase line prints        (packet_limit)
//   P4F_TB_BEATS_SENT     beats all sources have sent               (beats_sent)
//   P4F_TB_CHECK_TIME     defined: ERROR lines carry the sim time
`ifndef P4F_TB_CLK
`define P4F_TB_CLK clk
`endif
`ifndef P4F_TB_CYCLE
`define P4F_TB_CYCLE cycle
`endif
`ifndef P4F_TB_CYCLES_NAME
`define P4F_TB_CYCLES_NAME "cycles"
`endif
`ifndef P4F_TB_TIMEOUT
`define P4F_TB_TIMEOUT 200000
`endif
`ifndef P4F_TB_PACKETS_DUE
`define P4F_TB_PACKETS_DUE packet_limit
`endif
`ifndef P4F_TB_PACKETS_SHOWN
`define P4F_TB_PACKETS_SHOWN packet_limit
`endif
`ifndef P4F_TB_BEATS_SENT
`define P4F_TB_BEATS_SENT beats_sent
`endif

    int unsigned failures = 0;

    task automatic check(input bit ok, input string what);
        if (!ok) begin
            failures++;
`ifdef P4F_TB_CHECK_TIME
            $display("[%0t] ERROR %s", $time, what);
`else
            $display("ERROR %s", what);
`endif
        end
    endtask

    // Let every source send `packets` more packets with the given idle and stall odds (percent);
    // wait until all arrive, then check that the sink received every beat the sources sent (the
    // sink itself checks each beat's content against the source's stream).
    task automatic phase(input string name, input int unsigned idle, input int unsigned stall,
                         input int unsigned packets);
        longint unsigned t0 = `P4F_TB_CYCLE;
        @(negedge `P4F_TB_CLK);
        idle_pct = idle;
        stall_pct = stall;
        packet_limit += longint'(packets);
        while (packets_received < `P4F_TB_PACKETS_DUE) begin
            @(posedge `P4F_TB_CLK);
            if (`P4F_TB_CYCLE - t0 > `P4F_TB_TIMEOUT) begin
                check(0, $sformatf("%s: timeout, %0d of %0d packets arrived", name, packets_received, `P4F_TB_PACKETS_DUE));
                return;
            end
        end
        repeat (4) @(posedge `P4F_TB_CLK);
        check(beats_received == `P4F_TB_BEATS_SENT, $sformatf("%s: %0d beats sent, %0d received", name, `P4F_TB_BEATS_SENT, beats_received));
        $display("phase %-28s idle %2d%% stall %2d%%: %0d packets, %0d beats so far, %0d %s",
                 name, idle, stall, `P4F_TB_PACKETS_SHOWN, beats_received, `P4F_TB_CYCLE - t0, `P4F_TB_CYCLES_NAME);
    endtask

    // The end of a run: the sink's scoreboard must be clean and no check may have failed.
    // `tb` names the testbench in the PASS or FAIL line; `pass` is the rest of the PASS line.
    task automatic end_run(input string tb, input string pass);
        check(errors == 0, $sformatf("scoreboard: %0d errors", errors));
        if (failures == 0) begin
            $display("PASS %s %s", tb, pass);
            $finish;
        end else begin
            $fatal(1, "FAIL %s (seed %0d): %0d failed checks", tb, p4f_tb_pkg::run_seed(), failures + errors);
        end
    endtask

`undef P4F_TB_CLK
`undef P4F_TB_CYCLE
`undef P4F_TB_CYCLES_NAME
`undef P4F_TB_TIMEOUT
`undef P4F_TB_PACKETS_DUE
`undef P4F_TB_PACKETS_SHOWN
`undef P4F_TB_BEATS_SENT
`undef P4F_TB_CHECK_TIME

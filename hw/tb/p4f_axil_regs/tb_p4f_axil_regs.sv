// Testbench for p4f_axil_regs: random writes (random wstrb, address and data channels in either
// order with random gaps) and reads over the whole map plus unmapped words, against a model of
// the registers; random bready/rready backpressure; every response code, read value,
// ctrl_regs output and ctrl_write pulse checked; write_hold raised at random, and no register
// written in a cycle it holds. +seed=N.
`timescale 1ns / 1ps
`default_nettype none

module tb_p4f_axil_regs;
    localparam int DATA_W       = 32;
    localparam int STRB_W       = DATA_W / 8;
    localparam int ADDR_W       = 8;
    localparam int REG_COUNT    = 6;
    localparam int STATUS_COUNT = 3;
    localparam int OPS          = 3000;

    logic clk;
    initial clk = 1'b0;
    logic rst = 1'b1;
    always #2 clk = ~clk;

    logic [ADDR_W-1:0] awaddr = '0, araddr = '0;
    logic              awvalid = 1'b0, wvalid = 1'b0, arvalid = 1'b0, bready = 1'b0, rready = 1'b0;
    logic [DATA_W-1:0] wdata = '0;
    logic [STRB_W-1:0] wstrb = '0;
    logic              awready, wready, bvalid, arready, rvalid;
    logic [1:0]        bresp, rresp;
    logic [DATA_W-1:0] rdata;
    logic [REG_COUNT*DATA_W-1:0]    ctrl_regs;
    logic [REG_COUNT-1:0]           ctrl_write;
    logic [STATUS_COUNT*DATA_W-1:0] status;
    logic                           write_hold = 1'b0;

    p4f_axil_regs #(.DATA_W(DATA_W), .ADDR_W(ADDR_W), .REG_COUNT(REG_COUNT),
                    .STATUS_COUNT(STATUS_COUNT)) dut (
        .clk, .rst,
        .s_axil_awaddr(awaddr), .s_axil_awprot(3'b000), .s_axil_awvalid(awvalid), .s_axil_awready(awready),
        .s_axil_wdata(wdata), .s_axil_wstrb(wstrb), .s_axil_wvalid(wvalid), .s_axil_wready(wready),
        .s_axil_bresp(bresp), .s_axil_bvalid(bvalid), .s_axil_bready(bready),
        .s_axil_araddr(araddr), .s_axil_arprot(3'b000), .s_axil_arvalid(arvalid), .s_axil_arready(arready),
        .s_axil_rdata(rdata), .s_axil_rresp(rresp), .s_axil_rvalid(rvalid), .s_axil_rready(rready),
        .ctrl_regs, .ctrl_write, .write_hold, .status);

    p4f_tb_pkg::prng rng, aw_rng, w_rng, ready_rng, hold_rng;
    int unsigned failures = 0;

    task automatic check(input bit ok, input string what);
        if (!ok) begin
            failures++;
            if (failures < 10) $display("[%0t] ERROR %s", $time, what);
        end
    endtask

    // Sink backpressure: bready and rready each low with probability stall_pct/100.
    int unsigned stall_pct = 30;
    always @(negedge clk) begin
        bready <= ready_rng.below(100) >= stall_pct;
        rready <= ready_rng.below(100) >= stall_pct;
    end

    // A busy unit holds writes in runs of a few cycles, about a quarter of the time.
    always @(negedge clk) begin
        if (write_hold) write_hold <= hold_rng.below(4) != 0;
        else write_hold <= hold_rng.below(12) == 0;
    end

    // An edge with write_hold writes nothing: no pulse and the registers as they were.
    logic hold_prev = 1'b0;
    logic [REG_COUNT*DATA_W-1:0] regs_prev;
    always @(posedge clk) begin
        if (!rst && hold_prev) begin
            check(ctrl_write == '0, "ctrl_write pulsed after an edge with write_hold");
            check(ctrl_regs == regs_prev, "ctrl_regs changed at an edge with write_hold");
        end
        hold_prev <= write_hold;
        regs_prev <= ctrl_regs;
    end

    int unsigned write_pulses [REG_COUNT];
    always @(posedge clk) begin
        for (int i = 0; i < REG_COUNT; i++)
            write_pulses[i] <= rst ? 0 : write_pulses[i] + int'(ctrl_write[i]);
    end

    localparam string TB_NAME = "tb_p4f_axil_regs";
    localparam int AXIL_ADDR_W = ADDR_W;
    `include "p4f_tb_axil_master.svh"

    logic [DATA_W-1:0] model [REG_COUNT];
    int unsigned       model_writes [REG_COUNT];

    task automatic set_status();
        for (int i = 0; i < STATUS_COUNT; i++) status[i*DATA_W +: DATA_W] = DATA_W'(rng.next());
    endtask

    initial begin
        automatic longint unsigned seed = p4f_tb_pkg::run_seed();
        automatic int unsigned writes = 0, reads = 0, errs = 0;
        rng = new(seed);
        aw_rng = new(seed ^ 64'ha);
        w_rng = new(seed ^ 64'hb);
        ready_rng = new(seed ^ 64'hc);
        hold_rng = new(seed ^ 64'hd);
        for (int i = 0; i < REG_COUNT; i++) begin
            model[i] = '0;
            model_writes[i] = 0;
        end
        set_status();
        repeat (5) @(posedge clk);
        @(negedge clk) rst = 1'b0;
        $display("tb_p4f_axil_regs: seed %0d, %0d control + %0d status words", seed, REG_COUNT, STATUS_COUNT);

        for (int op = 0; op < OPS; op++) begin
            // Word index over the map and a few unmapped words beyond; a random byte offset,
            // which the register file must ignore.
            automatic int unsigned word = rng.below(REG_COUNT + STATUS_COUNT + 3);
            automatic logic [ADDR_W-1:0] addr = ADDR_W'(word * STRB_W + rng.below(STRB_W));
            logic [1:0] resp, want_resp;
            logic [DATA_W-1:0] d, want;
            if (op == OPS / 2) begin
                set_status();
                stall_pct = 70;
            end
            if (rng.below(2) == 0) begin
                automatic logic [STRB_W-1:0] strb = STRB_W'(rng.next());
                d = DATA_W'(rng.next());
                axil_write(addr, d, strb, resp);
                writes++;
                if (word < REG_COUNT) begin
                    for (int b = 0; b < STRB_W; b++) if (strb[b]) model[word][b*8 +: 8] = d[b*8 +: 8];
                    model_writes[word]++;
                    want_resp = 2'b00;
                end else begin
                    want_resp = word < REG_COUNT + STATUS_COUNT ? 2'b10 : 2'b11;
                end
                if (want_resp != 2'b00) errs++;
                check(resp == want_resp, $sformatf("write word %0d: bresp %b, want %b", word, resp, want_resp));
                for (int i = 0; i < REG_COUNT; i++)
                    check(ctrl_regs[i*DATA_W +: DATA_W] == model[i],
                          $sformatf("after write to word %0d: ctrl_regs[%0d] = %h, want %h", word, i, ctrl_regs[i*DATA_W +: DATA_W], model[i]));
            end else begin
                axil_read(addr, d, resp);
                reads++;
                if (word < REG_COUNT) begin
                    want = model[word]; want_resp = 2'b00;
                end else if (word < REG_COUNT + STATUS_COUNT) begin
                    want = status[(word - REG_COUNT)*DATA_W +: DATA_W]; want_resp = 2'b00;
                end else begin
                    want = '0; want_resp = 2'b11;
                end
                check(resp == want_resp && d == want,
                      $sformatf("read word %0d: %h resp %b, want %h resp %b", word, d, resp, want, want_resp));
            end
        end
        repeat (4) @(posedge clk);
        for (int i = 0; i < REG_COUNT; i++)
            check(write_pulses[i] == model_writes[i],
                  $sformatf("ctrl_write[%0d] pulsed %0d times for %0d writes", i, write_pulses[i], model_writes[i]));

        if (failures == 0) begin
            $display("PASS tb_p4f_axil_regs (seed %0d): %0d writes (%0d refused as expected), %0d reads checked",
                     seed, writes, errs, reads);
            $finish;
        end else begin
            $fatal(1, "FAIL tb_p4f_axil_regs (seed %0d): %0d failed checks", seed, failures);
        end
    end

endmodule

`default_nettype wire

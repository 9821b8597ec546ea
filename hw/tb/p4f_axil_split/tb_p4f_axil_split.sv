// Testbench for p4f_axil_split: two p4f_axil_regs behind it (different sizes), random writes
// (random wstrb, address and data channels in either order with random gaps) and reads over both
// halves of the map, mapped and unmapped words, against a model of both register files; random
// bready/rready backpressure and write_hold on each file. Every response code and read value is
// checked, and each file's ctrl_regs after every write (the other half unchanged). +seed=N.
`timescale 1ns / 1ps
`default_nettype none

module tb_p4f_axil_split;
    localparam int DATA_W  = 32;
    localparam int STRB_W  = DATA_W / 8;
    localparam int SEL_BIT = 6;  // 16 words per half
    localparam int REGS_A  = 5, REGS_B = 9, STATUS = 2;
    localparam int OPS     = 3000;

    logic clk;
    initial clk = 1'b0;
    logic rst = 1'b1;
    always #2 clk = ~clk;

    logic [SEL_BIT:0]  awaddr = '0, araddr = '0;
    logic              awvalid = 1'b0, wvalid = 1'b0, arvalid = 1'b0, bready = 1'b0, rready = 1'b0;
    logic [DATA_W-1:0] wdata = '0;
    logic [STRB_W-1:0] wstrb = '0;
    logic              awready, wready, bvalid, arready, rvalid;
    logic [1:0]        bresp, rresp;
    logic [DATA_W-1:0] rdata;

    logic [2*SEL_BIT-1:0] m_awaddr, m_araddr;
    logic [5:0]           m_awprot, m_arprot;
    logic [1:0]           m_awvalid, m_awready, m_wvalid, m_wready, m_bvalid, m_bready;
    logic [1:0]           m_arvalid, m_arready, m_rvalid, m_rready;
    logic [2*DATA_W-1:0]  m_wdata, m_rdata;
    logic [2*STRB_W-1:0]  m_wstrb;
    logic [3:0]           m_bresp, m_rresp;

    p4f_axil_split #(.DATA_W(DATA_W), .SEL_BIT(SEL_BIT)) dut (
        .clk, .rst,
        .s_axil_awaddr(awaddr), .s_axil_awprot(3'b000), .s_axil_awvalid(awvalid), .s_axil_awready(awready),
        .s_axil_wdata(wdata), .s_axil_wstrb(wstrb), .s_axil_wvalid(wvalid), .s_axil_wready(wready),
        .s_axil_bresp(bresp), .s_axil_bvalid(bvalid), .s_axil_bready(bready),
        .s_axil_araddr(araddr), .s_axil_arprot(3'b000), .s_axil_arvalid(arvalid), .s_axil_arready(arready),
        .s_axil_rdata(rdata), .s_axil_rresp(rresp), .s_axil_rvalid(rvalid), .s_axil_rready(rready),
        .m_axil_awaddr(m_awaddr), .m_axil_awprot(m_awprot), .m_axil_awvalid(m_awvalid), .m_axil_awready(m_awready),
        .m_axil_wdata(m_wdata), .m_axil_wstrb(m_wstrb), .m_axil_wvalid(m_wvalid), .m_axil_wready(m_wready),
        .m_axil_bresp(m_bresp), .m_axil_bvalid(m_bvalid), .m_axil_bready(m_bready),
        .m_axil_araddr(m_araddr), .m_axil_arprot(m_arprot), .m_axil_arvalid(m_arvalid), .m_axil_arready(m_arready),
        .m_axil_rdata(m_rdata), .m_axil_rresp(m_rresp), .m_axil_rvalid(m_rvalid), .m_axil_rready(m_rready));

    logic [REGS_A*DATA_W-1:0] regs_a;
    logic [REGS_B*DATA_W-1:0] regs_b;
    logic [STATUS*DATA_W-1:0] status_a = 64'h0a0a_0001_0a0a_0000, status_b = 64'h0b0b_0001_0b0b_0000;
    logic [1:0]               hold = 2'b00;
    /* verilator lint_off PINCONNECTEMPTY */
    p4f_axil_regs #(.DATA_W(DATA_W), .ADDR_W(SEL_BIT), .REG_COUNT(REGS_A), .STATUS_COUNT(STATUS)) u_a (
        .clk, .rst,
        .s_axil_awaddr(m_awaddr[0 +: SEL_BIT]), .s_axil_awprot(m_awprot[0 +: 3]), .s_axil_awvalid(m_awvalid[0]), .s_axil_awready(m_awready[0]),
        .s_axil_wdata(m_wdata[0 +: DATA_W]), .s_axil_wstrb(m_wstrb[0 +: STRB_W]), .s_axil_wvalid(m_wvalid[0]), .s_axil_wready(m_wready[0]),
        .s_axil_bresp(m_bresp[0 +: 2]), .s_axil_bvalid(m_bvalid[0]), .s_axil_bready(m_bready[0]),
        .s_axil_araddr(m_araddr[0 +: SEL_BIT]), .s_axil_arprot(m_arprot[0 +: 3]), .s_axil_arvalid(m_arvalid[0]), .s_axil_arready(m_arready[0]),
        .s_axil_rdata(m_rdata[0 +: DATA_W]), .s_axil_rresp(m_rresp[0 +: 2]), .s_axil_rvalid(m_rvalid[0]), .s_axil_rready(m_rready[0]),
        .ctrl_regs(regs_a), .ctrl_write(), .write_hold(hold[0]), .status(status_a));
    p4f_axil_regs #(.DATA_W(DATA_W), .ADDR_W(SEL_BIT), .REG_COUNT(REGS_B), .STATUS_COUNT(STATUS)) u_b (
        .clk, .rst,
        .s_axil_awaddr(m_awaddr[SEL_BIT +: SEL_BIT]), .s_axil_awprot(m_awprot[3 +: 3]), .s_axil_awvalid(m_awvalid[1]), .s_axil_awready(m_awready[1]),
        .s_axil_wdata(m_wdata[DATA_W +: DATA_W]), .s_axil_wstrb(m_wstrb[STRB_W +: STRB_W]), .s_axil_wvalid(m_wvalid[1]), .s_axil_wready(m_wready[1]),
        .s_axil_bresp(m_bresp[2 +: 2]), .s_axil_bvalid(m_bvalid[1]), .s_axil_bready(m_bready[1]),
        .s_axil_araddr(m_araddr[SEL_BIT +: SEL_BIT]), .s_axil_arprot(m_arprot[3 +: 3]), .s_axil_arvalid(m_arvalid[1]), .s_axil_arready(m_arready[1]),
        .s_axil_rdata(m_rdata[DATA_W +: DATA_W]), .s_axil_rresp(m_rresp[2 +: 2]), .s_axil_rvalid(m_rvalid[1]), .s_axil_rready(m_rready[1]),
        .ctrl_regs(regs_b), .ctrl_write(), .write_hold(hold[1]), .status(status_b));
    /* verilator lint_on PINCONNECTEMPTY */

    p4f_tb_pkg::prng rng, aw_rng, w_rng, ready_rng, hold_rng;
    int unsigned failures = 0;

    task automatic check(input bit ok, input string what);
        if (!ok) begin
            failures++;
            if (failures < 10) $display("[%0t] ERROR %s", $time, what);
        end
    endtask

    int unsigned stall_pct = 30;
    always @(negedge clk) begin
        bready <= ready_rng.below(100) >= stall_pct;
        rready <= ready_rng.below(100) >= stall_pct;
        for (int i = 0; i < 2; i++) hold[i] <= hold[i] ? hold_rng.below(4) != 0 : hold_rng.below(12) == 0;
    end

    localparam string TB_NAME = "tb_p4f_axil_split";
    localparam int AXIL_ADDR_W = SEL_BIT + 1;
    `include "p4f_tb_axil_master.svh"

    logic [DATA_W-1:0] model_a [REGS_A];
    logic [DATA_W-1:0] model_b [REGS_B];

    initial begin
        automatic longint unsigned seed = p4f_tb_pkg::run_seed();
        automatic int unsigned writes = 0, reads = 0, per_half [2] = '{0, 0};
        rng = new(seed);
        aw_rng = new(seed ^ 64'ha);
        w_rng = new(seed ^ 64'hb);
        ready_rng = new(seed ^ 64'hc);
        hold_rng = new(seed ^ 64'hd);
        for (int i = 0; i < REGS_A; i++) model_a[i] = '0;
        for (int i = 0; i < REGS_B; i++) model_b[i] = '0;
        repeat (5) @(posedge clk);
        @(negedge clk) rst = 1'b0;
        $display("tb_p4f_axil_split: seed %0d, halves of %0d and %0d control words", seed, REGS_A, REGS_B);

        for (int op = 0; op < OPS; op++) begin
            automatic int unsigned half = rng.below(2);
            automatic int unsigned regs = half == 0 ? REGS_A : REGS_B;
            automatic int unsigned word = rng.below(regs + STATUS + 2);
            automatic logic [SEL_BIT:0] addr = {half[0], SEL_BIT'(word * STRB_W + rng.below(STRB_W))};
            logic [1:0] resp, want_resp;
            logic [DATA_W-1:0] d, want;
            per_half[half]++;
            if (op == OPS / 2) stall_pct = 70;
            if (rng.below(2) == 0) begin
                automatic logic [STRB_W-1:0] strb = STRB_W'(rng.next());
                d = DATA_W'(rng.next());
                axil_write(addr, d, strb, resp);
                writes++;
                if (word < regs) begin
                    for (int b = 0; b < STRB_W; b++) if (strb[b]) begin
                        if (half == 0) model_a[word][b*8 +: 8] = d[b*8 +: 8];
                        else model_b[word][b*8 +: 8] = d[b*8 +: 8];
                    end
                    want_resp = 2'b00;
                end else begin
                    want_resp = word < regs + STATUS ? 2'b10 : 2'b11;
                end
                check(resp == want_resp, $sformatf("write half %0d word %0d: bresp %b, want %b", half, word, resp, want_resp));
                for (int i = 0; i < REGS_A; i++)
                    check(regs_a[i*DATA_W +: DATA_W] == model_a[i], $sformatf("after a write: a[%0d] = %h, want %h", i, regs_a[i*DATA_W +: DATA_W], model_a[i]));
                for (int i = 0; i < REGS_B; i++)
                    check(regs_b[i*DATA_W +: DATA_W] == model_b[i], $sformatf("after a write: b[%0d] = %h, want %h", i, regs_b[i*DATA_W +: DATA_W], model_b[i]));
            end else begin
                axil_read(addr, d, resp);
                reads++;
                if (word < regs) begin
                    want = half == 0 ? model_a[word] : model_b[word]; want_resp = 2'b00;
                end else if (word < regs + STATUS) begin
                    want = half == 0 ? status_a[(word - regs)*DATA_W +: DATA_W] : status_b[(word - regs)*DATA_W +: DATA_W];
                    want_resp = 2'b00;
                end else begin
                    want = '0; want_resp = 2'b11;
                end
                check(resp == want_resp && d == want,
                      $sformatf("read half %0d word %0d: %h resp %b, want %h resp %b", half, word, d, resp, want, want_resp));
            end
        end

        if (failures == 0) begin
            $display("PASS tb_p4f_axil_split (seed %0d): %0d writes, %0d reads checked (%0d on a, %0d on b)",
                     seed, writes, reads, per_half[0], per_half[1]);
            $finish;
        end else begin
            $fatal(1, "FAIL tb_p4f_axil_split (seed %0d): %0d failed checks", seed, failures);
        end
    end

endmodule

`default_nettype wire

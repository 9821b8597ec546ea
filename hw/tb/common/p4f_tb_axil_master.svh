// p4f_tb_axil_master.svh: the AXI4-Lite master the register-map testbenches share, `included
// inside the testbench module. It expects, declared before the include: clk, rst, DATA_W, STRB_W,
// OPS, TB_NAME (the testbench's name for its messages), AXIL_ADDR_W (the byte address width), the
// master's signals (awaddr, awvalid, awready, wdata, wstrb, wvalid, wready, bresp, bvalid, bready,
// araddr, arvalid, arready, rdata, rresp, rvalid, rready), the generators rng, aw_rng and w_rng,
// and check(ok, what). It adds the response checks (a response held back by backpressure stays,
// unchanged, until taken), a watchdog, and the tasks axil_write and axil_read (address and data
// channels each after a random gap, so in either order).

    logic b_stalled, r_stalled;
    logic [1:0] b_prev;
    logic [DATA_W+1:0] r_prev;
    always @(posedge clk) begin
        if (!rst && b_stalled) check(bvalid && bresp == b_prev, "write response changed while stalled");
        if (!rst && r_stalled) check(rvalid && {rresp, rdata} == r_prev, "read response changed while stalled");
        b_stalled <= !rst && bvalid && !bready;
        r_stalled <= !rst && rvalid && !rready;
        b_prev <= bresp;
        r_prev <= {rresp, rdata};
    end

    // Watchdog: a lost handshake would otherwise hang the run. Each operation takes a few tens
    // of cycles even at the heaviest backpressure used.
    longint unsigned cycle = 0;
    always @(posedge clk) begin
        cycle <= cycle + 1;
        if (cycle > 200 * OPS) $fatal(1, "FAIL %s: timeout after %0d cycles (a handshake never completed)", TB_NAME, cycle);
    end

    task automatic send_aw(input logic [AXIL_ADDR_W-1:0] a);
        repeat (aw_rng.below(4)) @(negedge clk);
        awaddr = a; awvalid = 1'b1;
        @(posedge clk);
        while (!awready) @(posedge clk);
        @(negedge clk) awvalid = 1'b0;
    endtask

    task automatic send_w(input logic [DATA_W-1:0] d, input logic [STRB_W-1:0] s);
        repeat (w_rng.below(4)) @(negedge clk);
        wdata = d; wstrb = s; wvalid = 1'b1;
        @(posedge clk);
        while (!wready) @(posedge clk);
        @(negedge clk) wvalid = 1'b0;
    endtask

    task automatic axil_write(input logic [AXIL_ADDR_W-1:0] a, input logic [DATA_W-1:0] d,
                              input logic [STRB_W-1:0] s, output logic [1:0] resp);
        fork
            send_aw(a);
            send_w(d, s);
        join
        while (!(bvalid && bready)) @(posedge clk);
        resp = bresp;
        @(negedge clk);
    endtask

    task automatic axil_read(input logic [AXIL_ADDR_W-1:0] a, output logic [DATA_W-1:0] d,
                             output logic [1:0] resp);
        repeat (rng.below(3)) @(negedge clk);
        araddr = a; arvalid = 1'b1;
        @(posedge clk);
        while (!arready) @(posedge clk);
        @(negedge clk) arvalid = 1'b0;
        while (!(rvalid && rready)) @(posedge clk);
        d = rdata;
        resp = rresp;
        @(negedge clk);
    endtask

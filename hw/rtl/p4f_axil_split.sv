// p4f_axil_split: one AXI4-Lite port to two, by one address bit. Requests with bit SEL_BIT of
// their byte address 0 go to port a, with it 1 to port b; each port sees the address below that
// bit. A design made of two register maps (one per pipeline of a two-pipeline architecture)
// answers on one control port this way.
//
// Timing: the write address and data channels are taken independently (each holds one request);
// once both are held the write goes out on the selected port (its address and data channels
// each until taken) and its response comes back through a register. A read goes out once taken
// and its answer comes back through a register. One write and one read in flight; the two are
// independent, as the ports' own channels are.
`default_nettype none

module p4f_axil_split #(
    parameter int DATA_W  = 32,          // AXI4-Lite data width
    parameter int STRB_W  = DATA_W / 8,  // wstrb width
    parameter int SEL_BIT = 8            // byte address bit choosing the port; the ports' address width
) (
    input  wire logic                clk,
    input  wire logic                rst,

    input  wire logic [SEL_BIT:0]    s_axil_awaddr,
    input  wire logic [2:0]          s_axil_awprot,
    input  wire logic                s_axil_awvalid,
    output logic                     s_axil_awready,
    input  wire logic [DATA_W-1:0]   s_axil_wdata,
    input  wire logic [STRB_W-1:0]   s_axil_wstrb,
    input  wire logic                s_axil_wvalid,
    output logic                     s_axil_wready,
    output logic      [1:0]          s_axil_bresp,
    output logic                     s_axil_bvalid,
    input  wire logic                s_axil_bready,
    input  wire logic [SEL_BIT:0]    s_axil_araddr,
    input  wire logic [2:0]          s_axil_arprot,
    input  wire logic                s_axil_arvalid,
    output logic                     s_axil_arready,
    output logic      [DATA_W-1:0]   s_axil_rdata,
    output logic      [1:0]          s_axil_rresp,
    output logic                     s_axil_rvalid,
    input  wire logic                s_axil_rready,

    // The two ports, flat: port i (0 = a, 1 = b) in bits [i*W +: W] of each vector.
    output logic      [2*SEL_BIT-1:0] m_axil_awaddr,
    output logic      [5:0]           m_axil_awprot,
    output logic      [1:0]           m_axil_awvalid,
    input  wire logic [1:0]           m_axil_awready,
    output logic      [2*DATA_W-1:0]  m_axil_wdata,
    output logic      [2*STRB_W-1:0]  m_axil_wstrb,
    output logic      [1:0]           m_axil_wvalid,
    input  wire logic [1:0]           m_axil_wready,
    input  wire logic [3:0]           m_axil_bresp,
    input  wire logic [1:0]           m_axil_bvalid,
    output logic      [1:0]           m_axil_bready,
    output logic      [2*SEL_BIT-1:0] m_axil_araddr,
    output logic      [5:0]           m_axil_arprot,
    output logic      [1:0]           m_axil_arvalid,
    input  wire logic [1:0]           m_axil_arready,
    input  wire logic [2*DATA_W-1:0]  m_axil_rdata,
    input  wire logic [3:0]           m_axil_rresp,
    input  wire logic [1:0]           m_axil_rvalid,
    output logic      [1:0]           m_axil_rready
);
    // ---- writes: hold address and data, send both, wait for the response ----
    logic              aw_held, w_held, aw_sent, w_sent;
    logic [SEL_BIT:0]  aw_addr;
    logic [2:0]        aw_prot;
    logic [DATA_W-1:0] w_data;
    logic [STRB_W-1:0] w_strb;
    wire logic         w_sel = aw_addr[SEL_BIT];
    wire logic         w_out = aw_held && w_held && !s_axil_bvalid;  // the write is on its port

    assign s_axil_awready = !aw_held;
    assign s_axil_wready  = !w_held;

    always_comb begin
        for (int i = 0; i < 2; i++) begin
            m_axil_awaddr[i*SEL_BIT +: SEL_BIT] = aw_addr[SEL_BIT-1:0];
            m_axil_awprot[i*3 +: 3]             = aw_prot;
            m_axil_wdata[i*DATA_W +: DATA_W]    = w_data;
            m_axil_wstrb[i*STRB_W +: STRB_W]    = w_strb;
            m_axil_awvalid[i] = w_out && !aw_sent && (int'(w_sel) == i);
            m_axil_wvalid[i]  = w_out && !w_sent && (int'(w_sel) == i);
            m_axil_bready[i]  = w_out && aw_sent && w_sent && (int'(w_sel) == i);
        end
    end

    always_ff @(posedge clk) begin
        if (s_axil_awvalid && s_axil_awready) begin
            aw_addr <= s_axil_awaddr;
            aw_prot <= s_axil_awprot;
        end
        if (s_axil_wvalid && s_axil_wready) begin
            w_data <= s_axil_wdata;
            w_strb <= s_axil_wstrb;
        end
    end

    always_ff @(posedge clk) begin
        if (rst) begin
            aw_held       <= 1'b0;
            w_held        <= 1'b0;
            aw_sent       <= 1'b0;
            w_sent        <= 1'b0;
            s_axil_bvalid <= 1'b0;
            s_axil_bresp  <= 2'b00;
        end else begin
            if (s_axil_awvalid && s_axil_awready) aw_held <= 1'b1;
            if (s_axil_wvalid && s_axil_wready)   w_held  <= 1'b1;
            if (m_axil_awvalid[w_sel] && m_axil_awready[w_sel]) aw_sent <= 1'b1;
            if (m_axil_wvalid[w_sel] && m_axil_wready[w_sel])   w_sent  <= 1'b1;
            if (m_axil_bready[w_sel] && m_axil_bvalid[w_sel]) begin
                s_axil_bvalid <= 1'b1;
                s_axil_bresp  <= m_axil_bresp[int'(w_sel)*2 +: 2];
            end
            if (s_axil_bvalid && s_axil_bready) begin
                s_axil_bvalid <= 1'b0;
                aw_held       <= 1'b0;
                w_held        <= 1'b0;
                aw_sent       <= 1'b0;
                w_sent        <= 1'b0;
            end
        end
    end

    // ---- reads: hold the address, send it, wait for the answer ----
    logic             ar_held, ar_sent;
    logic [SEL_BIT:0] ar_addr;
    logic [2:0]       ar_prot;
    wire logic        r_sel = ar_addr[SEL_BIT];

    assign s_axil_arready = !ar_held;

    always_comb begin
        for (int i = 0; i < 2; i++) begin
            m_axil_araddr[i*SEL_BIT +: SEL_BIT] = ar_addr[SEL_BIT-1:0];
            m_axil_arprot[i*3 +: 3]             = ar_prot;
            m_axil_arvalid[i] = ar_held && !ar_sent && (int'(r_sel) == i);
            m_axil_rready[i]  = ar_held && ar_sent && !s_axil_rvalid && (int'(r_sel) == i);
        end
    end

    always_ff @(posedge clk) begin
        if (s_axil_arvalid && s_axil_arready) begin
            ar_addr <= s_axil_araddr;
            ar_prot <= s_axil_arprot;
        end
        if (m_axil_rready[r_sel] && m_axil_rvalid[r_sel]) begin
            s_axil_rdata <= m_axil_rdata[int'(r_sel)*DATA_W +: DATA_W];
            s_axil_rresp <= m_axil_rresp[int'(r_sel)*2 +: 2];
        end
    end

    always_ff @(posedge clk) begin
        if (rst) begin
            ar_held       <= 1'b0;
            ar_sent       <= 1'b0;
            s_axil_rvalid <= 1'b0;
        end else begin
            if (s_axil_arvalid && s_axil_arready) ar_held <= 1'b1;
            if (m_axil_arvalid[r_sel] && m_axil_arready[r_sel]) ar_sent <= 1'b1;
            if (m_axil_rready[r_sel] && m_axil_rvalid[r_sel]) s_axil_rvalid <= 1'b1;
            if (s_axil_rvalid && s_axil_rready) begin
                s_axil_rvalid <= 1'b0;
                ar_held       <= 1'b0;
                ar_sent       <= 1'b0;
            end
        end
    end

endmodule

`default_nettype wire

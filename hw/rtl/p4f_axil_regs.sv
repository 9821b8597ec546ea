// p4f_axil_regs: AXI4-Lite register file, the base of the control interface.
//
// Word addresses 0 .. REG_COUNT-1 are read/write control registers (ctrl_regs, reset to 0; a
// write honours wstrb and pulses ctrl_write[i] for one cycle, for registers that are commands).
// Word addresses REG_COUNT .. REG_COUNT+STATUS_COUNT-1 read the status inputs (counters, state);
// writing them answers SLVERR. Anything beyond answers DECERR and reads 0.
//
// write_hold: while it is 1 no write happens; a held request waits (bvalid stays low) and happens
// at the first edge without it. A unit that reads its control registers over many cycles (a
// block-RAM table updating an entry) holds writes so that they never change under it, and a
// command word written meanwhile is never lost: the writer just sees a slower bvalid.
//
// Timing: the write address and data channels are taken independently (each holds one
// request); the write happens the cycle after both are held (and write_hold is 0), and bvalid
// rises with it. A read
// is answered one cycle after it is taken. One request of each kind in flight; every output is
// a flop.
`default_nettype none

module p4f_axil_regs #(
    parameter int DATA_W       = 32,           // AXI4-Lite data width: 32 or 64
    parameter int ADDR_W       = 8,            // byte address width
    parameter int STRB_W       = DATA_W / 8,   // wstrb width: one bit per byte
    parameter int REG_COUNT    = 8,            // read/write control registers, at least 1
    parameter int STATUS_COUNT = 4             // read-only status words, at least 1
) (
    input  wire logic                           clk,
    input  wire logic                           rst,

    input  wire logic [ADDR_W-1:0]              s_axil_awaddr,
    input  wire logic [2:0]                     s_axil_awprot,
    input  wire logic                           s_axil_awvalid,
    output logic                                s_axil_awready,
    input  wire logic [DATA_W-1:0]              s_axil_wdata,
    input  wire logic [STRB_W-1:0]              s_axil_wstrb,
    input  wire logic                           s_axil_wvalid,
    output logic                                s_axil_wready,
    output logic      [1:0]                     s_axil_bresp,
    output logic                                s_axil_bvalid,
    input  wire logic                           s_axil_bready,
    input  wire logic [ADDR_W-1:0]              s_axil_araddr,
    input  wire logic [2:0]                     s_axil_arprot,
    input  wire logic                           s_axil_arvalid,
    output logic                                s_axil_arready,
    output logic      [DATA_W-1:0]              s_axil_rdata,
    output logic      [1:0]                     s_axil_rresp,
    output logic                                s_axil_rvalid,
    input  wire logic                           s_axil_rready,

    output logic      [REG_COUNT*DATA_W-1:0]    ctrl_regs,
    output logic      [REG_COUNT-1:0]           ctrl_write,
    input  wire logic                           write_hold,
    input  wire logic [STATUS_COUNT*DATA_W-1:0] status
);
    localparam int BYTE_BITS = $clog2(STRB_W);     // address bits inside one word
    localparam int WORD_W    = ADDR_W - BYTE_BITS; // word index width
    localparam logic [1:0] RESP_OKAY = 2'b00, RESP_SLVERR = 2'b10, RESP_DECERR = 2'b11;

    if (DATA_W != 32 && DATA_W != 64) begin : g_bad_width
        $error("p4f_axil_regs: DATA_W must be 32 or 64");
    end
    if (REG_COUNT + STATUS_COUNT > (1 << WORD_W)) begin : g_bad_addr
        $error("p4f_axil_regs: REG_COUNT + STATUS_COUNT words do not fit in ADDR_W");
    end

    // Protection bits and the byte offset inside a word carry no meaning here.
    wire logic unused = &{1'b0, s_axil_awprot, s_axil_arprot,
                          s_axil_awaddr[BYTE_BITS-1:0], s_axil_araddr[BYTE_BITS-1:0]};

    // ---- writes ----
    logic              aw_held_reg, w_held_reg;
    logic [WORD_W-1:0] aw_word_reg;
    logic [DATA_W-1:0] w_data_reg;
    logic [STRB_W-1:0] w_strb_reg;

    assign s_axil_awready = !aw_held_reg;
    assign s_axil_wready  = !w_held_reg;

    wire logic do_write = aw_held_reg && w_held_reg && (!s_axil_bvalid || s_axil_bready) && !write_hold;

    always_ff @(posedge clk) begin
        if (s_axil_awvalid && s_axil_awready) aw_word_reg <= s_axil_awaddr[ADDR_W-1:BYTE_BITS];
        if (s_axil_wvalid && s_axil_wready) begin
            w_data_reg <= s_axil_wdata;
            w_strb_reg <= s_axil_wstrb;
        end
    end

    always_ff @(posedge clk) begin
        if (rst) begin
            aw_held_reg   <= 1'b0;
            w_held_reg    <= 1'b0;
            s_axil_bvalid <= 1'b0;
            s_axil_bresp  <= RESP_OKAY;
            ctrl_regs     <= '0;
            ctrl_write    <= '0;
        end else begin
            ctrl_write <= '0;
            if (s_axil_awvalid && s_axil_awready) aw_held_reg <= 1'b1;
            if (s_axil_wvalid && s_axil_wready)   w_held_reg  <= 1'b1;
            if (s_axil_bvalid && s_axil_bready)   s_axil_bvalid <= 1'b0;
            if (do_write) begin
                aw_held_reg   <= 1'b0;
                w_held_reg    <= 1'b0;
                s_axil_bvalid <= 1'b1;
                if (int'(aw_word_reg) < REG_COUNT) begin
                    for (int b = 0; b < STRB_W; b++) begin
                        if (w_strb_reg[b]) ctrl_regs[int'(aw_word_reg)*DATA_W + b*8 +: 8] <= w_data_reg[b*8 +: 8];
                    end
                    ctrl_write[int'(aw_word_reg)] <= 1'b1;
                    s_axil_bresp <= RESP_OKAY;
                end else if (int'(aw_word_reg) < REG_COUNT + STATUS_COUNT) begin
                    s_axil_bresp <= RESP_SLVERR;
                end else begin
                    s_axil_bresp <= RESP_DECERR;
                end
            end
        end
    end

    // ---- reads ----
    assign s_axil_arready = !s_axil_rvalid;
    wire logic [WORD_W-1:0] ar_word = s_axil_araddr[ADDR_W-1:BYTE_BITS];

    always_ff @(posedge clk) begin
        if (s_axil_arvalid && s_axil_arready) begin
            if (int'(ar_word) < REG_COUNT) begin
                s_axil_rdata <= ctrl_regs[int'(ar_word)*DATA_W +: DATA_W];
                s_axil_rresp <= RESP_OKAY;
            end else if (int'(ar_word) < REG_COUNT + STATUS_COUNT) begin
                s_axil_rdata <= status[(int'(ar_word) - REG_COUNT)*DATA_W +: DATA_W];
                s_axil_rresp <= RESP_OKAY;
            end else begin
                s_axil_rdata <= '0;
                s_axil_rresp <= RESP_DECERR;
            end
        end
    end

    always_ff @(posedge clk) begin
        if (rst) begin
            s_axil_rvalid <= 1'b0;
        end else if (s_axil_arvalid && s_axil_arready) begin
            s_axil_rvalid <= 1'b1;
        end else if (s_axil_rready) begin
            s_axil_rvalid <= 1'b0;
        end
    end

endmodule

`default_nettype wire

// p4f_decoupler: the boundary between a static shell and PP packet processors that are swapped
// live (partial reconfiguration) without resetting the shell. One processor is active at a time;
// a swap hands the traffic to another at a packet boundary, so that no packet is lost, cut or
// duplicated.
//
// Normal operation: s_axis (from the shell's input arbiter) goes to the active processor only,
// and the active processor's output (with its tdest) goes to m_axis (the shell's output lookup).
// The other processors get tvalid 0, and their outputs see tready 1: whatever they send is taken,
// discarded and counted on stray_beats. A packet whose first beat is taken from a processor while
// it is not active is stray as a whole, even if the processor becomes active before its tlast. A
// processor in reset (pp_rst) is decoupled: its tvalid is ignored (a region being reconfigured
// drives anything), nothing is taken from it and nothing counted.
//
// Swap: a swap_req pulse with swap_to raises swap_busy; it is ignored, and counted on
// swap_ignored, while swap_busy is high or when swap_to is the active processor or >= PP. Then:
//   1. s_axis takes the rest of the packet under way, if any, into the old processor, and then
//      holds s_axis_tready low at the packet boundary (the shell's queues absorb the input);
//   2. the old processor drains: both of its registers are empty, no packet is part-way into or
//      out of it, and sent - out - pp_drops == 0 (modulo 2^CNT_W), where sent counts the tlasts
//      it took, out the tlasts taken from it (packets it sent while active), pp_drops is its own
//      count of packets it took and sent nothing out for. These per-processor counts restart
//      while the processor is in reset (pp_rst), as its pp_drops does;
//   3. swap_to becomes active, swap_busy falls, swaps counts one more, and s_axis resumes into
//      the new processor from the next cycle.
// Nothing is dropped inside the decoupler. drain_cycles is the number of cycles the last swap
// kept swap_busy high (from the cycle after the request to the switch; 1 if nothing to drain).
// pp_rst[i] = rst | (pp_hold_rst[i] && i != active): software holds a processor in reset while it
// is reconfigured; a hold on the active processor is ignored.
//
// Registers: each stream to and from a processor has a p4f_axis_register of its own, so
// m_pp_axis_* and s_pp_axis_tready are flops; pp_drops is registered on the way in (read one
// cycle late, which can only make a drain wait a cycle longer). pp_rst is one LUT of rst,
// pp_hold_rst and the active flop. m_axis_* is the active processor's output register through a
// mux selected by a flop; s_axis_tready comes from flops only.
//
// Latency: 1 cycle from s_axis to m_pp_axis, 1 cycle from s_pp_axis to m_axis. Throughput: 1
// beat/cycle each way, no bubble between packets; a swap holds s_axis from the end of the packet
// under way until the switch (at least one cycle).
//
// The user guarantees: the new processor is out of reset and configured before the swap is
// requested; a processor sends out one packet (or none, counted on pp_drops) for each packet it
// takes, in the order taken. A processor that never drains keeps the swap waiting: swap_busy stays
// high and s_axis held (only rst ends it).
`default_nettype none

module p4f_decoupler #(
    parameter int DATA_W = 64,               // tdata width in bits, a multiple of 8
    parameter int KEEP_W = (DATA_W + 7) / 8, // tkeep width: one bit per byte
    parameter int USER_W = 1,                // tuser width in bits (at least 1)
    parameter int DEST_W = 1,                // tdest width of the processors' output (at least 1)
    parameter int PP     = 2,                // number of packet processors, at least 2
    parameter int CNT_W  = 32                // width of every counter (pp_drops included)
) (
    input  wire logic                     clk,
    input  wire logic                     rst,

    // From the shell's input arbiter.
    input  wire logic [DATA_W-1:0]        s_axis_tdata,
    input  wire logic [KEEP_W-1:0]        s_axis_tkeep,
    input  wire logic                     s_axis_tvalid,
    output logic                          s_axis_tready,
    input  wire logic                     s_axis_tlast,
    input  wire logic [USER_W-1:0]        s_axis_tuser,

    // To the processors: processor i in bits [i*W +: W].
    output logic      [PP*DATA_W-1:0]     m_pp_axis_tdata,
    output logic      [PP*KEEP_W-1:0]     m_pp_axis_tkeep,
    output logic      [PP-1:0]            m_pp_axis_tvalid,
    input  wire logic [PP-1:0]            m_pp_axis_tready,
    output logic      [PP-1:0]            m_pp_axis_tlast,
    output logic      [PP*USER_W-1:0]     m_pp_axis_tuser,

    // From the processors: processor i in bits [i*W +: W].
    input  wire logic [PP*DATA_W-1:0]     s_pp_axis_tdata,
    input  wire logic [PP*KEEP_W-1:0]     s_pp_axis_tkeep,
    input  wire logic [PP-1:0]            s_pp_axis_tvalid,
    output logic      [PP-1:0]            s_pp_axis_tready,
    input  wire logic [PP-1:0]            s_pp_axis_tlast,
    input  wire logic [PP*USER_W-1:0]     s_pp_axis_tuser,
    input  wire logic [PP*DEST_W-1:0]     s_pp_axis_tdest,

    // To the shell's output lookup.
    output logic      [DATA_W-1:0]        m_axis_tdata,
    output logic      [KEEP_W-1:0]        m_axis_tkeep,
    output logic                          m_axis_tvalid,
    input  wire logic                     m_axis_tready,
    output logic                          m_axis_tlast,
    output logic      [USER_W-1:0]        m_axis_tuser,
    output logic      [DEST_W-1:0]        m_axis_tdest,

    // Per processor: packets it took and sent nothing out for, counted from its reset on.
    input  wire logic [PP*CNT_W-1:0]      pp_drops,
    // Per processor: software's request to hold it in reset (ignored for the active one).
    input  wire logic [PP-1:0]            pp_hold_rst,
    // Per processor: its reset, rst | (pp_hold_rst[i] && i != active).
    output logic      [PP-1:0]            pp_rst,

    // A one-cycle pulse: swap to processor swap_to.
    input  wire logic                     swap_req,
    input  wire logic [$clog2(PP)-1:0]    swap_to,

    output logic      [$clog2(PP)-1:0]    active,       // the processor traffic goes through
    output logic                          swap_busy,    // a swap is under way
    output logic      [CNT_W-1:0]         swaps,        // swaps completed
    output logic      [CNT_W-1:0]         swap_ignored, // requests ignored (busy, already active, >= PP)
    output logic      [CNT_W-1:0]         drain_cycles, // cycles the last swap kept swap_busy high
    output logic      [CNT_W-1:0]         stray_beats   // beats taken from a processor not active, discarded
);
    localparam int SEL_W   = $clog2(PP);
    localparam int OUT_U_W = DEST_W + USER_W; // tdest and tuser ride together in the tuser of a register

    if (PP < 2 || USER_W < 1 || DEST_W < 1 || CNT_W < 1) begin : g_bad_params
        $error("p4f_decoupler: PP must be >= 2, USER_W, DEST_W and CNT_W >= 1");
    end

    logic [PP-1:0] is_active;
    always_comb begin
        for (int i = 0; i < PP; i++) begin
            is_active[i] = int'(active) == i;
            pp_rst[i]    = rst || (pp_hold_rst[i] && !is_active[i]);
        end
    end

    // ---- input side: s_axis to the active processor's register ----
    // s_in_pkt_reg: a packet's first beat was taken on s_axis and its tlast not yet. During a
    // swap s_axis stays open only to finish that packet.
    logic          s_in_pkt_reg;
    logic [PP-1:0] to_pp_ready;  // each input register's s_axis_tready (a flop)
    wire logic     s_open = !swap_busy || s_in_pkt_reg;

    assign s_axis_tready = s_open && to_pp_ready[active];
    wire logic s_fire = s_axis_tvalid && s_axis_tready;

    // ---- output side: each processor's register, then the active one to m_axis ----
    logic [PP*DATA_W-1:0]  r_tdata;
    logic [PP*KEEP_W-1:0]  r_tkeep;
    logic [PP*OUT_U_W-1:0] r_tuser;  // {tdest, tuser}
    logic [PP-1:0]         r_tvalid, r_tready, r_tlast;
    logic [PP-1:0]         r_good;   // the beat belongs to a packet begun while its processor was active

    assign m_axis_tvalid = r_tvalid[active] && r_good[active];
    assign m_axis_tdata  = r_tdata[int'(active)*DATA_W +: DATA_W];
    assign m_axis_tkeep  = r_tkeep[int'(active)*KEEP_W +: KEEP_W];
    assign m_axis_tlast  = r_tlast[active];
    assign {m_axis_tdest, m_axis_tuser} = r_tuser[int'(active)*OUT_U_W +: OUT_U_W];

    // The active processor's good beats wait for m_axis; everything else is discarded as it comes.
    logic [SEL_W:0] stray_now;  // beats discarded this cycle (at most PP)
    always_comb begin
        stray_now = '0;
        for (int i = 0; i < PP; i++) begin
            r_tready[i] = (is_active[i] && r_good[i]) ? m_axis_tready : 1'b1;
            stray_now   = stray_now + (SEL_W + 1)'(r_tvalid[i] && !(is_active[i] && r_good[i]));
        end
    end

    // ---- per processor: the two registers and the drain bookkeeping ----
    logic [PP-1:0] drained;

    for (genvar i = 0; i < PP; i++) begin : g_pp
        logic             in_pkt_reg;   // the processor took a first beat, not yet its tlast
        logic             out_pkt_reg;  // a first beat was taken from it, not yet its tlast
        logic             stray_reg;    // that packet is stray (begun while not active)
        logic [CNT_W-1:0] sent_reg, out_reg, drops_reg;
        wire logic        out_valid = s_pp_axis_tvalid[i] && !pp_rst[i];
        wire logic        out_good  = out_pkt_reg ? !stray_reg : is_active[i];
        wire logic        out_fire  = out_valid && s_pp_axis_tready[i];
        wire logic        in_fire   = m_pp_axis_tvalid[i] && m_pp_axis_tready[i];
        wire logic [CNT_W-1:0] balance = sent_reg - out_reg - drops_reg;

        /* verilator lint_off UNUSEDSIGNAL */
        logic to_pp_tid_unused;  // the input register carries no tid
        /* verilator lint_on UNUSEDSIGNAL */

        p4f_axis_register #(
            .DATA_W(DATA_W), .KEEP_W(KEEP_W), .ID_W(1), .USER_W(USER_W)
        ) u_to_pp (
            .clk(clk), .rst(rst),
            .s_axis_tdata (s_axis_tdata),
            .s_axis_tkeep (s_axis_tkeep),
            .s_axis_tvalid(s_axis_tvalid && s_open && is_active[i]),
            .s_axis_tready(to_pp_ready[i]),
            .s_axis_tlast (s_axis_tlast),
            .s_axis_tid   (1'b0),
            .s_axis_tuser (s_axis_tuser),
            .m_axis_tdata (m_pp_axis_tdata[i*DATA_W +: DATA_W]),
            .m_axis_tkeep (m_pp_axis_tkeep[i*KEEP_W +: KEEP_W]),
            .m_axis_tvalid(m_pp_axis_tvalid[i]),
            .m_axis_tready(m_pp_axis_tready[i]),
            .m_axis_tlast (m_pp_axis_tlast[i]),
            .m_axis_tid   (to_pp_tid_unused),
            .m_axis_tuser (m_pp_axis_tuser[i*USER_W +: USER_W])
        );

        p4f_axis_register #(
            .DATA_W(DATA_W), .KEEP_W(KEEP_W), .ID_W(1), .USER_W(OUT_U_W)
        ) u_from_pp (
            .clk(clk), .rst(rst),
            .s_axis_tdata (s_pp_axis_tdata[i*DATA_W +: DATA_W]),
            .s_axis_tkeep (s_pp_axis_tkeep[i*KEEP_W +: KEEP_W]),
            .s_axis_tvalid(out_valid),
            .s_axis_tready(s_pp_axis_tready[i]),
            .s_axis_tlast (s_pp_axis_tlast[i]),
            .s_axis_tid   (out_good),
            .s_axis_tuser ({s_pp_axis_tdest[i*DEST_W +: DEST_W], s_pp_axis_tuser[i*USER_W +: USER_W]}),
            .m_axis_tdata (r_tdata[i*DATA_W +: DATA_W]),
            .m_axis_tkeep (r_tkeep[i*KEEP_W +: KEEP_W]),
            .m_axis_tvalid(r_tvalid[i]),
            .m_axis_tready(r_tready[i]),
            .m_axis_tlast (r_tlast[i]),
            .m_axis_tid   (r_good[i]),
            .m_axis_tuser (r_tuser[i*OUT_U_W +: OUT_U_W])
        );

        always_ff @(posedge clk) begin
            if (pp_rst[i]) begin
                in_pkt_reg  <= 1'b0;
                out_pkt_reg <= 1'b0;
                stray_reg   <= 1'b0;
                sent_reg    <= '0;
                out_reg     <= '0;
                drops_reg   <= '0;
            end else begin
                drops_reg <= pp_drops[i*CNT_W +: CNT_W];
                if (in_fire) begin
                    in_pkt_reg <= !m_pp_axis_tlast[i];
                    if (m_pp_axis_tlast[i]) sent_reg <= sent_reg + 1'b1;
                end
                if (out_fire) begin
                    out_pkt_reg <= !s_pp_axis_tlast[i];
                    if (!out_pkt_reg) stray_reg <= !is_active[i];
                    if (s_pp_axis_tlast[i] && out_good) out_reg <= out_reg + 1'b1;
                end
            end
        end

        assign drained[i] = balance == '0 && !in_pkt_reg && !out_pkt_reg
                         && !m_pp_axis_tvalid[i] && !r_tvalid[i];
    end

    // ---- the swap ----
    logic [SEL_W-1:0] target_reg;
    logic [CNT_W-1:0] busy_cycles_reg;
    wire logic req_ok     = swap_req && !swap_busy && swap_to != active && int'(swap_to) < PP;
    wire logic switch_now = swap_busy && !s_in_pkt_reg && drained[active];

    always_ff @(posedge clk) begin
        if (req_ok) target_reg <= swap_to;
    end

    always_ff @(posedge clk) begin
        if (rst) begin
            s_in_pkt_reg    <= 1'b0;
            active          <= '0;
            swap_busy       <= 1'b0;
            busy_cycles_reg <= '0;
            swaps           <= '0;
            swap_ignored    <= '0;
            drain_cycles    <= '0;
            stray_beats     <= '0;
        end else begin
            if (s_fire) s_in_pkt_reg <= !s_axis_tlast;
            if (swap_req && !req_ok) swap_ignored <= swap_ignored + 1'b1;
            if (req_ok) begin
                swap_busy       <= 1'b1;
                busy_cycles_reg <= CNT_W'(1);
            end else if (switch_now) begin
                active       <= target_reg;
                swap_busy    <= 1'b0;
                swaps        <= swaps + 1'b1;
                drain_cycles <= busy_cycles_reg;
            end else if (swap_busy) begin
                busy_cycles_reg <= busy_cycles_reg + 1'b1;
            end
            stray_beats <= stray_beats + CNT_W'(stray_now);
        end
    end

endmodule

`default_nettype wire

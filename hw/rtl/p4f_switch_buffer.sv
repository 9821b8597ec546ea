// p4f_switch_buffer: the switch's shared output buffer (the seed design's packet buffer between the
// pipeline and the output ports): p4f_pkt_buffer stores every packet once, one descriptor queue per
// output port holds the packets waiting for that port, and a read scheduler sends a packet to its
// port only when the port's output FIFO has room for all of it. So the buffer's read side never
// waits for a port: a busy output holds back its own packets only (no head-of-line blocking).
//
//   s_axis (tdest) -> p4f_pkt_buffer -> descriptor {id, len, port} -> per-port descriptor queue
//   read scheduler (round robin over ports with a packet waiting and room for it)
//   -> p4f_pkt_buffer read -> per-port output FIFO (OUT_DEPTH beats) -> m_axis[port]
//
// Room is kept by credits: each port's credit counts the free beats of its output FIFO; a packet of
// B beats is scheduled only with B credits and takes them, every beat leaving m_axis[port] gives
// one back. The credit check uses the descriptor's length, so the buffer's read stream goes to a
// FIFO that is sure to take it. OUT_DEPTH must hold the longest packet (a longer one would wait
// forever and hold its port; the wrapper sizes every queue for the pipeline's longest packet).
//
// Every descriptor queue holds as many entries as the buffer has pages (each packet takes at least
// one page), so a descriptor never waits for its queue: one port's backlog never stops the
// descriptors of the others.
//
// One port cannot take the whole buffer: a packet whose port's waiting packets already hold
// PORT_PAGES pages or more is dropped on arrival (its first beat decides), so a congested output
// leaves the other pages to the other ports. A port's pages are counted from its descriptor (its
// length) until the scheduler sends the packet; a packet is not counted while it is written nor for
// the 3 cycles its descriptor takes, so a port can go over by those packets.
//
// Drops, counted, never a hang: a packet over its port's share, or one that meets a full buffer
// (dropped whole by p4f_pkt_buffer), is counted on drop_count[port] (the output port it was for),
// two edges after its last beat is taken; a packet whose first beat's tdest is PORTS or more is
// taken and thrown away and counted on bad_dest_count.
// tdest and tuser are taken from the first beat and hold for the packet: tuser is a per-packet
// sideband (e.g. what the port's TX should do with the packet) that leaves with every beat of the
// packet on its port's m_axis_tuser. tkeep as p4f_pkt_buffer wants it: all ones except on the last
// beat, contiguous from bit 0 there.
`default_nettype none

module p4f_switch_buffer #(
    parameter int DATA_W     = 256,                 // tdata width in bits, 8 * a power of two
    parameter int KEEP_W     = (DATA_W + 7) / 8,    // tkeep width: one bit per byte
    parameter int PORTS      = 4,                   // output ports (2 or more)
    parameter int DEST_W     = 8,                   // s_axis_tdest width
    parameter int USER_W     = 1,                   // tuser width: a per-packet sideband (at least 1)
    parameter int BUF_BYTES  = 65536,               // shared buffer in bytes (a power of two)
    parameter int PAGE_BYTES = 256,                 // buffer page in bytes (at least 2 beats)
    parameter int OUT_DEPTH  = 64,                  // beats of each output FIFO (power of two): the longest packet
    parameter int PORT_PAGES = 3 * BUF_BYTES / PAGE_BYTES / 4 // pages one port's waiting packets may hold
) (
    input  wire logic                    clk,
    input  wire logic                    rst,

    input  wire logic [DATA_W-1:0]       s_axis_tdata,
    input  wire logic [KEEP_W-1:0]       s_axis_tkeep,
    input  wire logic                    s_axis_tvalid,
    output logic                         s_axis_tready,
    input  wire logic                    s_axis_tlast,
    input  wire logic [DEST_W-1:0]       s_axis_tdest,
    input  wire logic [USER_W-1:0]       s_axis_tuser,     // read with the first beat

    // Port i is bits [i*W +: W].
    output logic      [PORTS*DATA_W-1:0] m_axis_tdata,
    output logic      [PORTS*KEEP_W-1:0] m_axis_tkeep,
    output logic      [PORTS-1:0]        m_axis_tvalid,
    input  wire logic [PORTS-1:0]        m_axis_tready,
    output logic      [PORTS-1:0]        m_axis_tlast,
    output logic      [PORTS*USER_W-1:0] m_axis_tuser,     // the packet's first-beat tuser, on every beat

    output logic      [PORTS*32-1:0]     drop_count,     // per output port: packets the full buffer dropped
    output logic      [31:0]             bad_dest_count, // packets whose tdest named no port
    output logic      [$clog2(BUF_BYTES / PAGE_BYTES):0] free_pages
);
    localparam int PAGES   = BUF_BYTES / PAGE_BYTES;
    localparam int ID_W    = $clog2(PAGES);
    localparam int LEN_W   = $clog2(BUF_BYTES + 1);
    localparam int PORT_W  = $clog2(PORTS);
    localparam int CRED_W  = $clog2(OUT_DEPTH + 1);
    localparam int BEAT_SH = $clog2(KEEP_W);

    if (PORTS < 2 || (1 << $clog2(OUT_DEPTH)) != OUT_DEPTH || (1 << BEAT_SH) != KEEP_W
            || DEST_W < PORT_W) begin : g_bad_params
        $error("p4f_switch_buffer: PORTS >= 2, OUT_DEPTH and KEEP_W powers of two, DEST_W >= $clog2(PORTS)");
    end

    // ---- input: a tdest that names no port, or a port over its share of pages, drops the packet
    // here; the rest go to the buffer with their port as tuser (the buffer hands it back with the
    // descriptor).
    localparam int HELD_W = ID_W + 1;
    // A descriptor queue entry, whole bytes: {pages, beats (capped at OUT_DEPTH + 1), id}.
    localparam int DESC_W = 8 * ((ID_W + CRED_W + HELD_W + 7) / 8);
    logic [PORTS*HELD_W-1:0] held_reg;  // pages of each port's packets waiting in the buffer
    logic              in_pkt_reg;      // inside a packet (its first beat was taken)
    logic              in_bad_reg;      // ... and it is being thrown away
    logic              in_over_reg;     // ... because its port is over its share
    logic [PORT_W-1:0] in_port_reg;
    logic [USER_W-1:0] in_user_reg;
    wire logic              first_bad  = 32'(s_axis_tdest) >= PORTS;
    wire logic              first_over = !first_bad
        && 32'(held_reg[32'(s_axis_tdest[PORT_W-1:0])*HELD_W +: HELD_W]) >= PORT_PAGES;
    wire logic              in_bad     = in_pkt_reg ? in_bad_reg : first_bad || first_over;
    wire logic              in_over    = in_pkt_reg ? in_over_reg : first_over;
    wire logic [PORT_W-1:0] in_port    = in_pkt_reg ? in_port_reg : s_axis_tdest[PORT_W-1:0];
    wire logic [USER_W-1:0] in_user    = in_pkt_reg ? in_user_reg : s_axis_tuser;

    logic buf_tready;
    assign s_axis_tready = in_bad || buf_tready;
    wire logic s_fire = s_axis_tvalid && s_axis_tready;

    always_ff @(posedge clk) begin
        if (rst) begin
            in_pkt_reg     <= 1'b0;
            bad_dest_count <= '0;
        end else if (s_fire) begin
            in_pkt_reg <= !s_axis_tlast;
            if (!in_pkt_reg && first_bad) bad_dest_count <= bad_dest_count + 32'd1;
        end
    end
    always_ff @(posedge clk) begin
        if (s_fire && !in_pkt_reg) begin
            in_bad_reg  <= first_bad || first_over;
            in_over_reg <= first_over;
            in_port_reg <= s_axis_tdest[PORT_W-1:0];
            in_user_reg <= s_axis_tuser;
        end
    end

    // ---- the buffer: tuser {the packet's sideband, its port} on every beat (the descriptor takes
    // the port from the last beat's; the sideband comes out with the beats)
    logic              d_valid, d_ready;
    logic [ID_W-1:0]   d_id;
    logic [LEN_W-1:0]  d_len;
    logic [PORT_W-1:0] d_port;
    logic              r_valid, r_ready;
    logic [ID_W-1:0]   r_id;
    logic [DATA_W-1:0] b_tdata;
    logic [KEEP_W-1:0] b_tkeep;
    logic              b_tvalid, b_tready, b_tlast;
    logic [USER_W-1:0] b_user;
    /* verilator lint_off UNUSEDSIGNAL */
    logic [USER_W-1:0] d_user_unused;  // the descriptor needs only the port
    logic [PORT_W-1:0] b_port_unused;  // the port again; the route queue already knows it
    /* verilator lint_on UNUSEDSIGNAL */
    logic [31:0]       buf_drops;

    p4f_pkt_buffer #(.DATA_W(DATA_W), .KEEP_W(KEEP_W), .USER_W(USER_W + PORT_W), .BUF_BYTES(BUF_BYTES),
                     .PAGE_BYTES(PAGE_BYTES), .DESC_DEPTH(4)) u_buf (
        .clk, .rst,
        .s_axis_tdata, .s_axis_tkeep, .s_axis_tvalid(s_axis_tvalid && !in_bad), .s_axis_tready(buf_tready),
        .s_axis_tlast, .s_axis_tuser({in_user, in_port}),
        .d_valid, .d_ready, .d_id, .d_len, .d_user({d_user_unused, d_port}),
        .r_valid, .r_ready, .r_id, .r_free(1'b1),
        .m_axis_tdata(b_tdata), .m_axis_tkeep(b_tkeep), .m_axis_tvalid(b_tvalid), .m_axis_tready(b_tready),
        .m_axis_tlast(b_tlast), .m_axis_tuser({b_user, b_port_unused}),
        .free_pages, .drop_count(buf_drops)
    );

    // Drops by port: the buffer counts a drop at the edge that takes the packet's last beat, so
    // when the count moves, the packet that ended at that edge (last_end_port_reg) was dropped. A
    // packet over its share is counted at the same time (over_end_reg: its last beat was taken at
    // the edge before); the two cannot fall on one edge, as two packets cannot end on one edge.
    logic [PORT_W-1:0] last_end_port_reg;
    logic              over_end_reg;
    logic [31:0]       buf_drops_seen_reg;
    always_ff @(posedge clk) begin
        if (s_fire && s_axis_tlast && (!in_bad || in_over)) last_end_port_reg <= in_port;
    end
    always_ff @(posedge clk) begin
        if (rst) begin
            buf_drops_seen_reg <= '0;
            over_end_reg       <= 1'b0;
            drop_count         <= '0;
        end else begin
            buf_drops_seen_reg <= buf_drops;
            over_end_reg       <= s_fire && s_axis_tlast && in_over;
            if (buf_drops != buf_drops_seen_reg || over_end_reg)
                drop_count[32*last_end_port_reg +: 32] <= drop_count[32*last_end_port_reg +: 32] + 32'd1;
        end
    end

    // A packet's beats (capped: more than OUT_DEPTH never fits) and pages are computed as its
    // descriptor is queued, so the scheduler's path from a queue head to its grant and the
    // credit update holds no adder of a length. (A length is at most BUF_BYTES, so the page count
    // fits HELD_W bits and the sum's high bits are unused.)
    localparam int PAGE_SH = $clog2(PAGE_BYTES);
    /* verilator lint_off UNUSEDSIGNAL */
    wire logic [LEN_W:0] d_pages_wide = ({1'b0, d_len} + (LEN_W + 1)'(PAGE_BYTES - 1)) >> PAGE_SH;
    /* verilator lint_on UNUSEDSIGNAL */
    wire logic [HELD_W-1:0] d_pages = d_pages_wide[HELD_W-1:0];
    wire logic [LEN_W:0]    d_beats_wide = ({1'b0, d_len} + (LEN_W + 1)'(KEEP_W - 1)) >> BEAT_SH;
    wire logic [CRED_W-1:0] d_beats = d_beats_wide > (LEN_W + 1)'(OUT_DEPTH) ? {CRED_W{1'b1}} : CRED_W'(d_beats_wide);

    // ---- per-port descriptor queues (PAGES entries: never full, see the header)
    logic [PORTS-1:0]        dq_tready, dq_tvalid, dq_pop;
    logic [PORTS*DESC_W-1:0] dq_tdata;
    assign d_ready = dq_tready[d_port];
    for (genvar i = 0; i < PORTS; i++) begin : g_dq
        /* verilator lint_off UNUSEDSIGNAL */
        logic keep_unused, last_unused, user_unused;
        /* verilator lint_on UNUSEDSIGNAL */
        p4f_axis_fifo #(.DATA_W(DESC_W), .KEEP_W(1), .USER_W(1), .DEPTH(PAGES)) u_dq (
            .clk, .rst,
            .s_axis_tdata(DESC_W'({d_pages, d_beats, d_id})), .s_axis_tkeep(1'b1),
            .s_axis_tvalid(d_valid && d_port == PORT_W'(i)), .s_axis_tready(dq_tready[i]),
            .s_axis_tlast(1'b1), .s_axis_tuser(1'b0),
            .m_axis_tdata(dq_tdata[i*DESC_W +: DESC_W]), .m_axis_tkeep(keep_unused),
            .m_axis_tvalid(dq_tvalid[i]), .m_axis_tready(dq_pop[i]),
            .m_axis_tlast(last_unused), .m_axis_tuser(user_unused)
        );
    end

    // ---- read scheduler: round robin from the port after the last one served, over the ports
    // whose next packet fits their output FIFO.
    logic [PORTS*CRED_W-1:0] credit_reg;
    logic [PORTS-1:0]        eligible, out_fire;
    logic [PORTS*CRED_W-1:0] head_beats;
    logic [PORTS*HELD_W-1:0] head_pages;
    for (genvar i = 0; i < PORTS; i++) begin : g_elig
        assign head_beats[i*CRED_W +: CRED_W] = dq_tdata[i*DESC_W + ID_W +: CRED_W];
        assign head_pages[i*HELD_W +: HELD_W] = dq_tdata[i*DESC_W + ID_W + CRED_W +: HELD_W];
        assign eligible[i] = dq_tvalid[i] && head_beats[i*CRED_W +: CRED_W] <= credit_reg[i*CRED_W +: CRED_W];
    end

    logic [PORT_W-1:0] rr_last_reg; // the port served last
    logic [PORT_W-1:0] pick;
    logic              any;
    always_comb begin
        pick = '0;
        any  = 1'b0;
        for (int k = 1; k <= PORTS; k++) begin
            logic [PORT_W-1:0] p;
            p = PORT_W'((int'(rr_last_reg) + k) % PORTS);
            if (!any && eligible[p]) begin
                any  = 1'b1;
                pick = p;
            end
        end
    end
    assign r_valid = any;
    assign r_id    = dq_tdata[32'(pick)*DESC_W +: ID_W];
    wire logic grant = r_valid && r_ready;
    for (genvar i = 0; i < PORTS; i++) begin : g_pop
        assign dq_pop[i] = grant && pick == PORT_W'(i);
    end

    always_ff @(posedge clk) begin
        if (rst) begin
            rr_last_reg <= PORT_W'(PORTS - 1);
            for (int i = 0; i < PORTS; i++) credit_reg[i*CRED_W +: CRED_W] <= CRED_W'(OUT_DEPTH);
            held_reg <= '0;
        end else begin
            if (grant) rr_last_reg <= pick;
            for (int i = 0; i < PORTS; i++) begin
                credit_reg[i*CRED_W +: CRED_W] <= credit_reg[i*CRED_W +: CRED_W]
                    - (dq_pop[i] ? head_beats[i*CRED_W +: CRED_W] : '0) + CRED_W'(out_fire[i]);
                held_reg[i*HELD_W +: HELD_W] <= held_reg[i*HELD_W +: HELD_W]
                    + (d_valid && d_ready && d_port == PORT_W'(i) ? d_pages : '0)
                    - (dq_pop[i] ? head_pages[i*HELD_W +: HELD_W] : '0);
            end
        end
    end

    // ---- route queue: the port of each packet granted and not yet read out, in grant order. The
    // buffer takes a new request only as the last beat of the current one is read, so two entries
    // are the most in flight; four leave room.
    logic [PORT_W-1:0] route_mem [4];
    logic [1:0]        route_rd_reg, route_wr_reg;
    wire logic [PORT_W-1:0] route_port = route_mem[route_rd_reg];
    wire logic b_fire = b_tvalid && b_tready;
    always_ff @(posedge clk) begin
        if (grant) route_mem[route_wr_reg] <= pick;
    end
    always_ff @(posedge clk) begin
        if (rst) begin
            route_rd_reg <= '0;
            route_wr_reg <= '0;
        end else begin
            if (grant) route_wr_reg <= route_wr_reg + 2'd1;
            if (b_fire && b_tlast) route_rd_reg <= route_rd_reg + 2'd1;
        end
    end

    // ---- per-port output FIFOs (credits keep them from filling, so b_tready stays high)
    logic [PORTS-1:0] of_tready;
    assign b_tready = of_tready[route_port];
    for (genvar i = 0; i < PORTS; i++) begin : g_out
        p4f_axis_fifo #(.DATA_W(DATA_W), .KEEP_W(KEEP_W), .USER_W(USER_W), .DEPTH(OUT_DEPTH)) u_of (
            .clk, .rst,
            .s_axis_tdata(b_tdata), .s_axis_tkeep(b_tkeep), .s_axis_tvalid(b_tvalid && route_port == PORT_W'(i)),
            .s_axis_tready(of_tready[i]), .s_axis_tlast(b_tlast), .s_axis_tuser(b_user),
            .m_axis_tdata(m_axis_tdata[i*DATA_W +: DATA_W]), .m_axis_tkeep(m_axis_tkeep[i*KEEP_W +: KEEP_W]),
            .m_axis_tvalid(m_axis_tvalid[i]), .m_axis_tready(m_axis_tready[i]),
            .m_axis_tlast(m_axis_tlast[i]), .m_axis_tuser(m_axis_tuser[i*USER_W +: USER_W])
        );
        assign out_fire[i] = m_axis_tvalid[i] && m_axis_tready[i];
    end

endmodule

`default_nettype wire

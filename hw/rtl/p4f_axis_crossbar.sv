// p4f_axis_crossbar: S_COUNT AXI4-Stream inputs to M_COUNT outputs, by whole packets; the output
// crossbar of the seed design's multi-port switching architecture.
//
// s_axis_tdest of a packet's first beat chooses its output (the beats after it follow, whatever
// their tdest). Each output has its own p4f_axis_rr_arbiter over the inputs whose packet is for
// it: an output is held by one input from that packet's first beat to its tlast, round robin
// between packets (an input with a packet waiting is passed over by at most S_COUNT-1 packets
// for the same output), one beat per cycle, with the input's index on m_axis_tid. Outputs work in
// parallel: packets for different outputs move in the same cycle. An input waits only for its
// own packet's output (head-of-line blocking per input; put a FIFO per input to decouple them).
// A packet whose tdest is M_COUNT or more is dropped whole: its beats are taken at one per cycle
// and discarded, and drop_count increments on its first beat.
//
// Inputs and outputs: flat vectors, port i in bits [i*W +: W]. s_axis_tready[i] depends
// combinationally on s_axis_tvalid and s_axis_tdest (as in p4f_axis_rr_arbiter); m_axis_* are
// flops. Latency: one cycle.
`default_nettype none

module p4f_axis_crossbar #(
    parameter int S_COUNT = 4,                       // number of inputs, at least 2
    parameter int M_COUNT = 4,                       // number of outputs, at least 1
    parameter int DATA_W  = 64,                      // tdata width in bits, a multiple of 8
    parameter int KEEP_W  = (DATA_W + 7) / 8,        // tkeep width: one bit per byte
    parameter int USER_W  = 1,                       // tuser width in bits (at least 1)
    parameter int DEST_W  = 9,                       // tdest width (v1model's egress port width)
    parameter int ID_W    = $clog2(S_COUNT)          // m_axis_tid width (input index)
) (
    input  wire logic                      clk,
    input  wire logic                      rst,

    input  wire logic [S_COUNT*DATA_W-1:0] s_axis_tdata,
    input  wire logic [S_COUNT*KEEP_W-1:0] s_axis_tkeep,
    input  wire logic [S_COUNT-1:0]        s_axis_tvalid,
    output logic      [S_COUNT-1:0]        s_axis_tready,
    input  wire logic [S_COUNT-1:0]        s_axis_tlast,
    input  wire logic [S_COUNT*DEST_W-1:0] s_axis_tdest,
    input  wire logic [S_COUNT*USER_W-1:0] s_axis_tuser,

    output logic      [M_COUNT*DATA_W-1:0] m_axis_tdata,
    output logic      [M_COUNT*KEEP_W-1:0] m_axis_tkeep,
    output logic      [M_COUNT-1:0]        m_axis_tvalid,
    input  wire logic [M_COUNT-1:0]        m_axis_tready,
    output logic      [M_COUNT-1:0]        m_axis_tlast,
    output logic      [M_COUNT*ID_W-1:0]   m_axis_tid,
    output logic      [M_COUNT*USER_W-1:0] m_axis_tuser,

    output logic      [31:0]               drop_count
);
    if (S_COUNT < 2 || M_COUNT < 1 || (1 << ID_W) < S_COUNT || (1 << DEST_W) < M_COUNT) begin : g_bad_params
        $error("p4f_axis_crossbar: S_COUNT >= 2, M_COUNT >= 1, and both must fit in ID_W and DEST_W bits");
    end

    // Per input: the output its current packet goes to, latched from the first beat.
    logic [S_COUNT-1:0]        in_packet_reg, dropping_reg;
    logic [DEST_W-1:0]         dest_reg [S_COUNT];
    logic [DEST_W-1:0]         dest [S_COUNT];
    logic [S_COUNT-1:0]        drop_start;
    // req[o][i]: input i offers a beat for output o; ready[o][i]: output o takes it.
    logic [S_COUNT-1:0]        req   [M_COUNT];
    logic [S_COUNT-1:0]        ready [M_COUNT];

    // Three separate blocks: one would read as a loop through the arbiters (tready from req).
    always_comb begin
        for (int i = 0; i < S_COUNT; i++) begin
            dest[i] = in_packet_reg[i] ? dest_reg[i] : s_axis_tdest[i*DEST_W +: DEST_W];
            drop_start[i] = s_axis_tvalid[i] && !in_packet_reg[i] && !dropping_reg[i]
                         && int'(dest[i]) >= M_COUNT;
        end
    end

    always_comb begin
        for (int o = 0; o < M_COUNT; o++) begin
            for (int i = 0; i < S_COUNT; i++) begin
                req[o][i] = s_axis_tvalid[i] && !dropping_reg[i] && int'(dest[i]) == o;
            end
        end
    end

    always_comb begin
        for (int i = 0; i < S_COUNT; i++) begin
            s_axis_tready[i] = dropping_reg[i] || drop_start[i];
            for (int o = 0; o < M_COUNT; o++) s_axis_tready[i] = s_axis_tready[i] || ready[o][i];
        end
    end

    always_ff @(posedge clk) begin
        for (int i = 0; i < S_COUNT; i++) begin
            if (s_axis_tvalid[i] && s_axis_tready[i] && !in_packet_reg[i]) dest_reg[i] <= dest[i];
        end
    end

    always_ff @(posedge clk) begin
        if (rst) begin
            in_packet_reg <= '0;
            dropping_reg  <= '0;
            drop_count    <= '0;
        end else begin
            for (int i = 0; i < S_COUNT; i++) begin
                if (s_axis_tvalid[i] && s_axis_tready[i]) begin
                    in_packet_reg[i] <= !s_axis_tlast[i];
                    dropping_reg[i]  <= (dropping_reg[i] || drop_start[i]) && !s_axis_tlast[i];
                end
            end
            drop_count <= drop_count + 32'($countones(drop_start));
        end
    end

    for (genvar o = 0; o < M_COUNT; o++) begin : g_out
        p4f_axis_rr_arbiter #(
            .S_COUNT(S_COUNT), .DATA_W(DATA_W), .KEEP_W(KEEP_W), .USER_W(USER_W), .ID_W(ID_W)
        ) u_arb (
            .clk, .rst,
            .s_axis_tdata (s_axis_tdata),
            .s_axis_tkeep (s_axis_tkeep),
            .s_axis_tvalid(req[o]),
            .s_axis_tready(ready[o]),
            .s_axis_tlast (s_axis_tlast),
            .s_axis_tuser (s_axis_tuser),
            .m_axis_tdata (m_axis_tdata[o*DATA_W +: DATA_W]),
            .m_axis_tkeep (m_axis_tkeep[o*KEEP_W +: KEEP_W]),
            .m_axis_tvalid(m_axis_tvalid[o]),
            .m_axis_tready(m_axis_tready[o]),
            .m_axis_tlast (m_axis_tlast[o]),
            .m_axis_tid   (m_axis_tid[o*ID_W +: ID_W]),
            .m_axis_tuser (m_axis_tuser[o*USER_W +: USER_W])
        );
    end

endmodule

`default_nettype wire

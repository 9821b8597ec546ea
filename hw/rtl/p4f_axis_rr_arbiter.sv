// p4f_axis_rr_arbiter: S_COUNT AXI4-Stream inputs onto one output, round robin, whole packets.
//
// The grant moves only after a beat with tlast, so packets never interleave. The index of the
// input a beat came from goes out on m_axis_tid (AXI4-Stream's source identifier; tdest is left
// for the egress port the pipeline chooses). Between packets the next input is picked in the same
// cycle its first beat is taken, so back-to-back packets, even one-beat packets from alternating
// inputs, go through at one beat per cycle. Priority after a packet from input i starts at i+1:
// an input with a packet waiting is passed over by at most S_COUNT-1 packets.
//
// Inputs: flat vectors, input i in bits [i*W +: W]. s_axis_tready[i] may depend on s_axis_tvalid
// (allowed by AXI4-Stream; sources must not make tvalid depend on tready). The output goes through
// p4f_axis_register, so m_axis_* are flops and m_axis_tready reaches no input combinationally.
// Latency: one cycle.
`default_nettype none

module p4f_axis_rr_arbiter #(
    parameter int S_COUNT = 4,                         // number of inputs, at least 2
    parameter int DATA_W  = 64,                        // tdata width in bits, a multiple of 8
    parameter int KEEP_W  = (DATA_W + 7) / 8,          // tkeep width: one bit per byte
    parameter int USER_W  = 1,                         // tuser width in bits (at least 1)
    parameter int ID_W    = S_COUNT > 1 ? $clog2(S_COUNT) : 1 // m_axis_tid width
) (
    input  wire logic                      clk,
    input  wire logic                      rst,

    input  wire logic [S_COUNT*DATA_W-1:0] s_axis_tdata,
    input  wire logic [S_COUNT*KEEP_W-1:0] s_axis_tkeep,
    input  wire logic [S_COUNT-1:0]        s_axis_tvalid,
    output logic      [S_COUNT-1:0]        s_axis_tready,
    input  wire logic [S_COUNT-1:0]        s_axis_tlast,
    input  wire logic [S_COUNT*USER_W-1:0] s_axis_tuser,

    output logic      [DATA_W-1:0]         m_axis_tdata,
    output logic      [KEEP_W-1:0]         m_axis_tkeep,
    output logic                           m_axis_tvalid,
    input  wire logic                      m_axis_tready,
    output logic                           m_axis_tlast,
    output logic      [ID_W-1:0]           m_axis_tid,
    output logic      [USER_W-1:0]         m_axis_tuser
);
    if (S_COUNT < 2 || (1 << ID_W) < S_COUNT) begin : g_bad_params
        $error("p4f_axis_rr_arbiter: S_COUNT must be >= 2 and fit in ID_W bits");
    end

    // in_packet_reg: the first beat of a packet from grant_reg has gone and its tlast has not.
    logic            in_packet_reg;
    logic [ID_W-1:0] grant_reg;
    // The input that started the last packet; the round robin starts looking after it.
    logic [ID_W-1:0] last_start_reg;

    // Round-robin pick among the inputs with a beat waiting: the first valid input at
    // last_start_reg+1, +2, ... (wrapping), so the last one served has the lowest priority.
    logic [ID_W-1:0] pick;
    logic            pick_valid;
    always_comb begin
        logic [ID_W-1:0] idx;
        pick       = '0;
        pick_valid = 1'b0;
        for (int k = S_COUNT; k >= 1; k--) begin
            // Scanning from the farthest to the nearest lets the nearest one win.
            idx = ID_W'((int'(last_start_reg) + k) % S_COUNT);
            if (s_axis_tvalid[idx]) begin
                pick       = idx;
                pick_valid = 1'b1;
            end
        end
    end

    wire logic [ID_W-1:0] sel       = in_packet_reg ? grant_reg : pick;
    wire logic            sel_valid = in_packet_reg ? s_axis_tvalid[sel] : pick_valid;

    logic int_tready;
    wire logic fire = sel_valid && int_tready;

    always_comb begin
        s_axis_tready      = '0;
        s_axis_tready[sel] = int_tready && sel_valid;
    end

    always_ff @(posedge clk) begin
        if (rst) begin
            in_packet_reg  <= 1'b0;
            grant_reg      <= '0;
            last_start_reg <= ID_W'(S_COUNT - 1); // so input 0 has the first turn
        end else if (fire) begin
            if (!in_packet_reg) begin
                last_start_reg <= sel;
                grant_reg      <= sel;
            end
            in_packet_reg <= !s_axis_tlast[sel];
        end
    end

    p4f_axis_register #(
        .DATA_W(DATA_W), .KEEP_W(KEEP_W), .ID_W(ID_W), .USER_W(USER_W)
    ) u_out_reg (
        .clk(clk), .rst(rst),
        .s_axis_tdata (s_axis_tdata[sel*DATA_W +: DATA_W]),
        .s_axis_tkeep (s_axis_tkeep[sel*KEEP_W +: KEEP_W]),
        .s_axis_tvalid(sel_valid),
        .s_axis_tready(int_tready),
        .s_axis_tlast (s_axis_tlast[sel]),
        .s_axis_tid   (sel),
        .s_axis_tuser (s_axis_tuser[sel*USER_W +: USER_W]),
        .m_axis_tdata, .m_axis_tkeep, .m_axis_tvalid, .m_axis_tready,
        .m_axis_tlast, .m_axis_tid, .m_axis_tuser
    );

endmodule

`default_nettype wire

// p4f_timestamp: one port's timestamp unit, for the MAC's side of the port queues (clk is the
// MAC's clock; `now` is a free-running 64-bit time counter in that domain, in whatever unit the
// design keeps time).
//
// RX (s_rx_axis -> m_rx_axis): every beat of a packet leaves with m_rx_axis_tuser =
// {rx_ts, s_rx_axis_tuser}, where rx_ts is the value of `now` in the cycle the packet's first
// beat was taken on s_rx_axis. The pipeline gets the arrival time as part of each packet's tuser.
//
// TX (s_tx_axis -> m_tx_axis): s_tx_ts_insert and s_tx_ts_offset are read with a packet's first
// beat (ignored on the others). With s_tx_ts_insert set, the 8 bytes at byte offsets
// s_tx_ts_offset .. s_tx_ts_offset+7 of the packet (byte 0 = tdata[7:0] of the first beat) are
// replaced by tx_ts, big-endian (byte s_tx_ts_offset = tx_ts[63:56]), as the OP4T NIC's probes
// need. tx_ts is the value of `now` in the cycle the packet's first beat is loaded into the
// output register, i.e. the cycle before it first shows on m_tx_axis; a wait for m_tx_axis_tready
// after that does not change it (the beat must stay unchanged while stalled). The 8 bytes may
// straddle beats. Bytes past the end of the packet are not written (the packet is not
// lengthened) and tkeep is not consulted. tx_ts also comes out on tx_ts/tx_ts_valid (a one-cycle
// pulse when the first beat is loaded) for every packet, stamped or not.
//
// Both paths: one register stage, one beat per cycle; s_*_tready = !m_*_tvalid || m_*_tready
// (combinational from m_*_tready). Latency one cycle.
`default_nettype none

module p4f_timestamp #(
    parameter int DATA_W = 64,               // tdata width in bits, a multiple of 8
    parameter int KEEP_W = (DATA_W + 7) / 8, // tkeep width: one bit per byte
    parameter int USER_W = 1,                // tuser width in bits (at least 1)
    parameter int OFF_W  = 16                // s_tx_ts_offset width: byte offsets up to 2^OFF_W-1
) (
    input  wire logic                 clk,
    input  wire logic                 rst,
    input  wire logic [63:0]          now,

    input  wire logic [DATA_W-1:0]    s_rx_axis_tdata,
    input  wire logic [KEEP_W-1:0]    s_rx_axis_tkeep,
    input  wire logic                 s_rx_axis_tvalid,
    output logic                      s_rx_axis_tready,
    input  wire logic                 s_rx_axis_tlast,
    input  wire logic [USER_W-1:0]    s_rx_axis_tuser,

    output logic      [DATA_W-1:0]    m_rx_axis_tdata,
    output logic      [KEEP_W-1:0]    m_rx_axis_tkeep,
    output logic                      m_rx_axis_tvalid,
    input  wire logic                 m_rx_axis_tready,
    output logic                      m_rx_axis_tlast,
    output logic      [USER_W+63:0]   m_rx_axis_tuser,   // {rx_ts, s_rx_axis_tuser}

    input  wire logic [DATA_W-1:0]    s_tx_axis_tdata,
    input  wire logic [KEEP_W-1:0]    s_tx_axis_tkeep,
    input  wire logic                 s_tx_axis_tvalid,
    output logic                      s_tx_axis_tready,
    input  wire logic                 s_tx_axis_tlast,
    input  wire logic [USER_W-1:0]    s_tx_axis_tuser,
    input  wire logic                 s_tx_ts_insert,    // with the first beat
    input  wire logic [OFF_W-1:0]     s_tx_ts_offset,    // with the first beat

    output logic      [DATA_W-1:0]    m_tx_axis_tdata,
    output logic      [KEEP_W-1:0]    m_tx_axis_tkeep,
    output logic                      m_tx_axis_tvalid,
    input  wire logic                 m_tx_axis_tready,
    output logic                      m_tx_axis_tlast,
    output logic      [USER_W-1:0]    m_tx_axis_tuser,

    output logic      [63:0]          tx_ts,
    output logic                      tx_ts_valid
);
    // Byte position of a beat's byte 0 within the packet; wide enough for any offset + 8.
    localparam int POS_W = OFF_W + 1;

    // ---- RX
    logic        rx_in_pkt_reg;
    logic [63:0] rx_ts_reg;
    logic        rx_valid_reg;

    assign s_rx_axis_tready = !rx_valid_reg || m_rx_axis_tready;
    wire logic rx_fire = s_rx_axis_tvalid && s_rx_axis_tready;
    wire logic [63:0] rx_ts = rx_in_pkt_reg ? rx_ts_reg : now;

    always_ff @(posedge clk) begin
        if (rx_fire) begin
            m_rx_axis_tdata <= s_rx_axis_tdata;
            m_rx_axis_tkeep <= s_rx_axis_tkeep;
            m_rx_axis_tlast <= s_rx_axis_tlast;
            m_rx_axis_tuser <= {rx_ts, s_rx_axis_tuser};
            rx_ts_reg       <= rx_ts;
        end
    end

    always_ff @(posedge clk) begin
        if (rst) begin
            rx_in_pkt_reg <= 1'b0;
            rx_valid_reg  <= 1'b0;
        end else begin
            if (rx_fire) rx_in_pkt_reg <= !s_rx_axis_tlast;
            if (rx_fire)               rx_valid_reg <= 1'b1;
            else if (m_rx_axis_tready) rx_valid_reg <= 1'b0;
        end
    end
    assign m_rx_axis_tvalid = rx_valid_reg;

    // ---- TX
    logic             tx_in_pkt_reg, tx_ins_reg, tx_valid_reg;
    logic [OFF_W-1:0] tx_off_reg;
    logic [POS_W-1:0] tx_pos_reg;    // byte position of the next beat's byte 0
    logic [63:0]      tx_ts_reg;

    assign s_tx_axis_tready = !tx_valid_reg || m_tx_axis_tready;
    wire logic tx_fire = s_tx_axis_tvalid && s_tx_axis_tready;
    wire logic             first  = !tx_in_pkt_reg;
    wire logic             ins    = first ? s_tx_ts_insert : tx_ins_reg;
    wire logic [OFF_W-1:0] off    = first ? s_tx_ts_offset : tx_off_reg;
    wire logic [POS_W-1:0] pos    = first ? '0 : tx_pos_reg;
    wire logic [63:0]      ts     = first ? now : tx_ts_reg;

    // Byte j of this beat is packet byte pos+j; it takes time byte (pos+j-off) when that is 0..7.
    logic [DATA_W-1:0] tx_data;
    always_comb begin
        tx_data = s_tx_axis_tdata;
        for (int j = 0; j < KEEP_W; j++) begin
            logic [POS_W:0] rel;
            rel = (POS_W + 1)'(pos) + (POS_W + 1)'(j) - (POS_W + 1)'(off);
            if (ins && rel < 8) tx_data[j*8 +: 8] = ts[(7 - int'(rel[2:0]))*8 +: 8];
        end
    end

    always_ff @(posedge clk) begin
        if (tx_fire) begin
            m_tx_axis_tdata <= tx_data;
            m_tx_axis_tkeep <= s_tx_axis_tkeep;
            m_tx_axis_tlast <= s_tx_axis_tlast;
            m_tx_axis_tuser <= s_tx_axis_tuser;
            tx_ins_reg      <= ins;
            tx_off_reg      <= off;
            tx_pos_reg      <= pos + POS_W'(KEEP_W);
            tx_ts_reg       <= ts;
        end
        if (tx_fire && first) tx_ts <= now;
    end

    always_ff @(posedge clk) begin
        if (rst) begin
            tx_in_pkt_reg <= 1'b0;
            tx_valid_reg  <= 1'b0;
            tx_ts_valid   <= 1'b0;
        end else begin
            if (tx_fire) tx_in_pkt_reg <= !s_tx_axis_tlast;
            if (tx_fire)               tx_valid_reg <= 1'b1;
            else if (m_tx_axis_tready) tx_valid_reg <= 1'b0;
            tx_ts_valid <= tx_fire && first;
        end
    end
    assign m_tx_axis_tvalid = tx_valid_reg;

endmodule

`default_nettype wire

//! The multi-port wrapper around a generated pipeline (`--arch switch|bump`): per-port RX and TX
//! queues in the ports' own MAC clocks, a round-robin arbiter into `<prefix>_top`, and the way
//! back out by the packet's `tdest`:
//!
//! ```text
//!  rx[i] (mac_clk[i]) ─► p4f_port_rx ─┐                                                ┌─► p4f_port_tx ─► tx[i] (mac_clk[i])
//!       ...                           ├─► p4f_axis_rr_arbiter ─► <prefix>_top ─► out ──┤        ...
//!  rx[N-1]            ─► p4f_port_rx ─┘   (tuser = rx port)      (clk)  (tdest)        └─► p4f_port_tx ─► tx[N-1]
//! ```
//!
//! `out` is `p4f_switch_buffer` for `switch` (N ports: the shared packet buffer with per-port
//! descriptor queues and a read scheduler that serves only the ports whose output has room for the
//! packet, so a busy port never holds back packets for the others; a full buffer drops the packet,
//! counted per output port on `stat_buf_drops`), and a two-way direct path for `bump` (exactly 2
//! ports: a packet leaves on the port its `tdest` names, 0 or 1). Either way a `tdest` that names
//! no port drops the packet whole and counts it on `stat_out_drops`. The pipeline, its
//! AXI4-Lite register map and its status outputs are unchanged; only the streams are wrapped.
//!
//! Ports are flat vectors in the `hw/` convention: port i of `rx_axis_tdata` is bits
//! `[i*DATA_W +: DATA_W]`, of `rx_axis_tvalid` bit i, and so on. Port i's RX and TX are both in
//! `mac_clk[i]` (reset `mac_rst[i]`, asserted together with `rst`, as the clock-crossing FIFOs
//! require); the pipeline, the arbiter, the output stage and AXI4-Lite are in `clk`.
//!
//! Each port's MAC side goes through a `p4f_timestamp` in `mac_clk[i]`, whose `now` is the port's
//! slice of `mac_now` (the time in that clock domain, in the hardware's time format,
//! [`crate::TIME_NS_BITS`]): RX stamps each packet with the time its first beat arrived, which
//! travels in tuser through the RX queue and the arbiter to the pipeline's `s_axis_ts`; TX can
//! write the time a packet leaves into it (see [`Wrapper::timestamps`]).
//!
//! With [`crate::Options::host_port`] a switch has one more port, number N after the N MAC ports:
//! `p4f_host_dma`, the host's DMA queue pair, in `clk` ([`Wrapper::host_dma`]). Its TX stream is
//! the arbiter's input N (ingress port N, arrival time 0: no timestamp unit), the buffer's queue
//! for port N its RX stream; its control and host-memory ports are the wrapper's `host_*` ports
//! (the AXI4-Lite map does not reach them yet), and the manifest's `host_port` is N. With
//! [`crate::Options::host_queues`] above 1 it is `p4f_host_dma_mq`, that many queue pairs: a packet
//! to the host takes the queue a field of its first beat names ([`HostQueues`]), and the control
//! ports hold a field per queue.
//!
//! With two packet processors ([`crate::Options::processors`], `p4forge rtl --arch op4t`: the OP4T
//! shell) the arbiter feeds `p4f_decoupler` instead of the pipeline, and two copies of the
//! pipeline (`u_pp0`, `u_pp1`) sit behind it: the arbiter's port and arrival time travel in the
//! decoupler's tuser, each processor's `tdest` and transmit-timestamp request in its tdest, every
//! stream between the shell and a processor is registered, and a swap (`pp_swap_req` with
//! `pp_swap_to`) hands the traffic to the other processor at a packet boundary once the active one
//! has drained, with nothing lost, cut or repeated and nothing else reset (`pp_hold_rst` holds the
//! inactive one in reset while it is reloaded). The AXI4-Lite map is one bit wider: processor 0's
//! map, then processor 1's at [`crate::Manifest::processor_stride`] (`p4f_axil_split`). The status
//! outputs add up both processors'; the module is `<prefix>_op4t`, the manifest's arch `op4t`.
//!
//! With [`crate::Options::traffic`] each front-panel port gets a `p4f_port_traffic` in
//! `mac_clk[i]` ([`Wrapper::traffic`]): a `p4f_pkt_gen` muxed into the port's RX stream in front
//! of its `p4f_timestamp` (so generated packets are stamped as they arrive, like a MAC's), and a
//! `p4f_pkt_cap` link monitor on the TX stream after it (what the MAC takes). Their control and
//! status are the wrapper's `gen_*`, `traffic_*` and `cap_*` ports in `clk`, crossing into each
//! MAC clock inside the unit (an async FIFO for templates, toggle handshakes for start and for
//! a status snapshot; `hw/rtl/p4f_port_traffic.sv`).

use std::fmt::Write;

use crate::error::{Result, RtlError};
use crate::{Design, Options};

/// What `p4forge rtl --arch` builds around the pipeline.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Arch {
    /// The pipeline alone, `<prefix>_top` (one stream in, one out).
    #[default]
    Top,
    /// A multi-port switch, `<prefix>_switch`: N ports, a shared output buffer.
    Switch,
    /// Bump-in-the-wire, `<prefix>_bump`: 2 ports, a direct path out.
    Bump,
}

impl Arch {
    pub fn name(self) -> &'static str {
        match self {
            Arch::Top => "top",
            Arch::Switch => "switch",
            Arch::Bump => "bump",
        }
    }
}

/// Ports a switch may have (the arbiter and the buffer's scheduler need two; 64 keeps the port
/// index in 6 bits and the per-port muxes reasonable).
pub const SWITCH_PORTS: std::ops::RangeInclusive<u32> = 2..=64;
/// Bytes of the switch's shared packet buffer (`p4f_switch_buffer`'s `BUF_BYTES`: 256 pages of
/// 256 bytes, as the seed design's).
pub const SWITCH_BUFFER_BYTES: u32 = 65536;
/// Ports of a bump-in-the-wire.
pub const BUMP_PORTS: u32 = 2;

/// Checks the port count for `arch`; the message names the option.
pub fn check_ports(arch: Arch, ports: u32) -> std::result::Result<(), String> {
    match arch {
        Arch::Switch if !SWITCH_PORTS.contains(&ports) => {
            Err(format!("--ports {ports}: a switch has {} to {} ports", SWITCH_PORTS.start(), SWITCH_PORTS.end()))
        }
        Arch::Bump if ports != BUMP_PORTS => {
            Err(format!("--ports {ports}: a bump-in-the-wire has exactly {BUMP_PORTS} ports"))
        }
        _ => Ok(()),
    }
}

/// The host port's DMA queue pairs ([`crate::Options::host_queues`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HostQueues {
    /// Queue pairs: 1 (`p4f_host_dma`), or 2, 4, 8 or 16 (`p4f_host_dma_mq`).
    pub count: u32,
    /// Where a packet to the host names its queue: the queue number is the log2(`count`) bits
    /// from this bit of the packet on, counted from its first bit in P4's order (a header's first
    /// field is its first byte's most significant bits).
    pub at_bit: u32,
}

impl Default for HostQueues {
    fn default() -> Self {
        HostQueues { count: 1, at_bit: 0 }
    }
}

impl HostQueues {
    /// Bits of a queue number.
    pub fn bits(self) -> u32 {
        self.count.trailing_zeros()
    }

    /// `p4f_host_dma_mq`'s QSEL_BYTE and QSEL_LSB for a stream of `data_w` bits, or why the
    /// queues cannot be built.
    pub fn select(self, data_w: u32) -> std::result::Result<(u32, u32), String> {
        if ![1, 2, 4, 8, 16].contains(&self.count) {
            return Err(format!("--host-queues {}: 1, 2, 4, 8 or 16", self.count));
        }
        let (byte, from_msb) = (self.at_bit / 8, self.at_bit % 8);
        if self.count > 1 && byte >= data_w / 8 {
            return Err(format!("--host-queue-at {}: beyond the first {}-bit beat", self.at_bit, data_w));
        }
        if from_msb + self.bits() > 8 {
            return Err(format!(
                "--host-queue-at {}: a {}-bit queue number from there crosses a byte boundary",
                self.at_bit,
                self.bits()
            ));
        }
        Ok((byte, 8 - from_msb - self.bits()))
    }
}

/// Adds the wrapper `opts.arch` asks for to `design` (whose pipeline is `<prefix>_top`): the
/// wrapper's file after the top's, the `hw/` modules it uses, and the manifest's top, files,
/// architecture, port count and port description. `Arch::Top` leaves the design as it is.
pub fn apply(design: &mut Design, prefix: &str, opts: &Options) -> Result<()> {
    apply_with(design, prefix, None, opts)
}

/// [`apply`] for the OP4T shell with a different program in its second packet processor: `other`
/// is that program's pipeline (`<second_prefix>_top`), which becomes processor 1 and the
/// manifest's `second_processor`.
pub fn apply_pair(design: &mut Design, prefix: &str, other: Design, second_prefix: &str, opts: &Options) -> Result<()> {
    let (m, o) = (&design.manifest, &other.manifest);
    if o.port_width != m.port_width {
        return Err(RtlError::global(format!(
            "the second program numbers ports in {} bits, the first in {}: one shell cannot carry both",
            o.port_width, m.port_width
        )));
    }
    if o.data_width != m.data_width {
        return Err(RtlError::global("the two programs' pipelines have different stream widths"));
    }
    let second_aw = o.axil_addr_width;
    design.generated.extend(other.generated.iter().cloned());
    let mut hw = design.hw_modules.clone();
    hw.extend(other.hw_modules.iter().cloned());
    design.hw_modules = crate::hw::closure(&hw);
    apply_with(design, prefix, Some((second_prefix, second_aw)), opts)?;
    design.manifest.second_processor = Some(Box::new(other.manifest));
    Ok(())
}

/// [`apply`]; `second`: processor 1's module prefix and address width when it runs another program.
fn apply_with(design: &mut Design, prefix: &str, second: Option<(&str, u32)>, opts: &Options) -> Result<()> {
    if opts.arch == Arch::Top {
        return Ok(());
    }
    check_ports(opts.arch, opts.ports).map_err(RtlError::global)?;
    if opts.host_port && opts.arch != Arch::Switch {
        return Err(RtlError::global("--host-port goes with --arch switch"));
    }
    let processors = opts.processors;
    if !(1..=2).contains(&processors) || (processors == 2 && !(opts.arch == Arch::Switch && opts.host_port)) {
        return Err(RtlError::global("two packet processors go with a switch with a host port (--arch op4t); one otherwise"));
    }
    let traffic = opts.traffic;
    let host = opts.host_port;
    if opts.host_queues.count > 1 && !host {
        return Err(RtlError::global("--host-queues goes with --host-port"));
    }
    let host_select = opts.host_queues.select(design.manifest.data_width).map_err(RtlError::global)?;
    let m = &design.manifest;
    let port_w = m.port_width;
    let all_ports = opts.ports + u32::from(host);
    if port_w < 32 && (1u64 << port_w) < u64::from(all_ports) {
        return Err(RtlError::global(format!(
            "{all_ports} ports do not fit the architecture's {port_w}-bit port numbers"
        )));
    }
    // Two processors: their register maps side by side, one address bit more than the wider.
    let pp_addr_w = [m.axil_addr_width, second.map_or(m.axil_addr_width, |(_, aw)| aw)];
    let addr_w = pp_addr_w[0].max(pp_addr_w[1]) + u32::from(processors == 2);

    let w = Wrapper {
        prefix,
        arch: opts.arch,
        ports: opts.ports,
        host: host.then_some((opts.host_queues.count, host_select)),
        traffic,
        port_w,
        addr_w,
        processors,
        second_prefix: second.map(|(p, _)| p),
        pp_addr_w,
        data_w: m.data_width,
        // Every queue holds the longest packet the pipeline takes (its payload FIFO's beats).
        queue_depth: crate::PAYLOAD_FIFO_BEATS,
    };
    let arch_name = if processors == 2 { "op4t" } else { opts.arch.name() };
    let module = format!("{prefix}_{arch_name}");
    design.generated.push((format!("{module}.sv"), w.text()));

    let mut hw: Vec<String> = design.hw_modules.clone();
    hw.extend(["p4f_port_rx", "p4f_port_tx", "p4f_axis_rr_arbiter", "p4f_timestamp"].map(String::from));
    if opts.arch == Arch::Switch {
        hw.push("p4f_switch_buffer".into());
    }
    if host {
        hw.push(if opts.host_queues.count > 1 { "p4f_host_dma_mq" } else { "p4f_host_dma" }.into());
    }
    if traffic {
        hw.push("p4f_port_traffic".into());
    }
    if processors == 2 {
        hw.extend(["p4f_decoupler", "p4f_axil_split"].map(String::from));
    }
    design.hw_modules = crate::hw::closure(&hw);
    let mut files: Vec<String> = design.hw_modules.iter().map(|m| format!("hw/{m}.sv")).collect();
    files.extend(design.generated.iter().map(|(n, _)| n.clone()));

    let m = &mut design.manifest;
    m.files = files;
    m.top = module;
    m.arch = Some(arch_name.to_string());
    m.port_count = Some(opts.ports);
    m.host_port = host.then_some(opts.ports);
    m.processor_stride = (processors == 2).then(|| 1 << (addr_w - 1));
    m.ports = serde_json::json!({
        "layout": "flat vectors: port i is bits [i*W +: W] of each rx_axis_*/tx_axis_* signal (W its width for one port: DATA_W, DATA_W/8 or 1)",
        "rx": {"stream": "rx_axis", "signals": "tdata, tkeep, tvalid, tready, tlast", "clock": "mac_clk[i]", "reset": "mac_rst[i]"},
        "time": {"signal": "mac_now", "width_per_port": 64, "clock": "mac_clk[i]", "format": format!("whole microseconds in bits 63:{}, nanoseconds within the microsecond (0-999) below", crate::TIME_NS_BITS), "use": "each packet's arrival time (p4f_timestamp), the pipeline's ingress timestamp"},
        "tx": {"stream": "tx_axis", "signals": "tdata, tkeep, tvalid, tready, tlast", "clock": "mac_clk[i]", "reset": "mac_rst[i]"},
        "clocks": {
            "pipeline": {"clock": "clk", "reset": "rst", "mhz": opts.clock_mhz},
            "mac": {"clock": "mac_clk[i]", "reset": "mac_rst[i]", "note": "one per port, unrelated to clk (156.25 MHz in the seed design); assert every reset together with rst"}
        },
        "pipeline": {"module": format!("{prefix}_top"), "instance": if processors == 2 { "u_pp0, u_pp1 (behind u_decoupler)" } else { "u_top" }, "tuser": "rx port index", "ts": "arrival time from the port's mac_now", "tdest": "tx port index; any other value is dropped"},
        "out": if opts.arch == Arch::Switch { "p4f_switch_buffer (shared packet buffer, per-port descriptor queues, no head-of-line blocking)" } else { "direct path (no buffer)" },
        "buffer_bytes": if opts.arch == Arch::Switch { serde_json::json!(SWITCH_BUFFER_BYTES) } else { serde_json::Value::Null },
        "queue_beats": w.queue_depth,
        "control": {"axi4_lite": "s_axil", "data_width": 32, "clock": "clk"},
        "status": {
            "pipeline": "stat_stall_cycles, stat_drops, stat_descs, stat_packets, stat_loops, tables_busy: the pipeline's, also in its register map (clk)",
            "stat_rx_drops": "per port, 32 bits each: packets the RX queue dropped whole (clk)",
            "stat_tx_drops": "per port, 32 bits each: packets longer than the TX queue (mac_clk[i])",
            "stat_out_drops": "packets whose tdest named no port (clk)",
            "stat_buf_drops": "switch only; per output port, 32 bits each: packets the full buffer dropped (clk); with a host port one more, the host port's"
        }
    });
    if traffic {
        m.ports["traffic"] = serde_json::json!({
            "module": "p4f_port_traffic",
            "instance": "g_traffic[i].u_traffic",
            "clock": "mac_clk[i] (control and status ports in clk)",
            "generator": "p4f_pkt_gen, muxed into port i's RX stream in front of its p4f_timestamp while gen_enable[i] is high (the MAC's rx_axis_tready is then low); the source changes between packets",
            "capturer": "p4f_pkt_cap's link monitor on port i's TX stream after its p4f_timestamp (tx_axis valid && ready): packets, bytes, the first and last packet's times, the last one's length",
            "templates": "gen_tpl_valid[i]/gen_tpl_ready[i] with the shared gen_tpl_addr, gen_tpl_data, gen_tpl_keep, gen_tpl_last: one beat per handshake into port i's template RAM (QUEUE_DEPTH beats), through an async FIFO",
            "start": "a gen_start[i] pulse (ignored while gen_start_pending[i]) takes the shared gen_count (packets), gen_period (MAC cycles between packet starts, 8 fractional bits; 0 = back to back), gen_tpl_end, gen_seq_offset and gen_seq_en (a 32-bit big-endian sequence number per packet); a toggle handshake into mac_clk[i]",
            "status": "a traffic_snap[i] pulse (traffic_snap_clear sampled with it: clear the capturer after the copy) copies the counters in mac_clk[i]; when traffic_snap_done[i] is high again, gen_busy, gen_runs (8 bits), gen_packets, cap_packets, cap_bytes (64), cap_first_ts, cap_last_ts (64, the hardware time format) and cap_last_len hold port i's snapshot",
            "time_format": format!("whole microseconds in bits 63:{}, nanoseconds within the microsecond below", crate::TIME_NS_BITS)
        });
    }
    if processors == 2 {
        m.ports["processors"] = serde_json::json!({
            "count": 2,
            "module": "p4f_decoupler",
            "instance": "u_decoupler",
            "register_maps": format!(
                "processor 0 at 0, processor 1 at {:#x} (manifest processor_stride): {}",
                1u32 << (addr_w - 1),
                if second.is_some() { "processor 1's is the manifest's second_processor's" } else { "alike" }
            ),
            "programs": match second {
                Some((p1, _)) => serde_json::json!([format!("{prefix}_top"), format!("{p1}_top")]),
                None => serde_json::json!([format!("{prefix}_top"), format!("{prefix}_top")]),
            },
            "swap": "a pp_swap_req pulse with pp_swap_to: the input stops at a packet boundary, the active processor drains, the other takes over (pp_swap_busy meanwhile); pp_active, pp_swaps, pp_swap_ignored, pp_drain_cycles, pp_stray_beats (clk)",
            "reset": "pp_hold_rst[i] holds processor i in reset while it is not active (reloading it)",
            "status": "stat_* add up both processors' counts; tables_busy is either's"
        });
    }
    if host {
        let queues = opts.host_queues.count;
        m.ports["host"] = serde_json::json!({
            "port": opts.ports,
            "module": if queues > 1 { "p4f_host_dma_mq" } else { "p4f_host_dma" },
            "instance": "u_host",
            "clock": "clk",
            "reset": "rst",
            "use": "the host's DMA queue pair over descriptor rings in host memory: its TX stream is one more input of the arbiter (ingress port = this number), the buffer's queue for this port feeds its RX stream",
            "control": "top-level ports host_enable, host_tx_ring_base, host_tx_ring_log2, host_tx_tail, host_tx_head, host_rx_ring_base, host_rx_ring_log2, host_rx_tail, host_rx_head, host_tx_packets, host_rx_packets, host_rx_truncated, host_desc_errors (not mapped into AXI4-Lite yet)",
            "memory": "host_mem_req_valid/ready/write/addr/wdata/wstrb (one aligned DATA_W beat per request), host_mem_rsp_valid/rdata (read responses in request order, no ready)",
            "ring_index_bits": 8,
            "timestamp": "none: its packets reach the pipeline with arrival time 0"
        });
        if queues > 1 {
            m.ports["host"]["queues"] = queues.into();
            m.ports["host"]["queue_select"] = serde_json::json!({
                "at_bit": opts.host_queues.at_bit,
                "bits": opts.host_queues.bits(),
                "use": "a packet to the host goes to the RX ring of the queue these bits of its first beat name (P4's bit order from the packet's first bit); the host_* control ports hold a field per queue, queue q in bits [q*W +: W]; the queues' TX packets are merged round robin"
            });
        }
    }
    Ok(())
}

/// The wrapper's ports for the host port (after `stat_out_drops`, with `stat_buf_drops` one
/// counter longer: the host port's): with `queues` > 1 each control port holds a field per queue,
/// queue q in bits [q*W +: W].
fn host_ports(queues: u32) -> String {
    // (input?, bits per queue (0: one bit), name); the memory ports follow, shared.
    const CONTROL: [(bool, u32, &str); 13] = [
        (true, 0, "host_enable"),
        (true, 64, "host_tx_ring_base"),
        (true, 5, "host_tx_ring_log2"),
        (true, 8, "host_tx_tail"),
        (false, 8, "host_tx_head"),
        (true, 64, "host_rx_ring_base"),
        (true, 5, "host_rx_ring_log2"),
        (true, 8, "host_rx_tail"),
        (false, 8, "host_rx_head"),
        (false, 32, "host_tx_packets"),
        (false, 32, "host_rx_packets"),
        (false, 32, "host_rx_truncated"),
        (false, 32, "host_desc_errors"),
    ];
    let mut o = String::from(
        ",  // tdest named no port (clk)
    output logic      [SW_PORTS*32-1:0]    stat_buf_drops,  // port i: the buffer was full (clk); port PORTS: the host's
",
    );
    if queues > 1 {
        o.push_str(
            "
    // The host port's DMA queue pairs (clk; p4f_host_dma_mq): their control, a field per queue
    // (queue q in bits [q*W +: W]; not in the AXI4-Lite map yet), then the host-memory interface
    // they share (one aligned DATA_W beat per request; read responses in request order, without ready).
",
        );
    } else {
        o.push_str(
            "
    // The host port's DMA queue pair (clk; p4f_host_dma): its control (not in the AXI4-Lite map
    // yet), then its host-memory interface (one aligned DATA_W beat per request; read responses in
    // request order, without ready).
",
        );
    }
    for (input, bits, name) in CONTROL {
        let range = match (queues, bits) {
            (1, 0) => String::new(),
            (1, b) => format!("[{}:0]", b - 1),
            (_, 0) => "[HOST_QUEUES-1:0]".to_string(),
            (_, b) => format!("[HOST_QUEUES*{b}-1:0]"),
        };
        let dir = if input { "input  wire logic" } else { "output logic     " };
        let _ = writeln!(o, "    {dir} {range:<20} {name},");
    }
    o.push_str(
        "    output logic                           host_mem_req_valid,
    input  wire logic                      host_mem_req_ready,
    output logic                           host_mem_req_write,
    output logic      [63:0]               host_mem_req_addr,
    output logic      [DATA_W-1:0]         host_mem_req_wdata,
    output logic      [KEEP_W-1:0]         host_mem_req_wstrb,
    input  wire logic                      host_mem_rsp_valid,
    input  wire logic [DATA_W-1:0]         host_mem_rsp_rdata",
    );
    o
}

/// The wrapper's ports for swapping its two packet processors (after the drop counters).
const SWAP_PORTS: &str = ",

    // The packet processors (clk; p4f_decoupler): a pp_swap_req pulse hands the traffic to
    // processor pp_swap_to at a packet boundary once the active one has drained.
    input  wire logic                      pp_swap_req,
    input  wire logic                      pp_swap_to,
    input  wire logic [1:0]                pp_hold_rst,     // hold processor i in reset while not active
    output logic                           pp_active,
    output logic                           pp_swap_busy,
    output logic      [31:0]               pp_swaps,
    output logic      [31:0]               pp_swap_ignored,
    output logic      [31:0]               pp_drain_cycles,
    output logic      [31:0]               pp_stray_beats";

/// The wrapper's ports for the traffic units (`--traffic`, after the drop counters): per port i
/// bit i of each `[PORTS-1:0]` vector and bits `[i*W +: W]` of the wider ones; the template beat
/// and the run settings are shared, taken by the port whose valid or start is high.
const TRAFFIC_PORTS: &str = "
    // On-chip traffic (clk; p4f_port_traffic per port, docs/HARDWARE.md). Templates: a beat per
    // gen_tpl_valid[i] && gen_tpl_ready[i]. Start: a gen_start[i] pulse takes the shared run
    // settings. Status: a traffic_snap[i] pulse; the gen_busy .. cap_last_len values of port i
    // hold still while traffic_snap_done[i] is high after it.
    input  wire logic [PORTS-1:0]          gen_tpl_valid,
    output logic      [PORTS-1:0]          gen_tpl_ready,
    input  wire logic [TPL_W-1:0]          gen_tpl_addr,
    input  wire logic [DATA_W-1:0]         gen_tpl_data,
    input  wire logic [KEEP_W-1:0]         gen_tpl_keep,
    input  wire logic                      gen_tpl_last,
    input  wire logic [PORTS-1:0]          gen_enable,         // the generator's stream replaces the MAC's
    input  wire logic [PORTS-1:0]          gen_start,
    input  wire logic [31:0]               gen_count,          // packets; 0: without end (the unit has no stop)
    input  wire logic [23:0]               gen_period,         // MAC cycles between starts, 8 fractional bits
    input  wire logic [TPL_W-1:0]          gen_tpl_end,        // the template's last beat
    input  wire logic [15:0]               gen_seq_offset,     // byte offset of the 32-bit sequence number
    input  wire logic                      gen_seq_en,
    output logic      [PORTS-1:0]          gen_start_pending,  // a start has not reached mac_clk[i] yet
    input  wire logic [PORTS-1:0]          traffic_snap,
    input  wire logic                      traffic_snap_clear, // with traffic_snap: clear the capturer after the copy
    output logic      [PORTS-1:0]          traffic_snap_done,
    output logic      [PORTS-1:0]          gen_busy,
    output logic      [PORTS*8-1:0]        gen_runs,           // generator runs started (wrapping)
    output logic      [PORTS*32-1:0]       gen_packets,        // packets the last run sent
    output logic      [PORTS*32-1:0]       cap_packets,        // TX packets since the last clear
    output logic      [PORTS*64-1:0]       cap_bytes,
    output logic      [PORTS*64-1:0]       cap_first_ts,       // first beat times of the first and last of them
    output logic      [PORTS*64-1:0]       cap_last_ts,
    output logic      [PORTS*32-1:0]       cap_last_len,       // the last one's bytes
";

/// The parameters of one wrapper's text.
struct Wrapper<'a> {
    prefix: &'a str,
    arch: Arch,
    ports: u32,
    /// A host port as port number `ports`: its queue pairs, and where a packet names its queue
    /// (QSEL_BYTE, QSEL_LSB; [`HostQueues::select`]).
    host: Option<(u32, (u32, u32))>,
    /// A `p4f_port_traffic` per front-panel port ([`crate::Options::traffic`]).
    traffic: bool,
    port_w: u32,
    addr_w: u32,
    /// Packet processors: 1, or 2 behind `p4f_decoupler` ([`crate::Options::processors`]).
    processors: u32,
    /// Processor 1's module prefix when it runs another program ([`apply_pair`]).
    second_prefix: Option<&'a str>,
    /// Each processor's AXI4-Lite address width (`addr_w - 1` is the wider's).
    pp_addr_w: [u32; 2],
    data_w: u32,
    queue_depth: u32,
}

impl Wrapper<'_> {
    fn text(&self) -> String {
        let mut o = String::new();
        self.header(&mut o);
        if self.traffic {
            self.traffic(&mut o);
        }
        self.timestamps(&mut o);
        self.rx_queues(&mut o);
        self.arbiter_and_pipeline(&mut o);
        match self.arch {
            Arch::Switch => self.switch_buffer(&mut o),
            _ => self.direct_path(&mut o),
        }
        if let Some((queues, select)) = self.host {
            self.host_dma(&mut o, queues, select);
        }
        self.tx_queues(&mut o);
        let _ = writeln!(o, "endmodule\n\n`default_nettype wire");
        o
    }

    fn header(&self, o: &mut String) {
        let (p, n, aw) = (self.prefix, self.ports, self.addr_w - 1);
        let (what, out) = match self.arch {
            Arch::Switch => (format!("{n}-port switch"), "p4f_switch_buffer (shared buffer, a queue per port) by tdest"),
            _ => ("bump-in-the-wire (2 ports)".to_string(), "a direct path by tdest (0 or 1)"),
        };
        let _ = writeln!(
            o,
            "// {what} around {p}_top, generated by p4forge (crates/p4-rtl/src/wrapper.rs).
//
//   rx port i (mac_clk[i]) -> p4f_port_rx -> p4f_axis_rr_arbiter -> {p}_top (clk, tuser = port i)
//   -> {out} -> p4f_port_tx -> tx port i (mac_clk[i])
//
// Ports are flat vectors: port i is bits [i*W +: W] of each rx_axis_* / tx_axis_* signal. Port i's
// RX and TX run in mac_clk[i]; the pipeline, AXI4-Lite and the status outputs in clk. Assert every
// mac_rst[i] together with rst (overlapping for a few cycles of the slowest clock). A packet whose
// tdest names no port is dropped whole (stat_out_drops). The register map is the pipeline's
// (manifest.json).{buf_note}{host_note}
`default_nettype none

module {p}_{module_arch} #(
    parameter int DATA_W      = {dw},          // stream width in bits (the pipeline's)
    parameter int KEEP_W      = DATA_W / 8,
    parameter int QUEUE_DEPTH = {qd},          // beats of each RX and TX packet queue (the longest packet)
    parameter int ASYNC_DEPTH = 16,           // entries of each clock-crossing FIFO
    localparam int PORTS      = {n}{traffic_param}{host_param}
) (
    input  wire logic                      clk,      // the pipeline's clock
    input  wire logic                      rst,
    input  wire logic [PORTS-1:0]          mac_clk,  // port i's MAC clock
    input  wire logic [PORTS-1:0]          mac_rst,
    input  wire logic [PORTS*64-1:0]       mac_now,  // port i's time in mac_clk[i] (bits [i*64 +: 64]; docs/HARDWARE.md)

    // From the MACs (port i in mac_clk[i]).
    input  wire logic [PORTS*DATA_W-1:0]   rx_axis_tdata,
    input  wire logic [PORTS*KEEP_W-1:0]   rx_axis_tkeep,
    input  wire logic [PORTS-1:0]          rx_axis_tvalid,
    output logic      [PORTS-1:0]          rx_axis_tready,
    input  wire logic [PORTS-1:0]          rx_axis_tlast,

    // To the MACs (port i in mac_clk[i]); a packet comes out whole, without gaps.
    output logic      [PORTS*DATA_W-1:0]   tx_axis_tdata,
    output logic      [PORTS*KEEP_W-1:0]   tx_axis_tkeep,
    output logic      [PORTS-1:0]          tx_axis_tvalid,
    input  wire logic [PORTS-1:0]          tx_axis_tready,
    output logic      [PORTS-1:0]          tx_axis_tlast,

    // The pipeline's AXI4-Lite (clk).
    input  wire logic [{aw}:0]                s_axil_awaddr,
    input  wire logic [2:0]                s_axil_awprot,
    input  wire logic                      s_axil_awvalid,
    output logic                           s_axil_awready,
    input  wire logic [31:0]               s_axil_wdata,
    input  wire logic [3:0]                s_axil_wstrb,
    input  wire logic                      s_axil_wvalid,
    output logic                           s_axil_wready,
    output logic      [1:0]                s_axil_bresp,
    output logic                           s_axil_bvalid,
    input  wire logic                      s_axil_bready,
    input  wire logic [{aw}:0]                s_axil_araddr,
    input  wire logic [2:0]                s_axil_arprot,
    input  wire logic                      s_axil_arvalid,
    output logic                           s_axil_arready,
    output logic      [31:0]               s_axil_rdata,
    output logic      [1:0]                s_axil_rresp,
    output logic                           s_axil_rvalid,
    input  wire logic                      s_axil_rready,
{traffic_ports}
    // The pipeline's status (clk), then the wrapper's drop counters.
    output logic      [31:0]               stat_stall_cycles,
    output logic      [31:0]               stat_drops,
    output logic      [31:0]               stat_descs,
    output logic      [31:0]               stat_packets,
    output logic      [31:0]               stat_loops,
    output logic                           tables_busy,     // a table is updating an entry (clk)
    output logic      [PORTS*32-1:0]       stat_rx_drops,   // port i: RX queue full (clk)
    output logic      [PORTS*32-1:0]       stat_tx_drops,   // port i: longer than the TX queue (mac_clk[i])
    output logic      [31:0]               stat_out_drops{buf_extra}{swap_ports}
);",
            module_arch = if self.processors == 2 { "op4t" } else { self.arch.name() },
            host_note = if self.host.is_some() {
                "\n// The host port, number PORTS: p4f_host_dma (clk) is one more input of the arbiter and takes
// the buffer's queue for port PORTS; its control and host-memory ports are the host_* ports
// (not in the AXI4-Lite map). It has no timestamp unit: its packets arrive with time 0."
            } else {
                ""
            },
            buf_note = if self.arch == Arch::Switch {
                "\n// A packet that finds the shared buffer full is dropped whole (stat_buf_drops, by output port)."
            } else {
                ""
            },
            traffic_ports = if self.traffic { TRAFFIC_PORTS } else { "" },
            // No trailing comment: the next parameter follows on this line's end.
            traffic_param = if self.traffic { ",\n    localparam int TPL_W      = $clog2(QUEUE_DEPTH)" } else { "" },
            host_param = match self.host {
                Some((1, _)) => ",\n    localparam int SW_PORTS   = PORTS + 1   // the front-panel ports and the host port (number PORTS)".to_string(),
                Some((q, _)) => format!(",\n    localparam int SW_PORTS   = PORTS + 1,  // the front-panel ports and the host port (number PORTS)\n    localparam int HOST_QUEUES = {q}          // the host port's DMA queue pairs"),
                None => ",\n    localparam int SW_PORTS   = PORTS".to_string(),
            },
            buf_extra = if let (Arch::Switch, Some((queues, _))) = (self.arch, self.host) {
                host_ports(queues)
            } else if self.arch == Arch::Switch {
                ",  // tdest named no port (clk)\n    output logic      [PORTS*32-1:0]       stat_buf_drops   // port i: the buffer was full (clk)".to_string()
            } else {
                "   // tdest named no port (clk)".to_string()
            },
            swap_ports = if self.processors == 2 { SWAP_PORTS } else { "" },
            dw = self.data_w,
            qd = self.queue_depth,
        );
        // The hw modules' tuser/tid outputs the wrapper has no use for land in these.
        let _ = writeln!(o, "    /* verilator lint_off UNUSEDSIGNAL */");
        let _ = writeln!(o, "    logic [PORTS-1:0] ts_unused_tx_tuser, ts_unused_rx_tuser;\n    logic [PORTS*64-1:0] ts_unused_tx_ts;\n    logic [PORTS-1:0] ts_unused_tx_ts_valid;");
        if self.arch == Arch::Switch {
            let _ = writeln!(o, "    logic [$clog2({}):0] buf_unused_free_pages;", SWITCH_BUFFER_BYTES / 256);
        }
        let _ = writeln!(o, "    /* verilator lint_on UNUSEDSIGNAL */\n");
    }

    fn rx_queues(&self, o: &mut String) {
        let _ = writeln!(
            o,
            "    // RX: each port's MAC clock into clk; whole packets only (a packet that finds its queue
    // full is dropped whole, since a MAC cannot wait).
    // The arrival time (tuser) rides with every beat: the queues keep no per-packet side state.
    logic [SW_PORTS*DATA_W-1:0] in_tdata;
    logic [SW_PORTS*KEEP_W-1:0] in_tkeep;
    logic [SW_PORTS-1:0]        in_tvalid, in_tready, in_tlast;
    logic [SW_PORTS*64-1:0]     in_tuser;
    for (genvar i = 0; i < PORTS; i++) begin : g_rx
        p4f_port_rx #(.DATA_W(DATA_W), .KEEP_W(KEEP_W), .USER_W(64), .ASYNC_DEPTH(ASYNC_DEPTH), .DEPTH(QUEUE_DEPTH)) u_rx (
            .s_clk(mac_clk[i]), .s_rst(mac_rst[i]),
            .s_axis_tdata(ts_rx_tdata[i*DATA_W +: DATA_W]), .s_axis_tkeep(ts_rx_tkeep[i*KEEP_W +: KEEP_W]),
            .s_axis_tvalid(ts_rx_tvalid[i]), .s_axis_tready(ts_rx_tready[i]), .s_axis_tlast(ts_rx_tlast[i]), .s_axis_tuser(ts_rx_time[i*64 +: 64]),
            .m_clk(clk), .m_rst(rst),
            .m_axis_tdata(in_tdata[i*DATA_W +: DATA_W]), .m_axis_tkeep(in_tkeep[i*KEEP_W +: KEEP_W]),
            .m_axis_tvalid(in_tvalid[i]), .m_axis_tready(in_tready[i]), .m_axis_tlast(in_tlast[i]), .m_axis_tuser(in_tuser[i*64 +: 64]),
            .drop_count(stat_rx_drops[i*32 +: 32])
        );
    end
"
        );
    }

    fn arbiter_and_pipeline(&self, o: &mut String) {
        let pw = self.port_w;
        let _ = writeln!(
            o,
            "    // One packet at a time into the pipeline, round robin over the ports; the port a packet
    // came from (the arbiter's tid) is its ingress port, its tuser its arrival time.
    localparam int ID_W = $clog2(SW_PORTS);
    logic [DATA_W-1:0] a_tdata;
    logic [KEEP_W-1:0] a_tkeep;
    logic              a_tvalid, a_tready, a_tlast;
    logic [ID_W-1:0]   a_tid;
    logic [63:0]       a_time;
    p4f_axis_rr_arbiter #(.S_COUNT(SW_PORTS), .DATA_W(DATA_W), .KEEP_W(KEEP_W), .USER_W(64), .ID_W(ID_W)) u_arb (
        .clk(clk), .rst(rst),
        .s_axis_tdata(in_tdata), .s_axis_tkeep(in_tkeep), .s_axis_tvalid(in_tvalid), .s_axis_tready(in_tready),
        .s_axis_tlast(in_tlast), .s_axis_tuser(in_tuser),
        .m_axis_tdata(a_tdata), .m_axis_tkeep(a_tkeep), .m_axis_tvalid(a_tvalid), .m_axis_tready(a_tready),
        .m_axis_tlast(a_tlast), .m_axis_tid(a_tid), .m_axis_tuser(a_time)
    );

    logic [DATA_W-1:0] p_tdata;
    logic [KEEP_W-1:0] p_tkeep;
    logic              p_tvalid, p_tready, p_tlast;
    logic [{pw1}:0]        p_tdest;
    logic [{rw1}:0]       p_ts_req;  // {{byte offset, insert}}: the packet's TX timestamp request
{processors}

    // Towards the TX queues (clk).
    logic [SW_PORTS*DATA_W-1:0] out_tdata;
    logic [SW_PORTS*KEEP_W-1:0] out_tkeep;
    logic [SW_PORTS-1:0]        out_tvalid, out_tready, out_tlast;
    logic [SW_PORTS*{rw}-1:0]     out_tuser;  // the TX timestamp request, with every beat
",
            pw1 = pw - 1,
            rw = crate::TX_STAMP_REQ_W,
            rw1 = crate::TX_STAMP_REQ_W - 1,
            processors = if self.processors == 2 { self.two_processors() } else { self.one_pipeline() },
        );
    }

    /// The pipeline itself between the arbiter and the output stage.
    fn one_pipeline(&self) -> String {
        let (p, pw) = (self.prefix, self.port_w);
        format!(
            "    {p}_top #(.DATA_W(DATA_W), .KEEP_W(KEEP_W)) u_top (
        .clk(clk), .rst(rst),
        .s_axis_tdata(a_tdata), .s_axis_tkeep(a_tkeep), .s_axis_tvalid(a_tvalid), .s_axis_tready(a_tready),
        .s_axis_tlast(a_tlast), .s_axis_tuser({pw}'(a_tid)), .s_axis_ts(a_time),
        .m_axis_tdata(p_tdata), .m_axis_tkeep(p_tkeep), .m_axis_tvalid(p_tvalid), .m_axis_tready(p_tready),
        .m_axis_tlast(p_tlast), .m_axis_tdest(p_tdest), .m_axis_ts_req(p_ts_req),
        .s_axil_awaddr, .s_axil_awprot, .s_axil_awvalid, .s_axil_awready, .s_axil_wdata, .s_axil_wstrb,
        .s_axil_wvalid, .s_axil_wready, .s_axil_bresp, .s_axil_bvalid, .s_axil_bready, .s_axil_araddr,
        .s_axil_arprot, .s_axil_arvalid, .s_axil_arready, .s_axil_rdata, .s_axil_rresp, .s_axil_rvalid,
        .s_axil_rready,
        .stat_stall_cycles, .stat_drops, .stat_descs, .stat_packets, .stat_loops, .tables_busy
    );"
        )
    }

    /// Two copies of the pipeline behind `p4f_decoupler`, their register maps split by the
    /// address's top bit; the status outputs add up both.
    fn two_processors(&self) -> String {
        let (p, pw, aw) = (self.prefix, self.port_w, self.addr_w - 1);
        let rw = crate::TX_STAMP_REQ_W;
        let mut o = format!(
            "    // Two packet processors behind the decoupler: in its tuser the ingress port and the arrival
    // time, in its tdest (from a processor) the egress port and the TX timestamp request.
    localparam int PU_W = {pw} + 64;
    localparam int PD_W = {pw} + {rw};
    logic [2*DATA_W-1:0] pp_in_tdata, pp_out_tdata;
    logic [2*KEEP_W-1:0] pp_in_tkeep, pp_out_tkeep;
    logic [1:0]          pp_in_tvalid, pp_in_tready, pp_in_tlast, pp_out_tvalid, pp_out_tready, pp_out_tlast;
    logic [2*PU_W-1:0]   pp_in_tuser;
    logic [2*PD_W-1:0]   pp_out_tdest;
    logic [2*32-1:0]     pp_drops;
    logic [1:0]          pp_rst;
    /* verilator lint_off UNUSEDSIGNAL */
    logic [PU_W-1:0]     dec_unused_tuser;
    /* verilator lint_on UNUSEDSIGNAL */
    p4f_decoupler #(.DATA_W(DATA_W), .KEEP_W(KEEP_W), .USER_W(PU_W), .DEST_W(PD_W), .PP(2), .CNT_W(32)) u_decoupler (
        .clk(clk), .rst(rst),
        .s_axis_tdata(a_tdata), .s_axis_tkeep(a_tkeep), .s_axis_tvalid(a_tvalid), .s_axis_tready(a_tready),
        .s_axis_tlast(a_tlast), .s_axis_tuser({{{pw}'(a_tid), a_time}}),
        .m_pp_axis_tdata(pp_in_tdata), .m_pp_axis_tkeep(pp_in_tkeep), .m_pp_axis_tvalid(pp_in_tvalid),
        .m_pp_axis_tready(pp_in_tready), .m_pp_axis_tlast(pp_in_tlast), .m_pp_axis_tuser(pp_in_tuser),
        .s_pp_axis_tdata(pp_out_tdata), .s_pp_axis_tkeep(pp_out_tkeep), .s_pp_axis_tvalid(pp_out_tvalid),
        .s_pp_axis_tready(pp_out_tready), .s_pp_axis_tlast(pp_out_tlast), .s_pp_axis_tuser('0),
        .s_pp_axis_tdest(pp_out_tdest),
        .m_axis_tdata(p_tdata), .m_axis_tkeep(p_tkeep), .m_axis_tvalid(p_tvalid), .m_axis_tready(p_tready),
        .m_axis_tlast(p_tlast), .m_axis_tuser(dec_unused_tuser), .m_axis_tdest({{p_tdest, p_ts_req}}),
        .pp_drops(pp_drops), .pp_hold_rst(pp_hold_rst), .pp_rst(pp_rst),
        .swap_req(pp_swap_req), .swap_to(pp_swap_to), .active(pp_active), .swap_busy(pp_swap_busy),
        .swaps(pp_swaps), .swap_ignored(pp_swap_ignored), .drain_cycles(pp_drain_cycles), .stray_beats(pp_stray_beats)
    );

    // The register maps: processor 0's below the top address bit, processor 1's above it.{narrow}
    logic [1:0][{aw1}:0] pl_awaddr, pl_araddr;{narrow_end}
    logic [1:0][2:0]   pl_awprot, pl_arprot;
    logic [1:0][31:0]  pl_wdata, pl_rdata;
    logic [1:0][3:0]   pl_wstrb;
    logic [1:0][1:0]   pl_bresp, pl_rresp;
    logic [1:0]        pl_awvalid, pl_awready, pl_wvalid, pl_wready, pl_bvalid, pl_bready,
                       pl_arvalid, pl_arready, pl_rvalid, pl_rready;
    p4f_axil_split #(.DATA_W(32), .SEL_BIT({aw})) u_axil_split (
        .clk(clk), .rst(rst),
        .s_axil_awaddr, .s_axil_awprot, .s_axil_awvalid, .s_axil_awready, .s_axil_wdata, .s_axil_wstrb,
        .s_axil_wvalid, .s_axil_wready, .s_axil_bresp, .s_axil_bvalid, .s_axil_bready, .s_axil_araddr,
        .s_axil_arprot, .s_axil_arvalid, .s_axil_arready, .s_axil_rdata, .s_axil_rresp, .s_axil_rvalid,
        .s_axil_rready,
        .m_axil_awaddr(pl_awaddr), .m_axil_awprot(pl_awprot), .m_axil_awvalid(pl_awvalid), .m_axil_awready(pl_awready),
        .m_axil_wdata(pl_wdata), .m_axil_wstrb(pl_wstrb), .m_axil_wvalid(pl_wvalid), .m_axil_wready(pl_wready),
        .m_axil_bresp(pl_bresp), .m_axil_bvalid(pl_bvalid), .m_axil_bready(pl_bready),
        .m_axil_araddr(pl_araddr), .m_axil_arprot(pl_arprot), .m_axil_arvalid(pl_arvalid), .m_axil_arready(pl_arready),
        .m_axil_rdata(pl_rdata), .m_axil_rresp(pl_rresp), .m_axil_rvalid(pl_rvalid), .m_axil_rready(pl_rready)
    );

    logic [1:0][31:0] pp_stall, pp_drop, pp_desc, pp_packet, pp_loop;
    logic [1:0]       pp_busy;
",
            aw1 = aw - 1,
            narrow = if self.pp_addr_w[0] != self.pp_addr_w[1] { "\n    // The narrower map leaves its processor's top address bits unused.\n    /* verilator lint_off UNUSEDSIGNAL */" } else { "" },
            narrow_end = if self.pp_addr_w[0] != self.pp_addr_w[1] { "\n    /* verilator lint_on UNUSEDSIGNAL */" } else { "" },
        );
        for i in 0..2 {
            let top = if i == 1 { self.second_prefix.unwrap_or(p) } else { p };
            // A narrower map than the wider processor's takes the address's low bits.
            let addr = |bus: &str| match self.pp_addr_w[i] {
                w if w == aw => format!("{bus}[{i}]"),
                w => format!("{bus}[{i}][{}:0]", w - 1),
            };
            let (awaddr, araddr) = (addr("pl_awaddr"), addr("pl_araddr"));
            let _ = write!(
                o,
                "    {top}_top #(.DATA_W(DATA_W), .KEEP_W(KEEP_W)) u_pp{i} (
        .clk(clk), .rst(pp_rst[{i}]),
        .s_axis_tdata(pp_in_tdata[{i}*DATA_W +: DATA_W]), .s_axis_tkeep(pp_in_tkeep[{i}*KEEP_W +: KEEP_W]),
        .s_axis_tvalid(pp_in_tvalid[{i}]), .s_axis_tready(pp_in_tready[{i}]), .s_axis_tlast(pp_in_tlast[{i}]),
        .s_axis_tuser(pp_in_tuser[{i}*PU_W + 64 +: {pw}]), .s_axis_ts(pp_in_tuser[{i}*PU_W +: 64]),
        .m_axis_tdata(pp_out_tdata[{i}*DATA_W +: DATA_W]), .m_axis_tkeep(pp_out_tkeep[{i}*KEEP_W +: KEEP_W]),
        .m_axis_tvalid(pp_out_tvalid[{i}]), .m_axis_tready(pp_out_tready[{i}]), .m_axis_tlast(pp_out_tlast[{i}]),
        .m_axis_tdest(pp_out_tdest[{i}*PD_W + {rw} +: {pw}]), .m_axis_ts_req(pp_out_tdest[{i}*PD_W +: {rw}]),
        .s_axil_awaddr({awaddr}), .s_axil_awprot(pl_awprot[{i}]), .s_axil_awvalid(pl_awvalid[{i}]), .s_axil_awready(pl_awready[{i}]),
        .s_axil_wdata(pl_wdata[{i}]), .s_axil_wstrb(pl_wstrb[{i}]), .s_axil_wvalid(pl_wvalid[{i}]), .s_axil_wready(pl_wready[{i}]),
        .s_axil_bresp(pl_bresp[{i}]), .s_axil_bvalid(pl_bvalid[{i}]), .s_axil_bready(pl_bready[{i}]),
        .s_axil_araddr({araddr}), .s_axil_arprot(pl_arprot[{i}]), .s_axil_arvalid(pl_arvalid[{i}]), .s_axil_arready(pl_arready[{i}]),
        .s_axil_rdata(pl_rdata[{i}]), .s_axil_rresp(pl_rresp[{i}]), .s_axil_rvalid(pl_rvalid[{i}]), .s_axil_rready(pl_rready[{i}]),
        .stat_stall_cycles(pp_stall[{i}]), .stat_drops(pp_drop[{i}]), .stat_descs(pp_desc[{i}]),
        .stat_packets(pp_packet[{i}]), .stat_loops(pp_loop[{i}]), .tables_busy(pp_busy[{i}])
    );
    assign pp_drops[{i}*32 +: 32] = pp_drop[{i}];
"
            );
        }
        o += "    assign stat_stall_cycles = pp_stall[0] + pp_stall[1];
    assign stat_drops        = pp_drop[0] + pp_drop[1];
    assign stat_descs        = pp_desc[0] + pp_desc[1];
    assign stat_packets      = pp_packet[0] + pp_packet[1];
    assign stat_loops        = pp_loop[0] + pp_loop[1];
    assign tables_busy       = |pp_busy;";
        o
    }

    /// The switch: the pipeline's output into the shared buffer, out by tdest to the TX queues.
    fn switch_buffer(&self, o: &mut String) {
        let pw = self.port_w;
        let _ = writeln!(
            o,
            "    // Out by tdest through the shared buffer: each packet stored once, a descriptor queue per
    // port, and a read scheduler that serves only ports whose output FIFO has room for the whole
    // packet, so a busy port (its TX queue full) never holds back packets for the others. A full
    // buffer drops the packet whole (stat_buf_drops, by output port); tdest >= PORTS is dropped
    // and counted on stat_out_drops.
    p4f_switch_buffer #(.DATA_W(DATA_W), .KEEP_W(KEEP_W), .PORTS(SW_PORTS), .DEST_W({pw}), .USER_W({rw}), .BUF_BYTES({buf}),
                        .PAGE_BYTES(256), .OUT_DEPTH(QUEUE_DEPTH)) u_buf (
        .clk(clk), .rst(rst),
        .s_axis_tdata(p_tdata), .s_axis_tkeep(p_tkeep), .s_axis_tvalid(p_tvalid), .s_axis_tready(p_tready),
        .s_axis_tlast(p_tlast), .s_axis_tdest(p_tdest), .s_axis_tuser(p_ts_req),
        .m_axis_tdata(out_tdata), .m_axis_tkeep(out_tkeep), .m_axis_tvalid(out_tvalid), .m_axis_tready(out_tready),
        .m_axis_tlast(out_tlast), .m_axis_tuser(out_tuser),
        .drop_count(stat_buf_drops), .bad_dest_count(stat_out_drops), .free_pages(buf_unused_free_pages)
    );
",
            buf = SWITCH_BUFFER_BYTES,
            rw = crate::TX_STAMP_REQ_W,
        );
    }

    /// Bump-in-the-wire: no buffer. A packet's first beat picks the TX queue (tdest 0 or 1) and
    /// the rest of the packet follows it; any other tdest is taken and thrown away.
    fn direct_path(&self, o: &mut String) {
        let pw = self.port_w;
        let _ = writeln!(
            o,
            "    // Out by tdest, straight to the TX queue it names (0 or 1); another tdest drops the packet.
    logic in_packet_reg, to_1_reg, drop_reg;  // inside a packet: where its first beat went
    logic to_1, drop;
    assign to_1 = in_packet_reg ? to_1_reg : p_tdest == {pw}'d1;
    assign drop = in_packet_reg ? drop_reg : p_tdest > {pw}'d1;
    assign out_tdata  = {{p_tdata, p_tdata}};
    assign out_tkeep  = {{p_tkeep, p_tkeep}};
    assign out_tlast  = {{p_tlast, p_tlast}};
    assign out_tuser  = {{p_ts_req, p_ts_req}};
    assign out_tvalid = {{p_tvalid && !drop && to_1, p_tvalid && !drop && !to_1}};
    assign p_tready   = drop || out_tready[to_1];
    always_ff @(posedge clk) begin
        if (rst) begin
            in_packet_reg  <= 1'b0;
            stat_out_drops <= '0;
        end else if (p_tvalid && p_tready) begin
            in_packet_reg <= !p_tlast;
            if (!in_packet_reg && drop) stat_out_drops <= stat_out_drops + 32'd1;
        end
    end
    always_ff @(posedge clk) begin
        if (p_tvalid && p_tready && !in_packet_reg) begin
            to_1_reg <= to_1;
            drop_reg <= drop;
        end
    end
"
        );
    }

    /// Each port's `p4f_timestamp`, in its MAC clock, between the MAC and the port's queues: RX
    /// stamps a packet with `mac_now` as its first beat arrives (`ts_rx_time`, towards the RX
    /// queue); TX passes the TX queue's packets to the MAC (one register stage), writing a
    /// packet's TX time into it where its request says: the pipeline's `m_axis_ts_req` ({byte
    /// offset, insert}, [`crate::TX_STAMP_REQ_W`]) rides as tuser through the switch buffer (or
    /// the bump's direct path) and the TX queue to `s_tx_ts_insert`/`s_tx_ts_offset`. The
    /// pipeline fills the request from the fields the architecture layer names
    /// (`p4_arch::Architecture::tx_stamp`: OP4T's; v1model and PSA have none and ask for nothing).
    fn timestamps(&self, o: &mut String) {
        let _ = writeln!(
            o,
            "    // Timestamps at the MACs (mac_clk[i], now = mac_now[i*64 +: 64]): RX arrival times into
    // tuser; TX writes a packet's TX time where its request (tuser of the TX queue) asks.
    logic [PORTS*DATA_W-1:0] ts_rx_tdata, ts_tx_tdata;
    logic [PORTS*KEEP_W-1:0] ts_rx_tkeep, ts_tx_tkeep;
    logic [PORTS-1:0]        ts_rx_tvalid, ts_rx_tready, ts_rx_tlast, ts_tx_tvalid, ts_tx_tready, ts_tx_tlast;
    logic [PORTS*64-1:0]     ts_rx_time;
    logic [PORTS*{rw}-1:0]     ts_tx_req;  // {{byte offset, insert}} from the TX queue, read with the first beat
    for (genvar i = 0; i < PORTS; i++) begin : g_ts
        p4f_timestamp #(.DATA_W(DATA_W), .KEEP_W(KEEP_W), .USER_W(1), .OFF_W(16)) u_ts (
            .clk(mac_clk[i]), .rst(mac_rst[i]), .now(mac_now[i*64 +: 64]),
            .s_rx_axis_tdata({rx}_tdata[i*DATA_W +: DATA_W]), .s_rx_axis_tkeep({rx}_tkeep[i*KEEP_W +: KEEP_W]),
            .s_rx_axis_tvalid({rx}_tvalid[i]), .s_rx_axis_tready({rx}_tready[i]), .s_rx_axis_tlast({rx}_tlast[i]), .s_rx_axis_tuser(1'b0),
            .m_rx_axis_tdata(ts_rx_tdata[i*DATA_W +: DATA_W]), .m_rx_axis_tkeep(ts_rx_tkeep[i*KEEP_W +: KEEP_W]),
            .m_rx_axis_tvalid(ts_rx_tvalid[i]), .m_rx_axis_tready(ts_rx_tready[i]), .m_rx_axis_tlast(ts_rx_tlast[i]),
            .m_rx_axis_tuser({{ts_rx_time[i*64 +: 64], ts_unused_rx_tuser[i]}}),
            .s_tx_axis_tdata(ts_tx_tdata[i*DATA_W +: DATA_W]), .s_tx_axis_tkeep(ts_tx_tkeep[i*KEEP_W +: KEEP_W]),
            .s_tx_axis_tvalid(ts_tx_tvalid[i]), .s_tx_axis_tready(ts_tx_tready[i]), .s_tx_axis_tlast(ts_tx_tlast[i]), .s_tx_axis_tuser(1'b0),
            .s_tx_ts_insert(ts_tx_req[i*{rw}]), .s_tx_ts_offset(ts_tx_req[i*{rw} + 1 +: {ow}]),
            .m_tx_axis_tdata(tx_axis_tdata[i*DATA_W +: DATA_W]), .m_tx_axis_tkeep(tx_axis_tkeep[i*KEEP_W +: KEEP_W]),
            .m_tx_axis_tvalid(tx_axis_tvalid[i]), .m_tx_axis_tready(tx_axis_tready[i]), .m_tx_axis_tlast(tx_axis_tlast[i]),
            .m_tx_axis_tuser(ts_unused_tx_tuser[i]),
            .tx_ts(ts_unused_tx_ts[i*64 +: 64]), .tx_ts_valid(ts_unused_tx_ts_valid[i])
        );
    end
",
            rw = crate::TX_STAMP_REQ_W,
            ow = crate::TX_STAMP_REQ_W - 1,
            // With traffic units the RX stream comes through the port's generator mux.
            rx = if self.traffic { "tr_rx" } else { "rx_axis" },
        );
    }

    /// Each front-panel port's `p4f_port_traffic` in `mac_clk[i]`: the MAC's RX stream and the
    /// generator's into a mux (`tr_rx_*`, towards the port's timestamp unit), the TX stream the
    /// MAC takes into the capturer; control and status are the wrapper's `gen_*`, `traffic_*` and
    /// `cap_*` ports in clk, crossed inside the unit.
    fn traffic(&self, o: &mut String) {
        let _ = writeln!(
            o,
            "    // On-chip traffic (mac_clk[i]): generator muxed into RX before the timestamp unit, link
    // monitor on TX after it; control and status in clk (p4f_port_traffic does the crossings).
    logic [PORTS*DATA_W-1:0] tr_rx_tdata;
    logic [PORTS*KEEP_W-1:0] tr_rx_tkeep;
    logic [PORTS-1:0]        tr_rx_tvalid, tr_rx_tready, tr_rx_tlast;
    for (genvar i = 0; i < PORTS; i++) begin : g_traffic
        p4f_port_traffic #(.DATA_W(DATA_W), .KEEP_W(KEEP_W), .TPL_DEPTH(QUEUE_DEPTH), .TPL_W(TPL_W), .PER_W(24),
                           .ASYNC_DEPTH(ASYNC_DEPTH)) u_traffic (
            .ctl_clk(clk), .ctl_rst(rst), .mac_clk(mac_clk[i]), .mac_rst(mac_rst[i]), .now(mac_now[i*64 +: 64]),
            .tpl_valid(gen_tpl_valid[i]), .tpl_ready(gen_tpl_ready[i]), .tpl_addr(gen_tpl_addr), .tpl_data(gen_tpl_data),
            .tpl_keep(gen_tpl_keep), .tpl_last(gen_tpl_last),
            .gen_enable(gen_enable[i]), .start(gen_start[i]), .count(gen_count), .period(gen_period), .tpl_end(gen_tpl_end),
            .seq_offset(gen_seq_offset), .seq_en(gen_seq_en), .start_pending(gen_start_pending[i]),
            .snap(traffic_snap[i]), .snap_clear(traffic_snap_clear), .snap_done(traffic_snap_done[i]),
            .snap_gen_busy(gen_busy[i]), .snap_gen_runs(gen_runs[i*8 +: 8]), .snap_gen_pkts(gen_packets[i*32 +: 32]),
            .snap_cap_pkts(cap_packets[i*32 +: 32]), .snap_cap_bytes(cap_bytes[i*64 +: 64]),
            .snap_cap_first_ts(cap_first_ts[i*64 +: 64]), .snap_cap_last_ts(cap_last_ts[i*64 +: 64]),
            .snap_cap_last_len(cap_last_len[i*32 +: 32]),
            .s_rx_axis_tdata(rx_axis_tdata[i*DATA_W +: DATA_W]), .s_rx_axis_tkeep(rx_axis_tkeep[i*KEEP_W +: KEEP_W]),
            .s_rx_axis_tvalid(rx_axis_tvalid[i]), .s_rx_axis_tready(rx_axis_tready[i]), .s_rx_axis_tlast(rx_axis_tlast[i]),
            .m_rx_axis_tdata(tr_rx_tdata[i*DATA_W +: DATA_W]), .m_rx_axis_tkeep(tr_rx_tkeep[i*KEEP_W +: KEEP_W]),
            .m_rx_axis_tvalid(tr_rx_tvalid[i]), .m_rx_axis_tready(tr_rx_tready[i]), .m_rx_axis_tlast(tr_rx_tlast[i]),
            .tx_axis_tkeep(tx_axis_tkeep[i*KEEP_W +: KEEP_W]), .tx_axis_tvalid(tx_axis_tvalid[i]),
            .tx_axis_tready(tx_axis_tready[i]), .tx_axis_tlast(tx_axis_tlast[i])
        );
    end
"
        );
    }

    /// The host port, number `PORTS`: `p4f_host_dma` (one queue pair) or `p4f_host_dma_mq`
    /// (`queues` of them, a packet to the host steered by the field `select` names) in clk, its
    /// TX stream one more input of the arbiter and the buffer's queue for its number its RX
    /// stream; its control and memory ports are the wrapper's `host_*` ports.
    fn host_dma(&self, o: &mut String, queues: u32, (qsel_byte, qsel_lsb): (u32, u32)) {
        let (what, module) = if queues > 1 {
            ("HOST_QUEUES DMA queue pairs over descriptor rings in host\n    // memory, a packet to the host on the queue its first beat names", "p4f_host_dma_mq #(.NQ(HOST_QUEUES), ".to_string() + &format!(".QSEL_BYTE({qsel_byte}), .QSEL_LSB({qsel_lsb}), "))
        } else {
            ("a DMA queue pair over descriptor rings in host\n    // memory", "p4f_host_dma #(".to_string())
        };
        let _ = writeln!(
            o,
            "    // The host port (number PORTS, in clk): {what}. Its TX stream is the arbiter's input PORTS (arrival time 0: no timestamp unit), the
    // buffer's queue for port PORTS feeds its RX stream. The TX timestamp request is not used.
    assign in_tuser[PORTS*64 +: 64] = 64'd0;
    /* verilator lint_off UNUSEDSIGNAL */
    wire logic [{rw}-1:0] host_unused_ts_req = out_tuser[PORTS*{rw} +: {rw}];
    /* verilator lint_on UNUSEDSIGNAL */
    {module}.DATA_W(DATA_W), .KEEP_W(KEEP_W), .RING_W(8), .LEN_W(16), .RSP_DEPTH(8)) u_host (
        .clk(clk), .rst(rst), .enable(host_enable),
        .tx_ring_base(host_tx_ring_base), .tx_ring_log2(host_tx_ring_log2), .tx_tail(host_tx_tail), .tx_head(host_tx_head),
        .rx_ring_base(host_rx_ring_base), .rx_ring_log2(host_rx_ring_log2), .rx_tail(host_rx_tail), .rx_head(host_rx_head),
        .tx_packets(host_tx_packets), .rx_packets(host_rx_packets), .rx_truncated(host_rx_truncated), .desc_errors(host_desc_errors),
        .m_mem_req_valid(host_mem_req_valid), .m_mem_req_ready(host_mem_req_ready), .m_mem_req_write(host_mem_req_write),
        .m_mem_req_addr(host_mem_req_addr), .m_mem_req_wdata(host_mem_req_wdata), .m_mem_req_wstrb(host_mem_req_wstrb),
        .m_mem_rsp_valid(host_mem_rsp_valid), .m_mem_rsp_rdata(host_mem_rsp_rdata),
        .m_axis_tdata(in_tdata[PORTS*DATA_W +: DATA_W]), .m_axis_tkeep(in_tkeep[PORTS*KEEP_W +: KEEP_W]),
        .m_axis_tvalid(in_tvalid[PORTS]), .m_axis_tready(in_tready[PORTS]), .m_axis_tlast(in_tlast[PORTS]),
        .s_axis_tdata(out_tdata[PORTS*DATA_W +: DATA_W]), .s_axis_tkeep(out_tkeep[PORTS*KEEP_W +: KEEP_W]),
        .s_axis_tvalid(out_tvalid[PORTS]), .s_axis_tready(out_tready[PORTS]), .s_axis_tlast(out_tlast[PORTS])
    );
",
            rw = crate::TX_STAMP_REQ_W,
        );
    }

    fn tx_queues(&self, o: &mut String) {
        let _ = writeln!(
            o,
            "    // TX: clk into each port's MAC clock; a packet starts only once it is stored whole, so the
    // MAC never waits inside one. A full queue holds the output back (the pipeline waits).
    for (genvar i = 0; i < PORTS; i++) begin : g_tx
        p4f_port_tx #(.DATA_W(DATA_W), .KEEP_W(KEEP_W), .USER_W({rw}), .ASYNC_DEPTH(ASYNC_DEPTH), .DEPTH(QUEUE_DEPTH)) u_tx (
            .s_clk(clk), .s_rst(rst),
            .s_axis_tdata(out_tdata[i*DATA_W +: DATA_W]), .s_axis_tkeep(out_tkeep[i*KEEP_W +: KEEP_W]),
            .s_axis_tvalid(out_tvalid[i]), .s_axis_tready(out_tready[i]), .s_axis_tlast(out_tlast[i]), .s_axis_tuser(out_tuser[i*{rw} +: {rw}]),
            .m_clk(mac_clk[i]), .m_rst(mac_rst[i]),
            .m_axis_tdata(ts_tx_tdata[i*DATA_W +: DATA_W]), .m_axis_tkeep(ts_tx_tkeep[i*KEEP_W +: KEEP_W]),
            .m_axis_tvalid(ts_tx_tvalid[i]), .m_axis_tready(ts_tx_tready[i]), .m_axis_tlast(ts_tx_tlast[i]), .m_axis_tuser(ts_tx_req[i*{rw} +: {rw}]),
            .drop_count(stat_tx_drops[i*32 +: 32])
        );
    end
",
            rw = crate::TX_STAMP_REQ_W,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_queue_number_is_found_in_p4_bit_order() {
        // vdp.p4's dma_t: a bit<2> channel first, the first byte's two most significant bits.
        assert_eq!(HostQueues { count: 4, at_bit: 0 }.select(512), Ok((0, 6)));
        assert_eq!(HostQueues { count: 2, at_bit: 7 }.select(512), Ok((0, 0)));
        assert_eq!(HostQueues { count: 16, at_bit: 12 }.select(512), Ok((1, 0)));
        assert_eq!(HostQueues { count: 1, at_bit: 0 }.select(512), Ok((0, 8)));
        assert!(HostQueues { count: 4, at_bit: 7 }.select(512).unwrap_err().contains("crosses a byte boundary"));
        assert!(HostQueues { count: 3, at_bit: 0 }.select(512).unwrap_err().contains("1, 2, 4, 8 or 16"));
        assert!(HostQueues { count: 4, at_bit: 128 }.select(128).unwrap_err().contains("beyond the first 128-bit beat"));
    }

    #[test]
    fn one_queue_pair_keeps_the_scalar_control_ports() {
        let one = host_ports(1);
        assert!(one.contains("    input  wire logic [63:0]               host_tx_ring_base,\n"));
        assert!(one.contains("    input  wire logic                      host_enable,\n"));
        assert!(!one.contains("HOST_QUEUES"));
        let four = host_ports(4);
        assert!(four.contains("    input  wire logic [HOST_QUEUES*64-1:0] host_tx_ring_base,\n"));
        assert!(four.contains("    output logic      [HOST_QUEUES*32-1:0] host_desc_errors,\n"));
        assert!(four.contains("    input  wire logic [HOST_QUEUES-1:0]    host_enable,\n"));
    }
}

//! Simulating a whole switch (`--arch switch|bump`, `<prefix>_switch` / `<prefix>_bump`): the C++
//! harness models a MAC per port, in the ports' own 156.25 MHz clock beside the pipeline's, and
//! drives generated traffic, so a line-rate run needs no pcap.
//!
//! Each generating port sends `count` frames of `size` bytes at `rate` Gb/s on the wire: a frame
//! starts every `(size + 20) * 8 / rate` ns (the 20 bytes are the preamble, start delimiter and
//! inter-frame gap a 10GBASE-R port puts between frames), staggered by port. In a model with
//! on-chip traffic units ([`crate::Options::traffic`], what `rtl-sim --gen` builds) the port's
//! `p4f_pkt_gen` sends them, paced by its fixed-point period, and the counts of the report are
//! the generators' and the capturers' ([`TRAFFIC_CPP`]); in a model without, the RX MAC model
//! sends them and the TX MAC models count. A MAC cannot wait, so a frame whose RX queue is full
//! is the switch's drop (its RX queue counts it). Each port's TX
//! MAC sends at [`LINE_RATE_GBPS`]: it takes a frame whole, then refuses the next one until that
//! frame's wire time (frame + 20 bytes) has passed, so a port can never read above line rate.
//!
//! Commands on standard input (answers on standard output), beside the register commands of
//! [`crate::harness`] (`W`, `A`, `Q`):
//! - `G <port> <size> <rate Gb/s> <count>`: set the port's generator (replaces an earlier one);
//! - `S`: run every generator to its count, then until the switch has drained (every frame out or
//!   counted as dropped), and answer per port `X <port> <in> <out> <rx drops> <buffer drops>
//!   <tx drops> <bytes out> <first frame start ps> <last frame start ps> <last frame bytes>`, then
//!   `D <ps> <pipeline drops> <no-such-port drops> <misrouted>`, or `T <ps>` if it did not drain.
//!   Generators are cleared after a run.
//! - `U <ps> <hex addr> <hex data>`: an AXI4-Lite write during the next `R` run, issued no
//!   earlier than `ps` after the run's start, after the `U` writes before it (each waits for the
//!   last one's response: a table write holds it while the table updates); the run lasts until
//!   all are done. A refused write answers `E write refused <resp>` before the run's answers.
//! - `K <0|1>`: paced runs off (the default) or on: each packet of an `R` run starts on its RX MAC
//!   no earlier than its `P` time after the run's start (and no earlier than line rate allows);
//! - `P <port> <hex bytes>` and `R`: as for the pipeline's harness ([`crate::harness`]), so that
//!   [`crate::sim::RtlSwitch`] (STF tests, `run --target rtl`) drives a whole switch as it drives a
//!   pipeline: `R` sends the queued packets, each port's back to back at line rate, and answers
//!   `I <index> <cycle>` as a packet starts on its RX MAC, `O <port> <first cycle> <last cycle>
//!   <hex>` per frame a TX MAC sent, then `D <cycles> <stall cycles> <drops>` once every packet and
//!   copy is accounted for (cycles of the pipeline clock, from the run's start), after a line
//!   `Y <port> <rx drops> <buffer drops> <tx drops>` per port. Before its `O`
//!   lines, `J <index> <time>` gives the time (hex, [`crate::TIME_NS_BITS`] format) at which a
//!   packet's first beat entered the switch: the time its port's `p4f_timestamp` stamped on it.
//!
//! With two packet processors (`--arch op4t`, `PP2`), each `V <ps>` asks for a swap to the
//! processor not active at `ps` picoseconds after the start of the next `S` run (the
//! `pp_swap_req` pulse; a swap waits for the one before it to finish), and an `S` run answers
//! `Z <swaps> <stray beats> <drain cycles> <active>` (the decoupler's counts so far) before its
//! `D` line.
//!
//! `M <flags>` sets how the next `S` runs check and report: bit 0 counts misrouted frames (below),
//! bit 1 reports every frame a TX MAC sends as `F <port> <hex>` as it finishes.
//!
//! With a host port (number N after the N front-panel ports, [`crate::Options::host_port`]), `P N
//! ...` queues a packet for the host to send: the harness's driver ([`HOST_CPP`]) writes it into
//! host memory and a TX descriptor; packets the switch sends to the host come back as `O N ...`
//! (first and last cycle: the cycle the driver saw the RX descriptor finished).
//!
//! Every port's `mac_now` is the simulated time since the run's start (the MACs share one clock
//! source here), set at each MAC clock edge.
//!
//! A frame carries its ingress port (byte 14) and its number on that port (bytes 15..18), behind
//! an Ethernet header with EtherType 0x88B5 (local experimental), so a test can tell where it
//! came from; the TX side counts frames whose ingress port is not the one the forwarding rule
//! `egress = ingress xor 1` would give as `misrouted` only when asked to (`M 1`).

use std::collections::BTreeMap;

use crate::sim::{Sim, SimError};

/// The ports' line rate: a 10GBASE-R port, the seed design's.
pub const LINE_RATE_GBPS: f64 = 10.0;
/// The MACs' clock: 10GBASE-R's 156.25 MHz.
pub const MAC_MHZ: f64 = 156.25;
/// Bytes on the wire besides the frame: preamble and start delimiter (8) and the inter-frame gap (12).
pub const WIRE_OVERHEAD_BYTES: u64 = 20;
/// The smallest frame a generator sends: an Ethernet header and the frame's port and number.
pub const MIN_GEN_SIZE: usize = 19;

/// The `seq`-th frame (from 0) of `size` bytes a generator sends on `port`, as the harness's
/// `make_frame` builds it: an Ethernet header to the port's partner (port xor 1) with EtherType
/// 0x88B5, the ingress port (byte 14) and the number (bytes 15..18, big-endian), then bytes that
/// are their offset xor the number. `on_chip`: from the port's traffic unit
/// ([`crate::Options::traffic`]), which repeats the template of frame 0 and writes only the number
/// into it, so the bytes after the number are their offset.
pub fn generated_frame(port: u32, seq: u64, size: usize, on_chip: bool) -> Vec<u8> {
    let p = port as u8;
    let mut f = vec![0u8; size];
    let head = [0x02, 0, 0, 0, 0, p ^ 1, 0x02, 0, 0, 0, 0, p, 0x88, 0xb5, p];
    let n = head.len().min(size);
    f[..n].copy_from_slice(&head[..n]);
    for (i, b) in (seq as u32).to_be_bytes().iter().enumerate().filter(|(i, _)| 15 + i < size) {
        f[15 + i] = *b;
    }
    let pattern = if on_chip { 0 } else { seq };
    for (i, b) in f.iter_mut().enumerate().skip(19) {
        *b = (i as u64 ^ pattern) as u8;
    }
    f
}

/// One port's traffic.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PortGen {
    pub port: u32,
    /// Frame size in bytes.
    pub size: usize,
    /// Gb/s on the wire (frame + 20 bytes per frame).
    pub rate_gbps: f64,
    /// Frames to send.
    pub count: u64,
}

/// What one port did in a run.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PortRun {
    pub packets_in: u64,
    pub packets_out: u64,
    /// Frames its RX queue dropped (it was full when they arrived).
    pub rx_drops: u64,
    /// Frames for this output the shared buffer dropped (it was full).
    pub buffer_drops: u64,
    /// Frames longer than its TX queue.
    pub tx_drops: u64,
    pub bytes_out: u64,
    /// Start of its first and last frame out, picoseconds from the run's start.
    pub first_start_ps: u64,
    pub last_start_ps: u64,
}

impl PortRun {
    /// Gb/s on the wire from the first frame's start to the last's, each frame counted with its
    /// 20 bytes of preamble and gap (the last frame, which starts the span's end, is not counted):
    /// a port sending back to back at line rate reads [`LINE_RATE_GBPS`]. `None` with fewer than
    /// two frames out.
    pub fn gbps_out(&self, last_frame_bytes: u64) -> Option<f64> {
        if self.packets_out < 2 || self.last_start_ps <= self.first_start_ps {
            return None;
        }
        let bits = (self.bytes_out - last_frame_bytes + (self.packets_out - 1) * WIRE_OVERHEAD_BYTES) * 8;
        Some(bits as f64 * 1000.0 / (self.last_start_ps - self.first_start_ps) as f64)
    }
}

/// What a whole run did.
#[derive(Clone, Debug, Default)]
pub struct SwitchRun {
    /// By port.
    pub ports: BTreeMap<u32, PortRun>,
    /// By port: the last frame's bytes (for [`PortRun::gbps_out`]).
    pub last_frame_bytes: BTreeMap<u32, u64>,
    pub duration_ps: u64,
    /// Frames the program dropped.
    pub pipeline_drops: u64,
    /// Frames whose egress port named no port.
    pub no_port_drops: u64,
    /// Frames that left on a port other than ingress xor 1 (counted only with `check_xor1`).
    pub misrouted: u64,
    /// With two packet processors: the decoupler's counts after the run.
    pub processors: Option<ProcessorCounts>,
    /// With [`RunSettings::keep_frames`]: every frame the TX MACs sent, `(port, bytes)`, in the
    /// order they finished.
    pub frames: Vec<(u32, Vec<u8>)>,
}

/// How a generated run goes besides its traffic ([`Sim::run_switch_with`]).
#[derive(Clone, Debug, Default)]
pub struct RunSettings {
    /// Count frames not forwarded to ingress port xor 1 as misrouted.
    pub check_xor1: bool,
    /// With two packet processors: swap them at these times after the run's start (picoseconds;
    /// a swap waits for the one before it to finish).
    pub swaps_at_ps: Vec<u64>,
    /// Keep every frame sent ([`SwitchRun::frames`]).
    pub keep_frames: bool,
}

/// The decoupler's counts (`--arch op4t`), since the model started.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct ProcessorCounts {
    pub swaps: u64,
    /// Beats taken from a processor while it was not active (and thrown away): 0 unless a
    /// processor sends on its own.
    pub stray_beats: u64,
    /// Cycles the last swap waited for the old processor to drain.
    pub drain_cycles: u64,
    /// The processor traffic goes through.
    pub active: u64,
}

impl Sim {
    /// Runs the generators on a switch model (built with [`source`]) until every frame is out or
    /// dropped; `check_xor1` counts frames not forwarded to ingress port xor 1 as misrouted.
    pub fn run_switch(&mut self, gens: &[PortGen], check_xor1: bool) -> Result<SwitchRun, SimError> {
        self.run_switch_with(gens, &RunSettings { check_xor1, ..Default::default() })
    }

    /// [`Sim::run_switch`] as `settings` say: swaps of the packet processors, frames kept.
    pub fn run_switch_with(&mut self, gens: &[PortGen], settings: &RunSettings) -> Result<SwitchRun, SimError> {
        let mut swaps = settings.swaps_at_ps.clone();
        swaps.sort_unstable();
        for ps in swaps {
            self.send_line(&format!("V {ps}"))?;
        }
        self.send_line(&format!("M {}", u32::from(settings.check_xor1) | u32::from(settings.keep_frames) << 1))?;
        for g in gens {
            self.send_line(&format!("G {} {} {} {}", g.port, g.size, g.rate_gbps, g.count))?;
        }
        self.send_line("S")?;
        let mut run = SwitchRun::default();
        loop {
            let line = self.read_answer()?;
            let mut it = line.split_whitespace();
            let tag = it.next();
            let v: Vec<u64> = it.filter_map(|t| t.parse().ok()).collect();
            match tag {
                Some("F") => {
                    let frame = line.split_whitespace().nth(2).and_then(|hex| crate::sim::from_hex(hex));
                    match (v.first(), frame) {
                        (Some(&port), Some(frame)) => run.frames.push((port as u32, frame)),
                        _ => return Err(SimError(format!("unexpected answer from the switch harness: `{line}`"))),
                    }
                }
                Some("X") if v.len() == 10 => {
                    let port = v[0] as u32;
                    run.ports.insert(
                        port,
                        PortRun {
                            packets_in: v[1],
                            packets_out: v[2],
                            rx_drops: v[3],
                            buffer_drops: v[4],
                            tx_drops: v[5],
                            bytes_out: v[6],
                            first_start_ps: v[7],
                            last_start_ps: v[8],
                        },
                    );
                    run.last_frame_bytes.insert(port, v[9]);
                }
                Some("Z") if v.len() == 4 => {
                    run.processors = Some(ProcessorCounts { swaps: v[0], stray_beats: v[1], drain_cycles: v[2], active: v[3] });
                }
                Some("D") if v.len() == 4 => {
                    run.duration_ps = v[0];
                    run.pipeline_drops = v[1];
                    run.no_port_drops = v[2];
                    run.misrouted = v[3];
                    return Ok(run);
                }
                Some("T") => {
                    return Err(SimError(format!(
                        "the switch did not drain (stopped after {} ns of simulated time)",
                        v.first().copied().unwrap_or(0) / 1000
                    )))
                }
                _ => return Err(SimError(format!("unexpected answer from the switch harness: `{line}`"))),
            }
        }
    }
}

/// The host side of a switch with a host port (`#if HOST`): a host-memory model (a byte array
/// answering the DMA's requests in order, a read [`HOST_MEM_LATENCY`] cycles after it was taken)
/// and a driver owning each queue pair's two rings (`HOST_QUEUES` pairs, each in its own MiB of
/// host memory): each host packet (`P <ports>[/<queue>] ...`) goes into a TX buffer and
/// descriptor of its queue and that queue's TX tail moves past it (a free descriptor permitting);
/// RX descriptors stay posted with [`HOST_RX_BUFFER_BYTES`]-byte buffers, and each one the DMA
/// finishes (the queue's RX head moves past it) is a packet out of port `ports` (`O <ports> ...`,
/// `O <ports>/<queue> ...` with more than one queue; its written-back length: a longer packet
/// arrives truncated), its descriptor posted again.
pub const HOST_CPP: &str = r#"
#if HOST
static const uint64_t QMEM_BYTES = 1u << 20;   // host memory of one queue pair
static const uint64_t HMEM_BYTES = HOST_QUEUES * QMEM_BYTES;
static const uint64_t HMEM_LATENCY = HOST_MEM_LATENCY_CYCLES;
static const uint64_t TX_RING = 0x0, RX_RING = 0x1000;                  // 16-byte descriptors
static const unsigned TX_LOG2 = 4, RX_LOG2 = 5;                         // 16 and 32 entries
static const uint64_t RX_BUFS = 0x10000, RX_BUF_BYTES = HOST_RX_BUF;    // one per RX descriptor
static const uint64_t TX_BUFS = 0x80000, TX_BUF_BYTES = 32768;          // one per TX descriptor
static std::vector<uint8_t> hmem(HMEM_BYTES, 0);
struct HostRsp { uint64_t due; std::vector<uint8_t> data; };
static std::deque<HostRsp> host_rsp;     // reads taken, in order
static bool host_rsp_driven = false;     // the front response is on host_mem_rsp_* this cycle
static uint64_t host_cycle = 0;
struct HostQueue {
    unsigned tx_tail = 0, rx_tail = 0, rx_next = 0;
    std::deque<std::vector<uint8_t>> frames;   // `P` packets waiting for a TX descriptor
    std::deque<size_t> index;                  // and their numbers
};
static HostQueue hq[HOST_QUEUES];
static uint64_t host_out = 0, host_bytes = 0;
#define HOST_BUF_DROPS() BUF_DROPS(PORTS)

static void hmem_put(uint64_t a, uint64_t v, unsigned n) { for (unsigned i = 0; i < n; ++i) hmem[(a + i) % HMEM_BYTES] = uint8_t(v >> (8 * i)); }
static uint64_t hmem_get(uint64_t a, unsigned n) {
    uint64_t v = 0;
    for (unsigned i = 0; i < n; ++i) v |= uint64_t(hmem[(a + i) % HMEM_BYTES]) << (8 * i);
    return v;
}
// Queue q's RX descriptor i: its buffer and size, the write-back cleared.
static void post_rx(unsigned q, unsigned i) {
    uint64_t d = q * QMEM_BYTES + RX_RING + 16 * i;
    hmem_put(d, q * QMEM_BYTES + RX_BUFS + RX_BUF_BYTES * i, 8);
    hmem_put(d + 8, RX_BUF_BYTES, 2);
    hmem_put(d + 12, 0, 4);
}
static void host_init() {
    unsigned n = (1u << RX_LOG2) - 1;   // a ring of N entries holds N-1
    for (unsigned q = 0; q < HOST_QUEUES; ++q) {
        put_bits(dut->host_tx_ring_base, 64 * q, 64, q * QMEM_BYTES + TX_RING);
        put_bits(dut->host_tx_ring_log2, 5 * q, 5, TX_LOG2);
        put_bits(dut->host_tx_tail, 8 * q, 8, 0);
        put_bits(dut->host_rx_ring_base, 64 * q, 64, q * QMEM_BYTES + RX_RING);
        put_bits(dut->host_rx_ring_log2, 5 * q, 5, RX_LOG2);
        for (unsigned i = 0; i < n; ++i) post_rx(q, i);
        hq[q].rx_tail = n;
        put_bits(dut->host_rx_tail, 8 * q, 8, n);
        put_bits(dut->host_enable, q, 1, 1);
    }
    dut->host_mem_req_ready = 0;        // the memory answers only inside runs
    dut->host_mem_rsp_valid = 0;
}
static void host_queue(unsigned q, std::vector<uint8_t>&& frame, size_t index) {
    hq[q % HOST_QUEUES].frames.push_back(std::move(frame));
    hq[q % HOST_QUEUES].index.push_back(index);
}
static bool host_pending() {
    for (unsigned q = 0; q < HOST_QUEUES; ++q) if (!hq[q].frames.empty()) return true;
    return false;
}
static void host_run_start() { dut->host_mem_req_ready = 1; dut->eval(); }
static void host_run_end() {
    dut->host_mem_req_ready = 0;
    dut->host_mem_rsp_valid = 0;
    host_rsp_driven = false;            // the front response waits for the next run
    dut->eval();
}
// Before a rising edge of clk: the response on the bus is taken, a request offered is taken.
static void host_mem_edge() {
    if (host_rsp_driven) host_rsp.pop_front();
    host_rsp_driven = false;
    if (dut->host_mem_req_valid && dut->host_mem_req_ready) {
        uint64_t a = dut->host_mem_req_addr & ~uint64_t(DATA_BYTES - 1);
        if (dut->host_mem_req_write) {
            for (unsigned b = 0; b < DATA_BYTES; ++b)
                if (get_bits(dut->host_mem_req_wstrb, b, 1)) hmem[(a + b) % HMEM_BYTES] = uint8_t(dut->host_mem_req_wdata[b / 4] >> (8 * (b % 4)));
        } else {
            HostRsp r;
            r.due = host_cycle + HMEM_LATENCY;
            r.data.assign(DATA_BYTES, 0);
            for (unsigned b = 0; b < DATA_BYTES; ++b) r.data[b] = hmem[(a + b) % HMEM_BYTES];
            host_rsp.push_back(std::move(r));
        }
    }
    ++host_cycle;
}
// After the edge: this cycle's response, if one is due.
static void host_drive_rsp() {
    host_rsp_driven = !host_rsp.empty() && host_rsp.front().due <= host_cycle;
    dut->host_mem_rsp_valid = host_rsp_driven;
    if (!host_rsp_driven) return;
    const std::vector<uint8_t>& d = host_rsp.front().data;
    for (unsigned w = 0; w < DATA_BYTES / 4; ++w)
        dut->host_mem_rsp_rdata[w] = uint32_t(d[4 * w]) | uint32_t(d[4 * w + 1]) << 8 | uint32_t(d[4 * w + 2]) << 16 | uint32_t(d[4 * w + 3]) << 24;
}
// The driver: each queue's waiting packets into its free TX descriptors (true if it posted one);
// finished RX descriptors' packets out (`O <PORTS>[/<queue>] ...` in runs of queued packets),
// each descriptor posted again.
static bool host_driver(uint64_t t, uint64_t start, bool report) {
    const unsigned tx_n = 1u << TX_LOG2, rx_n = 1u << RX_LOG2;
    bool posted = false;
    for (unsigned q = 0; q < HOST_QUEUES; ++q) {
        HostQueue& h = hq[q];
        const uint64_t base = q * QMEM_BYTES;
        while (!h.frames.empty() && (h.tx_tail + 1) % tx_n != unsigned(get_bits(dut->host_tx_head, 8 * q, 8)) % tx_n) {
            const std::vector<uint8_t>& f = h.frames.front();
            uint64_t buf = base + TX_BUFS + TX_BUF_BYTES * h.tx_tail;
            for (size_t i = 0; i < f.size() && i < TX_BUF_BYTES; ++i) hmem[(buf + i) % HMEM_BYTES] = f[i];
            uint64_t d = base + TX_RING + 16 * h.tx_tail;
            hmem_put(d, buf, 8);
            hmem_put(d + 8, f.size(), 2);
            printf("I %zu %llu\n", h.index.front(), (unsigned long long)((t - start) / CLK_PS));
            h.frames.pop_front();
            h.index.pop_front();
            h.tx_tail = (h.tx_tail + 1) % tx_n;
            put_bits(dut->host_tx_tail, 8 * q, 8, h.tx_tail);
            posted = true;
        }
        while (h.rx_next != unsigned(get_bits(dut->host_rx_head, 8 * q, 8)) % rx_n) {
            uint64_t d = base + RX_RING + 16 * h.rx_next;
            uint64_t buf = hmem_get(d, 8), len = hmem_get(d + 12, 2), flags = hmem_get(d + 14, 1);
            if (flags & 1) {
                ++host_out;
                host_bytes += len;
                if (report) {
                    unsigned long long c = (t - start) / CLK_PS;
                    if (HOST_QUEUES > 1) printf("O %u/%u %llu %llu ", PORTS, q, c, c);
                    else printf("O %u %llu %llu ", PORTS, c, c);
                    for (uint64_t i = 0; i < len; ++i) printf("%02x", hmem[(buf + i) % HMEM_BYTES]);
                    printf("\n");
                }
            }
            h.rx_next = (h.rx_next + 1) % rx_n;
            post_rx(q, h.rx_tail);
            h.rx_tail = (h.rx_tail + 1) % rx_n;
            put_bits(dut->host_rx_tail, 8 * q, 8, h.rx_tail);
        }
    }
    return posted;
}
#else
static const uint64_t host_out = 0, host_bytes = 0;
#define HOST_BUF_DROPS() 0ULL
static void host_init() {}
static void host_queue(unsigned, std::vector<uint8_t>&&, size_t) {}
static bool host_pending() { return false; }
static void host_run_start() {}
static void host_run_end() {}
static void host_mem_edge() {}
static void host_drive_rsp() {}
static bool host_driver(uint64_t, uint64_t, bool) { return false; }
#endif
"#;

/// The controller of the on-chip traffic units (`#if TRAFFIC`, a model built with
/// [`crate::Options::traffic`]), stepped at each rising edge of `clk` through the wrapper's
/// `gen_*`/`traffic_*` ports: it writes each generating port's template (the frame
/// `make_frame` builds, sequence number 0: the generator stamps each frame's number at byte 15),
/// clears the capturers through a snapshot, enables the generators, starts them staggered over one
/// frame time with their period, then polls status snapshots until every generator has sent its
/// count; the run ends when the capturers' counts and the drop counters account for every frame.
pub const TRAFFIC_CPP: &str = r#"
#if TRAFFIC
struct HwTraffic {
    int phase = 0;              // 0 off, 1 templates, 2 clear, 3 enable, 4 run
    unsigned port = 0;          // the port whose template is being written, and its beat
    size_t beat = 0;
    std::vector<uint8_t> frame;
    uint64_t wait = 0;          // clk cycles left in phase 3
    bool snapping = false;      // a snapshot was asked for: done bits are waited on
    uint64_t poll = 0;          // clk cycles to the next status snapshot
    bool started[PORTS];
    double start_at[PORTS];
    uint8_t runs0[PORTS];
    bool gens_done = false;     // the last snapshot saw every generator idle with its count sent
    uint64_t snaps = 0;         // snapshots completed in this run
    uint64_t gen_start_ps = 0;  // when the generators were enabled (the run's time origin)
    // The last snapshot, per port.
    uint64_t gen_pkts[PORTS], cap_pkts[PORTS], cap_bytes[PORTS], cap_first[PORTS], cap_last[PORTS], cap_len[PORTS];
};
static HwTraffic hw;
static const uint64_t ALL_PORTS = PORTS >= 64 ? ~0ULL : (1ULL << PORTS) - 1;

static void traffic_init() {
    put_bits(dut->gen_tpl_valid, 0, PORTS, 0); put_bits(dut->gen_enable, 0, PORTS, 0);
    put_bits(dut->gen_start, 0, PORTS, 0); put_bits(dut->traffic_snap, 0, PORTS, 0);
    dut->traffic_snap_clear = 0; dut->gen_count = 0; dut->gen_period = 0; dut->gen_tpl_end = 0;
    dut->gen_seq_offset = 0; dut->gen_seq_en = 0; dut->gen_tpl_last = 0; dut->gen_tpl_addr = 0;
}
// MAC cycles between frame starts, 8 fractional bits: (size + 20) * 8 / rate ns.
static uint64_t traffic_period(const Gen& g) { return uint64_t((g.size + OVERHEAD) * 8.0 * 1000.0 / g.rate / MAC_PS * 256.0 + 0.5); }
static unsigned next_gen_port(unsigned from) { while (from < PORTS && !gens[from].on) ++from; return from; }
static void traffic_load_beat() {
    unsigned p = hw.port;
    size_t off = hw.beat * DATA_BYTES, n = hw.frame.size() - off < DATA_BYTES ? hw.frame.size() - off : DATA_BYTES;
    for (unsigned w = 0; w < DATA_BYTES / 4; ++w) {
        uint32_t word = 0;
        for (unsigned b = 0; b < 4; ++b) if (w * 4 + b < n) word |= uint32_t(hw.frame[off + w * 4 + b]) << (8 * b);
        dut->gen_tpl_data[w] = word;
    }
    for (unsigned k = 0; k < DATA_BYTES; k += 32) {
        unsigned bits = DATA_BYTES - k < 32 ? DATA_BYTES - k : 32;
        uint64_t keep = 0;
        for (unsigned i = 0; i < bits; ++i) if (k + i < n) keep |= 1ULL << i;
        put_bits(dut->gen_tpl_keep, k, bits, keep);
    }
    dut->gen_tpl_addr = hw.beat;
    dut->gen_tpl_last = off + n >= hw.frame.size();
    put_bits(dut->gen_tpl_valid, 0, PORTS, 0);
    put_bits(dut->gen_tpl_valid, p, 1, 1);
}
static void traffic_begin() {
    hw = HwTraffic();
    for (unsigned p = 0; p < PORTS; ++p) { hw.started[p] = false; hw.gen_pkts[p] = hw.cap_pkts[p] = hw.cap_bytes[p] = hw.cap_first[p] = hw.cap_last[p] = hw.cap_len[p] = 0; }
    hw.port = next_gen_port(0);
    hw.phase = 1;
    if (hw.port < PORTS) { make_frame(hw.port, 0, gens[hw.port].size, hw.frame); hw.beat = 0; traffic_load_beat(); }
}
// Before a rising edge of clk: the template beat on the bus is taken.
static bool traffic_tpl_fire() { return hw.phase == 1 && hw.port < PORTS && get_bits(dut->gen_tpl_valid, hw.port, 1) && get_bits(dut->gen_tpl_ready, hw.port, 1); }
// Ask every port for a status snapshot (with `clear`: clear the capturers after it).
static void traffic_snap(bool clear) { put_bits(dut->traffic_snap, 0, PORTS, ALL_PORTS); dut->traffic_snap_clear = clear; hw.snapping = true; }
// After the snapshot pulse's edge: true once every port's snapshot is in.
static bool traffic_snap_in() { return get_bits(dut->traffic_snap_done, 0, PORTS) == ALL_PORTS; }
static void traffic_read_snap() {
    bool done = true;
    for (unsigned p = 0; p < PORTS; ++p) {
        hw.gen_pkts[p] = get_bits(dut->gen_packets, 32 * p, 32);
        hw.cap_pkts[p] = get_bits(dut->cap_packets, 32 * p, 32);
        hw.cap_bytes[p] = get_bits(dut->cap_bytes, 64 * p, 64);
        hw.cap_first[p] = get_bits(dut->cap_first_ts, 64 * p, 64);
        hw.cap_last[p] = get_bits(dut->cap_last_ts, 64 * p, 64);
        hw.cap_len[p] = get_bits(dut->cap_last_len, 32 * p, 32);
        if (gens[p].on && (uint8_t(get_bits(dut->gen_runs, 8 * p, 8) - hw.runs0[p]) != 1 || get_bits(dut->gen_busy, p, 1) || hw.gen_pkts[p] != gens[p].count)) done = false;
    }
    hw.gens_done = done;
    ++hw.snaps;
}
// After a rising edge of clk (`fire`: the template beat was taken at it); `t` the edge's time.
static void traffic_step(uint64_t t, bool fire) {
    put_bits(dut->gen_start, 0, PORTS, 0);
    if (hw.snapping && get_bits(dut->traffic_snap, 0, PORTS)) { put_bits(dut->traffic_snap, 0, PORTS, 0); return; }
    switch (hw.phase) {
    case 1:
        if (fire) {
            ++hw.beat;
            if (hw.beat * DATA_BYTES >= hw.frame.size()) {
                hw.port = next_gen_port(hw.port + 1);
                hw.beat = 0;
                if (hw.port < PORTS) make_frame(hw.port, 0, gens[hw.port].size, hw.frame);
            }
            if (hw.port < PORTS) traffic_load_beat();
        }
        if (hw.port >= PORTS) { put_bits(dut->gen_tpl_valid, 0, PORTS, 0); hw.phase = 2; traffic_snap(true); }
        break;
    case 2:
        if (traffic_snap_in()) {
            hw.snapping = false;
            for (unsigned p = 0; p < PORTS; ++p) hw.runs0[p] = uint8_t(get_bits(dut->gen_runs, 8 * p, 8));
            uint64_t en = 0;
            for (unsigned p = 0; p < PORTS; ++p) if (gens[p].on) en |= 1ULL << p;
            put_bits(dut->gen_enable, 0, PORTS, en);
            hw.wait = 32;   // the enable's synchronizers and the mux (a few MAC cycles)
            hw.phase = 3;
        }
        break;
    case 3:
        if (--hw.wait == 0) {
            hw.gen_start_ps = t;
            for (unsigned p = 0; p < PORTS; ++p) {
                // Ports start staggered over one frame time, as unsynchronised senders would.
                double gap = gens[p].on ? (gens[p].size + OVERHEAD) * 8.0 * 1000.0 / gens[p].rate : 0;
                hw.start_at[p] = double(t) + gap * p / PORTS;
            }
            hw.phase = 4;
            hw.poll = 64;
        }
        break;
    case 4: {
        // One start per cycle: the run settings are shared by the ports.
        bool all = true;
        for (unsigned p = 0; p < PORTS; ++p) {
            if (!gens[p].on || hw.started[p]) continue;
            all = false;
            if (double(t) < hw.start_at[p] || get_bits(dut->gen_start_pending, p, 1)) continue;
            dut->gen_count = uint32_t(gens[p].count);
            dut->gen_period = uint32_t(traffic_period(gens[p]));
            dut->gen_tpl_end = uint32_t((gens[p].size + DATA_BYTES - 1) / DATA_BYTES - 1);
            dut->gen_seq_offset = 15;
            dut->gen_seq_en = 1;
            put_bits(dut->gen_start, p, 1, 1);
            hw.started[p] = true;
            break;
        }
        if (hw.snapping) {
            if (traffic_snap_in()) { hw.snapping = false; traffic_read_snap(); hw.poll = 64; }
        } else if (all && --hw.poll == 0) {
            traffic_snap(false);
        }
        break;
    }
    default:
        break;
    }
}
static void traffic_end() { put_bits(dut->gen_enable, 0, PORTS, 0); put_bits(dut->gen_start, 0, PORTS, 0); put_bits(dut->traffic_snap, 0, PORTS, 0); hw.phase = 0; dut->eval(); }
// The hardware time format in picoseconds.
static uint64_t hw_time_ps(uint64_t v) { return ((v >> TIME_NS_BITS) * 1000 + (v & ((1u << TIME_NS_BITS) - 1))) * 1000; }
#else
struct HwTraffic { bool gens_done = true; uint64_t snaps = 0, gen_start_ps = 0; uint64_t gen_pkts[PORTS], cap_pkts[PORTS], cap_bytes[PORTS], cap_first[PORTS], cap_last[PORTS], cap_len[PORTS]; };
static HwTraffic hw;
static void traffic_init() {}
static void traffic_begin() {}
static bool traffic_tpl_fire() { return false; }
static void traffic_step(uint64_t, bool) {}
static void traffic_end() {}
static uint64_t hw_time_ps(uint64_t v) { return v; }
#endif
"#;

/// Cycles from the host memory taking a read to its response (the harness's host-memory model).
pub const HOST_MEM_LATENCY: u32 = 4;
/// Bytes of each RX buffer the harness's host driver posts.
pub const HOST_RX_BUFFER_BYTES: u32 = 2048;

/// The harness source for the switch `top` (`ports` ports, streams of `data_w` bits, the pipeline
/// clock at `clock_mhz`; `has_buffer`: it has `stat_buf_drops`, as a switch does); `clear_cycles` as for
/// [`crate::harness::source`].
/// `host_queues`: the switch has a host port (number `ports`, [`crate::Options::host_port`]) with
/// that many DMA queue pairs (0: none), which the harness drives from its host-memory model
/// ([`HOST_CPP`]). `traffic`: the switch has on-chip
/// traffic units ([`crate::Options::traffic`]), and `S` runs the generators on them
/// ([`TRAFFIC_CPP`]) instead of in the RX MAC models.
#[allow(clippy::too_many_arguments)] // each is a fact about the model the harness drives
pub fn source(top: &str, data_w: u32, ports: u32, has_buffer: bool, host_queues: u32, traffic: bool, processors: bool, clock_mhz: f64, clear_cycles: u32) -> String {
    let bytes = data_w / 8;
    let clk_ps = (1e6 / clock_mhz).round() as u64;
    let mac_ps = (1e6 / MAC_MHZ).round() as u64;
    format!(
        r#"// Verilator harness for the switch {top}, generated by p4forge (see crates/p4-rtl/src/switch_sim.rs).
#include "V{top}.h"
#include "verilated.h"
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <iostream>
#include <string>
#include <vector>

static const unsigned DATA_BYTES = {bytes};
static const unsigned DATA_W = {data_w};
static const unsigned PORTS = {ports};
static const uint64_t CLK_PS = {clk_ps};     // pipeline clock period
static const uint64_t MAC_PS = {mac_ps};     // MAC clock period
static const double LINE_GBPS = {line};
static const uint64_t OVERHEAD = {overhead}; // preamble + start delimiter + inter-frame gap

static V{top}* dut;
static uint64_t now_ps = 0;

// Bits of a port vector, whatever C++ type Verilator gave it (integers up to 64 bits, VlWide above).
template <typename T> static void put_bits(T& s, unsigned lo, unsigned n, uint64_t v) {{
    for (unsigned i = 0; i < n; ++i) {{
        T b = T(1) << (lo + i);
        if ((v >> i) & 1) s |= b; else s &= ~b;
    }}
}}
template <std::size_t N> static void put_bits(VlWide<N>& s, unsigned lo, unsigned n, uint64_t v) {{
    for (unsigned i = 0; i < n; ++i) {{
        unsigned bit = lo + i;
        uint32_t m = 1u << (bit % 32);
        if ((v >> i) & 1) s[bit / 32] |= m; else s[bit / 32] &= ~m;
    }}
}}
template <typename T> static uint64_t get_bits(const T& s, unsigned lo, unsigned n) {{
    uint64_t v = 0;
    for (unsigned i = 0; i < n; ++i) v |= uint64_t((s >> (lo + i)) & 1) << i;
    return v;
}}
template <std::size_t N> static uint64_t get_bits(const VlWide<N>& s, unsigned lo, unsigned n) {{
    uint64_t v = 0;
    for (unsigned i = 0; i < n; ++i) {{ unsigned bit = lo + i; v |= uint64_t((s[bit / 32] >> (bit % 32)) & 1) << i; }}
    return v;
}}

// ---- the pipeline clock alone (register access; the MACs idle)
static void clk_low() {{ dut->clk = 0; dut->eval(); now_ps += CLK_PS / 2; }}
static void clk_high() {{ dut->clk = 1; dut->eval(); now_ps += CLK_PS - CLK_PS / 2; }}
static void clk_cycle() {{ clk_low(); clk_high(); }}

// The control-register driver steps the pipeline clock alone (the MACs idle).
{axil}

// ---- MACs
struct Gen {{ bool on = false; unsigned size = 0; double rate = 0; uint64_t count = 0; }};
struct Rx {{
    uint64_t sent = 0;          // frames started
    size_t index = 0;           // the queued packet's number (`R` runs)
    double next_ps = 0;         // when the next frame may start
    bool busy = false;          // a frame is on the stream
    size_t off = 0;             // its next byte
    std::vector<uint8_t> frame;
}};
struct Tx {{
    bool in_frame = false;
    bool waiting = false;       // a frame was offered at the last MAC edge and not taken
    uint64_t start_ps = 0, free_ps = 0, bytes = 0, out = 0, total_bytes = 0;
    uint64_t first_start = 0, last_start = 0, last_bytes = 0;
    std::vector<uint8_t> head;  // the frame's first bytes (its ingress port)
    std::vector<uint8_t> frame; // the whole frame (runs of queued packets)
}};
static Gen gens[PORTS];
static bool check_xor1 = false;
// `P` packets waiting for their port's RX MAC, with their numbers in the order they were queued
// (the host's wait in their queue's HostQueue).
static std::deque<std::vector<uint8_t>> queued[PORTS];
static std::deque<size_t> queued_index[PORTS];
// Paced runs (`K 1`): each queued packet starts on its RX MAC no earlier than its `P` time after
// the run's start (picoseconds), and no earlier than line rate allows; otherwise back to back.
static bool paced = false;
static std::deque<uint64_t> swaps_at_ps;  // V: when the next S run swaps the packet processors (ascending)
static bool dump_frames = false;  // M bit 1: each frame a TX MAC sends in an S run as `F <port> <hex>`
static bool swap_raised = false;  // pp_swap_req is high for this clock cycle
static std::deque<uint64_t> queued_at[PORTS];
static size_t queued_count = 0;
// U: register writes during the next R run, each issued on AXI4-Lite no earlier than its time
// after the run's start (picoseconds), in order, one at a time, as traffic flows.
struct TimedWrite {{ uint64_t at_ps; uint32_t addr, data; }};
static std::deque<TimedWrite> timed_writes;
static bool timed_writing = false;  // a timed write is on the bus, its response not yet taken

static void make_frame(unsigned port, uint64_t seq, unsigned size, std::vector<uint8_t>& f) {{
    f.assign(size, 0);
    const uint8_t hdr[14] = {{0x02, 0, 0, 0, 0, uint8_t(port ^ 1), 0x02, 0, 0, 0, 0, uint8_t(port), 0x88, 0xb5}};
    for (unsigned i = 0; i < 14 && i < size; ++i) f[i] = hdr[i];
    if (size > 14) f[14] = uint8_t(port);
    for (unsigned i = 0; i < 4 && 15 + i < size; ++i) f[15 + i] = uint8_t(seq >> (24 - 8 * i));
    for (unsigned i = 19; i < size; ++i) f[i] = uint8_t(i ^ seq);
}}

// The hardware's time format (crate::TIME_NS_BITS) of `ps` picoseconds.
static uint64_t hw_time(uint64_t ps) {{ uint64_t ns = ps / 1000; return ((ns / 1000) << {ns_bits}) | (ns % 1000); }}
// Picoseconds of a time in that format.
static uint64_t time_ps(uint64_t v) {{ return ((v >> {ns_bits}) * 1000 + (v & ((1ULL << {ns_bits}) - 1))) * 1000; }}

// Every port's MAC time (`mac_now`; the MACs share one time here).
static void set_mac_now(uint64_t time) {{
    for (unsigned p = 0; p < PORTS; ++p) {{ dut->mac_now[2 * p] = uint32_t(time); dut->mac_now[2 * p + 1] = uint32_t(time >> 32); }}
}}

static void drive_rx(unsigned p, const Rx& r) {{
    if (!r.busy) {{ put_bits(dut->rx_axis_tvalid, p, 1, 0); return; }}
    size_t n = r.frame.size() - r.off < DATA_BYTES ? r.frame.size() - r.off : DATA_BYTES;
    for (unsigned w = 0; w < DATA_BYTES / 4; ++w) {{
        uint32_t word = 0;
        for (unsigned b = 0; b < 4; ++b) {{
            size_t i = w * 4 + b;
            if (i < n) word |= uint32_t(r.frame[r.off + i]) << (8 * b);
        }}
        dut->rx_axis_tdata[(p * DATA_W) / 32 + w] = word;
    }}
    for (unsigned k = 0; k < DATA_BYTES; k += 32) {{
        unsigned bits = DATA_BYTES - k < 32 ? DATA_BYTES - k : 32;
        uint64_t keep = 0;
        for (unsigned i = 0; i < bits; ++i) if (k + i < n) keep |= 1ULL << i;
        put_bits(dut->rx_axis_tkeep, p * DATA_BYTES + k, bits, keep);
    }}
    put_bits(dut->rx_axis_tlast, p, 1, r.off + n >= r.frame.size());
    put_bits(dut->rx_axis_tvalid, p, 1, 1);
}}

// Port p's 32-bit counter in a vector of per-port counters.
template <typename T> static uint64_t stat32(const T& s, unsigned p) {{ return get_bits(s, 32 * p, 32); }}
{buf_macro}
#define HOST {host}
#define HOST_QUEUES {host_queues}
#define HOST_MEM_LATENCY_CYCLES {host_lat}
#define HOST_RX_BUF {host_rx}
{host_cpp}
#define TRAFFIC {traffic}
#define PP2 {pp2}
#define TIME_NS_BITS {ns_bits}
{traffic_cpp}

static void run_switch() {{
    settle();
    Rx rx[PORTS];
    Tx tx[PORTS];
    // Queued packets (`R`) instead of generators (`S`): each output frame is reported whole, and
    // the run ends when the pipeline has accounted for every packet and copy, as the pipeline
    // harness's runs do (a multicast packet makes several copies).
    const bool from_queue = queued_count > 0;
    // Generated traffic comes from the on-chip generators where the switch has them; the RX MAC
    // models then stay idle, and the counts come from the capturers.
    const bool hw_gen = TRAFFIC && !from_queue;
    uint64_t start = now_ps, total = 0, last_gen_end = now_ps;
    // This run's swaps (V): taken, so that one the run never reached does not carry over.
    std::deque<uint64_t> swaps;
    swaps.swap(swaps_at_ps);
    uint64_t rx0[PORTS], buf0[PORTS], tx0[PORTS], drops0 = dut->stat_drops, out0 = dut->stat_out_drops, misrouted = 0;
    uint64_t stall0 = dut->stat_stall_cycles, descs0 = dut->stat_descs, pkts0 = dut->stat_packets, loops0 = dut->stat_loops;
    const uint64_t host_out0 = host_out, host_bytes0 = host_bytes, host_buf0 = HOST_BUF_DROPS();
    host_run_start();
    if (hw_gen) traffic_begin();
    if (from_queue) total = queued_count;
    for (unsigned p = 0; p < PORTS; ++p) {{
        rx0[p] = stat32(dut->stat_rx_drops, p);
        buf0[p] = {buf_drops0};
        tx0[p] = stat32(dut->stat_tx_drops, p);
        if (gens[p].on) {{
            total += gens[p].count;
            // Ports start staggered over one frame time, as unsynchronised senders would.
            double gap = (gens[p].size + OVERHEAD) * 8.0 * 1000.0 / gens[p].rate;
            rx[p].next_ps = double(start) + gap * p / PORTS;
        }}
        put_bits(dut->rx_axis_tvalid, p, 1, 0);
        put_bits(dut->tx_axis_tready, p, 1, 1);
    }}
    uint64_t next_clk = now_ps + CLK_PS / 2, next_mac = now_ps + MAC_PS / 2;
    bool clk_hi = false, mac_hi = false;
    dut->clk = 0; put_bits(dut->mac_clk, 0, PORTS, 0); dut->eval();
    const uint64_t drain_ps = 2000000000ULL; // 2 ms of simulated time to drain after the last frame
    for (;;) {{
        uint64_t t = next_clk < next_mac ? next_clk : next_mac;
        now_ps = t;
        bool mac_edge = t == next_mac, clk_edge = t == next_clk;
        bool mac_rise = mac_edge && !mac_hi;
        bool clk_rise = clk_edge && !clk_hi;
        if (clk_rise) host_mem_edge();
        bool tpl_fire = clk_rise && hw_gen && traffic_tpl_fire();
        // Handshakes as they stand before the MAC clock rises.
        static bool rx_fire[PORTS], tx_fire[PORTS], tx_last[PORTS], tx_offered[PORTS];
        static std::vector<uint8_t> tx_bytes[PORTS];
        if (mac_rise) {{
            for (unsigned p = 0; p < PORTS; ++p) {{
                tx_bytes[p].clear();
                rx_fire[p] = get_bits(dut->rx_axis_tvalid, p, 1) && get_bits(dut->rx_axis_tready, p, 1);
                tx_fire[p] = get_bits(dut->tx_axis_tvalid, p, 1) && get_bits(dut->tx_axis_tready, p, 1);
                tx_last[p] = get_bits(dut->tx_axis_tlast, p, 1);
                tx_offered[p] = get_bits(dut->tx_axis_tvalid, p, 1);
                if (tx_fire[p]) {{
                    for (unsigned k = 0; k < DATA_BYTES; k += 32) {{
                        unsigned bits = DATA_BYTES - k < 32 ? DATA_BYTES - k : 32;
                        uint64_t keep = get_bits(dut->tx_axis_tkeep, p * DATA_BYTES + k, bits);
                        for (unsigned i = 0; i < bits; ++i) if ((keep >> i) & 1) {{
                            unsigned byte = k + i;
                            tx_bytes[p].push_back(uint8_t(dut->tx_axis_tdata[(p * DATA_W) / 32 + byte / 4] >> (8 * (byte % 4))));
                        }}
                    }}
                }}
            }}
        }}
        // The timed write's handshakes as they stand before the pipeline clock rises.
        const bool aw_fire = clk_rise && dut->s_axil_awvalid && dut->s_axil_awready;
        const bool w_fire = clk_rise && dut->s_axil_wvalid && dut->s_axil_wready;
        const bool b_fire = clk_rise && dut->s_axil_bvalid && dut->s_axil_bready;
        if (clk_edge) {{ clk_hi = !clk_hi; dut->clk = clk_hi; next_clk += CLK_PS / 2; }}
        if (mac_rise) set_mac_now(hw_time(t - start));
        if (mac_edge) {{ mac_hi = !mac_hi; put_bits(dut->mac_clk, 0, PORTS, mac_hi ? ~0ULL : 0); next_mac += MAC_PS / 2; }}
        dut->eval();
        if (clk_rise && HOST) {{
            host_drive_rsp();
            if (host_driver(t, start, from_queue)) last_gen_end = t;
            dut->eval();
        }}
        if (clk_rise && (timed_writing || !timed_writes.empty())) {{
            if (aw_fire) dut->s_axil_awvalid = 0;
            if (w_fire) dut->s_axil_wvalid = 0;
            if (b_fire) {{
                if (dut->s_axil_bresp != 0) printf("E write refused %u\n", unsigned(dut->s_axil_bresp));
                dut->s_axil_bready = 0;
                timed_writing = false;
            }}
            if (!timed_writing && !timed_writes.empty() && t - start >= timed_writes.front().at_ps) {{
                const TimedWrite& w = timed_writes.front();
                dut->s_axil_awaddr = w.addr; dut->s_axil_awvalid = 1; dut->s_axil_awprot = 0;
                dut->s_axil_wdata = w.data; dut->s_axil_wstrb = 0xF; dut->s_axil_wvalid = 1;
                dut->s_axil_bready = 1;
                timed_writing = true;
                timed_writes.pop_front();
            }}
            dut->eval();
        }}
#if PP2
        if (clk_rise && swap_raised) {{ dut->pp_swap_req = 0; swap_raised = false; dut->eval(); }}
        // A swap waits for the one before it to finish (the decoupler ignores a request meanwhile).
        if (clk_rise && !swaps.empty() && t - start >= swaps.front() && !dut->pp_swap_busy) {{
            dut->pp_swap_to = !dut->pp_active; dut->pp_swap_req = 1; swap_raised = true; swaps.pop_front(); dut->eval();
        }}
#endif
        if (clk_rise && hw_gen) {{
            traffic_step(t, tpl_fire);
            if (!hw.gens_done) last_gen_end = t;
            dut->eval();
        }}
        if (!mac_rise) continue;
        // After the MAC edge: advance the MACs and drive their next beats.
        bool gen_done = true;
        for (unsigned p = 0; p < PORTS; ++p) {{
            Rx& r = rx[p];
            if (rx_fire[p] && r.off == 0 && from_queue) printf("J %zu %llx\n", r.index, (unsigned long long)hw_time(t - start));
            if (rx_fire[p]) {{
                r.off += DATA_BYTES;
                if (r.off >= r.frame.size()) r.busy = false;
            }}
            if (!hw_gen && gens[p].on && !r.busy && r.sent < gens[p].count && double(t) >= r.next_ps) {{
                make_frame(p, r.sent, gens[p].size, r.frame);
                r.busy = true;
                r.off = 0;
                ++r.sent;
                r.next_ps += (gens[p].size + OVERHEAD) * 8.0 * 1000.0 / gens[p].rate;
                if (r.sent == gens[p].count) last_gen_end = t;
            }}
            if (from_queue && !r.busy && !queued[p].empty() && double(t) >= r.next_ps && (!paced || t - start >= queued_at[p].front())) {{
                // The frame's start on the wire: when the wire was free (or, paced, its time
                // came) if that was within this MAC cycle, as a MAC keeps the line rate across
                // its clock's edges (the next frame counts from there: back to back, the frames
                // average line rate exactly); else now.
                double nominal = std::max(r.next_ps, paced ? double(start + queued_at[p].front()) : 0.0);
                if (double(t) - nominal >= double(MAC_PS)) nominal = double(t);
                r.frame = std::move(queued[p].front());
                queued[p].pop_front();
                queued_at[p].pop_front();
                printf("I %zu %llu\n", queued_index[p].front(), (unsigned long long)((t - start) / CLK_PS));
                r.index = queued_index[p].front();
                queued_index[p].pop_front();
                r.busy = true;
                r.off = 0;
                ++r.sent;
                r.next_ps = nominal + (r.frame.size() + OVERHEAD) * 8.0 * 1000.0 / LINE_GBPS;
                last_gen_end = t;
            }}
            if (!hw_gen && gens[p].on && (r.busy || r.sent < gens[p].count)) gen_done = false;
            if (from_queue && (r.busy || !queued[p].empty())) gen_done = false;
            drive_rx(p, r);
            Tx& x = tx[p];
            if (tx_fire[p]) {{
                if (!x.in_frame) {{
                    // A frame that waited for the wire starts the moment the wire is free (a MAC
                    // keeps the line rate across its clock's edges); one that just arrived, at this edge.
                    x.in_frame = true;
                    x.start_ps = !x.waiting ? t : x.free_ps > t - MAC_PS ? x.free_ps : t - MAC_PS;
                    x.bytes = 0;
                    x.head.clear();
                }}
                x.bytes += tx_bytes[p].size();
                for (uint8_t b : tx_bytes[p]) if (x.head.size() < 15) x.head.push_back(b);
                if (from_queue || dump_frames) {{
                    if (x.bytes == tx_bytes[p].size()) x.frame.clear();
                    x.frame.insert(x.frame.end(), tx_bytes[p].begin(), tx_bytes[p].end());
                }}
                if (tx_last[p]) {{
                    x.in_frame = false;
                    // The wire is busy for the frame and its overhead, at line rate.
                    x.free_ps = x.start_ps + uint64_t((x.bytes + OVERHEAD) * 8.0 * 1000.0 / LINE_GBPS + 0.5);
                    if (x.out == 0) x.first_start = x.start_ps - start;
                    x.last_start = x.start_ps - start;
                    x.last_bytes = x.bytes;
                    ++x.out;
                    x.total_bytes += x.bytes;
                    if (check_xor1 && (x.head.size() < 15 || (x.head[14] ^ 1u) != p)) ++misrouted;
                    if (dump_frames && !from_queue) {{
                        printf("F %u ", p);
                        for (uint8_t b : x.frame) printf("%02x", b);
                        printf("\n");
                    }}
                    if (from_queue) {{
                        printf("O %u %llu %llu ", p, (unsigned long long)((x.start_ps - start) / CLK_PS), (unsigned long long)((t - start) / CLK_PS));
                        for (uint8_t b : x.frame) printf("%02x", b);
                        printf("\n");
                    }}
                }}
            }}
            x.waiting = tx_offered[p] && !tx_fire[p];
            // A MAC takes the next frame only once the wire is free again.
            put_bits(dut->tx_axis_tready, p, 1, x.in_frame || t + MAC_PS >= x.free_ps);
        }}
        dut->eval();
        if (from_queue && host_pending()) gen_done = false;
        if (timed_writing || !timed_writes.empty()) gen_done = false;
        if (hw_gen && !hw.gens_done) gen_done = false;
        if (gen_done) {{
            uint64_t accounted = uint32_t(dut->stat_drops - drops0) + uint32_t(dut->stat_out_drops - out0)
                               + (host_out - host_out0) + uint32_t(HOST_BUF_DROPS() - host_buf0);
            bool idle = true;
            for (unsigned p = 0; p < PORTS; ++p) {{
                accounted += (hw_gen ? hw.cap_pkts[p] : tx[p].out) + uint32_t(stat32(dut->stat_rx_drops, p) - rx0[p]) + uint32_t({buf_drops} - buf0[p])
                           + uint32_t(stat32(dut->stat_tx_drops, p) - tx0[p]);
                if (tx[p].in_frame) idle = false;
            }}
            if (from_queue) {{
                // Every packet through the pipeline (or dropped before it), and every copy out of
                // the deparser dropped, sent back to the parser, or out of a port (or dropped after).
                uint64_t before = 0, after = uint32_t(dut->stat_out_drops - out0) + (host_out - host_out0) + uint32_t(HOST_BUF_DROPS() - host_buf0);
                for (unsigned p = 0; p < PORTS; ++p) {{
                    before += uint32_t(stat32(dut->stat_rx_drops, p) - rx0[p]);
                    after += tx[p].out + uint32_t({buf_drops} - buf0[p]) + uint32_t(stat32(dut->stat_tx_drops, p) - tx0[p]);
                }}
                uint64_t done = uint32_t(dut->stat_packets - pkts0) + before;
                uint64_t copies = uint32_t(dut->stat_descs - descs0);
                after += uint32_t(dut->stat_drops - drops0) + uint32_t(dut->stat_loops - loops0);
                if (done >= total && after >= copies && idle) break;
            }} else if (accounted >= total && idle) break;
            if (t - last_gen_end > drain_ps) {{ host_run_end(); traffic_end(); printf("T %llu\n", (unsigned long long)(t - start)); fflush(stdout); return; }}
        }}
    }}
    host_run_end();
    if (hw_gen) traffic_end();
    if (from_queue) {{
        uint64_t drops = uint32_t(dut->stat_drops - drops0) + uint32_t(dut->stat_out_drops - out0) + uint32_t(HOST_BUF_DROPS() - host_buf0);
        for (unsigned p = 0; p < PORTS; ++p)
            drops += uint32_t(stat32(dut->stat_rx_drops, p) - rx0[p]) + uint32_t({buf_drops} - buf0[p]) + uint32_t(stat32(dut->stat_tx_drops, p) - tx0[p]);
        // Per port (the host port too): drops at its RX queue, in the buffer, at its TX queue.
        for (unsigned p = 0; p < PORTS + HOST; ++p) {{
            bool mac = p < PORTS;
            printf("Y %u %llu %llu %llu\n", p, (unsigned long long)(mac ? uint32_t(stat32(dut->stat_rx_drops, p) - rx0[p]) : 0),
                   (unsigned long long)(mac ? uint32_t({buf_drops} - buf0[p]) : uint32_t(HOST_BUF_DROPS() - host_buf0)),
                   (unsigned long long)(mac ? uint32_t(stat32(dut->stat_tx_drops, p) - tx0[p]) : 0));
        }}
        printf("D %llu %llu %llu\n", (unsigned long long)((now_ps - start) / CLK_PS),
               (unsigned long long)uint32_t(dut->stat_stall_cycles - stall0), (unsigned long long)drops);
        queued_count = 0;
        fflush(stdout);
        return;
    }}
    if (hw_gen) {{
        // From the hardware: frames the generator sent, and the capturer's frames out, bytes and
        // first and last frame times (its link monitor on the port's TX stream).
        for (unsigned p = 0; p < PORTS; ++p) {{
            bool any = hw.cap_pkts[p] > 0;
            printf("X %u %llu %llu %llu %llu %llu %llu %llu %llu %llu\n", p, (unsigned long long)(gens[p].on ? hw.gen_pkts[p] : 0),
                   (unsigned long long)hw.cap_pkts[p], (unsigned long long)uint32_t(stat32(dut->stat_rx_drops, p) - rx0[p]),
                   (unsigned long long)uint32_t({buf_drops} - buf0[p]), (unsigned long long)uint32_t(stat32(dut->stat_tx_drops, p) - tx0[p]),
                   (unsigned long long)hw.cap_bytes[p], (unsigned long long)(any ? hw_time_ps(hw.cap_first[p]) : 0),
                   (unsigned long long)(any ? hw_time_ps(hw.cap_last[p]) : 0), (unsigned long long)hw.cap_len[p]);
            gens[p].on = false;
        }}
        start = hw.gen_start_ps;
    }}
    for (unsigned p = 0; p < PORTS && !hw_gen; ++p) {{
        const Tx& x = tx[p];
        printf("X %u %llu %llu %llu %llu %llu %llu %llu %llu %llu\n", p, (unsigned long long)(gens[p].on ? gens[p].count : 0),
               (unsigned long long)x.out, (unsigned long long)uint32_t(stat32(dut->stat_rx_drops, p) - rx0[p]),
               (unsigned long long)uint32_t({buf_drops} - buf0[p]), (unsigned long long)uint32_t(stat32(dut->stat_tx_drops, p) - tx0[p]),
               (unsigned long long)x.total_bytes, (unsigned long long)x.first_start, (unsigned long long)x.last_start,
               (unsigned long long)x.last_bytes);
        gens[p].on = false;
    }}
    // The host port: what reached it (no generator, no RX or TX queue, no wire rate).
    if (HOST)
        printf("X %u 0 %llu 0 %llu 0 %llu 0 0 0\n", PORTS, (unsigned long long)(host_out - host_out0),
               (unsigned long long)uint32_t(HOST_BUF_DROPS() - host_buf0), (unsigned long long)(host_bytes - host_bytes0));
#if PP2
    printf("Z %u %u %u %u\n", unsigned(dut->pp_swaps), unsigned(dut->pp_stray_beats), unsigned(dut->pp_drain_cycles), unsigned(dut->pp_active));
#endif
    printf("D %llu %llu %llu %llu\n", (unsigned long long)(now_ps - start), (unsigned long long)uint32_t(dut->stat_drops - drops0),
           (unsigned long long)uint32_t(dut->stat_out_drops - out0), (unsigned long long)misrouted);
    fflush(stdout);
}}

int main(int argc, char** argv) {{
    Verilated::commandArgs(argc, argv);
    dut = new V{top};
    dut->rst = 1;
    put_bits(dut->mac_rst, 0, PORTS, ~0ULL);
    for (unsigned p = 0; p < PORTS; ++p) {{ put_bits(dut->rx_axis_tvalid, p, 1, 0); put_bits(dut->tx_axis_tready, p, 1, 1); }}
    dut->s_axil_awvalid = 0; dut->s_axil_wvalid = 0; dut->s_axil_bready = 0; dut->s_axil_arvalid = 0; dut->s_axil_rready = 0;
    host_init();
    traffic_init();
    // Reset both clock domains together, for a few cycles of the slower clock.
    for (int i = 0; i < 16; ++i) {{
        put_bits(dut->mac_clk, 0, PORTS, 0); dut->clk = 0; dut->eval();
        put_bits(dut->mac_clk, 0, PORTS, ~0ULL); dut->clk = 1; dut->eval();
    }}
    dut->rst = 0;
    put_bits(dut->mac_rst, 0, PORTS, 0);
    put_bits(dut->mac_clk, 0, PORTS, 0);
    // Let table memories finish clearing after reset.
    for (unsigned i = 0; i < {clear_cycles}u; ++i) clk_cycle();
    std::string line;
    while (std::getline(std::cin, line)) {{
        while (!line.empty() && line.back() == '\r') line.pop_back();
        if (line.empty()) continue;
        char cmd = line[0];
        if (cmd == 'Q') break;
        if (register_command(line)) {{
        }} else if (cmd == 'M') {{
            int flags = atoi(line.c_str() + 1);
            check_xor1 = (flags & 1) != 0;
            dump_frames = (flags & 2) != 0;
        }} else if (cmd == 'U') {{
            unsigned long long at = 0; unsigned addr = 0, data = 0;
            if (sscanf(line.c_str() + 1, "%llu %x %x", &at, &addr, &data) == 3) timed_writes.push_back(TimedWrite{{at, addr, data}});
            else {{ printf("E parse\n"); fflush(stdout); }}
        }} else if (cmd == 'V') {{
            swaps_at_ps.push_back(strtoull(line.c_str() + 1, nullptr, 10));
        }} else if (cmd == 'K') {{
            paced = atoi(line.c_str() + 1) != 0;
        }} else if (cmd == 'G') {{
            unsigned port = 0, size = 0; double rate = 0; unsigned long long count = 0;
            if (sscanf(line.c_str() + 1, "%u %u %lf %llu", &port, &size, &rate, &count) == 4 && port < PORTS && size > 0 && rate > 0) {{
                gens[port].on = true; gens[port].size = size; gens[port].rate = rate; gens[port].count = count;
            }} else {{ printf("E parse\n"); fflush(stdout); }}
        }} else if (cmd == 'S' || cmd == 'R') {{
            run_switch();
        }} else if (cmd == 'P') {{
            // P <port> <time> <hex bytes>: a packet for the port's RX MAC, sent by the next R (the
            // time is the MAC's: the switch stamps the packet as it arrives). The host port's
            // (P <PORTS>[/<queue>]) goes to its queue's TX ring.
            unsigned port = 0, queue = 0;
            uint64_t time = 0;
            std::vector<uint8_t> bytes;
            if (packet_command(line, port, time, bytes, &queue) && port == PORTS && HOST) {{
                host_queue(queue, std::move(bytes), queued_count++);
            }} else if (port < PORTS && !bytes.empty()) {{
                queued[port].push_back(std::move(bytes));
                queued_index[port].push_back(queued_count++);
                queued_at[port].push_back(time_ps(time));
            }}
        }}
    }}
    dut->final();
    delete dut;
    return 0;
}}
"#,
        axil = crate::harness::SHARED_CPP,
        line = LINE_RATE_GBPS,
        overhead = WIRE_OVERHEAD_BYTES,
        ns_bits = crate::TIME_NS_BITS,
        host = u32::from(host_queues > 0),
        host_queues = host_queues.max(1),
        host_lat = HOST_MEM_LATENCY,
        host_rx = HOST_RX_BUFFER_BYTES,
        host_cpp = HOST_CPP,
        traffic = u32::from(traffic),
        pp2 = u32::from(processors),
        traffic_cpp = TRAFFIC_CPP,
        buf_drops0 = "BUF_DROPS(p)",
        buf_drops = "BUF_DROPS(p)",
        buf_macro = if has_buffer {
            "#define BUF_DROPS(p) stat32(dut->stat_buf_drops, p)"
        } else {
            "#define BUF_DROPS(p) 0ULL // a bump has no buffer"
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gbps_out_counts_each_frame_with_its_preamble_and_gap() {
        // 11 frames of 64 bytes, one every 67.2 ns (84 bytes at 10 Gb/s): 10 frames in the
        // 672 ns from the first start to the last.
        let r = PortRun { packets_out: 11, bytes_out: 11 * 64, first_start_ps: 1000, last_start_ps: 1000 + 672_000, ..Default::default() };
        assert_eq!(r.gbps_out(64), Some(10.0));
        // The same frames twice as far apart: 5 Gb/s.
        let r = PortRun { last_start_ps: 1000 + 1_344_000, ..r };
        assert_eq!(r.gbps_out(64), Some(5.0));
        // One frame has no span.
        assert_eq!(PortRun { packets_out: 1, bytes_out: 64, ..Default::default() }.gbps_out(64), None);
    }

    #[test]
    fn the_harness_counts_buffer_drops_only_where_there_is_a_buffer() {
        let switch = source("p_switch", 512, 6, true, 0, false, false, 250.0, 16);
        let bump = source("p_bump", 512, 2, false, 0, false, false, 250.0, 16);
        assert!(switch.contains("#define BUF_DROPS(p) stat32(dut->stat_buf_drops, p)"));
        assert!(!bump.contains("stat_buf_drops"));
        // 250 MHz and 156.25 MHz periods in picoseconds.
        assert!(switch.contains("CLK_PS = 4000;") && switch.contains("MAC_PS = 6400;"));
    }

    #[test]
    fn the_traffic_controller_is_compiled_only_for_traffic_units() {
        let traffic = source("p_switch", 512, 2, true, 0, true, false, 250.0, 16);
        let plain = source("p_switch", 512, 2, true, 0, false, false, 250.0, 16);
        assert!(traffic.contains("#define TRAFFIC 1") && plain.contains("#define TRAFFIC 0"));
        // Generated runs use the on-chip units only where the model has them.
        assert!(traffic.contains("const bool hw_gen = TRAFFIC && !from_queue;"));
    }

    #[test]
    fn the_host_driver_is_compiled_only_for_a_host_port() {
        let host = source("p_switch", 512, 2, true, 1, false, false, 250.0, 16);
        let plain = source("p_switch", 512, 2, true, 0, false, false, 250.0, 16);
        assert!(host.contains("#define HOST 1") && plain.contains("#define HOST 0"));
        assert!(host.contains("#define HOST_QUEUES 1") && plain.contains("#define HOST_QUEUES 1"));
        let four = source("p_switch", 512, 2, true, 4, false, false, 250.0, 16);
        assert!(four.contains("#define HOST 1") && four.contains("#define HOST_QUEUES 4"));
        let two = source("p_op4t", 512, 4, true, 1, false, true, 250.0, 16);
        assert!(two.contains("#define PP2 1") && plain.contains("#define PP2 0"));
        assert!(host.contains("#define HOST_RX_BUF 2048") && host.contains("#define HOST_MEM_LATENCY_CYCLES 4"));
        // Queued packets for port PORTS (the host) are taken only with a host port.
        assert!(host.contains("port == PORTS && HOST"));
    }
}

//! DTP, the Datacenter Time Protocol (Algorithms 3 and 4 of the seed, §4.5).
//!
//! Every port keeps a local counter `lc` ticking on its transmit clock; every device keeps a
//! global counter `gc = max(gc + 1, lc_i)` (Algorithm 4). Ports measure the one-way delay with
//! INIT/INIT-ACK (`d = (rtt - α) / 2`), agree on a starting value with BEACON-MSB and BEACON-JOIN,
//! then exchange BEACONs carrying `gc` and apply `lc = max(lc, c + d)` (Algorithm 3).
//!
//! Invariants:
//! - a message is a 3-bit type and a 53-bit payload carried in the eight 7-bit control characters
//!   of an /E/ block; the receiver replaces it with idles, so it never displaces a frame: a
//!   message due while a frame is on the wire leaves after that frame;
//! - counters are lazy: `value = base + (edges so far - edge at base)`, updated only by messages,
//!   so idle blocks are never simulated;
//! - a receiver samples a message at its own clock edge after arrival plus 0 or 1 extra cycle
//!   (the synchronisation FIFO between the recovered RX clock and the local clock).

use crate::sim::protocol::{Cx, Protocol};
use crate::sim::Sim;
use crate::time::{Time, NOMINAL_CYCLE};
use rand::Rng;
use rand_chacha::ChaCha8Rng;
use serde::Serialize;

/// Payload bits in a DTP message: 56 control-character bits less the 3-bit type and the
/// parity bit.
pub const PAYLOAD_BITS: u32 = 52;
/// Position of the parity bit, which covers the payload's three least significant bits: the
/// jump guard catches bit errors above them, the parity a single error among them (§4.5.3).
const PARITY_BIT: u32 = PAYLOAD_BITS;
/// Position of the 3-bit message type.
const TYPE_SHIFT: u32 = PAYLOAD_BITS + 1;
const PAYLOAD_MASK: u64 = (1 << PAYLOAD_BITS) - 1;
/// 10GBASE-R block type of a control block made only of control characters (/E/ or /I/ block).
pub const CONTROL_BLOCK_TYPE: u8 = 0x1e;

/// DTP message types (zero is reserved so an all-idle block never decodes as a message).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum MsgType {
    /// Start of one-way-delay measurement, carries `lc`.
    Init = 1,
    /// Echo of the INIT counter.
    InitAck = 2,
    /// Periodic resynchronisation, carries `gc`.
    Beacon = 3,
    /// Large adjustment when joining, carries `gc`; re-flooded on big jumps.
    BeaconJoin = 4,
    /// The bits of `gc` above the low [`PAYLOAD_BITS`].
    BeaconMsb = 5,
}

impl MsgType {
    fn from_bits(b: u8) -> Option<Self> {
        Some(match b {
            1 => MsgType::Init,
            2 => MsgType::InitAck,
            3 => MsgType::Beacon,
            4 => MsgType::BeaconJoin,
            5 => MsgType::BeaconMsb,
            _ => return None,
        })
    }
}

/// Parity of the payload's three least significant bits.
fn lsb_parity(payload: u64) -> u64 {
    u64::from((payload & 7).count_ones() & 1)
}

/// Packs a message into the 56 bits of an /E/ block's eight 7-bit control characters: type,
/// parity of the three payload LSBs, payload.
pub fn encode(kind: MsgType, payload: u64) -> u64 {
    let payload = payload & PAYLOAD_MASK;
    ((kind as u64) << TYPE_SHIFT) | lsb_parity(payload) << PARITY_BIT | payload
}

/// Unpacks 56 control-character bits; `None` for idles (all zero), an unknown type or a
/// parity error.
pub fn decode(word: u64) -> Option<(MsgType, u64)> {
    let t = MsgType::from_bits(((word >> TYPE_SHIFT) & 7) as u8)?;
    let payload = word & PAYLOAD_MASK;
    if word >> (TYPE_SHIFT + 3) != 0 || (word >> PARITY_BIT) & 1 != lsb_parity(payload) {
        return None;
    }
    Some((t, payload))
}

/// The 64-bit block payload (block type in the low byte, then the control characters) for a
/// message word.
pub fn to_control_block(word: u64) -> u64 {
    CONTROL_BLOCK_TYPE as u64 | (word & ((1 << 56) - 1)) << 8
}

/// What the RX DTP sublayer does with a received control block: extracts a message if the
/// block carries one and returns the block with all control characters set to idle.
pub fn strip_control_block(block: u64) -> (Option<(MsgType, u64)>, u64) {
    if block as u8 != CONTROL_BLOCK_TYPE {
        return (None, block);
    }
    (decode(block >> 8), CONTROL_BLOCK_TYPE as u64)
}

/// The counter value with low bits `lsb` closest to `reference` (wrap-aware 53-bit reconstruct).
pub fn nearest_with_lsb(lsb: u64, reference: u128) -> u128 {
    let m = 1u128 << PAYLOAD_BITS;
    let cand = (reference & !(m - 1)) | (lsb & PAYLOAD_MASK) as u128;
    let dist = |x: u128| x.abs_diff(reference);
    [cand.checked_sub(m), Some(cand), cand.checked_add(m)]
        .into_iter()
        .flatten()
        .min_by_key(|&x| dist(x))
        .unwrap_or(cand)
}

/// DTP daemon read path: software reads the counter over PCIe; the read takes
/// `mean_ns ± jitter_ns` (normal) and occasionally an extra spike; the daemon compensates the mean.
#[derive(Clone, Debug, PartialEq)]
pub struct DaemonModel {
    /// Mean read latency.
    pub mean_ns: f64,
    /// Standard deviation of the latency.
    pub jitter_ns: f64,
    /// Probability of a spike per read.
    pub spike_prob: f64,
    /// Largest spike.
    pub spike_ns: f64,
    /// Moving-average window for the smoothed error.
    pub window: usize,
}

impl Default for DaemonModel {
    fn default() -> Self {
        DaemonModel { mean_ns: 800.0, jitter_ns: 12.0, spike_prob: 0.01, spike_ns: 100.0, window: 10 }
    }
}

/// DTP settings.
#[derive(Clone, Debug, PartialEq)]
pub struct DtpConfig {
    /// Cycles between BEACONs when the link is idle (frames in flight stretch it).
    pub beacon_interval: u64,
    /// α of Transition T2.
    pub alpha: u64,
    /// BEACONs that would move a counter up by more than this are ignored (bit-error guard).
    pub jump_limit: u64,
    /// Every this many beacons a BEACON-MSB is sent instead.
    pub msb_every: u64,
    /// Devices power up with counters `initial_base + uniform(0..initial_spread)`.
    pub initial_base: u128,
    /// See `initial_base`.
    pub initial_spread: u64,
    /// Links come up at a uniform random time in `0..link_up_spread`.
    pub link_up_spread: Time,
    /// Offsets are sampled this often.
    pub sample_interval: Time,
    /// Offsets before this time (INIT and JOIN) are not counted.
    pub warmup: Time,
    /// Daemon read path.
    pub daemon: DaemonModel,
}

impl Default for DtpConfig {
    fn default() -> Self {
        DtpConfig {
            beacon_interval: 200,
            alpha: 3,
            jump_limit: 8,
            msb_every: 1024,
            initial_base: 0,
            initial_spread: 1 << 20,
            link_up_spread: crate::time::from_ns(1000.0),
            sample_interval: crate::time::from_ns(1000.0),
            warmup: crate::time::from_ns(50_000.0),
            daemon: DaemonModel::default(),
        }
    }
}

#[derive(Clone, Copy, Debug, Default)]
struct Counter {
    base: u128,
    at: u64,
}

impl Counter {
    fn value(&self, count: u64) -> u128 {
        self.base + count.saturating_sub(self.at) as u128
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    Down,
    Init,
    Beacon,
}

#[derive(Clone, Debug)]
struct PortState {
    lc: Counter,
    d: u64,
    phase: Phase,
    echo: u64,
    peer_msb: Option<u64>,
    sent: u64,
    last_beacon_edge: Option<u64>,
    pending_join: Option<(u64, u64)>,
}

/// Aggregate counters and results.
#[derive(Clone, Debug, Default, Serialize)]
pub struct DtpReport {
    /// Largest difference between any two devices' global counters after warm-up.
    pub max_offset_ticks: u64,
    /// 4·D in ticks (T = 6.4 ns).
    pub bound_ticks: u64,
    /// D: the network diameter in hops.
    pub max_hops: u32,
    /// Largest offset between directly connected devices (bound 4).
    pub max_adjacent_offset_ticks: u64,
    /// Pairs (sample, i, j) whose offset exceeded 4·hops(i, j) (checked for ≤ 64 devices).
    pub pair_bound_violations: Option<u64>,
    /// Offset samples taken.
    pub samples: u64,
    /// Mean cycles between BEACON departures on a port.
    pub mean_beacon_interval_cycles: f64,
    /// Longest gap between BEACON departures on a port.
    pub max_beacon_interval_cycles: u64,
    /// Smallest and largest measured one-way delay `d` in cycles.
    pub owd_cycles: (u64, u64),
    /// Messages sent.
    pub messages: u64,
    /// Messages that had to wait for a frame to end.
    pub deferred: u64,
    /// BEACONs ignored by the jump guard.
    pub rejected: u64,
    /// Messages lost to bit errors (undecodable).
    pub corrupted: u64,
    /// Largest |daemon estimate − counter| in ticks, raw and after the moving average.
    pub daemon_max_error_ticks: u64,
    /// See `daemon_max_error_ticks`.
    pub daemon_max_smoothed_error_ticks: u64,
}

/// What DTP schedules for itself: PHY-level messages, which never become frames.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DtpEvent {
    /// Put a message of type `kind` on `port`'s wire at the next transmit edge.
    Send {
        /// Transmitting port.
        port: u32,
        /// Message type.
        kind: MsgType,
        /// The idle slot after a frame is reserved for this message: it goes now, whatever the
        /// port is doing (without it, a frame on the wire defers the message to its end).
        forced: bool,
        /// A beacon timer's message: its departure times the next beacon.
        timer: bool,
    },
    /// `port`'s beacon timer expires.
    Timer(u32),
    /// A message arrives at `port` and is sampled by its receiver.
    Rx {
        /// Receiving port.
        port: u32,
        /// The control-character bits as received (bit errors included; 0 when the block
        /// carried no message).
        word: u64,
    },
}

/// DTP on every port of the network: the protocol state and its results.
pub struct Dtp {
    cfg: DtpConfig,
    ports: Vec<PortState>,
    gc: Vec<Counter>,
    hops: Option<Vec<Vec<u32>>>,
    rng: ChaCha8Rng,
    interval_sum: u128,
    interval_n: u64,
    daemon_hist: Vec<std::collections::VecDeque<f64>>,
    /// Results so far.
    pub report: DtpReport,
    /// (time, max offset) per sample.
    pub series: Vec<(Time, u64)>,
}

impl Dtp {
    /// DTP for every port of `sim`'s network, devices powering up with random counters. Once
    /// installed, links come up during the first `cfg.link_up_spread` and sampling starts after
    /// `cfg.warmup`.
    pub fn new(cfg: DtpConfig, sim: &Sim) -> Self {
        let mut rng = sim.sub_rng(0xd7d7);
        let n = sim.topo.nodes.len();
        let gc = (0..n)
            .map(|_| Counter { base: cfg.initial_base + rng.gen_range(0..cfg.initial_spread.max(1)) as u128, at: 0 })
            .collect();
        let ports = vec![
            PortState {
                lc: Counter::default(),
                d: 0,
                phase: Phase::Down,
                echo: 0,
                peer_msb: None,
                sent: 0,
                last_beacon_edge: None,
                pending_join: None
            };
            sim.ports.len()
        ];
        let diameter = sim.topo.diameter();
        let hops = (n <= 64).then(|| {
            let adj = sim.topo.adjacency();
            (0..n).map(|s| sim.topo.hops_from(s, &adj)).collect()
        });
        let report = DtpReport {
            bound_ticks: 4 * diameter as u64,
            max_hops: diameter,
            pair_bound_violations: hops.as_ref().map(|_| 0),
            ..Default::default()
        };
        Dtp {
            daemon_hist: vec![Default::default(); n],
            cfg,
            ports,
            gc,
            hops,
            rng,
            interval_sum: 0,
            interval_n: 0,
            report,
            series: Vec::new(),
        }
    }

    /// The report with derived fields filled in.
    pub fn finish(&self) -> DtpReport {
        let mut r = self.report.clone();
        r.mean_beacon_interval_cycles =
            if self.interval_n == 0 { 0.0 } else { self.interval_sum as f64 / self.interval_n as f64 };
        let ds = self.ports.iter().filter(|p| p.phase == Phase::Beacon).map(|p| p.d);
        r.owd_cycles = (ds.clone().min().unwrap_or(0), ds.max().unwrap_or(0));
        r
    }

    /// Global counter of `node` at `t` (Algorithm 4 evaluated lazily: the max of the device
    /// counter and every local counter).
    pub fn global(&self, sim: &Sim, node: usize, t: Time) -> u128 {
        let mut v = self.gc[node].value(sim.node_clock(node).count_le(t));
        for &p in &sim.node_ports[node] {
            if self.ports[p].phase != Phase::Down {
                v = v.max(self.ports[p].lc.value(port_count(sim, p, t)));
            }
        }
        v
    }

    fn fold_global(&mut self, sim: &Sim, node: usize, t: Time) {
        let v = self.global(sim, node, t);
        let c = sim.node_clock(node).count_le(t);
        self.gc[node] = Counter { base: v, at: c };
    }

    /// Puts a message on the wire at the next transmit edge. When a frame is on the wire and
    /// the slot is not `forced` yet, the message waits for the idle blocks after that frame
    /// (the slot is reserved: the next frame cannot take it). A `timer` message schedules the
    /// next beacon timer from its departure.
    fn emit(&mut self, port: usize, kind: MsgType, forced: bool, timer: bool, cx: &mut Cx<'_, DtpEvent>) {
        let sim = cx.sim();
        let now = cx.now();
        if !forced {
            if let Some(end) = sim.frame_end_after(port, now) {
                self.report.deferred += 1;
                cx.schedule(end, DtpEvent::Send { port: port as u32, kind, forced: true, timer });
                return;
            }
        }
        let osc = sim.port_clock(port);
        let k = osc.first_edge_at_or_after(now);
        let dep = osc.edge_time(k);
        let node = sim.ports[port].node;
        let (peer, latency) = (sim.ports[port].peer, sim.ports[port].latency);
        let payload = match kind {
            MsgType::Init => self.ports[port].lc.value(k + 1) as u64,
            MsgType::InitAck => self.ports[port].echo,
            MsgType::Beacon | MsgType::BeaconJoin => self.global(sim, node, dep) as u64,
            MsgType::BeaconMsb => (self.global(sim, node, dep) >> PAYLOAD_BITS) as u64,
        };
        let mut word = encode(kind, payload);
        let ber = sim.cfg.ber;
        self.report.messages += 1;
        self.ports[port].sent += 1;
        if ber > 0.0 {
            for bit in 0..56 {
                if self.rng.gen::<f64>() < ber * 66.0 / 56.0 {
                    word ^= 1 << bit;
                }
            }
        }
        let arrive = dep + latency;
        let po = sim.port_clock(peer);
        let kr = po.first_edge_at_or_after(arrive) + self.rng.gen_range(0..=1u64);
        let at = po.edge_time(kr);
        // the wire sees an /E/ block; the receiver strips it back to idles
        let (msg, _idles) = strip_control_block(to_control_block(word));
        let word = msg.map(|(t, p)| encode(t, p)).unwrap_or(0);
        cx.schedule(at, DtpEvent::Rx { port: peer as u32, word });
        if timer {
            let interval = self.cfg.beacon_interval.max(1);
            if let Some(prev) = self.ports[port].last_beacon_edge {
                let gap = k.saturating_sub(prev);
                self.interval_sum += gap as u128;
                self.interval_n += 1;
                self.report.max_beacon_interval_cycles = self.report.max_beacon_interval_cycles.max(gap);
            }
            self.ports[port].last_beacon_edge = Some(k);
            let next = sim.port_clock(port).edge_time(k + interval);
            cx.schedule(next, DtpEvent::Timer(port as u32));
        }
    }

    fn send(&mut self, port: usize, kind: MsgType, forced: bool, timer: bool, cx: &mut Cx<'_, DtpEvent>) {
        if kind == MsgType::Init && !forced {
            let sim = cx.sim();
            let node = sim.ports[port].node;
            let now = cx.now();
            let g = self.global(sim, node, now);
            let c = port_count(sim, port, now);
            // T0: lc <- gc when the link comes up
            self.ports[port].lc = Counter { base: g, at: c };
            self.ports[port].phase = Phase::Init;
        }
        self.emit(port, kind, forced, timer, cx);
    }

    fn timer(&mut self, port: usize, cx: &mut Cx<'_, DtpEvent>) {
        let every = self.cfg.msb_every.max(1);
        // T3, with the high bits sent now and then instead of a BEACON
        let kind = if self.ports[port].sent % every == every - 1 { MsgType::BeaconMsb } else { MsgType::Beacon };
        self.emit(port, kind, false, true, cx);
    }

    /// Applies a BEACON-JOIN received `elapsed` cycles ago: the max rule without the jump guard,
    /// re-flooding to the other ports after a big jump.
    fn join(&mut self, port: usize, payload: u64, elapsed: u64, cx: &mut Cx<'_, DtpEvent>) {
        let sim = cx.sim();
        let now = cx.now();
        let count = port_count(sim, port, now);
        let node = sim.ports[port].node;
        let limit = self.cfg.jump_limit as u128;
        let st = &self.ports[port];
        let lc_now = st.lc.value(count);
        let full = match st.peer_msb {
            Some(h) => ((h as u128) << PAYLOAD_BITS) | payload as u128,
            None => nearest_with_lsb(payload, lc_now),
        };
        let cand = full + st.d as u128 + elapsed as u128;
        if cand <= lc_now {
            return;
        }
        let before = self.global(sim, node, now);
        self.ports[port].lc = Counter { base: cand, at: count };
        self.fold_global(sim, node, now);
        if cand > before + limit {
            for &p in &sim.node_ports[node] {
                if p != port && self.ports[p].phase == Phase::Beacon {
                    let send =
                        DtpEvent::Send { port: p as u32, kind: MsgType::BeaconJoin, forced: false, timer: false };
                    cx.schedule(now, send);
                }
            }
        }
    }

    fn receive(&mut self, port: usize, word: u64, cx: &mut Cx<'_, DtpEvent>) {
        let Some((kind, payload)) = decode(word) else {
            self.report.corrupted += 1;
            return;
        };
        let sim = cx.sim();
        let now = cx.now();
        let count = port_count(sim, port, now);
        let node = sim.ports[port].node;
        let (alpha, limit, interval) = (self.cfg.alpha, self.cfg.jump_limit as u128, self.cfg.beacon_interval);
        let st = &mut self.ports[port];
        let lc_now = st.lc.value(count);
        match (kind, st.phase) {
            (MsgType::Init, _) => {
                // T1: echo the counter
                st.echo = payload;
                self.emit(port, MsgType::InitAck, false, false, cx);
            }
            (MsgType::InitAck, Phase::Init) => {
                // T2: d = (lc - c - α) / 2
                let rtt = (lc_now as u64).wrapping_sub(payload) & PAYLOAD_MASK;
                st.d = rtt.saturating_sub(alpha) / 2;
                st.phase = Phase::Beacon;
                let pending = st.pending_join.take();
                self.emit(port, MsgType::BeaconMsb, false, false, cx);
                let join = DtpEvent::Send { port: port as u32, kind: MsgType::BeaconJoin, forced: false, timer: false };
                cx.schedule(now, join);
                let first = sim.port_clock(port).edge_time(count + interval);
                cx.schedule(first, DtpEvent::Timer(port as u32));
                if let Some((payload, at)) = pending {
                    self.join(port, payload, count - at, cx);
                }
            }
            (MsgType::BeaconMsb, _) => st.peer_msb = Some(payload),
            (MsgType::Beacon, Phase::Beacon) => {
                // T4, with the bit-error guard measured against the device's own best counter
                let cand = nearest_with_lsb(payload, lc_now) + st.d as u128;
                if cand <= lc_now {
                    return;
                }
                if cand > self.global(sim, node, now) + limit {
                    self.report.rejected += 1;
                } else {
                    self.ports[port].lc = Counter { base: cand, at: count };
                    self.fold_global(sim, node, now);
                }
            }
            (MsgType::BeaconJoin, Phase::Beacon) => self.join(port, payload, 0, cx),
            // our delay is not known yet: apply it once INIT-ACK arrives
            (MsgType::BeaconJoin, _) => st.pending_join = Some((payload, count)),
            _ => {}
        }
    }

    fn sample(&mut self, sim: &Sim) {
        let now = sim.now;
        let n = sim.topo.nodes.len();
        let vals: Vec<u128> = (0..n).map(|i| self.global(sim, i, now)).collect();
        let (lo, hi) = (vals.iter().min().copied().unwrap_or(0), vals.iter().max().copied().unwrap_or(0));
        let off = (hi - lo).min(u64::MAX as u128) as u64;
        self.report.max_offset_ticks = self.report.max_offset_ticks.max(off);
        self.report.samples += 1;
        self.series.push((now, off));
        for l in &sim.topo.links {
            let o = vals[l.a].abs_diff(vals[l.b]).min(u64::MAX as u128) as u64;
            self.report.max_adjacent_offset_ticks = self.report.max_adjacent_offset_ticks.max(o);
        }
        if let (Some(h), Some(v)) = (&self.hops, self.report.pair_bound_violations.as_mut()) {
            for i in 0..n {
                for j in i + 1..n {
                    if vals[i].abs_diff(vals[j]) > 4 * h[i][j] as u128 {
                        *v += 1;
                    }
                }
            }
        }
        // daemon read path on every host: read issued now, value returns after the latency
        let dm = self.cfg.daemon.clone();
        let mut reads = Vec::new();
        for &hnode in &sim.hosts {
            let normal: f64 = {
                // Box-Muller on the protocol's own generator keeps runs reproducible
                let (u1, u2): (f64, f64) = (1.0 - self.rng.gen::<f64>(), self.rng.gen());
                (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
            };
            let spike = if self.rng.gen::<f64>() < dm.spike_prob { self.rng.gen::<f64>() * dm.spike_ns } else { 0.0 };
            let lat = (dm.mean_ns + dm.jitter_ns * normal + spike).max(0.0);
            reads.push((hnode, lat));
        }
        let errs: Vec<(usize, f64)> = reads
            .into_iter()
            .map(|(h, lat)| {
                let at_read = self.global(sim, h, now);
                let at_return = self.global(sim, h, now + crate::time::from_ns(lat));
                let estimate = at_read as f64 + dm.mean_ns / crate::time::to_ns(NOMINAL_CYCLE);
                (h, at_return as f64 - estimate)
            })
            .collect();
        for (h, e) in errs {
            self.report.daemon_max_error_ticks = self.report.daemon_max_error_ticks.max(e.abs().round() as u64);
            let w = &mut self.daemon_hist[h];
            w.push_back(e);
            if w.len() > dm.window.max(1) {
                w.pop_front();
            }
            if w.len() == dm.window.max(1) {
                let m = w.iter().sum::<f64>() / w.len() as f64;
                self.report.daemon_max_smoothed_error_ticks =
                    self.report.daemon_max_smoothed_error_ticks.max(m.abs().round() as u64);
            }
        }
    }
}

/// Transmit-clock edges of `port` up to `t`.
fn port_count(sim: &Sim, port: usize, t: Time) -> u64 {
    sim.port_clock(port).count_le(t)
}

impl Protocol for Dtp {
    type Event = DtpEvent;

    fn start(&mut self, cx: &mut Cx<'_, DtpEvent>) {
        for p in 0..self.ports.len() {
            let t = self.rng.gen_range(0..self.cfg.link_up_spread.max(1));
            cx.schedule(t, DtpEvent::Send { port: p as u32, kind: MsgType::Init, forced: false, timer: false });
        }
        cx.sample_every(self.cfg.warmup, self.cfg.sample_interval);
    }

    // Inlined into the simulator's dispatch: in a DTP run most events are DTP's.
    #[inline]
    fn on_event(&mut self, event: DtpEvent, cx: &mut Cx<'_, DtpEvent>) {
        match event {
            DtpEvent::Send { port, kind, forced, timer } => self.send(port as usize, kind, forced, timer, cx),
            DtpEvent::Timer(port) => self.timer(port as usize, cx),
            DtpEvent::Rx { port, word } => self.receive(port as usize, word, cx),
        }
    }

    fn on_sample(&mut self, sim: &Sim) {
        self.sample(sim);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn message_bits_round_trip_through_an_e_block() {
        // type 3 in bits 53..55, parity of the LSBs 111 (odd) in bit 52, 52 payload bits
        let w = encode(MsgType::Beacon, 0xf_ffff_ffff_ffff);
        assert_eq!(w, 0x7f_ffff_ffff_ffff);
        assert_eq!(encode(MsgType::Init, 0b110), 1 << 53 | 0b110);
        let block = to_control_block(w);
        assert_eq!(block & 0xff, 0x1e);
        assert_eq!(strip_control_block(block), (Some((MsgType::Beacon, 0xf_ffff_ffff_ffff)), 0x1e));
        // an idle /E/ block carries no message
        assert_eq!(strip_control_block(0x1e), (None, 0x1e));
        // type 0, 6 and 7 are not messages; data blocks pass untouched
        assert_eq!(decode(7 << 53), None);
        assert_eq!(strip_control_block(0x78), (None, 0x78));
    }

    #[test]
    fn parity_catches_a_single_bit_error_in_the_three_lsbs() {
        let w = encode(MsgType::Beacon, 0x1234_5678_9abc);
        assert_eq!(decode(w), Some((MsgType::Beacon, 0x1234_5678_9abc)));
        for bit in 0..3 {
            assert_eq!(decode(w ^ 1 << bit), None, "bit {bit}");
        }
        assert_eq!(decode(w ^ 1 << PARITY_BIT), None);
        // above the LSBs the parity is blind; the receiver's jump guard handles those
        assert_eq!(decode(w ^ 1 << 3), Some((MsgType::Beacon, 0x1234_5678_9abc ^ 8)));
    }

    #[test]
    fn lsb_reconstruction_wraps() {
        let m = 1u128 << PAYLOAD_BITS;
        assert_eq!(nearest_with_lsb(5, m + 3), m + 5);
        assert_eq!(nearest_with_lsb((m - 2) as u64, m + 3), m - 2);
        assert_eq!(nearest_with_lsb(1, m - 1), m + 1);
        assert_eq!(nearest_with_lsb(9, 4), 9);
    }
}

//! The frame-level network: ports with exact per-port transmit clocks, links with propagation
//! delay, hosts, and switches (store-and-forward or cut-through) with finite output queues.
//!
//! Invariants:
//! - every frame start sits on a 4-byte lane boundary of its transmitter's byte clock (8 bytes per
//!   oscillator edge), separated from the previous frame by the IFG under the deficit idle count
//!   rule, so wire times are exact for that port's oscillator;
//! - a port is `busy` from the start of a frame until its `TxDone`; queued frames start at TxDone;
//! - idle blocks are never simulated: only frame starts/ends and protocol messages are events;
//! - the core knows no protocol: protocols run on it through [`protocol`], and the frames and
//!   events of a protocol are opaque here but for the protocol they belong to.

pub mod protocol;

use crate::events::{Due, EventQueue};
use crate::oscillator::{Oscillator, Wander};
use crate::time::{Time, BYTE_TIME, IFG, NOMINAL_CYCLE, PREAMBLE, PROPAGATION_PER_M};
use crate::topology::{NodeKind, Topology};
use crate::traffic::{Dest, Source};
use protocol::{Action, Hosted, ProtocolId};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::cell::RefCell;
use std::collections::VecDeque;

/// How a switch forwards.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, clap::ValueEnum)]
pub enum Forwarding {
    /// Receive the whole frame into the shared buffer, then schedule it.
    StoreAndForward,
    /// Start forwarding once the first 64 bytes are in.
    CutThrough,
}

/// Timing model of a switch.
#[derive(Clone, Debug, PartialEq)]
pub struct SwitchModel {
    /// Forwarding mode.
    pub forwarding: Forwarding,
    /// Lookup pipeline latency in core-clock cycles.
    pub pipeline_cycles: u64,
    /// Store-and-forward only: the buffer manager hands frames to output ports in a round robin
    /// of `sched_ports` slots of `sched_slot_cycles` core cycles; a buffered frame waits for its
    /// port's slot. This is where a store-and-forward switch's IPD spread comes from here.
    pub sched_ports: u64,
    /// Core cycles per scheduler slot.
    pub sched_slot_cycles: u64,
    /// Output queue capacity per port, bytes.
    pub buffer_bytes: u64,
}

impl Default for SwitchModel {
    fn default() -> Self {
        SwitchModel {
            forwarding: Forwarding::StoreAndForward,
            pipeline_cycles: 40,
            sched_ports: 48,
            sched_slot_cycles: 1,
            buffer_bytes: 256 * 1024,
        }
    }
}

/// Network-wide settings.
#[derive(Clone, Debug, PartialEq)]
pub struct NetConfig {
    /// Seed for every random choice (oscillators, CDC, traffic).
    pub seed: u64,
    /// Oscillator offsets are drawn uniformly from ±`max_ppm` (at most 100).
    pub max_ppm: f64,
    /// Optional random-walk wander.
    pub wander: Option<Wander>,
    /// Give every port its own oscillator instead of one per device.
    pub per_port_oscillators: bool,
    /// Bit error rate on every link (0 = none).
    pub ber: f64,
    /// Switch timing.
    pub switch: SwitchModel,
    /// NIC transmit queue capacity, bytes.
    pub host_queue_bytes: u64,
    /// PHY latency (TX plus RX PCS/PMA pipeline) in nominal cycles, on top of propagation.
    pub phy_latency_cycles: u64,
    /// Oscillator wander is generated up to here; runs should not go beyond.
    pub horizon: Time,
}

impl Default for NetConfig {
    fn default() -> Self {
        NetConfig {
            seed: 1,
            max_ppm: 100.0,
            wander: None,
            per_port_oscillators: false,
            ber: 0.0,
            switch: SwitchModel::default(),
            host_queue_bytes: 1 << 20,
            phy_latency_cycles: 36,
            horizon: crate::time::UNITS_PER_SEC,
        }
    }
}

/// What a frame carries, as far as the simulator cares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FrameKind {
    /// Ordinary traffic.
    Data,
    /// A message of protocol `id`, of the protocol's own message type `msg`: delivered to that
    /// protocol, and shown to it as it leaves the host that made it.
    Protocol {
        /// The protocol.
        id: ProtocolId,
        /// Message type, in the protocol's own numbering.
        msg: u8,
    },
}

/// A frame in flight.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Frame {
    /// Sending node.
    pub src: u32,
    /// Destination node.
    pub dst: u32,
    /// Length in bytes, header to FCS.
    pub len: u32,
    /// Kind.
    pub kind: FrameKind,
    /// Flow id.
    pub flow: u32,
    /// Payload word (sequence numbers, timestamps).
    pub tag: u64,
    /// Second payload word.
    pub tag2: u64,
}

/// One port (one end of a link).
#[derive(Clone, Debug)]
pub struct Port {
    /// Owning node.
    pub node: usize,
    /// The port at the other end of the cable.
    pub peer: usize,
    /// Oscillator clocking this port's transmitter.
    pub osc: usize,
    /// Propagation plus PHY latency to the peer.
    pub latency: Time,
    queue: VecDeque<Frame>,
    queued_bytes: u64,
    cap: u64,
    busy: bool,
    last_end_pos: Option<u64>,
    deficit: u64,
    /// End time of the frame on the wire (or last sent).
    pub cur_end: Time,
    /// Frames dropped at this output queue.
    pub drops: u64,
    /// Frames sent.
    pub tx_frames: u64,
    /// Frames received with errors (bit errors on the link into this port's peer).
    pub rx_errors: u64,
}

/// Records start-of-frame times of data frames delivered to one node.
#[derive(Clone, Debug, Default)]
pub struct Capture {
    /// Node captured.
    pub node: usize,
    /// (start-of-frame time, length).
    pub frames: Vec<(Time, u32)>,
}

/// Network counters.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct NetStats {
    /// Frames delivered to hosts.
    pub delivered: u64,
    /// Frames dropped at full queues.
    pub dropped: u64,
    /// Frames lost to bit errors.
    pub corrupted: u64,
    /// Frames with no route.
    pub unroutable: u64,
    /// Events processed.
    pub events: u64,
}

/// The core's events. A protocol's events are not among them: the queue holds their keys and
/// the protocol their payloads ([`EventQueue::push_away`]).
#[derive(Clone, Debug)]
enum Ev {
    TxDone(u32),
    Forward { out: u32, frame: Frame },
    Deliver { port: u32, frame: Frame, sof: Time },
    Gen(u32),
    Sample,
}

/// Longest path, in hops, that routing supports (hop counts are stored in a byte; 255 means
/// unreachable). [`Sim::check_routes`] refuses topologies with longer paths to a host.
pub const MAX_ROUTE_HOPS: u32 = 254;

/// The simulator.
pub struct Sim {
    /// The topology simulated.
    pub topo: Topology,
    /// Settings.
    pub cfg: NetConfig,
    /// Current time.
    pub now: Time,
    /// Pending events. In a cell because protocols schedule their events while the simulator
    /// is shared with them, one push at a time; the core reaches it through `get_mut`, at no
    /// cost.
    q: RefCell<EventQueue<Ev>>,
    /// All oscillators.
    pub oscs: Vec<Oscillator>,
    /// Device (core) oscillator of each node.
    pub node_osc: Vec<usize>,
    /// Ports of each node.
    pub node_ports: Vec<Vec<usize>>,
    /// All ports.
    pub ports: Vec<Port>,
    dist: Vec<Vec<u8>>,
    /// Hops from a host to the farthest node it reaches (routes hold at most [`MAX_ROUTE_HOPS`]).
    farthest_host: u32,
    host_index: Vec<u32>,
    /// Hosts (node indices).
    pub hosts: Vec<usize>,
    rng: ChaCha8Rng,
    /// Traffic sources.
    pub sources: Vec<Source>,
    /// Counters.
    pub stats: NetStats,
    /// Optional capture.
    pub capture: Option<Capture>,
    /// Installed protocols, in installation order (`None` only while one of them is called).
    protocols: Vec<Option<Box<dyn Hosted>>>,
    /// Protocols shown the data frames hosts send, in the order they asked.
    host_taps: Vec<ProtocolId>,
    /// Protocols sampled at each sampling tick, in the order they asked.
    samplers: Vec<ProtocolId>,
    /// Actions protocols asked for and the core has not carried out yet (a cell for the same
    /// reason as `q`).
    actions: RefCell<Vec<Action>>,
    sampling: Option<Time>,
}

fn mix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

impl Sim {
    /// Builds the network: oscillators with offsets uniform in ±max_ppm and random phases,
    /// ports, and shortest-path routes (equal-cost paths chosen by a flow hash).
    pub fn new(topo: Topology, cfg: NetConfig) -> Self {
        let mut rng = ChaCha8Rng::seed_from_u64(cfg.seed);
        let adj = topo.adjacency();
        let mut oscs = Vec::new();
        let mut new_osc = |rng: &mut ChaCha8Rng| {
            let ppm = if cfg.max_ppm > 0.0 { rng.gen_range(-cfg.max_ppm..=cfg.max_ppm) } else { 0.0 };
            let phase = rng.gen_range(0..NOMINAL_CYCLE);
            let seed = rng.gen();
            oscs.push(Oscillator::new(ppm, phase, cfg.wander, seed, cfg.horizon));
            oscs.len() - 1
        };
        let node_osc: Vec<usize> = (0..topo.nodes.len()).map(|_| new_osc(&mut rng)).collect();
        let mut ports = Vec::new();
        let mut node_ports = vec![Vec::new(); topo.nodes.len()];
        for (li, l) in topo.links.iter().enumerate() {
            let _ = li;
            let latency =
                (l.length_m * PROPAGATION_PER_M as f64).round() as Time + cfg.phy_latency_cycles * NOMINAL_CYCLE;
            for (me, other) in [(l.a, l.b), (l.b, l.a)] {
                let _ = other;
                let osc = if cfg.per_port_oscillators { new_osc(&mut rng) } else { node_osc[me] };
                let cap =
                    if topo.nodes[me].kind == NodeKind::Host { cfg.host_queue_bytes } else { cfg.switch.buffer_bytes };
                ports.push(Port {
                    node: me,
                    peer: 0,
                    osc,
                    latency,
                    queue: VecDeque::new(),
                    queued_bytes: 0,
                    cap,
                    busy: false,
                    last_end_pos: None,
                    deficit: 0,
                    cur_end: 0,
                    drops: 0,
                    tx_frames: 0,
                    rx_errors: 0,
                });
                node_ports[me].push(ports.len() - 1);
            }
            let n = ports.len();
            ports[n - 2].peer = n - 1;
            ports[n - 1].peer = n - 2;
        }
        let hosts = topo.hosts();
        let mut host_index = vec![u32::MAX; topo.nodes.len()];
        for (i, &h) in hosts.iter().enumerate() {
            host_index[h] = i as u32;
        }
        let mut dist = vec![vec![u8::MAX; hosts.len()]; topo.nodes.len()];
        let mut farthest_host = 0u32;
        for (hi, &h) in hosts.iter().enumerate() {
            for (n, d) in topo.hops_from(h, &adj).into_iter().enumerate() {
                if d != u32::MAX {
                    farthest_host = farthest_host.max(d);
                }
                dist[n][hi] = d.min(u8::MAX as u32) as u8;
            }
        }
        let seed2 = rng.gen();
        Sim {
            topo,
            cfg,
            now: 0,
            q: RefCell::default(),
            oscs,
            node_osc,
            node_ports,
            ports,
            dist,
            farthest_host,
            host_index,
            hosts,
            rng: ChaCha8Rng::seed_from_u64(seed2),
            sources: Vec::new(),
            stats: NetStats::default(),
            capture: None,
            protocols: Vec::new(),
            host_taps: Vec::new(),
            samplers: Vec::new(),
            actions: RefCell::default(),
            sampling: None,
        }
    }

    /// A reproducible generator for component `salt` (sources, protocols).
    pub fn sub_rng(&self, salt: u64) -> ChaCha8Rng {
        ChaCha8Rng::seed_from_u64(mix(self.cfg.seed ^ mix(salt)))
    }

    /// Adds a traffic source; it starts at its `start` time.
    pub fn add_source(&mut self, s: Source) {
        let start = s.start;
        self.sources.push(s);
        self.q.get_mut().push(start, Ev::Gen((self.sources.len() - 1) as u32));
    }

    /// The output port at `node` towards host `dst`, choosing among equal-cost ports by a hash of
    /// the flow.
    pub fn route(&self, node: usize, frame: &Frame) -> Option<usize> {
        let hi = *self.host_index.get(frame.dst as usize)? as usize;
        let here = *self.dist.get(node)?.get(hi)?;
        if here == 0 || here == u8::MAX {
            return None;
        }
        let ports = &self.node_ports[node];
        let cands = ports.iter().filter(|&&p| self.dist[self.ports[self.ports[p].peer].node][hi] == here - 1).count();
        if cands == 0 {
            return None;
        }
        let pick =
            (mix(((frame.src as u64) << 32) ^ frame.dst as u64 ^ ((frame.flow as u64) << 16)) % cands as u64) as usize;
        ports.iter().copied().filter(|&p| self.dist[self.ports[self.ports[p].peer].node][hi] == here - 1).nth(pick)
    }

    /// Hands a frame to `port`'s output queue (dropping it when full).
    fn enqueue(&mut self, port: usize, frame: Frame) {
        let p = &mut self.ports[port];
        if !p.busy {
            let now = self.now;
            self.start_tx(port, frame, now);
        } else if p.queued_bytes + frame.len as u64 <= p.cap {
            p.queued_bytes += frame.len as u64;
            p.queue.push_back(frame);
        } else {
            p.drops += 1;
            self.stats.dropped += 1;
        }
    }

    /// Puts a frame at the head of `port`'s queue (paced probes bypass queued traffic).
    fn enqueue_front(&mut self, port: usize, frame: Frame) {
        let p = &mut self.ports[port];
        if !p.busy {
            let now = self.now;
            self.start_tx(port, frame, now);
        } else {
            p.queued_bytes += frame.len as u64;
            p.queue.push_front(frame);
        }
    }

    /// First frame start position at or after `earliest` obeying IFG and the deficit idle count.
    fn start_pos(&mut self, port: usize, earliest: Time) -> u64 {
        let p = &self.ports[port];
        let want = self.oscs[p.osc].byte_pos_at_or_after(earliest);
        let aligned = want.div_ceil(4) * 4;
        let Some(end) = p.last_end_pos else {
            return aligned;
        };
        let nominal = end + IFG;
        let p = &mut self.ports[port];
        if want > nominal {
            // a longer idle period than the IFG: nothing to borrow back
            p.deficit = 0;
            return aligned;
        }
        let r = nominal % 4;
        if r == 0 {
            nominal
        } else if p.deficit + r <= 3 {
            p.deficit += r;
            nominal - r
        } else {
            p.deficit = p.deficit.saturating_sub(4 - r);
            nominal + 4 - r
        }
    }

    /// Starts sending `frame` on `port` at the first allowed position at or after `earliest`.
    fn start_tx(&mut self, port: usize, mut frame: Frame, earliest: Time) {
        let start = self.start_pos(port, earliest);
        let end = start + PREAMBLE + frame.len as u64;
        let osc = &self.oscs[self.ports[port].osc];
        let (ts, te) = (osc.byte_time(start), osc.byte_time(end));
        let node = self.ports[port].node;
        if let FrameKind::Protocol { id, .. } = frame.kind {
            if frame.src as usize == node {
                // the owner may timestamp its frame now, as a transmitting PHY would
                self.with_protocol(id, |p, sim| p.transmit(node, &mut frame, ts, sim));
            }
        }
        let p = &mut self.ports[port];
        p.busy = true;
        p.last_end_pos = Some(end);
        p.cur_end = te;
        p.tx_frames += 1;
        let (peer, latency) = (p.peer, p.latency);
        self.q.get_mut().push(te, Ev::TxDone(port as u32));
        let (sof, eof) = (ts + latency, te + latency);
        if self.cfg.ber > 0.0 {
            let bits = (frame.len as f64 + PREAMBLE as f64) * 8.25;
            if self.rng.gen::<f64>() < 1.0 - (1.0 - self.cfg.ber).powf(bits) {
                self.ports[peer].rx_errors += 1;
                self.stats.corrupted += 1;
                return;
            }
        }
        let m = self.ports[peer].node;
        if self.topo.nodes[m].kind == NodeKind::Host {
            self.q.get_mut().push(eof, Ev::Deliver { port: peer as u32, frame, sof });
            return;
        }
        let Some(out) = self.route(m, &frame) else {
            self.stats.unroutable += 1;
            return;
        };
        let sw = &self.cfg.switch;
        let ready = match sw.forwarding {
            Forwarding::StoreAndForward => eof,
            Forwarding::CutThrough => eof.min(sof + (PREAMBLE + 64) * BYTE_TIME),
        };
        let core = &self.oscs[self.node_osc[m]];
        // ingress synchroniser: the next core edge, plus 0 or 1 cycle of metastability wait
        let mut k = core.first_edge_at_or_after(ready) + self.rng.gen_range(0..=1u64) + sw.pipeline_cycles;
        if sw.forwarding == Forwarding::StoreAndForward && sw.sched_ports > 0 {
            let round = sw.sched_ports * sw.sched_slot_cycles.max(1);
            let slot = (out as u64 % sw.sched_ports) * sw.sched_slot_cycles.max(1);
            k += (slot + round - k % round) % round;
        }
        let at = core.edge_time(k);
        self.q.get_mut().push(at, Ev::Forward { out: out as u32, frame });
    }

    fn tx_done(&mut self, port: usize) {
        let p = &mut self.ports[port];
        p.busy = false;
        if let Some(f) = p.queue.pop_front() {
            p.queued_bytes -= f.len as u64;
            let now = self.now;
            self.start_tx(port, f, now);
        }
    }

    /// Whether `port` is transmitting a frame at `t`, and when that frame ends: the next idle
    /// slot, where a message carried in idle blocks goes without displacing a frame.
    pub fn frame_end_after(&self, port: usize, t: Time) -> Option<Time> {
        let p = &self.ports[port];
        (p.busy && p.cur_end > t).then_some(p.cur_end)
    }

    /// The device (core) clock of `node`.
    pub fn node_clock(&self, node: usize) -> &Oscillator {
        &self.oscs[self.node_osc[node]]
    }

    /// The clock of `port`'s transmitter (the device clock unless ports have their own).
    pub fn port_clock(&self, port: usize) -> &Oscillator {
        &self.oscs[self.ports[port].osc]
    }

    /// Sends a frame from host `node`; a data frame goes past the protocols tapping host sends
    /// first, and one of them may take it.
    fn host_send(&mut self, node: usize, frame: Frame) {
        if frame.kind == FrameKind::Data {
            for i in 0..self.host_taps.len() {
                let id = self.host_taps[i];
                if self.with_protocol(id, |p, sim| p.host_send(node, &frame, sim)) == Some(true) {
                    return;
                }
            }
        }
        let port =
            if self.node_ports[node].len() == 1 { Some(self.node_ports[node][0]) } else { self.route(node, &frame) };
        match port {
            Some(p) => self.enqueue(p, frame),
            None => self.stats.unroutable += 1,
        }
    }

    fn gen(&mut self, s: usize) {
        let now = self.now;
        let (lens, next) = self.sources[s].burst(now);
        let n = self.hosts.len();
        let src = &mut self.sources[s];
        let (node, flow, count) = (src.node, src.flow, src.count);
        let mut frames = Vec::with_capacity(lens.len());
        for len in lens {
            let dst = match src.dest {
                Dest::Node(d) => d,
                Dest::RandomHost if n >= 2 => {
                    let mut d = self.hosts[src.rng.gen_range(0..n)];
                    while d == node {
                        d = self.hosts[src.rng.gen_range(0..n)];
                    }
                    d
                }
                Dest::RandomHost => continue,
            };
            frames.push(Frame {
                src: node as u32,
                dst: dst as u32,
                len,
                kind: FrameKind::Data,
                flow,
                tag: count,
                tag2: 0,
            });
        }
        for f in frames {
            self.host_send(node, f);
        }
        if let Some(t) = next {
            self.q.get_mut().push(t, Ev::Gen(s as u32));
        }
    }

    fn deliver(&mut self, port: usize, frame: Frame, sof: Time) {
        self.stats.delivered += 1;
        let node = self.ports[port].node;
        match frame.kind {
            FrameKind::Data => {
                if let Some(c) = self.capture.as_mut().filter(|c| c.node == node) {
                    c.frames.push((sof, frame.len));
                }
            }
            FrameKind::Protocol { id, .. } => {
                self.with_protocol(id, |p, sim| p.frame(node, &frame, sof, sim));
            }
        }
    }

    /// An error if some node is more than [`MAX_ROUTE_HOPS`] hops from a host: its hop count would
    /// read as "unreachable" and frames would be dropped for want of a route, without a word.
    pub fn check_routes(&self) -> Result<(), String> {
        if self.farthest_host > MAX_ROUTE_HOPS {
            return Err(format!(
                "a node is {} hops from a host; routing supports at most {MAX_ROUTE_HOPS}",
                self.farthest_host
            ));
        }
        Ok(())
    }

    /// Runs until `end` (events after it stay pending), calling `progress` with the current time
    /// every so often.
    pub fn run_until(&mut self, end: Time, mut progress: impl FnMut(Time)) {
        self.run_until_while(end, |t| {
            progress(t);
            true
        });
    }

    /// [`Sim::run_until`], but `keep_going` (called with the current time every 65536 events)
    /// can stop the run early by returning false (Ctrl-C). Returns the time reached: `end`, or
    /// the time of the last event handled when stopped (events after it stay pending).
    pub fn run_until_while(&mut self, end: Time, mut keep_going: impl FnMut(Time) -> bool) -> Time {
        while let Some(t) = self.q.get_mut().peek_time() {
            if t > end {
                break;
            }
            let Some((t, ev)) = self.q.get_mut().pop_due() else { break };
            self.now = t;
            self.stats.events += 1;
            if self.stats.events.is_multiple_of(65_536) && !keep_going(t) {
                self.dispatch(ev);
                return self.now;
            }
            self.dispatch(ev);
        }
        self.now = self.now.max(end);
        self.now
    }

    #[inline]
    fn dispatch(&mut self, ev: Due<Ev>) {
        match ev {
            Due::Held(Ev::TxDone(p)) => self.tx_done(p as usize),
            Due::Held(Ev::Forward { out, frame }) => self.enqueue(out as usize, frame),
            Due::Held(Ev::Deliver { port, frame, sof }) => self.deliver(port as usize, frame, sof),
            Due::Held(Ev::Gen(s)) => self.gen(s as usize),
            Due::Held(Ev::Sample) => self.sample(),
            Due::Away { owner, slot } => {
                self.with_protocol(ProtocolId::from_owner(owner), |p, sim| p.event(slot, sim));
            }
        }
    }

    /// Starts the sampling tick at `first`, or, when it runs already, keeps its start and takes
    /// the shorter interval: one event samples every protocol that asked.
    fn schedule_sampling(&mut self, first: Time, interval: Time) {
        let interval = interval.max(1);
        match self.sampling {
            None => {
                self.sampling = Some(interval);
                self.q.get_mut().push(first, Ev::Sample);
            }
            Some(iv) => self.sampling = Some(iv.min(interval)),
        }
    }

    fn sample(&mut self) {
        for i in 0..self.samplers.len() {
            let id = self.samplers[i];
            self.with_protocol(id, |p, sim| p.sample(sim));
        }
        if let Some(iv) = self.sampling {
            let now = self.now;
            self.q.get_mut().push(now + iv, Ev::Sample);
        }
    }

    /// Frames dropped at each port's queue, summed per node.
    pub fn drops_by_node(&self) -> Vec<u64> {
        let mut v = vec![0; self.topo.nodes.len()];
        for p in &self.ports {
            v[p.node] += p.drops;
        }
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::{from_ns, interval_for_rate};
    use crate::traffic::Pattern;

    fn line(forwarding: Forwarding) -> Sim {
        let topo = Topology::builtin("dumbbell", 10.0).unwrap();
        let cfg =
            NetConfig { max_ppm: 0.0, switch: SwitchModel { forwarding, ..Default::default() }, ..Default::default() };
        Sim::new(topo, cfg)
    }

    #[test]
    fn back_to_back_frames_follow_the_deficit_idle_count() {
        let mut sim =
            Sim::new(Topology::builtin("two", 10.0).unwrap(), NetConfig { max_ppm: 0.0, ..Default::default() });
        sim.capture = Some(Capture { node: 1, frames: Vec::new() });
        let rng = sim.sub_rng(1);
        sim.add_source(Source::new(
            0,
            Dest::Node(1),
            0,
            Pattern::Cbr { len: 1518, gbps: 10.0 },
            0,
            from_ns(100_000.0),
            rng,
        ));
        sim.run_until(from_ns(200_000.0), |_| {});
        let c = sim.capture.as_ref().unwrap();
        assert_eq!(c.frames.len() as u64, from_ns(100_000.0).div_ceil(interval_for_rate(1518, 10.0)));
        // 1526 bytes of preamble and frame end on lane 2, so the deficit idle count alternates a
        // 10- and a 14-byte gap, averaging the 12-byte IFG
        let ipds: Vec<Time> = c.frames.windows(2).map(|w| (w[1].0 - w[0].0) / BYTE_TIME).collect();
        assert_eq!(&ipds[..4], &[1536, 1540, 1536, 1540]);
        assert!(ipds.chunks(2).all(|p| p.len() < 2 || p[0] + p[1] == 2 * 1538));
        assert_eq!(sim.stats.dropped, 0);
    }

    #[test]
    fn frames_cross_the_dumbbell() {
        let mut sim = line(Forwarding::StoreAndForward);
        let (mp0, mp1) = (sim.topo.node("mp0").unwrap(), sim.topo.node("mp1").unwrap());
        sim.capture = Some(Capture { node: mp1, frames: Vec::new() });
        let rng = sim.sub_rng(1);
        sim.add_source(Source::new(
            mp0,
            Dest::Node(mp1),
            0,
            Pattern::Cbr { len: 1518, gbps: 9.0 },
            0,
            from_ns(100_000.0),
            rng,
        ));
        sim.run_until(from_ns(200_000.0), |_| {});
        assert_eq!(sim.capture.as_ref().unwrap().frames.len(), 74);
        assert_eq!((sim.stats.delivered, sim.stats.dropped), (74, 0));
    }

    #[test]
    fn cut_through_is_faster_than_store_and_forward() {
        let first = |f| {
            let mut sim = line(f);
            let (mp0, mp1) = (sim.topo.node("mp0").unwrap(), sim.topo.node("mp1").unwrap());
            sim.capture = Some(Capture { node: mp1, frames: Vec::new() });
            let rng = sim.sub_rng(1);
            sim.add_source(Source::new(mp0, Dest::Node(mp1), 0, Pattern::Cbr { len: 1518, gbps: 1.0 }, 0, 1, rng));
            sim.run_until(from_ns(10_000.0), |_| {});
            sim.capture.unwrap().frames[0].0
        };
        let (sf, ct) = (first(Forwarding::StoreAndForward), first(Forwarding::CutThrough));
        // two switches each save about (1526 - 72) byte times
        assert!(sf > ct + 2 * 1400 * BYTE_TIME, "sf {sf} ct {ct}");
    }

    #[test]
    fn overload_drops_at_the_bottleneck() {
        let mut sim = line(Forwarding::StoreAndForward);
        let (mp0, n0, mp1, n1) = (
            sim.topo.node("mp0").unwrap(),
            sim.topo.node("n0").unwrap(),
            sim.topo.node("mp1").unwrap(),
            sim.topo.node("n1").unwrap(),
        );
        let stop = from_ns(2_000_000.0);
        let (r1, r2) = (sim.sub_rng(1), sim.sub_rng(2));
        sim.add_source(Source::new(mp0, Dest::Node(mp1), 0, Pattern::Cbr { len: 1518, gbps: 8.0 }, 0, stop, r1));
        sim.add_source(Source::new(n0, Dest::Node(n1), 1, Pattern::Cbr { len: 1518, gbps: 8.0 }, 0, stop, r2));
        sim.run_until(stop * 2, |_| {});
        let s0 = sim.topo.node("s0").unwrap();
        assert!(sim.drops_by_node()[s0] > 500, "{:?}", sim.drops_by_node());
        assert_eq!(
            sim.stats.delivered + sim.stats.dropped,
            sim.ports
                .iter()
                .filter(|p| sim.topo.nodes[p.node].kind == NodeKind::Host)
                .map(|p| p.tx_frames)
                .sum::<u64>()
        );
    }
}

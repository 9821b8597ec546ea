//! The protocol seam from outside the crate: protocols written against `Protocol` alone, on two
//! hosts joined by one 10 m cable, see the times the simulator's timing rules predict.

use p4_netsim::oscillator::Oscillator;
use p4_netsim::time::{Time, BYTE_TIME, NOMINAL_CYCLE, PREAMBLE, PROPAGATION_PER_M, UNITS_PER_NS};
use p4_netsim::{Cx, Frame, FrameKind, NetConfig, Protocol, Sim, Topology};

const TENTH_NS: Time = UNITS_PER_NS / 10;
/// Frames start on 4-byte lane boundaries: 3.2 ns.
const LANE: Time = 4 * BYTE_TIME;
/// One way across the cable: 10 m at 5 ns/m plus 36 cycles of PHY latency (the default), 280.4 ns.
const ONE_WAY: Time = 10 * PROPAGATION_PER_M + 36 * NOMINAL_CYCLE;

/// Two hosts `a` and `b` on 10 m of cable, with nominal clocks whose first edge is at time 0, so
/// that every clock edge and lane boundary is a multiple of its period from 0.
fn two_hosts() -> (Sim, usize, usize) {
    let mut sim = Sim::new(Topology::builtin("two", 10.0).unwrap(), NetConfig { max_ppm: 0.0, ..Default::default() });
    for osc in &mut sim.oscs {
        *osc = Oscillator::new(0.0, 0, None, 0, 0);
    }
    let (a, b) = (sim.topo.node("a").unwrap(), sim.topo.node("b").unwrap());
    (sim, a, b)
}

const PING: u8 = 0;
const PONG: u8 = 1;

fn msg(frame: &Frame) -> Option<u8> {
    match frame.kind {
        FrameKind::Protocol { msg, .. } => Some(msg),
        FrameKind::Data => None,
    }
}

/// Host `from` pings host `to` at the times given, with frames of the lengths given; `to` answers
/// each ping as soon as it has received it whole, with a pong of the same length. A round trip
/// runs from the ping's start of frame leaving `from` (the transmit timestamp the ping carries)
/// to the pong's start of frame arriving back (the receive timestamp).
struct Ping {
    from: usize,
    to: usize,
    pings: Vec<(Time, u32)>,
    /// (ping number, round trip).
    round_trips: Vec<(u64, Time)>,
}

impl Protocol for Ping {
    /// Which ping is due.
    type Event = usize;

    fn start(&mut self, cx: &mut Cx<'_, usize>) {
        for (i, &(at, _)) in self.pings.iter().enumerate() {
            cx.schedule(at, i);
        }
    }

    fn on_event(&mut self, i: usize, cx: &mut Cx<'_, usize>) {
        let (from, to, len) = (self.from as u32, self.to as u32, self.pings[i].1);
        let kind = cx.frame_kind(PING);
        cx.send(self.from, Frame { src: from, dst: to, len, kind, flow: 0, tag: i as u64, tag2: 0 });
    }

    fn on_transmit(&mut self, _node: usize, frame: &mut Frame, sof: Time, _sim: &Sim) {
        if msg(frame) == Some(PING) {
            frame.tag2 = sof;
        }
    }

    fn on_frame(&mut self, node: usize, frame: &Frame, sof: Time, cx: &mut Cx<'_, usize>) {
        match msg(frame) {
            Some(PING) => {
                let pong = Frame { src: node as u32, dst: frame.src, kind: cx.frame_kind(PONG), ..*frame };
                cx.send(node, pong);
            }
            Some(PONG) => self.round_trips.push((frame.tag, sof - frame.tag2)),
            _ => {}
        }
    }
}

#[test]
fn ping_round_trips_follow_cable_phy_latency_frame_length_and_lanes() {
    let (mut sim, a, b) = two_hosts();
    let us = |x: Time| x * 1000 * UNITS_PER_NS;
    // the third ping is due 1 unit after a lane boundary and leaves at the next one; round
    // trips count from its departure, so it takes as long as the first
    let pings = vec![(0, 64), (us(10), 1518), (us(20) + 1, 64)];
    let ping = sim.install(Ping { from: a, to: b, pings, round_trips: Vec::new() });
    sim.run_until(us(40), |_| {});
    let p = sim.protocol(ping).unwrap();
    // The pong starts at the first lane boundary after the ping is in whole (preamble and frame
    // after its start, one way later), and reaches `a` one way later:
    //   64 B:   72 bytes (57.6 ns) + 280.4 ns = 338 ns, next lane 339.2 ns; + 280.4 = 619.6 ns
    //   1518 B: 1526 bytes (1220.8 ns) + 280.4 = 1501.2 ns, next lane 1504 ns; + 280.4 = 1784.4 ns
    let rtt = |len: Time| ((PREAMBLE + len) * BYTE_TIME + ONE_WAY).next_multiple_of(LANE) + ONE_WAY;
    assert_eq!((rtt(64), rtt(1518)), (6196 * TENTH_NS, 17_844 * TENTH_NS));
    assert_eq!(p.round_trips, vec![(0, rtt(64)), (1, rtt(1518)), (2, rtt(64))]);
    assert_eq!((sim.stats.delivered, sim.stats.dropped, sim.stats.unroutable), (6, 0, 0));
}

/// Sends one 64-byte frame from `from` to `to` at 0 and, in the same handler, schedules a marker for the
/// instant that frame is in whole at `to`; logs what it sees, in order.
struct SendThenMark {
    from: usize,
    to: usize,
    log: Vec<(&'static str, Time)>,
}

impl Protocol for SendThenMark {
    type Event = ();

    fn start(&mut self, cx: &mut Cx<'_, ()>) {
        cx.schedule(0, ());
    }

    fn on_event(&mut self, (): (), cx: &mut Cx<'_, ()>) {
        if cx.now() > 0 {
            self.log.push(("marker", cx.now()));
            return;
        }
        let kind = cx.frame_kind(0);
        let (src, dst) = (self.from as u32, self.to as u32);
        cx.send(self.from, Frame { src, dst, len: 64, kind, flow: 0, tag: 0, tag2: 0 });
        cx.schedule((PREAMBLE + 64) * BYTE_TIME + ONE_WAY, ());
    }

    fn on_frame(&mut self, _node: usize, _frame: &Frame, _sof: Time, cx: &mut Cx<'_, ()>) {
        self.log.push(("frame", cx.now()));
    }
}

#[test]
fn what_a_handler_asks_for_takes_effect_in_the_order_it_asked() {
    let (mut sim, a, b) = two_hosts();
    let h = sim.install(SendThenMark { from: a, to: b, log: Vec::new() });
    sim.run_until(1000 * UNITS_PER_NS, |_| {});
    // both due at 338 ns: the frame's arrival was queued by the send, before the marker
    let at = 3380 * TENTH_NS;
    assert_eq!(sim.protocol(h).unwrap().log, vec![("frame", at), ("marker", at)]);
}

/// Records the sampling ticks it gets.
struct Sampled {
    first: Time,
    every: Time,
    ticks: Vec<Time>,
}

impl Protocol for Sampled {
    type Event = ();

    fn start(&mut self, cx: &mut Cx<'_, ()>) {
        cx.sample_every(self.first, self.every);
    }

    fn on_event(&mut self, (): (), _cx: &mut Cx<'_, ()>) {}

    fn on_sample(&mut self, sim: &Sim) {
        self.ticks.push(sim.now);
    }
}

#[test]
fn sampling_is_one_tick_from_the_first_request_at_the_shortest_interval() {
    let (mut sim, _, _) = two_hosts();
    let slow = sim.install(Sampled { first: 100, every: 50, ticks: Vec::new() });
    let fast = sim.install(Sampled { first: 0, every: 30, ticks: Vec::new() });
    sim.run_until(200, |_| {});
    // the tick was due at 100 when the second protocol asked; from then on every 30
    let want = vec![100, 130, 160, 190];
    assert_eq!(sim.protocol(slow).unwrap().ticks, want);
    assert_eq!(sim.protocol(fast).unwrap().ticks, want);
}

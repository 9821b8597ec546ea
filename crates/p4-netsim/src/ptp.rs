//! A PTP-like packet protocol for comparison with DTP: the master sends one-step Sync messages
//! to every slave; each slave answers with a Delay_Req and gets the arrival time back in a
//! Delay_Resp. All three are ordinary frames through the same queues as the data traffic, so
//! queueing asymmetry becomes clock error, growing with load as the seed reports.
//!
//! Invariants: timestamps are hardware timestamps taken at the start of frame on the wire from
//! each host's PTP clock, which counts 6.4 ns per oscillator edge and is corrected by the servo;
//! the master's clock is never corrected.

use crate::sim::protocol::{Cx, Protocol};
use crate::sim::{Frame, FrameKind, Sim};
use crate::time::{to_ns, Time, NOMINAL_CYCLE};
use serde::Serialize;

/// PTP settings.
#[derive(Clone, Debug, PartialEq)]
pub struct PtpConfig {
    /// The grandmaster (a host node).
    pub master: usize,
    /// Time between Sync rounds.
    pub sync_interval: Time,
    /// PTP frame length in bytes.
    pub msg_len: u32,
    /// Errors are sampled this often.
    pub sample_interval: Time,
    /// Errors before this time are not counted (the servo needs two exchanges).
    pub warmup: Time,
}

#[derive(Clone, Copy, Debug, Default)]
struct Clock {
    anchor_local: f64,
    anchor_ptp: f64,
    rate: f64,
}

#[derive(Clone, Debug, Default)]
struct Slave {
    clock: Clock,
    sync: Option<(f64, f64, f64)>,
    first: Option<(f64, f64)>,
    exchanges: u64,
}

/// PTP results.
#[derive(Clone, Debug, Default, Serialize)]
pub struct PtpReport {
    /// Largest |slave clock − master clock| over slaves and samples after warm-up, ns.
    pub max_abs_error_ns: f64,
    /// Mean of the per-sample largest error, ns.
    pub mean_max_error_ns: f64,
    /// Completed Sync/Delay_Req/Delay_Resp exchanges.
    pub exchanges: u64,
    /// Sync rounds started.
    pub sync_rounds: u64,
    /// Samples taken.
    pub samples: u64,
}

/// PTP's message types (the `msg` of its frames).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
enum Msg {
    /// Sync, one-step: carries the master's departure time.
    Sync = 0,
    /// Delay_Req: carries the slave's departure time.
    DelayReq = 1,
    /// Delay_Resp: carries the Delay_Req's departure time and the master's arrival time of it.
    DelayResp = 2,
}

impl Msg {
    fn of(frame: &Frame) -> Option<Msg> {
        match frame.kind {
            FrameKind::Protocol { msg: 0, .. } => Some(Msg::Sync),
            FrameKind::Protocol { msg: 1, .. } => Some(Msg::DelayReq),
            FrameKind::Protocol { msg: 2, .. } => Some(Msg::DelayResp),
            _ => None,
        }
    }
}

/// What PTP schedules for itself.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PtpEvent {
    /// The master sends Sync to every slave.
    SyncRound,
}

/// PTP with one grandmaster and every other host a slave: the protocol state and its results.
pub struct Ptp {
    cfg: PtpConfig,
    slaves: Vec<Option<Slave>>,
    sum_max: f64,
    /// Results so far.
    pub report: PtpReport,
    /// (time, largest error ns) per sample.
    pub series: Vec<(Time, f64)>,
}

fn local_ns(sim: &Sim, node: usize, t: Time) -> f64 {
    sim.node_clock(node).count_le(t) as f64 * to_ns(NOMINAL_CYCLE)
}

impl Clock {
    fn read(&self, local: f64) -> f64 {
        self.anchor_ptp + (local - self.anchor_local) * self.rate
    }
}

impl Ptp {
    /// PTP on `sim`'s hosts with `cfg.master` as grandmaster and every other host as a slave.
    pub fn new(cfg: PtpConfig, sim: &Sim) -> Self {
        let mut slaves = vec![None; sim.topo.nodes.len()];
        for &h in &sim.hosts {
            if h != cfg.master {
                slaves[h] = Some(Slave { clock: Clock { rate: 1.0, ..Default::default() }, ..Default::default() });
            }
        }
        Ptp { cfg, slaves, sum_max: 0.0, report: PtpReport::default(), series: Vec::new() }
    }

    /// The report with derived fields filled in.
    pub fn finish(&self) -> PtpReport {
        let mut r = self.report.clone();
        r.mean_max_error_ns = if r.samples == 0 { 0.0 } else { self.sum_max / r.samples as f64 };
        r
    }

    /// PTP time of host `node` at `t`.
    fn time(&self, sim: &Sim, node: usize, t: Time) -> f64 {
        let local = local_ns(sim, node, t);
        match &self.slaves[node] {
            Some(s) => s.clock.read(local),
            None => local,
        }
    }

    fn message(&self, kind: Msg, src: usize, dst: usize, cx: &Cx<'_, PtpEvent>) -> Frame {
        Frame {
            src: src as u32,
            dst: dst as u32,
            len: self.cfg.msg_len,
            kind: cx.frame_kind(kind as u8),
            flow: u32::MAX,
            tag: 0,
            tag2: 0,
        }
    }

    fn sync_round(&mut self, cx: &mut Cx<'_, PtpEvent>) {
        self.report.sync_rounds += 1;
        let master = self.cfg.master;
        for s in (0..self.slaves.len()).filter(|&i| self.slaves[i].is_some()) {
            let f = self.message(Msg::Sync, master, s, cx);
            cx.send(master, f);
        }
        cx.schedule(cx.now() + self.cfg.sync_interval, PtpEvent::SyncRound);
    }

    fn receive(&mut self, node: usize, frame: &Frame, sof: Time, cx: &mut Cx<'_, PtpEvent>) {
        let sim = cx.sim();
        let arrival = self.time(sim, node, sof);
        let local = local_ns(sim, node, sof);
        let master = self.cfg.master;
        match Msg::of(frame) {
            Some(Msg::Sync) => {
                let Some(s) = self.slaves[node].as_mut() else {
                    return;
                };
                s.sync = Some((f64::from_bits(frame.tag2), arrival, local));
                let f = self.message(Msg::DelayReq, node, master, cx);
                cx.send(node, f);
            }
            Some(Msg::DelayReq) if node == master => {
                let f = Frame {
                    dst: frame.src,
                    tag: frame.tag2,
                    tag2: arrival.to_bits(),
                    ..self.message(Msg::DelayResp, master, 0, cx)
                };
                cx.send(master, f);
            }
            Some(Msg::DelayResp) => {
                let Some(s) = self.slaves[node].as_mut() else {
                    return;
                };
                let Some((t1, t2, local2)) = s.sync.take() else {
                    return;
                };
                let (t3, t4) = (f64::from_bits(frame.tag), f64::from_bits(frame.tag2));
                let offset = ((t2 - t1) - (t4 - t3)) / 2.0;
                // frequency from the longest baseline available: the first exchange to this one
                match s.first {
                    None => s.first = Some((t1, local2)),
                    Some((t1f, l2f)) if local2 > l2f => {
                        s.clock.rate = ((t1 - t1f) / (local2 - l2f)).clamp(0.999, 1.001);
                    }
                    _ => {}
                }
                // step: re-anchor so that the clock reads (t2 - offset) at the Sync arrival
                s.clock.anchor_local = local2;
                s.clock.anchor_ptp = t2 - offset;
                s.exchanges += 1;
                self.report.exchanges += 1;
            }
            _ => {}
        }
    }
}

impl Protocol for Ptp {
    type Event = PtpEvent;

    fn start(&mut self, cx: &mut Cx<'_, PtpEvent>) {
        cx.schedule(self.cfg.sync_interval / 7, PtpEvent::SyncRound);
        cx.sample_every(self.cfg.warmup, self.cfg.sample_interval);
    }

    fn on_event(&mut self, event: PtpEvent, cx: &mut Cx<'_, PtpEvent>) {
        match event {
            PtpEvent::SyncRound => self.sync_round(cx),
        }
    }

    fn on_frame(&mut self, node: usize, frame: &Frame, sof: Time, cx: &mut Cx<'_, PtpEvent>) {
        self.receive(node, frame, sof, cx);
    }

    /// Sync and Delay_Req carry their hardware departure time, from the sender's PTP clock.
    fn on_transmit(&mut self, node: usize, frame: &mut Frame, sof: Time, sim: &Sim) {
        if matches!(Msg::of(frame), Some(Msg::Sync | Msg::DelayReq)) {
            frame.tag2 = self.time(sim, node, sof).to_bits();
        }
    }

    fn on_sample(&mut self, sim: &Sim) {
        let now = sim.now;
        let reference = self.time(sim, self.cfg.master, now);
        let worst = (0..self.slaves.len())
            .filter(|&i| self.slaves[i].as_ref().is_some_and(|s| s.exchanges >= 2))
            .map(|i| (self.time(sim, i, now) - reference).abs())
            .fold(0.0f64, f64::max);
        self.report.samples += 1;
        self.report.max_abs_error_ns = self.report.max_abs_error_ns.max(worst);
        self.sum_max += worst;
        self.series.push((now, worst));
    }
}

//! A PTP-like packet protocol for comparison with DTP: the master sends one-step Sync messages
//! to every slave; each slave answers with a Delay_Req and gets the arrival time back in a
//! Delay_Resp. All three are ordinary frames through the same queues as the data traffic, so
//! queueing asymmetry becomes clock error, growing with load as the seed reports.
//!
//! Invariants: timestamps are hardware timestamps taken at the start of frame on the wire from
//! each host's PTP clock, which counts 6.4 ns per oscillator edge and is corrected by the servo;
//! the master's clock is never corrected.

use crate::sim::{Ev, Frame, FrameKind, Sim};
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

/// Simulation state of PTP.
pub struct PtpState {
    cfg: PtpConfig,
    slaves: Vec<Option<Slave>>,
    sum_max: f64,
    /// Results so far.
    pub report: PtpReport,
    /// (time, largest error ns) per sample.
    pub series: Vec<(Time, f64)>,
}

fn local_ns(sim: &Sim, node: usize, t: Time) -> f64 {
    sim.oscs[sim.node_osc[node]].count_le(t) as f64 * to_ns(NOMINAL_CYCLE)
}

impl Clock {
    fn read(&self, local: f64) -> f64 {
        self.anchor_ptp + (local - self.anchor_local) * self.rate
    }
}

impl Sim {
    /// Enables PTP with `cfg.master` as grandmaster and every other host as a slave.
    pub fn enable_ptp(&mut self, cfg: PtpConfig) {
        let n = self.topo.nodes.len();
        let mut slaves = vec![None; n];
        for &h in &self.hosts {
            if h != cfg.master {
                slaves[h] = Some(Slave { clock: Clock { rate: 1.0, ..Default::default() }, ..Default::default() });
            }
        }
        self.q.push(cfg.sync_interval / 7, Ev::PtpSync);
        self.schedule_sampling(cfg.warmup, cfg.sample_interval);
        self.ptp = Some(PtpState { cfg, slaves, sum_max: 0.0, report: PtpReport::default(), series: Vec::new() });
    }

    /// The PTP report (None when PTP is off).
    pub fn ptp_report(&self) -> Option<PtpReport> {
        self.ptp.as_ref().map(|p| {
            let mut r = p.report.clone();
            r.mean_max_error_ns = if r.samples == 0 { 0.0 } else { p.sum_max / r.samples as f64 };
            r
        })
    }

    /// The (time, largest error) samples.
    pub fn ptp_series(&self) -> &[(Time, f64)] {
        self.ptp.as_ref().map(|p| p.series.as_slice()).unwrap_or(&[])
    }

    /// PTP time of host `node` at `t`.
    fn ptp_time(&self, node: usize, t: Time) -> f64 {
        let local = local_ns(self, node, t);
        match self.ptp.as_ref().and_then(|p| p.slaves[node].as_ref()) {
            Some(s) => s.clock.read(local),
            None => local,
        }
    }

    pub(crate) fn ptp_stamp_tx(&mut self, node: usize, frame: &mut Frame, sof: Time) {
        frame.tag2 = self.ptp_time(node, sof).to_bits();
    }

    pub(crate) fn ptp_sync_round(&mut self) {
        let Some(p) = &mut self.ptp else { return };
        p.report.sync_rounds += 1;
        let (master, len, iv) = (p.cfg.master, p.cfg.msg_len, p.cfg.sync_interval);
        let slaves: Vec<usize> = (0..p.slaves.len()).filter(|&i| p.slaves[i].is_some()).collect();
        for s in slaves {
            let f = Frame {
                src: master as u32,
                dst: s as u32,
                len,
                kind: FrameKind::PtpSync,
                flow: u32::MAX,
                tag: 0,
                tag2: 0,
            };
            self.host_send(master, f);
        }
        let now = self.now;
        self.q.push(now + iv, Ev::PtpSync);
    }

    pub(crate) fn ptp_receive(&mut self, node: usize, frame: &Frame, sof: Time) {
        let arrival = self.ptp_time(node, sof);
        let local = local_ns(self, node, sof);
        let Some(p) = &mut self.ptp else { return };
        let (master, len) = (p.cfg.master, p.cfg.msg_len);
        match frame.kind {
            FrameKind::PtpSync => {
                let Some(s) = p.slaves[node].as_mut() else {
                    return;
                };
                s.sync = Some((f64::from_bits(frame.tag2), arrival, local));
                let f = Frame {
                    src: node as u32,
                    dst: master as u32,
                    len,
                    kind: FrameKind::PtpDelayReq,
                    flow: u32::MAX,
                    tag: 0,
                    tag2: 0,
                };
                self.host_send(node, f);
            }
            FrameKind::PtpDelayReq if node == master => {
                let f = Frame {
                    src: master as u32,
                    dst: frame.src,
                    len,
                    kind: FrameKind::PtpDelayResp,
                    flow: u32::MAX,
                    tag: frame.tag2,
                    tag2: arrival.to_bits(),
                };
                self.host_send(master, f);
            }
            FrameKind::PtpDelayResp => {
                let Some(s) = p.slaves[node].as_mut() else {
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
                let corrected_at_sync = t2 - offset;
                let Some(p) = &mut self.ptp else { return };
                let Some(s) = p.slaves[node].as_mut() else {
                    return;
                };
                s.clock.anchor_local = local2;
                s.clock.anchor_ptp = corrected_at_sync;
                s.exchanges += 1;
                p.report.exchanges += 1;
            }
            _ => {}
        }
    }

    pub(crate) fn ptp_sample(&mut self) {
        let now = self.now;
        let Some(p) = &self.ptp else { return };
        let master = p.cfg.master;
        let reference = self.ptp_time(master, now);
        let worst = (0..p.slaves.len())
            .filter(|&i| p.slaves[i].as_ref().is_some_and(|s| s.exchanges >= 2))
            .map(|i| (self.ptp_time(i, now) - reference).abs())
            .fold(0.0f64, f64::max);
        let Some(p) = &mut self.ptp else { return };
        p.report.samples += 1;
        p.report.max_abs_error_ns = p.report.max_abs_error_ns.max(worst);
        p.sum_max += worst;
        p.series.push((now, worst));
    }
}

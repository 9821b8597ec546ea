//! The experiments: network load, DTP (+PTP) runs, MinProbe runs and the switch profiler, each
//! returning a serialisable summary and the series the plots need.

use crate::dtp::{Dtp, DtpConfig, DtpReport};
use crate::minprobe::{estimate, MinProbe, ProbeConfig, RatePoint, PROBE_FLOW};
use crate::oscillator::{Oscillator, Wander};
use crate::ptp::{Ptp, PtpConfig, PtpReport};
use crate::sim::{Capture, Forwarding, NetConfig, NetStats, Sim, SwitchModel};
use crate::stats::{summarize, Summary};
use crate::time::{from_ns, from_secs, interval_for_rate, to_ns, to_secs, wire_bytes, Time, BYTE_TIME};
use crate::topology::{Link, Node, NodeKind, Topology};
use crate::traffic::{replay_from_pcap, Dest, Pattern, Source};
use anyhow::{bail, Context, Result};
use p4_io::progress::Progress;
use rand::Rng;
use serde::Serialize;
use std::str::FromStr;

/// Background load on every host.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Load {
    /// No data traffic.
    Idle,
    /// Half of the hosts send 4 Gb/s of MTU frames to random hosts.
    Medium,
    /// Every host sends 9 Gb/s of MTU frames to random hosts (links saturate, queues fill).
    Heavy,
}

/// Adds `load` between `start` and `stop`: frames of `len` bytes (1518 = MTU, 9018 = jumbo)
/// with Poisson arrivals (iperf-like UDP senders) to uniformly random hosts.
pub fn add_load(sim: &mut Sim, load: Load, len: u32, start: Time, stop: Time) {
    let hosts = sim.hosts.clone();
    let (count, gbps) = match load {
        Load::Idle => return,
        Load::Medium => (hosts.len().div_ceil(2), 4.0),
        Load::Heavy => (hosts.len(), 9.0),
    };
    for (i, &h) in hosts.iter().take(count).enumerate() {
        let mut rng = sim.sub_rng(0x10ad_0000 + i as u64);
        let phase = rng.gen_range(0..interval_for_rate(len as u64, gbps));
        sim.add_source(Source::new(
            h,
            Dest::RandomHost,
            i as u32,
            Pattern::Poisson { len, gbps },
            start + phase,
            stop,
            rng,
        ));
    }
}

/// Progress in simulated µs up to `end` (see [`crate::progress`]).
fn progress_bar(show: bool, end: Time) -> Progress {
    Progress::new(show, (to_ns(end) / 1000.0) as u64, "simulated µs")
}

/// Runs `sim` to `end` with a progress bar if asked; Ctrl-C (when the command installed the
/// handler) stops it early. Returns the simulated time reached.
fn run_with_progress(sim: &mut Sim, end: Time, show: bool) -> Time {
    let pb = progress_bar(show, end);
    let reached = sim.run_until_while(end, |t| {
        pb.set_position((to_ns(t) / 1000.0) as u64);
        !p4_io::interrupt::interrupted()
    });
    pb.finish();
    reached
}

/// When a run started (before its topology and simulator were built) and how long building took:
/// reported wall time covers setup too, not only the event loop.
#[derive(Clone, Copy, Debug)]
struct Timing {
    started: std::time::Instant,
    setup_seconds: f64,
}

impl Timing {
    fn start() -> std::time::Instant {
        std::time::Instant::now()
    }

    fn setup_done(started: std::time::Instant) -> Timing {
        Timing { started, setup_seconds: started.elapsed().as_secs_f64() }
    }
}

/// Times and extent of a run.
#[derive(Clone, Copy, Debug)]
struct Ran {
    sim_seconds: f64,
    wall_seconds: f64,
    setup_seconds: f64,
    speed: f64,
    interrupted: bool,
}

/// What every network run needs: a topology under background load for a simulated time.
#[derive(Clone, Debug)]
pub struct Scenario {
    /// Topology spec (built-in or TOML path).
    pub topology: String,
    /// Cable length, metres.
    pub cable_m: f64,
    /// Simulated seconds.
    pub seconds: f64,
    /// Background load.
    pub load: Load,
    /// Frame length of the load, bytes.
    pub load_len: u32,
    /// Network settings (seed, ppm, wander, BER, switch model).
    pub net: NetConfig,
    /// Progress bar.
    pub progress: bool,
}

impl Default for Scenario {
    fn default() -> Self {
        Scenario {
            topology: "tree:2:3".into(),
            cable_m: 10.0,
            seconds: 0.01,
            load: Load::Heavy,
            load_len: 1518,
            net: NetConfig::default(),
            progress: false,
        }
    }
}

impl Scenario {
    /// The simulator of this scenario with its background load from `load_from` on, and the
    /// time the run ends.
    fn build(&self, load_from: Time) -> Result<(Sim, Time)> {
        let topo = Topology::load(&self.topology, self.cable_m)?;
        anyhow::ensure!(self.seconds > 0.0 && self.seconds <= 500.0, "--seconds must be in (0, 500]");
        let end = from_secs(self.seconds);
        let mut net = self.net.clone();
        net.horizon = end + from_ns(1_000_000.0);
        let mut sim = Sim::new(topo, net);
        sim.check_routes().map_err(|e| anyhow::anyhow!("topology `{}`: {e}", self.topology))?;
        add_load(&mut sim, self.load, self.load_len, load_from, end);
        Ok((sim, end))
    }

    /// Run `sim` to `end` (with the progress bar if asked, stopping early on Ctrl-C).
    fn run(&self, sim: &mut Sim, end: Time, timing: Timing) -> Ran {
        let reached = run_with_progress(sim, end, self.progress);
        let sim_seconds = to_secs(reached.min(end));
        let wall_seconds = timing.started.elapsed().as_secs_f64();
        Ran {
            sim_seconds,
            wall_seconds,
            setup_seconds: timing.setup_seconds,
            speed: if wall_seconds > 0.0 { sim_seconds / wall_seconds } else { f64::INFINITY },
            interrupted: reached < end,
        }
    }
}

/// Options of a DTP run.
#[derive(Clone, Debug)]
pub struct DtpOptions {
    /// Topology, load, duration, network settings.
    pub scenario: Scenario,
    /// DTP settings.
    pub dtp: DtpConfig,
    /// Also run PTP with the first host as grandmaster.
    pub ptp: bool,
    /// PTP Sync interval.
    pub ptp_sync_interval: Time,
}

impl Default for DtpOptions {
    fn default() -> Self {
        DtpOptions {
            scenario: Scenario::default(),
            dtp: DtpConfig::default(),
            ptp: true,
            ptp_sync_interval: from_ns(1_000_000.0),
        }
    }
}

/// Result of a DTP run.
#[derive(Clone, Debug, Serialize)]
pub struct DtpSummary {
    /// DTP figures (max offset, bound, hops, ...).
    #[serde(flatten)]
    pub dtp: DtpReport,
    /// Whether the max offset stayed within 4·T·D.
    pub within_bound: bool,
    /// PTP figures from the same run.
    pub ptp: Option<PtpReport>,
    /// Topology spec.
    pub topology: String,
    /// Devices.
    pub nodes: usize,
    /// Hosts.
    pub hosts: usize,
    /// Background load.
    pub load: Load,
    /// Seed.
    pub seed: u64,
    /// Simulated seconds.
    pub sim_seconds: f64,
    /// Wall-clock seconds, building the topology and simulator included.
    pub wall_seconds: f64,
    /// Of which building the topology and simulator.
    pub setup_seconds: f64,
    /// Simulated seconds per wall second.
    pub speed: f64,
    /// Ctrl-C stopped the run before `--seconds`: the figures cover `sim_seconds`.
    pub interrupted: bool,
    /// Network counters.
    pub net: NetStats,
}

/// Series for the offset plot: (ms, DTP max offset ticks) and (ms, PTP max error ns).
#[derive(Clone, Debug)]
pub struct DtpSeries {
    /// DTP.
    pub dtp: Vec<(f64, f64)>,
    /// PTP.
    pub ptp: Vec<(f64, f64)>,
}

/// Runs DTP (and PTP) on a topology under load.
pub fn run_dtp(o: &DtpOptions) -> Result<(DtpSummary, DtpSeries)> {
    let sc = &o.scenario;
    let started = Timing::start();
    let (mut sim, end) = sc.build(o.dtp.warmup / 2)?;
    anyhow::ensure!(sim.topo.is_connected(), "topology `{}` is not connected", sc.topology);
    let dtp = sim.install(Dtp::new(o.dtp.clone(), &sim));
    let ptp = (o.ptp && sim.hosts.len() >= 2).then(|| {
        let cfg = PtpConfig {
            master: sim.hosts[0],
            sync_interval: o.ptp_sync_interval,
            msg_len: 86,
            sample_interval: o.dtp.sample_interval,
            warmup: o.ptp_sync_interval * 3,
        };
        sim.install(Ptp::new(cfg, &sim))
    });
    let ran = sc.run(&mut sim, end, Timing::setup_done(started));
    let dtp = sim.protocol(dtp).context("DTP is not installed")?;
    let ptp = ptp.and_then(|h| sim.protocol(h));
    let series = DtpSeries {
        dtp: dtp.series.iter().map(|&(t, v)| (to_secs(t) * 1e3, v as f64)).collect(),
        ptp: ptp.map(|p| p.series.iter().map(|&(t, v)| (to_secs(t) * 1e3, v)).collect()).unwrap_or_default(),
    };
    let dtp = dtp.finish();
    let summary = DtpSummary {
        within_bound: dtp.max_offset_ticks <= dtp.bound_ticks,
        dtp,
        ptp: ptp.map(Ptp::finish),
        topology: sc.topology.clone(),
        nodes: sim.topo.nodes.len(),
        hosts: sim.hosts.len(),
        load: sc.load,
        seed: sim.cfg.seed,
        sim_seconds: ran.sim_seconds,
        wall_seconds: ran.wall_seconds,
        setup_seconds: ran.setup_seconds,
        speed: ran.speed,
        interrupted: ran.interrupted,
        net: sim.stats.clone(),
    };
    Ok((summary, series))
}

/// Cross traffic for MinProbe runs.
#[derive(Clone, Debug, PartialEq)]
pub enum Cross {
    /// `cbr1:RATE`: 792-byte frames, uniform gaps.
    Cbr1(f64),
    /// `cbr2:RATE[:D_SIZE[:D_LEN]]`: log-normal sizes (mean 792), geometric chains.
    Cbr2 {
        /// Rate, Gb/s.
        gbps: f64,
        /// Size knob.
        d_size: f64,
        /// Chain knob.
        d_len: f64,
    },
    /// `pcap:PATH`: replay of a capture's timing.
    Pcap(String),
}

impl FromStr for Cross {
    type Err = anyhow::Error;
    fn from_str(s: &str) -> Result<Self> {
        let parts: Vec<&str> = s.splitn(2, ':').collect();
        let num = |x: &str, what: &str| -> Result<f64> {
            let v: f64 = x.parse().with_context(|| format!("cross traffic `{s}`: {what} `{x}` is not a number"))?;
            anyhow::ensure!(v.is_finite() && v >= 0.0, "cross traffic `{s}`: {what} must be >= 0");
            Ok(v)
        };
        match (parts.first().copied(), parts.get(1).copied()) {
            (Some("cbr1"), Some(r)) => {
                let g = num(r, "rate")?;
                anyhow::ensure!(g > 0.0 && g < 10.0, "cross traffic `{s}`: rate must be in (0, 10) Gb/s");
                Ok(Cross::Cbr1(g))
            }
            (Some("cbr2"), Some(rest)) => {
                let f: Vec<&str> = rest.split(':').collect();
                let gbps = num(f[0], "rate")?;
                anyhow::ensure!(gbps > 0.0 && gbps < 10.0, "cross traffic `{s}`: rate must be in (0, 10) Gb/s");
                let d_size = f.get(1).map(|x| num(x, "D_size")).transpose()?.unwrap_or(0.5);
                let d_len = f.get(2).map(|x| num(x, "D_len")).transpose()?.unwrap_or(0.5);
                anyhow::ensure!(d_size <= 1.0 && d_len < 1.0, "cross traffic `{s}`: D_size in [0,1], D_len in [0,1)");
                Ok(Cross::Cbr2 { gbps, d_size, d_len })
            }
            (Some("pcap"), Some(p)) if !p.is_empty() => Ok(Cross::Pcap(p.to_string())),
            _ => {
                bail!("cross traffic `{s}`: use cbr1:RATE, cbr2:RATE[:D_SIZE[:D_LEN]] or pcap:PATH")
            }
        }
    }
}

impl Cross {
    fn pattern(&self) -> Result<Pattern> {
        Ok(match self {
            Cross::Cbr1(g) => Pattern::Cbr { len: 792, gbps: *g },
            Cross::Cbr2 { gbps, d_size, d_len } => {
                Pattern::Cbr2 { mean_len: 792.0, gbps: *gbps, d_size: *d_size, d_len: *d_len }
            }
            Cross::Pcap(p) => replay_from_pcap(std::path::Path::new(p))?,
        })
    }
}

/// Default probes per train. With 20 (the seed's baseline) the first collision between a probe
/// and a cross-traffic packet leaves a backlog that biases short trains near the turning point,
/// under-estimating by up to 0.3 Gb/s when much bandwidth is available; 100 keeps CBR1 within
/// 0.1 Gb/s (RESULTS.md).
pub const DEFAULT_TRAIN_LEN: u32 = 100;

/// Options of a MinProbe run.
#[derive(Clone, Debug)]
pub struct MinProbeOptions {
    /// `dumbbell` or `parking-lot[:N]`.
    pub topology: String,
    /// Cross traffic on each bottleneck link.
    pub cross: Cross,
    /// Probe schedule.
    pub probe: ProbeConfig,
    /// Application traffic of the probed flow from mp0 to mp1, Gb/s (dummies fill the rest).
    pub app_gbps: f64,
    /// Network settings.
    pub net: NetConfig,
    /// Cable length.
    pub cable_m: f64,
    /// Progress bar on stderr.
    pub progress: bool,
}

impl Default for MinProbeOptions {
    fn default() -> Self {
        MinProbeOptions {
            topology: "dumbbell".into(),
            cross: Cross::Cbr1(6.0),
            probe: ProbeConfig::baseline(DEFAULT_TRAIN_LEN, 10),
            app_gbps: 1.0,
            net: NetConfig::default(),
            cable_m: 10.0,
            progress: false,
        }
    }
}

/// Result of a MinProbe run.
#[derive(Clone, Debug, Serialize)]
pub struct MinProbeSummary {
    /// The estimate.
    pub estimate_gbps: f64,
    /// 10 Gb/s minus the heaviest cross traffic on the path.
    pub truth_gbps: f64,
    /// estimate − truth.
    pub error_gbps: f64,
    /// Topology.
    pub topology: String,
    /// Cross traffic spec.
    pub cross: String,
    /// Long-run cross rate per bottleneck link, Gb/s.
    pub cross_gbps: f64,
    /// Seed.
    pub seed: u64,
    /// Probes received / sent.
    pub probes_received: usize,
    /// Application packets used as probes.
    pub app_probes: u64,
    /// Dummy probes.
    pub dummy_probes: u64,
    /// Simulated seconds.
    pub sim_seconds: f64,
    /// Wall seconds, building the network included.
    pub wall_seconds: f64,
    /// Of which building the network.
    pub setup_seconds: f64,
    /// Ctrl-C stopped the run before the last sample: the estimate uses the trains so far.
    pub interrupted: bool,
    /// Per-rate receiver statistics.
    pub points: Vec<RatePoint>,
}

/// Runs MinProbe across a dumbbell or parking lot.
pub fn run_minprobe(o: &MinProbeOptions) -> Result<MinProbeSummary> {
    let wall = std::time::Instant::now();
    let topo = Topology::builtin(&o.topology, o.cable_m)?;
    let (mp0, mp1) = match (topo.node("mp0"), topo.node("mp1")) {
        (Some(a), Some(b)) => (a, b),
        _ => bail!("MinProbe needs a topology with mp0 and mp1 (dumbbell or parking-lot)"),
    };
    let pairs: Vec<(usize, usize)> = (0..)
        .map_while(|i| Some((topo.node(&format!("n{}", 2 * i))?, topo.node(&format!("n{}", 2 * i + 1))?)))
        .collect();
    let pattern = o.cross.pattern()?;
    let cross_gbps = pattern.mean_gbps();
    let mut sim = Sim::new(topo, o.net.clone());
    for (i, &(a, b)) in pairs.iter().enumerate() {
        let mut rng = sim.sub_rng(0xc0ff_0000 + i as u64);
        let phase = rng.gen_range(0..from_ns(10_000.0));
        sim.add_source(Source::new(a, Dest::Node(b), 100 + i as u32, pattern.clone(), phase, Time::MAX / 2, rng));
    }
    if o.app_gbps > 0.0 {
        let rng = sim.sub_rng(0xa99);
        sim.add_source(Source::new(
            mp0,
            Dest::Node(mp1),
            PROBE_FLOW,
            Pattern::Cbr { len: o.probe.probe_len, gbps: o.app_gbps },
            0,
            Time::MAX / 2,
            rng,
        ));
    }
    let start = from_ns(200_000.0);
    let probe = sim.install(MinProbe::new(mp0, mp1, o.probe.clone(), start));
    let setup_seconds = wall.elapsed().as_secs_f64();
    let step = from_ns(1_000_000.0);
    let mut t = start;
    let limit = from_secs(100.0);
    // The schedule's length is about samples × period; the bar is a guide, in simulated ms.
    let expected = start + o.probe.period.saturating_mul(u64::from(o.probe.samples));
    let bar = progress_bar(o.progress, expected);
    let mut interrupted = false;
    loop {
        t += step;
        sim.run_until(t, |_| {});
        bar.set_position((to_ns(t.min(expected)) / 1000.0) as u64);
        if sim.protocol(probe).and_then(|p| p.done_at).is_some_and(|d| t > d + step) || t > limit {
            break;
        }
        if p4_io::interrupt::interrupted() {
            interrupted = true;
            break;
        }
    }
    bar.finish();
    let wall_seconds = wall.elapsed().as_secs_f64();
    let probe = sim.protocol(probe).context("MinProbe is not installed")?;
    let est = estimate(&o.probe, &probe.arrivals);
    let truth = 10.0 - cross_gbps;
    Ok(MinProbeSummary {
        estimate_gbps: est.estimate_gbps,
        truth_gbps: truth,
        error_gbps: est.estimate_gbps - truth,
        topology: o.topology.clone(),
        cross: format!("{:?}", o.cross),
        cross_gbps,
        seed: sim.cfg.seed,
        probes_received: probe.arrivals.len(),
        app_probes: probe.app_probes,
        dummy_probes: probe.dummies,
        sim_seconds: to_secs(t),
        wall_seconds,
        setup_seconds,
        interrupted,
        points: est.points,
    })
}

/// Options of the switch profiler.
#[derive(Clone, Debug)]
pub struct ProfileOptions {
    /// Offered rate, Gb/s (rounded so the gap is a whole number of 4-byte lanes).
    pub gbps: f64,
    /// Frame length.
    pub len: u32,
    /// Frames to send.
    pub frames: u64,
    /// Seed.
    pub seed: u64,
    /// Switch model (forwarding mode is set per run).
    pub switch: SwitchModel,
    /// Progress bar on stderr.
    pub progress: bool,
}

impl Default for ProfileOptions {
    fn default() -> Self {
        ProfileOptions {
            gbps: 9.0,
            len: 1518,
            frames: 20_000,
            seed: 1,
            switch: SwitchModel::default(),
            progress: false,
        }
    }
}

/// IPDs seen by a capture port.
#[derive(Clone, Debug, Serialize)]
pub struct ProfileSummary {
    /// The generated IPD, ns.
    pub target_ipd_ns: f64,
    /// Generator straight into the capturer.
    pub generated: Summary,
    /// Through a store-and-forward switch.
    pub store_and_forward: Summary,
    /// Through a cut-through switch.
    pub cut_through: Summary,
}

/// Raw IPD samples (ns) of the three runs, for CDF plots.
pub struct ProfileSamples {
    /// Generator to capturer.
    pub generated: Vec<f64>,
    /// Store-and-forward.
    pub store_and_forward: Vec<f64>,
    /// Cut-through.
    pub cut_through: Vec<f64>,
}

fn profile_once(o: &ProfileOptions, ipd_bytes: u64, via: Option<Forwarding>, bar: &Progress) -> Vec<f64> {
    let mut topo = Topology::default();
    topo.nodes.push(Node { name: "gen".into(), kind: NodeKind::Host });
    topo.nodes.push(Node { name: "cap".into(), kind: NodeKind::Host });
    match via {
        None => topo.links.push(Link { a: 0, b: 1, length_m: 1.0 }),
        Some(_) => {
            topo.nodes.push(Node { name: "dut".into(), kind: NodeKind::Switch });
            topo.links.push(Link { a: 0, b: 2, length_m: 1.0 });
            topo.links.push(Link { a: 2, b: 1, length_m: 1.0 });
        }
    }
    let switch = SwitchModel { forwarding: via.unwrap_or(Forwarding::StoreAndForward), ..o.switch.clone() };
    let mut sim = Sim::new(topo, NetConfig { seed: o.seed, switch, ..Default::default() });
    // the generator is the reference: a nominal clock, so the gap it counts is exact
    let g = sim.node_osc[0];
    sim.oscs[g] = Oscillator::new(0.0, 0, None, 0, 0);
    sim.capture = Some(Capture { node: 1, frames: Vec::new() });
    let stop = ipd_bytes * BYTE_TIME * o.frames;
    let rng = sim.sub_rng(1);
    sim.add_source(Source::new(0, Dest::Node(1), 0, Pattern::Paced { len: o.len, ipd_bytes }, 0, stop, rng));
    let base = bar.position();
    sim.run_until(stop + from_ns(1_000_000.0), |t| bar.set_position(base + (to_ns(t.min(stop)) / 1000.0) as u64));
    bar.set_position(base + (to_ns(stop) / 1000.0) as u64);
    let frames = sim.capture.map(|c| c.frames).unwrap_or_default();
    frames.windows(2).map(|w| to_ns(w[1].0 - w[0].0)).collect()
}

/// Sends a uniform stream through a store-and-forward and a cut-through switch and summarises
/// the IPDs a capture port sees.
pub fn run_profile(o: &ProfileOptions) -> Result<(ProfileSummary, ProfileSamples)> {
    anyhow::ensure!(o.gbps >= 0.01 && o.gbps <= 10.0, "rate must be within 0.01..=10 Gb/s");
    anyhow::ensure!((64..=9216).contains(&o.len), "frame length must be 64..=9216");
    anyhow::ensure!(o.frames >= 2 && o.frames <= 10_000_000, "frames must be 2..=10000000");
    let ipd_bytes = ((wire_bytes(o.len as u64) as f64 * 10.0 / o.gbps / 4.0).round() as u64 * 4)
        .max(wire_bytes(o.len as u64).div_ceil(4) * 4);
    let span = (ipd_bytes * BYTE_TIME).checked_mul(o.frames).filter(|&t| t <= from_secs(100.0));
    anyhow::ensure!(span.is_some(), "{} frames at {} Gb/s take more than 100 simulated seconds", o.frames, o.gbps);
    // Three runs of the same length; the bar counts their simulated µs together.
    let bar = progress_bar(o.progress, ipd_bytes * BYTE_TIME * o.frames * 3);
    let samples = ProfileSamples {
        generated: profile_once(o, ipd_bytes, None, &bar),
        store_and_forward: profile_once(o, ipd_bytes, Some(Forwarding::StoreAndForward), &bar),
        cut_through: profile_once(o, ipd_bytes, Some(Forwarding::CutThrough), &bar),
    };
    bar.finish();
    let summary = ProfileSummary {
        target_ipd_ns: to_ns(ipd_bytes * BYTE_TIME),
        generated: summarize(&samples.generated),
        store_and_forward: summarize(&samples.store_and_forward),
        cut_through: summarize(&samples.cut_through),
    };
    Ok((summary, samples))
}

/// Options of a plain network run: the scenario alone.
pub type SimOptions = Scenario;

/// Result of a plain network run.
#[derive(Clone, Debug, Serialize)]
pub struct SimSummary {
    /// Topology.
    pub topology: String,
    /// Devices.
    pub nodes: usize,
    /// Links.
    pub links: usize,
    /// Hosts.
    pub hosts: usize,
    /// Diameter in hops.
    pub diameter: u32,
    /// Counters.
    pub net: NetStats,
    /// Simulated seconds (less than asked when interrupted).
    pub sim_seconds: f64,
    /// Wall seconds, building the topology and simulator included.
    pub wall_seconds: f64,
    /// Of which building the topology and simulator.
    pub setup_seconds: f64,
    /// Simulated seconds per wall second.
    pub speed: f64,
    /// Ctrl-C stopped the run early: the counters cover `sim_seconds`.
    pub interrupted: bool,
}

/// Runs a topology under load and reports delivery counters.
pub fn run_sim(o: &SimOptions) -> Result<SimSummary> {
    let started = Timing::start();
    let (mut sim, end) = o.build(0)?;
    let diameter = sim.topo.diameter();
    let ran = o.run(&mut sim, end, Timing::setup_done(started));
    Ok(SimSummary {
        topology: o.topology.clone(),
        nodes: sim.topo.nodes.len(),
        links: sim.topo.links.len(),
        hosts: sim.hosts.len(),
        diameter,
        net: sim.stats.clone(),
        sim_seconds: ran.sim_seconds,
        wall_seconds: ran.wall_seconds,
        setup_seconds: ran.setup_seconds,
        speed: ran.speed,
        interrupted: ran.interrupted,
    })
}

/// Oscillator wander option helper: `step_ppm` per millisecond.
pub fn wander_per_ms(step_ppm: f64) -> Option<Wander> {
    (step_ppm > 0.0).then_some(Wander { step_ppm, step_edges: 156_250 })
}

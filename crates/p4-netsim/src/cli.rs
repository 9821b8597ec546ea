//! Command-line front ends (clap `Args` + `*_main`) for `sim`, `dtp`, `minprobe` and `profile`;
//! the `p4forge` binary mounts them as subcommands.

use crate::dtp::DtpConfig;
use crate::experiments::{
    run_dtp, run_minprobe, run_profile, run_sim, wander_per_ms, DtpOptions, Load, MinProbeOptions, ProfileOptions,
    Scenario,
};
use crate::minprobe::{rate_range, ProbeConfig};
use crate::plot::{decimate_max, panels_svg, Line, Panel, Style};
use crate::sim::{Forwarding, NetConfig, SwitchModel};
use crate::stats::cdf;
use crate::time::from_ns;
use anyhow::Result;
use clap::Args;
use p4_io::progress::ProgressArgs;
use std::io::Write;
use std::path::PathBuf;

/// Network options shared by every experiment.
#[derive(Args, Debug, Clone)]
pub struct NetArgs {
    /// Random seed (runs are reproducible).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Oscillator offsets are uniform in ±PPM (at most 100).
    #[arg(long, allow_negative_numbers = true, default_value_t = 100.0)]
    pub ppm: f64,
    /// Random-walk wander: largest ppm step per millisecond (0 = none).
    #[arg(long, allow_negative_numbers = true, default_value_t = 0.0)]
    pub wander_ppm: f64,
    /// Give every port its own oscillator.
    #[arg(long)]
    pub per_port_oscillators: bool,
    /// Bit error rate on every link.
    #[arg(long, allow_negative_numbers = true, default_value_t = 0.0)]
    pub ber: f64,
    /// Switch forwarding mode.
    #[arg(long, value_enum, default_value_t = Forwarding::StoreAndForward)]
    pub switch: Forwarding,
    /// Output queue size per switch port, KiB.
    #[arg(long, default_value_t = 256)]
    pub buffer_kib: u64,
    /// Cable length in metres.
    #[arg(long, allow_negative_numbers = true, default_value_t = 10.0)]
    pub cable_m: f64,
}

/// `value` if it is within `lo..=hi`, else an error naming the flag, the value and the allowed
/// range (no parameter is silently clamped). NaN is outside every range.
pub fn in_range<T: PartialOrd + std::fmt::Display>(flag: &str, value: T, lo: T, hi: T, unit: &str) -> Result<T> {
    if value >= lo && value <= hi {
        Ok(value)
    } else {
        anyhow::bail!("{flag} {value} is out of range: allowed {lo}..={hi}{unit}")
    }
}

/// `value` if it is above `lo` and at most `hi` (for quantities that cannot be zero).
fn above<T: PartialOrd + std::fmt::Display>(flag: &str, value: T, lo: T, hi: T, unit: &str) -> Result<T> {
    if value > lo && value <= hi {
        Ok(value)
    } else {
        anyhow::bail!("{flag} {value} is out of range: allowed more than {lo} and at most {hi}{unit}")
    }
}

/// Largest switch buffer, KiB (1 GiB per port).
pub const MAX_BUFFER_KIB: u64 = 1 << 20;

impl NetArgs {
    fn config(&self) -> Result<NetConfig> {
        in_range("--ppm", self.ppm, 0.0, 100.0, " ppm")?;
        // A negative or NaN wander used to mean "no wander" without a word.
        in_range("--wander-ppm", self.wander_ppm, 0.0, 100.0, " ppm per ms")?;
        if !(self.ber >= 0.0 && self.ber < 1e-3) {
            anyhow::bail!("--ber {} is out of range: allowed at least 0 and below 0.001", self.ber);
        }
        in_range("--buffer-kib", self.buffer_kib, 1, MAX_BUFFER_KIB, " KiB")?;
        in_range("--cable-m", self.cable_m, 0.0, crate::topology::MAX_CABLE_M, " m")?;
        Ok(NetConfig {
            seed: self.seed,
            max_ppm: self.ppm,
            wander: wander_per_ms(self.wander_ppm),
            per_port_oscillators: self.per_port_oscillators,
            ber: self.ber,
            switch: SwitchModel { forwarding: self.switch, buffer_bytes: self.buffer_kib * 1024, ..Default::default() },
            ..Default::default()
        })
    }
}

/// Writes a command's summary (JSON or text) to `out`, standard output in the `*_main` functions.
/// A write error (closed pipe under `| head -c1`, `> /dev/full`) becomes an error that names
/// standard output and the reason, where `println!` would panic.
fn print<T: serde::Serialize>(
    out: &mut dyn Write,
    json: bool,
    value: &T,
    human: impl FnOnce() -> String,
) -> Result<()> {
    let text = if json { serde_json::to_string(value)? } else { human() };
    out.write_all(format!("{text}\n").as_bytes())
        .and_then(|()| out.flush())
        .map_err(p4_io::stdio::StdoutError::from)?;
    Ok(())
}

/// Checks before any simulation that the plot file can be created, so an unwritable `--plot`
/// path is an error at once instead of after a long run whose text results would be lost.
fn check_outputs(plot: &Option<PathBuf>) -> Result<()> {
    if let Some(path) = plot {
        p4_io::output::check_writable(path)?;
    }
    Ok(())
}

/// The error a command returns after a run stopped by Ctrl-C has printed its partial summary
/// (and written complete output files); the binary exits with status 130 for it, as for every
/// interrupted command.
pub use p4_io::interrupt::Interrupted;

/// `Err(Interrupted)` if the run was interrupted, after its summary is out.
fn finished(interrupted: bool) -> Result<()> {
    if interrupted {
        return Err(Interrupted.into());
    }
    Ok(())
}

/// The first line of a summary cut short by Ctrl-C (empty otherwise).
fn partial(interrupted: bool, reached: f64, asked: f64) -> String {
    if interrupted {
        format!("interrupted: results are partial ({reached:.4} of {asked} simulated s)\n")
    } else {
        String::new()
    }
}

/// Most offset samples a `dtp` run keeps (16 bytes each, for DTP and again for PTP).
pub const MAX_SAMPLES: u64 = 10_000_000;
/// Most probes a `minprobe` run sends (--n × rates × --samples); each arrival is kept.
pub const MAX_PROBES: u64 = 10_000_000;

/// Longest simulated run, seconds.
pub const MAX_SECONDS: f64 = 500.0;

/// What `sim` and `dtp` both run: a topology under background load for a simulated time.
#[derive(Args, Debug, Clone)]
pub struct ScenarioArgs {
    /// two, tree:DEPTH:FANOUT, fat-tree:K, dumbbell, parking-lot[:N], or a TOML file (docs/TOPOLOGY.md).
    #[arg(long, default_value = "tree:2:3")]
    pub topology: String,
    /// Simulated seconds.
    #[arg(long, allow_negative_numbers = true, default_value_t = 0.01)]
    pub seconds: f64,
    /// Background load.
    #[arg(long, value_enum, default_value_t = Load::Heavy)]
    pub load: Load,
    /// Frame length of the load, bytes (9018 for jumbo frames).
    #[arg(long, default_value_t = 1518)]
    pub load_len: u32,
    /// --progress / --no-progress (default: a progress bar when stderr is a terminal).
    #[command(flatten)]
    pub progress: ProgressArgs,
    #[command(flatten)]
    pub net: NetArgs,
}

impl ScenarioArgs {
    /// The scenario these arguments describe.
    pub fn scenario(&self) -> Result<Scenario> {
        in_range("--load-len", self.load_len, 64, 9216, " bytes")?;
        above("--seconds", self.seconds, 0.0, MAX_SECONDS, " simulated seconds")?;
        Ok(Scenario {
            topology: self.topology.clone(),
            cable_m: self.net.cable_m,
            seconds: self.seconds,
            load: self.load,
            load_len: self.load_len,
            net: self.net.config()?,
            progress: self.progress.enabled(),
        })
    }
}

/// `sim`: run a topology under load.
#[derive(Args, Debug, Clone)]
pub struct SimArgs {
    #[command(flatten)]
    pub scenario: ScenarioArgs,
    /// Print a JSON summary.
    #[arg(long)]
    pub json: bool,
}

/// Runs `sim`, printing to standard output.
pub fn sim_main(a: SimArgs) -> Result<()> {
    p4_io::interrupt::install();
    sim_to(&a, &mut std::io::stdout().lock())
}

/// Runs `sim`, writing the summary to `out`.
pub fn sim_to(a: &SimArgs, out: &mut dyn Write) -> Result<()> {
    let s = run_sim(&a.scenario.scenario()?)?;
    print(out, a.json, &s, || {
        format!(
            "{}{}: {} nodes, {} links, diameter {} hops\ndelivered {} frames, dropped {}, corrupted {}; {} events\n{:.4} simulated s in {:.2} wall s, {:.2} s of it building the network ({:.4} sim s per wall s)",
            partial(s.interrupted, s.sim_seconds, a.scenario.seconds), s.topology, s.nodes, s.links, s.diameter, s.net.delivered, s.net.dropped, s.net.corrupted, s.net.events, s.sim_seconds, s.wall_seconds, s.setup_seconds, s.speed
        )
    })?;
    finished(s.interrupted)
}

/// `dtp`: DTP clock synchronisation (and PTP for comparison).
#[derive(Args, Debug, Clone)]
pub struct DtpArgs {
    #[command(flatten)]
    pub scenario: ScenarioArgs,
    /// BEACON interval in cycles on an idle link (frames on the wire stretch it).
    #[arg(long, default_value_t = 200)]
    pub beacon_interval: u64,
    /// Offset sampling interval, ns.
    #[arg(long, allow_negative_numbers = true, default_value_t = 1000.0)]
    pub sample_ns: f64,
    /// Do not run PTP alongside.
    #[arg(long)]
    pub no_ptp: bool,
    /// PTP Sync interval, µs.
    #[arg(long, allow_negative_numbers = true, default_value_t = 1000.0)]
    pub ptp_sync_us: f64,
    /// Write an SVG plot of the offsets over time.
    #[arg(long)]
    pub plot: Option<PathBuf>,
    /// Print a JSON summary.
    #[arg(long)]
    pub json: bool,
}

/// Runs the `dtp` experiment an argument set describes.
pub fn dtp_run(a: &DtpArgs) -> Result<(crate::experiments::DtpSummary, crate::experiments::DtpSeries)> {
    in_range("--beacon-interval", a.beacon_interval, 1, 100_000, " cycles")?;
    in_range("--sample-ns", a.sample_ns, 10.0, 1e9, " ns")?;
    in_range("--ptp-sync-us", a.ptp_sync_us, 1.0, 1e6, " µs")?;
    let scenario = a.scenario.scenario()?;
    // Every sample is kept for the plot: bound their number rather than run out of memory.
    let samples = scenario.seconds * 1e9 / a.sample_ns;
    if samples > MAX_SAMPLES as f64 {
        anyhow::bail!(
            "--seconds {} with --sample-ns {} takes {samples:.0} offset samples; at most {MAX_SAMPLES} are kept (raise --sample-ns or lower --seconds)",
            scenario.seconds,
            a.sample_ns
        );
    }
    let dtp =
        DtpConfig { beacon_interval: a.beacon_interval, sample_interval: from_ns(a.sample_ns), ..Default::default() };
    let o = DtpOptions { scenario, dtp, ptp: !a.no_ptp, ptp_sync_interval: from_ns(a.ptp_sync_us * 1000.0) };
    run_dtp(&o)
}

/// The `dtp --plot` figure: DTP's offset and its 4TD bound (a few ticks) in a panel of their own,
/// PTP's error (tens of µs, a thousand times larger) in a second panel, so neither is flattened
/// against the other's scale.
pub fn dtp_figure(s: &crate::experiments::DtpSummary, series: &crate::experiments::DtpSeries) -> (String, Vec<Panel>) {
    let bound: Vec<(f64, f64)> = series
        .dtp
        .first()
        .zip(series.dtp.last())
        .map(|(f, l)| vec![(f.0, s.dtp.bound_ticks as f64), (l.0, s.dtp.bound_ticks as f64)])
        .unwrap_or_default();
    let mut panels = vec![Panel {
        y_label: "DTP offset (6.4 ns ticks)".into(),
        lines: vec![
            Line::new("DTP max offset", decimate_max(&series.dtp, 2000)),
            Line::new(format!("4TD bound ({} ticks)", s.dtp.bound_ticks), bound).styled(Style::Dashed),
        ],
        y_range: Some((0.0, (s.dtp.bound_ticks.max(s.dtp.max_offset_ticks) as f64 * 1.15).max(1.0))),
    }];
    if !series.ptp.is_empty() {
        let us: Vec<(f64, f64)> = series.ptp.iter().map(|&(t, ns)| (t, ns / 1000.0)).collect();
        panels.push(Panel {
            y_label: "PTP error (µs)".into(),
            lines: vec![Line::new("PTP max error", decimate_max(&us, 2000))],
            y_range: None,
        });
    }
    let what = if panels.len() > 1 { "DTP vs PTP" } else { "DTP" };
    (format!("{what}: {} under {:?} load", s.topology, s.load), panels)
}

/// Runs `dtp`: prints the summary (JSON with `--json`) and writes the plot.
pub fn dtp_main(a: DtpArgs) -> Result<()> {
    p4_io::interrupt::install();
    dtp_to(&a, &mut std::io::stdout().lock())
}

/// Runs `dtp`, writing the summary to `out` and the plot to its file.
pub fn dtp_to(a: &DtpArgs, out: &mut dyn Write) -> Result<()> {
    check_outputs(&a.plot)?;
    let (s, series) = dtp_run(a)?;
    if let Some(path) = &a.plot {
        let (title, panels) = dtp_figure(&s, &series);
        panels_svg(path, &title, "time (ms)", panels)?;
    }
    print(out, a.json, &s, || {
        let ptp = s
            .ptp
            .as_ref()
            .map(|p| {
                format!(
                    "\nPTP: max |error| {:.1} ns, mean of per-sample max {:.1} ns over {} exchanges",
                    p.max_abs_error_ns, p.mean_max_error_ns, p.exchanges
                )
            })
            .unwrap_or_default();
        format!(
            "{}DTP on {} ({} devices, D = {} hops), {:?} load, {} s simulated\nmax offset {} ticks (bound 4TD = {} ticks): {}\nmax adjacent offset {} ticks; beacon interval mean {:.0} / max {} cycles; OWD {}..{} cycles\ndaemon read error max {} ticks raw, {} after smoothing{}\n{:.2} wall s ({:.2} s building the network), {:.4} simulated s per wall s",
            partial(s.interrupted, s.sim_seconds, a.scenario.seconds), s.topology, s.nodes, s.dtp.max_hops, s.load, s.sim_seconds, s.dtp.max_offset_ticks, s.dtp.bound_ticks, if s.within_bound { "within bound" } else { "BOUND EXCEEDED" },
            s.dtp.max_adjacent_offset_ticks, s.dtp.mean_beacon_interval_cycles, s.dtp.max_beacon_interval_cycles, s.dtp.owd_cycles.0, s.dtp.owd_cycles.1,
            s.dtp.daemon_max_error_ticks, s.dtp.daemon_max_smoothed_error_ticks, ptp, s.wall_seconds, s.setup_seconds, s.speed
        )
    })?;
    finished(s.interrupted)
}

/// `minprobe`: available-bandwidth estimation.
#[derive(Args, Debug, Clone)]
pub struct MinProbeArgs {
    /// dumbbell or parking-lot[:N].
    #[arg(long, default_value = "dumbbell")]
    pub topology: String,
    /// Cross traffic on each bottleneck: cbr1:RATE, cbr2:RATE[:D_SIZE[:D_LEN]], pcap:PATH.
    #[arg(long, default_value = "cbr1:6")]
    pub cross: String,
    /// N: probes per train (the seed's baseline is 20; see RESULTS.md).
    #[arg(long, default_value_t = crate::experiments::DEFAULT_TRAIN_LEN)]
    pub n: u32,
    /// R: rates A:STEP:B in Gb/s.
    #[arg(long, default_value = "0.1:0.1:9.6")]
    pub rates: String,
    /// G: gap between trains, µs.
    #[arg(long, allow_negative_numbers = true, default_value_t = 10.0)]
    pub gap_us: f64,
    /// D: distance between samples, ms.
    #[arg(long, allow_negative_numbers = true, default_value_t = 4.0)]
    pub period_ms: f64,
    /// Samples (the estimate uses their mean curve).
    #[arg(long, default_value_t = 10)]
    pub samples: u32,
    /// Probe (and dummy) length, bytes.
    #[arg(long, default_value_t = 792)]
    pub probe_len: u32,
    /// A due train waits up to this long for application packets before dummies pad it, µs.
    #[arg(long, allow_negative_numbers = true, default_value_t = 0.0)]
    pub timeout_us: f64,
    /// Application traffic of the probed flow, Gb/s.
    #[arg(long, allow_negative_numbers = true, default_value_t = 1.0)]
    pub app_gbps: f64,
    /// Write an SVG plot of delay variance against probe rate.
    #[arg(long)]
    pub plot: Option<PathBuf>,
    /// Print a JSON summary.
    #[arg(long)]
    pub json: bool,
    /// --progress / --no-progress (default: a progress bar when stderr is a terminal).
    #[command(flatten)]
    pub progress: ProgressArgs,
    #[command(flatten)]
    pub net: NetArgs,
}

fn parse_rates(s: &str) -> Result<Vec<f64>> {
    let f: Vec<f64> = s
        .split(':')
        .map(|x| x.parse::<f64>())
        .collect::<Result<_, _>>()
        .map_err(|_| anyhow::anyhow!("--rates `{s}`: expected A:STEP:B"))?;
    match f.as_slice() {
        [a, step, b] if *a >= 0.01 && *step > 0.0 && *b >= *a && *b <= 10.0 && (*b - *a) / *step <= 10_000.0 => {
            Ok(rate_range(*a, *b, *step))
        }
        _ => {
            anyhow::bail!(
                "--rates `{s}`: expected A:STEP:B with 0.01 <= A <= B <= 10, STEP > 0 and at most 10000 steps"
            )
        }
    }
}

/// Runs the `minprobe` experiment an argument set describes.
pub fn minprobe_run(a: &MinProbeArgs) -> Result<crate::experiments::MinProbeSummary> {
    in_range("--n", a.n, 2, 10_000, " probes")?;
    in_range("--samples", a.samples, 1, 1000, "")?;
    in_range("--probe-len", a.probe_len, 64, 1518, " bytes")?;
    in_range("--gap-us", a.gap_us, 0.0, 1e6, " µs")?;
    above("--period-ms", a.period_ms, 0.0, 1e4, " ms")?;
    in_range("--timeout-us", a.timeout_us, 0.0, 1e6, " µs")?;
    if !(a.app_gbps >= 0.0 && a.app_gbps < 10.0) {
        anyhow::bail!("--app-gbps {} is out of range: allowed at least 0 and below 10 Gb/s", a.app_gbps);
    }
    let rates = parse_rates(&a.rates)?;
    let probes = u64::from(a.n) * rates.len() as u64 * u64::from(a.samples);
    if probes > MAX_PROBES {
        anyhow::bail!(
            "--n {} × {} rates (--rates {}) × --samples {} is {probes} probes; at most {MAX_PROBES} are allowed",
            a.n,
            rates.len(),
            a.rates,
            a.samples
        );
    }
    let probe = ProbeConfig {
        n: a.n,
        rates,
        gap: from_ns(a.gap_us * 1000.0),
        period: from_ns(a.period_ms * 1e6),
        samples: a.samples,
        probe_len: a.probe_len,
        timeout: from_ns(a.timeout_us * 1000.0),
        ..ProbeConfig::baseline(a.n, a.samples)
    };
    let o = MinProbeOptions {
        topology: a.topology.clone(),
        cross: a.cross.parse()?,
        probe,
        app_gbps: a.app_gbps,
        net: a.net.config()?,
        cable_m: a.net.cable_m,
        progress: a.progress.enabled(),
    };
    run_minprobe(&o)
}

/// The `minprobe --plot` figure: delay variance against probe rate (in µs², so the tick labels
/// stay short), with the estimate and the truth as dashed vertical lines.
pub fn minprobe_figure(s: &crate::experiments::MinProbeSummary, cross: &str) -> (String, Vec<Panel>) {
    let var: Vec<(f64, f64)> = s.points.iter().map(|p| (p.rate_gbps, p.delay_variance_ns2 / 1e6)).collect();
    let top = var.iter().map(|p| p.1).fold(0.0, f64::max).max(1e-6);
    let vertical = |x: f64| vec![(x, 0.0), (x, top)];
    // The truth is wide and pale, under the estimate, so both show when they coincide.
    let lines = vec![
        Line::new("mean per-train variance", var),
        Line::new(format!("truth {:.2} Gb/s", s.truth_gbps), vertical(s.truth_gbps)).styled(Style::Wide),
        Line::new(format!("estimate {:.2} Gb/s", s.estimate_gbps), vertical(s.estimate_gbps)).styled(Style::Dashed),
    ];
    let panel = Panel { y_label: "queuing delay variance (µs²)".into(), lines, y_range: Some((0.0, top * 1.05)) };
    (format!("MinProbe on {} with {cross} cross traffic", s.topology), vec![panel])
}

/// Runs `minprobe`: prints the summary (JSON with `--json`) and writes the plot.
pub fn minprobe_main(a: MinProbeArgs) -> Result<()> {
    p4_io::interrupt::install();
    minprobe_to(&a, &mut std::io::stdout().lock())
}

/// Runs `minprobe`, writing the summary to `out` and the plot to its file.
pub fn minprobe_to(a: &MinProbeArgs, out: &mut dyn Write) -> Result<()> {
    check_outputs(&a.plot)?;
    let s = minprobe_run(a)?;
    if let Some(path) = &a.plot {
        let (title, panels) = minprobe_figure(&s, &a.cross);
        panels_svg(path, &title, "probe rate (Gb/s)", panels)?;
    }
    print(out, a.json, &s, || {
        format!(
            "{}MinProbe on {} with {}: estimate {:.3} Gb/s, truth {:.3} Gb/s, error {:+.3} Gb/s\n{} probes received ({} application packets, {} dummies); {:.3} simulated s in {:.2} wall s ({:.2} s building the network)",
            if s.interrupted { "interrupted: results are partial (the estimate uses the trains received so far)\n" } else { "" },
            s.topology, a.cross, s.estimate_gbps, s.truth_gbps, s.error_gbps, s.probes_received, s.app_probes, s.dummy_probes, s.sim_seconds, s.wall_seconds, s.setup_seconds
        )
    })?;
    finished(s.interrupted)
}

/// `profile`: IPD of a uniform stream through store-and-forward and cut-through switches.
#[derive(Args, Debug, Clone)]
pub struct ProfileArgs {
    /// Offered rate, Gb/s.
    #[arg(long, allow_negative_numbers = true, default_value_t = 9.0)]
    pub gbps: f64,
    /// Frame length, bytes.
    #[arg(long, default_value_t = 1518)]
    pub len: u32,
    /// Frames to send.
    #[arg(long, default_value_t = 20_000)]
    pub frames: u64,
    /// Random seed.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Write an SVG plot of the IPD CDFs.
    #[arg(long)]
    pub plot: Option<PathBuf>,
    /// Print a JSON summary.
    #[arg(long)]
    pub json: bool,
    /// --progress / --no-progress (default: a progress bar when stderr is a terminal).
    #[command(flatten)]
    pub progress: ProgressArgs,
}

/// The `profile --plot` figure: the empirical IPD CDFs, drawn as steps (a CDF jumps at each
/// observed value; straight segments between them would invent delays never seen).
pub fn profile_figure(a: &ProfileArgs, samples: &crate::experiments::ProfileSamples) -> (String, Vec<Panel>) {
    // From 0 at the smallest delay, so the first jump is drawn too.
    let from_zero = |xs: &[f64]| {
        let points = cdf(xs);
        points.first().map(|&(x, _)| (x, 0.0)).into_iter().chain(points).collect::<Vec<_>>()
    };
    let lines = vec![
        Line::new("generated", from_zero(&samples.generated)).styled(Style::Steps),
        Line::new("store-and-forward", from_zero(&samples.store_and_forward)).styled(Style::Steps),
        Line::new("cut-through", from_zero(&samples.cut_through)).styled(Style::Steps),
    ];
    let panel = Panel { y_label: "fraction of delays ≤ x (CDF)".into(), lines, y_range: Some((0.0, 1.02)) };
    (format!("IPD CDF, {} B frames at {} Gb/s", a.len, a.gbps), vec![panel])
}

/// Runs `profile`, printing to standard output.
pub fn profile_main(a: ProfileArgs) -> Result<()> {
    profile_to(&a, &mut std::io::stdout().lock())
}

/// Runs `profile`, writing the summary to `out` and the plot to its file.
pub fn profile_to(a: &ProfileArgs, out: &mut dyn Write) -> Result<()> {
    in_range("--gbps", a.gbps, 0.01, 10.0, " Gb/s")?;
    in_range("--len", a.len, 64, 9216, " bytes")?;
    in_range("--frames", a.frames, 2, 10_000_000, "")?;
    check_outputs(&a.plot)?;
    let (s, samples) = run_profile(&ProfileOptions {
        gbps: a.gbps,
        len: a.len,
        frames: a.frames,
        seed: a.seed,
        progress: a.progress.enabled(),
        ..Default::default()
    })?;
    if let Some(path) = &a.plot {
        let (title, panels) = profile_figure(a, &samples);
        panels_svg(path, &title, "inter-packet delay (ns)", panels)?;
    }
    print(out, a.json, &s, || {
        format!(
            "target IPD {:.2} ns\ngenerated:         mean {:.2} ns, stdev {:.3} ns\nstore-and-forward: mean {:.2} ns, stdev {:.3} ns\ncut-through:       mean {:.2} ns, stdev {:.3} ns",
            s.target_ipd_ns, s.generated.mean_ns, s.generated.stdev_ns, s.store_and_forward.mean_ns, s.store_and_forward.stdev_ns, s.cut_through.mean_ns, s.cut_through.stdev_ns
        )
    })
}

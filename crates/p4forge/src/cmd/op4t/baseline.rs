//! `p4forge op4t baseline`: the NIC's own latency, t2 − t1 of OP4T-SST's Xconnect, in the RTL
//! simulation of the whole switch (the seed's Fig. 4, left).
//!
//! The program runs inside `--arch switch`: each port a 10GBASE-R MAC in its own 156.25 MHz
//! clock with RX and TX queues and a timestamp unit, the pipeline at `--clock` MHz, the clock
//! crossings between them. The monitor's stream enters `--in-port` paced at a fraction of line
//! rate (of the frames as they leave, stamps included) and leaves by `--out-port`; `t1` is taken
//! as its first beat reaches the RX side and `t2` as it is loaded for the MAC, so `t2 − t1` is
//! the time the packet spends inside the NIC. Per size and rate the report gives its mean and
//! standard deviation, which the seed bounds at one 250 MHz cycle (4 ns), and per size how far
//! the mean moves across rates.

use std::collections::BTreeMap;

use serde::Serialize;

use super::stream;
use crate::error::{CliError, CliResult};

/// The seed's bound on the baseline's standard deviation and on its mean's spread across rates:
/// one cycle of its 250 MHz pipeline.
pub const SEED_BOUND_NS: f64 = 4.0;
/// Most packets per point (the simulation keeps them all in memory).
pub const MAX_PACKETS: u32 = 100_000;

/// What `op4t baseline` runs.
pub struct BaselineOptions {
    pub setup: super::Setup,
    /// Frame lengths as they leave (stamps included).
    pub sizes: Vec<usize>,
    /// Percent of line rate.
    pub rates: Vec<f64>,
    pub packets: u32,
    /// The design: `--arch switch` with these ports, width and clock.
    pub rtl: p4_rtl::Options,
    /// How the model's C++ is compiled.
    pub speed: p4_rtl::sim::CxxSpeed,
}

/// One size at one rate.
#[derive(Clone, Debug, Serialize)]
pub struct BaselinePoint {
    pub size: usize,
    pub rate_percent: f64,
    pub packets_in: u64,
    pub packets_out: u64,
    pub mean_ns: f64,
    pub stdev_ns: f64,
    pub min_ns: f64,
    pub max_ns: f64,
}

/// One size over the rates.
#[derive(Clone, Debug, Serialize)]
pub struct SizeSummary {
    /// The largest standard deviation over the rates.
    pub max_stdev_ns: f64,
    /// Largest mean minus smallest mean over the rates.
    pub mean_spread_ns: f64,
}

/// The report.
#[derive(Clone, Debug, Serialize)]
pub struct BaselineReport {
    pub program: String,
    pub pipeline_mhz: f64,
    pub mac_mhz: f64,
    pub data_width: u32,
    pub packets_per_point: u32,
    pub points: Vec<BaselinePoint>,
    /// By size.
    pub sizes: BTreeMap<usize, SizeSummary>,
    /// Every point's standard deviation and every size's spread at most [`SEED_BOUND_NS`], and no
    /// packet lost.
    pub within_seed_bounds: bool,
    pub interrupted: bool,
}

impl BaselineReport {
    pub fn render(&self) -> String {
        let mut s = String::new();
        if self.interrupted {
            s += "interrupted: results are partial\n";
        }
        s += &format!(
            "OP4T Xconnect baseline, t2 - t1 ({}: pipeline {} MHz, {}-bit; MACs {} MHz; {} packets per point)\n",
            self.program, self.pipeline_mhz, self.data_width, self.mac_mhz, self.packets_per_point
        );
        s += "size (B)  rate (%)  in      out     mean (ns)  sd (ns)  min   max\n";
        for p in &self.points {
            s += &format!(
                "{:<9} {:<9} {:<7} {:<7} {:<10.1} {:<8.2} {:<5} {}\n",
                p.size, p.rate_percent, p.packets_in, p.packets_out, p.mean_ns, p.stdev_ns, p.min_ns, p.max_ns
            );
        }
        for (size, sum) in &self.sizes {
            s += &format!("{size} B: largest sd {:.2} ns, mean moves {:.2} ns across rates\n", sum.max_stdev_ns, sum.mean_spread_ns);
        }
        s += &format!(
            "{}\n",
            if self.points.is_empty() {
                "no point measured".to_string()
            } else if self.within_seed_bounds {
                format!("within the seed's bounds: every sd and every spread at most {SEED_BOUND_NS} ns, nothing lost")
            } else {
                format!("OUTSIDE the seed's bounds ({SEED_BOUND_NS} ns) or packets lost")
            }
        );
        s
    }
}

fn check(options: &BaselineOptions) -> CliResult<()> {
    if options.sizes.is_empty() || options.rates.is_empty() {
        return Err(CliError::input("give at least one --sizes and one --rates value"));
    }
    if let Some(size) = options.sizes.iter().find(|s| !(stream::MIN_FRAME..=stream::MAX_FRAME).contains(s)) {
        return Err(CliError::input(format!("--sizes {size}: frames of {} to {} bytes (the stamps take 16 after the UDP header)", stream::MIN_FRAME, stream::MAX_FRAME)));
    }
    if let Some(rate) = options.rates.iter().find(|r| !(**r >= 0.01 && **r <= 100.0)) {
        return Err(CliError::input(format!("--rates {rate}: percent of line rate, 0.01 to 100")));
    }
    if !(2..=MAX_PACKETS).contains(&options.packets) {
        return Err(CliError::input(format!("--packets {}: 2 to {MAX_PACKETS} per point", options.packets)));
    }
    for (flag, port) in [("--in-port", options.setup.in_port), ("--out-port", options.setup.out_port)] {
        if port >= options.rtl.ports {
            return Err(CliError::input(format!("{flag} {port}: the switch has ports 0 to {}", options.rtl.ports - 1)));
        }
    }
    Ok(())
}

/// Runs every size at every rate.
pub fn baseline(options: &BaselineOptions) -> CliResult<BaselineReport> {
    check(options)?;
    let entries = options.setup.entries.as_deref().map(crate::cmd::entries::Entries::read).transpose()?;
    let compiled = crate::frontend::compile(&options.setup.program, &options.setup.includes)?;
    p4_io::eprint_safe!("{}", compiled.warnings);
    super::check_op4t(&compiled, &options.setup.program)?;
    let mut switch = crate::cmd::rtl::switch_built(compiled, &options.setup.program, &options.rtl, options.speed)?;
    if let Some(entries) = &entries {
        entries.apply(&mut switch)?;
    }
    switch.set_paced(true).map_err(CliError::input)?;
    let manifest = switch.manifest().clone();
    let mut report = BaselineReport {
        program: options.setup.program.display().to_string(),
        pipeline_mhz: manifest.clock_mhz,
        mac_mhz: p4_rtl::switch_sim::MAC_MHZ,
        data_width: manifest.data_width,
        packets_per_point: options.packets,
        points: Vec::new(),
        sizes: BTreeMap::new(),
        within_seed_bounds: false,
        interrupted: false,
    };
    let progress = p4_io::progress::Progress::new(options.setup.progress, (options.sizes.len() * options.rates.len()) as u64, "points");
    p4_io::interrupt::install();
    'sizes: for &size in &options.sizes {
        let frame = stream::frame(options.setup.dst, size);
        for &rate in &options.rates {
            progress.set_message(&format!("{size} B at {rate}% of line rate"));
            // The stream's pace is that of the frames as they leave, at `rate` percent of 10 Gb/s.
            let gap_ns = super::wire_ns(size) * 100.0 / rate;
            for i in 0..options.packets {
                switch.queue(options.setup.in_port, (f64::from(i) * gap_ns).round() as u64, &frame).map_err(CliError::input)?;
            }
            let run = switch.run();
            if p4_io::interrupt::interrupted() {
                report.interrupted = true;
                break 'sizes;
            }
            let run = run.map_err(CliError::failed)?;
            let mut latencies = Vec::with_capacity(run.outputs.len());
            for o in run.outputs.iter().filter(|o| o.port == options.setup.out_port) {
                if let Some((t1, t2)) = stream::stamps_ns(&o.data) {
                    latencies.push(t2 as f64 - t1 as f64);
                }
            }
            let s = p4_netsim::stats::summarize(&latencies);
            report.points.push(BaselinePoint {
                size,
                rate_percent: rate,
                packets_in: u64::from(options.packets),
                packets_out: latencies.len() as u64,
                mean_ns: s.mean_ns,
                stdev_ns: s.stdev_ns,
                min_ns: s.min_ns,
                max_ns: s.max_ns,
            });
            progress.inc(1);
        }
    }
    progress.finish();
    summarize(&mut report);
    Ok(report)
}

/// Per size, the largest deviation and the mean's spread; and whether all are within the seed's.
fn summarize(report: &mut BaselineReport) {
    let mut by_size: BTreeMap<usize, Vec<&BaselinePoint>> = BTreeMap::new();
    for p in &report.points {
        by_size.entry(p.size).or_default().push(p);
    }
    report.sizes = by_size
        .into_iter()
        .map(|(size, points)| {
            let means = points.iter().map(|p| p.mean_ns);
            let spread = means.clone().fold(f64::NEG_INFINITY, f64::max) - means.fold(f64::INFINITY, f64::min);
            let max_stdev = points.iter().map(|p| p.stdev_ns).fold(0.0, f64::max);
            (size, SizeSummary { max_stdev_ns: max_stdev, mean_spread_ns: spread })
        })
        .collect();
    let lost = report.points.iter().any(|p| p.packets_out != p.packets_in);
    report.within_seed_bounds = !report.points.is_empty()
        && !lost
        && report.sizes.values().all(|s| s.max_stdev_ns <= SEED_BOUND_NS && s.mean_spread_ns <= SEED_BOUND_NS);
}

/// The plot: mean and standard deviation against rate, a line per size.
pub fn figure(report: &BaselineReport) -> Vec<p4_netsim::plot::Panel> {
    use p4_netsim::plot::{Line, Panel, Style};
    let sizes: Vec<usize> = report.sizes.keys().copied().collect();
    let series = |value: fn(&BaselinePoint) -> f64| -> Vec<Line> {
        sizes
            .iter()
            .map(|size| {
                let points = report.points.iter().filter(|p| p.size == *size).map(|p| (p.rate_percent, value(p))).collect();
                Line::new(format!("{size} B"), points)
            })
            .collect()
    };
    let rates: Vec<f64> = report.points.iter().map(|p| p.rate_percent).collect();
    let (lo, hi) = (rates.iter().copied().fold(f64::INFINITY, f64::min), rates.iter().copied().fold(0.0, f64::max));
    let mut sd = series(|p| p.stdev_ns);
    sd.push(Line::new(format!("seed's bound, {SEED_BOUND_NS} ns"), vec![(lo, SEED_BOUND_NS), (hi, SEED_BOUND_NS)]).styled(Style::Bound));
    vec![
        Panel { y_label: "mean t2 - t1 (ns)".into(), lines: series(|p| p.mean_ns), y_range: None },
        Panel { y_label: "standard deviation (ns)".into(), lines: sd, y_range: Some((0.0, SEED_BOUND_NS * 1.5)) },
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn point(size: usize, rate: f64, mean: f64, sd: f64, out: u64) -> BaselinePoint {
        BaselinePoint { size, rate_percent: rate, packets_in: 10, packets_out: out, mean_ns: mean, stdev_ns: sd, min_ns: 0.0, max_ns: 0.0 }
    }

    #[test]
    fn the_seed_bounds_hold_only_with_small_deviations_flat_means_and_nothing_lost() {
        let mut r = BaselineReport {
            program: String::new(),
            pipeline_mhz: 250.0,
            mac_mhz: 156.25,
            data_width: 512,
            packets_per_point: 10,
            points: vec![point(64, 1.0, 160.0, 0.0, 10), point(64, 100.0, 163.5, 3.9, 10), point(1518, 1.0, 544.0, 0.0, 10)],
            sizes: BTreeMap::new(),
            within_seed_bounds: false,
            interrupted: false,
        };
        summarize(&mut r);
        assert!(r.within_seed_bounds);
        assert_eq!((r.sizes[&64].max_stdev_ns, r.sizes[&64].mean_spread_ns), (3.9, 3.5));
        r.points[1].mean_ns = 164.5;
        summarize(&mut r);
        assert!(!r.within_seed_bounds, "a mean that moves 4.5 ns");
        r.points[1].mean_ns = 163.5;
        r.points[2].packets_out = 9;
        summarize(&mut r);
        assert!(!r.within_seed_bounds, "a packet lost");
    }
}

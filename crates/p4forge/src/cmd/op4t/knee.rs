//! `p4forge op4t knee`: OP4T-SST in front of a host forwarder that processes batches, on the
//! software target in simulated time (the seed's Fig. 4 through VPP).
//!
//! A monitor's stream of interest enters a network port at a constant rate; the program stamps
//! `t1` and sends it to the host port. The host is a forwarder model: a receive ring of `--ring`
//! descriptors (a packet that finds it full is lost), polled every T µs, each poll taking up to B
//! packets and handing them straight back to the host port; the program makes room for `t2` and
//! sends them to a network port, whose transmitter (10 Gb/s, a frame and its 20 bytes of
//! preamble and gap at a time) writes `t2` as each starts to leave. The monitor reads `t2 − t1`
//! from each packet. Below B/T packets per second every poll empties the ring and a packet waits
//! for the next poll (T/2 on average); above it the backlog grows for as long as the stream lasts,
//! and so does the latency, linearly with the rate: the knee of the curve is the forwarder's
//! capacity, which the fit ([`super::knee_fit`]) recovers from the stamps alone.

use std::collections::VecDeque;

use p4_dataplane::batch::{BatchOut, PacketIn};
use p4_dataplane::TxClock;
use serde::Serialize;

use super::knee_fit::{fit, KneeFit};
use super::stream;
use crate::error::{CliError, CliResult};

/// Most packets one rate point may send (the stream is simulated packet by packet).
pub const MAX_PACKETS_PER_RATE: f64 = 10_000_000.0;
/// Most descriptors of the forwarder's ring.
pub const MAX_RING: usize = 1 << 24;

/// A forwarder taking up to `batch` packets every `interval_ns`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Forwarder {
    pub batch: u32,
    pub interval_us: f64,
}

impl Forwarder {
    /// The most packets per second it forwards: B/T.
    pub fn capacity_pps(&self) -> f64 {
        f64::from(self.batch) * 1e6 / self.interval_us
    }
}

/// `B/T`: batch size and poll interval in µs (`32/80`).
pub fn parse_forwarder(text: &str) -> Result<Forwarder, String> {
    let usage = || format!("{text:?}: expected BATCH/INTERVAL_US, e.g. 32/80 (32 packets every 80 µs)");
    let (b, t) = text.split_once('/').ok_or_else(usage)?;
    let batch: u32 = b.trim().parse().map_err(|_| usage())?;
    let interval_us: f64 = t.trim().trim_end_matches("us").parse().map_err(|_| usage())?;
    if !(1..=1_000_000).contains(&batch) {
        return Err(format!("{text:?}: a batch of 1 to 1000000 packets"));
    }
    if !(interval_us >= 0.1 && interval_us <= 1e6) {
        return Err(format!("{text:?}: a poll interval of 0.1 to 1000000 µs"));
    }
    Ok(Forwarder { batch, interval_us })
}

/// The rates: `FROM:TO:STEP` or a comma-separated list, packets per second, ascending.
pub fn parse_rates(text: &str) -> Result<Vec<f64>, String> {
    let number = |s: &str| s.trim().parse::<f64>().map_err(|_| format!("{s:?} in --rates {text:?} is not a number"));
    let rates = match text.split(':').collect::<Vec<_>>()[..] {
        [from, to, step] => {
            let (from, to, step) = (number(from)?, number(to)?, number(step)?);
            if !(step > 0.0) || to < from || (to - from) / step > 10_000.0 {
                return Err(format!("--rates {text:?}: FROM:TO:STEP with FROM <= TO and at most 10000 steps"));
            }
            (0..).map(|i| from + f64::from(i) * step).take_while(|r| *r <= to * (1.0 + 1e-12)).collect()
        }
        [_] => text.split(',').map(number).collect::<Result<Vec<_>, _>>()?,
        _ => return Err(format!("--rates {text:?}: FROM:TO:STEP or a comma-separated list")),
    };
    if rates.iter().any(|r| !(*r > 0.0 && *r <= 1e9)) {
        return Err(format!("--rates {text:?}: each rate above 0 and at most 1e9 packets/s"));
    }
    if rates.windows(2).any(|w| w[1] <= w[0]) {
        return Err(format!("--rates {text:?}: the rates must ascend"));
    }
    Ok(rates)
}

/// What `op4t knee` runs.
pub struct KneeOptions {
    /// The stream enters a network port and leaves by another, after the host.
    pub setup: super::Setup,
    /// Length of the frames as they leave, stamps included.
    pub size: usize,
    pub rates: Vec<f64>,
    pub seconds: f64,
    pub ring: usize,
    pub forwarders: Vec<Forwarder>,
}

/// One rate of one forwarder.
#[derive(Clone, Debug, Serialize)]
pub struct RatePoint {
    pub rate_pps: f64,
    pub packets_in: u64,
    /// Packets the monitor got back with both stamps.
    pub packets_back: u64,
    pub ring_drops: u64,
    /// t2 − t1 over the packets back.
    pub mean_ns: f64,
    pub stdev_ns: f64,
    pub min_ns: f64,
    pub max_ns: f64,
}

/// One forwarder's curve and its knee.
#[derive(Clone, Debug, Serialize)]
pub struct ForwarderRun {
    pub batch: u32,
    pub interval_us: f64,
    /// B/T.
    pub capacity_pps: f64,
    /// The fit over the points with no ring drop (`None` when it finds no knee).
    pub fit: Option<KneeFit>,
    /// (knee − B/T) / (B/T), percent.
    pub knee_error_percent: Option<f64>,
    pub points: Vec<RatePoint>,
}

/// The report.
#[derive(Clone, Debug, Serialize)]
pub struct KneeReport {
    pub program: String,
    pub frame_bytes: usize,
    pub seconds_per_rate: f64,
    pub ring: usize,
    pub forwarders: Vec<ForwarderRun>,
    /// Set when Ctrl-C cut the run short (the points so far are reported).
    pub interrupted: bool,
}

impl KneeReport {
    pub fn render(&self) -> String {
        let mut s = format!(
            "OP4T-SST through a batching host forwarder ({}, {}-byte frames, {} s per rate, ring of {})\n",
            self.program, self.frame_bytes, self.seconds_per_rate, self.ring
        );
        if self.interrupted {
            s.insert_str(0, "interrupted: results are partial\n");
        }
        for f in &self.forwarders {
            let knee = match (&f.fit, f.knee_error_percent) {
                (Some(fit), Some(e)) => format!("knee {:.0} packets/s ({e:+.2}% of B/T), flat {:.1} µs below it", fit.knee, fit.flat / 1000.0),
                _ => "no knee found (the latency does not rise within the rates)".to_string(),
            };
            s += &format!("B = {} every T = {} µs (B/T = {:.0} packets/s): {knee}\n", f.batch, f.interval_us, f.capacity_pps);
            s += "  rate (packets/s)   in        back      ring drops  mean (µs)   sd (µs)\n";
            for p in &f.points {
                s += &format!(
                    "  {:<18.0} {:<9} {:<9} {:<11} {:<11.2} {:.2}\n",
                    p.rate_pps, p.packets_in, p.packets_back, p.ring_drops, p.mean_ns / 1000.0, p.stdev_ns / 1000.0
                );
            }
        }
        s
    }
}

/// Runs every forwarder over every rate.
pub fn knee(options: &KneeOptions) -> CliResult<KneeReport> {
    check(options)?;
    let compiled = crate::frontend::compile(&options.setup.program, &options.setup.includes)?;
    p4_io::eprint_safe!("{}", compiled.warnings);
    super::check_op4t(&compiled, &options.setup.program)?;
    let entries = options.setup.entries.as_deref().map(crate::cmd::entries::Entries::read).transpose()?;
    let mut switch = crate::frontend::software_switches(compiled, &options.setup.program, 1, Default::default())?.remove(0);
    switch.set_tx_clock(TxClock::Caller);
    if let Some(entries) = &entries {
        entries.apply(&mut switch)?;
    }
    let frame = stream::frame(options.setup.dst, options.size);
    let total: f64 = options.rates.iter().map(|r| r * options.seconds).sum::<f64>() * options.forwarders.len() as f64;
    let progress = p4_io::progress::Progress::new(options.setup.progress, total as u64, "packets");
    p4_io::interrupt::install();
    let mut report = KneeReport {
        program: options.setup.program.display().to_string(),
        frame_bytes: options.size,
        seconds_per_rate: options.seconds,
        ring: options.ring,
        forwarders: Vec::new(),
        interrupted: false,
    };
    'forwarders: for forwarder in &options.forwarders {
        let mut run = ForwarderRun {
            batch: forwarder.batch,
            interval_us: forwarder.interval_us,
            capacity_pps: forwarder.capacity_pps(),
            fit: None,
            knee_error_percent: None,
            points: Vec::new(),
        };
        for &rate in &options.rates {
            progress.set_message(&format!("B = {} every {} µs, {rate:.0} packets/s", forwarder.batch, forwarder.interval_us));
            let point = one_rate(&mut switch, options, *forwarder, rate, &frame, &progress)?;
            if p4_io::interrupt::interrupted() {
                report.interrupted = true;
                report.forwarders.push(finish(run));
                break 'forwarders;
            }
            run.points.push(point);
        }
        report.forwarders.push(finish(run));
    }
    progress.finish();
    Ok(report)
}

/// The fit over the points the ring lost nothing of.
fn finish(mut run: ForwarderRun) -> ForwarderRun {
    let points: Vec<(f64, f64)> = run.points.iter().filter(|p| p.ring_drops == 0 && p.packets_back > 0).map(|p| (p.rate_pps, p.mean_ns)).collect();
    run.fit = fit(&points);
    run.knee_error_percent = run.fit.map(|f| (f.knee - run.capacity_pps) / run.capacity_pps * 100.0);
    run
}

fn check(options: &KneeOptions) -> CliResult<()> {
    if !(stream::MIN_FRAME..=stream::MAX_FRAME).contains(&options.size) {
        return Err(CliError::input(format!("--size {}: frames of {} to {} bytes (the stamps take 16 after the UDP header)", options.size, stream::MIN_FRAME, stream::MAX_FRAME)));
    }
    if !(options.seconds > 0.0 && options.seconds <= 10.0) {
        return Err(CliError::input(format!("--seconds {}: above 0 and at most 10 simulated seconds per rate", options.seconds)));
    }
    if let Some(r) = options.rates.iter().find(|r| *r * options.seconds > MAX_PACKETS_PER_RATE) {
        return Err(CliError::input(format!("{r} packets/s for {} s is more than {MAX_PACKETS_PER_RATE} packets: lower --seconds", options.seconds)));
    }
    if !(1..=MAX_RING).contains(&options.ring) {
        return Err(CliError::input(format!("--ring {}: 1 to {MAX_RING} descriptors", options.ring)));
    }
    if options.forwarders.is_empty() {
        return Err(CliError::input("give at least one --forwarder B/T"));
    }
    let net = p4_ir::arch::op4t::NETWORK_PORTS;
    for (flag, port) in [("--in-port", options.setup.in_port), ("--out-port", options.setup.out_port)] {
        if !net.contains(&port) {
            return Err(CliError::input(format!("{flag} {port}: a network port, {} to {}", net.start, net.end - 1)));
        }
    }
    Ok(())
}

/// One stream at `rate` through the program and `forwarder`.
fn one_rate(
    switch: &mut p4_dataplane::Switch,
    options: &KneeOptions,
    forwarder: Forwarder,
    rate: f64,
    frame: &[u8],
    progress: &p4_io::progress::Progress,
) -> CliResult<RatePoint> {
    let host = p4_ir::arch::op4t::HOST_PORT;
    let packets = (rate * options.seconds).round() as u64;
    let interval_ns = forwarder.interval_us * 1000.0;
    let mut ring: VecDeque<Vec<u8>> = VecDeque::new();
    let mut out = BatchOut::default();
    let mut latencies = Vec::with_capacity(packets as usize);
    let mut point = RatePoint { rate_pps: rate, packets_in: 0, packets_back: 0, ring_drops: 0, mean_ns: 0.0, stdev_ns: 0.0, min_ns: 0.0, max_ns: 0.0 };
    // Times in ns from the stream's start; the first poll one interval in.
    let mut next_poll = interval_ns;
    let mut tx_free = 0.0f64;
    let mut sent = 0u64;
    // Where the stream went instead, if not where the experiment needs it.
    let unexpected = |went: String, from: &str| {
        CliError::input(format!(
            "{}: a stream packet from {from} {went}; the entries must send the stream from port {} to the host ({host}) and from the host to port {}",
            options.setup.program.display(),
            options.setup.in_port,
            options.setup.out_port
        ))
    };
    let dropped = |switch: &p4_dataplane::Switch, out: &BatchOut| match out.drops.first() {
        Some(d) => format!("was dropped ({})", switch.drop_text(&d.reason)),
        None => "was dropped".to_string(),
    };
    while sent < packets || !ring.is_empty() {
        let arrival = (sent < packets).then(|| (sent as f64 * 1e9 / rate).round());
        match arrival {
            Some(t) if t < next_poll => {
                switch.process_batch(&[PacketIn { port: options.setup.in_port, data: frame, now_ns: t as u64 }], &mut out);
                sent += 1;
                point.packets_in += 1;
                let from = || format!("port {}", options.setup.in_port);
                if out.packets.is_empty() {
                    return Err(unexpected(dropped(switch, &out), &from()));
                }
                for p in &out.packets {
                    if p.port != host {
                        return Err(unexpected(format!("went to port {}", p.port), &from()));
                    }
                    if ring.len() < options.ring {
                        ring.push_back(out.data(p).to_vec());
                    } else {
                        point.ring_drops += 1;
                    }
                }
                if sent % 4096 == 0 {
                    progress.inc(4096);
                    if p4_io::interrupt::interrupted() {
                        break;
                    }
                }
            }
            Some(t) if ring.is_empty() => {
                // Polls of an empty ring until the next arrival change nothing.
                next_poll += ((t - next_poll) / interval_ns).floor() * interval_ns;
                if next_poll <= t {
                    next_poll += interval_ns;
                }
            }
            _ => {
                let now = next_poll as u64;
                for _ in 0..forwarder.batch.min(ring.len() as u32) {
                    let data = ring.pop_front().expect("counted");
                    switch.process_batch(&[PacketIn { port: host, data: &data, now_ns: now }], &mut out);
                    if out.packets.is_empty() {
                        return Err(unexpected(dropped(switch, &out), "the host"));
                    }
                    for i in 0..out.packets.len() {
                        let p = out.packets[i];
                        if p.port != options.setup.out_port {
                            return Err(unexpected(format!("went to port {}", p.port), "the host"));
                        }
                        let start = tx_free.max(now as f64);
                        tx_free = start + super::wire_ns(p.len);
                        out.write_tx_stamps(|_| start.round() as u64);
                        let Some((t1, t2)) = stream::stamps_ns(out.data(&out.packets[i])) else { continue };
                        point.packets_back += 1;
                        latencies.push(t2 as f64 - t1 as f64);
                    }
                }
                next_poll += interval_ns;
            }
        }
    }
    progress.inc(sent % 4096);
    let s = p4_netsim::stats::summarize(&latencies);
    (point.mean_ns, point.stdev_ns, point.min_ns, point.max_ns) = (s.mean_ns, s.stdev_ns, s.min_ns, s.max_ns);
    Ok(point)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forwarders_and_rates_parse() {
        assert_eq!(parse_forwarder("32/80"), Ok(Forwarder { batch: 32, interval_us: 80.0 }));
        assert_eq!(parse_forwarder("256/100us").map(|f| f.capacity_pps()), Ok(2_560_000.0));
        assert!(parse_forwarder("0/80").unwrap_err().contains("1 to 1000000"));
        assert!(parse_forwarder("32").unwrap_err().contains("BATCH/INTERVAL_US"));
        assert_eq!(parse_rates("100:400:100"), Ok(vec![100.0, 200.0, 300.0, 400.0]));
        assert_eq!(parse_rates("5,7.5"), Ok(vec![5.0, 7.5]));
        assert!(parse_rates("7,5").unwrap_err().contains("ascend"));
        assert!(parse_rates("1:2:0").is_err());
        assert!(parse_rates("0,5").is_err());
    }
}

/// The plot: mean t2 − t1 against rate, a line per forwarder, and its B/T as a dashed line.
pub fn figure(report: &KneeReport) -> Vec<p4_netsim::plot::Panel> {
    use p4_netsim::plot::{Line, Panel, Style};
    let top = report.forwarders.iter().flat_map(|f| f.points.iter()).map(|p| p.mean_ns / 1000.0).fold(0.0, f64::max);
    let mut lines = Vec::new();
    for f in &report.forwarders {
        let label = format!("B = {}, T = {} µs", f.batch, f.interval_us);
        lines.push(Line::new(&label, f.points.iter().map(|p| (p.rate_pps / 1000.0, p.mean_ns / 1000.0)).collect()));
        let knee = f.fit.map_or(String::new(), |k| format!(", knee {:.0}k", k.knee / 1000.0));
        let x = f.capacity_pps / 1000.0;
        lines.push(Line::new(format!("B/T = {x:.0}k{knee}"), vec![(x, 0.0), (x, top)]).styled(Style::Dashed).in_previous_color());
    }
    vec![Panel { y_label: "mean t2 - t1 (µs)".into(), lines, y_range: None }]
}

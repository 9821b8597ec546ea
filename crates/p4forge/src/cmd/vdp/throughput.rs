//! `p4forge vdp throughput`: the VDP pipeline's zero-loss throughput in the RTL simulation of a
//! 4-port switch (with its host port), for several numbers of VDPs, in the manner of RFC 2544.
//!
//! For each N the supervisor creates N VDPs, each claiming the packets of its VLAN (VDP v: VLAN
//! v), routed by its default out of the port after the one its traffic enters (MACs rewritten,
//! TTL decremented), and, where its action slices leave room, one rule forwarding its UDP port 7
//! packets unchanged out of the same port. The action table is shared out evenly: N VDPs get
//! 2,048 / N entries each (two of them its default and the room for a migration's catch-all).
//! VDP v's slow path is DMA channel v mod 4 (one of the host port's four queue pairs). VDP v's traffic enters port (v - 1) mod 4, so every port takes line rate in and sends line rate
//! out. Each port's frames go round the VDPs of that port, alternating UDP ports 7 and 9.
//!
//! A trial sends the same number of frames into every port at a rate (percent of line rate,
//! frames spaced by wire time) and counts what comes out; every frame out is compared with what
//! the software target, the golden model with the same entries, makes of the frames in. The
//! zero-loss throughput is the highest rate of a trial with no frame lost, found by halving the
//! interval below line rate when line rate loses frames (to 1 % of line rate).

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::Serialize;

use super::supervisor::{flags, Action, Op, Supervisor};
use super::tuple::TupleMatch;
use super::{names_of, Loaded, Names};
use crate::error::{CliError, CliResult};
use p4_dataplane::control::{ControlPlane, PacketIo};

/// Front-panel ports of the switch the experiment runs on (the seed's four).
pub const PORTS: u32 = 4;
/// Most frames per port in a trial (every frame is kept and compared).
pub const MAX_PACKETS: u32 = 100_000;
/// The UDP port a VDP's rule forwards unchanged; the other frames (port 9) take its default.
const RULE_UDP_PORT: u16 = 7;
const DEFAULT_UDP_PORT: u16 = 9;
/// Resolution of the search below line rate, in percent of line rate.
const RESOLUTION_PERCENT: f64 = 1.0;

/// What `vdp throughput` runs.
pub struct ThroughputOptions {
    pub program: PathBuf,
    pub includes: Vec<PathBuf>,
    /// The numbers of VDPs.
    pub vdps: Vec<u32>,
    /// Frame sizes in bytes.
    pub sizes: Vec<usize>,
    /// Frames per port per trial.
    pub packets: u32,
    pub rtl: p4_rtl::Options,
    pub speed: p4_rtl::sim::CxxSpeed,
    pub progress: bool,
}

/// The tables for one N.
#[derive(Clone, Debug, Serialize)]
pub struct Tenants {
    pub vdps: u32,
    /// Physical entries in the mapping and the action table.
    pub map_entries: usize,
    pub action_entries: usize,
    /// Action rules beside the defaults.
    pub rules: usize,
}

/// One size at one N.
#[derive(Clone, Debug, Serialize)]
pub struct Point {
    pub vdps: u32,
    pub size: usize,
    /// Zero-loss throughput in percent of line rate.
    pub zero_loss_percent: f64,
    /// Trials the search took (1 when line rate lost nothing).
    pub trials: u32,
    /// The trial at line rate: frames into the four ports, out of them, lost, and out but not as
    /// the software target makes them.
    pub frames_in: u64,
    pub frames_out: u64,
    pub lost: u64,
    pub wrong: u64,
    /// Frames forwarded per pipeline cycle at line rate (first to last frame out, four ports),
    /// beside what four ports at line rate bring.
    pub packets_per_cycle: f64,
    pub line_rate_packets_per_cycle: f64,
    /// The same in millions of frames per second and Gb/s on the wire (20 bytes of preamble and
    /// gap per frame), all four ports.
    pub mpps: f64,
    pub gbps: f64,
}

/// The report.
#[derive(Clone, Debug, Serialize)]
pub struct ThroughputReport {
    pub program: String,
    pub ports: u32,
    pub data_width: u32,
    pub clock_mhz: f64,
    pub packets_per_port: u32,
    pub tenants: Vec<Tenants>,
    pub points: Vec<Point>,
    /// Every point reached line rate with nothing lost or wrong.
    pub zero_loss_at_line_rate: bool,
    pub interrupted: bool,
}

impl ThroughputReport {
    pub fn render(&self) -> String {
        let mut o = format!(
            "{}: zero-loss throughput of {PORTS} ports in the RTL simulation ({}-bit pipeline at {} MHz), {} frames per port per trial\n",
            self.program, self.data_width, self.clock_mhz, self.packets_per_port
        );
        o += &format!("{:>6} {:>6} {:>11} {:>8} {:>8} {:>6} {:>6} {:>8} {:>10} {:>8} {:>8}\n", "VDPs", "bytes", "zero-loss %", "in", "out", "lost", "wrong", "pkt/cyc", "line rate", "Mpps", "Gb/s");
        for p in &self.points {
            o += &format!(
                "{:>6} {:>6} {:>11.1} {:>8} {:>8} {:>6} {:>6} {:>8.4} {:>10.4} {:>8.2} {:>8.2}\n",
                p.vdps, p.size, p.zero_loss_percent, p.frames_in, p.frames_out, p.lost, p.wrong, p.packets_per_cycle, p.line_rate_packets_per_cycle, p.mpps, p.gbps
            );
        }
        for t in &self.tenants {
            o += &format!(
                "{} VDPs: {} mapping and {} action entries ({} rules beside the defaults)\n",
                t.vdps, t.map_entries, t.action_entries, t.rules
            );
        }
        o += if self.zero_loss_at_line_rate { "every point: line rate, nothing lost, every frame as the software target makes it\n" } else { "NOT every point reached line rate without loss (see above)\n" };
        if self.interrupted {
            o += "interrupted: the points above are those completed\n";
        }
        o
    }
}

/// The port VDP `vid`'s traffic enters.
fn port_of(vid: u16) -> u32 {
    u32::from(vid - 1) % PORTS
}

/// The port its traffic leaves by.
fn out_port_of(vid: u16) -> u32 {
    (port_of(vid) + 1) % PORTS
}

/// The supervisor with `n` VDPs as the module's header describes, and the physical inserts that
/// load them, the entries that win first (so each lands after those written before it).
pub fn tenants(sup: &mut Supervisor, n: u32) -> Result<Vec<Op>, String> {
    let geometry = sup.geometry;
    if n == 0 || n > geometry.map_entries || n > 4094 {
        return Err(format!("{n} VDPs: 1 to {} (one mapping entry and one VLAN each)", geometry.map_entries.min(4094)));
    }
    let action_slices = geometry.action_entries / geometry.slice_entries / n;
    if action_slices * geometry.slice_entries < 2 {
        return Err(format!("{n} VDPs: the action table's {} entries leave fewer than 2 per VDP", geometry.action_entries));
    }
    let plan = sup.change(|s| {
        for vid in 1..=n as u16 {
            s.create(vid, 1, action_slices, super::channel_of(vid))?;
            s.map_add(vid, 1, 10, TupleMatch::parse([format!("vlan={vid}").as_str()])?)?;
            let out = out_port_of(vid) as u16;
            let route = Action::Process {
                flags: flags::FORWARD | flags::PORT_VALID | flags::CHANGE_MAC | flags::TTL,
                port: out,
                dst_mac: 0x0200_0000_0000 | u64::from(vid),
                src_mac: 0x0200_00ff_0000 | u64::from(out),
                channel: 0,
            };
            s.set_default(vid, route)?;
            if action_slices * geometry.slice_entries > 2 {
                let m = TupleMatch::parse(["proto=17", format!("dst_port={RULE_UDP_PORT}").as_str()])?;
                let forward = Action::Process { flags: flags::FORWARD | flags::PORT_VALID, port: out, dst_mac: 0, src_mac: 0, channel: 0 };
                s.rule_add(vid, 1, 10, m, forward)?;
            }
        }
        Ok(())
    })?;
    let mut ops = plan.hardware;
    ops.sort_by_key(|op| match op {
        Op::Insert(e) | Op::Modify(e) | Op::Delete(e) => (e.table, e.priority, e.vid),
    });
    Ok(ops)
}

/// Frame `seq` of VDP `vid`, `size` bytes: VLAN `vid`, IPv4 and UDP to `udp_port`, the sequence
/// number in the first 8 bytes of the payload.
pub fn frame(vid: u16, seq: u64, udp_port: u16, size: usize) -> Vec<u8> {
    let port = port_of(vid) as u8;
    let mut b = Vec::with_capacity(size);
    b.extend([0x02, 0, 0, 0, 0, 0x01, 0x02, 0, 0, 0, port, 0x01, 0x81, 0x00]);
    b.extend(vid.to_be_bytes());
    b.extend([0x08, 0x00]);
    let ip_at = b.len();
    let total = (size.max(ip_at + 36) - ip_at) as u16;
    b.extend([0x45, 0]);
    b.extend(total.to_be_bytes());
    b.extend([0, 1, 0, 0, 64, 17, 0, 0]);
    b.extend([10, port, (seq >> 8) as u8, seq as u8]);
    b.extend([10, 200, 0, 1]);
    let c = p4_dataplane::hashing::csum16(&b[ip_at..ip_at + 20]);
    b[ip_at + 10..ip_at + 12].copy_from_slice(&c.to_be_bytes());
    b.extend(4000u16.to_be_bytes());
    b.extend(udp_port.to_be_bytes());
    b.extend((total - 20).to_be_bytes());
    b.extend([0, 0]);
    b.extend(seq.to_be_bytes());
    b.resize(size.max(b.len()), 0);
    b
}

/// The frames of a trial: per port, `packets` frames going round its VDPs.
pub(super) fn frames(n: u32, size: usize, packets: u32) -> Vec<Vec<(u32, Vec<u8>)>> {
    let mut by_port: Vec<Vec<u16>> = vec![Vec::new(); PORTS as usize];
    for vid in 1..=n as u16 {
        by_port[port_of(vid) as usize].push(vid);
    }
    (0..u64::from(packets))
        .map(|k| {
            by_port
                .iter()
                .enumerate()
                .filter(|(_, vids)| !vids.is_empty())
                .map(|(p, vids)| {
                    let vid = vids[(k % vids.len() as u64) as usize];
                    let udp = if (k / vids.len() as u64) % 2 == 0 { RULE_UDP_PORT } else { DEFAULT_UDP_PORT };
                    (p as u32, frame(vid, k, udp, size))
                })
                .collect()
        })
        .collect()
}

/// What one trial found: frames in, out, lost, wrong; cycles from the first frame out to the last.
struct Trial {
    frames_in: u64,
    frames_out: u64,
    lost: u64,
    wrong: u64,
    span_cycles: u64,
}

/// Per output port, the frames the software target sends, in order.
fn expected(software: &mut p4_dataplane::Switch, frames: &[Vec<(u32, Vec<u8>)>]) -> BTreeMap<u32, Vec<Vec<u8>>> {
    let mut out: BTreeMap<u32, Vec<Vec<u8>>> = BTreeMap::new();
    for (port, data) in frames.iter().flatten() {
        for o in software.inject(*port, data, 0).outputs {
            out.entry(o.port).or_default().push(o.data);
        }
    }
    out
}

/// Matches what came out of each port with what should have: in order, a frame missing from the
/// sequence is lost, a frame not in it is wrong. Returns (matched, wrong).
pub(super) fn compare(expected: &BTreeMap<u32, Vec<Vec<u8>>>, got: &BTreeMap<u32, Vec<Vec<u8>>>) -> (u64, u64) {
    let (mut matched, mut wrong) = (0, 0);
    for (port, frames) in got {
        let want = expected.get(port).map_or(&[][..], |v| &v[..]);
        let mut at = 0;
        for f in frames {
            match want[at..].iter().position(|w| w == f) {
                Some(skip) => {
                    at += skip + 1;
                    matched += 1;
                }
                None => wrong += 1,
            }
        }
    }
    (matched, wrong)
}

fn trial(switch: &mut p4_rtl::sim::RtlSwitch, frames: &[Vec<(u32, Vec<u8>)>], want: &BTreeMap<u32, Vec<Vec<u8>>>, size: usize, percent: f64) -> CliResult<Trial> {
    let gap_ns = crate::cmd::op4t::wire_ns(size) * 100.0 / percent;
    let mut frames_in = 0;
    for (k, row) in frames.iter().enumerate() {
        for (port, data) in row {
            switch.queue(*port, (k as f64 * gap_ns).round() as u64, data).map_err(CliError::input)?;
            frames_in += 1;
        }
    }
    let run = switch.run().map_err(CliError::failed)?;
    let mut got: BTreeMap<u32, Vec<Vec<u8>>> = BTreeMap::new();
    for o in &run.outputs {
        got.entry(o.port).or_default().push(o.data.clone());
    }
    let span_cycles = match (run.outputs.iter().map(|o| o.first).min(), run.outputs.iter().map(|o| o.first).max()) {
        (Some(a), Some(b)) => b - a,
        _ => 0,
    };
    let (matched, wrong) = compare(want, &got);
    Ok(Trial { frames_in, frames_out: run.outputs.len() as u64, lost: frames_in - matched.min(frames_in), wrong, span_cycles })
}

fn check(options: &ThroughputOptions) -> CliResult<()> {
    if options.vdps.is_empty() || options.sizes.is_empty() {
        return Err(CliError::input("--vdps and --sizes each need one value at least"));
    }
    if let Some(size) = options.sizes.iter().find(|s| !(64..=1518).contains(*s)) {
        return Err(CliError::input(format!("--sizes {size}: frames are 64 to 1518 bytes")));
    }
    if !(2..=MAX_PACKETS).contains(&options.packets) {
        return Err(CliError::input(format!("--packets {}: 2 to {MAX_PACKETS} per port", options.packets)));
    }
    Ok(())
}

/// Runs every size at every N.
pub fn throughput(options: &ThroughputOptions) -> CliResult<ThroughputReport> {
    check(options)?;
    let compile = || super::compile(&options.program, &options.includes);
    let probe = crate::frontend::software_switches(compile()?, &options.program, 1, Default::default())?.remove(0);
    let catalog = probe.control_catalog().cloned().ok_or_else(|| CliError::failed("the software target has no control plane"))?;
    let (names, geometry) = names_of(&catalog, 1).map_err(|e| CliError::input(format!("{}: {e}", options.program.display())))?;
    // Every N is checked before the model is built.
    for &n in &options.vdps {
        tenants(&mut Supervisor::new(geometry).map_err(CliError::input)?, n).map_err(|e| CliError::input(format!("--vdps: {e}")))?;
    }
    let compiled = compile()?;
    let mut report = ThroughputReport {
        program: options.program.display().to_string(),
        ports: PORTS,
        data_width: 0,
        clock_mhz: 0.0,
        packets_per_port: options.packets,
        tenants: Vec::new(),
        points: Vec::new(),
        zero_loss_at_line_rate: false,
        interrupted: false,
    };
    let progress = p4_io::progress::Progress::new(options.progress, (options.vdps.len() * options.sizes.len()) as u64, "points");
    let mut built = Some(compiled);
    p4_io::interrupt::install();
    'vdps: for &n in &options.vdps {
        progress.set_message(&format!("{n} VDPs: building the model and writing the entries"));
        // A fresh model per N: its tables hold this N's entries only.
        let compiled = match built.take() {
            Some(c) => c,
            None => compile()?,
        };
        let mut switch = crate::cmd::rtl::switch_built(compiled, &options.program, &options.rtl, options.speed)?;
        switch.set_paced(true).map_err(CliError::input)?;
        let manifest = switch.manifest().clone();
        report.data_width = manifest.data_width;
        report.clock_mhz = manifest.clock_mhz;
        let mut software = crate::frontend::software_switches(compile()?, &options.program, 1, Default::default())?.remove(0);
        let mut sup = Supervisor::new(geometry).map_err(CliError::input)?;
        let ops = tenants(&mut sup, n).map_err(CliError::input)?;
        load(&mut switch, &names, &ops).map_err(|e| CliError::failed(format!("{n} VDPs, the hardware target: {e}")))?;
        load(&mut software, &names, &ops).map_err(|e| CliError::failed(format!("{n} VDPs, the software target: {e}")))?;
        let entries = sup.entries();
        report.tenants.push(Tenants {
            vdps: n,
            map_entries: entries.iter().filter(|e| e.table == super::supervisor::Table::Map).count(),
            action_entries: entries.iter().filter(|e| e.table == super::supervisor::Table::Action).count(),
            rules: sup.vdps.values().map(|v| v.rules.len()).sum(),
        });
        for &size in &options.sizes {
            progress.set_message(&format!("{n} VDPs, {size} B"));
            let frames = frames(n, size, options.packets);
            let want = expected(&mut software, &frames);
            let at_line_rate = trial(&mut switch, &frames, &want, size, 100.0)?;
            let mut trials = 1;
            let mut best = if at_line_rate.lost == 0 { 100.0 } else { 0.0 };
            let (mut lo, mut hi) = (0.0, 100.0);
            while best < 100.0 && hi - lo > RESOLUTION_PERCENT {
                let mid = (lo + hi) / 2.0;
                let t = trial(&mut switch, &frames, &want, size, mid)?;
                trials += 1;
                if t.lost == 0 {
                    best = mid;
                    lo = mid;
                } else {
                    hi = mid;
                }
            }
            let ns_per_cycle = 1000.0 / manifest.clock_mhz;
            let ppc = if at_line_rate.span_cycles > 0 { (at_line_rate.frames_out.saturating_sub(1)) as f64 / at_line_rate.span_cycles as f64 } else { 0.0 };
            let mpps = ppc * manifest.clock_mhz;
            report.points.push(Point {
                vdps: n,
                size,
                zero_loss_percent: best,
                trials,
                frames_in: at_line_rate.frames_in,
                frames_out: at_line_rate.frames_out,
                lost: at_line_rate.lost,
                wrong: at_line_rate.wrong,
                packets_per_cycle: ppc,
                line_rate_packets_per_cycle: f64::from(PORTS) * ns_per_cycle / crate::cmd::op4t::wire_ns(size),
                mpps,
                gbps: mpps * (size as u64 + p4_rtl::switch_sim::WIRE_OVERHEAD_BYTES) as f64 * 8.0 / 1000.0,
            });
            progress.inc(1);
            if p4_io::interrupt::interrupted() {
                report.interrupted = true;
                break 'vdps;
            }
        }
    }
    progress.finish();
    report.zero_loss_at_line_rate = !report.interrupted && !report.points.is_empty() && report.points.iter().all(|p| p.zero_loss_percent == 100.0 && p.lost == 0 && p.wrong == 0);
    Ok(report)
}

/// Writes `ops` into a dataplane.
fn load(cp: &mut dyn ControlPlane, names: &Names, ops: &[Op]) -> Result<(), String> {
    Loaded::default().apply(cp, names, ops)
}

#[cfg(test)]
mod tests {
    use super::super::supervisor::{Geometry, Table};
    use super::*;

    fn geometry() -> Geometry {
        Geometry { map_entries: 1024, action_entries: 2048, slice_entries: 1 }
    }

    #[test]
    fn n_vdps_share_the_action_table_evenly_with_a_rule_each_while_room_is_left() {
        for (n, rules) in [(4, 4), (64, 64), (256, 256), (1024, 0)] {
            let mut sup = Supervisor::new(geometry()).unwrap();
            let ops = tenants(&mut sup, n).unwrap();
            assert_eq!(sup.vdps.len(), n as usize);
            assert_eq!(sup.vdps.values().map(|v| v.rules.len()).sum::<usize>(), rules, "{n} VDPs");
            let count = |t: Table| ops.iter().filter(|op| matches!(op, Op::Insert(e) if e.table == t)).count();
            assert_eq!((count(Table::Map), count(Table::Action)), (n as usize, n as usize + rules));
            // Winners first: each table's priorities never fall back.
            for t in [Table::Map, Table::Action] {
                let p: Vec<u32> = ops.iter().filter_map(|op| if let Op::Insert(e) = op { (e.table == t).then_some(e.priority) } else { None }).collect();
                assert!(p.windows(2).all(|w| w[0] <= w[1]), "{t:?}");
            }
        }
        assert!(tenants(&mut Supervisor::new(geometry()).unwrap(), 1025).unwrap_err().contains("1 to 1024"));
        assert!(tenants(&mut Supervisor::new(geometry()).unwrap(), 0).is_err());
    }

    #[test]
    fn a_frame_carries_its_vlan_a_valid_ipv4_header_and_its_size() {
        let f = frame(6, 0x0102, 7, 64);
        assert_eq!(f.len(), 64);
        assert_eq!(&f[12..16], &[0x81, 0x00, 0, 6]);
        assert_eq!(p4_dataplane::hashing::csum16(&f[18..38]), 0);
        // From port (6 - 1) mod 4 = 1, sequence 0x0102 in the source address and the payload.
        assert_eq!(&f[30..34], &[10, 1, 1, 2]);
        assert_eq!(&f[40..42], &[0, 7]);
        assert_eq!(&f[46..54], &0x0102u64.to_be_bytes());
        assert_eq!(frame(1, 0, 9, 1518).len(), 1518);
    }

    #[test]
    fn a_trial_goes_round_each_ports_vdps_alternating_rule_and_default() {
        let rows = frames(8, 64, 4);
        // Two VDPs per port: 1 and 5 on port 0.
        let vlan = |f: &[u8]| u16::from_be_bytes([f[14], f[15]]);
        let udp = |f: &[u8]| u16::from_be_bytes([f[40], f[41]]);
        let port0: Vec<(u16, u16)> = rows.iter().map(|r| (vlan(&r[0].1), udp(&r[0].1))).collect();
        assert_eq!(port0, vec![(1, 7), (5, 7), (1, 9), (5, 9)]);
        assert!(rows.iter().all(|r| r.iter().map(|(p, _)| *p).collect::<Vec<_>>() == vec![0, 1, 2, 3]));
    }

    #[test]
    fn a_missing_frame_is_lost_and_a_foreign_one_wrong() {
        let want: BTreeMap<u32, Vec<Vec<u8>>> = [(1, vec![vec![1], vec![2], vec![3]])].into();
        let got: BTreeMap<u32, Vec<Vec<u8>>> = [(1, vec![vec![1], vec![3], vec![9]])].into();
        assert_eq!(compare(&want, &got), (2, 1));
        // Out of order: the earlier one after the later one is not in the rest of the sequence.
        let got: BTreeMap<u32, Vec<Vec<u8>>> = [(1, vec![vec![2], vec![1], vec![3]])].into();
        assert_eq!(compare(&want, &got), (2, 1));
    }
}

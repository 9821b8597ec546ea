//! `p4forge op4t swap PROG --second PROG2`: a live swap of the OP4T shell's packet processor to a
//! different program and back, under traffic, in the RTL simulation, with every frame checked.
//!
//! The shell (`--arch op4t`) carries PROG in processor 0 and PROG2 in processor 1, each with its
//! own entries. The four network ports' on-chip generators send numbered frames at the given rate
//! (line rate by default) while the decoupler hands the traffic from one processor to the other
//! at the given times. The simulation keeps every frame the TX MACs send, and the software
//! target, the golden model, runs each generated frame through PROG and through PROG2: every frame
//! out must be what one of the two programs makes of one frame in, each frame in must come out
//! exactly as one program makes it (nothing lost, cut, repeated or mixed), in order on each path,
//! and the program that had each port's frames changes no more often than the processors were
//! swapped. The frames are not IP, so no timestamp is written into them and the outputs of the
//! two targets compare whole.

use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;

use serde::Serialize;

use crate::error::{CliError, CliResult};
use p4_dataplane::control::PacketIo;

/// Most frames per port (every frame is kept and compared).
pub const MAX_PACKETS: u64 = 100_000;

/// What `op4t swap` runs.
pub struct SwapOptions {
    pub program: PathBuf,
    pub includes: Vec<PathBuf>,
    pub entries: Option<PathBuf>,
    pub second: PathBuf,
    pub second_entries: Option<PathBuf>,
    /// Frame size in bytes.
    pub size: usize,
    /// Gb/s on the wire per port (10: line rate).
    pub rate_gbps: f64,
    /// Frames per port.
    pub packets: u64,
    /// When to swap, ns after the traffic starts; empty: at a third and two thirds of the run.
    pub swaps_at_ns: Vec<u64>,
    pub rtl: p4_rtl::Options,
    pub speed: p4_rtl::sim::CxxSpeed,
}

/// Which program made a frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Maker {
    First,
    Second,
    /// Both programs make the same frames of it.
    Either,
}

/// One network port's frames.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct PortSwap {
    pub frames_in: u64,
    /// Frames in that came out as the first program makes them, and as the second does.
    pub by_first: u64,
    pub by_second: u64,
    /// Times the program that had this port's frames changed, in the order they came out.
    pub program_changes: u64,
}

/// The report.
#[derive(Clone, Debug, Serialize)]
pub struct SwapReport {
    pub program: String,
    pub second: String,
    pub frame_bytes: usize,
    pub rate_gbps: f64,
    pub packets_per_port: u64,
    pub swaps_at_ns: Vec<u64>,
    /// The decoupler's counts after the run.
    pub processors: Option<p4_rtl::switch_sim::ProcessorCounts>,
    pub frames_in: u64,
    pub frames_out: u64,
    /// Frames in that came out as neither program makes them: missing (lost), or some of their
    /// copies missing.
    pub lost: u64,
    /// Frames out that neither program makes of any frame in (cut, mixed or changed).
    pub corrupted: u64,
    /// Frames in that came out more often than a program makes them.
    pub duplicated: u64,
    /// Frames out before one that entered earlier on the same port and left by the same port.
    pub out_of_order: u64,
    /// Frames the RX queues, the buffer or the TX queues dropped.
    pub queue_drops: u64,
    /// By ingress port.
    pub ports: BTreeMap<u32, PortSwap>,
    /// The first frame out that neither program makes, as `port N: HEX`.
    pub first_corrupted: Option<String>,
    pub simulated_us: f64,
    /// Nothing lost, corrupted, duplicated, reordered or dropped; every swap made, no stray beat;
    /// and each port's frames changed program no more often than the processors were swapped.
    pub clean: bool,
}

impl SwapReport {
    pub fn render(&self) -> String {
        let mut o = format!(
            "{} in processor 0, {} in processor 1: {} ports x {} frames of {} bytes at {} Gb/s, swaps at {} ns ({:.1} us simulated)\n",
            self.program,
            self.second,
            self.ports.len(),
            self.packets_per_port,
            self.frame_bytes,
            self.rate_gbps,
            self.swaps_at_ns.iter().map(u64::to_string).collect::<Vec<_>>().join(", "),
            self.simulated_us
        );
        if let Some(p) = &self.processors {
            o += &format!(
                "processors: {} swaps, processor {} active, the last swap drained in {} cycles, {} stray beats\n",
                p.swaps, p.active, p.drain_cycles, p.stray_beats
            );
        }
        o += "port  frames in  by processor 0's program  by processor 1's  program changes\n";
        for (p, r) in &self.ports {
            o += &format!("{p:>4}  {:>9}  {:>24}  {:>16}  {:>15}\n", r.frames_in, r.by_first, r.by_second, r.program_changes);
        }
        o += &format!(
            "frames in {}, out {}: lost {}, corrupted {}, duplicated {}, out of order {}, queue drops {}\n",
            self.frames_in, self.frames_out, self.lost, self.corrupted, self.duplicated, self.out_of_order, self.queue_drops
        );
        if let Some(f) = &self.first_corrupted {
            o += &format!("first corrupted frame: {f}\n");
        }
        o += if self.clean {
            "clean: every frame out once, whole and in order, as the program then in place makes it\n"
        } else {
            "NOT clean\n"
        };
        o
    }
}

fn check(options: &SwapOptions) -> CliResult<()> {
    if !(1..=MAX_PACKETS).contains(&options.packets) {
        return Err(CliError::input(format!("--packets {}: from 1 to {MAX_PACKETS} frames per port", options.packets)));
    }
    let max = p4_rtl::PAYLOAD_FIFO_BEATS as usize * options.rtl.data_width as usize / 8;
    if !(p4_rtl::switch_sim::MIN_GEN_SIZE..=max).contains(&options.size) {
        return Err(CliError::input(format!("--size {}: from {} to {max} bytes", options.size, p4_rtl::switch_sim::MIN_GEN_SIZE)));
    }
    if !(options.rate_gbps > 0.0 && options.rate_gbps <= p4_rtl::switch_sim::LINE_RATE_GBPS) {
        return Err(CliError::input(format!("--rate {}: Gb/s above 0 and at most {}", options.rate_gbps, p4_rtl::switch_sim::LINE_RATE_GBPS)));
    }
    Ok(())
}

/// Runs the swap and checks every frame.
pub fn swap(options: &SwapOptions) -> CliResult<SwapReport> {
    check(options)?;
    let entries = options.entries.as_deref().map(crate::cmd::entries::Entries::read).transpose()?;
    let second_entries = options.second_entries.as_deref().map(crate::cmd::entries::Entries::read).transpose()?;
    let compile = |path: &std::path::Path| -> CliResult<crate::frontend::Compiled> {
        let compiled = crate::frontend::compile(path, &options.includes)?;
        p4_io::eprint_safe!("{}", compiled.warnings);
        super::check_op4t(&compiled, path)?;
        Ok(compiled)
    };
    // The golden model: each program on the software target with its entries.
    let mut software = Vec::new();
    for (path, entries) in [(&options.program, &entries), (&options.second, &second_entries)] {
        let mut switch = crate::frontend::software_switches(compile(path)?, path, 1, Default::default())?.remove(0);
        if let Some(entries) = entries {
            entries.apply(&mut switch)?;
        }
        software.push(switch);
    }
    let rtl = p4_rtl::Options {
        traffic: true,
        second: Some(crate::cmd::rtl::second_program(&options.second, &options.includes)?),
        ..options.rtl.clone()
    };
    let mut hardware = crate::cmd::rtl::switch_built(compile(&options.program)?, &options.program, &rtl, options.speed)?;
    if let Some(entries) = &entries {
        entries.apply(&mut hardware)?;
    }
    if let Some(entries) = &second_entries {
        hardware.address_processor(1).map_err(CliError::input)?;
        entries.apply(&mut hardware)?;
        hardware.address_processor(0).map_err(CliError::input)?;
    }

    let ports: Vec<u32> = p4_ir::arch::op4t::NETWORK_PORTS.collect();
    let frame_ns = super::wire_ns(options.size) * p4_rtl::switch_sim::LINE_RATE_GBPS / options.rate_gbps;
    let run_ns = frame_ns * options.packets as f64;
    let swaps_at_ns = if options.swaps_at_ns.is_empty() { vec![(run_ns / 3.0) as u64, (run_ns * 2.0 / 3.0) as u64] } else { options.swaps_at_ns.clone() };

    // What each program makes of each frame in.
    let mut expected: [Expected; 2] = Default::default();
    for &port in &ports {
        for seq in 0..options.packets {
            let frame = p4_rtl::switch_sim::generated_frame(port, seq, options.size, true);
            for (which, sw) in software.iter_mut().enumerate() {
                let mut outs: Vec<Frame> = sw.inject(port, &frame, 0).outputs.into_iter().map(|o| (o.port, o.data)).collect();
                outs.sort();
                expected[which].insert((port, seq), outs);
            }
        }
    }

    eprintln!("simulating {} frames per port with swaps at {swaps_at_ns:?} ns", options.packets);
    let gens: Vec<p4_rtl::switch_sim::PortGen> =
        ports.iter().map(|&port| p4_rtl::switch_sim::PortGen { port, size: options.size, rate_gbps: options.rate_gbps, count: options.packets }).collect();
    let settings = p4_rtl::switch_sim::RunSettings { swaps_at_ps: swaps_at_ns.iter().map(|ns| ns * 1000).collect(), keep_frames: true, ..Default::default() };
    let run = hardware.run_generated_with(&gens, &settings).map_err(CliError::failed)?;

    let t = tally(&expected, &run.frames);
    let queue_drops: u64 = run.ports.values().map(|r| r.rx_drops + r.buffer_drops + r.tx_drops).sum();
    let swaps_made = run.processors.is_some_and(|p| p.swaps == swaps_at_ns.len() as u64 && p.stray_beats == 0);
    let changes_match = t.ports.values().all(|r| r.program_changes <= swaps_at_ns.len() as u64);
    let clean = t.lost == 0 && t.corrupted == 0 && t.duplicated == 0 && t.out_of_order == 0 && queue_drops == 0 && swaps_made && changes_match;
    Ok(SwapReport {
        program: options.program.display().to_string(),
        second: options.second.display().to_string(),
        frame_bytes: options.size,
        rate_gbps: options.rate_gbps,
        packets_per_port: options.packets,
        swaps_at_ns,
        processors: run.processors,
        frames_in: options.packets * ports.len() as u64,
        frames_out: run.frames.len() as u64,
        lost: t.lost,
        corrupted: t.corrupted,
        duplicated: t.duplicated,
        out_of_order: t.out_of_order,
        queue_drops,
        ports: t.ports,
        first_corrupted: t.first_corrupted,
        simulated_us: run.duration_ps as f64 / 1e6,
        clean,
    })
}

/// A frame out: its port and bytes.
type Frame = (u32, Vec<u8>);
/// What a program makes of each frame in, by (ingress port, number): its frames out, sorted.
type Expected = BTreeMap<(u32, u64), Vec<Frame>>;

/// The checks of a swapping run's frames against what either program makes.
#[derive(Debug, Default, PartialEq)]
struct Tally {
    lost: u64,
    corrupted: u64,
    duplicated: u64,
    out_of_order: u64,
    ports: BTreeMap<u32, PortSwap>,
    first_corrupted: Option<String>,
}

/// Checks `frames` (out of the hardware, in the order they finished) against `expected` (what
/// the first and the second program make of each frame in).
fn tally(expected: &[Expected; 2], frames: &[Frame]) -> Tally {
    // Which frames in each frame out can come from.
    let mut makers: HashMap<&Frame, Vec<(u32, u64)>> = HashMap::new();
    for program in expected {
        for (origin, outs) in program {
            for out in outs {
                let m = makers.entry(out).or_default();
                if !m.contains(origin) {
                    m.push(*origin);
                }
            }
        }
    }
    // Each frame out to the frame in it came from, in the order they came out.
    let mut got: BTreeMap<(u32, u64), Vec<Frame>> = BTreeMap::new();
    let mut order: Vec<(u32, u64, u32)> = Vec::new(); // (in port, number, out port)
    let (mut corrupted, mut first_corrupted) = (0, None);
    for (port, data) in frames {
        let key = (*port, data.clone());
        let Some(candidates) = makers.get(&key) else {
            corrupted += 1;
            first_corrupted.get_or_insert_with(|| format!("port {port}: {}", data.iter().map(|b| format!("{b:02x}")).collect::<String>()));
            continue;
        };
        // Frames alike out of different frames in: the first one not yet accounted for.
        let origin = candidates.iter().find(|o| got.get(o).is_none_or(|g| !g.contains(&key))).unwrap_or(&candidates[0]);
        got.entry(*origin).or_default().push(key);
        order.push((origin.0, origin.1, *port));
    }

    let mut report_ports: BTreeMap<u32, PortSwap> = BTreeMap::new();
    for &(port, _) in expected[0].keys() {
        report_ports.entry(port).or_default().frames_in += 1;
    }
    let (mut lost, mut duplicated) = (0, 0);
    let mut maker_of: HashMap<(u32, u64), Maker> = HashMap::new();
    for &(port, seq) in expected[0].keys() {
        let mut out = got.remove(&(port, seq)).unwrap_or_default();
        out.sort();
        let (first, second) = (&expected[0][&(port, seq)], &expected[1][&(port, seq)]);
        let maker = match (out == *first, out == *second) {
            (true, true) => Maker::Either,
            (true, false) => Maker::First,
            (false, true) => Maker::Second,
            (false, false) => {
                if out.len() > first.len().max(second.len()) {
                    duplicated += 1;
                } else {
                    lost += 1;
                }
                continue;
            }
        };
        let r = report_ports.entry(port).or_default();
        match maker {
            Maker::First => r.by_first += 1,
            Maker::Second => r.by_second += 1,
            Maker::Either => {}
        }
        maker_of.insert((port, seq), maker);
    }
    // Order per path, and the program changes per ingress port, as the frames came out.
    let mut last_seq: HashMap<(u32, u32), u64> = HashMap::new();
    let mut last_maker: HashMap<u32, Maker> = HashMap::new();
    let mut out_of_order = 0;
    for &(in_port, seq, out_port) in &order {
        if last_seq.insert((in_port, out_port), seq).is_some_and(|before| before >= seq) {
            out_of_order += 1;
        }
        match maker_of.get(&(in_port, seq)) {
            Some(&m) if m != Maker::Either => {
                if last_maker.insert(in_port, m).is_some_and(|before| before != m) {
                    if let Some(r) = report_ports.get_mut(&in_port) {
                        r.program_changes += 1;
                    }
                }
            }
            _ => {}
        }
    }
    Tally { lost, corrupted, duplicated, out_of_order, ports: report_ports, first_corrupted }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Port 0's frames 0..4 as a program marking byte 11 with `mark` sends them to port 1.
    fn program(mark: u8) -> Expected {
        (0..4u64).map(|seq| ((0, seq), vec![(1, frame(seq, mark))])).collect()
    }

    fn frame(seq: u64, mark: u8) -> Vec<u8> {
        let mut f = p4_rtl::switch_sim::generated_frame(0, seq, 64, true);
        f[11] = mark;
        f
    }

    fn out(seqs_marks: &[(u64, u8)]) -> Vec<Frame> {
        seqs_marks.iter().map(|&(seq, mark)| (1, frame(seq, mark))).collect()
    }

    #[test]
    fn a_clean_swap_and_back_counts_two_changes_and_nothing_else() {
        let expected = [program(0xaa), program(0xbb)];
        let t = tally(&expected, &out(&[(0, 0xaa), (1, 0xbb), (2, 0xbb), (3, 0xaa)]));
        assert_eq!((t.lost, t.corrupted, t.duplicated, t.out_of_order), (0, 0, 0, 0));
        assert_eq!(t.ports[&0], PortSwap { frames_in: 4, by_first: 2, by_second: 2, program_changes: 2 });
    }

    #[test]
    fn lost_corrupted_repeated_and_reordered_frames_are_each_counted() {
        let expected = [program(0xaa), program(0xbb)];
        // Frame 1 missing.
        let t = tally(&expected, &out(&[(0, 0xaa), (2, 0xaa), (3, 0xaa)]));
        assert_eq!((t.lost, t.corrupted, t.duplicated, t.out_of_order), (1, 0, 0, 0));
        // Frame 2 with a byte neither program writes: corrupted, and frame 2 lost.
        let mut frames = out(&[(0, 0xaa), (1, 0xaa), (2, 0xaa), (3, 0xaa)]);
        frames[2].1[40] ^= 1;
        let t = tally(&expected, &frames);
        assert_eq!((t.lost, t.corrupted, t.duplicated, t.out_of_order), (1, 1, 0, 0));
        assert!(t.first_corrupted.is_some_and(|f| f.starts_with("port 1: 02000000000102")), "{:?}", tally(&expected, &frames).first_corrupted);
        // Frame 1 twice (a repeat also comes out of order).
        let t = tally(&expected, &out(&[(0, 0xaa), (1, 0xaa), (1, 0xaa), (2, 0xaa), (3, 0xaa)]));
        assert_eq!((t.lost, t.corrupted, t.duplicated, t.out_of_order), (0, 0, 1, 1));
        // Frames 1 and 2 swapped.
        let t = tally(&expected, &out(&[(0, 0xaa), (2, 0xaa), (1, 0xaa), (3, 0xaa)]));
        assert_eq!((t.lost, t.corrupted, t.duplicated, t.out_of_order), (0, 0, 0, 1));
        // A frame marked by neither program: corrupted, and the frame it came from lost.
        let mut frames = out(&[(0, 0xaa), (1, 0xaa), (2, 0xaa), (3, 0xaa)]);
        frames[3].1[11] = 0xcc;
        let t = tally(&expected, &frames);
        assert_eq!((t.lost, t.corrupted), (1, 1));
    }
}

//! Command-line front ends for `p4forge phy`, `p4forge gen` and `p4forge capture`.
//!
//! Each command is a clap `Args` struct plus a `*_main` entry point that prints to stdout, and
//! a `run_*` function that writes to any `Write` and returns a serialisable report (used by
//! tests and by callers that want the numbers rather than the text).
//!
//! The "line" between `gen` and `capture` is a raw serial bit-stream file (`--stream`): the
//! exact 66-bit blocks a 10GBASE-R port would put on the fibre, LSB first. `capture` finds
//! block lock in it like a real receiver, so it can start at any bit offset.

use std::fmt::Write;
use std::path::PathBuf;

use anyhow::{bail, Context, Result};
use clap::{Args, Subcommand};
use serde::Serialize;

use std::io::Write as _;

use crate::capture::{read_capture, PcapngWriter};
use crate::gen::{GapPattern, GenConfig};
use crate::ifg::STANDARD_MIN_GAP;
use crate::pipeline::{loopback_threaded_with, TxRequest};
use p4_io::progress::Progress;
use crate::rx::{RxConfig, RxCounters};
use crate::stats::{IpdAccumulator, IpdStats};
use crate::stream::{generate_stream, receive_file, BitPacker, BitReceiver, ReceiveFile};
use crate::tx::{TxConfig, TxEncoder};
use crate::Scrambler;
use p4_io::progress::ProgressArgs;

/// Longest stream `gen` makes: 2^32 blocks (27.5 s of line time, a 35 GB `--stream` file). It is
/// streamed, so this bounds the time and disk a mistyped argument can take, not memory.
pub const MAX_STREAM_BLOCKS: u64 = 1 << 32;

/// `p4forge gen`: generate a paced 10GBASE-R stream.
#[derive(Args, Debug, Clone)]
pub struct GenArgs {
    /// Number of frames.
    #[arg(long, default_value_t = 1000)]
    pub count: usize,
    /// Frame length in octets including FCS (64..=9022).
    #[arg(long, default_value_t = 1518)]
    pub size: usize,
    /// Exact gap between frames in characters (/T/ plus idles; 12 is line rate).
    #[arg(long, group = "gap")]
    pub idles: Option<u32>,
    /// Uniform spacing at this rate in Gb/s (preamble counted, as SoNIC does).
    #[arg(long, allow_negative_numbers = true, group = "gap")]
    pub rate: Option<f64>,
    /// Poisson arrivals at this mean rate in Gb/s.
    #[arg(long, allow_negative_numbers = true, group = "gap")]
    pub poisson: Option<f64>,
    /// Replay the inter-packet delays of this pcap/pcapng file.
    #[arg(long, group = "gap")]
    pub replay: Option<PathBuf>,
    /// Smallest gap to send; below 12 inserts fewer idles than the standard allows.
    #[arg(long, default_value_t = STANDARD_MIN_GAP)]
    pub min_gap: u32,
    /// Seed for random gaps.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Write the raw serial bit stream here (input of `p4forge capture`).
    #[arg(long)]
    pub stream: Option<PathBuf>,
    /// Write the sent frames with their transmit timestamps to this pcapng file.
    #[arg(long)]
    pub pcapng: Option<PathBuf>,
    /// Loop the stream back through the receive path and write the received frames here.
    #[arg(long)]
    pub capture: Option<PathBuf>,
    /// Histogram bins of the IPD statistics.
    #[arg(long, default_value_t = 10)]
    pub bins: usize,
    /// Print a JSON report instead of text.
    #[arg(long)]
    pub json: bool,
    /// --progress / --no-progress (default: a progress bar when stderr is a terminal).
    #[command(flatten)]
    pub progress: ProgressArgs,
}

/// `p4forge capture`: receive a raw serial bit stream.
#[derive(Args, Debug, Clone)]
pub struct CaptureArgs {
    /// Raw serial bit-stream file (as written by `p4forge gen --stream`).
    #[arg(long)]
    pub stream: PathBuf,
    /// Write received frames to this pcapng file (picosecond timestamps).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Keep the FCS in captured frames.
    #[arg(long)]
    pub with_fcs: bool,
    /// Flip this many random line bits before receiving (to exercise the error counters).
    #[arg(long, default_value_t = 0)]
    pub flip_bits: u64,
    /// Seed for the flipped bits.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Histogram bins of the IPD statistics.
    #[arg(long, default_value_t = 10)]
    pub bins: usize,
    /// Print a JSON report instead of text.
    #[arg(long)]
    pub json: bool,
    /// --progress / --no-progress (default: a progress bar when stderr is a terminal).
    #[command(flatten)]
    pub progress: ProgressArgs,
}

/// `p4forge phy`: inspect the PCS.
#[derive(Args, Debug, Clone)]
pub struct PhyArgs {
    /// What to do.
    #[command(subcommand)]
    pub command: PhyCommand,
}

/// Subcommands of `p4forge phy`.
#[derive(Subcommand, Debug, Clone)]
pub enum PhyCommand {
    /// Show the 66-bit blocks (before and after scrambling) of one frame.
    Encode {
        /// Frame octets in hex, without FCS (it is padded and sealed).
        #[arg(long)]
        hex: String,
        /// Idle characters before the frame (12 starts it in lane 4, 16 in lane 0).
        #[arg(long, default_value_t = 16)]
        gap: u32,
    },
    /// Run frames through the four-thread TX/RX pipeline and report throughput and counters.
    Loopback {
        /// Number of frames.
        #[arg(long, default_value_t = 100_000)]
        count: usize,
        /// Frame length including FCS.
        #[arg(long, default_value_t = 1518)]
        size: usize,
        /// Print JSON.
        #[arg(long)]
        json: bool,
        /// --progress / --no-progress (default: a progress bar when stderr is a terminal).
        #[command(flatten)]
        progress: ProgressArgs,
    },
}

/// What `gen` did.
#[derive(Debug, Clone, Serialize)]
pub struct GenReport {
    /// Frames sent.
    pub frames: usize,
    /// Blocks on the line.
    pub blocks: usize,
    /// Achieved rate in Gb/s (preamble counted).
    pub rate_gbps: f64,
    /// Transmit-side IPD statistics.
    pub tx_ipd: IpdStats,
    /// Receive-side results when `--capture` was given.
    pub rx: Option<CaptureReport>,
    /// Ctrl-C stopped the run early: the figures cover the frames sent until then.
    pub interrupted: bool,
}

/// What a capture saw.
#[derive(Debug, Clone, Serialize)]
pub struct CaptureReport {
    /// Good frames.
    pub frames: usize,
    /// Receive counters.
    pub counters: RxCounters,
    /// Block boundary slips before lock.
    pub slips: u64,
    /// Losses of block lock.
    pub lock_losses: u64,
    /// IPD statistics of the good frames.
    pub ipd: IpdStats,
    /// Ctrl-C stopped the capture early: the figures cover the stream read until then.
    pub interrupted: bool,
}

/// Largest `--count` of `gen` and `phy loopback`: far more than any experiment needs, and a
/// bound on how long a mistyped count can keep the machine busy.
pub const MAX_FRAMES: usize = 1_000_000_000;
/// Largest gap in characters (`--idles`, `--min-gap`, `phy encode --gap`): 80 ms of line time.
pub const MAX_GAP: u32 = 100_000_000;
/// Largest number of histogram bins (`--bins`).
pub const MAX_BINS: usize = 1000;
/// Largest `capture --flip-bits`.
pub const MAX_FLIP_BITS: u64 = 10_000_000;

/// `value` if it is within `lo..=hi`, else an error naming the flag, the value and the allowed
/// range: a parameter is never silently clamped to something the user did not ask for. NaN is
/// outside every range.
pub fn in_range<T: PartialOrd + std::fmt::Display>(flag: &str, value: T, lo: T, hi: T, unit: &str) -> Result<T> {
    if value >= lo && value <= hi {
        Ok(value)
    } else {
        bail!("{flag} {value} is out of range: allowed {lo}..={hi}{unit}")
    }
}

fn gen_config(a: &GenArgs) -> Result<GenConfig> {
    in_range("--count", a.count, 1, MAX_FRAMES, " frames")?;
    if a.size < crate::mac::MIN_FRAME || a.size > crate::mac::MAX_JUMBO_FRAME {
        bail!("--size {} is outside 64..={}", a.size, crate::mac::MAX_JUMBO_FRAME);
    }
    in_range("--min-gap", a.min_gap, 1, MAX_GAP, " characters (at least the /T/ character)")?;
    in_range("--bins", a.bins, 1, MAX_BINS, "")?;
    if let Some(i) = a.idles {
        // The transmitter never sends less than --min-gap: a smaller --idles used to become 12.
        let unit = format!(" characters (at least --min-gap, which is {})", a.min_gap);
        in_range("--idles", i, a.min_gap, MAX_GAP, &unit)?;
    }
    // The slowest rate whose gap fits MAX_GAP: slower ones used to be clamped to a gap of 10^9
    // characters (a different rate than asked, without a word).
    let wire = (a.size + crate::mac::PREAMBLE_LEN) as f64;
    let slowest = 10.0 * wire / (wire + f64::from(MAX_GAP));
    let pattern = if let Some(i) = a.idles {
        GapPattern::Idles(i)
    } else if let Some(r) = a.rate {
        if !(r > 0.0 && r <= 10.0) {
            bail!("--rate {r} must be in (0, 10] Gb/s");
        }
        if r < slowest {
            bail!("--rate {r} is out of range: allowed {slowest:.3e}..=10 Gb/s for {}-octet frames (gaps of at most {MAX_GAP} characters)", a.size);
        }
        GapPattern::Rate(r)
    } else if let Some(r) = a.poisson {
        if !(r > 0.0 && r <= 10.0) {
            bail!("--poisson {r} must be in (0, 10] Gb/s");
        }
        if r < slowest {
            bail!("--poisson {r} is out of range: allowed {slowest:.3e}..=10 Gb/s for {}-octet frames (a mean gap of at most {MAX_GAP} characters)", a.size);
        }
        GapPattern::Poisson(r)
    } else if let Some(p) = &a.replay {
        let pk = read_capture(p)?;
        if pk.len() < 2 {
            bail!("{}: need at least two packets to replay timing", p.display());
        }
        let d: Vec<u64> =
            pk.windows(2).map(|w| u64::try_from(w[1].ts_ps.saturating_sub(w[0].ts_ps)).unwrap_or(u64::MAX)).collect();
        // A longer delay would not fit a gap (it used to be cut to 2^32 characters silently).
        let longest_ps = (u64::from(MAX_GAP) + wire as u64) * crate::gen::PS_PER_CHAR;
        if let Some((i, far)) = d.iter().enumerate().find(|(_, &x)| x > longest_ps) {
            bail!(
                "--replay {}: packets {} and {} are {:.6} s apart; at most {:.6} s can be replayed",
                p.display(),
                i + 1,
                i + 2,
                *far as f64 * 1e-12,
                longest_ps as f64 * 1e-12
            );
        }
        GapPattern::Replay(d)
    } else {
        GapPattern::Idles(STANDARD_MIN_GAP)
    };
    let count = match &pattern {
        GapPattern::Replay(d) => a.count.min(d.len() + 1),
        _ => a.count,
    };
    Ok(GenConfig { count, frame_len: a.size, pattern, min_gap: a.min_gap, seed: a.seed, ..GenConfig::default() })
}

/// Checks, before any work, that every output file can be created and that no two outputs
/// (or an output and the input) are the same file: a bad path is an error at once, not after
/// a long run.
fn check_outputs(input: Option<&std::path::Path>, outputs: &[(&str, &Option<PathBuf>)]) -> Result<()> {
    let given: Vec<(&str, &PathBuf)> = outputs.iter().filter_map(|(flag, p)| p.as_ref().map(|p| (*flag, p))).collect();
    for (i, (flag, path)) in given.iter().enumerate() {
        if let Some((other, _)) = given[..i].iter().find(|(_, p)| p == path) {
            bail!("{other} and {flag} name the same file {}", path.display());
        }
        if input.is_some_and(|input| input == path.as_path()) {
            bail!("{flag} {} is also the input file", path.display());
        }
        p4_io::output::check_writable(path)?;
    }
    Ok(())
}

/// Run `gen`, writing the human or JSON report to `out`.
pub fn run_gen(a: &GenArgs, out: &mut dyn std::io::Write) -> Result<GenReport> {
    let cfg = gen_config(a)?;
    check_outputs(a.replay.as_deref(), &[("--stream", &a.stream), ("--pcapng", &a.pcapng), ("--capture", &a.capture)])?;
    let blocks = cfg.estimated_blocks();
    if blocks > MAX_STREAM_BLOCKS {
        bail!(
            "the stream would take about {blocks} blocks ({:.3} s of line time); the limit is {MAX_STREAM_BLOCKS} blocks ({:.3} s): use fewer frames or smaller gaps",
            blocks as f64 * 6.4e-9,
            MAX_STREAM_BLOCKS as f64 * 6.4e-9
        );
    }
    p4_io::interrupt::install();
    let stop = p4_io::interrupt::interrupted;
    let bar = progress_bar(a.progress.enabled(), cfg.count as u64, "frames");
    // Everything is streamed a chunk of blocks at a time (memory does not grow with --count);
    // the bit-stream header states the length first, so it is counted in a quick first pass.
    let mut stream = match &a.stream {
        Some(path) => {
            bar.set_message("counting blocks");
            let Some(total) = crate::stream::count_blocks(&cfg, &stop) else {
                bail!("interrupted before any frame was generated; no files were written");
            };
            bar.set_message("");
            let mut f = p4_io::output::AtomicFile::create(path)?;
            let io = |e: std::io::Error| p4_io::output::OutputError::new(path, &e);
            f.write_all(crate::capture::BITS_MAGIC).map_err(io)?;
            f.write_all(&(total * 66).to_le_bytes()).map_err(io)?;
            Some((f, path, total))
        }
        None => None,
    };
    let mut tx_pcap = a.pcapng.as_ref().map(|p| pcapng_file(p)).transpose()?;
    let mut rx_pcap = a.capture.as_ref().map(|p| pcapng_file(p)).transpose()?;
    let mut receiver = a.capture.as_ref().map(|_| BitReceiver::new(RxConfig::default(), u64::MAX));
    let (mut tx_ipd, mut rx_ipd) = (IpdAccumulator::default(), IpdAccumulator::default());
    let mut packer = BitPacker::default();
    // Hands packed line bytes to the stream file and the loopback receiver.
    let mut line = |bytes: &mut Vec<u8>| -> Result<()> {
        if let Some((f, path, _)) = stream.as_mut() {
            f.write_all(bytes).map_err(|e| p4_io::output::OutputError::new(path, &e))?;
        }
        if let Some(rx) = receiver.as_mut() {
            rx.feed(bytes, &mut |f| {
                rx_ipd.push(f.start);
                match rx_pcap.as_mut() {
                    Some((w, path)) => {
                        w.write(f.start, f.without_fcs()).with_context(|| format!("cannot write {}", path.display()))
                    }
                    None => Ok(()),
                }
            })?;
        }
        bytes.clear();
        Ok(())
    };
    let need_bits = a.stream.is_some() || a.capture.is_some();
    let done = generate_stream(
        &cfg,
        &mut |frame, stamp| {
            tx_ipd.push(stamp.start);
            if let Some((w, path)) = tx_pcap.as_mut() {
                let no_fcs = &frame[..frame.len().saturating_sub(crate::mac::FCS_LEN)];
                w.write(stamp.start, no_fcs).with_context(|| format!("cannot write {}", path.display()))?;
            }
            bar.inc(1);
            Ok(())
        },
        &mut |blocks| {
            if need_bits {
                blocks.iter().for_each(|b| packer.push_block(*b));
                line(&mut packer.bytes)?;
            }
            Ok(())
        },
        &stop,
    )?;
    if need_bits {
        packer.finish();
        line(&mut packer.bytes)?;
    }
    bar.finish();
    let mut notes = String::new();
    if let Some((f, path, total)) = stream {
        if done.stopped {
            // The header promised the whole stream; a shorter file would be refused by capture.
            drop(f);
            writeln!(notes, "the bit stream {} was not written: it would be incomplete", path.display())?;
        } else {
            anyhow::ensure!(total == done.blocks, "internal error: counted {total} blocks, generated {}", done.blocks);
            f.commit()?;
        }
    }
    if let Some((w, _)) = tx_pcap {
        w.finish()?.commit()?;
    }
    let rx = match receiver {
        Some(rx) => {
            let summary = rx.finish(&mut |f| {
                rx_ipd.push(f.start);
                match rx_pcap.as_mut() {
                    Some((w, _)) => w.write(f.start, f.without_fcs()),
                    None => Ok(()),
                }
            })?;
            if let Some((w, _)) = rx_pcap {
                w.finish()?.commit()?;
            }
            Some(CaptureReport {
                frames: summary.frames as usize,
                counters: summary.counters,
                slips: summary.slips,
                lock_losses: summary.losses,
                ipd: rx_ipd.finish(a.bins),
                interrupted: false,
            })
        }
        None => None,
    };
    let report = GenReport {
        frames: done.frames as usize,
        blocks: done.blocks as usize,
        rate_gbps: done.rate_gbps(cfg.frame_len),
        tx_ipd: tx_ipd.finish(a.bins),
        rx,
        interrupted: done.stopped,
    };
    let mut text = String::new();
    if a.json {
        writeln!(text, "{}", serde_json::to_string_pretty(&report)?)?;
    } else {
        if cfg.count < a.count {
            // Not a silent cap: say why fewer frames than --count were sent.
            writeln!(
                text,
                "note: the --replay capture gives {} delays, so {} frames are sent, not --count {}",
                cfg.count.saturating_sub(1),
                cfg.count,
                a.count
            )?;
        }
        if done.stopped {
            writeln!(
                text,
                "interrupted: results are partial ({} of {} frames sent; files hold the frames sent)",
                report.frames, cfg.count
            )?;
            text.push_str(&notes);
        }
        writeln!(text, "sent {} frames in {} blocks at {:.6} Gb/s", report.frames, report.blocks, report.rate_gbps)?;
        write!(text, "TX {}", report.tx_ipd)?;
        if let Some(rx) = &report.rx {
            print_capture(rx, &mut text)?;
        }
    }
    write_report(out, &text)?;
    Ok(report)
}

/// A pcapng writer on an output that appears under `path` only when committed.
type PcapngFile<'p> = (PcapngWriter<p4_io::output::AtomicFile>, &'p PathBuf);

fn pcapng_file(path: &PathBuf) -> Result<PcapngFile<'_>> {
    let f = p4_io::output::AtomicFile::create(path)?;
    let w = PcapngWriter::new(f, "p4phy0", 0).with_context(|| format!("cannot write {}", path.display()))?;
    Ok((w, path))
}

/// Progress over `len` units (see [`crate::progress`]).
fn progress_bar(show: bool, len: u64, unit: &str) -> Progress {
    Progress::new(show, len, unit)
}

fn print_capture(r: &CaptureReport, text: &mut String) -> Result<()> {
    writeln!(text, "received {} good frames (block lock after {} slips, {} losses)", r.frames, r.slips, r.lock_losses)?;
    writeln!(text, "counters: {}", serde_json::to_string(&r.counters)?)?;
    write!(text, "RX {}", r.ipd)?;
    Ok(())
}

/// Writes a finished report to `out` (standard output in the `*_main` functions). The report is
/// built as text first and written in one go, so a write error is reported once, as an error
/// naming standard output and the reason (closed pipe, full disk), instead of the panic that
/// `println!` gives on `| head -c1` or `> /dev/full`.
pub fn write_report(out: &mut dyn std::io::Write, text: &str) -> Result<()> {
    out.write_all(text.as_bytes()).and_then(|()| out.flush()).map_err(p4_io::stdio::StdoutError::from)?;
    Ok(())
}

/// Run `capture`, writing the report to `out`.
pub fn run_capture(a: &CaptureArgs, out: &mut dyn std::io::Write) -> Result<CaptureReport> {
    in_range("--bins", a.bins, 1, MAX_BINS, "")?;
    in_range("--flip-bits", a.flip_bits, 0, MAX_FLIP_BITS, "")?;
    check_outputs(Some(&a.stream), &[("--out", &a.out)])?;
    p4_io::interrupt::install();
    let mut pcap = a.out.as_ref().map(|p| pcapng_file(p)).transpose()?;
    let mut ipd = IpdAccumulator::default();
    let show = a.progress.enabled();
    let mut bar: Option<Progress> = None;
    let with_fcs = a.with_fcs;
    // The stream is read a megabyte at a time and every frame written as it is decoded.
    let got = receive_file(
        &a.stream,
        ReceiveFile {
            config: RxConfig::default(),
            flip_bits: a.flip_bits,
            seed: a.seed,
            progress: &mut |done, total| {
                bar.get_or_insert_with(|| progress_bar(show, total / 66, "blocks")).set_position(done / 66)
            },
            stop: &p4_io::interrupt::interrupted,
        },
        &mut |f| {
            ipd.push(f.start);
            match pcap.as_mut() {
                Some((w, path)) => w
                    .write(f.start, if with_fcs { &f.data } else { f.without_fcs() })
                    .with_context(|| format!("cannot write {}", path.display())),
                None => Ok(()),
            }
        },
    )?;
    if let Some(bar) = bar {
        bar.finish();
    }
    if let Some((w, _)) = pcap {
        w.finish()?.commit()?;
    }
    let s = got.summary;
    let r = CaptureReport {
        frames: s.frames as usize,
        counters: s.counters,
        slips: s.slips,
        lock_losses: s.losses,
        ipd: ipd.finish(a.bins),
        interrupted: got.stopped,
    };
    let mut text = String::new();
    if a.json {
        writeln!(text, "{}", serde_json::to_string_pretty(&r)?)?;
    } else {
        if got.stopped {
            writeln!(
                text,
                "interrupted: results are partial ({} of {} line bits received; the capture file holds the frames so far)",
                s.bits, got.announced_bits
            )?;
        }
        print_capture(&r, &mut text)?;
    }
    write_report(out, &text)?;
    Ok(r)
}

fn parse_hex(s: &str) -> Result<Vec<u8>> {
    let clean: String = s.chars().filter(|c| !c.is_whitespace() && *c != ':' && *c != '-').collect();
    if clean.len() & 1 == 1 {
        bail!("hex string has an odd number of digits");
    }
    (0..clean.len())
        .step_by(2)
        .map(|i| {
            let pair = clean.get(i..i + 2).context("hex string is not ASCII")?;
            u8::from_str_radix(pair, 16).with_context(|| format!("'{pair}' at offset {i} is not a hex octet"))
        })
        .collect()
}

/// Run `phy`, writing to `out`.
/// Run `phy`, writing to `out`. A loopback stopped by Ctrl-C writes its partial report, then
/// returns [`Interrupted`].
pub fn run_phy(a: &PhyArgs, out: &mut dyn std::io::Write) -> Result<()> {
    let mut text = String::new();
    let stopped = phy_text(a, &mut text)?;
    write_report(out, &text)?;
    if stopped {
        return Err(Interrupted.into());
    }
    Ok(())
}

/// The error a command returns after a run stopped by Ctrl-C has written its partial results
/// (and committed complete output files); the binary exits with status 130 for it, as for every
/// interrupted command.
pub use p4_io::interrupt::Interrupted;

/// The `phy` report in `out`; true if a loopback was stopped by Ctrl-C.
fn phy_text(a: &PhyArgs, out: &mut String) -> Result<bool> {
    let mut stopped = false;
    match &a.command {
        PhyCommand::Encode { hex, gap } => {
            in_range("--gap", *gap, 1, MAX_GAP, " characters")?;
            let octets = parse_hex(hex)?;
            let most = crate::mac::MAX_JUMBO_FRAME - crate::mac::FCS_LEN;
            in_range("--hex", octets.len(), 0, most, " octets (the frame without FCS)")?;
            let frame = crate::mac::seal(&octets);
            let mut enc = TxEncoder::new(TxConfig { rule: crate::GapRule::RoundUp, min_gap: 1 });
            let mut blocks = Vec::new();
            let st = enc.send(&frame, *gap, &mut blocks);
            enc.idle(1, &mut blocks);
            let mut scr = Scrambler::default();
            writeln!(out, "frame {} octets with FCS, /S/ at {}", frame.len(), st.start)?;
            writeln!(out, "{:>5}  sync  {:<18}  {:<18}  kind", "block", "payload", "scrambled")?;
            for (i, b) in blocks.iter().enumerate() {
                let kind = match b.fields() {
                    Ok(f) => format!("{f:?}").split('(').next().unwrap_or("").to_string(),
                    Err(e) => e.to_string(),
                };
                let s = scr.scramble(b.payload);
                writeln!(out, "{i:>5}  {:02b}    {:#018x}  {s:#018x}  {kind}", b.sync, b.payload)?;
            }
        }
        PhyCommand::Loopback { count, size, json, progress } => {
            // --size 0 used to become 64 without a word.
            in_range("--count", *count, 1, MAX_FRAMES, " frames")?;
            let size = in_range("--size", *size, crate::mac::MIN_FRAME, crate::mac::MAX_JUMBO_FRAME, " octets")?;
            p4_io::interrupt::install();
            let cpu0 = process_cpu_seconds();
            let t0 = std::time::Instant::now();
            let bar = progress_bar(progress.enabled(), *count as u64, "frames");
            let template = crate::gen::test_frame(0, size)[..size - 4].to_vec();
            // Requests are made as the pipeline takes them and frames are not kept, so memory
            // stays flat in --count; Ctrl-C ends the feed and the counts cover what was sent.
            let reqs = (0..*count).map_while(|i| {
                if i % 65_536 == 0 {
                    bar.set_position(i as u64);
                    if p4_io::interrupt::interrupted() {
                        return None;
                    }
                }
                Some(TxRequest { frame: template.clone(), gap: 12 })
            });
            let r = loopback_threaded_with(reqs, TxConfig::STANDARD, RxConfig::default(), 128, false);
            bar.finish();
            let secs = t0.elapsed().as_secs_f64();
            let gbps = r.blocks as f64 * 66.0 / secs / 1e9;
            let interrupted = r.frames_sent < *count as u64;
            stopped = interrupted;
            let cpu = match (cpu0, process_cpu_seconds()) {
                (Some(a), Some(b)) if b > a => Some(b - a),
                _ => None,
            };
            #[derive(Serialize)]
            struct Loop {
                interrupted: bool,
                frames_sent: u64,
                frames_ok: u64,
                blocks: u64,
                seconds: f64,
                line_gbps: f64,
                cpu_seconds: Option<f64>,
                line_gbps_per_cpu_second: Option<f64>,
                counters: RxCounters,
            }
            let rep = Loop {
                interrupted,
                frames_sent: r.frames_sent,
                frames_ok: r.counters.frames_ok,
                blocks: r.blocks,
                seconds: secs,
                line_gbps: gbps,
                cpu_seconds: cpu,
                line_gbps_per_cpu_second: cpu.map(|c| r.blocks as f64 * 66.0 / c / 1e9),
                counters: r.counters,
            };
            if *json {
                writeln!(out, "{}", serde_json::to_string_pretty(&rep)?)?;
            } else {
                if interrupted {
                    writeln!(out, "interrupted: results are partial ({} of {count} frames sent)", rep.frames_sent)?;
                }
                writeln!(
                    out,
                    "{} frames of {} octets, {} blocks in {:.3} s: {:.2} Gb/s of 10GBASE-R line bits through TX MAC → TX PCS → RX PCS → RX MAC threads; {} good",
                    rep.frames_sent, size, rep.blocks, secs, gbps, rep.frames_ok
                )?;
                if let (Some(c), Some(g)) = (rep.cpu_seconds, rep.line_gbps_per_cpu_second) {
                    writeln!(
                        out,
                        "process CPU time {c:.3} s: {g:.2} Gb/s of line bits per CPU-second (all four stages together)"
                    )?;
                }
            }
        }
    }
    Ok(stopped)
}

/// User + system CPU time of this process from /proc/self/stat (Linux), if readable.
fn process_cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // Fields after the parenthesised command name; utime and stime are fields 14 and 15.
    let rest = stat.rsplit_once(')')?.1;
    let f: Vec<&str> = rest.split_whitespace().collect();
    let utime: f64 = f.get(11)?.parse().ok()?;
    let stime: f64 = f.get(12)?.parse().ok()?;
    // The kernel reports in USER_HZ ticks, 100 on every mainstream Linux configuration.
    Some((utime + stime) / 100.0)
}

/// `p4forge gen` entry point; [`Interrupted`] after a run stopped by Ctrl-C.
pub fn gen_main(args: GenArgs) -> Result<()> {
    let report = run_gen(&args, &mut std::io::stdout().lock())?;
    if report.interrupted {
        return Err(Interrupted.into());
    }
    Ok(())
}

/// `p4forge capture` entry point; [`Interrupted`] after a capture stopped by Ctrl-C.
pub fn capture_main(args: CaptureArgs) -> Result<()> {
    let report = run_capture(&args, &mut std::io::stdout().lock())?;
    if report.interrupted {
        return Err(Interrupted.into());
    }
    Ok(())
}

/// `p4forge phy` entry point.
pub fn phy_main(args: PhyArgs) -> Result<()> {
    run_phy(&args, &mut std::io::stdout().lock())
}

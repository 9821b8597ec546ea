//! `p4forge op4t`: the experiments of the OP4T timestamping NIC with its SST program
//! (`examples/op4t-sst`): the NIC's own latency in the RTL simulation (`baseline`), the
//! batching knee of a host forwarder seen through the stamps (`knee`), and a live swap of the
//! shell's packet processor to another program and back under traffic (`swap`).

pub mod baseline;
pub mod knee;
pub mod knee_fit;
pub mod stream;
pub mod swap;

use std::net::Ipv4Addr;
use std::path::PathBuf;

use crate::error::{CliError, CliResult};

/// The ns a frame of `len` bytes takes on a 10 Gb/s wire, with its 20 bytes of preamble, start
/// delimiter and gap (the RTL harness's MACs pace frames so).
pub fn wire_ns(len: usize) -> f64 {
    (len as f64 + p4_rtl::switch_sim::WIRE_OVERHEAD_BYTES as f64) * 8.0 / p4_rtl::switch_sim::LINE_RATE_GBPS
}

/// What both experiments share: the program and its entries, and the stream's ports and
/// destination.
pub struct Setup {
    pub program: PathBuf,
    pub includes: Vec<PathBuf>,
    pub entries: Option<PathBuf>,
    /// The port the stream enters and the one it leaves by.
    pub in_port: u32,
    pub out_port: u32,
    pub dst: Ipv4Addr,
    pub progress: bool,
}

impl StreamArgs {
    fn setup(&self, in_port: u32, out_port: u32) -> Setup {
        Setup {
            program: self.program.clone(),
            includes: self.include.clone(),
            entries: self.entries.clone(),
            in_port,
            out_port,
            dst: self.dst,
            progress: self.progress.enabled(),
        }
    }
}

/// `p4forge op4t ...`.
#[derive(clap::Subcommand, Clone, Debug)]
pub enum Op4tCommand {
    /// The NIC's own latency: t2 - t1 of the Xconnect path (a stream from --in-port straight back
    /// out of --out-port) in the RTL simulation of the whole switch (MACs at 156.25 MHz, the
    /// pipeline at --clock, clock crossings included), per frame size and rate; mean and standard
    /// deviation per point, against the seed's 4 ns.
    ///
    /// Example: p4forge op4t baseline examples/op4t-sst/sst.p4 --entries
    /// examples/op4t-sst/entries.txt --plot baseline.svg
    Baseline(BaselineArgs),
    /// A host forwarder that takes up to B packets every T µs, behind the NIC's host port, on the
    /// software target in simulated time: mean t2 - t1 against the stream's rate for each
    /// --forwarder, and the knee a flat-then-linear fit finds, beside B/T.
    ///
    /// Example: p4forge op4t knee examples/op4t-sst/sst.p4 --entries
    /// examples/op4t-sst/entries.txt --forwarder 32/80 --forwarder 64/100 --plot knee.svg
    Knee(KneeArgs),
    /// A live swap of the shell's packet processor under traffic in the RTL simulation: PROGRAM in
    /// processor 0, --second in processor 1, the four network ports sending numbered frames while
    /// the decoupler swaps to processor 1 and back; every frame out is checked against what the
    /// software target makes of the frames in with either program (lost, corrupted, duplicated,
    /// out of order). Exit status 1 unless clean.
    ///
    /// Example: p4forge op4t swap examples/op4t-sst/sst.p4 --entries xconnect.txt --second
    /// other.p4 --second-entries other.txt
    Swap(SwapArgs),
}

#[derive(clap::Args, Clone, Debug)]
pub struct SwapArgs {
    /// The OP4T program of processor 0.
    pub program: PathBuf,
    /// Its table entries (runtime-CLI syntax).
    #[arg(long)]
    pub entries: Option<PathBuf>,
    /// The OP4T program of processor 1.
    #[arg(long, value_name = "PROG")]
    pub second: PathBuf,
    /// Its table entries.
    #[arg(long, value_name = "FILE")]
    pub second_entries: Option<PathBuf>,
    /// Also search DIR for `#include` files (repeatable).
    #[arg(short = 'I', long = "include", value_name = "DIR")]
    pub include: Vec<PathBuf>,
    /// Frame size in bytes.
    #[arg(long, default_value_t = 64)]
    pub size: usize,
    /// Gb/s on the wire per port, each frame counted with its 20 bytes of preamble and gap (10:
    /// line rate).
    #[arg(long, default_value_t = 10.0)]
    pub rate: f64,
    /// Frames per port.
    #[arg(long, default_value_t = 1000)]
    pub packets: u64,
    /// When to swap, ns after the traffic starts (comma-separated; each swap waits for the one
    /// before it); by default at a third and two thirds of the run, to processor 1 and back.
    #[arg(long, value_name = "NS", value_delimiter = ',')]
    pub swap_at: Vec<u64>,
    #[command(flatten)]
    pub model: ModelArgs,
    /// Print the report as JSON.
    #[arg(long)]
    pub json: bool,
}

/// What both experiments share: the program, its entries and the stream.
#[derive(clap::Args, Clone, Debug)]
pub struct StreamArgs {
    /// The OP4T program (examples/op4t-sst/sst.p4).
    pub program: PathBuf,
    /// Table entries in runtime-CLI syntax; they must send the stream as the experiment says.
    #[arg(long)]
    pub entries: Option<PathBuf>,
    /// Also search DIR for `#include` files (repeatable).
    #[arg(short = 'I', long = "include", value_name = "DIR")]
    pub include: Vec<PathBuf>,
    /// The stream's IPv4 destination (a stream of interest in the entries).
    #[arg(long, default_value = "10.0.0.1")]
    pub dst: Ipv4Addr,
    /// Write the plot (SVG) to FILE.
    #[arg(long, value_name = "FILE")]
    pub plot: Option<PathBuf>,
    /// Print the report as JSON.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub progress: p4_io::progress::ProgressArgs,
}

#[derive(clap::Args, Clone, Debug)]
pub struct BaselineArgs {
    #[command(flatten)]
    pub stream: StreamArgs,
    /// The port the stream enters.
    #[arg(long, default_value_t = 1)]
    pub in_port: u32,
    /// The port the entries send it back out of.
    #[arg(long, default_value_t = 2)]
    pub out_port: u32,
    /// Frame sizes in bytes as they leave, stamps included (comma-separated).
    #[arg(long, value_delimiter = ',', default_value = "64,128,256,512,1024,1518")]
    pub sizes: Vec<usize>,
    /// Rates in percent of line rate (comma-separated).
    #[arg(long, value_delimiter = ',', default_value = "1,10,25,50,75,100")]
    pub rates: Vec<f64>,
    /// Packets per size and rate.
    #[arg(long, default_value_t = 100)]
    pub packets: u32,
    /// Ports of the switch.
    #[arg(long, default_value_t = 4)]
    pub ports: u32,
    #[command(flatten)]
    pub model: ModelArgs,
}

/// The RTL model of the experiments that simulate the hardware.
#[derive(clap::Args, Clone, Debug)]
pub struct ModelArgs {
    /// Stream width of the pipeline in bits.
    #[arg(long, default_value_t = 512)]
    pub width: u32,
    /// Pipeline clock in MHz.
    #[arg(long, default_value_t = 250.0)]
    pub clock: f64,
    /// Compile the model's C++ without optimisation: it builds in seconds instead of minutes but
    /// simulates many times slower (for a few packets).
    #[arg(long)]
    pub quick_build: bool,
}

impl ModelArgs {
    /// The generator's options for `arch` (`--ports` where it takes them), with these.
    pub fn rtl(&self, arch: crate::cmd::rtl::Arch, ports: Option<u32>, traffic: bool, host_port: bool) -> CliResult<p4_rtl::Options> {
        crate::cmd::rtl::RtlOptions {
            width: self.width,
            clock: self.clock,
            exact_bcam: false,
            tcam_flops: false,
            arch,
            ports,
            host_port,
            host_queues: 1,
            host_queue_at: 0,
            traffic,
            second: None,
        }
        .options()
    }

    pub fn speed(&self) -> p4_rtl::sim::CxxSpeed {
        if self.quick_build {
            p4_rtl::sim::CxxSpeed::QuickBuild
        } else {
            p4_rtl::sim::CxxSpeed::FastRun
        }
    }
}

#[derive(clap::Args, Clone, Debug)]
pub struct KneeArgs {
    #[command(flatten)]
    pub stream: StreamArgs,
    /// The network port the stream enters (the entries send it to the host).
    #[arg(long, default_value_t = 0)]
    pub in_port: u32,
    /// The network port it leaves by after the host (the entries send the host's packets there).
    #[arg(long, default_value_t = 3)]
    pub out_port: u32,
    /// A forwarder, as BATCH/INTERVAL_US (repeatable): up to BATCH packets every INTERVAL_US µs.
    #[arg(long = "forwarder", value_name = "B/T", value_parser = knee::parse_forwarder, required = true)]
    pub forwarders: Vec<knee::Forwarder>,
    /// The stream's rates, packets per second: FROM:TO:STEP or a comma-separated list.
    #[arg(long, default_value = "25000:2000000:25000", value_parser = knee::parse_rates)]
    pub rates: std::vec::Vec<f64>,
    /// Frame size in bytes as it leaves, stamps included.
    #[arg(long, default_value_t = 64)]
    pub size: usize,
    /// Simulated seconds of stream per rate.
    #[arg(long, default_value_t = 0.02)]
    pub seconds: f64,
    /// Descriptors of the forwarder's receive ring (a packet that finds it full is lost; a rate
    /// with losses is left out of the fit).
    #[arg(long, default_value_t = 65536)]
    pub ring: usize,
}

/// Runs an `op4t` experiment: prints its report, writes its plot.
pub fn op4t_main(command: Op4tCommand) -> CliResult<()> {
    let (text, interrupted) = match &command {
        Op4tCommand::Baseline(a) => {
            before(&a.stream)?;
            let rtl = a.model.rtl(crate::cmd::rtl::Arch::Switch, Some(a.ports), false, false)?;
            let options = baseline::BaselineOptions {
                setup: a.stream.setup(a.in_port, a.out_port),
                sizes: a.sizes.clone(),
                rates: a.rates.clone(),
                packets: a.packets,
                rtl,
                speed: a.model.speed(),
            };
            let report = baseline::baseline(&options)?;
            if let Some(path) = &a.stream.plot {
                let title = format!("OP4T Xconnect baseline: t2 - t1 in the RTL simulation ({} MHz pipeline, 156.25 MHz MACs)", report.pipeline_mhz);
                p4_netsim::plot::panels_svg(path, &title, "rate (% of 10 Gb/s line rate)", baseline::figure(&report)).map_err(|e| CliError::output(format!("{e:#}")))?;
            }
            (render(&report, a.stream.json, baseline::BaselineReport::render)?, report.interrupted)
        }
        Op4tCommand::Knee(a) => {
            before(&a.stream)?;
            let options = knee::KneeOptions {
                setup: a.stream.setup(a.in_port, a.out_port),
                size: a.size,
                rates: a.rates.clone(),
                seconds: a.seconds,
                ring: a.ring,
                forwarders: a.forwarders.clone(),
            };
            let report = knee::knee(&options)?;
            if let Some(path) = &a.stream.plot {
                let title = format!("OP4T-SST through a host forwarder taking B packets every T µs ({}-byte frames)", report.frame_bytes);
                p4_netsim::plot::panels_svg(path, &title, "stream rate (thousand packets/s)", knee::figure(&report)).map_err(|e| CliError::output(format!("{e:#}")))?;
            }
            (render(&report, a.stream.json, knee::KneeReport::render)?, report.interrupted)
        }
        Op4tCommand::Swap(a) => {
            let rtl = a.model.rtl(crate::cmd::rtl::Arch::Op4t, None, true, false)?;
            let options = swap::SwapOptions {
                program: a.program.clone(),
                includes: a.include.clone(),
                entries: a.entries.clone(),
                second: a.second.clone(),
                second_entries: a.second_entries.clone(),
                size: a.size,
                rate_gbps: a.rate,
                packets: a.packets,
                swaps_at_ns: a.swap_at.clone(),
                rtl,
                speed: a.model.speed(),
            };
            let report = swap::swap(&options)?;
            p4_io::stdio::print(&render(&report, a.json, swap::SwapReport::render)?)?;
            if !report.clean {
                return Err(CliError::failed("the swap lost, corrupted, duplicated or reordered frames (see the report)"));
            }
            return Ok(());
        }
    };
    p4_io::stdio::print(&text)?;
    if interrupted {
        return Err(CliError::interrupted(p4_io::interrupt::Interrupted.to_string()));
    }
    Ok(())
}

/// Refuses a program of another architecture than OP4T (its ports and stamps mean nothing to the
/// experiments or the shell's processors).
pub fn check_op4t(compiled: &crate::frontend::Compiled, program: &std::path::Path) -> CliResult<()> {
    match p4_ir::arch::of_program(&compiled.program) {
        Some(arch) if arch.name == p4_ir::arch::op4t::OP4T.name => Ok(()),
        other => Err(CliError::input(format!(
            "{}: this needs an OP4T program (#include <op4t.p4>, package OP4T), not {}",
            program.display(),
            other.map_or("a program without a known architecture".to_string(), |a| format!("a {} one", a.name))
        ))),
    }
}

/// Checks before a long run that the plot can be written.
fn before(stream: &StreamArgs) -> CliResult<()> {
    if let Some(path) = &stream.plot {
        p4_io::output::check_writable(path)?;
    }
    Ok(())
}

/// The report as JSON or as text.
pub(crate) fn render<T: serde::Serialize>(report: &T, json: bool, text: fn(&T) -> String) -> CliResult<String> {
    if json {
        return Ok(serde_json::to_string_pretty(report).map_err(|e| CliError::failed(e.to_string()))? + "\n");
    }
    Ok(text(report))
}

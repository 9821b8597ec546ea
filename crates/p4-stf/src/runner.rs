//! Runs parsed STF commands against any dataplane and checks the results.
//!
//! Semantics (stf-format.md): commands run in file order; outputs are collected per port in the
//! order the dataplane produced them; at the end, every port mentioned by a `packet` or `expect` line
//! must have received exactly its expected packets, in order (ports never mentioned are not
//! observed). STF priorities (larger wins) become `10000 - p` for the control-plane API (smaller
//! wins). Written checks (`check_counter`, `register_read ... <value>`) are checked when they run.
//! A refused control-plane command stops the run: later expectations would only report noise.
//!
//! Time: the dataplane is synchronous, so `packet` i is injected at `i * PACKET_SPACING_NS` plus
//! `WAIT_NS` for every earlier `wait`.

use crate::pattern::{hex_grouped, render_diff, Mismatch, PacketPattern};
use crate::runtime::SessionState;
use crate::stf::{EntryIndex, StfCommand, StfLine, TableAdd};
use p4_control::{ActionArgs, ControlError, ControlPlane, Handle, Keys, PacketIo};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::{self, Write};

/// Simulated time between two injected packets.
pub const PACKET_SPACING_NS: u64 = 1_000;
/// Simulated time a `wait` adds.
pub const WAIT_NS: u64 = 1_000_000;
/// STF priority `p` becomes control-plane priority `STF_PRIORITY_BASE - p`.
pub const STF_PRIORITY_BASE: i64 = 10_000;

/// One way a test failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StfFailure {
    /// The dataplane refused a control-plane command.
    Command { line: usize, message: String },
    /// A written check (`check_counter`, `register_read` with a value) did not hold.
    Check { line: usize, message: String },
    /// The `position`-th packet (0-based) on `port` did not match the `expect` at `line`.
    Mismatch { port: u32, position: usize, line: usize, expected: PacketPattern, got: Vec<u8>, reason: Mismatch },
    /// An expected packet never came.
    Missing { port: u32, position: usize, line: usize, expected: Option<PacketPattern> },
    /// A packet came that no `expect` accounts for.
    Unexpected { port: u32, position: usize, got: Vec<u8> },
}

impl fmt::Display for StfFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StfFailure::Command { line, message } => write!(f, "line {line}: command refused: {message}"),
            StfFailure::Check { line, message } => write!(f, "line {line}: check failed: {message}"),
            StfFailure::Mismatch { port, position, line, expected, got, reason } => {
                let why = match reason {
                    Mismatch::TooShort => format!("got {} bytes, expected at least {}", got.len(), expected.byte_len()),
                    Mismatch::TooLong => format!("got {} bytes, expected exactly {}", got.len(), expected.byte_len()),
                    Mismatch::Nibble(i) => format!("first difference at byte {}", i / 2),
                };
                writeln!(f, "port {port}: packet #{} does not match `expect` at line {line} ({why})", position + 1)?;
                write!(f, "{}", render_diff(expected, got).trim_end())
            }
            StfFailure::Missing { port, position, line, expected } => {
                let what = expected.as_ref().map_or_else(|| "any packet".to_string(), ToString::to_string);
                write!(f, "port {port}: missing packet #{} expected at line {line}: {what}", position + 1)
            }
            StfFailure::Unexpected { port, position, got } => {
                write!(f, "port {port}: unexpected packet #{} ({} bytes): {}", position + 1, got.len(), hex_grouped(got))
            }
        }
    }
}

/// The result of running one STF file.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StfReport {
    /// Everything that went wrong, in the order found (command failures, then per-port packet checks).
    pub failures: Vec<StfFailure>,
    /// `packet` lines injected.
    pub packets_sent: usize,
    /// Packets received on observed ports.
    pub packets_received: usize,
    /// `expect` lines.
    pub packets_expected: usize,
    /// Command output, drop reasons and `log_msg` lines, in order, prefixed with the line that caused them.
    pub log: Vec<String>,
    /// Set when a refused command stopped the run at this line.
    pub stopped_at: Option<usize>,
    /// A traced dataplane's trace of each `packet` line: `(line, port, steps)`.
    pub traces: Vec<(usize, u32, Vec<p4_control::trace::Event>)>,
}

impl StfReport {
    /// True when nothing failed.
    pub fn passed(&self) -> bool {
        self.failures.is_empty()
    }

    /// The command the dataplane refused, which stopped the run, as `(line, message)`: bad input
    /// (like a refused entry in an entries file), not a failed expectation.
    pub fn refused(&self) -> Option<(usize, &str)> {
        self.failures.iter().find_map(|f| match f {
            StfFailure::Command { line, message } => Some((*line, message.as_str())),
            _ => None,
        })
    }

    /// The exit code for `p4forge test`: 0 passed, 1 an expectation or written check failed, 2 a
    /// command was refused (bad input; see [`StfReport::refused`]).
    pub fn exit_code(&self) -> i32 {
        if self.refused().is_some() {
            2
        } else if self.passed() {
            0
        } else {
            1
        }
    }

    /// `PASS`/`FAIL` summary line followed by every failure.
    pub fn render(&self) -> String {
        let mut out = String::new();
        let verdict = if self.passed() { "PASS" } else { "FAIL" };
        let _ = writeln!(
            out,
            "{verdict}: {} packet{} sent, {} received, {} expected",
            self.packets_sent,
            if self.packets_sent == 1 { "" } else { "s" },
            self.packets_received,
            self.packets_expected
        );
        if let Some(line) = self.stopped_at {
            let _ = writeln!(out, "stopped at line {line}; packet expectations were not compared");
        }
        for failure in &self.failures {
            let _ = writeln!(out, "{failure}");
        }
        out
    }
}

/// Per-run bookkeeping.
#[derive(Default)]
struct Run {
    report: StfReport,
    session: SessionState,
    now_ns: u64,
    labels: BTreeMap<String, (String, Handle)>,
    touched_tables: BTreeSet<String>,
    observed_ports: BTreeSet<u32>,
    expected: BTreeMap<u32, Vec<(usize, Option<PacketPattern>)>>,
    received: BTreeMap<u32, Vec<Vec<u8>>>,
}

/// Runs `commands` against `dataplane` and checks every expectation.
pub fn run_stf<D: ControlPlane + PacketIo + ?Sized>(dataplane: &mut D, commands: &[StfLine]) -> StfReport {
    let mut run = Run::default();
    for StfLine { line, command } in commands {
        if let Err(error) = run.step(dataplane, *line, command) {
            run.report.failures.push(StfFailure::Command { line: *line, message: error.to_string() });
            run.report.stopped_at = Some(*line);
            return run.report;
        }
    }
    run.compare();
    run.report
}

/// A missing priority, said in STF's terms: its priority comes right after the table name.
fn stf_priority_hint(error: ControlError) -> ControlError {
    match error {
        ControlError::MissingPriority { table, kind } => ControlError::Invalid(format!(
            "{kind} table {table} needs a priority after the table name (`add {table} <priority> ...`; larger wins)"
        )),
        other => other,
    }
}

fn args_named(args: &[(String, num_bigint::BigUint)]) -> ActionArgs {
    ActionArgs::Named(args.to_vec())
}

impl Run {
    fn step<D: ControlPlane + PacketIo + ?Sized>(&mut self, dp: &mut D, line: usize, command: &StfCommand) -> Result<(), ControlError> {
        match command {
            StfCommand::Packet { port, data } => {
                // A port the program's port fields cannot hold is bad input, not a packet to drop.
                dp.check_port(*port)?;
                self.observed_ports.insert(*port);
                let injected = dp.inject(*port, data, self.now_ns);
                self.now_ns += PACKET_SPACING_NS;
                self.report.packets_sent += 1;
                for drop in injected.drops {
                    self.report.log.push(format!("line {line}: dropped: {drop}"));
                }
                for msg in injected.log {
                    self.report.log.push(format!("line {line}: {msg}"));
                }
                for out in injected.outputs {
                    self.received.entry(out.port).or_default().push(out.data);
                }
                if !injected.trace.is_empty() {
                    self.report.traces.push((line, *port, injected.trace));
                }
            }
            StfCommand::Expect { port, pattern } => {
                dp.check_port(*port)?;
                self.observed_ports.insert(*port);
                self.expected.entry(*port).or_default().push((line, pattern.clone()));
                self.report.packets_expected += 1;
            }
            StfCommand::Add(add) => self.add(dp, add)?,
            StfCommand::SetDefault { table, action, args } => {
                dp.table_set_default(table, action, args_named(args))?;
                self.touched_tables.insert(table.clone());
            }
            StfCommand::CheckCounter { counter, index, check } => {
                let index = match index {
                    EntryIndex::Number(n) => *n,
                    EntryIndex::Label(label) => match self.labels.get(label) {
                        Some((_, handle)) => *handle,
                        None => return Err(ControlError::Invalid(format!("no entry was labelled `{label}` (`add ... = {label}`)"))),
                    },
                };
                let (packets, bytes) = dp.counter_read(counter, index)?;
                self.report.log.push(format!("line {line}: {counter}[{index}] = {packets} packets, {bytes} bytes"));
                if let Some(check) = check {
                    let (actual, unit) = if check.bytes { (bytes, "bytes") } else { (packets, "packets") };
                    if !check.op.holds(actual, check.value) {
                        self.report.failures.push(StfFailure::Check {
                            line,
                            message: format!("{counter}({index}) {unit} is {actual}, expected {} {}", check.op.symbol(), check.value),
                        });
                    }
                }
            }
            StfCommand::Wait => self.now_ns += WAIT_NS,
            StfCommand::RemoveAll => {
                for table in std::mem::take(&mut self.touched_tables) {
                    dp.table_clear(&table)?;
                }
                self.labels.clear();
            }
            StfCommand::Runtime(runtime) => {
                let outcome = runtime.apply(dp, &mut self.session)?;
                if let Some(text) = outcome.output {
                    self.report.log.push(format!("line {line}: {text}"));
                }
                if let Some(message) = outcome.check_failure {
                    self.report.failures.push(StfFailure::Check { line, message });
                }
            }
        }
        Ok(())
    }

    fn add<D: ControlPlane + ?Sized>(&mut self, dp: &mut D, add: &TableAdd) -> Result<(), ControlError> {
        let priority = match add.priority {
            Some(p) => Some(
                STF_PRIORITY_BASE
                    .checked_sub(p)
                    .ok_or_else(|| ControlError::Invalid(format!("priority {p} is out of range")))?,
            ),
            None => None,
        };
        let handle = dp
            .table_add(&add.table, Keys::Named(add.keys.clone()), &add.action, args_named(&add.args), priority)
            .map_err(stf_priority_hint)?;
        self.touched_tables.insert(add.table.clone());
        if let Some(label) = &add.label {
            self.labels.insert(label.clone(), (add.table.clone(), handle));
        }
        Ok(())
    }

    /// Pairs each observed port's expectations with what it received, in order.
    fn compare(&mut self) {
        for port in self.observed_ports.iter().copied() {
            let got = self.received.remove(&port).unwrap_or_default();
            let want = self.expected.remove(&port).unwrap_or_default();
            self.report.packets_received += got.len();
            for (position, (line, pattern)) in want.iter().enumerate() {
                match (got.get(position), pattern) {
                    (None, _) => self.report.failures.push(StfFailure::Missing {
                        port,
                        position,
                        line: *line,
                        expected: pattern.clone(),
                    }),
                    (Some(_), None) => {}
                    (Some(packet), Some(pattern)) => {
                        if let Some(reason) = pattern.first_mismatch(packet) {
                            self.report.failures.push(StfFailure::Mismatch {
                                port,
                                position,
                                line: *line,
                                expected: pattern.clone(),
                                got: packet.clone(),
                                reason,
                            });
                        }
                    }
                }
            }
            for (position, packet) in got.into_iter().enumerate().skip(want.len()) {
                self.report.failures.push(StfFailure::Unexpected { port, position, got: packet });
            }
        }
    }
}

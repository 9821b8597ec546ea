//! `p4forge run`: push pcap traffic through a program with table entries from a BMv2 command file.
//!
//! Inputs are streamed (never loaded whole) and merged by timestamp: each file is taken to be in time
//! order, as captures are, and ties go to the earlier `--in` argument. Packets are injected one at a
//! time; the dataplane sees time as nanoseconds since the first input packet. Each output packet is
//! written to `OUT/port<N>.pcap` with the timestamp of the input packet that caused it (see [`run`]
//! for what is on disk when a run fails or is interrupted).

use crate::cmd::entries::Entries;
use crate::cmd::port_map::PortMap;
use crate::cmd::run_engine::{Chunk, Engine, Input, RawChunk, Sink, CHUNK};
use crate::error::{CliError, CliResult};
use crate::frontend;
use p4_dataplane::control::{Injected, OutputPacket};
use p4_stf::capture::{CaptureReader, CaptureWriter, CapturedPacket, PcapRecords, RawRecords, Record};
use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap};
use std::fmt::Write;
use std::path::{Path, PathBuf};

/// Bytes a capture spends per packet besides its data (the pcap record header), for progress.
const RECORD_OVERHEAD: u64 = 16;

/// What `run` needs.
pub struct RunOptions {
    pub program: PathBuf,
    pub includes: Vec<PathBuf>,
    pub entries: Option<PathBuf>,
    /// `(ingress port, capture file)`.
    pub inputs: Vec<(u32, PathBuf)>,
    pub out: PathBuf,
    /// Print each `log_msg` line and every entry added.
    pub verbose: bool,
    pub progress: p4_io::progress::ProgressArgs,
    pub target: crate::cmd::test::Target,
    /// Threads running the software dataplane (`--threads`): the calling thread and N - 1 helpers.
    pub threads: usize,
    pub trace: crate::cmd::trace::TraceArgs,
    pub table_sizes: crate::cmd::TableSizeArgs,
}

impl RunOptions {
    /// How the software switches are built.
    fn build(&self) -> frontend::SwitchBuild {
        frontend::SwitchBuild { traced: self.trace.enabled(), ignore_table_sizes: self.table_sizes.ignore_table_sizes }
    }
}

/// Packet and byte counts of one port.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PortStats {
    pub packets_in: u64,
    pub bytes_in: u64,
    pub packets_out: u64,
    pub bytes_out: u64,
}

/// What a run did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RunSummary {
    pub ports: BTreeMap<u32, PortStats>,
    /// Drop reason → number of dropped copies.
    pub drops: BTreeMap<String, u64>,
    /// Output files written, in port order.
    pub files: Vec<PathBuf>,
    /// `Some(n)`: stopped by Ctrl-C after `n` input packets (the outputs hold what those produced).
    pub interrupted_after: Option<u64>,
    /// `port<N>.pcap` files in the output directory that this run did not write (from an earlier run).
    pub untouched: Vec<PathBuf>,
}

impl RunSummary {
    /// The summary table printed after a run.
    pub fn render(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "{:>6}  {:>10}  {:>10}  {:>11}  {:>10}",
            "port", "packets in", "bytes in", "packets out", "bytes out"
        );
        let mut total = PortStats::default();
        for (port, s) in &self.ports {
            let _ = writeln!(
                out,
                "{port:>6}  {:>10}  {:>10}  {:>11}  {:>10}",
                s.packets_in, s.bytes_in, s.packets_out, s.bytes_out
            );
            total.packets_in += s.packets_in;
            total.bytes_in += s.bytes_in;
            total.packets_out += s.packets_out;
            total.bytes_out += s.bytes_out;
        }
        let _ = writeln!(
            out,
            "{:>6}  {:>10}  {:>10}  {:>11}  {:>10}",
            "total", total.packets_in, total.bytes_in, total.packets_out, total.bytes_out
        );
        let dropped: u64 = self.drops.values().sum();
        let _ = writeln!(out, "dropped: {dropped}");
        let mut by_count: Vec<(&String, &u64)> = self.drops.iter().collect();
        by_count.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
        for (reason, count) in by_count {
            let _ = writeln!(out, "{count:>8}  {reason}");
        }
        for file in &self.files {
            let _ = writeln!(out, "wrote {}", file.display());
        }
        for file in &self.untouched {
            let _ = writeln!(
                out,
                "left as it was: {} (from an earlier run; this run sent nothing to that port)",
                file.display()
            );
        }
        if let Some(packets) = self.interrupted_after {
            let _ = writeln!(
                out,
                "interrupted by {} after {packets} input packets: the counts and outputs above are partial \
                 (every output file is a complete capture of what was processed)",
                p4_io::interrupt::stopped_by()
            );
        }
        out
    }
}

impl RunSummary {
    /// Counts a packet that arrived on `port`.
    pub fn count_in(&mut self, port: u32, bytes: usize) {
        let stats = self.ports.entry(port).or_default();
        stats.packets_in += 1;
        stats.bytes_in += bytes as u64;
    }

    /// Counts a packet that left through `port`.
    pub fn count_out(&mut self, port: u32, bytes: usize) {
        let stats = self.ports.entry(port).or_default();
        stats.packets_out += 1;
        stats.bytes_out += bytes as u64;
    }

    /// Counts the drops one injected packet caused (by reason), shows its `log_msg` lines when
    /// `verbose`, and hands its outputs over for writing or sending (each counted with
    /// [`RunSummary::count_out`] once it leaves).
    pub fn outputs_of(&mut self, injected: Injected, verbose: bool) -> Vec<OutputPacket> {
        for reason in injected.drops {
            *self.drops.entry(reason).or_default() += 1;
        }
        if verbose {
            for line in &injected.log {
                p4_io::eprintln_safe!("log: {line}");
            }
        }
        injected.outputs
    }
}

/// Parses `PORT=FILE`.
pub fn parse_input_arg(text: &str) -> Result<(u32, PathBuf), String> {
    let (port, file) =
        text.split_once('=').ok_or_else(|| format!("`{text}` must be written PORT=FILE, e.g. 1=in.pcap"))?;
    let port: u32 = port.trim().parse().map_err(|_| format!("`{port}` in `{text}` is not a port number"))?;
    if file.is_empty() {
        return Err(format!("`{text}` names no file"));
    }
    Ok((port, PathBuf::from(file)))
}

/// A k-way merge of the input captures by timestamp.
pub(crate) struct MergedInputs {
    /// Per input: its ingress port, its reader, and its next packet (bytes and record).
    inputs: Vec<(u32, CaptureReader, Vec<u8>, Option<Record>)>,
    /// `(timestamp, input index)` of every input's next packet; the index breaks ties.
    heads: BinaryHeap<Reverse<(u64, usize)>>,
    /// Total size of the input files, for progress.
    total_bytes: u64,
}

impl MergedInputs {
    pub(crate) fn open(inputs: &[(u32, PathBuf)]) -> CliResult<MergedInputs> {
        let mut merged = MergedInputs { inputs: Vec::new(), heads: BinaryHeap::new(), total_bytes: 0 };
        for (index, (port, path)) in inputs.iter().enumerate() {
            let mut reader = CaptureReader::open(path).map_err(|e| CliError::input(e.to_string()))?;
            merged.total_bytes += std::fs::metadata(path).map_or(0, |m| m.len());
            let mut bytes = Vec::new();
            let first = reader.next_into(&mut bytes).map_err(|e| CliError::input(e.to_string()))?;
            if let Some(record) = &first {
                merged.heads.push(Reverse((record.timestamp_ns, index)));
            }
            merged.inputs.push((*port, reader, bytes, first));
        }
        Ok(merged)
    }

    /// The earliest pending packet and its ingress port.
    pub(crate) fn next(&mut self) -> CliResult<Option<(u32, CapturedPacket)>> {
        let mut data = Vec::new();
        Ok(self.next_into(&mut data)?.map(|(port, r)| {
            (port, CapturedPacket { timestamp_ns: r.timestamp_ns, data, original_len: r.original_len })
        }))
    }

    /// Reads up to `max` packets in time order, appending each one's bytes to `bytes` and handing
    /// `each` its ingress port, record and where its bytes start, until `each` returns false;
    /// returns how many were read, fewer than `max` only when every input is at its end or `each`
    /// said stop.
    pub(crate) fn read_many(
        &mut self,
        bytes: &mut Vec<u8>,
        max: usize,
        mut each: impl FnMut(u32, Record, usize) -> bool,
    ) -> CliResult<usize> {
        // One input: nothing to merge; after the packet read when it was opened, packets are read
        // many at a time straight into `bytes` (the reader's own loop: `p4forge run`'s hot path).
        if let [(port, reader, pending, first)] = self.inputs.as_mut_slice() {
            self.heads.clear();
            let port = *port;
            let mut read = 0;
            if let Some(record) = first.take_if(|_| max > 0) {
                let at = bytes.len();
                bytes.extend_from_slice(pending);
                pending.clear();
                read += 1;
                if !each(port, record, at) {
                    return Ok(read);
                }
            }
            let more = reader.read_many(bytes, max - read, |record, at| each(port, record, at));
            return Ok(read + more.map_err(|e| CliError::input(e.to_string()))?);
        }
        let mut read = 0;
        while read < max {
            let at = bytes.len();
            let Some((port, record)) = self.next_into(bytes)? else { break };
            read += 1;
            if !each(port, record, at) {
                break;
            }
        }
        Ok(read)
    }

    /// With one classic pcap input, whole records read into the front of `buffer` as they are in
    /// the file (see [`CaptureReader::read_raw`]), with their ingress port; `None` when packets
    /// must be read one by one ([`MergedInputs::read_many`]): several inputs to merge, pcapng, the
    /// packet read when the input was opened still pending, or no whole valid record next (the
    /// end, or an error that reading it one by one reports).
    pub(crate) fn read_raw(&mut self, buffer: &mut Vec<u8>, limit: usize) -> CliResult<Option<(u32, RawRecords)>> {
        let [(port, reader, _, None)] = self.inputs.as_mut_slice() else { return Ok(None) };
        let records = reader.read_raw(buffer, limit).map_err(|e| CliError::input(e.to_string()))?;
        Ok(records.filter(|r| r.count() > 0).map(|r| (*port, r)))
    }

    /// The earliest pending packet, its bytes appended to `bytes`, with its ingress port.
    pub(crate) fn next_into(&mut self, bytes: &mut Vec<u8>) -> CliResult<Option<(u32, Record)>> {
        // One input: nothing to merge; after the packet read when it was opened, each packet is
        // read straight into `bytes`.
        if let [(port, reader, pending, first)] = self.inputs.as_mut_slice() {
            self.heads.clear();
            if let Some(record) = first.take() {
                bytes.extend_from_slice(pending);
                pending.clear();
                return Ok(Some((*port, record)));
            }
            return Ok(reader.next_into(bytes).map_err(|e| CliError::input(e.to_string()))?.map(|r| (*port, r)));
        }
        let Some(Reverse((_, index))) = self.heads.pop() else { return Ok(None) };
        let Some((port, reader, pending, record)) = self.inputs.get_mut(index) else { return Ok(None) };
        let Some(current) = record.take() else { return Ok(None) };
        bytes.extend_from_slice(pending);
        pending.clear();
        *record = reader.next_into(pending).map_err(|e| CliError::input(e.to_string()))?;
        if let Some(next) = record {
            self.heads.push(Reverse((next.timestamp_ns, index)));
        }
        Ok(Some((*port, current)))
    }
}

/// Runs the traffic and writes the output captures.
///
/// What is on disk afterwards is always whole: each output is written under a temporary name and
/// renamed over `OUT/port<N>.pcap` only when the run ends (completed, or stopped by Ctrl-C, which the
/// summary then says). A bad input half-way, a full disk or any other error leaves the outputs of an
/// earlier run exactly as they were. Nothing the run did not write is removed or overwritten, and a run
/// whose outputs would replace one of its inputs is refused before it starts.
pub fn run(options: &RunOptions) -> CliResult<RunSummary> {
    let entries = options.entries.as_deref().map(Entries::read).transpose()?;
    p4_io::output::create_dir(&options.out)?;
    // A directory that accepts no new file fails here, before any packet is processed.
    p4_io::output::check_writable(&output_path(&options.out, 0))?;
    refuse_overwriting_inputs(&options.out, &options.inputs)?;
    let mut inputs = MergedInputs::open(&options.inputs)?;
    let mut target = match options.target {
        crate::cmd::test::Target::Sw => {
            let compiled = frontend::compile(&options.program, &options.includes)?;
            p4_io::eprint_safe!("{}", compiled.warnings);
            let mut switches =
                frontend::software_switches(compiled, &options.program, options.threads, options.build())?;
            let state = switches.first().map(p4_dataplane::Switch::cross_packet_state).unwrap_or_default();
            if switches.len() > 1 && !state.is_empty() {
                p4_io::eprintln_safe!(
                    "note: {} keeps state from one packet to the next ({}): running on one worker thread, \
                     so that every packet sees the state one thread would give it",
                    options.program.display(),
                    state.join(", ")
                );
                switches.truncate(1);
            }
            if let (true, Some(first)) = (options.verbose, switches.first()) {
                p4_io::eprintln_safe!("{}", frontend::executor_line(first));
            }
            for (index, switch) in switches.iter_mut().enumerate() {
                check_ports(switch, &options.inputs)?;
                // What the commands print is shown once, not once per worker.
                apply_entries(entries.as_ref(), switch, options.verbose && index == 0)?;
            }
            Target::Software(Box::new(Engine::new(switches)))
        }
        crate::cmd::test::Target::Rtl => {
            options.table_sizes.check_rtl()?;
            if options.threads > 1 {
                p4_io::eprintln_safe!(
                    "note: --threads is for the software target; the RTL simulation takes one packet at a time"
                );
            }
            crate::cmd::check_rtl_trace(options.trace.enabled())?;
            let mut switch =
                crate::cmd::rtl::rtl_switch(&options.program, &options.includes, &p4_rtl::Options::default())?;
            check_ports(&switch, &options.inputs)?;
            apply_entries(entries.as_ref(), &mut switch, options.verbose)?;
            Target::Other(Box::new(switch))
        }
    };

    let mut summary = RunSummary::default();
    let mut port_stats = PortMap::<PortStats>::default();
    for (port, _) in &options.inputs {
        port_stats.entry_or_default(*port);
    }
    // Dropped without commit on any error below: the temporary files go, earlier outputs stay.
    let mut sink = Outputs {
        out: &options.out,
        outputs: PortMap::default(),
        port_stats,
        summary: &mut summary,
        verbose: options.verbose,
        trace: &options.trace,
    };
    let mut start_ns = None;
    let progress = p4_io::progress::Progress::new(options.progress.enabled(), inputs.total_bytes, "input bytes");
    let mut packets_in = 0u64;
    let mut interrupted = false;
    p4_io::interrupt::install();
    while !interrupted {
        // `raw_bytes`: the software target takes whole records, decoded by the thread that runs them.
        let (size, raw_bytes, mut chunk) = match &mut target {
            Target::Software(engine) => (engine.chunk_size(), Some(engine.raw_chunk_bytes()), engine.empty_chunk()),
            Target::Other(_) => (CHUNK, None, Chunk::with_capacity(CHUNK)),
        };
        // Progress is told once per chunk: per packet it cost a clock read or a bar update each.
        let mut chunk_bytes = 0u64;
        // Ctrl-C is looked at before each chunk and after each packet or read (a read from a pipe
        // that was waiting when Ctrl-C came may bring many packets at once; the first is taken, the
        // rest not).
        if p4_io::interrupt::interrupted() {
            interrupted = true;
        } else if let Some((port, mut records)) =
            raw_bytes.map(|limit| inputs.read_raw(&mut chunk.bytes, limit)).transpose()?.flatten()
        {
            // Counted here by their sums.
            if p4_io::interrupt::interrupted() {
                records.first_only(&chunk.bytes);
                interrupted = true;
            }
            let start = *start_ns.get_or_insert_with(|| records.first_timestamp_ns(&chunk.bytes).unwrap_or(0));
            let stats = sink.port_stats.entry_or_default(port);
            stats.packets_in += records.count() as u64;
            stats.bytes_in += records.captured_bytes();
            chunk_bytes = records.captured_bytes() + RECORD_OVERHEAD * records.count() as u64;
            chunk.set_raw(RawChunk { records, port, first_number: packets_in + 1, start_ns: start });
            packets_in += records.count() as u64;
        } else {
            chunk.bytes.clear();
            let inputs_of_chunk = &mut chunk.inputs;
            let port_stats = &mut sink.port_stats;
            let interrupted = &mut interrupted;
            inputs.read_many(&mut chunk.bytes, size, |port, record, at| {
                packets_in += 1;
                let start = *start_ns.get_or_insert(record.timestamp_ns);
                let stats = port_stats.entry_or_default(port);
                stats.packets_in += 1;
                stats.bytes_in += record.len as u64;
                chunk_bytes += record.len as u64 + RECORD_OVERHEAD;
                inputs_of_chunk.push(Input {
                    port,
                    timestamp_ns: record.timestamp_ns,
                    now_ns: record.timestamp_ns.saturating_sub(start),
                    at,
                    len: record.len,
                    original_len: record.original_len,
                    number: packets_in,
                });
                *interrupted = p4_io::interrupt::interrupted();
                !*interrupted
            })?;
        }
        progress.inc(chunk_bytes);
        if chunk.is_empty() {
            // An input waiting for bytes ends when a stop signal comes.
            interrupted |= p4_io::interrupt::interrupted();
            break;
        }
        match &mut target {
            Target::Software(engine) => engine.push(chunk, &mut sink)?,
            Target::Other(dataplane) => {
                for input in &chunk.inputs {
                    let injected = dataplane.inject(input.port, chunk.data(input), input.now_ns);
                    for reason in injected.drops {
                        *sink.summary.drops.entry(reason).or_default() += 1;
                    }
                    for line in &injected.log {
                        sink.log(input, line);
                    }
                    for output in injected.outputs {
                        sink.output(input, output.port, &output.data)?;
                    }
                }
            }
        }
    }
    if let Target::Software(engine) = target {
        for (reason, count) in engine.finish(&mut sink)? {
            *sink.summary.drops.entry(reason).or_default() += count;
        }
    }
    if interrupted {
        sink.summary.interrupted_after = Some(packets_in);
    }
    progress.finish();
    let Outputs { outputs, mut port_stats, .. } = sink;
    for (port, output) in outputs.into_ports() {
        let stats = port_stats.entry_or_default(port);
        stats.packets_out = output.packets;
        stats.bytes_out = output.bytes;
        output.writer.finish().map_err(|e| CliError::output(e.to_string()))?;
        summary.files.push(output_path(&options.out, port));
    }
    summary.ports.extend(port_stats.into_ports());
    summary.untouched = earlier_outputs(&options.out, &summary.files);
    Ok(summary)
}

/// The dataplane a run drives.
enum Target {
    /// The software switch, through its batch interface (boxed: the engine is large beside a pointer).
    Software(Box<Engine>),
    /// Any other dataplane (the RTL simulation), one packet at a time.
    Other(Box<dyn frontend::Dataplane>),
}

/// Refuses an input port the program's port fields cannot hold.
fn check_ports(switch: &dyn frontend::Dataplane, inputs: &[(u32, PathBuf)]) -> CliResult<()> {
    for (port, path) in inputs {
        switch.check_port(*port).map_err(|e| CliError::input(format!("--in {port}={}: {e}", path.display())))?;
    }
    Ok(())
}

/// Applies the entries file (printing what its commands print when `verbose`).
fn apply_entries(entries: Option<&Entries>, switch: &mut dyn frontend::Dataplane, verbose: bool) -> CliResult<()> {
    if let Some(entries) = entries {
        let printed = entries.apply(switch)?;
        if verbose {
            for line in printed {
                p4_io::eprintln_safe!("{line}");
            }
        }
    }
    Ok(())
}

/// The output captures of a run, opened as their ports are first used.
struct Outputs<'a> {
    out: &'a Path,
    outputs: PortMap<PortOutput>,
    /// Packets and bytes in by port (with the counts of `outputs`, a [`RunSummary`]'s `ports` at the end).
    port_stats: PortMap<PortStats>,
    /// For its drop counts.
    summary: &'a mut RunSummary,
    verbose: bool,
    trace: &'a crate::cmd::trace::TraceArgs,
}

/// One output port's capture and counts, kept together so that a packet costs one lookup.
struct PortOutput {
    writer: CaptureWriter,
    packets: u64,
    bytes: u64,
}

impl Outputs<'_> {
    /// The capture of `port`, created with its first packet.
    fn port_output(&mut self, port: u32) -> CliResult<&mut PortOutput> {
        let out = self.out;
        self.outputs.get_or_try_insert_with(port, || {
            let writer = CaptureWriter::create(&output_path(out, port)).map_err(|e| CliError::output(e.to_string()))?;
            Ok::<_, CliError>(PortOutput { writer, packets: 0, bytes: 0 })
        })
    }
}

impl Sink for Outputs<'_> {
    fn place_records(&mut self, port: u32, records: &PcapRecords) -> CliResult<Option<p4_io::output::Reserved>> {
        let output = self.port_output(port)?;
        output.packets += records.packets();
        output.bytes += records.data_bytes();
        output.writer.reserve_records(records).map_err(|e| CliError::output(e.to_string()))
    }

    fn output(&mut self, input: &Input, port: u32, data: &[u8]) -> CliResult<()> {
        let output = self.port_output(port)?;
        output.packets += 1;
        output.bytes += data.len() as u64;
        let original_len = input.output_original_len(data.len());
        output.writer.write_record(input.timestamp_ns, data, original_len).map_err(|e| CliError::output(e.to_string()))
    }

    fn log(&mut self, _input: &Input, line: &str) {
        if self.verbose {
            p4_io::eprintln_safe!("log: {line}");
        }
    }

    fn trace(&mut self, input: &Input, events: &[p4_dataplane::trace::Event]) {
        self.trace.print(input.number, input.port, events);
    }
}

/// Whether `name` is one of `run`'s output names, `port<N>.pcap`.
fn is_output_name(name: &std::ffi::OsStr) -> bool {
    name.to_str()
        .and_then(|n| n.strip_prefix("port"))
        .and_then(|n| n.strip_suffix(".pcap"))
        .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

/// The `port<N>.pcap` files already in `out`.
fn existing_outputs(out: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(out) else { return Vec::new() };
    let mut found: Vec<PathBuf> =
        entries.flatten().filter(|e| is_output_name(&e.file_name())).map(|e| e.path()).collect();
    found.sort();
    found
}

/// Refuses a run that would replace one of its inputs: an input that *is* (same file, through any
/// name, link or symlink) an output name in `out`.
pub(crate) fn refuse_overwriting_inputs(out: &Path, inputs: &[(u32, PathBuf)]) -> CliResult<()> {
    use std::os::unix::fs::MetadataExt;
    let identity = |path: &Path| std::fs::metadata(path).ok().map(|m| (m.dev(), m.ino()));
    for existing in existing_outputs(out) {
        let Some(output) = identity(&existing) else { continue };
        if let Some((port, input)) = inputs.iter().find(|(_, input)| identity(input) == Some(output)) {
            return Err(CliError::input(format!(
                "--in {port}={} is the file {} that this run would write its port output to (outputs are OUT/port<N>.pcap); \
                 choose another --out directory or move the input",
                input.display(),
                existing.display()
            )));
        }
    }
    Ok(())
}

/// Outputs of an earlier run that this run did not replace (it sent nothing to their ports): left as
/// they were, and named in the summary so they are not mistaken for this run's.
fn earlier_outputs(out: &Path, written: &[PathBuf]) -> Vec<PathBuf> {
    existing_outputs(out).into_iter().filter(|path| !written.contains(path)).collect()
}

/// The output capture of `port` under `out`.
pub fn output_path(out: &Path, port: u32) -> PathBuf {
    out.join(format!("port{port}.pcap"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn input_arguments() {
        assert_eq!(parse_input_arg("3=a.pcap"), Ok((3, PathBuf::from("a.pcap"))));
        assert_eq!(parse_input_arg("a.pcap"), Err("`a.pcap` must be written PORT=FILE, e.g. 1=in.pcap".to_string()));
        assert_eq!(parse_input_arg("x=a.pcap"), Err("`x` in `x=a.pcap` is not a port number".to_string()));
        assert_eq!(parse_input_arg("1="), Err("`1=` names no file".to_string()));
    }

    #[test]
    fn summary_table() {
        let mut summary = RunSummary::default();
        summary.ports.insert(1, PortStats { packets_in: 5, bytes_in: 420, packets_out: 0, bytes_out: 0 });
        summary.ports.insert(4, PortStats { packets_in: 0, bytes_in: 0, packets_out: 3, bytes_out: 300 });
        summary.drops.insert("mark_to_drop in MyIngress".into(), 1);
        summary.drops.insert("parser error PacketTooShort".into(), 1);
        summary.drops.insert("egress_spec 511".into(), 2);
        let want = "  port  packets in    bytes in  packets out   bytes out
     1           5         420            0           0
     4           0           0            3         300
 total           5         420            3         300
dropped: 4
       2  egress_spec 511
       1  mark_to_drop in MyIngress
       1  parser error PacketTooShort
";
        assert_eq!(summary.render(), want);
    }
}

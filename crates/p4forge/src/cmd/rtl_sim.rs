//! `p4forge rtl-sim`: the generated design in Verilator, driven from pcaps at line rate, with the
//! measurements of the seed's Tables 3.2 and 3.3: cycles per pipeline stage, end-to-end latency per
//! packet size, and sustained packets per cycle.
//!
//! Two parts:
//! - the traffic: every input packet, merged by timestamp as `run` merges them, is sent back to back
//!   at one beat per cycle (in chunks of [`CHUNK`] packets; the pipeline drains between chunks), or,
//!   in a whole switch with `--paced`, each at its capture time after the first packet's (its
//!   chunk's run waits for it) and no earlier than line rate allows;
//!   outputs go to `OUT/port<N>.pcap`, stamped with the input's first timestamp plus the cycle their
//!   first beat left, at the pipeline clock;
//! - the measurements: for each size in [`SIZES`], each input's first packet (one per port, so every
//!   port given takes part) cut or zero-padded to that size: alone for latency (first beat in to
//!   first beat out), then `--count` copies back to back for packets per cycle (from the cycles their
//!   first beats were taken) and the stall cycles of the pipeline.
//!
//! With `--gen PORT=SIZE@RATE` (and `--arch switch|bump`) the whole switch runs instead, on traffic
//! its harness generates per port at RATE Gb/s on the wire ([`p4_rtl::switch_sim`]), `--packets`
//! frames per port; the report's `ports` gives each port's frames in and out, drops and Gb/s out.
//!
//! With `--arch switch|bump` and `--in`, the whole switch runs on the pcaps (through its MACs; no
//! measurements), and the report's `ports` gives each port's packets in and out and drops. With
//! `--host-port`, `--in host=FILE` is sent from the host port (number N, [`HOST_INPUT`] until the
//! design gives it) and what reaches the host is written to `OUT/porthost.pcap` ([`HOST_OUTPUT`]),
//! `ports.host` in the report.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::Serialize;

use crate::cmd::entries::Entries;
use crate::cmd::run::{output_path, MergedInputs};
use crate::error::{CliError, CliResult};
use p4_stf::capture::{CaptureWriter, CapturedPacket};

/// Packet sizes the report measures, in bytes (the seed's Table 3.3).
pub const SIZES: [usize; 5] = [64, 256, 512, 1024, 1518];
/// Packets sent in one run of the model.
const CHUNK: usize = 1024;
/// The most copies per size in the packets-per-cycle runs (all are queued in the simulator at once).
const MAX_COUNT: usize = 100_000;

/// Frames per `--gen` port when `--packets` is not given.
pub const DEFAULT_GEN_PACKETS: u64 = 1000;
/// The most frames per `--gen` port (a run's length is bounded).
pub const MAX_GEN_PACKETS: u64 = 1_000_000;

/// The port number `--in host=FILE` stands for until the design gives the host port its number.
pub const HOST_INPUT: u32 = u32::MAX;
/// The output capture of the host port (`--host-port`), beside `port<N>.pcap`.
pub const HOST_OUTPUT: &str = "porthost.pcap";

/// Parses `rtl-sim --in`: `PORT=FILE`, or `host=FILE` for the host port ([`HOST_INPUT`]).
pub fn parse_sim_input(text: &str) -> Result<(u32, PathBuf), String> {
    match text.split_once('=') {
        Some(("host", file)) if !file.is_empty() => Ok((HOST_INPUT, PathBuf::from(file))),
        _ => crate::cmd::run::parse_input_arg(text),
    }
}

/// A port in the report: a front-panel port by number, or the host port (`"host"`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum PortKey {
    Port(u32),
    Host,
}

impl std::fmt::Display for PortKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PortKey::Port(p) => f.pad(&p.to_string()),
            PortKey::Host => f.pad("host"),
        }
    }
}

impl Serialize for PortKey {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// One `--gen PORT=SIZE@RATE`: a port's generated traffic.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GenSpec {
    pub port: u32,
    pub size: usize,
    pub rate_gbps: f64,
}

/// Parses `PORT=SIZE@RATE` (RATE in Gb/s on the wire, each frame with its 20 bytes of preamble and
/// gap, so 10 is a 10 Gb/s port's line rate).
pub fn parse_gen(text: &str) -> Result<GenSpec, String> {
    let form = || format!("`{text}` must be written PORT=SIZE@RATE (frame bytes, Gb/s on the wire), e.g. 0=64@10");
    let (port, rest) = text.split_once('=').ok_or_else(form)?;
    let (size, rate) = rest.split_once('@').ok_or_else(form)?;
    let port: u32 = port.trim().parse().map_err(|_| format!("`{port}` in `{text}` is not a port number"))?;
    let size: usize = size.trim().parse().map_err(|_| format!("`{size}` in `{text}` is not a frame size in bytes"))?;
    let min = p4_rtl::switch_sim::MIN_GEN_SIZE;
    if size < min {
        return Err(format!("`{text}`: a generated frame has at least {min} bytes (an Ethernet header, its port and number)"));
    }
    let rate_gbps: f64 = rate.trim().parse().map_err(|_| format!("`{rate}` in `{text}` is not a rate in Gb/s"))?;
    let line = p4_rtl::switch_sim::LINE_RATE_GBPS;
    if !(rate_gbps > 0.0 && rate_gbps <= line) {
        return Err(format!("`{text}`: RATE is Gb/s on the wire, above 0 and at most {line} (the ports' line rate)"));
    }
    Ok(GenSpec { port, size, rate_gbps })
}

/// What `rtl-sim` needs.
pub struct SimOptions {
    pub program: PathBuf,
    pub includes: Vec<PathBuf>,
    pub entries: Option<PathBuf>,
    pub inputs: Vec<(u32, PathBuf)>,
    pub out: PathBuf,
    /// Copies per size in the throughput runs.
    pub count: usize,
    /// A whole switch's inputs start at their capture times rather than back to back.
    pub paced: bool,
    pub rtl: p4_rtl::Options,
}

/// What `rtl-sim --gen` needs.
pub struct GenOptions {
    pub program: PathBuf,
    pub includes: Vec<PathBuf>,
    pub entries: Option<PathBuf>,
    pub gens: Vec<GenSpec>,
    /// Frames per port.
    pub packets: u64,
    /// `--swap-at NS,...` (`--arch op4t`): swap the packet processors this long after the run
    /// starts, each time.
    pub swaps_at_ns: Vec<u64>,
    /// `--second-entries`: entries of the second packet processor's program (`--second`).
    pub second_entries: Option<PathBuf>,
    pub rtl: p4_rtl::Options,
}

/// One port of a `--gen` run.
#[derive(Clone, Debug, Serialize)]
pub struct PortReport {
    /// Frames its generator sent (`--in` runs: packets of its input).
    pub packets_in: u64,
    /// Frames it transmitted.
    pub packets_out: u64,
    /// Frames lost at this port: its RX queue was full when they arrived, the shared buffer was
    /// full when they were for this port, or they were longer than its TX queue.
    pub drops: u64,
    /// Gb/s on the wire out of this port, each frame with its 20 bytes of preamble and gap,
    /// from its first frame's start to its last's, to 0.01 (`null`: fewer than two frames out).
    pub gbps_out: Option<f64>,
    /// `drops` by place.
    pub rx_drops: u64,
    pub buffer_drops: u64,
    pub tx_drops: u64,
}

/// A stage as the report lists it.
#[derive(Clone, Debug, Serialize)]
pub struct Stage {
    pub block: String,
    pub name: String,
    pub cycles: u32,
}

/// What the traffic did.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Traffic {
    /// Every input packet, those the design could not take included.
    pub packets_in: u64,
    pub packets_out: u64,
    /// Packets the program dropped plus those never sent to the design (`refused`).
    pub drops: u64,
    /// Of the drops, packets the design cannot take at all (empty, or longer than its payload FIFO).
    pub refused: u64,
    /// `refused` by reason: `empty`, `too_long`.
    pub refused_by_reason: BTreeMap<String, u64>,
    pub cycles: u64,
    pub stall_cycles: u64,
    /// Output packets per egress port.
    pub ports_out: BTreeMap<u32, u64>,
}

/// The report (`--json` prints it as is).
#[derive(Clone, Debug, Serialize)]
pub struct SimReport {
    pub program: String,
    pub top: String,
    pub data_width: u32,
    pub clock_mhz: f64,
    /// Stages of the header pipeline, in order, with their cycles.
    pub stages: Vec<Stage>,
    /// The same cycles summed by kind: `parser`, `tables` (lookups), `actions` (statement stages),
    /// `deparser`, `queue` (descriptors waiting for the merge) — the seed's Table 3.2 columns.
    pub stage_cycles: BTreeMap<String, u32>,
    /// Registers of the header pipeline from the window descriptor to the deparser's output.
    pub pipeline_latency_cycles: u32,
    /// First beat in to first beat out, one packet alone, by size in bytes (`null`: the program
    /// sent nothing out for that packet).
    pub latency_cycles: BTreeMap<String, Option<u64>>,
    pub latency_ns: BTreeMap<String, Option<f64>>,
    /// Packets taken per cycle, back to back, by size.
    pub packets_per_cycle: BTreeMap<String, f64>,
    /// The stream's limit: one packet per `ceil(size / bytes per beat)` cycles.
    pub line_rate_packets_per_cycle: BTreeMap<String, f64>,
    /// Cycles in which a stage held a packet back, over every measurement run.
    pub pipeline_stall_cycles: u64,
    pub traffic: Traffic,
    pub outputs: Vec<PathBuf>,
    pub notes: Vec<String>,
    /// `--gen` runs, and `--in` runs of a switch: per port (keyed by port number, and `host` for
    /// the host port) what it sent, transmitted and lost.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ports: Option<BTreeMap<PortKey, PortReport>>,
    /// `--gen` runs: the sum of the ports' `gbps_out`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gbps_out_total: Option<f64>,
    /// `--host-port`: the host port's number (its entry in `ports` is `host`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub host_port: Option<u32>,
    /// `--arch op4t`: the decoupler's counts after the run (swaps, stray beats, the last swap's
    /// drain cycles, the active processor).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub processors: Option<p4_rtl::switch_sim::ProcessorCounts>,
}

impl SimReport {
    /// The report of a run of `program`'s design: what the manifest says, `traffic` and `notes`,
    /// and nothing measured yet.
    fn of_design(program: &std::path::Path, manifest: &p4_rtl::Manifest, traffic: Traffic, notes: Vec<String>) -> SimReport {
        let stages: Vec<Stage> = manifest.stages.iter().map(|s| Stage { block: s.block.clone(), name: s.name.clone(), cycles: s.cycles }).collect();
        SimReport {
            program: program.display().to_string(),
            top: manifest.top.clone(),
            data_width: manifest.data_width,
            clock_mhz: manifest.clock_mhz,
            stage_cycles: stage_kinds(&stages),
            stages,
            pipeline_latency_cycles: manifest.pipeline_latency_cycles,
            latency_cycles: BTreeMap::new(),
            latency_ns: BTreeMap::new(),
            packets_per_cycle: BTreeMap::new(),
            line_rate_packets_per_cycle: BTreeMap::new(),
            pipeline_stall_cycles: 0,
            traffic,
            outputs: Vec::new(),
            notes,
            ports: None,
            gbps_out_total: None,
            host_port: None,
            processors: None,
        }
    }

    /// The human-readable report.
    pub fn render(&self) -> String {
        use std::fmt::Write;
        let mut o = String::new();
        let _ = writeln!(o, "{} ({}), {} bits at {} MHz", self.program, self.top, self.data_width, self.clock_mhz);
        let _ = writeln!(o, "pipeline stages (cycles):");
        for s in &self.stages {
            let _ = writeln!(o, "  {:<10} {:<40} {:>3}", s.block, s.name, s.cycles);
        }
        let by: Vec<String> = self.stage_cycles.iter().map(|(k, v)| format!("{k} {v}")).collect();
        let _ = writeln!(o, "  by kind: {}; header pipeline {} cycles", by.join(", "), self.pipeline_latency_cycles);
        // A --gen run measures ports, not the pipeline alone.
        let sizes: &[usize] = if self.ports.is_some() { &[] } else { &SIZES };
        if !sizes.is_empty() {
            let _ = writeln!(o, "{:>6} {:>15} {:>12} {:>17} {:>12}", "bytes", "latency cycles", "latency ns", "packets/cycle", "line rate");
        }
        for &size in sizes {
            let k = size.to_string();
            let cyc = self.latency_cycles.get(&k).copied().flatten().map_or("-".to_string(), |c| c.to_string());
            let ns = self.latency_ns.get(&k).copied().flatten().map_or("-".to_string(), |n| format!("{n:.1}"));
            let ppc = self.packets_per_cycle.get(&k).copied().unwrap_or(0.0);
            let line = self.line_rate_packets_per_cycle.get(&k).copied().unwrap_or(0.0);
            let _ = writeln!(o, "{size:>6} {cyc:>15} {ns:>12} {ppc:>17.4} {line:>12.4}");
        }
        if self.ports.is_none() {
            let _ = writeln!(o, "pipeline stall cycles: {}", self.pipeline_stall_cycles);
        }
        let t = &self.traffic;
        let not_sent = if t.refused > 0 { format!(" ({} not sent to the design)", t.refused) } else { String::new() };
        let _ = writeln!(
            o,
            "traffic: {} packets in{not_sent}, {} out, {} dropped, {} cycles ({} stalled)",
            t.packets_in, t.packets_out, t.drops, t.cycles, t.stall_cycles
        );
        if let Some(ports) = &self.ports {
            let _ = writeln!(o, "{:>5} {:>10} {:>11} {:>6} {:>9}", "port", "frames in", "frames out", "drops", "Gb/s out");
            for (p, r) in ports {
                let g = r.gbps_out.map_or("-".to_string(), |g| format!("{g:.2}"));
                let _ = writeln!(o, "{p:>5} {:>10} {:>11} {:>6} {g:>9}", r.packets_in, r.packets_out, r.drops);
            }
            if let Some(total) = self.gbps_out_total {
                let _ = writeln!(o, "total {total:.2} Gb/s out");
            }
        }
        for f in &self.outputs {
            let _ = writeln!(o, "wrote {}", f.display());
        }
        for n in &self.notes {
            let _ = writeln!(o, "note: {n}");
        }
        o
    }
}

/// `data` cut or zero-padded to `size` bytes.
fn resized(data: &[u8], size: usize) -> Vec<u8> {
    let mut v = data[..data.len().min(size)].to_vec();
    v.resize(size, 0);
    v
}

/// Sums stage cycles by kind.
fn stage_kinds(stages: &[Stage]) -> BTreeMap<String, u32> {
    let mut m = BTreeMap::new();
    for s in stages {
        let kind = if matches!(s.block.as_str(), "parser" | "deparser" | "queue") {
            s.block.clone()
        } else if s.name.contains(" table ") {
            "tables".to_string()
        } else {
            "actions".to_string()
        };
        *m.entry(kind).or_insert(0) += s.cycles;
    }
    m
}

/// Runs the traffic and the measurements.
pub fn rtl_sim(options: &SimOptions) -> CliResult<SimReport> {
    let width = options.rtl.data_width;
    if !p4_rtl::sim::SIM_WIDTHS.contains(&width) {
        let (low, high) = (p4_rtl::sim::SIM_WIDTHS.start(), p4_rtl::sim::SIM_WIDTHS.end());
        return Err(CliError::input(format!("--width {width}: the simulation harness drives streams of {low} to {high} bits")));
    }
    if !(2..=MAX_COUNT).contains(&options.count) {
        return Err(CliError::input(format!(
            "--count {}: from 2 (packets per cycle needs two) to {MAX_COUNT} (the copies wait in the simulator's memory)",
            options.count
        )));
    }
    let wrapped = options.rtl.arch != p4_rtl::wrapper::Arch::Top;
    // The host port's number, and the inputs with `host` given it.
    let host = options.rtl.host_port.then_some(options.rtl.ports);
    let mut given = Vec::with_capacity(options.inputs.len());
    for (port, path) in &options.inputs {
        let port = match (*port, host) {
            (HOST_INPUT, Some(h)) => h,
            (HOST_INPUT, None) => {
                return Err(CliError::input(format!("--in host={}: the host port needs --arch switch --host-port", path.display())))
            }
            (p, _) if wrapped && p >= options.rtl.ports => {
                return Err(CliError::input(format!(
                    "--in {p}={}: the {} has ports 0 to {}{}",
                    path.display(),
                    options.rtl.arch.name(),
                    options.rtl.ports - 1,
                    if host.is_some() { " and host" } else { "" }
                )))
            }
            (p, _) => p,
        };
        given.push((port, path.clone()));
    }
    let out_path = |port: u32| if Some(port) == host { options.out.join(HOST_OUTPUT) } else { output_path(&options.out, port) };
    let entries = options.entries.as_deref().map(Entries::read).transpose()?;
    p4_io::output::create_dir(&options.out)?;
    p4_io::output::check_writable(&output_path(&options.out, 0))?;
    crate::cmd::run::refuse_overwriting_inputs(&options.out, &given)?;
    if host.is_some() {
        let same = |a: &std::path::Path, b: &std::path::Path| matches!((std::fs::canonicalize(a), std::fs::canonicalize(b)), (Ok(x), Ok(y)) if x == y);
        if let Some((_, input)) = given.iter().find(|(_, input)| same(input, &options.out.join(HOST_OUTPUT))) {
            return Err(CliError::input(format!("--in {} is the file this run would write the host port's output to; choose another --out directory or move the input", input.display())));
        }
    }
    if options.paced && !wrapped {
        return Err(CliError::input("--paced needs the whole switch (--arch switch|bump): a pipeline alone takes packets back to back"));
    }
    let mut inputs = MergedInputs::open(&given)?;
    let mut switch = if wrapped {
        crate::cmd::rtl::wrapped_switch(&options.program, &options.includes, &options.rtl)?
    } else {
        crate::cmd::rtl::rtl_switch(&options.program, &options.includes, &options.rtl)?
    };
    for (port, path) in &given {
        if wrapped {
            continue;
        }
        p4_dataplane::control::PacketIo::check_port(&switch, *port).map_err(|e| CliError::input(format!("--in {port}={}: {e}", path.display())))?;
    }
    // A switch's ports: what each sent, transmitted and lost.
    let mut ports_report: BTreeMap<PortKey, PortReport> = BTreeMap::new();
    let key = |port: u32| if Some(port) == host { PortKey::Host } else { PortKey::Port(port) };
    if wrapped {
        for p in 0..options.rtl.ports {
            ports_report.insert(PortKey::Port(p), PortReport { packets_in: 0, packets_out: 0, drops: 0, gbps_out: None, rx_drops: 0, buffer_drops: 0, tx_drops: 0 });
        }
        if host.is_some() {
            ports_report.insert(PortKey::Host, PortReport { packets_in: 0, packets_out: 0, drops: 0, gbps_out: None, rx_drops: 0, buffer_drops: 0, tx_drops: 0 });
        }
    }
    if let Some(entries) = &entries {
        entries.apply(&mut switch)?;
    }
    if options.paced {
        switch.set_paced(true).map_err(CliError::input)?;
    }
    let manifest = switch.manifest().clone();
    let ns_per_cycle = 1000.0 / manifest.clock_mhz;

    // The traffic, in chunks.
    let mut traffic = Traffic::default();
    let mut writers: BTreeMap<u32, CaptureWriter> = BTreeMap::new();
    let mut templates: BTreeMap<u32, Vec<u8>> = BTreeMap::new();
    let mut start_ns = None;
    let mut cycle_base = 0u64;
    // Per reason of refusal, the first packet's message.
    let mut refusals: BTreeMap<&str, String> = BTreeMap::new();
    p4_io::interrupt::install();
    loop {
        let mut n = 0;
        while n < CHUNK {
            let Some((port, packet)) = inputs.next()? else { break };
            // The run's clock starts at its first packet's capture time, as `run`'s does on the
            // software target: the time the design gets with each packet counts from there.
            let start = *start_ns.get_or_insert(packet.timestamp_ns);
            templates.entry(port).or_insert_with(|| packet.data.clone());
            // A packet the design cannot take at all (empty, longer than its payload FIFO) is an
            // input counted as dropped, by reason, with the first packet's message of each.
            if let Err(why) = switch.queue(port, packet.timestamp_ns.saturating_sub(start), &packet.data) {
                let reason = if packet.data.is_empty() { "empty" } else { "too_long" };
                traffic.packets_in += 1;
                traffic.drops += 1;
                traffic.refused += 1;
                *traffic.refused_by_reason.entry(reason.to_string()).or_insert(0) += 1;
                refusals.entry(reason).or_insert(why);
                continue;
            }
            if let Some(r) = ports_report.get_mut(&key(port)) {
                r.packets_in += 1;
            }
            n += 1;
        }
        if n == 0 {
            break;
        }
        let r = switch.run().map_err(CliError::failed)?.clone();
        for &(port, rx, buf, tx) in &r.port_drops {
            if let Some(p) = ports_report.get_mut(&key(port)) {
                p.rx_drops += rx;
                p.buffer_drops += buf;
                p.tx_drops += tx;
                p.drops += rx + buf + tx;
            }
        }
        traffic.packets_in += n as u64;
        traffic.drops += r.drops;
        traffic.stall_cycles += r.stall_cycles;
        for o in &r.outputs {
            traffic.packets_out += 1;
            *traffic.ports_out.entry(o.port).or_insert(0) += 1;
            if let Some(p) = ports_report.get_mut(&key(o.port)) {
                p.packets_out += 1;
            }
            let writer = match writers.entry(o.port) {
                std::collections::btree_map::Entry::Occupied(slot) => slot.into_mut(),
                std::collections::btree_map::Entry::Vacant(slot) => {
                    slot.insert(CaptureWriter::create(&out_path(o.port)).map_err(|e| CliError::output(e.to_string()))?)
                }
            };
            let t = start_ns.unwrap_or(0) + ((cycle_base + o.first) as f64 * ns_per_cycle) as u64;
            writer.write_captured(&CapturedPacket::whole(t, o.data.clone())).map_err(|e| CliError::output(e.to_string()))?;
        }
        cycle_base += r.cycles;
        traffic.cycles += r.cycles;
        if p4_io::interrupt::interrupted() {
            return Err(CliError::interrupted(p4_io::interrupt::Interrupted.to_string()));
        }
    }
    let mut outputs = Vec::new();
    for (port, w) in writers {
        w.finish().map_err(|e| CliError::output(e.to_string()))?;
        outputs.push(out_path(port));
    }

    // The measurements.
    let mut notes = Vec::new();
    for (reason, first) in &refusals {
        let n = traffic.refused_by_reason.get(*reason).copied().unwrap_or(0);
        notes.push(format!("{n} input packets were not sent (the first: {first})"));
    }
    let mut latency_cycles = BTreeMap::new();
    let mut latency_ns = BTreeMap::new();
    let mut packets_per_cycle = BTreeMap::new();
    let mut line_rate = BTreeMap::new();
    let mut stalls = 0;
    let bytes_per_beat = (manifest.data_width / 8) as usize;
    if wrapped {
        // The measurements are the pipeline's: they run on --arch top (a switch's ports add their
        // MACs' queues and clock crossings).
        templates.clear();
        notes.push(format!("--arch {}: the traffic only; latency and packets per cycle are measured on --arch top", options.rtl.arch.name()));
        if let Some(h) = host {
            notes.push(format!("the host port is port {h} (\"host\" in ports, {HOST_OUTPUT})"));
        }
    } else if templates.is_empty() {
        notes.push("no input packets: nothing measured".into());
    }
    for size in SIZES {
        if templates.is_empty() {
            break;
        }
        let key = size.to_string();
        let (port, first) = templates.iter().next().map(|(p, d)| (*p, resized(d, size))).unwrap_or_default();
        switch.queue(port, 0, &first).map_err(CliError::failed)?;
        let r = switch.run().map_err(CliError::failed)?.clone();
        stalls += r.stall_cycles;
        let lat = match (r.inputs.first(), r.outputs.first()) {
            (Some(i), Some(o)) => Some(o.first - i),
            _ => {
                notes.push(format!("{size}-byte packet from port {port}: the program sent nothing out, so no latency"));
                None
            }
        };
        latency_cycles.insert(key.clone(), lat);
        latency_ns.insert(key.clone(), lat.map(|c| c as f64 * ns_per_cycle));
        let ports: Vec<(u32, Vec<u8>)> = templates.iter().map(|(p, d)| (*p, resized(d, size))).collect();
        for k in 0..options.count {
            let (p, d) = &ports[k % ports.len()];
            switch.queue(*p, 0, d).map_err(CliError::failed)?;
        }
        let r = switch.run().map_err(CliError::failed)?.clone();
        stalls += r.stall_cycles;
        let span = match (r.inputs.first(), r.inputs.last()) {
            (Some(a), Some(b)) if b > a => (b - a) as f64,
            _ => 0.0,
        };
        let ppc = if span > 0.0 { (r.inputs.len() - 1) as f64 / span } else { 0.0 };
        packets_per_cycle.insert(key.clone(), ppc);
        line_rate.insert(key, 1.0 / size.div_ceil(bytes_per_beat) as f64);
    }
    Ok(SimReport {
        latency_cycles,
        latency_ns,
        packets_per_cycle,
        line_rate_packets_per_cycle: line_rate,
        pipeline_stall_cycles: stalls,
        outputs,
        ports: wrapped.then_some(ports_report),
        host_port: host,
        ..SimReport::of_design(&options.program, &manifest, traffic, notes)
    })
}

/// `rtl-sim --gen`: the whole switch on generated traffic.
pub fn rtl_sim_generated(options: &GenOptions) -> CliResult<SimReport> {
    let width = options.rtl.data_width;
    if !p4_rtl::sim::SIM_WIDTHS.contains(&width) {
        let (low, high) = (p4_rtl::sim::SIM_WIDTHS.start(), p4_rtl::sim::SIM_WIDTHS.end());
        return Err(CliError::input(format!("--width {width}: the simulation harness drives streams of {low} to {high} bits")));
    }
    if options.rtl.arch == p4_rtl::wrapper::Arch::Top {
        return Err(CliError::input("--gen drives the ports of a switch: add --arch switch --ports N (or --arch bump)"));
    }
    if !(1..=MAX_GEN_PACKETS).contains(&options.packets) {
        return Err(CliError::input(format!("--packets {}: from 1 to {MAX_GEN_PACKETS} frames per port", options.packets)));
    }
    let ports = options.rtl.ports;
    let max_bytes = p4_rtl::PAYLOAD_FIFO_BEATS as usize * width as usize / 8;
    let mut seen = std::collections::BTreeSet::new();
    for g in &options.gens {
        let spec = format!("{}={}@{}", g.port, g.size, g.rate_gbps);
        if g.port >= ports {
            return Err(CliError::input(format!("--gen {spec}: the {} has ports 0 to {}", options.rtl.arch.name(), ports - 1)));
        }
        if !seen.insert(g.port) {
            return Err(CliError::input(format!("--gen {spec}: port {} already has a generator", g.port)));
        }
        if g.size > max_bytes {
            return Err(CliError::input(format!("--gen {spec}: a frame of {} bytes is longer than the {max_bytes} bytes the design's queues hold", g.size)));
        }
        // The on-chip generator's period: MAC cycles between frame starts, 16 integer bits.
        let period_cycles = (g.size as f64 + 20.0) * 8.0 / g.rate_gbps * p4_rtl::switch_sim::MAC_MHZ / 1000.0;
        if period_cycles >= 65536.0 {
            return Err(CliError::input(format!(
                "--gen {spec}: one frame every {period_cycles:.0} MAC cycles is slower than the generator paces (at most 65,535 cycles between frames)"
            )));
        }
    }
    if !options.swaps_at_ns.is_empty() && options.rtl.processors != 2 {
        return Err(CliError::input("--swap-at: swapping needs two packet processors (--arch op4t)"));
    }
    if options.second_entries.is_some() && options.rtl.second.is_none() {
        return Err(CliError::input("--second-entries goes with --second PROG (the second packet processor's program)"));
    }
    let entries = options.entries.as_deref().map(Entries::read).transpose()?;
    let second_entries = options.second_entries.as_deref().map(Entries::read).transpose()?;
    // The traffic comes from the switch's own generators and is counted by its capturers.
    let rtl = p4_rtl::Options { traffic: true, ..options.rtl.clone() };
    let mut switch = crate::cmd::rtl::wrapped_switch(&options.program, &options.includes, &rtl)?;
    if let Some(entries) = &entries {
        entries.apply(&mut switch)?;
    }
    if let Some(entries) = &second_entries {
        switch.address_processor(1).map_err(CliError::input)?;
        entries.apply(&mut switch)?;
        switch.address_processor(0).map_err(CliError::input)?;
    }
    let manifest = switch.manifest().clone();
    let gens: Vec<p4_rtl::switch_sim::PortGen> = options
        .gens
        .iter()
        .map(|g| p4_rtl::switch_sim::PortGen { port: g.port, size: g.size, rate_gbps: g.rate_gbps, count: options.packets })
        .collect();
    let settings = p4_rtl::switch_sim::RunSettings { swaps_at_ps: options.swaps_at_ns.iter().map(|ns| ns * 1000).collect(), ..Default::default() };
    let run = switch.run_generated_with(&gens, &settings).map_err(CliError::failed)?;
    let host = options.rtl.host_port.then_some(ports);
    let mut ports_report = BTreeMap::new();
    let mut traffic = Traffic::default();
    let mut total = 0.0;
    for (p, r) in &run.ports {
        let last = run.last_frame_bytes.get(p).copied().unwrap_or(0);
        let gbps = r.gbps_out(last).map(|g| (g * 100.0).round() / 100.0);
        total += gbps.unwrap_or(0.0);
        let drops = r.rx_drops + r.buffer_drops + r.tx_drops;
        traffic.packets_in += r.packets_in;
        traffic.packets_out += r.packets_out;
        traffic.drops += drops;
        if r.packets_out > 0 {
            traffic.ports_out.insert(*p, r.packets_out);
        }
        ports_report.insert(
            if Some(*p) == host { PortKey::Host } else { PortKey::Port(*p) },
            PortReport {
                packets_in: r.packets_in,
                packets_out: r.packets_out,
                drops,
                gbps_out: gbps,
                rx_drops: r.rx_drops,
                buffer_drops: r.buffer_drops,
                tx_drops: r.tx_drops,
            },
        );
    }
    traffic.drops += run.pipeline_drops + run.no_port_drops;
    traffic.cycles = (run.duration_ps as f64 * manifest.clock_mhz / 1e6) as u64;
    let mut notes = vec![format!(
        "{} frames per generating port from the on-chip generators (p4f_pkt_gen), counted by the capturers (p4f_pkt_cap); {:.1} us simulated; ports at {} Gb/s, MACs at {} MHz",
        options.packets,
        run.duration_ps as f64 / 1e6,
        p4_rtl::switch_sim::LINE_RATE_GBPS,
        p4_rtl::switch_sim::MAC_MHZ
    )];
    if run.pipeline_drops + run.no_port_drops > 0 {
        notes.push(format!("{} frames dropped by the program, {} sent to no port", run.pipeline_drops, run.no_port_drops));
    }
    if let Some(c) = run.processors {
        notes.push(format!(
            "packet processors: {} swaps, processor {} active, the last swap drained in {} cycles, {} stray beats",
            c.swaps, c.active, c.drain_cycles, c.stray_beats
        ));
    }
    Ok(SimReport {
        ports: Some(ports_report),
        gbps_out_total: Some((total * 100.0).round() / 100.0),
        host_port: host,
        processors: run.processors,
        ..SimReport::of_design(&options.program, &manifest, traffic, notes)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gen_specs_parse_as_port_size_and_rate() {
        assert_eq!(parse_gen("3=1518@10"), Ok(GenSpec { port: 3, size: 1518, rate_gbps: 10.0 }));
        assert_eq!(parse_gen("0=64@2.5"), Ok(GenSpec { port: 0, size: 64, rate_gbps: 2.5 }));
        assert!(parse_gen("0=64").unwrap_err().contains("PORT=SIZE@RATE"));
        assert!(parse_gen("0=64@10.01").unwrap_err().contains("at most 10"));
        assert!(parse_gen("0=64@-1").unwrap_err().contains("above 0"));
        assert!(parse_gen("0=18@1").unwrap_err().contains("at least 19 bytes"));
    }
}

//! `p4forge vdp`: the supervisor of the virtual data planes of `examples/vdp/vdp.p4`
//! ([`supervisor`]). It reads commands in each VDP's own terms, keeps the VDPs, and turns them into
//! the physical entries of the program's two TCAM tables, which it loads into the program (on the
//! software target, which checks every entry as a switch does, or into a device on a P4Runtime
//! server with `--p4runtime`) and writes as a runtime-CLI file (`--out`) that `run`, `switch` and
//! `rtl-sim` load with `--entries`. Commands are read and answered one line at a time.
//!
//! Commands, one per line (`#` starts a comment):
//!
//! ```text
//! create VID [map=SLICES] [action=SLICES] [channel=C]   a VDP with its slices (default 1 and 1)
//! destroy VID
//! map VID RULE PRIORITY FIELD=VALUE ...               its mapping rule RULE: packets it claims
//! unmap VID RULE
//! rule VID RULE PRIORITY FIELD=VALUE ... => ACTION    its action rule RULE
//! unrule VID RULE
//! default VID ACTION                                  what its packets no rule matches get
//! migrate VID software|hardware                       all its packets to the host, or back
//! show                                                the VDPs, their slices, rules and counters
//! ```
//!
//! Priorities are the VDP's own (larger wins, 1 to 1,000,000, one rule per priority). FIELD is
//! one of [`tuple::FIELDS`]; VALUE a number, MAC or IPv4 address, with `&&&MASK` or `/LEN`.
//! ACTION is `forward PORT`, `route PORT DST_MAC SRC_MAC` (new MACs and TTL - 1, then PORT),
//! `drop`, `software CHANNEL`, or `bitmap FLAGS PORT DST_MAC SRC_MAC CHANNEL` (the result as the
//! pipeline holds it).

pub mod migrate;
pub mod supervisor;
pub mod throughput;
pub mod tuple;

use std::collections::HashMap;
use std::path::PathBuf;

use num_bigint::BigUint;
use p4_dataplane::control::{ActionArgs, ControlPlane, Handle, KeyValue, Keys};

use crate::error::{CliError, CliResult};
use supervisor::{flags, Action, Entry, Geometry, Op, PhysAction, Place, Plan, Step, Supervisor, Table};
use tuple::TupleMatch;

/// The host port of vdp.p4's switch: the seed's four DMA queue pairs, a packet to the host on the
/// ring its `dma_t` header's first field (a bit<2> channel, the packet's first two bits) names.
pub const HOST_QUEUES: p4_rtl::wrapper::HostQueues = p4_rtl::wrapper::HostQueues { count: supervisor::CHANNELS as u32, at_bit: 0 };

/// The DMA channel of VDP `vid` in the experiments' tenants: the channels taken in turn.
pub fn channel_of(vid: u16) -> u8 {
    (vid % u16::from(supervisor::CHANNELS)) as u8
}

/// The generator's options for the experiments: the 4-port switch with the host port's queues.
fn switch_options(model: &crate::cmd::op4t::ModelArgs) -> CliResult<p4_rtl::Options> {
    let mut rtl = model.rtl(crate::cmd::rtl::Arch::Switch, Some(throughput::PORTS), false, true)?;
    rtl.host_queues = HOST_QUEUES;
    Ok(rtl)
}

/// `p4forge vdp` arguments: the supervisor on a commands file, or an experiment.
#[derive(clap::Args, Clone, Debug)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub struct VdpArgs {
    #[command(subcommand)]
    pub experiment: Option<VdpExperiment>,
    /// The VDP pipeline (examples/vdp/vdp.p4, or a program with its tables).
    #[arg(required = true)]
    pub program: Option<PathBuf>,
    /// The supervisor's commands (a file, or /dev/stdin).
    #[arg(required = true)]
    pub commands: Option<PathBuf>,
    /// Entries per TCAM slice, the unit VDPs are given entries in.
    #[arg(long, default_value_t = 8)]
    pub slice: u32,
    /// Write the physical entries after the last command as runtime-CLI commands (for --entries).
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// Write the software path's entries (the VDPs in software, whole) likewise.
    #[arg(long, value_name = "FILE")]
    pub software_out: Option<PathBuf>,
    /// Also search DIR for `#include` files (repeatable).
    #[arg(short = 'I', long = "include", value_name = "DIR")]
    pub include: Vec<PathBuf>,
    /// Write the hardware's entries to the device running PROGRAM on this P4Runtime server
    /// (`host:port`), as its primary controller, instead of to a software target in the process.
    #[arg(long, value_name = "ADDR")]
    pub p4runtime: Option<String>,
    /// Write the software path's entries to the device on this P4Runtime server likewise.
    #[arg(long = "software-p4runtime", value_name = "ADDR")]
    pub software_p4runtime: Option<String>,
    /// The P4Runtime device id (of both servers).
    #[arg(long = "device-id", value_name = "N", default_value_t = 0)]
    pub device_id: u64,
    /// The election id the supervisor is primary with (its low 64 bits).
    #[arg(long = "election-id", value_name = "N", default_value_t = 1)]
    pub election_id: u64,
}

/// `p4forge vdp EXPERIMENT`.
#[derive(clap::Subcommand, Clone, Debug)]
pub enum VdpExperiment {
    /// Zero-loss throughput (RFC 2544 style) of the VDP pipeline as a 4-port switch with its host
    /// port in the RTL simulation, for each number of VDPs and frame size: N VDPs (VLAN v to VDP
    /// v, routed from port (v-1) mod 4 to the next port by its default, UDP port 7 forwarded by a
    /// rule where its action slices leave room), every port at line rate, every frame out
    /// compared with the software target; below line rate only if line rate loses frames. Exit
    /// status 1 unless every point reaches line rate without loss.
    ///
    /// Example: p4forge vdp throughput examples/vdp/vdp.p4 --vdps 4,64,256,1024
    Throughput(ThroughputArgs),
    /// One VDP moved to the software path and back while every VDP carries line-rate traffic, in
    /// the RTL simulation of the 4-port switch with its host port: the supervisor's table writes
    /// go out on AXI4-Lite during the run (at a third and two thirds of it), the frames the
    /// hardware sends to the host go through the software path (the pipeline on the software
    /// target) and back into the host port. Every frame out is checked against the software target
    /// with all VDPs in hardware: the other VDPs' frames all there and in order, the moving VDP's
    /// each exactly once, by either path. Exit status 1 unless clean.
    ///
    /// Example: p4forge vdp migrate examples/vdp/vdp.p4 --vdps 16 --vdp 5
    Migrate(MigrateArgs),
}

#[derive(clap::Args, Clone, Debug)]
pub struct MigrateArgs {
    /// The VDP pipeline (examples/vdp/vdp.p4).
    pub program: PathBuf,
    /// VDPs (as `vdp throughput` sets them up).
    #[arg(long, default_value_t = 16)]
    pub vdps: u32,
    /// The VDP that moves.
    #[arg(long, default_value_t = 1)]
    pub vdp: u16,
    /// Frame size in bytes.
    #[arg(long, default_value_t = 64)]
    pub size: usize,
    /// Frames per port.
    #[arg(long, default_value_t = 1500)]
    pub packets: u32,
    #[command(flatten)]
    pub run: RunArgs,
}

/// What the experiments share: includes, the RTL model, the report's form.
#[derive(clap::Args, Clone, Debug)]
pub struct RunArgs {
    /// Also search DIR for `#include` files (repeatable).
    #[arg(short = 'I', long = "include", value_name = "DIR")]
    pub include: Vec<PathBuf>,
    #[command(flatten)]
    pub model: crate::cmd::op4t::ModelArgs,
    /// Print the report as JSON.
    #[arg(long)]
    pub json: bool,
}

#[derive(clap::Args, Clone, Debug)]
pub struct ThroughputArgs {
    /// The VDP pipeline (examples/vdp/vdp.p4).
    pub program: PathBuf,
    /// Numbers of VDPs (comma-separated).
    #[arg(long, value_delimiter = ',', default_value = "4,64,256,1024")]
    pub vdps: Vec<u32>,
    /// Frame sizes in bytes (comma-separated).
    #[arg(long, value_delimiter = ',', default_value = "64,128,256,512,1024,1280,1518")]
    pub sizes: Vec<usize>,
    /// Frames per port per trial.
    #[arg(long, default_value_t = 1000)]
    pub packets: u32,
    #[command(flatten)]
    pub run: RunArgs,
    #[command(flatten)]
    pub progress: p4_io::progress::ProgressArgs,
}

/// The program's names for what the supervisor writes.
#[derive(Clone, Debug)]
pub struct Names {
    pub map_table: String,
    pub action_table: String,
    pub set_vdp: String,
    pub process: String,
    pub to_software: String,
    /// The per-VDP packet counter (indexed by VDP id), if the program has one.
    pub counter: Option<String>,
}

/// Compiles the pipeline, its warnings to standard error.
fn compile(program: &std::path::Path, includes: &[PathBuf]) -> CliResult<crate::frontend::Compiled> {
    let compiled = crate::frontend::compile(program, includes)?;
    p4_io::eprint_safe!("{}", compiled.warnings);
    Ok(compiled)
}

/// Finds the pipeline's tables and actions in `catalog` and the tables' sizes.
pub fn names_of(catalog: &p4_control::Catalog, slice: u32) -> Result<(Names, Geometry), String> {
    let table = |suffix: &str, keys: usize| -> Result<&p4_control::catalog::TableInfo, String> {
        let t = catalog
            .tables
            .iter()
            .find(|t| t.name == suffix || t.name.ends_with(&format!(".{suffix}")))
            .ok_or_else(|| format!("the program has no table `{suffix}` (the VDP pipeline of examples/vdp/vdp.p4)"))?;
        if t.key.fields.len() != keys {
            return Err(format!("table {}: {} key fields, the VDP pipeline's has {keys}", t.name, t.key.fields.len()));
        }
        Ok(t)
    };
    let map = table("vdp_map", tuple::FIELDS.len())?;
    let action = table("vdp_action", tuple::FIELDS.len() + 1)?;
    let action_name = |t: &p4_control::catalog::TableInfo, suffix: &str| -> Result<String, String> {
        t.actions
            .iter()
            .find(|a| a.name == suffix || a.name.ends_with(&format!(".{suffix}")))
            .map(|a| a.name.clone())
            .ok_or_else(|| format!("table {} has no action `{suffix}`", t.name))
    };
    let names = Names {
        map_table: map.name.clone(),
        action_table: action.name.clone(),
        set_vdp: action_name(map, "set_vdp")?,
        process: action_name(action, "process")?,
        to_software: action_name(action, "to_software")?,
        counter: catalog
            .externs
            .iter()
            .find(|e| e.kind == Some(p4_ir::layout::ObjectKind::Counter) && (e.name == "vdp_packets" || e.name.ends_with(".vdp_packets")))
            .map(|e| e.name.clone()),
    };
    let geometry = Geometry { map_entries: map.capacity as u32, action_entries: action.capacity as u32, slice_entries: slice };
    Ok((names, geometry))
}

/// One supervisor command.
#[derive(Clone, Debug, PartialEq)]
pub enum Command {
    Create { vid: u16, map: u32, action: u32, channel: u8 },
    Destroy(u16),
    Map { vid: u16, rule: u32, priority: u32, m: TupleMatch },
    Unmap { vid: u16, rule: u32 },
    Rule { vid: u16, rule: u32, priority: u32, m: TupleMatch, action: Action },
    Unrule { vid: u16, rule: u32 },
    Default { vid: u16, action: Action },
    Migrate { vid: u16, place: Place },
    Show,
}

fn number<T: std::str::FromStr>(text: Option<&str>, what: &str) -> Result<T, String> {
    let text = text.ok_or_else(|| format!("{what} is missing"))?;
    text.parse().map_err(|_| format!("`{text}`: {what} is a number"))
}

fn parse_action(words: &[&str]) -> Result<Action, String> {
    let mac = |w: Option<&&str>, what: &str| -> Result<u64, String> { tuple::parse_value(w.ok_or_else(|| format!("{what} is missing"))?, 48) };
    let n = |w: Option<&&str>, what: &str| number::<u16>(w.copied(), what);
    let (want, action) = match words.first().copied() {
        Some("forward") => (2, Action::Process { flags: flags::FORWARD | flags::PORT_VALID, port: n(words.get(1), "the port")?, dst_mac: 0, src_mac: 0, channel: 0 }),
        Some("route") => (
            4,
            Action::Process {
                flags: flags::FORWARD | flags::PORT_VALID | flags::CHANGE_MAC | flags::TTL,
                port: n(words.get(1), "the port")?,
                dst_mac: mac(words.get(2), "the destination MAC")?,
                src_mac: mac(words.get(3), "the source MAC")?,
                channel: 0,
            },
        ),
        Some("drop") => (1, Action::Process { flags: flags::DROP, port: 0, dst_mac: 0, src_mac: 0, channel: 0 }),
        Some("software") => (2, Action::ToSoftware { channel: number(words.get(1).copied(), "the channel")? }),
        Some("bitmap") => (
            6,
            Action::Process {
                flags: tuple::parse_value(words.get(1).ok_or("the flags are missing")?, 5)? as u8,
                port: n(words.get(2), "the port")?,
                dst_mac: mac(words.get(3), "the destination MAC")?,
                src_mac: mac(words.get(4), "the source MAC")?,
                channel: number(words.get(5).copied(), "the channel")?,
            },
        ),
        other => return Err(format!("{}: an action is forward PORT, route PORT DST_MAC SRC_MAC, drop, software CHANNEL or bitmap FLAGS PORT DST_MAC SRC_MAC CHANNEL", other.map_or("nothing".to_string(), |w| format!("`{w}`")))),
    };
    if words.len() != want {
        return Err(format!("`{}` takes {} words", words.join(" "), want));
    }
    Ok(action)
}

/// Parses one line (`None`: blank or a comment).
pub fn parse_line(line: &str) -> Result<Option<Command>, String> {
    let line = line.split('#').next().unwrap_or("").trim();
    let words: Vec<&str> = line.split_whitespace().collect();
    let Some((&verb, rest)) = words.split_first() else { return Ok(None) };
    let vid = || number::<u16>(rest.first().copied(), "the VDP id");
    let rule = || number::<u32>(rest.get(1).copied(), "the rule number");
    let priority = || number::<u32>(rest.get(2).copied(), "the priority");
    let exactly = |n: usize| if rest.len() == n { Ok(()) } else { Err(format!("`{verb}` takes {n} words after it")) };
    let command = match verb {
        "create" => {
            let (mut map, mut action, mut channel) = (1, 1, 0);
            for opt in &rest[1.min(rest.len())..] {
                match opt.split_once('=') {
                    Some(("map", v)) => map = number(Some(v), "map=")?,
                    Some(("action", v)) => action = number(Some(v), "action=")?,
                    Some(("channel", v)) => channel = number(Some(v), "channel=")?,
                    _ => return Err(format!("`{opt}`: create takes map=SLICES, action=SLICES and channel=C")),
                }
            }
            Command::Create { vid: vid()?, map, action, channel }
        }
        "destroy" => {
            exactly(1)?;
            Command::Destroy(vid()?)
        }
        "map" => Command::Map { vid: vid()?, rule: rule()?, priority: priority()?, m: TupleMatch::parse(rest.iter().skip(3).copied())? },
        "unmap" => {
            exactly(2)?;
            Command::Unmap { vid: vid()?, rule: rule()? }
        }
        "rule" => {
            let arrow = rest.iter().position(|w| *w == "=>").ok_or("a rule is `rule VID RULE PRIORITY FIELD=VALUE ... => ACTION`")?;
            let m = TupleMatch::parse(rest[3.min(arrow)..arrow].iter().copied())?;
            Command::Rule { vid: vid()?, rule: rule()?, priority: priority()?, m, action: parse_action(&rest[arrow + 1..])? }
        }
        "unrule" => {
            exactly(2)?;
            Command::Unrule { vid: vid()?, rule: rule()? }
        }
        "default" => Command::Default { vid: vid()?, action: parse_action(&rest[1.min(rest.len())..])? },
        "migrate" => {
            exactly(2)?;
            let place = match rest[1] {
                "software" => Place::Software,
                "hardware" => Place::Hardware,
                other => return Err(format!("`{other}`: migrate to software or hardware")),
            };
            Command::Migrate { vid: vid()?, place }
        }
        "show" => {
            exactly(0)?;
            Command::Show
        }
        other => return Err(format!("`{other}`: commands are create, destroy, map, unmap, rule, unrule, default, migrate and show")),
    };
    Ok(Some(command))
}

/// Carries out `command` on the supervisor: the physical changes it takes.
pub fn execute(sup: &mut Supervisor, command: &Command) -> Result<Plan, String> {
    match command.clone() {
        Command::Create { vid, map, action, channel } => sup.change(|s| s.create(vid, map, action, channel)),
        Command::Destroy(vid) => sup.change(|s| s.destroy(vid)),
        Command::Map { vid, rule, priority, m } => sup.change(|s| s.map_add(vid, rule, priority, m)),
        Command::Unmap { vid, rule } => sup.change(|s| s.map_delete(vid, rule)),
        Command::Rule { vid, rule, priority, m, action } => sup.change(|s| s.rule_add(vid, rule, priority, m, action)),
        Command::Unrule { vid, rule } => sup.change(|s| s.rule_delete(vid, rule)),
        Command::Default { vid, action } => sup.change(|s| s.set_default(vid, action)),
        Command::Migrate { vid, place } => sup.change(|s| s.migrate(vid, place)),
        Command::Show => Ok(Plan::default()),
    }
}

/// The physical tables in a dataplane: every entry written and its handle, so that operations on
/// them can be carried out and taken back.
#[derive(Default)]
pub struct Loaded {
    written: HashMap<(Table, Option<u16>, TupleMatch, u32), (Handle, Entry)>,
}

impl Loaded {
    /// Carries out `ops` in order; if the dataplane refuses one, the ones done are undone, and
    /// the refusal comes back.
    pub fn apply(&mut self, cp: &mut dyn ControlPlane, names: &Names, ops: &[Op]) -> Result<(), String> {
        let mut undo = Vec::new();
        for op in ops {
            // What takes this operation back, from the entry as it is now.
            let back = match *op {
                Op::Insert(e) => Op::Delete(e),
                Op::Delete(e) | Op::Modify(e) => match self.written.get(&e.key()) {
                    Some((_, was)) if matches!(op, Op::Delete(_)) => Op::Insert(*was),
                    Some((_, was)) => Op::Modify(*was),
                    None => return Err(format!("{op:?}: an entry never written")),
                },
            };
            if let Err(e) = self.one(cp, names, op) {
                for back in undo.iter().rev() {
                    let _ = self.one(cp, names, back);
                }
                return Err(e);
            }
            undo.push(back);
        }
        Ok(())
    }

    fn one(&mut self, cp: &mut dyn ControlPlane, names: &Names, op: &Op) -> Result<(), String> {
        match op {
            Op::Insert(e) => {
                let (table, action, args) = physical(names, e);
                let h = cp.table_add(table, Keys::Positional(keys(e)), action, ActionArgs::Positional(args), Some(i64::from(e.priority))).map_err(|x| x.to_string())?;
                self.written.insert(e.key(), (h, *e));
            }
            Op::Modify(e) => {
                let (h, _) = *self.written.get(&e.key()).ok_or("modifying an entry never written")?;
                let (table, action, args) = physical(names, e);
                cp.table_modify(table, h, action, ActionArgs::Positional(args)).map_err(|x| x.to_string())?;
                self.written.insert(e.key(), (h, *e));
            }
            Op::Delete(e) => {
                let (h, _) = *self.written.get(&e.key()).ok_or("deleting an entry never written")?;
                let table = if e.table == Table::Map { &names.map_table } else { &names.action_table };
                cp.table_delete(table, h).map_err(|x| x.to_string())?;
                self.written.remove(&e.key());
            }
        }
        Ok(())
    }
}

/// The table, action and action data of a physical entry.
fn physical<'a>(names: &'a Names, e: &Entry) -> (&'a str, &'a str, Vec<BigUint>) {
    match e.action {
        PhysAction::SetVdp(vid) => (&names.map_table, &names.set_vdp, vec![BigUint::from(vid)]),
        PhysAction::Do(Action::Process { flags, port, dst_mac, src_mac, channel }) => (
            &names.action_table,
            &names.process,
            vec![BigUint::from(flags), BigUint::from(port), BigUint::from(dst_mac), BigUint::from(src_mac), BigUint::from(channel)],
        ),
        PhysAction::Do(Action::ToSoftware { channel }) => (&names.action_table, &names.to_software, vec![BigUint::from(channel)]),
    }
}

/// The key of a physical entry, in the table's order.
fn keys(e: &Entry) -> Vec<KeyValue> {
    let vid = e.vid.map(|v| KeyValue::Masked(BigUint::from(v), BigUint::from(0xfffu32)));
    vid.into_iter().chain(e.m.0.iter().map(|(v, m)| KeyValue::Masked(BigUint::from(*v), BigUint::from(*m)))).collect()
}

/// The entries as runtime-CLI commands (BMv2's `table_add TABLE ACTION KEYS => DATA PRIORITY`).
pub fn runtime_cli(names: &Names, entries: &std::collections::BTreeSet<Entry>) -> String {
    let mut out = String::new();
    for e in entries {
        let (table, action, args) = physical(names, e);
        let key: Vec<String> = keys(e)
            .iter()
            .map(|k| match k {
                KeyValue::Masked(v, m) => format!("{v:#x}&&&{m:#x}"),
                _ => unreachable!("every key is masked"),
            })
            .collect();
        let data: Vec<String> = args.iter().map(|a| format!("{a:#x}")).collect();
        out += &format!("table_add {table} {action} {} => {} {}\n", key.join(" "), data.join(" "), e.priority);
    }
    out
}

/// The VDPs as a table, with what their counters read in each dataplane (`counters`: by VDP id,
/// hardware then software path, packets and bytes).
pub fn render_show(sup: &Supervisor, counters: &HashMap<u16, [(u64, u64); 2]>) -> String {
    let mut o = format!("{} VDPs; slices of {} entries\n", sup.vdps.len(), sup.geometry.slice_entries);
    for (vid, v) in &sup.vdps {
        let (searched, total) = sup.slices_searched(*vid).unwrap_or((0, 0));
        o += &format!(
            "VDP {vid}: {:?}, mapping slices {:?}, action slices {:?} (a lookup searches {searched} of {total}), {} mapping rules, {} rules",
            v.place, v.map_slices, v.action_slices, v.map.len(), v.rules.len()
        );
        if let Some([(hp, hb), (sp, sb)]) = counters.get(vid) {
            o += &format!("; {hp} packets ({hb} bytes) in hardware, {sp} ({sb} bytes) on the software path");
        }
        o += "\n";
    }
    o
}

/// Each VDP's counter cells in the two dataplanes (none when the program counts no packets).
fn read_counters(sup: &Supervisor, names: &Names, planes: [&mut dyn ControlPlane; 2]) -> Result<HashMap<u16, [(u64, u64); 2]>, String> {
    let Some(counter) = &names.counter else { return Ok(HashMap::new()) };
    let [hardware, software] = planes;
    let mut out = HashMap::new();
    for vid in sup.vdps.keys() {
        let hw = hardware.counter_read(counter, u64::from(*vid)).map_err(|e| format!("reading {counter}[{vid}]: {e}"))?;
        let sw = software.counter_read(counter, u64::from(*vid)).map_err(|e| format!("reading {counter}[{vid}] of the software path: {e}"))?;
        out.insert(*vid, [hw, sw]);
    }
    Ok(out)
}

/// What is loaded into the two dataplanes running the pipeline, the hardware's tables and the
/// software path's, and which VDPs' packets the host hands to the software path.
#[derive(Default)]
pub struct Dataplanes {
    pub loaded: [Loaded; 2],
    pub slow_path: std::collections::BTreeSet<u16>,
}

impl Dataplanes {
    /// Carries out one step of a plan.
    pub fn step(&mut self, hardware: &mut dyn ControlPlane, software: &mut dyn ControlPlane, names: &Names, step: &Step) -> Result<(), String> {
        match step {
            Step::Hardware(op) => self.loaded[0].apply(hardware, names, std::slice::from_ref(op)),
            Step::Software(op) => self.loaded[1].apply(software, names, std::slice::from_ref(op)).map_err(|e| format!("the software path: {e}")),
            Step::SlowPath(vdps) => {
                self.slow_path = vdps.clone();
                Ok(())
            }
        }
    }

    /// Carries out a whole plan, step by step.
    pub fn apply(&mut self, hardware: &mut dyn ControlPlane, software: &mut dyn ControlPlane, names: &Names, plan: &Plan) -> Result<(), String> {
        plan.steps().iter().try_for_each(|s| self.step(hardware, software, names, s))
    }
}

/// How many of `ops` insert, modify and delete.
fn counts(ops: &[Op]) -> String {
    let count = |f: fn(&Op) -> bool| ops.iter().filter(|o| f(o)).count();
    format!("{} inserted, {} modified, {} deleted", count(|o| matches!(o, Op::Insert(_))), count(|o| matches!(o, Op::Modify(_))), count(|o| matches!(o, Op::Delete(_))))
}

/// The longest command line the supervisor reads.
const MAX_COMMAND_LINE: usize = 1 << 16;

/// A dataplane for the supervisor: the device on a P4Runtime server at `addr` (which must run the
/// program whose p4info is `p4info`), else `local`.
/// Its tables must be empty: the supervisor starts from none, and owns them.
fn dataplane(addr: Option<&String>, local: p4_dataplane::Switch, p4info: &p4_runtime::proto::p4::config::v1::P4Info, names: &Names, args: &VdpArgs) -> CliResult<Box<dyn ControlPlane>> {
    let Some(addr) = addr else { return Ok(Box::new(local)) };
    let mut remote = p4_runtime::client::Remote::connect(addr, args.device_id, args.election_id).map_err(CliError::failed)?;
    p4_runtime::p4info::check_describes(remote.p4info(), p4info)
        .map_err(|e| CliError::input(format!("{addr}: the device does not run {}: {e}", args.program.as_deref().unwrap_or(std::path::Path::new("")).display())))?;
    for table in [&names.map_table, &names.action_table] {
        let n = remote.entry_count(table).map_err(|e| CliError::failed(format!("{addr}: reading {table}: {e}")))?;
        if n > 0 {
            return Err(CliError::input(format!(
                "{addr}: table {table} holds {n} entries already; the supervisor owns the VDP tables and starts from empty ones (restart the device, or clear them)"
            )));
        }
    }
    Ok(Box::new(remote))
}

/// `p4forge vdp`.
pub fn vdp_main(args: &VdpArgs) -> CliResult<()> {
    let (program, commands) = match (&args.experiment, &args.program, &args.commands) {
        (Some(VdpExperiment::Throughput(a)), _, _) => return throughput_main(a),
        (Some(VdpExperiment::Migrate(a)), _, _) => return migrate_main(a),
        (None, Some(p), Some(c)) => (p, c),
        _ => return Err(CliError::input("p4forge vdp PROGRAM COMMANDS, or p4forge vdp throughput|migrate PROGRAM")),
    };
    if args.p4runtime.is_some() && args.p4runtime == args.software_p4runtime {
        return Err(CliError::input("--p4runtime and --software-p4runtime name the same server: the software path is a second device"));
    }
    let compiled = compile(program, &args.include)?;
    let layouts = p4_ir::layout::Layouts::of(&compiled.program);
    let catalog = p4_control::Catalog::of(&compiled.program, &layouts).map_err(|e| CliError::input(format!("{}: {e}", program.display())))?;
    let p4info = p4_runtime::p4info::of(&compiled.program, &layouts, &catalog);
    let (names, geometry) = names_of(&catalog, args.slice).map_err(|e| CliError::input(format!("{}: {e}", program.display())))?;
    let mut sup = Supervisor::new(geometry).map_err(|e| CliError::input(format!("--slice {}: {e}", args.slice)))?;
    let mut switches = crate::frontend::software_switches(compiled, program, 2, Default::default())?;
    let (local_hardware, local_software) = (switches.remove(0), switches.remove(0));
    let mut hardware = dataplane(args.p4runtime.as_ref(), local_hardware, &p4info, &names, args)?;
    let mut software = dataplane(args.software_p4runtime.as_ref(), local_software, &p4info, &names, args)?;
    let origin = commands.display().to_string();
    let mut planes = Dataplanes::default();
    // Each command's outcome is printed as it is carried out: commands may come from a person.
    for line in p4_io::input::Lines::open(commands, "commands file", MAX_COMMAND_LINE)? {
        let (n, line) = line.map_err(|(n, why)| CliError::input(format!("{origin}:{n}: {why}")))?;
        let at = |e: String| CliError::input(format!("{origin}:{n}: {e}"));
        let Some(command) = parse_line(&line).map_err(at)? else { continue };
        if command == Command::Show {
            let counters = read_counters(&sup, &names, [&mut *hardware, &mut *software]).map_err(at)?;
            p4_io::stdio::print(&render_show(&sup, &counters))?;
            continue;
        }
        let plan = execute(&mut sup, &command).map_err(at)?;
        planes.apply(&mut *hardware, &mut *software, &names, &plan).map_err(|e| at(format!("the dataplane did not take an entry: {e}")))?;
        let mut out = format!("{origin}:{n}: {}: {}", line.trim(), counts(&plan.hardware));
        if !plan.software.is_empty() {
            out += &format!("; software path: {}", counts(&plan.software));
        }
        p4_io::stdio::print(&(out + "\n"))?;
        if p4_io::interrupt::interrupted() {
            return Err(CliError::interrupted(p4_io::interrupt::Interrupted.to_string()));
        }
    }
    for (path, entries, what) in [(&args.out, sup.entries(), "entries"), (&args.software_out, sup.software_entries(), "software path entries")] {
        if let Some(path) = path {
            p4_io::output::write(path, runtime_cli(&names, &entries).as_bytes()).map_err(|e| CliError::output(e.to_string()))?;
            p4_io::stdio::print(&format!("wrote {} {what} to {}\n", entries.len(), path.display()))?;
        }
    }
    Ok(())
}

/// `p4forge vdp throughput`.
fn throughput_main(a: &ThroughputArgs) -> CliResult<()> {
    let rtl = switch_options(&a.run.model)?;
    let options = throughput::ThroughputOptions {
        program: a.program.clone(),
        includes: a.run.include.clone(),
        vdps: a.vdps.clone(),
        sizes: a.sizes.clone(),
        packets: a.packets,
        rtl,
        speed: a.run.model.speed(),
        progress: a.progress.enabled(),
    };
    let report = throughput::throughput(&options)?;
    p4_io::stdio::print(&crate::cmd::op4t::render(&report, a.run.json, throughput::ThroughputReport::render)?)?;
    if report.interrupted {
        return Err(CliError::interrupted(p4_io::interrupt::Interrupted.to_string()));
    }
    if !report.zero_loss_at_line_rate {
        return Err(CliError::failed("not every point reached line rate without loss (see the report)"));
    }
    Ok(())
}

/// `p4forge vdp migrate`.
fn migrate_main(a: &MigrateArgs) -> CliResult<()> {
    let rtl = switch_options(&a.run.model)?;
    let options = migrate::MigrateOptions {
        program: a.program.clone(),
        includes: a.run.include.clone(),
        vdps: a.vdps,
        vdp: a.vdp,
        size: a.size,
        packets: a.packets,
        rtl,
        speed: a.run.model.speed(),
    };
    let report = migrate::migrate(&options)?;
    p4_io::stdio::print(&crate::cmd::op4t::render(&report, a.run.json, migrate::MigrateReport::render)?)?;
    if !report.clean {
        return Err(CliError::failed("the move lost or changed frames (see the report)"));
    }
    Ok(())
}

//! The hardware target: a lowered P4 program ([`p4_ir::Program`] after `p4_midend::lower`) to a
//! synthesizable SystemVerilog pipeline built around the `hw/` runtime modules.
//!
//! [`generate`] returns a [`Design`]: the generated files (package, parser, one module per control,
//! deparser, top), the `hw/` modules they instantiate, and a [`Manifest`] (ports, tables with key
//! and action layouts and control registers, pipeline stages and latency). It reads the program's
//! layouts ([`p4_ir::layout::Layouts`]) and its architecture ([`p4_arch::bind`]); it names no
//! v1model field or extern itself. Anything outside the hardware subset is an [`RtlError`] with the
//! construct's source location.
//!
//! The pieces: [`types`] (P4 types as packed structs), [`block`] (expressions and straight-line
//! statements), [`parser`], [`control`] (stages, predication, tables), [`deparser`], [`tables`]
//! (table kinds, register map, the hash), [`top`] (package, modules, wiring).
#![forbid(unsafe_code)]

pub mod ahead;
pub mod block;
pub mod control;
pub mod deparser;
pub mod error;
pub mod harness;
pub mod names;
pub mod parser;
pub mod sim;
pub mod switch_sim;
pub mod table_image;
pub mod tables;
pub mod top;
pub mod types;
pub mod unchanged;
pub mod two_pipelines;
pub mod wrapper;

use std::collections::BTreeSet;

use p4_arch::{BlockKind, MetaRole, Role, SharedKind};
use p4_ir::layout::Layouts;
use p4_ir::{BlockRef, Program, Type};
use serde::Serialize;

use error::Result;
pub use error::RtlError;
pub use tables::{TableHw, TableKind, TableModule, TableOptions};

/// Beats the payload FIFO holds (one packet waits in it whole while its headers are processed).
pub const PAYLOAD_FIFO_BEATS: u32 = 512;

/// The hardware's time format ([`p4_ir::time`]): bits below the microseconds.
pub const TIME_NS_BITS: u32 = p4_ir::time::NS_BITS;

/// Width of a packet's transmit-timestamp request beside its stream (the top's `m_axis_ts_req`, the
/// switch buffer's and TX queues' tuser): {byte offset (16 bits, `p4f_timestamp`'s `OFF_W`), insert}.
pub const TX_STAMP_REQ_W: u32 = 17;

/// `ns` nanoseconds in the hardware's time format ([`p4_ir::time::stamp`]).
pub fn hw_time(ns: u64) -> u64 {
    p4_ir::time::stamp(ns)
}

/// SystemVerilog for the whole microseconds of `time`, a 64-bit value in the hardware's time
/// format, assigned to `field` (cut to its width, as the software target cuts its time).
pub(crate) fn us_assign(field: &str, time: &str) -> String {
    format!("{field} = $bits({field})'({time}[63:{TIME_NS_BITS}]);")
}

/// Generator options.
#[derive(Clone, Debug)]
pub struct Options {
    /// Stream width in bits (a multiple of 8).
    pub data_width: u32,
    /// Pipeline clock, for reports (MHz).
    pub clock_mhz: f64,
    pub tables: TableOptions,
    /// What to build around the pipeline (`--arch`): the pipeline alone, or a multi-port wrapper.
    pub arch: wrapper::Arch,
    /// Ports of the wrapper (`--ports`; not used by [`wrapper::Arch::Top`]).
    pub ports: u32,
    /// `--host-port`: a switch gets one more port, number `ports`, the host's DMA queue pair
    /// (`p4f_host_dma`), its memory and control ports at the wrapper's top (`host_*`).
    pub host_port: bool,
    /// `--host-queues`/`--host-queue-at`: the host port's DMA queue pairs (1: `p4f_host_dma`;
    /// more: `p4f_host_dma_mq`, a packet to the host on the queue a field of it names).
    pub host_queues: wrapper::HostQueues,
    /// `--traffic` (with a wrapper): each front-panel port gets `p4f_port_traffic` in its MAC
    /// clock, a packet generator muxed into its RX stream and a capturer watching its TX stream,
    /// controlled from `clk` through the wrapper's `gen_*`/`traffic_*` ports and read through
    /// `gen_*`/`cap_*` ([`wrapper`]).
    pub traffic: bool,
    /// Packet processors of a switch (`--arch op4t`: 2): each a copy of the pipeline behind
    /// `p4f_decoupler`, which hands the traffic from one to the other at a packet boundary without
    /// a reset of the rest ([`wrapper`]). 1: the pipeline alone in the switch.
    pub processors: u32,
    /// With two packet processors: another program for the second (`p4forge rtl --second`), whose
    /// pipeline gets its own module prefix and register map; `None`: both run the first program.
    pub second: Option<SecondProgram>,
}

/// The program of a second packet processor ([`Options::second`]).
#[derive(Clone, Debug)]
pub struct SecondProgram {
    /// The lowered program, as for [`generate`].
    pub program: std::sync::Arc<Program>,
    /// Names its modules (`<name>_top`, ...); one equal to the first program's gets `_pp1` appended.
    pub name: String,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            data_width: 512,
            clock_mhz: 250.0,
            tables: TableOptions::default(),
            arch: wrapper::Arch::Top,
            ports: 4,
            host_port: false,
            host_queues: wrapper::HostQueues::default(),
            traffic: false,
            processors: 1,
            second: None,
        }
    }
}

/// One pipeline stage, for reports.
#[derive(Clone, Debug, Serialize)]
pub struct StageInfo {
    /// `parser`, `ingress`, `tables`, `deparser`, ...
    pub block: String,
    pub name: String,
    pub cycles: u32,
}

/// The traffic manager's multicast tables (`manifest.json`'s `"multicast"`): a group table of
/// `groups` words `{count, first}` (bits 31:16, 15:0) indexed by the group id, and a copy list of
/// `copies` words `{replication id, egress port}`; with clones also a mirror table of
/// `mirror_sessions` words `{valid, to a group, port or group}` (bits 31, 30, 15:0) indexed by the
/// clone session. A write: the index into `index_word`, the word into `data_word`, then
/// `cmd_word` (1: the group table, 0: the copy list, 2: the mirror table), all 32-bit words of the
/// AXI4-Lite map (byte address = word * 4).
#[derive(Clone, Debug, Serialize)]
pub struct McastHw {
    pub groups: u32,
    pub copies: u32,
    pub mirror_sessions: u32,
    pub index_word: u32,
    pub data_word: u32,
    pub cmd_word: u32,
}

/// A parser value set as the control plane reaches it (`manifest.json`'s `"value_sets"`): member
/// `i` is at word `base_word + i * entry_words`: its value (`value_words` words, least significant
/// first, already masked), its mask (as many words), then a word whose bit 0 says it is valid.
#[derive(Clone, Debug, Serialize)]
pub struct ValueSetHw {
    pub name: String,
    #[serde(skip)]
    pub port: String,
    pub width: u32,
    pub size: u32,
    pub base_word: u32,
    pub value_words: u32,
    pub entry_words: u32,
}

/// Whether any control or action calls an extern function whose operation `pred` accepts.
fn calls_op(program: &Program, arch: &p4_arch::Architecture, pred: impl Fn(&p4_arch::ExternOp) -> bool) -> bool {
    fn any(stmts: &[p4_ir::Stmt], f: &dyn Fn(&str) -> bool) -> bool {
        p4_ir::visit::any_stmt(stmts, |s| {
            matches!(s, p4_ir::Stmt::Call(c) if matches!(&c.callee, p4_ir::Callee::ExternFunction { name, .. } if f(name)))
        })
    }
    let f = |name: &str| arch.function(name).is_some_and(|sig| pred(&sig.op));
    program.controls.iter().any(|c| any(&c.init, &f) || any(&c.body, &f))
        || program.actions.iter().any(|a| any(&a.body, &f))
        || program.functions.iter().any(|x| any(&x.body, &f))
}

/// The PHV path (from `phv.`) of the intrinsic field playing `role` (empty when it has none).
fn phv_path(meta: &dyn Fn(MetaRole) -> Result<String>, role: MetaRole) -> String {
    meta(role).map(|p| p.trim_start_matches("s.phv.").to_string()).unwrap_or_default()
}

/// A P4 `register` array or indirect `counter` as the control plane reaches it (`manifest.json`'s
/// `"registers"`; a counter's cells are {packets[63:0], bytes[63:0]}).
#[derive(Clone, Debug, Serialize)]
pub struct RegisterHw {
    /// The control-plane name (`MyIngress.r`).
    pub name: String,
    pub kind: block::RegisterKind,
    /// A direct counter's table (its cells are the table's slots); `None` for the others.
    pub table: Option<String>,
    /// Its number in the register map's select word.
    pub id: u32,
    pub width: u32,
    pub size: u64,
    /// The register-access words of the pipeline holding it, when they are not the design's
    /// `register_access` (a register of the second of two pipelines that both have registers).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub access: Option<RegisterAccess>,
}

/// The register map's words for register access (`manifest.json`'s `"register_access"`): write
/// the register's id to `select_word` and the cell to `index_word`; then read the value from
/// the status words at `read_word` (least significant word first), or write it to the words at
/// `data_word` and then anything to `cmd_word`.
#[derive(Clone, Debug, Serialize)]
pub struct RegisterAccess {
    pub select_word: u32,
    pub index_word: u32,
    pub cmd_word: u32,
    pub data_word: u32,
    pub data_words: u32,
    pub read_word: u32,
}

/// Group ids the hardware's group table holds (0 means "no multicast").
pub const MCAST_GROUPS: u32 = 256;
/// Copies all groups together may list.
pub const MCAST_COPIES: u32 = 256;
/// Clone sessions the mirror table holds (0 ..= 255).
pub const MIRROR_SESSIONS: u32 = 256;

/// `manifest.json`.
#[derive(Clone, Debug, Serialize)]
pub struct Manifest {
    pub top: String,
    pub program: String,
    pub architecture: String,
    /// The wrapper around the pipeline (`switch`, `bump`); absent for the pipeline alone.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub arch: Option<String>,
    /// The wrapper's ports; absent for the pipeline alone.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub port_count: Option<u32>,
    /// The host port's number (`--host-port`: the port after the front-panel ports); absent
    /// without one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub host_port: Option<u32>,
    /// With two packet processors (`--arch op4t`): the byte offset of the second one's register
    /// map from the first's in the wrapper's AXI4-Lite map (the maps are alike).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub processor_stride: Option<u32>,
    /// With two packet processors running different programs ([`Options::second`]): the second
    /// one's pipeline (its top, tables, registers, register map at `processor_stride`); absent when
    /// both run this manifest's program.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub second_processor: Option<Box<Manifest>>,
    pub data_width: u32,
    pub clock_mhz: f64,
    pub port_width: u32,
    pub ports: serde_json::Value,
    pub parser_window_bytes: u32,
    /// The parser starts on a packet's first `parser_window_bytes` bytes instead of its end (the
    /// program does not read the packet's length).
    pub cut_through: bool,
    /// The longest packet the design takes: it waits whole in the payload FIFO while its headers go
    /// through the pipeline, so a longer one could never be accepted.
    pub max_packet_bytes: u32,
    pub deparser_header_bytes: u32,
    /// Registers from the pipeline's input (window descriptor) to the merge's descriptor input.
    pub pipeline_latency_cycles: u32,
    pub stages: Vec<StageInfo>,
    pub tables: Vec<TableHw>,
    /// Present when the program multicasts.
    pub multicast: Option<McastHw>,
    pub value_sets: Vec<ValueSetHw>,
    pub registers: Vec<RegisterHw>,
    /// Present when the program has registers.
    pub register_access: Option<RegisterAccess>,
    /// Control words (32-bit) in the AXI4-Lite map; the status words follow them.
    pub control_words: u32,
    /// Byte-address bits of the top's AXI4-Lite port.
    pub axil_addr_width: u32,
    pub status: serde_json::Value,
    /// Generated and copied files in compile order (as in `files.f`).
    pub files: Vec<String>,
    /// Things the hardware does not do that the program mentions.
    pub notes: Vec<String>,
}

/// A generated design.
pub struct Design {
    /// (file name, contents), in compile order after the `hw/` modules.
    pub generated: Vec<(String, String)>,
    /// `hw/rtl` module names the design instantiates, in compile order.
    pub hw_modules: Vec<String>,
    pub manifest: Manifest,
}

/// Generates the design for `program` (normally the lowered program); `name` names the top
/// (`<name>_top`) and every generated module.
pub fn generate(program: &Program, name: &str, opts: &Options) -> Result<Design> {
    let prefix = names::ident(name).trim_end_matches('_').to_string();
    let mut design = unwrapped(program, name, &prefix, opts)?;
    let second = match &opts.second {
        Some(s) if opts.processors == 2 => {
            let mut second_prefix = names::ident(&s.name).trim_end_matches('_').to_string();
            if second_prefix == prefix {
                second_prefix += "_pp1";
            }
            let other = unwrapped(&s.program, &s.name, &second_prefix, opts)?;
            Some((other, second_prefix))
        }
        Some(_) => return Err(RtlError::global("a second program goes with two packet processors (--arch op4t)")),
        None => None,
    };
    match second {
        Some((other, second_prefix)) => {
            wrapper::apply_pair(&mut design, &prefix, other, &second_prefix, opts)?;
        }
        None => wrapper::apply(&mut design, &prefix, opts)?,
    }
    Ok(design)
}

/// The pipeline of `program` (`<prefix>_top` and its modules) without a wrapper.
fn unwrapped(program: &Program, name: &str, prefix: &str, opts: &Options) -> Result<Design> {
    let binding = p4_arch::bind(program).map_err(RtlError::global)?;
    match binding.arch.traffic_manager {
        p4_arch::TrafficManager::SimpleSwitch => {
            let whole = Segment { blocks: 0..binding.arch.blocks.len(), kind: SegmentKind::Whole };
            pipeline(program, &binding, &whole, prefix, name, opts)
        }
        p4_arch::TrafficManager::TwoPipelines { loop_port } => two_pipelines::generate(program, &binding, loop_port, prefix, name, opts),
    }
}

/// The blocks one generated pipeline runs (a parser first, the deparser last) and how it meets
/// the rest of the design.
pub(crate) struct Segment {
    /// Indexes into the architecture's blocks.
    pub blocks: std::ops::Range<usize>,
    pub kind: SegmentKind,
}

pub(crate) enum SegmentKind {
    /// Every block around the traffic manager (after ingress): tuser is the ingress port, tdest
    /// the egress port.
    Whole,
    /// The first of two pipelines (no traffic manager): tuser is the ingress port, tdest the
    /// descriptor the second one starts from.
    First(two_pipelines::Descriptor),
    /// The second of two pipelines: tuser is the first one's descriptor, tdest the egress port
    /// (in the low bits of a descriptor-wide field).
    Second(two_pipelines::Descriptor),
}

/// The PHV member holding shared parameter `sp`: one per kind of storage, each handoff its own.
pub(crate) fn member_name(sp: &p4_arch::SharedParam) -> String {
    match sp.kind {
        SharedKind::Handoff => names::ident(&sp.name.replace(' ', "_")),
        kind => block::shared_member(kind).to_string(),
    }
}

/// One pipeline of `seg`'s blocks as a top (`<prefix>_top`) with its parser, controls and
/// deparser; no wrapper.
pub(crate) fn pipeline(program: &Program, binding: &p4_arch::Binding, seg: &Segment, prefix: &str, name: &str, opts: &Options) -> Result<Design> {
    let arch = binding.arch;
    let layouts = Layouts::of(program);
    let prefix = prefix.to_string();
    let tm = types::TypeMap::new(program, &["phv_t", "pkt_info_t", "locals_t", "stage_t"]);
    let in_seg = |b: usize| seg.blocks.contains(&b);

    // Shared storage: the PHV members and, per block, which parameter positions map to them.
    let mut phv_members = Vec::new();
    let mut held: Vec<Vec<block::HeldParam>> = vec![Vec::new(); arch.blocks.len()];
    let mut pipeline_meta = Vec::new();
    for sp in arch.shared {
        let here: Vec<(usize, usize)> =
            sp.positions.iter().enumerate().filter_map(|(b, pos)| Some((b, (*pos)?))).filter(|(b, _)| in_seg(*b)).collect();
        if here.is_empty() {
            continue;
        }
        let ty = here
            .iter()
            .find_map(|(b, pos)| {
                let block = block_of(program, binding.blocks.get(*b)?);
                let v = block.params.get(*pos)?;
                Some(block.vars[v.index()].ty.clone())
            })
            .ok_or_else(|| RtlError::global(format!("no block has the shared parameter `{}`", sp.name)))?;
        let member = member_name(sp);
        if sp.kind == SharedKind::Intrinsic {
            pipeline_meta.push((format!("s.phv.{member}"), struct_name(program, &ty)));
        }
        phv_members.push((member.clone(), tm.sv(&ty)?));
        for (b, pos) in here {
            held[b].push(block::HeldParam { pos, kind: sp.kind, member: member.clone() });
        }
    }
    // A block's own intrinsic inputs (parameters of an intrinsic struct the architecture does not
    // share between blocks): a PHV member per struct, written before the parser runs.
    for b in seg.blocks.clone() {
        let block = block_of(program, &binding.blocks[b]);
        for (pos, v) in block.params.iter().enumerate() {
            let ty_name = struct_name(program, &block.vars[v.index()].ty);
            if held[b].iter().any(|h| h.pos == pos) || !arch.is_intrinsic_struct(&ty_name) {
                continue;
            }
            let member = format!("in_{}", names::ident(&ty_name));
            if !phv_members.iter().any(|(m, _)| *m == member) {
                phv_members.push((member.clone(), tm.sv(&block.vars[v.index()].ty)?));
                pipeline_meta.push((format!("s.phv.{member}"), ty_name));
            }
            held[b].push(block::HeldParam { pos, kind: SharedKind::Intrinsic, member });
        }
    }
    let shared_of = |b: usize| -> Vec<block::HeldParam> { held[b].clone() };
    // Every intrinsic field of the pipeline playing `role`.
    let meta_all = |role: MetaRole| -> Vec<String> {
        let Some(f) = arch.field(role) else { return Vec::new() };
        pipeline_meta.iter().filter(|(_, ty)| arch.holds(ty, role)).map(|(path, _)| format!("{path}.{}", names::ident(f))).collect()
    };
    let meta = |role: MetaRole| -> Result<String> {
        meta_all(role).into_iter().next().ok_or_else(|| RtlError::global(format!("the architecture has no {role:?} metadata")))
    };
    // The port a packet leaves by: the egress port where the architecture has one, else the port
    // the control chose (one control and no egress, OP4T's processor).
    let out_port = || meta(MetaRole::EgressPort).or_else(|_| meta(MetaRole::EgressSpec));
    let p4_arch::DropMarker::AllOnes(drop_role) = arch.drop;
    let drop_field = meta(drop_role)?;
    // What tdest carries, and its width (the top's port width: tuser and tdest have one width).
    let (port_w, dest) = match &seg.kind {
        SegmentKind::Whole => {
            let port_w = binding.port_width.unwrap_or(9);
            let egress_port = out_port()?;
            (port_w, format!("{port_w}'(in_phv.{})", egress_port.trim_start_matches("s.phv.")))
        }
        SegmentKind::First(d) => (d.width(), d.pack(&meta)?),
        SegmentKind::Second(d) => (d.width(), format!("{}'(in_phv.{})", d.width(), meta(MetaRole::EgressPort)?.trim_start_matches("s.phv."))),
    };
    let (egress_spec, egress_port) = match seg.kind {
        SegmentKind::Whole => (meta(MetaRole::EgressSpec)?, out_port()?),
        _ => (String::new(), String::new()),
    };

    let mut generated = Vec::new();
    let mut hashes: BTreeSet<block::HashFn> = BTreeSet::new();
    let mut stages = Vec::new();
    let notes: Vec<String> = Vec::new();
    let mut latency = 0;

    // Parser.
    let parser_b = seg
        .blocks
        .clone()
        .find(|&b| arch.blocks[b].kind == BlockKind::Parser)
        .ok_or_else(|| RtlError::global("the architecture has no parser"))?;
    let BlockRef::Parser(pid) = binding.blocks[parser_b] else {
        return Err(RtlError::global("the parser role is not a parser"));
    };
    let parser = &program.parsers[pid.index()];
    let mut pg = block::BlockGen::new(program, &tm, arch, &parser.block, &shared_of(parser_b))?;
    pg.pipeline_meta = pipeline_meta.clone();
    let plan = parser::plan(&pg, parser)?;
    // The deparser's tail of headers nothing changes comes from the packet's own bytes.
    let dep_index = seg.blocks.end - 1;
    let tail = match Some(dep_index).filter(|&b| arch.blocks[b].kind == BlockKind::Control).map(|b| (b, binding.blocks[b].clone())) {
        Some((b, BlockRef::Control(cid))) => {
            let dep = &program.controls[cid.index()];
            let mut dg = block::BlockGen::new(program, &tm, arch, &dep.block, &shared_of(b))?;
            dg.pipeline_meta = pipeline_meta.clone();
            unchanged::analyse(&mut pg, parser, &plan, &mut dg, dep)?
        }
        _ => None,
    };
    let keep = match &tail {
        Some(t) => Some(block::KeepCtx { tail: t.clone(), keep: pg.local("keep", "logic [31:0]".into()), kept: pg.local("kept", "logic".into()) }),
        None => None,
    };
    let skip = match &keep {
        Some(k) => format!("16'(({}) ? {} >> 3 : off >> 3)", k.kept, k.keep),
        None => "16'(off >> 3)".into(),
    };
    let err_field = meta(MetaRole::ParserError).ok();
    pg.parser = Some(block::ParserCtx {
        offset: "off".into(),
        window: "wbe".into(),
        window_bits: plan.window_bytes * 8,
        valid_bits: "wbits".into(),
        error_field: err_field,
        too_short: parser::error_code(&pg, "PacketTooShort"),
        stack_oob: parser::error_code(&pg, "StackOutOfBounds"),
        static_offset: Some(0),
        static_window: "wbe".into(),
        static_bits: plan.window_bytes * 8,
        keep,
        base: None,
    });
    pg.set_indent(2);
    let mut init = String::new();
    let starts: Vec<(MetaRole, String)> = match &seg.kind {
        SegmentKind::Whole => vec![(MetaRole::IngressPort, "in_port".into()), (MetaRole::PacketLength, "in_pkt_len".into())],
        SegmentKind::First(_) => two_pipelines::first_starts(program, arch),
        SegmentKind::Second(d) => d.second_starts(program, arch),
    };
    for (role, value) in starts {
        for path in meta_all(role) {
            init.push_str(&format!("        {path} = $bits({path})'({value});\n"));
        }
    }
    if let SegmentKind::Second(d) = &seg.kind {
        init.push_str(&d.unpack_handoffs());
    }
    let stamp = if matches!(seg.kind, SegmentKind::Second(_)) { MetaRole::EgressTimestamp } else { MetaRole::IngressTimestamp };
    for path in meta_all(stamp) {
        init.push_str(&format!("        {}\n", us_assign(&path, "in_ts")));
    }
    // The arrival time itself, in the time format (OP4T's `t1`).
    for path in meta_all(MetaRole::RxTimestamp) {
        init.push_str(&format!("        {path} = $bits({path})'(in_ts);\n"));
    }
    let body = parser::body(&mut pg, parser, &plan, "st")?;
    let mut sp = String::new();
    let st_w = parser::state_params(parser, &mut sp);
    let start = parser
        .states
        .first()
        .map(|s| format!("ST_{}", names::ident(&s.name).to_uppercase()))
        .unwrap_or_else(|| "ST_ACCEPT".into());
    hashes.extend(pg.hashes.keys().copied());
    // Value sets: their members in control words from word 0 (see parser::value_set_cond).
    let mut next_word = 0u32;
    let mut value_sets = Vec::new();
    for (&i, (port, size, width)) in &pg.value_sets {
        let value_words = width.div_ceil(32);
        let entry_words = 2 * value_words + 1;
        value_sets.push(ValueSetHw {
            name: program.value_sets[i].name.clone(),
            port: port.clone(),
            width: *width,
            size: *size,
            base_word: next_word,
            value_words,
            entry_words,
        });
        next_word += size * entry_words;
    }
    let parser_ports: Vec<(String, u32)> = value_sets.iter().map(|v| (v.port.clone(), v.size * v.entry_words * 32)).collect();
    generated.push((
        format!("{prefix}_parser.sv"),
        top::parser_module(&prefix, plan.window_bytes, port_w, &sp, st_w, &start, &body, &pg.locals, &init, &parser_ports, &skip),
    ));
    let parser_latency = body.stages;
    stages.push(StageInfo { block: "parser".into(), name: parser.block.name.clone(), cycles: parser_latency });
    latency += parser_latency;

    // Controls in package order, the deparser last.
    let mut controls = Vec::new();
    let mut all_tables = Vec::new();
    let mut tm_after = None;
    let mut deparser = None;
    let mut multicast = false;
    let mut next_register = 0u32;
    let mut registers = Vec::new();
    // Ingress-to-egress clones: the field sets they keep, and the cycles from the parser's output
    // to the traffic manager (the clone starts from the parser's PHV, delayed that long).
    let mut clones = false;
    let mut front_latency = 0;
    let mut before_tm = true;
    let mut truncates = false;
    let mut e2e_sets: Option<Vec<Vec<String>>> = None;
    // A failed assert or assume stops a packet: every control's side effects skip it after that.
    let aborts = calls_op(program, arch, |op| matches!(op, p4_arch::ExternOp::Assert));
    // Re-parsed packets: resubmitted by ingress, recirculated by egress.
    let mut resubmits = false;
    let mut loops = false;
    let mut ingress_sets = Vec::new();
    let mut egress_sets = Vec::new();
    for b in seg.blocks.clone() {
        let role = &arch.blocks[b];
        if role.kind != BlockKind::Control {
            continue;
        }
        let BlockRef::Control(cid) = binding.blocks[b] else { continue };
        let control = &program.controls[cid.index()];
        if b == dep_index {
            deparser = Some((b, control));
            continue;
        }
        let role_name = format!("{:?}", role.role).to_lowercase();
        // Flags of packets whose register and counter writes a control skips.
        let mut skip_dropped: Vec<&str> = match role.role {
            Role::Egress | Role::ComputeChecksum if resubmits => vec!["drop", "bypass"],
            Role::Egress | Role::ComputeChecksum => vec!["drop"],
            _ => vec![],
        };
        if aborts {
            skip_dropped.push("abort");
        }
        let m = control::generate(
            program,
            &tm,
            arch,
            &layouts,
            &prefix,
            &role_name,
            cid,
            &shared_of(b),
            &pipeline_meta,
            opts.tables,
            &mut next_word,
            &mut next_register,
            &skip_dropped,
        )?;
        if role.role == Role::Ingress {
            resubmits = m.loops;
        }
        loops |= m.loops;
        if role.role == Role::Ingress {
            if matches!(seg.kind, SegmentKind::Whole) {
                tm_after = Some(controls.len());
            }
            clones = m.clones;
            ingress_sets = m.kept_sets.clone();
        }
        if role.role == Role::Egress {
            egress_sets = m.kept_sets.clone();
        }
        if role.role == Role::Egress && m.clones {
            if !m.registers.is_empty() {
                return Err(RtlError::new(
                    m.clone_span.unwrap_or(p4_ir::Span::DUMMY),
                    "an egress-to-egress clone in an egress that uses registers or counters (the clone's pass through egress runs in a second instance, which would keep its own copy of them)",
                ));
            }
            e2e_sets = Some(m.kept_sets.clone());
        }
        if before_tm {
            front_latency += m.latency;
        }
        truncates |= m.truncates;
        if role.role == Role::Ingress {
            before_tm = false;
        }
        for (name, cycles) in &m.stages {
            stages.push(StageInfo { block: role_name.clone(), name: name.clone(), cycles: *cycles });
        }
        latency += m.latency;
        hashes.extend(m.hashes.iter().copied());
        let tables = m
            .tables
            .iter()
            .map(|t| top::TablePorts {
                sv_name: t.sv_name.clone(),
                base: t.regs.base / 4,
                words: t.regs.words,
                cmd: t.regs.cmd,
                busy: t.module == TableModule::TcamBram,
            })
            .collect();
        controls.push((role_name, m.module.clone(), tables, m.reg_data_bits));
        registers.extend(m.registers.iter().cloned());
        all_tables.extend(m.tables.iter().cloned());
        multicast |= m.multicast;
        generated.push((format!("{}.sv", m.module), m.text));
    }
    let (dep_b, dep) = deparser.ok_or_else(|| RtlError::global("the architecture has no deparser"))?;
    let mut dg = block::BlockGen::new(program, &tm, arch, &dep.block, &shared_of(dep_b))?;
    dg.pipeline_meta = pipeline_meta.clone();
    let dep_body = &dep.body[..tail.as_ref().map_or(dep.body.len(), |t| t.emit_stmts)];
    let hdr_bits = deparser::max_bits(&dg, dep_body)?;
    let hdr_bytes = hdr_bits.div_ceil(8).max(1);
    dg.deparser =
        Some(deparser::DeparserCtx { vector: "obe".into(), vector_bits: hdr_bytes * 8, offset: "ooff".into(), emits: Vec::new() });
    dg.set_indent(2);
    dg.stmts(&dep.init)?;
    dg.stmts(dep_body)?;
    deparser::assemble(&mut dg)?;
    let body = dg.take_out();
    generated.push((
        format!("{prefix}_deparser.sv"),
        top::deparser_module(
            &prefix,
            hdr_bytes,
            port_w,
            &body,
            &dg.locals,
            &drop_field,
            &dest,
            top::PiExtras { clones: clones || e2e_sets.is_some(), truncates, loops, aborts },
            loops.then_some(p4_arch::MAX_LOOPS),
        ),
    ));
    stages.push(StageInfo { block: "deparser".into(), name: dep.block.name.clone(), cycles: 1 });
    stages.push(StageInfo {
        block: "queue".into(),
        name: "descriptor queue to the merge (p4f_axis_fifo)".into(),
        cycles: top::DESC_QUEUE_LATENCY,
    });
    latency += 1 + top::DESC_QUEUE_LATENCY;

    // An I2E clone starts from the parser's PHV; the software target parses the clone again with
    // its instance type, so a parser that reads the instance type would see a different value.
    if clones || loops {
        let inst = meta(MetaRole::InstanceType)?;
        let parser_text = generated.iter().find(|(n, _)| *n == format!("{prefix}_parser.sv")).map(|(_, t)| t.as_str());
        if parser_text.is_some_and(|t| t.contains(&inst)) {
            let span = parser.states.first().map_or(p4_ir::Span::DUMMY, |s| s.span);
            return Err(RtlError::new(
                span,
                "a parser that reads the instance type in a program that clones, resubmits or recirculates (the hardware sets the instance type after the parser)",
            ));
        }
    }
    // Clones use the multicast tables too: a session may name a group.
    let any_clones = clones || e2e_sets.is_some();
    let mcast = if multicast || any_clones {
        let hw = McastHw {
            groups: MCAST_GROUPS,
            copies: MCAST_COPIES,
            mirror_sessions: if any_clones { MIRROR_SESSIONS } else { 0 },
            index_word: next_word,
            data_word: next_word + 1,
            cmd_word: next_word + 2,
        };
        next_word += 3;
        let path = |role| meta(role).map(|p| p.trim_start_matches("s.phv.").to_string());
        Some(top::McastSpec {
            hw,
            group: path(MetaRole::MulticastGroup)?,
            rid: path(MetaRole::EgressRid)?,
            instance: path(MetaRole::InstanceType)?,
            replica: arch.instance_value(p4_arch::PacketInstance::Replica),
            clone: clones.then(|| top::CloneSpec {
                sets: ingress_sets.clone(),
                instance: arch.instance_value(p4_arch::PacketInstance::IngressClone),
                delay: front_latency,
            }),
        })
    } else {
        None
    };
    // The register map's control words come last, so the read words (status words after the fixed
    // four) follow directly from where they end.
    let reg_words = controls.iter().map(|c| c.3 / 32).max().unwrap_or(0);
    let register_access = (reg_words > 0).then(|| {
        let base = next_word;
        next_word += 3 + reg_words;
        RegisterAccess {
            select_word: base,
            index_word: base + 1,
            cmd_word: base + 2,
            data_word: base + 3,
            data_words: reg_words,
            read_word: next_word + top::STATUS_WORDS,
        }
    });
    let hashes: Vec<_> = hashes.into_iter().collect();
    let typedefs = tm.typedefs()?;
    generated.insert(0, (format!("{prefix}_pkg.sv"), top::package(&prefix, &typedefs, &phv_members, &hashes, top::PiExtras { clones: any_clones, truncates, loops, aborts })));
    // Cut-through: the parser starts on a packet's first bytes, as soon as its window is in, unless
    // the program reads the packet's length (`packet_length` in any block, counters and meters of
    // bytes), which is known only at the last beat. The parser's own initialisation names the
    // field twice; any other mention is a use. (The text of the generated blocks is the one place
    // that sees every use, counters' included.)
    let cut_through = match meta(MetaRole::PacketLength) {
        Ok(path) => {
            let field = path.trim_start_matches("s.");
            generated.iter().map(|(_, text)| text.matches(field).count()).sum::<usize>() <= 2
        }
        // No such field: counters read the length the packet came with (`pi.len`).
        Err(_) => !generated.iter().any(|(_, text)| text.contains(block::PI_LENGTH_READ)),
    };
    let spec = top::TopSpec {
        cut_through,
        prefix: &prefix,
        port_w,
        window_bytes: plan.window_bytes,
        parser_latency,
        hdr_bytes,
        ctrl_words: next_word,
        parser_ports: value_sets.iter().map(|v| (v.port.clone(), v.base_word, v.size * v.entry_words)).collect(),
        controls,
        tm_after,
        egress_spec: egress_spec.clone(),
        egress_port: egress_port.clone(),
        egress_ts: meta(MetaRole::EgressTimestamp).ok().map(|p| p.trim_start_matches("s.phv.").to_string()),
        tx_stamp: match (meta(MetaRole::TxTimestamp), meta(MetaRole::TxTimestampOffset)) {
            (Ok(insert), Ok(offset)) => Some((insert.trim_start_matches("s.phv.").to_string(), offset.trim_start_matches("s.phv.").to_string())),
            _ => None,
        },
        data_w: opts.data_width,
        fifo_depth: PAYLOAD_FIFO_BEATS,
        multicast: mcast,
        registers: register_access.clone(),
        truncates,
        pi: top::PiExtras { clones: any_clones, truncates, loops, aborts },
        loops: loops.then(|| top::LoopSpec {
            ingress_sets: ingress_sets.clone(),
            egress_sets: egress_sets.clone(),
            resubmitted: arch.instance_value(p4_arch::PacketInstance::Resubmitted),
            recirculated: arch.instance_value(p4_arch::PacketInstance::Recirculated),
            max_loops: p4_arch::MAX_LOOPS,
            ingress_port: phv_path(&meta, MetaRole::IngressPort),
            instance: phv_path(&meta, MetaRole::InstanceType),
            timestamp: phv_path(&meta, MetaRole::IngressTimestamp),
        }),
        e2e: match e2e_sets {
            Some(sets) => Some(top::E2eSpec {
                sets,
                instance: arch.instance_value(p4_arch::PacketInstance::EgressClone),
                keep: [MetaRole::IngressPort, MetaRole::PacketLength]
                    .into_iter()
                    .filter_map(|r| meta(r).ok())
                    .map(|p| p.trim_start_matches("s.phv.").to_string())
                    .collect(),
                zeroed: phv_members
                    .iter()
                    .map(|(n, _)| n.clone())
                    .filter(|n| n == block::shared_member(SharedKind::UserMetadata) || n == block::shared_member(SharedKind::Intrinsic))
                    .collect(),
            }),
            None => None,
        },
    };
    generated.push((format!("{prefix}_top.sv"), top::top(&spec)));

    let mut hw_modules: Vec<String> =
        ["p4f_axis_fifo", "p4f_axis_replay_fifo", "p4f_axil_regs", "p4f_pkt_split", "p4f_deparse_merge"]
            .iter()
            .map(|s| s.to_string())
            .collect();
    if loops {
        hw_modules.push("p4f_axis_rr_arbiter".into());
    }
    for t in &all_tables {
        if let Some(m) = t.module.name() {
            if !hw_modules.iter().any(|h| h == m) {
                hw_modules.push(m.into());
            }
        }
    }
    let hw_modules = hw::closure(&hw_modules);
    let mut files: Vec<String> = hw_modules.iter().map(|m| format!("hw/{m}.sv")).collect();
    files.extend(generated.iter().map(|(n, _)| n.clone()));
    let axil_addr_width = top::addr_width(next_word, top::STATUS_WORDS + register_access.as_ref().map_or(0, |r| r.data_words));
    let manifest = Manifest {
        top: format!("{prefix}_top"),
        program: name.to_string(),
        architecture: arch.name.to_string(),
        arch: None,
        port_count: None,
        host_port: None,
        processor_stride: None,
        second_processor: None,
        data_width: opts.data_width,
        clock_mhz: opts.clock_mhz,
        port_width: port_w,
        ports: serde_json::json!({
            "in": {"stream": "s_axis", "tuser": "ingress port", "ts": format!("arrival time, with the first beat: whole microseconds in bits 63:{TIME_NS_BITS}, nanoseconds within the microsecond below")},
            "out": {"stream": "m_axis", "tdest": "egress port", "ts_req": "{byte offset [16:1], insert [0]}: write the TX time into the packet there (held for the packet, like tdest); 0: the architecture has no such request"},
            "control": {"axi4_lite": "s_axil", "data_width": 32}
        }),
        parser_window_bytes: plan.window_bytes,
        cut_through,
        max_packet_bytes: PAYLOAD_FIFO_BEATS * opts.data_width / 8,
        deparser_header_bytes: hdr_bytes,
        pipeline_latency_cycles: latency,
        stages,
        tables: all_tables,
        multicast: spec.multicast.as_ref().map(|m| m.hw.clone()),
        value_sets,
        registers,
        register_access,
        control_words: next_word,
        axil_addr_width,
        status: serde_json::json!({
            "stall_cycles": next_word.max(1) * 4,
            "drops": next_word.max(1) * 4 + 4,
            "descriptors": next_word.max(1) * 4 + 8,
            "packets": next_word.max(1) * 4 + 12,
            "loops": next_word.max(1) * 4 + 16,
            "tables_busy": next_word.max(1) * 4 + 20
        }),
        files,
        notes,
    };
    Ok(Design { generated, hw_modules, manifest })
}

/// The name of the struct type `ty` names (empty for any other type).
fn struct_name(program: &Program, ty: &Type) -> String {
    match ty {
        Type::Named(id) => program.types.get(id.index()).map_or(String::new(), |t| t.name().to_string()),
        _ => String::new(),
    }
}

fn block_of<'p>(p: &'p Program, b: &BlockRef) -> &'p p4_ir::Block {
    match b {
        BlockRef::Parser(id) => &p.parsers[id.index()].block,
        BlockRef::Control(id) => &p.controls[id.index()].block,
    }
}

/// The `hw/` runtime modules, embedded.
pub mod hw {
    include!(concat!(env!("OUT_DIR"), "/hw_modules.rs"));

    /// The text of `hw/rtl/<name>.sv`: from `$P4FORGE_HW_DIR/<name>.sv` when that variable names a
    /// directory holding it (to try edits of hw/ without rebuilding p4forge), else as embedded.
    pub fn module(name: &str) -> Option<&'static str> {
        if let Some(dir) = std::env::var_os("P4FORGE_HW_DIR") {
            if let Ok(text) = std::fs::read_to_string(std::path::Path::new(&dir).join(format!("{name}.sv"))) {
                return Some(Box::leak(text.into_boxed_str()));
            }
        }
        HW_MODULES.iter().find(|(n, _)| *n == name).map(|(_, t)| *t)
    }

    fn all_names() -> Vec<String> {
        let mut names: Vec<String> = HW_MODULES.iter().map(|(n, _)| n.to_string()).collect();
        if let Some(dir) = std::env::var_os("P4FORGE_HW_DIR") {
            for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
                let p = e.path();
                if p.extension().is_some_and(|x| x == "sv") {
                    if let Some(stem) = p.file_stem() {
                        names.push(stem.to_string_lossy().to_string());
                    }
                }
            }
        }
        names.sort();
        names.dedup();
        names
    }

    /// `names` and every `hw/` module they instantiate, each after the modules it uses.
    pub fn closure(names: &[String]) -> Vec<String> {
        fn visit(name: &str, out: &mut Vec<String>) {
            if out.iter().any(|n| n == name) {
                return;
            }
            if let Some(text) = module(name) {
                for other in all_names() {
                    let used = text.contains(&format!("{other} #(")) || text.contains(&format!("{other} u_"));
                    if other != name && used {
                        visit(&other, out);
                    }
                }
            }
            out.push(name.to_string());
        }
        let mut out = Vec::new();
        for n in names {
            visit(n, &mut out);
        }
        out
    }
}

#[cfg(test)]
mod time_tests {
    use super::*;

    /// A microsecond timestamp is the time format's bits above the nanoseconds (`p4_ir::time`
    /// tests the format itself).
    #[test]
    fn nanoseconds_split_at_the_microsecond() {
        assert_eq!(hw_time(1_499_995_123), (1_499_995 << TIME_NS_BITS) | 123);
        assert_eq!(us_assign("s.phv.std.t", "in_ts"), "s.phv.std.t = $bits(s.phv.std.t)'(in_ts[63:10]);");
    }
}

//! An architecture with two pipelines ([`p4_arch::TrafficManager::TwoPipelines`], PSA's) on the
//! hardware target: each pipeline (parser, control, deparser) is a pipeline top of its own
//! (`<prog>_ig_top`, `<prog>_eg_top`, generated as v1model's one pipeline is), and `<prog>_top`
//! chains them with the ports a one-pipeline top has:
//!
//! ```text
//! s_axis ─► <prog>_ig_top ─(packet, tdest = descriptor)─► <prog>_eg_top ─► m_axis (tdest = port)
//! s_axil ─► p4f_axil_split ─┬─► the first one's register map (addresses below the select bit)
//!                           └─► the second one's (the select bit set)
//! ```
//! Between them the packet is deparsed and parsed again, as the architecture says; what the second
//! pipeline starts from besides the bytes travels in the first one's tdest: the [`Descriptor`].
//!
//! The hardware subset: unicast and drop. A program whose ingress asks for a clone, a resubmit or
//! a multicast group, whose egress asks for a clone, or that sends a packet to the recirculation
//! port is refused with the place that asks (the traffic manager between the pipelines is a wire).

use std::fmt::Write;

use p4_arch::{Binding, MetaRole, PacketInstance, SharedKind};
use p4_ir::visit::{walk_program, walk_stmt, Visit};
use p4_ir::{ExprKind, Program, Span, Stmt, Type, Value};

use crate::error::Result;
use crate::{pipeline, top, Design, Options, RtlError, Segment, SegmentKind};

/// Bits of the arrival time in the descriptor.
const TIME_BITS: u32 = 64;

/// What the second pipeline starts from besides the packet, packed into the first pipeline's
/// tdest, from bit 0 up: the egress port, the class of service, every handoff storage both
/// pipelines hold (PSA's normal and clone_i2e metadata, written by the ingress deparser and read
/// by the egress parser), then the packet's arrival time (the egress timestamp, as the software
/// target gives the same time to both pipelines).
#[derive(Clone, Debug)]
pub struct Descriptor {
    port: u32,
    class: u32,
    /// (PHV member, width).
    handoffs: Vec<(String, u32)>,
}

impl Descriptor {
    /// The descriptor of `binding`'s program: port width, the class-of-service field's width in
    /// the first pipeline's intrinsic output, the handoffs shared by `first` and `second`.
    fn of(program: &Program, binding: &Binding, first: &std::ops::Range<usize>, second: &std::ops::Range<usize>) -> Result<Descriptor> {
        let arch = binding.arch;
        let tm = crate::types::TypeMap::new(program, &[]);
        let param_type = |sp: &p4_arch::SharedParam, range: &std::ops::Range<usize>| -> Option<Type> {
            sp.positions.iter().enumerate().filter(|(b, _)| range.contains(b)).find_map(|(b, pos)| {
                let block = crate::block_of(program, binding.blocks.get(b)?);
                let v = block.params.get((*pos)?)?;
                Some(block.vars[v.index()].ty.clone())
            })
        };
        let mut class = 0;
        if let Some(field) = arch.field(MetaRole::ClassOfService) {
            for sp in arch.shared.iter().filter(|sp| sp.kind == SharedKind::Intrinsic) {
                let Some(Type::Named(id)) = param_type(sp, first) else { continue };
                let def = program.type_def(id);
                if let Some(f) = def.fields().iter().find(|f| f.name == field && arch.holds(def.name(), MetaRole::ClassOfService)) {
                    class = tm.width(&f.ty)?;
                }
            }
        }
        let mut handoffs = Vec::new();
        for sp in arch.shared.iter().filter(|sp| sp.kind == SharedKind::Handoff) {
            if let (Some(ty), Some(_)) = (param_type(sp, first), param_type(sp, second)) {
                let width = tm.width(&ty)?;
                if width > 0 {
                    handoffs.push((crate::member_name(sp), width));
                }
            }
        }
        Ok(Descriptor { port: binding.port_width.unwrap_or(32), class, handoffs })
    }

    /// Its width in bits.
    pub fn width(&self) -> u32 {
        self.port + self.class + self.handoffs.iter().map(|h| h.1).sum::<u32>() + TIME_BITS
    }

    /// The first pipeline's deparser output: the descriptor from its PHV (`in_phv`).
    pub(crate) fn pack(&self, meta: &dyn Fn(MetaRole) -> Result<String>) -> Result<String> {
        let phv = |path: String| format!("in_phv.{}", path.trim_start_matches("s.phv."));
        let mut parts = vec!["in_phv.pi.ts".to_string()];
        parts.extend(self.handoffs.iter().rev().map(|(m, _)| format!("in_phv.{m}")));
        if self.class > 0 {
            parts.push(phv(meta(MetaRole::ClassOfService)?));
        }
        parts.push(format!("{}'(in_phv.{})", self.port, meta(MetaRole::EgressSpec)?.trim_start_matches("s.phv.")));
        Ok(format!("{{{}}}", parts.join(", ")))
    }

    /// What the second pipeline's intrinsic inputs start as: the egress port and class of
    /// service from the descriptor (its `in_port`), the packet path of a unicast packet.
    pub(crate) fn second_starts(&self, program: &Program, arch: &p4_arch::Architecture) -> Vec<(MetaRole, String)> {
        let mut starts = vec![(MetaRole::EgressPort, format!("in_port[{}:0]", self.port - 1))];
        if self.class > 0 {
            starts.push((MetaRole::ClassOfService, format!("in_port[{} +: {}]", self.port, self.class)));
        }
        let unicast = arch.instance_value_in(program, PacketInstance::Unicast).unwrap_or(0);
        starts.push((MetaRole::InstanceType, format!("32'd{unicast}")));
        starts
    }

    /// The handoff storage from the descriptor, as the second pipeline's parser starts.
    pub(crate) fn unpack_handoffs(&self) -> String {
        let mut out = String::new();
        let mut at = self.port + self.class;
        for (member, width) in &self.handoffs {
            let _ = writeln!(out, "        s.phv.{member} = $bits(s.phv.{member})'(in_port[{at} +: {width}]);");
            at += width;
        }
        out
    }
}

/// What the first pipeline's intrinsic inputs start as, besides the ingress port and time: the
/// packet path of a packet from a port, and the drop flag set (ingress drops unless it sends).
pub(crate) fn first_starts(program: &Program, arch: &p4_arch::Architecture) -> Vec<(MetaRole, String)> {
    let normal = arch.instance_value_in(program, PacketInstance::Normal).unwrap_or(0);
    vec![(MetaRole::IngressPort, "in_port".into()), (MetaRole::InstanceType, format!("32'd{normal}")), (MetaRole::Drop, "1'b1".into())]
}

/// Generates both pipelines and the top that chains them.
pub(crate) fn generate(program: &Program, binding: &Binding, loop_port: u32, prefix: &str, name: &str, opts: &Options) -> Result<Design> {
    let arch = binding.arch;
    refuse_outside_subset(program, binding, loop_port)?;
    let split = arch
        .blocks
        .iter()
        .enumerate()
        .skip(1)
        .find(|(_, b)| b.kind == p4_arch::BlockKind::Parser)
        .map(|(i, _)| i)
        .ok_or_else(|| RtlError::global(format!("{}: no second parser", arch.name)))?;
    let (first, second) = (0..split, split..arch.blocks.len());
    let desc = Descriptor::of(program, binding, &first, &second)?;
    let ig = pipeline(program, binding, &Segment { blocks: first, kind: SegmentKind::First(desc.clone()) }, &format!("{prefix}_ig"), name, opts)?;
    let eg = pipeline(program, binding, &Segment { blocks: second, kind: SegmentKind::Second(desc.clone()) }, &format!("{prefix}_eg"), name, opts)?;
    let (ig_aw, eg_aw) = (ig.manifest.axil_addr_width, eg.manifest.axil_addr_width);
    let sel_bit = ig_aw.max(eg_aw);
    let port_w = binding.port_width.unwrap_or(32);
    let chain = chain_top(prefix, port_w, desc.width(), sel_bit, ig_aw, eg_aw, opts.data_width);
    Ok(merge(ig, eg, (prefix, name), chain, sel_bit, port_w))
}

/// The one design: both pipelines' files and the chain; one manifest with the second pipeline's
/// control words moved above the select bit.
fn merge(ig: Design, eg: Design, (prefix, name): (&str, &str), chain: String, sel_bit: u32, port_w: u32) -> Design {
    let offset = (1u32 << sel_bit) / 4;
    let mut hw_modules = ig.hw_modules.clone();
    for m in eg.hw_modules.iter().chain(std::iter::once(&"p4f_axil_split".to_string())) {
        if !hw_modules.contains(m) {
            hw_modules.push(m.clone());
        }
    }
    let hw_modules = crate::hw::closure(&hw_modules);
    let mut generated = ig.generated;
    generated.extend(eg.generated);
    generated.push((format!("{prefix}_top.sv"), chain));
    let mut files: Vec<String> = hw_modules.iter().map(|m| format!("hw/{m}.sv")).collect();
    files.extend(generated.iter().map(|(n, _)| n.clone()));
    let (mut m, e) = (ig.manifest, eg.manifest);
    let moved = |mut t: crate::TableHw| {
        t.regs.base += offset * 4;
        t
    };
    m.tables.extend(e.tables.into_iter().map(moved));
    m.value_sets.extend(e.value_sets.into_iter().map(|mut v| {
        v.base_word += offset;
        v
    }));
    // The second pipeline's registers are reached through its own access words; they are the
    // design's when the first pipeline has none.
    if let Some(mut a) = e.register_access {
        for w in [&mut a.select_word, &mut a.index_word, &mut a.cmd_word, &mut a.data_word, &mut a.read_word] {
            *w += offset;
        }
        let own = m.register_access.is_some().then_some(a.clone());
        m.registers.extend(e.registers.into_iter().map(|r| crate::RegisterHw { access: own.clone(), ..r }));
        m.register_access.get_or_insert(a);
    }
    let shift = |v: &serde_json::Value| match v {
        serde_json::Value::Object(o) => {
            serde_json::Value::Object(o.iter().map(|(k, x)| (k.clone(), serde_json::json!(x.as_u64().unwrap_or(0) + u64::from(offset) * 4))).collect())
        }
        other => other.clone(),
    };
    m.status = serde_json::json!({ "ingress": m.status, "egress": shift(&e.status) });
    m.control_words = offset + e.control_words;
    m.axil_addr_width = sel_bit + 1;
    m.top = format!("{prefix}_top");
    m.program = name.to_string();
    m.port_width = port_w;
    m.cut_through = m.cut_through && e.cut_through;
    m.deparser_header_bytes = e.deparser_header_bytes;
    m.pipeline_latency_cycles += e.pipeline_latency_cycles;
    for s in &mut m.stages {
        s.block = format!("ingress pipeline: {}", s.block);
    }
    m.stages.extend(e.stages.into_iter().map(|mut s| {
        s.block = format!("egress pipeline: {}", s.block);
        s
    }));
    m.notes.extend(e.notes);
    m.notes.push(format!(
        "two pipelines chained (unicast and drop); the second pipeline's control words start at word {offset} (byte address bit {sel_bit})"
    ));
    m.files = files;
    Design { generated, hw_modules, manifest: m }
}

/// `<prefix>_top`: the two pipeline tops in a row, one register map split by address.
fn chain_top(prefix: &str, port_w: u32, desc_w: u32, sel_bit: u32, ig_aw: u32, eg_aw: u32, data_w: u32) -> String {
    let mut o = String::new();
    let _ = writeln!(o, "// Top of the {prefix} switch, generated by p4forge: the first pipeline ({prefix}_ig_top) feeds the");
    let _ = writeln!(o, "// second ({prefix}_eg_top); tdest between them is the descriptor (egress port, class of service,");
    let _ = writeln!(o, "// handoff metadata, arrival time). Control words of the second pipeline have byte address bit {sel_bit} set.");
    let _ = writeln!(o, "`default_nettype none\n");
    let _ = writeln!(o, "/* verilator lint_off UNUSEDSIGNAL */\n/* verilator lint_off PINCONNECTEMPTY */");
    let _ = writeln!(o, "module {prefix}_top #(\n    parameter int DATA_W = {data_w},  // stream width in bits\n    parameter int KEEP_W = DATA_W / 8\n) (");
    top::top_ports(&mut o, port_w, sel_bit + 1);
    let _ = writeln!(o, "    localparam int DESC_W = {desc_w};  // {{arrival time, handoffs, class of service, egress port}}\n");
    let _ = writeln!(o, "    logic [DATA_W-1:0] mid_tdata;\n    logic [KEEP_W-1:0] mid_tkeep;\n    logic mid_tvalid, mid_tready, mid_tlast;\n    logic [DESC_W-1:0] mid_tdest, out_tdest;");
    let _ = writeln!(o, "    logic [31:0] ig_stall, ig_drops, ig_descs, ig_packets, ig_loops, eg_stall, eg_drops, eg_descs, eg_packets, eg_loops;\n    logic ig_busy, eg_busy;");
    // The split.
    let _ = writeln!(o, "    logic [{}:0] m_awaddr, m_araddr;\n    logic [5:0] m_awprot, m_arprot;\n    logic [1:0] m_awvalid, m_awready, m_wvalid, m_wready, m_bvalid, m_bready, m_arvalid, m_arready, m_rvalid, m_rready;\n    logic [63:0] m_wdata, m_rdata;\n    logic [7:0] m_wstrb;\n    logic [3:0] m_bresp, m_rresp;", 2 * sel_bit - 1);
    let _ = writeln!(o, "    p4f_axil_split #(.DATA_W(32), .SEL_BIT({sel_bit})) u_axil (\n        .clk(clk), .rst(rst),");
    let _ = writeln!(o, "        .s_axil_awaddr(s_axil_awaddr), .s_axil_awprot(s_axil_awprot), .s_axil_awvalid(s_axil_awvalid), .s_axil_awready(s_axil_awready),\n        .s_axil_wdata(s_axil_wdata), .s_axil_wstrb(s_axil_wstrb), .s_axil_wvalid(s_axil_wvalid), .s_axil_wready(s_axil_wready),\n        .s_axil_bresp(s_axil_bresp), .s_axil_bvalid(s_axil_bvalid), .s_axil_bready(s_axil_bready),\n        .s_axil_araddr(s_axil_araddr), .s_axil_arprot(s_axil_arprot), .s_axil_arvalid(s_axil_arvalid), .s_axil_arready(s_axil_arready),\n        .s_axil_rdata(s_axil_rdata), .s_axil_rresp(s_axil_rresp), .s_axil_rvalid(s_axil_rvalid), .s_axil_rready(s_axil_rready),");
    let _ = writeln!(o, "        .m_axil_awaddr(m_awaddr), .m_axil_awprot(m_awprot), .m_axil_awvalid(m_awvalid), .m_axil_awready(m_awready),\n        .m_axil_wdata(m_wdata), .m_axil_wstrb(m_wstrb), .m_axil_wvalid(m_wvalid), .m_axil_wready(m_wready),\n        .m_axil_bresp(m_bresp), .m_axil_bvalid(m_bvalid), .m_axil_bready(m_bready),\n        .m_axil_araddr(m_araddr), .m_axil_arprot(m_arprot), .m_axil_arvalid(m_arvalid), .m_axil_arready(m_arready),\n        .m_axil_rdata(m_rdata), .m_axil_rresp(m_rresp), .m_axil_rvalid(m_rvalid), .m_axil_rready(m_rready)\n    );\n");
    for (i, (role, aw, input, tuser, ts, output, tdest)) in [
        ("ig", ig_aw, "s_axis", format!("DESC_W'(s_axis_tuser)"), "s_axis_ts".to_string(), "mid", "mid_tdest"),
        ("eg", eg_aw, "mid", "mid_tdest".to_string(), format!("mid_tdest[DESC_W-1 -: {TIME_BITS}]"), "m_axis", "out_tdest"),
    ]
    .into_iter()
    .enumerate()
    {
        let sw = sel_bit;
        let (ready_in, last_in) = (format!("{input}_tready"), format!("{input}_tlast"));
        let out = |s: &str| if output == "mid" { format!("mid_{s}") } else { format!("m_axis_{s}") };
        let inp = |s: &str| if input == "mid" { format!("mid_{s}") } else { format!("s_axis_{s}") };
        let _ = writeln!(o, "    {prefix}_{role}_top #(.DATA_W(DATA_W)) u_{role} (\n        .clk(clk), .rst(rst),");
        let _ = writeln!(o, "        .s_axis_tdata({}), .s_axis_tkeep({}), .s_axis_tvalid({}), .s_axis_tready({ready_in}), .s_axis_tlast({last_in}), .s_axis_tuser({tuser}), .s_axis_ts({ts}),", inp("tdata"), inp("tkeep"), inp("tvalid"));
        let _ = writeln!(o, "        .m_axis_tdata({}), .m_axis_tkeep({}), .m_axis_tvalid({}), .m_axis_tready({}), .m_axis_tlast({}), .m_axis_tdest({tdest}), .m_axis_ts_req({}),", out("tdata"), out("tkeep"), out("tvalid"), out("tready"), out("tlast"), if role == "eg" { "m_axis_ts_req" } else { "" });
        let _ = writeln!(o, "        .s_axil_awaddr(m_awaddr[{} +: {aw}]), .s_axil_awprot(m_awprot[{} +: 3]), .s_axil_awvalid(m_awvalid[{i}]), .s_axil_awready(m_awready[{i}]),", i as u32 * sw, i * 3);
        let _ = writeln!(o, "        .s_axil_wdata(m_wdata[{} +: 32]), .s_axil_wstrb(m_wstrb[{} +: 4]), .s_axil_wvalid(m_wvalid[{i}]), .s_axil_wready(m_wready[{i}]),", i * 32, i * 4);
        let _ = writeln!(o, "        .s_axil_bresp(m_bresp[{} +: 2]), .s_axil_bvalid(m_bvalid[{i}]), .s_axil_bready(m_bready[{i}]),", i * 2);
        let _ = writeln!(o, "        .s_axil_araddr(m_araddr[{} +: {aw}]), .s_axil_arprot(m_arprot[{} +: 3]), .s_axil_arvalid(m_arvalid[{i}]), .s_axil_arready(m_arready[{i}]),", i as u32 * sw, i * 3);
        let _ = writeln!(o, "        .s_axil_rdata(m_rdata[{} +: 32]), .s_axil_rresp(m_rresp[{} +: 2]), .s_axil_rvalid(m_rvalid[{i}]), .s_axil_rready(m_rready[{i}]),", i * 32, i * 2);
        let _ = writeln!(o, "        .stat_stall_cycles({role}_stall), .stat_drops({role}_drops), .stat_descs({role}_descs), .stat_packets({role}_packets), .stat_loops({role}_loops), .tables_busy({role}_busy)\n    );\n");
    }
    let _ = writeln!(o, "    assign m_axis_tdest = out_tdest[{}:0];", port_w - 1);
    let _ = writeln!(o, "    // A packet the first pipeline drops is done there; one it sends on is done in the second.");
    let _ = writeln!(o, "    assign stat_stall_cycles = ig_stall + eg_stall;\n    assign stat_drops = ig_drops + eg_drops;\n    assign stat_descs = ig_drops + eg_descs;\n    assign stat_packets = ig_drops + eg_packets;\n    assign stat_loops = ig_loops + eg_loops;\n    assign tables_busy = ig_busy || eg_busy;");
    let _ = writeln!(o, "endmodule\n/* verilator lint_on PINCONNECTEMPTY */\n/* verilator lint_on UNUSEDSIGNAL */\n`default_nettype wire");
    o
}

/// Refuses what the traffic manager between the pipelines does not do: writes (of anything but
/// zero) to the intrinsic fields asking for a clone, a resubmit or a multicast group, and the
/// recirculation port as a value given (assigned or passed in, as `send_to_port` takes it; a
/// comparison with it, as `psa_recirculate` makes, is fine).
fn refuse_outside_subset(program: &Program, binding: &Binding, loop_port: u32) -> Result<()> {
    struct Finder<'p> {
        program: &'p Program,
        arch: &'static p4_arch::Architecture,
        loop_port: u32,
        found: Option<(Span, String)>,
    }
    impl Finder<'_> {
        /// Whether `e` is the recirculation port as a constant.
        fn is_loop_port(&self, e: &p4_ir::Expr) -> bool {
            matches!(&e.kind, ExprKind::Const(Value::Bits { value, .. } | Value::InfInt(value)) if *value == self.loop_port.into())
        }
        fn recirculates(&mut self, span: Span) {
            if self.found.is_none() {
                self.found = Some((span, "a packet sent to the recirculation port (the hardware target's two pipelines do unicast and drop only)".into()));
            }
        }
    }
    impl<'a> Visit<'a> for Finder<'_> {
        fn visit_call(&mut self, call: &'a p4_ir::Call) {
            if call.args.iter().any(|a| a.direction == p4_ir::Direction::In && self.is_loop_port(&a.expr)) {
                self.recirculates(call.span);
            }
            // An action that asks (PSA's `multicast(ostd, group)`, written in psa.p4) is refused
            // where the program calls it.
            if let (None, p4_ir::Callee::Action(a)) = (&self.found, &call.callee) {
                let mut inner = Finder { program: self.program, arch: self.arch, loop_port: self.loop_port, found: None };
                inner.visit_stmts(&self.program.actions[a.index()].body);
                self.found = inner.found.map(|(_, message)| (call.span, message));
            }
            p4_ir::visit::walk_call(self, call);
        }
        fn visit_stmt(&mut self, stmt: &'a Stmt) {
            match stmt {
                Stmt::Assign { rhs, span, .. } if self.is_loop_port(rhs) => self.recirculates(*span),
                Stmt::VarInit { init: Some(e), span, .. } if self.is_loop_port(e) => self.recirculates(*span),
                _ => {}
            }
            if self.found.is_some() {
                return;
            }
            if let Stmt::Assign { lhs, rhs, span } = stmt {
                if let ExprKind::Field(base, index) = &lhs.kind {
                    if let Type::Named(id) = &base.ty {
                        let def = self.program.type_def(*id);
                        let field = def.fields().get(*index as usize).map(|f| f.name.as_str()).unwrap_or("");
                        let constant = match &rhs.kind {
                            ExprKind::Const(Value::Bits { value, .. } | Value::InfInt(value)) => Some(value.clone()),
                            ExprKind::Const(Value::Bool(b)) => Some(u32::from(*b).into()),
                            _ => None,
                        };
                        let zero = constant.as_ref().is_some_and(|v| v == &0u32.into());
                        let what = match self.arch.role_in(def.name(), field) {
                            Some(MetaRole::Clone) if !zero => Some("a clone"),
                            Some(MetaRole::Resubmit) if !zero => Some("a resubmit"),
                            Some(MetaRole::MulticastGroup) if !zero => Some("a multicast group"),
                            _ => None,
                        };
                        if let Some(what) = what {
                            self.found = Some((*span, format!("`{}.{field}`: {what} (the hardware target's two pipelines do unicast and drop only)", def.name())));
                        }
                    }
                }
            }
            walk_stmt(self, stmt);
        }
    }
    let mut f = Finder { program, arch: binding.arch, loop_port, found: None };
    walk_program(&mut f, program);
    match f.found {
        Some((span, message)) => Err(RtlError::new(span, message)),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_descriptor_packs_port_class_handoffs_and_time_from_bit_zero_up() {
        let d = Descriptor { port: 32, class: 8, handoffs: vec![("normal_metadata".into(), 16), ("clone_i2e_metadata".into(), 8)] };
        assert_eq!(d.width(), 32 + 8 + 16 + 8 + 64);
        let meta = |role: MetaRole| -> Result<String> {
            Ok(match role {
                MetaRole::ClassOfService => "s.phv.std.class_of_service".into(),
                MetaRole::EgressSpec => "s.phv.std.egress_port".into(),
                _ => unreachable!(),
            })
        };
        assert_eq!(
            d.pack(&meta).unwrap(),
            "{in_phv.pi.ts, in_phv.clone_i2e_metadata, in_phv.normal_metadata, in_phv.std.class_of_service, 32'(in_phv.std.egress_port)}"
        );
        assert_eq!(
            d.unpack_handoffs(),
            "        s.phv.normal_metadata = $bits(s.phv.normal_metadata)'(in_port[40 +: 16]);\n        s.phv.clone_i2e_metadata = $bits(s.phv.clone_i2e_metadata)'(in_port[56 +: 8]);\n"
        );
    }
}

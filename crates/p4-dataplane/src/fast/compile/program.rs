//! The program as the executor sees it before any code is compiled: the frame layout, the
//! pipeline's blocks by role, the intrinsic metadata's slots, and the tables' per-entry externs.

use p4_arch::{DropMarker, MetaRole, Role, SharedKind, StateKind, TrafficManager};
use p4_ir::{BlockRef, MatchKind, Program, Type, TypeDef};

use super::{unsupported, Compiler, R};
use crate::fast::exec::{Paths, Pipeline, Prog, TableProg, TwoPipelineMeta};

/// Lays out the frame (every variable of every block, the shared parameters once), finds the
/// pipeline's blocks and intrinsic metadata, and the tables' per-entry externs: what the
/// executor ([`crate::fast`]) compiles the program over.
pub(crate) fn lay_out(ir: &Program, tracing: bool) -> R<(Prog, Compiler<'_>)> {
    // The architecture says which instance plays which block and which parameters are one storage.
    if p4_arch::of(ir).is_none() {
        let mut known: Vec<String> = p4_arch::ALL.iter().map(|a| format!("{} ({})", a.package, a.name)).collect();
        let last = known.pop().unwrap_or_default();
        let known = if known.is_empty() { last } else { format!("{} and {last}", known.join(", ")) };
        return unsupported(format!("package `{}`: only {known} programs run on this dataplane", ir.main.type_name));
    }
    let binding = p4_arch::bind(ir).map_err(crate::DataplaneError::unsupported)?;
    let arch = binding.arch;
    // The pipeline from the block roles: the parser, the controls before the traffic manager,
    // the ingress deparser and egress parser of a second pipeline, the controls up to the
    // after-egress decisions, and the ones writing the packet out.
    // An egress control is optional where nothing runs between the traffic manager and the
    // deparser (OP4T's one processor); two pipelines need one.
    let egress_needed = matches!(arch.traffic_manager, TrafficManager::TwoPipelines { .. });
    if arch.block_index(Role::Ingress).is_none() || (egress_needed && arch.block_index(Role::Egress).is_none()) {
        return unsupported(format!("{}: this dataplane needs an {:?} and an {:?} block", arch.package, Role::Ingress, Role::Egress));
    }
    let mut parser = None;
    let mut pipeline = Pipeline { parser: 0, ingress: Vec::new(), ingress_deparse: Vec::new(), egress_parser: None, egress: Vec::new(), deparse: Vec::new() };
    for (role, b) in arch.blocks.iter().map(|r| r.role).zip(&binding.blocks) {
        match (role, b) {
            (Role::Parser, BlockRef::Parser(p)) => parser = Some(p.index()),
            (Role::EgressParser, BlockRef::Parser(p)) => pipeline.egress_parser = Some(p.index()),
            (Role::VerifyChecksum | Role::Ingress, BlockRef::Control(c)) => pipeline.ingress.push(c.index()),
            (Role::IngressDeparser, BlockRef::Control(c)) => pipeline.ingress_deparse.push(c.index()),
            (Role::Egress, BlockRef::Control(c)) => pipeline.egress.push(c.index()),
            (Role::ComputeChecksum | Role::Deparser, BlockRef::Control(c)) => pipeline.deparse.push(c.index()),
            (role, _) => return unsupported(format!("{}: no place in this dataplane's pipeline for a {role:?} block of that kind", arch.package)),
        }
    }
    let Some(parser) = parser else {
        return unsupported(format!("{}: this dataplane needs a {:?} block", arch.package, Role::Parser));
    };
    pipeline.parser = parser;
    if let (TrafficManager::SimpleSwitch, true) = (arch.traffic_manager, pipeline.egress_parser.is_some() || !pipeline.ingress_deparse.is_empty()) {
        return unsupported(format!("{}: a second parser or an ingress deparser needs the two-pipeline traffic manager", arch.package));
    }
    let mut cx = Compiler::new(ir);
    cx.tracing = tracing;
    // Each shared parameter is allocated once, with the type the first block having it declares.
    let block_params = |b: &BlockRef| -> Option<&p4_ir::Block> {
        match b {
            BlockRef::Parser(p) => ir.parsers.get(p.index()).map(|p| &p.block),
            BlockRef::Control(c) => ir.controls.get(c.index()).map(|c| &c.block),
        }
    };
    let mut shared_base: Vec<(SharedKind, usize, Type)> = Vec::new();
    for sp in arch.shared {
        let ty = binding.blocks.iter().zip(sp.positions).find_map(|(b, pos)| {
            let blk = block_params(b)?;
            blk.params.get((*pos)?).and_then(|v| blk.vars.get(v.index())).map(|v| v.ty.clone())
        });
        let ty = ty.ok_or_else(|| crate::DataplaneError::unsupported(format!("{}: no block has the {} parameter", arch.package, sp.name)))?;
        shared_base.push((sp.kind, cx.alloc(&ty)?, ty));
    }
    let base_of = |k: SharedKind| shared_base.iter().find(|s| s.0 == k).map(|s| (s.1, s.2.clone()));
    let missing = |what: &str| crate::DataplaneError::unsupported(format!("{}: no {what} parameter", arch.package));
    let (mbase, mty) = base_of(SharedKind::UserMetadata).ok_or_else(|| missing("user metadata"))?;
    let (sbase, sty) = base_of(SharedKind::Intrinsic).ok_or_else(|| missing("intrinsic metadata"))?;
    cx.meta = Some((mbase, mty.clone()));
    // Shared ranges by (block, param position).
    let shared: Vec<(BlockRef, Vec<Option<usize>>)> = binding
        .blocks
        .iter()
        .enumerate()
        .map(|(bi, b)| {
            let n = block_params(b).map_or(0, |blk| blk.params.len());
            let mut slots = vec![None; n];
            for (sp, (_, base, _)) in arch.shared.iter().zip(&shared_base) {
                if let Some(slot) = sp.positions.get(bi).copied().flatten().and_then(|pos| slots.get_mut(pos)) {
                    *slot = Some(*base);
                }
            }
            (b.clone(), slots)
        })
        .collect();
    let alias = |b: &BlockRef, params: &[p4_ir::VarId], v: usize| -> Option<usize> {
        let (_, slots) = shared.iter().find(|(sb, _)| sb == b)?;
        let pos = params.iter().position(|p| p.index() == v)?;
        slots.get(pos).copied().flatten()
    };
    // Every variable of a block its own slots, but a shared parameter's, which is the range
    // allocated above.
    let var_slots = |cx: &mut Compiler<'_>, b: &BlockRef, block: &p4_ir::Block| -> R<Vec<usize>> {
        let mut slots = Vec::with_capacity(block.vars.len());
        for (v, var) in block.vars.iter().enumerate() {
            slots.push(match alias(b, &block.params, v) {
                Some(s) => s,
                None => cx.alloc(&var.ty)?,
            });
        }
        Ok(slots)
    };
    for (i, p) in ir.parsers.iter().enumerate() {
        let slots = var_slots(&mut cx, &BlockRef::Parser(p4_ir::ParserId(i as u32)), &p.block)?;
        cx.parser_vars.push(slots);
    }
    for (i, ctl) in ir.controls.iter().enumerate() {
        let slots = var_slots(&mut cx, &BlockRef::Control(p4_ir::ControlId(i as u32)), &ctl.block)?;
        cx.control_vars.push(slots);
    }
    // Intrinsic metadata fields by the role the architecture gives their names.
    cx.intrinsic.port_width = binding.port_width.unwrap_or(0);
    cx.intrinsic.drop_value = u128::MAX;
    if let Some(TypeDef::Struct { name: sname, fields }) = cx.type_def(&sty) {
        for (i, f) in fields.iter().enumerate() {
            let (off, _) = cx.field_offset(&sty, i as u32)?;
            let Some(r) = arch.role_in(sname, &f.name) else { continue };
            // The drop marker: all ones in the marker field's declared width (v1model: 511).
            if let (DropMarker::AllOnes(d), Type::Bits { width, .. }) = (arch.drop, &f.ty) {
                if d == r {
                    cx.intrinsic.drop_value = crate::bits::mask(*width);
                }
            }
            cx.intrinsic.set_slot(r, sbase + off);
        }
    }

    // Counters and meters count bytes from the packet-length field; where the architecture has
    // none (PSA), from a slot of the switch's own that the arrival writes as it would the field.
    if cx.intrinsic.slot(MetaRole::PacketLength).is_none() {
        let length = cx.alloc(&Type::Bits { width: 32, signed: false })?;
        cx.intrinsic.set_slot(MetaRole::PacketLength, length);
    }
    let two_pipelines = match arch.traffic_manager {
        TrafficManager::SimpleSwitch => None,
        TrafficManager::TwoPipelines { loop_port } => Some(two_pipelines(&mut cx, &binding, &shared_base, loop_port)?),
    };

    let slot_names = if tracing { Some(std::sync::Arc::new(cx.slot_names()?)) } else { None };
    let mut tables = Vec::new();
    for t in &ir.tables {
        tables.push(table(ir, t)?);
    }
    let prog = Prog {
        frame_len: cx.next_slot,
        control_names: ir.controls.iter().map(|c| c.block.name.clone()).collect(),
        tables,
        field_sets: cx.field_sets.clone(),
        intrinsic: cx.intrinsic.clone(),
        pipeline_meta: crate::fast::exec::PipelineMeta::of(&cx.intrinsic),
        meta_range: (mbase, cx.size(&mty)?),
        intrinsic_range: (sbase, cx.size(&sty)?),
        errors: cx.errors,
        error_names: ir.errors.clone(),
        pipeline,
        layouts: cx.layouts.clone(),
        arch,
        draws_random: cx.draws_random.get(),
        two_pipelines,
        slot_names,
        fast: None,
    };
    Ok((prog, cx))
}

/// What the traffic manager of a package with two pipelines reads and writes
/// ([`TwoPipelineMeta`]): the handoff storage, each block's intrinsic fields, the packet paths.
fn two_pipelines(cx: &mut Compiler<'_>, binding: &p4_arch::Binding, shared_base: &[(SharedKind, usize, Type)], loop_port: u32) -> R<TwoPipelineMeta> {
    let (ir, arch) = (cx.ir, binding.arch);
    let mut handoff = Vec::new();
    for (kind, base, ty) in shared_base {
        if *kind == SharedKind::Handoff {
            handoff.push((*base, cx.size(ty)?));
        }
    }
    // Every field of an intrinsic struct among each block's parameters, by role.
    let mut blocks = Vec::with_capacity(binding.blocks.len());
    for b in &binding.blocks {
        let (block, slots) = match b {
            BlockRef::Parser(p) => (&ir.parsers[p.index()].block, cx.parser_vars[p.index()].clone()),
            BlockRef::Control(c) => (&ir.controls[c.index()].block, cx.control_vars[c.index()].clone()),
        };
        let mut fields = [None; MetaRole::COUNT];
        for param in &block.params {
            let (Some(var), Some(&base)) = (block.vars.get(param.index()), slots.get(param.index())) else { continue };
            let Some(TypeDef::Struct { name, fields: members }) = cx.type_def(&var.ty) else { continue };
            if !arch.is_intrinsic_struct(name) {
                continue;
            }
            let (name, members) = (name.clone(), members.clone());
            for (i, f) in members.iter().enumerate() {
                if let Some(role) = arch.role_in(&name, &f.name) {
                    fields[role as usize] = Some(base + cx.field_offset(&var.ty, i as u32)?.0);
                }
            }
        }
        blocks.push(fields);
    }
    use p4_arch::PacketInstance as I;
    let mut paths = Vec::new();
    for kind in [I::Normal, I::Unicast, I::Replica, I::IngressClone, I::EgressClone, I::Resubmitted, I::Recirculated] {
        let value = arch.instance_value_in(ir, kind).ok_or_else(|| crate::DataplaneError::unsupported(format!("{}: the program has no packet path for {kind:?} packets", arch.package)))?;
        paths.push((kind, value));
    }
    let paths = Paths(paths);
    let block = |role| arch.block_index(role).ok_or_else(|| crate::DataplaneError::unsupported(format!("{}: no {role:?} block", arch.package)));
    let roles = [Role::Parser, Role::Ingress, Role::IngressDeparser, Role::EgressParser, Role::Egress, Role::Deparser];
    let mut at = [0; 6];
    for (a, role) in at.iter_mut().zip(roles) {
        *a = block(role)?;
    }
    // What each pipeline's pass zeroes: its blocks' variables, and the handoff storage.
    let handoff_ranges: Vec<(usize, usize)> = handoff.iter().map(|&(b, n)| (b, b + n)).collect();
    let mut zero = [handoff_ranges.clone(), handoff_ranges];
    for (k, &bi) in at.iter().enumerate() {
        let (vars, slots) = match &binding.blocks[bi] {
            BlockRef::Parser(p) => (&ir.parsers[p.index()].block.vars, cx.parser_vars[p.index()].clone()),
            BlockRef::Control(c) => (&ir.controls[c.index()].block.vars, cx.control_vars[c.index()].clone()),
        };
        for (var, base) in vars.iter().zip(slots) {
            let n = cx.size(&var.ty)?;
            zero[k / 3].push((base, base + n));
        }
    }
    for ranges in &mut zero {
        ranges.sort_unstable();
        let mut merged: Vec<(usize, usize)> = Vec::new();
        for &(s, e) in ranges.iter() {
            match merged.last_mut() {
                Some((_, end)) if *end >= s => *end = (*end).max(e),
                _ => merged.push((s, e)),
            }
        }
        *ranges = merged;
    }
    Ok(TwoPipelineMeta { loop_port, handoff, blocks, at, paths, zero, temps_from: cx.next_slot })
}

/// Table `t` as the run time looks it up: its name and the per-entry externs (direct counters
/// and meters) a hit updates; a match kind this dataplane does not match is refused.
fn table(ir: &Program, t: &p4_ir::Table) -> R<TableProg> {
    for k in &t.keys {
        match k.match_kind {
            MatchKind::Exact | MatchKind::Ternary | MatchKind::Lpm | MatchKind::Range | MatchKind::Optional => {}
            // The selector keys only feed an action selector's member choice, so they take no
            // part in matching (the key layout lists them apart).
            MatchKind::Selector if t.implementation.is_some() => {}
            _ => return unsupported(format!("table {}: match kind `selector` outside an action selector, or an unknown match kind", t.name)),
        }
    }
    // What each per-entry extern is, the architecture says.
    let per_entry: Vec<usize> = p4_arch::per_entry_externs(t).map(|e| e.index()).collect();
    let state = |e: usize| {
        let a = p4_arch::of(ir)?;
        Some(a.extern_type(&ir.externs.get(e)?.type_name)?.state)
    };
    let entry_meter = per_entry.iter().copied().find(|e| state(*e) == Some(StateKind::DirectMeter));
    Ok(TableProg { name: t.name.clone(), per_entry, entry_meter, records_hits: t.supports_timeout() })
}

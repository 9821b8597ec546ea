//! The program as the executor sees it before any code is compiled: the frame layout, the
//! pipeline's blocks by role, the intrinsic metadata's slots, and the tables' per-entry externs.

use p4_arch::{DropMarker, Role, SharedKind, StateKind};
use p4_ir::{BlockRef, MatchKind, Program, Type, TypeDef};

use super::{unsupported, Compiler, R};
use crate::fast::exec::{Pipeline, Prog, TableProg};

/// Lays out the frame (every variable of every block, the shared parameters once), finds the
/// pipeline's blocks and intrinsic metadata, and the tables' per-entry externs: what the
/// executor ([`crate::fast`]) compiles the program over.
pub(crate) fn lay_out(ir: &Program, tracing: bool) -> R<(Prog, Compiler<'_>)> {
    // The architecture says which instance plays which block and which parameters are one storage.
    if p4_arch::of(ir).is_none() {
        let known: Vec<String> = p4_arch::ALL.iter().map(|a| format!("{} ({})", a.package, a.name)).collect();
        return unsupported(format!("package `{}`: only {} programs run on this dataplane", ir.main.type_name, known.join(", ")));
    }
    let binding = p4_arch::bind(ir).map_err(crate::DataplaneError::unsupported)?;
    let arch = binding.arch;
    // The pipeline from the block roles: the parser, the controls up to the one playing Ingress
    // (then the traffic manager), up to the one playing Egress (then the after-egress decisions),
    // and the rest.
    let (Some(tm_at), Some(egress_at)) = (arch.block_index(Role::Ingress), arch.block_index(Role::Egress)) else {
        return unsupported(format!("{}: this dataplane needs an {:?} and an {:?} block", arch.package, Role::Ingress, Role::Egress));
    };
    let mut parser = None;
    let mut pipeline = Pipeline { parser: 0, ingress: Vec::new(), egress: Vec::new(), deparse: Vec::new() };
    for (i, b) in binding.blocks.iter().enumerate() {
        match b {
            BlockRef::Parser(p) if i == 0 => parser = Some(p.index()),
            BlockRef::Control(c) if i <= tm_at => pipeline.ingress.push(c.index()),
            BlockRef::Control(c) if i <= egress_at => pipeline.egress.push(c.index()),
            BlockRef::Control(c) => pipeline.deparse.push(c.index()),
            BlockRef::Parser(_) => return unsupported(format!("{}: this dataplane runs one parser, the package's first block", arch.package)),
        }
    }
    let Some(parser) = parser else {
        return unsupported(format!("{}: this dataplane runs one parser, the package's first block", arch.package));
    };
    pipeline.parser = parser;
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
        slot_names,
        fast: None,
    };
    Ok((prog, cx))
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

//! A control block as a pipeline of stages.
//!
//! The control's statements are cut at table applies. Between two applies, statements become one
//! combinational stage (see [`crate::block`]); an apply becomes a lookup whose key is computed
//! from the stage register before it, `LATENCY` delay registers that carry the packet alongside
//! the lookup, and the action dispatch at the start of the next stage. Branches that contain
//! applies are *predicated* rather than taken: the condition is kept in a one-bit local, every
//! statement and lookup inside the branch is guarded by it, and the packet passes through every
//! stage either way — so the pipeline never stalls for control flow and keeps one packet per
//! cycle.

use std::fmt::Write;

use p4_ir::layout::Layouts;
use std::collections::{BTreeMap, BTreeSet};

use p4_ir::{ApplyResult, Expr, ExprKind, ExternId, Span, Stmt, TableId, Value};

use crate::ahead::Ahead;
use crate::block::{BlockGen, HashFn, RegisterKind, COUNTER_HALF_BITS};
use crate::error::{unsupported, Result, RtlError};
use crate::tables::{self, TableHw, TableKind, TableModule, TableOptions};

/// One generated control module.
pub struct ControlModule {
    pub module: String,
    pub text: String,
    /// Registers from input to output.
    pub latency: u32,
    pub tables: Vec<TableHw>,
    /// (stage description, cycles) for the report.
    pub stages: Vec<(String, u32)>,
    pub hashes: Vec<HashFn>,
    /// Whether the control writes the multicast group.
    pub multicast: bool,
    /// Whether it calls `clone`, and the field sets its clones keep (see `BlockGen::kept_sets`).
    pub clones: bool,
    pub clone_span: Option<Span>,
    pub kept_sets: Vec<Vec<String>>,
    /// Whether it calls `truncate`.
    pub truncates: bool,
    /// Whether it calls `resubmit` or `recirculate`.
    pub loops: bool,
    /// Its registers, with their ids in the design's register map.
    pub registers: Vec<crate::RegisterHw>,
    /// Width of its `cp_reg_wdata`/`cp_reg_rdata` ports (0: no registers, no ports).
    pub reg_data_bits: u32,
}

enum Seg {
    Comb {
        code: String,
        regs: Vec<crate::block::RegisterUse>,
    },
    /// Lookups issued together (their keys computed from the same stage register); the packet
    /// waits beside them for the longest one.
    Table {
        tables: Vec<usize>,
        code: String,
    },
    /// Checksum word sums computed from the stage register before the checksum statements that
    /// use them (see [`CtlGen::presum`]): each unit's register and width; one cycle.
    Presum {
        units: Vec<(String, u32)>,
        code: String,
    },
}

struct CtlGen<'a> {
    g: BlockGen<'a>,
    layouts: &'a Layouts,
    segs: Vec<Seg>,
    tables: Vec<TableHw>,
    opts: TableOptions,
    next_word: &'a mut u32,
    /// Whether a statement emitted so far may have set `done_`.
    ended: bool,
    /// `pkt_info_t` flags of packets whose side effects this control must skip (dropped ones, and
    /// resubmitted ones passing egress on their way back).
    skip_dropped: Vec<String>,
    /// Tables looked up as the packet enters the control (see [`prefetchable`]): table id, its
    /// index in `tables`, and the locals that keep its result until the apply.
    prefetched: Vec<(TableId, usize, String, String)>,
    /// Checksum sum registers handed out so far.
    presum_units: usize,
    /// Register arrays (and counters) the current statement stage may access.
    stage_regs: BTreeSet<ExternId>,
}

/// The locals of one table apply.
struct ApplyLocals {
    active: String,
    hit: String,
    action: String,
    run: String,
}

/// Whether `st` (or a statement nested in it) applies a table.
fn has_table(st: &Stmt) -> bool {
    p4_ir::visit::any_stmt(std::slice::from_ref(st), |s| match s {
        Stmt::ApplyTable { .. } | Stmt::SwitchAction { .. } => true,
        Stmt::VarInit { init: Some(e), .. } | Stmt::Assign { rhs: e, .. } => matches!(e.kind, ExprKind::ApplyTable(..)),
        _ => false,
    })
}

impl<'a> CtlGen<'a> {
    fn guard(&self, pred: &Option<String>) -> Option<String> {
        let mut parts = Vec::new();
        if let Some(p) = pred {
            parts.push(p.clone());
        }
        if self.ended {
            parts.push(format!("!{}", self.g.done));
        }
        (!parts.is_empty()).then(|| parts.join(" && "))
    }

    /// Ends a stage: the next one starts from a stage register, with nothing written yet.
    fn push_seg(&mut self, seg: Seg) {
        self.segs.push(seg);
        self.g.stage_writes.clear();
        self.g.stage_input_registered = true;
    }

    fn flush_comb(&mut self) {
        let code = self.g.take_out();
        let stage = self.g.stage;
        let regs = self.g.registers.values().filter(|r| r.stage == Some(stage)).cloned().collect();
        self.push_seg(Seg::Comb { code, regs });
        self.g.stage += 1;
        self.stage_regs.clear();
    }

    /// The control's body, one top-level statement after another, with a stage cut before a
    /// statement that starts on register arrays the stage has not touched: each read-modify-write
    /// then has a stage to itself rather than chaining after another one's compare (paxos: the
    /// promise check, then the learners' vote count), and its index, computed in an earlier stage,
    /// is known as the packet enters, so its reads can be made a cycle ahead
    /// ([`BlockGen::read_ahead`]). The cut is made only where no array is accessed on both sides
    /// of it, since every access to an array must be in one stage.
    ///
    /// Before a cut, what follows and does not need the read-modify-write moves ahead of it
    /// ([`crate::ahead`]).
    fn lower_body(&mut self, body: &[Stmt]) -> Result<()> {
        let effects: Vec<p4_ir::cfg::Effects> =
            body.iter().map(|st| p4_ir::cfg::stmts_effects(self.g.p, std::slice::from_ref(st))).collect();
        let regs: Vec<BTreeSet<ExternId>> = effects.iter().map(externs_of).collect();
        let mut moved = vec![false; body.len()];
        // Assignments of sums whose early terms were added ahead of a cut: the presum and the
        // late terms.
        let mut presums: BTreeMap<usize, (String, Vec<&Expr>)> = BTreeMap::new();
        let mut k = 0;
        while k < body.len() {
            if moved[k] {
                k += 1;
                continue;
            }
            let later: BTreeSet<ExternId> = regs[k..].iter().flatten().copied().collect();
            let fresh = !regs[k].is_empty() && !regs[k].is_subset(&self.stage_regs);
            if fresh && later.is_disjoint(&self.stage_regs) && !self.g.out.is_empty() {
                let summed: BTreeSet<usize> = presums.keys().copied().collect();
                let plan = crate::ahead::plan(self.g.p, self.g.block, body, &effects, k, &moved, &summed);
                if !plan.is_empty() {
                    self.g.line("// moved ahead of the next stage's read-modify-write (crates/p4-rtl/src/ahead.rs)");
                }
                for a in plan {
                    match a {
                        Ahead::Stmt(i) => {
                            self.lower(&body[i..=i], None)?;
                            moved[i] = true;
                        }
                        Ahead::Presum { stmt, early, late } => {
                            let sum = self.sum_ahead(&early)?;
                            presums.insert(stmt, (sum, late));
                        }
                    }
                }
                self.flush_comb();
            }
            if let Some((sum, late)) = presums.remove(&k) {
                self.assign_presum(&body[k], &sum, &late)?;
                self.stage_regs.extend(regs[k].iter().copied());
                k += 1;
                continue;
            }
            // Checksum statements in a row (they touch no register) go down together, so that
            // `presum` can give them one stage for their sums.
            let run = body[k..].iter().take_while(|st| self.split_checksum(st).is_some()).count().max(1);
            self.lower(&body[k..k + run], None)?;
            for r in &regs[k..k + run] {
                self.stage_regs.extend(r.iter().copied());
            }
            k += run;
        }
        Ok(())
    }

    /// The sum of `terms` into a new local, ahead of a cut ([`crate::ahead`]); returns its name.
    fn sum_ahead(&mut self, terms: &[&Expr]) -> Result<String> {
        let w = self.g.width(&terms[0].ty, terms[0].span)?;
        let parts = terms.iter().map(|t| self.g.expr(t)).collect::<Result<Vec<_>>>()?;
        let sum = self.g.local("sum_ahead", crate::types::logic(w));
        self.guarded(&format!("{sum} = {w}'({});", parts.join(" + ")));
        Ok(sum)
    }

    /// Assignment `st` of a sum whose other terms were added ahead of the cut into `sum`.
    fn assign_presum(&mut self, st: &Stmt, sum: &str, late: &[&Expr]) -> Result<()> {
        let (path, ty, span) = match st {
            Stmt::Assign { lhs, rhs, span } => (self.g.lval(lhs)?, &rhs.ty, *span),
            Stmt::VarInit { var, init: Some(rhs), span } => (self.g.var(*var, *span)?, &rhs.ty, *span),
            _ => return unsupported(Span::DUMMY, "a presum of a statement that assigns no sum"),
        };
        let w = self.g.width(ty, span)?;
        let mut parts = late.iter().map(|t| self.g.expr(t)).collect::<Result<Vec<_>>>()?;
        parts.push(sum.to_string());
        self.guarded(&format!("{path} = {w}'({});", parts.join(" + ")));
        self.g.stage_writes.extend(p4_ir::cfg::stmts_effects(self.g.p, std::slice::from_ref(st)).may_writes);
        Ok(())
    }

    /// `line`, under the guard of a top-level statement.
    fn guarded(&mut self, line: &str) {
        match self.guard(&None) {
            Some(c) => self.g.line(format!("if ({c}) {line}")),
            None => self.g.line(line),
        }
    }

    fn lower(&mut self, list: &[Stmt], pred: Option<String>) -> Result<()> {
        // Statements of `list` before this index have their checksum sums issued.
        let mut summed = 0;
        for (k, st) in list.iter().enumerate() {
            if !has_table(st) {
                if k >= summed {
                    summed = k + self.presum(&list[k..])?;
                }
                match self.guard(&pred) {
                    Some(c) => {
                        self.g.open(format!("if ({c}) begin"));
                        self.g.stmt(st)?;
                        self.g.close("end");
                    }
                    None => self.g.stmt(st)?,
                }
                if self.g.may_end(st) {
                    self.ended = true;
                }
                continue;
            }
            match st {
                Stmt::ApplyTable { table, span } => {
                    self.table(*table, &pred, *span)?;
                }
                Stmt::VarInit { var, init: Some(e), span } => {
                    let ExprKind::ApplyTable(t, r) = &e.kind else { unreachable!("has_table") };
                    let (_, hit) = self.table(*t, &pred, *span)?;
                    let path = self.g.var(*var, *span)?;
                    self.assign_result(&path, &hit, *r, &pred);
                }
                Stmt::Assign { lhs, rhs, span } => {
                    let ExprKind::ApplyTable(t, r) = &rhs.kind else { unreachable!("has_table") };
                    let (_, hit) = self.table(*t, &pred, *span)?;
                    let path = self.g.lval(lhs)?;
                    self.assign_result(&path, &hit, *r, &pred);
                }
                Stmt::SwitchAction { table, cases, span } => {
                    let (active, _) = self.table(*table, &pred, *span)?;
                    let t = &self.g.p.tables[table.index()];
                    let action = format!("{}action_", active.trim_end_matches("active_"));
                    let mut listed = Vec::new();
                    let mut preds = Vec::new();
                    for (label, _) in cases {
                        let p = self.g.extra("case", 1);
                        let cond = match label {
                            Some(a) => {
                                let idx = t.effective_actions().iter().position(|x| x.action == *a).ok_or_else(|| {
                                    RtlError::new(*span, "case names an action the table does not have")
                                })?;
                                listed.push(idx);
                                format!("{active} && ({action} == {idx})")
                            }
                            None => {
                                let others: Vec<String> = listed.iter().map(|i| format!("({action} != {i})")).collect();
                                if others.is_empty() {
                                    active.clone()
                                } else {
                                    format!("{active} && {}", others.join(" && "))
                                }
                            }
                        };
                        self.g.line(format!("{p} = {cond};"));
                        preds.push(p);
                    }
                    for ((_, body), p) in cases.iter().zip(preds) {
                        self.lower(body, Some(p))?;
                    }
                }
                Stmt::If { cond, then, otherwise, .. } => {
                    let c = self.g.expr(cond)?;
                    let base = self.guard(&pred).unwrap_or_else(|| "1'b1".into());
                    let pt = self.g.extra("br_then", 1);
                    let pe = self.g.extra("br_else", 1);
                    self.g.line(format!("{pt} = ({base}) && {c};"));
                    self.g.line(format!("{pe} = ({base}) && !{c};"));
                    self.lower(then, Some(pt))?;
                    self.lower(otherwise, Some(pe))?;
                }
                Stmt::SwitchValue { expr, cases, span } => {
                    let x = self.g.expr(expr)?;
                    let base = self.guard(&pred).unwrap_or_else(|| "1'b1".into());
                    let mut seen = Vec::new();
                    let mut preds = Vec::new();
                    for (label, _) in cases {
                        let p = self.g.extra("case", 1);
                        let cond = match label {
                            Some(v) => {
                                let lit = self.g.literal(v, &expr.ty, *span)?;
                                let c = format!("({x} == {lit})");
                                let not_before: String = seen.iter().map(|s: &String| format!(" && !{s}")).collect();
                                seen.push(c.clone());
                                format!("({base}) && {c}{not_before}")
                            }
                            None => {
                                let none: String = seen.iter().map(|s| format!(" && !{s}")).collect();
                                format!("({base}){none}")
                            }
                        };
                        self.g.line(format!("{p} = {cond};"));
                        preds.push(p);
                    }
                    for ((_, body), p) in cases.iter().zip(preds) {
                        self.lower(body, Some(p))?;
                    }
                }
                Stmt::Block(b) => self.lower(b, pred.clone())?,
                Stmt::For { span, .. } => return unsupported(*span, "a table apply inside a `for` loop"),
                _ => return unsupported(Span::DUMMY, "a table apply in this statement"),
            }
            // Some of its writes bypass `BlockGen::stmt` (an apply's result assigned to a
            // variable): all of them count as made in the stage it ends in.
            let fx = p4_ir::cfg::stmts_effects(self.g.p, std::slice::from_ref(st));
            self.g.stage_writes.extend(fx.may_writes);
        }
        Ok(())
    }

    /// A v1model-style checksum statement (`verify_checksum`/`update_checksum` with `csum16`) at
    /// the top of a statement list: its call, and whether it verifies.
    fn split_checksum<'s>(&self, st: &'s Stmt) -> Option<(&'s p4_ir::Call, bool)> {
        let Stmt::Call(call) = st else { return None };
        let p4_ir::Callee::ExternFunction { name, .. } = &call.callee else { return None };
        let verify = match self.g.arch.function(name)?.op {
            p4_arch::ExternOp::VerifyChecksum { payload: false } => true,
            p4_arch::ExternOp::UpdateChecksum { payload: false } => false,
            _ => return None,
        };
        let [_, _, _, algo] = &call.args[..] else { return None };
        let ExprKind::Const(Value::Enum(t, i)) = &algo.expr.kind else { return None };
        let Some(p4_ir::TypeDef::Enum { members, .. }) = self.g.p.types.get(t.index()) else { return None };
        let member = &members.get(*i as usize)?.0;
        (self.g.arch.hash_algorithm(member) == Some(p4_arch::HashAlgorithm::Csum16)).then_some((call, verify))
    }

    /// The checksum statements that start `rest`: their word sums (a tree of adders as deep as the
    /// rest of a stage) are computed in a stage of their own, from the stage register before
    /// them, so the statements themselves only fold and compare or store. Consecutive checksum
    /// statements share that stage while none reads what an earlier one writes. Returns how many
    /// statements of `rest` are covered (0: `rest` does not start with one).
    fn presum(&mut self, rest: &[Stmt]) -> Result<usize> {
        let mut group = Vec::new();
        let mut written: Vec<p4_ir::cfg::Location> = Vec::new();
        for st in rest {
            let Some((call, verify)) = self.split_checksum(st) else { break };
            let fx = p4_ir::cfg::stmts_effects(self.g.p, std::slice::from_ref(st));
            if fx.reads.iter().any(|r| written.iter().any(|w| w.overlaps(r))) {
                break;
            }
            written.extend(fx.may_writes);
            group.push(call);
            // The checksum error it sets is not among the effects: a block that can read it ends
            // the group here.
            if verify && self.g.meta(p4_arch::MetaRole::ChecksumError).is_some() {
                break;
            }
        }
        if group.is_empty() {
            return Ok(0);
        }
        if !self.g.out.is_empty() {
            self.flush_comb();
        }
        let mut units = Vec::new();
        for call in &group {
            let [_, data, _, algo] = &call.args[..] else { unreachable!("split_checksum") };
            let f = self.g.hash_fn(&data.expr, &algo.expr)?;
            let d = self.g.concat(&data.expr)?;
            let reg = format!("csum{}_", self.presum_units);
            self.presum_units += 1;
            self.g.line(format!("{reg}in_ = {}_sum({d});", f.name()));
            units.push((reg.clone(), f.sum_bits()));
            self.g.presums.push((crate::block::call_address(call), reg));
        }
        let code = self.g.take_out();
        self.push_seg(Seg::Presum { units, code });
        Ok(group.len())
    }

    fn assign_result(&mut self, path: &str, hit: &str, r: ApplyResult, pred: &Option<String>) {
        let v = match r {
            ApplyResult::Hit => hit.to_string(),
            ApplyResult::Miss => format!("!{hit}"),
            // The id of the action that ran, set by the dispatch (`<table>_run_`).
            ApplyResult::ActionRun => format!("{}run_", hit.trim_end_matches("hit_")),
        };
        match self.guard(pred) {
            Some(c) => self.g.line(format!("if ({c}) {path} = {v};")),
            None => self.g.line(format!("{path} = {v};")),
        }
    }

    /// Plans the hardware of `table` and its locals; returns its index in `self.tables`.
    fn plan_table(&mut self, table: TableId, span: Span) -> Result<usize> {
        if self.tables.iter().any(|t| t.id == table) {
            return unsupported(
                span,
                format!("table `{}` is applied in two places", self.g.p.tables[table.index()].name),
            );
        }
        let hw = tables::plan(self.g.p, self.layouts, table, &self.opts, self.next_word, span)?;
        self.tables.push(hw);
        Ok(self.tables.len() - 1)
    }

    fn apply_locals(&mut self, index: usize) -> ApplyLocals {
        let hw = &self.tables[index];
        let (name, action_bits) = (hw.sv_name.clone(), hw.action_bits);
        let l = ApplyLocals {
            active: self.g.extra(&format!("{name}_active"), 1),
            hit: self.g.extra(&format!("{name}_hit"), 1),
            action: self.g.extra(&format!("{name}_action"), action_bits),
            run: self.g.extra(&format!("{name}_run"), 32),
        };
        debug_assert_eq!(format!("{}action_", l.active.trim_end_matches("active_")), l.action);
        l
    }

    /// The lookup of table `index`: its key from the current stage, issued when `lookup` holds.
    fn issue(&mut self, index: usize, lookup: &str) -> Result<()> {
        let hw = self.tables[index].clone();
        if hw.kind == TableKind::Keyless {
            return Ok(());
        }
        let t = &self.g.p.tables[hw.id.index()];
        let name = &hw.sv_name;
        let mut parts = Vec::new();
        for f in &self.layouts.keys[hw.id.index()].fields {
            let x = self.g.expr(&t.keys[f.index].expr)?;
            parts.push(if f.is_valid { format!("1'({x})") } else { format!("{}'({x})", f.width) });
        }
        self.g.line(format!("{name}_key = {{{}}};", parts.join(", ")));
        self.g.line(format!("{name}_lookup = {lookup};"));
        Ok(())
    }

    /// Looks up, as the packet enters the control, every table whose key no statement before its
    /// apply can change: the lookup then overlaps whatever runs before the apply, which costs no
    /// stage of its own and keeps a register's read and write in one stage when they lie on both
    /// sides of the apply (paxos: `rnds` is read before `paxos_role` and written by its actions).
    fn prefetch(&mut self, early: &[(TableId, Span)]) -> Result<()> {
        if early.is_empty() {
            return Ok(());
        }
        let mut indices = Vec::new();
        for &(table, span) in early {
            let index = self.plan_table(table, span)?;
            self.issue(index, "s.valid")?;
            indices.push(index);
        }
        let code = self.g.take_out();
        self.push_seg(Seg::Table { tables: indices.clone(), code });
        // Results are kept in locals until the apply, which may lie several stages later.
        for (&(table, _), index) in early.iter().zip(indices) {
            let hw = &self.tables[index];
            let name = hw.sv_name.clone();
            let rb = hw.result_bits();
            let hit = self.g.extra(&format!("{name}_early_hit"), 1);
            let word = self.g.extra(&format!("{name}_early_word"), rb);
            self.g.line(format!("{hit} = {name}_res_hit;"));
            self.g.line(format!("{word} = {};", result_word(&name)));
            self.prefetched.push((table, index, hit, word));
        }
        Ok(())
    }

    /// An apply of `table`: a keyless table or one looked up early runs its action in the current
    /// stage; any other cuts the pipeline for its lookup. Returns the `active` and `hit` locals.
    fn table(&mut self, table: TableId, pred: &Option<String>, span: Span) -> Result<(String, String)> {
        let guard = self.guard(pred).unwrap_or_else(|| "1'b1".into());
        if let Some((_, index, hit, word)) = self.prefetched.iter().find(|p| p.0 == table).cloned() {
            let l = self.apply_locals(index);
            self.g.line(format!("{} = s.valid && ({guard});", l.active));
            self.dispatch(index, &l, &hit, &word, span)?;
            return Ok((l.active, l.hit));
        }
        let index = self.plan_table(table, span)?;
        let hw = self.tables[index].clone();
        let name = hw.sv_name.clone();
        let l = self.apply_locals(index);
        if hw.kind == TableKind::Keyless {
            self.g.line(format!("{} = s.valid && ({guard});", l.active));
            self.dispatch(index, &l, "1'b0", &format!("{name}_default"), span)?;
            return Ok((l.active, l.hit));
        }
        self.flush_comb();
        // The lookup stage: whether the apply runs for this packet, and the key.
        self.g.line(format!("{} = s.valid && ({guard});", l.active));
        self.issue(index, &l.active)?;
        let code = self.g.take_out();
        self.push_seg(Seg::Table { tables: vec![index], code });
        // The next stage starts with the action: the result word (entry's or default), then the
        // action it names.
        self.dispatch(index, &l, &format!("{name}_res_hit"), &result_word(&name), span)?;
        Ok((l.active, l.hit))
    }

    /// The action dispatch of an apply: `hit` and `word` ({action index, action data}) are the
    /// lookup's result.
    fn dispatch(&mut self, index: usize, l: &ApplyLocals, hit: &str, word: &str, span: Span) -> Result<()> {
        let hw = self.tables[index].clone();
        let t = &self.g.p.tables[hw.id.index()];
        let name = &hw.sv_name;
        let data = format!("{name}_data");
        let (rb, db) = (hw.result_bits(), hw.data_bits);
        // Whatever the table's actions may write counts as written before their statements run.
        self.g.stage_writes.extend(p4_ir::cfg::table_effects(self.g.p, hw.id).may_writes);
        self.g.line(format!("{name}_word = {word};"));
        self.g.line(format!("{data} = {name}_word[{}:0];", db - 1));
        self.g.open(format!("if ({}) begin  // {}", l.active, t.name));
        self.g.line(format!("{} = {hit};", l.hit));
        if let (Some(dc), true) = (t.direct_counter, hw.slot_bits > 0) {
            let slot = format!("{name}_word[{}:0]", hw.slot_bits - 1);
            self.g.direct_count(dc, &hw.name, u64::from(hw.entries), &slot, hit, span)?;
        }
        self.g.line(format!("{} = {name}_word[{}:{db}];", l.action, rb - 1));
        self.g.line(format!("case ({})", l.action));
        for (i, ta) in t.effective_actions().iter().enumerate() {
            let a = &self.g.p.actions[ta.action.index()];
            let layout = &self.layouts.actions[ta.action.index()];
            self.g.open(format!("{}'d{i}: begin", hw.action_bits));
            self.g.line(format!("{} = 32'd{};", l.run, ta.action.index()));
            let directional: Vec<_> =
                a.params.iter().filter(|p| !matches!(p.direction, p4_ir::Direction::None)).collect();
            for (p, arg) in directional.iter().zip(&ta.bound_args) {
                if matches!(p.direction, p4_ir::Direction::In | p4_ir::Direction::InOut) {
                    let path = self.g.var(p.var, span)?;
                    let v = self.g.expr(arg)?;
                    self.g.line(format!("{path} = {v};"));
                }
            }
            for pl in &layout.params {
                let p = &a.params[pl.index];
                let path = self.g.var(p.var, span)?;
                self.g.line(format!("{path} = {data}[{} -: {}];", db - 1 - pl.bit_offset, pl.width));
            }
            if a.body.iter().any(|s| matches!(s, Stmt::Return(..))) {
                return unsupported(span, format!("`return` inside action `{}`", a.name));
            }
            self.g.stmts(&a.body)?;
            for (p, arg) in directional.iter().zip(&ta.bound_args) {
                if matches!(p.direction, p4_ir::Direction::Out | p4_ir::Direction::InOut)
                    && !matches!(arg.kind, ExprKind::DontCare)
                {
                    let path = self.g.var(p.var, span)?;
                    let target = self.g.lval(arg)?;
                    self.g.line(format!("{target} = {path};"));
                }
            }
            if a.body.iter().any(|s| self.g.may_end(s)) {
                self.ended = true;
            }
            self.g.close("end");
        }
        self.g.line("default: ;");
        self.g.line("endcase");
        self.g.close("end");
        Ok(())
    }
}

/// The extern instances with state (register arrays, counters, meters) that `st` may access,
/// through the actions it calls and the tables it applies too.
fn registers_of(p: &p4_ir::Program, st: &Stmt) -> BTreeSet<ExternId> {
    externs_of(&p4_ir::cfg::stmts_effects(p, std::slice::from_ref(st)))
}

/// The extern instances (register arrays, counters) whose state `fx` reads or writes.
fn externs_of(fx: &p4_ir::cfg::Effects) -> BTreeSet<ExternId> {
    fx.reads.iter().chain(&fx.may_writes).filter_map(|l| l.as_extern()).collect()
}

/// A lookup's result word {action index, action data}: the entry's on a hit, else the default.
fn result_word(table: &str) -> String {
    format!("({table}_res_hit ? {table}_res_data : {table}_default)")
}

/// The tables of control `cid` that can be looked up as the packet enters it: applied once, keyed (a
/// keyless table needs no lookup), and with a key that no statement before the apply may write
/// (every definition reaching the apply of every location the key reads is the control's input).
fn prefetchable(p: &p4_ir::Program, cid: p4_ir::ControlId) -> Vec<TableId> {
    let graph = p4_ir::cfg::ControlGraph::build(p, cid);
    let applies = graph.table_applies();
    let mut out = Vec::new();
    for &(node, table) in &applies {
        if applies.iter().filter(|(_, t)| *t == table).count() != 1 || p.tables[table.index()].keys.is_empty() {
            continue;
        }
        let keys = p4_ir::cfg::table_key_reads(p, table);
        if keys.iter().all(|loc| graph.reaching_writes(node, loc).nodes.is_empty()) {
            out.push(table);
        }
    }
    out
}

/// A table's signals, default-action register and lookup memory; its result reaches
/// `<name>_res_hit`/`<name>_res_data` `delay` enabled cycles after the memory gives it.
fn table_decls(out: &mut String, g: &BlockGen, layouts: &Layouts, t: &TableHw, delay: u32) -> Result<()> {
    let name = &t.sv_name;
    let _ = writeln!(out, "    // table {} ({:?}, {} entries)", t.name, t.kind, t.entries);
    let def = default_word(g, t, layouts, t.id)?;
    let rb = t.result_bits();
    let _ =
        writeln!(out, "    logic [{}:0] {name}_default, {name}_default_reg;\n    logic {name}_default_set;", rb - 1);
    let _ = writeln!(out, "    logic [{}:0] {name}_data;\n    logic [{}:0] {name}_word;", t.data_bits - 1, rb - 1);
    let data_lo = t.regs.data * 32;
    let cmd_lo = t.regs.cmd * 32;
    let _ = writeln!(out, "    always_ff @(posedge clk) begin");
    let _ = writeln!(out, "        if (rst) {name}_default_set <= 1'b0;");
    let _ = writeln!(out, "        else if ({name}_cmd && {name}_regs[{}]) begin", cmd_lo + 1);
    let _ = writeln!(
        out,
        "            {name}_default_set <= 1'b1;\n            {name}_default_reg <= {name}_regs[{} +: {rb}];",
        data_lo
    );
    let _ = writeln!(out, "        end\n    end");
    let _ = writeln!(out, "    assign {name}_default = {name}_default_set ? {name}_default_reg : {def};");
    // What the memory's result ports connect to.
    let mut res = format!("{name}_res");
    if t.kind != TableKind::Keyless {
        let kw = t.key_bits;
        let _ = writeln!(out, "    logic [{}:0] {name}_key;\n    logic {name}_lookup;", kw - 1);
        let _ = writeln!(out, "    logic {name}_res_valid, {name}_res_hit;\n    logic [{}:0] {name}_res_data;", rb - 1);
        if delay > 0 {
            // Each stage of the delay takes the result at the enabled edge that ends its showing.
            let w = rb + 1;
            res = format!("{name}_mem");
            let _ = writeln!(out, "    logic {res}_hit;\n    logic [{}:0] {res}_data;", rb - 1);
            let _ = writeln!(out, "    logic [{}:0] {name}_res_pipe;", delay * w - 1);
            let shift = if delay > 1 { format!("{name}_res_pipe[{}:0], ", (delay - 1) * w - 1) } else { String::new() };
            let _ = writeln!(out, "    always_ff @(posedge clk) if (ce) {name}_res_pipe <= {{{shift}{res}_hit, {res}_data}};");
            let _ = writeln!(out, "    assign {{{name}_res_hit, {name}_res_data}} = {name}_res_pipe[{} +: {w}];", (delay - 1) * w);
        }
    }
    let wr = format!("{name}_cmd && !{name}_regs[{}]", cmd_lo + 1);
    let key = format!("{name}_regs[{} +: {}]", t.regs.key * 32, t.key_bits);
    let mask = format!("{name}_regs[{} +: {}]", t.regs.mask * 32, t.key_bits);
    let data = format!("{name}_regs[{} +: {rb}]", data_lo);
    let valid = format!("{name}_regs[{}]", cmd_lo);
    let index = format!("{name}_regs[{} +: 32]", t.regs.index * 32);
    match t.kind {
        TableKind::Keyless => {}
        TableKind::ExactHash => {
            let bkt = bits_for_index(t.buckets);
            let way = bits_for_index(t.ways);
            let _ = writeln!(out, "    logic [{}:0] {name}_slot;\n    assign {name}_slot = {index};", 31);
            let _ = writeln!(out, "    /* verilator lint_off PINCONNECTEMPTY */");
            let _ = writeln!(
                    out,
                    "    p4f_table_exact_hash #(.KEY_W({}), .DATA_W({rb}), .BUCKETS({}), .WAYS({})) u_{name} (\n        .clk(clk), .rst(rst), .ce(ce), .init_done(),\n        .lookup_valid({name}_lookup), .lookup_key({name}_key),\n        .result_valid({name}_res_valid), .result_hit({res}_hit), .result_index(), .result_data({res}_data),\n        .wr_en({wr}), .wr_bucket({name}_slot[{}:{}]), .wr_way({name}_slot[{}:0]), .wr_valid({valid}), .wr_key({key}), .wr_data({data})\n    );",
                    t.key_bits, t.buckets, t.ways, bkt + way - 1, way, way - 1
                );
            let _ = writeln!(out, "    /* verilator lint_on PINCONNECTEMPTY */");
        }
        _ => {
            let iw = bits_for_index(t.entries);
            let _ = writeln!(out, "    logic [31:0] {name}_slot;\n    assign {name}_slot = {index};");
            let _ = writeln!(out, "    /* verilator lint_off PINCONNECTEMPTY */");
            // The block-RAM table takes a write only when ready (an update takes it over a thousand
            // cycles); the register file holds every control write while it is busy, so the
            // command pulse always finds it ready.
            let (module, ready) = if t.module == TableModule::TcamBram {
                let _ = writeln!(out, "    logic {name}_wr_ready;\n    assign {name}_busy = !{name}_wr_ready;");
                ("p4f_table_tcam_bram", format!(".wr_ready({name}_wr_ready), "))
            } else {
                ("p4f_table_tcam", String::new())
            };
            let _ = writeln!(
                    out,
                    "    {module} #(.KEY_W({}), .DATA_W({rb}), .ENTRIES({})) u_{name} (\n        .clk(clk), .rst(rst), .ce(ce),\n        .lookup_valid({name}_lookup), .lookup_key({name}_key),\n        .result_valid({name}_res_valid), .result_hit({res}_hit), .result_index(), .result_data({res}_data),\n        {ready}.wr_en({wr}), .wr_index({name}_slot[{}:0]), .wr_valid({valid}), .wr_key({key}), .wr_mask({mask}), .wr_data({data})\n    );",
                    t.key_bits, t.entries, iw - 1
                );
            let _ = writeln!(out, "    /* verilator lint_on PINCONNECTEMPTY */");
        }
    }
    Ok(())
}

/// The default action as a constant result word `{action index, data}`.
fn default_word(g: &BlockGen, hw: &TableHw, layouts: &Layouts, table: TableId) -> Result<String> {
    let t = &g.p.tables[table.index()];
    let Some(call) = &t.default_action else {
        // No default: NoAction-like (the first action with no data); index 0 is what BMv2 uses too
        // only when listed, so refuse rather than guess.
        return Ok(format!("{}'d0", hw.result_bits()));
    };
    let idx = t.effective_actions().iter().position(|a| a.action == call.action).ok_or_else(|| {
        RtlError::global(format!("table `{}`: its default action is not in its actions list", t.name))
    })?;
    let layout = &layouts.actions[call.action.index()];
    let a = &g.p.actions[call.action.index()];
    let mut data = num_bigint::BigInt::from(0);
    for pl in &layout.params {
        let _ = &a.params[pl.index];
        // Default action arguments are the directionless ones, in order.
        let arg = call
            .args
            .get(pl.index)
            .or_else(|| call.args.get(layout.params.iter().position(|x| x.index == pl.index).unwrap_or(0)));
        let v = match arg.map(|e| &e.kind) {
            Some(ExprKind::Const(Value::Bits { value, .. } | Value::InfInt(value))) => value.clone(),
            Some(ExprKind::Const(Value::Bool(b))) => num_bigint::BigInt::from(*b as u8),
            None => num_bigint::BigInt::from(0),
            _ => {
                return unsupported(
                    t.default_action.as_ref().map(|c| c.args.first().map(|e| e.span)).flatten().unwrap_or(Span::DUMMY),
                    "a default action argument that is not a constant",
                )
            }
        };
        let shift = hw.data_bits - pl.bit_offset - pl.width;
        let m = (num_bigint::BigInt::from(1) << pl.width) - 1;
        data |= (v & m) << shift;
    }
    let word = (num_bigint::BigInt::from(idx) << hw.data_bits) | data;
    Ok(crate::block::sized(&word, hw.result_bits()))
}

/// Generates the module `<prefix>_<role>` for `control`.
#[allow(clippy::too_many_arguments)]
pub fn generate(
    p: &p4_ir::Program,
    tm: &crate::types::TypeMap,
    arch: &p4_arch::Architecture,
    layouts: &Layouts,
    prefix: &str,
    role: &str,
    cid: p4_ir::ControlId,
    shared: &[crate::block::HeldParam],
    pipeline_meta: &[(String, String)],
    opts: TableOptions,
    next_word: &mut u32,
    next_register: &mut u32,
    skip_dropped: &[&str],
) -> Result<ControlModule> {
    let control = &p.controls[cid.index()];
    let mut g = BlockGen::new(p, tm, arch, &control.block, shared)?;
    g.pipeline_meta = pipeline_meta.to_vec();
    g.clone_here = role == "ingress" || role == "egress";
    g.loop_here = match role {
        "ingress" => Some(true),
        "egress" => Some(false),
        _ => None,
    };
    let mut c = CtlGen {
        g,
        layouts,
        segs: Vec::new(),
        tables: Vec::new(),
        opts,
        next_word,
        ended: false,
        skip_dropped: skip_dropped.iter().map(|f| f.to_string()).collect(),
        prefetched: Vec::new(),
        presum_units: 0,
        stage_regs: BTreeSet::new(),
    };
    let early: Vec<(TableId, Span)> = prefetchable(p, cid)
        .into_iter()
        .map(|t| (t, p.tables[t.index()].keys.first().map(|k| k.expr.span).unwrap_or(Span::DUMMY)))
        .collect();
    c.prefetch(&early)?;
    c.lower(&control.init, None)?;
    c.stage_regs.extend(control.init.iter().flat_map(|st| registers_of(p, st)));
    c.lower_body(&control.body)?;
    c.flush_comb();
    let module = format!("{prefix}_{role}");
    let mut out = String::new();
    let pkg = format!("{prefix}_pkg");
    let _ = writeln!(
        out,
        "// {role}: P4 control `{}`, generated by p4forge. One packet per cycle; {} stages.",
        control.block.name,
        c.segs.len()
    );
    let _ = writeln!(out, "`default_nettype none\n");
    let _ = writeln!(out, "// Stage registers carry the whole packet state; each stage reads only part of it.");
    let _ = writeln!(out, "/* verilator lint_off UNUSEDSIGNAL */");
    let _ = writeln!(out, "module {module}\n    import {pkg}::*;\n(");
    let _ = writeln!(out, "    input  wire logic clk,\n    input  wire logic rst,\n    input  wire logic ce,");
    let _ = writeln!(out, "    input  wire logic in_valid,\n    input  wire phv_t in_phv,");
    for t in &c.tables {
        let _ = writeln!(out, "    input  wire logic [{}:0] {}_regs,", t.regs.words * 32 - 1, t.sv_name);
        let _ = writeln!(out, "    input  wire logic {}_cmd,", t.sv_name);
        if t.module == TableModule::TcamBram {
            let _ = writeln!(out, "    output logic {}_busy,  // an entry update is under way", t.sv_name);
        }
    }
    // Registers, as the control plane sees them: ids in the design's register map.
    let mut registers = Vec::new();
    for (id, r) in &c.g.registers {
        registers.push((
            r.name.clone(),
            crate::RegisterHw {
                name: p.externs[id.index()].name.clone(),
                kind: r.kind,
                table: r.table.clone(),
                id: *next_register,
                width: r.width,
                size: r.size,
                access: None,
            },
        ));
        *next_register += 1;
    }
    let reg_data_bits = registers.iter().map(|(_, r)| r.width.div_ceil(32) * 32).max().unwrap_or(0);
    if reg_data_bits > 0 {
        let _ = writeln!(
            out,
            "    // Control-plane access to the registers (P4 `register` arrays): select, index, data, write."
        );
        let _ = writeln!(out, "    input  wire logic [15:0] cp_reg_sel,\n    input  wire logic [31:0] cp_reg_index,\n    input  wire logic [{0}:0] cp_reg_wdata,\n    input  wire logic cp_reg_we,\n    output logic [{0}:0] cp_reg_rdata,", reg_data_bits - 1);
    }
    let _ = writeln!(out, "    output logic out_valid,\n    output phv_t out_phv\n);");
    // Locals and the stage type.
    let _ = writeln!(out, "    typedef struct packed {{");
    for (name, decl) in &c.g.locals {
        let _ = writeln!(out, "        {decl} {name};");
    }
    let _ = writeln!(out, "    }} locals_t;\n");
    let _ = writeln!(out, "    typedef struct packed {{\n        logic valid;\n        phv_t phv;\n        locals_t l;\n    }} stage_t;\n");
    // Registers (extern arrays).
    for r in c.g.registers.values() {
        let _ = writeln!(out, "    // register {}", r.name);
        let bits = r.storage_bits();
        let _ = writeln!(out, "    logic [{}:0] {} [0:{}];", bits - 1, r.name, r.size - 1);
        let _ = writeln!(
            out,
            "    logic {}_we;\n    logic [31:0] {}_wa;\n    logic [{}:0] {}_wd;",
            r.name,
            r.name,
            bits - 1,
            r.name
        );
        let reset = if r.initial == 0 { "'0".to_string() } else { format!("{bits}'h{:x}", r.initial) };
        let _ = writeln!(out, "    initial for (int i = 0; i < {}; i++) {}[i] = {reset};", r.size, r.name);
        if r.kind == RegisterKind::Counter {
            let (name, ib) = (&r.name, bits_for_index(r.size as u32) - 1);
            let _ = writeln!(out, "    // the counter's high halves, and the carries out of the low halves the stage wrote");
            let _ = writeln!(out, "    logic [{}:0] {name}_hi [0:{}];", COUNTER_HALF_BITS - 1, r.size - 1);
            let _ = writeln!(out, "    initial for (int i = 0; i < {}; i++) {name}_hi[i] = '0;", r.size);
            let _ = writeln!(out, "    logic [1:0] {name}_wc, {name}_cc;\n    logic [{ib}:0] {name}_ci;");
        }
        let _ = writeln!(out);
        for a in c.g.aheads.iter().filter(|a| a.array == r.name) {
            let _ = writeln!(out, "    logic [{}:0] {};  // a cell read a cycle ahead", r.storage_bits() - 1, a.reg);
        }
    }
    // Tables looked up together wait for the slowest: a faster one's result is delayed to meet it.
    let mut delay = vec![0u32; c.tables.len()];
    for seg in &c.segs {
        if let Seg::Table { tables: group, .. } = seg {
            let lat = group.iter().map(|&t| c.tables[t].latency).max().unwrap_or(0);
            for &t in group {
                delay[t] = lat - c.tables[t].latency;
            }
        }
    }
    for (t, &delay) in c.tables.iter().zip(&delay) {
        table_decls(&mut out, &c.g, layouts, t, delay)?;
    }
    // Stage registers.
    let mut n = 0u32; // next stage register index
    let _ = writeln!(out, "    stage_t st_0;");
    let _ = writeln!(out, "    assign st_0 = {{in_valid, in_phv, locals_t'(0)}};\n");
    let mut stages = Vec::new();
    // What the last stage register takes at each edge (the next stage's input one cycle early).
    let mut feed = String::new();
    let mut comb = 0usize; // statement stages so far
    for seg in &c.segs {
        match seg {
            Seg::Comb { code, regs } => {
                let (i, o) = (n, n + 1);
                let _ = writeln!(out, "    // stage {o}: statements");
                let _ = writeln!(out, "    stage_t st_{o}, nx_{o};");
                let _ = writeln!(out, "    always_comb begin : stage_{o}");
                let _ = writeln!(out, "        stage_t s;");
                let _ = writeln!(out, "        s = st_{i};");
                for r in regs {
                    let _ = writeln!(out, "        {0}_we = 1'b0; {0}_wa = '0; {0}_wd = '0;", r.name);
                    if r.kind == RegisterKind::Counter {
                        let _ = writeln!(out, "        {0}_wc = 2'b00;", r.name);
                    }
                }
                out.push_str(code);
                let _ = writeln!(out, "        nx_{o} = s;");
                let _ = writeln!(out, "    end");
                let _ = writeln!(out, "    always_ff @(posedge clk) begin");
                let _ = writeln!(out, "        if (rst) st_{o}.valid <= 1'b0;");
                let _ = writeln!(out, "        else if (ce) st_{o} <= nx_{o};");
                let _ = writeln!(out, "    end");
                for r in regs {
                    let gate: String = c.skip_dropped.iter().map(|f| format!(" && !st_{i}.phv.pi.{f}")).collect();
                    let ib = bits_for_index(r.size as u32) - 1;
                    let (cp, sel) = match registers.iter().find(|(n, _)| *n == r.name) {
                        Some((_, hw)) if reg_data_bits > 0 => (true, hw.id),
                        _ => (false, 0),
                    };
                    let cp_hit = format!("cp_reg_we && cp_reg_sel == 16'd{sel}");
                    let write = format!("st_{i}.valid{gate} && {}_we", r.name);
                    let _ = writeln!(out, "    always_ff @(posedge clk)");
                    let counter = r.kind == RegisterKind::Counter;
                    if cp {
                        // A control-plane write goes first (the control plane writes between packets).
                        let low = if counter { "{cp_reg_wdata[95:64], cp_reg_wdata[31:0]}".to_string() } else { format!("cp_reg_wdata[{}:0]", r.width - 1) };
                        let _ = writeln!(out, "        if ({cp_hit}) {0}[cp_reg_index[{ib}:0]] <= {low};\n        else", r.name);
                    }
                    let _ = writeln!(out, "        if (ce && {write}) {0}[{0}_wa[{ib}:0]] <= {0}_wd;", r.name);
                    if counter {
                        counter_carries(&mut out, &r.name, ib, &write, cp.then_some(cp_hit.as_str()));
                    }
                    for a in c.g.aheads.iter().filter(|a| a.stage == comb && a.array == r.name) {
                        let idx = crate::block::from_stage(&a.index, &feed);
                        let inr = crate::block::in_range(&idx, r.size);
                        let (name, w) = (&r.name, r.storage_bits());
                        let _ = writeln!(out, "    // {name}[{}] read as the packet enters stage {o}", a.index);
                        let _ = writeln!(out, "    always_ff @(posedge clk)");
                        let mut taken = String::new();
                        if cp {
                            let _ = writeln!(
                                out,
                                "        if ({cp_hit} && cp_reg_index[{ib}:0] == {}'({idx})) {} <= {inr} ? cp_reg_wdata[{}:0] : '0;\n        else",
                                ib + 1,
                                a.reg,
                                w - 1
                            );
                            taken = format!("!({cp_hit}) && ");
                        }
                        let _ = writeln!(
                            out,
                            "        if (ce) {} <= ({taken}{write} && {name}_wa == 32'({idx})) ? {name}_wd : ({inr} ? {name}[{}'({idx})] : {w}'d0);",
                            a.reg,
                            ib + 1
                        );
                    }
                }
                let _ = writeln!(out);
                stages.push((format!("{role} stage {o}"), 1));
                n = o;
                feed = format!("nx_{o}");
                comb += 1;
            }
            Seg::Table { tables: group, code } => {
                let first = &c.tables[group[0]].sv_name;
                let names: Vec<&str> = group.iter().map(|&t| c.tables[t].name.as_str()).collect();
                let lat = group.iter().map(|&t| c.tables[t].latency).max().unwrap_or(0);
                let resets: Vec<String> = group
                    .iter()
                    .filter(|&&t| c.tables[t].kind != TableKind::Keyless)
                    .map(|&t| format!("{0}_lookup = 1'b0; {0}_key = '0;", c.tables[t].sv_name))
                    .collect();
                let what = format!("lookup of {}", names.join(", "));
                (n, feed) = wait_stage(&mut out, n, &format!("{first}_issue"), &what, lat.max(1), &resets, code);
                stages.push((format!("{role} table {}", names.join(", ")), lat.max(1)));
            }
            Seg::Presum { units, code } => {
                for (u, w) in units {
                    let _ = writeln!(out, "    logic [{}:0] {u}in_, {u};", w - 1);
                    let _ = writeln!(out, "    always_ff @(posedge clk) if (ce) {u} <= {u}in_;");
                }
                let resets: Vec<String> = units.iter().map(|(u, _)| format!("{u}in_ = '0;")).collect();
                let issue = format!("{}sums", units[0].0);
                (n, feed) = wait_stage(&mut out, n, &issue, "checksum word sums", 1, &resets, code);
                stages.push((format!("{role} checksum sums"), 1));
            }
        }
    }
    let _ = writeln!(out, "    assign out_valid = st_{n}.valid;\n    assign out_phv = st_{n}.phv;");
    if reg_data_bits > 0 {
        let _ = writeln!(out, "    always_comb begin\n        cp_reg_rdata = '0;");
        for (sv, hw) in &registers {
            let ib = bits_for_index(hw.size as u32) - 1;
            let at = format!("[cp_reg_index[{ib}:0]]");
            // A counter's cell joins its halves (see COUNTER_HALF_BITS). For the cycle in which a
            // carry is on its way the cell reads 2^32 short; a cell read in 32-bit words is not
            // atomic under traffic in any case.
            let cell = match hw.kind {
                RegisterKind::Counter => format!("{{{sv}_hi{at}[63:32], {sv}{at}[63:32], {sv}_hi{at}[31:0], {sv}{at}[31:0]}}"),
                RegisterKind::Register => format!("{sv}{at}"),
            };
            let _ = writeln!(out, "        if (cp_reg_sel == 16'd{}) cp_reg_rdata = {reg_data_bits}'({cell});", hw.id);
        }
        let _ = writeln!(out, "    end");
    }
    let _ = writeln!(out, "endmodule\n/* verilator lint_on UNUSEDSIGNAL */");
    let _ = writeln!(out, "`default_nettype wire");
    let hashes = c.g.hashes.keys().copied().collect();
    let registers = registers.into_iter().map(|(_, r)| r).collect();
    Ok(ControlModule {
        module,
        text: out,
        latency: n,
        tables: c.tables,
        stages,
        hashes,
        multicast: c.g.multicast,
        clones: c.g.clones,
        clone_span: c.g.clone_span,
        kept_sets: c.g.kept_sets.clone(),
        truncates: c.g.truncates,
        loops: c.g.loops,
        registers,
        reg_data_bits,
    })
}

/// A stage whose combinational part (`code`, run on `s`, a copy of stage register `st_<n>`, after
/// the `resets` lines) starts work that takes `cycles`, and the stage registers the packet waits in
/// meanwhile. Returns the index of the last of them, and what that one takes at each edge.
fn wait_stage(out: &mut String, mut n: u32, issue: &str, what: &str, cycles: u32, resets: &[String], code: &str) -> (u32, String) {
    let i = n;
    let _ = writeln!(out, "    // {what} in stages {}..{}", i + 1, i + cycles);
    // Declared before the block that drives it (SystemVerilog wants declaration before use).
    let _ = writeln!(out, "    stage_t nx_{issue};");
    let _ = writeln!(out, "    always_comb begin : {issue}");
    let _ = writeln!(out, "        stage_t s;\n        s = st_{i};");
    for r in resets {
        let _ = writeln!(out, "        {r}");
    }
    out.push_str(code);
    let _ = writeln!(out, "        nx_{issue} = s;");
    let _ = writeln!(out, "    end");
    let mut prev = format!("nx_{issue}");
    let mut feed = prev.clone();
    for k in 0..cycles {
        let o = n + 1;
        feed = prev.clone();
        let _ = writeln!(out, "    stage_t st_{o};  // {what}, cycle {}", k + 1);
        let _ = writeln!(out, "    always_ff @(posedge clk) begin\n        if (rst) st_{o}.valid <= 1'b0;\n        else if (ce) st_{o} <= {prev};\n    end");
        prev = format!("st_{o}");
        n = o;
    }
    let _ = writeln!(out);
    (n, feed)
}

/// Bits to index `n` things.
pub fn bits_for_index(n: u32) -> u32 {
    if n <= 1 {
        1
    } else {
        32 - (n - 1).leading_zeros()
    }
}

/// The process that takes the carries out of counter `name`'s low halves (written by the stage
/// whose write condition is `write`) into its high halves a cycle later. A control-plane write
/// (`cp_hit`) writes both halves; it cancels a carry on its way to the same cell and delays one to
/// another cell (the stage's own write is refused in that cycle, so no new carry comes).
fn counter_carries(out: &mut String, name: &str, ib: u32, write: &str, cp_hit: Option<&str>) {
    let _ = writeln!(out, "    always_ff @(posedge clk) begin");
    let _ = writeln!(out, "        if (rst) {name}_cc <= 2'b00;");
    if let Some(cp_hit) = cp_hit {
        let _ = writeln!(out, "        else if ({cp_hit}) begin if ({name}_ci == cp_reg_index[{ib}:0]) {name}_cc <= 2'b00; end");
    }
    let _ = writeln!(out, "        else begin {name}_cc <= (ce && {write}) ? {name}_wc : 2'b00; {name}_ci <= {name}_wa[{ib}:0]; end");
    let _ = writeln!(out, "    end");
    let _ = writeln!(out, "    always_ff @(posedge clk)");
    if let Some(cp_hit) = cp_hit {
        let _ = writeln!(out, "        if ({cp_hit}) {name}_hi[cp_reg_index[{ib}:0]] <= {{cp_reg_wdata[127:96], cp_reg_wdata[63:32]}};\n        else");
    }
    let _ = writeln!(
        out,
        "        if ({name}_cc != 2'b00) {name}_hi[{name}_ci] <= {{{name}_hi[{name}_ci][63:32] + 32'({name}_cc[1]), {name}_hi[{name}_ci][31:0] + 32'({name}_cc[0])}};"
    );
}

//! `flatten-locals`: local variables of struct or header type become one scalar variable per field,
//! plus one `bool` per header for its validity; whole struct/header assignments become field-by-field
//! assignments (seed P4FPGA §3.3, "turn headers and structs into scalar fields"). Why: a hardware
//! generator allocates one register per scalar and one wire per field copy, and every later analysis
//! (def-use, parallel actions, dead code) sees single storage locations instead of aggregates.
//!
//! - A local (`local`/`temp` of a parser or control, inlined parameters included) of a struct or
//!   header type whose fields are scalars (`bit`, `int`, `bool`, `error`, enums), nested such structs
//!   and headers, or other values kept whole (header stacks, unions, tuples: one variable each)
//!   becomes `v.f` variables (`v.h.f` for nested ones) and `v.valid` for a header's validity. The old
//!   variable is removed from the frame. `v.isValid()` reads `v.valid`; `v.setValid()` writes it;
//!   `v.setInvalid()` clears it and zeroes the fields (the dataplane's `setInvalid` zeroes the header).
//! - An assignment of a whole struct or header to fixed storage (no run-time index, not a union
//!   member) is split: `hdr.a = hdr.b` becomes
//!   `if (hdr.b.isValid()) { hdr.a.setValid(); } else { hdr.a.setInvalid(); } hdr.a.f = hdr.b.f; ...`.
//!   Copying an invalid header makes the target invalid (spec §8.17); the dataplane copies the stored
//!   field values as well, and the split does the same (validity first: `setInvalid` zeroes the fields,
//!   the field copies then restore the source's). `h = {#}` on a parameter stays `h.setInvalid()`.
//!   Struct/list expressions (`{a, b}`) are split per field. A right-hand side that is not storage or
//!   a list (a call, `?:`, a cast, a run-time index) is first evaluated into a whole temporary. If a
//!   field copy would read something an earlier one of the same assignment wrote (`s = {s.b, s.a}`),
//!   all values are first read into temporaries.
//! - Block parameters keep their shape (the architecture owns them); only copies into and out of them
//!   are split. A local used whole anywhere else (passed to an extern, `emit`, an action argument,
//!   `==`, a `select` key, a sub-block apply) is left as it is, as are header stacks and unions.

use crate::util::{bodies, body_mut, fresh_var, has_effects, is_static_place, may_overlap, vars_mut};
use crate::{Pass, PassError};
use p4_ir::visit::{
    operands, walk_call, walk_expr, walk_expr_mut, walk_stmt, walk_stmt_mut, walk_table_mut, walk_transition_mut,
    Outermost, Visit, VisitMut,
};
use p4_ir::{
    BlockRef, Builtin, Call, Callee, Expr, ExprKind, FieldDef, Program, Span, Stmt, Type, TypeDef, Value, Var, VarId,
    VarKind,
};
use std::collections::{HashMap, HashSet};

pub const NAME: &str = "flatten-locals";

pub struct FlattenLocals;

impl Pass for FlattenLocals {
    fn name(&self) -> &'static str {
        NAME
    }

    fn run(&self, program: &mut Program) -> Result<(), PassError> {
        let types = program.types.clone();
        let blocks: Vec<BlockRef> = (0..program.parsers.len())
            .map(|i| BlockRef::Parser(p4_ir::ParserId(i as u32)))
            .chain((0..program.controls.len()).map(|i| BlockRef::Control(p4_ir::ControlId(i as u32))))
            .collect();
        for b in blocks {
            flatten_block(program, &types, &b);
        }
        Ok(())
    }
}

// ---------------------------------------------------------------- types

/// `(is_header, fields)` of a struct or header type.
fn shape<'t>(types: &'t [TypeDef], ty: &Type) -> Option<(bool, &'t [FieldDef])> {
    let Type::Named(t) = ty else { return None };
    match types.get(t.index())? {
        TypeDef::Struct { fields, .. } => Some((false, fields)),
        TypeDef::Header { fields, .. } => Some((true, fields)),
        _ => None,
    }
}

fn is_scalar(types: &[TypeDef], ty: &Type) -> bool {
    match ty {
        Type::Bool | Type::Bits { .. } | Type::Error => true,
        Type::Named(t) => matches!(types.get(t.index()), Some(TypeDef::Enum { .. })),
        _ => false,
    }
}

/// True for a struct or header this pass splits into its fields (and whose copies it splits).
fn flattenable(types: &[TypeDef], ty: &Type) -> bool {
    let Some((header, fields)) = shape(types, ty) else { return false };
    fields.iter().all(|f| {
        if header {
            is_scalar(types, &f.ty)
        } else {
            is_scalar(types, &f.ty) || flattenable(types, &f.ty) || kept_whole(types, &f.ty)
        }
    })
}

/// Struct fields that become one variable of their own type.
fn kept_whole(types: &[TypeDef], ty: &Type) -> bool {
    match ty {
        Type::Stack(..) | Type::Tuple(_) => true,
        Type::Named(t) => matches!(types.get(t.index()), Some(TypeDef::Union { .. })),
        _ => false,
    }
}

fn is_union(types: &[TypeDef], ty: &Type) -> bool {
    matches!(ty, Type::Named(t) if matches!(types.get(t.index()), Some(TypeDef::Union { .. })))
}

/// The variable a chain of struct/header field accesses starts from (`v.a.b`), if `e` is one.
fn chain_root(types: &[TypeDef], e: &Expr) -> Option<VarId> {
    match &e.kind {
        ExprKind::Var(v) => Some(*v),
        ExprKind::Field(b, _) if flattenable(types, &b.ty) => chain_root(types, b),
        _ => None,
    }
}

/// True if writing `lhs` whole can be split: fixed storage of a flattenable type, not in a union.
fn splittable_lhs(types: &[TypeDef], lhs: &Expr) -> bool {
    fn in_union(types: &[TypeDef], e: &Expr) -> bool {
        match &e.kind {
            ExprKind::Field(b, _) => is_union(types, &b.ty) || in_union(types, b),
            ExprKind::Index(b, _) => in_union(types, b),
            _ => false,
        }
    }
    flattenable(types, &lhs.ty) && is_static_place(lhs) && !in_union(types, lhs)
}

/// Storage read without effects: a variable, fields, stack elements (a run-time index or `.last`
/// is read again for each field; out of range, each field reads as zero like the whole value does).
fn is_place(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Var(_) => true,
        ExprKind::Field(b, _) | ExprKind::StackLast(b) => is_place(b),
        ExprKind::Index(b, i) => is_place(b) && !has_effects(i),
        _ => false,
    }
}

/// True if a split copy from `e` first evaluates `e` into a whole temporary.
fn opaque_src(e: &Expr) -> bool {
    has_effects(e) || !(is_place(e) || matches!(e.kind, ExprKind::Aggregate(_) | ExprKind::InvalidHeader))
}

fn validity_builtin(c: &Call) -> Option<(&Expr, Builtin)> {
    match &c.callee {
        Callee::Builtin { target, builtin: b @ (Builtin::IsValid | Builtin::SetValid | Builtin::SetInvalid) } => {
            Some((target, *b))
        }
        _ => None,
    }
}

// ---------------------------------------------------------------- the block's code

/// Calls `f` on every statement list and `g` on every expression outside statements (select keys
/// and keysets, table keys, action arguments and entry keysets) of the code running in block `b`.
pub(crate) fn block_code(
    program: &mut Program,
    b: &BlockRef,
    f: &mut dyn FnMut(&mut Vec<Stmt>),
    g: &mut dyn FnMut(&mut Expr),
) {
    for (blk, body) in bodies(program) {
        if blk == *b {
            if let Some(l) = body_mut(program, body) {
                f(l);
            }
        }
    }
    let mut outermost = Outermost(g);
    match b {
        BlockRef::Parser(p) => {
            for s in &mut program.parsers[p.index()].states {
                walk_transition_mut(&mut outermost, &mut s.transition);
            }
        }
        BlockRef::Control(c) => {
            for t in program.tables.iter_mut().filter(|t| t.control == *c) {
                walk_table_mut(&mut outermost, t);
            }
        }
    }
}

// ---------------------------------------------------------------- which locals

/// Finds the candidates used whole somewhere this pass cannot split.
struct Scan<'a> {
    types: &'a [TypeDef],
    vars: &'a [Var],
    cand: &'a HashSet<VarId>,
    bad: HashSet<VarId>,
}

impl Scan<'_> {
    /// The right-hand side of a split copy.
    fn src(&mut self, e: &Expr) {
        if has_effects(e) {
            return self.visit_expr(e);
        }
        if is_place(e) {
            return;
        }
        match &e.kind {
            ExprKind::Aggregate(xs) => {
                for x in xs {
                    if flattenable(self.types, &x.ty) {
                        self.src(x)
                    } else {
                        self.visit_expr(x)
                    }
                }
            }
            ExprKind::InvalidHeader => {}
            _ => self.visit_expr(e),
        }
    }
}

impl Visit<'_> for Scan<'_> {
    fn visit_expr(&mut self, e: &Expr) {
        if let Some(v) = chain_root(self.types, e) {
            if self.cand.contains(&v) {
                if flattenable(self.types, &e.ty) {
                    self.bad.insert(v);
                }
                return;
            }
        }
        walk_expr(self, e);
    }

    fn visit_call(&mut self, c: &Call) {
        if let Some((t, _)) = validity_builtin(c) {
            if chain_root(self.types, t).is_some() && shape(self.types, &t.ty).is_some_and(|(h, _)| h) {
                return;
            }
        }
        walk_call(self, c);
    }

    fn visit_stmt(&mut self, s: &Stmt) {
        match s {
            Stmt::VarInit { var, init: Some(e), .. } => {
                // The whole temporary such an `init` becomes would be this variable again.
                if opaque_src(e) {
                    self.bad.insert(*var);
                }
                if self.vars.get(var.index()).is_some_and(|v| flattenable(self.types, &v.ty)) {
                    self.src(e)
                } else {
                    self.visit_expr(e)
                }
            }
            Stmt::Assign { lhs, rhs, .. } if splittable_lhs(self.types, lhs) => self.src(rhs),
            _ => walk_stmt(self, s),
        }
    }
}

// ---------------------------------------------------------------- the flattened shape

#[derive(Clone, Debug)]
struct Flat {
    fields: Vec<Leaf>,
    valid: Option<VarId>,
}

#[derive(Clone, Debug)]
enum Leaf {
    Var(VarId, Type),
    Nested(Flat),
}

fn make_flat(types: &[TypeDef], vars: &mut Vec<Var>, name: &str, ty: &Type, kind: &VarKind) -> Flat {
    let (header, fields) = shape(types, ty).expect("flattenable");
    let fields = fields.to_vec();
    let mut out = Vec::new();
    for f in &fields {
        let n = format!("{name}.{}", f.name);
        if flattenable(types, &f.ty) {
            out.push(Leaf::Nested(make_flat(types, vars, &n, &f.ty, kind)));
        } else {
            out.push(Leaf::Var(fresh_var(vars, &n, f.ty.clone(), kind.clone()), f.ty.clone()));
        }
    }
    let valid = header.then(|| fresh_var(vars, &format!("{name}.valid"), Type::Bool, kind.clone()));
    Flat { fields: out, valid }
}

fn flatten_block(program: &mut Program, types: &[TypeDef], b: &BlockRef) {
    let Some(vars) = vars_mut(program, b) else { return };
    let mut cand: HashSet<VarId> = vars
        .iter()
        .enumerate()
        .filter(|(_, v)| matches!(v.kind, VarKind::Local | VarKind::Temp) && flattenable(types, &v.ty))
        .map(|(i, _)| VarId(i as u32))
        .collect();
    if cand.is_empty() {
        return;
    }
    let frame = vars.clone();
    // Whole uses found disqualify a candidate; that changes no other decision (see `Scan`), so one
    // scan suffices.
    let mut scan = Scan { types, vars: &frame, cand: &cand, bad: HashSet::new() };
    let mut lists = Vec::new();
    let mut exprs = Vec::new();
    block_code(program, b, &mut |l| lists.push(l.clone()), &mut |e| exprs.push(e.clone()));
    lists.iter().for_each(|l| scan.visit_stmts(l));
    exprs.iter().for_each(|e| scan.visit_expr(e));
    let bad = scan.bad;
    cand.retain(|v| !bad.contains(v));

    let Some(vars) = vars_mut(program, b) else { return };
    let mut flats = HashMap::new();
    let mut sorted: Vec<VarId> = cand.iter().copied().collect();
    sorted.sort();
    for v in &sorted {
        let Var { name, ty, kind } = vars[v.index()].clone();
        flats.insert(*v, Leaf::Nested(make_flat(types, vars, &name, &ty, &kind)));
    }
    let rw = std::cell::RefCell::new(Rewrite { types, flats, vars: std::mem::take(vars) });
    block_code(
        program,
        b,
        &mut |l| {
            rw.borrow_mut().visit_stmts(l);
        },
        &mut |e| rw.borrow_mut().visit_expr(e),
    );
    let new_vars = rw.into_inner().vars;
    if let Some(vars) = vars_mut(program, b) {
        *vars = new_vars;
    }
    remove_vars(program, b, &cand);
}

/// Removes variables from a frame and renumbers every reference to the others.
pub(crate) fn remove_vars(program: &mut Program, b: &BlockRef, dead: &HashSet<VarId>) {
    if dead.is_empty() {
        return;
    }
    let Some(vars) = vars_mut(program, b) else { return };
    let mut map = HashMap::new();
    let mut kept = Vec::new();
    for (i, v) in std::mem::take(vars).into_iter().enumerate() {
        if !dead.contains(&VarId(i as u32)) {
            map.insert(VarId(i as u32), VarId(kept.len() as u32));
            kept.push(v);
        }
    }
    *vars = kept;
    let m = |v: &mut VarId| {
        if let Some(n) = map.get(v) {
            *v = *n
        }
    };
    let fix_expr = &mut |e: &mut Expr| {
        crate::util::walk_expr_mut(e, &mut |x| {
            if let ExprKind::Var(v) = &mut x.kind {
                m(v)
            }
        })
    };
    block_code(
        program,
        b,
        &mut |l| {
            crate::util::rename_var_inits(l, &|v| map.get(&v).copied());
            crate::util::walk_stmts_exprs_mut(l, &mut |x| {
                if let ExprKind::Var(v) = &mut x.kind {
                    m(v)
                }
            });
        },
        fix_expr,
    );
    match b {
        BlockRef::Parser(p) => program.parsers[p.index()].block.params.iter_mut().for_each(m),
        BlockRef::Control(c) => program.controls[c.index()].block.params.iter_mut().for_each(m),
    }
    for a in program.actions.iter_mut().filter(|a| a.block == *b) {
        a.params.iter_mut().for_each(|p| m(&mut p.var));
    }
    for f in program.functions.iter_mut().filter(|f| f.block == *b) {
        f.params.iter_mut().for_each(|p| m(&mut p.var));
        if let Some(r) = &mut f.ret_var {
            m(r);
        }
    }
}

// ---------------------------------------------------------------- the rewrite

/// Where a split copy writes.
enum Dst {
    Flat(Flat),
    Place(Expr),
}

/// What a split copy reads.
enum Src {
    Flat(Flat),
    Place(Expr),
    Agg(Vec<Src>),
    Invalid,
    /// A field value (not itself split).
    Value(Expr),
}

/// One write of a split copy, in order.
enum W {
    Set(Expr, Expr),
    /// Sets a header place's validity from a boolean (`setValid`/`setInvalid`).
    Validity(Expr, Expr),
    /// `init v;` (zero), for a flattened field of an invalid header.
    Zero(VarId),
}

struct Rewrite<'a> {
    types: &'a [TypeDef],
    flats: HashMap<VarId, Leaf>,
    vars: Vec<Var>,
}

fn var_expr(v: VarId, ty: Type, span: Span) -> Expr {
    Expr::new(ty, ExprKind::Var(v), span)
}

fn bool_const(b: bool, span: Span) -> Expr {
    Expr::constant(Value::Bool(b), Type::Bool, span)
}

fn builtin_call(target: Expr, builtin: Builtin, span: Span) -> Call {
    Call { callee: Callee::Builtin { target: Box::new(target), builtin }, args: vec![], span }
}

/// The maximal storage paths `e` reads.
fn read_paths<'e>(e: &'e Expr, out: &mut Vec<&'e Expr>) {
    match &e.kind {
        ExprKind::Var(_) | ExprKind::Field(..) | ExprKind::StackNext(_) | ExprKind::StackLast(_) => out.push(e),
        ExprKind::Index(b, i) => {
            out.push(e);
            read_paths(b, out);
            read_paths(i, out);
        }
        _ => operands(e).into_iter().for_each(|c| read_paths(c, out)),
    }
}

impl Rewrite<'_> {
    fn resolve(&self, e: &Expr) -> Option<&Leaf> {
        match &e.kind {
            ExprKind::Var(v) => self.flats.get(v),
            ExprKind::Field(b, i) if flattenable(self.types, &b.ty) => match self.resolve(b)? {
                Leaf::Nested(f) => f.fields.get(*i as usize),
                Leaf::Var(..) => None,
            },
            _ => None,
        }
    }

    fn flat_of(&self, e: &Expr) -> Option<Flat> {
        match self.resolve(e)? {
            Leaf::Nested(f) => Some(f.clone()),
            Leaf::Var(..) => None,
        }
    }

    /// Rewrites one statement onto `out`: writes of flattened variables become writes of their
    /// fields; everything else keeps its shape, with its expressions rewritten.
    fn stmt(&mut self, s: Stmt, out: &mut Vec<Stmt>) {
        match s {
            Stmt::VarInit { var, init, span } if self.flats.contains_key(&var) => {
                let Some(Leaf::Nested(f)) = self.flats.get(&var).cloned() else { return };
                match init {
                    None => zero_flat(&f, span, out),
                    Some(e) => {
                        let ty = self.vars[var.index()].ty.clone();
                        self.copy(Dst::Flat(f), e, &ty, true, span, out)
                    }
                }
            }
            Stmt::VarInit { var, init: Some(e), span }
                if flattenable(self.types, &self.vars[var.index()].ty) && self.src_has_flat(&e) =>
            {
                let ty = self.vars[var.index()].ty.clone();
                out.push(Stmt::VarInit { var, init: None, span });
                self.copy(Dst::Place(var_expr(var, ty.clone(), span)), e, &ty, false, span, out);
            }
            Stmt::Assign { mut lhs, rhs, span } if splittable_lhs(self.types, &lhs) => {
                let ty = lhs.ty.clone();
                let dst = match self.flat_of(&lhs) {
                    Some(f) => Dst::Flat(f),
                    None => {
                        self.visit_expr(&mut lhs);
                        Dst::Place(lhs)
                    }
                };
                self.copy(dst, rhs, &ty, false, span, out);
            }
            Stmt::Call(c) if validity_builtin(&c).is_some_and(|(t, _)| self.flat_of(t).is_some()) => {
                let (Some((t, b)), span) = (validity_builtin(&c), c.span) else { return };
                let Some(f) = self.flat_of(t) else { return };
                match b {
                    Builtin::SetValid => out.push(assign_var(f.valid, true, span)),
                    Builtin::SetInvalid => zero_flat(&f, span, out),
                    _ => {}
                }
            }
            mut other => {
                walk_stmt_mut(self, &mut other);
                out.push(other);
            }
        }
    }

    fn src_has_flat(&self, e: &Expr) -> bool {
        if self.flat_of(e).is_some() {
            return true;
        }
        match &e.kind {
            ExprKind::Aggregate(xs) => xs.iter().any(|x| self.src_has_flat(x)),
            _ => false,
        }
    }

    /// The source of a split copy of type `ty`; values that are not storage or lists are evaluated
    /// into a whole temporary first (onto `out`).
    fn src(&mut self, mut e: Expr, ty: &Type, top: bool, out: &mut Vec<Stmt>) -> Src {
        if !(top && has_effects(&e)) {
            if let Some(f) = self.flat_of(&e) {
                return Src::Flat(f);
            }
            if is_place(&e) {
                self.visit_expr(&mut e);
                return Src::Place(e);
            }
            match e.kind {
                ExprKind::Aggregate(xs) => {
                    let fields: Vec<Type> =
                        shape(self.types, ty).map(|(_, f)| f.iter().map(|f| f.ty.clone()).collect()).unwrap_or_default();
                    return Src::Agg(
                        xs.into_iter()
                            .zip(fields)
                            .map(|(mut x, fty)| {
                                if flattenable(self.types, &fty) {
                                    self.src(x, &fty, false, out)
                                } else {
                                    self.visit_expr(&mut x);
                                    Src::Value(x)
                                }
                            })
                            .collect(),
                    );
                }
                ExprKind::InvalidHeader => return Src::Invalid,
                kind => e.kind = kind,
            }
        }
        self.visit_expr(&mut e);
        let span = e.span;
        let tmp = fresh_var(&mut self.vars, "flat_copy", ty.clone(), VarKind::Temp);
        out.push(Stmt::VarInit { var: tmp, init: Some(e), span });
        Src::Place(var_expr(tmp, ty.clone(), span))
    }

    /// `dst = src` split into field writes (`init` writes of flattened fields when `as_init`).
    fn copy(&mut self, dst: Dst, src: Expr, ty: &Type, as_init: bool, span: Span, out: &mut Vec<Stmt>) {
        let src = self.src(src, ty, true, out);
        let mut ws = Vec::new();
        self.gen(dst, src, ty, span, &mut ws);
        let written = |w: &W| match w {
            W::Set(p, _) | W::Validity(p, _) => p.clone(),
            W::Zero(v) => var_expr(*v, Type::Bool, span),
        };
        // A field copy must not read what an earlier one wrote: such values are read first.
        let reads_written: Vec<bool> = (0..ws.len())
            .map(|k| {
                let value = match &ws[k] {
                    W::Set(_, v) | W::Validity(_, v) => v,
                    W::Zero(_) => return false,
                };
                let mut reads = Vec::new();
                read_paths(value, &mut reads);
                ws[..k].iter().any(|wj| reads.iter().any(|r| may_overlap(&written(wj), r)))
            })
            .collect();
        for (w, hazard) in ws.iter_mut().zip(reads_written) {
            if hazard {
                if let W::Set(_, v) | W::Validity(_, v) = w {
                    let tmp = fresh_var(&mut self.vars, "flat_copy", v.ty.clone(), VarKind::Temp);
                    let value = std::mem::replace(v, var_expr(tmp, v.ty.clone(), span));
                    out.push(Stmt::VarInit { var: tmp, init: Some(value), span });
                }
            }
        }
        for w in ws {
            match w {
                W::Set(p, v) => match (&p.kind, as_init) {
                    (ExprKind::Var(x), true) => out.push(Stmt::VarInit { var: *x, init: Some(v), span }),
                    _ => out.push(Stmt::Assign { lhs: p, rhs: v, span }),
                },
                W::Zero(v) => out.push(Stmt::VarInit { var: v, init: None, span }),
                W::Validity(p, v) => match v.kind {
                    ExprKind::Const(Value::Bool(b)) => {
                        let bi = if b { Builtin::SetValid } else { Builtin::SetInvalid };
                        out.push(Stmt::Call(builtin_call(p, bi, span)));
                    }
                    _ => out.push(Stmt::If {
                        cond: v,
                        then: vec![Stmt::Call(builtin_call(p.clone(), Builtin::SetValid, span))],
                        otherwise: vec![Stmt::Call(builtin_call(p, Builtin::SetInvalid, span))],
                        span,
                    }),
                },
            }
        }
    }

    fn gen(&mut self, dst: Dst, mut src: Src, ty: &Type, span: Span, ws: &mut Vec<W>) {
        let Some((header, fields)) = shape(self.types, ty) else { return };
        let fields = fields.to_vec();
        if header {
            let value = match &src {
                Src::Flat(f) => var_expr(f.valid.expect("header"), Type::Bool, span),
                Src::Place(p) => {
                    Expr::new(Type::Bool, ExprKind::Call(Box::new(builtin_call(p.clone(), Builtin::IsValid, span))), span)
                }
                Src::Agg(_) => bool_const(true, span),
                Src::Invalid | Src::Value(_) => bool_const(false, span),
            };
            match &dst {
                Dst::Flat(f) => ws.push(W::Set(var_expr(f.valid.expect("header"), Type::Bool, span), value)),
                // `setInvalid` zeroes the fields: nothing more to copy.
                Dst::Place(p) if matches!(src, Src::Invalid) => {
                    ws.push(W::Validity(p.clone(), value));
                    return;
                }
                Dst::Place(p) => ws.push(W::Validity(p.clone(), value)),
            }
        }
        let mut agg: Vec<Option<Src>> = match src {
            Src::Agg(ref mut xs) => std::mem::take(xs).into_iter().map(Some).collect(),
            _ => Vec::new(),
        };
        for (i, fd) in fields.iter().enumerate() {
            let fty = fd.ty.clone();
            let d = match &dst {
                Dst::Flat(f) => match &f.fields[i] {
                    Leaf::Var(v, t) => Dst::Place(var_expr(*v, t.clone(), span)),
                    Leaf::Nested(g) => Dst::Flat(g.clone()),
                },
                Dst::Place(p) => {
                    Dst::Place(Expr::new(fty.clone(), ExprKind::Field(Box::new(p.clone()), i as u32), span))
                }
            };
            let s = match &src {
                Src::Flat(f) => match &f.fields[i] {
                    Leaf::Var(v, t) => Src::Value(var_expr(*v, t.clone(), span)),
                    Leaf::Nested(g) => Src::Flat(g.clone()),
                },
                Src::Place(p) => {
                    let e = Expr::new(fty.clone(), ExprKind::Field(Box::new(p.clone()), i as u32), span);
                    if flattenable(self.types, &fty) {
                        Src::Place(e)
                    } else {
                        Src::Value(e)
                    }
                }
                Src::Agg(_) => agg.get_mut(i).and_then(Option::take).unwrap_or(Src::Invalid),
                Src::Invalid | Src::Value(_) => Src::Invalid,
            };
            if flattenable(self.types, &fty) {
                self.gen(d, s, &fty, span, ws);
                continue;
            }
            let Dst::Place(place) = d else { continue };
            match s {
                Src::Value(v) => ws.push(W::Set(place, v)),
                _ => {
                    if let ExprKind::Var(v) = place.kind {
                        ws.push(W::Zero(v));
                    }
                }
            }
        }
    }
}

/// Statement lists are rebuilt one statement at a time (a split copy becomes several); in an
/// expression, a field of a flattened variable becomes its own variable.
impl VisitMut for Rewrite<'_> {
    fn visit_stmts(&mut self, stmts: &mut Vec<Stmt>) {
        for s in std::mem::take(stmts) {
            self.stmt(s, stmts);
        }
    }

    fn visit_expr(&mut self, e: &mut Expr) {
        match self.resolve(e) {
            Some(Leaf::Var(v, ty)) => {
                *e = var_expr(*v, ty.clone(), e.span);
                return;
            }
            // A whole use the scan allowed is handled by the statement rewrite.
            Some(Leaf::Nested(_)) => return,
            None => {}
        }
        if let ExprKind::Call(c) = &e.kind {
            if let Some((t, Builtin::IsValid)) = validity_builtin(c) {
                if let Some(Flat { valid: Some(v), .. }) = self.flat_of(t) {
                    *e = var_expr(v, Type::Bool, e.span);
                    return;
                }
            }
        }
        walk_expr_mut(self, e);
    }
}

fn assign_var(v: Option<VarId>, b: bool, span: Span) -> Stmt {
    let v = v.expect("a header has a validity variable");
    Stmt::Assign { lhs: var_expr(v, Type::Bool, span), rhs: bool_const(b, span), span }
}

/// `init` of every variable of a flattened value: all invalid and zero, as the dataplane initialises
/// (and `setInvalid` clears) a header.
fn zero_flat(f: &Flat, span: Span, out: &mut Vec<Stmt>) {
    if let Some(v) = f.valid {
        out.push(Stmt::VarInit { var: v, init: None, span });
    }
    for l in &f.fields {
        match l {
            Leaf::Var(v, _) => out.push(Stmt::VarInit { var: *v, init: None, span }),
            Leaf::Nested(g) => zero_flat(g, span, out),
        }
    }
}

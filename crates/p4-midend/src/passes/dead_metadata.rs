//! `dead-metadata`: struct fields that nothing reads are removed, with every write to them (seed
//! §3.3.1, "eliminate dead metadata": a hardware target then carries fewer bits from stage to stage).
//!
//! A field counts as read when an expression reads it (or a part of it), when a value containing it
//! goes to an extern (`digest`, `hash`, `clone3`, `emit`, an extern's `out` argument, an
//! `==`/`!=`), when an `inout` argument passes it, or when it is written from an expression with
//! effects (the write stays, so the field does). Copying a whole struct to a variable or parameter of
//! the same type is not a read of its fields: both sides lose the same fields. Fields annotated
//! `@field_list` are read by the architecture (resubmit, recirculate, clone) and always stay.
//!
//! Never touched: headers (their layout is the wire format), struct types nested in a header, the
//! architecture's intrinsic metadata structs (as its description names them: v1model's
//! `standard_metadata_t`, whose fields the target reads by role), and struct types named as type
//! arguments (externs, extern calls) or value-set elements, whose layout the control plane sees. For
//! a package no registered architecture describes, the pass does nothing.
//!
//! Removing a field deletes the assignments and `setValid`/`setInvalid` calls that write it, turns
//! `out` arguments naming it into `_`, drops it from struct literals and constants, and renumbers field
//! indices. Deleting writes can make more fields dead, so the pass repeats until nothing changes.

use crate::util::{bodies, body_mut, has_effects, walk_expr_mut};
use crate::{Pass, PassError};
use p4_ir::{
    Builtin, Callee, Direction, Expr, ExprKind, Keyset, Program, Stmt, Transition, Type, TypeDef, TypeId,
    Value,
};
use std::collections::{HashMap, HashSet};

pub const NAME: &str = "dead-metadata";

pub struct DeadMetadata;

impl Pass for DeadMetadata {
    fn name(&self) -> &'static str {
        NAME
    }

    fn run(&self, program: &mut Program) -> Result<(), PassError> {
        let Some(excluded) = excluded_types(program) else { return Ok(()) };
        for _ in 0..16 {
            let mut reads = Reads { program, read: HashSet::new() };
            reads.program_reads();
            let read = reads.read;
            let mut dead: HashMap<TypeId, Vec<bool>> = HashMap::new();
            for (i, t) in program.types.iter().enumerate() {
                let id = TypeId(i as u32);
                if let TypeDef::Struct { fields, .. } = t {
                    if excluded.contains(&id) {
                        continue;
                    }
                    let d: Vec<bool> = fields
                        .iter()
                        .enumerate()
                        .map(|(f, fd)| {
                            !read.contains(&(id, f as u32)) && !fd.annotations.iter().any(|a| a.name == "field_list")
                        })
                        .collect();
                    if d.iter().any(|x| *x) {
                        dead.insert(id, d);
                    }
                }
            }
            if dead.is_empty() {
                return Ok(());
            }
            remove(program, &dead)?;
        }
        Ok(())
    }
}

fn named_struct(program: &Program, ty: &Type) -> Option<TypeId> {
    match ty {
        Type::Named(t) if matches!(program.types.get(t.index()), Some(TypeDef::Struct { .. })) => Some(*t),
        _ => None,
    }
}

/// Every named type reachable from `ty` (fields, stack elements, tuple members).
fn reachable(program: &Program, ty: &Type, out: &mut HashSet<TypeId>) {
    match ty {
        Type::Named(t) if out.insert(*t) => {
            if let Some(d) = program.types.get(t.index()) {
                for f in d.fields() {
                    reachable(program, &f.ty, out);
                }
            }
        }
        Type::Stack(e, _) => reachable(program, e, out),
        Type::Tuple(ts) => ts.iter().for_each(|t| reachable(program, t, out)),
        _ => {}
    }
}

/// The struct types the pass must not change; `None` for packages it does not know.
fn excluded_types(program: &Program) -> Option<HashSet<TypeId>> {
    let arch = p4_ir::arch::of_program(program)?;
    let mut ex = HashSet::new();
    for (i, t) in program.types.iter().enumerate() {
        if matches!(t, TypeDef::Struct { name, .. } if arch.is_intrinsic_struct(name)) {
            reachable(program, &Type::Named(TypeId(i as u32)), &mut ex);
        }
    }
    for t in &program.types {
        match t {
            TypeDef::Header { fields, .. } => fields.iter().for_each(|f| reachable(program, &f.ty, &mut ex)),
            TypeDef::Extern { type_args, .. } => type_args.iter().for_each(|a| reachable(program, a, &mut ex)),
            _ => {}
        }
    }
    for x in &program.externs {
        x.type_args.iter().for_each(|a| reachable(program, a, &mut ex));
    }
    for v in &program.value_sets {
        reachable(program, &v.elem, &mut ex);
    }
    // Type arguments of extern calls (`digest<T>`, `hash<O, T, D, M>`).
    let mut copy = program.clone();
    let mut targs = Vec::new();
    for (_, body) in bodies(program) {
        if let Some(stmts) = body_mut(&mut copy, body) {
            collect_type_args(stmts, &mut targs);
        }
    }
    for t in &targs {
        reachable(program, t, &mut ex);
    }
    Some(ex)
}

fn collect_type_args(stmts: &mut [Stmt], out: &mut Vec<Type>) {
    let grab = |c: &p4_ir::Call, out: &mut Vec<Type>| match &c.callee {
        Callee::ExternFunction { type_args, .. } | Callee::Method { type_args, .. } => {
            out.extend(type_args.iter().cloned())
        }
        _ => {}
    };
    for s in stmts.iter() {
        if let Stmt::Call(c) = s {
            grab(c, out);
        }
    }
    crate::util::for_each_nested_list(stmts, &mut |l| {
        for s in l.iter() {
            if let Stmt::Call(c) = s {
                grab(c, out);
            }
        }
    });
    crate::util::walk_stmts_exprs_mut(stmts, &mut |e| {
        if let ExprKind::Call(c) = &e.kind {
            grab(c, out);
        }
    });
}

/// The `(struct type, field)` pairs that are read.
struct Reads<'a> {
    program: &'a Program,
    read: HashSet<(TypeId, u32)>,
}

fn is_path(e: &Expr) -> bool {
    matches!(
        e.kind,
        ExprKind::Var(_) | ExprKind::Field(..) | ExprKind::Index(..) | ExprKind::StackNext(_) | ExprKind::StackLast(_)
    )
}

impl Reads<'_> {
    fn program_reads(&mut self) {
        let program = self.program;
        for (_, body) in bodies(program) {
            let stmts = match body {
                crate::util::Body::ParserInit(p) => &program.parsers[p].init,
                crate::util::Body::ParserState(p, s) => &program.parsers[p].states[s].body,
                crate::util::Body::ControlInit(c) => &program.controls[c].init,
                crate::util::Body::ControlBody(c) => &program.controls[c].body,
                crate::util::Body::Action(a) => &program.actions[a].body,
                crate::util::Body::Function(f) => &program.functions[f].body,
            };
            self.stmts(stmts);
        }
        for p in &program.parsers {
            for s in &p.states {
                if let Transition::Select { keys, cases } = &s.transition {
                    keys.iter().for_each(|k| self.read(k));
                    cases.iter().for_each(|c| c.keysets.iter().for_each(|k| self.keyset(k)));
                }
            }
        }
        for t in &program.tables {
            t.keys.iter().for_each(|k| self.read(&k.expr));
            t.actions.iter().for_each(|a| a.bound_args.iter().for_each(|x| self.read(x)));
            if let Some(d) = &t.default_action {
                d.args.iter().for_each(|x| self.read(x));
            }
            for e in &t.entries {
                e.keys.iter().for_each(|k| self.keyset(k));
                e.action.args.iter().for_each(|x| self.read(x));
            }
        }
    }

    fn keyset(&mut self, k: &Keyset) {
        match k {
            Keyset::Value(e) | Keyset::Lpm(e, _) => self.read(e),
            Keyset::Mask(a, b) | Keyset::Range(a, b) => {
                self.read(a);
                self.read(b);
            }
            Keyset::Any | Keyset::ValueSet(_) => {}
        }
    }

    /// Every field of every struct reachable from `ty` is read.
    fn all(&mut self, ty: &Type) {
        let mut types = HashSet::new();
        reachable(self.program, ty, &mut types);
        for t in types {
            if let Some(TypeDef::Struct { fields, .. }) = self.program.types.get(t.index()) {
                for f in 0..fields.len() {
                    self.read.insert((t, f as u32));
                }
            }
        }
    }

    /// The links of an access path are read (a part of each is used); run-time indices are read.
    fn path(&mut self, e: &Expr) {
        match &e.kind {
            ExprKind::Field(b, i) => {
                if let Some(t) = named_struct(self.program, &b.ty) {
                    self.read.insert((t, *i));
                }
                self.path(b);
            }
            ExprKind::Index(b, i) => {
                self.read(i);
                self.path(b);
            }
            ExprKind::StackNext(b)
            | ExprKind::StackLast(b)
            | ExprKind::StackLastIndex(b)
            | ExprKind::Slice(b, _, _) => self.path(b),
            ExprKind::Var(_) => {}
            _ => self.read(e),
        }
    }

    /// A place that is written: only its run-time indices are read.
    fn place(&mut self, e: &Expr) {
        match &e.kind {
            ExprKind::Index(b, i) => {
                self.read(i);
                self.place(b);
            }
            ExprKind::Field(b, _) | ExprKind::StackNext(b) | ExprKind::StackLast(b) | ExprKind::Slice(b, _, _) => {
                self.place(b)
            }
            _ => {}
        }
    }

    /// A value copied whole into storage of its own type.
    fn copy(&mut self, e: &Expr) {
        if is_path(e) {
            self.path(e);
        } else {
            self.read(e);
        }
    }

    fn read(&mut self, e: &Expr) {
        match &e.kind {
            ExprKind::Var(_)
            | ExprKind::Field(..)
            | ExprKind::Index(..)
            | ExprKind::StackNext(_)
            | ExprKind::StackLast(_) => {
                self.path(e);
                self.all(&e.ty);
            }
            ExprKind::StackLastIndex(b) | ExprKind::Slice(b, _, _) => self.path(b),
            ExprKind::Unary(_, x) | ExprKind::Cast(x) => self.read(x),
            ExprKind::Binary(_, l, r) => {
                self.read(l);
                self.read(r);
            }
            ExprKind::Mux(c, a, b) => {
                self.read(c);
                self.read(a);
                self.read(b);
            }
            ExprKind::Aggregate(xs) => {
                let t = named_struct(self.program, &e.ty);
                for (i, x) in xs.iter().enumerate() {
                    self.read(x);
                    if let (Some(t), true) = (t, has_effects(x)) {
                        self.read.insert((t, i as u32));
                    }
                }
            }
            ExprKind::Call(c) => self.call(c),
            ExprKind::Const(_)
            | ExprKind::ApplyTable(..)
            | ExprKind::InvalidHeader
            | ExprKind::Extern(_)
            | ExprKind::DontCare => {}
        }
    }

    fn call(&mut self, c: &p4_ir::Call) {
        match &c.callee {
            Callee::Builtin { target, builtin: Builtin::IsValid } => self.path(target),
            Callee::Builtin { target, .. } => self.place(target),
            Callee::Action(_) | Callee::Function(_) => {
                for a in &c.args {
                    match a.direction {
                        Direction::Out => self.place(&a.expr),
                        _ => self.copy(&a.expr),
                    }
                }
            }
            Callee::Method { target, .. } => {
                self.path(target);
                c.args.iter().for_each(|a| self.read(&a.expr));
            }
            Callee::ExternFunction { .. } => c.args.iter().for_each(|a| self.read(&a.expr)),
        }
    }

    fn stmts(&mut self, stmts: &[Stmt]) {
        for s in stmts {
            match s {
                Stmt::VarInit { init: Some(e), .. } => self.copy(e),
                Stmt::Assign { lhs, rhs, .. } => {
                    self.place(lhs);
                    self.copy(rhs);
                    if has_effects(rhs) {
                        // The write stays (its value has effects), so what it writes stays.
                        self.path(lhs);
                    }
                }
                Stmt::Call(c) => self.call(c),
                Stmt::ApplyBlock { args, .. } => {
                    for a in args {
                        match a.direction {
                            Direction::Out => self.place(&a.expr),
                            _ => self.copy(&a.expr),
                        }
                    }
                }
                Stmt::If { cond, then, otherwise, .. } => {
                    self.read(cond);
                    self.stmts(then);
                    self.stmts(otherwise);
                }
                Stmt::SwitchAction { cases, .. } => cases.iter().for_each(|(_, l)| self.stmts(l)),
                Stmt::SwitchValue { expr, cases, .. } => {
                    self.read(expr);
                    cases.iter().for_each(|(_, l)| self.stmts(l));
                }
                Stmt::Block(l) => self.stmts(l),
                Stmt::Return(Some(e), _) => self.copy(e),
                Stmt::For { init, cond, update, body, .. } => {
                    self.stmts(init);
                    if let Some(c) = cond {
                        self.read(c);
                    }
                    self.stmts(update);
                    self.stmts(body);
                }
                _ => {}
            }
        }
    }
}

/// True if the access path `e` goes through a dead field.
fn through_dead(program: &Program, e: &Expr, dead: &HashMap<TypeId, Vec<bool>>) -> bool {
    match &e.kind {
        ExprKind::Field(b, i) => {
            named_struct(program, &b.ty).and_then(|t| dead.get(&t)).is_some_and(|d| d.get(*i as usize) == Some(&true))
                || through_dead(program, b, dead)
        }
        ExprKind::Index(b, _) | ExprKind::StackNext(b) | ExprKind::StackLast(b) | ExprKind::Slice(b, _, _) => {
            through_dead(program, b, dead)
        }
        _ => false,
    }
}

fn remove(program: &mut Program, dead: &HashMap<TypeId, Vec<bool>>) -> Result<(), PassError> {
    let snapshot = program.clone();
    // 1. Writes to dead fields go.
    for (_, body) in bodies(&snapshot) {
        if let Some(stmts) = body_mut(program, body) {
            drop_writes(&snapshot, stmts, dead);
        }
    }
    // 2. Field indices, literals and constants follow the new layout.
    let new_index = |t: TypeId, i: u32| -> Option<u32> {
        match dead.get(&t) {
            None => Some(i),
            Some(d) if d.get(i as usize) == Some(&true) => None,
            Some(d) => Some(d[..i as usize].iter().filter(|x| !**x).count() as u32),
        }
    };
    let mut failure = None;
    let mut fix = |e: &mut Expr| match &mut e.kind {
        ExprKind::Field(b, i) => {
            if let Some(t) = named_struct(&snapshot, &b.ty) {
                match new_index(t, *i) {
                    Some(n) => *i = n,
                    None => failure = Some(e.span),
                }
            }
        }
        ExprKind::Aggregate(xs) => {
            if let Some(d) = named_struct(&snapshot, &e.ty).and_then(|t| dead.get(&t)) {
                let mut k = 0;
                xs.retain(|_| {
                    let keep = d.get(k) != Some(&true);
                    k += 1;
                    keep
                });
            }
        }
        ExprKind::Const(v) => fix_value(&snapshot, v, &e.ty, dead),
        _ => {}
    };
    for (_, body) in bodies(&snapshot) {
        if let Some(stmts) = body_mut(program, body) {
            crate::util::walk_stmts_exprs_mut(stmts, &mut fix);
        }
    }
    for p in &mut program.parsers {
        for s in &mut p.states {
            if let Transition::Select { keys, .. } = &mut s.transition {
                keys.iter_mut().for_each(|k| walk_expr_mut(k, &mut fix));
            }
        }
    }
    for t in &mut program.tables {
        t.keys.iter_mut().for_each(|k| walk_expr_mut(&mut k.expr, &mut fix));
        t.actions.iter_mut().for_each(|a| a.bound_args.iter_mut().for_each(|x| walk_expr_mut(x, &mut fix)));
        if let Some(d) = &mut t.default_action {
            d.args.iter_mut().for_each(|x| walk_expr_mut(x, &mut fix));
        }
        t.entries.iter_mut().for_each(|e| e.action.args.iter_mut().for_each(|x| walk_expr_mut(x, &mut fix)));
    }
    if let Some(span) = failure {
        return Err(PassError::new(NAME, "a removed field is still used (internal error)").at(span));
    }
    // 3. The types.
    for (t, d) in dead {
        if let Some(TypeDef::Struct { fields, .. }) = program.types.get_mut(t.index()) {
            let mut k = 0;
            fields.retain(|_| {
                let keep = d.get(k) != Some(&true);
                k += 1;
                keep
            });
        }
    }
    Ok(())
}

fn fix_value(program: &Program, v: &mut Value, ty: &Type, dead: &HashMap<TypeId, Vec<bool>>) {
    let Value::Aggregate { fields, .. } = v else { return };
    match ty {
        Type::Named(t) => {
            let defs: Vec<Type> = program
                .types
                .get(t.index())
                .map(|d| d.fields().iter().map(|f| f.ty.clone()).collect())
                .unwrap_or_default();
            for (x, fty) in fields.iter_mut().zip(&defs) {
                fix_value(program, x, fty, dead);
            }
            if let Some(d) = dead.get(t) {
                let mut k = 0;
                fields.retain(|_| {
                    let keep = d.get(k) != Some(&true);
                    k += 1;
                    keep
                });
            }
        }
        Type::Stack(e, _) => fields.iter_mut().for_each(|x| fix_value(program, x, e, dead)),
        Type::Tuple(ts) => fields.iter_mut().zip(ts).for_each(|(x, t)| fix_value(program, x, t, dead)),
        _ => {}
    }
}

fn drop_writes(program: &Program, stmts: &mut Vec<Stmt>, dead: &HashMap<TypeId, Vec<bool>>) {
    stmts.retain(|s| match s {
        Stmt::Assign { lhs, .. } => !through_dead(program, lhs, dead),
        Stmt::Call(p4_ir::Call { callee: Callee::Builtin { target, builtin }, .. }) if *builtin != Builtin::IsValid => {
            !through_dead(program, target, dead)
        }
        _ => true,
    });
    for s in stmts.iter_mut() {
        match s {
            Stmt::Call(c) if matches!(c.callee, Callee::Action(_) | Callee::Function(_)) => {
                for a in &mut c.args {
                    if a.direction == Direction::Out && through_dead(program, &a.expr, dead) {
                        a.expr = Expr::new(a.expr.ty.clone(), ExprKind::DontCare, a.expr.span);
                    }
                }
            }
            Stmt::ApplyBlock { args, .. } => {
                for a in args {
                    if a.direction == Direction::Out && through_dead(program, &a.expr, dead) {
                        a.expr = Expr::new(a.expr.ty.clone(), ExprKind::DontCare, a.expr.span);
                    }
                }
            }
            Stmt::If { then, otherwise, .. } => {
                drop_writes(program, then, dead);
                drop_writes(program, otherwise, dead);
            }
            Stmt::SwitchAction { cases, .. } => cases.iter_mut().for_each(|(_, l)| drop_writes(program, l, dead)),
            Stmt::SwitchValue { cases, .. } => cases.iter_mut().for_each(|(_, l)| drop_writes(program, l, dead)),
            Stmt::Block(l) => drop_writes(program, l, dead),
            Stmt::For { init, update, body, .. } => {
                drop_writes(program, init, dead);
                drop_writes(program, update, dead);
                drop_writes(program, body, dead);
            }
            _ => {}
        }
    }
}

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

use crate::util::{bodies, body_mut, has_effects, walk_program_exprs_mut};
use crate::{Pass, PassError};
use p4_ir::visit::{walk_call, walk_expr, walk_program, walk_stmt, walk_stmt_mut, walk_stmts_mut, Visit, VisitMut};
use p4_ir::{Builtin, Callee, Direction, Expr, ExprKind, Program, Stmt, Type, TypeDef, TypeId, Value};
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
            walk_program(&mut reads, program);
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
    let mut targs = TypeArgs(Vec::new());
    walk_program(&mut targs, program);
    for t in &targs.0 {
        reachable(program, t, &mut ex);
    }
    Some(ex)
}

/// The type arguments of extern function and method calls.
struct TypeArgs(Vec<Type>);

impl Visit<'_> for TypeArgs {
    fn visit_call(&mut self, c: &p4_ir::Call) {
        if let Callee::ExternFunction { type_args, .. } | Callee::Method { type_args, .. } = &c.callee {
            self.0.extend(type_args.iter().cloned());
        }
        walk_call(self, c);
    }
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
                self.visit_expr(i);
                self.path(b);
            }
            ExprKind::StackNext(b)
            | ExprKind::StackLast(b)
            | ExprKind::StackLastIndex(b)
            | ExprKind::Slice(b, _, _) => self.path(b),
            ExprKind::Var(_) => {}
            _ => self.visit_expr(e),
        }
    }

    /// A place that is written: only its run-time indices are read.
    fn place(&mut self, e: &Expr) {
        match &e.kind {
            ExprKind::Index(b, i) => {
                self.visit_expr(i);
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
            self.visit_expr(e);
        }
    }
}

/// Where the walk reaches an expression it is read; select keys, table keys and action arguments
/// are reads too.
impl Visit<'_> for Reads<'_> {
    fn visit_expr(&mut self, e: &Expr) {
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
            ExprKind::Aggregate(xs) => {
                let t = named_struct(self.program, &e.ty);
                for (i, x) in xs.iter().enumerate() {
                    self.visit_expr(x);
                    if let (Some(t), true) = (t, has_effects(x)) {
                        self.read.insert((t, i as u32));
                    }
                }
            }
            _ => walk_expr(self, e),
        }
    }

    fn visit_call(&mut self, c: &p4_ir::Call) {
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
                c.args.iter().for_each(|a| self.visit_expr(&a.expr));
            }
            Callee::ExternFunction { .. } => c.args.iter().for_each(|a| self.visit_expr(&a.expr)),
        }
    }

    fn visit_stmt(&mut self, s: &Stmt) {
        match s {
            Stmt::VarInit { init: Some(e), .. } | Stmt::Return(Some(e), _) => self.copy(e),
            Stmt::Assign { lhs, rhs, .. } => {
                self.place(lhs);
                self.copy(rhs);
                if has_effects(rhs) {
                    // The write stays (its value has effects), so what it writes stays.
                    self.path(lhs);
                }
            }
            Stmt::ApplyBlock { args, .. } => {
                for a in args {
                    match a.direction {
                        Direction::Out => self.place(&a.expr),
                        _ => self.copy(&a.expr),
                    }
                }
            }
            _ => walk_stmt(self, s),
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
            DropWrites { program: &snapshot, dead }.visit_stmts(stmts);
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
    walk_program_exprs_mut(program, &mut fix);
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

/// Deletes the writes of dead fields from every statement list it visits: assignments and
/// `setValid`/`setInvalid` calls go, an `out` argument of an action, function or sub-block becomes `_`.
struct DropWrites<'a> {
    program: &'a Program,
    dead: &'a HashMap<TypeId, Vec<bool>>,
}

impl VisitMut for DropWrites<'_> {
    fn visit_stmts(&mut self, stmts: &mut Vec<Stmt>) {
        stmts.retain(|s| match s {
            Stmt::Assign { lhs, .. } => !through_dead(self.program, lhs, self.dead),
            Stmt::Call(p4_ir::Call { callee: Callee::Builtin { target, builtin }, .. })
                if *builtin != Builtin::IsValid =>
            {
                !through_dead(self.program, target, self.dead)
            }
            _ => true,
        });
        walk_stmts_mut(self, stmts);
    }

    fn visit_stmt(&mut self, s: &mut Stmt) {
        let args = match s {
            Stmt::Call(c) if matches!(c.callee, Callee::Action(_) | Callee::Function(_)) => c.args.as_mut_slice(),
            Stmt::ApplyBlock { args, .. } => args.as_mut_slice(),
            _ => &mut [],
        };
        for a in args {
            if a.direction == Direction::Out && through_dead(self.program, &a.expr, self.dead) {
                a.expr = Expr::new(a.expr.ty.clone(), ExprKind::DontCare, a.expr.span);
            }
        }
        walk_stmt_mut(self, s);
    }

    /// Only statement lists hold writes to delete.
    fn visit_expr(&mut self, _: &mut Expr) {}
}

//! `parallel-actions`: an action body becomes parallel assignments, one per location it writes, each
//! computed from the values the locations had when the action started; conditions become selects
//! (`?:`). Why (seed §3.3.1, "transform sequential semantics to parallel semantics"): a hardware action
//! unit then computes every output in the same cycle instead of one statement after another.
//!
//! `a = x; b = a + 1; if (c) { a = 2; }` becomes `a = c ? 2 : x; b = x + 1;`; the action's own locals
//! disappear into the values that read them. The lowered program is
//! still sequential IR, so the assignments are ordered so that none reads a location an earlier one
//! wrote; where locations read each other (a swap) one of them is first copied into a temporary.
//!
//! Only actions whose bodies are assignments, `init` of locals, `if`s and blocks, over scalar locations
//! (`bit`, `int`, `bool`) named by fixed paths, with effect-free expressions (`isValid()` allowed) are
//! rewritten; an action that calls anything (an extern, `setValid`), returns, exits, writes through a
//! run-time index, writes a whole header or struct, or reads a whole value containing a location it
//! writes, is left as it is. So is one whose parallel form would be more than four times larger.

use crate::util::{fresh_var, has_effects, root_var, vars_mut};
use crate::{Pass, PassError};
use num_bigint::BigInt;
use p4_ir::visit::{walk_expr, walk_expr_mut, walk_stmt, Visit, VisitMut};
use p4_ir::{Expr, ExprKind, Program, Span, Stmt, Type, Value, Var, VarId, VarKind};

pub const NAME: &str = "parallel-actions";

pub struct ParallelActions;

impl Pass for ParallelActions {
    fn name(&self) -> &'static str {
        NAME
    }

    fn run(&self, program: &mut Program) -> Result<(), PassError> {
        for i in 0..program.actions.len() {
            let block = program.actions[i].block.clone();
            let body = program.actions[i].body.clone();
            let Some(vars) = vars_mut(program, &block) else { continue };
            if let Some(new) = parallelize(&body, vars) {
                program.actions[i].body = new;
            }
        }
        Ok(())
    }
}

/// A location: a variable and a path of field indices and constant stack indices.
type Key = (VarId, Vec<i64>);

fn key_of(e: &Expr) -> Option<Key> {
    match &e.kind {
        ExprKind::Var(v) => Some((*v, Vec::new())),
        ExprKind::Field(b, i) => {
            let mut k = key_of(b)?;
            k.1.push(i64::from(*i));
            Some(k)
        }
        ExprKind::Index(b, i) => {
            let ExprKind::Const(Value::Bits { value, .. } | Value::InfInt(value)) = &i.kind else { return None };
            let n: i64 = value.try_into().ok()?;
            let mut k = key_of(b)?;
            k.1.push(-1 - n);
            Some(k)
        }
        _ => None,
    }
}

fn is_prefix(a: &Key, b: &Key) -> bool {
    a.0 == b.0 && a.1.len() <= b.1.len() && b.1[..a.1.len()] == a.1[..]
}

fn scalar(ty: &Type) -> bool {
    matches!(ty, Type::Bits { .. } | Type::Bool)
}

/// Counts the expression nodes it visits.
#[derive(Default)]
struct Size(usize);

impl Visit<'_> for Size {
    fn visit_expr(&mut self, e: &Expr) {
        self.0 += 1;
        walk_expr(self, e);
    }
}

fn size(e: &Expr) -> usize {
    let mut n = Size::default();
    n.visit_expr(e);
    n.0
}

/// The current value of each written location, in first-write order.
#[derive(Clone, Default)]
struct State {
    writes: Vec<(Key, Expr, Expr)>,
}

impl State {
    fn get(&self, k: &Key) -> Option<&Expr> {
        self.writes.iter().find(|(x, _, _)| x == k).map(|(_, _, v)| v)
    }
    fn set(&mut self, k: Key, place: Expr, v: Expr) {
        match self.writes.iter_mut().find(|(x, _, _)| *x == k) {
            Some(w) => w.2 = v,
            None => self.writes.push((k, place, v)),
        }
    }
}

/// `e` with every read of a written location replaced by its current value; `None` if `e` reads a
/// whole value containing a written location or has effects.
fn subst(e: &Expr, st: &State) -> Option<Expr> {
    if has_effects(e) {
        return None;
    }
    let mut out = e.clone();
    let mut s = Subst { st, ok: true };
    s.visit_expr(&mut out);
    s.ok.then_some(out)
}

/// Replaces reads of written locations by their values; `ok` turns false at a read it cannot
/// replace.
struct Subst<'s> {
    st: &'s State,
    ok: bool,
}

impl VisitMut for Subst<'_> {
    fn visit_expr(&mut self, e: &mut Expr) {
        if !self.ok {
            return;
        }
        let writes = &self.st.writes;
        if let Some(k) = key_of(e) {
            if let Some(v) = self.st.get(&k) {
                *e = v.clone();
            } else if writes.iter().any(|(w, _, _)| is_prefix(&k, w) && *w != k) {
                // A larger value holding a written location, or a run-time-indexed part of one.
                self.ok = false;
            }
            return;
        }
        match &e.kind {
            // A run-time index into storage the action writes: too dynamic.
            ExprKind::Index(b, _) if root_var(b).is_some_and(|root| writes.iter().any(|(w, _, _)| w.0 == root)) => {
                self.ok = false;
            }
            // Only isValid() (has_effects allowed it): its header must not be written here.
            ExprKind::Call(c) => {
                self.ok = match &c.callee {
                    p4_ir::Callee::Builtin { target, .. } => {
                        key_of(target).is_some_and(|k| !writes.iter().any(|(w, _, _)| is_prefix(&k, w)))
                    }
                    _ => false,
                }
            }
            ExprKind::StackNext(_) | ExprKind::StackLast(_) | ExprKind::ApplyTable(..) => self.ok = false,
            _ => walk_expr_mut(self, e),
        }
    }
}

fn zero(ty: &Type, span: Span) -> Option<Expr> {
    match ty {
        Type::Bits { width, signed } => Some(Expr::constant(
            Value::Bits { width: *width, signed: *signed, value: BigInt::from(0) },
            ty.clone(),
            span,
        )),
        Type::Bool => Some(Expr::constant(Value::Bool(false), Type::Bool, span)),
        _ => None,
    }
}

fn exec(stmts: &[Stmt], st: &mut State, vars: &[Var]) -> Option<()> {
    for s in stmts {
        match s {
            Stmt::Assign { lhs, rhs, .. } => {
                let k = key_of(lhs)?;
                if !scalar(&lhs.ty) {
                    return None;
                }
                let v = subst(rhs, st)?;
                st.set(k, lhs.clone(), v);
            }
            Stmt::VarInit { var, init, span } => {
                let ty = vars.get(var.index())?.ty.clone();
                if !scalar(&ty) {
                    return None;
                }
                let v = match init {
                    Some(e) => subst(e, st)?,
                    None => zero(&ty, *span)?,
                };
                st.set((*var, Vec::new()), Expr::new(ty, ExprKind::Var(*var), *span), v);
            }
            Stmt::If { cond, then, otherwise, span } => {
                let c = subst(cond, st)?;
                let (mut a, mut b) = (st.clone(), st.clone());
                exec(then, &mut a, vars)?;
                exec(otherwise, &mut b, vars)?;
                // Every location either branch wrote, in first-write order.
                let mut keys: Vec<(Key, Expr)> = Vec::new();
                for (k, p, _) in a.writes.iter().chain(&b.writes) {
                    if !keys.iter().any(|(x, _)| x == k) {
                        keys.push((k.clone(), p.clone()));
                    }
                }
                for (k, place) in keys {
                    let va = a.get(&k).cloned().unwrap_or_else(|| place.clone());
                    let vb = b.get(&k).cloned().unwrap_or_else(|| place.clone());
                    let v = if size(&va) == size(&vb) && format!("{va:?}") == format!("{vb:?}") {
                        va
                    } else {
                        Expr::new(
                            place.ty.clone(),
                            ExprKind::Mux(Box::new(c.clone()), Box::new(va), Box::new(vb)),
                            *span,
                        )
                    };
                    st.set(k, place, v);
                }
            }
            Stmt::Block(l) => exec(l, st, vars)?,
            Stmt::Empty => {}
            _ => return None,
        }
    }
    Some(())
}

/// The keys of the locations `e` reads.
fn reads(e: &Expr, out: &mut Vec<Key>) {
    struct Reads<'o>(&'o mut Vec<Key>);
    impl Visit<'_> for Reads<'_> {
        fn visit_expr(&mut self, e: &Expr) {
            match key_of(e) {
                Some(k) => self.0.push(k),
                None => walk_expr(self, e),
            }
        }
    }
    Reads(out).visit_expr(e);
}

/// Replaces the reads of location `k` in `e` by `with`.
fn replace_reads(e: &mut Expr, k: &Key, with: &Expr) {
    struct Replace<'a> {
        k: &'a Key,
        with: &'a Expr,
    }
    impl VisitMut for Replace<'_> {
        fn visit_expr(&mut self, e: &mut Expr) {
            if key_of(e).as_ref() == Some(self.k) {
                *e = self.with.clone();
            } else {
                walk_expr_mut(self, e);
            }
        }
    }
    Replace { k, with }.visit_expr(e);
}

fn parallelize(body: &[Stmt], vars: &mut Vec<Var>) -> Option<Vec<Stmt>> {
    let mut st = State::default();
    exec(body, &mut st, vars)?;
    // The action's own locals (declared by `init` in its body) live only inside it: their values have
    // been substituted into the writes that read them, so their own writes go.
    let mut locals = Vec::new();
    declared(body, &mut locals);
    st.writes.retain(|(k, _, _)| !(k.1.is_empty() && locals.contains(&k.0)));
    let before: usize = body_size(body);
    let after: usize = st.writes.iter().map(|(_, p, v)| size(p) + size(v)).sum();
    if after > 4 * before.max(1) {
        return None;
    }
    // Order: a write must come after every write whose value reads its location.
    let mut pending: Vec<(Key, Expr, Expr)> = st.writes;
    let mut out = Vec::new();
    while !pending.is_empty() {
        let ready = (0..pending.len()).find(|&j| {
            // No other pending value still reads location j.
            pending.iter().enumerate().all(|(i, (_, _, v))| {
                if i == j {
                    return true;
                }
                let mut r = Vec::new();
                reads(v, &mut r);
                !r.contains(&pending[j].0)
            })
        });
        let j = match ready {
            Some(j) => j,
            None => {
                // A cycle (a swap): keep the old value of the first location in a temporary.
                let (k, place, _) = pending[0].clone();
                // One such temporary per type and frame serves every action: it is set right before
                // its use. (Reusing it also keeps a second lowering from adding another.)
                let existing = vars
                    .iter()
                    .position(|v| v.name.starts_with("old_value") && v.ty == place.ty && v.kind == VarKind::Temp);
                let tmp = match existing {
                    Some(i) => VarId(i as u32),
                    None => fresh_var(vars, "old_value", place.ty.clone(), VarKind::Temp),
                };
                let tmp_expr = Expr::new(place.ty.clone(), ExprKind::Var(tmp), place.span);
                out.push(Stmt::VarInit { var: tmp, init: Some(place.clone()), span: place.span });
                for (i, (_, _, v)) in pending.iter_mut().enumerate() {
                    if i != 0 {
                        replace_reads(v, &k, &tmp_expr);
                    }
                }
                continue;
            }
        };
        let (k, place, v) = pending.remove(j);
        let span = place.span;
        // `x = x` writes nothing new.
        if key_of(&v).as_ref() != Some(&k) {
            out.push(Stmt::Assign { lhs: place, rhs: v, span });
        }
    }
    Some(out)
}

/// The expression nodes of `stmts` (nested statements included) and the number of statements.
fn body_size(stmts: &[Stmt]) -> usize {
    let mut n = Size::default();
    n.visit_stmts(stmts);
    n.0 + stmts.len()
}

/// The variables `init` statements of `stmts` declare (nested ones included).
fn declared(stmts: &[Stmt], out: &mut Vec<VarId>) {
    struct Declared<'o>(&'o mut Vec<VarId>);
    impl Visit<'_> for Declared<'_> {
        fn visit_stmt(&mut self, s: &Stmt) {
            if let Stmt::VarInit { var, .. } = s {
                self.0.push(*var);
            }
            walk_stmt(self, s);
        }
        fn visit_expr(&mut self, _: &Expr) {}
    }
    Declared(out).visit_stmts(stmts);
}

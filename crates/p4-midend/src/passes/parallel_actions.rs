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

use crate::util::{fresh_var, has_effects, vars_mut, walk_expr_mut};
use crate::{Pass, PassError};
use num_bigint::BigInt;
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

fn size(e: &Expr) -> usize {
    let mut n = 0;
    walk_expr_mut(&mut e.clone(), &mut |_| n += 1);
    n
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
    if let Some(k) = key_of(e) {
        if let Some(v) = st.get(&k) {
            return Some(v.clone());
        }
        // A larger value holding a written location, or a run-time-indexed part of one.
        if st.writes.iter().any(|(w, _, _)| is_prefix(&k, w) && *w != k) {
            return None;
        }
        return Some(e.clone());
    }
    let mut out = e.clone();
    let ok = match &mut out.kind {
        ExprKind::Var(_) | ExprKind::Const(_) | ExprKind::InvalidHeader | ExprKind::Extern(_) | ExprKind::DontCare => {
            true
        }
        ExprKind::Field(b, _)
        | ExprKind::Slice(b, _, _)
        | ExprKind::Unary(_, b)
        | ExprKind::Cast(b)
        | ExprKind::StackLastIndex(b) => subst(b, st).map(|x| **b = x).is_some(),
        ExprKind::Index(b, i) => {
            // A run-time index into storage the action writes: too dynamic.
            if let Some(root) = crate::util::root_var(b) {
                if st.writes.iter().any(|(w, _, _)| w.0 == root) {
                    return None;
                }
            }
            subst(b, st).map(|x| **b = x).is_some() && subst(i, st).map(|x| **i = x).is_some()
        }
        ExprKind::Binary(_, l, r) => subst(l, st).map(|x| **l = x).is_some() && subst(r, st).map(|x| **r = x).is_some(),
        ExprKind::Mux(c, a, b) => {
            subst(c, st).map(|x| **c = x).is_some()
                && subst(a, st).map(|x| **a = x).is_some()
                && subst(b, st).map(|x| **b = x).is_some()
        }
        ExprKind::Aggregate(xs) => xs.iter_mut().all(|x| subst(x, st).map(|y| *x = y).is_some()),
        ExprKind::Call(c) => {
            // Only isValid() (has_effects allowed it): its header must not be written here.
            match &c.callee {
                p4_ir::Callee::Builtin { target, .. } => match key_of(target) {
                    Some(k) => !st.writes.iter().any(|(w, _, _)| is_prefix(&k, w)),
                    None => false,
                },
                _ => false,
            }
        }
        ExprKind::StackNext(_) | ExprKind::StackLast(_) | ExprKind::ApplyTable(..) => false,
    };
    ok.then_some(out)
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
    if let Some(k) = key_of(e) {
        out.push(k);
        return;
    }
    match &e.kind {
        ExprKind::Field(b, _)
        | ExprKind::Slice(b, _, _)
        | ExprKind::Unary(_, b)
        | ExprKind::Cast(b)
        | ExprKind::StackLastIndex(b) => reads(b, out),
        ExprKind::Index(b, i) | ExprKind::Binary(_, b, i) => {
            reads(b, out);
            reads(i, out);
        }
        ExprKind::Mux(c, a, b) => {
            reads(c, out);
            reads(a, out);
            reads(b, out);
        }
        ExprKind::Aggregate(xs) => xs.iter().for_each(|x| reads(x, out)),
        ExprKind::Call(c) => {
            if let p4_ir::Callee::Builtin { target, .. } = &c.callee {
                reads(target, out);
            }
        }
        _ => {}
    }
}

fn replace_reads(e: &mut Expr, k: &Key, with: &Expr) {
    if key_of(e).as_ref() == Some(k) {
        *e = with.clone();
        return;
    }
    match &mut e.kind {
        ExprKind::Field(b, _)
        | ExprKind::Slice(b, _, _)
        | ExprKind::Unary(_, b)
        | ExprKind::Cast(b)
        | ExprKind::StackLastIndex(b) => replace_reads(b, k, with),
        ExprKind::Index(b, i) | ExprKind::Binary(_, b, i) => {
            replace_reads(b, k, with);
            replace_reads(i, k, with);
        }
        ExprKind::Mux(c, a, b) => {
            replace_reads(c, k, with);
            replace_reads(a, k, with);
            replace_reads(b, k, with);
        }
        ExprKind::Aggregate(xs) => xs.iter_mut().for_each(|x| replace_reads(x, k, with)),
        _ => {}
    }
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

fn body_size(stmts: &[Stmt]) -> usize {
    let mut n = 0;
    let mut copy = stmts.to_vec();
    crate::util::walk_stmts_exprs_mut(&mut copy, &mut |_| n += 1);
    n + stmts.len()
}

fn declared(stmts: &[Stmt], out: &mut Vec<VarId>) {
    for s in stmts {
        match s {
            Stmt::VarInit { var, .. } => out.push(*var),
            Stmt::If { then, otherwise, .. } => {
                declared(then, out);
                declared(otherwise, out);
            }
            Stmt::Block(l) => declared(l, out),
            _ => {}
        }
    }
}

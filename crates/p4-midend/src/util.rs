//! Helpers shared by the passes: finding every statement list of a program with the frame it runs
//! in, walking expressions, and making fresh variables.

use p4_ir::{BlockRef, Call, Callee, Expr, ExprKind, Program, Stmt, Type, Var, VarId, VarKind};

/// Which statement list of the program: the unit a pass rewrites.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Body {
    ParserInit(usize),
    ParserState(usize, usize),
    ControlInit(usize),
    ControlBody(usize),
    Action(usize),
    Function(usize),
}

/// Every statement list of the program with the block whose frame it runs in.
pub fn bodies(program: &Program) -> Vec<(BlockRef, Body)> {
    let mut out = Vec::new();
    for (i, p) in program.parsers.iter().enumerate() {
        let b = BlockRef::Parser(p4_ir::ParserId(i as u32));
        out.push((b.clone(), Body::ParserInit(i)));
        for s in 0..p.states.len() {
            out.push((b.clone(), Body::ParserState(i, s)));
        }
    }
    for i in 0..program.controls.len() {
        let b = BlockRef::Control(p4_ir::ControlId(i as u32));
        out.push((b.clone(), Body::ControlInit(i)));
        out.push((b, Body::ControlBody(i)));
    }
    for (i, a) in program.actions.iter().enumerate() {
        out.push((a.block.clone(), Body::Action(i)));
    }
    for (i, f) in program.functions.iter().enumerate() {
        out.push((f.block.clone(), Body::Function(i)));
    }
    out
}

/// The statement list `body` names (an empty list if it does not exist).
pub fn body_mut(program: &mut Program, body: Body) -> Option<&mut Vec<Stmt>> {
    Some(match body {
        Body::ParserInit(p) => &mut program.parsers.get_mut(p)?.init,
        Body::ParserState(p, s) => &mut program.parsers.get_mut(p)?.states.get_mut(s)?.body,
        Body::ControlInit(c) => &mut program.controls.get_mut(c)?.init,
        Body::ControlBody(c) => &mut program.controls.get_mut(c)?.body,
        Body::Action(a) => &mut program.actions.get_mut(a)?.body,
        Body::Function(f) => &mut program.functions.get_mut(f)?.body,
    })
}

/// Takes a statement list out of the program (put it back with [`put_body`]), so that a pass can
/// rewrite it while reading and extending the rest of the program.
pub fn take_body(program: &mut Program, body: Body) -> Vec<Stmt> {
    body_mut(program, body).map(std::mem::take).unwrap_or_default()
}

pub fn put_body(program: &mut Program, body: Body, stmts: Vec<Stmt>) {
    if let Some(b) = body_mut(program, body) {
        *b = stmts;
    }
}

/// The frame of block `b`.
pub fn vars_mut<'p>(program: &'p mut Program, b: &BlockRef) -> Option<&'p mut Vec<Var>> {
    match b {
        BlockRef::Parser(p) => program.parsers.get_mut(p.index()).map(|x| &mut x.block.vars),
        BlockRef::Control(c) => program.controls.get_mut(c.index()).map(|x| &mut x.block.vars),
    }
}

pub fn vars<'p>(program: &'p Program, b: &BlockRef) -> &'p [Var] {
    match b {
        BlockRef::Parser(p) => program.parsers.get(p.index()).map(|x| x.block.vars.as_slice()),
        BlockRef::Control(c) => program.controls.get(c.index()).map(|x| x.block.vars.as_slice()),
    }
    .unwrap_or(&[])
}

/// Adds a variable to a frame under a name no other variable of the frame has (`base`, `base_1`,
/// `base_2`, ...: frame names are unique, the printer and the text form rely on it).
pub fn fresh_var(vars: &mut Vec<Var>, base: &str, ty: Type, kind: VarKind) -> VarId {
    let taken = |n: &str| vars.iter().any(|v| v.name == n);
    let mut name = base.to_string();
    let mut k = 1;
    while taken(&name) {
        name = format!("{base}_{k}");
        k += 1;
    }
    vars.push(Var { name, ty, kind });
    VarId((vars.len() - 1) as u32)
}

/// Calls `f` on every statement list nested in `stmts` (not on `stmts` itself), innermost first.
pub fn for_each_nested_list(stmts: &mut [Stmt], f: &mut dyn FnMut(&mut Vec<Stmt>)) {
    for s in stmts {
        match s {
            Stmt::If { then, otherwise, .. } => {
                for l in [then, otherwise] {
                    for_each_nested_list(l, f);
                    f(l);
                }
            }
            Stmt::SwitchAction { cases, .. } => {
                for (_, l) in cases {
                    for_each_nested_list(l, f);
                    f(l);
                }
            }
            Stmt::SwitchValue { cases, .. } => {
                for (_, l) in cases {
                    for_each_nested_list(l, f);
                    f(l);
                }
            }
            Stmt::Block(l) => {
                for_each_nested_list(l, f);
                f(l);
            }
            Stmt::For { init, update, body, .. } => {
                for l in [init, update, body] {
                    for_each_nested_list(l, f);
                    f(l);
                }
            }
            _ => {}
        }
    }
}

/// Calls `f` on every expression node below `e` and on `e`, children first.
pub fn walk_expr_mut(e: &mut Expr, f: &mut dyn FnMut(&mut Expr)) {
    match &mut e.kind {
        ExprKind::Field(b, _)
        | ExprKind::StackNext(b)
        | ExprKind::StackLast(b)
        | ExprKind::StackLastIndex(b)
        | ExprKind::Slice(b, _, _)
        | ExprKind::Unary(_, b)
        | ExprKind::Cast(b) => walk_expr_mut(b, f),
        ExprKind::Index(b, i) => {
            walk_expr_mut(b, f);
            walk_expr_mut(i, f);
        }
        ExprKind::Binary(_, l, r) => {
            walk_expr_mut(l, f);
            walk_expr_mut(r, f);
        }
        ExprKind::Mux(c, a, b) => {
            walk_expr_mut(c, f);
            walk_expr_mut(a, f);
            walk_expr_mut(b, f);
        }
        ExprKind::Call(call) => walk_call_mut(call, f),
        ExprKind::Aggregate(xs) => xs.iter_mut().for_each(|x| walk_expr_mut(x, f)),
        ExprKind::Const(_)
        | ExprKind::Var(_)
        | ExprKind::ApplyTable(..)
        | ExprKind::InvalidHeader
        | ExprKind::Extern(_)
        | ExprKind::DontCare => {}
    }
    f(e);
}

fn walk_call_mut(call: &mut p4_ir::Call, f: &mut dyn FnMut(&mut Expr)) {
    match &mut call.callee {
        p4_ir::Callee::Method { target, .. } | p4_ir::Callee::Builtin { target, .. } => walk_expr_mut(target, f),
        _ => {}
    }
    for a in &mut call.args {
        walk_expr_mut(&mut a.expr, f);
    }
}

/// The operands of `e` (its direct sub-expressions), in evaluation order.
pub fn children(e: &Expr) -> Vec<&Expr> {
    match &e.kind {
        ExprKind::Field(b, _)
        | ExprKind::StackNext(b)
        | ExprKind::StackLast(b)
        | ExprKind::StackLastIndex(b)
        | ExprKind::Slice(b, _, _)
        | ExprKind::Unary(_, b)
        | ExprKind::Cast(b) => vec![b],
        ExprKind::Index(a, b) | ExprKind::Binary(_, a, b) => vec![a, b],
        ExprKind::Mux(c, a, b) => vec![c, a, b],
        ExprKind::Aggregate(xs) => xs.iter().collect(),
        ExprKind::Call(c) => call_exprs(c),
        _ => vec![],
    }
}

/// The expressions of a call: the method target, then the arguments.
pub fn call_exprs(c: &Call) -> Vec<&Expr> {
    let mut v = Vec::new();
    if let Callee::Method { target, .. } | Callee::Builtin { target, .. } = &c.callee {
        v.push(&**target);
    }
    v.extend(c.args.iter().map(|a| &a.expr));
    v
}

/// [`children`], mutably.
pub fn children_mut(e: &mut Expr) -> Vec<&mut Expr> {
    match &mut e.kind {
        ExprKind::Field(b, _)
        | ExprKind::StackNext(b)
        | ExprKind::StackLast(b)
        | ExprKind::StackLastIndex(b)
        | ExprKind::Slice(b, _, _)
        | ExprKind::Unary(_, b)
        | ExprKind::Cast(b) => vec![b],
        ExprKind::Index(a, b) | ExprKind::Binary(_, a, b) => vec![a, b],
        ExprKind::Mux(c, a, b) => vec![c, a, b],
        ExprKind::Aggregate(xs) => xs.iter_mut().collect(),
        ExprKind::Call(c) => call_exprs_mut(c),
        _ => vec![],
    }
}

/// [`call_exprs`], mutably.
pub fn call_exprs_mut(c: &mut Call) -> Vec<&mut Expr> {
    let mut v = Vec::new();
    if let Callee::Method { target, .. } | Callee::Builtin { target, .. } = &mut c.callee {
        v.push(&mut **target);
    }
    v.extend(c.args.iter_mut().map(|a| &mut a.expr));
    v
}

/// Calls `f` on every expression node of `stmts`, nested statements included.
pub fn walk_stmts_exprs_mut(stmts: &mut [Stmt], f: &mut dyn FnMut(&mut Expr)) {
    for s in stmts {
        match s {
            Stmt::VarInit { init, .. } => {
                if let Some(e) = init {
                    walk_expr_mut(e, f)
                }
            }
            Stmt::Assign { lhs, rhs, .. } => {
                walk_expr_mut(lhs, f);
                walk_expr_mut(rhs, f);
            }
            Stmt::Call(c) => walk_call_mut(c, f),
            Stmt::ApplyBlock { args, .. } => args.iter_mut().for_each(|a| walk_expr_mut(&mut a.expr, f)),
            Stmt::If { cond, then, otherwise, .. } => {
                walk_expr_mut(cond, f);
                walk_stmts_exprs_mut(then, f);
                walk_stmts_exprs_mut(otherwise, f);
            }
            Stmt::SwitchAction { cases, .. } => cases.iter_mut().for_each(|(_, l)| walk_stmts_exprs_mut(l, f)),
            Stmt::SwitchValue { expr, cases, .. } => {
                walk_expr_mut(expr, f);
                cases.iter_mut().for_each(|(_, l)| walk_stmts_exprs_mut(l, f));
            }
            Stmt::Block(l) => walk_stmts_exprs_mut(l, f),
            Stmt::Return(Some(e), _) => walk_expr_mut(e, f),
            Stmt::For { init, cond, update, body, .. } => {
                walk_stmts_exprs_mut(init, f);
                if let Some(c) = cond {
                    walk_expr_mut(c, f);
                }
                walk_stmts_exprs_mut(update, f);
                walk_stmts_exprs_mut(body, f);
            }
            Stmt::ApplyTable { .. }
            | Stmt::Exit(_)
            | Stmt::Return(None, _)
            | Stmt::Break(_)
            | Stmt::Continue(_)
            | Stmt::Empty => {}
        }
    }
}

/// True if some statement in `stmts` (nested ones included) satisfies `pred`.
pub fn any_stmt(stmts: &[Stmt], pred: &dyn Fn(&Stmt) -> bool) -> bool {
    stmts.iter().any(|s| {
        pred(s)
            || match s {
                Stmt::If { then, otherwise, .. } => any_stmt(then, pred) || any_stmt(otherwise, pred),
                Stmt::SwitchAction { cases, .. } => cases.iter().any(|(_, l)| any_stmt(l, pred)),
                Stmt::SwitchValue { cases, .. } => cases.iter().any(|(_, l)| any_stmt(l, pred)),
                Stmt::Block(l) => any_stmt(l, pred),
                Stmt::For { init, update, body, .. } => {
                    any_stmt(init, pred) || any_stmt(update, pred) || any_stmt(body, pred)
                }
                _ => false,
            }
    })
}

/// True if evaluating `e` can have an effect or depends on one: a call (other than `isValid()`) or a
/// table apply.
pub fn has_effects(e: &Expr) -> bool {
    e.any(&mut |x| match &x.kind {
        ExprKind::Call(c) => !matches!(c.callee, p4_ir::Callee::Builtin { builtin: p4_ir::Builtin::IsValid, .. }),
        ExprKind::ApplyTable(..) => true,
        _ => false,
    })
}

/// True if `e` names storage whose place is fixed at compile time: variables, fields and constant
/// stack indices (no `next`/`last`, no run-time index).
pub fn is_static_place(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Var(_) => true,
        ExprKind::Field(b, _) | ExprKind::Slice(b, _, _) => is_static_place(b),
        ExprKind::Index(b, i) => matches!(i.kind, ExprKind::Const(_)) && is_static_place(b),
        _ => false,
    }
}

/// The variable an l-value is rooted in.
pub fn root_var(e: &Expr) -> Option<VarId> {
    match &e.kind {
        ExprKind::Var(v) => Some(*v),
        ExprKind::Field(b, _)
        | ExprKind::Index(b, _)
        | ExprKind::StackNext(b)
        | ExprKind::StackLast(b)
        | ExprKind::Slice(b, _, _) => root_var(b),
        _ => None,
    }
}

/// Renames the variable of every `init` statement in `stmts` (nested ones included) through `map`
/// (expressions are renamed with [`walk_stmts_exprs_mut`]; `init` names its variable directly).
pub fn rename_var_inits(stmts: &mut [Stmt], map: &dyn Fn(VarId) -> Option<VarId>) {
    for s in stmts {
        match s {
            Stmt::VarInit { var, .. } => {
                if let Some(n) = map(*var) {
                    *var = n;
                }
            }
            Stmt::If { then, otherwise, .. } => {
                rename_var_inits(then, map);
                rename_var_inits(otherwise, map);
            }
            Stmt::SwitchAction { cases, .. } => cases.iter_mut().for_each(|(_, l)| rename_var_inits(l, map)),
            Stmt::SwitchValue { cases, .. } => cases.iter_mut().for_each(|(_, l)| rename_var_inits(l, map)),
            Stmt::Block(l) => rename_var_inits(l, map),
            Stmt::For { init, update, body, .. } => {
                rename_var_inits(init, map);
                rename_var_inits(update, map);
                rename_var_inits(body, map);
            }
            _ => {}
        }
    }
}

/// One step of an access path.
#[derive(PartialEq)]
enum Step {
    Field(u32),
    Index(Option<num_bigint::BigInt>),
    Other,
}

fn path_steps(e: &Expr, out: &mut Vec<Step>) -> Option<VarId> {
    match &e.kind {
        ExprKind::Var(v) => Some(*v),
        ExprKind::Field(b, i) => {
            let r = path_steps(b, out);
            out.push(Step::Field(*i));
            r
        }
        ExprKind::Index(b, i) => {
            let r = path_steps(b, out);
            let k = match &i.kind {
                ExprKind::Const(p4_ir::Value::Bits { value, .. } | p4_ir::Value::InfInt(value)) => Some(value.clone()),
                _ => None,
            };
            out.push(Step::Index(k));
            r
        }
        ExprKind::StackNext(b) | ExprKind::StackLast(b) | ExprKind::Slice(b, _, _) => {
            let r = path_steps(b, out);
            out.push(Step::Other);
            r
        }
        _ => None,
    }
}

/// True if the storage named by `a` and `b` may overlap (`hdr.x` and `hdr.x.f` do, `hdr.x` and
/// `hdr.y` do not; a run-time index or anything that is not a path overlaps everything of its root).
pub fn may_overlap(a: &Expr, b: &Expr) -> bool {
    let (mut sa, mut sb) = (Vec::new(), Vec::new());
    let (Some(ra), Some(rb)) = (path_steps(a, &mut sa), path_steps(b, &mut sb)) else {
        // Not a path (a constant, an expression): it names no storage of the caller.
        return false;
    };
    if ra != rb {
        return false;
    }
    for (x, y) in sa.iter().zip(&sb) {
        let differ = match (x, y) {
            (Step::Field(i), Step::Field(j)) => i != j,
            (Step::Index(Some(i)), Step::Index(Some(j))) => i != j,
            _ => false,
        };
        if differ {
            return false;
        }
    }
    true
}

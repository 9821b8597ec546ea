//! Helpers shared by the passes: finding every statement list of a program with the frame it runs
//! in, walking expressions, and making fresh variables.

use p4_ir::visit::{self, VisitMut};
use p4_ir::{BlockRef, Expr, ExprKind, Program, Stmt, Type, Var, VarId, VarKind};

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

/// The statement list `body` names (empty if it does not exist).
pub fn stmts_of(program: &Program, body: Body) -> &[Stmt] {
    let list = match body {
        Body::ParserInit(p) => program.parsers.get(p).map(|p| &p.init),
        Body::ParserState(p, s) => program.parsers.get(p).and_then(|p| p.states.get(s)).map(|s| &s.body),
        Body::ControlInit(c) => program.controls.get(c).map(|c| &c.init),
        Body::ControlBody(c) => program.controls.get(c).map(|c| &c.body),
        Body::Action(a) => program.actions.get(a).map(|a| &a.body),
        Body::Function(f) => program.functions.get(f).map(|f| &f.body),
    };
    list.map_or(&[], |l| l.as_slice())
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
    struct Lists<'f>(&'f mut dyn FnMut(&mut Vec<Stmt>));
    impl VisitMut for Lists<'_> {
        fn visit_stmts(&mut self, l: &mut Vec<Stmt>) {
            visit::walk_stmts_mut(self, l);
            (self.0)(l);
        }
        fn visit_expr(&mut self, _: &mut Expr) {}
    }
    let mut lists = Lists(f);
    stmts.iter_mut().for_each(|s| lists.visit_stmt(s));
}

/// Calls `f` on every expression node below `e` and on `e`, children first.
pub fn walk_expr_mut(e: &mut Expr, f: &mut dyn FnMut(&mut Expr)) {
    PostOrder(f).visit_expr(e);
}

/// Calls `f` on every expression node of `stmts`, nested statements included (each expression
/// after those below it).
pub fn walk_stmts_exprs_mut(stmts: &mut [Stmt], f: &mut dyn FnMut(&mut Expr)) {
    let mut post = PostOrder(f);
    stmts.iter_mut().for_each(|s| post.visit_stmt(s));
}

/// Calls `f` on every expression node of the program (statements, select keys and keysets, table
/// keys, action arguments and entry keysets; [`visit::walk_program_mut`]), each after those below it.
pub fn walk_program_exprs_mut(program: &mut Program, f: &mut dyn FnMut(&mut Expr)) {
    visit::walk_program_mut(&mut PostOrder(f), program);
}

/// Hands every expression to its function after the expressions below it.
struct PostOrder<'f>(&'f mut dyn FnMut(&mut Expr));

impl VisitMut for PostOrder<'_> {
    fn visit_expr(&mut self, e: &mut Expr) {
        visit::walk_expr_mut(self, e);
        (self.0)(e);
    }
}

/// True if some statement in `stmts` (nested ones included) satisfies `pred`.
pub fn any_stmt(stmts: &[Stmt], pred: &dyn Fn(&Stmt) -> bool) -> bool {
    p4_ir::visit::any_stmt(stmts, pred)
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
    struct Inits<'m>(&'m dyn Fn(VarId) -> Option<VarId>);
    impl VisitMut for Inits<'_> {
        fn visit_stmt(&mut self, s: &mut Stmt) {
            if let Stmt::VarInit { var, .. } = s {
                if let Some(n) = (self.0)(*var) {
                    *var = n;
                }
            }
            visit::walk_stmt_mut(self, s);
        }
        fn visit_expr(&mut self, _: &mut Expr) {}
    }
    let mut inits = Inits(map);
    stmts.iter_mut().for_each(|s| inits.visit_stmt(s));
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

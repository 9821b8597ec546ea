//! Moving a nested block's frame into its caller, shared by the control and parser inliners: each
//! variable of the callee becomes a variable of the caller (`<instance>.<name>`), except parameters
//! bound by reference, which become the caller's argument expression.

use crate::util::{fresh_var, rename_var_inits, walk_expr_mut, walk_stmts_exprs_mut};
use p4_ir::{Block, BlockRef, Direction, Expr, ExprKind, Program, Span, Stmt, Type, VarId, VarKind};
use std::collections::HashMap;

/// A parameter that is copied: its position, its variable in the caller, its type and direction.
pub(crate) struct CopiedParam {
    pub pos: usize,
    pub var: VarId,
    pub ty: Type,
    pub dir: Direction,
}

/// The callee's variables as the caller sees them.
pub(crate) struct Moved {
    map: HashMap<VarId, Expr>,
    pub copied: Vec<CopiedParam>,
}

impl Moved {
    /// Rewrites callee code (statements) to caller variables.
    pub fn stmts(&self, stmts: &mut [Stmt]) {
        let var_of = |v: VarId| match self.map.get(&v) {
            Some(Expr { kind: ExprKind::Var(n), .. }) => Some(*n),
            _ => None,
        };
        rename_var_inits(stmts, &var_of);
        walk_stmts_exprs_mut(stmts, &mut |e| self.fix(e));
    }

    pub fn expr(&self, e: &mut Expr) {
        walk_expr_mut(e, &mut |x| self.fix(x));
    }

    /// The caller variable of callee variable `v`, if it is one (not a by-reference parameter).
    pub fn var(&self, v: VarId) -> Option<VarId> {
        match self.map.get(&v) {
            Some(Expr { kind: ExprKind::Var(n), .. }) => Some(*n),
            _ => None,
        }
    }

    fn fix(&self, e: &mut Expr) {
        if let ExprKind::Var(v) = e.kind {
            if let Some(r) = self.map.get(&v) {
                let span = e.span;
                *e = r.clone();
                if e.span == Span::DUMMY {
                    e.span = span;
                }
            }
        }
    }
}

fn param_direction(kind: &VarKind) -> Direction {
    match kind {
        VarKind::Param(d) => *d,
        _ => Direction::In,
    }
}

/// Appends `callee`'s frame to `caller`'s; `binding[k]` is the argument substituted for parameter `k`
/// (`None`: the parameter gets a variable and is copied).
pub(crate) fn move_frame(
    program: &mut Program,
    callee: &Block,
    caller: &BlockRef,
    prefix: &str,
    binding: &[Option<Expr>],
) -> Moved {
    let mut map = HashMap::new();
    let mut copied = Vec::new();
    let Some(vars) = crate::util::vars_mut(program, caller) else { return Moved { map, copied } };
    for (i, v) in callee.vars.iter().enumerate() {
        let id = VarId(i as u32);
        let pos = callee.params.iter().position(|p| *p == id);
        if let Some(Some(e)) = pos.and_then(|p| binding.get(p)) {
            map.insert(id, e.clone());
            continue;
        }
        // Parameters and block locals are initialised at the call site now: plain temporaries.
        let kind = match &v.kind {
            VarKind::Param(_) | VarKind::Local => VarKind::Temp,
            k => k.clone(),
        };
        let new = fresh_var(vars, &format!("{prefix}.{}", v.name), v.ty.clone(), kind);
        map.insert(id, Expr::new(v.ty.clone(), ExprKind::Var(new), Span::DUMMY));
        if let Some(pos) = pos {
            copied.push(CopiedParam { pos, var: new, ty: v.ty.clone(), dir: param_direction(&v.kind) });
        }
    }
    Moved { map, copied }
}

/// Actions and functions of block `old` now run in `new`: their code and parameters are rewritten.
pub(crate) fn rehome_callables(program: &mut Program, old: &BlockRef, new: &BlockRef, moved: &Moved) {
    for a in program.actions.iter_mut().filter(|a| a.block == *old) {
        a.block = new.clone();
        moved.stmts(&mut a.body);
        for p in &mut a.params {
            if let Some(v) = moved.var(p.var) {
                p.var = v;
            }
        }
    }
    for f in program.functions.iter_mut().filter(|f| f.block == *old) {
        f.block = new.clone();
        moved.stmts(&mut f.body);
        for p in &mut f.params {
            if let Some(v) = moved.var(p.var) {
                p.var = v;
            }
        }
        if let Some(v) = f.ret_var.and_then(|r| moved.var(r)) {
            f.ret_var = Some(v);
        }
    }
}

/// The copy-in statements of the copied parameters (`out` ones are re-initialised).
pub(crate) fn copy_ins(moved: &Moved, args: &[p4_ir::Arg]) -> Vec<Stmt> {
    let span = Span::DUMMY;
    let mut out = Vec::new();
    for c in &moved.copied {
        let Some(a) = args.get(c.pos) else { continue };
        match c.dir {
            Direction::Out => out.push(Stmt::VarInit { var: c.var, init: None, span }),
            _ if matches!(a.expr.kind, ExprKind::DontCare) => {}
            _ => out.push(Stmt::Assign {
                lhs: Expr::new(c.ty.clone(), ExprKind::Var(c.var), span),
                rhs: a.expr.clone(),
                span,
            }),
        }
    }
    out
}

/// The copy-out statements of the copied `out`/`inout` parameters.
pub(crate) fn copy_outs(moved: &Moved, args: &[p4_ir::Arg]) -> Vec<Stmt> {
    let span = Span::DUMMY;
    let mut out = Vec::new();
    for c in &moved.copied {
        let Some(a) = args.get(c.pos) else { continue };
        if matches!(c.dir, Direction::Out | Direction::InOut) && !matches!(a.expr.kind, ExprKind::DontCare) {
            out.push(Stmt::Assign {
                lhs: a.expr.clone(),
                rhs: Expr::new(c.ty.clone(), ExprKind::Var(c.var), span),
                span,
            });
        }
    }
    out
}

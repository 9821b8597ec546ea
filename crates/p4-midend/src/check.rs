//! A structural check of a (lowered) program: the invariants the passes most easily break when they
//! move statements, variables and objects between blocks. The tests run it after every pass together
//! with the IR's verifier (`p4_ir::verify`), which checks more (types, l-values, table actions); this
//! one is cheap and names the statement list at fault.
//!
//! Checked: every variable an expression or `init` names exists in the frame the code runs in;
//! variable names are unique within a frame; field indices exist in their struct/header/union;
//! action, function, table, control and parser ids are in range, and each table's control, each
//! action's and function's block exist; every control lists its own tables; no `ApplyBlock` names a
//! removed block.

use crate::util::{bodies, body_mut, vars};
use crate::PassError;
use p4_ir::{BlockRef, Callee, Expr, ExprKind, Program, Stmt, Type, TypeDef};
use std::collections::HashSet;

/// `Err` names the first broken invariant (as a [`PassError`] of the pass `check`).
pub fn check_program(program: &Program) -> Result<(), PassError> {
    let err = |m: String| PassError::new("check", m);
    for (bi, b) in program.parsers.iter().map(|p| &p.block).chain(program.controls.iter().map(|c| &c.block)).enumerate()
    {
        let mut seen = HashSet::new();
        for v in &b.vars {
            if !seen.insert(v.name.as_str()) {
                return Err(err(format!("block #{bi} `{}`: two variables named `{}`", b.name, v.name)));
            }
        }
    }
    let block_ok = |b: &BlockRef| match b {
        BlockRef::Parser(p) => p.index() < program.parsers.len(),
        BlockRef::Control(c) => c.index() < program.controls.len(),
    };
    for a in &program.actions {
        if !block_ok(&a.block) {
            return Err(err(format!("action `{}` runs in a block that does not exist", a.name)));
        }
    }
    for f in &program.functions {
        if !block_ok(&f.block) {
            return Err(err(format!("function `{}` runs in a block that does not exist", f.name)));
        }
    }
    for (ti, t) in program.tables.iter().enumerate() {
        let Some(c) = program.controls.get(t.control.index()) else {
            return Err(err(format!("table `{}` belongs to a control that does not exist", t.name)));
        };
        if !c.tables.iter().any(|x| x.index() == ti) {
            return Err(err(format!("table `{}` is not listed by its control `{}`", t.name, c.block.name)));
        }
    }
    let mut copy = program.clone();
    for (block, body) in bodies(program) {
        let frame = vars(program, &block).len();
        let stmts = body_mut(&mut copy, body).map(std::mem::take).unwrap_or_default();
        check_stmts(program, &stmts, frame, &block_ok).map_err(|m| err(format!("{body:?}: {m}")))?;
    }
    Ok(())
}

fn check_stmts(
    program: &Program,
    stmts: &[Stmt],
    frame: usize,
    block_ok: &dyn Fn(&BlockRef) -> bool,
) -> Result<(), String> {
    for s in stmts {
        match s {
            Stmt::VarInit { var, init, .. } => {
                if var.index() >= frame {
                    return Err(format!("init of variable #{} outside the frame ({frame} variables)", var.0));
                }
                if let Some(e) = init {
                    check_expr(program, e, frame)?;
                }
            }
            Stmt::Assign { lhs, rhs, .. } => {
                check_expr(program, lhs, frame)?;
                check_expr(program, rhs, frame)?;
            }
            Stmt::Call(c) => check_call(program, c, frame)?,
            Stmt::ApplyTable { table, .. } if table.index() >= program.tables.len() => {
                return Err(format!("apply of table #{}", table.0));
            }
            Stmt::ApplyBlock { block, args, .. } => {
                if !block_ok(block) {
                    return Err("apply of a block that does not exist".into());
                }
                for a in args {
                    check_expr(program, &a.expr, frame)?;
                }
            }
            Stmt::If { cond, then, otherwise, .. } => {
                check_expr(program, cond, frame)?;
                check_stmts(program, then, frame, block_ok)?;
                check_stmts(program, otherwise, frame, block_ok)?;
            }
            Stmt::SwitchAction { cases, .. } => {
                for (_, l) in cases {
                    check_stmts(program, l, frame, block_ok)?;
                }
            }
            Stmt::SwitchValue { expr, cases, .. } => {
                check_expr(program, expr, frame)?;
                for (_, l) in cases {
                    check_stmts(program, l, frame, block_ok)?;
                }
            }
            Stmt::Block(l) => check_stmts(program, l, frame, block_ok)?,
            Stmt::Return(Some(e), _) => check_expr(program, e, frame)?,
            Stmt::For { init, cond, update, body, .. } => {
                check_stmts(program, init, frame, block_ok)?;
                if let Some(c) = cond {
                    check_expr(program, c, frame)?;
                }
                check_stmts(program, update, frame, block_ok)?;
                check_stmts(program, body, frame, block_ok)?;
            }
            _ => {}
        }
    }
    Ok(())
}

fn check_call(program: &Program, c: &p4_ir::Call, frame: usize) -> Result<(), String> {
    match &c.callee {
        Callee::Action(a) if a.index() >= program.actions.len() => return Err(format!("call of action #{}", a.0)),
        Callee::Function(f) if f.index() >= program.functions.len() => {
            return Err(format!("call of function #{}", f.0))
        }
        Callee::Method { target, .. } | Callee::Builtin { target, .. } => check_expr(program, target, frame)?,
        _ => {}
    }
    for a in &c.args {
        check_expr(program, &a.expr, frame)?;
    }
    Ok(())
}

fn check_expr(program: &Program, e: &Expr, frame: usize) -> Result<(), String> {
    match &e.kind {
        ExprKind::Var(v) if v.index() >= frame => {
            Err(format!("variable #{} outside the frame ({frame} variables)", v.0))
        }
        ExprKind::Field(b, i) => {
            if let Type::Named(t) = &b.ty {
                let n = match program.types.get(t.index()) {
                    Some(
                        TypeDef::Struct { fields, .. } | TypeDef::Header { fields, .. } | TypeDef::Union { fields, .. },
                    ) => fields.len(),
                    _ => return Err(format!("field of a value whose type #{} has no fields", t.0)),
                };
                if *i as usize >= n {
                    return Err(format!("field #{i} of a type with {n} fields"));
                }
            }
            check_expr(program, b, frame)
        }
        ExprKind::StackNext(b)
        | ExprKind::StackLast(b)
        | ExprKind::StackLastIndex(b)
        | ExprKind::Slice(b, _, _)
        | ExprKind::Unary(_, b)
        | ExprKind::Cast(b) => check_expr(program, b, frame),
        ExprKind::Index(b, i) | ExprKind::Binary(_, b, i) => {
            check_expr(program, b, frame)?;
            check_expr(program, i, frame)
        }
        ExprKind::Mux(c, a, b) => {
            check_expr(program, c, frame)?;
            check_expr(program, a, frame)?;
            check_expr(program, b, frame)
        }
        ExprKind::Call(c) => check_call(program, c, frame),
        ExprKind::ApplyTable(t, _) if t.index() >= program.tables.len() => Err(format!("apply of table #{}", t.0)),
        ExprKind::Aggregate(xs) => xs.iter().try_for_each(|x| check_expr(program, x, frame)),
        ExprKind::Extern(x) if x.index() >= program.externs.len() => Err(format!("extern #{}", x.0)),
        _ => Ok(()),
    }
}

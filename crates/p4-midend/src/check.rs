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

use crate::util::{bodies, stmts_of, vars};
use crate::PassError;
use p4_ir::visit::{walk_call, walk_expr, walk_stmt, Visit};
use p4_ir::{BlockRef, Call, Callee, Expr, ExprKind, Program, Stmt, Type, TypeDef};
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
    for (block, body) in bodies(program) {
        let stmts = stmts_of(program, body);
        let mut refs = References { program, frame: vars(program, &block).len(), block_ok: &block_ok, error: None };
        refs.visit_stmts(stmts);
        if let Some(m) = refs.error {
            return Err(err(format!("{body:?}: {m}")));
        }
    }
    Ok(())
}

/// Checks that the ids and variables code refers to exist; keeps the first problem found.
struct References<'p> {
    program: &'p Program,
    /// The number of variables of the frame the code runs in.
    frame: usize,
    block_ok: &'p dyn Fn(&BlockRef) -> bool,
    error: Option<String>,
}

impl References<'_> {
    fn fail(&mut self, message: String) {
        self.error.get_or_insert(message);
    }
}

impl Visit<'_> for References<'_> {
    fn visit_stmt(&mut self, s: &Stmt) {
        if self.error.is_some() {
            return;
        }
        match s {
            Stmt::VarInit { var, .. } if var.index() >= self.frame => {
                self.fail(format!("init of variable #{} outside the frame ({} variables)", var.0, self.frame))
            }
            Stmt::ApplyTable { table, .. } if table.index() >= self.program.tables.len() => {
                self.fail(format!("apply of table #{}", table.0))
            }
            Stmt::ApplyBlock { block, .. } if !(self.block_ok)(block) => {
                self.fail("apply of a block that does not exist".into())
            }
            _ => walk_stmt(self, s),
        }
    }

    fn visit_call(&mut self, c: &Call) {
        match &c.callee {
            Callee::Action(a) if a.index() >= self.program.actions.len() => {
                self.fail(format!("call of action #{}", a.0))
            }
            Callee::Function(f) if f.index() >= self.program.functions.len() => {
                self.fail(format!("call of function #{}", f.0))
            }
            _ => walk_call(self, c),
        }
    }

    fn visit_expr(&mut self, e: &Expr) {
        if self.error.is_some() {
            return;
        }
        match &e.kind {
            ExprKind::Var(v) if v.index() >= self.frame => {
                self.fail(format!("variable #{} outside the frame ({} variables)", v.0, self.frame))
            }
            ExprKind::Field(b, i) => match &b.ty {
                Type::Named(t) => match self.program.types.get(t.index()) {
                    Some(
                        TypeDef::Struct { fields, .. } | TypeDef::Header { fields, .. } | TypeDef::Union { fields, .. },
                    ) if *i as usize >= fields.len() => {
                        self.fail(format!("field #{i} of a type with {} fields", fields.len()))
                    }
                    Some(TypeDef::Struct { .. } | TypeDef::Header { .. } | TypeDef::Union { .. }) => walk_expr(self, e),
                    _ => self.fail(format!("field of a value whose type #{} has no fields", t.0)),
                },
                _ => walk_expr(self, e),
            },
            ExprKind::ApplyTable(t, _) if t.index() >= self.program.tables.len() => {
                self.fail(format!("apply of table #{}", t.0))
            }
            ExprKind::Extern(x) if x.index() >= self.program.externs.len() => self.fail(format!("extern #{}", x.0)),
            _ => walk_expr(self, e),
        }
    }
}

//! Work moved ahead of a stage cut. A control's statement stages are cut before a statement that
//! starts a read-modify-write of a register array ([`crate::control`]); what follows the read in
//! program order often does not need it: the terms a register's new value adds up, computed from
//! headers by inlined functions. Left after the cut, those terms and the read-modify-write chain
//! into one path (mdp: a cell read, a five-operand sum, then the write). Moved ahead of the cut,
//! into the stage before, they arrive in stage registers, and the read-modify-write's stage holds
//! one two-operand addition.
//!
//! Two moves, both exact:
//! - a statement moves ahead when it computes only temporaries (locals of the apply body, of
//!   inlined functions and their parameters and return slots: dead once the control ends, so
//!   computing them for a packet that returns early changes nothing), calls nothing, applies no
//!   table, cannot end the control, and commutes with every statement it passes (reads nothing
//!   they write, writes nothing they read or write);
//! - in an assignment whose value is a sum (`+` of one type all through, which wraps, so the
//!   terms can be regrouped), the terms that read nothing the passed statements write are added
//!   ahead of the cut; the assignment then adds that presum to its other terms.

use std::collections::BTreeSet;

use p4_ir::cfg::{Effects, Location};
use p4_ir::visit::Visit;
use p4_ir::{BinOp, Block, Callee, Expr, ExprKind, Program, Stmt, VarKind};

/// One move ahead of a cut, in program order.
pub enum Ahead<'e> {
    /// Statement `body[i]` runs ahead of the cut.
    Stmt(usize),
    /// Statement `body[stmt]` (an assignment of a sum) has its `early` terms added ahead of the
    /// cut; after the cut it adds that presum to its `late` terms.
    Presum { stmt: usize, early: Vec<&'e Expr>, late: Vec<&'e Expr> },
}

/// What of `body[cut + 1..]` can move ahead of a cut made before `body[cut]`; `effects[i]` are
/// `body[i]`'s ([`p4_ir::cfg::stmts_effects`]). Statements marked in `moved` have moved ahead of an
/// earlier cut already and are left alone; those in `summed` have their presum from an earlier cut
/// and stay where they are.
pub fn plan<'e>(
    p: &Program,
    block: &Block,
    body: &'e [Stmt],
    effects: &[Effects],
    cut: usize,
    moved: &[bool],
    summed: &BTreeSet<usize>,
) -> Vec<Ahead<'e>> {
    // What the statements that stay after the cut read and write.
    let (mut reads, mut writes) = (effects[cut].reads.clone(), effects[cut].may_writes.clone());
    let mut out = Vec::new();
    for (i, st) in body.iter().enumerate().skip(cut + 1) {
        if moved[i] {
            continue;
        }
        let e = &effects[i];
        let temporaries = e.may_writes.iter().all(|l| is_temporary(block, l));
        let touches_extern = e.reads.iter().chain(&e.may_writes).any(|l| l.as_extern().is_some());
        let commutes = disjoint(&e.reads, &writes) && disjoint(&e.may_writes, &writes) && disjoint(&e.may_writes, &reads);
        if temporaries && !touches_extern && commutes && plain(st) && !summed.contains(&i) {
            out.push(Ahead::Stmt(i));
            continue;
        }
        if !summed.contains(&i) {
            if let Some((early, late)) = split_sum(p, st, &writes) {
                out.push(Ahead::Presum { stmt: i, early, late });
            }
        }
        reads.extend(e.reads.iter().cloned());
        writes.extend(e.may_writes.iter().cloned());
    }
    out
}

fn disjoint(a: &BTreeSet<Location>, b: &BTreeSet<Location>) -> bool {
    !a.iter().any(|x| b.iter().any(|y| x.overlaps(y)))
}

/// Whether `l` is a temporary of the apply body: dead once the control ends.
fn is_temporary(block: &Block, l: &Location) -> bool {
    block.vars.get(l.var.index()).is_some_and(|v| matches!(v.kind, VarKind::Temp | VarKind::CallParam(_) | VarKind::Return))
}

/// Whether `st` is plain computation: no call but built-in methods (`isValid()`), no table, no
/// nested block, no way out (`return`, `exit`), no loop.
fn plain(st: &Stmt) -> bool {
    struct Finder {
        found: bool,
    }
    impl<'a> Visit<'a> for Finder {
        fn visit_stmt(&mut self, s: &'a Stmt) {
            match s {
                Stmt::VarInit { .. } | Stmt::Assign { .. } | Stmt::If { .. } | Stmt::Block(_) | Stmt::SwitchValue { .. } | Stmt::Empty => {
                    p4_ir::visit::walk_stmt(self, s)
                }
                _ => self.found = true,
            }
        }
        fn visit_expr(&mut self, e: &'a Expr) {
            match &e.kind {
                ExprKind::Call(c) if !matches!(c.callee, Callee::Builtin { .. }) => self.found = true,
                ExprKind::ApplyTable(..) => self.found = true,
                _ => p4_ir::visit::walk_expr(self, e),
            }
        }
    }
    let mut f = Finder { found: false };
    f.visit_stmt(st);
    !f.found
}

/// An assignment of a sum of three or more terms, split into the terms that read nothing in
/// `writes` (at least two, so that adding them ahead saves an operand) and the others (at least
/// one, or the whole statement would have moved).
fn split_sum<'e>(p: &Program, st: &'e Stmt, writes: &BTreeSet<Location>) -> Option<(Vec<&'e Expr>, Vec<&'e Expr>)> {
    let rhs = match st {
        Stmt::Assign { rhs, .. } => rhs,
        Stmt::VarInit { init: Some(rhs), .. } => rhs,
        _ => return None,
    };
    if !matches!(rhs.kind, ExprKind::Binary(BinOp::Add, ..)) || !plain(st) {
        return None;
    }
    let mut terms = Vec::new();
    flatten_sum(rhs, &rhs.ty, &mut terms);
    let (early, late): (Vec<&Expr>, Vec<&Expr>) =
        terms.into_iter().partition(|t| disjoint(&p4_ir::cfg::expr_reads(p, t), writes));
    (early.len() >= 2 && !late.is_empty()).then_some((early, late))
}

/// The terms of the `+` tree `e`, whose nodes all have type `ty` (a node of another type, such as a
/// cast of a narrower sum, is a term: it wraps at its own width).
fn flatten_sum<'e>(e: &'e Expr, ty: &p4_ir::Type, out: &mut Vec<&'e Expr>) {
    match &e.kind {
        ExprKind::Binary(BinOp::Add, a, b) if &e.ty == ty => {
            flatten_sum(a, ty, out);
            flatten_sum(b, ty, out);
        }
        _ => out.push(e),
    }
}

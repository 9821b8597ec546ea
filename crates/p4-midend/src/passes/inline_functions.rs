//! `inline-functions`: every call of a P4 function is replaced by the function's body.
//!
//! Why: a hardware pipeline has no call stack, and every later pass (three-address form, def-use,
//! parallel action bodies) is simpler when the only calls left are actions (run by tables) and
//! externs. Sema already gives each function instance its variables in the caller's frame (one frame
//! per block), so inlining needs no renaming: the call `f(a, b)` becomes
//!
//! ```text
//! p1 = a;            // copy-in (in/inout); an `out` parameter is re-initialised instead (`init p;`)
//! <body of f>        // `return e` stores e in f's return slot; an early return sets a flag and
//!                    // the rest of the body runs under `if (!flag)` (in a loop: `if (flag) break;`)
//! b = p2;            // copy-out (out/inout), the l-value evaluated after the body, as before
//! ```
//!
//! and a call inside an expression is *hoisted* in front of its statement, its value read from the
//! return slot (or a fresh `<f>_result` temporary when the statement holds more than one call). This is
//! the same order the dataplane evaluates a call in, so behaviour is unchanged, provided nothing
//! evaluated earlier in the statement is moved after the call. The pass therefore leaves a call where
//! it is when
//! - it sits in the right operand of `&&`/`||` or in a branch of `?:` (it may not run at all),
//! - something before it in the statement has effects (another call that stays, a table apply),
//! - something before it reads a variable the call writes through an `out`/`inout` argument, or the
//!   assignment's place has a run-time index reading one,
//! - it is in a `for` condition, a `select` key or a table key (no statement to put it in front of),
//! - the function contains `exit` (its copy-out would have to run on the way out).
//!
//! Functions with no call left are removed from the program.

use crate::returns::{bool_const, eliminate_returns};
use crate::rewrite::{var_expr, Guard, OperandRewriter};
use crate::util::{any_stmt, bodies, fresh_var, put_body, root_var, take_body, vars_mut};
use crate::{Pass, PassError};
use p4_ir::visit::{walk_call, walk_call_mut, walk_program, walk_program_mut, Visit, VisitMut};
use p4_ir::{
    BlockRef, Call, Callee, Direction, Expr, ExprKind, Function, FunctionId, Program, Stmt, Type, Var, VarId, VarKind,
};
use std::collections::HashMap;

pub const NAME: &str = "inline-functions";

/// Nested expansions deeper than this are left as calls (P4 has no recursion; this is a safety net).
const MAX_DEPTH: u32 = 64;

pub struct InlineFunctions;

impl Pass for InlineFunctions {
    fn name(&self) -> &'static str {
        NAME
    }

    fn run(&self, program: &mut Program) -> Result<(), PassError> {
        let funcs = program.functions.clone();
        let mut flags = HashMap::new();
        for (block, body) in bodies(program) {
            let mut stmts = take_body(program, body);
            if let Some(vars) = vars_mut(program, &block) {
                let mut cx = Inliner { funcs: &funcs, block: &block, vars, flags: &mut flags, depth: 0 };
                stmts = cx.list(stmts);
            }
            put_body(program, body, stmts);
        }
        remove_unused_functions(program);
        Ok(())
    }
}

struct Inliner<'a> {
    funcs: &'a [Function],
    block: &'a BlockRef,
    vars: &'a mut Vec<Var>,
    /// The early-return flag of each function in each frame (one is enough: it is reset per call).
    flags: &'a mut HashMap<(bool, u32, usize), VarId>,
    depth: u32,
}

fn sanitize(name: &str) -> String {
    name.chars().map(|c| if c.is_ascii_alphanumeric() || c == '_' { c } else { '_' }).collect()
}

impl OperandRewriter for Inliner<'_> {
    fn stmt(&mut self, s: Stmt, out: &mut Vec<Stmt>) {
        match s {
            Stmt::Call(call) => match call.callee {
                Callee::Function(f) if self.inlinable(f) => {
                    let exp = self.expansion(f, call);
                    out.extend(exp);
                }
                _ => self.walk_stmt(Stmt::Call(call), out),
            },
            _ => self.walk_stmt(s, out),
        }
    }

    /// An expression that is the whole operand of its statement: a call there reads the return slot
    /// directly.
    fn top(&mut self, e: &mut Expr, g: &mut Guard, pre: &mut Vec<Stmt>) {
        if let ExprKind::Call(call) = &e.kind {
            if let Callee::Function(f) = call.callee {
                if self.inlinable(f) && self.may_hoist(call, g) {
                    let ExprKind::Call(call) = std::mem::replace(&mut e.kind, ExprKind::DontCare) else { return };
                    let ret = self.funcs[f.index()].ret_var;
                    pre.extend(self.expansion(f, *call));
                    e.kind = match ret {
                        Some(r) => ExprKind::Var(r),
                        None => ExprKind::DontCare,
                    };
                    return;
                }
            }
        }
        self.expr(e, g, pre);
    }

    /// Hoists the calls that may be hoisted into `pre`.
    fn expr(&mut self, e: &mut Expr, g: &mut Guard, pre: &mut Vec<Stmt>) {
        if let ExprKind::Call(call) = &e.kind {
            if let Callee::Function(f) = call.callee {
                if self.inlinable(f) && self.may_hoist(call, g) {
                    let ExprKind::Call(call) = std::mem::replace(&mut e.kind, ExprKind::DontCare) else { return };
                    let func = &self.funcs[f.index()];
                    let (ret, name) = (func.ret_var, sanitize(&func.name));
                    pre.extend(self.expansion(f, *call));
                    if let Some(r) = ret {
                        // Another call of `f` later in the statement reuses the return slot.
                        let tmp = fresh_var(self.vars, &format!("{name}_result"), e.ty.clone(), VarKind::Temp);
                        pre.push(Stmt::VarInit {
                            var: tmp,
                            init: Some(var_expr(r, e.ty.clone(), e.span)),
                            span: e.span,
                        });
                        e.kind = ExprKind::Var(tmp);
                    }
                    return;
                }
            }
        }
        self.walk_expr(e, g, pre);
    }
}

impl Inliner<'_> {
    fn inlinable(&self, f: FunctionId) -> bool {
        self.depth < MAX_DEPTH
            && self
                .funcs
                .get(f.index())
                .is_some_and(|func| func.block == *self.block && !any_stmt(&func.body, &|s| matches!(s, Stmt::Exit(_))))
    }

    /// True if the call may run before everything the guard has seen.
    fn may_hoist(&self, call: &Call, g: &Guard) -> bool {
        if g.impure || g.conditional > 0 {
            return false;
        }
        call.args
            .iter()
            .filter(|a| matches!(a.direction, Direction::Out | Direction::InOut))
            .filter_map(|a| root_var(&a.expr))
            .all(|v| !g.reads.contains(&v))
    }

    /// The statements that replace `call` (already rewritten themselves).
    fn expansion(&mut self, f: FunctionId, call: Call) -> Vec<Stmt> {
        let func = &self.funcs[f.index()];
        let span = call.span;
        let mut raw = Vec::new();
        for (p, a) in func.params.iter().zip(&call.args) {
            match p.direction {
                Direction::Out => raw.push(Stmt::VarInit { var: p.var, init: None, span }),
                _ if matches!(a.expr.kind, ExprKind::DontCare) => {}
                _ => raw.push(Stmt::Assign { lhs: var_expr(p.var, p.ty.clone(), span), rhs: a.expr.clone(), span }),
            }
        }
        let key = match self.block {
            BlockRef::Parser(p) => (true, p.0, f.index()),
            BlockRef::Control(c) => (false, c.0, f.index()),
        };
        let flag_name = format!("{}_returned", sanitize(&func.name));
        let flags = &mut *self.flags;
        let vars = &mut *self.vars;
        let (body, flag) =
            eliminate_returns(func.body.clone(), func.ret_var.map(|v| (v, func.ret.clone())), &mut || {
                *flags.entry(key).or_insert_with(|| fresh_var(vars, &flag_name, Type::Bool, VarKind::Temp))
            });
        if let Some(flag) = flag {
            raw.push(Stmt::VarInit { var: flag, init: Some(bool_const(false, span)), span });
        }
        raw.extend(body);
        for (p, a) in func.params.iter().zip(&call.args) {
            if matches!(p.direction, Direction::Out | Direction::InOut) && !matches!(a.expr.kind, ExprKind::DontCare) {
                raw.push(Stmt::Assign { lhs: a.expr.clone(), rhs: var_expr(p.var, p.ty.clone(), span), span });
            }
        }
        self.depth += 1;
        let out = self.list(raw);
        self.depth -= 1;
        out
    }
}

/// Drops functions no call refers to any more and renumbers the calls that remain.
fn remove_unused_functions(program: &mut Program) {
    let mut used = UsedFunctions(vec![false; program.functions.len()]);
    walk_program(&mut used, program);
    let used = used.0;
    if used.iter().all(|u| *u) {
        return;
    }
    let mut new_id = Vec::with_capacity(used.len());
    let mut next = 0u32;
    for u in &used {
        new_id.push(if *u { Some(FunctionId(next)) } else { None });
        next += u32::from(*u);
    }
    walk_program_mut(&mut RenumberFunctions(new_id), program);
    let mut i = 0;
    program.functions.retain(|_| {
        let keep = used[i];
        i += 1;
        keep
    });
}

/// Marks the functions that are called (statement and expression calls alike).
struct UsedFunctions(Vec<bool>);

impl Visit<'_> for UsedFunctions {
    fn visit_call(&mut self, c: &Call) {
        if let Callee::Function(f) = c.callee {
            if let Some(u) = self.0.get_mut(f.index()) {
                *u = true;
            }
        }
        walk_call(self, c);
    }
}

/// Gives every call of a function the function's new id.
struct RenumberFunctions(Vec<Option<FunctionId>>);

impl VisitMut for RenumberFunctions {
    fn visit_call(&mut self, c: &mut Call) {
        if let Callee::Function(f) = &mut c.callee {
            if let Some(Some(n)) = self.0.get(f.index()) {
                *f = *n;
            }
        }
        walk_call_mut(self, c);
    }
}

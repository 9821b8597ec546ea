//! An `exit` in the action of a table applied inside an expression (`if (t.apply().hit)`,
//! `init t_hit = t.apply().hit;` after `hoist-effects`). The expression's closure can only return
//! a value, so it flags the exit in the context (`Ctx::exit_pending`) and the statement around it
//! ends with `exit` once the expression is evaluated: an `if` before either branch runs, any other
//! statement after it (for the temporaries `hoist-effects` makes, before anything reads them). The
//! executor's closures use this; the machine code unwinds itself.

use p4_ir::{Call, Expr, ExprKind, Stmt};

use crate::fast::exec::{Ctx, Flow, Prog, Run};

/// Whether evaluating `e` applies a table.
pub(crate) fn applies_table(e: &Expr) -> bool {
    e.any(&mut |x| matches!(x.kind, ExprKind::ApplyTable(..)))
}

fn call_applies_table(call: &Call) -> bool {
    call.any_expr(&mut |x| matches!(x.kind, ExprKind::ApplyTable(..)))
}

/// Whether statement `s` itself, not counting an `if`'s condition or the statements nested in it,
/// applies a table inside an expression.
pub(crate) fn stmt_applies_table(s: &Stmt) -> bool {
    match s {
        Stmt::VarInit { init: Some(e), .. } | Stmt::SwitchValue { expr: e, .. } | Stmt::Return(Some(e), _) => applies_table(e),
        Stmt::Assign { lhs, rhs, .. } => applies_table(lhs) || applies_table(rhs),
        Stmt::Call(call) => call_applies_table(call),
        Stmt::ApplyBlock { args, .. } => args.iter().any(|a| applies_table(&a.expr)),
        _ => false,
    }
}

/// `run` (statement `s`) ending with `exit` when the action of a table its expressions applied
/// exited; `run` itself for a statement that applies none.
pub(crate) fn after(s: &Stmt, run: Run) -> Run {
    after_if(stmt_applies_table(s), run)
}

/// `run` ending with `exit` when the action of a table it applied inside an expression exited,
/// if it `applies` one; `run` itself if not.
pub(crate) fn after_if(applies: bool, run: Run) -> Run {
    if !applies {
        return run;
    }
    Box::new(move |p, c| {
        let flow = run(p, c);
        if std::mem::take(&mut c.exit_pending) {
            Flow::Exit
        } else {
            flow
        }
    })
}

/// An `if` running `then` or `otherwise` as `taken` says; when its condition `applies` a table, it
/// ends with `exit` instead once the condition is evaluated, if that table's action exited.
pub(crate) fn branch(applies: bool, taken: impl Fn(&Prog, &mut Ctx) -> bool + Send + Sync + 'static, then: Run, otherwise: Run) -> Run {
    if !applies {
        return Box::new(move |p, c| if taken(p, c) { then(p, c) } else { otherwise(p, c) });
    }
    Box::new(move |p, c| {
        let taken = taken(p, c);
        if std::mem::take(&mut c.exit_pending) {
            return Flow::Exit;
        }
        if taken {
            then(p, c)
        } else {
            otherwise(p, c)
        }
    })
}

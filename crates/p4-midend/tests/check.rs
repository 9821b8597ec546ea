//! The structural check catches what a careless pass would break.

mod common;

use p4_ir::{Expr, ExprKind, Span, Stmt, Type, VarId};

fn program() -> p4_ir::Program {
    common::compile(&common::repo_root().join("tests/stf/functions.p4")).expect("functions.p4 compiles")
}

#[test]
fn sema_output_and_lowered_output_pass() {
    let p = program();
    assert_eq!(p4_midend::check::check_program(&p), Ok(()));
    let lowered = p4_midend::lower(p).expect("lowers");
    assert_eq!(p4_midend::check::check_program(&lowered), Ok(()));
    // functions.p4 has four functions, all called from statements the inliner may rewrite.
    assert!(
        lowered.functions.is_empty(),
        "functions left: {:?}",
        lowered.functions.iter().map(|f| &f.name).collect::<Vec<_>>()
    );
}

#[test]
fn a_variable_outside_the_frame_is_reported() {
    let mut p = program();
    let c = p.controls.iter().position(|c| c.block.type_name == "TestIngress").expect("ingress");
    let n = p.controls[c].block.vars.len() as u32;
    let bad = Expr::new(Type::bit(8), ExprKind::Var(VarId(n + 5)), Span::DUMMY);
    p.controls[c].body.push(Stmt::Assign { lhs: bad.clone(), rhs: bad, span: Span::DUMMY });
    let e = p4_midend::check::check_program(&p).expect_err("must be caught");
    assert!(e.message.contains(&format!("variable #{} outside the frame", n + 5)), "{}", e.message);
}

#[test]
fn a_duplicate_variable_name_is_reported() {
    let mut p = program();
    let c = p.controls.iter().position(|c| c.block.type_name == "TestIngress").expect("ingress");
    let first = p.controls[c].block.vars[0].clone();
    p.controls[c].block.vars.push(first.clone());
    let e = p4_midend::check::check_program(&p).expect_err("must be caught");
    assert!(e.message.contains(&format!("two variables named `{}`", first.name)), "{}", e.message);
}

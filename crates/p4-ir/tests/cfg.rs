//! `p4_ir::cfg` on a hand-built control: locations of dynamic and constant stack indices, validity
//! pseudo-fields, and the block structure of an `if`.

use p4_ir::cfg::{location_to_string, ControlGraph, Location, Terminator, VALID};
use p4_ir::*;

fn field(base: Expr, i: u32, ty: Type) -> Expr {
    Expr::new(ty, ExprKind::Field(Box::new(base), i), Span::DUMMY)
}
fn var(v: u32, ty: Type) -> Expr {
    Expr::new(ty, ExprKind::Var(VarId(v)), Span::DUMMY)
}
fn index(base: Expr, i: Expr, ty: Type) -> Expr {
    Expr::new(ty, ExprKind::Index(Box::new(base), Box::new(i)), Span::DUMMY)
}
fn bits8(v: u32) -> Expr {
    Expr::constant(Value::Bits { width: 8, signed: false, value: v.into() }, Type::bit(8), Span::DUMMY)
}

/// `header h_t { bit<8> a; bit<8> b; } struct s_t { h_t[2] st; bit<8> x; }` and a control over
/// `inout s_t s` with a local `bit<8> i`:
/// `s.st[i].a = s.x; if (s.st[0].isValid()) { s.st[1].b = 8w1; } else { s.st[0].setValid(); }`
fn program() -> Program {
    let h = Type::Named(TypeId(0));
    let stack = Type::Stack(Box::new(h.clone()), 2);
    let s_ty = Type::Named(TypeId(1));
    let fd = |name: &str, ty: Type| FieldDef { name: name.into(), ty, annotations: vec![] };
    let s = || var(0, s_ty.clone());
    let st = || field(s(), 0, stack.clone());
    let body = vec![
        Stmt::Assign { lhs: field(index(st(), var(1, Type::bit(8)), h.clone()), 0, Type::bit(8)), rhs: field(s(), 1, Type::bit(8)), span: Span::DUMMY },
        Stmt::If {
            cond: Expr::new(
                Type::Bool,
                ExprKind::Call(Box::new(Call { callee: Callee::Builtin { target: Box::new(index(st(), bits8(0), h.clone())), builtin: Builtin::IsValid }, args: vec![], span: Span::DUMMY })),
                Span::DUMMY,
            ),
            then: vec![Stmt::Assign { lhs: field(index(st(), bits8(1), h.clone()), 1, Type::bit(8)), rhs: bits8(1), span: Span::DUMMY }],
            otherwise: vec![Stmt::Call(Call { callee: Callee::Builtin { target: Box::new(index(st(), bits8(0), h.clone())), builtin: Builtin::SetValid }, args: vec![], span: Span::DUMMY })],
            span: Span::DUMMY,
        },
    ];
    Program {
        types: vec![
            TypeDef::Header { name: "h_t".into(), fields: vec![fd("a", Type::bit(8)), fd("b", Type::bit(8))], annotations: vec![] },
            TypeDef::Struct { name: "s_t".into(), fields: vec![fd("st", stack.clone()), fd("x", Type::bit(8))] },
        ],
        controls: vec![Control {
            block: Block {
                name: "C".into(),
                type_name: "C".into(),
                vars: vec![
                    Var { name: "s".into(), ty: s_ty.clone(), kind: VarKind::Param(Direction::InOut) },
                    Var { name: "i".into(), ty: Type::bit(8), kind: VarKind::Local },
                ],
                params: vec![VarId(0)],
                annotations: vec![],
            },
            init: vec![],
            body,
            actions: vec![],
            tables: vec![],
            externs: vec![],
        }],
        ..Program::default()
    }
}

fn names(p: &Program, ls: &std::collections::BTreeSet<Location>) -> Vec<String> {
    ls.iter().map(|l| location_to_string(p, &p.controls[0].block.vars, l)).collect()
}

#[test]
fn dynamic_index_covers_the_stack_and_constant_index_does_not() {
    let p = program();
    let g = ControlGraph::build(&p, ControlId(0));
    assert!(g.is_dag);
    assert_eq!(g.blocks.len(), 4);
    let n0 = g.node(p4_ir::cfg::NodeId(0)).expect("first assignment");
    assert_eq!(names(&p, n0.reads()), ["s.x", "i"]);
    assert_eq!(names(&p, n0.writes()), ["s.st"]);
    assert_eq!(names(&p, &g.blocks[0].terminator_reads), ["s.st[0].$valid"]);
    let Terminator::Branch { then, otherwise, .. } = &g.blocks[0].terminator else { panic!("entry ends in a branch") };
    assert_eq!(names(&p, g.blocks[then.0 as usize].writes()), ["s.st[1].b"]);
    assert_eq!(names(&p, g.blocks[otherwise.0 as usize].writes()), ["s.st[0].$valid"]);
    // Both arms join in the last block, which returns.
    assert!(matches!(g.blocks[3].terminator, Terminator::Return));
    assert_eq!(g.predecessors()[3].len(), 2);
}

#[test]
fn locations_overlap_by_prefix() {
    let l = |path: &[u32]| Location { var: VarId(0), path: path.to_vec() };
    assert!(l(&[0]).overlaps(&l(&[0, 1, 1])));
    assert!(l(&[0, 1, 1]).overlaps(&l(&[0])));
    assert!(!l(&[0, 1, 1]).overlaps(&l(&[0, 1, 0])));
    assert!(!l(&[0, 1, VALID]).overlaps(&l(&[0, 1, 0])));
    assert!(!l(&[0]).overlaps(&Location { var: VarId(1), path: vec![0] }));
}

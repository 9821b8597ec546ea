//! Every program of the project (examples, STF programs, valid test programs, CLI fixtures) is
//! compiled and its IR must pass `p4_ir::verify::verify`: the verifier's invariants hold for what
//! the front end produces, so a violation found later is a pass's fault.

use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The project's programs, sorted; each directory must contribute some (a moved directory must not
/// silently empty the test).
fn project_programs() -> Vec<PathBuf> {
    let mut all = Vec::new();
    for dir in ["tests/stf", "tests/stf-psa", "tests/programs/valid", "crates/p4forge/tests/fixtures"] {
        let mut here: Vec<PathBuf> = std::fs::read_dir(root().join(dir))
            .expect("program directory")
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "p4"))
            .collect();
        assert!(!here.is_empty(), "no programs in {dir}");
        all.append(&mut here);
    }
    for ex in std::fs::read_dir(root().join("examples")).expect("examples").filter_map(|e| e.ok()) {
        if let Ok(files) = std::fs::read_dir(ex.path()) {
            all.extend(
                files.filter_map(|e| e.ok().map(|e| e.path())).filter(|p| p.extension().is_some_and(|x| x == "p4")),
            );
        }
    }
    all.sort();
    all
}

/// Programs that elaborate (programs without `main` or with unsupported features have no IR).
fn compiled() -> Vec<(PathBuf, p4_ir::Program)> {
    let inc = root().join("p4include");
    project_programs()
        .into_iter()
        .filter_map(|p| {
            let c = p4_sema::compile_file(&p, &[inc.clone()]);
            c.program.map(|prog| (p, prog))
        })
        .collect()
}

#[test]
fn verifier_accepts_every_project_program() {
    let progs = compiled();
    // 90 is a little below today's count; it guards against the test silently compiling nothing.
    assert!(progs.len() >= 90, "only {} programs compiled", progs.len());
    let mut failures = Vec::new();
    for (path, prog) in &progs {
        if let Err(errs) = p4_ir::verify::verify(prog) {
            let lines: Vec<String> = errs.iter().take(5).map(|e| format!("  {e}")).collect();
            failures.push(format!("{}:\n{}", path.display(), lines.join("\n")));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} programs fail verification:\n{}",
        failures.len(),
        progs.len(),
        failures.join("\n")
    );
}

const SMALL: &str = r#"
#include <v1model.p4>
header h_t { bit<8> a; bit<8> b; }
struct headers { h_t h; }
struct meta_t { bit<8> m; }
parser P(packet_in pkt, out headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition select(hdr.h.a) { 1: accept; default: reject; } }
}
control VC(inout headers hdr, inout meta_t meta) { apply {} }
control I(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    action set(bit<8> v) { hdr.h.b = v; }
    table t { key = { hdr.h.a: exact; } actions = { set; NoAction; } default_action = NoAction(); }
    apply { if (hdr.h.isValid()) { t.apply(); } }
}
control E(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) { apply {} }
control CC(inout headers hdr, inout meta_t meta) { apply {} }
control D(packet_out pkt, in headers hdr) { apply { pkt.emit(hdr.h); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
"#;

fn small() -> p4_ir::Program {
    let c = p4_sema::compile_str("small.p4", SMALL, &[root().join("p4include")]);
    let d = c.render_diagnostics();
    c.program.unwrap_or_else(|| panic!("{d}"))
}

fn violations(p: &p4_ir::Program) -> Vec<String> {
    match p4_ir::verify::verify(p) {
        Ok(()) => Vec::new(),
        Err(es) => es.iter().map(|e| e.to_string()).collect(),
    }
}

/// The index of control `I`.
fn ci(p: &p4_ir::Program) -> usize {
    p.controls.iter().position(|c| c.block.name == "I").expect("control I")
}

#[test]
fn verifier_names_each_violation() {
    use p4_ir::*;
    assert_eq!(violations(&small()), Vec::<String>::new());

    // A transition to a state that does not exist.
    let mut p = small();
    p.parsers[0].states[0].transition = Transition::Goto(StateTarget::State(StateId(7)));
    assert_eq!(violations(&p), ["parser P, state start: transition to state #7 which does not exist (1 states)"]);

    // A table whose default action is not among its actions.
    let mut p = small();
    let t = &mut p.tables[0];
    let set = t.actions.iter().position(|a| p.actions[a.action.index()].name == "I.set").expect("I.set listed");
    t.actions.remove(set);
    let set_id = p.actions.iter().position(|a| a.name == "I.set").expect("I.set") as u32;
    let v = Expr::constant(Value::Bits { width: 8, signed: false, value: 1.into() }, Type::bit(8), Span::DUMMY);
    t.default_action = Some(ActionCall { action: ActionId(set_id), args: vec![v] });
    assert_eq!(violations(&p), ["control I, table I.t: default action I.set is not among the table's actions"]);

    // Operands of different types, and an if condition that is not bool.
    let mut p = small();
    let i = ci(&p);
    let Stmt::If { cond, .. } = &mut p.controls[i].body[0] else { panic!("I's body starts with if") };
    let b8 = Expr::constant(Value::Bits { width: 8, signed: false, value: 1.into() }, Type::bit(8), Span::DUMMY);
    let b16 = Expr::constant(Value::Bits { width: 16, signed: false, value: 1.into() }, Type::bit(16), Span::DUMMY);
    *cond = Expr::new(Type::bit(8), ExprKind::Binary(BinOp::Add, Box::new(b8), Box::new(b16)), Span::DUMMY);
    assert_eq!(
        violations(&p),
        [
            "control I: `16w1` has type bit<16> but the left operand's type is bit<8>",
            "control I: if condition has type bit<8>, not bool",
        ]
    );

    // A header field without a wire layout (a struct holding a header, here the header itself:
    // an infinite type), and two varbits.
    let mut p = small();
    let h = p.find_type("h_t").expect("h_t");
    let meta = p.find_type("headers").expect("headers");
    let TypeDef::Header { fields, .. } = &mut p.types[h.index()] else { panic!("h_t is a header") };
    fields[0].ty = Type::Named(meta);
    fields.push(FieldDef { name: "v1".into(), ty: Type::Varbit(8), annotations: vec![] });
    fields.push(FieldDef { name: "v2".into(), ty: Type::Varbit(8), annotations: vec![] });
    let errs = violations(&p);
    assert_eq!(
        errs[..3],
        [
            "type h_t: contains itself (through a.h): a value of it would be infinite",
            "type h_t: header field a has type headers, which has no wire layout",
            "type h_t: a header has more than one varbit field"
        ]
    );

    // Two fields of one name.
    let mut p = small();
    let h = p.find_type("h_t").expect("h_t");
    let TypeDef::Header { fields, .. } = &mut p.types[h.index()] else { panic!("h_t is a header") };
    let twin = fields[0].clone();
    fields.push(twin);
    assert_eq!(violations(&p), ["type h_t: has two members named a"]);

    // A constant that does not fit its type, and an assignment of a wider value (to the 8-bit
    // slot of `set`'s parameter).
    let mut p = small();
    let i = ci(&p);
    let slot = p.controls[i].block.vars.iter().position(|v| v.ty == Type::bit(8)).expect("an 8-bit slot in I");
    let target = Expr::new(Type::bit(8), ExprKind::Var(VarId(slot as u32)), Span::DUMMY);
    let v300 = Expr::constant(Value::Bits { width: 8, signed: false, value: 300.into() }, Type::bit(8), Span::DUMMY);
    let w48 = Expr::constant(Value::Bits { width: 48, signed: false, value: 5.into() }, Type::bit(48), Span::DUMMY);
    p.controls[i].body.push(Stmt::Assign { lhs: target.clone(), rhs: v300, span: Span::DUMMY });
    p.controls[i].body.push(Stmt::Assign { lhs: target, rhs: w48, span: Span::DUMMY });
    assert_eq!(
        violations(&p),
        [
            "control I: constant 300 does not fit its type bit<8>",
            "control I: `48w5` has type bit<48> but the assignment target's type is bit<8>",
        ]
    );

    // `extract` into a header of another type than its type argument.
    let mut p = small();
    let meta = p.find_type("meta_t").expect("meta_t");
    let Stmt::Call(call) = &mut p.parsers[0].states[0].body[0] else { panic!("start begins with extract") };
    let Callee::Method { type_args, .. } = &mut call.callee else { panic!("extract is a method call") };
    type_args[0] = Type::Named(meta);
    assert_eq!(violations(&p), ["parser P, state start: `hdr.h` has type h_t but packet_in.extract's type argument is meta_t"]);

    // An action called without its argument.
    let mut p = small();
    let i = ci(&p);
    let set = p.actions.iter().position(|a| a.name == "I.set").expect("I.set") as u32;
    p.controls[i].body.push(Stmt::Call(Call {
        callee: Callee::Action(ActionId(set)),
        args: vec![],
        span: Span::DUMMY,
    }));
    assert_eq!(violations(&p), ["control I: call of action I.set has 0 arguments for 1 parameters"]);

    // A variable outside the frame.
    let mut p = small();
    let i = ci(&p);
    let n = p.controls[i].block.vars.len() as u32;
    p.controls[i].body = vec![Stmt::VarInit { var: VarId(n + 3), init: None, span: Span::DUMMY }];
    assert_eq!(violations(&p), [format!("control I: variable #{} is not in the frame ({n} slots)", n + 3)]);
}

/// A program with a table without default action (sema gives it an unlisted `NoAction`), a
/// register and a counter, and a `for` loop.
const GAPS: &str = r#"
#include <v1model.p4>
header h_t { bit<8> a; bit<8> b; }
struct headers { h_t h; }
struct meta_t { bit<8> m; }
parser P(packet_in pkt, out headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition accept; }
}
control VC(inout headers hdr, inout meta_t meta) { apply {} }
control I(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    register<bit<8>>(4) r;
    counter(4, CounterType.packets) c;
    action set(bit<8> v) { hdr.h.b = v; }
    table t { key = { hdr.h.a: exact; } actions = { set; } }
    apply {
        t.apply();
        r.read(hdr.h.b, 1);
        c.count(2);
        for (bit<8> i = 0; i < 4; i = i + 1) { hdr.h.a = hdr.h.a + 1; }
    }
}
control E(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) { apply {} }
control CC(inout headers hdr, inout meta_t meta) { apply {} }
control D(packet_out pkt, in headers hdr) { apply { pkt.emit(hdr.h); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
"#;

fn gaps() -> p4_ir::Program {
    let c = p4_sema::compile_str("gaps.p4", GAPS, &[root().join("p4include")]);
    let d = c.render_diagnostics();
    c.program.unwrap_or_else(|| panic!("{d}"))
}

/// The call of `method` in control `I`'s body.
fn method_call<'p>(p: &'p mut p4_ir::Program, method: &str) -> &'p mut p4_ir::Call {
    let i = ci(p);
    p.controls[i]
        .body
        .iter_mut()
        .find_map(|s| match s {
            p4_ir::Stmt::Call(c) if matches!(&c.callee, p4_ir::Callee::Method { method: m, .. } if m == method) => Some(c),
            _ => None,
        })
        .unwrap_or_else(|| panic!("a call of {method} in I"))
}

/// The implicit default: sema gives a table without a default action an unlisted `NoAction`
/// (kept, and accepted as the documented exception), but only a parameterless, non-const one.
#[test]
fn verifier_accepts_only_the_front_ends_implicit_no_action() {
    use p4_ir::*;
    let p = gaps();
    let t = p.tables.iter().find(|t| t.name == "I.t").expect("I.t");
    let d = t.default_action.as_ref().expect("sema supplies a default");
    assert_eq!(p.actions[d.action.index()].name, "NoAction");
    assert!(!t.actions.iter().any(|a| a.action == d.action), "sema does not list it");
    assert_eq!(violations(&p), Vec::<String>::new());

    // A const unlisted NoAction is not the front end's.
    let mut q = p.clone();
    q.tables.iter_mut().find(|t| t.name == "I.t").unwrap().default_is_const = true;
    assert_eq!(violations(&q), ["control I, table I.t: the implicit default action NoAction (not among the table's actions) is const"]);

    // Nor is one with a parameter (given its argument, so only the exception's check fires).
    let mut q = p.clone();
    let na = q.tables.iter().find(|t| t.name == "I.t").unwrap().default_action.as_ref().unwrap().action;
    let set = q.actions.iter().find(|a| a.name == "I.set").unwrap().clone();
    let a = &mut q.actions[na.index()];
    a.params = set.params.clone();
    a.block = set.block.clone();
    let v = Expr::constant(Value::Bits { width: 8, signed: false, value: 1.into() }, Type::bit(8), Span::DUMMY);
    q.tables.iter_mut().find(|t| t.name == "I.t").unwrap().default_action.as_mut().unwrap().args = vec![v];
    assert_eq!(violations(&q), ["control I, table I.t: the implicit default action NoAction (not among the table's actions) takes 1 parameters"]);
}

/// Extern method calls are checked against the architecture's signatures: number, direction
/// and type of the arguments, and the instance's type.
#[test]
fn verifier_checks_extern_calls_against_the_description() {
    use p4_ir::*;
    assert_eq!(violations(&gaps()), Vec::<String>::new());

    // `register<bit<8>>.read(out bit<8>, in bit<32>)`: an index of the wrong width.
    let mut p = gaps();
    method_call(&mut p, "read").args[1].expr = Expr::constant(Value::Bits { width: 16, signed: false, value: 1.into() }, Type::bit(16), Span::DUMMY);
    assert_eq!(violations(&p), ["control I: `16w1` has type bit<16> but parameter `index` of register.read is bit<32>"]);

    // The result passed `in`, and a result of the wrong type.
    let mut p = gaps();
    let c = method_call(&mut p, "read");
    c.args[0].direction = Direction::In;
    assert_eq!(violations(&p), ["control I: argument `result` of register.read is passed in, the parameter is out"]);
    // The instance's type argument is the result's type: `register<bit<16>>` reading into a bit<8>.
    let mut p = gaps();
    p.externs.iter_mut().find(|e| e.name == "I.r").expect("I.r").type_args = vec![Type::bit(16)];
    let errs = violations(&p);
    assert!(errs.contains(&"control I: `hdr.h.b` has type bit<8> but parameter `result` of register.read is bit<16>".to_string()), "{errs:?}");

    // A missing argument.
    let mut p = gaps();
    method_call(&mut p, "count").args.clear();
    assert_eq!(violations(&p), ["control I: call of counter.count has 0 arguments for 1 parameters"]);

    // A method the extern type does not have, and a call naming another type than its instance's.
    let mut p = gaps();
    if let Callee::Method { method, .. } = &mut method_call(&mut p, "count").callee {
        *method = "reset".into();
    }
    assert_eq!(violations(&p), ["control I: counter has no method reset in v1model"]);
    let mut p = gaps();
    if let Callee::Method { extern_type, .. } = &mut method_call(&mut p, "count").callee {
        *extern_type = "meter".into();
    }
    assert_eq!(violations(&p), ["control I: calls meter.count on I.c, an instance of counter"]);

    // An undescribed architecture: not checked.
    let mut p = gaps();
    method_call(&mut p, "count").args.clear();
    p.main.type_name = "Unknown".into();
    assert_eq!(violations(&p), Vec::<String>::new());
}

/// A `for` condition is `bool`; a `for` without one needs a way out.
#[test]
fn verifier_checks_for_loop_conditions() {
    use p4_ir::*;
    let i_for = |p: &mut Program| -> (Option<Expr>, Vec<Stmt>) {
        let i = ci(p);
        let s = p.controls[i].body.iter_mut().find(|s| matches!(s, Stmt::For { .. })).expect("a for loop in I");
        let Stmt::For { cond, body, .. } = s else { unreachable!() };
        (cond.take(), body.clone())
    };
    // No condition, no break: never ends.
    let mut p = gaps();
    i_for(&mut p);
    assert_eq!(violations(&p), ["control I: a `for` loop without a condition has no `break`, `return` or `exit`: it never ends"]);

    // No condition, but a break (inside an if): fine; a break of an inner loop is not one.
    let mut p = gaps();
    let (cond, _) = i_for(&mut p);
    let cond = cond.unwrap();
    let i = ci(&p);
    let brk = Stmt::If { cond: cond.clone(), then: vec![], otherwise: vec![Stmt::Break(Span::DUMMY)], span: Span::DUMMY };
    let Some(Stmt::For { body, .. }) = p.controls[i].body.iter_mut().find(|s| matches!(s, Stmt::For { .. })) else { unreachable!() };
    body.push(brk.clone());
    assert_eq!(violations(&p), Vec::<String>::new());
    let Some(Stmt::For { body, .. }) = p.controls[i].body.iter_mut().find(|s| matches!(s, Stmt::For { .. })) else { unreachable!() };
    let inner = Stmt::For { init: vec![], cond: Some(cond.clone()), update: vec![], body: vec![brk], span: Span::DUMMY };
    *body = vec![inner];
    assert_eq!(violations(&p), ["control I: a `for` loop without a condition has no `break`, `return` or `exit`: it never ends"]);

    // A condition that is not bool.
    let mut p = gaps();
    let i = ci(&p);
    let Some(Stmt::For { cond, .. }) = p.controls[i].body.iter_mut().find(|s| matches!(s, Stmt::For { .. })) else { unreachable!() };
    *cond = Some(Expr::constant(Value::Bits { width: 8, signed: false, value: 1.into() }, Type::bit(8), Span::DUMMY));
    assert_eq!(violations(&p), ["control I: a `for` condition has type bit<8>, not bool"]);
}

/// Print, read back, print: the text must not change. Returns the first difference or error.
fn round_trip(name: &str, prog: &p4_ir::Program) -> Result<(), String> {
    let text = p4_ir::printer::print_program(prog);
    let back = p4_ir::text::parse_program(name, &text).map_err(|e| e.render(&e.file, &text))?;
    let again = p4_ir::printer::print_program(&back);
    if again == text {
        return Ok(());
    }
    let (a, b) = text.lines().zip(again.lines()).find(|(a, b)| a != b).unwrap_or(("<end>", "<end>"));
    Err(format!("printed again differs:\n  first:  {a}\n  second: {b}"))
}

#[test]
fn every_project_program_round_trips() {
    let progs = compiled();
    let mut failures = Vec::new();
    for (path, prog) in &progs {
        if let Err(e) = round_trip(&path.display().to_string(), prog) {
            failures.push(e);
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} programs do not round-trip:\n{}",
        failures.len(),
        progs.len(),
        failures.join("\n")
    );
}

/// The held-out corpus (outside the repository): `P4IR_CORPUS=/work/corpus cargo test -p p4-sema
/// --test ir_roundtrip corpus -- --ignored --nocapture` round-trips and verifies every program of
/// its `valid/` and `stf/` directories that p4forge accepts and prints the counts.
#[test]
#[ignore]
fn corpus_round_trips() {
    let Some(dir) = std::env::var_os("P4IR_CORPUS") else { return };
    let inc = root().join("p4include");
    let (mut accepted, mut ok, mut failures) = (0, 0, Vec::new());
    let mut files: Vec<PathBuf> = ["valid", "stf"]
        .iter()
        .flat_map(|d| {
            std::fs::read_dir(Path::new(&dir).join(d)).into_iter().flatten().filter_map(|e| e.ok().map(|e| e.path()))
        })
        .filter(|p| p.extension().is_some_and(|x| x == "p4"))
        .collect();
    files.sort();
    for p in &files {
        let Some(prog) = p4_sema::compile_file(p, &[inc.clone()]).program else { continue };
        accepted += 1;
        let r = p4_ir::verify::verify(&prog)
            .map_err(|es| es.iter().take(3).map(|e| e.to_string()).collect::<Vec<_>>().join("; "))
            .and_then(|()| round_trip(&p.display().to_string(), &prog));
        match r {
            Ok(()) => ok += 1,
            Err(e) => failures.push(format!("{}: {e}", p.display())),
        }
    }
    println!("{} files, {accepted} accepted, {ok} verify and round-trip", files.len());
    for f in &failures {
        println!("{f}");
    }
    assert!(failures.is_empty());
}

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
    for dir in ["tests/stf", "tests/programs/valid", "crates/p4forge/tests/fixtures"] {
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

    // A header field without a wire layout (a struct holding a header), and two varbits.
    let mut p = small();
    let h = p.find_type("h_t").expect("h_t");
    let meta = p.find_type("headers").expect("headers");
    let TypeDef::Header { fields, .. } = &mut p.types[h.index()] else { panic!("h_t is a header") };
    fields[0].ty = Type::Named(meta);
    fields.push(FieldDef { name: "v1".into(), ty: Type::Varbit(8), annotations: vec![] });
    fields.push(FieldDef { name: "v2".into(), ty: Type::Varbit(8), annotations: vec![] });
    let errs = violations(&p);
    assert_eq!(
        errs[..2],
        [
            "type h_t: header field a has type headers, which has no wire layout",
            "type h_t: a header has more than one varbit field"
        ]
    );

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

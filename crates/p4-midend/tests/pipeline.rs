//! Properties of the whole pipeline on every program of the project that has an STF test.

mod common;

use p4_ir::printer::print_program;

fn programs() -> Vec<std::path::PathBuf> {
    let root = common::repo_root();
    let mut pairs = common::stf_pairs(&root.join("examples"));
    pairs.extend(common::stf_pairs(&root.join("tests/stf")));
    pairs.extend(common::stf_pairs(&root.join("tests/stf-psa")));
    pairs.extend(common::stf_pairs(&root.join("crates/p4-midend/tests/passes")));
    pairs.into_iter().map(|(p4, _)| p4).collect()
}

/// The lowered IR is IR like any other: its text form reads back (`p4_ir::text::parse_program`, which
/// verifies what it reads) and prints the same text again.
#[test]
fn lowered_text_round_trips() {
    for p4 in programs() {
        let program = common::compile(&p4).expect("compiles");
        let lowered = p4_midend::lower(program).expect("lowers");
        let text = print_program(&lowered);
        let back = match p4_ir::text::parse_program("lowered.p4ir", &text) {
            Ok(p) => p,
            Err(e) => {
                panic!("{}: the lowered text does not read back:\n{}", p4.display(), e.render("lowered.p4ir", &text))
            }
        };
        assert_eq!(print_program(&back), text, "{}: round trip changed the text", p4.display());
    }
}

/// Lowering a lowered program changes nothing: every pass leaves nothing it would rewrite again
/// (a pass that is not idempotent would keep growing the program each time it runs).
#[test]
fn lowering_is_idempotent() {
    let mut checked = 0;
    for p4 in programs() {
        let program = common::compile(&p4).expect("compiles");
        let once = p4_midend::lower(program).expect("lowers");
        let once_text = print_program(&once);
        let twice = p4_midend::lower(once).expect("lowers again");
        assert_eq!(print_program(&twice), once_text, "{}: a second lowering changed the program", p4.display());
        checked += 1;
    }
    assert!(checked >= 63, "only {checked} programs");
}

#[test]
fn pipeline_order_and_names() {
    assert_eq!(
        p4_midend::Pipeline::default().names(),
        [
            "inline-controls",
            "inline-parsers",
            "hoist-effects",
            "inline-functions",
            "unroll-loops",
            "slice-rmw",
            "unroll-parser-stacks",
            "flatten-locals",
            "parallel-actions",
            "dead-metadata"
        ]
    );
    let p = p4_midend::Pipeline::from_names(&["slice-rmw", "inline-functions"]).expect("known names");
    assert_eq!(p.names(), ["slice-rmw", "inline-functions"]);
    let e = p4_midend::Pipeline::from_names(&["unroll-parsers"]).err().expect("unknown name");
    assert!(e.starts_with("unknown mid-end pass `unroll-parsers`"), "{e}");
}

/// What the pipeline removes from the project's programs: no function and no sub-control that can be
/// inlined is left (each survivor is listed with the reason the passes leave it).
#[test]
fn functions_and_sub_controls_are_gone() {
    for p4 in programs() {
        let program = common::compile(&p4).expect("compiles");
        let lowered = p4_midend::lower(program).expect("lowers");
        let names: Vec<&str> = lowered.functions.iter().map(|f| f.name.as_str()).collect();
        // Calls in `||` right operands become statements under an `if` first (hoist-effects), so
        // none is left.
        assert!(names.is_empty(), "{}: functions left: {names:?}", p4.display());
        // Top-level blocks aside, no sub-control stays, but those applied from two controls (a
        // table belongs to one control) and those that may exit from an action while a copy-back
        // is due (inline-controls/twice.p4 would keep Quitter if it needed one). All the project's
        // sub-parsers are inlined.
        let text = print_program(&lowered);
        let top = top_controls(&lowered);
        for (i, c) in lowered.controls.iter().enumerate() {
            if top.contains(&i) {
                continue;
            }
            let sites = text.matches(&format!(" {}.apply(", c.block.name)).count();
            let kept_on_purpose =
                p4.ends_with("inline-controls/twice.p4") && c.block.name == "TestIngress.quitter";
            assert!(
                kept_on_purpose,
                "{}: sub-control {} left with {sites} apply",
                p4.display(),
                c.block.name
            );
        }
        assert_eq!(lowered.parsers.len(), top_parsers(&lowered), "{}: sub-parsers left", p4.display());
    }
}

/// The package's blocks, nested packages included (PSA's pipelines).
fn package_blocks(p: &p4_ir::Package, out: &mut Vec<p4_ir::PackageArg>) {
    for (_, a) in &p.args {
        match a {
            p4_ir::PackageArg::Package(inner) => package_blocks(inner, out),
            p4_ir::PackageArg::Parser(_) | p4_ir::PackageArg::Control(_) => out.push(a.clone()),
            _ => {}
        }
    }
}

fn top_controls(p: &p4_ir::Program) -> Vec<usize> {
    let mut blocks = Vec::new();
    package_blocks(&p.main, &mut blocks);
    blocks
        .iter()
        .filter_map(|a| match a {
            p4_ir::PackageArg::Control(c) => Some(c.index()),
            _ => None,
        })
        .collect()
}

fn top_parsers(p: &p4_ir::Program) -> usize {
    let mut blocks = Vec::new();
    package_blocks(&p.main, &mut blocks);
    blocks.iter().filter(|a| matches!(a, p4_ir::PackageArg::Parser(_))).count()
}

/// `for` statements in a program's code (nested ones included).
fn count_loops(p: &p4_ir::Program) -> usize {
    struct Loops(usize);
    impl p4_ir::visit::Visit<'_> for Loops {
        fn visit_stmt(&mut self, s: &p4_ir::Stmt) {
            self.0 += usize::from(matches!(s, p4_ir::Stmt::For { .. }));
            p4_ir::visit::walk_stmt(self, s);
        }
    }
    let mut loops = Loops(0);
    p4_ir::visit::walk_program(&mut loops, p);
    loops.0
}

/// The loops the pipeline leaves are those bounded by run-time values (and the golden cases' loops
/// left on purpose): every other program with loops is loop-free after lowering.
#[test]
fn only_run_time_loops_are_left() {
    let expected = [
        // Before: 2. Both for-in loops are unrolled.
        ("tests/stf/for_in_collections.p4", 2, 0),
        // Before: 4. Left: `i <= hdr.h.n` and `i in 1 .. hdr.h.n`.
        ("tests/stf/for_loops.p4", 4, 2),
        // Left: `i in 0 .. hdr.h.n`.
        ("unroll-loops/collections.p4", 5, 1),
        // Left: the body assigning its variable, and the 300-iteration loop.
        ("unroll-loops/break_continue.p4", 7, 2),
        // Left: the outer `k < hdr.h.n` (its inner for-in is unrolled).
        ("unroll-loops/nested.p4", 9, 1),
    ];
    let mut seen = 0;
    for p4 in programs() {
        let Some((_, before, after)) = expected.iter().find(|(name, _, _)| p4.ends_with(name)) else { continue };
        let program = common::compile(&p4).expect("compiles");
        assert_eq!(count_loops(&program), *before, "{}: loops before lowering", p4.display());
        let lowered = p4_midend::lower(program).expect("lowers");
        assert_eq!(count_loops(&lowered), *after, "{}: loops left after lowering", p4.display());
        seen += 1;
    }
    assert_eq!(seen, expected.len());
}

/// A pass that breaks the IR: it lists an action that does not exist in the first table.
struct Breaker;

impl p4_midend::Pass for Breaker {
    fn name(&self) -> &'static str {
        "breaker"
    }
    fn run(&self, program: &mut p4_ir::Program) -> Result<(), p4_midend::PassError> {
        if let Some(table) = program.tables.first_mut() {
            table.actions.push(p4_ir::TableAction { action: p4_ir::ActionId(99_999), bound_args: Vec::new(), table_only: false, ..table.actions[0].clone() });
        }
        Ok(())
    }
}

/// In debug builds the verifier runs after every pass and names the pass that broke the IR; in
/// release builds (`--profile ci`) it does not run, and the broken program comes out.
#[test]
fn debug_builds_verify_after_every_pass() {
    let root = common::repo_root();
    let program = common::compile(&root.join("examples/l2l3/l2l3.p4")).expect("compiles");
    let result = p4_midend::Pipeline::new(vec![Box::new(Breaker)]).run(program);
    if cfg!(debug_assertions) {
        let error = result.err().expect("the verifier refuses the broken program");
        assert_eq!(error.pass, "verify");
        assert!(error.message.starts_with("after `breaker`: "), "{}", error.message);
    } else {
        assert!(result.is_ok());
    }
}

//! The mid-end's main validation: every STF test of the project, run on the lowered program, must end
//! exactly as it does on the program straight from sema (the software dataplane is the oracle). The
//! golden cases under `tests/passes/` that have an `.stf` beside them run the same way. The mid-end's
//! check and the IR verifier run after every pass, and the lowered text form must read back.
//!
//! The held-out corpus (kept outside the repository) runs the same way when `P4_MIDEND_CORPUS` names
//! its directory: `P4_MIDEND_CORPUS=/work/corpus/stf cargo test -p p4-midend --profile ci --test
//! stf_lowered -- --nocapture corpus`. It prints the counts and fails if lowering loses a test.

mod common;

use common::{compile, repo_root, run_stf, stf_pairs, Outcome};
use std::path::{Path, PathBuf};

/// Per pair: (name, unlowered outcome, lowered outcome); programs that do not compile are skipped.
fn compare(pairs: &[(PathBuf, PathBuf)], root: &Path) -> (Vec<String>, usize, usize, usize) {
    let (mut regressions, mut both_pass, mut unlowered_pass, mut lowered_pass) = (Vec::new(), 0, 0, 0);
    for (p4, stf) in pairs {
        let name = stf.strip_prefix(root).unwrap_or(stf).display().to_string();
        let Ok(program) = compile(p4) else {
            println!("SKIP {name}: does not compile");
            continue;
        };
        let before = run_stf(program.clone(), stf);
        // The structural check and the IR verifier run on the input and after every pass. What the
        // verifier already says about sema's output is reported, not blamed on the passes.
        if let Err(e) = p4_midend::check::check_program(&program) {
            regressions.push(format!("{name}: sema's output fails the check: {e}"));
            continue;
        }
        let known = common::verify_errors(&program);
        if !known.is_empty() {
            println!("NOTE {name}: sema's output does not verify: {}", known.join("; "));
        }
        let pipeline = p4_midend::Pipeline::default();
        let lowered = match pipeline.run_with(program, |pass, p| common::check_and_verify(pass, p, &known)) {
            Ok(l) => l,
            Err(e) => {
                unlowered_pass += usize::from(before == Outcome::Passed);
                regressions.push(format!("{name}: lowering failed: {e}"));
                continue;
            }
        };
        // The lowered text form reads back to the same text.
        let text = p4_ir::printer::print_program(&lowered);
        match p4_ir::text::parse_program("lowered.p4ir", &text) {
            Ok(back) if p4_ir::printer::print_program(&back) == text => {}
            Ok(_) => regressions.push(format!("{name}: the lowered IR's text round trip changes it")),
            Err(e) => regressions
                .push(format!("{name}: the lowered IR's text does not read back: {}", e.render("lowered.p4ir", &text))),
        }
        let after = run_stf(lowered, stf);
        unlowered_pass += usize::from(before == Outcome::Passed);
        lowered_pass += usize::from(after == Outcome::Passed);
        match (&before, &after) {
            (Outcome::Passed, Outcome::Passed) => {
                both_pass += 1;
                println!("PASS {name}");
            }
            (Outcome::Passed, other) => regressions.push(format!("{name}: passes unlowered, lowered: {other:?}")),
            (b, Outcome::Passed) => println!("FIXED {name}: fails unlowered ({b:?}), passes lowered"),
            // Failing both ways is fine only with the same report: lowering must not change behaviour.
            (b, a) if b == a => println!("FAIL-BOTH {name} (same report)"),
            (b, a) => {
                regressions.push(format!("{name}: fails both ways, differently:\nunlowered: {b:?}\nlowered: {a:?}"))
            }
        }
    }
    (regressions, both_pass, unlowered_pass, lowered_pass)
}

#[test]
fn project_stf_suite_passes_lowered() {
    let root = repo_root();
    let mut pairs = stf_pairs(&root.join("examples"));
    pairs.extend(stf_pairs(&root.join("tests/stf")));
    pairs.extend(stf_pairs(&root.join("tests/stf-psa")));
    // The golden cases of the passes carry STF files too: the edge cases each pass must get right.
    pairs.extend(stf_pairs(&root.join("crates/p4-midend/tests/passes")));
    // 61 project STF files at the time of writing plus the passes' own; a drop means the walk broke.
    assert!(pairs.len() >= 63, "found only {} STF pairs", pairs.len());
    let (regressions, both, unlowered, lowered) = compare(&pairs, &root);
    println!("project: {} pairs, unlowered pass {unlowered}, lowered pass {lowered}, both {both}", pairs.len());
    assert!(regressions.is_empty(), "lowering lost {} tests:\n{}", regressions.len(), regressions.join("\n"));
    // Everything passes unlowered (crates/p4forge/tests/known_failures.txt is empty) and lowered.
    assert_eq!(unlowered, pairs.len());
    assert_eq!(lowered, pairs.len());
}

#[test]
fn corpus_stf_passes_lowered() {
    let Some(dir) = std::env::var_os("P4_MIDEND_CORPUS") else {
        println!("P4_MIDEND_CORPUS not set: corpus skipped");
        return;
    };
    let dir = PathBuf::from(dir);
    let pairs = stf_pairs(&dir);
    let (regressions, both, unlowered, lowered) = compare(&pairs, &dir);
    println!("corpus: {} pairs, unlowered pass {unlowered}, lowered pass {lowered}, both {both}", pairs.len());
    assert!(regressions.is_empty(), "lowering lost {} tests:\n{}", regressions.len(), regressions.join("\n"));
}

//! IR-in/IR-out tests, one directory per pass: `tests/passes/<pass>/<case>.p4` is compiled, the pass
//! named by the directory runs alone, and the printed IR (`p4_ir::printer::print_program`) must equal
//! `<case>.expected`. `BLESS=1 cargo test -p p4-midend --test passes` rewrites the expected files;
//! review the diff before committing it.
//!
//! Each output must pass the mid-end's check and the IR verifier, and still load into the software
//! dataplane (`Switch::new`): a pass never leaves the program invalid or unrunnable.

mod common;

use std::path::Path;
use std::sync::Arc;

fn run_case(pass_name: &str, input: &Path) -> Result<(), String> {
    let program = common::compile(input).map_err(|d| format!("{}: does not compile:\n{d}", input.display()))?;
    let pass =
        p4_midend::pass_by_name(pass_name).ok_or_else(|| format!("no pass named `{pass_name}` (directory name)"))?;
    let known = common::verify_errors(&program);
    let mut lowered = program;
    pass.run(&mut lowered).map_err(|e| format!("{}: {e}", input.display()))?;
    common::check_and_verify(pass_name, &lowered, &known).map_err(|e| format!("{}: {e}", input.display()))?;
    let text = p4_ir::printer::print_program(&lowered);
    p4_dataplane::Switch::new(Arc::new(lowered)).map_err(|e| {
        format!("{}: the dataplane refuses the output of `{pass_name}`: {}", input.display(), e.message)
    })?;
    let expected_path = input.with_extension("expected");
    if std::env::var_os("BLESS").is_some() {
        std::fs::write(&expected_path, &text).map_err(|e| format!("{}: {e}", expected_path.display()))?;
        return Ok(());
    }
    let expected = std::fs::read_to_string(&expected_path)
        .map_err(|e| format!("{}: {e} (run with BLESS=1 to create it)", expected_path.display()))?;
    if expected != text {
        let diff: Vec<String> = expected
            .lines()
            .zip(text.lines())
            .enumerate()
            .filter(|(_, (a, b))| a != b)
            .take(10)
            .map(|(i, (a, b))| format!("line {}:\n  expected: {a}\n  got:      {b}", i + 1))
            .collect();
        return Err(format!(
            "{}: output differs from {} ({} vs {} lines; BLESS=1 to accept)\n{}",
            input.display(),
            expected_path.display(),
            expected.lines().count(),
            text.lines().count(),
            diff.join("\n")
        ));
    }
    Ok(())
}

#[test]
fn every_pass_golden_case() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/passes");
    let mut failures = Vec::new();
    let mut cases = 0;
    let mut passes_seen = Vec::new();
    let mut pass_dirs: Vec<_> =
        std::fs::read_dir(&dir).expect("tests/passes").flatten().map(|e| e.path()).filter(|p| p.is_dir()).collect();
    pass_dirs.sort();
    for pass_dir in pass_dirs {
        let pass_name = pass_dir.file_name().and_then(|n| n.to_str()).unwrap_or_default().to_string();
        let mut inputs: Vec<_> = std::fs::read_dir(&pass_dir)
            .expect("pass dir")
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|e| e == "p4"))
            .collect();
        inputs.sort();
        for input in inputs {
            cases += 1;
            if let Err(e) = run_case(&pass_name, &input) {
                failures.push(e);
            }
        }
        passes_seen.push(pass_name);
    }
    // Every pass of the pipeline has golden cases.
    for name in p4_midend::PASS_NAMES {
        assert!(passes_seen.iter().any(|p| p == name), "no golden cases for pass `{name}` in tests/passes/{name}/");
    }
    assert!(failures.is_empty(), "{} of {cases} golden cases failed:\n{}", failures.len(), failures.join("\n\n"));
}

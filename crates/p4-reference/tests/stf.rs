//! Every STF test of the project (`tests/stf/*.stf` and the STF files under `examples/`) on the
//! reference interpreter, run on the lowered program as the CLI runs it.

use std::path::{Path, PathBuf};
use std::sync::Arc;

fn repo_root() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
}

/// Every `*.stf` below `dir` with a `*.p4` of the same name beside it, sorted.
fn stf_pairs(dir: &Path) -> Vec<(PathBuf, PathBuf)> {
    fn walk(dir: &Path, found: &mut Vec<(PathBuf, PathBuf)>) {
        let Ok(entries) = std::fs::read_dir(dir) else { return };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                walk(&path, found);
            } else if path.extension().is_some_and(|e| e == "stf") {
                let p4 = path.with_extension("p4");
                if p4.is_file() {
                    found.push((p4, path));
                }
            }
        }
    }
    let mut found = Vec::new();
    walk(dir, &mut found);
    found.sort();
    found
}

/// `Err` with what went wrong: the program does not compile or lower, or the STF file fails.
fn run(p4: &Path, stf: &Path) -> Result<(), String> {
    let compiled = p4_sema::compile_file(p4, &[repo_root().join("p4include")]);
    let Some(program) = compiled.program else { return Err(compiled.render_diagnostics()) };
    let lowered = p4_midend::lower(program).map_err(|e| format!("lowering: {e}"))?;
    let mut interpreter = p4_reference::Interpreter::new(Arc::new(lowered))?;
    let text = std::fs::read_to_string(stf).map_err(|e| e.to_string())?;
    let commands = p4_stf::parse_stf(&text).map_err(|e| e.render(&stf.display().to_string()))?;
    let report = p4_stf::run_stf(&mut interpreter, &commands);
    if report.passed() {
        Ok(())
    } else {
        Err(report.render())
    }
}

#[test]
fn every_project_stf_test_passes_on_the_interpreter() {
    let root = repo_root();
    let mut pairs = stf_pairs(&root.join("tests/stf"));
    pairs.extend(stf_pairs(&root.join("examples")));
    // 59 in tests/stf and 3 under examples when this was written; fewer means the walk broke.
    assert!(pairs.len() >= 62, "found only {} STF pairs", pairs.len());
    let mut failures = Vec::new();
    for (p4, stf) in &pairs {
        let name = stf.strip_prefix(&root).unwrap_or(stf).display().to_string();
        match run(p4, stf) {
            Ok(()) => println!("PASS {name}"),
            Err(why) => failures.push(format!("{name}:\n{why}")),
        }
    }
    println!("{} of {} STF files pass on the reference interpreter", pairs.len() - failures.len(), pairs.len());
    assert!(failures.is_empty(), "{} STF files fail:\n{}", failures.len(), failures.join("\n"));
}

//! Shared by the integration tests: compiling a program, running an STF file on a program.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::sync::Arc;

pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Compiles a P4 file with the repository's `p4include/`; `Err` carries the rendered diagnostics.
pub fn compile(path: &Path) -> Result<p4_ir::Program, String> {
    let compiled = p4_sema::compile_file(path, &[repo_root().join("p4include")]);
    let rendered = compiled.render_diagnostics();
    match compiled.program {
        Some(p) if !compiled.has_errors() => Ok(p),
        _ => Err(rendered),
    }
}

/// How one STF run ended.
#[derive(Debug, PartialEq)]
pub enum Outcome {
    /// The dataplane refused the program.
    NotRunnable(String),
    Passed,
    Failed(String),
}

/// A dataplane an STF file runs on.
trait Dataplane: p4_dataplane::control::ControlPlane + p4_dataplane::control::PacketIo {}
impl<T: p4_dataplane::control::ControlPlane + p4_dataplane::control::PacketIo> Dataplane for T {}

/// Runs `stf` on a fresh switch built from `program`: on the wire-format executor, or where that
/// refuses the program (sema's output of a program only the mid-end makes it take), on the
/// reference interpreter.
pub fn run_stf(program: p4_ir::Program, stf: &Path) -> Outcome {
    let text = std::fs::read_to_string(stf).unwrap_or_default();
    let commands = match p4_stf::parse_stf(&text) {
        Ok(c) => c,
        Err(e) => return Outcome::Failed(e.render(&stf.display().to_string())),
    };
    let program = Arc::new(program);
    let mut dataplane: Box<dyn Dataplane> = match p4_dataplane::Switch::new(program.clone()) {
        Ok(s) => Box::new(s),
        Err(_) => match p4_reference::Interpreter::new(program) {
            Ok(i) => Box::new(i),
            Err(e) => return Outcome::NotRunnable(e),
        },
    };
    let report = p4_stf::run_stf(dataplane.as_mut(), &commands);
    if report.passed() {
        Outcome::Passed
    } else {
        Outcome::Failed(report.render())
    }
}

/// Every `*.stf` below `dir` that has a `*.p4` of the same name beside it, sorted.
pub fn stf_pairs(dir: &Path) -> Vec<(PathBuf, PathBuf)> {
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

/// The verifier's complaints about `program`, as text.
pub fn verify_errors(program: &p4_ir::Program) -> Vec<String> {
    p4_ir::verify::verify(program).err().unwrap_or_default().iter().map(|e| e.to_string()).collect()
}

/// The mid-end's structural check and the IR verifier (`p4_ir::verify`), as one pass hook. Complaints
/// already made about sema's output (`known`) are not the pass's doing and are let through; any new
/// one fails.
pub fn check_and_verify(pass: &str, program: &p4_ir::Program, known: &[String]) -> Result<(), p4_midend::PassError> {
    p4_midend::check::check_program(program)?;
    let new: Vec<String> = verify_errors(program).into_iter().filter(|e| !known.contains(e)).collect();
    if new.is_empty() {
        Ok(())
    } else {
        Err(p4_midend::PassError::new("verify", format!("after `{pass}`: {}", new.join("; "))))
    }
}

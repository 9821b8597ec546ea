//! Golden tests: every program in `tests/invalid/` must be rejected with exactly the snapshotted
//! diagnostics; every program in `tests/valid/` must compile without errors (and, when it has a
//! `main`, elaborate); the IR of every program in `tests/ir/` is snapshotted.

use std::path::{Path, PathBuf};

fn include_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../p4include")
}

/// Compile a test file under a stable, relative name so rendered paths do not depend on the checkout.
fn compile(path: &Path) -> p4_sema::Compiled {
    let text = std::fs::read_to_string(path).expect("test file readable");
    let dir = path.parent().and_then(|d| d.file_name()).and_then(|d| d.to_str()).unwrap_or("");
    let file = path.file_name().and_then(|f| f.to_str()).unwrap_or("");
    p4_sema::compile_str(&format!("{dir}/{file}"), &text, &[include_dir()])
}

#[test]
fn invalid_programs_are_rejected() {
    insta::glob!("invalid/*.p4", |path| {
        let c = compile(path);
        assert!(c.has_errors(), "{} was accepted", path.display());
        assert!(c.program.is_none());
        insta::assert_snapshot!(c.render_diagnostics());
    });
}

#[test]
fn valid_programs_are_accepted() {
    insta::glob!("valid/*.p4", |path| {
        let c = compile(path);
        assert!(!c.has_errors(), "{} was rejected:\n{}", path.display(), c.render_diagnostics());
        let unsupported = c.diagnostics.iter().any(|d| d.message.starts_with("unsupported:"));
        assert!(c.program.is_some() != unsupported, "{} elaboration disagrees with its warnings:\n{}", path.display(), c.render_diagnostics());
        insta::assert_snapshot!(c.render_diagnostics());
    });
}

#[test]
fn ir_snapshots() {
    insta::glob!("ir/*.p4", |path| {
        let c = compile(path);
        let Some(p) = &c.program else { panic!("{} failed:\n{}", path.display(), c.render_diagnostics()) };
        insta::assert_snapshot!(p4_ir::printer::print_program(p));
    });
}

//! Shared by the `frontend` fuzz target and the `frontend_loop` binary: one input through the whole
//! front end — preprocessor, parser, checker, elaborator — and, when that yields a program, the IR
//! printer and the dataplane's program preparation (`Switch::new`).
//!
//! `p4include/` is on the include path so that inputs derived from real programs
//! (`#include <v1model.p4>`) get past the preprocessor and exercise the checker and elaborator.

use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

fn include_dirs() -> &'static [PathBuf] {
    static DIRS: OnceLock<Vec<PathBuf>> = OnceLock::new();
    DIRS.get_or_init(|| vec![PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../p4include"))])
}

/// Compiles `text` as the file `fuzz.p4`. Panics only if the compiler does.
pub fn run(text: &str) {
    let compiled = p4_sema::compile_str("fuzz.p4", text, include_dirs());
    let rendered = compiled.render_diagnostics();
    let printed = compiled.program.as_ref().map(p4_ir::printer::print_program);
    if let Some(program) = compiled.program {
        // Programs that are not V1Switch pipelines are refused with an error; that is fine.
        let _ = p4_dataplane::Switch::new(Arc::new(program));
    }
    std::hint::black_box((rendered.len(), printed.map(|p| p.len())));
}

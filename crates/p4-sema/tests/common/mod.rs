//! Helpers of the control-graph tests: each test program is a shared prelude (headers, parser, empty
//! controls) plus the ingress control `MyIngress` the test supplies.
#![allow(dead_code)]

use p4_ir::{ControlId, Program};
use std::path::{Path, PathBuf};

pub fn include_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../p4include")
}

const MAIN: &str = "V1Switch(MyParser(), NoCk(), MyIngress(), MyEgress(), NoCk(), MyDeparser()) main;\n";

/// `prelude`, then `ingress`, then the `main` instantiation, compiled; panics with the diagnostics.
pub fn compile_with(prelude: &str, name: &str, ingress: &str) -> Program {
    let text = format!("{prelude}{ingress}\n{MAIN}");
    let c = p4_sema::compile_str(name, &text, &[include_dir()]);
    match c.program {
        Some(p) => p,
        None => panic!("{name} failed to compile:\n{}", c.render_diagnostics()),
    }
}

/// The id of the `MyIngress` control.
pub fn ingress(p: &Program) -> ControlId {
    let i = p.controls.iter().position(|c| c.block.name == "MyIngress").expect("MyIngress instance");
    ControlId(i as u32)
}

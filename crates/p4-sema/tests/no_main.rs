//! A valid program without `main`: accepted (no diagnostics), but `Compiled::no_main` says why
//! it cannot be run, and `Compiled::runnable` refuses it with that message.

use std::path::{Path, PathBuf};

fn include_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../p4include")
}

const LIBRARY: &str = r#"
#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> a; }
struct headers_t { h_t h; }
struct meta_t { }
parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition accept; }
}
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
"#;

#[test]
fn a_program_without_main_is_valid_but_not_runnable() {
    let c = p4_sema::compile_str("library.p4", LIBRARY, &[include_dir()]);
    assert!(c.diagnostics.is_empty(), "{}", c.render_diagnostics());
    let d = c.no_main.as_ref().expect("no_main is set");
    assert_eq!(d.message, "the program has no `main` package instantiation (V1Switch(...) main;)");
    assert_eq!(c.runnable().err().as_deref(), Some("error: the program has no `main` package instantiation (V1Switch(...) main;)\n"));
}

#[test]
fn a_program_with_main_is_runnable() {
    let text = format!(
        "{LIBRARY}control VC(inout headers_t hdr, inout meta_t meta) {{ apply {{ }} }}\n\
         control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {{ apply {{ }} }}\n\
         control D(packet_out pkt, in headers_t hdr) {{ apply {{ pkt.emit(hdr.h); }} }}\n\
         V1Switch(P(), VC(), I(), E(), VC(), D()) main;\n"
    );
    let c = p4_sema::compile_str("switch.p4", &text, &[include_dir()]);
    assert!(c.no_main.is_none());
    assert!(c.runnable().is_ok(), "{}", c.render_diagnostics());
}

//! `cargo run -p p4-sema --example check -- file.p4 [--ir]`: print diagnostics (and the IR).
use std::path::PathBuf;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let show_ir = args.iter().any(|a| a == "--ir");
    let inc = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../p4include"));
    for f in args.iter().filter(|a| !a.starts_with("--")) {
        let c = p4_sema::compile_file(std::path::Path::new(f), std::slice::from_ref(&inc));
        let status = if c.has_errors() { "ERR" } else if c.program.is_some() { "OK " } else { "NOP" };
        println!("== {status} {f}");
        let d = c.render_diagnostics();
        if !d.is_empty() {
            println!("{d}");
        }
        if show_ir {
            if let Some(p) = &c.program {
                println!("{}", p4_ir::printer::print_program(p));
            }
        }
    }
}

//! `cargo run -p p4-sema --example check -- file.p4 [--ir] [--cfg]`: print diagnostics (and the IR,
//! and/or the control graphs and parser def-use as `p4forge compile --emit cfg` prints them).
use std::path::PathBuf;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let show_ir = args.iter().any(|a| a == "--ir");
    let show_cfg = args.iter().any(|a| a == "--cfg");
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
        if show_cfg {
            if let Some(p) = &c.program {
                for i in 0..p.parsers.len() {
                    println!("{}", p4_ir::cfg::print_parser_defs(p, p4_ir::ParserId(i as u32)));
                }
                for i in 0..p.controls.len() {
                    let graph = p4_ir::cfg::ControlGraph::build(p, p4_ir::ControlId(i as u32));
                    println!("{}", p4_ir::cfg::print_control_graph(p, &graph));
                }
            }
        }
    }
}

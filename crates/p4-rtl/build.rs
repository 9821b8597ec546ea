//! Embeds every `hw/rtl/*.sv` module so `p4forge rtl` can copy the runtime modules a design uses
//! into a self-contained output directory, wherever the binary is installed.

use std::fmt::Write;
use std::path::PathBuf;

fn main() {
    let dir = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap()).join("../../hw/rtl");
    println!("cargo:rerun-if-changed={}", dir.display());
    let mut names: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map(|rd| {
            rd.filter_map(|e| e.ok().map(|e| e.path())).filter(|p| p.extension().is_some_and(|x| x == "sv")).collect()
        })
        .unwrap_or_default();
    names.sort();
    let mut out = String::from(
        "/// `hw/rtl` modules by name, embedded at build time.\npub static HW_MODULES: &[(&str, &str)] = &[\n",
    );
    for p in &names {
        println!("cargo:rerun-if-changed={}", p.display());
        let stem = p.file_stem().unwrap().to_string_lossy();
        let _ = writeln!(out, "    ({stem:?}, include_str!({:?})),", p.canonicalize().unwrap().display().to_string());
    }
    out.push_str("];\n");
    let dest = PathBuf::from(std::env::var("OUT_DIR").unwrap()).join("hw_modules.rs");
    std::fs::write(dest, out).unwrap();
}

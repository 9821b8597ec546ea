//! A stable-Rust stand-in for `cargo fuzz run frontend`: random bytes, random token soups and random
//! mutations of the repository's own `.p4` files through the whole front end; stops at the first panic.
//!
//! Usage: `frontend_loop [iterations] [seed]` (defaults: 200000, 1).

#[path = "frontend_harness.rs"]
mod frontend_harness;
#[path = "rng.rs"]
mod rng;

use std::path::{Path, PathBuf};

const WORDS: &[&[u8]] = &[
    b"(", b")", b"{", b"}", b"[", b"]", b"<", b">", b";", b",", b".", b":", b"=", b"&&&", b"+", b"-",
    b"|+|", b"#define X 1\n", b"#if X\n", b"#endif\n", b"#else\n", b"#include <core.p4>\n",
    b"#include <v1model.p4>\n", b"\n", b"@name(\"a\")", b"\"s\"", b"8w5", b"0x", b"x", b"T", b"bit<8>",
    b"int<4>", b"varbit<32>", b"bool", b"control", b"parser", b"state", b"transition", b"select",
    b"apply", b"table", b"key", b"actions", b"entries", b"struct", b"header", b"header_union",
    b"extern", b"action", b"const", b"if", b"else", b"switch", b"default", b"_", b"...", b"typedef",
    b"type", b"enum", b"return", b"exit", b"this", b"/*", b"*/", b"//", b"\\", b"#", b"1 << 70",
    b"32w0xffffffff", b"-1", b"[0:0]", b"[63:0]", b".next", b".last", b"isValid()", b"setValid()",
    b"V1Switch(", b"main", b"packet_in", b"packet_out", b"standard_metadata_t",
];

fn p4_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            p4_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "p4") {
            out.push(path);
        }
    }
}

fn main() {
    let root = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/.."));
    let mut paths = Vec::new();
    for dir in ["examples", "tests/programs", "tests/stf", "p4include", "crates/p4-syntax/tests"] {
        p4_files(&root.join(dir), &mut paths);
    }
    paths.sort();
    let seeds: Vec<Vec<u8>> = paths.iter().filter_map(|p| std::fs::read(p).ok()).collect();
    eprintln!("frontend_loop: {} seed programs", seeds.len());
    rng::drive(
        "frontend_loop",
        "p4",
        |rng| rng::p4_input(rng, WORDS, &seeds),
        |data| frontend_harness::run(&String::from_utf8_lossy(data)),
    );
}

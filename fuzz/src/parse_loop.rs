//! A dependency-free stand-in for `cargo fuzz run parse`: parse many random inputs (random bytes,
//! random token soups, and random mutations of a valid program) and stop at the first panic.
//!
//! Usage: `parse_loop [iterations] [seed]` (defaults: 200000, 1).

#[path = "parse_harness.rs"]
mod parse_harness;
#[path = "rng.rs"]
mod rng;

const SEED_PROGRAM: &str = include_str!("../../crates/p4-syntax/tests/programs/constructs.p4");

const WORDS: &[&[u8]] = &[
    b"(", b")", b"{", b"}", b"[", b"]", b"<", b">", b";", b",", b".", b"..", b":", b"=", b"&&&", b"+", b"-",
    b"|+|", b"#define X", b"#if", b"#endif", b"#else", b"#include <core.p4>", b"\n", b"@", b"@name(\"a\")",
    b"\"s\"", b"8w5", b"0x", b"x", b"T", b"bit", b"int", b"varbit", b"control", b"parser", b"state",
    b"transition", b"select", b"apply", b"table", b"key", b"actions", b"entries", b"struct", b"header",
    b"extern", b"action", b"const", b"if", b"else", b"switch", b"default", b"_", b"{#}", b"...", b"typedef",
    b"type", b"enum", b"return", b"for", b"in", b"out", b"this", b"/*", b"*/", b"//", b"\\", b"#", b"##",
    b"priority", b"value_set",
];

fn main() {
    let seeds = [SEED_PROGRAM.as_bytes().to_vec()];
    rng::drive(
        "parse_loop",
        "p4",
        |rng| rng::p4_input(rng, WORDS, &seeds),
        |data| parse_harness::run(&String::from_utf8_lossy(data)),
    );
}

//! A dependency-free stand-in for `cargo fuzz run parse`: parse many random inputs (random bytes,
//! random token soups, and random mutations of a valid program) and stop at the first panic.
//!
//! Usage: `parse_loop [iterations] [seed]` (defaults: 200000, 1).

const SEED_PROGRAM: &str = include_str!("../../crates/p4-syntax/tests/programs/constructs.p4");

const WORDS: &[&str] = &[
    "(", ")", "{", "}", "[", "]", "<", ">", ";", ",", ".", "..", ":", "=", "&&&", "+", "-", "|+|",
    "#define X", "#if", "#endif", "#else", "#include <core.p4>", "\n", "@", "@name(\"a\")", "\"s\"",
    "8w5", "0x", "x", "T", "bit", "int", "varbit", "control", "parser", "state", "transition",
    "select", "apply", "table", "key", "actions", "entries", "struct", "header", "extern", "action",
    "const", "if", "else", "switch", "default", "_", "{#}", "...", "typedef", "type", "enum",
    "return", "for", "in", "out", "this", "/*", "*/", "//", "\\", "#", "##", "priority", "value_set",
];

/// xorshift64*: small, deterministic, good enough to drive input generation.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }
}

fn input(rng: &mut Rng) -> String {
    match rng.below(3) {
        0 => {
            let len = rng.below(300);
            let bytes: Vec<u8> = (0..len).map(|_| rng.next() as u8).collect();
            String::from_utf8_lossy(&bytes).into_owned()
        }
        1 => {
            let len = rng.below(200);
            (0..len).map(|_| WORDS[rng.below(WORDS.len())]).collect::<Vec<_>>().join(" ")
        }
        _ => {
            let mut text = SEED_PROGRAM.as_bytes().to_vec();
            for _ in 0..=rng.below(8) {
                let at = rng.below(text.len());
                match rng.below(3) {
                    0 => {
                        let end = (at + rng.below(40)).min(text.len());
                        text.drain(at..end);
                    }
                    1 => {
                        let w = WORDS[rng.below(WORDS.len())];
                        text.splice(at..at, w.bytes());
                    }
                    _ => {
                        let from = rng.below(text.len());
                        let end = (from + rng.below(80)).min(text.len());
                        let chunk: Vec<u8> = text[from..end].to_vec();
                        text.splice(at..at, chunk);
                    }
                }
            }
            String::from_utf8_lossy(&text).into_owned()
        }
    }
}

fn main() {
    let mut args = std::env::args().skip(1);
    let iterations: u64 = args.next().and_then(|a| a.parse().ok()).unwrap_or(200_000);
    let seed: u64 = args.next().and_then(|a| a.parse().ok()).unwrap_or(1);
    let mut rng = Rng(seed.max(1));
    let start = std::time::Instant::now();
    for i in 0..iterations {
        let text = input(&mut rng);
        let t0 = std::time::Instant::now();
        let result = std::panic::catch_unwind(|| {
            let mut sources = p4_syntax::span::SourceMap::new();
            let out = p4_syntax::parse_str("fuzz.p4", &text, &[], &mut sources);
            for d in &out.diagnostics {
                let _ = d.render(&sources);
            }
            let _ = p4_syntax::print_program(&out.program);
        });
        if t0.elapsed() > std::time::Duration::from_secs(1) {
            let path = format!("parse_loop-slow-{seed}-{i}.p4");
            let _ = std::fs::write(&path, &text);
            eprintln!("iteration {i} took {:.1?}; input saved to {path}", t0.elapsed());
        }
        if result.is_err() {
            let path = format!("parse_loop-crash-{seed}-{i}.p4");
            let _ = std::fs::write(&path, &text);
            eprintln!("panic on iteration {i}; input saved to {path}");
            std::process::exit(1);
        }
    }
    println!("{iterations} inputs parsed without a panic in {:.1?}", start.elapsed());
}

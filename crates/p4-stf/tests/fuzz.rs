//! Mutation fuzzing of everything in this crate that reads user input: the STF parser, the BMv2
//! command-file parser and the pcap/pcapng reader must return errors, never panic.
//!
//! Seeds are the repository's own STF and entries files plus captures written here. A small run is
//! part of `cargo test`; `make fuzz` runs the `#[ignore]`d long version (`FUZZ_CASES` cases per
//! target). A failure prints the seed case number so it can be replayed.

use p4_stf::capture::{read_capture, read_capture_file, write_capture_file, TimedPacket};
use p4_stf::commands::parse_commands;
use p4_stf::parse_stf;
use std::path::{Path, PathBuf};

/// xorshift64*: deterministic, so a failing case number is reproducible.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }
}

/// Tokens that steer text mutations into the parsers' interesting corners.
const TOKENS: &[&str] = &[
    " ", "\n", "#", "(", ")", ":", ",", "=", "=>", "&&&", "/", "->", "*", "$", "0x", "0b", "-", "|", "..", "::",
    "packet", "expect", "add", "setdefault", "check_counter", "table_add", "mc_node_create", "register_read",
    "meter_set_rates", "99999999999999999999999", "255.255.255.256", "ff:ff:ff:ff:ff:ff", "1.5:", "\u{e9}",
];

fn mutate(rng: &mut Rng, seed: &[u8], text: bool) -> Vec<u8> {
    let mut data = seed.to_vec();
    for _ in 0..1 + rng.below(8) {
        let at = rng.below(data.len() + 1);
        match rng.below(5) {
            0 if !data.is_empty() => {
                let i = rng.below(data.len());
                data[i] ^= 1 << rng.below(8);
            }
            1 => data.truncate(at),
            2 if text => {
                let token = TOKENS[rng.below(TOKENS.len())].as_bytes();
                data.splice(at..at, token.iter().copied());
            }
            3 if !data.is_empty() => {
                let end = (at + rng.below(16)).min(data.len());
                data.drain(at.min(end)..end);
            }
            _ => {
                let byte = rng.next() as u8;
                data.insert(at, byte);
            }
        }
    }
    data
}

fn repo_files(ext: &str) -> Vec<Vec<u8>> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut found = Vec::new();
    let mut dirs: Vec<PathBuf> = vec![root.join("examples"), root.join("tests/stf"), root.join("tests/stf-psa")];
    while let Some(dir) = dirs.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else { continue };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == ext) {
                if let Ok(bytes) = std::fs::read(&path) {
                    found.push(bytes);
                }
            }
        }
    }
    found
}

fn capture_seeds() -> Vec<Vec<u8>> {
    let packets = vec![
        TimedPacket { timestamp_ns: 5, data: vec![0xff; 60] },
        TimedPacket { timestamp_ns: 1_000_000_007, data: vec![1, 2, 3] },
    ];
    ["pcap", "pcapng"]
        .iter()
        .filter_map(|ext| {
            let path = std::env::temp_dir().join(format!("p4-stf-fuzz-{}.{ext}", std::process::id()));
            write_capture_file(&path, &packets).ok()?;
            let bytes = std::fs::read(&path).ok();
            let _ = std::fs::remove_file(&path);
            bytes
        })
        .collect()
}

fn fuzz(cases: usize) {
    let stf_seeds = [repo_files("stf"), vec![b"add t 1 k:0x1*&&&2 a(x:1) = e\nexpect 1 0*$\n".to_vec()]].concat();
    let cli_seeds = [repo_files("txt"), vec![b"table_add t a 10.0.0.1/8 0&&&0 1->2 => 00:11:22:33:44:55 ::1 7\n".to_vec()]].concat();
    let pcap_seeds = capture_seeds();
    assert_eq!(pcap_seeds.len(), 2, "capture seeds were written");
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for case in 0..cases {
        let seed = &stf_seeds[rng.below(stf_seeds.len())];
        let input = String::from_utf8_lossy(&mutate(&mut rng, seed, true)).into_owned();
        let result = std::panic::catch_unwind(|| parse_stf(&input).map(|c| c.len()));
        assert!(result.is_ok(), "parse_stf panicked on case {case}: {input:?}");

        let seed = &cli_seeds[rng.below(cli_seeds.len())];
        let input = String::from_utf8_lossy(&mutate(&mut rng, seed, true)).into_owned();
        let result = std::panic::catch_unwind(|| parse_commands(&input).map(|c| c.len()));
        assert!(result.is_ok(), "parse_commands panicked on case {case}: {input:?}");

        let seed = &pcap_seeds[rng.below(pcap_seeds.len())];
        let input = mutate(&mut rng, seed, false);
        let result = std::panic::catch_unwind(|| read_capture(&input).map(|p| p.len()));
        assert!(result.is_ok(), "read_capture panicked on case {case}: {input:?}");
        // The streaming reader allocates an 8 MB buffer per file: fuzz it on every 16th case.
        if case % 16 == 0 {
            let path = std::env::temp_dir().join(format!("p4-stf-fuzz-case-{}.cap", std::process::id()));
            std::fs::write(&path, &input).expect("scratch file");
            let result = std::panic::catch_unwind(|| read_capture_file(&path).map(|p| p.len()));
            let _ = std::fs::remove_file(&path);
            assert!(result.is_ok(), "read_capture_file panicked on case {case}: {input:?}");
        }
    }
}

#[test]
fn fuzz_smoke() {
    fuzz(300);
}

#[test]
#[ignore = "long; run with `make fuzz`"]
fn fuzz_long() {
    let cases = std::env::var("FUZZ_CASES").ok().and_then(|c| c.parse().ok()).unwrap_or(20_000);
    fuzz(cases);
}

//! `p4-testgen stf-features | examples [--root DIR]`: writes the generated test data under the
//! workspace root (by default the one this crate sits in).
#![forbid(unsafe_code)]

use std::path::PathBuf;
use std::process::ExitCode;

const USAGE: &str = "usage: p4-testgen <stf-features|examples|all> [--root DIR]
  stf-features  write tests/stf/ and tests/stf-psa/: *.p4, *.stf and README.md
  examples      write examples/*/*.stf
  all           both
  --root DIR    the workspace root to write under (default: this crate's workspace)";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut root = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."));
    let mut what = None;
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--root" => match it.next() {
                Some(dir) => root = PathBuf::from(dir),
                None => return usage_error("--root needs a directory"),
            },
            "-h" | "--help" => {
                println!("{USAGE}");
                return ExitCode::SUCCESS;
            }
            "stf-features" | "examples" | "all" if what.is_none() => what = Some(arg.clone()),
            other => return usage_error(&format!("unexpected argument `{other}`")),
        }
    }
    let Some(what) = what else { return usage_error("no subcommand") };
    let mut files = p4_testgen::Files::default();
    if what == "stf-features" || what == "all" {
        p4_testgen::features::generate(&mut files);
        p4_testgen::psa::generate(&mut files);
    }
    if what == "examples" || what == "all" {
        p4_testgen::examples::generate(&mut files);
    }
    match files.write_to(&root) {
        Ok(()) => {
            println!("wrote {} files under {}", files.iter().count(), root.display());
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("p4-testgen: writing under {}: {e}", root.display());
            ExitCode::FAILURE
        }
    }
}

fn usage_error(msg: &str) -> ExitCode {
    eprintln!("p4-testgen: {msg}\n{USAGE}");
    ExitCode::from(2)
}

//! Rules of the source tree that a reviewer would otherwise have to remember: every `unsafe` says
//! why it is sound, and crates that need none forbid it.

use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Every `.rs` file under `dir`, sorted.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

/// The code of a line, without a `//` comment (good enough for the `unsafe` keyword: no string of
/// the tree holds it before a `//`).
fn code(line: &str) -> &str {
    line.split("//").next().unwrap_or("")
}

/// `unsafe` blocks and impls without a `SAFETY:` comment in the eight lines before them (or on
/// their line), and `unsafe fn`s without a `# Safety` section in their docs, in `file`.
fn unexplained_unsafe(file: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(file).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let code = code(line);
        let Some(at) = code.find("unsafe") else { continue };
        let rest = code[at + "unsafe".len()..].trim_start();
        let before = lines[i.saturating_sub(8)..=i].join("\n");
        let explained = if rest.starts_with("fn") || rest.starts_with("extern \"C\" fn") && !code.contains("type ") {
            before.contains("# Safety")
        } else if rest.starts_with('{') || rest.starts_with("impl") || rest.is_empty() {
            before.contains("SAFETY")
        } else {
            // `unsafe extern "C" fn` as a type, `unsafe_code` in an attribute.
            true
        };
        if !explained {
            out.push(format!("{}:{}: {}", file.display(), i + 1, line.trim()));
        }
    }
    out
}

#[test]
fn every_unsafe_says_why_it_is_sound() {
    let mut missing = Vec::new();
    for crate_dir in std::fs::read_dir(root().join("crates")).unwrap().flatten() {
        for file in rust_files(&crate_dir.path().join("src")) {
            missing.extend(unexplained_unsafe(&file));
        }
    }
    assert!(missing.is_empty(), "unsafe without a SAFETY comment (blocks, impls) or a `# Safety` section (functions):\n{}", missing.join("\n"));
}

#[test]
fn crates_without_unsafe_forbid_it_and_the_others_deny_unsafe_operations_in_unsafe_fns() {
    let mut wrong = Vec::new();
    for crate_dir in std::fs::read_dir(root().join("crates")).unwrap().flatten() {
        let src = crate_dir.path().join("src");
        let uses_unsafe = rust_files(&src).iter().any(|f| {
            std::fs::read_to_string(f).unwrap().lines().any(|l| code(l).contains("unsafe {") || code(l).contains("unsafe impl"))
        });
        for root_file in ["lib.rs", "main.rs"].map(|f| src.join(f)).into_iter().filter(|f| f.exists()) {
            let text = std::fs::read_to_string(&root_file).unwrap();
            let rule = if uses_unsafe { "#![deny(unsafe_op_in_unsafe_fn)]" } else { "#![forbid(unsafe_code)]" };
            if !text.contains(rule) {
                wrong.push(format!("{}: needs {rule}", root_file.display()));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// Every file of the project git would track: sources, docs, scripts (not build output, the
/// virtual environment or fuzzing corpora).
fn project_files() -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![root()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap().flatten() {
            let path = entry.path();
            let name = entry.file_name().to_string_lossy().to_string();
            if path.is_dir() {
                if !name.starts_with('.') && !["target", "corpus", "artifacts", "out"].contains(&name.as_str()) {
                    stack.push(path);
                }
            } else if ["rs", "md", "sh", "toml", "p4", "sv", "txt"].iter().any(|e| name.ends_with(&format!(".{e}"))) || name == "Makefile" {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

/// Whether `line` speaks of the project's own history: a work session, or an issue by number.
fn speaks_of_history(line: &str) -> bool {
    let lower = line.to_lowercase();
    let words: Vec<&str> = lower.split(|c: char| !c.is_alphanumeric() && c != '#').filter(|w| !w.is_empty()).collect();
    words.windows(2).any(|w| {
        let ordinal = ["first", "second", "third", "fourth", "fifth", "sixth", "this", "last", "earlier", "previous", "next", "same"];
        (w[1] == "session" && ordinal.contains(&w[0])) || (w[0] == "issue" && w[1].trim_start_matches('#').chars().all(|c| c.is_ascii_digit()) && w[1].trim_start_matches('#').len() > 0)
    })
}

/// Docs state the present; history lives in git: no file speaks of work sessions or issue numbers.
#[test]
fn no_file_speaks_of_sessions_or_issue_numbers() {
    assert!(speaks_of_history("the fifth session of 2026-11-29") && speaks_of_history("(issue 11, section 1)"));
    assert!(!speaks_of_history("clone session 5") && !speaks_of_history("an issue with the ring"));
    let mut found = Vec::new();
    for file in project_files() {
        let Ok(text) = std::fs::read_to_string(&file) else { continue };
        for (i, line) in text.lines().enumerate() {
            if speaks_of_history(line) && !file.ends_with("tests/source_rules.rs") {
                found.push(format!("{}:{}: {}", file.display(), i + 1, line.trim()));
            }
        }
    }
    assert!(found.is_empty(), "files that speak of sessions or issue numbers (history belongs in git):\n{}", found.join("\n"));
}

//! The executor takes v1model from its architecture description (`p4_ir::arch::v1model`), never
//! from its own code: outside comments, no source file of this crate names a v1model intrinsic
//! metadata field, extern type, extern function, package or the architecture itself. The names
//! are read from the description, so a name added there is checked here too.
//!
//! The same check by hand (prints nothing when it holds):
//! `grep -rnE 'v1model|V1Switch|standard_metadata|egress_spec|mcast_grp|resubmit|recirculate|direct_counter|direct_meter|mark_to_drop' crates/p4-dataplane/src | grep -vE '^[^:]+:[0-9]+:\s*//'`

use std::path::{Path, PathBuf};

/// Names of the description that are also every architecture's word for a concept (PSA has
/// `Register`, `Counter`, `Meter`, `Hash`, `Random`, `Digest`, clones and truncation; `core.p4` has
/// `assert`; table entries have a priority), so code may use them as ordinary words.
const GENERIC: &[&str] = &["register", "counter", "meter", "clone", "truncate", "digest", "hash", "random", "assert", "priority"];

/// Every v1model name the executor must not spell.
fn v1model_names() -> Vec<&'static str> {
    let a = p4_arch::v1model();
    let mut names = vec![a.name, a.package, a.intrinsic_type, "standard_metadata"];
    names.extend(a.intrinsic.iter().map(|(_, n)| *n));
    names.extend(a.externs.iter().map(|e| e.type_name));
    names.extend(a.functions.iter().map(|f| f.name));
    names.retain(|n| !GENERIC.contains(n));
    names.sort_unstable();
    names.dedup();
    names
}

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            sources(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// `line` without its `//` comment (a `//` inside a string literal is not one); block comments are
/// not used in this crate.
fn code_of(line: &str) -> &str {
    let b = line.as_bytes();
    let mut in_str = false;
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'\\' if in_str => i += 1,
            b'"' => in_str = !in_str,
            b'/' if !in_str && b.get(i + 1) == Some(&b'/') => return &line[..i],
            _ => {}
        }
        i += 1;
    }
    line
}

/// `(file:line, name)` of every v1model name in code (strings included) under `dir`.
fn hits(dir: &Path, names: &[&str]) -> Vec<String> {
    let mut files = Vec::new();
    sources(dir, &mut files);
    files.sort();
    let mut out = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        for (i, line) in text.lines().enumerate() {
            let code = code_of(line);
            for n in names.iter().filter(|n| code.contains(**n)) {
                out.push(format!("{}:{}: `{n}` in `{}`", f.display(), i + 1, line.trim()));
            }
        }
    }
    out
}

#[test]
fn the_executor_names_no_v1model_field_extern_or_package() {
    let names = v1model_names();
    // The list is the description's, not empty by accident.
    for n in ["v1model", "V1Switch", "standard_metadata_t", "egress_spec", "mcast_grp", "direct_counter", "mark_to_drop", "resubmit", "recirculate", "verify_checksum", "log_msg"] {
        assert!(names.contains(&n), "{n} missing from {names:?}");
    }
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let found = hits(&src, &names);
    assert!(found.is_empty(), "v1model names in the executor's code (take them from p4_arch instead):\n{}", found.join("\n"));
}

#[test]
fn comments_are_not_code_and_strings_are() {
    assert_eq!(code_of("let x = 1; // egress_spec"), "let x = 1; ");
    assert_eq!(code_of("/// v1model"), "");
    assert_eq!(code_of(r#"f("a // b egress_spec")"#), r#"f("a // b egress_spec")"#);
    assert_eq!(code_of(r#"f("\"", x) // mcast_grp"#), r#"f("\"", x) "#);
}

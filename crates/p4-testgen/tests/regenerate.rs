//! Drift check: regenerating into a temporary directory must reproduce the committed test data byte
//! for byte, and every committed generated file must come from the generator (no orphans).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Writes `files` under a fresh temporary directory, then compares each written file with the
/// committed one of the same relative path. Returns the relative paths generated.
fn regenerate_and_compare(files: &p4_testgen::Files, tag: &str) -> BTreeSet<String> {
    let tmp = std::env::temp_dir().join(format!("p4-testgen-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    files.write_to(&tmp).expect("write the generated files");
    let root = workspace_root();
    let mut drifted = Vec::new();
    let mut generated = BTreeSet::new();
    for (rel, _) in files.iter() {
        let fresh = std::fs::read(tmp.join(rel)).expect("read back a generated file");
        match std::fs::read(root.join(rel)) {
            Ok(committed) if committed == fresh => {}
            Ok(_) => drifted.push(format!("{rel}: differs from the generator's output")),
            Err(e) => drifted.push(format!("{rel}: not committed ({e})")),
        }
        generated.insert(rel.to_string());
    }
    let _ = std::fs::remove_dir_all(&tmp);
    assert!(drifted.is_empty(), "regenerate with `cargo run -p p4-testgen -- {tag}`:\n{}", drifted.join("\n"));
    generated
}

/// The committed files in `dir` (relative to the workspace root) whose names end with one of `exts`.
fn committed(dir: &str, exts: &[&str]) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for e in std::fs::read_dir(workspace_root().join(dir)).expect("list a committed directory") {
        let name = e.expect("directory entry").file_name().to_string_lossy().into_owned();
        if exts.iter().any(|x| name.ends_with(x)) {
            out.insert(format!("{dir}/{name}"));
        }
    }
    out
}

#[test]
fn stf_features_match_the_committed_files() {
    let generated = regenerate_and_compare(&p4_testgen::stf_features(), "stf-features");
    let mut committed_files = committed("tests/stf", &[".p4", ".stf", "README.md"]);
    committed_files.extend(committed("tests/stf-psa", &[".p4", ".stf", "README.md"]));
    assert_eq!(generated.len(), (60 + 13) * 2 + 2, "60 v1model and 13 PSA programs, their STF files and the README indexes");
    assert_eq!(generated, committed_files);
}

#[test]
fn example_stfs_match_the_committed_files() {
    let generated = regenerate_and_compare(&p4_testgen::example_stfs(), "examples");
    let mut expected: BTreeSet<String> =
        ["l2l3", "mdp", "paxos"].iter().map(|n| format!("examples/{n}/{n}.stf")).collect();
    for bench in ["parse16", "writes8", "writes16", "writes32", "writes64"] {
        expected.insert(format!("examples/microbench/{bench}.stf"));
    }
    expected.insert("examples/op4t-sst/sst.stf".to_string());
    expected.insert("examples/vdp/vdp.stf".to_string());
    assert_eq!(generated, expected);
    let mut on_disk = BTreeSet::new();
    for e in std::fs::read_dir(workspace_root().join("examples")).expect("list examples") {
        let e = e.expect("directory entry");
        if e.path().is_dir() {
            let name = e.file_name().to_string_lossy().into_owned();
            on_disk.extend(committed(&format!("examples/{name}"), &[".stf"]));
        }
    }
    assert_eq!(generated, on_disk, "every example STF file is generated");
}

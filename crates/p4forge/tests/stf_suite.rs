//! The STF suite: every `*.stf` under `examples/`, `tests/stf/` and `tests/stf-psa/` (each belongs to the `.p4` of the
//! same name beside it), run through the library path the `test` command uses. Every file must pass,
//! except those listed with a reason in `known_failures.txt`; each failure is printed with its diff.
//! A listed file that passes is reported so the entry gets removed.

use p4forge::cmd::test::run_test;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn stf_files(dir: &Path, found: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            stf_files(&path, found);
        } else if path.extension().is_some_and(|e| e == "stf") {
            found.push(path);
        }
    }
}

/// `known_failures.txt`: `<path from the repository root> <reason>` per line, `#` comments.
fn known_failures() -> BTreeMap<String, String> {
    let text = include_str!("known_failures.txt");
    text.lines()
        .map(|l| l.split_once('#').map_or(l, |(before, _)| before).trim())
        .filter(|l| !l.is_empty())
        .map(|l| {
            let (path, reason) = l.split_once(char::is_whitespace).unwrap_or((l, ""));
            (path.to_string(), reason.trim().to_string())
        })
        .collect()
}

#[test]
fn known_failures_all_have_reasons() {
    for (path, reason) in known_failures() {
        assert!(!reason.is_empty(), "known_failures.txt: {path} needs a reason");
    }
}

#[test]
fn every_stf_file_passes() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut files = Vec::new();
    for dir in ["examples", "tests/stf", "tests/stf-psa"] {
        stf_files(&root.join(dir), &mut files);
    }
    files.sort();
    assert!(files.len() >= 2, "the suite found only {} STF files under examples/ and tests/stf/", files.len());
    let known = known_failures();

    let (mut passed, mut failures, mut expected_failures) = (0, Vec::new(), 0);
    // As `p4forge test` runs it: the program as the mid-end lowers it. (p4-midend's `stf_lowered`
    // runs every file on the elaborated program too and compares.)
    for stf in &files {
        let base = stf.strip_prefix(&root).unwrap_or(stf).display().to_string();
        let name = base.clone();
        let program = stf.with_extension("p4");
        let failure = if !program.is_file() {
            Some(format!("no program {} beside it\n", program.display()))
        } else {
            match run_test(&program, stf, &[]) {
                Ok(report) if report.passed() => None,
                Ok(report) => Some(report.render()),
                Err(error) => Some(error.render()),
            }
        };
        match (failure, known.get(&base)) {
            (None, None) => {
                passed += 1;
                println!("PASS {name}");
            }
            (None, Some(_)) => {
                passed += 1;
                println!("PASS {name} (listed in known_failures.txt: remove it from there)");
            }
            (Some(why), Some(reason)) => {
                expected_failures += 1;
                println!("KNOWN FAILURE {name}: {reason}\n{why}");
            }
            (Some(why), None) => failures.push(format!("FAIL {name}\n{why}")),
        }
    }
    println!("known failures (listed in known_failures.txt): {expected_failures}");
    println!("stf: {passed} passed, {} failed", failures.len());
    assert!(failures.is_empty(), "{} of {} STF files failed:\n\n{}", failures.len(), files.len(), failures.join("\n"));
}

/// A traced PSA switch (`--trace`) forwards as the untraced one: every PSA STF file passes on it,
/// and its trace shows both pipelines of each packet.
#[test]
fn psa_stf_files_pass_on_traced_switches() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut files = Vec::new();
    stf_files(&root.join("tests/stf-psa"), &mut files);
    files.sort();
    assert!(files.len() >= 11, "found only {} PSA STF files", files.len());
    for stf in &files {
        let program = stf.with_extension("p4");
        let compiled = p4forge::frontend::compile(&program, &[]).and_then(|c| c.lowered(&program)).unwrap_or_else(|e| panic!("{}: {}", program.display(), e.render()));
        let mut switch = p4_dataplane::Switch::new_traced(std::sync::Arc::new(compiled.program)).expect("a PSA program runs traced");
        let commands = p4_stf::parse_stf(&std::fs::read_to_string(stf).expect("read the STF file")).expect("the STF file parses");
        let report = p4_stf::run_stf(&mut switch, &commands);
        assert!(report.passed(), "{} traced:\n{}", stf.display(), report.render());
    }
    // One packet of the unicast test, traced: parser, ingress, decision, egress parser, egress, out.
    let program = root.join("tests/stf-psa/psa_unicast.p4");
    let compiled = p4forge::frontend::compile(&program, &[]).and_then(|c| c.lowered(&program)).unwrap_or_else(|e| panic!("{}", e.render()));
    let mut switch = p4_dataplane::Switch::new_traced(std::sync::Arc::new(compiled.program)).expect("runs traced");
    let mut out = p4_dataplane::batch::BatchOut::default();
    switch.process_batch(&[p4_dataplane::batch::PacketIn { port: 7, data: &[1, 0, 0, 0, 0, 0], now_ns: 0 }], &mut out);
    let steps: Vec<String> = out.trace.iter().map(|(_, e)| match e {
        p4_dataplane::trace::Event::Ingress { instance, .. } => format!("ingress {instance}"),
        p4_dataplane::trace::Event::Egress { instance, port, .. } => format!("egress {instance} {port}"),
        p4_dataplane::trace::Event::Decision { decision } => decision.clone(),
        p4_dataplane::trace::Event::Control { name } => name.clone(),
        p4_dataplane::trace::Event::Output { port, length } => format!("output {port} {length}"),
        _ => String::new(),
    }).filter(|s| !s.is_empty()).collect();
    assert_eq!(steps, ["ingress normal", "IngressImpl", "IngressDeparserImpl", "unicast to port 3", "egress unicast 3", "EgressImpl", "EgressDeparserImpl", "output 3 6"]);
}

//! `--trace` end to end: the exact trace of l2l3 packets (golden files in `tests/golden/`; `BLESS=1
//! cargo test -p p4forge --test cli_trace` rewrites them), the filter, the same traces with
//! several worker threads, and the refusal on the RTL target.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn p4forge(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_p4forge")).args(args).current_dir(root()).output().expect("the p4forge binary runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Compares `actual` with the golden file `name` (or rewrites it under `BLESS=1`).
fn golden(name: &str, actual: &str) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden").join(name);
    if std::env::var_os("BLESS").is_some() {
        std::fs::write(&path, actual).expect("write golden file");
        return;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(expected == actual, "{} differs (BLESS=1 to accept):\n{actual}", path.display());
}

const L2L3: [&str; 2] = ["examples/l2l3/l2l3.p4", "examples/l2l3/l2l3.stf"];

#[test]
fn trace_of_a_routed_l2l3_packet() {
    let out = p4forge(&["test", "--trace-filter", "packet=6", L2L3[0], L2L3[1]]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    golden("trace_l2l3_routed.txt", &text(&out.stderr));
}

#[test]
fn trace_of_a_dropped_l2l3_packet_as_json() {
    let out = p4forge(&["test", "--trace-json", "--trace-filter", "packet=5", L2L3[0], L2L3[1]]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let trace = text(&out.stderr);
    assert_eq!(trace.lines().count(), 1, "one packet, one line");
    golden("trace_l2l3_dropped.json", &trace);
}

#[test]
fn run_traces_the_same_with_several_workers_and_filters_by_port() {
    let traffic = root().join("examples/l2l3/traffic");
    let dir = p4_io::testing::scratch_dir("p4forge-cli-trace", "workers");
    let mut args: Vec<String> = ["run", L2L3[0], "--entries", "examples/l2l3/entries.txt", "--trace"].map(String::from).to_vec();
    for port in [1, 2, 4] {
        args.extend(["--in".to_string(), format!("{port}={}/in_port{port}.pcap", traffic.display())]);
    }
    let run = |extra: &[&str], out: &str| {
        let mut all: Vec<&str> = args.iter().map(String::as_str).collect();
        let out_dir = dir.join(out);
        let out_dir = out_dir.to_str().unwrap().to_string();
        all.extend(extra);
        all.extend(["--out", &out_dir]);
        p4forge(&all)
    };
    let one = run(&[], "one");
    let two = run(&["--threads", "2"], "two");
    assert_eq!(one.status.code(), Some(0), "{}", text(&one.stderr));
    let traces = text(&one.stderr);
    // One trace per input packet, numbered in the order they entered.
    let summary = text(&one.stdout);
    let total_in: usize = summary.lines().find(|l| l.trim_start().starts_with("total")).and_then(|l| l.split_whitespace().nth(1)).and_then(|n| n.parse().ok()).unwrap_or(0);
    let numbers: Vec<usize> = traces.lines().filter_map(|l| l.strip_prefix("packet ")).filter_map(|n| n.parse().ok()).collect();
    assert!(total_in > 0);
    assert_eq!(numbers, (1..=total_in).collect::<Vec<_>>());
    assert_eq!(text(&two.stderr), traces, "the same traces, in the same order, from two workers");
    let port4 = run(&["--trace-filter", "port=4"], "port4");
    let port4 = text(&port4.stderr);
    let shown: Vec<&str> = port4.lines().filter(|l| l.starts_with("ingress: ")).map(|l| l.split(',').next().unwrap_or("")).collect();
    assert!(!shown.is_empty() && shown.iter().all(|l| *l == "ingress: port 4"), "{shown:?}");
    // A key given twice matches either value.
    let ports = run(&["--trace-filter", "port=1,port=4"], "ports");
    let ports = text(&ports.stderr);
    let mut shown: Vec<&str> = ports.lines().filter(|l| l.starts_with("ingress: ")).map(|l| l.split(',').next().unwrap_or("")).collect();
    shown.sort_unstable();
    shown.dedup();
    assert_eq!(shown, ["ingress: port 1", "ingress: port 4"]);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn trace_on_the_rtl_target_is_refused() {
    let out = p4forge(&["test", "--target", "rtl", "--trace", L2L3[0], L2L3[1]]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(text(&out.stderr), "error: --trace is for the software target (`--target sw`); the RTL simulation records no trace\n");
}

//! The `p4forge` binary as a user runs it: exit codes and exact output.

use p4_stf::capture::{read_capture_file, TimedPacket};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn p4forge(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_p4forge"))
        .args(args)
        .current_dir(fixtures())
        .output()
        .expect("the p4forge binary runs")
}

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn scratch(name: &str) -> p4_io::testing::Scratch {
    p4_io::testing::scratch_dir("p4forge-cli", name)
}

#[test]
fn check_reports_a_syntax_error_with_location_and_exits_1() {
    let out = p4forge(&["check", "syntax_error.p4"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(out.stdout, b"");
    assert_eq!(
        text(&out.stderr),
        "error: expected an expression, found `;`\n --> syntax_error.p4:5:17\n  |\n5 |         x = x + ;\n  |                 ^\nerror: syntax_error.p4 has errors\n"
    );
}

#[test]
fn missing_files_are_input_errors() {
    let out = p4forge(&["check", "nosuch.p4"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(text(&out.stderr), "error: cannot read P4 program nosuch.p4: no such file or directory\n");

    let out = p4forge(&["test", "syntax_error.p4", "nosuch.stf"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).starts_with("error: cannot read STF file nosuch.stf: "), "{}", text(&out.stderr));
}

#[test]
fn malformed_stf_is_reported_with_line_numbers() {
    let dir = scratch("bad-stf");
    std::fs::create_dir_all(&dir).unwrap();
    let stf = dir.join("bad.stf");
    std::fs::write(&stf, "packet 1 00\nexpect one 00\nfrobnicate\n").unwrap();
    let out = p4forge(&["test", "syntax_error.p4", stf.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let stf = stf.display();
    assert_eq!(
        text(&out.stderr),
        format!("error: {stf}:2: port: `one` is not a valid decimal number\n{stf}:3: unknown command `frobnicate`\n")
    );
}

#[test]
fn run_rejects_bad_entries_with_every_line_and_reason() {
    let out = p4forge(&["run", "syntax_error.p4", "--entries", "bad_entries.txt", "--in", "1=none.pcap", "--out", "unused"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        text(&out.stderr),
        "error: bad_entries.txt:4: a ternary/range/optional entry needs a priority as the last word after `=>` (smaller wins)\n\
         bad_entries.txt:5: key 1: `10.0.0.300` is not a number or IPv4 address\n"
    );
}

#[test]
fn usage_errors_exit_2() {
    let out = p4forge(&["run", "x.p4", "--in", "eth0", "--out", "o"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("`eth0` must be written PORT=FILE"), "{}", text(&out.stderr));
    let out = p4forge(&[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("Exit codes:"));
}

#[test]
fn stf2pcap_writes_inputs_and_expectations_per_port() {
    let dir = scratch("stf2pcap");
    let out = p4forge(&["stf2pcap", "traffic.stf", "--out", dir.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(text(&out.stderr), "note: traffic.stf:6: don't-care nibbles written as 0\n");
    let d = dir.display();
    assert_eq!(
        text(&out.stdout),
        format!("wrote {d}/in_port1.pcap\nwrote {d}/in_port2.pcap\nwrote {d}/expected_port3.pcap\n")
    );
    let p = |t: u64, d: &[u8]| TimedPacket { timestamp_ns: t, data: d.to_vec() };
    assert_eq!(
        read_capture_file(&dir.join("in_port1.pcap")).unwrap(),
        vec![p(0, &[0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 1, 8, 0]), p(1_002_000, &[0xaa, 0xbb])]
    );
    assert_eq!(
        read_capture_file(&dir.join("in_port2.pcap")).unwrap(),
        vec![p(1_000, &[0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0, 0, 2, 8, 6])]
    );
    assert_eq!(read_capture_file(&dir.join("expected_port3.pcap")).unwrap(), vec![p(1_002_000, &[0, 0, 0, 0, 0, 2, 0])]);
    let _ = std::fs::remove_dir_all(dir);
}

//! `p4forge switch` refusals that need no privileges (the live run itself is `tests/live/run.sh`,
//! which `make test` runs as root).

use std::process::{Command, Output};

fn p4forge(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_p4forge"))
        .args(args)
        .current_dir(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures"))
        .output()
        .expect("the p4forge binary runs")
}

fn refused(args: &[&str], message: &str) {
    let out = p4forge(args);
    assert_eq!(out.status.code(), Some(2), "p4forge {}", args.join(" "));
    assert_eq!(String::from_utf8_lossy(&out.stderr), format!("error: {message}\n"));
}

#[test]
fn ports_that_cannot_be_attached_are_refused_with_the_reason() {
    refused(&["switch", "fwd.p4", "--port", "1=nosuch0"], "no network interface named nosuch0");
    refused(&["switch", "fwd.p4", "--port", "600=lo"], "--port 600=lo: port 600 does not fit v1model's 9-bit port fields (0..511)");
    refused(&["switch", "fwd.p4", "--port", "1=lo", "--port", "1=lo"], "--port 1 is given twice");
}

#[test]
fn port_arguments_are_checked_before_anything_runs() {
    let out = p4forge(&["switch", "fwd.p4", "--port", "veth0"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("`veth0` must be written PORT=IFNAME, e.g. 1=veth0"));
    let out = p4forge(&["switch", "fwd.p4", "--port", "1=an-interface-name-too-long"]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("is not an interface name (1 to 15 characters)"));
}

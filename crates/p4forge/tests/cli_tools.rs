//! The PHY and simulator commands as a user runs them through the `p4forge` binary: out-of-range
//! values are refused with the flag and the allowed range, bad topology files say what is wrong,
//! outputs are checked before the work, and a full disk or closed pipe is an error (exit 3).

use std::process::{Command, Output, Stdio};

fn p4forge(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_p4forge")).args(args).output().expect("the p4forge binary runs")
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn scratch(name: &str) -> p4_io::testing::Scratch {
    p4_io::testing::scratch_dir("p4forge-tools", name)
}

fn refused(args: &[&str], message: &str) {
    let out = p4forge(args);
    assert_eq!((out.status.code(), stderr(&out)), (Some(2), format!("error: {message}\n")), "p4forge {}", args.join(" "));
}

#[test]
fn out_of_range_values_name_the_flag_and_the_range_instead_of_being_clamped() {
    refused(
        &["gen", "--idles", "0", "--count", "1"],
        "--idles 0 is out of range: allowed 12..=100000000 characters (at least --min-gap, which is 12)",
    );
    refused(&["phy", "loopback", "--size", "0", "--count", "1"], "--size 0 is out of range: allowed 64..=9022 octets");
}

#[test]
fn topology_files_that_are_wrong_say_what_is_wrong() {
    let dir = scratch("topology");
    let unknown_key = dir.join("colour.toml");
    std::fs::write(&unknown_key, "[[node]]\nname = \"a\"\ncolour = \"red\"\n").unwrap();
    let path = unknown_key.to_str().unwrap();
    refused(
        &["sim", "--topology", path, "--seconds", "0.0001"],
        &format!("topology file {path}: line 3, column 1: unknown field `colour`, expected `name` or `kind`"),
    );
    refused(&["sim", "--topology", "nosuch.toml", "--seconds", "0.0001"], "cannot read topology file nosuch.toml: no such file or directory");
    refused(
        &["dtp", "--topology", "nosuch", "--seconds", "0.0001"],
        "unknown topology `nosuch`: use two, tree:DEPTH:FANOUT, fat-tree:K (K even, <= 32), dumbbell, parking-lot[:LINKS] or a .toml file",
    );
}

#[test]
fn an_unwritable_plot_is_refused_before_the_simulation_runs() {
    // One simulated second takes minutes: a prompt refusal with nothing on stdout shows that the
    // path was checked first (before, the text results were lost after the whole run).
    let out = p4forge(&["dtp", "--topology", "tree:2:3", "--seconds", "1", "--plot", "/nonexistent/dir/x.svg"]);
    assert_eq!(out.status.code(), Some(3));
    assert_eq!(stderr(&out), "error: cannot write /nonexistent/dir/x.svg: no such file or directory\n");
    assert!(out.stdout.is_empty());
}

#[test]
fn endless_or_wrong_inputs_are_refused_with_a_bound() {
    refused(&["capture", "--stream", "/dev/zero"], "/dev/zero: not a p4-phy bit-stream file: missing P4PHYBIT header");
}

#[test]
fn simulator_reports_to_a_full_disk_or_closed_pipe_are_errors() {
    let full = std::fs::File::options().write(true).open("/dev/full").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_p4forge"))
        .args(["sim", "--topology", "tree:2:3", "--seconds", "0.0001"])
        .stdout(full)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3));
    assert_eq!(stderr(&out), "error: cannot write to standard output: no space left on the device (disk full)\n");
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let out = Command::new(env!("CARGO_BIN_EXE_p4forge"))
        .args(["gen", "--count", "10"])
        .stdout(Stdio::from(writer))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3));
    assert_eq!(stderr(&out), "error: cannot write to standard output: the reading end was closed (broken pipe)\n");
}

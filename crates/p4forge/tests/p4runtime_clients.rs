//! `p4forge switch --p4runtime` driven by the P4Runtime clients people use, unchanged: the scripts
//! under `tests/p4runtime/` run in the client venvs `make tools-p4rt` installs (`.venv-p4rt-shell`,
//! `.venv-p4rt-finsy`). Without a venv the
//! test says so and passes, except under `CI=true`, where a skipped client is a failure.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The Python of client venv `venv` (under the repository root), if installed.
fn client_python(venv: &str) -> Option<PathBuf> {
    let python = root().join(venv).join("bin/python");
    if python.is_file() {
        return Some(python);
    }
    assert!(std::env::var("CI").as_deref() != Ok("true"), "{venv} is missing (make tools-p4rt), and CI=true may not skip its test");
    eprintln!("note: {venv} is missing (make tools-p4rt): skipped");
    None
}

/// A `p4forge switch` with no program and no ports, serving P4Runtime on a free port of 127.0.0.1
/// (and, when asked, a packet socket for PTF on another), stopped (SIGINT) on drop.
struct Switch {
    child: Child,
    addr: String,
    /// `tcp://127.0.0.1:PORT` of the packet socket, if one was asked for.
    packet_socket: Option<String>,
}

impl Switch {
    /// Started with `extra` arguments.
    fn start(packet_socket: bool, extra: &[&str]) -> Switch {
        let mut child = Command::new(env!("CARGO_BIN_EXE_p4forge"))
            .args(["switch", "--p4runtime", "127.0.0.1:0"])
            .args(if packet_socket { &["--packet-in", "tcp://127.0.0.1:0"][..] } else { &[] })
            .args(extra)
            // Models of the hardware target are kept with the build's other outputs.
            .env("P4FORGE_RTL_CACHE", std::env::var_os("CARGO_TARGET_DIR").map(PathBuf::from).unwrap_or_else(|| root().join("target")).join("rtl-models"))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("p4forge runs");
        let stderr = child.stderr.take().expect("stderr piped");
        let mut lines = BufReader::new(stderr).lines();
        let first = lines.next().and_then(Result::ok).unwrap_or_default();
        let addr = first.strip_prefix("P4Runtime 1.5.0 on ").unwrap_or_else(|| panic!("first line: {first}")).to_string();
        let packet_socket = packet_socket.then(|| {
            let second = lines.next().and_then(Result::ok).unwrap_or_default();
            let rest = second.strip_prefix("packet socket on ").unwrap_or_else(|| panic!("second line: {second}"));
            rest.split_whitespace().next().unwrap_or_default().to_string()
        });
        // Keep reading stderr so the switch never blocks on a full pipe.
        std::thread::spawn(move || lines.for_each(drop));
        Switch { child, addr, packet_socket }
    }
}

impl Drop for Switch {
    fn drop(&mut self) {
        let _ = Command::new("kill").args(["-INT", &self.child.id().to_string()]).status();
        let _ = self.child.wait();
    }
}

/// Fixture `name` and its p4info, written by `p4forge compile` into `dir` as `p4info_name`.
fn fixture_with_p4info(name: &str, dir: &Path, p4info_name: &str) -> (PathBuf, PathBuf) {
    let program = root().join("crates/p4forge/tests/fixtures").join(name);
    let p4info = dir.join(p4info_name);
    let compiled = Command::new(env!("CARGO_BIN_EXE_p4forge"))
        .args(["compile", program.to_str().expect("UTF-8"), "--p4runtime-files", p4info.to_str().expect("UTF-8")])
        .output()
        .expect("p4forge runs");
    assert!(compiled.status.success(), "{}", String::from_utf8_lossy(&compiled.stderr));
    (program, p4info)
}

/// The tables fixture and its p4info.
fn tables_fixture(dir: &Path, p4info_name: &str) -> (PathBuf, PathBuf) {
    fixture_with_p4info("p4runtime_tables.p4", dir, p4info_name)
}

/// Runs client script `script` (under `tests/p4runtime/`) in venv `venv` against a switch started
/// empty (with `switch_args`), with fixture `fixture` and its p4info in a file named `p4info_name`;
/// returns the last line it printed (`None`: the venv is missing, see [`client_python`]).
fn run_client(venv: &str, script: &str, fixture: &str, p4info_name: &str, switch_args: &[&str], script_args: &[&str]) -> Option<String> {
    let python = client_python(venv)?;
    let dir = p4_io::testing::scratch_dir("p4forge-p4rt-clients", script);
    let (program, p4info) = fixture_with_p4info(fixture, dir.path(), p4info_name);
    // Started empty: the client pushes the program (its P4 source as the device config).
    let switch = Switch::start(false, switch_args);
    let out = Command::new(python)
        .arg(root().join("tests/p4runtime").join(script))
        .args([&switch.addr, p4info.to_str().expect("UTF-8"), program.to_str().expect("UTF-8")])
        .args(script_args)
        .output()
        .expect("python runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}{}", String::from_utf8_lossy(&out.stderr));
    Some(stdout.lines().last().unwrap_or_default().to_string())
}

#[test]
fn p4runtime_shell_pushes_the_program_and_manages_two_thousand_entries() {
    let Some(last) = run_client(".venv-p4rt-shell", "shell_tables.py", "p4runtime_tables.p4", "p4info.txt", &[], &[]) else { return };
    // 500 modified + the one the new primary inserted; the 1,000 ternary entries stay.
    assert_eq!(last, r#"{"inserted": 2000, "modified": 500, "deleted": 500, "entries_after": 1501}"#);
}

/// The same script against the hardware target: `p4forge switch --target rtl`, the pushed program
/// built into a Verilator model and its tables written through the design's register map. 200
/// entries each (every entry update is about a thousand simulated cycles; the 1,000-entry run is a
/// documented command).
#[test]
fn p4runtime_shell_manages_entries_on_the_hardware_target_as_on_the_software_one() {
    if !p4_rtl::sim::models_for_tests() {
        return;
    }
    let Some(last) = run_client(".venv-p4rt-shell", "shell_tables.py", "p4runtime_tables.p4", "p4info.txt", &["--target", "rtl"], &["200"]) else { return };
    assert_eq!(last, r#"{"inserted": 400, "modified": 100, "deleted": 100, "entries_after": 301}"#);
}

#[test]
fn finsy_sees_the_version_installs_the_pipeline_and_keeps_it_by_its_cookie() {
    let Some(last) = run_client(".venv-p4rt-finsy", "finsy_session.py", "p4runtime_tables.p4", "p4info.txtpb", &[], &[]) else { return };
    assert_eq!(last, r#"{"version": "1.5.0", "entries": 1, "kept": 1}"#);
}

#[test]
fn finsy_receives_a_digest_and_acknowledges_it() {
    let Some(last) = run_client(".venv-p4rt-finsy", "finsy_digest.py", "p4runtime_cpu.p4", "p4info.txtpb", &["--cpu-port", "64"], &[]) else { return };
    assert_eq!(last, r#"{"digest": "learn_t", "data": [{"src": 1577058561, "port": 3}], "lists": [1, 2]}"#);
}

#[test]
fn ptf_in_nanomsg_mode_sends_and_verifies_packets_through_the_switch() {
    let Some(python) = client_python(".venv-p4rt-ptf") else { return };
    let dir = p4_io::testing::scratch_dir("p4forge-p4rt-clients", "ptf");
    let (program, p4info) = tables_fixture(dir.path(), "p4info.txt");
    let switch = Switch::start(true, &[]);
    let socket = switch.packet_socket.clone().expect("a packet socket");
    let ptf = python.with_file_name("ptf");
    let params = format!("grpc_addr='{}';p4info='{}';config='{}'", switch.addr, p4info.display(), program.display());
    let out = Command::new(python)
        .arg(ptf)
        .args(["--test-dir", root().join("tests/p4runtime/ptf").to_str().expect("UTF-8"), "--platform", "nn"])
        .args(["--device-socket", &format!("0-{{0-8}}@{socket}"), "--test-params", &params])
        .current_dir(dir.path())
        .output()
        .expect("ptf runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{}{stderr}", String::from_utf8_lossy(&out.stdout));
    assert!(stderr.contains("forwarding.ExactEntryForwards ... ok") && stderr.contains("Ran 2 tests"), "{stderr}");
}

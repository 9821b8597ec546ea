//! `p4forge switch` refusals that need no privileges (the live run itself is `tests/live/run.sh`,
//! which `make test` runs as root; capture files as ports are in `cli_switch_pcap.rs`).

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

/// As root (CI): the control socket takes runtime-CLI commands while the switch runs, answers each
/// with what it did (or why it refused) and an empty line, and is removed on Ctrl-C.
#[test]
fn the_control_socket_applies_commands_while_the_switch_runs() {
    use std::io::{BufRead, Write};
    let root = Command::new("id").arg("-u").output().is_ok_and(|o| o.stdout.starts_with(b"0\n"));
    if !root {
        eprintln!("skipped: opening a raw socket on `lo` needs root");
        return;
    }
    let socket = std::env::temp_dir().join(format!("p4forge-control-{}.sock", std::process::id()));
    let _ = std::fs::remove_file(&socket);
    let child = Command::new(env!("CARGO_BIN_EXE_p4forge"))
        .args(["switch", "fwd.p4", "--port", "1=lo", "--control", socket.to_str().unwrap()])
        .current_dir(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures"))
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let waited = std::time::Instant::now();
    while !socket.exists() {
        assert!(waited.elapsed().as_secs() < 20, "the control socket did not appear");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let stream = std::os::unix::net::UnixStream::connect(&socket).unwrap();
    let mut writer = stream.try_clone().unwrap();
    writer.write_all(b"table_add FwdIngress.fwd FwdIngress.send 1 => 2 00:00:00:00:00:0a\ntable_add nosuch x 1 =>\n").unwrap();
    let mut reader = std::io::BufReader::new(stream);
    let mut answers = Vec::new();
    for _ in 0..4 {
        let mut line = String::new();
        reader.read_line(&mut line).unwrap();
        answers.push(line);
    }
    assert_eq!(
        answers,
        ["entry added to FwdIngress.fwd with handle 0\n", "\n", "refused: no table named `nosuch` (known: FwdIngress.fwd)\n", "\n"]
    );
    assert!(Command::new("kill").args(["-INT", &child.id().to_string()]).status().unwrap().success());
    let output = child.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(130), "Ctrl-C: 128 + SIGINT");
    // The default --io auto leaves loopback to AF_PACKET: AF_XDP would take the host's own
    // traffic on `lo` away from it while the test runs.
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("lo: AF_XDP not used (a loopback interface") && stderr.contains("1=lo (AF_PACKET)"), "{stderr}");
    assert!(!socket.exists(), "the socket is removed when the switch stops");
}

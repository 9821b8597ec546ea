//! `p4forge switch` with capture files as ports (`--port N=pcap-in:FILE`, `--port N=pcap-out:FILE`):
//! no privileges needed, so these run everywhere. `p4forge run` on the same program, entries and
//! input is the reference for what comes out.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn l2l3() -> (String, String) {
    let dir = root().join("examples/l2l3");
    (dir.join("l2l3.p4").display().to_string(), dir.join("entries.txt").display().to_string())
}

fn p4forge_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_p4forge"))
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .output()
        .expect("the p4forge binary runs")
}

/// `p4forge ARGS` started in `dir`, its stdout and stderr piped, its stdin `stdin`.
fn spawn_in(dir: &Path, args: &[&str], stdin: Stdio) -> std::process::Child {
    Command::new(env!("CARGO_BIN_EXE_p4forge"))
        .args(args)
        .current_dir(dir)
        .stdin(stdin)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the p4forge binary starts")
}

/// Makes a FIFO at `path`.
fn mkfifo(path: &Path) {
    assert!(Command::new("mkfifo").arg(path).status().unwrap().success());
}

/// `p4forge switch` on l2l3 with `in.pcap` into port 1 and only port 2 written, to `o2.pcap`.
fn in_to_port_2<'a>(program: &'a str, entries: &'a str) -> [&'a str; 8] {
    ["switch", program, "--entries", entries, "--port", "1=pcap-in:in.pcap", "--port", "2=pcap-out:o2.pcap"]
}

/// `p4forge switch` on l2l3 with `in.pcap` into port 1 and ports 1 and 2 written to `o1.pcap`
/// and `o2.pcap`.
fn l2l3_switch<'a>(program: &'a str, entries: &'a str) -> [&'a str; 10] {
    ["switch", program, "--entries", entries, "--port", "1=pcap-in:in.pcap", "--port", "1=pcap-out:o1.pcap", "--port", "2=pcap-out:o2.pcap"]
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn scratch(name: &str) -> p4_io::testing::Scratch {
    p4_io::testing::scratch_dir("p4forge-switch-pcap", name)
}

fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> =
        std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    names.sort();
    names
}

const ROUTER_MAC: [u8; 6] = [0, 0, 0, 0, 1, 0];

fn host_mac(n: u8) -> [u8; 6] {
    [0, 0, 0, 0, 0, n]
}

/// The ones' complement sum of 16-bit words, as the IPv4 header checksum uses it.
fn checksum(header: &[u8]) -> u16 {
    let mut sum: u32 = header.chunks(2).map(|w| u32::from(u16::from_be_bytes([w[0], w[1]]))).sum();
    while sum > 0xffff {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    !(sum as u16)
}

/// An Ethernet + IPv4 (UDP protocol number, 8 payload bytes: 42 bytes in all) frame with a correct header checksum.
fn ipv4_frame(dst: [u8; 6], src: [u8; 6], to: [u8; 4], ttl: u8) -> Vec<u8> {
    let mut ip = vec![0x45, 0, 0, 28, 0, 1, 0, 0, ttl, 17, 0, 0, 10, 9, 9, 9];
    ip.extend_from_slice(&to);
    let sum = checksum(&ip);
    ip[10..12].copy_from_slice(&sum.to_be_bytes());
    [&dst[..], &src, &[0x08, 0x00], &ip, b"payload!"].concat()
}

/// A classic pcap (little-endian, microseconds, Ethernet) holding `frames`, one a second.
fn pcap(frames: &[Vec<u8>]) -> Vec<u8> {
    let mut out = vec![0xd4, 0xc3, 0xb2, 0xa1, 2, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0];
    out.extend_from_slice(&65535u32.to_le_bytes());
    out.extend_from_slice(&1u32.to_le_bytes());
    for (second, frame) in frames.iter().enumerate() {
        let length = frame.len() as u32;
        for word in [1_000 + second as u32, 0, length, length] {
            out.extend_from_slice(&word.to_le_bytes());
        }
        out.extend_from_slice(frame);
    }
    out
}

/// One record of a capture p4forge wrote (classic pcap, little-endian, nanoseconds).
#[derive(Debug, PartialEq, Eq)]
struct Record {
    timestamp_ns: u64,
    data: Vec<u8>,
    original_len: u32,
}

/// The file header and the records of a capture p4forge wrote.
fn records(path: &Path) -> (Vec<u8>, Vec<Record>) {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert_eq!(bytes[..4], [0x4d, 0x3c, 0xb2, 0xa1], "{}: a little-endian nanosecond pcap", path.display());
    let word = |at: usize| u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]]);
    let mut at = 24;
    let mut records = Vec::new();
    while at < bytes.len() {
        let length = word(at + 8) as usize;
        let timestamp_ns = u64::from(word(at)) * 1_000_000_000 + u64::from(word(at + 4));
        records.push(Record {
            timestamp_ns,
            data: bytes[at + 16..at + 16 + length].to_vec(),
            original_len: word(at + 12),
        });
        at += 16 + length;
    }
    (bytes[..24].to_vec(), records)
}

/// The l2l3 traffic of these tests, all arriving on port 1 (from h1): two routed to h2 (port 2),
/// one routed to 10.1.0.0/16 (port 1), one switched to h2 and one to h1 (bytes unchanged), one
/// routed with TTL 1 (dropped).
fn traffic() -> Vec<Vec<u8>> {
    vec![
        ipv4_frame(ROUTER_MAC, host_mac(1), [10, 1, 2, 5], 64),
        ipv4_frame(ROUTER_MAC, host_mac(1), [10, 1, 7, 7], 64),
        ipv4_frame(host_mac(2), host_mac(1), [10, 9, 9, 1], 64),
        ipv4_frame(host_mac(1), host_mac(1), [10, 9, 9, 2], 64),
        ipv4_frame(ROUTER_MAC, host_mac(1), [10, 1, 2, 6], 1),
        ipv4_frame(ROUTER_MAC, host_mac(1), [10, 1, 2, 9], 64),
    ]
}

/// What l2l3 makes of a frame routed to `to` through next hop `host` from interface `interface`:
/// new MACs, TTL one less, checksum recomputed (computed here, not by p4forge).
fn routed(to: [u8; 4], host: u8, interface: u8) -> Vec<u8> {
    ipv4_frame(host_mac(host), [0, 0, 0, 0, 1, interface], to, 63)
}

fn now_ns() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos() as u64
}

/// The summary table and drop lines (what precedes the `wrote` lines).
fn counts(stdout: &str) -> String {
    stdout.lines().take_while(|l| !l.starts_with("wrote ")).map(|l| format!("{l}\n")).collect()
}

#[test]
fn a_capture_only_switch_sends_what_run_writes_and_stops_by_itself() {
    let (program, entries) = l2l3();
    let dir = scratch("l2l3");
    let input = pcap(&traffic());
    std::fs::write(dir.join("in.pcap"), &input).unwrap();
    let before = now_ns();
    let switch = p4forge_in(
        &dir,
        &l2l3_switch(&program, &entries),
    );
    let after = now_ns();
    assert_eq!(switch.status.code(), Some(0), "{}", text(&switch.stderr));
    let run = p4forge_in(&dir, &["run", &program, "--entries", &entries, "--in", "1=in.pcap", "--out", "run"]);
    assert_eq!(run.status.code(), Some(0), "{}", text(&run.stderr));

    let (switch_header, to_port1) = records(&dir.join("o1.pcap"));
    let (_, to_port2) = records(&dir.join("o2.pcap"));
    // Every frame as the program left it, checked against frames built here.
    let data = |records: &[Record]| records.iter().map(|r| r.data.clone()).collect::<Vec<_>>();
    assert_eq!(data(&to_port1), [routed([10, 1, 7, 7], 1, 1), traffic()[3].clone()]);
    assert_eq!(data(&to_port2), [routed([10, 1, 2, 5], 2, 2), traffic()[2].clone(), routed([10, 1, 2, 9], 2, 2)]);
    // The same frames, lengths and file header as `p4forge run` writes; only the timestamps
    // differ: the switch stamps frames with its own clock, `run` with the input's.
    for (switch_file, run_file) in [("o1.pcap", "run/port1.pcap"), ("o2.pcap", "run/port2.pcap")] {
        let (header, switched) = records(&dir.join(switch_file));
        let (run_header, reference) = records(&dir.join(run_file));
        assert_eq!(header, run_header);
        assert_eq!(data(&switched), data(&reference), "{switch_file}");
        assert_eq!(
            switched.iter().map(|r| r.original_len).collect::<Vec<_>>(),
            reference.iter().map(|r| r.original_len).collect::<Vec<_>>()
        );
        assert!(
            switched.iter().all(|r| (before..=after).contains(&r.timestamp_ns)),
            "{switch_file}: stamped while the switch ran"
        );
        assert!(reference.iter().all(|r| r.timestamp_ns >= 1_000_000_000_000), "run keeps the input's timestamps");
    }
    assert_eq!(switch_header[20..24], 1u32.to_le_bytes(), "linktype Ethernet");

    let stdout = text(&switch.stdout);
    let want = "  port  packets in    bytes in  packets out   bytes out
     1           6         252            2          84
     2           0           0            3         126
 total           6         252            5         210
dropped: 1
       1  mark_to_drop in L2L3Ingress
";
    assert_eq!(counts(&stdout), want);
    assert_eq!(counts(&text(&run.stdout)), want);
    assert!(stdout.ends_with("wrote o1.pcap\nwrote o2.pcap\n"), "{stdout}");
    assert_eq!(std::fs::read(dir.join("in.pcap")).unwrap(), input, "the input is untouched");
    assert_eq!(names(&dir), ["in.pcap", "o1.pcap", "o2.pcap", "run"], "no temporary file is left");
}

#[test]
fn trace_with_capture_ports_is_the_trace_run_prints() {
    let (program, entries) = l2l3();
    let dir = scratch("trace");
    std::fs::write(dir.join("in.pcap"), pcap(&traffic())).unwrap();
    let ports = ["--port", "1=pcap-in:in.pcap", "--port", "1=pcap-out:o1.pcap", "--port", "2=pcap-out:o2.pcap"];
    let traced = |command: &[&str], filter: &str| {
        let mut args = vec![command[0], program.as_str(), "--entries", entries.as_str(), "--trace-filter", filter];
        args.extend_from_slice(&command[1..]);
        let out = p4forge_in(&dir, &args);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        // The switch's one line about its ports is not part of the trace.
        text(&out.stderr).lines().filter(|l| !l.starts_with("switching ")).map(|l| format!("{l}\n")).collect::<String>()
    };
    let switch: Vec<&str> = [&["switch"][..], &ports].concat();
    let run = ["run", "--in", "1=in.pcap", "--out", "run"];
    let first = traced(&switch, "packet=1");
    assert!(first.starts_with("packet 1\ningress: port 1, 42 bytes (normal)\n"), "{first}");
    assert!(first.contains("-> L2L3Ingress.set_nexthop") && first.ends_with("output: port 2, 42 bytes\n"), "{first}");
    assert!(!first.contains("packet 2"), "only the packet asked for");
    assert_eq!(first, traced(&run, "packet=1"));
    // Every packet, numbered in arrival order, the dropped one (5) included.
    let all = traced(&switch, "packet=1..6");
    assert_eq!(all.matches("\npacket ").count() + 1, 6, "{all}");
    assert_eq!(all, traced(&run, "packet=1..6"));
}

/// `p4forge switch ARGS` in `dir` is refused with exit code 2 and exactly `message`.
fn refused(dir: &Path, args: &[&str], message: &str) {
    let out = p4forge_in(dir, args);
    assert_eq!(out.status.code(), Some(2), "p4forge {}: {}", args.join(" "), text(&out.stderr));
    assert_eq!(text(&out.stderr), format!("error: {message}\n"), "p4forge {}", args.join(" "));
}

#[test]
fn port_arguments_that_would_lose_data_or_make_no_sense_are_refused() {
    let (program, entries) = l2l3();
    let dir = scratch("refusals");
    let input = pcap(&traffic());
    std::fs::write(dir.join("in.pcap"), &input).unwrap();
    std::os::unix::fs::symlink("in.pcap", dir.join("link.pcap")).unwrap();
    let switch = |ports: &[&str]| -> Vec<String> {
        let mut args: Vec<String> = ["switch", &program, "--entries", &entries].map(String::from).to_vec();
        for port in ports {
            args.extend(["--port".to_string(), port.to_string()]);
        }
        args
    };
    let check = |ports: &[&str], message: &str| {
        let args = switch(ports);
        refused(&dir, &args.iter().map(String::as_str).collect::<Vec<_>>(), message);
    };
    check(
        &["1=pcap-in:in.pcap", "2=pcap-out:in.pcap"],
        "--port 2=pcap-out:in.pcap would overwrite the input of --port 1=pcap-in:in.pcap (the same file); choose another output file",
    );
    check(
        &["1=pcap-in:in.pcap", "1=pcap-out:./link.pcap"],
        "--port 1=pcap-out:./link.pcap would overwrite the input of --port 1=pcap-in:in.pcap (the same file); choose another output file",
    );
    check(
        &["1=pcap-in:in.pcap", &format!("2=pcap-out:{entries}")],
        &format!("--port 2=pcap-out:{entries} would overwrite the entries file {entries} (the same file); choose another output file"),
    );
    check(
        &["1=pcap-in:in.pcap", "2=pcap-out:o.pcap", "3=pcap-out:./o.pcap"],
        "--port 3=pcap-out:./o.pcap is the same file as --port 2=pcap-out:o.pcap; each pcap-out needs a file of its own",
    );
    check(
        &["1=lo", "1=pcap-out:o.pcap"],
        "--port 1=lo and --port 1=pcap-out:o.pcap: a port is either an interface or capture files, not both",
    );
    check(
        &["1=pcap-in:in.pcap", "1=lo"],
        "--port 1=pcap-in:in.pcap and --port 1=lo: a port is either an interface or capture files, not both",
    );
    check(
        &["1=pcap-in:in.pcap", "1=pcap-in:link.pcap"],
        "--port 1=pcap-in:in.pcap and --port 1=pcap-in:link.pcap: a port may have one pcap-in and one pcap-out",
    );
    check(
        &["1=pcap-in:missing.pcap", "2=pcap-out:o.pcap"],
        "--port 1=pcap-in:missing.pcap: missing.pcap: no such file or directory",
    );
    check(
        &[&format!("1=pcap-in:{program}"), "2=pcap-out:o.pcap"],
        &format!("--port 1=pcap-in:{program}: {program}: not a pcap or pcapng file (it starts with 2f 2a 0a 20)"),
    );
    let out = p4forge_in(&dir, &["switch", &program, "--port", "1=pcap-out:"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("`1=pcap-out:` names no file"), "{}", text(&out.stderr));
    assert_eq!(std::fs::read(dir.join("in.pcap")).unwrap(), input, "the input is untouched");
    assert_eq!(names(&dir), ["in.pcap", "link.pcap"], "nothing was written");
}

#[test]
fn an_output_that_cannot_be_written_is_an_output_error_and_leaves_nothing() {
    let (program, entries) = l2l3();
    let dir = scratch("unwritable");
    std::fs::write(dir.join("in.pcap"), pcap(&traffic())).unwrap();
    let missing = dir.join("no-such-dir/o2.pcap");
    let args = ["switch", &program, "--entries", &entries, "--port", "1=pcap-in:in.pcap"];
    let out = p4forge_in(&dir, &[&args[..], &["--port", &format!("2=pcap-out:{}", missing.display())]].concat());
    assert_eq!(out.status.code(), Some(3));
    assert_eq!(text(&out.stderr), format!("error: cannot write {}: no such file or directory\n", missing.display()));
    // A full device: the frames are processed, the write fails, the switch says so.
    let out = p4forge_in(&dir, &[&args[..], &["--port", "2=pcap-out:/dev/full"]].concat());
    assert_eq!(out.status.code(), Some(3));
    assert!(
        text(&out.stderr).ends_with("error: cannot write /dev/full: no space left on the device (disk full)\n"),
        "{}",
        text(&out.stderr)
    );
    assert_eq!(names(&dir), ["in.pcap"]);
}

#[test]
fn a_truncated_input_is_switched_up_to_the_cut_then_a_warning_and_exit_2() {
    let (program, entries) = l2l3();
    let dir = scratch("truncated");
    let mut input = pcap(&traffic()[..3]);
    input.truncate(input.len() - 7);
    std::fs::write(dir.join("in.pcap"), &input).unwrap();
    let out = p4forge_in(
        &dir,
        &l2l3_switch(&program, &entries),
    );
    let run = p4forge_in(&dir, &["run", &program, "--entries", &entries, "--in", "1=in.pcap", "--out", "run"]);
    assert_eq!(
        (out.status.code(), run.status.code()),
        (Some(2), Some(2)),
        "the exit status of run for a truncated input"
    );
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("warning: in.pcap: packet #3 is truncated (port 1 took the complete packets before it; the rest of the file is not read)\n"),
        "{stderr}"
    );
    assert!(
        stderr.ends_with("error: pcap-in not read to the end: in.pcap: packet #3 is truncated (the outputs hold what the packets before it produced)\n"),
        "{stderr}"
    );
    // The two complete packets went through: one routed to port 2, one to port 1.
    assert_eq!(records(&dir.join("o2.pcap")).1.len(), 1);
    assert_eq!(records(&dir.join("o1.pcap")).1.len(), 1);
    assert!(text(&out.stdout).starts_with("  port  packets in    bytes in  packets out   bytes out\n     1           2          84            1          42\n"));
}

#[test]
fn a_closed_stdout_is_reported_after_the_outputs_are_written() {
    let (program, entries) = l2l3();
    let dir = scratch("stdout");
    std::fs::write(dir.join("in.pcap"), pcap(&traffic())).unwrap();
    let (reader, writer) = std::io::pipe().expect("pipe");
    drop(reader);
    let out = Command::new(env!("CARGO_BIN_EXE_p4forge"))
        .args(in_to_port_2(&program, &entries))
        .current_dir(&dir)
        .stdin(Stdio::null())
        .stdout(writer)
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3));
    assert!(
        text(&out.stderr)
            .ends_with("error: cannot write to standard output: the reading end was closed (broken pipe)\n"),
        "{}",
        text(&out.stderr)
    );
    assert_eq!(records(&dir.join("o2.pcap")).1.len(), 3);
}

/// As root: the same capture-only switch as an unprivileged user (nobody), which it must not need
/// more than, since no socket is opened. Skipped without root or `setpriv`.
#[test]
fn capture_ports_need_no_privileges() {
    let root_user = is_root();
    let setpriv = Command::new("setpriv").arg("--version").output().is_ok_and(|o| o.status.success());
    if !root_user || !setpriv {
        eprintln!("skipped: needs root and setpriv to become an unprivileged user");
        return;
    }
    let (program, entries) = l2l3();
    let dir = scratch("nobody");
    std::fs::write(dir.join("in.pcap"), pcap(&traffic())).unwrap();
    let mode =
        |path: &Path, bits| std::fs::set_permissions(path, std::os::unix::fs::PermissionsExt::from_mode(bits)).unwrap();
    mode(&dir, 0o777);
    mode(&dir.join("in.pcap"), 0o644);
    let out = Command::new("setpriv")
        .args(["--reuid=65534", "--regid=65534", "--clear-groups", env!("CARGO_BIN_EXE_p4forge")])
        .args(in_to_port_2(&program, &entries))
        .current_dir(&dir)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    if text(&out.stderr).contains("Permission denied") && !text(&out.stderr).contains("switching") {
        eprintln!("skipped: the unprivileged user cannot reach the binary or the program: {}", text(&out.stderr));
        return;
    }
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(records(&dir.join("o2.pcap")).1.len(), 3);
}

fn is_root() -> bool {
    Command::new("id").arg("-u").output().is_ok_and(|o| o.stdout.starts_with(b"0\n"))
}

/// As root: a pcap-out on a file system that fills up half-way (a 64 KiB tmpfs, mounted in a
/// mount namespace of its own) stops the switch with the error, and the partial temporary file is
/// removed. Skipped without root or `unshare`.
#[test]
fn a_full_disk_stops_the_switch_and_removes_the_partial_output() {
    let unshare = Command::new("unshare").arg("--version").output().is_ok_and(|o| o.status.success());
    if !is_root() || !unshare {
        eprintln!("skipped: needs root and unshare to mount a small file system privately");
        return;
    }
    let (program, entries) = l2l3();
    let dir = scratch("full-disk");
    // 6,000 frames routed to port 2: about 350 KB of output for a 64 KiB file system.
    let frames: Vec<Vec<u8>> = (0..6000).map(|_| traffic()[0].clone()).collect();
    std::fs::write(dir.join("in.pcap"), pcap(&frames)).unwrap();
    std::fs::create_dir(dir.join("small")).unwrap();
    let script = r#"mount -t tmpfs -o size=64k p4forge-test small || exit 99
"$@" < /dev/null; echo "exit $?"; ls -A small"#;
    let out = Command::new("unshare")
        .args([
            "--mount",
            "sh",
            "-c",
            script,
            "sh",
            env!("CARGO_BIN_EXE_p4forge"),
            "switch",
            &program,
            "--entries",
            &entries,
        ])
        .args(["--port", "1=pcap-in:in.pcap", "--port", "2=pcap-out:small/o2.pcap"])
        .current_dir(&dir)
        .output()
        .unwrap();
    if out.status.code() == Some(99) {
        eprintln!("skipped: cannot mount a tmpfs here: {}", text(&out.stderr));
        return;
    }
    assert_eq!(text(&out.stdout), "exit 3\n", "exit status 3, and nothing left in the full file system");
    assert!(
        text(&out.stderr).ends_with("error: cannot write small/o2.pcap: no space left on the device (disk full)\n"),
        "{}",
        text(&out.stderr)
    );
}

/// As root: with a network interface among the ports, the switch keeps running after its pcap-in
/// file is consumed, until Ctrl-C, and then writes its pcap-out file. Only frames for port 1 (the
/// capture) are sent: a frame sent out of `lo` would come back in on it.
#[test]
fn with_an_interface_among_the_ports_the_switch_runs_until_ctrl_c() {
    use std::io::BufRead;
    if !is_root() {
        eprintln!("skipped: opening a raw socket on `lo` needs root");
        return;
    }
    let (program, entries) = l2l3();
    let dir = scratch("live-and-capture");
    let to_port1 = [traffic()[1].clone(), traffic()[3].clone()];
    std::fs::write(dir.join("in.pcap"), pcap(&to_port1)).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_p4forge"))
        .args(["switch", &program, "--entries", &entries, "--io", "packet", "--port", "2=lo"])
        .args(["--port", "1=pcap-in:in.pcap", "--port", "1=pcap-out:o1.pcap"])
        .current_dir(&dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = std::io::BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    while !line.starts_with("switching") {
        line.clear();
        assert!(stderr.read_line(&mut line).unwrap() > 0, "the switch stopped before switching");
    }
    assert_eq!(
        line,
        "switching 2=lo (AF_PACKET) 1=pcap-in:in.pcap 1=pcap-out:o1.pcap (Ctrl-C stops; runtime-CLI commands on stdin)\n"
    );
    std::thread::sleep(std::time::Duration::from_millis(500));
    assert!(child.try_wait().unwrap().is_none(), "still running after the capture is consumed");
    assert!(!dir.join("o1.pcap").exists(), "the output is renamed into place only when the switch stops");
    assert!(Command::new("kill").args(["-INT", &child.id().to_string()]).status().unwrap().success());
    let output = child.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(130), "Ctrl-C: 128 + SIGINT");
    let frames: Vec<Vec<u8>> = records(&dir.join("o1.pcap")).1.into_iter().map(|r| r.data).collect();
    assert_eq!(frames, [routed([10, 1, 7, 7], 1, 1), traffic()[3].clone()]);
    assert!(
        text(&output.stdout).contains("     1           2          84            2          84\n"),
        "{}",
        text(&output.stdout)
    );
}

/// SIGTERM (what `timeout`, systemd, docker and CI send) and SIGHUP stop the switch as Ctrl-C does:
/// the summary printed, every capture complete and in place, the control socket removed, no
/// temporary file left, exit 128 + the signal. The input is a FIFO the test keeps open, so the
/// switch is still running when the signal comes.
#[test]
fn sigterm_and_sighup_stop_the_switch_as_ctrl_c_does() {
    use std::io::Write;
    let (program, entries) = l2l3();
    let dir = scratch("stop-signals");
    std::fs::write(dir.join("in.pcap"), pcap(&traffic())).unwrap();
    let reference = p4forge_in(&dir, &in_to_port_2(&program, &entries));
    assert_eq!(reference.status.code(), Some(0), "{}", text(&reference.stderr));
    let want: Vec<Vec<u8>> = records(&dir.join("o2.pcap")).1.into_iter().map(|r| r.data).collect();
    assert_eq!(want.len(), 3, "the frames l2l3 sends to port 2");
    for (signal, status) in [("TERM", 143), ("HUP", 129), ("INT", 130)] {
        let run = dir.join(signal);
        std::fs::create_dir(&run).unwrap();
        mkfifo(&run.join("in.pcap"));
        let child = spawn_in(&run, &[&in_to_port_2(&program, &entries)[..], &["--control", "ctl.sock"]].concat(), Stdio::null());
        let mut feed = std::fs::File::options().write(true).open(run.join("in.pcap")).unwrap();
        feed.write_all(&pcap(&traffic())).unwrap();
        feed.flush().unwrap();
        // Until the switch has taken what was written (it then waits for more on the FIFO).
        let waited = std::time::Instant::now();
        while !run.join("ctl.sock").exists() && waited.elapsed().as_secs() < 20 {
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        std::thread::sleep(std::time::Duration::from_millis(1000));
        assert!(Command::new("kill").args([&format!("-{signal}"), &child.id().to_string()]).status().unwrap().success());
        let (output, hung) = p4_io::testing::wait_or_kill(child, std::time::Duration::from_secs(10));
        drop(feed);
        assert!(!hung, "SIG{signal}: still running 10 s after the signal: {}", text(&output.stderr));
        assert_eq!(output.status.code(), Some(status), "SIG{signal}: {}", text(&output.stderr));
        let stdout = text(&output.stdout);
        assert!(stdout.contains("     2           0           0            3 "), "SIG{signal}: the summary: {stdout}");
        let got: Vec<Vec<u8>> = records(&run.join("o2.pcap")).1.into_iter().map(|r| r.data).collect();
        assert_eq!(got, want, "SIG{signal}: the capture is complete");
        assert_eq!(names(&run), ["in.pcap", "o2.pcap"], "SIG{signal}: the control socket and temporary files are gone");
    }
}

/// Runtime-CLI lines on stdin are named by their line number when refused (blank lines and comments
/// count, as in an editor).
#[test]
fn refused_stdin_commands_name_their_line() {
    use std::io::Write;
    let (program, entries) = l2l3();
    let dir = scratch("stdin-lines");
    mkfifo(&dir.join("in.pcap"));
    let mut child = spawn_in(&dir, &in_to_port_2(&program, &entries), Stdio::piped());
    let mut feed = std::fs::File::options().write(true).open(dir.join("in.pcap")).unwrap();
    // A packet now and then keeps the switch's loop going round (commands are applied between
    // batches).
    let packets = pcap(&traffic());
    let (header, records) = packets.split_at(24);
    feed.write_all(header).unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(b"table_add nosuch a 1 =>\n\n# a comment\nno_such_command 1\n").unwrap();
    drop(stdin);
    for _ in 0..50 {
        feed.write_all(records).unwrap();
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert!(Command::new("kill").args(["-INT", &child.id().to_string()]).status().unwrap().success());
    let output = child.wait_with_output().unwrap();
    drop(feed);
    let stderr = text(&output.stderr);
    assert!(stderr.contains("\nrefused: no table named `nosuch` (known: "), "{stderr}");
    assert!(stderr.contains("\nstdin:4: unknown or unsupported command `no_such_command`\n"), "{stderr}");
}

/// A pcap-in FIFO that never gets a writer (opening it waits for one) holds nothing up: the
/// switch waits without spinning, and SIGTERM stops it as it stops any switch: the summary, the
/// pcap-out capture complete (empty) and in place, exit 143.
#[test]
fn a_fifo_that_never_gets_a_writer_stops_on_sigterm_with_its_summary() {
    let (program, entries) = l2l3();
    let dir = scratch("fifo-no-writer");
    mkfifo(&dir.join("in.pcap"));
    let child = spawn_in(&dir, &[&in_to_port_2(&program, &entries)[..], &["--control", "ctl.sock"]].concat(), Stdio::null());
    // The control socket is made once the ports are open, just before the loop starts.
    let waited = std::time::Instant::now();
    while !dir.join("ctl.sock").exists() && waited.elapsed().as_secs() < 20 {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    std::thread::sleep(std::time::Duration::from_millis(300));
    assert!(Command::new("kill").args(["-TERM", &child.id().to_string()]).status().unwrap().success());
    let (output, hung) = p4_io::testing::wait_or_kill(child, std::time::Duration::from_secs(10));
    assert!(!hung, "still running 10 s after SIGTERM: {}", text(&output.stderr));
    assert_eq!(output.status.code(), Some(143), "{}", text(&output.stderr));
    let stdout = text(&output.stdout);
    assert!(stdout.contains(" total           0           0            0           0\n"), "the summary: {stdout}");
    assert_eq!(records(&dir.join("o2.pcap")).1.len(), 0, "an empty, complete capture");
    assert_eq!(names(&dir), ["in.pcap", "o2.pcap"]);
}

/// Runtime-CLI commands are answered while a pcap-in FIFO's writer stalls: the switch's loop does
/// not wait on the FIFO (its frames come from a thread of their own), and the frame written
/// before the stall is switched at once.
#[test]
fn a_stalled_fifo_holds_up_neither_commands_nor_the_frames_before_the_stall() {
    use std::io::{BufRead, Write};
    let (program, entries) = l2l3();
    let dir = scratch("fifo-stalled");
    mkfifo(&dir.join("in.pcap"));
    let mut child = spawn_in(&dir, &l2l3_switch(&program, &entries), Stdio::piped());
    let (lines, stderr_lines) = std::sync::mpsc::channel();
    let stderr = child.stderr.take().unwrap();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(stderr).lines().map_while(Result::ok) {
            if lines.send(line).is_err() {
                break;
            }
        }
    });
    let mut feed = std::fs::File::options().write(true).open(dir.join("in.pcap")).unwrap();
    // One frame, then the writer stalls (the FIFO stays open).
    let frames = traffic();
    feed.write_all(&pcap(&frames[..1])).unwrap();
    feed.flush().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(b"no_such_command 1\n").unwrap();
    stdin.flush().unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    let mut answer = None;
    while let Ok(line) = stderr_lines.recv_timeout(deadline.saturating_duration_since(std::time::Instant::now())) {
        if line.starts_with("stdin:1:") {
            answer = Some(line);
            break;
        }
    }
    assert!(Command::new("kill").args(["-INT", &child.id().to_string()]).status().unwrap().success());
    assert_eq!(answer.as_deref(), Some("stdin:1: unknown or unsupported command `no_such_command`"), "answered while the FIFO stalls");
    let (output, hung) = p4_io::testing::wait_or_kill(child, std::time::Duration::from_secs(10));
    drop((feed, stdin));
    assert!(!hung, "still running 10 s after Ctrl-C");
    assert_eq!(output.status.code(), Some(130));
    let stdout = text(&output.stdout);
    assert!(stdout.contains("     1           1 "), "the frame before the stall went in: {stdout}");
}

/// `swap PROG` on the control socket replaces the program between two batches while a FIFO keeps
/// feeding frames: every frame comes out once, in order, whole, switched by the program in place
/// when it was taken (the answer says after how many frames the new one took over); a program
/// that does not compile is refused and the running one stays.
#[test]
fn a_swap_under_traffic_loses_cuts_and_repeats_no_frame() {
    use std::io::{BufRead, BufReader, Write};
    let dir = scratch("swap");
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    std::fs::copy(fixtures.join("op4t_mark_aa.p4"), dir.join("a.p4")).unwrap();
    std::fs::copy(fixtures.join("op4t_mark_bb.p4"), dir.join("b.p4")).unwrap();
    std::fs::write(dir.join("broken.p4"), "control C() { apply { x = ; } }\n").unwrap();
    mkfifo(&dir.join("in.pcap"));
    let child = spawn_in(&dir, &["switch", "a.p4", "--port", "0=pcap-in:in.pcap", "--port", "1=pcap-out:o1.pcap", "--control", "ctl.sock"], Stdio::null());
    let mut feed = std::fs::File::options().write(true).open(dir.join("in.pcap")).unwrap();
    // Frames numbered in their payload, 1,000 per phase; the pcap header goes with the first.
    let frame = |n: u32| [&[0x02, 0, 0, 0, 0, 1, 0x02, 0, 0, 0, 0, 2, 0x88, 0xb5][..], &n.to_be_bytes(), &[0u8; 42]].concat();
    let phase = |k: u32| {
        let bytes = pcap(&(k * 1000..(k + 1) * 1000).map(frame).collect::<Vec<_>>());
        if k == 0 { bytes } else { bytes[24..].to_vec() }
    };
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    let control = loop {
        match std::os::unix::net::UnixStream::connect(dir.join("ctl.sock")) {
            Ok(s) => break s,
            Err(_) if std::time::Instant::now() < deadline => std::thread::sleep(std::time::Duration::from_millis(20)),
            Err(e) => panic!("no control socket: {e}"),
        }
    };
    let mut answers = BufReader::new(control.try_clone().unwrap());
    let mut ask = |line: &str| {
        (&control).write_all(format!("{line}\n").as_bytes()).unwrap();
        // The answer's lines, up to the empty line that ends it.
        let mut answer = String::new();
        loop {
            let mut line = String::new();
            assert!(answers.read_line(&mut line).unwrap() > 0, "the switch closed the control socket");
            if line.trim_end().is_empty() {
                break answer.trim_end().to_string();
            }
            answer += &line;
        }
    };
    let after = |answer: &str, program: &str| -> usize {
        let prefix = format!("swapped to {program} after ");
        assert!(answer.starts_with(&prefix), "{answer}");
        answer[prefix.len()..].trim_end_matches(" frames").parse().unwrap()
    };
    feed.write_all(&phase(0)).unwrap();
    let refused = ask("swap broken.p4");
    assert!(refused.starts_with("refused: ") && refused.contains("broken.p4:1:"), "{refused}");
    let to_b = after(&ask("swap b.p4"), "b.p4");
    feed.write_all(&phase(1)).unwrap();
    let to_a = after(&ask("swap a.p4"), "a.p4");
    feed.write_all(&phase(2)).unwrap();
    drop(feed);
    let (output, hung) = p4_io::testing::wait_or_kill(child, std::time::Duration::from_secs(20));
    assert!(!hung && output.status.success(), "{}", text(&output.stderr));
    let (_, out) = records(&dir.join("o1.pcap"));
    assert_eq!(out.len(), 3000, "every frame out once");
    assert!(to_b <= to_a && to_a <= 3000, "{to_b} {to_a}");
    for (n, record) in out.iter().enumerate() {
        let mark = if n < to_b || n >= to_a { 0xaa } else { 0xbb };
        let mut expected = frame(n as u32);
        expected[11] = mark;
        assert_eq!(record.data, expected, "frame {n} (b from {to_b}, a again from {to_a})");
    }
}

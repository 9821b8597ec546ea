//! `p4forge test` and `p4forge run` end to end on a small program (`fixtures/fwd.p4`): exit codes,
//! the exact PASS/FAIL report, and the exact pcaps `run` writes.

use p4_stf::capture::{read_capture_file, write_capture_file, TimedPacket};
use std::path::Path;
use std::process::{Command, Output};

fn p4forge(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_p4forge"))
        .args(args)
        .current_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures"))
        .output()
        .expect("the p4forge binary runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn scratch(name: &str) -> p4_io::testing::Scratch {
    p4_io::testing::scratch_dir("p4forge-cli", name)
}

fn frame(dst: u8, src: u8, payload: &[u8]) -> Vec<u8> {
    [&[0, 0, 0, 0, 0, dst][..], &[0, 0, 0, 0, 0, src], &[0x08, 0x00], payload].concat()
}

#[test]
fn test_passes() {
    let out = p4forge(&["test", "fwd.p4", "fwd.stf"]);
    assert_eq!(text(&out.stdout), "PASS: 2 packets sent, 1 received, 1 expected\n", "{}", text(&out.stderr));
    assert_eq!(out.status.code(), Some(0));
}

#[test]
fn test_fails_with_a_diff() {
    let out = p4forge(&["test", "fwd.p4", "fwd_fail.stf"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        text(&out.stdout),
        "FAIL: 2 packets sent, 1 received, 2 expected\n\
         port 2: packet #1 does not match `expect` at line 4 (first difference at byte 11)\n\
         \x20 0000  expected 0000 0000 0002 0000 0000 0001 0800 ****\n\
         \x20       got      0000 0000 0002 0000 0000 000a 0800 cafe\n\
         \x20                                            ^\n\
         port 3: missing packet #1 expected at line 6: 0000 0000 0002 0000 0000 0003 0800\n"
    );
    assert_eq!(text(&out.stderr), "error: fwd_fail.stf failed\n");
}

#[test]
fn run_merges_inputs_and_writes_one_pcap_per_port() {
    let dir = scratch("run");
    let t0 = 1_700_000_000_000_000_000u64;
    let p = |t: u64, d: Vec<u8>| TimedPacket { timestamp_ns: t, data: d };
    write_capture_file(&dir.join("in1.pcap"), &[p(t0, frame(2, 1, &[1])), p(t0 + 30, frame(2, 1, &[3]))]).unwrap();
    write_capture_file(&dir.join("in2.pcapng"), &[p(t0 + 10, frame(1, 2, &[2]))]).unwrap();
    write_capture_file(&dir.join("in3.pcap"), &[p(t0 + 20, frame(1, 3, &[9]))]).unwrap();
    let arg = |name: &str, port: u32| format!("{port}={}", dir.join(name).display());
    let out_dir = dir.join("out");
    std::fs::create_dir_all(&out_dir).unwrap();
    std::fs::write(out_dir.join("port7.pcap"), b"stale").unwrap();
    std::fs::write(out_dir.join("notes.txt"), b"kept").unwrap();
    let out = p4forge(&[
        "run",
        "fwd.p4",
        "--entries",
        "fwd_entries.txt",
        "--in",
        &arg("in1.pcap", 1),
        "--in",
        &arg("in2.pcapng", 2),
        "--in",
        &arg("in3.pcap", 3),
        "--out",
        out_dir.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let o = out_dir.display();
    let summary = text(&out.stdout);
    let (table, files) = summary.split_once("dropped").unwrap_or((&summary, ""));
    assert_eq!(
        table,
        "  port  packets in    bytes in  packets out   bytes out
     1           2          30            1          15
     2           1          15            2          30
     3           1          15            0           0
 total           4          60            3          45
"
    );
    assert!(files.starts_with(": 1\n       1  "), "one drop with its reason: {files}");
    assert!(
        files.ends_with(&format!(
            "wrote {o}/port1.pcap\nwrote {o}/port2.pcap\n\
             left as it was: {o}/port7.pcap (from an earlier run; this run sent nothing to that port)\n"
        )),
        "{files}"
    );
    assert_eq!(
        read_capture_file(&out_dir.join("port2.pcap")).unwrap(),
        vec![p(t0, frame(2, 0x0a, &[1])), p(t0 + 30, frame(2, 0x0a, &[3]))]
    );
    assert_eq!(read_capture_file(&out_dir.join("port1.pcap")).unwrap(), vec![p(t0 + 10, frame(1, 0x0b, &[2]))]);
    assert_eq!(
        std::fs::read(out_dir.join("port7.pcap")).unwrap(),
        b"stale",
        "nothing the run did not write is removed"
    );
    assert!(out_dir.join("notes.txt").exists(), "other files are left alone");
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn run_names_the_entry_the_dataplane_refused() {
    let dir = scratch("run-refused");
    let entries = dir.join("entries.txt");
    std::fs::write(&entries, "table_add FwdIngress.fwd FwdIngress.send 1 => 2 00:00:00:00:00:0a\ntable_add FwdIngress.nosuch FwdIngress.send 1 => 2 3\n").unwrap();
    write_capture_file(&dir.join("in.pcap"), &[]).unwrap();
    let input = format!("1={}", dir.join("in.pcap").display());
    let out = p4forge(&[
        "run",
        "fwd.p4",
        "--entries",
        entries.to_str().unwrap(),
        "--in",
        &input,
        "--out",
        dir.join("o").to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = text(&out.stderr);
    assert!(stderr.starts_with(&format!("error: {}:2: ", entries.display())), "{stderr}");
    assert!(stderr.contains("nosuch"), "{stderr}");
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn check_accepts_a_valid_program() {
    let out = p4forge(&["check", "fwd.p4"]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(text(&out.stderr), "fwd.p4: ok\n");
    assert_eq!(out.stdout, b"");
}

#[test]
fn compile_prints_the_ir_printer_output() {
    let out = p4forge(&["compile", "fwd.p4", "--emit", "ir"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let program = p4forge::frontend::compile(&fixtures.join("fwd.p4"), &[]).expect("fwd.p4 compiles").program;
    let printed = p4_ir::printer::print_program(&program);
    assert!(printed.contains("FwdIngress.fwd"), "the IR names the table");
    assert_eq!(text(&out.stdout), printed);
}

#[test]
fn check_reports_a_type_error_and_exits_1() {
    let dir = scratch("type-error");
    let source = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/fwd.p4")).unwrap();
    let broken = source.replace("hdr.ethernet.src = src;", "hdr.ethernet.src = no_such_name;");
    assert_ne!(broken, source);
    let path = dir.join("broken.p4");
    std::fs::write(&path, broken).unwrap();
    let out = p4forge(&["check", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = text(&out.stderr);
    assert!(stderr.starts_with("error: "), "{stderr}");
    assert!(stderr.contains("no_such_name"), "{stderr}");
    assert!(stderr.contains(&format!(" --> {}:33:28\n", path.display())), "located at the mistake: {stderr}");
    assert!(stderr.ends_with(&format!("error: {} has errors\n", path.display())), "{stderr}");
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn compile_emits_the_parsed_program_as_p4() {
    let out = p4forge(&["compile", "fwd.p4", "--emit", "ast"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let printed = text(&out.stdout);
    assert!(printed.contains("table fwd"), "{printed}");
    assert!(
        printed.contains(
            "V1Switch(FwdParser(), FwdVerify(), FwdIngress(), FwdEgress(), FwdCompute(), FwdDeparser()) main;"
        ),
        "{printed}"
    );

    let out = p4forge(&["compile", "syntax_error.p4", "--emit", "ast"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).ends_with("error: syntax_error.p4 has syntax errors\n"), "{}", text(&out.stderr));
}

#[test]
fn compile_emits_the_lowered_ir_and_test_runs_it() {
    let out = p4forge(&["compile", "fwd.p4", "--emit", "lowered-ir"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let program = p4forge::frontend::compile(&fixtures.join("fwd.p4"), &[]).expect("fwd.p4 compiles").program;
    let lowered = p4_midend::lower(program).expect("fwd.p4 lowers");
    assert_eq!(text(&out.stdout), p4_ir::printer::print_program(&lowered));
    let out = p4forge(&["test", "--lowered", "fwd.p4", "fwd.stf"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(text(&out.stdout).starts_with("PASS"), "{}", text(&out.stdout));
}

#[test]
fn an_ir_file_reads_back_to_identical_text_and_runs() {
    let dir = scratch("p4ir");
    let out = p4forge(&["compile", "fwd.p4", "--emit", "ir"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let ir = dir.join("fwd.p4ir");
    std::fs::write(&ir, &out.stdout).unwrap();
    let again = p4forge(&["compile", ir.to_str().unwrap(), "--emit", "ir"]);
    assert_eq!(again.status.code(), Some(0), "{}", text(&again.stderr));
    assert_eq!(text(&again.stdout), text(&out.stdout), "print, read back, print: identical");
    let test = p4forge(&["test", ir.to_str().unwrap(), "fwd.stf"]);
    assert_eq!(test.status.code(), Some(0), "{}", text(&test.stderr));
    // `check` reads it as IR, not as P4.
    let check = p4forge(&["check", ir.to_str().unwrap()]);
    assert_eq!((check.status.code(), text(&check.stderr)), (Some(0), format!("{}: ok\n", ir.display())));

    let bad = dir.join("bad.p4ir");
    std::fs::write(&bad, "garbage {\n").unwrap();
    let b = bad.display();
    for command in ["compile", "check"] {
        let out = p4forge(&[command, bad.to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(1));
        assert_eq!(
            text(&out.stderr),
            format!("{b}:1:1: expected a declaration, found `garbage`\n  |\n1 | garbage {{\n  | ^\nerror: {b} is not valid IR\n")
        );
    }

    // Nested 20,000 deep: an error, not a stack overflow, in every command that reads it.
    let printed = text(&out.stdout);
    let deep = dir.join("deep.p4ir");
    let (at, _) = printed.match_indices(" = ").next().expect("an assignment in fwd.p4's IR");
    std::fs::write(&deep, format!("{}{}{}", &printed[..at + 3], "~".repeat(20_000), &printed[at + 3..])).unwrap();
    let (d, rtl_out) = (deep.to_str().unwrap(), dir.join("rtl"));
    // A capture of no packets: the little-endian pcap header alone (Ethernet, snap length 65535).
    let empty = dir.join("empty.pcap");
    std::fs::write(&empty, [0xd4, 0xc3, 0xb2, 0xa1, 2, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0, 0, 1, 0, 0, 0]).unwrap();
    let input = format!("1={}", empty.display());
    let runs: [&[&str]; 5] = [
        &["check", d],
        &["compile", d],
        &["test", d, "fwd.stf"],
        &["run", d, "--in", &input, "--out", rtl_out.to_str().unwrap()],
        &["rtl", d, "--out", rtl_out.to_str().unwrap()],
    ];
    for args in runs {
        let out = p4forge(args);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {}", text(&out.stderr));
        assert!(text(&out.stderr).contains("nested too deeply (more than 250 levels"), "{args:?}: {}", text(&out.stderr));
    }
}

/// l2l3 frames of `flows` different UDP flows: three in four routed (one in four of those to an
/// address no route covers), one in four switched to a known MAC.
fn l2l3_frames(count: u16) -> Vec<Vec<u8>> {
    (0..count)
        .map(|i| {
            let mut f = Vec::with_capacity(64);
            if i % 4 == 3 {
                f.extend_from_slice(&[0, 0, 0, 0, 0, 1 + (i % 3) as u8, 0, 0, 0, 0, 0, 9, 0x86, 0xdd]);
            } else {
                f.extend_from_slice(&[0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 9, 0x08, 0x00]);
                let dst = if i % 8 == 6 { [11, 0, 0, 1] } else { [10, 1, (i % 5) as u8, 7] };
                let mut ip = vec![0x45, 0, 0, 46, 0, 0, 0x40, 0, 64, 17, 0, 0, 192, 168, (i >> 8) as u8, i as u8];
                ip.extend_from_slice(&dst);
                let sum = p4_dataplane::hashing::csum16(&ip);
                ip[10..12].copy_from_slice(&sum.to_be_bytes());
                f.extend_from_slice(&ip);
                f.extend_from_slice(&(1000 + i % 97).to_be_bytes());
                f.extend_from_slice(&[0, 53, 0, 26, 0, 0]);
            }
            f.resize(64, i as u8);
            f
        })
        .collect()
}

/// Runs `args` (after `run`) and returns the summary and every output file's bytes by name.
fn run_outputs(args: &[&str], out_dir: &Path) -> (Output, Vec<(String, Vec<u8>)>) {
    let out = p4forge(&[&["run"], args, &["--out", out_dir.to_str().unwrap()]].concat());
    let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(out_dir)
        .map(|d| {
            d.flatten()
                .map(|e| (e.file_name().to_string_lossy().into_owned(), std::fs::read(e.path()).unwrap()))
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    (out, files)
}

#[test]
fn run_threads_gives_the_outputs_of_one_thread() {
    let dir = scratch("run-threads");
    let t0 = 1_700_000_000_000_000_000u64;
    let packets: Vec<TimedPacket> = l2l3_frames(5000)
        .into_iter()
        .enumerate()
        .map(|(i, d)| TimedPacket { timestamp_ns: t0 + i as u64 * 100, data: d })
        .collect();
    write_capture_file(&dir.join("in.pcap"), &packets).unwrap();
    let input = format!("1={}", dir.join("in.pcap").display());
    let program = "../../../../examples/l2l3/l2l3.p4";
    let entries = "../../../../examples/l2l3/entries.txt";
    let (one, one_files) =
        run_outputs(&["--threads", "1", program, "--entries", entries, "--in", &input], &dir.join("one"));
    let (three, three_files) =
        run_outputs(&["--threads", "3", program, "--entries", entries, "--in", &input], &dir.join("three"));
    assert_eq!(one.status.code(), Some(0), "{}", text(&one.stderr));
    assert_eq!(three.status.code(), Some(0), "{}", text(&three.stderr));
    // Port 1: the /16 (2,500) and MAC 1 (417); port 2: the /24 (625) and MAC 2 (417); port 3:
    // MAC 3 (416); the 625 packets to 11.0.0.1 have no route.
    let summary = text(&one.stdout);
    let table = summary.split("wrote").next().unwrap_or_default();
    assert_eq!(
        table,
        "  port  packets in    bytes in  packets out   bytes out
     1        5000      320000         2917      186688
     2           0           0         1042       66688
     3           0           0          416       26624
 total        5000      320000         4375      280000
dropped: 625
     625  mark_to_drop in L2L3Ingress
"
    );
    assert_eq!(text(&three.stdout).replace("/three/", "/one/"), summary, "the same summary");
    assert_eq!(one_files.len(), 3);
    assert!(one_files == three_files, "every output capture identical, byte for byte");
    assert_eq!(text(&three.stderr), "", "a stateless program runs on three workers without a note");
    let _ = std::fs::remove_dir_all(dir);
}

/// Enough chunks (of 4,096 packets with helper threads) that the calling thread both hands chunks
/// to its helpers and, while they have a queue, runs chunks itself; their results must still be
/// written in input order: every flow's packets, the drops and the three output ports as one
/// thread leaves them.
#[test]
fn run_threads_2_and_3_give_the_outputs_of_one_thread_over_many_chunks() {
    let dir = scratch("run-threads-many-chunks");
    let t0 = 1_700_000_000_000_000_000u64;
    let packets: Vec<TimedPacket> = l2l3_frames(40_000)
        .into_iter()
        .enumerate()
        .map(|(i, d)| TimedPacket { timestamp_ns: t0 + i as u64 * 37, data: d })
        .collect();
    write_capture_file(&dir.join("in.pcap"), &packets).unwrap();
    let input = format!("1={}", dir.join("in.pcap").display());
    let program = "../../../../examples/l2l3/l2l3.p4";
    let entries = "../../../../examples/l2l3/entries.txt";
    let run_with = |threads: &str| {
        run_outputs(&["--threads", threads, program, "--entries", entries, "--in", &input], &dir.join(threads))
    };
    let (one, one_files) = run_with("1");
    assert_eq!(one.status.code(), Some(0), "{}", text(&one.stderr));
    let summary = text(&one.stdout);
    assert!(summary.contains("dropped: 5000\n"), "{summary}");
    assert_eq!(one_files.len(), 3, "three output ports");
    // Each output carries its input's time, and the ports' outputs come in input order: input `i`
    // is known by its source address (routed) or its filler byte (switched, `i` mod 256).
    let mut outputs = 0;
    for (name, bytes) in &one_files {
        let mut last = None;
        for packet in p4_stf::capture::read_captured(bytes).unwrap() {
            let i = (packet.timestamp_ns - t0) / 37;
            assert_eq!(packet.timestamp_ns, t0 + i * 37, "{name}: a time no input has");
            assert!(last < Some(i), "{name}: input {i} after input {last:?}");
            assert_eq!(packet.original_len as usize, packet.data.len());
            match packet.data[12..14] {
                [0x08, 0x00] => {
                    assert_eq!(packet.data[28..30], [(i >> 8) as u8, i as u8], "{name}: input {i}'s source address")
                }
                _ => assert_eq!(packet.data[20], i as u8, "{name}: input {i}'s filler"),
            }
            last = Some(i);
            outputs += 1;
        }
    }
    assert_eq!(outputs, 35_000);
    for threads in ["2", "3"] {
        let (many, many_files) = run_with(threads);
        assert_eq!(many.status.code(), Some(0), "{}", text(&many.stderr));
        assert_eq!(
            text(&many.stdout).replace(&format!("/{threads}/"), "/1/"),
            summary,
            "--threads {threads}: the same summary"
        );
        assert!(one_files == many_files, "--threads {threads}: every output capture identical, byte for byte");
    }
    // A classic pcap input is read as whole records and decoded by the thread that runs them;
    // pcapng is read packet by packet: the same outputs.
    write_capture_file(&dir.join("in.pcapng"), &packets).unwrap();
    let pcapng = format!("1={}", dir.join("in.pcapng").display());
    for threads in ["1", "2"] {
        let out_dir = dir.join(format!("ng{threads}"));
        let (ng, ng_files) =
            run_outputs(&["--threads", threads, program, "--entries", entries, "--in", &pcapng], &out_dir);
        assert_eq!(ng.status.code(), Some(0), "{}", text(&ng.stderr));
        let ng_summary = text(&ng.stdout).replace(&format!("/ng{threads}/"), "/1/");
        assert_eq!(ng_summary, summary, "pcapng input, --threads {threads}: the same summary");
        assert!(
            one_files == ng_files,
            "pcapng input, --threads {threads}: every output capture identical, byte for byte"
        );
    }
    let _ = std::fs::remove_dir_all(dir);
}

/// Forwards by the low bits of the destination MAC and logs the frames of EtherType 0x88b5.
const LOG_SOME: &str = r#"#include <core.p4>
#include <v1model.p4>
header ethernet_t { bit<48> dst; bit<48> src; bit<16> type; }
struct headers { ethernet_t eth; }
struct meta {}
parser P(packet_in p, out headers h, inout meta m, inout standard_metadata_t sm) {
    state start { p.extract(h.eth); transition accept; }
}
control NoCheck(inout headers h, inout meta m) { apply {} }
control I(inout headers h, inout meta m, inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = (bit<9>)h.eth.dst[1:0] + 1;
        if (h.eth.type == 0x88b5) { log_msg("marked"); }
    }
}
control E(inout headers h, inout meta m, inout standard_metadata_t sm) { apply {} }
control D(packet_out p, in headers h) { apply { p.emit(h.eth); } }
V1Switch(P(), NoCheck(), I(), E(), NoCheck(), D()) main;
"#;

/// With helpers, a chunk whose packets log a line is written by the calling thread as its results
/// come, between chunks whose records a helper writes into room set aside for them in the same
/// files: the outputs are still those of one thread, byte for byte.
#[test]
fn run_threads_writes_chunks_with_log_lines_in_order_between_chunks_written_by_helpers() {
    let dir = scratch("run-threads-log-lines");
    std::fs::write(dir.join("log_some.p4"), LOG_SOME).unwrap();
    let packets: Vec<TimedPacket> = (0..30_000u32)
        .map(|i| {
            let kind: &[u8] = if i == 9_000 || i == 9_001 || i == 25_000 { &[0x88, 0xb5] } else { &[0x08, 0x00] };
            let data = [&[0, 0, 0, 0, 0, i as u8][..], &[0, 0, 0, 0, 0, 1], kind, &i.to_be_bytes(), &[0; 46]].concat();
            TimedPacket { timestamp_ns: 1_700_000_000_000_000_000 + u64::from(i), data }
        })
        .collect();
    write_capture_file(&dir.join("in.pcap"), &packets).unwrap();
    let program = dir.join("log_some.p4");
    let input = format!("1={}", dir.join("in.pcap").display());
    let run_with = |threads: &str| {
        run_outputs(&["--threads", threads, "--verbose", program.to_str().unwrap(), "--in", &input], &dir.join(threads))
    };
    let (one, one_files) = run_with("1");
    assert_eq!(one.status.code(), Some(0), "{}", text(&one.stderr));
    assert_eq!(text(&one.stderr).matches("log: marked\n").count(), 3, "{}", text(&one.stderr));
    assert_eq!(one_files.iter().map(|(name, _)| name.as_str()).collect::<Vec<_>>(), ["port1.pcap", "port2.pcap", "port3.pcap", "port4.pcap"]);
    let (two, two_files) = run_with("2");
    assert_eq!(two.status.code(), Some(0), "{}", text(&two.stderr));
    assert_eq!(text(&two.stderr).matches("log: marked\n").count(), 3, "{}", text(&two.stderr));
    assert!(one_files == two_files, "--threads 2: every output capture identical, byte for byte");
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn run_threads_runs_a_program_with_registers_on_one_worker_and_says_so() {
    let dir = scratch("run-threads-state");
    let traffic = "../../../../examples/paxos/traffic";
    let inputs: Vec<String> = [0, 4, 5].iter().map(|p| format!("{p}={traffic}/in_port{p}.pcap")).collect();
    let mut args = vec!["../../../../examples/paxos/paxos.p4", "--entries", "../../../../examples/paxos/entries.txt"];
    for input in &inputs {
        args.extend(["--in", input.as_str()]);
    }
    let (one, one_files) = run_outputs(&args, &dir.join("one"));
    args.extend(["--threads", "2"]);
    let (two, two_files) = run_outputs(&args, &dir.join("two"));
    assert_eq!(one.status.code(), Some(0), "{}", text(&one.stderr));
    assert_eq!(two.status.code(), Some(0), "{}", text(&two.stderr));
    assert_eq!(
        text(&two.stderr),
        "note: ../../../../examples/paxos/paxos.p4 keeps state from one packet to the next (PaxosIngress.reg_inst, \
         PaxosIngress.switch_id, PaxosIngress.rnds, PaxosIngress.vrnds, PaxosIngress.values, PaxosIngress.learner_rnd, \
         PaxosIngress.learner_votes, PaxosIngress.learner_done): running on one worker thread, so that every packet \
         sees the state one thread would give it\n"
    );
    assert!(!one_files.is_empty() && one_files == two_files);
    let _ = std::fs::remove_dir_all(dir);
}

/// `run --verbose` says which executor runs the packets: l2l3 whole as machine code on the
/// wire-format executor, a multicast program handing over the packets that ask, a traced run on
/// the wire-format executor's closures.
#[test]
fn run_verbose_names_the_executor() {
    let dir = scratch("run-verbose");
    let packets: Vec<TimedPacket> = l2l3_frames(4).into_iter().map(|d| TimedPacket { timestamp_ns: 1_000, data: d }).collect();
    write_capture_file(&dir.join("in.pcap"), &packets).unwrap();
    let input = format!("1={}", dir.join("in.pcap").display());
    let executor_line = |program: &str, extra: &[&str], out: &str| {
        let (run, _) = run_outputs(&[&[program, "--in", &input, "--verbose"], extra].concat(), &dir.join(out));
        assert_eq!(run.status.code(), Some(0), "{}", text(&run.stderr));
        text(&run.stderr).lines().find(|l| l.starts_with("executor: ")).unwrap_or_default().to_string()
    };
    assert_eq!(
        executor_line("../../../../examples/l2l3/l2l3.p4", &[], "l2l3"),
        "executor: wire-format; machine code: parser, 4 of 4 controls, whole packet, self-contained"
    );
    assert_eq!(
        executor_line("../../../../tests/stf/multicast.p4", &[], "multicast"),
        "executor: wire-format; machine code: parser, 3 of 3 controls; packets whose ingress asks the traffic manager for more than one copy go through it"
    );
    assert_eq!(
        executor_line("../../../../examples/l2l3/l2l3.p4", &["--trace"], "traced"),
        "executor: wire-format; no machine code (a traced switch records its steps from closures)"
    );
    let _ = std::fs::remove_dir_all(dir);
}

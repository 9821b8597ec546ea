//! The CLI under hostile conditions: inputs that are not what they claim, outputs that cannot be
//! written, runs that fail or are stopped half-way. Nothing the user had is lost, nothing panics,
//! and every error says what happened to which file.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

fn binary() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_p4forge"));
    command.current_dir(fixtures());
    command
}

fn p4forge(args: &[&str]) -> Output {
    binary().args(args).output().expect("the p4forge binary runs")
}

/// Runs with stdout connected to `stdout` (e.g. /dev/full or a closed pipe).
fn p4forge_to(args: &[&str], stdout: impl Into<Stdio>) -> Output {
    binary().args(args).stdout(stdout).stderr(Stdio::piped()).output().expect("the p4forge binary runs")
}

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn scratch(name: &str) -> p4_io::testing::Scratch {
    p4_io::testing::scratch_dir("p4forge-hard", name)
}

fn dev_full() -> std::fs::File {
    std::fs::File::options().write(true).open("/dev/full").expect("/dev/full")
}

/// A stdout whose reading end is already closed: every write fails with EPIPE.
fn closed_pipe() -> std::io::PipeWriter {
    let (reader, writer) = std::io::pipe().expect("pipe");
    drop(reader);
    writer
}

/// Ethernet frame 0..0dst, 0..0src, IPv4 type, payload.
fn frame(dst: u8, src: u8, payload: &[u8]) -> Vec<u8> {
    [&[0, 0, 0, 0, 0, dst][..], &[0, 0, 0, 0, 0, src], &[0x08, 0x00], payload].concat()
}

/// A little-endian microsecond pcap header with link type `linktype` and snaplen 65535.
fn pcap_header(linktype: u32) -> Vec<u8> {
    let mut out = vec![0xd4, 0xc3, 0xb2, 0xa1, 2, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0];
    out.extend_from_slice(&65535u32.to_le_bytes());
    out.extend_from_slice(&linktype.to_le_bytes());
    out
}

/// One pcap record at `second` seconds.
fn pcap_record(second: u32, data: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    for field in [second, 0, data.len() as u32, data.len() as u32] {
        out.extend_from_slice(&field.to_le_bytes());
    }
    out.extend_from_slice(data);
    out
}

/// An Ethernet pcap holding `count` frames that fwd.p4 forwards from port 1 to port 2.
fn ethernet_pcap(count: u32) -> Vec<u8> {
    let mut out = pcap_header(1);
    for i in 0..count {
        out.extend(pcap_record(i, &frame(2, 1, &[i as u8])));
    }
    out
}

fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> =
        std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    names.sort();
    names
}

fn run_args<'a>(input: &'a str, out: &'a str) -> Vec<&'a str> {
    vec!["run", "fwd.p4", "--entries", "fwd_entries.txt", "--in", input, "--out", out]
}

#[test]
fn run_refuses_to_write_over_its_own_input() {
    let dir = scratch("input-is-output");
    let input = dir.join("port1.pcap");
    let bytes = ethernet_pcap(3);
    std::fs::write(&input, &bytes).unwrap();
    let arg = format!("1={}", input.display());
    let out = p4forge(&run_args(&arg, dir.to_str().unwrap()));
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        text(&out.stderr),
        format!(
            "error: --in {arg} is the file {} that this run would write its port output to (outputs are OUT/port<N>.pcap); \
             choose another --out directory or move the input\n",
            input.display()
        )
    );
    assert_eq!(std::fs::read(&input).unwrap(), bytes, "the input is untouched");
    assert_eq!(names(&dir), ["port1.pcap"]);
}

#[test]
fn run_refuses_an_input_reached_through_a_link_to_an_output_name() {
    let dir = scratch("input-linked");
    let input = dir.join("traffic.pcap");
    std::fs::write(&input, ethernet_pcap(1)).unwrap();
    let out_dir = dir.join("out");
    std::fs::create_dir_all(&out_dir).unwrap();
    std::fs::hard_link(&input, out_dir.join("port2.pcap")).unwrap();
    let arg = format!("1={}", input.display());
    let out = p4forge(&run_args(&arg, out_dir.to_str().unwrap()));
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("that this run would write its port output to"), "{}", text(&out.stderr));
    assert_eq!(std::fs::read(&input).unwrap(), ethernet_pcap(1));
}

#[test]
fn run_keeps_an_earlier_runs_files_it_does_not_replace_and_says_so() {
    let dir = scratch("earlier");
    let input = dir.join("in.pcap");
    std::fs::write(&input, ethernet_pcap(2)).unwrap();
    let out_dir = dir.join("out");
    std::fs::create_dir_all(&out_dir).unwrap();
    std::fs::write(out_dir.join("port7.pcap"), b"an earlier run's").unwrap();
    let arg = format!("1={}", input.display());
    let out = p4forge(&run_args(&arg, out_dir.to_str().unwrap()));
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let o = out_dir.display();
    assert!(
        text(&out.stdout).ends_with(&format!(
            "wrote {o}/port2.pcap\nleft as it was: {o}/port7.pcap (from an earlier run; this run sent nothing to that port)\n"
        )),
        "{}",
        text(&out.stdout)
    );
    assert_eq!(std::fs::read(out_dir.join("port7.pcap")).unwrap(), b"an earlier run's");
    assert_eq!(names(&out_dir), ["port2.pcap", "port7.pcap"]);
}

#[test]
fn an_input_that_breaks_half_way_leaves_the_earlier_outputs_as_they_were() {
    let dir = scratch("truncated-input");
    let out_dir = dir.join("out");
    std::fs::create_dir_all(&out_dir).unwrap();
    std::fs::write(out_dir.join("port2.pcap"), b"previous output").unwrap();
    let mut bytes = ethernet_pcap(5);
    bytes.truncate(bytes.len() - 7);
    let input = dir.join("in.pcap");
    std::fs::write(&input, &bytes).unwrap();
    let arg = format!("1={}", input.display());
    let out = p4forge(&run_args(&arg, out_dir.to_str().unwrap()));
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(text(&out.stderr), format!("error: {}: packet #5 is truncated\n", input.display()));
    assert_eq!(std::fs::read(out_dir.join("port2.pcap")).unwrap(), b"previous output");
    assert_eq!(names(&out_dir), ["port2.pcap"], "no partial or temporary files are left");
}

#[test]
fn a_full_disk_or_closed_pipe_on_stdout_is_an_error_not_a_panic() {
    let full = "error: cannot write to standard output: no space left on the device (disk full)\n";
    let pipe = "error: cannot write to standard output: the reading end was closed (broken pipe)\n";
    for args in [&["compile", "fwd.p4"][..], &["compile", "fwd.p4", "--emit", "cfg"], &["compile", "fwd.p4", "--emit", "ast"], &["test", "fwd.p4", "fwd.stf"]] {
        let out = p4forge_to(args, dev_full());
        assert_eq!((out.status.code(), text(&out.stderr).as_str()), (Some(3), full), "{args:?} > /dev/full");
        let out = p4forge_to(args, closed_pipe());
        assert_eq!((out.status.code(), text(&out.stderr).as_str()), (Some(3), pipe), "{args:?} | closed");
    }
}

#[test]
fn run_and_stf2pcap_report_a_closed_stdout_after_writing_their_files() {
    let dir = scratch("run-stdout");
    let input = dir.join("in.pcap");
    std::fs::write(&input, ethernet_pcap(2)).unwrap();
    let arg = format!("1={}", input.display());
    let out_dir = dir.join("out");
    let out = p4forge_to(&run_args(&arg, out_dir.to_str().unwrap()), dev_full());
    assert_eq!(out.status.code(), Some(3));
    assert_eq!(text(&out.stderr), "error: cannot write to standard output: no space left on the device (disk full)\n");
    assert_eq!(names(&out_dir), ["port2.pcap"]);
    let out = p4forge_to(&["stf2pcap", "traffic.stf", "--out", dir.join("stf").to_str().unwrap()], closed_pipe());
    assert_eq!(out.status.code(), Some(3));
}

#[test]
fn a_closed_stderr_does_not_panic_either() {
    let out = binary().args(["check", "syntax_error.p4"]).stderr(dev_full()).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let out = binary().args(["check", "fwd.p4"]).stderr(closed_pipe()).output().unwrap();
    assert_eq!(out.status.code(), Some(0));
}

#[test]
fn a_program_path_that_is_not_a_file_says_what_it_is() {
    let dir = scratch("program-kinds");
    let fifo = dir.join("prog.p4");
    assert!(Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    let cases = [
        (dir.display().to_string(), "it is a directory, not a regular file"),
        (fifo.display().to_string(), "it is a FIFO (named pipe), not a regular file"),
        ("/dev/null".to_string(), "it is a character device, not a regular file"),
        ("nosuch.p4".to_string(), "no such file or directory"),
    ];
    for (path, why) in cases {
        for command in ["check", "compile"] {
            let out = p4forge(&[command, &path]);
            assert_eq!(out.status.code(), Some(2), "{command} {path}");
            assert_eq!(text(&out.stderr), format!("error: cannot read P4 program {path}: {why}\n"));
        }
        let out = p4forge(&["test", &path, "fwd.stf"]);
        assert_eq!((out.status.code(), text(&out.stderr)), (Some(2), format!("error: cannot read P4 program {path}: {why}\n")));
    }
}

#[test]
fn an_unreadable_program_is_a_bad_input_not_a_program_error() {
    // Root reads any file whatever its mode, so make it unreadable by being a directory entry that
    // fails to open for another reason when running as root: a path through a regular file.
    let out = p4forge(&["check", "fwd.p4/inner.p4"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(text(&out.stderr), "error: cannot read P4 program fwd.p4/inner.p4: a component of the path is not a directory\n");
    if unsafe_is_root() {
        return;
    }
    let dir = scratch("unreadable");
    let program = dir.join("p.p4");
    std::fs::copy(fixtures().join("fwd.p4"), &program).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&program, std::fs::Permissions::from_mode(0o000)).unwrap();
    let out = p4forge(&["check", program.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(text(&out.stderr), format!("error: cannot read P4 program {}: permission denied\n", program.display()));
}

fn unsafe_is_root() -> bool {
    Command::new("id").arg("-u").output().is_ok_and(|o| o.stdout.starts_with(b"0\n"))
}

#[test]
fn endless_text_inputs_stop_at_a_stated_limit() {
    let out = p4forge(&["test", "fwd.p4", "/dev/zero"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        text(&out.stderr),
        "error: cannot read STF file /dev/zero: it is larger than the limit of 64 MiB (an endless input such as /dev/zero?)\n"
    );
    let out = p4forge(&["run", "fwd.p4", "--entries", "/dev/zero", "--in", "1=x.pcap", "--out", "unused"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        text(&out.stderr),
        "error: cannot read entries file /dev/zero: it is larger than the limit of 64 MiB (an endless input such as /dev/zero?)\n"
    );
    let out = p4forge(&["stf2pcap", "/dev/zero", "--out", "unused"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn an_output_directory_that_is_a_file_is_refused_before_any_work() {
    let dir = scratch("out-is-file");
    let file = dir.join("out");
    std::fs::write(&file, b"mine").unwrap();
    let input = dir.join("in.pcap");
    std::fs::write(&input, ethernet_pcap(1)).unwrap();
    let arg = format!("1={}", input.display());
    let out = p4forge(&run_args(&arg, file.to_str().unwrap()));
    assert_eq!(out.status.code(), Some(3));
    assert_eq!(text(&out.stderr), format!("error: cannot write {}: it exists and is not a directory\n", file.display()));
    assert_eq!(std::fs::read(&file).unwrap(), b"mine");
}

/// Ctrl-C during `run`: the run stops at the next packet, every output is a complete capture of what
/// was processed, and the summary says it is partial. The input is a FIFO the test feeds, so the
/// signal arrives at a known point.
#[test]
fn ctrl_c_stops_run_with_complete_outputs_and_a_partial_summary() {
    let dir = scratch("sigint");
    let fifo = dir.join("in.pcap");
    assert!(Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    let out_dir = dir.join("out");
    let arg = format!("1={}", fifo.display());
    let child = binary().args(run_args(&arg, out_dir.to_str().unwrap())).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    let mut feed = std::fs::File::options().write(true).open(&fifo).unwrap();
    feed.write_all(&pcap_header(1)).unwrap();
    for i in 0..20 {
        feed.write_all(&pcap_record(i, &frame(2, 1, &[i as u8]))).unwrap();
    }
    feed.flush().unwrap();
    // Wait until the run has consumed what was written (it blocks reading the FIFO afterwards).
    std::thread::sleep(std::time::Duration::from_millis(1500));
    assert!(Command::new("kill").args(["-INT", &child.id().to_string()]).status().unwrap().success());
    std::thread::sleep(std::time::Duration::from_millis(200));
    for i in 20..25 {
        let _ = feed.write_all(&pcap_record(i, &frame(2, 1, &[i as u8])));
    }
    drop(feed);
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(130), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(stdout.contains("\ninterrupted by Ctrl-C after "), "{stdout}");
    assert!(stdout.contains(&format!("wrote {}/port2.pcap\n", out_dir.display())), "{stdout}");
    let written = p4_stf::capture::read_capture_file(&out_dir.join("port2.pcap")).expect("a complete capture");
    assert!((19..=21).contains(&written.len()), "{} packets", written.len());
    assert_eq!(names(&out_dir), ["port2.pcap"]);
}

/// SIGTERM during `run` whose input waits for bytes that do not come (a FIFO whose writer stalls):
/// the run still stops, with complete outputs, a partial summary naming the signal, and exit 143.
#[test]
fn sigterm_stops_run_while_its_input_waits() {
    let dir = scratch("sigterm");
    let fifo = dir.join("in.pcap");
    assert!(Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    let out_dir = dir.join("out");
    let arg = format!("1={}", fifo.display());
    let child = binary().args(run_args(&arg, out_dir.to_str().unwrap())).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    let mut feed = std::fs::File::options().write(true).open(&fifo).unwrap();
    feed.write_all(&pcap_header(1)).unwrap();
    for i in 0..20 {
        feed.write_all(&pcap_record(i, &frame(2, 1, &[i as u8]))).unwrap();
    }
    feed.flush().unwrap();
    std::thread::sleep(std::time::Duration::from_millis(1500));
    assert!(Command::new("kill").args(["-TERM", &child.id().to_string()]).status().unwrap().success());
    let (out, hung) = p4_io::testing::wait_or_kill(child, std::time::Duration::from_secs(10));
    drop(feed);
    assert!(!hung, "still running 10 s after SIGTERM: {}", text(&out.stderr));
    assert_eq!(out.status.code(), Some(143), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(stdout.contains("\ninterrupted by SIGTERM after 20 input packets"), "{stdout}");
    let written = p4_stf::capture::read_capture_file(&out_dir.join("port2.pcap")).expect("a complete capture");
    assert_eq!(written.len(), 20);
    assert_eq!(names(&out_dir), ["port2.pcap"], "no temporary file left");
}

#[test]
fn run_and_test_say_when_a_program_has_no_main() {
    let dir = scratch("no-main");
    let program = dir.join("lib.p4");
    std::fs::write(&program, "#include <core.p4>\nheader h_t { bit<8> a; }\n").unwrap();
    let input = dir.join("in.pcap");
    std::fs::write(&input, ethernet_pcap(1)).unwrap();
    let arg = format!("1={}", input.display());
    let want = format!(
        "error: {}: the program has no `main` package instantiation (V1Switch(...) main;), so there is nothing to run\n",
        program.display()
    );
    let out = p4forge(&["run", program.to_str().unwrap(), "--in", &arg, "--out", dir.join("o").to_str().unwrap()]);
    assert_eq!((out.status.code(), text(&out.stderr)), (Some(1), want.clone()));
    let out = p4forge(&["test", program.to_str().unwrap(), "fwd.stf"]);
    assert_eq!((out.status.code(), text(&out.stderr)), (Some(1), want));
}

#[test]
fn run_reads_truncated_captures_and_keeps_the_original_length() {
    let dir = scratch("snaplen");
    // As `tcpdump -s 20` writes: 20 bytes held of a 60-byte packet, snaplen 20.
    let mut bytes = pcap_header(1);
    bytes[16..20].copy_from_slice(&20u32.to_le_bytes());
    let held = &frame(2, 1, &[0xab; 46])[..20];
    for field in [0u32, 0, 20, 60] {
        bytes.extend_from_slice(&field.to_le_bytes());
    }
    bytes.extend_from_slice(held);
    let input = dir.join("in.pcap");
    std::fs::write(&input, bytes).unwrap();
    let arg = format!("1={}", input.display());
    let out_dir = dir.join("out");
    let out = p4forge(&run_args(&arg, out_dir.to_str().unwrap()));
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let written = p4_stf::capture::read_captured_file(&out_dir.join("port2.pcap")).unwrap();
    assert_eq!(written.len(), 1);
    assert_eq!(written[0].data.len(), 20, "the dataplane saw and forwarded the 20 bytes held");
    assert_eq!(written[0].original_len, 60, "the 40 bytes the input did not hold are still counted");
}

#[test]
fn run_refuses_a_capture_that_is_not_ethernet() {
    let dir = scratch("raw-ip");
    let input = dir.join("in.pcap");
    let mut bytes = pcap_header(101);
    bytes.extend(pcap_record(0, &[0x45, 0, 0, 20, 0, 0, 0, 0, 64, 17, 0, 0, 10, 0, 0, 1, 10, 0, 0, 2]));
    std::fs::write(&input, bytes).unwrap();
    let arg = format!("1={}", input.display());
    let out = p4forge(&run_args(&arg, dir.join("out").to_str().unwrap()));
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        text(&out.stderr),
        format!(
            "error: {}: the file's link type is 101 (RAW, raw IP without a link-layer header), not Ethernet (1): p4forge's ports carry Ethernet frames\n",
            input.display()
        )
    );
}

#[test]
fn run_refuses_ports_that_do_not_fit_v1model_port_fields() {
    let dir = scratch("port-600");
    let input = dir.join("in.pcap");
    std::fs::write(&input, ethernet_pcap(1)).unwrap();
    let out_dir = dir.join("out");
    let arg = format!("600={}", input.display());
    let out = p4forge(&run_args(&arg, out_dir.to_str().unwrap()));
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        text(&out.stderr),
        format!("error: --in {arg}: port 600 does not fit v1model's 9-bit port fields (0..511)\n")
    );
    assert!(names(&out_dir).is_empty(), "nothing written");
    let arg = format!("511={}", input.display());
    let out = p4forge(&run_args(&arg, out_dir.to_str().unwrap()));
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
}

#[test]
fn what_the_dataplane_cannot_run_is_located_in_check_and_refused_by_test() {
    let located = "the software dataplane cannot run this: control I: a bit<256> value where at most 128 bits can be used \
                   (as a table key, index, condition or extern argument)\n  --> wide_switch.p4:13:17\n   |\n\
                   13 |         switch (hdr.h.a) {\n   |                 ^^^^^^^\n";
    let out = p4forge(&["check", "wide_switch.p4"]);
    assert_eq!(out.status.code(), Some(0), "valid P4 stays valid");
    assert_eq!(
        text(&out.stderr),
        format!("warning: {located}wide_switch.p4: valid, but the software dataplane cannot run it (see the warning)\n")
    );
    let out = p4forge(&["test", "wide_switch.p4", "fwd.stf"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(text(&out.stderr), format!("error: {located}error: wide_switch.p4 cannot run on the software dataplane\n"));
}

#[test]
fn a_refused_stf_command_is_a_bad_input_like_a_refused_entry() {
    let dir = scratch("stf-refused");
    let stf = dir.join("bad.stf");
    std::fs::write(&stf, "add FwdIngress.nosuch 1 FwdIngress.drop()\npacket 1 00\n").unwrap();
    let out = p4forge(&["test", "fwd.p4", stf.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(text(&out.stderr), format!("error: {}:1: no table named `FwdIngress.nosuch` (known: FwdIngress.fwd)\n", stf.display()));
}

/// A table declared with `size = 2` takes two entries; a third is refused with the reason (the
/// software target is the golden model, and BMv2 and the hardware refuse it too), unless
/// `--ignore-table-sizes` lifts the limit, which the hardware target cannot do.
#[test]
fn table_sizes_hold_and_a_flag_lifts_them_on_the_software_target_only() {
    let dir = scratch("sizes");
    let program = std::fs::read_to_string(fixtures().join("fwd.p4")).expect("fwd.p4");
    assert!(program.contains("actions = {"), "fwd.p4 has a table");
    let small = program.replacen("actions = {", "size = 2;\n        actions = {", 1);
    std::fs::write(dir.join("small.p4"), small).unwrap();
    let adds: String = (1..=3).map(|k| format!("add fwd std.ingress_port:{k} send(port:2, src:0x0a)\n")).collect();
    std::fs::write(dir.join("three.stf"), adds).unwrap();
    let (p, stf) = (dir.join("small.p4"), dir.join("three.stf"));
    let (p, stf) = (p.to_str().unwrap(), stf.to_str().unwrap());

    // The refused line is bad input, named by file and line (exit 2).
    let out = p4forge(&["test", p, stf]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert_eq!(text(&out.stderr), format!("error: {stf}:3: table FwdIngress.fwd is full: it holds 2 entries (its `size`)\n"));

    let out = p4forge(&["test", "--ignore-table-sizes", p, stf]);
    assert_eq!(out.status.code(), Some(0), "{}{}", text(&out.stdout), text(&out.stderr));

    let out = p4forge(&["test", "--target", "rtl", "--ignore-table-sizes", p, stf]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert_eq!(
        text(&out.stderr),
        "error: --ignore-table-sizes is for the software target (`--target sw`); a hardware table holds the entries it was built for\n"
    );
}

/// An entries file is read as a stream: one larger than the text bound (here 65 MiB, most of it
/// comments, as a full routing table's file is tens of megabytes) is applied; malformed lines are
/// all counted, the first hundred named; a line longer than its bound is refused by number.
#[test]
fn entries_files_are_streamed_with_bounded_lines() {
    let dir = scratch("entries-stream");
    let mut big = String::from("table_add fwd send 1 => 2 0x0a\n");
    let comment = format!("# {}\n", "x".repeat(1022));
    while big.len() <= 65 << 20 {
        big.push_str(&comment);
    }
    big.push_str("table_add fwd send 3 => 2 0x0b\n");
    let entries = dir.join("big.txt");
    std::fs::write(&entries, &big).unwrap();
    // A frame on port 1 (the first entry's) and, a second later, one on port 3 (the last's).
    let (in1, in3) = (dir.join("in1.pcap"), dir.join("in3.pcap"));
    std::fs::write(&in1, [pcap_header(1), pcap_record(0, &frame(2, 1, &[1]))].concat()).unwrap();
    std::fs::write(&in3, [pcap_header(1), pcap_record(1, &frame(2, 3, &[3]))].concat()).unwrap();
    let (e, out) = (entries.to_str().unwrap(), dir.join("out"));
    let (i1, i3) = (format!("1={}", in1.display()), format!("3={}", in3.display()));
    let run = |e: &str| p4forge(&["run", "fwd.p4", "--entries", e, "--in", &i1, "--in", &i3, "--out", out.to_str().unwrap(), "--no-progress"]);
    let done = run(e);
    assert_eq!(done.status.code(), Some(0), "{}", text(&done.stderr));
    // Both entries were applied (the second after 65 MiB): each frame left by port 2, stamped.
    let port2 = std::fs::read(out.join("port2.pcap")).expect("port 2's capture");
    assert_eq!(port2.len(), 24 + 2 * (16 + 15), "two 15-byte frames");
    assert_eq!((port2[24 + 16 + 11], port2[24 + 2 * 16 + 15 + 11]), (0x0a, 0x0b), "source MACs of the two entries");

    let bad: String = (0..150).map(|i| format!("bogus{i} 1\n")).collect();
    std::fs::write(&entries, format!("table_add fwd send 1 => 2 0x0a\n{bad}")).unwrap();
    let refused = run(e);
    assert_eq!(refused.status.code(), Some(2));
    let lines: Vec<String> = text(&refused.stderr).lines().map(str::to_string).collect();
    assert_eq!(lines.len(), 101, "{lines:?}");
    assert_eq!(lines[0], format!("error: {e}:2: unknown or unsupported command `bogus0`"));
    assert_eq!(lines[99], format!("{e}:101: unknown or unsupported command `bogus99`"));
    assert_eq!(lines[100], format!("{e}: and 50 more malformed lines"));

    std::fs::write(&entries, format!("table_add fwd send 1 => 2 0x0a\n{}\n", "1".repeat(2 << 20))).unwrap();
    let long = run(e);
    assert_eq!(long.status.code(), Some(2));
    assert_eq!(text(&long.stderr), format!("error: {e}:2: the line is longer than 1048576 bytes\n"));
}

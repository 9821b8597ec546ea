//! `p4forge rtl-sim` refusals that need no simulator: they come before a model is built.

use std::path::Path;
use std::process::Command;

/// Whether a model can be built here (the tests that need one print why not and pass).
fn verilator() -> bool {
    p4_rtl::sim::models_for_tests()
}

#[test]
fn a_stream_width_the_harness_cannot_drive_is_a_usage_error_and_creates_nothing() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let dir = p4_io::testing::scratch_dir("p4forge-rtl-sim", "width");
    let out = dir.join("out");
    for width in ["64", "1024"] {
        let run = Command::new(env!("CARGO_BIN_EXE_p4forge"))
            .current_dir(&root)
            .args(["rtl-sim", "examples/l2l3/l2l3.p4", "--in", "1=examples/l2l3/traffic/in_port1.pcap"])
            .args(["--out", out.to_str().unwrap(), "--width", width])
            .output()
            .unwrap();
        assert_eq!(run.status.code(), Some(2), "--width {width}");
        assert_eq!(
            String::from_utf8_lossy(&run.stderr),
            format!("error: --width {width}: the simulation harness drives streams of 128 to 512 bits\n")
        );
        assert!(!out.exists(), "nothing is created for a refused width");
    }
}

/// Packets the design cannot take (empty ones, ones longer than its payload FIFO) are inputs the
/// summary counts, by reason, and each reason gets its note: in = out + dropped for a program
/// that sends every packet it keeps to one port.
#[test]
fn packets_the_design_cannot_take_are_counted_by_reason_and_the_summary_adds_up() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    if !verilator() {
        return;
    }
    let dir = p4_io::testing::scratch_dir("p4forge-rtl-sim", "refused");
    // Classic pcap: an empty packet, two 40,000-byte ones (the FIFO holds 32,768 at 512 bits), and one 64-byte frame to a known port.
    let mut pcap = vec![0xd4, 0xc3, 0xb2, 0xa1, 2, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0, 0, 1, 0, 0, 0];
    let frame = |len: usize| -> Vec<u8> { (0..len).map(|i| if i < 12 { 0x02 } else { 0x08 }).collect() };
    for (i, data) in [frame(0), frame(40_000), frame(64), frame(40_000)].iter().enumerate() {
        for word in [i as u32, 0, data.len() as u32, data.len() as u32] {
            pcap.extend_from_slice(&word.to_le_bytes());
        }
        pcap.extend_from_slice(data);
    }
    let input = dir.join("in.pcap");
    std::fs::write(&input, &pcap).unwrap();
    let entries = dir.join("entries.txt");
    std::fs::write(&entries, "table_add fwd send 1 => 2 0x0a\n").unwrap();
    let out = dir.join("out");
    let run = Command::new(env!("CARGO_BIN_EXE_p4forge"))
        .current_dir(&root)
        .args(["rtl-sim", "crates/p4forge/tests/fixtures/fwd.p4", "--entries", entries.to_str().unwrap()])
        .args(["--in", &format!("1={}", input.display()), "--out", out.to_str().unwrap()])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert_eq!(run.status.code(), Some(0), "{}{stdout}", String::from_utf8_lossy(&run.stderr));
    let traffic = stdout.lines().find(|l| l.starts_with("traffic:")).unwrap_or_else(|| panic!("{stdout}"));
    assert!(traffic.starts_with("traffic: 4 packets in (3 not sent to the design), 1 out, 3 dropped,"), "{traffic}");
    let notes: Vec<&str> = stdout.lines().filter(|l| l.starts_with("note:") && l.contains("not sent")).collect();
    assert_eq!(notes.len(), 2, "{stdout}");
    assert_eq!(notes[0], "note: 1 input packets were not sent (the first: an empty packet cannot be sent on AXI4-Stream)");
    assert!(notes[1].starts_with("note: 2 input packets were not sent (the first: a 40000-byte packet is longer than the 32768 bytes"), "{}", notes[1]);
}

/// Cut-through: l2l3 does not read the packet's length, so its parser starts on the first beat
/// and a 1,518-byte packet takes as long to start leaving as a 64-byte one (20 cycles: parser 1,
/// the three lookups 4 on the block-RAM TCAM, statements 4, the two checksums' word sums 2,
/// deparser 1, descriptor queue 2, the
/// merge's two descriptor stages 2, and the window split and the merge's input beat, packer and
/// output register around them); the outputs are the software target's.
#[test]
fn l2l3_latency_does_not_grow_with_packet_size() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    if !verilator() {
        return;
    }
    let dir = p4_io::testing::scratch_dir("p4forge-rtl-sim", "latency");
    let run = Command::new(env!("CARGO_BIN_EXE_p4forge"))
        .current_dir(&root)
        .args(["rtl-sim", "examples/l2l3/l2l3.p4", "--entries", "examples/l2l3/entries.txt"])
        .args(["--in", "1=examples/l2l3/traffic/in_port1.pcap", "--in", "2=examples/l2l3/traffic/in_port2.pcap"])
        .args(["--in", "4=examples/l2l3/traffic/in_port4.pcap", "--json", "--out"])
        .arg(dir.join("out"))
        .output()
        .unwrap();
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    let report: serde_json::Value = serde_json::from_slice(&run.stdout).unwrap();
    let latency = &report["latency_cycles"];
    for size in ["64", "256", "512", "1024", "1518"] {
        assert_eq!(latency[size], 20, "latency at {size} bytes: {latency}");
    }
    assert_eq!(report["pipeline_latency_cycles"], 14);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A parser with anchors is pipelined (`crates/p4forge/tests/fixtures/anchors.p4`: two anchors, a
/// stage register before and after each window move and before each varbit body, 7 cycles): its
/// STF passes on the RTL target, including the resubmitted pass, whose loop flag waits beside the
/// parser's stages.
#[test]
fn anchored_parser_stages_pass_the_stf_on_rtl() {
    if !verilator() {
        return;
    }
    let out = stf_test("crates/p4forge/tests/fixtures/anchors", "rtl");
    assert!(out.contains("PASS: 3 packets sent, 3 received, 3 expected"), "{out}");
}

/// Two runs that build the same model at once, in one fresh model cache: one builds while the
/// other waits for it, and both pass (two builds into one directory used to break each other's
/// link, and the half-built objects failed every build after).
#[test]
fn concurrent_runs_build_one_model_in_turn() {
    if !verilator() {
        return;
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let cache = std::env::temp_dir().join(format!("p4forge-model-race-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&cache);
    let fwd = "crates/p4forge/tests/fixtures/fwd";
    let runs: Vec<_> = (0..2)
        .map(|_| {
            Command::new(env!("CARGO_BIN_EXE_p4forge"))
                .current_dir(&root)
                .env("P4FORGE_RTL_CACHE", &cache)
                .args(["test", &format!("{fwd}.p4"), &format!("{fwd}.stf"), "--target", "rtl"])
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    let outs: Vec<_> = runs.into_iter().map(|c| c.wait_with_output().unwrap()).collect();
    for out in &outs {
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success() && text.contains("PASS"), "{text}{}", String::from_utf8_lossy(&out.stderr));
    }
    // One of them built the model; the other found it built.
    let built = outs.iter().filter(|o| String::from_utf8_lossy(&o.stderr).contains("building the Verilator model")).count();
    assert_eq!(built, 1);
    let _ = std::fs::remove_dir_all(&cache);
}

/// `p4forge test NAME.p4 NAME.stf --target TARGET` from the repository's root; its standard
/// output, which must say the run passed.
fn stf_test(name: &str, target: &str) -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let (p4, stf) = (format!("{name}.p4"), format!("{name}.stf"));
    let run = Command::new(env!("CARGO_BIN_EXE_p4forge")).current_dir(&root).args(["test", &p4, &stf, "--target", target]).output().unwrap();
    let out = String::from_utf8_lossy(&run.stdout).into_owned();
    assert!(run.status.success(), "{name} on {target}: {out}{}", String::from_utf8_lossy(&run.stderr));
    out
}

/// A classic pcap (microsecond timestamps) of `frames`, each `(seconds, microseconds, bytes)`.
fn pcap_at(frames: &[(u32, u32, Vec<u8>)]) -> Vec<u8> {
    let mut pcap = vec![0xd4, 0xc3, 0xb2, 0xa1, 2, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0, 0, 1, 0, 0, 0];
    for (s, us, data) in frames {
        for word in [*s, *us, data.len() as u32, data.len() as u32] {
            pcap.extend_from_slice(&word.to_le_bytes());
        }
        pcap.extend_from_slice(data);
    }
    pcap
}

/// The frames of a pcap (either resolution), without their timestamps.
fn pcap_frames(pcap: &[u8]) -> Vec<Vec<u8>> {
    let mut frames = Vec::new();
    let mut at = 24;
    while at + 16 <= pcap.len() {
        let len = u32::from_le_bytes(pcap[at + 8..at + 12].try_into().unwrap()) as usize;
        frames.push(pcap[at + 16..at + 16 + len].to_vec());
        at += 16 + len;
    }
    frames
}

/// Each packet's arrival time reaches v1model's `ingress_global_timestamp` and
/// `egress_global_timestamp` in microseconds, cut to their 48 bits: `rtl-sim` gives a packet its
/// capture time less the first packet's on `s_axis_ts`, as `run` times packets on the software
/// target (`crates/p4forge/tests/fixtures/timestamps.p4` copies both into a header). Captured at
/// 1.000005 s, 2.5 s and 1,700,000,000.123456 s: 0, 1,499,995 and 1,699,999,999,123,451 us, above
/// 2^48, so 1,699,999,999,123,451 - 6 * 2^48 = 11,150,138,859,515; the second frame is
/// resubmitted once first (its egress field arrives all ones) and keeps its arrival time; the
/// frames are the software target's, byte for byte.
#[test]
fn arrival_times_reach_the_timestamps_in_microseconds() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    if !verilator() {
        return;
    }
    let dir = p4_io::testing::scratch_dir("p4forge-rtl-sim", "timestamps");
    let frame = |i: u8| -> Vec<u8> {
        let mut f = vec![0x02; 6];
        f.extend([0x04; 6]);
        f.extend([0x88, 0xb5]);
        f.extend([0; 6]);
        f.extend([if i == 1 { 0xff } else { 0 }; 6]);
        f.extend([i; 30]);
        f
    };
    let times = [(1, 5, 0u64), (2, 500_000, 1_499_995), (1_700_000_000, 123_456, 11_150_138_859_515)];
    let input = dir.join("in.pcap");
    std::fs::write(&input, pcap_at(&times.iter().enumerate().map(|(i, (s, us, _))| (*s, *us, frame(i as u8))).collect::<Vec<_>>())).unwrap();
    let program = "crates/p4forge/tests/fixtures/timestamps.p4";
    let mut outputs = Vec::new();
    for cmd in ["rtl-sim", "run"] {
        let out = dir.join(cmd);
        let run = Command::new(env!("CARGO_BIN_EXE_p4forge"))
            .current_dir(&root)
            .args([cmd, program, "--in", &format!("0={}", input.display()), "--out", out.to_str().unwrap()])
            .output()
            .unwrap();
        assert!(run.status.success(), "{cmd}: {}", String::from_utf8_lossy(&run.stderr));
        // The resubmitted frame leaves after the next one on the hardware (its second pass waits
        // in the loop FIFO): frames are told apart by their payload byte, the input's index.
        let mut frames = pcap_frames(&std::fs::read(out.join("port1.pcap")).unwrap());
        frames.sort_by_key(|f| f[26]);
        outputs.push(frames);
    }
    let hw = &outputs[0];
    assert_eq!(hw.iter().map(|f| f[26]).collect::<Vec<_>>(), [0, 1, 2]);
    for (f, (_, _, us)) in hw.iter().zip(times) {
        let field = |at: usize| f[at..at + 6].iter().fold(0u64, |v, b| v << 8 | u64::from(*b));
        assert_eq!((field(14), field(20)), (us, us), "ingress and egress timestamps of {f:02x?}");
    }
    assert_eq!(hw, &outputs[1], "the software target's frames");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Timestamps under STF, whose runner gives packets 1 us apart (`wait`: 1 ms), so the expected
/// packets hold exact times, on both targets: `timestamps.stf` (0, 1 and 1,002 us in both fields,
/// the second packet after a resubmit) and `timestamps_copies.stf` (every copy's egress timestamp
/// is its packet's arrival: two multicast replicas at 1,000 us, an ingress-to-egress clone at
/// 1,001 us, an egress-to-egress clone at 1,002 us whose ingress timestamp is 0).
#[test]
fn timestamps_stf_pass_on_both_targets() {
    if !verilator() {
        return;
    }
    for (name, expected) in [("timestamps", "PASS: 3 packets sent, 3 received, 3 expected"), ("timestamps_copies", "PASS: 3 packets sent, 6 received, 6 expected")] {
        for target in ["sw", "rtl"] {
            let out = stf_test(&format!("crates/p4forge/tests/fixtures/{name}"), target);
            assert!(out.contains(expected), "{name} on {target}: {out}");
        }
    }
}

/// {idx, add, old, new} as the fixture's header.
fn packet(idx: u8, add: u32, old: u32, new: u32) -> Vec<u8> {
    let mut p = vec![idx];
    for v in [add, old, new] {
        p.extend(v.to_be_bytes());
    }
    p
}

/// Register reads made a cycle ahead (`fixtures/read_ahead.p4`): packets back to back at one per
/// cycle on the same cell each see what the packet before them wrote, which only the forwarding
/// into the read-ahead register gives (the write lands at the edge the read is taken).
#[test]
fn back_to_back_packets_see_each_others_writes() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let p4 = root.join("crates/p4forge/tests/fixtures/read_ahead.p4");
    let program = p4forge::frontend::compile(&p4, &[]).unwrap().lowered(&p4).unwrap().program;
    let design = p4_rtl::generate(&program, "read_ahead", &p4_rtl::Options::default()).unwrap();
    let ingress = &design.generated.iter().find(|(n, _)| n == "read_ahead_ingress.sv").unwrap().1;
    assert_eq!(ingress.matches(";  // a cell read a cycle ahead").count(), 1, "{ingress}");
    if !verilator() {
        return;
    }
    let mut rtl = p4forge::cmd::rtl::rtl_switch(&p4, &[], &p4_rtl::Options::default()).unwrap();
    // Cell 3 four times in a row, then cells 3 and 5 in turn, then 5 twice.
    let sends: [(u8, u32); 9] = [(3, 1), (3, 2), (3, 3), (3, 4), (5, 100), (3, 10), (5, 200), (5, 1), (5, 2)];
    let mut cells = [0u32; 8];
    let mut want = Vec::new();
    for &(idx, add) in &sends {
        rtl.queue(0, 0, &packet(idx, add, 0, 0)).unwrap();
        let old = cells[idx as usize];
        cells[idx as usize] = old.wrapping_add(add);
        want.push(packet(idx, add, old, cells[idx as usize]));
    }
    let report = rtl.run().unwrap();
    let got: Vec<Vec<u8>> = report.outputs.iter().map(|o| o.data.clone()).collect();
    assert_eq!(got, want);
    assert!(report.outputs.iter().all(|o| o.port == 1));
    // The expected values, written out: cell 3 goes 0, 1, 3, 6, 10, 20; cell 5 0, 100, 300, 301, 303.
    assert_eq!(cells[3], 20);
    assert_eq!(cells[5], 303);
}

/// A counter's cell is kept in two halves whose carry reaches the high half a cycle after the
/// packet (so no stage waits on a 64-bit carry chain): counts that cross 2^32, back to back on one
/// cell, come out whole, and control-plane writes land in both halves.
#[test]
fn counters_carry_across_32_bits_back_to_back() {
    use p4_dataplane::control::ControlPlane;
    if !verilator() {
        return;
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let program = root.join("tests/stf/counters.p4");
    let mut sw = p4forge::cmd::rtl::rtl_switch(&program, &[], &p4_rtl::Options::default()).unwrap();
    sw.counter_write("c", 1, 0xffff_ffff, 0xffff_fffc).unwrap();
    sw.counter_write("c", 2, 0x1_ffff_fffe, 0x2_0000_0000).unwrap();
    sw.counter_write("c", 3, 7, 9).unwrap();
    // (cell, bytes): cell 1 carries both counts on its first packet, cell 2 its packets on its second.
    let packets: [(u8, usize); 6] = [(1, 4), (1, 6), (2, 4), (2, 4), (1, 10), (2, 5)];
    for (idx, len) in packets {
        let mut data = vec![idx, 9];
        data.resize(len, 0xab);
        sw.queue(0, 0, &data).unwrap();
    }
    assert_eq!(sw.run().unwrap().outputs.len(), 6);
    assert_eq!(sw.counter_read("c", 1).unwrap(), (0x1_0000_0002, 0x1_0000_0010));
    assert_eq!(sw.counter_read("c", 2).unwrap(), (0x2_0000_0001, 0x2_0000_000d));
    assert_eq!(sw.counter_read("c", 3).unwrap(), (7, 9));
    // A `packets` counter keeps bytes too, as in the software target and BMv2.
    assert_eq!(sw.counter_read("cp", 1).unwrap(), (3, 20));
}

//! `p4forge rtl-sim` refusals that need no simulator: they come before a model is built.

use std::path::Path;
use std::process::Command;

/// Whether a model can be built here (the tests that need one print why not and pass).
fn verilator() -> bool {
    if p4_io::testing::rtl_skipped() {
        return false;
    }
    match p4_rtl::sim::find_verilator() {
        Ok(_) => true,
        Err(e) => p4_io::testing::tool_missing(&e.to_string()),
    }
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
/// and a 1,518-byte packet takes as long to start leaving as a 64-byte one (18 cycles: parser 1,
/// the three lookups 4 on the block-RAM TCAM, statements 4, deparser 1, descriptor queue 2, the
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
        assert_eq!(latency[size], 18, "latency at {size} bytes: {latency}");
    }
    assert_eq!(report["pipeline_latency_cycles"], 12);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A parser with anchors is pipelined (`crates/p4forge/tests/fixtures/anchors.p4`: two anchors, a
/// stage register before and after each window move, 5 cycles): its STF passes on the RTL target,
/// including the resubmitted pass, whose loop flag waits beside the parser's stages.
#[test]
fn anchored_parser_stages_pass_the_stf_on_rtl() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    if !verilator() {
        return;
    }
    let run = Command::new(env!("CARGO_BIN_EXE_p4forge"))
        .current_dir(&root)
        .args(["test", "crates/p4forge/tests/fixtures/anchors.p4", "crates/p4forge/tests/fixtures/anchors.stf", "--target", "rtl"])
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&run.stdout);
    assert!(run.status.success(), "{out}{}", String::from_utf8_lossy(&run.stderr));
    assert!(out.contains("PASS: 3 packets sent, 3 received, 3 expected"), "{out}");
}

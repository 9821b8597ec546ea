//! The `gen` / `capture` / `phy` command functions end to end, through files.

use p4_phy::capture::read_capture;
mod common;

use common::{capture_args, gen_args};
use p4_phy::cli::{run_capture, run_gen, run_phy, CaptureArgs, GenArgs, PhyArgs, PhyCommand};

#[test]
fn gen_stream_then_capture() {
    let tmp = p4_io::testing::scratch_dir("p4phy-test", "gen-capture");
    let stream = tmp.join("a.bits");
    let txp = tmp.join("a-tx.pcapng");
    let rxp = tmp.join("a-rx.pcapng");
    let mut out = Vec::new();
    let rep = run_gen(
        &GenArgs { idles: Some(36), stream: Some(stream.clone()), pcapng: Some(txp.clone()), ..gen_args() },
        &mut out,
    )
    .unwrap();
    // 256 + 8 + 36 = 300 characters apart = 2475 bits.
    assert_eq!((rep.tx_ipd.min_bits, rep.tx_ipd.max_bits), (2475, 2475));
    let text = String::from_utf8(out).unwrap();
    assert!(text.contains("\"rate_gbps\""));
    let mut out = Vec::new();
    let cap = run_capture(
        &CaptureArgs { out: Some(rxp.clone()), ..capture_args(stream) },
        &mut out,
    )
    .unwrap();
    assert_eq!(cap.frames, 50);
    assert_eq!(cap.ipd.variance_numerator, 0);
    assert_eq!(cap.ipd.min_bits, 2475);
    let tx = read_capture(&txp).unwrap();
    let rx = read_capture(&rxp).unwrap();
    assert_eq!(tx.len(), 50);
    assert_eq!(rx.len(), 50);
    for (a, b) in tx.iter().zip(&rx) {
        assert_eq!(a.data, b.data);
        assert_eq!(a.data.len(), 252);
    }
    // 2475 bits = 240 000 ps exactly.
    assert_eq!(rx[1].ts_ps - rx[0].ts_ps, 240_000);

    // Replay the captured timing: same spacing again.
    let mut out = Vec::new();
    let rep = run_gen(&GenArgs { replay: Some(rxp.clone()), ..gen_args() }, &mut out).unwrap();
    assert_eq!(rep.frames, 50);
    // More frames than the capture has delays for: sent as many as it has, and said so.
    let mut out = Vec::new();
    let more = run_gen(&GenArgs { replay: Some(rxp), count: 80, json: false, ..gen_args() }, &mut out).unwrap();
    assert_eq!(more.frames, 50);
    let text = String::from_utf8(out).unwrap();
    assert!(
        text.starts_with("note: the --replay capture gives 49 delays, so 50 frames are sent, not --count 80\n"),
        "{text}"
    );
    assert_eq!((rep.tx_ipd.min_bits, rep.tx_ipd.max_bits), (2475, 2475));

    // Line bit errors show up in the counters, never as a panic.
    let mut out = Vec::new();
    let hit = run_capture(
        &CaptureArgs { flip_bits: 200, seed: 5, json: true, ..capture_args(tmp.join("a.bits")) },
        &mut out,
    )
    .unwrap();
    let c = hit.counters;
    assert!(hit.frames < 50);
    assert!(c.fcs_errors + c.aborted_frames + c.preamble_errors + c.bad_sync_headers > 0);
}

#[test]
fn gen_rejects_bad_arguments() {
    let mut out = Vec::new();
    let e = run_gen(&GenArgs { size: 20, ..gen_args() }, &mut out).unwrap_err();
    assert_eq!(e.to_string(), "--size 20 is outside 64..=9022");
    let e = run_gen(&GenArgs { rate: Some(12.0), ..gen_args() }, &mut out).unwrap_err();
    assert_eq!(e.to_string(), "--rate 12 must be in (0, 10] Gb/s");
    // 100000 frames 21 ms apart would need 3.3 million blocks each: 2^32 blocks in all is the limit.
    let e = run_gen(&GenArgs { count: 100_000, rate: Some(1e-4), ..gen_args() }, &mut out).unwrap_err();
    assert!(e.to_string().starts_with("the stream would take about "), "{e}");
    let tmp = p4_io::testing::scratch_dir("p4phy-test", "bad-arguments");
    let e = run_capture(
        &CaptureArgs { json: true, ..capture_args(tmp.join("missing.bits")) },
        &mut out,
    )
    .unwrap_err();
    assert!(e.to_string().starts_with("cannot read"), "{e}");
}

#[test]
fn phy_encode_lists_blocks() {
    let mut out = Vec::new();
    run_phy(&PhyArgs { command: PhyCommand::Encode { hex: "ffffffffffff0200000000010800".into(), gap: 16 } }, &mut out)
        .unwrap();
    let text = String::from_utf8(out).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "frame 64 octets with FCS, /S/ at 132 bits (12.800 ns)");
    assert!(lines[4].starts_with("    2  01    0xd555555555555578"), "{}", lines[4]);
    assert!(lines.last().unwrap_or(&"").ends_with("Control"));
    let mut out = Vec::new();
    let e = run_phy(&PhyArgs { command: PhyCommand::Encode { hex: "fz".into(), gap: 16 } }, &mut out).unwrap_err();
    assert_eq!(e.to_string(), "'fz' at offset 0 is not a hex octet");
}

#[test]
fn tshark_reads_picosecond_pcapng_when_installed() {
    // Interoperability check against Wireshark's reader; machines without tshark skip it.
    let Ok(probe) = std::process::Command::new("tshark").arg("--version").output() else {
        eprintln!("tshark not installed: skipping the pcapng interoperability check");
        return;
    };
    if !probe.status.success() {
        eprintln!("tshark not usable: skipping the pcapng interoperability check");
        return;
    }
    let tmp = p4_io::testing::scratch_dir("p4phy-test", "tshark");
    let rxp = tmp.join("t-rx.pcapng");
    let mut out = Vec::new();
    run_gen(&GenArgs { count: 3, idles: Some(36), capture: Some(rxp.clone()), ..gen_args() }, &mut out).unwrap();
    let o = std::process::Command::new("tshark")
        .args(["-r"])
        .arg(&rxp)
        .args(["-T", "fields", "-e", "frame.len", "-e", "eth.type", "-e", "frame.time_delta"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&o.stdout);
    let lines: Vec<&str> = text.lines().collect();
    // 300 characters apart = 240 ns; Wireshark keeps nanoseconds.
    assert_eq!(lines, vec!["252\t0x88b5\t0.000000000", "252\t0x88b5\t0.000000240", "252\t0x88b5\t0.000000240"]);
}

use p4_io::testing::ClosedPipe;

#[test]
fn a_closed_or_full_standard_output_is_an_error_not_a_panic() {
    // println! panicked (exit 101) here; every command now reports the write error instead.
    let closed = "cannot write to standard output: the reading end was closed (broken pipe)";
    let e = run_gen(&GenArgs { count: 3, ..gen_args() }, &mut ClosedPipe).unwrap_err();
    assert_eq!(e.to_string(), closed);
    let encode = PhyArgs { command: PhyCommand::Encode { hex: "00".into(), gap: 16 } };
    assert_eq!(run_phy(&encode, &mut ClosedPipe).unwrap_err().to_string(), closed);
    let tmp = p4_io::testing::scratch_dir("p4phy-test", "closed-stdout");
    let stream = tmp.join("closed.bits");
    run_gen(&GenArgs { count: 3, stream: Some(stream.clone()), ..gen_args() }, &mut Vec::new()).unwrap();
    let capture = capture_args(stream);
    assert_eq!(run_capture(&capture, &mut ClosedPipe).unwrap_err().to_string(), closed);
    let mut full = std::fs::OpenOptions::new().write(true).open("/dev/full").unwrap();
    assert_eq!(
        run_phy(&encode, &mut full).unwrap_err().to_string(),
        "cannot write to standard output: no space left on the device (disk full)"
    );
}

#[test]
fn out_of_range_numbers_name_the_flag_and_the_range() {
    let gen = |a: GenArgs| run_gen(&a, &mut Vec::new()).unwrap_err().to_string();
    // --idles 0 used to become 12 without a word.
    assert_eq!(
        gen(GenArgs { idles: Some(0), ..gen_args() }),
        "--idles 0 is out of range: allowed 12..=100000000 characters (at least --min-gap, which is 12)"
    );
    assert_eq!(gen(GenArgs { count: 0, ..gen_args() }), "--count 0 is out of range: allowed 1..=1000000000 frames");
    assert_eq!(
        gen(GenArgs { min_gap: 0, ..gen_args() }),
        "--min-gap 0 is out of range: allowed 1..=100000000 characters (at least the /T/ character)"
    );
    assert_eq!(gen(GenArgs { bins: 0, ..gen_args() }), "--bins 0 is out of range: allowed 1..=1000");
    assert_eq!(gen(GenArgs { poisson: Some(f64::NAN), ..gen_args() }), "--poisson NaN must be in (0, 10] Gb/s");
    // Fewer idles than the standard are allowed when --min-gap allows them.
    assert!(run_gen(&GenArgs { idles: Some(5), min_gap: 5, ..gen_args() }, &mut Vec::new()).is_ok());
    let phy = |command: PhyCommand| run_phy(&PhyArgs { command }, &mut Vec::new()).unwrap_err().to_string();
    // --size 0 used to become 64.
    assert_eq!(
        phy(PhyCommand::Loopback { count: 10, size: 0, json: false, progress: Default::default() }),
        "--size 0 is out of range: allowed 64..=9022 octets"
    );
    assert_eq!(
        phy(PhyCommand::Loopback { count: 0, size: 64, json: false, progress: Default::default() }),
        "--count 0 is out of range: allowed 1..=1000000000 frames"
    );
    assert_eq!(
        phy(PhyCommand::Encode { hex: "00".into(), gap: 0 }),
        "--gap 0 is out of range: allowed 1..=100000000 characters"
    );
    assert_eq!(
        phy(PhyCommand::Encode { hex: "00".repeat(9019), gap: 12 }),
        "--hex 9019 is out of range: allowed 0..=9018 octets (the frame without FCS)"
    );
    let tmp = p4_io::testing::scratch_dir("p4phy-test", "range");
    let stream = tmp.join("range.bits");
    run_gen(&GenArgs { count: 3, stream: Some(stream.clone()), ..gen_args() }, &mut Vec::new()).unwrap();
    let capture = |flip_bits, bins| {
        let a = CaptureArgs { flip_bits, bins, ..capture_args(stream.clone()) };
        run_capture(&a, &mut Vec::new()).unwrap_err().to_string()
    };
    assert_eq!(capture(0, 0), "--bins 0 is out of range: allowed 1..=1000");
    assert_eq!(capture(u64::MAX, 4), "--flip-bits 18446744073709551615 is out of range: allowed 0..=10000000");
}

#[test]
fn output_paths_are_checked_before_the_work_and_written_whole() {
    // A million frames would take a while to generate: the bad path is reported first.
    let e = run_gen(
        &GenArgs { count: 1_000_000, stream: Some("/nonexistent/dir/s.bits".into()), ..gen_args() },
        &mut Vec::new(),
    )
    .unwrap_err();
    assert_eq!(e.to_string(), "cannot write /nonexistent/dir/s.bits: no such file or directory");
    let tmp = p4_io::testing::scratch_dir("p4phy-test", "outputs");
    let same = tmp.join("same.pcapng");
    let e =
        run_gen(&GenArgs { pcapng: Some(same.clone()), capture: Some(same.clone()), ..gen_args() }, &mut Vec::new())
            .unwrap_err();
    assert_eq!(e.to_string(), format!("--pcapng and --capture name the same file {}", same.display()));
    let stream = tmp.join("whole.bits");
    run_gen(&GenArgs { count: 3, stream: Some(stream.clone()), ..gen_args() }, &mut Vec::new()).unwrap();
    let capture = |out: &str| CaptureArgs { out: Some(out.into()), ..capture_args(stream.clone()) };
    let dir = std::env::temp_dir();
    let e = run_capture(&capture(dir.to_str().unwrap()), &mut Vec::new()).unwrap_err();
    assert_eq!(e.to_string(), format!("cannot write {}: it is a directory", dir.display()));
    let e = run_capture(&capture(stream.to_str().unwrap()), &mut Vec::new()).unwrap_err();
    assert_eq!(e.to_string(), format!("--out {} is also the input file", stream.display()));
    // No temporary file is left beside the outputs.
    let leftovers: Vec<_> = std::fs::read_dir(stream.parent().unwrap())
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().contains("p4forge-tmp"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

#[test]
fn endless_inputs_are_refused_or_streamed_within_their_stated_length() {
    // /dev/zero used to be read until memory ran out.
    let a = capture_args("/dev/zero".into());
    assert_eq!(
        run_capture(&a, &mut Vec::new()).unwrap_err().to_string(),
        "/dev/zero: not a p4-phy bit-stream file: missing P4PHYBIT header"
    );
    let e = run_gen(&GenArgs { replay: Some("/dev/zero".into()), ..gen_args() }, &mut Vec::new()).unwrap_err();
    assert_eq!(
        e.to_string(),
        "cannot read capture file /dev/zero: it is larger than the limit of 256 MiB (an endless input such as /dev/zero?)"
    );
    let tmp = p4_io::testing::scratch_dir("p4phy-test", "endless");
    // An endless FIFO behind a valid header is read up to the header's bit count, a chunk at a
    // time, and the writer is left behind.
    let fifo = tmp.join("endless.fifo");
    let _ = std::fs::remove_file(&fifo);
    assert!(std::process::Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    let writer = {
        let fifo = fifo.clone();
        std::thread::spawn(move || {
            use std::io::Write;
            let mut f = std::fs::OpenOptions::new().write(true).open(&fifo).unwrap();
            let mut header = b"P4PHYBIT".to_vec();
            header.extend_from_slice(&(66u64 * 1_000_000).to_le_bytes());
            f.write_all(&header).unwrap();
            let zeros = vec![0u8; 1 << 16];
            while f.write_all(&zeros).is_ok() {}
        })
    };
    let rep = run_capture(&CaptureArgs { stream: fifo.clone(), ..a }, &mut Vec::new()).unwrap();
    // All-zero bits never lock: every header is invalid and slips the boundary.
    assert_eq!((rep.frames, rep.lock_losses), (0, 0));
    assert!(rep.slips > 900_000, "{}", rep.slips);
    writer.join().unwrap();
}

#[test]
fn streamed_gen_and_capture_agree_with_the_in_memory_path() {
    let tmp = p4_io::testing::scratch_dir("p4phy-test", "agree");
    // gen --stream --capture streams blocks through the receiver; the result must be the same
    // as capturing the written stream file afterwards, and as the whole-stream functions.
    let stream = tmp.join("agree.bits");
    let rx = tmp.join("agree-rx.pcapng");
    let a = GenArgs {
        count: 3000,
        poisson: Some(7.5),
        stream: Some(stream.clone()),
        capture: Some(rx.clone()),
        ..gen_args()
    };
    let rep = run_gen(&a, &mut Vec::new()).unwrap();
    let whole = p4_phy::gen::generate(&p4_phy::gen::GenConfig {
        count: 3000,
        frame_len: 256,
        pattern: p4_phy::gen::GapPattern::Poisson(7.5),
        ..Default::default()
    });
    assert_eq!((rep.frames, rep.blocks), (3000, whole.blocks.len()));
    let bits = p4_phy::capture::read_bitstream(&stream).unwrap();
    assert_eq!(bits, whole.to_bitstream());
    let (cap, _) = p4_phy::gen::receive_bits(&bits, p4_phy::RxConfig::default());
    let in_memory = p4_phy::stats::ipd_stats(&cap.starts(), 4);
    let gen_rx = rep.rx.unwrap();
    assert_eq!(gen_rx.ipd, in_memory);
    assert_eq!(gen_rx.counters, cap.counters);
    let c = capture_args(stream);
    let captured = run_capture(&c, &mut Vec::new()).unwrap();
    assert_eq!(captured.ipd, in_memory);
    assert_eq!(read_capture(&rx).unwrap().len(), 3000);
}

#[test]
fn gen_capture_and_loopback_take_the_common_progress_flags() {
    use clap::Parser;
    #[derive(Parser)]
    enum Top {
        Gen(GenArgs),
        Capture(CaptureArgs),
        Phy(PhyArgs),
    }
    let on = p4_io::progress::ProgressArgs { progress: true, no_progress: false };
    let off = p4_io::progress::ProgressArgs { progress: false, no_progress: true };
    for (flag, want) in [("--progress", on), ("--no-progress", off)] {
        let Top::Gen(g) = Top::try_parse_from(["t", "gen", flag]).unwrap() else { panic!() };
        assert_eq!(g.progress, want);
        let Top::Capture(c) = Top::try_parse_from(["t", "capture", "--stream", "s", flag]).unwrap() else { panic!() };
        assert_eq!(c.progress, want);
        let Top::Phy(p) = Top::try_parse_from(["t", "phy", "loopback", flag]).unwrap() else { panic!() };
        let PhyCommand::Loopback { progress, .. } = p.command else { panic!() };
        assert_eq!(progress, want);
    }
    // A forced bar draws on stderr and does not change the results.
    let rep = run_gen(&GenArgs { progress: on, ..gen_args() }, &mut Vec::new()).unwrap();
    assert_eq!(rep.frames, 50);
}

#[test]
fn negative_rates_get_the_range_error_not_a_parse_error() {
    use clap::Parser;
    #[derive(Parser)]
    struct Top {
        #[command(flatten)]
        gen: GenArgs,
    }
    // clap used to take `-5` for an unknown flag; now the value reaches the range check.
    let gen = Top::try_parse_from(["gen", "--rate", "-5"]).unwrap().gen;
    assert_eq!(run_gen(&gen, &mut Vec::new()).unwrap_err().to_string(), "--rate -5 must be in (0, 10] Gb/s");
}

#[test]
fn a_fifo_or_device_named_as_an_output_is_written_in_place() {
    let tmp = p4_io::testing::scratch_dir("p4phy-test", "fifo-output");
    // Outputs are renamed into place; a device or FIFO must not be replaced by a regular file.
    let fifo = tmp.join("pcap.fifo");
    let _ = std::fs::remove_file(&fifo);
    assert!(std::process::Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::read(&fifo).unwrap())
    };
    run_gen(&GenArgs { count: 5, pcapng: Some(fifo.clone()), ..gen_args() }, &mut Vec::new()).unwrap();
    let bytes = reader.join().unwrap();
    assert_eq!(p4_phy::capture::read_capture_bytes(&bytes).unwrap().len(), 5);
    use std::os::unix::fs::FileTypeExt;
    assert!(std::fs::metadata(&fifo).unwrap().file_type().is_fifo());
    run_gen(&GenArgs { count: 5, stream: Some("/dev/null".into()), ..gen_args() }, &mut Vec::new()).unwrap();
    assert!(std::fs::metadata("/dev/null").unwrap().file_type().is_char_device());
}

#[test]
fn rates_and_replayed_delays_too_slow_for_a_gap_are_refused() {
    // A gap longer than 10^8 characters used to be clamped, so the stream ran at another rate.
    let e = run_gen(&GenArgs { count: 2, rate: Some(1e-6), ..gen_args() }, &mut Vec::new()).unwrap_err();
    assert_eq!(
        e.to_string(),
        "--rate 0.000001 is out of range: allowed 2.640e-5..=10 Gb/s for 256-octet frames (gaps of at most 100000000 characters)"
    );
    let e = run_gen(&GenArgs { count: 2, poisson: Some(1e-5), ..gen_args() }, &mut Vec::new()).unwrap_err();
    assert!(e.to_string().starts_with("--poisson 0.00001 is out of range: allowed 2.640e-5..=10 Gb/s"), "{e}");
    let tmp = p4_io::testing::scratch_dir("p4phy-test", "slow-rates");
    // Two packets five seconds apart cannot be replayed (at most 0.08 s).
    let path = tmp.join("far.pcapng");
    {
        let f = std::fs::File::create(&path).unwrap();
        let mut w = p4_phy::capture::PcapngWriter::new(f, "x", 0).unwrap();
        w.write(p4_phy::BitTime(0), &[0u8; 60]).unwrap();
        // 5 s = 51 562 500 000 bit periods of 97 ps (330 bits per 32 ns).
        w.write(p4_phy::BitTime(51_562_500_000), &[0u8; 60]).unwrap();
        w.finish().unwrap();
    }
    let e = run_gen(&GenArgs { replay: Some(path.clone()), ..gen_args() }, &mut Vec::new()).unwrap_err();
    assert_eq!(
        e.to_string(),
        format!(
            "--replay {}: packets 1 and 2 are 5.000000 s apart; at most 0.080000 s can be replayed",
            path.display()
        )
    );
}

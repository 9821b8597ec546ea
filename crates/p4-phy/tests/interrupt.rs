//! Ctrl-C during gen and capture: the run stops early, the files written are complete (a
//! pcapng of the frames so far; no truncated bit stream), and the report says it is partial.
//! In a test binary of its own, since the SIGINT flag is process-wide.

use p4_phy::capture::read_capture;
mod common;

use common::{capture_args, gen_args};
use p4_phy::cli::{run_capture, run_gen, CaptureArgs, GenArgs};

#[test]
fn ctrl_c_stops_gen_and_capture_with_complete_files_and_a_note() {
    let tmp = p4_io::testing::scratch_dir("p4phy-interrupt", "ctrl-c");
    // Written before the interrupt, to capture afterwards.
    let stream = tmp.join("before.bits");
    let gen = GenArgs { count: 5000, size: 64, json: false, ..gen_args() };
    run_gen(&GenArgs { stream: Some(stream.clone()), ..gen.clone() }, &mut Vec::new()).unwrap();

    p4_io::interrupt::simulate_ctrl_c();
    assert!(p4_io::interrupt::interrupted(), "SIGINT arrived");
    let tx = tmp.join("tx.pcapng");
    let partial_stream = tmp.join("partial.bits");
    let mut out = Vec::new();
    let rep = run_gen(&GenArgs { pcapng: Some(tx.clone()), ..gen.clone() }, &mut out).unwrap();
    // Generation stops at the first check (every 1024 frames); the pcapng holds those frames.
    assert!(rep.interrupted);
    assert_eq!(rep.frames, 1024);
    assert_eq!(read_capture(&tx).unwrap().len(), 1024);
    let text = String::from_utf8(out).unwrap();
    assert!(
        text.starts_with("interrupted: results are partial (1024 of 5000 frames sent; files hold the frames sent)\n"),
        "{text}"
    );
    // A bit stream states its length in its header, which is counted in a first pass: stopped
    // there, nothing is written rather than a file shorter than its header says.
    let e = run_gen(&GenArgs { stream: Some(partial_stream.clone()), ..gen }, &mut Vec::new()).unwrap_err();
    assert_eq!(e.to_string(), "interrupted before any frame was generated; no files were written");
    assert!(!partial_stream.exists());

    let rx = tmp.join("rx.pcapng");
    let mut out = Vec::new();
    let cap = CaptureArgs { out: Some(rx.clone()), ..capture_args(stream) };
    let rep = run_capture(&cap, &mut out).unwrap();
    assert!(rep.interrupted);
    // The entry point prints the same, then returns the error that exits with status 130.
    let e = p4_phy::cli::capture_main(CaptureArgs { out: None, ..cap.clone() }).unwrap_err();
    assert!(e.is::<p4_phy::cli::Interrupted>());
    let text = String::from_utf8(out).unwrap();
    assert!(text.starts_with("interrupted: results are partial (0 of "), "{text}");
    // The capture file is whole: headers and the frames so far (none).
    assert_eq!(read_capture(&rx).unwrap().len(), 0);

    // phy loopback: the feed stops at once; the report says so, then the same error.
    let loopback = p4_phy::cli::PhyArgs {
        command: p4_phy::cli::PhyCommand::Loopback {
            count: 100_000,
            size: 64,
            json: false,
            progress: Default::default(),
        },
    };
    let mut out = Vec::new();
    let e = p4_phy::cli::run_phy(&loopback, &mut out).unwrap_err();
    assert_eq!(e.to_string(), "interrupted by Ctrl-C: the results above are partial");
    assert!(String::from_utf8(out)
        .unwrap()
        .starts_with("interrupted: results are partial (0 of 100000 frames sent)\n"));
}

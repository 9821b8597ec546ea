//! The OP4T architecture on the software target: `t1` is the time a packet arrived and `t2`, written
//! as it leaves where the program asked (`tx_ts`, `ts_pos`), is its transmit time; files in, files
//! out, that is its arrival time (no queueing modelled), so a stamped packet's two stamps are equal
//! and exact. (The hardware target's stamps: `rtl_differential.rs`.)

use std::path::{Path, PathBuf};

use p4_dataplane::control::PacketIo;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().unwrap()
}

/// The SST example with port 1 cross-connected to port 2, port 0 to the host (4), and streams to
/// 10.0.0.1 of interest.
fn sst() -> p4_dataplane::Switch {
    let p4 = root().join("examples/op4t-sst/sst.p4");
    let compiled = p4forge::frontend::compile(&p4, &[]).unwrap().lowered(&p4).unwrap();
    let mut switch = p4_dataplane::Switch::new(std::sync::Arc::new(compiled.program)).unwrap();
    let entries = "add port_map om.src_port:1 forward(port:2)\nadd port_map om.src_port:0 forward(port:4)\nadd ts_streams hdr.ipv4.dst_addr:0x0a000001/32 ts()\n";
    assert!(p4_stf::run_stf(&mut switch, &p4_stf::parse_stf(entries).unwrap()).passed());
    switch
}

/// The first `packet` line of the example's STF file sent on `port`.
fn stf_packet(port: u32) -> Vec<u8> {
    let text = std::fs::read_to_string(root().join("examples/op4t-sst/sst.stf")).unwrap();
    let prefix = format!("packet {port} ");
    let line = text.lines().find(|l| l.starts_with(&prefix)).unwrap();
    let hex: String = line[prefix.len()..].chars().filter(|c| !c.is_whitespace()).collect();
    (0..hex.len()).step_by(2).map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap()).collect()
}

#[test]
fn xconnect_stamps_t2_and_t1_with_the_arrival_time() {
    let mut sw = sst();
    let input = stf_packet(1);
    let arrival_ns = 1_234_567_890_123;
    let out = sw.inject(1, &input, arrival_ns);
    assert_eq!(out.outputs.len(), 1, "{:?}", out.drops);
    let (port, data) = (out.outputs[0].port, &out.outputs[0].data);
    assert_eq!(port, 2);
    assert_eq!(data.len(), input.len() + 16);
    // 1,234,567,890,123 ns = 1,234,567,890 us and 123 ns: (1234567890 << 10) | 123.
    let stamp = ((1_234_567_890u64 << 10) | 123).to_be_bytes();
    assert_eq!(&data[42..50], &stamp, "t2");
    assert_eq!(&data[50..58], &stamp, "t1");
    // Around the stamps the packet is the input, lengths and checksum aside (the STF test checks those).
    assert_eq!(&data[58..], &input[42..]);
}

#[test]
fn to_the_host_only_t1_goes_in_and_nothing_asks_for_t2() {
    let mut sw = sst();
    let input = stf_packet(0);
    let out = sw.inject(0, &input, 5_000);
    assert_eq!(out.outputs.len(), 1);
    let data = &out.outputs[0].data;
    assert_eq!(out.outputs[0].port, 4);
    assert_eq!(data.len(), input.len() + 8);
    assert_eq!(&data[42..50], &((5u64 << 10).to_be_bytes()), "t1: 5 us");
    assert_eq!(&data[50..], &input[42..]);
}

/// The pipeline leaves the stamps to the caller when told to (live ports write t2 as they send).
#[test]
fn a_caller_clock_leaves_t2_to_the_caller() {
    let mut sw = sst();
    sw.set_tx_clock(p4_dataplane::TxClock::Caller);
    let input = stf_packet(1);
    let mut out = p4_dataplane::batch::BatchOut::default();
    sw.process_batch(&[p4_dataplane::batch::PacketIn { port: 1, data: &input, now_ns: 2_000 }], &mut out);
    assert_eq!(out.packets.len(), 1);
    assert_eq!(out.packets[0].tx_stamp_at, Some(42));
    assert_eq!(&out.data(&out.packets[0])[42..50], &[0; 8], "t2's room, not yet written");
    out.write_tx_stamps(|_| 3_000);
    assert_eq!(&out.data(&out.packets[0])[42..50], &((3u64 << 10).to_be_bytes()));
    assert_eq!(&out.data(&out.packets[0])[50..58], &((2u64 << 10).to_be_bytes()));
}

/// The reference interpreter (independent of the dataplane's executors) gives the same bytes, the
/// stamps included, for every packet of the example's STF file.
#[test]
fn the_reference_interpreter_agrees_stamps_included() {
    let p4 = root().join("examples/op4t-sst/sst.p4");
    let compiled = p4forge::frontend::compile(&p4, &[]).unwrap().lowered(&p4).unwrap();
    let program = std::sync::Arc::new(compiled.program);
    let mut reference = p4_reference::Interpreter::new(program).unwrap();
    let mut sw = sst();
    let entries = "add port_map om.src_port:1 forward(port:2)\nadd port_map om.src_port:0 forward(port:4)\nadd port_map om.src_port:4 forward(port:3)\nadd ts_streams hdr.ipv4.dst_addr:0x0a000001/32 ts()\n";
    assert!(p4_stf::run_stf(&mut reference, &p4_stf::parse_stf(entries).unwrap()).passed());
    assert!(p4_stf::run_stf(&mut sw, &p4_stf::parse_stf("add port_map om.src_port:4 forward(port:3)\n").unwrap()).passed());
    let text = std::fs::read_to_string(root().join("examples/op4t-sst/sst.stf")).unwrap();
    let mut compared = 0;
    for (i, line) in text.lines().filter(|l| l.starts_with("packet ")).enumerate() {
        let mut words = line.split_whitespace().skip(1);
        let port: u32 = words.next().unwrap().parse().unwrap();
        let hex: String = words.collect();
        let data: Vec<u8> = (0..hex.len()).step_by(2).map(|j| u8::from_str_radix(&hex[j..j + 2], 16).unwrap()).collect();
        let now_ns = 1_000_000 * (i as u64 + 1) + 7;
        let (a, b) = (sw.inject(port, &data, now_ns), reference.inject(port, &data, now_ns));
        let a: Vec<(u32, Vec<u8>)> = a.outputs.into_iter().map(|o| (o.port, o.data)).collect();
        let b: Vec<(u32, Vec<u8>)> = b.outputs.into_iter().map(|o| (o.port, o.data)).collect();
        assert_eq!(a, b, "packet {i} on port {port}");
        compared += a.len();
    }
    assert_eq!(compared, 9);
}

/// `p4forge op4t knee`: OP4T-SST in front of a host forwarder taking B packets every T µs, in
/// simulated time. Below B/T a packet waits for the next poll, T/2 on average; above it the
/// backlog grows, and the knee the fit finds from the stamps alone is B/T within 5% for each of
/// three forwarders.
#[test]
fn the_batching_knee_is_b_over_t() {
    let root = root();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_p4forge"))
        .current_dir(&root)
        .args(["op4t", "knee", "examples/op4t-sst/sst.p4", "--entries", "examples/op4t-sst/entries.txt"])
        .args(["--forwarder", "32/80", "--forwarder", "64/100", "--forwarder", "16/20"])
        .args(["--rates", "50000:1600000:50000", "--seconds", "0.01", "--json"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let forwarders = report["forwarders"].as_array().unwrap();
    assert_eq!(forwarders.len(), 3);
    for (f, (capacity, interval_ns)) in forwarders.iter().zip([(400_000.0, 80_000.0), (640_000.0, 100_000.0), (800_000.0, 20_000.0)]) {
        assert_eq!(f["capacity_pps"].as_f64(), Some(capacity));
        let error = f["knee_error_percent"].as_f64().unwrap_or_else(|| panic!("no knee: {f}"));
        assert!(error.abs() < 5.0, "knee {error}% off B/T: {f}");
        // Flat below the knee: a wait of about T/2, plus the batch's time on the wire.
        let flat = f["fit"]["flat"].as_f64().unwrap();
        assert!(flat > interval_ns / 2.0 && flat < interval_ns / 2.0 * 1.25, "flat {flat} ns: {f}");
        for p in f["points"].as_array().unwrap() {
            assert_eq!(p["packets_back"], p["packets_in"], "{p}");
            assert_eq!(p["ring_drops"], 0);
        }
    }
}

/// Bad arguments are refused before anything runs, each with its reason.
#[test]
fn op4t_experiments_refuse_bad_arguments() {
    let root = root();
    let run = |args: &[&str]| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_p4forge")).current_dir(&root).args(args).output().unwrap();
        (out.status.code(), String::from_utf8_lossy(&out.stderr).to_string())
    };
    let sst = "examples/op4t-sst/sst.p4";
    let (code, err) = run(&["op4t", "knee", sst, "--forwarder", "32"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("expected BATCH/INTERVAL_US"), "{err}");
    let (code, err) = run(&["op4t", "knee", sst, "--forwarder", "32/80", "--size", "40"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("--size 40: frames of 58 to 1518 bytes"), "{err}");
    let (code, err) = run(&["op4t", "knee", sst, "--forwarder", "32/80", "--in-port", "4"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("--in-port 4: a network port, 0 to 3"), "{err}");
    let (code, err) = run(&["op4t", "knee", sst, "--forwarder", "32/80", "--rates", "9,3"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("must ascend"), "{err}");
    let (code, err) = run(&["op4t", "baseline", sst, "--rates", "0"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("--rates 0: percent of line rate"), "{err}");
    let (code, err) = run(&["op4t", "knee", "examples/l2l3/l2l3.p4", "--forwarder", "32/80"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("this needs an OP4T program (#include <op4t.p4>, package OP4T), not a v1model one"), "{err}");
    // Entries that send the stream elsewhere: the experiment says where it went.
    let (code, err) = run(&["op4t", "knee", sst, "--forwarder", "32/80"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("a stream packet from port 0 was dropped"), "{err}");
}

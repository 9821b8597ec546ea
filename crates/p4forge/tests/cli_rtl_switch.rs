//! `p4forge rtl-sim --arch switch --gen`: the whole switch (RX queues, arbiter, pipeline, shared
//! buffer, TX queues) in Verilator on traffic generated per port.
//!
//! - `bad_gen_values_are_usage_errors`: every malformed or impossible `--gen` is exit 2 with a
//!   message naming it, before any model is built.
//! - `six_port_switch_runs`, one test because both runs share one model (two tests building it at
//!   once would race in its directory):
//!   - the seed's Fig. 3.6 experiment, short: 6 ports, 64-byte frames at 10 Gb/s into each, xor-1
//!     forwarding: no drops and every port at 10.0 Gb/s;
//!   - only ports 0 and 3 send, at 5 and 2.5 Gb/s: only ports 1 and 2 transmit, at those rates.
//! - `a_congested_output_does_not_hold_back_the_others`: no head-of-line blocking. Ports 0 and 2
//!   send 1518-byte frames at line rate to port 1 (twice what it carries), port 3 to port 2: port 1
//!   sends at 10.0 Gb/s and drops the excess in the buffer (counted on port 1), while port 2 carries
//!   every frame of port 3 at 10.0 Gb/s with no drop.
//! - `the_macs_arrival_times_reach_the_ingress_timestamp`: inside a 2-port switch, each frame's
//!   `ingress_global_timestamp` and `egress_global_timestamp` are the whole microseconds of the
//!   time its port's `p4f_timestamp` stamped at its first beat.
//! - `the_host_port_sends_and_receives_through_its_rings`: a 2-port switch with `--host-port` (the
//!   host is port 2): three packets from the host leave port 1 byte for byte, three into port 0
//!   reach the host (`porthost.pcap`), and the report's `ports.host` counts them; with `--gen`,
//!   200 64-byte frames at line rate into port 0 all reach the host.
//! - `host_port_usage_errors`: `--in host=` without `--host-port`, `--host-port` without
//!   `--arch switch`, and a port the switch does not have are exit 2.
//! - `traffic_units_are_part_of_the_switch`: `rtl --traffic` puts a `p4f_port_traffic` into each
//!   port (manifest, files, the generator's stream into the timestamp unit); `--traffic` without a
//!   wrapper is exit 2.
//! - `the_on_chip_generator_sends_and_the_capturer_counts`: with altered copies of `p4f_pkt_gen`
//!   (twice the period) and `p4f_pkt_cap` (20 more bytes per frame), `--gen`'s rate and bytes
//!   change accordingly: the traffic and its counts are the hardware's, not the harness's.
//!
//! Every `--gen` run sends from the on-chip generators (`rtl-sim` builds the model with
//! `--traffic`) and reads the counts from the capturers.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn p4forge(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_p4forge")).current_dir(root()).args(args).output().unwrap()
}

const XOR1: &str = "examples/switch/xor1.p4";

/// Whether the RTL tests can run here (Verilator present and not skipped on purpose).
fn rtl_available() -> bool {
    if p4_io::testing::rtl_skipped() {
        return false;
    }
    if let Err(e) = p4_rtl::sim::find_verilator() {
        return p4_io::testing::tool_missing(&e.to_string());
    }
    true
}

#[test]
fn bad_gen_values_are_usage_errors() {
    let switch = ["--arch", "switch", "--ports", "6"];
    for (gen, arch, message) in [
        ("0=64", &switch[..], "must be written PORT=SIZE@RATE"),
        ("0:64@10", &switch[..], "must be written PORT=SIZE@RATE"),
        ("x=64@10", &switch[..], "`x` in `x=64@10` is not a port number"),
        ("0=big@10", &switch[..], "`big` in `0=big@10` is not a frame size in bytes"),
        ("0=10@10", &switch[..], "a generated frame has at least 19 bytes"),
        ("0=64@fast", &switch[..], "`fast` in `0=64@fast` is not a rate in Gb/s"),
        ("0=64@0", &switch[..], "RATE is Gb/s on the wire, above 0 and at most 10"),
        ("0=64@12.5", &switch[..], "RATE is Gb/s on the wire, above 0 and at most 10"),
        ("6=64@10", &switch[..], "--gen 6=64@10: the switch has ports 0 to 5"),
        ("0=40000@10", &switch[..], "--gen 0=40000@10: a frame of 40000 bytes is longer than the 32768 bytes"),
        ("0=64@10", &[][..], "--gen drives the ports of a switch: add --arch switch --ports N"),
    ] {
        let mut args = vec!["rtl-sim", XOR1, "--gen", gen];
        args.extend_from_slice(arch);
        let run = p4forge(&args);
        let stderr = String::from_utf8_lossy(&run.stderr);
        assert_eq!(run.status.code(), Some(2), "--gen {gen}: {stderr}");
        assert!(stderr.contains(message), "--gen {gen}: want `{message}` in:\n{stderr}");
    }
    // One generator per port, and a bounded run.
    let run = p4forge(&["rtl-sim", XOR1, "--arch", "switch", "--gen", "1=64@10", "--gen", "1=128@5"]);
    assert_eq!(run.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&run.stderr).contains("--gen 1=128@5: port 1 already has a generator"));
    let run = p4forge(&["rtl-sim", XOR1, "--arch", "switch", "--gen", "1=64@10", "--packets", "0"]);
    assert_eq!(run.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&run.stderr).contains("--packets 0: from 1 to 1000000 frames per port"));
    // --gen and pcap inputs do not mix.
    let run = p4forge(&["rtl-sim", XOR1, "--arch", "switch", "--gen", "1=64@10", "--in", "1=x.pcap"]);
    assert_eq!(run.status.code(), Some(2));
}

/// Runs `rtl-sim --json` on xor1.p4 and returns the report.
fn gen_run(ports: &str, gens: &[&str], packets: &str) -> serde_json::Value {
    gen_run_of(XOR1, ports, gens, packets)
}

fn gen_run_of(program: &str, ports: &str, gens: &[&str], packets: &str) -> serde_json::Value {
    let mut args = vec!["rtl-sim", program, "--arch", "switch", "--ports", ports, "--packets", packets, "--json"];
    for g in gens {
        args.extend_from_slice(&["--gen", g]);
    }
    let run = p4forge(&args);
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    serde_json::from_slice(&run.stdout).unwrap()
}

#[test]
fn six_port_switch_runs() {
    if !rtl_available() {
        return;
    }
    six_ports_at_line_rate_forward_everything();
    frames_leave_on_ingress_xor_1();
}

fn six_ports_at_line_rate_forward_everything() {
    let gens: Vec<String> = (0..6).map(|p| format!("{p}=64@10")).collect();
    let gens: Vec<&str> = gens.iter().map(String::as_str).collect();
    let report = gen_run("6", &gens, "300");
    assert_eq!(report["top"], "xor1_switch");
    let ports = report["ports"].as_object().unwrap_or_else(|| panic!("no ports: {report}"));
    assert_eq!(ports.len(), 6, "{report}");
    for p in 0..6 {
        let r = &ports[&p.to_string()];
        assert_eq!(r["packets_in"], 300, "port {p}: {r}");
        assert_eq!(r["packets_out"], 300, "port {p}: {r}");
        assert_eq!(r["drops"], 0, "port {p}: {r}");
        // 300 frames of 64 bytes (84 on the wire) back to back at 10 Gb/s: 10.0 to 0.01.
        assert_eq!(r["gbps_out"].as_f64(), Some(10.0), "port {p}: {r}");
    }
    assert_eq!(report["gbps_out_total"].as_f64(), Some(60.0), "{report}");
    assert_eq!(report["traffic"]["drops"], 0, "{report}");
}

fn frames_leave_on_ingress_xor_1() {
    // Half the line rate into port 0 and a quarter into port 3: out of 1 and 2 at those rates.
    let report = gen_run("6", &["0=256@5", "3=1024@2.5"], "50");
    let ports = report["ports"].as_object().unwrap_or_else(|| panic!("no ports: {report}"));
    let out: Vec<u64> = (0..6).map(|p| ports[&p.to_string()]["packets_out"].as_u64().unwrap()).collect();
    let ins: Vec<u64> = (0..6).map(|p| ports[&p.to_string()]["packets_in"].as_u64().unwrap()).collect();
    assert_eq!(ins, [50, 0, 0, 50, 0, 0], "{report}");
    assert_eq!(out, [0, 50, 50, 0, 0, 0], "{report}");
    let gbps = |p: u32| ports[&p.to_string()]["gbps_out"].as_f64().unwrap();
    assert!((gbps(1) - 5.0).abs() <= 0.02, "port 1 at {}", gbps(1));
    assert!((gbps(2) - 2.5).abs() <= 0.02, "port 2 at {}", gbps(2));
    assert!(ports["0"]["gbps_out"].is_null(), "{report}");
}

#[test]
fn a_congested_output_does_not_hold_back_the_others() {
    if !rtl_available() {
        return;
    }
    let report = gen_run_of(
        "crates/p4forge/tests/fixtures/incast.p4",
        "4",
        &["0=1518@10", "2=1518@10", "3=1518@10"],
        "300",
    );
    let ports = report["ports"].as_object().unwrap_or_else(|| panic!("no ports: {report}"));
    let field = |p: &str, k: &str| ports[p][k].as_u64().unwrap_or_else(|| panic!("port {p} {k}: {report}"));
    // Port 2: every frame of port 3, at line rate, none lost.
    assert_eq!(field("2", "packets_out"), 300, "{report}");
    assert_eq!(field("2", "drops"), 0, "{report}");
    assert_eq!(ports["2"]["gbps_out"].as_f64(), Some(10.0), "{report}");
    // Port 1: busy at line rate the whole time; what it cannot carry is dropped in the buffer and
    // counted on port 1; nothing is lost at the RX side.
    assert_eq!(ports["1"]["gbps_out"].as_f64(), Some(10.0), "{report}");
    assert!(field("1", "buffer_drops") > 0, "{report}");
    assert_eq!(field("1", "packets_out") + field("1", "buffer_drops"), 600, "{report}");
    for p in ["0", "2", "3"] {
        assert_eq!(field(p, "rx_drops"), 0, "port {p}: {report}");
    }
}

/// The switch's RX timestamp units give the pipeline each packet's arrival time: four 1,230-byte
/// frames back to back on port 0 (1 us apart on a 10 Gb/s wire: 1,250 bytes with preamble and
/// gap) leave port 1 with both timestamps (`crates/p4forge/tests/fixtures/timestamps.p4`) equal
/// to the microseconds of the time the harness reports for their first beat (`J` lines), and
/// those are 0, 1, 2 and 3 us into the run, the frames' starts 1,000 ns apart to the MAC clock's
/// 6.4 ns.
#[test]
fn the_macs_arrival_times_reach_the_ingress_timestamp() {
    if !rtl_available() {
        return;
    }
    let opts = p4_rtl::Options { arch: p4_rtl::wrapper::Arch::Switch, ports: 2, ..Default::default() };
    let program = root().join("crates/p4forge/tests/fixtures/timestamps.p4");
    let mut switch = p4forge::cmd::rtl::wrapped_switch(&program, &[], &opts).unwrap();
    for i in 0..4u8 {
        let mut frame = vec![0x02; 6];
        frame.extend([0x04; 6]);
        frame.extend([0x88, 0xb5]);
        frame.extend([0; 12]);
        frame.resize(1230, i);
        switch.queue(0, 0, &frame).unwrap();
    }
    let report = switch.run().unwrap().clone();
    assert_eq!(report.outputs.len(), 4, "{report:?}");
    let mut arrivals = report.arrivals.clone();
    arrivals.sort();
    let ns = |t: u64| (t >> p4_rtl::TIME_NS_BITS) * 1000 + (t & 1023);
    let us: Vec<u64> = arrivals.iter().map(|(_, t)| t >> p4_rtl::TIME_NS_BITS).collect();
    assert_eq!(us, [0, 1, 2, 3], "arrival times {arrivals:x?}");
    // Back to back at line rate: frame k starts k wire times (1,250 bytes: 1,000 ns) after the
    // first, at the first MAC clock edge (6.4 ns) from then.
    for (k, (_, t)) in arrivals.iter().enumerate() {
        let after = ns(*t) - ns(arrivals[0].1);
        assert!((k as u64 * 1000..k as u64 * 1000 + 7).contains(&after), "frame {k} starts {after} ns after the first");
    }
    for (o, (i, _)) in report.outputs.iter().zip(&arrivals) {
        assert_eq!((o.port, o.data[26]), (1, *i as u8), "outputs in order");
        let field = |at: usize| o.data[at..at + 6].iter().fold(0u64, |v, b| v << 8 | u64::from(*b));
        assert_eq!((field(14), field(20)), (us[*i], us[*i]), "frame {i}: ingress and egress timestamps");
    }
}

/// A pcap (microsecond timestamps, Ethernet) of `packets`, 1 ms apart.
fn write_pcap(path: &Path, packets: &[Vec<u8>]) {
    let mut b = Vec::new();
    for v in [0xa1b2_c3d4u32] {
        b.extend(v.to_le_bytes());
    }
    b.extend(2u16.to_le_bytes());
    b.extend(4u16.to_le_bytes());
    for v in [0u32, 0, 65535, 1] {
        b.extend(v.to_le_bytes());
    }
    for (i, p) in packets.iter().enumerate() {
        for v in [1u32, 1000 * i as u32, p.len() as u32, p.len() as u32] {
            b.extend(v.to_le_bytes());
        }
        b.extend(p);
    }
    std::fs::write(path, b).unwrap();
}

/// The packets of a pcap `write_pcap` or `rtl-sim` wrote.
fn read_pcap(path: &Path) -> Vec<Vec<u8>> {
    let d = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let word = |at: usize| u32::from_le_bytes(d[at..at + 4].try_into().unwrap()) as usize;
    let mut at = 24;
    let mut packets = Vec::new();
    while at + 16 <= d.len() {
        let len = word(at + 8);
        packets.push(d[at + 16..at + 16 + len].to_vec());
        at += 16 + len;
    }
    packets
}

/// A frame of `size` bytes: an Ethernet header naming `tag` and `n`, then a pattern of both.
fn tagged_frame(tag: u8, n: u8, size: usize) -> Vec<u8> {
    let mut f = vec![0x02, 0, 0, 0, 0, tag, 0x02, 0, 0, 0, 0, n, 0x88, 0xb5];
    f.extend((0..size - 14).map(|i| (i as u8).wrapping_mul(7) ^ tag ^ n));
    f
}

#[test]
fn the_host_port_sends_and_receives_through_its_rings() {
    if !rtl_available() {
        return;
    }
    let dir = std::env::temp_dir().join(format!("p4forge-host-port-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    // Shorter and longer than a beat (64 bytes), and over several of the buffer's 256-byte pages.
    let from_host: Vec<Vec<u8>> = [64, 300, 1500].iter().enumerate().map(|(i, &n)| tagged_frame(0xaa, i as u8, n)).collect();
    let from_port0: Vec<Vec<u8>> = [60, 129, 777].iter().enumerate().map(|(i, &n)| tagged_frame(0xbb, i as u8, n)).collect();
    write_pcap(&dir.join("host.pcap"), &from_host);
    write_pcap(&dir.join("p0.pcap"), &from_port0);
    let out = dir.join("out");
    let host_in = format!("host={}", dir.join("host.pcap").display());
    let port0_in = format!("0={}", dir.join("p0.pcap").display());
    let run = p4forge(&[
        "rtl-sim",
        "crates/p4forge/tests/fixtures/host_port.p4",
        "--arch",
        "switch",
        "--ports",
        "2",
        "--host-port",
        "--in",
        &host_in,
        "--in",
        &port0_in,
        "--out",
        out.to_str().unwrap(),
        "--json",
    ]);
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    let report: serde_json::Value = serde_json::from_slice(&run.stdout).unwrap();
    assert_eq!(report["top"], "host_port_switch", "{report}");
    assert_eq!(report["host_port"], 2, "{report}");
    // Byte for byte: the host's packets out of port 1, port 0's into the host.
    assert_eq!(read_pcap(&out.join("port1.pcap")), from_host);
    assert_eq!(read_pcap(&out.join("porthost.pcap")), from_port0);
    assert!(!out.join("port0.pcap").exists() && !out.join("port2.pcap").exists());
    let ports = report["ports"].as_object().unwrap_or_else(|| panic!("no ports: {report}"));
    let keys: Vec<&str> = ports.keys().map(String::as_str).collect();
    assert_eq!(keys, ["0", "1", "host"], "{report}");
    let counts = |p: &str| ["packets_in", "packets_out", "drops"].map(|k| ports[p][k].as_u64().unwrap_or_else(|| panic!("{p} {k}: {report}")));
    assert_eq!(counts("host"), [3, 3, 0], "{report}");
    assert_eq!(counts("0"), [3, 0, 0], "{report}");
    assert_eq!(counts("1"), [0, 3, 0], "{report}");
    assert!(ports["host"]["gbps_out"].is_null(), "{report}");
    assert_eq!(report["traffic"]["packets_in"], 6, "{report}");
    assert_eq!(report["traffic"]["packets_out"], 6, "{report}");
    assert_eq!(report["traffic"]["drops"], 0, "{report}");
    let _ = std::fs::remove_dir_all(&dir);
    // Generated traffic into port 0 at line rate (the same model): 64-byte frames, every one
    // reaches the host, none dropped anywhere.
    let run = p4forge(&[
        "rtl-sim",
        "crates/p4forge/tests/fixtures/host_port.p4",
        "--arch",
        "switch",
        "--ports",
        "2",
        "--host-port",
        "--gen",
        "0=64@10",
        "--packets",
        "200",
        "--json",
    ]);
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    let report: serde_json::Value = serde_json::from_slice(&run.stdout).unwrap();
    let ports = report["ports"].as_object().unwrap_or_else(|| panic!("no ports: {report}"));
    let counts = |p: &str| ["packets_in", "packets_out", "drops"].map(|k| ports[p][k].as_u64().unwrap_or_else(|| panic!("{p} {k}: {report}")));
    assert_eq!(counts("0"), [200, 0, 0], "{report}");
    assert_eq!(counts("host"), [0, 200, 0], "{report}");
    assert_eq!(report["traffic"]["drops"], 0, "{report}");
}

/// Four DMA queue pairs behind the host port (`--host-queues 4 --host-queue-at 0`): each packet
/// to the host lands in the RX ring its first two bits name (later beats' bytes play no part), in
/// order, byte for byte; the host's packets from all four TX rings leave by port 1, each ring's in
/// its order.
#[test]
fn each_host_queue_pair_takes_the_packets_that_name_it() {
    if !rtl_available() {
        return;
    }
    let opts = p4_rtl::Options {
        arch: p4_rtl::wrapper::Arch::Switch,
        ports: 2,
        host_port: true,
        host_queues: p4_rtl::wrapper::HostQueues { count: 4, at_bit: 0 },
        ..Default::default()
    };
    let program = root().join("crates/p4forge/tests/fixtures/host_port.p4");
    let mut sw = p4forge::cmd::rtl::wrapped_switch(&program, &[], &opts).unwrap();
    // Port 0's frames: the first byte's top two bits are the queue; a second beat (byte 64 on)
    // starting with another queue's bits.
    let mut to_host: Vec<Vec<Vec<u8>>> = vec![Vec::new(); 4];
    for i in 0..24u8 {
        let q = (i * 7 + i / 5) % 4;
        let mut f = tagged_frame(0xbb, i, [60, 64, 65, 200, 700][usize::from(i) % 5]);
        f[0] = q << 6 | 0x02;
        if f.len() > 64 {
            f[64] = (3 - q) << 6;
        }
        sw.queue(0, 0, &f).unwrap();
        to_host[usize::from(q)].push(f);
    }
    let mut from_host: Vec<Vec<Vec<u8>>> = vec![Vec::new(); 4];
    for i in 0..20u8 {
        let q = u32::from(i % 4);
        let f = tagged_frame(0xa0 | q as u8, i, [64, 100, 1500, 61][usize::from(i) % 4]);
        sw.queue_host(q, &f).unwrap();
        from_host[q as usize].push(f);
    }
    assert!(sw.queue_host(4, &tagged_frame(0, 0, 64)).unwrap_err().contains("4 DMA queue pair(s)"));
    let report = sw.run().unwrap().clone();
    for q in 0..4u32 {
        let got: Vec<Vec<u8>> = report.outputs.iter().filter(|o| o.port == 2 && o.queue == q).map(|o| o.data.clone()).collect();
        assert_eq!(got, to_host[q as usize], "RX ring {q}");
        let out1: Vec<Vec<u8>> = report.outputs.iter().filter(|o| o.port == 1 && o.data[5] == 0xa0 | q as u8).map(|o| o.data.clone()).collect();
        assert_eq!(out1, from_host[q as usize], "TX ring {q}");
    }
    assert_eq!(report.outputs.len(), 44);
    assert!(to_host.iter().all(|r| !r.is_empty()));
}

#[test]
fn host_port_usage_errors() {
    let program = "crates/p4forge/tests/fixtures/host_port.p4";
    for (args, message) in [
        (&["--arch", "switch", "--ports", "2", "--in", "host=h.pcap"][..], "--in host=h.pcap: the host port needs --arch switch --host-port"),
        (&["--arch", "bump", "--host-port", "--in", "0=h.pcap"][..], "--host-port goes with --arch switch"),
        (&["--host-port", "--in", "0=h.pcap"][..], "--host-port goes with --arch switch"),
        (&["--arch", "switch", "--ports", "2", "--host-port", "--in", "2=h.pcap"][..], "--in 2=h.pcap: the switch has ports 0 to 1 and host"),
        (&["--arch", "switch", "--host-queues", "4", "--in", "0=h.pcap"][..], "--host-queues and --host-queue-at go with --host-port"),
        (&["--arch", "switch", "--host-port", "--host-queues", "3", "--in", "0=h.pcap"][..], "--host-queues 3: 1, 2, 4, 8 or 16"),
        (&["--arch", "switch", "--host-port", "--host-queues", "4", "--host-queue-at", "7", "--in", "0=h.pcap"][..], "--host-queue-at 7: a 2-bit queue number from there crosses a byte boundary"),
        (&["--arch", "switch", "--host-port", "--host-queues", "2", "--host-queue-at", "512", "--in", "0=h.pcap"][..], "--host-queue-at 512: beyond the first 512-bit beat"),
    ] {
        let mut all = vec!["rtl-sim", program, "--out", "target/host-port-usage"];
        all.extend_from_slice(args);
        let run = p4forge(&all);
        let stderr = String::from_utf8_lossy(&run.stderr);
        assert_eq!(run.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(message), "{args:?}: want `{message}` in:\n{stderr}");
    }
}

/// `--traffic` puts a `p4f_port_traffic` (generator and capturer) into every port of the wrapper,
/// its generator's stream in front of the port's timestamp unit, and describes it in the
/// manifest; without it the wrapper has none, and without a wrapper it is a usage error.
#[test]
fn traffic_units_are_part_of_the_switch() {
    let dir = std::env::temp_dir().join(format!("p4forge-traffic-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    for (traffic, sub) in [(true, "with"), (false, "without")] {
        let out = dir.join(sub);
        let out_s = out.display().to_string();
        let mut args = vec!["rtl", XOR1, "--arch", "switch", "--ports", "2", "--out", &out_s];
        if traffic {
            args.push("--traffic");
        }
        let run = p4forge(&args);
        assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
        let manifest: serde_json::Value = serde_json::from_slice(&std::fs::read(out.join("manifest.json")).unwrap()).unwrap();
        let wrapper = std::fs::read_to_string(out.join("xor1_switch.sv")).unwrap();
        let files: Vec<&str> = manifest["files"].as_array().unwrap().iter().map(|f| f.as_str().unwrap()).collect();
        let units = ["hw/p4f_pkt_gen.sv", "hw/p4f_pkt_cap.sv", "hw/p4f_port_traffic.sv"];
        if traffic {
            assert_eq!(manifest["ports"]["traffic"]["module"], "p4f_port_traffic", "{manifest}");
            for f in units {
                assert!(files.contains(&f), "{f} not in {files:?}");
            }
            assert!(wrapper.contains("p4f_port_traffic #("), "no traffic unit in the wrapper");
            // The timestamp unit's RX input is the traffic mux's output.
            assert!(wrapper.contains(".s_rx_axis_tdata(tr_rx_tdata[i*DATA_W +: DATA_W])"), "the generator does not feed the timestamp unit");
            assert!(wrapper.contains("input  wire logic [PORTS-1:0]          gen_start,"), "no gen_start port");
        } else {
            assert!(manifest["ports"].get("traffic").is_none(), "{manifest}");
            assert!(!files.iter().any(|f| units.contains(f)), "{files:?}");
            assert!(!wrapper.contains("p4f_port_traffic"));
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    let run = p4forge(&["rtl", XOR1, "--traffic", "--out", "target/traffic-usage"]);
    assert_eq!(run.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&run.stderr).contains("--traffic goes with --arch switch or --arch bump"));
}

/// `rtl-sim --gen` sends from the on-chip generators and counts with the capturers: on a model
/// built from altered copies of the hardware modules (`P4FORGE_HW_DIR`) — a generator that waits
/// twice its period between frames, a capturer that counts 20 bytes more per frame — port 0's
/// 64-byte frames at 10 Gb/s leave port 1 at half the rate with 84 counted bytes each:
/// (84 + 20) * 8 bits per 134.4 ns, 6.19 Gb/s, where the MAC models would have read 10.0.
#[test]
fn the_on_chip_generator_sends_and_the_capturer_counts() {
    if !rtl_available() {
        return;
    }
    let dir = std::env::temp_dir().join(format!("p4forge-traffic-hw-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let hw = dir.join("hw");
    std::fs::create_dir_all(&hw).unwrap();
    for e in std::fs::read_dir(root().join("hw/rtl")).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "sv") {
            std::fs::copy(&p, hw.join(p.file_name().unwrap())).unwrap();
        }
    }
    let alter = |file: &str, from: &str, to: &str| {
        let path = hw.join(file);
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(text.matches(from).count(), 1, "{file}: `{from}`");
        std::fs::write(&path, text.replace(from, to)).unwrap();
    };
    alter("p4f_pkt_gen.sv", "per_m1_reg   <= $signed({2'b00, period}) - ONE;", "per_m1_reg   <= ($signed({2'b00, period}) <<< 1) - ONE;");
    alter(
        "p4f_pkt_cap.sv",
        "assign seen_bytes = {seen_hi_reg + HI_W'(seen_c_reg), seen_lo_reg};",
        "assign seen_bytes = {seen_hi_reg + HI_W'(seen_c_reg), seen_lo_reg} + 64'(seen_pkts) * 64'd20;",
    );
    let run = Command::new(env!("CARGO_BIN_EXE_p4forge"))
        .current_dir(root())
        .env("P4FORGE_HW_DIR", &hw)
        .env("P4FORGE_RTL_CACHE", dir.join("cache"))
        .args(["rtl-sim", XOR1, "--arch", "switch", "--ports", "2", "--gen", "0=64@10", "--packets", "100", "--json"])
        .output()
        .unwrap();
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    let report: serde_json::Value = serde_json::from_slice(&run.stdout).unwrap();
    let ports = &report["ports"];
    assert_eq!(ports["0"]["packets_in"], 100, "{report}");
    assert_eq!(ports["1"]["packets_out"], 100, "{report}");
    assert_eq!(report["traffic"]["drops"], 0, "{report}");
    let gbps = ports["1"]["gbps_out"].as_f64().unwrap_or_else(|| panic!("{report}"));
    assert!((gbps - 6.19).abs() <= 0.02, "port 1 at {gbps} Gb/s, want 6.19: {report}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The OP4T shell (`--arch op4t`): 4 network ports at line rate with 64-byte frames, port_map
/// sending each to its neighbour (ingress xor 1), and the packet processors swapped 30 µs into
/// the run: every frame comes out, none is dropped, the decoupler counts one swap and no stray
/// beat, and the second processor (loaded with the same entries) carries the rest.
#[test]
fn the_op4t_shell_swaps_its_processors_under_line_rate_traffic() {
    let sst = "examples/op4t-sst/sst.p4";
    let run = p4forge(&["rtl-sim", XOR1, "--arch", "switch", "--gen", "0=64@10", "--swap-at", "100"]);
    assert_eq!(run.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&run.stderr).contains("--swap-at: swapping needs two packet processors (--arch op4t)"), "{}", String::from_utf8_lossy(&run.stderr));
    let run = p4forge(&["rtl", sst, "--arch", "op4t", "--ports", "8", "--out", "/nonexistent"]);
    assert_eq!(run.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&run.stderr).contains("--ports 8: the OP4T shell has 4 network ports and the host port"));
    if !rtl_available() {
        return;
    }
    let entries = "examples/op4t-sst/neighbours.txt";
    let mut args = vec!["rtl-sim", sst, "--arch", "op4t", "--entries", entries, "--packets", "1000", "--swap-at", "30000", "--json"];
    for g in ["0=64@10", "1=64@10", "2=64@10", "3=64@10"] {
        args.extend_from_slice(&["--gen", g]);
    }
    let run = p4forge(&args);
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    let report: serde_json::Value = serde_json::from_slice(&run.stdout).unwrap();
    assert_eq!(report["top"], "sst_op4t");
    for p in 0..4 {
        let r = &report["ports"][&p.to_string()];
        assert_eq!((r["packets_in"].as_u64(), r["packets_out"].as_u64(), r["drops"].as_u64()), (Some(1000), Some(1000), Some(0)), "port {p}: {report}");
    }
    let pp = &report["processors"];
    assert_eq!((pp["swaps"].as_u64(), pp["stray_beats"].as_u64(), pp["active"].as_u64()), (Some(1), Some(0), Some(1)), "{report}");
    assert!(pp["drain_cycles"].as_u64().is_some_and(|c| c > 0 && c < 100), "{report}");
}

/// OP4T-SST in processor 0 and another program with its own table in processor 1: under line-rate
/// 64-byte traffic on the four network ports the shell swaps to processor 1 and back, and every
/// frame out is what the program then in place makes on the software target: none lost,
/// corrupted, repeated or out of order, each port's frames changing program twice. Without the
/// second program's entries it drops what it has; the frames it had are counted as its, not lost.
#[test]
fn the_op4t_shell_swaps_to_another_program_and_back_under_line_rate_traffic() {
    let sst = "examples/op4t-sst/sst.p4";
    let other = "examples/op4t-sst/mark.p4";
    let run = p4forge(&["rtl-sim", sst, "--arch", "op4t", "--gen", "0=64@10", "--second-entries", "x.txt"]);
    assert_eq!(run.status.code(), Some(2), "--second-entries without --second");
    if !rtl_available() {
        return;
    }
    // Each port's frames to its neighbour (0 <-> 1, 2 <-> 3) in both programs.
    let (sst_entries, other_entries) = ("examples/op4t-sst/neighbours.txt", "examples/op4t-sst/mark-entries.txt");
    let run = p4forge(&["op4t", "swap", sst, "--entries", sst_entries, "--second", other, "--second-entries", other_entries, "--quick-build", "--json"]);
    assert!(run.status.success(), "{}{}", String::from_utf8_lossy(&run.stdout), String::from_utf8_lossy(&run.stderr));
    let report: serde_json::Value = serde_json::from_slice(&run.stdout).unwrap();
    assert_eq!(report["swaps_at_ns"], serde_json::json!([22400, 44800]), "{report}");
    let counts = ["frames_in", "frames_out", "lost", "corrupted", "duplicated", "out_of_order", "queue_drops"].map(|k| report[k].as_u64());
    assert_eq!(counts, [Some(4000), Some(4000), Some(0), Some(0), Some(0), Some(0), Some(0)], "{report}");
    let pp = &report["processors"];
    assert_eq!((pp["swaps"].as_u64(), pp["stray_beats"].as_u64(), pp["active"].as_u64()), (Some(2), Some(0), Some(0)), "{report}");
    for p in 0..4 {
        let r = &report["ports"][&p.to_string()];
        let (first, second) = (r["by_first"].as_u64().unwrap(), r["by_second"].as_u64().unwrap());
        assert_eq!((first + second, r["program_changes"].as_u64()), (1000, Some(2)), "port {p}: {report}");
        // The second program had the middle third of the run.
        assert!((300..=370).contains(&second), "port {p}: {report}");
    }
    assert_eq!(report["clean"], true);
    // Without its entries the second program drops every frame it has: nothing lost by the swap.
    let run = p4forge(&["op4t", "swap", sst, "--entries", sst_entries, "--second", other, "--packets", "300", "--quick-build", "--json"]);
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    let report: serde_json::Value = serde_json::from_slice(&run.stdout).unwrap();
    assert_eq!((report["frames_out"].as_u64(), report["lost"].as_u64(), report["clean"].as_bool()), (Some(800), Some(0), Some(true)), "{report}");
    assert_eq!(report["ports"]["0"]["by_second"].as_u64(), Some(100), "{report}");
}

#[test]
fn vdps_on_the_rtl_switch_forward_at_line_rate_as_the_software_target_does() {
    let vdp = "examples/vdp/vdp.p4";
    for (bad, why) in [(&["--vdps", "1025"][..], "1 to 1024"), (&["--sizes", "63"][..], "64 to 1518"), (&["--packets", "1"][..], "2 to")] {
        let run = p4forge(&[&["vdp", "throughput", vdp][..], bad].concat());
        assert_eq!(run.status.code(), Some(2), "{bad:?}");
        assert!(String::from_utf8_lossy(&run.stderr).contains(why), "{}", String::from_utf8_lossy(&run.stderr));
    }
    if !rtl_available() {
        return;
    }
    let run = p4forge(&["vdp", "throughput", vdp, "--vdps", "4,8", "--sizes", "64,300", "--packets", "40", "--quick-build", "--json"]);
    assert!(run.status.success(), "{}{}", String::from_utf8_lossy(&run.stdout), String::from_utf8_lossy(&run.stderr));
    let report: serde_json::Value = serde_json::from_slice(&run.stdout).unwrap();
    let tenants: Vec<_> = report["tenants"].as_array().unwrap().iter().map(|t| (t["vdps"].as_u64(), t["map_entries"].as_u64(), t["action_entries"].as_u64())).collect();
    assert_eq!(tenants, vec![(Some(4), Some(4), Some(8)), (Some(8), Some(8), Some(16))], "{report}");
    let points = report["points"].as_array().unwrap();
    assert_eq!(points.len(), 4);
    for p in points {
        let counts = ["frames_in", "frames_out", "lost", "wrong", "trials"].map(|k| p[k].as_u64());
        assert_eq!(counts, [Some(160), Some(160), Some(0), Some(0), Some(1)], "{p}");
        assert_eq!(p["zero_loss_percent"].as_f64(), Some(100.0), "{p}");
        // Four ports at 10 Gb/s, first frame out to last: within 3 % of line rate.
        let (got, line) = (p["packets_per_cycle"].as_f64().unwrap(), p["line_rate_packets_per_cycle"].as_f64().unwrap());
        assert!((got / line - 1.0).abs() < 0.03, "{p}");
    }
    assert_eq!(report["zero_loss_at_line_rate"], true);
}

#[test]
fn a_vdp_moves_to_the_software_path_and_back_under_line_rate_traffic_losing_nothing() {
    let vdp = "examples/vdp/vdp.p4";
    let run = p4forge(&["vdp", "migrate", vdp, "--vdps", "4", "--vdp", "5"]);
    assert_eq!(run.status.code(), Some(2), "no VDP 5 of 4");
    assert!(String::from_utf8_lossy(&run.stderr).contains("1 to 4"), "{}", String::from_utf8_lossy(&run.stderr));
    if !rtl_available() {
        return;
    }
    // VDP 2 alone on port 1: 1,000 frames, a third of the way in (22.4 us) its table writes go out
    // (about 4 us each), two thirds in (44.8 us) the writes that bring it back.
    let run = p4forge(&["vdp", "migrate", vdp, "--vdps", "4", "--vdp", "2", "--packets", "1000", "--quick-build", "--json"]);
    assert!(run.status.success(), "{}{}", String::from_utf8_lossy(&run.stdout), String::from_utf8_lossy(&run.stderr));
    let r: serde_json::Value = serde_json::from_slice(&run.stdout).unwrap();
    let counts = |f: &serde_json::Value| ["frames_in", "frames_out", "lost", "wrong"].map(|k| f[k].as_u64());
    assert_eq!(counts(&r["others"]), [Some(3000), Some(3000), Some(0), Some(0)], "{r}");
    assert_eq!(counts(&r["moved"]), [Some(1000), Some(1000), Some(0), Some(0)], "{r}");
    assert_eq!((r["to_software_at_ns"].as_u64(), r["back_at_ns"].as_u64(), r["host_unclaimed"].as_u64()), (Some(22400), Some(44800), Some(0)), "{r}");
    // Both paths carried some: the software path from when the catch-all landed until it went.
    let by_software = r["by_software"].as_u64().unwrap();
    assert!((250..=650).contains(&by_software), "{r}");
    assert_eq!(r["by_hardware"].as_u64().unwrap() + by_software, 1000);
    // VDP 2's slow path is DMA channel 2: every frame to the host in that queue pair's RX ring,
    // taken 32 at a time.
    assert_eq!(r["host_rx_by_channel"], serde_json::json!([0, 0, by_software, 0]), "{r}");
    assert_eq!(r["host_polls"].as_u64(), Some(by_software.div_ceil(32)), "{r}");
    assert_eq!(r["clean"], true);
}

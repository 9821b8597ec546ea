//! The differential suite of the hardware target: the software dataplane is the golden model, and
//! the generated SystemVerilog (in Verilator) must produce the same packets.
//!
//! - `stf_programs_match_on_rtl`: every STF test of the project (examples and `tests/stf`) whose
//!   program the generator accepts runs on the RTL target and must pass exactly as on the software
//!   target; a program outside the hardware subset must be refused with a located message; an STF
//!   control-plane command the hardware target has no state for (a register write, a counter read)
//!   is a clear refusal, listed, not a pass.
//! - `random_traffic_matches_on_rtl`: each example with its entries file, plus random table entries,
//!   gets random and mutated packets (seeded) on both targets; every output packet, its port and the
//!   order per port must be identical. `P4FORGE_DIFF_PACKETS` sets the packets per example (default
//!   2,000 in `make test`; the documented long run uses 100,000) and `P4FORGE_DIFF_SEED` the seed.
//!
//! Models are built once per design into `target/rtl-models` and reused. Without Verilator the tests
//! print why and pass (`make test` installs it first).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use num_bigint::BigUint;
use p4_dataplane::control::{ActionArgs, ControlPlane, KeyValue, Keys, PacketIo};
use p4forge::cmd::entries::Entries;
use p4forge::frontend;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().unwrap()
}

/// Points the model cache at the target directory (the same for every test of this binary) and
/// says whether Verilator is there.
fn setup() -> bool {
    let cache = std::env::var_os("CARGO_TARGET_DIR").map(PathBuf::from).unwrap_or_else(|| root().join("target")).join("rtl-models");
    // SAFETY: set before any thread of this test binary reads the environment for it; every test
    // sets the same value.
    unsafe { std::env::set_var("P4FORGE_RTL_CACHE", cache) };
    std::env::set_current_dir(root()).unwrap();
    if p4_io::testing::rtl_skipped() {
        return false;
    }
    match p4_rtl::sim::find_verilator() {
        Ok(_) => true,
        Err(e) => p4_io::testing::tool_missing(&e.to_string()),
    }
}

/// Only one test of this binary builds and runs models at a time (two cores; one cache).
static MODELS: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn stf_pairs() -> Vec<(PathBuf, PathBuf)> {
    let mut out = Vec::new();
    for dir in ["examples", "tests/stf", "tests/stf-psa"] {
        let mut stack = vec![root().join(dir)];
        while let Some(d) = stack.pop() {
            for e in std::fs::read_dir(&d).unwrap().flatten() {
                let p = e.path();
                if p.is_dir() {
                    stack.push(p);
                } else if p.extension().is_some_and(|x| x == "stf") && p.with_extension("p4").is_file() {
                    out.push((p.with_extension("p4"), p));
                }
            }
        }
    }
    out.sort();
    out
}

fn software(p4: &Path) -> p4_dataplane::Switch {
    let compiled = frontend::compile(p4, &[]).unwrap().lowered(p4).unwrap();
    p4_dataplane::Switch::new(std::sync::Arc::new(compiled.program)).unwrap()
}

#[test]
fn stf_programs_match_on_rtl() {
    if !setup() {
        return;
    }
    let _lock = MODELS.lock().unwrap_or_else(|e| e.into_inner());
    let (mut accepted, mut passed, mut refused_cmd, mut rejected) = (0, 0, Vec::new(), Vec::new());
    let mut failures = Vec::new();
    let pairs = stf_pairs();
    for (p4, stf) in &pairs {
        let name = stf.strip_prefix(root()).unwrap().display().to_string();
        let commands = p4_stf::parse_stf(&std::fs::read_to_string(stf).unwrap()).unwrap();
        let sw_report = p4_stf::run_stf(&mut software(p4), &commands);
        let mut rtl = match p4forge::cmd::rtl::rtl_switch(p4, &[], &p4_rtl::Options::default()) {
            Ok(s) => s,
            Err(e) => {
                let text = format!("{e:?}");
                // A refusal names the construct and where it is (file:line:col).
                let located = text.contains(&format!("{}:", p4.file_name().unwrap().to_string_lossy()));
                if !text.contains("outside the hardware subset") || !located {
                    failures.push(format!("{name}: not a located refusal: {text}"));
                }
                rejected.push(name);
                continue;
            }
        };
        accepted += 1;
        let report = p4_stf::run_stf(&mut rtl, &commands);
        let cmd_refusal = report.stopped_at.is_some() && report.failures.iter().any(|f| f.to_string().contains("hardware target"));
        if report.passed() && sw_report.passed() {
            passed += 1;
            println!("PASS {name}");
        } else if cmd_refusal {
            println!("REFUSED-COMMAND {name}: {}", report.failures[0]);
            refused_cmd.push(name);
        } else {
            failures.push(format!("{name}: software {}, rtl {}: {:?}", sw_report.passed(), report.passed(), report.failures));
        }
    }
    println!(
        "rtl: {} STF pairs; {accepted} accepted by the generator, {passed} pass identically, {} stop at a refused command, {} rejected at compile time",
        pairs.len(),
        refused_cmd.len(),
        rejected.len()
    );
    println!("rejected: {rejected:?}");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // Exactly which programs the hardware target takes: a program newly refused fails here as
    // surely as one that fails on it.
    let mut subset = vec![format!("{passed} of {} STF programs pass on the hardware target", pairs.len())];
    subset.extend(refused_cmd.iter().map(|name| format!("stops at a command the hardware target refuses: {name}")));
    subset.extend(rejected.iter().map(|name| format!("outside the hardware subset: {name}")));
    p4_io::testing::check_golden(&root().join("crates/p4forge/tests/golden/rtl_subset.txt"), &(subset.join("\n") + "\n"), "the hardware target's subset");
}

/// The same STF tests inside the whole switch (`--arch switch --ports 8`: RX queues in the MACs'
/// clocks, the arbiter, the pipeline, the shared buffer, TX queues), driven through its per-port
/// MACs, pass as on the software target: forwarding and routing (l2l3, LPM), multicast, clones,
/// truncation, table entries rewritten between packets (on the block-RAM TCAM, through the
/// register file's hold), and PSA's two pipelines (unicast and drop; counters in both, read
/// through each pipeline's half of the register map).
#[test]
fn stf_programs_match_inside_the_switch() {
    if !setup() {
        return;
    }
    let _lock = MODELS.lock().unwrap_or_else(|e| e.into_inner());
    let opts = p4_rtl::Options { arch: p4_rtl::wrapper::Arch::Switch, ports: 8, ..Default::default() };
    let mut failures = Vec::new();
    for stf in [
        "examples/l2l3/l2l3.stf",
        "tests/stf/multicast.stf",
        "tests/stf/clone.stf",
        "tests/stf/control_plane_updates.stf",
        "tests/stf/truncate.stf",
        "tests/stf-psa/psa_unicast.stf",
        "tests/stf-psa/psa_counters.stf",
        "examples/op4t-sst/sst.stf",
    ] {
        let stf = root().join(stf);
        let p4 = stf.with_extension("p4");
        let commands = p4_stf::parse_stf(&std::fs::read_to_string(&stf).unwrap()).unwrap();
        assert!(p4_stf::run_stf(&mut software(&p4), &commands).passed(), "{}: software", stf.display());
        let mut switch = p4forge::cmd::rtl::wrapped_switch(&p4, &[], &opts).unwrap();
        let report = p4_stf::run_stf(&mut switch, &commands);
        if report.passed() {
            println!("PASS {} inside the switch", stf.display());
        } else {
            failures.push(format!("{}: {:?}", stf.display(), report.failures));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// `p4forge op4t baseline` on a few points (the sweep itself is a documented command): the NIC's
/// t2 - t1 for the Xconnect path of the SST example in the 8-port switch, each point's packets all
/// back, the idle latency that of the switch test above's model, and the seed's bounds kept.
#[test]
fn op4t_baseline_stays_within_a_cycle_across_rates() {
    if !setup() {
        return;
    }
    let _lock = MODELS.lock().unwrap_or_else(|e| e.into_inner());
    let options = p4forge::cmd::op4t::baseline::BaselineOptions {
        setup: p4forge::cmd::op4t::Setup {
            program: root().join("examples/op4t-sst/sst.p4"),
            includes: Vec::new(),
            entries: Some(root().join("examples/op4t-sst/entries.txt")),
            in_port: 1,
            out_port: 2,
            dst: std::net::Ipv4Addr::new(10, 0, 0, 1),
            progress: false,
        },
        sizes: vec![64, 1518],
        rates: vec![50.0, 100.0],
        packets: 20,
        rtl: p4_rtl::Options { arch: p4_rtl::wrapper::Arch::Switch, ports: 8, ..Default::default() },
        speed: p4_rtl::sim::CxxSpeed::QuickBuild,
    };
    let report = p4forge::cmd::op4t::baseline::baseline(&options).unwrap();
    println!("{}", report.render());
    assert_eq!(report.points.len(), 4);
    assert!(report.points.iter().all(|p| p.packets_in == 20 && p.packets_out == 20), "{}", report.render());
    // The size dependence of store and forward: an idle switch holds a 64-byte frame 160 ns and a
    // 1518-byte one 544 ns (cycle-exact, so the same on every run).
    let min = |size| report.points.iter().filter(|p| p.size == size).map(|p| p.min_ns).fold(f64::INFINITY, f64::min);
    assert_eq!((min(64), min(1518)), (160.0, 544.0), "{}", report.render());
    assert!(report.within_seed_bounds, "{}", report.render());
}

/// OP4T inside the switch: t1 is the time the packet's first beat reached its port's timestamp
/// unit and t2, written by the TX side's unit where the program asked, the time it left; both in
/// the time format, so t2 - t1 is the switch's latency for the packet (the Xconnect baseline).
#[test]
fn op4t_stamps_t1_and_t2_inside_the_switch() {
    if !setup() {
        return;
    }
    let _lock = MODELS.lock().unwrap_or_else(|e| e.into_inner());
    let p4 = root().join("examples/op4t-sst/sst.p4");
    let opts = p4_rtl::Options { arch: p4_rtl::wrapper::Arch::Switch, ports: 8, ..Default::default() };
    let mut switch = p4forge::cmd::rtl::wrapped_switch(&p4, &[], &opts).unwrap();
    let entries = "add port_map om.src_port:1 forward(port:2)\nadd ts_streams hdr.ipv4.dst_addr:0x0a000001/32 ts()\n";
    assert!(p4_stf::run_stf(&mut switch, &p4_stf::parse_stf(entries).unwrap()).passed());
    let text = std::fs::read_to_string(root().join("examples/op4t-sst/sst.stf")).unwrap();
    let line = text.lines().find(|l| l.starts_with("packet 1 ")).unwrap();
    let hex: String = line["packet 1 ".len()..].chars().filter(|c| !c.is_whitespace()).collect();
    let input: Vec<u8> = (0..hex.len()).step_by(2).map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap()).collect();
    let mut latencies = Vec::new();
    for _ in 0..3 {
        let out = switch.inject(1, &input, 0);
        assert_eq!(out.outputs.len(), 1, "{:?}", out.drops);
        let data = &out.outputs[0].data;
        assert_eq!((out.outputs[0].port, data.len()), (2, input.len() + 16));
        let t2 = u64::from_be_bytes(data[42..50].try_into().unwrap());
        let t1 = u64::from_be_bytes(data[50..58].try_into().unwrap());
        assert!(t1 > 0 && t2 > t1, "t1 {t1:#x}, t2 {t2:#x}");
        latencies.push(p4_ir::time::nanoseconds(t2) - p4_ir::time::nanoseconds(t1));
    }
    println!("op4t xconnect inside the switch: t2 - t1 = {latencies:?} ns");
    // Through the RX queue, the pipeline and the TX queue of an idle switch: the same each time,
    // and well under a microsecond for a 58-byte packet.
    assert!(latencies.iter().all(|&l| l == latencies[0] && l > 0 && l < 1_000), "{latencies:?}");
    // Paced (`rtl-sim --paced`): packets queued for 0, 20 and 21 us after the run's start arrive
    // then, not back to back, and are stamped so.
    switch.set_paced(true).unwrap();
    for at_ns in [0, 20_000, 21_000] {
        switch.queue(1, at_ns, &input).unwrap();
    }
    let report = switch.run().unwrap().clone();
    switch.set_paced(false).unwrap();
    let arrivals: Vec<u64> = report.arrivals.iter().map(|&(_, t)| p4_ir::time::nanoseconds(t)).collect();
    assert_eq!(arrivals.len(), 3);
    // Each at its time, give or take the MAC's clock edges (6.4 ns) and the first beat's way in.
    for (arrival, at_ns) in arrivals.iter().zip([0, 20_000, 21_000]) {
        assert!((at_ns..at_ns + 20).contains(arrival), "{arrivals:?}");
    }
    for out in &report.outputs {
        let t2 = u64::from_be_bytes(out.data[42..50].try_into().unwrap());
        let t1 = u64::from_be_bytes(out.data[50..58].try_into().unwrap());
        // The same latency but for where the arrival falls between the clocks' edges (under one
        // MAC cycle, 6.4 ns).
        let latency = p4_ir::time::nanoseconds(t2) - p4_ir::time::nanoseconds(t1);
        assert!(latency.abs_diff(latencies[0]) < 7, "{latency} ns against {} ns", latencies[0]);
    }
}

use p4_io::testing::Rng;

/// `width` random bits.
trait Bits {
    fn bits(&mut self, width: u32) -> BigUint;
}
impl Bits for Rng {
    fn bits(&mut self, width: u32) -> BigUint {
        let mut v = BigUint::from(0u8);
        for _ in 0..width.div_ceil(64) {
            v = (v << 64u32) | BigUint::from(self.next());
        }
        v & ((BigUint::from(1u8) << width) - 1u8)
    }
}

/// Adds up to `per_table` random entries to every table of `program` on both targets; an entry one
/// target refuses is taken out of the other, so both keep the same set.
fn random_entries(program: &p4_ir::Program, rng: &mut Rng, per_table: usize, sw: &mut dyn ControlPlane, rtl: &mut dyn ControlPlane) -> usize {
    let layouts = p4_ir::layout::Layouts::of(program);
    let mut added = 0;
    for (t, table) in program.tables.iter().enumerate() {
        let key = &layouts.keys[t];
        if key.fields.is_empty() || (table.entries_const && !table.entries.is_empty()) {
            continue;
        }
        let actions: Vec<&p4_ir::TableAction> = table.actions.iter().filter(|a| !a.default_only).collect();
        if actions.is_empty() {
            continue;
        }
        for _ in 0..per_table {
            let keys: Vec<KeyValue> = key
                .fields
                .iter()
                .map(|f| match f.match_kind {
                    p4_ir::MatchKind::Lpm => {
                        let len = rng.below(u64::from(f.width) + 1) as u32;
                        let v = rng.bits(f.width);
                        let mask = ((BigUint::from(1u8) << len) - 1u8) << (f.width - len);
                        KeyValue::Prefix(v & mask, len)
                    }
                    p4_ir::MatchKind::Ternary => {
                        let m = rng.bits(f.width);
                        KeyValue::Masked(rng.bits(f.width) & &m, m)
                    }
                    _ => KeyValue::Value(rng.bits(f.width)),
                })
                .collect();
            let ta = actions[rng.below(actions.len() as u64) as usize];
            let layout = &layouts.actions[ta.action.index()];
            let args: Vec<BigUint> = layout.params.iter().map(|p| rng.bits(p.width)).collect();
            let priority = key.priority_kind.as_ref().map(|_| rng.below(1000) as i64 + 1);
            let Ok(h) = sw.table_add(&key.name, Keys::Positional(keys.clone()), &layout.name, ActionArgs::Positional(args.clone()), priority) else {
                continue;
            };
            if rtl.table_add(&key.name, Keys::Positional(keys), &layout.name, ActionArgs::Positional(args), priority).is_err() {
                sw.table_delete(&key.name, h).unwrap();
                continue;
            }
            added += 1;
        }
    }
    added
}

/// A random or mutated packet from the example's traffic.
fn packet(rng: &mut Rng, templates: &[(u32, Vec<u8>)]) -> (u32, Vec<u8>) {
    let (port, mut data) = templates[rng.below(templates.len() as u64) as usize].clone();
    match rng.below(8) {
        // As captured.
        0 | 1 => {}
        // A few bytes of the headers changed.
        2..=4 => {
            for _ in 0..=rng.below(4) {
                let i = rng.below(data.len().min(80) as u64) as usize;
                data[i] = rng.next() as u8;
            }
        }
        // Cut short (parser errors).
        5 => data.truncate(1 + rng.below(data.len() as u64) as usize),
        // Longer.
        6 => data.extend((0..rng.below(300)).map(|_| rng.next() as u8)),
        // Anything.
        _ => data = (0..1 + rng.below(200)).map(|_| rng.next() as u8).collect(),
    }
    let port = if rng.below(4) == 0 { rng.below(8) as u32 } else { port };
    (port, data)
}

/// A market-data packet for mdp: 1 to 5 messages (refreshBooks of 0 to 5 entries or opaque
/// bodies of 0 to 130 bytes, the sizes sometimes wrong), for one of the two subscribed channels or
/// another, with a sequence number that mostly grows. The templates alone would be duplicates
/// after their first copy (mdp drops a sequence number it has seen), and their messages are
/// always the same sizes: these reach the varbit fields and every offset the parser and deparser
/// handle at run time.
fn mdp_packet(rng: &mut Rng, seq: &mut u32) -> (u32, Vec<u8>) {
    let mut msgs = Vec::new();
    for _ in 0..1 + rng.below(5) {
        let mut m = Vec::new();
        if rng.below(2) == 0 {
            let n = rng.below(6) as u16;
            let size = if rng.below(16) == 0 { rng.below(300) as u16 } else { 24 + 32 * n };
            m.extend(size.to_be_bytes());
            m.extend([0, 0, 0, 32, 0, 1, 0, 9]); // blockLength, templateID 32, schemaID, version
            m.extend((0..10).map(|_| rng.next() as u8)); // transactTime, matchEventIndicator
            m.extend([0, 0]);
            m.extend(n.to_be_bytes());
            m.extend((0..32 * n as usize).map(|_| rng.next() as u8));
        } else {
            let body = rng.below(131) as u16;
            let size = if rng.below(16) == 0 { rng.below(12) as u16 } else { 10 + body };
            m.extend(size.to_be_bytes());
            m.extend([0, 0, 0, 3 + rng.below(20) as u8, 0, 1, 0, 9]);
            m.extend((0..body).map(|_| rng.next() as u8));
        }
        msgs.extend(m);
    }
    *seq += 1;
    let s = if rng.below(8) == 0 { seq.wrapping_sub(rng.below(4) as u32) } else { *seq };
    let udp_len = if rng.below(16) == 0 { rng.below(400) as u16 } else { (8 + 12 + msgs.len()) as u16 };
    let (dst, port): ([u8; 4], u16) = match rng.below(5) {
        0 | 1 => ([224, 0, 0, 1], 14310),
        2 | 3 => ([224, 0, 0, 2], 14311),
        _ => ([224, 0, 0, 1], 14311),
    };
    let mut p = vec![1, 0, 94, 0, 0, 1, 2, 0, 0, 0, 0, 1, 8, 0];
    p.extend([0x45, 0, 0, 0, 0, 1, 0, 0, 64, 17, 0, 0, 10, 0, 0, 1]);
    p.extend(dst);
    p.extend(14310u16.to_be_bytes());
    p.extend(port.to_be_bytes());
    p.extend(udp_len.to_be_bytes());
    p.extend([0, 0]);
    p.extend(s.to_be_bytes());
    p.extend((0..8).map(|_| rng.next() as u8));
    p.extend(msgs);
    p.extend((0..rng.below(3) * rng.below(40)).map(|_| rng.next() as u8));
    (rng.below(2) as u32, p)
}

#[test]
fn random_traffic_matches_on_rtl() {
    if !setup() {
        return;
    }
    let _lock = MODELS.lock().unwrap_or_else(|e| e.into_inner());
    let count: usize = std::env::var("P4FORGE_DIFF_PACKETS").ok().and_then(|v| v.parse().ok()).unwrap_or(10_000);
    let seed: u64 = std::env::var("P4FORGE_DIFF_SEED").ok().and_then(|v| v.parse().ok()).unwrap_or(1);
    let mut compared = 0;
    for example in ["l2l3", "mdp", "paxos"] {
        let dir = root().join("examples").join(example);
        let p4 = dir.join(format!("{example}.p4"));
        let mut rtl = match p4forge::cmd::rtl::rtl_switch(&p4, &[], &p4_rtl::Options::default()) {
            Ok(s) => s,
            Err(e) => panic!("{example}: the hardware target refuses it: {e:?}"),
        };
        let program = frontend::compile(&p4, &[]).unwrap().lowered(&p4).unwrap().program;
        let mut sw = p4_dataplane::Switch::new(std::sync::Arc::new(program.clone())).unwrap();
        let entries = Entries::read(&dir.join("entries.txt")).unwrap();
        entries.apply(&mut sw).unwrap();
        entries.apply(&mut rtl).unwrap();
        let mut rng = Rng(seed);
        let added = random_entries(&program, &mut rng, 16, &mut sw, &mut rtl);
        let mut templates = Vec::new();
        for e in std::fs::read_dir(dir.join("traffic")).unwrap().flatten() {
            let name = e.file_name().to_string_lossy().to_string();
            let Some(port) = name.strip_prefix("in_port").and_then(|n| n.strip_suffix(".pcap")).and_then(|n| n.parse::<u32>().ok()) else { continue };
            for pkt in p4_stf::capture::read_captured_file(&e.path()).unwrap() {
                templates.push((port, pkt.data));
            }
        }
        assert!(!templates.is_empty(), "{example}: no traffic templates");
        // The software target, packet by packet; the hardware, the same packets back to back.
        let mut want: BTreeMap<u32, Vec<Vec<u8>>> = BTreeMap::new();
        let mut got: BTreeMap<u32, Vec<Vec<u8>>> = BTreeMap::new();
        let mut sent = Vec::new();
        // Above what a template's mutated sequence number is likely to be: a passing one would
        // make every later packet of its channel a duplicate.
        let mut seq = 0xf000_0000;
        for _ in 0..count {
            let (port, data) =
                if example == "mdp" && rng.below(2) == 0 { mdp_packet(&mut rng, &mut seq) } else { packet(&mut rng, &templates) };
            if data.is_empty() {
                continue;
            }
            for o in sw.inject(port, &data, 0).outputs {
                want.entry(o.port).or_default().push(o.data);
            }
            rtl.queue(port, 0, &data).unwrap();
            sent.push((port, data));
            if sent.len() % 1024 == 0 {
                for o in &rtl.run().unwrap().outputs {
                    got.entry(o.port).or_default().push(o.data.clone());
                }
            }
        }
        for o in &rtl.run().unwrap().outputs {
            got.entry(o.port).or_default().push(o.data.clone());
        }
        let outs: usize = want.values().map(Vec::len).sum();
        println!("{example}: {} packets (seed {seed}), {added} random entries, {outs} outputs on the software target", sent.len());
        for port in want.keys().chain(got.keys()) {
            let (w, g) = (want.get(port).map_or(&[][..], Vec::as_slice), got.get(port).map_or(&[][..], Vec::as_slice));
            if let Some(i) = (0..w.len().max(g.len())).find(|&i| w.get(i) != g.get(i)) {
                panic!(
                    "{example}, seed {seed}: port {port}, output #{i} differs (software {} packets, rtl {}):\n  software {:02x?}\n  rtl      {:02x?}",
                    w.len(),
                    g.len(),
                    w.get(i),
                    g.get(i)
                );
            }
        }
        compared += 1;
    }
    println!("compared {compared} examples");
    assert_eq!(compared, 3, "l2l3, mdp and paxos all run on the RTL target");
}

/// `verilator --lint-only -Wall` is clean on the generated code of every example (warnings fail
/// it), and of the STF programs that exercise the traffic manager (multicast, clones, resubmit,
/// recirculate, truncate), the register map (registers, counters), value sets, aggregate
/// comparisons and PSA's two chained pipelines.
#[test]
fn generated_code_is_lint_clean() {
    if !setup() {
        return;
    }
    let verilator = p4_rtl::sim::find_verilator().unwrap();
    let mut linted = Vec::new();
    let programs = [
        "examples/l2l3/l2l3.p4",
        "examples/mdp/mdp.p4",
        "examples/paxos/paxos.p4",
        "tests/stf/multicast.p4",
        "tests/stf/registers.p4",
        "tests/stf/structs_tuples.p4",
        "tests/stf/clone.p4",
        "tests/stf/tm_combinations.p4",
        "tests/stf/recirculate_grow.p4",
        "tests/stf/value_set.p4",
        "tests/stf/truncate.p4",
        "tests/stf/counters.p4",
        "tests/stf-psa/psa_unicast.p4",
        "tests/stf-psa/psa_counters.p4",
    ];
    for program in programs {
        let out = std::env::temp_dir().join(format!("p4forge-lint-{}-{}", std::process::id(), linted.len()));
        let gen = std::process::Command::new(env!("CARGO_BIN_EXE_p4forge")).args(["rtl", program, "--out"]).arg(&out).current_dir(root()).output().unwrap();
        assert!(gen.status.success(), "{program}: p4forge rtl failed: {}", String::from_utf8_lossy(&gen.stderr));
        let manifest: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(out.join("manifest.json")).unwrap()).unwrap();
        let lint = std::process::Command::new(&verilator)
            .args(["--lint-only", "-Wall", "-f", "files.f", "--top-module", manifest["top"].as_str().unwrap()])
            .current_dir(&out)
            .output()
            .unwrap();
        let _ = std::fs::remove_dir_all(&out);
        assert!(lint.status.success(), "{program}: verilator -Wall:\n{}", String::from_utf8_lossy(&lint.stderr));
        linted.push(program);
    }
    println!("lint clean: {linted:?}");
    assert!(linted.len() == programs.len(), "only {linted:?} were linted");
}

//! The VDP supervisor (`p4forge vdp`) on the software target running `examples/vdp/vdp.p4`:
//! tenants' rules translated by the supervisor make the pipeline do what a model of the VDPs
//! says, packet for packet, through random rule churn; one tenant's changes never alter another
//! tenant's packets; and the command line turns a tenants file into entries that `run` loads.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::Command;

use p4_dataplane::control::{ControlPlane, PacketIo};
use p4_io::testing::Rng;
use p4forge::cmd::vdp::supervisor::{flags, Action, Place, Supervisor};
use p4forge::cmd::vdp::tuple::{Tuple, TupleMatch};
use p4forge::cmd::vdp::{execute, names_of, Command as Op, Dataplanes};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// A test packet, from small domains so that rules meet packets often: its tuple and bytes.
#[derive(Clone, Debug)]
struct Packet {
    port: u32,
    tuple: Tuple,
    bytes: Vec<u8>,
}

const HOST_PORT: u32 = 4;

fn packet(rng: &mut Rng) -> Packet {
    let port = rng.below(4) as u32;
    let dst_mac = 0x0200_0000_0000 | rng.below(4);
    let src_mac = 0x0200_0000_0100 | rng.below(4);
    let vlan = [0, 0, 100, 200][rng.below(4) as usize];
    let dst_ip = 0x0a00_0000 | (rng.below(4) << 16) | rng.below(3);
    let src_ip = 0x0a09_0000 | rng.below(3);
    let (proto, dst_port) = [(17, 53), (17, 7000), (6, 80), (6, 7000)][rng.below(4) as usize];
    let src_port = 4000 + rng.below(2);
    let mut b = Vec::new();
    b.extend(&dst_mac.to_be_bytes()[2..]);
    b.extend(&src_mac.to_be_bytes()[2..]);
    if vlan != 0 {
        b.extend([0x81, 0x00]);
        b.extend((vlan as u16).to_be_bytes());
    }
    b.extend([0x08, 0x00]);
    let l4 = if proto == 6 { 20 } else { 8 };
    let payload = [0xab; 6];
    let total = (20 + l4 + payload.len()) as u16;
    let ip_at = b.len();
    b.extend([0x45, 0]);
    b.extend(total.to_be_bytes());
    b.extend([0, 1, 0, 0, 64, proto as u8, 0, 0]);
    b.extend((src_ip as u32).to_be_bytes());
    b.extend((dst_ip as u32).to_be_bytes());
    let c = p4_dataplane::hashing::csum16(&b[ip_at..ip_at + 20]);
    b[ip_at + 10..ip_at + 12].copy_from_slice(&c.to_be_bytes());
    b.extend((src_port as u16).to_be_bytes());
    b.extend((dst_port as u16).to_be_bytes());
    b.extend(vec![0; l4 - 4]);
    b.extend(payload);
    let tuple = [u64::from(port), dst_mac, src_mac, vlan, 0x0800, src_ip, dst_ip, proto, src_port, dst_port];
    Packet { port, tuple, bytes: b }
}

/// The model: the VDP a packet belongs to and what it makes of it (port and bytes; `None`
/// dropped), straight from the supervisor's VDPs rather than from the entries. Where a VDP's rules
/// run (hardware or software path) changes nothing.
fn model(sup: &Supervisor, p: &Packet) -> (u16, Option<(u32, Vec<u8>)>) {
    let vid = sup
        .vdps
        .iter()
        .flat_map(|(vid, v)| v.map.values().map(move |r| (r.priority, *vid, r)))
        .filter(|(_, _, r)| r.m.matches(&p.tuple))
        .max_by_key(|(priority, _, _)| *priority)
        .map_or(0, |(_, vid, _)| vid);
    let action = match sup.vdps.get(&vid) {
        None => Action::ToSoftware { channel: 0 },
        Some(v) => v.rules.values().filter(|r| r.m.matches(&p.tuple)).max_by_key(|r| r.priority).map_or(v.default, |r| r.action),
    };
    let mut b = p.bytes.clone();
    let out = match action {
        Action::ToSoftware { channel } => {
            let dma = [(u16::from(channel) << 14 | vid).to_be_bytes(), (p.port as u16).to_be_bytes()].concat();
            Some((HOST_PORT, [dma, b].concat()))
        }
        Action::Process { flags: f, port, dst_mac, src_mac, channel } => {
            if f & flags::CHANGE_MAC != 0 {
                b[0..6].copy_from_slice(&dst_mac.to_be_bytes()[2..]);
                b[6..12].copy_from_slice(&src_mac.to_be_bytes()[2..]);
            }
            if f & flags::TTL != 0 {
                let ip = if p.tuple[3] != 0 { 18 } else { 14 };
                b[ip + 8] -= 1;
                b[ip + 10..ip + 12].fill(0);
                let c = p4_dataplane::hashing::csum16(&b[ip..ip + 20]);
                b[ip + 10..ip + 12].copy_from_slice(&c.to_be_bytes());
            }
            if f & flags::DROP != 0 {
                None
            } else if f & flags::FORWARD == 0 {
                let dma = [(u16::from(channel) << 14 | vid).to_be_bytes(), (p.port as u16).to_be_bytes()].concat();
                Some((HOST_PORT, [dma, b].concat()))
            } else if f & flags::PORT_VALID != 0 {
                Some((u32::from(port), b))
            } else {
                None
            }
        }
    };
    (vid, out)
}

/// A random supervisor command over VDPs 1..=8, from small domains.
fn command(rng: &mut Rng) -> Op {
    let vid = 1 + rng.below(8) as u16;
    let rule = 1 + rng.below(4) as u32;
    let priority = 1 + rng.below(6) as u32;
    let mut terms = Vec::new();
    if rng.below(2) == 0 {
        terms.push(format!("in_port={}", rng.below(4)));
    }
    if rng.below(2) == 0 {
        terms.push(format!("vlan={}", [0, 100, 200][rng.below(3) as usize]));
    }
    if rng.below(3) == 0 {
        terms.push(format!("dst_ip=10.{}.0.0/16", rng.below(4)));
    }
    if rng.below(3) == 0 {
        terms.push(format!("proto={}", [6, 17][rng.below(2) as usize]));
    }
    if rng.below(4) == 0 {
        terms.push(format!("dst_port={}", [53, 80, 7000][rng.below(3) as usize]));
    }
    let m = TupleMatch::parse(terms.iter().map(String::as_str)).unwrap();
    let action = match rng.below(5) {
        0 => Action::Process { flags: flags::FORWARD | flags::PORT_VALID, port: rng.below(4) as u16, dst_mac: 0, src_mac: 0, channel: 0 },
        1 => Action::Process {
            flags: flags::FORWARD | flags::PORT_VALID | flags::CHANGE_MAC | flags::TTL,
            port: rng.below(4) as u16,
            dst_mac: 0x0200_0000_0b00 | rng.below(8),
            src_mac: 0x0200_0000_0a01,
            channel: 0,
        },
        2 => Action::Process { flags: flags::DROP, port: 0, dst_mac: 0, src_mac: 0, channel: 0 },
        3 => Action::ToSoftware { channel: rng.below(4) as u8 },
        _ => Action::Process { flags: flags::FORWARD, port: 0, dst_mac: 0, src_mac: 0, channel: rng.below(4) as u8 },
    };
    match rng.below(20) {
        0..=2 => Op::Create { vid, map: 1, action: 1 + rng.below(2) as u32, channel: rng.below(4) as u8 },
        3 => Op::Destroy(vid),
        4..=7 => Op::Map { vid, rule, priority, m },
        8 => Op::Unmap { vid, rule },
        9..=12 => Op::Rule { vid, rule, priority, m, action },
        13 => Op::Unrule { vid, rule },
        14 | 15 => Op::Default { vid, action },
        _ => Op::Migrate { vid, place: if rng.below(2) == 0 { Place::Software } else { Place::Hardware } },
    }
}

fn run(switch: &mut p4_dataplane::Switch, port: u32, bytes: &[u8]) -> Option<(u32, Vec<u8>)> {
    let out = switch.inject(port, bytes, 0).outputs;
    assert!(out.len() <= 1, "one packet in, at most one out: {out:?}");
    out.into_iter().next().map(|o| (o.port, o.data))
}

/// A packet through the whole system: the hardware pipeline; a packet it sends to the host whose
/// VDP is on the software path goes through the software path (the same pipeline with that VDP's
/// rules, entered on the packet's ingress port) and, unless that sends it to the host too, back
/// into the hardware's host port to leave by the port the software path chose.
fn through(hw: &mut p4_dataplane::Switch, sw: &mut p4_dataplane::Switch, slow_path: &std::collections::BTreeSet<u16>, p: &Packet) -> Option<(u32, Vec<u8>)> {
    let out = run(hw, p.port, &p.bytes)?;
    if out.0 != HOST_PORT {
        return Some(out);
    }
    let vid = u16::from_be_bytes([out.1[0], out.1[1]]) & 0xfff;
    let in_port = u32::from(u16::from_be_bytes([out.1[2], out.1[3]]) & 0x1ff);
    if !slow_path.contains(&vid) {
        return Some(out);
    }
    let (port, frame) = run(sw, in_port, &out.1[4..])?;
    if port == HOST_PORT {
        return Some((port, frame));
    }
    let back = [vid.to_be_bytes(), (port as u16).to_be_bytes()].concat();
    run(hw, HOST_PORT, &[back, frame].concat())
}

/// Random churn over 8 VDPs, with VDPs moving between the hardware and the software path: after
/// every command the system agrees with the model on 40 random packets, and between the steps of
/// each command every packet meets the VDPs as they were before it or as they are after it (as
/// they are, when the command moves a VDP); a command on one VDP leaves every other VDP's packets
/// as they were.
#[test]
fn the_pipeline_does_what_the_vdps_say_and_no_tenant_touches_another() {
    let program = root().join("examples/vdp/vdp.p4");
    let compiled = p4forge::frontend::compile(&program, &[]).unwrap();
    let mut switches = p4forge::frontend::software_switches(compiled, &program, 2, Default::default()).unwrap();
    let (mut hw, mut sw) = (switches.remove(0), switches.remove(0));
    let catalog = hw.control_catalog().cloned().unwrap();
    let (names, geometry) = names_of(&catalog, 8).unwrap();
    assert_eq!((geometry.map_entries, geometry.action_entries), (1024, 2048));
    let mut sup = Supervisor::new(geometry).unwrap();
    let mut planes = Dataplanes::default();
    let mut rng = Rng(0x5eed_0f_7d9b4);
    let packets: Vec<Packet> = (0..40).map(|_| packet(&mut rng)).collect();
    let (mut applied, mut refused, mut checked, mut moved, mut via_software) = (0, BTreeMap::<String, u32>::new(), 0, 0, 0);
    for step in 0..400 {
        let cmd = command(&mut rng);
        let before: Vec<(u16, Option<(u32, Vec<u8>)>)> = packets.iter().map(|p| model(&sup, p)).collect();
        match execute(&mut sup, &cmd) {
            Ok(plan) => {
                let after: Vec<(u16, Option<(u32, Vec<u8>)>)> = packets.iter().map(|p| model(&sup, p)).collect();
                // Between the steps, the first 8 packets: old or new, never anything else.
                for (i, st) in plan.steps().iter().enumerate() {
                    planes.step(&mut hw, &mut sw, &names, st).unwrap_or_else(|e| panic!("step {step}: {cmd:?}: {e}"));
                    for (k, p) in packets.iter().take(8).enumerate() {
                        let got = through(&mut hw, &mut sw, &planes.slow_path, p);
                        assert!(got == before[k].1 || got == after[k].1, "step {step}, plan step {i} of {cmd:?}: {got:?}, neither {:?} nor {:?}", before[k].1, after[k].1);
                    }
                }
                applied += 1;
                moved += usize::from(matches!(cmd, Op::Migrate { .. }));
            }
            Err(e) => {
                // The reason's kind, without the numbers.
                let kind: String = e.split(':').next_back().unwrap_or("").trim().chars().filter(|c| !c.is_ascii_digit()).collect();
                *refused.entry(kind).or_default() += 1;
            }
        }
        assert_eq!(planes.slow_path, sup.in_software());
        let changed = match &cmd {
            Op::Create { vid, .. } | Op::Destroy(vid) | Op::Default { vid, .. } | Op::Migrate { vid, .. } => *vid,
            Op::Map { vid, .. } | Op::Unmap { vid, .. } | Op::Rule { vid, .. } | Op::Unrule { vid, .. } => *vid,
            Op::Show => 0,
        };
        for (p, (vid_before, out_before)) in packets.iter().zip(&before) {
            let got = through(&mut hw, &mut sw, &planes.slow_path, p);
            let (vid, want) = model(&sup, p);
            assert_eq!(got, want, "step {step} after {cmd:?}: a packet of VDP {vid} on port {}: {:02x?}", p.port, p.bytes);
            via_software += usize::from(planes.slow_path.contains(&vid));
            // Isolation: a packet that belonged to another tenant before the command is handled
            // exactly as before.
            if *vid_before != 0 && *vid_before != changed {
                assert_eq!((vid, &got), (*vid_before, out_before), "step {step}: {cmd:?} on VDP {changed} changed a packet of VDP {vid_before}");
            }
            checked += 1;
        }
    }
    println!("{applied} commands applied ({moved} moves), refused: {refused:?}; {checked} packets checked, {via_software} through the software path");
    // The churn exercised every kind of refusal, moves, and the software path.
    assert!(applied > 150 && moved > 10 && via_software > 300, "{applied} {moved} {via_software}");
    for kind in ["a packet could belong to both", "does not exist", "exists already"] {
        assert!(refused.keys().any(|k| k.contains(kind)), "no refusal `{kind}`: {refused:?}");
    }
}

/// The command line: the tenants file becomes entries that `run` loads, and a bad command is
/// refused with its line.
#[test]
fn the_tenants_file_becomes_entries_and_bad_commands_are_refused_by_line() {
    let dir = p4_io::testing::scratch_dir("p4forge-vdp", "cli");
    let out = dir.join("entries.txt");
    let bin = env!("CARGO_BIN_EXE_p4forge");
    let run = Command::new(bin).current_dir(root()).args(["vdp", "examples/vdp/vdp.p4", "examples/vdp/tenants.txt", "--out"]).arg(&out).output().unwrap();
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    let text = String::from_utf8_lossy(&run.stdout);
    assert!(text.contains("examples/vdp/tenants.txt:7: default 1 forward 1: 0 inserted, 1 modified, 0 deleted"), "{text}");
    assert!(text.contains("VDP 3: Hardware, mapping slices [2], action slices [2] (a lookup searches 1 of 256), 1 mapping rules, 1 rules"), "{text}");
    assert!(text.ends_with(&format!("wrote 9 entries to {}\n", out.display())), "{text}");
    let entries = std::fs::read_to_string(&out).unwrap();
    assert_eq!(entries.lines().count(), 9);
    // The example's entries.txt is this output (regenerate it with the command above).
    assert_eq!(std::fs::read_to_string(root().join("examples/vdp/entries.txt")).unwrap(), entries, "examples/vdp/entries.txt is not what tenants.txt gives");
    assert!(entries.starts_with("table_add VdpIngress.vdp_map VdpIngress.set_vdp 0x0&&&0x0 0x0&&&0x0 0x0&&&0x0 0x64&&&0xfff "), "{entries}");
    // The entries load into the software target as an --entries file.
    let program = root().join("examples/vdp/vdp.p4");
    let compiled = p4forge::frontend::compile(&program, &[]).unwrap();
    let mut switch = p4forge::frontend::software_switches(compiled, &program, 1, Default::default()).unwrap().remove(0);
    p4forge::cmd::entries::Entries::read(&out).unwrap().apply(&mut switch).unwrap();
    assert_eq!(switch.table_contents(switch.control_catalog().unwrap().tables.iter().position(|t| t.name.ends_with("vdp_action")).unwrap()).unwrap().entries.len(), 6);
    // A bad command: its line and the reason, exit 2, no entries written.
    let bad = dir.join("bad.txt");
    std::fs::write(&bad, "create 1\nmap 1 1 10 in_port=0\ncreate 2\nmap 2 1 10 vlan=7\n").unwrap();
    let run = Command::new(bin).current_dir(root()).args(["vdp", "examples/vdp/vdp.p4"]).arg(&bad).arg("--out").arg(dir.join("bad-entries.txt")).output().unwrap();
    assert_eq!(run.status.code(), Some(2));
    let err = String::from_utf8_lossy(&run.stderr);
    assert!(err.contains("bad.txt:4: VDP 2 mapping rule 1 (vlan=0x7) overlaps VDP 1's mapping rule 1: a packet could belong to both"), "{err}");
    assert!(!dir.join("bad-entries.txt").exists());
}

/// The supervisor as a P4Runtime controller: commands typed one at a time on its standard input
/// are answered one at a time; the device it writes ends with the entries the in-process run
/// gives (the example's entries.txt), forwards as a software target loaded with them, and `show`
/// reads each VDP's counter from the device. A second supervisor with the same election id is
/// refused.
#[test]
fn the_supervisor_drives_a_p4runtime_device_and_shows_its_counters() {
    use std::io::{BufRead, BufReader, Write};
    use std::process::Stdio;
    let program = root().join("examples/vdp/vdp.p4");
    let build = p4forge::frontend::SwitchBuild::default();
    let device = std::sync::Arc::new(std::sync::Mutex::new(p4_runtime::server::Device::new(0, p4forge::cmd::p4runtime::loader(build))));
    let loaded = p4forge::cmd::p4runtime::loaded(p4forge::frontend::compile(&program, &[]).unwrap(), &program, build).unwrap();
    p4_runtime::server::lock(&device).install(loaded, std::fs::read(&program).unwrap());
    let server = p4_runtime::server::spawn("127.0.0.1:0".parse().unwrap(), device.clone()).unwrap();
    let addr = server.addr.to_string();

    let bin = env!("CARGO_BIN_EXE_p4forge");
    let mut child = Command::new(bin)
        .current_dir(root())
        .args(["vdp", "examples/vdp/vdp.p4", "/dev/stdin", "--p4runtime", &addr])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut answer = || {
        let mut line = String::new();
        stdout.read_line(&mut line).unwrap();
        line
    };
    let tenants = std::fs::read_to_string(root().join("examples/vdp/tenants.txt")).unwrap();
    for command in tenants.lines().filter(|l| !l.trim().is_empty() && !l.starts_with('#') && *l != "show") {
        writeln!(stdin, "{command}").unwrap();
        stdin.flush().unwrap();
        // Each command is answered before the next is sent.
        let line = answer();
        assert!(line.starts_with("/dev/stdin:") && line.contains(command), "{command}: {line}");
    }

    // Another controller with the same election id cannot take the device over.
    let second = Command::new(bin).current_dir(root()).args(["vdp", "examples/vdp/vdp.p4", "/dev/null", "--p4runtime", &addr]).output().unwrap();
    assert_eq!(second.status.code(), Some(1), "{}", String::from_utf8_lossy(&second.stderr));
    assert!(String::from_utf8_lossy(&second.stderr).contains("election id 1"), "{}", String::from_utf8_lossy(&second.stderr));

    // The device forwards as the software target with the in-process run's entries.
    let compiled = p4forge::frontend::compile(&program, &[]).unwrap();
    let mut local = p4forge::frontend::software_switches(compiled, &program, 1, build).unwrap().remove(0);
    p4forge::cmd::entries::Entries::read(&root().join("examples/vdp/entries.txt")).unwrap().apply(&mut local).unwrap();
    let mut rng = Rng(11);
    for _ in 0..300 {
        let p = packet(&mut rng);
        let remote = {
            let mut d = p4_runtime::server::lock(&device);
            run(d.target().unwrap(), p.port, &p.bytes)
        };
        assert_eq!(remote, run(&mut local, p.port, &p.bytes), "{p:?}");
    }

    // `show` reads the counters off the device: each VDP's as the local target counted.
    writeln!(stdin, "show").unwrap();
    stdin.flush().unwrap();
    assert_eq!(answer(), "3 VDPs; slices of 8 entries\n");
    let mut counted = 0;
    for vid in 1..=3u64 {
        let (packets, bytes) = local.counter_read("vdp_packets", vid).unwrap();
        counted += packets;
        let line = answer();
        assert!(line.starts_with(&format!("VDP {vid}: ")), "{line}");
        assert!(line.ends_with(&format!("; {packets} packets ({bytes} bytes) in hardware, 0 (0 bytes) on the software path\n")), "{line}");
    }
    assert!(counted > 50, "the VDPs saw {counted} of 300 packets");
    drop(stdin);
    let status = child.wait().unwrap();
    let mut err = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut err).unwrap();
    assert!(status.success(), "{err}");
    // A supervisor starts from empty tables: one that finds entries there refuses to start.
    let again = Command::new(bin).current_dir(root()).args(["vdp", "examples/vdp/vdp.p4", "/dev/null", "--p4runtime", &addr]).output().unwrap();
    assert_eq!(again.status.code(), Some(2));
    let err = String::from_utf8_lossy(&again.stderr);
    assert!(err.contains("table VdpIngress.vdp_map holds 3 entries already; the supervisor owns the VDP tables"), "{err}");
    drop(server);
}

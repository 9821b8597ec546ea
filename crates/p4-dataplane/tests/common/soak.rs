//! A soak run: many packets through a router whose routes change while traffic flows, checking
//! every output's port, the direct counter of every route and an indexed per-port counter against
//! a tally kept beside the switch, and the process's resident memory as it goes.
//!
//! Used by `cargo run --release -p p4-dataplane --example soak -- [PACKETS]` (100 million by
//! default) and, with a few hundred thousand packets, by the `soak` test.

use std::sync::Arc;

use num_bigint::BigUint;
use p4_dataplane::batch::{BatchOut, PacketIn};
use p4_dataplane::control::{ActionArgs, ControlPlane, Handle, KeyValue, Keys};
use p4_dataplane::Switch;

/// The router: IPv4 LPM on the destination with a direct packets-and-bytes counter, TTL
/// decrement, the header checksum verified and recomputed, an indexed counter per output port.
pub const PROGRAM: &str = r#"
#include <core.p4>
#include <v1model.p4>
header ethernet_t { bit<48> dst; bit<48> src; bit<16> ether_type; }
header ipv4_t {
    bit<4> version; bit<4> ihl; bit<8> diffserv; bit<16> total_len; bit<16> identification;
    bit<3> flags; bit<13> frag_offset; bit<8> ttl; bit<8> protocol; bit<16> hdr_checksum;
    bit<32> src_addr; bit<32> dst_addr;
}
struct headers_t { ethernet_t ethernet; ipv4_t ipv4; }
struct meta_t { }
parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.ethernet);
        transition select(hdr.ethernet.ether_type) { 0x0800: ipv4; default: accept; }
    }
    state ipv4 { pkt.extract(hdr.ipv4); transition accept; }
}
control V(inout headers_t hdr, inout meta_t meta) {
    apply {
        verify_checksum(hdr.ipv4.isValid(),
            { hdr.ipv4.version, hdr.ipv4.ihl, hdr.ipv4.diffserv, hdr.ipv4.total_len, hdr.ipv4.identification,
              hdr.ipv4.flags, hdr.ipv4.frag_offset, hdr.ipv4.ttl, hdr.ipv4.protocol, hdr.ipv4.src_addr, hdr.ipv4.dst_addr },
            hdr.ipv4.hdr_checksum, HashAlgorithm.csum16);
    }
}
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    direct_counter(CounterType.packets_and_bytes) route_hits;
    counter(512, CounterType.packets_and_bytes) port_out;
    action route(bit<9> port) { sm.egress_spec = port; hdr.ipv4.ttl = hdr.ipv4.ttl - 1; }
    action drop() { mark_to_drop(sm); }
    table routes {
        key = { hdr.ipv4.dst_addr: lpm; }
        actions = { route; drop; }
        default_action = drop();
        counters = route_hits;
    }
    apply {
        if (hdr.ipv4.isValid() && sm.checksum_error == 0) { routes.apply(); } else { mark_to_drop(sm); }
        if (sm.egress_spec != 511) { port_out.count((bit<32>) sm.egress_spec); }
    }
}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control C(inout headers_t hdr, inout meta_t meta) {
    apply {
        update_checksum(hdr.ipv4.isValid(),
            { hdr.ipv4.version, hdr.ipv4.ihl, hdr.ipv4.diffserv, hdr.ipv4.total_len, hdr.ipv4.identification,
              hdr.ipv4.flags, hdr.ipv4.frag_offset, hdr.ipv4.ttl, hdr.ipv4.protocol, hdr.ipv4.src_addr, hdr.ipv4.dst_addr },
            hdr.ipv4.hdr_checksum, HashAlgorithm.csum16);
    }
}
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.ethernet); pkt.emit(hdr.ipv4); } }
V1Switch(P(), V(), I(), E(), C(), D()) main;
"#;

/// Stable /16 routes 10.<i>.0.0/16, `i` in `1..=STABLE`, to port `1 + i % 8`.
const STABLE: u32 = 255;
/// Churned /32 routes 10.1.0.<j>, `j` in `1..=CHURN`, to port 9 while installed.
const CHURN: u32 = 64;
const CHURN_PORT: u32 = 9;
/// Packets between two route changes.
pub const UPDATE_EVERY: u64 = 1_000;
const FRAME_LEN: usize = 64;
const BATCH: usize = 256;

/// What a soak run saw.
#[derive(Debug)]
pub struct Soak {
    pub packets: u64,
    pub outputs: u64,
    pub updates: u64,
    pub seconds: f64,
    /// Resident memory (bytes) after the first tenth of the run and at the end (0 where
    /// `/proc/self/statm` cannot be read).
    pub rss_early: u64,
    pub rss_end: u64,
}

fn route_of(i: u32) -> u32 {
    (10 << 24) | (i << 16)
}

fn ipv4_frame(dst: u32) -> Vec<u8> {
    let mut f = Vec::with_capacity(FRAME_LEN);
    f.extend_from_slice(&[0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 9, 0x08, 0x00]);
    let mut ip = [0x45, 0, 0, 50, 0, 0, 0x40, 0, 64, 17, 0, 0, 192, 168, 0, 1, 0, 0, 0, 0];
    ip[16..20].copy_from_slice(&dst.to_be_bytes());
    let sum = p4_dataplane::hashing::csum16(&ip);
    ip[10..12].copy_from_slice(&sum.to_be_bytes());
    f.extend_from_slice(&ip);
    f.resize(FRAME_LEN, 0xab);
    f
}

/// Resident memory of this process in bytes (0 when it cannot be read).
pub fn rss_bytes() -> u64 {
    let pages = std::fs::read_to_string("/proc/self/statm").ok().and_then(|s| s.split_whitespace().nth(1)?.parse::<u64>().ok());
    pages.unwrap_or(0) * 4096
}

/// The destination of packet `n`: one in eight goes to a churned /32 (routed by the /16 of
/// 10.1.0.0 while its /32 is not installed), the rest spread over the stable routes.
fn destination(n: u64) -> (u32, Option<u32>) {
    let r = n.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 32;
    if r.is_multiple_of(8) {
        let j = 1 + (r / 8) as u32 % CHURN;
        (route_of(1) | j, Some(j))
    } else {
        let i = 1 + (r / 8) as u32 % STABLE;
        // Host bytes from 128 up: never one of the churned addresses.
        (route_of(i) | 0x80 | ((r as u32) & 0x7f), None)
    }
}

/// Runs `packets` packets; `progress` is called every tenth of the run with (packets so far,
/// packets/s so far, resident bytes). Errors say what differed from the tally.
pub fn run(include: &std::path::Path, packets: u64, mut progress: impl FnMut(u64, f64, u64)) -> Result<Soak, String> {
    let compiled = p4_sema::compile_str("soak.p4", PROGRAM, &[include.to_path_buf()]);
    let Some(program) = compiled.program.clone() else { return Err(compiled.render_diagnostics()) };
    let mut sw = Switch::new(Arc::new(program)).map_err(|e| e.to_string())?;
    sw.ignore_table_sizes();
    let add = |sw: &mut Switch, prefix: u32, len: u32, port: u32| -> Result<Handle, String> {
        let keys = Keys::Positional(vec![KeyValue::Prefix(BigUint::from(prefix), len)]);
        sw.table_add("routes", keys, "route", ActionArgs::Positional(vec![BigUint::from(port)]), None).map_err(|e| e.to_string())
    };
    let mut stable = Vec::new();
    for i in 1..=STABLE {
        stable.push(add(&mut sw, route_of(i), 16, 1 + i % 8)?);
    }
    // The tally: packets expected on each stable route, on each installed churned route since it
    // was installed, and out of each port.
    let mut stable_hits = vec![0u64; STABLE as usize];
    let mut churn: Vec<Option<(Handle, u64)>> = vec![None; CHURN as usize + 1];
    let mut port_hits = [0u64; 16];
    let frames: Vec<Vec<u8>> = (0..4096u64).map(|n| ipv4_frame(destination(n).0)).collect();
    let mut out = BatchOut::default();
    let mut batch: Vec<PacketIn> = Vec::with_capacity(BATCH);
    let (mut sent, mut outputs, mut updates, mut rss_early) = (0u64, 0u64, 0u64, 0u64);
    let start = std::time::Instant::now();
    let tenth = (packets / 10).max(1);
    while sent < packets {
        let n = (packets - sent).min(BATCH as u64) as usize;
        batch.clear();
        batch.extend((0..n as u64).map(|k| PacketIn { port: 0, data: &frames[((sent + k) % 4096) as usize], now_ns: 0 }));
        sw.process_batch(&batch, &mut out);
        if out.packets.len() != n {
            return Err(format!("packets {sent}..{}: {} outputs, {} drops for {n} packets", sent + n as u64, out.packets.len(), out.drops.len()));
        }
        for (k, o) in out.packets.iter().enumerate() {
            let (dst, churned) = destination((sent + k as u64) % 4096);
            let port = match churned.and_then(|j| churn[j as usize].as_mut()) {
                Some((_, hits)) => {
                    *hits += 1;
                    CHURN_PORT
                }
                None => {
                    let i = (dst >> 16) & 0xff;
                    stable_hits[i as usize - 1] += 1;
                    1 + i % 8
                }
            };
            if o.port != port {
                return Err(format!("packet {}: to 10.{}.x.x left on port {}, the routes say {port}", sent + k as u64, (dst >> 16) & 0xff, o.port));
            }
            port_hits[port as usize] += 1;
        }
        sent += n as u64;
        outputs += n as u64;
        // One route change per UPDATE_EVERY packets: a churned /32 installed, or removed after
        // its direct counter is checked against the tally.
        if sent % UPDATE_EVERY < n as u64 {
            let j = 1 + (updates % u64::from(CHURN)) as usize;
            match churn[j].take() {
                Some((handle, hits)) => {
                    let (p, b) = sw.counter_read("route_hits", handle).map_err(|e| e.to_string())?;
                    if (p, b) != (hits, hits * FRAME_LEN as u64) {
                        return Err(format!("route 10.1.0.{j}/32: direct counter ({p}, {b}), tally ({hits}, {})", hits * FRAME_LEN as u64));
                    }
                    sw.table_delete("routes", handle).map_err(|e| e.to_string())?;
                }
                None => churn[j] = Some((add(&mut sw, route_of(1) | j as u32, 32, CHURN_PORT)?, 0)),
            }
            updates += 1;
        }
        if sent % tenth < n as u64 || sent == packets {
            let rss = rss_bytes();
            if rss_early == 0 {
                rss_early = rss;
            }
            progress(sent, sent as f64 / start.elapsed().as_secs_f64(), rss);
        }
    }
    for (i, (&handle, &hits)) in stable.iter().zip(&stable_hits).enumerate() {
        let (p, b) = sw.counter_read("route_hits", handle).map_err(|e| e.to_string())?;
        if (p, b) != (hits, hits * FRAME_LEN as u64) {
            return Err(format!("route 10.{}.0.0/16: direct counter ({p}, {b}), tally ({hits}, {})", i + 1, hits * FRAME_LEN as u64));
        }
    }
    for (port, &hits) in port_hits.iter().enumerate() {
        let (p, b) = sw.counter_read("port_out", port as u64).map_err(|e| e.to_string())?;
        if (p, b) != (hits, hits * FRAME_LEN as u64) {
            return Err(format!("port_out[{port}]: ({p}, {b}), tally ({hits}, {})", hits * FRAME_LEN as u64));
        }
    }
    Ok(Soak { packets: sent, outputs, updates, seconds: start.elapsed().as_secs_f64(), rss_early, rss_end: rss_bytes() })
}

//! Packets per second through an L2 forwarder: one exact table on the destination MAC (1,000
//! entries) setting the egress port, 64-byte frames in batches of 256, one core, in memory; beside
//! it, in the same run, a hand-written Rust forwarder doing the same as the reference: written for
//! speed as a person would (an open-addressing table from MAC to port with a multiplicative hash,
//! at most half full, and a copy of the frame into an output buffer). And the same forwarder as a
//! PSA program, which parses each packet twice (ingress and egress pipelines, the deparsed packet
//! parsed again), against the v1model one in the same run.
//! `cargo bench -p p4-dataplane --bench l2fwd`.

use std::sync::Arc;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use p4_dataplane::batch::{BatchOut, PacketIn};
use p4_dataplane::control::{ActionArgs, ControlPlane, KeyValue, Keys};
use p4_dataplane::Switch;

const PROGRAM: &str = r#"
#include <core.p4>
#include <v1model.p4>
header ethernet_t { bit<48> dst; bit<48> src; bit<16> ether_type; }
struct headers_t { ethernet_t ethernet; }
struct meta_t { }
parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.ethernet); transition accept; }
}
control V(inout headers_t hdr, inout meta_t meta) { apply { } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    action forward(bit<9> port) { sm.egress_spec = port; }
    action drop() { mark_to_drop(sm); }
    table dmac { key = { hdr.ethernet.dst: exact; } actions = { forward; drop; } default_action = drop(); size = 1024; }
    apply { dmac.apply(); }
}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control C(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.ethernet); } }
V1Switch(P(), V(), I(), E(), C(), D()) main;
"#;

/// The same forwarder in PSA: the table in ingress, an empty egress.
const PSA_PROGRAM: &str = r#"
#include <core.p4>
#include <psa.p4>
header ethernet_t { bit<48> dst; bit<48> src; bit<16> ether_type; }
struct headers_t { ethernet_t ethernet; }
struct meta_t { }
struct empty_t { }
parser IP(packet_in pkt, out headers_t hdr, inout meta_t meta, in psa_ingress_parser_input_metadata_t istd, in empty_t r, in empty_t c) {
    state start { pkt.extract(hdr.ethernet); transition accept; }
}
control I(inout headers_t hdr, inout meta_t meta, in psa_ingress_input_metadata_t istd, inout psa_ingress_output_metadata_t ostd) {
    action forward(PortId_t port) { send_to_port(ostd, port); }
    action drop() { ingress_drop(ostd); }
    table dmac { key = { hdr.ethernet.dst: exact; } actions = { forward; drop; } default_action = drop(); size = 1024; }
    apply { dmac.apply(); }
}
control ID(packet_out pkt, out empty_t c, out empty_t r, out empty_t n, inout headers_t hdr, in meta_t meta, in psa_ingress_output_metadata_t istd) {
    apply { pkt.emit(hdr.ethernet); }
}
parser EP(packet_in pkt, out headers_t hdr, inout meta_t meta, in psa_egress_parser_input_metadata_t istd, in empty_t n, in empty_t c, in empty_t e) {
    state start { pkt.extract(hdr.ethernet); transition accept; }
}
control E(inout headers_t hdr, inout meta_t meta, in psa_egress_input_metadata_t istd, inout psa_egress_output_metadata_t ostd) { apply { } }
control ED(packet_out pkt, out empty_t c, out empty_t r, inout headers_t hdr, in meta_t meta, in psa_egress_output_metadata_t istd, in psa_egress_deparser_input_metadata_t ed) {
    apply { pkt.emit(hdr.ethernet); }
}
IngressPipeline(IP(), I(), ID()) ip;
EgressPipeline(EP(), E(), ED()) ep;
PSA_Switch(ip, PacketReplicationEngine(), ep, BufferingQueueingEngine()) main;
"#;

const MACS: u64 = 1000;

/// A switch running `source` (lowered, as `p4forge` runs it) with the 1,000 MACs in `table`.
fn switch(name: &str, source: &str, table: &str) -> Switch {
    let include = std::path::PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../p4include"));
    let compiled = p4_sema::compile_str(name, source, &[include]);
    let Some(program) = compiled.program else { panic!("{name}: {}", compiled.render_diagnostics()) };
    let program = p4_midend::lower(program).expect("lowers");
    let mut sw = Switch::new(Arc::new(program)).expect("switch");
    sw.ignore_table_sizes();
    for i in 0..MACS {
        let mac = 0x0200_0000_0000u64 + i;
        let port = (i % 8) as u16;
        sw.table_add(table, Keys::Positional(vec![KeyValue::Value(mac.into())]), "forward", ActionArgs::Positional(vec![port.into()]), None)
            .expect("entry");
    }
    sw
}

fn frames() -> Vec<Vec<u8>> {
    let mut seed = 7u32;
    (0..256)
        .map(|_| {
            seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12345);
            let mac = 0x0200_0000_0000u64 + u64::from(seed >> 8) % MACS;
            let mut f = mac.to_be_bytes()[2..].to_vec();
            f.extend_from_slice(&[0, 0, 0, 0, 0, 9, 0x08, 0x00]);
            f.resize(64, 0xab);
            f
        })
        .collect()
}

fn bench(c: &mut Criterion) {
    let include = std::path::PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../p4include"));
    let compiled = p4_sema::compile_str("l2fwd.p4", PROGRAM, &[include]);
    let Some(program) = compiled.program else { panic!("l2fwd: {}", compiled.render_diagnostics()) };
    let mut sw = Switch::new(Arc::new(program)).expect("switch");
    sw.ignore_table_sizes();
    let mut reference = MacTable::with_slots(2048);
    for i in 0..MACS {
        let mac = 0x0200_0000_0000u64 + i;
        let port = (i % 8) as u16;
        sw.table_add("dmac", Keys::Positional(vec![KeyValue::Value(mac.into())]), "forward", ActionArgs::Positional(vec![port.into()]), None)
            .expect("entry");
        reference.insert(mac, port);
    }
    let frames = frames();
    let batch: Vec<PacketIn> = frames.iter().map(|f| PacketIn { port: 1, data: f, now_ns: 0 }).collect();
    let mut out = BatchOut::default();
    sw.process_batch(&batch, &mut out);
    assert_eq!(out.packets.len(), 256, "every frame goes to a known MAC");

    let mut g = c.benchmark_group("l2fwd");
    g.throughput(Throughput::Elements(frames.len() as u64));
    g.bench_function("p4 exact dmac, 1k MACs, 64B, batch of 256", |b| {
        b.iter(|| {
            sw.process_batch(&batch, &mut out);
            out.packets.len()
        })
    });
    let mut psa = switch("l2fwd_psa.p4", PSA_PROGRAM, "I.dmac");
    let mut psa_out = BatchOut::default();
    psa.process_batch(&batch, &mut psa_out);
    assert_eq!(psa_out.packets.len(), 256, "the PSA forwarder sends every frame too");
    assert_eq!(psa_out.bytes, out.bytes, "and the same bytes");
    g.bench_function("p4 PSA exact dmac, 1k MACs, 64B, batch of 256", |b| {
        b.iter(|| {
            psa.process_batch(&batch, &mut psa_out);
            psa_out.packets.len()
        })
    });
    // The reference: the same decision by hand, the frame copied out as the switch does.
    let mut bytes: Vec<u8> = Vec::with_capacity(256 * 64);
    let mut ports: Vec<(u16, usize)> = Vec::with_capacity(256);
    g.bench_function("hand-written Rust forwarder, same function", |b| {
        b.iter(|| {
            bytes.clear();
            ports.clear();
            for f in &frames {
                let mut mac = [0u8; 8];
                mac[2..].copy_from_slice(&f[..6]);
                if let Some(port) = reference.get(u64::from_be_bytes(mac)) {
                    ports.push((port, f.len()));
                    bytes.extend_from_slice(f);
                }
            }
            ports.len()
        })
    });
    g.finish();
}

/// The reference forwarder's table: MAC to port by linear probing in a power-of-two array, the
/// slot chosen by the high bits of the MAC times a 64-bit odd constant (Fibonacci hashing). A MAC
/// of 0 marks an empty slot (no frame of the bench has it).
struct MacTable {
    slots: Vec<(u64, u16)>,
    shift: u32,
}

impl MacTable {
    fn with_slots(n: usize) -> MacTable {
        assert!(n.is_power_of_two());
        MacTable { slots: vec![(0, 0); n], shift: 64 - n.trailing_zeros() }
    }

    fn slot(&self, mac: u64) -> usize {
        (mac.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> self.shift) as usize
    }

    fn insert(&mut self, mac: u64, port: u16) {
        let mask = self.slots.len() - 1;
        let mut i = self.slot(mac);
        while self.slots[i].0 != 0 && self.slots[i].0 != mac {
            i = (i + 1) & mask;
        }
        self.slots[i] = (mac, port);
    }

    #[inline]
    fn get(&self, mac: u64) -> Option<u16> {
        let mask = self.slots.len() - 1;
        let mut i = self.slot(mac);
        loop {
            match self.slots[i] {
                (0, _) => return None,
                (m, port) if m == mac => return Some(port),
                _ => i = (i + 1) & mask,
            }
        }
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);

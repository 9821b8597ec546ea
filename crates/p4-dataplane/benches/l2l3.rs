//! Packets per second through the l2l3 example (Ethernet + IPv4): router-MAC exact table, a MAC
//! table with 1,000 entries, an IPv4 LPM table with 10,000 routes over four prefix lengths, TTL
//! decrement and checksum verify + update, on a trace of 64-byte packets (half routed, half switched).
//! One core, in memory: `cargo bench -p p4-dataplane --bench l2l3`.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use p4_dataplane::batch::{BatchOut, PacketIn};
use p4_dataplane::control::PacketIo;

#[path = "l2l3_setup.rs"]
mod l2l3_setup;
use l2l3_setup::{build, trace};

fn bench(c: &mut Criterion) {
    let mut sw = build();
    let trace = trace();
    let forwarded = trace.iter().filter(|p| !sw.inject(1, p, 0).outputs.is_empty()).count();
    assert!(forwarded > trace.len() / 2, "most of the trace must be forwarded ({forwarded})");
    let mut g = c.benchmark_group("l2l3");
    g.throughput(Throughput::Elements(trace.len() as u64));
    g.bench_function("64B trace, 1k MACs, 10k routes", |b| {
        b.iter(|| {
            let mut n = 0usize;
            for p in &trace {
                n += sw.inject(1, p, 0).outputs.len();
            }
            n
        })
    });
    // The same trace as one batch into reused buffers (no allocation per packet).
    let batch: Vec<PacketIn> = trace.iter().map(|p| PacketIn { port: 1, data: p, now_ns: 0 }).collect();
    let mut out = BatchOut::default();
    g.bench_function("64B trace, 1k MACs, 10k routes, batch of 256", |b| {
        b.iter(|| {
            sw.process_batch(&batch, &mut out);
            out.packets.len()
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);

//! Packets per second through the l2l3 example (Ethernet + IPv4): router-MAC exact table, a MAC
//! table with 1,000 entries, an IPv4 LPM table with 10,000 routes over four prefix lengths, TTL
//! decrement and checksum verify + update, on a trace of 64-byte packets (half routed, half switched).
//! One core, in memory: `cargo bench -p p4-dataplane --bench l2l3`.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use p4_dataplane::batch::{BatchOut, PacketIn};
use p4_dataplane::control::PacketIo;

#[path = "l2l3_setup.rs"]
mod l2l3_setup;
use l2l3_setup::{build, build_elaborated, build_traced, trace};
use p4_dataplane::rss::flow_hash;

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
    // The packets the lowered program gives, for the elaborated one to match. (The batch runs
    // here once more: a filter may have skipped the bench above.)
    sw.process_batch(&batch, &mut out);
    let wire_bytes = out.bytes.clone();
    // The program as elaborated, without the mid-end (the switches above run it lowered, as
    // `p4forge` does).
    let mut elaborated = build_elaborated();
    elaborated.process_batch(&batch, &mut out);
    assert_eq!(out.bytes, wire_bytes, "the elaborated program gives the same packets");
    g.bench_function("64B trace, 1k MACs, 10k routes, batch of 256, as elaborated", |b| {
        b.iter(|| {
            elaborated.process_batch(&batch, &mut out);
            out.packets.len()
        })
    });
    g.finish();
}

/// The same trace spread by flow over one or two switches on their own threads (in memory; each
/// iteration runs every shard's batch 512 times, 131,072 packets in all).
fn bench_threads(c: &mut Criterion) {
    const ROUNDS: usize = 512;
    let trace = trace();
    let mut switches = [build(), build()];
    let mut g = c.benchmark_group("l2l3 workers");
    g.throughput(Throughput::Elements((trace.len() * ROUNDS) as u64));
    for workers in [1usize, 2] {
        let shards: Vec<Vec<PacketIn>> = (0..workers)
            .map(|w| {
                trace
                    .iter()
                    .filter(|p| flow_hash(p) % workers as u64 == w as u64)
                    .map(|p| PacketIn { port: 1, data: p, now_ns: 0 })
                    .collect()
            })
            .collect();
        g.bench_function(format!("{workers} worker threads, 64B, 1k MACs, 10k routes"), |b| {
            b.iter(|| {
                std::thread::scope(|scope| {
                    for (switch, shard) in switches.iter_mut().zip(&shards) {
                        scope.spawn(move || {
                            let mut out = BatchOut::default();
                            for _ in 0..ROUNDS {
                                switch.process_batch(shard, &mut out);
                            }
                            out.packets.len()
                        });
                    }
                })
            })
        });
    }
    g.finish();
}

/// The cost of recording a trace of every packet (a traced switch; `--trace`).
fn bench_traced(c: &mut Criterion) {
    let mut sw = build_traced();
    let trace = trace();
    let batch: Vec<PacketIn> = trace.iter().map(|p| PacketIn { port: 1, data: p, now_ns: 0 }).collect();
    let mut out = BatchOut::default();
    let mut g = c.benchmark_group("l2l3");
    g.throughput(Throughput::Elements(trace.len() as u64));
    g.bench_function("64B trace, 1k MACs, 10k routes, batch of 256, traced", |b| {
        b.iter(|| {
            sw.process_batch(&batch, &mut out);
            out.trace.len()
        })
    });
    g.finish();
}

criterion_group!(benches, bench, bench_threads, bench_traced);
criterion_main!(benches);

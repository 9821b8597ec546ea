//! Simulator throughput: simulated time per wall time for DTP under full load, and the event
//! queue alone. `cargo bench -p p4-netsim`.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use p4_netsim::events::EventQueue;
use p4_netsim::experiments::{run_dtp, DtpOptions, Load, Scenario};

fn dtp_tree(c: &mut Criterion) {
    let mut g = c.benchmark_group("dtp");
    g.sample_size(10);
    // one simulated millisecond of tree:2:3 at full load with DTP and PTP
    g.throughput(Throughput::Elements(1));
    g.bench_function("tree_2_3_heavy_1ms", |b| {
        b.iter(|| {
            let o = DtpOptions {
                scenario: Scenario { seconds: 0.001, load: Load::Heavy, ..Default::default() },
                ..Default::default()
            };
            run_dtp(&o).map(|(s, _)| s.dtp.max_offset_ticks).unwrap_or(u64::MAX)
        })
    });
    g.finish();
}

fn event_queue(c: &mut Criterion) {
    let mut g = c.benchmark_group("events");
    g.throughput(Throughput::Elements(100_000));
    g.bench_function("push_pop_100k_depth_256", |b| {
        b.iter(|| {
            let mut q = EventQueue::default();
            let mut t = 0u64;
            for i in 0..256u64 {
                q.push(i * 7919 % 1000, i);
            }
            let mut acc = 0u64;
            for _ in 0..100_000 {
                if let Some((time, e)) = q.pop() {
                    t = time;
                    acc = acc.wrapping_add(e);
                    q.push(t + (e * 2654435761) % 1000, e);
                }
            }
            (acc, t)
        })
    });
    g.finish();
}

criterion_group!(benches, dtp_tree, event_queue);
criterion_main!(benches);

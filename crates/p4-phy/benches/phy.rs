//! Throughput of the software PHY on one core: TX (encode + scramble) and RX (descramble +
//! decode + FCS check) in line Gb/s (66-bit blocks × 66 bits per second, reported by
//! criterion as "Gelem/s" = Gb/s of 10GBASE-R line bits), and the CRC-32 in bytes/s.
//! Run: `cargo bench -p p4-phy --bench phy`.

use criterion::measurement::{Measurement, ValueFormatter, WallTime};
use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use p4_phy::gen::test_frame;
use p4_phy::rx::{RxConfig, RxPhy};
use p4_phy::tx::{TxConfig, TxPhy};
use p4_phy::{mac, Block66, Descrambler, FrameBatch, Scrambler};

/// Frames per measured batch: about one pipeline chunk (4096 blocks, 64 KiB) of line data, so
/// the batch stays cache-resident as it does in the chunked pipeline.
fn frames_for(size: usize) -> usize {
    (p4_phy::pipeline::CHUNK_BLOCKS * 8 / (size + 20)).max(1)
}

/// CPU time of the benchmarking thread, in nanoseconds: the work one core does, unaffected by
/// other processes competing for the cores (the build machine is shared).
struct ThreadCpuTime;

fn thread_cpu_ns() -> u64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: clock_gettime only writes the timespec we pass.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    if rc != 0 {
        return 0;
    }
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

static WALL: WallTime = WallTime;

impl Measurement for ThreadCpuTime {
    type Intermediate = u64;
    type Value = u64;
    fn start(&self) -> u64 {
        thread_cpu_ns()
    }
    fn end(&self, i: u64) -> u64 {
        thread_cpu_ns().saturating_sub(i)
    }
    fn add(&self, a: &u64, b: &u64) -> u64 {
        a + b
    }
    fn zero(&self) -> u64 {
        0
    }
    fn to_f64(&self, v: &u64) -> f64 {
        *v as f64
    }
    fn formatter(&self) -> &dyn ValueFormatter {
        // Values are nanoseconds, exactly what the wall-clock formatter expects.
        WALL.formatter()
    }
}

type C = Criterion<ThreadCpuTime>;

fn tx_stream(size: usize) -> Vec<Block66> {
    let frames: Vec<Vec<u8>> = (0..frames_for(size)).map(|i| test_frame(i as u64, size)).collect();
    let mut tx = TxPhy::new(TxConfig::STANDARD);
    let mut out = Vec::new();
    for f in &frames {
        tx.send(f, 12, &mut out);
    }
    out
}

fn bench_tx(c: &mut C) {
    let mut g = c.benchmark_group("tx_pcs");
    for size in [64usize, 1518] {
        let frames: Vec<Vec<u8>> = (0..frames_for(size)).map(|i| test_frame(i as u64, size)).collect();
        let line_bits = tx_stream(size).len() as u64 * 66;
        g.throughput(Throughput::Elements(line_bits));
        let mut out = Vec::with_capacity(line_bits as usize / 66 + 16);
        let mut stamps = Vec::with_capacity(frames.len());
        g.bench_function(format!("encode_scramble_{size}B"), |b| {
            b.iter(|| {
                out.clear();
                stamps.clear();
                let mut tx = TxPhy::new(TxConfig::STANDARD);
                tx.send_batch(frames.iter().map(|f| (&f[..], 12)), &mut out, &mut stamps);
                black_box(out.len())
            })
        });
    }
    g.finish();
}

fn bench_rx(c: &mut C) {
    let mut g = c.benchmark_group("rx_pcs");
    for size in [64usize, 1518] {
        let line = tx_stream(size);
        g.throughput(Throughput::Elements(line.len() as u64 * 66));
        // Frames packed into one batch (the SoNIC way), FCS left to the MAC stage / checked.
        for (check_fcs, name) in [(false, "descramble_decode"), (true, "descramble_decode_fcs")] {
            let mut batch = FrameBatch::default();
            let mut rx = RxPhy::new(RxConfig { check_fcs, ..RxConfig::default() });
            g.bench_function(format!("{name}_{size}B"), |b| {
                b.iter(|| {
                    batch.clear();
                    rx.descrambler = Descrambler::default();
                    rx.receive(&line, &mut batch);
                    black_box(batch.len())
                })
            });
        }
        // One vector per frame; the consumer hands buffers back, as a capture loop would.
        let mut frames: Vec<p4_phy::RxFrame> = Vec::with_capacity(frames_for(size));
        let mut rx = RxPhy::new(RxConfig { check_fcs: false, ..RxConfig::default() });
        g.bench_function(format!("descramble_decode_vec_{size}B"), |b| {
            b.iter(|| {
                for f in frames.drain(..) {
                    rx.decoder.recycle(f.data);
                }
                rx.descrambler = Descrambler::default();
                rx.receive(&line, &mut frames);
                black_box(frames.len())
            })
        });
    }
    g.finish();
}

fn bench_scrambler(c: &mut C) {
    let mut g = c.benchmark_group("scrambler");
    let data: Vec<Block66> = (0..4096u64).map(|i| Block66::data(i.wrapping_mul(0x9e37_79b9_7f4a_7c15))).collect();
    g.throughput(Throughput::Elements(data.len() as u64 * 66));
    // Each iteration (de)scrambles the previous iteration's output in place: a continuing
    // stream, with no copy inside the measurement.
    let mut buf = data.clone();
    let mut s = Scrambler::default();
    g.bench_function("scramble", |b| {
        b.iter(|| {
            s.scramble_blocks(&mut buf);
            black_box(buf[0].payload)
        })
    });
    let mut s = Scrambler::default();
    g.bench_function("scramble_portable", |b| {
        b.iter(|| {
            s.scramble_blocks_portable(&mut buf);
            black_box(buf[0].payload)
        })
    });
    let mut d = Descrambler::default();
    g.bench_function("descramble", |b| {
        b.iter(|| {
            d.descramble_blocks(&mut buf);
            black_box(buf[0].payload)
        })
    });
    g.finish();
}

fn bench_crc(c: &mut C) {
    let mut g = c.benchmark_group("crc32");
    for size in [64usize, 1518, 9018] {
        let data = vec![0xa5u8; size];
        g.throughput(Throughput::Bytes(size as u64));
        g.bench_function(format!("{size}B"), |b| b.iter(|| black_box(mac::crc32(black_box(&data)))));
    }
    g.finish();
}

/// The machine's speed in the same run: a chain of dependent additions runs at one addition
/// per core cycle when the core is ours, so "Gelem/s" here is the effective clock in GHz. On a
/// shared VM it drops when a neighbour loads the same physical core, and every other figure
/// of the run drops with it; compare runs by this reference.
fn bench_reference(c: &mut C) {
    const ADDS: u64 = 100_000;
    let mut g = c.benchmark_group("reference");
    g.throughput(Throughput::Elements(ADDS));
    g.bench_function("dependent_adds", |b| {
        b.iter(|| {
            let mut x = black_box(0u64);
            for _ in 0..ADDS {
                #[cfg(target_arch = "x86_64")]
                // SAFETY: register-only arithmetic; the asm keeps the chain from being folded.
                unsafe {
                    core::arch::asm!("add {0}, 1", inout(reg) x, options(pure, nomem, nostack));
                }
                #[cfg(not(target_arch = "x86_64"))]
                {
                    x = black_box(x + 1);
                }
            }
            x
        })
    });
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().with_measurement(ThreadCpuTime).sample_size(20).warm_up_time(std::time::Duration::from_millis(500)).measurement_time(std::time::Duration::from_secs(2));
    targets = bench_reference, bench_tx, bench_rx, bench_scrambler, bench_crc
}
criterion_main!(benches);

//! Throughput of the file formats: STF and command-file parsing, pcap write and streaming read.

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use p4_stf::capture::{read_capture, read_capture_file, write_capture_file, TimedPacket};
use p4_stf::commands::parse_commands;
use p4_stf::parse_stf;

const LINES: usize = 10_000;
const PACKETS: usize = 100_000;

fn stf_text() -> String {
    let mut text = String::new();
    for i in 0..LINES / 2 {
        text.push_str(&format!("packet {} 000000000002 000000000001 0800 4500 0028 {:04x} 0000 4006 0000 0a000001 0a000002\n", i % 4, i % 0xffff));
        text.push_str(&format!("expect {} 000000000002 00000000000a 0800 4500 0028 {:04x} **** $\n", (i + 1) % 4, i % 0xffff));
    }
    text
}

fn commands_text() -> String {
    (0..LINES)
        .map(|i| format!("table_add MyIngress.ipv4_lpm MyIngress.forward 10.{}.{}.0/24 => 00:00:00:00:{:02x}:01 {}\n", i / 256 % 256, i % 256, i % 256, i % 16))
        .collect()
}

fn parsers(c: &mut Criterion) {
    let mut group = c.benchmark_group("parse");
    group.throughput(Throughput::Elements(LINES as u64));
    let stf = stf_text();
    group.bench_function("stf_10k_lines", |b| b.iter(|| parse_stf(black_box(&stf)).map(|c| c.len())));
    let commands = commands_text();
    group.bench_function("commands_10k_lines", |b| b.iter(|| parse_commands(black_box(&commands)).map(|c| c.len())));
    group.finish();
}

fn captures(c: &mut Criterion) {
    let packets: Vec<TimedPacket> =
        (0..PACKETS).map(|i| TimedPacket { timestamp_ns: i as u64 * 1_000, data: vec![(i % 251) as u8; 64 + i % 64] }).collect();
    let dir = std::env::temp_dir();
    let pcap = dir.join(format!("p4-stf-bench-{}.pcap", std::process::id()));
    let mut group = c.benchmark_group("capture");
    group.throughput(Throughput::Elements(PACKETS as u64));
    group.sample_size(10);
    group.bench_function("write_pcap_100k", |b| b.iter(|| write_capture_file(&pcap, black_box(&packets))));
    group.bench_function("stream_read_pcap_100k", |b| b.iter(|| read_capture_file(&pcap).map(|p| p.len())));
    let image = std::fs::read(&pcap).unwrap_or_default();
    group.bench_function("read_pcap_image_100k", |b| b.iter(|| read_capture(black_box(&image)).map(|p| p.len())));
    group.finish();
    let _ = std::fs::remove_file(pcap);
}

criterion_group!(benches, parsers, captures);
criterion_main!(benches);

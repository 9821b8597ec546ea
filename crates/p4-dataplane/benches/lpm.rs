//! Lookups per second in a one-field 32-bit LPM table (an IPv4 routing table): 10,000 routes of
//! lengths /16, /20, /24 and /32, 256 keys of which half hit a route. Beside the table's trie, in the
//! same run, the probing it replaced as the reference: one hash map per prefix length (same hasher),
//! probed longest first, over the same routes.
//! `cargo bench -p p4-dataplane --bench lpm`.

use std::collections::HashMap;
use std::hash::BuildHasherDefault;
use std::time::{Duration, Instant};

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use p4_dataplane::meter::Meter;
use p4_dataplane::table::{prefix_mask, Entry, IndexKind, KeyHasher, Match, TableState};

const ROUTES: usize = 10_000;
const LENGTHS: [u32; 4] = [16, 20, 24, 32];

type Level = (u32, u128, HashMap<u128, u64, BuildHasherDefault<KeyHasher>>);

/// The lookup `TableState` did for one-field LPM tables before the trie: a map per length, longest
/// first. Not inlined, as `TableState::lookup` is not across crates.
#[inline(never)]
fn probe(by_len: &[Level], key: u128) -> Option<u64> {
    by_len.iter().find_map(|(_, mask, map)| map.get(&(key & mask)).copied())
}

struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u32 {
        self.0 = self.0.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 32) as u32
    }
}

fn bench(c: &mut Criterion) {
    let mut rng = Lcg(42);
    let mut table = TableState::with_fields(IndexKind::Lpm(0), 32, 1);
    let mut by_len: Vec<Level> =
        LENGTHS.iter().rev().map(|len| (*len, prefix_mask(*len, 32), HashMap::default())).collect();
    let mut routes: Vec<(u128, u32)> = Vec::new();
    let mut handles: Vec<u64> = Vec::new();
    let mut inserting = Duration::ZERO;
    while routes.len() < ROUTES {
        let len = LENGTHS[(rng.next() % 4) as usize];
        let m = prefix_mask(len, 32);
        let value = u128::from(rng.next()) & m;
        let entry = Entry {
            matches: vec![Match::Mask(value, m)],
            priority: 0,
            action: 0,
            args: vec![],
            meter: Meter::default(),
        };
        let t0 = Instant::now();
        let inserted = table.insert(entry);
        inserting += t0.elapsed();
        let Ok(handle) = inserted else { continue };
        handles.push(handle);
        if let Some((_, _, map)) = by_len.iter_mut().find(|(l, _, _)| *l == len) {
            map.insert(value, handle);
        }
        routes.push((value, len));
    }
    // Half the keys inside a random route, half keys no route covers.
    let mut keys: Vec<u128> = Vec::new();
    while keys.len() < 256 {
        let key = if keys.len().is_multiple_of(2) {
            let (value, len) = routes[rng.next() as usize % routes.len()];
            value | (u128::from(rng.next()) & !prefix_mask(len, 32) & 0xffff_ffff)
        } else {
            u128::from(rng.next())
        };
        if keys.len().is_multiple_of(2) == probe(&by_len, key).is_some() {
            keys.push(key);
        }
    }
    for k in &keys {
        assert_eq!(table.lookup(&[*k]), probe(&by_len, *k), "key {k:#x}");
    }

    let mut g = c.benchmark_group("lpm");
    g.throughput(Throughput::Elements(keys.len() as u64));
    g.bench_function("probing a map per length (before), 10k routes, 256 keys", |b| {
        b.iter(|| keys.iter().filter_map(|k| probe(&by_len, black_box(*k))).fold(0u64, u64::wrapping_add))
    });
    g.bench_function("TableState::lookup, trie 16-8-8, 10k routes, 256 keys", |b| {
        b.iter(|| keys.iter().filter_map(|k| table.lookup(&[black_box(*k)])).fold(0u64, u64::wrapping_add))
    });
    g.finish();

    // Updates are incremental: what 10k inserts and removes cost (maps and trie), once each.
    let t0 = Instant::now();
    for h in &handles {
        assert!(table.remove(*h).is_ok());
    }
    let removing = t0.elapsed();
    assert!(keys.iter().all(|k| table.lookup(&[*k]).is_none()));
    let each = |d: Duration| d.as_nanos() as f64 / ROUTES as f64 / 1000.0;
    eprintln!("lpm: {ROUTES} inserts {:.2} µs each, {ROUTES} removes {:.2} µs each", each(inserting), each(removing));
}

criterion_group!(benches, bench);
criterion_main!(benches);

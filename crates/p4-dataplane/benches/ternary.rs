//! Lookups per second in an ACL-like ternary table: a 5-tuple key (source and destination IPv4
//! address, protocol, source and destination port), 1,000 entries drawn from 10 rule templates
//! (10 distinct mask tuples) with random priorities, and a catch-all at the worst priority; 256
//! keys of which half are built to hit a random rule and half are random (most reach only the
//! catch-all). Beside the table's tuple-space search, in the same run, the priority-ordered scan it
//! replaced as the reference (`TableState::first_match` over `TableState::precedence`). A second
//! table holds rules of the same templates with the destination port as a `range` field; a third,
//! the worst case for a tuple space, rules of random prefix lengths in every field (almost a tuple
//! per rule).
//! `cargo bench -p p4-dataplane --bench ternary`.

use std::time::{Duration, Instant};

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use p4_dataplane::meter::Meter;
use p4_dataplane::table::{prefix_mask, Entry, IndexKind, Match, TableState};

const RULES: usize = 1_000;
const KEYS: usize = 256;
/// Field widths: source, destination, protocol, source port, destination port.
const WIDTHS: [u32; 5] = [32, 32, 8, 16, 16];

/// A rule template: per field, how many of its leading bits a rule of it matches on.
const TEMPLATES: [[u32; 5]; 10] = [
    [32, 32, 8, 16, 16],
    [24, 24, 8, 0, 16],
    [16, 32, 8, 0, 16],
    [0, 24, 8, 0, 16],
    [24, 0, 8, 0, 0],
    [8, 16, 0, 0, 0],
    [0, 32, 8, 0, 8],
    [32, 0, 0, 0, 0],
    [0, 0, 8, 0, 16],
    [20, 20, 8, 16, 0],
];

/// How the rules of a table are drawn.
#[derive(Clone, Copy, PartialEq)]
enum Rules {
    Templates,
    /// The templates, the destination port a range.
    TemplatesPortRange,
    /// Each field's prefix length random.
    RandomLengths,
}

impl Rules {
    fn name(self) -> &'static str {
        match self {
            Rules::Templates => "10 templates",
            Rules::TemplatesPortRange => "10 templates, dst port a range",
            Rules::RandomLengths => "random lengths",
        }
    }

    fn lengths(self, rng: &mut Lcg) -> [u32; 5] {
        match self {
            Rules::Templates | Rules::TemplatesPortRange => TEMPLATES[rng.next() as usize % TEMPLATES.len()],
            Rules::RandomLengths => WIDTHS.map(|w| rng.next() % (w + 1)),
        }
    }
}

struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u32 {
        self.0 = self.0.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 32) as u32
    }
}

fn random_field(rng: &mut Lcg, width: u32) -> u128 {
    u128::from(rng.next()) & prefix_mask(width, width)
}

/// Field `i` of a rule matching the first `len` bits of `value`: masked, or with the destination
/// port as the range those bits cover when `ranged`.
fn field_match(i: usize, value: u128, len: u32, ranged: bool) -> Match {
    let m = prefix_mask(len, WIDTHS[i]);
    if ranged && i == 4 {
        Match::Range(value & m, value | !m & prefix_mask(WIDTHS[i], WIDTHS[i]))
    } else {
        Match::Mask(value & m, m)
    }
}

fn entry(matches: Vec<Match>, priority: i64) -> Entry {
    Entry { matches, priority, action: 0, args: vec![], meter: Meter::default() }
}

/// A rule: its prefix length and value in each field.
type Rule = ([u32; 5], [u128; 5]);

/// The table of `RULES` rules plus the catch-all, its rules, and how long the inserts took.
fn build(rng: &mut Lcg, rules_of: Rules) -> (TableState, Vec<Rule>, Duration) {
    let ranged = rules_of == Rules::TemplatesPortRange;
    let mut table = TableState::with_fields(IndexKind::Ternary, 0, WIDTHS.len());
    let mut rules = Vec::new();
    let mut inserting = Duration::ZERO;
    while rules.len() < RULES {
        let lengths = rules_of.lengths(rng);
        let values = WIDTHS.map(|w| random_field(rng, w));
        let matches = (0..WIDTHS.len()).map(|i| field_match(i, values[i], lengths[i], ranged)).collect();
        let t0 = Instant::now();
        let inserted = table.insert(entry(matches, i64::from(rng.next() % 1000) + 1));
        inserting += t0.elapsed();
        if inserted.is_ok() {
            rules.push((lengths, values));
        }
    }
    let catch_all = (0..WIDTHS.len()).map(|i| field_match(i, 0, 0, ranged)).collect();
    assert!(table.insert(entry(catch_all, 1_000_000)).is_ok());
    (table, rules, inserting)
}

/// Half the keys inside a random rule (its matched bits, random bits elsewhere), half random.
fn keys(rng: &mut Lcg, rules: &[Rule]) -> Vec<[u128; 5]> {
    (0..KEYS)
        .map(|n| {
            let noise = WIDTHS.map(|w| random_field(rng, w));
            if n % 2 == 1 {
                return noise;
            }
            let (lengths, values) = rules[rng.next() as usize % rules.len()];
            std::array::from_fn(|i| {
                let m = prefix_mask(lengths[i], WIDTHS[i]);
                values[i] & m | noise[i] & !m
            })
        })
        .collect()
}

fn bench(c: &mut Criterion) {
    let mut rng = Lcg(42);
    let mut g = c.benchmark_group("ternary");
    g.throughput(Throughput::Elements(KEYS as u64));
    for rules_of in [Rules::Templates, Rules::TemplatesPortRange, Rules::RandomLengths] {
        let (mut table, rules, inserting) = build(&mut rng, rules_of);
        let keys = keys(&mut rng, &rules);
        let order = table.precedence();
        for k in &keys {
            assert_eq!(table.lookup(k), table.first_match(&order, k), "key {k:x?}");
        }
        let tuples = table.tuple_count().unwrap_or(0);
        let what = rules_of.name();
        g.bench_function(format!("priority-ordered scan (before), {what}, 1,001 entries, 256 keys"), |b| {
            b.iter(|| keys.iter().filter_map(|k| table.first_match(&order, black_box(k))).fold(0u64, u64::wrapping_add))
        });
        g.bench_function(format!("TableState::lookup, tuple space ({tuples} tuples), {what}, 1,001 entries, 256 keys"), |b| {
            b.iter(|| keys.iter().filter_map(|k| table.lookup(black_box(k))).fold(0u64, u64::wrapping_add))
        });
        // Updates are incremental: what the inserts above and removing every entry cost, once each.
        let t0 = Instant::now();
        for h in order {
            assert!(table.remove(h).is_ok());
        }
        let removing = t0.elapsed();
        assert!(keys.iter().all(|k| table.lookup(k).is_none()));
        let each = |d: Duration| d.as_nanos() as f64 / RULES as f64 / 1000.0;
        eprintln!("ternary ({what}): {tuples} tuples; {RULES} inserts {:.2} µs each, {} removes {:.2} µs each", each(inserting), RULES + 1, each(removing));
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);

//! The wire-format executor against the closure executor (the reference) on l2l3 with its bench
//! entries: the bench trace, and random mutations of it (bytes changed, frames cut short or
//! lengthened) so parser errors, bad checksums, IPv4 options, TTL 0/1 and unknown MACs all occur.
//! Every packet must give the same outputs (port and bytes) and the same drops.

#[path = "../benches/l2l3_setup.rs"]
mod l2l3_setup;

use p4_dataplane::batch::{BatchOut, PacketIn};
use p4_dataplane::Switch;
use proptest::prelude::*;

/// Runs `frames` through `sw` and returns, per input, its outputs and drop reasons as text.
fn outcome(sw: &mut Switch, frames: &[Vec<u8>]) -> Vec<(u32, u32, Vec<u8>)> {
    let batch: Vec<PacketIn> = frames.iter().map(|f| PacketIn { port: 1, data: f, now_ns: 1_000 }).collect();
    let mut out = BatchOut::default();
    sw.process_batch(&batch, &mut out);
    let mut seen: Vec<(u32, u32, Vec<u8>)> = out.packets.iter().map(|p| (p.input, p.port, out.data(p).to_vec())).collect();
    seen.extend(out.drops.iter().map(|d| (d.input, u32::MAX, sw.drop_text(&d.reason).into_bytes())));
    seen.sort();
    seen
}

#[test]
fn l2l3_takes_the_wire_format_executor() {
    let mut sw = l2l3_setup::build();
    assert_eq!(sw.executor(), "wire-format");
    assert_eq!(sw.wire_format_refusal(), None);
    assert!(!sw.use_wire_format(false));
    assert_eq!(sw.executor(), "closures");
}

#[test]
fn the_bench_trace_gives_the_same_packets_on_both_executors() {
    let (mut wire, mut closures) = (l2l3_setup::build(), l2l3_setup::build());
    closures.use_wire_format(false);
    let trace = l2l3_setup::trace();
    let a = outcome(&mut wire, &trace);
    assert_eq!(a, outcome(&mut closures, &trace));
    // All 128 switched packets and the 57 routed ones whose address has a route leave (routed ones
    // with a new TTL and checksum); the rest are dropped for want of a route.
    let forwarded = a.iter().filter(|(_, port, _)| *port != u32::MAX).count();
    assert_eq!(forwarded, 185);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    #[test]
    fn mutated_packets_give_the_same_outcome(edits in proptest::collection::vec((0usize..256, 0usize..80, any::<u8>(), 0u8..8), 1..64)) {
        let (mut wire, mut closures) = (l2l3_setup::build(), l2l3_setup::build());
        closures.use_wire_format(false);
        let mut frames = l2l3_setup::trace();
        for (which, at, byte, how) in edits {
            let f = &mut frames[which];
            match how {
                // Cut short: parser errors (PacketTooShort) at every header boundary.
                0 => f.truncate(at.min(f.len())),
                1 => f.resize(64 + at, byte),
                // A byte anywhere else: version/IHL, TTL, checksum, MACs, EtherType.
                _ => {
                    if let Some(b) = f.get_mut(at) {
                        *b = byte;
                    }
                }
            }
        }
        prop_assert_eq!(outcome(&mut wire, &frames), outcome(&mut closures, &frames));
    }
}

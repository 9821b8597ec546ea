//! The switch against the reference interpreter (`p4-reference`) on l2l3 (lowered, as `p4forge`
//! runs it) with its bench entries: the bench trace, and random mutations of it (bytes changed,
//! frames cut short or lengthened) so parser errors, bad checksums, IPv4 options, TTL 0/1 and
//! unknown MACs all occur. Every packet must give the same outputs (port and bytes) and the same
//! drops.

#[path = "../benches/l2l3_setup.rs"]
mod l2l3_setup;

mod common;

use p4_reference::Interpreter;
use proptest::prelude::*;

/// The reference interpreter on l2l3 as the switch runs it, with the same entries.
fn reference() -> Interpreter {
    let mut r = common::interpreter(l2l3_setup::program(true));
    r.ignore_table_sizes();
    l2l3_setup::add_entries(&mut r);
    r
}

#[test]
fn l2l3_runs_as_one_self_contained_machine_code_function() {
    let sw = l2l3_setup::build();
    assert_eq!(sw.code_class(), p4_dataplane::CodeClass::SelfContained);
}

#[test]
fn the_bench_trace_gives_the_same_packets_on_the_switch_and_the_reference() {
    let (mut sw, mut reference) = (l2l3_setup::build(), reference());
    let trace = l2l3_setup::trace();
    let a = common::injected_on(&mut sw, 1, &trace);
    assert_eq!(a, common::injected_on(&mut reference, 1, &trace));
    // All 128 switched packets and the 57 routed ones whose address has a route leave (routed ones
    // with a new TTL and checksum); the rest are dropped for want of a route.
    let forwarded = a.iter().filter(|(_, port, _)| *port < u32::MAX - 1).count();
    assert_eq!(forwarded, 185);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    #[test]
    fn mutated_packets_give_the_same_outcome(edits in proptest::collection::vec((0usize..256, 0usize..80, any::<u8>(), 0u8..8), 1..64)) {
        let (mut sw, mut reference) = (l2l3_setup::build(), reference());
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
        prop_assert_eq!(common::injected_on(&mut sw, 1, &frames), common::injected_on(&mut reference, 1, &frames));
    }
}

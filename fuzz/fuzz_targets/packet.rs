//! Arbitrary packets into each example application (l2l3, mdp, paxos) with its entries loaded:
//! no packet may panic the dataplane. Input layout: see `src/packet_harness.rs`.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../src/packet_harness.rs"]
mod packet_harness;

fuzz_target!(|data: &[u8]| {
    packet_harness::run(data);
});

//! A stable-Rust stand-in for `cargo fuzz run deparser`: random deparsers and packets, every
//! executor compared byte for byte; stops at the first difference or panic. Input layout: see
//! `deparser_harness.rs`.
//!
//! Usage: `deparser_loop [iterations] [seed]` (defaults: 200000, 1; each iteration compiles the
//! program seven times, so a few thousand take minutes).

#[path = "deparser_harness.rs"]
mod deparser_harness;
#[path = "rng.rs"]
mod rng;

fn main() {
    rng::drive(
        "deparser_loop",
        "bin",
        |rng| {
            let statements = 8 + rng.below(56);
            let mut input = vec![statements as u8];
            input.extend(rng.bytes(statements));
            for _ in 0..1 + rng.below(4) {
                // A header h (kind, n), then a, b and three stack elements: 18 bytes, sometimes cut.
                let len = 18 + rng.below(8);
                let mut packet = rng.bytes(len);
                let keep = 2 + rng.below(len - 1);
                packet.truncate(keep);
                packet.retain(|&b| b != 0xa5);
                input.extend(packet);
                input.push(0xa5);
            }
            input
        },
        deparser_harness::run,
    );
}

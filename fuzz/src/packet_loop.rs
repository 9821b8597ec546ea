//! A stable-Rust stand-in for `cargo fuzz run packet`: random and structured packets into each
//! example application; stops at the first panic. Input layout: see `packet_harness.rs`.
//!
//! Usage: `packet_loop [iterations] [seed]` (defaults: 200000, 1).

#[path = "packet_harness.rs"]
mod packet_harness;
#[path = "rng.rs"]
mod rng;

fn main() {
    eprintln!("packet_loop: {} examples loaded", packet_harness::examples().len());
    rng::drive(
        "packet_loop",
        "bin",
        |rng| {
            let mut input = vec![rng.next() as u8];
            let len = match rng.below(4) {
                0 => rng.below(16),
                1 => rng.below(64),
                2 => rng.below(200),
                _ => rng.below(1600),
            };
            input.extend(rng.bytes(len));
            // Small values and all-ones bytes hit length fields and select cases more often.
            if rng.below(2) == 0 {
                rng::mutate(rng, &mut input, &[&[0], &[0xff], &[0, 0], &[8, 0], &[0x45], &[17]], 8);
            }
            input
        },
        packet_harness::run,
    );
}

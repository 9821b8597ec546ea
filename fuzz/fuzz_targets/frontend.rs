//! Arbitrary bytes (lossy UTF-8) through preprocessor + parser + checker + elaborator: no input may
//! panic, hang or overflow the stack. Seed corpus: `./seed-corpus.sh` (the repository's own `.p4`).
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../src/frontend_harness.rs"]
mod frontend_harness;

fuzz_target!(|data: &[u8]| {
    frontend_harness::run(&String::from_utf8_lossy(data));
});

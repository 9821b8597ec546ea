//! Feed arbitrary bytes to the preprocessor + parser + printer: none may panic, hang or overflow.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../src/parse_harness.rs"]
mod parse_harness;

fuzz_target!(|data: &[u8]| {
    parse_harness::run(&String::from_utf8_lossy(data));
});

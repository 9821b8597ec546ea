//! Deparsers drawn from the input, run on every executor as written and lowered: every executor
//! must send the same bytes. Input layout: see `src/deparser_harness.rs`.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../src/deparser_harness.rs"]
mod deparser_harness;

fuzz_target!(|data: &[u8]| {
    deparser_harness::run(data);
});

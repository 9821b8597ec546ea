//! p4-testgen: regenerates p4forge's STF test data — the feature tests in `tests/stf/` (v1model)
//! and `tests/stf-psa/` (PSA) and the examples' STF files — with every expected byte (checksums and
//! CRCs included) computed here, independently of p4forge, so the tests compare p4forge against
//! separate arithmetic.
//!
//! Generation is pure: each entry point fills a [`Files`] map (path relative to the workspace root ->
//! text) that the binary writes and the drift test compares with the committed files.
#![forbid(unsafe_code)]

pub mod checksum;
pub mod examples;
pub mod features;
pub mod output;
pub mod packet;
pub mod psa;

pub use output::Files;

/// The feature tests of `tests/stf/` and `tests/stf-psa/` (programs, STF files and the README
/// indexes).
pub fn stf_features() -> Files {
    let mut files = Files::default();
    features::generate(&mut files);
    psa::generate(&mut files);
    files
}

/// The examples' STF files (`examples/NAME/NAME.stf`).
pub fn example_stfs() -> Files {
    let mut files = Files::default();
    examples::generate(&mut files);
    files
}

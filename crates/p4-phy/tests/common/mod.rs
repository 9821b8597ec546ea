//! Helpers shared by the integration tests. Each test binary uses some of them.
#![allow(dead_code)]

use p4_phy::cli::{CaptureArgs, GenArgs};
use std::path::PathBuf;

/// The consecutive pieces that `pattern` (repeated as often as needed) cuts `0..total` into:
/// how the tests feed one stream to the bulk paths in uneven calls.
pub fn pieces(total: usize, pattern: &[usize]) -> Vec<std::ops::Range<usize>> {
    let mut out = Vec::new();
    let mut at = 0;
    for len in pattern.iter().cycle() {
        if at == total || *len == 0 {
            break;
        }
        let end = (at + len).min(total);
        out.push(at..end);
        at = end;
    }
    out
}

/// 50 frames of 256 octets at line rate, JSON report, nothing written.
pub fn gen_args() -> GenArgs {
    GenArgs {
        count: 50,
        size: 256,
        idles: None,
        rate: None,
        poisson: None,
        replay: None,
        min_gap: 12,
        seed: 1,
        stream: None,
        pcapng: None,
        capture: None,
        bins: 4,
        json: true,
        progress: Default::default(),
    }
}

/// Capture `stream` with a text report and no output file, no bits flipped.
pub fn capture_args(stream: PathBuf) -> CaptureArgs {
    CaptureArgs { stream, out: None, with_fcs: false, flip_bits: 0, seed: 1, bins: 4, json: false, progress: Default::default() }
}

//! Argument sets the command-function tests start from (each test changes what it is about).

use p4_phy::cli::{CaptureArgs, GenArgs};
use std::path::PathBuf;

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

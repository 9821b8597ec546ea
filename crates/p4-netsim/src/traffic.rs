//! Traffic sources: CBR1 (fixed size, uniform gaps), CBR2 (log-normal sizes, geometric chains of
//! back-to-back frames), replay of a pcap's timing, and random-destination load.
//!
//! Invariant: rates count wire bytes (preamble, frame and IFG), so a source at R Gb/s occupies
//! exactly R/10 of a 10 Gb/s link on average.

use crate::time::{from_ns, interval_for_rate, wire_bytes, Time};
use rand::Rng;
use rand_chacha::ChaCha8Rng;
use rand_distr::{Distribution, LogNormal};

/// The fixed high size variance of CBR2 (bytes squared) that `d_size` scales.
pub const CBR2_SIZE_VARIANCE: f64 = 8e4;
/// Longest chain CBR2 draws (a guard against `d_len` close to 1).
pub const CBR2_MAX_CHAIN: u64 = 4096;

/// When a source sends.
#[derive(Clone, Debug, PartialEq)]
pub enum Pattern {
    /// CBR1: frames of `len` bytes evenly spaced at `gbps`.
    Cbr {
        /// Frame length in bytes (header to FCS).
        len: u32,
        /// Rate in Gb/s (wire bytes).
        gbps: f64,
    },
    /// CBR2: chains of back-to-back frames; sizes log-normal with mean `mean_len` and variance
    /// `d_size * 8e4`, chain lengths geometric with parameter `1 - d_len`; chains spaced so the
    /// long-run rate is `gbps`.
    Cbr2 {
        /// Mean frame length.
        mean_len: f64,
        /// Rate in Gb/s.
        gbps: f64,
        /// Size dispersion knob 0..=1.
        d_size: f64,
        /// Chain length knob 0..=1.
        d_len: f64,
    },
    /// Frames of `len` bytes with exponentially distributed gaps averaging `gbps`.
    Poisson {
        /// Frame length in bytes.
        len: u32,
        /// Mean rate in Gb/s.
        gbps: f64,
    },
    /// Frames of `len` bytes whose starts are exactly `ipd_bytes` byte times apart (a
    /// generator that counts idle characters; exact when the sender's clock is nominal).
    Paced {
        /// Frame length in bytes.
        len: u32,
        /// Start-to-start distance in byte times.
        ipd_bytes: u64,
    },
    /// Replay of recorded timing: send times relative to the first frame, and frame lengths;
    /// loops with the trace's duration as period.
    Replay {
        /// Relative send times, non-decreasing.
        times: Vec<Time>,
        /// Frame lengths.
        lens: Vec<u32>,
    },
}

impl Pattern {
    /// Long-run rate in Gb/s (wire bytes).
    pub fn mean_gbps(&self) -> f64 {
        match self {
            Pattern::Cbr { gbps, .. } | Pattern::Cbr2 { gbps, .. } | Pattern::Poisson { gbps, .. } => *gbps,
            Pattern::Paced { len, ipd_bytes } => wire_bytes(*len as u64) as f64 * 10.0 / (*ipd_bytes).max(1) as f64,
            Pattern::Replay { times, lens } => {
                let period = replay_period(times, lens);
                let bits: u64 = lens.iter().map(|&l| wire_bytes(l as u64) * 8).sum();
                if period == 0 {
                    0.0
                } else {
                    bits as f64 / crate::time::to_ns(period)
                }
            }
        }
    }
}

fn replay_period(times: &[Time], lens: &[u32]) -> Time {
    match (times.last(), lens.last()) {
        (Some(&t), Some(&l)) => t + wire_bytes(l as u64) * crate::time::BYTE_TIME,
        _ => 0,
    }
}

/// Where a source's frames go.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Dest {
    /// Always this node.
    Node(usize),
    /// A uniformly random host other than the sender.
    RandomHost,
}

/// A traffic source attached to a host.
#[derive(Clone, Debug)]
pub struct Source {
    /// Sending host.
    pub node: usize,
    /// Destination.
    pub dest: Dest,
    /// Flow id (what a flow table matches).
    pub flow: u32,
    /// Timing.
    pub pattern: Pattern,
    /// First send.
    pub start: Time,
    /// No sends at or after this time.
    pub stop: Time,
    pub(crate) count: u64,
    pub(crate) rng: ChaCha8Rng,
}

impl Source {
    /// A source; `rng` drives sizes, chains and random destinations.
    pub fn new(node: usize, dest: Dest, flow: u32, pattern: Pattern, start: Time, stop: Time, rng: ChaCha8Rng) -> Self {
        Source { node, dest, flow, pattern, start, stop, count: 0, rng }
    }

    /// Frame lengths to send now and the time of the next burst (`None` when done).
    pub(crate) fn burst(&mut self, now: Time) -> (Vec<u32>, Option<Time>) {
        let n = self.count;
        self.count += 1;
        let (lens, next) = match &self.pattern {
            Pattern::Cbr { len, gbps } => {
                let iv = interval_for_rate(*len as u64, *gbps);
                (vec![*len], self.start + (n + 1) * iv)
            }
            Pattern::Poisson { len, gbps } => {
                let mean = interval_for_rate(*len as u64, *gbps) as f64;
                let u: f64 = 1.0 - self.rng.gen::<f64>();
                (vec![*len], now + (-u.ln() * mean).round() as Time)
            }
            Pattern::Paced { len, ipd_bytes } => {
                (vec![*len], self.start + (n + 1) * ipd_bytes * crate::time::BYTE_TIME)
            }
            Pattern::Cbr2 { mean_len, gbps, d_size, d_len } => {
                let chain = if *d_len <= 0.0 {
                    1
                } else {
                    let u: f64 = 1.0 - self.rng.gen::<f64>();
                    (1 + (u.ln() / d_len.min(0.999_999).ln()).floor() as u64).min(CBR2_MAX_CHAIN)
                };
                let var = d_size.clamp(0.0, 1.0) * CBR2_SIZE_VARIANCE;
                let lens: Vec<u32> = if var <= 0.0 {
                    vec![mean_len.round() as u32; chain as usize]
                } else {
                    let s2 = (1.0 + var / (mean_len * mean_len)).ln();
                    let mu = mean_len.ln() - s2 / 2.0;
                    match LogNormal::new(mu, s2.sqrt()) {
                        Ok(d) => {
                            (0..chain).map(|_| d.sample(&mut self.rng).round().clamp(64.0, 1518.0) as u32).collect()
                        }
                        Err(_) => vec![mean_len.round() as u32; chain as usize],
                    }
                };
                let bits: u64 = lens.iter().map(|&l| wire_bytes(l as u64) * 8).sum();
                (lens, now + from_ns(bits as f64 / gbps.max(1e-9)))
            }
            Pattern::Replay { times, lens } => {
                if times.is_empty() || lens.len() != times.len() {
                    return (Vec::new(), None);
                }
                let period = replay_period(times, lens).max(1);
                let i = (n as usize) % times.len();
                let j = (n + 1) as usize % times.len();
                let next_round = (n + 1) / times.len() as u64;
                (vec![lens[i]], self.start + next_round * period + times[j])
            }
        };
        let next = Some(next).filter(|&t| t < self.stop);
        (lens, next)
    }
}

/// Largest capture read for `--cross pcap:PATH`: an endless input (/dev/zero, a FIFO that never
/// closes) stops here instead of exhausting memory.
pub const MAX_PCAP_BYTES: u64 = 256 << 20;

/// Reads a pcap or pcapng file's timing (at most [`MAX_PCAP_BYTES`]) as a replay pattern
/// (lengths clamped to 64..=1518).
pub fn replay_from_pcap(path: &std::path::Path) -> anyhow::Result<Pattern> {
    use anyhow::Context;
    let data = p4_io::input::read_bytes(path, "cross-traffic capture", MAX_PCAP_BYTES)?;
    let mut stamps: Vec<(u128, u32)> = Vec::new();
    if let Ok(mut r) = pcap_file::pcap::PcapReader::new(&data[..]) {
        while let Some(p) = r.next_packet() {
            let p = p.with_context(|| format!("{}: bad pcap record", path.display()))?;
            stamps.push((p.timestamp.as_nanos(), p.orig_len));
        }
    } else {
        let mut r = pcap_file::pcapng::PcapNgReader::new(&data[..])
            .with_context(|| format!("{}: neither pcap nor pcapng", path.display()))?;
        while let Some(b) = r.next_block() {
            let b = b.with_context(|| format!("{}: bad pcapng block", path.display()))?;
            if let pcap_file::pcapng::Block::EnhancedPacket(e) = b {
                stamps.push((e.timestamp.as_nanos(), e.original_len));
            }
        }
    }
    anyhow::ensure!(!stamps.is_empty(), "{}: no packets", path.display());
    let t0 = stamps[0].0;
    let mut times = Vec::with_capacity(stamps.len());
    let mut lens = Vec::with_capacity(stamps.len());
    let mut last = 0;
    for (t, l) in stamps {
        // timestamps must not go backwards; clamp so replay stays causal
        let rel = from_ns(t.saturating_sub(t0) as f64).max(last);
        last = rel;
        times.push(rel);
        lens.push(l.clamp(64, 1518));
    }
    Ok(Pattern::Replay { times, lens })
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    fn src(p: Pattern) -> Source {
        Source::new(0, Dest::Node(1), 0, p, 0, u64::MAX, ChaCha8Rng::seed_from_u64(1))
    }

    #[test]
    fn cbr_is_evenly_spaced() {
        let mut s = src(Pattern::Cbr { len: 792, gbps: 8.0 });
        assert_eq!(s.burst(0), (vec![792], Some(from_ns(812.0))));
        assert_eq!(s.burst(from_ns(812.0)), (vec![792], Some(from_ns(1624.0))));
    }

    #[test]
    fn cbr2_keeps_the_rate_and_varies() {
        let mut s = src(Pattern::Cbr2 { mean_len: 792.0, gbps: 5.0, d_size: 1.0, d_len: 0.5 });
        let (mut t, mut bits, mut frames, mut sizes) = (0, 0u64, 0u64, std::collections::BTreeSet::new());
        for _ in 0..20_000 {
            let (lens, next) = s.burst(t);
            for l in lens {
                bits += wire_bytes(l as u64) * 8;
                frames += 1;
                sizes.insert(l);
            }
            t = next.unwrap();
        }
        let gbps = bits as f64 / crate::time::to_ns(t);
        assert!((gbps - 5.0).abs() < 1e-6, "{gbps}");
        assert!(frames > 30_000, "mean chain length 2 expected, got {frames} frames");
        assert!(sizes.len() > 100);
    }

    #[test]
    fn replay_loops() {
        let mut s = src(Pattern::Replay { times: vec![0, 100], lens: vec![64, 64] });
        let period = 100 + 84 * crate::time::BYTE_TIME;
        assert_eq!(s.burst(0).1, Some(100));
        assert_eq!(s.burst(100).1, Some(period));
        assert_eq!(s.burst(period).1, Some(period + 100));
    }
}

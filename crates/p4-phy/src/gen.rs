//! The packet generator: frames and exact gaps → a scrambled 10GBASE-R block stream, with the
//! transmit timestamp of every frame; and the loopback capturer that receives such a stream.
//!
//! Rates follow SoNIC's convention: the rate of a stream counts preamble and frame octets, so
//! back-to-back frames of length L with gap g run at 10 Gb/s × (L+8)/(L+8+g). One XGMII
//! character lasts exactly 800 ps (8.25 bit periods).

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

use crate::block::Block66;
use crate::ifg::{GapRule, STANDARD_MIN_GAP};
use crate::lock::BitStream;
use crate::mac;
use crate::rx::{RxConfig, RxCounters, RxFrame, RxPhy};
use crate::time::BitTime;
use crate::tx::{TxConfig, TxPhy, TxStamp};

/// Picoseconds per XGMII character.
pub const PS_PER_CHAR: u64 = 800;

/// How gaps between generated frames are chosen.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum GapPattern {
    /// Every gap is exactly this many characters (/T/ plus idles).
    Idles(u32),
    /// Uniform spacing giving this rate in Gb/s (rounded to the nearest constant legal gap,
    /// so the spacing has zero variance).
    Rate(f64),
    /// Poisson arrivals at this mean rate in Gb/s: gaps are the minimum gap plus an
    /// exponential extra, so the mean rate is kept.
    Poisson(f64),
    /// Start-to-start delays in picoseconds, one per frame after the first (from a capture).
    Replay(Vec<u64>),
}

/// Generator settings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GenConfig {
    /// Frames to send (for [`GapPattern::Replay`], at most the delays given plus one).
    pub count: usize,
    /// Frame length including FCS (64..).
    pub frame_len: usize,
    /// Gap pattern.
    pub pattern: GapPattern,
    /// Smallest gap sent; below 12 sends fewer idles than the standard.
    pub min_gap: u32,
    /// Idle blocks before the first frame (a receiver needs 64 to lock).
    pub lead_blocks: u64,
    /// Idle blocks after the last frame.
    pub tail_blocks: u64,
    /// Seed of the random gaps.
    pub seed: u64,
}

impl Default for GenConfig {
    fn default() -> Self {
        GenConfig {
            count: 1000,
            frame_len: 1518,
            pattern: GapPattern::Idles(STANDARD_MIN_GAP),
            min_gap: STANDARD_MIN_GAP,
            lead_blocks: 128,
            tail_blocks: 16,
            seed: 1,
        }
    }
}

impl GenConfig {
    /// Blocks the stream will take (an estimate good to a few blocks per frame), so callers
    /// can refuse streams that would not fit in memory before generating them.
    pub fn estimated_blocks(&self) -> u64 {
        let wire = (self.frame_len.max(mac::MIN_FRAME) + mac::PREAMBLE_LEN) as f64;
        let n = self.count as f64;
        let chars = match &self.pattern {
            GapPattern::Idles(g) => n * (wire + f64::from(*g).max(f64::from(self.min_gap))),
            GapPattern::Rate(r) | GapPattern::Poisson(r) => {
                n * (wire + gap_for_rate(self.frame_len, *r).max(f64::from(self.min_gap)))
            }
            GapPattern::Replay(d) => {
                d.iter().take(self.count.saturating_sub(1)).map(|x| *x as f64 / PS_PER_CHAR as f64).sum::<f64>()
                    + wire
                    + n * f64::from(self.min_gap)
            }
        };
        (chars / 8.0).ceil().min(u64::MAX as f64) as u64 + self.lead_blocks + self.tail_blocks + 2 * self.count as u64
    }
}

/// A generated stream.
#[derive(Clone, Debug)]
pub struct Generated {
    /// The frames sent (with FCS).
    pub frames: Vec<Vec<u8>>,
    /// Their transmit timestamps and realised gaps.
    pub stamps: Vec<TxStamp>,
    /// The scrambled line blocks.
    pub blocks: Vec<Block66>,
}

impl Generated {
    /// Rate achieved between the first and last start, SoNIC's convention, in Gb/s.
    pub fn rate_gbps(&self) -> f64 {
        let (Some(first), Some(last)) = (self.stamps.first(), self.stamps.last()) else {
            return 0.0;
        };
        let span = last.start.0.saturating_sub(first.start.0) as f64 * 32.0 / 330.0;
        let n = self.frames.len().saturating_sub(1);
        let bits: usize = self.frames.iter().take(n).map(|f| (f.len() + mac::PREAMBLE_LEN) * 8).sum();
        if span > 0.0 {
            bits as f64 / span
        } else {
            0.0
        }
    }

    /// The stream as raw serial bits (what a capture port would see).
    pub fn to_bitstream(&self) -> BitStream {
        let mut s = BitStream::new();
        for b in &self.blocks {
            s.push_block(*b);
        }
        s
    }
}

/// A test frame: broadcast-free locally administered addresses, EtherType 0x88B5 (local
/// experimental), the sequence number in the first payload octets, padded to `len` with FCS.
pub fn test_frame(seq: u64, len: usize) -> Vec<u8> {
    let len = len.max(mac::MIN_FRAME);
    let mut payload = vec![0u8; len - 14 - mac::FCS_LEN];
    let n = payload.len().min(8);
    payload[..n].copy_from_slice(&seq.to_be_bytes()[..n]);
    mac::ethernet_frame([0x02, 0, 0, 0, 0, 2], [0x02, 0, 0, 0, 0, 1], 0x88b5, &payload)
}

/// The gap (characters) that gives `gbps` for frames of `frame_len`, before rounding.
pub fn gap_for_rate(frame_len: usize, gbps: f64) -> f64 {
    let wire = (frame_len + mac::PREAMBLE_LEN) as f64;
    if gbps <= 0.0 {
        return f64::INFINITY;
    }
    wire * (10.0 / gbps - 1.0)
}

/// Nearest gap ≥ `min_gap` that keeps every start in lane 0/4 for frames of `frame_len`.
pub fn aligned_gap(frame_len: usize, gap: f64, min_gap: u32) -> u32 {
    let wire = (frame_len + mac::PREAMBLE_LEN) as i64;
    let g = gap.clamp(0.0, 1e9).round() as i64;
    let mut best = g - ((wire + g) % 4);
    if (g - best) > 2 {
        best += 4;
    }
    while best < i64::from(min_gap) {
        best += 4;
    }
    best as u32
}

/// Run the generator.
pub fn generate(cfg: &GenConfig) -> Generated {
    let (rule, gaps): (GapRule, Vec<u32>) = plan_gaps(cfg);
    let mut tx = TxPhy::new(TxConfig { rule, min_gap: cfg.min_gap });
    let mut blocks = Vec::new();
    tx.idle(cfg.lead_blocks, &mut blocks);
    let mut frames = Vec::with_capacity(gaps.len());
    let mut stamps = Vec::with_capacity(gaps.len());
    for (i, gap) in gaps.iter().enumerate() {
        let f = test_frame(i as u64, cfg.frame_len);
        stamps.push(tx.send(&f, *gap, &mut blocks));
        frames.push(f);
    }
    tx.idle(cfg.tail_blocks, &mut blocks);
    Generated { frames, stamps, blocks }
}

/// The gap before every frame (the first one is measured from the end of the lead idles).
fn plan_gaps(cfg: &GenConfig) -> (GapRule, Vec<u32>) {
    let (rule, gaps) = gap_plan(cfg);
    (rule, gaps.collect())
}

/// The gap rule and the gap before every frame, one at a time (so a streaming generator does
/// not hold a gap per frame).
pub fn gap_plan(cfg: &GenConfig) -> (GapRule, Box<dyn Iterator<Item = u32> + '_>) {
    let first = 0u32;
    let n = cfg.count;
    let wire = (cfg.frame_len.max(mac::MIN_FRAME) + mac::PREAMBLE_LEN) as f64;
    let min_gap = f64::from(cfg.min_gap);
    match &cfg.pattern {
        GapPattern::Idles(g) => (GapRule::RoundUp, Box::new((0..n).map(move |i| if i == 0 { first } else { *g }))),
        GapPattern::Rate(r) => {
            let g = aligned_gap(cfg.frame_len.max(mac::MIN_FRAME), gap_for_rate(cfg.frame_len, *r), cfg.min_gap);
            (GapRule::RoundUp, Box::new((0..n).map(move |i| if i == 0 { first } else { g })))
        }
        GapPattern::Poisson(r) => {
            let mean = gap_for_rate(cfg.frame_len, *r).max(min_gap);
            let extra_mean = mean - min_gap;
            let mut rng = ChaCha8Rng::seed_from_u64(cfg.seed);
            let mut carry = 0.0f64;
            let gaps = (0..n).map(move |i| {
                if i == 0 {
                    return first;
                }
                let u: f64 = rng.gen_range(f64::MIN_POSITIVE..1.0);
                let want = min_gap + extra_mean * -u.ln() + carry;
                let g = want.round().max(min_gap);
                carry = want - g;
                g as u32
            });
            (GapRule::Dic, Box::new(gaps))
        }
        GapPattern::Replay(delays) => {
            let mut carry = 0.0f64;
            let rest = delays.iter().take(n.saturating_sub(1)).map(move |d| {
                let want = *d as f64 / PS_PER_CHAR as f64 - wire + carry;
                let g = want.round().max(min_gap);
                carry = want - g;
                g as u32
            });
            (GapRule::Dic, Box::new(std::iter::once(first).chain(rest).take(n)))
        }
    }
}

/// What a receiver made of a stream.
#[derive(Clone, Debug)]
pub struct Captured {
    /// Frames delivered, with receive timestamps and gaps.
    pub frames: Vec<RxFrame>,
    /// Receive counters.
    pub counters: RxCounters,
}

impl Captured {
    /// Receive start times.
    pub fn starts(&self) -> Vec<BitTime> {
        self.frames.iter().map(|f| f.start).collect()
    }
}

/// Receive block-aligned scrambled `blocks` (the loopback path, no bit slips).
pub fn receive_blocks(blocks: &[Block66], config: RxConfig) -> Captured {
    let mut rx = RxPhy::new(config);
    let mut frames = Vec::new();
    rx.receive(blocks, &mut frames);
    Captured { frames, counters: *rx.counters() }
}

/// Receive a raw serial bit stream: find block lock, then descramble and decode every locked
/// run. Timestamps are bit offsets in `stream`.
pub fn receive_bits(stream: &BitStream, config: RxConfig) -> (Captured, crate::lock::Alignment) {
    let mut al = crate::lock::align(stream);
    let mut frames = Vec::new();
    let mut counters = RxCounters::default();
    for run in &al.runs {
        let mut rx = RxPhy::new(RxConfig { origin: run.first_bit, ..config });
        // The hardware descrambler runs before lock too: its state is the previous block's
        // payload when the stream has one.
        if let Some(prev) = run.first_bit.0.checked_sub(66).and_then(|at| stream.block_at(at)) {
            rx.descrambler = crate::Descrambler::new(prev.payload);
        }
        rx.receive(&run.blocks, &mut frames);
        add_counters(&mut counters, rx.counters());
    }
    // The runs are not needed by callers once decoded; keep only their placement.
    for run in &mut al.runs {
        run.blocks = Vec::new();
    }
    (Captured { frames, counters }, al)
}

use crate::stream::add_counters;

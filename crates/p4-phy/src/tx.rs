//! The transmit path: MAC frames and requested gaps → 64b/66b blocks → scrambled stream.
//!
//! This is the fast path of the encoder: it builds blocks straight from frame octets (the
//! XGMII word form in [`crate::codec`] gives identical blocks, which the tests check).
//! Invariants: blocks are emitted strictly in order and never revised; `end` is the character
//! position of the last /T/ (0 before the first frame); every emitted frame start is in lane
//! 0 or 4 of a block after the one holding the previous /T/.

use crate::block::{ctrl, Block66};
use crate::ifg::{GapRule, GapShaper, STANDARD_MIN_GAP};
use crate::mac::PREAMBLE_AFTER_START;
use crate::scrambler::Scrambler;
use crate::time::{BitTime, CHARS_PER_BLOCK};

/// How the transmitter turns requested gaps into frame positions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct TxConfig {
    /// Alignment rule for gaps that do not put /S/ in lane 0 or 4.
    pub rule: GapRule,
    /// Smallest gap ever sent; below 12 sends fewer idles than the standard allows.
    pub min_gap: u32,
}

impl TxConfig {
    /// A standard MAC + RS: DIC, minimum gap 12.
    pub const STANDARD: TxConfig = TxConfig { rule: GapRule::Dic, min_gap: STANDARD_MIN_GAP };
    /// A generator that sends exactly the gap asked for when it is legal, and the next legal
    /// one otherwise, never below the standard minimum.
    pub const EXACT: TxConfig = TxConfig { rule: GapRule::RoundUp, min_gap: STANDARD_MIN_GAP };
}

impl Default for TxConfig {
    fn default() -> Self {
        TxConfig::STANDARD
    }
}

/// Where and how a frame went out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TxStamp {
    /// Bit time of the /S/ character (see [`BitTime::of_lane`]).
    pub start: BitTime,
    /// Realised gap in characters since the previous /T/ (or since the stream start).
    pub gap: u64,
}

/// The preamble octets D1..D7 as the payload bits of a lane-0 start block.
const PREAMBLE_D1_D7: u64 = {
    let mut v = 0u64;
    let mut i = 0;
    while i < 7 {
        v |= (PREAMBLE_AFTER_START[i] as u64) << (8 * i);
        i += 1;
    }
    v
};

/// Little-endian value of up to 8 octets (missing high octets are zero).
#[inline]
fn le_partial(bytes: &[u8]) -> u64 {
    let mut buf = [0u8; 8];
    let n = bytes.len().min(8);
    buf[..n].copy_from_slice(&bytes[..n]);
    u64::from_le_bytes(buf)
}

/// Where encoded blocks go: a plain vector, or a scrambler in front of one (so the TX path
/// encodes and scrambles each block in one pass).
pub trait BlockSink {
    /// Take one block.
    fn put(&mut self, b: Block66);
    /// Hint that `n` more blocks are coming.
    fn reserve(&mut self, _n: usize) {}
}

impl BlockSink for Vec<Block66> {
    #[inline]
    fn put(&mut self, b: Block66) {
        self.push(b);
    }
    fn reserve(&mut self, n: usize) {
        Vec::reserve(self, n);
    }
}

/// A sink that scrambles every block's payload before appending it. It owns its scrambler
/// (copy it in and back out) so the state can live in a register while blocks are written.
pub struct Scrambling<'a> {
    /// The scrambler.
    pub scrambler: Scrambler,
    /// The output.
    pub out: &'a mut Vec<Block66>,
}

impl BlockSink for Scrambling<'_> {
    #[inline]
    fn put(&mut self, b: Block66) {
        self.out.push(Block66 { sync: b.sync, payload: self.scrambler.scramble(b.payload) });
    }
    fn reserve(&mut self, n: usize) {
        self.out.reserve(n);
    }
}

/// The encoder half of the transmit PCS (unscrambled output).
#[derive(Clone, Debug)]
pub struct TxEncoder {
    shaper: GapShaper,
    end: u64,
    emitted: u64,
}

impl TxEncoder {
    /// A transmitter at the start of a stream.
    pub fn new(config: TxConfig) -> TxEncoder {
        TxEncoder { shaper: GapShaper::new(config.rule, config.min_gap), end: 0, emitted: 0 }
    }

    /// Blocks emitted so far.
    pub fn blocks_emitted(&self) -> u64 {
        self.emitted
    }

    /// Bit time of the next block to be emitted.
    pub fn now(&self) -> BitTime {
        BitTime::of_block(self.emitted)
    }

    /// Current deficit idle count.
    pub fn deficit(&self) -> u32 {
        self.shaper.deficit()
    }

    /// Append `n` idle blocks.
    pub fn idle<S: BlockSink>(&mut self, n: u64, out: &mut S) {
        out.reserve(n as usize);
        for _ in 0..n {
            out.put(Block66::IDLE);
        }
        self.emitted += n;
    }

    /// Append idle blocks until `blocks_emitted() == block` (no-op if already past).
    pub fn idle_until<S: BlockSink>(&mut self, block: u64, out: &mut S) {
        let n = block.saturating_sub(self.emitted);
        self.idle(n, out);
    }

    /// Send `frame` (MAC frame including FCS; it is sent as given, even if malformed) after a
    /// gap of `gap` characters, appending its blocks (and the idles before it) to `out`.
    pub fn send<S: BlockSink>(&mut self, frame: &[u8], gap: u32, out: &mut S) -> TxStamp {
        let start = self.shaper.place(self.end, gap, self.emitted * CHARS_PER_BLOCK);
        let block = start / CHARS_PER_BLOCK;
        let lane = start % CHARS_PER_BLOCK;
        self.idle_until(block, out);
        let stamp = TxStamp { start: BitTime::of_lane(block, lane), gap: start - self.end };
        let (t_lane, written) = Self::write_frame(frame, lane, out);
        self.end = (self.emitted + written - 1) * CHARS_PER_BLOCK + t_lane as u64;
        self.emitted += written;
        stamp
    }

    /// Write the start, data and terminate blocks of `frame` starting in `lane` (0 or 4);
    /// returns the lane of /T/ in the last block and the number of blocks written.
    #[inline]
    fn write_frame<S: BlockSink>(frame: &[u8], lane: u64, out: &mut S) -> (usize, u64) {
        let mut rest = frame;
        let mut n = 2u64; // the start and terminate blocks
        out.reserve(frame.len() / 8 + 3);
        if lane == 0 {
            out.put(Block66::start0(PREAMBLE_D1_D7));
        } else {
            // Lane 4: idles in lanes 0..3, /S/ and three preamble octets, then a block whose
            // first four lanes finish the preamble.
            out.put(Block66::start4([ctrl::IDLE; 4], PREAMBLE_D1_D7));
            let head = PREAMBLE_D1_D7 >> 24;
            if rest.len() < 4 {
                let k = 4 + rest.len();
                out.put(Block66::terminate_idle(k, head | le_partial(rest) << 32));
                return (k, n);
            }
            out.put(Block66::data(head | le_partial(&rest[..4]) << 32));
            n += 1;
            rest = &rest[4..];
        }
        let mut chunks = rest.chunks_exact(8);
        for c in &mut chunks {
            let mut w = [0u8; 8];
            w.copy_from_slice(c);
            out.put(Block66::data(u64::from_le_bytes(w)));
        }
        n += (rest.len() / 8) as u64;
        let tail = chunks.remainder();
        out.put(Block66::terminate_idle(tail.len(), le_partial(tail)));
        (tail.len(), n)
    }
}

/// The whole transmit PCS: encoder followed by the scrambler.
#[derive(Clone, Debug)]
pub struct TxPhy {
    /// The encoder (frame placement, 64b/66b).
    pub encoder: TxEncoder,
    /// The scrambler.
    pub scrambler: Scrambler,
}

impl TxPhy {
    /// A transmitter with the given gap rules and the default scrambler state.
    pub fn new(config: TxConfig) -> TxPhy {
        TxPhy { encoder: TxEncoder::new(config), scrambler: Scrambler::default() }
    }

    /// Send `frame` after `gap` characters, appending scrambled blocks to `out`.
    pub fn send(&mut self, frame: &[u8], gap: u32, out: &mut Vec<Block66>) -> TxStamp {
        let mut sink = Scrambling { scrambler: self.scrambler, out };
        let stamp = self.encoder.send(frame, gap, &mut sink);
        self.scrambler = sink.scrambler;
        stamp
    }

    /// Append `n` scrambled idle blocks.
    pub fn idle(&mut self, n: u64, out: &mut Vec<Block66>) {
        let mut sink = Scrambling { scrambler: self.scrambler, out };
        self.encoder.idle(n, &mut sink);
        self.scrambler = sink.scrambler;
    }
}

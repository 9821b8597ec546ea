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

/// Little-endian value of the last `n < 8` octets of `frame` (zero when `n` is 0). Reads the
/// frame's last eight octets as one word where it has them: copying a variable number of
/// octets into a stack buffer and reloading it as a word stalls store forwarding.
#[inline]
fn le_tail(frame: &[u8], n: usize) -> u64 {
    if n == 0 {
        return 0;
    }
    match frame.len().checked_sub(8).and_then(|at| frame.get(at..)) {
        Some(last8) => {
            let mut w = [0u8; 8];
            w.copy_from_slice(last8);
            u64::from_le_bytes(w) >> (8 * (8 - n))
        }
        None => frame[frame.len() - n..].iter().rev().fold(0, |acc, b| acc << 8 | u64::from(*b)),
    }
}

/// The encoder half of the transmit PCS (unscrambled output).
#[derive(Clone, Debug)]
pub struct TxEncoder {
    shaper: GapShaper,
    end: u64,
    emitted: u64,
    /// Data blocks are written four at a time with AVX-512 (checked once, here).
    vector: bool,
}

impl TxEncoder {
    /// A transmitter at the start of a stream.
    pub fn new(config: TxConfig) -> TxEncoder {
        TxEncoder {
            shaper: GapShaper::new(config.rule, config.min_gap),
            end: 0,
            emitted: 0,
            vector: vector::available(),
        }
    }

    /// Use the portable code only (tests cover it on machines with the vector path).
    #[doc(hidden)]
    pub fn portable(mut self) -> TxEncoder {
        self.vector = false;
        self
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
    pub fn idle(&mut self, n: u64, out: &mut Vec<Block66>) {
        out.resize(out.len() + n as usize, Block66::IDLE);
        self.emitted += n;
    }

    /// Send `frame` (MAC frame including FCS; it is sent as given, even if malformed) after a
    /// gap of `gap` characters, appending its blocks (and the idles before it) to `out`.
    pub fn send(&mut self, frame: &[u8], gap: u32, out: &mut Vec<Block66>) -> TxStamp {
        let mut stamp = None;
        self.send_all(std::iter::once((frame, gap)), out, |s, _| stamp = Some(s));
        stamp.unwrap_or(TxStamp { start: BitTime(0), gap: 0 })
    }

    /// Send every `(frame, gap)` in turn, appending blocks to `out` and giving each frame's
    /// stamp, with the blocks so far, to `sent` once the frame is written (the transmitter
    /// scrambles as it goes there). The loop is compiled twice, once with AVX-512 for the
    /// data blocks, and the choice is made once per call.
    #[inline]
    fn send_all<'f, I, F>(&mut self, frames: I, out: &mut Vec<Block66>, sent: F)
    where
        I: IntoIterator<Item = (&'f [u8], u32)>,
        F: FnMut(TxStamp, &mut Vec<Block66>),
    {
        #[cfg(target_arch = "x86_64")]
        if self.vector {
            // SAFETY: the CPU has AVX2 and AVX-512 F (checked in `new`).
            return unsafe { self.send_all_vector(frames, out, sent) };
        }
        self.send_each::<false, _, _>(frames, out, sent)
    }

    /// # Safety
    /// The CPU has AVX2 and AVX-512 F.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,avx512f")]
    unsafe fn send_all_vector<'f, I, F>(&mut self, frames: I, out: &mut Vec<Block66>, sent: F)
    where
        I: IntoIterator<Item = (&'f [u8], u32)>,
        F: FnMut(TxStamp, &mut Vec<Block66>),
    {
        self.send_each::<true, _, _>(frames, out, sent)
    }

    #[inline(always)]
    fn send_each<'f, const VEC: bool, I, F>(&mut self, frames: I, out: &mut Vec<Block66>, mut sent: F)
    where
        I: IntoIterator<Item = (&'f [u8], u32)>,
        F: FnMut(TxStamp, &mut Vec<Block66>),
    {
        // The placement state lives in locals for the loop: through `self` it went to memory
        // and back on every frame, and each frame's placement depends on the previous one's.
        let (mut end, mut emitted, mut shaper) = (self.end, self.emitted, self.shaper.clone());
        for (frame, gap) in frames {
            let start = shaper.place(end, gap, emitted * CHARS_PER_BLOCK);
            let block = start / CHARS_PER_BLOCK;
            let lane = start % CHARS_PER_BLOCK;
            let stamp = TxStamp { start: BitTime::of_lane(block, lane), gap: start - end };
            let (t_lane, written) = write_frame::<VEC>(frame, (block - emitted) as usize, lane, out);
            end = (block + written - 1) * CHARS_PER_BLOCK + t_lane as u64;
            emitted = block + written;
            sent(stamp, out);
        }
        (self.end, self.emitted, self.shaper) = (end, emitted, shaper);
    }
}

/// Write `idles` idle blocks, then the start, data and terminate blocks of `frame` starting
/// in `lane` (0 or 4); returns the lane of /T/ in the last block and the number of blocks
/// written after the idles.
#[inline(always)]
fn write_frame<const VEC: bool>(frame: &[u8], idles: usize, lane: u64, out: &mut Vec<Block66>) -> (usize, u64) {
    // The blocks are written straight into the vector's spare capacity after growing it once
    // per frame: a capacity check (and the vector's fields reloaded) per block, or a call to
    // `resize` for the idles, is what made minimum-size frames slow.
    out.reserve(idles + blocks_for(frame.len()));
    let at = out.len();
    // SAFETY: `reserve` made room for `idles + blocks_for(frame.len())` blocks after `at`:
    // the idles, then at most what `write_frame_at` writes; the length grows only over the
    // blocks written.
    unsafe {
        let idle = out.as_mut_ptr().add(at);
        for k in 0..idles {
            idle.add(k).write(Block66::IDLE);
        }
        let (t_lane, n) = write_frame_at::<VEC>(frame, lane, idle.add(idles));
        out.set_len(at + idles + n);
        (t_lane, n as u64)
    }
}

/// The most blocks a frame of `len` octets takes: a start block, one block per eight octets
/// (plus one for the four-octet shift of a lane-4 start), and the terminate block.
const fn blocks_for(len: usize) -> usize {
    len / 8 + 3
}

/// [`write_frame`]'s blocks, written at `dst`; returns the lane of /T/ and the block count.
///
/// # Safety
/// `dst` must be valid for writes of `blocks_for(frame.len())` blocks; with `VEC`, the CPU
/// must have AVX2 and AVX-512 F.
#[inline(always)]
unsafe fn write_frame_at<const VEC: bool>(frame: &[u8], lane: u64, dst: *mut Block66) -> (usize, usize) {
    // SAFETY: the caller's promise: `dst` is valid for `blocks_for(frame.len())` blocks, which bounds every
    // block written here (start, one per eight octets, the lane-4 extra, terminate); `body` reads stay
    // within `body`; with `VEC` the CPU has the features `data_blocks` needs.
    unsafe {
        let body = if lane == 0 {
            dst.write(Block66::start0(PREAMBLE_D1_D7));
            frame
        } else {
            // Lane 4: idles in lanes 0..3, /S/ and three preamble octets, then a block whose
            // first four lanes finish the preamble and carry the first four frame octets.
            dst.write(Block66::start4([ctrl::IDLE; 4], PREAMBLE_D1_D7));
            let head = PREAMBLE_D1_D7 >> 24;
            match frame.split_first_chunk::<4>() {
                Some((four, body)) => {
                    dst.add(1).write(Block66::data(head | u64::from(u32::from_le_bytes(*four)) << 32));
                    body
                }
                None => {
                    // Fewer than four octets: /T/ lands in the block after the start.
                    let k = 4 + frame.len();
                    dst.add(1).write(Block66::terminate_idle(k, head | le_tail(frame, frame.len()) << 32));
                    return (k, 2);
                }
            }
        };
        let data = dst.add(1 + (lane != 0) as usize);
        let full = body.len() / 8;
        let mut done = 0;
        #[cfg(target_arch = "x86_64")]
        if VEC {
            done = full / 2 * 2;
            vector::data_blocks(&body[..8 * done], data);
        }
        for k in done..full {
            let octets = body.as_ptr().add(8 * k).cast::<[u8; 8]>().read_unaligned();
            data.add(k).write(Block66::data(u64::from_le_bytes(octets)));
        }
        let tail = body.len() % 8;
        data.add(full).write(Block66::terminate_idle(tail, le_tail(frame, tail)));
        (tail, full + 2 + (lane != 0) as usize)
    }
}

/// Data blocks four at a time with AVX-512 (two for a last pair).
mod vector {
    /// True when the CPU can run [`data_blocks`].
    pub fn available() -> bool {
        #[cfg(target_arch = "x86_64")]
        return std::is_x86_feature_detected!("avx2") && std::is_x86_feature_detected!("avx512f");
        #[cfg(not(target_arch = "x86_64"))]
        false
    }

    /// One data block per 8 octets of `octets` (a multiple of 16 long) at `dst`: a permute
    /// puts four payloads in the odd quadwords of a vector whose even quadwords hold the data
    /// sync header, and one store writes the four blocks (header, zero padding, payload).
    /// (`vpexpandq` from memory would do it in one instruction but is several times slower.)
    ///
    /// # Safety
    /// The CPU must have AVX2 and AVX-512 F; `dst` must be valid for `octets.len() / 8` blocks.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,avx512f")]
    #[inline]
    pub unsafe fn data_blocks(octets: &[u8], dst: *mut crate::Block66) {
        // SAFETY: the caller's promise for the CPU and `dst`; the loads read whole chunks of `octets`
        // (`as_chunks`, and `rest` is 16 octets when read).
        unsafe {
            use core::arch::x86_64::*;
            let sync = _mm512_set1_epi64(i64::from(crate::block::SyncHeader::DATA_BITS));
            let spread = _mm512_set_epi64(3, 3, 2, 2, 1, 1, 0, 0);
            let (fours, rest) = octets.as_chunks::<32>();
            for (k, four) in fours.iter().enumerate() {
                let payloads = _mm512_castsi256_si512(_mm256_loadu_si256(four.as_ptr().cast()));
                _mm512_storeu_si512(dst.add(4 * k).cast(), _mm512_mask_permutexvar_epi64(sync, 0xaa, spread, payloads));
            }
            if rest.len() == 16 {
                let sync = _mm256_set1_epi64x(i64::from(crate::block::SyncHeader::DATA_BITS));
                let payloads = _mm256_castsi128_si256(_mm_loadu_si128(rest.as_ptr().cast()));
                let v = _mm256_blend_epi32::<0b1100_1100>(sync, _mm256_permute4x64_epi64::<0b01_01_00_00>(payloads));
                _mm256_storeu_si256(dst.add(4 * fours.len()).cast(), v);
            }

        }
    }
}

/// The whole transmit PCS: encoder followed by the scrambler. The encoder writes plain
/// blocks and the scrambler then runs over everything one call appended, so a batch of
/// frames is scrambled in one pass (see [`crate::scrambler`] for why that is faster).
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
        let from = out.len();
        let stamp = self.encoder.send(frame, gap, out);
        self.scrambler.scramble_blocks(&mut out[from..]);
        stamp
    }

    /// Send every `(frame, gap)` in turn, appending scrambled blocks to `out` and each frame's
    /// stamp to `stamps`.
    pub fn send_batch<'f, I>(&mut self, frames: I, out: &mut Vec<Block66>, stamps: &mut Vec<TxStamp>)
    where
        I: IntoIterator<Item = (&'f [u8], u32)>,
    {
        // Scramble in groups of about `GROUP` blocks while they are still in the L1 cache,
        // whole vectors at a time; the rest waits for the next group.
        const GROUP: usize = 512;
        let mut done = out.len();
        let scrambler = &mut self.scrambler;
        self.encoder.send_all(frames, out, |stamp, out| {
            stamps.push(stamp);
            if out.len() - done >= GROUP {
                let upto = done + (out.len() - done) / 8 * 8;
                scrambler.scramble_blocks(&mut out[done..upto]);
                done = upto;
            }
        });
        self.scrambler.scramble_blocks(&mut out[done..]);
    }

    /// Append `n` scrambled idle blocks.
    pub fn idle(&mut self, n: u64, out: &mut Vec<Block66>) {
        let from = out.len();
        self.encoder.idle(n, out);
        self.scrambler.scramble_blocks(&mut out[from..]);
    }
}

//! The receive path: scrambled blocks → descrambled blocks → frames with exact timestamps.
//!
//! Invariants: block `n` handed to an [`RxDecoder`] starts at bit time `origin + 66·n`;
//! `end` is the character position just after the last frame (its /T/, or the block that
//! aborted it; 0 at the start). Every malformed input is counted in [`RxCounters`] and
//! recovered from (the decoder waits for the next start); nothing panics on line data.

use serde::{Deserialize, Serialize};

use crate::block::{ctrl, Block66, BlockError, Fields};
use crate::mac::{self, PREAMBLE_AFTER_START};
use crate::scrambler::Descrambler;
use crate::time::{BitTime, CHARS_PER_BLOCK};

/// Payload of a lane-0 start block carrying the standard preamble and SFD.
const START0_PREAMBLE: u64 = 0xd555_5555_5555_5578;

/// Payload of a lane-4 start block after four idles, carrying three preamble octets.
const START4_PREAMBLE: u64 = 0x5555_5500_0000_0033;
/// Low four octets of the data block after a lane-4 start: the rest of the preamble and SFD.
const LANE4_PREAMBLE_TAIL: u32 = 0xd555_5555;

/// Why a received frame is not good.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum FrameStatus {
    /// Well-formed, FCS correct.
    Ok,
    /// FCS does not match.
    FcsError,
    /// Shorter than 64 octets.
    Runt,
    /// Longer than the configured maximum.
    Oversize,
    /// Preamble or SFD octets wrong.
    BadPreamble,
}

/// A frame as received.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RxFrame {
    /// The MAC frame, destination address through FCS.
    pub data: Vec<u8>,
    /// Bit time of its /S/ character.
    pub start: BitTime,
    /// Characters between the previous frame's end (its /T/) and this /S/.
    pub gap: u64,
    /// Validity.
    pub status: FrameStatus,
}

impl RxFrame {
    /// The frame without its FCS (what a capture file usually holds).
    pub fn without_fcs(&self) -> &[u8] {
        let n = self.data.len().saturating_sub(mac::FCS_LEN);
        &self.data[..n]
    }
}

/// When and how a frame arrived.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FrameMeta {
    /// Bit time of its /S/ character.
    pub start: BitTime,
    /// Characters between the previous frame's end (its /T/) and this /S/.
    pub gap: u64,
    /// Validity.
    pub status: FrameStatus,
}

/// Where a decoder delivers frames.
pub trait FrameSink {
    /// Take the frame whose octets (destination address through FCS) are in `buf`. The
    /// decoder reuses `buf` for the next frame; a sink that keeps the vector itself puts a
    /// buffer from `pool` (or a new one) in its place.
    fn take(&mut self, buf: &mut Vec<u8>, pool: &mut Vec<Vec<u8>>, meta: FrameMeta);

    /// Take a frame whose octets are `head` followed by the `tail_len` (at most 7) low octets
    /// of `tail`, little-endian: a whole frame decoded in one step, straight from the
    /// descrambled line octets and its terminate block.
    fn take_parts(&mut self, head: &[u8], tail: u64, tail_len: usize, pool: &mut Vec<Vec<u8>>, meta: FrameMeta);
}

/// One vector per frame: convenient, and allocation-free in steady state when the consumer
/// hands buffers back with [`RxDecoder::recycle`].
impl FrameSink for Vec<RxFrame> {
    fn take(&mut self, buf: &mut Vec<u8>, pool: &mut Vec<Vec<u8>>, meta: FrameMeta) {
        let next = pool.pop().unwrap_or_default();
        self.push(RxFrame {
            data: std::mem::replace(buf, next),
            start: meta.start,
            gap: meta.gap,
            status: meta.status,
        });
    }

    #[inline]
    fn take_parts(&mut self, head: &[u8], tail: u64, tail_len: usize, pool: &mut Vec<Vec<u8>>, meta: FrameMeta) {
        let mut data = pool.pop().unwrap_or_default();
        data.clear();
        append_parts(&mut data, head, tail, tail_len);
        self.push(RxFrame { data, start: meta.start, gap: meta.gap, status: meta.status });
    }
}

/// Frames received back to back into one buffer, as SoNIC's receive path packs them: the
/// per-frame cost is one copy of its octets and one descriptor, with no allocation.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FrameBatch {
    /// Octets of every frame, back to back.
    pub octets: Vec<u8>,
    /// One descriptor per frame, in arrival order.
    pub frames: Vec<BatchFrame>,
}

/// A frame in a [`FrameBatch`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BatchFrame {
    /// Offset of its first octet in [`FrameBatch::octets`].
    pub offset: usize,
    /// Octets, FCS included.
    pub len: usize,
    /// Arrival time, gap and status.
    pub meta: FrameMeta,
}

impl FrameBatch {
    /// Forget every frame, keeping the allocations.
    pub fn clear(&mut self) {
        self.octets.clear();
        self.frames.clear();
    }

    /// Frames held.
    pub fn len(&self) -> usize {
        self.frames.len()
    }

    /// True when no frame is held.
    pub fn is_empty(&self) -> bool {
        self.frames.is_empty()
    }

    /// Every frame's descriptor with its octets.
    pub fn iter(&self) -> impl Iterator<Item = (&BatchFrame, &[u8])> {
        self.frames.iter().map(|f| (f, self.octets.get(f.offset..f.offset + f.len).unwrap_or_default()))
    }
}

impl FrameSink for FrameBatch {
    fn take(&mut self, buf: &mut Vec<u8>, _pool: &mut Vec<Vec<u8>>, meta: FrameMeta) {
        let offset = self.octets.len();
        self.octets.extend_from_slice(buf);
        self.frames.push(BatchFrame { offset, len: buf.len(), meta });
    }

    #[inline(always)]
    fn take_parts(&mut self, head: &[u8], tail: u64, tail_len: usize, _pool: &mut Vec<Vec<u8>>, meta: FrameMeta) {
        let offset = self.octets.len();
        append_parts(&mut self.octets, head, tail, tail_len);
        self.frames.push(BatchFrame { offset, len: head.len() + tail_len, meta });
    }
}

/// Append `head` and the `tail_len` (at most 7) low octets of `tail`, growing `dst` once. The
/// tail is stored as a whole word and then cut back: a fixed-size store instead of a call to
/// `memcpy` for a few octets.
#[inline]
fn append_parts(dst: &mut Vec<u8>, head: &[u8], tail: u64, tail_len: usize) {
    debug_assert!(tail_len < 8);
    let at = dst.len();
    dst.reserve(head.len() + 8);
    let spare = &mut dst.spare_capacity_mut()[..head.len() + 8];
    let (body, word) = spare.split_at_mut(head.len());
    // SAFETY: `body` and `word` are reserved, distinct from `head` (a shared borrow of other
    // memory), and exactly `head.len()` and 8 octets long; both are fully written before the
    // length grows, and it grows only over written octets (`tail_len` ≤ 8).
    unsafe {
        copy_short(head, body.as_mut_ptr().cast::<u8>());
        word.as_mut_ptr().cast::<[u8; 8]>().write_unaligned(tail.to_le_bytes());
        dst.set_len(at + head.len() + tail_len.min(8));
    }
}

/// `src` copied to `dst` as two fixed-size moves that overlap in the middle (16, 32 or 64
/// octets each, by length): for the few dozen octets of a short frame this is four to eight
/// instructions, where a call to `memcpy` spends about forty choosing its strategy. Longer
/// frames do call `memcpy`, whose cost no longer matters there. (A loop of 16-octet moves
/// does not do: LLVM recognises it and calls `memcpy` anyway.)
///
/// # Safety
/// `dst` must be valid for `src.len()` octets of writes and must not overlap `src`.
#[inline]
unsafe fn copy_short(src: &[u8], dst: *mut u8) {
    // SAFETY: the caller's promise: `dst` is valid for `src.len()` octets and does not overlap `src`;
    // `ends` is called only with `N <= src.len() <= 2N`.
    unsafe {
        /// The first and the last `N` octets of `src` (`N ≤ src.len() ≤ 2N`).
        ///
        /// # Safety
        /// `N <= src.len() <= 2 * N`, and `dst` is valid for `src.len()` octets of writes.
        #[inline(always)]
        unsafe fn ends<const N: usize>(src: &[u8], dst: *mut u8) {
            // SAFETY: `N <= n`, so both reads are within `src`; the caller's promise covers the writes.
            unsafe {
                let n = src.len();
                let first = src.as_ptr().cast::<[u8; N]>().read_unaligned();
                let last = src.as_ptr().add(n - N).cast::<[u8; N]>().read_unaligned();
                dst.cast::<[u8; N]>().write_unaligned(first);
                dst.add(n - N).cast::<[u8; N]>().write_unaligned(last);
            }
        }
        match src.len() {
            n if !(16..=128).contains(&n) => std::ptr::copy_nonoverlapping(src.as_ptr(), dst, n),
            n if n > 64 => ends::<64>(src, dst),
            n if n > 32 => ends::<32>(src, dst),
            _ => ends::<16>(src, dst),
        }
    }
}

/// What a real PCS/MAC would report, all counting from zero.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RxCounters {
    /// Blocks received.
    pub blocks: u64,
    /// Good frames delivered.
    pub frames_ok: u64,
    /// Blocks with sync header 00 or 11.
    pub bad_sync_headers: u64,
    /// Control blocks with an undefined type field.
    pub bad_block_types: u64,
    /// Blocks holding an undefined 7-bit control or ordered-set code.
    pub bad_control_codes: u64,
    /// /E/ characters received between frames.
    pub error_chars: u64,
    /// Ordered sets received.
    pub ordered_sets: u64,
    /// Frames cut short by an invalid block, an error/idle block or a new start.
    pub aborted_frames: u64,
    /// Data blocks between frames.
    pub unexpected_data: u64,
    /// Terminate blocks between frames.
    pub unexpected_terminate: u64,
    /// Frames with wrong preamble or SFD.
    pub preamble_errors: u64,
    /// Frames shorter than 64 octets.
    pub runts: u64,
    /// Frames longer than the maximum.
    pub oversize: u64,
    /// Frames with a bad FCS.
    pub fcs_errors: u64,
}

/// Receiver options.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RxConfig {
    /// Largest frame (with FCS) considered good.
    pub max_frame: usize,
    /// Also deliver frames whose status is not [`FrameStatus::Ok`] (they are counted either way).
    pub deliver_bad: bool,
    /// Bit time of block 0.
    pub origin: BitTime,
    /// Check every frame's FCS here. Off, frames are delivered with their framing checked
    /// (preamble, runt, oversize) and the FCS left to a MAC stage after this one, as the
    /// threaded pipeline does; [`FrameStatus::Ok`] then means "framing good".
    pub check_fcs: bool,
}

impl Default for RxConfig {
    fn default() -> Self {
        RxConfig { max_frame: mac::MAX_JUMBO_FRAME, deliver_bad: false, origin: BitTime(0), check_fcs: true }
    }
}

/// The decoder half of the receive PCS plus the receive MAC checks.
#[derive(Clone, Debug)]
pub struct RxDecoder {
    config: RxConfig,
    counters: RxCounters,
    block: u64,
    end: u64,
    /// Octets of the current frame after the preamble (meaningful while `in_frame`). The
    /// buffer stays in place between frames so that no `Option<Vec>` moves sit on the
    /// per-frame path.
    buf: Vec<u8>,
    /// A frame is in progress.
    in_frame: bool,
    /// Preamble octets of the current frame still to come (4 after a lane-4 start).
    pre_left: usize,
    /// The current frame's preamble or SFD was wrong.
    pre_bad: bool,
    start: u64,
    gap: u64,
    pool: Vec<Vec<u8>>,
    last_len: usize,
    /// Scratch for [`data_mask`] (kept to reuse its allocation).
    data_mask: Vec<u64>,
}

impl RxDecoder {
    /// A receiver at the start of a stream.
    pub fn new(config: RxConfig) -> RxDecoder {
        RxDecoder {
            config,
            counters: RxCounters::default(),
            block: 0,
            end: 0,
            buf: Vec::with_capacity(2048),
            in_frame: false,
            pre_left: 0,
            pre_bad: false,
            start: 0,
            gap: 0,
            pool: Vec::new(),
            last_len: 0,
            data_mask: Vec::new(),
        }
    }

    /// Counters so far.
    pub fn counters(&self) -> &RxCounters {
        &self.counters
    }

    /// Blocks received so far.
    pub fn blocks(&self) -> u64 {
        self.block
    }

    /// The buffer of a frame in progress past its preamble (where data blocks go), if any.
    #[inline]
    fn payload_buf(&mut self) -> Option<&mut Vec<u8>> {
        if self.pre_left != 0 || !self.in_frame {
            return None;
        }
        Some(&mut self.buf)
    }

    /// Account for `n` data blocks appended through [`RxDecoder::payload_buf`].
    #[inline]
    fn skip(&mut self, n: u64) {
        self.block += n;
        self.counters.blocks += n;
    }

    /// Decode a slice of descrambled blocks, appending delivered frames to `out`.
    pub fn push_blocks<S: FrameSink>(&mut self, blocks: &[Block66], out: &mut S) {
        let plain: Vec<u8> = blocks.iter().flat_map(|b| b.payload.to_le_bytes()).collect();
        self.push_split(blocks, &plain, out);
    }

    /// Decode blocks whose sync headers are those of `line` and whose descrambled payloads are
    /// `plain` (8 octets per block, see [`Descrambler::descramble_into`]). Between frames,
    /// idles and well-formed frames go through [`RxDecoder::frames_fast`]; everything else is
    /// decoded block by block, except that runs of data blocks inside a frame are copied into
    /// the frame buffer as one slice.
    pub fn push_split<S: FrameSink>(&mut self, line: &[Block66], plain: &[u8], out: &mut S) {
        let line = &line[..line.len().min(plain.len() / 8)];
        let mut mask = std::mem::take(&mut self.data_mask);
        data_mask(line, &mut mask);
        let mut i = 0;
        while i < line.len() {
            if !self.in_frame {
                i = self.frames_fast(line, plain, &mask, i, out);
            }
            let Some(b) = line.get(i) else { break };
            if let Some(buf) = self.payload_buf() {
                let run = data_run(&mask, i, line.len());
                if let Some(octets) = plain.get(8 * i..8 * (i + run)).filter(|_| run > 0) {
                    buf.extend_from_slice(octets);
                    self.skip(run as u64);
                    i += run;
                    continue;
                }
            }
            self.push(Block66 { sync: b.sync, payload: payload_at(plain, i) }, out);
            i += 1;
        }
        self.data_mask = mask;
    }

    /// The common case, between frames: idle blocks, and frames that start with the standard
    /// preamble, continue with data blocks and end with a terminate block followed by idles,
    /// all within `line`. Such a frame is decoded in one step, its octets going from `plain`
    /// to the sink without passing through the frame buffer. Stops (returning the index) at
    /// the first block that is anything else, which the block-by-block path then decides.
    /// `plain` holds at least `8 · line.len()` octets.
    #[inline]
    fn frames_fast<S: FrameSink>(
        &mut self,
        line: &[Block66],
        plain: &[u8],
        mask: &[u64],
        from: usize,
        out: &mut S,
    ) -> usize {
        const CONTROL: u8 = crate::block::SyncHeader::CONTROL_BITS;
        let n = line.len();
        let first_block = self.block - from as u64;
        let mut i = from;
        while i < n && line[i].sync == CONTROL {
            let lane = match payload_at(plain, i) {
                p if p == Block66::IDLE.payload => {
                    i += 1;
                    continue;
                }
                START0_PREAMBLE => 0,
                START4_PREAMBLE => 4,
                _ => break,
            };
            let run = data_run(mask, i + 1, n);
            let t = i + 1 + run;
            if t >= n || line[t].sync != CONTROL {
                break;
            }
            let last = payload_at(plain, t);
            let Some(k) = terminate_then_idles(last) else { break };
            if lane == 4 && (run == 0 || payload_at(plain, i + 1) as u32 != LANE4_PREAMBLE_TAIL) {
                break;
            }
            let head = &plain[8 * i + 8 + lane..8 * t];
            let here = (first_block + i as u64) * CHARS_PER_BLOCK;
            let at = here + lane as u64;
            let gap = at.saturating_sub(self.end);
            self.end = (first_block + t as u64) * CHARS_PER_BLOCK + k as u64;
            let len = head.len() + k;
            self.last_len = len;
            let status = classify(&mut self.counters, &self.config, true, len, || {
                mac::fcs_ok_parts(head, &(last >> 8).to_le_bytes()[..k])
            });
            if status == FrameStatus::Ok || self.config.deliver_bad {
                let meta = FrameMeta { start: self.config.origin.plus(BitTime::of_char(at).0), gap, status };
                out.take_parts(head, last >> 8, k, &mut self.pool, meta);
            }
            i = t + 1;
        }
        self.skip((i - from) as u64);
        i
    }

    /// Decode one descrambled block.
    #[inline]
    pub fn push<S: FrameSink>(&mut self, b: Block66, out: &mut S) {
        let here = self.block * CHARS_PER_BLOCK;
        self.block += 1;
        self.counters.blocks += 1;
        // Fast path: payload of a frame in progress.
        if b.sync == crate::block::SyncHeader::DATA_BITS {
            match self.in_frame {
                true if self.pre_left == 0 => self.buf.extend_from_slice(&b.payload.to_le_bytes()),
                // The block after a lane-4 start: four preamble octets, four frame octets.
                true if self.pre_left == 4 && b.payload as u32 == LANE4_PREAMBLE_TAIL => {
                    self.buf.extend_from_slice(&b.payload.to_le_bytes()[4..]);
                    self.pre_left = 0;
                }
                true => self.append(&b.payload.to_le_bytes()),
                false => self.counters.unexpected_data += 1,
            }
            return;
        }
        // Fast paths for the common control blocks: all-idle, and a frame ending with idles.
        if b.sync == crate::block::SyncHeader::CONTROL_BITS {
            if b.payload == Block66::IDLE.payload {
                self.abort(here);
                return;
            }
            if b.payload == START0_PREAMBLE {
                self.abort(here);
                self.open(here);
                self.pre_left = 0;
                return;
            }
            if b.payload == START4_PREAMBLE {
                self.abort(here);
                self.open(here + 4);
                self.pre_left = 4;
                return;
            }
            if let Some(k) = terminate_then_idles(b.payload).filter(|_| self.in_frame && self.pre_left == 0) {
                // All eight octets, then cut back: a fixed-size copy, not a short memcpy.
                let len = self.buf.len();
                self.buf.extend_from_slice(&b.rest().to_le_bytes());
                self.buf.truncate(len + k);
                self.end = here + k as u64;
                self.deliver(out);
                return;
            }
        }
        match b.fields() {
            Ok(f) => self.control(f, here, out),
            Err(e) => {
                match e {
                    BlockError::SyncHeader(_) => self.counters.bad_sync_headers += 1,
                    BlockError::BlockType(_) => self.counters.bad_block_types += 1,
                    BlockError::ControlCode(_) | BlockError::OrderedSetCode(_) => self.counters.bad_control_codes += 1,
                }
                self.abort(here);
            }
        }
    }

    fn control<S: FrameSink>(&mut self, f: Fields, here: u64, out: &mut S) {
        match f {
            Fields::Data(_) => {}
            Fields::Control(codes) => {
                self.abort(here);
                self.count_codes(&codes);
            }
            Fields::Start0(d) => self.begin(here, &d.to_le_bytes()[..7]),
            Fields::Start4(codes, d) => {
                self.abort(here);
                self.count_codes(&codes);
                self.begin(here + 4, &d.to_le_bytes()[..3]);
            }
            Fields::OrderedStart4(_, o0, d) => {
                self.abort(here);
                self.count_ordered(o0);
                self.begin(here + 4, &d.to_le_bytes()[..3]);
            }
            Fields::CtrlOrdered4(codes, o4, _) => {
                self.abort(here);
                self.count_codes(&codes);
                self.count_ordered(o4);
            }
            Fields::OrderedOrdered(_, o0, o4, _) => {
                self.abort(here);
                self.count_ordered(o0);
                self.count_ordered(o4);
            }
            Fields::OrderedCtrl(_, o0, codes) => {
                self.abort(here);
                self.count_ordered(o0);
                self.count_codes(&codes);
            }
            Fields::Terminate(k, d, codes) => {
                let valid =
                    codes[..7 - k].iter().all(|c| *c == ctrl::IDLE || crate::block::ctrl::from_code(*c).is_some());
                match (self.in_frame, valid) {
                    (true, true) => {
                        self.append(&d.to_le_bytes()[..k]);
                        self.end = here + k as u64;
                        self.deliver(out);
                    }
                    (true, false) => {
                        self.counters.bad_control_codes += 1;
                        self.abort(here);
                    }
                    (false, _) => self.counters.unexpected_terminate += 1,
                }
            }
        }
    }

    fn count_codes(&mut self, codes: &[u8]) {
        for c in codes {
            match *c {
                ctrl::IDLE | ctrl::LPI => {}
                ctrl::ERROR => self.counters.error_chars += 1,
                other if ctrl::from_code(other).is_some() => {}
                _ => self.counters.bad_control_codes += 1,
            }
        }
    }

    fn count_ordered(&mut self, o: u8) {
        if ctrl::from_o_code(o).is_some() {
            self.counters.ordered_sets += 1;
        } else {
            self.counters.bad_control_codes += 1;
        }
    }

    /// Start a frame whose /S/ is at character `at`; `preamble` are the octets after /S/ in
    /// the start block.
    fn begin(&mut self, at: u64, preamble: &[u8]) {
        self.abort(at);
        self.open(at);
        self.append(preamble);
    }

    /// Open a frame buffer for a start at character `at`, expecting the full preamble.
    #[inline]
    fn open(&mut self, at: u64) {
        self.buf.clear();
        // Room for a frame as long as the last one (and a whole terminate block), so the
        // payload never reallocates mid-frame in steady state.
        self.buf.reserve(self.last_len.max(mac::MIN_FRAME) + 16);
        self.in_frame = true;
        self.start = at;
        self.gap = at.saturating_sub(self.end);
        self.pre_bad = false;
        self.pre_left = PREAMBLE_AFTER_START.len();
    }

    /// Give a delivered frame's buffer back for reuse (SoNIC-style preallocated buffers:
    /// a receiver whose consumer recycles never allocates in steady state).
    pub fn recycle(&mut self, buf: Vec<u8>) {
        if self.pool.len() < 1024 {
            self.pool.push(buf);
        }
    }

    /// Append octets to the frame in progress, checking those that are still preamble.
    fn append(&mut self, mut bytes: &[u8]) {
        if self.pre_left > 0 {
            let n = self.pre_left.min(bytes.len());
            let at = PREAMBLE_AFTER_START.len() - self.pre_left;
            if bytes[..n] != PREAMBLE_AFTER_START[at..at + n] {
                self.pre_bad = true;
            }
            self.pre_left -= n;
            bytes = &bytes[n..];
        }
        if self.in_frame {
            self.buf.extend_from_slice(bytes);
        }
    }

    /// Drop a frame in progress (if any) at character `at`.
    fn abort(&mut self, at: u64) {
        if self.in_frame {
            self.in_frame = false;
            self.counters.aborted_frames += 1;
            self.end = at;
        }
    }

    /// End the frame in progress: classify it, count it, and hand its buffer over if it is
    /// to be delivered (a recycled one takes its place).
    fn deliver<S: FrameSink>(&mut self, out: &mut S) {
        self.in_frame = false;
        let len = self.buf.len();
        self.last_len = len;
        let preamble_ok = !self.pre_bad && self.pre_left == 0;
        let status = classify(&mut self.counters, &self.config, preamble_ok, len, || mac::fcs_ok(&self.buf));
        if status == FrameStatus::Ok || self.config.deliver_bad {
            let meta =
                FrameMeta { start: self.config.origin.plus(BitTime::of_char(self.start).0), gap: self.gap, status };
            out.take(&mut self.buf, &mut self.pool, meta);
        }
    }
}

/// The descrambled payload of block `i` (`plain` holds eight octets per block).
#[inline(always)]
fn payload_at(plain: &[u8], i: usize) -> u64 {
    let w: [u8; 8] = plain[8 * i..8 * i + 8].try_into().unwrap_or_default();
    u64::from_le_bytes(w)
}

/// The number of data octets of a terminate block (descrambled control payload) whose
/// remaining lanes are all idle, the way a transmitter ends a frame; `None` for any other
/// block (those take the general path, which checks every code).
#[inline]
fn terminate_then_idles(payload: u64) -> Option<usize> {
    let k = crate::block::btype::terminate_len(payload as u8)?;
    ((payload >> 8) >> (8 * k) == 0).then_some(k)
}

/// Bit `i` of `mask` (in 64-bit words) says whether block `i` of `line` is a data block.
/// Runs of data blocks are then found with bit operations: a scan that stops at the first
/// control block mispredicts its exit at the end of every frame.
fn data_mask(line: &[Block66], mask: &mut Vec<u64>) {
    mask.clear();
    mask.resize(line.len().div_ceil(64), 0);
    let mut done = 0;
    #[cfg(target_arch = "x86_64")]
    if vector::available() {
        done = line.len() / 64 * 64;
        // SAFETY: the CPU has the features; `done` blocks are whole words of `mask`.
        unsafe { vector::data_mask(&line[..done], &mut mask[..done / 64]) };
    }
    for (i, b) in line.iter().enumerate().skip(done) {
        mask[i / 64] |= u64::from(b.sync == crate::block::SyncHeader::DATA_BITS) << (i % 64);
    }
}

/// The sync-header classification with AVX-512 (BW for byte compares, BMI2 to pack bits).
#[cfg(target_arch = "x86_64")]
mod vector {
    use crate::Block66;
    use core::arch::x86_64::*;

    pub fn available() -> bool {
        std::is_x86_feature_detected!("avx512bw") && std::is_x86_feature_detected!("bmi2")
    }

    /// `mask[w]` bit j = block `64w + j` of `line` (64 blocks per word) has a data header.
    ///
    /// # Safety
    /// The CPU has AVX-512 BW and BMI2 ([`available`]).
    #[target_feature(enable = "avx512bw,bmi2")]
    pub unsafe fn data_mask(line: &[Block66], mask: &mut [u64]) {
        // SAFETY: the caller's promise for the CPU; each masked load reads only the sync-header bytes of a
        // chunk of 64 blocks, which `chunks_exact(64)` guarantees are there.
        unsafe {
            // Byte 0 of each 16-byte block is its sync header; only those bytes are read.
            const SYNC_BYTES: u64 = 0x0001_0001_0001_0001;
            let data = _mm512_set1_epi8(crate::block::SyncHeader::DATA_BITS as i8);
            for (w, chunk) in mask.iter_mut().zip(line.chunks_exact(64)) {
                let p = chunk.as_ptr() as *const i8;
                let mut m = 0u64;
                for q in 0..16 {
                    let v = _mm512_maskz_loadu_epi8(SYNC_BYTES, p.add(64 * q));
                    let eq = _mm512_mask_cmpeq_epi8_mask(SYNC_BYTES, v, data);
                    m |= _pext_u64(eq, SYNC_BYTES) << (4 * q);
                }
                *w = m;
            }

        }
    }
}

/// Data blocks in a row from block `from` on, within the first `len` blocks.
#[inline]
fn data_run(mask: &[u64], from: usize, len: usize) -> usize {
    let mut i = from;
    while let Some(word) = mask.get(i / 64).filter(|_| i < len) {
        let avail = 64 - i % 64;
        let ones = (!(word >> (i % 64))).trailing_zeros() as usize;
        if ones < avail {
            return (i + ones).min(len) - from;
        }
        i += avail;
    }
    len.saturating_sub(from)
}

/// The status of a finished frame of `len` octets, counted in `counters`. `fcs_ok` is asked
/// only when the FCS is checked here and the frame is otherwise well-formed.
#[inline(always)]
fn classify(
    counters: &mut RxCounters,
    config: &RxConfig,
    preamble_ok: bool,
    len: usize,
    fcs_ok: impl FnOnce() -> bool,
) -> FrameStatus {
    if !preamble_ok {
        counters.preamble_errors += 1;
        FrameStatus::BadPreamble
    } else if len < mac::MIN_FRAME {
        counters.runts += 1;
        FrameStatus::Runt
    } else if len > config.max_frame {
        counters.oversize += 1;
        FrameStatus::Oversize
    } else if config.check_fcs && !fcs_ok() {
        counters.fcs_errors += 1;
        FrameStatus::FcsError
    } else {
        counters.frames_ok += 1;
        FrameStatus::Ok
    }
}

/// The whole receive PCS: descrambler followed by the decoder.
#[derive(Clone, Debug)]
pub struct RxPhy {
    /// The descrambler.
    pub descrambler: Descrambler,
    /// The decoder and MAC checks.
    pub decoder: RxDecoder,
    /// Descrambled payload octets of the line blocks being decoded (reused between calls).
    plain: Vec<u8>,
}

impl RxPhy {
    /// A receiver with the given options.
    pub fn new(config: RxConfig) -> RxPhy {
        RxPhy { descrambler: Descrambler::default(), decoder: RxDecoder::new(config), plain: Vec::new() }
    }

    /// Descramble and decode `line` blocks, appending delivered frames to `out`.
    /// The whole slice is descrambled in one pass first (see [`Descrambler::descramble_into`]).
    pub fn receive<S: FrameSink>(&mut self, line: &[Block66], out: &mut S) {
        self.plain.clear();
        self.descrambler.descramble_into(line, &mut self.plain);
        self.decoder.push_split(line, &self.plain, out);
    }

    /// Counters so far.
    pub fn counters(&self) -> &RxCounters {
        self.decoder.counters()
    }
}

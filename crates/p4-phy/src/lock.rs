//! Block synchronisation (clause 49.2.13.2.2, figure 49-12), the BER monitor (figure 49-13),
//! and a bit-level aligner that finds 66-bit block boundaries in a raw serial bit stream.
//!
//! Lock invariant: `locked` becomes true only after 64 consecutive valid sync headers with no
//! invalid one in that window; while locked, 16 invalid headers within one 64-header window
//! drop lock. Every invalid header seen while unlocked slips the boundary by one bit.

use crate::block::{Block66, SyncHeader};
use crate::time::BitTime;

/// What the receiver must do after a header test.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LockAction {
    /// Keep the current block boundary.
    Keep,
    /// Shift the block boundary by one bit.
    Slip,
}

/// The block lock state machine.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BlockLock {
    locked: bool,
    sh_cnt: u32,
    sh_invalid_cnt: u32,
    slips: u64,
}

impl BlockLock {
    /// Valid headers needed (in one window) to acquire lock; also the window length.
    pub const WINDOW: u32 = 64;
    /// Invalid headers within one window that drop lock.
    pub const LOSS: u32 = 16;

    /// A fresh, unlocked state machine.
    pub fn new() -> BlockLock {
        BlockLock::default()
    }

    /// True while block lock is asserted.
    pub fn locked(&self) -> bool {
        self.locked
    }

    /// Slips performed so far.
    pub fn slips(&self) -> u64 {
        self.slips
    }

    fn reset_counts(&mut self) {
        self.sh_cnt = 0;
        self.sh_invalid_cnt = 0;
    }

    /// Test one sync header (LSB-first value, see [`SyncHeader`]).
    pub fn test(&mut self, sync: u8) -> LockAction {
        self.sh_cnt += 1;
        if SyncHeader::is_valid(sync) {
            if self.sh_cnt == Self::WINDOW {
                if self.sh_invalid_cnt == 0 {
                    self.locked = true;
                }
                self.reset_counts();
            }
            return LockAction::Keep;
        }
        self.sh_invalid_cnt += 1;
        if self.sh_invalid_cnt == Self::LOSS || !self.locked {
            self.locked = false;
            self.reset_counts();
            self.slips += 1;
            return LockAction::Slip;
        }
        if self.sh_cnt == Self::WINDOW {
            self.reset_counts();
        }
        LockAction::Keep
    }
}

/// The 10GBASE-R BER monitor: `hi_ber` is set when 16 invalid sync headers arrive within one
/// 125 µs window, and cleared at the end of a window with fewer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BerMonitor {
    window_blocks: u64,
    elapsed: u64,
    ber_cnt: u32,
    hi_ber: bool,
    total_invalid: u64,
}

impl BerMonitor {
    /// Blocks in the 125 µs timer window (125 µs × 156.25 M blocks/s = 19531.25; the timer's
    /// ±1 % tolerance covers the dropped quarter block).
    pub const WINDOW_BLOCKS: u64 = 19_531;
    /// Invalid headers per window that signal a high bit error rate.
    pub const THRESHOLD: u32 = 16;

    /// A monitor with the standard window.
    pub fn new() -> BerMonitor {
        BerMonitor::with_window(Self::WINDOW_BLOCKS)
    }

    /// A monitor with a window of `blocks` blocks (for tests and other line rates).
    pub fn with_window(blocks: u64) -> BerMonitor {
        BerMonitor { window_blocks: blocks.max(1), elapsed: 0, ber_cnt: 0, hi_ber: false, total_invalid: 0 }
    }

    /// True while the bit error rate is too high.
    pub fn hi_ber(&self) -> bool {
        self.hi_ber
    }

    /// Invalid sync headers seen in total (the BER counter register).
    pub fn total_invalid(&self) -> u64 {
        self.total_invalid
    }

    /// Account for one received header.
    pub fn test(&mut self, sync: u8) {
        if !SyncHeader::is_valid(sync) {
            self.total_invalid += 1;
            self.ber_cnt = self.ber_cnt.saturating_add(1);
            if self.ber_cnt >= Self::THRESHOLD {
                self.hi_ber = true;
            }
        }
        self.elapsed += 1;
        if self.elapsed >= self.window_blocks {
            if self.ber_cnt < Self::THRESHOLD {
                self.hi_ber = false;
            }
            self.elapsed = 0;
            self.ber_cnt = 0;
        }
    }
}

impl Default for BerMonitor {
    fn default() -> Self {
        BerMonitor::new()
    }
}

/// A raw serial bit stream, packed LSB-first (bit `i` is bit `i % 8` of byte `i / 8`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BitStream {
    bytes: Vec<u8>,
    len: u64,
}

impl BitStream {
    /// An empty stream.
    pub fn new() -> BitStream {
        BitStream::default()
    }

    /// A stream of `len` bits held in `bytes` (extra bytes are dropped, missing ones zero).
    pub fn from_bytes(mut bytes: Vec<u8>, len: u64) -> BitStream {
        bytes.resize(len.div_ceil(8) as usize, 0);
        BitStream { bytes, len }
    }

    /// Bits held.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// True if no bits are held.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Packed bytes (the last one zero-padded).
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// Append the low `n` (≤ 64) bits of `v`. Bits past `len` in the last byte are always
    /// zero, so new bits can be OR-ed in.
    pub fn push_bits(&mut self, v: u64, n: u32) {
        let n = n.min(64);
        if n == 0 {
            return;
        }
        let v = if n < 64 { v & ((1u64 << n) - 1) } else { v };
        let start = (self.len / 8) as usize;
        let wide = u128::from(v) << (self.len % 8);
        self.len += u64::from(n);
        self.bytes.resize(self.len.div_ceil(8) as usize, 0);
        for (k, b) in self.bytes.iter_mut().skip(start).take(9).enumerate() {
            *b |= (wide >> (8 * k)) as u8;
        }
    }

    /// Append one block (66 bits).
    pub fn push_block(&mut self, b: Block66) {
        self.push_bits(u64::from(b.sync & 0b11), 2);
        self.push_bits(b.payload, 64);
    }

    /// Flip bit `i` (no-op past the end): a line bit error.
    pub fn flip(&mut self, i: u64) {
        if i < self.len {
            if let Some(b) = self.bytes.get_mut((i / 8) as usize) {
                *b ^= 1 << (i % 8);
            }
        }
    }

    /// The 66 bits starting at bit `at`, if the stream holds them.
    pub fn block_at(&self, at: u64) -> Option<Block66> {
        if at.checked_add(66)? > self.len {
            return None;
        }
        let first = (at / 8) as usize;
        let shift = at % 8;
        // 66 bits + up to 7 bits of shift fit in 10 bytes.
        let mut buf = [0u8; 16];
        let avail = self.bytes.len().saturating_sub(first).min(10);
        buf[..avail].copy_from_slice(self.bytes.get(first..first + avail)?);
        let v = u128::from_le_bytes(buf) >> shift;
        Some(Block66::from_bits(v & ((1u128 << 66) - 1)))
    }
}

/// A run of consecutive blocks received while block lock was held.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LockedRun {
    /// Bit offset of the first block's first bit in the raw stream.
    pub first_bit: BitTime,
    /// The blocks, in order.
    pub blocks: Vec<Block66>,
}

/// Result of aligning a raw stream.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Alignment {
    /// Runs of locked blocks (a new run starts after every loss of lock).
    pub runs: Vec<LockedRun>,
    /// Boundary slips performed.
    pub slips: u64,
    /// Times lock was lost after being acquired.
    pub losses: u64,
    /// Invalid sync headers seen while locked.
    pub invalid_headers: u64,
    /// BER monitor raised hi_ber at some point.
    pub hi_ber_seen: bool,
}

/// Find block boundaries in `stream` with the block lock state machine, as a receive PCS
/// does: blocks are delivered only while locked, starting after the header that completed
/// lock; a slip moves the boundary by one bit.
pub fn align(stream: &BitStream) -> Alignment {
    let mut lock = BlockLock::new();
    let mut ber = BerMonitor::new();
    let mut out = Alignment { runs: Vec::new(), slips: 0, losses: 0, invalid_headers: 0, hi_ber_seen: false };
    let mut at = 0u64;
    let mut current: Option<LockedRun> = None;
    while let Some(b) = stream.block_at(at) {
        let was_locked = lock.locked();
        let action = lock.test(b.sync);
        if was_locked {
            ber.test(b.sync);
            out.hi_ber_seen |= ber.hi_ber();
            if !SyncHeader::is_valid(b.sync) {
                out.invalid_headers += 1;
            }
        }
        if was_locked && lock.locked() {
            current.get_or_insert_with(|| LockedRun { first_bit: BitTime(at), blocks: Vec::new() }).blocks.push(b);
        } else if was_locked {
            out.losses += 1;
            out.runs.extend(current.take());
        }
        at += 66;
        if action == LockAction::Slip {
            at += 1;
        }
    }
    out.runs.extend(current.take());
    out.slips = lock.slips();
    out
}

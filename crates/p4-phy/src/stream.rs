//! Streaming forms of the generator, the bit-stream file and the bit-level receiver, so that
//! `gen` and `capture` use memory that does not grow with the number of frames: blocks are
//! produced, packed into line bits, written and received a chunk at a time.
//!
//! They give exactly what the whole-stream functions ([`crate::gen::generate`],
//! [`crate::gen::receive_bits`], [`crate::capture::read_bitstream`]) give; the tests compare them.

use std::io::Read;
use std::path::Path;

use anyhow::{bail, Result};

use crate::block::{Block66, SyncHeader};
use crate::gen::{gap_plan, test_frame, GenConfig};
use crate::lock::{BerMonitor, BlockLock, LockAction};
use crate::rx::{RxConfig, RxCounters, RxFrame, RxPhy};
use crate::time::BitTime;
use crate::tx::{TxConfig, TxEncoder, TxPhy, TxStamp};
use crate::Descrambler;

/// Blocks handed on at a time (about 33 KiB of line bits).
pub const CHUNK_BLOCKS: usize = 4096;
/// Bytes read from a bit-stream file at a time.
const READ_BYTES: usize = 1 << 20;

/// Packs 66-bit blocks into line bytes, LSB first, exactly as [`crate::lock::BitStream`] does,
/// handing out whole bytes as they fill and keeping the partial last one.
#[derive(Debug, Default)]
pub struct BitPacker {
    acc: u128,
    bits: u32,
    /// Whole bytes packed and not yet taken.
    pub bytes: Vec<u8>,
}

impl BitPacker {
    /// Append one block: sync header, then payload.
    pub fn push_block(&mut self, b: Block66) {
        self.acc |= u128::from(b.sync & 0b11) << self.bits;
        self.acc |= u128::from(b.payload) << (self.bits + 2);
        self.bits += 66;
        while self.bits >= 8 {
            self.bytes.push(self.acc as u8);
            self.acc >>= 8;
            self.bits -= 8;
        }
    }

    /// Pad the partial last byte with zero bits and hand it out too.
    pub fn finish(&mut self) {
        if self.bits > 0 {
            self.bytes.push(self.acc as u8);
            self.acc = 0;
            self.bits = 0;
        }
    }
}

/// The 66 bits starting `bit` bits into `bytes` (LSB first); the caller makes sure they exist.
fn block_in(bytes: &[u8], bit: u64) -> Block66 {
    let first = (bit / 8) as usize;
    let mut buf = [0u8; 16];
    let avail = bytes.len().saturating_sub(first).min(10);
    buf[..avail].copy_from_slice(&bytes[first..first + avail]);
    let v = u128::from_le_bytes(buf) >> (bit % 8);
    Block66::from_bits(v & ((1u128 << 66) - 1))
}

/// What a [`BitReceiver`] saw, besides the frames it handed out.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BitReceiverSummary {
    /// Good frames delivered.
    pub frames: u64,
    /// Receive counters summed over every locked run.
    pub counters: RxCounters,
    /// Block boundary slips.
    pub slips: u64,
    /// Losses of block lock.
    pub losses: u64,
    /// Invalid sync headers while locked.
    pub invalid_headers: u64,
    /// The BER monitor raised hi_ber at some point.
    pub hi_ber_seen: bool,
    /// Line bits consumed.
    pub bits: u64,
}

/// A receive port fed line bytes as they arrive: finds block lock like
/// [`crate::lock::align`], descrambles and decodes every locked run like
/// [`crate::gen::receive_bits`], and hands each frame to a callback. It keeps only the bytes not
/// yet tested and one chunk of blocks.
pub struct BitReceiver {
    config: RxConfig,
    /// Bytes not yet consumed; `buf[0]` holds line bit `base`.
    buf: Vec<u8>,
    base: u64,
    /// Bits in the stream; later bytes are ignored.
    limit: u64,
    /// Next block boundary to test.
    at: u64,
    lock: BlockLock,
    ber: BerMonitor,
    /// The last tested block and where it started (seeds the descrambler of a new run).
    prev: Option<(u64, Block66)>,
    run: Option<RxPhy>,
    chunk: Vec<Block66>,
    frames: Vec<RxFrame>,
    /// Sorted bit positions to flip (line bit errors), and how many are applied.
    flips: Vec<u64>,
    flipped: usize,
    summary: BitReceiverSummary,
}

impl BitReceiver {
    /// A receiver for a stream of `limit` bits (`u64::MAX` if unknown).
    pub fn new(config: RxConfig, limit: u64) -> BitReceiver {
        BitReceiver {
            config,
            buf: Vec::new(),
            base: 0,
            limit,
            at: 0,
            lock: BlockLock::new(),
            ber: BerMonitor::new(),
            prev: None,
            run: None,
            chunk: Vec::with_capacity(CHUNK_BLOCKS),
            frames: Vec::new(),
            flips: Vec::new(),
            flipped: 0,
            summary: BitReceiverSummary::default(),
        }
    }

    /// Flip these line bits as they arrive (any order; a bit named twice flips back).
    pub fn with_flips(mut self, mut flips: Vec<u64>) -> BitReceiver {
        flips.sort_unstable();
        self.flips = flips;
        self
    }

    /// Line bits received so far (capped at the stream length).
    pub fn bits_received(&self) -> u64 {
        (self.base + 8 * self.buf.len() as u64).min(self.limit)
    }

    /// Receive `bytes`, the next line octets; every complete frame goes to `on_frame`.
    pub fn feed(&mut self, bytes: &[u8], on_frame: &mut dyn FnMut(&RxFrame) -> Result<()>) -> Result<()> {
        let from_bit = self.base + 8 * self.buf.len() as u64;
        self.buf.extend_from_slice(bytes);
        let to_bit = self.base + 8 * self.buf.len() as u64;
        while let Some(&bit) = self.flips.get(self.flipped) {
            if bit >= to_bit {
                break;
            }
            if bit >= from_bit && bit < self.limit {
                let i = ((bit - self.base) / 8) as usize;
                self.buf[i] ^= 1 << (bit % 8);
            }
            self.flipped += 1;
        }
        let avail = to_bit.min(self.limit);
        while self.at.checked_add(66).is_some_and(|end| end <= avail) {
            let b = block_in(&self.buf, self.at - self.base);
            self.test(b, on_frame)?;
        }
        // Keep only the bytes from the next boundary on.
        let consumed = (((self.at.min(to_bit)) - self.base) / 8) as usize;
        self.buf.drain(..consumed);
        self.base += 8 * consumed as u64;
        Ok(())
    }

    /// One header test, as [`crate::lock::align`] does it, delivering locked blocks to the run.
    fn test(&mut self, b: Block66, on_frame: &mut dyn FnMut(&RxFrame) -> Result<()>) -> Result<()> {
        let was_locked = self.lock.locked();
        let action = self.lock.test(b.sync);
        if was_locked {
            self.ber.test(b.sync);
            self.summary.hi_ber_seen |= self.ber.hi_ber();
            if !SyncHeader::is_valid(b.sync) {
                self.summary.invalid_headers += 1;
            }
        }
        if was_locked && self.lock.locked() {
            if self.run.is_none() {
                let mut rx = RxPhy::new(RxConfig { origin: BitTime(self.at), ..self.config });
                // The descrambler runs before lock too: its state is the previous block's payload.
                if let Some((at, prev)) = self.prev {
                    if at + 66 == self.at {
                        rx.descrambler = Descrambler::new(prev.payload);
                    }
                }
                self.run = Some(rx);
            }
            self.chunk.push(b);
            if self.chunk.len() >= CHUNK_BLOCKS {
                self.flush(on_frame)?;
            }
        } else if was_locked {
            self.summary.losses += 1;
            self.end_run(on_frame)?;
        }
        self.prev = Some((self.at, b));
        self.at += 66;
        if action == LockAction::Slip {
            self.at += 1;
        }
        Ok(())
    }

    fn flush(&mut self, on_frame: &mut dyn FnMut(&RxFrame) -> Result<()>) -> Result<()> {
        let Some(rx) = self.run.as_mut() else { return Ok(()) };
        rx.receive(&self.chunk, &mut self.frames);
        self.chunk.clear();
        let mut result = Ok(());
        for f in self.frames.drain(..) {
            if result.is_ok() {
                self.summary.frames += 1;
                result = on_frame(&f);
            }
            rx.decoder.recycle(f.data);
        }
        result
    }

    fn end_run(&mut self, on_frame: &mut dyn FnMut(&RxFrame) -> Result<()>) -> Result<()> {
        self.flush(on_frame)?;
        if let Some(rx) = self.run.take() {
            add_counters(&mut self.summary.counters, rx.counters());
        }
        Ok(())
    }

    /// End of the stream: decode what is left and return the totals.
    pub fn finish(mut self, on_frame: &mut dyn FnMut(&RxFrame) -> Result<()>) -> Result<BitReceiverSummary> {
        self.end_run(on_frame)?;
        self.summary.slips = self.lock.slips();
        self.summary.bits = self.bits_received();
        Ok(self.summary)
    }
}

/// Sums receive counters of several runs.
pub fn add_counters(a: &mut RxCounters, b: &RxCounters) {
    a.blocks += b.blocks;
    a.frames_ok += b.frames_ok;
    a.bad_sync_headers += b.bad_sync_headers;
    a.bad_block_types += b.bad_block_types;
    a.bad_control_codes += b.bad_control_codes;
    a.error_chars += b.error_chars;
    a.ordered_sets += b.ordered_sets;
    a.aborted_frames += b.aborted_frames;
    a.unexpected_data += b.unexpected_data;
    a.unexpected_terminate += b.unexpected_terminate;
    a.preamble_errors += b.preamble_errors;
    a.runts += b.runts;
    a.oversize += b.oversize;
    a.fcs_errors += b.fcs_errors;
}

/// Options of [`receive_file`].
pub struct ReceiveFile<'a> {
    /// Receiver settings.
    pub config: RxConfig,
    /// Line bits to flip, drawn uniformly from the stream's bits with this seed.
    pub flip_bits: u64,
    /// Seed of the flipped bits.
    pub seed: u64,
    /// Called with the bits received so far and the stream length, every megabyte.
    pub progress: &'a mut dyn FnMut(u64, u64),
    /// Polled every megabyte: stop early (Ctrl-C) and return what was received.
    pub stop: &'a dyn Fn() -> bool,
}

/// What [`receive_file`] did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FileReceived {
    /// Totals.
    pub summary: BitReceiverSummary,
    /// Bits the header announced.
    pub announced_bits: u64,
    /// `stop` ended the read before the end of the stream.
    pub stopped: bool,
}

/// Receives a bit-stream file (see [`crate::capture::write_bitstream`]) a megabyte at a time,
/// handing every frame to `on_frame`: memory stays flat however long the stream (an endless
/// FIFO is read until its header's bit count, or until `stop`).
pub fn receive_file(
    path: &Path,
    options: ReceiveFile<'_>,
    on_frame: &mut dyn FnMut(&RxFrame) -> Result<()>,
) -> Result<FileReceived> {
    let what = "bit-stream file";
    let mut file = p4_io::input::open(path, what)?;
    let read_error = |e: &std::io::Error| p4_io::input::InputError {
        what: what.to_string(),
        path: path.to_path_buf(),
        why: p4_io::describe_io_error(e),
    };
    let not_a_stream = |why: &str| anyhow::anyhow!("{}: not a p4-phy bit-stream file: {why}", path.display());
    let mut header = [0u8; 16];
    let got = read_full(&mut file, &mut header).map_err(|e| read_error(&e))?;
    if got < 16 || &header[..8] != crate::capture::BITS_MAGIC {
        return Err(not_a_stream("missing P4PHYBIT header"));
    }
    let mut n = [0u8; 8];
    n.copy_from_slice(&header[8..16]);
    let len = u64::from_le_bytes(n);
    let mut flips = Vec::new();
    if options.flip_bits > 0 && len > 0 {
        use rand::{Rng, SeedableRng};
        // The same draws, in the same order, as flipping the bits of the whole stream in memory.
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(options.seed);
        flips = (0..options.flip_bits).map(|_| rng.gen_range(0..len)).collect();
    }
    let mut rx = BitReceiver::new(options.config, len).with_flips(flips);
    let mut buf = vec![0u8; READ_BYTES];
    let need = len.div_ceil(8);
    let mut read = 0u64;
    let mut stopped = false;
    while read < need {
        if (options.stop)() {
            stopped = true;
            break;
        }
        let want = (need - read).min(READ_BYTES as u64) as usize;
        let got = read_full(&mut file, &mut buf[..want]).map_err(|e| read_error(&e))?;
        if got == 0 {
            return Err(not_a_stream(&format!("header says {len} bits but only {read} bytes follow")));
        }
        read += got as u64;
        rx.feed(&buf[..got], on_frame)?;
        (options.progress)(rx.bits_received(), len);
    }
    Ok(FileReceived { summary: rx.finish(on_frame)?, announced_bits: len, stopped })
}

/// Reads until `buf` is full or the input ends; returns the bytes read.
fn read_full(r: &mut impl Read, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut got = 0;
    while got < buf.len() {
        match r.read(&mut buf[got..]) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(got)
}

/// Blocks the generator will put on the line for `cfg` (lead and tail idles included), found
/// by placing every frame without building or scrambling it: the bit-stream file's header
/// states its length before the first block is written.
pub fn count_blocks(cfg: &GenConfig, stop: &dyn Fn() -> bool) -> Option<u64> {
    let (rule, gaps) = gap_plan(cfg);
    let mut enc = TxEncoder::new(TxConfig { rule, min_gap: cfg.min_gap });
    let frame = test_frame(0, cfg.frame_len);
    let mut out = Vec::with_capacity(2 * CHUNK_BLOCKS);
    enc.idle(cfg.lead_blocks, &mut out);
    let mut blocks = 0u64;
    for (i, gap) in gaps.enumerate() {
        if i % 1024 == 0 && i > 0 && stop() {
            return None;
        }
        enc.send(&frame, gap, &mut out);
        if out.len() >= CHUNK_BLOCKS {
            blocks += out.len() as u64;
            out.clear();
        }
    }
    enc.idle(cfg.tail_blocks, &mut out);
    Some(blocks + out.len() as u64)
}

/// What [`generate_stream`] produced.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GenStreamed {
    /// Frames sent.
    pub frames: u64,
    /// Blocks on the line.
    pub blocks: u64,
    /// Start of the first and last frame.
    pub first_start: Option<BitTime>,
    /// Start of the last frame.
    pub last_start: Option<BitTime>,
    /// `stop` ended the run early.
    pub stopped: bool,
}

impl GenStreamed {
    /// Rate between the first and last start, SoNIC's convention (as
    /// [`crate::gen::Generated::rate_gbps`]), for frames of `frame_len` octets.
    pub fn rate_gbps(&self, frame_len: usize) -> f64 {
        let (Some(first), Some(last)) = (self.first_start, self.last_start) else { return 0.0 };
        let span = last.0.saturating_sub(first.0) as f64 * 32.0 / 330.0;
        let wire = (frame_len.max(crate::mac::MIN_FRAME) + crate::mac::PREAMBLE_LEN) as f64 * 8.0;
        let bits = wire * self.frames.saturating_sub(1) as f64;
        if span > 0.0 {
            bits / span
        } else {
            0.0
        }
    }
}

/// Runs the generator a chunk at a time: every frame (with FCS) and its stamp go to `on_frame`,
/// the scrambled blocks to `on_blocks` in chunks of about [`CHUNK_BLOCKS`]. The same frames,
/// stamps and blocks as [`crate::gen::generate`]. When `stop` returns true (polled every 1024
/// frames) no more frames are sent; the tail idles still are.
pub fn generate_stream(
    cfg: &GenConfig,
    on_frame: &mut dyn FnMut(&[u8], &TxStamp) -> Result<()>,
    on_blocks: &mut dyn FnMut(&[Block66]) -> Result<()>,
    stop: &dyn Fn() -> bool,
) -> Result<GenStreamed> {
    let (rule, gaps) = gap_plan(cfg);
    let mut tx = TxPhy::new(TxConfig { rule, min_gap: cfg.min_gap });
    let mut blocks = Vec::with_capacity(2 * CHUNK_BLOCKS);
    let mut done = GenStreamed::default();
    tx.idle(cfg.lead_blocks, &mut blocks);
    for (i, gap) in gaps.enumerate() {
        if i % 1024 == 0 && i > 0 && stop() {
            done.stopped = true;
            break;
        }
        let f = test_frame(i as u64, cfg.frame_len);
        let stamp = tx.send(&f, gap, &mut blocks);
        done.frames += 1;
        done.first_start.get_or_insert(stamp.start);
        done.last_start = Some(stamp.start);
        on_frame(&f, &stamp)?;
        if blocks.len() >= CHUNK_BLOCKS {
            done.blocks += blocks.len() as u64;
            on_blocks(&blocks)?;
            blocks.clear();
        }
    }
    tx.idle(cfg.tail_blocks, &mut blocks);
    done.blocks += blocks.len() as u64;
    on_blocks(&blocks)?;
    if done.frames == 0 && cfg.count > 0 {
        bail!("no frames were generated");
    }
    Ok(done)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gen::{generate, receive_bits, GapPattern};

    /// Frames with their stamps, the packed line bytes, and the totals.
    type Streamed = (Vec<(Vec<u8>, TxStamp)>, Vec<u8>, GenStreamed);

    fn streamed(cfg: &GenConfig) -> Streamed {
        let mut frames = Vec::new();
        let mut packer = BitPacker::default();
        let done = generate_stream(
            cfg,
            &mut |f, s| {
                frames.push((f.to_vec(), *s));
                Ok(())
            },
            &mut |b| {
                b.iter().for_each(|b| packer.push_block(*b));
                Ok(())
            },
            &|| false,
        )
        .unwrap();
        packer.finish();
        (frames, packer.bytes, done)
    }

    #[test]
    fn streaming_generation_and_reception_match_the_whole_stream_functions() {
        for pattern in [GapPattern::Idles(13), GapPattern::Poisson(6.0), GapPattern::Replay(vec![300_000; 40])] {
            let cfg = GenConfig { count: 9000, frame_len: 200, pattern, ..GenConfig::default() };
            let whole = generate(&cfg);
            let (frames, bytes, done) = streamed(&cfg);
            assert_eq!(frames.len(), whole.frames.len());
            assert!(frames.iter().zip(&whole.frames).all(|((a, _), b)| a == b));
            assert!(frames.iter().zip(&whole.stamps).all(|((_, a), b)| a == b));
            let bits = whole.to_bitstream();
            assert_eq!(bytes, bits.as_bytes());
            assert_eq!(done.blocks, whole.blocks.len() as u64);
            assert_eq!(count_blocks(&cfg, &|| false), Some(whole.blocks.len() as u64));
            assert_eq!(done.rate_gbps(200), whole.rate_gbps());

            // Receive from a bit offset, with flipped bits, fed in odd-sized pieces.
            let mut shifted = crate::lock::BitStream::new();
            shifted.push_bits(0b101, 3);
            for b in &whole.blocks {
                shifted.push_block(*b);
            }
            let flips: Vec<u64> = (0..60).map(|i| (i * 7_919_993) % shifted.len()).collect();
            let mut flipped = shifted.clone();
            flips.iter().for_each(|&i| flipped.flip(i));
            let (cap, al) = receive_bits(&flipped, RxConfig::default());
            let mut rx = BitReceiver::new(RxConfig::default(), shifted.len()).with_flips(flips);
            let mut got = Vec::new();
            let mut keep = |f: &RxFrame| {
                got.push(f.clone());
                Ok(())
            };
            for piece in shifted.as_bytes().chunks(777) {
                rx.feed(piece, &mut keep).unwrap();
            }
            let summary = rx.finish(&mut keep).unwrap();
            assert_eq!(got, cap.frames);
            assert_eq!(summary.counters, cap.counters);
            assert_eq!((summary.slips, summary.losses), (al.slips, al.losses));
        }
    }
}

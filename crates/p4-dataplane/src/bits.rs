//! Bit-level arithmetic on P4 scalars.
//!
//! Invariant: a scalar of width `w` (1..=128) is carried in a `u128` holding its value in the low `w`
//! bits, upper bits zero ("normalised"); signed values are two's complement in those `w` bits. Every
//! function here takes normalised operands and returns a normalised result.

/// All-ones mask of `width` bits (`width` may be 0..=128).
pub use p4_control::convert::mask;

/// Interprets the low `width` bits of `v` as a two's-complement number.
#[inline]
pub fn sext(v: u128, width: u32) -> i128 {
    if width == 0 {
        0
    } else if width >= 128 {
        v as i128
    } else {
        let s = 128 - width;
        ((v << s) as i128) >> s
    }
}

/// Smallest and largest value of a signed `width`-bit integer.
fn signed_range(width: u32) -> (i128, i128) {
    if width >= 128 {
        (i128::MIN, i128::MAX)
    } else if width == 0 {
        (0, 0)
    } else {
        (-(1i128 << (width - 1)), (1i128 << (width - 1)) - 1)
    }
}

/// `a |+| b`.
pub fn add_sat(a: u128, b: u128, width: u32, signed: bool) -> u128 {
    if signed {
        let (lo, hi) = signed_range(width);
        let r = sext(a, width).saturating_add(sext(b, width)).clamp(lo, hi);
        (r as u128) & mask(width)
    } else {
        a.checked_add(b).map_or(mask(width), |s| s.min(mask(width)))
    }
}

/// `a |-| b`.
pub fn sub_sat(a: u128, b: u128, width: u32, signed: bool) -> u128 {
    if signed {
        let (lo, hi) = signed_range(width);
        let r = sext(a, width).saturating_sub(sext(b, width)).clamp(lo, hi);
        (r as u128) & mask(width)
    } else {
        a.saturating_sub(b)
    }
}

/// `a << s`: shifting by the width or more gives 0.
#[inline]
pub fn shl(a: u128, s: u128, width: u32) -> u128 {
    if s >= width as u128 {
        0
    } else {
        (a << s) & mask(width)
    }
}

/// `a >> s`: logical for unsigned, arithmetic (sign-filling) for signed operands.
#[inline]
pub fn shr(a: u128, s: u128, width: u32, signed: bool) -> u128 {
    if signed {
        let s = s.min(127) as u32;
        ((sext(a, width) >> s) as u128) & mask(width)
    } else if s >= width as u128 {
        0
    } else {
        a >> s
    }
}

/// Conversion between bit types: sign extension when widening a signed value, truncation otherwise.
#[inline]
pub fn cast(v: u128, from_width: u32, from_signed: bool, to_width: u32) -> u128 {
    if from_signed && to_width > from_width {
        (sext(v, from_width) as u128) & mask(to_width)
    } else {
        v & mask(to_width)
    }
}

/// `v[hi:lo]`.
#[inline]
pub fn slice(v: u128, hi: u32, lo: u32) -> u128 {
    (v >> lo) & mask(hi - lo + 1)
}

/// `v` with bits `hi..=lo` replaced by `x`.
#[inline]
pub fn set_slice(v: u128, hi: u32, lo: u32, x: u128) -> u128 {
    let m = mask(hi - lo + 1) << lo;
    (v & !m) | ((x << lo) & m)
}

/// Signed or unsigned `a < b`.
#[inline]
pub fn lt(a: u128, b: u128, width: u32, signed: bool) -> bool {
    if signed {
        sext(a, width) < sext(b, width)
    } else {
        a < b
    }
}

/// Reads `width` (≤ 128) bits starting at bit `bit_off` (bit 0 = most significant bit of byte 0).
/// Bits beyond the end of `buf` read as 0; callers check lengths first.
///
/// Inlined: a field that lies in one 8- or 16-byte window of the buffer is one load, a byte swap
/// and two shifts; a field near the end of the buffer, or spanning more than 16 bytes, takes the
/// out-of-line path.
#[inline]
pub fn read_bits(buf: &[u8], bit_off: usize, width: u32) -> u128 {
    let start = bit_off / 8;
    let shift = (bit_off % 8) as u32;
    let span = shift + width;
    if width != 0 && span <= 64 {
        if let Some(w) = buf.get(start..start + 8).and_then(|w| <[u8; 8]>::try_from(w).ok()) {
            return u128::from((u64::from_be_bytes(w) << shift) >> (64 - width));
        }
    } else if width != 0 && span <= 128 {
        if let Some(w) = buf.get(start..start + 16).and_then(|w| <[u8; 16]>::try_from(w).ok()) {
            return (u128::from_be_bytes(w) << shift) >> (128 - width);
        }
    }
    read_bits_slow(buf, bit_off, width)
}

#[cold]
#[inline(never)]
fn read_bits_slow(buf: &[u8], bit_off: usize, width: u32) -> u128 {
    let start = bit_off / 8;
    let shift = (bit_off % 8) as u32;
    let span = shift + width;
    if width == 0 {
        return 0;
    }
    if span <= 128 {
        // Near the end of the buffer: one big-endian window holding every byte the field touches.
        let nbytes = span.div_ceil(8) as usize;
        let mut window = [0u8; 16];
        let avail = buf.len().saturating_sub(start).min(nbytes);
        if let (Some(dst), Some(src)) = (window.get_mut(..avail), buf.get(start..start + avail)) {
            dst.copy_from_slice(src);
        }
        return (u128::from_be_bytes(window) << shift) >> (128 - width);
    }
    let mut acc = 0u128;
    let mut remaining = width;
    let mut pos = bit_off;
    while remaining > 0 {
        let byte = buf.get(pos / 8).copied().unwrap_or(0);
        let bit_in = (pos % 8) as u32;
        let avail = 8 - bit_in;
        let take = avail.min(remaining);
        let bits = (u32::from(byte) >> (avail - take)) & ((1u32 << take) - 1);
        acc = (acc << take) | u128::from(bits);
        remaining -= take;
        pos += take as usize;
    }
    acc
}

/// How to read one field of a header from the header's first byte on, worked out when the
/// program is built ([`field_reads`]): a field inside one 8-byte window is a load and two constant
/// shifts; a wider one goes through [`read_bits`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FieldRead {
    /// First byte of the field's window.
    byte: usize,
    /// Bit offset of the field from the header's start.
    bit: usize,
    width: u32,
    /// Whether the field fits one 8-byte window starting at `byte`.
    narrow: bool,
}

/// The reads of consecutive fields of the given widths (bit offsets from 0).
pub fn field_reads(widths: &[u32]) -> Vec<FieldRead> {
    let mut bit = 0usize;
    widths
        .iter()
        .map(|&width| {
            let read = FieldRead { byte: bit / 8, bit, width, narrow: width > 0 && (bit % 8) as u32 + width <= 64 };
            bit += width as usize;
            read
        })
        .collect()
}

/// Reads field `f` of the header starting at byte 0 of `hdr`; `hdr` must reach 8 bytes past the
/// header's last byte for the fast path (shorter, it is still read right, slower).
#[inline(always)]
pub fn read_field(hdr: &[u8], f: FieldRead) -> u128 {
    if f.narrow {
        if let Some(w) = hdr.get(f.byte..f.byte + 8).and_then(|w| <[u8; 8]>::try_from(w).ok()) {
            let shift = (f.bit % 8) as u32;
            return u128::from((u64::from_be_bytes(w) << shift) >> (64 - f.width));
        }
    }
    read_bits(hdr, f.bit, f.width)
}

/// Reads field `f` of a header starting at bit `at` of `buf`, wherever that is: [`read_field`] on
/// the header's bytes when it starts on a byte, shifted reads otherwise.
#[inline(always)]
pub fn read_field_at(buf: &[u8], at: usize, f: FieldRead) -> u128 {
    if at.is_multiple_of(8) {
        read_field(buf.get(at / 8..).unwrap_or(&[]), f)
    } else {
        read_bits(buf, at + f.bit, f.width)
    }
}

/// ORs the low `width` (≤ 128) bits of `v` into `buf` starting at bit `bit_off` (bit 0 = most
/// significant bit of byte 0). The bits written must be zero before, and `buf` must reach at least
/// 16 bytes past the byte holding bit `bit_off + width - 1` ([`BitWriter::put_aligned`] leaves that slack);
/// a write that does not fit is ignored (compiled plans never make one).
#[inline(always)]
pub fn or_bits(buf: &mut [u8], bit_off: usize, width: u32, v: u128) {
    let start = bit_off / 8;
    let shift = (bit_off % 8) as u32;
    let span = shift + width;
    if width == 0 {
        return;
    }
    if span <= 64 {
        if let Some(w) = buf.get_mut(start..start + 8).and_then(|w| <&mut [u8; 8]>::try_from(w).ok()) {
            let v = (v as u64) & (u64::MAX >> (64 - width));
            *w = (u64::from_be_bytes(*w) | (v << (64 - span))).to_be_bytes();
        }
    } else if span <= 128 {
        if let Some(w) = buf.get_mut(start..start + 16).and_then(|w| <&mut [u8; 16]>::try_from(w).ok()) {
            let v = v & (u128::MAX >> (128 - width));
            *w = (u128::from_be_bytes(*w) | (v << (128 - span))).to_be_bytes();
        }
    } else {
        or_bits_wide(buf, bit_off, width, v);
    }
}

/// [`or_bits`] of a field touching more than 16 bytes: the high part, then the low 64 bits (each
/// fits one window).
#[cold]
#[inline(never)]
fn or_bits_wide(buf: &mut [u8], bit_off: usize, width: u32, v: u128) {
    or_bits(buf, bit_off, width - 64, v >> 64);
    or_bits(buf, bit_off + (width - 64) as usize, 64, v & mask(64));
}

/// ORs `bits` bits of `src` from bit `from` into `dst` from bit `to`, 64 at a time (the bits
/// written must be zero before; `dst` must have [`or_bits`]'s slack). Bits past the end of `src`
/// read as 0.
pub fn copy_bits(dst: &mut [u8], to: usize, src: &[u8], from: usize, bits: usize) {
    let mut done = 0;
    while done < bits {
        let w = (bits - done).min(64) as u32;
        or_bits(dst, to + done, w, read_bits(src, from + done, w));
        done += w as usize;
    }
}

/// Appends `bits` bits of `src` (from its first bit) to the bit string `out` whose last byte has
/// `tail` bits written (0: whole bytes; the rest of that byte zero); returns the new `tail`.
pub fn append_bits(out: &mut Vec<u8>, tail: u32, src: &[u8], bits: usize) -> u32 {
    let at = out.len() * 8 - if tail == 0 { 0 } else { (8 - tail) as usize };
    let len = (at + bits).div_ceil(8);
    // Slack for `or_bits`' wide windows, cut off after.
    out.resize(len + 16, 0);
    copy_bits(out, at, src, 0, bits);
    out.truncate(len);
    ((at + bits) % 8) as u32
}

/// A growable bit string written most-significant-bit first (deparser output, hash input).
///
/// Invariant: `pending < 64` between calls; the written bits are `bytes` followed by the low
/// `pending` bits of `acc` (higher bits of `acc` are zero). Use: `clear`, `push`es, then `finish`.
#[derive(Clone, Debug, Default)]
pub struct BitWriter {
    bytes: Vec<u8>,
    acc: u128,
    pending: u32,
}

impl BitWriter {
    /// Number of bits written.
    pub fn bit_len(&self) -> usize {
        self.bytes.len() * 8 + self.pending as usize
    }

    /// Flushes and returns the bytes written (a partial last byte padded with zero bits). Push
    /// nothing more before the next `clear`.
    pub fn finish(&mut self) -> &[u8] {
        while self.pending >= 8 {
            self.pending -= 8;
            self.bytes.push((self.acc >> self.pending) as u8);
        }
        if self.pending > 0 {
            self.bytes.push((self.acc << (8 - self.pending)) as u8);
            self.pending = 0;
        }
        self.acc = 0;
        &self.bytes
    }

    pub fn clear(&mut self) {
        self.bytes.clear();
        self.acc = 0;
        self.pending = 0;
    }

    /// Appends the low `width` (≤ 128) bits of `v`, most significant first.
    #[inline]
    pub fn push(&mut self, v: u128, width: u32) {
        if width > 64 {
            self.push(v >> 64, width - 64);
            self.push(v & mask(64), 64);
            return;
        }
        if width == 0 {
            return;
        }
        // pending < 64 and width <= 64: the accumulator never overflows.
        self.acc = (self.acc << width) | (v & mask(width));
        self.pending += width;
        if self.pending >= 64 {
            self.pending -= 64;
            self.bytes.extend_from_slice(&((self.acc >> self.pending) as u64).to_be_bytes());
            self.acc &= mask(self.pending);
        }
    }

    /// Appends `len` bytes that `fill` writes into a zeroed buffer (with 16 bytes of slack after
    /// them, for [`or_bits`]), when the bits written so far are whole bytes; returns `false`
    /// (nothing written, `fill` not called) otherwise.
    #[inline]
    pub fn put_aligned(&mut self, len: usize, fill: impl FnOnce(&mut [u8])) -> bool {
        if !self.pending.is_multiple_of(8) {
            return false;
        }
        while self.pending > 0 {
            self.pending -= 8;
            self.bytes.push((self.acc >> self.pending) as u8);
        }
        self.acc = 0;
        // Headers of up to 112 bytes are filled on the stack and appended with one copy (growing
        // the vector with zeros is a byte loop); longer ones in place.
        const STACK: usize = 128;
        if len + 16 <= STACK {
            let mut region = [0u8; STACK];
            fill(&mut region);
            self.bytes.extend_from_slice(&region[..len]);
            return true;
        }
        let start = self.bytes.len();
        self.bytes.resize(start + len + 16, 0);
        if let Some(region) = self.bytes.get_mut(start..) {
            fill(region);
        }
        self.bytes.truncate(start + len);
        true
    }

    /// Appends whole bytes.
    pub fn push_bytes(&mut self, data: &[u8]) {
        if self.pending.is_multiple_of(8) {
            while self.pending > 0 {
                self.pending -= 8;
                self.bytes.push((self.acc >> self.pending) as u8);
            }
            self.acc = 0;
            self.bytes.extend_from_slice(data);
        } else {
            for &b in data {
                self.push(u128::from(b), 8);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// A header written field by field into its bytes (`put_aligned`, `or_bits`) is what the
        /// bit writer makes of the same fields, and `read_bits` reads every field back, wherever
        /// the header sits in the buffer.
        #[test]
        fn fields_written_into_bytes_match_the_bit_writer_and_read_back(
            lead in 0usize..4,
            fields in prop::collection::vec((any::<u128>(), 1u32..=128), 1..16),
        ) {
            let mut fields: Vec<(u128, u32)> = fields.into_iter().map(|(v, w)| (v & mask(w), w)).collect();
            let total: u32 = fields.iter().map(|f| f.1).sum();
            // Pad to whole bytes with a last field.
            if !total.is_multiple_of(8) {
                fields.push((1, 8 - total % 8));
            }
            let len = fields.iter().map(|f| f.1 as usize).sum::<usize>() / 8;
            let mut by_push = BitWriter::default();
            let mut by_bytes = BitWriter::default();
            by_push.push_bytes(&vec![0xa5; lead]);
            by_bytes.push_bytes(&vec![0xa5; lead]);
            for &(v, w) in &fields {
                by_push.push(v, w);
            }
            let placed = by_bytes.put_aligned(len, |bytes| {
                let mut at = 0;
                for &(v, w) in &fields {
                    or_bits(bytes, at, w, v);
                    at += w as usize;
                }
            });
            prop_assert!(placed);
            let bytes = by_bytes.finish().to_vec();
            prop_assert_eq!(&bytes, &by_push.finish().to_vec());
            let mut at = lead * 8;
            for &(v, w) in &fields {
                prop_assert_eq!(read_bits(&bytes, at, w), v);
                at += w as usize;
            }
            // The compiled reads of the header from its first byte: with 8 bytes after it (the
            // fast path) and without (the header ends the buffer).
            let widths: Vec<u32> = fields.iter().map(|f| f.1).collect();
            let mut padded = bytes[lead..].to_vec();
            padded.extend_from_slice(&[0xff; 8]);
            for (&(v, _), read) in fields.iter().zip(field_reads(&widths)) {
                prop_assert_eq!(read_field(&bytes[lead..], read), v);
                prop_assert_eq!(read_field(&padded, read), v);
            }
            // The same header starting inside a byte (after `lead + 1` bits).
            let mut shifted = BitWriter::default();
            shifted.push(1, lead as u32 + 1);
            for &(v, w) in &fields {
                shifted.push(v, w);
            }
            let shifted = shifted.finish().to_vec();
            for (&(v, _), read) in fields.iter().zip(field_reads(&widths)) {
                prop_assert_eq!(read_field_at(&shifted, lead + 1, read), v);
                prop_assert_eq!(read_field_at(&bytes, lead * 8, read), v);
            }
        }
    }

    #[test]
    fn put_aligned_refuses_a_writer_inside_a_byte() {
        let mut w = BitWriter::default();
        w.push(1, 3);
        assert!(!w.put_aligned(2, |_| panic!("not called")));
        w.push(0, 5);
        assert!(w.put_aligned(1, |b| b[0] = 0x7f));
        assert_eq!(w.finish(), &[0x20, 0x7f]);
    }

    #[test]
    fn saturating_arithmetic() {
        assert_eq!(add_sat(200, 100, 8, false), 255);
        assert_eq!(add_sat(20, 100, 8, false), 120);
        assert_eq!(sub_sat(20, 100, 8, false), 0);
        // int<8>: 100 + 100 saturates at 127; -100 - 100 at -128 (0x80)
        assert_eq!(add_sat(100, 100, 8, true), 127);
        assert_eq!(sub_sat(0x9c, 100, 8, true), 0x80);
        assert_eq!(add_sat(u128::MAX, 1, 128, false), u128::MAX);
    }

    #[test]
    fn shifts() {
        assert_eq!(shl(0b1011, 2, 4), 0b1100);
        assert_eq!(shl(1, 8, 8), 0);
        assert_eq!(shr(0x80, 9, 8, false), 0);
        assert_eq!(shr(0x80, 3, 8, true), 0xf0);
        assert_eq!(shr(0x80, 200, 8, true), 0xff);
        assert_eq!(shr(0x40, 200, 8, true), 0);
    }

    #[test]
    fn casts_and_slices() {
        assert_eq!(cast(0xff, 8, true, 16), 0xffff);
        assert_eq!(cast(0xff, 8, false, 16), 0x00ff);
        assert_eq!(cast(0x1234, 16, true, 8), 0x34);
        assert_eq!(slice(0xabcd, 11, 4), 0xbc);
        assert_eq!(set_slice(0xabcd, 11, 4, 0x12), 0xa12d);
        assert!(lt(0xff, 0x01, 8, true));
        assert!(!lt(0xff, 0x01, 8, false));
    }

    #[test]
    fn bit_reading_and_writing() {
        let buf = [0xab, 0xcd, 0xef];
        assert_eq!(read_bits(&buf, 0, 16), 0xabcd);
        assert_eq!(read_bits(&buf, 4, 8), 0xbc);
        assert_eq!(read_bits(&buf, 3, 5), 0b01011);
        assert_eq!(read_bits(&buf, 20, 8), 0xf0, "bits past the end read as zero");
        assert_eq!(read_bits(&buf, 1, 1), 0);
        assert_eq!(read_bits(&buf, 5, 0), 0);
        let nine: Vec<u8> = (0xf1..=0xf9).collect();
        assert_eq!(read_bits(&nine, 4, 60), 0x1f2f3f4f5f6f7f8, "8-byte window path");
        assert_eq!(read_bits(&nine, 12, 60), 0x2f3f4f5f6f7f8f9, "tail path");
        assert_eq!(read_bits(&buf, 2, 1), 1);
        let long: Vec<u8> = (1..=17).collect();
        assert_eq!(read_bits(&long, 0, 128), u128::from_be_bytes(long[..16].try_into().unwrap_or([0; 16])));
        let first16 = u128::from_be_bytes(long[..16].try_into().unwrap_or([0; 16]));
        assert_eq!(read_bits(&long, 4, 128), (first16 << 4) | 0x1, "crosses into byte 0x11");
        let mut w = BitWriter::default();
        w.push(0xa, 4);
        w.push(0xbc, 8);
        w.push(0b1, 1);
        w.push(0b101, 3);
        w.push_bytes(&[0x12]);
        assert_eq!(w.bit_len(), 24);
        w.push(0b1, 3);
        w.push(u128::MAX, 128);
        w.push(0, 5);
        assert_eq!(w.bit_len(), 24 + 136);
        assert_eq!(&w.finish()[..3], &[0xab, 0xcd, 0x12]);
        assert_eq!(&w.finish()[3..], &[0x3f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xe0]);
        w.clear();
        w.push(0x5, 4);
        assert_eq!(w.finish(), &[0x50], "clear leaves no stale bits");
        w.clear();
        w.push(0x1, 4);
        w.push_bytes(&[0xab]);
        w.push(0x2, 4);
        w.push_bytes(&[0xcd, 0xef]);
        assert_eq!(w.finish(), &[0x1a, 0xb2, 0xcd, 0xef]);
    }
}

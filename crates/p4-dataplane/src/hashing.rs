//! Hash algorithms over a byte string, as BMv2 computes them.
//!
//! All algorithms are pure functions of the input bytes except `Random`, which draws from the
//! switch's deterministic generator (so runs are reproducible).

/// The hash algorithms; which member name of the program's algorithm enum means which comes from
/// the architecture description ([`p4_arch::Architecture::hash_algorithm`]).
pub use p4_arch::HashAlgorithm as Algorithm;

/// Computing a hash, for the algorithms the architecture layer names.
pub trait Compute {
    /// Computes the hash of `data`; `random` supplies a value for [`Algorithm::Random`].
    fn compute(self, data: &[u8], random: &mut dyn FnMut() -> u64) -> u128;
}

impl Compute for Algorithm {
    fn compute(self, data: &[u8], random: &mut dyn FnMut() -> u64) -> u128 {
        match self {
            // BMv2's custom CRCs default to the parameters of the standard ones.
            Algorithm::Crc32 | Algorithm::Crc32Custom => u128::from(crc32(data)),
            Algorithm::Crc16 | Algorithm::Crc16Custom => u128::from(crc16(data)),
            Algorithm::Random => u128::from(random()),
            Algorithm::Identity => identity(data),
            Algorithm::Csum16 => u128::from(csum16(data)),
            Algorithm::Xor16 => u128::from(xor16(data)),
        }
    }
}

const fn reflected_table(poly: u32, width: u32) -> [u32; 256] {
    let mut table = [0u32; 256];
    let _ = width;
    let mut i = 0;
    while i < 256 {
        let mut crc = i as u32;
        let mut k = 0;
        while k < 8 {
            crc = if crc & 1 != 0 { (crc >> 1) ^ poly } else { crc >> 1 };
            k += 1;
        }
        table[i] = crc;
        i += 1;
    }
    table
}

/// Reflected forms of 0x04C11DB7 and 0x8005.
static CRC32_TABLE: [u32; 256] = reflected_table(0xEDB8_8320, 32);
static CRC16_TABLE: [u32; 256] = reflected_table(0xA001, 16);

/// CRC-32 (IEEE 802.3): reflected, init and final xor all ones.
pub fn crc32(data: &[u8]) -> u32 {
    let mut crc = 0xffff_ffffu32;
    for &b in data {
        crc = (crc >> 8) ^ CRC32_TABLE[((crc ^ u32::from(b)) & 0xff) as usize];
    }
    !crc
}

/// CRC-16/ARC (BMv2's `crc16`): polynomial 0x8005 reflected, init 0, no final xor.
pub fn crc16(data: &[u8]) -> u16 {
    let mut crc = 0u32;
    for &b in data {
        crc = (crc >> 8) ^ CRC16_TABLE[((crc ^ u32::from(b)) & 0xff) as usize];
    }
    crc as u16
}

/// The Internet checksum: ones' complement of the ones' complement sum of 16-bit words (an odd
/// trailing byte is padded with zero).
pub fn csum16(data: &[u8]) -> u16 {
    let mut sum = 0u64;
    let mut chunks = data.chunks_exact(2);
    for c in &mut chunks {
        sum += u64::from(u16::from_be_bytes([c[0], c[1]]));
    }
    if let [last] = chunks.remainder() {
        sum += u64::from(*last) << 8;
    }
    while sum >> 16 != 0 {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    !(sum as u16)
}

/// The Internet checksum of a concatenation of fixed-width values, summed from the values
/// themselves instead of their serialised bytes: equal to [`csum16`] of the bytes a bit writer
/// would make of them (the last partial byte or word padded with zeros).
///
/// Why it works: a bit at position `i` of the concatenation weighs `2^(15 - i mod 16)` in the word
/// sum, and the sum is only ever used modulo `2^16 - 1` (with zero kept apart from `0xFFFF`), where
/// `2^16` and `2^64` are both 1. So a value adds the same as its bits spread over words when it is
/// shifted left by the shift [`csum16_shifts`] gives it, and the folded total is zero only when
/// every bit is, as in the word-by-word sum.
#[derive(Clone, Copy, Debug, Default)]
pub struct Csum16Sum(u128);

impl Csum16Sum {
    /// Adds a value (at most 128 bits) with its shift.
    #[inline]
    pub fn add(&mut self, v: u128, shift: u32) {
        // Each half is below 2^79: the total cannot overflow for any realistic number of values.
        self.0 += ((v >> 64) << shift) + ((v & u128::from(u64::MAX)) << shift);
    }

    /// The checksum: the ones' complement of the folded sum.
    pub fn finish(self) -> u16 {
        let mut s = (self.0 >> 64) + (self.0 & u128::from(u64::MAX));
        while s >> 16 != 0 {
            s = (s & 0xffff) + (s >> 16);
        }
        !(s as u16)
    }
}

/// For values of `widths` bits concatenated in order, the shift of each for [`Csum16Sum::add`]:
/// the distance of its least significant bit from the low end of the 16-bit word it falls in.
pub fn csum16_shifts(widths: &[u32]) -> Vec<u32> {
    let mut end = 0usize;
    widths
        .iter()
        .map(|&w| {
            end += w as usize;
            // A zero-width value adds nothing whatever its shift.
            if w == 0 { 0 } else { 15 - ((end - 1) % 16) as u32 }
        })
        .collect()
}

/// XOR of all 16-bit words (odd trailing byte padded with zero).
pub fn xor16(data: &[u8]) -> u16 {
    let mut acc = 0u16;
    let mut chunks = data.chunks_exact(2);
    for c in &mut chunks {
        acc ^= u16::from_be_bytes([c[0], c[1]]);
    }
    if let [last] = chunks.remainder() {
        acc ^= u16::from(*last) << 8;
    }
    acc
}

/// The input itself as a big-endian number (its last 16 bytes when longer).
pub fn identity(data: &[u8]) -> u128 {
    let start = data.len().saturating_sub(16);
    data.get(start..).unwrap_or(&[]).iter().fold(0u128, |acc, &b| (acc << 8) | u128::from(b))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bits::{mask, BitWriter};
    use proptest::prelude::*;

    /// Values of the given widths, normalised.
    fn fields() -> impl Strategy<Value = Vec<(u128, u32)>> {
        prop::collection::vec((any::<u128>(), 0u32..=128), 0..24).prop_map(|v| v.into_iter().map(|(x, w)| (x & mask(w), w)).collect())
    }

    proptest! {
        #[test]
        fn csum16_from_values_equals_csum16_of_their_bytes(fields in fields()) {
            let mut w = BitWriter::default();
            let mut sum = Csum16Sum::default();
            let widths: Vec<u32> = fields.iter().map(|f| f.1).collect();
            for (&(v, width), shift) in fields.iter().zip(csum16_shifts(&widths)) {
                w.push(v, width);
                sum.add(v, shift);
            }
            prop_assert_eq!(sum.finish(), csum16(w.finish()));
        }
    }

    #[test]
    fn csum16_from_values_of_an_ipv4_header_and_of_zeros() {
        // version+ihl, tos, length, id, flags+fragment, ttl, protocol, checksum, src, dst.
        let fields: [(u128, u32); 11] =
            [(4, 4), (5, 4), (0, 8), (0x73, 16), (0, 16), (0x4000 >> 13, 3), (0, 13), (0x40, 8), (0x11, 8), (0, 16), (0xc0a8_0001, 32)];
        let mut fields = fields.to_vec();
        fields.push((0xc0a8_00c7, 32));
        let widths: Vec<u32> = fields.iter().map(|f| f.1).collect();
        let mut sum = Csum16Sum::default();
        for (&(v, _), s) in fields.iter().zip(csum16_shifts(&widths)) {
            sum.add(v, s);
        }
        assert_eq!(sum.finish(), 0xb861);
        let mut zeros = Csum16Sum::default();
        zeros.add(0, 3);
        assert_eq!(zeros.finish(), 0xffff, "a sum of zeros is 0, its complement all ones");
    }

    #[test]
    fn check_values_of_the_standard_crcs() {
        assert_eq!(crc32(b"123456789"), 0xCBF4_3926);
        assert_eq!(crc16(b"123456789"), 0xBB3D);
    }

    #[test]
    fn internet_checksum_of_an_ipv4_header() {
        // 20-byte IPv4 header with its checksum field zeroed; the correct checksum is 0xb861.
        let hdr = [
            0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11, 0x00, 0x00, 0xc0, 0xa8, 0x00, 0x01, 0xc0,
            0xa8, 0x00, 0xc7,
        ];
        assert_eq!(csum16(&hdr), 0xb861);
        assert_eq!(csum16(&[0x01]), !0x0100);
    }

    #[test]
    fn xor_and_identity() {
        assert_eq!(xor16(&[0x12, 0x34, 0x0f, 0x0f, 0xff]), 0xe23b);
        assert_eq!(identity(&[0x01, 0x02, 0x03]), 0x010203);
        let mut r = || 7u64;
        assert_eq!(Algorithm::Random.compute(&[], &mut r), 7);
    }
}

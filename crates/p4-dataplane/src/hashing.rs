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

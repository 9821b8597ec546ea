//! Hash and checksum algorithms, written bit by bit from their definitions (no tables), so that
//! they share nothing with the implementations they check.

/// CRC-32 (IEEE 802.3): polynomial 0x04C11DB7 processed least significant bit first (its
/// reflection 0xEDB88320), initial value and final xor all ones.
pub fn crc32(data: &[u8]) -> u32 {
    let mut crc = u32::MAX;
    for &byte in data {
        crc ^= u32::from(byte);
        for _ in 0..8 {
            let low = crc & 1;
            crc >>= 1;
            if low == 1 {
                crc ^= 0xEDB8_8320;
            }
        }
    }
    !crc
}

/// CRC-16/ARC (BMv2's `crc16`): polynomial 0x8005 reflected (0xA001), initial value 0, no final
/// xor.
pub fn crc16(data: &[u8]) -> u16 {
    let mut crc = 0u16;
    for &byte in data {
        crc ^= u16::from(byte);
        for _ in 0..8 {
            let low = crc & 1;
            crc >>= 1;
            if low == 1 {
                crc ^= 0xA001;
            }
        }
    }
    crc
}

/// The 16-bit words of `data`, big-endian, an odd last byte padded with a zero byte.
fn words(data: &[u8]) -> impl Iterator<Item = u16> + '_ {
    data.chunks(2).map(|c| u16::from(c[0]) << 8 | u16::from(c.get(1).copied().unwrap_or(0)))
}

/// The Internet checksum (RFC 1071): ones' complement of the ones' complement sum of the words.
pub fn csum16(data: &[u8]) -> u16 {
    let mut sum: u32 = 0;
    for w in words(data) {
        sum += u32::from(w);
        // End-around carry, one word at a time.
        if sum > 0xffff {
            sum = (sum & 0xffff) + 1;
        }
    }
    !(sum as u16)
}

/// Xor of the 16-bit words.
pub fn xor16(data: &[u8]) -> u16 {
    words(data).fold(0, |acc, w| acc ^ w)
}

/// The data as a big-endian number, its last 16 bytes when longer (the software switch's
/// choice for inputs wider than 128 bits).
pub fn identity(data: &[u8]) -> u128 {
    let start = data.len().saturating_sub(16);
    data[start..].iter().fold(0, |acc, b| acc << 8 | u128::from(*b))
}

/// Bits (most significant first) packed into bytes, the last byte padded with zeros.
pub fn pack(bits: &[bool]) -> Vec<u8> {
    bits.chunks(8)
        .map(|chunk| chunk.iter().enumerate().fold(0u8, |acc, (i, b)| acc | (u8::from(*b) << (7 - i))))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn check_values_of_the_standard_catalogue() {
        // The "check" values of the CRC catalogue: each algorithm over the ASCII "123456789".
        assert_eq!(crc32(b"123456789"), 0xCBF4_3926);
        assert_eq!(crc16(b"123456789"), 0xBB3D);
    }

    #[test]
    fn internet_checksum_of_an_ipv4_header() {
        // A textbook IPv4 header with its checksum field zeroed; the right checksum is 0xB861.
        let header = [
            0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11, 0x00, 0x00, 0xc0, 0xa8, 0x00, 0x01, 0xc0, 0xa8,
            0x00, 0xc7,
        ];
        assert_eq!(csum16(&header), 0xB861);
        assert_eq!(csum16(&[0xff]), 0x00ff, "an odd byte is the high half of a word");
        assert_eq!(xor16(&[0x12, 0x34, 0x0f]), 0x1234 ^ 0x0f00);
        assert_eq!(identity(&[1, 2]), 0x0102);
        assert_eq!(pack(&[true, false, true]), vec![0xa0]);
    }
}

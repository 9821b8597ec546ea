//! The checksums and hashes the expected packets need, written here (not taken from p4forge) so the
//! tests compare p4forge against independent arithmetic.
//!
//! Every function takes the bytes exactly as they appear on the wire; the 16-bit word sums pad an odd
//! trailing byte with a zero byte, as BMv2 does.

/// CRC-16 as BMv2's `crc16` (CRC-16/ARC): polynomial 0x8005 reflected (0xA001), init 0, no final xor.
pub fn crc16_arc(data: &[u8]) -> u16 {
    let mut crc: u16 = 0;
    for &byte in data {
        crc ^= u16::from(byte);
        for _ in 0..8 {
            crc = if crc & 1 != 0 { (crc >> 1) ^ 0xA001 } else { crc >> 1 };
        }
    }
    crc
}

/// CRC-32 (IEEE 802.3, BMv2's `crc32`): polynomial 0x04C11DB7 reflected, init and final xor 0xFFFFFFFF.
pub fn crc32_ieee(data: &[u8]) -> u32 {
    crc32fast::hash(data)
}

/// Big-endian 16-bit words of `data`, the last one zero-padded when the length is odd.
fn words(data: &[u8]) -> impl Iterator<Item = u16> + '_ {
    data.chunks(2).map(|c| u16::from_be_bytes([c[0], c.get(1).copied().unwrap_or(0)]))
}

/// Internet checksum: the ones' complement of the ones' complement sum of the 16-bit words.
pub fn csum16(data: &[u8]) -> u16 {
    let mut total: u64 = words(data).map(u64::from).sum();
    while total >> 16 != 0 {
        total = (total & 0xFFFF) + (total >> 16);
    }
    !(total as u16)
}

/// XOR of the 16-bit words.
pub fn xor16(data: &[u8]) -> u16 {
    words(data).fold(0, |acc, w| acc ^ w)
}

#[cfg(test)]
mod tests {
    use super::*;

    const CHECK: &[u8] = b"123456789";

    #[test]
    fn crc16_arc_check_value() {
        assert_eq!(crc16_arc(CHECK), 0xBB3D);
    }

    #[test]
    fn crc32_check_value() {
        assert_eq!(crc32_ieee(CHECK), 0xCBF4_3926);
    }

    #[test]
    fn csum16_check_values() {
        // "123456789" as words 0x3132 0x3334 0x3536 0x3738 0x3900: sum 0x109D4 folds to 0x09D5.
        assert_eq!(csum16(CHECK), 0xF62A);
        // An IPv4 header with its checksum field (B861) filled in: the checksum over it is 0.
        let hdr = [0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11, 0xB8, 0x61, 0xC0, 0xA8, 0x00,
                   0x01, 0xC0, 0xA8, 0x00, 0xC7];
        assert_eq!(csum16(&hdr), 0);
        assert_eq!(csum16(&[]), 0xFFFF);
    }

    #[test]
    fn xor16_check_value() {
        // 0x3132 ^ 0x3334 ^ 0x3536 ^ 0x3738 ^ 0x3900 = 0x3908
        assert_eq!(xor16(CHECK), 0x3908);
        assert_eq!(xor16(&[0xAB]), 0xAB00);
    }
}

//! Packet building: header fields packed big-endian from (value, width) pairs, hex in and out, and the
//! Ethernet / IPv4 / UDP headers the examples use.
//!
//! Field values are `u128`; a negative number is passed as its two's complement (`x as u128`) and
//! keeps its low `width` bits, like Python's `v & ((1 << w) - 1)`. Bits above 128 of a wider field are 0.

use crate::checksum::csum16;

/// Concatenates `(value, width_in_bits)` fields, big-endian, into bytes.
/// Panics if the widths do not add up to whole bytes: a generator bug, not user input.
pub fn h(fields: &[(u128, u32)]) -> Vec<u8> {
    let nbits: u32 = fields.iter().map(|&(_, w)| w).sum();
    assert!(nbits.is_multiple_of(8), "fields add up to {nbits} bits, not whole bytes");
    let mut out = vec![0u8; (nbits / 8) as usize];
    let mut pos = 0usize;
    for &(v, w) in fields {
        for i in (0..w).rev() {
            if i < 128 && (v >> i) & 1 == 1 {
                out[pos / 8] |= 0x80 >> (pos % 8);
            }
            pos += 1;
        }
    }
    out
}

/// Hex text (spaces ignored) to bytes; a generator's literal, so malformed text is a bug and panics.
pub fn hx(text: &str) -> Vec<u8> {
    let digits: Vec<u8> = text.bytes().filter(|b| !b.is_ascii_whitespace()).collect();
    digits
        .chunks(2)
        .map(|pair| {
            let s = std::str::from_utf8(pair).expect("ASCII hex");
            u8::from_str_radix(s, 16).expect("hex digits")
        })
        .collect()
}

/// Bytes as STF hex: upper case, grouped per 4 bytes for readability.
pub fn hexs(data: &[u8]) -> String {
    data.chunks(4)
        .map(|c| c.iter().map(|b| format!("{b:02X}")).collect::<String>())
        .collect::<Vec<_>>()
        .join(" ")
}

/// The low `w` bits of `x` read as a signed number.
pub fn wrap_signed(x: i128, w: u32) -> i128 {
    let shift = 128 - w;
    (x << shift) >> shift
}

/// `"00:00:00:00:01:00"` -> 6 bytes.
pub fn mac(s: &str) -> Vec<u8> {
    s.split(':').map(|x| u8::from_str_radix(x, 16).expect("MAC literal")).collect()
}

/// `"10.1.2.3"` -> 4 bytes.
pub fn ip(s: &str) -> Vec<u8> {
    s.split('.').map(|x| x.parse::<u8>().expect("IPv4 literal")).collect()
}

/// An Ethernet header.
pub fn eth(dst: &str, src: &str, ethertype: u16) -> Vec<u8> {
    [mac(dst), mac(src), ethertype.to_be_bytes().to_vec()].concat()
}

/// An IPv4 header; `Ipv4::new` gives the defaults, the fields can be overridden before `build`.
#[derive(Clone, Debug)]
pub struct Ipv4 {
    /// Source address, dotted.
    pub src: &'static str,
    /// Destination address, dotted.
    pub dst: &'static str,
    /// Bytes after the IPv4 header (total length = 4 * ihl + payload_len).
    pub payload_len: usize,
    /// Time to live (64).
    pub ttl: u8,
    /// Protocol (17, UDP).
    pub proto: u8,
    /// Identification (1).
    pub ident: u16,
    /// Version (4).
    pub version: u8,
    /// Header length in words (5).
    pub ihl: u8,
    /// A forced checksum; `None` computes the correct one.
    pub checksum: Option<u16>,
    /// Option bytes appended after the 20-byte header.
    pub options: Vec<u8>,
}

impl Ipv4 {
    /// A 20-byte header with the defaults listed on the fields.
    pub fn new(src: &'static str, dst: &'static str, payload_len: usize) -> Self {
        Ipv4 { src, dst, payload_len, ttl: 64, proto: 17, ident: 1, version: 4, ihl: 5, checksum: None,
               options: Vec::new() }
    }

    /// The header bytes, with a correct checksum unless one is forced.
    pub fn build(&self) -> Vec<u8> {
        let total = 4 * usize::from(self.ihl) + self.payload_len;
        let mut b = vec![(self.version << 4) | self.ihl, 0];
        b.extend((total as u16).to_be_bytes());
        b.extend(self.ident.to_be_bytes());
        b.extend([0, 0, self.ttl, self.proto, 0, 0]);
        b.extend(ip(self.src));
        b.extend(ip(self.dst));
        b.extend(&self.options);
        let c = self.checksum.unwrap_or_else(|| csum16(&b));
        b[10..12].copy_from_slice(&c.to_be_bytes());
        b
    }
}

/// A UDP header with checksum 0 (not computed) followed by the payload.
pub fn udp(sport: u16, dport: u16, payload: &[u8]) -> Vec<u8> {
    let mut b = Vec::with_capacity(8 + payload.len());
    b.extend(sport.to_be_bytes());
    b.extend(dport.to_be_bytes());
    b.extend(((8 + payload.len()) as u16).to_be_bytes());
    b.extend([0, 0]);
    b.extend(payload);
    b
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_pack_big_endian_across_byte_boundaries() {
        assert_eq!(h(&[(1, 1), (0x7f, 7), (0xABC, 12), (0x5, 4)]), vec![0xFF, 0xAB, 0xC5]);
        assert_eq!(h(&[(-3i128 as u128, 8), (0, 0)]), vec![0xFD]);
        assert_eq!(h(&[(0x1FF, 4), (2, 4)]), vec![0xF2]);
    }

    #[test]
    fn hex_round_trip_and_grouping() {
        assert_eq!(hx("0100 beef CAFE"), vec![1, 0, 0xBE, 0xEF, 0xCA, 0xFE]);
        assert_eq!(hexs(&[1, 0, 0xBE, 0xEF, 0xCA]), "0100BEEF CA");
    }

    #[test]
    fn wrap_signed_takes_low_bits() {
        assert_eq!(wrap_signed(0xFF, 8), -1);
        assert_eq!(wrap_signed(-300, 16), -300);
        assert_eq!(wrap_signed(0x80, 8), -128);
    }

    #[test]
    fn ipv4_checksum_is_filled_in() {
        let hdr = Ipv4::new("192.168.0.1", "192.168.0.199", 95).build();
        assert_eq!(hdr.len(), 20);
        assert_eq!(csum16(&hdr), 0);
        assert_eq!(&hdr[2..4], &[0, 115]);
    }
}

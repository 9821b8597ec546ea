//! The stream a monitor sends through OP4T-SST and reads back: UDP over IPv4 to the stream of
//! interest, and the two stamps the program leaves in it (`UDP | t2 | t1 | data`, as
//! `examples/op4t-sst/README.md` lays out).

use std::net::Ipv4Addr;

/// Bytes the stamps add to a stamped packet (t2's room and t1), whichever way it went.
pub const STAMPS_LEN: usize = 16;
/// Where t2 sits: after Ethernet (14), IPv4 without options (20) and UDP (8); t1 follows it.
pub const T2_AT: usize = 42;
/// The shortest frame the monitor gets back: headers and both stamps, no data.
pub const MIN_FRAME: usize = T2_AT + STAMPS_LEN;
/// The longest: a full-size Ethernet frame without its FCS.
pub const MAX_FRAME: usize = 1518;

/// The frame the monitor sends so that it comes back `leaves_len` bytes long (the stamps
/// included): UDP from 10.0.0.2:1234 to `dst`:5678, zero data, IPv4 checksum filled in, UDP
/// checksum 0 (none; the program clears it anyway). `leaves_len` must be within
/// [`MIN_FRAME`]..=[`MAX_FRAME`].
pub fn frame(dst: Ipv4Addr, leaves_len: usize) -> Vec<u8> {
    assert!((MIN_FRAME..=MAX_FRAME).contains(&leaves_len), "frame length {leaves_len} outside {MIN_FRAME}..={MAX_FRAME}");
    let data = leaves_len - MIN_FRAME;
    let udp_len = 8 + data;
    let ip_len = 20 + udp_len;
    let mut f = Vec::with_capacity(leaves_len - STAMPS_LEN);
    f.extend_from_slice(&[0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 1, 0x08, 0x00]);
    let ip_start = f.len();
    f.extend_from_slice(&[0x45, 0, (ip_len >> 8) as u8, ip_len as u8, 0, 1, 0, 0, 64, 17, 0, 0]);
    f.extend_from_slice(&Ipv4Addr::new(10, 0, 0, 2).octets());
    f.extend_from_slice(&dst.octets());
    let sum = p4_dataplane::hashing::csum16(&f[ip_start..]);
    f[ip_start + 10..ip_start + 12].copy_from_slice(&sum.to_be_bytes());
    f.extend_from_slice(&[0x04, 0xd2, 0x16, 0x2e, (udp_len >> 8) as u8, udp_len as u8, 0, 0]);
    f.resize(leaves_len - STAMPS_LEN, 0);
    f
}

/// The stamps of a packet that came back: (t1, t2) in nanoseconds, or `None` for a packet too
/// short to hold them.
pub fn stamps_ns(packet: &[u8]) -> Option<(u64, u64)> {
    let word = |at: usize| packet.get(at..at + 8).map(|b| u64::from_be_bytes(b.try_into().expect("8 bytes")));
    let t2 = p4_ir::time::nanoseconds(word(T2_AT)?);
    let t1 = p4_ir::time::nanoseconds(word(T2_AT + 8)?);
    Some((t1, t2))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_frame_leaves_the_asked_length_once_stamped() {
        let f = frame(Ipv4Addr::new(10, 0, 0, 1), 64);
        assert_eq!(f.len(), 48);
        // IPv4 total length 34, UDP length 14, destination 10.0.0.1, a header that sums to 0xffff.
        assert_eq!(&f[16..18], &[0, 34]);
        assert_eq!(&f[38..40], &[0, 14]);
        assert_eq!(&f[30..34], &[10, 0, 0, 1]);
        assert_eq!(p4_dataplane::hashing::csum16(&f[14..34]), 0);
        assert_eq!(frame(Ipv4Addr::new(10, 0, 0, 1), 1518).len(), 1502);
    }

    #[test]
    fn stamps_read_back_in_nanoseconds() {
        let mut p = vec![0u8; 64];
        p[T2_AT..T2_AT + 8].copy_from_slice(&p4_ir::time::stamp(1_000_173).to_be_bytes());
        p[T2_AT + 8..T2_AT + 16].copy_from_slice(&p4_ir::time::stamp(1_000_000).to_be_bytes());
        assert_eq!(stamps_ns(&p), Some((1_000_000, 1_000_173)));
        assert_eq!(stamps_ns(&p[..57]), None);
    }
}

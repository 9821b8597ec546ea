//! `examples/microbench/*.stf`: the hardware microbenchmarks' packets and what each program makes of
//! them. `parse16`: Ethernet, then 16 stacked 16-bit headers (the last one's low bit picks port 1 or
//! 2), padded to 256 bytes. `writesN`: Ethernet, then N 16-bit fields the action sets to
//! 0x100 * i + 7, then 64 bytes of payload; out on port 1.

use crate::output::StfLines;
use crate::packet::eth;

/// The microbenchmarks' Ethernet header: to 00:..:02 from 00:..:01, an experimental EtherType.
fn ethernet() -> Vec<u8> {
    eth("00:00:00:00:00:02", "00:00:00:00:00:01", 0x88b5)
}

/// Bytes 0, 1, 2, ... (`n` of them).
fn counting(n: usize) -> Vec<u8> {
    (0..n).map(|i| i as u8).collect()
}

pub(super) fn parse16() -> StfLines {
    const HOPS: usize = 16;
    let mut w = StfLines::default();
    w.raw("# parse16: 16 stacked 16-bit headers; h15 = 0x1234 (low bit 0) -> port 1.");
    w.raw("");
    let hop = |i: usize| if i < HOPS - 1 { 0x101 * i as u16 + 1 } else { 0x1234 };
    let hops: Vec<u8> = (0..HOPS).flat_map(|i| hop(i).to_be_bytes()).collect();
    let pkt = [ethernet(), hops, counting(256 - 14 - 2 * HOPS)].concat();
    w.packet(0, &pkt);
    w.expect(1, &pkt);
    w.raw("");
    // The same packet with h15's low bit set goes to port 2.
    let mut odd = pkt.clone();
    odd[14 + 2 * (HOPS - 1) + 1] = 0x35;
    w.packet(3, &odd);
    w.expect(2, &odd);
    w
}

pub(super) fn writes(n: usize) -> StfLines {
    let mut w = StfLines::default();
    w.raw(format!("# writes{n}: the action writes field i = 0x100 * i + 7 and sends the packet to port 1."));
    w.raw("");
    let fields: Vec<u8> = (0..n).flat_map(|i| (0x100 * i as u16 + 7).to_be_bytes()).collect();
    w.packet(0, &[ethernet(), vec![0; 2 * n], counting(64)].concat());
    w.expect(1, &[ethernet(), fields, counting(64)].concat());
    w
}

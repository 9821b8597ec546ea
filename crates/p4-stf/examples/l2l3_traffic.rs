//! Writes a large l2l3 capture for end-to-end runs of `p4forge run` (docs/PERFORMANCE.md):
//! 64-byte frames at one per 100 ns, three in four routed IPv4 (to addresses under the routes of
//! `examples/l2l3/entries.txt`, some uncovered) and one in four switched to its known MACs, from
//! 4,096 different flows (source address and UDP ports) so flow sharding has something to spread.
//!
//! `cargo run --release -p p4-stf --example l2l3_traffic -- PACKETS OUT.pcap`

use p4_stf::capture::{CaptureWriter, TimedPacket};

const ROUTER_MAC: [u8; 6] = [0, 0, 0, 0, 1, 0];
const KNOWN_MACS: [[u8; 6]; 4] = [[0, 0, 0, 0, 0, 1], [0, 0, 0, 0, 0, 2], [0, 0, 0, 0, 0, 3], [0, 0, 0, 0, 0, 0x99]];

fn frame(i: u64) -> Vec<u8> {
    let flow = (i.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 52) as u16; // 12 bits
    let mut p = Vec::with_capacity(64);
    if i % 4 == 3 {
        p.extend_from_slice(&KNOWN_MACS[(flow % 4) as usize]);
        p.extend_from_slice(&[0, 0, 0, 0, 0, 9, 0x86, 0xdd]);
    } else {
        p.extend_from_slice(&ROUTER_MAC);
        p.extend_from_slice(&[0, 0, 0, 0, 0, 9, 0x08, 0x00]);
        // 10.1.2.x (the /24), 10.1.x.y (the /16), 10.x.y.z (the /8) or 11.x (no route).
        let dst: [u8; 4] = match flow % 4 {
            0 => [10, 1, 2, flow as u8],
            1 => [10, 1, (flow >> 4) as u8, flow as u8],
            2 => [10, (flow >> 4) as u8, 7, flow as u8],
            _ => [11, 0, 0, flow as u8],
        };
        let mut ip = vec![0x45, 0, 0, 46, 0, 0, 0x40, 0, 64, 17, 0, 0, 192, 168, (flow >> 8) as u8, flow as u8];
        ip.extend_from_slice(&dst);
        let sum = csum16(&ip);
        ip[10..12].copy_from_slice(&sum.to_be_bytes());
        p.extend_from_slice(&ip);
        p.extend_from_slice(&(1024 + flow).to_be_bytes());
        p.extend_from_slice(&[0x30, 0x39, 0, 26, 0, 0]);
    }
    p.resize(64, 0xab);
    p
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (Some(count), Some(out)) = (args.get(1).and_then(|n| n.parse::<u64>().ok()), args.get(2)) else {
        eprintln!("usage: l2l3_traffic PACKETS OUT.pcap");
        std::process::exit(2);
    };
    let result = (|| {
        let mut writer = CaptureWriter::create(std::path::Path::new(out))?;
        for i in 0..count {
            writer.write(&TimedPacket { timestamp_ns: i * 100, data: frame(i) })?;
        }
        writer.finish()
    })();
    if let Err(e) = result {
        eprintln!("l2l3_traffic: {e}");
        std::process::exit(1);
    }
}

/// The IPv4 header checksum (RFC 1071: the ones' complement of the ones' complement sum of the
/// 16-bit words), over a header whose checksum field is zero.
fn csum16(header: &[u8]) -> u16 {
    let mut sum: u32 = header.chunks(2).map(|w| u32::from(u16::from_be_bytes([w[0], *w.get(1).unwrap_or(&0)]))).sum();
    while sum > 0xffff {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    !(sum as u16)
}

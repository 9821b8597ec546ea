//! Flow sharding for several switches working side by side (`p4forge run --threads N`), as NICs do
//! with receive-side scaling: packets of one flow get the same hash, so one worker sees all of them
//! in their order.
//!
//! The flow is read from the frame itself, independent of the P4 program (which is what lets the
//! sharding happen before any program runs): Ethernet with up to two VLAN tags, then the IPv4 or
//! IPv6 addresses and protocol, and the TCP/UDP/SCTP ports when the packet is not a later fragment.
//! Frames of other kinds hash by their MAC addresses and EtherType. Every read is bounds-checked:
//! a short or malformed frame still gets a hash.

/// The flow hash of an Ethernet frame (a 64-bit mix; shard by `flow_hash(f) % workers`).
pub fn flow_hash(frame: &[u8]) -> u64 {
    let mut h = FlowHasher::default();
    let mut at = 12;
    let mut ethertype = be16(frame, at);
    // 802.1Q and 802.1ad tags.
    for _ in 0..2 {
        if matches!(ethertype, Some(0x8100 | 0x88a8)) {
            at += 4;
            ethertype = be16(frame, at);
        }
    }
    let l3 = at + 2;
    let l4 = match ethertype {
        Some(0x0800) => ipv4(frame, l3, &mut h),
        Some(0x86dd) => ipv6(frame, l3, &mut h),
        _ => None,
    };
    match l4 {
        Some(Some(ports)) => {
            if let Some(p) = frame.get(ports..ports + 4) {
                h.add(p);
            }
        }
        Some(None) => {}
        None => {
            // Not IP: the MAC addresses and EtherType (or as much of them as there is).
            h.add(frame.get(..14).unwrap_or(frame));
        }
    }
    h.finish()
}

/// Adds the IPv4 flow; `Some(Some(offset))` of the ports when the protocol has them and this is
/// the first fragment, `Some(None)` without ports, `None` when the header is not there.
fn ipv4(frame: &[u8], at: usize, h: &mut FlowHasher) -> Option<Option<usize>> {
    let first = *frame.get(at)?;
    let proto = *frame.get(at + 9)?;
    h.add(frame.get(at + 12..at + 20)?);
    h.add(&[proto]);
    let fragment_offset = be16(frame, at + 6)? & 0x1fff;
    let ihl = usize::from(first & 0x0f) * 4;
    Some((has_ports(proto) && fragment_offset == 0 && ihl >= 20).then_some(at + ihl))
}

/// Adds the IPv6 flow (addresses and next header; no extension headers are followed).
fn ipv6(frame: &[u8], at: usize, h: &mut FlowHasher) -> Option<Option<usize>> {
    let next = *frame.get(at + 6)?;
    h.add(frame.get(at + 8..at + 40)?);
    h.add(&[next]);
    Some(has_ports(next).then_some(at + 40))
}

/// TCP, UDP, SCTP: the first four bytes are the source and destination ports.
fn has_ports(proto: u8) -> bool {
    matches!(proto, 6 | 17 | 132)
}

fn be16(frame: &[u8], at: usize) -> Option<u16> {
    frame.get(at..at + 2).map(|b| u16::from_be_bytes([b[0], b[1]]))
}

/// A multiply-rotate mix of the flow's bytes (not keyed: the shards of a capture are reproducible).
#[derive(Default)]
struct FlowHasher(u64);

impl FlowHasher {
    fn add(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.0 = (self.0 ^ u64::from_le_bytes(word)).wrapping_mul(0x9E37_79B9_7F4A_7C15).rotate_left(29);
        }
    }

    fn finish(&self) -> u64 {
        let h = self.0;
        (h ^ (h >> 31)).wrapping_mul(0xBF58_476D_1CE4_E5B9) ^ (h >> 27)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn udp4(src: [u8; 4], dst: [u8; 4], sport: u16, dport: u16, ttl: u8, payload: u8) -> Vec<u8> {
        let mut f = vec![0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 9, 0x08, 0x00];
        f.extend_from_slice(&[0x45, 0, 0, 30, 0, 0, 0, 0, ttl, 17, 0, 0]);
        f.extend_from_slice(&src);
        f.extend_from_slice(&dst);
        f.extend_from_slice(&sport.to_be_bytes());
        f.extend_from_slice(&dport.to_be_bytes());
        f.extend_from_slice(&[0, 10, 0, 0, payload, payload]);
        f
    }

    #[test]
    fn one_flow_one_hash_whatever_else_changes() {
        let a = udp4([10, 0, 0, 1], [10, 0, 0, 2], 1000, 53, 64, 1);
        let b = udp4([10, 0, 0, 1], [10, 0, 0, 2], 1000, 53, 3, 7);
        assert_eq!(flow_hash(&a), flow_hash(&b), "TTL and payload are not part of the flow");
        let c = udp4([10, 0, 0, 1], [10, 0, 0, 2], 1001, 53, 64, 1);
        let d = udp4([10, 0, 0, 3], [10, 0, 0, 2], 1000, 53, 64, 1);
        assert_ne!(flow_hash(&a), flow_hash(&c), "another source port");
        assert_ne!(flow_hash(&a), flow_hash(&d), "another source address");
    }

    #[test]
    fn vlan_tags_are_skipped_and_later_fragments_hash_without_ports() {
        let plain = udp4([10, 0, 0, 1], [10, 0, 0, 2], 1000, 53, 64, 1);
        let mut tagged = plain[..12].to_vec();
        tagged.extend_from_slice(&[0x81, 0x00, 0x00, 0x05]);
        tagged.extend_from_slice(&plain[12..]);
        assert_eq!(flow_hash(&plain), flow_hash(&tagged));
        let mut later = plain.clone();
        later[14 + 6] = 0x00;
        later[14 + 7] = 0x10; // fragment offset 16
        let mut other_ports = later.clone();
        other_ports[34] = 0x77;
        assert_eq!(flow_hash(&later), flow_hash(&other_ports), "a later fragment carries no ports");
    }

    #[test]
    fn short_and_odd_frames_still_hash() {
        let cut = udp4([10, 0, 0, 1], [10, 0, 0, 2], 1000, 53, 64, 1);
        for len in 0..cut.len() {
            let _ = flow_hash(&cut[..len]);
        }
        // Ports cut short are left out: the same hash as the frame ending where they start.
        assert_eq!(flow_hash(&cut[..36]), flow_hash(&cut[..34]));
        assert_ne!(flow_hash(&cut[..38]), flow_hash(&cut[..34]), "whole ports count");
        let arp = [0xffu8; 42];
        assert_ne!(flow_hash(&arp), flow_hash(&arp[..13]));
    }

    #[test]
    fn flows_spread_over_shards() {
        let mut per_shard = [0u32; 4];
        for port in 0..4000u16 {
            per_shard[(flow_hash(&udp4([10, 0, 0, 1], [10, 0, 0, 2], port, 53, 64, 0)) % 4) as usize] += 1;
        }
        for n in per_shard {
            assert!((900..=1100).contains(&n), "{per_shard:?}");
        }
    }
}

//! Turning an STF test into traffic: the packets each port receives (`packet` lines) and the packets
//! each port is expected to send (`expect` lines), timestamped exactly as [`crate::runner`] injects
//! them, so `p4forge run` on the result reproduces `p4forge test`.
//!
//! An expected packet gets the time of the last `packet` line before it (0 if none). Don't-care
//! nibbles (`*`) become 0, and a bare `expect <port>` has no bytes to write: both are reported as
//! notes rather than silently changed.

use crate::capture::TimedPacket;
use crate::error::LineError;
use crate::runner::{PACKET_SPACING_NS, WAIT_NS};
use crate::stf::{StfCommand, StfLine};
use std::collections::BTreeMap;

/// Per-port traffic extracted from an STF file.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StfTraffic {
    /// Ingress port → packets injected there, in order.
    pub inputs: BTreeMap<u32, Vec<TimedPacket>>,
    /// Egress port → packets expected there, in order.
    pub expected: BTreeMap<u32, Vec<TimedPacket>>,
    /// Where the expected packets are only an approximation (wildcards, bare `expect`).
    pub notes: Vec<LineError>,
}

/// Extracts the traffic of `commands`.
pub fn stf_traffic(commands: &[StfLine]) -> StfTraffic {
    let mut traffic = StfTraffic::default();
    let mut now_ns = 0u64;
    let mut last_packet_ns = 0u64;
    for StfLine { line, command } in commands {
        match command {
            StfCommand::Packet { port, data } => {
                traffic.inputs.entry(*port).or_default().push(TimedPacket { timestamp_ns: now_ns, data: data.clone() });
                last_packet_ns = now_ns;
                now_ns += PACKET_SPACING_NS;
            }
            StfCommand::Wait => now_ns += WAIT_NS,
            StfCommand::Expect { port, pattern: None } => {
                traffic.notes.push(LineError::new(*line, format!("`expect {port}` accepts any packet; nothing written for it")));
            }
            StfCommand::Expect { port, pattern: Some(pattern) } => {
                if pattern.nibbles.iter().any(Option::is_none) {
                    traffic.notes.push(LineError::new(*line, "don't-care nibbles written as 0"));
                }
                let mut nibbles: Vec<u8> = pattern.nibbles.iter().map(|n| n.unwrap_or(0)).collect();
                if nibbles.len() % 2 == 1 {
                    nibbles.push(0);
                    traffic.notes.push(LineError::new(*line, "odd number of hex digits; last byte padded with 0"));
                }
                let data = nibbles.chunks(2).map(|p| (p[0] << 4) | p[1]).collect();
                traffic.expected.entry(*port).or_default().push(TimedPacket { timestamp_ns: last_packet_ns, data });
            }
            _ => {}
        }
    }
    traffic
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stf::parse_stf;

    #[test]
    fn packets_and_expectations_per_port_with_runner_timing() {
        let commands = parse_stf("expect 2 0a*b\npacket 1 0102\nwait\npacket 3 03\nexpect 2 ff1\nexpect 4\n").unwrap();
        let traffic = stf_traffic(&commands);
        let p = |t: u64, d: &[u8]| TimedPacket { timestamp_ns: t, data: d.to_vec() };
        assert_eq!(traffic.inputs.get(&1), Some(&vec![p(0, &[1, 2])]));
        assert_eq!(traffic.inputs.get(&3), Some(&vec![p(1_001_000, &[3])]));
        assert_eq!(traffic.expected.get(&2), Some(&vec![p(0, &[0x0a, 0x0b]), p(1_001_000, &[0xff, 0x10])]));
        assert_eq!(
            traffic.notes.iter().map(ToString::to_string).collect::<Vec<_>>(),
            vec![
                "line 1: don't-care nibbles written as 0",
                "line 5: odd number of hex digits; last byte padded with 0",
                "line 6: `expect 4` accepts any packet; nothing written for it",
            ]
        );
    }
}

//! Exact time on a 10GBASE-R line.
//!
//! Invariant: time is an integer count of bit periods of the 10.3125 GBd serial line
//! (one bit = 1/10.3125 GHz = 32/330 ns ≈ 96.97 ps). Nothing in the PHY rounds time;
//! conversion to SI units happens only at the edges (pcapng, statistics, printing).

use serde::{Deserialize, Serialize};

/// Serial line rate of 10GBASE-R in bits per second (10 Gb/s × 66/64).
pub const LINE_RATE_BPS: u64 = 10_312_500_000;
/// Bits in one 64b/66b block (2 sync bits + 64 payload bits).
pub const BITS_PER_BLOCK: u64 = 66;
/// XGMII characters (octet lanes) carried by one block.
pub const CHARS_PER_BLOCK: u64 = 8;

/// A point in time (or a duration) counted in serial bit periods since the start of a stream.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct BitTime(pub u64);

impl BitTime {
    /// Time of the first bit of block number `block` of a block-aligned stream.
    pub const fn of_block(block: u64) -> BitTime {
        BitTime(block * BITS_PER_BLOCK)
    }

    /// Time of XGMII character position `pos` (8 characters per block): `pos × 66 / 8`,
    /// rounded down. The map is linear, so for the positions where a frame can start (lane 0
    /// or 4, `pos % 4 == 0`) it is exact: lane 0 is the first bit of its block (the sync
    /// header) and lane 4 is 33 bits later, the middle of the block. TX and RX both use it,
    /// so the delay between two starts is exactly 8.25 bits per character between them.
    pub const fn of_char(pos: u64) -> BitTime {
        BitTime(pos * BITS_PER_BLOCK / CHARS_PER_BLOCK)
    }

    /// [`BitTime::of_char`] of lane `lane` of block `block`.
    pub const fn of_lane(block: u64, lane: u64) -> BitTime {
        BitTime::of_char(block * CHARS_PER_BLOCK + lane)
    }

    /// Duration in picoseconds, rounded to the nearest picosecond (1 bit = 3200/33 ps).
    pub const fn as_picos(self) -> u64 {
        // u128 keeps the product exact for any u64 bit count.
        ((self.0 as u128 * 3200 + 16) / 33) as u64
    }

    /// Duration in nanoseconds as a float (for statistics and printing only).
    pub fn as_nanos_f64(self) -> f64 {
        self.0 as f64 * 32.0 / 330.0
    }

    /// The time `bits` bit periods later.
    pub const fn plus(self, bits: u64) -> BitTime {
        BitTime(self.0 + bits)
    }

    /// `self - earlier`, saturating at zero.
    pub const fn since(self, earlier: BitTime) -> BitTime {
        BitTime(self.0.saturating_sub(earlier.0))
    }
}

impl std::fmt::Display for BitTime {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} bits ({:.3} ns)", self.0, self.as_nanos_f64())
    }
}

/// Bit periods taken by `chars` XGMII characters on the serial line (8 payload bits each plus
/// their share of the sync header). Exact only for multiples of 4 characters; callers that
/// need exactness work in whole blocks or use [`BitTime::of_lane`].
pub fn chars_to_bits_f64(chars: f64) -> f64 {
    chars * 66.0 / 8.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_block_is_6_4_ns() {
        assert_eq!(BitTime::of_block(1).as_picos(), 6400);
        assert_eq!(BitTime::of_block(156_250_000).as_picos(), 1_000_000_000_000);
        assert_eq!(BitTime(1).as_picos(), 97);
        assert_eq!(BitTime::of_lane(2, 4), BitTime(132 + 33));
        assert_eq!(BitTime::of_char(84), BitTime(693));
    }
}

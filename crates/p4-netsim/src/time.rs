//! Exact simulated time.
//!
//! Invariant: one time unit is 1/33 femtosecond, so every duration the 10GBASE-R model needs is an
//! integer: a line bit at 10.3125 GHz is 3_200_000 units, a MAC byte at 10 Gb/s is 26_400_000 units
//! and a 66-bit PCS cycle at 156.25 MHz (6.4 ns) is 211_200_000 units. A `u64` holds about 559
//! simulated seconds, far beyond any run this crate makes.

/// A point in (or span of) simulated time, in units of 1/33 fs.
pub type Time = u64;

/// Units per nanosecond.
pub const UNITS_PER_NS: u64 = 33_000_000;
/// Units per second.
pub const UNITS_PER_SEC: u64 = UNITS_PER_NS * 1_000_000_000;
/// One line bit at 10.3125 GBd.
pub const LINE_BIT: Time = 3_200_000;
/// One MAC byte at 10 Gb/s (8 data bits; 64/66 coding makes it 8.25 line bits).
pub const BYTE_TIME: Time = 26_400_000;
/// One nominal PCS cycle (one 66-bit block) at 156.25 MHz.
pub const NOMINAL_CYCLE: Time = 211_200_000;
/// Propagation delay per metre of fibre or copper (5 ns/m).
pub const PROPAGATION_PER_M: Time = 5 * UNITS_PER_NS;
/// Preamble + SFD bytes in front of every frame.
pub const PREAMBLE: u64 = 8;
/// Nominal inter-frame gap in bytes.
pub const IFG: u64 = 12;
/// Bytes a frame of `len` bytes (header to FCS) occupies on the wire including preamble and IFG.
pub fn wire_bytes(len: u64) -> u64 {
    len + PREAMBLE + IFG
}

/// Converts nanoseconds to time units (rounded to the nearest unit).
pub fn from_ns(ns: f64) -> Time {
    (ns * UNITS_PER_NS as f64).round().max(0.0) as Time
}

/// Converts seconds to time units (rounded to the nearest unit).
pub fn from_secs(s: f64) -> Time {
    (s * UNITS_PER_SEC as f64).round().max(0.0) as Time
}

/// Converts time units to nanoseconds.
pub fn to_ns(t: Time) -> f64 {
    t as f64 / UNITS_PER_NS as f64
}

/// Converts time units to seconds.
pub fn to_secs(t: Time) -> f64 {
    t as f64 / UNITS_PER_SEC as f64
}

/// Time between starts of consecutive frames of `len` bytes sent at `gbps` counting wire bytes
/// (preamble, frame and IFG), the rate definition used throughout the crate so that a 10 Gb/s
/// link carries exactly 10 Gb/s of traffic.
pub fn interval_for_rate(len: u64, gbps: f64) -> Time {
    let bits = (wire_bytes(len) * 8) as f64;
    from_ns(bits / gbps.max(1e-9))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units_are_exact() {
        assert_eq!(LINE_BIT * 66, NOMINAL_CYCLE);
        assert_eq!(BYTE_TIME * 8, NOMINAL_CYCLE);
        assert_eq!(from_ns(6.4), NOMINAL_CYCLE);
        assert_eq!(UNITS_PER_SEC, 33_000_000_000_000_000);
        assert_eq!(interval_for_rate(1518, 10.0), 1538 * BYTE_TIME);
        assert_eq!(to_ns(interval_for_rate(792, 8.0)), 812.0);
    }
}

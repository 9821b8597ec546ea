//! p4forge's 64-bit time format, shared by both targets: whole microseconds above bit
//! [`NS_BITS`] and the nanoseconds within the microsecond (0 to 999) below it. In hardware a
//! time-of-day counter in this format is a nanosecond counter that carries into the microseconds
//! at 1000, so a timestamp in microseconds (v1model's, as BMv2 keeps it) is a slice of it with no
//! divider in the pipeline; the software target writes the same values, so a stamp a program
//! puts into a packet reads the same on either target.

/// Bits below the microseconds.
pub const NS_BITS: u32 = 10;

/// `ns` nanoseconds in the time format.
pub const fn stamp(ns: u64) -> u64 {
    ((ns / 1000) << NS_BITS) | (ns % 1000)
}

/// Nanoseconds of a time in the format (a nanosecond field of 1000 or more, which the format
/// never holds, counts as it reads).
pub const fn nanoseconds(stamp: u64) -> u64 {
    (stamp >> NS_BITS) * 1000 + (stamp & ((1 << NS_BITS) - 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stamps_hold_microseconds_above_bit_ten_and_nanoseconds_below() {
        assert_eq!(stamp(0), 0);
        assert_eq!(stamp(999), 999);
        assert_eq!(stamp(1000), 1 << 10);
        assert_eq!(stamp(1_234_567), (1234 << 10) | 567);
        for ns in [0, 1, 999, 1000, 1001, 123_456_789_012, u64::MAX / 2] {
            assert_eq!(nanoseconds(stamp(ns)), ns);
        }
    }
}

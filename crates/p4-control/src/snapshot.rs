//! What a table holds and where clone sessions send copies, for a target that mirrors the
//! software switch's control-plane state (the hardware target's driver loads these into its table
//! memories and mirror table).

/// The widest key field an entry holds: [`Match`] keeps each field's value and mask in 128 bits,
/// so a table keyed on a wider field cannot be given entries on any target.
pub const MAX_KEY_FIELD_BITS: u32 = 128;

/// How one key component of an entry matches.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Match {
    /// `key & mask == value` (exact: mask all ones; LPM: prefix mask).
    Mask(u128, u128),
    /// `lo <= key <= hi`
    Range(u128, u128),
}

impl Match {
    /// Whether `key` matches.
    #[inline]
    pub fn matches(&self, key: u128) -> bool {
        match *self {
            Match::Mask(v, m) => key & m == v,
            Match::Range(lo, hi) => lo <= key && key <= hi,
        }
    }
}

/// One installed entry: how each key field matches (in key-layout order), the action (its position
/// in the table's `actions` list) and the action's data (directionless parameters in order).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EntrySnapshot {
    /// The entry's handle (what the control plane names it by, e.g. for its direct counter).
    pub handle: u64,
    pub matches: Vec<Match>,
    pub action: usize,
    pub args: Vec<u128>,
}

/// A table's contents in lookup precedence (the first match wins) and its default action.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TableSnapshot {
    pub entries: Vec<EntrySnapshot>,
    pub default_action: usize,
    pub default_args: Vec<u128>,
}

/// Where a clone session sends copies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mirror {
    Port(u32),
    Group(u32),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn masks_and_ranges_match_what_they_say() {
        assert!(Match::Mask(0x0a00, 0xff00).matches(0x0a42));
        assert!(!Match::Mask(0x0a00, 0xff00).matches(0x0b42));
        assert!(Match::Range(3, 5).matches(3) && Match::Range(3, 5).matches(5));
        assert!(!Match::Range(3, 5).matches(6) && !Match::Range(3, 5).matches(2));
    }
}

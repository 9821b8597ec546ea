//! Inter-frame gap placement: the deficit idle count (DIC) rule of the 10 Gb/s reconciliation
//! sublayer, and the exact-gap rule a SoNIC-style generator uses.
//!
//! Positions are absolute XGMII character indices (8 per block). A gap is counted from the
//! character after a frame's last FCS octet (where /T/ goes) up to, not including, the next
//! /S/; so the standard minimum gap of 12 is /T/ plus eleven /I/. A frame may only start in
//! lane 0 or 4 (`start % 4 == 0`), and never in a block that already holds a /T/.
//!
//! DIC invariant: `0 <= deficit <= 3`, and after n frames the sum of realised gaps equals the
//! sum of requested gaps minus the current deficit plus the initial one, so the long-run
//! average gap is exactly the requested one (12 for back-to-back traffic).

/// The standard minimum inter-frame gap in characters.
pub const STANDARD_MIN_GAP: u32 = 12;

/// How a requested gap that does not put the next start in lane 0/4 is realised.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum GapRule {
    /// Deficit idle count: shrink by up to 3 while the deficit allows, else stretch.
    Dic,
    /// Stretch to the next legal start (a requested gap that is already legal is kept exactly).
    RoundUp,
}

/// Places frame starts given requested gaps.
#[derive(Clone, Debug)]
pub struct GapShaper {
    rule: GapRule,
    min_gap: u32,
    deficit: u32,
}

impl GapShaper {
    /// `min_gap` below [`STANDARD_MIN_GAP`] inserts fewer idles than the standard allows.
    pub fn new(rule: GapRule, min_gap: u32) -> GapShaper {
        GapShaper { rule, min_gap: min_gap.max(1), deficit: 0 }
    }

    /// Current deficit idle count (0..=3).
    pub fn deficit(&self) -> u32 {
        self.deficit
    }

    /// The start position of the next frame. `end` is the position of the previous frame's /T/
    /// (0 at the start of a stream), `requested` the gap asked for, `first_free` the first
    /// character of the first block not yet emitted (a frame cannot start before it).
    pub fn place(&mut self, end: u64, requested: u32, first_free: u64) -> u64 {
        let gap = u64::from(requested.max(self.min_gap));
        let mut start = end + gap;
        let r = (start % 4) as u32;
        if r != 0 {
            match self.rule {
                GapRule::Dic if self.deficit + r <= 3 && start - u64::from(r) >= first_free => {
                    start -= u64::from(r);
                    self.deficit += r;
                }
                GapRule::Dic => {
                    start += u64::from(4 - r);
                    self.deficit = (self.deficit + r).saturating_sub(4);
                }
                GapRule::RoundUp => start += u64::from(4 - r),
            }
        }
        start.max(first_free)
    }
}

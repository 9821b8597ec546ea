//! The self-synchronous scrambler of clause 49.2.6, G(x) = 1 + x^39 + x^58.
//!
//! Invariant: the state is the last 64 *scrambled* bits of the line, bit 63 the most recent.
//! Each scrambled bit is `s[n] = d[n] ^ s[n-39] ^ s[n-58]`, bits in transmission order
//! (payload bit 0 first). Only the 64 payload bits pass through it; sync headers do not.
//! A whole 64-bit payload is processed with four shifts and four XORs: the taps 39 and 58
//! reach at most 25 bits into the current word, so one feedback step covers all 64 bits.
//! The state-to-state dependency chain is six operations long and bounds the scrambler's
//! speed; expanding the feedback into masked shifts of the state (one level shorter) or
//! jumping two blocks at once (eight masked-shift terms) measured slower on this hardware,
//! because each masked shift costs more issue slots than the chain saves.

/// Transmit-side scrambler.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Scrambler {
    state: u64,
}

/// Receive-side descrambler. Self-synchronising: after 58 received bits its output no longer
/// depends on its initial state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Descrambler {
    state: u64,
}

impl Scrambler {
    /// A scrambler whose previous 64 output bits were `state` (bit 63 most recent).
    pub const fn new(state: u64) -> Scrambler {
        Scrambler { state }
    }

    /// Current state (the last 64 scrambled bits).
    pub const fn state(&self) -> u64 {
        self.state
    }

    /// Scramble one 64-bit payload.
    #[inline]
    pub fn scramble(&mut self, data: u64) -> u64 {
        let s = self.state;
        let t = (s >> 6) ^ (s >> 25) ^ data;
        let out = t ^ (t << 39) ^ (t << 58);
        self.state = out;
        out
    }

    /// Scramble the payloads of `blocks` in place.
    pub fn scramble_blocks(&mut self, blocks: &mut [crate::Block66]) {
        for b in blocks {
            b.payload = self.scramble(b.payload);
        }
    }
}

impl Default for Scrambler {
    /// All-ones initial state, a common choice of hardware PCSs (the standard leaves it open).
    fn default() -> Self {
        Scrambler::new(u64::MAX)
    }
}

impl Descrambler {
    /// A descrambler whose previous 64 received bits were `state`.
    pub const fn new(state: u64) -> Descrambler {
        Descrambler { state }
    }

    /// Current state (the last 64 received, scrambled bits).
    pub const fn state(&self) -> u64 {
        self.state
    }

    /// Descramble one 64-bit payload.
    #[inline]
    pub fn descramble(&mut self, line: u64) -> u64 {
        let s = self.state;
        let out = line ^ (line << 39) ^ (line << 58) ^ (s >> 25) ^ (s >> 6);
        self.state = line;
        out
    }

    /// Descramble the payloads of `blocks` in place.
    pub fn descramble_blocks(&mut self, blocks: &mut [crate::Block66]) {
        for b in blocks {
            b.payload = self.descramble(b.payload);
        }
    }
}

impl Default for Descrambler {
    /// All ones, matching [`Scrambler::default`], so a receiver that sees a stream from its
    /// very first bit descrambles it exactly from the first block.
    fn default() -> Self {
        Descrambler::new(u64::MAX)
    }
}

/// Bit-serial reference scrambler straight from the polynomial, one bit per step. Slow; used
/// by tests to check the word-wise form.
pub fn scramble_bitwise(state: &mut u64, data: u64) -> u64 {
    let mut out = 0u64;
    for i in 0..64 {
        let s = *state;
        // s bit 0 is the most recent bit in this serial form.
        let bit = ((data >> i) ^ (s >> 38) ^ (s >> 57)) & 1;
        *state = (s << 1) | bit;
        out |= bit << i;
    }
    out
}

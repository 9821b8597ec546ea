//! The self-synchronous scrambler of clause 49.2.6, G(x) = 1 + x^39 + x^58.
//!
//! Each scrambled bit is `s[n] = d[n] ^ s[n-39] ^ s[n-58]`, bits in transmission order
//! (payload bit 0 first). Only the 64 payload bits pass through it; sync headers do not.
//!
//! Speed. The textbook word-wise step (feedback from the previous word, then the x^39 and
//! x^58 terms inside the word) is a six-operation dependency chain per block, which capped
//! the transmitter near 20 Gb/s. Over GF(2), squaring is linear, so G(x)^(2^j) =
//! 1 + x^(39·2^j) + x^(58·2^j), and multiplying the defining relation S·G = D by G^(2^j - 1)
//! gives `S·G^(2^j) = D·G^(2^j - 1)`: a feed-forward filter on the data followed by a
//! recursion whose shortest lag is 39·2^j bits.
//! * The scalar path uses j = 1 (lags 78 and 116): each output word depends on the previous
//!   one through one shift and two XORs, everything else runs alongside.
//! * The AVX-512 path (chosen at run time) uses j = 4 (lags 624 and 928, more than eight
//!   words), so eight words are computed at once from the two previous vectors of output,
//!   after four feed-forward stages on the data (D·G·G²·G⁴·G⁸), each a pair of funnel shifts.
//!
//! Both need history: the last 16 data and output words. [`Scrambler::new`] seeds it with a
//! virtual past that is consistent with the recurrence (all zero, then the data word that the
//! zero state scrambles into `state`), so the output is exactly that of the textbook form.

/// Words of data and output history the scrambler keeps (enough for the lag of 928 bits and
/// the feed-forward stages of the vector path).
const HISTORY: usize = 16;

/// `x ^ x<<39 ^ x<<58` on one word: multiplication by G(x) modulo x^64. It is its own inverse
/// (G(x)^2 = 1 + x^78 + x^116 = 1 mod x^64), which is how the virtual data word is found.
#[inline]
const fn times_g_mod64(x: u64) -> u64 {
    x ^ (x << 39) ^ (x << 58)
}

/// The value itself, hidden from the optimiser. LLVM flattens XOR trees and rebuilds them as
/// a linear chain that starts with the loop-carried word, which would put every XOR of a
/// scrambler step back on the word-to-word chain; an empty register-only `asm!` keeps the
/// early terms as one operand. It emits no instruction.
#[inline(always)]
fn opaque(mut x: u64) -> u64 {
    #[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
    // SAFETY: the template is empty; the register keeps its value.
    unsafe {
        core::arch::asm!("/* {0} */", inout(reg) x, options(pure, nomem, nostack, preserves_flags));
    }
    x
}

/// Transmit-side scrambler.
#[derive(Clone, Copy, Debug)]
pub struct Scrambler {
    /// The last output words, oldest first (`out[15]` is the scrambler's true state).
    out: [u64; HISTORY],
    /// The data words that produced them.
    data: [u64; HISTORY],
}

/// Two scramblers are equal when they will scramble identically, i.e. when their last 64
/// output bits agree; the older history is only a computational device.
impl PartialEq for Scrambler {
    fn eq(&self, other: &Self) -> bool {
        self.state() == other.state()
    }
}

impl Eq for Scrambler {}

/// Receive-side descrambler. Self-synchronising: after 58 received bits its output no longer
/// depends on its initial state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Descrambler {
    state: u64,
}

impl Scrambler {
    /// A scrambler whose previous 64 output bits were `state` (bit 63 most recent).
    pub const fn new(state: u64) -> Scrambler {
        let mut out = [0; HISTORY];
        let mut data = [0; HISTORY];
        out[HISTORY - 1] = state;
        data[HISTORY - 1] = times_g_mod64(state);
        Scrambler { out, data }
    }

    /// Current state (the last 64 scrambled bits).
    pub const fn state(&self) -> u64 {
        self.out[HISTORY - 1]
    }

    /// Scramble one 64-bit payload. (For many, [`Scrambler::scramble_blocks`] is much faster.)
    pub fn scramble(&mut self, data: u64) -> u64 {
        let t = (self.state() >> 6) ^ (self.state() >> 25) ^ data;
        let out = times_g_mod64(t);
        self.out.copy_within(1.., 0);
        self.data.copy_within(1.., 0);
        self.out[HISTORY - 1] = out;
        self.data[HISTORY - 1] = data;
        out
    }

    /// Scramble the payloads of `blocks` in place.
    pub fn scramble_blocks(&mut self, blocks: &mut [crate::Block66]) {
        self.scramble_blocks_with(blocks, true);
    }

    /// [`Scrambler::scramble_blocks`] without the vector path, so that tests cover the
    /// portable path on machines that have the vector one.
    #[doc(hidden)]
    pub fn scramble_blocks_portable(&mut self, blocks: &mut [crate::Block66]) {
        self.scramble_blocks_with(blocks, false);
    }

    fn scramble_blocks_with(&mut self, blocks: &mut [crate::Block66], vector_ok: bool) {
        let n = blocks.len();
        // The tail of the data is overwritten below but is the next call's history.
        let mut tail = [0u64; HISTORY];
        let keep = n.min(HISTORY);
        for (t, b) in tail[HISTORY - keep..].iter_mut().zip(&blocks[n - keep..]) {
            *t = b.payload;
        }
        let mut done = 0;
        #[cfg(target_arch = "x86_64")]
        if vector_ok && n >= 8 && vector::available() {
            done = n / 8 * 8;
            // SAFETY: the CPU has the features (checked above); `done` is a multiple of 8
            // within `blocks`.
            unsafe { vector::scramble(&mut blocks[..done], &self.out, &self.data) };
        }
        if done < n {
            // Scalar G² form from word `done` on; its history is the two previous output
            // words and the previous data word.
            let (mut s1, mut s2, mut d1);
            if done == 0 {
                s1 = self.out[HISTORY - 1];
                s2 = self.out[HISTORY - 2];
                d1 = self.data[HISTORY - 1];
            } else {
                s1 = blocks[done - 1].payload;
                s2 = blocks[done - 2].payload;
                // The remainder is under 8 words, so data word `done - 1` is in `tail`.
                d1 = tail[HISTORY - (n - (done - 1))];
            }
            for b in &mut blocks[done..] {
                let d = b.payload;
                let early = opaque(d ^ (d << 39) ^ (d1 >> 25) ^ (d << 58) ^ (d1 >> 6) ^ (s2 >> 50) ^ (s2 >> 12));
                let out = early ^ ((s1 << 14) ^ (s1 << 52));
                s2 = s1;
                s1 = out;
                d1 = d;
                b.payload = out;
            }
        }
        // Slide the history windows along by `n`.
        self.out.copy_within(keep.., 0);
        self.data.copy_within(keep.., 0);
        for (h, b) in self.out[HISTORY - keep..].iter_mut().zip(&blocks[n - keep..]) {
            *h = b.payload;
        }
        self.data[HISTORY - keep..].copy_from_slice(&tail[HISTORY - keep..]);
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

    /// Append the descrambled payloads of `line` to `plain`, eight octets per block in line
    /// order (the payload's little-endian octets, i.e. the XGMII lanes of a data block), so
    /// runs of data blocks can be copied into frames as one slice.
    pub fn descramble_into(&mut self, line: &[crate::Block66], plain: &mut Vec<u8>) {
        plain.reserve(8 * line.len());
        let mut done = 0;
        #[cfg(target_arch = "x86_64")]
        if line.len() >= 8 && vector::available() {
            done = line.len() / 8 * 8;
            let spare = &mut plain.spare_capacity_mut()[..8 * done];
            // SAFETY: the CPU has the features; `done` is a multiple of 8 within `line`, and
            // `spare` has room for its 8 octets per block (reserved above). The kernel writes
            // every one of those octets, so they are initialised when the length grows
            // (writing straight into spare capacity saves zero-filling the buffer first).
            unsafe {
                self.state = vector::descramble_to(&line[..done], spare.as_mut_ptr().cast::<u8>(), self.state);
                plain.set_len(plain.len() + 8 * done);
            }
        }
        let at = plain.len();
        let rest = &mut plain.spare_capacity_mut()[..8 * (line.len() - done)];
        for (b, d) in line[done..].iter().zip(rest.chunks_exact_mut(8)) {
            for (slot, x) in d.iter_mut().zip(self.descramble(b.payload).to_le_bytes()) {
                slot.write(x);
            }
        }
        // SAFETY: the loop wrote all 8 octets of each remaining block into reserved capacity.
        unsafe { plain.set_len(at + 8 * (line.len() - done)) };
    }

    /// Descramble the payloads of `blocks` in place.
    pub fn descramble_blocks(&mut self, blocks: &mut [crate::Block66]) {
        let mut done = 0;
        #[cfg(target_arch = "x86_64")]
        if blocks.len() >= 8 && vector::available() {
            done = blocks.len() / 8 * 8;
            // SAFETY: as in `scramble_blocks`.
            self.state = unsafe { vector::descramble(&mut blocks[..done], self.state) };
        }
        for b in &mut blocks[done..] {
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
/// by tests to check the word-wise forms.
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

/// Eight words at a time with AVX-512 (F for the shuffles, VBMI2 for 64-bit funnel shifts).
/// A vector holds words `k..k+8` of one stream in lanes 0..7.
#[cfg(target_arch = "x86_64")]
mod vector {
    use crate::Block66;
    use core::arch::x86_64::*;

    /// True when the CPU can run this module (checked once, then cached by `std`).
    pub fn available() -> bool {
        std::is_x86_feature_detected!("avx512f") && std::is_x86_feature_detected!("avx512vbmi2")
    }

    /// Lanes of `cur` moved `Q` words later, filled from `prev` (the vector before it):
    /// lane j holds word `k + j - Q`. `IMM` must be `8 - Q` (const generics cannot compute it).
    ///
    /// # Safety
    /// The CPU has AVX-512 F and VBMI2 ([`available`]).
    #[inline(always)]
    unsafe fn back<const IMM: i32>(cur: __m512i, prev: __m512i) -> __m512i {
        // SAFETY: the caller's promise (this function's `# Safety`); the intrinsics need only the CPU
        // features.
        unsafe {
            _mm512_alignr_epi64::<IMM>(cur, prev)

        }
    }

    /// One term of a stream delayed by a lag of `64·q + R` bits, given the stream delayed by
    /// `q` words (`hi`) and by `q + 1` words (`lo`).
    ///
    /// # Safety
    /// The CPU has AVX-512 F and VBMI2 ([`available`]).
    #[inline(always)]
    unsafe fn tap<const R: i32>(hi: __m512i, lo: __m512i) -> __m512i {
        // SAFETY: the caller's promise (this function's `# Safety`); the intrinsics need only the CPU
        // features.
        unsafe {
            _mm512_shldi_epi64::<R>(hi, lo)

        }
    }

    /// # Safety
    /// The CPU has AVX-512 F and VBMI2 ([`available`]).
    #[inline(always)]
    unsafe fn xor3(a: __m512i, b: __m512i, c: __m512i) -> __m512i {
        // SAFETY: the caller's promise (this function's `# Safety`); the intrinsics need only the CPU
        // features.
        unsafe {
            _mm512_ternarylogic_epi64::<0x96>(a, b, c)

        }
    }

    /// Payloads of the eight blocks at `p` (only the payload quadwords are read).
    ///
    /// # Safety
    /// The CPU has AVX-512 F and VBMI2 ([`available`]), and `p` is valid for reads of eight blocks.
    #[inline(always)]
    unsafe fn load(p: *const Block66) -> __m512i {
        // SAFETY: the caller's promise (this function's `# Safety`); the intrinsics need only the CPU
        // features, and every pointer offset stays within the blocks the caller vouched for.
        unsafe {
            let q = p as *const i64;
            let lo = _mm512_maskz_loadu_epi64(0xaa, q);
            let hi = _mm512_maskz_loadu_epi64(0xaa, q.add(8));
            _mm512_permutex2var_epi64(lo, _mm512_set_epi64(15, 13, 11, 9, 7, 5, 3, 1), hi)

        }
    }

    /// Write eight payloads back to the blocks at `p`, leaving the sync headers alone.
    ///
    /// # Safety
    /// The CPU has AVX-512 F and VBMI2 ([`available`]), and `p` is valid for writes of eight blocks.
    #[inline(always)]
    unsafe fn store(p: *mut Block66, v: __m512i) {
        // SAFETY: the caller's promise (this function's `# Safety`); the intrinsics need only the CPU
        // features, and every pointer offset stays within the blocks the caller vouched for.
        unsafe {
            let q = p as *mut i64;
            let lo = _mm512_permutexvar_epi64(_mm512_set_epi64(3, 3, 2, 2, 1, 1, 0, 0), v);
            let hi = _mm512_permutexvar_epi64(_mm512_set_epi64(7, 7, 6, 6, 5, 5, 4, 4), v);
            _mm512_mask_storeu_epi64(q, 0xaa, lo);
            _mm512_mask_storeu_epi64(q.add(8), 0xaa, hi);
        }
    }

    /// The four feed-forward stages, D·G, ·G², ·G⁴, ·G⁸, each given its input stream's
    /// current and previous vector. Returns (u1, u2, u3, u4).
    ///
    /// # Safety
    /// The CPU has AVX-512 F and VBMI2 ([`available`]).
    #[inline(always)]
    unsafe fn stages(
        d: __m512i,
        dp: __m512i,
        u1p: __m512i,
        u2p: __m512i,
        u3p: __m512i,
    ) -> (__m512i, __m512i, __m512i, __m512i) {
        // SAFETY: the caller's promise (this function's `# Safety`); the intrinsics need only the CPU
        // features.
        unsafe {
            // G: lags 39 and 58 (within a word and the one before).
            let d1 = back::<7>(d, dp);
            let u1 = xor3(d, tap::<39>(d, d1), tap::<58>(d, d1));
            // G²: lags 78 = 64 + 14 and 116 = 64 + 52.
            let (a1, a2) = (back::<7>(u1, u1p), back::<6>(u1, u1p));
            let u2 = xor3(u1, tap::<14>(a1, a2), tap::<52>(a1, a2));
            // G⁴: lags 156 = 2·64 + 28 and 232 = 3·64 + 40.
            let (b2, b3, b4) = (back::<6>(u2, u2p), back::<5>(u2, u2p), back::<4>(u2, u2p));
            let u3 = xor3(u2, tap::<28>(b2, b3), tap::<40>(b3, b4));
            // G⁸: lags 312 = 4·64 + 56 and 464 = 7·64 + 16.
            let (c4, c5, c7) = (back::<4>(u3, u3p), back::<3>(u3, u3p), back::<1>(u3, u3p));
            let u4 = xor3(u3, tap::<56>(c4, c5), tap::<16>(c7, u3p));
            (u1, u2, u3, u4)

        }
    }

    /// Scramble `blocks` (a multiple of 8) given the previous 16 output and data words.
    ///
    /// # Safety
    /// The CPU has AVX-512 F and VBMI2 ([`available`]).
    #[target_feature(enable = "avx512f,avx512vbmi2")]
    pub unsafe fn scramble(blocks: &mut [Block66], out_hist: &[u64; 16], data_hist: &[u64; 16]) {
        // SAFETY: the caller's promise (this function's `# Safety`); the intrinsics need only the CPU
        // features, and every pointer offset stays within the blocks the caller vouched for.
        unsafe {
            let ld = |h: &[u64; 16], at: usize| _mm512_loadu_si512(h[at..].as_ptr() as *const __m512i);
            // Warm the feed-forward stages up on the data history so that every lane the next
            // vector reads from them is exact.
            let (dp2, dp1) = (ld(data_hist, 0), ld(data_hist, 8));
            let zero = _mm512_setzero_si512();
            let (u1a, u2a, u3a, _) = stages(dp2, zero, zero, zero, zero);
            let (mut u1p, mut u2p, mut u3p, _) = stages(dp1, dp2, u1a, u2a, u3a);
            let mut dp = dp1;
            let (mut s2, mut s1) = (ld(out_hist, 0), ld(out_hist, 8));
            let p = blocks.as_mut_ptr();
            let mut i = 0;
            while i < blocks.len() {
                let d = load(p.add(i));
                let (u1, u2, u3, u4) = stages(d, dp, u1p, u2p, u3p);
                // S·G^16 = D·G^15: lags 624 = 9·64 + 48 and 928 = 14·64 + 32 reach into the two
                // previous output vectors only. Lane j of `alignr(s1, s2, 16 - q)` is word k+j-q.
                let (w9, w10) = (_mm512_alignr_epi64::<7>(s1, s2), _mm512_alignr_epi64::<6>(s1, s2));
                let (w14, w15) = (_mm512_alignr_epi64::<2>(s1, s2), _mm512_alignr_epi64::<1>(s1, s2));
                let s = xor3(u4, tap::<48>(w9, w10), tap::<32>(w14, w15));
                store(p.add(i), s);
                (dp, u1p, u2p, u3p, s2, s1) = (d, u1, u2, u3, s1, s);
                i += 8;
            }

        }
    }

    /// The descrambler on eight words at a time: `put(i, v)` receives the descrambled payloads
    /// of blocks `i..i + 8` of the `n` (a multiple of 8) at `src`, whose previous line word is
    /// `prev`.
    ///
    /// # Safety
    /// The CPU has AVX-512 F and VBMI2 ([`available`]), and `src` is valid for reads of `n` blocks, a multiple of 8.
    #[inline(always)]
    unsafe fn descramble_each(src: *const Block66, n: usize, prev: u64, mut put: impl FnMut(usize, __m512i)) {
        // SAFETY: the caller's promise (this function's `# Safety`); the intrinsics need only the CPU
        // features, and every pointer offset stays within the blocks the caller vouched for.
        unsafe {
            let mut lp = _mm512_set1_epi64(prev as i64);
            let mut i = 0;
            while i < n {
                let l = load(src.add(i));
                let l1 = back::<7>(l, lp);
                put(i, xor3(l, tap::<39>(l, l1), tap::<58>(l, l1)));
                lp = l;
                i += 8;
            }

        }
    }

    /// Descramble the payloads of `line` (a multiple of 8 blocks) after line word `prev` to
    /// the `8 * line.len()` octets at `q` (8 per block, all written); returns the last line word.
    ///
    /// # Safety
    /// The CPU has AVX-512 F and VBMI2 ([`available`]), `line.len()` is a multiple of 8 and `q` is valid for `8 * line.len()` octets of writes.
    #[target_feature(enable = "avx512f,avx512vbmi2")]
    pub unsafe fn descramble_to(line: &[Block66], q: *mut u8, prev: u64) -> u64 {
        // SAFETY: the caller's promise (this function's `# Safety`); the intrinsics need only the CPU
        // features, and every pointer offset stays within the blocks the caller vouched for.
        unsafe {
            descramble_each(line.as_ptr(), line.len(), prev, |i, v| _mm512_storeu_si512(q.add(8 * i) as *mut __m512i, v));
            line.last().map_or(prev, |b| b.payload)

        }
    }

    /// Descramble `blocks` (a multiple of 8) after line word `prev`; returns the last line word.
    ///
    /// # Safety
    /// The CPU has AVX-512 F and VBMI2 ([`available`]), and `blocks.len()` is a multiple of 8.
    #[target_feature(enable = "avx512f,avx512vbmi2")]
    pub unsafe fn descramble(blocks: &mut [Block66], prev: u64) -> u64 {
        // SAFETY: the caller's promise (this function's `# Safety`); the intrinsics need only the CPU
        // features, and every pointer offset stays within the blocks the caller vouched for.
        unsafe {
            let last = blocks.last().map_or(prev, |b| b.payload);
            let p = blocks.as_mut_ptr();
            descramble_each(p, blocks.len(), prev, |i, v| store(p.add(i), v));
            last

        }
    }
}

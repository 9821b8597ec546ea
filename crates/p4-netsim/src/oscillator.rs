//! Crystal oscillators at a nominal 156.25 MHz with a fixed ppm offset and optional random-walk
//! wander.
//!
//! Invariant: the edge sequence is fixed at construction up to a horizon (segments of constant
//! period), so every query is a pure function of time and queries may come in any order. Edge
//! `k` (k = 0, 1, ...) is the k-th rising edge; the first edge is at the oscillator's phase.

use crate::time::{Time, NOMINAL_CYCLE};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// IEEE 802.3 allows ±100 ppm.
pub const MAX_PPM: f64 = 100.0;

#[derive(Clone, Debug)]
struct Segment {
    /// Index of the first edge of this segment.
    edge: u64,
    /// Time of that edge.
    time: Time,
    /// Period in time units.
    period: Time,
}

/// Random-walk wander: every `step_edges` edges the frequency offset moves by a uniform step in
/// ±`step_ppm`, clamped to ±100 ppm.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Wander {
    /// Largest ppm change per step.
    pub step_ppm: f64,
    /// Edges per step.
    pub step_edges: u64,
}

/// One oscillator.
#[derive(Clone, Debug)]
pub struct Oscillator {
    segments: Vec<Segment>,
    ppm: f64,
}

/// Period of an oscillator `ppm` parts per million faster than nominal (rounded to a unit, a
/// relative error below 3e-9).
pub fn period_for_ppm(ppm: f64) -> Time {
    (NOMINAL_CYCLE as f64 / (1.0 + ppm * 1e-6)).round() as Time
}

impl Oscillator {
    /// An oscillator with offset `ppm` (clamped to ±100), first edge at `phase`, and optional
    /// wander generated from `seed` up to `horizon`.
    pub fn new(ppm: f64, phase: Time, wander: Option<Wander>, seed: u64, horizon: Time) -> Self {
        let ppm = ppm.clamp(-MAX_PPM, MAX_PPM);
        let mut segments = vec![Segment { edge: 0, time: phase, period: period_for_ppm(ppm) }];
        if let Some(w) = wander.filter(|w| w.step_edges > 0 && w.step_ppm > 0.0) {
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            let mut cur = ppm;
            loop {
                let last = segments.last().cloned().unwrap_or(Segment { edge: 0, time: phase, period: NOMINAL_CYCLE });
                let time = last.time + last.period * w.step_edges;
                if time > horizon {
                    break;
                }
                cur = (cur + rng.gen_range(-w.step_ppm..=w.step_ppm)).clamp(-MAX_PPM, MAX_PPM);
                segments.push(Segment { edge: last.edge + w.step_edges, time, period: period_for_ppm(cur) });
            }
        }
        Oscillator { segments, ppm }
    }

    /// The initial frequency offset in ppm.
    pub fn ppm(&self) -> f64 {
        self.ppm
    }

    fn seg_for_time(&self, t: Time) -> &Segment {
        let i = self.segments.partition_point(|s| s.time <= t);
        &self.segments[i.saturating_sub(1)]
    }

    fn seg_for_edge(&self, k: u64) -> &Segment {
        let i = self.segments.partition_point(|s| s.edge <= k);
        &self.segments[i.saturating_sub(1)]
    }

    /// Time of edge `k`.
    pub fn edge_time(&self, k: u64) -> Time {
        let s = self.seg_for_edge(k);
        s.time + (k - s.edge) * s.period
    }

    /// Period in force at edge `k`.
    pub fn period_at_edge(&self, k: u64) -> Time {
        self.seg_for_edge(k).period
    }

    /// Number of edges at times `<= t` (the counter value of a counter started at edge 0).
    pub fn count_le(&self, t: Time) -> u64 {
        let s = self.seg_for_time(t);
        if t < s.time {
            return 0;
        }
        s.edge + (t - s.time) / s.period + 1
    }

    /// Index of the first edge at or after `t`.
    pub fn first_edge_at_or_after(&self, t: Time) -> u64 {
        if t == 0 {
            return 0;
        }
        self.count_le(t - 1)
    }

    /// Time of byte position `pos` of a transmitter clocked by this oscillator: 8 bytes per edge.
    pub fn byte_time(&self, pos: u64) -> Time {
        let k = pos / 8;
        let s = self.seg_for_edge(k);
        s.time + (k - s.edge) * s.period + (pos % 8) * s.period / 8
    }

    /// The first byte position whose time is `>= t`.
    pub fn byte_pos_at_or_after(&self, t: Time) -> u64 {
        let k = self.first_edge_at_or_after(t);
        if k == 0 {
            return 0;
        }
        let prev = k - 1;
        let e = self.edge_time(prev);
        let p = self.period_at_edge(prev);
        let off = t.saturating_sub(e);
        let j = (off * 8).div_ceil(p);
        if j < 8 {
            prev * 8 + j
        } else {
            k * 8
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nominal_edges_and_bytes() {
        let o = Oscillator::new(0.0, 100, None, 0, 0);
        assert_eq!(o.edge_time(0), 100);
        assert_eq!(o.edge_time(3), 100 + 3 * NOMINAL_CYCLE);
        assert_eq!(o.count_le(99), 0);
        assert_eq!(o.count_le(100), 1);
        assert_eq!(o.first_edge_at_or_after(101), 1);
        assert_eq!(o.byte_time(9), 100 + NOMINAL_CYCLE + NOMINAL_CYCLE / 8);
        assert_eq!(o.byte_pos_at_or_after(100 + NOMINAL_CYCLE + 1), 9);
        assert_eq!(o.byte_pos_at_or_after(100 + NOMINAL_CYCLE), 8);
    }

    #[test]
    fn ppm_sets_period() {
        assert_eq!(period_for_ppm(100.0), 211_178_882);
        assert_eq!(period_for_ppm(-100.0), 211_221_122);
        let fast = Oscillator::new(100.0, 0, None, 0, 0);
        let slow = Oscillator::new(-100.0, 0, None, 0, 0);
        let one_ms = crate::time::from_secs(1e-3);
        // 156250 nominal edges per ms, +-15.6 from the offset
        assert_eq!(fast.count_le(one_ms), 156_266);
        assert_eq!(slow.count_le(one_ms), 156_235);
    }

    #[test]
    fn wander_stays_within_limits_and_is_continuous() {
        let h = crate::time::from_secs(0.01);
        let o = Oscillator::new(99.0, 0, Some(Wander { step_ppm: 5.0, step_edges: 1000 }), 7, h);
        assert!(o.segments.len() > 100);
        for s in &o.segments {
            assert!(s.period >= period_for_ppm(100.0) && s.period <= period_for_ppm(-100.0));
        }
        for k in [999u64, 1000, 1001, 55_555] {
            assert_eq!(o.count_le(o.edge_time(k)), k + 1);
            assert_eq!(o.first_edge_at_or_after(o.edge_time(k)), k);
        }
    }
}

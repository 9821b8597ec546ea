//! Inter-packet delay statistics.
//!
//! Invariant: moments are accumulated exactly in integer bit periods (u128), so a stream
//! whose delays are all equal has a variance of exactly zero, not a rounding residue.

use serde::{Deserialize, Serialize};

use crate::time::BitTime;

/// One histogram bin `[lo_ns, hi_ns)`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct HistBin {
    /// Lower edge in ns.
    pub lo_ns: f64,
    /// Upper edge in ns.
    pub hi_ns: f64,
    /// Delays in the bin.
    pub count: u64,
}

/// Summary of inter-packet delays (start-of-frame to start-of-frame).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct IpdStats {
    /// Number of delays (frames − 1).
    pub count: u64,
    /// Mean in ns.
    pub mean_ns: f64,
    /// Population standard deviation in ns.
    pub stdev_ns: f64,
    /// Smallest delay in ns.
    pub min_ns: f64,
    /// Largest delay in ns.
    pub max_ns: f64,
    /// Smallest delay in bit periods.
    pub min_bits: u64,
    /// Largest delay in bit periods.
    pub max_bits: u64,
    /// n²·variance in bit periods² (exactly zero iff all delays are equal).
    pub variance_numerator: u128,
    /// Equal-width histogram between min and max.
    pub histogram: Vec<HistBin>,
}

/// Delays between consecutive start times.
pub fn ipds(starts: &[BitTime]) -> Vec<u64> {
    starts.windows(2).map(|w| w[1].0.saturating_sub(w[0].0)).collect()
}

/// Statistics of `starts` with a histogram of `bins` bins (at least one).
pub fn ipd_stats(starts: &[BitTime], bins: usize) -> IpdStats {
    let mut acc = IpdAccumulator::default();
    for &s in starts {
        acc.push(s);
    }
    acc.finish(bins)
}

/// [`ipd_stats`] one start at a time, for streams too long to keep every start: it keeps one
/// count per distinct delay (a paced stream has one or a few, a Poisson one a few thousand at
/// most, since delays are whole characters), so memory does not grow with the frame count, and
/// the result is exactly what [`ipd_stats`] gives for the same starts.
#[derive(Clone, Debug, Default)]
pub struct IpdAccumulator {
    last: Option<BitTime>,
    counts: std::collections::BTreeMap<u64, u64>,
}

impl IpdAccumulator {
    /// Add the next start time.
    pub fn push(&mut self, start: BitTime) {
        if let Some(last) = self.last {
            *self.counts.entry(start.0.saturating_sub(last.0)).or_insert(0) += 1;
        }
        self.last = Some(start);
    }

    /// The statistics with a histogram of `bins` bins (at least one).
    pub fn finish(&self, bins: usize) -> IpdStats {
        let bits_ns = |b: f64| b * 32.0 / 330.0;
        let (Some((&min, _)), Some((&max, _))) = (self.counts.first_key_value(), self.counts.last_key_value()) else {
            return IpdStats {
                count: 0,
                mean_ns: 0.0,
                stdev_ns: 0.0,
                min_ns: 0.0,
                max_ns: 0.0,
                min_bits: 0,
                max_bits: 0,
                variance_numerator: 0,
                histogram: Vec::new(),
            };
        };
        let count: u64 = self.counts.values().sum();
        let n = u128::from(count);
        let sum: u128 = self.counts.iter().map(|(&x, &c)| u128::from(x) * u128::from(c)).sum();
        let sumsq: u128 = self.counts.iter().map(|(&x, &c)| u128::from(x) * u128::from(x) * u128::from(c)).sum();
        let var_num = (n * sumsq).saturating_sub(sum * sum);
        let bins = bins.max(1);
        let width = ((max - min) as f64 / bins as f64).max(f64::MIN_POSITIVE);
        let mut hist: Vec<HistBin> = (0..bins)
            .map(|i| HistBin {
                lo_ns: bits_ns(min as f64 + width * i as f64),
                hi_ns: bits_ns(min as f64 + width * (i + 1) as f64),
                count: 0,
            })
            .collect();
        for (&x, &c) in &self.counts {
            let i = (((x - min) as f64 / width) as usize).min(bins - 1);
            if let Some(b) = hist.get_mut(i) {
                b.count += c;
            }
        }
        if max == min {
            hist.truncate(1);
            if let Some(b) = hist.first_mut() {
                b.hi_ns = b.lo_ns;
            }
        }
        IpdStats {
            count,
            mean_ns: bits_ns(sum as f64 / n as f64),
            stdev_ns: bits_ns((var_num as f64).sqrt() / n as f64),
            min_ns: bits_ns(min as f64),
            max_ns: bits_ns(max as f64),
            min_bits: min,
            max_bits: max,
            variance_numerator: var_num,
            histogram: hist,
        }
    }
}

impl std::fmt::Display for IpdStats {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(
            f,
            "IPD: n={} mean={:.3} ns stdev={:.3} ns min={:.3} ns max={:.3} ns",
            self.count, self.mean_ns, self.stdev_ns, self.min_ns, self.max_ns
        )?;
        let peak = self.histogram.iter().map(|b| b.count).max().unwrap_or(0).max(1);
        for b in &self.histogram {
            let bar = "#".repeat(((b.count * 40).div_ceil(peak)) as usize);
            writeln!(f, "  [{:>12.3}, {:>12.3}) {:>8} {}", b.lo_ns, b.hi_ns, b.count, bar)?;
        }
        Ok(())
    }
}

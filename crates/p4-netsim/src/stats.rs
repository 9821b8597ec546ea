//! Small descriptive statistics used by the reports.

use serde::Serialize;

/// Summary of a sample of inter-packet delays (or any values), in ns.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Summary {
    /// Values summarised.
    pub count: usize,
    /// Mean.
    pub mean_ns: f64,
    /// Population standard deviation.
    pub stdev_ns: f64,
    /// Smallest value.
    pub min_ns: f64,
    /// Largest value.
    pub max_ns: f64,
}

/// Summarises `xs` (all zero for an empty sample).
pub fn summarize(xs: &[f64]) -> Summary {
    if xs.is_empty() {
        return Summary::default();
    }
    let n = xs.len() as f64;
    let mean = xs.iter().sum::<f64>() / n;
    let var = xs.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / n;
    Summary {
        count: xs.len(),
        mean_ns: mean,
        stdev_ns: var.sqrt(),
        min_ns: xs.iter().copied().fold(f64::INFINITY, f64::min),
        max_ns: xs.iter().copied().fold(f64::NEG_INFINITY, f64::max),
    }
}

/// Empirical CDF points (value, fraction <= value), one per distinct value.
pub fn cdf(xs: &[f64]) -> Vec<(f64, f64)> {
    let mut v: Vec<f64> = xs.iter().copied().filter(|x| x.is_finite()).collect();
    v.sort_by(f64::total_cmp);
    let n = v.len() as f64;
    let mut out: Vec<(f64, f64)> = Vec::new();
    for (i, x) in v.iter().enumerate() {
        match out.last_mut() {
            Some(last) if last.0 == *x => last.1 = (i + 1) as f64 / n,
            _ => out.push((*x, (i + 1) as f64 / n)),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_and_cdf() {
        let s = summarize(&[1.0, 3.0, 3.0, 5.0]);
        assert_eq!(s, Summary { count: 4, mean_ns: 3.0, stdev_ns: 2f64.sqrt(), min_ns: 1.0, max_ns: 5.0 });
        assert_eq!(cdf(&[3.0, 1.0, 3.0, 5.0]), vec![(1.0, 0.25), (3.0, 0.75), (5.0, 1.0)]);
        assert_eq!(summarize(&[]), Summary::default());
    }
}

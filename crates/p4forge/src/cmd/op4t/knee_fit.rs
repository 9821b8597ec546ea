//! Where latency against rate stops being flat: the fit of a flat line followed by a rising one.
//!
//! A forwarder that takes up to B packets every T µs keeps up with any rate below B/T, and a
//! packet waits for the next poll (T/2 on average) whatever the rate; above B/T the backlog grows
//! for as long as the run lasts, so the mean wait grows linearly with the rate. The fit tries
//! every split of the points into a left part (fitted by its mean) and a right part (fitted by a
//! least-squares line), keeps the split with the least squared error, and reports where the two
//! lines meet.

/// A flat-then-linear fit.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct KneeFit {
    /// The x where the rising line reaches the flat level.
    pub knee: f64,
    /// The flat level (mean of the points left of the split).
    pub flat: f64,
    /// Slope of the rising line (y per x).
    pub slope: f64,
    /// Points in the flat and in the rising part.
    pub flat_points: usize,
    pub rising_points: usize,
}

/// The fit of `points` (x ascending), or `None` when no split leaves at least two points on each
/// side with a rising right part that meets the flat level.
pub fn fit(points: &[(f64, f64)]) -> Option<KneeFit> {
    let mut best: Option<(f64, KneeFit)> = None;
    for split in 2..points.len().saturating_sub(1) {
        let (left, right) = points.split_at(split);
        let flat = left.iter().map(|p| p.1).sum::<f64>() / left.len() as f64;
        let Some((slope, intercept)) = least_squares(right) else { continue };
        if slope <= 0.0 {
            continue;
        }
        let knee = (flat - intercept) / slope;
        let error = left.iter().map(|p| (p.1 - flat).powi(2)).sum::<f64>()
            + right.iter().map(|p| (p.1 - (slope * p.0 + intercept)).powi(2)).sum::<f64>();
        if best.as_ref().is_none_or(|(e, _)| error < *e) {
            best = Some((error, KneeFit { knee, flat, slope, flat_points: left.len(), rising_points: right.len() }));
        }
    }
    best.map(|(_, fit)| fit)
}

/// The least-squares line `y = slope * x + intercept` through `points`, if their x differ.
fn least_squares(points: &[(f64, f64)]) -> Option<(f64, f64)> {
    let n = points.len() as f64;
    let (mx, my) = (points.iter().map(|p| p.0).sum::<f64>() / n, points.iter().map(|p| p.1).sum::<f64>() / n);
    let sxx: f64 = points.iter().map(|p| (p.0 - mx).powi(2)).sum();
    let sxy: f64 = points.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
    (sxx > 0.0).then(|| (sxy / sxx, my - sxy / sxx * mx))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_knee_is_where_the_rising_line_meets_the_flat_one() {
        // Flat at 40 up to x = 400, then 0.5 per unit: the knee falls between two samples.
        let points: Vec<(f64, f64)> = (1..=16).map(|i| {
            let x = f64::from(i) * 50.0;
            (x, if x <= 400.0 { 40.0 } else { 40.0 + 0.5 * (x - 400.0) })
        }).collect();
        let f = fit(&points).unwrap();
        assert!((f.knee - 400.0).abs() < 1e-9, "{f:?}");
        // x = 400 lies on both lines: the first of the two equal splits is kept.
        assert_eq!((f.flat, f.slope, f.flat_points, f.rising_points), (40.0, 0.5, 7, 9));
        // Noise on the flat part moves the knee little.
        let noisy: Vec<(f64, f64)> = points.iter().enumerate().map(|(i, &(x, y))| (x, if x <= 400.0 { y + [1.0, -1.0][i % 2] } else { y })).collect();
        assert!((fit(&noisy).unwrap().knee - 400.0).abs() < 5.0);
    }

    #[test]
    fn no_knee_without_a_rise() {
        assert_eq!(fit(&[(1.0, 5.0), (2.0, 5.0), (3.0, 5.0), (4.0, 5.0), (5.0, 5.0)]), None);
        assert_eq!(fit(&[(1.0, 5.0), (2.0, 6.0)]), None);
    }
}

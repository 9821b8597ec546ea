//! SVG plots of experiment results (plotters, SVG backend only).

use anyhow::{anyhow, Result};
use plotters::prelude::*;
use std::path::Path;

/// One named line of (x, y) points.
pub struct Line {
    /// Legend label.
    pub label: String,
    /// Points, in x order.
    pub points: Vec<(f64, f64)>,
}

const COLORS: [RGBColor; 6] = [
    RGBColor(31, 119, 180),
    RGBColor(214, 39, 40),
    RGBColor(44, 160, 44),
    RGBColor(148, 103, 189),
    RGBColor(255, 127, 14),
    RGBColor(127, 127, 127),
];

/// Draws `lines` into an SVG file at `path`.
pub fn lines_svg(path: &Path, title: &str, x_label: &str, y_label: &str, lines: &[Line]) -> Result<()> {
    let pts = lines.iter().flat_map(|l| l.points.iter());
    let (mut x0, mut x1, mut y0, mut y1) = (f64::INFINITY, f64::NEG_INFINITY, f64::INFINITY, f64::NEG_INFINITY);
    for &(x, y) in pts {
        x0 = x0.min(x);
        x1 = x1.max(x);
        y0 = y0.min(y);
        y1 = y1.max(y);
    }
    if !x0.is_finite() {
        return Err(anyhow!("nothing to plot for {title}"));
    }
    if x1 <= x0 {
        x1 = x0 + 1.0;
    }
    let pad = ((y1 - y0) * 0.05).max(1e-9);
    let (y0, y1) = (y0 - pad, y1 + pad);
    // Drawn into memory and written under a temporary name that is renamed when complete, so a
    // failed or interrupted write never leaves half an SVG under `path`.
    let mut svg = String::new();
    {
    let root = SVGBackend::with_string(&mut svg, (900, 540)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| anyhow!("{e}"))?;
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 20))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(70)
        .build_cartesian_2d(x0..x1, y0..y1)
        .map_err(|e| anyhow!("{e}"))?;
    chart.configure_mesh().x_desc(x_label).y_desc(y_label).draw().map_err(|e| anyhow!("{e}"))?;
    for (i, l) in lines.iter().enumerate() {
        let c = COLORS[i % COLORS.len()];
        chart
            .draw_series(LineSeries::new(l.points.iter().copied(), c.stroke_width(2)))
            .map_err(|e| anyhow!("{e}"))?
            .label(l.label.clone())
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], c.stroke_width(2)));
    }
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .draw()
        .map_err(|e| anyhow!("{e}"))?;
    root.present().map_err(|e| anyhow!("{e}"))?;
    }
    p4_io::output::write(path, svg.as_bytes())?;
    Ok(())
}

/// Reduces a long series to at most `max` points, keeping each bucket's maximum (so spikes
/// survive).
pub fn decimate_max(points: &[(f64, f64)], max: usize) -> Vec<(f64, f64)> {
    if points.len() <= max || max == 0 {
        return points.to_vec();
    }
    let per = points.len().div_ceil(max);
    points
        .chunks(per)
        .filter_map(|c| c.iter().copied().max_by(|a, b| a.1.total_cmp(&b.1)).map(|m| (c[0].0, m.1)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimation_keeps_peaks() {
        let pts: Vec<(f64, f64)> = (0..10).map(|i| (i as f64, if i == 7 { 9.0 } else { 1.0 })).collect();
        assert_eq!(decimate_max(&pts, 5), vec![(0.0, 1.0), (2.0, 1.0), (4.0, 1.0), (6.0, 9.0), (8.0, 1.0)]);
    }

    #[test]
    fn writes_an_svg() {
        let dir = std::env::temp_dir().join(format!("p4-netsim-plot-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("t.svg");
        lines_svg(&p, "t", "x", "y", &[Line { label: "a".into(), points: vec![(0.0, 1.0), (1.0, 2.0)] }]).unwrap();
        let text = std::fs::read_to_string(&p).unwrap();
        assert!(text.starts_with("<svg"), "{}", &text[..40.min(text.len())]);
        assert!(text.contains("<polyline"));
        std::fs::remove_dir_all(&dir).ok();
    }
}

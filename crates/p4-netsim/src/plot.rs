//! SVG plots of experiment results (plotters, SVG backend only).

use anyhow::{anyhow, Result};
use plotters::prelude::*;
use std::path::Path;

/// How a line is drawn.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Style {
    /// Straight segments between the points.
    #[default]
    Line,
    /// A step function: each value holds until the next x (empirical CDFs, sampled maxima).
    Steps,
    /// Dashed straight segments (bounds, reference values).
    Dashed,
    /// A wide pale line, for a reference another line may lie on (a truth under an estimate).
    Wide,
    /// A dashed black line, taking no colour from the data lines (a bound every line is held to).
    Bound,
}

/// One named line of (x, y) points.
pub struct Line {
    /// Legend label.
    pub label: String,
    /// Points, in x order.
    pub points: Vec<(f64, f64)>,
    /// How it is drawn.
    pub style: Style,
    /// Drawn in the previous line's colour (a bound or a mark that belongs to that line).
    pub previous_color: bool,
}

impl Line {
    /// A line drawn with straight segments.
    pub fn new(label: impl Into<String>, points: Vec<(f64, f64)>) -> Line {
        Line { label: label.into(), points, style: Style::Line, previous_color: false }
    }

    /// The same line drawn in `style`.
    pub fn styled(self, style: Style) -> Line {
        Line { style, ..self }
    }

    /// The same line in the previous line's colour.
    pub fn in_previous_color(self) -> Line {
        Line { previous_color: true, ..self }
    }
}

/// One chart of a figure: its own y axis, sharing the figure's x axis label.
pub struct Panel {
    /// Y axis label, with its unit.
    pub y_label: String,
    /// The lines.
    pub lines: Vec<Line>,
    /// Fixed y range (e.g. 0..1 for a CDF); otherwise the data's, padded.
    pub y_range: Option<(f64, f64)>,
}

const COLORS: [RGBColor; 6] = [
    RGBColor(31, 119, 180),
    RGBColor(214, 39, 40),
    RGBColor(44, 160, 44),
    RGBColor(148, 103, 189),
    RGBColor(255, 127, 14),
    RGBColor(127, 127, 127),
];

/// Figure width and height in pixels, and the width of the legend column on the right.
const WIDTH: u32 = 960;
const PANEL_HEIGHT: u32 = 420;
const LEGEND_WIDTH: u32 = 250;

/// Draws `lines` into an SVG file at `path` (one panel).
pub fn lines_svg(path: &Path, title: &str, x_label: &str, y_label: &str, lines: Vec<Line>) -> Result<()> {
    panels_svg(path, title, x_label, vec![Panel { y_label: y_label.to_string(), lines, y_range: None }])
}

/// The points of a step function through `points`: each y holds until the next x.
pub fn steps(points: &[(f64, f64)]) -> Vec<(f64, f64)> {
    let mut out = Vec::with_capacity(2 * points.len());
    for (i, &(x, y)) in points.iter().enumerate() {
        if i > 0 {
            out.push((x, points[i - 1].1));
        }
        out.push((x, y));
    }
    out
}

/// A tick label short enough for the axis: plain below 10^5, else mantissa and exponent.
fn tick(v: f64) -> String {
    let a = v.abs();
    if a == 0.0 {
        "0".to_string()
    } else if !(1e-3..1e5).contains(&a) {
        format!("{v:.1e}")
    } else if a >= 100.0 || v.fract() == 0.0 {
        format!("{v:.0}")
    } else {
        let s = format!("{v:.3}");
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    }
}

/// Draws `panels` stacked vertically (sharing the x range) into an SVG file at `path`, with
/// the legend in its own column to the right of the charts so it never covers data. The file
/// is written atomically.
pub fn panels_svg(path: &Path, title: &str, x_label: &str, panels: Vec<Panel>) -> Result<()> {
    let (mut x0, mut x1) = (f64::INFINITY, f64::NEG_INFINITY);
    for &(x, _) in panels.iter().flat_map(|p| p.lines.iter().flat_map(|l| l.points.iter())) {
        if x.is_finite() {
            x0 = x0.min(x);
            x1 = x1.max(x);
        }
    }
    if !x0.is_finite() {
        return Err(anyhow!("nothing to plot for {title}"));
    }
    if x1 <= x0 {
        x1 = x0 + 1.0;
    }
    let height = 50 + PANEL_HEIGHT * panels.len() as u32;
    // Drawn into memory and written under a temporary name that is renamed when complete, so a
    // failed or interrupted write never leaves half an SVG under `path`.
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (WIDTH, height)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| anyhow!("{e}"))?;
        let root = root.titled(title, ("sans-serif", 22)).map_err(|e| anyhow!("{e}"))?;
        let (charts, legend) = root.split_horizontally(WIDTH - LEGEND_WIDTH);
        let areas = charts.split_evenly((panels.len(), 1));
        let mut color: usize = 0;
        let mut legend_y = 20;
        for (i, (panel, area)) in panels.iter().zip(&areas).enumerate() {
            let (y0, y1) = match panel.y_range {
                Some(r) => r,
                None => {
                    let ys = panel.lines.iter().flat_map(|l| l.points.iter().map(|p| p.1)).filter(|y| y.is_finite());
                    let (lo, hi) = ys.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), y| (a.min(y), b.max(y)));
                    let (lo, hi) = if lo.is_finite() { (lo, hi) } else { (0.0, 1.0) };
                    let pad = ((hi - lo) * 0.05).max(1e-9);
                    (lo - pad, hi + pad)
                }
            };
            let mut chart = ChartBuilder::on(area)
                .margin(10)
                .x_label_area_size(45)
                .y_label_area_size(80)
                .build_cartesian_2d(x0..x1, y0..y1)
                .map_err(|e| anyhow!("{e}"))?;
            let last = i + 1 == panels.len();
            chart
                .configure_mesh()
                .x_desc(if last { x_label } else { "" })
                .y_desc(panel.y_label.as_str())
                .x_label_formatter(&|v| tick(*v))
                .y_label_formatter(&|v| tick(*v))
                .label_style(("sans-serif", 13))
                .axis_desc_style(("sans-serif", 15))
                .light_line_style(WHITE.mix(0.0))
                .draw()
                .map_err(|e| anyhow!("{e}"))?;
            for l in &panel.lines {
                if l.previous_color {
                    color = color.saturating_sub(1);
                }
                let c = if l.style == Style::Bound { BLACK } else { COLORS[color % COLORS.len()] };
                if l.style != Style::Bound {
                    color += 1;
                }
                let style = match l.style {
                    Style::Wide => c.mix(0.4).stroke_width(7),
                    _ => c.stroke_width(2),
                };
                match l.style {
                    Style::Line | Style::Wide => chart.draw_series(LineSeries::new(l.points.iter().copied(), style)),
                    Style::Steps => chart.draw_series(LineSeries::new(steps(&l.points), style)),
                    Style::Dashed | Style::Bound => chart.draw_series(DashedLineSeries::new(l.points.iter().copied(), 8, 5, style)),
                }
                .map_err(|e| anyhow!("{e}"))?;
                // The legend entry, in the column to the right, drawn as the line is.
                let y = legend_y;
                let sample: &[(i32, i32)] = if matches!(l.style, Style::Dashed | Style::Bound) { &[(10, 18), (24, 32)] } else { &[(10, 40)] };
                for &(from, to) in sample {
                    legend.draw(&PathElement::new(vec![(from, y), (to, y)], style)).map_err(|e| anyhow!("{e}"))?;
                }
                legend
                    .draw(&Text::new(l.label.clone(), (48, y - 7), ("sans-serif", 14)))
                    .map_err(|e| anyhow!("{e}"))?;
                legend_y += 24;
            }
            legend_y = legend_y.max((PANEL_HEIGHT as i32) * (i as i32 + 1) + 20);
        }
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
    fn steps_hold_each_value_until_the_next_x() {
        assert_eq!(
            steps(&[(1.0, 0.0), (1.0, 0.5), (3.0, 1.0)]),
            vec![(1.0, 0.0), (1.0, 0.0), (1.0, 0.5), (3.0, 0.5), (3.0, 1.0)]
        );
        assert_eq!(steps(&[]), vec![]);
    }

    #[test]
    fn tick_labels_stay_short() {
        assert_eq!(tick(40_000_000.0), "4.0e7");
        assert_eq!(tick(1366.4), "1366");
        assert_eq!(tick(0.25), "0.25");
        assert_eq!(tick(12.0), "12");
        assert_eq!(tick(0.0), "0");
    }

    #[test]
    fn legends_sit_beside_the_charts_not_on_the_data() {
        let dir = std::env::temp_dir().join(format!("p4-netsim-legend-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("two.svg");
        let panels = vec![
            Panel {
                y_label: "a".into(),
                lines: vec![Line::new("first-label", vec![(0.0, 1.0), (9.0, 2.0)])],
                y_range: None,
            },
            Panel {
                y_label: "b".into(),
                lines: vec![Line::new("second-label", vec![(0.0, 1e6), (9.0, 2e6)]).styled(Style::Dashed)],
                y_range: None,
            },
        ];
        panels_svg(&p, "t", "x", panels).unwrap();
        let svg = std::fs::read_to_string(&p).unwrap();
        for label in ["first-label", "second-label"] {
            // plotters writes each text element's content on a line of its own.
            let at = svg.find(&format!(">\n{label}\n<")).unwrap();
            let tag = &svg[svg[..at].rfind("<text").unwrap()..at];
            let x: f64 = tag.split("x=\"").nth(1).unwrap().split('"').next().unwrap().parse().unwrap();
            assert!(x >= f64::from(WIDTH - LEGEND_WIDTH), "{label} at x = {x}");
        }
        // Each panel has its own y axis label, and the x label is drawn once, under the last.
        assert!(svg.contains(">\na\n<") && svg.contains(">\nb\n<"));
        assert_eq!(svg.matches(">\nx\n<").count(), 1);
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn writes_an_svg() {
        let dir = std::env::temp_dir().join(format!("p4-netsim-plot-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("t.svg");
        lines_svg(&p, "t", "x", "y", vec![Line::new("a", vec![(0.0, 1.0), (1.0, 2.0)])]).unwrap();
        let text = std::fs::read_to_string(&p).unwrap();
        assert!(text.starts_with("<svg"), "{}", &text[..40.min(text.len())]);
        assert!(text.contains("<polyline"));
        std::fs::remove_dir_all(&dir).ok();
    }
}

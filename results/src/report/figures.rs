//! SVG figures with plotters: grids of line panels (with ±sd bars) and trace/histogram panels.

use std::path::Path;

use plotters::prelude::*;

use super::ReportError;

/// One line of a panel: points `(x, mean, sd)`; sd may be NaN (no bar).
pub struct Line {
    pub name: String,
    pub points: Vec<(f64, f64, f64)>,
}

/// One panel of a grid figure.
pub struct Panel {
    pub title: String,
    pub x_label: String,
    pub y_label: String,
    pub log_x: bool,
    pub lines: Vec<Line>,
}

const COLORS: [RGBColor; 6] = [
    RGBColor(31, 119, 180),
    RGBColor(214, 39, 40),
    RGBColor(44, 160, 44),
    RGBColor(255, 127, 14),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
];

fn pe<E: std::fmt::Display>(e: E) -> ReportError {
    ReportError::Other(format!("figure: {e}"))
}

fn bounds(panel: &Panel) -> (f64, f64, f64, f64) {
    let mut x0 = f64::INFINITY;
    let mut x1 = f64::NEG_INFINITY;
    let mut y0 = f64::INFINITY;
    let mut y1 = f64::NEG_INFINITY;
    for l in &panel.lines {
        for &(x, y, sd) in &l.points {
            if !x.is_finite() || !y.is_finite() {
                continue;
            }
            let s = if sd.is_finite() { sd } else { 0.0 };
            x0 = x0.min(x);
            x1 = x1.max(x);
            y0 = y0.min(y - s);
            y1 = y1.max(y + s);
        }
    }
    if !x0.is_finite() {
        return (1.0, 2.0, 0.0, 1.0);
    }
    if x1 <= x0 {
        x1 = x0 + 1.0;
    }
    if y1 <= y0 {
        y1 = y0 + 1.0;
    }
    let pad = 0.05 * (y1 - y0);
    (x0, x1, y0 - pad, y1 + pad)
}

/// Draw `panels` in a grid of `ncols` columns into an SVG file.
pub fn line_panels(path: &Path, panels: &[Panel], ncols: usize) -> Result<(), ReportError> {
    let ncols = ncols.max(1);
    let nrows = panels.len().div_ceil(ncols).max(1);
    let root = SVGBackend::new(path, (360 * ncols as u32, 280 * nrows as u32)).into_drawing_area();
    root.fill(&WHITE).map_err(pe)?;
    let areas = root.split_evenly((nrows, ncols));
    for (panel, area) in panels.iter().zip(areas.iter()) {
        let (x0, x1, y0, y1) = bounds(panel);
        let mut b = ChartBuilder::on(area);
        b.caption(&panel.title, ("sans-serif", 15))
            .margin(8)
            .x_label_area_size(32)
            .y_label_area_size(48);
        // The two axis kinds are different types: one body, instantiated for each.
        macro_rules! draw_panel {
            ($x:expr) => {{
                let mut chart = b.build_cartesian_2d($x, y0..y1).map_err(pe)?;
                chart
                    .configure_mesh()
                    .x_desc(&panel.x_label)
                    .y_desc(&panel.y_label)
                    .draw()
                    .map_err(pe)?;
                draw_lines(&mut chart, panel)?;
                chart
                    .configure_series_labels()
                    .background_style(WHITE.mix(0.8))
                    .border_style(BLACK)
                    .draw()
                    .map_err(pe)?;
            }};
        }
        if panel.log_x && x0 > 0.0 {
            draw_panel!((x0..x1).log_scale());
        } else {
            draw_panel!(x0..x1);
        }
    }
    root.present().map_err(pe)?;
    Ok(())
}

fn draw_lines<DB: DrawingBackend, X, Y>(
    chart: &mut ChartContext<'_, DB, Cartesian2d<X, Y>>,
    panel: &Panel,
) -> Result<(), ReportError>
where
    X: plotters::coord::ranged1d::Ranged<ValueType = f64>,
    Y: plotters::coord::ranged1d::Ranged<ValueType = f64>,
{
    for (i, l) in panel.lines.iter().enumerate() {
        let c = COLORS[i % COLORS.len()];
        let pts: Vec<(f64, f64)> = l
            .points
            .iter()
            .filter(|p| p.1.is_finite())
            .map(|p| (p.0, p.1))
            .collect();
        chart
            .draw_series(LineSeries::new(pts.clone(), c.stroke_width(2)))
            .map_err(pe)?
            .label(l.name.clone())
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 16, y)], c.stroke_width(2)));
        chart
            .draw_series(pts.iter().map(|&p| Circle::new(p, 3, c.filled())))
            .map_err(pe)?;
        for &(x, y, sd) in &l.points {
            if sd.is_finite() && y.is_finite() && sd > 0.0 {
                chart
                    .draw_series(std::iter::once(PathElement::new(
                        vec![(x, y - sd), (x, y + sd)],
                        c,
                    )))
                    .map_err(pe)?;
            }
        }
    }
    Ok(())
}

/// One scalar's chains for a trace plot and a histogram.
pub struct TraceVar {
    pub name: String,
    /// One vector of `(iteration, value)` per chain.
    pub chains: Vec<Vec<(f64, f64)>>,
    /// Draws after burn-in, pooled over chains, for the histogram.
    pub pooled: Vec<f64>,
}

/// A row per variable: its trace plot (left) and histogram (right).
pub fn trace_panels(path: &Path, vars: &[TraceVar]) -> Result<(), ReportError> {
    let rows = vars.len().max(1);
    let root = SVGBackend::new(path, (1000, 220 * rows as u32)).into_drawing_area();
    root.fill(&WHITE).map_err(pe)?;
    let areas = root.split_evenly((rows, 2));
    for (i, v) in vars.iter().enumerate() {
        let (mut x0, mut x1, mut y0, mut y1) = (
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::INFINITY,
            f64::NEG_INFINITY,
        );
        for c in &v.chains {
            for &(x, y) in c {
                if y.is_finite() {
                    x0 = x0.min(x);
                    x1 = x1.max(x);
                    y0 = y0.min(y);
                    y1 = y1.max(y);
                }
            }
        }
        if !x0.is_finite() {
            continue;
        }
        if y1 <= y0 {
            y1 = y0 + 1.0;
            y0 -= 1.0;
        }
        if x1 <= x0 {
            x1 = x0 + 1.0;
        }
        let mut chart = ChartBuilder::on(&areas[2 * i])
            .caption(format!("{}: trace", v.name), ("sans-serif", 14))
            .margin(6)
            .x_label_area_size(28)
            .y_label_area_size(50)
            .build_cartesian_2d(x0..x1, y0..y1)
            .map_err(pe)?;
        chart
            .configure_mesh()
            .x_desc("iteration")
            .draw()
            .map_err(pe)?;
        for (k, c) in v.chains.iter().enumerate() {
            let col = COLORS[k % COLORS.len()];
            chart
                .draw_series(LineSeries::new(c.iter().copied(), col.mix(0.7)))
                .map_err(pe)?;
        }
        // Histogram: 30 bins over the pooled draws.
        let (lo, hi) = v
            .pooled
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &x| {
                (a.min(x), b.max(x))
            });
        if !lo.is_finite() {
            continue;
        }
        let nb = 30usize;
        let width = if hi > lo { (hi - lo) / nb as f64 } else { 1.0 };
        let mut counts = vec![0u64; nb];
        for &x in &v.pooled {
            let b = (((x - lo) / width) as usize).min(nb - 1);
            counts[b] += 1;
        }
        let cmax = counts.iter().copied().max().unwrap_or(1) as f64;
        let mut h = ChartBuilder::on(&areas[2 * i + 1])
            .caption(
                format!("{}: histogram after burn-in", v.name),
                ("sans-serif", 14),
            )
            .margin(6)
            .x_label_area_size(28)
            .y_label_area_size(50)
            .build_cartesian_2d(lo..(lo + width * nb as f64), 0f64..cmax * 1.05)
            .map_err(pe)?;
        h.configure_mesh().y_desc("count").draw().map_err(pe)?;
        h.draw_series(counts.iter().enumerate().map(|(b, &c)| {
            let x = lo + b as f64 * width;
            Rectangle::new(
                [(x, 0.0), (x + width, c as f64)],
                COLORS[0].mix(0.6).filled(),
            )
        }))
        .map_err(pe)?;
    }
    root.present().map_err(pe)?;
    Ok(())
}

/// A grid of probabilities as coloured tiles with their values printed (Figure 6 of paper 002):
/// `values[r][c]` for row `rows[r]` and column `cols[c]`, in [0, 1]; `None` draws an empty tile.
/// White at 0 to red at 1.
pub fn heatmap(
    path: &Path,
    title: &str,
    rows: &[String],
    cols: &[String],
    values: &[Vec<Option<f64>>],
) -> Result<(), ReportError> {
    let (cell, left, top) = (56i32, 70i32, 40i32);
    let width = (left + cell * cols.len() as i32 + 20)
        .max(240)
        .max(16 + 7 * title.chars().count() as i32) as u32;
    let height = (top + cell * rows.len() as i32 + 40) as u32;
    let root = SVGBackend::new(path, (width, height)).into_drawing_area();
    root.fill(&WHITE).map_err(pe)?;
    let font = ("sans-serif", 14).into_font();
    root.draw(&Text::new(title.to_string(), (8, 8), font.clone()))
        .map_err(pe)?;
    for (r, name) in rows.iter().enumerate() {
        let y = top + cell * r as i32;
        root.draw(&Text::new(
            name.clone(),
            (8, y + cell / 2 - 7),
            font.clone(),
        ))
        .map_err(pe)?;
        for (c, v) in values.get(r).into_iter().flatten().enumerate() {
            let x = left + cell * c as i32;
            let fill = match v {
                Some(p) if p.is_finite() => {
                    let p = p.clamp(0.0, 1.0);
                    let mix = |a: f64, b: f64| (a + (b - a) * p).round() as u8;
                    RGBColor(mix(240.0, 242.0), mix(248.0, 33.0), mix(255.0, 5.0))
                }
                _ => RGBColor(255, 255, 255),
            };
            root.draw(&Rectangle::new(
                [(x, y), (x + cell - 2, y + cell - 2)],
                fill.filled(),
            ))
            .map_err(pe)?;
            if let Some(p) = v.filter(|p| p.is_finite()) {
                root.draw(&Text::new(
                    format!("{p:.3}"),
                    (x + 8, y + cell / 2 - 7),
                    font.clone(),
                ))
                .map_err(pe)?;
            }
        }
    }
    let y = top + cell * rows.len() as i32 + 8;
    for (c, name) in cols.iter().enumerate() {
        root.draw(&Text::new(
            name.clone(),
            (left + cell * c as i32 + 12, y),
            font.clone(),
        ))
        .map_err(pe)?;
    }
    root.present().map_err(pe)?;
    Ok(())
}

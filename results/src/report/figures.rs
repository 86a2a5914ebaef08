//! SVG figures with plotters: grids of line panels (with ±sd bars), trace/histogram panels,
//! heatmaps and layered networks.

use std::path::Path;

use plotters::prelude::*;

use super::ReportError;
use crate::rundir::{Manifest, RunDir, stored_chains};

/// One line of a panel: points `(x, mean, sd)`; sd may be NaN (no bar). A `reference` line (the
/// truth, an exact value, chance, y = x) is drawn black and dashed, without markers, under the
/// estimates.
pub struct Line {
    pub name: String,
    pub reference: bool,
    pub points: Vec<(f64, f64, f64)>,
}

/// One panel of a grid figure.
pub struct Panel {
    pub title: String,
    pub x_label: String,
    pub y_label: String,
    pub log_x: bool,
    /// A square plotting area (ROC curves, estimate against truth).
    pub square: bool,
    /// Estimates as points only, not joined (a scatter against the truth).
    pub scatter: bool,
    pub lines: Vec<Line>,
}

/// The Okabe–Ito colours (distinct under the common colour-vision deficiencies), without black
/// (kept for reference lines) and yellow (too light on white).
const COLORS: [RGBColor; 6] = [
    RGBColor(0, 114, 178),
    RGBColor(213, 94, 0),
    RGBColor(0, 158, 115),
    RGBColor(230, 159, 0),
    RGBColor(86, 180, 233),
    RGBColor(204, 121, 167),
];

/// The grid lines: major ticks only, light.
const GRID: RGBColor = RGBColor(228, 228, 228);

/// Panel size in pixels: plotting area and axes, then the legend below it.
const PANEL_W: u32 = 460;
const CHART_H: u32 = 340;
const SQUARE_H: u32 = 472;
const LEGEND_ROW: u32 = 22;

fn pe<E: std::fmt::Display>(e: E) -> ReportError {
    ReportError::Other(format!("figure: {e}"))
}

/// A tick label on an axis spanning `range`: integers without a decimal point (1, 10, 100),
/// others with as many decimals as a tenth of the range needs (at most 8), without trailing
/// zeros, so that neighbouring ticks never read the same.
pub fn tick(x: f64, range: f64) -> String {
    if !x.is_finite() {
        return format!("{x}");
    }
    if (x - x.round()).abs() <= 1e-9 * x.abs().max(1.0) {
        return format!("{}", x.round() as i64);
    }
    let step = range / 10.0;
    let decimals = if step > 0.0 && step.is_finite() {
        ((-step.log10()).ceil().max(0.0) as usize + 1).min(8)
    } else {
        3
    };
    let s = format!("{x:.decimals$}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
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
    // Lines that agree to a millionth of their size (an exact value and estimates of it) get a
    // span of one unit, as flat lines, rather than ticks that cannot tell themselves apart.
    let size = y0.abs().max(y1.abs());
    if y1 - y0 <= 1e-6 * size || y1 <= y0 {
        let mid = 0.5 * (y0 + y1);
        (y0, y1) = (mid - 0.5, mid + 0.5);
    }
    let pad = 0.05 * (y1 - y0);
    (x0, x1, y0 - pad, y1 + pad)
}

/// Every x of the panel is an integer and they span at most 20: one tick per integer.
fn integer_ticks(panel: &Panel, x0: f64, x1: f64) -> Option<usize> {
    let all_int = panel
        .lines
        .iter()
        .flat_map(|l| l.points.iter())
        .all(|p| !p.0.is_finite() || p.0 == p.0.round());
    (all_int && !panel.log_x && x1 - x0 <= 20.0).then(|| (x1 - x0) as usize + 1)
}

/// Legend rows below a panel: two entries a row.
fn legend_rows(panel: &Panel) -> u32 {
    panel.lines.len().div_ceil(2) as u32
}

/// Draw `panels` in a grid of `ncols` columns into an SVG file; each panel's legend sits below
/// its plot, outside the data.
pub fn line_panels(path: &Path, panels: &[Panel], ncols: usize) -> Result<(), ReportError> {
    let ncols = ncols.max(1);
    let nrows = panels.len().div_ceil(ncols).max(1);
    let chart_h = if panels.iter().any(|p| p.square) {
        SQUARE_H
    } else {
        CHART_H
    };
    let legend_h = panels.iter().map(legend_rows).max().unwrap_or(0) * LEGEND_ROW + 8;
    let (w, h) = (PANEL_W * ncols as u32, (chart_h + legend_h) * nrows as u32);
    let root = SVGBackend::new(path, (w, h)).into_drawing_area();
    root.fill(&WHITE).map_err(pe)?;
    let areas = root.split_evenly((nrows, ncols));
    for (panel, area) in panels.iter().zip(areas.iter()) {
        let (chart_area, legend_area) = area.split_vertically(chart_h);
        let (x0, x1, y0, y1) = bounds(panel);
        let x_ticks = integer_ticks(panel, x0, x1).unwrap_or(8);
        let mut b = ChartBuilder::on(&chart_area);
        b.caption(&panel.title, ("sans-serif", 17))
            .margin(10)
            .margin_right(26)
            .x_label_area_size(44)
            .y_label_area_size(58);
        // The two axis kinds are different types: one body, instantiated for each.
        macro_rules! draw_panel {
            ($x:expr) => {{
                let mut chart = b.build_cartesian_2d($x, y0..y1).map_err(pe)?;
                chart
                    .configure_mesh()
                    .light_line_style(TRANSPARENT)
                    .bold_line_style(GRID)
                    .x_labels(x_ticks)
                    .y_labels(8)
                    .x_label_formatter(&|x| tick(*x, x1 - x0))
                    .y_label_formatter(&|y| tick(*y, y1 - y0))
                    .label_style(("sans-serif", 13))
                    .axis_desc_style(("sans-serif", 14))
                    .x_desc(&panel.x_label)
                    .y_desc(&panel.y_label)
                    .draw()
                    .map_err(pe)?;
                draw_lines(&mut chart, panel)?;
            }};
        }
        if panel.log_x && x0 > 0.0 {
            draw_panel!((x0..x1).log_scale());
        } else {
            draw_panel!(x0..x1);
        }
        draw_legend(&legend_area, panel)?;
    }
    root.present().map_err(pe)?;
    Ok(())
}

/// A line's colour: black for a reference, else the palette by its index among estimates.
fn line_colors(panel: &Panel) -> Vec<RGBColor> {
    let mut k = 0;
    panel
        .lines
        .iter()
        .map(|l| {
            if l.reference {
                BLACK
            } else {
                k += 1;
                COLORS[(k - 1) % COLORS.len()]
            }
        })
        .collect()
}

fn draw_legend<DB: DrawingBackend>(
    area: &DrawingArea<DB, plotters::coord::Shift>,
    panel: &Panel,
) -> Result<(), ReportError> {
    let (w, _) = area.dim_in_pixel();
    let col_w = (w as i32 - 70) / 2;
    let font = ("sans-serif", 13).into_font();
    for ((i, l), c) in panel.lines.iter().enumerate().zip(line_colors(panel)) {
        let x = 62 + (i as i32 % 2) * col_w;
        let y = 4 + (i as i32 / 2) * LEGEND_ROW as i32 + LEGEND_ROW as i32 / 2;
        let style = c.stroke_width(2);
        if l.reference {
            for s in [0, 9, 18] {
                area.draw(&PathElement::new(vec![(x + s, y), (x + s + 6, y)], style))
                    .map_err(pe)?;
            }
        } else {
            if !panel.scatter {
                area.draw(&PathElement::new(vec![(x, y), (x + 24, y)], style))
                    .map_err(pe)?;
            }
            area.draw(&Circle::new((x + 12, y), 3, c.filled()))
                .map_err(pe)?;
        }
        area.draw(&Text::new(l.name.clone(), (x + 32, y - 7), font.clone()))
            .map_err(pe)?;
    }
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
    // References first, so the estimates are drawn over them.
    let colors = line_colors(panel);
    let mut order: Vec<usize> = (0..panel.lines.len()).collect();
    order.sort_by_key(|&i| !panel.lines[i].reference);
    for i in order {
        let (l, c) = (&panel.lines[i], colors[i]);
        let pts: Vec<(f64, f64)> = l
            .points
            .iter()
            .filter(|p| p.1.is_finite())
            .map(|p| (p.0, p.1))
            .collect();
        if l.reference {
            chart
                .draw_series(DashedLineSeries::new(pts, 6, 4, c.stroke_width(2)))
                .map_err(pe)?;
            continue;
        }
        if !panel.scatter {
            chart
                .draw_series(LineSeries::new(pts.clone(), c.stroke_width(2)))
                .map_err(pe)?;
        }
        chart
            .draw_series(pts.iter().map(|&p| Circle::new(p, 3, c.filled())))
            .map_err(pe)?;
        for &(x, y, sd) in &l.points {
            if sd.is_finite() && y.is_finite() && sd > 0.0 {
                chart
                    .draw_series(std::iter::once(PathElement::new(
                        vec![(x, y - sd), (x, y + sd)],
                        c.stroke_width(1),
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
    /// One vector of `(iteration, value)` per chain; [`trace_panels`] draws at most
    /// [`TRACE_POINTS`] of each.
    pub chains: Vec<Vec<(f64, f64)>>,
    /// Draws after burn-in, pooled over chains, for the histogram.
    pub pooled: Vec<f64>,
}

/// The most points of one chain a trace plot draws (every `s`-th, s the least stride that fits;
/// every draw still counts in the histograms): more than a figure's width in pixels, and SVGs of
/// a few hundred KB.
const TRACE_POINTS: usize = 2500;

/// Every `s`-th point of `chain`, s the least stride that leaves at most [`TRACE_POINTS`].
fn thinned(chain: &[(f64, f64)]) -> impl Iterator<Item = (f64, f64)> + '_ {
    let stride = chain.len().div_ceil(TRACE_POINTS).max(1);
    chain.iter().copied().step_by(stride)
}

/// The traces of `scalars` in replicate 0 of `cell`, for [`trace_panels`]: every finished chain's
/// stored rows, burn-in included, and the draws after the burn-in ([`Manifest::burn_in`]) pooled
/// over the chains. A scalar that no chain stores is left out. Errors: a trace that cannot be
/// read, or a column that is not numeric.
pub fn trace_vars(
    rd: &RunDir,
    m: &Manifest,
    cell: usize,
    scalars: &[&str],
) -> Result<Vec<TraceVar>, ReportError> {
    let stored = stored_chains(rd, m, cell, 0, scalars)?;
    let mut vars = Vec::new();
    for (i, name) in scalars.iter().enumerate() {
        let (mut chains, mut pooled) = (Vec::new(), Vec::new());
        for chain in &stored {
            let Some(Some(values)) = chain.columns.get(i) else {
                continue;
            };
            let iterations = chain.iterations.iter().map(|&it| it as f64);
            chains.push(iterations.zip(values.iter().copied()).collect());
            pooled.extend(chain.after_burn_in(i).unwrap_or_default());
        }
        if !chains.is_empty() {
            vars.push(TraceVar {
                name: (*name).to_string(),
                chains,
                pooled,
            });
        }
    }
    Ok(vars)
}

/// A row per variable: its trace plot (left; at most [`TRACE_POINTS`] points a chain) and
/// histogram (right; every pooled draw).
pub fn trace_panels(path: &Path, vars: &[TraceVar]) -> Result<(), ReportError> {
    let rows = vars.len().max(1);
    let root = SVGBackend::new(path, (1000, 230 * rows as u32)).into_drawing_area();
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
            for (x, y) in thinned(c) {
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
            .x_label_area_size(40)
            .y_label_area_size(50)
            .build_cartesian_2d(x0..x1, y0..y1)
            .map_err(pe)?;
        chart
            .configure_mesh()
            .light_line_style(TRANSPARENT)
            .bold_line_style(GRID)
            .x_label_formatter(&|x| tick(*x, x1 - x0))
            .y_label_formatter(&|y| tick(*y, y1 - y0))
            .x_desc("iteration")
            .draw()
            .map_err(pe)?;
        for (k, c) in v.chains.iter().enumerate() {
            let col = COLORS[k % COLORS.len()];
            chart
                .draw_series(LineSeries::new(thinned(c), col.mix(0.7)))
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
        // Integer draws (K+, counts) get one bin per integer, centred on it; others 30 bins.
        let integer = hi - lo <= 60.0 && v.pooled.iter().all(|x| *x == x.round());
        let (lo, nb) = if integer {
            (lo - 0.5, (hi - lo) as usize + 1)
        } else {
            (lo, 30usize)
        };
        let width = if integer {
            1.0
        } else if hi > lo {
            (hi - lo) / nb as f64
        } else {
            1.0
        };
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
            .x_label_area_size(40)
            .y_label_area_size(50)
            .build_cartesian_2d(lo..(lo + width * nb as f64), 0f64..cmax * 1.05)
            .map_err(pe)?;
        let span = width * nb as f64;
        h.configure_mesh()
            .light_line_style(TRANSPARENT)
            .bold_line_style(GRID)
            .x_label_formatter(&|x| tick(*x, span))
            .y_label_formatter(&|y| tick(*y, cmax))
            .y_desc("count")
            .draw()
            .map_err(pe)?;
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

/// One layered network to draw: every unit's layer (0 is the observed layer, drawn at the
/// bottom) in the order the units are numbered, and its edges `(child, parent, weight, jump)`.
pub struct LayeredNetwork {
    pub title: String,
    pub layers: Vec<usize>,
    pub edges: Vec<(usize, usize, f64, bool)>,
}

/// Draw `nets` side by side in a grid of `ncols` columns (the paper's network figures): units as
/// circles on their layer (observed filled), edges as lines, blue for a positive weight and
/// orange for a negative one, wider for a larger |weight| (capped at 3), jump edges lighter.
pub fn network_panels(
    path: &Path,
    nets: &[LayeredNetwork],
    ncols: usize,
) -> Result<(), ReportError> {
    let (pw, layer_h, pad) = (420i32, 70i32, 40i32);
    let depth = nets
        .iter()
        .flat_map(|n| n.layers.iter().copied())
        .max()
        .unwrap_or(0) as i32
        + 1;
    let ph = 2 * pad + layer_h * (depth - 1).max(1);
    let ncols = ncols.max(1);
    let nrows = nets.len().div_ceil(ncols).max(1);
    let root = SVGBackend::new(
        path,
        ((pw * ncols as i32) as u32, (ph * nrows as i32) as u32),
    )
    .into_drawing_area();
    root.fill(&WHITE).map_err(pe)?;
    let font = ("sans-serif", 13).into_font();
    for (k, net) in nets.iter().enumerate() {
        let (ox, oy) = (pw * (k % ncols) as i32, ph * (k / ncols) as i32);
        root.draw(&Text::new(
            net.title.clone(),
            (ox + 8, oy + 6),
            font.clone(),
        ))
        .map_err(pe)?;
        // Position of every unit: evenly across its layer, layer 0 at the bottom.
        let mut seen = vec![0usize; depth as usize];
        let width_of: Vec<usize> = (0..depth as usize)
            .map(|l| net.layers.iter().filter(|&&x| x == l).count())
            .collect();
        let xy: Vec<(i32, i32)> = net
            .layers
            .iter()
            .map(|&l| {
                let i = seen[l];
                seen[l] += 1;
                let x = ox + (pw * (2 * i as i32 + 1)) / (2 * width_of[l].max(1) as i32);
                (x, oy + ph - pad - layer_h * l as i32)
            })
            .collect();
        for &(c, p, w, jump) in &net.edges {
            let (Some(&a), Some(&b)) = (xy.get(c), xy.get(p)) else {
                continue;
            };
            let base = if w >= 0.0 { COLORS[0] } else { COLORS[1] };
            let width = 1 + (2.0 * w.abs().min(3.0) / 3.0).round() as u32;
            let style = base.mix(if jump { 0.35 } else { 0.8 }).stroke_width(width);
            root.draw(&PathElement::new(vec![a, b], style))
                .map_err(pe)?;
        }
        for (u, &(x, y)) in xy.iter().enumerate() {
            let fill = if net.layers[u] == 0 {
                BLACK.filled()
            } else {
                WHITE.filled()
            };
            root.draw(&Circle::new((x, y), 6, fill)).map_err(pe)?;
            root.draw(&Circle::new((x, y), 6, BLACK.stroke_width(1)))
                .map_err(pe)?;
        }
    }
    root.present().map_err(pe)?;
    Ok(())
}

/// One candidate of a Markov blanket figure ([`blanket`]).
pub struct BlanketNode {
    pub name: String,
    /// Posterior probability that the candidate is in the blanket.
    pub probability: f64,
    pub in_map: bool,
    pub in_true: bool,
}

/// A variable's estimated Markov blanket, as Figure 3 of `002_d97ecc788b964f97.txt` draws lung
/// cancer's: `target` at the centre, its candidates on a circle around it, an edge to each
/// member of the MAP set, wider for a larger posterior probability and labelled with it; the
/// members of the true blanket in teal, the other candidates grey.
pub fn blanket(
    path: &Path,
    title: &str,
    target: &str,
    nodes: &[BlanketNode],
) -> Result<(), ReportError> {
    let (w, h) = (620i32, 560i32);
    let (cx, cy, radius) = (w / 2, h / 2 + 14, 200.0);
    let root = SVGBackend::new(path, (w as u32, h as u32)).into_drawing_area();
    root.fill(&WHITE).map_err(pe)?;
    let font = ("sans-serif", 14).into_font();
    root.draw(&Text::new(title.to_string(), (8, 8), font.clone()))
        .map_err(pe)?;
    let teal = RGBColor(0, 128, 128);
    let at = |k: usize| {
        let a = std::f64::consts::TAU * k as f64 / nodes.len().max(1) as f64;
        (
            cx + (radius * a.cos()).round() as i32,
            cy + (radius * a.sin()).round() as i32,
        )
    };
    for (k, n) in nodes.iter().enumerate().filter(|(_, n)| n.in_map) {
        let (x, y) = at(k);
        let width = (1.0 + 5.0 * n.probability.clamp(0.0, 1.0)).round() as u32;
        root.draw(&PathElement::new(
            vec![(cx, cy), (x, y)],
            BLACK.mix(0.75).stroke_width(width),
        ))
        .map_err(pe)?;
        root.draw(&Text::new(
            format!("{:.3}", n.probability),
            ((cx + x) / 2 + 4, (cy + y) / 2 - 16),
            font.clone(),
        ))
        .map_err(pe)?;
    }
    let label = |name: &str, (x, y): (i32, i32), color: RGBColor| {
        let half = 4 * name.chars().count() as i32;
        root.draw(&Rectangle::new(
            [(x - half - 6, y - 12), (x + half + 6, y + 12)],
            color.filled(),
        ))?;
        root.draw(&Text::new(
            name.to_string(),
            (x - half, y - 8),
            ("sans-serif", 13).into_font().color(&WHITE),
        ))
    };
    for (k, n) in nodes.iter().enumerate() {
        let color = if n.in_true {
            teal
        } else {
            RGBColor(150, 150, 150)
        };
        label(&n.name, at(k), color).map_err(pe)?;
    }
    label(target, (cx, cy), RGBColor(40, 40, 40)).map_err(pe)?;
    root.present().map_err(pe)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::{BlanketNode, LayeredNetwork, blanket, network_panels, tick};

    #[test]
    fn figure_network_panels_draw_every_unit_and_edge() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("net.svg");
        let net = |title: &str| LayeredNetwork {
            title: title.into(),
            layers: vec![0, 0, 1, 2],
            edges: vec![(0, 2, 0.5, false), (1, 2, -1.5, false), (0, 3, 4.0, true)],
        };
        network_panels(&path, &[net("a"), net("b")], 2).expect("drawn");
        let svg = std::fs::read_to_string(&path).expect("svg");
        // Each unit is a filled circle and its outline; each edge one path.
        assert_eq!(svg.matches("<circle").count(), 2 * 2 * 4, "{svg}");
        assert_eq!(svg.matches("<polyline").count(), 2 * 3, "{svg}");
        // An edge naming a unit that does not exist is left out, not a panic.
        let bad = LayeredNetwork {
            title: "c".into(),
            layers: vec![0],
            edges: vec![(0, 9, 1.0, false)],
        };
        network_panels(&path, &[bad], 1).expect("drawn");
        assert_eq!(
            std::fs::read_to_string(&path)
                .expect("svg")
                .matches("<polyline")
                .count(),
            0
        );
    }

    #[test]
    fn figure_ticks_read_as_integers_and_stay_distinct() {
        assert_eq!(tick(10.0, 100.0), "10");
        assert_eq!(tick(1000.0, 9999.0), "1000");
        assert_eq!(tick(0.2, 1.0), "0.2");
        assert_eq!(tick(2.5, 10.0), "2.5");
        // A range of 1e-5 around −40.1: neighbouring ticks 1e-6 apart print apart.
        assert_eq!(tick(-40.099123, 1e-5), "-40.099123");
        assert_ne!(tick(-40.099123, 1e-5), tick(-40.099124, 1e-5));
        assert_eq!(tick(f64::NAN, 1.0), "NaN");
    }

    #[test]
    fn figure_blanket_names_every_candidate_and_labels_the_map_edges_only() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("blanket.svg");
        let node = |name: &str, probability: f64, in_map: bool| BlanketNode {
            name: name.into(),
            probability,
            in_map,
            in_true: in_map,
        };
        let nodes = [
            node("Smoking", 0.999, true),
            node("Fatigue", 0.642, true),
            node("Anxiety", 0.123, false),
        ];
        blanket(&path, "title", "Lung_Cancer", &nodes).expect("drawn");
        let svg = std::fs::read_to_string(&path).expect("svg");
        for name in ["Lung_Cancer", "Smoking", "Fatigue", "Anxiety"] {
            assert!(svg.contains(name), "{name}");
        }
        assert!(svg.contains("0.999") && svg.contains("0.642"));
        assert!(
            !svg.contains("0.123"),
            "no edge, no label, outside the MAP set"
        );
        assert_eq!(
            svg.matches("<polyline").count(),
            2,
            "one edge per MAP member"
        );
    }
}

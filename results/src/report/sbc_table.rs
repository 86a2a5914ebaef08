//! The `sbc` report: per cell and ranked scalar, the uniformity of the SBC ranks
//! that each simulation's chain stored in its summary (`sbc_rank`, `sbc_draws`; see
//! `causeway_papers::sbc`).
//!
//! `tables/sbc.{md,csv}`: per cell and scalar, S (simulations with a rank), L, B and Pearson's χ²
//! over B bins with its p-value (`causeway_papers::sbc::uniformity::chi_square`, B =
//! `default_bins(S, L)`), and the ECDF-difference test (Säilynoja, Bürkner & Vehtari 2022) with
//! its simultaneous 95% band by simulation (M = [`ECDF_SIMULATIONS`] uniform rank sets from the
//! fixed seed [`ECDF_SEED`], so the table is reproducible) and its p-value; `calibrated` is `no`
//! when either p-value is below [`P_MIN`].
//!
//! Figures: `figures/sbc_ranks_cell<i>.svg` (a rank histogram per scalar, B bins, with the
//! pointwise 99% binomial band of a bin's count, Talts et al. 2018 Fig. 1) and
//! `figures/sbc_ecdf_cell<i>.svg` (F̂(z) − z per scalar, with the simultaneous 95% band). Drawn
//! with plotters here (the shared `figures.rs` panels have no bands).

use causeway_papers::sbc::uniformity::{
    EcdfTest, bin_of, binomial_band, chi_square, default_bins, ecdf_test,
};
use causeway_papers::sbc::{DRAWS, RANKS};
use plotters::prelude::*;
use polars::prelude::*;

use super::{Convergence, ReportError, Table, axis_columns};
use crate::rundir::{Manifest, RunDir};

/// Null simulations behind the ECDF band and p-value (the smallest p-value is 1/(M + 1)).
pub const ECDF_SIMULATIONS: usize = 2000;
/// Seed of those simulations.
pub const ECDF_SEED: u64 = 20_220_322;
/// Simultaneous level of the ECDF band.
pub const LEVEL: f64 = 0.95;
/// A p-value below this marks a scalar `calibrated: no`.
pub const P_MIN: f64 = 0.01;

/// One cell's ranks: per scalar name, the ranks of the simulations that finished, and L.
struct CellRanks {
    names: Vec<String>,
    ranks: Vec<Vec<u64>>,
    draws: u64,
}

fn cell_ranks(rd: &RunDir, m: &Manifest, cell: usize) -> Result<CellRanks, ReportError> {
    let mut out = CellRanks {
        names: Vec::new(),
        ranks: Vec::new(),
        draws: 0,
    };
    for j in m.jobs.iter().filter(|j| j.cell == cell) {
        if !rd.chain_done(&j.job_id) {
            continue;
        }
        let summary = rd.read_summary(&j.job_id)?;
        let (Some(r), Some(l)) = (
            summary.iter().find(|x| x.name == RANKS),
            summary.iter().find(|x| x.name == DRAWS),
        ) else {
            return Err(ReportError::Other(format!(
                "sbc: chain {} has no `{RANKS}` summary: was it run with an sbc: block?",
                j.job_id
            )));
        };
        if out.names.is_empty() {
            out.names = r.col_names.clone();
            out.ranks = vec![Vec::new(); r.col_names.len()];
            out.draws = l.values.first().copied().unwrap_or(0.0) as u64;
        }
        for (acc, &v) in out.ranks.iter_mut().zip(&r.values) {
            if v.is_finite() && v >= 0.0 {
                acc.push(v as u64);
            }
        }
    }
    Ok(out)
}

/// Build `tables/sbc` and the figures. Errors: a finished chain without ranks.
pub fn sbc(rd: &RunDir, m: &Manifest, _: &Convergence) -> Result<Vec<Table>, ReportError> {
    let mut cells = Vec::new();
    let (mut names, mut sims, mut draws, mut bins) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let (mut chi, mut chi_p, mut ecdf_p, mut gamma, mut ok) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for c in m.cells.iter() {
        let cr = cell_ranks(rd, m, c.index)?;
        if cr.names.is_empty() {
            continue;
        }
        let mut tests = Vec::new();
        for (name, r) in cr.names.iter().zip(&cr.ranks) {
            let b = default_bins(r.len(), cr.draws);
            let x = chi_square(r, cr.draws, b);
            let e = ecdf_test(r, cr.draws, LEVEL, ECDF_SIMULATIONS, ECDF_SEED);
            cells.push(c.index);
            names.push(name.clone());
            sims.push(r.len() as u64);
            draws.push(cr.draws);
            bins.push(x.bins as u64);
            chi.push(x.statistic);
            chi_p.push(x.p_value);
            ecdf_p.push(e.p_value);
            gamma.push(e.gamma);
            ok.push(if x.p_value < P_MIN || e.p_value < P_MIN {
                "no"
            } else {
                "yes"
            });
            tests.push(e);
        }
        rank_histograms(rd, c.index, &cr)?;
        ecdf_plot(rd, c.index, &cr.names, &tests)?;
    }
    let mut cols = axis_columns(m, &cells);
    cols.extend([
        Column::new("parameter".into(), names),
        Column::new("simulations".into(), sims),
        Column::new("draws".into(), draws),
        Column::new("bins".into(), bins),
        Column::new("chi_square".into(), chi),
        Column::new("chi_square_p".into(), chi_p),
        Column::new("ecdf_p".into(), ecdf_p),
        Column::new("ecdf_gamma".into(), gamma),
        Column::new("calibrated".into(), ok),
    ]);
    Ok(vec![Table {
        name: "sbc".into(),
        title: "Simulation-based calibration: uniformity of the ranks of the true parameters"
            .into(),
        df: DataFrame::new_infer_height(cols)?,
        notes: vec![
            "Talts et al. (2018): each simulation draws θ from the prior, data from the model, \
             runs one chain and ranks θ among L thinned posterior draws (ties at random); \
             under a correct sampler the ranks are uniform on 0..L."
                .into(),
            format!(
                "chi_square_p: Pearson's χ² over `bins` bins (df = bins − 1). ecdf_p: the \
                 ECDF-difference test of Säilynoja, Bürkner & Vehtari (2022), band and p-value \
                 from {ECDF_SIMULATIONS} uniform simulations (seed {ECDF_SEED}; smallest p-value \
                 1/{}); ecdf_gamma: the adjusted pointwise level of its simultaneous {LEVEL} \
                 band. calibrated: no when a p-value is below {P_MIN}.",
                ECDF_SIMULATIONS + 1
            ),
            "Figures: figures/sbc_ranks_cell<i>.svg (rank histograms with the 99% binomial \
             band) and figures/sbc_ecdf_cell<i>.svg (ECDF difference with its 95% band)."
                .into(),
        ],
    }])
}

fn pe<E: std::fmt::Display>(e: E) -> ReportError {
    ReportError::Other(format!("figure: {e}"))
}

type Area<'a> = DrawingArea<SVGBackend<'a>, plotters::coord::Shift>;

/// A white SVG at `path` split into one 340 × 260 panel per scalar, three to a row.
fn panel_grid(path: &std::path::Path, n: usize) -> Result<(Area<'_>, Vec<Area<'_>>), ReportError> {
    let ncols = n.clamp(1, 3);
    let nrows = n.max(1).div_ceil(ncols);
    let root = SVGBackend::new(path, (340 * ncols as u32, 260 * nrows as u32)).into_drawing_area();
    root.fill(&WHITE).map_err(pe)?;
    let areas = root.split_evenly((nrows, ncols));
    Ok((root, areas))
}

/// One panel per scalar: the bin counts as bars, the 99% pointwise binomial band as a grey
/// rectangle per bin.
fn rank_histograms(rd: &RunDir, cell: usize, cr: &CellRanks) -> Result<(), ReportError> {
    let path = rd.figures_dir().join(format!("sbc_ranks_cell{cell}.svg"));
    let (root, areas) = panel_grid(&path, cr.names.len())?;
    for ((name, r), area) in cr.names.iter().zip(&cr.ranks).zip(areas) {
        let b = default_bins(r.len(), cr.draws);
        let mut counts = vec![0u64; b];
        for &x in r {
            counts[bin_of(x.min(cr.draws), cr.draws, b)] += 1;
        }
        let band = binomial_band(r.len(), cr.draws, b, 0.99);
        let top = counts
            .iter()
            .chain(band.iter().map(|x| &x.1))
            .copied()
            .max()
            .unwrap_or(1)
            .max(1) as f64
            * 1.1;
        let mut chart = ChartBuilder::on(&area)
            .caption(format!("{name} (cell {cell})"), ("sans-serif", 15))
            .margin(8)
            .x_label_area_size(30)
            .y_label_area_size(40)
            .build_cartesian_2d(0f64..b as f64, 0f64..top)
            .map_err(pe)?;
        chart
            .configure_mesh()
            .x_desc("rank bin")
            .y_desc("simulations")
            .draw()
            .map_err(pe)?;
        chart
            .draw_series(band.iter().enumerate().map(|(i, &(lo, hi))| {
                Rectangle::new(
                    [(i as f64, lo as f64), (i as f64 + 1.0, hi as f64)],
                    RGBColor(200, 200, 200).mix(0.6).filled(),
                )
            }))
            .map_err(pe)?;
        chart
            .draw_series(counts.iter().enumerate().map(|(i, &c)| {
                Rectangle::new(
                    [(i as f64 + 0.1, 0.0), (i as f64 + 0.9, c as f64)],
                    RGBColor(31, 119, 180).mix(0.8).filled(),
                )
            }))
            .map_err(pe)?;
    }
    root.present().map_err(pe)
}

/// One panel per scalar: F̂(z) − z (blue) inside the simultaneous band (grey), as Säilynoja et
/// al. (2022) draw it.
fn ecdf_plot(
    rd: &RunDir,
    cell: usize,
    names: &[String],
    tests: &[EcdfTest],
) -> Result<(), ReportError> {
    let path = rd.figures_dir().join(format!("sbc_ecdf_cell{cell}.svg"));
    let (root, areas) = panel_grid(&path, names.len())?;
    for ((name, t), area) in names.iter().zip(tests).zip(areas) {
        let ys = t.lower.iter().chain(&t.upper).chain(&t.diff).copied();
        let (lo, hi) = ys.fold((0.0f64, 0.0f64), |(a, b), y| (a.min(y), b.max(y)));
        let pad = 0.05 * (hi - lo).max(1e-3);
        let mut chart = ChartBuilder::on(&area)
            .caption(
                format!("{name} (cell {cell}), ECDF p = {:.3}", t.p_value),
                ("sans-serif", 15),
            )
            .margin(8)
            .x_label_area_size(30)
            .y_label_area_size(48)
            .build_cartesian_2d(0f64..1f64, (lo - pad)..(hi + pad))
            .map_err(pe)?;
        chart
            .configure_mesh()
            .x_desc("fractional rank z")
            .y_desc("ECDF(z) − z")
            .draw()
            .map_err(pe)?;
        let band: Vec<(f64, f64)> =
            t.z.iter()
                .zip(&t.upper)
                .map(|(&z, &u)| (z, u))
                .chain(t.z.iter().zip(&t.lower).rev().map(|(&z, &l)| (z, l)))
                .collect();
        chart
            .draw_series(std::iter::once(Polygon::new(
                band,
                RGBColor(200, 200, 200).mix(0.7).filled(),
            )))
            .map_err(pe)?;
        chart
            .draw_series(LineSeries::new([(0.0, 0.0), (1.0, 0.0)], BLACK.mix(0.5)))
            .map_err(pe)?;
        chart
            .draw_series(LineSeries::new(
                t.z.iter().zip(&t.diff).map(|(&z, &d)| (z, d)),
                RGBColor(31, 119, 180).stroke_width(2),
            ))
            .map_err(pe)?;
    }
    root.present().map_err(pe)
}

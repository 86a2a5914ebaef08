//! `tables/metabric_dags.csv`: Figure 5 of `002_d97ecc788b964f97.txt` (§6): each outcome's
//! parents under
//! - `in_median`: HiDDeN's median probability model (Algorithm 2's edge probabilities > 0.5), per
//!   ρ, beside its expected number of parents with its Monte Carlo error;
//! - `exact_median`: the same from the exact posterior's edge probabilities, per ρ;
//! - `hc`, `tabu`: bnlearn's `hc` and `tabu` with BIC (their definitions,
//!   `causeway_papers::hidden2025::evaluation::search`) on the outcome and its candidates,
//!   blacklisting every arc out of the outcome, as the authors' `metabric.R` does; the outcome's
//!   learned parents.
//!
//! The group lasso (Figure 5's middle DAG; optional in the issue) is not run: the paper reports
//! that it keeps every candidate. Also `figures/metabric_fig5_rho<ρ>.svg`: the three DAGs
//! (HiDDeN with line width ∝ edge probability, HC, TABU), covariates on top, outcomes below.
//! Built by [`super::metabric`].

use causeway_papers::hidden2025::evaluation::blankets::median_probability_model;
use causeway_papers::hidden2025::evaluation::search::{
    SearchConfig, hill_climbing, select_columns, tabu_search,
};
use plotters::prelude::*;
use polars::prelude::*;

use super::metabric_edges::paper_parents;
use super::metabric_fits::{MetabricFits, other};
use super::table2::safe;
use crate::report::{ReportError, Table, se};
use crate::rundir::{Manifest, RunDir};

/// An outcome with its HC and its TABU parents (data columns).
type Searched = (String, Vec<usize>, Vec<usize>);
/// A drawn DAG: each outcome with its parents (data columns) and their edge probabilities.
type DrawnDag = Vec<(String, Vec<(usize, f64)>)>;

/// HC and TABU parents of each outcome, in `fits.outcomes` order.
fn searched(fits: &MetabricFits) -> Result<Vec<Searched>, ReportError> {
    let mut out = Vec::new();
    for o in &fits.outcomes {
        let Some(f) = fits.fits.iter().find(|f| &f.node == o) else {
            continue;
        };
        let j = fits.column(o)?;
        let mut keep = f.candidates.clone();
        keep.push(j);
        keep.sort_unstable();
        let sub = select_columns(&fits.data, &keep).map_err(other)?;
        let target = keep
            .iter()
            .position(|&c| c == j)
            .ok_or_else(|| other("outcome lost"))?;
        let config = SearchConfig {
            blacklist: (0..keep.len())
                .filter(|&i| i != target)
                .map(|i| (target, i))
                .collect(),
            ..SearchConfig::default()
        };
        let back = |pa: &[usize]| pa.iter().map(|&i| keep[i]).collect::<Vec<_>>();
        let hc = hill_climbing(&sub, &config).map_err(other)?;
        let tabu = tabu_search(&sub, &config).map_err(other)?;
        out.push((
            o.clone(),
            back(&hc.parents[target]),
            back(&tabu.parents[target]),
        ));
    }
    Ok(out)
}

/// One row per (ρ, outcome): `rho, child`; HiDDeN's median probability model `in_median`
/// (parents with Algorithm 2's edge probability > 0.5: thresholds of the estimates that
/// `metabric_edges` tests, so reported, not tested) and its expected number of parents
/// `expected_n_parents` = Σ edge probabilities, the mean over the M chains of each chain's own
/// sum with its error sd/√M (`_se`, `_n`); the exact posterior's `exact_median`; `hc` and `tabu`
/// (one DAG each, the same for every ρ); and the `paper`'s median DAG.
pub(super) fn metabric_dags(
    rd: &RunDir,
    m: &Manifest,
    fits: &MetabricFits,
) -> Result<Table, ReportError> {
    let paper_of = |o: &str| {
        paper_parents(m, o).map(|p| {
            let mut cols: Vec<usize> = p.iter().filter_map(|n| fits.data.index(n)).collect();
            cols.sort_unstable();
            fits.names(&cols)
        })
    };
    let search = searched(fits)?;
    let (mut rho, mut child, mut in_median) = (Vec::new(), Vec::new(), Vec::new());
    let (mut expected, mut expected_se, mut expected_n) = (Vec::new(), Vec::new(), Vec::new());
    let (mut exact, mut hc, mut tabu, mut paper) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let mut drawn: Vec<(String, DrawnDag)> = Vec::new();
    for r in &fits.rhos {
        let mut dag = Vec::new();
        for f in fits.fits.iter().filter(|f| &f.rho == r) {
            rho.push(r.clone());
            child.push(f.node.clone());
            let to_cols = |pos: &[usize]| pos.iter().map(|&i| f.candidates[i]).collect::<Vec<_>>();
            match &f.estimate {
                Some(e) => {
                    in_median.push(Some(fits.names(&to_cols(&e.median))));
                    let per_chain: Vec<f64> = e
                        .chain_edge_probabilities
                        .iter()
                        .map(|c| c.iter().sum())
                        .collect();
                    let (mean, se_, n) = se::mean_over_units(&per_chain);
                    expected.push(mean);
                    expected_se.push(se_);
                    expected_n.push(n);
                    dag.push((
                        f.node.clone(),
                        e.median
                            .iter()
                            .map(|&i| (f.candidates[i], e.edge_probabilities[i]))
                            .collect(),
                    ));
                }
                None => {
                    in_median.push(None);
                    expected.push(f64::NAN);
                    expected_se.push(f64::NAN);
                    expected_n.push(0);
                }
            }
            exact.push(
                f.exact
                    .as_ref()
                    .map(|(probs, _)| fits.names(&to_cols(&median_probability_model(probs)))),
            );
            let s = search.iter().find(|s| s.0 == f.node);
            hc.push(s.map(|s| fits.names(&s.1)));
            tabu.push(s.map(|s| fits.names(&s.2)));
            paper.push(paper_of(&f.node));
        }
        drawn.push((r.clone(), dag));
    }
    for (r, dag) in &drawn {
        let panels = [
            (
                format!("HiDDeN median probability model (rho = {r})"),
                dag.clone(),
            ),
            (
                "HC (BIC)".to_string(),
                search
                    .iter()
                    .map(|(o, hc, _)| (o.clone(), hc.iter().map(|&c| (c, 1.0)).collect()))
                    .collect(),
            ),
            (
                "TABU (BIC)".to_string(),
                search
                    .iter()
                    .map(|(o, _, t)| (o.clone(), t.iter().map(|&c| (c, 1.0)).collect()))
                    .collect(),
            ),
        ];
        figure5(
            &rd.figures_dir()
                .join(format!("metabric_fig5_rho{}.svg", safe(r))),
            fits,
            &panels,
        )?;
    }
    let mut cols: Vec<Column> = vec![
        Series::new("rho".into(), rho).into(),
        Series::new("child".into(), child).into(),
        Series::new("in_median".into(), in_median).into(),
        Series::new("expected_n_parents".into(), expected).into(),
    ];
    se::push_se(
        &mut cols,
        "expected_n_parents",
        expected_se,
        Some(expected_n),
    );
    cols.extend([
        Series::new("exact_median".into(), exact).into(),
        Series::new("hc".into(), hc).into(),
        Series::new("tabu".into(), tabu).into(),
        Series::new("paper".into(), paper).into(),
    ]);
    Ok(Table {
        name: "metabric_dags".into(),
        title: "Figure 5: the outcomes' parents, METABRIC".into(),
        df: DataFrame::new_infer_height(cols)?,
        notes: vec![
            "in_median: HiDDeN's median probability model of Algorithm 2 (with the cell's block updates, `block_size`; edge probability > 0.5 over the post-burn-in draws of all chains), a threshold of the estimates that metabric_edges tests, so reported, not tested; expected_n_parents: Σ of those edge probabilities, the mean over the M chains of each chain's own sum with its error sd/√M (_se, _n); exact_median: the same model from the exact posterior. paper: Figure 5's median DAG (one chain, the authors' shape 1 = our ρ = k, their 1,867 rows). Parents in column order.".into(),
            "hc, tabu: bnlearn hc/tabu defaults (BIC, from the empty graph; TABU list 10, 10 moves without improvement) on the outcome and its candidates, every arc out of the outcome blacklisted (the authors' metabric.R), the same for every ρ; the paper says only that HC and TABU give one DAG, sparser than HiDDeN's.".into(),
            "The group lasso (Figure 5, middle; the paper: it keeps every candidate, for every outcome) is not a Rust method here: bench/hidden2025_authors/baselines.R runs it in R on the same preprocessing, over 100 fold seeds (results/paper/hidden2025/r_baselines/figure5_group_lasso.csv).".into(),
        ],
    })
}

const RED: RGBColor = RGBColor(214, 39, 40);
const BLUE: RGBColor = RGBColor(31, 119, 180);

fn pe<E: std::fmt::Display>(e: E) -> ReportError {
    other(format!("figure 5: {e}"))
}

/// An arrow from `a` to `b` (pixels), stopping `r` short of `b`'s centre, `w` pixels wide.
fn arrow<DB: DrawingBackend>(
    area: &DrawingArea<DB, plotters::coord::Shift>,
    pts: &[(i32, i32)],
    r: f64,
    w: u32,
) -> Result<(), ReportError> {
    let (Some(&(x0, y0)), Some(&(x1, y1))) = (pts.get(pts.len().wrapping_sub(2)), pts.last())
    else {
        return Ok(());
    };
    let (dx, dy) = ((x1 - x0) as f64, (y1 - y0) as f64);
    let len = (dx * dx + dy * dy).sqrt().max(1.0);
    let (ux, uy) = (dx / len, dy / len);
    let tip = (x1 as f64 - ux * r, y1 as f64 - uy * r);
    let mut line: Vec<(i32, i32)> = pts[..pts.len() - 1].to_vec();
    line.push((tip.0 as i32, tip.1 as i32));
    area.draw(&PathElement::new(line, BLACK.mix(0.8).stroke_width(w)))
        .map_err(pe)?;
    let (hx, hy) = (tip.0 - ux * 10.0, tip.1 - uy * 10.0);
    let head = vec![
        (tip.0 as i32, tip.1 as i32),
        ((hx - uy * 5.0) as i32, (hy + ux * 5.0) as i32),
        ((hx + uy * 5.0) as i32, (hy - ux * 5.0) as i32),
    ];
    area.draw(&Polygon::new(head, BLACK.filled())).map_err(pe)?;
    Ok(())
}

/// Figure 5: one panel per DAG (title, outcome → [(parent column, probability)]).
fn figure5(
    path: &std::path::Path,
    fits: &MetabricFits,
    panels: &[(String, DrawnDag)],
) -> Result<(), ReportError> {
    let outcomes: Vec<usize> = fits
        .outcomes
        .iter()
        .filter_map(|o| fits.data.index(o))
        .collect();
    let covariates: Vec<usize> = (0..fits.data.p())
        .filter(|c| !outcomes.contains(c))
        .collect();
    let (w, h) = (90 * covariates.len().max(outcomes.len()) as i32 + 40, 260);
    let root =
        SVGBackend::new(path, (w as u32, (h * panels.len() as i32) as u32)).into_drawing_area();
    root.fill(&WHITE).map_err(pe)?;
    let areas = root.split_evenly((panels.len(), 1));
    let r = 20.0;
    for ((title, dag), area) in panels.iter().zip(areas.iter()) {
        area.draw(&Text::new(
            title.clone(),
            (10, 8),
            ("sans-serif", 15).into_font(),
        ))
        .map_err(pe)?;
        // Ordered: nodes are drawn in iteration order, and a HashMap made the SVG differ run to run.
        let mut pos = std::collections::BTreeMap::new();
        for (i, &c) in covariates.iter().enumerate() {
            pos.insert(c, (40 + 90 * i as i32 + 20, 60));
        }
        let span = 90 * (covariates.len() as i32 - 1);
        for (i, &c) in outcomes.iter().enumerate() {
            let x = 60 + span * (2 * i as i32 + 1) / (2 * outcomes.len() as i32);
            pos.insert(c, (x, 170));
        }
        for (o, edges) in dag {
            let Some(&to) = fits.data.index(o).and_then(|j| pos.get(&j)) else {
                continue;
            };
            for &(p, prob) in edges {
                let Some(&from) = pos.get(&p) else { continue };
                let width = (1.0 + 4.0 * prob).round() as u32;
                if from.1 == to.1 {
                    // Outcome → outcome: an arc below the row.
                    let mid = ((from.0 + to.0) / 2, to.1 + 60);
                    arrow(area, &[(from.0, from.1 + r as i32), mid, to], r, width)?;
                } else {
                    arrow(area, &[from, to], r, width)?;
                }
            }
        }
        for (&c, &(x, y)) in &pos {
            let colour = if outcomes.contains(&c) { RED } else { BLUE };
            area.draw(&Circle::new((x, y), r as i32, colour.filled()))
                .map_err(pe)?;
            area.draw(&Text::new(
                fits.data.names[c].clone(),
                (x - 14, y - 7),
                ("sans-serif", 13).into_font().color(&WHITE),
            ))
            .map_err(pe)?;
        }
    }
    root.present().map_err(pe)?;
    Ok(())
}

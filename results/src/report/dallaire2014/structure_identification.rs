//! `structure_identification`: §5.2 of `004_74db43a26dbf0fa1.txt`, the network learned from data
//! of a known 7-unit network (dataset `ngbn7`: 2 observed, 2 hidden, 3 roots, 10 edges, depth 3)
//! by the eCIBP and the CIBP, beside the truth and the paper's figures.

use causeway_papers::Matrix;
use polars::prelude::*;

use super::table1_kl::method_rank;
use super::{
    dataset_of, method_of, pooled_of, reported_f64, reported_row, with_errors, z_against_paper,
};
use crate::report::{ReportError, Table, axes_text};
use crate::rundir::{Manifest, RunDir, find};

/// A scalar truth matrix of the dataset (`true_n_units`, ...), if present.
fn truth_scalar(truth: &[Matrix], name: &str) -> Option<f64> {
    find(truth, name).and_then(|t| t.values.first().copied())
}

/// One row per MCMC cell on dataset `ngbn7`: `prior, setting` (the cell's grid axes other than
/// the prior, `key=value` by the key's last component; empty if none), `kl_mean, kl_2sd, n_units_mean, n_units_sd,
/// n_edges_mean, n_edges_sd, depth_mean, depth_sd, true_n_units, true_n_edges, true_depth,
/// paper_kl, paper_n_units, paper_n_edges, paper_depth` (`reported.structure` rows `{prior, kl,
/// n_units, n_edges, depth}`). The truth comes from the stored dataset (replicate 0).
///
/// Errors: unreadable chains or datasets; polars.
pub fn structure_identification(rd: &RunDir, m: &Manifest) -> Result<Vec<Table>, ReportError> {
    let mut rows = Vec::new();
    for c in m.cells.iter() {
        let prior = method_of(c);
        if dataset_of(c) != "ngbn7" || !(prior == "ecibp" || prior == "cibp") {
            continue;
        }
        let [kl, units, edges, depth] = pooled_of(rd, m, c, ["kl", "n_units", "n_edges", "depth"])?;
        if units.draws.is_empty() {
            continue;
        }
        // Monte Carlo errors (docs/checking.md, "Monte Carlo error of a table cell"), as in Table 2:
        // MCSE of each posterior mean, s/√(2(ESS − 1)) of each sd (2 sd for the KL).
        let errors = (
            [
                kl.mcse,
                2.0 * kl.sd_se(),
                units.mcse,
                units.sd_se(),
                edges.mcse,
                edges.sd_se(),
                depth.mcse,
                depth.sd_se(),
            ],
            [
                kl.converged(),
                kl.converged(),
                units.converged(),
                units.converged(),
                edges.converged(),
                edges.converged(),
                depth.converged(),
                depth.converged(),
            ],
        );
        let (edges, depth) = (edges.mean_sd(), depth.mean_sd());
        let truth = rd.read_dataset(&c.dataset_id, 0)?.truth;
        let paper = reported_row(m, "structure", &[("prior", &prior)]);
        let (klm, kls) = kl.mean_sd();
        let (um, us) = units.mean_sd();
        // Against the paper (§5.2 gives each figure's spread: KL ± 2 sd, the others ± 1 sd).
        let sd_of = |key: &str, half: bool| {
            reported_f64(paper, key).map(|x| if half { x / 2.0 } else { x })
        };
        let z = [
            z_against_paper(
                klm,
                errors.0[0],
                reported_f64(paper, "kl"),
                sd_of("kl_2sd", true),
            ),
            z_against_paper(
                um,
                errors.0[2],
                reported_f64(paper, "n_units"),
                sd_of("n_units_dev", false),
            ),
            z_against_paper(
                edges.0,
                errors.0[4],
                reported_f64(paper, "n_edges"),
                sd_of("n_edges_dev", false),
            ),
            z_against_paper(
                depth.0,
                errors.0[6],
                reported_f64(paper, "depth"),
                sd_of("depth_dev", false),
            ),
        ];
        rows.push((
            method_rank(&prior),
            (prior, axes_text(c, &["params.prior"])),
            [klm, 2.0 * kls, um, us, edges.0, edges.1, depth.0, depth.1],
            [
                truth_scalar(&truth, "true_n_units"),
                truth_scalar(&truth, "true_n_edges"),
                truth_scalar(&truth, "true_depth"),
                reported_f64(paper, "kl"),
                reported_f64(paper, "n_units"),
                reported_f64(paper, "n_edges"),
                reported_f64(paper, "depth"),
            ],
            errors,
            z,
        ));
    }
    if rows.is_empty() {
        return Ok(Vec::new());
    }
    rows.sort_by_key(|r| std::cmp::Reverse(r.0));
    let num = |i: usize| rows.iter().map(|r| r.2[i]).collect::<Vec<f64>>();
    let opt = |i: usize| rows.iter().map(|r| r.3[i]).collect::<Vec<Option<f64>>>();
    let mut df = df!(
        "prior" => rows.iter().map(|r| r.1.0.clone()).collect::<Vec<_>>(),
        "setting" => rows.iter().map(|r| r.1.1.clone()).collect::<Vec<_>>(),
        "kl_mean" => num(0),
        "kl_2sd" => num(1),
        "n_units_mean" => num(2),
        "n_units_sd" => num(3),
        "n_edges_mean" => num(4),
        "n_edges_sd" => num(5),
        "depth_mean" => num(6),
        "depth_sd" => num(7),
        "true_n_units" => opt(0),
        "true_n_edges" => opt(1),
        "true_depth" => opt(2),
        "paper_kl" => opt(3),
        "paper_n_units" => opt(4),
        "paper_n_edges" => opt(5),
        "paper_depth" => opt(6),
        "z_paper_kl" => rows.iter().map(|r| r.5[0]).collect::<Vec<_>>(),
        "z_paper_n_units" => rows.iter().map(|r| r.5[1]).collect::<Vec<_>>(),
        "z_paper_n_edges" => rows.iter().map(|r| r.5[2]).collect::<Vec<_>>(),
        "z_paper_depth" => rows.iter().map(|r| r.5[3]).collect::<Vec<_>>(),
    )?;
    let errors: Vec<_> = rows.iter().map(|r| r.4).collect();
    with_errors(
        &mut df,
        [
            "kl_mean",
            "kl_2sd",
            "n_units_mean",
            "n_units_sd",
            "n_edges_mean",
            "n_edges_sd",
            "depth_mean",
            "depth_sd",
        ],
        &errors,
    )?;
    Ok(vec![Table {
        name: "structure_identification".into(),
        title: "§5.2: structure identification on the 7-unit network (ngbn7)".into(),
        df,
        notes: vec![
            "Units include the 2 observed units; edges are adjacent + jump; depth counts layer 0 (truth: 7 units, \
             10 edges, depth 3). KL as in Table 1 (mean ± 2 sd); the structure columns are mean and 1 sd. The \
             paper's columns quote §5.2."
                .into(),
            "z_paper_* = (ours − paper) / √(MCSE² + paper sd²), the paper's sd being half its ± for KL and its ± for \
             the others (it gives no Monte Carlo error); |z| > 3 is listed by `causeway check --against-paper`."
                .into(),
        ],
    }])
}

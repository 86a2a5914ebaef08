//! `table2_structure`: Table 2 of `004_74db43a26dbf0fa1.txt` (§5.1), the posterior number of hidden
//! units (§5.1: "the total number of hidden units"; the D observed units are not counted, and
//! the count with them is kept as `n_units`), edges (adjacent + jump) and depth (layers
//! including layer 0) learned by the CIBP and the eCIBP on each dataset, beside the paper's.

use polars::prelude::*;

use super::table1_kl::method_rank;
use super::{
    dataset_of, method_of, pooled_of, reported_f64, reported_row, with_errors, z_against_paper,
};
use crate::report::{ReportError, Table};
use crate::rundir::{Manifest, RunDir};

/// One row per MCMC cell (those that record `n_units` and have a dataset with rows): `dataset,
/// prior, hidden_units_mean, hidden_units_sd, n_units_mean, n_units_sd, n_edges_mean,
/// n_edges_sd, n_jump_edges_mean, depth_mean, depth_sd, rhat_n_units, paper_hidden_units,
/// paper_hidden_units_dev, paper_edges, paper_edges_dev` (`reported.table2` rows `{dataset,
/// prior, units, units_dev, edges, edges_dev}`: the paper's units are hidden units). Hidden
/// units are `n_units` − D, D the columns of the training data `x`.
///
/// Errors: unreadable chains; polars.
pub fn table2_structure(rd: &RunDir, m: &Manifest) -> Result<Table, ReportError> {
    let mut order: Vec<String> = Vec::new();
    let mut rows = Vec::new();
    for c in m.cells.iter() {
        let method = method_of(c);
        if !(method == "ecibp" || method == "cibp") || dataset_of(c) == "none" {
            continue;
        }
        let [units, edges, jumps, depth] =
            pooled_of(rd, m, c, ["n_units", "n_edges", "n_jump_edges", "depth"])?;
        if units.draws.is_empty() {
            continue;
        }
        let observed = rd
            .read_dataset(&c.dataset_id, 0)?
            .observed("x")
            .map_or(f64::NAN, |x| x.cols as f64);
        let dataset = dataset_of(c);
        if !order.contains(&dataset) {
            order.push(dataset.clone());
        }
        // Monte Carlo errors (docs/checking.md, "Monte Carlo error of a table cell"): MCSE of each
        // posterior mean, s/√(2(ESS − 1)) of each sd, and each scalar's chains' flag.
        let errs = [
            units.mcse,
            units.sd_se(),
            units.mcse,
            units.sd_se(),
            edges.mcse,
            edges.sd_se(),
            jumps.mcse,
            depth.mcse,
            depth.sd_se(),
        ];
        let flags = [
            units.converged(),
            units.converged(),
            units.converged(),
            units.converged(),
            edges.converged(),
            edges.converged(),
            jumps.converged(),
            depth.converged(),
            depth.converged(),
        ];
        let (edges, jumps, depth) = (edges.mean_sd(), jumps.mean_sd(), depth.mean_sd());
        let paper = reported_row(m, "table2", &[("dataset", &dataset), ("prior", &method)]);
        let (um, us) = units.mean_sd();
        rows.push((
            order.iter().position(|d| *d == dataset).unwrap_or(0),
            method_rank(&method),
            dataset,
            method,
            [
                um - observed,
                us,
                um,
                us,
                edges.0,
                edges.1,
                jumps.0,
                depth.0,
                depth.1,
                units.rhat,
            ],
            [
                reported_f64(paper, "units"),
                reported_f64(paper, "units_dev"),
                reported_f64(paper, "edges"),
                reported_f64(paper, "edges_dev"),
            ],
            errs,
            flags,
        ));
    }
    rows.sort_by_key(|r| (r.0, r.1));
    let num = |i: usize| rows.iter().map(|r| r.4[i]).collect::<Vec<f64>>();
    let paper = |i: usize| rows.iter().map(|r| r.5[i]).collect::<Vec<Option<f64>>>();
    let df = df!(
        "dataset" => rows.iter().map(|r| r.2.clone()).collect::<Vec<_>>(),
        "prior" => rows.iter().map(|r| r.3.clone()).collect::<Vec<_>>(),
        "hidden_units_mean" => num(0),
        "hidden_units_sd" => num(1),
        "n_units_mean" => num(2),
        "n_units_sd" => num(3),
        "n_edges_mean" => num(4),
        "n_edges_sd" => num(5),
        "n_jump_edges_mean" => num(6),
        "depth_mean" => num(7),
        "depth_sd" => num(8),
        "rhat_n_units" => num(9),
        "paper_hidden_units" => paper(0),
        "paper_hidden_units_dev" => paper(1),
        "paper_edges" => paper(2),
        "paper_edges_dev" => paper(3),
    )?;
    let mut df = df;
    // Against the paper: hidden units (errs[0]: the MCSE of hidden_units_mean) and edges (errs[4]).
    for (name, value, se, paper_i) in [
        ("z_paper_hidden_units", 0, 0, 0),
        ("z_paper_edges", 4, 4, 2),
    ] {
        let z: Vec<Option<f64>> = rows
            .iter()
            .map(|r| z_against_paper(r.4[value], r.6[se], r.5[paper_i], r.5[paper_i + 1]))
            .collect();
        df.with_column(Column::new(name.into(), z))?;
    }
    let errors: Vec<_> = rows.iter().map(|r| (r.6, r.7)).collect();
    with_errors(
        &mut df,
        [
            "hidden_units_mean",
            "hidden_units_sd",
            "n_units_mean",
            "n_units_sd",
            "n_edges_mean",
            "n_edges_sd",
            "n_jump_edges_mean",
            "depth_mean",
            "depth_sd",
        ],
        &errors,
    )?;
    Ok(Table {
        name: "table2_structure".into(),
        title: "Table 2 (§5.1): posterior units, edges and depth".into(),
        df,
        notes: vec![
            "hidden_units: the hidden units (§5.1), n_units − D; n_units counts the D observed units too. \
             Edges are adjacent + jump edges; depth counts layer 0. Means and \
             sample sds (1 sd) over every retained sample of every chain. The paper's ± does not say whether it \
             is 1 or 2 sd (we read it as 1 sd)."
                .into(),
            "z_paper_hidden_units, z_paper_edges = (ours − paper) / √(MCSE² + paper_dev²): the paper's sd stands for \
             its uncertainty (it gives no Monte Carlo error); |z| > 3 is listed by `causeway check --against-paper`."
                .into(),
        ],
    })
}

//! `structure_edges`: §5.2 of `004_74db43a26dbf0fa1.txt`, the posterior frequency of each edge
//! of the known 7-unit network (dataset `ngbn7`), the learned hidden units aligned to the true
//! ones by the best matching of their activations
//! (`causeway_papers::dallaire2014::evaluation::alignment`). The paper reports that an extra
//! top-to-observed edge with a small weight often appears: every pair of units is listed, so
//! such edges are too.

use causeway_papers::Matrix;
use polars::prelude::*;

use super::table1_kl::method_rank;
use super::{dataset_of, method_of};
use crate::report::{ReportError, Table, replicate_summaries, se};
use crate::rundir::{Manifest, RunDir, find};

/// Each finished chain's (replicate 0) edge frequencies and alignment correlations (chains
/// with no aligned sample are skipped).
fn chain_frequencies(summaries: &[Vec<Matrix>]) -> Vec<(Matrix, Vec<f64>)> {
    summaries
        .iter()
        .filter_map(|s| {
            let (f, c, n) = (
                find(s, "edge_frequency")?,
                find(s, "alignment_correlation")?,
                find(s, "aligned_samples").and_then(|m| m.values.first().copied())?,
            );
            (n > 0.0).then(|| (f.clone(), c.values.clone()))
        })
        .collect()
}

/// One row per (prior, ordered pair of distinct true units): `prior, child, parent, true_weight,
/// true_edge, posterior_frequency` with `posterior_frequency_se`/`_n`; then a second table of the
/// alignment quality: `prior, true_unit, mean_abs_correlation` (`_se`, `_n`), `chains`.
///
/// Every cell is a mean over the cell's chains of that chain's own value (the fraction of its
/// retained samples with the aligned edge; its mean |correlation|). The chains are independent
/// units: a frequency's error is the binomial se over the n chains
/// ([`se::frequency_over_chains`]), a correlation's sd/√n ([`se::mean_over_units`]). The rows are the same in every run (all ordered
/// pairs, true edges first), so that two runs compare row by row.
///
/// Errors: unreadable chains or datasets; polars.
pub fn structure_edges(rd: &RunDir, m: &Manifest) -> Result<Vec<Table>, ReportError> {
    let mut rows: Vec<EdgeRow> = Vec::new();
    let mut align_rows: Vec<AlignRow> = Vec::new();
    for c in m.cells.iter() {
        let prior = method_of(c);
        if dataset_of(c) != "ngbn7" || !(prior == "ecibp" || prior == "cibp") {
            continue;
        }
        let chains = chain_frequencies(&replicate_summaries(rd, m, c.index, 0)?);
        if chains.is_empty() {
            continue;
        }
        let truth = rd.read_dataset(&c.dataset_id, 0)?.truth;
        let Some(w) = find(&truth, "true_weights") else {
            continue;
        };
        let u = chains.iter().fold(w.rows, |u, (f, _)| u.min(f.rows));
        let name = |i: usize| {
            w.row_names
                .get(i)
                .cloned()
                .unwrap_or_else(|| format!("unit{i}"))
        };
        let rank = method_rank(&prior);
        for child in 0..u {
            for parent in (0..u).filter(|&p| p != child) {
                let per_chain: Vec<f64> =
                    chains.iter().map(|(f, _)| f.get(child, parent)).collect();
                rows.push(EdgeRow {
                    rank,
                    prior: prior.clone(),
                    child: name(child),
                    parent: name(parent),
                    true_weight: w.get(child, parent),
                    freq: se::frequency_over_chains(&per_chain),
                });
            }
        }
        let hidden = chains
            .iter()
            .map(|(_, c)| c.len())
            .min()
            .unwrap_or(0)
            .min(u);
        let d = u - hidden;
        for h in 0..hidden {
            let per_chain: Vec<f64> = chains.iter().map(|(_, c)| c[h]).collect();
            align_rows.push((
                rank,
                prior.clone(),
                name(d + h),
                se::mean_over_units(&per_chain),
            ));
        }
    }
    if rows.is_empty() {
        return Ok(Vec::new());
    }
    // eCIBP first, as in the paper's §5.2 table; within a prior, true edges first, then by name
    // (an order that does not depend on the values, so that runs compare row by row).
    rows.sort_by(|a, b| {
        b.rank
            .cmp(&a.rank)
            .then((b.true_weight != 0.0).cmp(&(a.true_weight != 0.0)))
            .then(a.child.cmp(&b.child))
            .then(a.parent.cmp(&b.parent))
    });
    align_rows.sort_by(|a, b| b.0.cmp(&a.0).then(a.2.cmp(&b.2)));
    let edge_cols = edge_columns(&rows)?;
    let align_cols = alignment_columns(&align_rows)?;
    Ok(vec![
        Table {
            name: "structure_edges".into(),
            title: "§5.2: posterior edge frequencies against the true network (ngbn7)".into(),
            df: DataFrame::new_infer_height(edge_cols)?,
            notes: vec![
                "Each retained sample's hidden units are matched one to one to the true hidden units, greedily by \
                 the absolute correlation of their activations over the training points (the model is symmetric \
                 under u → −u); observed units are themselves. posterior_frequency is the mean over chains of the \
                 fraction of a chain's retained samples with the aligned edge, with the binomial error of a \
                 proportion of the n chains (chains are often stuck with an edge or without it). Every ordered pair of distinct true units is listed, true edges first. Units: x1, x2 \
                 observed; h1_* layer 1; h2_* roots."
                    .into(),
            ],
        },
        Table {
            name: "structure_alignment".into(),
            title: "§5.2: how well the learned hidden units match the true ones".into(),
            df: DataFrame::new_infer_height(align_cols)?,
            notes: vec![
                "mean_abs_correlation: the mean over chains of the mean over a chain's retained samples of the \
                 |correlation| between a true hidden unit's activations and those of the learned unit matched to \
                 it (0 for a sample with no unit left to match), with its error sd/√n over the n chains."
                    .into(),
            ],
        },
    ])
}

/// One ordered pair of true units of a prior's chains.
struct EdgeRow {
    rank: usize,
    prior: String,
    child: String,
    parent: String,
    true_weight: f64,
    freq: (f64, f64, u64),
}

/// (prior rank, prior, true unit, (mean, se, n) of its mean |correlation| over chains)
type AlignRow = (usize, String, String, (f64, f64, u64));

/// The edge table's columns (frequency over chains, with its binomial se).
fn edge_columns(rows: &[EdgeRow]) -> Result<Vec<Column>, ReportError> {
    let mut edge_cols: Vec<Column> = vec![
        Series::new(
            "prior".into(),
            rows.iter().map(|r| r.prior.clone()).collect::<Vec<_>>(),
        )
        .into(),
        Series::new(
            "child".into(),
            rows.iter().map(|r| r.child.clone()).collect::<Vec<_>>(),
        )
        .into(),
        Series::new(
            "parent".into(),
            rows.iter().map(|r| r.parent.clone()).collect::<Vec<_>>(),
        )
        .into(),
        Series::new(
            "true_weight".into(),
            rows.iter().map(|r| r.true_weight).collect::<Vec<_>>(),
        )
        .into(),
        Series::new(
            "true_edge".into(),
            rows.iter()
                .map(|r| r.true_weight != 0.0)
                .collect::<Vec<_>>(),
        )
        .into(),
        Series::new(
            "posterior_frequency".into(),
            rows.iter().map(|r| r.freq.0).collect::<Vec<_>>(),
        )
        .into(),
    ];
    se::push_se(
        &mut edge_cols,
        "posterior_frequency",
        rows.iter().map(|r| r.freq.1).collect(),
        Some(rows.iter().map(|r| r.freq.2).collect()),
    );
    Ok(edge_cols)
}

/// The alignment table's columns (mean |correlation| over chains, with its se).
fn alignment_columns(align_rows: &[AlignRow]) -> Result<Vec<Column>, ReportError> {
    let mut align_cols: Vec<Column> = vec![
        Series::new(
            "prior".into(),
            align_rows.iter().map(|r| r.1.clone()).collect::<Vec<_>>(),
        )
        .into(),
        Series::new(
            "true_unit".into(),
            align_rows.iter().map(|r| r.2.clone()).collect::<Vec<_>>(),
        )
        .into(),
        Series::new(
            "mean_abs_correlation".into(),
            align_rows.iter().map(|r| r.3.0).collect::<Vec<_>>(),
        )
        .into(),
    ];
    se::push_se(
        &mut align_cols,
        "mean_abs_correlation",
        align_rows.iter().map(|r| r.3.1).collect(),
        Some(align_rows.iter().map(|r| r.3.2).collect()),
    );
    Ok(align_cols)
}

//! `structure_edges`: §5.2 of `004_74db43a26dbf0fa1.txt`, the posterior frequency of each edge
//! of the known 7-unit network (dataset `ngbn7`), the learned hidden units aligned to the true
//! ones by the best matching of their activations
//! (`causeway_papers::dallaire2014::evaluation::alignment`). The paper reports that an extra
//! top-to-observed edge with a small weight often appears: such edges are listed too.

use causeway_papers::Matrix;
use polars::prelude::*;

use super::table1_kl::method_rank;
use super::{dataset_of, method_of};
use crate::report::{ReportError, Table, replicate_summaries};
use crate::rundir::{Manifest, RunDir, find};

/// Edges absent from the truth are listed when their posterior frequency reaches this.
const SHOW_EXTRA: f64 = 0.05;

/// Chain-averaged (weighted by aligned samples) edge frequencies and alignment correlations of a
/// cell's finished chains (replicate 0), with the number of aligned samples.
fn pooled_frequencies(summaries: &[Vec<Matrix>]) -> Option<(Matrix, Vec<f64>, f64)> {
    let mut freq: Option<Matrix> = None;
    let mut corr: Vec<f64> = Vec::new();
    let mut total = 0.0;
    for s in summaries {
        let (Some(f), Some(c), Some(n)) = (
            find(s, "edge_frequency"),
            find(s, "alignment_correlation"),
            find(s, "aligned_samples").and_then(|m| m.values.first().copied()),
        ) else {
            continue;
        };
        if n <= 0.0 {
            continue;
        }
        let acc = freq.get_or_insert_with(|| {
            Matrix::new("edge_frequency", f.rows, f.cols, vec![0.0; f.values.len()])
        });
        if acc.values.len() != f.values.len() {
            continue;
        }
        for (a, v) in acc.values.iter_mut().zip(&f.values) {
            *a += n * v;
        }
        corr.resize(c.values.len(), 0.0);
        for (a, v) in corr.iter_mut().zip(&c.values) {
            *a += n * v;
        }
        total += n;
    }
    let mut f = freq?;
    f.values.iter_mut().for_each(|v| *v /= total);
    corr.iter_mut().for_each(|v| *v /= total);
    Some((f, corr, total))
}

/// One row per (prior, edge) for every true edge and every other aligned edge with posterior
/// frequency ≥ 0.05: `prior, child, parent, true_weight, true_edge, posterior_frequency`, then a
/// second table of the alignment quality: `prior, true_unit, mean_abs_correlation,
/// aligned_samples`.
///
/// Errors: unreadable chains or datasets; polars.
pub fn structure_edges(rd: &RunDir, m: &Manifest) -> Result<Vec<Table>, ReportError> {
    let mut rows: Vec<(usize, String, String, String, f64, bool, f64)> = Vec::new();
    let mut align_rows: Vec<(usize, String, String, f64, f64)> = Vec::new();
    for c in &m.cells {
        let prior = method_of(c);
        if dataset_of(c) != "ngbn7" || !(prior == "ecibp" || prior == "cibp") {
            continue;
        }
        let summaries = replicate_summaries(rd, m, c.index, 0)?;
        let Some((freq, corr, samples)) = pooled_frequencies(&summaries) else {
            continue;
        };
        let truth = rd.read_dataset(&c.dataset_id, 0)?.truth;
        let Some(w) = find(&truth, "true_weights") else {
            continue;
        };
        let u = w.rows.min(freq.rows);
        let name = |i: usize| {
            w.row_names
                .get(i)
                .cloned()
                .unwrap_or_else(|| format!("unit{i}"))
        };
        let rank = method_rank(&prior);
        for child in 0..u {
            for parent in 0..u {
                let tw = w.get(child, parent);
                let f = freq.get(child, parent);
                if tw != 0.0 || f >= SHOW_EXTRA {
                    rows.push((
                        rank,
                        prior.clone(),
                        name(child),
                        name(parent),
                        tw,
                        tw != 0.0,
                        f,
                    ));
                }
            }
        }
        let d = u - corr.len().min(u);
        for (h, c) in corr.iter().enumerate() {
            align_rows.push((rank, prior.clone(), name(d + h), *c, samples));
        }
    }
    if rows.is_empty() {
        return Ok(Vec::new());
    }
    // eCIBP first, as in the paper's §5.2 table; within a prior, true edges first.
    rows.sort_by(|a, b| {
        b.0.cmp(&a.0)
            .then(b.5.cmp(&a.5))
            .then(b.6.total_cmp(&a.6))
            .then(a.2.cmp(&b.2))
            .then(a.3.cmp(&b.3))
    });
    align_rows.sort_by(|a, b| b.0.cmp(&a.0).then(a.2.cmp(&b.2)));
    let edges = df!(
        "prior" => rows.iter().map(|r| r.1.clone()).collect::<Vec<_>>(),
        "child" => rows.iter().map(|r| r.2.clone()).collect::<Vec<_>>(),
        "parent" => rows.iter().map(|r| r.3.clone()).collect::<Vec<_>>(),
        "true_weight" => rows.iter().map(|r| r.4).collect::<Vec<_>>(),
        "true_edge" => rows.iter().map(|r| r.5).collect::<Vec<_>>(),
        "posterior_frequency" => rows.iter().map(|r| r.6).collect::<Vec<_>>(),
    )?;
    let align = df!(
        "prior" => align_rows.iter().map(|r| r.1.clone()).collect::<Vec<_>>(),
        "true_unit" => align_rows.iter().map(|r| r.2.clone()).collect::<Vec<_>>(),
        "mean_abs_correlation" => align_rows.iter().map(|r| r.3).collect::<Vec<_>>(),
        "aligned_samples" => align_rows.iter().map(|r| r.4).collect::<Vec<_>>(),
    )?;
    Ok(vec![
        Table {
            name: "structure_edges".into(),
            title: "§5.2: posterior edge frequencies against the true network (ngbn7)".into(),
            df: edges,
            notes: vec![format!(
                "Each retained sample's hidden units are matched one to one to the true hidden units, greedily by \
                 the absolute correlation of their activations over the training points (the model is symmetric \
                 under u → −u); observed units are themselves. posterior_frequency is the fraction of retained \
                 samples (all chains) with the aligned edge. Every true edge is listed, and every other edge with \
                 frequency ≥ {SHOW_EXTRA}. Units: x1, x2 observed; h1_* layer 1; h2_* roots."
            )],
        },
        Table {
            name: "structure_alignment".into(),
            title: "§5.2: how well the learned hidden units match the true ones".into(),
            df: align,
            notes: vec![
                "mean_abs_correlation: the mean over retained samples of the |correlation| between a true hidden \
                 unit's activations and those of the learned unit matched to it (0 for a sample with no unit left \
                 to match)."
                    .into(),
            ],
        },
    ])
}

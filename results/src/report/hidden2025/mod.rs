//! Tables and figures of paper 002 (`002_d97ecc788b964f97.txt`, HiDDeN), one file per table.
//! The estimators and baselines themselves are polars-free, in
//! `causeway_papers::hidden2025::evaluation`.

mod table1;
pub use table1::table1;
mod lucas;
mod lucas_edges;
mod lucas_mcmc;
mod table2;
pub use lucas::table2;
mod table3;
pub use table3::table3;
mod table7;
pub use table7::table7;
mod alarm;
pub use alarm::alarm;
mod alarm_draws;
pub use alarm_draws::alarm_draws;
mod metabric;
pub use metabric::metabric;
mod metabric_dags;
mod metabric_edges;
mod metabric_fits;
mod mmle;
pub use mmle::mmle;

/// Worst R-hat (max) and bulk ESS (min) over `cells` and the monitored scalars; `None` if none
/// is finite.
fn worst_convergence(
    conv: &crate::report::Convergence,
    cells: impl Iterator<Item = usize>,
) -> (Option<f64>, Option<f64>) {
    let (mut rhat, mut ess) = (None::<f64>, None::<f64>);
    for c in cells {
        for (_, x) in conv.get(&c).into_iter().flatten() {
            if x.rhat.is_finite() {
                rhat = Some(rhat.map_or(x.rhat, |r| r.max(x.rhat)));
            }
            if x.ess_bulk.is_finite() {
                ess = Some(ess.map_or(x.ess_bulk, |e| e.min(x.ess_bulk)));
            }
        }
    }
    (rhat, ess)
}

/// The note on where a synthetic table's datasets come from: the authors' own R draws when the
/// cells read them (`dataset.authors_seed`, paper 002's §5.3 and supplement E), else the run's
/// seed. `drawn` is the note for the run's own draws.
fn datasets_note(m: &crate::rundir::Manifest, drawn: &str) -> String {
    if m.cells
        .iter()
        .any(|c| c.dataset.get("authors_seed").is_some())
    {
        "The datasets are the authors' own: dataset.authors_seed S is what their R script draws after set.seed(S) \
         (data/hidden2025_authors, written by bench/hidden2025_authors/datasets.R), one per cell, so BIC, AIC and BDeu \
         see the paper's data and differ from its values only where the scores or the selection rule differ."
            .into()
    } else {
        drawn.into()
    }
}

/// One work item per stored dataset and replicate `0..reps`: (dataset id, position in `specs` of
/// the first cell using that dataset, replicate), datasets in id order. `specs` pairs a cell
/// index with what the table parsed from it.
fn dataset_replicates<'m, T>(
    m: &'m crate::rundir::Manifest,
    specs: &[(usize, T)],
    reps: u64,
) -> Vec<(&'m str, usize, u64)> {
    let mut first_cell: std::collections::BTreeMap<&str, usize> = Default::default();
    for (i, (cell, _)) in specs.iter().enumerate() {
        first_cell
            .entry(m.cells[*cell].dataset_id.as_str())
            .or_insert(i);
    }
    first_cell
        .iter()
        .flat_map(|(id, &i)| (0..reps).map(move |r| (*id, i, r)))
        .collect()
}

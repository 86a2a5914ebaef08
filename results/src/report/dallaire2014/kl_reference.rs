//! `kl_reference`: the reference rows of Table 1 (`004_74db43a26dbf0fa1.txt` §5.1): for each
//! dataset, D̂(test ‖ train), which the paper quotes, and D̂(test ‖ train with each column permuted
//! independently), the "independence" value that a model without hidden units cannot beat.

use causeway_papers::dallaire2014::evaluation::{
    KL_INDEPENDENT_PERMUTATIONS, kl_reference as reference,
};
use causeway_papers::dallaire2014::params::KlDirection;
use causeway_papers::seed::chain_rng;
use polars::prelude::*;

use super::dataset_of;
use crate::report::{ReportError, Table};
use crate::rundir::{Manifest, RunDir};

/// The stream of the permutation draws: apart from every chain's (chains are numbered from 0).
const PERMUTATION_STREAM: u64 = u64::MAX;

/// One row per dataset of the run (replicate 0, with `kl_k` and `kl_direction` of its first
/// cell; under `model_test` the two KLs are D̂(train ‖ test) and its permuted twin): `dataset,
/// n_train, n_test, d, k, kl_train_test, kl_independent, zero_distance_ties,
/// paper_kl_train_test` (`reported.kl_train_test`, a map from dataset to value). The
/// permutations are drawn from `chain_rng(seed, dataset key, 0, 2^64 − 1)`, so the table is
/// reproducible. Datasets without a test set (`none`) are skipped.
///
/// Errors: unreadable datasets; a dataset whose KL cannot be computed (named); polars.
pub fn kl_reference(rd: &RunDir, m: &Manifest) -> Result<Vec<Table>, ReportError> {
    let mut seen: Vec<String> = Vec::new();
    let mut rows = Vec::new();
    for c in m.cells.iter() {
        let dataset = dataset_of(c);
        if seen.contains(&dataset) {
            continue;
        }
        seen.push(dataset.clone());
        let ds = rd.read_dataset(&c.dataset_id, 0)?;
        let (Some(train), Some(test)) = (ds.observed("x"), ds.observed("test")) else {
            continue;
        };
        if test.rows == 0 {
            continue;
        }
        let k = c
            .param("kl_k")
            .and_then(serde_json::Value::as_u64)
            .unwrap_or(1) as usize;
        let direction = c
            .param("kl_direction")
            .and_then(|v| serde_json::from_value::<KlDirection>(v.clone()).ok())
            .unwrap_or_default();
        let mut rng = chain_rng(m.base_seed, c.dataset_key, 0, PERMUTATION_STREAM);
        let r = reference(
            train,
            test,
            k,
            direction,
            KL_INDEPENDENT_PERMUTATIONS,
            &mut rng,
        )
        .map_err(|e| {
            ReportError::Other(format!("dallaire2014.kl_reference: dataset {dataset}: {e}"))
        })?;
        let paper = m
            .reported
            .get("kl_train_test")
            .and_then(|v| v.get(&dataset))
            .and_then(serde_json::Value::as_f64);
        rows.push((
            dataset,
            [
                train.rows as u64,
                test.rows as u64,
                train.cols as u64,
                k as u64,
            ],
            r,
            paper,
        ));
    }
    if rows.is_empty() {
        return Ok(Vec::new());
    }
    let int = |i: usize| rows.iter().map(|r| r.1[i]).collect::<Vec<u64>>();
    let df = df!(
        "dataset" => rows.iter().map(|r| r.0.clone()).collect::<Vec<_>>(),
        "n_train" => int(0),
        "n_test" => int(1),
        "d" => int(2),
        "k" => int(3),
        "kl_train_test" => rows.iter().map(|r| r.2.kl_train_test).collect::<Vec<_>>(),
        "kl_independent" => rows.iter().map(|r| r.2.kl_independent).collect::<Vec<_>>(),
        "zero_distance_ties" => rows.iter().map(|r| r.2.zero_distance_ties).collect::<Vec<_>>(),
        "paper_kl_train_test" => rows.iter().map(|r| r.3).collect::<Vec<_>>(),
        // Monte Carlo error (docs/checking.md, "Monte Carlo error of a table cell"): kl_independent is a
        // mean over independent permutation draws, sd/√n with n = the draws; kl_train_test is
        // deterministic given the data.
        "kl_independent_se" => rows
            .iter()
            .map(|r| r.2.kl_independent_sd / (r.2.permutations as f64).sqrt())
            .collect::<Vec<_>>(),
        "kl_independent_n" => rows.iter().map(|r| r.2.permutations as u64).collect::<Vec<_>>(),
    )?;
    Ok(vec![Table {
        name: "kl_reference".into(),
        title:
            "Reference KLs (§5.1): the training set, and the training set with independent columns"
                .into(),
        df,
        notes: vec![format!(
            "kl_train_test = D̂(test ‖ train); kl_independent = the mean over {KL_INDEPENDENT_PERMUTATIONS} draws of \
             D̂(test ‖ train with each column permuted independently). Same estimator and space as Table 1. \
             zero_distance_ties counts exact duplicates (skipped) in D̂(test ‖ train). The paper quotes geyser's \
             as < 0.001."
        )],
    }])
}

//! `kde`: the kernel density baseline of Table 1 (`004_74db43a26dbf0fa1.txt` §5.1): for each
//! dataset its leave-one-out kernel width h, the LOO and test mean log densities, and the KL over
//! its fantasy draws.

use polars::prelude::*;

use super::{dataset_of, method_of, pooled};
use crate::report::se;
use crate::report::{ReportError, Table, replicate_summaries};
use crate::rundir::{Manifest, RunDir, find};

/// One row per `method: kde` cell: `dataset, bandwidth, loo_mean_log_lik, test_mean_log_lik,
/// kl_mean, kl_2sd, fantasy_draws`, from the first finished chain's summary (the width and the
/// log densities are deterministic given the data) and the pooled `kl` trace.
///
/// Errors: unreadable chains; polars.
pub fn kde(rd: &RunDir, m: &Manifest) -> Result<Vec<Table>, ReportError> {
    let mut rows = Vec::new();
    for c in m.cells.iter() {
        if method_of(c) != "kde" {
            continue;
        }
        let summaries = replicate_summaries(rd, m, c.index, 0)?;
        let Some(s) = summaries.first() else { continue };
        let scalar = |name: &str| {
            find(s, name)
                .and_then(|x| x.values.first().copied())
                .unwrap_or(f64::NAN)
        };
        let kl = pooled(rd, m, c, "kl")?;
        let (mean, sd) = kl.mean_sd();
        let mean_se = se::mean_over_units(&kl.draws).1;
        rows.push((
            dataset_of(c),
            [
                scalar("bandwidth"),
                scalar("loo_mean_log_lik"),
                scalar("test_mean_log_lik"),
                mean,
                2.0 * sd,
            ],
            kl.draws.len() as u64,
            mean_se,
        ));
    }
    if rows.is_empty() {
        return Ok(Vec::new());
    }
    let num = |i: usize| rows.iter().map(|r| r.1[i]).collect::<Vec<f64>>();
    // Monte Carlo error (docs/checking.md, "Monte Carlo error of a table cell"): the fantasy draws are
    // independent given the fitted kernel, so the mean's se is sd/√draws with n = draws, and
    // the 2 sd's is 2 s/√(2(draws − 1)).
    let draws = |r: &(String, [f64; 5], u64, f64)| r.2;
    let df = df!(
        "dataset" => rows.iter().map(|r| r.0.clone()).collect::<Vec<_>>(),
        "bandwidth" => num(0),
        "loo_mean_log_lik" => num(1),
        "test_mean_log_lik" => num(2),
        "kl_mean" => num(3),
        "kl_2sd" => num(4),
        "fantasy_draws" => rows.iter().map(|r| r.2).collect::<Vec<_>>(),
        "kl_mean_se" => rows.iter().map(|r| r.3).collect::<Vec<_>>(),
        "kl_mean_n" => rows.iter().map(draws).collect::<Vec<_>>(),
        "kl_2sd_se" => rows
            .iter()
            .map(|r| 2.0 * se::sd_over_units(r.1[4] / 2.0, draws(r)))
            .collect::<Vec<_>>(),
    )?;
    Ok(vec![Table {
        name: "kde".into(),
        title: "KDE baseline: leave-one-out width and densities".into(),
        df,
        notes: vec![
            "Isotropic Gaussian kernel on the training data standardized by the training mean and sd; h maximizes \
             the mean leave-one-out log density (401-point log grid over [1e-3, 10], then golden section). \
             loo_mean_log_lik is in standardized space; test_mean_log_lik is in data units (standardized value \
             minus Σ_j ln sd_j). kl_mean ± kl_2sd over fantasy_draws draws of n_test points each."
                .into(),
        ],
    }])
}

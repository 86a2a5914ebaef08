//! §5.4: tables `cep_author_smc`, our SMC ln p(x) against the thesis author's stored values, and
//! `cep_author_decisions`, whether both make the same decisions.

use causeway_papers::kurutmaz2019::datasets::PairMeta;
use causeway_papers::kurutmaz2019::evaluation::decisions::{AgreementBin, decision_agreement};
use causeway_papers::kurutmaz2019::evaluation::{
    DiffSummary, LogMlRow, Scores, author_differences, scores,
};
use polars::prelude::*;

use super::thesis_fixture_rows;
use crate::report::{ReportError, Table, se};

/// A figure of a [`DiffSummary`].
type Field = fn(&DiffSummary) -> f64;

/// The thesis author's stored SMC log marginal likelihoods (J = 1000; every pair, setting,
/// hypothesis and R), compiled in for the CEP report's comparison table; provenance in
/// `tests/fixtures/cep/README.md`.
pub const AUTHOR_SMC_CSV: &str =
    include_str!("../../../../tests/fixtures/cep/thesis_smc_log_ml.csv");

/// The author's stored SMC values ([`AUTHOR_SMC_CSV`]) as rows, parsed once for both tables.
///
/// Errors: the compiled-in fixture fails to parse (a bug).
pub fn author_smc_rows(meta: &[PairMeta]) -> Result<Vec<LogMlRow>, ReportError> {
    thesis_fixture_rows(AUTHOR_SMC_CSV, "log_marginal_likelihood", "smc", meta)
}

/// Our SMC estimates against the author's stored ones (`author`, [`author_smc_rows`]) on the
/// same cells (pair, setting,
/// hypothesis, R): per R, and for all R > 1, the distribution of author − ours (nats) and the
/// largest relative difference (`evaluation::author_differences`). At R = 1 both are exact, so
/// that row checks the model; at R > 1 both are single noisy runs (J = 1000, random observation
/// orders) and only the distribution is comparable. Cells we did not compute are skipped.
///
/// Errors: a polars error.
pub fn author_smc_comparison(rows: &[LogMlRow], author: &[LogMlRow]) -> Result<Table, ReportError> {
    let groups = author_differences(rows, author);
    let col = |f: fn(&DiffSummary) -> f64| groups.iter().map(f).collect::<Vec<f64>>();
    // Monte Carlo error (docs/checking.md, "Monte Carlo error of a table cell"): the cells are the units;
    // a quantile's distribution-free se, the mean's sd/√n; the maximum is an extreme (no se).
    let mut cols: Vec<Column> = vec![
        Series::new(
            "R".into(),
            groups.iter().map(|g| g.label.clone()).collect::<Vec<_>>(),
        )
        .into(),
        Series::new(
            "cells".into(),
            groups.iter().map(|g| g.cells as u64).collect::<Vec<_>>(),
        )
        .into(),
    ];
    let n: Vec<u64> = groups.iter().map(|g| g.cells as u64).collect();
    let quantiles: [(&str, Field, f64); 5] = [
        ("median", |g| g.median, 0.5),
        ("q25", |g| g.q25, 0.25),
        ("q75", |g| g.q75, 0.75),
        ("q05", |g| g.q05, 0.05),
        ("q95", |g| g.q95, 0.95),
    ];
    for (name, f, p) in quantiles {
        cols.push(Series::new(name.into(), col(f)).into());
        let ses = groups
            .iter()
            .map(|g| se::quantile_se(&g.sorted, p))
            .collect();
        se::push_se(&mut cols, name, ses, Some(n.clone()));
    }
    let means: Vec<(f64, f64, u64)> = groups
        .iter()
        .map(|g| se::mean_over_units(&g.sorted))
        .collect();
    cols.push(Series::new("mean".into(), col(|g| g.mean)).into());
    se::push_se(
        &mut cols,
        "mean",
        means.iter().map(|m| m.1).collect(),
        Some(n.clone()),
    );
    let rel = "max |relative difference|";
    cols.push(Series::new(rel.into(), col(|g| g.max_rel)).into());
    se::push_se(&mut cols, rel, vec![f64::NAN; groups.len()], None);
    Ok(Table {
        name: "cep_author_smc".into(),
        title: "§5.4: our SMC ln p(x) against the thesis author's stored SMC values, same cells (author − ours, nats)".into(),
        df: DataFrame::new_infer_height(cols)?,
        notes: vec![
            "R = 1 has no latent variable: both values are exact and must agree to rounding (causeway's tests require 1e-8 relative).".into(),
            "R > 1: each value is one SMC run with J = 1000 particles and a random observation order on each side; on long pairs single \
             runs differ by tens of nats, so what must agree is the distribution of the differences (centred on 0), not each cell."
                .into(),
            "Author's values: tests/fixtures/cep/thesis_smc_log_ml.csv (see its README).".into(),
        ],
    })
}

/// Table `cep_author_decisions`: how often our SMC and the author's stored SMC values
/// (`author`, [`author_smc_rows`]) make the same §5.4 decision per (setting, pair) (the
/// hypothesis with the highest max-over-R ln p(x)), by the margin of our decision
/// (`evaluation::decisions`), with the binomial se of each share.
///
/// Errors: polars.
pub fn author_smc_decisions(
    ours: &Scores,
    author: &[LogMlRow],
    meta: &[PairMeta],
) -> Result<Table, ReportError> {
    let author = scores(author, "smc", meta).map_err(|e| ReportError::Other(e.to_string()))?;
    let mut bins = decision_agreement(ours, &author);
    let all = bins
        .iter()
        .fold((0u64, 0u64), |a, b| (a.0 + b.cells, a.1 + b.agree));
    let mut labels: Vec<String> = bins
        .iter()
        .map(|b| {
            if b.high.is_finite() {
                format!("[{}, {})", b.low, b.high)
            } else {
                format!(">= {}", b.low)
            }
        })
        .collect();
    labels.push("all".into());
    bins.push(AgreementBin {
        low: 0.0,
        high: f64::INFINITY,
        cells: all.0,
        agree: all.1,
    });
    let share: Vec<(f64, f64, u64)> = bins
        .iter()
        .map(|b| {
            let p = if b.cells == 0 {
                f64::NAN
            } else {
                b.agree as f64 / b.cells as f64
            };
            (p, se::binomial_se(p, b.cells), b.cells)
        })
        .collect();
    let mut cols: Vec<Column> = vec![
        Series::new("our_margin_nats".into(), labels).into(),
        Series::new(
            "decisions".into(),
            bins.iter().map(|b| b.cells).collect::<Vec<_>>(),
        )
        .into(),
        Series::new(
            "agree".into(),
            bins.iter().map(|b| b.agree).collect::<Vec<_>>(),
        )
        .into(),
    ];
    se::push_estimates(&mut cols, "share_agree", &share);
    Ok(Table {
        name: "cep_author_decisions".into(),
        title: "§5.4: the same decision from our SMC and the thesis author's stored SMC values, by our decision's margin".into(),
        df: DataFrame::new_infer_height(cols)?,
        notes: vec![
            "A decision: per (setting, pair), the hypothesis (A → B, B → A, spurious) with the highest max over R of ln p(x), \
             as Table 5.2 counts them (first on ties). our_margin_nats: our best hypothesis's value minus the runner-up's. \
             Cells missing on either side are left out."
                .into(),
        ],
    })
}

//! §5.4: table `cep_author_smc`, our SMC ln p(x) against the thesis author's stored values.

use causeway_papers::kurutmaz2019::datasets::PairMeta;
use causeway_papers::kurutmaz2019::evaluation::{DiffSummary, LogMlRow, author_differences};
use polars::prelude::*;

use super::thesis_fixture_rows;
use crate::report::{ReportError, Table};

/// The thesis author's stored SMC log marginal likelihoods (J = 1000; every pair, setting,
/// hypothesis and R), compiled in for the CEP report's comparison table; provenance in
/// `tests/fixtures/cep/README.md`.
pub const AUTHOR_SMC_CSV: &str =
    include_str!("../../../../tests/fixtures/cep/thesis_smc_log_ml.csv");

/// Our SMC estimates against the author's stored ones on the same cells (pair, setting,
/// hypothesis, R): per R, and for all R > 1, the distribution of author − ours (nats) and the
/// largest relative difference (`evaluation::author_differences`). At R = 1 both are exact, so
/// that row checks the model; at R > 1 both are single noisy runs (J = 1000, random observation
/// orders) and only the distribution is comparable. Cells we did not compute are skipped.
///
/// Errors: the compiled-in fixture fails to parse (a bug), or a polars error.
pub fn author_smc_comparison(rows: &[LogMlRow], meta: &[PairMeta]) -> Result<Table, ReportError> {
    let author = thesis_fixture_rows(AUTHOR_SMC_CSV, "log_marginal_likelihood", "smc", meta)?;
    let groups = author_differences(rows, &author);
    let col = |f: fn(&DiffSummary) -> f64| groups.iter().map(f).collect::<Vec<f64>>();
    Ok(Table {
        name: "cep_author_smc".into(),
        title: "§5.4: our SMC ln p(x) against the thesis author's stored SMC values, same cells (author − ours, nats)".into(),
        df: df!(
            "R" => groups.iter().map(|g| g.label.clone()).collect::<Vec<_>>(),
            "cells" => groups.iter().map(|g| g.cells as u64).collect::<Vec<_>>(),
            "median" => col(|g| g.median),
            "q25" => col(|g| g.q25),
            "q75" => col(|g| g.q75),
            "q05" => col(|g| g.q05),
            "q95" => col(|g| g.q95),
            "mean" => col(|g| g.mean),
            // Scientific notation: at R = 1 the differences are ~1e-11.
            "max |relative difference|" => groups.iter().map(|g| format!("{:.2e}", g.max_rel)).collect::<Vec<_>>(),
        )?,
        notes: vec![
            "R = 1 has no latent variable: both values are exact and must agree to rounding (causeway's tests require 1e-8 relative).".into(),
            "R > 1: each value is one SMC run with J = 1000 particles and a random observation order on each side; on long pairs single \
             runs differ by tens of nats, so what must agree is the distribution of the differences (centred on 0), not each cell."
                .into(),
            "Author's values: tests/fixtures/cep/thesis_smc_log_ml.csv (see its README).".into(),
        ],
    })
}

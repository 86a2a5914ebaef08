//! §5.4's 10 × 3 cross-validation: table `cep_cv` (mean ± sd over folds per method, the
//! thesis's beside) and the per-fold rows `units/cep_cv_folds.csv`.

use causeway_papers::kurutmaz2019::evaluation::{
    CV_FOLDS, CV_REPETITIONS, CvFold, CvSummary, Scores, cross_validate, summarize_cv,
};
use polars::prelude::*;

use super::reported_pm;
use crate::report::{ReportError, Table, pm, se};
use crate::rundir::{Manifest, RunDir, write_csv};

/// One method's row of `cep_cv`.
struct Row {
    method: String,
    summary: CvSummary,
    pairs: usize,
    /// Pairs whose original first column causes the second (the AUC's positives).
    forward: u64,
}

fn frame(m: &Manifest, rows: &[Row]) -> PolarsResult<DataFrame> {
    let mut cols = columns(m, rows);
    // Monte Carlo error (docs/checking.md, "Monte Carlo error of a table cell"). The folds are not
    // independent units: the 10 repetitions deal the same pairs again, and a chain seed changes
    // the figures only through each pair's scores. The pairs are the units: the mean accuracy
    // is a proportion of them (binomial se), the mean AUC has Hanley and McNeil's se with the
    // pairs as positives ("x causes y" in the original orientation) and negatives, and an sd
    // over folds s/√(2(n − 1)) with n the pairs.
    let n: Vec<u64> = rows.iter().map(|r| r.pairs as u64).collect();
    let s = &rows.iter().map(|r| &r.summary).collect::<Vec<_>>();
    let accuracy_se = s
        .iter()
        .zip(&n)
        .map(|(s, &n)| se::binomial_se(s.accuracy_mean, n))
        .collect();
    se::push_se(&mut cols, "accuracy_mean", accuracy_se, Some(n.clone()));
    let sd_se = |f: fn(&CvSummary) -> f64| -> Vec<f64> {
        s.iter()
            .zip(&n)
            .map(|(s, &n)| se::sd_over_units(f(s), n))
            .collect()
    };
    se::push_se(
        &mut cols,
        "accuracy_sd",
        sd_se(|s| s.accuracy_sd),
        Some(n.clone()),
    );
    let auc_se = rows
        .iter()
        .map(|r| se::auc_se(r.summary.auc_mean, r.forward, r.pairs as u64 - r.forward))
        .collect();
    se::push_se(&mut cols, "auc_mean", auc_se, Some(n.clone()));
    se::push_se(&mut cols, "auc_sd", sd_se(|s| s.auc_sd), Some(n));
    DataFrame::new_infer_height(cols)
}

fn columns(m: &Manifest, rows: &[Row]) -> Vec<Column> {
    let text = |f: &dyn Fn(&Row) -> String| rows.iter().map(f).collect::<Vec<_>>();
    let count = |f: &dyn Fn(&Row) -> usize| rows.iter().map(|r| f(r) as u64).collect::<Vec<_>>();
    let num =
        |f: &dyn Fn(&CvSummary) -> f64| rows.iter().map(|r| f(&r.summary)).collect::<Vec<_>>();
    let thesis =
        |path: [&str; 2]| text(&|r: &Row| reported_pm(m, &[path[0], r.method.as_str(), path[1]]));
    vec![
        Series::new("method".into(), text(&|r: &Row| r.method.clone())).into(),
        Series::new("pairs".into(), count(&|r: &Row| r.pairs)).into(),
        Series::new("folds".into(), count(&|r: &Row| r.summary.n_folds)).into(),
        Series::new(
            "accuracy (mean ± sd)".into(),
            text(&|r: &Row| pm(r.summary.accuracy_mean, r.summary.accuracy_sd)),
        )
        .into(),
        Series::new(
            "AUC (mean ± sd)".into(),
            text(&|r: &Row| pm(r.summary.auc_mean, r.summary.auc_sd)),
        )
        .into(),
        Series::new("folds with AUC".into(), count(&|r: &Row| r.summary.n_auc)).into(),
        Series::new("thesis accuracy".into(), thesis(["cv", "accuracy"])).into(),
        Series::new("thesis AUC".into(), thesis(["cv", "auc"])).into(),
        Series::new(
            "author's values, this protocol: accuracy".into(),
            thesis(["author_values_cv", "accuracy"]),
        )
        .into(),
        Series::new(
            "author's values, this protocol: AUC".into(),
            thesis(["author_values_cv", "auc"]),
        )
        .into(),
        Series::new("accuracy_mean".into(), num(&|s| s.accuracy_mean)).into(),
        Series::new("accuracy_sd".into(), num(&|s| s.accuracy_sd)).into(),
        Series::new("auc_mean".into(), num(&|s| s.auc_mean)).into(),
        Series::new("auc_sd".into(), num(&|s| s.auc_sd)).into(),
    ]
}

/// Write `units/cep_cv_folds.csv`: one row per (method, fold).
fn write_folds(rd: &RunDir, folds: &[(String, CvFold)]) -> Result<(), ReportError> {
    let mut fdf = df!(
        "method" => folds.iter().map(|f| f.0.as_str()).collect::<Vec<_>>(),
        "repetition" => folds.iter().map(|f| f.1.repetition as u64).collect::<Vec<_>>(),
        "fold" => folds.iter().map(|f| f.1.fold as u64).collect::<Vec<_>>(),
        "setting" => folds.iter().map(|f| f.1.setting as u64).collect::<Vec<_>>(),
        "train_accuracy" => folds.iter().map(|f| f.1.train_accuracy).collect::<Vec<_>>(),
        "test_accuracy" => folds.iter().map(|f| f.1.test_accuracy).collect::<Vec<_>>(),
        "test_auc" => folds.iter().map(|f| f.1.test_auc).collect::<Vec<_>>(),
        "n_test" => folds.iter().map(|f| f.1.n_test as u64).collect::<Vec<_>>(),
    )?;
    write_csv(&rd.units_dir().join("cep_cv_folds.csv"), &mut fdf)?;
    Ok(())
}

/// §5.4: the [`CV_REPETITIONS`] × [`CV_FOLDS`] cross-validation of each method's scores (seeded
/// with the experiment seed), as table `cep_cv`; writes the folds to `units/cep_cv_folds.csv`.
/// A method with too few pairs gets an empty (NaN) row and the reason in the notes.
///
/// Errors: polars or I/O failures.
pub(super) fn table(rd: &RunDir, m: &Manifest, all: &[Scores]) -> Result<Table, ReportError> {
    let mut rows = Vec::new();
    let mut folds_all: Vec<(String, CvFold)> = Vec::new();
    let mut cv_notes: Vec<String> = Vec::new();
    for sc in all {
        let method = &sc.method;
        match cross_validate(sc, CV_REPETITIONS, CV_FOLDS, m.base_seed) {
            Ok(folds) => {
                rows.push(Row {
                    method: method.clone(),
                    summary: summarize_cv(&folds),
                    pairs: sc.pairs.len(),
                    forward: sc.pairs.iter().filter(|p| p.forward).count() as u64,
                });
                folds_all.extend(folds.into_iter().map(|f| (method.clone(), f)));
            }
            // Too few pairs for the folds: an empty row (NaN), the reason in the notes.
            Err(e) => {
                cv_notes.push(format!("{method}: {e}"));
                rows.push(Row {
                    method: method.clone(),
                    summary: summarize_cv(&[]),
                    pairs: sc.pairs.len(),
                    forward: sc.pairs.iter().filter(|p| p.forward).count() as u64,
                });
            }
        }
    }
    let cv_df = frame(m, &rows)?;
    let mut notes = vec![
            format!(
                "Each of {CV_REPETITIONS} repetitions shuffles the pairs (SplitMix64 seeded with the experiment seed {}) and deals them into {CV_FOLDS} folds; \
                 per fold the setting with the best weighted training accuracy (ties: lowest number) is scored on the test fold. \
                 Decision: max_R ln p(→) against max_R ln p(←), exact ties to x → y (the thesis's rule; it reproduces Table 5.2). AUC score: max_R ln p(x → y) − max_R ln p(y → x) in the ORIGINAL file \
                 orientation with labels \"x causes y\" (in the cdt orientation every label is A → B and the AUC is undefined). \
                 Weights: weight_thesis. mean ± sample sd over folds (the thesis calls its ± a 68% CI). Per-fold rows: units/cep_cv_folds.csv.",
                m.base_seed
            ),
            "\"Author's values, this protocol\": the author's stored values (tests/fixtures/cep/) through this protocol \
             (results/tests/kurutmaz2019_cv.rs reproduces them with this code)."
            .into(),
    ];
    notes.extend(cv_notes);
    write_folds(rd, &folds_all)?;
    Ok(Table {
        name: "cep_cv".into(),
        title: format!(
            "§5.4: {CV_REPETITIONS}×{CV_FOLDS} cross-validation of the direction decision (weighted)"
        ),
        df: cv_df,
        notes,
    })
}

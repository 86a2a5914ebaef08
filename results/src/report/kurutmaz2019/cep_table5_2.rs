//! Table 5.2 (§5.4), one per method: `cep_table5_2_<method>`, pairs per decision and weighted
//! direction accuracy per setting, the thesis's values beside.

use causeway_papers::kurutmaz2019::evaluation::Scores;
use causeway_papers::kurutmaz2019::setting as table_5_1;
use polars::prelude::*;

use super::reported;
use crate::report::{ReportError, Table, se};
use crate::rundir::Manifest;

/// One setting's row: ours, and the thesis's (NaN where `reported` has none).
struct Row {
    setting: usize,
    /// `(a1, b1, a2, b2)` of Table 5.1 ("" for an unknown setting).
    hyper: String,
    /// Pairs decided →, ←, ∧ (NaN when some pair lacks a value).
    counts: [f64; 3],
    accuracy: f64,
    /// Kish's effective number of pairs behind `accuracy`.
    n_eff: f64,
    /// Pairs with all three values (the n of the counts).
    n_pairs: u64,
    /// The thesis's →, ←, ∧ and accuracy; `None` when `reported` has no row for the setting.
    thesis: Option<Vec<f64>>,
}

impl Row {
    fn thesis(&self, k: usize) -> f64 {
        self.thesis
            .as_ref()
            .and_then(|t| t.get(k).copied())
            .unwrap_or(f64::NAN)
    }
}

/// Column names after `setting` and `(a1, b1, a2, b2)`.
const NAMES: [&str; 8] = [
    "→",
    "←",
    "∧",
    "accuracy",
    "thesis →",
    "thesis ←",
    "thesis ∧",
    "thesis accuracy",
];

fn frame(rows: &[Row]) -> PolarsResult<DataFrame> {
    let mut cols: Vec<Column> = vec![
        Series::new(
            "setting".into(),
            rows.iter().map(|r| r.setting as u64).collect::<Vec<_>>(),
        )
        .into(),
        Series::new(
            "(a1, b1, a2, b2)".into(),
            rows.iter().map(|r| r.hyper.clone()).collect::<Vec<_>>(),
        )
        .into(),
    ];
    for (k, name) in NAMES.iter().enumerate() {
        let v: Vec<f64> = rows
            .iter()
            .map(|r| match k {
                0..=2 => r.counts[k],
                3 => r.accuracy,
                _ => r.thesis(k - 4),
            })
            .collect();
        cols.push(Series::new((*name).into(), v).into());
        // Monte Carlo error (docs/checking.md, "Monte Carlo error of a table cell"): each pair's decision
        // is one unit; a count of n pairs has n times the binomial se, the weighted accuracy the
        // binomial se of a proportion of its Kish effective n pairs.
        match k {
            0..=2 => se::push_se(
                &mut cols,
                name,
                rows.iter()
                    .map(|r| {
                        if r.counts[k].is_nan() {
                            f64::NAN
                        } else {
                            se::count_se(r.counts[k] as u64, r.n_pairs)
                        }
                    })
                    .collect(),
                Some(rows.iter().map(|r| r.n_pairs).collect()),
            ),
            3 => se::push_se(
                &mut cols,
                name,
                rows.iter()
                    .map(|r| se::binomial_se(r.accuracy, r.n_eff.round() as u64))
                    .collect(),
                Some(rows.iter().map(|r| r.n_eff.round() as u64).collect()),
            ),
            _ => {}
        }
    }
    DataFrame::new_infer_height(cols)
}

/// Table 5.2 of `sc.method`: per setting, the pairs decided →, ←, ∧ (`Scores::counts`,
/// original orientation) and the weighted direction accuracy over all pairs, beside the
/// thesis's (`reported.table_5_2.<method>`: rows `[setting, →, ←, ∧, accuracy]`). Each of ours
/// has its `_se` and `_n`: the pairs are the units (a count's n times the binomial se; the
/// accuracy's binomial se of a proportion of Kish's effective n pairs).
///
/// Errors: polars.
pub(super) fn table(m: &Manifest, sc: &Scores) -> Result<Table, ReportError> {
    let method = sc.method.as_str();
    let all = sc.all();
    let t52 = reported(m, &["table_5_2", method])
        .and_then(serde_json::Value::as_array)
        .cloned()
        .unwrap_or_default();
    let thesis_row = |s: usize| -> Option<Vec<f64>> {
        t52.iter()
            .filter_map(serde_json::Value::as_array)
            .find(|r| r.first().and_then(serde_json::Value::as_u64) == Some(s as u64))
            .map(|r| {
                r.iter()
                    .skip(1)
                    .map(|v| v.as_f64().unwrap_or(f64::NAN))
                    .collect()
            })
    };
    let rows: Vec<Row> = sc
        .settings
        .iter()
        .enumerate()
        .map(|(si, &s)| {
            let c = sc.counts(si);
            Row {
                setting: s,
                hyper: table_5_1(s)
                    .map(|(a1, b1, a2, b2)| format!("({a1}, {b1}, {a2}, {b2})"))
                    .unwrap_or_default(),
                counts: [0, 1, 2].map(|k| c.map_or(f64::NAN, |c| c[k] as f64)),
                accuracy: sc.accuracy(si, &all),
                n_eff: sc.accuracy_effective_n(si, &all),
                n_pairs: c.map_or(0, |c| c.iter().sum()),
                thesis: thesis_row(s),
            }
        })
        .collect();
    let mut notes = vec![format!(
        "{} pairs. Counts: argmax over the three hypotheses of max over R, in the original file orientation (→: the original first column causes the second). \
             Accuracy: weighted (weight_thesis) direction accuracy over all pairs, deciding only between → and ← (§5.4).",
        sc.pairs.len()
    )];
    if let Some(bi) = sc.best_setting() {
        notes.push(format!(
            "Measured: best setting {} (weighted accuracy {:.3}).",
            sc.settings[bi],
            sc.accuracy(bi, &all)
        ));
    }
    // Settings with both our counts and the thesis's row.
    let both: Vec<&Row> = rows
        .iter()
        .enumerate()
        .filter(|(si, r)| r.thesis.is_some() && sc.counts(*si).is_some())
        .map(|(_, r)| r)
        .collect();
    if !both.is_empty() && sc.pairs.len() >= 90 {
        let same = both
            .iter()
            .filter(|r| r.counts == [0, 1, 2].map(|k| r.thesis(k)))
            .count();
        let mad = both
            .iter()
            .map(|r| (r.accuracy - r.thesis(3)).abs())
            .sum::<f64>()
            / both.len() as f64;
        notes.push(format!("Measured against the thesis: counts identical in {same} of {} settings; mean |accuracy − thesis accuracy| = {mad:.3}.", both.len()));
    }
    Ok(Table {
        name: format!("cep_table5_2_{method}"),
        title: format!(
            "Table 5.2 ({method}): pairs per decision and weighted direction accuracy per setting"
        ),
        df: frame(&rows)?,
        notes,
    })
}

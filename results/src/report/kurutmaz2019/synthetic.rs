//! `kurutmaz2019.synthetic` (§5.3, Fig. 5.2): tables `synthetic_confusion`, `synthetic_summary`,
//! `synthetic_accuracy_by` and figure `figures/synthetic_roc.svg`.

use std::collections::{BTreeMap, BTreeSet};

use causeway_papers::kurutmaz2019::evaluation::{
    HYPOTHESES, SyntheticCase, hypothesis_name, parse_hypothesis,
};
use causeway_papers::metrics::{auc, confusion, roc_curve};
use polars::prelude::*;

use super::{cell_scalars, data_str, data_usize, param_str, param_usize, reported, reported_f64};
use crate::report::figures::{self, Line, Panel};
use crate::report::{ReportError, Table, se};
use crate::rundir::{Manifest, RunDir};

/// The synthetic datasets behind the thesis's accuracy (003, §5.3: 36 settings × R 1..5 × 3
/// hypotheses; Fig. 5.2's confusion matrices count 3 × 180).
const THESIS_DATASETS: u64 = 540;

/// The synthetic cases of a run, per method: cells grouped by dataset (the true hypothesis,
/// setting and R come from the dataset spec), max over the fitted R per fitted hypothesis.
/// Datasets missing a fitted hypothesis are left out.
///
/// Errors: unreadable summaries.
pub fn synthetic_cases(
    rd: &RunDir,
    m: &Manifest,
) -> Result<BTreeMap<String, Vec<SyntheticCase>>, ReportError> {
    let scalars = cell_scalars(rd, m, "log_marginal_likelihood")?;
    let mut acc: BTreeMap<(String, String), SyntheticCase> = BTreeMap::new();
    for c in m.cells.iter() {
        let (Some(th), Some(fh)) = (
            parse_hypothesis(&data_str(m, c.index, "hypothesis")),
            parse_hypothesis(&param_str(m, c.index, "hypothesis")),
        ) else {
            continue;
        };
        let method = param_str(m, c.index, "method");
        let e = acc
            .entry((method, c.dataset_id.clone()))
            .or_insert_with(|| SyntheticCase {
                truth: th.index(),
                setting: data_usize(m, c.index, "setting").unwrap_or(0),
                n_latent: data_usize(m, c.index, "n_latent").unwrap_or(0),
                best: [f64::NAN; 3],
            });
        for &v in scalars.get(&c.index).into_iter().flatten() {
            let slot = &mut e.best[fh.index()];
            if v.is_finite() && (slot.is_nan() || v > *slot) {
                *slot = v;
            }
        }
    }
    let mut out: BTreeMap<String, Vec<SyntheticCase>> = BTreeMap::new();
    for ((method, _), case) in acc {
        if case.best.iter().all(|v| v.is_finite()) {
            out.entry(method).or_default().push(case);
        }
    }
    Ok(out)
}

/// §5.3, Fig. 5.2: confusion matrix (rows true, columns predicted), accuracy and one-vs-rest AUC
/// of SMC and VB, with the thesis's values; accuracy by setting and by true R; ROC figure
/// `figures/synthetic_roc.svg`.
///
/// Errors: unreadable summaries; polars.
pub fn synthetic(rd: &RunDir, m: &Manifest) -> Result<Vec<Table>, ReportError> {
    let cases = synthetic_cases(rd, m)?;
    let fitted_r: BTreeSet<usize> = m
        .cells
        .iter()
        .filter_map(|c| param_usize(m, c.index, "n_latent"))
        .collect();
    let score_note = format!(
        "Decision: argmax over the three hypotheses of max over the fitted R ∈ {fitted_r:?} of ln p(x) (VB: the ELBO), fitted with the true setting. \
         One-vs-rest AUC score: log posterior odds of the class under a uniform prior over hypotheses, \
         best_k − ln Σ_{{j≠k}} exp(best_j) (ranks exactly as the softmax probability, without its floating-point saturation at 0/1)."
    );
    roc_figure(rd, &cases)?;
    Ok(vec![
        Table {
            name: "synthetic_confusion".into(),
            title: "§5.3 / Fig. 5.2: confusion matrices on the synthetic data (rows true, columns predicted)".into(),
            df: confusion_frame(m, &cases)?,
            notes: vec![
                score_note.clone(),
                "Thesis Fig. 5.2 prints the matrices with predicted classes as rows and true classes as columns (its columns sum to 180); \
                 the `thesis` columns here are transposed to rows = true."
                    .into(),
            ],
        },
        Table {
            name: "synthetic_summary".into(),
            title: "§5.3: accuracy and one-vs-rest AUC on the synthetic data".into(),
            df: summary_frame(m, &cases)?,
            notes: vec![score_note, "Thesis: SMC accuracy 0.985, AUC 0.999, 0.999, 1.0; VB accuracy 0.961, AUC 0.980, 0.988, 0.990.".into()],
        },
        Table {
            name: "synthetic_accuracy_by".into(),
            title: "§5.3: accuracy by true setting and by true R".into(),
            df: accuracy_by_frame(&cases)?,
            notes: vec![],
        },
    ])
}

/// The synthetic cases of one method: true and predicted hypotheses, in case order.
fn truth_and_prediction(cs: &[SyntheticCase]) -> (Vec<usize>, Vec<usize>) {
    (
        cs.iter().map(|c| c.truth).collect(),
        cs.iter().map(SyntheticCase::predicted).collect(),
    )
}

/// The hypotheses' names, in index order.
fn names() -> Vec<&'static str> {
    HYPOTHESES.iter().map(|h| hypothesis_name(*h)).collect()
}

/// The confusion matrices (rows true, columns predicted) of every method, beside the thesis's,
/// with the binomial se of each count.
fn confusion_frame(
    m: &Manifest,
    cases: &BTreeMap<String, Vec<SyntheticCase>>,
) -> Result<DataFrame, ReportError> {
    let names = names();
    let mut cm_method = Vec::new();
    let mut cm_true = Vec::new();
    let mut cm_ours: [Vec<u64>; 3] = Default::default();
    let mut cm_thesis: [Vec<Option<u64>>; 3] = Default::default();
    // Monte Carlo errors (docs/checking.md, "Monte Carlo error of a table cell"): counts over datasets
    // are binomial.
    let mut cm_se: [Vec<f64>; 3] = Default::default();
    for (method, cs) in cases {
        let (truth, pred) = truth_and_prediction(cs);
        let cm = confusion(&truth, &pred, 3);
        for (t, row) in cm.iter().enumerate() {
            cm_method.push(method.clone());
            cm_true.push(names[t].to_string());
            let total: u64 = row.iter().sum();
            for p in 0..3 {
                cm_se[p].push(se::count_se(row[p], total));
                cm_ours[p].push(row[p]);
                let rep = reported(m, &[method.as_str(), "confusion"])
                    .and_then(|v| v.get(t))
                    .and_then(|v| v.get(p))
                    .and_then(serde_json::Value::as_u64);
                cm_thesis[p].push(rep);
            }
        }
    }
    let mut cm_cols: Vec<Column> = vec![
        Series::new("method".into(), cm_method).into(),
        Series::new("true \\ predicted".into(), cm_true).into(),
    ];
    for p in 0..3 {
        cm_cols.push(Series::new(names[p].into(), cm_ours[p].clone()).into());
    }
    for p in 0..3 {
        cm_cols
            .push(Series::new(format!("thesis {}", names[p]).into(), cm_thesis[p].clone()).into());
    }
    for p in 0..3 {
        se::push_se(&mut cm_cols, names[p], cm_se[p].clone(), None);
    }
    Ok(DataFrame::new_infer_height(cm_cols)?)
}

/// Accuracy and one-vs-rest AUC of every method beside the thesis's, with their se (binomial;
/// Hanley and McNeil for the AUC).
fn summary_frame(
    m: &Manifest,
    cases: &BTreeMap<String, Vec<SyntheticCase>>,
) -> Result<DataFrame, ReportError> {
    let names = names();
    let mut s_method = Vec::new();
    let mut s_n = Vec::new();
    let mut s_acc = Vec::new();
    let mut s_acc_thesis = Vec::new();
    let mut s_auc: [Vec<f64>; 3] = Default::default();
    let mut s_auc_thesis: [Vec<f64>; 3] = Default::default();
    let mut s_auc_se: [Vec<f64>; 3] = Default::default();
    for (method, cs) in cases {
        let (truth, pred) = truth_and_prediction(cs);
        let correct = truth.iter().zip(&pred).filter(|(a, b)| a == b).count();
        s_method.push(method.clone());
        s_n.push(cs.len() as u64);
        s_acc.push(correct as f64 / cs.len() as f64);
        s_acc_thesis.push(reported_f64(m, &[method.as_str(), "accuracy"]));
        for k in 0..3 {
            let sc: Vec<f64> = cs.iter().map(|c| c.log_odds(k)).collect();
            let lab: Vec<bool> = truth.iter().map(|t| *t == k).collect();
            let a = auc(&sc, &lab, None);
            let n_pos = lab.iter().filter(|l| **l).count() as u64;
            s_auc_se[k].push(se::auc_se(a, n_pos, lab.len() as u64 - n_pos));
            s_auc[k].push(a);
            s_auc_thesis[k].push(
                reported(m, &[method.as_str(), "auc"])
                    .and_then(|v| v.get(k))
                    .and_then(serde_json::Value::as_f64)
                    .unwrap_or(f64::NAN),
            );
        }
    }
    let acc_se = se::binomial_ses(&s_acc, &s_n);
    let acc_n = s_n.clone();
    // `z_paper`: our accuracy against the thesis's, each a proportion of its own datasets (the
    // thesis's Fig. 5.2 matrices count THESIS_DATASETS), over √(se² + se_thesis²).
    let z_paper: Vec<Option<f64>> = s_acc
        .iter()
        .zip(&s_acc_thesis)
        .zip(&acc_se)
        .map(|((a, t), se)| {
            let se_thesis = se::binomial_se(*t, THESIS_DATASETS);
            t.is_finite()
                .then(|| (a - t) / (se.powi(2) + se_thesis.powi(2)).sqrt())
        })
        .collect();
    let mut s_cols: Vec<Column> = vec![
        Series::new("method".into(), s_method).into(),
        Series::new("datasets".into(), s_n).into(),
        Series::new("accuracy".into(), s_acc).into(),
        Series::new("thesis accuracy".into(), s_acc_thesis).into(),
    ];
    for k in 0..3 {
        s_cols.push(Series::new(format!("AUC {}", names[k]).into(), s_auc[k].clone()).into());
        s_cols.push(
            Series::new(
                format!("thesis AUC {}", names[k]).into(),
                s_auc_thesis[k].clone(),
            )
            .into(),
        );
    }
    se::push_se(&mut s_cols, "accuracy", acc_se, Some(acc_n));
    s_cols.push(Series::new("z_paper".into(), z_paper).into());
    for k in 0..3 {
        se::push_se(
            &mut s_cols,
            &format!("AUC {}", names[k]),
            s_auc_se[k].clone(),
            None,
        );
    }
    Ok(DataFrame::new_infer_height(s_cols)?)
}

/// Accuracy of every method by true setting and by true R, with its binomial se.
fn accuracy_by_frame(
    cases: &BTreeMap<String, Vec<SyntheticCase>>,
) -> Result<DataFrame, ReportError> {
    let mut g_method = Vec::new();
    let mut g_by = Vec::new();
    let mut g_val = Vec::new();
    let mut g_n = Vec::new();
    let mut g_acc = Vec::new();
    for (method, cs) in cases {
        let (_, pred) = truth_and_prediction(cs);
        for (by, key) in [("setting", 0usize), ("true R", 1)] {
            let mut groups: BTreeMap<usize, (u64, u64)> = BTreeMap::new();
            for (c, p) in cs.iter().zip(&pred) {
                let g = groups
                    .entry(if key == 0 { c.setting } else { c.n_latent })
                    .or_default();
                g.0 += 1;
                if *p == c.truth {
                    g.1 += 1;
                }
            }
            for (v, (n, ok)) in groups {
                g_method.push(method.clone());
                g_by.push(by.to_string());
                g_val.push(v as u64);
                g_n.push(n);
                g_acc.push(ok as f64 / n as f64);
            }
        }
    }
    let g_acc_se = se::binomial_ses(&g_acc, &g_n);
    let g_acc_n = g_n.clone();
    Ok(DataFrame::new_infer_height(vec![
        Series::new("method".into(), g_method).into(),
        Series::new("by".into(), g_by).into(),
        Series::new("value".into(), g_val).into(),
        Series::new("datasets".into(), g_n).into(),
        Series::new("accuracy".into(), g_acc).into(),
        Series::new("accuracy_se".into(), g_acc_se).into(),
        Series::new("accuracy_n".into(), g_acc_n).into(),
    ])?)
}

/// One-vs-rest ROC curves, a panel per method (`figures/synthetic_roc.svg`).
fn roc_figure(
    rd: &RunDir,
    cases: &BTreeMap<String, Vec<SyntheticCase>>,
) -> Result<(), ReportError> {
    let names = names();
    let mut panels = Vec::new();
    for (method, cs) in cases {
        let (truth, _) = truth_and_prediction(cs);
        let mut lines = Vec::new();
        for (k, name) in names.iter().enumerate() {
            let sc: Vec<f64> = cs.iter().map(|c| c.log_odds(k)).collect();
            let lab: Vec<bool> = truth.iter().map(|t| *t == k).collect();
            let w = vec![1.0; sc.len()];
            lines.push(Line {
                name: format!("{name} vs rest"),
                reference: false,
                points: roc_curve(&sc, &lab, Some(&w))
                    .into_iter()
                    .map(|(x, y)| (x, y, f64::NAN))
                    .collect(),
            });
        }
        panels.push(Panel {
            title: format!("{method}: one-vs-rest ROC"),
            x_label: "false positive rate".into(),
            y_label: "true positive rate".into(),
            log_x: false,
            square: true,
            scatter: false,
            lines,
        });
    }
    if !panels.is_empty() {
        let n = panels.len();
        figures::line_panels(&rd.figures_dir().join("synthetic_roc.svg"), &panels, n)?;
    }
    Ok(())
}

//! The §6 analogue of paper 000 on LUCAS0 (Figures 5 and 6): hidden causes recovered.

use polars::prelude::*;

use crate::report::figures::{self, TraceVar};
use crate::report::se;
use crate::report::{
    Convergence, ReportError, Table, append_convergence, chain_draws, json_text, u64s,
};
use crate::rundir::{Manifest, RunDir, find};
use causeway_papers::Matrix;
use causeway_papers::metrics::auc;

/// §6 analogue on LUCAS: traces and histograms of ε, λ, p, α and K+ (Figure 5), the MAP
/// structure (Figure 6) as a table of hidden causes and their children, and the AUC of each
/// hidden true column against the best-matching inferred cause.
pub fn lucas(rd: &RunDir, m: &Manifest, conv: &Convergence) -> Result<Vec<Table>, ReportError> {
    let mut tables = Vec::new();
    for c in &m.cells {
        let jobs: Vec<_> = m
            .jobs
            .iter()
            .filter(|j| j.cell == c.index && rd.chain_done(&j.job_id))
            .collect();
        if jobs.is_empty() {
            continue;
        }
        // Figure 5.
        let mut vars = Vec::new();
        for name in ["epsilon", "lambda", "p", "alpha", "k_plus"] {
            let mut chains = Vec::new();
            for j in &jobs {
                let df = rd.read_trace(&j.job_id)?;
                let Ok(v) = df.column(name) else { continue };
                let it = u64s(&df, "iteration")?;
                let v: Vec<f64> = v.f64()?.iter().map(|x| x.unwrap_or(f64::NAN)).collect();
                chains.push(it.iter().map(|&i| i as f64).zip(v).collect::<Vec<_>>());
            }
            let pooled: Vec<f64> = chain_draws(rd, m, c.index, 0, name)?
                .into_iter()
                .flatten()
                .collect();
            vars.push(TraceVar {
                name: name.into(),
                chains,
                pooled,
            });
        }
        figures::trace_panels(
            &rd.figures_dir()
                .join(format!("lucas_traces_cell{}.svg", c.index)),
            &vars,
        )?;

        // MAP over chains.
        let mut best: Option<(f64, Vec<Matrix>)> = None;
        for j in &jobs {
            let s = rd.read_summary(&j.job_id)?;
            let lj = find(&s, "map_log_joint").map_or(f64::NEG_INFINITY, |x| {
                x.values.first().copied().unwrap_or(f64::NEG_INFINITY)
            });
            if best.as_ref().is_none_or(|b| lj > b.0) {
                best = Some((lj, s));
            }
        }
        let Some((map_lj, summary)) = best else {
            continue;
        };
        let (Some(map_z), Some(y_mean)) = (find(&summary, "map_z"), find(&summary, "map_y_mean"))
        else {
            continue;
        };
        let data = rd.read_dataset(&c.dataset_id, 0)?;
        let names: Vec<String> = if map_z.row_names.len() == map_z.rows {
            map_z.row_names.clone()
        } else {
            data.observed("x")
                .map(|x| x.row_names.clone())
                .unwrap_or_default()
        };
        let hidden = data.truth("hidden");
        let t = y_mean.cols;
        // AUC of every (inferred cause, hidden column).
        let mut auc_kh = vec![vec![f64::NAN; hidden.map_or(0, |h| h.rows)]; map_z.cols];
        if let Some(h) = hidden {
            for (k, row) in auc_kh.iter_mut().enumerate() {
                let scores = &y_mean.values[k * t..(k + 1) * t];
                for (hh, slot) in row.iter_mut().enumerate() {
                    let labels: Vec<bool> = h.values[hh * h.cols..(hh + 1) * h.cols]
                        .iter()
                        .map(|v| *v > 0.5)
                        .collect();
                    *slot = auc(scores, &labels, None);
                }
            }
        }
        let children = |k: usize| -> Vec<String> {
            (0..map_z.rows)
                .filter(|&i| map_z.get(i, k) > 0.5)
                .map(|i| names.get(i).cloned().unwrap_or_else(|| format!("x{i}")))
                .collect()
        };
        let hidden_names: Vec<String> = hidden.map(|h| h.row_names.clone()).unwrap_or_default();
        // Monte Carlo error of an AUC (README, "Monte Carlo error of a table cell"): Hanley and
        // McNeil's se with the hidden column's positive and negative trials as the units.
        let auc_se = |hh: Option<usize>, a: f64| -> f64 {
            let Some((h, hh)) = hidden.zip(hh) else {
                return f64::NAN;
            };
            let row = &h.values[hh * h.cols..(hh + 1) * h.cols];
            let n_pos = row.iter().filter(|v| **v > 0.5).count() as u64;
            se::auc_se(a, n_pos, row.len() as u64 - n_pos)
        };
        let mut cause = Vec::new();
        let mut kids = Vec::new();
        let mut best_match = Vec::new();
        let mut best_auc = Vec::new();
        let mut best_auc_se = Vec::new();
        for (k, auc_h) in auc_kh.iter().enumerate().take(map_z.cols) {
            cause.push(format!("cause {}", k + 1));
            kids.push(children(k).join(", "));
            let (h, a) = auc_h
                .iter()
                .enumerate()
                .fold((None, f64::NAN), |(bh, ba), (h, &a)| {
                    if a.is_finite() && (ba.is_nan() || a > ba) {
                        (Some(h), a)
                    } else {
                        (bh, ba)
                    }
                });
            best_match.push(
                h.and_then(|h| hidden_names.get(h).cloned())
                    .unwrap_or_default(),
            );
            best_auc.push(a);
            best_auc_se.push(auc_se(h, a));
        }
        let mut notes = vec![format!(
            "MAP sample over {} chains (log joint {:.2}); children are the observed variables with z_ik = 1. Paper 000 §6 used the (non-public) \
             stroke data bank; LUCAS0 is the public stand-in.",
            jobs.len(),
            map_lj
        )];
        // Hidden columns: best-matching cause and recovery check.
        let expected = m
            .reported
            .get("true_children")
            .and_then(|v| v.as_object())
            .cloned()
            .unwrap_or_default();
        let mut h_name = Vec::new();
        let mut h_cause = Vec::new();
        let mut h_auc = Vec::new();
        let mut h_auc_se = Vec::new();
        let mut h_children = Vec::new();
        let mut h_expected = Vec::new();
        let mut h_recovered = Vec::new();
        for (hh, hn) in hidden_names.iter().enumerate() {
            let (k, a) = (0..map_z.cols).fold((None, f64::NAN), |(bk, ba), k| {
                let a = auc_kh[k][hh];
                if a.is_finite() && (ba.is_nan() || a > ba) {
                    (Some(k), a)
                } else {
                    (bk, ba)
                }
            });
            let ch = k.map(children).unwrap_or_default();
            let exp: Vec<String> = expected
                .get(hn)
                .and_then(|v| v.as_array())
                .map(|a| a.iter().map(json_text).collect())
                .unwrap_or_default();
            let rec = !exp.is_empty() && exp.iter().all(|e| ch.contains(e));
            h_name.push(hn.clone());
            h_cause.push(
                k.map(|k| format!("cause {}", k + 1))
                    .unwrap_or_else(|| "none".into()),
            );
            h_auc.push(a);
            h_auc_se.push(auc_se(Some(hh), a));
            h_children.push(ch.join(", "));
            h_expected.push(exp.join(", "));
            h_recovered.push(if exp.is_empty() {
                "n/a"
            } else if rec {
                "yes"
            } else {
                "no"
            });
            notes.push(format!(
                "Measured: hidden {hn} best matches {} with AUC {:.3}; its children: [{}]; true children: [{}]; recovered: {}.",
                h_cause.last().map(String::as_str).unwrap_or(""),
                a,
                ch.join(", "),
                exp.join(", "),
                h_recovered.last().copied().unwrap_or("n/a")
            ));
        }
        let cells_v = vec![c.index];
        let mut conv_cols: Vec<Column> = Vec::new();
        append_convergence(&mut conv_cols, m, conv, &cells_v);
        tables.push(Table {
            name: format!("lucas_map_structure_cell{}", c.index),
            title: "LUCAS: MAP structure (hidden causes and their children, Figure 6 analogue)"
                .into(),
            df: DataFrame::new_infer_height(vec![
                Series::new("cause".into(), cause).into(),
                Series::new("children".into(), kids).into(),
                Series::new("best-matching hidden column".into(), best_match).into(),
                Series::new("AUC".into(), best_auc).into(),
                Series::new("AUC_se".into(), best_auc_se).into(),
            ])?,
            notes,
        });
        tables.push(Table {
            name: format!("lucas_hidden_auc_cell{}", c.index),
            title: "LUCAS: recovery of the hidden columns".into(),
            df: DataFrame::new_infer_height(vec![
                Series::new("hidden column".into(), h_name).into(),
                Series::new("best-matching cause".into(), h_cause).into(),
                Series::new("AUC of posterior mean y_kt".into(), h_auc).into(),
                Series::new("AUC of posterior mean y_kt_se".into(), h_auc_se).into(),
                Series::new("its children".into(), h_children).into(),
                Series::new("true children".into(), h_expected).into(),
                Series::new("recovered".into(), h_recovered).into(),
            ])?,
            notes: vec!["AUC of the posterior mean of y_kt (given the MAP Z and hyperparameters) against the hidden column.".into()],
        });
        tables.push(Table {
            name: format!("lucas_convergence_cell{}", c.index),
            title: "LUCAS: convergence".into(),
            df: DataFrame::new_infer_height(conv_cols)?,
            notes: vec![],
        });
    }
    Ok(tables)
}

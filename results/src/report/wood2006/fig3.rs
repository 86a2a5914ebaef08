//! Figure 3 of paper 000: the posterior number of hidden causes against the true K.

use polars::prelude::*;

use crate::report::figures::{self, Line, Panel};
use crate::report::{
    Convergence, ReportError, Table, append_convergence, axis_columns, chain_draws, f64s,
    json_text, mean_sd_by, pm_column, u64s,
};
use crate::rundir::{Manifest, RunDir};
use causeway_papers::metrics::mean_sd;

use super::{replicates, sampler_of};

/// Figure 3: for each true K, sampler and initialisation, mean ± sd over datasets of the
/// posterior mean of K+ (Gibbs) or K (RJMCMC). Per dataset, the posterior mean averages the
/// post-burn-in draws of all its chains.
pub fn fig3(rd: &RunDir, m: &Manifest, conv: &Convergence) -> Result<Vec<Table>, ReportError> {
    let mut cell_col = Vec::new();
    let mut rep_col = Vec::new();
    let mut est_col = Vec::new();
    for c in &m.cells {
        let scalar = if sampler_of(m, c.index) == "rjmcmc" {
            "k"
        } else {
            "k_plus"
        };
        for r in 0..replicates(m) {
            let draws = chain_draws(rd, m, c.index, r, scalar)?;
            let all: Vec<f64> = draws.into_iter().flatten().collect();
            if all.is_empty() {
                continue;
            }
            cell_col.push(c.index as u64);
            rep_col.push(r);
            est_col.push(all.iter().sum::<f64>() / all.len() as f64);
        }
    }
    let long = df!("cell" => cell_col, "replicate" => rep_col, "posterior_mean_k" => est_col)?;
    let agg = mean_sd_by(&long, &["cell"], &["posterior_mean_k"])?;
    let cells: Vec<usize> = u64s(&agg, "cell")?
        .into_iter()
        .map(|c| c as usize)
        .collect();
    let means = f64s(&agg, "posterior_mean_k_mean")?;
    let sds = f64s(&agg, "posterior_mean_k_sd")?;
    let true_k: Vec<f64> = cells
        .iter()
        .map(|&c| {
            m.cells[c]
                .dataset
                .get("k_plus")
                .and_then(|v| v.as_f64())
                .unwrap_or(f64::NAN)
        })
        .collect();
    let mut cols = axis_columns(m, &cells);
    cols.push(pm_column(
        "posterior mean of K (mean ± sd over datasets)",
        &means,
        &sds,
    ));
    cols.push(Series::new("mean".into(), means.clone()).into());
    cols.push(Series::new("sd".into(), sds.clone()).into());
    cols.push(agg.column("count")?.clone().with_name("datasets".into()));
    append_convergence(&mut cols, m, conv, &cells);

    // The paper's findings, checked on these numbers.
    let mut notes = vec![
        "Paper 000 §5, Figure 3 (shown only as a plot): Gibbs lands close to the true K whatever the initialisation \
         (slight over-estimate); RJMCMC started from K=1 under-estimates."
            .to_string(),
    ];
    let row = |s: &str, init: &str| -> Vec<(f64, f64)> {
        cells
            .iter()
            .enumerate()
            .filter(|(_, c)| {
                sampler_of(m, **c) == s
                    && m.cells[**c].param("init").map(json_text).as_deref() == Some(init)
            })
            .map(|(i, _)| (true_k[i], means[i]))
            .collect()
    };
    for (s, init) in [
        ("gibbs", "empty"),
        ("gibbs", "random"),
        ("rjmcmc", "empty"),
        ("rjmcmc", "random"),
    ] {
        let r = row(s, init);
        if r.is_empty() {
            continue;
        }
        let bias: Vec<f64> = r.iter().map(|(k, e)| e - k).collect();
        let (mb, _) = mean_sd(&bias);
        let max_abs = bias.iter().fold(0.0f64, |a, b| a.max(b.abs()));
        notes.push(format!(
            "Measured: {s} from init={init}: mean (estimate − true K) = {mb:+.2}, max |estimate − true K| = {max_abs:.2} over {} true K values.",
            r.len()
        ));
    }
    // Figure.
    let mut lines = Vec::new();
    for (s, init) in [
        ("gibbs", "empty"),
        ("gibbs", "random"),
        ("rjmcmc", "empty"),
        ("rjmcmc", "random"),
    ] {
        let pts: Vec<(f64, f64, f64)> = cells
            .iter()
            .enumerate()
            .filter(|(_, c)| {
                sampler_of(m, **c) == s
                    && m.cells[**c].param("init").map(json_text).as_deref() == Some(init)
            })
            .map(|(i, _)| (true_k[i], means[i], sds[i]))
            .collect();
        if !pts.is_empty() {
            lines.push(Line {
                name: format!("{s}, init {init}"),
                points: pts,
            });
        }
    }
    let max_k = true_k.iter().copied().fold(0.0, f64::max);
    lines.push(Line {
        name: "truth".into(),
        points: (1..=max_k as usize)
            .map(|k| (k as f64, k as f64, f64::NAN))
            .collect(),
    });
    figures::line_panels(
        &rd.figures_dir().join("fig3_k_recovery.svg"),
        &[Panel {
            title: "Figure 3: estimated vs true number of causes".into(),
            x_label: "true K".into(),
            y_label: "posterior mean of K".into(),
            log_x: false,
            lines,
        }],
        1,
    )?;
    Ok(vec![Table {
        name: "fig3".into(),
        title: "Figure 3: learning the number of hidden causes".into(),
        df: DataFrame::new_infer_height(cols)?,
        notes,
    }])
}

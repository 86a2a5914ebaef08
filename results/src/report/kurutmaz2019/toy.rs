//! `kurutmaz2019.toy` (§5.2, Fig. 5.1): table `toy` and figure `figures/toy_fig5_1.svg`.

use std::collections::{BTreeMap, BTreeSet};

use causeway_papers::kurutmaz2019::evaluation::{
    HYPOTHESES, LogZStats, best_index, hypothesis_name, log_z_stats, parse_hypothesis,
};
use polars::prelude::*;

use super::{cell_scalars, param_str, param_usize};
use crate::report::figures::{self, Line, Panel};
use crate::report::{ReportError, Table, fmt_f64, pm, se};
use crate::rundir::{Manifest, RunDir};

/// Per (hypothesis, R) of the toy figure: SMC `(J, stats)` points, and the VB stats.
type ToySeries = (Vec<(f64, LogZStats)>, Option<LogZStats>);

/// §5.2, Fig. 5.1: for each hypothesis and R, the exact ln p(x) (enumeration, eq. 5.1), the SMC
/// estimates for each J (mean ± sd of ln Ẑ, its 2.5–97.5% interval, ln of the mean Ẑ with a
/// delta-method 95% interval), and the VB ELBO (maximum and mean over runs), all over the
/// cell's chains (the runs; one dataset for all). Figure `figures/toy_fig5_1.svg`.
///
/// Errors: unreadable summaries; polars.
pub fn toy(rd: &RunDir, m: &Manifest) -> Result<Vec<Table>, ReportError> {
    let (exact, est) = gather(rd, m)?;
    let (df, fig, coverage) = rows(&exact, &est)?;
    let notes = notes(&exact, &fig, coverage);
    figure(rd, &exact, &fig)?;
    Ok(vec![Table {
        name: "toy".into(),
        title: "§5.2 / Fig. 5.1: exact ln p(x) against SMC (over J) and VB on the toy data".into(),
        df,
        notes,
    }])
}

/// (hypothesis, R) → exact ln p(x).
type Exact = BTreeMap<(usize, usize), f64>;
/// (hypothesis, R, method, J) → the runs' values of ln Ẑ (or the ELBO).
type Estimates = BTreeMap<(usize, usize, String, usize), Vec<f64>>;
/// (hypothesis, R) → the figure's series.
type Figure = BTreeMap<(usize, usize), ToySeries>;

/// Every cell's exact value or estimates.
fn gather(rd: &RunDir, m: &Manifest) -> Result<(Exact, Estimates), ReportError> {
    // (hypothesis, R) → exact; (hypothesis, R, method, J) → values.
    let mut exact: Exact = BTreeMap::new();
    let scalars = cell_scalars(rd, m, "log_marginal_likelihood")?;
    let mut est: Estimates = BTreeMap::new();
    for c in m.cells.iter() {
        let (Some(h), Some(r)) = (
            parse_hypothesis(&param_str(m, c.index, "hypothesis")),
            param_usize(m, c.index, "n_latent"),
        ) else {
            continue;
        };
        let method = param_str(m, c.index, "method");
        let vals = scalars.get(&c.index).map_or(&[][..], Vec::as_slice);
        if method == "exact" {
            if let Some(v) = vals.first() {
                exact.insert((h.index(), r), *v);
            }
        } else {
            let j = if method == "smc" {
                param_usize(m, c.index, "n_particles").unwrap_or(1000)
            } else {
                0
            };
            est.entry((h.index(), r, method, j))
                .or_default()
                .extend(vals);
        }
    }
    Ok((exact, est))
}

/// The table's rows (exact, then each method and J, per hypothesis and R), the figure's
/// series, and (covered, SMC cells) of the CI of ln E[Ẑ].
fn rows(
    exact: &Exact,
    est: &Estimates,
) -> Result<(DataFrame, Figure, (usize, usize)), ReportError> {
    let mut c_h = Vec::new();
    let mut c_r = Vec::new();
    let mut c_method = Vec::new();
    let mut c_j = Vec::new();
    let mut c_n = Vec::new();
    let mut c_exact = Vec::new();
    let mut c_mean = Vec::new();
    let mut c_int = Vec::new();
    let mut c_lm = Vec::new();
    let mut c_lm_ci = Vec::new();
    let mut c_max = Vec::new();
    let mut c_d_mean = Vec::new();
    let mut c_d_lm = Vec::new();
    let mut c_d_max = Vec::new();
    let mut c_covers = Vec::new();
    // Monte Carlo errors (docs/checking.md, "Monte Carlo error of a table cell"), over the cell's runs.
    let mut se_lm = Vec::new();
    let mut se_d_mean = Vec::new();
    let mut se_max = Vec::new();
    let mut keys: BTreeSet<(usize, usize)> = exact.keys().copied().collect();
    keys.extend(est.keys().map(|k| (k.0, k.1)));
    // Figure series: per (h, R): (J, stats) for smc; vb stats.
    let mut fig: Figure = BTreeMap::new();
    let mut coverage = (0usize, 0usize);
    for (h, r) in keys {
        let ex = exact.get(&(h, r)).copied().unwrap_or(f64::NAN);
        let mut push_row = |method: &str, j: Option<usize>, s: Option<LogZStats>| {
            c_h.push(hypothesis_name(HYPOTHESES[h]).to_string());
            c_r.push(r as u64);
            c_method.push(method.to_string());
            c_j.push(j.map(|j| j.to_string()).unwrap_or_default());
            c_exact.push(ex);
            match s {
                Some(s) => {
                    c_n.push(s.n as u64);
                    c_mean.push(pm(s.mean_log, s.sd_log));
                    c_int.push(format!("[{}, {}]", fmt_f64(s.q025), fmt_f64(s.q975)));
                    let smc = method == "smc";
                    c_lm.push(if smc { s.log_mean } else { f64::NAN });
                    c_lm_ci.push(if smc && s.log_mean_se.is_finite() {
                        format!(
                            "[{}, {}]",
                            fmt_f64(s.log_mean - 1.96 * s.log_mean_se),
                            fmt_f64(s.log_mean + 1.96 * s.log_mean_se)
                        )
                    } else {
                        String::new()
                    });
                    c_max.push(s.max_log);
                    c_d_mean.push(s.mean_log - ex);
                    c_d_lm.push(if smc { s.log_mean - ex } else { f64::NAN });
                    c_d_max.push(s.max_log - ex);
                    let cov = if smc && s.log_mean_se.is_finite() && ex.is_finite() {
                        // A relative tolerance of 1e-9 covers the exact-equality case (R = 1, sd 0).
                        let ok = (s.log_mean - ex).abs()
                            <= 1.96 * s.log_mean_se + 1e-9 * ex.abs().max(1.0);
                        coverage.1 += 1;
                        if ok {
                            coverage.0 += 1;
                        }
                        if ok { "yes" } else { "no" }
                    } else {
                        ""
                    };
                    c_covers.push(cov.to_string());
                    se_lm.push(if smc { s.log_mean_se } else { f64::NAN });
                    se_d_mean.push(s.sd_log / (s.n as f64).sqrt());
                    // A maximum over runs has no standard error (not tested), unless every run
                    // gave the same value.
                    se_max.push(if s.sd_log == 0.0 { 0.0 } else { f64::NAN });
                }
                None => {
                    c_n.push(1);
                    c_mean.push(fmt_f64(ex));
                    c_int.push(String::new());
                    c_lm.push(f64::NAN);
                    c_lm_ci.push(String::new());
                    c_max.push(ex);
                    c_d_mean.push(0.0);
                    c_d_lm.push(f64::NAN);
                    c_d_max.push(0.0);
                    c_covers.push(String::new());
                    se_lm.push(0.0);
                    se_d_mean.push(0.0);
                    se_max.push(0.0);
                }
            }
        };
        if ex.is_finite() {
            push_row("exact", None, None);
        }
        let entry = fig.entry((h, r)).or_insert_with(|| (Vec::new(), None));
        for ((hh, rr, method, j), vals) in est {
            if (*hh, *rr) != (h, r) {
                continue;
            }
            let s = log_z_stats(vals);
            if method == "smc" {
                entry.0.push((*j as f64, s));
                push_row("smc", Some(*j), Some(s));
            } else {
                entry.1 = Some(s);
                push_row(method, None, Some(s));
            }
        }
    }
    let runs = c_n.clone();
    let mut cols: Vec<Column> = vec![
        Series::new("hypothesis".into(), c_h).into(),
        Series::new("R".into(), c_r).into(),
        Series::new("method".into(), c_method).into(),
        Series::new("J".into(), c_j).into(),
        Series::new("runs".into(), c_n).into(),
        Series::new("exact ln p(x)".into(), c_exact).into(),
        Series::new("mean ± sd of ln Ẑ".into(), c_mean).into(),
        Series::new("2.5–97.5% of ln Ẑ".into(), c_int).into(),
        Series::new("ln mean Ẑ".into(), c_lm).into(),
        Series::new("95% CI of ln E[Ẑ]".into(), c_lm_ci).into(),
        Series::new("max ln Ẑ".into(), c_max).into(),
        Series::new("mean ln Ẑ − exact".into(), c_d_mean).into(),
        Series::new("ln mean Ẑ − exact".into(), c_d_lm).into(),
        Series::new("max − exact".into(), c_d_max).into(),
        Series::new("CI covers exact".into(), c_covers).into(),
    ];
    // ln mean Ẑ: the delta-method se sd(Ẑ)/(√n mean Ẑ); mean ln Ẑ − exact: sd(ln Ẑ)/√n (the
    // exact value has no error, so the difference's se is the estimate's). n = runs.
    for (name, se_col) in [
        ("ln mean Ẑ", &se_lm),
        ("mean ln Ẑ − exact", &se_d_mean),
        ("ln mean Ẑ − exact", &se_lm),
    ] {
        se::push_se(&mut cols, name, se_col.clone(), Some(runs.clone()));
    }
    se::push_se(&mut cols, "max ln Ẑ", se_max.clone(), None);
    se::push_se(&mut cols, "max − exact", se_max, None);
    let df = DataFrame::new_infer_height(cols)?;

    Ok((df, fig, coverage))
}

/// The table's notes: the thesis's claims, then what this run measured.
fn notes(exact: &Exact, fig: &Figure, coverage: (usize, usize)) -> Vec<String> {
    // Model selection on the toy data (thesis: every method picks the true a_to_b at every R).
    let mut notes = vec![
        "Thesis §5.2, Fig. 5.1 (plotted only): SMC estimates are unbiased and their spread shrinks as J grows; for R = 1 SMC and VB equal \
         the exact value; the ELBO stays a little below the exact value (\"a harmless level\"); every method picks the true hypothesis \
         (a_to_b) whatever R."
            .to_string(),
        "Ẑ is unbiased for p(x), so ln Ẑ is biased low (Jensen): mean ln Ẑ < ln p(x) for small J, while ln mean Ẑ is consistent for ln p(x). \
         The CI of ln E[Ẑ] is ln mean Ẑ ± 1.96 · sd(Ẑ)/(√n · mean Ẑ) (delta method; unreliable when a few runs dominate the mean, i.e. small J). \
         VB rows: the ELBO over the runs (random initialisations); \"max ln Ẑ\" is the thesis's VB estimate, the maximum ELBO."
            .to_string(),
    ];
    if coverage.1 > 0 {
        notes.push(format!(
            "Measured: the 95% CI of ln E[Ẑ] covers the exact value in {} of {} SMC cells.",
            coverage.0, coverage.1
        ));
    }
    let rs: BTreeSet<usize> = fig.keys().map(|k| k.1).collect();
    for r in &rs {
        let gaps: Vec<String> = (0..3)
            .filter_map(|h| {
                let v = fig.get(&(h, *r))?.1?;
                let ex = exact.get(&(h, *r))?;
                Some(format!(
                    "{} {:+.3}",
                    hypothesis_name(HYPOTHESES[h]),
                    v.max_log - ex
                ))
            })
            .collect();
        let ln_fact: f64 = (1..=*r).map(|k| (k as f64).ln()).sum();
        if !gaps.is_empty() {
            notes.push(format!(
                "Measured, R = {r}: max ELBO − exact: {}; for comparison ln R! = {ln_fact:.3}, the evidence a single-mode mean-field Q loses on an R!-fold \
                 label-symmetric posterior.",
                gaps.join(", ")
            ));
        }
    }
    for r in &rs {
        let pick = |f: &dyn Fn(usize) -> f64| -> String {
            let v: Vec<f64> = (0..3).map(f).collect();
            match best_index(&v) {
                Some(i) => hypothesis_name(HYPOTHESES[i]).to_string(),
                None => "n/a".into(),
            }
        };
        let ex = pick(&|h| exact.get(&(h, *r)).copied().unwrap_or(f64::NAN));
        let smc = pick(&|h| {
            fig.get(&(h, *r))
                .and_then(|e| e.0.iter().max_by(|a, b| a.0.total_cmp(&b.0)))
                .map_or(f64::NAN, |(_, s)| s.log_mean)
        });
        let vb = pick(&|h| {
            fig.get(&(h, *r))
                .and_then(|e| e.1)
                .map_or(f64::NAN, |s| s.max_log)
        });
        notes.push(format!("Measured, R = {r}: hypothesis picked by exact: {ex}; by SMC (largest J, ln mean Ẑ): {smc}; by VB (max ELBO): {vb}."));
    }

    notes
}

/// Figure 5.1 (`figures/toy_fig5_1.svg`).
fn figure(rd: &RunDir, exact: &Exact, fig: &Figure) -> Result<(), ReportError> {
    // Figure 5.1: rows R, columns hypotheses.
    let rs: BTreeSet<usize> = fig.keys().map(|k| k.1).collect();
    let mut panels = Vec::new();
    for r in &rs {
        for (h, hyp) in HYPOTHESES.iter().enumerate() {
            let Some((smc, vb)) = fig.get(&(h, *r)) else {
                continue;
            };
            let js: Vec<f64> = smc.iter().map(|(j, _)| *j).collect();
            let (j0, j1) = (
                js.iter().copied().fold(f64::INFINITY, f64::min),
                js.iter().copied().fold(f64::NEG_INFINITY, f64::max),
            );
            let flat = |y: f64| {
                if j0.is_finite() {
                    vec![(j0, y, f64::NAN), (j1, y, f64::NAN)]
                } else {
                    Vec::new()
                }
            };
            let mut lines = vec![
                Line {
                    name: "SMC mean ln Ẑ ± sd".into(),
                    reference: false,
                    points: smc
                        .iter()
                        .map(|(j, s)| (*j, s.mean_log, s.sd_log))
                        .collect(),
                },
                Line {
                    name: "SMC ln mean Ẑ".into(),
                    reference: false,
                    points: smc
                        .iter()
                        .map(|(j, s)| (*j, s.log_mean, f64::NAN))
                        .collect(),
                },
            ];
            if let Some(ex) = exact.get(&(h, *r)) {
                lines.push(Line {
                    name: "exact".into(),
                    reference: true,
                    points: flat(*ex),
                });
            }
            if let Some(v) = vb {
                lines.push(Line {
                    name: "VB max ELBO".into(),
                    reference: false,
                    points: flat(v.max_log),
                });
            }
            panels.push(Panel {
                title: format!("R = {r}, {}", hypothesis_name(*hyp)),
                x_label: "J (particles)".into(),
                y_label: "ln p(x)".into(),
                log_x: true,
                square: false,
                scatter: false,
                lines,
            });
        }
    }
    if !panels.is_empty() {
        figures::line_panels(&rd.figures_dir().join("toy_fig5_1.svg"), &panels, 3)?;
    }
    Ok(())
}

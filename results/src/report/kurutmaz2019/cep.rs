//! `kurutmaz2019.cep` (§5.4, Table 5.2, Fig. 5.3): reads the run's log marginal likelihoods
//! (`units/log_ml.csv`), builds Table 5.2 per method ([`super::cep_table5_2`]), the
//! cross-validation ([`super::cep_cv`]), the spurious pairs ([`super::cep_spurious`]), the
//! comparison with the author's values ([`super::cep_author_smc`]) and the ROC figure
//! `figures/cep_roc.svg`.

use std::collections::BTreeSet;

use causeway_papers::kurutmaz2019::evaluation::{
    LogMlRow, Scores, hypothesis_name, parse_hypothesis, scores,
};
use causeway_papers::metrics::{auc, roc_curve};
use polars::prelude::*;

use super::{
    cell_scalars, cep_author_smc, cep_cv, cep_spurious, cep_table5_2, data_str, pairs_meta,
    param_str, param_usize,
};
use crate::report::figures::{self, Line, Panel};
use crate::report::{ReportError, Table, fmt_f64};
use crate::rundir::{Manifest, RunDir, write_csv};

/// Every finished one-shot CEP job of the run as a [`LogMlRow`] (`log_marginal_likelihood`
/// summary; the ELBO for `vb`). Cells without a `dataset.pair`, a `params.setting` or a known
/// hypothesis are skipped.
///
/// Errors: unreadable summaries.
pub fn cep_rows(rd: &RunDir, m: &Manifest) -> Result<Vec<LogMlRow>, ReportError> {
    let scalars = cell_scalars(rd, m, "log_marginal_likelihood")?;
    let mut out = Vec::new();
    for c in m.cells.iter() {
        let pair = data_str(m, c.index, "pair");
        let (Some(setting), Some(h), Some(r)) = (
            param_usize(m, c.index, "setting"),
            parse_hypothesis(&param_str(m, c.index, "hypothesis")),
            param_usize(m, c.index, "n_latent"),
        ) else {
            continue;
        };
        if pair.is_empty() {
            continue;
        }
        let method = param_str(m, c.index, "method");
        for &v in scalars.get(&c.index).into_iter().flatten() {
            out.push(LogMlRow {
                pair: pair.clone(),
                setting,
                hypothesis: h,
                n_latent: r,
                method: method.clone(),
                seed: m.chains_seed(),
                value: v,
            });
        }
    }
    Ok(out)
}

/// Write `units/log_ml.csv` (columns `pair, setting, hypothesis, n_latent, method, seed,
/// log_marginal_likelihood`; hypothesis in the cdt orientation): one job's single estimate per
/// row, the units behind Table 5.2 and the cross-validation, so in `units/`, not `tables/`
/// (no Monte Carlo error of its own; the `seed` differs between chain seeds by construction).
///
/// Errors: polars or I/O failures.
pub fn write_log_ml_csv(rd: &RunDir, rows: &[LogMlRow]) -> Result<(), ReportError> {
    let mut df = df!(
        "pair" => rows.iter().map(|r| r.pair.as_str()).collect::<Vec<_>>(),
        "setting" => rows.iter().map(|r| r.setting as u64).collect::<Vec<_>>(),
        "hypothesis" => rows.iter().map(|r| hypothesis_name(r.hypothesis)).collect::<Vec<_>>(),
        "n_latent" => rows.iter().map(|r| r.n_latent as u64).collect::<Vec<_>>(),
        "method" => rows.iter().map(|r| r.method.as_str()).collect::<Vec<_>>(),
        "seed" => rows.iter().map(|r| r.seed).collect::<Vec<_>>(),
        "log_marginal_likelihood" => rows.iter().map(|r| r.value).collect::<Vec<_>>(),
    )?;
    write_csv(&rd.units_dir().join("log_ml.csv"), &mut df)?;
    Ok(())
}

/// The weighted ROC curve of `sc` at its best setting (`None` without one).
fn roc_panel(sc: &Scores) -> Option<Panel> {
    let bi = sc.best_setting()?;
    let (s, l, w) = sc.roc_inputs(bi, &sc.all());
    let a = auc(&s, &l, Some(&w));
    Some(Panel {
        title: format!(
            "{}, setting {} (weighted AUC {})",
            sc.method,
            sc.settings[bi],
            fmt_f64(a)
        ),
        x_label: "false positive rate (weighted)".into(),
        y_label: "true positive rate (weighted)".into(),
        log_x: false,
        square: true,
        scatter: false,
        lines: vec![
            Line {
                name: "ROC".into(),
                reference: false,
                points: roc_curve(&s, &l, Some(&w))
                    .into_iter()
                    .map(|(x, y)| (x, y, f64::NAN))
                    .collect(),
            },
            Line {
                name: "chance".into(),
                reference: true,
                points: vec![(0.0, 0.0, f64::NAN), (1.0, 1.0, f64::NAN)],
            },
        ],
    })
}

/// §5.4: `units/log_ml.csv`; per method, Table 5.2 (counts and weighted accuracy per setting,
/// the thesis's beside), the 10 × 3 cross-validation (mean ± sd over folds; per-fold rows in
/// `units/cep_cv_folds.csv`), the pairs called spurious at the best setting, and the ROC curve
/// of the best setting (`figures/cep_roc.svg`).
///
/// Errors: unreadable summaries, pairs missing from `pairs_meta.csv`; polars.
pub fn cep(rd: &RunDir, m: &Manifest) -> Result<Vec<Table>, ReportError> {
    let rows = cep_rows(rd, m)?;
    write_log_ml_csv(rd, &rows)?;
    // Runs reported before units/ existed kept these in tables/, where `check` would compare
    // them; re-reporting such a run moves them (written again in units/).
    for stale in ["log_ml.csv", "cep_cv_folds.csv"] {
        let path = rd.tables_dir().join(stale);
        if path.exists() {
            std::fs::remove_file(&path)
                .map_err(|e| ReportError::Other(format!("{}: {e}", path.display())))?;
        }
    }
    let meta = pairs_meta()?;
    let methods: BTreeSet<String> = rows.iter().map(|r| r.method.clone()).collect();
    let all: Vec<Scores> = methods
        .iter()
        .map(|method| scores(&rows, method, &meta).map_err(|e| ReportError::Other(e.to_string())))
        .collect::<Result<_, _>>()?;
    let mut tables = Vec::new();
    for sc in &all {
        tables.push(cep_table5_2::table(m, sc)?);
    }
    tables.push(cep_cv::table(rd, m, &all)?);
    tables.push(cep_spurious::table(rd, m, &all)?);
    if methods.contains("smc") {
        let author = cep_author_smc::author_smc_rows(&meta)?;
        tables.push(cep_author_smc::author_smc_comparison(&rows, &author)?);
        if let Some(smc) = all.iter().find(|s| s.method == "smc") {
            tables.push(cep_author_smc::author_smc_decisions(smc, &author, &meta)?);
        }
    }
    let panels: Vec<Panel> = all.iter().filter_map(roc_panel).collect();
    if !panels.is_empty() {
        let n = panels.len();
        figures::line_panels(&rd.figures_dir().join("cep_roc.svg"), &panels, n)?;
    }
    Ok(tables)
}

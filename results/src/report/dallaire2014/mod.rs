//! Tables of paper 004 (`004_74db43a26dbf0fa1.txt`, the CIBP and the eCIBP), one file per table.
//! The estimators (the k-NN KL, the KDE, the exact prior moments) are polars-free, in
//! `causeway_papers::dallaire2014::evaluation`; these files read the run, pool the chains and
//! format the tables beside the paper's numbers (the YAML's `reported:` section).
//!
//! A cell's *method* is its `params.prior` (`ecibp`, `cibp`) for the MCMC of §4, else its
//! `params.method` (`kde`, `dpmog`, `forward`); its *dataset* is `dataset.kind`.

mod fantasy;
mod kde;
mod kl_reference;
mod networks;
mod prior_moments;
mod structure_edges;
mod structure_identification;
mod table1_kl;
mod table2_structure;

use crate::diagnostics;
use crate::report::{
    Convergence, ESS_BULK_MIN, RHAT_MAX, ReportError, Table, figures, json_text, se,
};
use crate::rundir::chain_draws_of;
use crate::rundir::{CellRecord, Manifest, RunDir};

/// `dallaire2014.table1`: Table 1 (KL per dataset and method), the reference rows and the KDE's
/// own figures.
pub fn table1(rd: &RunDir, m: &Manifest, _conv: &Convergence) -> Result<Vec<Table>, ReportError> {
    let mut out = vec![table1_kl::table1_kl(rd, m)?];
    out.extend(kl_reference::kl_reference(rd, m)?);
    out.extend(kde::kde(rd, m)?);
    Ok(out)
}

/// `dallaire2014.table2`: Table 2 (posterior units, edges and depth per dataset and prior), and
/// per MCMC cell with data figures of its chains' traces, of their final networks
/// ([`networks`]) and, for two-dimensional data, of fantasy data against the test set
/// ([`fantasy`]).
pub fn table2(rd: &RunDir, m: &Manifest, _conv: &Convergence) -> Result<Vec<Table>, ReportError> {
    trace_figures(rd, m)?;
    networks::network_figures(rd, m)?;
    fantasy::fantasy_figures(rd, m)?;
    Ok(vec![table2_structure::table2_structure(rd, m)?])
}

/// The cells of the MCMC of §4 (`params.prior` `ecibp` or `cibp`).
fn mcmc_cells(m: &Manifest) -> impl Iterator<Item = &CellRecord> {
    m.cells
        .iter()
        .filter(|c| matches!(method_of(c).as_str(), "ecibp" | "cibp"))
}

/// Each finished chain of replicate 0 of cell `c` with its summary's `units` and `edges` (the
/// final network; chains whose summary has neither are skipped).
fn final_networks(
    rd: &RunDir,
    m: &Manifest,
    c: &CellRecord,
) -> Result<Vec<(u64, causeway_papers::Matrix, causeway_papers::Matrix)>, ReportError> {
    let mut out = Vec::new();
    for j in m
        .jobs
        .iter()
        .filter(|j| j.cell == c.index && j.replicate == 0 && rd.chain_done(&j.job_id))
    {
        let mut s = rd.read_summary(&j.job_id)?;
        let mut take = |name: &str| {
            s.iter()
                .position(|x| x.name == name)
                .map(|i| s.swap_remove(i))
        };
        if let (Some(u), Some(e)) = (take("units"), take("edges")) {
            out.push((j.chain, u, e));
        }
    }
    Ok(out)
}

/// Every chain's KL(test ‖ model), unit count and edge count against the iteration, burn-in
/// included, with the retained draws' histograms (`figures/traces_cell<c>_<dataset>_<prior>.svg`):
/// where the convergence table says that a cell's chains have not mixed, this shows how (one
/// chain in another mode, or all drifting).
fn trace_figures(rd: &RunDir, m: &Manifest) -> Result<(), ReportError> {
    for c in mcmc_cells(m).filter(|c| dataset_of(c) != "none") {
        let vars = figures::trace_vars(rd, m, c.index, &["kl", "n_units", "n_edges"])?;
        if vars.is_empty() {
            continue;
        }
        figures::trace_panels(&cell_figure_path(rd, "traces", c), &vars)?;
    }
    Ok(())
}

/// `dallaire2014.structure`: §5.2, the structure identified on the ngbn7 network, and the
/// chains' final networks drawn ([`networks`]).
pub fn structure(
    rd: &RunDir,
    m: &Manifest,
    _conv: &Convergence,
) -> Result<Vec<Table>, ReportError> {
    networks::network_figures(rd, m)?;
    let mut out = structure_identification::structure_identification(rd, m)?;
    out.extend(structure_edges::structure_edges(rd, m)?);
    Ok(out)
}

/// `dallaire2014.prior`: §6's prior check, moments against their exact values.
pub fn prior(rd: &RunDir, m: &Manifest, conv: &Convergence) -> Result<Vec<Table>, ReportError> {
    Ok(vec![prior_moments::prior_moments(rd, m, conv)?])
}

/// A cell's figure: `figures/<stem>_cell<c>_<dataset>_<method>.svg`.
pub(crate) fn cell_figure_path(rd: &RunDir, stem: &str, c: &CellRecord) -> std::path::PathBuf {
    rd.figures_dir().join(format!(
        "{stem}_cell{}_{}_{}.svg",
        c.index,
        dataset_of(c),
        method_of(c)
    ))
}

/// The cell's method: `params.prior` for the MCMC (`ecibp` by default), else `params.method`.
pub(crate) fn method_of(c: &CellRecord) -> String {
    match c.param("method").map(json_text).as_deref() {
        None | Some("mcmc") => c
            .param("prior")
            .map(json_text)
            .unwrap_or_else(|| "ecibp".into()),
        Some(other) => other.to_string(),
    }
}

/// The cell's dataset name (`dataset.kind`).
pub(crate) fn dataset_of(c: &CellRecord) -> String {
    c.dataset.get("kind").map(json_text).unwrap_or_default()
}

/// Post-burn-in draws of `scalar`, pooled over a cell's chains and replicates, with R-hat and
/// bulk ESS over its chains (worst replicate; NaN with fewer than 2 chains or 4 draws).
pub(crate) struct Pooled {
    pub draws: Vec<f64>,
    pub rhat: f64,
    pub ess_bulk: f64,
    /// MCSE of the pooled mean: each replicate's ArviZ `mcse(method="mean")` over its chains,
    /// combined as the se of a draw-weighted average, √Σ(n_r · mcse_r)² / Σ n_r (NaN if any
    /// replicate's cannot be computed).
    pub mcse: f64,
}

impl Pooled {
    /// Mean and sample sd (n − 1) of the pooled draws (NaN when there are none).
    pub fn mean_sd(&self) -> (f64, f64) {
        causeway_papers::metrics::mean_sd(&self.draws)
    }

    /// Standard error of the pooled draws' sd, s/√(2(ESS − 1)) on the worst bulk ESS (the
    /// normal-theory se of an sd with the effective sample size for n).
    pub fn sd_se(&self) -> f64 {
        let ess = self.ess_bulk;
        if ess.is_nan() {
            return f64::NAN;
        }
        se::sd_over_units(self.mean_sd().1, ess.floor() as u64)
    }

    /// `⚠` when the chains are flagged (R-hat > 1.01 or bulk ESS < 400, as
    /// [`crate::report::CellConvergence::flagged`]), else `ok`: the `<column>_converged` marker
    /// that `causeway check --statistical` reads for an MCSE.
    pub fn converged(&self) -> &'static str {
        if self.rhat > RHAT_MAX || self.ess_bulk < ESS_BULK_MIN {
            "⚠"
        } else {
            "ok"
        }
    }
}

/// `z_paper` of a cell of Tables 1–2: (ours − paper) / √(se² + paper_sd²), with `se` our Monte
/// Carlo error of the posterior mean and `paper_sd` the paper's posterior sd (Table 1's ± is 2 sd,
/// Table 2's read as 1 sd). The paper gives no Monte Carlo error, so its posterior spread stands
/// for its uncertainty: |z| > 3 says our posterior mean lies outside 3 of the paper's posterior sds
/// (plus our own error). None when the paper has no value or the result is not finite.
pub(crate) fn z_against_paper(
    ours: f64,
    se: f64,
    paper: Option<f64>,
    paper_sd: Option<f64>,
) -> Option<f64> {
    let (p, psd) = (paper?, paper_sd?);
    let se = if se.is_finite() { se } else { 0.0 };
    let z = (ours - p) / (se * se + psd * psd).sqrt();
    z.is_finite().then_some(z)
}

/// Add `<name>_se` and `<name>_converged` to `df` for every `names[i]`, from each row's
/// `(errors, flags)[i]` (docs/checking.md, "Monte Carlo error of a table cell"). Errors: polars.
pub(crate) fn with_errors<const K: usize>(
    df: &mut polars::prelude::DataFrame,
    names: [&str; K],
    rows: &[([f64; K], [&'static str; K])],
) -> polars::prelude::PolarsResult<()> {
    for (i, name) in names.iter().enumerate() {
        let se: Vec<f64> = rows.iter().map(|r| r.0[i]).collect();
        let flag: Vec<&str> = rows.iter().map(|r| r.1[i]).collect();
        df.with_column(polars::prelude::Column::new(
            format!("{name}_se").into(),
            se,
        ))?;
        df.with_column(polars::prelude::Column::new(
            format!("{name}_converged").into(),
            flag,
        ))?;
    }
    Ok(())
}

/// [`Pooled`] draws of one scalar of a cell.
pub(crate) fn pooled(
    rd: &RunDir,
    m: &Manifest,
    c: &CellRecord,
    scalar: &str,
) -> Result<Pooled, ReportError> {
    let [p] = pooled_of(rd, m, c, [scalar])?;
    Ok(p)
}

/// [`Pooled`] draws of several scalars of a cell (in `scalars` order), each chain's trace read
/// once.
pub(crate) fn pooled_of<const N: usize>(
    rd: &RunDir,
    m: &Manifest,
    c: &CellRecord,
    scalars: [&str; N],
) -> Result<[Pooled; N], ReportError> {
    let reps = m
        .jobs
        .iter()
        .filter(|j| j.cell == c.index)
        .map(|j| j.replicate)
        .max()
        .map_or(0, |r| r + 1);
    let mut out: [Pooled; N] = std::array::from_fn(|_| Pooled {
        draws: Vec::new(),
        rhat: f64::NAN,
        ess_bulk: f64::NAN,
        mcse: f64::NAN,
    });
    // Per scalar: Σ (n_r · mcse_r)² and Σ n_r.
    let mut mcse_parts = [(0.0f64, 0usize); N];
    for r in 0..reps {
        let per_scalar = chain_draws_of(rd, m, c.index, r, &scalars)?;
        for ((out, chains), part) in out.iter_mut().zip(per_scalar).zip(mcse_parts.iter_mut()) {
            let n = chains.iter().map(Vec::len).min().unwrap_or(0);
            let drawn: usize = chains.iter().map(Vec::len).sum();
            if drawn > 0 {
                let w = drawn as f64 * se::mcse_of_chains(&chains);
                *part = (part.0 + w * w, part.1 + drawn);
            }
            if chains.len() >= 2 && n >= 4 {
                let views: Vec<&[f64]> = chains.iter().map(|d| &d[..n]).collect();
                if let Ok(d) = diagnostics::diagnose(&views) {
                    out.rhat = if out.rhat.is_nan() {
                        d.rhat
                    } else {
                        out.rhat.max(d.rhat)
                    };
                    out.ess_bulk = if out.ess_bulk.is_nan() {
                        d.ess_bulk
                    } else {
                        out.ess_bulk.min(d.ess_bulk)
                    };
                }
            }
            for ch in chains {
                out.draws.extend(ch);
            }
        }
    }
    for (out, (sq, n)) in out.iter_mut().zip(mcse_parts) {
        if n > 0 {
            out.mcse = sq.sqrt() / n as f64;
        }
    }
    Ok(out)
}

/// The row of `reported.<table>` whose keys equal `keys` (e.g. dataset and method).
pub(crate) fn reported_row<'a>(
    m: &'a Manifest,
    table: &str,
    keys: &[(&str, &str)],
) -> Option<&'a serde_json::Value> {
    m.reported.get(table)?.as_array()?.iter().find(|r| {
        keys.iter()
            .all(|(k, v)| r.get(*k).map(json_text).as_deref() == Some(*v))
    })
}

/// `field` of a reported row as f64 (None when absent).
pub(crate) fn reported_f64(row: Option<&serde_json::Value>, field: &str) -> Option<f64> {
    row?.get(field)?.as_f64()
}

#[cfg(test)]
mod tests {
    use super::z_against_paper;

    #[test]
    fn dallaire2014_z_against_paper_combines_our_mcse_with_the_papers_sd() {
        // Abalone CIBP at the paper's size: KL 0.788 (MCSE 0.0228) against 0.074 ± 0.080 (2 sd).
        let z = z_against_paper(0.788, 0.0228, Some(0.074), Some(0.040)).expect("a value");
        let want = (0.788 - 0.074) / (0.0228f64.powi(2) + 0.040f64.powi(2)).sqrt();
        assert!((z - want).abs() < 1e-12 && z > 15.0, "{z}");
        // Our error unknown (one chain): the paper's sd alone.
        assert_eq!(
            z_against_paper(1.0, f64::NAN, Some(0.5), Some(0.25)),
            Some(2.0)
        );
        // No paper value or no uncertainty: no z.
        assert_eq!(z_against_paper(1.0, 0.1, None, Some(0.2)), None);
        assert_eq!(z_against_paper(1.0, 0.1, Some(0.5), None), None);
        assert_eq!(z_against_paper(1.0, 0.0, Some(0.5), Some(0.0)), None);
    }
}

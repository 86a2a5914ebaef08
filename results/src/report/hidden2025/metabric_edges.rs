//! `tables/metabric_edges.csv`: Figure 6 of `002_d97ecc788b964f97.txt` (§6): for each outcome,
//! candidate parent and ρ, the posterior edge probability of Algorithm 2 (fraction of the
//! post-burn-in draws of all chains), the exact posterior's, whether the candidate is in the
//! median probability model (p > 0.5), and the paper's values: the two probabilities §6 gives
//! (`reported.figure6`) and Figure 5's median DAG (`reported.figure5_hidden`). Also
//! `figures/metabric_fig6_rho<ρ>.svg`, Figure 6's tiles (MCMC probabilities). Built by
//! [`super::metabric`].

use polars::prelude::*;

use super::metabric_fits::MetabricFits;
use super::table2::{edge_se, safe};
use crate::report::figures;
use crate::report::{ReportError, Table, fmt_f64, json_text};
use crate::rundir::{Manifest, RunDir};

/// Figure 5's parents of `outcome` in the paper (`reported.figure5_hidden`), if given.
pub(super) fn paper_parents(m: &Manifest, outcome: &str) -> Option<Vec<String>> {
    m.reported
        .get("figure5_hidden")?
        .get(outcome)?
        .as_array()
        .map(|a| a.iter().map(json_text).collect())
}

/// One row per (outcome, ρ, candidate), candidates in Ca(j) order.
pub(super) fn metabric_edges(
    rd: &RunDir,
    m: &Manifest,
    fits: &MetabricFits,
) -> Result<Table, ReportError> {
    let (mut outcome, mut candidate, mut rho) = (Vec::new(), Vec::new(), Vec::new());
    let (mut posterior, mut exact, mut in_median) = (Vec::new(), Vec::new(), Vec::new());
    let (mut posterior_se, mut posterior_n) = (Vec::new(), Vec::new());
    let (mut paper, mut paper_in_median) = (Vec::new(), Vec::new());
    let mut notes = vec![
        "posterior_probability: fraction of post-burn-in draws (all chains) with the edge, with its error sd/√M over the M chains' own fractions (_se, _n) (Algorithm 2); exact_probability: the exact posterior (numerical integration over t, every subset of Ca(j) within the Laplace cut-off). in_median: posterior_probability > 0.5.".into(),
        "paper: the edge probabilities §6 gives (the others are only drawn in Figure 6); paper_in_median: the edge is in Figure 5's median DAG. The paper's run is one chain at the authors' shape 1 (our ρ = k) on its 1,867 rows.".into(),
        "IMS is a function of AAD in these data (premenopausal exactly below 50): with AAD among the parents, IMS changes no table, so P(IMS → j) is the edge prior's alone given the other indicators (Beta(1, 1) prior on γ_j), which is why it sits near 1/2 (the paper's 0.548 and 0.327).".into(),
    ];
    for f in &fits.fits {
        let pp = paper_parents(m, &f.node);
        for (i, &c) in f.candidates.iter().enumerate() {
            let name = fits.data.names[c].clone();
            outcome.push(f.node.clone());
            rho.push(f.rho.clone());
            posterior.push(f.estimate.as_ref().map(|e| e.edge_probabilities[i]));
            let (se, n) = f.estimate.as_ref().map_or((None, None), |e| {
                let (_, se, n) = edge_se(e, i);
                (Some(se), Some(n))
            });
            posterior_se.push(se);
            posterior_n.push(n);
            exact.push(f.exact.as_ref().map(|e| e.0[i]));
            in_median.push(f.estimate.as_ref().map(|e| e.median.contains(&i)));
            paper.push(
                m.reported
                    .get("figure6")
                    .and_then(|v| v.get(&f.node))
                    .and_then(|v| v.get(&name))
                    .and_then(|v| v.as_f64()),
            );
            paper_in_median.push(pp.as_ref().map(|p| p.contains(&name)));
            candidate.push(name);
        }
        if let Some(e) = &f.estimate {
            notes.push(format!(
                "{} (ρ = {}): {} draws, {} distinct parent sets; the most visited has share {}.",
                f.node,
                f.rho,
                e.n_draws,
                e.n_sets,
                fmt_f64(e.map_frequency)
            ));
        }
    }
    figure6(rd, fits)?;
    Ok(Table {
        name: "metabric_edges".into(),
        title: "Figure 6: posterior edge probabilities, METABRIC".into(),
        df: DataFrame::new_infer_height(vec![
            Series::new("outcome".into(), outcome).into(),
            Series::new("candidate".into(), candidate).into(),
            Series::new("rho".into(), rho).into(),
            Series::new("posterior_probability".into(), posterior).into(),
            Series::new("posterior_probability_se".into(), posterior_se).into(),
            Series::new("posterior_probability_n".into(), posterior_n).into(),
            Series::new("exact_probability".into(), exact).into(),
            Series::new("in_median".into(), in_median).into(),
            Series::new("paper".into(), paper).into(),
            Series::new("paper_in_median".into(), paper_in_median).into(),
        ])?,
        notes,
    })
}

/// Figure 6: rows = every candidate of any outcome (in the order of the longest candidate list),
/// columns = outcomes; a candidate that is not in Ca(j) gets an empty tile. One SVG per ρ.
fn figure6(rd: &RunDir, fits: &MetabricFits) -> Result<(), ReportError> {
    for r in &fits.rhos {
        let at_rho: Vec<_> = fits.fits.iter().filter(|f| &f.rho == r).collect();
        let Some(longest) = at_rho.iter().max_by_key(|f| f.candidates.len()) else {
            continue;
        };
        let rows: Vec<String> = longest
            .candidates
            .iter()
            .map(|&c| fits.data.names[c].clone())
            .collect();
        let cols: Vec<String> = at_rho.iter().map(|f| f.node.clone()).collect();
        let values: Vec<Vec<Option<f64>>> = longest
            .candidates
            .iter()
            .map(|&c| {
                at_rho
                    .iter()
                    .map(|f| {
                        let i = f.candidates.iter().position(|&x| x == c)?;
                        f.estimate.as_ref().map(|e| e.edge_probabilities[i])
                    })
                    .collect()
            })
            .collect();
        if values.iter().flatten().all(Option::is_none) {
            continue;
        }
        figures::heatmap(
            &rd.figures_dir()
                .join(format!("metabric_fig6_rho{}.svg", safe(r))),
            &format!("Posterior edge probabilities (rho = {r}); rows: parents, columns: outcomes"),
            &rows,
            &cols,
            &values,
        )?;
    }
    Ok(())
}

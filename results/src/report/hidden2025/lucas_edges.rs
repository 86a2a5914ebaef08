//! `tables/lucas_edges.csv`: Figure 3 of `002_d97ecc788b964f97.txt` (§5.2) for every variable of
//! Table 2: the posterior probability of each candidate in the sampled blanket (Algorithm 2, all
//! chains), the exact posterior's, and whether it is in the MAP set, in the median probability
//! model and in the true Markov blanket. Built by [`super::table2`].

use polars::prelude::*;

use super::table2::{LucasFits, edge_se, safe};
use crate::report::figures::{self, BlanketNode};
use crate::report::{ReportError, Table, fmt_f64};
use crate::rundir::{Manifest, RunDir};

/// One row per (variable, ρ, candidate), candidates in Ca(j) order.
pub(super) fn lucas_edges(m: &Manifest, fits: &LucasFits) -> Result<Table, ReportError> {
    let mut variable = Vec::new();
    let mut candidate = Vec::new();
    let mut rho = Vec::new();
    let mut posterior = Vec::new();
    let (mut posterior_se, mut posterior_n) = (Vec::new(), Vec::new());
    let mut exact = Vec::new();
    let mut in_map = Vec::new();
    let mut in_median = Vec::new();
    let mut in_true = Vec::new();
    let mut notes = vec![
        "posterior_probability: fraction of post-burn-in draws (all chains) with the edge, with its error sd/√M over the M chains' own fractions (_se, _n); exact_probability: the exact posterior (numerical integration over t, all 2^11 parent sets up to the Laplace cut-off). in_map / in_median: in the MCMC MAP parent set / in the median probability model (p > 0.5).".into(),
    ];
    for f in &fits.fits {
        let Some(node) = fits.data.index(&f.node) else {
            continue;
        };
        let truth = fits.true_blanket(node);
        for (i, &c) in f.candidates.iter().enumerate() {
            variable.push(f.node.clone());
            candidate.push(fits.data.names[c].clone());
            rho.push(f.rho.clone());
            posterior.push(f.estimate.as_ref().map(|e| e.edge_probabilities[i]));
            let (se, n) = f.estimate.as_ref().map_or((None, None), |e| {
                let (_, se, n) = edge_se(e, i);
                (Some(se), Some(n))
            });
            posterior_se.push(se);
            posterior_n.push(n);
            exact.push(f.exact.as_ref().map(|e| e.0[i]));
            in_map.push(f.estimate.as_ref().map(|e| e.map.contains(&i)));
            in_median.push(f.estimate.as_ref().map(|e| e.median.contains(&i)));
            in_true.push(truth.contains(&c));
        }
        if let Some(e) = &f.estimate {
            notes.push(format!(
                "{} (ρ = {}): MAP set visited in {} of {} draws ({} distinct sets).",
                f.node,
                f.rho,
                fmt_f64(e.map_frequency),
                e.n_draws,
                e.n_sets
            ));
        }
    }
    // Figure 3's one reported probability, beside ours.
    if let Some(fig3) = m.reported.get("figure3").and_then(|v| v.as_object()) {
        for (node, cands) in fig3 {
            let Some(cands) = cands.as_object() else {
                continue;
            };
            for (cand, paper) in cands {
                for f in fits.fits.iter().filter(|f| &f.node == node) {
                    let i = f
                        .candidates
                        .iter()
                        .position(|&c| fits.data.names[c] == *cand);
                    let ours = i.and_then(|i| f.estimate.as_ref().map(|e| e.edge_probabilities[i]));
                    let ex = i.and_then(|i| f.exact.as_ref().map(|e| e.0[i]));
                    notes.push(format!(
                        "Figure 3: P({cand} ∈ Mb({node})) = {paper} in the paper (one chain, ρ as the authors' code: 2); ours at ρ = {}: {} (exact {}).",
                        f.rho,
                        ours.map_or("—".into(), fmt_f64),
                        ex.map_or("—".into(), fmt_f64)
                    ));
                }
            }
        }
    }
    Ok(Table {
        name: "lucas_edges".into(),
        title: "Figure 3 for every variable: posterior edge probabilities, LUCAS0".into(),
        df: DataFrame::new_infer_height(vec![
            Series::new("variable".into(), variable).into(),
            Series::new("candidate".into(), candidate).into(),
            Series::new("rho".into(), rho).into(),
            Series::new("posterior_probability".into(), posterior).into(),
            Series::new("posterior_probability_se".into(), posterior_se).into(),
            Series::new("posterior_probability_n".into(), posterior_n).into(),
            Series::new("exact_probability".into(), exact).into(),
            Series::new("in_map".into(), in_map).into(),
            Series::new("in_median".into(), in_median).into(),
            Series::new("in_true_blanket".into(), in_true).into(),
        ])?,
        notes,
    })
}

/// Figure 3 for every variable and ρ of Table 2: `figures/lucas_blanket_<variable>_rho<ρ>.svg`,
/// the MAP blanket of Algorithm 2 (all chains) with each edge's posterior probability, the true
/// blanket in teal (the paper draws lung cancer's).
pub(super) fn blanket_figures(rd: &RunDir, fits: &LucasFits) -> Result<(), ReportError> {
    for f in &fits.fits {
        let (Some(node), Some(e)) = (fits.data.index(&f.node), &f.estimate) else {
            continue;
        };
        let truth = fits.true_blanket(node);
        let nodes: Vec<BlanketNode> = f
            .candidates
            .iter()
            .enumerate()
            .map(|(i, &c)| BlanketNode {
                name: fits.data.names[c].clone(),
                probability: e.edge_probabilities[i],
                in_map: e.map.contains(&i),
                in_true: truth.contains(&c),
            })
            .collect();
        figures::blanket(
            &rd.figures_dir()
                .join(format!("lucas_blanket_{}_rho{}.svg", f.node, safe(&f.rho))),
            &format!(
                "{}: MAP Markov blanket (rho = {}), edges by posterior probability; teal: the true blanket",
                f.node, f.rho
            ),
            &f.node,
            &nodes,
        )?;
    }
    Ok(())
}

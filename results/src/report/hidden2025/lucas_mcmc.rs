//! `tables/lucas_mcmc.csv`: Table 6 of `002_d97ecc788b964f97.txt` (supplement C.2): per variable
//! and ρ, the MALA step sizes, the acceptance rates of t_j(1), t_j(2) after burn-in (mean over
//! chains of each chain's `acceptance` summary), and R-hat and bulk ESS of the log posterior
//! across chains (`causeway_results::diagnostics`, as every convergence table). Pairs are written
//! `a;b`. Built by [`super::table2`].

use polars::prelude::*;

use super::table2::{LucasFits, joined};
use crate::report::{ReportError, Table};
use crate::rundir::{Manifest, RunDir};

/// One row per (variable, ρ) with an `edges` cell.
pub(super) fn lucas_mcmc(
    rd: &RunDir,
    m: &Manifest,
    fits: &LucasFits,
) -> Result<Table, ReportError> {
    let mut variable = Vec::new();
    let mut rho = Vec::new();
    let mut step = Vec::new();
    let mut acceptance = Vec::new();
    let mut ess = Vec::new();
    let mut rhat = Vec::new();
    let mut paper_acc = Vec::new();
    let mut paper_ess = Vec::new();
    let mut ess_chain = Vec::new();
    let mut n_chains = 0usize;
    for f in &fits.fits {
        let Some(d) = f.chain_diagnostics(rd, m)? else {
            continue;
        };
        n_chains = n_chains.max(d.n_chains);
        let t6 = m.reported.get("table6").and_then(|t| t.get(&f.node));
        variable.push(f.node.clone());
        rho.push(f.rho.clone());
        step.push(joined(&d.step_sizes, 2));
        acceptance.push(joined(&d.acceptance, 3));
        ess.push(d.ess);
        rhat.push(d.rhat);
        paper_acc.push(
            t6.and_then(|t| t.get("acceptance"))
                .and_then(|a| a.as_array())
                .map(|a| joined(&a.iter().filter_map(|x| x.as_f64()).collect::<Vec<_>>(), 3)),
        );
        paper_ess.push(t6.and_then(|t| t.get("ess")).and_then(|e| e.as_f64()));
        ess_chain.push(d.ess_per_chain);
    }
    let notes = vec![
        format!(
            "acceptance: MALA acceptance rate of t_j(1);t_j(2) after burn-in, mean over {n_chains} chains. ess_log_posterior, rhat_log_posterior: bulk ESS and rank-normalised split R-hat (Vehtari et al. 2021, as ArviZ) of the supplement-B log posterior (with ρ/k_j) across the {n_chains} chains' post-burn-in draws."
        ),
        "paper_acceptance, paper_ess: Table 6, from ONE chain of 9,800 post-burn-in draws (set.seed(1) in the authors' lucas_blankets.R; their log posterior uses ρ/(k_j − 1)), at ρ = 2 (their code's shape 1). Compare paper_ess with ess_per_chain, the mean of the single-chain bulk ESS over our chains.".into(),
        "Step sizes are Table 6's, fixed (no adaptation): tuned by the authors at ρ = 2 and reused at ρ = 3.".into(),
    ];
    Ok(Table {
        name: "lucas_mcmc".into(),
        title: "Table 6: step sizes, acceptance and ESS of the log posterior, LUCAS0".into(),
        df: DataFrame::new_infer_height(vec![
            Series::new("variable".into(), variable).into(),
            Series::new("rho".into(), rho).into(),
            Series::new("step_size".into(), step).into(),
            Series::new("acceptance".into(), acceptance).into(),
            Series::new("ess_log_posterior".into(), ess).into(),
            Series::new("rhat_log_posterior".into(), rhat).into(),
            Series::new("paper_acceptance".into(), paper_acc).into(),
            Series::new("paper_ess".into(), paper_ess).into(),
            Series::new("ess_per_chain".into(), ess_chain).into(),
        ])?,
        notes,
    })
}

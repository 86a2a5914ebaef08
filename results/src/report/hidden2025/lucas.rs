//! The report `hidden2025.table2` (§5.2, C.2 of `002_d97ecc788b964f97.txt` on LUCAS0): Table 2
//! ([`super::table2`]), Figure 3 for every variable ([`super::lucas_edges`]), Table 6
//! ([`super::lucas_mcmc`]) and Figure 4 (log-posterior traces), from one load of the fits.

use super::lucas_edges::{blanket_figures, lucas_edges};
use super::lucas_mcmc::lucas_mcmc;
use super::table2::{load, log_posterior_figures, table};
use crate::report::{Convergence, ReportError, Table};
use crate::rundir::{Manifest, RunDir};

/// Table 2, `lucas_edges` (Figure 3's numbers), `lucas_mcmc` (Table 6), Figure 3
/// (`figures/lucas_blanket_<variable>_rho<ρ>.svg`) and Figure 4
/// (`figures/lucas_fig4_log_posterior_rho<ρ>.svg`). Errors: unreadable chains or datasets; polars.
pub fn table2(rd: &RunDir, m: &Manifest, _conv: &Convergence) -> Result<Vec<Table>, ReportError> {
    let fits = load(rd, m)?;
    let tables = vec![
        table(m, &fits)?,
        lucas_edges(m, &fits)?,
        lucas_mcmc(rd, m, &fits)?,
    ];
    log_posterior_figures(rd, &fits.fits, &fits.rhos, "lucas_fig4_log_posterior_rho")?;
    blanket_figures(rd, &fits)?;
    Ok(tables)
}

//! The learned networks, drawn as the paper draws them (§5): for each MCMC cell,
//! `figures/network_cell<c>_<dataset>_<prior>.svg` shows each chain's final network (its
//! `units`/`edges` summary) layer by layer, the observed units at the bottom.

use super::{cell_figure_path, dataset_of, final_networks, mcmc_cells, method_of};
use crate::report::ReportError;
use crate::report::figures::{self, LayeredNetwork};
use crate::rundir::{CellRecord, Manifest, RunDir};

fn cell_figure(rd: &RunDir, m: &Manifest, c: &CellRecord) -> Result<(), ReportError> {
    let nets: Vec<LayeredNetwork> = final_networks(rd, m, c)?
        .into_iter()
        .map(|(chain, units, edges)| LayeredNetwork {
            title: format!(
                "{} {}, chain {chain}: final network",
                dataset_of(c),
                method_of(c)
            ),
            layers: units
                .values
                .chunks_exact(3)
                .map(|r| r[0] as usize)
                .collect(),
            edges: edges
                .values
                .chunks_exact(4)
                .map(|e| (e[0] as usize, e[1] as usize, e[2], e[3] != 0.0))
                .collect(),
        })
        .collect();
    if nets.is_empty() {
        return Ok(());
    }
    let ncols = nets.len().min(4);
    figures::network_panels(&cell_figure_path(rd, "network", c), &nets, ncols)
}

/// The network figures of every MCMC cell (see the module docs).
///
/// Errors: unreadable summaries; the figure's file.
pub fn network_figures(rd: &RunDir, m: &Manifest) -> Result<(), ReportError> {
    for c in mcmc_cells(m) {
        cell_figure(rd, m, c)?;
    }
    Ok(())
}

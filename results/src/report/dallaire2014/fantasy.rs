//! Fantasy data against the test data (the paper's qualitative check of §5.1): for each MCMC
//! cell of two-dimensional data, `figures/fantasy_cell<c>_<dataset>_<prior>.svg` draws the test
//! set beside as many points drawn from each chain's final network (its `units`/`edges` summary,
//! rebuilt by `Network::from_summary_rows`), mapped back to data units by the training set's
//! observed map, one panel per chain; at most 500 of each. The points come from a stream of their own, seeded by the
//! run's seed, the cell and the chain: the same run gives the same figure.

use causeway_papers::Matrix;
use causeway_papers::chain_rng;
use causeway_papers::dallaire2014::params::Params;
use causeway_papers::dallaire2014::samplers::Network;
use causeway_papers::dallaire2014::samplers::forward::sample_observed_outputs;
use causeway_papers::dallaire2014::samplers::observed::ObservedMap;

use super::{cell_figure_path, dataset_of, final_networks, mcmc_cells, method_of};
use crate::report::ReportError;
use crate::report::figures::{self, Line, Panel};
use crate::rundir::{CellRecord, Manifest, RunDir};

/// The chain index added to a chain's number for the figure's stream, apart from the chains'.
const FIGURE_STREAM: u64 = 1 << 32;

/// At most this many test points (the first ones) and as many fantasy points per panel.
const MAX_POINTS: usize = 500;

fn other(e: impl std::fmt::Display) -> ReportError {
    ReportError::Other(format!("dallaire2014 fantasy figure: {e}"))
}

fn points(values: &[f64]) -> Vec<(f64, f64, f64)> {
    values
        .chunks_exact(2)
        .map(|r| (r[0], r[1], f64::NAN))
        .collect()
}

/// One cell's figure (nothing when its data are not two-dimensional or no chain finished).
fn cell_figure(rd: &RunDir, m: &Manifest, c: &CellRecord) -> Result<(), ReportError> {
    let data = rd.read_dataset(&c.dataset_id, 0)?;
    let get = |name: &str| data.observed.iter().find(|x| x.name == name);
    let (Some(x), Some(test)) = (get("x"), get("test")) else {
        return Ok(());
    };
    if x.cols != 2 || test.cols != 2 || test.rows == 0 {
        return Ok(());
    }
    let params = Params::from_value("params", &c.params).map_err(other)?;
    let map = ObservedMap::fit(&params, x).map_err(other)?;
    let mut panels = Vec::new();
    for (chain, units, edges) in final_networks(rd, m, c)? {
        let net = Network::from_summary_rows(2, &units.values, &edges.values).map_err(other)?;
        let mut rng = chain_rng(m.base_seed, c.index as u64, 0, FIGURE_STREAM + chain);
        let mut q = sample_observed_outputs(&net, test.rows.min(MAX_POINTS), &mut rng);
        map.to_data(&mut q);
        panels.push(panel(c, chain, test, &q, net.n_units()));
    }
    if panels.is_empty() {
        return Ok(());
    }
    let ncols = panels.len().min(4);
    figures::line_panels(&cell_figure_path(rd, "fantasy", c), &panels, ncols)
}

fn panel(c: &CellRecord, chain: u64, test: &Matrix, fantasy: &[f64], units: usize) -> Panel {
    let names = |i: usize| test.col_names.get(i).cloned().unwrap_or_default();
    Panel {
        title: format!(
            "{} {}, chain {chain}: final network ({units} units)",
            dataset_of(c),
            method_of(c)
        ),
        x_label: names(0),
        y_label: names(1),
        log_x: false,
        square: true,
        scatter: true,
        lines: vec![
            Line {
                name: format!("test ({} points)", test.rows.min(MAX_POINTS)),
                reference: false,
                points: points(&test.values[..2 * test.rows.min(MAX_POINTS)]),
            },
            Line {
                name: "fantasy from the network".into(),
                reference: false,
                points: points(fantasy),
            },
        ],
    }
}

/// The fantasy figures of every MCMC cell (see the module docs).
///
/// Errors: unreadable datasets or summaries, a summary that is not a network, params that do
/// not parse, the figure's file.
pub fn fantasy_figures(rd: &RunDir, m: &Manifest) -> Result<(), ReportError> {
    for c in mcmc_cells(m).filter(|c| dataset_of(c) != "none") {
        cell_figure(rd, m, c)?;
    }
    Ok(())
}

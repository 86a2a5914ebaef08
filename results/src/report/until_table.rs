//! `tables/until.{md,csv}`: what a convergence-driven run (`until:`) spent on every cell and
//! whether the cell met the criterion; built for every run whose manifest has an `until` record.
//! Also the figures a round is judged by ([`group_diagnostics`], [`Criterion::met`]).

use polars::prelude::*;

use super::{CellConvergence, Convergence, ReportError, Table, axis_columns, fmt_f64};
use crate::rundir::{
    Criterion, GroupRecord, GroupState, Manifest, RunDir, UntilRecord, chain_draws_of,
};

/// One row per cell, over its replicates: the least and most iterations per chain and chains
/// per replicate it used, its replicates that met the criterion and those that stopped at both
/// caps, `met` (yes when every replicate did), and the worst R-hat, bulk ESS and tail ESS at the
/// last round (for a capped cell, the figures it stopped at), and `short_on`: for a cell not met,
/// each monitored scalar that falls short in `conv` (the convergence table's figures) and why.
pub fn until_table(
    m: &Manifest,
    u: &UntilRecord,
    conv: &Convergence,
) -> Result<Table, ReportError> {
    let cells: Vec<usize> = m.cells.iter().map(|c| c.index).collect();
    let mut cols = axis_columns(m, &cells);
    let groups: Vec<Vec<&GroupRecord>> = cells
        .iter()
        .map(|&c| u.groups.iter().filter(|g| g.cell == c).collect())
        .collect();
    let fold = |f: fn(&GroupRecord) -> u64, max: bool| -> Vec<u64> {
        groups
            .iter()
            .map(|gs| {
                let it = gs.iter().map(|g| f(g));
                let v = if max { it.max() } else { it.min() };
                v.unwrap_or(0)
            })
            .collect()
    };
    let count = |s: GroupState| -> Vec<u64> {
        groups
            .iter()
            .map(|gs| gs.iter().filter(|g| g.state == s).count() as u64)
            .collect()
    };
    let worst = |f: fn(&GroupRecord) -> Option<f64>, max: bool| -> Vec<f64> {
        groups
            .iter()
            .map(|gs| {
                gs.iter().filter_map(|g| f(g)).fold(f64::NAN, |a, x| {
                    if a.is_nan() || (max && x > a) || (!max && x < a) {
                        x
                    } else {
                        a
                    }
                })
            })
            .collect()
    };
    let met = count(GroupState::Met);
    let met_text: Vec<&str> = groups
        .iter()
        .zip(&met)
        .map(|(gs, &n)| if n as usize == gs.len() { "yes" } else { "no" })
        .collect();
    cols.push(Series::new("iterations_min".into(), fold(|g| g.iterations, false)).into());
    cols.push(Series::new("iterations_max".into(), fold(|g| g.iterations, true)).into());
    cols.push(Series::new("chains_min".into(), fold(|g| g.chains, false)).into());
    cols.push(Series::new("chains_max".into(), fold(|g| g.chains, true)).into());
    cols.push(Series::new("replicates_met".into(), met).into());
    cols.push(Series::new("replicates_capped".into(), count(GroupState::Capped)).into());
    cols.push(Series::new("met".into(), &met_text).into());
    // A replicate with no R-hat (a scalar that never moved) makes the cell's worst unknown.
    let mut rhat = worst(|g| g.rhat, true);
    for (r, gs) in rhat.iter_mut().zip(&groups) {
        if gs.iter().any(|g| g.rhat.is_none()) {
            *r = f64::NAN;
        }
    }
    cols.push(Series::new("rhat".into(), rhat).into());
    cols.push(Series::new("ess_bulk".into(), worst(|g| g.ess_bulk, false)).into());
    cols.push(Series::new("ess_tail".into(), worst(|g| g.ess_tail, false)).into());
    let c = &u.criterion;
    let short_on: Vec<String> = cells
        .iter()
        .zip(&met_text)
        .map(|(cell, met)| {
            let scalars = conv.get(cell).map(Vec::as_slice).unwrap_or_default();
            let why: Vec<String> = scalars
                .iter()
                .filter(|(_, d)| *met == "no" && !c.met(d))
                .map(|(name, d)| {
                    if d.stuck {
                        format!("{name}: no chain moved (R-hat NaN)")
                    } else {
                        format!(
                            "{name}: R-hat {}, ESS bulk {}, tail {}",
                            super::rhat_text(d.rhat),
                            fmt_f64(d.ess_bulk.round()),
                            fmt_f64(d.ess_tail.round())
                        )
                    }
                })
                .collect();
            why.join("; ")
        })
        .collect();
    cols.push(Series::new("short_on".into(), short_on).into());
    let burn_in = match u.burn_in_fraction {
        Some(f) => format!("burn-in {f} of each chain's iterations"),
        None => "burn-in as `run.burn_in`".to_string(),
    };
    let mut notes = vec![format!(
        "Per cell over its replicates: iterations per chain and chains per replicate used \
         (caps {} and {}); replicates that met the criterion on every monitored scalar, and \
         that stopped short at both caps; the worst R-hat and ESS at the last round ({burn_in}); \
         `short_on`: for a cell not met, the monitored scalars short of the criterion (worst \
         replicate, as in the convergence table; a scalar no chain moved has no R-hat and \
         never meets it). Each round doubles a short replicate's iterations, then, at max_iterations, its chains.",
        c.max_iterations, c.max_chains
    )];
    for r in &u.rounds {
        if let Some(b) = &r.criterion_before {
            notes.push(format!(
                "After round {}, a rerun changed the criterion from R-hat ≤ {}, ESS bulk ≥ {}, \
                 tail ≥ {}, caps {} and {}: every settled replicate was judged again on its \
                 stored chains ({} short, {} capped).",
                r.round,
                b.rhat,
                b.ess_bulk,
                b.ess_tail,
                b.max_iterations,
                b.max_chains,
                r.short,
                r.capped
            ));
        }
    }
    Ok(Table {
        name: "until".into(),
        title: format!(
            "Convergence-driven run: {} rounds, until R-hat ≤ {}, ESS bulk ≥ {}, ESS tail ≥ {}",
            u.rounds.len(),
            c.rhat,
            c.ess_bulk,
            c.ess_tail
        ),
        df: DataFrame::new_infer_height(cols)?,
        notes,
    })
}

/// The worst R-hat, bulk ESS and tail ESS of (cell, replicate) over the monitored scalars, from
/// the stored chains (the convergence table's figures for one replicate).
pub fn group_diagnostics(
    rd: &RunDir,
    m: &Manifest,
    cell: usize,
    replicate: u64,
) -> Result<CellConvergence, ReportError> {
    let scalars: Vec<&str> = m.monitor.iter().map(String::as_str).collect();
    let mut worst = CellConvergence::unknown();
    for chains in chain_draws_of(rd, m, cell, replicate, &scalars)? {
        if !chains.is_empty() {
            worst.fold_replicate(&chains);
        }
    }
    Ok(worst)
}

impl Criterion {
    /// Whether figures `d` meet the criterion (a NaN figure, or chains that never moved, do not).
    pub fn met(&self, d: &CellConvergence) -> bool {
        !d.stuck
            && d.rhat <= self.rhat
            && d.ess_bulk >= self.ess_bulk
            && d.ess_tail >= self.ess_tail
    }
}

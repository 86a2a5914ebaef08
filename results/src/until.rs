//! Convergence-driven runs (issue 13 §2): what `manifest.json` records of an experiment's
//! `until:` block and of its rounds, and the diagnostics a round is judged by.
//!
//! The coordinator (`causeway_coordinator::until`) runs the grid in rounds; after each round it
//! judges every (cell, replicate) group on the monitored scalars with [`group_diagnostics`] and
//! extends the groups that fall short. The record is rewritten after every round, so `causeway
//! status` shows the rounds and a rerun of the same command goes on from the last one.

use serde::{Deserialize, Serialize};

use crate::report::{CellConvergence, ReportError, chain_draws_of};
use crate::rundir::{Manifest, RunDir};

/// `until: {rhat, ess_bulk, ess_tail, max_iterations, max_chains}` as resolved: a group meets
/// the criterion when, on every monitored scalar, R-hat ≤ `rhat`, bulk ESS ≥ `ess_bulk` and
/// tail ESS ≥ `ess_tail` (Vehtari et al. 2021, as [`crate::diagnostics`] computes them).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Criterion {
    pub rhat: f64,
    pub ess_bulk: f64,
    pub ess_tail: f64,
    /// Most iterations one chain may reach.
    pub max_iterations: u64,
    /// Most chains one (cell, replicate) may have.
    pub max_chains: u64,
}

/// Where a group stands after a round.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum GroupState {
    /// Not yet judged, or judged short and extended in the next round.
    Running,
    /// Met the criterion.
    Met,
    /// Short at both caps: it stops here.
    Capped,
}

/// One (cell, replicate) group of chains.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GroupRecord {
    pub cell: usize,
    pub replicate: u64,
    /// Iterations of each of its chains (the current round's target).
    pub iterations: u64,
    /// Chains it runs (0 ..= chains − 1).
    pub chains: u64,
    pub state: GroupState,
    /// The worst figures over the monitored scalars at the last judgement (`None`: not judged
    /// yet, or not a number).
    pub rhat: Option<f64>,
    pub ess_bulk: Option<f64>,
    pub ess_tail: Option<f64>,
}

/// One finished round.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RoundRecord {
    /// 1-based.
    pub round: u32,
    /// Groups that ran chains in this round.
    pub groups_run: usize,
    /// Groups short of the criterion after it (extended next, unless capped).
    pub short: usize,
    /// Groups short after it that hit both caps.
    pub capped: usize,
    /// Wall-clock seconds of the round.
    pub seconds: f64,
}

/// What `manifest.json` records of a convergence-driven run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UntilRecord {
    pub criterion: Criterion,
    /// `run.burn_in` as a fraction of each chain's iterations, when the YAML gives a fraction:
    /// the diagnostics of a group drop ⌊fraction × its iterations⌋ iterations. `None`: the
    /// absolute `run.burn_in` of the cell.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub burn_in_fraction: Option<f64>,
    /// The round running or last run (1-based).
    pub round: u32,
    pub rounds: Vec<RoundRecord>,
    /// Every (cell, replicate), cell-major.
    pub groups: Vec<GroupRecord>,
}

impl UntilRecord {
    /// The group of (cell, replicate), if the record has it.
    pub fn group(&self, cell: usize, replicate: u64) -> Option<&GroupRecord> {
        self.groups
            .binary_search_by_key(&(cell, replicate), |g| (g.cell, g.replicate))
            .ok()
            .map(|i| &self.groups[i])
    }
}

impl Manifest {
    /// Iterations the diagnostics and trace-based tables of (cell, replicate) drop: the cell's
    /// `run.burn_in`, or in a convergence-driven run with a fractional burn-in, ⌊fraction ×
    /// the group's iterations⌋.
    pub fn burn_in(&self, cell: usize, replicate: u64) -> u64 {
        let base = self.cells[cell].run.burn_in;
        match &self.until {
            Some(u) => match (u.burn_in_fraction, u.group(cell, replicate)) {
                (Some(f), Some(g)) => (f * g.iterations as f64).floor() as u64,
                _ => base,
            },
            None => base,
        }
    }
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
    let mut worst = CellConvergence {
        rhat: f64::NAN,
        ess_bulk: f64::NAN,
        ess_tail: f64::NAN,
        stuck: false,
    };
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

/// A stored chain's rows, as a checkpoint holds them: iteration numbers, row-major draws (the
/// trace's columns after `iteration`, in file order), row-major sampler statistics, and the
/// wall-clock seconds of each row.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct StoredRows {
    pub iterations: Vec<u64>,
    pub trace: Vec<f64>,
    pub stats: Vec<f64>,
    pub elapsed_seconds: Vec<f64>,
}

/// Rows of job `id`'s stored trace (`None`: no readable trace).
pub fn trace_rows(rd: &RunDir, id: &str) -> Option<usize> {
    rd.read_trace(id).ok().map(|df| df.height())
}

/// Read job `id`'s stored rows back (to extend the chain: the rows are not run again), with
/// their timing (NaN seconds if it was lost). Errors: a file missing or unreadable, or files
/// whose row counts differ.
pub fn stored_rows(rd: &RunDir, id: &str) -> Result<StoredRows, ReportError> {
    use polars::prelude::DataFrame;
    fn row_major(df: &DataFrame) -> Result<Vec<f64>, ReportError> {
        let mut cols = Vec::new();
        for c in df.columns() {
            if c.name().as_str() != "iteration" {
                cols.push(
                    c.f64()?
                        .iter()
                        .map(|x| x.unwrap_or(f64::NAN))
                        .collect::<Vec<_>>(),
                );
            }
        }
        let mut out = Vec::with_capacity(cols.len() * df.height());
        for r in 0..df.height() {
            out.extend(cols.iter().map(|c| c[r]));
        }
        Ok(out)
    }
    let trace = rd.read_trace(id)?;
    let n = trace.height();
    let iterations: Vec<u64> = trace
        .column("iteration")?
        .u64()?
        .into_no_null_iter()
        .collect();
    let stats = match rd.read_sample_stats(id)? {
        Some(s) if s.height() == n => row_major(&s)?,
        Some(_) => {
            return Err(ReportError::Other(format!(
                "{id}: sample_stats rows differ"
            )));
        }
        None => Vec::new(),
    };
    // The rows' wall-clock seconds; NaN where they were lost (a coordinator killed between a
    // round's files and its row leaves no timing, or the previous round's: the results are
    // kept, the seconds are unknown).
    let elapsed_seconds: Vec<f64> = match rd.read_timing(id)? {
        Some(t) if t.elapsed_seconds.len() == n => t.elapsed_seconds,
        _ => vec![f64::NAN; n],
    };
    Ok(StoredRows {
        iterations,
        trace: row_major(&trace)?,
        stats,
        elapsed_seconds,
    })
}

//! What `manifest.json` records of an experiment's `until:` block and of its rounds (a
//! convergence-driven run), and the burn-in that follows from it.
//!
//! The coordinator runs the grid in rounds; after each round it judges every (cell, replicate)
//! group on the monitored scalars (`crate::report::until_table::group_diagnostics`) and extends
//! the groups that fall short. The record is rewritten after every round, so `causeway status`
//! shows the rounds and a rerun of the same command goes on from the last one.

use serde::{Deserialize, Serialize};

use super::Manifest;

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
    /// Set on a round that ran nothing: a rerun changed the criterion (this was the one
    /// before), and every settled group was judged again on its stored chains.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub criterion_before: Option<Criterion>,
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

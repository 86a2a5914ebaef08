//! Which planned chains a run directory holds: a killed run, or one with failed chains, has
//! tables built from fewer chains than its plan, and its report and `causeway check` say so.

use super::{Manifest, RunDir};

/// A cell with fewer stored chains than its plan.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MissingChains {
    pub cell: usize,
    /// Chains of the cell whose trace is stored.
    pub stored: u64,
    /// Chains the plan runs for the cell: every job of the cell, or in a convergence-driven
    /// run the chains its groups run now (`UntilRecord`).
    pub planned: u64,
}

impl RunDir {
    /// The cells of `m` with fewer stored chains than planned, in cell order (empty for a
    /// complete run).
    pub fn missing_chains(&self, m: &Manifest) -> Vec<MissingChains> {
        let stored = self.stored_index();
        let mut counts = vec![(0u64, 0u64); m.cells.len()];
        for j in m.jobs.iter() {
            let planned = match &m.until {
                Some(u) => u
                    .group(j.cell, j.replicate)
                    .is_none_or(|g| j.chain < g.chains),
                None => true,
            };
            if planned && let Some(c) = counts.get_mut(j.cell) {
                c.1 += 1;
                c.0 += u64::from(stored.contains(&j.job_id));
            }
        }
        counts
            .into_iter()
            .enumerate()
            .filter(|(_, (s, p))| s < p)
            .map(|(cell, (stored, planned))| MissingChains {
                cell,
                stored,
                planned,
            })
            .collect()
    }
}

/// One line for a report or a check: "51 of 144 planned chains are stored; 12 cells have fewer
/// chains than planned" (`None` for a complete run).
pub fn missing_summary(missing: &[MissingChains]) -> Option<String> {
    if missing.is_empty() {
        return None;
    }
    let absent: u64 = missing.iter().map(|x| x.planned - x.stored).sum();
    let list: Vec<String> = missing
        .iter()
        .take(20)
        .map(|x| format!("cell {} ({} of {})", x.cell, x.stored, x.planned))
        .collect();
    Some(format!(
        "{absent} planned chains are not stored; {} cells have fewer chains than planned: {}{}",
        missing.len(),
        list.join(", "),
        if missing.len() > 20 { ", …" } else { "" }
    ))
}

//! The grid's chains and their seeds (`causeway_papers::seed`): a chain's stream is keyed by
//! the chain seed (the experiment's `seed`, unless `chain_seed:` or `--chain-seed` gives
//! another), its cell, replicate and chain number. Datasets are keyed by `seed` alone, so two
//! runs that differ only in their chain seed estimate exactly the same quantities.

use causeway_results::rundir::{CellRecord, JobRecord, SeedRecord};

use super::Plan;

/// Every chain of the grid, cell-major, then replicate, then chain.
pub(super) fn expand_jobs(
    cells: &[CellRecord],
    chain_seed: u64,
    replicates: u64,
    chains: u64,
) -> Vec<JobRecord> {
    let wc = digits(cells.len());
    let wr = digits(replicates as usize);
    let wk = digits(chains as usize);
    let mut out = Vec::with_capacity(cells.len() * (replicates * chains) as usize);
    for c in cells {
        for r in 0..replicates {
            for k in 0..chains {
                out.push(JobRecord {
                    job_id: format!("cell{:0wc$}-rep{:0wr$}-chain{:0wk$}", c.index, r, k),
                    cell: c.index,
                    replicate: r,
                    chain: k,
                    seed: SeedRecord {
                        base_seed: chain_seed,
                        cell: c.key,
                        replicate: r,
                        chain: k,
                    },
                });
            }
        }
    }
    out
}

fn digits(n: usize) -> usize {
    n.saturating_sub(1).max(1).to_string().len()
}

impl Plan {
    /// The same plan with its chains on the streams of `chain_seed` (`--chain-seed`): the
    /// datasets do not change. The run's identity does (its chains do), so a run directory
    /// refuses to resume under another chain seed.
    pub fn with_chain_seed(mut self, chain_seed: u64) -> Plan {
        self.manifest.chain_seed = (chain_seed != self.manifest.base_seed).then_some(chain_seed);
        for j in std::sync::Arc::make_mut(&mut self.manifest.jobs) {
            j.seed.base_seed = chain_seed;
        }
        self
    }
}

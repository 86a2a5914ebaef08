//! Algorithm 2 (§4.1, eq 13): one Gibbs sweep over the edge indicators z_j of the candidate
//! parents, γ_j integrated out, given t_j; and the cache of contingency tables by parent set.

use std::collections::HashMap;

use rand::RngExt;

use super::Defect;
use crate::hidden2025::datasets::{DiscreteData, ParentTable};
use crate::hidden2025::equations::{edge_log_weights, log_marginal_likelihood};
use crate::math::log_add_exp;
use crate::seed::ChainRng;

/// Most tables kept by a [`TableCache`] before it is emptied (each is O(occupied × k_j)).
pub const TABLE_CACHE_SIZE: usize = 4096;

/// Contingency tables of one node keyed by the bit mask of its parents among a pool of columns
/// (bit i ↦ `pool[i]`; parents in pool order). Each table is built once in O(n).
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct TableCache {
    /// The node j.
    pub node: usize,
    /// The pool (candidates, or the fixed parent set), ≤ 63 columns.
    pub pool: Vec<usize>,
    tables: HashMap<u64, ParentTable>,
}

impl TableCache {
    /// An empty cache for `node` with parents drawn from `pool`.
    pub fn new(node: usize, pool: Vec<usize>) -> Self {
        TableCache {
            node,
            pool,
            tables: HashMap::new(),
        }
    }

    /// The columns of parent set `mask`, in pool order.
    pub fn parents(&self, mask: u64) -> Vec<usize> {
        self.pool
            .iter()
            .enumerate()
            .filter(|(i, _)| mask >> i & 1 == 1)
            .map(|(_, &p)| p)
            .collect()
    }

    /// The table of parent set `mask` (built on first use).
    pub fn table(&mut self, data: &DiscreteData, mask: u64) -> &ParentTable {
        if !self.tables.contains_key(&mask) && self.tables.len() >= TABLE_CACHE_SIZE {
            self.tables.clear();
        }
        let parents = self.parents(mask);
        let node = self.node;
        self.tables
            .entry(mask)
            .or_insert_with(|| data.table(node, &parents))
    }
}

/// Algorithm 2: for each candidate i in pool order, draw z_i from eq 13 given the others and t
/// (log w0 = log(d + #zeros) + eq 7 without i, log w1 = log(c + #ones) + eq 7 with i). Returns
/// the new mask. `(c, d)` are the Beta(c_j, d_j) parameters of γ_j.
pub(crate) fn edge_sweep(
    cache: &mut TableCache,
    data: &DiscreteData,
    mask: u64,
    t: &[f64],
    (c, d): (f64, f64),
    rng: &mut ChainRng,
    defect: Option<Defect>,
) -> u64 {
    let m = cache.pool.len();
    let mut mask = mask;
    for i in 0..m {
        let bit = 1u64 << i;
        let without = mask & !bit;
        let with = mask | bit;
        let ones = without.count_ones() as usize;
        let zeros = m - 1 - ones;
        let lml0 = log_marginal_likelihood(cache.table(data, without), t);
        let lml1 = log_marginal_likelihood(cache.table(data, with), t);
        let (w0, w1) = if defect == Some(Defect::NoEdgePriorFactor) {
            (lml0, lml1)
        } else {
            edge_log_weights(c, d, ones, zeros, lml0, lml1)
        };
        let p1 = (w1 - log_add_exp(w0, w1)).exp();
        let u: f64 = rng.random::<f64>();
        mask = if u < p1 { with } else { without };
    }
    mask
}

/// `swaps` Metropolis–Hastings swap proposals given t: draw a parent i uniformly among the
/// candidates with z_i = 1 and a candidate o uniformly among those with z_o = 0, propose z_i = 0,
/// z_o = 1, and accept with probability min(1, f(n_j | Pa′, t) / f(n_j | Pa, t)) (eq 7). The
/// number of parents is unchanged, so the Beta–Bernoulli prior of eq 13's indicators cancels,
/// and the reverse move has the same probability 1/(#ones · #zeros). Not in the paper: Algorithm
/// 2 changes one indicator at a time, and where two parents carry the same information (on
/// METABRIC, INC and AAD for CHT) its chains stay in whichever mode they start in; one swap
/// crosses the valley. Returns the new mask and the number of accepted swaps.
pub(crate) fn edge_swaps(
    cache: &mut TableCache,
    data: &DiscreteData,
    mask: u64,
    t: &[f64],
    swaps: u32,
    rng: &mut ChainRng,
    defect: Option<Defect>,
) -> (u64, u32) {
    let m = cache.pool.len();
    let mut mask = mask;
    let mut accepted = 0;
    for _ in 0..swaps {
        let ones: Vec<usize> = (0..m).filter(|i| mask >> i & 1 == 1).collect();
        let zeros: Vec<usize> = (0..m).filter(|i| mask >> i & 1 == 0).collect();
        if ones.is_empty() || zeros.is_empty() {
            return (mask, accepted);
        }
        let out = ones[rng.random_range(0..ones.len())];
        let inn = zeros[rng.random_range(0..zeros.len())];
        let proposal = mask & !(1u64 << out) | 1u64 << inn;
        let log_ratio = log_marginal_likelihood(cache.table(data, proposal), t)
            - log_marginal_likelihood(cache.table(data, mask), t);
        let u: f64 = rng.random::<f64>();
        if defect == Some(Defect::SwapAlwaysAccepted) || u.ln() < log_ratio {
            mask = proposal;
            accepted += 1;
        }
    }
    (mask, accepted)
}

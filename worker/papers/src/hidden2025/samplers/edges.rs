//! Algorithm 2 (§4.1, eq 13): one Gibbs sweep over the edge indicators z_j of the candidate
//! parents, γ_j integrated out, given t_j; the optional block update that follows it
//! (`block_size`, not in the paper); and the cache of contingency tables by parent set.

use std::collections::HashMap;

use rand::RngExt;

use super::Defect;
use super::parent_sets::categorical;
use crate::hidden2025::datasets::{DiscreteData, ParentTable};
use crate::hidden2025::equations::{edge_log_weights, log_edge_prior, log_marginal_likelihood};
use crate::hidden2025::params::Resolved;
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

/// A Gibbs update of `cfg.block_size` edge indicators at once, given t and the others: the block
/// is drawn uniformly among the candidates (without replacement), and its 2^size settings are
/// drawn from their exact conditional, ∝ B(c + #ones, d + #zeros) f(n_j | Pa, t) (eq 13's prior
/// with γ_j integrated out, c and d from `cfg`, and eq 7). Not in the paper: Algorithm 2 changes
/// one indicator at a time, and where a set of parents is only better than another as a whole
/// (on METABRIC for CHT, {AAD, HTH, TBS} against INC) its chains stay in whichever mode they
/// start in. The size is capped at the number of candidates; 0 or 1 leaves the mask as it is.
pub(crate) fn edge_block(
    cache: &mut TableCache,
    data: &DiscreteData,
    mask: u64,
    t: &[f64],
    cfg: &Resolved,
    rng: &mut ChainRng,
    defect: Option<Defect>,
) -> u64 {
    let (c, d) = (cfg.c, cfg.d);
    let m = cache.pool.len();
    let size = cfg.block_size.min(m);
    if size < 2 {
        return mask;
    }
    // The first `size` entries of a partial Fisher–Yates shuffle of 0..m.
    let mut order: Vec<usize> = (0..m).collect();
    for i in 0..size {
        let j = rng.random_range(i..m);
        order.swap(i, j);
    }
    let block: u64 = order[..size].iter().map(|&i| 1u64 << i).sum();
    let rest = mask & !block;
    let settings: Vec<u64> = (0..1u64 << size)
        .map(|s| {
            (0..size)
                .filter(|b| s >> b & 1 == 1)
                .map(|b| 1u64 << order[b])
                .sum::<u64>()
                | rest
        })
        .collect();
    let logw: Vec<f64> = settings
        .iter()
        .map(|&z| {
            let ones = z.count_ones() as usize;
            let prior = if defect == Some(Defect::BlockWithoutEdgePrior) {
                0.0
            } else {
                log_edge_prior(ones, m - ones, c, d)
            };
            prior + log_marginal_likelihood(cache.table(data, z), t)
        })
        .collect();
    categorical(&logw, rng).map_or(mask, |k| settings[k])
}

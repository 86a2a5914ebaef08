//! HiDDeN's samplers: Algorithm 1 (MALA-within-Gibbs for t_j, [`mala`]), Algorithm 2 (edge
//! indicators, [`edges`]), Algorithm 3 (candidate parent sets, [`parent_sets`]), Algorithm 4
//! (candidate DAGs, [`dags`]), the node-by-node DAG sampler of §4.4 ([`dag_gibbs`]) and the
//! exact method for k_j ≤ 3 ([`exact`]); supplement G's MMLE as a one-shot job ([`mmle`]).
//!
//! [`HiddenSampler`] runs one chain for one node: `method: mala` (Algorithm 1 with a fixed parent
//! set) or `method: edges` (Algorithms 1 + 2). One iteration is, in order: u_j given t_j and the
//! current parent set, one MALA step per category of t_j, then (edges) the indicators given t_j.

pub mod dag_gibbs;
pub mod dags;
pub mod edges;
pub mod exact;
pub mod mala;
pub mod mmle;
mod node_t;
pub mod parent_sets;

pub use self::dag_gibbs::{DagGibbsSampler, enumerate_dags};
pub use self::dags::DagSampler;
pub use self::edges::TableCache;
pub use self::exact::{
    ExactPosterior, ExactSampler, ExactSet, exact_dag_posterior, exact_log_evidence,
    exact_posterior,
};
pub use self::mmle::MmleSampler;
pub use self::parent_sets::{ParentSetSampler, draw_parent_set};

use std::collections::HashMap;

use rand::RngExt;

use self::edges::{edge_block, edge_sweep};
use self::node_t::{AdaptWindow, NodeT};
use crate::chain::{Sampler, SamplerError};
use crate::data::Matrix;
use crate::hidden2025::datasets::{DiscreteData, ParentTable};
use crate::hidden2025::equations::{log_posterior, predictive};
use crate::hidden2025::params::{Init, Method, Params, Resolved};
use crate::seed::ChainRng;

/// Deliberately broken kernels, for the negative-control tests only. Switched on with
/// `HiddenSampler::with_defect` (or `mala::mala_step_with_defect`), which exist only with the
/// `testing` feature. See `causeway_papers::testing` for the convention.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Defect {
    /// MALA without its Metropolis–Hastings correction: every positive proposal is accepted.
    NoMhCorrection,
    /// u_j(c) ~ Beta(β_j, n_c + 1) instead of Beta(β_j, n_c).
    BetaShapePlusOne,
    /// Algorithm 2 without the (c + #ones)/(d + #zeros) factor of eq 13.
    NoEdgePriorFactor,
    /// Algorithm 3 without the prior probabilities Pr(Pa_m) (as if uniform).
    NoParentSetPrior,
    /// Algorithm 4 with only the first sampled node's eq 7 in Pr(G_m | −) (the other nodes
    /// whose parent sets differ are forgotten, as if it were Algorithm 3).
    DagFirstNodeOnly,
    /// The node-by-node DAG sampler without the acyclicity check: an edge that closes a
    /// directed cycle is drawn like any other.
    CyclesAllowed,
    /// `block_size`'s block update without eq 13's prior (as if every setting were equally
    /// likely a priori).
    BlockWithoutEdgePrior,
}

/// The label of a DAG in summaries: its arcs `parent->child` joined by `;` (children in node
/// order, parents in column order), `(empty)` without arcs.
pub fn dag_label(data: &DiscreteData, nodes: &[usize], parents: &[u64]) -> String {
    let mut arcs = Vec::new();
    for (j, &mask) in parents.iter().enumerate() {
        let mut pa: Vec<usize> = (0..nodes.len())
            .filter(|i| mask >> i & 1 == 1)
            .map(|i| nodes[i])
            .collect();
        pa.sort_unstable();
        for p in pa {
            arcs.push(format!("{}->{}", data.names[p], data.names[nodes[j]]));
        }
    }
    if arcs.is_empty() {
        "(empty)".into()
    } else {
        arcs.join(";")
    }
}

/// The label of a parent set in summaries: names joined by `;`, `(empty)` for no parents.
pub fn parent_set_label(data: &DiscreteData, parents: &[usize]) -> String {
    if parents.is_empty() {
        "(empty)".to_string()
    } else {
        parents
            .iter()
            .map(|&p| data.names[p].as_str())
            .collect::<Vec<_>>()
            .join(";")
    }
}

/// The occupied configurations of a pool of columns, with one representative row each (to find
/// the configuration of any subset of the pool): the rows of eq 14's predictive PMF.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub(crate) struct PoolConfigs {
    /// Configuration codes of the pool, ascending.
    pub codes: Vec<u64>,
    /// A row of the data in each configuration.
    pub rows: Vec<usize>,
}

impl PoolConfigs {
    pub fn new(data: &DiscreteData, pool: &[usize]) -> Self {
        let codes = data.config_codes(pool);
        let mut first: HashMap<u64, usize> = HashMap::new();
        for (i, &c) in codes.iter().enumerate() {
            first.entry(c).or_insert(i);
        }
        let mut pairs: Vec<(u64, usize)> = first.into_iter().collect();
        pairs.sort_unstable();
        PoolConfigs {
            codes: pairs.iter().map(|p| p.0).collect(),
            rows: pairs.iter().map(|p| p.1).collect(),
        }
    }

    /// The code of row `row` under `parents` (see `ParentTable::configs`).
    pub fn code_of(data: &DiscreteData, parents: &[usize], row: usize) -> u64 {
        let mut code = 0u64;
        let mut radix = 1u64;
        for &p in parents {
            code = code.wrapping_add(radix.wrapping_mul(data.columns[p][row] as u64));
            radix = radix.saturating_mul(data.k(p) as u64);
        }
        code
    }

    /// eq 14's summand: add eq 6's PMF at `t` of each pool configuration that `table` (the
    /// node's table under `parents`) has occupied to `sums` (configurations × k_j, row-major).
    pub fn accumulate_predictive(
        &self,
        data: &DiscreteData,
        parents: &[usize],
        table: &ParentTable,
        t: &[f64],
        sums: &mut [f64],
    ) {
        let k = t.len();
        for (r, &row) in self.rows.iter().enumerate() {
            let code = Self::code_of(data, parents, row);
            if let Ok(c) = table.configs.binary_search(&code) {
                let p = predictive(t, table.row(c));
                for (a, b) in sums[r * k..(r + 1) * k].iter_mut().zip(&p) {
                    *a += b;
                }
            }
        }
    }
}

/// Check `params` and resolve them against `data` (every sampler's first step). Errors:
/// [`SamplerError::Input`] with the parameter's path.
pub(crate) fn resolve_params(
    params: &Params,
    data: &DiscreteData,
) -> Result<Resolved, SamplerError> {
    let input = |e: crate::params::ParamError| SamplerError::Input(e.to_string());
    params.check("params").map_err(input)?;
    params.resolve("params", data).map_err(input)
}

/// The summaries `predictive` (eq 14: the pool's occupied configurations `codes` × k_j,
/// `values` row-major, columns the node's levels) and `predictive_n` (their counts n_c, × 1),
/// rows named by the configurations' labels.
pub(crate) fn predictive_summaries(
    data: &DiscreteData,
    node: usize,
    pool: &[usize],
    codes: &[u64],
    values: Vec<f64>,
) -> [Matrix; 2] {
    let levels = &data.levels[node];
    let mut m = Matrix::new("predictive", codes.len(), levels.len(), values);
    m.row_names = codes.iter().map(|&c| data.config_label(pool, c)).collect();
    m.col_names = levels.clone();
    let pool_table = data.table(node, pool);
    let mut nm = Matrix::new(
        "predictive_n",
        codes.len(),
        1,
        pool_table.totals.iter().map(|&t| t as f64).collect(),
    );
    nm.row_names = m.row_names.clone();
    [m, nm]
}

/// The summary `edge_probabilities`: one row per column of `pool` (named), one column
/// `probability`.
pub(crate) fn edge_probabilities(data: &DiscreteData, pool: &[usize], values: Vec<f64>) -> Matrix {
    let mut m = Matrix::new("edge_probabilities", pool.len(), 1, values);
    m.row_names = pool.iter().map(|&p| data.names[p].clone()).collect();
    m.col_names = vec!["probability".into()];
    m
}

/// A summary of visited structures: `rows` (label, visits) in the given order × [count,
/// frequency] over `n` accumulated iterations.
pub(crate) fn visit_counts(name: &str, rows: Vec<(String, u64)>, n: f64) -> Matrix {
    let mut m = Matrix::new(
        name,
        rows.len(),
        2,
        rows.iter()
            .flat_map(|r| [r.1 as f64, r.1 as f64 / n])
            .collect(),
    );
    m.row_names = rows.into_iter().map(|r| r.0).collect();
    m.col_names = vec!["count".into(), "frequency".into()];
    m
}

/// One chain of Algorithm 1 (`method: mala`) or Algorithms 1 + 2 (`method: edges`) for one node.
///
/// Trace: `log_posterior` (supplement B, with ρ/k_j), `n_parents` (|Pa(j)|), `t_0` … `t_{k−1}`,
/// and for `edges` `z_0` … `z_{|Ca|−1}`. Sampler statistics: `accept_0` … `accept_{k−1}` (1 if
/// the MALA step of that category accepted). Summaries (after burn-in): `t_mean` (1 × k_j),
/// `acceptance` (1 × k_j), `step_sizes` (1 × k_j, the final ε), `parent_sets` (visited sets ×
/// [count, frequency], most visited first), `edge_probabilities` (`edges`: |Ca| × 1),
/// `predictive` (eq 14: occupied configurations of the pool × k_j) and `predictive_n` (their
/// counts n_c, × 1).
#[derive(serde::Serialize, serde::Deserialize)]
pub struct HiddenSampler {
    data: DiscreteData,
    cfg: Resolved,
    cache: TableCache,
    /// Current parent set as a bit mask over the pool.
    mask: u64,
    /// t_j, its step sizes, acceptance record and post-burn-in sums.
    node: NodeT,
    log_u: Vec<f64>,
    log_post: f64,
    pool_configs: PoolConfigs,
    // adaptation
    /// When ε adapts, and the iterations done.
    window: AdaptWindow,
    // accumulators (post burn-in)
    n_accum: u64,
    z_sum: Vec<f64>,
    set_counts: HashMap<u64, u64>,
    pred_sum: Vec<f64>,
    defect: Option<Defect>,
}

impl HiddenSampler {
    /// Build a chain for `data` from the cell's `params` (already parsed): resolve them against
    /// the data, start t at `t0` and the indicators per `init` (drawing from `rng` for `prior`).
    /// Errors: [`SamplerError::Input`] with the parameter's path if the params do not fit the
    /// data, or if the method is `exact` (use [`ExactSampler`]).
    pub fn new(
        data: &DiscreteData,
        params: &Params,
        rng: &mut ChainRng,
    ) -> Result<Self, SamplerError> {
        let cfg = resolve_params(params, data)?;
        Self::from_resolved(data.clone(), cfg, rng)
    }

    /// [`HiddenSampler::new`] from already resolved parameters.
    pub fn from_resolved(
        data: DiscreteData,
        cfg: Resolved,
        rng: &mut ChainRng,
    ) -> Result<Self, SamplerError> {
        let (pool, mask) = match cfg.method {
            Method::Mala => {
                let pool = cfg.parents.clone().unwrap_or_default();
                let m = pool.len();
                (pool, if m == 0 { 0 } else { u64::MAX >> (64 - m) })
            }
            Method::Edges => {
                let pool = cfg.candidates.clone();
                let m = pool.len();
                let mut mask = 0u64;
                for i in 0..m {
                    let on = match cfg.init {
                        Init::Empty => false,
                        Init::Full => true,
                        Init::Prior => rng.random::<f64>() < cfg.c / (cfg.c + cfg.d),
                    };
                    if on {
                        mask |= 1 << i;
                    }
                }
                (pool, mask)
            }
            Method::Exact | Method::Mmle => {
                return Err(SamplerError::Input(
                    "params.method: exact and mmle are computed by ExactSampler and MmleSampler, not by MCMC".into(),
                ));
            }
            Method::ParentSets | Method::Dags | Method::Dag => {
                return Err(SamplerError::Input(
                    "params.method: parent_sets, dags and dag have their own samplers (ParentSetSampler, DagSampler, DagGibbsSampler)".into(),
                ));
            }
        };
        if cfg.step_sizes.len() != cfg.k || cfg.t0.len() != cfg.k {
            return Err(SamplerError::Input(format!(
                "params.step_sizes: node {} needs {} step sizes and t0 values",
                data.names[cfg.node], cfg.k
            )));
        }
        let k = cfg.k;
        let m = pool.len();
        let pool_configs = PoolConfigs::new(&data, &pool);
        let n_pool = pool_configs.codes.len();
        let mut s = HiddenSampler {
            cache: TableCache::new(cfg.node, pool),
            mask,
            node: NodeT::new(
                cfg.shape,
                cfg.rate,
                cfg.t0.clone(),
                cfg.step_sizes.clone(),
                cfg.adapt,
            ),
            log_u: Vec::new(),
            log_post: 0.0,
            pool_configs,
            window: AdaptWindow::new(cfg.adapt.is_some()),
            n_accum: 0,
            z_sum: vec![0.0; m],
            set_counts: HashMap::new(),
            pred_sum: vec![0.0; n_pool * k],
            defect: None,
            data,
            cfg,
        };
        s.log_post = s.compute_log_posterior();
        Ok(s)
    }

    /// Switch on a deliberately broken kernel (negative-control tests only).
    #[cfg(feature = "testing")]
    pub fn with_defect(mut self, defect: impl Into<Option<Defect>>) -> Self {
        self.defect = defect.into();
        self
    }

    /// The resolved parameters.
    pub fn config(&self) -> &Resolved {
        &self.cfg
    }

    /// Current t_j.
    pub fn t(&self) -> &[f64] {
        &self.node.t
    }

    /// Current step sizes ε_j.
    pub fn step_sizes(&self) -> &[f64] {
        &self.node.eps
    }

    /// Current parent set (column indices, pool order).
    pub fn parents(&self) -> Vec<usize> {
        self.cache.parents(self.mask)
    }

    /// Current parent set as a bit mask over the pool (bit i ↦ i-th candidate / fixed parent).
    pub fn mask(&self) -> u64 {
        self.mask
    }

    /// The current log u_j per occupied configuration (empty before the first step).
    pub fn log_u(&self) -> &[f64] {
        &self.log_u
    }

    /// The last step's acceptance indicators, one per category.
    pub fn accepted(&self) -> &[bool] {
        &self.node.accepted
    }

    /// Current supplement-B log posterior.
    pub fn log_posterior(&self) -> f64 {
        self.log_post
    }

    /// Replace t_j (length k_j, all > 0) and, for `edges`, the parent mask.
    pub fn set_state(&mut self, t: &[f64], mask: Option<u64>) -> Result<(), SamplerError> {
        if t.len() != self.cfg.k || t.iter().any(|&x| !(x > 0.0 && x.is_finite())) {
            return Err(SamplerError::Input(format!(
                "t must be {} positive values",
                self.cfg.k
            )));
        }
        if let Some(m) = mask {
            let p = self.cache.pool.len();
            if self.cfg.method != Method::Edges || (p < 64 && m >> p != 0) {
                return Err(SamplerError::Input(format!(
                    "mask {m:#b} is not a subset of the candidates"
                )));
            }
            self.mask = m;
        }
        self.node.t = t.to_vec();
        self.log_post = self.compute_log_posterior();
        Ok(())
    }

    /// Replace the data (same columns and levels; Geweke's successive-conditional simulator).
    pub fn set_data(&mut self, data: DiscreteData) -> Result<(), SamplerError> {
        if data.names != self.data.names || data.levels != self.data.levels {
            return Err(SamplerError::Input(
                "set_data needs the same columns and levels".into(),
            ));
        }
        self.pool_configs = PoolConfigs::new(&data, &self.cache.pool);
        self.pred_sum = vec![0.0; self.pool_configs.codes.len() * self.cfg.k];
        self.cache = TableCache::new(self.cfg.node, self.cache.pool.clone());
        self.data = data;
        self.log_post = self.compute_log_posterior();
        Ok(())
    }

    fn compute_log_posterior(&mut self) -> f64 {
        let edges = (self.cfg.method == Method::Edges).then(|| {
            let ones = self.mask.count_ones() as usize;
            (ones, self.cache.pool.len() - ones, self.cfg.c, self.cfg.d)
        });
        let table = self.cache.table(&self.data, self.mask);
        log_posterior(table, &self.node.t, self.cfg.shape, self.cfg.rate, edges)
    }

    /// Algorithm 1: draw u_j for each occupied configuration, then one MALA step per category
    /// in order (adapting ε during burn-in if asked).
    pub fn update_t(&mut self, rng: &mut ChainRng) -> Result<(), SamplerError> {
        let table = self.cache.table(&self.data, self.mask);
        self.log_u = self.node.update(table, rng, self.defect, &self.window)?;
        Ok(())
    }

    /// Algorithm 2 given the current t_j (no-op for `method: mala`).
    pub fn update_edges(&mut self, rng: &mut ChainRng) {
        if self.cfg.method == Method::Edges {
            self.mask = edge_sweep(
                &mut self.cache,
                &self.data,
                self.mask,
                &self.node.t,
                (self.cfg.c, self.cfg.d),
                rng,
                self.defect,
            );
            self.mask = edge_block(
                &mut self.cache,
                &self.data,
                self.mask,
                &self.node.t,
                &self.cfg,
                rng,
                self.defect,
            );
        }
    }
}

/// The log posterior of a finished iteration, which every sampler here records and which must
/// be finite; otherwise the chain fails with it and `context` (e.g. the current t).
pub(crate) fn finite_log_posterior(
    lp: f64,
    context: impl FnOnce() -> String,
) -> Result<f64, SamplerError> {
    if lp.is_finite() {
        Ok(lp)
    } else {
        Err(SamplerError::Numerical(format!(
            "log_posterior = {lp}{}",
            context()
        )))
    }
}

impl Sampler for HiddenSampler {
    /// Adaptation (if `adapt` is set) runs during the first `spec.burn_in` iterations exactly.
    fn begin(&mut self, spec: &crate::chain::RunSpec) {
        self.window.begin(spec.burn_in);
    }

    fn trace_names(&self) -> Vec<String> {
        let mut v = vec!["log_posterior".to_string(), "n_parents".to_string()];
        v.extend((0..self.cfg.k).map(|x| format!("t_{x}")));
        if self.cfg.method == Method::Edges {
            v.extend((0..self.cache.pool.len()).map(|i| format!("z_{i}")));
        }
        v
    }

    fn step(&mut self, rng: &mut ChainRng) -> Result<(), SamplerError> {
        self.window.start_step();
        self.update_t(rng)?;
        self.update_edges(rng);
        self.window.iteration += 1;
        let lp = self.compute_log_posterior();
        let t = &self.node.t;
        self.log_post = finite_log_posterior(lp, || format!(" at t = {t:?}"))?;
        Ok(())
    }

    fn record(&self, row: &mut Vec<f64>) {
        row.push(self.log_post);
        row.push(self.mask.count_ones() as f64);
        row.extend_from_slice(&self.node.t);
        if self.cfg.method == Method::Edges {
            row.extend((0..self.cache.pool.len()).map(|i| (self.mask >> i & 1) as f64));
        }
    }

    fn stat_names(&self) -> Vec<String> {
        (0..self.cfg.k).map(|x| format!("accept_{x}")).collect()
    }

    fn record_stats(&self, row: &mut Vec<f64>) {
        row.extend(
            self.node
                .accepted
                .iter()
                .map(|&a| if a { 1.0 } else { 0.0 }),
        );
    }

    fn accumulate(&mut self) {
        self.window.accumulate();
        self.n_accum += 1;
        self.node.accumulate();
        for (i, z) in self.z_sum.iter_mut().enumerate() {
            *z += (self.mask >> i & 1) as f64;
        }
        *self.set_counts.entry(self.mask).or_insert(0) += 1;
        // eq 14: the summand of eq 6 for each occupied configuration of the pool.
        let parents = self.cache.parents(self.mask);
        let table = self.cache.table(&self.data, self.mask);
        self.pool_configs.accumulate_predictive(
            &self.data,
            &parents,
            table,
            &self.node.t,
            &mut self.pred_sum,
        );
    }

    fn summary(&self) -> Vec<Matrix> {
        let n = self.n_accum.max(1) as f64;
        let mut out = self.node.summaries(&self.data.levels[self.cfg.node], n);
        let mut sets: Vec<(&u64, &u64)> = self.set_counts.iter().collect();
        sets.sort_by(|a, b| {
            b.1.cmp(a.1)
                .then(a.0.count_ones().cmp(&b.0.count_ones()))
                .then(a.0.reverse_bits().cmp(&b.0.reverse_bits()))
        });
        let rows = sets
            .iter()
            .map(|(mask, c)| {
                let label = parent_set_label(&self.data, &self.cache.parents(**mask));
                (label, **c)
            })
            .collect();
        out.push(visit_counts("parent_sets", rows, n));
        if self.cfg.method == Method::Edges {
            let z = self.z_sum.iter().map(|s| s / n).collect();
            out.push(edge_probabilities(&self.data, &self.cache.pool, z));
        }
        out.extend(predictive_summaries(
            &self.data,
            self.cfg.node,
            &self.cache.pool,
            &self.pool_configs.codes,
            self.pred_sum.iter().map(|s| s / n).collect(),
        ));
        out
    }

    crate::serde_checkpoint!();
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chain::{RunSpec, run_chain};
    use crate::seed::chain_rng;

    /// A (2 levels), B (3), C (2); n = 8 (also the structure samplers' unit-test data).
    pub(super) fn data() -> DiscreteData {
        DiscreteData::labelled(
            &[
                ("A", &["a0", "a1"]),
                ("B", &["b0", "b1", "b2"]),
                ("C", &["no", "yes"]),
            ],
            vec![
                vec![0, 1, 0, 1, 0, 0, 1, 1],
                vec![2, 2, 0, 1, 2, 0, 1, 0],
                vec![1, 0, 0, 1, 1, 1, 0, 1],
            ],
        )
        .expect("data")
    }

    #[test]
    fn chain_records_trace_stats_and_summaries() {
        let p = Params::from_value(
            "params",
            &serde_json::json!({"method": "edges", "node": "C", "candidates": ["A", "B"],
                "step_sizes": [0.5, 0.5], "init": "full", "adapt": {"target": 0.574}}),
        )
        .expect("params");
        let mut rng = chain_rng(1, 0, 0, 0);
        let mut s = HiddenSampler::new(&data(), &p, &mut rng).expect("sampler");
        assert_eq!(s.mask(), 0b11);
        assert_eq!(
            s.trace_names(),
            ["log_posterior", "n_parents", "t_0", "t_1", "z_0", "z_1"]
        );
        let spec = RunSpec {
            iterations: 300,
            burn_in: 100,
            thin: 1,
        };
        let out = run_chain(&mut s, &spec, &mut rng, &mut |_, _| {}).expect("runs");
        assert_eq!(out.stat_names, ["accept_0", "accept_1"]);
        assert_eq!(out.stats.len(), 600);
        let names: Vec<&str> = out.summary.iter().map(|m| m.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "t_mean",
                "acceptance",
                "step_sizes",
                "parent_sets",
                "edge_probabilities",
                "predictive",
                "predictive_n"
            ]
        );
        let sets = &out.summary[3];
        assert!((sets.values.iter().skip(1).step_by(2).sum::<f64>() - 1.0).abs() < 1e-12);
        // predictive rows: the occupied (A, B) configurations, each a PMF
        let pred = &out.summary[5];
        assert_eq!(pred.rows, 5);
        for r in 0..pred.rows {
            assert!((pred.get(r, 0) + pred.get(r, 1) - 1.0).abs() < 1e-12);
        }
        // adaptation froze after burn-in: step sizes changed from 0.5
        assert!(out.summary[2].values.iter().all(|&e| e != 0.5));
    }

    #[test]
    fn exact_is_refused_by_the_mcmc_sampler_and_k_above_3_by_params() {
        let p = Params::from_value(
            "params",
            &serde_json::json!({"method": "exact", "node": "B", "parents": ["A"]}),
        )
        .expect("params");
        let mut rng = chain_rng(1, 0, 0, 0);
        assert!(HiddenSampler::new(&data(), &p, &mut rng).is_err());
        let mut s = ExactSampler::new(&data(), &p).expect("k = 3 is fine");
        s.step(&mut rng).expect("exact");
        let r = s.result().expect("result");
        assert_eq!(r.t_mean.len(), 3);
        assert!((r.sets[0].probability - 1.0).abs() < 1e-12);
    }
}

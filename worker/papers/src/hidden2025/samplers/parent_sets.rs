//! Algorithm 3 (§4.2): Bayesian parent selection among M candidate parent sets with prior
//! probabilities, t_j by Algorithm 1. The contingency tables of the candidates are built once,
//! when the sampler is built, so one structure update costs O(M k_j K_Pa) (§4.2).

use rand::RngExt;

use super::node_t::{AdaptWindow, NodeT};
use super::{
    Defect, PoolConfigs, edge_probabilities, finite_log_posterior, parent_set_label,
    predictive_summaries, resolve_params,
};
use crate::chain::{RunSpec, Sampler, SamplerError};
use crate::data::Matrix;
use crate::hidden2025::datasets::{DiscreteData, ParentTable};
use crate::hidden2025::equations::log_marginal_likelihood;
use crate::hidden2025::params::{Init, Method, Params, Resolved, parent_set_union};
use crate::math::log_sum_exp;
use crate::seed::ChainRng;

/// Algorithm 3, line 1: draw m with Pr(Pa_m | −) ∝ Pr(Pa_m) f(n_j | Pa_m, t_j) (eq 7) among
/// the candidates with `allowed(m)` (§4.4: a candidate that would close a directed cycle is
/// skipped, probability 0) and prior > 0. `log_prior[m]` = log Pr(Pa_m) (−∞ for prior 0).
/// Returns `None` if no candidate is allowed. `ignore_prior` is the negative control
/// [`Defect::NoParentSetPrior`].
pub fn draw_parent_set(
    tables: &[ParentTable],
    log_prior: &[f64],
    t: &[f64],
    allowed: &dyn Fn(usize) -> bool,
    rng: &mut ChainRng,
    ignore_prior: bool,
) -> Option<usize> {
    let logw: Vec<f64> = tables
        .iter()
        .zip(log_prior)
        .enumerate()
        .map(|(m, (table, &lp))| {
            if !allowed(m) || lp == f64::NEG_INFINITY {
                f64::NEG_INFINITY
            } else {
                let prior = if ignore_prior { 0.0 } else { lp };
                prior + log_marginal_likelihood(table, t)
            }
        })
        .collect();
    categorical(&logw, rng)
}

/// Draw an index with probabilities ∝ exp(`logw`) (entries −∞ have probability 0); `None` if
/// every entry is −∞ or NaN.
pub(crate) fn categorical(logw: &[f64], rng: &mut ChainRng) -> Option<usize> {
    let lse = log_sum_exp(logw);
    if !lse.is_finite() {
        return None;
    }
    let u: f64 = rng.random::<f64>();
    let mut acc = 0.0;
    let mut last = None;
    for (m, &w) in logw.iter().enumerate() {
        if w == f64::NEG_INFINITY || w.is_nan() {
            continue;
        }
        acc += (w - lse).exp();
        last = Some(m);
        if u < acc {
            return Some(m);
        }
    }
    last
}

/// One chain of Algorithms 1 + 3 (`method: parent_sets`) for one node.
///
/// Trace: `log_posterior` (supplement B's t terms + eq 7 + log Pr(Pa)), `n_parents`,
/// `parent_set` (index of the current candidate, YAML order), `t_0` … `t_{k−1}`. Statistics:
/// `accept_0` … Summaries (after burn-in): `t_mean`, `acceptance`, `step_sizes` (1 × k_j),
/// `parent_sets` (every candidate in YAML order × [count, frequency, prior]), `edge_probabilities`
/// (Ca(j) = the union of the candidates, column order, × 1), `predictive` (eq 14 over the
/// occupied configurations of Ca(j)) and `predictive_n`.
#[derive(serde::Serialize, serde::Deserialize)]
pub struct ParentSetSampler {
    data: DiscreteData,
    cfg: Resolved,
    /// Each candidate's parents in column order (tables and labels use this order).
    sets: Vec<Vec<usize>>,
    tables: Vec<ParentTable>,
    log_prior: Vec<f64>,
    current: usize,
    node: NodeT,
    pool: Vec<usize>,
    pool_configs: PoolConfigs,
    log_post: f64,
    /// When ε adapts, and the iterations done.
    window: AdaptWindow,
    n_accum: u64,
    counts: Vec<u64>,
    pred_sum: Vec<f64>,
    defect: Option<Defect>,
}

impl ParentSetSampler {
    /// Build a chain from the cell's `params` (method `parent_sets`): tables of every candidate,
    /// t at `t0`, the first parent set per `init` (`prior`: drawn from the prior; `empty`: the
    /// first candidate with the fewest parents; `full`: the first with the most; candidates of
    /// prior 0 are never chosen). Errors: [`SamplerError::Input`] naming the parameter.
    pub fn new(
        data: &DiscreteData,
        params: &Params,
        rng: &mut ChainRng,
    ) -> Result<Self, SamplerError> {
        let cfg = resolve_params(params, data)?;
        if cfg.method != Method::ParentSets {
            return Err(SamplerError::Input(
                "params.method: ParentSetSampler needs method parent_sets".into(),
            ));
        }
        let sets: Vec<Vec<usize>> = cfg
            .parent_sets
            .iter()
            .map(|s| {
                let mut s = s.clone();
                s.sort_unstable();
                s
            })
            .collect();
        let tables: Vec<ParentTable> = sets.iter().map(|s| data.table(cfg.node, s)).collect();
        let log_prior: Vec<f64> = cfg.prior.iter().map(|p| p.ln()).collect();
        let eligible: Vec<usize> = (0..sets.len()).filter(|&m| cfg.prior[m] > 0.0).collect();
        let current = match cfg.init {
            Init::Prior => categorical(&log_prior, rng),
            Init::Empty => eligible.iter().copied().min_by_key(|&m| sets[m].len()),
            Init::Full => eligible
                .iter()
                .copied()
                .max_by_key(|&m| (sets[m].len(), usize::MAX - m)),
        }
        .ok_or_else(|| SamplerError::Input("params.prior: every prior probability is 0".into()))?;
        let pool = parent_set_union(&sets);
        let pool_configs = PoolConfigs::new(data, &pool);
        let node = NodeT::new(
            cfg.shape,
            cfg.rate,
            cfg.t0.clone(),
            cfg.step_sizes.clone(),
            cfg.adapt,
        );
        let mut s = ParentSetSampler {
            counts: vec![0; sets.len()],
            pred_sum: vec![0.0; pool_configs.codes.len() * cfg.k],
            window: AdaptWindow::new(cfg.adapt.is_some()),
            data: data.clone(),
            sets,
            tables,
            log_prior,
            current,
            node,
            pool,
            pool_configs,
            log_post: 0.0,
            n_accum: 0,
            defect: None,
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

    /// Index of the current parent set among the candidates (YAML order).
    pub fn current(&self) -> usize {
        self.current
    }

    /// Current t_j.
    pub fn t(&self) -> &[f64] {
        &self.node.t
    }

    /// The candidates' parents, each in column order.
    pub fn parent_sets(&self) -> &[Vec<usize>] {
        &self.sets
    }

    /// Current supplement-B log posterior.
    pub fn log_posterior(&self) -> f64 {
        self.log_post
    }

    /// Replace t_j (k_j values > 0) and, if given, the current candidate index.
    pub fn set_state(&mut self, t: &[f64], current: Option<usize>) -> Result<(), SamplerError> {
        if t.len() != self.cfg.k || t.iter().any(|&x| !(x > 0.0 && x.is_finite())) {
            return Err(SamplerError::Input(format!(
                "t must be {} positive values",
                self.cfg.k
            )));
        }
        if let Some(m) = current {
            if m >= self.sets.len() {
                return Err(SamplerError::Input(format!(
                    "parent set {m} is not one of the {} candidates",
                    self.sets.len()
                )));
            }
            self.current = m;
        }
        self.node.t = t.to_vec();
        self.log_post = self.compute_log_posterior();
        Ok(())
    }

    fn compute_log_posterior(&self) -> f64 {
        log_marginal_likelihood(&self.tables[self.current], &self.node.t)
            + self.node.log_prior_kernel()
            + self.log_prior[self.current]
    }

    /// Algorithm 1 given the current parent set.
    pub fn update_t(&mut self, rng: &mut ChainRng) -> Result<(), SamplerError> {
        self.node
            .update(&self.tables[self.current], rng, self.defect, &self.window)?;
        Ok(())
    }

    /// Algorithm 3 given the current t_j.
    pub fn update_structure(&mut self, rng: &mut ChainRng) {
        let ignore = self.defect == Some(Defect::NoParentSetPrior);
        if let Some(m) = draw_parent_set(
            &self.tables,
            &self.log_prior,
            &self.node.t,
            &|_| true,
            rng,
            ignore,
        ) {
            self.current = m;
        }
    }
}

impl Sampler for ParentSetSampler {
    fn begin(&mut self, spec: &RunSpec) {
        self.window.begin(spec.burn_in);
    }

    fn trace_names(&self) -> Vec<String> {
        let mut v = vec![
            "log_posterior".to_string(),
            "n_parents".to_string(),
            "parent_set".to_string(),
        ];
        v.extend((0..self.cfg.k).map(|x| format!("t_{x}")));
        v
    }

    fn step(&mut self, rng: &mut ChainRng) -> Result<(), SamplerError> {
        self.window.start_step();
        self.update_t(rng)?;
        self.update_structure(rng);
        self.window.iteration += 1;
        let lp = self.compute_log_posterior();
        let t = &self.node.t;
        self.log_post = finite_log_posterior(lp, || format!(" at t = {t:?}"))?;
        Ok(())
    }

    fn record(&self, row: &mut Vec<f64>) {
        row.push(self.log_post);
        row.push(self.sets[self.current].len() as f64);
        row.push(self.current as f64);
        row.extend_from_slice(&self.node.t);
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
        self.counts[self.current] += 1;
        self.pool_configs.accumulate_predictive(
            &self.data,
            &self.sets[self.current],
            &self.tables[self.current],
            &self.node.t,
            &mut self.pred_sum,
        );
    }

    fn summary(&self) -> Vec<Matrix> {
        let n = self.n_accum.max(1) as f64;
        let mut out = self.node.summaries(&self.data.levels[self.cfg.node], n);
        let mut sets = Matrix::new(
            "parent_sets",
            self.sets.len(),
            3,
            (0..self.sets.len())
                .flat_map(|m| {
                    let c = self.counts[m] as f64;
                    [c, c / n, self.cfg.prior[m]]
                })
                .collect(),
        );
        sets.row_names = self
            .sets
            .iter()
            .map(|s| parent_set_label(&self.data, s))
            .collect();
        sets.col_names = vec!["count".into(), "frequency".into(), "prior".into()];
        out.push(sets);
        let edges: Vec<f64> = self
            .pool
            .iter()
            .map(|p| {
                (0..self.sets.len())
                    .filter(|&m| self.sets[m].contains(p))
                    .map(|m| self.counts[m] as f64 / n)
                    .sum()
            })
            .collect();
        out.push(edge_probabilities(&self.data, &self.pool, edges));
        out.extend(predictive_summaries(
            &self.data,
            self.cfg.node,
            &self.pool,
            &self.pool_configs.codes,
            self.pred_sum.iter().map(|s| s / n).collect(),
        ));
        out
    }

    crate::serde_checkpoint!();
}

//! The t_j part of one node shared by the structure samplers (Algorithms 3, 4 and the
//! node-by-node DAG sampler): Algorithm 1 (u_j, then one MALA step per category, §3 and
//! supplement B) given the node's current contingency table, with optional Robbins–Monro
//! adaptation of ε during burn-in, and its post-burn-in accumulators.

use super::Defect;
use super::mala::{draw_log_u_impl, mala_step_impl};
use crate::chain::SamplerError;
use crate::data::Matrix;
use crate::hidden2025::datasets::ParentTable;
use crate::hidden2025::equations::HConditional;
use crate::hidden2025::params::Adapt;
use crate::seed::ChainRng;

/// When the step sizes adapt (the same rule in every sampler): if `adapt` is set, during the
/// first `burn_in` iterations of a run once [`AdaptWindow::begin`] has been called (by
/// `Sampler::begin`); stepped without it, until the first post-burn-in `accumulate`.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub(crate) struct AdaptWindow {
    /// `adapt` is set.
    enabled: bool,
    /// Adapt in the current step.
    pub adapting: bool,
    /// The burn-in given by `begin`.
    until: Option<u64>,
    /// Iterations done.
    pub iteration: u64,
}

impl AdaptWindow {
    pub fn new(enabled: bool) -> Self {
        AdaptWindow {
            enabled,
            adapting: enabled,
            until: None,
            iteration: 0,
        }
    }

    /// `Sampler::begin`: adapt during the first `burn_in` iterations.
    pub fn begin(&mut self, burn_in: u64) {
        self.until = Some(burn_in);
    }

    /// Before each step: whether this one adapts.
    pub fn start_step(&mut self) {
        if let Some(b) = self.until {
            self.adapting = self.enabled && self.iteration < b;
        }
    }

    /// `Sampler::accumulate` (past burn-in): without `begin`, stop adapting.
    pub fn accumulate(&mut self) {
        if self.until.is_none() {
            self.adapting = false;
        }
    }
}

/// t_j of one node with its step sizes and acceptance record.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub(crate) struct NodeT {
    /// Gamma shape ρ_j/k_j and rate b_j of eq 5.
    pub shape: f64,
    pub rate: f64,
    /// Current t_j (k_j values > 0).
    pub t: Vec<f64>,
    /// Step sizes ε_j(x).
    pub eps: Vec<f64>,
    /// The last step's acceptance indicators.
    pub accepted: Vec<bool>,
    adapt: Option<Adapt>,
    t_sum: Vec<f64>,
    accept_sum: Vec<f64>,
}

impl NodeT {
    pub fn new(shape: f64, rate: f64, t0: Vec<f64>, eps: Vec<f64>, adapt: Option<Adapt>) -> Self {
        let k = t0.len();
        NodeT {
            shape,
            rate,
            t: t0,
            eps,
            accepted: vec![false; k],
            adapt,
            t_sum: vec![0.0; k],
            accept_sum: vec![0.0; k],
        }
    }

    /// Algorithm 1 given `table` (the node's current parent set): u_j ~ Beta(β_j, n_c) per
    /// occupied configuration, then one MALA step per category in order; adapts log ε by
    /// Robbins–Monro (gain (iteration + 1)^(−decay)) when `window` says so. Returns the log u_j
    /// drawn (one per occupied configuration).
    pub fn update(
        &mut self,
        table: &ParentTable,
        rng: &mut ChainRng,
        defect: Option<Defect>,
        window: &AdaptWindow,
    ) -> Result<Vec<f64>, SamplerError> {
        let beta: f64 = self.t.iter().sum();
        let log_u = draw_log_u_impl(table, beta, rng, defect)?;
        let adapt = self.adapt.filter(|_| window.adapting);
        for x in 0..self.t.len() {
            let h = HConditional::new(table, x, &log_u, self.shape, self.rate);
            let (t_new, acc) = mala_step_impl(&h, self.t[x], self.eps[x], rng, defect);
            if !t_new.is_finite() {
                return Err(SamplerError::Numerical(format!("t_{x} = {t_new}")));
            }
            self.t[x] = t_new;
            self.accepted[x] = acc;
            if let Some(a) = adapt {
                let gain = ((window.iteration + 1) as f64).powf(-a.decay);
                let acc_f = if acc { 1.0 } else { 0.0 };
                self.eps[x] = (self.eps[x].ln() + gain * (acc_f - a.target))
                    .exp()
                    .clamp(1e-8, 1e8);
            }
        }
        Ok(log_u)
    }

    /// Supplement B's prior kernel of t_j: Σ_x [−b t_x + (ρ/k − 1) log t_x].
    pub fn log_prior_kernel(&self) -> f64 {
        self.t
            .iter()
            .map(|&x| -self.rate * x + (self.shape - 1.0) * x.ln())
            .sum()
    }

    /// Add the current t_j and acceptance indicators to the post-burn-in sums.
    pub fn accumulate(&mut self) {
        for x in 0..self.t.len() {
            self.t_sum[x] += self.t[x];
            self.accept_sum[x] += if self.accepted[x] { 1.0 } else { 0.0 };
        }
    }

    /// The single-node summaries `t_mean`, `acceptance` (over `n` accumulated iterations) and
    /// `step_sizes`, each 1 × k_j with the node's `levels` as column names.
    pub fn summaries(&self, levels: &[String], n: f64) -> Vec<Matrix> {
        let (t_mean, acceptance) = self.means(n);
        let row = |name: &str, v: Vec<f64>| {
            let mut m = Matrix::new(name, 1, v.len(), v);
            m.col_names = levels.to_vec();
            m
        };
        vec![
            row("t_mean", t_mean),
            row("acceptance", acceptance),
            row("step_sizes", self.eps.clone()),
        ]
    }

    /// Posterior mean of t_j and acceptance rate over `n` accumulated iterations.
    pub fn means(&self, n: f64) -> (Vec<f64>, Vec<f64>) {
        (
            self.t_sum.iter().map(|s| s / n).collect(),
            self.accept_sum.iter().map(|s| s / n).collect(),
        )
    }
}

/// Summaries `t_mean`, `acceptance`, `step_sizes` of several nodes: one row per node (named),
/// `width` columns (the largest k_j; shorter rows padded with NaN).
pub(crate) fn node_summaries(names: &[String], nodes: &[&NodeT], n: f64) -> Vec<Matrix> {
    let width = nodes.iter().map(|s| s.t.len()).max().unwrap_or(0);
    let rows = |name: &str, f: &dyn Fn(&NodeT) -> Vec<f64>| {
        let mut v = Vec::with_capacity(nodes.len() * width);
        for s in nodes {
            let mut r = f(s);
            r.resize(width, f64::NAN);
            v.extend(r);
        }
        let mut m = Matrix::new(name, nodes.len(), width, v);
        m.row_names = names.to_vec();
        m.col_names = (0..width).map(|x| format!("x{x}")).collect();
        m
    };
    vec![
        rows("t_mean", &|s| s.means(n).0),
        rows("acceptance", &|s| s.means(n).1),
        rows("step_sizes", &|s| s.eps.clone()),
    ]
}

//! The exact method for k_j ≤ 3 (`method: exact`): p(Pa | n) ∝ p(Pa) ∫ p(t) f(n | Pa, t) dt and
//! the posterior means of t_j and of eq 6, by numerical integration over s = log t.
//!
//! For each parent set: Newton's method finds the mode ŝ of F(s) = log p(e^s) + log f(n | Pa,
//! e^s) + Σ s (eq 5 + eq 7 + the Jacobian); with −∇²F(ŝ) = L Lᵀ the grid is s = ŝ + L^{−T} w,
//! w on a product trapezoid grid of `grid_points` per dimension whose extent along each axis
//! reaches 40 nats below the mode (the integrand is smooth, so the trapezoid rule converges
//! fast). Parent sets whose Laplace estimate of log p(Pa) Z(Pa) is more than `laplace_cutoff`
//! nats below the best are skipped (probability 0).

use statrs::function::gamma::digamma;

use super::{
    PoolConfigs, edge_probabilities, parent_set_label, predictive_summaries, resolve_params,
};
use crate::chain::{Sampler, SamplerError};
use crate::data::Matrix;
use crate::hidden2025::datasets::{DiscreteData, ParentTable};
use crate::hidden2025::equations::{
    log_edge_prior, log_marginal_likelihood, log_prior_t, predictive, trigamma,
};
use crate::hidden2025::params::{
    MAX_EXACT_K, Method, Params, Resolved, parent_set_union, position_mask,
};
use crate::math::log_sum_exp;
use crate::seed::ChainRng;

/// Nats below the mode at which the grid along each whitened axis stops.
pub const GRID_DEPTH_NATS: f64 = 40.0;

/// One parent set of the exact posterior.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ExactSet {
    /// Bit mask over the pool (candidates, or the fixed parent set).
    pub mask: u64,
    /// The parents (column indices, pool order).
    pub parents: Vec<usize>,
    /// log p(Pa): the beta-binomial prior of the indicators (0 for a fixed set).
    pub log_prior: f64,
    /// Laplace estimate of log Z(Pa) = log ∫ p(t) f(n | Pa, t) dt.
    pub log_laplace: f64,
    /// log Z(Pa) by the grid; `None` if skipped by the Laplace cut-off.
    pub log_evidence: Option<f64>,
    /// p(Pa | n).
    pub probability: f64,
    /// E[t_j | Pa, n], k_j values (empty if skipped).
    pub t_mean: Vec<f64>,
    /// E[eq 6 | Pa, n] for each occupied pool configuration, row-major × k_j (empty if skipped).
    pub predictive: Vec<f64>,
}

/// The exact posterior of one node.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ExactPosterior {
    /// k_j.
    pub k: usize,
    /// The pool of parents (candidates or the fixed set).
    pub pool: Vec<usize>,
    /// Every parent set (2^|pool| for candidates, one for a fixed set), in mask order.
    pub sets: Vec<ExactSet>,
    /// log Σ_Pa p(Pa) Z(Pa) over the sets kept.
    pub log_evidence: f64,
    /// E[t_j | n].
    pub t_mean: Vec<f64>,
    /// P(z_{j'j} = 1 | n) per pool member.
    pub edge_probabilities: Vec<f64>,
    /// Eq 14's exact value: E[eq 6 | n] per occupied pool configuration, row-major × k_j.
    pub predictive: Vec<f64>,
    /// The occupied pool configuration codes (rows of `predictive`).
    pub pool_codes: Vec<u64>,
}

/// F(s), ∇F and ∇²F (row-major k × k) at s = log t.
fn derivatives(table: &ParentTable, shape: f64, rate: f64, s: &[f64]) -> (f64, Vec<f64>, Vec<f64>) {
    let k = s.len();
    let t: Vec<f64> = s.iter().map(|x| x.exp()).collect();
    let f =
        log_prior_t(&t, shape, rate) + log_marginal_likelihood(table, &t) + s.iter().sum::<f64>();
    let beta: f64 = t.iter().sum();
    let (mut common_g, mut common_h) = (0.0, 0.0);
    for &n in &table.totals {
        common_g += digamma(beta) - digamma(beta + n as f64);
        common_h += trigamma(beta) - trigamma(beta + n as f64);
    }
    let mut dt = vec![0.0; k];
    let mut d2 = vec![common_h; k * k];
    for x in 0..k {
        let (mut g, mut h) = (0.0, 0.0);
        for c in 0..table.occupied() {
            let n = table.row(c)[x];
            if n > 0 {
                g += digamma(t[x] + n as f64) - digamma(t[x]);
                h += trigamma(t[x] + n as f64) - trigamma(t[x]);
            }
        }
        dt[x] = (shape - 1.0) / t[x] - rate + common_g + g;
        d2[x * k + x] += -(shape - 1.0) / (t[x] * t[x]) + h;
    }
    let grad: Vec<f64> = (0..k).map(|x| t[x] * dt[x] + 1.0).collect();
    let mut hess = vec![0.0; k * k];
    for x in 0..k {
        for y in 0..k {
            hess[x * k + y] = t[x] * t[y] * d2[x * k + y] + if x == y { t[x] * dt[x] } else { 0.0 };
        }
    }
    (f, grad, hess)
}

/// Cholesky factor (lower, row-major) of a k × k symmetric matrix, `None` if not positive definite.
fn cholesky(a: &[f64], k: usize) -> Option<Vec<f64>> {
    let mut l = vec![0.0; k * k];
    for i in 0..k {
        for j in 0..=i {
            let s: f64 = a[i * k + j] - (0..j).map(|m| l[i * k + m] * l[j * k + m]).sum::<f64>();
            if i == j {
                if s.is_nan() || s <= 0.0 {
                    return None;
                }
                l[i * k + i] = s.sqrt();
            } else {
                l[i * k + j] = s / l[j * k + j];
            }
        }
    }
    Some(l)
}

/// Solve L Lᵀ x = b.
fn chol_solve(l: &[f64], k: usize, b: &[f64]) -> Vec<f64> {
    let mut y = vec![0.0; k];
    for i in 0..k {
        y[i] = (b[i] - (0..i).map(|m| l[i * k + m] * y[m]).sum::<f64>()) / l[i * k + i];
    }
    lt_solve(l, k, &y)
}

/// Solve Lᵀ x = y (back substitution).
fn lt_solve(l: &[f64], k: usize, y: &[f64]) -> Vec<f64> {
    let mut x = vec![0.0; k];
    for i in (0..k).rev() {
        x[i] = (y[i] - (i + 1..k).map(|m| l[m * k + i] * x[m]).sum::<f64>()) / l[i * k + i];
    }
    x
}

/// The mode ŝ of F, F(ŝ) and the Cholesky factor of −∇²F(ŝ), by damped Newton steps.
fn find_mode(
    table: &ParentTable,
    shape: f64,
    rate: f64,
) -> Result<(Vec<f64>, f64, Vec<f64>), SamplerError> {
    let k = table.k;
    let mut s = vec![0.0; k];
    let (mut f, mut g, mut h) = derivatives(table, shape, rate, &s);
    for _ in 0..500 {
        let neg: Vec<f64> = h.iter().map(|v| -v).collect();
        let gmax = g.iter().fold(0.0f64, |a, v| a.max(v.abs()));
        let chol = cholesky(&neg, k);
        if gmax < 1e-9 && chol.is_some() {
            break;
        }
        let mut dir = match &chol {
            Some(l) => chol_solve(l, k, &g),
            None => g.iter().map(|v| v / (1.0 + gmax)).collect(),
        };
        let len = dir.iter().fold(0.0f64, |a, v| a.max(v.abs()));
        if len > 3.0 {
            dir.iter_mut().for_each(|v| *v *= 3.0 / len);
        }
        let mut step = 1.0;
        let mut moved = false;
        for _ in 0..60 {
            let trial: Vec<f64> = s.iter().zip(&dir).map(|(a, d)| a + step * d).collect();
            let (ft, gt, ht) = derivatives(table, shape, rate, &trial);
            if ft.is_finite() && ft >= f {
                moved = ft > f || step == 1.0;
                s = trial;
                f = ft;
                g = gt;
                h = ht;
                break;
            }
            step *= 0.5;
        }
        if !moved {
            break;
        }
    }
    let neg: Vec<f64> = h.iter().map(|v| -v).collect();
    let l = cholesky(&neg, k).ok_or_else(|| {
        SamplerError::Numerical(format!(
            "exact method: no concave mode of log p(t | n) found (s = {s:?})"
        ))
    })?;
    Ok((s, f, l))
}

/// Integration over log t for one table: log Z, E[t], and E[eq 6] for each requested row
/// (`rows[r]` = the table row of pool configuration r).
fn integrate(
    table: &ParentTable,
    shape: f64,
    rate: f64,
    grid_points: usize,
    mode: &(Vec<f64>, f64, Vec<f64>),
    rows: &[usize],
) -> (f64, Vec<f64>, Vec<f64>) {
    let k = table.k;
    let (s_hat, f_hat, l) = mode;
    let at = |w: &[f64]| -> (Vec<f64>, f64) {
        let d = lt_solve(l, k, w);
        let s: Vec<f64> = s_hat.iter().zip(&d).map(|(a, b)| a + b).collect();
        let t: Vec<f64> = s.iter().map(|x| x.exp()).collect();
        let f = log_prior_t(&t, shape, rate)
            + log_marginal_likelihood(table, &t)
            + s.iter().sum::<f64>();
        (t, f)
    };
    // extent of each whitened axis
    let mut lo = vec![0.0; k];
    let mut hi = vec![0.0; k];
    for i in 0..k {
        for (sign, out) in [(-1.0, &mut lo[i]), (1.0, &mut hi[i])] {
            let mut w = 0.0;
            loop {
                w += 0.5;
                let mut e = vec![0.0; k];
                e[i] = sign * w;
                let (_, f) = at(&e);
                if f.is_nan() || f <= f_hat - GRID_DEPTH_NATS || w >= 60.0 {
                    break;
                }
            }
            *out = sign * w;
        }
    }
    let m = grid_points;
    let total = m.pow(k as u32);
    let mut logw = Vec::with_capacity(total);
    let mut ts = Vec::with_capacity(total);
    let mut w = vec![0.0; k];
    for idx in 0..total {
        let mut rest = idx;
        let mut lw = 0.0;
        for i in 0..k {
            let j = rest % m;
            rest /= m;
            let hstep = (hi[i] - lo[i]) / (m - 1) as f64;
            w[i] = lo[i] + hstep * j as f64;
            lw += hstep.ln()
                + if j == 0 || j == m - 1 {
                    0.5f64.ln()
                } else {
                    0.0
                };
        }
        let (t, f) = at(&w);
        logw.push(lw + f);
        ts.push(t);
    }
    let log_det_l: f64 = (0..k).map(|i| l[i * k + i].ln()).sum();
    let lse = log_sum_exp(&logw);
    let log_z = lse - log_det_l;
    let mut t_mean = vec![0.0; k];
    let mut pred = vec![0.0; rows.len() * k];
    for (lw, t) in logw.iter().zip(&ts) {
        let p = (lw - lse).exp();
        if p == 0.0 {
            continue;
        }
        for x in 0..k {
            t_mean[x] += p * t[x];
        }
        for (r, &row) in rows.iter().enumerate() {
            let q = predictive(t, table.row(row));
            for x in 0..k {
                pred[r * k + x] += p * q[x];
            }
        }
    }
    (log_z, t_mean, pred)
}

/// The exact posterior for the node of `cfg` (its fixed `parents`, or every subset of its
/// `candidates` with the beta-binomial prior). Errors: k_j > 3, or a mode not found.
pub fn exact_posterior(
    data: &DiscreteData,
    cfg: &Resolved,
) -> Result<ExactPosterior, SamplerError> {
    let k = cfg.k;
    if k > MAX_EXACT_K {
        return Err(SamplerError::Input(format!(
            "params.method: the exact method needs k_j ≤ {MAX_EXACT_K}; node {} has {k}",
            data.names[cfg.node]
        )));
    }
    let set_priors: Option<Vec<f64>> =
        (!cfg.parent_sets.is_empty()).then(|| cfg.prior.iter().map(|p| p.ln()).collect());
    let (pool, masks): (Vec<usize>, Vec<u64>) = match &cfg.parents {
        None if !cfg.parent_sets.is_empty() => {
            let pool = parent_set_union(&cfg.parent_sets);
            let masks = cfg
                .parent_sets
                .iter()
                .map(|set| position_mask(set, &pool))
                .collect();
            (pool, masks)
        }
        Some(p) => (
            p.clone(),
            vec![if p.is_empty() {
                0
            } else {
                u64::MAX >> (64 - p.len())
            }],
        ),
        None => (
            cfg.candidates.clone(),
            (0..1u64 << cfg.candidates.len()).collect(),
        ),
    };
    let fixed = cfg.parents.is_some();
    let m = pool.len();
    let pool_configs = PoolConfigs::new(data, &pool);
    let mut sets = Vec::with_capacity(masks.len());
    let mut modes = Vec::with_capacity(masks.len());
    let mut tables = Vec::with_capacity(masks.len());
    for (index, &mask) in masks.iter().enumerate() {
        let parents: Vec<usize> = (0..m)
            .filter(|i| mask >> i & 1 == 1)
            .map(|i| pool[i])
            .collect();
        let table = data.table(cfg.node, &parents);
        let mode = find_mode(&table, cfg.shape, cfg.rate)?;
        let log_det_l: f64 = (0..k).map(|i| mode.2[i * k + i].ln()).sum();
        let log_laplace = mode.1 + 0.5 * k as f64 * (2.0 * std::f64::consts::PI).ln() - log_det_l;
        let ones = parents.len();
        let log_prior = if let Some(lp) = &set_priors {
            lp[index]
        } else if fixed {
            0.0
        } else {
            log_edge_prior(ones, m - ones, cfg.c, cfg.d)
        };
        sets.push(ExactSet {
            mask,
            parents,
            log_prior,
            log_laplace,
            log_evidence: None,
            probability: 0.0,
            t_mean: Vec::new(),
            predictive: Vec::new(),
        });
        modes.push(mode);
        tables.push(table);
    }
    let best = sets
        .iter()
        .map(|s| s.log_prior + s.log_laplace)
        .fold(f64::NEG_INFINITY, f64::max);
    for ((set, mode), table) in sets.iter_mut().zip(&modes).zip(&tables) {
        if set.log_prior + set.log_laplace < best - cfg.laplace_cutoff {
            continue;
        }
        let mut rows = Vec::with_capacity(pool_configs.rows.len());
        for &r in &pool_configs.rows {
            let code = PoolConfigs::code_of(data, &set.parents, r);
            let c = table.configs.binary_search(&code).map_err(|_| {
                SamplerError::InvalidState(
                    "a pool configuration maps to an empty parent configuration".into(),
                )
            })?;
            rows.push(c);
        }
        let (log_z, t_mean, pred) =
            integrate(table, cfg.shape, cfg.rate, cfg.grid_points, mode, &rows);
        set.log_evidence = Some(log_z);
        set.t_mean = t_mean;
        set.predictive = pred;
    }
    let joint: Vec<f64> = sets
        .iter()
        .map(|s| {
            s.log_evidence
                .map_or(f64::NEG_INFINITY, |z| z + s.log_prior)
        })
        .collect();
    let log_evidence = log_sum_exp(&joint);
    let mut t_mean = vec![0.0; k];
    let mut edge_probabilities = vec![0.0; m];
    let mut pred = vec![0.0; pool_configs.rows.len() * k];
    for (set, j) in sets.iter_mut().zip(&joint) {
        set.probability = (j - log_evidence).exp();
        if set.log_evidence.is_none() {
            continue;
        }
        for (a, b) in t_mean.iter_mut().zip(&set.t_mean) {
            *a += set.probability * b;
        }
        for (i, e) in edge_probabilities.iter_mut().enumerate() {
            *e += set.probability * (set.mask >> i & 1) as f64;
        }
        for (a, b) in pred.iter_mut().zip(&set.predictive) {
            *a += set.probability * b;
        }
    }
    // Sums of normalised probabilities can overshoot 1 by a few ulps (1.0000000000000264 was
    // seen on LUCAS): a probability is reported within [0, 1].
    for e in &mut edge_probabilities {
        *e = e.clamp(0.0, 1.0);
    }
    Ok(ExactPosterior {
        k,
        pool,
        sets,
        log_evidence,
        t_mean,
        edge_probabilities,
        predictive: pred,
        pool_codes: pool_configs.codes,
    })
}

/// log Z(Pa) = log ∫ p(t_j) f(n_j | Pa, t_j) dt_j for node `node` with parents `parents`
/// (eq 5 × eq 7 integrated over log t on the whitened trapezoid grid). Errors: k_j > 3, or no
/// mode found.
pub fn exact_log_evidence(
    data: &DiscreteData,
    node: usize,
    parents: &[usize],
    shape: f64,
    rate: f64,
    grid_points: usize,
) -> Result<f64, SamplerError> {
    let k = data.k(node);
    if k > MAX_EXACT_K {
        return Err(SamplerError::Input(format!(
            "the exact method needs k_j ≤ {MAX_EXACT_K}; node {} has {k}",
            data.names[node]
        )));
    }
    let table = data.table(node, parents);
    let mode = find_mode(&table, shape, rate)?;
    Ok(integrate(&table, shape, rate, grid_points, &mode, &[]).0)
}

/// The exact posterior over candidate DAGs, p(G_m | n) ∝ exp(`log_prior[m]`) Π_{j ∈ include}
/// Z_j(Pa_j^m) (§4.4 with t integrated out node by node). `dags[m][i]` is the parent bit mask
/// of node `nodes[i]` over positions in `nodes`; `shapes[i]` its Gamma shape; only the
/// positions in `include` enter (a node whose parent set is the same in every candidate
/// cancels). Evidences are computed once per (node, parent set). Returns the probabilities.
pub fn exact_dag_posterior(
    data: &DiscreteData,
    nodes: &[usize],
    dags: &[Vec<u64>],
    log_prior: &[f64],
    include: &[usize],
    (shapes, rate): (&[f64], f64),
    grid_points: usize,
) -> Result<Vec<f64>, SamplerError> {
    let mut cache: std::collections::HashMap<(usize, u64), f64> = Default::default();
    let mut joint = Vec::with_capacity(dags.len());
    for (dag, &lp) in dags.iter().zip(log_prior) {
        let mut total = lp;
        for &i in include {
            let mask = dag[i];
            let z = match cache.get(&(i, mask)) {
                Some(&z) => z,
                None => {
                    let parents: Vec<usize> = (0..nodes.len())
                        .filter(|q| mask >> q & 1 == 1)
                        .map(|q| nodes[q])
                        .collect();
                    let z =
                        exact_log_evidence(data, nodes[i], &parents, shapes[i], rate, grid_points)?;
                    cache.insert((i, mask), z);
                    z
                }
            };
            total += z;
        }
        joint.push(total);
    }
    let lse = log_sum_exp(&joint);
    Ok(joint.iter().map(|j| (j - lse).exp()).collect())
}

/// The exact method as a one-transition [`Sampler`] (its first `step` computes everything, later
/// steps do nothing). Trace: `log_evidence`. Summaries: `t_mean` (1 × k_j), `parent_sets` (sets
/// × [log_evidence, probability], most probable first; skipped sets have NaN log_evidence),
/// `edge_probabilities` (candidates only, |Ca| × 1), `predictive` and `predictive_n`, named as
/// [`super::HiddenSampler`]'s so tables can put them side by side.
#[derive(serde::Serialize, serde::Deserialize)]
pub struct ExactSampler {
    data: DiscreteData,
    cfg: Resolved,
    result: Option<ExactPosterior>,
}

impl ExactSampler {
    /// Resolve `params` (method `exact`) against `data`. Errors: [`SamplerError::Input`] with the
    /// parameter's path.
    pub fn new(data: &DiscreteData, params: &Params) -> Result<Self, SamplerError> {
        let cfg = resolve_params(params, data)?;
        if cfg.method != Method::Exact {
            return Err(SamplerError::Input(
                "params.method: ExactSampler needs method exact".into(),
            ));
        }
        Ok(ExactSampler {
            data: data.clone(),
            cfg,
            result: None,
        })
    }

    /// The result, once computed.
    pub fn result(&self) -> Option<&ExactPosterior> {
        self.result.as_ref()
    }
}

impl Sampler for ExactSampler {
    fn trace_names(&self) -> Vec<String> {
        vec!["log_evidence".into()]
    }

    fn step(&mut self, _rng: &mut ChainRng) -> Result<(), SamplerError> {
        if self.result.is_none() {
            self.result = Some(exact_posterior(&self.data, &self.cfg)?);
        }
        Ok(())
    }

    fn record(&self, row: &mut Vec<f64>) {
        row.push(self.result.as_ref().map_or(f64::NAN, |r| r.log_evidence));
    }

    fn summary(&self) -> Vec<Matrix> {
        let Some(r) = &self.result else {
            return Vec::new();
        };
        let k = r.k;
        let levels = self.data.levels[self.cfg.node].clone();
        let mut t = Matrix::new("t_mean", 1, k, r.t_mean.clone());
        t.col_names = levels.clone();
        let mut order: Vec<&ExactSet> = r.sets.iter().collect();
        order.sort_by(|a, b| b.probability.total_cmp(&a.probability));
        let mut sets = Matrix::new(
            "parent_sets",
            order.len(),
            2,
            order
                .iter()
                .flat_map(|s| [s.log_evidence.unwrap_or(f64::NAN), s.probability])
                .collect(),
        );
        sets.row_names = order
            .iter()
            .map(|s| parent_set_label(&self.data, &s.parents))
            .collect();
        sets.col_names = vec!["log_evidence".into(), "probability".into()];
        let mut out = vec![t, sets];
        if self.cfg.parents.is_none() {
            let e = r.edge_probabilities.clone();
            out.push(edge_probabilities(&self.data, &r.pool, e));
        }
        out.extend(predictive_summaries(
            &self.data,
            self.cfg.node,
            &r.pool,
            &r.pool_codes,
            r.predictive.clone(),
        ));
        out
    }

    crate::serde_checkpoint!();
}

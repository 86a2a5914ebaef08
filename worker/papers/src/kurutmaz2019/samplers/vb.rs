//! VB-CN (Fig. 4.5): mean-field variational Bayes, Q = Π_t q(r_t) · q(θ) · Π_{n,r} q(w_{n|r}, ρ_{n|r})
//! (eqs. 4.23–4.27), by coordinate ascent on the ELBO (eq. 4.32–4.36).
//!
//! Source: `003_bf1ce321478f8175.txt` §4.2, §4.2.1, Fig. 4.5; App. A.1, C.2, C.3.
//!
//! One iteration = update every q(r_t) from the current parameter factors (ln θ̂ᵗ, §4.2), then
//! every parameter factor from the expected sufficient statistics (γ̂, Λ̂, m̂, â, b̂), then the
//! ELBO. Both updates are exact coordinate maximisations, so the ELBO (evaluated after each
//! iteration) never decreases; for R = 1 the parameter factor is the exact posterior and the ELBO
//! equals ln p(x).
//!
//! Choices (documented; the thesis leaves them open):
//! - Initialisation: q(r_t) drawn from a flat Dirichlet(1, …, 1) for every t, from the chain RNG
//!   (uniform responsibilities are a saddle the updates never leave, by label symmetry).
//! - Convergence: stop when |ΔELBO| ≤ `tolerance` · max(1, |ELBO|), or after `max_iterations`.
//! - `n_restarts` independent initialisations per step; the best ELBO is kept (§5.2 reports the
//!   maximum ELBO over runs).
//! - The expected Gaussian log-likelihood term (eq. 4.33) is summed over t through the weighted
//!   sufficient statistics (algebraically identical, O(R) instead of O(TR)).

// Parallel structure-of-arrays (and per-variable) indexing reads clearer as index loops.
#![allow(clippy::needless_range_loop)]

use rand::RngExt;

use crate::chain::{Sampler, SamplerError};
use crate::data::Matrix;
use crate::kurutmaz2019::equations::{self, NgMoments, NormalGamma};
use crate::kurutmaz2019::samplers::problem::Problem;
use crate::kurutmaz2019::samplers::smc::Defect;
use crate::math::log_sum_exp;
use crate::seed::ChainRng;

/// VB-CN settings.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct VbConfig {
    /// Largest number of coordinate-ascent iterations per run (default 1000).
    pub max_iterations: usize,
    /// Relative ELBO change that counts as converged (default 1e-9).
    pub tolerance: f64,
    /// Independent random initialisations per step; the best ELBO wins (default 1).
    pub n_restarts: usize,
    /// Negative control for tests (only with the `testing` feature; without it no defect can be
    /// switched on). See [`Defect::DropDirichletElbo`].
    #[cfg(feature = "testing")]
    pub defect: Option<Defect>,
}

impl VbConfig {
    super::defect_switch!();
}

impl Default for VbConfig {
    fn default() -> Self {
        VbConfig {
            max_iterations: 1000,
            tolerance: 1e-9,
            n_restarts: 1,
            #[cfg(feature = "testing")]
            defect: None,
        }
    }
}

/// Result of one VB-CN run.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct VbResult {
    /// Final ELBO 𝓑_𝒫\[𝒬\] (eq. 4.32), a lower bound on ln p(x).
    pub elbo: f64,
    /// ELBO after initialisation and after every iteration.
    pub history: Vec<f64>,
    /// q(r_t = r) as a T × R row-major matrix, original observation order.
    pub responsibilities: Vec<f64>,
    /// Iterations run.
    pub iterations: usize,
    /// Whether the tolerance was met.
    pub converged: bool,
}

/// The parameter factors q(θ) q(w, ρ) and their expected sufficient statistics.
struct QParams {
    gamma_hat: Vec<f64>,
    e_log_theta: Vec<f64>,
    /// q(w_{v|r}, ρ_{v|r}) per observed variable v and class r.
    q: [Vec<NormalGamma>; 2],
    /// Their moments (m̂, Λ̂⁻¹, E ρ, E ln ρ).
    mom: [Vec<NgMoments>; 2],
    stats: [Vec<equations::SuffStats>; 2],
}

/// Parameter step: γ̂ and (Λ̂, m̂, â, b̂) from the expected sufficient statistics (§4.2).
fn update_params(p: &Problem, resp: &[f64]) -> Result<QParams, SamplerError> {
    let k = p.n_latent;
    let stats = p.suff_stats(None, Some(resp));
    let counts: Vec<f64> = stats[0].iter().map(|s| s.n).collect();
    let gamma_hat = equations::dirichlet_posterior(p.hyper.gamma, &counts);
    let mut e_log_theta = vec![0.0; k];
    equations::dirichlet_expected_log(&gamma_hat, &mut e_log_theta);
    let priors = [p.prior1, p.prior2];
    let mut q: [Vec<NormalGamma>; 2] = [Vec::with_capacity(k), Vec::with_capacity(k)];
    let mut mom: [Vec<NgMoments>; 2] = [Vec::with_capacity(k), Vec::with_capacity(k)];
    for v in 0..2 {
        for s in &stats[v] {
            let post = equations::ng_posterior(&priors[v], s).ok_or_else(|| {
                SamplerError::Numerical("VB: degenerate Normal-Gamma factor".into())
            })?;
            mom[v].push(
                NgMoments::of(&post)
                    .ok_or_else(|| SamplerError::Numerical("VB: singular Λ̂".into()))?,
            );
            q[v].push(post);
        }
    }
    Ok(QParams {
        gamma_hat,
        e_log_theta,
        q,
        mom,
        stats,
    })
}

/// Update every q(r_t) (ln θ̂ᵗ of §4.2 / App. C.2); returns Σ_t Σ_r θ̂ ln θ̂ (negative entropy).
fn update_resp(p: &Problem, qp: &QParams, resp: &mut [f64]) -> f64 {
    let k = p.n_latent;
    let mut l = [0.0; 5];
    let mut neg_ent = 0.0;
    for t in 0..p.len() {
        for (r, lr) in l.iter_mut().enumerate().take(k) {
            *lr = equations::vb_log_theta_hat(
                qp.e_log_theta[r],
                [
                    (&qp.mom[0][r], p.phi1(t), p.v1[t]),
                    (&qp.mom[1][r], p.phi2(t), p.v2[t]),
                ],
            );
        }
        let z = log_sum_exp(&l[..k]);
        for (r, lr) in l.iter().enumerate().take(k) {
            let lp = lr - z;
            let pr = lp.exp();
            resp[t * k + r] = pr;
            if pr > 0.0 {
                neg_ent += pr * lp;
            }
        }
    }
    neg_ent
}

/// The ELBO of eq. 4.32 as the sum of eqs. 4.33–4.36 (eq. 4.35 left out under
/// [`Defect::DropDirichletElbo`]).
fn elbo(
    p: &Problem,
    qp: &QParams,
    neg_entropy_r: f64,
    defect: Option<Defect>,
) -> Result<f64, SamplerError> {
    let k = p.n_latent;
    let priors = [p.prior1, p.prior2];
    let mut b = 0.0;
    // (4.33) Σ_t Σ_r q(r_t=r) E{ln N(x_n^t | ...)} via the weighted statistics.
    for v in 0..2 {
        for r in 0..k {
            let s = &qp.stats[v][r];
            let mo = &qp.mom[v][r];
            let m = mo.m;
            let sq = s.yy - 2.0 * (m[0] * s.yphi[0] + m[1] * s.yphi[1]) + s.phiphi.quad(m);
            b += 0.5 * s.n * (mo.e_log_rho - equations::LN_2PI)
                - 0.5 * mo.e_rho * sq
                - 0.5 * mo.sigma.trace_prod(&s.phiphi);
        }
    }
    // (4.34) expected categorical log-likelihood minus Σ_t E{ln q(r_t)}.
    let counts: Vec<f64> = qp.stats[0].iter().map(|s| s.n).collect();
    b += equations::expected_log_categorical(&counts, &qp.e_log_theta) - neg_entropy_r;
    // (4.35) Dirichlet: E{ln p(θ)} − E{ln q(θ)}.
    if defect != Some(Defect::DropDirichletElbo) {
        let prior_gamma = vec![p.hyper.gamma; k];
        b += equations::dirichlet_neg_cross_entropy(&prior_gamma, &qp.e_log_theta)
            - equations::dirichlet_neg_cross_entropy(&qp.gamma_hat, &qp.e_log_theta);
    }
    // (4.36) Normal-Gamma: E{ln p(w, ρ)} − E{ln q(w, ρ)}.
    for (prior, qs) in priors.iter().zip(&qp.q) {
        for q in qs {
            b += equations::ng_neg_cross_entropy(prior, q)
                .ok_or_else(|| SamplerError::Numerical("VB: singular Λ̂ in the ELBO".into()))?
                - equations::ng_neg_entropy(q);
        }
    }
    if b.is_finite() {
        Ok(b)
    } else {
        Err(SamplerError::Numerical(format!("VB: ELBO is {b}")))
    }
}

/// One VB-CN run from a random initialisation (Fig. 4.5).
///
/// Errors: [`SamplerError::Numerical`] on a degenerate factor or a non-finite ELBO.
pub fn run_vb(p: &Problem, cfg: &VbConfig, rng: &mut ChainRng) -> Result<VbResult, SamplerError> {
    let k = p.n_latent;
    let t_len = p.len();
    let mut resp = vec![0.0; t_len * k];
    let mut neg_ent = 0.0;
    for t in 0..t_len {
        let mut tot = 0.0;
        for r in 0..k {
            let e = -(1.0 - rng.random::<f64>()).ln();
            resp[t * k + r] = e;
            tot += e;
        }
        for r in 0..k {
            let v = resp[t * k + r] / tot;
            resp[t * k + r] = v;
            if v > 0.0 {
                neg_ent += v * v.ln();
            }
        }
    }
    let mut qp = update_params(p, &resp)?;
    let mut cur = elbo(p, &qp, neg_ent, cfg.defect())?;
    let mut history = vec![cur];
    let mut converged = false;
    let mut iterations = 0;
    while iterations < cfg.max_iterations {
        iterations += 1;
        neg_ent = update_resp(p, &qp, &mut resp);
        qp = update_params(p, &resp)?;
        let next = elbo(p, &qp, neg_ent, cfg.defect())?;
        history.push(next);
        let done = (next - cur).abs() <= cfg.tolerance * next.abs().max(1.0);
        cur = next;
        if done {
            converged = true;
            break;
        }
    }
    Ok(VbResult {
        elbo: cur,
        history,
        responsibilities: resp,
        iterations,
        converged,
    })
}

/// VB-CN as a chain (`method: vb`). Each [`Sampler::step`] runs VB to convergence from
/// `n_restarts` random initialisations and keeps the best, so the runner uses `iterations = 1`;
/// with more iterations, the summary keeps the best ELBO over the accumulated steps.
///
/// Trace: `log_marginal_likelihood` (= the step's best ELBO, the VB stand-in for ln p(x)), `elbo`
/// (the same value, under its own name), `n_iterations` (of the best run).
/// Summary: `log_marginal_likelihood` (1 × 1, best ELBO), `elbo_history` (iterations + 1 rows × 1,
/// of the best run), `r_marginals` (T × R, q(r_t) of the best run, original order), `r_map`
/// (T × 1, argmax_r q(r_t)).
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct VbSampler {
    problem: Problem,
    cfg: VbConfig,
    last: Option<VbResult>,
    best: Option<VbResult>,
}

impl VbSampler {
    /// VB sampler for `problem`.
    pub fn new(problem: Problem, cfg: VbConfig) -> Self {
        VbSampler {
            problem,
            cfg,
            last: None,
            best: None,
        }
    }

    /// The last step's best run.
    pub fn last(&self) -> Option<&VbResult> {
        self.last.as_ref()
    }
}

impl Sampler for VbSampler {
    fn trace_names(&self) -> Vec<String> {
        vec!["log_marginal_likelihood".into(), "elbo".into()]
    }

    fn stat_names(&self) -> Vec<String> {
        vec!["n_iterations".into()]
    }

    fn record_stats(&self, row: &mut Vec<f64>) {
        row.push(self.last.as_ref().map_or(f64::NAN, |r| r.iterations as f64));
    }

    fn step(&mut self, rng: &mut ChainRng) -> Result<(), SamplerError> {
        let mut best: Option<VbResult> = None;
        for _ in 0..self.cfg.n_restarts.max(1) {
            let res = run_vb(&self.problem, &self.cfg, rng)?;
            if best.as_ref().is_none_or(|b| res.elbo > b.elbo) {
                best = Some(res);
            }
        }
        self.last = best;
        Ok(())
    }

    fn record(&self, row: &mut Vec<f64>) {
        match &self.last {
            Some(r) => row.extend_from_slice(&[r.elbo, r.elbo]),
            None => row.extend_from_slice(&[f64::NAN; 2]),
        }
    }

    fn accumulate(&mut self) {
        if let Some(l) = &self.last
            && self.best.as_ref().is_none_or(|b| l.elbo > b.elbo)
        {
            self.best = Some(l.clone());
        }
    }

    fn summary(&self) -> Vec<Matrix> {
        let Some(res) = self.best.as_ref().or(self.last.as_ref()) else {
            return vec![Matrix::scalar("log_marginal_likelihood", f64::NAN)];
        };
        let (t_len, k) = (self.problem.len(), self.problem.n_latent);
        let map: Vec<f64> = (0..t_len)
            .map(|t| {
                let row = &res.responsibilities[t * k..(t + 1) * k];
                let mut best = 0;
                for r in 1..k {
                    if row[r] > row[best] {
                        best = r;
                    }
                }
                best as f64
            })
            .collect();
        vec![
            Matrix::scalar("log_marginal_likelihood", res.elbo),
            Matrix::new("elbo_history", res.history.len(), 1, res.history.clone()),
            Matrix::new("r_marginals", t_len, k, res.responsibilities.clone()),
            Matrix::new("r_map", t_len, 1, map),
        ]
    }

    crate::serde_checkpoint!();
}

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
//!   maximum ELBO over runs). A restart after the first is abandoned once it is dominated by the
//!   best earlier one (`dominated_horizon`, [`VbConfig::dominated_horizon`]): it could then only
//!   win by gaining, in the iterations it has left, far more than its current pace.
//! - The responsibilities step evaluates ln θ̂ᵗ(r) for all t of a class in one loop, and each
//!   t's normaliser with R exponentials and one logarithm (not 2R and one): one pass that also
//!   accumulates the expected sufficient statistics of the parameter step.
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
use crate::math::{exp_neg_fast, ln_fast};
use crate::seed::ChainRng;

/// Default [`VbConfig::dominated_horizon`]: 10⁴ iterations, ten times the default
/// `max_iterations`. Coordinate ascent can sit on a plateau and then jump, so a shorter horizon
/// abandons restarts that would have won: on 504 CEP jobs (14 pairs, settings 1/20/36, three
/// hypotheses, R 1/2/3/5, five restarts) a horizon of 10³ moved the best ELBO by up to 42 nats,
/// 10⁴ by at most 1.0·10⁻⁵ nats while saving 9% of the iterations.
pub const DEFAULT_DOMINATED_HORIZON: usize = 10_000;

fn default_dominated_horizon() -> usize {
    DEFAULT_DOMINATED_HORIZON
}

/// First iteration at which a restart may be abandoned as dominated.
pub const DOMINATED_MIN_ITERATIONS: usize = 20;

/// VB-CN settings.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct VbConfig {
    /// Largest number of coordinate-ascent iterations per run (default 1000).
    pub max_iterations: usize,
    /// Relative ELBO change that counts as converged (default 1e-9).
    pub tolerance: f64,
    /// Independent random initialisations per step; the best ELBO wins (default 1).
    pub n_restarts: usize,
    /// Dominated restarts (default [`DEFAULT_DOMINATED_HORIZON`]; 0 = never): a restart after
    /// the first is abandoned at iteration i ≥ [`DOMINATED_MIN_ITERATIONS`] once
    /// ELBO_i + H·(ELBO_i − ELBO_{i−1}) < the best final ELBO of the earlier restarts, i.e. once
    /// even H more iterations, each gaining as much as the last, could not catch up.
    #[serde(default = "default_dominated_horizon")]
    pub dominated_horizon: usize,
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
            dominated_horizon: DEFAULT_DOMINATED_HORIZON,
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
    /// Whether the run was abandoned as dominated by an earlier restart
    /// ([`VbConfig::dominated_horizon`]); its ELBO is then below that restart's.
    #[serde(default)]
    pub abandoned: bool,
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

/// Parameter step: γ̂ and (Λ̂, m̂, â, b̂) from the expected sufficient statistics `stats`
/// (per variable and class, §4.2).
fn update_params(
    p: &Problem,
    stats: [Vec<equations::SuffStats>; 2],
) -> Result<QParams, SamplerError> {
    let k = p.n_latent;
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

/// Work arrays of the responsibilities step, class-major (`r·T + t`), allocated once per run.
struct Scratch {
    /// ln θ̂ᵗ(r), then exp(ln θ̂ᵗ(r) − max_r), then q(r_t = r).
    l: Vec<f64>,
    /// Per t: max_r ln θ̂ᵗ(r), then the log normaliser.
    mx: Vec<f64>,
    /// Per t: Σ_r exp(ln θ̂ᵗ(r) − max_r).
    sum: Vec<f64>,
    /// Per t: Σ_r exp(d_r)·d_r with d_r = ln θ̂ᵗ(r) − max_r (for the entropy).
    ed: Vec<f64>,
}

impl Scratch {
    fn new(t_len: usize, k: usize) -> Self {
        Scratch {
            l: vec![0.0; t_len * k],
            mx: vec![0.0; t_len],
            sum: vec![0.0; t_len],
            ed: vec![0.0; t_len],
        }
    }
}

/// Update every q(r_t) (ln θ̂ᵗ of §4.2 / App. C.2) into `sc.l` (class-major) and return
/// Σ_t Σ_r θ̂ ln θ̂ (negative entropy) with the expected sufficient statistics of the new q(r)
/// (per variable and class). ln θ̂ᵗ(r) is [`equations::vb_log_theta_hat`] with the class's
/// t-independent terms collected once; each t's normaliser takes R exponentials and one
/// logarithm ([`exp_neg_fast`], [`ln_fast`]), in loops over t that vectorise, compiled for
/// AVX-512 and AVX2 as well as the baseline x86-64 and picked at run time (`multiversion`):
/// plain f64 operations in a fixed order (no FMA; the sums over t stay left to right), so every
/// path gives the same bits.
#[multiversion::multiversion(targets("x86_64+avx512f+avx512dq+avx2+avx", "x86_64+avx2+avx"))]
fn update_resp(
    p: &Problem,
    qp: &QParams,
    sc: &mut Scratch,
) -> (f64, [Vec<equations::SuffStats>; 2]) {
    update_resp_body(p, qp, sc)
}

/// The loops of [`update_resp`], inlined into each of its compiled versions and, in the tests,
/// into baseline code.
#[inline(always)]
fn update_resp_body(
    p: &Problem,
    qp: &QParams,
    sc: &mut Scratch,
) -> (f64, [Vec<equations::SuffStats>; 2]) {
    let (k, t_len) = (p.n_latent, p.len());
    let (x1, x2, f) = (&p.v1[..t_len], &p.v2[..t_len], &p.f[..t_len]);
    for r in 0..k {
        let (q1, q2) = (&qp.mom[0][r], &qp.mom[1][r]);
        // expected_log_lik for v1 (φ = [1, 0]) and v2 (φ = [1, f]), t-independent parts first.
        let c0 = qp.e_log_theta[r]
            + 0.5 * (q1.e_log_rho - equations::LN_2PI)
            + 0.5 * (q2.e_log_rho - equations::LN_2PI)
            - 0.5 * q1.sigma.xx;
        let (m1, e1) = (q1.m[0], 0.5 * q1.e_rho);
        let (w0, w1, e2) = (q2.m[0], q2.m[1], 0.5 * q2.e_rho);
        let (sxx, sxy, syy) = (q2.sigma.xx, q2.sigma.xy, q2.sigma.yy);
        let l = &mut sc.l[r * t_len..(r + 1) * t_len];
        for t in 0..t_len {
            let d1 = x1[t] - m1;
            let d2 = x2[t] - w0 - w1 * f[t];
            let quad = sxx + f[t] * (2.0 * sxy + f[t] * syy);
            l[t] = c0 - e1 * d1 * d1 - e2 * d2 * d2 - 0.5 * quad;
        }
    }
    let (mx, sum) = (&mut sc.mx[..t_len], &mut sc.sum[..t_len]);
    mx.copy_from_slice(&sc.l[..t_len]);
    for r in 1..k {
        let l = &sc.l[r * t_len..(r + 1) * t_len];
        for t in 0..t_len {
            mx[t] = if l[t] > mx[t] { l[t] } else { mx[t] };
        }
    }
    let ed = &mut sc.ed[..t_len];
    sum.fill(0.0);
    ed.fill(0.0);
    for r in 0..k {
        let l = &mut sc.l[r * t_len..(r + 1) * t_len];
        for t in 0..t_len {
            let d = l[t] - mx[t];
            let e = exp_neg_fast(d);
            sum[t] += e;
            ed[t] += e * d;
            l[t] = e;
        }
    }
    // Σ_r q_r ln q_r = Σ_r (e_r/S)(d_r − ln S) = (Σ_r e_r d_r)/S − ln S, with 1 ≤ S ≤ R.
    for t in 0..t_len {
        ed[t] = ed[t] / sum[t] - ln_fast(sum[t]);
    }
    let neg_ent = ed.iter().sum();
    let mut stats = [
        vec![equations::SuffStats::default(); k],
        vec![equations::SuffStats::default(); k],
    ];
    for r in 0..k {
        let l = &mut sc.l[r * t_len..(r + 1) * t_len];
        let (mut n, mut sf, mut sff, mut s1, mut s11, mut s2, mut s2f, mut s22) =
            (0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0);
        for t in 0..t_len {
            let pr = l[t] / sum[t];
            l[t] = pr;
            let (y1, y2, ft) = (x1[t], x2[t], f[t]);
            n += pr;
            sf += pr * ft;
            sff += pr * ft * ft;
            s1 += pr * y1;
            s11 += pr * y1 * y1;
            s2 += pr * y2;
            s2f += pr * y2 * ft;
            s22 += pr * y2 * y2;
        }
        stats[0][r] = equations::SuffStats {
            n,
            phiphi: equations::Sym2 {
                xx: n,
                xy: 0.0,
                yy: 0.0,
            },
            yphi: [s1, 0.0],
            yy: s11,
        };
        stats[1][r] = equations::SuffStats {
            n,
            phiphi: equations::Sym2 {
                xx: n,
                xy: sf,
                yy: sff,
            },
            yphi: [s2, s2f],
            yy: s22,
        };
    }
    (neg_ent, stats)
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

/// One VB-CN run from a random initialisation (Fig. 4.5), to convergence.
///
/// Stopping rule: after iteration i, stop when |ELBO_i − ELBO_{i−1}| ≤ `tolerance` ·
/// max(1, |ELBO_i|) (`converged`), or when i = `max_iterations`.
///
/// Errors: [`SamplerError::Numerical`] on a degenerate factor or a non-finite ELBO.
pub fn run_vb(p: &Problem, cfg: &VbConfig, rng: &mut ChainRng) -> Result<VbResult, SamplerError> {
    run_vb_against(p, cfg, rng, None)
}

/// [`run_vb`], abandoned early (`abandoned`) when dominated by `best`, the best ELBO of earlier
/// restarts, under the rule of [`VbConfig::dominated_horizon`].
fn run_vb_against(
    p: &Problem,
    cfg: &VbConfig,
    rng: &mut ChainRng,
    best: Option<f64>,
) -> Result<VbResult, SamplerError> {
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
    let mut qp = update_params(p, p.suff_stats(None, Some(&resp)))?;
    let mut cur = elbo(p, &qp, neg_ent, cfg.defect())?;
    let mut sc = Scratch::new(t_len, k);
    let mut history = vec![cur];
    let mut converged = false;
    let mut abandoned = false;
    let mut iterations = 0;
    let horizon = cfg.dominated_horizon as f64;
    while iterations < cfg.max_iterations {
        iterations += 1;
        let (neg_ent, stats) = update_resp(p, &qp, &mut sc);
        qp = update_params(p, stats)?;
        let next = elbo(p, &qp, neg_ent, cfg.defect())?;
        history.push(next);
        let done = (next - cur).abs() <= cfg.tolerance * next.abs().max(1.0);
        cur = next;
        if done {
            converged = true;
            break;
        }
        if let Some(b) = best
            && cfg.dominated_horizon > 0
            && iterations >= DOMINATED_MIN_ITERATIONS
            && cur + horizon * (cur - history[history.len() - 2]).max(0.0) < b
        {
            abandoned = true;
            break;
        }
    }
    if iterations > 0 {
        for r in 0..k {
            for t in 0..t_len {
                resp[t * k + r] = sc.l[r * t_len + t];
            }
        }
    }
    Ok(VbResult {
        elbo: cur,
        history,
        responsibilities: resp,
        iterations,
        converged,
        abandoned,
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
            let res = run_vb_against(&self.problem, &self.cfg, rng, best.as_ref().map(|b| b.elbo))?;
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kurutmaz2019::datasets;
    use crate::kurutmaz2019::hyper::{Hyper, Hypothesis};
    use crate::seed::{chain_rng, dataset_rng};

    fn problem() -> Problem {
        let h = Hyper::of_setting(20).unwrap();
        let d =
            datasets::synthetic(Hypothesis::AToB, 3, 300, &h, &mut dataset_rng(4, 5, 6)).unwrap();
        let x = d.observed("x").unwrap();
        let (mut a, mut b) = (x.values[..300].to_vec(), x.values[300..].to_vec());
        datasets::standardize(&mut a).unwrap();
        datasets::standardize(&mut b).unwrap();
        Problem::new(&a, &b, Hypothesis::AToB, 3, h).unwrap()
    }

    /// The dominated-restart rule: with horizon 0 a run is never abandoned and equals `run_vb`;
    /// with a short horizon, runs are abandoned only below the earlier best, and earlier than
    /// they would have converged; an abandoned run consumed the same initialisation draws.
    #[test]
    fn dominated_restarts_stop_early_and_only_below_the_best() {
        let p = problem();
        let mut abandoned = 0;
        for seed in 0..8u64 {
            let first = run_vb(&p, &VbConfig::default(), &mut chain_rng(1, seed, 0, 0)).unwrap();
            let best = first.elbo;
            let off = VbConfig {
                dominated_horizon: 0,
                ..VbConfig::default()
            };
            let full = run_vb_against(&p, &off, &mut chain_rng(2, seed, 0, 0), Some(best)).unwrap();
            let plain = run_vb(&p, &off, &mut chain_rng(2, seed, 0, 0)).unwrap();
            assert!(!full.abandoned);
            assert_eq!(full.history, plain.history);
            let short = VbConfig {
                dominated_horizon: 1,
                ..VbConfig::default()
            };
            let mut g = chain_rng(2, seed, 0, 0);
            let cut = run_vb_against(&p, &short, &mut g, Some(best)).unwrap();
            if cut.abandoned {
                abandoned += 1;
                assert!(cut.elbo < best, "abandoned at {} ≥ best {best}", cut.elbo);
                assert!(cut.iterations >= DOMINATED_MIN_ITERATIONS);
                assert!(cut.iterations < full.iterations);
                assert_eq!(cut.history[..], full.history[..cut.history.len()]);
            } else {
                assert_eq!(cut.history, full.history);
            }
        }
        assert!(abandoned > 0, "no run was abandoned with a horizon of 1");
    }

    /// The dispatched `update_resp` (AVX-512 or AVX2 where the machine has them) gives the bits
    /// of its baseline body: responsibilities, negative entropy and expected statistics, along
    /// a few VB iterations from a random start.
    #[test]
    fn dispatched_update_resp_gives_the_baseline_bits() {
        let p = problem();
        let (k, t_len) = (p.n_latent, p.len());
        let mut rng = chain_rng(9, 9, 9, 9);
        let resp: Vec<f64> = (0..t_len * k).map(|_| rng.random::<f64>() + 0.01).collect();
        let mut qp = update_params(&p, p.suff_stats(None, Some(&resp))).unwrap();
        let (mut sc_a, mut sc_b) = (Scratch::new(t_len, k), Scratch::new(t_len, k));
        let bits = |x: &[f64]| x.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
        for _ in 0..5 {
            let (ent_a, st_a) = update_resp(&p, &qp, &mut sc_a);
            let (ent_b, st_b) = update_resp_body(&p, &qp, &mut sc_b);
            assert_eq!(ent_a.to_bits(), ent_b.to_bits());
            assert_eq!(bits(&sc_a.l), bits(&sc_b.l));
            for v in 0..2 {
                for r in 0..k {
                    let (a, b) = (&st_a[v][r], &st_b[v][r]);
                    let fa = [
                        a.n,
                        a.phiphi.xx,
                        a.phiphi.xy,
                        a.phiphi.yy,
                        a.yphi[0],
                        a.yphi[1],
                        a.yy,
                    ];
                    let fb = [
                        b.n,
                        b.phiphi.xx,
                        b.phiphi.xy,
                        b.phiphi.yy,
                        b.yphi[0],
                        b.yphi[1],
                        b.yy,
                    ];
                    assert_eq!(bits(&fa), bits(&fb), "v={v} r={r}");
                }
            }
            qp = update_params(&p, st_a).unwrap();
        }
    }
}

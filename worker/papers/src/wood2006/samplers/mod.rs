//! [`HiddenCauseSampler`]: the [`Sampler`] of both algorithms, with trace, posterior summaries
//! and the MAP state.

mod gibbs;
mod hyper;
mod rjmcmc;
mod row_hist;
mod split_merge;
mod state;
mod y_sweep;

pub use self::state::{Defect, Hyper};

use std::collections::HashMap;

use rand::{RngExt, SeedableRng};

use self::state::{Cause, Core, Tables};
use crate::chain::{Sampler, SamplerError};
use crate::data::Matrix;
use crate::math::log_sum_exp;
use crate::seed::ChainRng;
use crate::wood2006::datasets::BinaryMatrix;
use crate::wood2006::equations as eq;
use crate::wood2006::params::{Init, Params, SamplerKind};

/// Largest K_+ for which `map_y_mean` is computed by exact enumeration of the 2^{K_+} activation
/// patterns of each trial.
pub const MAP_Y_EXACT_MAX_K: usize = 12;

#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
struct MapState {
    log_joint: f64,
    /// N × K_+ (non-zero columns only).
    z: BinaryMatrix,
    /// K_+ × T.
    y: BinaryMatrix,
    hyper: Hyper,
}

/// The sampler of Wood et al. (2006) for one chain: Algorithm 2 (`sampler: gibbs`, infinite model)
/// or Algorithm 1 (`sampler: rjmcmc`, finite model), optionally with the hyperparameter updates
/// of §6.
///
/// One [`Sampler::step`] is one iteration of the algorithm (all N rows, the Y sweep(s), then the
/// hyperparameters). Trace: `k_plus`, (`k`, RJMCMC only), `log_joint`, `alpha`, `lambda`,
/// `epsilon`, `p` — see [`HiddenCauseSampler::trace_names`]. Summary matrices: `zzt_mean`,
/// `zzt_draws`, `map_z`, `map_y`, `map_log_joint`, `map_y_mean` — see [`Sampler::summary`].
#[derive(serde::Serialize, serde::Deserialize)]
pub struct HiddenCauseSampler {
    core: Core,
    row_names: Vec<String>,
    log_joint: f64,
    /// Upper triangle (row-major, diagonal included) of Z Zᵀ for the current state.
    zzt_cur: Vec<u32>,
    zzt_sum: Vec<f64>,
    n_accum: u64,
    zzt_draws: Vec<u32>,
    n_draws: usize,
    map: MapState,
    summary_seed: u64,
}

impl HiddenCauseSampler {
    /// Build a chain's sampler for data `x` (N observed × T trials, 0/1) with `row_names` (empty
    /// or N names, copied to `map_z` and `zzt_mean`), initialised per `params.init` with draws from
    /// `rng`.
    ///
    /// Errors: [`SamplerError::Input`] if `x` is empty or `row_names` has the wrong length, or the
    /// parameters fail [`Params::check`].
    pub fn new(
        params: &Params,
        x: &BinaryMatrix,
        row_names: Vec<String>,
        rng: &mut ChainRng,
    ) -> Result<Self, SamplerError> {
        params
            .check()
            .map_err(|e| SamplerError::Input(e.to_string()))?;
        if x.rows == 0 || x.cols == 0 || x.data.len() != x.rows * x.cols {
            return Err(SamplerError::Input(format!(
                "x must be a non-empty N × T matrix, got {} × {}",
                x.rows, x.cols
            )));
        }
        if x.data.iter().any(|&v| v > 1) {
            return Err(SamplerError::Input("x entries must be 0 or 1".into()));
        }
        if !row_names.is_empty() && row_names.len() != x.rows {
            return Err(SamplerError::Input(format!(
                "{} row names for {} rows of x",
                row_names.len(),
                x.rows
            )));
        }
        let mut core = Core::new(params.sampler, params.clone(), x);
        let (n, t) = (x.rows, x.cols);
        let p = params.p;
        match (params.init, params.sampler) {
            (Init::Empty, SamplerKind::Gibbs) => {}
            (Init::Empty, SamplerKind::Rjmcmc) => {
                let y = (0..t).map(|_| u8::from(rng.random::<f64>() < p)).collect();
                core.causes.push(Cause::new(vec![0; n], y));
            }
            (Init::Random, _) => {
                for _ in 0..params.init_k {
                    let mut z: Vec<u8> = (0..n)
                        .map(|_| u8::from(rng.random::<f64>() < 0.5))
                        .collect();
                    if z.iter().all(|&v| v == 0) {
                        z[rng.random_range(0..n)] = 1;
                    }
                    let y = (0..t).map(|_| u8::from(rng.random::<f64>() < p)).collect();
                    core.causes.push(Cause::new(z, y));
                }
            }
        }
        core.recompute_eta();
        let summary_seed: u64 = rng.random();
        let tri = n * (n + 1) / 2;
        let mut s = HiddenCauseSampler {
            core,
            row_names,
            log_joint: f64::NEG_INFINITY,
            zzt_cur: vec![0; tri],
            zzt_sum: vec![0.0; tri],
            n_accum: 0,
            zzt_draws: Vec::new(),
            n_draws: 0,
            map: MapState {
                log_joint: f64::NEG_INFINITY,
                z: BinaryMatrix::zeros(n, 0),
                y: BinaryMatrix::zeros(0, t),
                hyper: Hyper {
                    alpha: params.alpha,
                    lambda: params.lambda,
                    epsilon: params.epsilon,
                    p,
                },
            },
            summary_seed,
        };
        s.refresh()?;
        Ok(s)
    }

    /// Switch on a deliberately broken kernel (negative-control tests only; `None` switches it
    /// off). Exists only with the `testing` feature, so a build without it cannot run a broken
    /// kernel.
    #[cfg(feature = "testing")]
    pub fn with_defect(mut self, defect: impl Into<Option<Defect>>) -> Self {
        self.core.defect = defect.into();
        self
    }

    /// Replace the state: Z (N × K), Y (K × T) and, if given, the hyperparameters. The Gibbs
    /// sampler drops all-zero columns; the RJMCMC sampler needs K ≥ 1. Resets the MAP state to
    /// this one. Errors: shapes that do not fit X, out-of-range hyperparameters.
    pub fn set_state(
        &mut self,
        z: &BinaryMatrix,
        y: &BinaryMatrix,
        hyper: Option<Hyper>,
    ) -> Result<(), SamplerError> {
        if let Some(h) = hyper {
            let ok = h.alpha > 0.0
                && h.alpha.is_finite()
                && [h.lambda, h.epsilon, h.p]
                    .iter()
                    .all(|v| *v > 0.0 && *v < 1.0);
            if !ok {
                return Err(SamplerError::Input(format!(
                    "hyperparameters out of range: {h:?}"
                )));
            }
            self.core.hyper = h;
        }
        self.core.set_causes(z, y)?;
        if self.core.kind == SamplerKind::Rjmcmc && self.core.causes.is_empty() {
            return Err(SamplerError::Input(
                "the RJMCMC state needs K ≥ 1 columns".into(),
            ));
        }
        self.map.log_joint = f64::NEG_INFINITY;
        self.refresh()
    }

    /// Replace the observed data X (same N × T) keeping Z, Y and the hyperparameters (for the
    /// Geweke successive-conditional simulator).
    #[doc(hidden)]
    pub fn set_observed(&mut self, x: &BinaryMatrix) -> Result<(), SamplerError> {
        if x.rows != self.core.n || x.cols != self.core.t || x.data.len() != x.rows * x.cols {
            return Err(SamplerError::Input("x has a different shape".into()));
        }
        if x.data.iter().any(|&v| v > 1) {
            return Err(SamplerError::Input("x entries must be 0 or 1".into()));
        }
        self.core.x.copy_from_slice(&x.data);
        self.core.invalidate_eta_caches();
        self.core.global_hist();
        self.log_joint = self.core.log_joint();
        Ok(())
    }

    /// Recompute the caches (η, m_k, Eq. 3 tables, log_joint) from scratch and compare.
    #[doc(hidden)]
    pub fn check_caches(&self) -> Result<(), String> {
        self.core.check_caches()?;
        let mut fresh = self.core.clone();
        fresh.global_hist();
        let lj = fresh.log_joint();
        if (lj - self.log_joint).abs() > 1e-9 * (1.0 + lj.abs()) {
            return Err(format!(
                "log_joint cached {} recomputed {lj}",
                self.log_joint
            ));
        }
        Ok(())
    }

    /// Current Z, N observed × K causes (RJMCMC: all K columns, empty ones included).
    pub fn z(&self) -> BinaryMatrix {
        self.core.z_matrix()
    }

    /// Current Y, K causes × T trials.
    pub fn y(&self) -> BinaryMatrix {
        self.core.y_matrix()
    }

    /// Current hyperparameters.
    pub fn hyper(&self) -> Hyper {
        self.core.hyper
    }

    /// Number of columns K in the state (= K_+ for the Gibbs sampler).
    pub fn k(&self) -> usize {
        self.core.causes.len()
    }

    /// Number of columns with at least one link, K_+.
    pub fn k_plus(&self) -> usize {
        self.core.k_plus()
    }

    /// Splits and merges accepted in the last iteration (both 0 without `params.split_merge`).
    pub fn split_merge_accepted(&self) -> (u32, u32) {
        self.core.split_merge_accepted
    }

    /// The current `log_joint` (see [`HiddenCauseSampler::trace_names`]).
    pub fn log_joint(&self) -> f64 {
        self.log_joint
    }

    /// After a change of state: histogram, log_joint, Z Zᵀ, MAP.
    fn refresh(&mut self) -> Result<(), SamplerError> {
        self.core.global_hist();
        self.log_joint = self.core.log_joint();
        if self.log_joint.is_nan() {
            return Err(SamplerError::Numerical("log_joint is NaN".into()));
        }
        self.compute_zzt();
        if self.log_joint > self.map.log_joint {
            let kept: Vec<&Cause> = self.core.causes.iter().filter(|c| c.m > 0).collect();
            let (n, t) = (self.core.n, self.core.t);
            let mut z = BinaryMatrix::zeros(n, kept.len());
            for (j, c) in kept.iter().enumerate() {
                for i in 0..n {
                    z.set(i, j, c.z[i]);
                }
            }
            let y = BinaryMatrix {
                rows: kept.len(),
                cols: t,
                data: kept.iter().flat_map(|c| c.y.iter().copied()).collect(),
            };
            self.map = MapState {
                log_joint: self.log_joint,
                z,
                y,
                hyper: self.core.hyper,
            };
        }
        Ok(())
    }

    fn compute_zzt(&mut self) {
        let n = self.core.n;
        self.zzt_cur.iter_mut().for_each(|v| *v = 0);
        let mut rows = Vec::new();
        for c in &self.core.causes {
            if c.m == 0 {
                continue;
            }
            rows.clear();
            rows.extend((0..n).filter(|&i| c.z[i] != 0));
            for (ai, &a) in rows.iter().enumerate() {
                let base = a * n - a * (a + 1) / 2;
                for &b in &rows[ai..] {
                    self.zzt_cur[base + b] += 1;
                }
            }
        }
    }

    /// Posterior means of `y_{k,t}` given the MAP Z and hyperparameters (K_+ × T). Exact for
    /// K_+ ≤ [`MAP_Y_EXACT_MAX_K`] (the T trials are independent given Z; each trial's 2^{K_+}
    /// activation patterns are enumerated with Eqs. 3–4, trials with equal columns of X
    /// sharing the result); otherwise the Rao–Blackwellised average over `map_y_sweeps` Eq. 12
    /// sweeps started from the MAP Y, with an RNG seeded from the chain's RNG at construction.
    fn map_y_mean(&self) -> Matrix {
        let (n, t) = (self.core.n, self.core.t);
        let kp = self.map.z.cols;
        let h = self.map.hyper;
        if kp == 0 {
            return Matrix::new("map_y_mean", 0, t, Vec::new());
        }
        let mut out = vec![0.0; kp * t];
        if kp <= MAP_Y_EXACT_MAX_K {
            let tables = Tables::new(h.lambda, h.epsilon, kp + 2);
            let masks: Vec<u32> = (0..n)
                .map(|i| (0..kp).fold(0u32, |acc, k| acc | (u32::from(self.map.z.get(i, k)) << k)))
                .collect();
            let mut cache: HashMap<Vec<u8>, Vec<f64>> = HashMap::new();
            let mut w = vec![0.0; 1 << kp];
            for tt in 0..t {
                let col: Vec<u8> = (0..n).map(|i| self.core.x[i * t + tt]).collect();
                let marg = cache.entry(col).or_insert_with_key(|col| {
                    for (c, wc) in w.iter_mut().enumerate() {
                        let c = c as u32;
                        let mut s = eq::ln_p_y(u64::from(c.count_ones()), kp as u64, h.p);
                        for i in 0..n {
                            let e = (masks[i] & c).count_ones() as usize;
                            s += tables.ln_px[2 * e + usize::from(col[i])];
                        }
                        *wc = s;
                    }
                    let z = log_sum_exp(&w);
                    let mut m = vec![0.0; kp];
                    for (c, wc) in w.iter().enumerate() {
                        let pr = (wc - z).exp();
                        for (k, mk) in m.iter_mut().enumerate() {
                            if c >> k & 1 == 1 {
                                *mk += pr;
                            }
                        }
                    }
                    m
                });
                for k in 0..kp {
                    out[k * t + tt] = marg[k];
                }
            }
        } else {
            let x = BinaryMatrix {
                rows: n,
                cols: t,
                data: self.core.x.clone(),
            };
            let mut core = Core::new(SamplerKind::Gibbs, self.core.cfg.clone(), &x);
            core.hyper = h;
            let mut rng = ChainRng::seed_from_u64(self.summary_seed);
            let sweeps = self.core.cfg.map_y_sweeps;
            let ok = core.set_causes(&self.map.z, &self.map.y).is_ok()
                && (0..sweeps).all(|_| core.sweep_y(&mut rng, Some(&mut out)).is_ok());
            if ok {
                out.iter_mut().for_each(|v| *v /= sweeps as f64);
            } else {
                // Cannot happen with valid hyperparameters; fall back to the MAP sample itself.
                out = self.map.y.data.iter().map(|&v| f64::from(v)).collect();
            }
        }
        Matrix::new("map_y_mean", kp, t, out)
    }
}

impl Sampler for HiddenCauseSampler {
    /// `k_plus` (causes with ≥ 1 link), `k` (RJMCMC only: all columns), `log_joint`, `alpha`,
    /// `lambda`, `epsilon`, `p`. `log_joint` = `ln P(X|Z,Y,λ,ε)` (Eq. 3) + `ln P(Y|p)` (Eq. 4, every
    /// row of Y in the state) + `ln P(Z)` (Gibbs: IBP left-ordered-form class probability, §3.2;
    /// RJMCMC: Eq. 5 for the ordered Z, plus `ln P(K)`), plus, only when
    /// `update_hyperparameters` is on, the log prior densities of λ, ε, p (Beta) and α (Gamma).
    fn trace_names(&self) -> Vec<String> {
        let mut v = vec!["k_plus".to_string()];
        if self.core.kind == SamplerKind::Rjmcmc {
            v.push("k".into());
        }
        v.extend(["log_joint", "alpha", "lambda", "epsilon", "p"].map(String::from));
        v
    }

    fn step(&mut self, rng: &mut ChainRng) -> Result<(), SamplerError> {
        match self.core.kind {
            SamplerKind::Gibbs => {
                self.core.gibbs_iteration(rng)?;
                self.core.split_merge_sweep(rng)?;
            }
            SamplerKind::Rjmcmc => self.core.rjmcmc_iteration(rng)?,
        }
        if self.core.cfg.update_hyperparameters {
            self.core.global_hist();
            self.core.update_hyper(rng)?;
        }
        self.refresh()?;
        self.zzt_draws.extend_from_slice(&self.zzt_cur);
        self.n_draws += 1;
        Ok(())
    }

    fn record(&self, row: &mut Vec<f64>) {
        row.push(self.core.k_plus() as f64);
        if self.core.kind == SamplerKind::Rjmcmc {
            row.push(self.core.causes.len() as f64);
        }
        let h = self.core.hyper;
        row.extend([self.log_joint, h.alpha, h.lambda, h.epsilon, h.p]);
    }

    /// With `params.split_merge > 0`: `splits_accepted`, `merges_accepted` in the iteration.
    fn stat_names(&self) -> Vec<String> {
        if self.core.cfg.split_merge > 0 {
            vec!["splits_accepted".into(), "merges_accepted".into()]
        } else {
            Vec::new()
        }
    }

    fn record_stats(&self, row: &mut Vec<f64>) {
        if self.core.cfg.split_merge > 0 {
            let (s, m) = self.core.split_merge_accepted;
            row.extend([f64::from(s), f64::from(m)]);
        }
    }

    fn accumulate(&mut self) {
        for (s, &v) in self.zzt_sum.iter_mut().zip(&self.zzt_cur) {
            *s += f64::from(v);
        }
        self.n_accum += 1;
    }

    /// - `zzt_mean`: N × N, posterior mean of Z Zᵀ over the iterations passed to `accumulate`
    ///   (after burn-in); all zeros if there were none. Row/column names = X's row names.
    /// - `zzt_draws`: R × N(N+1)/2, row r = upper triangle of Z Zᵀ (diagonal included, row-major:
    ///   (0,0), (0,1) … (0,N−1), (1,1) …) after iteration r + 1, for every iteration run.
    /// - `map_z`: N × K_+ of the highest-`log_joint` state seen (initial state included), row
    ///   names = X's; `map_y`: K_+ × T; `map_log_joint`: 1 × 1.
    /// - `map_y_mean`: K_+ × T, `E[y_{k,t} | X, map Z, map hyperparameters]` (see
    ///   `HiddenCauseSampler::map_y_mean`).
    fn summary(&self) -> Vec<Matrix> {
        let n = self.core.n;
        let mut mean = vec![0.0; n * n];
        if self.n_accum > 0 {
            for a in 0..n {
                let base = a * n - a * (a + 1) / 2;
                for b in a..n {
                    let v = self.zzt_sum[base + b] / self.n_accum as f64;
                    mean[a * n + b] = v;
                    mean[b * n + a] = v;
                }
            }
        }
        let mut zzt_mean = Matrix::new("zzt_mean", n, n, mean);
        zzt_mean.row_names = self.row_names.clone();
        zzt_mean.col_names = self.row_names.clone();
        let tri = n * (n + 1) / 2;
        let mut draws = Matrix::new(
            "zzt_draws",
            self.n_draws,
            tri,
            self.zzt_draws.iter().map(|&v| f64::from(v)).collect(),
        );
        draws.col_names = (0..n)
            .flat_map(|a| (a..n).map(move |b| format!("{a},{b}")))
            .collect();
        let mut map_z = self.map.z.to_matrix("map_z");
        map_z.row_names = self.row_names.clone();
        vec![
            zzt_mean,
            draws,
            map_z,
            self.map.y.to_matrix("map_y"),
            Matrix::scalar("map_log_joint", self.map.log_joint),
            self.map_y_mean(),
        ]
    }

    crate::serde_checkpoint!();
}

//! The Dirichlet-process mixture of Gaussians baseline of Table 1 (Görür & Rasmussen 2010,
//! cited in §5.1 of `004_74db43a26dbf0fa1.txt`; the paper gives no settings gives
//! ours, all in `params.dpmog`).
//!
//! - Data: the training set standardized with its mean and sample sd (n − 1 divisor).
//! - Base: Normal-inverse-Wishart, μ₀ = 0, κ₀ (default 0.1), ν₀ (default d + 2), Ψ₀ = ψ₀·I
//!   (default ψ₀ = 0.25); see [`NiwPrior`] and [`StudentT`].
//! - Kernel: collapsed Gibbs, Neal (2000)'s algorithm 3. For each point i in order, remove it
//!   from its cluster, then move it to cluster c with probability ∝ n_{−i,c}·t_c(x_i) or to a new
//!   cluster ∝ α·t_0(x_i), t the Student-t posterior predictive (log space). Each cluster caches
//!   its count, Σx, Σxxᵀ and its predictive (Cholesky of the scale), so a sweep costs
//!   O(N·K·d²) plus O(d³) per change of a cluster. The statistics are recomputed from the
//!   assignments at the start of every sweep, so rounding never accumulates.
//! - Concentration: α ~ Gamma(shape, rate) (default (1, 1)), updated after each sweep as in
//!   Escobar & West (1995): η ~ Beta(α + 1, N), then α ~ π·Gamma(a + K, b − ln η) +
//!   (1 − π)·Gamma(a + K − 1, b − ln η) with π/(1 − π) = (a + K − 1)/(N (b − ln η)).
//! - Start: every point in one cluster, α at its prior mean a/b.
//! - Fantasy data: on every recorded iteration (iteration % thin = 0, thin from
//!   [`Sampler::begin`]), n_test points from the posterior predictive of the current state: for
//!   each, a cluster ∝ n_k or a new one ∝ α, then a draw from that cluster's predictive; their
//!   KL(test ‖ fantasy) with k = `kl_k`. These draws use [`crate::seed::evaluation_rng`], made once
//!   at construction, so evaluating never changes the chain. The KL is computed in the
//!   standardized space, where the fantasy data are drawn ([`DpmogSampler::fantasy`] gives them
//!   in data units).

mod niw;

use rand::RngExt;
use rand_distr::{Beta, Distribution, Gamma};

pub use self::niw::{ClusterStats, NiwPrior, StudentT};
use super::Defect;
use crate::chain::{RunSpec, Sampler, SamplerError};
use crate::dallaire2014::evaluation::{FantasyKl, Standardizer};
use crate::dallaire2014::params::{GammaPrior, Params};
use crate::data::Matrix;
use crate::math::sample_log_weights;
use crate::seed::ChainRng;

#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
struct Cluster {
    stats: ClusterStats,
    pred: StudentT,
}

/// The collapsed Gibbs sampler of the DP mixture. Trace: `kl`, `k_plus` (occupied clusters),
/// `concentration` (α). Summary: `k_plus_mean`, `concentration_mean` (posterior means after
/// burn-in; the current values if nothing was accumulated), `assignments` (N × 1, final cluster
/// labels numbered by first appearance).
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct DpmogSampler {
    d: usize,
    n: usize,
    /// Standardized training points, N × d.
    z: Vec<f64>,
    prior: NiwPrior,
    prior_pred: StudentT,
    concentration_prior: GammaPrior,
    alpha: f64,
    fixed_alpha: bool,
    assign: Vec<usize>,
    clusters: Vec<Cluster>,
    kl: Option<FantasyKl>,
    n_test: usize,
    eval_rng: ChainRng,
    thin: u64,
    iteration: u64,
    last_kl: f64,
    acc_count: u64,
    acc_k_plus: f64,
    acc_alpha: f64,
    defect: Option<Defect>,
}

impl DpmogSampler {
    /// Build on training data `x` (N × d, data units) with `params.dpmog`, and the KL against
    /// `test` (n_test × d, data units) with k = `params.kl_k`.
    ///
    /// Errors ([`SamplerError::Input`]): a malformed matrix, different column counts, N < 2, a
    /// constant training column, ν₀ ≤ d − 1, n_test ≤ k, or a non-finite value.
    pub fn new(
        params: &Params,
        x: &Matrix,
        test: &Matrix,
        rng: &mut ChainRng,
    ) -> Result<Self, SamplerError> {
        let mut s = Self::build(params, x, rng)?;
        let input = |e: String| SamplerError::Input(format!("dpmog: {e}"));
        test.check().map_err(input)?;
        if test.cols != x.cols {
            return Err(input(format!(
                "training data have {} columns and the test set {}",
                x.cols, test.cols
            )));
        }
        let std = Standardizer::fit(&x.values, x.rows, x.cols).map_err(input)?;
        s.kl = Some(
            FantasyKl::with_standardizer(
                std,
                &test.values,
                test.rows,
                params.kl_k,
                params.kl_direction,
            )
            .map_err(input)?,
        );
        s.n_test = test.rows;
        s.last_kl = f64::NAN;
        Ok(s)
    }

    /// The chain alone, without a test set: its trace `kl` is NaN, so it is for tests of the
    /// kernel (exact enumeration, α), not for [`crate::chain::run_chain`].
    ///
    /// Errors: as [`DpmogSampler::new`] without the test-set ones.
    pub fn without_test(
        params: &Params,
        x: &Matrix,
        rng: &mut ChainRng,
    ) -> Result<Self, SamplerError> {
        Self::build(params, x, rng)
    }

    fn build(params: &Params, x: &Matrix, rng: &mut ChainRng) -> Result<Self, SamplerError> {
        let input = |e: String| SamplerError::Input(format!("dpmog: {e}"));
        x.check().map_err(input)?;
        let (n, d) = (x.rows, x.cols);
        let std =
            Standardizer::fit(&x.values, n, d).map_err(|e| input(format!("training data: {e}")))?;
        let mut z = x.values.clone();
        std.apply(&mut z);
        let dp = &params.dpmog;
        let nu0 = dp.nu0.unwrap_or(d as f64 + 2.0);
        if nu0 <= d as f64 - 1.0 {
            return Err(input(format!(
                "params.dpmog.nu0 = {nu0} must exceed d − 1 = {}",
                d as f64 - 1.0
            )));
        }
        let prior = NiwPrior {
            d,
            kappa0: dp.kappa0,
            nu0,
            psi0: dp.psi0,
        };
        let prior_pred = prior.predictive(&ClusterStats::empty(d), None)?;
        let mut s = DpmogSampler {
            d,
            n,
            z,
            prior,
            prior_pred,
            concentration_prior: dp.concentration_prior,
            alpha: dp.concentration_prior.shape / dp.concentration_prior.rate,
            fixed_alpha: false,
            assign: vec![0; n],
            clusters: Vec::new(),
            kl: None,
            n_test: 0,
            eval_rng: crate::seed::evaluation_rng(rng),
            thin: 1,
            iteration: 0,
            last_kl: f64::NAN,
            acc_count: 0,
            acc_k_plus: 0.0,
            acc_alpha: 0.0,
            defect: None,
        };
        s.rebuild_clusters()?;
        Ok(s)
    }

    /// Hold α fixed at `alpha` (> 0) instead of updating it: the DP mixture with a known
    /// concentration (used by the exact-enumeration test; not a `params` setting).
    ///
    /// Errors: `alpha` not finite and positive.
    pub fn with_fixed_concentration(mut self, alpha: f64) -> Result<Self, SamplerError> {
        if !(alpha.is_finite() && alpha > 0.0) {
            return Err(SamplerError::Input(format!(
                "dpmog: concentration {alpha} must be > 0"
            )));
        }
        self.alpha = alpha;
        self.fixed_alpha = true;
        Ok(self)
    }

    /// Switch a deliberately broken kernel on (negative controls only).
    #[cfg(feature = "testing")]
    pub fn with_defect(mut self, defect: impl Into<Option<Defect>>) -> Self {
        self.defect = defect.into();
        self
    }

    /// Current cluster of every training point, numbered 0, 1, … by first appearance (N values).
    pub fn assignments(&self) -> Vec<usize> {
        let labels = self.assign.iter().copied().max().map_or(0, |m| m + 1);
        let mut map = vec![usize::MAX; labels];
        let mut next = 0;
        self.assign
            .iter()
            .map(|&c| {
                if map[c] == usize::MAX {
                    map[c] = next;
                    next += 1;
                }
                map[c]
            })
            .collect()
    }

    /// Number of occupied clusters K₊.
    pub fn k_plus(&self) -> usize {
        self.clusters.len()
    }

    /// The current concentration α.
    pub fn concentration(&self) -> f64 {
        self.alpha
    }

    /// The NIW base measure in use.
    pub fn prior(&self) -> &NiwPrior {
        &self.prior
    }

    /// Recompute every cluster's statistics and predictive from the assignments (labels made
    /// dense).
    fn rebuild_clusters(&mut self) -> Result<(), SamplerError> {
        let labels = self.assignments();
        let k = labels.iter().copied().max().map_or(0, |m| m + 1);
        let d = self.d;
        let mut stats = vec![ClusterStats::empty(d); k];
        for (i, &c) in labels.iter().enumerate() {
            stats[c].update(&self.z[i * d..(i + 1) * d], 1.0);
        }
        self.assign = labels;
        self.clusters = stats
            .into_iter()
            .map(|st| {
                let pred = self.prior.predictive(&st, self.defect)?;
                Ok(Cluster { stats: st, pred })
            })
            .collect::<Result<_, SamplerError>>()?;
        Ok(())
    }

    fn prior_predictive(&self) -> Result<StudentT, SamplerError> {
        match self.defect {
            None => Ok(self.prior_pred.clone()),
            Some(_) => self
                .prior
                .predictive(&ClusterStats::empty(self.d), self.defect),
        }
    }

    /// One sweep of Neal's algorithm 3 over the points in order.
    fn sweep(&mut self, rng: &mut ChainRng) -> Result<(), SamplerError> {
        self.rebuild_clusters()?;
        let d = self.d;
        let prior_pred = self.prior_predictive()?;
        let mut work = vec![0.0; d];
        let mut logw: Vec<f64> = Vec::with_capacity(self.clusters.len() + 1);
        for i in 0..self.n {
            let x = &self.z[i * d..(i + 1) * d];
            let old = self.assign[i];
            let saved = self.clusters[old].clone();
            let mut cur = old;
            if self.clusters[old].stats.count == 1 {
                // Remove the emptied cluster; the last one takes its label.
                let last = self.clusters.len() - 1;
                self.clusters.swap_remove(old);
                if old != last {
                    for a in self.assign.iter_mut() {
                        if *a == last {
                            *a = old;
                        }
                    }
                }
                cur = usize::MAX;
            } else {
                let c = &mut self.clusters[old];
                c.stats.update(x, -1.0);
                c.pred = self.prior.predictive(&c.stats, self.defect)?;
            }
            logw.clear();
            for c in &self.clusters {
                logw.push((c.stats.count as f64).ln() + c.pred.ln_pdf(x, &mut work));
            }
            logw.push(self.alpha.ln() + prior_pred.ln_pdf(x, &mut work));
            let u: f64 = rng.random();
            let pick = sample_log_weights(&logw, u).ok_or_else(|| {
                SamplerError::Numerical(format!(
                    "DP mixture: weights of point {} are not finite",
                    i + 1
                ))
            })?;
            if pick == self.clusters.len() {
                if cur == usize::MAX {
                    // Back into a new singleton: exactly the saved cluster.
                    self.clusters.push(saved);
                } else {
                    let mut st = ClusterStats::empty(d);
                    st.update(x, 1.0);
                    let pred = self.prior.predictive(&st, self.defect)?;
                    self.clusters.push(Cluster { stats: st, pred });
                }
            } else if pick == cur {
                self.clusters[pick] = saved;
            } else {
                let c = &mut self.clusters[pick];
                c.stats.update(x, 1.0);
                c.pred = self.prior.predictive(&c.stats, self.defect)?;
            }
            self.assign[i] = pick;
        }
        Ok(())
    }

    /// Escobar & West (1995)'s auxiliary-variable update of α given K₊ and N.
    fn update_concentration(&mut self, rng: &mut ChainRng) -> Result<(), SamplerError> {
        let (a, b) = (
            self.concentration_prior.shape,
            self.concentration_prior.rate,
        );
        let k = self.clusters.len() as f64;
        let n = self.n as f64;
        let num = |e: String| SamplerError::Numerical(format!("DP concentration update: {e}"));
        let eta: f64 = Beta::new(self.alpha + 1.0, n)
            .map_err(|e| num(e.to_string()))?
            .sample(rng);
        let rate = b - eta.ln();
        let odds_shape = match self.defect {
            Some(Defect::ConcentrationOddsOffByOne) => a + k,
            _ => a + k - 1.0,
        };
        let odds = odds_shape / (n * rate);
        let u: f64 = rng.random();
        let shape = if u < odds / (1.0 + odds) {
            a + k
        } else {
            a + k - 1.0
        };
        let alpha: f64 = Gamma::new(shape, 1.0 / rate)
            .map_err(|e| num(e.to_string()))?
            .sample(rng);
        if !(alpha.is_finite() && alpha > 0.0) {
            return Err(num(format!("α = {alpha}")));
        }
        self.alpha = alpha;
        Ok(())
    }

    /// `m` fantasy points in the standardized space (m × d) from the posterior predictive of the
    /// current state, drawn from `rng`.
    fn fantasy_standardized(&self, m: usize, rng: &mut ChainRng) -> Result<Vec<f64>, SamplerError> {
        let prior_pred = self.prior_predictive()?;
        let mut logw: Vec<f64> = self
            .clusters
            .iter()
            .map(|c| (c.stats.count as f64).ln())
            .collect();
        logw.push(self.alpha.ln());
        let mut out = Vec::with_capacity(m * self.d);
        for _ in 0..m {
            let u: f64 = rng.random();
            let pick = sample_log_weights(&logw, u).ok_or_else(|| {
                SamplerError::Numerical("DP mixture: fantasy weights are not finite".into())
            })?;
            let pred = self.clusters.get(pick).map_or(&prior_pred, |c| &c.pred);
            pred.sample_into(rng, &mut out)?;
        }
        Ok(out)
    }

    /// `m` fantasy points (m × d, row-major) in **data units** from the posterior predictive of
    /// the current state, drawn from `rng` (the sampler's own fantasy stream is not touched).
    ///
    /// Errors: a numerical failure (non-finite weights, an invalid χ² degree of freedom).
    pub fn fantasy(
        &self,
        m: usize,
        rng: &mut ChainRng,
        standardizer: &Standardizer,
    ) -> Result<Vec<f64>, SamplerError> {
        let mut z = self.fantasy_standardized(m, rng)?;
        for row in z.chunks_exact_mut(self.d) {
            for ((v, mu), sd) in row.iter_mut().zip(&standardizer.mean).zip(&standardizer.sd) {
                *v = mu + sd * *v;
            }
        }
        Ok(z)
    }

    /// The training standardizer (None for a sampler built [`DpmogSampler::without_test`]).
    pub fn standardizer(&self) -> Option<&Standardizer> {
        self.kl.as_ref().map(|k| k.standardizer())
    }
}

impl Sampler for DpmogSampler {
    fn trace_names(&self) -> Vec<String> {
        vec!["kl".into(), "k_plus".into(), "concentration".into()]
    }

    fn begin(&mut self, spec: &RunSpec) {
        self.thin = spec.thin.max(1);
    }

    /// A sweep of algorithm 3, the α update (unless α is fixed), and on recorded iterations the
    /// fantasy data and their KL.
    fn step(&mut self, rng: &mut ChainRng) -> Result<(), SamplerError> {
        self.sweep(rng)?;
        if !self.fixed_alpha {
            self.update_concentration(rng)?;
        }
        self.iteration += 1;
        if self.iteration.is_multiple_of(self.thin)
            && let Some(kl) = &self.kl
        {
            let mut eval_rng = self.eval_rng.clone();
            let z = self.fantasy_standardized(self.n_test, &mut eval_rng)?;
            self.eval_rng = eval_rng;
            self.last_kl = kl
                .kl_standardized(&z)
                .map_err(|e| SamplerError::Numerical(format!("dpmog fantasy KL: {e}")))?
                .kl;
        }
        Ok(())
    }

    fn record(&self, row: &mut Vec<f64>) {
        row.push(self.last_kl);
        row.push(self.clusters.len() as f64);
        row.push(self.alpha);
    }

    fn accumulate(&mut self) {
        self.acc_count += 1;
        self.acc_k_plus += self.clusters.len() as f64;
        self.acc_alpha += self.alpha;
    }

    fn summary(&self) -> Vec<Matrix> {
        let (k, a) = if self.acc_count > 0 {
            let c = self.acc_count as f64;
            (self.acc_k_plus / c, self.acc_alpha / c)
        } else {
            (self.clusters.len() as f64, self.alpha)
        };
        let labels: Vec<f64> = self.assignments().iter().map(|&c| c as f64).collect();
        vec![
            Matrix::scalar("k_plus_mean", k),
            Matrix::scalar("concentration_mean", a),
            Matrix::new("assignments", self.n, 1, labels),
        ]
    }

    crate::serde_checkpoint!();
}

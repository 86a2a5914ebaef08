//! The KDE baseline of Table 1 (paper `004_74db43a26dbf0fa1.txt` §5.1) as a
//! [`Sampler`]: the kernel density of [`crate::dallaire2014::evaluation::kde::Kde`] is fitted
//! once, at construction; each iteration draws one fantasy sample of n_test points from it and
//! records its KL(test ‖ fantasy).
//!
//! RNG: the fantasy draws come from the chain's own stream. The KDE has no chain state, so the
//! draws *are* the chain; nothing else reads that stream. The column permutations of the
//! reference row `kl_independent` come from [`crate::seed::evaluation_rng`], made once at
//! construction, so they do not shift the fantasy draws.

use crate::chain::{Sampler, SamplerError};
use crate::dallaire2014::evaluation::kde::Kde;
use crate::dallaire2014::evaluation::{
    FantasyKl, KL_INDEPENDENT_PERMUTATIONS, KlReference, kl_reference,
};
use crate::dallaire2014::params::Params;
use crate::data::Matrix;
use crate::seed::ChainRng;

/// One KDE "chain": trace `kl` (one fantasy draw per iteration, nats), summary `bandwidth` (h,
/// standardized units), `loo_mean_log_lik` (standardized space), `test_mean_log_lik` (data
/// units), `kl_train_test`, `kl_independent` and `zero_distance_ties` (the reference rows; the
/// ties are those of D̂(test ‖ train)), each 1 × 1.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct KdeSampler {
    kde: Kde,
    kl: FantasyKl,
    n_test: usize,
    test_mean_log_lik: f64,
    reference: KlReference,
    /// KL of the last fantasy draw (NaN before the first step).
    last_kl: f64,
}

impl KdeSampler {
    /// Fit the KDE on `x` (n_train × d, data units) with `params.bandwidth`, prepare the KL
    /// against `test` (n_test × d, data units) with k = `params.kl_k`, and compute the test mean
    /// log density and the reference rows ([`KL_INDEPENDENT_PERMUTATIONS`] permutations).
    ///
    /// Errors ([`SamplerError::Input`]): d of `x` and `test` differ, a malformed matrix, a
    /// constant training column, n_train < 2 or above the KDE's cap, n_test ≤ k.
    pub fn new(
        params: &Params,
        x: &Matrix,
        test: &Matrix,
        rng: &mut ChainRng,
    ) -> Result<Self, SamplerError> {
        let input = |e: String| SamplerError::Input(format!("kde: {e}"));
        x.check().map_err(input)?;
        test.check().map_err(input)?;
        if x.cols != test.cols || x.cols == 0 {
            return Err(input(format!(
                "training data have {} columns and the test set {}",
                x.cols, test.cols
            )));
        }
        let kde = Kde::fit(&x.values, x.rows, x.cols, params.bandwidth, params.kde_ties)
            .map_err(input)?;
        let kl = FantasyKl::with_standardizer(
            kde.standardizer().clone(),
            &test.values,
            test.rows,
            params.kl_k,
            params.kl_direction,
        )
        .map_err(input)?;
        let test_mean_log_lik = kde.mean_log_density(&test.values).map_err(input)?;
        let mut eval_rng = crate::seed::evaluation_rng(rng);
        let reference = kl_reference(
            x,
            test,
            params.kl_k,
            params.kl_direction,
            KL_INDEPENDENT_PERMUTATIONS,
            &mut eval_rng,
        )
        .map_err(input)?;
        Ok(KdeSampler {
            kde,
            kl,
            n_test: test.rows,
            test_mean_log_lik,
            reference,
            last_kl: f64::NAN,
        })
    }

    /// The fitted KDE.
    pub fn kde(&self) -> &Kde {
        &self.kde
    }

    /// The reference rows (D̂(test ‖ train), `kl_independent`, ties).
    pub fn reference(&self) -> &KlReference {
        &self.reference
    }

    /// The test mean log density in data units (nats).
    pub fn test_mean_log_lik(&self) -> f64 {
        self.test_mean_log_lik
    }
}

impl Sampler for KdeSampler {
    fn trace_names(&self) -> Vec<String> {
        vec!["kl".into()]
    }

    /// One fantasy draw of n_test points (standardized space; mapping to data units and back
    /// would only add rounding) and its KL (`params.kl_direction`).
    fn step(&mut self, rng: &mut ChainRng) -> Result<(), SamplerError> {
        let z = self.kde.sample_standardized(self.n_test, rng);
        let est = self
            .kl
            .kl_standardized(&z)
            .map_err(|e| SamplerError::Numerical(format!("kde fantasy KL: {e}")))?;
        self.last_kl = est.kl;
        Ok(())
    }

    fn record(&self, row: &mut Vec<f64>) {
        row.push(self.last_kl);
    }

    fn summary(&self) -> Vec<Matrix> {
        vec![
            Matrix::scalar("bandwidth", self.kde.bandwidth()),
            Matrix::scalar("loo_mean_log_lik", self.kde.loo_mean_log_lik()),
            Matrix::scalar("test_mean_log_lik", self.test_mean_log_lik),
            Matrix::scalar("kl_train_test", self.reference.kl_train_test),
            Matrix::scalar("kl_independent", self.reference.kl_independent),
            Matrix::scalar(
                "zero_distance_ties",
                self.reference.zero_distance_ties as f64,
            ),
        ]
    }

    crate::serde_checkpoint!();
}

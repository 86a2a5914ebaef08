//! Geweke (2004) "getting it right" tests, in the spirit of the `lace` crate's `GewekeModel`.
//!
//! Two simulators of the joint distribution p(θ, x) of parameters/latents θ and data x:
//! - **marginal-conditional**: i.i.d. draws θ ~ p(θ), x ~ p(x | θ);
//! - **successive-conditional**: start from one marginal-conditional draw, then repeat
//!   "one posterior transition θ' ~ K(θ → · | x), then a fresh x ~ p(x | θ')".
//!
//! If the transition leaves p(θ | x) invariant, both simulate the same joint distribution, so the
//! means of every statistic g(θ, x) agree. [`geweke_test`] compares them with a z-score whose
//! standard error uses i.i.d. moments for the first simulator and batch means for the second
//! (autocorrelated) one.

use statrs::distribution::{ContinuousCDF, Normal};

use crate::chain::SamplerError;
use crate::seed::{ChainRng, chain_rng};

/// A model with a posterior transition, for the Geweke test.
///
/// Random draws must come only from the `rng` passed in, so that a test is reproducible from its
/// seed.
pub trait GewekeModel {
    /// Parameters and latent variables θ (everything the sampler updates).
    type State;
    /// The simulated data x.
    type Data;
    /// The sampler's running state (the chain of the successive-conditional simulator).
    type Chain;

    /// Names of the statistics returned by [`GewekeModel::statistics`], in order.
    fn statistic_names(&self) -> Vec<String>;
    /// Draw θ from its prior.
    fn sample_prior(&self, rng: &mut ChainRng) -> Self::State;
    /// Draw x ~ p(x | θ).
    fn simulate(&self, state: &Self::State, rng: &mut ChainRng) -> Self::Data;
    /// Build the sampler on `data` starting at `state` (may draw from `rng`).
    fn start(
        &self,
        state: &Self::State,
        data: &Self::Data,
        rng: &mut ChainRng,
    ) -> Result<Self::Chain, SamplerError>;
    /// One posterior transition of the chain given its current data; returns the new θ.
    fn step(
        &self,
        chain: &mut Self::Chain,
        rng: &mut ChainRng,
    ) -> Result<Self::State, SamplerError>;
    /// Replace the chain's data by `data` (the successive-conditional "fresh x" step).
    fn set_data(&self, chain: &mut Self::Chain, data: &Self::Data) -> Result<(), SamplerError>;
    /// The statistics g(θ, x), one per name of [`GewekeModel::statistic_names`].
    fn statistics(&self, state: &Self::State, data: &Self::Data) -> Vec<f64>;
}

/// One statistic's comparison.
#[derive(Debug, Clone, PartialEq)]
pub struct GewekeStat {
    /// The statistic's name.
    pub name: String,
    /// Marginal-conditional (prior) mean.
    pub prior_mean: f64,
    /// Its standard error (i.i.d. draws).
    pub prior_se: f64,
    /// Successive-conditional (sampler) mean.
    pub sampler_mean: f64,
    /// Its standard error (batch means).
    pub sampler_se: f64,
    /// `(prior_mean − sampler_mean) / sqrt(prior_se² + sampler_se²)`: ≈ N(0, 1) if the sampler
    /// is correct and both simulators are long enough.
    pub z: f64,
    /// Two-sided p-value of `z` under N(0, 1).
    pub p_value: f64,
}

/// The per-statistic results of [`geweke_test`], in the order of the model's statistic names.
#[derive(Debug, Clone, PartialEq)]
pub struct GewekeReport {
    /// One entry per statistic.
    pub stats: Vec<GewekeStat>,
}

impl GewekeReport {
    /// The largest |z| over the statistics whose name passes `keep` (0 if none). Tests compare it
    /// with a family-wise threshold (e.g. 4.5 for about ten statistics: a false-alarm rate of
    /// about 1e-4), and negative controls require it to exceed a large value.
    pub fn worst_abs_z(&self, keep: impl Fn(&str) -> bool) -> f64 {
        self.stats
            .iter()
            .filter(|s| keep(&s.name))
            .map(|s| s.z.abs())
            .fold(0.0, f64::max)
    }
}

/// Run both simulators and compare every statistic.
///
/// The marginal-conditional simulator takes `iters` i.i.d. draws from stream
/// `chain_rng(seed, 1, 0, 0)`; the successive-conditional one runs `iters / batches` × `batches`
/// transitions from stream `chain_rng(seed, 2, 0, 0)`, with the standard error from the
/// `batches` batch means (`batches` ≥ 2). Errors: the first [`SamplerError`] of the chain.
pub fn geweke_test<M: GewekeModel>(
    model: &M,
    iters: usize,
    batches: usize,
    seed: u64,
) -> Result<GewekeReport, SamplerError> {
    let names = model.statistic_names();
    let ns = names.len();
    // marginal-conditional
    let mut rng = chain_rng(seed, 1, 0, 0);
    let mut sum = vec![0.0; ns];
    let mut sum2 = vec![0.0; ns];
    for _ in 0..iters {
        let th = model.sample_prior(&mut rng);
        let x = model.simulate(&th, &mut rng);
        let s = model.statistics(&th, &x);
        for j in 0..ns {
            sum[j] += s[j];
            sum2[j] += s[j] * s[j];
        }
    }
    let mf = iters as f64;
    let mc_mean: Vec<f64> = sum.iter().map(|s| s / mf).collect();
    let mc_se: Vec<f64> = (0..ns)
        .map(|j| ((sum2[j] / mf - mc_mean[j] * mc_mean[j]).max(0.0) / mf).sqrt())
        .collect();
    // successive-conditional
    let mut rng = chain_rng(seed, 2, 0, 0);
    let th = model.sample_prior(&mut rng);
    let x = model.simulate(&th, &mut rng);
    let mut chain = model.start(&th, &x, &mut rng)?;
    let per = iters / batches;
    let mut batch_means = vec![vec![0.0; ns]; batches];
    for bm in batch_means.iter_mut() {
        for _ in 0..per {
            let th = model.step(&mut chain, &mut rng)?;
            let x = model.simulate(&th, &mut rng);
            model.set_data(&mut chain, &x)?;
            let st = model.statistics(&th, &x);
            for j in 0..ns {
                bm[j] += st[j] / per as f64;
            }
        }
    }
    let bf = batches as f64;
    // N(0, 1) has valid parameters: the constructor cannot fail.
    let normal = Normal::new(0.0, 1.0).expect("standard normal");
    let stats = names
        .into_iter()
        .enumerate()
        .map(|(j, name)| {
            let mean = batch_means.iter().map(|b| b[j]).sum::<f64>() / bf;
            let var = batch_means
                .iter()
                .map(|b| (b[j] - mean).powi(2))
                .sum::<f64>()
                / (bf - 1.0);
            let se = (var / bf).sqrt();
            let z = (mc_mean[j] - mean) / (mc_se[j].powi(2) + se.powi(2)).sqrt();
            GewekeStat {
                name,
                prior_mean: mc_mean[j],
                prior_se: mc_se[j],
                sampler_mean: mean,
                sampler_se: se,
                z,
                p_value: 2.0 * normal.sf(z.abs()),
            }
        })
        .collect();
    Ok(GewekeReport { stats })
}

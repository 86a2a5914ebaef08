//! # Wood, Griffiths & Ghahramani (2006): hidden causes with the Indian buffet process
//!
//! Paper `000` (`000_64a353240e4f1919.txt`), "A non-parametric Bayesian method
//! for inferring hidden causes". Observed binary variables X (N × T) are noisy-OR (Eq. 3, link
//! strength λ, leak ε) of binary hidden causes Y (K × T, Bernoulli(p), Eq. 4) through a bipartite
//! structure Z (N × K). Z has either a finite-K Beta–Bernoulli prior (Eq. 5) with a prior P(K) —
//! sampled by reversible-jump MCMC (Algorithm 1, §4.1) — or the Indian buffet process prior
//! (§3.2) — sampled by the Gibbs sampler of Algorithm 2 (§4.2).
//!
//! Layout: [`equations`] (every equation, log space), [`generate`] (the generative model),
//! [`datasets`] (dataset specs), [`config`] (the cell's `params`), `core` (state, caches, kernels),
//! [`sampler`] ([`HiddenCauseSampler`], the [`Sampler`]).
//!
//! ## Params (`params`, unknown keys refused)
//! `sampler` (`gibbs` | `rjmcmc`, required), `alpha` (3), `lambda` (0.9), `epsilon` (0.01), `p`
//! (0.1), `update_hyperparameters` (false), `lambda_prior`, `epsilon_prior`, `p_prior` (Beta
//! `[a, b]`, `[1, 1]`), `alpha_prior` (Gamma `[shape, rate]`, `[1, 1]`), `lambda_step` (0.05),
//! `epsilon_step` (0.01), `alpha_step` (0.5, RJMCMC), `k_new_max` (10), `init` (`empty` |
//! `random`), `init_k` (10), `k_prior` (`{kind: ibp}` | `{kind: poisson, mean}` |
//! `{kind: geometric, q}` | `{kind: uniform}`), `k_max` (100), `rjmcmc_acceptance` (`corrected` |
//! `paper`), `rjmcmc_y_schedule` (`per_row` | `per_sweep`), `map_y_sweeps` (300). See [`params::Params`].
//!
//! ## Choices the paper leaves open, and deviations
//! - **P(K) of the finite model** (§4.1 only says "P(K)"): default `Poisson(α H_N)` truncated to
//!   `1..=k_max`, the IBP's own prior on the number of active causes, so that the two samplers
//!   compare like with like a priori; Poisson with a fixed mean, geometric and uniform are
//!   available. `K ≥ 1` since Algorithm 1 must pick a column and §5 starts RJMCMC at K = 1.
//! - **Eqs. 8–9**: the printed acceptance mixes ordered-state target probabilities (Eq. 5) with
//!   the unordered count `δ`; it is off by `(K+1)/δ` and does not leave the posterior invariant
//!   (shown by exact enumeration). The default `rjmcmc_acceptance: corrected` inserts the new
//!   column at a uniformly random position and accepts with `min(1, K P(Z*|K+1) P(K+1) / (K_+
//!   P(Z|K) P(K)))`; `paper` reproduces the printed formula.
//! - **Eq. 10** is printed with denominator N; the Beta(α/K, 1) predictive has `N + α/K`.
//! - **Algorithm 1** is implemented as printed: the full Y sweep (lines 14–16) runs inside the loop
//!   over rows, i.e. N times per iteration; "m_{i,k} > 0" on line 4 is read as `m_k > 0` (§4.1 text).
//!   `rjmcmc_y_schedule: per_sweep` runs it once per iteration instead (both are invariant, shown by
//!   exact enumeration; per_sweep costs about 1/N of the Y draws).
//! - **Algorithm 2 lines 13–15**: the new rows of Y are drawn from their exact joint conditional
//!   given `K_i^new`, and the new columns are inserted at uniformly random positions of the column
//!   list; together this makes lines 7–16 an exact block-Gibbs update on ordered column lists.
//!   (Appending them instead biases K_+ upwards by about 1–2% on small problems — the systematic
//!   scan of the following rows is sensitive to the age order of the columns; the Geweke test
//!   detects it, see `tests/wood2006_geweke.rs`.)
//! - **Hyperparameters (§6)**: λ and ε by Metropolis with reflected Gaussian random walks on (0, 1)
//!   (symmetric, so the Hastings ratio is 1); p by Gibbs (Beta); α by Gibbs (Gamma) for the
//!   infinite model, and by a random walk on ln α for the finite model, where it is not conjugate.
//!
//! ## Datasets
//! See [`datasets`]: `ibp_synthetic`, `fixed_structure`, `binary_csv`, and `prior_predictive`
//! (SBC: drawn from the prior, [`prior`]); observed matrix `x`.

pub mod datasets;
pub mod equations;
pub mod evaluation;
pub mod params;
pub mod prior;
pub mod samplers;

use serde_json::Value;

pub use datasets::{BinaryMatrix, DatasetSpec};
pub use equations::{KPrior, RjAcceptance, YSchedule};
pub use params::{Init, Params, SamplerKind};
pub use samplers::{HiddenCauseSampler, Hyper};

use crate::chain::{Sampler, SamplerError};
use crate::data::{DataContext, Dataset};
use crate::model::Model;
use crate::params::ParamError;
use crate::sbc::PriorDraw;
use crate::seed::ChainRng;

/// The cell's [`HiddenCauseSampler`] on the observed matrix `x` (N × T, values 0/1).
fn hidden_cause_sampler(
    params: &Value,
    data: &Dataset,
    rng: &mut ChainRng,
) -> Result<HiddenCauseSampler, SamplerError> {
    let p = Params::from_json(params).map_err(|e| SamplerError::Input(e.to_string()))?;
    let xm = data
        .observed("x")
        .ok_or_else(|| SamplerError::Input("dataset has no observed matrix `x`".into()))?;
    let x = BinaryMatrix::from_matrix(xm).map_err(SamplerError::Input)?;
    HiddenCauseSampler::new(&p, &x, xm.row_names.clone(), rng)
}

/// Registry entry for this paper (`model: wood2006`).
pub struct Wood2006;

impl Model for Wood2006 {
    fn name(&self) -> &'static str {
        "wood2006"
    }

    /// Parse and range-check `params` ([`Params::from_json`]) and `dataset`
    /// ([`DatasetSpec::from_json`]); no file is read.
    fn validate(&self, params: &Value, dataset: &Value) -> Result<(), ParamError> {
        Params::from_json(params)?;
        DatasetSpec::from_json(dataset)?;
        Ok(())
    }

    fn monitors(&self) -> &'static [&'static str] {
        &[
            "k_plus",
            "k",
            "log_joint",
            "alpha",
            "lambda",
            "epsilon",
            "p",
        ]
    }

    /// Build a replicate (see [`datasets`]).
    fn dataset(
        &self,
        dataset: &Value,
        ctx: &DataContext,
        rng: &mut ChainRng,
    ) -> Result<Dataset, ParamError> {
        DatasetSpec::from_json(dataset)?.build(ctx, rng)
    }

    /// A [`HiddenCauseSampler`] on the observed matrix `x` (N × T, values 0/1).
    fn sampler(
        &self,
        params: &Value,
        data: &Dataset,
        rng: &mut ChainRng,
    ) -> Result<Box<dyn Sampler>, SamplerError> {
        Ok(Box::new(hidden_cause_sampler(params, data, rng)?))
    }

    /// [`HiddenCauseSampler::with_defect`] on the cell's sampler.
    #[cfg(feature = "testing")]
    fn sampler_with_defect(
        &self,
        params: &Value,
        data: &Dataset,
        rng: &mut ChainRng,
        defect: &str,
    ) -> Result<Box<dyn Sampler>, SamplerError> {
        let d: samplers::Defect = crate::testing::defect::parse(self.name(), defect)?;
        Ok(Box::new(
            hidden_cause_sampler(params, data, rng)?.with_defect(d),
        ))
    }

    /// θ̃ = (α, λ, ε, p, Z, Y) from the cell's priors ([`prior::sample_prior`]); ranked:
    /// `k_plus` (`k`), and `alpha`, `lambda`, `epsilon`, `p` when updated.
    fn sample_prior(
        &self,
        params: &Value,
        dataset: &Value,
        rng: &mut ChainRng,
    ) -> Result<PriorDraw, ParamError> {
        prior::sample_prior(params, dataset, rng)
    }

    /// X from the noisy-OR of Eq. 3 ([`prior::simulate`]).
    fn simulate(
        &self,
        params: &Value,
        dataset: &Value,
        draw: &PriorDraw,
        rng: &mut ChainRng,
    ) -> Result<Dataset, ParamError> {
        let _ = params;
        prior::simulate(dataset, draw, rng)
    }
}

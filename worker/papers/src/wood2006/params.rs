//! The cell's `params` for this model: which sampler, hyperparameters, priors and proposals.
//! Parsed with [`crate::params::parse`] (unknown keys refused, listing the allowed ones) and
//! range-checked by [`Params::check`] with dotted paths such as `params.lambda`.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::equations::{KPrior, RjAcceptance, YSchedule};
use crate::params::{ParamError, check_open_unit, check_positive, check_range_usize, parse};

/// Which algorithm of the paper runs the chain.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SamplerKind {
    /// Infinite model (IBP prior), Gibbs sampler of Algorithm 2 (§4.2).
    Gibbs,
    /// Finite model with unknown K, reversible-jump MCMC of Algorithm 1 (§4.1).
    Rjmcmc,
}

/// Initial state (§5: "initialized with either an empty Z matrix (K = 1 for RJMCMC) or random Z
/// and Y matrices with K = K_+ = 10").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum Init {
    /// Gibbs: K_+ = 0. RJMCMC: K = 1 with an all-zero column of Z and its row of Y drawn from
    /// Eq. 4.
    #[default]
    Empty,
    /// K = K_+ = `init_k` columns; each `z_{i,k} ~ Bernoulli(1/2)` with one uniformly chosen row
    /// forced to 1 if a column came out empty; `y_{k,t} ~ Bernoulli(p)` (Eq. 4).
    Random,
}

/// Parameters of one grid cell (`params` in the YAML). Defaults are the paper's §5 settings where
/// the paper gives one.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Params {
    /// `gibbs` (Algorithm 2) or `rjmcmc` (Algorithm 1). Required.
    pub sampler: SamplerKind,
    /// IBP concentration α > 0 (initial value if updated). Default 3 (§5).
    #[serde(default = "d_alpha")]
    pub alpha: f64,
    /// Noisy-OR link strength λ ∈ (0, 1) (Eq. 3). Default 0.9 (§5).
    #[serde(default = "d_lambda")]
    pub lambda: f64,
    /// Noisy-OR leak ε ∈ (0, 1) (Eq. 3). Default 0.01 (§5).
    #[serde(default = "d_epsilon")]
    pub epsilon: f64,
    /// Prior activation probability p ∈ (0, 1) of a hidden cause (Eq. 4). Default 0.1 (§5).
    #[serde(default = "d_p")]
    pub p: f64,
    /// Sample λ, ε, p and α too (§6). Default false (fixed, as in §5).
    #[serde(default)]
    pub update_hyperparameters: bool,
    /// Beta(a, b) prior on λ, as `[a, b]`, both > 0. Default `[1, 1]` (§6).
    #[serde(default = "d_beta")]
    pub lambda_prior: [f64; 2],
    /// Beta(a, b) prior on ε. Default `[1, 1]` (§6).
    #[serde(default = "d_beta")]
    pub epsilon_prior: [f64; 2],
    /// Beta(a, b) prior on p. Default `[1, 1]` (§6).
    #[serde(default = "d_beta")]
    pub p_prior: [f64; 2],
    /// Gamma(shape, rate) prior on α, as `[shape, rate]`. Default `[1, 1]` (§6).
    #[serde(default = "d_beta")]
    pub alpha_prior: [f64; 2],
    /// Standard deviation of the reflected Gaussian random walk proposing λ (one Metropolis step per
    /// iteration). Default 0.05.
    #[serde(default = "d_lambda_step")]
    pub lambda_step: f64,
    /// Standard deviation of the reflected Gaussian random walk proposing ε. Default 0.01.
    #[serde(default = "d_epsilon_step")]
    pub epsilon_step: f64,
    /// RJMCMC only: standard deviation of the random walk on ln α (the finite model's α conditional
    /// is not conjugate, so α gets a Metropolis step there). Default 0.5.
    #[serde(default = "d_alpha_step")]
    pub alpha_step: f64,
    /// Gibbs only: truncation of `K_i^new` (Eq. 13; the paper uses 10). 1..=1000.
    #[serde(default = "d_k_new_max")]
    pub k_new_max: usize,
    /// Initial state. Default `empty`.
    #[serde(default)]
    pub init: Init,
    /// Number of causes of the `random` initial state. 1..=10000, default 10 (§5).
    #[serde(default = "d_init_k")]
    pub init_k: usize,
    /// RJMCMC only: the prior P(K) (not specified by the paper). Default `{kind: ibp}`.
    #[serde(default)]
    pub k_prior: KPrior,
    /// RJMCMC only: P(K) is truncated to `1..=k_max`. 1..=10000, default 100.
    #[serde(default = "d_k_max")]
    pub k_max: usize,
    /// RJMCMC only: `corrected` (default) or `paper` (Eqs. 8–9 as printed; not invariant).
    #[serde(default)]
    pub rjmcmc_acceptance: RjAcceptance,
    /// RJMCMC only: `per_row` (default, Algorithm 1 as printed: the Y sweep inside the loop over
    /// rows) or `per_sweep` (one Y sweep per iteration; about N times fewer Y draws).
    #[serde(default)]
    pub rjmcmc_y_schedule: YSchedule,
    /// Y-only Gibbs sweeps for `map_y_mean` when the MAP state has more than 12 causes (below
    /// that it is computed exactly). 1..=100000, default 300.
    #[serde(default = "d_map_y_sweeps")]
    pub map_y_sweeps: usize,
    /// Gibbs only: split–merge proposals per iteration, after the Y sweep (ours, not the paper's:
    /// see `samplers/split_merge.rs`). 0..=10000; default 0, the paper's plain Algorithm 2.
    #[serde(default)]
    pub split_merge: usize,
    /// Gibbs only: the split proposal's probability that a row of the split column goes to both
    /// new columns (otherwise to one of them, each with half the rest). In (0, 1); default 0.5.
    #[serde(default = "d_split_merge_share")]
    pub split_merge_share: f64,
}

/// The §5 values of the model's parameters (α = 3, λ = 0.9, ε = 0.01, p = 0.1): the defaults of
/// both the sampler's `params` and the synthetic `dataset` specs (`datasets.rs`).
pub(crate) fn d_alpha() -> f64 {
    3.0
}
pub(crate) fn d_lambda() -> f64 {
    0.9
}
pub(crate) fn d_epsilon() -> f64 {
    0.01
}
pub(crate) fn d_p() -> f64 {
    0.1
}
fn d_beta() -> [f64; 2] {
    [1.0, 1.0]
}
fn d_lambda_step() -> f64 {
    0.05
}
fn d_epsilon_step() -> f64 {
    0.01
}
fn d_alpha_step() -> f64 {
    0.5
}
fn d_k_new_max() -> usize {
    10
}
fn d_init_k() -> usize {
    10
}
fn d_k_max() -> usize {
    100
}
fn d_map_y_sweeps() -> usize {
    300
}
fn d_split_merge_share() -> f64 {
    0.5
}

/// Largest `k_max` / `init_k` accepted (keeps the O(k_max) prior normaliser and memory bounded).
pub const MAX_K: usize = 10_000;

impl Params {
    /// Parse the cell's `params` object. Errors: unknown keys (listing the allowed ones), wrong
    /// types, missing `sampler`, each with its path (`params.<key>`); then [`Params::check`].
    pub fn from_json(value: &Value) -> Result<Params, ParamError> {
        let p: Params = parse("params", value)?;
        p.check()?;
        Ok(p)
    }

    /// A parameter set with the defaults above for `sampler`.
    pub fn defaults(sampler: SamplerKind) -> Params {
        Params {
            sampler,
            alpha: d_alpha(),
            lambda: d_lambda(),
            epsilon: d_epsilon(),
            p: d_p(),
            update_hyperparameters: false,
            lambda_prior: d_beta(),
            epsilon_prior: d_beta(),
            p_prior: d_beta(),
            alpha_prior: d_beta(),
            lambda_step: d_lambda_step(),
            epsilon_step: d_epsilon_step(),
            alpha_step: d_alpha_step(),
            k_new_max: d_k_new_max(),
            init: Init::Empty,
            init_k: d_init_k(),
            k_prior: KPrior::Ibp,
            k_max: d_k_max(),
            rjmcmc_acceptance: RjAcceptance::Corrected,
            rjmcmc_y_schedule: YSchedule::PerRow,
            map_y_sweeps: d_map_y_sweeps(),
            split_merge: 0,
            split_merge_share: d_split_merge_share(),
        }
    }

    /// Range checks. Errors name the offending key, e.g. `params.lambda`, with the allowed range.
    pub fn check(&self) -> Result<(), ParamError> {
        check_positive("params.alpha", self.alpha)?;
        check_open_unit("params.lambda", self.lambda)?;
        check_open_unit("params.epsilon", self.epsilon)?;
        check_open_unit("params.p", self.p)?;
        for (name, pr) in [
            ("lambda_prior", self.lambda_prior),
            ("epsilon_prior", self.epsilon_prior),
            ("p_prior", self.p_prior),
            ("alpha_prior", self.alpha_prior),
        ] {
            check_positive(&format!("params.{name}[0]"), pr[0])?;
            check_positive(&format!("params.{name}[1]"), pr[1])?;
        }
        check_positive("params.lambda_step", self.lambda_step)?;
        check_positive("params.epsilon_step", self.epsilon_step)?;
        check_positive("params.alpha_step", self.alpha_step)?;
        check_range_usize("params.k_new_max", self.k_new_max, 1, 1000)?;
        check_range_usize("params.init_k", self.init_k, 1, MAX_K)?;
        check_range_usize("params.k_max", self.k_max, 1, MAX_K)?;
        check_range_usize("params.map_y_sweeps", self.map_y_sweeps, 1, 100_000)?;
        check_range_usize("params.split_merge", self.split_merge, 0, 10_000)?;
        check_open_unit("params.split_merge_share", self.split_merge_share)?;
        if self.sampler == SamplerKind::Rjmcmc && self.split_merge > 0 {
            return Err(ParamError::new(
                "params.split_merge",
                "applies to `sampler: gibbs` only (Algorithm 2); use 0 with rjmcmc".to_string(),
            ));
        }
        match self.k_prior {
            KPrior::Poisson { mean } => check_positive("params.k_prior.mean", mean)?,
            KPrior::Geometric { q } => check_open_unit("params.k_prior.q", q)?,
            KPrior::Ibp | KPrior::Uniform => {}
        }
        if self.sampler == SamplerKind::Rjmcmc
            && self.init == Init::Random
            && self.init_k > self.k_max
        {
            return Err(ParamError::new(
                "params.init_k",
                format!(
                    "{} exceeds params.k_max = {}: the RJMCMC prior P(K) is zero there",
                    self.init_k, self.k_max
                ),
            ));
        }
        Ok(())
    }
}

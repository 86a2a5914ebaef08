//! # kurutmaz2019 — Bayesian model selection for latent-variable causal networks by SMC
//!
//! Source: `003_bf1ce321478f8175.txt`, Kurutmaz (2019), MSc thesis, *Bayesian model selection for
//! latent variable causal networks by sequential Monte Carlo*: ch. 3 (model), ch. 4 (inference),
//! ch. 5 (experiments), App. A–C (derivations). Details the thesis leaves out are settled by the
//! author's code as recorded in `shared/README.md` (sections data/cep and fixtures/cep).
//!
//! ## Model (registry name `kurutmaz2019`)
//! Two observed variables (row 0 of `x` is A, row 1 is B) and one categorical latent r₁ with R
//! classes, π ~ Dirichlet(γ, …, γ). Three networks (Fig. 3.1, [`Hypothesis`]):
//! - `a_to_b` / `b_to_a`: the cause ~ N(w, 1/ρ) given r₁ with NG(m, λ, a1, b1); the effect is a
//!   Normal-Gamma regression on φ(cause) = [1, cause] given r₁, NG(m·1, λ·I₂, a2, b2);
//! - `spurious`: A ← r₁ → B, each intercept-only N(w, 1/ρ) given r₁, both NG(m, λ, a1, b1).
//!
//! b is a Gamma *rate*, Λ a precision *scaling* (w | ρ ~ N(m, (ρΛ)⁻¹)), predictive densities are
//! Student-t; checked against the author's exact R = 1 values (`tests/fixtures/cep`).
//! Every formula is in [`equations`], with its equation number.
//!
//! ## Algorithms (`params.method`), all behind the one [`crate::Sampler`] trait
//! | method | what one `step` does | trace | summary |
//! |---|---|---|---|
//! | `exact` | ln p(x) by enumerating R^T (refused above `max_enumeration`) | `log_marginal_likelihood` | `log_marginal_likelihood` 1×1 |
//! | `smc` | one full SIS-CN run (Fig. 4.1) | `log_marginal_likelihood`, `ess_min`, `n_resamples` | `log_marginal_likelihood` 1×1 |
//! | `pg` | one PG-CN sweep (Fig. 4.4) | `log_joint` | `r_marginals` T×R, `r_map` T×1, `log_joint_map` 1×1 |
//! | `vb` | VB-CN to convergence (Fig. 4.5), best of `n_restarts` | `log_marginal_likelihood` (= ELBO), `elbo`, `n_iterations` | `log_marginal_likelihood` 1×1 (ELBO), `elbo_history`, `r_marginals`, `r_map` |
//! | `dem` | one DEM-CN iteration (Fig. 4.6) | `log_joint`, `n_changed` | `r_marginals` T×R, `r_map` T×1, `log_joint` 1×1 |
//!
//! `r_marginals` and `r_map` rows are in the **original** observation order; labels are 0..R−1.
//! For `exact`, `smc` and `vb` the runner uses `iterations: 1`.
//!
//! ## Params (`#[serde(deny_unknown_fields)]`; errors carry `params.<key>`)
//! | key | default | meaning |
//! |---|---|---|
//! | `method` | required | `exact`, `smc`, `pg`, `vb`, `dem` |
//! | `hypothesis` | required | `a_to_b`, `b_to_a`, `spurious` |
//! | `n_latent` | required | R, 1..=5 |
//! | `setting` | — | Table 5.1 number 1..=36, **or** all four of `a1, b1, a2, b2` (> 0) |
//! | `gamma` | 10 | Dirichlet concentration (> 0) |
//! | `m` | 0 | prior mean of every weight (finite) |
//! | `lambda` | 0.1 | prior precision scaling (> 0) |
//! | `n_particles` | 1000 | J (smc ≥ 1, pg ≥ 2, dem `init: smc`; ≤ 10⁶; pg also T·J ≤ 5·10⁸) |
//! | `resample_threshold` | 0.5 | resample when ESS < threshold·J; 1 = always, 0 = never |
//! | `resampling` | `systematic` | `systematic`, `stratified`, `multinomial` (smc only; pg is multinomial) |
//! | `shuffle` | true | process observations in a random order from the chain RNG (smc, pg) |
//! | `max_iterations` | 1000 | VB iterations per run |
//! | `tolerance` | 1e-9 | VB convergence: relative ELBO change |
//! | `n_restarts` | 1 | VB random initialisations per step |
//! | `init` | `random` | DEM initial assignment: `random` or `smc` |
//! | `max_enumeration` | 10⁷ | largest R^T `exact` enumerates (≤ 10¹⁰) |
//!
//! Keys a method does not use are accepted and ignored, so one grid can sweep methods.
//!
//! ## Datasets (`dataset.kind`; see [`datasets`])
//! `synthetic` (drawn from the model), `cep` (a Tuebingen pair, standardised), `abalone` (two UCI
//! Abalone columns, standardised). The observed matrix is `x`, 2 × T.
//!
//! ## Where the thesis is ambiguous, and what we chose
//! - **Hyperparameters per hypothesis** (§5.1): cause (a1, b1), effect (a2, b2); spurious: both
//!   (a1, b1), second variable intercept-only (as the author's code; exact R = 1 match).
//! - **ln Ẑ with adaptive resampling**: Fig. 4.1 updates Z only at resampling steps; we use the
//!   standard estimator Π_t Σ_j W̄^{t−1,j} ν^{t,j}, which also counts the weights accumulated after
//!   the last resampling (the literal reading is biased; it is a negative control in the tests).
//! - **Resampling** (§4.1 "standard"): systematic by default (the author's), configurable;
//!   PG's conditional step is multinomial (the scheme PG is proven for).
//! - **Observation order**: random per SIS-CN run (`shuffle`, the author's practice); PG keeps one
//!   random order for its whole chain.
//! - **PG initialisation** (Fig. 4.4 "Initialize r"): the first sweep is unconditional SMC.
//! - **VB** (Fig. 4.5): random Dirichlet(1) responsibilities; relative-change stopping rule;
//!   optional restarts keeping the best ELBO (§5.2 reports the maximum ELBO).
//! - **DEM** ("dual" EM, §4.2.2): EM with the roles of parameters and latent classes swapped —
//!   parameters integrated by their exact posterior given r*, classes maximised; see [`dem`].
//! - **Label switching**: the prior is symmetric in r's labels; PG and DEM labels are arbitrary.

pub mod datasets;
pub mod dem;
pub mod equations;
pub mod exact;
pub mod model;
mod particles;
pub mod pg;
pub mod smc;
pub mod vb;

use serde::Deserialize;
use serde_json::Value;

pub use dem::{DemInit, DemSampler};
pub use exact::ExactSampler;
pub use model::{Hyper, Hypothesis, Problem, setting};
pub use pg::{PgDefect, PgSampler};
pub use smc::{Resampling, RunStats, SmcConfig, SmcDefect, SmcSampler};
pub use vb::{VbConfig, VbResult, VbSampler};

use crate::chain::{Sampler, SamplerError};
use crate::data::{DataContext, Dataset};
use crate::params::{ParamError, check_positive, check_range_usize, parse};
use crate::registry::Model;
use crate::seed::ChainRng;

/// Largest J accepted (J × R × 9 statistics × 2 buffers × 8 bytes: 720 MB at R = 5).
pub const MAX_PARTICLES: usize = 1_000_000;

/// Largest `max_enumeration` accepted (10¹⁰ assignments: hours, not years).
pub const MAX_ENUMERATION: u64 = 10_000_000_000;

/// Largest T × J of a PG chain's stored classes and ancestors (5 bytes each: 2.5 GB).
pub const MAX_PG_HISTORY: usize = 500_000_000;

/// Which algorithm of ch. 4 a cell runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Method {
    /// Enumeration of R^T (eq. 5.1).
    Exact,
    /// SIS-CN (Fig. 4.1).
    Smc,
    /// PG-CN (Fig. 4.4).
    Pg,
    /// VB-CN (Fig. 4.5).
    Vb,
    /// DEM-CN (Fig. 4.6).
    Dem,
}

pub(crate) fn default_gamma() -> f64 {
    10.0
}
pub(crate) fn default_lambda() -> f64 {
    0.1
}
fn default_particles() -> usize {
    1000
}
fn default_threshold() -> f64 {
    0.5
}
fn yes() -> bool {
    true
}
fn default_max_iterations() -> usize {
    1000
}
fn default_tolerance() -> f64 {
    1e-9
}
fn one() -> usize {
    1
}
fn default_max_enumeration() -> u64 {
    exact::DEFAULT_MAX_ASSIGNMENTS
}

/// The hyperparameter keys shared by `params` and `dataset.kind: synthetic`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HyperKeys {
    /// Table 5.1 number.
    pub setting: Option<usize>,
    /// Explicit a1.
    pub a1: Option<f64>,
    /// Explicit b1.
    pub b1: Option<f64>,
    /// Explicit a2.
    pub a2: Option<f64>,
    /// Explicit b2.
    pub b2: Option<f64>,
    /// γ.
    pub gamma: f64,
    /// m.
    pub m: f64,
    /// λ.
    pub lambda: f64,
}

/// Resolve `setting` or explicit (a1, b1, a2, b2) plus γ, m, λ into a [`Hyper`], checking
/// ranges. `section` prefixes error paths (`params` or `dataset`).
///
/// Errors: [`ParamError`] at `<section>.setting` (both or neither given, out of 1..=36),
/// `<section>.a1` … (missing or ≤ 0), `<section>.gamma`, `.lambda` (≤ 0), `.m` (not finite).
pub fn resolve_hyper(section: &str, k: &HyperKeys) -> Result<Hyper, ParamError> {
    let explicit = [("a1", k.a1), ("b1", k.b1), ("a2", k.a2), ("b2", k.b2)];
    let (a1, b1, a2, b2) = match k.setting {
        Some(n) => {
            if let Some((name, _)) = explicit.iter().find(|(_, v)| v.is_some()) {
                return Err(ParamError::new(
                    format!("{section}.{name}"),
                    "give either setting or all of a1, b1, a2, b2, not both",
                ));
            }
            setting(n).ok_or_else(|| {
                ParamError::new(
                    format!("{section}.setting"),
                    format!("{n} is out of range: allowed values are 1..=36 (Table 5.1)"),
                )
            })?
        }
        None => {
            if explicit.iter().all(|(_, v)| v.is_none()) {
                return Err(ParamError::new(
                    format!("{section}.setting"),
                    "missing: give setting (1..=36) or all of a1, b1, a2, b2",
                ));
            }
            let mut vals = [0.0; 4];
            for (i, (name, v)) in explicit.iter().enumerate() {
                let path = format!("{section}.{name}");
                let v = v.ok_or_else(|| {
                    ParamError::new(&path, "missing: give all of a1, b1, a2, b2 (or setting)")
                })?;
                check_positive(&path, v)?;
                vals[i] = v;
            }
            (vals[0], vals[1], vals[2], vals[3])
        }
    };
    check_positive(&format!("{section}.gamma"), k.gamma)?;
    check_positive(&format!("{section}.lambda"), k.lambda)?;
    if !k.m.is_finite() {
        return Err(ParamError::new(
            format!("{section}.m"),
            format!("{} is out of range: allowed values are finite", k.m),
        ));
    }
    Ok(Hyper {
        gamma: k.gamma,
        m: k.m,
        lambda: k.lambda,
        a1,
        b1,
        a2,
        b2,
    })
}

/// The `params` section of a cell (see the module docs for keys and defaults).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Params {
    /// Algorithm.
    pub method: Method,
    /// Network scored.
    pub hypothesis: Hypothesis,
    /// R (1..=5).
    pub n_latent: usize,
    /// Table 5.1 setting.
    #[serde(default)]
    pub setting: Option<usize>,
    /// Explicit a1.
    #[serde(default)]
    pub a1: Option<f64>,
    /// Explicit b1.
    #[serde(default)]
    pub b1: Option<f64>,
    /// Explicit a2.
    #[serde(default)]
    pub a2: Option<f64>,
    /// Explicit b2.
    #[serde(default)]
    pub b2: Option<f64>,
    /// γ (10).
    #[serde(default = "default_gamma")]
    pub gamma: f64,
    /// m (0).
    #[serde(default)]
    pub m: f64,
    /// λ (0.1).
    #[serde(default = "default_lambda")]
    pub lambda: f64,
    /// J (1000).
    #[serde(default = "default_particles")]
    pub n_particles: usize,
    /// ESS threshold fraction (0.5).
    #[serde(default = "default_threshold")]
    pub resample_threshold: f64,
    /// Resampling scheme (systematic).
    #[serde(default)]
    pub resampling: Resampling,
    /// Random observation order (true).
    #[serde(default = "yes")]
    pub shuffle: bool,
    /// VB iterations (1000).
    #[serde(default = "default_max_iterations")]
    pub max_iterations: usize,
    /// VB relative tolerance (1e-9).
    #[serde(default = "default_tolerance")]
    pub tolerance: f64,
    /// VB restarts (1).
    #[serde(default = "one")]
    pub n_restarts: usize,
    /// DEM initialisation (random).
    #[serde(default)]
    pub init: DemInit,
    /// Largest R^T for `exact` (10⁷).
    #[serde(default = "default_max_enumeration")]
    pub max_enumeration: u64,
}

/// Parsed and checked `params`, with the hyperparameters resolved.
#[derive(Debug, Clone)]
pub struct Resolved {
    /// The raw keys.
    pub params: Params,
    /// Hyperparameters.
    pub hyper: Hyper,
}

impl Resolved {
    /// SIS-CN settings from these params.
    pub fn smc_config(&self) -> SmcConfig {
        SmcConfig {
            n_particles: self.params.n_particles,
            resample_threshold: self.params.resample_threshold,
            resampling: self.params.resampling,
            defect: None,
        }
    }
    /// VB-CN settings from these params.
    pub fn vb_config(&self) -> VbConfig {
        VbConfig {
            max_iterations: self.params.max_iterations,
            tolerance: self.params.tolerance,
            n_restarts: self.params.n_restarts,
        }
    }
}

/// Parse and range-check `params`.
///
/// Errors: [`ParamError`] with the path of the offending key.
pub fn parse_params(v: &Value) -> Result<Resolved, ParamError> {
    let p: Params = parse("params", v)?;
    check_range_usize("params.n_latent", p.n_latent, 1, 5)?;
    let hyper = resolve_hyper(
        "params",
        &HyperKeys {
            setting: p.setting,
            a1: p.a1,
            b1: p.b1,
            a2: p.a2,
            b2: p.b2,
            gamma: p.gamma,
            m: p.m,
            lambda: p.lambda,
        },
    )?;
    let min_j = if p.method == Method::Pg { 2 } else { 1 };
    check_range_usize("params.n_particles", p.n_particles, min_j, MAX_PARTICLES)?;
    if !(0.0..=1.0).contains(&p.resample_threshold) {
        return Err(ParamError::new(
            "params.resample_threshold",
            format!(
                "{} is out of range: allowed values are 0 ≤ x ≤ 1",
                p.resample_threshold
            ),
        ));
    }
    check_range_usize("params.max_iterations", p.max_iterations, 1, 10_000_000)?;
    if !(p.tolerance >= 0.0 && p.tolerance.is_finite()) {
        return Err(ParamError::new(
            "params.tolerance",
            format!("{} is out of range: allowed values are x ≥ 0", p.tolerance),
        ));
    }
    check_range_usize("params.n_restarts", p.n_restarts, 1, 10_000)?;
    if p.max_enumeration == 0 {
        return Err(ParamError::new(
            "params.max_enumeration",
            "0 is out of range: allowed values are ≥ 1",
        ));
    }
    Ok(Resolved { params: p, hyper })
}

/// Build the sampler of `r.params.method` for the observed 2 × T matrix `x` (row-major).
///
/// Errors: [`SamplerError::Input`] if `x` is missing, not 2 × T, non-finite, or (exact) R^T is
/// too large; [`SamplerError::InvalidState`] from the samplers' constructors.
pub fn build_sampler(
    r: &Resolved,
    data: &Dataset,
    rng: &mut ChainRng,
) -> Result<Box<dyn Sampler>, SamplerError> {
    let x = data
        .observed("x")
        .ok_or_else(|| SamplerError::Input("dataset has no observed matrix x".into()))?;
    x.check().map_err(SamplerError::Input)?;
    if x.rows != 2 || x.cols == 0 {
        return Err(SamplerError::Input(format!(
            "x must be 2 × T with T ≥ 1, got {} × {}",
            x.rows, x.cols
        )));
    }
    let (a, b) = x.values.split_at(x.cols);
    let p = &r.params;
    let problem = Problem::new(a, b, p.hypothesis, p.n_latent, r.hyper)?;
    Ok(match p.method {
        Method::Exact => Box::new(ExactSampler::new(problem, p.max_enumeration)?),
        Method::Smc => Box::new(SmcSampler::new(&problem, r.smc_config(), p.shuffle)?),
        Method::Pg => Box::new(PgSampler::new(
            problem,
            r.smc_config(),
            p.shuffle,
            None,
            rng,
        )?),
        Method::Vb => Box::new(VbSampler::new(problem, r.vb_config())),
        Method::Dem => Box::new(DemSampler::new(problem, p.init, r.smc_config())),
    })
}

/// Registry entry for this paper.
pub struct Kurutmaz2019;

impl Model for Kurutmaz2019 {
    fn name(&self) -> &'static str {
        "kurutmaz2019"
    }

    fn validate(&self, params: &Value, dataset: &Value) -> Result<(), ParamError> {
        let r = parse_params(params)?;
        let d = datasets::parse_dataset(dataset)?;
        if r.params.method == Method::Exact
            && !exact::feasible(r.params.n_latent, d.min_len(), r.params.max_enumeration)
        {
            return Err(ParamError::new(
                "params.method",
                format!(
                    "exact enumeration of R^T = {}^{} assignments (T ≥ {} for this dataset) exceeds max_enumeration = {}; use smc or vb",
                    r.params.n_latent,
                    d.min_len(),
                    d.min_len(),
                    r.params.max_enumeration
                ),
            ));
        }
        Ok(())
    }

    fn dataset(
        &self,
        dataset: &Value,
        ctx: &DataContext,
        rng: &mut ChainRng,
    ) -> Result<Dataset, ParamError> {
        let d = datasets::parse_dataset(dataset)?;
        datasets::build(&d, ctx, rng)
    }

    fn sampler(
        &self,
        params: &Value,
        data: &Dataset,
        rng: &mut ChainRng,
    ) -> Result<Box<dyn Sampler>, SamplerError> {
        let r = parse_params(params).map_err(|e| SamplerError::Input(e.to_string()))?;
        build_sampler(&r, data, rng)
    }
}

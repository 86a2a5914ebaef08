//! The cell's `params` for the CIBP / eCIBP (paper `004_74db43a26dbf0fa1.txt`): which computation
//! runs the cell, the structure prior (α, β, β′), the parameter priors (§3.4, §5), the MTM tries
//! (eq 10), the two printed-form switches (eq 12, eqs 15–16), the observed-layer map, and the
//! KL, KDE and DP-mixture settings (§5.1).
//!
//! Parsed with [`crate::params::parse`] (unknown keys refused, listing the allowed ones);
//! [`Params::check`] range-checks every value. Every error carries a dotted path such as
//! `params.beta_prime`.

use serde::{Deserialize, Serialize};

use crate::params::{ParamError, check_open_unit, check_positive, parse};

/// Which computation runs the cell.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum Method {
    /// The MCMC of §4 (MTM activations, Phase 1 edges, Phase 2 birth/death, conjugate W, γ, ν).
    #[default]
    Mcmc,
    /// Independent draws of the network from the generative process (§3): each iteration is a
    /// fresh prior draw. The reference of §6's prior check.
    Forward,
    /// The kernel density baseline of Table 1 (isotropic Gaussian kernel, leave-one-out width);
    /// each iteration is one fantasy draw.
    Kde,
    /// The Dirichlet-process mixture of Gaussians baseline of Table 1 (Görür & Rasmussen 2010),
    /// collapsed Gibbs (Neal's algorithm 3).
    Dpmog,
}

/// The structure prior.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum Prior {
    /// The extended cascading IBP (§3.2, eqs 8–9): CIBP plus jump connections. Default.
    #[default]
    Ecibp,
    /// The cascading IBP of Adams et al. (2010) (§3.1, eqs 3–7): adjacent layers only; β′ is
    /// ignored.
    Cibp,
}

/// The prior probability of a jump edge in Phase 1 (eq 12).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum JumpPrior {
    /// (β′q_k + n_{−i,k}^(s,m))/(β′ + K^(s) − 1), the conditional of eq 9. Default.
    #[default]
    Corrected,
    /// Eq 12 as printed: zero whenever n_{−i,k}^(s,m) = 0, so no jump can start. A negative
    /// control, kept to show that the tests catch it.
    Paper,
}

/// The birth/death acceptance of Phase 2 (eqs 15–16).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum BirthDeath {
    /// λ_i/c(S′) · J_old(S′)/J(S) · likelihood ratio, with λ_i = αβ/(β + K^(m−1) − 1). Default.
    #[default]
    Corrected,
    /// Eq 15 as printed: (K_o+1)⁻², K^(m) in λ, and no J terms. A negative control.
    Paper,
}

/// How data enter the observed layer's range (−1, 1). The paper does not say.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum ObservedMap {
    /// Each column affinely, so that the training minimum and maximum go to −r and +r
    /// (`observed_range` r). Default.
    #[default]
    Minmax,
    /// The data are used as they are; every value must lie in (−1, 1) (§5.2).
    Identity,
}

/// Where an MCMC chain starts (`method: mcmc`). The paper is silent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum Init {
    /// The D observed units alone, their γ and ν drawn from the prior. Default.
    #[default]
    Observed,
    /// The dataset's true network (`ngbn7`, §5.2; eCIBP, whose prior allows its jump edges):
    /// its units, edges, W, γ and ν, and the training points' true hidden activations. A
    /// diagnostic, not an estimate: chains that start at the truth and stay there, with a higher
    /// `log_joint` than chains from the observed units, say that the sampler does not find the
    /// true network's mode; chains that leave it say that the posterior does not favour it.
    Truth,
}

/// The kernel width of the KDE baseline.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum Bandwidth {
    /// One width h for every point, maximizing the mean leave-one-out log density. Default.
    #[default]
    Global,
    /// A width per training point: Abramson-style factors from the global fit's leave-one-out
    /// densities, the scale then re-chosen by the same criterion. The paper cites Barnard
    /// (2010)'s local criterion without giving it; this is our stand-in, an extra.
    Local,
}

/// How the KDE's leave-one-out criterion treats a training point's exact duplicates (distance 0).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum KdeTies {
    /// Left out of the point's own leave-one-out sum, whose count n_i is the rest, as the KL
    /// estimator skips zero distances. Default.
    #[default]
    Skip,
    /// Kept: the textbook leave-one-out over every j ≠ i (geyser's bandwidth 0.18791 against
    /// 0.18848 with `skip`).
    Keep,
}

/// Which sample is P in Table 1's D̂(P‖Q) (Pérez-Cruz 2008, eq 14). The paper says "the KL
/// divergence between test sets and fantasy data" and, of its reference, "the KL divergence of
/// the training set from the test set", which read either way.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum KlDirection {
    /// D̂(test ‖ model): P the test set (n_test rows), Q the fantasy data; the reference
    /// D̂(test ‖ train). Default.
    #[default]
    TestModel,
    /// D̂(model ‖ test): P the fantasy data (m = n_test rows), Q the test set; the reference
    /// D̂(train ‖ test).
    ModelTest,
}

/// A Gaussian prior N(mean, 1/precision).
#[derive(Debug, Clone, Copy, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct GaussianPrior {
    #[serde(default)]
    pub mean: f64,
    #[serde(default = "one")]
    pub precision: f64,
}

impl Default for GaussianPrior {
    fn default() -> Self {
        GaussianPrior {
            mean: 0.0,
            precision: 1.0,
        }
    }
}

/// A Gamma prior in the shape/rate convention: density ∝ x^(shape−1) e^(−rate·x).
#[derive(Debug, Clone, Copy, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct GammaPrior {
    #[serde(default = "one")]
    pub shape: f64,
    #[serde(default = "one")]
    pub rate: f64,
}

impl Default for GammaPrior {
    fn default() -> Self {
        GammaPrior {
            shape: 1.0,
            rate: 1.0,
        }
    }
}

/// The DP mixture of Gaussians baseline (the paper gives no settings): a conjugate
/// Normal-inverse-Wishart base on standardized data, μ₀ = 0, κ₀, ν₀ (default d + 2), Ψ₀ = ψ₀·I,
/// and a Gamma(shape, rate) prior on the DP concentration, updated as in Escobar & West (1995).
#[derive(Debug, Clone, Copy, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct DpmogParams {
    #[serde(default = "default_kappa0")]
    pub kappa0: f64,
    /// Degrees of freedom ν₀ (> d − 1); `None` means d + 2.
    #[serde(default)]
    pub nu0: Option<f64>,
    #[serde(default = "default_psi0")]
    pub psi0: f64,
    #[serde(default)]
    pub concentration_prior: GammaPrior,
}

impl Default for DpmogParams {
    fn default() -> Self {
        DpmogParams {
            kappa0: default_kappa0(),
            nu0: None,
            psi0: default_psi0(),
            concentration_prior: GammaPrior::default(),
        }
    }
}

fn default_kappa0() -> f64 {
    0.1
}
fn default_psi0() -> f64 {
    0.25
}
fn one() -> f64 {
    1.0
}
fn default_mtm_tries() -> usize {
    5
}
fn default_observed_range() -> f64 {
    0.9
}
fn default_kl_k() -> usize {
    1
}
fn default_max_units() -> usize {
    DEFAULT_MAX_UNITS
}
fn yes() -> bool {
    true
}

/// Default cap on the number of units of a network (observed included): a chain whose structure
/// grows past it fails with its reason instead of exhausting memory. The prior's tail is heavy
/// (one draw in 300,000 has more than 1,900 jump edges at α = β = β′ = 1, d = 2) but
/// its unit count stays far below this.
pub const DEFAULT_MAX_UNITS: usize = 20_000;

/// Everything a cell of this model can set. Defaults are the paper's (§5.1: α = β = β′ = 1;
/// §3.4: W, γ ~ N(0, 1), ν ~ Gamma(1, 1)) or, where the paper is silent, ours (documented in the
/// README and in `experiments/dallaire2014/`).
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Params {
    #[serde(default)]
    pub method: Method,
    #[serde(default)]
    pub prior: Prior,
    /// IBP mass α (> 0).
    #[serde(default = "one")]
    pub alpha: f64,
    /// IBP concentration β (> 0).
    #[serde(default = "one")]
    pub beta: f64,
    /// Jump concentration β′ (> 0; eCIBP only).
    #[serde(default = "one")]
    pub beta_prime: f64,
    /// Prior of every weight W_ik.
    #[serde(default)]
    pub weight_prior: GaussianPrior,
    /// Prior of every bias γ_i.
    #[serde(default)]
    pub bias_prior: GaussianPrior,
    /// Prior of every precision ν_i (shape/rate).
    #[serde(default)]
    pub precision_prior: GammaPrior,
    /// q, the number of MTM candidates (eq 10, footnote 1; the paper gives no value). ≥ 1.
    #[serde(default = "default_mtm_tries")]
    pub mtm_tries: usize,
    #[serde(default)]
    pub jump_prior: JumpPrior,
    #[serde(default)]
    pub birth_death: BirthDeath,
    #[serde(default)]
    pub observed_map: ObservedMap,
    /// r of `observed_map: minmax`, in (0, 1).
    #[serde(default = "default_observed_range")]
    pub observed_range: f64,
    /// k of the k-nearest-neighbour KL estimator (Pérez-Cruz 2008). ≥ 1.
    #[serde(default = "default_kl_k")]
    pub kl_k: usize,
    /// Which sample is P in the KL estimator.
    #[serde(default)]
    pub kl_direction: KlDirection,
    /// Update W, γ and ν (the conjugate step). On in every experiment; off only to study the
    /// structure moves alone.
    #[serde(default = "yes")]
    pub update_parameters: bool,
    /// Cap on the number of units (see [`DEFAULT_MAX_UNITS`]).
    #[serde(default = "default_max_units")]
    pub max_units: usize,
    /// Where an MCMC chain starts.
    #[serde(default)]
    pub init: Init,
    /// KDE width rule (`method: kde`).
    #[serde(default)]
    pub bandwidth: Bandwidth,
    /// The KDE's leave-one-out treatment of exact duplicates (`method: kde`).
    #[serde(default)]
    pub kde_ties: KdeTies,
    /// DP mixture settings (`method: dpmog`).
    #[serde(default)]
    pub dpmog: DpmogParams,
}

impl Default for Params {
    fn default() -> Self {
        // An empty object parses: every field has a default.
        Params {
            method: Method::default(),
            prior: Prior::default(),
            alpha: 1.0,
            beta: 1.0,
            beta_prime: 1.0,
            weight_prior: GaussianPrior::default(),
            bias_prior: GaussianPrior::default(),
            precision_prior: GammaPrior::default(),
            mtm_tries: default_mtm_tries(),
            jump_prior: JumpPrior::default(),
            birth_death: BirthDeath::default(),
            observed_map: ObservedMap::default(),
            observed_range: default_observed_range(),
            kl_k: default_kl_k(),
            kl_direction: KlDirection::default(),
            update_parameters: true,
            max_units: DEFAULT_MAX_UNITS,
            init: Init::default(),
            bandwidth: Bandwidth::default(),
            kde_ties: KdeTies::default(),
            dpmog: DpmogParams::default(),
        }
    }
}

impl Params {
    /// Parse the cell's `section` (normally `params`) and range-check it.
    ///
    /// Errors: an unknown key (listing the allowed ones), a value of the wrong type, or a value
    /// out of range, each with its dotted path.
    pub fn from_value(section: &str, value: &serde_json::Value) -> Result<Self, ParamError> {
        let p: Params = parse(section, value)?;
        p.check(section)?;
        Ok(p)
    }

    /// Range checks: α, β, β′, the prior precisions and Gamma parameters > 0 and finite; prior
    /// means finite; `mtm_tries` ≥ 1; `observed_range` in (0, 1); `kl_k` ≥ 1; `max_units` ≥ 1;
    /// DP mixture κ₀, ψ₀ > 0 and ν₀ > 0 if given (ν₀ > d − 1 is checked against the data).
    pub fn check(&self, section: &str) -> Result<(), ParamError> {
        let at = |k: &str| format!("{section}.{k}");
        check_positive(&at("alpha"), self.alpha)?;
        check_positive(&at("beta"), self.beta)?;
        check_positive(&at("beta_prime"), self.beta_prime)?;
        for (name, g) in [
            ("weight_prior", self.weight_prior),
            ("bias_prior", self.bias_prior),
        ] {
            check_positive(&at(&format!("{name}.precision")), g.precision)?;
            if !g.mean.is_finite() {
                return Err(ParamError::new(
                    at(&format!("{name}.mean")),
                    format!(
                        "{} is out of range: allowed values are finite numbers",
                        g.mean
                    ),
                ));
            }
        }
        check_positive(&at("precision_prior.shape"), self.precision_prior.shape)?;
        check_positive(&at("precision_prior.rate"), self.precision_prior.rate)?;
        if self.mtm_tries < 1 {
            return Err(ParamError::new(
                at("mtm_tries"),
                "0 is out of range: allowed values are integers ≥ 1",
            ));
        }
        check_open_unit(&at("observed_range"), self.observed_range)?;
        if self.kl_k < 1 {
            return Err(ParamError::new(
                at("kl_k"),
                "0 is out of range: allowed values are integers ≥ 1",
            ));
        }
        if self.max_units < 1 {
            return Err(ParamError::new(
                at("max_units"),
                "0 is out of range: allowed values are integers ≥ 1",
            ));
        }
        if self.init == Init::Truth && (self.method != Method::Mcmc || self.prior != Prior::Ecibp) {
            return Err(ParamError::new(
                at("init"),
                "truth starts an MCMC chain at a true network with jump edges: it needs \
                 method: mcmc and prior: ecibp (allowed values: observed, truth)",
            ));
        }
        check_positive(&at("dpmog.kappa0"), self.dpmog.kappa0)?;
        check_positive(&at("dpmog.psi0"), self.dpmog.psi0)?;
        if let Some(nu0) = self.dpmog.nu0 {
            check_positive(&at("dpmog.nu0"), nu0)?;
        }
        check_positive(
            &at("dpmog.concentration_prior.shape"),
            self.dpmog.concentration_prior.shape,
        )?;
        check_positive(
            &at("dpmog.concentration_prior.rate"),
            self.dpmog.concentration_prior.rate,
        )?;
        Ok(())
    }

    /// Whether jump connections exist (the eCIBP).
    pub fn has_jumps(&self) -> bool {
        self.prior == Prior::Ecibp
    }
}

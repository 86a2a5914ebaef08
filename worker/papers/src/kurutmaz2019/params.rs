//! The cell's `params` for this model (which algorithm, R, the hypothesis, the hyperparameters
//! and the algorithms' settings), the hyperparameters of §5.1 (Table 5.1's 36 settings), parsed
//! and range-checked with dotted paths such as `params.n_particles`.
//!
//! Source: `003_bf1ce321478f8175.txt`, ch. 3 (Fig. 3.1), §5.1 (Table 5.1), ch. 4 (the settings
//! of each algorithm).

use serde::Deserialize;
use serde_json::Value;

use crate::kurutmaz2019::hyper::{Hyper, HyperKeys, Hypothesis, resolve_hyper};
use crate::kurutmaz2019::samplers::dem::DemInit;
use crate::kurutmaz2019::samplers::exact;
use crate::kurutmaz2019::samplers::smc::{Resampling, SmcConfig};
use crate::kurutmaz2019::samplers::vb::VbConfig;
use crate::params::{ParamError, check_range_usize, parse};

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
fn default_dominated_horizon() -> usize {
    crate::kurutmaz2019::samplers::vb::DEFAULT_DOMINATED_HORIZON
}
fn one() -> usize {
    1
}
fn default_max_enumeration() -> u64 {
    exact::DEFAULT_MAX_ASSIGNMENTS
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
    #[serde(default = "crate::kurutmaz2019::hyper::default_gamma")]
    pub gamma: f64,
    /// m (0).
    #[serde(default)]
    pub m: f64,
    /// λ (0.1).
    #[serde(default = "crate::kurutmaz2019::hyper::default_lambda")]
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
    /// VB: abandon a restart dominated by an earlier one within this many iterations
    /// ([`VbConfig::dominated_horizon`]; 10⁴; 0 = never).
    #[serde(default = "default_dominated_horizon")]
    pub dominated_horizon: usize,
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
    // Without the `testing` feature every field is set and clippy calls the update needless; with
    // it, `..default()` fills the `defect` field.
    #[allow(clippy::needless_update)]
    pub fn smc_config(&self) -> SmcConfig {
        SmcConfig {
            n_particles: self.params.n_particles,
            resample_threshold: self.params.resample_threshold,
            resampling: self.params.resampling,
            ..SmcConfig::default()
        }
    }
    /// VB-CN settings from these params.
    #[allow(clippy::needless_update)]
    pub fn vb_config(&self) -> VbConfig {
        VbConfig {
            max_iterations: self.params.max_iterations,
            tolerance: self.params.tolerance,
            n_restarts: self.params.n_restarts,
            dominated_horizon: self.params.dominated_horizon,
            ..VbConfig::default()
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
    check_range_usize(
        "params.dominated_horizon",
        p.dominated_horizon,
        0,
        1_000_000_000,
    )?;
    if p.max_enumeration == 0 {
        return Err(ParamError::new(
            "params.max_enumeration",
            "0 is out of range: allowed values are ≥ 1",
        ));
    }
    Ok(Resolved { params: p, hyper })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dominated_horizon_default_and_range() {
        let base = serde_json::json!({"method": "vb", "hypothesis": "a_to_b", "n_latent": 2, "setting": 20});
        let r = parse_params(&base).unwrap();
        assert_eq!(
            r.vb_config().dominated_horizon,
            crate::kurutmaz2019::samplers::vb::DEFAULT_DOMINATED_HORIZON
        );
        let mut v = base.clone();
        v["dominated_horizon"] = serde_json::json!(0);
        assert_eq!(parse_params(&v).unwrap().vb_config().dominated_horizon, 0);
        v["dominated_horizon"] = serde_json::json!(2_000_000_000u64);
        let e = parse_params(&v).unwrap_err();
        assert!(e.to_string().contains("params.dominated_horizon"), "{e}");
        v["dominated_horizon"] = serde_json::json!(-1);
        assert!(parse_params(&v).is_err());
    }
}

//! The cell's `params` for this model (which algorithm, R, the hypothesis, the hyperparameters
//! and the algorithms' settings), the hyperparameters of §5.1 (Table 5.1's 36 settings), parsed
//! and range-checked with dotted paths such as `params.n_particles`.
//!
//! Source: `003_bf1ce321478f8175.txt`, ch. 3 (Fig. 3.1), §5.1 (Table 5.1), ch. 4 (the settings
//! of each algorithm).

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::kurutmaz2019::samplers::{DemInit, Resampling, SmcConfig, VbConfig, exact};
use crate::params::{ParamError, check_positive, check_range_usize, parse};

/// Which causal network of Fig. 3.1 scores the pair. Observed row 0 is A, row 1 is B.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Hypothesis {
    /// Fig. 3.1(a): A → B. A ~ N(w₁|r, 1/ρ₁|r) with (a1, b1); B regressed on [1, A] with (a2, b2).
    AToB,
    /// Fig. 3.1(b): B → A. B is the cause with (a1, b1); A regressed on [1, B] with (a2, b2).
    BToA,
    /// Fig. 3.1(c): A ← r₁ → B. Both intercept-only given r₁, both with (a1, b1) (§5.1: priors of
    /// variables with homomorphic parent graphs must be identical).
    Spurious,
}

impl Hypothesis {
    /// Index used in truth matrices: 0 a_to_b, 1 b_to_a, 2 spurious.
    pub fn index(self) -> usize {
        match self {
            Hypothesis::AToB => 0,
            Hypothesis::BToA => 1,
            Hypothesis::Spurious => 2,
        }
    }
}

/// Hyperparameters of one cell (§5.1). Under a causal hypothesis the cause gets (a1, b1) and the
/// effect (a2, b2); under the spurious one both variables get (a1, b1).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Hyper {
    /// Dirichlet concentration γ of every class (eq. 3.3; §5.1: 10).
    pub gamma: f64,
    /// Prior mean m of every weight (eq. 3.4; §5.1: 0).
    pub m: f64,
    /// Prior precision scaling λ: Λ = λ (1-D) or λ·I₂ (regression) (§5.1: 0.1).
    pub lambda: f64,
    /// Gamma shape of the cause's precision.
    pub a1: f64,
    /// Gamma rate of the cause's precision.
    pub b1: f64,
    /// Gamma shape of the effect's precision.
    pub a2: f64,
    /// Gamma rate of the effect's precision.
    pub b2: f64,
}

impl Hyper {
    /// Setting `n` of Table 5.1 (see [`setting`]) with §5.1's γ = 10, m = 0, λ = 0.1, or `None`
    /// outside 1..=36.
    pub fn of_setting(n: usize) -> Option<Hyper> {
        let (a1, b1, a2, b2) = setting(n)?;
        Some(Hyper {
            gamma: default_gamma(),
            m: 0.0,
            lambda: default_lambda(),
            a1,
            b1,
            a2,
            b2,
        })
    }
}

/// The 36 hyperparameter settings of Table 5.1, numbered 1..=36: a1 over (1, 10, 100) outermost,
/// then a2 over (1, 10, 100), then b1 ≤ a1 ascending, then b2 ≤ a2 ascending innermost
/// (this numbering reproduces the thesis's Table 5.2 counts; see `shared/README.md`).
/// Returns `(a1, b1, a2, b2)`, or `None` outside 1..=36.
pub fn setting(n: usize) -> Option<(f64, f64, f64, f64)> {
    const V: [f64; 3] = [1.0, 10.0, 100.0];
    let mut k = 0;
    for a1 in V {
        for a2 in V {
            for b1 in V.iter().copied().filter(|b| *b <= a1) {
                for b2 in V.iter().copied().filter(|b| *b <= a2) {
                    k += 1;
                    if k == n {
                        return Some((a1, b1, a2, b2));
                    }
                }
            }
        }
    }
    None
}

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
fn default_dominated_horizon() -> usize {
    crate::kurutmaz2019::samplers::vb::DEFAULT_DOMINATED_HORIZON
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
    fn table_5_1_numbering() {
        assert_eq!(setting(1), Some((1.0, 1.0, 1.0, 1.0)));
        assert_eq!(setting(20), Some((100.0, 10.0, 1.0, 1.0)));
        assert_eq!(setting(36), Some((100.0, 100.0, 100.0, 100.0)));
        assert_eq!(setting(0), None);
        assert_eq!(setting(37), None);
        for n in 1..=36 {
            let (a1, b1, a2, b2) = setting(n).unwrap();
            assert!(b1 <= a1 && b2 <= a2);
        }
    }

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

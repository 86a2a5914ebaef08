//! The model's hypotheses (Fig. 3.1) and hyperparameters (§5.1, Table 5.1's 36 settings), and
//! how a YAML section names them: the types the samplers, the datasets and the cell's `params`
//! share.
//!
//! Source: `003_bf1ce321478f8175.txt`, ch. 3 (Fig. 3.1), §5.1 (Table 5.1).

use serde::{Deserialize, Serialize};

use crate::params::{ParamError, check_positive};

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
/// (this numbering reproduces the thesis's Table 5.2 counts).
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

/// The default γ of a YAML section that sets neither γ nor a Table 5.1 setting.
pub(crate) fn default_gamma() -> f64 {
    10.0
}

/// The default λ of a YAML section that sets neither λ nor a Table 5.1 setting.
pub(crate) fn default_lambda() -> f64 {
    0.1
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
}

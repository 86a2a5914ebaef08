//! The bivariate latent-variable causal networks of §3.3 (Fig. 3.1) and their hyperparameters
//! (§5.1, Table 5.1), as a [`Problem`] every algorithm consumes.
//!
//! Source: `003_bf1ce321478f8175.txt`, ch. 3 (eqs. 3.1–3.4), App. B.3, §5.1.

use serde::{Deserialize, Serialize};

use super::equations::{self, NormalGamma, SuffStats};
use crate::chain::SamplerError;

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
#[derive(Debug, Clone, Copy, PartialEq)]
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

/// A bivariate pair oriented for one hypothesis: the first modelled variable `v1` (cause, or A
/// under spurious) is 1-D Normal-Gamma given r; the second `v2` (effect, or B) is a Normal-Gamma
/// regression on φ = [1, f] with `f = v1` (causal) or `f = 0` (spurious: intercept only, by the
/// embedding described in [`equations`]). All vectors have length T, in the original order.
#[derive(Debug, Clone, PartialEq)]
pub struct Problem {
    /// R, the cardinality of r₁ (1..=5).
    pub n_latent: usize,
    /// The hypothesis this orientation encodes.
    pub hypothesis: Hypothesis,
    /// The hyperparameters.
    pub hyper: Hyper,
    /// Prior of v1: NG(m, λ, a1, b1).
    pub prior1: NormalGamma,
    /// Prior of v2: NG(m·1, λ·I₂, a2, b2) (causal) or (a1, b1) (spurious).
    pub prior2: NormalGamma,
    /// First modelled variable, length T.
    pub v1: Vec<f64>,
    /// Second modelled variable, length T.
    pub v2: Vec<f64>,
    /// Regressor of v2 (v1 or 0), length T.
    pub f: Vec<f64>,
}

impl Problem {
    /// Orient the observed pair `a`, `b` (rows A and B of `x`, each length T) for `hypothesis`.
    ///
    /// Errors: [`SamplerError::Input`] if lengths differ, T = 0, or a value is not finite.
    pub fn new(
        a: &[f64],
        b: &[f64],
        hypothesis: Hypothesis,
        n_latent: usize,
        hyper: Hyper,
    ) -> Result<Self, SamplerError> {
        if a.len() != b.len() || a.is_empty() {
            return Err(SamplerError::Input(format!(
                "x must be 2 × T with T ≥ 1 (rows of length {} and {})",
                a.len(),
                b.len()
            )));
        }
        if let Some(i) = a.iter().chain(b).position(|v| !v.is_finite()) {
            return Err(SamplerError::Input(format!(
                "x has a non-finite value at flat index {i}"
            )));
        }
        if !(1..=5).contains(&n_latent) {
            return Err(SamplerError::Input(format!(
                "n_latent {n_latent} outside 1..=5"
            )));
        }
        let (v1, v2, f, a2, b2) = match hypothesis {
            Hypothesis::AToB => (a.to_vec(), b.to_vec(), a.to_vec(), hyper.a2, hyper.b2),
            Hypothesis::BToA => (b.to_vec(), a.to_vec(), b.to_vec(), hyper.a2, hyper.b2),
            Hypothesis::Spurious => (
                a.to_vec(),
                b.to_vec(),
                vec![0.0; a.len()],
                hyper.a1,
                hyper.b1,
            ),
        };
        Ok(Problem {
            n_latent,
            hypothesis,
            hyper,
            prior1: NormalGamma::prior(hyper.m, hyper.lambda, hyper.a1, hyper.b1),
            prior2: NormalGamma::prior(hyper.m, hyper.lambda, a2, b2),
            v1,
            v2,
            f,
        })
    }

    /// T, the number of observations.
    pub fn len(&self) -> usize {
        self.v1.len()
    }

    /// True when T = 0 (never, for a constructed problem).
    pub fn is_empty(&self) -> bool {
        self.v1.is_empty()
    }

    /// φ of v1 at t: [1, 0].
    pub fn phi1(&self, _t: usize) -> [f64; 2] {
        equations::basis(None)
    }

    /// φ of v2 at t: [1, f_t].
    pub fn phi2(&self, t: usize) -> [f64; 2] {
        [1.0, self.f[t]]
    }

    /// Class statistics of an assignment `r` (length T, labels < R, original order), weighted by
    /// `weights[t·R + r]` if given (VB responsibilities), else by indicators.
    pub fn suff_stats(&self, r: Option<&[usize]>, weights: Option<&[f64]>) -> [Vec<SuffStats>; 2] {
        let k = self.n_latent;
        let mut s = [vec![SuffStats::default(); k], vec![SuffStats::default(); k]];
        for t in 0..self.len() {
            match (r, weights) {
                (Some(r), _) => {
                    s[0][r[t]].add(1.0, self.phi1(t), self.v1[t]);
                    s[1][r[t]].add(1.0, self.phi2(t), self.v2[t]);
                }
                (None, Some(w)) => {
                    for c in 0..k {
                        let wt = w[t * k + c];
                        s[0][c].add(wt, self.phi1(t), self.v1[t]);
                        s[1][c].add(wt, self.phi2(t), self.v2[t]);
                    }
                }
                (None, None) => {}
            }
        }
        s
    }

    /// ln p(r^{1:T}, x^{1:T}) by the closed form of App. B.3.1 (iii) / B.3.2 (iii), O(T + R).
    /// `r`: length T, labels in 0..R, original order.
    ///
    /// Errors: [`SamplerError::Numerical`] if a posterior is degenerate or the value not finite.
    pub fn log_joint(&self, r: &[usize]) -> Result<f64, SamplerError> {
        let s = self.suff_stats(Some(r), None);
        let v = equations::log_joint(self.hyper.gamma, &[self.prior1, self.prior2], &s)
            .ok_or_else(|| {
                SamplerError::Numerical("degenerate Normal-Gamma posterior in log_joint".into())
            })?;
        if v.is_finite() {
            Ok(v)
        } else {
            Err(SamplerError::Numerical(format!("log_joint is {v}")))
        }
    }
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

//! The bivariate latent-variable causal networks of §3.3 (Fig. 3.1) as a [`Problem`] every
//! algorithm consumes: a pair oriented for one hypothesis, with its priors.
//!
//! Source: `003_bf1ce321478f8175.txt`, ch. 3 (eqs. 3.1–3.4), App. B.3, §5.1.

use crate::chain::SamplerError;
use crate::kurutmaz2019::equations::{self, NormalGamma, SuffStats};
use crate::kurutmaz2019::hyper::{Hyper, Hypothesis};

/// A bivariate pair oriented for one hypothesis: the first modelled variable `v1` (cause, or A
/// under spurious) is 1-D Normal-Gamma given r; the second `v2` (effect, or B) is a Normal-Gamma
/// regression on φ = [1, f] with `f = v1` (causal) or `f = 0` (spurious: intercept only, by the
/// embedding described in [`equations`]). All vectors have length T, in the original order.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
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

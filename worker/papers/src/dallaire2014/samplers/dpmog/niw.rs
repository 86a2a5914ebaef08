//! Normal-inverse-Wishart algebra of the DP mixture baseline (Görür & Rasmussen 2010, cited in
//! §5.1 of `004_74db43a26dbf0fa1.txt`): per-cluster sufficient
//! statistics and the multivariate Student-t posterior predictive.
//!
//! Prior: μ | Σ ~ N(μ₀ = 0, Σ/κ₀), Σ ~ IW(ν₀, Ψ₀ = ψ₀·I). Given a cluster's n points with sum
//! s = Σx and raw scatter R = Σxxᵀ: κ_n = κ₀ + n, ν_n = ν₀ + n, μ_n = s/κ_n,
//! Ψ_n = Ψ₀ + R − κ_n μ_n μ_nᵀ (= Ψ₀ + S + (κ₀n/κ_n) x̄x̄ᵀ with S the centred scatter), and the
//! predictive of a new point is t_v(μ_n, Ψ_n (κ_n + 1)/(κ_n v)) with v = ν_n − d + 1
//! (Murphy 2007, "Conjugate Bayesian analysis of the Gaussian distribution", eq 258).

use rand_distr::{Distribution, Gamma, StandardNormal};
use statrs::function::gamma::ln_gamma;

use super::Defect;
use crate::chain::SamplerError;
use crate::seed::ChainRng;

/// The NIW base measure on standardized data (μ₀ = 0, Ψ₀ = ψ₀·I).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct NiwPrior {
    /// Dimension d ≥ 1.
    pub d: usize,
    /// κ₀ > 0.
    pub kappa0: f64,
    /// ν₀ > d − 1.
    pub nu0: f64,
    /// ψ₀ > 0 (Ψ₀ = ψ₀·I).
    pub psi0: f64,
}

/// Sufficient statistics of one cluster: count, Σx (d) and Σxxᵀ (d × d, row-major, full).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ClusterStats {
    /// Number of points n_k.
    pub count: usize,
    /// Σ x, d values.
    pub sum: Vec<f64>,
    /// Σ x xᵀ, d × d.
    pub outer: Vec<f64>,
}

impl ClusterStats {
    /// Empty statistics in dimension d.
    pub fn empty(d: usize) -> Self {
        ClusterStats {
            count: 0,
            sum: vec![0.0; d],
            outer: vec![0.0; d * d],
        }
    }

    /// Add (`sign` = 1) or remove (`sign` = −1) the point `x`.
    pub fn update(&mut self, x: &[f64], sign: f64) {
        let d = x.len();
        if sign > 0.0 {
            self.count += 1;
        } else {
            self.count -= 1;
        }
        for a in 0..d {
            self.sum[a] += sign * x[a];
            for b in 0..d {
                self.outer[a * d + b] += sign * x[a] * x[b];
            }
        }
    }
}

/// A multivariate Student-t: location, lower Cholesky factor of the scale, degrees of freedom,
/// and the log normalizing constant lnΓ((v+d)/2) − lnΓ(v/2) − (d/2) ln(vπ) − ½ ln|Σ|.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct StudentT {
    mean: Vec<f64>,
    chol: Vec<f64>,
    df: f64,
    log_norm: f64,
}

impl StudentT {
    /// ln t_v(x; μ, Σ). `work` is scratch of length d.
    pub fn ln_pdf(&self, x: &[f64], work: &mut [f64]) -> f64 {
        let d = self.mean.len();
        // Forward substitution L y = x − μ.
        let mut q = 0.0;
        for a in 0..d {
            let row = &self.chol[a * d..a * d + a];
            let dot: f64 = row.iter().zip(&work[..a]).map(|(l, w)| l * w).sum();
            let y = (x[a] - self.mean[a] - dot) / self.chol[a * d + a];
            work[a] = y;
            q += y * y;
        }
        self.log_norm - 0.5 * (self.df + d as f64) * (q / self.df).ln_1p()
    }

    /// One draw: μ + L ε √(v/w), ε ~ N(0, I) (d normals), w ~ χ²_v = Gamma(v/2, scale 2),
    /// appended to `out`.
    pub fn sample_into(&self, rng: &mut ChainRng, out: &mut Vec<f64>) -> Result<(), SamplerError> {
        let d = self.mean.len();
        let eps: Vec<f64> = (0..d).map(|_| StandardNormal.sample(rng)).collect();
        let chi2 = Gamma::new(0.5 * self.df, 2.0)
            .map_err(|e| SamplerError::Numerical(format!("chi-square({}): {e}", self.df)))?;
        let w: f64 = chi2.sample(rng);
        let scale = (self.df / w).sqrt();
        for a in 0..d {
            let row = &self.chol[a * d..=a * d + a];
            let v: f64 = row.iter().zip(&eps).map(|(l, e)| l * e).sum();
            out.push(self.mean[a] + scale * v);
        }
        Ok(())
    }

    /// Location μ (d values).
    pub fn mean(&self) -> &[f64] {
        &self.mean
    }

    /// Degrees of freedom v.
    pub fn df(&self) -> f64 {
        self.df
    }
}

impl NiwPrior {
    /// The posterior predictive of a cluster with statistics `stats` (the prior predictive when
    /// `stats.count` = 0). With `Defect::PredictiveWithoutParameterUncertainty` the scale drops
    /// the factor (κ_n + 1)/κ_n.
    ///
    /// Errors: Ψ_n not positive definite (numerical breakdown).
    pub fn predictive(
        &self,
        stats: &ClusterStats,
        defect: Option<Defect>,
    ) -> Result<StudentT, SamplerError> {
        let d = self.d;
        let n = stats.count as f64;
        let kappa_n = self.kappa0 + n;
        let nu_n = self.nu0 + n;
        let df = nu_n - d as f64 + 1.0;
        let mean: Vec<f64> = stats.sum.iter().map(|s| s / kappa_n).collect();
        let factor = match defect {
            Some(Defect::PredictiveWithoutParameterUncertainty) => 1.0 / df,
            _ => (kappa_n + 1.0) / (kappa_n * df),
        };
        let mut scale = vec![0.0; d * d];
        for a in 0..d {
            for b in 0..=a {
                let mut psi = stats.outer[a * d + b] - kappa_n * mean[a] * mean[b];
                if a == b {
                    psi += self.psi0;
                }
                scale[a * d + b] = psi * factor;
            }
        }
        let chol = cholesky(&mut scale, d).ok_or_else(|| {
            SamplerError::Numerical(format!(
                "DP mixture: a cluster scale of {} points is not positive definite",
                stats.count
            ))
        })?;
        let half_log_det: f64 = (0..d).map(|a| chol[a * d + a].ln()).sum();
        let log_norm = ln_gamma(0.5 * (df + d as f64))
            - ln_gamma(0.5 * df)
            - 0.5 * d as f64 * (df * std::f64::consts::PI).ln()
            - half_log_det;
        Ok(StudentT {
            mean,
            chol,
            df,
            log_norm,
        })
    }
}

/// In-place lower Cholesky factor of the symmetric matrix whose lower triangle is in `a`
/// (d × d, row-major); the upper triangle is zeroed. `None` if not positive definite.
fn cholesky(a: &mut [f64], d: usize) -> Option<Vec<f64>> {
    for j in 0..d {
        let mut s = a[j * d + j];
        for k in 0..j {
            s -= a[j * d + k] * a[j * d + k];
        }
        if !(s > 0.0 && s.is_finite()) {
            return None;
        }
        let l = s.sqrt();
        a[j * d + j] = l;
        for i in j + 1..d {
            let mut t = a[i * d + j];
            for k in 0..j {
                t -= a[i * d + k] * a[j * d + k];
            }
            a[i * d + j] = t / l;
        }
        for k in j + 1..d {
            a[j * d + k] = 0.0;
        }
    }
    Some(a.to_vec())
}

#[cfg(test)]
mod tests {
    use super::*;
    use statrs::distribution::{Continuous, StudentsT};

    #[test]
    fn dallaire2014_dpmog_predictive_is_the_1d_student_t() {
        // d = 1, one point x = 0.7: κ_n = 1.1, ν_n = 4, μ_n = 0.7/1.1,
        // Ψ_n = 0.25 + 0.49 − 0.49/1.1, v = 4, scale² = Ψ_n (2.1/1.1)/4.
        let prior = NiwPrior {
            d: 1,
            kappa0: 0.1,
            nu0: 3.0,
            psi0: 0.25,
        };
        let mut st = ClusterStats::empty(1);
        st.update(&[0.7], 1.0);
        let t = prior.predictive(&st, None).expect("pd");
        let psi_n: f64 = 0.25 + 0.49 - 0.49 / 1.1;
        let scale = (psi_n * (2.1 / 1.1) / 4.0).sqrt();
        let reference = StudentsT::new(0.7 / 1.1, scale, 4.0).expect("valid");
        let mut w = [0.0];
        for x in [-2.0, 0.0, 0.3, 1.9] {
            assert!((t.ln_pdf(&[x], &mut w) - reference.ln_pdf(x)).abs() < 1e-12);
        }
    }
}

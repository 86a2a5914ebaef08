//! Every equation of Kurutmaz (2019) that this module uses, in one place.
//!
//! Source: `003_bf1ce321478f8175.txt` (Kurutmaz 2019, MSc thesis, *Bayesian model selection for
//! latent variable causal networks by sequential Monte Carlo*). Equation numbers are the thesis's;
//! "App. X" points at its appendices. The PDF extraction garbles some formulas, so each function
//! states the formula as implemented; where the thesis has a typo it says so.
//!
//! Conventions, checked against the author's stored R = 1 values (`tests/fixtures/cep`, exact to
//! 1e-12 relative):
//! - Gamma(a, b) has shape `a` and **rate** `b` (App. A.1.1): E{ρ} = a/b.
//! - A Normal-Gamma NG(m, Λ, a, b) is ρ ~ Gamma(a, b), w | ρ ~ N(m, (ρΛ)⁻¹): Λ is a *precision
//!   scaling* (App. A.1.6, A.1.7).
//! - Vectors w, φ have dimension M = 2 (basis φ(x) = [1, x], §5.1). A 1-D Normal-Gamma (a variable
//!   without continuous parents, φ({}) = 1, eq. 3.2) is the M = 2 one with φ = [1, 0] and
//!   Λ = λ·I₂: the second coordinate is never informed by data, so it contributes exactly zero to
//!   marginal likelihoods (its det-ratio factor is 1) and to the ELBO (its KL term is 0). This
//!   module uses that embedding to share code; the 1-D forms (App. A.2.2) are provided as well and
//!   tested equal.
//! - Everything is in log space; `ln Γ` is `statrs::function::gamma::ln_gamma`, ψ is
//!   `statrs::function::gamma::digamma`.

use statrs::function::gamma::{digamma, ln_gamma};

/// ln(2π).
pub const LN_2PI: f64 = 1.837_877_066_409_345_5;

/// A symmetric 2 × 2 matrix `[[xx, xy], [xy, yy]]` (a precision Λ or a covariance Λ⁻¹).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Sym2 {
    /// Entry (0, 0).
    pub xx: f64,
    /// Entries (0, 1) = (1, 0).
    pub xy: f64,
    /// Entry (1, 1).
    pub yy: f64,
}

impl Sym2 {
    /// `s · I₂`.
    pub fn scaled_identity(s: f64) -> Self {
        Sym2 {
            xx: s,
            xy: 0.0,
            yy: s,
        }
    }
    /// Determinant.
    pub fn det(&self) -> f64 {
        self.xx * self.yy - self.xy * self.xy
    }
    /// Inverse, or `None` if the determinant is not strictly positive and finite (this module
    /// only inverts positive-definite matrices).
    pub fn inverse(&self) -> Option<Sym2> {
        let d = self.det();
        if d > 0.0 && d.is_finite() {
            Some(Sym2 {
                xx: self.yy / d,
                xy: -self.xy / d,
                yy: self.xx / d,
            })
        } else {
            None
        }
    }
    /// `A v`.
    pub fn mul(&self, v: [f64; 2]) -> [f64; 2] {
        [
            self.xx * v[0] + self.xy * v[1],
            self.xy * v[0] + self.yy * v[1],
        ]
    }
    /// `vᵀ A v`.
    pub fn quad(&self, v: [f64; 2]) -> f64 {
        self.xx * v[0] * v[0] + 2.0 * self.xy * v[0] * v[1] + self.yy * v[1] * v[1]
    }
    /// `tr(A B)` for symmetric A, B.
    pub fn trace_prod(&self, o: &Sym2) -> f64 {
        self.xx * o.xx + 2.0 * self.xy * o.xy + self.yy * o.yy
    }
    /// `A + w · v vᵀ`.
    pub fn add_outer(&self, w: f64, v: [f64; 2]) -> Sym2 {
        Sym2 {
            xx: self.xx + w * v[0] * v[0],
            xy: self.xy + w * v[0] * v[1],
            yy: self.yy + w * v[1] * v[1],
        }
    }
}

fn dot(a: [f64; 2], b: [f64; 2]) -> f64 {
    a[0] * b[0] + a[1] * b[1]
}

/// A Normal-Gamma NG(m, Λ, a, b) over (w ∈ ℝ², ρ > 0): ρ ~ Gamma(a, rate b),
/// w | ρ ~ N(m, (ρΛ)⁻¹). Source: App. A.1.7 (M = 2); eq. 3.4 (prior), §3.2 (posterior).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct NormalGamma {
    /// Mean of w (2-vector).
    pub m: [f64; 2],
    /// Precision scaling Λ (2 × 2, positive definite).
    pub lambda: Sym2,
    /// Gamma shape a > 0.
    pub a: f64,
    /// Gamma rate b > 0.
    pub b: f64,
}

impl NormalGamma {
    /// The prior of eq. 3.4 with m = (m, m), Λ = λ·I₂ (§5.1: m = 0, Λ = I/10).
    pub fn prior(m: f64, lambda: f64, a: f64, b: f64) -> Self {
        NormalGamma {
            m: [m, m],
            lambda: Sym2::scaled_identity(lambda),
            a,
            b,
        }
    }
}

/// The basis of §5.1, φ(x) = [1, x]ᵀ; a variable without continuous parents uses φ = [1, 0]
/// (the module-level embedding of φ({}) = 1).
pub fn basis(parent: Option<f64>) -> [f64; 2] {
    [1.0, parent.unwrap_or(0.0)]
}

/// Weighted sufficient statistics of one variable within one latent class r (§3.2, App. B.1):
/// n = Σ_t ω_t, Σ ω_t φ_t φ_tᵀ, Σ ω_t y_t φ_t, Σ ω_t y_t². Weights ω_t are indicators
/// 1{r_t = r} for the exact posterior, responsibilities E_Q{1{r_t = r}} for VB (§4.2).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SuffStats {
    /// Σ ω_t.
    pub n: f64,
    /// Σ ω_t φ_t φ_tᵀ.
    pub phiphi: Sym2,
    /// Σ ω_t y_t φ_t.
    pub yphi: [f64; 2],
    /// Σ ω_t y_t².
    pub yy: f64,
}

impl Default for SuffStats {
    fn default() -> Self {
        SuffStats {
            n: 0.0,
            phiphi: Sym2 {
                xx: 0.0,
                xy: 0.0,
                yy: 0.0,
            },
            yphi: [0.0; 2],
            yy: 0.0,
        }
    }
}

impl SuffStats {
    /// Add observation (φ, y) with weight ω.
    pub fn add(&mut self, w: f64, phi: [f64; 2], y: f64) {
        self.n += w;
        self.phiphi = self.phiphi.add_outer(w, phi);
        self.yphi[0] += w * y * phi[0];
        self.yphi[1] += w * y * phi[1];
        self.yy += w * y * y;
    }
}

/// Normal-Gamma posterior (§3.2; App. A.2.3 and B.3.1 (ii)); with responsibilities as weights
/// in `s`, also the VB-CN update of (Λ̂, m̂, â, b̂) (§4.2, App. C.2) and, with r*, DEM's Q* (eq. 4.47):
/// Λ* = Λ + Σ φφᵀ, m* = Λ*⁻¹(Λm + Σ yφ), a* = a + n/2,
/// b* = b + ½(mᵀΛm − m*ᵀΛ*m* + Σ y²).
/// (App. A.2.3 writes Σ(xᵗ)² in b*; it must be the response, Σ(yᵗ)², as in §3.2.)
///
/// Errors: `None` if Λ* is not positive definite (cannot happen for Λ ≻ 0 and ω ≥ 0).
pub fn ng_posterior(prior: &NormalGamma, s: &SuffStats) -> Option<NormalGamma> {
    let lam = Sym2 {
        xx: prior.lambda.xx + s.phiphi.xx,
        xy: prior.lambda.xy + s.phiphi.xy,
        yy: prior.lambda.yy + s.phiphi.yy,
    };
    let lm = prior.lambda.mul(prior.m);
    let eta = [lm[0] + s.yphi[0], lm[1] + s.yphi[1]];
    let m = lam.inverse()?.mul(eta);
    let a = prior.a + 0.5 * s.n;
    let b = prior.b + 0.5 * (dot(prior.m, lm) - dot(m, eta) + s.yy);
    Some(NormalGamma {
        m,
        lambda: lam,
        a,
        b,
    })
}

/// 1-D Normal-Gamma posterior (App. A.2.2; App. B.3.1 (ii) for x₁): λ* = λ + n,
/// m* = (λm + Σx)/λ*, a* = a + n/2, b* = b + ½(λm² − λ*m*² + Σx²).
/// Returns (m*, λ*, a*, b*). (The extraction of B.3.1 misplaces the bracket of b*; this is the
/// form that reproduces the author's values.)
pub fn ng1_posterior(
    m: f64,
    lambda: f64,
    a: f64,
    b: f64,
    n: f64,
    sum_x: f64,
    sum_x2: f64,
) -> (f64, f64, f64, f64) {
    let l = lambda + n;
    let ms = (lambda * m + sum_x) / l;
    (
        ms,
        l,
        a + 0.5 * n,
        b + 0.5 * (lambda * m * m - l * ms * ms + sum_x2),
    )
}

/// Log marginal likelihood of the n observations of one Normal-Gamma factor (the per-variable,
/// per-class factor of the marginal in §3.2 / App. B.2, B.3.1 (iii), B.3.2 (iii)):
/// −(n/2) ln 2π + a ln b − a* ln b* + ln Γ(a*) − ln Γ(a) + ½ ln(det Λ / det Λ*).
pub fn ng_log_marginal(prior: &NormalGamma, post: &NormalGamma, n: f64) -> f64 {
    -0.5 * n * LN_2PI + prior.a * prior.b.ln() - post.a * post.b.ln() + ln_gamma(post.a)
        - ln_gamma(prior.a)
        + 0.5 * (prior.lambda.det().ln() - post.lambda.det().ln())
}

/// 1-D version of [`ng_log_marginal`] (App. B.3.2 (iii)): arguments are the prior (λ, a, b) and
/// the posterior (λ*, a*, b*).
#[allow(clippy::too_many_arguments)]
pub fn ng1_log_marginal(
    lambda: f64,
    a: f64,
    b: f64,
    lambda_s: f64,
    a_s: f64,
    b_s: f64,
    n: f64,
) -> f64 {
    -0.5 * n * LN_2PI + a * b.ln() - a_s * b_s.ln() + ln_gamma(a_s) - ln_gamma(a)
        + 0.5 * (lambda / lambda_s).ln()
}

/// Dirichlet-categorical factor of the marginal (§3.2, App. B.3.1 (iii)):
/// ln Γ(Σγ) − ln Γ(Σγ*) + Σ_r [ln Γ(γ*_r) − ln Γ(γ_r)], with γ_r = γ for every r and
/// γ*_r = γ + counts_r.
pub fn dirichlet_categorical_log_marginal(gamma: f64, counts: &[f64]) -> f64 {
    let k = counts.len() as f64;
    let n: f64 = counts.iter().sum();
    let mut s = ln_gamma(k * gamma) - ln_gamma(k * gamma + n);
    for c in counts {
        s += ln_gamma(gamma + c) - ln_gamma(gamma);
    }
    s
}

/// Dirichlet-categorical posterior predictive p(r_t = r | r_{1:t−1}) = (γ + n_r)/(Rγ + t − 1):
/// the ratio of two marginals of the form in §3.2, the categorical part of eqs. 4.9 and 4.16.
/// `n_r`: class count so far; `n_total`: t − 1; `n_classes`: R.
pub fn dirichlet_categorical_log_predictive(
    gamma: f64,
    n_r: f64,
    n_total: f64,
    n_classes: usize,
) -> f64 {
    (gamma + n_r).ln() - (n_classes as f64 * gamma + n_total).ln()
}

/// A Normal-Gamma in *covariance form* for sequential updates: (m, Σ = Λ⁻¹, a, b).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NgCov {
    /// Mean of w.
    pub m: [f64; 2],
    /// Σ = Λ⁻¹.
    pub sigma: Sym2,
    /// Gamma shape.
    pub a: f64,
    /// Gamma rate.
    pub b: f64,
}

impl NgCov {
    /// Covariance form of `ng`; `None` if Λ is not positive definite.
    pub fn from_ng(ng: &NormalGamma) -> Option<NgCov> {
        Some(NgCov {
            m: ng.m,
            sigma: ng.lambda.inverse()?,
            a: ng.a,
            b: ng.b,
        })
    }
}

/// Student-t posterior predictive of a Normal-Gamma linear-basis regression (the factor
/// p(x_n^t | r^{1:t}, x^{1:t−1}) of eq. 4.16, = ratio of two marginals of §3.2):
/// y | φ ~ St(ν = 2a, μ = mᵀφ, s² = (b/a)(1 + φᵀΣφ)), i.e.
/// ln Γ(a + ½) − ln Γ(a) − ½ ln(2π b (1 + φᵀΣφ)) − (a + ½) ln(1 + (y − mᵀφ)² / (2b(1 + φᵀΣφ))).
pub fn student_t_log_predictive(q: &NgCov, phi: [f64; 2], y: f64) -> f64 {
    let s1 = 1.0 + q.sigma.quad(phi);
    let e = y - dot(q.m, phi);
    ln_gamma(q.a + 0.5)
        - ln_gamma(q.a)
        - 0.5 * (LN_2PI + (q.b * s1).ln())
        - (q.a + 0.5) * (e * e / (2.0 * q.b * s1)).ln_1p()
}

/// 1-D Student-t posterior predictive (App. A.2.2 predictive; φ = 1): with posterior
/// (m, λ, a, b): ln Γ(a+½) − ln Γ(a) − ½ ln(2π b (1 + 1/λ)) − (a+½) ln(1 + (x−m)²/(2b(1+1/λ))).
pub fn student_t_log_predictive_1d(m: f64, lambda: f64, a: f64, b: f64, x: f64) -> f64 {
    let s1 = 1.0 + 1.0 / lambda;
    let e = x - m;
    ln_gamma(a + 0.5)
        - ln_gamma(a)
        - 0.5 * (LN_2PI + (b * s1).ln())
        - (a + 0.5) * (e * e / (2.0 * b * s1)).ln_1p()
}

/// Rank-one (Sherman–Morrison) posterior update of a Normal-Gamma regression by one observation
/// (φ, y) — the sequential form of the §3.2 posterior (recursive least squares):
/// g = Σφ, s = φᵀΣφ, e = y − mᵀφ; Σ ← Σ − ggᵀ/(1+s); m ← m + g e/(1+s); a ← a + ½;
/// b ← b + ½ e²/(1+s). O(1) per update; equal to [`ng_posterior`] on the augmented statistics.
pub fn ng_rank_one_update(q: &mut NgCov, phi: [f64; 2], y: f64) {
    let g = q.sigma.mul(phi);
    let s1 = 1.0 + dot(phi, g);
    let e = y - dot(q.m, phi);
    q.sigma = q.sigma.add_outer(-1.0 / s1, g);
    q.m = [q.m[0] + g[0] * e / s1, q.m[1] + g[1] * e / s1];
    q.a += 0.5;
    q.b += 0.5 * e * e / s1;
}

/// The bivariate marginal p(r^{1:T}, x_{1:2}^{1:T}) of App. B.3.1 (iii) (causal) and B.3.2 (iii)
/// (spurious), in log space: the Dirichlet-categorical factor plus, for every class r, one
/// Normal-Gamma factor per observed variable. `stats[v][r]` are the class-r statistics of
/// variable v ∈ {0, 1}; `priors[v]` its prior.
///
/// Errors: `None` if a posterior precision is not positive definite.
pub fn log_joint(
    gamma: f64,
    priors: &[NormalGamma; 2],
    stats: &[Vec<SuffStats>; 2],
) -> Option<f64> {
    let counts: Vec<f64> = stats[0].iter().map(|s| s.n).collect();
    let mut lj = dirichlet_categorical_log_marginal(gamma, &counts);
    for v in 0..2 {
        for s in &stats[v] {
            let post = ng_posterior(&priors[v], s)?;
            lj += ng_log_marginal(&priors[v], &post, s.n);
        }
    }
    Some(lj)
}

// Eqs. 4.8–4.9 (the filtering proposal q_t(r) ∝ exp ℓ_r) and 4.15–4.16 (the incremental weight
// ln ν^t = ln Σ_r exp ℓ_r) are computed in max-shifted form, per particle, inside the SMC engine
// (`samplers/smc.rs`, `Engine`), from the table-driven predictives of `samplers/particles.rs`.

/// Gamma expected sufficient statistics (eqs. 4.28–4.29; App. A.1.1 (iii)):
/// (E{ρ}, E{ln ρ}) = (a/b, ψ(a) − ln b).
pub fn gamma_expectations(a: f64, b: f64) -> (f64, f64) {
    (a / b, digamma(a) - b.ln())
}

/// Dirichlet expected log-probabilities (eq. 4.30; App. A.1.2 (iii)):
/// E{ln θ_r} = ψ(γ̂_r) − ψ(Σ γ̂). Writes into `out` (same length as `gamma_hat`).
pub fn dirichlet_expected_log(gamma_hat: &[f64], out: &mut [f64]) {
    let s = digamma(gamma_hat.iter().sum());
    for (o, g) in out.iter_mut().zip(gamma_hat) {
        *o = digamma(*g) - s;
    }
}

/// A Normal-Gamma factor with the expectations VB-CN and DEM-CN need: its mean m̂, Λ̂⁻¹, and
/// (E{ρ}, E{ln ρ}) of eqs. 4.28–4.29.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NgMoments {
    /// m̂.
    pub m: [f64; 2],
    /// Λ̂⁻¹.
    pub sigma: Sym2,
    /// E{ρ} = â/b̂ (eq. 4.29).
    pub e_rho: f64,
    /// E{ln ρ} = ψ(â) − ln b̂ (eq. 4.28).
    pub e_log_rho: f64,
}

impl NgMoments {
    /// Moments of `q`; `None` if Λ̂ is not positive definite.
    pub fn of(q: &NormalGamma) -> Option<NgMoments> {
        let (e_rho, e_log_rho) = gamma_expectations(q.a, q.b);
        Some(NgMoments {
            m: q.m,
            sigma: q.lambda.inverse()?,
            e_rho,
            e_log_rho,
        })
    }
}

/// Expected Gaussian log-likelihood of one observation (φ, y) under a Normal-Gamma factor
/// (eq. 4.33 (i); App. C.3; the per-variable term of ln θ̂ᵗ in §4.2 and of the DEM score after
/// eq. 4.48): ½(E{ln ρ} − ln 2π) − ½ E{ρ}(y − m̂ᵀφ)² − ½ φᵀΛ̂⁻¹φ.
pub fn expected_log_lik(q: &NgMoments, phi: [f64; 2], y: f64) -> f64 {
    let e = y - dot(q.m, phi);
    0.5 * (q.e_log_rho - LN_2PI) - 0.5 * q.e_rho * e * e - 0.5 * q.sigma.quad(phi)
}

/// VB-CN class log-weight (§4.2, "ln θ̂ᵗ(r)"; App. C.2) up to the normaliser over r:
/// ln θ̂ᵗ(r) =⁺ E{ln θ_r} + Σ_n E{ln N(x_n^t; w_{n|r}ᵀφ(x_{π(n)}^t), ρ_{n|r}⁻¹)}, the
/// expectations under the current q(θ) q(w, ρ). `v[n] = (moments of class r's factor, φ, x_n^t)`.
pub fn vb_log_theta_hat(e_log_theta_r: f64, v: [(&NgMoments, [f64; 2], f64); 2]) -> f64 {
    e_log_theta_r
        + v.iter()
            .map(|(q, phi, y)| expected_log_lik(q, *phi, *y))
            .sum::<f64>()
}

/// DEM-CN per-observation score (closed form after eq. 4.48; Fig. 4.6):
/// E_{Q*}{ln p(r_t = r, x^t | θ, ρ, w)} = E{ln θ_r} + Σ_n E{ln N(x_n^t; w_{n|r}ᵀφ, ρ_{n|r}⁻¹)} —
/// the expression of [`vb_log_theta_hat`] with Q* the *exact* posterior given r* (eq. 4.47).
/// (The −½ ln 2π per variable is common to all r and does not change the argmax of eq. 4.48.)
pub fn dem_score(e_log_theta_r: f64, v: [(&NgMoments, [f64; 2], f64); 2]) -> f64 {
    vb_log_theta_hat(e_log_theta_r, v)
}

/// Dirichlet posterior / variational parameter (§3.2, App. A.2.1; VB update of §4.2):
/// γ*_r = γ + Σ_t ω_t,r with ω indicators (exact) or responsibilities (VB).
pub fn dirichlet_posterior(gamma: f64, counts: &[f64]) -> Vec<f64> {
    counts.iter().map(|c| gamma + c).collect()
}

// The negative entropy of q(r^{1:T}) (eq. 4.34 (ii), Σ_t Σ_r θ̂ᵗ_r ln θ̂ᵗ_r) is accumulated in
// the responsibilities update of `samplers/vb.rs` (`update_resp`).

/// Expected categorical log-likelihood (eq. 4.34 (ii)): Σ_r θ̂_r E{ln θ_r}.
pub fn expected_log_categorical(theta_hat: &[f64], e_log_theta: &[f64]) -> f64 {
    theta_hat
        .iter()
        .zip(e_log_theta)
        .map(|(p, l)| if *p > 0.0 { p * l } else { 0.0 })
        .sum()
}

/// Dirichlet negative cross-entropy E_q{ln Dir(θ; γ)} (eq. 4.35 (iii); App. A.1.2 (iv)):
/// ln Γ(Σγ) − Σ ln Γ(γ_r) + Σ (γ_r − 1) E{ln θ_r}. Use `gamma = γ̂` for the negative entropy.
pub fn dirichlet_neg_cross_entropy(gamma: &[f64], e_log_theta: &[f64]) -> f64 {
    let mut s = ln_gamma(gamma.iter().sum());
    for (g, l) in gamma.iter().zip(e_log_theta) {
        s += -ln_gamma(*g) + (g - 1.0) * l;
    }
    s
}

/// Normal-Gamma negative cross-entropy E_q{ln NG(w, ρ; m, Λ, a, b)} under q = NG(m̂, Λ̂, â, b̂)
/// (eq. 4.36 (iv); App. A.1.7 (iii)), M = 2:
/// a ln b − ln Γ(a) + ½ ln det Λ − ½ tr(Λ̂⁻¹Λ) − (M/2) ln 2π + (a + M/2 − 1) E{ln ρ} − b E{ρ}
/// − ½ E{ρ} (m̂ − m)ᵀ Λ (m̂ − m).
pub fn ng_neg_cross_entropy(p: &NormalGamma, q: &NormalGamma) -> Option<f64> {
    let qs = q.lambda.inverse()?;
    let (e_rho, e_log_rho) = gamma_expectations(q.a, q.b);
    let d = [q.m[0] - p.m[0], q.m[1] - p.m[1]];
    Some(
        p.a * p.b.ln() - ln_gamma(p.a) + 0.5 * p.lambda.det().ln()
            - 0.5 * qs.trace_prod(&p.lambda)
            - LN_2PI
            + p.a * e_log_rho
            - p.b * e_rho
            - 0.5 * e_rho * p.lambda.quad(d),
    )
}

/// Normal-Gamma negative entropy E_q{ln q(w, ρ)} (eq. 4.36 (iv); App. A.1.7), M = 2:
/// â ln b̂ − ln Γ(â) + ½ ln det Λ̂ − M/2 − (M/2) ln 2π + (â + M/2 − 1) E{ln ρ} − b̂ E{ρ}.
pub fn ng_neg_entropy(q: &NormalGamma) -> f64 {
    let (e_rho, e_log_rho) = gamma_expectations(q.a, q.b);
    q.a * q.b.ln() - ln_gamma(q.a) + 0.5 * q.lambda.det().ln() - 1.0 - LN_2PI + q.a * e_log_rho
        - q.b * e_rho
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_d_embedding_matches_1d_forms() {
        let xs = [0.3, -1.2, 2.5, 0.1];
        let (m, lam, a, b) = (0.2, 0.1, 3.0, 2.0);
        let mut s = SuffStats::default();
        for x in xs {
            s.add(1.0, basis(None), x);
        }
        let p = NormalGamma::prior(m, lam, a, b);
        let post = ng_posterior(&p, &s).unwrap();
        let (m1, l1, a1, b1) = ng1_posterior(
            m,
            lam,
            a,
            b,
            4.0,
            xs.iter().sum(),
            xs.iter().map(|x| x * x).sum(),
        );
        assert!(
            (post.m[0] - m1).abs() < 1e-12
                && (post.a - a1).abs() < 1e-12
                && (post.b - b1).abs() < 1e-12
        );
        let lm = ng_log_marginal(&p, &post, 4.0);
        let lm1 = ng1_log_marginal(lam, a, b, l1, a1, b1, 4.0);
        assert!((lm - lm1).abs() < 1e-12, "{lm} {lm1}");
        // Sequential predictive = marginal (chain rule), via rank-one updates.
        let mut q = NgCov::from_ng(&p).unwrap();
        let mut acc = 0.0;
        let (mut mm, mut ll, mut aa, mut bb) = (m, lam, a, b);
        for x in xs {
            let t2 = student_t_log_predictive(&q, basis(None), x);
            let t1 = student_t_log_predictive_1d(mm, ll, aa, bb, x);
            assert!((t1 - t2).abs() < 1e-12);
            acc += t2;
            ng_rank_one_update(&mut q, basis(None), x);
            (mm, ll, aa, bb) = ng1_posterior(mm, ll, aa, bb, 1.0, x, x * x);
        }
        assert!((acc - lm).abs() < 1e-10, "{acc} {lm}");
    }

    #[test]
    fn regression_chain_rule() {
        let pts = [(0.5, 1.0), (-1.0, -0.7), (2.0, 2.2), (0.0, 0.4), (1.5, 0.9)];
        let p = NormalGamma::prior(0.0, 0.1, 2.0, 1.5);
        let mut s = SuffStats::default();
        let mut q = NgCov::from_ng(&p).unwrap();
        let mut acc = 0.0;
        for (x, y) in pts {
            acc += student_t_log_predictive(&q, basis(Some(x)), y);
            ng_rank_one_update(&mut q, basis(Some(x)), y);
            s.add(1.0, basis(Some(x)), y);
        }
        let post = ng_posterior(&p, &s).unwrap();
        assert!((acc - ng_log_marginal(&p, &post, 5.0)).abs() < 1e-10);
        let pc = NgCov::from_ng(&post).unwrap();
        assert!(
            (pc.b - q.b).abs() < 1e-10
                && (pc.m[1] - q.m[1]).abs() < 1e-10
                && (pc.sigma.xy - q.sigma.xy).abs() < 1e-12
        );
    }

    #[test]
    fn dirichlet_chain_rule() {
        let rs = [0usize, 1, 1, 2, 0, 1];
        let mut counts = [0.0; 3];
        let mut acc = 0.0;
        for (t, r) in rs.iter().enumerate() {
            acc += dirichlet_categorical_log_predictive(10.0, counts[*r], t as f64, 3);
            counts[*r] += 1.0;
        }
        assert!((acc - dirichlet_categorical_log_marginal(10.0, &counts)).abs() < 1e-12);
    }
}

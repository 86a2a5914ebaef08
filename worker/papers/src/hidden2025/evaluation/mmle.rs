//! Maximum marginal likelihood estimation of π̃_j = t_j / β_j for a fixed β_j (paper
//! `002_d97ecc788b964f97.txt`, supplement G, eqs 19–21), polars-free.
//!
//! For a node j with parent set Pa(j), cell counts n_{c,x} over the occupied parent configurations
//! c and a fixed concentration β > 0, eq 19 is the negative log marginal likelihood of the prior
//! mean ω ∈ C_k (the probability simplex) as the supplement prints it:
//!
//! g(ω) = −Σ_c Σ_x [lnΓ(n_{c,x} + β ω(x)) − lnΓ(β ω(x))]
//!
//! (eq 7 at t = β ω without its terms lnΓ(β) − lnΓ(β + n_c), which do not depend on ω; cells
//! with n_{c,x} = 0 and empty configurations contribute exactly 0). Its gradient is eq 20 (whose
//! "x_2" means x_j):
//!
//! ∂g/∂ω(x) = −β Σ_c [ψ(n_{c,x} + β ω(x)) − ψ(β ω(x))],
//!
//! and its Hessian is diagonal (eq 22), so g is convex, strictly so when every category has a
//! count (Proposition 1). [`mmle`] minimises g over the simplex by projected gradient descent:
//! ω ← proj(ω − η ∇g(ω)) with the Euclidean projection of Chen & Ye (2011)
//! ([`project_simplex`]); η starts at 1 / max_x ∂²g/∂ω(x)² and at each iteration is doubled
//! and then halved until the projected point stays inside the simplex (ω(x) > 0 on the support,
//! where g is finite), satisfies the sufficient-decrease condition g(ω⁺) ≤ g(ω) + ∇g·d +
//! ‖d‖²/(2η) (d = ω⁺ − ω) and the matching curvature condition (∇g(ω⁺) − ∇g(ω))·d ≤ ‖d‖²/η.
//! The second condition is what keeps η below the inverse local curvature once the objective's
//! decrease is below its rounding error, so the iteration converges to the last digits. It
//! stops when the KKT residual, the spread max_x − min_x of ∂g/∂ω(x) over the support (at an
//! interior optimum every partial derivative equals the Lagrange multiplier of Σω = 1), is below
//! [`KKT_TOLERANCE`] = 1e-10.
//!
//! **Unobserved categories.** A category with no count in any configuration does not enter g;
//! every other partial derivative is negative, so the minimum over the simplex puts ω(x) = 0 on
//! it (the KKT condition ∂g/∂ω(x) = 0 ≥ the multiplier holds there). [`mmle`] fixes those
//! categories at 0 and optimises over the others (the support); with one category in the support
//! π̃ is that vertex.
//!
//! **β rules (G.2).** [`BetaRule`]: Perks β = 1, Jeffreys β = k_j/2, Bayes–Laplace β = k_j, or a
//! number. Eq 21 ([`shrinkage_predictive`]) is the predictive PMF
//! λ π̃(x) + (1 − λ) n_{c,x}/n_c with λ = β / (β + n_c), the James–Stein-type shrinkage of the
//! cell MLE towards π̃ (for an empty configuration, λ = 1: π̃).

use serde::{Deserialize, Serialize};
use statrs::function::gamma::{digamma, ln_gamma};

use super::EvalError;
use crate::hidden2025::datasets::ParentTable;
use crate::hidden2025::equations::trigamma;

/// The stopping tolerance on the KKT residual.
pub const KKT_TOLERANCE: f64 = 1e-10;
/// The most projected-gradient iterations before [`mmle`] gives up (reporting `converged:
/// false` and the residual reached).
pub const MAX_ITERATIONS: usize = 100_000;
/// The most step halvings within one iteration.
const MAX_HALVINGS: usize = 200;

/// How β_j is chosen (supplement G.2, after Hausser & Strimmer 2009).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum BetaRule {
    /// Perks: β_j = 1.
    Perks,
    /// Jeffreys: β_j = k_j / 2.
    Jeffreys,
    /// Bayes–Laplace (uniform): β_j = k_j.
    Laplace,
    /// A fixed β_j > 0.
    Number(f64),
}

impl BetaRule {
    /// β_j for a node with `k` categories.
    pub fn beta(&self, k: usize) -> f64 {
        match self {
            BetaRule::Perks => 1.0,
            BetaRule::Jeffreys => k as f64 / 2.0,
            BetaRule::Laplace => k as f64,
            BetaRule::Number(b) => *b,
        }
    }

    /// The rule as written in the YAML (`perks`, `jeffreys`, `laplace` or the number).
    pub fn label(&self) -> String {
        match self {
            BetaRule::Perks => "perks".into(),
            BetaRule::Jeffreys => "jeffreys".into(),
            BetaRule::Laplace => "laplace".into(),
            BetaRule::Number(b) => b.to_string(),
        }
    }
}

impl Serialize for BetaRule {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            BetaRule::Number(b) => s.serialize_f64(*b),
            other => s.serialize_str(&other.label()),
        }
    }
}

impl<'de> Deserialize<'de> for BetaRule {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Raw {
            Number(f64),
            Text(String),
        }
        match Raw::deserialize(d)? {
            Raw::Number(b) if b > 0.0 && b.is_finite() => Ok(BetaRule::Number(b)),
            Raw::Number(b) => Err(serde::de::Error::custom(format!(
                "beta = {b}: a number must be > 0 and finite"
            ))),
            Raw::Text(t) => match t.trim() {
                "perks" => Ok(BetaRule::Perks),
                "jeffreys" => Ok(BetaRule::Jeffreys),
                "laplace" => Ok(BetaRule::Laplace),
                other => Err(serde::de::Error::custom(format!(
                    "unknown beta rule `{other}`: allowed values are perks, jeffreys, laplace or a number > 0"
                ))),
            },
        }
    }
}

/// Deliberately broken estimators, for the negative-control tests only (feature `testing`; see
/// `causeway_papers::testing` for the convention).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Defect {
    /// Eq 20 without its second term: ∂g/∂ω(x) = −β Σ_c ψ(n_{c,x} + β ω(x)) (the −ψ(β ω(x)) of
    /// the prior's normalising constant forgotten).
    GradientWithoutPriorDigamma,
}

/// The result of [`mmle`].
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Mmle {
    /// β_j used.
    pub beta: f64,
    /// π̃_j, k_j values on the simplex (0 on unobserved categories).
    pub pi_tilde: Vec<f64>,
    /// g(π̃) of eq 19 as printed.
    pub objective: f64,
    /// ∇g(π̃), eq 20 (0 on unobserved categories).
    pub gradient: Vec<f64>,
    /// The spread of ∇g(π̃) over the support.
    pub kkt_residual: f64,
    /// Projected-gradient iterations made.
    pub iterations: usize,
    /// Whether the KKT residual fell below the tolerance.
    pub converged: bool,
}

/// Eq 19 as printed: g(ω) = −Σ_c Σ_x [lnΓ(n_{c,x} + βω(x)) − lnΓ(βω(x))] over the occupied
/// configurations and the cells with n_{c,x} > 0. `+inf` if ω(x) ≤ 0 where a cell of x has a
/// count. `omega` has length `table.k`.
pub fn objective(table: &ParentTable, beta: f64, omega: &[f64]) -> f64 {
    let k = table.k;
    let mut lg = vec![f64::NAN; k];
    let mut total = 0.0;
    for c in 0..table.occupied() {
        for (x, &n) in table.row(c).iter().enumerate() {
            if n == 0 {
                continue;
            }
            let a = beta * omega[x];
            if a.is_nan() || a <= 0.0 {
                return f64::INFINITY;
            }
            if lg[x].is_nan() {
                lg[x] = ln_gamma(a);
            }
            total -= ln_gamma(n as f64 + a) - lg[x];
        }
    }
    total
}

/// Eq 20: ∂g/∂ω(x) = −β Σ_c [ψ(n_{c,x} + βω(x)) − ψ(βω(x))] over the cells with n_{c,x} > 0
/// (0 for a category without counts). `omega(x)` > 0 where x has a count.
pub fn gradient(table: &ParentTable, beta: f64, omega: &[f64]) -> Vec<f64> {
    gradient_impl(table, beta, omega, None)
}

fn gradient_impl(
    table: &ParentTable,
    beta: f64,
    omega: &[f64],
    defect: Option<Defect>,
) -> Vec<f64> {
    let k = table.k;
    let psi: Vec<f64> = omega
        .iter()
        .map(|&w| match defect {
            Some(Defect::GradientWithoutPriorDigamma) => 0.0,
            None if w > 0.0 => digamma(beta * w),
            None => f64::NAN,
        })
        .collect();
    let mut g = vec![0.0; k];
    for c in 0..table.occupied() {
        for (x, &n) in table.row(c).iter().enumerate() {
            if n > 0 {
                g[x] -= beta * (digamma(n as f64 + beta * omega[x]) - psi[x]);
            }
        }
    }
    g
}

/// The diagonal of the Hessian (eq 22): β² Σ_c [ψ₁(βω(x)) − ψ₁(n_{c,x} + βω(x))], ≥ 0.
pub fn hessian_diagonal(table: &ParentTable, beta: f64, omega: &[f64]) -> Vec<f64> {
    let mut h = vec![0.0; table.k];
    for c in 0..table.occupied() {
        for (x, &n) in table.row(c).iter().enumerate() {
            if n > 0 {
                let a = beta * omega[x];
                h[x] += beta * beta * (trigamma(a) - trigamma(n as f64 + a));
            }
        }
    }
    h
}

/// The KKT residual of eq 20's stationarity on the simplex: max − min of `gradient` over the
/// positions where `support` is true (0 for fewer than two).
pub fn kkt_residual(gradient: &[f64], support: &[bool]) -> f64 {
    let (lo, hi) = gradient
        .iter()
        .zip(support)
        .filter(|(_, s)| **s)
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), (&g, _)| {
            (lo.min(g), hi.max(g))
        });
    if hi >= lo { hi - lo } else { 0.0 }
}

/// The Euclidean projection of `y` onto the probability simplex {x ≥ 0, Σx = 1} (Chen & Ye 2011,
/// "Projection onto a simplex", Algorithm 1): sort y ascending; for i = n−1 down to 1 let
/// t_i = (Σ_{j>i} y_(j) − 1)/(n − i) and stop at the first t_i ≥ y_(i); if none, t = (Σy − 1)/n;
/// x = max(y − t, 0). `y` non-empty and finite.
pub fn project_simplex(y: &[f64]) -> Vec<f64> {
    let n = y.len();
    let mut s = y.to_vec();
    s.sort_by(f64::total_cmp);
    let mut tail = 0.0;
    let mut t_hat = None;
    for i in (1..n).rev() {
        tail += s[i];
        let t = (tail - 1.0) / (n - i) as f64;
        if t >= s[i - 1] {
            t_hat = Some(t);
            break;
        }
    }
    let t = t_hat.unwrap_or_else(|| (s.iter().sum::<f64>() - 1.0) / n as f64);
    y.iter().map(|&v| (v - t).max(0.0)).collect()
}

/// The MMLE π̃_j = argmin_{ω ∈ C_k} g(ω) of `table` for concentration `beta` by projected gradient
/// descent (module docs). Errors: β not > 0 and finite, or a table without observations.
pub fn mmle(table: &ParentTable, beta: f64) -> Result<Mmle, EvalError> {
    mmle_impl(table, beta, None)
}

/// [`mmle`] with a deliberate [`Defect`] (negative controls; feature `testing`).
#[cfg(feature = "testing")]
pub fn mmle_with_defect(
    table: &ParentTable,
    beta: f64,
    defect: impl Into<Option<Defect>>,
) -> Result<Mmle, EvalError> {
    mmle_impl(table, beta, defect.into())
}

fn mmle_impl(table: &ParentTable, beta: f64, defect: Option<Defect>) -> Result<Mmle, EvalError> {
    if !(beta > 0.0 && beta.is_finite()) {
        return Err(EvalError::Invalid(format!(
            "MMLE: beta = {beta} must be > 0 and finite"
        )));
    }
    let k = table.k;
    let mut support = vec![false; k];
    for c in 0..table.occupied() {
        for (x, &n) in table.row(c).iter().enumerate() {
            support[x] |= n > 0;
        }
    }
    let m = support.iter().filter(|&&s| s).count();
    if m == 0 {
        return Err(EvalError::Invalid(
            "MMLE: the table has no observations".into(),
        ));
    }
    let mut w: Vec<f64> = support
        .iter()
        .map(|&s| if s { 1.0 / m as f64 } else { 0.0 })
        .collect();
    let mut g = objective(table, beta, &w);
    let mut grad = gradient_impl(table, beta, &w, defect);
    let h_max = hessian_diagonal(table, beta, &w)
        .iter()
        .fold(0.0f64, |a, &b| a.max(b));
    let mut eta = if h_max > 0.0 { 1.0 / h_max } else { 1.0 };
    let mut iterations = 0;
    let mut residual = kkt_residual(&grad, &support);
    while residual >= KKT_TOLERANCE && iterations < MAX_ITERATIONS && m > 1 {
        eta *= 2.0;
        let mut accepted = None;
        for _ in 0..MAX_HALVINGS {
            let z: Vec<f64> = (0..k)
                .filter(|&x| support[x])
                .map(|x| w[x] - eta * grad[x])
                .collect();
            let p = project_simplex(&z);
            let mut next = vec![0.0; k];
            for (x, v) in (0..k).filter(|&x| support[x]).zip(p) {
                next[x] = v;
            }
            if (0..k).any(|x| support[x] && next[x] <= 0.0) {
                eta *= 0.5;
                continue;
            }
            let g_next = objective(table, beta, &next);
            let grad_next = gradient_impl(table, beta, &next, defect);
            let d: Vec<f64> = next.iter().zip(&w).map(|(a, b)| a - b).collect();
            let dd: f64 = d.iter().map(|v| v * v).sum();
            let lin: f64 = grad.iter().zip(&d).map(|(a, b)| a * b).sum();
            let curv: f64 = grad_next
                .iter()
                .zip(&grad)
                .zip(&d)
                .map(|((a, b), c)| (a - b) * c)
                .sum();
            // Rounding slack of the objective comparison: a few ulps of the terms summed.
            let slack = 64.0 * f64::EPSILON * (g.abs() + 1.0);
            if g_next.is_finite()
                && g_next <= g + lin + dd / (2.0 * eta) + slack
                && curv <= dd / eta
            {
                accepted = Some((next, g_next, grad_next));
                break;
            }
            eta *= 0.5;
        }
        let Some((next, g_next, grad_next)) = accepted else {
            break;
        };
        w = next;
        g = g_next;
        grad = grad_next;
        iterations += 1;
        residual = kkt_residual(&grad, &support);
    }
    Ok(Mmle {
        beta,
        objective: g,
        kkt_residual: residual,
        converged: residual < KKT_TOLERANCE,
        gradient: grad,
        pi_tilde: w,
        iterations,
    })
}

/// Eq 21 for each occupied configuration of `table` (rows in `table.configs` order, row-major ×
/// k_j): λ_c π̃(x) + (1 − λ_c) n_{c,x}/n_c with λ_c = β / (β + n_c).
pub fn shrinkage_predictive(table: &ParentTable, pi_tilde: &[f64], beta: f64) -> Vec<f64> {
    let k = table.k;
    let mut out = Vec::with_capacity(table.occupied() * k);
    for (c, &n_c) in table.totals.iter().enumerate() {
        let n_c = n_c as f64;
        let lambda = beta / (beta + n_c);
        for (x, &n) in table.row(c).iter().enumerate() {
            out.push(lambda * pi_tilde[x] + (1.0 - lambda) * n as f64 / n_c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn projection_matches_hand_values() {
        // Already on the simplex: unchanged.
        let p = project_simplex(&[0.2, 0.3, 0.5]);
        assert!(
            p.iter()
                .zip([0.2, 0.3, 0.5])
                .all(|(a, b)| (a - b).abs() < 1e-15)
        );
        // (1, 1) → (0.5, 0.5); (2, 0) → (1, 0); (0.5, 0.5, -1) → (0.5, 0.5, 0).
        assert_eq!(project_simplex(&[1.0, 1.0]), vec![0.5, 0.5]);
        assert_eq!(project_simplex(&[2.0, 0.0]), vec![1.0, 0.0]);
        assert_eq!(project_simplex(&[0.5, 0.5, -1.0]), vec![0.5, 0.5, 0.0]);
        // (0.8, 0.6, 0.1): t = 0.2 → (0.6, 0.4, 0).
        let p = project_simplex(&[0.8, 0.6, 0.1]);
        assert!((p[0] - 0.6).abs() < 1e-15 && (p[1] - 0.4).abs() < 1e-15 && p[2] == 0.0);
    }

    #[test]
    fn beta_rules() {
        assert_eq!(BetaRule::Perks.beta(3), 1.0);
        assert_eq!(BetaRule::Jeffreys.beta(3), 1.5);
        assert_eq!(BetaRule::Laplace.beta(3), 3.0);
        let r: BetaRule = serde_json::from_value(serde_json::json!("jeffreys")).expect("rule");
        assert_eq!(r, BetaRule::Jeffreys);
        let r: BetaRule = serde_json::from_value(serde_json::json!(2.5)).expect("number");
        assert_eq!(r.beta(7), 2.5);
        assert!(serde_json::from_value::<BetaRule>(serde_json::json!(0.0)).is_err());
        assert!(serde_json::from_value::<BetaRule>(serde_json::json!("uniform")).is_err());
    }
}

//! Every equation of HiDDeN (`002_d97ecc788b964f97.txt`), in log space, under its number.
//!
//! Notation (§2.2–§3): node j with k_j categories and parent set Pa(j); for an occupied parent
//! configuration c, n_{c,x} is the cell count of category x and n_c = Σ_x n_{c,x} (a
//! [`ParentTable`] row and total); t_j ∈ (0, ∞)^{k_j} the latent prior means, β_j = Σ_x t_j(x).
//! Empty configurations never appear: each of their factors in eqs 7–10 is exactly 1 (log 0), so
//! every sum below runs over the occupied configurations of the table only.

use serde::{Deserialize, Serialize};
use statrs::function::gamma::{digamma, ln_gamma};

use super::datasets::ParentTable;

/// ρ_j of eq 5, as given in the YAML: a number, `k` (ρ_j = k_j: Gamma shape 1, the authors' code
/// and the default) or `k+1` (ρ_j = k_j + 1: the supplement's LUCAS/ALARM/METABRIC value).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub enum Rho {
    /// A fixed ρ_j > 0.
    Number(f64),
    /// ρ_j = k_j.
    #[default]
    K,
    /// ρ_j = k_j + 1.
    KPlusOne,
}

impl Rho {
    /// ρ_j for a node with `k` categories.
    pub fn value(&self, k: usize) -> f64 {
        match self {
            Rho::Number(r) => *r,
            Rho::K => k as f64,
            Rho::KPlusOne => k as f64 + 1.0,
        }
    }

    /// The Gamma shape ρ_j / k_j of eq 5.
    pub fn shape(&self, k: usize) -> f64 {
        self.value(k) / k as f64
    }
}

impl Serialize for Rho {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Rho::Number(r) => s.serialize_f64(*r),
            Rho::K => s.serialize_str("k"),
            Rho::KPlusOne => s.serialize_str("k+1"),
        }
    }
}

impl<'de> Deserialize<'de> for Rho {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Raw {
            Number(f64),
            Text(String),
        }
        match Raw::deserialize(d)? {
            Raw::Number(r) => Ok(Rho::Number(r)),
            Raw::Text(t) => match t.trim() {
                "k" => Ok(Rho::K),
                "k+1" | "k + 1" => Ok(Rho::KPlusOne),
                other => Err(serde::de::Error::custom(format!(
                    "unknown rho `{other}`: allowed values are a number > 0, \"k\" or \"k+1\""
                ))),
            },
        }
    }
}

/// Eq 5: log p(t_j) = Σ_x log Gamma(t_j(x); shape ρ_j/k_j, rate b_j), normalised.
/// `-inf` if some t_j(x) ≤ 0.
pub fn log_prior_t(t: &[f64], shape: f64, rate: f64) -> f64 {
    let norm = shape * rate.ln() - ln_gamma(shape);
    t.iter()
        .map(|&x| {
            if x > 0.0 {
                norm + (shape - 1.0) * x.ln() - rate * x
            } else {
                f64::NEG_INFINITY
            }
        })
        .sum()
}

/// Eq 7: log f(n_{j|Pa} | n_Pa, t_j) = Σ_{occupied c} [lnΓ(β) − lnΓ(β + n_c) + Σ_x (lnΓ(t_x +
/// n_{c,x}) − lnΓ(t_x))], with β = Σ t. Cells with n_{c,x} = 0 contribute 0 and are skipped.
/// `t` has length `table.k`, all > 0.
pub fn log_marginal_likelihood(table: &ParentTable, t: &[f64]) -> f64 {
    let beta: f64 = t.iter().sum();
    let lg_beta = ln_gamma(beta);
    let lg_t: Vec<f64> = t.iter().map(|&x| ln_gamma(x)).collect();
    let mut total = 0.0;
    for (c, &n_c) in table.totals.iter().enumerate() {
        total += lg_beta - ln_gamma(beta + n_c as f64);
        for (x, &n) in table.row(c).iter().enumerate() {
            if n > 0 {
                total += ln_gamma(t[x] + n as f64) - lg_t[x];
            }
        }
    }
    total
}

/// Eq 6 / the summand of eq 14 for one parent configuration with cell counts `counts` (length
/// k_j; all zeros for an empty configuration): P(x_new = x) = (t_x + n_{c,x}) / (β + n_c).
pub fn predictive(t: &[f64], counts: &[u32]) -> Vec<f64> {
    let beta: f64 = t.iter().sum();
    let n: f64 = counts.iter().map(|&c| c as f64).sum();
    t.iter()
        .zip(counts)
        .map(|(&tx, &c)| (tx + c as f64) / (beta + n))
        .collect()
}

/// The log of eq 9's density h_{j,x}(t) of one category x given the auxiliary variables u_j,
/// reduced to what it depends on: since occupied configurations with n_{c,x} = 0 contribute
/// t·log u_c only, and empty ones nothing,
/// log h(t) = −b t + (ρ/k − 1) log t + t Σ_c log u_c + Σ_{c: n_{c,x}>0} [lnΓ(n_{c,x} + t) − lnΓ(t)].
#[derive(Debug, Clone, PartialEq)]
pub struct HConditional {
    /// The non-zero cell counts n_{c,x} of category x over the occupied configurations.
    pub counts: Vec<u32>,
    /// Σ_c log u_j(c) over the occupied configurations (≤ 0).
    pub sum_log_u: f64,
    /// Gamma shape ρ_j/k_j of eq 5.
    pub shape: f64,
    /// Gamma rate b_j of eq 5.
    pub rate: f64,
}

impl HConditional {
    /// Build h_{j,x} from a table's category `x` and log u per occupied configuration
    /// (`log_u.len() == table.occupied()`).
    pub fn new(table: &ParentTable, x: usize, log_u: &[f64], shape: f64, rate: f64) -> Self {
        let counts = (0..table.occupied())
            .map(|c| table.row(c)[x])
            .filter(|&n| n > 0)
            .collect();
        HConditional {
            counts,
            sum_log_u: log_u.iter().sum(),
            shape,
            rate,
        }
    }

    /// Eq 9, unnormalised log density at t; `-inf` for t ≤ 0.
    pub fn log_h(&self, t: f64) -> f64 {
        if t <= 0.0 || t.is_nan() {
            return f64::NEG_INFINITY;
        }
        let lg_t = ln_gamma(t);
        let cells: f64 = self
            .counts
            .iter()
            .map(|&n| ln_gamma(n as f64 + t) - lg_t)
            .sum();
        -self.rate * t + (self.shape - 1.0) * t.ln() + t * self.sum_log_u + cells
    }

    /// Eq 10: d log h / dt = −b + (ρ/k − 1)/t + Σ_c [ψ(n_{c,x} + t) − ψ(t) + log u_c] (t > 0).
    pub fn grad_log_h(&self, t: f64) -> f64 {
        let psi_t = digamma(t);
        let cells: f64 = self
            .counts
            .iter()
            .map(|&n| digamma(n as f64 + t) - psi_t)
            .sum();
        -self.rate + (self.shape - 1.0) / t + self.sum_log_u + cells
    }
}

/// Eq 12: the mean of the Langevin proposal from t, t + ε²/2 · d log h(t)/dt.
pub fn mala_proposal_mean(t: f64, grad: f64, eps: f64) -> f64 {
    t + 0.5 * eps * eps * grad
}

/// Supplement B's proposal density ψ(to; from) = φ(to; from + ε²/2 ∇log h(from), ε²), in log,
/// with `mean` = [`mala_proposal_mean`] of `from`.
pub fn log_proposal_density(to: f64, mean: f64, eps: f64) -> f64 {
    let z = (to - mean) / eps;
    -0.5 * z * z - eps.ln() - 0.5 * (2.0 * std::f64::consts::PI).ln()
}

/// Eq 13 with γ_j integrated out: (log w0, log w1) for z_{j'j} given the other indicators
/// (`ones`, `zeros` among Ca(j)∖{j'}) and the eq 7 values without and with j' in the parent set.
pub fn edge_log_weights(
    c: f64,
    d: f64,
    ones: usize,
    zeros: usize,
    lml_without: f64,
    lml_with: f64,
) -> (f64, f64) {
    (
        (d + zeros as f64).ln() + lml_without,
        (c + ones as f64).ln() + lml_with,
    )
}

/// The beta-binomial prior of the indicators z_j (γ_j ~ Beta(c, d) integrated out, §4.1):
/// log p(z) = ln B(c + #ones, d + #zeros) − ln B(c, d).
pub fn log_edge_prior(ones: usize, zeros: usize, c: f64, d: f64) -> f64 {
    let (a, b) = (c + ones as f64, d + zeros as f64);
    ln_gamma(a) + ln_gamma(b) - ln_gamma(a + b) - (ln_gamma(c) + ln_gamma(d) - ln_gamma(c + d))
}

/// Supplement B's log posterior (up to a constant), the quantity traced for diagnostics:
/// eq 7 + Σ_x [−b t_x + (ρ/k − 1) log t_x] + lnΓ(Σz + c) + lnΓ(Σ(1−z) + d). The supplement's
/// sum over every configuration equals eq 7's over the occupied ones (each empty one gives
/// lnΓ(β) − lnΓ(β) and lnΓ(t) − lnΓ(t)). Uses ρ/k_j (the authors' trace uses ρ/(k_j − 1)).
/// `edges` is `Some((#ones, #zeros, c, d))` when the parent set is sampled (Algorithm 2), `None`
/// for a fixed parent set (no structure term).
pub fn log_posterior(
    table: &ParentTable,
    t: &[f64],
    shape: f64,
    rate: f64,
    edges: Option<(usize, usize, f64, f64)>,
) -> f64 {
    let prior: f64 = t.iter().map(|&x| -rate * x + (shape - 1.0) * x.ln()).sum();
    let structure = edges.map_or(0.0, |(ones, zeros, c, d)| {
        ln_gamma(ones as f64 + c) + ln_gamma(zeros as f64 + d)
    });
    log_marginal_likelihood(table, t) + prior + structure
}

/// The trigamma function ψ₁(x) = d²/dx² lnΓ(x) for x > 0 (recurrence to x ≥ 10, then the
/// asymptotic series; relative error below 1e-12). Used by the exact method's Laplace steps.
pub fn trigamma(x: f64) -> f64 {
    let mut x = x;
    let mut acc = 0.0;
    while x < 10.0 {
        acc += 1.0 / (x * x);
        x += 1.0;
    }
    let x2 = 1.0 / (x * x);
    acc + 1.0 / x
        + x2 / 2.0
        + (1.0 / x)
            * x2
            * (1.0 / 6.0
                - x2 * (1.0 / 30.0 - x2 * (1.0 / 42.0 - x2 * (1.0 / 30.0 - x2 * 5.0 / 66.0))))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hidden2025::datasets::DiscreteData;

    fn data() -> DiscreteData {
        // child C (3 levels) given A (2 levels) and B (3 levels), n = 7: several empty configs.
        DiscreteData::labelled(
            &[
                ("A", &["a0", "a1"]),
                ("B", &["b0", "b1", "b2"]),
                ("C", &["c0", "c1", "c2"]),
            ],
            vec![
                vec![0, 1, 0, 1, 0, 0, 1],
                vec![2, 2, 0, 1, 2, 0, 2],
                vec![1, 0, 0, 2, 1, 1, 1],
            ],
        )
        .expect("valid data")
    }

    /// Eq 7 over *every* configuration (empty ones included), from raw rows.
    fn direct(d: &DiscreteData, child: usize, parents: &[usize], t: &[f64]) -> f64 {
        let kpa: usize = parents.iter().map(|&p| d.k(p)).product();
        let k = d.k(child);
        let mut n = vec![vec![0.0; k]; kpa];
        for i in 0..d.n() {
            let mut code = 0;
            let mut radix = 1;
            for &p in parents {
                code += radix * d.columns[p][i] as usize;
                radix *= d.k(p);
            }
            n[code][d.columns[child][i] as usize] += 1.0;
        }
        let beta: f64 = t.iter().sum();
        n.iter()
            .map(|row| {
                let tot: f64 = row.iter().sum();
                ln_gamma(beta) - ln_gamma(beta + tot)
                    + row
                        .iter()
                        .zip(t)
                        .map(|(&m, &tx)| ln_gamma(tx + m) - ln_gamma(tx))
                        .sum::<f64>()
            })
            .sum()
    }

    #[test]
    fn eq7_matches_direct_computation_on_tiny_tables() {
        let d = data();
        for parents in [vec![], vec![0], vec![1], vec![0, 1], vec![1, 0]] {
            for t in [[0.3, 1.0, 2.5], [1.0, 1.0, 1.0], [0.01, 7.0, 0.5]] {
                let table = d.table(2, &parents);
                let a = log_marginal_likelihood(&table, &t);
                let b = direct(&d, 2, &parents, &t);
                assert!((a - b).abs() < 1e-10, "{parents:?} {t:?}: {a} vs {b}");
            }
        }
    }

    /// K2 (α = 1) and BDJ (α = 1/2) written out: Σ_c [lnΓ(kα) − lnΓ(kα + n_c) + Σ_x lnΓ(α +
    /// n_cx) − k lnΓ(α)]; for α = 1 this is Σ_c [ln (k−1)! − ln (n_c + k − 1)! + Σ_x ln n_cx!].
    #[test]
    fn eq7_at_constant_t_is_k2_and_bdj() {
        let d = data();
        let table = d.table(2, &[0, 1]);
        // configs (a + 2b): 0:(a0,b0) rows 2,5 → C=0,1; 3:(a1,b1) row 3 → C=2; 4:(a0,b2) rows 0,4
        // → C=1,1; 5:(a1,b2) rows 1,6 → C=0,1.
        let cells = [[1u32, 1, 0], [0, 0, 1], [0, 2, 0], [1, 1, 0]];
        let lf = |m: u32| (1..=m).map(|i| (i as f64).ln()).sum::<f64>();
        let k2: f64 = cells
            .iter()
            .map(|r| {
                let n: u32 = r.iter().sum();
                lf(2) - lf(n + 2) + r.iter().map(|&m| lf(m)).sum::<f64>()
            })
            .sum();
        assert!((log_marginal_likelihood(&table, &[1.0; 3]) - k2).abs() < 1e-10);
        // BDJ: Γ(m + 1/2) = (2m)! √π / (4^m m!).
        let lg_half =
            |m: u32| lf(2 * m) + 0.5 * std::f64::consts::PI.ln() - m as f64 * 4f64.ln() - lf(m);
        let bdj: f64 = cells
            .iter()
            .map(|r| {
                let n: u32 = r.iter().sum();
                // lnΓ(3/2) − lnΓ(3/2 + n) = −Σ_{i<n} ln(3/2 + i)
                -(0..n).map(|i| (1.5 + i as f64).ln()).sum::<f64>()
                    + r.iter().map(|&m| lg_half(m) - lg_half(0)).sum::<f64>()
            })
            .sum();
        assert!((log_marginal_likelihood(&table, &[0.5; 3]) - bdj).abs() < 1e-10);
    }

    #[test]
    fn h_and_its_gradient_agree_with_finite_differences() {
        let d = data();
        let table = d.table(2, &[0, 1]);
        let log_u = [-0.3, -1.2, -0.01, -2.0];
        for x in 0..3 {
            let h = HConditional::new(&table, x, &log_u, 0.7, 1.3);
            for t in [0.05, 0.8, 3.0] {
                let e = 1e-6 * t;
                let fd = (h.log_h(t + e) - h.log_h(t - e)) / (2.0 * e);
                assert!(
                    (fd - h.grad_log_h(t)).abs() < 1e-5 * (1.0 + fd.abs()),
                    "{x} {t}"
                );
            }
            assert_eq!(h.log_h(-1.0), f64::NEG_INFINITY);
        }
        // eq 9 written over every configuration (u = 1 for the empty ones) differs by a constant.
        let full = |t: f64, x: usize| {
            let mut s = -1.3 * t + (0.7 - 1.0) * t.ln();
            for (c, lu) in log_u.iter().enumerate() {
                s += ln_gamma(table.row(c)[x] as f64 + t) - ln_gamma(t) + t * lu;
            }
            s
        };
        let h = HConditional::new(&table, 1, &log_u, 0.7, 1.3);
        assert!(((h.log_h(0.4) - full(0.4, 1)) - (h.log_h(2.2) - full(2.2, 1))).abs() < 1e-12);
    }

    #[test]
    fn trigamma_matches_finite_differences_of_digamma() {
        for x in [0.01, 0.3, 1.0, 4.5, 17.0, 300.0] {
            let e = 1e-5 * x;
            let fd = (digamma(x + e) - digamma(x - e)) / (2.0 * e);
            assert!((trigamma(x) - fd).abs() < 1e-6 * fd.abs(), "{x}");
        }
        assert!((trigamma(1.0) - std::f64::consts::PI.powi(2) / 6.0).abs() < 1e-12);
    }

    #[test]
    fn prior_posterior_and_edge_weights() {
        // Gamma(1, 1) is Exp(1).
        assert!((log_prior_t(&[0.5, 2.0], 1.0, 1.0) + 2.5).abs() < 1e-12);
        assert_eq!(log_prior_t(&[0.0, 1.0], 1.0, 1.0), f64::NEG_INFINITY);
        // beta-binomial with c = d = 1: p(z) = 1 / ((|Ca| + 1) C(|Ca|, #ones)).
        let p = log_edge_prior(1, 2, 1.0, 1.0).exp();
        assert!((p - 1.0 / 12.0).abs() < 1e-12);
        let (w0, w1) = edge_log_weights(1.0, 2.0, 3, 1, -5.0, -4.0);
        assert!((w0 - (3f64.ln() - 5.0)).abs() < 1e-12 && (w1 - (4f64.ln() - 4.0)).abs() < 1e-12);
        assert_eq!(Rho::KPlusOne.shape(2), 1.5);
        let r: Rho = serde_json::from_value(serde_json::json!("k+1")).expect("rho");
        assert_eq!(r, Rho::KPlusOne);
        assert!(serde_json::from_value::<Rho>(serde_json::json!("2k")).is_err());
    }
}

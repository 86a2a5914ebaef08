//! hidden2025: supplement H's Theorem 3 (`002_d97ecc788b964f97.txt`, eq 23) checked numerically.
//! With π̃_j ~ Dir(α, …, α) and t_j = β_j π̃_j, the node's marginal likelihood
//! ∫ f(n_{j|Pa} | n_Pa, β π̃) Dir(π̃; α) dπ̃ (eq 7 integrated, by quadrature over the simplex) equals
//! the closed form H_j Σ_w β^w Π s(n, w) Π_x Γ(w_x + α) / Γ(w + kα), a sum over tables w with
//! 1 ≤ w ≤ n in every occupied cell (0 in empty ones), s the unsigned Stirling numbers of the first
//! kind. The left side uses the library's eq 7 (`equations::log_marginal_likelihood`). The negative
//! control drops the β^w factor, which must break the equality.

use super::table;
use causeway_papers::hidden2025::datasets::ParentTable;
use causeway_papers::hidden2025::equations::log_marginal_likelihood;
use statrs::function::gamma::ln_gamma;

/// Unsigned Stirling numbers of the first kind s(n, w), 0 ≤ w ≤ n ≤ `max`.
fn stirling(max: usize) -> Vec<Vec<f64>> {
    let mut s = vec![vec![0.0; max + 1]; max + 1];
    s[0][0] = 1.0;
    for n in 0..max {
        for w in 1..=n + 1 {
            s[n + 1][w] = n as f64 * s[n][w] + s[n][w - 1];
        }
    }
    s
}

/// log of eq 23's right side; `with_beta_power` false is the broken variant (no β^w).
fn theorem3(t: &ParentTable, beta: f64, alpha: f64, with_beta_power: bool) -> f64 {
    let k = t.k;
    let s = stirling(t.counts.iter().copied().max().unwrap_or(0) as usize);
    let log_h: f64 = t
        .totals
        .iter()
        .map(|&n| ln_gamma(beta) - ln_gamma(n as f64 + beta))
        .sum::<f64>()
        + ln_gamma(k as f64 * alpha)
        - k as f64 * ln_gamma(alpha);
    // Enumerate w cell by cell (odometer over 1..=n, or 0 for an empty cell).
    let n: Vec<usize> = t.counts.iter().map(|&c| c as usize).collect();
    let mut w: Vec<usize> = n.iter().map(|&c| usize::from(c > 0)).collect();
    let mut total = 0.0;
    loop {
        let mut wx = vec![0usize; k];
        let mut term = 1.0;
        for (i, (&wi, &ni)) in w.iter().zip(&n).enumerate() {
            wx[i % k] += wi;
            term *= s[ni][wi];
        }
        let wsum: usize = wx.iter().sum();
        let mut log_term = term.ln() + wx.iter().map(|&v| ln_gamma(v as f64 + alpha)).sum::<f64>()
            - ln_gamma(wsum as f64 + k as f64 * alpha);
        if with_beta_power {
            log_term += wsum as f64 * beta.ln();
        }
        total += log_term.exp();
        // Next w.
        let mut i = 0;
        loop {
            if i == w.len() {
                return log_h + total.ln();
            }
            if w[i] < n[i] {
                w[i] += 1;
                break;
            }
            w[i] = usize::from(n[i] > 0);
            i += 1;
        }
    }
}

/// log ∫ f(n | β π̃) Dir(π̃; α) dπ̃ by the midpoint rule: k = 2 on (0, 1) with `m` points; k = 3
/// over the triangle as π̃ = (p, (1 − p) u, (1 − p)(1 − u)), Jacobian (1 − p), `m` × `m` points.
fn integral(t: &ParentTable, beta: f64, alpha: f64, m: usize) -> f64 {
    let k = t.k;
    let log_dir_norm = ln_gamma(k as f64 * alpha) - k as f64 * ln_gamma(alpha);
    let f = |pi: &[f64]| {
        let tv: Vec<f64> = pi.iter().map(|p| beta * p).collect();
        let log_dir = log_dir_norm + pi.iter().map(|p| (alpha - 1.0) * p.ln()).sum::<f64>();
        (log_marginal_likelihood(t, &tv) + log_dir).exp()
    };
    let h = 1.0 / m as f64;
    let mut total = 0.0;
    match k {
        2 => {
            for i in 0..m {
                let p = (i as f64 + 0.5) * h;
                total += f(&[p, 1.0 - p]) * h;
            }
        }
        3 => {
            for i in 0..m {
                let p = (i as f64 + 0.5) * h;
                for j in 0..m {
                    let u = (j as f64 + 0.5) * h;
                    let q = (1.0 - p) * u;
                    total += f(&[p, q, 1.0 - p - q]) * (1.0 - p) * h * h;
                }
            }
        }
        _ => unreachable!("the test uses k = 2 and 3"),
    }
    total.ln()
}

#[test]
fn hidden2025_theorem3_closed_form_equals_the_dirichlet_integral_of_eq7() {
    let cases: [(&[&[u32]], f64, f64, usize); 5] = [
        (&[&[3, 1], &[0, 2]], 0.7, 1.0, 200_000),
        (&[&[5, 4]], 2.0, 2.5, 200_000),
        (&[&[2, 3], &[4, 1], &[1, 1]], 1.3, 1.5, 200_000),
        (&[&[2, 0, 1], &[1, 3, 0]], 0.9, 1.0, 800),
        (&[&[1, 2, 2]], 3.0, 2.0, 800),
    ];
    for (rows, beta, alpha, m) in cases {
        let t = table(rows);
        let lhs = integral(&t, beta, alpha, m);
        let rhs = theorem3(&t, beta, alpha, true);
        assert!(
            (lhs - rhs).abs() < 1e-5,
            "{rows:?}, β = {beta}, α = {alpha}: quadrature {lhs} against eq 23 {rhs}"
        );
        // Negative control: without β^w the closed form is wrong (β ≠ 1 in every case).
        let broken = theorem3(&t, beta, alpha, false);
        assert!(
            (lhs - broken).abs() > 1e-2,
            "{rows:?}: the broken form {broken} should differ from {lhs}"
        );
    }
}

//! Particle storage for SIS-CN / PG-CN / exact enumeration: per particle j and class r, only the
//! sufficient statistics of the class's Normal-Gamma posteriors (§3.2), as a structure of arrays
//! indexed `k = j·R + r`. No trajectories: resampling copies these O(R) numbers per particle into
//! a second buffer, and the two buffers are swapped.
//!
//! The predictive densities are the table-driven form of
//! [`equations::student_t_log_predictive_1d`], [`equations::student_t_log_predictive`] and
//! [`equations::dirichlet_categorical_log_predictive`]: every term that depends on the class count
//! n only (ln Γ ratios, ln(γ + n), the 1-D scale 1 + 1/(λ + n)) is tabulated for n = 0..=T, and
//! every term common to all particles at step t (ln(Rγ + t), ln 2π) is factored out. The updates
//! are [`equations::ng_rank_one_update`] (Sherman–Morrison on the 2 × 2 covariance) and its 1-D
//! special case. Per particle and class that is three logarithms and no allocation.
//!
//! [`equations::student_t_log_predictive_1d`]: super::equations::student_t_log_predictive_1d
//! [`equations::student_t_log_predictive`]: super::equations::student_t_log_predictive
//! [`equations::dirichlet_categorical_log_predictive`]: super::equations::dirichlet_categorical_log_predictive
//! [`equations::ng_rank_one_update`]: super::equations::ng_rank_one_update

// Parallel structure-of-arrays (and per-variable) indexing reads clearer as index loops.
#![allow(clippy::needless_range_loop)]

use statrs::function::gamma::ln_gamma;

use crate::kurutmaz2019::equations::LN_2PI;
use crate::kurutmaz2019::samplers::problem::Problem;

/// Largest R supported (§5.1: 1..=5).
pub const MAX_R: usize = 5;

/// Count-indexed constants, n = 0..=T.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub(crate) struct Tables {
    /// ln(γ+n) + [ln Γ(a₁+n/2+½) − ln Γ(a₁+n/2)] − ½ ln(1 + 1/(λ+n)) + [ln Γ(a₂+n/2+½) − ln Γ(a₂+n/2)].
    pub k: Vec<f64>,
    /// a₁ + n/2 + ½ (Student-t exponent of v1).
    pub h1: Vec<f64>,
    /// a₂ + n/2 + ½.
    pub h2: Vec<f64>,
    /// 1 / (2 (1 + 1/(λ+n))): q₁ = e² c₁ / b₁ and the b₁ update b₁ += e² c₁.
    pub c1: Vec<f64>,
    /// 1 / (λ + n + 1): the 1-D mean update m ← m + e/(λ+n+1).
    pub g1: Vec<f64>,
    /// ln(γ+n) (only for the negative-control defect that drops it from the weights).
    pub lg: Vec<f64>,
    /// Per step t = 0..T−1 (t previous observations): −ln(Rγ + t) − ln 2π.
    pub step_const: Vec<f64>,
    /// ln(Rγ + t), t = 0..T−1.
    pub ln_norm: Vec<f64>,
}

impl Tables {
    /// Tables for `p` with T = `p.len()`.
    pub fn new(p: &Problem) -> Self {
        let t_len = p.len();
        let h = &p.hyper;
        let (a1, a2, lam, g) = (p.prior1.a, p.prior2.a, h.lambda, h.gamma);
        let mut tab = Tables {
            k: Vec::with_capacity(t_len + 1),
            h1: Vec::with_capacity(t_len + 1),
            h2: Vec::with_capacity(t_len + 1),
            c1: Vec::with_capacity(t_len + 1),
            g1: Vec::with_capacity(t_len + 1),
            lg: Vec::with_capacity(t_len + 1),
            step_const: Vec::with_capacity(t_len),
            ln_norm: Vec::with_capacity(t_len),
        };
        for n in 0..=t_len {
            let nf = n as f64;
            let ha1 = a1 + 0.5 * nf;
            let ha2 = a2 + 0.5 * nf;
            let sc = 1.0 + 1.0 / (lam + nf);
            tab.k.push(
                (g + nf).ln() + ln_gamma(ha1 + 0.5) - ln_gamma(ha1) - 0.5 * sc.ln()
                    + ln_gamma(ha2 + 0.5)
                    - ln_gamma(ha2),
            );
            tab.h1.push(ha1 + 0.5);
            tab.h2.push(ha2 + 0.5);
            tab.c1.push(0.5 / sc);
            tab.g1.push(1.0 / (lam + nf + 1.0));
            tab.lg.push((g + nf).ln());
        }
        let rg = p.n_latent as f64 * g;
        for t in 0..t_len {
            let ln = (rg + t as f64).ln();
            tab.ln_norm.push(ln);
            tab.step_const.push(-ln - LN_2PI);
        }
        tab
    }
}

/// Saved state of one (particle, class) cell, for undo in the exact enumeration.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Cell {
    n: u32,
    v: [f64; 8],
}

/// Structure-of-arrays sufficient statistics of J particles × R classes.
/// Per cell: count n; v1's posterior mean `m1` and rate `b1` (its λ* = λ + n is implied by n);
/// v2's posterior covariance Σ = Λ*⁻¹ (`s00, s01, s11`), mean (`w0, w1`) and rate `b2`.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub(crate) struct Store {
    pub r: usize,
    pub n: Vec<u32>,
    pub m1: Vec<f64>,
    pub b1: Vec<f64>,
    pub s00: Vec<f64>,
    pub s01: Vec<f64>,
    pub s11: Vec<f64>,
    pub w0: Vec<f64>,
    pub w1: Vec<f64>,
    pub b2: Vec<f64>,
}

impl Store {
    /// Storage for `j` particles × `r` classes (allocates once).
    pub fn new(j: usize, r: usize) -> Self {
        let z = vec![0.0; j * r];
        Store {
            r,
            n: vec![0; j * r],
            m1: z.clone(),
            b1: z.clone(),
            s00: z.clone(),
            s01: z.clone(),
            s11: z.clone(),
            w0: z.clone(),
            w1: z.clone(),
            b2: z,
        }
    }

    /// Set every cell to the prior of `p` (n = 0).
    pub fn reset(&mut self, p: &Problem) {
        let (m, lam) = (p.hyper.m, p.hyper.lambda);
        self.n.fill(0);
        self.m1.fill(m);
        self.b1.fill(p.prior1.b);
        self.s00.fill(1.0 / lam);
        self.s01.fill(0.0);
        self.s11.fill(1.0 / lam);
        self.w0.fill(m);
        self.w1.fill(m);
        self.b2.fill(p.prior2.b);
    }

    /// ℓ_r − (step constant) for every class r of particle `j` at observation (x1, x2, f): the log
    /// of p(r_t = r | r^{1:t−1}) p(x^t | r_t = r, ...) without the factors common to all particles
    /// (eq. 4.9 numerator). Writes R values into `out`; returns their maximum and its class.
    #[inline(always)]
    pub fn log_terms(
        &self,
        tab: &Tables,
        j: usize,
        x1: f64,
        x2: f64,
        f: f64,
        out: &mut [f64; MAX_R],
    ) -> (f64, usize) {
        let base = j * self.r;
        let mut mx = f64::NEG_INFINITY;
        let mut arg = 0;
        for r in 0..self.r {
            let k = base + r;
            let n = self.n[k] as usize;
            let e1 = x1 - self.m1[k];
            let b1 = self.b1[k];
            let q1 = e1 * e1 * tab.c1[n] / b1;
            let s1 = 1.0 + self.s00[k] + f * (2.0 * self.s01[k] + f * self.s11[k]);
            let e2 = x2 - self.w0[k] - self.w1[k] * f;
            let bs = self.b2[k] * s1;
            let q2 = e2 * e2 / (2.0 * bs);
            // ln(1 + q), not ln_1p(q): three times cheaper in glibc, and its absolute error
            // (≤ 1.2e-16, from rounding 1 + q) is what matters in a sum of log densities.
            let l = tab.k[n]
                - 0.5 * (b1 * bs).ln()
                - tab.h1[n] * (1.0 + q1).ln()
                - tab.h2[n] * (1.0 + q2).ln();
            out[r] = l;
            if l > mx {
                mx = l;
                arg = r;
            }
        }
        (mx, arg)
    }

    /// Add observation (x1, x2, f) to cell `k` (rank-one Normal-Gamma updates, §3.2).
    #[inline(always)]
    pub fn update(&mut self, tab: &Tables, k: usize, x1: f64, x2: f64, f: f64) {
        let n = self.n[k] as usize;
        let e1 = x1 - self.m1[k];
        self.m1[k] += e1 * tab.g1[n];
        self.b1[k] += e1 * e1 * tab.c1[n];
        let (s00, s01, s11) = (self.s00[k], self.s01[k], self.s11[k]);
        let g0 = s00 + f * s01;
        let g1 = s01 + f * s11;
        let inv = 1.0 / (1.0 + g0 + f * g1);
        let e2 = x2 - self.w0[k] - self.w1[k] * f;
        self.s00[k] = s00 - g0 * g0 * inv;
        self.s01[k] = s01 - g0 * g1 * inv;
        self.s11[k] = s11 - g1 * g1 * inv;
        self.w0[k] += g0 * e2 * inv;
        self.w1[k] += g1 * e2 * inv;
        self.b2[k] += 0.5 * e2 * e2 * inv;
        self.n[k] += 1;
    }

    /// Copy particle `from` of `src` into particle `to` of `self` (all R cells).
    #[inline(always)]
    pub fn copy_particle(&mut self, src: &Store, from: usize, to: usize) {
        let r = self.r;
        let (a, b) = (from * r, to * r);
        self.n[b..b + r].copy_from_slice(&src.n[a..a + r]);
        self.m1[b..b + r].copy_from_slice(&src.m1[a..a + r]);
        self.b1[b..b + r].copy_from_slice(&src.b1[a..a + r]);
        self.s00[b..b + r].copy_from_slice(&src.s00[a..a + r]);
        self.s01[b..b + r].copy_from_slice(&src.s01[a..a + r]);
        self.s11[b..b + r].copy_from_slice(&src.s11[a..a + r]);
        self.w0[b..b + r].copy_from_slice(&src.w0[a..a + r]);
        self.w1[b..b + r].copy_from_slice(&src.w1[a..a + r]);
        self.b2[b..b + r].copy_from_slice(&src.b2[a..a + r]);
    }

    /// Save cell `k`.
    pub fn save(&self, k: usize) -> Cell {
        Cell {
            n: self.n[k],
            v: [
                self.m1[k],
                self.b1[k],
                self.s00[k],
                self.s01[k],
                self.s11[k],
                self.w0[k],
                self.w1[k],
                self.b2[k],
            ],
        }
    }

    /// Restore cell `k`.
    pub fn restore(&mut self, k: usize, c: &Cell) {
        self.n[k] = c.n;
        [
            self.m1[k],
            self.b1[k],
            self.s00[k],
            self.s01[k],
            self.s11[k],
            self.w0[k],
            self.w1[k],
            self.b2[k],
        ] = c.v;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kurutmaz2019::equations::{self, NgCov};
    use crate::kurutmaz2019::params::{Hyper, Hypothesis};
    use crate::kurutmaz2019::samplers::problem::Problem;

    #[test]
    fn table_driven_terms_match_equations() {
        let a = [0.3, -1.1, 0.8, 2.0, -0.4];
        let b = [0.1, -0.9, 1.5, 1.1, 0.0];
        let hyper = Hyper {
            gamma: 10.0,
            m: 0.0,
            lambda: 0.1,
            a1: 10.0,
            b1: 1.0,
            a2: 100.0,
            b2: 10.0,
        };
        for hyp in [Hypothesis::AToB, Hypothesis::BToA, Hypothesis::Spurious] {
            let p = Problem::new(&a, &b, hyp, 2, hyper).unwrap();
            let tab = Tables::new(&p);
            let mut st = Store::new(1, 2);
            st.reset(&p);
            let mut q1 = [NgCov::from_ng(&p.prior1).unwrap(); 2];
            let mut q2 = [NgCov::from_ng(&p.prior2).unwrap(); 2];
            let mut counts = [0.0; 2];
            let rs = [0, 1, 1, 0, 1];
            for t in 0..5 {
                let mut out = [0.0; MAX_R];
                st.log_terms(&tab, 0, p.v1[t], p.v2[t], p.f[t], &mut out);
                for r in 0..2 {
                    let want = equations::dirichlet_categorical_log_predictive(
                        10.0, counts[r], t as f64, 2,
                    ) + equations::student_t_log_predictive(&q1[r], p.phi1(t), p.v1[t])
                        + equations::student_t_log_predictive(&q2[r], p.phi2(t), p.v2[t]);
                    let got = out[r] + tab.step_const[t];
                    assert!(
                        (want - got).abs() < 1e-11,
                        "{hyp:?} t={t} r={r}: {want} vs {got}"
                    );
                }
                let r = rs[t];
                st.update(&tab, r, p.v1[t], p.v2[t], p.f[t]);
                equations::ng_rank_one_update(&mut q1[r], p.phi1(t), p.v1[t]);
                equations::ng_rank_one_update(&mut q2[r], p.phi2(t), p.v2[t]);
                counts[r] += 1.0;
            }
        }
    }
}

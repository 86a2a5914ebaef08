//! Particle storage for SIS-CN / PG-CN / exact enumeration: per particle j and class r, only the
//! sufficient statistics of the class's Normal-Gamma posteriors (§3.2), as a structure of arrays
//! indexed `k = r·J + j` (class-major, so that the per-step loops over all cells run over
//! contiguous memory and vectorise). No trajectories: resampling copies these O(R) numbers per
//! particle into a second buffer, and the two buffers are swapped.
//!
//! The predictive densities are the table-driven form of
//! [`equations::student_t_log_predictive_1d`], [`equations::student_t_log_predictive`] and
//! [`equations::dirichlet_categorical_log_predictive`]: every term that depends on the class count
//! n only (ln Γ ratios, ln(γ + n), the 1-D scale 1 + 1/(λ + n)) is tabulated for n = 0..=T, and
//! every term common to all particles at step t (ln(Rγ + t), ln 2π) is factored out. The updates
//! are [`equations::ng_rank_one_update`] (Sherman–Morrison on the 2 × 2 covariance) and its 1-D
//! special case. Per particle and class that is three logarithms and no allocation in the
//! reference form ([`Store::log_terms`], used by the exact enumeration and the R = 1 path), and
//! in the SMC form ([`Store::step_terms`]) two branch-free logarithms ([`crate::math::ln_fast`]) and a square
//! root (causal), one logarithm (causal with a₁ = a₂, and spurious), evaluated for all J·R cells
//! in one loop.
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
use crate::math::ln_fast;

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
    /// Whether f = 0 at every t (the spurious hypothesis): v2 is intercept-only, so its
    /// predictive scale is s₁ = 1 + 1/(λ + n), a function of n, and h₁ = h₂ (both variables
    /// share (a₁, b₁)).
    pub spurious: bool,
    /// (a₂ + n/2) ln(1 + 1/(λ + n)) = (h₂ − ½) ln s₁ when `spurious` (else 0), n = 0..=T.
    pub sp: Vec<f64>,
}

impl Tables {
    /// Tables for `p` with T = `p.len()`.
    pub fn new(p: &Problem) -> Self {
        let t_len = p.len();
        let g = p.hyper.gamma;
        let mut tab = Tables {
            k: Vec::with_capacity(t_len + 1),
            h1: Vec::with_capacity(t_len + 1),
            h2: Vec::with_capacity(t_len + 1),
            c1: Vec::with_capacity(t_len + 1),
            g1: Vec::with_capacity(t_len + 1),
            lg: Vec::with_capacity(t_len + 1),
            step_const: Vec::with_capacity(t_len),
            ln_norm: Vec::with_capacity(t_len),
            spurious: p.f.iter().all(|f| *f == 0.0),
            sp: Vec::with_capacity(t_len + 1),
        };
        for n in 0..=t_len {
            let row = Self::row(p, n);
            tab.k.push(row[0]);
            tab.h1.push(row[1]);
            tab.h2.push(row[2]);
            tab.c1.push(row[3]);
            tab.g1.push(row[4]);
            tab.lg.push(row[5]);
            tab.sp.push(if tab.spurious { row[6] } else { 0.0 });
        }
        let rg = p.n_latent as f64 * g;
        for t in 0..t_len {
            let ln = (rg + t as f64).ln();
            tab.ln_norm.push(ln);
            tab.step_const.push(-ln - LN_2PI);
        }
        tab
    }

    /// The count-indexed constants at count `n`: [k, h1, h2, c1, g1, lg, (h2 − ½) ln(1 + 1/(λ+n))].
    fn row(p: &Problem, n: usize) -> [f64; 7] {
        let (a1, a2, lam, g) = (p.prior1.a, p.prior2.a, p.hyper.lambda, p.hyper.gamma);
        let nf = n as f64;
        let ha1 = a1 + 0.5 * nf;
        let ha2 = a2 + 0.5 * nf;
        let sc = 1.0 + 1.0 / (lam + nf);
        [
            (g + nf).ln() + ln_gamma(ha1 + 0.5) - ln_gamma(ha1) - 0.5 * sc.ln()
                + ln_gamma(ha2 + 0.5)
                - ln_gamma(ha2),
            ha1 + 0.5,
            ha2 + 0.5,
            0.5 / sc,
            1.0 / (lam + nf + 1.0),
            (g + nf).ln(),
            ha2 * (1.0 + 1.0 / (lam + nf)).ln(),
        ]
    }
}

/// Saved state of one (particle, class) cell, for undo in the exact enumeration.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Cell {
    n: u32,
    v: [f64; 13],
}

/// Structure-of-arrays sufficient statistics of J particles × R classes, **class-major**: cell
/// (j, r) is `k = r·J + j`, so each class is a contiguous block of J and the per-step loops run
/// over contiguous memory (and vectorise).
/// Per cell: count n; v1's posterior mean `m1` and rate `b1` (its λ* = λ + n is implied by n);
/// v2's posterior covariance Σ = Λ*⁻¹ (`s00, s01, s11`), mean (`w0, w1`) and rate `b2`; and,
/// derived from them and kept current by [`Store::update`], what the predictive needs:
/// `kc` = K(n) − ½ ln(b₁b₂), `u1` = c₁(n)/b₁, `v2` = 1/(2b₂), `h1` = a₁ + n/2 + ½,
/// `h2` = a₂ + n/2 + ½ (K, c₁: [`Tables`]).
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub(crate) struct Store {
    pub r: usize,
    /// Particles J (the block length of each class).
    pub j: usize,
    pub n: Vec<u32>,
    pub m1: Vec<f64>,
    pub b1: Vec<f64>,
    pub s00: Vec<f64>,
    pub s01: Vec<f64>,
    pub s11: Vec<f64>,
    pub w0: Vec<f64>,
    pub w1: Vec<f64>,
    pub b2: Vec<f64>,
    kc: Vec<f64>,
    u1: Vec<f64>,
    v2: Vec<f64>,
    h1: Vec<f64>,
    h2: Vec<f64>,
}

impl Store {
    /// Storage for `j` particles × `r` classes (allocates once).
    pub fn new(j: usize, r: usize) -> Self {
        let z = vec![0.0; j * r];
        Store {
            r,
            j,
            n: vec![0; j * r],
            m1: z.clone(),
            b1: z.clone(),
            s00: z.clone(),
            s01: z.clone(),
            s11: z.clone(),
            w0: z.clone(),
            w1: z.clone(),
            b2: z.clone(),
            kc: z.clone(),
            u1: z.clone(),
            v2: z.clone(),
            h1: z.clone(),
            h2: z,
        }
    }

    /// Cell index of particle `j`, class `r`.
    #[inline(always)]
    pub fn cell(&self, j: usize, r: usize) -> usize {
        r * self.j + j
    }

    /// Set every cell to the prior of `p` (n = 0).
    pub fn reset(&mut self, p: &Problem) {
        let (m, lam) = (p.hyper.m, p.hyper.lambda);
        let [k0, h1, h2, c1, _, _, sp] = Tables::row(p, 0);
        let sp = if p.f.iter().all(|f| *f == 0.0) {
            sp
        } else {
            0.0
        };
        self.n.fill(0);
        self.m1.fill(m);
        self.b1.fill(p.prior1.b);
        self.s00.fill(1.0 / lam);
        self.s01.fill(0.0);
        self.s11.fill(1.0 / lam);
        self.w0.fill(m);
        self.w1.fill(m);
        self.b2.fill(p.prior2.b);
        self.kc.fill(k0 - 0.5 * (p.prior1.b * p.prior2.b).ln() + sp);
        self.u1.fill(c1 / p.prior1.b);
        self.v2.fill(0.5 / p.prior2.b);
        self.h1.fill(h1);
        self.h2.fill(h2);
    }

    /// ℓ_r − (step constant) for every class r of particle `j` at observation (x1, x2, f): the log
    /// of p(r_t = r | r^{1:t−1}) p(x^t | r_t = r, ...) without the factors common to all particles
    /// (eq. 4.9 numerator), evaluated directly from the statistics with the standard library's
    /// logarithm (the reference form; [`Store::step_terms`] is the fast one). Writes R values into
    /// `out`; returns their maximum and its class.
    pub fn log_terms(
        &self,
        tab: &Tables,
        j: usize,
        x1: f64,
        x2: f64,
        f: f64,
        out: &mut [f64; MAX_R],
    ) -> (f64, usize) {
        let mut mx = f64::NEG_INFINITY;
        let mut arg = 0;
        for r in 0..self.r {
            let k = self.cell(j, r);
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

    /// ℓ − (step constant) of every cell at observation (x1, x2, f), the quantity of
    /// [`Store::log_terms`] rearranged so that it needs fewer logarithms, all branch-free
    /// ([`crate::math::ln_fast`]), in one loop over the cells that vectorises. With s₁ = 1 + φᵀΣφ,
    /// e₂ = x₂ − wᵀφ, a = 1 + e₁²u₁ (= 1 + q₁) and c = 1 + e₂²v₂/s₁ (= 1 + q₂), the reference
    /// form K − ½ ln(b₁b₂s₁) − h₁ ln a − h₂ ln c is
    /// - causal (`tab.spurious` false): `out` = kc − h₁ ln a − h₂ ln c and `scale` = s₁^−½, the
    ///   remaining factor, to be applied after exponentiation (a square root instead of a third
    ///   logarithm); with h₁ = h₂ (a₁ = a₂, `same_shape`) the two logarithms are one, ln(a·c);
    /// - spurious: s₁ = 1 + 1/(λ + n) and h₁ = h₂, so kc already holds −½ ln s₁ + h₂ ln s₁
    ///   (`Tables::sp`) and `out` = kc − h₁ ln(a·(s₁ + e₂²v₂)): one logarithm; `scale` is not
    ///   written (it is 1).
    ///
    /// Returns false if an argument of a logarithm was not finite (or beyond 10³⁰⁰), in which
    /// case `out` is meaningless and the caller falls back to [`Store::log_terms`].
    ///
    /// The loop is compiled for AVX-512 and AVX2 as well as the baseline and picked at run time
    /// ([`terms_dispatch`]): plain f64 operations in a fixed order, no FMA, so every path
    /// gives the same bits.
    #[allow(clippy::too_many_arguments)]
    pub fn step_terms(
        &self,
        tab: &Tables,
        x1: f64,
        x2: f64,
        f: f64,
        same_shape: bool,
        out: &mut [f64],
        scale: &mut [f64],
    ) -> bool {
        let at = StepAt {
            x1,
            x2,
            f,
            same_shape,
        };
        terms_dispatch(self, tab, at, out, scale)
    }

    /// Add observation (x1, x2, f) to cell `k` (rank-one Normal-Gamma updates, §3.2) except the
    /// derived `kc`; returns b₁b₂ of the updated cell, whose logarithm [`Store::set_log_b`]
    /// takes (so that callers can take many at once).
    #[inline(always)]
    pub fn update_stats(&mut self, tab: &Tables, k: usize, x1: f64, x2: f64, f: f64) -> f64 {
        let n = self.n[k] as usize;
        let e1 = x1 - self.m1[k];
        self.m1[k] += e1 * tab.g1[n];
        let b1 = self.b1[k] + e1 * e1 * tab.c1[n];
        self.b1[k] = b1;
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
        let b2 = self.b2[k] + 0.5 * e2 * e2 * inv;
        self.b2[k] = b2;
        let n1 = n + 1;
        self.n[k] = n1 as u32;
        self.u1[k] = tab.c1[n1] / b1;
        self.v2[k] = 0.5 / b2;
        self.h1[k] = tab.h1[n1];
        self.h2[k] = tab.h2[n1];
        b1 * b2
    }

    /// Complete [`Store::update_stats`] of cell `k`: `ln_b` = ln(b₁b₂).
    #[inline(always)]
    pub fn set_log_b(&mut self, tab: &Tables, k: usize, ln_b: f64) {
        let n = self.n[k] as usize;
        self.kc[k] = tab.k[n] - 0.5 * ln_b + tab.sp[n];
    }

    /// Add observation (x1, x2, f) to cell `k`: [`Store::update_stats`] then
    /// [`Store::set_log_b`].
    pub fn update(&mut self, tab: &Tables, k: usize, x1: f64, x2: f64, f: f64) {
        let b = self.update_stats(tab, k, x1, x2, f);
        self.set_log_b(tab, k, b.ln());
    }

    /// The 13 real-valued per-cell arrays, in the order of [`Cell`].
    fn fields(&self) -> [&Vec<f64>; 13] {
        [
            &self.m1, &self.b1, &self.s00, &self.s01, &self.s11, &self.w0, &self.w1, &self.b2,
            &self.kc, &self.u1, &self.v2, &self.h1, &self.h2,
        ]
    }

    /// [`Store::fields`], mutably.
    fn fields_mut(&mut self) -> [&mut Vec<f64>; 13] {
        [
            &mut self.m1,
            &mut self.b1,
            &mut self.s00,
            &mut self.s01,
            &mut self.s11,
            &mut self.w0,
            &mut self.w1,
            &mut self.b2,
            &mut self.kc,
            &mut self.u1,
            &mut self.v2,
            &mut self.h1,
            &mut self.h2,
        ]
    }

    /// Copy particle `from` of `src` into particle `to` of `self` (all R cells).
    #[inline(always)]
    pub fn copy_particle(&mut self, src: &Store, from: usize, to: usize) {
        for r in 0..self.r {
            let (a, b) = (src.cell(from, r), self.cell(to, r));
            self.n[b] = src.n[a];
            for (d, s) in self.fields_mut().into_iter().zip(src.fields()) {
                d[b] = s[a];
            }
        }
    }

    /// Save cell `k`.
    pub fn save(&self, k: usize) -> Cell {
        Cell {
            n: self.n[k],
            v: self.fields().map(|f| f[k]),
        }
    }

    /// Restore cell `k`.
    pub fn restore(&mut self, k: usize, c: &Cell) {
        self.n[k] = c.n;
        for (f, v) in self.fields_mut().into_iter().zip(c.v) {
            f[k] = v;
        }
    }
}

/// The observation (x₁, x₂, f) of a step and whether a₁ = a₂: the arguments of
/// [`Store::step_terms`] that its loop reads besides the store and the tables.
#[derive(Debug, Clone, Copy)]
struct StepAt {
    x1: f64,
    x2: f64,
    f: f64,
    same_shape: bool,
}

/// The loop of [`Store::step_terms`] (same result), inlined into each compiled version of
/// [`terms_dispatch`] and, in the tests, into baseline code.
// `!(x <= LIM)` on purpose: a NaN argument must count as out of range.
#[allow(clippy::neg_cmp_op_on_partial_ord)]
#[inline(always)]
fn terms_body(st: &Store, tab: &Tables, at: StepAt, out: &mut [f64], scale: &mut [f64]) -> bool {
    let StepAt {
        x1,
        x2,
        f,
        same_shape,
    } = at;
    const LIM: f64 = 1e300;
    let len = st.n.len();
    let (out, scale) = (&mut out[..len], &mut scale[..len]);
    let (m1, u1, s00, s01, s11) = (
        &st.m1[..len],
        &st.u1[..len],
        &st.s00[..len],
        &st.s01[..len],
        &st.s11[..len],
    );
    let (w0, w1, v2, kc, h1, h2) = (
        &st.w0[..len],
        &st.w1[..len],
        &st.v2[..len],
        &st.kc[..len],
        &st.h1[..len],
        &st.h2[..len],
    );
    // Arguments out of range, as an integer OR-reduction (vectorises).
    let mut bad = 0u64;
    if tab.spurious {
        for k in 0..len {
            let e1 = x1 - m1[k];
            let e2 = x2 - w0[k];
            let a = (1.0 + e1 * e1 * u1[k]) * (1.0 + s00[k] + e2 * e2 * v2[k]);
            bad |= u64::from(!(a <= LIM));
            out[k] = kc[k] - h1[k] * ln_fast(a);
        }
    } else if same_shape {
        for k in 0..len {
            let e1 = x1 - m1[k];
            let s1 = 1.0 + s00[k] + f * (2.0 * s01[k] + f * s11[k]);
            let e2 = x2 - w0[k] - w1[k] * f;
            let g = 1.0 / s1.sqrt();
            let ac = (1.0 + e1 * e1 * u1[k]) * (1.0 + e2 * e2 * v2[k] * (g * g));
            bad |= u64::from(!(ac <= LIM && s1 <= LIM));
            scale[k] = g;
            out[k] = kc[k] - h1[k] * ln_fast(ac);
        }
    } else {
        for k in 0..len {
            let e1 = x1 - m1[k];
            let s1 = 1.0 + s00[k] + f * (2.0 * s01[k] + f * s11[k]);
            let e2 = x2 - w0[k] - w1[k] * f;
            let g = 1.0 / s1.sqrt();
            let a = 1.0 + e1 * e1 * u1[k];
            let c = 1.0 + e2 * e2 * v2[k] * (g * g);
            bad |= u64::from(!(a * c <= LIM && s1 <= LIM));
            scale[k] = g;
            out[k] = kc[k] - h1[k] * ln_fast(a) - h2[k] * ln_fast(c);
        }
    }
    bad == 0
}

/// [`terms_body`] compiled for AVX-512 and AVX2 as well as the baseline x86-64, the version
/// picked at run time from the CPU's features (`multiversion`); the same bits on every path.
#[multiversion::multiversion(targets("x86_64+avx512f+avx512dq+avx2+avx", "x86_64+avx2+avx"))]
fn terms_dispatch(st: &Store, tab: &Tables, at: StepAt, l: &mut [f64], g: &mut [f64]) -> bool {
    terms_body(st, tab, at, l, g)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kurutmaz2019::equations::{self, NgCov};
    use crate::kurutmaz2019::hyper::{Hyper, Hypothesis};
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

    /// The rearranged, vectorised predictive of `step_terms` equals the reference form of
    /// `log_terms` cell by cell (causal and spurious, several particles, random updates).
    #[test]
    fn step_terms_match_log_terms() {
        let a = [0.3, -1.1, 0.8, 2.0, -0.4, 1.7, -2.2, 0.05];
        let b = [0.1, -0.9, 1.5, 1.1, 0.0, -0.3, 0.6, 2.4];
        for (set, hyp) in [
            (20, Hypothesis::AToB),
            (36, Hypothesis::BToA),
            (7, Hypothesis::AToB),
            (1, Hypothesis::Spurious),
            (20, Hypothesis::Spurious),
        ] {
            let hyper = Hyper::of_setting(set).unwrap();
            let p = Problem::new(&a, &b, hyp, 3, hyper).unwrap();
            let tab = Tables::new(&p);
            let (j_n, r_n) = (5, 3);
            let mut st = Store::new(j_n, r_n);
            st.reset(&p);
            let spurious = p.f.iter().all(|f| *f == 0.0);
            assert_eq!(spurious, hyp == Hypothesis::Spurious);
            let mut out = vec![0.0; j_n * r_n];
            let mut scale = vec![1.0; j_n * r_n];
            let same_shape = p.prior1.a == p.prior2.a;
            assert_eq!(tab.spurious, spurious);
            for t in 0..a.len() {
                let (x1, x2, f) = (p.v1[t], p.v2[t], p.f[t]);
                assert!(st.step_terms(&tab, x1, x2, f, same_shape, &mut out, &mut scale));
                for j in 0..j_n {
                    let mut want = [0.0; MAX_R];
                    st.log_terms(&tab, j, x1, x2, f, &mut want);
                    for r in 0..r_n {
                        let got = out[st.cell(j, r)] + scale[st.cell(j, r)].ln();
                        assert!(
                            (got - want[r]).abs() <= 1e-11 * want[r].abs().max(1.0),
                            "{hyp:?} t={t} j={j} r={r}: {got} vs {}",
                            want[r]
                        );
                    }
                    st.update(&tab, st.cell(j, (j + t) % r_n), x1, x2, f);
                }
            }
        }
    }

    /// The dispatched `step_terms` (AVX-512 or AVX2 where the machine has them) gives the bits of
    /// its baseline body in every branch (causal with a₁ ≠ a₂ and a₁ = a₂, spurious), over
    /// J = 1001 particles (vector remainders) and a few hundred random updates, and the same
    /// out-of-range verdict when a cell is pushed out of the fast form's range.
    #[test]
    fn dispatched_step_terms_gives_the_baseline_bits() {
        use crate::seed::chain_rng;
        use rand::RngExt;
        let mut rng = chain_rng(3, 1, 4, 1);
        let t_len = 300;
        let a: Vec<f64> = (0..t_len)
            .map(|_| 4.0 * rng.random::<f64>() - 2.0)
            .collect();
        let b: Vec<f64> = (0..t_len)
            .map(|_| 4.0 * rng.random::<f64>() - 2.0)
            .collect();
        for (set, hyp) in [
            (20, Hypothesis::AToB),
            (36, Hypothesis::BToA),
            (20, Hypothesis::Spurious),
        ] {
            let p = Problem::new(&a, &b, hyp, 3, Hyper::of_setting(set).unwrap()).unwrap();
            let tab = Tables::new(&p);
            let (j_n, r_n) = (1001, 3);
            let mut st = Store::new(j_n, r_n);
            st.reset(&p);
            let same_shape = p.prior1.a == p.prior2.a;
            let (mut out_a, mut scale_a) = (vec![0.0; j_n * r_n], vec![1.0; j_n * r_n]);
            let (mut out_b, mut scale_b) = (out_a.clone(), scale_a.clone());
            for t in 0..t_len {
                let (x1, x2, f) = (p.v1[t], p.v2[t], p.f[t]);
                let ok_a = st.step_terms(&tab, x1, x2, f, same_shape, &mut out_a, &mut scale_a);
                let at = StepAt {
                    x1,
                    x2,
                    f,
                    same_shape,
                };
                let ok_b = terms_body(&st, &tab, at, &mut out_b, &mut scale_b);
                assert!(ok_a && ok_b, "{hyp:?} t={t}");
                for k in 0..j_n * r_n {
                    assert_eq!(
                        out_a[k].to_bits(),
                        out_b[k].to_bits(),
                        "{hyp:?} t={t} k={k}"
                    );
                    assert_eq!(scale_a[k].to_bits(), scale_b[k].to_bits());
                }
                for j in 0..j_n {
                    let r = rng.random_range(0..r_n);
                    st.update(&tab, st.cell(j, r), x1, x2, f);
                }
            }
            st.b1[j_n + 7] = f64::NAN;
            st.u1[j_n + 7] = f64::NAN;
            let ok_a = st.step_terms(&tab, 0.5, 0.5, 0.5, same_shape, &mut out_a, &mut scale_a);
            let at = StepAt {
                x1: 0.5,
                x2: 0.5,
                f: 0.5,
                same_shape,
            };
            let ok_b = terms_body(&st, &tab, at, &mut out_b, &mut scale_b);
            assert!(!ok_a && !ok_b, "{hyp:?}");
        }
    }
}

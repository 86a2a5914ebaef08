//! Shared helpers for the wood2006 statistical tests: exact posteriors of tiny problems by
//! enumeration (written independently of `wood2006::equations`), the statistic compared, and
//! Gauss–Legendre quadrature. The paper-independent goodness-of-fit statistics are
//! `causeway_papers::testing::enumeration`'s, re-exported here.
#![allow(dead_code)]

use std::collections::HashMap;

use causeway_papers::ChainRng;
use causeway_papers::testing;
use causeway_papers::wood2006::{BinaryMatrix, HiddenCauseSampler};
use statrs::function::gamma::ln_gamma;

pub use causeway_papers::testing::{Gof, gof};

/// The statistic whose posterior we compare: `[K (RJMCMC) or 0 (Gibbs), K_+, sorted column
/// masks of the non-zero columns of Z (the lof class)..., η = Z·Y row-major (N × T)...]`.
pub type Key = Vec<u32>;

fn lnfact(n: usize) -> f64 {
    ln_gamma(n as f64 + 1.0)
}

fn ln_choose(n: usize, k: usize) -> f64 {
    lnfact(n) - lnfact(k) - lnfact(n - k)
}

/// Noisy-OR written out directly (not through the crate): `P(x = 1 | η) = 1 − (1−λ)^η (1−ε)`.
pub fn lik(x: u8, eta: u32, lambda: f64, epsilon: f64) -> f64 {
    let q = (1.0 - lambda).powi(eta as i32) * (1.0 - epsilon);
    if x == 1 { 1.0 - q } else { q }
}

/// A tiny problem: X (N × T, row-major).
#[derive(Clone, Debug)]
pub struct Tiny {
    pub n: usize,
    pub t: usize,
    pub x: Vec<u8>,
}

impl Tiny {
    pub fn x_matrix(&self) -> BinaryMatrix {
        BinaryMatrix {
            rows: self.n,
            cols: self.t,
            data: self.x.clone(),
        }
    }
}

/// Every multiset of `size` column types drawn from `1..2^n`, as sorted vectors of masks.
pub fn multisets(n: usize, size: usize) -> Vec<Vec<u32>> {
    let types: Vec<u32> = (1..(1u32 << n)).collect();
    let mut out = Vec::new();
    let mut cur = Vec::new();
    fn rec(types: &[u32], start: usize, left: usize, cur: &mut Vec<u32>, out: &mut Vec<Vec<u32>>) {
        if left == 0 {
            out.push(cur.clone());
            return;
        }
        for j in start..types.len() {
            cur.push(types[j]);
            rec(types, j, left - 1, cur, out);
            cur.pop();
        }
    }
    rec(&types, 0, size, &mut cur, &mut out);
    out
}

/// `(type mask, count)` pairs of a sorted class.
fn grouped(class: &[u32]) -> Vec<(u32, usize)> {
    let mut g: Vec<(u32, usize)> = Vec::new();
    for &c in class {
        match g.last_mut() {
            Some((m, k)) if *m == c => *k += 1,
            _ => g.push((c, 1)),
        }
    }
    g
}

/// One activation pattern of a class's labelled columns on a trial, up to relabelling within a
/// group of identical columns: `n_h` active columns of each distinct type `h`.
struct Pattern {
    /// Active parents of each observed variable, length N.
    eta: Vec<u32>,
    /// `Σ_h ln C(c_h, n_h)`: the number of labelled activation vectors with these counts.
    ln_mult: f64,
    /// `Σ_h n_h`.
    active: usize,
}

fn patterns(n: usize, groups: &[(u32, usize)]) -> Vec<Pattern> {
    let mut out = Vec::new();
    let mut counts = vec![0usize; groups.len()];
    loop {
        let mut eta = vec![0u32; n];
        let mut ln_mult = 0.0;
        for (g, &nh) in groups.iter().zip(&counts) {
            ln_mult += ln_choose(g.1, nh);
            for (i, e) in eta.iter_mut().enumerate() {
                if g.0 >> i & 1 == 1 {
                    *e += nh as u32;
                }
            }
        }
        out.push(Pattern {
            eta,
            ln_mult,
            active: counts.iter().sum(),
        });
        let mut j = 0;
        loop {
            if j == groups.len() {
                return out;
            }
            if counts[j] < groups[j].1 {
                counts[j] += 1;
                break;
            }
            counts[j] = 0;
            j += 1;
        }
    }
}

/// A quadrature grid over (λ, ε, p): `(λ, ε, p, weight)`. Fixed hyperparameters are a one-point
/// grid with weight 1.
pub type Grid = [(f64, f64, f64, f64)];

/// Add `factor × Σ_g w_g Σ_Y P(X, stat | class, θ_g)` to `out` under the class's key(s) with
/// leading entry `kk`; returns the total added. Y is summed per trial over the activation
/// patterns of the class's labelled columns (Eq. 4 prior, noisy-OR likelihood written out here).
fn add_class(
    stat: Stat,
    p: &Tiny,
    class: &[u32],
    kk: u32,
    grid: &Grid,
    factor: f64,
    out: &mut HashMap<Key, f64>,
) -> f64 {
    let groups = grouped(class);
    let pats = patterns(p.n, &groups);
    let kp = class.len();
    let g_len = grid.len();
    // wt[t][j][g]
    let wt: Vec<Vec<Vec<f64>>> = (0..p.t)
        .map(|t| {
            pats.iter()
                .map(|pat| {
                    grid.iter()
                        .map(|&(l, e, pp, _)| {
                            let mut w = pat.ln_mult.exp()
                                * pp.powi(pat.active as i32)
                                * (1.0 - pp).powi((kp - pat.active) as i32);
                            for i in 0..p.n {
                                w *= lik(p.x[i * p.t + t], pat.eta[i], l, e);
                            }
                            w
                        })
                        .collect()
                })
                .collect()
        })
        .collect();
    match stat {
        Stat::Class => {
            let mut total = 0.0;
            for (g, &(_, _, _, wg)) in grid.iter().enumerate() {
                let mut prod = wg;
                for wt_t in &wt {
                    prod *= wt_t.iter().map(|v| v[g]).sum::<f64>();
                }
                total += prod;
            }
            *out.entry(key(kk, class, &[])).or_insert(0.0) += factor * total;
            factor * total
        }
        Stat::ClassEta => {
            let mut total = 0.0;
            let mut prod = vec![vec![0.0; g_len]; p.t + 1];
            for (g, &(_, _, _, wg)) in grid.iter().enumerate() {
                prod[0][g] = wg;
            }
            let mut choice = vec![0usize; p.t];
            // odometer over (pattern at t = 0, ..., pattern at t = T−1)
            'outer: loop {
                for t in 0..p.t {
                    let (head, tail) = prod.split_at_mut(t + 1);
                    for g in 0..g_len {
                        tail[0][g] = head[t][g] * wt[t][choice[t]][g];
                    }
                }
                let v: f64 = prod[p.t].iter().sum();
                let mut eta = vec![0u32; p.n * p.t];
                for t in 0..p.t {
                    for i in 0..p.n {
                        eta[i * p.t + t] = pats[choice[t]].eta[i];
                    }
                }
                *out.entry(key(kk, class, &eta)).or_insert(0.0) += factor * v;
                total += factor * v;
                let mut t = 0;
                loop {
                    if t == p.t {
                        break 'outer;
                    }
                    choice[t] += 1;
                    if choice[t] < pats.len() {
                        break;
                    }
                    choice[t] = 0;
                    t += 1;
                }
            }
            total
        }
    }
}

fn harmonic(n: usize) -> f64 {
    (1..=n).map(|i| 1.0 / i as f64).sum()
}

/// ln of the IBP lof-class probability without the α-dependent factor `α^{K+} e^{−α H_N}`.
fn ln_ibp_class_rest(n: usize, class: &[u32]) -> f64 {
    let mut s = 0.0;
    for (_, c) in grouped(class) {
        s -= lnfact(c);
    }
    for &mask in class {
        let m = mask.count_ones() as usize;
        s += lnfact(n - m) + lnfact(m - 1) - lnfact(n);
    }
    s
}

fn key(k: u32, class: &[u32], eta: &[u32]) -> Key {
    let mut v = vec![k, class.len() as u32];
    v.extend_from_slice(class);
    v.extend_from_slice(eta);
    v
}

/// An exact (truncated) posterior over [`Key`], normalised over the enumerated states, with the
/// mass of the states at the truncation boundary (to show the truncation is negligible).
pub type Exact = testing::Exact<Key>;

fn normalise(w: HashMap<Key, f64>, boundary: f64) -> Exact {
    Exact::normalise(w, boundary)
}

/// Which statistic a test compares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stat {
    /// `(K, lof class of Z)`.
    Class,
    /// `(K, lof class of Z, η = Z·Y)`.
    ClassEta,
}

/// Infinite model, fixed hyperparameters: `P(stat | X)` for K_+ ≤ `cap`.
pub fn exact_gibbs(
    stat: Stat,
    p: &Tiny,
    alpha: f64,
    lambda: f64,
    epsilon: f64,
    prob: f64,
    cap: usize,
) -> Exact {
    let grid = [(lambda, epsilon, prob, 1.0)];
    let mut w = HashMap::new();
    let mut boundary = 0.0;
    for kp in 0..=cap {
        for class in multisets(p.n, kp) {
            let ln_prior =
                kp as f64 * alpha.ln() - alpha * harmonic(p.n) + ln_ibp_class_rest(p.n, &class);
            let added = add_class(stat, p, &class, 0, &grid, ln_prior.exp(), &mut w);
            if kp == cap {
                boundary += added;
            }
        }
    }
    normalise(w, boundary)
}

/// ln f_K(m) of the finite model (Eq. 5 per column), written out.
fn ln_fk(m: usize, n: usize, alpha: f64, k: usize) -> f64 {
    let a = alpha / k as f64;
    a.ln() + ln_gamma(m as f64 + a) + lnfact(n - m) - ln_gamma(n as f64 + 1.0 + a)
}

/// `ln P(K, ordered Z in class)` summed over the orderings, given α, without P(K).
fn ln_finite_class(n: usize, class: &[u32], k: usize, alpha: f64) -> f64 {
    let kp = class.len();
    let mut s = lnfact(k) - lnfact(k - kp);
    for (_, c) in grouped(class) {
        s -= lnfact(c);
    }
    s += (k - kp) as f64 * ln_fk(0, n, alpha, k);
    for &mask in class {
        s += ln_fk(mask.count_ones() as usize, n, alpha, k);
    }
    s
}

/// Finite model (RJMCMC), fixed hyperparameters, `P(K) ∝ exp(ln_pk(K))` on `1..=k_max`:
/// `P(K, stat | X)`.
#[allow(clippy::too_many_arguments)]
pub fn exact_rjmcmc(
    stat: Stat,
    p: &Tiny,
    alpha: f64,
    lambda: f64,
    epsilon: f64,
    prob: f64,
    k_max: usize,
    ln_pk: impl Fn(usize) -> f64,
) -> Exact {
    let grid = [(lambda, epsilon, prob, 1.0)];
    let mut w = HashMap::new();
    for k in 1..=k_max {
        for kp in 0..=k {
            for class in multisets(p.n, kp) {
                let ln_prior = ln_pk(k) + ln_finite_class(p.n, &class, k, alpha);
                add_class(stat, p, &class, k as u32, &grid, ln_prior.exp(), &mut w);
            }
        }
    }
    normalise(w, 0.0)
}

/// Gauss–Legendre nodes and weights on (0, 1) with `m` points (exact for polynomials of degree
/// ≤ 2m − 1).
pub fn gauss_legendre01(m: usize) -> Vec<(f64, f64)> {
    let mut out = Vec::with_capacity(m);
    for i in 0..m {
        let mut x = (std::f64::consts::PI * (i as f64 + 0.75) / (m as f64 + 0.5)).cos();
        let mut dp = 0.0;
        for _ in 0..100 {
            let (mut p0, mut p1) = (1.0, x);
            for j in 2..=m {
                let p2 = ((2 * j - 1) as f64 * x * p1 - (j - 1) as f64 * p0) / j as f64;
                p0 = p1;
                p1 = p2;
            }
            let pm = if m == 1 { x } else { p1 };
            let pm1 = if m == 1 { 1.0 } else { p0 };
            dp = m as f64 * (x * pm - pm1) / (x * x - 1.0);
            let dx = pm / dp;
            x -= dx;
            if dx.abs() < 1e-15 {
                break;
            }
        }
        let w = 2.0 / ((1.0 - x * x) * dp * dp);
        out.push(((x + 1.0) / 2.0, w / 2.0));
    }
    out
}

/// Quadrature grid over (λ, ε, p) for Beta(1,1) priors: `(λ, ε, p, weight)`.
pub fn hyper_grid(n_lambda: usize, n_epsilon: usize, n_p: usize) -> Vec<(f64, f64, f64, f64)> {
    let mut g = Vec::new();
    for &(l, wl) in &gauss_legendre01(n_lambda) {
        for &(e, we) in &gauss_legendre01(n_epsilon) {
            for &(pp, wp) in &gauss_legendre01(n_p) {
                g.push((l, e, pp, wl * we * wp));
            }
        }
    }
    g
}

/// Infinite model with λ, ε, p ~ Beta(1,1) (integrated by the exact quadrature `grid`) and
/// α ~ Gamma(shape, rate) (integrated analytically): `P(stat | X)` for K_+ ≤ `cap`.
pub fn exact_gibbs_hyper(
    stat: Stat,
    p: &Tiny,
    shape: f64,
    rate: f64,
    grid: &Grid,
    cap: usize,
) -> Exact {
    let h = harmonic(p.n);
    let mut w = HashMap::new();
    let mut boundary = 0.0;
    for kp in 0..=cap {
        // ∫ Gamma(α; shape, rate) α^{K+} e^{−α H} dα
        let ln_alpha_part = shape * rate.ln() - ln_gamma(shape) + ln_gamma(shape + kp as f64)
            - (shape + kp as f64) * (rate + h).ln();
        for class in multisets(p.n, kp) {
            let ln_prior = ln_alpha_part + ln_ibp_class_rest(p.n, &class);
            let added = add_class(stat, p, &class, 0, grid, ln_prior.exp(), &mut w);
            if kp == cap {
                boundary += added;
            }
        }
    }
    normalise(w, boundary)
}

/// Finite model with λ, ε, p ~ Beta(1,1) (quadrature `grid`), α ~ Gamma(shape, rate) (numerical
/// integral on ln α) and `P(K) ∝ exp(ln_pk(K))` independent of α: `P(K, stat | X)`.
pub fn exact_rjmcmc_hyper(
    stat: Stat,
    p: &Tiny,
    shape: f64,
    rate: f64,
    grid: &Grid,
    k_max: usize,
    ln_pk: impl Fn(usize) -> f64,
) -> Exact {
    // α = e^u, u on a fine grid (trapezoid; the integrand is smooth and negligible at both ends)
    let du = 0.004;
    let us: Vec<f64> = (0..=6000).map(|j| -15.0 + j as f64 * du).collect();
    let mut w = HashMap::new();
    for k in 1..=k_max {
        for kp in 0..=k {
            for class in multisets(p.n, kp) {
                let mut integral = 0.0;
                for &u in &us {
                    let a = u.exp();
                    let ln_gamma_pdf =
                        shape * rate.ln() - ln_gamma(shape) + (shape - 1.0) * u - rate * a;
                    integral += (ln_gamma_pdf + u + ln_finite_class(p.n, &class, k, a)).exp() * du;
                }
                add_class(
                    stat,
                    p,
                    &class,
                    k as u32,
                    grid,
                    ln_pk(k).exp() * integral,
                    &mut w,
                );
            }
        }
    }
    normalise(w, 0.0)
}

/// The [`Key`] of a sampler's current state.
pub fn state_key(s: &HiddenCauseSampler, stat: Stat, with_k: bool) -> Key {
    let z = s.z();
    let y = s.y();
    let mut class: Vec<u32> = Vec::new();
    let mut nz = Vec::new();
    for k in 0..z.cols {
        let mask = (0..z.rows).fold(0u32, |acc, i| acc | (u32::from(z.get(i, k)) << i));
        if mask != 0 {
            class.push(mask);
            nz.push(k);
        }
    }
    class.sort_unstable();
    let mut eta = vec![0u32; z.rows * y.cols];
    for i in 0..z.rows {
        for t in 0..y.cols {
            eta[i * y.cols + t] = nz
                .iter()
                .map(|&k| u32::from(z.get(i, k) & y.get(k, t)))
                .sum();
        }
    }
    if stat == Stat::Class {
        eta.clear();
    }
    key(if with_k { z.cols as u32 } else { 0 }, &class, &eta)
}

/// Run `chains` independent chains (ChaCha streams `0..chains` of `seed`) for `sweeps`
/// iterations each and count the final states' keys.
pub fn final_state_counts(
    chains: u64,
    sweeps: u64,
    seed: u64,
    stat: Stat,
    with_k: bool,
    make: impl FnMut(&mut ChainRng) -> HiddenCauseSampler,
) -> HashMap<Key, u64> {
    testing::final_state_counts(chains, sweeps, seed, make, |s| state_key(s, stat, with_k))
}

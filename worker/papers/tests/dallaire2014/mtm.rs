//! Tests of dallaire2014: mtm. The MTM-II step of eq 10 leaves the exact
//! conditional of one activation invariant.
//!
//! One unit with prior N(y, 1/ν) given its parents and 1 or 2 children (everything else fixed):
//! its exact conditional p(a) ∝ N(a; y, 1/ν) Π_c N(r_c; W_c σ(a), 1/ν_c) on a grid of 10⁴ points
//! over [−15, 15]. 10⁵ values are drawn from it (inverse CDF on the grid, uniform within a cell),
//! each is moved by one MTM step (q ∈ {1, 5}), and the moved values must still follow p: a χ²
//! test on 50 equiprobable bins and a Kolmogorov–Smirnov test, both at p > 10⁻³. The MTM without
//! the current value in the denominator must fail both at p < 10⁻⁶ (`mtm_detects_…`).

use causeway_papers::chain_rng;
use causeway_papers::dallaire2014::samplers::mtm::{ChildTerm, ln_f, mtm_step};
use rand::RngExt;
use statrs::distribution::{ChiSquared, ContinuousCDF};

const GRID: usize = 10_000;
const LO: f64 = -15.0;
const HI: f64 = 15.0;
const DRAWS: usize = 100_000;

struct Exact {
    /// CDF at the right edge of each cell.
    cdf: Vec<f64>,
}

impl Exact {
    fn new(y: f64, nu: f64, children: &[ChildTerm]) -> Self {
        let h = (HI - LO) / GRID as f64;
        let lp: Vec<f64> = (0..GRID)
            .map(|j| {
                let a = LO + (j as f64 + 0.5) * h;
                -0.5 * nu * (a - y) * (a - y) + ln_f(a, children)
            })
            .collect();
        let mx = lp.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let w: Vec<f64> = lp.iter().map(|l| (l - mx).exp()).collect();
        let tot: f64 = w.iter().sum();
        let mut acc = 0.0;
        let cdf = w
            .iter()
            .map(|x| {
                acc += x / tot;
                acc
            })
            .collect();
        Exact { cdf }
    }

    fn cdf_at(&self, a: f64) -> f64 {
        let h = (HI - LO) / GRID as f64;
        let t = ((a - LO) / h).clamp(0.0, GRID as f64);
        let j = (t.floor() as usize).min(GRID - 1);
        let left = if j == 0 { 0.0 } else { self.cdf[j - 1] };
        left + (self.cdf[j] - left) * (t - j as f64)
    }

    fn sample(&self, u: f64, v: f64) -> f64 {
        let h = (HI - LO) / GRID as f64;
        let j = self.cdf.partition_point(|&c| c < u).min(GRID - 1);
        LO + (j as f64 + v) * h
    }
}

/// (χ² p-value on 50 equiprobable bins, KS p-value) of the moved draws.
fn test_mtm(children: &[ChildTerm], q: usize, omit_current: bool, seed: u64) -> (f64, f64) {
    let (y, nu) = (0.3, 0.5);
    let ex = Exact::new(y, nu, children);
    let mut rng = chain_rng(seed, 0, 0, 0);
    let mut scratch = Vec::new();
    let mut us: Vec<f64> = Vec::with_capacity(DRAWS);
    for _ in 0..DRAWS {
        let a0 = ex.sample(rng.random(), rng.random());
        let (a1, _) = mtm_step(
            y,
            1.0 / nu.sqrt(),
            a0,
            children,
            q,
            omit_current,
            &mut scratch,
            &mut rng,
        );
        us.push(ex.cdf_at(a1));
    }
    let bins = 50;
    let mut counts = vec![0usize; bins];
    for &u in &us {
        counts[((u * bins as f64) as usize).min(bins - 1)] += 1;
    }
    let e = DRAWS as f64 / bins as f64;
    let chi2: f64 = counts.iter().map(|&c| (c as f64 - e).powi(2) / e).sum();
    let p_chi2 = ChiSquared::new((bins - 1) as f64)
        .map(|d| d.sf(chi2))
        .unwrap_or(f64::NAN);
    us.sort_by(f64::total_cmp);
    let n = DRAWS as f64;
    let d = us
        .iter()
        .enumerate()
        .map(|(i, &u)| (u - i as f64 / n).max((i + 1) as f64 / n - u))
        .fold(0.0, f64::max);
    let x = d * n.sqrt();
    let p_ks = (2.0
        * (1..=100)
            .map(|k| {
                let k = k as f64;
                (if k as usize % 2 == 1 { 1.0 } else { -1.0 }) * (-2.0 * k * k * x * x).exp()
            })
            .sum::<f64>())
    .clamp(0.0, 1.0);
    (p_chi2, p_ks)
}

fn one_child() -> Vec<ChildTerm> {
    vec![ChildTerm {
        r: 0.8,
        w: 2.0,
        nu: 4.0,
    }]
}

fn two_children() -> Vec<ChildTerm> {
    vec![
        ChildTerm {
            r: 0.8,
            w: 2.0,
            nu: 4.0,
        },
        ChildTerm {
            r: -0.5,
            w: -1.5,
            nu: 3.0,
        },
    ]
}

#[test]
fn dallaire2014_mtm_leaves_the_exact_conditional_invariant() {
    for (label, ch) in [("1 child", one_child()), ("2 children", two_children())] {
        for (q, seed) in [(1, 31), (5, 32)] {
            let (pc, pk) = test_mtm(&ch, q, false, seed + ch.len() as u64 * 10);
            println!("mtm {label}, q = {q}: χ² p = {pc:.4}, KS p = {pk:.4} ({DRAWS} draws)");
            assert!(
                pc > 1e-3 && pk > 1e-3,
                "{label}, q = {q}: χ² p = {pc}, KS p = {pk}"
            );
        }
    }
}

#[test]
fn dallaire2014_mtm_detects_missing_current_value() {
    for (label, ch) in [("1 child", one_child()), ("2 children", two_children())] {
        for (q, seed) in [(1, 41), (5, 42)] {
            let (pc, pk) = test_mtm(&ch, q, true, seed + ch.len() as u64 * 10);
            println!("mtm without current {label}, q = {q}: χ² p = {pc:.3e}, KS p = {pk:.3e}");
            assert!(
                pc < 1e-6 && pk < 1e-6,
                "{label}, q = {q}: χ² p = {pc}, KS p = {pk}"
            );
        }
    }
}

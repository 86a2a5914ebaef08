//! Uniformity tests of SBC ranks (each rank in `0..=L`, uniform under a correct sampler):
//! - [`chi_square`]: Pearson's χ² over B bins of the rank histogram (Talts et al. 2018 §4.1);
//! - [`ecdf_test`]: the ECDF-difference test with its simultaneous band (Säilynoja, Bürkner &
//!   Vehtari 2022, "Graphical test for discrete uniformity and its applications in goodness-of-fit
//!   evaluation and multiple sample comparison", Statistics and Computing 32:32, §2–3).
//! - [`binomial_band`]: the pointwise band of a rank histogram's bin counts (Talts et al. Fig. 1).

use rand::{RngExt, SeedableRng};
use statrs::distribution::{Binomial, ChiSquared, ContinuousCDF, DiscreteCDF};

use crate::seed::ChainRng;

/// Result of [`chi_square`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ChiSquare {
    /// Pearson's statistic Σ (O − E)² / E.
    pub statistic: f64,
    /// Degrees of freedom, B − 1.
    pub df: usize,
    /// Upper tail probability of χ²(df) at the statistic.
    pub p_value: f64,
    /// B, the bins used.
    pub bins: usize,
}

/// The default number of bins for S ranks among L draws: `min(L + 1, max(2, min(20, S / 10)))`
/// (at least ~10 expected counts per bin, at most 20 bins; Talts et al. use 20).
pub fn default_bins(simulations: usize, draws: u64) -> usize {
    let lp1 = (draws + 1).min(usize::MAX as u64) as usize;
    (simulations / 10).clamp(2, 20).min(lp1)
}

/// Bin of rank `r` (0..=L) among B bins of the L + 1 rank values: `⌊r B / (L + 1)⌋`.
pub fn bin_of(r: u64, draws: u64, bins: usize) -> usize {
    ((r as u128 * bins as u128) / (draws as u128 + 1)) as usize
}

/// Number of the L + 1 rank values that fall in each of B bins (as [`bin_of`] assigns them).
pub fn bin_widths(draws: u64, bins: usize) -> Vec<u64> {
    let mut w = vec![0u64; bins];
    // bin b holds the r with b (L+1) ≤ r B < (b+1)(L+1)
    for (b, wb) in w.iter_mut().enumerate() {
        let lo = (b as u128 * (draws as u128 + 1)).div_ceil(bins as u128);
        let hi = ((b as u128 + 1) * (draws as u128 + 1)).div_ceil(bins as u128);
        *wb = (hi - lo) as u64;
    }
    w
}

/// Pearson's χ² test that `ranks` (each in `0..=draws`) are uniform, over `bins` bins
/// (B = `bins.min(draws + 1)`, at least 1). Bins hold `⌈·⌉`-balanced runs of rank values; when
/// B does not divide L + 1, a bin's expected count is S × (its rank values) / (L + 1), exactly.
/// Ranks above L are counted in the last bin. An empty `ranks` gives statistic 0, p-value 1.
pub fn chi_square(ranks: &[u64], draws: u64, bins: usize) -> ChiSquare {
    let bins = bins.clamp(1, (draws + 1).min(usize::MAX as u64) as usize);
    let mut counts = vec![0u64; bins];
    for &r in ranks {
        counts[bin_of(r.min(draws), draws, bins)] += 1;
    }
    let s = ranks.len() as f64;
    let widths = bin_widths(draws, bins);
    let statistic: f64 = counts
        .iter()
        .zip(&widths)
        .map(|(&o, &w)| {
            let e = s * w as f64 / (draws + 1) as f64;
            if e > 0.0 {
                (o as f64 - e).powi(2) / e
            } else {
                0.0
            }
        })
        .sum();
    let df = bins.saturating_sub(1);
    let p_value = if df == 0 || ranks.is_empty() {
        1.0
    } else {
        ChiSquared::new(df as f64)
            .map(|d| d.sf(statistic))
            .unwrap_or(f64::NAN)
    };
    ChiSquare {
        statistic,
        df,
        p_value,
        bins,
    }
}

/// Central `level` pointwise interval of a bin count under uniformity: the (1 − level)/2 and
/// (1 + level)/2 quantiles of Binomial(S, w_b / (L + 1)) for each bin (the grey band of Talts et
/// al. Fig. 1). Returns `(lower, upper)` counts per bin.
pub fn binomial_band(simulations: usize, draws: u64, bins: usize, level: f64) -> Vec<(u64, u64)> {
    bin_widths(draws, bins)
        .into_iter()
        .map(|w| {
            let p = w as f64 / (draws + 1) as f64;
            match Binomial::new(p, simulations as u64) {
                Ok(b) => (
                    b.inverse_cdf((1.0 - level) / 2.0),
                    b.inverse_cdf((1.0 + level) / 2.0),
                ),
                Err(_) => (0, simulations as u64),
            }
        })
        .collect()
}

/// Result of [`ecdf_test`]: the ECDF difference of the ranks at the evaluation points
/// `z_j = j / (L + 1)`, `j = 1..=L`, its simultaneous band, and the test.
#[derive(Debug, Clone, PartialEq)]
pub struct EcdfTest {
    /// Evaluation points z_j.
    pub z: Vec<f64>,
    /// F̂(z_j) − z_j, where F̂(z_j) = #{i : r_i < j} / S.
    pub diff: Vec<f64>,
    /// The band's lower and upper limits of F̂(z_j) − z_j.
    pub lower: Vec<f64>,
    pub upper: Vec<f64>,
    /// The adjusted pointwise level γ: the band is the central 1 − γ binomial interval at every
    /// z_j, so that it holds all of an ECDF under uniformity with probability `level`.
    pub gamma: f64,
    /// The observed statistic: the smallest two-sided binomial tail probability over the z_j.
    pub statistic: f64,
    /// P(statistic ≤ observed) under uniformity, from the same simulations, `(1 + k) / (1 + M)`.
    pub p_value: f64,
}

/// Two-sided tail probability of `count` under Binomial(n, p):
/// `min(1, 2 min(P(X ≤ count), P(X ≥ count)))` (Säilynoja et al. 2022, eq. 6).
pub fn two_sided_tail(count: u64, n: u64, p: f64) -> f64 {
    let Ok(b) = Binomial::new(p, n) else {
        return 1.0;
    };
    let lower = b.cdf(count);
    let upper = if count == 0 { 1.0 } else { b.sf(count - 1) };
    (2.0 * lower.min(upper)).min(1.0)
}

/// min over j of [`two_sided_tail`] of the counts `below[j] = #{r < j}`, j = 1..=L.
fn min_tail(below: &[u64], s: u64, draws: u64) -> f64 {
    below
        .iter()
        .enumerate()
        .map(|(j, &c)| two_sided_tail(c, s, (j + 1) as f64 / (draws + 1) as f64))
        .fold(1.0, f64::min)
}

/// `below[j-1] = #{r < j}` for j = 1..=L.
fn counts_below(ranks: &[u64], draws: u64) -> Vec<u64> {
    let mut hist = vec![0u64; draws as usize + 1];
    for &r in ranks {
        hist[r.min(draws) as usize] += 1;
    }
    let mut below = Vec::with_capacity(draws as usize);
    let mut acc = 0;
    for h in &hist[..draws as usize] {
        acc += h;
        below.push(acc);
    }
    below
}

/// The ECDF-difference uniformity test of S ranks in `0..=draws` at simultaneous level `level`
/// (0.95 in the report), with the band by simulation (Säilynoja et al. 2022, §3, the simulation
/// method): M = `simulations` samples of S ranks uniform on `0..=L` are drawn from ChaCha20
/// seeded with `seed`; for each, the smallest two-sided binomial tail probability over the z_j;
/// γ is the (1 − level) quantile of those minima, and the band at z_j is the central 1 − γ
/// interval of Binomial(S, z_j) / S − z_j. The p-value is the share of simulated minima at or
/// below the observed one (with the usual +1 correction). Deterministic for a fixed `seed`.
/// Cost: O(M × L) binomial tails. Needs S ≥ 1, L ≥ 1.
pub fn ecdf_test(ranks: &[u64], draws: u64, level: f64, simulations: usize, seed: u64) -> EcdfTest {
    let s = ranks.len() as u64;
    let l = draws.max(1);
    let below = counts_below(ranks, l);
    let statistic = min_tail(&below, s, l);
    let mut rng = ChainRng::seed_from_u64(seed);
    let mut null = Vec::with_capacity(simulations);
    let mut sample = vec![0u64; s as usize];
    for _ in 0..simulations {
        for r in sample.iter_mut() {
            *r = rng.random_range(0..=l);
        }
        null.push(min_tail(&counts_below(&sample, l), s, l));
    }
    null.sort_by(f64::total_cmp);
    let m = null.len();
    let gamma = if m == 0 {
        1.0 - level
    } else {
        null[(((1.0 - level) * m as f64).floor() as usize).min(m - 1)]
    };
    let p_value = (1 + null.iter().filter(|&&v| v <= statistic).count()) as f64 / (1 + m) as f64;
    let z: Vec<f64> = (1..=l).map(|j| j as f64 / (l + 1) as f64).collect();
    let diff = below
        .iter()
        .zip(&z)
        .map(|(&c, &zj)| c as f64 / s.max(1) as f64 - zj)
        .collect();
    let (mut lower, mut upper) = (Vec::new(), Vec::new());
    for &zj in &z {
        let (lo, hi) = match Binomial::new(zj, s) {
            Ok(b) => (b.inverse_cdf(gamma / 2.0), b.inverse_cdf(1.0 - gamma / 2.0)),
            Err(_) => (0, s),
        };
        lower.push(lo as f64 / s.max(1) as f64 - zj);
        upper.push(hi as f64 / s.max(1) as f64 - zj);
    }
    EcdfTest {
        z,
        diff,
        lower,
        upper,
        gamma,
        statistic,
        p_value,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sbc_chi_square_matches_a_hand_computed_value() {
        // L = 2 (ranks 0, 1, 2), 3 bins; counts 10, 20, 30: expected 20 each, χ² = 10, df 2,
        // p = exp(-10/2) for 2 degrees of freedom.
        let mut ranks = vec![0; 10];
        ranks.extend(vec![1; 20]);
        ranks.extend(vec![2; 30]);
        let c = chi_square(&ranks, 2, 3);
        assert!((c.statistic - 10.0).abs() < 1e-12, "{c:?}");
        assert_eq!(c.df, 2);
        assert!((c.p_value - (-5.0f64).exp()).abs() < 1e-12, "{c:?}");
        // perfectly uniform counts
        let flat: Vec<u64> = (0..100).map(|i| i % 5).collect();
        let c = chi_square(&flat, 4, 5);
        assert_eq!(c.statistic, 0.0);
        assert!((c.p_value - 1.0).abs() < 1e-12);
    }

    #[test]
    fn sbc_bins_of_unequal_width_have_exact_expectations() {
        // L + 1 = 101 rank values in 20 bins: widths 5 or 6 summing to 101.
        let w = bin_widths(100, 20);
        assert_eq!(w.iter().sum::<u64>(), 101);
        assert!(w.iter().all(|&x| x == 5 || x == 6), "{w:?}");
        for r in 0..=100 {
            let b = bin_of(r, 100, 20);
            let lo: u64 = w[..b].iter().sum();
            assert!(r >= lo && r < lo + w[b], "rank {r} bin {b}");
        }
        // each rank value exactly once: χ² = 0
        let all: Vec<u64> = (0..=100).collect();
        assert!(chi_square(&all, 100, 20).statistic.abs() < 1e-12);
    }

    #[test]
    fn sbc_two_sided_tail_of_known_binomials() {
        assert!((two_sided_tail(0, 10, 0.5) - 2.0 * 0.5f64.powi(10)).abs() < 1e-15);
        assert!((two_sided_tail(10, 10, 0.5) - 2.0 * 0.5f64.powi(10)).abs() < 1e-15);
        assert_eq!(two_sided_tail(5, 10, 0.5), 1.0);
        // P(X ≤ 1) for Bin(4, 1/2) = 5/16, doubled
        assert!((two_sided_tail(1, 4, 0.5) - 10.0 / 16.0).abs() < 1e-15);
    }

    #[test]
    fn sbc_ecdf_band_has_its_simultaneous_coverage() {
        // The band is built from one set of null simulations; fresh uniform samples must fall
        // inside it everywhere about 95% of the time (2000 trials: sd of the share ≈ 0.005).
        let (s, l) = (200u64, 50u64);
        let t = ecdf_test(&vec![0; s as usize], l, 0.95, 2000, 7);
        assert!(t.gamma > 0.0 && t.gamma < 0.05, "γ = {}", t.gamma);
        let mut rng = ChainRng::seed_from_u64(99);
        let trials = 2000;
        let mut inside = 0;
        for _ in 0..trials {
            let ranks: Vec<u64> = (0..s).map(|_| rng.random_range(0..=l)).collect();
            let below = counts_below(&ranks, l);
            let ok = below.iter().enumerate().all(|(j, &c)| {
                let d = c as f64 / s as f64 - t.z[j];
                d >= t.lower[j] - 1e-12 && d <= t.upper[j] + 1e-12
            });
            inside += usize::from(ok);
        }
        let share = inside as f64 / trials as f64;
        assert!((0.93..=0.975).contains(&share), "coverage {share}");
        // all ranks 0: far outside, the smallest p-value the simulations can give
        assert!((t.p_value - 1.0 / 2001.0).abs() < 1e-12, "{}", t.p_value);
        assert!(t.diff.iter().all(|&d| d > 0.0));
    }

    #[test]
    fn sbc_ecdf_test_accepts_uniform_ranks_and_is_deterministic() {
        let mut rng = ChainRng::seed_from_u64(3);
        let ranks: Vec<u64> = (0..500).map(|_| rng.random_range(0..=99)).collect();
        let a = ecdf_test(&ranks, 99, 0.95, 500, 11);
        let b = ecdf_test(&ranks, 99, 0.95, 500, 11);
        assert_eq!(a, b);
        assert!(a.p_value > 0.05, "p = {}", a.p_value);
        // a rank histogram tilted towards 0 (the truth below most draws) is rejected
        let tilted: Vec<u64> = ranks.iter().map(|&r| r * r / 99).collect();
        assert!(ecdf_test(&tilted, 99, 0.95, 500, 11).p_value < 0.01);
        assert!(chi_square(&tilted, 99, 20).p_value < 1e-6);
    }
}

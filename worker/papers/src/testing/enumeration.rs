//! Exact-enumeration checks: compare the empirical distribution of a sampler's states (one final
//! state per independent chain, so the draws are i.i.d.) with an exact posterior computed by
//! enumerating every state of a tiny problem.
//!
//! Two statistics, reported together by [`gof`]:
//! - Pearson's chi-square test, with cells of expected count < 5 pooled (its p-value is the
//!   usual pass/fail criterion; the tests fail a sampler at p < 1e-3 or similar);
//! - the total-variation distance between empirical and exact distributions, with the 99.9 %
//!   quantile of its null distribution simulated from i.i.d. exact draws of the same size (the
//!   threshold: a correct sampler exceeds it with probability 1e-3).

use std::collections::HashMap;
use std::hash::Hash;

use rand::RngExt;
use statrs::distribution::{ChiSquared, ContinuousCDF};

use crate::chain::Sampler;
use crate::seed::{ChainRng, chain_rng};

/// An exact (possibly truncated) distribution over states summarised by a key `K`.
#[derive(Debug, Clone)]
pub struct Exact<K> {
    /// Probability of each enumerated key, normalised over the enumerated states (sums to 1).
    pub probs: HashMap<K, f64>,
    /// Mass of the enumerated states at the truncation boundary, relative to the total (0 when
    /// nothing was truncated); a test shows the truncation is negligible by bounding it.
    pub boundary_mass: f64,
}

impl<K: Eq + Hash> Exact<K> {
    /// Normalise unnormalised weights `w` (each ≥ 0, at least one > 0); `boundary` is the
    /// unnormalised weight of the states at the truncation boundary (0 if none).
    pub fn normalise(w: HashMap<K, f64>, boundary: f64) -> Self {
        let z: f64 = w.values().sum();
        Exact {
            probs: w.into_iter().map(|(k, v)| (k, v / z)).collect(),
            boundary_mass: boundary / z,
        }
    }
}

/// Run `chains` independent chains (ChaCha streams `chain_rng(seed, 17, 0, c)` for
/// `c = 0..chains`), each built by `make` from its own stream and stepped `sweeps` times, and
/// count the keys (`key`) of their final states. Panics if a step fails.
pub fn final_state_counts<S: Sampler, K: Eq + Hash>(
    chains: u64,
    sweeps: u64,
    seed: u64,
    mut make: impl FnMut(&mut ChainRng) -> S,
    key: impl Fn(&S) -> K,
) -> HashMap<K, u64> {
    let mut counts = HashMap::new();
    for c in 0..chains {
        let mut rng = chain_rng(seed, 17, 0, c);
        let mut s = make(&mut rng);
        for _ in 0..sweeps {
            // Test harness (feature `testing`): a sampler error is the test's failure.
            s.step(&mut rng).expect("step");
        }
        *counts.entry(key(&s)).or_insert(0) += 1;
    }
    counts
}

/// Goodness of fit of sampled counts to an exact distribution (see [`gof`]).
#[derive(Debug, Clone)]
pub struct Gof {
    /// Number of sampled states.
    pub samples: u64,
    /// Pearson's chi-square statistic over the pooled cells.
    pub chi2: f64,
    /// Degrees of freedom: number of cells − 1.
    pub df: usize,
    /// Upper-tail probability of `chi2` under χ²(df) (NaN if df = 0).
    pub p_value: f64,
    /// Total-variation distance between the empirical and exact distributions, in [0, 1].
    pub tv: f64,
    /// 99.9% quantile of the TV distance of `samples` i.i.d. draws from the exact distribution
    /// (simulated, 1000 replicates; the principled threshold for `tv`).
    pub tv_null_q999: f64,
}

/// Pearson chi-square test (cells with expected count < 5 pooled into one, together with every
/// sampled state outside the enumeration; if the pool's expectation is still < 5 it joins the
/// smallest kept cell) and TV distance with its simulated null quantile (1000 replicates from
/// stream `chain_rng(seed, 99, 0, 0)`). Keys are visited in sorted order so the result depends
/// only on the inputs and `seed`. Panics if `counts` is empty.
pub fn gof<K: Eq + Hash + Ord>(exact: &Exact<K>, counts: &HashMap<K, u64>, seed: u64) -> Gof {
    let m: u64 = counts.values().sum();
    let mf = m as f64;
    let mut keys: Vec<&K> = exact.probs.keys().collect();
    keys.sort();
    let mut cells: Vec<(f64, f64)> = Vec::new(); // (expected, observed)
    let (mut pool_e, mut pool_o) = (0.0, 0.0);
    let mut kept_obs = 0u64;
    for k in &keys {
        let e = exact.probs[*k] * mf;
        let o = *counts.get(*k).unwrap_or(&0);
        if e >= 5.0 {
            cells.push((e, o as f64));
            kept_obs += o;
        } else {
            pool_e += e;
        }
    }
    pool_o += (m - kept_obs) as f64; // includes states outside the enumeration
    pool_e = (mf - cells.iter().map(|c| c.0).sum::<f64>()).max(pool_e);
    if pool_e >= 5.0 || cells.is_empty() {
        cells.push((pool_e, pool_o));
    } else if let Some(j) = (0..cells.len()).min_by(|&a, &b| cells[a].0.total_cmp(&cells[b].0)) {
        // `cells` is non-empty here
        cells[j].0 += pool_e;
        cells[j].1 += pool_o;
    }
    let chi2: f64 = cells.iter().map(|(e, o)| (o - e) * (o - e) / e).sum();
    let df = cells.len() - 1;
    let p_value = ChiSquared::new(df as f64)
        .map(|d| d.sf(chi2))
        .unwrap_or(f64::NAN);
    let tv = tv_distance(exact, counts, m);
    // null distribution of TV by simulation
    let probs: Vec<f64> = keys.iter().map(|k| exact.probs[*k]).collect();
    let mut cum = Vec::with_capacity(probs.len());
    let mut s = 0.0;
    for p in &probs {
        s += p;
        cum.push(s);
    }
    let mut rng = chain_rng(seed, 99, 0, 0);
    let reps = 1000;
    let mut tvs = Vec::with_capacity(reps);
    let mut sim = vec![0u64; probs.len()];
    for _ in 0..reps {
        sim.iter_mut().for_each(|v| *v = 0);
        for _ in 0..m {
            let u: f64 = rng.random::<f64>() * s;
            let j = cum.partition_point(|&c| c <= u).min(probs.len() - 1);
            sim[j] += 1;
        }
        let tvs_r: f64 = probs
            .iter()
            .zip(&sim)
            .map(|(p, &c)| (c as f64 / mf - p).abs())
            .sum::<f64>()
            / 2.0;
        tvs.push(tvs_r);
    }
    tvs.sort_by(f64::total_cmp);
    let tv_null_q999 = tvs[(reps * 999) / 1000];
    Gof {
        samples: m,
        chi2,
        df,
        p_value,
        tv,
        tv_null_q999,
    }
}

/// Total-variation distance `½ Σ_k |counts_k / m − P_k|` between the empirical distribution of
/// `counts` (with `m` = their total) and `exact`; sampled keys outside the enumeration count in
/// full. In [0, 1].
pub fn tv_distance<K: Eq + Hash>(exact: &Exact<K>, counts: &HashMap<K, u64>, m: u64) -> f64 {
    let mf = m as f64;
    let mut tv = 0.0;
    for (k, p) in &exact.probs {
        let f = *counts.get(k).unwrap_or(&0) as f64 / mf;
        tv += (f - p).abs();
    }
    for (k, c) in counts {
        if !exact.probs.contains_key(k) {
            tv += *c as f64 / mf;
        }
    }
    tv / 2.0
}

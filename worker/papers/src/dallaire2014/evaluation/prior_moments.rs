//! The exact prior moments of the CIBP and eCIBP structure (`prior_moments.csv`,
//! "Exact values"), and a Rao-Blackwellized forward estimate of `p_no_jump` for the eCIBP.
//!
//! Paper `004_74db43a26dbf0fa1.txt`, eqs 3–9. Layer 0 holds the d observed units; an IBP(α, β)
//! runs between each pair of adjacent layers, the units of layer m−1 being the customers and
//! those of layer m the dishes. Summing the new-dish rates αβ/(β+j−1) of the customers gives the
//! layer-size chain
//!
//! K^(0) = d,   K^(m) | K^(m−1) ~ Poisson(α H(K^(m−1))),   H(K) = Σ_{j=1}^{K} β/(β+j−1),
//!
//! a Markov chain absorbed at 0 (the first empty layer stops the cascade). From it:
//! - E[n_units] = d + Σ_{m≥1} E K^(m) (observed units included);
//! - E[adjacent edges] = α·E[n_units] (each customer of an IBP(α, β) takes α dishes on average,
//!   and every unit is a customer of the next layer, the last one included);
//! - E[n_jump_edges] = Σ_{s≥0} Σ_{t≥s+1} E[K^(s)·αK^(t)/(β+K^(t))] for the eCIBP (a layer-s unit
//!   joins unit k of layer t+1 with marginal probability q_k = n_k/(β+K^(t)), eq 9, and
//!   E[Σ_k n_k | K^(t)] = αK^(t)); 0 for the CIBP;
//! - E[depth] = 1 + Σ_{m≥1} P(K^(m) > 0) (depth counts layer 0);
//! - p_no_hidden = P(K^(1) = 0) = exp(−αH(d));
//! - p_depth_ge_3 = P(K^(2) > 0).
//!
//! [`exact_prior_moments`] propagates the distribution of K^(m) on a truncated support
//! {0, …, k_max}, and, for the jump term, the K^(s)-weighted measures
//! w_t(k) = Σ_{s<t} E[K^(s)·1{K^(t) = k}], which obey the same linear recursion
//! w_{t+1} = (w_t + k·p_t)·P. The truncation k_max is doubled until the probability mass lost
//! (off the support, plus the survival left when the recursion stops) is below
//! [`NEGLECTED_MASS_TOL`]; the mass is reported in [`PriorMoments::neglected_mass`].
//!
//! `p_no_jump` has no closed form for the eCIBP: [`rao_blackwell_p_no_jump`] averages, over
//! forward CIBP draws, the exact conditional probability Π_{m≥2} Π_{k ∈ layer m} Π_{s≤m−2}
//! B(β′q_k, β′(1−q_k)+K^(s)) / B(β′q_k, β′(1−q_k)) that no layer-s customer joins unit k.

use rand::RngExt;
use rand_distr::{Distribution, Poisson};
use statrs::function::gamma::ln_gamma;

/// Upper bound on the probability mass neglected by [`exact_prior_moments`].
pub const NEGLECTED_MASS_TOL: f64 = 1e-12;

/// The recursion stops once P(K^(m) > 0) is below this (the rest is counted as neglected mass).
const STOP_SURVIVAL: f64 = 1e-15;

/// Most layers [`exact_prior_moments`] propagates before giving up (α too large: the layer-size
/// chain then lingers near a positive fixed point of K = αH(K) for astronomically many layers).
pub const MAX_LAYERS: usize = 100_000;

/// Largest truncation point k_max tried by [`exact_prior_moments`].
pub const MAX_SUPPORT: usize = 1 << 15;

/// The exact prior moments of the structure for one (d, α, β, prior). Counts
/// include the observed units; depth counts layer 0.
#[derive(Debug, Clone, PartialEq)]
pub struct PriorMoments {
    /// Number of observed units d (layer 0).
    pub d: usize,
    /// IBP concentration α.
    pub alpha: f64,
    /// IBP stick β.
    pub beta: f64,
    /// True for the eCIBP (jump edges), false for the CIBP.
    pub jumps: bool,
    /// E[n_units] = d + Σ_{m≥1} E K^(m).
    pub n_units: f64,
    /// E[n_edges] = E[adjacent edges] + E[n_jump_edges].
    pub n_edges: f64,
    /// E[adjacent edges] = α·E[n_units].
    pub n_adjacent_edges: f64,
    /// E[n_jump_edges]: Σ_{s≥0} Σ_{t≥s+1} E[K^(s)·αK^(t)/(β+K^(t))] for the eCIBP, 0 for the CIBP.
    pub n_jump_edges: f64,
    /// E[depth] = 1 + Σ_{m≥1} P(K^(m) > 0).
    pub depth: f64,
    /// P(n_units = d) = exp(−αH(d)).
    pub p_no_hidden: f64,
    /// P(depth ≥ 3) = P(K^(2) > 0).
    pub p_depth_ge_3: f64,
    /// P(n_jump_edges = 0): `Some(1.0)` for the CIBP, `None` for the eCIBP (no closed form; see
    /// [`rao_blackwell_p_no_jump`]).
    pub p_no_jump: Option<f64>,
    /// E K^(m) for m = 0, 1, …, up to the last layer propagated (entry 0 is d).
    pub layer_size_means: Vec<f64>,
    /// Truncation point of the support of K^(m) that met the tolerance.
    pub k_max: usize,
    /// Probability mass neglected: lost off {0, …, k_max} over all layers, plus P(K^(M) > 0) at
    /// the last layer M propagated. Below [`NEGLECTED_MASS_TOL`].
    pub neglected_mass: f64,
}

/// H(K) = Σ_{j=1}^{K} β/(β+j−1): the total new-unit rate of K customers divided by α (eq 5 of
/// `004_74db43a26dbf0fa1.txt`). H(0) = 0, H(1) = 1; for β = 1 it is the harmonic
/// number H_K.
pub fn beta_harmonic(k: usize, beta: f64) -> f64 {
    (1..=k).map(|j| beta / (beta + (j - 1) as f64)).sum()
}

/// One row of the truncated transition matrix: P(K^(m) = lo + i | K^(m−1) = k) = pmf[i], and
/// the mass above k_max in `tail`.
struct Row {
    lo: usize,
    pmf: Vec<f64>,
    tail: f64,
}

/// Rows k = 0..=k_max of the layer-size transition Poisson(αH(k)), each kept on the band
/// λ ± (40√λ + 40) (outside it the Poisson mass is below 1e-40).
fn transition_rows(alpha: f64, beta: f64, k_max: usize) -> Vec<Row> {
    let mut h = vec![0.0; k_max + 1];
    for k in 1..=k_max {
        h[k] = h[k - 1] + beta / (beta + (k - 1) as f64);
    }
    let band = |lambda: f64| 40.0 * lambda.sqrt() + 40.0;
    let lambda_max = alpha * h[k_max];
    let top = (lambda_max + band(lambda_max)).ceil() as usize + 1;
    let top = top.max(k_max + 1);
    // ln j! for j = 0..=top.
    let mut ln_fact = vec![0.0; top + 1];
    for j in 1..=top {
        ln_fact[j] = ln_fact[j - 1] + (j as f64).ln();
    }
    let mut rows = Vec::with_capacity(k_max + 1);
    rows.push(Row {
        lo: 0,
        pmf: vec![1.0],
        tail: 0.0,
    });
    for &hk in h.iter().skip(1) {
        let lambda = alpha * hk;
        let ln_lambda = lambda.ln();
        let lo = (lambda - band(lambda)).floor().max(0.0) as usize;
        let hi_full = ((lambda + band(lambda)).ceil() as usize).min(top);
        let hi = hi_full.min(k_max);
        let term = |j: usize| (j as f64 * ln_lambda - lambda - ln_fact[j]).exp();
        let pmf: Vec<f64> = if lo <= hi {
            (lo..=hi).map(term).collect()
        } else {
            Vec::new()
        };
        let tail: f64 = ((hi + 1).max(lo)..=hi_full).map(term).sum();
        rows.push(Row {
            lo: lo.min(k_max),
            pmf,
            tail,
        });
    }
    rows
}

/// One step of the chain for a (possibly weighted) measure `v` on {0, …, k_max}: returns v·P and
/// the mass of v·P that fell above k_max.
fn step(rows: &[Row], v: &[f64]) -> (Vec<f64>, f64) {
    let mut out = vec![0.0; v.len()];
    let mut lost = 0.0;
    for (vk, row) in v.iter().zip(rows) {
        if *vk == 0.0 {
            continue;
        }
        for (o, q) in out[row.lo..].iter_mut().zip(&row.pmf) {
            *o += vk * q;
        }
        lost += vk * row.tail;
    }
    (out, lost)
}

/// The moments for one truncation point; `Err` if the chain has not died out after
/// [`MAX_LAYERS`] layers.
fn moments_at(
    d: usize,
    alpha: f64,
    beta: f64,
    jumps: bool,
    k_max: usize,
) -> Result<PriorMoments, String> {
    let rows = transition_rows(alpha, beta, k_max);
    let g = |k: usize| alpha * k as f64 / (beta + k as f64);
    let mut p = vec![0.0; k_max + 1];
    p[d] = 1.0;
    let mut w = vec![0.0; k_max + 1];
    let mut n_units = d as f64;
    let mut depth = 1.0;
    let mut n_jump_edges = 0.0;
    let mut p_depth_ge_3 = 0.0;
    let mut neglected = 0.0;
    let mut layer_size_means = vec![d as f64];
    let mut layers = 0usize;
    loop {
        if layers >= MAX_LAYERS {
            return Err(format!(
                "the CIBP layer-size chain (d = {d}, alpha = {alpha}, beta = {beta}) still has \
                 P(K > 0) = {:.3e} after {MAX_LAYERS} layers: alpha is too large for the prior to \
                 have a usefully finite depth",
                1.0 - p[0]
            ));
        }
        let w_in: Vec<f64> = if jumps {
            w.iter()
                .zip(&p)
                .enumerate()
                .map(|(k, (wk, pk))| wk + k as f64 * pk)
                .collect()
        } else {
            Vec::new()
        };
        let (p_next, lost) = step(&rows, &p);
        p = p_next;
        neglected += lost;
        layers += 1;
        let mean: f64 = p.iter().enumerate().map(|(k, pk)| k as f64 * pk).sum();
        let survival: f64 = p[1..].iter().sum();
        n_units += mean;
        depth += survival;
        layer_size_means.push(mean);
        if layers == 2 {
            p_depth_ge_3 = survival;
        }
        let mut w_alive = 0.0;
        if jumps {
            w = step(&rows, &w_in).0;
            n_jump_edges += w.iter().enumerate().map(|(k, wk)| wk * g(k)).sum::<f64>();
            w_alive = w[1..].iter().sum();
        }
        if survival < STOP_SURVIVAL && w_alive < STOP_SURVIVAL * n_units {
            neglected += survival;
            break;
        }
    }
    let n_adjacent_edges = alpha * n_units;
    Ok(PriorMoments {
        d,
        alpha,
        beta,
        jumps,
        n_units,
        n_edges: n_adjacent_edges + n_jump_edges,
        n_adjacent_edges,
        n_jump_edges,
        depth,
        p_no_hidden: (-alpha * beta_harmonic(d, beta)).exp(),
        p_depth_ge_3,
        p_no_jump: if jumps { None } else { Some(1.0) },
        layer_size_means,
        k_max,
        neglected_mass: neglected,
    })
}

/// Exact prior moments of the structure for d observed units,
/// IBP(α, β) between adjacent layers, and jump edges (`jumps`, the eCIBP) or not (the CIBP).
/// β′ does not enter: a layer-s unit joins a unit k two or more layers up with marginal
/// probability q_k whatever β′.
///
/// Computed by propagating the distribution of K^(m) on {0, …, k_max}, k_max doubled from
/// max(64, 2d + 16) until the neglected mass is below [`NEGLECTED_MASS_TOL`] (module doc).
/// Cost O(layers × k_max × band), milliseconds for the settings of `prior.yaml`.
///
/// Errors: d = 0; α or β not finite and positive; the chain not dead after [`MAX_LAYERS`] layers
/// (α too large); the tolerance not met by k_max = [`MAX_SUPPORT`].
pub fn exact_prior_moments(
    d: usize,
    alpha: f64,
    beta: f64,
    jumps: bool,
) -> Result<PriorMoments, String> {
    if d == 0 {
        return Err("the prior moments need d >= 1 observed units".into());
    }
    if !(alpha.is_finite() && alpha > 0.0) {
        return Err(format!("alpha must be finite and > 0, got {alpha}"));
    }
    if !(beta.is_finite() && beta > 0.0) {
        return Err(format!("beta must be finite and > 0, got {beta}"));
    }
    let mut k_max = (2 * d + 16).max(64);
    loop {
        if k_max > MAX_SUPPORT {
            return Err(format!(
                "the layer sizes of the CIBP (d = {d}, alpha = {alpha}, beta = {beta}) need a \
                 support larger than {MAX_SUPPORT} to neglect less than {NEGLECTED_MASS_TOL:e} of \
                 the mass"
            ));
        }
        let m = moments_at(d, alpha, beta, jumps, k_max)?;
        if m.neglected_mass < NEGLECTED_MASS_TOL {
            return Ok(m);
        }
        k_max *= 2;
    }
}

/// One forward draw of the CIBP structure (eqs 3–7 of `004_74db43a26dbf0fa1.txt`), counts only.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CibpDraw {
    /// K^(0) = d, K^(1), …, K^(L): the sizes of the non-empty layers (the empty layer L+1 that
    /// stops the cascade is not listed). depth = `layer_sizes.len()`.
    pub layer_sizes: Vec<usize>,
    /// `n_children[m][k]` = n_k^(m−1,m), the number of layer-(m−1) children of unit k of layer m,
    /// for m = 1..=L (each ≥ 1); `n_children[0]` is empty. Σ over all = the adjacent edges.
    pub n_children: Vec<Vec<usize>>,
}

impl CibpDraw {
    /// Total number of units (observed included).
    pub fn n_units(&self) -> usize {
        self.layer_sizes.iter().sum()
    }

    /// Number of adjacent-layer edges Σ_m Σ_k n_k^(m−1,m).
    pub fn n_adjacent_edges(&self) -> usize {
        self.n_children.iter().flatten().sum()
    }
}

/// Draw a Poisson(rate) count (rate ≤ 0 gives 0).
fn poisson<R: rand::Rng + ?Sized>(rate: f64, rng: &mut R) -> Result<usize, String> {
    if rate <= 0.0 {
        return Ok(0);
    }
    let dist = Poisson::new(rate).map_err(|e| format!("Poisson({rate}): {e}"))?;
    let v: f64 = dist.sample(rng);
    Ok(v as usize)
}

/// Draw the CIBP structure forward (eqs 3–7): starting from the d observed units, customer j of
/// layer m−1 (j = 1…K^(m−1)) takes each existing unit k of layer m with probability
/// n_k/(β+j−1) and creates Poisson(αβ/(β+j−1)) new units; recurse until a layer is empty.
///
/// Errors: α, β not finite and positive; more than `max_units` units in total (the prior is
/// heavy-tailed; the caller decides how to treat such a draw).
pub fn sample_cibp_structure<R: rand::Rng + ?Sized>(
    d: usize,
    alpha: f64,
    beta: f64,
    max_units: usize,
    rng: &mut R,
) -> Result<CibpDraw, String> {
    if !(alpha.is_finite() && alpha > 0.0 && beta.is_finite() && beta > 0.0) {
        return Err(format!(
            "alpha and beta must be finite and > 0, got {alpha}, {beta}"
        ));
    }
    let mut layer_sizes = vec![d];
    let mut n_children: Vec<Vec<usize>> = vec![Vec::new()];
    let mut total = d;
    let mut customers = d;
    while customers > 0 {
        let mut counts: Vec<usize> = Vec::new();
        for j in 1..=customers {
            let denom = beta + (j - 1) as f64;
            for c in counts.iter_mut() {
                if rng.random::<f64>() < *c as f64 / denom {
                    *c += 1;
                }
            }
            let new = poisson(alpha * beta / denom, rng)?;
            if total + counts.len() + new > max_units {
                return Err(format!(
                    "a CIBP draw exceeded max_units = {max_units} units"
                ));
            }
            counts.extend(std::iter::repeat_n(1, new));
        }
        customers = counts.len();
        if customers == 0 {
            break;
        }
        total += customers;
        layer_sizes.push(customers);
        n_children.push(counts);
    }
    Ok(CibpDraw {
        layer_sizes,
        n_children,
    })
}

/// ln P(no jump edge | CIBP structure) for the eCIBP with parameter β′ (eq 9 marginalized, issue
/// 17 §1): Σ_{m≥2} Σ_{k ∈ layer m} Σ_{s≤m−2} ln[B(β′q_k, β′(1−q_k)+K^(s)) / B(β′q_k, β′(1−q_k))],
/// q_k = n_k/(β + K^(m−1)). Each term is lnΓ(b+K) − lnΓ(b) + lnΓ(β′) − lnΓ(β′+K), b = β′(1−q_k).
pub fn log_p_no_jump_given_structure(draw: &CibpDraw, beta: f64, beta_prime: f64) -> f64 {
    let sizes = &draw.layer_sizes;
    let mut total = 0.0;
    for m in 2..sizes.len() {
        let denom = beta + sizes[m - 1] as f64;
        for &n_k in &draw.n_children[m] {
            let q = n_k as f64 / denom;
            let b = beta_prime * (1.0 - q);
            for &k_s in &sizes[..m - 1] {
                let ks = k_s as f64;
                total += ln_gamma(b + ks) - ln_gamma(b) + ln_gamma(beta_prime)
                    - ln_gamma(beta_prime + ks);
            }
        }
    }
    total
}

/// A forward Monte Carlo estimate: mean of `draws` i.i.d. values and its standard error sd/√draws.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ForwardEstimate {
    /// Sample mean.
    pub mean: f64,
    /// Standard error sd/√draws (sample sd, n−1 divisor).
    pub se: f64,
    /// Number of draws averaged.
    pub draws: usize,
}

/// Rao-Blackwellized forward estimate of p_no_jump = P(n_jump_edges = 0) for the eCIBP
/// §4): the mean over `draws` forward CIBP structures ([`sample_cibp_structure`]) of
/// exp([`log_p_no_jump_given_structure`]), with its standard error.
///
/// Errors: `draws` < 2; α, β, β′ not finite and positive; a draw above `max_units` units (the
/// estimate would otherwise be biased by dropping it).
pub fn rao_blackwell_p_no_jump<R: rand::Rng + ?Sized>(
    d: usize,
    alpha: f64,
    beta: f64,
    beta_prime: f64,
    draws: usize,
    max_units: usize,
    rng: &mut R,
) -> Result<ForwardEstimate, String> {
    if draws < 2 {
        return Err(format!("need at least 2 draws, got {draws}"));
    }
    if !(beta_prime.is_finite() && beta_prime > 0.0) {
        return Err(format!(
            "beta_prime must be finite and > 0, got {beta_prime}"
        ));
    }
    let mut sum = 0.0;
    let mut sum_sq = 0.0;
    for _ in 0..draws {
        let draw = sample_cibp_structure(d, alpha, beta, max_units, rng)?;
        let v = log_p_no_jump_given_structure(&draw, beta, beta_prime).exp();
        sum += v;
        sum_sq += v * v;
    }
    let n = draws as f64;
    let mean = sum / n;
    let var = ((sum_sq - n * mean * mean) / (n - 1.0)).max(0.0);
    Ok(ForwardEstimate {
        mean,
        se: (var / n).sqrt(),
        draws,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::seed::chain_rng;

    /// The three (α, β, β′) of `prior.yaml`.
    const SETTINGS: [(f64, f64, f64); 3] = [(1.0, 1.0, 1.0), (0.5, 1.0, 2.0), (1.0, 2.0, 0.5)];

    /// Running mean and standard error of i.i.d. values.
    #[derive(Default)]
    struct Acc {
        n: f64,
        sum: f64,
        sum_sq: f64,
    }

    impl Acc {
        fn push(&mut self, v: f64) {
            self.n += 1.0;
            self.sum += v;
            self.sum_sq += v * v;
        }
        fn mean(&self) -> f64 {
            self.sum / self.n
        }
        fn se(&self) -> f64 {
            let m = self.mean();
            ((self.sum_sq - self.n * m * m) / (self.n - 1.0) / self.n)
                .max(0.0)
                .sqrt()
        }
        fn z(&self, exact: f64) -> f64 {
            (self.mean() - exact) / self.se()
        }
    }

    fn poisson_pmf(k: usize, lambda: f64) -> f64 {
        (k as f64 * lambda.ln() - lambda - ln_gamma(k as f64 + 1.0)).exp()
    }

    #[test]
    fn dallaire2014_prior_moments_hand_values() {
        let cibp = exact_prior_moments(1, 1.0, 1.0, false).unwrap();
        let ecibp = exact_prior_moments(1, 1.0, 1.0, true).unwrap();
        assert!((cibp.p_no_hidden - (-1.0f64).exp()).abs() < 1e-15);
        assert!(
            (cibp.layer_size_means[1] - 1.0).abs() < 1e-12,
            "E K1 = alpha H(1) = 1"
        );
        // P(K2 > 0) = Σ_k Poisson(k; 1) (1 − exp(−H_k)), H_k harmonic numbers.
        let hand: f64 = (1..60)
            .map(|k| poisson_pmf(k, 1.0) * (1.0 - (-beta_harmonic(k, 1.0)).exp()))
            .sum();
        assert!(
            (cibp.p_depth_ge_3 - hand).abs() < 1e-13,
            "{} vs {hand}",
            cibp.p_depth_ge_3
        );
        assert_eq!(cibp.p_no_jump, Some(1.0));
        assert_eq!(ecibp.p_no_jump, None);
        assert_eq!(cibp.n_jump_edges, 0.0);
        assert!((cibp.n_units - ecibp.n_units).abs() < 1e-12);
        assert!(
            (cibp.n_adjacent_edges - cibp.n_units).abs() < 1e-12,
            "alpha = 1"
        );
        assert!((ecibp.n_edges - ecibp.n_adjacent_edges - ecibp.n_jump_edges).abs() < 1e-12);
        assert!(ecibp.n_jump_edges > 0.0);
        assert!(cibp.depth > 1.0 + (1.0 - (-1.0f64).exp()) - 1e-12);
        // Jumps from layer 0 into layer 2 alone: E[1·K1/(1+K1)], K1 ~ Poisson(1).
        let first: f64 = (1..60)
            .map(|k| poisson_pmf(k, 1.0) * k as f64 / (1.0 + k as f64))
            .sum();
        assert!(ecibp.n_jump_edges > first);
        // Small α: n_units = d + αH(d) + O(α²).
        let a = 1e-4;
        let small = exact_prior_moments(3, a, 1.0, false).unwrap();
        let lead = 3.0 + a * beta_harmonic(3, 1.0);
        assert!(
            (small.n_units - lead).abs() < 10.0 * a * a,
            "{} vs {lead}",
            small.n_units
        );
        assert!((beta_harmonic(3, 2.0) - (1.0 + 2.0 / 3.0 + 0.5)).abs() < 1e-15);
    }

    #[test]
    fn dallaire2014_prior_moments_truncation_is_reported_and_converged() {
        for d in [1, 2] {
            for (alpha, beta, _) in SETTINGS {
                let m = exact_prior_moments(d, alpha, beta, true).unwrap();
                eprintln!(
                    "d={d} alpha={alpha} beta={beta}: n_units {:.6} n_edges {:.6} (adjacent \
                     {:.6}, jumps {:.6}) depth {:.6} p_no_hidden {:.6} p_depth_ge_3 {:.6}; \
                     k_max {} layers {} neglected {:.2e}",
                    m.n_units,
                    m.n_edges,
                    m.n_adjacent_edges,
                    m.n_jump_edges,
                    m.depth,
                    m.p_no_hidden,
                    m.p_depth_ge_3,
                    m.k_max,
                    m.layer_size_means.len() - 1,
                    m.neglected_mass
                );
                assert!(
                    m.neglected_mass < NEGLECTED_MASS_TOL,
                    "{}",
                    m.neglected_mass
                );
                let wide = moments_at(d, alpha, beta, true, 4 * m.k_max).unwrap();
                for (a, b) in [
                    (m.n_units, wide.n_units),
                    (m.n_jump_edges, wide.n_jump_edges),
                    (m.depth, wide.depth),
                    (m.p_depth_ge_3, wide.p_depth_ge_3),
                ] {
                    assert!((a - b).abs() < 1e-10 * b.abs().max(1.0), "{a} vs {b}");
                }
            }
        }
    }

    #[test]
    fn dallaire2014_prior_moments_refuses_bad_input() {
        assert!(exact_prior_moments(0, 1.0, 1.0, true).is_err());
        assert!(exact_prior_moments(1, 0.0, 1.0, true).is_err());
        assert!(exact_prior_moments(1, 1.0, -1.0, true).is_err());
        assert!(exact_prior_moments(1, f64::NAN, 1.0, true).is_err());
        // α = 30: the chain sits near K = αH(K) ≈ 140 and practically never dies.
        let e = exact_prior_moments(1, 30.0, 1.0, false).unwrap_err();
        assert!(e.contains("alpha"), "{e}");
        let mut rng = chain_rng(1, 2, 3, 4);
        assert!(rao_blackwell_p_no_jump(1, 1.0, 1.0, 0.0, 10, 100, &mut rng).is_err());
        assert!(rao_blackwell_p_no_jump(1, 1.0, 1.0, 1.0, 1, 100, &mut rng).is_err());
    }

    /// Direct simulation of the layer-size chain K^(m) ~ Poisson(αH(K^(m−1))).
    #[test]
    fn dallaire2014_prior_moments_match_layer_chain_monte_carlo() {
        let draws = 100_000;
        for d in [1usize, 2] {
            for (cell, (alpha, beta, _)) in SETTINGS.into_iter().enumerate() {
                let exact = exact_prior_moments(d, alpha, beta, false).unwrap();
                let mut rng = chain_rng(17, cell as u64, d as u64, 0);
                let (mut units, mut depth, mut none, mut deep) = (
                    Acc::default(),
                    Acc::default(),
                    Acc::default(),
                    Acc::default(),
                );
                for _ in 0..draws {
                    let (mut k, mut n, mut layers) = (d, d, 1usize);
                    while k > 0 {
                        k = poisson(alpha * beta_harmonic(k, beta), &mut rng).unwrap();
                        n += k;
                        layers += usize::from(k > 0);
                    }
                    units.push(n as f64);
                    depth.push(layers as f64);
                    none.push(f64::from(u8::from(n == d)));
                    deep.push(f64::from(u8::from(layers >= 3)));
                }
                for (name, acc, value) in [
                    ("n_units", &units, exact.n_units),
                    ("depth", &depth, exact.depth),
                    ("p_no_hidden", &none, exact.p_no_hidden),
                    ("p_depth_ge_3", &deep, exact.p_depth_ge_3),
                ] {
                    let z = acc.z(value);
                    eprintln!("layer chain d={d} ({alpha},{beta}) {name}: z = {z:.2}");
                    assert!(
                        z.abs() < 4.5,
                        "d={d} alpha={alpha} beta={beta} {name}: MC {} ± {} vs exact {value} (z = {z})",
                        acc.mean(),
                        acc.se()
                    );
                }
            }
        }
    }

    /// Jump edges of one CIBP draw, drawn customer by customer from eq 9:
    /// customer j of layer s joins unit k of layer m ≥ s+2 with probability
    /// (β′q_k + c_k)/(β′ + j − 1 + `denominator_shift`). Shift 0 is eq 9; 1 is a defect.
    fn simulate_jumps(
        draw: &CibpDraw,
        beta: f64,
        beta_prime: f64,
        denominator_shift: f64,
        rng: &mut crate::seed::ChainRng,
    ) -> usize {
        let sizes = &draw.layer_sizes;
        let mut jumps = 0;
        for m in 2..sizes.len() {
            for &n_k in &draw.n_children[m] {
                let q = n_k as f64 / (beta + sizes[m - 1] as f64);
                for &k_s in &sizes[..m - 1] {
                    let mut c = 0usize;
                    for j in 1..=k_s {
                        let p = (beta_prime * q + c as f64)
                            / (beta_prime + (j - 1) as f64 + denominator_shift);
                        if rng.random::<f64>() < p {
                            c += 1;
                        }
                    }
                    jumps += c;
                }
            }
        }
        jumps
    }

    /// Forward draws of the IBP edges and of the eq-9 jumps against the exact edge counts, and
    /// the frequency of no jump against the Rao-Blackwellized estimate.
    #[test]
    fn dallaire2014_prior_moments_match_ibp_edge_monte_carlo() {
        let draws = 40_000;
        for d in [1usize, 2] {
            for (cell, (alpha, beta, beta_prime)) in SETTINGS.into_iter().enumerate() {
                let exact = exact_prior_moments(d, alpha, beta, true).unwrap();
                let mut rng = chain_rng(18, cell as u64, d as u64, 0);
                let (mut units, mut adjacent, mut jumps, mut no_jump, mut depth) = (
                    Acc::default(),
                    Acc::default(),
                    Acc::default(),
                    Acc::default(),
                    Acc::default(),
                );
                for _ in 0..draws {
                    let draw = sample_cibp_structure(d, alpha, beta, 1_000_000, &mut rng).unwrap();
                    let j = simulate_jumps(&draw, beta, beta_prime, 0.0, &mut rng);
                    units.push(draw.n_units() as f64);
                    adjacent.push(draw.n_adjacent_edges() as f64);
                    depth.push(draw.layer_sizes.len() as f64);
                    jumps.push(j as f64);
                    no_jump.push(f64::from(u8::from(j == 0)));
                }
                for (name, acc, value) in [
                    ("n_units", &units, exact.n_units),
                    ("n_adjacent_edges", &adjacent, exact.n_adjacent_edges),
                    ("n_jump_edges", &jumps, exact.n_jump_edges),
                    ("depth", &depth, exact.depth),
                ] {
                    let z = acc.z(value);
                    eprintln!("ibp edges d={d} ({alpha},{beta},{beta_prime}) {name}: z = {z:.2}");
                    assert!(
                        z.abs() < 4.5,
                        "d={d} ({alpha},{beta},{beta_prime}) {name}: MC {} ± {} vs exact {value} (z = {z})",
                        acc.mean(),
                        acc.se()
                    );
                }
                let rb =
                    rao_blackwell_p_no_jump(d, alpha, beta, beta_prime, draws, 1_000_000, &mut rng)
                        .unwrap();
                let z = (no_jump.mean() - rb.mean) / (no_jump.se().powi(2) + rb.se.powi(2)).sqrt();
                eprintln!(
                    "p_no_jump d={d} ({alpha},{beta},{beta_prime}): frequency {:.4} ± {:.4}, RB {:.4} ± {:.4}, z = {z:.2}",
                    no_jump.mean(),
                    no_jump.se(),
                    rb.mean,
                    rb.se
                );
                assert!(
                    z.abs() < 4.5,
                    "d={d} ({alpha},{beta},{beta_prime}) p_no_jump: frequency {} ± {} vs RB {} ± {} (z = {z})",
                    no_jump.mean(),
                    no_jump.se(),
                    rb.mean,
                    rb.se
                );
                assert!(
                    rb.se < no_jump.se(),
                    "Rao-Blackwellization must reduce the variance"
                );
            }
        }
    }

    /// Negative control: the same Monte Carlo check sees a jump probability with the denominator
    /// off by one, (β′q_k + c_k)/(β′ + j).
    #[test]
    fn dallaire2014_prior_moments_monte_carlo_detects_jump_denominator_off_by_one() {
        let (d, alpha, beta, beta_prime) = (2, 1.0, 1.0, 1.0);
        let exact = exact_prior_moments(d, alpha, beta, true).unwrap();
        let mut rng = chain_rng(19, 0, 0, 0);
        let mut jumps = Acc::default();
        for _ in 0..40_000 {
            let draw = sample_cibp_structure(d, alpha, beta, 1_000_000, &mut rng).unwrap();
            jumps.push(simulate_jumps(&draw, beta, beta_prime, 1.0, &mut rng) as f64);
        }
        let z = jumps.z(exact.n_jump_edges);
        eprintln!("off-by-one jump denominator: z = {z:.2}");
        assert!(z.abs() > 6.0, "the defect went unseen: z = {z}");
    }
}

//! Tests of dallaire2014: edge_prior.
//!
//! - Eq 11 and eq 12 (corrected) are the conditional prior of one edge of the *last customer*:
//!   compared with Monte Carlo frequencies in forward draws of the generative process (eqs 3–9),
//!   grouped by the counts the formulas read; the printed eq 12 must fail.
//! - The Beta column form of eq 9's marginal equals the sequential product of eq 9.
//! - Eq 15 on a single layer with no data: the corrected birth/death gives E[K+] = αH(D)
//!   (1.833 for D = 3, α = β = 1), the printed (K_o + 1)⁻² gives about 1.66.

use std::collections::BTreeMap;

use causeway_papers::chain_rng;
use causeway_papers::dallaire2014::equations as eq;
use causeway_papers::dallaire2014::params::{Params, Prior};
use causeway_papers::dallaire2014::samplers::forward::sample_network;
use rand::RngExt;

/// (observations, successes, Σ predicted p, Σ p(1 − p)) per key.
type Buckets = BTreeMap<(usize, usize, usize), (u64, u64, f64, f64)>;

fn z_of(b: &(u64, u64, f64, f64)) -> f64 {
    (b.1 as f64 - b.2) / b.3.sqrt()
}

#[test]
fn dallaire2014_edge_prior_eq11_matches_last_customer_frequencies() {
    let p = Params {
        prior: Prior::Cibp,
        alpha: 1.0,
        beta: 1.5,
        ..Params::default()
    };
    let d = 4;
    let mut rng = chain_rng(51, 0, 0, 0);
    let mut buckets = Buckets::new();
    for _ in 0..60_000 {
        let net = sample_network(&p, d, 0, &mut rng).unwrap();
        let last = d - 1; // the last customer of layer 0
        for &k in net.layer(1) {
            let z = net.edge_index(last, k).is_some();
            let n_minus = net.n_adjacent_children(k) - usize::from(z);
            if n_minus == 0 {
                continue; // a unit the last customer created: Phase 2's business
            }
            let pr = eq::adjacent_edge_prob(n_minus, p.beta, d);
            let b = buckets.entry((n_minus, 0, 0)).or_default();
            *b = (b.0 + 1, b.1 + u64::from(z), b.2 + pr, b.3 + pr * (1.0 - pr));
        }
    }
    for (k, b) in &buckets {
        let z = z_of(b);
        println!(
            "eq 11, n_-i,k = {}: {} edges / {} draws, expected {:.1}, z = {z:+.2}",
            k.0, b.1, b.0, b.2
        );
        assert!(z.abs() < 4.5);
    }
}

/// Jump-edge frequencies of the last layer-0 customer, grouped by (n_k, K^(t−1), c_−i); returns
/// the worst |z| of the printed or corrected eq 12 over groups with ≥ 100 observations.
fn eq12_worst(paper: bool) -> f64 {
    let p = Params {
        prior: Prior::Ecibp,
        alpha: 1.0,
        beta: 1.0,
        beta_prime: 2.0,
        ..Params::default()
    };
    let d = 3;
    let mut rng = chain_rng(52, 0, 0, 0);
    let mut buckets = Buckets::new();
    for _ in 0..60_000 {
        let net = sample_network(&p, d, 0, &mut rng).unwrap();
        let last = d - 1;
        for t in 2..net.depth() {
            let (k_prev, k_t) = (net.layer_size(t - 1), net.layer_size(t));
            for &k in net.layer(t) {
                let z = net.edge_index(last, k).is_some();
                let c_minus = net.children_in_layer(k, 0) - usize::from(z);
                let n_k = net.n_adjacent_children(k);
                let pr = if paper {
                    eq::jump_edge_prob_paper(n_k, c_minus, p.beta, p.beta_prime, d, k_t)
                } else {
                    eq::jump_edge_prob(eq::jump_q(n_k, p.beta, k_prev), c_minus, p.beta_prime, d)
                };
                let b = buckets.entry((n_k, k_prev, c_minus)).or_default();
                *b = (b.0 + 1, b.1 + u64::from(z), b.2 + pr, b.3 + pr * (1.0 - pr));
            }
        }
    }
    let mut worst: f64 = 0.0;
    for (k, b) in buckets.iter().filter(|(_, b)| b.0 >= 100) {
        let z = if b.3 > 0.0 {
            z_of(b)
        } else if b.1 as f64 == b.2 {
            0.0
        } else {
            f64::INFINITY
        };
        println!(
            "eq 12 ({}), n_k = {}, K^(t-1) = {}, c_-i = {}: {} / {}, expected {:.1}, z = {z:+.2}",
            if paper { "printed" } else { "corrected" },
            k.0,
            k.1,
            k.2,
            b.1,
            b.0,
            b.2
        );
        worst = worst.max(z.abs());
    }
    worst
}

#[test]
fn dallaire2014_edge_prior_eq12_corrected_matches_last_customer_frequencies() {
    let w = eq12_worst(false);
    assert!(w < 4.5, "corrected eq 12: worst |z| = {w:.2}");
}

#[test]
fn dallaire2014_edge_prior_detects_printed_eq12() {
    let w = eq12_worst(true);
    assert!(w > 6.0, "printed eq 12 went unnoticed: worst |z| = {w:.2}");
}

#[test]
fn dallaire2014_edge_prior_beta_column_is_the_sequential_product_of_eq9() {
    for &(q, bp, k) in &[(0.3, 2.0, 5usize), (0.8, 0.5, 4), (0.05, 1.0, 6)] {
        for pattern in 0u32..(1 << k) {
            let mut c = 0;
            let mut lp = 0.0;
            for j in 0..k {
                let pr = eq::jump_prob(q, c, bp, j + 1);
                if pattern >> j & 1 == 1 {
                    lp += pr.ln();
                    c += 1;
                } else {
                    lp += (1.0 - pr).ln();
                }
            }
            let col = eq::ln_jump_column(q, c, k, bp);
            assert!(
                (lp - col).abs() < 1e-10,
                "q = {q}, β′ = {bp}, pattern {pattern:b}: {lp} vs {col}"
            );
        }
    }
}

/// A single hidden layer over D customers, no data: Phase 1 (eq 11) and the birth/death of
/// eq 15 with the corrected (K_o + 1)⁻¹ or the printed (K_o + 1)⁻² (both with K^(m−1));
/// returns (mean K+, batch-means se).
fn single_layer_k_plus(printed: bool, sweeps: usize, seed: u64) -> (f64, f64) {
    let (alpha, beta, d) = (1.0, 1.0, 3usize);
    let mut rng = chain_rng(seed, 0, 0, 0);
    let mut cols: Vec<Vec<bool>> = Vec::new(); // one column (d entries) per hidden unit
    let ln_acc = |c_after: usize| {
        if printed {
            eq::ln_birth_acceptance_paper(alpha, beta, c_after - 1, d, 0.0)
        } else {
            eq::ln_birth_acceptance(eq::ln_birth_rate(alpha, beta, d), c_after, 0.0, 0.0)
        }
    };
    let batches = 50;
    let mut bm = vec![0.0; batches];
    for s in 0..sweeps {
        for i in 0..d {
            for col in cols.iter_mut() {
                let n_minus = col
                    .iter()
                    .enumerate()
                    .filter(|&(j, &z)| j != i && z)
                    .count();
                if n_minus > 0 {
                    col[i] = rng.random::<f64>() < eq::adjacent_edge_prob(n_minus, beta, d);
                }
            }
        }
        for i in 0..d {
            let singles: Vec<usize> = (0..cols.len())
                .filter(|&k| cols[k][i] && cols[k].iter().filter(|&&z| z).count() == 1)
                .collect();
            if rng.random::<f64>() < 0.5 {
                let a = ln_acc(singles.len() + 1);
                if a >= 0.0 || rng.random::<f64>().ln() < a {
                    let mut col = vec![false; d];
                    col[i] = true;
                    cols.push(col);
                }
            } else if !singles.is_empty() {
                let k = singles[rng.random_range(0..singles.len())];
                let a = -ln_acc(singles.len());
                if a >= 0.0 || rng.random::<f64>().ln() < a {
                    cols.swap_remove(k);
                }
            }
        }
        bm[s * batches / sweeps] += cols.len() as f64 / (sweeps / batches) as f64;
    }
    let mean = bm.iter().sum::<f64>() / batches as f64;
    let var = bm.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (batches - 1) as f64;
    (mean, (var / batches as f64).sqrt())
}

#[test]
fn dallaire2014_edge_prior_eq15_single_layer_k_plus() {
    let exact = eq::ibp_harmonic(3, 1.0); // αH(3) = 1.8333
    let (m, se) = single_layer_k_plus(false, 200_000, 61);
    let z = (m - exact) / se;
    println!("eq 15 corrected: E[K+] = {m:.4} ± {se:.4} (exact {exact:.4}), z = {z:+.2}");
    assert!(z.abs() < 4.5);
    let (m, se) = single_layer_k_plus(true, 200_000, 62);
    let z = (m - exact) / se;
    println!("eq 15 printed (K_o+1)^-2: E[K+] = {m:.4} ± {se:.4} (exact {exact:.4}), z = {z:+.2}");
    assert!(z.abs() > 6.0);
}

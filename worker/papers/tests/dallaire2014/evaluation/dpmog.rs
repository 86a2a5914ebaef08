//! The DP mixture of Gaussians baseline: the collapsed Gibbs kernel against the
//! exact posterior over set partitions of a tiny dataset, with α fixed and with α updated (exact
//! over α bins by quadrature), each with a negative control; the sampler's trace, its
//! independence from the test set, and geyser.
//!
//! The exact posterior is written independently of the sampler: the NIW marginal likelihood in
//! closed form (centred scatter, determinants of 2 × 2 matrices), not a product of predictives.

use std::collections::HashMap;

use causeway_papers::chain::{RunSpec, run_chain};
use causeway_papers::dallaire2014::params::Params;
use causeway_papers::dallaire2014::samplers::Defect;
use causeway_papers::dallaire2014::samplers::dpmog::DpmogSampler;
use causeway_papers::data::Matrix;
use causeway_papers::seed::chain_rng;
use causeway_papers::testing::{Exact, final_state_counts, gof};
use statrs::function::gamma::ln_gamma;

use super::{abalone, geyser, mean_2sd, two_clusters};

const KAPPA0: f64 = 0.1;
const NU0: f64 = 4.0;
const PSI0: f64 = 0.25;

/// Five 2-D points: two loose pairs and one in between.
fn tiny() -> Matrix {
    Matrix::new(
        "x",
        5,
        2,
        vec![0.0, 0.0, 0.4, 0.3, 2.0, 2.1, 2.3, 1.6, 1.1, 0.9],
    )
}

fn params() -> Params {
    let mut p = Params::default();
    p.dpmog.kappa0 = KAPPA0;
    p.dpmog.nu0 = Some(NU0);
    p.dpmog.psi0 = PSI0;
    p
}

/// The rows of `x` standardized with their mean and sample sd.
fn standardized(x: &Matrix) -> Vec<[f64; 2]> {
    let n = x.rows as f64;
    let mut out = Vec::new();
    let mut mean = [0.0; 2];
    let mut sd = [0.0; 2];
    for c in 0..2 {
        mean[c] = (0..x.rows).map(|i| x.get(i, c)).sum::<f64>() / n;
        sd[c] = ((0..x.rows)
            .map(|i| (x.get(i, c) - mean[c]).powi(2))
            .sum::<f64>()
            / (n - 1.0))
            .sqrt();
    }
    for i in 0..x.rows {
        out.push([
            (x.get(i, 0) - mean[0]) / sd[0],
            (x.get(i, 1) - mean[1]) / sd[1],
        ]);
    }
    out
}

/// ln Γ_2(a) = ln π / 2 + ln Γ(a) + ln Γ(a − ½).
fn ln_mv_gamma2(a: f64) -> f64 {
    0.5 * std::f64::consts::PI.ln() + ln_gamma(a) + ln_gamma(a - 0.5)
}

/// ln p(X) under the NIW model with μ₀ = 0, Ψ₀ = ψ₀ I (d = 2), in closed form.
fn ln_marginal(points: &[[f64; 2]]) -> f64 {
    let n = points.len() as f64;
    let mut bar = [0.0; 2];
    for p in points {
        bar[0] += p[0] / n;
        bar[1] += p[1] / n;
    }
    let mut s = [[0.0; 2]; 2];
    for p in points {
        for a in 0..2 {
            for b in 0..2 {
                s[a][b] += (p[a] - bar[a]) * (p[b] - bar[b]);
            }
        }
    }
    let kn = KAPPA0 + n;
    let nun = NU0 + n;
    let mut psi = [[0.0; 2]; 2];
    for a in 0..2 {
        for b in 0..2 {
            psi[a][b] =
                s[a][b] + KAPPA0 * n / kn * bar[a] * bar[b] + if a == b { PSI0 } else { 0.0 };
        }
    }
    let det = psi[0][0] * psi[1][1] - psi[0][1] * psi[1][0];
    -n * std::f64::consts::PI.ln() + ln_mv_gamma2(nun / 2.0) - ln_mv_gamma2(NU0 / 2.0)
        + NU0 / 2.0 * (2.0 * PSI0.ln())
        - nun / 2.0 * det.ln()
        + (KAPPA0 / kn).ln()
}

/// Every set partition of 0..n as a restricted growth string (labels by first appearance).
fn partitions(n: usize) -> Vec<Vec<usize>> {
    fn rec(prefix: &mut Vec<usize>, n: usize, out: &mut Vec<Vec<usize>>) {
        if prefix.len() == n {
            out.push(prefix.clone());
            return;
        }
        let next = prefix.iter().copied().max().map_or(0, |m| m + 1);
        for l in 0..=next {
            prefix.push(l);
            rec(prefix, n, out);
            prefix.pop();
        }
    }
    let mut out = Vec::new();
    rec(&mut Vec::new(), n, &mut out);
    out
}

/// ln[Π_c Γ(n_c) p(X_c)] and K for a partition.
fn ln_partition_weight(z: &[[f64; 2]], labels: &[usize]) -> (f64, usize) {
    let k = labels.iter().copied().max().map_or(0, |m| m + 1);
    let mut w = 0.0;
    for c in 0..k {
        let pts: Vec<[f64; 2]> = labels
            .iter()
            .zip(z)
            .filter(|(l, _)| **l == c)
            .map(|(_, p)| *p)
            .collect();
        w += ln_gamma(pts.len() as f64) + ln_marginal(&pts);
    }
    (w, k)
}

/// Exact posterior over partitions with α fixed: ∝ α^K Π_c Γ(n_c) p(X_c).
fn exact_fixed_alpha(x: &Matrix, alpha: f64) -> Exact<Vec<usize>> {
    let z = standardized(x);
    let parts = partitions(x.rows);
    assert_eq!(parts.len(), 52);
    let lw: Vec<(Vec<usize>, f64)> = parts
        .into_iter()
        .map(|p| {
            let (w, k) = ln_partition_weight(&z, &p);
            (p, w + k as f64 * alpha.ln())
        })
        .collect();
    let mx = lw.iter().map(|e| e.1).fold(f64::NEG_INFINITY, f64::max);
    Exact::normalise(
        lw.into_iter().map(|(p, w)| (p, (w - mx).exp())).collect(),
        0.0,
    )
}

/// Edges of the α bins of the joint test (10 bins).
const ALPHA_EDGES: [f64; 9] = [0.15, 0.3, 0.45, 0.6, 0.8, 1.0, 1.3, 1.7, 2.3];

fn alpha_bin(a: f64) -> usize {
    ALPHA_EDGES.iter().filter(|e| a >= **e).count()
}

/// ∫_lo^hi α^K Γ(α)/Γ(α + n) e^(−α) dα (Gamma(1, 1) prior), composite Simpson.
fn alpha_integral(k: usize, n: usize, lo: f64, hi: f64) -> f64 {
    let f = |a: f64| {
        // α^K Γ(α)/Γ(α+n) = α^(K−1) / Π_{j=1}^{n−1} (α + j).
        let mut v = a.powi(k as i32 - 1) * (-a).exp();
        for j in 1..n {
            v /= a + j as f64;
        }
        v
    };
    let m = 20_000;
    let h = (hi - lo) / m as f64;
    let mut s = f(lo) + f(hi);
    for i in 1..m {
        s += f(lo + h * i as f64) * if i % 2 == 1 { 4.0 } else { 2.0 };
    }
    s * h / 3.0
}

/// Exact joint posterior of (K₊, α bin) with α ~ Gamma(1, 1): the sum over partitions with K
/// blocks of Π_c Γ(n_c) p(X_c), times the α integral over the bin.
fn exact_random_alpha(x: &Matrix) -> Exact<(usize, usize)> {
    let z = standardized(x);
    let mut edges = vec![0.0];
    edges.extend_from_slice(&ALPHA_EDGES);
    edges.push(80.0);
    let parts = partitions(x.rows);
    let lw: Vec<(f64, usize)> = parts.iter().map(|p| ln_partition_weight(&z, p)).collect();
    let mx = lw.iter().map(|e| e.0).fold(f64::NEG_INFINITY, f64::max);
    let mut by_k = vec![0.0; x.rows + 1];
    for (w, k) in &lw {
        by_k[*k] += (w - mx).exp();
    }
    let mut w = HashMap::new();
    for (k, wk) in by_k.iter().enumerate().skip(1) {
        for bin in 0..edges.len() - 1 {
            w.insert(
                (k, bin),
                wk * alpha_integral(k, x.rows, edges[bin], edges[bin + 1]),
            );
        }
    }
    Exact::normalise(w, 0.0)
}

fn run_fixed(defect: Option<Defect>, chains: u64) -> causeway_papers::testing::Gof {
    let x = tiny();
    let exact = exact_fixed_alpha(&x, 1.0);
    let p = params();
    let counts = final_state_counts(
        chains,
        8,
        2014,
        |rng| {
            DpmogSampler::without_test(&p, &x, rng)
                .unwrap()
                .with_fixed_concentration(1.0)
                .unwrap()
                .with_defect(defect)
        },
        |s| s.assignments(),
    );
    gof(&exact, &counts, 7)
}

fn run_random(defect: Option<Defect>, chains: u64) -> causeway_papers::testing::Gof {
    let x = tiny();
    let exact = exact_random_alpha(&x);
    let p = params();
    let counts = final_state_counts(
        chains,
        10,
        2015,
        |rng| {
            DpmogSampler::without_test(&p, &x, rng)
                .unwrap()
                .with_defect(defect)
        },
        |s| (s.k_plus(), alpha_bin(s.concentration())),
    );
    gof(&exact, &counts, 8)
}

#[test]
fn dallaire2014_dpmog_matches_exact_partition_posterior() {
    let g = run_fixed(None, 6000);
    println!("fixed α: {g:?}");
    assert!(g.p_value > 1e-3, "{g:?}");
    assert!(g.tv < g.tv_null_q999, "{g:?}");
}

#[test]
fn dallaire2014_dpmog_exact_test_detects_broken_predictive() {
    let g = run_fixed(Some(Defect::PredictiveWithoutParameterUncertainty), 6000);
    println!("broken predictive: {g:?}");
    assert!(g.p_value < 1e-9, "{g:?}");
    assert!(g.tv > g.tv_null_q999, "{g:?}");
}

#[test]
fn dallaire2014_dpmog_concentration_update_matches_exact_joint() {
    let g = run_random(None, 60_000);
    println!("random α: {g:?}");
    assert!(g.p_value > 1e-3, "{g:?}");
    assert!(g.tv < g.tv_null_q999, "{g:?}");
}

#[test]
fn dallaire2014_dpmog_concentration_test_detects_off_by_one_odds() {
    let g = run_random(Some(Defect::ConcentrationOddsOffByOne), 60_000);
    println!("broken α odds: {g:?}");
    assert!(g.p_value < 1e-6, "{g:?}");
}

#[test]
fn dallaire2014_dpmog_trace_and_test_set_independence() {
    let x = two_clusters(150, 11);
    let test_a = two_clusters(100, 12);
    let test_b = two_clusters(90, 13);
    let params = Params::default();
    let spec = RunSpec {
        iterations: 30,
        burn_in: 10,
        thin: 3,
    };
    let run = |test: &Matrix, spec: &RunSpec| {
        let mut rng = chain_rng(5, 9, 0, 1);
        let mut s = DpmogSampler::new(&params, &x, test, &mut rng).unwrap();
        run_chain(&mut s, spec, &mut rng, &mut |_, _| {}).unwrap()
    };
    let (a, b) = (run(&test_a, &spec), run(&test_b, &spec));
    // Evaluating more often (thin 1: fantasy data at every iteration) leaves the chain as it is.
    let every = run(&test_a, &RunSpec { thin: 1, ..spec });
    let every_k: Vec<f64> = every
        .trace
        .chunks_exact(3)
        .skip(2)
        .step_by(3)
        .map(|r| r[1])
        .collect();
    let every_a: Vec<f64> = every
        .trace
        .chunks_exact(3)
        .skip(2)
        .step_by(3)
        .map(|r| r[2])
        .collect();
    assert_eq!(
        every_k,
        a.trace.chunks_exact(3).map(|r| r[1]).collect::<Vec<_>>()
    );
    assert_eq!(
        every_a,
        a.trace.chunks_exact(3).map(|r| r[2]).collect::<Vec<_>>()
    );
    assert_eq!(a.trace_names, ["kl", "k_plus", "concentration"]);
    assert_eq!(a.iterations.len(), 10);
    let col = |o: &causeway_papers::chain::ChainOutput, j: usize| -> Vec<f64> {
        o.trace.chunks_exact(3).map(|r| r[j]).collect()
    };
    assert_eq!(col(&a, 1), col(&b, 1));
    assert_eq!(col(&a, 2), col(&b, 2));
    assert_ne!(col(&a, 0), col(&b, 0));
    assert!(col(&a, 0).iter().all(|v| v.is_finite()));
    let k: Vec<f64> = col(&a, 1);
    println!("k_plus {k:?}, kl {:?}", col(&a, 0));
    assert!(
        k.iter().skip(5).all(|&v| v >= 2.0),
        "two clusters not found: {k:?}"
    );
    let names: Vec<&str> = a.summary.iter().map(|m| m.name.as_str()).collect();
    assert_eq!(names, ["k_plus_mean", "concentration_mean", "assignments"]);
    // ν₀ ≤ d − 1 is refused.
    let mut bad = Params::default();
    bad.dpmog.nu0 = Some(0.5);
    assert!(DpmogSampler::new(&bad, &x, &test_a, &mut chain_rng(1, 1, 1, 1)).is_err());
}

/// Geyser, the quick profile's 500 iterations / burn-in 250 / thin 5: the DP mixture must beat
/// `kl_independent`.
#[test]
fn dallaire2014_dpmog_geyser_beats_independence() {
    let (x, test) = geyser();
    let mut rng = chain_rng(17, 3, 0, 0);
    let mut s = DpmogSampler::new(&Params::default(), &x, &test, &mut rng).unwrap();
    let spec = RunSpec {
        iterations: 500,
        burn_in: 250,
        thin: 5,
    };
    let out = run_chain(&mut s, &spec, &mut rng, &mut |_, _| {}).unwrap();
    let kept: Vec<&[f64]> = out
        .trace
        .chunks_exact(3)
        .zip(&out.iterations)
        .filter(|(_, it)| **it > spec.burn_in)
        .map(|(r, _)| r)
        .collect();
    let kl: Vec<f64> = kept.iter().map(|r| r[0]).collect();
    let kp: Vec<f64> = kept.iter().map(|r| r[1]).collect();
    let (m, sd2) = mean_2sd(&kl);
    let r = reference(&x, &test, 4);
    println!(
        "geyser DPMoG: KL {m:.4} ± {sd2:.4} over {} samples (paper 0.077 ± 0.120); K+ mean {:.2}; kl_independent {:.4}",
        kl.len(),
        kp.iter().sum::<f64>() / kp.len() as f64,
        r.kl_independent
    );
    assert!(m < r.kl_independent);
}

/// Abalone (n = 2000, d = 9), 500/250/5 (the quick profile): the DP mixture must beat
/// `kl_independent`. A few seconds.
#[test]
fn dallaire2014_dpmog_abalone_beats_independence() {
    let (x, test) = abalone();
    let mut rng = chain_rng(17, 5, 0, 0);
    let t = std::time::Instant::now();
    let mut s = DpmogSampler::new(&Params::default(), &x, &test, &mut rng).unwrap();
    let spec = RunSpec {
        iterations: 500,
        burn_in: 250,
        thin: 5,
    };
    let out = run_chain(&mut s, &spec, &mut rng, &mut |_, _| {}).unwrap();
    let secs = t.elapsed().as_secs_f64();
    let kept: Vec<&[f64]> = out
        .trace
        .chunks_exact(3)
        .zip(&out.iterations)
        .filter(|(_, it)| **it > spec.burn_in)
        .map(|(r, _)| r)
        .collect();
    let kl: Vec<f64> = kept.iter().map(|r| r[0]).collect();
    let kp: Vec<f64> = kept.iter().map(|r| r[1]).collect();
    let (m, sd2) = mean_2sd(&kl);
    let r = reference(&x, &test, 6);
    println!(
        "abalone DPMoG: KL {m:.4} ± {sd2:.4} over {} samples (paper 4.760 ± 0.220); K+ mean {:.2}; \
         kl_independent {:.4}; chain {secs:.1} s",
        kl.len(),
        kp.iter().sum::<f64>() / kp.len() as f64,
        r.kl_independent
    );
    assert!(m < r.kl_independent);
}

/// The reference rows of `x` against `test` (k = 1, D̂(test ‖ ·), 20 permutations), drawn from
/// stream `stream` of seed 17.
fn reference(
    x: &Matrix,
    test: &Matrix,
    stream: u64,
) -> causeway_papers::dallaire2014::evaluation::KlReference {
    causeway_papers::dallaire2014::evaluation::kl_reference(
        x,
        test,
        1,
        causeway_papers::dallaire2014::params::KlDirection::TestModel,
        20,
        &mut chain_rng(17, stream, 0, 0),
    )
    .unwrap()
}

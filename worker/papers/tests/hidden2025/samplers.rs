//! Correctness tests of HiDDeN's samplers (paper `002_d97ecc788b964f97.txt`,
//! "Correctness: shown by tests"): MALA leaves h_{j,x} invariant (eq 9), one sweep of Algorithm 2
//! leaves the exact distribution of the indicators invariant (eq 13), Algorithm 1 (and 1 + 2)
//! against the exact method, and the negative controls that must fail the same tests.
//!
//! Sizes are scaled down from the 10⁶ draws to keep each test to a few seconds at
//! opt-level 2: 200,000 draws per MALA case (the KS threshold is set for a false-failure rate of
//! 1e-6 at that size), 20,000 draws for the enumeration test.

use std::collections::HashMap;

use causeway_papers::chain::{RunSpec, Sampler};
use causeway_papers::hidden2025::datasets::DiscreteData;
use causeway_papers::hidden2025::equations::{
    HConditional, log_edge_prior, log_marginal_likelihood,
};
use causeway_papers::hidden2025::params::Params;
use causeway_papers::hidden2025::samplers::mala::mala_step_with_defect;
use causeway_papers::hidden2025::samplers::{Defect, ExactSampler, HiddenSampler, exact_posterior};
use causeway_papers::math::log_sum_exp;
use causeway_papers::seed::{ChainRng, chain_rng};
use causeway_papers::testing::{Exact, gof};
use rand::RngExt;

use super::{abcde, params};

/// Kolmogorov's asymptotic critical value of √n·D at a false-failure rate of 1e-6:
/// P(√n D > x) ≈ 2 exp(−2x²) = 1e-6 ⇒ x = √(ln(2e6)/2) ≈ 2.694.
const KS_CRITICAL: f64 = 2.694;

/// The CDF of h on a fine quadrature in s = log t (density h(e^s)·e^s, trapezoid rule over
/// 400,001 points spanning 45 nats below the maximum on both sides).
struct Quadrature {
    s: Vec<f64>,
    cdf: Vec<f64>,
}

impl Quadrature {
    fn new(h: &HConditional) -> Self {
        let f = |s: f64| h.log_h(s.exp()) + s;
        // locate the maximum on a coarse scan, then the 45-nat extent on each side
        let coarse: Vec<f64> = (0..4001).map(|i| -60.0 + i as f64 * 0.02).collect();
        let (mut s_max, mut f_max) = (0.0, f64::NEG_INFINITY);
        for &s in &coarse {
            if f(s) > f_max {
                (s_max, f_max) = (s, f(s));
            }
        }
        let mut lo = s_max;
        while f(lo) > f_max - 45.0 && lo > -400.0 {
            lo -= 0.05;
        }
        let mut hi = s_max;
        while f(hi) > f_max - 45.0 && hi < 10.0 {
            hi += 0.05;
        }
        let m = 400_001;
        let step = (hi - lo) / (m - 1) as f64;
        let s: Vec<f64> = (0..m).map(|i| lo + step * i as f64).collect();
        let dens: Vec<f64> = s.iter().map(|&x| (f(x) - f_max).exp()).collect();
        let mut cdf = vec![0.0; m];
        for i in 1..m {
            cdf[i] = cdf[i - 1] + 0.5 * step * (dens[i] + dens[i - 1]);
        }
        let z = cdf[m - 1];
        cdf.iter_mut().for_each(|c| *c /= z);
        Quadrature { s, cdf }
    }

    /// F(t) by linear interpolation in s.
    fn cdf_at(&self, t: f64) -> f64 {
        let s = t.ln();
        let i = self.s.partition_point(|&x| x <= s);
        if i == 0 {
            return 0.0;
        }
        if i == self.s.len() {
            return 1.0;
        }
        let w = (s - self.s[i - 1]) / (self.s[i] - self.s[i - 1]);
        self.cdf[i - 1] + w * (self.cdf[i] - self.cdf[i - 1])
    }

    /// Inverse CDF by linear interpolation.
    fn draw(&self, u: f64) -> f64 {
        let i = self
            .cdf
            .partition_point(|&c| c < u)
            .clamp(1, self.cdf.len() - 1);
        let (c0, c1) = (self.cdf[i - 1], self.cdf[i]);
        let w = if c1 > c0 { (u - c0) / (c1 - c0) } else { 0.5 };
        (self.s[i - 1] + w * (self.s[i] - self.s[i - 1])).exp()
    }
}

/// √n · D (Kolmogorov–Smirnov) of `draws` against the quadrature CDF, and the acceptance rate
/// of the MALA steps, for `n` exact draws each moved by one MALA step.
fn mala_ks(h: &HConditional, eps: f64, n: usize, seed: u64, defect: Option<Defect>) -> (f64, f64) {
    let q = Quadrature::new(h);
    let mut rng: ChainRng = chain_rng(seed, 1, 0, 0);
    let mut out = Vec::with_capacity(n);
    let mut acc = 0usize;
    for _ in 0..n {
        let t0 = q.draw(rng.random::<f64>());
        let (t1, a) = mala_step_with_defect(h, t0, eps, &mut rng, defect);
        acc += a as usize;
        out.push(t1);
    }
    out.sort_by(f64::total_cmp);
    let nf = n as f64;
    let mut d: f64 = 0.0;
    for (i, &t) in out.iter().enumerate() {
        let f = q.cdf_at(t);
        d = d
            .max((f - i as f64 / nf).abs())
            .max(((i + 1) as f64 / nf - f).abs());
    }
    (d * nf.sqrt(), acc as f64 / nf)
}

const MALA_DRAWS: usize = 200_000;

fn h(counts: &[u32], sum_log_u: f64, shape: f64, rate: f64) -> HConditional {
    HConditional {
        counts: counts.to_vec(),
        sum_log_u,
        shape,
        rate,
    }
}

#[test]
fn mala_leaves_h_invariant() {
    let cases = [
        // (name, h, ε)
        ("moderate counts", h(&[3, 7, 1, 12], -2.5, 1.0, 1.0), 0.5),
        (
            "large eps, negative proposals",
            h(&[3, 7, 1, 12], -2.5, 1.0, 1.0),
            3.0,
        ),
        ("tiny counts", h(&[1], -0.4, 1.0, 1.0), 0.8),
        ("shape < 1", h(&[2, 1], -1.1, 0.4, 1.0), 0.6),
        ("shape < 1, no counts", h(&[], -0.3, 0.5, 2.0), 0.5),
    ];
    for (i, (name, hc, eps)) in cases.iter().enumerate() {
        let (ks, acc) = mala_ks(hc, *eps, MALA_DRAWS, 100 + i as u64, None);
        eprintln!("MALA {name}: sqrt(n) D = {ks:.3} (critical {KS_CRITICAL}), acceptance {acc:.3}");
        assert!(ks < KS_CRITICAL, "{name}: sqrt(n) D = {ks}");
        assert!(
            acc > 0.05,
            "{name}: acceptance {acc} too low for the test to mean anything"
        );
    }
}

#[test]
fn mala_without_mh_correction_fails_invariance() {
    for (i, (hc, eps)) in [
        (h(&[3, 7, 1, 12], -2.5, 1.0, 1.0), 1.5),
        (h(&[2, 1], -1.1, 0.4, 1.0), 1.2),
    ]
    .iter()
    .enumerate()
    {
        let (ks, _) = mala_ks(
            hc,
            *eps,
            MALA_DRAWS,
            200 + i as u64,
            Some(Defect::NoMhCorrection),
        );
        eprintln!("MALA without MH (case {i}): sqrt(n) D = {ks:.3}");
        assert!(
            ks > 2.0 * KS_CRITICAL,
            "case {i}: the broken kernel passed, sqrt(n) D = {ks}"
        );
    }
}

/// Node `C` (binary) with candidates A (2 levels), B (3), D (2), E (2), independent data, n = 24.
fn small_data(seed: u64, n: usize) -> DiscreteData {
    let mut rng = chain_rng(seed, 3, 0, 0);
    let ks = [2usize, 3, 2, 2, 2];
    let mut columns: Vec<Vec<u16>> = ks
        .iter()
        .map(|&k| (0..n).map(|_| rng.random_range(0..k) as u16).collect())
        .collect();
    // C depends on A: P(C = 1 | A) = 0.2, 0.7
    let a = columns[0].clone();
    for (c, &x) in columns[2].iter_mut().zip(&a) {
        let p = if x == 0 { 0.2 } else { 0.7 };
        *c = (rng.random::<f64>() < p) as u16;
    }
    abcde(columns)
}

/// One sweep of Algorithm 2 from exact draws of z (t fixed) against p(z | t, n) ∝ beta-binomial
/// × eq 7, over the 16 subsets of 4 candidates. Returns the goodness of fit.
fn edge_sweep_gof(
    defect: Option<Defect>,
    block_size: usize,
    draws: u64,
) -> causeway_papers::testing::Gof {
    let data = small_data(7, 24);
    let t = [0.7, 1.8];
    let (c, d) = (1.5, 0.8);
    let p = params(serde_json::json!({
        "method": "edges", "node": "C", "candidates": ["A", "B", "D", "E"],
        "step_sizes": [0.5, 0.5], "c": c, "d": d, "block_size": block_size
    }));
    let mut rng = chain_rng(11, 2, 0, 0);
    let mut s = HiddenSampler::new(&data, &p, &mut rng)
        .expect("sampler")
        .with_defect(defect);
    let cand = [0usize, 1, 3, 4];
    let logp: Vec<f64> = (0..16u64)
        .map(|mask| {
            let parents: Vec<usize> = (0..4)
                .filter(|i| mask >> i & 1 == 1)
                .map(|i| cand[i])
                .collect();
            let ones = parents.len();
            log_edge_prior(ones, 4 - ones, c, d)
                + log_marginal_likelihood(&data.table(2, &parents), &t)
        })
        .collect();
    let lse = log_sum_exp(&logp);
    let probs: Vec<f64> = logp.iter().map(|l| (l - lse).exp()).collect();
    let exact = Exact::normalise(
        probs
            .iter()
            .enumerate()
            .map(|(m, &p)| (m as u64, p))
            .collect(),
        0.0,
    );
    let mut counts: HashMap<u64, u64> = HashMap::new();
    for _ in 0..draws {
        // an exact draw of z
        let u: f64 = rng.random::<f64>();
        let mut acc = 0.0;
        let mut mask = 15u64;
        for (m, p) in probs.iter().enumerate() {
            acc += p;
            if u < acc {
                mask = m as u64;
                break;
            }
        }
        s.set_state(&t, Some(mask)).expect("state");
        s.update_edges(&mut rng);
        *counts.entry(s.mask()).or_insert(0) += 1;
    }
    gof(&exact, &counts, 5)
}

/// The kernel (`edge_sweep_gof`'s update) keeps the exact distribution: χ² and TV within
/// their null ranges.
fn assert_invariant(what: &str, g: causeway_papers::testing::Gof) {
    eprintln!(
        "{what}: chi2 = {:.2}, df = {}, p = {:.4}, TV = {:.4} (null q999 {:.4})",
        g.chi2, g.df, g.p_value, g.tv, g.tv_null_q999
    );
    assert!(g.df >= 8, "too few cells: {g:?}");
    assert!(g.p_value > 1e-4, "{g:?}");
    assert!(g.tv < g.tv_null_q999, "{g:?}");
}

/// A deliberately broken kernel is told apart from the exact distribution.
fn assert_broken(what: &str, g: causeway_papers::testing::Gof) {
    eprintln!(
        "{what}: chi2 = {:.2}, p = {:.3e}, TV = {:.4}",
        g.chi2, g.p_value, g.tv
    );
    assert!(g.p_value < 1e-9, "the broken kernel passed: {g:?}");
}

#[test]
fn edge_sweep_leaves_exact_distribution_invariant() {
    assert_invariant("Algorithm 2 sweep", edge_sweep_gof(None, 0, 20_000));
}

#[test]
fn edge_sweep_without_prior_factor_fails() {
    assert_broken(
        "Algorithm 2 without (c + #ones)/(d + #zeros)",
        edge_sweep_gof(Some(Defect::NoEdgePriorFactor), 0, 20_000),
    );
}

#[test]
fn edge_block_leaves_exact_distribution_invariant() {
    assert_invariant(
        "Algorithm 2 sweep + a block of 3",
        edge_sweep_gof(None, 3, 20_000),
    );
}

#[test]
fn edge_block_without_edge_prior_fails() {
    assert_broken(
        "block without the edge prior",
        edge_sweep_gof(Some(Defect::BlockWithoutEdgePrior), 3, 20_000),
    );
}

/// Batch-means z-scores of Algorithm 1 (or 1 + 2) against the exact method, for t_j, eq 6 at
/// each occupied configuration of the pool and (edges) the edge probabilities.
fn against_exact(p: &Params, defect: Option<Defect>, iterations: usize) -> Vec<(String, f64)> {
    let data = small_data(21, 30);
    let mut ex = ExactSampler::new(&data, p).expect("exact");
    let mut rng = chain_rng(31, 4, 0, 0);
    ex.step(&mut rng).expect("exact method");
    let exact = ex.result().expect("result").clone();
    let mut mcmc_params = p.clone();
    mcmc_params.method = if p.parents.is_some() {
        causeway_papers::hidden2025::params::Method::Mala
    } else {
        causeway_papers::hidden2025::params::Method::Edges
    };
    let burn_in = 2_000u64;
    let mut s = HiddenSampler::new(&data, &mcmc_params, &mut rng)
        .expect("sampler")
        .with_defect(defect);
    // The chain driver's call: adaptation runs during burn-in only.
    s.begin(&RunSpec {
        iterations: u64::MAX,
        burn_in,
        thin: 1,
    });
    for _ in 0..burn_in {
        s.step(&mut rng).expect("step");
    }
    let mut names: Vec<String> = vec!["t_0".into(), "t_1".into()];
    let r = exact.pool_codes.len();
    names.extend((0..r).map(|i| format!("predictive_{i}")));
    let mut reference = exact.t_mean.clone();
    reference.extend((0..r).map(|i| exact.predictive[i * 2 + 1]));
    if p.candidates.is_some() {
        names.extend((0..exact.pool.len()).map(|i| format!("z_{i}")));
        reference.extend(exact.edge_probabilities.iter().copied());
    }
    let batches = 50;
    let per = iterations / batches;
    let mut bm = vec![vec![0.0; names.len()]; batches];
    let k = 2;
    for b in bm.iter_mut() {
        for _ in 0..per {
            s.step(&mut rng).expect("step");
            let t = s.t().to_vec();
            let mut row = t.clone();
            let mut trace = Vec::new();
            s.record(&mut trace);
            // eq 6 at each pool configuration, from the sampler's own summary of one draw
            let parents = s.parents();
            let table = data.table(2, &parents);
            let pool = &exact.pool;
            let codes = data.config_codes(pool);
            let pcodes = data.config_codes(&parents);
            for &pc in &exact.pool_codes {
                let row_i = codes.iter().position(|&c| c == pc).expect("occupied");
                let c = table
                    .configs
                    .binary_search(&pcodes[row_i])
                    .expect("occupied");
                let n = table.row(c);
                let beta: f64 = t.iter().sum();
                row.push((t[1] + n[1] as f64) / (beta + table.totals[c] as f64));
            }
            if p.candidates.is_some() {
                row.extend(trace[2 + k..].iter().copied());
            }
            for (a, v) in b.iter_mut().zip(&row) {
                *a += v / per as f64;
            }
        }
    }
    let bf = batches as f64;
    names
        .into_iter()
        .enumerate()
        .map(|(j, name)| {
            let mean = bm.iter().map(|b| b[j]).sum::<f64>() / bf;
            let var = bm.iter().map(|b| (b[j] - mean).powi(2)).sum::<f64>() / (bf - 1.0);
            let z = (mean - reference[j]) / (var / bf).sqrt().max(1e-12);
            eprintln!(
                "  {name}: mcmc {mean:.4}, exact {:.4}, z = {z:.2}",
                reference[j]
            );
            (name, z)
        })
        .collect()
}

fn fixed_parent_params() -> Params {
    params(serde_json::json!({
        "method": "exact", "node": "C", "parents": ["A", "B"], "step_sizes": [0.6, 0.6],
        "rho": 2, "adapt": {"target": 0.574}
    }))
}

#[test]
fn algorithm1_matches_exact_method() {
    let zs = against_exact(&fixed_parent_params(), None, 100_000);
    let worst = zs.iter().map(|(_, z)| z.abs()).fold(0.0, f64::max);
    // 8 statistics: |z| < 4.5 has a family-wise false-failure rate of about 5e-5.
    assert!(worst < 4.5, "{zs:?}");
}

#[test]
fn algorithm1_with_wrong_u_fails_against_exact() {
    let zs = against_exact(
        &fixed_parent_params(),
        Some(Defect::BetaShapePlusOne),
        100_000,
    );
    let worst = zs.iter().map(|(_, z)| z.abs()).fold(0.0, f64::max);
    assert!(worst > 8.0, "the broken kernel passed: {zs:?}");
}

#[test]
fn algorithms_1_and_2_match_exact_method() {
    let p = params(serde_json::json!({
        "method": "exact", "node": "C", "candidates": ["A", "B", "D"], "step_sizes": [0.6, 0.6],
        "c": 1.0, "d": 1.0, "adapt": {"target": 0.574}
    }));
    let zs = against_exact(&p, None, 100_000);
    let worst = zs.iter().map(|(_, z)| z.abs()).fold(0.0, f64::max);
    assert!(worst < 4.7, "{zs:?}");
}

#[test]
fn exact_method_grid_converges_and_matches_prior_monte_carlo() {
    // log Z = log E_prior[f(n | t)], estimated by 400,000 prior draws on a tiny table (n = 6),
    // and the grid refined from 41 to 81 points per dimension.
    let data = small_data(3, 6);
    let mut p = fixed_parent_params();
    p.parents = Some(vec!["B".into()]);
    let cfg = p.resolve("params", &data).expect("resolves");
    let a = exact_posterior(&data, &cfg).expect("exact");
    let mut fine = cfg.clone();
    fine.grid_points = 81;
    let b = exact_posterior(&data, &fine).expect("exact");
    assert!(
        (a.log_evidence - b.log_evidence).abs() < 1e-6,
        "{} vs {}",
        a.log_evidence,
        b.log_evidence
    );
    eprintln!(
        "grid 41: {:?} {}, grid 81: {:?} {}",
        a.t_mean, a.log_evidence, b.t_mean, b.log_evidence
    );
    assert!(
        a.t_mean
            .iter()
            .zip(&b.t_mean)
            .all(|(x, y)| (x - y).abs() < 1e-5 * x.abs())
    );
    let table = data.table(2, &[1]);
    let mut rng = chain_rng(5, 6, 0, 0);
    let gamma = rand_distr::Gamma::new(cfg.shape, 1.0 / cfg.rate).expect("gamma");
    let m = 400_000;
    let mut lf = Vec::with_capacity(m);
    for _ in 0..m {
        let t: Vec<f64> = (0..2)
            .map(|_| rand_distr::Distribution::sample(&gamma, &mut rng))
            .collect();
        lf.push(log_marginal_likelihood(&table, &t));
    }
    let lse = log_sum_exp(&lf) - (m as f64).ln();
    let w: Vec<f64> = lf.iter().map(|l| (l - lse).exp()).collect();
    let sd =
        (w.iter().map(|x| (x - 1.0).powi(2)).sum::<f64>() / m as f64).sqrt() / (m as f64).sqrt();
    eprintln!(
        "exact log Z = {:.5}, prior MC = {lse:.5} ± {sd:.5}",
        a.log_evidence
    );
    assert!(
        (a.log_evidence - lse).abs() < 5.0 * sd.max(1e-4),
        "{} vs {lse}",
        a.log_evidence
    );
    // k_j > 3 is refused
    let mut bad = cfg.clone();
    bad.k = 4;
    assert!(exact_posterior(&data, &bad).is_err());
}

/// Geweke (2004) on a small node: C with k_j = 3 categories, two candidate parents A (2 levels)
/// and B (2 levels) whose columns are fixed (n = 7). Prior: t_j(x) ~ Gamma(ρ/k, b), γ ~ Beta(c,
/// d), z ~ Bernoulli(γ); data: x_C ~ Dirichlet-multinomial given the parents. Sampler: one
/// iteration of Algorithms 1 + 2.
struct HiddenGeweke {
    base: DiscreteData,
    params: Params,
    defect: Option<Defect>,
}

impl HiddenGeweke {
    fn new(defect: Option<Defect>) -> Self {
        let base = DiscreteData::labelled(
            &[
                ("A", &["0", "1"]),
                ("B", &["0", "1"]),
                ("C", &["0", "1", "2"]),
            ],
            vec![
                vec![0, 1, 0, 1, 0, 0, 1],
                vec![0, 0, 1, 1, 1, 0, 0],
                vec![0; 7],
            ],
        )
        .expect("data");
        let params = params(serde_json::json!({
            "method": "edges", "node": "C", "candidates": ["A", "B"],
            "step_sizes": [0.9, 0.9, 0.9], "rho": "k", "b": 1.0, "c": 1.0, "d": 1.0
        }));
        HiddenGeweke {
            base,
            params,
            defect,
        }
    }
}

/// log of a Gamma(a, 1) draw, safe for tiny a.
fn log_gamma_draw(a: f64, rng: &mut ChainRng) -> f64 {
    let g = rand_distr::Gamma::new(a + 1.0, 1.0).expect("gamma");
    let x: f64 = rand_distr::Distribution::sample(&g, rng);
    x.ln() + (1.0 - rng.random::<f64>()).ln() / a
}

impl causeway_papers::testing::GewekeModel for HiddenGeweke {
    type State = (Vec<f64>, u64);
    type Data = DiscreteData;
    type Chain = HiddenSampler;

    fn statistic_names(&self) -> Vec<String> {
        [
            "t_0",
            "t_1",
            "t_2",
            "log_t_0",
            "n_parents",
            "n_parents_sq",
            "z_A",
            "z_B",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect()
    }

    fn sample_prior(&self, rng: &mut ChainRng) -> Self::State {
        let t: Vec<f64> = (0..3).map(|_| log_gamma_draw(1.0, rng).exp()).collect();
        let beta = rand_distr::Beta::new(1.0, 1.0).expect("beta");
        let gamma: f64 = rand_distr::Distribution::sample(&beta, rng);
        let mut mask = 0;
        for i in 0..2 {
            if rng.random::<f64>() < gamma {
                mask |= 1 << i;
            }
        }
        (t, mask)
    }

    fn simulate(&self, state: &Self::State, rng: &mut ChainRng) -> Self::Data {
        let (t, mask) = state;
        let parents: Vec<usize> = (0..2).filter(|i| mask >> i & 1 == 1).collect();
        let codes = self.base.config_codes(&parents);
        let mut pis: HashMap<u64, Vec<f64>> = HashMap::new();
        let mut data = self.base.clone();
        for (i, &code) in codes.iter().enumerate() {
            let pi = pis.entry(code).or_insert_with(|| {
                let lg: Vec<f64> = t.iter().map(|&a| log_gamma_draw(a, rng)).collect();
                let m = log_sum_exp(&lg);
                lg.iter().map(|l| (l - m).exp()).collect()
            });
            let u: f64 = rng.random::<f64>();
            let mut acc = 0.0;
            let mut x = 2;
            for (c, p) in pi.iter().enumerate() {
                acc += p;
                if u < acc {
                    x = c;
                    break;
                }
            }
            data.columns[2][i] = x as u16;
        }
        data
    }

    fn start(
        &self,
        state: &Self::State,
        data: &Self::Data,
        rng: &mut ChainRng,
    ) -> Result<Self::Chain, causeway_papers::chain::SamplerError> {
        let mut s = HiddenSampler::new(data, &self.params, rng)?.with_defect(self.defect);
        s.set_state(&state.0, Some(state.1))?;
        Ok(s)
    }

    fn step(
        &self,
        chain: &mut Self::Chain,
        rng: &mut ChainRng,
    ) -> Result<Self::State, causeway_papers::chain::SamplerError> {
        chain.step(rng)?;
        Ok((chain.t().to_vec(), chain.mask()))
    }

    fn set_data(
        &self,
        chain: &mut Self::Chain,
        data: &Self::Data,
    ) -> Result<(), causeway_papers::chain::SamplerError> {
        chain.set_data(data.clone())
    }

    fn statistics(&self, state: &Self::State, _data: &Self::Data) -> Vec<f64> {
        let (t, mask) = state;
        vec![
            t[0],
            t[1],
            t[2],
            t[0].ln(),
            mask.count_ones() as f64,
            mask.count_ones().pow(2) as f64,
            (mask & 1) as f64,
            (mask >> 1 & 1) as f64,
        ]
    }
}

#[test]
fn geweke_algorithms_1_and_2() {
    let r = causeway_papers::testing::geweke_test(&HiddenGeweke::new(None), 200_000, 50, 41)
        .expect("geweke");
    for s in &r.stats {
        eprintln!(
            "Geweke {}: prior {:.4} sampler {:.4} z = {:.2}",
            s.name, s.prior_mean, s.sampler_mean, s.z
        );
    }
    // 8 statistics: |z| < 4.5 has a family-wise false-failure rate of about 5e-5.
    assert!(r.worst_abs_z(|_| true) < 4.5, "{r:?}");
}

#[test]
fn geweke_with_wrong_u_fails() {
    let r = causeway_papers::testing::geweke_test(
        &HiddenGeweke::new(Some(Defect::BetaShapePlusOne)),
        200_000,
        50,
        42,
    )
    .expect("geweke");
    for s in &r.stats {
        eprintln!("Geweke (u ~ Beta(β, n + 1)) {}: z = {:.2}", s.name, s.z);
    }
    assert!(
        r.worst_abs_z(|_| true) > 8.0,
        "the broken kernel passed: {r:?}"
    );
}

#[test]
fn geweke_without_edge_prior_factor_fails() {
    let r = causeway_papers::testing::geweke_test(
        &HiddenGeweke::new(Some(Defect::NoEdgePriorFactor)),
        200_000,
        50,
        43,
    )
    .expect("geweke");
    for s in &r.stats {
        eprintln!("Geweke (no edge prior factor) {}: z = {:.2}", s.name, s.z);
    }
    assert!(
        r.worst_abs_z(|n| n.starts_with("n_parents")) > 8.0,
        "the broken kernel passed: {r:?}"
    );
}

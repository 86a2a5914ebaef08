//! SIS-CN is unbiased for p(x): E[Ẑ / Z] = 1 for every J, checked against exact enumeration with
//! small J (where Ẑ is noisy) by a CLT bound; deliberately broken variants must fail the same
//! test. Also: agreement with the thesis author's stored SMC estimates (R > 1) on CEP pairs.

use super::common::*;
use causeway_papers::Sampler;
use causeway_papers::kurutmaz2019::{
    Problem, Resampling, SmcConfig, SmcSampler, datasets, samplers::Defect, samplers::exact,
};

/// Mean and standard error of X = exp(ln Ẑ − ln Z) over `n` independent runs.
fn ratio_stats(p: &Problem, log_z: f64, cfg: SmcConfig, n: usize, seed: u64) -> (f64, f64) {
    let mut s = SmcSampler::new(p, cfg, true).unwrap();
    let mut g = rng(seed);
    let (mut sum, mut sq) = (0.0, 0.0);
    for _ in 0..n {
        s.step(&mut g).unwrap();
        let x = (s.last().unwrap().log_z - log_z).exp();
        sum += x;
        sq += x * x;
    }
    let mean = sum / n as f64;
    let var = (sq / n as f64 - mean * mean) * n as f64 / (n - 1) as f64;
    (mean, (var / n as f64).sqrt())
}

/// The test for one configuration: |mean − 1| ≤ 4 SE (a NaN SE — all runs equal — fails).
fn passes(mean: f64, se: f64) -> bool {
    (mean - 1.0).abs() <= 4.0 * se
}

const T: usize = 8;
const RUNS: usize = 2000;

/// Four T = 8 data sets drawn from the model (R = 3), standardised like the CEP pairs, each scored
/// by the three networks with R = 2 and 3 (24 problems with exact ln Z by enumeration).
///
/// Why standardised, and why these settings: a raw draw can put a few points ten prior standard
/// deviations out; the posterior then sits on a partition the filtering proposal (no look-ahead)
/// reaches with probability ~e^-100, and Ẑ/Z — still unbiased — is so heavy-tailed that no CLT
/// bound holds at any practical number of runs (we saw a median of 1 and a mean of 0.58 over
/// 20 000 runs, for J = 1 to 2000 alike). Standardised data, with priors on that scale, is the
/// regime of every real run; in a pilot over these data sets the largest single Ẑ/Z in 20 000 runs
/// at J = 1 was below 8.
fn cases() -> Vec<(String, Problem, f64)> {
    let mut v = Vec::new();
    for (seed, set) in [(100u64, 1usize), (101, 36), (102, 36), (103, 20)] {
        let truth = HYPS[(seed % 3) as usize];
        let (mut a, mut b) = synthetic(seed, truth, 3, T, set);
        datasets::standardize(&mut a).unwrap();
        datasets::standardize(&mut b).unwrap();
        for hyp in HYPS {
            for r in [2usize, 3] {
                let p = problem(&a, &b, hyp, r, set);
                let z = exact::enumerate(&p, 10_000_000, None).unwrap();
                v.push((
                    format!("data {truth:?} (setting {set}), model {hyp:?}, R={r}"),
                    p,
                    z,
                ));
            }
        }
    }
    v
}

/// (J, threshold, scheme): small J where Ẑ is noisy; adaptive, always and never resampling.
fn configs() -> Vec<(usize, f64, Resampling)> {
    vec![
        (2, 0.5, Resampling::Systematic),
        (2, 1.0, Resampling::Multinomial),
        (2, 0.0, Resampling::Systematic),
        (5, 0.5, Resampling::Systematic),
        (5, 0.8, Resampling::Stratified),
        (20, 0.5, Resampling::Systematic),
        (20, 1.0, Resampling::Systematic),
        (20, 1.0, Resampling::Multinomial),
    ]
}

/// The unbiasedness test: every (problem, configuration) must pass [`passes`]. Returns the
/// failures, the largest |z| and the number of configurations run: all of them, or up to the
/// first whose |z| exceeds `stop_above` (`f64::INFINITY`: run all).
fn battery(defect: Option<Defect>, stop_above: f64, verbose: bool) -> (Vec<String>, f64, usize) {
    let mut failures = Vec::new();
    let mut worst: f64 = 0.0;
    let mut k = 0u64;
    for (name, p, z) in cases() {
        for (j, thr, res) in configs() {
            k += 1;
            let cfg = SmcConfig {
                n_particles: j,
                resample_threshold: thr,
                resampling: res,
                ..Default::default()
            }
            .with_defect(defect);
            let (mean, se) = ratio_stats(&p, z, cfg, RUNS, k);
            let zs = (mean - 1.0) / se;
            let line = format!(
                "{name}, J={j}, thr={thr} {res:?}: mean Ẑ/Z = {mean:.4} ± {se:.4} (z = {zs:+.2})"
            );
            if verbose {
                println!("{line}");
            }
            if zs.is_finite() {
                worst = worst.max(zs.abs());
                ZS.with(|v| v.borrow_mut().push(zs));
            }
            if !passes(mean, se) {
                failures.push(line);
            }
            if zs.abs() > stop_above {
                return (failures, worst, k as usize);
            }
        }
    }
    (failures, worst, k as usize)
}

thread_local! {
    static ZS: std::cell::RefCell<Vec<f64>> = const { std::cell::RefCell::new(Vec::new()) };
}

#[test]
fn smc_is_unbiased_for_small_j() {
    let (failures, worst, n) = battery(None, f64::INFINITY, true);
    let zs = ZS.with(|v| v.borrow().clone());
    let m = zs.iter().sum::<f64>() / zs.len() as f64;
    let sd = (zs.iter().map(|z| (z - m) * (z - m)).sum::<f64>() / (zs.len() - 1) as f64).sqrt();
    println!(
        "z-scores over the battery: mean {m:+.3}, sd {sd:.3} (0 and 1 if unbiased with honest SEs)"
    );
    println!(
        "SIS-CN: {n} configurations x {RUNS} runs, largest |z| = {worst:.2}, failures: {}",
        failures.len()
    );
    assert!(failures.is_empty(), "{failures:#?}");
}

/// |z| a broken SIS-CN must reach on some configuration of the battery: a correct kernel's
/// largest |z| over all 192 configurations was 3.00 when this test was written (and |z| ≥ 10
/// has probability ~1e-23 per configuration under N(0, 1)).
const BROKEN_Z: f64 = 10.0;

/// Negative controls: each broken kernel must not merely fail one of the 192 comparisons (a
/// correct kernel does that by chance ~1% of the time at 4 SE), but give |Ẑ/Z − 1| of at least
/// [`BROKEN_Z`] standard errors on some configuration. The battery stops at the first such one.
#[test]
fn broken_smc_fails_the_unbiasedness_test() {
    for defect in [
        Defect::OmitCategoricalPredictive,
        Defect::NoWeightReset,
        Defect::ForgetFinalWeights,
    ] {
        let (failures, worst, n) = battery(Some(defect), BROKEN_Z, false);
        println!(
            "{defect:?}: largest |z| = {worst:.1} after {n} configurations ({} failing at 4 SE): {}",
            failures.len(),
            failures.last().map_or("-", |s| s.as_str())
        );
        assert!(
            worst > BROKEN_Z,
            "{defect:?}: largest |z| {worst:.2} over {n} configurations"
        );
    }
}

/// Agreement with the author's SIS-CN estimates (R > 1, J = 1000, adaptive systematic
/// resampling at ESS < J/2, random order). Both are draws of a noisy estimator, so per cell we
/// run ours K times and take the rank of the author's value among ours: if both come from the
/// same distribution the rank is uniform on 0..=K, and the mean normalised rank
/// u = (rank + ½)/(K + 1) is ½ up to a CLT error. Also reports the differences
/// (author − our mean) and their quantiles.
fn agreement(
    pairs: &[&str],
    settings: &[usize],
    rs: &[usize],
    k_runs: usize,
) -> (f64, f64, Vec<f64>, usize) {
    let fx = smc_fixture();
    let meta = meta();
    let mut us = Vec::new();
    let mut diffs = Vec::new();
    let mut cell = 0u64;
    for pair in pairs {
        let m = meta.iter().find(|m| m.cdt_id == *pair).unwrap();
        let (a, b) = cep_pair(pair);
        for &set in settings {
            for hyp in HYPS {
                for &r in rs {
                    cell += 1;
                    let theirs = fx[&(
                        m.original_id.clone(),
                        set,
                        r,
                        fixture_hypothesis(hyp, m.forward).to_string(),
                    )];
                    let p = problem(&a, &b, hyp, r, set);
                    let mut s = SmcSampler::new(&p, SmcConfig::default(), true).unwrap();
                    let mut g = rng(10_000 + cell);
                    let ours: Vec<f64> = (0..k_runs)
                        .map(|_| {
                            s.step(&mut g).unwrap();
                            s.last().unwrap().log_z
                        })
                        .collect();
                    let rank = ours.iter().filter(|o| **o < theirs).count();
                    us.push((rank as f64 + 0.5) / (k_runs as f64 + 1.0));
                    diffs.push(theirs - ours.iter().sum::<f64>() / k_runs as f64);
                }
            }
        }
    }
    let n = us.len() as f64;
    let mean_u = us.iter().sum::<f64>() / n;
    // Var of the discrete uniform normalised rank: ((K+1)² − 1) / (12 (K+1)²).
    let k1 = k_runs as f64 + 1.0;
    let se_u = ((k1 * k1 - 1.0) / (12.0 * k1 * k1) / n).sqrt();
    let tail = us
        .iter()
        .filter(|u| **u < 0.5 / k1 + 1e-12 || **u > 1.0 - 0.5 / k1 - 1e-12)
        .count();
    diffs.sort_by(|a, b| a.partial_cmp(b).unwrap());
    (mean_u, se_u, diffs, tail)
}

fn report(label: &str, (mean_u, se_u, d, tail): &(f64, f64, Vec<f64>, usize)) {
    let n = d.len();
    let q = |p: f64| d[((n - 1) as f64 * p).round() as usize];
    let mean = d.iter().sum::<f64>() / n as f64;
    let sd = (d.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64).sqrt();
    println!(
        "{label}: {n} cells; author − ours: mean {mean:+.3}, sd {sd:.3}, quantiles 5% {:+.3} 25% {:+.3} 50% {:+.3} 75% {:+.3} 95% {:+.3}; \
         mean normalised rank of the author's value among ours {mean_u:.3} ± {se_u:.3} (½ if same distribution); \
         outside all of ours: {tail} ({:.1}%)",
        q(0.05),
        q(0.25),
        q(0.5),
        q(0.75),
        q(0.95),
        100.0 * *tail as f64 / n as f64
    );
}

#[test]
fn agrees_with_the_authors_smc_on_a_short_pair() {
    let res = agreement(&["pair93"], &[1, 20, 36], &[2, 3, 5], 7);
    report(
        "pair93 (T = 94), settings 1/20/36, R = 2/3/5, 3 hypotheses, K = 7",
        &res,
    );
    let (mean_u, se_u, d, _) = &res;
    assert!(
        (mean_u - 0.5).abs() < 4.0 * se_u,
        "author's values are not exchangeable with ours: mean rank {mean_u}"
    );
    assert!(
        d[d.len() / 2].abs() < 1.0,
        "median difference {}",
        d[d.len() / 2]
    );
}

/// The large version (about 10 CPU-minutes): the 8 shortest thesis pairs × 36 settings ×
/// R = 2..5 × 3 hypotheses, K = 9 runs per cell.
/// `cargo test -p causeway-papers --test kurutmaz2019_smc -- --ignored --nocapture`.
/// Last run: 3456 cells; author − ours median +0.018 (IQR −0.51..+0.64, 5–95% −21.9..+16.4);
/// mean normalised rank 0.484 ± 0.005; author's value outside all 9 of ours in 20.5% of cells
/// (20% expected).
#[test]
#[ignore]
fn agrees_with_the_authors_smc_large() {
    let settings: Vec<usize> = (1..=36).collect();
    let pairs = [
        "pair93", "pair85", "pair84", "pair86", "pair87", "pair60", "pair48", "pair52",
    ];
    let res = agreement(&pairs, &settings, &[2, 3, 4, 5], 9);
    report(
        "8 short pairs × 36 settings × R 2..5 × 3 hypotheses, K = 9",
        &res,
    );
    let (mean_u, se_u, _, _) = &res;
    assert!((mean_u - 0.5).abs() < 4.0 * se_u);
}

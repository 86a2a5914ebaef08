//! Tests of dallaire2014: prior_moments. With no data (N = 0), the MCMC
//! of §4 (`method: mcmc`) must sample the structure prior, and so must the forward draws
//! (`method: forward`): both match the exact moments of
//! `causeway_papers::dallaire2014::evaluation::prior_moments::exact_prior_moments` within 4.5
//! standard errors, for the CIBP and the eCIBP. Standard errors: sd/√draws for the forward draws
//! (independent), batch means (50 batches, the first 10% dropped) for the MCMC chain on dataset
//! `none` (d = 2 columns, no rows). Settings: 40,000 forward draws, 150,000 MCMC iterations
//! (override with the environment variables FWD and MCI).

use causeway_papers::dallaire2014::evaluation::prior_moments::{PriorMoments, exact_prior_moments};
use causeway_papers::dallaire2014::params::{Params, Prior};
use causeway_papers::dallaire2014::samplers::{ForwardSampler, NetworkSampler};
use causeway_papers::{Matrix, RunSpec, chain_rng, run_chain};

const STATS: [&str; 6] = [
    "n_units",
    "n_edges",
    "n_jump_edges",
    "depth",
    "p_no_hidden",
    "p_depth_ge_3",
];

fn exact_of(m: &PriorMoments) -> [f64; 6] {
    [
        m.n_units,
        m.n_edges,
        m.n_jump_edges,
        m.depth,
        m.p_no_hidden,
        m.p_depth_ge_3,
    ]
}

/// The six statistics of every recorded row (trace columns n_units, n_edges, n_jump_edges, depth).
fn rows_of(trace: &[f64], width: usize, d: usize) -> Vec<[f64; 6]> {
    trace
        .chunks_exact(width)
        .map(|r| {
            [
                r[0],
                r[1],
                r[2],
                r[3],
                f64::from(u8::from(r[0] as usize == d)),
                f64::from(u8::from(r[3] >= 3.0)),
            ]
        })
        .collect()
}

/// (mean, se) per statistic, with `batches` batch means (batches = rows: i.i.d.).
fn mean_se(rows: &[[f64; 6]], batches: usize) -> Vec<(f64, f64)> {
    let per = rows.len() / batches;
    (0..6)
        .map(|j| {
            let bm: Vec<f64> = (0..batches)
                .map(|b| {
                    rows[b * per..(b + 1) * per]
                        .iter()
                        .map(|r| r[j])
                        .sum::<f64>()
                        / per as f64
                })
                .collect();
            let mean = bm.iter().sum::<f64>() / batches as f64;
            let var = bm.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (batches - 1) as f64;
            (mean, (var / batches as f64).sqrt())
        })
        .collect()
}

fn check(label: &str, est: &[(f64, f64)], exact: &[f64; 6]) {
    let mut worst: f64 = 0.0;
    for (j, name) in STATS.iter().enumerate() {
        let (m, se) = est[j];
        let z = if se > 0.0 {
            (m - exact[j]) / se
        } else if (m - exact[j]).abs() < 1e-12 {
            0.0
        } else {
            f64::INFINITY
        };
        println!(
            "{label:>24} {name:>13}: mean {m:9.4} ± {se:7.4}  exact {:9.4}  z = {z:+.2}",
            exact[j]
        );
        worst = worst.max(z.abs());
    }
    assert!(worst < 4.5, "{label}: some |z| = {worst:.2} ≥ 4.5");
}

fn params(prior: Prior, alpha: f64, beta_prime: f64) -> Params {
    Params {
        prior,
        alpha,
        beta: 1.0,
        beta_prime,
        ..Params::default()
    }
}

fn run(prior: Prior, alpha: f64, beta_prime: f64, mcmc: bool, seed: u64) {
    let d = 2;
    let p = params(prior, alpha, beta_prime);
    let exact = exact_prior_moments(d, alpha, 1.0, prior == Prior::Ecibp).unwrap();
    let exact = exact_of(&exact);
    let x = Matrix::new("x", 0, d, vec![]);
    let label = format!("{prior:?} α={alpha} β′={beta_prime}");
    // forward
    let draws: u64 = std::env::var("FWD")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(40_000);
    let mut rng = chain_rng(seed, 1, 0, 0);
    let mut fwd = ForwardSampler::new(&p, &x, None, &mut rng).unwrap();
    let spec = RunSpec {
        iterations: draws,
        burn_in: 0,
        thin: 1,
    };
    let out = run_chain(&mut fwd, &spec, &mut rng, &mut |_, _| {}).unwrap();
    let rows = rows_of(&out.trace, out.trace_names.len(), d);
    check(
        &format!("forward {label}"),
        &mean_se(&rows, rows.len()),
        &exact,
    );
    if !mcmc {
        return;
    }
    // mcmc
    let iters: u64 = std::env::var("MCI")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(150_000);
    let mut rng = chain_rng(seed, 2, 0, 0);
    let mut mc = NetworkSampler::new(&p, &x, None, &mut rng).unwrap();
    let spec = RunSpec {
        iterations: iters,
        burn_in: 0,
        thin: 1,
    };
    let out = run_chain(&mut mc, &spec, &mut rng, &mut |_, _| {}).unwrap();
    let rows = rows_of(&out.trace, out.trace_names.len(), d);
    let rows = &rows[rows.len() / 10..];
    check(&format!("mcmc {label}"), &mean_se(rows, 50), &exact);
}

#[test]
fn dallaire2014_prior_moments_ecibp_forward_matches_exact() {
    // The eCIBP chain at α = β = β′ = 1 mixes slowly through the heavy tail of n_jump_edges
    // (at 400,000 iterations the batch-means se of n_units is still 0.5; every |z| < 2.4 there):
    // the MCMC is checked at α = 0.5 below and, for these settings, by the Geweke tests.
    run(Prior::Ecibp, 1.0, 1.0, false, 11);
}

#[test]
fn dallaire2014_prior_moments_cibp_mcmc_and_forward_match_exact() {
    run(Prior::Cibp, 1.0, 1.0, true, 12);
}

#[test]
fn dallaire2014_prior_moments_ecibp_mcmc_and_forward_match_exact() {
    run(Prior::Ecibp, 0.5, 2.0, true, 13);
}

//! PG-CN targets the right posterior: on T = 4 observations the stationary distribution of the
//! reference trajectory matches p(r | x) by exact enumeration. The model is symmetric in the
//! labels of r, so we compare label-free statistics: the distribution over partitions of the 4
//! observations (canonical relabelling) and the co-assignment matrix P(r_s = r_t).
//! A broken PG (the conditional SMC does not keep the reference path) must fail the same test.

use std::collections::HashMap;

use super::common::*;
use causeway_papers::Sampler;
use causeway_papers::kurutmaz2019::samplers::Defect;
use causeway_papers::kurutmaz2019::{PgSampler, Problem, SmcConfig, datasets, samplers::exact};

const T: usize = 4;
const SWEEPS: usize = 100_000;
const BURN: usize = 500;
const BATCHES: usize = 50;

/// Exact posterior over partitions and the co-assignment matrix (row-major T × T).
fn exact_posterior(p: &Problem) -> (HashMap<Vec<u8>, f64>, Vec<f64>) {
    let z = exact::enumerate(p, 1000, None).unwrap();
    let mut post: HashMap<Vec<u8>, f64> = HashMap::new();
    let mut co = vec![0.0; T * T];
    let mut visit = |r: &[usize], lp: f64| {
        let w = (lp - z).exp();
        *post.entry(partition_key(r)).or_default() += w;
        for s in 0..T {
            for t in 0..T {
                if r[s] == r[t] {
                    co[s * T + t] += w;
                }
            }
        }
    };
    exact::enumerate(p, 1000, Some(&mut visit)).unwrap();
    (post, co)
}

struct Outcome {
    max_z: f64,
    tv: f64,
    co_err: f64,
}

/// Run PG and compare partition frequencies with the exact posterior: z-scores with batch-means
/// standard errors (50 batches), total variation, and the largest co-assignment error.
fn check(p: &Problem, j: usize, thr: f64, defect: Option<Defect>, seed: u64) -> Outcome {
    let (post, co_exact) = exact_posterior(p);
    let keys: Vec<Vec<u8>> = post.keys().cloned().collect();
    let mut g = rng(seed);
    let cfg = SmcConfig {
        n_particles: j,
        resample_threshold: thr,
        ..Default::default()
    };
    let mut s = PgSampler::new(p.clone(), cfg.with_defect(defect), true, &mut g).unwrap();
    for _ in 0..BURN {
        s.step(&mut g).unwrap();
    }
    let per = SWEEPS / BATCHES;
    let mut batch = vec![vec![0.0; keys.len()]; BATCHES];
    let mut co = [0.0; T * T];
    for bt in batch.iter_mut() {
        for _ in 0..per {
            s.step(&mut g).unwrap();
            let r = s.reference();
            let key = partition_key(r);
            let k = keys
                .iter()
                .position(|x| *x == key)
                .expect("PG visited a partition of zero posterior mass");
            bt[k] += 1.0 / per as f64;
            for u in 0..T {
                for v in 0..T {
                    if r[u] == r[v] {
                        co[u * T + v] += 1.0 / SWEEPS as f64;
                    }
                }
            }
        }
    }
    let mut max_z: f64 = 0.0;
    let mut tv = 0.0;
    for (k, key) in keys.iter().enumerate() {
        let m = batch.iter().map(|b| b[k]).sum::<f64>() / BATCHES as f64;
        let var = batch.iter().map(|b| (b[k] - m).powi(2)).sum::<f64>() / (BATCHES - 1) as f64;
        let se = (var / BATCHES as f64).sqrt().max(1e-4);
        max_z = max_z.max((m - post[key]).abs() / se);
        tv += 0.5 * (m - post[key]).abs();
    }
    let co_err = co
        .iter()
        .zip(&co_exact)
        .map(|(a, b)| (a - b).abs())
        .fold(0.0, f64::max);
    Outcome { max_z, tv, co_err }
}

/// The test for one chain: every partition frequency within 4.5 batch-means standard errors of
/// its exact posterior probability (≤ 14 partitions per problem, ~9 chains).
fn passes(o: &Outcome) -> bool {
    o.max_z <= 4.5
}

/// Three network scores × R ∈ {2, 3} of one standardised T = 4 draw (setting 1).
fn problems() -> Vec<(String, Problem)> {
    let (mut a, mut b) = synthetic(200, HYPS[2], 3, T, 1);
    datasets::standardize(&mut a).unwrap();
    datasets::standardize(&mut b).unwrap();
    let mut v = Vec::new();
    for hyp in HYPS {
        for r in [2usize, 3] {
            v.push((format!("model {hyp:?}, R={r}"), problem(&a, &b, hyp, r, 1)));
        }
    }
    v
}

#[test]
fn pg_matches_the_exact_posterior() {
    let mut k = 0;
    for (name, p) in problems() {
        // J = 2 resampling at every step (Fig. 4.4); J = 5 adaptive (ESS < J/2).
        let chains: &[(usize, f64)] = if p.n_latent == 3 {
            &[(2, 1.0), (5, 0.5)]
        } else {
            &[(2, 1.0)]
        };
        for &(j, thr) in chains {
            k += 1;
            let o = check(&p, j, thr, None, k);
            println!(
                "PG {name}, J={j}, thr={thr}: max |z| {:.2}, TV {:.4}, max co-assignment error {:.4}",
                o.max_z, o.tv, o.co_err
            );
            assert!(passes(&o), "{name}, J={j}: max |z| = {}", o.max_z);
        }
    }
}

#[test]
fn broken_pg_fails_the_same_test() {
    let mut failed = Vec::new();
    for (i, (name, p)) in problems().into_iter().enumerate() {
        let o = check(&p, 2, 1.0, Some(Defect::DropReference), 100 + i as u64);
        println!(
            "broken PG {name}, J=2: max |z| {:.2}, TV {:.4}, max co-assignment error {:.4}",
            o.max_z, o.tv, o.co_err
        );
        if !passes(&o) {
            failed.push(name);
            break;
        }
    }
    assert!(
        !failed.is_empty(),
        "PG without the reference path passed the test"
    );
}

#[test]
fn pg_summary_shapes_and_order() {
    let (a, b) = synthetic(5, HYPS[0], 2, 30, 20);
    let p = problem(&a, &b, HYPS[0], 2, 20);
    let mut g = rng(1);
    let mut s = PgSampler::new(
        p.clone(),
        SmcConfig {
            n_particles: 50,
            ..Default::default()
        },
        true,
        &mut g,
    )
    .unwrap();
    for _ in 0..20 {
        s.step(&mut g).unwrap();
        s.accumulate();
        // The trace's log joint is the closed form of the reference in the original order.
        assert!((s.log_joint() - p.log_joint(s.reference()).unwrap()).abs() < 1e-9);
    }
    let sum = s.summary();
    let marg = sum.iter().find(|m| m.name == "r_marginals").unwrap();
    let map = sum.iter().find(|m| m.name == "r_map").unwrap();
    assert_eq!((marg.rows, marg.cols, map.rows, map.cols), (30, 2, 30, 1));
    for t in 0..30 {
        assert!((marg.get(t, 0) + marg.get(t, 1) - 1.0).abs() < 1e-12);
    }
}

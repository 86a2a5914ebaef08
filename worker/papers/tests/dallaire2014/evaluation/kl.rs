//! The k-NN KL estimator of Pérez-Cruz (2008): against a brute force that sorts
//! every distance, the tie rule, the exact 0.125 of two shifted 2-D Gaussians at n = m = 20,000,
//! and the reference rows.

use std::time::Instant;

use causeway_papers::dallaire2014::evaluation::{
    FantasyKl, KnnKl, Standardizer, kl_knn, kl_reference,
};
use causeway_papers::dallaire2014::params::KlDirection;
use causeway_papers::data::Matrix;
use causeway_papers::seed::chain_rng;
use rand::RngExt;

use super::gaussian;

/// D̂(P‖Q) and the tie count by brute force, O(n·(n + m)): every distance with `sqrt`, exact
/// row equality for ties, all positive distances sorted and the k-th taken.
fn brute_force(p: &[f64], q: &[f64], d: usize, k: usize) -> (f64, u64) {
    let n = p.len() / d;
    let m = q.len() / d;
    let row = |v: &[f64], i: usize| v[i * d..(i + 1) * d].to_vec();
    let dist = |a: &[f64], b: &[f64]| {
        a.iter()
            .zip(b)
            .map(|(x, y)| (x - y).powi(2))
            .sum::<f64>()
            .sqrt()
    };
    let mut ties = 0u64;
    let mut sum = 0.0;
    for i in 0..n {
        let pi = row(p, i);
        let mut r: Vec<f64> = Vec::new();
        for j in (0..n).filter(|&j| j != i) {
            let pj = row(p, j);
            if pj == pi {
                ties += 1;
            } else {
                r.push(dist(&pi, &pj));
            }
        }
        let mut s: Vec<f64> = Vec::new();
        for j in 0..m {
            let qj = row(q, j);
            if qj == pi {
                ties += 1;
            } else {
                s.push(dist(&pi, &qj));
            }
        }
        r.sort_by(f64::total_cmp);
        s.sort_by(f64::total_cmp);
        sum += (s[k - 1] / r[k - 1]).ln();
    }
    (
        d as f64 / n as f64 * sum + (m as f64 / (n as f64 - 1.0)).ln(),
        ties,
    )
}

/// Values on a coarse lattice, so that exact duplicates (within P and between P and Q) occur.
fn lattice(n: usize, d: usize, seed: u64) -> Vec<f64> {
    let mut rng = chain_rng(seed, 1, 0, 0);
    (0..n * d)
        .map(|_| {
            (rng.random_range(0..6) as f64) * 0.5
                + if rng.random::<f64>() < 0.5 { 0.0 } else { 0.25 }
        })
        .collect()
}

#[test]
fn dallaire2014_kl_matches_brute_force() {
    for (d, k, n, m, seed) in [
        (1, 1, 40, 35, 1),
        (2, 1, 300, 250, 2),
        (3, 3, 300, 320, 3),
        (9, 2, 200, 150, 4),
    ] {
        // Continuous data (no ties) ...
        let mut rng = chain_rng(seed, 0, 0, 0);
        let p = gaussian(n, d, &vec![0.0; d], &mut rng);
        let q = gaussian(m, d, &vec![0.3; d], &mut rng);
        let est = kl_knn(&p, &q, d, k).unwrap();
        let (kl, ties) = brute_force(&p, &q, d, k);
        assert!(
            (est.kl - kl).abs() < 1e-10,
            "d = {d}, k = {k}: {} vs {kl}",
            est.kl
        );
        assert_eq!(est.zero_distance_ties, ties);
        assert_eq!(ties, 0);
        // ... and lattice data with many duplicates (d ≥ 2 so every point keeps k neighbours).
        if d >= 2 {
            let p = lattice(n, d, seed + 10);
            let q = lattice(m, d, seed + 20);
            let est = kl_knn(&p, &q, d, k).unwrap();
            let (kl, ties) = brute_force(&p, &q, d, k);
            assert!(
                (est.kl - kl).abs() < 1e-10,
                "lattice d = {d}: {} vs {kl}",
                est.kl
            );
            assert_eq!(est.zero_distance_ties, ties, "lattice d = {d}");
            if d <= 3 {
                assert!(ties > 0, "lattice d = {d} has no ties");
            }
        }
    }
}

#[test]
fn dallaire2014_kl_tie_rule_by_hand() {
    // P: two copies of (0,0), (1,0), (0,2). Q: (0,0), two copies of (1,0), (3,3).
    // Ties: within P, each copy of (0,0) matches the other (2); against Q, each (0,0) of P
    // matches Q_1 (2) and (1,0) matches Q_2, Q_3 (2): 6 in all.
    // k = 1: r = (1, 1, 1, 2), s = (1, 1, 1, 2), so D̂ = (2/4)·0 + ln(4/3).
    let p = [0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 2.0];
    let q = [0.0, 0.0, 1.0, 0.0, 1.0, 0.0, 3.0, 3.0];
    let est = kl_knn(&p, &q, 2, 1).unwrap();
    assert_eq!(est.zero_distance_ties, 6);
    assert!((est.kl - (4.0f64 / 3.0).ln()).abs() < 1e-15, "{}", est.kl);
    let knn = KnnKl::new(&p, 4, 2, 1).unwrap();
    assert_eq!(knn.p_ties(), 2);
    // k = 2, distances counted with multiplicity: r = (2, 2, 1, 2), s = (1, 1, √13, √5).
    let est = kl_knn(&p, &q, 2, 2).unwrap();
    let want = 0.5 * ((0.5f64).ln() + (0.5f64).ln() + 13f64.sqrt().ln() + (5f64.sqrt() / 2.0).ln())
        + (4.0f64 / 3.0).ln();
    assert!((est.kl - want).abs() < 1e-14, "{} vs {want}", est.kl);
    assert_eq!(est.zero_distance_ties, 6);
    // A point of P with every other point of P a duplicate cannot be scored.
    assert!(KnnKl::new(&[1.0, 1.0, 1.0, 1.0, 1.0, 1.0], 3, 2, 1).is_err());
    // n ≤ k, m < k, non-finite values: errors, never panics.
    assert!(kl_knn(&p, &q, 2, 4).is_err());
    assert!(kl_knn(&p, &q[..2], 2, 2).is_err());
    assert!(
        kl_knn(&p, &[f64::NAN, 0.0], 2, 1)
            .unwrap_err()
            .contains("row 1")
    );
}

#[test]
fn dallaire2014_kl_shifted_gaussians_at_20000() {
    // KL(N(0, I) ‖ N((0.5, 0), I)) = 0.5² / 2 = 0.125.
    let mut rng = chain_rng(2014, 2, 0, 0);
    let n = 20_000;
    let p = gaussian(n, 2, &[0.0, 0.0], &mut rng);
    let q = gaussian(n, 2, &[0.5, 0.0], &mut rng);
    let t = Instant::now();
    let est = kl_knn(&p, &q, 2, 1).unwrap();
    let secs = t.elapsed().as_secs_f64();
    println!(
        "n = m = 20000: D̂ = {:.4} (exact 0.125), {secs:.3} s",
        est.kl
    );
    assert!((est.kl - 0.125).abs() < 0.03, "{}", est.kl);
    assert_eq!(est.zero_distance_ties, 0);
    // The size of a recorded MCMC iteration: n = m = 2000, d = 9 (abalone); timing only.
    let p9 = gaussian(2000, 9, &[0.0; 9], &mut rng);
    let knn = KnnKl::new(&p9, 2000, 9, 1).unwrap();
    let q9 = gaussian(2000, 9, &[0.2; 9], &mut rng);
    let t = Instant::now();
    let reps = 10;
    for _ in 0..reps {
        knn.kl(&q9).unwrap();
    }
    println!(
        "n = m = 2000, d = 9: {:.1} ms per KL",
        1e3 * t.elapsed().as_secs_f64() / reps as f64
    );
}

#[test]
fn dallaire2014_kl_fantasy_uses_the_training_standardization() {
    let mut rng = chain_rng(7, 3, 0, 0);
    let (n, d) = (200, 3);
    let train: Vec<f64> = gaussian(n, d, &[1.0, -2.0, 5.0], &mut rng)
        .iter()
        .enumerate()
        .map(|(i, v)| v * [0.1, 3.0, 40.0][i % 3])
        .collect();
    let test: Vec<f64> = train.iter().map(|v| v * 1.1 + 0.2).collect();
    let fantasy: Vec<f64> = train.iter().rev().copied().collect();
    let fk = FantasyKl::new(&train, n, &test, n, d, 2, KlDirection::TestModel).unwrap();
    let std = Standardizer::fit(&train, n, d).unwrap();
    let (mut zt, mut zf) = (test.clone(), fantasy.clone());
    std.apply(&mut zt);
    std.apply(&mut zf);
    let direct = kl_knn(&zt, &zf, d, 2).unwrap();
    let via = fk.kl_data_units(&fantasy).unwrap();
    assert!((direct.kl - via.kl).abs() < 1e-12);
    assert_eq!(direct.zero_distance_ties, via.zero_distance_ties);
    assert!(
        FantasyKl::new(
            &[1.0, 2.0, 1.0, 3.0],
            2,
            &test[..4],
            2,
            2,
            1,
            KlDirection::TestModel
        )
        .is_err()
    );
    // `model_test` swaps P and Q: D̂(fantasy ‖ test), in the same standardized space.
    let reverse = FantasyKl::new(&train, n, &test, n, d, 2, KlDirection::ModelTest).unwrap();
    let swapped = kl_knn(&zf, &zt, d, 2).unwrap();
    let via = reverse.kl_data_units(&fantasy).unwrap();
    assert_eq!(swapped, via);
    assert!(
        (swapped.kl - direct.kl).abs() > 0.05,
        "{swapped:?} {direct:?}"
    );
}

#[test]
fn dallaire2014_kl_model_test_direction_matches_the_exact_reverse_divergence() {
    // Test set N(0, I), fantasy N(0, 2I), d = 2: KL(test ‖ fantasy) = (½ − 1 + ln 2) = 0.193,
    // KL(fantasy ‖ test) = (2 − 1 − ln 2) = 0.307. The standardization (by the test set itself
    // here) is one affine map of both samples and leaves both divergences unchanged.
    let n = 20_000;
    let mut rng = chain_rng(11, 7, 0, 0);
    let test = gaussian(n, 2, &[0.0, 0.0], &mut rng);
    let fantasy: Vec<f64> = gaussian(n, 2, &[0.0, 0.0], &mut rng)
        .iter()
        .map(|v| v * std::f64::consts::SQRT_2)
        .collect();
    let ln2 = std::f64::consts::LN_2;
    let (exact_test_model, exact_model_test) = (ln2 - 0.5, 1.0 - ln2);
    let estimate = |direction| {
        FantasyKl::new(&test, n, &test, n, 2, 1, direction)
            .unwrap()
            .kl_data_units(&fantasy)
            .unwrap()
            .kl
    };
    let (forward, reverse) = (
        estimate(KlDirection::TestModel),
        estimate(KlDirection::ModelTest),
    );
    println!(
        "test_model {forward:.4} (exact {exact_test_model:.4}), \
         model_test {reverse:.4} (exact {exact_model_test:.4})"
    );
    assert!((forward - exact_test_model).abs() < 0.04, "{forward}");
    assert!((reverse - exact_model_test).abs() < 0.04, "{reverse}");
}

#[test]
fn dallaire2014_kl_reference_rows() {
    // Correlated 2-D Gaussian, ρ = 0.9: D̂(test ‖ train) ≈ 0, and the column-permuted training
    // set is the product of the marginals, at KL = −½ ln(1 − ρ²) = 0.830 from the joint.
    let rho: f64 = 0.9;
    let mut rng = chain_rng(11, 5, 0, 0);
    let make = |n: usize, rng: &mut _| {
        let e = gaussian(n, 2, &[0.0, 0.0], rng);
        let v: Vec<f64> = e
            .chunks_exact(2)
            .flat_map(|r| [r[0], rho * r[0] + (1.0 - rho * rho).sqrt() * r[1]])
            .collect();
        v
    };
    let train = Matrix::new("x", 3000, 2, make(3000, &mut rng));
    let test = Matrix::new("test", 3000, 2, make(3000, &mut rng));
    let mut prng = chain_rng(11, 6, 0, 0);
    let r = kl_reference(&train, &test, 1, KlDirection::TestModel, 20, &mut prng).unwrap();
    let exact = -0.5 * (1.0 - rho * rho).ln();
    println!(
        "kl_train_test = {:.4}, kl_independent = {:.4} (exact {exact:.4}), ties = {}",
        r.kl_train_test, r.kl_independent, r.zero_distance_ties
    );
    assert!(r.kl_train_test.abs() < 0.06, "{}", r.kl_train_test);
    assert!(
        (r.kl_independent - exact).abs() < 0.08,
        "{}",
        r.kl_independent
    );
    assert_eq!(r.permutations, 20);
    // Deterministic given the stream.
    let again = kl_reference(
        &train,
        &test,
        1,
        KlDirection::TestModel,
        20,
        &mut chain_rng(11, 6, 0, 0),
    )
    .unwrap();
    assert_eq!(r, again);
    assert!(kl_reference(&train, &test, 1, KlDirection::TestModel, 0, &mut prng).is_err());
}

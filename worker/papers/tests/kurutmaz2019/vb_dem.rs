//! VB-CN: the ELBO never decreases across iterations and never exceeds the exact ln p(x).
//! DEM-CN: the collapsed log joint ln p(r*, x) never decreases and the assignment reaches a fixed
//! point. Also an informative comparison with the author's stored VB ELBOs.

use super::common::*;
use causeway_papers::Sampler;
use causeway_papers::kurutmaz2019::{
    DemInit, DemSampler, SmcConfig, VbConfig, datasets, samplers::Defect, samplers::exact,
    samplers::vb,
};

/// What [`vb_battery`] measured over its runs.
struct VbBattery {
    runs: usize,
    /// Largest relative ELBO decrease between consecutive iterations (≤ 1e-9 for a correct VB).
    worst_drop: f64,
    /// Runs with a relative decrease above 1e-9 somewhere.
    decreasing: usize,
    /// Smallest and largest ln p(x) − ELBO (≥ 0 for a correct VB: the ELBO is a lower bound).
    min_gap: f64,
    max_gap: f64,
    /// Runs whose ELBO exceeded ln p(x) by more than 1e-9 relative.
    above_evidence: usize,
    /// Runs that did not converge.
    not_converged: usize,
}

/// VB on four T = 8 data sets (R = 3 truth, standardised) under every network with R = 2 and 3,
/// five random initialisations each, against the exact ln p(x) by enumeration.
fn vb_battery(defect: Option<Defect>) -> VbBattery {
    let mut b = VbBattery {
        runs: 0,
        worst_drop: 0.0,
        decreasing: 0,
        min_gap: f64::INFINITY,
        max_gap: 0.0,
        above_evidence: 0,
        not_converged: 0,
    };
    let cfg = VbConfig::default().with_defect(defect);
    for (seed, set) in [(300u64, 1usize), (301, 20), (302, 36), (303, 9)] {
        let truth = HYPS[(seed % 3) as usize];
        let (mut a, mut bb) = synthetic(seed, truth, 3, 8, set);
        datasets::standardize(&mut a).unwrap();
        datasets::standardize(&mut bb).unwrap();
        for hyp in HYPS {
            for r in [2usize, 3] {
                let p = problem(&a, &bb, hyp, r, set);
                let z = exact::enumerate(&p, 10_000_000, None).unwrap();
                for rs in 0..5u64 {
                    let res = vb::run_vb(&p, &cfg, &mut rng(seed * 100 + rs)).unwrap();
                    b.runs += 1;
                    let drop = res
                        .history
                        .windows(2)
                        .map(|w| (w[0] - w[1]) / w[0].abs())
                        .fold(0.0, f64::max);
                    b.worst_drop = b.worst_drop.max(drop);
                    if drop > 1e-9 {
                        b.decreasing += 1;
                    }
                    let gap = z - res.elbo;
                    if gap < -1e-9 * z.abs() {
                        b.above_evidence += 1;
                    }
                    b.min_gap = b.min_gap.min(gap);
                    b.max_gap = b.max_gap.max(gap);
                    if !res.converged {
                        b.not_converged += 1;
                    }
                }
            }
        }
    }
    b
}

#[test]
fn vb_elbo_is_monotone_and_below_the_exact_evidence() {
    let b = vb_battery(None);
    println!(
        "VB, T = 8: {} runs; largest relative ELBO decrease {:e}; ln p(x) − ELBO in [{:.4}, {:.4}]",
        b.runs, b.worst_drop, b.min_gap, b.max_gap
    );
    assert!(
        b.worst_drop <= 1e-9 && b.decreasing == 0,
        "ELBO decreased in {} runs (largest relative {})",
        b.decreasing,
        b.worst_drop
    );
    assert_eq!(
        b.above_evidence, 0,
        "ELBO above ln p(x): min gap {}",
        b.min_gap
    );
    assert_eq!(b.not_converged, 0, "VB did not converge");
}

/// Negative control on the same battery (R = 2 and 3): the ELBO without the Dirichlet term of
/// eq. 4.35 (−KL(q(θ) ‖ p(θ)), zero only for R = 1). The coordinate updates still maximise the
/// true ELBO, so the reported value, the true one plus a KL that moves with q(θ), is no longer
/// monotone. (It stays below ln p(x) here: with γ = 10 and T = 8 the KL, a few tenths of a nat,
/// is smaller than the label-switching gap of about ln R! that every run keeps.) The correct
/// kernel's largest relative decrease was 1.6e-14 when this was written; the broken one must
/// exceed the test's 1e-9 tolerance a hundredfold.
#[test]
fn vb_without_the_dirichlet_term_fails_the_monotonicity_test() {
    let b = vb_battery(Some(Defect::DropDirichletElbo));
    println!(
        "VB without eq. 4.35, T = 8: {} runs; {} with a relative ELBO decrease > 1e-9, largest {:e}; ln p(x) − ELBO in [{:.4}, {:.4}]",
        b.runs, b.decreasing, b.worst_drop, b.min_gap, b.max_gap
    );
    assert!(
        b.worst_drop > 1e-7,
        "the broken ELBO's largest relative decrease is only {:e}",
        b.worst_drop
    );
}

#[test]
fn vb_elbo_is_monotone_on_larger_data() {
    let mut worst_drop: f64 = f64::NEG_INFINITY;
    let mut iters = Vec::new();
    let (a1, b1) = cep_pair("pair93");
    let (a2, b2) = synthetic(310, HYPS[0], 4, 300, 20);
    for (a, b) in [(a1, b1), (a2, b2)] {
        for hyp in HYPS {
            for r in [2usize, 3, 5] {
                for set in [1usize, 20, 36] {
                    let p = problem(&a, &b, hyp, r, set);
                    let res = vb::run_vb(
                        &p,
                        &VbConfig {
                            max_iterations: 2000,
                            ..Default::default()
                        },
                        &mut rng(r as u64 + 10 * set as u64),
                    )
                    .unwrap();
                    iters.push(res.iterations);
                    for w in res.history.windows(2) {
                        let drop = (w[0] - w[1]) / w[0].abs();
                        worst_drop = worst_drop.max(drop);
                        assert!(
                            drop <= 1e-9,
                            "ELBO decreased: {} → {} ({hyp:?}, R={r}, setting {set})",
                            w[0],
                            w[1]
                        );
                    }
                }
            }
        }
    }
    iters.sort();
    println!(
        "VB, T = 94 (CEP pair93) and 300 (synthetic): {} runs, largest relative change against the ascent {worst_drop:e}, iterations median {} max {}",
        iters.len(),
        iters[iters.len() / 2],
        iters[iters.len() - 1]
    );
}

#[test]
fn dem_log_joint_is_monotone_and_reaches_a_fixed_point() {
    let mut n_runs = 0;
    let mut iters = Vec::new();
    for (a, b, label) in [
        {
            let (a, b) = synthetic(320, HYPS[2], 3, 200, 20);
            (a, b, "synthetic T=200")
        },
        {
            let (a, b) = cep_pair("pair93");
            (a, b, "pair93")
        },
    ] {
        for hyp in HYPS {
            for r in [2usize, 3, 5] {
                for init in [DemInit::Random, DemInit::Smc] {
                    let p = problem(&a, &b, hyp, r, 20);
                    let mut s = DemSampler::new(
                        p,
                        init,
                        SmcConfig {
                            n_particles: 100,
                            ..Default::default()
                        },
                    );
                    let mut g = rng(r as u64);
                    let mut prev = f64::NEG_INFINITY;
                    let mut fixed_at = None;
                    for it in 1..=500 {
                        s.step(&mut g).unwrap();
                        let lj = s.log_joint();
                        assert!(
                            lj >= prev - 1e-9 * lj.abs(),
                            "{label} {hyp:?} R={r} {init:?}: ln p(r*, x) fell {prev} → {lj}"
                        );
                        prev = lj;
                        // n_changed is a sampler statistic (sample_stats), not a draw.
                        let mut stats = Vec::new();
                        s.record_stats(&mut stats);
                        if stats[0] == 0.0 {
                            fixed_at = Some(it);
                            break;
                        }
                    }
                    let it = fixed_at.unwrap_or_else(|| {
                        panic!("{label} {hyp:?} R={r}: no fixed point in 500 iterations")
                    });
                    iters.push(it);
                    n_runs += 1;
                }
            }
        }
    }
    iters.sort();
    println!(
        "DEM: {n_runs} runs all monotone; iterations to the fixed point: median {}, max {}",
        iters[iters.len() / 2],
        iters[iters.len() - 1]
    );
}

#[test]
fn dem_finds_high_posterior_assignments_on_small_data() {
    // On T = 8 we can rank DEM's fixed point among all 2^8 assignments by ln p(r, x). DEM is a
    // local optimiser of a lower bound, so we ask for good, not necessarily best, assignments.
    let mut tops = Vec::new();
    let mut hits = 0;
    for seed in 330..336u64 {
        let (mut a, mut b) = synthetic(seed, HYPS[(seed % 3) as usize], 3, 8, 36);
        datasets::standardize(&mut a).unwrap();
        datasets::standardize(&mut b).unwrap();
        for hyp in HYPS {
            let p = problem(&a, &b, hyp, 2, 36);
            let mut all = Vec::new();
            let mut visit = |_: &[usize], lp: f64| all.push(lp);
            exact::enumerate(&p, 1000, Some(&mut visit)).unwrap();
            let mut s = DemSampler::new(
                p,
                DemInit::Smc,
                SmcConfig {
                    n_particles: 50,
                    ..Default::default()
                },
            );
            let mut g = rng(seed);
            for _ in 0..50 {
                s.step(&mut g).unwrap();
            }
            let lj = s.log_joint();
            let best = all.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
            assert!(lj <= best + 1e-9);
            if lj > best - 1e-9 {
                hits += 1;
            }
            // Fraction of assignments strictly better than DEM's.
            tops.push(all.iter().filter(|x| **x > lj + 1e-9).count() as f64 / all.len() as f64);
        }
    }
    tops.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let n = tops.len();
    println!(
        "DEM (init smc) on {n} T = 8 problems: exact MAP reached in {hits}; fraction of assignments better than DEM's: median {:.3}, max {:.3}",
        tops[n / 2],
        tops[n - 1]
    );
    // Measured when this was written: median 0.008 (2 of 256 assignments better), max 0.133,
    // exact MAP in 7 of 18. The bounds leave about a factor of 2-4 of margin.
    assert!(
        tops[n / 2] <= 0.03,
        "DEM's fixed points are not among the best assignments: median fraction better {}",
        tops[n / 2]
    );
    assert!(
        tops[n - 1] <= 0.25,
        "DEM's worst fixed point has {} of the assignments above it",
        tops[n - 1]
    );
    assert!(hits >= 4, "DEM reached the exact MAP in only {hits} of {n}");
}

/// Informative: our VB (best of 5 restarts) against the author's stored ELBOs on a short pair.
/// Different initialisations reach different local optima, so this is reported, with only a loose
/// check that ours is not systematically worse.
#[test]
fn vb_compared_with_the_authors_elbos() {
    let text = std::fs::read_to_string(fixture_dir().join("thesis_vb_elbo.csv")).unwrap();
    let meta = meta();
    let m = meta.iter().find(|m| m.cdt_id == "pair93").unwrap();
    let (a, b) = cep_pair("pair93");
    let mut diffs = Vec::new();
    for line in text
        .lines()
        .skip(1)
        .filter(|l| l.starts_with(&format!("{},", m.original_id)))
    {
        let c: Vec<&str> = line.split(',').collect();
        let set: usize = c[1].parse().unwrap();
        if ![1usize, 20, 36].contains(&set) {
            continue;
        }
        let (a1, b1, a2, b2): (f64, f64, f64, f64) = (
            c[2].parse().unwrap(),
            c[3].parse().unwrap(),
            c[4].parse().unwrap(),
            c[5].parse().unwrap(),
        );
        assert_eq!(
            causeway_papers::kurutmaz2019::setting(set),
            Some((a1, b1, a2, b2))
        );
        let r: usize = c[6].parse().unwrap();
        let hyp = if (c[7] == "x_to_y") == m.forward {
            HYPS[0]
        } else {
            HYPS[1]
        };
        let theirs: f64 = c[8].parse().unwrap();
        let p = problem(&a, &b, hyp, r, set);
        let mut s = causeway_papers::kurutmaz2019::VbSampler::new(
            p,
            VbConfig {
                n_restarts: 5,
                ..Default::default()
            },
        );
        s.step(&mut rng(set as u64 * 10 + r as u64)).unwrap();
        let ours = s.last().unwrap().elbo;
        if r == 1 {
            assert!(rel(ours, theirs) < 1e-8, "R = 1: {ours} vs {theirs}");
        }
        diffs.push(ours - theirs);
    }
    diffs.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let n = diffs.len();
    let same = diffs.iter().filter(|d| d.abs() < 1e-6).count();
    println!(
        "VB ours (best of 5) − author's, pair93, settings 1/20/36, R 1..5, 2 hypotheses: {n} cells, {same} equal to 1e-6, min {:+.3e}, median {:+.3e}, max {:+.3}",
        diffs[0],
        diffs[n / 2],
        diffs[n - 1]
    );
    assert!(
        diffs[n / 2] > -1.0,
        "our VB is systematically worse than the author's"
    );
}

/// §5.5: the spurious model on Abalone whole weight and height, R = 4, setting 20. The thesis
/// (Fig. 5.4) finds latent classes whose age (rings) distributions differ; DEM should too.
#[test]
fn dem_on_abalone_separates_age() {
    let m = causeway_papers::model("kurutmaz2019").unwrap();
    let d = m
        .dataset(
            &serde_json::json!({"kind": "abalone", "variables": ["whole", "height"]}),
            &ctx(),
            &mut rng(0),
        )
        .unwrap();
    let x = d.observed("x").unwrap();
    let rings = &d.truth("rings").unwrap().values;
    let (a, b) = x.values.split_at(x.cols);
    let p = problem(a, b, HYPS[2], 4, 20);
    let mut s = DemSampler::new(
        p,
        DemInit::Smc,
        SmcConfig {
            n_particles: 100,
            ..Default::default()
        },
    );
    let mut g = rng(55);
    for _ in 0..200 {
        s.step(&mut g).unwrap();
        let mut stats = Vec::new();
        s.record_stats(&mut stats);
        if stats[0] == 0.0 {
            break;
        }
    }
    let r = s.assignment();
    let mut n = [0usize; 4];
    let mut sum = [0.0; 4];
    for (l, ring) in r.iter().zip(rings) {
        n[*l] += 1;
        sum[*l] += ring;
    }
    let means: Vec<f64> = (0..4)
        .filter(|c| n[*c] > 0)
        .map(|c| sum[c] / n[c] as f64)
        .collect();
    let spread = means.iter().cloned().fold(f64::NEG_INFINITY, f64::max)
        - means.iter().cloned().fold(f64::INFINITY, f64::min);
    println!(
        "DEM on Abalone (whole, height; spurious, R = 4, setting 20): class sizes {n:?}, mean rings per class {means:.2?}"
    );
    assert!(
        spread > 2.0,
        "latent classes do not separate age: mean rings {means:?}"
    );
}

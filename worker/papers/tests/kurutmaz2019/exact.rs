//! R = 1 is exact: SIS-CN and VB-CN reproduce the exact marginal likelihood (no latent variable),
//! and our exact values reproduce the thesis author's stored R = 1 values on CEP pairs.
//! Also: the incremental enumeration equals the closed form of App. B.3 summed by brute force.

use super::common::*;
use causeway_papers::Sampler;
use causeway_papers::kurutmaz2019::{
    SmcConfig, SmcSampler, VbConfig, samplers::exact, samplers::vb,
};

#[test]
fn r1_smc_and_vb_equal_exact_on_synthetic_data() {
    let mut worst: f64 = 0.0;
    for (seed, set) in [(1u64, 1usize), (2, 20), (3, 36), (4, 9), (5, 28)] {
        for truth in HYPS {
            for t in [1usize, 7, 60] {
                let (a, b) = synthetic(seed, truth, 2, t, set);
                for hyp in HYPS {
                    let p = problem(&a, &b, hyp, 1, set);
                    let ex = exact::enumerate(&p, 10, None).unwrap();
                    let closed = p.log_joint(&vec![0; t]).unwrap();
                    let mut smc = SmcSampler::new(
                        &p,
                        SmcConfig {
                            n_particles: 7,
                            ..Default::default()
                        },
                        true,
                    )
                    .unwrap();
                    smc.step(&mut rng(seed)).unwrap();
                    let s = smc.last().unwrap().log_z;
                    let v = vb::run_vb(&p, &VbConfig::default(), &mut rng(seed)).unwrap();
                    for (name, val) in [("closed form", closed), ("smc", s), ("vb", v.elbo)] {
                        let e = rel(val, ex);
                        assert!(
                            e < 1e-9,
                            "{name}: {val} vs exact {ex} (rel {e:e}), seed {seed} set {set} {hyp:?} T={t}"
                        );
                        worst = worst.max(e);
                    }
                    assert!(
                        v.converged && v.iterations <= 2,
                        "R = 1 VB converges at once"
                    );
                }
            }
        }
    }
    println!(
        "R = 1, synthetic: worst relative error of closed form / SMC / VB vs exact = {worst:e}"
    );
}

#[test]
fn enumeration_equals_brute_force_closed_form() {
    for (r, t) in [(2usize, 6usize), (3, 5), (4, 4), (5, 3)] {
        for hyp in HYPS {
            let (a, b) = synthetic(40 + r as u64, hyp, r, t, 20);
            let p = problem(&a, &b, hyp, r, 20);
            let mut terms = Vec::new();
            let mut visit = |rr: &[usize], lp: f64| {
                let closed = p.log_joint(rr).unwrap();
                assert!(
                    (closed - lp).abs() < 1e-9 * closed.abs().max(1.0),
                    "{rr:?}: {lp} vs {closed}"
                );
                terms.push(closed);
            };
            let z = exact::enumerate(&p, 1_000_000, Some(&mut visit)).unwrap();
            assert_eq!(terms.len(), r.pow(t as u32));
            let brute = causeway_papers::math::log_sum_exp(&terms);
            assert!((z - brute).abs() < 1e-10 * brute.abs(), "{z} vs {brute}");
        }
    }
}

#[test]
fn enumeration_refuses_too_many_assignments() {
    let (a, b) = synthetic(1, HYPS[0], 2, 30, 1);
    let p = problem(&a, &b, HYPS[0], 2, 1);
    assert!(exact::enumerate(&p, 10_000_000, None).is_err());
    assert!(exact::ExactSampler::new(p, 10_000_000).is_err());
}

/// All 36 settings × 3 hypotheses × 12 pairs (94 to 16 382 observations, both orientations):
/// our R = 1 values against the author's.
#[test]
fn r1_matches_thesis_fixture_on_cep() {
    let fx = smc_fixture();
    let meta = meta();
    // cdt ids: shortest (93: 94 obs), short '<-' pairs, typical, long, the longest (65: 16 382).
    let pairs = [
        "pair93", "pair85", "pair48", "pair52", "pair47", "pair1", "pair64", "pair25", "pair5",
        "pair72", "pair43", "pair65",
    ];
    let mut worst: f64 = 0.0;
    let mut n = 0;
    for pair in pairs {
        let m = meta.iter().find(|m| m.cdt_id == pair).unwrap();
        let (a, b) = cep_pair(pair);
        for set in 1..=36 {
            for hyp in HYPS {
                let want = fx[&(
                    m.original_id.clone(),
                    set,
                    1,
                    fixture_hypothesis(hyp, m.forward).to_string(),
                )];
                let p = problem(&a, &b, hyp, 1, set);
                let got = exact::enumerate(&p, 10, None).unwrap();
                let e = rel(got, want);
                assert!(
                    e < 1e-8,
                    "{pair} ({}) setting {set} {hyp:?}: {got} vs {want} (rel {e:e})",
                    m.original_id
                );
                worst = worst.max(e);
                n += 1;
            }
        }
    }
    println!("R = 1 vs thesis fixture: {n} values, worst relative error {worst:e}");
}

/// The same through SIS-CN and VB-CN (fewer cells: both are exact at R = 1 anyway).
#[test]
fn r1_smc_and_vb_match_thesis_fixture_on_cep() {
    let fx = smc_fixture();
    let meta = meta();
    let mut worst: f64 = 0.0;
    for (pair, sets) in [
        ("pair93", vec![1usize, 20, 36]),
        ("pair47", vec![7, 20]),
        ("pair5", vec![20, 33]),
    ] {
        let m = meta.iter().find(|m| m.cdt_id == pair).unwrap();
        let (a, b) = cep_pair(pair);
        for set in sets {
            for hyp in HYPS {
                let want = fx[&(
                    m.original_id.clone(),
                    set,
                    1,
                    fixture_hypothesis(hyp, m.forward).to_string(),
                )];
                let p = problem(&a, &b, hyp, 1, set);
                let mut smc = SmcSampler::new(
                    &p,
                    SmcConfig {
                        n_particles: 2,
                        ..Default::default()
                    },
                    true,
                )
                .unwrap();
                smc.step(&mut rng(set as u64)).unwrap();
                let v = vb::run_vb(&p, &VbConfig::default(), &mut rng(1)).unwrap();
                for (name, got) in [("smc", smc.last().unwrap().log_z), ("vb", v.elbo)] {
                    let e = rel(got, want);
                    assert!(
                        e < 1e-8,
                        "{name} {pair} setting {set} {hyp:?}: {got} vs {want}"
                    );
                    worst = worst.max(e);
                }
            }
        }
    }
    println!("R = 1 SMC/VB vs thesis fixture: worst relative error {worst:e}");
}

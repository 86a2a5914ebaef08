//! Proves the CEP selection and cross-validation code of `report::kurutmaz2019` on the thesis
//! author's stored values (`tests/fixtures/cep/thesis_smc_log_ml.csv`, `thesis_vb_elbo.csv`,
//! mapped onto the cdt pairs through `data/cep/pairs_meta.csv`):
//!
//! - Table 5.2 (a) of thesis 003 (§5.4): the counts of →, ←, ∧ and the weighted accuracy per
//!   setting from the R = 1..5 SMC values match the thesis exactly (all 36 settings, accuracies to
//!   the thesis's 2 decimals), given the thesis's tie rule (an exact tie between the directions
//!   goes to x → y; see `Scores::correct`); the best setting is 20 with 0.77;
//! - the best setting calls the thesis's pairs 19, 91, 92 and 98 spurious;
//! - the 10 × 3 cross-validation gives the README's figures: SMC accuracy ≈ 0.69 ± 0.08, AUC
//!   ≈ 0.74 ± 0.12; VB accuracy ≈ 0.68 ± 0.05.
//!
//! Tolerance of the CV figures. The README's numbers come from one random fold split of the
//! author's; ours from another. What the protocol fixes is the *distribution* of the figures over
//! split seeds, so the test runs `SEEDS` seeds and requires each README figure to lie within
//! 3 sd (over seeds) of our seed-mean, plus 0.005 for the README's 2-decimal rounding. Measured
//! over seeds (this code, 50 seeds; printed by the test): SMC accuracy 0.681 (sd over seeds
//! 0.014), its fold-sd 0.098 (0.013), AUC 0.734 (0.020), AUC fold-sd 0.154 (0.018); VB accuracy
//! 0.679 (0.009), fold-sd 0.075 (0.012). The seed-mean itself has a standard error of sd/√50
//! ≈ 0.002, so the mean accuracies are also checked tightly (±0.015), which a wrong weight or
//! selection rule breaks (measured: unweighted SMC accuracy 0.72; choosing the setting on the test
//! fold 0.82).
//!
//! Not reproduced: the README's fold-sd of the VB accuracy (0.05; ours 0.075, 2 sd over seeds
//! away, inside the tolerance) and the AUC fold-sd (0.12; ours 0.15).

use std::path::PathBuf;

use causeway_results::report::kurutmaz2019::{
    AUTHOR_SMC_CSV, CvSummary, LogMlRow, Scores, author_smc_comparison, cross_validate, pairs_meta,
    scores, summarize_cv, thesis_fixture_rows,
};

/// Split seeds over which the CV figures' distribution is measured.
const SEEDS: u64 = 50;

/// Table 5.2 (a), SMC: (setting, [→, ←, ∧], weighted accuracy), transcribed from the thesis.
const TABLE_5_2_SMC: [(usize, [u64; 3], f64); 36] = [
    (1, [37, 36, 22], 0.63),
    (2, [31, 49, 15], 0.24),
    (3, [29, 20, 46], 0.61),
    (4, [7, 8, 80], 0.38),
    (5, [23, 34, 38], 0.24),
    (6, [16, 4, 75], 0.66),
    (7, [55, 25, 15], 0.67),
    (8, [37, 58, 0], 0.32),
    (9, [51, 21, 23], 0.69),
    (10, [41, 16, 38], 0.70),
    (11, [32, 62, 1], 0.26),
    (12, [38, 38, 19], 0.55),
    (13, [5, 5, 85], 0.30),
    (14, [11, 26, 58], 0.28),
    (15, [27, 6, 62], 0.71),
    (16, [12, 13, 70], 0.32),
    (17, [31, 58, 6], 0.23),
    (18, [27, 20, 48], 0.56),
    (19, [67, 28, 0], 0.71),
    (20, [62, 29, 4], 0.77),
    (21, [36, 59, 0], 0.39),
    (22, [71, 24, 0], 0.71),
    (23, [67, 27, 1], 0.74),
    (24, [56, 38, 1], 0.72),
    (25, [53, 29, 13], 0.68),
    (26, [33, 61, 1], 0.31),
    (27, [41, 54, 0], 0.43),
    (28, [55, 32, 8], 0.61),
    (29, [68, 27, 0], 0.71),
    (30, [65, 25, 5], 0.72),
    (31, [8, 6, 81], 0.44),
    (32, [48, 40, 7], 0.63),
    (33, [49, 21, 25], 0.71),
    (34, [15, 24, 56], 0.32),
    (35, [32, 60, 3], 0.29),
    (36, [57, 32, 6], 0.51),
];

fn fixture(name: &str) -> String {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures/cep")
        .join(name);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

fn load(method: &str) -> (Vec<LogMlRow>, Scores) {
    let meta = pairs_meta().unwrap();
    let (file, col) = if method == "smc" {
        ("thesis_smc_log_ml.csv", "log_marginal_likelihood")
    } else {
        ("thesis_vb_elbo.csv", "elbo")
    };
    let rows = thesis_fixture_rows(&fixture(file), col, method, &meta).unwrap();
    let sc = scores(&rows, method, &meta).unwrap();
    (rows, sc)
}

fn mean_sd(xs: &[f64]) -> (f64, f64) {
    let n = xs.len() as f64;
    let m = xs.iter().sum::<f64>() / n;
    (
        m,
        (xs.iter().map(|x| (x - m).powi(2)).sum::<f64>() / (n - 1.0)).sqrt(),
    )
}

/// Per seed 0..SEEDS, the CV summary.
fn cv_over_seeds(sc: &Scores) -> Vec<CvSummary> {
    (0..SEEDS)
        .map(|s| summarize_cv(&cross_validate(sc, 10, 3, s).unwrap()))
        .collect()
}

/// `target` within 3 sd (over seeds) of the seed-mean of `xs`, + 0.005 rounding.
fn check(label: &str, xs: &[f64], target: f64) {
    let (m, sd) = mean_sd(xs);
    let tol = 3.0 * sd + 0.005;
    println!(
        "{label}: seed-mean {m:.3}, sd over seeds {sd:.3}; README {target:.2}; |diff| {:.3} ≤ {tol:.3}",
        (m - target).abs()
    );
    assert!(
        (m - target).abs() <= tol,
        "{label}: seed-mean {m:.3} (sd over seeds {sd:.3}) vs README {target}"
    );
}

#[test]
fn fixture_maps_onto_95_pairs_36_settings() {
    let (rows, sc) = load("smc");
    assert_eq!(rows.len(), 95 * 36 * 5 * 3);
    assert_eq!(sc.pairs.len(), 95);
    assert_eq!(sc.settings, (1..=36).collect::<Vec<_>>());
    assert!(
        sc.pairs
            .iter()
            .all(|p| p.in_thesis_set && p.weight.is_finite())
    );
    // Mixed labels in the original orientation (in the cdt orientation all would be A → B).
    let fwd = sc.pairs.iter().filter(|p| p.forward).count();
    assert!(fwd > 20 && fwd < 80, "{fwd} forward pairs");
    let (vrows, vsc) = load("vb");
    assert_eq!(vrows.len(), 95 * 36 * 5 * 2);
    assert_eq!(vsc.pairs.len(), 95);
    // R = 1 is exact in both files: equal up to rounding for the causal hypotheses.
    let get = |rs: &[LogMlRow], p: &str, h| {
        rs.iter()
            .find(|r| r.pair == p && r.setting == 20 && r.n_latent == 1 && r.hypothesis == h)
            .unwrap()
            .value
    };
    use causeway_papers::kurutmaz2019::Hypothesis::{AToB, BToA};
    for p in ["pair1", "pair48", "pair86"] {
        for h in [AToB, BToA] {
            let (a, b) = (get(&rows, p, h), get(&vrows, p, h));
            assert!((a - b).abs() < 1e-6 * a.abs(), "{p} {h:?}: smc {a} vb {b}");
        }
    }
}

#[test]
fn table_5_2_counts_match_the_thesis() {
    let (_, sc) = load("smc");
    let all = sc.all();
    let mut diffs = Vec::new();
    for (si, (s, counts, acc)) in TABLE_5_2_SMC.iter().enumerate() {
        assert_eq!(sc.settings[si], *s);
        assert_eq!(sc.counts(si), Some(*counts), "setting {s}");
        let ours = sc.accuracy(si, &all);
        diffs.push((ours - acc).abs());
        println!("setting {s:2}: counts {counts:?}, accuracy ours {ours:.3} thesis {acc:.2}");
    }
    let mad = diffs.iter().sum::<f64>() / diffs.len() as f64;
    let exact = diffs.iter().filter(|d| **d < 0.0051).count();
    println!(
        "accuracy column: {exact} of 36 equal to the thesis's 2 decimals, mean |diff| {mad:.3}"
    );
    // With exact ties decided x → y (Scores::correct) every accuracy rounds to the thesis's
    // value; ties counted ½ give 15 of 36, ties to y → x 13 of 36.
    assert_eq!(exact, 36, "accuracies equal to the thesis's 2 decimals");
    let best = sc.best_setting().unwrap();
    assert_eq!(sc.settings[best], 20);
    assert!((sc.accuracy(best, &all) - 0.77).abs() < 0.005);
}

#[test]
fn best_setting_calls_the_thesis_pairs_spurious() {
    let (_, sc) = load("smc");
    let best = sc.best_setting().unwrap();
    let sp = sc.spurious(best);
    let mut ids: Vec<u32> = sp.iter().map(|&pi| sc.pairs[pi].original_id).collect();
    ids.sort_unstable();
    assert_eq!(ids, vec![19, 91, 92, 98]);
    // The thesis says pair 98 was called spurious "with R = 1"; in the author's stored values its
    // best spurious model at setting 20 has R = 5 (ln p −171.05 against −249.50 at R = 1 for
    // both causal hypotheses). Recorded, not asserted.
    for &pi in &sp {
        println!(
            "spurious at setting 20: original pair {} (R = {})",
            sc.pairs[pi].original_id, sc.best_r[best][pi][2]
        );
    }
}

#[test]
fn cross_validation_reproduces_the_readme_figures() {
    let (_, smc) = load("smc");
    let (_, vb) = load("vb");
    // Determinism and fold sizes.
    let a = cross_validate(&smc, 10, 3, 7).unwrap();
    assert_eq!(a, cross_validate(&smc, 10, 3, 7).unwrap());
    assert_eq!(a.len(), 30);
    let mut sizes: Vec<usize> = a.iter().take(3).map(|f| f.n_test).collect();
    sizes.sort_unstable();
    assert_eq!(sizes, vec![31, 32, 32]);

    let s = cv_over_seeds(&smc);
    let v = cv_over_seeds(&vb);
    let col = |xs: &[CvSummary], f: fn(&CvSummary) -> f64| xs.iter().map(f).collect::<Vec<f64>>();
    assert!(s.iter().chain(&v).all(|x| x.n_folds == 30 && x.n_auc == 30));
    let first = &s[0];
    println!(
        "seed 0: SMC accuracy {:.3} ± {:.3}, AUC {:.3} ± {:.3}; VB accuracy {:.3} ± {:.3}, AUC {:.3} ± {:.3}",
        first.accuracy_mean,
        first.accuracy_sd,
        first.auc_mean,
        first.auc_sd,
        v[0].accuracy_mean,
        v[0].accuracy_sd,
        v[0].auc_mean,
        v[0].auc_sd
    );
    check("SMC accuracy mean", &col(&s, |x| x.accuracy_mean), 0.69);
    check("SMC accuracy sd", &col(&s, |x| x.accuracy_sd), 0.08);
    check("SMC AUC mean", &col(&s, |x| x.auc_mean), 0.74);
    check("SMC AUC sd", &col(&s, |x| x.auc_sd), 0.12);
    check("VB accuracy mean", &col(&v, |x| x.accuracy_mean), 0.68);
    check("VB accuracy sd", &col(&v, |x| x.accuracy_sd), 0.05);
    let (vm, _) = mean_sd(&col(&v, |x| x.auc_mean));
    println!("VB AUC seed-mean {vm:.3} (README gives none; thesis 0.78 ± 0.12)");
    // Tight checks on the seed-means (standard error ≈ 0.002).
    let (sm, _) = mean_sd(&col(&s, |x| x.accuracy_mean));
    let (vam, _) = mean_sd(&col(&v, |x| x.accuracy_mean));
    assert!((sm - 0.69).abs() <= 0.015, "SMC accuracy seed-mean {sm}");
    assert!((vam - 0.68).abs() <= 0.015, "VB accuracy seed-mean {vam}");
}

/// The CEP report's comparison with the author's SMC values pairs cells correctly: with "our"
/// rows equal to the author's at R = 1 and 0.5 nats below them at R > 1 (one setting left
/// out), every per-R row shows exactly that difference over the 95 × 35 × 3 cells.
#[test]
fn author_comparison_pairs_the_same_cells() {
    let meta = pairs_meta().expect("pairs_meta");
    let ours: Vec<LogMlRow> =
        thesis_fixture_rows(AUTHOR_SMC_CSV, "log_marginal_likelihood", "smc", &meta)
            .expect("fixture")
            .into_iter()
            .filter(|r| r.setting != 7)
            .map(|mut r| {
                if r.n_latent > 1 {
                    r.value -= 0.5;
                }
                r
            })
            .collect();
    let t = author_smc_comparison(&ours, &meta).expect("table");
    let col = |name: &str| -> Vec<f64> {
        t.df.column(name)
            .expect(name)
            .f64()
            .expect("f64")
            .into_no_null_iter()
            .collect()
    };
    let cells: Vec<u64> =
        t.df.column("cells")
            .expect("cells")
            .u64()
            .expect("u64")
            .into_no_null_iter()
            .collect();
    assert_eq!(
        cells,
        vec![
            95 * 35 * 3,
            95 * 35 * 3,
            95 * 35 * 3,
            95 * 35 * 3,
            95 * 35 * 3,
            4 * 95 * 35 * 3
        ]
    );
    let (median, q05, q95) = (col("median"), col("q05"), col("q95"));
    for i in 0..6 {
        let want = if i == 0 { 0.0 } else { 0.5 };
        for (name, v) in [("median", median[i]), ("q05", q05[i]), ("q95", q95[i])] {
            assert!((v - want).abs() < 1e-9, "row {i} {name}: {v}");
        }
    }
    let rel = t.df.column("max |relative difference|").expect("column");
    assert_eq!(rel.str().expect("formatted").get(0), Some("0.00e0"));
}

// TEMP-BASELINE (removed before hand-off)
#[test]
#[ignore]
fn temp_build_reports() {
    let dirs = std::env::var("K19_DIRS").unwrap();
    for d in dirs.split(':') {
        let rd = causeway_results::rundir::RunDir::open(d);
        causeway_results::report::build(&rd).unwrap();
    }
}

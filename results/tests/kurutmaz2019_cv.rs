//! Proves the CEP selection and cross-validation code (`causeway_papers::kurutmaz2019::evaluation`,
//! and the comparison table of `report::kurutmaz2019`) on the thesis
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

use causeway_papers::kurutmaz2019::evaluation::{
    CvSummary, LogMlRow, Scores, cross_validate, scores, summarize_cv,
};
use causeway_papers::metrics::mean_sd;
use causeway_results::report::kurutmaz2019::{
    AUTHOR_SMC_CSV, author_smc_comparison, author_smc_rows, pairs_meta, thesis_fixture_rows,
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
    let meta = pairs_meta().expect("pairs_meta");
    let (file, col) = if method == "smc" {
        ("thesis_smc_log_ml.csv", "log_marginal_likelihood")
    } else {
        ("thesis_vb_elbo.csv", "elbo")
    };
    let rows = thesis_fixture_rows(&fixture(file), col, method, &meta).expect("fixture");
    let sc = scores(&rows, method, &meta).expect("scores");
    (rows, sc)
}

/// Per seed 0..SEEDS, the CV summary.
fn cv_over_seeds(sc: &Scores) -> Vec<CvSummary> {
    (0..SEEDS)
        .map(|s| summarize_cv(&cross_validate(sc, 10, 3, s).expect("cv")))
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
    let author = author_smc_rows(&meta).expect("fixture");
    let t = author_smc_comparison(&ours, &author).expect("table");
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
    assert_eq!(rel.f64().expect("numeric").get(0), Some(0.0));
    // A maximum is an extreme: its se column is NaN (the statistical check skips it).
    let rel_se = t.df.column("max |relative difference|_se").expect("column");
    assert!(
        rel_se
            .f64()
            .expect("numeric")
            .get(0)
            .is_some_and(f64::is_nan)
    );
}

/// Small hand-made cases of the evaluation functions (the tests above use the thesis's data).
mod unit {
    use causeway_papers::kurutmaz2019::Hypothesis;
    use causeway_papers::kurutmaz2019::datasets::PairMeta;
    use causeway_papers::kurutmaz2019::evaluation::{
        LogMlRow, author_differences, cross_validate, scores, summarize_cv,
    };
    use causeway_results::report::kurutmaz2019::thesis_fixture_rows;

    fn meta(pair: &str, original_id: u32, forward: bool, weight: f64) -> PairMeta {
        PairMeta {
            pair: pair.into(),
            original_id,
            forward,
            weight_v1: weight,
            weight,
            in_thesis_set: true,
            cause_label: String::new(),
            effect_label: String::new(),
        }
    }

    fn row(pair: &str, setting: usize, h: Hypothesis, r: usize, value: f64) -> LogMlRow {
        LogMlRow {
            pair: pair.into(),
            setting,
            hypothesis: h,
            n_latent: r,
            method: "smc".into(),
            seed: 0,
            value,
        }
    }

    #[test]
    fn scores_take_max_over_r_and_decide_in_original_orientation() {
        let m = [meta("pair2", 2, false, 1.0), meta("pair1", 1, true, 2.0)];
        let rows = vec![
            row("pair1", 1, Hypothesis::AToB, 1, -10.0),
            row("pair1", 1, Hypothesis::AToB, 2, -8.0),
            row("pair1", 1, Hypothesis::BToA, 1, -9.0),
            row("pair1", 1, Hypothesis::Spurious, 1, -20.0),
            // pair2 stored backwards (original y → x): a tie goes to x → y, i.e. b_to_a.
            row("pair2", 1, Hypothesis::AToB, 1, -5.0),
            row("pair2", 1, Hypothesis::BToA, 1, -5.0),
            row("pair2", 1, Hypothesis::Spurious, 3, -1.0),
        ];
        let sc = scores(&rows, "smc", &m).unwrap();
        assert_eq!(sc.pairs[0].pair, "pair1");
        assert_eq!(sc.best[0][0], [-8.0, -9.0, -20.0]);
        assert_eq!(sc.best_r[0][0], [2, 1, 1]);
        assert_eq!(sc.correct(0, 0), 1.0);
        assert_eq!(sc.correct(0, 1), 0.0);
        assert!((sc.accuracy(0, &sc.all()) - 2.0 / 3.0).abs() < 1e-15);
        assert_eq!(sc.argmax3(0, 1), Some(2));
        assert_eq!(sc.counts(0), Some([1, 0, 1]));
        assert_eq!(sc.spurious(0), vec![1]);
        assert_eq!(sc.best_setting(), Some(0));
        assert!(scores(&rows, "vb", &m).is_err());
        assert!(scores(&[row("pair9", 1, Hypothesis::AToB, 1, 0.0)], "smc", &m).is_err());
    }

    #[test]
    fn cross_validation_deals_every_pair_once_per_repetition() {
        let m: Vec<PairMeta> = (1..=10)
            .map(|i| meta(&format!("pair{i}"), i, i % 2 == 0, 1.0))
            .collect();
        let mut rows = Vec::new();
        for i in 1..=10 {
            for s in 1..=2 {
                rows.push(row(&format!("pair{i}"), s, Hypothesis::AToB, 1, -1.0));
                let b = if s == 1 { -2.0 } else { 0.0 };
                rows.push(row(&format!("pair{i}"), s, Hypothesis::BToA, 1, b));
            }
        }
        let sc = scores(&rows, "smc", &m).unwrap();
        let folds = cross_validate(&sc, 2, 3, 5).unwrap();
        assert_eq!(folds.len(), 6);
        for rep in 0..2 {
            let n: usize = folds
                .iter()
                .filter(|f| f.repetition == rep)
                .map(|f| f.n_test)
                .sum();
            assert_eq!(n, 10);
        }
        assert!(
            folds
                .iter()
                .all(|f| f.setting == 1 && f.test_accuracy == 1.0)
        );
        assert_eq!(folds, cross_validate(&sc, 2, 3, 5).unwrap());
        let s = summarize_cv(&folds);
        assert_eq!((s.accuracy_mean, s.accuracy_sd, s.n_folds), (1.0, 0.0, 6));
        assert!(cross_validate(&sc, 1, 1, 0).is_err());
        assert!(summarize_cv(&[]).accuracy_mean.is_nan());
    }

    #[test]
    fn fixture_rows_map_original_orientation_onto_cdt() {
        let m = [meta("pair1", 1, true, 1.0), meta("pair7", 8, false, 1.0)];
        let text = "original_id,setting,n_latent,hypothesis,v\n\
                    pair0001,3,2,x_to_y,-1.5\n\
                    pair0008,3,2,x_to_y,-2.5\n\
                    pair0008,3,1,spurious,-3\n";
        let rows = thesis_fixture_rows(text, "v", "smc", &m).unwrap();
        let got: Vec<(&str, Hypothesis, usize, f64)> = rows
            .iter()
            .map(|r| (r.pair.as_str(), r.hypothesis, r.n_latent, r.value))
            .collect();
        assert_eq!(
            got,
            [
                ("pair1", Hypothesis::AToB, 2, -1.5),
                ("pair7", Hypothesis::BToA, 2, -2.5),
                ("pair7", Hypothesis::Spurious, 1, -3.0),
            ]
        );
        assert!(thesis_fixture_rows(text, "w", "smc", &m).is_err());
        let bad = "original_id,setting,n_latent,hypothesis,v\npair0002,1,1,x_to_y,0\n";
        assert!(thesis_fixture_rows(bad, "v", "smc", &m).is_err());
    }

    #[test]
    fn author_differences_group_by_r_then_all_above_one() {
        let ours = vec![
            row("pair1", 1, Hypothesis::AToB, 1, -10.0),
            row("pair1", 1, Hypothesis::AToB, 2, -10.0),
            row("pair1", 1, Hypothesis::AToB, 3, -10.0),
        ];
        let author = vec![
            row("pair1", 1, Hypothesis::AToB, 1, -10.0),
            row("pair1", 1, Hypothesis::AToB, 2, -12.0),
            row("pair1", 1, Hypothesis::AToB, 3, -8.0),
            row("pair2", 1, Hypothesis::AToB, 3, -8.0),
        ];
        let d = author_differences(&ours, &author);
        let labels: Vec<&str> = d.iter().map(|x| x.label.as_str()).collect();
        assert_eq!(labels, ["1", "2", "3", "all R > 1"]);
        assert_eq!((d[0].cells, d[0].median, d[0].max_rel), (1, 0.0, 0.0));
        assert_eq!((d[3].cells, d[3].mean, d[3].median), (2, 0.0, 0.0));
        assert_eq!(d[3].max_rel, 0.25);
    }
}

//! Unit tests of the statistical check, against R 4 (`t.test`, `p.adjust`).
use super::*;

/// R 4: `x <- c(1.2, 2.3, 1.9, 2.8, 3.1); y <- c(0.5, 1.1, 0.9, 1.7); t.test(x, y)` gives
/// t = 2.89162717338872, df = 6.85634259935656, p = 0.0237985315652916; se(x) =
/// sd(x)/√5 = 0.33555923471125, se(y) = 0.25, means 2.26 and 1.05.
#[test]
fn welch_matches_r_t_test() {
    let (se1, se2) = (0.33555923471125, 0.25);
    let df = welch_df(se1, 5.0, se2, 4.0).unwrap();
    assert!((df - 6.85634259935656).abs() < 1e-9, "{df}");
    let t = (2.26 - 1.05) / (se1 * se1 + se2 * se2).sqrt();
    assert!((t - 2.89162717338872).abs() < 1e-9, "{t}");
    let p = two_sided_p(t, Some(df));
    assert!((p - 0.0237985315652916).abs() < 1e-9, "{p}");
    // R: 2*pnorm(-2.5) = 0.0124193306515523.
    assert!((two_sided_p(2.5, None) - 0.0124193306515523).abs() < 1e-12);
    assert_eq!(welch_df(1.0, 1.0, 1.0, 5.0), None);
}

/// R 4: `p <- c(0.01, 0.04, 0.03, 0.005, 0.2)`; `p.adjust(p, "holm")` = 0.040 0.090 0.090
/// 0.025 0.200; `p.adjust(p, "BH")` = 0.025 0.050 0.050 0.025 0.200.
#[test]
fn holm_and_bh_match_r_p_adjust() {
    let p = [0.01, 0.04, 0.03, 0.005, 0.2];
    let close = |a: &[f64], b: &[f64]| a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-12);
    let h = adjust(&p, Correction::Holm);
    assert!(close(&h, &[0.04, 0.09, 0.09, 0.025, 0.2]), "{h:?}");
    let b = adjust(&p, Correction::Bh);
    assert!(close(&b, &[0.025, 0.05, 0.05, 0.025, 0.2]), "{b:?}");
    assert!(adjust(&[], Correction::Holm).is_empty());
}

fn table(cols: &[&str], rows: &[&[&str]]) -> TextTable {
    TextTable::new(cols, rows)
}

fn opts() -> StatOptions {
    StatOptions {
        alpha: 0.01,
        correction: Correction::Holm,
        strict: false,
        rtol: check::DEFAULT_RTOL,
        atol: check::DEFAULT_ATOL,
    }
}

#[test]
fn within_the_error_passes_far_outside_regresses_and_unconverged_is_counted() {
    // `mean` has an se over 10 units (`mean_n`); `post` an MCSE over chains (no `_n`), so only
    // `post` follows the row's `converged` flag.
    let cols = [
        "k",
        "mean",
        "mean_se",
        "mean_n",
        "post",
        "post_se",
        "text",
        "rhat(k)",
        "converged",
    ];
    let old = table(
        &cols,
        &[
            &[
                "1", "2.0", "0.1", "10", "0.5", "0.01", "2 ± 0.3", "1.001", "ok",
            ],
            &[
                "2", "5.0", "0.0", "10", "0.6", "0.01", "5 ± 0", "1.001", "ok",
            ],
            &[
                "3", "7.0", "0.1", "10", "0.7", "0.01", "7 ± 0.3", "1.2", "⚠",
            ],
        ],
    );
    let mut new = old.clone();
    new.rows[0][1] = "2.05".into(); // t ≈ 0.35
    new.rows[0][6] = "2.05 ± 0.3".into();
    new.rows[0][7] = "1.003".into();
    new.rows[2][4] = "0.9".into(); // unconverged: not compared
    let m = |t: &TextTable| BTreeMap::from([("t".to_string(), t.clone())]);
    let r = compare_tables_statistical(&m(&new), &m(&old), opts());
    assert!(r.passed(), "{}", r.to_markdown());
    assert_eq!(r.unconverged(), 1);
    assert!(
        r.summary()
            .starts_with("5 cells compared statistically, 3 exactly, 1 unconverged (not compared)"),
        "{}",
        r.summary()
    );
    let strict = StatOptions {
        strict: true,
        ..opts()
    };
    assert!(!compare_tables_statistical(&m(&new), &m(&old), strict).passed());
    // Eight combined se away, and a zero-se cell that moved: two regressions.
    new.rows[0][1] = "3.2".into();
    new.rows[1][1] = "5.5".into();
    let r = compare_tables_statistical(&m(&new), &m(&old), opts());
    assert_eq!(r.regressions(), 2, "{}", r.to_markdown());
    let md = r.to_markdown();
    assert!(
        md.contains("| t | 1 | mean | 2 | 3.2 | 0.1 | 0.1 | 8.485 | 18.00 |"),
        "{md}"
    );
    assert!(
        md.contains("| t | 2 | mean | 5 | 5.5 | 0 | 0 | – | – | – (both se 0, values differ) |"),
        "{md}"
    );
    let xml = r.to_junit();
    assert!(
        xml.contains("failures=\"1\"") && xml.contains("name=\"t\""),
        "{xml}"
    );
    // Exactly, the same change regresses and the hint counts the cells with an se.
    let ex = check::compare_tables(&m(&new), &m(&old), 1e-9, 1e-12);
    let hint = se_hint(&ex, &m(&new), &m(&old));
    assert!(hint.starts_with("3 of the 5 differing cells"), "{hint}");
}

/// An se that cannot weigh a difference (NaN, missing, negative, infinite, or so large that its
/// square overflows) never hides a changed value: the cell is a regression. Unchanged values
/// still pass, whatever their se.
#[test]
fn a_changed_value_without_a_usable_se_is_a_regression() {
    let cols = ["x", "mean", "mean_se"];
    let old = table(&cols, &[&["1", "6.06", "0.1"]]);
    let m = |t: &TextTable| BTreeMap::from([("t".to_string(), t.clone())]);
    for se in ["NaN", "", "-0.1", "inf", "1e160"] {
        let mut new = old.clone();
        new.rows[0][2] = se.into();
        let r = compare_tables_statistical(&m(&new), &m(&old), opts());
        assert!(r.passed(), "se {se}, value unchanged: {}", r.to_markdown());
        new.rows[0][1] = "999".into();
        let r = compare_tables_statistical(&m(&new), &m(&old), opts());
        assert_eq!(r.regressions(), 1, "se {se}: {}", r.to_markdown());
        assert!(
            r.to_markdown().contains("no usable se"),
            "{}",
            r.to_markdown()
        );
    }
    // Every se NaN on both sides and every value changed: every cell regresses.
    let mut old2 = old.clone();
    old2.rows[0][2] = "NaN".into();
    let mut new2 = old2.clone();
    new2.rows[0][1] = "7".into();
    let r = compare_tables_statistical(&m(&new2), &m(&old2), opts());
    assert!(!r.passed(), "{}", r.to_markdown());
}

/// A deterministic estimate computed in another order (paper 003's R = 1 evidence, exact up to
/// rounding) carries an se of rounding noise, ~1e-14: values that agree within the exact check's
/// tolerance are equal, not a regression, however many of those se apart they are.
#[test]
fn values_equal_within_the_exact_tolerance_pass_whatever_their_se() {
    let cols = ["x", "mean", "mean_se"];
    let old = table(&cols, &[&["1", "-40.09890022944581", "0.0000000000000045"]]);
    let mut new = old.clone();
    new.rows[0][1] = "-40.098900229445725".into(); // 13 se away, 2e-15 relative
    new.rows[0][2] = "0.0000000000000046".into();
    let m = |t: &TextTable| BTreeMap::from([("t".to_string(), t.clone())]);
    let r = compare_tables_statistical(&m(&new), &m(&old), opts());
    assert!(r.passed(), "{}", r.to_markdown());
    // A real move still fails: 1e-6 relative is past the exact tolerance and 10⁸ se away.
    new.rows[0][1] = "-40.09894".into();
    let r = compare_tables_statistical(&m(&new), &m(&old), opts());
    assert_eq!(r.regressions(), 1, "{}", r.to_markdown());
}

#[test]
fn against_paper_lists_cells_beyond_three() {
    let t = table(
        &["x", "mean", "paper_mean", "z_paper"],
        &[&["a", "1", "1.1", "-0.5"], &["b", "3", "1", "4.2"]],
    );
    let u = table(&["x", "paper"], &[&["a", "1"]]);
    let tables = BTreeMap::from([("t".to_string(), t), ("u".to_string(), u)]);
    let r = against_paper(&tables, 3.0);
    let s = r.markdown;
    assert_eq!((r.tested, r.beyond), (2, 1), "{s}");
    assert_eq!(
        r.per_table,
        vec![(
            "t".to_string(),
            vec!["b (row 2) / z_paper: z 4.20".to_string()]
        )]
    );
    assert!(s.contains("| t | b (row 2) | z_paper | 4.20 |"), "{s}");
    assert!(s.contains("no uncertainty for the values in: u"), "{s}");
}

/// `x_mean` with `x_se` (the older tables' pairs) is tested like `x_mean` with `x_mean_se`.
#[test]
fn a_mean_column_takes_the_se_of_its_stem() {
    let t = table(&["x_mean", "x_se", "x_exact"], &[&["1.0", "0.1", "1"]]);
    assert_eq!(column_role("x_mean", &t, &t), ColumnRole::Statistical);
    assert_eq!(column_role("x_se", &t, &t), ColumnRole::Companion);
    assert_eq!(column_role("x_exact", &t, &t), ColumnRole::Exact);
}

/// SBC's table: the statistic and the verdict are diagnostics, and each `…_p` joins the
/// family as the new run's own p-value: chance differences between two runs pass, a p-value
/// that survives Holm below alpha regresses, and a p-value that became NaN regresses.
#[test]
fn sbc_p_values_are_tested_as_the_runs_own_not_against_the_baseline() {
    let cols = [
        "parameter",
        "chi_square",
        "chi_square_p",
        "ecdf_p",
        "calibrated",
    ];
    let base = table(
        &cols,
        &[
            &["k_plus", "13.2", "0.15", "0.07", "yes"],
            &["alpha", "9.4", "0.40", "0.07", "yes"],
        ],
    );
    let changed = table(
        &cols,
        &[
            &["k_plus", "4.8", "0.85", "0.76", "yes"],
            &["alpha", "20.0", "0.018", "0.0075", "no"],
        ],
    );
    let r = compare_tables_statistical(
        &BTreeMap::from([("sbc".to_string(), changed)]),
        &BTreeMap::from([("sbc".to_string(), base.clone())]),
        opts(),
    );
    assert!(r.passed(), "{}", r.to_markdown());
    assert_eq!(r.cells.len(), 4, "two p-value columns × two rows");
    let broken = table(
        &cols,
        &[
            &["k_plus", "80.0", "1e-9", "0.0005", "no"],
            &["alpha", "9.0", "NaN", "0.5", "yes"],
        ],
    );
    let r = compare_tables_statistical(
        &BTreeMap::from([("sbc".to_string(), broken)]),
        &BTreeMap::from([("sbc".to_string(), base)]),
        opts(),
    );
    let bad: Vec<_> = r
        .cells
        .iter()
        .filter(|c| c.outcome == StatOutcome::Regression)
        .map(|c| (c.row.as_str(), c.column.as_str()))
        .collect();
    // Holm over the three numbers: 1e-9 · 3 and 0.0005 · 2 fall below 0.01; NaN regresses.
    assert_eq!(
        bad,
        [
            ("k_plus", "chi_square_p"),
            ("alpha", "chi_square_p"),
            ("k_plus", "ecdf_p")
        ]
    );
}

/// Thresholds of a tested estimate (HiDDeN's `in_median`, `in_map`) are reported, not tested;
/// the truth beside them (`in_true_blanket`) is still compared exactly.
#[test]
fn thresholds_of_a_tested_estimate_are_diagnostics() {
    assert!(is_diagnostic("in_median"));
    assert!(is_diagnostic("in_map"));
    assert!(!is_diagnostic("in_true_blanket"));
    let base = table(
        &[
            "candidate",
            "posterior_probability",
            "posterior_probability_se",
            "in_median",
            "in_true_blanket",
        ],
        &[&["a", "0.49", "0.02", "false", "true"]],
    );
    let cur = table(
        &[
            "candidate",
            "posterior_probability",
            "posterior_probability_se",
            "in_median",
            "in_true_blanket",
        ],
        &[&["a", "0.51", "0.02", "true", "true"]],
    );
    let r = compare_tables_statistical(
        &BTreeMap::from([("t".to_string(), cur)]),
        &BTreeMap::from([("t".to_string(), base)]),
        opts(),
    );
    assert!(r.passed(), "{}", r.summary());
    assert_eq!(r.cells.len(), 1);
}

/// The best single sample over a cell's chains (`MAP sample…` columns, as in `wood2006`'s
/// LUCAS tables) is one point of one run: reported, not tested, while the mean over chains
/// beside it is tested; another run's best sample with other labels is no regression.
#[test]
fn the_best_sample_of_a_run_is_a_diagnostic() {
    assert!(is_diagnostic("MAP sample: best-matching cause"));
    assert!(is_diagnostic("MAP sample"));
    assert!(!is_diagnostic("AUC of posterior mean y_kt"));
    let cols = [
        "hidden column",
        "auc",
        "auc_se",
        "MAP sample: best-matching cause",
    ];
    let base = table(&cols, &[&["Smoking", "0.86", "0.01", "cause 16"]]);
    let cur = table(&cols, &[&["Smoking", "0.85", "0.01", "cause 3"]]);
    let r = compare_tables_statistical(
        &BTreeMap::from([("t".to_string(), cur)]),
        &BTreeMap::from([("t".to_string(), base.clone())]),
        opts(),
    );
    assert!(r.passed(), "{}", r.summary());
    assert_eq!(r.cells.len(), 1);
    // A real change of the mean over chains still fails.
    let far = table(&cols, &[&["Smoking", "0.60", "0.01", "cause 16"]]);
    let r = compare_tables_statistical(
        &BTreeMap::from([("t".to_string(), far)]),
        &BTreeMap::from([("t".to_string(), base)]),
        opts(),
    );
    assert!(!r.passed(), "{}", r.summary());
}

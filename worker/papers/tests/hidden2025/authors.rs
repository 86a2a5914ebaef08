//! hidden2025: the authors' own datasets of §5.1 (Table 1), §5.3 (Table 3) and supplement E
//! (Tables 7–8), read with `dataset.authors_seed`. The baselines and scores are deterministic
//! functions of the data, so on the very datasets behind the paper they must give the paper's
//! columns: Table 1's MLE and DM means, every proportion of Table 3's BIC, AIC and BDE columns and
//! every mean and sd of Table 7's Δscores. The negative controls run the same checks on datasets
//! drawn by causeway's own generators.

use std::path::PathBuf;

use causeway_papers::data::DataContext;
use causeway_papers::hidden2025::datasets::{DiscreteData, parse_dataset};
use causeway_papers::hidden2025::evaluation::Levels;
use causeway_papers::hidden2025::evaluation::scores::{Score, node_score};
use causeway_papers::hidden2025::evaluation::sparse_counts::{
    baselines, rmse_by_label, success_probabilities,
};
use causeway_papers::seed::chain_rng;
use serde_json::{Value, json};

fn ctx() -> DataContext {
    DataContext {
        data_dir: PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../data"),
    }
}

fn data(spec: Value, seed: u64) -> DiscreteData {
    let spec = parse_dataset(&spec).expect("valid dataset section");
    spec.discrete(&ctx(), &mut chain_rng(seed, 31, 0, 0))
        .expect("dataset")
        .0
}

/// Per K_Pa = 2, 3, 5, 10: the mean over the 50 datasets of the RMSE of the MLE and of the
/// Dirichlet-multinomial (iss 1) to P(y = 1 | x).
fn table1_means(authors: bool) -> Vec<[f64; 2]> {
    [2, 3, 5, 10]
        .iter()
        .map(|&k_pa| {
            let mut sums = [0.0; 2];
            for s in 1..=50u32 {
                let mut spec = json!({"kind": "sparse_counts", "n": 100, "k_pa": k_pa});
                if authors {
                    spec["authors_seed"] = json!(s);
                }
                let spec = parse_dataset(&spec).expect("valid dataset section");
                let built = spec
                    .build(&ctx(), &mut chain_rng(u64::from(s), 31, 0, 0))
                    .expect("dataset");
                let d = DiscreteData::from_matrices(&built.observed).expect("data");
                let cpt = built
                    .truth
                    .iter()
                    .find(|m| m.name == "cpt:y")
                    .expect("truth");
                let truth = success_probabilities(cpt, "1").expect("truth column");
                let b = baselines(&d, 1, &[0], "1", 1.0, Levels::Present).expect("baselines");
                for (sum, est) in sums.iter_mut().zip([&b.mle, &b.dm]) {
                    *sum += rmse_by_label(est, &truth).expect("rmse").rmse / 50.0;
                }
            }
            sums
        })
        .collect()
}

/// Table 1's MLE and DM means per K_Pa.
const PAPER_TABLE1: [[f64; 2]; 4] = [
    [0.060, 0.060],
    [0.074, 0.073],
    [0.106, 0.105],
    [0.160, 0.158],
];

fn rounds_to(x: &[[f64; 2]], paper: &[[f64; 2]]) -> bool {
    x.iter()
        .flatten()
        .zip(paper.iter().flatten())
        .all(|(a, b)| (a - b).abs() <= 5.1e-4)
}

#[test]
fn hidden2025_authors_datasets_give_table1s_mle_and_dm_columns() {
    let means = table1_means(true);
    assert!(rounds_to(&means, &PAPER_TABLE1), "{means:?}");
    // Negative control: causeway's own draws do not round to all eight.
    assert!(!rounds_to(&table1_means(false), &PAPER_TABLE1));
}

const SCORES: [Score; 3] = [Score::Bic, Score::Aic, Score::Bdeu { iss: 1.0 }];

/// score(x3 | `with`) − score(x3 | `without`) for BIC, AIC and BDeu (iss 1), levels present.
fn deltas(d: &DiscreteData, with: &[usize], without: &[usize]) -> [f64; 3] {
    SCORES.map(|s| {
        node_score(d, 2, with, &s, Levels::Present).expect("score")
            - node_score(d, 2, without, &s, Levels::Present).expect("score")
    })
}

/// Per k1 = 5, 25, 100, 200: how many of the 100 datasets have ΔBIC, ΔAIC, ΔBDeu > 0 for
/// G2 = G1 + {x2 → x3}.
fn table3_counts(authors: bool) -> Vec<[u32; 3]> {
    [5, 25, 100, 200]
        .iter()
        .map(|&k1| {
            let mut counts = [0u32; 3];
            for s in 1..=100u32 {
                let mut spec = json!({"kind": "two_dags", "n": 200, "k1": k1});
                if authors {
                    spec["authors_seed"] = json!(s);
                }
                let d = data(spec, u64::from(s));
                for (c, x) in counts.iter_mut().zip(deltas(&d, &[0, 1], &[0])) {
                    *c += u32::from(x > 0.0);
                }
            }
            counts
        })
        .collect()
}

/// Table 3's BIC, AIC and BDE columns (`002_d97ecc788b964f97.txt`), in datasets out of 100.
const PAPER_TABLE3: [[u32; 3]; 4] = [[2, 38, 8], [0, 0, 1], [0, 0, 21], [0, 0, 49]];

#[test]
fn hidden2025_authors_datasets_give_table3s_score_columns_exactly() {
    assert_eq!(table3_counts(true), PAPER_TABLE3);
}

#[test]
fn hidden2025_own_draws_do_not_give_table3s_score_columns() {
    // Negative control: the same check on causeway's independent draws fails.
    assert_ne!(table3_counts(false), PAPER_TABLE3);
}

/// Mean and sd (n − 1) of ΔBIC, ΔAIC, ΔBDeu = score(G_true) − score(G_false) over the 100
/// datasets of (g_true, n).
fn table7_row(g_true: &str, n: usize, authors: bool) -> DeltaRow {
    let mut values: [Vec<f64>; 3] = Default::default();
    for s in 1..=100u32 {
        let mut spec = json!({"kind": "two_parent_sets", "n": n, "g_true": g_true});
        if authors {
            spec["authors_seed"] = json!(s);
        }
        let d = data(spec, u64::from(s));
        let x = deltas(&d, &[0, 1], &[1]);
        let sign = if g_true == "g2" { 1.0 } else { -1.0 };
        for (v, x) in values.iter_mut().zip(x) {
            v.push(sign * x);
        }
    }
    values.map(|v| {
        let m = v.iter().sum::<f64>() / v.len() as f64;
        let var = v.iter().map(|x| (x - m).powi(2)).sum::<f64>() / (v.len() - 1) as f64;
        (m, var.sqrt())
    })
}

/// (mean, sd) of ΔBIC, ΔAIC, ΔBDE.
type DeltaRow = [(f64, f64); 3];

/// Table 7's Δscore columns: (g_true, n, row).
const PAPER_TABLE7: [(&str, usize, DeltaRow); 8] = [
    ("g1", 50, [(17.319, 2.760), (5.846, 2.760), (14.051, 4.831)]),
    ("g1", 75, [(19.063, 2.931), (5.158, 2.931), (19.331, 7.014)]),
    (
        "g1",
        100,
        [(21.427, 2.363), (5.796, 2.363), (23.916, 6.116)],
    ),
    (
        "g1",
        150,
        [(23.205, 2.899), (5.141, 2.899), (28.177, 6.430)],
    ),
    ("g2", 50, [(-8.774, 4.234), (2.698, 4.234), (-4.020, 7.233)]),
    ("g2", 75, [(-7.486, 4.807), (6.419, 4.807), (-7.240, 8.223)]),
    (
        "g2",
        100,
        [(-4.999, 6.970), (10.632, 6.970), (-6.812, 10.339)],
    ),
    (
        "g2",
        150,
        [(0.099, 10.364), (18.163, 10.364), (-4.421, 13.953)],
    ),
];

/// Whether every mean and sd of the row rounds to the paper's three decimals.
fn matches_paper(row: &DeltaRow, paper: &DeltaRow) -> bool {
    row.iter()
        .zip(paper)
        .all(|(a, b)| (a.0 - b.0).abs() <= 5.1e-4 && (a.1 - b.1).abs() <= 5.1e-4)
}

#[test]
fn hidden2025_authors_datasets_give_table7s_delta_scores_to_three_decimals() {
    for (g, n, paper) in PAPER_TABLE7 {
        let row = table7_row(g, n, true);
        assert!(
            matches_paper(&row, &paper),
            "{g}, n = {n}: {row:?} against {paper:?}"
        );
    }
    // Negative control: causeway's own draws of the first row do not.
    let (g, n, paper) = PAPER_TABLE7[0];
    assert!(!matches_paper(&table7_row(g, n, false), &paper));
}

#[test]
fn hidden2025_authors_seed_is_refused_outside_the_authors_draws() {
    let refused = |spec: Value, key: &str, words: &str| {
        let e = parse_dataset(&spec).expect_err("refused").to_string();
        assert!(e.contains(key) && e.contains(words), "{e}");
    };
    let td = |k1: usize, n: usize, s: i64| json!({"kind": "two_dags", "n": n, "k1": k1, "authors_seed": s});
    refused(td(5, 200, 0), "dataset.authors_seed", "1 to 100");
    refused(td(5, 200, 101), "dataset.authors_seed", "1 to 100");
    refused(td(6, 200, 1), "dataset.k1", "{5, 25, 100, 200}");
    refused(td(5, 100, 1), "dataset.n", "{200}");
    let tp = |n: usize, k2: usize| json!({"kind": "two_parent_sets", "n": n, "g_true": "g1", "k2": k2, "authors_seed": 7});
    refused(tp(60, 3), "dataset.n", "{50, 75, 100, 150}");
    refused(tp(50, 4), "dataset.k2", "{3}");
    let sc =
        |k_pa: usize, s: i64| json!({"kind": "sparse_counts", "k_pa": k_pa, "authors_seed": s});
    refused(sc(10, 51), "dataset.authors_seed", "1 to 50");
    refused(sc(4, 1), "dataset.k_pa", "{2, 3, 5, 10}");
    // A data directory without the authors' files: the error names the file.
    let spec = parse_dataset(&td(5, 200, 1)).expect("valid");
    let empty = DataContext {
        data_dir: std::env::temp_dir(),
    };
    let e = spec
        .discrete(&empty, &mut chain_rng(1, 1, 0, 0))
        .expect_err("no file")
        .to_string();
    assert!(e.contains("hidden2025_authors/two_dags.csv"), "{e}");
}

//! hidden2025 evaluation tests: the baselines of HiDDeN's tables.
//! Table 2's GS and IAMB columns on LUCAS, scores on simulated data, HC/TABU, logit MLE = MLE.

use std::path::PathBuf;

use causeway_papers::hidden2025::datasets::DiscreteData;
use causeway_papers::hidden2025::evaluation::logistic::{IrlsConfig, logistic_irls};
use causeway_papers::hidden2025::evaluation::markov_blanket::{
    DEFAULT_ALPHA, Defect, grow_shrink, hamming, iamb, learn_blanket_with_defect, other_columns,
    true_markov_blanket,
};
use causeway_papers::hidden2025::evaluation::scores::{Score, check_dag, dag_score, node_score};
use causeway_papers::hidden2025::evaluation::search::{
    SearchConfig, hill_climbing, select_columns, tabu_search,
};
use causeway_papers::hidden2025::evaluation::{Levels, mle};
use causeway_papers::seed::chain_rng;
use rand::RngExt;

fn data_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../data/lucas")
}

/// A tiny reader for `lucas0_train.csv` (header, then 0/1 values): not the project's CSV reader.
pub(super) fn read_lucas() -> DiscreteData {
    let path = data_dir().join("lucas0_train.csv");
    let text = std::fs::read_to_string(&path).expect("lucas0_train.csv");
    let mut lines = text.lines();
    let names: Vec<String> = lines
        .next()
        .expect("header")
        .split(',')
        .map(|s| s.trim().to_string())
        .collect();
    let mut columns = vec![Vec::new(); names.len()];
    for (i, line) in lines.filter(|l| !l.trim().is_empty()).enumerate() {
        let cells: Vec<&str> = line.split(',').collect();
        assert_eq!(cells.len(), names.len(), "line {}: ragged row", i + 2);
        for (col, cell) in columns.iter_mut().zip(cells) {
            let v: u16 = cell.trim().parse().expect("0/1 value");
            assert!(v <= 1, "line {}: value {v}", i + 2);
            col.push(v);
        }
    }
    let levels = vec![vec!["0".to_string(), "1".to_string()]; names.len()];
    DiscreteData::new(names, levels, columns).expect("valid LUCAS data")
}

/// The true DAG from `lucas0_edges.csv` (header parent,child), as parent lists over `data`'s columns.
pub(super) fn lucas_parents(data: &DiscreteData) -> Vec<Vec<usize>> {
    let text = std::fs::read_to_string(data_dir().join("lucas0_edges.csv")).expect("edges");
    let mut lines = text.lines();
    assert_eq!(lines.next().map(str::trim), Some("parent,child"));
    let mut parents = vec![Vec::new(); data.p()];
    for line in lines.filter(|l| !l.trim().is_empty()) {
        let (from, to) = line.split_once(',').expect("two fields");
        let f = data
            .index(from.trim())
            .unwrap_or_else(|| panic!("unknown node {from}"));
        let t = data
            .index(to.trim())
            .unwrap_or_else(|| panic!("unknown node {to}"));
        parents[t].push(f);
    }
    parents
}

const TABLE2_VARIABLES: [&str; 6] = [
    "Smoking",
    "Genetics",
    "Fatigue",
    "Coughing",
    "Allergy",
    "Lung_Cancer",
];

/// Every node named in the edges file is a column, and the only column without an edge is
/// Born_An_Even_Day (LUCAS's isolated node).
#[test]
fn lucas_columns_match_the_edges_file() {
    let data = read_lucas();
    assert_eq!((data.n(), data.p()), (2000, 12));
    let text = std::fs::read_to_string(data_dir().join("lucas0_edges.csv")).expect("edges");
    let mut in_edges: Vec<&str> = text
        .lines()
        .skip(1)
        .filter(|l| !l.trim().is_empty())
        .flat_map(|l| l.split(',').map(str::trim))
        .collect();
    in_edges.sort_unstable();
    in_edges.dedup();
    let mut isolated: Vec<&str> = data
        .names
        .iter()
        .map(String::as_str)
        .filter(|c| !in_edges.contains(c))
        .collect();
    isolated.sort_unstable();
    assert_eq!(isolated, vec!["Born_An_Even_Day"]);
    for name in &in_edges {
        assert!(data.index(name).is_some(), "{name} is not a column");
    }
    let parents = lucas_parents(&data);
    check_dag(&data, &parents).expect("the LUCAS DAG is acyclic");
}

#[test]
fn grow_shrink_and_iamb_reproduce_table2() {
    let data = read_lucas();
    let truth = lucas_parents(&data);
    let mut gs_h = Vec::new();
    let mut iamb_h = Vec::new();
    for name in TABLE2_VARIABLES {
        let j = data.index(name).expect("variable");
        let cand = other_columns(&data, j);
        let mb = true_markov_blanket(&truth, j);
        let gs = grow_shrink(&data, j, &cand, DEFAULT_ALPHA).expect("gs");
        let ia = iamb(&data, j, &cand, DEFAULT_ALPHA).expect("iamb");
        let names = |v: &[usize]| v.iter().map(|&i| data.names[i].clone()).collect::<Vec<_>>();
        eprintln!(
            "{name}: true {:?} gs {:?} iamb {:?}",
            names(&mb),
            names(&gs.blanket),
            names(&ia.blanket)
        );
        gs_h.push(hamming(&gs.blanket, &mb));
        iamb_h.push(hamming(&ia.blanket, &mb));
    }
    assert_eq!(gs_h, vec![1, 0, 2, 0, 0, 0], "GS column of Table 2");
    assert_eq!(iamb_h, vec![2, 1, 0, 0, 1, 0], "IAMB column of Table 2");
    assert_eq!(gs_h.iter().sum::<usize>(), 3);
    assert_eq!(iamb_h.iter().sum::<usize>(), 4);
}

/// Negative controls: each departure from the procedure changes Table 2's column.
#[test]
fn defective_blanket_learners_miss_table2() {
    let data = read_lucas();
    let truth = lucas_parents(&data);
    for (iamb_method, defect, paper) in [
        (false, Defect::GrowShrinkAddsBest, [1, 0, 2, 0, 0, 0]),
        (true, Defect::IambAddsFirst, [2, 1, 0, 0, 1, 0]),
    ] {
        let column: Vec<usize> = TABLE2_VARIABLES
            .iter()
            .map(|name| {
                let j = data.index(name).expect("variable");
                let cand = other_columns(&data, j);
                let learned =
                    learn_blanket_with_defect(&data, j, &cand, DEFAULT_ALPHA, iamb_method, defect)
                        .expect("learner");
                hamming(&learned.blanket, &true_markov_blanket(&truth, j))
            })
            .collect();
        eprintln!("{defect:?}: {column:?} (paper {paper:?})");
        assert_ne!(column, paper, "{defect:?} still reproduces Table 2");
    }
}

/// Data from a DAG given as parent lists, with k levels per node and conditional probabilities
/// drawn from a symmetric Dirichlet(0.3) per configuration (strong dependences).
fn simulate(parents: &[Vec<usize>], k: &[usize], n: usize, seed: u64) -> DiscreteData {
    let mut rng = chain_rng(seed, 16, 0, 0);
    let p = parents.len();
    let mut cpts: Vec<Vec<Vec<f64>>> = Vec::new();
    for j in 0..p {
        let n_configs: usize = parents[j].iter().map(|&q| k[q]).product();
        let rows = (0..n_configs)
            .map(|_| {
                let g: Vec<f64> = (0..k[j])
                    .map(|_| {
                        let u: f64 = rng.random();
                        u.powf(4.0) + 1e-3 // skewed weights
                    })
                    .collect();
                let s: f64 = g.iter().sum();
                g.iter().map(|x| x / s).collect()
            })
            .collect();
        cpts.push(rows);
    }
    // Nodes are given in a topological order (parents before children).
    let mut columns = vec![Vec::with_capacity(n); p];
    let mut row = vec![0usize; p];
    for _ in 0..n {
        for j in 0..p {
            let mut code = 0;
            let mut radix = 1;
            for &q in &parents[j] {
                code += row[q] * radix;
                radix *= k[q];
            }
            let u: f64 = rng.random();
            let mut acc = 0.0;
            let mut x = k[j] - 1;
            for (c, &pr) in cpts[j][code].iter().enumerate() {
                acc += pr;
                if u < acc {
                    x = c;
                    break;
                }
            }
            row[j] = x;
        }
        for (col, &x) in columns.iter_mut().zip(&row) {
            col.push(x as u16);
        }
    }
    let names = (0..p).map(|j| format!("X{j}")).collect();
    let levels = k
        .iter()
        .map(|&kj| (0..kj).map(|c| c.to_string()).collect())
        .collect();
    DiscreteData::new(names, levels, columns).expect("simulated data")
}

/// BIC and BDeu are score-equivalent (Markov-equivalent DAGs score the same); K2 is not.
#[test]
fn bic_and_bdeu_are_score_equivalent() {
    let data = simulate(&[vec![], vec![0], vec![1]], &[2, 3, 4], 300, 1);
    let chain = vec![vec![], vec![0], vec![1]]; // 0 → 1 → 2
    let reversed = vec![vec![1], vec![2], vec![]]; // 2 → 1 → 0
    for score in [
        Score::Bic,
        Score::Aic,
        Score::LogLik,
        Score::BDEU,
        Score::Bdeu { iss: 10.0 },
    ] {
        let a = dag_score(&data, &chain, &score, Levels::Declared).expect("score");
        let b = dag_score(&data, &reversed, &score, Levels::Declared).expect("score");
        assert!((a - b).abs() < 1e-8 * a.abs(), "{score:?}: {a} vs {b}");
    }
    let a = dag_score(&data, &chain, &Score::K2, Levels::Declared).expect("score");
    let b = dag_score(&data, &reversed, &Score::K2, Levels::Declared).expect("score");
    assert!((a - b).abs() > 1e-6, "K2 is not score-equivalent");
}

/// An unobserved level changes q (and the BIC penalty) under `declared` only.
#[test]
fn present_and_declared_levels_differ_only_by_unobserved_levels() {
    let mut data = simulate(&[vec![], vec![0]], &[3, 2], 200, 2);
    let present = node_score(&data, 1, &[0], &Score::Bic, Levels::Present).expect("score");
    let declared = node_score(&data, 1, &[0], &Score::Bic, Levels::Declared).expect("score");
    assert!((present - declared).abs() < 1e-12);
    data.levels[0].push("never".into());
    let present2 = node_score(&data, 1, &[0], &Score::Bic, Levels::Present).expect("score");
    let declared2 = node_score(&data, 1, &[0], &Score::Bic, Levels::Declared).expect("score");
    assert!((present2 - present).abs() < 1e-12);
    assert!((declared2 - (present - 0.5 * 200f64.ln())).abs() < 1e-9);
    // BDeu's empty configurations contribute 0, but q changes the pseudo-counts.
    let bde_p = node_score(&data, 1, &[0], &Score::BDEU, Levels::Present).expect("score");
    let bde_d = node_score(&data, 1, &[0], &Score::BDEU, Levels::Declared).expect("score");
    assert!((bde_p - bde_d).abs() > 1e-6);
}

/// The logit MLE with the parents as a factor equals the MLE, including separated configurations.
#[test]
fn logistic_irls_equals_the_mle() {
    for (case, k_pa) in [2usize, 3, 5, 10].into_iter().enumerate() {
        let mut data = simulate(&[vec![], vec![0]], &[k_pa, 2], 60, 10 + case as u64);
        // Force separation: every row of configuration 0 has child = 1.
        for i in 0..data.n() {
            if data.columns[0][i] == 0 {
                data.columns[1][i] = 1;
            }
        }
        let fit = logistic_irls(&data, 1, &[0], IrlsConfig::default()).expect("fit");
        let m = mle(&data, 1, &[0], Levels::Declared).expect("mle");
        for (&code, &p) in fit.configs.iter().zip(&fit.fitted) {
            let want = m.row(code as usize)[1];
            assert!(
                (p - want).abs() < 1e-6,
                "K_Pa {k_pa}, config {code}: {p} vs {want}"
            );
        }
        assert!(fit.separation, "configuration 0 is all ones");
        assert!(fit.converged);
        // The test can fail: one IRLS step from R's start is not the MLE.
        let short = logistic_irls(
            &data,
            1,
            &[0],
            IrlsConfig {
                max_iter: 1,
                epsilon: 1e-8,
            },
        )
        .expect("fit");
        let worst = short
            .configs
            .iter()
            .zip(&short.fitted)
            .map(|(&c, &p)| (p - m.row(c as usize)[1]).abs())
            .fold(0.0, f64::max);
        assert!(worst > 1e-6, "one step is already the MLE: {worst}");
    }
}

fn skeleton(parents: &[Vec<usize>]) -> Vec<(usize, usize)> {
    let mut s: Vec<(usize, usize)> = parents
        .iter()
        .enumerate()
        .flat_map(|(c, pa)| pa.iter().map(move |&q| (q.min(c), q.max(c))))
        .collect();
    s.sort_unstable();
    s
}

/// HC and TABU with BIC recover the skeleton of a strongly dependent 4-node DAG, return acyclic
/// graphs whose reported score is their BIC, and respect a blacklist.
#[test]
fn hill_climbing_and_tabu_with_bic() {
    // 0 → 1 → 3 ← 2 (a v-structure at 3).
    let truth = vec![vec![], vec![0], vec![], vec![1, 2]];
    let data = simulate(&truth, &[2, 3, 2, 3], 3000, 3);
    let config = SearchConfig::default();
    let hc = hill_climbing(&data, &config).expect("hc");
    let tabu = tabu_search(&data, &config).expect("tabu");
    for res in [&hc, &tabu] {
        check_dag(&data, &res.parents).expect("acyclic");
        let s = dag_score(&data, &res.parents, &Score::Bic, Levels::Declared).expect("score");
        assert!((s - res.score).abs() < 1e-8);
        assert_eq!(skeleton(&res.parents), skeleton(&truth));
    }
    let true_score = dag_score(&data, &truth, &Score::Bic, Levels::Declared).expect("score");
    assert!(hc.score >= true_score - 1e-8);
    assert!(tabu.score >= hc.score - 1e-8);
    // The v-structure is identified: both 1 and 2 are parents of 3.
    assert_eq!(hc.parents[3], vec![1, 2]);
    // Blacklist every arc out of node 3 (as the METABRIC runs do for the outcome).
    let black = SearchConfig {
        blacklist: (0..3).map(|j| (3, j)).collect(),
        ..SearchConfig::default()
    };
    let res = hill_climbing(&data, &black).expect("hc");
    assert!(res.parents.iter().all(|pa| !pa.contains(&3)));
    // A sub-dataset search.
    let sub = select_columns(&data, &[3, 1]).expect("columns");
    let res = tabu_search(&sub, &config).expect("tabu");
    assert_eq!(skeleton(&res.parents), vec![(0, 1)]);
}

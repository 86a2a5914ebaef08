//! Synthetic generators of `002_d97ecc788b964f97.txt`: §5.1/C.1 (Table 1, sparse counts), §5.3/C.3
//! (Table 3, two DAGs) and supplement E (Tables 7–8, two parent sets), with the settings below.
//!
//! Each returns a [`Synthetic`]: the data and the true conditional probabilities ([`TrueCpt`]) per
//! declared parent configuration. Draw order (so results are deterministic given the RNG): every
//! parameter first (in configuration-code order, first parent fastest), then the rows one at a
//! time, each row's variables in column order, one `random_range`/uniform per variable.
//!
//! Levels: every variable is declared with labels `1..=k` for multi-level variables (the paper's
//! h = 1..K_Pa) and `0`, `1` for binary ones. [`LevelsMode::Present`] (the default for synthetic
//! data, as R's `factor()` does in the authors' scripts) then drops the levels absent from the
//! data (codes renumbered, labels kept); [`LevelsMode::Declared`] keeps them all. The truth is
//! always indexed by the declared levels; match it to the data by label.

use rand::RngExt;
use rand_distr::{Beta, Distribution};
use serde::Deserialize;

use super::DiscreteData;

/// Which category levels a synthetic variable keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum LevelsMode {
    /// Only the levels present in the data (R's `factor()`).
    #[default]
    Present,
    /// Every declared level, observed or not.
    Declared,
}

/// The true CPT of one node: `probabilities` is `n_configs × k` row-major over the *declared*
/// levels, configuration code first parent fastest.
#[derive(Debug, Clone, PartialEq)]
pub struct TrueCpt {
    /// The child's name.
    pub node: String,
    /// Parent names, in coding order.
    pub parents: Vec<String>,
    /// The child's declared labels (k).
    pub categories: Vec<String>,
    /// The label `P1=s1;P2=s2` of every declared configuration (one empty label for a root).
    pub config_labels: Vec<String>,
    /// P(child = x | configuration), `config_labels.len() × k`.
    pub probabilities: Vec<f64>,
}

/// A synthetic dataset with its truth.
#[derive(Debug, Clone, PartialEq)]
pub struct Synthetic {
    /// The data (levels per [`LevelsMode`]).
    pub data: DiscreteData,
    /// The true CPT of every variable, in column order.
    pub truth: Vec<TrueCpt>,
}

/// Labels `1..=k` (or `0`, `1` when `binary`).
pub(super) fn labels(k: usize, binary: bool) -> Vec<String> {
    if binary {
        vec!["0".into(), "1".into()]
    } else {
        (1..=k).map(|h| h.to_string()).collect()
    }
}

fn config_labels(parents: &[(&str, &[String])]) -> Vec<String> {
    let n: usize = parents.iter().map(|(_, l)| l.len()).product();
    (0..n)
        .map(|code| {
            let mut rest = code;
            let mut parts = Vec::new();
            for (name, lv) in parents {
                parts.push(format!("{name}={}", lv[rest % lv.len()]));
                rest /= lv.len();
            }
            parts.join(";")
        })
        .collect()
}

fn uniform_root(name: &str, lv: &[String]) -> TrueCpt {
    let k = lv.len();
    TrueCpt {
        node: name.into(),
        parents: Vec::new(),
        categories: lv.to_vec(),
        config_labels: vec![String::new()],
        probabilities: vec![1.0 / k as f64; k],
    }
}

fn binary_cpt(name: &str, parents: &[(&str, &[String])], p1: &[f64]) -> TrueCpt {
    TrueCpt {
        node: name.into(),
        parents: parents.iter().map(|(n, _)| n.to_string()).collect(),
        categories: labels(2, true),
        config_labels: config_labels(parents),
        probabilities: p1.iter().flat_map(|&p| [1.0 - p, p]).collect(),
    }
}

fn bernoulli<R: RngExt + ?Sized>(rng: &mut R, p: f64) -> u16 {
    u16::from(rng.random::<f64>() < p)
}

/// The dataset of `columns` (levels per `mode`) with its truth.
pub(super) fn finish(
    names: &[&str],
    levels: Vec<Vec<String>>,
    columns: Vec<Vec<u16>>,
    truth: Vec<TrueCpt>,
    mode: LevelsMode,
) -> Synthetic {
    let data = DiscreteData {
        names: names.iter().map(|s| s.to_string()).collect(),
        levels,
        columns,
    };
    let data = match mode {
        LevelsMode::Declared => data,
        LevelsMode::Present => data.drop_absent_levels(),
    };
    Synthetic { data, truth }
}

/// §5.1/C.1 (Table 1): `n` rows of (`x`, `y`): the parent `x` uniform on levels h = 1..`k_pa`,
/// P(y = 1 | x = h) = 2/3 for even h and 1/3 for odd h (binary `y`, labels 0/1). Panics never;
/// `k_pa` ≥ 2 is the caller's check.
pub fn sparse_counts<R: RngExt + ?Sized>(
    n: usize,
    k_pa: usize,
    mode: LevelsMode,
    rng: &mut R,
) -> Synthetic {
    let (lx, truth) = sparse_counts_truth(k_pa);
    let p1: Vec<f64> = truth[1].probabilities.chunks(2).map(|r| r[1]).collect();
    let (mut x, mut y) = (Vec::with_capacity(n), Vec::with_capacity(n));
    for _ in 0..n {
        let h = rng.random_range(0..k_pa);
        x.push(h as u16);
        y.push(bernoulli(rng, p1[h]));
    }
    finish(
        &["x", "y"],
        vec![lx, labels(2, true)],
        vec![x, y],
        truth,
        mode,
    )
}

/// §5.1's labels of `x` (1..=`k_pa`) and the truth of `x` (uniform) and `y` (P(y = 1 | x = h) =
/// 2/3 for even h, 1/3 for odd h).
pub(super) fn sparse_counts_truth(k_pa: usize) -> (Vec<String>, Vec<TrueCpt>) {
    let lx = labels(k_pa, false);
    let p1: Vec<f64> = (1..=k_pa)
        .map(|h| if h % 2 == 0 { 2.0 / 3.0 } else { 1.0 / 3.0 })
        .collect();
    let truth = vec![uniform_root("x", &lx), binary_cpt("y", &[("x", &lx)], &p1)];
    (lx, truth)
}

/// §5.3/C.3 (Table 3): `n` rows of (`x1`, `x2`, `x3`): `x1` uniform on `k1` levels; P(x2 = 1 | x1)
/// ~ U(0.01, 0.99) per level; P(x3 = 1 | x1, x2) ~ Beta(2, 15) per cell (2·k1 cells, codes x1 +
/// k1·x2), all drawn independently from one stream (the authors reseed before each draw). The
/// generating graph is G2 = {1→2, 1→3, 2→3}.
pub fn two_dags<R: RngExt + ?Sized>(
    n: usize,
    k1: usize,
    mode: LevelsMode,
    rng: &mut R,
) -> Synthetic {
    let l1 = labels(k1, false);
    let lb = labels(2, true);
    let p2: Vec<f64> = (0..k1).map(|_| rng.random_range(0.01..0.99)).collect();
    // Beta(2, 15) has valid parameters: the constructor cannot fail.
    let beta = Beta::new(2.0, 15.0).expect("Beta(2, 15) is valid");
    let p3: Vec<f64> = (0..2 * k1).map(|_| beta.sample(rng)).collect();
    let mut cols: Vec<Vec<u16>> = (0..3).map(|_| Vec::with_capacity(n)).collect();
    for _ in 0..n {
        let a = rng.random_range(0..k1);
        let b = bernoulli(rng, p2[a]);
        let c = bernoulli(rng, p3[a + k1 * b as usize]);
        cols[0].push(a as u16);
        cols[1].push(b);
        cols[2].push(c);
    }
    let truth = vec![
        uniform_root("x1", &l1),
        binary_cpt("x2", &[("x1", &l1)], &p2),
        binary_cpt("x3", &[("x1", &l1), ("x2", &lb)], &p3),
    ];
    finish(
        &["x1", "x2", "x3"],
        vec![l1, lb.clone(), lb],
        cols,
        truth,
        mode,
    )
}

/// Supplement E's true graph.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TwoParentTruth {
    /// Pa(x3) = {x2}.
    G1,
    /// Pa(x3) = {x1, x2}.
    G2,
}

/// Supplement E (Tables 7–8): `n` rows of (`x1`, `x2`, `x3`): `x1` uniform on `k1` (5) levels, `x2`
/// uniform on `k2` (3), independent; `x3` binary with P(x3 = 1 | x2) ~ U(0, 1) per level (G1) or
/// P(x3 = 1 | x1, x2) ~ U(0, 1) per cell (G2, codes x1 + k1·x2). The truth of x3 is over its true
/// parents: {x2} under G1, {x1, x2} under G2.
pub fn two_parent_sets<R: RngExt + ?Sized>(
    n: usize,
    k1: usize,
    k2: usize,
    g_true: TwoParentTruth,
    mode: LevelsMode,
    rng: &mut R,
) -> Synthetic {
    let (l1, l2, lb) = (labels(k1, false), labels(k2, false), labels(2, true));
    let drawn: Vec<f64> = match g_true {
        TwoParentTruth::G1 => (0..k2).map(|_| rng.random::<f64>()).collect(),
        TwoParentTruth::G2 => (0..k1 * k2).map(|_| rng.random::<f64>()).collect(),
    };
    let p3 = |a: usize, b: usize| match g_true {
        TwoParentTruth::G1 => drawn[b],
        TwoParentTruth::G2 => drawn[a + k1 * b],
    };
    let mut cols: Vec<Vec<u16>> = (0..3).map(|_| Vec::with_capacity(n)).collect();
    for _ in 0..n {
        let a = rng.random_range(0..k1);
        let b = rng.random_range(0..k2);
        let c = bernoulli(rng, p3(a, b));
        cols[0].push(a as u16);
        cols[1].push(b as u16);
        cols[2].push(c);
    }
    let x3 = match g_true {
        TwoParentTruth::G1 => binary_cpt("x3", &[("x2", &l2)], &drawn),
        TwoParentTruth::G2 => binary_cpt("x3", &[("x1", &l1), ("x2", &l2)], &drawn),
    };
    let truth = vec![uniform_root("x1", &l1), uniform_root("x2", &l2), x3];
    finish(&["x1", "x2", "x3"], vec![l1, l2, lb], cols, truth, mode)
}

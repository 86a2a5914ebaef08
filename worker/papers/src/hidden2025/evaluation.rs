//! Evaluation of HiDDeN (`002_d97ecc788b964f97.txt`, §5 and supplement C–F), polars-free: the
//! baselines of the paper's tables, exactly as bnlearn 5.x defines them.
//!
//! - this module: the errors, the level-count rule ([`Levels`], [`LevelCounts`]) and the two
//!   parameter estimators of Table 1 and supplement F, [`mle`] (eq 3) and [`dirichlet_multinomial`]
//!   (`bn.fit(method = "bayes", iss = 1)`);
//! - [`scores`]: loglik, BIC, AIC, BDeu and BD (K2, BDJ) for a node and for a DAG (Tables 3, 7, 8);
//! - [`markov_blanket`]: the G² conditional-independence test and the grow-shrink and IAMB
//!   Markov-blanket learners of Table 2, and the true blanket of a DAG;
//! - [`search`]: hill climbing and TABU search with BIC (Figure 5's `hc` and `tabu`);
//! - [`logistic`]: logistic regression with the parents as one factor, fitted by IRLS (Table 1's
//!   logit MLE; with one factor term mgcv's logit GAM is the same fit);
//! - [`mmle`]: the maximum marginal likelihood estimator of supplement G (eqs 19–21).
//!
//! Everything is built on [`DiscreteData`] and [`ParentTable`] (occupied parent configurations
//! only), so an empty parent configuration costs nothing.
//!
//! **Levels: present or declared.** R's `factor()` keeps only the levels present in the data, and
//! the paper's simulation scripts build their data frames that way, so there the number of child
//! categories r and of parent configurations q count the *present* levels; for the real datasets
//! every declared level counts. Callers choose with [`Levels`] (`levels: present`, the default for
//! synthetic data; `levels: declared`, the default for the real datasets), and [`level_counts`]
//! turns the choice into the two numbers (r, q) every estimator and score takes.

pub mod alarm;
pub mod blankets;
pub mod logistic;
pub mod markov_blanket;
pub mod mmle;
pub mod scores;
pub mod search;
pub mod sparse_counts;
pub mod two_dags;
pub mod two_parent_sets;

use crate::hidden2025::datasets::{DiscreteData, ParentTable};

/// Largest dense conditional probability table [`mle`] and [`dirichlet_multinomial`] return:
/// K_Pa × k_j cells.
pub const MAX_CPT_CELLS: u64 = 1 << 26;

/// An evaluation input that cannot be used. Every variant names the node, arc or value.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum EvalError {
    /// A node index or name that is not a column of the data.
    #[error("unknown node {0}")]
    UnknownNode(String),
    /// An arc from a node to itself.
    #[error("self-loop on node {0}")]
    SelfLoop(String),
    /// The same arc given twice.
    #[error("repeated arc {from} -> {to}")]
    RepeatedArc {
        /// The parent's name.
        from: String,
        /// The child's name.
        to: String,
    },
    /// A directed cycle, as `A -> B -> C -> A`.
    #[error("directed cycle {0}")]
    Cycle(String),
    /// Any other bad value (a hyperparameter out of range, a table too large, a wrong length…).
    #[error("{0}")]
    Invalid(String),
}

/// Which levels count in r (child categories) and q (parent configurations); see the module docs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Deserialize, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Levels {
    /// Only the levels that occur in the data (R's `factor()`): `levels: present`.
    #[default]
    Present,
    /// Every declared level, observed or not: `levels: declared`.
    Declared,
}

/// The level counts a node's estimator or score uses (bnlearn's `nlevels`): r child categories and
/// q parent configurations (a product of parent level counts, as f64 since it can exceed u64).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LevelCounts {
    /// r: categories of the child (present or declared), ≥ 1.
    pub r: usize,
    /// q: parent configurations, Π over parents of their level counts (1 for a root).
    pub q: f64,
}

/// Whether each category of variable `j` occurs in the data (length k_j).
pub fn present_levels(data: &DiscreteData, j: usize) -> Vec<bool> {
    let mut seen = vec![false; data.k(j)];
    for &x in &data.columns[j] {
        seen[x as usize] = true;
    }
    seen
}

/// The number of categories of variable `j` that count under `rule` (≥ 1 whenever n ≥ 1).
pub fn level_count(data: &DiscreteData, j: usize, rule: Levels) -> usize {
    match rule {
        Levels::Declared => data.k(j),
        Levels::Present => present_levels(data, j).iter().filter(|&&s| s).count(),
    }
}

/// r and q of `child` given `parents` under `rule`. Errors: an index ≥ p.
pub fn level_counts(
    data: &DiscreteData,
    child: usize,
    parents: &[usize],
    rule: Levels,
) -> Result<LevelCounts, EvalError> {
    check_nodes(data, child, parents)?;
    let r = level_count(data, child, rule).max(1);
    let q = parents
        .iter()
        .map(|&p| level_count(data, p, rule).max(1) as f64)
        .product();
    Ok(LevelCounts { r, q })
}

/// Check that `child` and every parent are columns of `data`, and that no parent is the child.
pub(crate) fn check_nodes(
    data: &DiscreteData,
    child: usize,
    parents: &[usize],
) -> Result<(), EvalError> {
    let p = data.p();
    if child >= p {
        return Err(EvalError::UnknownNode(format!(
            "#{child} (the data has {p} columns)"
        )));
    }
    for &j in parents {
        if j >= p {
            return Err(EvalError::UnknownNode(format!(
                "#{j} (the data has {p} columns)"
            )));
        }
        if j == child {
            return Err(EvalError::SelfLoop(data.names[child].clone()));
        }
    }
    Ok(())
}

/// A dense conditional probability table P(x_j = x | x_Pa = c): `probs` is `n_configs × k`
/// row-major, configurations coded as in [`ParentTable::configs`] (the first parent varies
/// fastest), empty configurations included.
#[derive(Debug, Clone, PartialEq)]
pub struct Cpt {
    /// k_j, the declared categories of the child.
    pub k: usize,
    /// K_Pa, every configuration of the declared parent levels.
    pub n_configs: usize,
    /// `n_configs × k`, each row a probability vector.
    pub probs: Vec<f64>,
}

impl Cpt {
    /// The row of configuration `code` (length k).
    pub fn row(&self, code: usize) -> &[f64] {
        &self.probs[code * self.k..(code + 1) * self.k]
    }
}

/// Fill a dense table: `occupied(row, counts, total)` for observed configurations, `empty(row)` for
/// the others.
fn dense_cpt(
    data: &DiscreteData,
    child: usize,
    parents: &[usize],
    mut occupied: impl FnMut(&mut [f64], &[u32], u32),
    mut empty: impl FnMut(&mut [f64]),
) -> Result<Cpt, EvalError> {
    check_nodes(data, child, parents)?;
    let table = data.table(child, parents);
    let k = table.k;
    if table.n_configs.saturating_mul(k as u64) > MAX_CPT_CELLS {
        return Err(EvalError::Invalid(format!(
            "the table of {} has {} × {k} cells, more than {MAX_CPT_CELLS}",
            data.names[child], table.n_configs
        )));
    }
    let n_configs = table.n_configs as usize;
    let mut probs = vec![0.0; n_configs * k];
    let mut next = 0usize;
    for code in 0..n_configs {
        let row = &mut probs[code * k..(code + 1) * k];
        if next < table.occupied() && table.configs[next] as usize == code {
            occupied(row, table.row(next), table.totals[next]);
            next += 1;
        } else {
            empty(row);
        }
    }
    Ok(Cpt {
        k,
        n_configs,
        probs,
    })
}

/// The categories that count under `rule`, as a mask of length k_j.
fn counted_mask(data: &DiscreteData, child: usize, rule: Levels) -> Vec<bool> {
    match rule {
        Levels::Declared => vec![true; data.k(child)],
        Levels::Present => present_levels(data, child),
    }
}

/// Maximum-likelihood CPT, eq 3: n_{Pa,j}(c, x) / n_Pa(c). An empty parent configuration gives
/// 1/r over the r counted categories (bnlearn's `replace.unidentifiable = TRUE`); under
/// [`Levels::Present`] a category absent from the data gets probability 0 everywhere (R has no
/// such level). Shape: K_Pa × k_j. Errors: unknown nodes, a self-loop, more than
/// [`MAX_CPT_CELLS`] cells.
pub fn mle(
    data: &DiscreteData,
    child: usize,
    parents: &[usize],
    rule: Levels,
) -> Result<Cpt, EvalError> {
    let mask = counted_mask(data, child, rule);
    let r = mask.iter().filter(|&&m| m).count().max(1) as f64;
    dense_cpt(
        data,
        child,
        parents,
        |row, counts, total| {
            for (p, &c) in row.iter_mut().zip(counts) {
                *p = c as f64 / total as f64;
            }
        },
        |row| {
            for (p, &m) in row.iter_mut().zip(&mask) {
                *p = if m { 1.0 / r } else { 0.0 };
            }
        },
    )
}

/// Dirichlet-multinomial posterior mean, bnlearn's `bn.fit(method = "bayes", iss)` (Table 1's
/// "DM", supplement F's `dm`): (n_{Pa,j}(c, x) + iss/(r q)) / (n_Pa(c) + iss/q), with r and q from
/// [`level_counts`] under `rule`; an empty configuration gives 1/r. Categories not counted under
/// [`Levels::Present`] get 0. Shape: K_Pa × k_j. Errors: as [`mle`], and `iss ≤ 0` or not finite.
pub fn dirichlet_multinomial(
    data: &DiscreteData,
    child: usize,
    parents: &[usize],
    iss: f64,
    rule: Levels,
) -> Result<Cpt, EvalError> {
    if !(iss > 0.0 && iss.is_finite()) {
        return Err(EvalError::Invalid(format!("iss = {iss}: must be > 0")));
    }
    let LevelCounts { r, q } = level_counts(data, child, parents, rule)?;
    let mask = counted_mask(data, child, rule);
    let (a_cell, a_row) = (iss / (r as f64 * q), iss / q);
    dense_cpt(
        data,
        child,
        parents,
        |row, counts, total| {
            for ((p, &c), &m) in row.iter_mut().zip(counts).zip(&mask) {
                *p = if m {
                    (c as f64 + a_cell) / (total as f64 + a_row)
                } else {
                    0.0
                };
            }
        },
        |row| {
            for (p, &m) in row.iter_mut().zip(&mask) {
                *p = if m { 1.0 / r as f64 } else { 0.0 };
            }
        },
    )
}

/// The table of `child` given `parents` after the node checks (a thin wrapper used by the
/// submodules).
pub(crate) fn checked_table(
    data: &DiscreteData,
    child: usize,
    parents: &[usize],
) -> Result<ParentTable, EvalError> {
    check_nodes(data, child, parents)?;
    Ok(data.table(child, parents))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A (2 levels), B (3 levels, level b1 never observed), C (2 levels); n = 6.
    fn small() -> DiscreteData {
        DiscreteData::labelled(
            &[
                ("A", &["a0", "a1"]),
                ("B", &["b0", "b1", "b2"]),
                ("C", &["no", "yes"]),
            ],
            vec![
                vec![0, 1, 0, 1, 0, 0],
                vec![2, 2, 0, 0, 2, 0],
                vec![1, 0, 0, 1, 1, 1],
            ],
        )
        .expect("valid data")
    }

    #[test]
    fn level_counts_follow_the_rule() {
        let d = small();
        let present = level_counts(&d, 2, &[0, 1], Levels::Present).expect("nodes");
        assert_eq!((present.r, present.q), (2, 4.0));
        let declared = level_counts(&d, 2, &[0, 1], Levels::Declared).expect("nodes");
        assert_eq!((declared.r, declared.q), (2, 6.0));
        assert_eq!(
            level_counts(&d, 1, &[], Levels::Present).map(|l| l.r),
            Ok(2)
        );
        assert!(matches!(
            level_counts(&d, 2, &[2], Levels::Present),
            Err(EvalError::SelfLoop(_))
        ));
        assert!(matches!(
            level_counts(&d, 3, &[], Levels::Present),
            Err(EvalError::UnknownNode(_))
        ));
    }

    #[test]
    fn mle_and_dm_by_hand() {
        let d = small();
        // C | A: A = a0 rows 0,2,4,5 → C = 1,0,1,1; A = a1 rows 1,3 → C = 0,1.
        let m = mle(&d, 2, &[0], Levels::Declared).expect("mle");
        assert_eq!(m.row(0), &[0.25, 0.75]);
        assert_eq!(m.row(1), &[0.5, 0.5]);
        // C | B: b1 empty → 1/2.
        let m = mle(&d, 2, &[1], Levels::Declared).expect("mle");
        assert_eq!(m.row(1), &[0.5, 0.5]);
        // DM with iss = 1, declared: q = 3, r = 2 → (n + 1/6) / (n_c + 1/3).
        let dm = dirichlet_multinomial(&d, 2, &[1], 1.0, Levels::Declared).expect("dm");
        // b0: rows 2,3,5 → C = 0,1,1.
        assert!((dm.row(0)[0] - (1.0 + 1.0 / 6.0) / (3.0 + 1.0 / 3.0)).abs() < 1e-15);
        assert!((dm.row(1)[1] - 0.5).abs() < 1e-15);
        // present: q = 2 → (n + 1/4) / (n_c + 1/2).
        let dm = dirichlet_multinomial(&d, 2, &[1], 1.0, Levels::Present).expect("dm");
        assert!((dm.row(0)[1] - (2.0 + 0.25) / 3.5).abs() < 1e-15);
        // B | root under present: b1 absent → 0.
        let mb = mle(&d, 1, &[], Levels::Present).expect("mle");
        assert_eq!(mb.row(0), &[0.5, 0.0, 0.5]);
        assert!(dirichlet_multinomial(&d, 2, &[1], 0.0, Levels::Present).is_err());
    }
}

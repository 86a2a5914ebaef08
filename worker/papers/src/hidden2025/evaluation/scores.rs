//! Network scores as bnlearn 5.x defines them (paper
//! `002_d97ecc788b964f97.txt`, §5.3 and supplement E, Tables 3, 7 and 8). Higher is better, in
//! nats; a DAG's score is the sum of its nodes' scores, each computed from the node's table over its
//! *occupied* parent configurations (an empty configuration contributes exactly 0 to every score
//! below except through the BIC/AIC penalty, which counts q).

use statrs::function::gamma::ln_gamma;

use super::{EvalError, LevelCounts, Levels, check_nodes, level_counts};
use crate::hidden2025::datasets::{DiscreteData, ParentTable};
use crate::hidden2025::equations::log_marginal_likelihood;

/// The Dirichlet parameters of [`Score::Bd`]: eq 7 of `002_d97ecc788b964f97.txt` evaluated at
/// t_j = α, the same α for every parent configuration.
#[derive(Debug, Clone, PartialEq)]
pub enum BdAlpha {
    /// One α for every cell, t_j = α·1 over the r counted categories (Σα = rα): K2 is α = 1,
    /// bnlearn's `bdj` α = 1/2.
    Cell(f64),
    /// One α per child category, t_j = (α_1, …, α_k) in the child's category order; its length
    /// must be the node's number of declared categories k_j (the level rule does not change it: an
    /// absent category still adds its α to Σα, as in eq 7).
    Categories(Vec<f64>),
}

/// A network score (bnlearn's `score(type = …)`).
#[derive(Debug, Clone, PartialEq)]
pub enum Score {
    /// `loglik`: Σ n_jx log(n_jx / n_j) over occupied configurations j and categories x.
    LogLik,
    /// `bic`: loglik − (log n / 2)(r − 1) q.
    Bic,
    /// `aic`: loglik − (r − 1) q.
    Aic,
    /// `bde` (BDeu) with imaginary sample size `iss` (bnlearn's default 1):
    /// Σ_j [lgamma(iss/q) − lgamma(iss/q + n_j)] + Σ_jx [lgamma(iss/(rq) + n_jx) − lgamma(iss/(rq))].
    Bdeu {
        /// The imaginary sample size, > 0.
        iss: f64,
    },
    /// Bayesian Dirichlet, the log marginal likelihood of eq 7 (`002_d97ecc788b964f97.txt`) at
    /// t_j = α: Σ_j [lgamma(Σα) − lgamma(Σα + n_j)] + Σ_jx [lgamma(α_x + n_jx) − lgamma(α_x)] over
    /// the occupied configurations j. K2 is α = 1 in every cell, bnlearn's `bdj` α = 1/2.
    Bd {
        /// One α for every cell, or one per child category; every α > 0.
        alpha: BdAlpha,
    },
}

impl Score {
    /// K2 (Cooper & Herskovits 1992): BD with α = 1 in every cell.
    pub const K2: Score = Score::Bd {
        alpha: BdAlpha::Cell(1.0),
    };
    /// bnlearn's `bdj`: BD with α = 1/2 in every cell.
    pub const BDJ: Score = Score::Bd {
        alpha: BdAlpha::Cell(0.5),
    };
    /// bnlearn's default BDeu, iss = 1.
    pub const BDEU: Score = Score::Bdeu { iss: 1.0 };

    /// bnlearn's name of the score type (`loglik`, `bic`, `aic`, `bde`, `bd`).
    pub fn type_name(&self) -> &'static str {
        match self {
            Score::LogLik => "loglik",
            Score::Bic => "bic",
            Score::Aic => "aic",
            Score::Bdeu { .. } => "bde",
            Score::Bd { .. } => "bd",
        }
    }

    /// Check the hyperparameters. Errors: an iss or α that is not finite and > 0, an empty
    /// per-category α.
    pub fn check(&self) -> Result<(), EvalError> {
        let bad = |a: f64| !(a > 0.0 && a.is_finite());
        let invalid = match self {
            Score::Bdeu { iss } => bad(*iss),
            Score::Bd {
                alpha: BdAlpha::Cell(a),
            } => bad(*a),
            Score::Bd {
                alpha: BdAlpha::Categories(a),
            } => a.is_empty() || a.iter().any(|&x| bad(x)),
            Score::LogLik | Score::Bic | Score::Aic => false,
        };
        if invalid {
            return Err(EvalError::Invalid(format!(
                "score {self:?}: every hyperparameter must be > 0 and finite"
            )));
        }
        Ok(())
    }
}

/// loglik of one node's table: Σ n_jx log(n_jx / n_j) (empty cells contribute 0). Nats, ≤ 0.
pub fn log_likelihood(table: &ParentTable) -> f64 {
    let mut s = 0.0;
    for (c, &total) in table.totals.iter().enumerate() {
        let ln_total = (total as f64).ln();
        for &n in table.row(c) {
            if n > 0 {
                s += n as f64 * ((n as f64).ln() - ln_total);
            }
        }
    }
    s
}

/// BDeu of one node's table with r child categories and q parent configurations (every
/// configuration counts in q; only the occupied ones are visited, the others contribute 0).
pub fn log_bdeu(table: &ParentTable, iss: f64, levels: LevelCounts) -> f64 {
    let a_row = iss / levels.q;
    log_bd_uniform(table, a_row, a_row / levels.r as f64)
}

/// BD with one Dirichlet parameter per child category, `alpha` of length k: eq 7 at t = α
/// ([`crate::hidden2025::equations::log_marginal_likelihood`]). Errors: a length other than k, an
/// α that is not finite and > 0.
pub fn log_bd_categories(table: &ParentTable, alpha: &[f64]) -> Result<f64, EvalError> {
    if alpha.len() != table.k {
        return Err(EvalError::Invalid(format!(
            "BD: {} Dirichlet parameters for {} categories",
            alpha.len(),
            table.k
        )));
    }
    if let Some(a) = alpha.iter().find(|a| !(**a > 0.0 && a.is_finite())) {
        return Err(EvalError::Invalid(format!(
            "BD: Dirichlet parameter {a} is not > 0"
        )));
    }
    Ok(log_marginal_likelihood(table, alpha))
}

/// BD with one α per cell and r counted categories: Σα = rα (absent categories' cells contribute 0).
pub fn log_bd(table: &ParentTable, alpha: f64, r: usize) -> f64 {
    log_bd_uniform(table, alpha * r as f64, alpha)
}

/// BD with the same α (`a_cell`) in every cell and Σα = `a_row` per configuration, over the
/// occupied configurations: Σ_j [lgamma(a_row) − lgamma(a_row + n_j)] + Σ_{jx: n_jx > 0}
/// [lgamma(a_cell + n_jx) − lgamma(a_cell)] (BDeu and [`log_bd`]).
fn log_bd_uniform(table: &ParentTable, a_row: f64, a_cell: f64) -> f64 {
    let (lg_row, lg_cell) = (ln_gamma(a_row), ln_gamma(a_cell));
    let mut s = 0.0;
    for (c, &total) in table.totals.iter().enumerate() {
        s += lg_row - ln_gamma(a_row + total as f64);
        for &n in table.row(c) {
            if n > 0 {
                s += ln_gamma(a_cell + n as f64) - lg_cell;
            }
        }
    }
    s
}

/// The score of one node's table, with `n` rows and level counts (r, q) (see [`super::Levels`]).
/// Errors: a bad hyperparameter, a per-category α whose length is not the table's k.
pub fn table_score(
    table: &ParentTable,
    score: &Score,
    levels: LevelCounts,
    n: usize,
) -> Result<f64, EvalError> {
    score.check()?;
    let n_params = (levels.r as f64 - 1.0) * levels.q;
    Ok(match score {
        Score::LogLik => log_likelihood(table),
        Score::Bic => log_likelihood(table) - 0.5 * (n as f64).ln() * n_params,
        Score::Aic => log_likelihood(table) - n_params,
        Score::Bdeu { iss } => log_bdeu(table, *iss, levels),
        Score::Bd {
            alpha: BdAlpha::Cell(alpha),
        } => log_bd(table, *alpha, levels.r),
        Score::Bd {
            alpha: BdAlpha::Categories(alpha),
        } => log_bd_categories(table, alpha)?,
    })
}

/// The score of node `child` with parent set `parents` (indices into `data`'s columns) under the
/// level rule `rule`. Nats, higher is better. Errors: unknown nodes, a self-loop, a bad
/// hyperparameter, a per-category α whose length is not the child's k_j (naming the node).
pub fn node_score(
    data: &DiscreteData,
    child: usize,
    parents: &[usize],
    score: &Score,
    rule: Levels,
) -> Result<f64, EvalError> {
    let levels = level_counts(data, child, parents, rule)?;
    if let Score::Bd {
        alpha: BdAlpha::Categories(alpha),
    } = score
        && alpha.len() != data.k(child)
    {
        return Err(EvalError::Invalid(format!(
            "node {} has {} categories ({}), but {} Dirichlet parameters were given",
            data.names[child],
            data.k(child),
            data.levels[child].join(", "),
            alpha.len()
        )));
    }
    table_score(&data.table(child, parents), score, levels, data.n())
}

/// Check a DAG given as one parent list per node (`parents.len()` = p, indices into the columns).
/// Errors, naming the nodes: a list count other than p, an unknown node, a self-loop, a repeated
/// arc, a directed cycle (as `A -> B -> A`).
pub fn check_dag(data: &DiscreteData, parents: &[Vec<usize>]) -> Result<(), EvalError> {
    let p = data.p();
    if parents.len() != p {
        return Err(EvalError::Invalid(format!(
            "a DAG on {p} nodes needs {p} parent lists, not {}",
            parents.len()
        )));
    }
    for (child, pa) in parents.iter().enumerate() {
        check_nodes(data, child, pa)?;
        for (i, &a) in pa.iter().enumerate() {
            if pa[..i].contains(&a) {
                return Err(EvalError::RepeatedArc {
                    from: data.names[a].clone(),
                    to: data.names[child].clone(),
                });
            }
        }
    }
    if let Some(cycle) = find_cycle(parents) {
        let mut names: Vec<&str> = cycle.iter().map(|&j| data.names[j].as_str()).collect();
        names.push(names[0]);
        return Err(EvalError::Cycle(names.join(" -> ")));
    }
    Ok(())
}

/// A directed cycle of the graph with arcs parent → child, as the nodes along it in arc order, or
/// None when the graph is acyclic. Indices must be < `parents.len()`.
pub fn find_cycle(parents: &[Vec<usize>]) -> Option<Vec<usize>> {
    // Depth-first search along child → parent arcs; a back edge closes a cycle.
    let p = parents.len();
    let mut state = vec![0u8; p]; // 0 new, 1 on the stack, 2 done
    let mut stack: Vec<(usize, usize)> = Vec::new();
    for start in 0..p {
        if state[start] != 0 {
            continue;
        }
        stack.push((start, 0));
        state[start] = 1;
        while let Some(&mut (v, ref mut next)) = stack.last_mut() {
            if let Some(&u) = parents[v].get(*next) {
                *next += 1;
                if state[u] == 1 {
                    // Cycle along child → parent arcs: u … v on the stack, then back to u.
                    let from = stack.iter().position(|&(w, _)| w == u).unwrap_or(0);
                    let mut cyc: Vec<usize> = stack[from..].iter().map(|&(w, _)| w).collect();
                    cyc.reverse(); // parent → child order
                    // Start at the smallest index, so the message does not depend on the search.
                    let first = (0..cyc.len()).min_by_key(|&i| cyc[i]).unwrap_or(0);
                    cyc.rotate_left(first);
                    return Some(cyc);
                }
                if state[u] == 0 {
                    state[u] = 1;
                    stack.push((u, 0));
                }
            } else {
                state[v] = 2;
                stack.pop();
            }
        }
    }
    None
}

/// The score of a DAG, the sum of its nodes' [`node_score`]s; `parents[j]` lists node j's parents.
/// Errors: as [`check_dag`], and a bad hyperparameter.
pub fn dag_score(
    data: &DiscreteData,
    parents: &[Vec<usize>],
    score: &Score,
    rule: Levels,
) -> Result<f64, EvalError> {
    check_dag(data, parents)?;
    let mut s = 0.0;
    for (child, pa) in parents.iter().enumerate() {
        s += node_score(data, child, pa, score, rule)?;
    }
    Ok(s)
}

/// Parent lists from names: `arcs` are (parent, child) pairs. Errors: an unknown name.
pub fn parents_from_arcs(
    data: &DiscreteData,
    arcs: &[(&str, &str)],
) -> Result<Vec<Vec<usize>>, EvalError> {
    let mut parents = vec![Vec::new(); data.p()];
    for &(from, to) in arcs {
        let f = data
            .index(from)
            .ok_or_else(|| EvalError::UnknownNode(from.to_string()))?;
        let t = data
            .index(to)
            .ok_or_else(|| EvalError::UnknownNode(to.to_string()))?;
        parents[t].push(f);
    }
    Ok(parents)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// X (2 levels), Y (3 levels), n = 8.
    fn data() -> DiscreteData {
        DiscreteData::labelled(
            &[("X", &["0", "1"]), ("Y", &["a", "b", "c"])],
            vec![vec![0, 0, 0, 1, 1, 1, 1, 0], vec![0, 1, 0, 2, 2, 2, 1, 0]],
        )
        .expect("valid")
    }

    #[test]
    fn scores_by_hand() {
        let d = data();
        // Y | X: X=0 → Y = a,b,a,a (3,1,0), X=1 → Y = c,c,c,b (0,1,3).
        let ll = 2.0 * (3.0 * (0.75f64).ln() + (0.25f64).ln());
        let got = node_score(&d, 1, &[0], &Score::LogLik, Levels::Declared).expect("score");
        assert!((got - ll).abs() < 1e-12);
        let bic = node_score(&d, 1, &[0], &Score::Bic, Levels::Declared).expect("score");
        assert!((bic - (ll - 0.5 * 8f64.ln() * 4.0)).abs() < 1e-12);
        let aic = node_score(&d, 1, &[0], &Score::Aic, Levels::Declared).expect("score");
        assert!((aic - (ll - 4.0)).abs() < 1e-12);
        // BDeu iss = 1: a_row = 1/2, a_cell = 1/6.
        let (ar, ac) = (0.5, 1.0 / 6.0);
        let row = |c: [f64; 3]| {
            ln_gamma(ar) - ln_gamma(ar + c.iter().sum::<f64>())
                + c.iter()
                    .filter(|&&x| x > 0.0)
                    .map(|&x| ln_gamma(ac + x) - ln_gamma(ac))
                    .sum::<f64>()
        };
        let bde = row([3.0, 1.0, 0.0]) + row([0.0, 1.0, 3.0]);
        let got = node_score(&d, 1, &[0], &Score::BDEU, Levels::Declared).expect("score");
        assert!((got - bde).abs() < 1e-12);
        // K2 = BD per category with α = (1, 1, 1).
        let k2 = node_score(&d, 1, &[0], &Score::K2, Levels::Declared).expect("score");
        let t = d.table(1, &[0]);
        assert!((k2 - log_bd_categories(&t, &[1.0; 3]).expect("bd")).abs() < 1e-12);
        // K2 by hand: lgamma(3) − lgamma(7) + lgamma(4) + lgamma(2), twice.
        let k2_hand = 2.0 * (ln_gamma(3.0) - ln_gamma(7.0) + ln_gamma(4.0) + ln_gamma(2.0));
        assert!((k2 - k2_hand).abs() < 1e-12);
        assert!(node_score(&d, 1, &[0], &Score::Bdeu { iss: -1.0 }, Levels::Declared).is_err());
    }

    #[test]
    fn bd_per_category_is_eq7_at_alpha() {
        let d = data();
        let t = d.table(1, &[0]);
        // Y | X: (3, 1, 0) and (0, 1, 3); α = (0.5, 2, 1), Σα = 3.5, by hand.
        let a = [0.5, 2.0, 1.0];
        let row = |c: [f64; 3]| {
            ln_gamma(3.5) - ln_gamma(3.5 + c.iter().sum::<f64>())
                + c.iter()
                    .zip(a)
                    .map(|(&n, a)| ln_gamma(a + n) - ln_gamma(a))
                    .sum::<f64>()
        };
        let hand = row([3.0, 1.0, 0.0]) + row([0.0, 1.0, 3.0]);
        let bd = Score::Bd {
            alpha: BdAlpha::Categories(a.to_vec()),
        };
        let got = node_score(&d, 1, &[0], &bd, Levels::Declared).expect("score");
        assert!((got - hand).abs() < 1e-12, "{got} vs {hand}");
        assert_eq!(log_bd_categories(&t, &a), Ok(got));
        assert!(log_bd_categories(&t, &a[..2]).is_err());
        // One α per category, all equal, is the per-cell BD (K2, BDJ).
        for (c, v) in [(&Score::K2, 1.0), (&Score::BDJ, 0.5)] {
            let cats = Score::Bd {
                alpha: BdAlpha::Categories(vec![v; 3]),
            };
            let a = node_score(&d, 1, &[0], c, Levels::Declared).expect("cell");
            let b = node_score(&d, 1, &[0], &cats, Levels::Declared).expect("categories");
            assert!((a - b).abs() < 1e-12);
        }
        // The wrong number of α names the node and its categories.
        let two = Score::Bd {
            alpha: BdAlpha::Categories(vec![1.0, 1.0]),
        };
        let e = node_score(&d, 1, &[0], &two, Levels::Declared).expect_err("length");
        assert_eq!(
            e.to_string(),
            "node Y has 3 categories (a, b, c), but 2 Dirichlet parameters were given"
        );
        assert!(node_score(&d, 0, &[], &two, Levels::Declared).is_ok());
        let dag = dag_score(&d, &[vec![], vec![0]], &two, Levels::Declared);
        assert!(dag.expect_err("Y has 3").to_string().starts_with("node Y "));
        // Bad α values.
        for bad in [vec![], vec![1.0, 0.0, 1.0], vec![1.0, f64::NAN, 1.0]] {
            let s = Score::Bd {
                alpha: BdAlpha::Categories(bad),
            };
            assert!(s.check().is_err());
        }
        assert!(
            Score::Bd {
                alpha: BdAlpha::Cell(-0.5)
            }
            .check()
            .is_err()
        );
        assert_eq!(Score::K2.type_name(), "bd");
        assert_eq!(Score::BDEU.type_name(), "bde");
    }

    #[test]
    fn dag_errors_name_the_problem() {
        let d = data();
        let ok = dag_score(&d, &[vec![], vec![0]], &Score::Bic, Levels::Declared).expect("dag");
        let sum = node_score(&d, 0, &[], &Score::Bic, Levels::Declared).expect("node")
            + node_score(&d, 1, &[0], &Score::Bic, Levels::Declared).expect("node");
        assert!((ok - sum).abs() < 1e-12);
        let err = |pa: Vec<Vec<usize>>| check_dag(&d, &pa).expect_err("bad dag").to_string();
        assert_eq!(err(vec![vec![1], vec![0]]), "directed cycle X -> Y -> X");
        assert_eq!(err(vec![vec![0], vec![]]), "self-loop on node X");
        assert_eq!(err(vec![vec![], vec![0, 0]]), "repeated arc X -> Y");
        assert!(err(vec![vec![5], vec![]]).starts_with("unknown node #5"));
        assert!(parents_from_arcs(&d, &[("X", "Z")]).is_err());
    }

    #[test]
    fn find_cycle_on_three_nodes() {
        // 0 → 1 → 2 → 0.
        let cyc = find_cycle(&[vec![2], vec![0], vec![1]]).expect("cycle");
        assert_eq!(cyc.len(), 3);
        for w in 0..3 {
            let (a, b) = (cyc[w], cyc[(w + 1) % 3]);
            assert!([vec![2], vec![0], vec![1]][b].contains(&a));
        }
        assert_eq!(find_cycle(&[vec![], vec![0], vec![0, 1]]), None);
    }
}

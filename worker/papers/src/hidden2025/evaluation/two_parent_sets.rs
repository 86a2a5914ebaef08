//! Tables 7 and 8 of `002_d97ecc788b964f97.txt` (supplement E, "Two parent sets"), polars-free.
//!
//! Three variables: x1 on 5 levels, x2 on 3, x3 binary; the two candidate parent sets of x3 are
//! G1: Pa(x3) = {x2} and G2: Pa(x3) = {x1, x2}, prior 1/2 each. Per dataset the table needs
//!
//! - P̂(G_true | n), HiDDeN's (Algorithm 3) and the exact method's, read from the chains'
//!   `parent_sets` summaries by [`set_probability`]: the Algorithm-3 sampler writes the visit
//!   frequencies (column `frequency`, post-burn-in draws of one chain), the exact sampler the
//!   posterior probabilities (column `probability`). Every chain of a cell runs the same number of
//!   iterations, so the equal-weight mean of the chains' frequencies is the frequency over all
//!   chains' draws (pooled, as eq 14 pools its draws);
//! - Δscore = score(G_true) − score(G_false) for BIC, AIC and BDeu (iss 1), bnlearn's
//!   definitions ([`super::scores`]), by [`delta_scores`]: only x3's term differs between the
//!   two graphs (x1 and x2 are roots in both), so Δ is the difference of x3's node scores;
//! - Table 8 (G_true = G2): the proportion of datasets choosing G2, i.e. P̂(G2 | n) > 1/2 for
//!   HiDDeN and the exact method and ΔBDE > 0 for BDeu ([`proportion_above`]; a tie is not a
//!   choice of G2, as the "picks G2 only when score(G2) − score(G1) > 0").

use super::scores::{Score, node_score};
use super::{EvalError, Levels};
use crate::data::Matrix;
use crate::hidden2025::datasets::DiscreteData;

/// The candidate parent sets' label in a `parent_sets` summary: the parents' names joined by `;`
/// (`(empty)` for none), as `samplers::parent_set_label` writes them. The order of the names is
/// the sampler's; [`set_probability`] compares them as sets.
fn label_set(label: &str) -> Vec<&str> {
    if label == "(empty)" {
        return Vec::new();
    }
    let mut v: Vec<&str> = label.split(';').collect();
    v.sort_unstable();
    v
}

/// The probability column of one chain's `parent_sets` summary: `frequency` (Algorithm 3) or
/// `probability` (the exact method). Errors: neither column.
fn probability_column(m: &Matrix) -> Result<usize, EvalError> {
    m.col_names
        .iter()
        .position(|c| c == "frequency")
        .or_else(|| m.col_names.iter().position(|c| c == "probability"))
        .ok_or_else(|| {
            EvalError::Invalid(format!(
                "summary {} has neither a `frequency` nor a `probability` column (columns: {})",
                m.name,
                m.col_names.join(", ")
            ))
        })
}

/// P̂(Pa = `target` | n) pooled over chains: the mean over `summaries` (one `parent_sets` matrix
/// per chain) of the target set's frequency or probability. Algorithm 3 lists every candidate
/// set; a sampler that lists only the visited sets (Algorithm 2's) may omit the target, which
/// then counts 0. Errors: no summaries, a matrix without a probability
/// column or with mismatched row names, a value outside [0, 1].
pub fn set_probability(summaries: &[&Matrix], target: &[&str]) -> Result<f64, EvalError> {
    if summaries.is_empty() {
        return Err(EvalError::Invalid(
            "P(parent set | n) from no chain summaries".into(),
        ));
    }
    let mut want: Vec<&str> = target.to_vec();
    want.sort_unstable();
    let mut total = 0.0;
    for m in summaries {
        let col = probability_column(m)?;
        if m.row_names.len() != m.rows || m.values.len() != m.rows * m.cols {
            return Err(EvalError::Invalid(format!(
                "summary {} has {} row names for {} rows",
                m.name,
                m.row_names.len(),
                m.rows
            )));
        }
        let mut p = 0.0;
        for (r, label) in m.row_names.iter().enumerate() {
            if label_set(label) == want {
                p += m.get(r, col);
            }
        }
        if !(0.0..=1.0 + 1e-9).contains(&p) {
            return Err(EvalError::Invalid(format!(
                "summary {}: P({}) = {p} is not a probability",
                m.name,
                target.join(";")
            )));
        }
        total += p;
    }
    Ok(total / summaries.len() as f64)
}

/// Δscore = score(child | `true_parents`) − score(child | `false_parents`) for BIC, AIC and BDeu.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DeltaScores {
    /// ΔBIC.
    pub bic: f64,
    /// ΔAIC.
    pub aic: f64,
    /// ΔBDeu with the given imaginary sample size (Table 7's "BDE", iss = 1).
    pub bde: f64,
}

/// Table 7's Δscores for one dataset: score(G_true) − score(G_false), which for two graphs that
/// differ only in the parents of `child` is the difference of the child's node scores. `rule`
/// is the level rule of r and q (`present` for the synthetic data, as the authors' R factors).
/// Errors: unknown nodes, a self-loop, iss ≤ 0.
pub fn delta_scores(
    data: &DiscreteData,
    child: usize,
    true_parents: &[usize],
    false_parents: &[usize],
    iss: f64,
    rule: Levels,
) -> Result<DeltaScores, EvalError> {
    let delta = |score: &Score| -> Result<f64, EvalError> {
        Ok(node_score(data, child, true_parents, score, rule)?
            - node_score(data, child, false_parents, score, rule)?)
    };
    Ok(DeltaScores {
        bic: delta(&Score::Bic)?,
        aic: delta(&Score::Aic)?,
        bde: delta(&Score::Bdeu { iss })?,
    })
}

/// The proportion of `values` strictly above `threshold` (Table 8: P̂(G2 | n) > 1/2, ΔBDE > 0);
/// NaN for no values.
pub fn proportion_above(values: &[f64], threshold: f64) -> f64 {
    if values.is_empty() {
        return f64::NAN;
    }
    values.iter().filter(|&&v| v > threshold).count() as f64 / values.len() as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    fn summary(cols: &[&str], rows: &[(&str, [f64; 2])]) -> Matrix {
        let mut m = Matrix::new(
            "parent_sets",
            rows.len(),
            2,
            rows.iter().flat_map(|(_, v)| *v).collect(),
        );
        m.row_names = rows.iter().map(|(l, _)| l.to_string()).collect();
        m.col_names = cols.iter().map(|c| c.to_string()).collect();
        m
    }

    #[test]
    fn hidden2025_set_probability_pools_chains_and_matches_sets() {
        // Algorithm 3 (count, frequency) in candidate order; the exact method sorted by probability
        // with the parents possibly in another order.
        let a = summary(
            &["count", "frequency"],
            &[("x2", [30.0, 0.3]), ("x1;x2", [70.0, 0.7])],
        );
        let b = summary(
            &["count", "frequency"],
            &[("x2", [90.0, 0.9]), ("x1;x2", [10.0, 0.1])],
        );
        let p = set_probability(&[&a, &b], &["x1", "x2"]).expect("pools");
        assert!((p - 0.4).abs() < 1e-12);
        let e = summary(
            &["log_evidence", "probability"],
            &[("x2;x1", [-60.0, 0.8]), ("x2", [-61.4, 0.2])],
        );
        assert!((set_probability(&[&e], &["x2", "x1"]).expect("exact") - 0.8).abs() < 1e-12);
        assert!((set_probability(&[&e], &["x2"]).expect("exact") - 0.2).abs() < 1e-12);
        // a set the summary does not list counts 0; no summaries or no column are refused
        assert_eq!(set_probability(&[&e], &[]).expect("empty set"), 0.0);
        assert!(set_probability(&[], &["x2"]).is_err());
        let bad = summary(&["a", "b"], &[("x2", [1.0, 1.0])]);
        assert!(set_probability(&[&bad], &["x2"]).is_err());
    }

    #[test]
    fn hidden2025_delta_scores_are_node_score_differences_and_proportions_are_strict() {
        // x3 depends on x1 only through the (x1, x2) cell: a small dataset by hand.
        let x1 = vec![0, 1, 2, 3, 4, 0, 1, 2, 3, 4, 0, 1];
        let x2 = vec![0, 0, 1, 1, 2, 2, 0, 1, 2, 0, 1, 2];
        let x3 = vec![1, 0, 1, 0, 1, 1, 0, 1, 0, 0, 1, 1];
        let names = ["x1", "x2", "x3"].map(String::from).to_vec();
        let lv = |k: usize| (0..k).map(|i| i.to_string()).collect::<Vec<_>>();
        let data =
            DiscreteData::new(names, vec![lv(5), lv(3), lv(2)], vec![x1, x2, x3]).expect("data");
        let d = delta_scores(&data, 2, &[0, 1], &[1], 1.0, Levels::Present).expect("scores");
        let s = |pa: &[usize], sc| node_score(&data, 2, pa, sc, Levels::Present).expect("score");
        assert!((d.bic - (s(&[0, 1], &Score::Bic) - s(&[1], &Score::Bic))).abs() < 1e-12);
        assert!((d.aic - (s(&[0, 1], &Score::Aic) - s(&[1], &Score::Aic))).abs() < 1e-12);
        assert!((d.bde - (s(&[0, 1], &Score::BDEU) - s(&[1], &Score::BDEU))).abs() < 1e-12);
        // BIC − AIC = −(log n / 2 − 1) × the extra parameters (r − 1)(15 − 3) = 12
        let n = 12f64;
        assert!(((d.bic - d.aic) - (-(0.5 * n.ln() - 1.0) * 12.0)).abs() < 1e-9);
        // antisymmetric
        let r = delta_scores(&data, 2, &[1], &[0, 1], 1.0, Levels::Present).expect("scores");
        assert!((r.bde + d.bde).abs() < 1e-12);
        assert_eq!(proportion_above(&[0.5, 0.6, 0.4, 0.9], 0.5), 0.5);
        assert!(proportion_above(&[], 0.5).is_nan());
    }
}

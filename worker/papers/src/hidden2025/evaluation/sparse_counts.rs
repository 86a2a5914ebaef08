//! Table 1 of `002_d97ecc788b964f97.txt` (§5.1, supplement C.1, "Parameter learning for sparse
//! counts"), polars-free: the estimates of q_h = P(child = 1 | parent = h) per parent level and
//! their RMSE to the truth.
//!
//! - [`success_probabilities`] reads the "success" column (the child's category labelled `1`,
//!   [`SUCCESS`]) of a matrix whose rows are parent configurations: the truth `cpt:<child>` of a
//!   synthetic dataset (every declared level) or a chain's `predictive` summary (eq 14; the
//!   occupied configurations only).
//! - [`pooled_predictive`] is eq 14 over all chains' draws: the average of the chains' posterior
//!   means of eq 6 (each chain's `predictive` summary). Every chain of a cell runs the same number
//!   of iterations, so the equal-weight average of the chain means is the mean over all draws.
//! - [`baselines`]: MLE (eq 3), Dirichlet-multinomial (`bn.fit(method = "bayes", iss)`) and the
//!   logit MLE (IRLS, [`super::logistic`]) at the occupied parent levels.
//! - [`rmse_by_label`]: the RMSE over the parent levels, matching the estimate to the truth by
//!   configuration label (`x=3`), since with `levels: present` a level absent from the data is
//!   absent from the data's coding, and the codes no longer line up with the truth's.
//!
//! **Which levels count.** The RMSE is over the parent levels *present in the data*, the levels
//! every estimator sees. The authors' script (`r/parameter_learning_simulation.R`) builds its
//! counts with R's `table()`/`factor()` from the data, i.e. over the present levels, and divides
//! by K_Pa; the two agree whenever every level is observed. With n = 100 and K_Pa ≤ 10 a level is
//! missing with probability ≤ 10 × 0.9¹⁰⁰ ≈ 2.7·10⁻⁴ per dataset, so the choice almost never
//! matters; [`LevelRmse::absent`] counts the truth's levels left out so the report can say so.

use super::logistic::{IrlsConfig, logistic_irls};
use super::{EvalError, Levels, checked_table, dirichlet_multinomial, mle};
use crate::data::Matrix;
use crate::hidden2025::datasets::DiscreteData;

/// The label of the child's "success" category in Table 1 (the paper's P(child = 1 | level); the
/// generator labels the binary child `0`, `1`).
pub const SUCCESS: &str = "1";

/// P(child = success | configuration), one value per configuration, keyed by the configuration's
/// label (`P1=s1;P2=s2`, as `DiscreteData::config_label` and the truth matrices write it).
#[derive(Debug, Clone, PartialEq)]
pub struct LevelProbabilities {
    /// Configuration labels, in the source's order.
    pub labels: Vec<String>,
    /// P(child = success | configuration), same length as `labels`.
    pub probabilities: Vec<f64>,
}

impl LevelProbabilities {
    /// The probability of configuration `label`, if present.
    pub fn get(&self, label: &str) -> Option<f64> {
        self.labels
            .iter()
            .position(|l| l == label)
            .map(|i| self.probabilities[i])
    }
}

/// The RMSE of one estimate, with the number of levels it covers and the truth's levels it
/// leaves out (absent from the data).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LevelRmse {
    /// sqrt(mean over the estimate's levels of (estimate − truth)²).
    pub rmse: f64,
    /// Levels compared (those present in the data).
    pub levels: usize,
    /// Levels of the truth with no estimate (absent from the data).
    pub absent: usize,
}

/// sqrt(Σ (e_i − t_i)² / m) over m paired values. Errors: different lengths, no values, a value
/// that is not finite.
pub fn rmse(estimate: &[f64], truth: &[f64]) -> Result<f64, EvalError> {
    if estimate.len() != truth.len() {
        return Err(EvalError::Invalid(format!(
            "RMSE of {} estimates against {} true values",
            estimate.len(),
            truth.len()
        )));
    }
    if estimate.is_empty() {
        return Err(EvalError::Invalid("RMSE over no values".into()));
    }
    if let Some(x) = estimate.iter().chain(truth).find(|x| !x.is_finite()) {
        return Err(EvalError::Invalid(format!(
            "RMSE of a non-finite value {x}"
        )));
    }
    let ss: f64 = estimate
        .iter()
        .zip(truth)
        .map(|(e, t)| (e - t) * (e - t))
        .sum();
    Ok((ss / estimate.len() as f64).sqrt())
}

/// The RMSE of `estimate` to `truth` over the estimate's levels, matched by label (see the
/// module docs for why only present levels count). Errors: an estimate level the truth does not
/// have, a repeated estimate level, no levels, a non-finite value.
pub fn rmse_by_label(
    estimate: &LevelProbabilities,
    truth: &LevelProbabilities,
) -> Result<LevelRmse, EvalError> {
    let mut paired = Vec::with_capacity(estimate.labels.len());
    for (i, label) in estimate.labels.iter().enumerate() {
        if estimate.labels[..i].contains(label) {
            return Err(EvalError::Invalid(format!(
                "parent level {label:?} is estimated twice"
            )));
        }
        let t = truth.get(label).ok_or_else(|| {
            EvalError::Invalid(format!(
                "parent level {label:?} is not a level of the truth ({})",
                truth.labels.join(", ")
            ))
        })?;
        paired.push(t);
    }
    let value = rmse(&estimate.probabilities, &paired)?;
    Ok(LevelRmse {
        rmse: value,
        levels: paired.len(),
        absent: truth.labels.len().saturating_sub(paired.len()),
    })
}

/// Column `success` of `m` (rows: configurations named by `row_names`; columns: the child's
/// categories named by `col_names`). Errors: no such column, missing row names.
pub fn success_probabilities(m: &Matrix, success: &str) -> Result<LevelProbabilities, EvalError> {
    let col = m
        .col_names
        .iter()
        .position(|c| c == success)
        .ok_or_else(|| {
            EvalError::Invalid(format!(
                "matrix {} has no category {success:?} (categories: {})",
                m.name,
                m.col_names.join(", ")
            ))
        })?;
    if m.row_names.len() != m.rows || m.values.len() != m.rows * m.cols {
        return Err(EvalError::Invalid(format!(
            "matrix {} has {} row names for {} rows, or {} values for {} × {}",
            m.name,
            m.row_names.len(),
            m.rows,
            m.values.len(),
            m.rows,
            m.cols
        )));
    }
    Ok(LevelProbabilities {
        labels: m.row_names.clone(),
        probabilities: (0..m.rows).map(|r| m.get(r, col)).collect(),
    })
}

/// Eq 14 over all chains' draws: the element-wise mean of the chains' `predictive` summaries
/// (each a chain's posterior mean of eq 6; equal weights since the chains have equal lengths).
/// The result keeps the first chain's name and labels. Errors: no chains, chains whose shapes,
/// row names or column names differ.
pub fn pooled_predictive(chains: &[&Matrix]) -> Result<Matrix, EvalError> {
    let first = chains
        .first()
        .ok_or_else(|| EvalError::Invalid("no chain has a predictive summary".into()))?;
    let mut sum = vec![0.0; first.values.len()];
    for (i, m) in chains.iter().enumerate() {
        if m.rows != first.rows
            || m.cols != first.cols
            || m.values.len() != sum.len()
            || m.row_names != first.row_names
            || m.col_names != first.col_names
        {
            return Err(EvalError::Invalid(format!(
                "chain {i}'s {} ({} × {}, rows {}) does not match chain 0's ({} × {}, rows {})",
                m.name,
                m.rows,
                m.cols,
                m.row_names.join(","),
                first.rows,
                first.cols,
                first.row_names.join(",")
            )));
        }
        for (s, v) in sum.iter_mut().zip(&m.values) {
            *s += v;
        }
    }
    let n = chains.len() as f64;
    let mut out = Matrix::new(
        first.name.clone(),
        first.rows,
        first.cols,
        sum.into_iter().map(|s| s / n).collect(),
    );
    out.row_names = first.row_names.clone();
    out.col_names = first.col_names.clone();
    Ok(out)
}

/// Table 1's non-HiDDeN estimates of P(child = success | level) at the occupied configurations of
/// `parents` (labels as `DiscreteData::config_label`).
#[derive(Debug, Clone, PartialEq)]
pub struct Baselines {
    /// MLE, eq 3: n(c, success) / n(c).
    pub mle: LevelProbabilities,
    /// Dirichlet-multinomial posterior mean with `iss` under the level rule.
    pub dm: LevelProbabilities,
    /// Logistic regression on the parent configuration as a factor, by IRLS (saturated: equals
    /// the MLE up to IRLS's convergence; at separation within about 1e-9 of 0 or 1).
    pub logit_mle: LevelProbabilities,
}

/// The baselines of Table 1 on one dataset (see [`Baselines`]). `rule` sets the r and q of the
/// Dirichlet-multinomial (`levels: present`, as the authors' `bn.fit` on R factors). Errors:
/// unknown nodes, a self-loop, a child without category `success` or with k ≠ 2 (logit), `iss`
/// ≤ 0, a failed IRLS fit.
pub fn baselines(
    data: &DiscreteData,
    child: usize,
    parents: &[usize],
    success: &str,
    iss: f64,
    rule: Levels,
) -> Result<Baselines, EvalError> {
    let table = checked_table(data, child, parents)?;
    let s = data.levels[child]
        .iter()
        .position(|l| l == success)
        .ok_or_else(|| {
            EvalError::Invalid(format!(
                "{} has no category {success:?} in the data (categories: {})",
                data.names[child],
                data.levels[child].join(", ")
            ))
        })?;
    let labels: Vec<String> = table
        .configs
        .iter()
        .map(|&c| data.config_label(parents, c))
        .collect();
    let m = mle(data, child, parents, rule)?;
    let d = dirichlet_multinomial(data, child, parents, iss, rule)?;
    let at = |cpt: &super::Cpt| -> Vec<f64> {
        table
            .configs
            .iter()
            .map(|&c| cpt.row(c as usize)[s])
            .collect()
    };
    let fit = logistic_irls(data, child, parents, IrlsConfig::default())?;
    // logistic_irls models P(category 1); flip it if the success is category 0.
    let logit: Vec<f64> = table
        .configs
        .iter()
        .map(|&c| {
            fit.probability(c)
                .map(|p| if s == 1 { p } else { 1.0 - p })
                .ok_or_else(|| {
                    EvalError::Invalid(format!(
                        "the logit fit has no coefficient for {}",
                        data.config_label(parents, c)
                    ))
                })
        })
        .collect::<Result<_, _>>()?;
    let level = |probabilities: Vec<f64>| LevelProbabilities {
        labels: labels.clone(),
        probabilities,
    };
    Ok(Baselines {
        mle: level(at(&m)),
        dm: level(at(&d)),
        logit_mle: level(logit),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lp(labels: &[&str], p: &[f64]) -> LevelProbabilities {
        LevelProbabilities {
            labels: labels.iter().map(|s| s.to_string()).collect(),
            probabilities: p.to_vec(),
        }
    }

    #[test]
    fn rmse_by_hand() {
        // errors 0.1, −0.2, 0.2 → sqrt((0.01 + 0.04 + 0.04) / 3) = sqrt(0.03)
        let r = rmse(&[0.4, 0.5, 0.9], &[0.3, 0.7, 0.7]).expect("rmse");
        assert!((r - 0.03f64.sqrt()).abs() < 1e-15);
        assert_eq!(rmse(&[0.5], &[0.5]), Ok(0.0));
        assert!(rmse(&[0.5], &[0.5, 0.5]).is_err());
        assert!(rmse(&[], &[]).is_err());
        assert!(rmse(&[f64::NAN], &[0.5]).is_err());
    }

    #[test]
    fn rmse_matches_levels_by_label_and_skips_absent_ones() {
        let third = 1.0 / 3.0;
        let truth = lp(
            &["x=1", "x=2", "x=3", "x=4"],
            &[third, 2.0 * third, third, 2.0 * third],
        );
        // Level x=3 absent from the data; the estimate lists its levels in another order.
        let est = lp(&["x=4", "x=1", "x=2"], &[0.5, third, 0.9]);
        let r = rmse_by_label(&est, &truth).expect("rmse");
        let want = (((0.5 - 2.0 * third).powi(2) + 0.0 + (0.9 - 2.0 * third).powi(2)) / 3.0).sqrt();
        assert!((r.rmse - want).abs() < 1e-15, "{} vs {want}", r.rmse);
        assert_eq!((r.levels, r.absent), (3, 1));
        // Matching by position instead would give a different (wrong) number.
        let by_position = rmse(&est.probabilities, &truth.probabilities[..3]).expect("rmse");
        assert!((by_position - want).abs() > 1e-3);
        assert!(rmse_by_label(&lp(&["x=5"], &[0.5]), &truth).is_err());
        assert!(rmse_by_label(&lp(&["x=1", "x=1"], &[0.5, 0.5]), &truth).is_err());
    }

    #[test]
    fn pooled_predictive_averages_chains_and_refuses_mismatches() {
        let mk = |v: Vec<f64>, rows: &[&str]| {
            let mut m = Matrix::new("predictive", rows.len(), 2, v);
            m.row_names = rows.iter().map(|s| s.to_string()).collect();
            m.col_names = vec!["0".into(), "1".into()];
            m
        };
        let a = mk(vec![0.2, 0.8, 0.6, 0.4], &["x=1", "x=2"]);
        let b = mk(vec![0.4, 0.6, 0.5, 0.5], &["x=1", "x=2"]);
        let p = pooled_predictive(&[&a, &b]).expect("pooled");
        assert_eq!(p.values, vec![0.30000000000000004, 0.7, 0.55, 0.45]);
        let s = success_probabilities(&p, SUCCESS).expect("success");
        assert_eq!(s.labels, ["x=1", "x=2"]);
        assert_eq!(s.probabilities, vec![0.7, 0.45]);
        let c = mk(vec![0.4, 0.6, 0.5, 0.5], &["x=1", "x=3"]);
        assert!(pooled_predictive(&[&a, &c]).is_err());
        assert!(pooled_predictive(&[]).is_err());
        assert!(success_probabilities(&p, "yes").is_err());
    }

    #[test]
    fn baselines_by_hand() {
        // x with levels 1, 2, 3 (level 2 absent after present-level coding is irrelevant here:
        // declared, never observed); y binary.
        let data = DiscreteData::labelled(
            &[("x", &["1", "2", "3"]), ("y", &["0", "1"])],
            vec![vec![0, 0, 0, 2, 2, 0], vec![1, 0, 1, 0, 0, 1]],
        )
        .expect("data");
        let b = baselines(&data, 1, &[0], SUCCESS, 1.0, Levels::Present).expect("baselines");
        assert_eq!(b.mle.labels, ["x=1", "x=3"]);
        assert_eq!(b.mle.probabilities, vec![0.75, 0.0]);
        // present: r = 2, q = 2 → (n + 1/4) / (n_c + 1/2)
        assert!((b.dm.probabilities[0] - 3.25 / 4.5).abs() < 1e-15);
        assert!((b.dm.probabilities[1] - 0.25 / 2.5).abs() < 1e-15);
        assert!((b.logit_mle.probabilities[0] - 0.75).abs() < 1e-6);
        assert!(b.logit_mle.probabilities[1] < 1e-6);
        // The truth over all three declared levels: the RMSE covers the two present ones.
        let truth = lp(&["x=1", "x=2", "x=3"], &[0.5, 0.5, 0.25]);
        let r = rmse_by_label(&b.mle, &truth).expect("rmse");
        assert!((r.rmse - ((0.0625 + 0.0625) / 2.0f64).sqrt()).abs() < 1e-15);
        assert_eq!(r.absent, 1);
        assert!(baselines(&data, 1, &[0], "yes", 1.0, Levels::Present).is_err());
    }
}

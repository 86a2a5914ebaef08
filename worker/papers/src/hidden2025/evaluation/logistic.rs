//! Logistic regression with the parent configuration as one factor, fitted by iteratively
//! reweighted least squares as R's `glm(family = binomial)` does: Table 1's "logit MLE" (paper
//! `002_d97ecc788b964f97.txt`, §5.1). With one factor term
//! mgcv's `gam` is the same fit, so this is also Table 1's "logit GAM".
//!
//! The model is saturated (one coefficient per occupied configuration: an intercept and treatment
//! contrasts), so its fitted probabilities equal the MLE n_{x=1}/n_Pa. Rows are grouped by
//! configuration (a binomial with n_Pa trials), which gives the same IRLS iterates as R's
//! one-row-per-observation fit.
//!
//! **Separation.** When a configuration has only 0s or only 1s the MLE is on the boundary: the
//! coefficients diverge, the deviance falls geometrically and the fitted values go to 0 or 1. As
//! in R, the iterations stop when the relative change of the deviance is below `epsilon` (or after
//! `max_iter`), leaving fitted values within about 1e-9 of 0 or 1 (the deviance it still holds
//! is then below about 1e-8), and the fit reports `separation`.

use super::{EvalError, checked_table};
use crate::hidden2025::datasets::DiscreteData;

/// IRLS settings, R's `glm.control()` defaults by [`Default`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct IrlsConfig {
    /// The most iterations (R: `maxit = 25`).
    pub max_iter: usize,
    /// Convergence when |dev − dev_old| / (|dev| + 0.1) < epsilon (R: `epsilon = 1e-8`).
    pub epsilon: f64,
}

impl Default for IrlsConfig {
    fn default() -> Self {
        IrlsConfig {
            max_iter: 25,
            epsilon: 1e-8,
        }
    }
}

/// A fitted logistic regression of a binary child on its parent configuration.
#[derive(Debug, Clone, PartialEq)]
pub struct LogisticFit {
    /// The occupied parent configurations (codes as in `ParentTable::configs`), ascending.
    pub configs: Vec<u64>,
    /// P(child = category 1 | configuration), one per entry of `configs`, in [0, 1].
    pub fitted: Vec<f64>,
    /// The coefficients on the logit scale: intercept (the first configuration), then one
    /// treatment contrast per further configuration.
    pub coefficients: Vec<f64>,
    /// The residual deviance, 2 × (saturated − fitted log likelihood), ≥ 0.
    pub deviance: f64,
    /// IRLS iterations run.
    pub iterations: usize,
    /// Whether the deviance criterion was met within `max_iter`.
    pub converged: bool,
    /// Whether some configuration has only 0s or only 1s, so the MLE is on the boundary and its
    /// coefficient diverges (R warns only once a fitted value is within 10ε of 0 or 1).
    pub separation: bool,
}

impl LogisticFit {
    /// The fitted P(child = 1 | configuration `code`), or None for a configuration with no data
    /// (R's glm has no coefficient for it).
    pub fn probability(&self, code: u64) -> Option<f64> {
        self.configs
            .binary_search(&code)
            .ok()
            .map(|i| self.fitted[i])
    }
}

fn logistic(eta: f64) -> f64 {
    if eta >= 0.0 {
        1.0 / (1.0 + (-eta).exp())
    } else {
        let e = eta.exp();
        e / (1.0 + e)
    }
}

/// Binomial deviance of `ones` successes out of `trials` at probabilities `mu`.
fn deviance(ones: &[f64], trials: &[f64], mu: &[f64]) -> f64 {
    let term = |y: f64, m: f64| if y > 0.0 { y * (y / m).ln() } else { 0.0 };
    2.0 * ones
        .iter()
        .zip(trials)
        .zip(mu)
        .map(|((&y, &n), &m)| term(y, n * m) + term(n - y, n * (1.0 - m)))
        .sum::<f64>()
}

/// Solve the m × m system `a x = b` (row-major) by Gaussian elimination with partial pivoting.
fn solve(mut a: Vec<f64>, mut b: Vec<f64>, m: usize) -> Option<Vec<f64>> {
    for col in 0..m {
        let piv =
            (col..m).max_by(|&i, &j| a[i * m + col].abs().total_cmp(&a[j * m + col].abs()))?;
        if a[piv * m + col] == 0.0 || !a[piv * m + col].is_finite() {
            return None;
        }
        if piv != col {
            for c in 0..m {
                a.swap(piv * m + c, col * m + c);
            }
            b.swap(piv, col);
        }
        for r in (col + 1)..m {
            let f = a[r * m + col] / a[col * m + col];
            if f != 0.0 {
                for c in col..m {
                    a[r * m + c] -= f * a[col * m + c];
                }
                b[r] -= f * b[col];
            }
        }
    }
    let mut x = vec![0.0; m];
    for r in (0..m).rev() {
        let s: f64 = ((r + 1)..m).map(|c| a[r * m + c] * x[c]).sum();
        x[r] = (b[r] - s) / a[r * m + r];
    }
    Some(x)
}

/// Fit P(child = 1 | parents) by IRLS with the parent configuration as one factor (intercept +
/// treatment contrasts over the occupied configurations), starting like R from
/// μ = (y + 0.5)/(n + 1). `child` must have exactly 2 categories (category 1 is the "success").
/// Errors: unknown nodes, a self-loop, a child with k ≠ 2, a singular weighted least-squares
/// system or a non-finite deviance (the fit diverged).
pub fn logistic_irls(
    data: &DiscreteData,
    child: usize,
    parents: &[usize],
    config: IrlsConfig,
) -> Result<LogisticFit, EvalError> {
    let table = checked_table(data, child, parents)?;
    if table.k != 2 {
        return Err(EvalError::Invalid(format!(
            "logistic regression of {}: {} categories, not 2",
            data.names[child], table.k
        )));
    }
    let m = table.occupied();
    let ones: Vec<f64> = (0..m).map(|c| table.row(c)[1] as f64).collect();
    let trials: Vec<f64> = table.totals.iter().map(|&t| t as f64).collect();
    // Design: column 0 the intercept, column c ≥ 1 the indicator of configuration c.
    let x = |row: usize, col: usize| -> f64 { if col == 0 || col == row { 1.0 } else { 0.0 } };
    let mut eta: Vec<f64> = ones
        .iter()
        .zip(&trials)
        .map(|(&y, &n)| {
            let mu = (y + 0.5) / (n + 1.0);
            (mu / (1.0 - mu)).ln()
        })
        .collect();
    let mut mu: Vec<f64> = eta.iter().map(|&e| logistic(e)).collect();
    let mut dev_old = deviance(&ones, &trials, &mu);
    let mut beta = vec![0.0; m];
    let (mut iterations, mut converged) = (0, false);
    while iterations < config.max_iter {
        iterations += 1;
        let mut xtwx = vec![0.0; m * m];
        let mut xtwz = vec![0.0; m];
        for row in 0..m {
            let var = mu[row] * (1.0 - mu[row]);
            if var <= 0.0 {
                continue; // R drops rows with zero weight
            }
            let z = eta[row] + (ones[row] / trials[row] - mu[row]) / var;
            let w = trials[row] * var;
            for a in 0..m {
                let xa = x(row, a);
                if xa == 0.0 {
                    continue;
                }
                xtwz[a] += w * xa * z;
                for b in 0..m {
                    xtwx[a * m + b] += w * xa * x(row, b);
                }
            }
        }
        beta = solve(xtwx, xtwz, m).ok_or_else(|| {
            EvalError::Invalid(format!(
                "logistic regression of {}: singular IRLS system at iteration {iterations}",
                data.names[child]
            ))
        })?;
        eta = (0..m)
            .map(|row| (0..m).map(|c| x(row, c) * beta[c]).sum())
            .collect();
        mu = eta.iter().map(|&e| logistic(e)).collect();
        let dev = deviance(&ones, &trials, &mu);
        if !dev.is_finite() {
            return Err(EvalError::Invalid(format!(
                "logistic regression of {}: the deviance diverged at iteration {iterations}",
                data.names[child]
            )));
        }
        if (dev - dev_old).abs() / (dev.abs() + 0.1) < config.epsilon {
            converged = true;
            dev_old = dev;
            break;
        }
        dev_old = dev;
    }
    let separation = ones.iter().zip(&trials).any(|(&y, &n)| y == 0.0 || y == n);
    Ok(LogisticFit {
        configs: table.configs.clone(),
        fitted: mu,
        coefficients: beta,
        deviance: dev_old.max(0.0),
        iterations,
        converged,
        separation,
    })
}

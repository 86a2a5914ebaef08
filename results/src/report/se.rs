//! The Monte Carlo error of a table cell: companion columns `<column>_se` and,
//! where the error comes from n independent units, `<column>_n` (the README's "Monte Carlo
//! error of a table cell" states the convention; `causeway check --statistical` reads it, see
//! `crate::check_stats`). Deterministic cells (counts, settings, exact values, data
//! statistics) get no companion; diagnostics (R-hat, ESS, MCSE) are reported, not tested.
//!
//! The sources, one function each:
//! - a mean over n independent units (datasets, replicates, folds, runs): [`mean_over_units`],
//!   sd/√n, which already holds each unit's own Monte Carlo noise;
//! - a posterior expectation over one cell's chains: [`mcse_of_chains`], ArviZ's
//!   `mcse(method="mean")` ([`crate::diagnostics::mcse_mean`]); no `_n` (the error is not over
//!   independent units), so the check uses the normal;
//! - a proportion over n units: [`binomial_se`], √(p(1 − p)/n), with p replaced by 1/(2n)
//!   at 0 and by 1 − 1/(2n) at 1 (half a unit; the plug-in se there would be 0, and a 0 on
//!   both sides makes the check exact);
//! - a paired difference over n units (e.g. ours − exact, or method A − method B on the same
//!   datasets): [`paired_difference`], sd(aᵢ − bᵢ)/√n, not the root sum of the two se;
//! - the sample sd over n units: [`sd_over_units`], s/√(2(n − 1)) (normal theory);
//! - a count of n units (confusion matrices): [`count_se`]; an AUC: [`auc_se`] (Hanley and
//!   McNeil 1982), with n the number of units;
//! - a quantile of n units: [`quantile_se`], half the spread of the order statistics at ranks
//!   n·p ∓ √(n·p(1 − p)).

use polars::prelude::*;

use crate::diagnostics::{self, Draws};

/// Mean and its standard error sd/√n (sample sd, n − 1) over `units` (NaN values dropped);
/// returns `(mean, se, n)`. se is NaN for n < 2, mean NaN for n = 0.
pub fn mean_over_units(units: &[f64]) -> (f64, f64, u64) {
    let v: Vec<f64> = units.iter().copied().filter(|x| !x.is_nan()).collect();
    let n = v.len();
    if n == 0 {
        return (f64::NAN, f64::NAN, 0);
    }
    let mean = v.iter().sum::<f64>() / n as f64;
    if n < 2 {
        return (mean, f64::NAN, 1);
    }
    let var = v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
    (mean, (var / n as f64).sqrt(), n as u64)
}

/// Mean over a cell's chains (independent units) and its se sd/√n ([`mean_over_units`]),
/// except that chains which all agree exactly give no standard error (NaN: the check skips the
/// cell): a few chains of a discrete figure often coincide (and DEM's starts often reach the
/// same fixed point), so a spread of 0 says nothing about how far another run's chains land
/// (with sd/√n = 0 on both sides, two correct runs with other chain seeds were flagged).
/// Returns `(mean, se, n)`.
pub fn mean_over_chains(per_chain: &[f64]) -> (f64, f64, u64) {
    let (mean, se, n) = mean_over_units(per_chain);
    (mean, if se == 0.0 { f64::NAN } else { se }, n)
}

/// Mean of per-chain frequencies (each in [0, 1]) over n chains, with the binomial se of a
/// proportion of n units ([`binomial_se`], its rule at 0 and 1 included): `(mean, se, n)`. A
/// chain's frequency has variance at most p(1 − p), reached when every chain is stuck with the
/// feature or without it, as short chains often are (two chains agreeing on 0 in one run and on
/// 1 in another gave sd/√n = 0 on both sides); the bound does not understate that.
pub fn frequency_over_chains(per_chain: &[f64]) -> (f64, f64, u64) {
    let (mean, _, n) = mean_over_units(per_chain);
    (mean, binomial_se(mean, n), n)
}

/// Distribution-free standard error of the sample `p`-quantile of `sorted` (ascending, n
/// values): half the distance between the order statistics at ranks n·p ∓ √(n·p(1 − p)), the
/// ±1 sd band of the binomial count of values below the quantile (the order-statistic
/// confidence interval at z = 1; e.g. Conover, *Practical Nonparametric Statistics*, §3.2).
/// NaN for fewer than 2 values.
pub fn quantile_se(sorted: &[f64], p: f64) -> f64 {
    let n = sorted.len();
    if n < 2 || !(0.0..=1.0).contains(&p) {
        return f64::NAN;
    }
    let (m, h) = (n as f64 * p, (n as f64 * p * (1.0 - p)).sqrt());
    let lo = ((m - h).floor().max(0.0) as usize).min(n - 1);
    let hi = ((m + h).ceil().max(0.0) as usize).min(n - 1);
    (sorted[hi] - sorted[lo]) / 2.0
}

/// Standard error of a sample sd `sd` over `n` units, s/√(2(n − 1)) (the large-sample normal
/// approximation; NaN for n < 2).
pub fn sd_over_units(sd: f64, n: u64) -> f64 {
    if n < 2 {
        f64::NAN
    } else {
        sd / (2.0 * (n - 1) as f64).sqrt()
    }
}

/// Binomial standard error of a proportion `p` of `n` units, √(p(1 − p)/n), with p taken as
/// 1/(2n) when it is 0 and 1 − 1/(2n) when it is 1 (see the module doc). NaN for n = 0.
pub fn binomial_se(p: f64, n: u64) -> f64 {
    if n == 0 || p.is_nan() {
        return f64::NAN;
    }
    let nf = n as f64;
    let half = 0.5 / nf;
    let q = p.clamp(half, 1.0 - half);
    (q * (1.0 - q) / nf).sqrt()
}

/// [`binomial_se`] of each proportion `p[i]` of `n[i]` units.
pub fn binomial_ses(p: &[f64], n: &[u64]) -> Vec<f64> {
    p.iter().zip(n).map(|(p, n)| binomial_se(*p, *n)).collect()
}

/// Standard error of a count `k` of `n` units (a confusion-matrix entry): n · [`binomial_se`]
/// of k/n, with its rule at 0 and n.
pub fn count_se(k: u64, n: u64) -> f64 {
    if n == 0 {
        return f64::NAN;
    }
    n as f64 * binomial_se(k as f64 / n as f64, n)
}

/// Standard error of an AUC `a` from `n_pos` positive and `n_neg` negative units, by Hanley &
/// McNeil (1982, eq. 2): Q1 = a/(2 − a), Q2 = 2a²/(1 + a),
/// se² = (a(1 − a) + (n_pos − 1)(Q1 − a²) + (n_neg − 1)(Q2 − a²)) / (n_pos n_neg).
/// NaN when either class is empty. (At a = 1 it is 0: the check is then exact.)
pub fn auc_se(a: f64, n_pos: u64, n_neg: u64) -> f64 {
    if n_pos == 0 || n_neg == 0 || a.is_nan() {
        return f64::NAN;
    }
    let (q1, q2) = (a / (2.0 - a), 2.0 * a * a / (1.0 + a));
    let (np, nn) = (n_pos as f64, n_neg as f64);
    let v = (a * (1.0 - a) + (np - 1.0) * (q1 - a * a) + (nn - 1.0) * (q2 - a * a)) / (np * nn);
    v.max(0.0).sqrt()
}

/// Mean of the paired differences aᵢ − bᵢ and its se sd(a − b)/√n (pairs with a NaN side
/// dropped); `(mean, se, n)` as [`mean_over_units`].
pub fn paired_difference(a: &[f64], b: &[f64]) -> (f64, f64, u64) {
    let d: Vec<f64> = a.iter().zip(b).map(|(x, y)| x - y).collect();
    mean_over_units(&d)
}

/// MCSE of the posterior mean over one cell's chains (M chains, cut to the shortest), as
/// ArviZ 0.23 `mcse(method="mean")`; NaN when the draws cannot be diagnosed (too few, NaN).
pub fn mcse_of_chains(chains: &[Vec<f64>]) -> f64 {
    let n = chains.iter().map(Vec::len).min().unwrap_or(0);
    let views: Vec<&[f64]> = chains.iter().map(|d| &d[..n]).collect();
    match Draws::new(&views) {
        Ok(d) => diagnostics::mcse_mean(&d),
        Err(_) => f64::NAN,
    }
}

/// Append `<name>_se` (and `<name>_n` when `n` is given) to `cols`.
pub fn push_se(cols: &mut Vec<Column>, name: &str, se: Vec<f64>, n: Option<Vec<u64>>) {
    cols.push(Series::new(format!("{name}_se").into(), se).into());
    if let Some(n) = n {
        cols.push(Series::new(format!("{name}_n").into(), n).into());
    }
}

/// Append the column `name` of estimates `(value, se, n)` (as [`mean_over_units`] and its
/// kin return them, one per row) with its `<name>_se` and `<name>_n`.
pub fn push_estimates(cols: &mut Vec<Column>, name: &str, stats: &[(f64, f64, u64)]) {
    cols.push(Series::new(name.into(), stats.iter().map(|s| s.0).collect::<Vec<_>>()).into());
    push_se(
        cols,
        name,
        stats.iter().map(|s| s.1).collect(),
        Some(stats.iter().map(|s| s.2).collect()),
    );
}

/// For a mean and an sd over n units (one row each): `<mean>_se` = sd/√n and `<sd>_se` =
/// s/√(2(n − 1)) ([`sd_over_units`]), each with its `_n`.
pub fn push_mean_sd_se(cols: &mut Vec<Column>, mean: &str, sd: &str, sds: &[f64], n: &[u64]) {
    let mean_se = sds
        .iter()
        .zip(n)
        .map(|(s, &k)| s / (k as f64).sqrt())
        .collect();
    let sd_se = sds
        .iter()
        .zip(n)
        .map(|(s, &k)| sd_over_units(*s, k))
        .collect();
    push_se(cols, mean, mean_se, Some(n.to_vec()));
    push_se(cols, sd, sd_se, Some(n.to_vec()));
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 100 values 0, 1, …, 99: the median's order-statistic band is ranks 45..55 (n·p ∓
    /// √(n·p(1 − p)) = 50 ∓ 5), so its se is 5, what the asymptotic √(p(1 − p)/n)/f gives for
    /// this uniform density (f = 1/100): 0.05 · 100 = 5. The 5% quantile's band is clamped at the
    /// first value; fewer than two values give NaN.
    #[test]
    fn quantile_se_is_half_the_order_statistic_band() {
        let v: Vec<f64> = (0..100).map(f64::from).collect();
        assert_eq!(quantile_se(&v, 0.5), 5.0);
        // 5 ∓ √4.75 = 2.82..7.18 → ranks 2 and 8.
        assert_eq!(quantile_se(&v, 0.05), 3.0);
        assert_eq!(quantile_se(&v, 0.0), 0.0);
        assert!(quantile_se(&[1.0], 0.5).is_nan());
    }

    /// Chains that agree exactly give no standard error; otherwise sd/√n.
    #[test]
    fn chains_that_agree_exactly_give_no_standard_error() {
        let (m, se, n) = mean_over_chains(&[827.0, 827.0]);
        assert_eq!((m, n), (827.0, 2));
        assert!(se.is_nan());
        let (m, se, _) = mean_over_chains(&[1.0, 3.0]);
        assert_eq!((m, se), (2.0, 1.0));
    }

    /// R 4: `x <- c(1.2, 2.3, 1.9, 2.8, 3.1); sd(x)/sqrt(5)` = 0.33555923471125.
    #[test]
    fn the_rules_give_the_hand_computed_values() {
        let (m, se, n) = mean_over_units(&[1.2, 2.3, 1.9, 2.8, 3.1]);
        assert!((m - 2.26).abs() < 1e-12 && (se - 0.33555923471125).abs() < 1e-12 && n == 5);
        assert!(mean_over_units(&[4.0]).1.is_nan());
        // 3 of 10: √(0.3·0.7/10); 0 of 10: p = 0.05, √(0.05·0.95/10).
        assert!((binomial_se(0.3, 10) - 0.144_913_767_461_894_4).abs() < 1e-12);
        assert!((binomial_se(0.0, 10) - 0.068_920_243_760_451_1).abs() < 1e-12);
        assert!((binomial_se(1.0, 10) - binomial_se(0.0, 10)).abs() < 1e-12);
        // Paired: the differences 1, 1, 1 have se 0, whatever the spread of each side.
        let (d, se, _) = paired_difference(&[1.0, 5.0, 9.0], &[0.0, 4.0, 8.0]);
        assert!(d == 1.0 && se == 0.0);
        assert!((sd_over_units(2.0, 3) - 1.0).abs() < 1e-12);
        // A = 0.9, 50 and 50 units, by hand: Q1 = 0.818182, Q2 = 0.852632,
        // se = √((0.09 + 49(Q1 − 0.81) + 49(Q2 − 0.81))/2500) = 0.0321240.
        assert!(
            (auc_se(0.9, 50, 50) - 0.032_124_0).abs() < 1e-6,
            "{}",
            auc_se(0.9, 50, 50)
        );
        assert!((count_se(3, 10) - 1.449_137_674_618_943_8).abs() < 1e-12);
        // Two identical white-noise-like chains: MCSE = sd / √ESS > 0.
        let c: Vec<f64> = (0..200).map(|i| ((i as f64) * 0.618_034).fract()).collect();
        let mcse = mcse_of_chains(&[c.clone(), c]);
        assert!(mcse > 0.0 && mcse < 0.1, "{mcse}");
    }
}

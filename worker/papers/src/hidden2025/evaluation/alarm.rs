//! Supplement F of `002_d97ecc788b964f97.txt` (ALARM, Tables 9–11, Figure 10), polars-free: the
//! HiDDeN CPT estimate over every parent configuration (F.2), parent-set frequencies of
//! Algorithm 3's draws and the edge probabilities they imply (F.3), and the RMSE of an estimate
//! to the true CPT.
//!
//! **HiDDeN's estimate of a CPT (F.2, eq 6 averaged over the draws of t).** For a configuration
//! with counts n_c the eq 6 predictive given t is (t_x + n_{c,x}) / (Σt + n_c); averaged over the
//! post-burn-in draws of t it is eq 14 for a fixed parent set. For an empty configuration (n_c =
//! 0) the same formula gives t_x / Σt: its average is E[t_x / Σt], not E[t_x] / E[Σt], so it is
//! computed draw by draw like every other configuration, never from `t_mean`.

use super::{Cpt, EvalError, MAX_CPT_CELLS, checked_table};
use crate::hidden2025::datasets::DiscreteData;

/// HiDDeN's CPT of `child` given `parents` (F.2): eq 6 averaged over `draws` of t_j (each of
/// length k_j), for every parent configuration, empty ones included (see the module docs).
/// Shape K_Pa × k_j, configurations coded as [`crate::hidden2025::datasets::ParentTable`]'s
/// (first parent fastest). Errors: unknown nodes, a self-loop, no draws, a draw of the wrong
/// length or with a non-positive or non-finite value, more than [`MAX_CPT_CELLS`] cells.
pub fn hidden_cpt(
    data: &DiscreteData,
    child: usize,
    parents: &[usize],
    draws: &[Vec<f64>],
) -> Result<Cpt, EvalError> {
    let table = checked_table(data, child, parents)?;
    let k = table.k;
    if draws.is_empty() {
        return Err(EvalError::Invalid(format!(
            "no draws of t for {}",
            data.names[child]
        )));
    }
    if let Some((i, t)) = draws
        .iter()
        .enumerate()
        .find(|(_, t)| t.len() != k || t.iter().any(|&x| !(x > 0.0 && x.is_finite())))
    {
        return Err(EvalError::Invalid(format!(
            "draw {i} of t for {} is {t:?}: need {k} positive finite values",
            data.names[child]
        )));
    }
    if table.n_configs.saturating_mul(k as u64) > MAX_CPT_CELLS {
        return Err(EvalError::Invalid(format!(
            "the table of {} has {} × {k} cells, more than {MAX_CPT_CELLS}",
            data.names[child], table.n_configs
        )));
    }
    let n_configs = table.n_configs as usize;
    let sums: Vec<f64> = draws.iter().map(|t| t.iter().sum()).collect();
    let nd = draws.len() as f64;
    // The empty-configuration row E[t / Σt], shared by every empty configuration.
    let mut empty_row = vec![0.0; k];
    for (t, s) in draws.iter().zip(&sums) {
        for (e, &tx) in empty_row.iter_mut().zip(t) {
            *e += tx / s / nd;
        }
    }
    let mut probs = Vec::with_capacity(n_configs * k);
    let mut next = 0usize;
    for code in 0..n_configs as u64 {
        if next < table.occupied() && table.configs[next] == code {
            let counts = table.row(next);
            let n = table.totals[next] as f64;
            let mut row = vec![0.0; k];
            for (t, s) in draws.iter().zip(&sums) {
                for ((r, &tx), &c) in row.iter_mut().zip(t).zip(counts) {
                    *r += (tx + c as f64) / (s + n) / nd;
                }
            }
            probs.extend(row);
            next += 1;
        } else {
            probs.extend_from_slice(&empty_row);
        }
    }
    Ok(Cpt {
        k,
        n_configs,
        probs,
    })
}

/// Frequencies of Algorithm 3's draws over `n_sets` candidate parent sets (F.3): `draws` holds
/// each chain's draws of the set index (the trace's `parent_set`, already restricted to the
/// iterations that count), pooled over chains. Errors: no draws, an index that is not an
/// integer in `0..n_sets`.
pub fn set_frequencies(draws: &[Vec<f64>], n_sets: usize) -> Result<Vec<f64>, EvalError> {
    let mut counts = vec![0u64; n_sets];
    let mut total = 0u64;
    for (c, chain) in draws.iter().enumerate() {
        for &x in chain {
            if !(x >= 0.0 && x.fract() == 0.0 && (x as usize) < n_sets) {
                return Err(EvalError::Invalid(format!(
                    "chain {c}: parent-set index {x} is not one of the {n_sets} candidates"
                )));
            }
            counts[x as usize] += 1;
            total += 1;
        }
    }
    if total == 0 {
        return Err(EvalError::Invalid("no parent-set draws".into()));
    }
    Ok(counts.iter().map(|&c| c as f64 / total as f64).collect())
}

/// P(`parent` ∈ Pa(j) | n) (Table 11) from a posterior over candidate parent `sets` (column
/// indices) with probabilities `probs`: the sum over the sets that contain `parent`.
pub fn edge_probability(sets: &[Vec<usize>], probs: &[f64], parent: usize) -> f64 {
    sets.iter()
        .zip(probs)
        .filter(|(s, _)| s.contains(&parent))
        .map(|(_, p)| p)
        .sum()
}

/// Root mean squared difference of two equally long vectors (NaN if empty or of different
/// lengths): an estimate's RMSE to the true CPT over its cells.
pub fn rmse(a: &[f64], b: &[f64]) -> f64 {
    if a.is_empty() || a.len() != b.len() {
        return f64::NAN;
    }
    (a.iter().zip(b).map(|(x, y)| (x - y).powi(2)).sum::<f64>() / a.len() as f64).sqrt()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hidden2025::equations::predictive;

    /// A (2 levels) → B (3 levels), with A's second level never observed.
    fn data() -> DiscreteData {
        DiscreteData {
            names: vec!["A".into(), "B".into()],
            levels: vec![
                vec!["a0".into(), "a1".into()],
                vec!["b0".into(), "b1".into(), "b2".into()],
            ],
            columns: vec![vec![0, 0, 0, 0], vec![0, 1, 1, 2]],
        }
    }

    #[test]
    fn hidden2025_alarm_cpt_is_eq6_per_draw_and_t_over_sum_t_when_empty() {
        let d = data();
        let draws = vec![vec![1.0, 2.0, 3.0], vec![0.5, 0.5, 4.0]];
        let cpt = hidden_cpt(&d, 1, &[0], &draws).unwrap();
        assert_eq!((cpt.n_configs, cpt.k), (2, 3));
        // occupied configuration a0: counts (1, 2, 1)
        let p1 = predictive(&draws[0], &[1, 2, 1]);
        let p2 = predictive(&draws[1], &[1, 2, 1]);
        for x in 0..3 {
            assert!((cpt.row(0)[x] - (p1[x] + p2[x]) / 2.0).abs() < 1e-12);
        }
        // empty configuration a1: E[t / Σt], not E[t] / E[Σt]
        let want = [
            (1.0 / 6.0 + 0.5 / 5.0) / 2.0,
            (2.0 / 6.0 + 0.5 / 5.0) / 2.0,
            (3.0 / 6.0 + 4.0 / 5.0) / 2.0,
        ];
        for (got, want) in cpt.row(1).iter().zip(want) {
            assert!((got - want).abs() < 1e-12);
        }
        assert!((cpt.row(1).iter().sum::<f64>() - 1.0).abs() < 1e-12);
        assert!(hidden_cpt(&d, 1, &[0], &[]).is_err());
        assert!(hidden_cpt(&d, 1, &[0], &[vec![1.0, 0.0, 1.0]]).is_err());
        assert!(hidden_cpt(&d, 1, &[1], &draws).is_err());
    }

    #[test]
    fn hidden2025_alarm_set_frequencies_and_edges() {
        let f = set_frequencies(&[vec![0.0, 2.0, 2.0], vec![2.0]], 3).unwrap();
        assert_eq!(f, vec![0.25, 0.0, 0.75]);
        assert!(set_frequencies(&[vec![3.0]], 3).is_err());
        assert!(set_frequencies(&[vec![]], 3).is_err());
        let sets = vec![vec![0], vec![1], vec![0, 1]];
        assert!((edge_probability(&sets, &f, 0) - 1.0).abs() < 1e-12);
        assert!((edge_probability(&sets, &f, 1) - 0.75).abs() < 1e-12);
        assert_eq!(edge_probability(&sets, &f, 5), 0.0);
        assert!((rmse(&[0.0, 1.0], &[1.0, 1.0]) - 0.5f64.sqrt()).abs() < 1e-12);
        assert!(rmse(&[], &[]).is_nan());
    }
}

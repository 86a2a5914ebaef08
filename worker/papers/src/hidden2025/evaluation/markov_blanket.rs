//! Markov-blanket baselines of Table 2 (paper `002_d97ecc788b964f97.txt`, §5.2 and C.2): bnlearn's
//! `learn.mb(method = "gs" | "iamb", test = "mi", alpha = 0.05)`, exactly as specified ("Grow-shrink
//! and IAMB") specifies them, and the true Markov blanket of a DAG (Table 5).

use statrs::distribution::{ChiSquared, ContinuousCDF};

use super::{EvalError, check_nodes};
use crate::hidden2025::datasets::DiscreteData;

/// bnlearn's default significance level of `learn.mb`.
pub const DEFAULT_ALPHA: f64 = 0.05;

/// One conditional-independence test X ⟂ Y | Z.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CiTest {
    /// G² = 2 Σ n_xyz log(n_xyz n_z / (n_xz n_yz)) (twice the sample size times the conditional
    /// mutual information in nats), ≥ 0.
    pub statistic: f64,
    /// Degrees of freedom (k_x − 1)(k_y − 1) Π_{z∈Z} k_z, with the data's level counts.
    pub df: f64,
    /// The upper χ²_df tail at `statistic` (1 when df = 0).
    pub p_value: f64,
}

/// The G² (`mi`) test of X ⟂ Y | Z, bnlearn's `ci.test(test = "mi")`: statistic, df and p-value as in
/// [`CiTest`], the levels being the data's (build the data with present levels only for R's
/// `factor()` behaviour). Cost O(n + m log m) for m occupied (y, z) configurations; empty cells and
/// configurations contribute 0. Errors: unknown nodes, x = y, x or y in Z, Π k_z too large for the
/// 64-bit configuration codes.
pub fn g2_test(data: &DiscreteData, x: usize, y: usize, z: &[usize]) -> Result<CiTest, EvalError> {
    let mut cond = Vec::with_capacity(z.len() + 1);
    cond.push(y);
    cond.extend_from_slice(z);
    check_nodes(data, x, &cond)?;
    if z.contains(&y) {
        return Err(EvalError::Invalid(format!(
            "the G² test of {} given a set containing {} itself",
            data.names[y], data.names[y]
        )));
    }
    let ky = data.k(y) as u64;
    let n_configs = data.n_configs(&cond);
    if n_configs == u64::MAX {
        return Err(EvalError::Invalid(format!(
            "the G² test of {} and {} conditions on too many configurations",
            data.names[x], data.names[y]
        )));
    }
    // Child x given (y, z): configuration code = y + k_y · (z code), so the rows of one z code are
    // contiguous in the ascending order of `configs`.
    let table = data.table(x, &cond);
    let k = table.k;
    let mut statistic = 0.0;
    let mut n_xz = vec![0u64; k];
    let mut start = 0;
    while start < table.occupied() {
        let zcode = table.configs[start] / ky;
        let mut end = start;
        n_xz.iter_mut().for_each(|v| *v = 0);
        let mut n_z = 0u64;
        while end < table.occupied() && table.configs[end] / ky == zcode {
            for (acc, &c) in n_xz.iter_mut().zip(table.row(end)) {
                *acc += c as u64;
            }
            n_z += table.totals[end] as u64;
            end += 1;
        }
        let ln_nz = (n_z as f64).ln();
        for row in start..end {
            let ln_nyz = (table.totals[row] as f64).ln();
            for (&c, &nxz) in table.row(row).iter().zip(&n_xz) {
                if c > 0 {
                    let c = c as f64;
                    statistic += c * (c.ln() + ln_nz - (nxz as f64).ln() - ln_nyz);
                }
            }
        }
        start = end;
    }
    let statistic = (2.0 * statistic).max(0.0);
    let df = (data.k(x) as f64 - 1.0)
        * (data.k(y) as f64 - 1.0)
        * z.iter().map(|&j| data.k(j) as f64).product::<f64>();
    let p_value = if df > 0.0 {
        ChiSquared::new(df)
            .map_err(|e| EvalError::Invalid(format!("χ² with {df} degrees of freedom: {e}")))?
            .sf(statistic)
    } else {
        1.0
    };
    Ok(CiTest {
        statistic,
        df,
        p_value,
    })
}

/// A learned Markov blanket.
#[derive(Debug, Clone, PartialEq)]
pub struct LearnedBlanket {
    /// The target node.
    pub target: usize,
    /// The blanket, in the order its nodes were added.
    pub blanket: Vec<usize>,
    /// The number of G² tests run.
    pub n_tests: usize,
}

fn check_learner(
    data: &DiscreteData,
    target: usize,
    candidates: &[usize],
    alpha: f64,
) -> Result<(), EvalError> {
    check_nodes(data, target, candidates)?;
    if !(alpha > 0.0 && alpha < 1.0) {
        return Err(EvalError::Invalid(format!(
            "alpha = {alpha}: must be in (0, 1)"
        )));
    }
    for (i, c) in candidates.iter().enumerate() {
        if candidates[..i].contains(c) {
            return Err(EvalError::Invalid(format!(
                "candidate {} given twice",
                data.names[*c]
            )));
        }
    }
    Ok(())
}

/// Every column but `target`, in column order: the candidates of Table 2.
pub fn other_columns(data: &DiscreteData, target: usize) -> Vec<usize> {
    (0..data.p()).filter(|&j| j != target).collect()
}

/// Grow-shrink (Margaritis 2003; bnlearn `learn.mb(method = "gs")`).
/// Grow: scan `candidates` in the given (column) order and add the first whose G² test against the
/// target given the current blanket has p ≤ α; restart the scan after each addition, until a scan
/// adds nothing. Shrink: scan the blanket in insertion order and remove the first node with p > α
/// given the rest of the blanket; restart until nothing is removed. Errors: unknown or repeated
/// nodes, the target among the candidates, α outside (0, 1), and those of [`g2_test`].
pub fn grow_shrink(
    data: &DiscreteData,
    target: usize,
    candidates: &[usize],
    alpha: f64,
) -> Result<LearnedBlanket, EvalError> {
    grow_shrink_impl(data, target, candidates, alpha, None)
}

fn grow_shrink_impl(
    data: &DiscreteData,
    target: usize,
    candidates: &[usize],
    alpha: f64,
    defect: Option<Defect>,
) -> Result<LearnedBlanket, EvalError> {
    check_learner(data, target, candidates, alpha)?;
    let mut blanket: Vec<usize> = Vec::new();
    let mut n_tests = 0;
    let grow_best = defect == Some(Defect::GrowShrinkAddsBest);
    'grow: loop {
        let mut best: Option<(usize, f64)> = None;
        for &c in candidates {
            if blanket.contains(&c) {
                continue;
            }
            n_tests += 1;
            let p = g2_test(data, target, c, &blanket)?.p_value;
            if grow_best {
                if p <= alpha && best.is_none_or(|(_, bp)| p < bp) {
                    best = Some((c, p));
                }
            } else if p <= alpha {
                blanket.push(c);
                continue 'grow;
            }
        }
        if let Some((c, _)) = best {
            blanket.push(c);
            continue 'grow;
        }
        break;
    }
    'shrink: loop {
        for i in 0..blanket.len() {
            let rest: Vec<usize> = blanket
                .iter()
                .enumerate()
                .filter(|&(l, _)| l != i)
                .map(|(_, &v)| v)
                .collect();
            n_tests += 1;
            if g2_test(data, target, blanket[i], &rest)?.p_value > alpha {
                blanket.remove(i);
                continue 'shrink;
            }
        }
        break;
    }
    Ok(LearnedBlanket {
        target,
        blanket,
        n_tests,
    })
}

/// Incremental association Markov blanket (Tsamardinos et al. 2003; bnlearn `learn.mb(method =
/// "iamb")`). Forward: repeatedly add the candidate with the smallest
/// p-value given the current blanket (the first in `candidates` order on ties) while it is ≤ α.
/// Backward: one pass over the blanket in insertion order, skipping the last node added; each node
/// is tested given the blanket minus itself and minus the nodes already dropped in the pass, and
/// dropped if p > α; the pass stops as soon as fewer than 2 nodes remain. Errors: as
/// [`grow_shrink`].
pub fn iamb(
    data: &DiscreteData,
    target: usize,
    candidates: &[usize],
    alpha: f64,
) -> Result<LearnedBlanket, EvalError> {
    iamb_impl(data, target, candidates, alpha, None)
}

fn iamb_impl(
    data: &DiscreteData,
    target: usize,
    candidates: &[usize],
    alpha: f64,
    defect: Option<Defect>,
) -> Result<LearnedBlanket, EvalError> {
    check_learner(data, target, candidates, alpha)?;
    let mut blanket: Vec<usize> = Vec::new();
    let mut n_tests = 0;
    let adds_first = defect == Some(Defect::IambAddsFirst);
    loop {
        let mut best: Option<(usize, f64)> = None;
        for &c in candidates {
            if blanket.contains(&c) {
                continue;
            }
            n_tests += 1;
            let p = g2_test(data, target, c, &blanket)?.p_value;
            if best.is_none_or(|(_, bp)| p < bp) {
                best = Some((c, p));
            }
            if adds_first && p <= alpha {
                break;
            }
        }
        match best {
            Some((c, p)) if p <= alpha => blanket.push(c),
            _ => break,
        }
    }
    let mut dropped: Vec<usize> = Vec::new();
    if let Some((_, head)) = blanket.split_last() {
        for &node in head {
            if blanket.len() - dropped.len() < 2 {
                break;
            }
            let cond: Vec<usize> = blanket
                .iter()
                .copied()
                .filter(|&v| v != node && !dropped.contains(&v))
                .collect();
            n_tests += 1;
            if g2_test(data, target, node, &cond)?.p_value > alpha {
                dropped.push(node);
            }
        }
    }
    blanket.retain(|v| !dropped.contains(v));
    Ok(LearnedBlanket {
        target,
        blanket,
        n_tests,
    })
}

/// Deliberate departures from these procedures (negative controls: with either, Table 2's
/// GS or IAMB column is no longer reproduced). Test builds only.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Defect {
    /// Grow-shrink adds the candidate with the smallest p-value (≤ α) instead of the first in
    /// column order.
    GrowShrinkAddsBest,
    /// IAMB's forward phase adds the first candidate (in column order) with p ≤ α instead of the
    /// one with the smallest p-value. (Shrinking every node, the last added included, is *not* a
    /// usable control: on LUCAS it gives the same column.)
    IambAddsFirst,
}

/// [`grow_shrink`] (`iamb = false`) or [`iamb`] (`iamb = true`) with a deliberate [`Defect`], for
/// negative controls (feature `testing`). Errors: as [`grow_shrink`].
#[cfg(feature = "testing")]
pub fn learn_blanket_with_defect(
    data: &DiscreteData,
    target: usize,
    candidates: &[usize],
    alpha: f64,
    iamb: bool,
    defect: Defect,
) -> Result<LearnedBlanket, EvalError> {
    if iamb {
        iamb_impl(data, target, candidates, alpha, Some(defect))
    } else {
        grow_shrink_impl(data, target, candidates, alpha, Some(defect))
    }
}

/// The Markov blanket of `node` in a DAG given as parent lists (`parents[j]` = node j's parents):
/// its parents, its children and its children's other parents, ascending. Panics never; indices
/// outside `parents` are ignored.
pub fn true_markov_blanket(parents: &[Vec<usize>], node: usize) -> Vec<usize> {
    let mut mb: Vec<usize> = parents.get(node).cloned().unwrap_or_default();
    for (child, pa) in parents.iter().enumerate() {
        if pa.contains(&node) {
            mb.push(child);
            mb.extend(pa.iter().copied());
        }
    }
    mb.retain(|&v| v != node);
    mb.sort_unstable();
    mb.dedup();
    mb
}

/// The Hamming distance between two node sets: the size of their symmetric difference (Table 2).
pub fn hamming(a: &[usize], b: &[usize]) -> usize {
    a.iter().filter(|v| !b.contains(v)).count() + b.iter().filter(|v| !a.contains(v)).count()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn g2_by_hand_and_symmetric() {
        // X, Y binary, n = 6: (0,0) ×2, (0,1), (1,1) ×3 → table [[2,1],[0,3]].
        let d = DiscreteData::new(
            vec!["X".into(), "Y".into()],
            vec![vec!["0".into(), "1".into()]; 2],
            vec![vec![0, 0, 0, 1, 1, 1], vec![0, 0, 1, 1, 1, 1]],
        )
        .expect("valid");
        let t = g2_test(&d, 0, 1, &[]).expect("test");
        // n_x = (3,3), n_y = (2,4), n = 6.
        let hand = 2.0
            * (2.0 * (2.0f64 * 6.0 / (3.0 * 2.0)).ln()
                + (6.0f64 / (3.0 * 4.0)).ln()
                + 3.0 * (3.0f64 * 6.0 / (3.0 * 4.0)).ln());
        assert!((t.statistic - hand).abs() < 1e-12);
        assert_eq!(t.df, 1.0);
        let expected_p = ChiSquared::new(1.0).expect("df").sf(hand);
        assert!((t.p_value - expected_p).abs() < 1e-15);
        let s = g2_test(&d, 1, 0, &[]).expect("test");
        assert!((s.statistic - t.statistic).abs() < 1e-12);
        assert!(g2_test(&d, 0, 0, &[]).is_err());
    }

    #[test]
    fn true_blanket_and_hamming() {
        // 0 → 2 ← 1, 2 → 3.
        let pa = vec![vec![], vec![], vec![0, 1], vec![2]];
        assert_eq!(true_markov_blanket(&pa, 0), vec![1, 2]);
        assert_eq!(true_markov_blanket(&pa, 2), vec![0, 1, 3]);
        assert_eq!(true_markov_blanket(&pa, 3), vec![2]);
        assert_eq!(hamming(&[1, 2], &[2, 3, 4]), 3);
    }
}

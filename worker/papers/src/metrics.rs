//! Metrics shared by the papers' evaluations, polars-free: ROC/AUC, confusion matrices,
//! Hamming distance, RMSE, KL divergence, mean and standard deviation. Each paper's own
//! measures are in its `evaluation` module.

/// Area under the ROC curve of `scores` for binary `labels` (1 positive), with tied scores
/// counted as one half (the Mann–Whitney statistic), optionally weighted per example.
/// Returns NaN when one class is absent.
pub fn auc(scores: &[f64], labels: &[bool], weights: Option<&[f64]>) -> f64 {
    let w = |i: usize| weights.map_or(1.0, |w| w[i]);
    let mut idx: Vec<usize> = (0..scores.len()).collect();
    idx.sort_by(|&a, &b| scores[a].total_cmp(&scores[b]));
    let (mut pos, mut neg) = (0.0, 0.0);
    for (i, &l) in labels.iter().enumerate() {
        if l { pos += w(i) } else { neg += w(i) }
    }
    if pos == 0.0 || neg == 0.0 {
        return f64::NAN;
    }
    // Sweep groups of tied scores in ascending order.
    let mut neg_below = 0.0;
    let mut area = 0.0;
    let mut g = 0;
    while g < idx.len() {
        let mut h = g;
        let (mut p_tie, mut n_tie) = (0.0, 0.0);
        while h < idx.len() && scores[idx[h]] == scores[idx[g]] {
            if labels[idx[h]] {
                p_tie += w(idx[h])
            } else {
                n_tie += w(idx[h])
            }
            h += 1;
        }
        area += p_tie * (neg_below + 0.5 * n_tie);
        neg_below += n_tie;
        g = h;
    }
    area / (pos * neg)
}

/// ROC curve points `(false positive rate, true positive rate)`, from the highest threshold
/// down, tied scores stepping together, optionally weighted per example; starts at (0, 0).
pub fn roc_curve(scores: &[f64], labels: &[bool], weights: Option<&[f64]>) -> Vec<(f64, f64)> {
    let w = |i: usize| weights.map_or(1.0, |w| w[i]);
    let mut idx: Vec<usize> = (0..scores.len()).collect();
    idx.sort_by(|&a, &b| scores[b].total_cmp(&scores[a]));
    let pos: f64 = (0..labels.len()).filter(|&i| labels[i]).map(w).sum();
    let neg: f64 = (0..labels.len()).filter(|&i| !labels[i]).map(w).sum();
    let mut pts = vec![(0.0, 0.0)];
    let (mut tp, mut fp) = (0.0, 0.0);
    let mut g = 0;
    while g < idx.len() {
        let mut h = g;
        while h < idx.len() && scores[idx[h]] == scores[idx[g]] {
            if labels[idx[h]] {
                tp += w(idx[h])
            } else {
                fp += w(idx[h])
            }
            h += 1;
        }
        pts.push((
            if neg > 0.0 { fp / neg } else { 0.0 },
            if pos > 0.0 { tp / pos } else { 0.0 },
        ));
        g = h;
    }
    pts
}

/// Confusion matrix `C[true][predicted]` of labels in `0..k`.
pub fn confusion(truth: &[usize], predicted: &[usize], k: usize) -> Vec<Vec<u64>> {
    let mut c = vec![vec![0u64; k]; k];
    for (&t, &p) in truth.iter().zip(predicted) {
        if t < k && p < k {
            c[t][p] += 1;
        }
    }
    c
}

/// Hamming distance between two equally long 0/1 vectors (entries compared as `> 0.5`).
pub fn hamming(a: &[f64], b: &[f64]) -> usize {
    a.iter()
        .zip(b)
        .filter(|(x, y)| (**x > 0.5) != (**y > 0.5))
        .count()
}

/// Root mean squared error.
pub fn rmse(a: &[f64], b: &[f64]) -> f64 {
    let n = a.len().min(b.len());
    if n == 0 {
        return f64::NAN;
    }
    (a.iter().zip(b).map(|(x, y)| (x - y).powi(2)).sum::<f64>() / n as f64).sqrt()
}

/// Kullback–Leibler divergence `KL(p ‖ q)` of two discrete distributions (natural log; terms
/// with `p_i = 0` contribute 0; `+inf` if `q_i = 0 < p_i`).
pub fn kl_divergence(p: &[f64], q: &[f64]) -> f64 {
    p.iter()
        .zip(q)
        .map(|(&pi, &qi)| {
            if pi == 0.0 {
                0.0
            } else if qi == 0.0 {
                f64::INFINITY
            } else {
                pi * (pi / qi).ln()
            }
        })
        .sum()
}

/// Mean and sample standard deviation (n − 1); sd is NaN for fewer than two values.
pub fn mean_sd(xs: &[f64]) -> (f64, f64) {
    let n = xs.len() as f64;
    if xs.is_empty() {
        return (f64::NAN, f64::NAN);
    }
    let m = xs.iter().sum::<f64>() / n;
    if xs.len() < 2 {
        return (m, f64::NAN);
    }
    let v = xs.iter().map(|x| (x - m).powi(2)).sum::<f64>() / (n - 1.0);
    (m, v.sqrt())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn auc_known_values() {
        assert_eq!(
            auc(&[0.1, 0.4, 0.35, 0.8], &[false, false, true, true], None),
            0.75
        );
        assert_eq!(auc(&[1.0, 1.0], &[true, false], None), 0.5);
        assert!(auc(&[1.0], &[true], None).is_nan());
        // Weights act as replication.
        let a = auc(
            &[0.1, 0.4, 0.35],
            &[false, false, true],
            Some(&[2.0, 1.0, 1.0]),
        );
        let b = auc(&[0.1, 0.1, 0.4, 0.35], &[false, false, false, true], None);
        assert!((a - b).abs() < 1e-15);
        let roc = roc_curve(&[0.1, 0.4, 0.35, 0.8], &[false, false, true, true], None);
        assert_eq!(roc.last(), Some(&(1.0, 1.0)));
    }

    #[test]
    fn small_metrics() {
        assert_eq!(confusion(&[0, 1, 2, 2], &[0, 2, 2, 2], 3)[2][2], 2);
        assert_eq!(hamming(&[1.0, 0.0], &[1.0, 1.0]), 1);
        assert!((rmse(&[0.0, 0.0], &[3.0, 4.0]) - 12.5f64.sqrt()).abs() < 1e-15);
        assert!((kl_divergence(&[0.5, 0.5], &[0.5, 0.5])).abs() < 1e-15);
        let (m, s) = mean_sd(&[1.0, 2.0, 3.0]);
        assert_eq!((m, s), (2.0, 1.0));
    }
}

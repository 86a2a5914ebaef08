//! Posterior edge frequencies against a known network (§5.2 of `004_74db43a26dbf0fa1.txt`; issue
//! 17 §4: "Show a table of posterior edge frequencies against the true edges. Align the hidden
//! units by the best matching of their activations").
//!
//! A learned network's units are unlabelled, so each posterior sample is aligned to the true
//! network before its edges are counted:
//! - the D observed units are the same units in both;
//! - the sample's hidden units are matched one to one to the true hidden units greedily by the
//!   absolute Pearson correlation of their activations u over the N training points (highest
//!   pair first). Absolute, because the model is symmetric under u → −u (σ is odd: negating a
//!   unit's activations, its bias and its weights in and out leaves the likelihood unchanged);
//! - a sample unit left unmatched (the sample has more hidden units than the truth) maps to no
//!   true unit; its edges are counted as `unmatched_edges`.

use crate::data::Matrix;

/// Accumulated edge frequencies of posterior samples, aligned to a true network of U units
/// (the first D observed).
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct EdgeFrequencies {
    d: usize,
    units: usize,
    n: usize,
    /// The true hidden units' activations, centred and scaled to unit norm: (U − D) × N.
    truth: Vec<Vec<f64>>,
    /// counts[child × U + parent]: samples in which the aligned edge exists.
    counts: Vec<u64>,
    /// Σ over samples of the |correlation| of the unit matched to each true hidden unit (0 when
    /// none was).
    corr_sum: Vec<f64>,
    unmatched_edges: u64,
    samples: u64,
}

/// Centre `x` and scale it to unit Euclidean norm (all zeros when it is constant).
fn standardized(x: &[f64]) -> Vec<f64> {
    let mean = x.iter().sum::<f64>() / x.len().max(1) as f64;
    let mut v: Vec<f64> = x.iter().map(|a| a - mean).collect();
    let norm = v.iter().map(|a| a * a).sum::<f64>().sqrt();
    if norm > 0.0 {
        for a in &mut v {
            *a /= norm;
        }
    } else {
        v.iter_mut().for_each(|a| *a = 0.0);
    }
    v
}

impl EdgeFrequencies {
    /// `true_activations`: N training points × U units, the true network's u (observed units
    /// first, `d` of them).
    ///
    /// Errors: a malformed matrix, U ≤ d or N < 2.
    pub fn new(true_activations: &Matrix, d: usize) -> Result<Self, String> {
        true_activations.check()?;
        let (n, u) = (true_activations.rows, true_activations.cols);
        if u <= d || n < 2 {
            return Err(format!(
                "true activations must be N ≥ 2 rows × U > d = {d} units, got {n} × {u}"
            ));
        }
        let truth = (d..u)
            .map(|j| {
                let col: Vec<f64> = (0..n).map(|t| true_activations.get(t, j)).collect();
                standardized(&col)
            })
            .collect();
        Ok(EdgeFrequencies {
            d,
            units: u,
            n,
            truth,
            counts: vec![0; u * u],
            corr_sum: vec![0.0; u - d],
            unmatched_edges: 0,
            samples: 0,
        })
    }

    /// Add one posterior sample: `hidden` holds its hidden units' activations u (each N values;
    /// sample unit D + h is `hidden[h]`), `edges` its (child, parent) pairs in sample unit
    /// indices (observed units 0..D).
    ///
    /// Errors: an activation vector of the wrong length, or an edge naming a unit the sample
    /// does not have.
    pub fn add(&mut self, hidden: &[&[f64]], edges: &[(usize, usize)]) -> Result<(), String> {
        let h_true = self.units - self.d;
        // |corr| of every (sample hidden, true hidden) pair.
        let mut pairs: Vec<(f64, usize, usize)> = Vec::with_capacity(hidden.len() * h_true);
        for (h, a) in hidden.iter().enumerate() {
            if a.len() != self.n {
                return Err(format!(
                    "hidden unit {h} has {} activations for {} training points",
                    a.len(),
                    self.n
                ));
            }
            let z = standardized(a);
            for (t, tr) in self.truth.iter().enumerate() {
                let c: f64 = z.iter().zip(tr).map(|(x, y)| x * y).sum();
                pairs.push((c.abs(), h, t));
            }
        }
        // Highest |corr| first; ties to the lower sample unit, then the lower true unit.
        pairs.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)).then(a.2.cmp(&b.2)));
        let mut sample_to_true: Vec<Option<usize>> = vec![None; hidden.len()];
        let mut taken = vec![false; h_true];
        for (c, h, t) in pairs {
            if sample_to_true[h].is_none() && !taken[t] {
                sample_to_true[h] = Some(self.d + t);
                taken[t] = true;
                self.corr_sum[t] += c;
            }
        }
        let map = |i: usize| -> Result<Option<usize>, String> {
            if i < self.d {
                Ok(Some(i))
            } else {
                sample_to_true
                    .get(i - self.d)
                    .copied()
                    .ok_or_else(|| format!("edge names unit {i}, beyond the sample's units"))
            }
        };
        for &(c, p) in edges {
            match (map(c)?, map(p)?) {
                (Some(tc), Some(tp)) => self.counts[tc * self.units + tp] += 1,
                _ => self.unmatched_edges += 1,
            }
        }
        self.samples += 1;
        Ok(())
    }

    /// Samples added so far.
    pub fn samples(&self) -> u64 {
        self.samples
    }

    /// Summary matrices: `edge_frequency` (U × U, row child, column parent: the fraction of
    /// samples with that aligned edge), `alignment_correlation` ((U − D) × 1: the mean |corr| of
    /// the unit matched to each true hidden unit, 0 for a sample with none), and the scalars
    /// `unmatched_edges_mean` (edges per sample touching an unmatched unit) and
    /// `aligned_samples`.
    pub fn matrices(&self) -> Vec<Matrix> {
        let s = self.samples.max(1) as f64;
        let freq: Vec<f64> = self.counts.iter().map(|&c| c as f64 / s).collect();
        vec![
            Matrix::new("edge_frequency", self.units, self.units, freq),
            Matrix::new(
                "alignment_correlation",
                self.units - self.d,
                1,
                self.corr_sum.iter().map(|c| c / s).collect(),
            ),
            Matrix::scalar("unmatched_edges_mean", self.unmatched_edges as f64 / s),
            Matrix::scalar("aligned_samples", self.samples as f64),
        ]
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    /// Truth: 1 observed unit, 2 hidden (u = t and u = sin t); a sample whose hidden units are
    /// the second truth unit negated and the first scaled, plus an extra unit, aligns exactly.
    #[test]
    fn dallaire2014_alignment_matches_by_absolute_correlation() {
        let n = 50;
        let t: Vec<f64> = (0..n).map(|i| i as f64 / 10.0).collect();
        let mut vals = Vec::new();
        for &x in &t {
            vals.extend([x.cos(), x, x.sin()]);
        }
        let truth = Matrix::new("true_activations", n, 3, vals);
        let mut f = EdgeFrequencies::new(&truth, 1).unwrap();
        let neg_sin: Vec<f64> = t.iter().map(|x| -x.sin()).collect();
        let scaled: Vec<f64> = t.iter().map(|x| 0.5 * x + 1.0).collect();
        let noise: Vec<f64> = t.iter().map(|x| (7.3 * x).cos()).collect();
        // sample units: 0 observed, 1 = -sin (true 2), 2 = scaled t (true 1), 3 = unmatched
        let edges = [(0, 1), (0, 2), (1, 2), (2, 3)];
        f.add(&[&neg_sin, &scaled, &noise], &edges).unwrap();
        let m = f.matrices();
        let freq = &m[0];
        assert_eq!(freq.get(0, 2), 1.0);
        assert_eq!(freq.get(0, 1), 1.0);
        assert_eq!(freq.get(2, 1), 1.0);
        assert_eq!(freq.values.iter().sum::<f64>(), 3.0);
        assert!((m[1].values[0] - 1.0).abs() < 1e-12 && (m[1].values[1] - 1.0).abs() < 1e-12);
        assert_eq!(m[2].values[0], 1.0);
        assert!(f.add(&[&neg_sin[..10]], &[]).is_err());
        assert!(f.add(&[&neg_sin], &[(0, 5)]).is_err());
    }
}

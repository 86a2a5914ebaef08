//! Evaluation of paper `004_74db43a26dbf0fa1.txt` (§5.1), without polars: the k-nearest-neighbour
//! KL divergence estimator of Pérez-Cruz (2008) that Table 1 reports, and the standardization it
//! is computed in.
//!
//! Choices (issue 17 §3; the paper gives none of them):
//! - direction KL(test ‖ model): P is the test set (n × d), Q the fantasy data (m × d);
//! - space: both standardized with the **training** mean and sample sd (n − 1 divisor);
//! - k = 1 by default (`kl_k`);
//! - exact duplicates (distance 0) are skipped and counted in `zero_distance_ties`;
//! - Pérez-Cruz's printed eq 14 has the ratio upside down (a known erratum): s/r is right.

/// Per-column affine standardization fitted on a training matrix: z = (x − mean)/sd.
#[derive(Debug, Clone, PartialEq)]
pub struct Standardizer {
    /// Column means, d.
    pub mean: Vec<f64>,
    /// Column sample standard deviations (n − 1 divisor), d, all > 0.
    pub sd: Vec<f64>,
}

impl Standardizer {
    /// Fit on `x`: n rows × d columns, row-major.
    ///
    /// Errors: n < 2, a non-finite value, or a constant column (named by its 0-based index; the
    /// caller adds the column's name).
    pub fn fit(x: &[f64], n: usize, d: usize) -> Result<Self, String> {
        if n < 2 || x.len() != n * d {
            return Err(format!(
                "standardizing needs at least 2 rows of {d} values, got {} values",
                x.len()
            ));
        }
        let mut mean = vec![0.0; d];
        for row in x.chunks_exact(d) {
            for (m, v) in mean.iter_mut().zip(row) {
                *m += v;
            }
        }
        for m in &mut mean {
            *m /= n as f64;
        }
        let mut sd = vec![0.0; d];
        for row in x.chunks_exact(d) {
            for ((s, v), m) in sd.iter_mut().zip(row).zip(&mean) {
                *s += (v - m) * (v - m);
            }
        }
        for (j, s) in sd.iter_mut().enumerate() {
            *s = (*s / (n - 1) as f64).sqrt();
            if !(s.is_finite() && *s > 0.0) {
                return Err(format!("column {j} is constant or not finite"));
            }
        }
        Ok(Standardizer { mean, sd })
    }

    /// Standardize `x` (rows × d, row-major) in place.
    pub fn apply(&self, x: &mut [f64]) {
        let d = self.mean.len();
        for row in x.chunks_exact_mut(d) {
            for ((v, m), s) in row.iter_mut().zip(&self.mean).zip(&self.sd) {
                *v = (*v - m) / s;
            }
        }
    }

    /// Σ_j ln sd_j: subtract it from a log density in standardized space to get one in data units.
    pub fn log_jacobian(&self) -> f64 {
        self.sd.iter().map(|s| s.ln()).sum()
    }
}

/// A KL estimate D̂(P‖Q) with its tie count.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct KlEstimate {
    /// D̂(P‖Q) in nats.
    pub kl: f64,
    /// Σ_i #{j ≠ i: P_j = P_i} + Σ_i #{j: Q_j = P_i}: the zero distances that were skipped.
    pub zero_distance_ties: u64,
}

/// The k-NN KL estimator with P fixed (the test set), so that r_k(i) is computed once and each
/// fantasy sample Q costs one pass over n × m distances.
///
/// D̂(P‖Q) = (d/n) Σ_i ln(s_k(i)/r_k(i)) + ln(m/(n−1)), where r_k(i) is the k-th smallest
/// positive Euclidean distance from P_i to the other points of P and s_k(i) the same from P_i to
/// Q (Pérez-Cruz 2008, eq 14 with its erratum corrected).
#[derive(Debug, Clone)]
pub struct KnnKl {
    p: Vec<f64>,
    n: usize,
    d: usize,
    k: usize,
    /// ln r_k(i)², n values.
    log_r2: Vec<f64>,
    p_ties: u64,
}

impl KnnKl {
    /// `p`: n × d, row-major (already in the space the KL is computed in).
    ///
    /// Errors: d = 0, a wrong length, a non-finite value, or a point of P with fewer than k
    /// positive distances to the rest of P (n ≤ k, or too many duplicates).
    pub fn new(p: &[f64], n: usize, d: usize, k: usize) -> Result<Self, String> {
        if d == 0 || k == 0 || p.len() != n * d {
            return Err(format!("P must be n × d with d ≥ 1 and k ≥ 1 (n = {n}, d = {d}, k = {k})"));
        }
        if n <= k {
            return Err(format!("P has n = {n} rows: the estimator needs n > k = {k}"));
        }
        if let Some(i) = p.iter().position(|v| !v.is_finite()) {
            return Err(format!("P row {} is not finite", i / d + 1));
        }
        let mut log_r2 = Vec::with_capacity(n);
        let mut ties = 0;
        for i in 0..n {
            let (r2, t) = kth_positive(&p[i * d..(i + 1) * d], p, d, k, Some(i));
            ties += t;
            match r2 {
                Some(r2) => log_r2.push(r2.ln()),
                None => {
                    return Err(format!(
                        "P row {} has fewer than k = {k} distinct neighbours in P",
                        i + 1
                    ));
                }
            }
        }
        Ok(KnnKl {
            p: p.to_vec(),
            n,
            d,
            k,
            log_r2,
            p_ties: ties,
        })
    }

    /// Number of points of P.
    pub fn n(&self) -> usize {
        self.n
    }

    /// D̂(P‖Q) for `q`: m × d, row-major, in the same space as P.
    ///
    /// Errors: a wrong length, m < k, a non-finite value, or a point of P with fewer than k
    /// positive distances to Q.
    pub fn kl(&self, q: &[f64]) -> Result<KlEstimate, String> {
        let d = self.d;
        if q.len() % d != 0 {
            return Err(format!("Q has {} values, not a multiple of d = {d}", q.len()));
        }
        let m = q.len() / d;
        if m < self.k {
            return Err(format!("Q has m = {m} rows: the estimator needs m ≥ k = {}", self.k));
        }
        if let Some(i) = q.iter().position(|v| !v.is_finite()) {
            return Err(format!("Q row {} is not finite", i / d + 1));
        }
        let mut sum = 0.0;
        let mut ties = self.p_ties;
        for i in 0..self.n {
            let (s2, t) = kth_positive(&self.p[i * d..(i + 1) * d], q, d, self.k, None);
            ties += t;
            let s2 = s2.ok_or_else(|| {
                format!(
                    "P row {} has fewer than k = {} positive distances to Q",
                    i + 1,
                    self.k
                )
            })?;
            sum += 0.5 * (s2.ln() - self.log_r2[i]);
        }
        let kl = d as f64 / self.n as f64 * sum + (m as f64 / (self.n as f64 - 1.0)).ln();
        Ok(KlEstimate {
            kl,
            zero_distance_ties: ties,
        })
    }
}

/// The k-th smallest positive squared distance from `x` to the rows of `pts` (skipping row
/// `skip`), and the number of rows at distance exactly 0.
fn kth_positive(x: &[f64], pts: &[f64], d: usize, k: usize, skip: Option<usize>) -> (Option<f64>, u64) {
    // best[..filled] holds the smallest positive squared distances so far, ascending.
    let mut best = vec![f64::INFINITY; k];
    let mut filled = 0;
    let mut ties = 0;
    for (j, row) in pts.chunks_exact(d).enumerate() {
        if Some(j) == skip {
            continue;
        }
        let mut s = 0.0;
        for (a, b) in x.iter().zip(row) {
            let t = a - b;
            s += t * t;
        }
        if s == 0.0 {
            ties += 1;
            continue;
        }
        if s < best[k - 1] {
            let mut pos = k - 1;
            while pos > 0 && best[pos - 1] > s {
                best[pos] = best[pos - 1];
                pos -= 1;
            }
            best[pos] = s;
            filled = (filled + 1).min(k);
        }
    }
    ((filled == k).then_some(best[k - 1]), ties)
}

/// One-shot D̂(P‖Q) (see [`KnnKl`]).
pub fn kl_knn(p: &[f64], q: &[f64], d: usize, k: usize) -> Result<KlEstimate, String> {
    if d == 0 || p.len() % d != 0 {
        return Err(format!("P has {} values, not a multiple of d = {d}", p.len()));
    }
    KnnKl::new(p, p.len() / d, d, k)?.kl(q)
}

pub mod prior_moments;

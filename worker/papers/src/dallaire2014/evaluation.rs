//! Evaluation of paper `004_74db43a26dbf0fa1.txt` (§5.1), without polars: the k-nearest-neighbour
//! KL divergence estimator of Pérez-Cruz (2008) that Table 1 reports, and the standardization it
//! is computed in.
//!
//! Choices (the paper gives none of them):
//! - direction KL(test ‖ model): P is the test set (n × d), Q the fantasy data (m × d)
//!   (`kl_direction: test_model`; `model_test` swaps them, and the reference becomes
//!   D̂(train ‖ test));
//! - space: both standardized with the **training** mean and sample sd (n − 1 divisor);
//! - k = 1 by default (`kl_k`);
//! - exact duplicates (distance 0) are skipped and counted in `zero_distance_ties`;
//! - Pérez-Cruz's printed eq 14 has the ratio upside down (a known erratum): s/r is right.
//!
//! Also here: [`FantasyKl`] (the estimator against a fixed test set, in the training
//! standardization, as every sampler's `kl` trace column uses it), the reference rows of
//! `kl_reference.csv` ([`kl_reference`]), the exact k-d tree behind the estimator ([`knn`]) and
//! the KDE baseline's bandwidth and densities ([`kde`]).

use crate::dallaire2014::params::KlDirection;
use crate::data::Matrix;

/// Per-column affine standardization fitted on a training matrix: z = (x − mean)/sd.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
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
        // A column of extreme magnitude (|x| ~ 1e160, whose squares overflow, or ~ 1e-170,
        // whose squares underflow) is fitted scaled by a power of two, which is exact; columns
        // of ordinary magnitude are fitted as they are, bit for bit.
        let scale: Vec<f64> = (0..d)
            .map(|j| power_of_two_scale(x.iter().skip(j).step_by(d).copied()))
            .collect();
        let mut mean = vec![0.0; d];
        for row in x.chunks_exact(d) {
            for ((m, v), c) in mean.iter_mut().zip(row).zip(&scale) {
                *m += v * c;
            }
        }
        for m in &mut mean {
            *m /= n as f64;
        }
        let mut sd = vec![0.0; d];
        for row in x.chunks_exact(d) {
            for (((s, v), m), c) in sd.iter_mut().zip(row).zip(&mean).zip(&scale) {
                *s += (v * c - m) * (v * c - m);
            }
        }
        for (j, s) in sd.iter_mut().enumerate() {
            *s = (*s / (n - 1) as f64).sqrt();
            if !s.is_finite() {
                return Err(format!("column {j} is not finite"));
            }
            if *s <= 0.0 {
                return Err(format!("column {j} is constant"));
            }
            *s /= scale[j];
            mean[j] /= scale[j];
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

/// 1, or the power of two that brings values whose largest magnitude lies outside
/// [2⁻⁴⁰⁰, 2⁴⁰⁰] to about 1 (their squares and sums of squares then stay inside f64's range).
/// Multiplying by a power of two is exact (short of subnormals).
pub fn power_of_two_scale(values: impl Iterator<Item = f64>) -> f64 {
    let amax = values
        .filter(|v| v.is_finite())
        .fold(0.0f64, |a, v| a.max(v.abs()));
    if amax == 0.0 || (2f64.powi(-400)..=2f64.powi(400)).contains(&amax) {
        return 1.0;
    }
    2f64.powi(-amax.log2().floor() as i32)
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
/// fantasy sample Q costs one k-d tree over Q and n exact k-th-neighbour queries.
///
/// D̂(P‖Q) = (d/n) Σ_i ln(s_k(i)/r_k(i)) + ln(m/(n−1)), where r_k(i) is the k-th smallest
/// positive Euclidean distance from P_i to the other points of P and s_k(i) the same from P_i to
/// Q (Pérez-Cruz 2008, eq 14 with its erratum corrected). Distances are counted with
/// multiplicity; a distance of exactly 0 (in f64) is skipped and counted as a tie. The queries
/// are exact (see [`knn`]): the result is bit for bit that of a brute-force scan.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
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
    /// `p`: n × d, row-major (already in the space the KL is computed in); `k` ≥ 1.
    ///
    /// Errors: d = 0, k = 0, a wrong length, n ≤ k, a non-finite value (its 1-based row), or a
    /// point of P with fewer than k positive distances to the rest of P (too many duplicates).
    pub fn new(p: &[f64], n: usize, d: usize, k: usize) -> Result<Self, String> {
        if d == 0 || k == 0 || p.len() != n * d {
            return Err(format!(
                "P must be n × d with d ≥ 1 and k ≥ 1 (n = {n}, d = {d}, k = {k}, {} values)",
                p.len()
            ));
        }
        if n <= k {
            return Err(format!(
                "P has n = {n} rows: the estimator needs n > k = {k}"
            ));
        }
        if let Some(i) = p.iter().position(|v| !v.is_finite()) {
            return Err(format!("P row {} is not finite", i / d + 1));
        }
        let tree = knn::KdTree::build(p, d);
        let mut log_r2 = Vec::with_capacity(n);
        let mut ties = 0;
        for (i, row) in p.chunks_exact(d).enumerate() {
            let (r2, t) = tree.kth_positive(row, k, Some(i));
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

    /// Dimension d.
    pub fn d(&self) -> usize {
        self.d
    }

    /// k of the k-th neighbour.
    pub fn k(&self) -> usize {
        self.k
    }

    /// Σ_i #{j ≠ i: P_j = P_i}: the ties within P, part of every estimate's tie count.
    pub fn p_ties(&self) -> u64 {
        self.p_ties
    }

    /// D̂(P‖Q) for `q`: m × d, row-major, in the same space as P.
    ///
    /// Errors: a wrong length, m < k, a non-finite value (its 1-based row), or a point of P with
    /// fewer than k positive distances to Q (naming P's row).
    pub fn kl(&self, q: &[f64]) -> Result<KlEstimate, String> {
        let d = self.d;
        if !q.len().is_multiple_of(d) {
            return Err(format!(
                "Q has {} values, not a multiple of d = {d}",
                q.len()
            ));
        }
        let m = q.len() / d;
        if m < self.k {
            return Err(format!(
                "Q has m = {m} rows: the estimator needs m ≥ k = {}",
                self.k
            ));
        }
        if let Some(i) = q.iter().position(|v| !v.is_finite()) {
            return Err(format!("Q row {} is not finite", i / d + 1));
        }
        let tree = knn::KdTree::build(q, d);
        let mut sum = 0.0;
        let mut ties = self.p_ties;
        for (i, row) in self.p.chunks_exact(d).enumerate() {
            let (s2, t) = tree.kth_positive(row, self.k, None);
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

/// One-shot D̂(P‖Q) (see [`KnnKl`]); `p` and `q` row-major with d columns.
///
/// Errors: those of [`KnnKl::new`] and [`KnnKl::kl`].
pub fn kl_knn(p: &[f64], q: &[f64], d: usize, k: usize) -> Result<KlEstimate, String> {
    if d == 0 || !p.len().is_multiple_of(d) {
        return Err(format!(
            "P has {} values, not a multiple of d = {d}",
            p.len()
        ));
    }
    KnnKl::new(p, p.len() / d, d, k)?.kl(q)
}

/// Table 1's KL of fantasy data against a fixed test set: the test set and every fantasy
/// sample standardized with the **training** mean and sample sd, then [`KnnKl`]: D̂(test ‖
/// fantasy) with the test set as P (built once per chain, each fantasy sample one
/// [`KnnKl::kl`]), or D̂(fantasy ‖ test) under [`KlDirection::ModelTest`] (each fantasy sample
/// then builds its own [`KnnKl`] and queries the test set).
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct FantasyKl {
    standardizer: Standardizer,
    knn: KnnKl,
    direction: KlDirection,
}

impl FantasyKl {
    /// `train`: n_train × d, `test`: n_test × d, both row-major in data units; `k` ≥ 1.
    ///
    /// Errors: a constant or non-finite training column, fewer than 2 training rows, n_test ≤ k,
    /// a non-finite test value, or a test point with fewer than k distinct neighbours.
    pub fn new(
        train: &[f64],
        n_train: usize,
        test: &[f64],
        n_test: usize,
        d: usize,
        k: usize,
        direction: KlDirection,
    ) -> Result<Self, String> {
        let standardizer =
            Standardizer::fit(train, n_train, d).map_err(|e| format!("training data: {e}"))?;
        Self::with_standardizer(standardizer, test, n_test, k, direction)
    }

    /// As [`FantasyKl::new`] with a standardizer already fitted on the training data (d = its
    /// length).
    ///
    /// Errors: those of [`KnnKl::new`] on the standardized test set, prefixed `test set:`.
    pub fn with_standardizer(
        standardizer: Standardizer,
        test: &[f64],
        n_test: usize,
        k: usize,
        direction: KlDirection,
    ) -> Result<Self, String> {
        let d = standardizer.mean.len();
        let mut p = test.to_vec();
        standardizer.apply(&mut p);
        let knn = KnnKl::new(&p, n_test, d, k).map_err(|e| format!("test set: {e}"))?;
        Ok(FantasyKl {
            standardizer,
            knn,
            direction,
        })
    }

    /// The training standardizer.
    pub fn standardizer(&self) -> &Standardizer {
        &self.standardizer
    }

    /// The estimator on the standardized test set.
    pub fn knn(&self) -> &KnnKl {
        &self.knn
    }

    /// D̂(test ‖ Q) (or D̂(Q ‖ test), by the direction) for fantasy data `q` (m × d, row-major)
    /// in **data units**.
    ///
    /// Errors: those of [`FantasyKl::kl_standardized`].
    pub fn kl_data_units(&self, q: &[f64]) -> Result<KlEstimate, String> {
        let mut z = q.to_vec();
        self.standardizer.apply(&mut z);
        self.kl_standardized(&z)
    }

    /// D̂(test ‖ Q) (or D̂(Q ‖ test), by the direction) for fantasy data `z` already in the
    /// standardized space.
    ///
    /// Errors: those of [`KnnKl::kl`]; under [`KlDirection::ModelTest`] also those of
    /// [`KnnKl::new`] on `z` (m ≤ k, or a fantasy point with fewer than k distinct neighbours).
    pub fn kl_standardized(&self, z: &[f64]) -> Result<KlEstimate, String> {
        match self.direction {
            KlDirection::TestModel => self.knn.kl(z),
            KlDirection::ModelTest => kl_knn(z, &self.knn.p, self.knn.d, self.knn.k),
        }
    }
}

/// The reference rows of `kl_reference.csv`, in the standardized space of the
/// training data.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct KlReference {
    /// D̂(test ‖ train), or D̂(train ‖ test) under [`KlDirection::ModelTest`] (the paper quotes
    /// it in §5.1: 0.003 ring, 0.025 pinwheel, < 0.001 geyser, 0.113 iris, 0.109 abalone), nats.
    pub kl_train_test: f64,
    /// Mean over `permutations` draws of D̂(test ‖ train with each column permuted
    /// independently), in the same direction as `kl_train_test`: what a model without dependence between columns cannot beat, nats.
    pub kl_independent: f64,
    /// Sample sd (n − 1) of the `permutations` draws averaged in `kl_independent` (NaN for one
    /// draw), nats: its Monte Carlo error is this over √permutations.
    pub kl_independent_sd: f64,
    /// The tie count of D̂(test ‖ train).
    pub zero_distance_ties: u64,
    /// Number of permutation draws averaged in `kl_independent`.
    pub permutations: usize,
}

/// Default number of column-permutation draws of [`KlReference::kl_independent`].
pub const KL_INDEPENDENT_PERMUTATIONS: usize = 20;

/// The reference rows for one dataset: `train` (n_train × d) and `test` (n_test × d) in data
/// units, both standardized with the training mean and sd, in `direction`; the permutations are uniform
/// (Fisher–Yates with `rng.random_range`), one per column per draw, column 0 first.
///
/// Errors: different column counts, those of [`FantasyKl::new`], `permutations` = 0, or
/// n_train < k.
pub fn kl_reference(
    train: &Matrix,
    test: &Matrix,
    k: usize,
    direction: KlDirection,
    permutations: usize,
    rng: &mut crate::seed::ChainRng,
) -> Result<KlReference, String> {
    use rand::RngExt;
    if permutations == 0 {
        return Err("kl_independent needs at least one permutation".into());
    }
    if train.cols != test.cols {
        return Err(format!(
            "train has {} columns and test {}",
            train.cols, test.cols
        ));
    }
    train.check()?;
    test.check()?;
    let (n_train, d) = (train.rows, train.cols);
    let fk = FantasyKl::new(
        &train.values,
        n_train,
        &test.values,
        test.rows,
        d,
        k,
        direction,
    )?;
    let train = &train.values;
    let mut z = train.to_vec();
    fk.standardizer.apply(&mut z);
    let base = fk
        .kl_standardized(&z)
        .map_err(|e| format!("train as the model: {e}"))?;
    let mut draws = Vec::with_capacity(permutations);
    let mut perm = z.clone();
    for _ in 0..permutations {
        for j in 0..d {
            for i in (1..n_train).rev() {
                let r = rng.random_range(0..=i);
                perm.swap(i * d + j, r * d + j);
            }
        }
        draws.push(
            fk.kl_standardized(&perm)
                .map_err(|e| format!("permuted train as the model: {e}"))?
                .kl,
        );
    }
    let (mean, sd) = crate::metrics::mean_sd(&draws);
    Ok(KlReference {
        kl_train_test: base.kl,
        kl_independent: mean,
        kl_independent_sd: sd,
        zero_distance_ties: base.zero_distance_ties,
        permutations,
    })
}

pub mod alignment;
pub mod kde;
pub mod knn;
pub mod prior_moments;

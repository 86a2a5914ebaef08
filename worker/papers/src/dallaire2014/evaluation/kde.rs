//! The kernel density baseline of Table 1 (paper `004_74db43a26dbf0fa1.txt` §5.1; settings from
//! the paper gives none).
//!
//! An isotropic Gaussian kernel on the training data standardized with the training mean and
//! sample sd: f(z) = (1/n) Σ_j N(z; z_j, h_j² I), with h_j = h·λ_j.
//! - `bandwidth: global` (default): λ_j = 1 and h maximizes the mean leave-one-out log density
//!   L(h) = (1/n) Σ_i ln[(1/n_i) Σ_{j≠i, z_j≠z_i} N(z_i; z_j, h² I)] over [10⁻³, 10]: a 401-point
//!   grid in ln h, then golden section around the best grid point to |Δ ln h| < 10⁻⁸.
//! - `bandwidth: local` (an extra; the paper cites Barnard (2010)'s local leave-one-out
//!   criterion without giving it): Abramson's sample-point widths λ_j = (f̃_{−j}(z_j)/g)^{−1/2},
//!   with f̃_{−j}(z_j) the leave-one-out density of the global fit at z_j and g their geometric
//!   mean; the scale h is then re-chosen by the same leave-one-out criterion with these λ_j.
//!
//! Exact duplicates (`kde_ties`): by default (`skip`) a training point's own duplicates (distance
//! 0) are left out of its leave-one-out sum and n_i counts the rest, as the KL estimator skips
//! zero distances. This is a choice, not a necessity: with them kept (`keep`, the textbook
//! leave-one-out, every j ≠ i), a
//! duplicated row's own term grows like −d ln h as h → 0, but every row without a duplicate falls
//! like −min_j |z_i − z_j|²/2h², so L(h) stays bounded unless every row is duplicated. On
//! geyser's training half (136 rows, 2 duplicated pairs) keeping them gives h = 0.18791 and
//! L = −1.52545, against 0.18848 and −1.52723 here; dividing by n − 1 instead of n_i moves L by
//! a constant (−1.52745) and not h; de-duplicating the rows first gives 0.19054.
//!
//! The pairwise squared distances are computed once and each row is sorted, so that the sum over
//! j stops once the remaining terms cannot reach e^(−40)/n of the largest (below f64 rounding).
//! Memory is n² values: n_train is capped at [`MAX_TRAIN_ROWS`].

use rand::RngExt;
use rand_distr::{Distribution, StandardNormal};

use super::Standardizer;
use crate::dallaire2014::params::{Bandwidth, KdeTies};
use crate::seed::ChainRng;

/// Lower end of the bandwidth search, standardized units.
pub const BANDWIDTH_MIN: f64 = 1e-3;
/// Upper end of the bandwidth search, standardized units.
pub const BANDWIDTH_MAX: f64 = 10.0;
/// Points of the log grid.
pub const GRID_POINTS: usize = 401;
/// Golden-section stopping width in ln h.
pub const LN_H_TOLERANCE: f64 = 1e-8;
/// Largest training set the leave-one-out criterion accepts (its n² distances are kept).
pub const MAX_TRAIN_ROWS: usize = 10_000;

/// Terms below e^(−CUTOFF)/n of the running maximum are dropped from a log-sum-exp.
const CUTOFF: f64 = 40.0;

/// The leave-one-out criterion on a fixed standardized training set with fixed relative widths
/// λ_j (h_j = h·λ_j): for every row i, the scaled squared distances e_ij = |z_i − z_j|²/λ_j² to
/// the other points at a positive distance, sorted ascending (CSR layout), with their columns.
/// Then ln N(z_i; z_j, h_j² I) = −(d/2) ln 2π − d ln h + c_j − e_ij/(2h²) with c_j = −d ln λ_j,
/// and every term after e_ij in row i is at most −d ln h + max_j c_j − e_ij/(2h²).
#[derive(Debug, Clone)]
pub struct LooCriterion {
    n: usize,
    d: usize,
    /// Row i is `scaled[start[i]..start[i + 1]]`.
    start: Vec<usize>,
    scaled: Vec<f64>,
    col: Vec<u32>,
    /// c_j = −d ln λ_j, n values.
    c: Vec<f64>,
    c_max: f64,
}

impl LooCriterion {
    /// `z`: n × d standardized training points, row-major; `lambda`: the relative widths
    /// (n values, > 0), or None for λ ≡ 1 (`bandwidth: global`); `ties`: whether a point's exact
    /// duplicates enter its own leave-one-out sum.
    ///
    /// Errors: n < 2, n > [`MAX_TRAIN_ROWS`], a wrong length, a λ_j not finite and positive, or
    /// (with `skip`) a point all of whose other points are its duplicates.
    pub fn new(
        z: &[f64],
        n: usize,
        d: usize,
        lambda: Option<&[f64]>,
        ties: KdeTies,
    ) -> Result<Self, String> {
        if n < 2 || d == 0 || z.len() != n * d {
            return Err(format!(
                "the KDE needs n ≥ 2 training rows of d ≥ 1 values (n = {n}, d = {d})"
            ));
        }
        if n > MAX_TRAIN_ROWS {
            return Err(format!(
                "the KDE's leave-one-out criterion keeps n² distances: n_train = {n} exceeds {MAX_TRAIN_ROWS}"
            ));
        }
        let ones = vec![1.0; n];
        let lambda = lambda.unwrap_or(&ones);
        if lambda.len() != n || lambda.iter().any(|l| !(l.is_finite() && *l > 0.0)) {
            return Err("the local widths must be n finite positive values".into());
        }
        let inv_l2: Vec<f64> = lambda.iter().map(|l| 1.0 / (l * l)).collect();
        let c: Vec<f64> = lambda.iter().map(|l| -(d as f64) * l.ln()).collect();
        let c_max = c.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let mut start = Vec::with_capacity(n + 1);
        let mut scaled = Vec::with_capacity(n * (n - 1));
        let mut col = Vec::with_capacity(n * (n - 1));
        let mut row: Vec<(f64, u32)> = Vec::with_capacity(n);
        start.push(0);
        for i in 0..n {
            row.clear();
            let zi = &z[i * d..(i + 1) * d];
            for j in 0..n {
                if j != i {
                    let s = super::knn::dist2(zi, &z[j * d..(j + 1) * d]);
                    if s > 0.0 || ties == KdeTies::Keep {
                        row.push((s * inv_l2[j], j as u32));
                    }
                }
            }
            if row.is_empty() {
                return Err(format!("training row {} has no distinct neighbour", i + 1));
            }
            row.sort_by(|a, b| a.0.total_cmp(&b.0));
            scaled.extend(row.iter().map(|r| r.0));
            col.extend(row.iter().map(|r| r.1));
            start.push(scaled.len());
        }
        Ok(LooCriterion {
            n,
            d,
            start,
            scaled,
            col,
            c,
            c_max,
        })
    }

    /// Number of training points.
    pub fn n(&self) -> usize {
        self.n
    }

    /// ln f̂_{−i}(z_i) for every i (n values, standardized space, nats) at scale h.
    pub fn loo_log_liks(&self, h: f64) -> Vec<f64> {
        let d = self.d as f64;
        let c0 = -0.5 * d * (2.0 * std::f64::consts::PI).ln();
        let cut = CUTOFF + (self.n as f64).ln();
        let dlh = d * h.ln();
        let inv2h2 = 0.5 / (h * h);
        let mut out = Vec::with_capacity(self.n);
        for i in 0..self.n {
            let row = self.start[i]..self.start[i + 1];
            let count = (row.end - row.start) as f64;
            let (mut mx, mut s) = (f64::NEG_INFINITY, 0.0);
            for p in row {
                let e = self.scaled[p] * inv2h2;
                let t = self.c[self.col[p] as usize] - dlh - e;
                if t > mx {
                    s = s * (mx - t).exp() + 1.0;
                    mx = t;
                } else {
                    s += (t - mx).exp();
                }
                // Every later term is at most this bound (scaled distances ascend).
                if self.c_max - dlh - e < mx - cut {
                    break;
                }
            }
            out.push(c0 + mx + s.ln() - count.ln());
        }
        out
    }

    /// L(h) = the mean of [`LooCriterion::loo_log_liks`].
    pub fn mean_log_lik(&self, h: f64) -> f64 {
        let v = self.loo_log_liks(h);
        v.iter().sum::<f64>() / v.len() as f64
    }

    /// The h in [[`BANDWIDTH_MIN`], [`BANDWIDTH_MAX`]] maximizing L(h): the best of a
    /// [`GRID_POINTS`]-point grid in ln h, refined by golden section on the two neighbouring
    /// grid intervals to [`LN_H_TOLERANCE`]. Returns (h, L(h)).
    pub fn maximize(&self) -> (f64, f64) {
        maximize_ln_h(|ln_h| self.mean_log_lik(ln_h.exp()))
    }
}

/// Maximize `f(ln h)` over ln h ∈ [ln 10⁻³, ln 10]: grid of [`GRID_POINTS`], then golden section
/// over [grid[b−1], grid[b+1]] (clamped) around the best grid point b, to a width below
/// [`LN_H_TOLERANCE`]; the better of the refined point and the grid point wins. Returns (h, f).
pub fn maximize_ln_h(f: impl Fn(f64) -> f64) -> (f64, f64) {
    let (lo, hi) = (BANDWIDTH_MIN.ln(), BANDWIDTH_MAX.ln());
    let step = (hi - lo) / (GRID_POINTS - 1) as f64;
    let grid = |i: usize| {
        if i + 1 == GRID_POINTS {
            hi
        } else {
            lo + step * i as f64
        }
    };
    let (mut best, mut best_v) = (0, f64::NEG_INFINITY);
    for i in 0..GRID_POINTS {
        let v = f(grid(i));
        if v > best_v {
            best = i;
            best_v = v;
        }
    }
    let (mut a, mut b) = (
        grid(best.saturating_sub(1)),
        grid((best + 1).min(GRID_POINTS - 1)),
    );
    let inv_phi = (5f64.sqrt() - 1.0) / 2.0;
    let mut c = b - inv_phi * (b - a);
    let mut e = a + inv_phi * (b - a);
    let (mut fc, mut fe) = (f(c), f(e));
    while b - a > LN_H_TOLERANCE {
        if fc > fe {
            b = e;
            e = c;
            fe = fc;
            c = b - inv_phi * (b - a);
            fc = f(c);
        } else {
            a = c;
            c = e;
            fc = fe;
            e = a + inv_phi * (b - a);
            fe = f(e);
        }
    }
    let x = 0.5 * (a + b);
    let fx = f(x);
    if fx >= best_v {
        (x.exp(), fx)
    } else {
        (grid(best).exp(), best_v)
    }
}

/// A fitted KDE: the standardized training points, the widths and the training standardizer.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Kde {
    d: usize,
    /// n × d standardized training points.
    z: Vec<f64>,
    /// λ_j, n values (all 1 for `bandwidth: global`).
    lambda: Vec<f64>,
    h: f64,
    loo_mean_log_lik: f64,
    standardizer: Standardizer,
}

impl Kde {
    /// Fit on `train` (n × d, row-major, data units) with the width rule `rule` and the
    /// leave-one-out treatment of duplicates `ties`.
    ///
    /// Errors: those of [`Standardizer::fit`] and [`LooCriterion::new`], or a non-finite
    /// criterion.
    pub fn fit(
        train: &[f64],
        n: usize,
        d: usize,
        rule: Bandwidth,
        ties: KdeTies,
    ) -> Result<Self, String> {
        let standardizer =
            Standardizer::fit(train, n, d).map_err(|e| format!("training data: {e}"))?;
        let mut z = train.to_vec();
        standardizer.apply(&mut z);
        let loo = LooCriterion::new(&z, n, d, None, ties)?;
        let (mut h, mut value) = loo.maximize();
        let mut lambda = vec![1.0; n];
        if rule == Bandwidth::Local {
            let pilot = loo.loo_log_liks(h);
            drop(loo);
            let mean = pilot.iter().sum::<f64>() / n as f64;
            lambda = pilot.iter().map(|l| (-0.5 * (l - mean)).exp()).collect();
            (h, value) = LooCriterion::new(&z, n, d, Some(&lambda), ties)?.maximize();
        }
        if !value.is_finite() {
            return Err(format!(
                "the leave-one-out criterion is not finite at h = {h}"
            ));
        }
        Ok(Kde {
            d,
            z,
            lambda,
            h,
            loo_mean_log_lik: value,
            standardizer,
        })
    }

    /// The global scale h (standardized units).
    pub fn bandwidth(&self) -> f64 {
        self.h
    }

    /// λ_j (n values; h_j = h·λ_j), all 1 for `bandwidth: global`.
    pub fn local_factors(&self) -> &[f64] {
        &self.lambda
    }

    /// The maximized mean leave-one-out log density (standardized space, nats).
    pub fn loo_mean_log_lik(&self) -> f64 {
        self.loo_mean_log_lik
    }

    /// The training standardizer.
    pub fn standardizer(&self) -> &Standardizer {
        &self.standardizer
    }

    /// Mean over the rows of `x` (rows × d, data units) of ln f(x) in **data units**: the
    /// standardized log density minus Σ_j ln sd_j. Nats.
    ///
    /// Errors: a length that is not a positive multiple of d.
    pub fn mean_log_density(&self, x: &[f64]) -> Result<f64, String> {
        let d = self.d;
        if x.is_empty() || !x.len().is_multiple_of(d) {
            return Err(format!("{} values are not rows of d = {d}", x.len()));
        }
        let mut t = x.to_vec();
        self.standardizer.apply(&mut t);
        let n = self.lambda.len();
        let df = d as f64;
        let c0 = -0.5 * df * (2.0 * std::f64::consts::PI).ln() - (n as f64).ln();
        let ln_w: Vec<f64> = self.lambda.iter().map(|l| (self.h * l).ln()).collect();
        let inv2w2: Vec<f64> = self
            .lambda
            .iter()
            .map(|l| 0.5 / ((self.h * l) * (self.h * l)))
            .collect();
        let mut terms = vec![0.0; n];
        let mut total = 0.0;
        for ti in t.chunks_exact(d) {
            for (j, term) in terms.iter_mut().enumerate() {
                let s = super::knn::dist2(ti, &self.z[j * d..(j + 1) * d]);
                *term = -df * ln_w[j] - s * inv2w2[j];
            }
            total += c0 + crate::math::log_sum_exp(&terms);
        }
        let rows = (t.len() / d) as f64;
        Ok(total / rows - self.standardizer.log_jacobian())
    }

    /// m fantasy points in the **standardized** space (m × d, row-major): for each, a training
    /// point j chosen uniformly (`random_range`), then z_j + h·λ_j·ε with ε ~ N(0, I) (d
    /// standard normals, in column order).
    pub fn sample_standardized(&self, m: usize, rng: &mut ChainRng) -> Vec<f64> {
        let d = self.d;
        let n = self.lambda.len();
        let mut out = Vec::with_capacity(m * d);
        for _ in 0..m {
            let j = rng.random_range(0..n);
            let w = self.h * self.lambda[j];
            for c in 0..d {
                let e: f64 = StandardNormal.sample(rng);
                out.push(self.z[j * d + c] + w * e);
            }
        }
        out
    }

    /// [`Kde::sample_standardized`] mapped back to data units: x = mean + sd ∘ z.
    pub fn sample(&self, m: usize, rng: &mut ChainRng) -> Vec<f64> {
        let mut z = self.sample_standardized(m, rng);
        let s = &self.standardizer;
        for row in z.chunks_exact_mut(self.d) {
            for ((v, mu), sd) in row.iter_mut().zip(&s.mean).zip(&s.sd) {
                *v = mu + sd * *v;
            }
        }
        z
    }
}

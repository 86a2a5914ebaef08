//! Evaluation of paper 000 (`000_64a353240e4f1919.txt`, §5): the error measures of Figure 4,
//! polars-free. The report (`results/src/report/wood2006/`) applies them to stored chains.
//!
//! Shapes: `Z` is N observed × K causes, so `Z Zᵀ` is N × N; matrices are row-major slices.

use crate::data::Matrix;

/// In-degree error (paper 000, §5): `Σ_i |(Z Zᵀ)_ii − E[Z Zᵀ]_ii|`, the summed absolute
/// difference between the true and the expected in-degree of each observed node.
/// `zzt_true`, `zzt_mean`: N × N row-major.
pub fn in_degree_error(zzt_true: &[f64], zzt_mean: &[f64], n: usize) -> f64 {
    (0..n)
        .map(|i| (zzt_true[i * n + i] - zzt_mean[i * n + i]).abs())
        .sum()
}

/// Structure error (paper 000, §5): summed absolute difference between the upper-triangular
/// parts (diagonal excluded) of `Z Zᵀ` and `E[Z Zᵀ]`; each entry counts the hidden causes
/// two observed variables share. `zzt_true`, `zzt_mean`: N × N row-major.
pub fn structure_error(zzt_true: &[f64], zzt_mean: &[f64], n: usize) -> f64 {
    let mut s = 0.0;
    for i in 0..n {
        for j in (i + 1)..n {
            s += (zzt_true[i * n + j] - zzt_mean[i * n + j]).abs();
        }
    }
    s
}

/// `Z Zᵀ` of a binary N × K matrix (row-major), as N × N row-major.
pub fn zzt(z: &[f64], n: usize, k: usize) -> Vec<f64> {
    let mut out = vec![0.0; n * n];
    for i in 0..n {
        for j in 0..n {
            out[i * n + j] = (0..k).map(|c| z[i * k + c] * z[j * k + c]).sum();
        }
    }
    out
}

/// Unpack one row of packed upper-triangular values (diagonal included, row-major order
/// `(0,0),(0,1),…,(0,N−1),(1,1),…`) into a symmetric N × N matrix.
pub fn unpack_upper(packed: &[f64], n: usize) -> Vec<f64> {
    let mut out = vec![0.0; n * n];
    let mut idx = 0;
    for i in 0..n {
        for j in i..n {
            let v = packed.get(idx).copied().unwrap_or(f64::NAN);
            out[i * n + j] = v;
            out[j * n + i] = v;
            idx += 1;
        }
    }
    out
}

/// Iteration counts at which Figure 4's errors are evaluated: 1, 2, 5, 10, 20, 50, … ≤ `max`.
pub fn checkpoints(max: u64) -> Vec<u64> {
    let mut out = Vec::new();
    let mut base = 1u64;
    while base <= max {
        for f in [1, 2, 5] {
            if base * f <= max {
                out.push(base * f);
            }
        }
        base *= 10;
    }
    if out.last() != Some(&max) {
        out.push(max);
    }
    out
}

/// Figure 4's errors for one chain: `(in-degree error, structure error, seconds)` at each
/// checkpoint of `cps` (iterations, ascending), from E[Z Zᵀ] averaged over iterations 1..=r (no
/// burn-in, as the paper). `t_it`, `t_s`: the chain's recorded iterations and wall-clock seconds.
/// Checkpoints past the chain's length give NaN.
/// `draws`: R × N(N+1)/2 packed Z Zᵀ per iteration; `zt`: true Z Zᵀ (N × N).
pub fn errors_at(
    draws: &Matrix,
    n: usize,
    zt: &[f64],
    cps: &[u64],
    t_it: &[u64],
    t_s: &[f64],
) -> Vec<(f64, f64, f64)> {
    let p = draws.cols;
    let mut sum = vec![0.0; p];
    let mut out = Vec::with_capacity(cps.len());
    let mut next = 0usize;
    for r in 0..draws.rows {
        for (s, v) in sum.iter_mut().zip(&draws.values[r * p..(r + 1) * p]) {
            *s += v;
        }
        while next < cps.len() && cps[next] == (r + 1) as u64 {
            let mean: Vec<f64> = sum.iter().map(|s| s / (r + 1) as f64).collect();
            let full = unpack_upper(&mean, n);
            let secs = match t_it.iter().rposition(|&i| i <= cps[next]) {
                Some(k) => t_s[k],
                None => f64::NAN,
            };
            out.push((
                in_degree_error(zt, &full, n),
                structure_error(zt, &full, n),
                secs,
            ));
            next += 1;
        }
    }
    while out.len() < cps.len() {
        out.push((f64::NAN, f64::NAN, f64::NAN));
    }
    out
}

/// The `log_joint` trace value (see `HiddenCauseSampler::log_joint`) of the state (Z, Y) for data
/// X under `params` (its sampler's target: Gibbs, the IBP class probability; RJMCMC, Eq. 5 and
/// P(K)). Used to compare a chain's log joint with that of the true structure.
/// `x`: N × T, `z`: N × K, `y`: K × T. Errors: shapes that do not fit, invalid `params`.
pub fn log_joint_of(
    params: &crate::wood2006::Params,
    x: &crate::wood2006::BinaryMatrix,
    z: &crate::wood2006::BinaryMatrix,
    y: &crate::wood2006::BinaryMatrix,
) -> Result<f64, crate::SamplerError> {
    // The initial state is replaced at once, so the generator's draws do not matter.
    let mut rng = crate::seed::chain_rng(0, 0, 0, 0);
    let mut s = crate::wood2006::HiddenCauseSampler::new(params, x, Vec::new(), &mut rng)?;
    s.set_state(z, y, None)?;
    Ok(s.log_joint())
}

/// The posterior of RJMCMC's number of columns K given its linked columns: in the
/// finite model (§3.1, Algorithm 1) with prior `k_prior` on `1..=k_max`, K depends on the data
/// only through the K_+ linked columns, whose counts are `ms` (each ≥ 1):
/// `P(K | Z_+) ∝ P(K) · K!/(K−K_+)! · Π_{k ≤ K_+} g_K(m_k) · g_K(0)^{K−K_+}` for `K ≥ K_+`, where
/// `g_K(m)` is Eq. 5's column factor [`eq::ln_p_z_finite_column`] and `K!/(K−K_+)!` counts the
/// placements of the linked columns among K ordered ones (the empty columns' rows of Y integrate
/// to 1). Returns `(K, P(K | Z_+))` for every K with positive mass; empty if `ms` is longer than
/// `k_max`.
///
/// [`eq::ln_p_z_finite_column`]: crate::wood2006::equations::ln_p_z_finite_column
pub fn k_posterior_given_linked(
    ms: &[usize],
    n: usize,
    alpha: f64,
    k_prior: crate::wood2006::KPrior,
    k_max: usize,
) -> Vec<(usize, f64)> {
    use crate::wood2006::equations as eq;
    let k_plus = ms.len();
    let lo = k_plus.max(1);
    if lo > k_max {
        return Vec::new();
    }
    let ln_w: Vec<f64> = (lo..=k_max)
        .map(|k| {
            let linked: f64 = ms
                .iter()
                .map(|&m| eq::ln_p_z_finite_column(m, n, alpha, k))
                .sum();
            let placements = statrs::function::factorial::ln_factorial(k as u64)
                - statrs::function::factorial::ln_factorial((k - k_plus) as u64);
            eq::ln_k_prior(k_prior, k, k_max, alpha, n)
                + placements
                + linked
                + (k - k_plus) as f64 * eq::ln_p_z_finite_column(0, n, alpha, k)
        })
        .collect();
    let lse = crate::math::log_sum_exp(&ln_w);
    (lo..=k_max)
        .zip(ln_w)
        .map(|(k, w)| (k, (w - lse).exp()))
        .collect()
}

/// `E[K | Z_+]` from [`k_posterior_given_linked`] (NaN when it is empty).
pub fn expected_k_given_linked(
    ms: &[usize],
    n: usize,
    alpha: f64,
    k_prior: crate::wood2006::KPrior,
    k_max: usize,
) -> f64 {
    let post = k_posterior_given_linked(ms, n, alpha, k_prior, k_max);
    if post.is_empty() {
        return f64::NAN;
    }
    post.iter().map(|&(k, p)| k as f64 * p).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_match_definitions() {
        // Z: 3 observed × 2 causes.
        let z = [1.0, 0.0, 1.0, 1.0, 0.0, 1.0];
        let t = zzt(&z, 3, 2);
        assert_eq!(t, vec![1.0, 1.0, 0.0, 1.0, 2.0, 1.0, 0.0, 1.0, 1.0]);
        let m = vec![0.0; 9];
        assert_eq!(in_degree_error(&t, &m, 3), 4.0);
        assert_eq!(structure_error(&t, &m, 3), 2.0);
        assert_eq!(unpack_upper(&[1.0, 1.0, 0.0, 2.0, 1.0, 1.0], 3), t);
    }
}

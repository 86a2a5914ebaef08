//! numpy-style pairwise summation, mean and variance: the same association as numpy, so the
//! rounding stays close to ArviZ's.

use super::memory::{par_map, threads_for};

/// Sum with numpy's pairwise algorithm (`pairwise_sum` in numpy's `loops_utils.h`):
/// blocks of ≤128 values summed with 8 accumulators, larger ranges split in two.
/// Using the same association as numpy keeps rounding close to ArviZ's and keeps the
/// error O(log n · ε) for the million-draw chains.
pub(crate) fn pairwise_sum(a: &[f64]) -> f64 {
    let n = a.len();
    if n < 8 {
        let mut res = 0.0;
        for &x in a {
            res += x;
        }
        res
    } else if n <= 128 {
        let mut r = [0.0f64; 8];
        r.copy_from_slice(&a[..8]);
        let full = n - n % 8;
        let mut i = 8;
        while i < full {
            for (j, rj) in r.iter_mut().enumerate() {
                *rj += a[i + j];
            }
            i += 8;
        }
        let mut res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
        for &x in &a[full..] {
            res += x;
        }
        res
    } else {
        let mut n2 = n / 2;
        n2 -= n2 % 8;
        pairwise_sum(&a[..n2]) + pairwise_sum(&a[n2..])
    }
}

/// Arithmetic mean as `np.mean` (pairwise sum divided by the count).
pub(crate) fn mean(a: &[f64]) -> f64 {
    pairwise_sum(a) / a.len() as f64
}

/// Variance with `ddof` as `np.var`: mean of squared deviations from the mean, divided by
/// `n - ddof`.
pub(crate) fn var(a: &[f64], ddof: usize) -> f64 {
    var_about(a, mean(a), ddof)
}

/// [`var`] given the mean `m` of `a` (as [`mean`] computes it), saving that pass.
pub(crate) fn var_about(a: &[f64], m: f64, ddof: usize) -> f64 {
    let n = a.len();
    // Chunked so the squared deviations need no n-sized temporary but are still summed
    // pairwise within 4096-value blocks.
    let mut partial = Vec::with_capacity(n.div_ceil(4096));
    let mut buf = [0.0f64; 4096];
    for chunk in a.chunks(4096) {
        for (b, &x) in buf.iter_mut().zip(chunk) {
            let d = x - m;
            *b = d * d;
        }
        partial.push(pairwise_sum(&buf[..chunk.len()]));
    }
    pairwise_sum(&partial) / (n as f64 - ddof as f64)
}

/// Mean and variance (`ddof`) of several equal-length slices taken together, as `np.mean` /
/// `np.var` of the flattened M×N array.
pub(crate) fn var_of_chains(chains: &[&[f64]], ddof: usize) -> f64 {
    let n: usize = chains.iter().map(|c| c.len()).sum();
    let sums: Vec<f64> = chains.iter().map(|c| pairwise_sum(c)).collect();
    let m = pairwise_sum(&sums) / n as f64;
    let mut partial = Vec::new();
    let mut buf = [0.0f64; 4096];
    for c in chains {
        for chunk in c.chunks(4096) {
            for (b, &x) in buf.iter_mut().zip(chunk) {
                let d = x - m;
                *b = d * d;
            }
            partial.push(pairwise_sum(&buf[..chunk.len()]));
        }
    }
    pairwise_sum(&partial) / (n as f64 - ddof as f64)
}

/// `np.mean` of each chain, on parallel threads for long chains.
pub(crate) fn chain_means(chains: &[&[f64]]) -> Vec<f64> {
    let total = chains.first().map_or(0, |c| c.len()) * chains.len();
    par_map(chains, threads_for(total, 1 << 18), |c| mean(c))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairwise_matches_naive_on_exact_values() {
        for n in [0usize, 1, 7, 8, 9, 127, 128, 129, 1000, 10_001] {
            let a: Vec<f64> = (0..n).map(|i| i as f64).collect();
            let want = (n * n.saturating_sub(1) / 2) as f64;
            assert_eq!(pairwise_sum(&a), want, "n={n}");
        }
    }

    #[test]
    fn variance_small() {
        let a = [1.0, 2.0, 3.0, 4.0];
        assert!((var(&a, 1) - 5.0 / 3.0).abs() < 1e-15);
        assert!((var_of_chains(&[&a[..2], &a[2..]], 1) - 5.0 / 3.0).abs() < 1e-15);
    }
}

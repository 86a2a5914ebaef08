//! The per-step loops of SIS-CN ([`super::smc`], Fig. 4.1, eqs. 4.9 and 4.16) over all particles
//! or all (particle, class) cells, each compiled for AVX-512 and AVX2 as well as the baseline
//! x86-64 and picked at run time from the CPU's features (`multiversion`). Every version runs the
//! same plain f64 operations in the same order (no FMA, and every sum over particles stays a
//! left-to-right loop), so every path gives the same bits as the baseline.
//!
//! Each kernel is an `#[inline(always)]` body (`*_body`), inlined into its dispatching function
//! and, in the tests, into baseline code to compare the two bit for bit.

// Parallel structure-of-arrays indexing reads clearer as index loops.
#![allow(clippy::needless_range_loop)]

use crate::math::{exp_neg_fast, ln_fast};

/// The proposal of eq. 4.9 up to its normaliser, for J particles × R classes, cells class-major
/// (`l[r·J + j]`, J = `mx.len()`, R = `l.len()` / J): `l` holds ℓ − step constant on entry and
/// exp(ℓ − max_r ℓ), times `scale` (same layout) if `scaled`, on exit; `mx[j]` gets max_r ℓ of
/// particle j and `ssum[j]` the sum of its R values of `l` on exit (classes in order: ν^{t,j} of
/// eq. 4.16 up to exp(mx)).
pub(crate) fn proposal(
    l: &mut [f64],
    scale: &[f64],
    scaled: bool,
    mx: &mut [f64],
    ssum: &mut [f64],
) {
    proposal_dispatch(l, scale, scaled, mx, ssum);
}

/// The loops of [`proposal`].
#[inline(always)]
fn proposal_body(l: &mut [f64], scale: &[f64], scaled: bool, mx: &mut [f64], ssum: &mut [f64]) {
    let j_n = mx.len();
    let r_n = l.len() / j_n;
    let ssum = &mut ssum[..j_n];
    mx.copy_from_slice(&l[..j_n]);
    for r in 1..r_n {
        let l = &l[r * j_n..(r + 1) * j_n];
        for j in 0..j_n {
            mx[j] = if l[j] > mx[j] { l[j] } else { mx[j] };
        }
    }
    for r in 0..r_n {
        let l = &mut l[r * j_n..(r + 1) * j_n];
        if scaled {
            let g = &scale[r * j_n..(r + 1) * j_n];
            for j in 0..j_n {
                l[j] = exp_neg_fast(l[j] - mx[j]) * g[j];
            }
        } else {
            for j in 0..j_n {
                l[j] = exp_neg_fast(l[j] - mx[j]);
            }
        }
    }
    ssum.copy_from_slice(&l[..j_n]);
    for r in 1..r_n {
        let l = &l[r * j_n..(r + 1) * j_n];
        for j in 0..j_n {
            ssum[j] += l[j];
        }
    }
}

/// [`proposal_body`], dispatched on the CPU's features.
#[multiversion::multiversion(targets("x86_64+avx512f+avx512dq+avx2+avx", "x86_64+avx2+avx"))]
fn proposal_dispatch(l: &mut [f64], scale: &[f64], scaled: bool, mx: &mut [f64], ssum: &mut [f64]) {
    proposal_body(l, scale, scaled, mx, ssum);
}

/// ln of every value of `x` in place, with [`ln_fast`]; returns whether every value was in its
/// range (positive, finite, ≤ 10³⁰⁰; a NaN counts as out of range). If not, the values written
/// are meaningless and the caller recomputes them with the standard library's logarithm.
pub(crate) fn ln_in_place(x: &mut [f64]) -> bool {
    ln_in_place_dispatch(x)
}

/// The loop of [`ln_in_place`].
#[inline(always)]
fn ln_in_place_body(x: &mut [f64]) -> bool {
    let mut bad = 0u64;
    for p in x.iter_mut() {
        bad |= u64::from(!(*p > 0.0 && *p <= 1e300));
        *p = ln_fast(*p);
    }
    bad == 0
}

/// [`ln_in_place_body`], dispatched on the CPU's features.
#[multiversion::multiversion(targets("x86_64+avx512f+avx512dq+avx2+avx", "x86_64+avx2+avx"))]
fn ln_in_place_dispatch(x: &mut [f64]) -> bool {
    ln_in_place_body(x)
}

/// The unnormalised weights of eq. 4.16 relative to exp(`mref`): w[j] ← w[j] · ssum[j] ·
/// exp(mx[j] − mref) for the J = `w.len()` particles (mx[j] ≤ mref); returns their sum, added
/// left to right.
pub(crate) fn reweigh(w: &mut [f64], ssum: &[f64], mx: &[f64], mref: f64) -> f64 {
    reweigh_dispatch(w, ssum, mx, mref)
}

/// The loops of [`reweigh`].
#[inline(always)]
fn reweigh_body(w: &mut [f64], ssum: &[f64], mx: &[f64], mref: f64) -> f64 {
    let j_n = w.len();
    let (ssum, mx) = (&ssum[..j_n], &mx[..j_n]);
    for j in 0..j_n {
        w[j] = w[j] * ssum[j] * exp_neg_fast(mx[j] - mref);
    }
    let mut tot = 0.0;
    for v in w.iter() {
        tot += *v;
    }
    tot
}

/// [`reweigh_body`], dispatched on the CPU's features.
#[multiversion::multiversion(targets("x86_64+avx512f+avx512dq+avx2+avx", "x86_64+avx2+avx"))]
fn reweigh_dispatch(w: &mut [f64], ssum: &[f64], mx: &[f64], mref: f64) -> f64 {
    reweigh_body(w, ssum, mx, mref)
}

/// Normalise the weights: w ← w · `inv_tot`; returns Σ w² of the result (left to right), so that
/// the effective sample size is its inverse.
pub(crate) fn normalise(w: &mut [f64], inv_tot: f64) -> f64 {
    normalise_dispatch(w, inv_tot)
}

/// The loops of [`normalise`].
#[inline(always)]
fn normalise_body(w: &mut [f64], inv_tot: f64) -> f64 {
    for v in w.iter_mut() {
        *v *= inv_tot;
    }
    let mut sq = 0.0;
    for v in w.iter() {
        sq += *v * *v;
    }
    sq
}

/// [`normalise_body`], dispatched on the CPU's features.
#[multiversion::multiversion(targets("x86_64+avx512f+avx512dq+avx2+avx", "x86_64+avx2+avx"))]
fn normalise_dispatch(w: &mut [f64], inv_tot: f64) -> f64 {
    normalise_body(w, inv_tot)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::seed::chain_rng;
    use rand::RngExt;

    /// Values like the SMC's: log terms spread over ~60 nats, some far below (exp flushes them
    /// to 0), positive scales and weights, and a length that is not a multiple of any vector
    /// width (remainder loops).
    fn data(n: usize, seed: u64) -> Vec<f64> {
        let mut rng = chain_rng(seed, 0, 0, 0);
        (0..n)
            .map(|i| match i % 97 {
                0 => -800.0,
                1 => -1e-300,
                _ => -60.0 * rng.random::<f64>() + 3.0,
            })
            .collect()
    }

    fn bits(x: &[f64]) -> Vec<u64> {
        x.iter().map(|v| v.to_bits()).collect()
    }

    /// The dispatched kernels (AVX-512 or AVX2 where the machine has them) give the bits of
    /// their baseline bodies: the SMC's estimates and its random stream do not depend on the CPU.
    #[test]
    fn dispatched_kernels_give_the_baseline_bits() {
        for (j_n, r_n) in [(1003usize, 3usize), (1000, 2), (17, 5), (1, 4)] {
            let l0 = data(j_n * r_n, 1 + j_n as u64);
            let scale: Vec<f64> = data(j_n * r_n, 2)
                .iter()
                .map(|v| (v / 60.0).exp())
                .collect();
            for scaled in [false, true] {
                let (mut l_a, mut mx_a, mut s_a) = (l0.clone(), vec![0.0; j_n], vec![0.0; j_n]);
                let (mut l_b, mut mx_b, mut s_b) = (l0.clone(), vec![0.0; j_n], vec![0.0; j_n]);
                proposal(&mut l_a, &scale, scaled, &mut mx_a, &mut s_a);
                proposal_body(&mut l_b, &scale, scaled, &mut mx_b, &mut s_b);
                assert_eq!(bits(&l_a), bits(&l_b), "{j_n} {r_n} {scaled}");
                assert_eq!(bits(&mx_a), bits(&mx_b));
                assert_eq!(bits(&s_a), bits(&s_b));
                assert!(s_a.iter().all(|s| *s > 0.0 && s.is_finite()));

                let mref = mx_a.iter().fold(f64::NEG_INFINITY, |a, &b| a.max(b));
                let w0: Vec<f64> = scale[..j_n].to_vec();
                let (mut w_a, mut w_b) = (w0.clone(), w0);
                let tot_a = reweigh(&mut w_a, &s_a, &mx_a, mref);
                let tot_b = reweigh_body(&mut w_b, &s_b, &mx_b, mref);
                assert_eq!((bits(&w_a), tot_a.to_bits()), (bits(&w_b), tot_b.to_bits()));
                let sq_a = normalise(&mut w_a, 1.0 / tot_a);
                let sq_b = normalise_body(&mut w_b, 1.0 / tot_b);
                assert_eq!((bits(&w_a), sq_a.to_bits()), (bits(&w_b), sq_b.to_bits()));
                assert!(sq_a > 0.0 && sq_a <= 1.0);
            }
            // ln: in range (products b₁b₂ over many decades), then one value out of range
            let x0: Vec<f64> = l0.iter().map(|v| (v / 4.0).exp() * 1e3).collect();
            for bad in [None, Some(0.0), Some(f64::NAN), Some(1e301)] {
                let (mut x_a, mut x_b) = (x0.clone(), x0.clone());
                if let Some(v) = bad {
                    x_a[j_n / 2] = v;
                    x_b[j_n / 2] = v;
                }
                let ok_a = ln_in_place(&mut x_a);
                let ok_b = ln_in_place_body(&mut x_b);
                assert_eq!((ok_a, ok_b), (bad.is_none(), bad.is_none()));
                // (out of range the values are discarded: compare the others only)
                x_a[j_n / 2] = 0.0;
                x_b[j_n / 2] = 0.0;
                assert_eq!(bits(&x_a), bits(&x_b));
            }
        }
    }
}

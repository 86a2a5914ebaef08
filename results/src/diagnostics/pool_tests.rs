//! The buffer pool against the diagnostics that use it: pooled buffers never change a result.

use super::memory::{par_chunks_mut, recycle};
use super::{Draws, TailProbs, ess_bulk, ess_mean, ess_tail, release_buffers, rhat};

/// R-hat, bulk, tail and mean ESS of `data` (4 chains), as bits.
fn diagnose(data: &[f64]) -> [u64; 4] {
    let d = Draws::from_row_major(data, 4).expect("shape");
    [
        rhat(&d),
        ess_bulk(&d, false),
        ess_tail(&d, TailProbs::default(), false),
        ess_mean(&d, false),
    ]
    .map(f64::to_bits)
}

/// Pooled buffers come with another call's values; no diagnostic may read one it has not
/// written. Poisoned with NaN and all-ones buffers of every pooled type (larger than any
/// request, so they are what the calls get), the results are the bits of a call on fresh
/// memory, and of a call made after a call on other draws.
#[test]
fn pooled_buffers_never_leak_into_results() {
    let (m, n) = (4, 200_001);
    let mut x: u64 = 0x2545_F491_4F6C_DD1D;
    let mut ar1 = |rho: f64| -> Vec<f64> {
        let mut out = Vec::with_capacity(m * n);
        let mut prev = 0.0;
        for i in 0..m * n {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let e = (x >> 11) as f64 / (1u64 << 53) as f64 - 0.5;
            prev = if i % n == 0 { e } else { rho * prev + e };
            out.push(prev);
        }
        out
    };
    let (a, b) = (ar1(0.9), ar1(0.3));
    release_buffers();
    let fresh = diagnose(&a);
    let _ = diagnose(&b);
    assert_eq!(diagnose(&a), fresh, "after a call on other draws");
    // Larger than any request; more of each type than one call holds at once.
    let big = 2 * m * n;
    // Only the poisoned buffers in the pool (the calls above left exact-size ones).
    release_buffers();
    for _ in 0..10 {
        recycle(vec![f64::NAN; big]);
        recycle(vec![u64::MAX; big]);
        recycle(vec![u32::MAX; big]);
        recycle(vec![
            rustfft::num_complex::Complex::new(f64::NAN, f64::NAN);
            big / 2
        ]);
    }
    assert_eq!(diagnose(&a), fresh, "with poisoned pooled buffers");
    assert!(release_buffers() > 0, "the calls gave their buffers back");
}

#[test]
fn par_chunks_cover_everything() {
    let mut v = vec![0usize; 1001];
    par_chunks_mut(&mut v, 3, |off, c| {
        for (i, x) in c.iter_mut().enumerate() {
            *x = off + i;
        }
    });
    assert!(v.iter().enumerate().all(|(i, &x)| i == x));
}

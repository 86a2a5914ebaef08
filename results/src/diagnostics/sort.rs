//! The one sort behind rank normalisation: draws mapped to order-preserving integer keys and
//! sorted with their indices, by a radix sort on a value bucket, or on the keys when the values
//! crowd into a small part of their range, or by a comparison sort for small inputs.

use super::memory::{big_vec, big_vec_filled};

/// Order-preserving map f64 → u64 (IEEE total order; callers exclude NaN).
#[inline]
pub(super) fn key(x: f64) -> u64 {
    let b = x.to_bits();
    if b >> 63 == 1 { !b } else { b | (1 << 63) }
}

/// Inverse of [`key`].
#[inline]
pub(super) fn unkey(k: u64) -> f64 {
    if k >> 63 == 1 {
        f64::from_bits(k & !(1 << 63))
    } else {
        f64::from_bits(!k)
    }
}

const RADIX_BITS: u32 = 11;
const BUCKETS: usize = 1 << RADIX_BITS;
const PASSES: usize = 6; // 6 × 11 ≥ 64 bits
/// Below this size a comparison sort is faster than radix passes.
const RADIX_MIN: usize = 4096;

/// Sort `keys` ascending, permuting `idx` alongside.
///
/// Draws of one distribution spread evenly over their range, so the sort first orders
/// them by a 22-bit bucket linear in the value (two radix passes instead of six over the
/// 64-bit keys), then sorts each run of equal buckets, which holds a few draws. Data that
/// crowds into a small part of its range (heavy tails, outliers) takes the full six-pass
/// radix sort instead.
fn sort_pairs(keys: &mut Vec<u64>, idx: &mut Vec<u32>) {
    if keys.len() < RADIX_MIN {
        comparison_sort(keys, idx);
    } else if !bucket_sort(keys, idx) {
        radix_sort(keys, idx);
    }
}

/// Bits of the value bucket of [`bucket_sort`]: two radix digits.
const BUCKET_BITS: u32 = 2 * RADIX_BITS;

/// Sort by the value bucket ⌊(x − min)·(2²² − 1)/(max − min)⌋ (two stable LSD passes),
/// then sort each run of equal buckets by key. The bucket is a non-decreasing function of
/// x (every step rounds monotonically), so this is a full sort whatever the data; it
/// returns `false` without touching anything when the range is not finite and positive, or
/// when more than 1/16 of the draws share one of the 2048 top-level buckets (then the
/// runs would be long and the six-pass radix sort is faster).
fn bucket_sort(keys: &mut [u64], idx: &mut [u32]) -> bool {
    let n = keys.len();
    let (lo, hi) = keys
        .iter()
        .fold((u64::MAX, 0u64), |(lo, hi), &k| (lo.min(k), hi.max(k)));
    let (min, max) = (unkey(lo), unkey(hi));
    let cap = (1u32 << BUCKET_BITS) - 1;
    let scale = cap as f64 / (max - min);
    if !(max - min > 0.0 && scale.is_finite() && min.is_finite() && max.is_finite()) {
        return false;
    }
    // `as u32` saturates (and maps NaN, impossible here, to 0); `min` guards rounding up.
    let bucket = |k: u64| -> u32 { (((unkey(k) - min) * scale) as u32).min(cap) };
    let mask = (BUCKETS - 1) as u32;
    let mut h_lo = vec![0usize; BUCKETS];
    let mut h_hi = vec![0usize; BUCKETS];
    for &k in keys.iter() {
        let b = bucket(k);
        h_lo[(b & mask) as usize] += 1;
        h_hi[(b >> RADIX_BITS) as usize] += 1;
    }
    if h_hi.iter().any(|&c| c > n / 16) {
        return false;
    }
    let mut keys2 = big_vec_filled(n, 0u64);
    let mut idx2 = big_vec_filled(n, 0u32);
    let offsets = |h: &[usize]| -> Vec<usize> {
        let mut acc = 0;
        h.iter()
            .map(|&c| {
                let o = acc;
                acc += c;
                o
            })
            .collect()
    };
    let mut off = offsets(&h_lo);
    for (&k, &j) in keys.iter().zip(idx.iter()) {
        let d = (bucket(k) & mask) as usize;
        let o = off[d];
        keys2[o] = k;
        idx2[o] = j;
        off[d] = o + 1;
    }
    let mut off = offsets(&h_hi);
    for (&k, &j) in keys2.iter().zip(idx2.iter()) {
        let d = (bucket(k) >> RADIX_BITS) as usize;
        let o = off[d];
        keys[o] = k;
        idx[o] = j;
        off[d] = o + 1;
    }
    // Runs of one bucket, sorted by key.
    let mut i = 0;
    let mut bi = bucket(keys[0]);
    while i < n {
        let mut j = i + 1;
        let mut bj = bi;
        while j < n {
            bj = bucket(keys[j]);
            if bj != bi {
                break;
            }
            j += 1;
        }
        if j - i > 1 {
            comparison_sort(&mut keys[i..j], &mut idx[i..j]);
        }
        i = j;
        bi = bj;
    }
    true
}

/// Sort `(keys, idx)` by key with comparisons: insertion sort for up to 32 values (the runs
/// of one bucket), pdqsort of the pairs above that.
fn comparison_sort(keys: &mut [u64], idx: &mut [u32]) {
    if keys.len() <= 32 {
        for a in 1..keys.len() {
            let (k, j) = (keys[a], idx[a]);
            let mut b = a;
            while b > 0 && keys[b - 1] > k {
                keys[b] = keys[b - 1];
                idx[b] = idx[b - 1];
                b -= 1;
            }
            keys[b] = k;
            idx[b] = j;
        }
    } else {
        let mut pairs: Vec<(u64, u32)> = keys.iter().copied().zip(idx.iter().copied()).collect();
        pairs.sort_unstable();
        for ((k, j), (pk, pj)) in keys.iter_mut().zip(idx.iter_mut()).zip(pairs) {
            *k = pk;
            *j = pj;
        }
    }
}

/// Stable LSD radix sort of `keys` (all 64 bits), permuting `idx` alongside.
fn radix_sort(keys: &mut Vec<u64>, idx: &mut Vec<u32>) {
    let n = keys.len();
    let mut hist = vec![[0usize; BUCKETS]; PASSES];
    for &k in keys.iter() {
        for (p, h) in hist.iter_mut().enumerate() {
            h[((k >> (p as u32 * RADIX_BITS)) as usize) & (BUCKETS - 1)] += 1;
        }
    }
    let mut keys2 = big_vec_filled(n, 0u64);
    let mut idx2 = big_vec_filled(n, 0u32);
    for (p, h) in hist.iter().enumerate() {
        // A digit shared by every key permutes nothing: skip the pass (common for the
        // sign/exponent digits of draws from one distribution).
        if h.contains(&n) {
            continue;
        }
        let mut offset = [0usize; BUCKETS];
        let mut acc = 0;
        for (o, &c) in offset.iter_mut().zip(h.iter()) {
            *o = acc;
            acc += c;
        }
        let shift = p as u32 * RADIX_BITS;
        for (&k, &j) in keys.iter().zip(idx.iter()) {
            let d = ((k >> shift) as usize) & (BUCKETS - 1);
            let o = offset[d];
            keys2[o] = k;
            idx2[o] = j;
            offset[d] = o + 1;
        }
        std::mem::swap(keys, &mut keys2);
        std::mem::swap(idx, &mut idx2);
    }
}

/// Keys and split-layout indices (`base + position`) of consecutive chains, sorted by key.
pub(super) fn sort_part(chains: &[&[f64]], base: usize) -> (Vec<u64>, Vec<u32>) {
    let total: usize = chains.iter().map(|c| c.len()).sum();
    let mut keys = big_vec(total);
    for c in chains {
        keys.extend(c.iter().map(|&x| key(x)));
    }
    // Indices fit in u32: `Draws::new` rejects more than u32::MAX values.
    let mut idx = big_vec(total);
    idx.extend(base as u32..(base + total) as u32);
    sort_pairs(&mut keys, &mut idx);
    (keys, idx)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostics::rank::SortedSplit;

    #[test]
    fn keys_preserve_order() {
        let xs = [
            f64::NEG_INFINITY,
            -1e300,
            -1.0,
            -f64::MIN_POSITIVE,
            -0.0,
            0.0,
            1e-310,
            1.0,
            f64::INFINITY,
        ];
        for w in xs.windows(2) {
            assert!(key(w[0]) < key(w[1]), "{} {}", w[0], w[1]);
        }
        for &x in &xs {
            assert_eq!(unkey(key(x)).to_bits(), x.to_bits());
        }
    }

    #[test]
    fn radix_sort_matches_std() {
        let mut state = 0x1234_5678_9abc_def0u64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let n = 50_000;
        let vals: Vec<f64> = (0..n)
            .map(|i| {
                let u = (next() >> 11) as f64 / (1u64 << 53) as f64 - 0.5;
                if i % 7 == 0 {
                    (u * 10.0).round()
                } else {
                    u * 1e3
                }
            })
            .collect();
        let sorted = SortedSplit::new(&[&vals[..]]);
        let mut want = vals.clone();
        want.sort_by(f64::total_cmp);
        assert_eq!(sorted.vals, want);
        for (v, &i) in sorted.vals.iter().zip(&sorted.idx) {
            assert_eq!(v.to_bits(), vals[i as usize].to_bits());
        }
    }

    #[test]
    fn both_sort_paths_match_std() {
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut uniform = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            ((state >> 11) as f64 + 0.5) / (1u64 << 53) as f64
        };
        let n = 20_000;
        let light: Vec<f64> = (0..n)
            .map(|i| match (i % 101, i % 11) {
                (0, _) => 0.0,
                (1, _) => -0.0,
                (_, 2) => (uniform() * 8.0).floor(),
                _ => uniform() * 6.0 - 3.0,
            })
            .collect();
        let heavy: Vec<f64> = (0..n).map(|_| (uniform() - 0.5).recip()).collect();
        let mut infinite = light.clone();
        infinite[17] = f64::INFINITY;
        infinite[18] = f64::NEG_INFINITY;
        let constant = vec![2.5; n];
        for (name, vals, bucketed) in [
            ("light", &light, true),
            ("heavy", &heavy, false),
            ("infinite", &infinite, false),
            ("constant", &constant, false),
        ] {
            let mut keys: Vec<u64> = vals.iter().map(|&x| key(x)).collect();
            let mut idx: Vec<u32> = (0..n as u32).collect();
            assert_eq!(bucket_sort(&mut keys, &mut idx), bucketed, "{name}");
            let mut k2: Vec<u64> = vals.iter().map(|&x| key(x)).collect();
            let mut i2: Vec<u32> = (0..n as u32).collect();
            radix_sort(&mut k2, &mut i2);
            let mut want = vals.clone();
            want.sort_by(f64::total_cmp);
            for (keys, idx) in [(&keys, &idx), (&k2, &i2)] {
                if keys == &k2 || bucketed {
                    let got: Vec<u64> = keys.iter().map(|&k| unkey(k).to_bits()).collect();
                    let want_bits: Vec<u64> = want.iter().map(|x| x.to_bits()).collect();
                    assert_eq!(got, want_bits, "{name}");
                    for (&k, &i) in keys.iter().zip(idx.iter()) {
                        assert_eq!(k, key(vals[i as usize]), "{name}");
                    }
                }
            }
        }
    }
}

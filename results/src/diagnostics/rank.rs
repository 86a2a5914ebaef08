//! Rank normalisation (ArviZ 0.23.4 `_z_scale`, `_backtransform_ranks`) built on one sort.
//!
//! The split draws are sorted once (LSD radix sort on order-preserving integer keys).
//! From that order we get
//! * the bulk z-scores: average ranks over ties (scipy `rankdata(method="average")`),
//!   mapped through Φ⁻¹((r − 3/8)/(S + 1/4));
//! * the folded z-scores without a second sort: |x − median| is non-decreasing along the
//!   sorted draws above the median and along the reversed draws below it, so the folded
//!   order is a linear merge of those two runs;
//! * the sorted values themselves, for the tail-ESS quantiles.

use statrs::distribution::{ContinuousCDF, Normal};

use super::numeric::{par_chunks_mut, threads_for};

/// Order-preserving map f64 → u64 (IEEE total order; callers exclude NaN).
#[inline]
fn key(x: f64) -> u64 {
    let b = x.to_bits();
    if b >> 63 == 1 { !b } else { b | (1 << 63) }
}

/// Inverse of [`key`].
#[inline]
fn unkey(k: u64) -> f64 {
    if k >> 63 == 1 {
        f64::from_bits(k & !(1 << 63))
    } else {
        f64::from_bits(!k)
    }
}

const RADIX_BITS: u32 = 11;
const BUCKETS: usize = 1 << RADIX_BITS;
const PASSES: usize = 6; // 6 × 11 ≥ 64 bits
/// Below this size a comparison sort is faster than six radix passes.
const RADIX_MIN: usize = 4096;

/// Sort `keys` ascending, permuting `idx` alongside (stable LSD radix sort).
fn sort_pairs(keys: &mut Vec<u64>, idx: &mut Vec<u32>) {
    let n = keys.len();
    if n < RADIX_MIN {
        let mut pairs: Vec<(u64, u32)> = keys.iter().copied().zip(idx.iter().copied()).collect();
        pairs.sort_unstable();
        for (i, (k, j)) in pairs.into_iter().enumerate() {
            keys[i] = k;
            idx[i] = j;
        }
        return;
    }
    let mut hist = vec![[0usize; BUCKETS]; PASSES];
    for &k in keys.iter() {
        for (p, h) in hist.iter_mut().enumerate() {
            h[((k >> (p as u32 * RADIX_BITS)) as usize) & (BUCKETS - 1)] += 1;
        }
    }
    let mut keys2 = vec![0u64; n];
    let mut idx2 = vec![0u32; n];
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
fn sort_part(chains: &[&[f64]], base: usize) -> (Vec<u64>, Vec<u32>) {
    let total: usize = chains.iter().map(|c| c.len()).sum();
    let mut keys = Vec::with_capacity(total);
    for c in chains {
        keys.extend(c.iter().map(|&x| key(x)));
    }
    // Indices fit in u32: `Draws::new` rejects more than u32::MAX values.
    let mut idx: Vec<u32> = (base as u32..(base + total) as u32).collect();
    sort_pairs(&mut keys, &mut idx);
    (keys, idx)
}

/// The split draws in ascending order, each with its index in the split layout
/// (split chain `j`, draw `t` ↦ `j * half + t`).
pub(crate) struct SortedSplit {
    pub(crate) vals: Vec<f64>,
    pub(crate) idx: Vec<u32>,
}

impl SortedSplit {
    /// Sort the split chains (all of equal length; total ≤ `u32::MAX`, checked by `Draws`).
    /// With two or more cores and ≥ 2^19 draws, the two halves of the chains are radix
    /// sorted on two threads and merged.
    pub(crate) fn new(split: &[&[f64]]) -> Self {
        let half = split.first().map_or(0, |c| c.len());
        let total = half * split.len();
        if split.len() < 2 || threads_for(total, 1 << 18) < 2 {
            let (keys, idx) = sort_part(split, 0);
            let vals = keys.into_iter().map(unkey).collect();
            return Self { vals, idx };
        }
        let k = split.len() / 2;
        let ((ka, ia), (kb, ib)) = std::thread::scope(|s| {
            let h = s.spawn(|| sort_part(&split[..k], 0));
            let b = sort_part(&split[k..], k * half);
            // A panic in the worker is a bug in this module; re-raise it unchanged.
            let a = h.join().unwrap_or_else(|e| std::panic::resume_unwind(e));
            (a, b)
        });
        let mut vals = Vec::with_capacity(total);
        let mut idx = Vec::with_capacity(total);
        let (mut i, mut j) = (0, 0);
        while i < ka.len() && j < kb.len() {
            if ka[i] <= kb[j] {
                vals.push(unkey(ka[i]));
                idx.push(ia[i]);
                i += 1;
            } else {
                vals.push(unkey(kb[j]));
                idx.push(ib[j]);
                j += 1;
            }
        }
        vals.extend(ka[i..].iter().map(|&k| unkey(k)));
        idx.extend_from_slice(&ia[i..]);
        vals.extend(kb[j..].iter().map(|&k| unkey(k)));
        idx.extend_from_slice(&ib[j..]);
        Self { vals, idx }
    }

    /// `np.median` of the split draws: mean of the two middle values (S is always even).
    pub(crate) fn median(&self) -> f64 {
        let s = self.vals.len();
        if s % 2 == 1 {
            self.vals[s / 2]
        } else {
            (self.vals[s / 2 - 1] + self.vals[s / 2]) / 2.0
        }
    }
}

/// Everything rank-based diagnostics share: the sorted split draws, the Φ⁻¹ table and the
/// bulk z-scores in sorted order.
pub(crate) struct Ranked {
    pub(crate) sorted: SortedSplit,
    pub(crate) z: ZScale,
    pub(crate) zs: Vec<f64>,
}

impl Ranked {
    pub(crate) fn new(split: &[&[f64]]) -> Self {
        let sorted = SortedSplit::new(split);
        let z = ZScale::new(sorted.vals.len());
        let zs = bulk_z_sorted(&sorted, &z);
        Self { sorted, z, zs }
    }
}

/// Φ⁻¹ of the Blom back-transformed ranks, (r − 3/8)/(S − 2·3/8 + 1), as ArviZ
/// `_backtransform_ranks` + `scipy.stats.norm.ppf`, with a table for integer ranks
/// (every untied rank; shared by the bulk and the folded transform).
pub(crate) struct ZScale {
    denom: f64,
    table: Vec<f64>,
    normal: Normal,
}

impl ZScale {
    pub(crate) fn new(size: usize) -> Self {
        const C: f64 = 3.0 / 8.0;
        // Same expression as ArviZ: `size - 2 * c + 1`.
        let denom = size as f64 - 2.0 * C + 1.0;
        let normal = Normal::standard();
        // Blom's positions are symmetric: rank S + 1 − r maps to 1 − p(r), because
        // (S + 1 − r − 3/8) = (S + 1/4) − (r − 3/8). So Φ⁻¹ is evaluated for the lower half
        // only and mirrored (Φ⁻¹(1 − p) = −Φ⁻¹(p)), halving the table's cost.
        let mut table = vec![0.0f64; size];
        let lower = size.div_ceil(2);
        let threads = threads_for(lower, 1 << 16);
        par_chunks_mut(&mut table[..lower], threads, |off, chunk| {
            for (i, z) in chunk.iter_mut().enumerate() {
                *z = z_of(&normal, (off + i + 1) as f64, denom);
            }
        });
        let (lo, hi) = table.split_at_mut(lower);
        for (k, z) in hi.iter_mut().enumerate() {
            // hi[k] is rank lower + k + 1; its mirror rank is size − lower − k.
            *z = -lo[size - lower - k - 1];
        }
        // An odd S has its middle rank (S + 1)/2 at p = 1/2 exactly: Φ⁻¹ = 0 either way.
        Self {
            denom,
            table,
            normal,
        }
    }

    /// z-score for the tie group occupying sorted positions `i..j` (0-based): the average
    /// rank is `0.5 * (j + i + 1)` exactly as scipy's `rankdata` computes it.
    #[inline]
    fn group(&self, i: usize, j: usize) -> f64 {
        if j == i + 1 {
            self.table[i]
        } else {
            z_of(&self.normal, 0.5 * (j + i + 1) as f64, self.denom)
        }
    }
}

#[inline]
fn z_of(normal: &Normal, rank: f64, denom: f64) -> f64 {
    // (rank - 3/8)/denom lies in (0, 1) for 1 ≤ rank ≤ S, so `inverse_cdf` (which panics
    // outside [0, 1]) cannot panic here.
    normal.inverse_cdf((rank - 3.0 / 8.0) / denom)
}

/// z-score of each sorted position's average rank, for `vals` sorted ascending (sequential
/// writes). Ties are exact `==` equality, as scipy's `arr[1:] != arr[:-1]`.
pub(crate) fn z_sorted(vals: &[f64], z: &ZScale) -> Vec<f64> {
    let n = vals.len();
    let mut out = Vec::with_capacity(n);
    let mut i = 0;
    while i < n {
        let v = vals[i];
        let mut j = i + 1;
        while j < n && vals[j] == v {
            j += 1;
        }
        if j == i + 1 {
            out.push(z.table[i]);
        } else {
            let zv = z.group(i, j);
            out.extend(std::iter::repeat_n(zv, j - i));
        }
        i = j;
    }
    out
}

/// Bulk z-scores in sorted order (`z_sorted` of the sorted split draws); pair with
/// `sorted.idx` for their split-layout positions.
pub(crate) fn bulk_z_sorted(sorted: &SortedSplit, z: &ZScale) -> Vec<f64> {
    z_sorted(&sorted.vals, z)
}

/// Scatter sorted-order values to split layout: `out[idx[i]] = zs[i]`
/// (ArviZ `_z_scale(_split_chains(x))` once combined with [`bulk_z_sorted`]).
pub(crate) fn scatter(zs: &[f64], idx: &[u32]) -> Vec<f64> {
    let mut out = vec![0.0; zs.len()];
    for (&v, &k) in zs.iter().zip(idx) {
        out[k as usize] = v;
    }
    out
}

/// Folded z-scores, `_z_scale(abs(split - median(split)))`, in folded order, with the
/// split-layout index of each: the folded order is a merge of the two monotone runs of
/// the bulk order, so no second sort. `None` when the median is not finite (more than half
/// of the draws infinite), where the folded draws are undefined.
pub(crate) fn folded_z_sorted(sorted: &SortedSplit, z: &ZScale) -> Option<(Vec<f64>, Vec<u32>)> {
    let med = sorted.median();
    if !med.is_finite() {
        return None;
    }
    let vals = &sorted.vals;
    let s = vals.len();
    // x < med ⇔ fl(x − med) < 0 for finite IEEE values, so this splits the two runs.
    let p = vals.partition_point(|&x| x < med);
    let mut fv = Vec::with_capacity(s);
    let mut fi = Vec::with_capacity(s);
    let mut l = p; // next left element is l - 1
    let mut r = p;
    while l > 0 && r < s {
        let fl = (vals[l - 1] - med).abs();
        let fr = (vals[r] - med).abs();
        if fl <= fr {
            l -= 1;
            fv.push(fl);
            fi.push(sorted.idx[l]);
        } else {
            fv.push(fr);
            fi.push(sorted.idx[r]);
            r += 1;
        }
    }
    while l > 0 {
        l -= 1;
        fv.push((vals[l] - med).abs());
        fi.push(sorted.idx[l]);
    }
    while r < s {
        fv.push((vals[r] - med).abs());
        fi.push(sorted.idx[r]);
        r += 1;
    }
    Some((z_sorted(&fv, z), fi))
}

/// The split draws' values in ascending order plus the dropped middle draws (odd N),
/// i.e. all M·N draws sorted: what ArviZ's tail-ESS quantile sees.
pub(crate) fn full_sorted(sorted: &SortedSplit, middles: &[f64]) -> Vec<f64> {
    let mut mid: Vec<f64> = middles.to_vec();
    mid.sort_unstable_by(f64::total_cmp);
    let mut out = Vec::with_capacity(sorted.vals.len() + mid.len());
    let mut it = mid.into_iter().peekable();
    for &v in &sorted.vals {
        while let Some(&m) = it.peek() {
            if m.total_cmp(&v).is_lt() {
                out.push(m);
                it.next();
            } else {
                break;
            }
        }
        out.push(v);
    }
    out.extend(it);
    out
}

/// Quantile of sorted data as ArviZ `_quantile` = `scipy.stats.mstats.mquantiles(
/// alphap=1, betap=1)` (Hyndman–Fan type 7, numpy's default "linear" method), replicating
/// scipy's floating-point expression.
pub(crate) fn quantile_sorted(x: &[f64], p: f64) -> f64 {
    if x.len() == 1 {
        return x[0];
    }
    let (k, gamma) = type7_position(x.len(), p);
    (1.0 - gamma) * x[k - 1] + gamma * x[k]
}

/// 1-based order statistic k and weight γ of scipy's `mquantiles(alphap=1, betap=1)` for n ≥ 2
/// values: the quantile is (1 − γ)·x₍ₖ₎ + γ·x₍ₖ₊₁₎, with 1 ≤ k ≤ n − 1.
fn type7_position(n: usize, p: f64) -> (usize, f64) {
    let (alphap, betap) = (1.0f64, 1.0f64);
    let m = alphap + p * (1.0 - alphap - betap);
    let aleph = n as f64 * p + m;
    let k = aleph.clamp(1.0, (n - 1) as f64).floor();
    let gamma = (aleph - k).clamp(0.0, 1.0);
    (k as usize, gamma)
}

/// The two order statistics `quantile_sorted` needs, found by selection (O(n)) on a copy
/// of unsorted data: for callers that do not have the sorted draws.
pub(crate) fn quantile_select(data: &mut [f64], p: f64) -> f64 {
    let n = data.len();
    if n == 1 {
        return data[0];
    }
    let (k, gamma) = type7_position(n, p);
    let (_, lo, rest) = data.select_nth_unstable_by(k - 1, f64::total_cmp);
    let lo = *lo;
    // k ≤ n − 1, so `rest` (positions k..n) is non-empty.
    let hi = rest.iter().copied().min_by(f64::total_cmp).unwrap_or(lo);
    (1.0 - gamma) * lo + gamma * hi
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn average_ranks_with_ties() {
        // ranks: 2.5, 1, 2.5, 4 → z of (r - 3/8)/(4.25)
        let x = [1.0, 0.0, 1.0, 5.0];
        let s = SortedSplit::new(&[&x[..]]);
        let z = ZScale::new(4);
        let out = scatter(&bulk_z_sorted(&s, &z), &s.idx);
        let n = Normal::standard();
        let want: Vec<f64> = [2.5, 1.0, 2.5, 4.0]
            .iter()
            .map(|r| n.inverse_cdf((r - 0.375) / 4.25))
            .collect();
        assert_eq!(out, want);
    }

    #[test]
    fn quantiles_agree() {
        let x: Vec<f64> = (0..101).map(|i| ((i * 37) % 101) as f64).collect();
        let mut s = x.clone();
        s.sort_by(f64::total_cmp);
        for p in [0.0, 0.05, 0.5, 0.95, 1.0] {
            let mut c = x.clone();
            assert_eq!(quantile_sorted(&s, p), quantile_select(&mut c, p));
        }
        assert!((quantile_sorted(&s, 0.05) - 5.0).abs() < 1e-12);
    }
}

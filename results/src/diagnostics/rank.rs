//! Rank normalisation (ArviZ 0.23.4 `_z_scale`, `_backtransform_ranks`) built on one sort.
//!
//! The split draws are sorted once (a bucket sort linear in the value, or a radix sort on
//! order-preserving integer keys when the values crowd into a small part of their range).
//! From that order we get
//! * the bulk z-scores: average ranks over ties (scipy `rankdata(method="average")`),
//!   mapped through Φ⁻¹((r − 3/8)/(S + 1/4));
//! * the folded z-scores without a second sort: |x − median| is non-decreasing along the
//!   sorted draws above the median and along the reversed draws below it, so the folded
//!   order is a linear merge of those two runs;
//! * the sorted values themselves, for the tail-ESS quantiles.

use std::sync::{Arc, Mutex};

use statrs::distribution::{ContinuousCDF, Normal};

use super::memory::{
    SharedF64s, big_vec, big_vec_overwritten, par_chunks_mut, recycle, threads_for,
};
use super::sort::{OnBucket, bucket_sort_split, sort_part, unkey};
use super::sums::chain_means;

/// The split draws in ascending order, each with its index in the split layout
/// (split chain `j`, draw `t` ↦ `j * half + t`).
pub(crate) struct SortedSplit {
    pub(crate) vals: Vec<f64>,
    pub(crate) idx: Vec<u32>,
}

impl SortedSplit {
    /// Sort the split chains (all of equal length; total ≤ `u32::MAX`, checked by `Draws`).
    #[cfg(test)]
    pub(crate) fn new(split: &[&[f64]]) -> Self {
        Self::with_buckets(split, &|_, _, _| {})
    }

    /// Sort as [`SortedSplit::new`], calling `on_bucket(position, vals, idx)` for
    /// consecutive stretches of the sorted order that never split a tie group (possibly on
    /// several threads at once): the most-significant-digit bucket sort of
    /// [`bucket_sort_split`] where the draws spread over their range; otherwise radix sorts
    /// of the two halves of the chains on two threads (with two or more cores and ≥ 2^19
    /// draws), merged, and one call with the whole order.
    fn with_buckets(split: &[&[f64]], on_bucket: &OnBucket<'_>) -> Self {
        let half = split.first().map_or(0, |c| c.len());
        let total = half * split.len();
        let threads = threads_for(total, 1 << 18);
        if let Some((vals, idx)) = bucket_sort_split(split, threads, on_bucket) {
            return Self { vals, idx };
        }
        let sorted = Self::radix(split, threads);
        on_bucket(0, &sorted.vals, &sorted.idx);
        sorted
    }

    fn radix(split: &[&[f64]], threads: usize) -> Self {
        let half = split.first().map_or(0, |c| c.len());
        let total = half * split.len();
        if split.len() < 2 || threads < 2 {
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
        let mut vals = big_vec(total);
        let mut idx = big_vec(total);
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
        for k in [ka, kb] {
            recycle(k);
        }
        for i in [ia, ib] {
            recycle(i);
        }
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
/// bulk z-scores in split layout.
pub(crate) struct Ranked {
    pub(crate) sorted: SortedSplit,
    pub(crate) z: Arc<ZScale>,
    /// Bulk z-scores, `zb[j * half + t]` for split chain `j`, draw `t`.
    pub(crate) zb: Vec<f64>,
    /// `np.mean` of each split chain of `zb`.
    pub(crate) zb_means: Vec<f64>,
    /// max − min of `zb`: the z-scores of the last and the first sorted draw.
    pub(crate) zb_range: f64,
}

impl Ranked {
    /// Sort the split draws and write the bulk z-scores as the sort finishes each bucket
    /// (the Φ⁻¹ table is made first; the buckets' threads write to [`SharedF64s`]).
    pub(crate) fn new(split: &[&[f64]]) -> Self {
        let total = split.first().map_or(0, |c| c.len()) * split.len();
        let z = ZScale::shared(total);
        let zb = SharedF64s::overwritten(total);
        let sorted = SortedSplit::with_buckets(split, &|pos, vals, idx| {
            for_each_bulk_z(pos, vals, idx, &z, |k, v| zb.set(k as usize, v))
        });
        let zb = zb.into_vec();
        let half = split.first().map_or(0, |c| c.len());
        let zb_means = chain_means(&zb.chunks_exact(half.max(1)).collect::<Vec<_>>());
        let zb_range = match (sorted.idx.first(), sorted.idx.last()) {
            (Some(&lo), Some(&hi)) => zb[hi as usize] - zb[lo as usize],
            _ => 0.0,
        };
        Self {
            sorted,
            z,
            zb,
            zb_means,
            zb_range,
        }
    }
}

/// The draw-sized buffers go back to the pool for the next diagnostic call.
impl Drop for Ranked {
    fn drop(&mut self) {
        recycle(std::mem::take(&mut self.sorted.vals));
        recycle(std::mem::take(&mut self.sorted.idx));
        recycle(std::mem::take(&mut self.zb));
    }
}

/// Φ⁻¹ of the Blom back-transformed ranks, (r − 3/8)/(S − 2·3/8 + 1), as ArviZ
/// `_backtransform_ranks` + `scipy.stats.norm.ppf`, with a table for integer ranks
/// (every untied rank; shared by the bulk and the folded transform).
pub(crate) struct ZScale {
    denom: f64,
    size: usize,
    /// Φ⁻¹ of ranks 1..=⌈S/2⌉; the upper ranks are their mirror images.
    lower: Vec<f64>,
    normal: Normal,
}

/// The most recent Φ⁻¹ table, for the next call on draws of the same size: diagnosing the
/// variables of a run calls the rank diagnostics again and again with one S, and the table
/// (S/2 evaluations of Φ⁻¹, 7% of the CPU time of R-hat + bulk + tail ESS on 4 × 10⁶ draws)
/// depends on S alone. [`super::release_buffers`] forgets it.
static LAST_TABLE: Mutex<Option<Arc<ZScale>>> = Mutex::new(None);

/// Forget the cached Φ⁻¹ table (see [`LAST_TABLE`]); returns its size in bytes.
pub(crate) fn forget_z_table() -> usize {
    LAST_TABLE
        .lock()
        .ok()
        .and_then(|mut t| t.take())
        .map_or(0, |z| z.lower.len() * std::mem::size_of::<f64>())
}

impl ZScale {
    /// The table for `size` draws: the cached one if the last call had this size, else a new
    /// one (then cached).
    pub(crate) fn shared(size: usize) -> Arc<Self> {
        if let Ok(last) = LAST_TABLE.lock()
            && let Some(z) = last.as_ref().filter(|z| z.size == size)
        {
            return z.clone();
        }
        let z = Arc::new(Self::new(size));
        if let Ok(mut last) = LAST_TABLE.lock() {
            *last = Some(z.clone());
        }
        z
    }

    pub(crate) fn new(size: usize) -> Self {
        const C: f64 = 3.0 / 8.0;
        // Same expression as ArviZ: `size - 2 * c + 1`.
        let denom = size as f64 - 2.0 * C + 1.0;
        let normal = Normal::standard();
        // Blom's positions are symmetric: rank S + 1 − r maps to 1 − p(r), because
        // (S + 1 − r − 3/8) = (S + 1/4) − (r − 3/8). So Φ⁻¹ is evaluated for the lower half
        // only and mirrored (Φ⁻¹(1 − p) = −Φ⁻¹(p)) by [`ZScale::at`].
        let n_lower = size.div_ceil(2);
        let mut lower = big_vec_overwritten::<f64>(n_lower);
        let threads = threads_for(n_lower, 1 << 16);
        par_chunks_mut(&mut lower, threads, |off, chunk| {
            for (i, z) in chunk.iter_mut().enumerate() {
                *z = z_of(&normal, (off + i + 1) as f64, denom);
            }
        });
        // An odd S has its middle rank (S + 1)/2 at p = 1/2 exactly: Φ⁻¹ = 0 either way.
        Self {
            denom,
            size,
            lower,
            normal,
        }
    }

    /// z-score of the untied draw at sorted position `i` (rank i + 1).
    #[inline]
    pub(crate) fn at(&self, i: usize) -> f64 {
        match self.lower.get(i) {
            Some(&z) => z,
            // Rank i + 1 mirrors rank S − i, below ⌈S/2⌉ + 1 for i ≥ ⌈S/2⌉.
            None => -self.lower[self.size - 1 - i],
        }
    }

    /// z-score for the tie group occupying sorted positions `i..j` (0-based): the average
    /// rank is `0.5 * (j + i + 1)` exactly as scipy's `rankdata` computes it.
    #[inline]
    fn group(&self, i: usize, j: usize) -> f64 {
        if j == i + 1 {
            self.at(i)
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

/// Call `f(index, z)` for every `(value, index)` of `items`, which come in ascending order
/// of value: z is the Blom z-score of the item's average rank over ties (exact `==`, as
/// scipy's `arr[1:] != arr[:-1]`; average rank `0.5 * (j + i + 1)` for sorted positions
/// `i..j`, as scipy's `rankdata`). An item is emitted once the next one shows whether it
/// is tied; only tie groups are buffered.
///
/// `pos0` is the sorted position of the first item (a segment of a longer order must start
/// at a tie-group boundary).
fn for_each_z(
    items: impl Iterator<Item = (f64, u32)>,
    pos0: usize,
    z: &ZScale,
    mut f: impl FnMut(u32, f64),
) {
    let mut ties: Vec<u32> = Vec::new();
    let mut prev: Option<(f64, u32)> = None;
    let mut start = pos0; // sorted position of `prev`'s group
    let flush_ties = |ties: &mut Vec<u32>, start: usize, f: &mut dyn FnMut(u32, f64)| {
        let zv = z.group(start, start + ties.len());
        for &k in ties.iter() {
            f(k, zv);
        }
        ties.clear();
    };
    for (pos, (v, k)) in (pos0..).zip(items) {
        if let Some((pv, pk)) = prev {
            if v == pv {
                if ties.is_empty() {
                    ties.push(pk);
                }
                ties.push(k);
            } else {
                if ties.is_empty() {
                    f(pk, z.at(start));
                } else {
                    flush_ties(&mut ties, start, &mut f);
                }
                start = pos;
            }
        }
        prev = Some((v, k));
    }
    if let Some((_, pk)) = prev {
        if ties.is_empty() {
            f(pk, z.at(start));
        } else {
            flush_ties(&mut ties, start, &mut f);
        }
    }
}

/// Bulk z-scores in split layout, ArviZ `_z_scale(_split_chains(x))`: the z-score of each
/// sorted draw's average rank, written to its split-layout position.
#[cfg(test)]
pub(crate) fn bulk_z(sorted: &SortedSplit, z: &ZScale) -> Vec<f64> {
    let mut out = vec![0.0; sorted.vals.len()];
    for_each_bulk_z(0, &sorted.vals, &sorted.idx, z, |k, v| out[k as usize] = v);
    out
}

/// `f(index, z)` for a stretch of the sorted order starting at sorted position `pos` that
/// does not split a tie group: z is the Blom z-score of the draw's average rank. The same
/// tie grouping as [`for_each_z`], written as a loop over the sorted slice: lookahead on a
/// slice is cheaper than the streaming state machine on this path, which every rank
/// diagnostic takes.
fn for_each_bulk_z(pos: usize, vals: &[f64], idx: &[u32], z: &ZScale, mut f: impl FnMut(u32, f64)) {
    let n = vals.len();
    let mut i = 0;
    while i < n {
        let v = vals[i];
        let mut j = i + 1;
        while j < n && vals[j] == v {
            j += 1;
        }
        let zv = z.group(pos + i, pos + j);
        for &k in &idx[i..j] {
            f(k, zv);
        }
        i = j;
    }
}

/// The folded draws |x − median| in ascending order are a merge of two ascending runs:
/// the sorted draws below the median read downwards (`left`) and those from the median up
/// (`right`). The merge takes from `left` on equal values.
struct FoldedRuns<'a> {
    vals: &'a [f64],
    idx: &'a [u32],
    med: f64,
    /// Sorted position of the first draw ≥ the median: `left` is `vals[..p]` reversed.
    p: usize,
}

impl FoldedRuns<'_> {
    fn n_left(&self) -> usize {
        self.p
    }

    fn n_right(&self) -> usize {
        self.vals.len() - self.p
    }

    #[inline]
    fn left(&self, a: usize) -> f64 {
        (self.vals[self.p - 1 - a] - self.med).abs()
    }

    #[inline]
    fn right(&self, b: usize) -> f64 {
        (self.vals[self.p + b] - self.med).abs()
    }

    /// How many of the first `k` merged draws come from `left` (merge-path co-rank search).
    fn split_at(&self, k: usize) -> usize {
        let (nl, nr) = (self.n_left(), self.n_right());
        let (mut lo, mut hi) = (k.saturating_sub(nr), k.min(nl));
        loop {
            let a = lo + (hi - lo) / 2;
            let b = k - a;
            if a > 0 && b < nr && self.left(a - 1) > self.right(b) {
                hi = a - 1; // took too many from left
            } else if b > 0 && a < nl && self.right(b - 1) >= self.left(a) {
                lo = a + 1; // took too few from left
            } else {
                return a;
            }
        }
    }

    /// The folded value at merged position `a + b`, the next one taken after `a` from
    /// `left` and `b` from `right`, and whether it comes from `left`.
    fn next(&self, a: usize, b: usize) -> Option<(f64, bool)> {
        match (a < self.n_left(), b < self.n_right()) {
            (true, true) => {
                let (fl, fr) = (self.left(a), self.right(b));
                Some(if fl <= fr { (fl, true) } else { (fr, false) })
            }
            (true, false) => Some((self.left(a), true)),
            (false, true) => Some((self.right(b), false)),
            (false, false) => None,
        }
    }

    /// Merge state (a, b) at the first tie-group boundary at or after merged position `k`.
    fn boundary_at(&self, k: usize) -> (usize, usize) {
        let mut a = self.split_at(k);
        let mut b = k - a;
        if a + b == 0 {
            return (0, 0);
        }
        let last = match (a, b) {
            (0, _) => self.right(b - 1),
            (_, 0) => self.left(a - 1),
            _ => self.left(a - 1).max(self.right(b - 1)),
        };
        while let Some((v, from_left)) = self.next(a, b) {
            if v != last {
                break;
            }
            if from_left {
                a += 1;
            } else {
                b += 1;
            }
        }
        (a, b)
    }

    /// Call `f(index, z)` for the merged draws from state (a0, b0) up to state (a1, b1).
    fn for_each_z(
        &self,
        (a0, b0): (usize, usize),
        (a1, b1): (usize, usize),
        z: &ZScale,
        f: impl FnMut(u32, f64),
    ) {
        let (vals, idx, med) = (self.vals, self.idx, self.med);
        // `l`: sorted position after the next left draw; `r`: position of the next right draw.
        let (l_end, r_end) = (self.p - a1, self.p + b1);
        let mut l = self.p - a0;
        let mut r = self.p + b0;
        let s = vals.len();
        let merged = (0..(a1 - a0) + (b1 - b0)).map(move |_| {
            // Both candidates are read (clamped in range) and one is selected, so the choice
            // compiles to conditional moves rather than a branch that mispredicts half the
            // time.
            let (li, ri) = (l.saturating_sub(1), r.min(s - 1));
            let (fl, fr) = ((vals[li] - med).abs(), (vals[ri] - med).abs());
            let take_left = l > l_end && (r >= r_end || fl <= fr);
            l -= usize::from(take_left);
            r += usize::from(!take_left);
            if take_left {
                (fl, idx[li])
            } else {
                (fr, idx[ri])
            }
        });
        for_each_z(merged, a0 + b0, z, f);
    }
}

/// Folded z-scores, `_z_scale(abs(split - median(split)))`, fed to per-segment accumulators:
/// the folded order is cut at tie-group boundaries into `parts` segments of about equal
/// length, processed on parallel threads; segment `i` calls `f(&mut acc_i, index, z)` for
/// each of its draws, with `acc_i = init()`. The folded order is a merge of the two
/// monotone runs of the bulk order, so no second sort. Returns the accumulators in order,
/// or `None` when the median is not finite (more than half of the draws infinite), where
/// the folded draws are undefined.
pub(crate) fn folded_z_segments<A: Send>(
    sorted: &SortedSplit,
    z: &ZScale,
    parts: usize,
    init: impl Fn() -> A + Sync,
    f: impl Fn(&mut A, u32, f64) + Sync,
) -> Option<Vec<A>> {
    let med = sorted.median();
    if !med.is_finite() {
        return None;
    }
    let vals = &sorted.vals;
    // x < med ⇔ fl(x − med) < 0 for finite IEEE values, so this splits the two runs.
    let p = vals.partition_point(|&x| x < med);
    let runs = FoldedRuns {
        vals,
        idx: &sorted.idx,
        med,
        p,
    };
    let s = vals.len();
    let parts = parts.clamp(1, s.max(1));
    let mut bounds: Vec<(usize, usize)> = (0..parts)
        .map(|i| runs.boundary_at(i * s / parts))
        .collect();
    bounds.push((runs.n_left(), runs.n_right()));
    let segment = |i: usize| -> A {
        let mut acc = init();
        runs.for_each_z(bounds[i], bounds[i + 1], z, |k, v| f(&mut acc, k, v));
        acc
    };
    Some(std::thread::scope(|sc| {
        let handles: Vec<_> = (1..parts).map(|i| sc.spawn(move || segment(i))).collect();
        let mut out = vec![segment(0)];
        // A panic in a worker is a bug in this module; re-raise it unchanged.
        out.extend(
            handles
                .into_iter()
                .map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e))),
        );
        out
    }))
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

    /// Cutting the folded order into parallel segments gives every draw the same folded
    /// z-score as one pass, also when tie groups (here: many, and symmetric pairs around
    /// the median) fall on the cut points.
    #[test]
    fn folded_segments_match_one_pass() {
        let vals: Vec<f64> = (0..3001)
            .map(|i| ((i * 7919) % 41) as f64 - 20.0 + if i % 5 == 0 { 0.5 } else { 0.0 })
            .collect();
        let sorted = SortedSplit::new(&[&vals[..1500], &vals[1500..3000]]);
        let z = ZScale::new(sorted.vals.len());
        let collect = |parts: usize| -> Vec<(u32, u64)> {
            let segs = folded_z_segments(
                &sorted,
                &z,
                parts,
                Vec::new,
                |acc: &mut Vec<(u32, u64)>, k, v| acc.push((k, v.to_bits())),
            )
            .expect("finite median");
            let mut all: Vec<(u32, u64)> = segs.into_iter().flatten().collect();
            all.sort_unstable();
            all
        };
        let one = collect(1);
        assert_eq!(one.len(), 3000);
        for parts in [2, 3, 7, 64] {
            assert_eq!(collect(parts), one, "parts {parts}");
        }
        // Against a direct computation: average ranks of |x − median| over ties.
        let med = sorted.median();
        let folded: Vec<f64> = sorted.vals.iter().map(|&x| (x - med).abs()).collect();
        for &(k, bits) in one.iter().step_by(97) {
            let pos = sorted
                .idx
                .iter()
                .position(|&i| i == k)
                .expect("index present");
            let v = folded[pos];
            let below = folded.iter().filter(|&&w| w < v).count();
            let equal = folded.iter().filter(|&&w| w == v).count();
            let rank = below as f64 + (equal as f64 + 1.0) / 2.0;
            let want = Normal::standard().inverse_cdf((rank - 0.375) / (3000.0 + 0.25));
            assert!((f64::from_bits(bits) - want).abs() < 1e-12, "{k}");
        }
    }

    #[test]
    fn average_ranks_with_ties() {
        // ranks: 2.5, 1, 2.5, 4 → z of (r - 3/8)/(4.25)
        let x = [1.0, 0.0, 1.0, 5.0];
        let s = SortedSplit::new(&[&x[..]]);
        let z = ZScale::new(4);
        let out = bulk_z(&s, &z);
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

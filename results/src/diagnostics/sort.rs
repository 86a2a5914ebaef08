//! The one sort behind rank normalisation: draws mapped to order-preserving integer keys and
//! sorted with their indices, by a radix sort on a value bucket, or on the keys when the values
//! crowd into a small part of their range, or by a comparison sort for small inputs.

use super::memory::{big_vec, big_vec_overwritten, par_map, recycle};

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

/// Sort `keys` ascending, permuting `idx` alongside: a comparison sort for small inputs,
/// the six-pass radix sort otherwise (what [`bucket_sort_split`] leaves to it: heavy
/// tails, infinities, constant draws).
fn sort_pairs(keys: &mut Vec<u64>, idx: &mut Vec<u32>) {
    if keys.len() < RADIX_MIN {
        comparison_sort(keys, idx);
    } else {
        radix_sort(keys, idx);
    }
}

/// The top-level value bucket ⌊(x − min)·2048/(max − min)⌋ (capped at 2047), a
/// non-decreasing function of x (every step rounds monotonically; `as usize` saturates).
#[derive(Clone, Copy)]
struct Bucket {
    min: f64,
    scale: f64,
}

impl Bucket {
    #[inline]
    fn top(self, x: f64) -> usize {
        (((x - self.min) * self.scale) as usize).min(BUCKETS - 1)
    }
}

/// What [`bucket_sort_split`] calls with each sorted bucket: `(sorted position, values,
/// split-layout indices)`.
pub(super) type OnBucket<'f> = dyn Fn(usize, &[f64], &[u32]) + Sync + 'f;

/// Sort the values of the split chains ascending, with their split-layout indices, when they
/// spread over their range (draws of one distribution do); `None` without sorting when the
/// range is not finite and positive, or when more than 1/16 of the draws share one of the
/// 2048 top-level buckets (long runs: the six-pass radix sort is then faster).
///
/// Most-significant digit first, on `threads` threads and without a merge: each thread
/// scatters its own chains by their [`Bucket`] into its own buffer; then the buckets are
/// dealt out to the threads in contiguous ranges of about equal size, and each thread
/// gathers its buckets' pieces from every buffer into its own stretch of the output, sorts
/// them there ([`sort_bucket`]: a counting sort that fits in cache, then an insertion sort
/// of the nearly sorted result by [`key`]) and calls
/// `on_bucket(position, vals, idx)` with the bucket's sorted position, values and indices.
/// Equal values share a bucket, so a bucket never splits a tie group.
pub(super) fn bucket_sort_split(
    split: &[&[f64]],
    threads: usize,
    on_bucket: &OnBucket<'_>,
) -> Option<(Vec<f64>, Vec<u32>)> {
    let half = split.first().map_or(0, |c| c.len());
    let total = half * split.len();
    if total < RADIX_MIN {
        return None;
    }
    let per = split.len().div_ceil(threads.clamp(1, split.len().max(1)));
    let parts: Vec<(usize, &[&[f64]])> = split
        .chunks(per.max(1))
        .enumerate()
        .map(|(i, p)| (i * per * half, p))
        .collect();
    let (min, max) = par_map(&parts, parts.len(), |(_, p)| {
        p.iter()
            .flat_map(|c| c.iter())
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &x| {
                (lo.min(x), hi.max(x))
            })
    })
    .into_iter()
    .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), (a, b)| {
        (lo.min(a), hi.max(b))
    });
    let scale = BUCKETS as f64 / (max - min);
    if !(max - min > 0.0 && scale.is_finite() && min.is_finite() && max.is_finite()) {
        return None;
    }
    let bucket = Bucket { min, scale };
    let hists: Vec<Vec<usize>> = par_map(&parts, parts.len(), |(_, p)| {
        let mut h = vec![0usize; BUCKETS];
        for &x in p.iter().flat_map(|c| c.iter()) {
            h[bucket.top(x)] += 1;
        }
        h
    });
    let counts: Vec<usize> = (0..BUCKETS)
        .map(|d| hists.iter().map(|h| h[d]).sum())
        .collect();
    if counts.iter().any(|&c| c > total / 16) {
        return None;
    }
    // Each part scattered by top digit into its own buffer; `starts[p][d]` is where bucket
    // `d` begins in part `p`'s buffer.
    let starts: Vec<Vec<usize>> = hists.iter().map(|h| exclusive_prefix(h)).collect();
    let scattered: Vec<(Vec<f64>, Vec<u32>)> = par_map(
        &parts.iter().zip(&starts).collect::<Vec<_>>(),
        parts.len(),
        |&(&(base, p), start)| {
            let n: usize = p.iter().map(|c| c.len()).sum();
            let mut vals = big_vec_overwritten::<f64>(n);
            let mut idx = big_vec_overwritten::<u32>(n);
            let mut off = start.clone();
            let ks = (base as u32..(base + n) as u32).zip(p.iter().flat_map(|c| c.iter()));
            for (k, &x) in ks {
                let d = bucket.top(x);
                let o = off[d];
                vals[o] = x;
                idx[o] = k;
                off[d] = o + 1;
            }
            (vals, idx)
        },
    );
    // Deal the top buckets out in contiguous ranges of about total / threads draws each.
    let n_threads = threads.max(1);
    let mut cuts = vec![0usize];
    let mut acc = 0;
    for (d, &c) in counts.iter().enumerate() {
        acc += c;
        if acc * n_threads >= cuts.len() * total && cuts.len() < n_threads {
            cuts.push(d + 1);
        }
    }
    cuts.push(BUCKETS);
    let pos = exclusive_prefix(&counts);
    let mut vals = big_vec_overwritten::<f64>(total);
    let mut idx = big_vec_overwritten::<u32>(total);
    let mut jobs = Vec::new();
    let (mut rest_v, mut rest_i) = (&mut vals[..], &mut idx[..]);
    for w in cuts.windows(2) {
        let len: usize = counts[w[0]..w[1]].iter().sum();
        let (v, rv) = rest_v.split_at_mut(len);
        let (i, ri) = rest_i.split_at_mut(len);
        (rest_v, rest_i) = (rv, ri);
        jobs.push((w[0]..w[1], v, i));
    }
    let sort_range = |(range, out_v, out_i): (std::ops::Range<usize>, &mut [f64], &mut [u32])| {
        let mut scratch = Scratch::default();
        let mut at = 0;
        for d in range {
            let b = counts[d];
            let (ov, oi) = (&mut out_v[at..at + b], &mut out_i[at..at + b]);
            sort_bucket(d, &scattered, &starts, &hists, &mut scratch, ov, oi);
            on_bucket(pos[d], ov, oi);
            at += b;
        }
    };
    std::thread::scope(|s| {
        let mut jobs = jobs.into_iter();
        let first = jobs.next();
        let sort_range = &sort_range;
        for job in jobs {
            s.spawn(move || sort_range(job));
        }
        if let Some(job) = first {
            sort_range(job);
        }
    });
    for (v, i) in scattered {
        recycle(v);
        recycle(i);
    }
    Some((vals, idx))
}

/// Gather top bucket `d` from every part's buffer into `ov`/`oi` and sort it there.
#[allow(clippy::too_many_arguments)]
fn sort_bucket(
    d: usize,
    scattered: &[(Vec<f64>, Vec<u32>)],
    starts: &[Vec<usize>],
    hists: &[Vec<usize>],
    scratch: &mut Scratch,
    ov: &mut [f64],
    oi: &mut [u32],
) {
    let b = ov.len();
    if b == 0 {
        return;
    }
    let pieces = scattered
        .iter()
        .zip(starts.iter().zip(hists))
        .map(|((v, i), (st, h))| (&v[st[d]..st[d] + h[d]], &i[st[d]..st[d] + h[d]]));
    if b <= 32 {
        let mut at = 0;
        for (v, i) in pieces {
            ov[at..at + v.len()].copy_from_slice(v);
            oi[at..at + v.len()].copy_from_slice(i);
            at += v.len();
        }
    } else {
        // Counting sort on a sub-bucket linear in the value between the bucket's own min
        // and max, with about two bins per draw: few draws share a bin, so the insertion
        // sort below has almost nothing to do. Non-decreasing in x, so a full sort.
        let Scratch {
            vals: sv,
            idx: si,
            bin,
            hist,
        } = scratch;
        sv.clear();
        si.clear();
        for (v, i) in pieces {
            sv.extend_from_slice(v);
            si.extend_from_slice(i);
        }
        let (lo, hi) = sv
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &x| {
                (lo.min(x), hi.max(x))
            });
        let bins = (2 * b).next_power_of_two().min(1 << 16);
        let scale = bins as f64 / (hi - lo);
        // A bucket of one repeated value (or too narrow to scale) goes to one bin.
        let scale = if scale.is_finite() { scale } else { 0.0 };
        let top = (bins - 1) as u32;
        bin.clear();
        bin.extend(sv.iter().map(|&x| (((x - lo) * scale) as u32).min(top)));
        hist.clear();
        hist.resize(bins, 0);
        for &c in bin.iter() {
            hist[c as usize] += 1;
        }
        let mut acc = 0u32;
        for c in hist.iter_mut() {
            let n = *c;
            *c = acc;
            acc += n;
        }
        for ((&x, &k), &c) in sv.iter().zip(si.iter()).zip(bin.iter()) {
            let o = hist[c as usize] as usize;
            ov[o] = x;
            oi[o] = k;
            hist[c as usize] += 1;
        }
    }
    // Nearly sorted (only draws of one bin are out of order): insertion sort by key.
    for a in 1..b {
        let (x, j) = (ov[a], oi[a]);
        let kx = key(x);
        let mut c = a;
        while c > 0 && key(ov[c - 1]) > kx {
            ov[c] = ov[c - 1];
            oi[c] = oi[c - 1];
            c -= 1;
        }
        ov[c] = x;
        oi[c] = j;
    }
}

/// One thread's buffers for [`sort_bucket`], reused from bucket to bucket.
#[derive(Default)]
struct Scratch {
    vals: Vec<f64>,
    idx: Vec<u32>,
    bin: Vec<u32>,
    hist: Vec<u32>,
}

/// Exclusive prefix sums of a histogram: where each bucket starts.
fn exclusive_prefix(h: &[usize]) -> Vec<usize> {
    let mut acc = 0;
    h.iter()
        .map(|&c| {
            let o = acc;
            acc += c;
            o
        })
        .collect()
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
    // Every pass writes all n slots before the swap makes them read.
    let mut keys2 = big_vec_overwritten::<u64>(n);
    let mut idx2 = big_vec_overwritten::<u32>(n);
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
    recycle(keys2);
    recycle(idx2);
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

    /// Both sorting paths against `sort_by(total_cmp)`, on data that takes each path:
    /// light tails with ties and signed zeros (bucket sort, on 1–3 threads), heavy tails and infinities
    /// (bucket sort declines, six-pass radix sort).
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
        let want_bits = |vals: &[f64]| -> Vec<u64> {
            let mut w = vals.to_vec();
            w.sort_by(f64::total_cmp);
            w.iter().map(|x| x.to_bits()).collect()
        };
        for (name, vals, bucketed) in [
            ("light", &light, true),
            ("heavy", &heavy, false),
            ("infinite", &infinite, false),
            ("constant", &constant, false),
        ] {
            let split: Vec<&[f64]> = vals.chunks(n / 4).collect();
            for threads in [1, 2, 3] {
                let calls = std::sync::Mutex::new(Vec::new());
                let got = bucket_sort_split(&split, threads, &|pos, v, i| {
                    assert_eq!(v.len(), i.len());
                    calls.lock().unwrap().push((pos, v.len()));
                });
                assert_eq!(got.is_some(), bucketed, "{name}");
                let Some((sv, si)) = got else { continue };
                let bits: Vec<u64> = sv.iter().map(|x| x.to_bits()).collect();
                assert_eq!(bits, want_bits(vals), "{name} {threads}");
                for (&v, &i) in sv.iter().zip(&si) {
                    assert_eq!(v.to_bits(), vals[i as usize].to_bits(), "{name}");
                }
                // The stretches tile the order and never split a tie group.
                let mut calls = calls.into_inner().unwrap();
                calls.sort_unstable();
                let mut at = 0;
                for (pos, len) in calls {
                    assert_eq!(pos, at, "{name} {threads}");
                    if pos > 0 && len > 0 {
                        assert!(sv[pos - 1] != sv[pos], "{name} {threads} tie cut at {pos}");
                    }
                    at += len;
                }
                assert_eq!(at, n, "{name} {threads}");
            }
            let mut k2: Vec<u64> = vals.iter().map(|&x| key(x)).collect();
            let mut i2: Vec<u32> = (0..n as u32).collect();
            radix_sort(&mut k2, &mut i2);
            let got: Vec<u64> = k2.iter().map(|&k| unkey(k).to_bits()).collect();
            assert_eq!(got, want_bits(vals), "{name}");
            for (&k, &i) in k2.iter().zip(i2.iter()) {
                assert_eq!(k, key(vals[i as usize]), "{name}");
            }
        }
    }
}

//! Effective sample size of an M×N array (ArviZ 0.23.4 `_ess`, with `autocov` from
//! `arviz/stats/stats_utils.py`), and the classic R-hat (`_rhat`).

use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use rustfft::num_complex::Complex;
use rustfft::{Fft, FftPlanner};

use super::numeric::{mean, threads_for, var};

/// `np.finfo(float).resolution`: ArviZ treats an array whose range is below this as constant.
const RESOLUTION: f64 = 1e-15;

/// Smallest 2^a·3^b·5^c ≥ `target` (the sizes scipy's `next_fast_len`, used by ArviZ's
/// `autocov`, returns; rustfft has fast mixed-radix kernels for all of them).
pub(crate) fn next_fast_len(target: usize) -> usize {
    if target <= 6 {
        return target.max(1);
    }
    let mut best = target.next_power_of_two();
    let mut p5 = 1usize;
    while p5 < best {
        let mut p35 = p5;
        while p35 < best {
            // smallest power of two q with p35·q ≥ target
            let mut q = p35;
            while q < target {
                q *= 2;
            }
            if q < best {
                best = q;
            }
            p35 *= 3;
        }
        p5 *= 5;
    }
    best
}

/// FFT length for the autocovariance of `n` draws: any length ≥ 2n − 1 gives the exact
/// (non-circular) biased autocovariance, so the choice changes only rounding (~1e-16).
/// ArviZ pads to scipy's `next_fast_len(2n)`; rustfft's power-of-two kernels are about
/// 1.5× faster per point than its mixed-radix ones (2^20: 7.4 ms, 10^6: 11.3 ms), so we
/// take the next power of two unless it is more than 30% longer than the 5-smooth length.
pub(crate) fn fft_len(n: usize) -> usize {
    let fast = next_fast_len(2 * n);
    let pow2 = (2 * n).next_power_of_two();
    if pow2 as f64 <= 1.3 * fast as f64 {
        pow2
    } else {
        fast
    }
}

/// Forward and inverse plans of length `m` from one process-wide planner, which caches
/// plans (and twiddle tables) by length: planning a 2^20 FFT costs more than running it,
/// and `diagnose` of a file runs many ESS computations of the same length.
fn cached_plans(m: usize) -> (Arc<dyn Fft<f64>>, Arc<dyn Fft<f64>>) {
    static PLANNER: OnceLock<Mutex<FftPlanner<f64>>> = OnceLock::new();
    let mut planner = PLANNER
        .get_or_init(|| Mutex::new(FftPlanner::new()))
        .lock()
        // The planner's cache stays consistent even if a holder panicked.
        .unwrap_or_else(PoisonError::into_inner);
    (planner.plan_fft_forward(m), planner.plan_fft_inverse(m))
}

/// FFT plans for the biased autocovariance of chains of `n` draws, zero-padded to
/// [`fft_len`]`(n)` (ArviZ's `autocov` pads to `next_fast_len(2n)`; same values).
pub(crate) struct AutocovPlan {
    n: usize,
    m: usize,
    fwd: Arc<dyn Fft<f64>>,
    inv: Arc<dyn Fft<f64>>,
}

impl AutocovPlan {
    pub(crate) fn new(n: usize) -> Self {
        let m = fft_len(n);
        let (fwd, inv) = cached_plans(m);
        Self { n, m, fwd, inv }
    }

    /// Mean over chains of the biased autocovariance at lags 0..n:
    /// `np.mean(autocov(ary, axis=1), axis=0)` where
    /// `autocov = irfft(|rfft(x − mean, m)|², m)[:n] / n`.
    ///
    /// Two real chains a, b are transformed at once as z = a + i·b: the real part of
    /// IFFT(|Z|²) is acov(a) + acov(b) (the imaginary part holds their cross terms), and the
    /// inverse transform is linear, so one inverse FFT serves all chains.
    fn mean_autocov(&self, chains: &[&[f64]], chain_means: &[f64]) -> Vec<f64> {
        let (n, m) = (self.n, self.m);
        let pairs: Vec<(usize, Option<usize>)> = (0..chains.len())
            .step_by(2)
            .map(|a| (a, (a + 1 < chains.len()).then_some(a + 1)))
            .collect();
        let threads = threads_for(pairs.len() * m, 1 << 14).min(pairs.len());
        let spectrum = |my_pairs: &[(usize, Option<usize>)]| -> Vec<f64> {
            let mut power = vec![0.0f64; m];
            let mut buf = vec![Complex::new(0.0, 0.0); m];
            let mut scratch = vec![Complex::new(0.0, 0.0); self.fwd.get_inplace_scratch_len()];
            for &(a, b) in my_pairs {
                let (ma, ca) = (chain_means[a], chains[a]);
                for (z, &x) in buf[..n].iter_mut().zip(ca) {
                    *z = Complex::new(x - ma, 0.0);
                }
                if let Some(b) = b {
                    let (mb, cb) = (chain_means[b], chains[b]);
                    for (z, &y) in buf[..n].iter_mut().zip(cb) {
                        z.im = y - mb;
                    }
                }
                buf[n..].fill(Complex::new(0.0, 0.0));
                self.fwd.process_with_scratch(&mut buf, &mut scratch);
                for (p, z) in power.iter_mut().zip(&buf) {
                    *p += z.norm_sqr();
                }
            }
            power
        };
        let power = if threads <= 1 {
            spectrum(&pairs)
        } else {
            let per = pairs.len().div_ceil(threads);
            std::thread::scope(|s| {
                let spectrum = &spectrum;
                let handles: Vec<_> = pairs[per..]
                    .chunks(per)
                    .map(|ch| s.spawn(move || spectrum(ch)))
                    .collect();
                let mut total = spectrum(&pairs[..per]);
                for h in handles {
                    // A panic in a worker is a bug in this module; re-raise it unchanged.
                    let part = h.join().unwrap_or_else(|e| std::panic::resume_unwind(e));
                    for (t, p) in total.iter_mut().zip(part) {
                        *t += p;
                    }
                }
                total
            })
        };
        let mut buf: Vec<Complex<f64>> = power.into_iter().map(|p| Complex::new(p, 0.0)).collect();
        let mut scratch = vec![Complex::new(0.0, 0.0); self.inv.get_inplace_scratch_len()];
        self.inv.process_with_scratch(&mut buf, &mut scratch);
        // irfft's 1/m, autocov's 1/n, and the mean over chains.
        let scale = 1.0 / (m as f64 * n as f64 * chains.len() as f64);
        buf[..n].iter().map(|z| z.re * scale).collect()
    }

    /// Mean autocovariances of two sets of C chains each, from C forward FFTs and one
    /// inverse FFT: chain c of `a` is the real and chain c of `b` the imaginary part of one
    /// transform; their spectra are separated (X_a = (Z_k + conj Z_{m−k})/2,
    /// X_b = (Z_k − conj Z_{m−k})/2i), and since both power spectra are real and even, one
    /// inverse FFT of P_a + i·P_b returns acov_a in its real and acov_b in its imaginary part.
    ///
    /// `a.2` and `b.2` are powers of two each set is multiplied by (exactly) before the
    /// transform, so that two sets of very different scales (z-scores and raw draws of
    /// scale 1e-10, say) share a transform without the smaller drowning in the rounding
    /// error of the larger; the autocovariances are scaled back (exactly) afterwards.
    fn mean_autocov_two(
        &self,
        a: (&[&[f64]], &[f64], f64),
        b: (&[&[f64]], &[f64], f64),
    ) -> (Vec<f64>, Vec<f64>) {
        let (n, m) = (self.n, self.m);
        let c = a.0.len().min(b.0.len());
        let threads = threads_for(c * m, 1 << 14).min(c).max(1);
        let spectra = |range: std::ops::Range<usize>| -> (Vec<f64>, Vec<f64>) {
            let mut pa = vec![0.0f64; m];
            let mut pb = vec![0.0f64; m];
            let mut buf = vec![Complex::new(0.0, 0.0); m];
            let mut scratch = vec![Complex::new(0.0, 0.0); self.fwd.get_inplace_scratch_len()];
            for ch in range {
                let (xa, ma, sa) = (a.0[ch], a.1[ch], a.2);
                let (xb, mb, sb) = (b.0[ch], b.1[ch], b.2);
                for ((z, &x), &y) in buf[..n].iter_mut().zip(xa).zip(xb) {
                    *z = Complex::new((x - ma) * sa, (y - mb) * sb);
                }
                buf[n..].fill(Complex::new(0.0, 0.0));
                self.fwd.process_with_scratch(&mut buf, &mut scratch);
                for k in 0..m {
                    let zk = buf[k];
                    let zr = buf[(m - k) % m].conj();
                    pa[k] += (zk + zr).norm_sqr() * 0.25;
                    pb[k] += (zk - zr).norm_sqr() * 0.25;
                }
            }
            (pa, pb)
        };
        let (pa, pb) = if threads <= 1 {
            spectra(0..c)
        } else {
            let per = c.div_ceil(threads);
            std::thread::scope(|s| {
                let spectra = &spectra;
                let handles: Vec<_> = (per..c)
                    .step_by(per)
                    .map(|lo| s.spawn(move || spectra(lo..(lo + per).min(c))))
                    .collect();
                let (mut ta, mut tb) = spectra(0..per.min(c));
                for h in handles {
                    // A panic in a worker is a bug in this module; re-raise it unchanged.
                    let (xa, xb) = h.join().unwrap_or_else(|e| std::panic::resume_unwind(e));
                    for (t, x) in ta.iter_mut().zip(xa) {
                        *t += x;
                    }
                    for (t, x) in tb.iter_mut().zip(xb) {
                        *t += x;
                    }
                }
                (ta, tb)
            })
        };
        let mut buf: Vec<Complex<f64>> = pa
            .into_iter()
            .zip(pb)
            .map(|(x, y)| Complex::new(x, y))
            .collect();
        let mut scratch = vec![Complex::new(0.0, 0.0); self.inv.get_inplace_scratch_len()];
        self.inv.process_with_scratch(&mut buf, &mut scratch);
        let scale = 1.0 / (m as f64 * n as f64 * c as f64);
        let (ua, ub) = (1.0 / (a.2 * a.2), 1.0 / (b.2 * b.2));
        (
            buf[..n].iter().map(|z| z.re * scale * ua).collect(),
            buf[..n].iter().map(|z| z.im * scale * ub).collect(),
        )
    }
}

/// ArviZ 0.23.4 `_ess(ary, relative)` for C chains of n draws each (`chains[c]`), assumed
/// free of NaN (callers check). `plan` must have been made for `n`.
///
/// * range < 1e-15 (`np.finfo(float).resolution`) → returns C·n (also when `relative`,
///   as ArviZ does);
/// * ρ̂_t = 1 − (W − mean_c acov_c(t)) / var⁺ with W = mean_c acov_c(0)·n/(n−1) and
///   var⁺ = W·(n−1)/n + Var_c(chain means) (the last term only when C > 1);
/// * Geyer's initial positive sequence over pairs (ρ̂_{t+1}, ρ̂_{t+2}), t = 1, 3, …,
///   then the initial monotone sequence;
/// * τ̂ = −1 + 2·Σ_{t≤max_t} ρ̂_t + ρ̂_{max_t+1}, floored at 1/log10(C·n);
/// * ESS = C·n/τ̂ (or 1/τ̂ when `relative`).
pub(crate) fn ess_chains(chains: &[&[f64]], plan: &AutocovPlan, relative: bool) -> f64 {
    let n_chain = chains.len();
    let n_draw = chains.first().map_or(0, |c| c.len());
    let size = (n_chain * n_draw) as f64;
    let (lo, hi) = chains
        .iter()
        .flat_map(|c| c.iter())
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &x| {
            (lo.min(x), hi.max(x))
        });
    if hi - lo < RESOLUTION {
        return size;
    }
    let chain_means: Vec<f64> = chains.iter().map(|c| mean(c)).collect();
    let acov = plan.mean_autocov(chains, &chain_means);
    geyer_ess(&acov, &chain_means, n_chain, n_draw, relative)
}

/// [`ess_chains`] of two arrays of the same shape, sharing the FFTs (see
/// `AutocovPlan::mean_autocov_two`): what tail ESS (low and high indicator) and `diagnose`
/// (bulk z and raw draws) need. Same values as two `ess_chains` calls up to rounding.
pub(crate) fn ess_chains_two(
    a: &[&[f64]],
    b: &[&[f64]],
    plan: &AutocovPlan,
    relative: bool,
) -> (f64, f64) {
    let range = |chains: &[&[f64]]| {
        let (lo, hi) = chains
            .iter()
            .flat_map(|c| c.iter())
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &x| {
                (lo.min(x), hi.max(x))
            });
        hi - lo
    };
    // 2^−⌊log2 range⌋ brings a set to a range in [1, 2), exactly (a power of two); `None`
    // for a (near-)constant or non-finite range, which take the one-set path.
    let pow2_scale = |r: f64| -> Option<f64> {
        if !(r >= RESOLUTION && r.is_finite()) {
            return None;
        }
        let e = (r.log2().floor() as i32).clamp(-900, 900);
        Some(2f64.powi(-e))
    };
    let (Some(sa), Some(sb)) = (pow2_scale(range(a)), pow2_scale(range(b))) else {
        return (ess_chains(a, plan, relative), ess_chains(b, plan, relative));
    };
    if a.len() != b.len() || a.is_empty() {
        return (ess_chains(a, plan, relative), ess_chains(b, plan, relative));
    }
    let n_chain = a.len();
    let n_draw = a[0].len();
    let ma: Vec<f64> = a.iter().map(|c| mean(c)).collect();
    let mb: Vec<f64> = b.iter().map(|c| mean(c)).collect();
    let (acov_a, acov_b) = plan.mean_autocov_two((a, &ma, sa), (b, &mb, sb));
    (
        geyer_ess(&acov_a, &ma, n_chain, n_draw, relative),
        geyer_ess(&acov_b, &mb, n_chain, n_draw, relative),
    )
}

/// The part of `_ess` after the autocovariance, line by line.
pub(crate) fn geyer_ess(
    acov: &[f64],
    chain_means: &[f64],
    n_chain: usize,
    n_draw: usize,
    relative: bool,
) -> f64 {
    let nf = n_draw as f64;
    let mean_var = acov[0] * nf / (nf - 1.0);
    let mut var_plus = mean_var * (nf - 1.0) / nf;
    if n_chain > 1 {
        var_plus += var(chain_means, 1);
    }
    let rho_at = |t: usize| 1.0 - (mean_var - acov[t]) / var_plus;

    let mut rho = vec![0.0f64; n_draw];
    let mut rho_even = 1.0;
    rho[0] = rho_even;
    let mut rho_odd = rho_at(1);
    rho[1] = rho_odd;
    let mut any_nan = rho_odd.is_nan();

    // Geyer's initial positive sequence. `t < n_draw - 3` in Python (may be negative).
    let mut t = 1usize;
    while t + 3 < n_draw && (rho_even + rho_odd) > 0.0 {
        rho_even = rho_at(t + 1);
        rho_odd = rho_at(t + 2);
        if (rho_even + rho_odd) >= 0.0 {
            rho[t + 1] = rho_even;
            rho[t + 2] = rho_odd;
        }
        any_nan |= rho_even.is_nan() || rho_odd.is_nan();
        t += 2;
    }
    // max_t = t − 2 ≥ −1; work with max_t + 1 ≥ 0.
    let max_t1 = t - 1;
    if rho_even > 0.0 {
        rho[max_t1] = rho_even;
    }
    // Geyer's initial monotone sequence: `while t <= max_t - 2`, i.e. t + 3 <= max_t + 1.
    let mut t = 1usize;
    while t + 3 <= max_t1 {
        if (rho[t + 1] + rho[t + 2]) > (rho[t - 1] + rho[t]) {
            rho[t + 1] = (rho[t - 1] + rho[t]) / 2.0;
            rho[t + 2] = rho[t + 1];
        }
        t += 2;
    }
    let size = (n_chain * n_draw) as f64;
    let tau = -1.0 + 2.0 * super::numeric::pairwise_sum(&rho[..max_t1]) + rho[max_t1];
    // Python's max(tau, floor) keeps tau unless floor > tau (so a NaN tau stays NaN).
    let floor = 1.0 / size.log10();
    let tau = if floor > tau { floor } else { tau };
    let ess = if relative { 1.0 } else { size } / tau;
    if any_nan { f64::NAN } else { ess }
}

/// ArviZ 0.23.4 `_rhat` (classic R-hat of the given chains, no splitting):
/// sqrt((B/W + n − 1)/n) with B = n·Var(chain means), W = mean(chain variances), both ddof=1.
pub(crate) fn rhat_chains(chains: &[&[f64]]) -> f64 {
    let n = chains.first().map_or(0, |c| c.len());
    let means: Vec<f64> = chains.iter().map(|c| mean(c)).collect();
    let vars: Vec<f64> = chains.iter().map(|c| var(c, 1)).collect();
    rhat_from_moments(n, &means, &vars)
}

/// `_rhat`'s final formula from per-chain means and (ddof=1) variances of n draws each.
fn rhat_from_moments(n: usize, means: &[f64], vars: &[f64]) -> f64 {
    let n = n as f64;
    let between = n * var(means, 1);
    let within = mean(vars);
    ((between / within + n - 1.0) / n).sqrt()
}

/// Neumaier-compensated running sum (error O(ε) independent of the count).
#[derive(Clone, Copy, Default)]
struct CompensatedSum {
    sum: f64,
    comp: f64,
}

impl CompensatedSum {
    #[inline]
    fn add(&mut self, x: f64) {
        let t = self.sum + x;
        if self.sum.abs() >= x.abs() {
            self.comp += (self.sum - t) + x;
        } else {
            self.comp += (x - t) + self.sum;
        }
        self.sum = t;
    }

    fn total(&self) -> f64 {
        self.sum + self.comp
    }
}

/// Split-layout index → split chain (`k / half`) without a hardware division per value.
struct ChainOf {
    half: usize,
    inv: f64,
}

impl ChainOf {
    fn new(half: usize) -> Self {
        Self {
            half,
            inv: 1.0 / half as f64,
        }
    }

    #[inline]
    fn of(&self, k: u32) -> usize {
        let k = k as usize;
        // The float estimate is off by at most one for k < 2^32; correct it exactly.
        let mut c = (k as f64 * self.inv) as usize;
        if c * self.half > k {
            c -= 1;
        } else if (c + 1) * self.half <= k {
            c += 1;
        }
        c
    }
}

/// `_rhat` of values given in any order: `vals[i]` belongs at split-layout index `idx[i]`
/// (split chain `idx[i] / half`, `n_chains` chains of `half` draws). Used for the
/// rank-normalised R-hats straight from sorted order, which saves scattering the z-scores
/// back to chain layout; per-chain sums are compensated, so the result matches the
/// chain-layout computation to ~1e-16.
pub(crate) fn rhat_unordered(vals: &[f64], idx: &[u32], half: usize, n_chains: usize) -> f64 {
    // One pass of compensated Σv and Σv² per chain. The one-pass variance
    // (Σv² − (Σv)²/n)/(n − 1) loses nothing here: these are z-scores, whose chain means
    // are small next to their spread, and both sums are compensated.
    let chain = ChainOf::new(half);
    let mut sums = vec![(CompensatedSum::default(), CompensatedSum::default()); n_chains];
    for (&v, &k) in vals.iter().zip(idx) {
        let (s1, s2) = &mut sums[chain.of(k)];
        s1.add(v);
        s2.add(v * v);
    }
    let n = half as f64;
    let means: Vec<f64> = sums.iter().map(|(s1, _)| s1.total() / n).collect();
    let vars: Vec<f64> = sums
        .iter()
        .zip(&means)
        .map(|((_, s2), &m)| (s2.total() - n * m * m) / (n - 1.0))
        .collect();
    rhat_from_moments(half, &means, &vars)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fast_len_is_5_smooth() {
        assert_eq!(next_fast_len(1_000_000), 1_000_000);
        assert_eq!(next_fast_len(1_000_001), 1_012_500);
        assert_eq!(next_fast_len(7), 8);
        assert_eq!(next_fast_len(11), 12);
        assert_eq!(next_fast_len(97), 100);
        assert_eq!(next_fast_len(1025), 1080);
    }

    #[test]
    fn chain_of_is_exact_division() {
        for half in [2usize, 3, 7, 500_000, 1_000_003] {
            let c = ChainOf::new(half);
            for k in [
                0usize,
                1,
                half - 1,
                half,
                half + 1,
                7 * half - 1,
                7 * half,
                4_000_000_000,
            ] {
                assert_eq!(c.of(k as u32), k / half, "k={k} half={half}");
            }
        }
    }

    #[test]
    fn rhat_unordered_matches_chain_layout() {
        let x: Vec<f64> = (0..60)
            .map(|i| ((i * 37) % 23) as f64 * 0.1 + (i / 15) as f64)
            .collect();
        let chains: Vec<&[f64]> = x.chunks(15).collect();
        let perm: Vec<u32> = (0..60u32).map(|i| (i * 7) % 60).collect();
        let vals: Vec<f64> = perm.iter().map(|&k| x[k as usize]).collect();
        let a = rhat_chains(&chains);
        let b = rhat_unordered(&vals, &perm, 15, 4);
        assert!((a - b).abs() < 1e-14 * a, "{a} {b}");
    }

    #[test]
    fn two_set_autocov_matches_one_set() {
        let mk = |f: fn(usize) -> f64| -> Vec<f64> { (0..101).map(f).collect() };
        let a = [
            mk(|i| (i as f64 * 0.7).sin()),
            mk(|i| ((i * 13) % 7) as f64),
        ];
        let b = [
            mk(|i| (i as f64).sqrt()),
            mk(|i| if i % 3 == 0 { 1.0 } else { 0.0 }),
        ];
        let ca: Vec<&[f64]> = a.iter().map(Vec::as_slice).collect();
        let cb: Vec<&[f64]> = b.iter().map(Vec::as_slice).collect();
        let plan = AutocovPlan::new(101);
        let (ea, eb) = ess_chains_two(&ca, &cb, &plan, false);
        let (wa, wb) = (ess_chains(&ca, &plan, false), ess_chains(&cb, &plan, false));
        assert!((ea - wa).abs() < 1e-12 * wa, "{ea} {wa}");
        assert!((eb - wb).abs() < 1e-12 * wb, "{eb} {wb}");
    }

    #[test]
    fn fft_len_prefers_powers_of_two() {
        assert_eq!(fft_len(500_000), 1 << 20);
        assert_eq!(fft_len(3), 6);
        assert_eq!(fft_len(4), 8);
        // 2·(2^19 + 1): the next power of two would be 2^21, the 5-smooth length is shorter.
        assert_eq!(fft_len((1 << 19) + 1), next_fast_len((1 << 20) + 2));
    }

    #[test]
    fn autocov_matches_direct_sum() {
        let a: Vec<f64> = (0..37).map(|i| ((i * 7919) % 31) as f64 - 15.0).collect();
        let b: Vec<f64> = (0..37).map(|i| ((i * 104729) % 17) as f64).collect();
        let c: Vec<f64> = (0..37).map(|i| (i as f64).sin()).collect();
        let chains = [&a[..], &b[..], &c[..]];
        let means: Vec<f64> = chains.iter().map(|x| mean(x)).collect();
        let plan = AutocovPlan::new(37);
        let got = plan.mean_autocov(&chains, &means);
        for lag in 0..37 {
            let mut want = 0.0;
            for (ch, &m) in chains.iter().zip(&means) {
                let s: f64 = (0..37 - lag).map(|t| (ch[t] - m) * (ch[t + lag] - m)).sum();
                want += s / 37.0;
            }
            want /= 3.0;
            assert!(
                (got[lag] - want).abs() < 1e-12,
                "lag {lag}: {} vs {want}",
                got[lag]
            );
        }
    }
}

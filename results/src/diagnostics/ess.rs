//! Effective sample size of an M×N array (ArviZ 0.23.4 `_ess`, with `autocov` from
//! `arviz/stats/stats_utils.py`), and the classic R-hat (`_rhat`).

use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use rustfft::num_complex::Complex;
use rustfft::{Fft, FftPlanner};

use super::memory::{add_into, big_vec, big_vec_filled, par_map, recycle, threads_for};
use super::sums::{chain_means, mean, var, var_about};

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
/// ArviZ pads to scipy's `next_fast_len(2n)`; here [`quick_len`]`(2n)`.
pub(crate) fn fft_len(n: usize) -> usize {
    quick_len(2 * n)
}

/// A transform length ≥ `target` that rustfft runs fast: rustfft's power-of-two kernels are
/// about 1.5× faster per point than its mixed-radix ones (2^20: 7.4 ms, 10^6: 11.3 ms), so
/// the next power of two unless it is more than 30% longer than the 5-smooth length.
fn quick_len(target: usize) -> usize {
    let fast = next_fast_len(target);
    let pow2 = target.next_power_of_two();
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

/// Shortest padding worth trying first: n + max(n/32, 64) lags' room (see [`AutocovPlan`]).
fn short_len(n: usize) -> Option<usize> {
    // Below this the full transform is cheap and a retry would cost more than it saves.
    const MIN_N: usize = 4096;
    if n < MIN_N {
        return None;
    }
    let m = quick_len(n + (n / 32).max(64));
    (m < fft_len(n)).then_some(m)
}

/// Forward and inverse FFTs of one length `m`.
struct Transforms {
    m: usize,
    fwd: Arc<dyn Fft<f64>>,
    inv: Arc<dyn Fft<f64>>,
}

impl Transforms {
    fn new(m: usize) -> Self {
        let (fwd, inv) = cached_plans(m);
        Self { m, fwd, inv }
    }
}

/// FFT plans for the biased autocovariance of chains of `n` draws.
///
/// Zero-padding a chain of n draws to length m makes the circular autocovariance equal the
/// linear one at every lag k ≤ m − n. ArviZ pads to `next_fast_len(2n)`, which gives all n
/// lags; Geyer's truncation usually stops after a few hundred. So the plan first pads to
/// about n + n/32 (a transform half as long for large n): when the truncation stays within
/// the lags that length gives exactly, the ESS is the one the full padding gives (the
/// autocovariances differ only by rounding, ~1e-16); otherwise it is recomputed with the
/// full padding ([`fft_len`]).
pub(crate) struct AutocovPlan {
    n: usize,
    full: Transforms,
    short: Option<Transforms>,
}

impl AutocovPlan {
    pub(crate) fn new(n: usize) -> Self {
        Self {
            n,
            full: Transforms::new(fft_len(n)),
            short: short_len(n).map(Transforms::new),
        }
    }

    /// The transforms to try, shortest first; the last one gives every lag.
    fn attempts(&self) -> impl Iterator<Item = &Transforms> {
        self.short.iter().chain(std::iter::once(&self.full))
    }

    /// Mean over chains of the biased autocovariance at lags 0..n:
    /// `np.mean(autocov(ary, axis=1), axis=0)` where
    /// `autocov = irfft(|rfft(x − mean, m)|², m)[:n] / n`.
    ///
    /// Two real chains a, b are transformed at once as z = a + i·b: the real part of
    /// IFFT(|Z|²) is acov(a) + acov(b) (the imaginary part holds their cross terms), and the
    /// inverse transform is linear, so one inverse FFT serves all chains.
    ///
    /// Returns the lags that padding to `t.m` gives exactly: 0..=min(n − 1, m − n).
    fn mean_autocov<F: Fn(f64) -> f64 + Sync>(
        &self,
        t: &Transforms,
        set: &ChainSet<F>,
    ) -> Vec<f64> {
        let (chains, chain_means, map) = (set.chains, &set.means, &set.map);
        let (n, m) = (self.n, t.m);
        let lags = n.min(m - n + 1);
        let pairs: Vec<(usize, Option<usize>)> = (0..chains.len())
            .step_by(2)
            .map(|a| (a, (a + 1 < chains.len()).then_some(a + 1)))
            .collect();
        let threads = threads_for(pairs.len() * m, 1 << 14).min(pairs.len());
        let spectrum = |my_pairs: &[(usize, Option<usize>)]| -> Vec<f64> {
            let mut power = big_vec_filled(m, 0.0f64);
            let mut buf = big_vec_filled(m, Complex::new(0.0, 0.0));
            let mut scratch =
                big_vec_filled(t.fwd.get_inplace_scratch_len(), Complex::new(0.0, 0.0));
            for &(a, b) in my_pairs {
                let (ma, ca) = (chain_means[a], chains[a]);
                for (z, &x) in buf[..n].iter_mut().zip(ca) {
                    *z = Complex::new(map(x) - ma, 0.0);
                }
                if let Some(b) = b {
                    let (mb, cb) = (chain_means[b], chains[b]);
                    for (z, &y) in buf[..n].iter_mut().zip(cb) {
                        z.im = map(y) - mb;
                    }
                }
                buf[n..].fill(Complex::new(0.0, 0.0));
                t.fwd.process_with_scratch(&mut buf, &mut scratch);
                for (p, z) in power.iter_mut().zip(&buf) {
                    *p += z.norm_sqr();
                }
            }
            recycle(buf);
            recycle(scratch);
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
                    add_into(&mut total, part);
                }
                total
            })
        };
        let mut buf: Vec<Complex<f64>> = big_vec(m);
        buf.extend(power.iter().map(|&p| Complex::new(p, 0.0)));
        recycle(power);
        let mut scratch = big_vec_filled(t.inv.get_inplace_scratch_len(), Complex::new(0.0, 0.0));
        t.inv.process_with_scratch(&mut buf, &mut scratch);
        // irfft's 1/m, autocov's 1/n, and the mean over chains.
        let scale = 1.0 / (m as f64 * n as f64 * chains.len() as f64);
        let acov = buf[..lags].iter().map(|z| z.re * scale).collect();
        recycle(buf);
        recycle(scratch);
        acov
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
    /// Lags as [`Self::mean_autocov`].
    fn mean_autocov_two<FA, FB>(
        &self,
        t: &Transforms,
        (a, sa): (&ChainSet<FA>, f64),
        (b, sb): (&ChainSet<FB>, f64),
    ) -> (Vec<f64>, Vec<f64>)
    where
        FA: Fn(f64) -> f64 + Sync,
        FB: Fn(f64) -> f64 + Sync,
    {
        let (n, m) = (self.n, t.m);
        let lags = n.min(m - n + 1);
        let c = a.chains.len().min(b.chains.len());
        let threads = threads_for(c * m, 1 << 14).min(c).max(1);
        let spectra = |range: std::ops::Range<usize>| -> (Vec<f64>, Vec<f64>) {
            let mut pa = big_vec_filled(m, 0.0f64);
            let mut pb = big_vec_filled(m, 0.0f64);
            let mut buf = big_vec_filled(m, Complex::new(0.0, 0.0));
            let mut scratch =
                big_vec_filled(t.fwd.get_inplace_scratch_len(), Complex::new(0.0, 0.0));
            for ch in range {
                let (xa, ma, fa) = (a.chains[ch], a.means[ch], &a.map);
                let (xb, mb, fb) = (b.chains[ch], b.means[ch], &b.map);
                for ((z, &x), &y) in buf[..n].iter_mut().zip(xa).zip(xb) {
                    *z = Complex::new((fa(x) - ma) * sa, (fb(y) - mb) * sb);
                }
                buf[n..].fill(Complex::new(0.0, 0.0));
                t.fwd.process_with_scratch(&mut buf, &mut scratch);
                // Z_{m−k} for k ≥ 1 is `buf[1..]` reversed; k = 0 pairs with itself.
                let z0 = buf[0];
                pa[0] += (z0 + z0.conj()).norm_sqr() * 0.25;
                pb[0] += (z0 - z0.conj()).norm_sqr() * 0.25;
                for (((p_a, p_b), &zk), &zm) in pa[1..]
                    .iter_mut()
                    .zip(pb[1..].iter_mut())
                    .zip(&buf[1..])
                    .zip(buf[1..].iter().rev())
                {
                    let zr = zm.conj();
                    *p_a += (zk + zr).norm_sqr() * 0.25;
                    *p_b += (zk - zr).norm_sqr() * 0.25;
                }
            }
            recycle(buf);
            recycle(scratch);
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
                    add_into(&mut ta, xa);
                    add_into(&mut tb, xb);
                }
                (ta, tb)
            })
        };
        let mut buf: Vec<Complex<f64>> = big_vec(m);
        buf.extend(pa.iter().zip(&pb).map(|(&x, &y)| Complex::new(x, y)));
        recycle(pa);
        recycle(pb);
        let mut scratch = big_vec_filled(t.inv.get_inplace_scratch_len(), Complex::new(0.0, 0.0));
        t.inv.process_with_scratch(&mut buf, &mut scratch);
        let scale = 1.0 / (m as f64 * n as f64 * c as f64);
        let (ua, ub) = (1.0 / (sa * sa), 1.0 / (sb * sb));
        let acov = (
            buf[..lags].iter().map(|z| z.re * scale * ua).collect(),
            buf[..lags].iter().map(|z| z.im * scale * ub).collect(),
        );
        recycle(buf);
        recycle(scratch);
        acov
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
    ess_set(&ChainSet::plain(chains), plan, relative)
}

/// C chains of n values, each passed through `map` before use (the identity for draws and
/// z-scores; an indicator I(x ≤ q) for tail ESS, which so needs no array of its own), with
/// the mapped chains' means (as `np.mean`) and their range (max − min over all chains).
pub(crate) struct ChainSet<'c, F> {
    chains: &'c [&'c [f64]],
    map: F,
    means: Vec<f64>,
    range: f64,
}

impl<'c> ChainSet<'c, fn(f64) -> f64> {
    /// The chains as they are: means by numpy's pairwise sum, range by a scan.
    pub(crate) fn plain(chains: &'c [&'c [f64]]) -> ChainSet<'c, impl Fn(f64) -> f64 + Sync> {
        let (lo, hi) = chains
            .iter()
            .flat_map(|c| c.iter())
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &x| {
                (lo.min(x), hi.max(x))
            });
        ChainSet {
            chains,
            map: |x: f64| x,
            means: chain_means(chains),
            range: hi - lo,
        }
    }
}

impl<'c, F: Fn(f64) -> f64 + Sync> ChainSet<'c, F> {
    /// The mapped chains' means.
    pub(crate) fn means(&self) -> &[f64] {
        &self.means
    }

    /// max − min of the mapped values over all chains.
    pub(crate) fn range(&self) -> f64 {
        self.range
    }

    /// Chains seen through `map`, whose means and range the caller knows (e.g. from counts
    /// for an indicator). The means must be what `np.mean` gives for the mapped chains.
    pub(crate) fn mapped(chains: &'c [&'c [f64]], map: F, means: Vec<f64>, range: f64) -> Self {
        Self {
            chains,
            map,
            means,
            range,
        }
    }
}

/// [`ess_chains`] of a [`ChainSet`].
pub(crate) fn ess_set<F: Fn(f64) -> f64 + Sync>(
    set: &ChainSet<F>,
    plan: &AutocovPlan,
    relative: bool,
) -> f64 {
    let n_chain = set.chains.len();
    let n_draw = set.chains.first().map_or(0, |c| c.len());
    let size = (n_chain * n_draw) as f64;
    if set.range < RESOLUTION {
        return size;
    }
    for t in plan.attempts() {
        let acov = plan.mean_autocov(t, set);
        if let Some(ess) = geyer_ess(&acov, &set.means, n_chain, n_draw, relative) {
            return ess;
        }
    }
    // The full padding gives every lag, so `geyer_ess` has returned by now.
    f64::NAN
}

/// [`ess_chains`] of two arrays of the same shape, sharing the FFTs (see
/// `AutocovPlan::mean_autocov_two`): what `diagnose` (bulk z and raw draws) needs. Same
/// values as two `ess_chains` calls up to rounding.
#[cfg(test)]
pub(crate) fn ess_chains_two(
    a: &[&[f64]],
    b: &[&[f64]],
    plan: &AutocovPlan,
    relative: bool,
) -> (f64, f64) {
    ess_sets_two(&ChainSet::plain(a), &ChainSet::plain(b), plan, relative)
}

/// [`ess_chains_two`] of two [`ChainSet`]s: what tail ESS (low and high indicator) needs.
pub(crate) fn ess_sets_two<FA, FB>(
    a: &ChainSet<FA>,
    b: &ChainSet<FB>,
    plan: &AutocovPlan,
    relative: bool,
) -> (f64, f64)
where
    FA: Fn(f64) -> f64 + Sync,
    FB: Fn(f64) -> f64 + Sync,
{
    // 2^−⌊log2 range⌋ brings a set to a range in [1, 2), exactly (a power of two); `None`
    // for a (near-)constant or non-finite range, which take the one-set path.
    let pow2_scale = |r: f64| -> Option<f64> {
        if !(r >= RESOLUTION && r.is_finite()) {
            return None;
        }
        let e = (r.log2().floor() as i32).clamp(-900, 900);
        Some(2f64.powi(-e))
    };
    let one_by_one = || (ess_set(a, plan, relative), ess_set(b, plan, relative));
    let (Some(sa), Some(sb)) = (pow2_scale(a.range), pow2_scale(b.range)) else {
        return one_by_one();
    };
    if a.chains.len() != b.chains.len() || a.chains.is_empty() {
        return one_by_one();
    }
    let n_chain = a.chains.len();
    let n_draw = a.chains[0].len();
    for t in plan.attempts() {
        let (acov_a, acov_b) = plan.mean_autocov_two(t, (a, sa), (b, sb));
        let ea = geyer_ess(&acov_a, &a.means, n_chain, n_draw, relative);
        let eb = geyer_ess(&acov_b, &b.means, n_chain, n_draw, relative);
        if let (Some(ea), Some(eb)) = (ea, eb) {
            return (ea, eb);
        }
    }
    // The full padding gives every lag, so both have returned by now.
    (f64::NAN, f64::NAN)
}

/// The part of `_ess` after the autocovariance, line by line. `acov` holds lags
/// 0..acov.len() (all n_draw lags, or a prefix of at least 2); `None` when Geyer's
/// truncation needs a lag beyond them.
pub(crate) fn geyer_ess(
    acov: &[f64],
    chain_means: &[f64],
    n_chain: usize,
    n_draw: usize,
    relative: bool,
) -> Option<f64> {
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
        if t + 2 >= acov.len() {
            return None;
        }
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
    let tau = -1.0 + 2.0 * super::sums::pairwise_sum(&rho[..max_t1]) + rho[max_t1];
    // Python's max(tau, floor) keeps tau unless floor > tau (so a NaN tau stays NaN).
    let floor = 1.0 / size.log10();
    let tau = if floor > tau { floor } else { tau };
    let ess = if relative { 1.0 } else { size } / tau;
    Some(if any_nan { f64::NAN } else { ess })
}

/// ArviZ 0.23.4 `_rhat` (classic R-hat of the given chains, no splitting):
/// sqrt((B/W + n − 1)/n) with B = n·Var(chain means), W = mean(chain variances), both ddof=1.
pub(crate) fn rhat_chains(chains: &[&[f64]]) -> f64 {
    rhat_chains_about(chains, &chain_means(chains))
}

/// [`rhat_chains`] given the chains' means (as [`chain_means`] computes them); the
/// variances are computed on parallel threads.
pub(crate) fn rhat_chains_about(chains: &[&[f64]], means: &[f64]) -> f64 {
    let n = chains.first().map_or(0, |c| c.len());
    let pairs: Vec<(&[f64], f64)> = chains.iter().copied().zip(means.iter().copied()).collect();
    let threads = threads_for(n * chains.len(), 1 << 18);
    let vars = par_map(&pairs, threads, |&(c, m)| var_about(c, m, 1));
    rhat_from_moments(n, means, &vars)
}

/// `_rhat`'s final formula from per-chain means and (ddof=1) variances of n draws each.
fn rhat_from_moments(n: usize, means: &[f64], vars: &[f64]) -> f64 {
    let n = n as f64;
    let between = n * var(means, 1);
    let within = mean(vars);
    ((between / within + n - 1.0) / n).sqrt()
}

/// Compensated running sum (Knuth's branch-free TwoSum: each addition's rounding error is
/// recovered exactly and accumulated), error O(ε) independent of the count.
#[derive(Clone, Copy, Default)]
struct CompensatedSum {
    sum: f64,
    comp: f64,
}

impl CompensatedSum {
    #[inline]
    fn add(&mut self, x: f64) {
        let t = self.sum + x;
        let xp = t - self.sum;
        self.comp += (self.sum - (t - xp)) + (x - xp);
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

/// `_rhat` of values given in any order, accumulated one at a time: value `v` at
/// split-layout index `k` belongs to split chain `k / half` (`n_chains` chains of `half`
/// draws). Used for the folded R-hat, whose z-scores come in folded order; per-chain sums
/// are compensated, so the result matches the chain-layout computation to ~1e-16.
pub(crate) struct ChainMoments {
    chain: ChainOf,
    sums: Vec<(CompensatedSum, CompensatedSum)>,
}

impl ChainMoments {
    pub(crate) fn new(half: usize, n_chains: usize) -> Self {
        Self {
            chain: ChainOf::new(half),
            sums: vec![(CompensatedSum::default(), CompensatedSum::default()); n_chains],
        }
    }

    #[inline]
    pub(crate) fn add(&mut self, k: u32, v: f64) {
        let (s1, s2) = &mut self.sums[self.chain.of(k)];
        s1.add(v);
        s2.add(v * v);
    }

    /// Add the sums of `other` (same shape), accumulated over other values.
    pub(crate) fn merge(&mut self, other: &ChainMoments) {
        for ((s1, s2), (o1, o2)) in self.sums.iter_mut().zip(&other.sums) {
            s1.add(o1.sum);
            s1.add(o1.comp);
            s2.add(o2.sum);
            s2.add(o2.comp);
        }
    }

    /// `_rhat` of the accumulated chains. The one-pass variance (Σv² − (Σv)²/n)/(n − 1)
    /// loses nothing here: these are z-scores, whose chain means are small next to their
    /// spread, and both sums are compensated.
    pub(crate) fn rhat(&self) -> f64 {
        let half = self.chain.half;
        let n = half as f64;
        let means: Vec<f64> = self.sums.iter().map(|(s1, _)| s1.total() / n).collect();
        let vars: Vec<f64> = self
            .sums
            .iter()
            .zip(&means)
            .map(|((_, s2), &m)| (s2.total() - n * m * m) / (n - 1.0))
            .collect();
        rhat_from_moments(half, &means, &vars)
    }
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
    fn chain_moments_match_chain_layout() {
        let x: Vec<f64> = (0..60)
            .map(|i| ((i * 37) % 23) as f64 * 0.1 + (i / 15) as f64)
            .collect();
        let chains: Vec<&[f64]> = x.chunks(15).collect();
        let perm: Vec<u32> = (0..60u32).map(|i| (i * 7) % 60).collect();
        let vals: Vec<f64> = perm.iter().map(|&k| x[k as usize]).collect();
        let a = rhat_chains(&chains);
        let mut acc = ChainMoments::new(15, 4);
        for (&v, &k) in vals.iter().zip(&perm) {
            acc.add(k, v);
        }
        let b = acc.rhat();
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

    /// AR(1) draws, `m` chains of `n`, from a xorshift generator (uniform innovations).
    fn ar1(m: usize, n: usize, rho: f64, seed: u64) -> Vec<Vec<f64>> {
        let mut s = seed;
        (0..m)
            .map(|_| {
                let mut x = 0.0;
                (0..n)
                    .map(|_| {
                        s ^= s << 13;
                        s ^= s >> 7;
                        s ^= s << 17;
                        x = rho * x + ((s >> 11) as f64 / (1u64 << 53) as f64 - 0.5);
                        x
                    })
                    .collect()
            })
            .collect()
    }

    /// The short padding gives the full padding's ESS, both when Geyer's truncation stays
    /// within its exact lags (ρ = 0.9) and when it does not and the plan falls back
    /// (ρ = 0.9999: truncation far beyond n/32).
    #[test]
    fn short_padding_matches_full_padding() {
        let n = 20_000;
        assert!(short_len(n).is_some());
        for (rho, falls_back) in [(0.9, false), (0.9999, true)] {
            let a = ar1(4, n, rho, 7);
            let b = ar1(4, n, rho.min(0.5), 11);
            let ca: Vec<&[f64]> = a.iter().map(Vec::as_slice).collect();
            let cb: Vec<&[f64]> = b.iter().map(Vec::as_slice).collect();
            let plan = AutocovPlan::new(n);
            let full_only = AutocovPlan {
                n,
                full: Transforms::new(fft_len(n)),
                short: None,
            };
            let got = ess_chains(&ca, &plan, false);
            let want = ess_chains(&ca, &full_only, false);
            assert!((got - want).abs() < 1e-10 * want, "rho {rho}: {got} {want}");
            let (ga, gb) = ess_chains_two(&ca, &cb, &plan, false);
            let (wa, wb) = ess_chains_two(&ca, &cb, &full_only, false);
            assert!((ga - wa).abs() < 1e-10 * wa, "rho {rho}: {ga} {wa}");
            assert!((gb - wb).abs() < 1e-10 * wb, "rho {rho}: {gb} {wb}");
            // Whether the short attempt sufficed: Geyer's truncation against its lags.
            let means: Vec<f64> = ca.iter().map(|c| mean(c)).collect();
            let short = plan
                .short
                .as_ref()
                .map(|t| plan.mean_autocov(t, &ChainSet::plain(&ca)));
            let fits = short
                .map(|acov| geyer_ess(&acov, &means, 4, n, false).is_some())
                .unwrap_or(false);
            assert_eq!(fits, !falls_back, "rho {rho}");
        }
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
        let got = plan.mean_autocov(&plan.full, &ChainSet::plain(&chains));
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

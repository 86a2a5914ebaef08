//! MCMC convergence diagnostics that agree with ArviZ 0.23.4 (to ~1e-12 relative in
//! practice; the acceptance tests require 1e-6) and run much faster.
//!
//! Every function takes M chains × N draws ([`Draws`], one borrowed slice per chain) and
//! follows Vehtari, Gelman, Simpson, Carpenter & Bürkner (2021), "Rank-normalization,
//! folding, and localization: an improved R-hat for assessing convergence of MCMC",
//! *Bayesian Analysis* 16(2), as implemented in ArviZ 0.23.4 `arviz/stats/diagnostics.py`:
//!
//! | here | ArviZ 0.23.4 |
//! |---|---|
//! | [`rhat`] | `_rhat_rank` (`az.rhat(method="rank")`) |
//! | [`rhat_split`] | `_rhat_split` (`az.rhat(method="split")`) |
//! | [`ess_bulk`] | `_ess_bulk` (`az.ess(method="bulk")`) |
//! | [`ess_tail`] | `_ess_tail` (`az.ess(method="tail")`) |
//! | [`ess_mean`] | `_ess_mean` (`az.ess(method="mean")`) |
//! | [`mcse_mean`] | `_mcse_mean` (`az.mcse(method="mean")`) |
//! | [`diagnose`] | all six at once, sharing the sort and FFT plans |
//!
//! Details that matter for agreement:
//! * **Splitting**: each chain contributes its first ⌊N/2⌋ and last ⌊N/2⌋ draws (odd N
//!   drops the middle draw); the 2M half-chains are stacked first-halves-then-second-halves.
//! * **Rank normalisation**: ranks of all S = 2M⌊N/2⌋ split draws, averaged over ties
//!   (scipy `rankdata(method="average")`), z = Φ⁻¹((r − 3/8)/(S + 1/4)) (statrs
//!   `Normal::inverse_cdf`). Folded draws are |x − median(split draws)|.
//! * **Autocovariance**: biased (divide by n), by FFT zero-padded to at least 2n (ArviZ:
//!   `next_fast_len(2n)`; here the next power of two when not much longer — same values up
//!   to rounding, since any length ≥ 2n − 1 avoids wrap-around).
//! * **ESS**: Geyer's initial positive then initial monotone sequence, τ̂ ≥ 1/log10(S)
//!   (so ESS ≤ S·log10(S)); a (near-)constant array (range < 1e-15) has ESS = S.
//! * **Tail ESS**: min of the ESS of I(x ≤ q₀.₀₅) and I(x ≤ q₀.₉₅), quantiles of *all* M·N
//!   draws (type 7, `mquantiles(alphap=1, betap=1)`), indicators then split. causeway follows
//!   ArviZ 0.23's (0.05, 0.95); the pair is a parameter ([`TailProbs`]).
//! * **Edge cases**: one chain → both R-hats NaN (ESS/MCSE still defined); any NaN in the
//!   input → every output NaN; constant input → ESS = S (= M·N for even N), R-hat NaN
//!   (0/0, as ArviZ); fewer than 4 draws per chain → [`DiagnosticsError::TooFewDraws`]
//!   (ArviZ returns NaN with a warning instead).
//!
//! Performance (4 chains × 10⁶ draws: R-hat + bulk ESS + tail ESS ≈ 0.23 s on 2 busy cores,
//! against single-threaded ArviZ's ≈ 2.6 s; `make bench`): one sort of the split draws (a
//! most-significant-digit bucket sort on 2 threads, no merge; each bucket sorted in cache
//! and its bulk z-scores written at once) serves the bulk ranks, the folded ranks (a linear
//! merge, cut into parallel segments) and the tail quantiles; the Φ⁻¹ table holds the
//! lower half of the ranks only; the tail indicators are read through a map, never stored;
//! the autocovariance FFT first pads to n + n/32 and falls back to 2n only when Geyer's
//! truncation needs more lags; two real chains share each complex FFT; the Φ⁻¹ table, the
//! sort, chain means and variances and the FFTs use scoped threads; draw-sized buffers are
//! allocated zeroed (no second fill) and ask for transparent huge pages.

mod bits;
mod draws;
mod ess;
pub mod io;
mod memory;
#[cfg(test)]
mod pool_tests;
mod rank;
mod sort;
mod sums;

use serde::Serialize;

pub use draws::{DiagnosticsError, Draws, MIN_DRAWS, TailProbs};
pub use io::{ReadError, diagnose_file, read_draws_file, render_json, render_table};
pub(crate) use rank::quantile_sorted;

/// Free the buffers the diagnostics keep between calls (the pool of draw-sized buffers, up to
/// 512 MiB after diagnosing millions of draws, and the last Φ⁻¹ table, 4 bytes a draw); returns
/// how many bytes were held. The next call on large draws allocates afresh.
pub fn release_buffers() -> usize {
    rank::forget_z_table() + memory::release_pool()
}

use ess::{
    AutocovPlan, ChainMoments, ChainSet, ess_chains, ess_set, ess_sets_two, rhat_chains,
    rhat_chains_about,
};
use rank::{Ranked, folded_z_segments, full_sorted, quantile_select};

/// The six diagnostics of one variable.
///
/// Serialised (serde) as an object with these six keys. Non-finite values — NaN (e.g.
/// R-hat of a single chain, anything with NaN draws) and ±∞ — are written as JSON `null`
/// (what `serde_json` does for non-finite floats): the output stays standard JSON that every
/// parser reads, and `null` reads naturally as "not defined" (`None` in Python, `NA` in R).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Diagnostics {
    /// Rank-normalised split R-hat: max of bulk and folded R-hat ([`rhat`]).
    pub rhat: f64,
    /// Classic split R-hat ([`rhat_split`]).
    pub rhat_split: f64,
    /// Bulk effective sample size ([`ess_bulk`]).
    pub ess_bulk: f64,
    /// Tail effective sample size, quantiles 5% and 95% by default ([`ess_tail`]).
    pub ess_tail: f64,
    /// Effective sample size of the mean ([`ess_mean`]).
    pub ess_mean: f64,
    /// Monte Carlo standard error of the mean ([`mcse_mean`]).
    pub mcse_mean: f64,
}

impl Diagnostics {
    /// All six values NaN (the result for input containing NaN).
    pub const NAN: Diagnostics = Diagnostics {
        rhat: f64::NAN,
        rhat_split: f64::NAN,
        ess_bulk: f64::NAN,
        ess_tail: f64::NAN,
        ess_mean: f64::NAN,
        mcse_mean: f64::NAN,
    };
}

/// All six diagnostics of M chains × N draws given as one slice per chain.
///
/// Input: `chains[m][n]`, M ≥ 1 chains of equal length N ≥ 4.
/// Output: [`Diagnostics`] (tail ESS with the ArviZ 0.23 quantiles 0.05/0.95).
/// Errors: the shape errors of [`Draws::new`].
/// Source: Vehtari et al. (2021); ArviZ 0.23.4 `_rhat_rank`, `_rhat_split`, `_ess_bulk`,
/// `_ess_tail`, `_ess_mean`, `_mcse_mean`.
pub fn diagnose(chains: &[&[f64]]) -> Result<Diagnostics, DiagnosticsError> {
    let draws = Draws::new(chains)?;
    Ok(diagnose_draws(&draws, TailProbs::default()))
}

/// All six diagnostics of validated [`Draws`] (M × N), with a chosen tail-quantile pair.
///
/// Computes the same values as calling the six functions one by one, but sorts the split
/// draws once and reuses the FFT plan. Source: as [`diagnose`].
pub fn diagnose_draws(draws: &Draws, tail: TailProbs) -> Diagnostics {
    if draws.has_nan() {
        return Diagnostics::NAN;
    }
    let split = draws.split_chains();
    let half = draws.half();
    let plan = AutocovPlan::new(half);
    let ranked = draws.ranked();

    let (rhat, rhat_split) = if draws.n_chains() >= 2 {
        (rank_rhat(&ranked, half), rhat_chains(&split))
    } else {
        (f64::NAN, f64::NAN)
    };
    // Bulk ESS (z-scores) and mean ESS (raw draws) share their FFTs.
    let zb_chains = ranked.zb.chunks_exact(half).collect::<Vec<_>>();
    let (ess_bulk, ess_mean) = ess_sets_two(
        &bulk_set(&ranked, &zb_chains),
        &ChainSet::plain(&split),
        &plan,
        false,
    );

    let (q_low, q_high) = tail_quantiles_sorted(draws, &ranked, tail);
    let ess_tail = tail_from_quantiles(draws, &plan, q_low, q_high, false);

    let mcse_mean = mcse_from(draws, ess_mean);
    Diagnostics {
        rhat,
        rhat_split,
        ess_bulk,
        ess_tail,
        ess_mean,
        mcse_mean,
    }
}

/// Rank-normalised split R-hat: the larger of the bulk R-hat (classic R-hat of the
/// rank-normalised split chains) and the tail R-hat (same on the folded draws
/// |x − median|).
///
/// Input: M × N draws. Output: R-hat (≈1 at convergence); NaN for M = 1 or any NaN draw.
/// Source: Vehtari et al. (2021) §4.2; ArviZ 0.23.4 `_rhat_rank` (`az.rhat(method="rank")`).
pub fn rhat(draws: &Draws) -> f64 {
    if draws.n_chains() < 2 || draws.has_nan() {
        return f64::NAN;
    }
    rank_rhat(&draws.ranked(), draws.half())
}

/// `max(rhat(bulk z), rhat(folded z))` from the memoised ranks: the bulk z-scores are in
/// split layout, the folded ones are accumulated per chain as they come, in folded order.
fn rank_rhat(ranked: &Ranked, half: usize) -> f64 {
    let bulk = rhat_chains_about(
        &ranked.zb.chunks_exact(half).collect::<Vec<_>>(),
        &ranked.zb_means,
    );
    py_max(bulk, folded_rhat(ranked, half))
}

/// R-hat of the folded z-scores, accumulated per chain in folded order on parallel
/// segments; NaN when the folded draws are undefined (median not finite).
fn folded_rhat(ranked: &Ranked, half: usize) -> f64 {
    let n_split = ranked.zb.len() / half;
    let threads = memory::threads_for(ranked.zb.len(), 1 << 18);
    let parts = folded_z_segments(
        &ranked.sorted,
        &ranked.z,
        threads,
        || ChainMoments::new(half, n_split),
        |acc, k, z| acc.add(k, z),
    );
    let Some(mut parts) = parts else {
        return f64::NAN;
    };
    let mut total = parts.swap_remove(0);
    for p in &parts {
        total.merge(p);
    }
    total.rhat()
}

/// The middle draw of each chain (odd N), which splitting drops but tail quantiles see.
fn middles(draws: &Draws) -> Vec<f64> {
    let mid = draws.n_draws() / 2;
    draws.chains().iter().map(|c| c[mid]).collect()
}

/// The tail-ESS quantiles (`tail.low()`, `tail.high()`) of all M·N draws from the sorted split
/// draws, adding back the middle draws that splitting drops when N is odd.
fn tail_quantiles_sorted(draws: &Draws, ranked: &Ranked, tail: TailProbs) -> (f64, f64) {
    let all_sorted;
    let all: &[f64] = if draws.n_draws().is_multiple_of(2) {
        &ranked.sorted.vals
    } else {
        all_sorted = full_sorted(&ranked.sorted, &middles(draws));
        &all_sorted
    };
    (
        quantile_sorted(all, tail.low()),
        quantile_sorted(all, tail.high()),
    )
}

/// Classic split R-hat (Gelman et al. BDA3): classic R-hat of the 2M half-chains.
///
/// Input: M × N draws. Output: split R-hat; NaN for M = 1 or any NaN draw.
/// Source: Vehtari et al. (2021) eq. (1)–(4); ArviZ 0.23.4 `_rhat_split`
/// (`az.rhat(method="split")`).
pub fn rhat_split(draws: &Draws) -> f64 {
    if draws.n_chains() < 2 || draws.has_nan() {
        return f64::NAN;
    }
    rhat_chains(&draws.split_chains())
}

/// Bulk effective sample size: ESS of the rank-normalised split chains.
///
/// Input: M × N draws; `relative` as ArviZ's flag (divide by the S = 2M⌊N/2⌋ split draws;
/// a constant input still returns S, as ArviZ). Output: bulk ESS (≤ S·log10 S); NaN if any
/// draw is NaN. Source: Vehtari et al. (2021) §4.3; ArviZ 0.23.4 `_ess_bulk`
/// (`az.ess(method="bulk")`).
pub fn ess_bulk(draws: &Draws, relative: bool) -> f64 {
    if draws.has_nan() {
        return f64::NAN;
    }
    let half = draws.half();
    let ranked = draws.ranked();
    let zb_chains: Vec<&[f64]> = ranked.zb.chunks_exact(half).collect();
    ess_set(
        &bulk_set(&ranked, &zb_chains),
        &AutocovPlan::new(half),
        relative,
    )
}

/// The bulk z-scores as a [`ChainSet`], with the means and range the ranking computed.
fn bulk_set<'c>(
    ranked: &Ranked,
    zb_chains: &'c [&'c [f64]],
) -> ChainSet<'c, impl Fn(f64) -> f64 + Sync> {
    ChainSet::mapped(zb_chains, |x| x, ranked.zb_means.clone(), ranked.zb_range)
}

/// Tail effective sample size: the smaller of the ESS of the split indicator chains
/// I(x ≤ q_low) and I(x ≤ q_high), with q the type-7 quantiles of all M·N draws.
///
/// Input: M × N draws; `tail` the quantile pair ([`TailProbs::default`] = ArviZ 0.23's
/// (0.05, 0.95)); `relative` as in [`ess_bulk`]. Output: tail ESS; NaN if any draw is NaN.
/// Source: Vehtari et al. (2021) §4.3; ArviZ 0.23.4 `_ess_tail` / `_ess_quantile`
/// (`az.ess(method="tail")`).
pub fn ess_tail(draws: &Draws, tail: TailProbs, relative: bool) -> f64 {
    if draws.has_nan() {
        return f64::NAN;
    }
    let (q_low, q_high) = match draws.ranked_if_done() {
        // Sorted draws at hand (e.g. after `rhat` or `ess_bulk` on this `Draws`).
        Some(ranked) => tail_quantiles_sorted(draws, &ranked, tail),
        // Otherwise two O(n) selections beat a sort.
        None => {
            let mut all: Vec<f64> = draws.chains().concat();
            (
                quantile_select(&mut all, tail.low()),
                quantile_select(&mut all, tail.high()),
            )
        }
    };
    let plan = AutocovPlan::new(draws.half());
    tail_from_quantiles(draws, &plan, q_low, q_high, relative)
}

/// Effective sample size of the mean: ESS of the split chains themselves.
///
/// Input: M × N draws; `relative` as in [`ess_bulk`]. Output: ESS; NaN if any draw is NaN.
/// Source: Vehtari et al. (2021) §3.2; ArviZ 0.23.4 `_ess_mean` (`az.ess(method="mean")`).
pub fn ess_mean(draws: &Draws, relative: bool) -> f64 {
    if draws.has_nan() {
        return f64::NAN;
    }
    ess_chains(
        &draws.split_chains(),
        &AutocovPlan::new(draws.half()),
        relative,
    )
}

/// Monte Carlo standard error of the mean: sd(all M·N draws, ddof = 1) / √(ESS of the mean).
///
/// Input: M × N draws. Output: MCSE (0 for a constant input); NaN if any draw is NaN.
/// Source: Vehtari et al. (2021) §3.2; ArviZ 0.23.4 `_mcse_mean` (`az.mcse(method="mean")`).
pub fn mcse_mean(draws: &Draws) -> f64 {
    if draws.has_nan() {
        return f64::NAN;
    }
    mcse_from(draws, ess_mean(draws, false))
}

fn mcse_from(draws: &Draws, ess_mean: f64) -> f64 {
    sums::var_of_chains(draws.chains(), 1).sqrt() / ess_mean.sqrt()
}

/// `min(ess(I(x ≤ q_low)), ess(I(x ≤ q_high)))` on split indicator chains, with Python's
/// `min` semantics (keeps the first unless the second is smaller).
fn tail_from_quantiles(
    draws: &Draws,
    plan: &AutocovPlan,
    q_low: f64,
    q_high: f64,
    relative: bool,
) -> f64 {
    let split = draws.split_chains();
    let half = draws.half();
    // The indicator chains I(x ≤ q) are not stored: the FFT reads them through `map`. Their
    // means are counts / half (what `np.mean` of 0s and 1s gives, exactly), and an
    // indicator array is constant when every chain counts 0 or every chain counts `half`.
    let counts: Vec<(usize, usize)> = split
        .iter()
        .map(|c| {
            c.iter().fold((0, 0), |(l, h), &x| {
                (l + usize::from(x <= q_low), h + usize::from(x <= q_high))
            })
        })
        .collect();
    let set = |count: &dyn Fn(&(usize, usize)) -> usize, q: f64| {
        let means = counts
            .iter()
            .map(|c| count(c) as f64 / half as f64)
            .collect();
        let lo = if counts.iter().all(|c| count(c) == half) {
            1.0
        } else {
            0.0
        };
        let hi = if counts.iter().any(|c| count(c) > 0) {
            1.0
        } else {
            0.0
        };
        let map = move |x: f64| if x <= q { 1.0 } else { 0.0 };
        ChainSet::mapped(&split, map, means, hi - lo)
    };
    let (set_low, set_high) = (set(&|c| c.0, q_low), set(&|c| c.1, q_high));
    // Both indicators vary: their first lags from packed bits, on two threads
    // (`bits::indicator_ess`); an FFT only where a chain mixes too slowly for that.
    if set_low.range() > 0.0 && set_high.range() > 0.0 {
        let (low, high) = std::thread::scope(|s| {
            let h = s.spawn(|| bits::indicator_ess(&split, q_high, set_high.means(), relative));
            let low = bits::indicator_ess(&split, q_low, set_low.means(), relative);
            // A panic in the worker is a bug in this module; re-raise it unchanged.
            (
                low,
                h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)),
            )
        });
        if let (Some(low), Some(high)) = (low, high) {
            return if high < low { high } else { low };
        }
    }
    let (low, high) = ess_sets_two(&set_low, &set_high, plan, relative);
    if high < low { high } else { low }
}

/// Python's builtin `max(a, b)`: `a` unless `b > a` (so `max(nan, x)` is NaN but
/// `max(x, nan)` is x), as `_rhat_rank`'s `max(rhat_bulk, rhat_tail)`.
fn py_max(a: f64, b: f64) -> f64 {
    if b > a { b } else { a }
}

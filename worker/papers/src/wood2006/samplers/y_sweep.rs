//! The Eq. 12 Gibbs sweep over Y (Algorithm 1 lines 14–16, Algorithm 2 lines 18–20) and its
//! cache of log-odds.
//!
//! The log-odds of `y_{k,t}` is Eq. 12's prior part `ln p − ln(1−p)` plus one Eq. 3 step
//! `ln P(x_{i,t} | η_{i,t} − y_{k,t} + 1) − ln P(x_{i,t} | η_{i,t} − y_{k,t})` per parent row i of
//! k, summed in row order ([`Core::y_log_odds_at`]). It depends on p, λ, ε, the parent set of k,
//! and X and η on column t of those rows, nothing else; between two sweeps few of these change
//! (Algorithm 1 sweeps Y once per row of Z, after that row's updates). So each cause keeps, per
//! trial, `1 + e^{−lo}` of its log-odds `lo` (`Cause::odds`; the draw is `u (1 + e^{−lo}) < 1`)
//! with a validity bit (`Cause::fresh`), and every change
//! clears exactly the bits it affects:
//! - `z_{i,k}` flips ([`Core::set_z`]): all of k (its parent set), and trial t ∈ on_k of every
//!   other cause of row i (η_{i,t} moved);
//! - `y_{k,t}` flips (here): trial t of every other cause sharing a parent row with k (the
//!   log-odds of `y_{k,t}` itself does not move: `η_{i,t} − y_{k,t}` is unchanged);
//! - new causes of row i (Algorithm 2 lines 11–16): trial t of the other causes of row i where
//!   η_{i,t} grew;
//! - p, λ or ε changes, X replaced, η recomputed, an accepted split or merge: everything
//!   ([`Core::invalidate_y_odds`]).
//!
//! A stale entry is recomputed by the same sum in the same order, so the cached value is bit for
//! bit the direct one and the chain's draws are those of the uncached sweep (checked by
//! [`Core::check_y_odds`], from `check_caches`). `1 + e^{−lo}` is memoised per value of `lo`.

use rand::RngExt;

use super::state::{Core, one_plus_exp_neg};
use crate::chain::SamplerError;
use crate::seed::ChainRng;
use crate::wood2006::equations as eq;

impl Core {
    /// Mark every cached Eq. 12 log-odds stale.
    pub(super) fn invalidate_y_odds(&mut self) {
        self.y_key = None;
    }

    /// Eq. 12's log-odds of `y_{k,t}` from scratch: `ln p − ln(1−p)` plus the Eq. 3 step of each
    /// parent row of k in increasing row order. Expects the tables to cover η + 1.
    pub(super) fn y_log_odds_at(&self, k: usize, tt: usize) -> f64 {
        let t = self.t;
        let c = &self.causes[k];
        let y0 = u32::from(c.y[tt]);
        let mut lo = eq::y_log_odds(self.hyper.p, 0.0);
        for i in (0..self.n).filter(|&i| c.z[i] != 0) {
            let e0 = self.eta[i * t + tt] - y0;
            lo += self.tables.step[(2 * e0 + u32::from(self.x[i * t + tt])) as usize];
        }
        lo
    }

    /// Every valid cache entry against [`Core::y_log_odds_at`], bit for bit.
    pub(super) fn check_y_odds(&self) -> Result<(), String> {
        if self.y_key != Some(self.y_key_now()) {
            return Ok(());
        }
        for (k, c) in self.causes.iter().enumerate() {
            if c.fresh.is_empty() {
                continue;
            }
            if c.odds.len() != self.t || c.fresh.len() != self.t.div_ceil(64) {
                return Err(format!("Eq. 12 cache of cause {k} has wrong lengths"));
            }
            for tt in 0..self.t {
                if c.fresh[tt / 64] >> (tt % 64) & 1 == 1 {
                    let odds = one_plus_exp_neg(self.y_log_odds_at(k, tt));
                    if odds.to_bits() != c.odds[tt].to_bits() {
                        return Err(format!(
                            "Eq. 12 odds of y[{k},{tt}] cached {} recomputed {odds}",
                            c.odds[tt]
                        ));
                    }
                }
            }
        }
        Ok(())
    }

    fn y_key_now(&self) -> [u64; 3] {
        let h = self.hyper;
        [h.p.to_bits(), h.lambda.to_bits(), h.epsilon.to_bits()]
    }

    /// Eq. 12 Gibbs updates of every `y_{k,t}`, k by k and t by t, each from its cached log-odds
    /// (recomputed where stale, see the module docs). `rb`, if given (K × T), accumulates the
    /// conditional probabilities (Rao–Blackwell). Cost: K T draws, plus m_k per stale entry and
    /// per flip.
    pub fn sweep_y(
        &mut self,
        rng: &mut ChainRng,
        mut rb: Option<&mut [f64]>,
    ) -> Result<(), SamplerError> {
        self.ensure_tables(0);
        self.fit_row_hist();
        let t = self.t;
        let words = t.div_ceil(64);
        let key = self.y_key_now();
        let all_stale = self.y_key != Some(key);
        self.y_key = Some(key);
        // Eq. 12's prior log-odds ln p − ln(1−p); the likelihood part is added per trial below.
        let lo_prior = eq::y_log_odds(self.hyper.p, 0.0);
        let Core {
            causes,
            x,
            eta,
            tables,
            rows,
            flips,
            y_odds,
            row_hist,
            row_w,
            n,
            ..
        } = self;
        let w_hist = *row_w;
        let step = &tables.step[..];
        for k in 0..causes.len() {
            // offsets of the parent rows of k in the row-major X and η
            rows.clear();
            rows.extend((0..*n).filter(|&i| causes[k].z[i] != 0).map(|i| i * t));
            let c = &mut causes[k];
            if all_stale || c.fresh.len() != words || c.odds.len() != t {
                c.odds.clear();
                c.odds.resize(t, 0.0);
                c.fresh.clear();
                c.fresh.resize(words, 0);
            }
            // Bring the stale entries up to date first: the log-odds on trial t reads column t of
            // η, which only the draw of y_{k,t} itself changes (and not for k: η − y_{k,t} stays).
            for (w, f) in c.fresh.iter_mut().enumerate() {
                let valid = if (w + 1) * 64 <= t {
                    u64::MAX
                } else {
                    (1u64 << (t - w * 64)) - 1
                };
                let mut stale = !*f & valid;
                while stale != 0 {
                    let tt = w * 64 + stale.trailing_zeros() as usize;
                    stale &= stale - 1;
                    let y0 = u32::from(c.y[tt]);
                    // the sum of Core::y_log_odds_at, in the same order
                    let mut lo = lo_prior;
                    for &r in rows.iter() {
                        lo += step[(2 * (eta[r + tt] - y0) + u32::from(x[r + tt])) as usize];
                    }
                    if lo.is_nan() {
                        return Err(SamplerError::Numerical("log-odds of y is NaN".into()));
                    }
                    c.odds[tt] = y_odds.get(lo, one_plus_exp_neg);
                }
                *f = valid;
            }
            if let Some(rb) = rb.as_deref_mut() {
                for (r, &o) in rb[k * t..(k + 1) * t].iter_mut().zip(&c.odds) {
                    *r += 1.0 / o;
                }
            }
            // The draws; η (read only by the stale entries above) follows after.
            c.on.clear();
            flips.clear();
            for (tt, (&odds, yv)) in c.odds.iter().zip(c.y.iter_mut()).enumerate() {
                let v = rng.random::<f64>() * odds < 1.0;
                if v {
                    c.on.push(tt as u32);
                }
                if v != (*yv != 0) {
                    *yv = u8::from(v);
                    flips.push(tt);
                }
            }
            for &tt in flips.iter() {
                let v = c.y[tt] != 0;
                for &r in rows.iter() {
                    let e = eta[r + tt] as usize;
                    let e_new = if v { e + 1 } else { e - 1 };
                    eta[r + tt] = e_new as u32;
                    if w_hist > 0 {
                        let xb = usize::from(x[r + tt]);
                        let h = &mut row_hist[(r / t) * w_hist..(r / t + 1) * w_hist];
                        h[2 * e + xb] -= 1;
                        h[2 * e_new + xb] += 1;
                    }
                }
            }
            let flipped = !flips.is_empty();
            if flipped {
                // η_{i,t} moved on the flipped trials for the parents of k: stale for every other
                // cause sharing one of them
                for kk in 0..causes.len() {
                    let shares = causes[kk]
                        .z
                        .iter()
                        .zip(&causes[k].z)
                        .any(|(a, b)| a & b != 0);
                    if kk == k || !shares {
                        continue;
                    }
                    let o = &mut causes[kk];
                    if o.fresh.len() == words {
                        for &tt in flips.iter() {
                            o.fresh[tt / 64] &= !(1u64 << (tt % 64));
                        }
                    }
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::seed::chain_rng;
    use crate::wood2006::datasets::BinaryMatrix;
    use crate::wood2006::params::{Init, Params, SamplerKind};

    /// A noisy-OR data set of N × T from a seeded random Z (N × 5) and Y (5 × T).
    fn data(n: usize, t: usize, seed: u64) -> BinaryMatrix {
        let mut rng = chain_rng(seed, 0, 0, 0);
        let z: Vec<u8> = (0..n * 5)
            .map(|_| u8::from(rng.random::<f64>() < 0.35))
            .collect();
        let y: Vec<u8> = (0..5 * t)
            .map(|_| u8::from(rng.random::<f64>() < 0.2))
            .collect();
        let mut x = BinaryMatrix::zeros(n, t);
        for i in 0..n {
            for tt in 0..t {
                let eta: u32 = (0..5)
                    .map(|k| u32::from(z[i * 5 + k] & y[k * t + tt]))
                    .sum();
                let p1 = eq::ln_noisy_or(true, eta, 0.9, 0.05).exp();
                x.set(i, tt, u8::from(rng.random::<f64>() < p1));
            }
        }
        x
    }

    /// After many seeded moves of every kind (Eq. 11 and Eq. 12 updates, new causes,
    /// split–merge, birth/death, hyperparameters), the cached Eq. 12 log-odds equal a
    /// recomputation bit for bit, and most of them are valid (the cache is used).
    #[test]
    fn y_odds_cache_matches_recomputation_after_random_moves() {
        let x = data(12, 150, 11);
        for kind in [SamplerKind::Gibbs, SamplerKind::Rjmcmc] {
            for hyper in [false, true] {
                let mut p = Params::defaults(kind);
                p.init = Init::Random;
                p.init_k = 6;
                p.update_hyperparameters = hyper;
                if kind == SamplerKind::Gibbs {
                    p.split_merge = 5;
                }
                let mut rng = chain_rng(5, 6, 7, u64::from(hyper));
                let mut core = Core::new(kind, p.clone(), &x);
                for _ in 0..p.init_k {
                    let z: Vec<u8> = (0..x.rows)
                        .map(|_| u8::from(rng.random::<f64>() < 0.4))
                        .collect();
                    let y: Vec<u8> = (0..x.cols)
                        .map(|_| u8::from(rng.random::<f64>() < 0.2))
                        .collect();
                    core.causes.push(super::super::state::Cause::new(z, y));
                }
                if kind == SamplerKind::Gibbs {
                    core.causes.retain(|c| c.m > 0);
                }
                core.recompute_eta();
                let mut valid = 0usize;
                for it in 0..60 {
                    match kind {
                        SamplerKind::Gibbs => {
                            core.gibbs_iteration(&mut rng).unwrap();
                            core.split_merge_sweep(&mut rng).unwrap();
                        }
                        SamplerKind::Rjmcmc => core.rjmcmc_iteration(&mut rng).unwrap(),
                    }
                    if let Err(e) = core.check_caches() {
                        panic!("{kind:?} hyper={hyper} iteration {it}: {e}");
                    }
                    // also in the middle of an iteration: a sweep, then z flips of one row
                    core.sweep_y(&mut rng, None).unwrap();
                    for k in 0..core.causes.len() {
                        core.gibbs_z(it % x.rows, k, 0.5, &mut rng).unwrap();
                    }
                    if kind == SamplerKind::Gibbs {
                        core.causes.retain(|c| c.m > 0);
                    }
                    if let Err(e) = core.check_caches() {
                        panic!("{kind:?} hyper={hyper} iteration {it}, after z moves: {e}");
                    }
                    valid += core
                        .causes
                        .iter()
                        .flat_map(|c| &c.fresh)
                        .map(|w| w.count_ones() as usize)
                        .sum::<usize>();
                    if hyper {
                        core.global_hist();
                        core.update_hyper(&mut rng).unwrap();
                    }
                }
                assert!(
                    valid > 0,
                    "{kind:?} hyper={hyper}: the cache was never used"
                );
            }
        }
    }

    /// A stale-bit bug is caught: corrupting one valid entry makes the check fail.
    #[test]
    fn y_odds_check_detects_a_corrupt_entry() {
        let x = data(8, 70, 3);
        let mut p = Params::defaults(SamplerKind::Gibbs);
        p.init = Init::Random;
        let mut rng = chain_rng(1, 2, 3, 4);
        let mut core = Core::new(SamplerKind::Gibbs, p, &x);
        core.causes.push(super::super::state::Cause::new(
            vec![1; x.rows],
            vec![0; x.cols],
        ));
        core.recompute_eta();
        core.sweep_y(&mut rng, None).unwrap();
        core.check_caches().unwrap();
        core.causes[0].odds[3] *= 1.0 + 1e-12;
        assert!(core.check_caches().is_err());
    }
}

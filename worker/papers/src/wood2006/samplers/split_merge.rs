//! Split–merge Metropolis–Hastings move for Algorithm 2 (ours, not in the paper),
//! after Meeds, Ghahramani, Neal & Roweis (2007), "Modeling dyadic data with binary latent
//! factors", §3.2, the IBP version of Jain & Neal (2004), with the noisy-OR's rows of Y.
//!
//! Why: single-site Gibbs on Z (Eq. 11) cannot merge two copies of one true cause that split its
//! row of Y between them (each copy explains some trials; removing either link loses them), so
//! chains at the paper's sizes lock onto different K_+ (R-hat 2–5). A merge removes the copy in
//! one step; its reverse split makes the move reversible.
//!
//! **The move.** Pick an ordered pair of distinct rows (i, j) uniformly, then a column `k_i`
//! uniformly among the `F_i` columns of row i and `k_j` among the `F_j` of row j (no move if
//! either has none).
//! - `k_i = k_j = k`: **split** k into `a` (keeps row i, at k's position) and `b` (takes row j,
//!   inserted at a uniform one of the K_+ + 1 slots). Each other row of k goes to both with
//!   probability `share` ([`Params::split_merge_share`]), else to one of them; rows i and j are
//!   in `b` and `a` respectively too with probability `share`
//!   ([`eq::ln_split_row_allocation`]). Then every active trial t of k (`y_{k,t} = 1`) draws
//!   `(y_{a,t}, y_{b,t}) ∈ {(1,0), (0,1), (1,1)}` from its exact conditional given that
//!   allocation (Eq. 4's prior [`eq::ln_split_trial_prior`] times Eq. 3 over the rows of k: the
//!   trials are independent given Z); inactive trials stay inactive in both.
//! - `k_i ≠ k_j`: **merge** `a = k_i` and `b = k_j` into `z_a ∨ z_b`, `y_a ∨ y_b`, at a's
//!   position. Deterministic.
//!
//! **Acceptance.** The target on ordered column lists is `α^{K_+}/K_+! e^{−αH_N} Π_k f(m_k) ·
//! P(Y) · P(X | Z, Y)` (see [`eq::ln_split_prior_ratio`]). For a split,
//! `ln A = ln[π(s′)/π(s)] + ln q(merge | s′) − ln q(split | s)` with
//! `q(split | s) = P(i,j) (1/F_i)(1/F_j) q_rows q_trials / (K_+ + 1)` and
//! `q(merge | s′) = P(i,j) (1/F_i′)(1/F_j′)`, `F_i′ = F_i + [i ∈ b]`, `F_j′ = F_j + [j ∈ a]`;
//! the slot's `1/(K_+ + 1)` cancels the `1/(K_+ + 1)` of the target's `1/K_+!`. A merge's
//! acceptance is the reciprocal of the split that would undo it, whose `q_rows q_trials` it
//! evaluates at the state it leaves. Checked by exact enumeration and the Geweke test
//! (`tests/wood2006/`), with [`Defect::SplitMergeDropAllocation`] as the negative control.
//!
//! [`Params::split_merge_share`]: crate::wood2006::params::Params::split_merge_share

use rand::RngExt;

use super::state::{Cause, Core, Defect, categorical};
use crate::chain::SamplerError;
use crate::math::log_sum_exp;
use crate::seed::ChainRng;
use crate::wood2006::equations as eq;

/// The values `(y_a, y_b)` of an active trial of the merged column.
const OPTIONS: [(bool, bool); 3] = [(true, false), (false, true), (true, true)];

/// What a split or merge changes: the rows of the merged column with their membership of
/// `(a, b)`, and the active trials of the merged column.
struct Pair {
    rows: Vec<usize>,
    alloc: Vec<(bool, bool)>,
    on: Vec<usize>,
}

impl Core {
    /// `cfg.split_merge` split–merge proposals (Gibbs only; none when it is 0).
    pub(super) fn split_merge_sweep(&mut self, rng: &mut ChainRng) -> Result<(), SamplerError> {
        self.split_merge_accepted = (0, 0);
        for _ in 0..self.cfg.split_merge {
            match self.split_merge(rng)? {
                Some(true) => self.split_merge_accepted.0 += 1,
                Some(false) => self.split_merge_accepted.1 += 1,
                None => {}
            }
        }
        Ok(())
    }

    /// One proposal; returns `Some(true)` for an accepted split, `Some(false)` for an accepted
    /// merge, `None` otherwise.
    fn split_merge(&mut self, rng: &mut ChainRng) -> Result<Option<bool>, SamplerError> {
        let n = self.n;
        if n < 2 || self.causes.is_empty() {
            return Ok(None);
        }
        let i = rng.random_range(0..n);
        let mut j = rng.random_range(0..n - 1);
        if j >= i {
            j += 1;
        }
        let of_row = |r: usize| -> Vec<usize> {
            (0..self.causes.len())
                .filter(|&k| self.causes[k].z[r] != 0)
                .collect()
        };
        let (fi, fj) = (of_row(i), of_row(j));
        if fi.is_empty() || fj.is_empty() {
            return Ok(None);
        }
        let ka = fi[rng.random_range(0..fi.len())];
        let kb = fj[rng.random_range(0..fj.len())];
        Ok(if ka == kb {
            self.split(i, j, ka, (fi.len(), fj.len()), rng)?
                .then_some(true)
        } else {
            self.merge(i, j, (ka, kb), (fi.len(), fj.len()), rng)?
                .then_some(false)
        })
    }

    /// `Σ_{l ∈ rows} ln P(x_{l,t} | η_{l,t} − current_l + add(l ∈ a, l ∈ b))` (Eq. 3):
    /// trial t of the pair's rows with the pair's present contribution `current_l` replaced.
    fn rows_lik(
        &self,
        pair: &Pair,
        t: usize,
        current: &[u32],
        add: impl Fn(bool, bool) -> u32,
    ) -> f64 {
        let tt = self.t;
        pair.rows
            .iter()
            .zip(&pair.alloc)
            .zip(current)
            .map(|((&l, &(in_a, in_b)), &cur)| {
                let e = self.eta[l * tt + t] - cur + add(in_a, in_b);
                self.tables.ln_px[(2 * e + u32::from(self.x[l * tt + t])) as usize]
            })
            .sum()
    }

    /// The exact conditional weights of [`OPTIONS`] on trial `t` given the allocation, and
    /// their likelihood parts (the weights without Eq. 4's prior).
    fn trial_weights(&self, pair: &Pair, t: usize, current: &[u32]) -> ([f64; 3], [f64; 3]) {
        let p = self.hyper.p;
        let lik = OPTIONS.map(|(ya, yb)| {
            self.rows_lik(pair, t, current, |a, b| {
                u32::from(a && ya) + u32::from(b && yb)
            })
        });
        let mut w = lik;
        for (w, &(ya, yb)) in w.iter_mut().zip(&OPTIONS) {
            *w += eq::ln_split_trial_prior(ya, yb, p);
        }
        (w, lik)
    }

    fn split(
        &mut self,
        i: usize,
        j: usize,
        k: usize,
        (f_i, f_j): (usize, usize),
        rng: &mut ChainRng,
    ) -> Result<bool, SamplerError> {
        self.ensure_tables(1);
        let share = self.cfg.split_merge_share;
        let (n, t, k_plus) = (self.n, self.t, self.causes.len());
        let rows: Vec<usize> = (0..n).filter(|&l| self.causes[k].z[l] != 0).collect();
        let mut ln_q = 0.0;
        let mut alloc = Vec::with_capacity(rows.len());
        let (mut in_b_i, mut in_a_j) = (false, false);
        for &l in &rows {
            let anchor = (l == i).then_some(true).or((l == j).then_some(false));
            let u = rng.random::<f64>();
            let both = u < share;
            let a = match anchor {
                Some(true) => (true, both),
                Some(false) => (both, true),
                None if both => (true, true),
                None => (
                    u < share + (1.0 - share) / 2.0,
                    u >= share + (1.0 - share) / 2.0,
                ),
            };
            ln_q += eq::ln_split_row_allocation(a.0, a.1, anchor, share);
            in_b_i |= l == i && a.1;
            in_a_j |= l == j && a.0;
            alloc.push(a);
        }
        let on: Vec<usize> = self.causes[k].on.iter().map(|&v| v as usize).collect();
        let pair = Pair { rows, alloc, on };
        let current = vec![1u32; pair.rows.len()];
        let (mut ya, mut yb) = (vec![0u8; t], vec![0u8; t]);
        let mut d_lik = 0.0;
        for &tt in &pair.on {
            let (w, lik) = self.trial_weights(&pair, tt, &current);
            let lse = log_sum_exp(&w);
            let o = categorical(&w, &mut self.probs, rng.random::<f64>()).ok_or_else(|| {
                SamplerError::Numerical(format!("split weights of trial {tt} are not finite"))
            })?;
            ln_q += w[o] - lse;
            let (a, b) = OPTIONS[o];
            (ya[tt], yb[tt]) = (u8::from(a), u8::from(b));
            // the present state: every row of the pair has the column active on t
            d_lik += lik[o] - self.rows_lik(&pair, tt, &current, |_, _| 1);
        }
        let m_a = pair.alloc.iter().filter(|x| x.0).count();
        let m_b = pair.alloc.iter().filter(|x| x.1).count();
        let ones_k = pair.on.len() as u64;
        let ones_ab = (ya.iter().chain(&yb).filter(|&&v| v != 0).count()) as u64;
        let p = self.hyper.p;
        let ln_q = self.allocation_term(ln_q);
        let ln_a = eq::ln_split_prior_ratio(self.hyper.alpha, n, k_plus, pair.rows.len(), m_a, m_b)
            + ((k_plus + 1) as f64).ln()
            + eq::ln_p_y(ones_ab, 2 * t as u64, p)
            - eq::ln_p_y(ones_k, t as u64, p)
            + d_lik
            - ((f_i + usize::from(in_b_i)) as f64).ln()
            - ((f_j + usize::from(in_a_j)) as f64).ln()
            + (f_i as f64).ln()
            + (f_j as f64).ln()
            - ln_q;
        if ln_a.is_nan() {
            return Err(SamplerError::Numerical(
                "split–merge acceptance is NaN".into(),
            ));
        }
        if rng.random::<f64>().ln() >= ln_a {
            return Ok(false);
        }
        let (mut za, mut zb) = (vec![0u8; n], vec![0u8; n]);
        for (&l, &(in_a, in_b)) in pair.rows.iter().zip(&pair.alloc) {
            (za[l], zb[l]) = (u8::from(in_a), u8::from(in_b));
            for &tt in &pair.on {
                let e = &mut self.eta[l * t + tt];
                *e = *e - 1 + u32::from(in_a && ya[tt] != 0) + u32::from(in_b && yb[tt] != 0);
            }
        }
        self.invalidate_eta_caches();
        self.causes[k] = Cause::new(za, ya);
        let slot = rng.random_range(0..=k_plus);
        self.causes.insert(slot, Cause::new(zb, yb));
        Ok(true)
    }

    fn merge(
        &mut self,
        i: usize,
        j: usize,
        (ka, kb): (usize, usize),
        (f_i, f_j): (usize, usize),
        rng: &mut ChainRng,
    ) -> Result<bool, SamplerError> {
        self.ensure_tables(0);
        let share = self.cfg.split_merge_share;
        let (n, t, k_plus) = (self.n, self.t, self.causes.len());
        let (a, b) = (&self.causes[ka], &self.causes[kb]);
        let rows: Vec<usize> = (0..n).filter(|&l| a.z[l] != 0 || b.z[l] != 0).collect();
        let alloc: Vec<(bool, bool)> = rows.iter().map(|&l| (a.z[l] != 0, b.z[l] != 0)).collect();
        let on: Vec<usize> = (0..t).filter(|&tt| a.y[tt] != 0 || b.y[tt] != 0).collect();
        let (ya, yb) = (a.y.clone(), b.y.clone());
        let ones_ab = (a.on.len() + b.on.len()) as u64;
        let pair = Pair { rows, alloc, on };
        // The reverse split's probability of this state.
        let mut ln_q = 0.0;
        for (&l, &(in_a, in_b)) in pair.rows.iter().zip(&pair.alloc) {
            let anchor = (l == i).then_some(true).or((l == j).then_some(false));
            ln_q += eq::ln_split_row_allocation(in_a, in_b, anchor, share);
        }
        let mut d_lik = 0.0;
        let mut current = vec![0u32; pair.rows.len()];
        for &tt in &pair.on {
            for (c, &(in_a, in_b)) in current.iter_mut().zip(&pair.alloc) {
                *c = u32::from(in_a && ya[tt] != 0) + u32::from(in_b && yb[tt] != 0);
            }
            let (w, lik) = self.trial_weights(&pair, tt, &current);
            let o = OPTIONS
                .iter()
                .position(|&(x, y)| x == (ya[tt] != 0) && y == (yb[tt] != 0))
                .unwrap_or(2);
            ln_q += w[o] - log_sum_exp(&w);
            // merged: every row of the pair has the column active on t; `lik[o]` is the present
            d_lik += self.rows_lik(&pair, tt, &current, |_, _| 1) - lik[o];
        }
        let m_k = pair.rows.len();
        let m_a = pair.alloc.iter().filter(|x| x.0).count();
        let m_b = pair.alloc.iter().filter(|x| x.1).count();
        let p = self.hyper.p;
        let in_b_i = self.causes[kb].z[i] != 0;
        let in_a_j = self.causes[ka].z[j] != 0;
        let ln_q = self.allocation_term(ln_q);
        let ln_a = -eq::ln_split_prior_ratio(self.hyper.alpha, n, k_plus - 1, m_k, m_a, m_b)
            - (k_plus as f64).ln()
            + eq::ln_p_y(pair.on.len() as u64, t as u64, p)
            - eq::ln_p_y(ones_ab, 2 * t as u64, p)
            + d_lik
            + ln_q
            - ((f_i - usize::from(in_b_i)) as f64).ln()
            - ((f_j - usize::from(in_a_j)) as f64).ln()
            + (f_i as f64).ln()
            + (f_j as f64).ln();
        if ln_a.is_nan() {
            return Err(SamplerError::Numerical(
                "split–merge acceptance is NaN".into(),
            ));
        }
        if rng.random::<f64>().ln() >= ln_a {
            return Ok(false);
        }
        let mut z = vec![0u8; n];
        let mut y = vec![0u8; t];
        for &tt in &pair.on {
            y[tt] = 1;
        }
        for (&l, &(in_a, in_b)) in pair.rows.iter().zip(&pair.alloc) {
            z[l] = 1;
            for &tt in &pair.on {
                let e = &mut self.eta[l * t + tt];
                *e = *e + 1 - u32::from(in_a && ya[tt] != 0) - u32::from(in_b && yb[tt] != 0);
            }
        }
        self.invalidate_eta_caches();
        self.causes[ka] = Cause::new(z, y);
        self.causes.remove(kb);
        Ok(true)
    }

    /// The allocation probabilities' log `ln_q`, or 0 under
    /// [`Defect::SplitMergeDropAllocation`].
    fn allocation_term(&self, ln_q: f64) -> f64 {
        if self.defect == Some(Defect::SplitMergeDropAllocation) {
            0.0
        } else {
            ln_q
        }
    }
}

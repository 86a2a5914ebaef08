//! The Gibbs kernels: Eq. 11 updates of `z_{i,k}` (used by both algorithms; the Eq. 12 updates of
//! Y are in [`super::y_sweep`]), and one iteration of Algorithm 2 (§4.2, infinite model) with its
//! exact draw of the new causes of a row (Eqs. 13–15).

use rand::RngExt;

use super::state::{Cause, Core, Defect, Hyper, categorical, cumulative, draw_logit};
use crate::chain::SamplerError;
use crate::seed::ChainRng;
use crate::wood2006::equations as eq;

impl Core {
    /// `Δ = Σ_t [ln P(x_{i,t} | η|_{z_{i,k}=1}) − ln P(x_{i,t} | η|_{z_{i,k}=0})]` (Eq. 11's
    /// likelihood ratio) from the η cache; only trials with `y_{k,t} = 1` contribute.
    #[inline]
    fn z_delta(&self, i: usize, k: usize) -> f64 {
        let c = &self.causes[k];
        let zik = u32::from(c.z[i]);
        let xi = &self.x[i * self.t..(i + 1) * self.t];
        let ei = &self.eta[i * self.t..(i + 1) * self.t];
        let step = &self.tables.step;
        let mut acc = 0.0;
        for &t in &c.on {
            let t = t as usize;
            acc += step[(2 * (ei[t] - zik) + u32::from(xi[t])) as usize];
        }
        acc
    }

    /// Eq. 11 Gibbs update of `z_{i,k}` with prior probability `theta`.
    pub(super) fn gibbs_z(
        &mut self,
        i: usize,
        k: usize,
        theta: f64,
        rng: &mut ChainRng,
    ) -> Result<(), SamplerError> {
        let theta = if self.defect == Some(Defect::DropPriorTerm) {
            0.5
        } else {
            theta
        };
        // Eq. 11 = eq::z_log_odds(θ̄, Δ), with its prior part memoised per θ̄
        let lo = self.z_prior.get(theta, eq::z_prior_log_odds) + self.z_delta(i, k);
        let v = draw_logit(lo, rng.random::<f64>(), "z")?;
        self.set_z(i, k, v);
        Ok(())
    }

    /// One iteration of Algorithm 2 (infinite model).
    pub fn gibbs_iteration(&mut self, rng: &mut ChainRng) -> Result<(), SamplerError> {
        let n = self.n;
        let mut singletons: Vec<usize> = Vec::new();
        for i in 0..n {
            self.ensure_tables(0);
            singletons.clear();
            for k in 0..self.causes.len() {
                let zik = u32::from(self.causes[k].z[i]);
                let m_minus = self.causes[k].m - zik;
                if m_minus == 0 {
                    // line 7: mark z_{i,k} to be zeroed (a singleton of row i)
                    singletons.push(k);
                    continue;
                }
                // line 5: Eq. 11 with θ̄ = m_{-i,k} / N
                self.gibbs_z(i, k, eq::theta_bar_infinite(m_minus as usize, n), rng)?;
            }
            // line 10: zero marked entries; their columns become empty and are dropped (their
            // rows of Y are integrated out, lines 21–22).
            for &k in &singletons {
                self.set_z(i, k, false);
            }
            if !singletons.is_empty() {
                self.causes.retain(|c| c.m > 0);
            }
            // lines 11–16
            self.new_causes(i, rng)?;
        }
        // lines 18–20
        self.sweep_y(rng, None)?;
        // lines 21–22 (already empty-free; kept for clarity)
        self.causes.retain(|c| c.m > 0);
        Ok(())
    }

    /// Algorithm 2 lines 11–16: draw `K_i^new` from Eq. 13 (truncated at `k_new_max`) with the
    /// likelihood of Eqs. 14–15, then the new rows of Y from their exact joint conditional: on each
    /// trial, the number `m` of active new causes has weights Eq. 15's summands
    /// ([`eq::ln_new_active_weight`]) and the `m` active ones are a uniformly random subset (all
    /// new causes have the same single link). This is the exact version of the paper's "sample
    /// y_{j,t} according to Eqn. 12" for the new rows, and makes lines 7–16 a Gibbs update of the
    /// block (singletons of row i, their rows of Y).
    fn new_causes(&mut self, i: usize, rng: &mut ChainRng) -> Result<(), SamplerError> {
        let t = self.t;
        let kmax = self.cfg.k_new_max;
        let Hyper {
            alpha,
            lambda,
            epsilon,
            p,
        } = self.hyper;
        // histograms of η over trials with x = 0 and x = 1 for row i
        self.row_hist_into(i, self.causes.len() + 1);
        if self.k_new_prior.0 != alpha || self.k_new_prior.1.len() != kmax + 1 {
            self.k_new_prior = (
                alpha,
                (0..=kmax)
                    .map(|k| eq::ln_k_new_prior(k, alpha, self.n))
                    .collect(),
            );
        }
        let prior = &self.k_new_prior.1;
        eq::ln_k_new_weights(
            &self.h0,
            &self.h1,
            prior,
            lambda,
            epsilon,
            p,
            &mut self.weights,
        );
        if self.defect == Some(Defect::DropNewCauseFactor) {
            // every K_new gets the likelihood of K_new = 0: the weights become the prior's
            let lik0 = self.weights[0] - prior[0];
            for (w, lp) in self.weights.iter_mut().zip(prior) {
                *w = lp + lik0;
            }
        }
        let kn =
            categorical(&self.weights, &mut self.probs, rng.random::<f64>()).ok_or_else(|| {
                SamplerError::Numerical(format!(
                    "Eq. 13 weights for K_new of row {i} are not finite"
                ))
            })?;
        if kn == 0 {
            return Ok(());
        }
        let first = self.causes.len();
        for _ in 0..kn {
            let mut z = vec![0u8; self.n];
            z[i] = 1;
            self.causes.push(Cause::new(z, vec![0; t]));
        }
        self.ensure_tables(0);
        self.fit_row_hist();
        let w = self.row_w;
        // The conditional of the number m of active new causes on trial t depends on the trial
        // only through (η_{i,t}, x_{i,t}): Eq. 15's summands, prior part once per m, likelihood
        // part from the Eq. 3 table; cumulative weights cached per (η, x).
        self.new_prior.clear();
        self.new_prior
            .extend((0..=kn).map(|m| eq::ln_new_active_prior(m, kn, p)));
        let max_e = (0..t).map(|tt| self.eta[i * t + tt]).max().unwrap_or(0) as usize;
        // slot (η, x) at [(2η + x)(K_new + 1) ..][.. K_new + 1]; NaN first entry: not filled yet
        let width = kn + 1;
        self.new_cdf.clear();
        self.new_cdf.resize(2 * (max_e + 1) * width, f64::NAN);
        self.idx.clear();
        self.idx.extend(0..kn);
        // the existing causes of row i, whose Eq. 12 log-odds see η_{i,t} (see y_sweep.rs)
        self.rows.clear();
        self.rows
            .extend((0..first).filter(|&kk| self.causes[kk].z[i] != 0));
        for tt in 0..t {
            let e = self.eta[i * t + tt] as usize;
            let x = usize::from(self.x[i * t + tt]);
            let at = (2 * e + x) * width;
            if self.new_cdf[at].is_nan() {
                self.weights.clear();
                self.weights.extend(
                    (0..=kn).map(|m| self.new_prior[m] + self.tables.ln_px[2 * (e + m) + x]),
                );
                cumulative(&self.weights, &mut self.probs).ok_or_else(|| {
                    SamplerError::Numerical(format!(
                        "Eq. 15 weights for new causes of row {i} are not finite"
                    ))
                })?;
                self.new_cdf[at..at + width].copy_from_slice(&self.probs);
            }
            let slot = &self.new_cdf[at..at + width];
            let u = rng.random::<f64>() * slot[kn];
            // the first cumulative weight above u (a linear scan: K_new is small)
            let m = slot.iter().position(|&c| c > u).unwrap_or(kn).min(kn);
            // uniformly random subset of size m (partial Fisher–Yates)
            for j in 0..m {
                let r = rng.random_range(j..kn);
                self.idx.swap(j, r);
                self.causes[first + self.idx[j]].y[tt] = 1;
            }
            self.eta[i * t + tt] += m as u32;
            if m > 0 && w > 0 {
                self.row_hist[i * w + 2 * e + x] -= 1;
                self.row_hist[i * w + 2 * (e + m) + x] += 1;
            }
            if m > 0 {
                for &kk in &self.rows {
                    if let Some(w) = self.causes[kk].fresh.get_mut(tt / 64) {
                        *w &= !(1u64 << (tt % 64));
                    }
                }
            }
        }
        for c in &mut self.causes[first..] {
            c.refresh_on();
        }
        // Insert the new columns at uniformly random positions (one at a time, each uniform over
        // the current slots), so that, as the exact conditional on ordered column lists requires,
        // every interleaving with the remaining columns is equally likely. Appending them instead
        // correlates a column's position with its age, and the systematic scan of the next rows
        // then leaves a small bias (K_+ too high; found by the Geweke test, see Defect).
        if self.defect != Some(Defect::AppendNewCauses) {
            for j in 0..kn {
                let c = self.causes.remove(first + j);
                let pos = rng.random_range(0..=first + j);
                self.causes.insert(pos, c);
            }
        }
        Ok(())
    }
}

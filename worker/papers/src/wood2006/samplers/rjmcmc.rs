//! Algorithm 1 (§4.1, finite model): the reversible-jump birth/death move of Eqs. 8–9 followed
//! by the Eq. 11 (with Eq. 10's θ̄) and Eq. 12 Gibbs updates of [`super::gibbs`]. The Y sweep
//! (lines 14–16) runs after every row as printed, or once per iteration
//! (`rjmcmc_y_schedule: per_sweep`, [`YSchedule`]).

use rand::RngExt;

use super::state::{Cause, Core, Defect};
use crate::chain::SamplerError;
use crate::seed::ChainRng;
use crate::wood2006::equations::{self as eq, YSchedule};

impl Core {
    /// One iteration of Algorithm 1 (finite model, RJMCMC).
    pub fn rjmcmc_iteration(&mut self, rng: &mut ChainRng) -> Result<(), SamplerError> {
        let n = self.n;
        for i in 0..n {
            self.birth_death(rng)?;
            self.ensure_tables(0);
            // lines 11–13: Eq. 11 with Eq. 10's θ̄ for every column
            let k = self.causes.len();
            for kk in 0..k {
                let m_minus = (self.causes[kk].m - u32::from(self.causes[kk].z[i])) as usize;
                self.gibbs_z(
                    i,
                    kk,
                    eq::theta_bar_finite(m_minus, n, self.hyper.alpha, k),
                    rng,
                )?;
            }
            // lines 14–16 (inside the loop over i, as printed)
            if self.cfg.rjmcmc_y_schedule == YSchedule::PerRow {
                self.sweep_y(rng, None)?;
            }
        }
        if self.cfg.rjmcmc_y_schedule == YSchedule::PerSweep {
            self.sweep_y(rng, None)?;
        }
        Ok(())
    }

    /// Algorithm 1 lines 3–10: pick a column uniformly; if it has links propose a birth (Eq. 8),
    /// otherwise propose deleting it (Eq. 9).
    fn birth_death(&mut self, rng: &mut ChainRng) -> Result<(), SamplerError> {
        let k = self.causes.len();
        if k == 0 {
            return Err(SamplerError::InvalidState(
                "RJMCMC state has no columns".into(),
            ));
        }
        let variant = self.cfg.rjmcmc_acceptance;
        let (prior, k_max, alpha, n) = (self.cfg.k_prior, self.cfg.k_max, self.hyper.alpha, self.n);
        let pick = rng.random_range(0..k);
        let k_plus = self.k_plus();
        self.collect_ms();
        let ln_pz_old = eq::ln_p_z_finite(&self.ms, n, alpha);
        if self.causes[pick].m > 0 {
            let mut y = vec![0u8; self.t];
            for v in y.iter_mut() {
                *v = u8::from(rng.random::<f64>() < self.hyper.p);
            }
            let delta = 1 + self.causes.iter().filter(|c| c.y == y).count();
            let ln_pz_new = eq::ln_p_z_finite_modified(&self.ms, n, alpha, 1, None);
            let ln_pk = eq::ln_k_prior_ratio(prior, k + 1, k, k_max, alpha, n);
            let ln_a = if self.defect == Some(Defect::DropRjPickRatio) && k_plus > 0 {
                eq::ln_mh_acceptance(ln_pz_new + ln_pk - ln_pz_old, 0.0)
            } else {
                eq::ln_accept_birth(variant, k, k_plus, delta, ln_pz_new, ln_pk, ln_pz_old, 0.0)
            };
            if ln_a.is_nan() {
                return Err(SamplerError::Numerical("birth acceptance is NaN".into()));
            }
            if rng.random::<f64>().ln() < ln_a {
                let pos = rng.random_range(0..=k);
                self.causes.insert(pos, Cause::new(vec![0; n], y));
            }
        } else {
            let delta = self
                .causes
                .iter()
                .filter(|c| c.y == self.causes[pick].y)
                .count();
            let ln_pz_new = eq::ln_p_z_finite_modified(&self.ms, n, alpha, 0, Some(pick));
            let ln_pk = eq::ln_k_prior_ratio(prior, k - 1, k, k_max, alpha, n);
            let ln_a = if self.defect == Some(Defect::DropRjPickRatio) && k > 1 && k_plus > 0 {
                eq::ln_mh_acceptance(ln_pz_new + ln_pk - ln_pz_old, 0.0)
            } else {
                eq::ln_accept_death(variant, k, k_plus, delta, ln_pz_new, ln_pk, ln_pz_old, 0.0)
            };
            if ln_a.is_nan() {
                return Err(SamplerError::Numerical("death acceptance is NaN".into()));
            }
            if rng.random::<f64>().ln() < ln_a {
                self.causes.remove(pick);
            }
        }
        Ok(())
    }
}

//! The hyperparameter moves of §6 (λ, ε, p, α), shared by both algorithms.

use rand::RngExt;
use rand_distr::{Beta, Distribution, Gamma, StandardNormal};

use super::state::{Core, Defect, Hyper};
use crate::chain::SamplerError;
use crate::seed::ChainRng;
use crate::wood2006::equations as eq;
use crate::wood2006::params::SamplerKind;

impl Core {
    /// §6: one Metropolis step each for λ and ε (reflected Gaussian random walks, Hastings ratio 1,
    /// target = Eq. 3 likelihood × Beta prior), a Gibbs draw of p (Beta, conjugate to Eq. 4) and
    /// of α (Gibbs: Gamma, conjugate to the IBP; RJMCMC: random walk on ln α with its Jacobian,
    /// target Eq. 5 × P(K|α) × Gamma prior). Expects [`Core::global_hist`] to be current.
    pub fn update_hyper(&mut self, rng: &mut ChainRng) -> Result<(), SamplerError> {
        let cfg = self.cfg.clone();
        let h = self.hyper;
        // λ
        let target_l = |l: f64| {
            eq::ln_lik_from_hist(&self.h0, &self.h1, l, h.epsilon)
                + eq::ln_beta_density(l, cfg.lambda_prior[0], cfg.lambda_prior[1])
        };
        let z: f64 = rng.sample(StandardNormal);
        let prop = eq::reflect_unit(h.lambda + cfg.lambda_step * z);
        let mut lambda = h.lambda;
        if prop > 0.0 && prop < 1.0 {
            let r = eq::ln_mh_acceptance(target_l(prop) - target_l(h.lambda), 0.0);
            if r.is_nan() {
                return Err(SamplerError::Numerical("lambda acceptance is NaN".into()));
            }
            if rng.random::<f64>().ln() < r {
                lambda = prop;
            }
        }
        // ε
        let target_e = |e: f64| {
            eq::ln_lik_from_hist(&self.h0, &self.h1, lambda, e)
                + eq::ln_beta_density(e, cfg.epsilon_prior[0], cfg.epsilon_prior[1])
        };
        let z: f64 = rng.sample(StandardNormal);
        let prop = eq::reflect_unit(h.epsilon + cfg.epsilon_step * z);
        let mut epsilon = h.epsilon;
        if prop > 0.0 && prop < 1.0 {
            let r = eq::ln_mh_acceptance(target_e(prop) - target_e(h.epsilon), 0.0);
            if r.is_nan() {
                return Err(SamplerError::Numerical("epsilon acceptance is NaN".into()));
            }
            if rng.random::<f64>().ln() < r {
                epsilon = prop;
            }
        }
        // p
        let ones: u64 = self
            .causes
            .iter()
            .map(|c| c.y.iter().map(|&v| u64::from(v)).sum::<u64>())
            .sum();
        let total = (self.causes.len() * self.t) as u64;
        let (a, b) = eq::p_conditional(cfg.p_prior[0], cfg.p_prior[1], ones, total);
        let beta = Beta::new(a, b)
            .map_err(|e| SamplerError::Numerical(format!("Beta({a}, {b}) for p: {e}")))?;
        let p: f64 = beta.sample(rng);
        if !(p > 0.0 && p < 1.0) {
            return Err(SamplerError::Numerical(format!(
                "p drawn as {p} from Beta({a}, {b})"
            )));
        }
        // α
        let alpha = match self.kind {
            SamplerKind::Gibbs => {
                let (shape, rate) = eq::alpha_conditional_infinite(
                    cfg.alpha_prior[0],
                    cfg.alpha_prior[1],
                    self.k_plus(),
                    self.n,
                );
                let g = Gamma::new(shape, 1.0 / rate).map_err(|e| {
                    SamplerError::Numerical(format!("Gamma({shape}, rate {rate}) for alpha: {e}"))
                })?;
                g.sample(rng)
            }
            SamplerKind::Rjmcmc => {
                self.collect_ms();
                let ms = &self.ms;
                let k = self.causes.len();
                let jacobian = self.defect != Some(Defect::DropAlphaJacobian);
                let target = |al: f64| {
                    let t = eq::ln_p_z_finite(ms, self.n, al)
                        + eq::ln_k_prior(cfg.k_prior, k, cfg.k_max, al, self.n)
                        + eq::ln_gamma_density(al, cfg.alpha_prior[0], cfg.alpha_prior[1]);
                    if jacobian {
                        t + al.ln() // Jacobian of the walk on ln α
                    } else {
                        t
                    }
                };
                let z: f64 = rng.sample(StandardNormal);
                let prop = h.alpha * (cfg.alpha_step * z).exp();
                let r = eq::ln_mh_acceptance(target(prop) - target(h.alpha), 0.0);
                if r.is_nan() {
                    return Err(SamplerError::Numerical("alpha acceptance is NaN".into()));
                }
                if prop > 0.0 && prop.is_finite() && rng.random::<f64>().ln() < r {
                    prop
                } else {
                    h.alpha
                }
            }
        };
        if !(alpha > 0.0 && alpha.is_finite()) {
            return Err(SamplerError::Numerical(format!("alpha drawn as {alpha}")));
        }
        self.hyper = Hyper {
            alpha,
            lambda,
            epsilon,
            p,
        };
        self.ensure_tables(0);
        Ok(())
    }
}

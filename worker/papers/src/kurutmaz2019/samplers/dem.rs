//! DEM-CN (Fig. 4.6): the "dual" EM of §4.2.2.
//!
//! Source: `003_bf1ce321478f8175.txt` §4.2.2, eqs. 4.37–4.48, Fig. 4.6.
//!
//! **What "dual" means (our reading).** Ordinary EM (eqs. 4.37–4.38) treats the latent classes
//! r^{1:T} as the hidden variables to average over and maximises over the parameters (θ, w, ρ).
//! DEM swaps the roles: the target is the MAP *assignment* r* = argmax_r p(r | x) (eqs.
//! 4.39–4.40), and the parameters are the hidden variables, handled through a distribution Q.
//! With 𝓑[Q, r] = E_Q{ln p(r, θ, ρ, w | x) − ln Q} = ln p(r | x) − KL(Q ‖ p(θ, ρ, w | r, x)),
//! coordinate ascent alternates
//! - Q* ← p(θ, ρ, w | r*, x): the exact conjugate posterior given r* (eq. 4.47; §3.2), and
//! - r*_t ← argmax_r E_{Q*}{ln p(r_t = r, x^t | θ, ρ, w)} for each t independently (eq. 4.48,
//!   closed form after it: [`equations::dem_score`]).
//!
//! Since 𝓑[Q*, r*] = ln p(r* | x) (tight) and the r-step can only increase 𝓑, every iteration
//! satisfies ln p(r*_new, x) ≥ ln p(r*_old, x): the collapsed log joint (trace `log_joint`) is
//! non-decreasing, and the algorithm stops changing once r* is a fixed point ("until r* converges
//! to a fixed value", Fig. 4.6).
//!
//! Choices: one [`Sampler::step`] = one iteration (Q-step then r-step); a class r_t changes only
//! if another class scores strictly higher (ties keep the current class, so fixed points are
//! stable). Initialisation (`init`): `random` (uniform labels from the chain RNG, default) or
//! `smc` (the trajectory of one SIS-CN run traced back from a particle drawn by weight).
//!
//! [`equations::dem_score`]: super::equations::dem_score

use rand::RngExt;

use crate::chain::{Sampler, SamplerError};
use crate::data::Matrix;
use crate::kurutmaz2019::equations::{self, NgMoments};
use crate::kurutmaz2019::samplers::problem::Problem;
use crate::kurutmaz2019::samplers::smc::{Engine, History, SmcConfig, shuffle};
use crate::math::log_sum_exp;
use crate::seed::ChainRng;

/// How DEM-CN chooses its first assignment r*.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DemInit {
    /// Labels i.i.d. uniform on 0..R (default).
    #[default]
    Random,
    /// One SIS-CN run (n_particles, resample_threshold, random order) and a traced-back path.
    Smc,
}

/// DEM-CN as a chain (`method: dem`).
///
/// Trace: `log_joint` = ln p(r*, x) (App. B.3 closed form; non-decreasing), `n_changed` (classes
/// changed by this iteration's r-step).
/// Summary: `r_map` (T × 1, r* with labels 0..R−1, original order), `r_marginals` (T × R: the
/// normalised exp of the last r-step's scores E_{Q*}{ln p(r_t = r, x^t | ·)}), `log_joint` (1 × 1).
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct DemSampler {
    problem: Problem,
    init: DemInit,
    smc: SmcConfig,
    r_star: Vec<usize>,
    probs: Vec<f64>,
    log_joint: f64,
    n_changed: usize,
    started: bool,
}

impl DemSampler {
    /// DEM sampler for `problem`; `smc` configures the `init: smc` run.
    pub fn new(problem: Problem, init: DemInit, smc: SmcConfig) -> Self {
        let t_len = problem.len();
        let k = problem.n_latent;
        DemSampler {
            problem,
            init,
            smc,
            r_star: vec![0; t_len],
            probs: vec![0.0; t_len * k],
            log_joint: f64::NAN,
            n_changed: 0,
            started: false,
        }
    }

    /// The current assignment r* (labels 0..R, original order).
    pub fn assignment(&self) -> &[usize] {
        &self.r_star
    }

    /// ln p(r*, x) of the current assignment.
    pub fn log_joint(&self) -> f64 {
        self.log_joint
    }

    fn initialise(&mut self, rng: &mut ChainRng) -> Result<(), SamplerError> {
        let k = self.problem.n_latent;
        match self.init {
            DemInit::Random => {
                for r in self.r_star.iter_mut() {
                    *r = rng.random_range(0..k);
                }
            }
            DemInit::Smc => {
                let t_len = self.problem.len();
                let mut order: Vec<usize> = (0..t_len).collect();
                shuffle(&mut order, rng);
                let mut engine = Engine::new(&self.problem, self.smc.n_particles.max(1));
                engine.set_order(&order);
                let mut hist = History::default();
                engine.run(rng, &self.smc, None, Some(&mut hist))?;
                let j = engine.draw_final(rng);
                let mut path = vec![0u8; t_len];
                hist.trace(j, engine.j, &mut path);
                for (t, &o) in order.iter().enumerate() {
                    self.r_star[o] = path[t] as usize;
                }
            }
        }
        Ok(())
    }

    /// One DEM iteration: Q-step (eq. 4.47) then r-step (eq. 4.48). Returns the number of changed
    /// classes.
    fn iterate(&mut self) -> Result<usize, SamplerError> {
        let p = &self.problem;
        let k = p.n_latent;
        let stats = p.suff_stats(Some(&self.r_star), None);
        let counts: Vec<f64> = stats[0].iter().map(|s| s.n).collect();
        let gamma_star = equations::dirichlet_posterior(p.hyper.gamma, &counts);
        let mut e_log_theta = vec![0.0; k];
        equations::dirichlet_expected_log(&gamma_star, &mut e_log_theta);
        let priors = [p.prior1, p.prior2];
        // Q* (eq. 4.47): per variable v and class r, the exact posterior's moments.
        let mut qs: [Vec<NgMoments>; 2] = [Vec::with_capacity(k), Vec::with_capacity(k)];
        for v in 0..2 {
            for s in &stats[v] {
                let m = equations::ng_posterior(&priors[v], s)
                    .and_then(|post| NgMoments::of(&post))
                    .ok_or_else(|| SamplerError::Numerical("DEM: degenerate posterior".into()))?;
                qs[v].push(m);
            }
        }
        let mut changed = 0;
        let mut sc = [0.0; 5];
        for t in 0..p.len() {
            let (phi1, phi2) = (p.phi1(t), p.phi2(t));
            for (r, sr) in sc.iter_mut().enumerate().take(k) {
                *sr = equations::dem_score(
                    e_log_theta[r],
                    [(&qs[0][r], phi1, p.v1[t]), (&qs[1][r], phi2, p.v2[t])],
                );
            }
            let cur = self.r_star[t];
            let mut best = cur;
            for (r, sr) in sc.iter().enumerate().take(k) {
                if *sr > sc[best] {
                    best = r;
                }
            }
            if best != cur {
                self.r_star[t] = best;
                changed += 1;
            }
            let z = log_sum_exp(&sc[..k]);
            for (r, sr) in sc.iter().enumerate().take(k) {
                self.probs[t * k + r] = (sr - z).exp();
            }
        }
        Ok(changed)
    }
}

impl Sampler for DemSampler {
    fn trace_names(&self) -> Vec<String> {
        vec!["log_joint".into()]
    }

    fn stat_names(&self) -> Vec<String> {
        vec!["n_changed".into()]
    }

    fn record_stats(&self, row: &mut Vec<f64>) {
        row.push(self.n_changed as f64);
    }

    fn step(&mut self, rng: &mut ChainRng) -> Result<(), SamplerError> {
        if !self.started {
            self.initialise(rng)?;
            self.started = true;
        }
        self.n_changed = self.iterate()?;
        self.log_joint = self.problem.log_joint(&self.r_star)?;
        Ok(())
    }

    fn record(&self, row: &mut Vec<f64>) {
        row.push(self.log_joint);
    }

    fn summary(&self) -> Vec<Matrix> {
        let (t_len, k) = (self.problem.len(), self.problem.n_latent);
        vec![
            Matrix::new("r_marginals", t_len, k, self.probs.clone()),
            Matrix::new(
                "r_map",
                t_len,
                1,
                self.r_star.iter().map(|r| *r as f64).collect(),
            ),
            Matrix::scalar("log_joint", self.log_joint),
        ]
    }

    crate::serde_checkpoint!();
}

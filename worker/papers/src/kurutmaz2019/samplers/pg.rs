//! PG-CN (Fig. 4.4): particle Gibbs with conditional SMC (Andrieu, Doucet & Holenstein 2010).
//!
//! Source: `003_bf1ce321478f8175.txt` §4.1.1, Fig. 4.3–4.4.
//!
//! Each [`Sampler::step`] is one PG sweep: a conditional SIS-CN pass in which particle 0 follows
//! the current reference trajectory r^{1:T} and survives every resampling, then a new reference
//! is drawn from the final weighted particles by tracing stored ancestor indices back (particles
//! carry sufficient statistics only; the per-step classes and ancestors are kept in a
//! `History`). The first step, with no reference yet, is an unconditional SIS-CN pass.
//!
//! Choices (the thesis leaves them open):
//! - The free particles 1..J resample **multinomially** from all J: this is the conditional
//!   resampling for which PG is proven invariant; conditional *systematic* resampling needs a
//!   different construction (Chopin & Singh 2015), so `resampling` does not apply to PG.
//! - Resampling is adaptive with `resample_threshold` like SIS-CN (ESS is symmetric in the
//!   particles, so the decision does not break invariance); Fig. 4.4 resamples at every step,
//!   which is `resample_threshold: 1.0`.
//! - The observation order is one random permutation (if `shuffle`) drawn when the sampler is
//!   built and kept for the whole chain; any fixed order leaves p(r | x) invariant.
//! - The model is symmetric in the labels of r, so the chain may switch labels; per-label
//!   marginals (`r_marginals`) are meaningful only while it does not (in practice, for large T).
//!   Label-free statistics (co-assignment) are what the tests compare with the exact posterior.

use crate::chain::{Sampler, SamplerError};
use crate::data::Matrix;
use crate::kurutmaz2019::samplers::problem::Problem;
use crate::kurutmaz2019::samplers::smc::{Defect, Engine, History, SmcConfig, shuffle};
use crate::seed::ChainRng;

/// PG-CN as a chain (`method: pg`).
///
/// Trace: `log_joint` = ln p(r^{1:T}, x^{1:T}) of the current reference (App. B.3 closed form).
/// Summary: `r_marginals` (T × R, posterior frequencies of r_t over accumulated sweeps, rows in
/// the original observation order), `r_map` (T × 1, labels 0..R−1 of the accumulated sweep with
/// the highest ln p(r, x)), `log_joint_map` (1 × 1).
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct PgSampler {
    problem: Problem,
    engine: Engine,
    cfg: SmcConfig,
    order: Vec<usize>,
    hist: History,
    reference: Option<Vec<u8>>,
    path: Vec<u8>,
    labels: Vec<usize>,
    log_joint: f64,
    counts: Vec<u64>,
    n_acc: u64,
    best: Option<(f64, Vec<usize>)>,
}

impl PgSampler {
    /// PG sampler for `problem` with J = `cfg.n_particles` ≥ 2; the observation order is drawn
    /// from `rng` if `shuffle`. A negative-control [`Defect`] is switched on through
    /// `cfg` (`SmcConfig::with_defect`, `testing` feature only).
    ///
    /// Errors: [`SamplerError::Input`] if J < 2.
    pub fn new(
        problem: Problem,
        cfg: SmcConfig,
        shuffle_order: bool,
        rng: &mut ChainRng,
    ) -> Result<Self, SamplerError> {
        if cfg.n_particles < 2 {
            return Err(SamplerError::Input(
                "method pg needs n_particles ≥ 2".into(),
            ));
        }
        let t_len = problem.len();
        let mut order: Vec<usize> = (0..t_len).collect();
        if shuffle_order {
            shuffle(&mut order, rng);
        }
        let mut cfg = cfg;
        cfg.resampling = super::smc::Resampling::Multinomial;
        let mut engine = Engine::new(&problem, cfg.n_particles);
        engine.set_order(&order);
        let r = problem.n_latent;
        Ok(PgSampler {
            problem,
            engine,
            cfg,
            order,
            hist: History::default(),
            reference: None,
            path: vec![0; t_len],
            labels: vec![0; t_len],
            log_joint: f64::NAN,
            counts: vec![0; t_len * r],
            n_acc: 0,
            best: None,
        })
    }

    /// The current reference trajectory: labels in 0..R, **original** observation order.
    pub fn reference(&self) -> &[usize] {
        &self.labels
    }

    /// ln p(r, x) of the current reference.
    pub fn log_joint(&self) -> f64 {
        self.log_joint
    }
}

impl Sampler for PgSampler {
    fn trace_names(&self) -> Vec<String> {
        vec!["log_joint".into()]
    }

    fn step(&mut self, rng: &mut ChainRng) -> Result<(), SamplerError> {
        let reference = match self.cfg.defect() {
            Some(Defect::DropReference) => None,
            _ => self.reference.as_deref(),
        };
        self.engine
            .run(rng, &self.cfg, reference, Some(&mut self.hist))?;
        let k = self.engine.draw_final(rng);
        self.hist.trace(k, self.engine.j, &mut self.path);
        for (t, &o) in self.order.iter().enumerate() {
            self.labels[o] = self.path[t] as usize;
        }
        match self.reference.as_mut() {
            Some(rf) => rf.copy_from_slice(&self.path),
            None => self.reference = Some(self.path.clone()),
        }
        self.log_joint = self.problem.log_joint(&self.labels)?;
        Ok(())
    }

    fn record(&self, row: &mut Vec<f64>) {
        row.push(self.log_joint);
    }

    fn accumulate(&mut self) {
        let r = self.problem.n_latent;
        for (t, &l) in self.labels.iter().enumerate() {
            self.counts[t * r + l] += 1;
        }
        self.n_acc += 1;
        if self.best.as_ref().is_none_or(|(b, _)| self.log_joint > *b) {
            self.best = Some((self.log_joint, self.labels.clone()));
        }
    }

    fn summary(&self) -> Vec<Matrix> {
        let (t_len, r) = (self.problem.len(), self.problem.n_latent);
        let mut marg = vec![0.0; t_len * r];
        if self.n_acc > 0 {
            for (m, c) in marg.iter_mut().zip(&self.counts) {
                *m = *c as f64 / self.n_acc as f64;
            }
        } else {
            for (t, &l) in self.labels.iter().enumerate() {
                marg[t * r + l] = 1.0;
            }
        }
        let (lj, map) = match &self.best {
            Some((b, l)) => (*b, l.clone()),
            None => (self.log_joint, self.labels.clone()),
        };
        vec![
            Matrix::new("r_marginals", t_len, r, marg),
            Matrix::new("r_map", t_len, 1, map.iter().map(|l| *l as f64).collect()),
            Matrix::scalar("log_joint_map", lj),
        ]
    }

    crate::serde_checkpoint!();
}

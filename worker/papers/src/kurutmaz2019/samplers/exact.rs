//! Exact marginal likelihood by enumeration (eq. 4.1 / eq. 5.1, §5.2): p(x) = Σ_{r ∈ R^T}
//! p(r, x), each term the closed form of App. B.3 evaluated incrementally along a depth-first
//! walk of the assignment tree (O(1) per node with the rank-one updates of
//! `particles`, undone on the way back). Feasible only for small R^T.
//!
//! Source: `003_bf1ce321478f8175.txt` eqs. 4.1, 5.1; App. B.3.

// Parallel structure-of-arrays (and per-variable) indexing reads clearer as index loops.
#![allow(clippy::needless_range_loop)]

use crate::chain::{Sampler, SamplerError};
use crate::data::Matrix;
use crate::kurutmaz2019::samplers::particles::{MAX_R, Store, Tables};
use crate::kurutmaz2019::samplers::problem::Problem;
use crate::seed::ChainRng;

/// A callback receiving each assignment r (length T, labels 0..R) and ln p(r, x).
pub type Visitor<'a> = &'a mut dyn FnMut(&[usize], f64);

/// Default largest number of assignments R^T enumerated (10⁷).
pub const DEFAULT_MAX_ASSIGNMENTS: u64 = 10_000_000;

/// Whether R^T ≤ `max_assignments` (R = 1 is always feasible: one assignment).
pub fn feasible(n_latent: usize, t_len: usize, max_assignments: u64) -> bool {
    n_latent == 1 || (t_len as f64) * (n_latent as f64).ln() <= (max_assignments as f64).ln() + 1e-9
}

struct Walk<'a> {
    tab: Tables,
    store: Store,
    p: &'a Problem,
    path: Vec<usize>,
    max: f64,
    sum: f64,
    visit: Option<Visitor<'a>>,
}

impl Walk<'_> {
    fn leaf(&mut self, v: f64) {
        if let Some(f) = self.visit.as_mut() {
            f(&self.path, v);
        }
        if v > self.max {
            self.sum = self.sum * (self.max - v).exp() + 1.0;
            self.max = v;
        } else {
            self.sum += (v - self.max).exp();
        }
    }

    fn rec(&mut self, t: usize, acc: f64) {
        if t == self.p.len() {
            self.leaf(acc);
            return;
        }
        let (x1, x2, f) = (self.p.v1[t], self.p.v2[t], self.p.f[t]);
        let mut terms = [0.0; MAX_R];
        self.store.log_terms(&self.tab, 0, x1, x2, f, &mut terms);
        let cst = self.tab.step_const[t];
        for r in 0..self.p.n_latent {
            let saved = self.store.save(r);
            self.store.update(&self.tab, r, x1, x2, f);
            self.path[t] = r;
            self.rec(t + 1, acc + terms[r] + cst);
            self.store.restore(r, &saved);
        }
    }
}

/// ln p(x^{1:T}) = ln Σ_r p(r, x) over all R^T assignments (original order), calling
/// `visit(r, ln p(r, x))` for each if given.
///
/// Errors: [`SamplerError::Input`] if R^T > `max_assignments`; [`SamplerError::Numerical`] if the
/// result is not finite.
pub fn enumerate<'a>(
    p: &'a Problem,
    max_assignments: u64,
    visit: Option<Visitor<'a>>,
) -> Result<f64, SamplerError> {
    if !feasible(p.n_latent, p.len(), max_assignments) {
        return Err(SamplerError::Input(format!(
            "exact enumeration of R^T = {}^{} assignments exceeds the limit {max_assignments}",
            p.n_latent,
            p.len()
        )));
    }
    let mut w = Walk {
        tab: Tables::new(p),
        store: Store::new(1, p.n_latent),
        p,
        path: vec![0; p.len()],
        max: f64::NEG_INFINITY,
        sum: 0.0,
        visit,
    };
    w.store.reset(p);
    if p.n_latent == 1 {
        // One assignment: a straight walk, no recursion (T may be large).
        let mut acc = 0.0;
        let mut terms = [0.0; MAX_R];
        for t in 0..p.len() {
            w.store
                .log_terms(&w.tab, 0, p.v1[t], p.v2[t], p.f[t], &mut terms);
            acc += terms[0] + w.tab.step_const[t];
            w.store.update(&w.tab, 0, p.v1[t], p.v2[t], p.f[t]);
        }
        w.leaf(acc);
    } else {
        w.rec(0, 0.0);
    }
    let v = w.max + w.sum.ln();
    if v.is_finite() {
        Ok(v)
    } else {
        Err(SamplerError::Numerical(format!(
            "exact log marginal likelihood is {v}"
        )))
    }
}

/// Exact enumeration as a chain (`method: exact`): one [`Sampler::step`] computes ln p(x); further
/// steps repeat it (deterministic).
///
/// Trace: `log_marginal_likelihood`. Summary: `log_marginal_likelihood` (1 × 1).
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct ExactSampler {
    problem: Problem,
    max_assignments: u64,
    log_z: Option<f64>,
}

impl ExactSampler {
    /// Sampler for `problem`.
    ///
    /// Errors: [`SamplerError::Input`] if R^T > `max_assignments`.
    pub fn new(problem: Problem, max_assignments: u64) -> Result<Self, SamplerError> {
        if !feasible(problem.n_latent, problem.len(), max_assignments) {
            return Err(SamplerError::Input(format!(
                "method exact: R^T = {}^{} exceeds max_enumeration = {max_assignments}",
                problem.n_latent,
                problem.len()
            )));
        }
        Ok(ExactSampler {
            problem,
            max_assignments,
            log_z: None,
        })
    }
}

impl Sampler for ExactSampler {
    fn trace_names(&self) -> Vec<String> {
        vec!["log_marginal_likelihood".into()]
    }
    fn step(&mut self, _rng: &mut ChainRng) -> Result<(), SamplerError> {
        if self.log_z.is_none() {
            self.log_z = Some(enumerate(&self.problem, self.max_assignments, None)?);
        }
        Ok(())
    }
    fn record(&self, row: &mut Vec<f64>) {
        row.push(self.log_z.unwrap_or(f64::NAN));
    }
    fn summary(&self) -> Vec<Matrix> {
        vec![Matrix::scalar(
            "log_marginal_likelihood",
            self.log_z.unwrap_or(f64::NAN),
        )]
    }

    crate::serde_checkpoint!();
}

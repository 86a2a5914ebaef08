//! The one sampler trait and the chain driver.
//!
//! A *chain* is one job of the grid: a [`Sampler`] built from a cell's parameters and a dataset,
//! advanced `iterations` times by [`run_chain`], with a trace row recorded every `thin`
//! iterations (burn-in included, so trace plots show it; diagnostics drop `iteration < burn_in`),
//! posterior summaries accumulated after burn-in, and a final summary.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use serde::{Deserialize, Serialize};

use crate::data::Matrix;
use crate::seed::ChainRng;

/// A model that failed numerically or reached an invalid state. The runner marks the chain
/// failed with this reason; it never panics.
#[derive(Debug, thiserror::Error, Clone, PartialEq)]
pub enum SamplerError {
    /// A log probability or statistic became NaN or infinite where it must be finite.
    #[error("numerical failure: {0}")]
    Numerical(String),
    /// The sampler state broke an invariant (a bug or an impossible configuration).
    #[error("invalid state: {0}")]
    InvalidState(String),
    /// The parameters or dataset do not fit this sampler (should have been caught by validation).
    #[error("invalid input: {0}")]
    Input(String),
    /// The chain was stopped from outside (its cancel flag was set) before it finished.
    #[error("cancelled at iteration {0}")]
    Cancelled(u64),
}

/// How long a chain runs. Units: iterations (one `Sampler::step` each).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunSpec {
    /// Total number of transitions.
    pub iterations: u64,
    /// Transitions before posterior summaries start accumulating.
    #[serde(default)]
    pub burn_in: u64,
    /// Record a trace row every `thin` iterations (≥ 1).
    #[serde(default = "one")]
    pub thin: u64,
}

fn one() -> u64 {
    1
}

/// The one sampler trait: every algorithm of every paper implements it.
pub trait Sampler: Send {
    /// Names of the scalars recorded in each trace row (standard names: `k_plus`, `log_joint`,
    /// `alpha`, `log_marginal_likelihood`, ...).
    fn trace_names(&self) -> Vec<String>;
    /// Called once by the chain driver before the first step, with the run's length: a sampler
    /// that adapts (step sizes) during burn-in freezes its adaptation after `spec.burn_in`
    /// iterations. Default: nothing.
    fn begin(&mut self, spec: &RunSpec) {
        let _ = spec;
    }
    /// One transition: an MCMC sweep, a VB/EM iteration, or a whole SMC run.
    fn step(&mut self, rng: &mut ChainRng) -> Result<(), SamplerError>;
    /// Append the current state's trace scalars to `row`, in [`Sampler::trace_names`] order.
    fn record(&self, row: &mut Vec<f64>);
    /// Names of the sampler's own statistics recorded beside each trace row (ArviZ's
    /// `sample_stats` group: acceptance, particle ESS, resampling counts, iterations to
    /// converge). They describe the algorithm, not the posterior, and are stored apart from the
    /// draws. Default: none.
    fn stat_names(&self) -> Vec<String> {
        Vec::new()
    }
    /// Append the sampler's statistics for the last transition to `row`, in
    /// [`Sampler::stat_names`] order. Default: nothing.
    fn record_stats(&self, row: &mut Vec<f64>) {
        let _ = row;
    }
    /// Called once for each iteration at or after burn-in, to accumulate posterior summaries.
    fn accumulate(&mut self) {}
    /// Final state summary: named matrices (posterior means, the MAP sample, estimates).
    fn summary(&self) -> Vec<Matrix>;
}

/// Everything a chain produces. Traces are row-major: `iterations.len()` rows × `trace_names.len()`
/// for the draws, `iterations.len()` rows × `stat_names.len()` for the sampler's statistics.
#[derive(Debug, Clone, PartialEq)]
pub struct ChainOutput {
    /// Column names of the trace.
    pub trace_names: Vec<String>,
    /// Iteration number (1-based) of each recorded row.
    pub iterations: Vec<u64>,
    /// Row-major trace values (the draws: ArviZ's `posterior`).
    pub trace: Vec<f64>,
    /// Column names of the sampler's statistics (ArviZ's `sample_stats`), possibly empty.
    pub stat_names: Vec<String>,
    /// Row-major statistics, one row per recorded iteration.
    pub stats: Vec<f64>,
    /// Final summaries.
    pub summary: Vec<Matrix>,
    /// Wall-clock seconds since the chain started, at each recorded row. Not deterministic, so
    /// the store keeps it apart from the trace.
    pub elapsed_seconds: Vec<f64>,
}

/// Run one chain to completion. `progress(done, total)` is called after every iteration.
///
/// Errors: the first [`SamplerError`] from the sampler, or a non-finite trace value (reported as
/// [`SamplerError::Numerical`] with its column name and iteration).
pub fn run_chain(
    sampler: &mut dyn Sampler,
    spec: &RunSpec,
    rng: &mut ChainRng,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<ChainOutput, SamplerError> {
    run_chain_cancellable(sampler, spec, rng, progress, &AtomicBool::new(false))
}

/// [`run_chain`] that also stops with [`SamplerError::Cancelled`] as soon as `cancel` is set
/// (checked between iterations), so a worker can drop a chain its coordinator gave up on.
/// Cancellation never changes the output of a chain that completes.
pub fn run_chain_cancellable(
    sampler: &mut dyn Sampler,
    spec: &RunSpec,
    rng: &mut ChainRng,
    progress: &mut dyn FnMut(u64, u64),
    cancel: &AtomicBool,
) -> Result<ChainOutput, SamplerError> {
    let thin = spec.thin.max(1);
    let trace_names = sampler.trace_names();
    let stat_names = sampler.stat_names();
    let mut out = ChainOutput {
        trace_names,
        iterations: Vec::new(),
        trace: Vec::new(),
        stat_names,
        stats: Vec::new(),
        summary: Vec::new(),
        elapsed_seconds: Vec::new(),
    };
    let start = Instant::now();
    sampler.begin(spec);
    let mut row = Vec::with_capacity(out.trace_names.len());
    for it in 1..=spec.iterations {
        if cancel.load(Ordering::Relaxed) {
            return Err(SamplerError::Cancelled(it - 1));
        }
        sampler.step(rng)?;
        if it > spec.burn_in {
            sampler.accumulate();
        }
        if it % thin == 0 {
            row.clear();
            sampler.record(&mut row);
            if row.len() != out.trace_names.len() {
                return Err(SamplerError::InvalidState(format!(
                    "trace row has {} values for {} names",
                    row.len(),
                    out.trace_names.len()
                )));
            }
            if let Some(j) = row.iter().position(|v| v.is_nan()) {
                return Err(SamplerError::Numerical(format!(
                    "{} is NaN at iteration {it}",
                    out.trace_names[j]
                )));
            }
            out.iterations.push(it);
            out.trace.extend_from_slice(&row);
            let before = out.stats.len();
            sampler.record_stats(&mut out.stats);
            if out.stats.len() - before != out.stat_names.len() {
                return Err(SamplerError::InvalidState(format!(
                    "sample_stats row has {} values for {} names",
                    out.stats.len() - before,
                    out.stat_names.len()
                )));
            }
            out.elapsed_seconds.push(start.elapsed().as_secs_f64());
        }
        progress(it, spec.iterations);
    }
    out.summary = sampler.summary();
    Ok(out)
}

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
    /// The checkpoint to resume from does not fit this chain: past its end, or a state the
    /// sampler cannot restore. Running the chain from iteration 1 instead gives the same draws.
    #[error("bad checkpoint: {0}")]
    Checkpoint(String),
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
    /// The sampler's complete mutable state as bytes, for a chain checkpoint: every
    /// parameter, cached sufficient statistic, adaptation state, posterior accumulator and any
    /// random stream the sampler owns besides the chain's. `None` (the default): this sampler
    /// cannot be checkpointed, and its chains run in one piece. Samplers whose whole struct is
    /// serde-serializable implement this and [`Sampler::restore_state`] with
    /// [`crate::serde_checkpoint!`].
    fn save_state(&self) -> Option<Result<Vec<u8>, SamplerError>> {
        None
    }
    /// Whether [`Sampler::save_state`] gives a state (asked once per chain, without encoding
    /// one). Default: false.
    fn checkpointable(&self) -> bool {
        false
    }
    /// Put back a state from [`Sampler::save_state`] into a sampler built from the same
    /// parameters, data and seed (and already given [`Sampler::begin`]). After it, the chain goes
    /// on exactly as the one that was saved. Errors: bytes that are not such a state.
    fn restore_state(&mut self, state: &[u8]) -> Result<(), SamplerError> {
        let _ = state;
        Err(SamplerError::InvalidState(
            "this sampler cannot restore a checkpoint".into(),
        ))
    }
}

/// Encode a sampler's state (CBOR via ciborium: self-describing, exact for every f64 and u128).
pub fn encode_state<T: Serialize + ?Sized>(state: &T) -> Result<Vec<u8>, SamplerError> {
    let mut out = Vec::new();
    ciborium::into_writer(state, &mut out)
        .map_err(|e| SamplerError::InvalidState(format!("saving the sampler state: {e}")))?;
    Ok(out)
}

/// Decode a state written by [`encode_state`]. Errors: truncated or foreign bytes.
pub fn decode_state<T: serde::de::DeserializeOwned>(bytes: &[u8]) -> Result<T, SamplerError> {
    ciborium::from_reader(bytes)
        .map_err(|e| SamplerError::InvalidState(format!("restoring the sampler state: {e}")))
}

/// Implements [`Sampler::save_state`] and [`Sampler::restore_state`] inside an
/// `impl Sampler for T` block for a `T: Serialize + DeserializeOwned` whose whole value is the
/// state (data included; it is small next to a chain's work).
#[macro_export]
macro_rules! serde_checkpoint {
    () => {
        fn save_state(&self) -> Option<Result<Vec<u8>, $crate::SamplerError>> {
            Some($crate::chain::encode_state(self))
        }
        fn checkpointable(&self) -> bool {
            true
        }
        fn restore_state(&mut self, state: &[u8]) -> Result<(), $crate::SamplerError> {
            *self = $crate::chain::decode_state(state)?;
            Ok(())
        }
    };
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

/// Where a chain stood after `iteration` iterations: enough to go on byte-identically on any
/// worker, plus the rows it recorded since the previous checkpoint (rows are never
/// sent twice: the receiver keeps them).
#[derive(Debug, Clone, PartialEq)]
pub struct Checkpoint {
    /// Iterations completed; the chain goes on with iteration `iteration + 1`.
    pub iteration: u64,
    /// [`Sampler::save_state`]'s bytes.
    pub sampler_state: Vec<u8>,
    /// The chain RNG's position: ChaCha's word position in the chain's one stream.
    pub rng_word_pos: u128,
    /// Rows recorded since the previous checkpoint (or since the start or the resume point):
    /// iteration numbers, row-major draws, row-major sampler statistics, wall-clock seconds.
    pub iterations: Vec<u64>,
    pub trace: Vec<f64>,
    pub stats: Vec<f64>,
    pub elapsed_seconds: Vec<f64>,
}

/// Where a chain goes on from: a [`Checkpoint`]'s state, without its rows.
#[derive(Debug, Clone, Copy)]
pub struct Resume<'a> {
    /// Iterations already done.
    pub iteration: u64,
    pub sampler_state: &'a [u8],
    pub rng_word_pos: u128,
    /// Wall-clock seconds the chain had run when it was saved, added to the new timings.
    pub elapsed_offset: f64,
}

/// When a chain saves a checkpoint: after every `iterations` iterations, or once `seconds` of
/// wall-clock time have passed since the last one, whichever comes first (`None`: never by that
/// rule). Neither changes a chain's output, only how much work a lost chain loses.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct CheckpointEvery {
    pub iterations: Option<u64>,
    pub seconds: Option<f64>,
    /// Also save one after the last iteration (its rows are then the checkpoint's and the
    /// output has none): the state a convergence-driven run extends the chain from
    /// (§2), set by the coordinator.
    pub at_end: bool,
}

/// How a chain is driven from outside: progress, cancellation, resume and checkpoints.
pub struct ChainControl<'a> {
    /// Called after every iteration with `(done, total)`.
    pub progress: &'a mut dyn FnMut(u64, u64),
    /// Checked between iterations; once set, the chain stops with [`SamplerError::Cancelled`].
    pub cancel: &'a AtomicBool,
    /// Go on from this checkpoint instead of starting at iteration 1.
    pub resume: Option<Resume<'a>>,
    pub every: CheckpointEvery,
    /// Receives each checkpoint; an error stops the chain with it.
    pub on_checkpoint: &'a mut dyn FnMut(Checkpoint) -> Result<(), SamplerError>,
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
    drive_chain(
        sampler,
        spec,
        rng,
        ChainControl {
            progress,
            cancel,
            resume: None,
            every: CheckpointEvery::default(),
            on_checkpoint: &mut |_| Ok(()),
        },
    )
}

/// The chain driver. `sampler` and `rng` are freshly built from the chain's seed; with
/// `ctl.resume` the sampler's state and the RNG's position are first set from the checkpoint,
/// and the chain goes on from there. The output then holds only the rows recorded after the
/// last checkpoint handed to `ctl.on_checkpoint` (or after the resume point): the chain's whole
/// trace is the resume point's rows, every checkpoint's rows and the output's, in that order,
/// and it is the same, bit for bit, however often the chain was saved, stopped and resumed.
///
/// A sampler whose [`Sampler::save_state`] is `None` is never checkpointed. Errors: those of
/// [`run_chain`]; a resume point past `spec.iterations` or a state the sampler refuses
/// ([`SamplerError::Checkpoint`]); an error of `ctl.on_checkpoint`.
pub fn drive_chain(
    sampler: &mut dyn Sampler,
    spec: &RunSpec,
    rng: &mut ChainRng,
    ctl: ChainControl<'_>,
) -> Result<ChainOutput, SamplerError> {
    let ChainControl {
        progress,
        cancel,
        resume,
        every,
        on_checkpoint,
    } = ctl;
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
    let (first, elapsed_offset) = match resume {
        None => (1, 0.0),
        Some(r) => {
            if r.iteration > spec.iterations {
                return Err(SamplerError::Checkpoint(format!(
                    "checkpoint at iteration {} of a {}-iteration chain",
                    r.iteration, spec.iterations
                )));
            }
            sampler
                .restore_state(r.sampler_state)
                .map_err(|e| SamplerError::Checkpoint(e.to_string()))?;
            rng.set_word_pos(r.rng_word_pos);
            (r.iteration + 1, r.elapsed_offset)
        }
    };
    let checkpoints = (every.iterations.is_some() || every.seconds.is_some() || every.at_end)
        && sampler.checkpointable();
    let mut last_checkpoint = Instant::now();
    let mut row = Vec::with_capacity(out.trace_names.len());
    for it in first..=spec.iterations {
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
            out.elapsed_seconds
                .push(elapsed_offset + start.elapsed().as_secs_f64());
        }
        progress(it, spec.iterations);
        let due = every.iterations.is_some_and(|k| k > 0 && it % k == 0)
            || every
                .seconds
                .is_some_and(|s| last_checkpoint.elapsed().as_secs_f64() >= s);
        let last = it == spec.iterations;
        if checkpoints && ((due && !last) || (last && every.at_end)) {
            let sampler_state = sampler
                .save_state()
                .unwrap_or_else(|| Err(SamplerError::InvalidState("state vanished".into())))?;
            on_checkpoint(Checkpoint {
                iteration: it,
                sampler_state,
                rng_word_pos: rng.get_word_pos(),
                iterations: std::mem::take(&mut out.iterations),
                trace: std::mem::take(&mut out.trace),
                stats: std::mem::take(&mut out.stats),
                elapsed_seconds: std::mem::take(&mut out.elapsed_seconds),
            })?;
            last_checkpoint = Instant::now();
        }
    }
    out.summary = sampler.summary();
    Ok(out)
}

#[cfg(all(test, feature = "testing"))]
mod tests;

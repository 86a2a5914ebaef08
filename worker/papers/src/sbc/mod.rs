//! Simulation-based calibration (SBC; Talts, Betancourt, Simpson, Vehtari & Gelman 2018,
//! "Validating Bayesian inference algorithms with simulation-based calibration", Algorithm 1).
//!
//! One SBC *simulation* is one replicate of a grid cell whose `params` carry an `sbc` key (the
//! coordinator puts it there from the experiment's `sbc:` block):
//! 1. the coordinator draws θ̃ from the prior ([`Model::sample_prior`]) and a dataset from the
//!    model given θ̃ ([`Model::simulate`]) on the replicate's dataset stream
//!    ([`build_dataset`]); the ranked scalars θ̃ travel with the data as the 1 × P matrix
//!    [`TRUTH`] (observed, so the worker receives it; also stored as truth);
//! 2. the worker builds the model's sampler on that data and wraps it in an [`SbcSampler`]
//!    ([`chain_sampler`]), which keeps L = `draws` posterior draws, one every `thin` iterations
//!    after burn-in, and records the rank of each θ̃ among them in the chain's summary
//!    ([`RANKS`]), the one way a chain stores its output.
//!
//! Ranks: `r = #{ℓ : θ_ℓ < θ̃} + U`, U uniform on `0..=#{ℓ : θ_ℓ = θ̃}`, so a discrete scalar
//! (K₊) has ties broken at random; U comes from the chain's evaluation stream
//! ([`crate::seed::evaluation_rng`], the chain's own key on a stream its draws never use). Under a
//! correct sampler, r is uniform on `0..=L`. The uniformity tests are in [`uniformity`].

pub mod draw;
pub mod uniformity;

pub use draw::{PriorDraw, SBC_KEY, TRUTH, unsupported};

use rand::RngExt;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::chain::{RunSpec, Sampler, SamplerError, decode_state, encode_state};
use crate::data::{DataContext, Dataset, Matrix};
use crate::model::Model;
use crate::params::{ParamError, parse};
use crate::seed::{ChainRng, evaluation_rng};

/// Name of the chain summary's 1 × P matrix of ranks (0..=L; column names as [`TRUTH`]).
pub const RANKS: &str = "sbc_rank";
/// Name of the chain summary's 1 × 1 matrix holding L, the number of draws the ranks are among.
pub const DRAWS: &str = "sbc_draws";

/// The resolved `sbc` entry of a cell's `params`: L and the thinning (`thin: auto` already
/// resolved by the coordinator).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SbcSpec {
    /// L, posterior draws each true value is ranked among (≥ 1).
    pub draws: u64,
    /// Iterations between kept draws, counted from the end of burn-in (≥ 1).
    pub thin: u64,
}

impl SbcSpec {
    /// The `thin: auto` rule: the L draws spread evenly over the post-burn-in iterations,
    /// `thin = ⌊(iterations − burn_in) / L⌋` (at least 1), so the kept draws are as far apart,
    /// and hence as close to independent, as the run allows (Talts et al. 2018 §5.1: thin until
    /// the draws are nearly independent; choose `run.iterations` from the chains' ESS).
    pub fn auto_thin(run: &RunSpec, draws: u64) -> u64 {
        (run.iterations.saturating_sub(run.burn_in) / draws.max(1)).max(1)
    }

    /// Post-burn-in iterations the spec needs: `draws × thin`.
    pub fn iterations_needed(&self) -> u64 {
        self.draws.saturating_mul(self.thin)
    }
}

/// Split a cell's `params` into the model's own parameters and the [`SbcSpec`] (`None`: not an
/// SBC cell). Errors: an `sbc` entry that is not `{draws, thin}` with both ≥ 1 (path
/// `params.sbc...`).
pub fn split_params(params: &Value) -> Result<(Value, Option<SbcSpec>), ParamError> {
    let Some(obj) = params.as_object() else {
        return Ok((params.clone(), None));
    };
    let Some(spec) = obj.get(SBC_KEY) else {
        return Ok((params.clone(), None));
    };
    let spec: SbcSpec = parse("params.sbc", spec)?;
    if spec.draws == 0 || spec.thin == 0 {
        return Err(ParamError::new(
            "params.sbc",
            "draws and thin must be at least 1",
        ));
    }
    let mut own = obj.clone();
    own.remove(SBC_KEY);
    Ok((Value::Object(own), Some(spec)))
}

/// One replicate's dataset, as the coordinator builds it: [`Model::dataset`] for an ordinary
/// cell; for an SBC cell, θ̃ from [`Model::sample_prior`] and data from [`Model::simulate`],
/// both on `rng` (the replicate's dataset stream, so simulation s depends on s only), with
/// [`TRUTH`] added to the observed and the truth matrices.
pub fn build_dataset(
    model: &dyn Model,
    params: &Value,
    dataset: &Value,
    ctx: &DataContext,
    rng: &mut ChainRng,
) -> Result<Dataset, ParamError> {
    match split_params(params)? {
        (_, None) => model.dataset(dataset, ctx, rng),
        (own, Some(_)) => {
            let draw = model.sample_prior(&own, dataset, rng)?;
            let mut data = model.simulate(&own, dataset, &draw, rng)?;
            let truth = draw.truth_matrix();
            data.observed.push(truth.clone());
            data.truth.push(truth);
            Ok(data)
        }
    }
}

/// A chain's sampler, as the worker builds it: [`Model::sampler`] on the model's own parameters,
/// wrapped in an [`SbcSampler`] for an SBC cell. Errors: those of [`Model::sampler`]; an SBC cell
/// whose data lacks [`TRUTH`] or ranks a scalar the sampler does not trace.
pub fn chain_sampler(
    model: &dyn Model,
    params: &Value,
    data: &Dataset,
    rng: &mut ChainRng,
) -> Result<Box<dyn Sampler>, SamplerError> {
    let (own, spec) = split_params(params).map_err(|e| SamplerError::Input(e.to_string()))?;
    #[cfg(feature = "testing")]
    let inner = crate::testing::defect::sampler(model, &own, data, rng)?;
    #[cfg(not(feature = "testing"))]
    let inner = model.sampler(&own, data, rng)?;
    match spec {
        None => Ok(inner),
        Some(spec) => {
            let truth = data.observed(TRUTH).ok_or_else(|| {
                SamplerError::Input(format!("an SBC chain's data has no `{TRUTH}` matrix"))
            })?;
            Ok(Box::new(SbcSampler::new(inner, truth, spec, rng)?))
        }
    }
}

/// The rank of `truth` among `draws` (0..=L): the draws below it, plus a uniform share of the
/// ties drawn from `rng`.
pub fn rank(truth: f64, draws: &[f64], rng: &mut ChainRng) -> u64 {
    let below = draws.iter().filter(|&&d| d < truth).count() as u64;
    let ties = draws.iter().filter(|&&d| d == truth).count() as u64;
    below
        + if ties > 0 {
            rng.random_range(0..=ties)
        } else {
            0
        }
}

/// Wraps a chain's sampler: records the same trace and summaries, and also keeps one draw of
/// each ranked scalar every `thin` iterations after burn-in, up to L; once it has L it ranks the
/// truth among them ([`rank`]) and adds [`RANKS`] and [`DRAWS`] to the summary. Checkpoints
/// when the inner sampler does (its state is saved inside this one's).
pub struct SbcSampler {
    inner: Box<dyn Sampler>,
    st: SbcState,
}

#[derive(Serialize, Deserialize)]
struct SbcState {
    spec: SbcSpec,
    names: Vec<String>,
    /// Trace columns of the ranked scalars.
    cols: Vec<usize>,
    truth: Vec<f64>,
    /// Post-burn-in iterations seen.
    seen: u64,
    /// Kept draws, one Vec per ranked scalar.
    kept: Vec<Vec<f64>>,
    ranks: Option<Vec<u64>>,
    ties: ChainRng,
    /// The inner sampler's saved state, only inside a checkpoint.
    #[serde(default)]
    inner: Vec<u8>,
}

impl SbcSampler {
    /// Wrap `inner`, ranking the columns of `truth` (1 × P, column names = trace names of
    /// `inner`). `rng` is the chain's stream; only its identity is used ([`evaluation_rng`]).
    /// Errors: a truth column that `inner` does not trace, or a malformed `truth`.
    pub fn new(
        inner: Box<dyn Sampler>,
        truth: &Matrix,
        spec: SbcSpec,
        rng: &ChainRng,
    ) -> Result<Self, SamplerError> {
        if truth.rows != 1
            || truth.col_names.len() != truth.cols
            || truth.values.len() != truth.cols
        {
            return Err(SamplerError::Input(format!(
                "`{TRUTH}` must be 1 × P with P column names"
            )));
        }
        let trace = inner.trace_names();
        let cols = truth
            .col_names
            .iter()
            .map(|n| {
                trace.iter().position(|t| t == n).ok_or_else(|| {
                    SamplerError::Input(format!(
                        "SBC ranks {n:?}, which this sampler does not trace ({})",
                        trace.join(", ")
                    ))
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(SbcSampler {
            inner,
            st: SbcState {
                spec,
                names: truth.col_names.clone(),
                kept: vec![Vec::with_capacity(spec.draws as usize); cols.len()],
                cols,
                truth: truth.values.clone(),
                seen: 0,
                ranks: None,
                ties: evaluation_rng(rng),
                inner: Vec::new(),
            },
        })
    }

    /// The ranks, once L draws were kept.
    pub fn ranks(&self) -> Option<&[u64]> {
        self.st.ranks.as_deref()
    }
}

impl Sampler for SbcSampler {
    fn trace_names(&self) -> Vec<String> {
        self.inner.trace_names()
    }
    fn begin(&mut self, spec: &RunSpec) {
        self.inner.begin(spec);
    }
    fn step(&mut self, rng: &mut ChainRng) -> Result<(), SamplerError> {
        self.inner.step(rng)
    }
    fn record(&self, row: &mut Vec<f64>) {
        self.inner.record(row);
    }
    fn stat_names(&self) -> Vec<String> {
        self.inner.stat_names()
    }
    fn record_stats(&self, row: &mut Vec<f64>) {
        self.inner.record_stats(row);
    }
    fn accumulate(&mut self) {
        self.inner.accumulate();
        let st = &mut self.st;
        st.seen += 1;
        if st.ranks.is_some() || !st.seen.is_multiple_of(st.spec.thin) {
            return;
        }
        let mut row = Vec::new();
        self.inner.record(&mut row);
        for (kept, &c) in st.kept.iter_mut().zip(&st.cols) {
            kept.push(row.get(c).copied().unwrap_or(f64::NAN));
        }
        if st.kept.first().map_or(0, Vec::len) as u64 >= st.spec.draws {
            let ranks = st
                .truth
                .iter()
                .zip(&st.kept)
                .map(|(&t, d)| rank(t, d, &mut st.ties))
                .collect();
            st.ranks = Some(ranks);
        }
    }
    /// The inner summary, then [`RANKS`] (NaN for every scalar if the run kept fewer than L
    /// draws) and [`DRAWS`].
    fn summary(&self) -> Vec<Matrix> {
        let mut out = self.inner.summary();
        let p = self.st.names.len();
        let values = match &self.st.ranks {
            Some(r) => r.iter().map(|&x| x as f64).collect(),
            None => vec![f64::NAN; p],
        };
        let mut ranks = Matrix::new(RANKS, 1, p, values);
        ranks.col_names = self.st.names.clone();
        out.push(ranks);
        out.push(Matrix::new(DRAWS, 1, 1, vec![self.st.spec.draws as f64]));
        out
    }
    fn save_state(&self) -> Option<Result<Vec<u8>, SamplerError>> {
        let inner = match self.inner.save_state()? {
            Ok(b) => b,
            Err(e) => return Some(Err(e)),
        };
        let st = SbcState {
            spec: self.st.spec,
            names: self.st.names.clone(),
            cols: self.st.cols.clone(),
            truth: self.st.truth.clone(),
            seen: self.st.seen,
            kept: self.st.kept.clone(),
            ranks: self.st.ranks.clone(),
            ties: self.st.ties.clone(),
            inner,
        };
        Some(encode_state(&st))
    }
    fn checkpointable(&self) -> bool {
        self.inner.checkpointable()
    }
    fn restore_state(&mut self, state: &[u8]) -> Result<(), SamplerError> {
        let mut st: SbcState = decode_state(state)?;
        self.inner.restore_state(&std::mem::take(&mut st.inner))?;
        self.st = st;
        Ok(())
    }
}

/// Builds a chain's sampler from the model's own params, the data and the chain's stream (as
/// [`Model::sampler`] does; a test may switch a defect on).
pub type MakeSampler<'a> =
    dyn Fn(&Value, &Dataset, &mut ChainRng) -> Result<Box<dyn Sampler>, SamplerError> + 'a;

/// The ranks of one in-process SBC simulation, as the runner would compute them: θ̃ and data
/// from [`build_dataset`] on `rngs.0` (the simulation's dataset stream), `make` builds the
/// chain's sampler, then the chain runs `run` on `rngs.1` (its chain stream).
/// Returns `(scalar names, ranks)`. Errors: those of the model and the chain, or a run too short
/// for L draws.
pub fn simulate_ranks(
    model: &dyn Model,
    params: &Value,
    dataset: &Value,
    spec: SbcSpec,
    run: &RunSpec,
    rngs: (ChainRng, ChainRng),
    make: &MakeSampler<'_>,
) -> Result<(Vec<String>, Vec<u64>), SamplerError> {
    let (mut data_rng, mut chain_rng) = rngs;
    let (data_rng, chain_rng) = (&mut data_rng, &mut chain_rng);
    let mut with = params.clone();
    if let Some(o) = with.as_object_mut() {
        o.insert(
            SBC_KEY.into(),
            serde_json::to_value(spec).map_err(|e| SamplerError::Input(e.to_string()))?,
        );
    }
    let data = build_dataset(
        model,
        &with,
        dataset,
        &DataContext {
            data_dir: std::path::PathBuf::new(),
        },
        data_rng,
    )
    .map_err(|e| SamplerError::Input(e.to_string()))?;
    let truth = data
        .observed(TRUTH)
        .ok_or_else(|| SamplerError::Input(format!("no `{TRUTH}` matrix")))?
        .clone();
    let inner = make(params, &data, chain_rng)?;
    let mut s = SbcSampler::new(inner, &truth, spec, chain_rng)?;
    crate::chain::run_chain(&mut s, run, chain_rng, &mut |_, _| {})?;
    let ranks = s.ranks().map(<[u64]>::to_vec).ok_or_else(|| {
        SamplerError::Input(format!(
            "the run kept fewer than L = {} draws: {} post-burn-in iterations, thin {}",
            spec.draws,
            run.iterations.saturating_sub(run.burn_in),
            spec.thin
        ))
    })?;
    Ok((truth.col_names, ranks))
}

//! In-process simulation-based calibration (Talts et al. 2018) of one grid cell,
//! for the papers' SBC tests: S simulations through [`crate::sbc::simulate_ranks`] (the
//! coordinator's dataset stream and the worker's chain stream of simulation s, seeded as a run
//! would seed them), then the χ² and ECDF-difference uniformity tests of each ranked scalar
//! ([`crate::sbc::uniformity`]).

use serde_json::{Value, json};

use crate::chain::{RunSpec, SamplerError};
use crate::model::Model;
use crate::sbc::uniformity::{chi_square, default_bins, ecdf_test};
use crate::sbc::{MakeSampler, SbcSpec, simulate_ranks};
use crate::seed::{chain_rng, dataset_rng, stable_hash};

/// What to run: S simulations of L draws, the chain's run, and the seeds.
#[derive(Debug, Clone, Copy)]
pub struct SbcCheck {
    /// S, simulations (each its own dataset and chain).
    pub simulations: u64,
    /// L and the thinning.
    pub spec: SbcSpec,
    /// Iterations and burn-in of each chain (`thin` 1).
    pub run: RunSpec,
    /// The experiment seed of [`dataset_rng`] and [`chain_rng`] (the cell key is the hash of
    /// `params` and `dataset`, as the coordinator's).
    pub seed: u64,
    /// Seed of the ECDF test's 10,000 null simulations.
    pub ecdf_seed: u64,
}

/// The two uniformity p-values of one ranked scalar.
#[derive(Debug, Clone, PartialEq)]
pub struct SbcPValues {
    /// Trace name of the scalar.
    pub name: String,
    /// χ² test over [`default_bins`] bins.
    pub chi_square: f64,
    /// ECDF-difference test (simultaneous 95% band).
    pub ecdf: f64,
}

/// Run the check on the cell (`params`, `dataset`), each chain's sampler built by `make`.
/// Errors: those of [`simulate_ranks`].
pub fn sbc_p_values(
    model: &dyn Model,
    params: &Value,
    dataset: &Value,
    check: &SbcCheck,
    make: &MakeSampler<'_>,
) -> Result<Vec<SbcPValues>, SamplerError> {
    let cell = stable_hash(
        json!({"params": params, "dataset": dataset})
            .to_string()
            .as_bytes(),
    );
    let mut names = Vec::new();
    let mut ranks: Vec<Vec<u64>> = Vec::new();
    for s in 0..check.simulations {
        let rngs = (
            dataset_rng(check.seed, cell, s),
            chain_rng(check.seed, cell, s, 0),
        );
        let (n, r) = simulate_ranks(model, params, dataset, check.spec, &check.run, rngs, make)?;
        names = n;
        ranks.resize(r.len(), Vec::new());
        for (acc, v) in ranks.iter_mut().zip(r) {
            acc.push(v);
        }
    }
    let draws = check.spec.draws;
    let bins = default_bins(check.simulations as usize, draws);
    Ok(names
        .into_iter()
        .zip(ranks)
        .map(|(name, r)| SbcPValues {
            name,
            chi_square: chi_square(&r, draws, bins).p_value,
            ecdf: ecdf_test(&r, draws, 0.95, 10_000, check.ecdf_seed).p_value,
        })
        .collect())
}

/// The smallest p-value of all scalars and both tests (1 if there are none).
pub fn worst_p_value(p: &[SbcPValues]) -> f64 {
    p.iter()
        .map(|x| x.chi_square.min(x.ecdf))
        .fold(1.0, f64::min)
}

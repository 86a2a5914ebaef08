//! What a paper's model is to the runner: the [`Model`] trait (validation, datasets, samplers and
//! SBC for one grid cell), and the deliberate-bug switch that a `testing` build reads. The models
//! themselves are listed in [`crate::registry`].

use serde_json::Value;

use crate::chain::{Sampler, SamplerError};
use crate::data::{DataContext, Dataset};
use crate::params::ParamError;
use crate::sbc::draw::{PriorDraw, unsupported};
use crate::seed::ChainRng;

/// A paper's model: validation, datasets, and samplers for one grid cell.
///
/// A cell is three JSON objects built from the YAML: `params` (the sampler's settings and
/// hyperparameters), `dataset` (what data to build), and the run length (see
/// [`crate::RunSpec`]).
pub trait Model: Send + Sync {
    /// Registry name, as written in the YAML `model:` key (e.g. `wood2006`).
    fn name(&self) -> &'static str;

    /// Check a cell's `params` and `dataset` before any chain starts. Errors carry the path of
    /// the offending value (`params.lambda`, `dataset.n_observed`, ...).
    fn validate(&self, params: &Value, dataset: &Value) -> Result<(), ParamError>;

    /// Every scalar any of this model's samplers records in its trace that a YAML may list
    /// under `monitor:` (R-hat and ESS per cell). Checked before any chain runs.
    fn monitors(&self) -> &'static [&'static str];

    /// Check a cell's `params` against its data (the first replicate of its dataset, built by
    /// the coordinator before any chain runs): what cannot be checked without the data, such as
    /// a node's number of categories or a column name. Errors carry the path `params.<key>`.
    /// Default: nothing to check.
    fn check_cell(&self, params: &Value, data: &Dataset) -> Result<(), ParamError> {
        let _ = (params, data);
        Ok(())
    }

    /// Build replicate data for the `dataset` spec: generate it from `rng` (synthetic) or read
    /// it from `ctx` (real data). Runs on the coordinator, never on a worker.
    fn dataset(
        &self,
        dataset: &Value,
        ctx: &DataContext,
        rng: &mut ChainRng,
    ) -> Result<Dataset, ParamError>;

    /// Build the sampler for one chain from the cell's `params` and the observed data.
    fn sampler(
        &self,
        params: &Value,
        data: &Dataset,
        rng: &mut ChainRng,
    ) -> Result<Box<dyn Sampler>, SamplerError>;

    /// [`Model::sampler`] with the deliberately broken kernel `defect` (a variant name of the
    /// paper's `Defect` enum) switched on: whole experiments with a defect, for the power of the
    /// statistical check (`crate::testing::defect`). Only with the `testing` feature. Errors:
    /// those of [`Model::sampler`]; [`SamplerError::Input`] for a name that is not one of the
    /// model's variants. A method without that kernel (an exact method, a score) runs
    /// unchanged, so that one switch covers a whole experiment. Default: that error for every
    /// name (a model without switches).
    #[cfg(feature = "testing")]
    fn sampler_with_defect(
        &self,
        params: &Value,
        data: &Dataset,
        rng: &mut ChainRng,
        defect: &str,
    ) -> Result<Box<dyn Sampler>, SamplerError> {
        let _ = (params, data, rng);
        Err(SamplerError::Input(format!(
            "model {} has no deliberate-bug switch `{defect}`",
            self.name()
        )))
    }

    /// Simulation-based calibration, step 1 ([`crate::sbc`]): draw the parameters θ̃ from the
    /// prior that the cell's `params` (without their `sbc` key) give, for data of the shape
    /// `dataset` gives. The ranked scalars are named as the sampler traces them. Runs on the
    /// coordinator, on the replicate's dataset stream. Default: the error
    /// "SBC not supported by <model>".
    fn sample_prior(
        &self,
        params: &Value,
        dataset: &Value,
        rng: &mut ChainRng,
    ) -> Result<PriorDraw, ParamError> {
        let _ = (params, dataset, rng);
        Err(unsupported(self.name()))
    }

    /// SBC step 2: simulate a dataset (observed matrices as [`Model::dataset`] builds them, the
    /// latent truth as truth matrices) from the model given `draw`. Default: the error
    /// "SBC not supported by <model>".
    fn simulate(
        &self,
        params: &Value,
        dataset: &Value,
        draw: &PriorDraw,
        rng: &mut ChainRng,
    ) -> Result<Dataset, ParamError> {
        let _ = (params, dataset, draw, rng);
        Err(unsupported(self.name()))
    }
}

/// The environment variable that names the deliberately broken kernel of every chain a process
/// builds, in a `testing` build ([`crate::testing::defect`]); other builds ignore it.
pub const DEFECT_ENV: &str = "CAUSEWAY_DEFECT";

/// Whether this build reads [`DEFECT_ENV`] (the `testing` feature).
pub const DEFECT_SWITCHES: bool = cfg!(feature = "testing");

/// The defect named by [`DEFECT_ENV`], if it is set and not empty, in any build (a build without
/// [`DEFECT_SWITCHES`] only reports it as ignored).
pub fn requested_defect() -> Option<String> {
    std::env::var(DEFECT_ENV)
        .ok()
        .filter(|s| !s.trim().is_empty())
}

/// `$sampler.with_defect($defect)` in a `testing` build, `$sampler` otherwise (where the
/// `Option<Defect>` is always `None`): one body for [`Model::sampler`] and
/// [`Model::sampler_with_defect`].
macro_rules! with_defect {
    ($sampler:expr, $defect:expr) => {{
        #[cfg(feature = "testing")]
        {
            $sampler.with_defect($defect)
        }
        #[cfg(not(feature = "testing"))]
        {
            let _ = $defect;
            $sampler
        }
    }};
}
pub(crate) use with_defect;

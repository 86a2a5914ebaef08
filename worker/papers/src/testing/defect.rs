//! Whole experiments with a deliberately broken kernel (the power of
//! `causeway check --statistical`): a build with the `testing` feature reads the environment
//! variable [`DEFECT_ENV`] when the worker builds a chain's sampler, and switches that `Defect`
//! variant on through the model's [`Model::sampler_with_defect`]. Builds without the feature
//! (the binary of `make build` and `make reproduce`; `make power` builds the one with it, in
//! `target/testing/`) never act on it, so a YAML or a stray environment
//! variable cannot run a broken kernel in production.
//!
//! The value is the variant's name as its enum spells it (`DropPriorTerm`,
//! `MtmWithoutCurrent`, …), parsed by the model that runs, which lists its variants in the error
//! when the name is not one of them.
//!
//! [`Model::sampler_with_defect`]: crate::model::Model::sampler_with_defect

use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::chain::{Sampler, SamplerError};
use crate::data::Dataset;
use crate::model::Model;
use crate::seed::ChainRng;

pub use crate::model::DEFECT_ENV;

/// A model's `Defect` variant from its name. Errors: [`SamplerError::Input`] naming the variable,
/// the value and the model's variants (serde's "expected one of …").
pub fn parse<D: DeserializeOwned>(model: &str, name: &str) -> Result<D, SamplerError> {
    serde_json::from_value(Value::String(name.trim().to_string())).map_err(|e| {
        SamplerError::Input(format!(
            "{DEFECT_ENV}={name}: not a deliberate-bug switch of model {model}: {e}"
        ))
    })
}

/// The chain's sampler: [`Model::sampler`], or with the defect of [`DEFECT_ENV`] switched on.
pub fn sampler(
    model: &dyn Model,
    params: &Value,
    data: &Dataset,
    rng: &mut ChainRng,
) -> Result<Box<dyn Sampler>, SamplerError> {
    match crate::model::requested_defect() {
        None => model.sampler(params, data, rng),
        Some(d) => model.sampler_with_defect(params, data, rng, &d),
    }
}

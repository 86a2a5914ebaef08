//! Placeholder: being written. The model refuses every cell until its samplers land.
use serde_json::Value;

use crate::chain::{Sampler, SamplerError};
use crate::data::{DataContext, Dataset};
use crate::params::ParamError;
use crate::registry::Model;
use crate::seed::ChainRng;

/// Registry entry for this paper.
pub struct Wood2006;

impl Model for Wood2006 {
    fn name(&self) -> &'static str {
        "wood2006"
    }
    fn validate(&self, _params: &Value, _dataset: &Value) -> Result<(), ParamError> {
        Err(ParamError::new("model", "not available yet"))
    }
    fn dataset(&self, _dataset: &Value, _ctx: &DataContext, _rng: &mut ChainRng) -> Result<Dataset, ParamError> {
        Err(ParamError::new("model", "not available yet"))
    }
    fn sampler(&self, _p: &Value, _d: &Dataset, _r: &mut ChainRng) -> Result<Box<dyn Sampler>, SamplerError> {
        Err(SamplerError::Input("not available yet".into()))
    }
}

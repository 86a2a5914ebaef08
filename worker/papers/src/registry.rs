//! The model registry: how the runner finds a paper's model by name without knowing it.
//!
//! Adding a model means implementing [`Model`] in the paper's module and adding one line to
//! [`MODELS`]; the coordinator, the worker and the store do not change.

use crate::model::Model;
use crate::params::ParamError;

/// Every model causeway knows.
pub static MODELS: &[&dyn Model] = &[
    &crate::wood2006::Wood2006,
    &crate::kurutmaz2019::Kurutmaz2019,
    &crate::hidden2025::Hidden2025,
    &crate::dallaire2014::Dallaire2014,
];

/// Look a model up by name. The error lists the allowed names.
pub fn model(name: &str) -> Result<&'static dyn Model, ParamError> {
    MODELS
        .iter()
        .copied()
        .find(|m| m.name() == name)
        .ok_or_else(|| {
            let names: Vec<&str> = MODELS.iter().map(|m| m.name()).collect();
            ParamError::new(
                "model",
                format!(
                    "unknown model {name:?}: allowed values are {}",
                    names.join(", ")
                ),
            )
        })
}

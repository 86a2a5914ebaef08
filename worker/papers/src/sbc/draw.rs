//! A draw of a model's parameters from their prior, as [`crate::model::Model::sample_prior`]
//! gives it and [`crate::model::Model::simulate`] takes it.

use crate::data::Matrix;
use crate::params::ParamError;

/// The key of a cell's `params` that makes its chains SBC simulations (set by the coordinator,
/// never read by a model's own parser).
pub const SBC_KEY: &str = "sbc";
/// Name of the 1 × P matrix of true values θ̃ (column names: the ranked scalars, trace names of
/// the sampler), in the simulated dataset's observed and truth matrices.
pub const TRUTH: &str = "sbc_truth";

/// A draw of the model's parameters from their prior: the scalars SBC ranks (each named as the
/// sampler traces it) and whatever else the model's [`crate::model::Model::simulate`] needs (latent matrices
/// such as Z and Y).
#[derive(Debug, Clone, PartialEq)]
pub struct PriorDraw {
    /// `(trace name, value)` of every ranked scalar, in a fixed order.
    pub scalars: Vec<(String, f64)>,
    /// Latent structure and fixed values, by name (model-specific).
    pub latent: Vec<Matrix>,
}

impl PriorDraw {
    /// The ranked scalar called `name`.
    pub fn scalar(&self, name: &str) -> Option<f64> {
        self.scalars.iter().find(|(n, _)| n == name).map(|x| x.1)
    }

    /// The scalars as the 1 × P [`TRUTH`] matrix.
    pub fn truth_matrix(&self) -> Matrix {
        let mut m = Matrix::new(
            TRUTH,
            1,
            self.scalars.len(),
            self.scalars.iter().map(|x| x.1).collect(),
        );
        m.col_names = self.scalars.iter().map(|x| x.0.clone()).collect();
        m
    }
}

/// The error of [`crate::model::Model::sample_prior`] and [`crate::model::Model::simulate`] for a model that has neither.
pub fn unsupported(model: &str) -> ParamError {
    ParamError::new(
        SBC_KEY,
        format!("SBC not supported by {model}: it has no sample_prior/simulate"),
    )
}

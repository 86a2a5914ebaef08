//! # hidden2025 — HiDDeN: hierarchical Dirichlet priors for discrete Bayesian networks
//!
//! Paper `002_d97ecc788b964f97.txt` (main text, then supplement A–H). Each node j of a discrete
//! Bayesian network has conditional probabilities π_{j|Pa(j)}(· | x_Pa) ~ Dir(t_j) independently
//! over its parent configurations, with a shared hyperparameter t_j(x) ~ Gamma(ρ_j/k_j, b_j) per
//! category (eq. 5); t_j is sampled by MALA-within-Gibbs (Algorithm 1) and the structure (edges,
//! parent sets, DAGs) by Gibbs steps with t fixed (Algorithms 2–4).
//!
//! The paper's folder has the shape of every paper: `datasets.rs` (discrete data and its
//! contingency tables), `equations.rs`, `params.rs`, `samplers/`, `evaluation.rs`, and
//! `prior.rs` (the prior draw and simulator of simulation-based calibration for Algorithms 1
//! and 2, dataset kind `prior_predictive`).

pub mod datasets;
pub mod equations;
pub mod evaluation;
pub mod params;
pub mod prior;
pub mod samplers;

use serde_json::Value;

use crate::chain::{Sampler, SamplerError};
use crate::data::{DataContext, Dataset};
use crate::model::Model;
use crate::params::ParamError;
use crate::seed::ChainRng;
use datasets::DiscreteData;
use params::{Method, Params};
use samplers::{
    DagGibbsSampler, DagSampler, ExactSampler, HiddenSampler, MmleSampler, ParentSetSampler,
};

/// The sampler of `params.method` on the dataset's discrete matrices, with `defect` switched on
/// (always `None` without the `testing` feature; `exact` and `mmle` run unchanged).
fn build_sampler(
    params: &Value,
    data: &Dataset,
    rng: &mut ChainRng,
    defect: Option<samplers::Defect>,
) -> Result<Box<dyn Sampler>, SamplerError> {
    use crate::model::with_defect;
    let p = Params::from_value("params", params).map_err(|e| SamplerError::Input(e.to_string()))?;
    let d = DiscreteData::from_matrices(&data.observed).map_err(SamplerError::Input)?;
    Ok(match p.method {
        Method::Exact => Box::new(ExactSampler::new(&d, &p)?),
        Method::Mmle => Box::new(MmleSampler::new(&d, &p)?),
        Method::Mala | Method::Edges => {
            Box::new(with_defect!(HiddenSampler::new(&d, &p, rng)?, defect))
        }
        Method::ParentSets => Box::new(with_defect!(ParentSetSampler::new(&d, &p, rng)?, defect)),
        Method::Dags => Box::new(with_defect!(DagSampler::new(&d, &p, rng)?, defect)),
        Method::Dag => Box::new(with_defect!(DagGibbsSampler::new(&d, &p, rng)?, defect)),
    })
}

/// Registry entry for this paper (`model: hidden2025`).
pub struct Hidden2025;

impl Model for Hidden2025 {
    fn name(&self) -> &'static str {
        "hidden2025"
    }

    /// Parse and range-check `params` ([`Params::from_value`]) and `dataset`
    /// ([`datasets::parse_dataset`]); the checks that need the data are in
    /// [`Model::check_cell`].
    fn validate(&self, params: &Value, dataset: &Value) -> Result<(), ParamError> {
        Params::from_value("params", params)?;
        datasets::parse_dataset(dataset)?;
        Ok(())
    }

    fn monitors(&self) -> &'static [&'static str] {
        &[
            "log_posterior",
            "n_parents",
            "n_edges",
            "parent_set",
            "dag",
            "log_evidence",
            "mmle_objective",
            "t_0",
            "t_1",
            "t_2",
            "t_3",
        ]
    }

    /// Resolve `params` against the data: the node, parents and candidates are columns, the
    /// node is not its own parent, `step_sizes` and `t0` have k_j values, `exact` has k_j ≤ 3.
    fn check_cell(&self, params: &Value, data: &Dataset) -> Result<(), ParamError> {
        let p = Params::from_value("params", params)?;
        let d = DiscreteData::from_matrices(&data.observed)
            .map_err(|e| ParamError::new("dataset", e))?;
        p.resolve("params", &d)?;
        Ok(())
    }

    /// Build a replicate (see [`datasets::DatasetSpec::build`]).
    fn dataset(
        &self,
        dataset: &Value,
        ctx: &DataContext,
        rng: &mut ChainRng,
    ) -> Result<Dataset, ParamError> {
        datasets::parse_dataset(dataset)?.build(ctx, rng)
    }

    /// [`HiddenSampler`] (Algorithm 1, or 1 + 2), [`ParentSetSampler`] (1 + 3), [`DagSampler`]
    /// (1 + 4), [`DagGibbsSampler`] (§4.4, node by node), [`ExactSampler`] or [`MmleSampler`]
    /// (supplement G) on the observed discrete data (`x`, n × p codes, with its `levels:<name>`
    /// matrices).
    fn sampler(
        &self,
        params: &Value,
        data: &Dataset,
        rng: &mut ChainRng,
    ) -> Result<Box<dyn Sampler>, SamplerError> {
        build_sampler(params, data, rng, None)
    }

    /// The cell's sampler with a [`samplers::Defect`] switched on (MCMC methods only).
    #[cfg(feature = "testing")]
    fn sampler_with_defect(
        &self,
        params: &Value,
        data: &Dataset,
        rng: &mut ChainRng,
        defect: &str,
    ) -> Result<Box<dyn Sampler>, SamplerError> {
        let d = crate::testing::defect::parse(self.name(), defect)?;
        build_sampler(params, data, rng, Some(d))
    }

    /// θ̃ for `method: mala` (t_j) or `edges` (t_j and the edge indicators) from eq 5 and the
    /// Beta(c, d) edge prior ([`prior::sample_prior`]); ranked: `n_parents` (`edges`),
    /// `t_0` … `t_{k−1}`, `z_0` … (`edges`).
    fn sample_prior(
        &self,
        params: &Value,
        dataset: &Value,
        rng: &mut ChainRng,
    ) -> Result<crate::sbc::PriorDraw, ParamError> {
        prior::sample_prior(params, dataset, rng)
    }

    /// Covariates iid uniform, the node from Dir(t_j) given its true parents
    /// ([`prior::simulate`]).
    fn simulate(
        &self,
        params: &Value,
        dataset: &Value,
        draw: &crate::sbc::PriorDraw,
        rng: &mut ChainRng,
    ) -> Result<Dataset, ParamError> {
        prior::simulate(params, dataset, draw, rng)
    }
}

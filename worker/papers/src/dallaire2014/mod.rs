//! # dallaire2014 — deep belief-network structure with the CIBP and the extended cascading IBP
//!
//! Paper `004_74db43a26dbf0fa1.txt` (Dallaire, Giguère & Chaib-draa, AAAI 2014; the extracted
//! text carries no year). A network of continuous nonlinear units: layer 0 holds the D observed
//! units, hidden units sit in layers m ≥ 1, and each unit computes a_i = γ_i + Σ_k Z_ik W_ik u_k + ε
//! with ε ~ N(0, 1/ν_i) and u_i = σ(a_i) (eqs 1–2). The structure has the cascading IBP prior
//! (eqs 3–7) or its extension with jump connections (eCIBP, eqs 8–9); the MCMC of §4 samples it.
//!
//! The paper's folder has the shape of every paper: `params.rs`, `equations.rs` (every equation
//! under its number), `datasets.rs`, `samplers/`, a polars-free `evaluation.rs` (the KL
//! estimator of Table 1), and `prior.rs` (the prior draws of simulation-based calibration).

pub mod datasets;
pub mod equations;
pub mod evaluation;
pub mod params;
pub mod prior;
pub mod samplers;

use serde_json::Value;

use crate::chain::{Sampler, SamplerError};
use crate::data::{DataContext, Dataset, Matrix};
use crate::model::Model;
use crate::params::ParamError;
use crate::seed::ChainRng;
use params::{Init, Method, ObservedMap, Params};
use samplers::dpmog::DpmogSampler;
use samplers::kde::KdeSampler;
use samplers::{ForwardSampler, NetworkSampler};

/// Registry entry for this paper (`model: dallaire2014`).
pub struct Dallaire2014;

impl Dallaire2014 {
    /// The training matrix `x` and the test matrix (absent for dataset `none`).
    fn matrices(data: &Dataset) -> Result<(&Matrix, Option<&Matrix>), String> {
        let x = data
            .observed("x")
            .ok_or("the dataset has no training matrix `x`")?;
        Ok((x, data.observed("test").filter(|t| t.rows > 0)))
    }

    /// [`NetworkSampler`] (`mcmc`), [`ForwardSampler`] (`forward`), [`KdeSampler`] (`kde`) or
    /// [`DpmogSampler`] (`dpmog`) on the training matrix `x` and the test matrix `test`, with
    /// `defect` switched on (always `None` without the `testing` feature; `forward` and
    /// `kde` run unchanged).
    fn build_sampler(
        params: &Value,
        data: &Dataset,
        rng: &mut ChainRng,
        defect: Option<samplers::Defect>,
    ) -> Result<Box<dyn Sampler>, SamplerError> {
        use crate::model::with_defect;
        let p =
            Params::from_value("params", params).map_err(|e| SamplerError::Input(e.to_string()))?;
        let (x, test) = Self::matrices(data).map_err(SamplerError::Input)?;
        let need_test = || {
            test.ok_or_else(|| {
                SamplerError::Input("this method needs a dataset with a test set".into())
            })
        };
        Ok(match p.method {
            Method::Mcmc => {
                let mut s = with_defect!(NetworkSampler::new(&p, x, test, rng)?, defect);
                if p.init == Init::Truth {
                    let t = data.observed("true_activations").ok_or_else(|| {
                        SamplerError::Input(
                            "init: truth needs a dataset with a known network (kind: ngbn7)".into(),
                        )
                    })?;
                    let truth = datasets::ngbn7::ngbn7_network(s.network(), t)?;
                    s = s.start_at(truth)?;
                }
                // A dataset that ships its true network's activations (ngbn7, §5.2, an
                // evaluation-only matrix like `test`) gets the aligned edge frequencies in the
                // summary.
                match data.observed("true_activations") {
                    Some(t) => Box::new(s.with_alignment(t)?),
                    None => Box::new(s),
                }
            }
            Method::Forward => Box::new(ForwardSampler::new(&p, x, test, rng)?),
            Method::Kde => Box::new(KdeSampler::new(&p, x, need_test()?, rng)?),
            Method::Dpmog => Box::new(with_defect!(
                DpmogSampler::new(&p, x, need_test()?, rng)?,
                defect
            )),
        })
    }
}

impl Model for Dallaire2014 {
    fn name(&self) -> &'static str {
        "dallaire2014"
    }

    /// Parse and range-check `params` ([`Params::from_value`]) and `dataset`
    /// ([`datasets::parse_dataset`]); what needs the data is in [`Model::check_cell`].
    fn validate(&self, params: &Value, dataset: &Value) -> Result<(), ParamError> {
        Params::from_value("params", params)?;
        datasets::parse_dataset(dataset)?;
        Ok(())
    }

    fn monitors(&self) -> &'static [&'static str] {
        &[
            "n_units",
            "n_edges",
            "n_jump_edges",
            "depth",
            "log_joint",
            "kl",
            "k_plus",
            "concentration",
        ]
    }

    /// Check `params` against the data before any chain starts: `kde` and `dpmog` need a test
    /// set; `observed_map: identity` needs every training value in (−1, 1); the DP mixture's ν₀
    /// must exceed d − 1. The sampler is built once on the data (it fits the observed map and
    /// the KL's standardization), so anything it would refuse is refused here.
    fn check_cell(&self, params: &Value, data: &Dataset) -> Result<(), ParamError> {
        let p = Params::from_value("params", params)?;
        let (x, test) = Self::matrices(data).map_err(|e| ParamError::new("dataset", e))?;
        if matches!(p.method, Method::Kde | Method::Dpmog) && test.is_none() {
            return Err(ParamError::new(
                "params.method",
                format!(
                    "{:?} needs a dataset with a test set (dataset `none` has none)",
                    p.method
                )
                .to_lowercase(),
            ));
        }
        if let Some(nu0) = p.dpmog.nu0
            && nu0 <= x.cols as f64 - 1.0
        {
            return Err(ParamError::new(
                "params.dpmog.nu0",
                format!(
                    "{nu0} is out of range: allowed values are ν₀ > d − 1 = {}",
                    x.cols - 1
                ),
            ));
        }
        if p.observed_map == ObservedMap::Identity
            && let Some(v) = x.values.iter().find(|v| v.is_nan() || v.abs() >= 1.0)
        {
            return Err(ParamError::new(
                "params.observed_map",
                format!(
                    "identity needs every training value in (−1, 1), and the data have {v}: use minmax"
                ),
            ));
        }
        // The network samplers are cheap to build: build one on a throwaway stream, so that
        // what it refuses (a constant column under minmax, too few distinct test rows for
        // kl_k, ...) is refused here. The baselines fit a kernel width or a mixture when built
        // (seconds): for them, check what the fit needs, a training set that standardizes.
        match p.method {
            Method::Mcmc | Method::Forward => {
                let mut rng = crate::seed::chain_rng(0, 0, 0, 0);
                self.sampler(params, data, &mut rng)
                    .map(|_| ())
                    .map_err(|e| ParamError::new("params", e.to_string()))
            }
            Method::Kde | Method::Dpmog => evaluation::Standardizer::fit(&x.values, x.rows, x.cols)
                .map(|_| ())
                .map_err(|e| ParamError::new("dataset", format!("training data: {e}"))),
        }
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

    /// [`NetworkSampler`] (`mcmc`), [`ForwardSampler`] (`forward`), [`KdeSampler`] (`kde`) or
    /// [`DpmogSampler`] (`dpmog`) on the training matrix `x` and the test matrix `test`.
    fn sampler(
        &self,
        params: &Value,
        data: &Dataset,
        rng: &mut ChainRng,
    ) -> Result<Box<dyn Sampler>, SamplerError> {
        Self::build_sampler(params, data, rng, None)
    }

    /// The cell's sampler with a [`samplers::Defect`] switched on (`mcmc` and `dpmog` only).
    #[cfg(feature = "testing")]
    fn sampler_with_defect(
        &self,
        params: &Value,
        data: &Dataset,
        rng: &mut ChainRng,
        defect: &str,
    ) -> Result<Box<dyn Sampler>, SamplerError> {
        let d = crate::testing::defect::parse(self.name(), defect)?;
        Self::build_sampler(params, data, rng, Some(d))
    }

    /// θ̃ = a network from the CIBP / eCIBP prior with its W, γ, ν and activations
    /// ([`prior::sample_prior`]); ranked: `n_units`, `n_edges`, `n_jump_edges` (eCIBP), `depth`,
    /// `mean_w`, `mean_gamma`, `mean_ln_nu`.
    fn sample_prior(
        &self,
        params: &Value,
        dataset: &Value,
        rng: &mut ChainRng,
    ) -> Result<crate::sbc::PriorDraw, ParamError> {
        prior::sample_prior(params, dataset, rng)
    }

    /// x = σ(a) of the observed units ([`prior::simulate`]).
    fn simulate(
        &self,
        params: &Value,
        dataset: &Value,
        draw: &crate::sbc::PriorDraw,
        rng: &mut ChainRng,
    ) -> Result<Dataset, ParamError> {
        let _ = params;
        prior::simulate(dataset, draw, rng)
    }
}

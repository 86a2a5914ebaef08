//! The prior and the generative model for simulation-based calibration of PG-CN
//! ([`crate::sbc`]).
//!
//! PG-CN samples the latent classes r^{1:T} with π and the Normal-Gamma parameters integrated out
//! (App. B.3), so θ̃ = r̃ and the ranked scalar is the test quantity `log_joint` =
//! ln p(r̃, x) (App. B.3 closed form, the value PG traces), ranked among ln p(r_ℓ, x) of the
//! posterior draws r_ℓ: a label-free function of (θ, data), valid for SBC (Talts et al. 2018
//! §4.1), where per-label statistics would be confounded by label switching.
//!
//! The thesis' generator draws r_t and x_t together ([`datasets::synthetic`]: π ~ Dirichlet(γ),
//! per-class NG parameters, then r_t and x^t for each t), so [`sample_prior`] runs it whole from
//! the cell's `params` (hypothesis, R, hyperparameters) and T from `dataset: {kind:
//! prior_predictive, n_observations}`; [`simulate`] hands over its x. The data are those `kind:
//! synthetic` would give for the same hyperparameters and stream.

use serde_json::Value;

use super::datasets::{self, DatasetSpec};
use super::params::{Method, parse_params};
use super::samplers::Problem;
use crate::data::{Dataset, Matrix};
use crate::params::ParamError;
use crate::sbc::PriorDraw;
use crate::seed::ChainRng;

/// Draw (π, NG parameters, r̃) and x from the model of `params` (method `pg`), T from `dataset`.
/// Ranked: `log_joint` = ln p(r̃, x). Latent: `x` (2 × T), `r` (T × 1), `pi` (R × 1). Errors:
/// another method, another dataset kind, or a draw the generator refuses.
pub fn sample_prior(
    params: &Value,
    dataset: &Value,
    rng: &mut ChainRng,
) -> Result<PriorDraw, ParamError> {
    let r = parse_params(params)?;
    if r.params.method != Method::Pg {
        return Err(ParamError::new(
            "params.method",
            "SBC ranks ln p(r, x) among posterior draws of r: use method pg",
        ));
    }
    let t_len = match datasets::parse_dataset(dataset)? {
        DatasetSpec::PriorPredictive(s) => s.n_observations,
        _ => {
            return Err(ParamError::new(
                "dataset.kind",
                "SBC simulates its data from the prior: use kind prior_predictive \
                 (n_observations)",
            ));
        }
    };
    let p = &r.params;
    let data = datasets::synthetic(p.hypothesis, p.n_latent, t_len, &r.hyper, rng)?;
    let (Some(x), Some(labels), Some(pi)) = (data.observed("x"), data.truth("r"), data.truth("pi"))
    else {
        return Err(ParamError::new(
            "dataset",
            "the generator gave no x, r or pi",
        ));
    };
    let (a, b) = x.values.split_at(x.cols);
    let classes: Vec<usize> = labels.values.iter().map(|&v| v as usize).collect();
    let log_joint = Problem::new(a, b, p.hypothesis, p.n_latent, r.hyper)
        .and_then(|pr| pr.log_joint(&classes))
        .map_err(|e| ParamError::new("dataset", e.to_string()))?;
    Ok(PriorDraw {
        scalars: vec![("log_joint".into(), log_joint)],
        latent: vec![x.clone(), labels.clone(), pi.clone()],
    })
}

/// The dataset of a [`sample_prior`] draw: observed `x`, truth `r` and `pi`. Errors: a draw
/// without them.
pub fn simulate(draw: &PriorDraw) -> Result<Dataset, ParamError> {
    let get = |name: &str| -> Result<Matrix, ParamError> {
        draw.latent
            .iter()
            .find(|m| m.name == name)
            .cloned()
            .ok_or_else(|| ParamError::new("sbc", format!("the prior draw has no `{name}`")))
    };
    Ok(Dataset {
        observed: vec![get("x")?],
        truth: vec![get("r")?, get("pi")?],
    })
}

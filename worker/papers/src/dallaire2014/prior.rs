//! The prior and the generative model for simulation-based calibration ([`crate::sbc`]) of the
//! MCMC of §4 (paper `004_74db43a26dbf0fa1.txt`): θ̃ is a network drawn from the CIBP or eCIBP
//! prior with its parameters and activations ([`sample_network`]: eqs 3–9 for the structure,
//! §3.4 for W, γ, ν, eqs 1–2 for the activations, roots first), and the data are the observed
//! units' outputs u = σ(a).
//!
//! - `dataset: {kind: prior_predictive, d, n}` gives the shape: d observed units, n data points.
//! - `params.method` must be `mcmc` (the sampler calibrated) and `params.observed_map` must be
//!   `identity`: under `minmax` the map is fitted to the data, so the data the chain sees would
//!   not be draws of the model.
//! - Ranked scalars, named as [`crate::dallaire2014::samplers::NetworkSampler`] traces them:
//!   `n_units`, `n_edges`, `n_jump_edges` (eCIBP only: it is 0 under the CIBP), `depth`, and the
//!   parameter means `mean_w`, `mean_gamma`, `mean_ln_nu` ([`parameter_means`]).
//! - The simulated dataset has the observed matrix `x` (n × d, u in (−1, 1)) and the truth
//!   matrices `units` and `edges` of the true network (as a chain's summary stores them).
//!
//! The observed activations are drawn with the rest of the network (one ancestral pass), so they
//! travel in the draw as the latent matrix `a_observed`, and [`simulate`] only maps them to
//! outputs.

use serde_json::Value;

use super::datasets::{DatasetSpec, PriorPredictiveSpec, generic_names, named, parse_dataset};
use super::equations as eq;
use super::params::{Method, ObservedMap, Params};
use super::samplers::forward::sample_network;
use super::samplers::parameter_means;
use crate::data::{Dataset, Matrix};
use crate::params::ParamError;
use crate::sbc::PriorDraw;
use crate::seed::ChainRng;

/// Name of the latent n × d matrix of the true observed activations a.
pub const A_OBSERVED: &str = "a_observed";

fn shape(dataset: &Value) -> Result<PriorPredictiveSpec, ParamError> {
    match parse_dataset(dataset)? {
        DatasetSpec::PriorPredictive(s) => Ok(s),
        _ => Err(ParamError::new(
            "dataset.kind",
            "SBC simulates its data from the prior: use kind prior_predictive (d, n)",
        )),
    }
}

fn sbc_params(params: &Value) -> Result<Params, ParamError> {
    let p = Params::from_value("params", params)?;
    if p.method != Method::Mcmc {
        return Err(ParamError::new(
            "params.method",
            "SBC calibrates the MCMC of §4: allowed value is mcmc",
        ));
    }
    if p.observed_map != ObservedMap::Identity {
        return Err(ParamError::new(
            "params.observed_map",
            "SBC needs identity: minmax is fitted to the data, so the chain would not see draws \
             of the model",
        ));
    }
    Ok(p)
}

/// Draw θ̃ (module doc). Errors: params or dataset that do not parse or that SBC cannot use
/// (module doc); a prior draw with more than `params.max_units` units.
pub fn sample_prior(
    params: &Value,
    dataset: &Value,
    rng: &mut ChainRng,
) -> Result<PriorDraw, ParamError> {
    let p = sbc_params(params)?;
    let s = shape(dataset)?;
    let net =
        sample_network(&p, s.d, s.n, rng).map_err(|e| ParamError::new("sbc", e.to_string()))?;
    let [mean_w, mean_gamma, mean_ln_nu] = parameter_means(&net);
    let mut scalars = vec![
        ("n_units".to_string(), net.n_units() as f64),
        ("n_edges".to_string(), net.n_edges() as f64),
    ];
    if p.has_jumps() {
        scalars.push(("n_jump_edges".into(), net.n_jump_edges() as f64));
    }
    scalars.extend([
        ("depth".to_string(), net.depth() as f64),
        ("mean_w".to_string(), mean_w),
        ("mean_gamma".to_string(), mean_gamma),
        ("mean_ln_nu".to_string(), mean_ln_nu),
    ]);
    let mut a = vec![0.0; s.n * s.d];
    for j in 0..s.d {
        for (t, &v) in net.unit(j).a.iter().enumerate() {
            a[t * s.d + j] = v;
        }
    }
    let (units, edges) = net.summary_rows();
    let mut units = Matrix::new("units", units.len() / 3, 3, units);
    units.col_names = ["layer", "gamma", "nu"].map(String::from).to_vec();
    let mut edges = Matrix::new("edges", edges.len() / 4, 4, edges);
    edges.col_names = ["child", "parent", "weight", "is_jump"]
        .map(String::from)
        .to_vec();
    Ok(PriorDraw {
        scalars,
        latent: vec![named(A_OBSERVED, s.d, a, generic_names(s.d)), units, edges],
    })
}

/// The data of a draw made by [`sample_prior`]: x = σ(a) of the observed units (n × d), with
/// the true network's `units` and `edges` as truth. Draws nothing from `rng`.
///
/// Errors: a draw without `a_observed`, `units` or `edges`; an activation so large that σ(a)
/// rounds to ±1 in f64 (|a| > 37), which the observed layer cannot take back (use a precision
/// prior with less mass near 0, e.g. `precision_prior: {shape: 2, rate: 1}`).
pub fn simulate(
    dataset: &Value,
    draw: &PriorDraw,
    rng: &mut ChainRng,
) -> Result<Dataset, ParamError> {
    let _ = rng;
    let s = shape(dataset)?;
    let get = |name: &str| {
        draw.latent
            .iter()
            .find(|m| m.name == name)
            .ok_or_else(|| ParamError::new("sbc", format!("the prior draw has no `{name}`")))
    };
    let a = get(A_OBSERVED)?;
    if a.rows != s.n || a.cols != s.d {
        return Err(ParamError::new(
            "sbc",
            format!("`{A_OBSERVED}` is {} × {}, not n × d", a.rows, a.cols),
        ));
    }
    let mut x = Vec::with_capacity(a.values.len());
    for (k, &v) in a.values.iter().enumerate() {
        let u = eq::sigmoid(v);
        if u.is_nan() || u.abs() >= 1.0 {
            return Err(ParamError::new(
                "sbc",
                format!(
                    "the simulated activation {v} of unit {}, point {} maps to σ(a) = {u}, \
                     outside (−1, 1): use a precision prior with less mass near 0",
                    k % s.d + 1,
                    k / s.d + 1
                ),
            ));
        }
        x.push(u);
    }
    Ok(Dataset {
        observed: vec![named("x", s.d, x, generic_names(s.d))],
        truth: vec![get("units")?.clone(), get("edges")?.clone()],
    })
}

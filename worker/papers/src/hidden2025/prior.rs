//! The prior and the generative model for simulation-based calibration ([`crate::sbc`]) of
//! Algorithm 1 (`method: mala`) and Algorithms 1 + 2 (`method: edges`) of paper
//! `002_d97ecc788b964f97.txt`, matching exactly the distribution each chain of
//! [`super::samplers::HiddenSampler`] targets.
//!
//! The target. Both samplers condition on every column but the node's (the parents' or
//! candidates' values are covariates, never modelled) and sample the node's side of the model:
//! - `mala` (Algorithm 1, §3): Pa(j) = `params.parents` is fixed; the target is
//!   p(t_j | n) ∝ Π_x Gamma(t_j(x); ρ_j/k_j, b_j) · f(n | Pa(j), t_j) (eq 5 and eq 7: π
//!   integrated out; the auxiliary u_j of eq 9 are redrawn each iteration and never ranked).
//! - `edges` (Algorithms 1 + 2, §4.1): the target is p(t_j, z | n) ∝ p(t_j) · p(z) ·
//!   f(n | Pa(z), t_j) with the same t_j for every parent set, and p(z) the beta-binomial prior
//!   of γ_j ~ Beta(c_j, d_j), z_i | γ_j ~ Bernoulli(γ_j) over the candidates, γ_j integrated out
//!   (eq 13's (c + #ones)/(d + #zeros) factor; [`super::equations::log_edge_prior`]).
//!
//! So θ̃ is drawn as: t_j(x) ~ Gamma(ρ_j/k_j, rate b_j) for each of the k_j categories; for
//! `edges`, γ_j ~ Beta(c_j, d_j) and z_i ~ Bernoulli(γ_j) for each candidate in order. The data
//! ([`simulate`]): every column but the node iid uniform over its levels (the covariates; any
//! distribution independent of θ̃ would do, since the samplers condition on them), then for each
//! parent configuration that occurs, π_{j|Pa}(· | x_Pa) ~ Dir(t_j) (eq 5), and each row's node
//! value ~ Categorical(π_{j|Pa}(· | its configuration)). Configurations that do not occur need
//! no π (they contribute nothing to eq 7).
//!
//! - `dataset: {kind: prior_predictive, n, columns, k}` gives the shape (see
//!   [`super::datasets::spec::PriorPredictiveSpec`]); `params` name the node and its parents
//!   (`mala`) or candidates (`edges`) among `columns`. Other methods are refused.
//! - Ranked scalars, named as [`super::samplers::HiddenSampler`] traces them: `edges` only,
//!   `n_parents` (|Pa(j)|); then `t_0` … `t_{k−1}`; then, `edges` only, `z_0` … `z_{|Ca|−1}`.
//!   (`n_parents` is fixed under `mala`, so it is not ranked there.)
//! - The simulated dataset's truth: `adjacency` (p × p, 1 where the row variable is a true
//!   parent of the node; as [`super::datasets::truth_matrices`] names it).

use std::collections::HashMap;

use rand::RngExt;
use serde_json::Value;

use super::datasets::spec::PriorPredictiveSpec;
use super::datasets::{DatasetSpec, DiscreteData, parse_dataset};
use super::params::{Method, Params, Resolved};
use super::samplers::mala::{log_beta_draw, log_gamma_draw};
use crate::data::{Dataset, Matrix};
use crate::math::sample_log_weights;
use crate::params::ParamError;
use crate::sbc::PriorDraw;
use crate::seed::ChainRng;

/// Name of the latent p × p matrix of the true parent set (row variable → the node).
pub const ADJACENCY: &str = "adjacency";

fn shape(dataset: &Value) -> Result<PriorPredictiveSpec, ParamError> {
    match parse_dataset(dataset)? {
        DatasetSpec::PriorPredictive(s) => Ok(s),
        _ => Err(ParamError::new(
            "dataset.kind",
            "SBC simulates its data from the prior: use kind prior_predictive (n, columns, k)",
        )),
    }
}

/// The shape as data with no rows (names and levels `0`, `1`, …), to resolve `params` against.
fn empty_data(s: &PriorPredictiveSpec) -> Result<DiscreteData, ParamError> {
    DiscreteData::new(
        s.columns.clone(),
        s.k.iter()
            .map(|&k| (0..k).map(|c| c.to_string()).collect())
            .collect(),
        vec![Vec::new(); s.columns.len()],
    )
    .map_err(|e| ParamError::new("dataset", e))
}

/// Parse `params`, check that SBC can calibrate the method and resolve them against the shape.
fn resolve(params: &Value, s: &PriorPredictiveSpec) -> Result<Resolved, ParamError> {
    let p = Params::from_value("params", params)?;
    if !matches!(p.method, Method::Mala | Method::Edges) {
        return Err(ParamError::new(
            "params.method",
            "SBC calibrates Algorithm 1 and Algorithms 1 + 2: allowed values are mala, edges",
        ));
    }
    p.check("params")?;
    p.resolve("params", &empty_data(s)?)
}

fn numerical(e: impl ToString) -> ParamError {
    ParamError::new("sbc", e.to_string())
}

/// Draw θ̃ (module doc): t_j, and for `edges` the indicators z. Errors: params or dataset that
/// do not parse, do not fit each other, or that SBC cannot use (module doc); a t_j(x) that
/// underflows to 0 (a Gamma shape ρ_j/k_j so small that Dir(t_j) cannot be drawn).
pub fn sample_prior(
    params: &Value,
    dataset: &Value,
    rng: &mut ChainRng,
) -> Result<PriorDraw, ParamError> {
    let s = shape(dataset)?;
    let cfg = resolve(params, &s)?;
    let mut t = Vec::with_capacity(cfg.k);
    for x in 0..cfg.k {
        let v = log_gamma_draw(cfg.shape, rng).map_err(numerical)?.exp() / cfg.rate;
        if !(v > 0.0 && v.is_finite()) {
            return Err(ParamError::new(
                "params.rho",
                format!(
                    "the prior draw of t_{x} is {v}: Gamma shape ρ/k = {} is too small",
                    cfg.shape
                ),
            ));
        }
        t.push(v);
    }
    let (parents, z) = match cfg.method {
        Method::Edges => {
            let gamma = log_beta_draw(cfg.c, cfg.d, rng).map_err(numerical)?.exp();
            let z: Vec<bool> = cfg
                .candidates
                .iter()
                .map(|_| rng.random::<f64>() < gamma)
                .collect();
            let parents = cfg
                .candidates
                .iter()
                .zip(&z)
                .filter(|(_, on)| **on)
                .map(|(&c, _)| c)
                .collect();
            (parents, Some(z))
        }
        _ => (cfg.parents.clone().unwrap_or_default(), None),
    };
    let mut scalars = Vec::new();
    if z.is_some() {
        scalars.push(("n_parents".to_string(), parents.len() as f64));
    }
    scalars.extend(t.iter().enumerate().map(|(x, &v)| (format!("t_{x}"), v)));
    for (i, &on) in z.iter().flatten().enumerate() {
        scalars.push((format!("z_{i}"), if on { 1.0 } else { 0.0 }));
    }
    let p = s.columns.len();
    let mut adj = vec![0.0; p * p];
    for &q in &parents {
        adj[q * p + cfg.node] = 1.0;
    }
    let mut adj = Matrix::new(ADJACENCY, p, p, adj);
    adj.row_names = s.columns.clone();
    adj.col_names = s.columns.clone();
    Ok(PriorDraw {
        scalars,
        latent: vec![adj],
    })
}

/// The data of a draw made by [`sample_prior`] (module doc): n rows of every column, the
/// covariates iid uniform, the node from Dir(t_j)-distributed conditional probabilities given
/// its true parents; truth `adjacency`. Errors: params or dataset as in [`sample_prior`]; a draw
/// without `t_0` … `t_{k−1}` or `adjacency`.
pub fn simulate(
    params: &Value,
    dataset: &Value,
    draw: &PriorDraw,
    rng: &mut ChainRng,
) -> Result<Dataset, ParamError> {
    let s = shape(dataset)?;
    let cfg = resolve(params, &s)?;
    let missing = |name: &str| ParamError::new("sbc", format!("the prior draw has no `{name}`"));
    let t = (0..cfg.k)
        .map(|x| {
            let name = format!("t_{x}");
            draw.scalar(&name).ok_or_else(|| missing(&name))
        })
        .collect::<Result<Vec<f64>, _>>()?;
    let adj = draw
        .latent
        .iter()
        .find(|m| m.name == ADJACENCY)
        .ok_or_else(|| missing(ADJACENCY))?;
    let p = s.columns.len();
    if adj.rows != p || adj.cols != p {
        return Err(ParamError::new(
            "sbc",
            format!(
                "`{ADJACENCY}` is {} × {}, not {p} × {p}",
                adj.rows, adj.cols
            ),
        ));
    }
    let parents: Vec<usize> = (0..p).filter(|&q| adj.get(q, cfg.node) == 1.0).collect();
    let mut data = empty_data(&s)?;
    for (j, col) in data.columns.iter_mut().enumerate() {
        let k = s.k[j];
        *col = (0..s.n)
            .map(|_| {
                if j == cfg.node {
                    0
                } else {
                    rng.random_range(0..k) as u16
                }
            })
            .collect();
    }
    let codes = data.config_codes(&parents);
    // log of unnormalised Dir(t_j) draws (independent Gamma(t_j(x), 1)), one per occurring
    // configuration, drawn when it first occurs
    let mut log_pi: HashMap<u64, Vec<f64>> = HashMap::new();
    let mut node = Vec::with_capacity(s.n);
    for &code in &codes {
        let lp = match log_pi.entry(code) {
            std::collections::hash_map::Entry::Occupied(e) => e.into_mut(),
            std::collections::hash_map::Entry::Vacant(e) => {
                let g = t
                    .iter()
                    .map(|&a| log_gamma_draw(a, rng))
                    .collect::<Result<Vec<f64>, _>>()
                    .map_err(numerical)?;
                e.insert(g)
            }
        };
        let x = sample_log_weights(lp, rng.random::<f64>()).ok_or_else(|| {
            ParamError::new(
                "sbc",
                format!("no category can be drawn from log π = {lp:?}"),
            )
        })?;
        node.push(x as u16);
    }
    data.columns[cfg.node] = node;
    Ok(Dataset {
        observed: data.to_matrices(),
        truth: vec![adj.clone()],
    })
}

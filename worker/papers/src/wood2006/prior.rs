//! The prior and the generative model for simulation-based calibration ([`crate::sbc`]): θ̃ =
//! (α, λ, ε, p, Z, Y) from the priors of a cell's `params`, then X from the noisy-OR (Eq. 3).
//!
//! - Hyperparameters (§6): with `update_hyperparameters: true`, `α ~ Gamma(alpha_prior)`
//!   (shape, rate), `λ ~ Beta(lambda_prior)`, `ε ~ Beta(epsilon_prior)`, `p ~ Beta(p_prior)`,
//!   and all four are ranked; otherwise they are the fixed `params` values and not ranked.
//! - Z: `sampler: gibbs`, the infinite model: Z ~ IBP(α) with N customers (§3.2); `sampler:
//!   rjmcmc`, the finite model: K ~ `k_prior` on `1..=k_max`, `θ_k ~ Beta(α/K, 1)`, `z_{ik} ~
//!   Bernoulli(θ_k)` (Eq. 5).
//! - Y ~ Bernoulli(p) (Eq. 4), K × T; X from Eq. 3 ([`super::datasets::sample_x`]).
//!
//! Ranked scalars: `k_plus` (and `k` for RJMCMC), then `alpha`, `lambda`, `epsilon`, `p` when
//! they are updated. The truth matrices of the simulated dataset are `z` and `y`.

use rand::RngExt;
use rand_distr::{Beta, Distribution, Gamma};
use serde_json::Value;

use super::datasets::{BinaryMatrix, DatasetSpec, PriorPredictive, sample_ibp, sample_x, sample_y};
use super::equations::ln_k_prior;
use super::params::{Params, SamplerKind};
use crate::data::Dataset;
use crate::params::ParamError;
use crate::sbc::PriorDraw;
use crate::seed::ChainRng;

fn shape(dataset: &Value) -> Result<PriorPredictive, ParamError> {
    match DatasetSpec::from_json(dataset)? {
        DatasetSpec::PriorPredictive(s) => Ok(s),
        _ => Err(ParamError::new(
            "dataset.kind",
            "SBC simulates its data from the prior: use kind prior_predictive (n_observed, \
             n_trials)",
        )),
    }
}

fn beta(ab: [f64; 2], path: &str, rng: &mut ChainRng) -> Result<f64, ParamError> {
    let d = Beta::new(ab[0], ab[1]).map_err(|e| ParamError::new(path, e.to_string()))?;
    // keep the draw inside the open unit interval the sampler works on
    Ok(d.sample(rng).clamp(1e-12, 1.0 - 1e-12))
}

/// Draw θ̃ (see the module doc). Errors: params or dataset that do not parse, a prior that
/// `rand_distr` refuses.
pub fn sample_prior(
    params: &Value,
    dataset: &Value,
    rng: &mut ChainRng,
) -> Result<PriorDraw, ParamError> {
    let p = Params::from_json(params)?;
    let s = shape(dataset)?;
    let n = s.n_observed;
    let (mut alpha, mut lambda, mut epsilon, mut prob) = (p.alpha, p.lambda, p.epsilon, p.p);
    if p.update_hyperparameters {
        let [shape_a, rate] = p.alpha_prior;
        alpha = Gamma::new(shape_a, 1.0 / rate)
            .map_err(|e| ParamError::new("params.alpha_prior", e.to_string()))?
            .sample(rng)
            .max(1e-12);
        lambda = beta(p.lambda_prior, "params.lambda_prior", rng)?;
        epsilon = beta(p.epsilon_prior, "params.epsilon_prior", rng)?;
        prob = beta(p.p_prior, "params.p_prior", rng)?;
    }
    let z = match p.sampler {
        SamplerKind::Gibbs => sample_ibp(alpha, n, None, rng)
            .map_err(|e| ParamError::new("params.alpha", e))?
            .unwrap_or_else(|| BinaryMatrix::zeros(n, 0)),
        SamplerKind::Rjmcmc => finite_z(&p, alpha, n, rng),
    };
    let y = sample_y(z.cols, s.n_trials, prob, rng);
    let k_plus = (0..z.cols)
        .filter(|&k| (0..n).any(|i| z.get(i, k) == 1))
        .count();
    let mut scalars = vec![("k_plus".to_string(), k_plus as f64)];
    if p.sampler == SamplerKind::Rjmcmc {
        scalars.push(("k".into(), z.cols as f64));
    }
    if p.update_hyperparameters {
        for (name, v) in [
            ("alpha", alpha),
            ("lambda", lambda),
            ("epsilon", epsilon),
            ("p", prob),
        ] {
            scalars.push((name.into(), v));
        }
    }
    let mut fixed = crate::data::Matrix::new("noisy_or", 1, 2, vec![lambda, epsilon]);
    fixed.col_names = vec!["lambda".into(), "epsilon".into()];
    Ok(PriorDraw {
        scalars,
        latent: vec![z.to_matrix("z"), y.to_matrix("y"), fixed],
    })
}

/// K ~ P(K) on `1..=k_max` by inversion of [`ln_k_prior`], then Eq. 5's Beta–Bernoulli columns
/// (θ_k by inversion: `u^{K/α}` is Beta(α/K, 1)).
fn finite_z(p: &Params, alpha: f64, n: usize, rng: &mut ChainRng) -> BinaryMatrix {
    let u: f64 = rng.random();
    let mut acc = 0.0;
    let mut k = p.k_max;
    for kk in 1..=p.k_max {
        acc += ln_k_prior(p.k_prior, kk, p.k_max, alpha, n).exp();
        if u < acc {
            k = kk;
            break;
        }
    }
    let mut z = BinaryMatrix::zeros(n, k);
    for c in 0..k {
        let theta = rng.random::<f64>().powf(k as f64 / alpha);
        for i in 0..n {
            z.set(i, c, u8::from(rng.random::<f64>() < theta));
        }
    }
    z
}

/// X (N × T) from Eq. 3 given the draw's Z, Y, λ and ε. Observed `x`; truth `z`, `y`. Errors: a
/// draw not made by [`sample_prior`].
pub fn simulate(
    dataset: &Value,
    draw: &PriorDraw,
    rng: &mut ChainRng,
) -> Result<Dataset, ParamError> {
    shape(dataset)?;
    let get = |name: &str| {
        draw.latent
            .iter()
            .find(|m| m.name == name)
            .ok_or_else(|| ParamError::new("sbc", format!("the prior draw has no `{name}`")))
    };
    let z = BinaryMatrix::from_matrix(get("z")?).map_err(|e| ParamError::new("sbc", e))?;
    let y = BinaryMatrix::from_matrix(get("y")?).map_err(|e| ParamError::new("sbc", e))?;
    let (lambda, epsilon) = match get("noisy_or")?.values[..] {
        [l, e] => (l, e),
        _ => return Err(ParamError::new("sbc", "`noisy_or` must hold λ and ε")),
    };
    let x = sample_x(&z, &y, lambda, epsilon, rng).map_err(|e| ParamError::new("sbc", e))?;
    Ok(Dataset {
        observed: vec![x.to_matrix("x")],
        truth: vec![z.to_matrix("z"), y.to_matrix("y")],
    })
}

//! Algorithm 1 (§3, supplement B): the auxiliary variables u_j and one MALA step per category of
//! t_j on log h_{j,x} (eqs 9, 10, 12).

use rand::RngExt;
use rand_distr::{Distribution, Gamma, StandardNormal};

use super::Defect;
use crate::chain::SamplerError;
use crate::hidden2025::datasets::ParentTable;
use crate::hidden2025::equations::{HConditional, log_proposal_density, mala_proposal_mean};
use crate::math::log_add_exp;
use crate::seed::ChainRng;

/// log of a Gamma(shape, 1) draw, accurate for tiny shapes: for shape < 1 it uses
/// G(a) = G(a + 1) · U^{1/a}, so log G = log G(a + 1) + log U / a never underflows.
pub(crate) fn log_gamma_draw(shape: f64, rng: &mut ChainRng) -> Result<f64, SamplerError> {
    let bump = shape < 1.0;
    let g = Gamma::new(if bump { shape + 1.0 } else { shape }, 1.0)
        .map_err(|e| SamplerError::Numerical(format!("Gamma({shape}, 1): {e}")))?;
    let x: f64 = g.sample(rng);
    let mut lg = x.ln();
    if bump {
        let u: f64 = rng.random::<f64>();
        lg += (1.0 - u).ln() / shape; // 1 − u ∈ (0, 1]
    }
    Ok(lg)
}

/// log u with u ~ Beta(a, b) (a, b > 0), as log G_a − log(G_a + G_b).
pub fn log_beta_draw(a: f64, b: f64, rng: &mut ChainRng) -> Result<f64, SamplerError> {
    let la = log_gamma_draw(a, rng)?;
    let lb = log_gamma_draw(b, rng)?;
    Ok(la - log_add_exp(la, lb))
}

/// Algorithm 1, lines 1–3: log u_j(c) ~ log Beta(β_j, n_c) for each occupied configuration c of
/// `table` (an empty configuration has u = 1 and is not represented: it is never drawn).
pub fn draw_log_u(
    table: &ParentTable,
    beta: f64,
    rng: &mut ChainRng,
) -> Result<Vec<f64>, SamplerError> {
    draw_log_u_impl(table, beta, rng, None)
}

pub(crate) fn draw_log_u_impl(
    table: &ParentTable,
    beta: f64,
    rng: &mut ChainRng,
    defect: Option<Defect>,
) -> Result<Vec<f64>, SamplerError> {
    let bump = if defect == Some(Defect::BetaShapePlusOne) {
        1.0
    } else {
        0.0
    };
    table
        .totals
        .iter()
        .map(|&n| log_beta_draw(beta, n as f64 + bump, rng))
        .collect()
}

/// One MALA step (eq 12 proposal, supplement B's Metropolis–Hastings with both Gaussian proposal
/// densities) on h = `h` from `t` with step size `eps`. A proposal ≤ 0 is a rejection. Returns
/// the new value and whether the proposal was accepted.
pub fn mala_step(h: &HConditional, t: f64, eps: f64, rng: &mut ChainRng) -> (f64, bool) {
    mala_step_impl(h, t, eps, rng, None)
}

/// [`mala_step`] with a deliberately broken kernel (negative controls only).
#[cfg(feature = "testing")]
pub fn mala_step_with_defect(
    h: &HConditional,
    t: f64,
    eps: f64,
    rng: &mut ChainRng,
    defect: Option<Defect>,
) -> (f64, bool) {
    mala_step_impl(h, t, eps, rng, defect)
}

pub(crate) fn mala_step_impl(
    h: &HConditional,
    t: f64,
    eps: f64,
    rng: &mut ChainRng,
    defect: Option<Defect>,
) -> (f64, bool) {
    let grad = h.grad_log_h(t);
    let mean = mala_proposal_mean(t, grad, eps);
    let z: f64 = rng.sample(StandardNormal);
    let prop = mean + eps * z;
    // Draw the uniform in every case so the stream does not depend on the branch taken.
    let u: f64 = rng.random::<f64>();
    if prop <= 0.0 || !prop.is_finite() {
        return (t, false);
    }
    if defect == Some(Defect::NoMhCorrection) {
        return (prop, true);
    }
    let back = mala_proposal_mean(prop, h.grad_log_h(prop), eps);
    let log_alpha = h.log_h(prop) + log_proposal_density(t, back, eps)
        - h.log_h(t)
        - log_proposal_density(prop, mean, eps);
    if log_alpha.is_nan() {
        return (t, false);
    }
    if (1.0 - u).ln() < log_alpha {
        (prop, true)
    } else {
        (t, false)
    }
}

//! The conjugate parameter updates (paper `004_74db43a26dbf0fa1.txt` §3.4; the paper omits them
//! "for brevity" gives them): for every unit i, observed included, each weight W_ik
//! of an existing edge from its Gaussian conditional, then γ_i, then ν_i.

use rand_distr::{Distribution, Gamma, StandardNormal};

use super::network::Network;
use crate::chain::SamplerError;
use crate::dallaire2014::equations as eq;
use crate::dallaire2014::params::Params;
use crate::seed::ChainRng;

/// One sweep of the conjugate updates over every unit.
///
/// Errors: a Gamma conditional that cannot be built (non-finite residuals), as
/// [`SamplerError::Numerical`].
pub fn update_parameters(
    net: &mut Network,
    p: &Params,
    rng: &mut ChainRng,
) -> Result<(), SamplerError> {
    let n = net.n();
    let (mu_w, rho_w) = (p.weight_prior.mean, p.weight_prior.precision);
    let (mu_g, rho_g) = (p.bias_prior.mean, p.bias_prior.precision);
    for i in net.ordered_ids() {
        for idx in 0..net.unit(i).parents.len() {
            let (ui, e) = (net.unit(i), &net.unit(i).parents[idx]);
            let uk = net.unit(e.parent);
            let sur: f64 =
                uk.u.iter().zip(&ui.res).map(|(u, r)| u * r).sum::<f64>() + e.weight * uk.suu;
            let (mean, prec) = eq::weight_conditional(uk.suu, sur, ui.nu, mu_w, rho_w);
            let z: f64 = StandardNormal.sample(rng);
            net.set_weight(i, idx, mean + z / prec.sqrt());
        }
        let ui = net.unit(i);
        let sum_e = ui.res.iter().sum::<f64>() + n as f64 * ui.gamma;
        let (mean, prec) = eq::bias_conditional(sum_e, n, ui.nu, mu_g, rho_g);
        let z: f64 = StandardNormal.sample(rng);
        net.set_gamma(i, mean + z / prec.sqrt());
        let ss: f64 = net.unit(i).res.iter().map(|r| r * r).sum();
        let (shape, rate) =
            eq::precision_conditional(ss, n, p.precision_prior.shape, p.precision_prior.rate);
        let g = Gamma::new(shape, 1.0 / rate).map_err(|_| {
            SamplerError::Numerical(format!(
                "the precision conditional of the unit in slot {i} is Gamma({shape}, rate {rate})"
            ))
        })?;
        net.set_nu(i, g.sample(rng).max(f64::MIN_POSITIVE));
    }
    Ok(())
}

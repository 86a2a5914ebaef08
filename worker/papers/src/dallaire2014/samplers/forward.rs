//! Draws from the generative process of paper `004_74db43a26dbf0fa1.txt` §3: the structure by
//! the cascading IBP (eqs 3–7) and, for the eCIBP, its jump connections (eqs 8–9); the
//! parameters from their priors (§3.4); the activations by ancestral sampling (eqs 1–2, roots
//! first).
//!
//! Used by `method: forward` ([`super::ForwardSampler`]), the fantasy data of the KL (§5.1), the
//! Geweke test, and the birth move's "last customer" draws ([`grow_last_customer`]).
//!
//! New units are inserted at a uniformly random position of their layer, so the order of a
//! layer is uniform given its set of units (see [`super::network`]).

use rand::RngExt;
use rand_distr::{Distribution, Gamma, Normal, Poisson, StandardNormal};

use super::network::Network;
use crate::chain::SamplerError;
use crate::dallaire2014::equations as eq;
use crate::dallaire2014::params::Params;
use crate::seed::ChainRng;

/// The parameter priors of §3.4 as samplers: W ~ N(μ_w, 1/ρ_w), γ ~ N(μ_γ, 1/ρ_γ),
/// ν ~ Gamma(shape, rate).
#[derive(Debug, Clone, Copy)]
pub struct Priors {
    w: Normal<f64>,
    g: Normal<f64>,
    nu: Gamma<f64>,
}

impl Priors {
    /// Errors: a prior precision, shape or rate that is not positive and finite
    /// ([`SamplerError::Input`]; [`Params::check`] refuses them first).
    pub fn new(p: &Params) -> Result<Self, SamplerError> {
        let bad = |what: &str| SamplerError::Input(format!("params.{what} is out of range"));
        let normal = |g: crate::dallaire2014::params::GaussianPrior, what: &str| {
            Normal::new(g.mean, 1.0 / g.precision.sqrt()).map_err(|_| bad(what))
        };
        Ok(Priors {
            w: normal(p.weight_prior, "weight_prior")?,
            g: normal(p.bias_prior, "bias_prior")?,
            nu: Gamma::new(p.precision_prior.shape, 1.0 / p.precision_prior.rate)
                .map_err(|_| bad("precision_prior"))?,
        })
    }

    /// A weight W from its prior.
    pub fn weight(&self, rng: &mut ChainRng) -> f64 {
        self.w.sample(rng)
    }

    /// A bias γ from its prior.
    pub fn bias(&self, rng: &mut ChainRng) -> f64 {
        self.g.sample(rng)
    }

    /// A precision ν from its prior (floored at the smallest positive normal f64).
    pub fn precision(&self, rng: &mut ChainRng) -> f64 {
        self.nu.sample(rng).max(f64::MIN_POSITIVE)
    }
}

fn poisson(mean: f64, rng: &mut ChainRng) -> usize {
    if mean <= 0.0 {
        return 0;
    }
    match Poisson::new(mean) {
        Ok(p) => {
            let v: f64 = p.sample(rng);
            v as usize
        }
        Err(_) => 0,
    }
}

fn too_big(net: &Network, max_units: usize) -> Result<(), SamplerError> {
    if net.n_units() > max_units {
        return Err(SamplerError::Numerical(format!(
            "the network has {} units, more than max_units = {max_units}",
            net.n_units()
        )));
    }
    Ok(())
}

/// Add a new unit of `layer` with γ, ν from the prior at a uniform position.
fn new_unit(net: &mut Network, layer: usize, pr: &Priors, rng: &mut ChainRng) -> usize {
    let pos = rng.random_range(0..=net.layer_size(layer));
    let (g, nu) = (pr.bias(rng), pr.precision(rng));
    net.add_unit(layer, g, nu, pos)
}

/// An independent draw of the whole network with `n` data points: γ, ν of the D observed
/// units, the CIBP structure (eqs 3–7: customer j of layer m − 1 takes unit k of layer m with
/// probability n_k/(β + j − 1) and creates Poisson(αβ/(β + j − 1)) new ones, until a layer is
/// empty), the jumps of eq 9 for the eCIBP, W of every edge, and the activations of every unit
/// (observed included) by ancestral sampling.
///
/// Errors: more than `p.max_units` units ([`SamplerError::Numerical`]), invalid priors.
pub fn sample_network(
    p: &Params,
    d: usize,
    n: usize,
    rng: &mut ChainRng,
) -> Result<Network, SamplerError> {
    let pr = Priors::new(p)?;
    let gamma: Vec<f64> = (0..d).map(|_| pr.bias(rng)).collect();
    let nu: Vec<f64> = (0..d).map(|_| pr.precision(rng)).collect();
    let mut net = Network::observed_only(n, d, &gamma, &nu, &vec![0.0; n * d])?;
    // CIBP, layer by layer.
    let mut m = 1;
    while net.layer_size(m - 1) > 0 {
        let customers = net.layer(m - 1).to_vec();
        for (j0, &cust) in customers.iter().enumerate() {
            let j = j0 + 1;
            let existing = net.layer(m).to_vec();
            for k in existing {
                if rng.random::<f64>() < eq::ibp_take_prob(net.n_adjacent_children(k), p.beta, j) {
                    let w = pr.weight(rng);
                    net.add_edge(cust, k, w);
                }
            }
            for _ in 0..poisson(eq::ibp_new_mean(p.alpha, p.beta, j), rng) {
                let k = new_unit(&mut net, m, &pr, rng);
                let w = pr.weight(rng);
                net.add_edge(cust, k, w);
            }
            too_big(&net, p.max_units)?;
        }
        if net.layer_size(m) == 0 {
            break;
        }
        m += 1;
    }
    if p.has_jumps() {
        for t in 2..net.depth() {
            for k in net.layer(t).to_vec() {
                let q = eq::jump_q(net.n_adjacent_children(k), p.beta, net.layer_size(t - 1));
                for s in 0..t - 1 {
                    let mut c = 0;
                    for (j0, cust) in net.layer(s).to_vec().into_iter().enumerate() {
                        if rng.random::<f64>() < eq::jump_prob(q, c, p.beta_prime, j0 + 1) {
                            let w = pr.weight(rng);
                            net.add_edge(cust, k, w);
                            c += 1;
                        }
                    }
                }
            }
        }
    }
    // Activations, roots first.
    for m in (0..net.depth()).rev() {
        for i in net.layer(m).to_vec() {
            draw_activations(&mut net, i, rng);
        }
    }
    net.refresh()?;
    Ok(net)
}

/// Draw unit i's N activations a_in ~ N(y_in, 1/ν_i) given its parents' current outputs (which
/// must already be drawn), keeping the caches consistent.
pub fn draw_activations(net: &mut Network, i: usize, rng: &mut ChainRng) {
    let sd = 1.0 / net.unit(i).nu.sqrt();
    net.redraw_activations(i, 0..net.n(), |_, y| {
        y + sd * crate::ziggurat::standard_normal(rng)
    });
}

/// Fresh observed outputs of `m` new data points drawn from the network by ancestral sampling
/// (roots first, fresh activations of every unit; the network is not changed): m × D outputs
/// u = σ(a) in (−1, 1), row-major (the observed layer's map takes them back to data units).
pub fn sample_observed_outputs(net: &Network, m: usize, rng: &mut ChainRng) -> Vec<f64> {
    let mut out: Vec<Vec<f64>> = vec![Vec::new(); net.slot_count()];
    for layer in (0..net.depth()).rev() {
        for &i in net.layer(layer) {
            let u = net.unit(i);
            let sd = 1.0 / u.nu.sqrt();
            let mut v = vec![u.gamma; m];
            for e in &u.parents {
                for (x, pu) in v.iter_mut().zip(&out[e.parent]) {
                    *x += e.weight * pu;
                }
            }
            for x in &mut v {
                let z: f64 = StandardNormal.sample(rng);
                *x = eq::sigmoid(*x + sd * z);
            }
            out[i] = v;
        }
    }
    let d = net.d();
    let mut rows = vec![0.0; m * d];
    for j in 0..d {
        for (t, x) in out[j].iter().enumerate() {
            rows[t * d + j] = *x;
        }
    }
    rows
}

/// Redraw the D observed units' activations given the hidden units (the Geweke test's
/// x ~ p(x | θ)): N × D pre-sigmoid values, row-major. The network is not changed.
pub fn sample_observed_activations(net: &Network, rng: &mut ChainRng) -> Vec<f64> {
    let (n, d) = (net.n(), net.d());
    let mut rows = vec![0.0; n * d];
    for j in 0..d {
        let u = net.unit(j);
        let sd = 1.0 / u.nu.sqrt();
        for t in 0..n {
            let z: f64 = StandardNormal.sample(rng);
            rows[t * d + j] = u.a[t] - u.res[t] + sd * z;
        }
    }
    rows
}

/// The birth move's proposal: given a new unit `k_star` of layer m, already in the
/// network with γ, ν drawn from the prior and its edge to its child, draw its deeper structure as
/// the *last customer* of each IBP (existing units of layer m + 1 with probability
/// n_k/(β + K^(m) − 1 + …), new units Poisson(αβ/(β + ·)), recursively for the new units), then
/// the jump parents of every new unit from eq 9 as last customers (after all the adjacent
/// choices), W of every new edge from the prior, and the activations of every new unit by
/// ancestral sampling. Jump edges from new units to older, shallower units are never drawn.
///
/// Returns every new unit, `k_star` first, in creation order (shallow to deep).
/// Errors: more than `p.max_units` units.
pub fn grow_last_customer(
    net: &mut Network,
    p: &Params,
    pr: &Priors,
    k_star: usize,
    rng: &mut ChainRng,
) -> Result<Vec<usize>, SamplerError> {
    let mut new_units = vec![k_star];
    let mut current = vec![k_star];
    let mut layer = net.unit(k_star).layer;
    while !current.is_empty() {
        let n_old = net.layer_size(layer) - current.len();
        let mut created = Vec::new();
        for (j0, &cust) in current.iter().enumerate() {
            let j = n_old + j0 + 1;
            for k in net.layer(layer + 1).to_vec() {
                if rng.random::<f64>() < eq::ibp_take_prob(net.n_adjacent_children(k), p.beta, j) {
                    let w = pr.weight(rng);
                    net.add_edge(cust, k, w);
                }
            }
            for _ in 0..poisson(eq::ibp_new_mean(p.alpha, p.beta, j), rng) {
                let k = new_unit(net, layer + 1, pr, rng);
                let w = pr.weight(rng);
                net.add_edge(cust, k, w);
                created.push(k);
            }
            too_big(net, p.max_units)?;
        }
        new_units.extend_from_slice(&created);
        current = created;
        layer += 1;
    }
    if p.has_jumps() {
        let mut new_in_layer = vec![0usize; net.depth()];
        for &v in &new_units {
            new_in_layer[net.unit(v).layer] += 1;
        }
        let mut rank = vec![0usize; net.depth()];
        for &v in &new_units {
            let s = net.unit(v).layer;
            let j = net.layer_size(s) - new_in_layer[s] + rank[s] + 1;
            rank[s] += 1;
            for t in s + 2..net.depth() {
                let k_prev = net.layer_size(t - 1);
                for k in net.layer(t).to_vec() {
                    let q = eq::jump_q(net.n_adjacent_children(k), p.beta, k_prev);
                    let c = net.children_in_layer(k, s);
                    if rng.random::<f64>() < eq::jump_prob(q, c, p.beta_prime, j) {
                        let w = pr.weight(rng);
                        net.add_edge(v, k, w);
                    }
                }
            }
        }
    }
    for &v in new_units.iter().rev() {
        draw_activations(net, v, rng);
    }
    Ok(new_units)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::seed::chain_rng;

    #[test]
    fn forward_draws_are_valid_networks() {
        let p = Params::default();
        let mut rng = chain_rng(1, 2, 3, 0);
        for _ in 0..200 {
            let net = sample_network(&p, 2, 3, &mut rng).unwrap();
            for m in 1..net.depth() {
                for &k in net.layer(m) {
                    assert!(net.n_adjacent_children(k) >= 1);
                }
            }
            for id in net.ordered_ids() {
                for e in &net.unit(id).parents {
                    assert!(net.unit(e.parent).layer > net.unit(id).layer);
                }
            }
        }
    }
}

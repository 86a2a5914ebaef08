//! Phase 2 of the structure update (paper `004_74db43a26dbf0fa1.txt` §4, eqs 15–16, corrected
//! as corrected): for each unit i of layer m − 1, with probability ½ propose a birth of a
//! singleton parent in layer m, otherwise a death of one.
//!
//! - **Birth.** A new unit k* of layer m with its edge to i; its W, γ, ν from the prior; its
//!   deeper structure as the last customer of each IBP and the jump parents of every new unit
//!   from eq 9 ([`super::forward::grow_last_customer`]); activations from the prior.
//! - **Death.** One of the c death candidates (the parents of i whose only layer-(m−1) child is
//!   i) uniformly; it goes with every ancestor left without children. Rejected (prior 0) when a
//!   removed unit keeps a child outside the removed set (a jump child, or a unit that would keep
//!   jump children and no adjacent child).
//! - **Acceptance** (corrected, default): λ_i/c(S′) · J_old(S′)/J(S) · Π_n f(a_in | k*)/f(a_in)
//!   for the birth from S to S′, its reciprocal for the death; λ_i = αβ/(β + K^(m−1) − 1);
//!   J_old(S′) is J over the customers of S only ([`crate::dallaire2014::equations`]). The CIBP
//!   has J ≡ 1. `birth_death: paper` uses the printed eqs 15–16.
//!
//! The sweep visits the unit at each position of each layer in turn, shallow to deep, with the
//! layers as they are when it reaches them (units born earlier in the sweep are visited too):
//! each visit is a fixed kernel ("the unit at position j"), valid because the order within a
//! layer is uniform given its units (births insert at a uniform position).

use rand::RngExt;

use super::forward::{Priors, grow_last_customer};
use super::network::{Exclude, Network};
use crate::chain::SamplerError;
use crate::dallaire2014::equations as eq;
use crate::dallaire2014::params::{BirthDeath, Params};
use crate::seed::ChainRng;

/// Counts of one Phase 2 sweep.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub struct Phase2Stats {
    /// Births proposed.
    pub births: usize,
    /// Births accepted.
    pub births_accepted: usize,
    /// Deaths proposed (including those with no candidate).
    pub deaths: usize,
    /// Deaths accepted.
    pub deaths_accepted: usize,
}

/// Options of the sweep beyond [`Params`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Phase2Options {
    /// Leave the J terms out of the corrected acceptance (a broken kernel: the negative control
    /// "eCIBP birth without the J terms"; only the tests set it).
    pub without_jump_terms: bool,
}

/// The death candidates of unit i: its adjacent parents whose only adjacent child is i.
pub fn death_candidates(net: &Network, i: usize) -> Vec<usize> {
    net.unit(i)
        .parents
        .iter()
        .filter(|e| !e.jump && net.n_adjacent_children(e.parent) == 1)
        .map(|e| e.parent)
        .collect()
}

/// ln Π_n f(a_in | k present)/f(a_in | k absent) for the edge k → i.
fn ln_likelihood_ratio(net: &Network, i: usize, k: usize) -> f64 {
    let ui = net.unit(i);
    let w = net.weight_of(i, k);
    let uk = &net.unit(k).u;
    let mut s = 0.0;
    for (r, u) in ui.res.iter().zip(uk) {
        let r0 = r + w * u;
        s += r0 * r0 - r * r;
    }
    0.5 * ui.nu * s
}

/// ln J_old(S′) − ln J(S) over the column layers ≥ m that the move changes, with S′ the larger
/// state (the network as it is) and `extra` flagging the units S′ has and S has not.
fn ln_jump_ratio(net: &Network, p: &Params, extra: &[bool], m: usize) -> f64 {
    let old = eq::ln_jump_prior(
        &net.counts(Exclude::Customers(extra)),
        p.beta,
        p.beta_prime,
        m,
    );
    let small = eq::ln_jump_prior(&net.counts(Exclude::Units(extra)), p.beta, p.beta_prime, m);
    old - small
}

/// ln of the birth acceptance from S to the larger state S′ (the network as it is, with the new
/// units flagged in `extra`), for the birth of `k` as a parent of `i`; `c_large` = c(S′) and
/// `k_m_small` = K^(m) in S (for the printed form).
#[allow(clippy::too_many_arguments)]
fn ln_birth_ratio(
    net: &Network,
    p: &Params,
    opt: Phase2Options,
    i: usize,
    k: usize,
    extra: &[bool],
    c_large: usize,
    k_m_small: usize,
) -> f64 {
    let m = net.unit(k).layer;
    let lr = ln_likelihood_ratio(net, i, k);
    let k_child = net.layer_size(m - 1);
    match p.birth_death {
        BirthDeath::Corrected => {
            let lj = if p.has_jumps() && !opt.without_jump_terms {
                ln_jump_ratio(net, p, extra, m)
            } else {
                0.0
            };
            eq::ln_birth_acceptance(eq::ln_birth_rate(p.alpha, p.beta, k_child), c_large, lj, lr)
        }
        BirthDeath::Paper => {
            eq::ln_birth_acceptance_paper(p.alpha, p.beta, c_large - 1, k_m_small, lr)
        }
    }
}

/// Remove the units flagged in `set` (sorted shallow to deep in `order`), after the edge
/// `order[0]` → `child`.
fn remove_set(net: &mut Network, child: usize, order: &[usize]) -> Result<(), SamplerError> {
    if let Some(idx) = net.edge_index(child, order[0]) {
        net.remove_edge(child, idx);
    }
    for &v in order {
        if !net.remove_unit(v) {
            return Err(SamplerError::InvalidState(format!(
                "unit in slot {v} still has children when its birth is undone"
            )));
        }
    }
    Ok(())
}

fn accept(ln_a: f64, rng: &mut ChainRng) -> bool {
    ln_a >= 0.0 || rng.random::<f64>().ln() < ln_a
}

/// Propose a birth for child `i`.
fn birth(
    net: &mut Network,
    p: &Params,
    pr: &Priors,
    opt: Phase2Options,
    i: usize,
    rng: &mut ChainRng,
) -> Result<bool, SamplerError> {
    let m = net.unit(i).layer + 1;
    let c_small = death_candidates(net, i).len();
    let k_m_small = net.layer_size(m);
    let pos = rng.random_range(0..=k_m_small);
    let (g, nu, w) = (pr.bias(rng), pr.precision(rng), pr.weight(rng));
    let k = net.add_unit(m, g, nu, pos);
    net.add_edge(i, k, w);
    let new = grow_last_customer(net, p, pr, k, rng)?;
    let mut extra = vec![false; net.slot_count()];
    for &v in &new {
        extra[v] = true;
    }
    let ln_a = ln_birth_ratio(net, p, opt, i, k, &extra, c_small + 1, k_m_small);
    if accept(ln_a, rng) {
        Ok(true)
    } else {
        remove_set(net, i, &new)?;
        Ok(false)
    }
}

/// Propose a death for child `i`.
fn death(
    net: &mut Network,
    p: &Params,
    opt: Phase2Options,
    i: usize,
    rng: &mut ChainRng,
) -> Result<bool, SamplerError> {
    let cands = death_candidates(net, i);
    if cands.is_empty() {
        return Ok(false);
    }
    let k = cands[rng.random_range(0..cands.len())];
    let m = net.unit(k).layer;
    // The removed set: k and every ancestor whose adjacent children are all removed.
    let mut set = vec![false; net.slot_count()];
    set[k] = true;
    let mut order = vec![k];
    for l in m + 1..net.depth() {
        for &v in net.layer(l) {
            let below = net
                .unit(v)
                .children
                .iter()
                .filter(|&&c| net.unit(c).layer + 1 == l);
            let mut any = false;
            let mut all = true;
            for &c in below {
                any = true;
                all &= set[c];
            }
            if any && all {
                set[v] = true;
                order.push(v);
            }
        }
    }
    // Prior 0 if a removed unit keeps a child outside the set (other than k → i).
    for &v in &order {
        for &c in &net.unit(v).children {
            if !(set[c] || (v == k && c == i)) {
                return Ok(false);
            }
        }
    }
    let ln_a = -ln_birth_ratio(net, p, opt, i, k, &set, cands.len(), net.layer_size(m) - 1);
    let ln_a = match p.birth_death {
        BirthDeath::Corrected => ln_a,
        BirthDeath::Paper => eq::ln_death_acceptance_paper(
            p.alpha,
            p.beta,
            cands.len(),
            net.layer_size(m),
            -ln_likelihood_ratio(net, i, k),
        ),
    };
    if accept(ln_a, rng) {
        remove_set(net, i, &order)?;
        Ok(true)
    } else {
        Ok(false)
    }
}

/// One Phase 2 sweep: every unit as the child, shallow to deep (see the module doc).
///
/// Errors: the network passes `p.max_units` ([`SamplerError::Numerical`]).
pub fn phase2(
    net: &mut Network,
    p: &Params,
    pr: &Priors,
    opt: Phase2Options,
    rng: &mut ChainRng,
) -> Result<Phase2Stats, SamplerError> {
    let mut st = Phase2Stats::default();
    let mut layer = 0;
    while layer < net.depth() {
        let mut pos = 0;
        while pos < net.layer_size(layer) {
            let i = net.layer(layer)[pos];
            if rng.random::<f64>() < 0.5 {
                st.births += 1;
                st.births_accepted += usize::from(birth(net, p, pr, opt, i, rng)?);
            } else {
                st.deaths += 1;
                st.deaths_accepted += usize::from(death(net, p, opt, i, rng)?);
            }
            pos += 1;
        }
        layer += 1;
    }
    Ok(st)
}

//! Phase 1 of the structure update (paper `004_74db43a26dbf0fa1.txt` §4, eqs 11–14): Gibbs on
//! each edge Z_ik with W_ik integrated out, then W_ik from its Gaussian conditional if Z_ik = 1.
//!
//! Candidates, for every unit i of layer s as the child:
//! - every unit k of layer s + 1 that has a layer-s child other than i (n_{−i,k} > 0), with the
//!   prior odds of eq 11 and, for the eCIBP, the change of k's Beta column terms when n_k moves
//!   by one ("eq 12 becomes part of the likelihood");
//! - for the eCIBP, every unit k of a layer m ≥ s + 2, with eq 12 as corrected (or as printed,
//!   `jump_prior: paper`).
//!
//! The likelihood is the Bayes factor of eqs 13–14; with the residual cache it costs one dot
//! product of length N per candidate, S_ur = u_k · (a_i − y_i) + Z_ik W_ik S_uu.

use rand::RngExt;
use rand_distr::{Distribution, StandardNormal};

use super::network::Network;
use crate::dallaire2014::equations as eq;
use crate::dallaire2014::params::{JumpPrior, Params};
use crate::seed::ChainRng;

/// Counts of one Phase 1 sweep.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub struct Phase1Stats {
    /// Candidate edges visited.
    pub candidates: usize,
    /// Edges whose Z changed.
    pub flips: usize,
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// ln(p/(1 − p)), ±∞ at the ends.
fn logit(p: f64) -> f64 {
    if p <= 0.0 {
        f64::NEG_INFINITY
    } else if p >= 1.0 {
        f64::INFINITY
    } else {
        p.ln() - (-p).ln_1p()
    }
}

/// The change of unit k's Beta column terms (eCIBP) when its adjacent child count goes from
/// `n_minus` to `n_minus + 1`; k is in layer m ≥ 1 with K^(m−1) = `k_prev`.
fn jump_column_change(net: &Network, p: &Params, k: usize, n_minus: usize, k_prev: usize) -> f64 {
    let m = net.unit(k).layer;
    if m < 2 {
        return 0.0;
    }
    let q0 = eq::jump_q(n_minus, p.beta, k_prev);
    let q1 = eq::jump_q(n_minus + 1, p.beta, k_prev);
    let mut cols = vec![0usize; m - 1];
    for &c in &net.unit(k).children {
        let l = net.unit(c).layer;
        if l + 1 < m {
            cols[l] += 1;
        }
    }
    let mut s = 0.0;
    for (src, &c) in cols.iter().enumerate() {
        let ks = net.layer_size(src);
        s += eq::ln_jump_column(q1, c, ks, p.beta_prime)
            - eq::ln_jump_column(q0, c, ks, p.beta_prime);
    }
    s
}

/// Gibbs update of one candidate edge k → i given the prior log-odds of Z_ik = 1.
fn update_edge(
    net: &mut Network,
    p: &Params,
    i: usize,
    k: usize,
    prior_logit: f64,
    rng: &mut ChainRng,
) -> bool {
    let idx = net.edge_index(i, k);
    let (mu_w, rho_w) = (p.weight_prior.mean, p.weight_prior.precision);
    let (suu, sur, nu) = {
        let (ui, uk) = (net.unit(i), net.unit(k));
        let w = idx.map_or(0.0, |j| ui.parents[j].weight);
        (uk.suu, dot(&uk.u, &ui.res) + w * uk.suu, ui.nu)
    };
    let l = prior_logit + eq::ln_edge_bayes_factor(suu, sur, nu, mu_w, rho_w);
    let p1 = if l == f64::INFINITY {
        1.0
    } else if l == f64::NEG_INFINITY {
        0.0
    } else {
        1.0 / (1.0 + (-l).exp())
    };
    let z = rng.random::<f64>() < p1;
    if z {
        let (mean, prec) = eq::weight_conditional(suu, sur, nu, mu_w, rho_w);
        let e: f64 = StandardNormal.sample(rng);
        let w = mean + e / prec.sqrt();
        match idx {
            Some(j) => net.set_weight(i, j, w),
            None => net.add_edge(i, k, w),
        }
    } else if let Some(j) = idx {
        net.remove_edge(i, j);
    }
    z != idx.is_some()
}

/// One Phase 1 sweep over every unit as the child (the set of units does not change).
pub fn phase1(net: &mut Network, p: &Params, rng: &mut ChainRng) -> Phase1Stats {
    let mut st = Phase1Stats::default();
    let jumps = p.has_jumps();
    for i in net.ordered_ids() {
        let s = net.unit(i).layer;
        let k_s = net.layer_size(s);
        for k in net.layer(s + 1).to_vec() {
            let z = net.edge_index(i, k).is_some();
            let n_minus = net.n_adjacent_children(k) - usize::from(z);
            if n_minus == 0 {
                continue;
            }
            let mut prior = logit(eq::adjacent_edge_prob(n_minus, p.beta, k_s));
            if jumps {
                prior += jump_column_change(net, p, k, n_minus, k_s);
            }
            st.candidates += 1;
            st.flips += usize::from(update_edge(net, p, i, k, prior, rng));
        }
        if !jumps {
            continue;
        }
        for t in s + 2..net.depth() {
            let (k_prev, k_t) = (net.layer_size(t - 1), net.layer_size(t));
            for k in net.layer(t).to_vec() {
                let z = net.edge_index(i, k).is_some();
                let c_minus = net.children_in_layer(k, s) - usize::from(z);
                let n_k = net.n_adjacent_children(k);
                let prob = match p.jump_prior {
                    JumpPrior::Corrected => eq::jump_edge_prob(
                        eq::jump_q(n_k, p.beta, k_prev),
                        c_minus,
                        p.beta_prime,
                        k_s,
                    ),
                    JumpPrior::Paper => {
                        eq::jump_edge_prob_paper(n_k, c_minus, p.beta, p.beta_prime, k_s, k_t)
                    }
                };
                st.candidates += 1;
                st.flips += usize::from(update_edge(net, p, i, k, logit(prob), rng));
            }
        }
    }
    st
}

//! The activation update of paper `004_74db43a26dbf0fa1.txt` §4: multiple-try Metropolis MTM-II
//! (eq 10, footnote 1; Liu, Liang & Wong 2000) with the independent proposal T = the prior of
//! a_kn given its parents, N(y_kn, 1/ν_k), and λ(x, y) = [T(x, y)T(y, x)]⁻¹, so the weight of a
//! value is its likelihood f(a) = Π_c N(a_cn; y_cn(σ(a)), 1/ν_c) over the unit's children c
//! (jump children included).
//!
//! One step for one unit and one datum: draw q candidates from the prior; pick a_j with
//! probability ∝ f(a_j); draw q − 1 reference values from the prior and add the current value;
//! accept a_j with probability min{1, Σ f(candidates)/Σ f(references ∪ current)} — in log space.
//! q = `mtm_tries` (default 5; the paper gives none).

use rand::RngExt;
use rand_distr::{Distribution, StandardNormal};

use super::network::Network;
use crate::dallaire2014::equations as eq;
use crate::seed::ChainRng;

/// One child's term of f: its input without this parent, r = a_c − y_c + W_ck u_k, its weight
/// W_ck and its precision ν_c. ln f(a) = Σ_c −ν_c (r_c − W_ck σ(a))²/2 (+ a constant).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ChildTerm {
    /// r_c.
    pub r: f64,
    /// W_ck.
    pub w: f64,
    /// ν_c.
    pub nu: f64,
}

/// ln f(a) up to a constant (see [`ChildTerm`]).
#[inline]
pub fn ln_f(a: f64, children: &[ChildTerm]) -> f64 {
    let u = eq::sigmoid(a);
    let mut s = 0.0;
    for c in children {
        let e = c.r - c.w * u;
        s -= 0.5 * c.nu * e * e;
    }
    s
}

/// One MTM-II step (eq 10) for a value `current` with prior N(`prior_mean`, `prior_sd`²) and the
/// likelihood of `children`; returns the new value and whether the move was accepted. `q` ≥ 1.
/// `omit_current` drops the current value from the denominator (a broken kernel, the negative
/// control of issue 17 §6; only the tests set it). `scratch` is reused between calls.
#[allow(clippy::too_many_arguments)]
pub fn mtm_step(
    prior_mean: f64,
    prior_sd: f64,
    current: f64,
    children: &[ChildTerm],
    q: usize,
    omit_current: bool,
    scratch: &mut Vec<f64>,
    rng: &mut ChainRng,
) -> (f64, bool) {
    // scratch = [a_1..a_q, w_1..w_q]
    scratch.clear();
    scratch.resize(2 * q, 0.0);
    let (cand, wts) = scratch.split_at_mut(q);
    let mut mx = f64::NEG_INFINITY;
    for (a, l) in cand.iter_mut().zip(wts.iter_mut()) {
        let z: f64 = StandardNormal.sample(rng);
        *a = prior_mean + prior_sd * z;
        *l = ln_f(*a, children);
        mx = mx.max(*l);
    }
    if mx == f64::NEG_INFINITY || mx.is_nan() {
        return (current, false);
    }
    let mut sum_c = 0.0;
    for l in wts.iter_mut() {
        *l = (*l - mx).exp();
        sum_c += *l;
    }
    let t = rng.random::<f64>() * sum_c;
    let mut acc = 0.0;
    let mut best = cand[q - 1];
    for (a, w) in cand.iter().zip(wts.iter()) {
        acc += w;
        if t < acc {
            best = *a;
            break;
        }
    }
    let ln_num = mx + sum_c.ln();
    // references ∪ current: ln Σ exp by a running maximum
    let (mut mx_r, mut sum_r) = if omit_current {
        (f64::NEG_INFINITY, 0.0)
    } else {
        (ln_f(current, children), 1.0)
    };
    for _ in 1..q {
        let z: f64 = StandardNormal.sample(rng);
        let l = ln_f(prior_mean + prior_sd * z, children);
        if l > mx_r {
            sum_r = sum_r * (mx_r - l).exp() + 1.0;
            mx_r = l;
        } else {
            sum_r += (l - mx_r).exp();
        }
    }
    let ln_den = if sum_r > 0.0 {
        mx_r + sum_r.ln()
    } else {
        f64::NEG_INFINITY
    };
    let ln_a = (ln_num - ln_den).min(0.0);
    let accept = ln_a >= 0.0 || rng.random::<f64>() < ln_a.exp();
    if accept {
        (best, true)
    } else {
        (current, false)
    }
}

/// MTM for every datum of hidden unit `k` (which has at least one child), keeping every cache
/// consistent (its u, S_uu and residual, and its children's residuals). Returns the number of
/// accepted moves (out of N).
pub fn mtm_unit(
    net: &mut Network,
    k: usize,
    q: usize,
    omit_current: bool,
    scratch: &mut Vec<f64>,
    rng: &mut ChainRng,
) -> usize {
    let n = net.n();
    if n == 0 {
        return 0;
    }
    let children: Vec<(usize, f64, f64)> = net
        .unit(k)
        .children
        .iter()
        .map(|&c| {
            let cu = net.unit(c);
            let w = cu
                .parents
                .iter()
                .find(|e| e.parent == k)
                .map_or(0.0, |e| e.weight);
            (c, w, cu.nu)
        })
        .collect();
    // Take the vectors out of the slots so the loop indexes plain slices.
    let mut res_c: Vec<Vec<f64>> = children
        .iter()
        .map(|&(c, _, _)| std::mem::take(&mut net.unit_mut(c).res))
        .collect();
    let unit = net.unit_mut(k);
    let sd = 1.0 / unit.nu.sqrt();
    let mut terms: Vec<ChildTerm> = children
        .iter()
        .map(|&(_, w, nu)| ChildTerm { r: 0.0, w, nu })
        .collect();
    let mut accepted = 0;
    let mut suu = unit.suu;
    for t in 0..n {
        let (a0, u0) = (unit.a[t], unit.u[t]);
        let y = a0 - unit.res[t];
        for (term, r) in terms.iter_mut().zip(&res_c) {
            term.r = r[t] + term.w * u0;
        }
        let (a1, ok) = mtm_step(y, sd, a0, &terms, q, omit_current, scratch, rng);
        if ok && a1 != a0 {
            accepted += 1;
            let u1 = eq::sigmoid(a1);
            unit.a[t] = a1;
            unit.u[t] = u1;
            unit.res[t] = a1 - y;
            suu += u1 * u1 - u0 * u0;
            for (term, r) in terms.iter().zip(res_c.iter_mut()) {
                r[t] -= term.w * (u1 - u0);
            }
        } else if ok {
            accepted += 1;
        }
    }
    unit.suu = suu;
    for (&(c, _, _), r) in children.iter().zip(res_c.iter_mut()) {
        net.unit_mut(c).res = std::mem::take(r);
    }
    accepted
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::seed::chain_rng;

    #[test]
    fn q1_without_current_always_accepts() {
        let mut rng = chain_rng(4, 0, 0, 0);
        let mut s = Vec::new();
        let ch = [ChildTerm {
            r: 0.3,
            w: 2.0,
            nu: 50.0,
        }];
        for _ in 0..100 {
            assert!(mtm_step(0.0, 1.0, 0.1, &ch, 1, true, &mut s, &mut rng).1);
        }
    }
}

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

/// A [`ChildTerm`] with ν_c/2 computed once: (ν_c/2)·e·e is the same product, rounding for
/// rounding, as 0.5·ν_c·e·e in [`ln_f`].
#[derive(Debug, Clone, Copy)]
struct Term {
    r: f64,
    w: f64,
    half_nu: f64,
}

impl From<&ChildTerm> for Term {
    fn from(c: &ChildTerm) -> Self {
        Term {
            r: c.r,
            w: c.w,
            half_nu: 0.5 * c.nu,
        }
    }
}

/// [`ln_f`] as a function of the output u = σ(a) (a cached output spares one exp).
#[inline]
fn ln_f_of_u(u: f64, children: &[Term]) -> f64 {
    let mut s = 0.0;
    for c in children {
        let e = c.r - c.w * u;
        s -= c.half_nu * e * e;
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
    let terms: Vec<Term> = children.iter().map(Term::from).collect();
    let (a, _, ok) = step_cached(
        prior_mean,
        prior_sd,
        (current, eq::sigmoid(current)),
        &terms,
        q,
        omit_current,
        scratch,
        rng,
    );
    (a, ok)
}

/// [`mtm_step`] with the current value's output u = σ(a) given (`current` = (a, u)); returns the
/// new (a, u) and whether the move was accepted. The same draws and the same floating-point
/// results as [`mtm_step`]: σ of every value is computed once and reused, and exp(0) = 1 is not
/// called for the largest candidate weight.
#[allow(clippy::too_many_arguments)]
#[inline]
fn step_cached(
    prior_mean: f64,
    prior_sd: f64,
    current: (f64, f64),
    children: &[Term],
    q: usize,
    omit_current: bool,
    scratch: &mut Vec<f64>,
    rng: &mut ChainRng,
) -> (f64, f64, bool) {
    // scratch = [a_1..a_q, u_1..u_q, w_1..w_q, the q − 1 references' u]; every entry is written
    // before it is read. The draws come first and the σ and ln f of all values after them (the
    // same operations in the same order, grouped so that the exps overlap).
    if scratch.len() < 4 * q {
        scratch.resize(4 * q, 0.0);
    }
    let (cand, rest) = scratch.split_at_mut(q);
    let (outs, rest) = rest.split_at_mut(q);
    let (wts, rest) = rest.split_at_mut(q);
    let refs = &mut rest[..q - 1];
    for a in cand.iter_mut() {
        let z: f64 = StandardNormal.sample(rng);
        *a = prior_mean + prior_sd * z;
    }
    for (a, u) in cand.iter().zip(outs.iter_mut()) {
        *u = eq::sigmoid(*a);
    }
    let mut mx = f64::NEG_INFINITY;
    for (u, l) in outs.iter().zip(wts.iter_mut()) {
        *l = ln_f_of_u(*u, children);
        mx = mx.max(*l);
    }
    if mx == f64::NEG_INFINITY || mx.is_nan() {
        return (current.0, current.1, false);
    }
    let mut sum_c = 0.0;
    for l in wts.iter_mut() {
        // exp(0) = 1 exactly
        *l = if *l == mx { 1.0 } else { (*l - mx).exp() };
        sum_c += *l;
    }
    // the first j with t < w_1 + … + w_j (else the last), without a data-dependent branch
    let t = rng.random::<f64>() * sum_c;
    let mut acc = 0.0;
    let mut best = q - 1;
    let mut found = false;
    for (j, w) in wts.iter().enumerate() {
        acc += w;
        let hit = !found & (t < acc);
        best = if hit { j } else { best };
        found |= hit;
    }
    let ln_num = mx + sum_c.ln();
    // references ∪ current: ln Σ exp by a running maximum
    let (mut mx_r, mut sum_r) = if omit_current {
        (f64::NEG_INFINITY, 0.0)
    } else {
        (ln_f_of_u(current.1, children), 1.0)
    };
    for x in refs.iter_mut() {
        let z: f64 = StandardNormal.sample(rng);
        *x = prior_mean + prior_sd * z;
    }
    for x in refs.iter_mut() {
        *x = eq::sigmoid(*x);
    }
    for &u in refs.iter() {
        let l = ln_f_of_u(u, children);
        // one exp either way: mx_r − l = −(l − mx_r) exactly, and −|±0| gives exp(−0) = 1
        let e = (-(l - mx_r).abs()).exp();
        let up = l > mx_r;
        sum_r = if up { sum_r * e + 1.0 } else { sum_r + e };
        mx_r = if up { l } else { mx_r };
    }
    let ln_den = if sum_r > 0.0 {
        mx_r + sum_r.ln()
    } else {
        f64::NEG_INFINITY
    };
    let ln_a = (ln_num - ln_den).min(0.0);
    let accept = ln_a >= 0.0 || rng.random::<f64>() < ln_a.exp();
    if accept {
        (cand[best], outs[best], true)
    } else {
        (current.0, current.1, false)
    }
}

/// MTM for every datum of hidden unit `k` (which has at least one child), keeping every cache
/// consistent (its u, S_uu and residual, and its children's residuals). Returns the number of
/// accepted moves (out of N). The current value's ln f reads the cached u = σ(a) (the network
/// stores exactly that value), and an accepted candidate's u is the σ computed for its weight.
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
        .map(|&c| (c, net.weight_of(c, k), net.unit(c).nu))
        .collect();
    // Take the vectors out of the slots so the loop indexes plain slices.
    let mut res_c: Vec<Vec<f64>> = children
        .iter()
        .map(|&(c, _, _)| std::mem::take(&mut net.unit_mut(c).res))
        .collect();
    let unit = net.unit_mut(k);
    let sd = 1.0 / unit.nu.sqrt();
    let mut terms: Vec<Term> = children
        .iter()
        .map(|&(_, w, nu)| Term {
            r: 0.0,
            w,
            half_nu: 0.5 * nu,
        })
        .collect();
    let mut accepted = 0;
    let mut suu = unit.suu;
    let (a, u, res) = (&mut unit.a[..n], &mut unit.u[..n], &mut unit.res[..n]);
    for t in 0..n {
        let (a0, u0) = (a[t], u[t]);
        let y = a0 - res[t];
        for (term, r) in terms.iter_mut().zip(&res_c) {
            term.r = r[t] + term.w * u0;
        }
        let (a1, u1, ok) = step_cached(y, sd, (a0, u0), &terms, q, omit_current, scratch, rng);
        if ok && a1 != a0 {
            accepted += 1;
            a[t] = a1;
            u[t] = u1;
            res[t] = a1 - y;
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

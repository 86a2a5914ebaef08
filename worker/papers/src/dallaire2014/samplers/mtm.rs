//! The activation update of paper `004_74db43a26dbf0fa1.txt` §4: multiple-try Metropolis MTM-II
//! (eq 10, footnote 1; Liu, Liang & Wong 2000) with the independent proposal T = the prior of
//! a_kn given its parents, N(y_kn, 1/ν_k), and λ(x, y) = [T(x, y)T(y, x)]⁻¹, so the weight of a
//! value is its likelihood f(a) = Π_c N(a_cn; y_cn(σ(a)), 1/ν_c) over the unit's children c
//! (jump children included).
//!
//! One step for one unit and one datum: draw q candidates from the prior; pick a_j with
//! probability ∝ f(a_j); draw q − 1 reference values from the prior and add the current value;
//! accept a_j with probability min{1, Σ f(candidates)/Σ f(references ∪ current)} (each sum
//! scaled by its largest term). q = `mtm_tries` (default 5; the paper gives none).
//!
//! Speed: the steps of one unit for different data are independent given the rest,
//! so [`mtm_unit`] runs them in blocks of 64 data: all draws first (normals from one 32-bit word,
//! [`crate::ziggurat`]), then σ, ln f and the weights of the whole block in loops LLVM vectorizes
//! ([`crate::math::exp`] instead of libm's; AVX-512/AVX2 clones picked at run time), then the
//! acceptance and the pick datum by datum.

use rand::Rng;

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

/// Data points per block of [`mtm_unit`]: the steps of one unit for different data are
/// independent given everything else, so a block's draws come first and its σ, ln f and weights
/// are computed lane by lane over the block (loops LLVM vectorizes).
const BLOCK: usize = 64;

/// One unit's children as the block kernel reads them: W_ck and ν_c/2 of each child, and the
/// children's r (see [`ChildTerm`]) for the data of the block, child-major (`r[c·b + t]`).
struct Children<'a> {
    w: &'a [f64],
    half_nu: &'a [f64],
    r: &'a [f64],
}

/// One block of b data of one unit: the prior means y (b values), the prior sd (one value) and
/// the current outputs u = σ(a) (b values).
struct BlockPrior<'a> {
    mean: &'a [f64],
    sd: f64,
    current_u: &'a [f64],
}

/// ln f of the outputs `u` (b values) into `out`: Σ_c −(ν_c/2)(r_c − W_ck u)², the children in
/// order (every lane the same operations in the same order).
#[inline(always)]
fn ln_f_lanes(u: &[f64], ch: &Children<'_>, out: &mut [f64]) {
    let b = u.len();
    let out = &mut out[..b];
    out.fill(0.0);
    for ((&w, &hn), r) in ch.w.iter().zip(ch.half_nu).zip(ch.r.chunks_exact(b)) {
        for ((s, &u), &r) in out.iter_mut().zip(u).zip(r) {
            let e = r - w * u;
            *s -= hn * e * e;
        }
    }
}

/// The arithmetic of one block of MTM-II steps (eq 10), with no random draws: `vals` holds on
/// entry the 2q − 1 standard normals of each datum (`vals[j·b + t]`: candidates j < q, then the
/// q − 1 references) and on exit their outputs u = σ(y + sd·z); `cand_a` gets the candidates'
/// values a = y + sd·z (q·b), `lw` their weights f(a_j)/max_j f (q·b, then scratch), `sum_c` Σ_j of
/// those weights and `ratio` the acceptance ratio Σ f(candidates)/Σ f(references ∪ current) (b
/// each; NaN when no weight is finite, which rejects). `omit_current` leaves the current value
/// out of the denominator (the negative control). Compiled for AVX-512 and AVX2 as well as the
/// baseline and picked at run time: the same operations in the same order on every path (no FMA),
/// hence the same bits.
#[multiversion::multiversion(targets("x86_64+avx512f+avx512dq+avx2+avx", "x86_64+avx2+avx"))]
#[allow(clippy::too_many_arguments)]
fn weigh_block<'a>(
    prior: &BlockPrior<'a>,
    ch: &Children<'a>,
    q: usize,
    omit_current: bool,
    vals: &mut [f64],
    cand_a: &mut [f64],
    lw: &mut [f64],
    sum_c: &mut [f64],
    ratio: &mut [f64],
) {
    let b = prior.mean.len();
    let (sd, y) = (prior.sd, prior.mean);
    let (lw, rest) = lw.split_at_mut(q * b);
    let (l_ref, rest) = rest.split_at_mut(b);
    let (mx, rest) = rest.split_at_mut(b);
    let (mx_r, rest) = rest.split_at_mut(b);
    let sum_r = &mut rest[..b];
    let sum_c = &mut sum_c[..b];
    let ratio = &mut ratio[..b];
    // candidates: a, u = σ(a), ln f, their maximum
    mx.fill(f64::NEG_INFINITY);
    for ((z, a), l) in vals
        .chunks_exact_mut(b)
        .zip(cand_a.chunks_exact_mut(b))
        .zip(lw.chunks_exact_mut(b))
        .take(q)
    {
        for ((z, a), &y) in z.iter_mut().zip(a.iter_mut()).zip(y) {
            *a = y + sd * *z;
            *z = eq::sigmoid(*a);
        }
        ln_f_lanes(z, ch, l);
        for (m, &l) in mx.iter_mut().zip(l.iter()) {
            *m = if l > *m { l } else { *m };
        }
    }
    // weights exp(ln f − max) and their sum (exp(0) = 1 exactly for the largest)
    sum_c.fill(0.0);
    for l in lw.chunks_exact_mut(b) {
        for ((l, s), &m) in l.iter_mut().zip(sum_c.iter_mut()).zip(mx.iter()) {
            *l = crate::math::exp(*l - m);
            *s += *l;
        }
    }
    // references ∪ current: ln f, maximum, Σ exp(ln f − max)
    if omit_current {
        mx_r.fill(f64::NEG_INFINITY);
    } else {
        ln_f_lanes(prior.current_u, ch, mx_r);
    }
    let refs = &mut vals[q * b..(2 * q - 1) * b];
    for z in refs.chunks_exact_mut(b) {
        for (z, &y) in z.iter_mut().zip(y) {
            *z = eq::sigmoid(y + sd * *z);
        }
    }
    for u in refs.chunks_exact_mut(b) {
        ln_f_lanes(u, ch, l_ref);
        // keep ln f in place of u (u of a reference is not needed again)
        for ((u, &l), m) in u.iter_mut().zip(l_ref.iter()).zip(mx_r.iter_mut()) {
            *u = l;
            *m = if l > *m { l } else { *m };
        }
    }
    if omit_current {
        sum_r.fill(0.0);
    } else {
        ln_f_lanes(prior.current_u, ch, l_ref);
        for ((s, &l), &m) in sum_r.iter_mut().zip(l_ref.iter()).zip(mx_r.iter()) {
            *s = crate::math::exp(l - m);
        }
    }
    for l in refs.chunks_exact(b) {
        for ((s, &l), &m) in sum_r.iter_mut().zip(l).zip(mx_r.iter()) {
            *s += crate::math::exp(l - m);
        }
    }
    // Σ f(candidates)/Σ f(references ∪ current) = e^(max − max_r)·sum_c/sum_r; an overflow or
    // underflow of the exp happens only where the ratio is ≫ 1 or ≪ 10⁻³⁰⁰ (both sums lie in
    // [1, q]). With no reference at all (q = 1 without the current value) it is +∞.
    for (((r, &m), &mr), (&sc, &sr)) in ratio
        .iter_mut()
        .zip(mx.iter())
        .zip(mx_r.iter())
        .zip(sum_c.iter().zip(sum_r.iter()))
    {
        *r = crate::math::exp(m - mr) * (sc / sr);
    }
}

/// The buffers of one block: (`vals`, `cand_a`, `lw`, `sum_c`, `ratio`), cut from `scratch`.
type Buffers<'a> = (
    &'a mut [f64],
    &'a mut [f64],
    &'a mut [f64],
    &'a mut [f64],
    &'a mut [f64],
);

/// Cut the buffers of a block of `b` data and q tries from `scratch` (grown if needed).
fn buffers(scratch: &mut Vec<f64>, q: usize, b: usize) -> Buffers<'_> {
    let need = (2 * q - 1) * b + q * b + (q + 4) * b + 2 * b;
    if scratch.len() < need {
        scratch.resize(need, 0.0);
    }
    let (vals, rest) = scratch.split_at_mut((2 * q - 1) * b);
    let (cand_a, rest) = rest.split_at_mut(q * b);
    let (lw, rest) = rest.split_at_mut((q + 4) * b);
    let (sum_c, rest) = rest.split_at_mut(b);
    (vals, cand_a, lw, sum_c, &mut rest[..b])
}

/// One block of MTM-II steps (eq 10) for the data of `prior` (b of them): draws the 2q − 1
/// prior values of every datum, weighs them ([`weigh_block`]), then datum by datum accepts with
/// probability min{1, ratio} and picks candidate j with probability ∝ f(a_j). The pick and the
/// acceptance use one 64-bit word (two 32-bit uniforms): the references are drawn from the prior
/// whatever j is, so the acceptance probability does not depend on j and the two draws commute.
/// `decide(t, a, u, accepted)` is called for every datum t with the picked value and its output.
#[allow(clippy::too_many_arguments)]
fn step_block(
    prior: &BlockPrior<'_>,
    ch: &Children<'_>,
    q: usize,
    omit_current: bool,
    scratch: &mut Vec<f64>,
    rng: &mut ChainRng,
    mut decide: impl FnMut(usize, f64, f64, bool),
) {
    let b = prior.mean.len();
    let (vals, cand_a, lw, sum_c, ratio) = buffers(scratch, q, b);
    for z in vals.iter_mut() {
        *z = crate::ziggurat::standard_normal(rng);
    }
    weigh_block(prior, ch, q, omit_current, vals, cand_a, lw, sum_c, ratio);
    for t in 0..b {
        // one 64-bit word per datum: two uniforms on the grid 2⁻³² of [0, 1), for the
        // acceptance (u < ratio: certain when ratio ≥ 1, never when NaN) and the pick
        let bits = rng.next_u64();
        let accept = uniform32(bits >> 32) < ratio[t];
        // the first j with s < w_1 + … + w_j (else the last), without a data-dependent branch
        let s = uniform32(bits & 0xffff_ffff) * sum_c[t];
        let mut acc = 0.0;
        let mut best = q - 1;
        let mut found = false;
        for j in 0..q {
            acc += lw[j * b + t];
            let hit = !found & (s < acc);
            best = if hit { j } else { best };
            found |= hit;
        }
        decide(t, cand_a[best * b + t], vals[best * b + t], accept);
    }
}

/// A uniform in [0, 1) on the grid 2⁻³² from the low 32 bits of `x` (the high bits must be 0).
#[inline]
fn uniform32(x: u64) -> f64 {
    x as f64 * (1.0 / 4_294_967_296.0)
}

/// One MTM-II step (eq 10) for a value `current` with prior N(`prior_mean`, `prior_sd`²) and the
/// likelihood of `children`; returns the new value and whether the move was accepted. `q` ≥ 1.
/// `omit_current` drops the current value from the denominator (a broken kernel, the negative
/// control; only the tests set it). `scratch` is reused between calls. The same
/// kernel as [`mtm_unit`] (a block of one datum).
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
    let w: Vec<f64> = children.iter().map(|c| c.w).collect();
    let half_nu: Vec<f64> = children.iter().map(|c| 0.5 * c.nu).collect();
    let r: Vec<f64> = children.iter().map(|c| c.r).collect();
    let ch = Children {
        w: &w,
        half_nu: &half_nu,
        r: &r,
    };
    let prior = BlockPrior {
        mean: &[prior_mean],
        sd: prior_sd,
        current_u: &[eq::sigmoid(current)],
    };
    let mut out = (current, false);
    step_block(&prior, &ch, q, omit_current, scratch, rng, |_, a, _, ok| {
        if ok {
            out = (a, true);
        }
    });
    out
}

/// MTM for every datum of hidden unit `k` (which has at least one child), keeping every cache
/// consistent (its u, S_uu and residual, and its children's residuals), in blocks of
/// 64 data (`step_block`). Returns the number of accepted moves (out of N). The current
/// value's ln f reads the cached u = σ(a) (the network stores exactly that value), and an
/// accepted candidate's u is the σ computed for its weight.
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
    let w: Vec<f64> = children.iter().map(|&(_, w, _)| w).collect();
    let half_nu: Vec<f64> = children.iter().map(|&(_, _, nu)| 0.5 * nu).collect();
    // Take the vectors out of the slots so the loop indexes plain slices.
    let mut res_c: Vec<Vec<f64>> = children
        .iter()
        .map(|&(c, _, _)| std::mem::take(&mut net.unit_mut(c).res))
        .collect();
    let unit = net.unit_mut(k);
    let sd = 1.0 / unit.nu.sqrt();
    let mut accepted = 0;
    let mut suu = unit.suu;
    let (a, u, res) = (&mut unit.a[..n], &mut unit.u[..n], &mut unit.res[..n]);
    let mut y = [0.0; BLOCK];
    let mut r = vec![0.0; children.len() * BLOCK];
    for t0 in (0..n).step_by(BLOCK) {
        let b = BLOCK.min(n - t0);
        for t in 0..b {
            y[t] = a[t0 + t] - res[t0 + t];
        }
        for ((rb, rc), &w) in r.chunks_exact_mut(b).zip(&res_c).zip(&w) {
            for ((x, &rc), &u) in rb.iter_mut().zip(&rc[t0..t0 + b]).zip(&u[t0..t0 + b]) {
                *x = rc + w * u;
            }
        }
        let ch = Children {
            w: &w,
            half_nu: &half_nu,
            r: &r[..children.len() * b],
        };
        let prior = BlockPrior {
            mean: &y[..b],
            sd,
            current_u: &u[t0..t0 + b],
        };
        let mut moved: [(f64, f64, bool); BLOCK] = [(0.0, 0.0, false); BLOCK];
        step_block(
            &prior,
            &ch,
            q,
            omit_current,
            scratch,
            rng,
            |t, a1, u1, ok| {
                moved[t] = (a1, u1, ok);
            },
        );
        // without data-dependent branches: a datum that does not move adds 0 everywhere
        for (t, &(a1, u1, ok)) in moved[..b].iter().enumerate() {
            accepted += usize::from(ok);
            let i = t0 + t;
            let (a0, u0) = (a[i], u[i]);
            let mv = ok & (a1 != a0);
            a[i] = if mv { a1 } else { a0 };
            u[i] = if mv { u1 } else { u0 };
            res[i] = if mv { a1 - y[t] } else { res[i] };
            let du = if mv { u1 - u0 } else { 0.0 };
            suu += if mv { u1 * u1 - u0 * u0 } else { 0.0 };
            for (&w, rc) in w.iter().zip(res_c.iter_mut()) {
                rc[i] -= w * du;
            }
        }
    }
    unit.suu = suu;
    for (&(c, _, _), rc) in children.iter().zip(res_c.iter_mut()) {
        net.unit_mut(c).res = std::mem::take(rc);
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

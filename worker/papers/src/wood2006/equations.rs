//! Every equation of Wood, Griffiths & Ghahramani (2006), "A non-parametric Bayesian method for
//! inferring hidden causes" (`000_64a353240e4f1919.txt`), in one place, in
//! log space. The samplers call these functions and nothing else for the model's probabilities.
//!
//! Notation (paper §2–§3): `x` is N observed × T trials, `z` is N observed × K causes
//! (`z[i][k] = 1` if cause k is a parent of observed i), `y` is K causes × T trials,
//! `η_{i,t} = z_{i,:}·y_{:,t}` is the number of active parents of observed `i` on trial `t`,
//! λ the noisy-OR link strength, ε the leak, p the prior activation probability of a cause,
//! α the IBP concentration. `m_k = Σ_i z_{i,k}`, `K_+` the number of columns with `m_k > 0`,
//! `H_N = Σ_{i=1}^N 1/i`. All probabilities are natural logarithms unless the name says otherwise.
//!
//! Two places where this module deliberately differs from the printed text (both were checked by
//! exact enumeration, see `tests/wood2006_enumeration.rs`):
//! - Eq. 10 is printed `θ̄_k = (m_{-i,k} + α/K) / N`; the posterior predictive of the
//!   Beta(α/K, 1)–Bernoulli model behind Eq. 5 is `(m_{-i,k} + α/K) / (N + α/K)` (the printed form
//!   can exceed 1). [`theta_bar_finite`] uses the latter.
//! - Eqs. 7–9 count `δ` identical rows of `Y` in the reverse-move probability while evaluating the
//!   target with Eq. 5, which is the probability of one *ordered* matrix. With ordered states the
//!   multiplicity `(K+1)/δ` of the target cancels `δ/(K+1)`, so the correct acceptance has no `δ`.
//!   [`ln_accept_birth`] and [`ln_accept_death`] implement both ([`RjAcceptance::Corrected`], the
//!   default, and [`RjAcceptance::Paper`], the printed formula, which does not leave the posterior
//!   invariant).

use statrs::function::beta::ln_beta;
use statrs::function::factorial::{ln_binomial, ln_factorial};
use statrs::function::gamma::ln_gamma;

use crate::math::{log_sum_exp, log1m_exp};

// ---------------------------------------------------------------------------------------------
// §2: structure and Bayes' rule
// ---------------------------------------------------------------------------------------------

// Eq. 1 (the adjacency G = [[A, Z], [0, 0]]) is the structure itself: `z` (N × K) is all of it
// that is inferred, as the paper has A = 0. Eq. 2 (Bayes' rule) is never normalised: every
// sampler uses ratios of the unnormalised joint; the exact-enumeration tests normalise it with
// `math::log_sum_exp`.

// ---------------------------------------------------------------------------------------------
// §3.1: the finite generative model
// ---------------------------------------------------------------------------------------------

/// `ln(1 - λ)`, the per-active-parent log factor of Eq. 3.
pub fn ln_one_minus(x: f64) -> f64 {
    (-x).ln_1p()
}

/// Eq. 3 (noisy-OR): `ln P(x_{i,t} = x | η)` with `P(x = 1 | η) = 1 - (1-λ)^η (1-ε)`, where
/// `η = z_{i,:}·y_{:,t}` is the number of active parents. Requires `λ, ε ∈ (0, 1)`.
pub fn ln_noisy_or(x: bool, eta: u32, lambda: f64, epsilon: f64) -> f64 {
    let ln0 = f64::from(eta) * ln_one_minus(lambda) + ln_one_minus(epsilon);
    if x { log1m_exp(ln0) } else { ln0 }
}

/// Eq. 3 as a probability: `P(x_{i,t} = 1 | η) = 1 - (1-λ)^η (1-ε)`.
pub fn prob_x_one(eta: u32, lambda: f64, epsilon: f64) -> f64 {
    ln_noisy_or(true, eta, lambda, epsilon).exp()
}

/// Eq. 3 summed over all entries, from a histogram: `ln P(X | Z, Y) = Σ_e h0[e] ln P(x=0|e) +
/// h1[e] ln P(x=1|e)`, where `h0[e]` (`h1[e]`) counts entries with `x_{i,t} = 0` (1) and
/// `η_{i,t} = e`. This is the likelihood used for the Metropolis updates of λ and ε (§6).
pub fn ln_lik_from_hist(h0: &[u64], h1: &[u64], lambda: f64, epsilon: f64) -> f64 {
    let mut s = 0.0;
    for (e, &c) in h0.iter().enumerate() {
        if c > 0 {
            s += c as f64 * ln_noisy_or(false, e as u32, lambda, epsilon);
        }
    }
    for (e, &c) in h1.iter().enumerate() {
        if c > 0 {
            s += c as f64 * ln_noisy_or(true, e as u32, lambda, epsilon);
        }
    }
    s
}

/// Eq. 4: `ln P(Y) = Σ_{k,t} [y ln p + (1-y) ln(1-p)]` for a block of `total` entries of which
/// `ones` are 1. Also the prior probability `q(y)` of one proposed row of Y in Eqs. 7–8.
pub fn ln_p_y(ones: u64, total: u64, p: f64) -> f64 {
    let zeros = total.saturating_sub(ones);
    let a = if ones > 0 { ones as f64 * p.ln() } else { 0.0 };
    let b = if zeros > 0 {
        zeros as f64 * ln_one_minus(p)
    } else {
        0.0
    };
    a + b
}

/// One factor of Eq. 5: `ln[(α/K) Γ(m + α/K) Γ(N − m + 1) / Γ(N + 1 + α/K)]`, the probability of
/// one *ordered* column with `m` ones among `N` rows in the finite model with `K` columns and
/// `θ_k ~ Beta(α/K, 1)` integrated out.
pub fn ln_p_z_finite_column(m: usize, n: usize, alpha: f64, k: usize) -> f64 {
    let a = alpha / k as f64;
    a.ln() + ln_gamma(m as f64 + a) + ln_factorial((n - m.min(n)) as u64)
        - ln_gamma(n as f64 + 1.0 + a)
}

/// Eq. 5: `ln P(Z | K)` of an ordered N × K matrix in the finite model, from its column counts
/// `ms` (length K, including zeros). `ln P(Z|K) = Σ_k` [`ln_p_z_finite_column`]`(m_k, N, α, K)`.
pub fn ln_p_z_finite(ms: &[usize], n: usize, alpha: f64) -> f64 {
    let k = ms.len();
    ms.iter()
        .map(|&m| ln_p_z_finite_column(m, n, alpha, k))
        .sum()
}

/// Eq. 5 with `extra_zero_columns` additional all-zero columns and `K = ms.len() +
/// extra_zero_columns`, minus the column `skip` (if any): the `P(Z|K±1)` terms of Eqs. 8–9
/// without building the proposed matrix.
pub fn ln_p_z_finite_modified(
    ms: &[usize],
    n: usize,
    alpha: f64,
    extra_zero_columns: usize,
    skip: Option<usize>,
) -> f64 {
    let k = ms.len() + extra_zero_columns - usize::from(skip.is_some());
    let mut s = extra_zero_columns as f64 * ln_p_z_finite_column(0, n, alpha, k);
    for (j, &m) in ms.iter().enumerate() {
        if Some(j) != skip {
            s += ln_p_z_finite_column(m, n, alpha, k);
        }
    }
    s
}

// ---------------------------------------------------------------------------------------------
// §3.2: the infinite limit (Indian buffet process)
// ---------------------------------------------------------------------------------------------

/// `H_N = Σ_{i=1}^N 1/i` (§3.2).
pub fn harmonic(n: usize) -> f64 {
    (1..=n).map(|i| 1.0 / i as f64).sum()
}

/// §3.2, unnumbered display after Eq. 5 (Griffiths & Ghahramani's Eq. for the left-ordered-form
/// equivalence class): `ln P([Z]) = K_+ ln α − Σ_h ln K_h! − α H_N + Σ_{k≤K_+} ln[(N−m_k)!(m_k−1)!/N!]`.
///
/// `ms`: the counts `m_k ≥ 1` of the K_+ non-zero columns; `multiplicities`: the numbers `K_h` of
/// columns sharing each distinct binary pattern `h` (they sum to K_+). Zero counts in `ms` are a
/// caller error and give `-inf`.
pub fn ln_p_z_ibp(alpha: f64, n: usize, ms: &[usize], multiplicities: &[usize]) -> f64 {
    let k_plus = ms.len();
    let mut s = k_plus as f64 * alpha.ln() - alpha * harmonic(n);
    for &kh in multiplicities {
        s -= ln_factorial(kh as u64);
    }
    for &m in ms {
        s += ln_ibp_column(m, n);
    }
    s
}

/// §3.2 (IBP generative process): customer `i` (1-based) takes a dish already taken by `m` of the
/// previous customers with probability `m / i`.
pub fn ibp_existing_dish_prob(m: usize, i: usize) -> f64 {
    m as f64 / i as f64
}

/// §3.2 (IBP generative process): customer `i` (1-based) tries `Poisson(α / i)` new dishes.
pub fn ibp_new_dish_rate(alpha: f64, i: usize) -> f64 {
    alpha / i as f64
}

// ---------------------------------------------------------------------------------------------
// §4.1: reversible-jump MCMC for the finite model (Algorithm 1)
// ---------------------------------------------------------------------------------------------

/// Eq. 6: Metropolis–Hastings acceptance `ln A = min(0, ln[P(X,ξ*) / P(X,ξ)] + ln[Q(ξ|ξ*) /
/// Q(ξ*|ξ)])`. A NaN input gives NaN (the caller reports it).
pub fn ln_mh_acceptance(ln_target_ratio: f64, ln_proposal_ratio: f64) -> f64 {
    let r = ln_target_ratio + ln_proposal_ratio;
    if r.is_nan() { r } else { r.min(0.0) }
}

/// Which formula the RJMCMC birth/death acceptance uses (see the module documentation).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize, serde::Serialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum RjAcceptance {
    /// Ordered states, new column inserted at a uniformly random position; no `δ` term. Leaves
    /// the finite-model posterior invariant.
    #[default]
    Corrected,
    /// Eqs. 8–9 exactly as printed (with `δ`). Biased towards fewer causes.
    Paper,
}

/// When Algorithm 1 (RJMCMC) redraws Y (its lines 14–16). Both orders leave the finite-model
/// posterior invariant (each step is an exact Gibbs or Metropolis–Hastings update); they differ in
/// cost and mixing per iteration.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize, serde::Serialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum YSchedule {
    /// As printed: the full Y sweep runs inside the loop over the N rows of Z, N times per
    /// iteration (O(N·K·T) draws per iteration).
    #[default]
    PerRow,
    /// Once per iteration, after every row of Z has had its birth/death move and Eq. 11 updates
    /// (the schedule of Algorithm 2): a Y sweep's cost instead of N of them.
    PerSweep,
}

/// Eq. 7: `ln[Q(ξ|ξ*) / Q(ξ*|ξ)]` for a birth from `K` to `K+1` columns.
///
/// - [`RjAcceptance::Paper`]: `ln[(δ/(K+1)) / ((K_+/K) q(y))]` as printed, `δ` being the number
///   of rows of the proposed Y (new row included) equal to the new row.
/// - [`RjAcceptance::Corrected`]: forward `(K_+/K) q(y) / (K+1)` (pick a linked column, draw the row
///   from Eq. 4, insert at one of `K+1` positions), reverse `1/(K+1)` (pick that column):
///   `ln[K / (K_+ q(y))]`.
///
/// `ln_q_y` is Eq. 4 for the new row. `-inf`/`+inf` when `K_+ = 0` (no birth is possible).
pub fn ln_birth_proposal_ratio(
    variant: RjAcceptance,
    k: usize,
    k_plus: usize,
    delta: usize,
    ln_q_y: f64,
) -> f64 {
    let fwd_pick = (k_plus as f64).ln() - (k as f64).ln();
    match variant {
        RjAcceptance::Paper => (delta as f64).ln() - ((k + 1) as f64).ln() - fwd_pick - ln_q_y,
        RjAcceptance::Corrected => -fwd_pick - ln_q_y,
    }
}

/// §4.1, unnumbered display after Eq. 7: `ln[P(X, ξ*) / P(X, ξ)]` for a birth:
/// `ln q(y) + ln P(Z*|K+1) + ln P(K+1) − ln P(Z|K) − ln P(K)` (the likelihood is unchanged, the
/// new column having no links).
pub fn ln_birth_target_ratio(
    ln_q_y: f64,
    ln_pz_new: f64,
    ln_pk_new: f64,
    ln_pz_old: f64,
    ln_pk_old: f64,
) -> f64 {
    ln_q_y + ln_pz_new + ln_pk_new - ln_pz_old - ln_pk_old
}

/// Eq. 8: `ln A` for adding an unlinked cause (K → K+1), in the chosen `variant`:
/// `Paper`: `min(0, ln[(δ/(K+1)) P(Z*|K+1) P(K+1) / ((K_+/K) P(Z|K) P(K))])`;
/// `Corrected`: `min(0, ln[K P(Z*|K+1) P(K+1) / (K_+ P(Z|K) P(K))])`.
/// Equals Eq. 6 with [`ln_birth_target_ratio`] and [`ln_birth_proposal_ratio`] (the `q(y)` cancel).
#[allow(clippy::too_many_arguments)]
pub fn ln_accept_birth(
    variant: RjAcceptance,
    k: usize,
    k_plus: usize,
    delta: usize,
    ln_pz_new: f64,
    ln_pk_new: f64,
    ln_pz_old: f64,
    ln_pk_old: f64,
) -> f64 {
    if k_plus == 0 || k == 0 {
        return f64::NEG_INFINITY;
    }
    let target = ln_pz_new + ln_pk_new - ln_pz_old - ln_pk_old;
    let prop = ln_birth_proposal_ratio(variant, k, k_plus, delta, 0.0);
    ln_mh_acceptance(target, prop)
}

/// Eq. 9: `ln A` for deleting an unlinked cause (K → K−1), the reverse of Eq. 8:
/// `Paper`: `min(0, ln[(K_+/(K−1)) P(Z'|K−1) P(K−1) / ((δ/K) P(Z|K) P(K))])`, `δ` counting rows of the
/// current Y equal to the deleted row (itself included);
/// `Corrected`: `min(0, ln[K_+ P(Z'|K−1) P(K−1) / ((K−1) P(Z|K) P(K))])`.
/// `-inf` if `K = 1` or `K_+ = 0` (the reverse birth would be impossible).
#[allow(clippy::too_many_arguments)]
pub fn ln_accept_death(
    variant: RjAcceptance,
    k: usize,
    k_plus: usize,
    delta: usize,
    ln_pz_new: f64,
    ln_pk_new: f64,
    ln_pz_old: f64,
    ln_pk_old: f64,
) -> f64 {
    if k <= 1 || k_plus == 0 {
        return f64::NEG_INFINITY;
    }
    let target = ln_pz_new + ln_pk_new - ln_pz_old - ln_pk_old;
    let reverse_pick = (k_plus as f64).ln() - ((k - 1) as f64).ln();
    let prop = match variant {
        RjAcceptance::Paper => reverse_pick - ((delta as f64).ln() - (k as f64).ln()),
        RjAcceptance::Corrected => reverse_pick,
    };
    ln_mh_acceptance(target, prop)
}

/// Eq. 10 (finite model): `P(z_{i,k} = 1 | z_{-i,k}) = θ̄_k = (m_{-i,k} + α/K) / (N + α/K)`, the
/// Beta(α/K, 1)–Bernoulli predictive (the paper prints denominator `N`; see module docs).
pub fn theta_bar_finite(m_minus: usize, n: usize, alpha: f64, k: usize) -> f64 {
    let a = alpha / k as f64;
    (m_minus as f64 + a) / (n as f64 + a)
}

/// §4.2 (infinite model, Eq. 10's analogue): `θ̄_k = m_{-i,k} / N` for a column with
/// `m_{-i,k} > 0` (customer `i` treated as the last to enter the buffet).
pub fn theta_bar_infinite(m_minus: usize, n: usize) -> f64 {
    m_minus as f64 / n as f64
}

/// Eq. 11: log-odds `ln[P(z_{i,k}=1|…) / P(z_{i,k}=0|…)] = ln θ̄ − ln(1−θ̄) + Δ`, where
/// `Δ = Σ_t [ln P(x_{i,t}|η|_{z=1}) − ln P(x_{i,t}|η|_{z=0})]` (Eq. 3 terms; only trials with
/// `y_{k,t} = 1` contribute).
pub fn z_log_odds(theta_bar: f64, delta_ln_lik: f64) -> f64 {
    z_prior_log_odds(theta_bar) + delta_ln_lik
}

/// The prior part of Eq. 11's log-odds, `ln θ̄ − ln(1−θ̄)` (see [`z_log_odds`]).
pub fn z_prior_log_odds(theta_bar: f64) -> f64 {
    theta_bar.ln() - ln_one_minus(theta_bar)
}

/// Eq. 12: log-odds `ln[P(y_{k,t}=1|…) / P(y_{k,t}=0|…)] = ln p − ln(1−p) + Δ`, where
/// `Δ = Σ_i [ln P(x_{i,t}|η|_{y=1}) − ln P(x_{i,t}|η|_{y=0})]` (only rows with `z_{i,k} = 1`
/// contribute).
pub fn y_log_odds(p: f64, delta_ln_lik: f64) -> f64 {
    p.ln() - ln_one_minus(p) + delta_ln_lik
}

/// The difference of Eq. 3 terms used by Eqs. 11–12: `ln P(x | η+1) − ln P(x | η)`.
pub fn ln_noisy_or_step(x: bool, eta: u32, lambda: f64, epsilon: f64) -> f64 {
    ln_noisy_or(x, eta + 1, lambda, epsilon) - ln_noisy_or(x, eta, lambda, epsilon)
}

// ---------------------------------------------------------------------------------------------
// §4.2: Gibbs sampler for the infinite model (Algorithm 2)
// ---------------------------------------------------------------------------------------------

/// Eq. 13's prior: `ln P(K_i^new) = ln Poisson(K_i^new; α/N)`.
pub fn ln_k_new_prior(k_new: usize, alpha: f64, n: usize) -> f64 {
    let rate = alpha / n as f64;
    k_new as f64 * rate.ln() - rate - ln_factorial(k_new as u64)
}

/// Eq. 13: unnormalised `ln P(K_i^new | X_{i,:}, Z, Y) = ln P(X_{i,:} | …, K_i^new) + ln P(K_i^new)`,
/// with the likelihood from Eq. 14 ([`ln_lik_row_new`] or [`ln_lik_row_new_hist`]).
pub fn ln_k_new_weight(k_new: usize, alpha: f64, n: usize, ln_lik_row: f64) -> f64 {
    ln_k_new_prior(k_new, alpha, n) + ln_lik_row
}

/// Eq. 15: `ln P(x_{i,t} | η, K_i^new)` with the new rows of Y marginalised:
/// `P(x = 1) = 1 − (1−ε) (1−λ)^η (1 − λp)^{K_i^new}`, where `η = z_{i,1:K}·y_{1:K,t}` counts the
/// active *existing* parents.
pub fn ln_px_new(x: bool, eta: u32, k_new: usize, lambda: f64, epsilon: f64, p: f64) -> f64 {
    let ln0 = ln_one_minus(epsilon)
        + f64::from(eta) * ln_one_minus(lambda)
        + k_new as f64 * ln_one_minus(lambda * p);
    if x { log1m_exp(ln0) } else { ln0 }
}

/// Eq. 15, one summand of the second line: `ln[ C(K^new, m) p^m (1−p)^{K^new−m} P(x | η + m) ]`,
/// the joint of `m` active new causes and `x`. Normalised over `m = 0..=K^new` it is the exact
/// conditional of the number of active new causes on trial `t`, used to draw the new rows of Y
/// (Algorithm 2, lines 13–15).
pub fn ln_new_active_weight(
    m: usize,
    k_new: usize,
    x: bool,
    eta: u32,
    lambda: f64,
    epsilon: f64,
    p: f64,
) -> f64 {
    ln_new_active_prior(m, k_new, p) + ln_noisy_or(x, eta + m as u32, lambda, epsilon)
}

/// The prior part of Eq. 15's summand: `ln[ C(K^new, m) p^m (1−p)^{K^new−m} ]`, the probability
/// that `m` of `K^new` new causes are active on a trial.
pub fn ln_new_active_prior(m: usize, k_new: usize, p: f64) -> f64 {
    ln_binomial(k_new as u64, m as u64) + ln_p_y(m as u64, k_new as u64, p)
}

/// Eq. 14: `ln P(X_{i,1:T} | Z, Y, K_i^new) = Σ_t ln P(x_{i,t} | …)` (Eq. 15 per trial).
/// `x_row`, `eta_row`: length T. Reference implementation; the sampler uses
/// [`ln_lik_row_new_hist`].
pub fn ln_lik_row_new(
    x_row: &[u8],
    eta_row: &[u32],
    k_new: usize,
    lambda: f64,
    epsilon: f64,
    p: f64,
) -> f64 {
    x_row
        .iter()
        .zip(eta_row)
        .map(|(&x, &e)| ln_px_new(x != 0, e, k_new, lambda, epsilon, p))
        .sum()
}

/// Eq. 14 from histograms of the row: `h0[e]` (`h1[e]`) trials with `x_{i,t} = 0` (1) and
/// `η_{i,t} = e`. Same value as [`ln_lik_row_new`], in O(#distinct η) instead of O(T).
pub fn ln_lik_row_new_hist(
    h0: &[u64],
    h1: &[u64],
    k_new: usize,
    lambda: f64,
    epsilon: f64,
    p: f64,
) -> f64 {
    let mut s = 0.0;
    for (e, &c) in h0.iter().enumerate() {
        if c > 0 {
            s += c as f64 * ln_px_new(false, e as u32, k_new, lambda, epsilon, p);
        }
    }
    for (e, &c) in h1.iter().enumerate() {
        if c > 0 {
            s += c as f64 * ln_px_new(true, e as u32, k_new, lambda, epsilon, p);
        }
    }
    s
}

/// Eqs. 13–15 for every `K_i^new = 0..=k_max` at once (the sampler's hot path): `out[k] =`
/// [`ln_k_new_weight`]`(k, α, N,` [`ln_lik_row_new_hist`]`(h0, h1, k, λ, ε, p))`, where
/// `ln_prior[k]` = [`ln_k_new_prior`]`(k, α, N)` for `k = 0..=k_max` is precomputed by the caller.
/// O(k_max · #distinct η) with one `ln_1p` per (η, k): with `q_e = (1−ε)(1−λ)^e` and
/// `r = 1 − λp`, Eq. 15 gives `ln P(x=1) = ln(1 − q_e r^k)` and `ln P(x=0) = ln q_e + k ln r`.
pub fn ln_k_new_weights(
    h0: &[u64],
    h1: &[u64],
    ln_prior: &[f64],
    lambda: f64,
    epsilon: f64,
    p: f64,
    out: &mut Vec<f64>,
) {
    let (a, b, c) = (
        ln_one_minus(epsilon),
        ln_one_minus(lambda),
        ln_one_minus(lambda * p),
    );
    let r = c.exp();
    let mut s0 = 0.0;
    let mut n0 = 0.0;
    for (e, &cnt) in h0.iter().enumerate() {
        if cnt > 0 {
            s0 += cnt as f64 * (a + e as f64 * b);
            n0 += cnt as f64;
        }
    }
    out.clear();
    out.extend(
        ln_prior
            .iter()
            .enumerate()
            .map(|(k, lp)| lp + s0 + k as f64 * c * n0),
    );
    for (e, &cnt) in h1.iter().enumerate() {
        if cnt > 0 {
            let mut q = (a + e as f64 * b).exp();
            for o in out.iter_mut() {
                *o += cnt as f64 * (-q).ln_1p();
                q *= r;
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Split–merge for Algorithm 2 (ours, not in the paper; Meeds et al. 2007, "Modeling
// dyadic data with binary latent factors", §3.2, adapted to the noisy-OR and its rows of Y)
// ---------------------------------------------------------------------------------------------

/// `ln f(m) = ln[(N−m)!(m−1)!/N!]`, the factor of one non-empty column in [`ln_p_z_ibp`].
/// `-inf` for `m = 0` or `m > N`.
pub fn ln_ibp_column(m: usize, n: usize) -> f64 {
    if m == 0 || m > n {
        return f64::NEG_INFINITY;
    }
    ln_factorial((n - m) as u64) + ln_factorial((m - 1) as u64) - ln_factorial(n as u64)
}

/// `ln[π(split) / π(merged)]` of the Z prior when column `k` (`m_k` ones) becomes columns `a`
/// and `b` (`m_a`, `m_b` ones; `z_a ∨ z_b = z_k`) in a state of `k_plus` columns, for the target
/// of Algorithm 2 on ordered column lists, `α^{K_+}/K_+! · e^{−αH_N} · Π_k f(m_k)` (the
/// left-ordered-form probability [`ln_p_z_ibp`] spread uniformly over the `K_+!/Π_h K_h!`
/// orderings of its class): `ln α − ln(K_+ + 1) + ln f(m_a) + ln f(m_b) − ln f(m_k)`.
pub fn ln_split_prior_ratio(
    alpha: f64,
    n: usize,
    k_plus: usize,
    m_k: usize,
    m_a: usize,
    m_b: usize,
) -> f64 {
    alpha.ln() - ((k_plus + 1) as f64).ln() + ln_ibp_column(m_a, n) + ln_ibp_column(m_b, n)
        - ln_ibp_column(m_k, n)
}

/// The split proposal's log probability of one row's allocation when column `k` splits into `a`
/// (which keeps row `i`) and `b` (which takes row `j`): a row in both with probability `share`,
/// otherwise in one of them; rows `i` and `j` are in `a` and `b` respectively, and in the other
/// one too with probability `share`. `in_a`, `in_b`: the allocation; `anchor`: `Some(true)` for
/// row `i`, `Some(false)` for row `j`, `None` for the other rows of `k`. `-inf` for an allocation
/// the proposal cannot make.
pub fn ln_split_row_allocation(in_a: bool, in_b: bool, anchor: Option<bool>, share: f64) -> f64 {
    match (anchor, in_a, in_b) {
        (_, true, true) => share.ln(),
        (Some(true), true, false) | (Some(false), false, true) => (1.0 - share).ln(),
        (None, true, false) | (None, false, true) => ((1.0 - share) / 2.0).ln(),
        _ => f64::NEG_INFINITY,
    }
}

/// Eq. 4's prior of one trial's activations `(y_a, y_b)` of a split column given `y_a ∨ y_b = 1`,
/// unnormalised: `ln p + ln(1−p)` for exactly one active, `2 ln p` for both.
pub fn ln_split_trial_prior(y_a: bool, y_b: bool, p: f64) -> f64 {
    match (y_a, y_b) {
        (true, true) => 2.0 * p.ln(),
        (true, false) | (false, true) => p.ln() + (-p).ln_1p(),
        (false, false) => f64::NEG_INFINITY,
    }
}

// ---------------------------------------------------------------------------------------------
// §6: hyperparameters (Beta(1,1) on λ, ε, p; Gamma(1,1) on α; defaults configurable)
// ---------------------------------------------------------------------------------------------

/// `ln Beta(x; a, b)` density on (0, 1) (§6's prior on λ, ε and p). `-inf` outside (0, 1).
pub fn ln_beta_density(x: f64, a: f64, b: f64) -> f64 {
    if !(x > 0.0 && x < 1.0) {
        return f64::NEG_INFINITY;
    }
    (a - 1.0) * x.ln() + (b - 1.0) * ln_one_minus(x) - ln_beta(a, b)
}

/// `ln Gamma(x; shape, rate)` density on (0, ∞) (§6's prior on α). `-inf` for `x ≤ 0`.
pub fn ln_gamma_density(x: f64, shape: f64, rate: f64) -> f64 {
    if x.is_nan() || x <= 0.0 {
        return f64::NEG_INFINITY;
    }
    shape * rate.ln() - ln_gamma(shape) + (shape - 1.0) * x.ln() - rate * x
}

/// §6: Gibbs update of p. With prior Beta(a, b) and Eq. 4, `p | Y ~ Beta(a + ones, b + total −
/// ones)`; returns the two parameters. `total` is the number of entries of Y in the state (`K_+ T`
/// for the infinite model, `K T` for the finite one).
pub fn p_conditional(a: f64, b: f64, ones: u64, total: u64) -> (f64, f64) {
    (a + ones as f64, b + total.saturating_sub(ones) as f64)
}

/// §6: Gibbs update of α in the infinite model. The IBP probability (§3.2) is `∝ α^{K_+}
/// exp(−α H_N)`, so with a Gamma(shape, rate) prior `α | Z ~ Gamma(shape + K_+, rate + H_N)`;
/// returns `(shape, rate)`.
pub fn alpha_conditional_infinite(shape: f64, rate: f64, k_plus: usize, n: usize) -> (f64, f64) {
    (shape + k_plus as f64, rate + harmonic(n))
}

/// §6 (Metropolis updates of λ and ε): reflect a random-walk proposal back into [0, 1]
/// (`u ↦ −u` below 0, `u ↦ 2 − u` above 1, repeatedly). A Gaussian walk folded this way is a
/// symmetric proposal on (0, 1), so the Hastings ratio is 1.
pub fn reflect_unit(mut u: f64) -> f64 {
    if !u.is_finite() {
        return f64::NAN;
    }
    u = u.rem_euclid(2.0);
    if u > 1.0 { 2.0 - u } else { u }
}

// ---------------------------------------------------------------------------------------------
// Choices the paper leaves open: the prior P(K) of the finite model (§4.1)
// ---------------------------------------------------------------------------------------------

/// The prior `P(K)` of the RJMCMC finite model, on `K ∈ 1..=k_max` (the paper does not specify it;
/// `K ≥ 1` because Algorithm 1 needs a column to pick and §5 starts at K = 1).
#[derive(Debug, Clone, Copy, PartialEq, serde::Deserialize, serde::Serialize, Default)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum KPrior {
    /// `Poisson(α H_N)` truncated to `1..=k_max`: the IBP's prior on the number of active causes
    /// `K_+`, so both samplers expect the same number of causes a priori. Depends on α.
    #[default]
    Ibp,
    /// `Poisson(mean)` truncated to `1..=k_max`.
    Poisson {
        /// The Poisson mean, > 0.
        mean: f64,
    },
    /// `P(K) ∝ (1 − q)^{K−1} q` on `1..=k_max`.
    Geometric {
        /// Success probability q ∈ (0, 1).
        q: f64,
    },
    /// Uniform on `1..=k_max`.
    Uniform,
}

/// Normalised `ln P(K)` for [`KPrior`] on `1..=k_max` (`-inf` outside). `alpha` and `n` are used
/// by [`KPrior::Ibp`] only (mean `α H_N`). O(k_max) for the Poisson kinds (the truncation
/// constant); use [`ln_k_prior_ratio`] when only a ratio is needed.
pub fn ln_k_prior(prior: KPrior, k: usize, k_max: usize, alpha: f64, n: usize) -> f64 {
    if k == 0 || k > k_max {
        return f64::NEG_INFINITY;
    }
    match prior {
        KPrior::Ibp => ln_truncated_poisson(k, k_max, alpha * harmonic(n)),
        KPrior::Poisson { mean } => ln_truncated_poisson(k, k_max, mean),
        KPrior::Geometric { q } => {
            // normaliser Σ_{k=1}^{k_max} (1−q)^{k−1} q = 1 − (1−q)^{k_max}
            let ln_norm = log1m_exp(k_max as f64 * ln_one_minus(q));
            (k - 1) as f64 * ln_one_minus(q) + q.ln() - ln_norm
        }
        KPrior::Uniform => -(k_max as f64).ln(),
    }
}

/// `ln[P(K_to) / P(K_from)]` for [`KPrior`], in O(1) (the truncation constant cancels).
pub fn ln_k_prior_ratio(
    prior: KPrior,
    k_to: usize,
    k_from: usize,
    k_max: usize,
    alpha: f64,
    n: usize,
) -> f64 {
    if k_to == 0 || k_to > k_max {
        return f64::NEG_INFINITY;
    }
    let unnorm = |k: usize| -> f64 {
        match prior {
            KPrior::Ibp => k as f64 * (alpha * harmonic(n)).ln() - ln_factorial(k as u64),
            KPrior::Poisson { mean } => k as f64 * mean.ln() - ln_factorial(k as u64),
            KPrior::Geometric { q } => k as f64 * ln_one_minus(q),
            KPrior::Uniform => 0.0,
        }
    };
    unnorm(k_to) - unnorm(k_from)
}

fn ln_truncated_poisson(k: usize, k_max: usize, mean: f64) -> f64 {
    // ln pmf(j) by the recurrence ln pmf(j) = ln pmf(j−1) + ln mean − ln j, then log-sum-exp.
    let ln_mean = mean.ln();
    let mut terms = Vec::with_capacity(k_max);
    let mut acc = -mean; // ln pmf(0)
    for j in 1..=k_max {
        acc += ln_mean - (j as f64).ln();
        terms.push(acc);
    }
    terms[k - 1] - log_sum_exp(&terms)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn eq15_is_the_marginal_over_new_rows() {
        // Brute force: Σ_{Y_new} P(x | η + Σ y_new) Π q(y_new) equals Eq. 15.
        let (lambda, epsilon, p) = (0.7, 0.05, 0.3);
        for k_new in 0..5usize {
            for eta in 0..3u32 {
                for x in [false, true] {
                    let mut total = 0.0;
                    for mask in 0u32..(1 << k_new) {
                        let m = mask.count_ones();
                        let py = ln_p_y(u64::from(m), k_new as u64, p).exp();
                        total += py * ln_noisy_or(x, eta + m, lambda, epsilon).exp();
                    }
                    let eq15 = ln_px_new(x, eta, k_new, lambda, epsilon, p).exp();
                    assert!(
                        (total - eq15).abs() < 1e-12,
                        "{k_new} {eta} {x}: {total} vs {eq15}"
                    );
                    let summands: Vec<f64> = (0..=k_new)
                        .map(|m| ln_new_active_weight(m, k_new, x, eta, lambda, epsilon, p))
                        .collect();
                    assert!((log_sum_exp(&summands).exp() - eq15).abs() < 1e-12);
                }
            }
        }
    }

    #[test]
    fn hist_and_direct_row_likelihoods_agree() {
        let x = [1u8, 0, 1, 1, 0, 0, 1];
        let eta = [0u32, 2, 1, 3, 0, 1, 1];
        let mut h0 = vec![0u64; 4];
        let mut h1 = vec![0u64; 4];
        for (a, &e) in x.iter().zip(&eta) {
            if *a == 1 {
                h1[e as usize] += 1
            } else {
                h0[e as usize] += 1
            }
        }
        for k in 0..4 {
            let a = ln_lik_row_new(&x, &eta, k, 0.8, 0.1, 0.2);
            let b = ln_lik_row_new_hist(&h0, &h1, k, 0.8, 0.1, 0.2);
            assert!((a - b).abs() < 1e-12);
        }
        let a = ln_lik_row_new(&x, &eta, 0, 0.8, 0.1, 0.2);
        assert!((a - ln_lik_from_hist(&h0, &h1, 0.8, 0.1)).abs() < 1e-12);
        let mut all = Vec::new();
        let prior: Vec<f64> = (0..=10).map(|k| ln_k_new_prior(k, 1.7, 5)).collect();
        ln_k_new_weights(&h0, &h1, &prior, 0.8, 0.1, 0.2, &mut all);
        assert_eq!(all.len(), 11);
        for (k, w) in all.iter().enumerate() {
            let want = ln_k_new_weight(k, 1.7, 5, ln_lik_row_new_hist(&h0, &h1, k, 0.8, 0.1, 0.2));
            assert!((w - want).abs() < 1e-10, "{k}: {w} vs {want}");
        }
    }

    #[test]
    fn lof_probability_is_the_limit_of_eq5() {
        // P([Z]) = lim_{K→∞} (number of ordered Z in the class) × P(Z|K) (Griffiths & Ghahramani).
        // Class: columns (1,1,0), (1,0,0), (1,0,0) for N = 3.
        let n = 3;
        let alpha = 1.7;
        let ms = [2usize, 1, 1];
        let mults = [1usize, 2];
        let lof = ln_p_z_ibp(alpha, n, &ms, &mults);
        let k = 200_000usize;
        let mut with_zeros = ms.to_vec();
        with_zeros.resize(k, 0);
        // number of orderings: K! / ((K − K+)! Π K_h!)
        let ln_orderings = (0..3).map(|j| ((k - j) as f64).ln()).sum::<f64>() - 2f64.ln();
        let finite = ln_orderings + ln_p_z_finite(&with_zeros, n, alpha);
        assert!((lof - finite).abs() < 1e-3, "{lof} vs {finite}");
    }

    #[test]
    fn theta_bar_is_the_beta_bernoulli_predictive() {
        // P(z_i = 1 | rest) from Eq. 5 as a ratio of column probabilities.
        let (n, alpha, k) = (4usize, 2.0, 3usize);
        for m_minus in 0..n {
            let p1 = ln_p_z_finite_column(m_minus + 1, n, alpha, k).exp();
            let p0 = ln_p_z_finite_column(m_minus, n, alpha, k).exp();
            let want = p1 / (p1 + p0);
            assert!((theta_bar_finite(m_minus, n, alpha, k) - want).abs() < 1e-12);
        }
    }

    #[test]
    fn k_prior_is_normalised_and_ratios_match() {
        for prior in [
            KPrior::Ibp,
            KPrior::Poisson { mean: 2.5 },
            KPrior::Geometric { q: 0.3 },
            KPrior::Uniform,
        ] {
            let s: f64 = (1..=12)
                .map(|k| ln_k_prior(prior, k, 12, 1.3, 5).exp())
                .sum();
            assert!((s - 1.0).abs() < 1e-12, "{prior:?}: {s}");
            let r = ln_k_prior(prior, 4, 12, 1.3, 5) - ln_k_prior(prior, 3, 12, 1.3, 5);
            assert!((r - ln_k_prior_ratio(prior, 4, 3, 12, 1.3, 5)).abs() < 1e-12);
        }
        assert_eq!(
            ln_k_prior_ratio(KPrior::Uniform, 13, 12, 12, 1.0, 3),
            f64::NEG_INFINITY
        );
    }

    #[test]
    fn reflection_stays_in_unit_interval() {
        for u in [-2.3, -0.2, 0.3, 1.4, 2.9, 7.1] {
            let r = reflect_unit(u);
            assert!((0.0..=1.0).contains(&r), "{u} -> {r}");
        }
        assert!((reflect_unit(1.2) - 0.8).abs() < 1e-12);
        assert!((reflect_unit(-0.2) - 0.2).abs() < 1e-12);
    }

    #[test]
    fn densities_integrate_to_one() {
        let n = 20_000;
        let s: f64 = (0..n)
            .map(|j| ln_beta_density((j as f64 + 0.5) / n as f64, 2.0, 3.0).exp())
            .sum::<f64>()
            / n as f64;
        assert!((s - 1.0).abs() < 1e-6);
        let s: f64 = (0..n)
            .map(|j| ln_gamma_density((j as f64 + 0.5) * 0.002, 2.0, 1.5).exp())
            .sum::<f64>()
            * 0.002;
        assert!((s - 1.0).abs() < 1e-4, "{s}");
    }
}

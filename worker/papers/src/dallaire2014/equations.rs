//! Every equation of paper `004_74db43a26dbf0fa1.txt` (Dallaire, Giguère & Chaib-draa, AAAI 2014),
//! under its number, in log space where it is a probability. The samplers call these functions
//! and nothing else for the model's probabilities.
//!
//! Notation (§2–§4): layer 0 holds the D observed units, hidden units sit in layers m ≥ 1; unit i
//! computes y_i = γ_i + Σ_k Z_ik W_ik u_k (eq 1), its pre-sigmoid activation is
//! a_i = y_i + ε, ε ~ N(0, 1/ν_i), and its output u_i = σ(a_i). K^(m) is the number of units of
//! layer m, n_k^(m−1,m) the number of layer-(m−1) children of unit k of layer m, and c_k^(s,m) the
//! number of layer-s units with a jump edge to k (s ≤ m − 2).
//!
//! Where this module departs from the print (the tests of §6 check it):
//! - **Eq 12** is printed (β′n_k/(β′+K^(s)))·(n_{−i,k}/(β+K^(m))) + n_{−i,k}/(β′+K^(s)): zero
//!   whenever n_{−i,k}^(s,m) = 0, so no jump could ever start, and its denominators disagree with
//!   eq 9. [`jump_edge_prob`] is the conditional of eq 9, (β′q_k + n_{−i,k})/(β′ + K^(s) − 1);
//!   [`jump_edge_prob_paper`] keeps the printed form (`jump_prior: paper`, a negative control).
//! - **Eqs 15–16** print (K_o + 1)⁻² and K^(m), and no jump terms. The acceptance that leaves the
//!   posterior invariant is λ_i/c(S′) · J_old(S′)/J(S) · likelihood ratio with
//!   λ_i = αβ/(β + K^(m−1) − 1) ([`ln_birth_acceptance`]); the printed form is
//!   [`ln_birth_acceptance_paper`] / [`ln_death_acceptance_paper`] (`birth_death: paper`).

use statrs::function::beta::ln_beta;
use statrs::function::gamma::ln_gamma;

use crate::math::log_sum_exp;

const LN_2PI: f64 = 1.837_877_066_409_345_5;

// ---------------------------------------------------------------------------------------------
// §2: units (eqs 1–2)
// ---------------------------------------------------------------------------------------------

/// Eq 1: y_i = γ_i + Σ_k W_ik u_k over the parents of unit i (adjacent and jump). `weighted` is
/// an iterator of (W_ik, u_k) pairs.
pub fn unit_input(gamma: f64, weighted: impl IntoIterator<Item = (f64, f64)>) -> f64 {
    gamma + weighted.into_iter().map(|(w, u)| w * u).sum::<f64>()
}

/// The sigmoid of §2, σ(x) = 2/(1 + e^{−x}) − 1 = tanh(x/2), with values in [−1, 1]
/// (computed in the printed form with the branch-free [`crate::math::exp`], so that the MTM's
/// loops over candidates vectorize and every caller gets the same bits; absolute error ~1e-16).
#[inline(always)]
pub fn sigmoid(x: f64) -> f64 {
    2.0 / (1.0 + crate::math::exp(-x)) - 1.0
}

/// [`sigmoid`] of every value of `a` into `u` (the shorter length): the same bits as [`sigmoid`]
/// element by element, in a loop compiled for AVX-512 and AVX2 as well as the baseline and
/// picked at run time (plain f64 operations, no FMA: every path gives the same bits).
#[multiversion::multiversion(targets("x86_64+avx512f+avx512dq+avx2+avx", "x86_64+avx2+avx"))]
pub fn sigmoid_into(a: &[f64], u: &mut [f64]) {
    for (u, &a) in u.iter_mut().zip(a) {
        *u = sigmoid(a);
    }
}

/// The inverse sigmoid, σ⁻¹(u) = ln((1 + u)/(1 − u)), for u in (−1, 1) (±∞ at ±1, NaN outside).
#[inline]
pub fn sigmoid_inv(u: f64) -> f64 {
    u.ln_1p() - (-u).ln_1p()
}

/// σ′(σ⁻¹(u)) = (1 − u²)/2: the derivative of the sigmoid at the activation whose output is u.
#[inline]
pub fn sigmoid_prime_at_inv(u: f64) -> f64 {
    0.5 * (1.0 - u * u)
}

/// Eq 2 as a density in the pre-sigmoid activation a (the sampler's state variable):
/// ln N(a; y, 1/ν) = ½ ln ν − ½ ln 2π − ν(a − y)²/2. Every density of the model is this one;
/// the Jacobian 1/σ′ of eq 2 never depends on the parameters.
#[inline]
pub fn ln_unit_density(a: f64, y: f64, nu: f64) -> f64 {
    let r = a - y;
    0.5 * (nu.ln() - LN_2PI) - 0.5 * nu * r * r
}

/// Eq 2 as printed, a density in the output u ∈ (−1, 1): ln N(σ⁻¹(u); y, 1/ν) − ln σ′(σ⁻¹(u)).
pub fn ln_unit_density_output(u: f64, y: f64, nu: f64) -> f64 {
    ln_unit_density(sigmoid_inv(u), y, nu) - sigmoid_prime_at_inv(u).ln()
}

// ---------------------------------------------------------------------------------------------
// §3.1–3.2: the (cascading) Indian buffet process (eqs 3–7)
// ---------------------------------------------------------------------------------------------

/// Eq 3: the Beta(αβ/K, β − αβ/K) parameters of a popularity π_k in a finite layer of K units
/// (requires K > α so that both are positive). Eqs 4–6 (base measure, discrete measure B^(m),
/// connection measures) are the generative process itself: `samplers::forward`.
pub fn popularity_beta_params(alpha: f64, beta: f64, k: usize) -> (f64, f64) {
    let a = alpha * beta / k as f64;
    (a, beta - a)
}

/// Eq 7, existing dish: customer j (1-based) of an IBP(α, β) takes a unit taken by n_k earlier
/// customers with probability n_k/(β + j − 1).
pub fn ibp_take_prob(n_k: usize, beta: f64, j: usize) -> f64 {
    n_k as f64 / (beta + j as f64 - 1.0)
}

/// Eq 7, new dishes: customer j (1-based) creates Poisson(αβ/(β + j − 1)) new units.
pub fn ibp_new_mean(alpha: f64, beta: f64, j: usize) -> f64 {
    alpha * beta / (beta + j as f64 - 1.0)
}

/// H(N) = Σ_{j=1}^{N} β/(β + j − 1): K^(m) given K^(m−1) = N is Poisson(α H(N)).
pub fn ibp_harmonic(n: usize, beta: f64) -> f64 {
    (1..=n).map(|j| beta / (beta + j as f64 - 1.0)).sum()
}

/// The IBP(α, β) term of one adjacent layer pair in set form (units are labelled by their
/// parameters, so there is no 1/Π K_h!), with N = `customers` and the dish counts n_k:
/// K ln(αβ) − α H(N) + Σ_k [lnΓ(n_k) + lnΓ(N − n_k + β) − lnΓ(N + β)].
/// With no dishes it is −α H(N), the probability that the customers create no unit (the term of
/// the last, empty layer). Every n_k must be in 1..=N.
pub fn ln_ibp_pair(customers: usize, counts: &[usize], alpha: f64, beta: f64) -> f64 {
    let n = customers as f64;
    let mut s = counts.len() as f64 * (alpha * beta).ln() - alpha * ibp_harmonic(customers, beta);
    let c = ln_gamma(n + beta);
    for &nk in counts {
        let nk = nk as f64;
        s += ln_gamma(nk) + ln_gamma(n - nk + beta) - c;
    }
    s
}

// ---------------------------------------------------------------------------------------------
// §3.3: jump connections (eqs 8–9)
// ---------------------------------------------------------------------------------------------

/// Eq 8's base measure at unit k of layer m: q_k = n_k^(m−1,m)/(β + K^(m−1)), in (0, 1).
pub fn jump_q(n_k: usize, beta: f64, k_prev: usize) -> f64 {
    n_k as f64 / (beta + k_prev as f64)
}

/// Eq 9: customer j (1-based) of layer s connects to unit k of layer m ≥ s + 2 with probability
/// (β′q_k + c_k)/(β′ + j − 1), where c_k counts the earlier layer-s customers connected to k.
pub fn jump_prob(q: f64, c: usize, beta_prime: f64, j: usize) -> f64 {
    (beta_prime * q + c as f64) / (beta_prime + j as f64 - 1.0)
}

/// The marginal of one column of Z^(s,m) under eq 9 (the sequential product over all
/// `customers` = K^(s) customers, `c` of them connected): ln B(β′q + c, β′(1−q) + K − c) −
/// ln B(β′q, β′(1−q)).
pub fn ln_jump_column(q: f64, c: usize, customers: usize, beta_prime: f64) -> f64 {
    let a = beta_prime * q;
    let b = beta_prime * (1.0 - q);
    ln_beta(a + c as f64, b + (customers - c) as f64) - ln_beta(a, b)
}

// ---------------------------------------------------------------------------------------------
// The structure log prior (CIBP: eqs 3–7; eCIBP: plus eqs 8–9)
// ---------------------------------------------------------------------------------------------

/// The counts a structure's log prior depends on (built by `samplers::network::Network`).
///
/// Layers 0..=M are the non-empty layers. Shapes: `layer_sizes` M + 1; `adjacent[m]` has
/// K^(m) entries n_k^(m−1,m) (`adjacent[0]` empty); `jumps[t][k][s]` is c_k^(s,t) for units k of
/// layer t ≥ 2 and s ≤ t − 2 (`jumps[0]`, `jumps[1]` empty). `jump_customers[s]` is the number of
/// layer-s units counted as jump customers: K^(s), except in J_old(S′) of the birth/death move
///, where the new units' own jump rows are left out (and out of `jumps` too).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct StructureCounts {
    /// K^(m), m = 0..=M.
    pub layer_sizes: Vec<usize>,
    /// n_k^(m−1,m) per layer m and unit k.
    pub adjacent: Vec<Vec<usize>>,
    /// Customers per layer s counted in the jump columns.
    pub jump_customers: Vec<usize>,
    /// c_k^(s,t) per layer t, unit k of t, source layer s ≤ t − 2.
    pub jumps: Vec<Vec<Vec<usize>>>,
}

/// The IBP part of the structure log prior: [`ln_ibp_pair`] for every adjacent pair
/// (m − 1, m), m = 1..=M + 1, the last one empty (the roots have no parents).
pub fn ln_ibp_prior(c: &StructureCounts, alpha: f64, beta: f64) -> f64 {
    let depth = c.layer_sizes.len();
    (1..=depth)
        .map(|m| {
            let counts: &[usize] = if m < depth { &c.adjacent[m] } else { &[] };
            ln_ibp_pair(c.layer_sizes[m - 1], counts, alpha, beta)
        })
        .sum()
}

/// The eCIBP jump part ln J of the structure log prior: [`ln_jump_column`] for every unit k of
/// every layer t ≥ max(2, `from_layer`) and every s ≤ t − 2, with q_k = [`jump_q`] from
/// `adjacent` and `layer_sizes` and the customers of `jump_customers`. `from_layer` = 0 gives
/// all of J; the birth/death move uses the layers it changes only.
pub fn ln_jump_prior(c: &StructureCounts, beta: f64, beta_prime: f64, from_layer: usize) -> f64 {
    let mut s = 0.0;
    for t in from_layer.max(2)..c.layer_sizes.len() {
        for (k, cols) in c.jumps[t].iter().enumerate() {
            let q = jump_q(c.adjacent[t][k], beta, c.layer_sizes[t - 1]);
            for (src, &ck) in cols.iter().enumerate() {
                s += ln_jump_column(q, ck, c.jump_customers[src], beta_prime);
            }
        }
    }
    s
}

/// THE structure log prior: [`ln_ibp_prior`] plus, for the eCIBP (`jumps`), [`ln_jump_prior`].
/// Used by the moves, the tests and `log_joint`.
pub fn ln_structure_prior(
    c: &StructureCounts,
    alpha: f64,
    beta: f64,
    beta_prime: f64,
    jumps: bool,
) -> f64 {
    let ibp = ln_ibp_prior(c, alpha, beta);
    if jumps {
        ibp + ln_jump_prior(c, beta, beta_prime, 0)
    } else {
        ibp
    }
}

// ---------------------------------------------------------------------------------------------
// §4: activations (eq 10)
// ---------------------------------------------------------------------------------------------

/// Eq 10 (MTM-II, footnote 1) in log space: ln a_u = min{0, ln Σ_{j≤q} f(a_j) −
/// ln Σ f(reference ∪ current)}. `ln_f_candidates` has q values, `ln_f_references` the q − 1
/// reference values and the current one.
pub fn ln_mtm_acceptance(ln_f_candidates: &[f64], ln_f_references: &[f64]) -> f64 {
    (log_sum_exp(ln_f_candidates) - log_sum_exp(ln_f_references)).min(0.0)
}

// ---------------------------------------------------------------------------------------------
// §4 Phase 1: edges with W integrated out (eqs 11–14)
// ---------------------------------------------------------------------------------------------

/// Eq 11: the prior probability of an adjacent edge from unit k to unit i of layer s,
/// n_{−i,k}/(β + K^(s) − 1).
pub fn adjacent_edge_prob(n_minus: usize, beta: f64, k_s: usize) -> f64 {
    n_minus as f64 / (beta + k_s as f64 - 1.0)
}

/// Eq 12 as corrected: the prior probability of a jump edge from unit k of layer
/// m ≥ s + 2 to unit i of layer s, (β′q_k + n_{−i,k}^(s,m))/(β′ + K^(s) − 1) — the conditional
/// of eq 9 for one customer given the others.
pub fn jump_edge_prob(q: f64, c_minus: usize, beta_prime: f64, k_s: usize) -> f64 {
    (beta_prime * q + c_minus as f64) / (beta_prime + k_s as f64 - 1.0)
}

/// Eq 12 as printed (`jump_prior: paper`, a negative control):
/// (β′ n_k^(m−1,m)/(β′ + K^(s))) · n_{−i,k}/(β + K^(m)) + n_{−i,k}/(β′ + K^(s)), clamped to
/// [0, 1] (the printed form can exceed 1).
pub fn jump_edge_prob_paper(
    n_k: usize,
    c_minus: usize,
    beta: f64,
    beta_prime: f64,
    k_s: usize,
    k_m: usize,
) -> f64 {
    let c = c_minus as f64;
    let a = beta_prime + k_s as f64;
    let p = beta_prime * n_k as f64 / a * c / (beta + k_m as f64) + c / a;
    p.clamp(0.0, 1.0)
}

/// Eqs 13–14: the mean and precision of Z_ik W_ik's likelihood, μ_e = S_ur/S_uu and
/// ρ_e = ν_i S_uu, with S_uu = Σ_n u_kn² and S_ur = Σ_n u_kn r_n, r_n = a_in − ξ_ikn the input of
/// unit i without this edge. μ_e is NaN when S_uu = 0; use [`ln_edge_bayes_factor`].
pub fn edge_likelihood(s_uu: f64, s_ur: f64, nu: f64) -> (f64, f64) {
    (s_ur / s_uu, nu * s_uu)
}

/// Eqs 13–14 integrated over W ~ N(μ_w, 1/ρ_w): the log Bayes factor of Z_ik = 1 against 0,
/// ½ ln(ρ_w/(ρ_w + ν S_uu)) + (ρ_wμ_w + ν S_ur)²/(2(ρ_w + ν S_uu)) − ρ_wμ_w²/2
/// (= N(μ_e; μ_w, 1/ρ_e + 1/ρ_w)/N(μ_e; 0, 1/ρ_e); finite when S_uu = 0).
pub fn ln_edge_bayes_factor(s_uu: f64, s_ur: f64, nu: f64, mu_w: f64, rho_w: f64) -> f64 {
    let prec = rho_w + nu * s_uu;
    let lin = rho_w * mu_w + nu * s_ur;
    0.5 * (rho_w / prec).ln() + lin * lin / (2.0 * prec) - 0.5 * rho_w * mu_w * mu_w
}

/// The Gaussian conditional of W_ik given Z_ik = 1 (Phase 1 after the draw, and the conjugate
/// step): (mean, precision) = ((ρ_wμ_w + ν S_ur)/(ρ_w + ν S_uu), ρ_w + ν S_uu).
pub fn weight_conditional(s_uu: f64, s_ur: f64, nu: f64, mu_w: f64, rho_w: f64) -> (f64, f64) {
    let prec = rho_w + nu * s_uu;
    ((rho_w * mu_w + nu * s_ur) / prec, prec)
}

// ---------------------------------------------------------------------------------------------
// §4 Phase 2: birth/death (eqs 15–16)
// ---------------------------------------------------------------------------------------------

/// ln λ_i, λ_i = αβ/(β + K^(m−1) − 1): the IBP ratio of adding a unit of layer m whose only
/// child is unit i of layer m − 1 (K^(m−1) = `k_child_layer` ≥ 1). Eq 15 prints K^(m); K^(m−1)
/// agrees with eq 11.
pub fn ln_birth_rate(alpha: f64, beta: f64, k_child_layer: usize) -> f64 {
    (alpha * beta).ln() - (beta + k_child_layer as f64 - 1.0).ln()
}

/// Eq 15 as corrected: ln of λ_i/c(S′) · J_old(S′)/J(S) · Π_n f(a_in | k*)/f(a_in),
/// with `c_after` = c(S′) ≥ 1 the death candidates of unit i after the birth, `ln_j_ratio` =
/// ln J_old(S′) − ln J(S) (0 for the CIBP) and `ln_lr` the log likelihood ratio of unit i.
/// The death (eq 16) is its negative, evaluated at the larger state. Not clamped at 0.
pub fn ln_birth_acceptance(ln_lambda: f64, c_after: usize, ln_j_ratio: f64, ln_lr: f64) -> f64 {
    ln_lambda - (c_after as f64).ln() + ln_j_ratio + ln_lr
}

/// Eq 15 as printed (`birth_death: paper`): ln[(K_o + 1)⁻² αβ/(β + K^(m) − 1)] + ln_lr, with
/// K_o the current singleton parents of unit i and K^(m) the current size of the parent layer
/// (a non-positive denominator, K^(m) = 0 with β ≤ 1, gives +∞: always accept).
pub fn ln_birth_acceptance_paper(alpha: f64, beta: f64, k_o: usize, k_m: usize, ln_lr: f64) -> f64 {
    let den = beta + k_m as f64 - 1.0;
    if den <= 0.0 {
        return f64::INFINITY;
    }
    -2.0 * ((k_o + 1) as f64).ln() + (alpha * beta).ln() - den.ln() + ln_lr
}

/// Eq 16 as printed (`birth_death: paper`): ln[(β + K^(m) − 1)/(K_o⁻² αβ)] + ln_lr, with K_o ≥ 1
/// the current singleton parents, K^(m) the current parent-layer size and `ln_lr` = ln Π_n
/// f(a_in | k removed)/f(a_in | k present).
pub fn ln_death_acceptance_paper(alpha: f64, beta: f64, k_o: usize, k_m: usize, ln_lr: f64) -> f64 {
    (beta + k_m as f64 - 1.0).ln() + 2.0 * (k_o as f64).ln() - (alpha * beta).ln() + ln_lr
}

// ---------------------------------------------------------------------------------------------
// §3.4: conjugate parameter updates (the paper omits them "for brevity")
// ---------------------------------------------------------------------------------------------

/// The Gaussian conditional of γ_i given prior N(μ_γ, 1/ρ_γ) and the N residuals
/// e_n = a_in − (y_in − γ_i): (mean, precision) = ((ρ_γμ_γ + ν Σ e_n)/(ρ_γ + Nν), ρ_γ + Nν).
pub fn bias_conditional(sum_e: f64, n: usize, nu: f64, mu_g: f64, rho_g: f64) -> (f64, f64) {
    let prec = rho_g + n as f64 * nu;
    ((rho_g * mu_g + nu * sum_e) / prec, prec)
}

/// The Gamma conditional of ν_i (shape/rate) given prior Gamma(shape, rate) and the N residuals
/// a_in − y_in with sum of squares `ss`: Gamma(shape + N/2, rate + ss/2).
pub fn precision_conditional(ss: f64, n: usize, shape: f64, rate: f64) -> (f64, f64) {
    (shape + 0.5 * n as f64, rate + 0.5 * ss)
}

/// ln N(x; μ, 1/ρ), the Gaussian priors of W and γ.
pub fn ln_gaussian(x: f64, mu: f64, rho: f64) -> f64 {
    ln_unit_density(x, mu, rho)
}

/// ln Gamma(x; shape, rate) (shape/rate convention), the prior of ν.
pub fn ln_gamma_density(x: f64, shape: f64, rate: f64) -> f64 {
    shape * rate.ln() - ln_gamma(shape) + (shape - 1.0) * x.ln() - rate * x
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sigmoid_round_trip_and_derivative() {
        for &x in &[-5.0, -0.3, 0.0, 1.7, 9.0] {
            let u = sigmoid(x);
            assert!((sigmoid_inv(u) - x).abs() < 1e-9);
            let h = 1e-6;
            let num = (sigmoid(x + h) - sigmoid(x - h)) / (2.0 * h);
            assert!((num - sigmoid_prime_at_inv(u)).abs() < 1e-8);
            assert!((u - (2.0 / (1.0 + (-x).exp()) - 1.0)).abs() < 1e-14);
        }
    }

    #[test]
    fn sigmoid_into_gives_the_scalar_bits() {
        // the dispatched loop (AVX-512 or AVX2 where the machine has it) against the baseline
        // scalar call: the MTM and the network caches rely on one σ, bit for bit
        let mut a: Vec<f64> = (0..4001).map(|i| -40.0 + 0.02 * f64::from(i)).collect();
        a.extend([
            -1e4, -750.0, -709.5, 708.5, 745.0, 1e4, 0.0, -0.0, 1e-300, -1e-300,
        ]);
        let mut u = vec![0.0; a.len()];
        sigmoid_into(&a, &mut u);
        for (x, y) in a.iter().zip(&u) {
            assert_eq!(
                y.to_bits(),
                sigmoid(std::hint::black_box(*x)).to_bits(),
                "σ({x})"
            );
        }
        assert_eq!((sigmoid(-1e4), sigmoid(1e4)), (-1.0, 1.0));
    }

    #[test]
    fn eq11_is_the_ibp_term_ratio() {
        // Adding customer i's edge to dish k: n_k goes n → n + 1 with N customers.
        let (n_cust, beta) = (5usize, 1.7);
        for n_minus in 1..n_cust {
            let with = ln_ibp_pair(n_cust, &[n_minus + 1], 0.8, beta);
            let without = ln_ibp_pair(n_cust, &[n_minus], 0.8, beta);
            let p = adjacent_edge_prob(n_minus, beta, n_cust);
            assert!(((with - without) - (p / (1.0 - p)).ln()).abs() < 1e-12);
        }
    }

    #[test]
    fn eq12_corrected_is_the_beta_column_ratio() {
        let (q, bp, k_s) = (0.37, 2.0, 4usize);
        for c in 0..k_s {
            let p = jump_edge_prob(q, c, bp, k_s);
            let r = ln_jump_column(q, c + 1, k_s, bp) - ln_jump_column(q, c, k_s, bp);
            assert!((r - (p / (1.0 - p)).ln()).abs() < 1e-12);
        }
        assert_eq!(jump_edge_prob_paper(3, 0, 1.0, 2.0, 4, 2), 0.0);
    }

    #[test]
    fn bayes_factor_matches_eqs_13_14() {
        let (s_uu, s_ur, nu, mu, rho) = (2.3, -0.7, 1.9, 0.4, 1.3);
        let (mu_e, rho_e) = edge_likelihood(s_uu, s_ur, nu);
        let lhs = ln_edge_bayes_factor(s_uu, s_ur, nu, mu, rho);
        let rhs =
            ln_gaussian(mu_e, mu, 1.0 / (1.0 / rho_e + 1.0 / rho)) - ln_gaussian(mu_e, 0.0, rho_e);
        assert!((lhs - rhs).abs() < 1e-12);
        assert!(ln_edge_bayes_factor(0.0, 0.0, 1.0, 0.5, 2.0).abs() < 1e-15);
    }

    #[test]
    fn birth_rate_is_the_ibp_ratio_of_a_singleton() {
        let (alpha, beta) = (0.7, 1.4);
        for n in 2..6 {
            let r = ln_ibp_pair(n, &[1, 2], alpha, beta) - ln_ibp_pair(n, &[2], alpha, beta);
            assert!((r - ln_birth_rate(alpha, beta, n)).abs() < 1e-12);
        }
    }
}

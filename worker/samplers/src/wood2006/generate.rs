//! The generative model of §3: Z from the Indian buffet process (§3.2), Y from Eq. 4, X from the
//! noisy-OR of Eq. 3. Used to build synthetic datasets (§5) and by the Geweke tests.

use rand::RngExt;
use rand_distr::{Distribution, Poisson};

use super::binary::BinaryMatrix;
use super::equations::{ibp_existing_dish_prob, ibp_new_dish_rate, prob_x_one};

/// Draw a Poisson(rate) count; `rate ≤ 0` gives 0. Errors if the rate is not finite or too large
/// for rand_distr.
fn poisson<R: rand::Rng + ?Sized>(rate: f64, rng: &mut R) -> Result<usize, String> {
    if rate <= 0.0 {
        return Ok(0);
    }
    let d = Poisson::new(rate).map_err(|e| format!("Poisson({rate}): {e}"))?;
    let v: f64 = d.sample(rng);
    Ok(v as usize)
}

/// Draw Z (N observed × K_+ causes) from IBP(α) with N customers (§3.2): customer `i` takes each
/// previous dish with probability `m_k / i` and `Poisson(α / i)` new dishes. Columns come in order
/// of first appearance (left-ordered by first customer). If `stop_above` is given, the draw is
/// abandoned (returns `Ok(None)`) as soon as more than that many dishes exist.
///
/// Errors: α not finite and positive.
pub fn sample_ibp<R: rand::Rng + ?Sized>(
    alpha: f64,
    n: usize,
    stop_above: Option<usize>,
    rng: &mut R,
) -> Result<Option<BinaryMatrix>, String> {
    if !(alpha > 0.0 && alpha.is_finite()) {
        return Err(format!(
            "IBP concentration must be positive and finite, got {alpha}"
        ));
    }
    // columns[k] = rows that took dish k
    let mut columns: Vec<Vec<usize>> = Vec::new();
    for i in 1..=n {
        for col in columns.iter_mut() {
            if rng.random::<f64>() < ibp_existing_dish_prob(col.len(), i) {
                col.push(i - 1);
            }
        }
        let new = poisson(ibp_new_dish_rate(alpha, i), rng)?;
        if let Some(cap) = stop_above
            && columns.len() + new > cap
        {
            return Ok(None);
        }
        for _ in 0..new {
            columns.push(vec![i - 1]);
        }
    }
    let mut z = BinaryMatrix::zeros(n, columns.len());
    for (k, col) in columns.iter().enumerate() {
        for &i in col {
            z.set(i, k, 1);
        }
    }
    Ok(Some(z))
}

/// Rejection sampling of Z from IBP(α) conditioned on exactly `k_plus` non-zero columns (§5):
/// draw until `K_+ = k_plus`, at most `max_attempts` times. Returns the draw and the number of
/// attempts used. Errors: α invalid, or no draw hit `k_plus` (the message gives the prior mean
/// `α H_N` of `K_+`).
pub fn sample_ibp_with_k_plus<R: rand::Rng + ?Sized>(
    alpha: f64,
    n: usize,
    k_plus: usize,
    max_attempts: u64,
    rng: &mut R,
) -> Result<(BinaryMatrix, u64), String> {
    for attempt in 1..=max_attempts {
        if let Some(z) = sample_ibp(alpha, n, Some(k_plus), rng)?
            && z.cols == k_plus
        {
            return Ok((z, attempt));
        }
    }
    Err(format!(
        "no IBP(alpha = {alpha}) draw with N = {n} had exactly K+ = {k_plus} non-zero columns in {max_attempts} \
         attempts (the prior mean of K+ is alpha * H_N = {:.2}); choose k_plus nearer that mean or raise \
         max_attempts",
        alpha * super::equations::harmonic(n)
    ))
}

/// Draw Y (K causes × T trials) with i.i.d. Bernoulli(p) entries (Eq. 4).
pub fn sample_y<R: rand::Rng + ?Sized>(k: usize, t: usize, p: f64, rng: &mut R) -> BinaryMatrix {
    let mut y = BinaryMatrix::zeros(k, t);
    for v in y.data.iter_mut() {
        *v = u8::from(rng.random::<f64>() < p);
    }
    y
}

/// Draw X (N observed × T trials) from the noisy-OR of Eq. 3 given Z (N × K) and Y (K × T):
/// `P(x_{i,t} = 1) = 1 − (1−λ)^{z_{i,:}·y_{:,t}} (1−ε)`. Errors if the inner dimensions differ.
pub fn sample_x<R: rand::Rng + ?Sized>(
    z: &BinaryMatrix,
    y: &BinaryMatrix,
    lambda: f64,
    epsilon: f64,
    rng: &mut R,
) -> Result<BinaryMatrix, String> {
    if z.cols != y.rows {
        return Err(format!(
            "Z has {} columns but Y has {} rows",
            z.cols, y.rows
        ));
    }
    let (n, t) = (z.rows, y.cols);
    let mut x = BinaryMatrix::zeros(n, t);
    for i in 0..n {
        for tt in 0..t {
            let eta: u32 = (0..z.cols)
                .map(|k| u32::from(z.get(i, k) & y.get(k, tt)))
                .sum();
            let p1 = prob_x_one(eta, lambda, epsilon);
            x.set(i, tt, u8::from(rng.random::<f64>() < p1));
        }
    }
    Ok(x)
}

//! Log-space helpers shared by the samplers. Special functions come from statrs.

/// `log(Σ exp(x_i))`, stable; `-inf` for an empty slice or all `-inf`.
pub fn log_sum_exp(xs: &[f64]) -> f64 {
    let m = xs.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    if m == f64::NEG_INFINITY {
        return f64::NEG_INFINITY;
    }
    if m == f64::INFINITY {
        return f64::INFINITY;
    }
    m + xs.iter().map(|x| (x - m).exp()).sum::<f64>().ln()
}

/// `log(exp(a) + exp(b))`, stable.
pub fn log_add_exp(a: f64, b: f64) -> f64 {
    let m = a.max(b);
    if m == f64::NEG_INFINITY {
        return m;
    }
    m + ((a - m).exp() + (b - m).exp()).ln()
}

/// `log(1 - exp(x))` for `x ≤ 0`, accurate near both ends (Mächler 2012).
pub fn log1m_exp(x: f64) -> f64 {
    if x > -std::f64::consts::LN_2 {
        (-x.exp_m1()).ln()
    } else {
        (-x.exp()).ln_1p()
    }
}

/// Sample an index with probabilities proportional to `exp(logw)`, given `u ~ U(0,1)`.
/// Returns `None` if every weight is `-inf` or any is NaN.
pub fn sample_log_weights(logw: &[f64], u: f64) -> Option<usize> {
    if logw.iter().any(|w| w.is_nan()) {
        return None;
    }
    let lse = log_sum_exp(logw);
    if !lse.is_finite() {
        return None;
    }
    let mut acc = 0.0;
    let target = u;
    for (i, w) in logw.iter().enumerate() {
        acc += (w - lse).exp();
        if target < acc {
            return Some(i);
        }
    }
    // Rounding: fall back to the last index with positive weight.
    logw.iter().rposition(|w| *w > f64::NEG_INFINITY)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lse_basics() {
        assert!((log_sum_exp(&[0.0, 0.0]) - 2f64.ln()).abs() < 1e-15);
        assert_eq!(log_sum_exp(&[]), f64::NEG_INFINITY);
        assert!((log_sum_exp(&[1000.0, 1000.0]) - (1000.0 + 2f64.ln())).abs() < 1e-12);
        assert!((log_add_exp(-1.0, -2.0) - ((-1f64).exp() + (-2f64).exp()).ln()).abs() < 1e-15);
        assert!((log1m_exp(-1e-20) - (1e-20f64).ln()).abs() < 1e-9);
        assert_eq!(sample_log_weights(&[f64::NEG_INFINITY, 0.0], 0.0), Some(1));
    }
}

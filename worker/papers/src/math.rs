//! Log-space helpers shared by the samplers, and [`exp`], a branch-free exponential that LLVM
//! can vectorize. Special functions come from statrs.

/// ln 2 split for the Cody–Waite reduction: `LN2_HI` has 32 significant bits, so k·`LN2_HI` is
/// exact for every |k| ≤ 1100, and `LN2_HI` + `LN2_LO` = ln 2 to ~2⁻¹⁰⁵ (fdlibm's constants).
const LN2_HI: f64 = f64::from_bits(0x3fe6_2e42_fee0_0000);
const LN2_LO: f64 = f64::from_bits(0x3dea_39ef_3579_3c76);
/// 1.5·2⁵²: x + `SHIFT` − `SHIFT` rounds x (|x| < 2⁵¹) to the nearest integer (ties to even),
/// and the low bits of x + `SHIFT` hold that integer.
const SHIFT: f64 = 6_755_399_441_055_744.0;
/// Below this, [`exp`] returns 0 (e^−708 ≈ 3.3·10⁻³⁰⁸, near the least normal double).
const EXP_LO: f64 = -708.0;
/// Above this, [`exp`] returns +∞ (e^709.79 overflows).
const EXP_HI: f64 = 709.79;

/// e^x without branches or calls, so that a loop over a slice of arguments auto-vectorizes
/// (libm's `exp` does not), with the same result on every path (plain f64 operations in a fixed
/// order: no FMA, so SSE2, AVX2 and AVX-512 code give identical bits).
///
/// Cody–Waite reduction x = k ln 2 + r, |r| ≤ ln 2/2, then e^r by its Taylor polynomial of
/// degree 13 (truncation < 5·10⁻¹⁸ relative; Estrin's scheme), then 2^(k−1)·2 assembled from
/// the exponent bits.
/// Error at most 2 ulp against a correctly rounded e^x for x in [−708, 709.78] (tested: 1 ulp on
/// 2·10⁶ points). exp(0) = 1 exactly. Outside that range: 0 below −708 (the subnormal results
/// e^x, x in [−745.1, −708), are flushed to 0), +∞ from 709.79 on (e^x overflows there anyway),
/// NaN for NaN. Used by the sigmoid of paper 004 ([`crate::dallaire2014::equations::sigmoid`])
/// and its MTM weights.
#[inline(always)]
pub fn exp(x: f64) -> f64 {
    // clamp without losing NaN (comparisons with NaN are false)
    let xc = if x < EXP_LO { EXP_LO } else { x };
    let xc = if xc > EXP_HI { EXP_HI } else { xc };
    let kf = xc * std::f64::consts::LOG2_E + SHIFT;
    let k = kf - SHIFT;
    let r = (xc - k * LN2_HI) - k * LN2_LO;
    // e^r = 1 + (r + r²·q(r)), q(r) = Σ_{j=0}^{11} r^j/(j + 2)! by Estrin's scheme (short
    // dependency chains: fast in scalar code too)
    let r2 = r * r;
    let r4 = r2 * r2;
    let r8 = r4 * r4;
    let e0 = 1.0 / 2.0 + r * (1.0 / 6.0);
    let e1 = 1.0 / 24.0 + r * (1.0 / 120.0);
    let e2 = 1.0 / 720.0 + r * (1.0 / 5_040.0);
    let e3 = 1.0 / 40_320.0 + r * (1.0 / 362_880.0);
    let e4 = 1.0 / 3_628_800.0 + r * (1.0 / 39_916_800.0);
    let e5 = 1.0 / 479_001_600.0 + r * (1.0 / 6_227_020_800.0);
    let f0 = e0 + e1 * r2;
    let f1 = e2 + e3 * r2;
    let f2 = e4 + e5 * r2;
    let q = (f0 + f1 * r4) + f2 * r8;
    let p = 1.0 + (r + r2 * q);
    // 2^(k−1): k is in [−1021, 1024], so k − 1 + 1023 is a normal biased exponent; the low bits
    // of kf hold 2⁵¹ + k
    let biased = kf
        .to_bits()
        .wrapping_sub(SHIFT.to_bits())
        .wrapping_add(1022);
    let y = p * f64::from_bits(biased << 52) * 2.0;
    if x < EXP_LO { 0.0 } else { y }
}

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

/// ln x for a positive, finite, normal `x`, branch-free so that loops over arrays of it
/// vectorise: fdlibm's `__ieee754_log` (x = 2^k·z, z ∈ [√2/2, √2), f = z − 1, s = f/(2 + f),
/// ln(1 + f) = f − ½f² + s(½f² + R(s²)) with fdlibm's degree-14 minimax R), error < 1 ulp.
/// The exponent is split off with integer arithmetic only (no i64 → f64 conversion), so the
/// baseline x86-64 target vectorises it two lanes wide. Zero, negative, subnormal, infinite or
/// NaN inputs give a finite wrong value: callers check their arguments (paper 003's SMC predictive, `kurutmaz2019::samplers::particles`).
#[inline(always)]
pub fn ln_fast(x: f64) -> f64 {
    let (k, f) = ln_reduce(x);
    ln_finish(k, f, f / (2.0 + f))
}

/// x = 2^k·(1 + f) with 1 + f ∈ [√2/2, √2): returns (k, f), by integer arithmetic only.
#[inline(always)]
fn ln_reduce(x: f64) -> (f64, f64) {
    // Bits of √2/2 (rounded): z = x·2^−k falls in [√2/2, √2).
    const OFF: u64 = 0x3fe6_a09e_667f_3bcd;
    const BIAS: u64 = 0x3ff0_0000_0000_0000;
    const MAGIC: u64 = 0x4330_0000_0000_0000; // 2^52
    let bits = x.to_bits();
    // k + 1023 ∈ [1, 2046] for normal x, by a logical shift.
    let kb = bits.wrapping_add(BIAS - OFF) >> 52;
    let z = f64::from_bits(bits.wrapping_sub(kb << 52).wrapping_add(BIAS));
    // k as f64 without a conversion instruction: 2^52 + kb, minus 2^52 + 1023 (exact).
    let k = f64::from_bits(MAGIC | kb) - (4_503_599_627_370_496.0 + 1023.0);
    (k, z - 1.0)
}

/// fdlibm's reconstruction ln x = k ln 2 + ln(1 + f), with s = f/(2 + f).
#[inline(always)]
fn ln_finish(k: f64, f: f64, s: f64) -> f64 {
    const LN2_HI: f64 = 6.931_471_803_691_238e-1;
    const LN2_LO: f64 = 1.908_214_929_270_587_7e-10;
    const LG1: f64 = 6.666_666_666_666_735e-1;
    const LG2: f64 = 3.999_999_999_940_942e-1;
    const LG3: f64 = 2.857_142_874_366_239e-1;
    const LG4: f64 = 2.222_219_843_214_978_4e-1;
    const LG5: f64 = 1.818_357_216_161_805e-1;
    const LG6: f64 = 1.531_383_769_920_937_3e-1;
    const LG7: f64 = 1.479_819_860_511_658_6e-1;
    let hfsq = 0.5 * f * f;
    let z2 = s * s;
    let w = z2 * z2;
    let t1 = w * (LG2 + w * (LG4 + w * LG6));
    let t2 = z2 * (LG1 + w * (LG3 + w * (LG5 + w * LG7)));
    let r = t2 + t1;
    k * LN2_HI - ((hfsq - (s * (hfsq + r) + k * LN2_LO)) - f)
}

/// e^x for x ≤ 0, branch-free (fdlibm's `__ieee754_exp`: x = k ln 2 + r, |r| ≤ ½ ln 2,
/// e^r = 1 + 2r/(2 − c) with c = r − r²·P(r²), error < 1 ulp; e^0 = 1 exactly). Results below
/// e^−708 (≈ 3·10⁻³⁰⁸) are flushed to 0; callers only exponentiate max-shifted log weights, for
/// which that is a relative change of the weight sum below 10⁻³⁰⁰.
#[inline(always)]
pub fn exp_neg_fast(x: f64) -> f64 {
    const LN2_HI: f64 = 6.931_471_803_691_238e-1;
    const LN2_LO: f64 = 1.908_214_929_270_587_7e-10;
    const INV_LN2: f64 = std::f64::consts::LOG2_E;
    const P1: f64 = 1.666_666_666_666_660_2e-1;
    const P2: f64 = -2.777_777_777_701_559_3e-3;
    const P3: f64 = 6.613_756_321_437_934e-5;
    const P4: f64 = -1.653_390_220_546_525_2e-6;
    const P5: f64 = 4.138_136_797_057_238_5e-8;
    const SHIFT: f64 = 6_755_399_441_055_744.0; // 1.5·2^52: round to nearest integer
    let xc = if x < -708.0 { -708.0 } else { x };
    let t = xc * INV_LN2 + SHIFT;
    let kf = t - SHIFT;
    let hi = xc - kf * LN2_HI;
    let lo = kf * LN2_LO;
    let r = hi - lo;
    let rr = r * r;
    let c = r - rr * (P1 + rr * (P2 + rr * (P3 + rr * (P4 + rr * P5))));
    let y = 1.0 - ((lo - (r * c) / (2.0 - c)) - hi);
    // k ∈ [−1022, 0] sits in the low bits of t (two's complement): add it to y's exponent.
    let k = t.to_bits().wrapping_sub(SHIFT.to_bits());
    let v = f64::from_bits(y.to_bits().wrapping_add(k << 52));
    if x < -708.0 { 0.0 } else { v }
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

    /// Distance in units in the last place between two finite positive doubles.
    fn ulps(a: f64, b: f64) -> u64 {
        a.to_bits().abs_diff(b.to_bits())
    }

    #[test]
    fn exp_within_two_ulp_of_libm() {
        use rand::{RngExt, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(17);
        let mut worst = (0u64, 0.0);
        let mut check = |x: f64| {
            let d = ulps(exp(x), x.exp());
            if d > worst.0 {
                worst = (d, x);
            }
        };
        // a uniform grid over the whole normal range and random points, dense near 0
        for i in 0..=1_000_000 {
            check(-708.0 + 1417.78 * f64::from(i) / 1e6);
        }
        for _ in 0..1_000_000 {
            let x: f64 = rng.random_range(-1.0..1.0);
            check(x * 10f64.powi(rng.random_range(-12..3)));
        }
        for x in [
            -708.0, -700.5, -1.0, -0.5, -1e-300, 1e-300, 0.5, 1.0, 700.0, 709.78,
        ] {
            check(x);
        }
        assert!(
            worst.0 <= 2,
            "exp off by {} ulp at x = {}",
            worst.0,
            worst.1
        );
        assert_eq!(exp(0.0), 1.0);
        assert_eq!(exp(-0.0), 1.0);
        assert_eq!(exp(-708.5), 0.0);
        assert_eq!(exp(-1e4), 0.0);
        assert_eq!(exp(f64::NEG_INFINITY), 0.0);
        assert_eq!(exp(709.8), f64::INFINITY);
        assert_eq!(exp(f64::INFINITY), f64::INFINITY);
        assert!(exp(f64::NAN).is_nan());
        // the vectorized loop gives the same bits as the scalar calls
        let xs: Vec<f64> = (0..1000).map(|i| -30.0 + 0.061 * f64::from(i)).collect();
        let ys: Vec<f64> = xs.iter().map(|&x| exp(x)).collect();
        for (x, y) in xs.iter().zip(&ys) {
            assert_eq!(y.to_bits(), exp(std::hint::black_box(*x)).to_bits());
        }
    }

    /// The branch-free logarithms and exponential against the standard library's, over the
    /// ranges the samplers use, to within 2 ulp (1 ulp each side); e^0 = 1 exactly.
    #[test]
    fn fast_ln_and_exp_match_std() {
        let ulp2 =
            |a: f64, b: f64| (a - b).abs() <= 2.0 * f64::EPSILON * b.abs().max(f64::MIN_POSITIVE);
        let mut x: f64 = 1e-300;
        while x < 1e300 {
            for y in [
                x,
                x * 1.000_000_1,
                x * std::f64::consts::SQRT_2,
                x * std::f64::consts::FRAC_1_SQRT_2,
            ] {
                let want = y.ln();
                assert!(ulp2(ln_fast(y), want), "ln {y}: {} vs {want}", ln_fast(y));
            }
            x *= 1.37;
        }
        assert_eq!(ln_fast(1.0), 0.0);
        assert_eq!(exp_neg_fast(0.0), 1.0);
        let mut d: f64 = 0.0;
        while d > -708.0 {
            let want = d.exp();
            assert!(
                ulp2(exp_neg_fast(d), want),
                "exp {d}: {} vs {want}",
                exp_neg_fast(d)
            );
            d -= 0.0137;
        }
        assert_eq!(exp_neg_fast(-710.0), 0.0);
        assert_eq!(exp_neg_fast(f64::NEG_INFINITY), 0.0);
    }
}

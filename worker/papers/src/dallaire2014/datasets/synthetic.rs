//! The synthetic datasets of paper `004_74db43a26dbf0fa1.txt` §5.1 ("Experiments on Synthetically
//! Generated Data"): *ring* and *pinwheel*. The paper gives the shapes only ("uniformly sampling
//! points on the unit circle and apply Gaussian noise to the radius"; "stretching and rotating four
//! Gaussian distributions, resulting in a spiral shape"); the numbers below are ours
//! choices, each configurable from the `dataset` section.

use rand::RngExt;
use rand_distr::{Distribution, StandardNormal};

use crate::seed::ChainRng;

/// Default ring radius noise sd (the paper gives no noise level).
pub const RING_NOISE: f64 = 0.1;
/// Default pinwheel arms (the paper's "four Gaussians").
pub const PINWHEEL_CLASSES: usize = 4;
/// Default pinwheel radial sd (the common recipe of Johnson et al. 2016's SVAE code).
pub const PINWHEEL_RADIAL_SD: f64 = 0.3;
/// Default pinwheel tangential sd.
pub const PINWHEEL_TANGENTIAL_SD: f64 = 0.05;
/// Default pinwheel rotation rate.
pub const PINWHEEL_RATE: f64 = 0.25;
/// Default pinwheel output scale.
pub const PINWHEEL_SCALE: f64 = 10.0;

fn normal(rng: &mut ChainRng) -> f64 {
    StandardNormal.sample(rng)
}

/// `n` ring points, row-major `n × 2`: for each point in turn, angle θ ~ U[0, 2π) then radius
/// r = 1 + `noise`·N(0, 1); the point is (r cos θ, r sin θ). Deterministic given `rng` (two draws
/// per point, in that order).
pub fn ring(n: usize, noise: f64, rng: &mut ChainRng) -> Vec<f64> {
    let mut x = Vec::with_capacity(2 * n);
    for _ in 0..n {
        let theta = std::f64::consts::TAU * rng.random::<f64>();
        let r = 1.0 + noise * normal(rng);
        x.push(r * theta.cos());
        x.push(r * theta.sin());
    }
    x
}

/// Pinwheel settings (defaults in the `PINWHEEL_*` constants).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Pinwheel {
    /// Number of arms C.
    pub classes: usize,
    /// sd of the radial feature f₁ around 1.
    pub radial_sd: f64,
    /// sd of the tangential feature f₂ around 0.
    pub tangential_sd: f64,
    /// Rotation rate: arm c turns by 2πc/C + rate·e^{f₁}.
    pub rate: f64,
    /// Output scale.
    pub scale: f64,
}

impl Default for Pinwheel {
    fn default() -> Self {
        Pinwheel {
            classes: PINWHEEL_CLASSES,
            radial_sd: PINWHEEL_RADIAL_SD,
            tangential_sd: PINWHEEL_TANGENTIAL_SD,
            rate: PINWHEEL_RATE,
            scale: PINWHEEL_SCALE,
        }
    }
}

impl Pinwheel {
    /// `per_class` points of each of the C arms, shuffled. For class c = 0…C−1 in turn, and each
    /// point of it in turn: f = (1 + radial_sd·ε₁, tangential_sd·ε₂), angle
    /// a = 2πc/C + rate·e^{f₁}, x = scale·(f₁cos a + f₂sin a, −f₁sin a + f₂cos a). Then the rows are
    /// shuffled (Fisher–Yates, i from the last row down, j uniform on 0..=i).
    ///
    /// Returns row-major `(C·per_class) × 2` points and their classes (same order). Deterministic
    /// given `rng`.
    pub fn sample(&self, per_class: usize, rng: &mut ChainRng) -> (Vec<f64>, Vec<usize>) {
        let n = self.classes * per_class;
        let mut pts: Vec<[f64; 2]> = Vec::with_capacity(n);
        let mut class = Vec::with_capacity(n);
        for c in 0..self.classes {
            for _ in 0..per_class {
                let f1 = 1.0 + self.radial_sd * normal(rng);
                let f2 = self.tangential_sd * normal(rng);
                let a =
                    std::f64::consts::TAU * c as f64 / self.classes as f64 + self.rate * f1.exp();
                let (s, co) = a.sin_cos();
                pts.push([
                    self.scale * (f1 * co + f2 * s),
                    self.scale * (-f1 * s + f2 * co),
                ]);
                class.push(c);
            }
        }
        for i in (1..n).rev() {
            let j = rng.random_range(0..=i);
            pts.swap(i, j);
            class.swap(i, j);
        }
        (pts.into_iter().flatten().collect(), class)
    }
}

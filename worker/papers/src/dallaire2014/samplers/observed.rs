//! The observed-layer map (the paper does not say how data enter (−1, 1)): data
//! units x ↔ outputs u = σ(a) of the observed units.
//!
//! - `observed_map: minmax` (default): each column affinely, fitted on the training data, so the
//!   training minimum and maximum go to −r and +r (`observed_range` r, default 0.9).
//! - `observed_map: identity`: u = x, for data already in (−1, 1) (§5.2); values outside are
//!   refused with their row and column.
//!
//! Fantasy data go back through [`ObservedMap::to_data`].

use crate::chain::SamplerError;
use crate::dallaire2014::equations as eq;
use crate::dallaire2014::params::{ObservedMap as MapKind, Params};
use crate::data::Matrix;

/// A fitted observed-layer map: per column u = (x − center)/scale.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ObservedMap {
    center: Vec<f64>,
    scale: Vec<f64>,
}

impl ObservedMap {
    /// Fit on the training matrix `x` (n × d, data units) as `p.observed_map` says. With n = 0
    /// (dataset `none`) the map is the identity.
    ///
    /// Errors ([`SamplerError::Input`]): a non-finite value (row and column named), a constant
    /// column under `minmax` (named), a value outside (−1, 1) under `identity`.
    pub fn fit(p: &Params, x: &Matrix) -> Result<Self, SamplerError> {
        let (n, d) = (x.rows, x.cols);
        let name = |j: usize| {
            x.col_names
                .get(j)
                .cloned()
                .unwrap_or_else(|| format!("{}", j + 1))
        };
        if x.values.len() != n * d {
            return Err(SamplerError::Input(format!(
                "matrix `{}` has {} values for {n} × {d}",
                x.name,
                x.values.len()
            )));
        }
        if let Some(k) = x.values.iter().position(|v| !v.is_finite()) {
            return Err(SamplerError::Input(format!(
                "matrix `{}` row {}, column `{}` is not finite",
                x.name,
                k / d + 1,
                name(k % d)
            )));
        }
        let identity = ObservedMap {
            center: vec![0.0; d],
            scale: vec![1.0; d],
        };
        match p.observed_map {
            MapKind::Identity => {
                if let Some(k) = x.values.iter().position(|v| v.abs() >= 1.0) {
                    return Err(SamplerError::Input(format!(
                        "observed_map: identity needs every value in (−1, 1), but matrix `{}` row {}, column `{}` is {}",
                        x.name,
                        k / d + 1,
                        name(k % d),
                        x.values[k]
                    )));
                }
                Ok(identity)
            }
            MapKind::Minmax if n == 0 => Ok(identity),
            MapKind::Minmax => {
                let r = p.observed_range;
                let mut center = Vec::with_capacity(d);
                let mut scale = Vec::with_capacity(d);
                for j in 0..d {
                    let col = (0..n).map(|i| x.values[i * d + j]);
                    let lo = col.clone().fold(f64::INFINITY, f64::min);
                    let hi = col.fold(f64::NEG_INFINITY, f64::max);
                    if hi <= lo {
                        return Err(SamplerError::Input(format!(
                            "column `{}` of matrix `{}` is constant: observed_map: minmax cannot map it",
                            name(j),
                            x.name
                        )));
                    }
                    center.push(0.5 * (lo + hi));
                    scale.push(0.5 * (hi - lo) / r);
                }
                Ok(ObservedMap { center, scale })
            }
        }
    }

    /// Data units → pre-sigmoid activations a = σ⁻¹(u) of a matrix (rows × d, row-major).
    ///
    /// Errors: a mapped value outside (−1, 1) (a test value beyond the training range cannot be
    /// mapped; only training data are).
    pub fn to_activations(&self, x: &[f64]) -> Result<Vec<f64>, SamplerError> {
        let d = self.center.len();
        x.iter()
            .enumerate()
            .map(|(k, v)| {
                let u = (v - self.center[k % d]) / self.scale[k % d];
                if u.abs() < 1.0 {
                    Ok(eq::sigmoid_inv(u))
                } else {
                    Err(SamplerError::Input(format!(
                        "row {}, column {}: {v} maps outside (−1, 1)",
                        k / d + 1,
                        k % d + 1
                    )))
                }
            })
            .collect()
    }

    /// Outputs u (rows × d, row-major) → data units, in place: the inverse map.
    pub fn to_data(&self, u: &mut [f64]) {
        let d = self.center.len();
        for (k, v) in u.iter_mut().enumerate() {
            *v = self.center[k % d] + self.scale[k % d] * *v;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn minmax_round_trip_and_identity_refusal() {
        let p = Params::default();
        let x = Matrix::new("x", 3, 2, vec![1.0, 10.0, 2.0, 30.0, 5.0, 20.0]);
        let m = ObservedMap::fit(&p, &x).unwrap();
        let a = m.to_activations(&x.values).unwrap();
        let mut u: Vec<f64> = a.iter().map(|v| eq::sigmoid(*v)).collect();
        assert!((u[0] + 0.9).abs() < 1e-12 && (u[4] - 0.9).abs() < 1e-12);
        m.to_data(&mut u);
        for (a, b) in u.iter().zip(&x.values) {
            assert!((a - b).abs() < 1e-9);
        }
        let p = Params {
            observed_map: MapKind::Identity,
            ..Params::default()
        };
        let e = ObservedMap::fit(&p, &x).unwrap_err().to_string();
        assert!(e.contains("row 1") && e.contains("(−1, 1)"), "{e}");
        let c = Matrix::new("x", 2, 1, vec![3.0, 3.0]);
        assert!(ObservedMap::fit(&Params::default(), &c).is_err());
    }
}

//! The cell's `params` for HiDDeN: algorithm, hyperparameters (ρ, b, c, d), step sizes.
//!
//! Parsed with [`crate::params::parse`] (unknown keys refused, listing the allowed ones);
//! [`Params::check`] range-checks what needs no data, [`Params::resolve`] checks the rest against
//! a [`DiscreteData`] (column names, the length of `step_sizes`, k_j ≤ 3 for `exact`) and returns
//! the [`Resolved`] indices a sampler is built from. Every error carries a dotted path such as
//! `params.step_sizes`.

use serde::{Deserialize, Serialize};

use super::datasets::DiscreteData;
use super::equations::Rho;
use crate::params::{ParamError, check_open_unit, check_positive, parse};

/// Largest number of candidate parents of Algorithm 2 (indicators are kept as a bit mask).
pub const MAX_CANDIDATES: usize = 63;
/// Largest number of candidate parents the exact method enumerates (2^12 parent sets).
pub const MAX_EXACT_CANDIDATES: usize = 12;
/// Largest k_j of the exact method (it integrates over log t on a k_j-dimensional grid).
pub const MAX_EXACT_K: usize = 3;

/// Which computation runs the cell.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Method {
    /// Algorithm 1 (MALA-within-Gibbs for t_j, §3) with the fixed parent set `parents`.
    Mala,
    /// Algorithm 1 + Algorithm 2 (edge indicators over `candidates`, §4.1).
    Edges,
    /// Numerical integration over log t (k_j ≤ 3): p(Pa | n) and eq 6's mean exactly, for the
    /// fixed `parents` or every subset of `candidates` (the tests' reference).
    Exact,
}

/// The initial edge indicators of Algorithm 2.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum Init {
    /// z_{j'j} ~ Bernoulli(c/(c+d)) independently, as the authors' code does. Default.
    #[default]
    Prior,
    /// No parents.
    Empty,
    /// Every candidate a parent.
    Full,
}

/// Robbins–Monro adaptation of log ε_j(x) during burn-in only (frozen after; the final values are
/// reported): after the r-th MALA step of category x, log ε += r^(−decay) (accepted − target).
#[derive(Debug, Clone, Copy, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Adapt {
    /// Target acceptance rate in (0, 1). Default 0.574 (Roberts & Rosenthal 1998, supplement B).
    #[serde(default = "d_target")]
    pub target: f64,
    /// Exponent of the gain sequence r^(−decay), in (0.5, 1]. Default 0.6.
    #[serde(default = "d_decay")]
    pub decay: f64,
}

fn d_target() -> f64 {
    0.574
}
fn d_decay() -> f64 {
    0.6
}
fn d_one() -> f64 {
    1.0
}
fn d_grid() -> usize {
    41
}
fn d_cutoff() -> f64 {
    30.0
}

/// Parameters of one grid cell (`params` in the YAML).
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Params {
    /// `mala`, `edges` or `exact`. Required.
    pub method: Method,
    /// The node j (a column name). Required.
    pub node: String,
    /// The fixed parent set Pa(j) (column names; `[]` for a root): `mala`, and `exact` for a fixed set.
    #[serde(default)]
    pub parents: Option<Vec<String>>,
    /// The candidate parents Ca(j) in update order: `edges`, and `exact` over every subset.
    #[serde(default)]
    pub candidates: Option<Vec<String>>,
    /// ρ_j of eq 5: a number > 0, `k` (default: shape 1) or `k+1`. ρ_j < k_j is allowed, but then
    /// Theorem 2 (log-concavity of h) no longer holds ([`Resolved::warnings`] says so).
    #[serde(default)]
    pub rho: Rho,
    /// Gamma rate b_j of eq 5, > 0. Default 1.
    #[serde(default = "d_one")]
    pub b: f64,
    /// Beta(c, d) prior of γ_j (§4.1), c > 0. Default 1.
    #[serde(default = "d_one")]
    pub c: f64,
    /// d > 0. Default 1.
    #[serde(default = "d_one")]
    pub d: f64,
    /// MALA step sizes ε_j(x) > 0, one per category of the node (required by `mala` and `edges`).
    #[serde(default)]
    pub step_sizes: Option<Vec<f64>>,
    /// Initial t_j, one value > 0 per category. Default 1 in every category (supplement B).
    #[serde(default)]
    pub t0: Option<Vec<f64>>,
    /// Initial edge indicators (`prior`, `empty`, `full`). Default `prior`.
    #[serde(default)]
    pub init: Init,
    /// Step-size adaptation during burn-in; absent = fixed step sizes (the paper's runs).
    #[serde(default)]
    pub adapt: Option<Adapt>,
    /// `exact`: grid points per dimension of log t (9..=201). Default 41.
    #[serde(default = "d_grid")]
    pub grid_points: usize,
    /// `exact`: parent sets whose Laplace estimate of log p(Pa, n) is more than this many nats
    /// below the best are skipped (> 0). Default 30.
    #[serde(default = "d_cutoff")]
    pub laplace_cutoff: f64,
}

/// Parameters resolved against a dataset: column indices, ρ_j, step sizes and t₀ of length k_j.
#[derive(Debug, Clone, PartialEq)]
pub struct Resolved {
    /// The method.
    pub method: Method,
    /// Index of the node j.
    pub node: usize,
    /// k_j.
    pub k: usize,
    /// Fixed parents (`Some` for `mala` and a fixed-set `exact`), column indices in YAML order.
    pub parents: Option<Vec<usize>>,
    /// Candidate parents (empty unless `edges` or a subset-`exact`), in YAML order.
    pub candidates: Vec<usize>,
    /// Gamma shape ρ_j / k_j of eq 5.
    pub shape: f64,
    /// b_j.
    pub rate: f64,
    /// c_j, d_j.
    pub c: f64,
    /// d_j.
    pub d: f64,
    /// ε_j(x), length k_j (empty for `exact`).
    pub step_sizes: Vec<f64>,
    /// t₀, length k_j.
    pub t0: Vec<f64>,
    /// Initial indicators.
    pub init: Init,
    /// Adaptation, if any.
    pub adapt: Option<Adapt>,
    /// Exact method's grid points per dimension.
    pub grid_points: usize,
    /// Exact method's Laplace cut-off (nats).
    pub laplace_cutoff: f64,
    /// Warnings to show the user (ρ_j < k_j).
    pub warnings: Vec<String>,
}

impl Params {
    /// Parse the cell's `params` object (`section` is its path, normally `params`) and run
    /// [`Params::check`].
    pub fn from_value(section: &str, value: &serde_json::Value) -> Result<Self, ParamError> {
        let p: Params = parse(section, value)?;
        p.check(section)?;
        Ok(p)
    }

    /// Range checks that need no data: b, c, d, ρ, ε, t₀ > 0; adaptation target in (0, 1) and
    /// decay in (0.5, 1]; `parents`/`candidates` as the method requires.
    pub fn check(&self, section: &str) -> Result<(), ParamError> {
        let path = |k: &str| format!("{section}.{k}");
        check_positive(&path("b"), self.b)?;
        check_positive(&path("c"), self.c)?;
        check_positive(&path("d"), self.d)?;
        if let Rho::Number(r) = self.rho {
            check_positive(&path("rho"), r)?;
        }
        for (i, &e) in self.step_sizes.iter().flatten().enumerate() {
            check_positive(&format!("{section}.step_sizes[{i}]"), e)?;
        }
        for (i, &t) in self.t0.iter().flatten().enumerate() {
            check_positive(&format!("{section}.t0[{i}]"), t)?;
        }
        if let Some(a) = &self.adapt {
            check_open_unit(&path("adapt.target"), a.target)?;
            if !(a.decay > 0.5 && a.decay <= 1.0) {
                return Err(ParamError::new(
                    path("adapt.decay"),
                    format!(
                        "{} is out of range: allowed values are 0.5 < decay ≤ 1",
                        a.decay
                    ),
                ));
            }
        }
        if !(9..=201).contains(&self.grid_points) {
            return Err(ParamError::new(
                path("grid_points"),
                format!(
                    "{} is out of range: allowed values are 9..=201",
                    self.grid_points
                ),
            ));
        }
        check_positive(&path("laplace_cutoff"), self.laplace_cutoff)?;
        let need = |ok: bool, key: &str, msg: &str| {
            if ok {
                Ok(())
            } else {
                Err(ParamError::new(path(key), msg.to_string()))
            }
        };
        match self.method {
            Method::Mala => {
                need(
                    self.parents.is_some(),
                    "parents",
                    "method mala needs a fixed parent set `parents`",
                )?;
                need(
                    self.candidates.is_none(),
                    "candidates",
                    "method mala takes `parents`, not `candidates`",
                )?;
                need(
                    self.step_sizes.is_some(),
                    "step_sizes",
                    "method mala needs `step_sizes`",
                )?;
            }
            Method::Edges => {
                need(
                    self.candidates.is_some(),
                    "candidates",
                    "method edges needs `candidates`",
                )?;
                need(
                    self.parents.is_none(),
                    "parents",
                    "method edges takes `candidates`, not `parents`",
                )?;
                need(
                    self.step_sizes.is_some(),
                    "step_sizes",
                    "method edges needs `step_sizes`",
                )?;
            }
            Method::Exact => need(
                self.parents.is_some() != self.candidates.is_some(),
                "parents",
                "method exact needs either `parents` (a fixed set) or `candidates` (every subset)",
            )?,
        }
        Ok(())
    }

    /// Check against the data and resolve names to indices. Errors: an unknown node or parent
    /// (naming it), the node among its own parents, a repeated parent, more than
    /// [`MAX_CANDIDATES`] candidates, a node with fewer than 2 categories, `step_sizes` or `t0`
    /// whose length is not k_j (naming the node and both numbers), and for `exact` k_j > 3 or
    /// more than [`MAX_EXACT_CANDIDATES`] candidates.
    pub fn resolve(&self, section: &str, data: &DiscreteData) -> Result<Resolved, ParamError> {
        let path = |k: &str| format!("{section}.{k}");
        let node = data.index(&self.node).ok_or_else(|| {
            ParamError::new(
                path("node"),
                format!(
                    "`{}` is not a column (columns: {})",
                    self.node,
                    data.names.join(", ")
                ),
            )
        })?;
        let k = data.k(node);
        if k < 2 {
            return Err(ParamError::new(
                path("node"),
                format!("node {} has {k} category: HiDDeN needs k_j ≥ 2", self.node),
            ));
        }
        let names = |key: &str, list: &[String]| -> Result<Vec<usize>, ParamError> {
            let mut out: Vec<usize> = Vec::with_capacity(list.len());
            for (i, name) in list.iter().enumerate() {
                let p = format!("{section}.{key}[{i}]");
                let j = data
                    .index(name)
                    .ok_or_else(|| ParamError::new(&p, format!("`{name}` is not a column")))?;
                if j == node {
                    return Err(ParamError::new(&p, format!("`{name}` is the node itself")));
                }
                if out.contains(&j) {
                    return Err(ParamError::new(&p, format!("`{name}` is repeated")));
                }
                out.push(j);
            }
            Ok(out)
        };
        let parents = self
            .parents
            .as_deref()
            .map(|l| names("parents", l))
            .transpose()?;
        let candidates = self
            .candidates
            .as_deref()
            .map(|l| names("candidates", l))
            .transpose()?
            .unwrap_or_default();
        if candidates.len() > MAX_CANDIDATES {
            return Err(ParamError::new(
                path("candidates"),
                format!("{} candidates: at most {MAX_CANDIDATES}", candidates.len()),
            ));
        }
        let length = |key: &str, v: &Option<Vec<f64>>| -> Result<Option<Vec<f64>>, ParamError> {
            match v {
                Some(v) if v.len() != k => Err(ParamError::new(
                    path(key),
                    format!(
                        "node {} has k_j = {k} categories but {key} has {} values",
                        self.node,
                        v.len()
                    ),
                )),
                other => Ok(other.clone()),
            }
        };
        let step_sizes = length("step_sizes", &self.step_sizes)?.unwrap_or_default();
        let t0 = length("t0", &self.t0)?.unwrap_or_else(|| vec![1.0; k]);
        if self.method == Method::Exact {
            if k > MAX_EXACT_K {
                return Err(ParamError::new(
                    path("method"),
                    format!(
                        "the exact method needs k_j ≤ {MAX_EXACT_K}; node {} has {k}",
                        self.node
                    ),
                ));
            }
            if candidates.len() > MAX_EXACT_CANDIDATES {
                return Err(ParamError::new(
                    path("candidates"),
                    format!(
                        "the exact method enumerates at most {MAX_EXACT_CANDIDATES} candidates, got {}",
                        candidates.len()
                    ),
                ));
            }
        }
        let rho = self.rho.value(k);
        let mut warnings = Vec::new();
        if rho < k as f64 {
            warnings.push(format!(
                "{section}.rho: ρ_j = {rho} < k_j = {k} for node {}: Theorem 2 (h_{{j,x}} log-concave) no longer holds",
                self.node
            ));
        }
        Ok(Resolved {
            method: self.method,
            node,
            k,
            parents,
            candidates,
            shape: rho / k as f64,
            rate: self.b,
            c: self.c,
            d: self.d,
            step_sizes,
            t0,
            init: self.init,
            adapt: self.adapt,
            grid_points: self.grid_points,
            laplace_cutoff: self.laplace_cutoff,
            warnings,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn data() -> DiscreteData {
        DiscreteData::new(
            vec!["A".into(), "B".into(), "C".into()],
            vec![
                vec!["0".into(), "1".into()],
                vec!["0".into(), "1".into(), "2".into()],
                vec!["0".into(), "1".into(), "2".into()],
            ],
            vec![vec![0, 1, 0], vec![0, 1, 2], vec![2, 1, 0]],
        )
        .expect("data")
    }

    #[test]
    fn defaults_and_resolution() {
        let p = Params::from_value(
            "params",
            &json!({"method": "edges", "node": "C", "candidates": ["A", "B"], "step_sizes": [0.5, 0.5, 0.5]}),
        )
        .expect("valid");
        assert_eq!(
            (p.rho, p.b, p.c, p.d, p.init),
            (Rho::K, 1.0, 1.0, 1.0, Init::Prior)
        );
        let r = p.resolve("params", &data()).expect("resolves");
        assert_eq!(
            (r.node, r.k, r.candidates.clone(), r.shape),
            (2, 3, vec![0, 1], 1.0)
        );
        assert_eq!(r.t0, vec![1.0; 3]);
        assert!(r.warnings.is_empty());
    }

    #[test]
    fn bad_values_are_refused_with_their_path() {
        let base =
            json!({"method": "mala", "node": "C", "parents": ["A"], "step_sizes": [0.5, 0.5, 0.5]});
        let with = |k: &str, v: serde_json::Value| {
            let mut o = base.clone();
            o[k] = v;
            Params::from_value("params", &o)
        };
        assert_eq!(with("b", json!(0.0)).unwrap_err().path, "params.b");
        assert_eq!(with("c", json!(-1.0)).unwrap_err().path, "params.c");
        assert_eq!(with("d", json!(0.0)).unwrap_err().path, "params.d");
        assert_eq!(with("rho", json!("2k")).unwrap_err().path, "params.rho");
        assert_eq!(
            with("step_sizes", json!([0.5, 0.0, 1.0])).unwrap_err().path,
            "params.step_sizes[1]"
        );
        let e = with("stepsizes", json!(1)).unwrap_err();
        assert!(e.message.contains("step_sizes"), "{e}");
        let p = with("step_sizes", json!([0.5, 0.5])).expect("parses");
        let e = p.resolve("params", &data()).unwrap_err();
        assert_eq!(e.path, "params.step_sizes");
        assert!(
            e.message.contains("node C") && e.message.contains('3') && e.message.contains('2'),
            "{e}"
        );
        let p = with("parents", json!(["C"])).expect("parses");
        assert_eq!(
            p.resolve("params", &data()).unwrap_err().path,
            "params.parents[0]"
        );
        let p = with("parents", json!(["Z"])).expect("parses");
        assert!(
            p.resolve("params", &data())
                .unwrap_err()
                .message
                .contains("`Z`")
        );
        let p = with("rho", json!(1.5)).expect("parses");
        assert_eq!(
            p.resolve("params", &data())
                .expect("allowed")
                .warnings
                .len(),
            1
        );
        assert!(with("candidates", json!(["A"])).is_err());
    }
}

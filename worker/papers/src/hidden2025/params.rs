//! The cell's `params` for HiDDeN: algorithm, hyperparameters (ρ, b, c, d), step sizes.
//!
//! Parsed with [`crate::params::parse`] (unknown keys refused, listing the allowed ones);
//! [`Params::check`] range-checks what needs no data, [`Params::resolve`] checks the rest against
//! a [`DiscreteData`] (column names, the length of `step_sizes`, k_j ≤ 3 for `exact`) and returns
//! the [`Resolved`] indices a sampler is built from. Every error carries a dotted path such as
//! `params.step_sizes`.

mod graph;

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::datasets::DiscreteData;
use super::equations::Rho;
use super::evaluation::mmle::BetaRule;
use crate::params::{ParamError, check_open_unit, check_positive, parse};

pub use self::graph::{GraphSpec, cyclic_nodes, parent_set_union, position_mask};

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
    /// Algorithm 1 + Algorithm 3 (§4.2): the parent set drawn among the candidate `parent_sets`
    /// with prior probabilities `prior` (default uniform).
    ParentSets,
    /// Algorithm 4 (§4.4): the DAG drawn among the candidate `dags` with prior probabilities
    /// `prior` (default uniform); t_j is sampled (Algorithm 1) only for the nodes whose parent
    /// sets differ between the candidates, the others cancel.
    Dags,
    /// The node-by-node DAG sampler (§4.4): a Gibbs sweep over `nodes`, each node's parents by
    /// Algorithm 2 given the rest of the graph (an edge that would close a directed cycle has
    /// probability 0), t_j of every node by Algorithm 1. With `order`, Ca(j) = the earlier nodes.
    Dag,
    /// Supplement G: the maximum marginal likelihood estimate π̃_j of t_j / β_j for the fixed
    /// `parents` and the concentration `beta` (eqs 19–21), computed once (no MCMC; see
    /// [`super::evaluation::mmle`]).
    Mmle,
}

impl Method {
    /// Whether the method samples a graph over several nodes (`dags`, `dag`) rather than one node.
    pub fn is_multi_node(self) -> bool {
        matches!(self, Method::Dags | Method::Dag)
    }
}

/// Tolerance on the sum of `prior` (it must be 1 within this).
pub const PRIOR_SUM_TOLERANCE: f64 = 1e-6;
/// Largest number of nodes of the node-by-node DAG sampler (parent sets are bit masks).
pub const MAX_DAG_NODES: usize = 63;

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
fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// Parameters of one grid cell (`params` in the YAML).
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Params {
    /// `mala`, `edges`, `exact`, `parent_sets`, `dags` or `dag`. Required.
    pub method: Method,
    /// The node j (a column name). Required by the single-node methods (`mala`, `edges`,
    /// `parent_sets`, `exact`); refused by `dags` and `dag` (they take `nodes`).
    #[serde(default)]
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
    /// `edges`: after Algorithm 2's sweep, one Gibbs update of this many indicators at once,
    /// drawn at random (≥ 2 to take effect, at most 16; see `samplers::edges::edge_block`).
    /// Default 0, the paper's Algorithm 2 alone.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub block_size: usize,
    /// `exact`: grid points per dimension of log t (9..=201). Default 41.
    #[serde(default = "d_grid")]
    pub grid_points: usize,
    /// `parent_sets` (Algorithm 3) and `exact`: the candidate parent sets Pa(j)_1 … Pa(j)_M,
    /// each a list of column names (`[]` = no parents).
    #[serde(default)]
    pub parent_sets: Option<Vec<Vec<String>>>,
    /// Prior probabilities of the candidate `parent_sets` or `dags`: M values ≥ 0 summing to 1
    /// (within [`PRIOR_SUM_TOLERANCE`]). Default uniform, 1/M each (§4.2).
    #[serde(default)]
    pub prior: Option<Vec<f64>>,
    /// `dags` (Algorithm 4): the candidate DAGs, each a map child → its parents (column names);
    /// a node that is not a key is a root in that DAG. Each must be acyclic.
    #[serde(default)]
    pub dags: Option<Vec<BTreeMap<String, Vec<String>>>>,
    /// `dag` (required) and `dags` (optional): the nodes of the graph, column names. For `dags`
    /// the default is every node named in `dags`, in column order.
    #[serde(default)]
    pub nodes: Option<Vec<String>>,
    /// `dag`: a fixed order of `nodes` (a permutation of them); Ca(j) = the nodes before j, so
    /// no cycle can form. Absent: Ca(j) = every other node, cycles ruled out as the sweep goes.
    #[serde(default)]
    pub order: Option<Vec<String>>,
    /// `dags`, `dag`: ε_j per node (name → k_j values). A sampled node not listed here uses
    /// `step_sizes`, which must then have k_j values.
    #[serde(default)]
    pub node_step_sizes: Option<BTreeMap<String, Vec<f64>>>,
    /// `exact`: parent sets whose Laplace estimate of log p(Pa, n) is more than this many nats
    /// below the best are skipped (> 0). Default 30.
    #[serde(default = "d_cutoff")]
    pub laplace_cutoff: f64,
    /// `mmle` (required there, refused elsewhere): β_j of supplement G.2, `perks` (1), `jeffreys`
    /// (k_j/2), `laplace` (k_j) or a number > 0.
    #[serde(default)]
    pub beta: Option<BetaRule>,
}

/// Parameters resolved against a dataset: column indices, ρ_j, step sizes and t₀ of length k_j.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
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
    /// The block update's size (`edges`; 0: none).
    #[serde(default)]
    pub block_size: usize,
    /// Exact method's grid points per dimension.
    pub grid_points: usize,
    /// Exact method's Laplace cut-off (nats).
    pub laplace_cutoff: f64,
    /// Warnings to show the user (ρ_j < k_j).
    pub warnings: Vec<String>,
    /// `parent_sets` / subset-free `exact`: the candidate parent sets (column indices, YAML
    /// order); empty otherwise.
    pub parent_sets: Vec<Vec<usize>>,
    /// Prior probabilities of `parent_sets` or `dags` (uniform by default); empty otherwise.
    pub prior: Vec<f64>,
    /// The graph's nodes (column indices) of the multi-node methods; empty otherwise. For
    /// these methods `node`, `k`, `shape` above describe `nodes[0]`.
    pub graph: Option<GraphSpec>,
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
        self.check_ranges(section)?;
        self.check_keys(section)?;
        self.check_prior(section)
    }

    /// The numbers: b, c, d, ρ, ε, t₀ > 0, the adaptation's target and decay, the grid's points
    /// and the Laplace cutoff.
    fn check_ranges(&self, section: &str) -> Result<(), ParamError> {
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
        Ok(())
    }

    /// The keys each method needs or refuses (`node`/`nodes`, `parents`/`candidates`/
    /// `parent_sets`/`dags`, `step_sizes`, `beta`), and ε > 0 in `node_step_sizes`.
    fn check_keys(&self, section: &str) -> Result<(), ParamError> {
        let path = |k: &str| format!("{section}.{k}");
        let need = |ok: bool, key: &str, msg: &str| {
            if ok {
                Ok(())
            } else {
                Err(ParamError::new(path(key), msg.to_string()))
            }
        };
        if !self.method.is_multi_node() {
            need(
                !self.node.is_empty(),
                "node",
                "this method needs the node `node`",
            )?;
            need(
                self.dags.is_none() && self.nodes.is_none() && self.order.is_none(),
                "nodes",
                "`dags`, `nodes` and `order` belong to methods dags and dag",
            )?;
            need(
                self.node_step_sizes.is_none(),
                "node_step_sizes",
                "`node_step_sizes` belongs to methods dags and dag (use `step_sizes`)",
            )?;
        } else {
            need(
                self.node.is_empty(),
                "node",
                "methods dags and dag take `nodes`, not `node`",
            )?;
            need(
                self.parents.is_none() && self.candidates.is_none() && self.parent_sets.is_none(),
                "parents",
                "methods dags and dag take no `parents`, `candidates` or `parent_sets`",
            )?;
        }
        need(
            self.block_size == 0 || self.method == Method::Edges,
            "block_size",
            "`block_size` belongs to method edges",
        )?;
        need(
            self.block_size <= 16,
            "block_size",
            "allowed values are 0..=16 (a block of b indicators costs 2^b evaluations of eq 7)",
        )?;
        for (name, v) in self.node_step_sizes.iter().flatten() {
            for (i, &e) in v.iter().enumerate() {
                check_positive(&format!("{section}.node_step_sizes.{name}[{i}]"), e)?;
            }
        }
        let structures = [
            self.parents.is_some(),
            self.candidates.is_some(),
            self.parent_sets.is_some(),
        ]
        .iter()
        .filter(|&&b| b)
        .count();
        match self.method {
            Method::Mala => {
                need(
                    self.parents.is_some() && structures == 1,
                    "parents",
                    "method mala needs a fixed parent set `parents` (and no `candidates` or `parent_sets`)",
                )?;
                need(
                    self.step_sizes.is_some(),
                    "step_sizes",
                    "method mala needs `step_sizes`",
                )?;
            }
            Method::Edges => {
                need(
                    self.candidates.is_some() && structures == 1,
                    "candidates",
                    "method edges needs `candidates` (and no `parents` or `parent_sets`)",
                )?;
                need(
                    self.step_sizes.is_some(),
                    "step_sizes",
                    "method edges needs `step_sizes`",
                )?;
            }
            Method::ParentSets => {
                need(
                    self.parent_sets.as_ref().is_some_and(|s| !s.is_empty()) && structures == 1,
                    "parent_sets",
                    "method parent_sets needs a non-empty list `parent_sets` (and no `parents` or `candidates`)",
                )?;
                need(
                    self.step_sizes.is_some(),
                    "step_sizes",
                    "method parent_sets needs `step_sizes`",
                )?;
            }
            Method::Mmle => need(
                self.parents.is_some() && structures == 1 && self.beta.is_some(),
                "parents",
                "method mmle needs a fixed parent set `parents` (and no `candidates` or `parent_sets`) and `beta`",
            )?,
            Method::Exact => need(
                structures == 1,
                "parents",
                "method exact needs exactly one of `parents` (a fixed set), `candidates` (every subset) or `parent_sets`",
            )?,
            Method::Dags => need(
                self.dags.as_ref().is_some_and(|d| !d.is_empty()) && self.order.is_none(),
                "dags",
                "method dags needs a non-empty list `dags` (and no `order`)",
            )?,
            Method::Dag => need(
                self.nodes.as_ref().is_some_and(|n| !n.is_empty()) && self.dags.is_none(),
                "nodes",
                "method dag needs a non-empty list `nodes` (and no `dags`)",
            )?,
        }
        need(
            self.beta.is_none() || self.method == Method::Mmle,
            "beta",
            "`beta` belongs to method mmle",
        )?;
        Ok(())
    }

    /// `prior`: one probability ≥ 0 per candidate parent set or DAG, summing to 1.
    fn check_prior(&self, section: &str) -> Result<(), ParamError> {
        let path = |k: &str| format!("{section}.{k}");
        let m = match self.method {
            Method::Dags => self.dags.as_ref().map(Vec::len),
            _ => self.parent_sets.as_ref().map(Vec::len),
        };
        if let Some(prior) = &self.prior {
            let Some(m) = m else {
                return Err(ParamError::new(
                    path("prior"),
                    "`prior` needs candidate `parent_sets` or `dags`",
                ));
            };
            if prior.len() != m {
                return Err(ParamError::new(
                    path("prior"),
                    format!("{} prior probabilities for {m} candidates", prior.len()),
                ));
            }
            for (i, &p) in prior.iter().enumerate() {
                if !(p >= 0.0 && p.is_finite()) {
                    return Err(ParamError::new(
                        format!("{section}.prior[{i}]"),
                        format!("{p} is not a probability (≥ 0)"),
                    ));
                }
            }
            let sum: f64 = prior.iter().sum();
            if (sum - 1.0).abs() > PRIOR_SUM_TOLERANCE {
                return Err(ParamError::new(
                    path("prior"),
                    format!("the prior probabilities sum to {sum}, not 1"),
                ));
            }
        }
        Ok(())
    }

    /// Check against the data and resolve names to indices. Errors: an unknown node or parent
    /// (naming it), the node among its own parents, a repeated parent, more than
    /// [`MAX_CANDIDATES`] candidates, a node with fewer than 2 categories, `step_sizes` or `t0`
    /// whose length is not k_j (naming the node and both numbers), and for `exact` k_j > 3 or
    /// more than [`MAX_EXACT_CANDIDATES`] candidates.
    pub fn resolve(&self, section: &str, data: &DiscreteData) -> Result<Resolved, ParamError> {
        if self.method.is_multi_node() {
            return self.resolve_graph(section, data);
        }
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
        let mut parent_sets = Vec::new();
        for (m, set) in self.parent_sets.iter().flatten().enumerate() {
            parent_sets.push(names(&format!("parent_sets[{m}]"), set)?);
        }
        let union = parent_set_union(&parent_sets);
        if union.len() > MAX_CANDIDATES {
            return Err(ParamError::new(
                path("parent_sets"),
                format!(
                    "the candidate parent sets use {} columns: at most {MAX_CANDIDATES}",
                    union.len()
                ),
            ));
        }
        let prior = match (&self.prior, parent_sets.len()) {
            (Some(p), _) => p.clone(),
            (None, 0) => Vec::new(),
            (None, m) => vec![1.0 / m as f64; m],
        };
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
            block_size: self.block_size,
            grid_points: self.grid_points,
            laplace_cutoff: self.laplace_cutoff,
            warnings,
            parent_sets,
            prior,
            graph: None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn data() -> DiscreteData {
        DiscreteData::labelled(
            &[
                ("A", &["0", "1"]),
                ("B", &["0", "1", "2"]),
                ("C", &["0", "1", "2"]),
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

    #[test]
    fn parent_sets_and_their_prior() {
        let base = json!({"method": "parent_sets", "node": "C", "parent_sets": [["A"], ["B"], ["A", "B"]],
            "step_sizes": [0.5, 0.5, 0.5]});
        let p = Params::from_value("params", &base).expect("valid");
        let r = p.resolve("params", &data()).expect("resolves");
        assert_eq!(r.parent_sets, vec![vec![0], vec![1], vec![0, 1]]);
        assert_eq!(r.prior, vec![1.0 / 3.0; 3]);
        let with = |k: &str, v: serde_json::Value| {
            let mut o = base.clone();
            o[k] = v;
            Params::from_value("params", &o)
        };
        assert_eq!(
            with("prior", json!([0.5, 0.5])).unwrap_err().path,
            "params.prior"
        );
        assert_eq!(
            with("prior", json!([0.5, -0.1, 0.6])).unwrap_err().path,
            "params.prior[1]"
        );
        let e = with("prior", json!([0.5, 0.2, 0.2])).unwrap_err();
        assert!(e.message.contains("sum"), "{e}");
        let p = with("parent_sets", json!([["A"], ["C"]])).expect("parses");
        assert_eq!(
            p.resolve("params", &data()).unwrap_err().path,
            "params.parent_sets[1][0]"
        );
        assert!(with("candidates", json!(["A"])).is_err());
    }

    #[test]
    fn graphs_resolve_and_bad_ones_are_refused() {
        let p = Params::from_value(
            "params",
            &json!({"method": "dag", "nodes": ["A", "B", "C"], "order": ["C", "A", "B"],
                "node_step_sizes": {"A": [0.5, 0.5]}, "step_sizes": [0.4, 0.4, 0.4]}),
        )
        .expect("valid");
        let g = p
            .resolve("params", &data())
            .expect("resolves")
            .graph
            .expect("graph");
        assert_eq!(g.candidates, vec![vec![2], vec![2, 0], vec![]]);
        assert_eq!(
            g.step_sizes,
            vec![vec![0.5, 0.5], vec![0.4; 3], vec![0.4; 3]]
        );
        let p = Params::from_value(
            "params",
            &json!({"method": "dags", "dags": [{"B": ["A"]}, {"B": ["A"], "C": ["A", "B"]}],
                "prior": [0.25, 0.75], "step_sizes": [0.4, 0.4, 0.4]}),
        )
        .expect("valid");
        let r = p.resolve("params", &data()).expect("resolves");
        let g = r.graph.expect("graph");
        assert_eq!(
            (g.nodes.clone(), g.varying.clone()),
            (vec![0, 1, 2], vec![2])
        );
        assert!(
            g.step_sizes[1].is_empty(),
            "B's parents never change: no t_B"
        );
        let cyclic = Params::from_value(
            "params",
            &json!({"method": "dags", "dags": [{"B": ["A"], "A": ["B"]}], "step_sizes": [0.4, 0.4]}),
        )
        .expect("parses");
        let e = cyclic.resolve("params", &data()).unwrap_err();
        assert_eq!(e.path, "params.dags[0]");
        assert!(e.message.contains("cycle"), "{e}");
        let short = Params::from_value(
            "params",
            &json!({"method": "dag", "nodes": ["A", "B"], "node_step_sizes": {"B": [0.5, 0.5]},
                "step_sizes": [0.5, 0.5]}),
        )
        .expect("parses");
        let e = short.resolve("params", &data()).unwrap_err();
        assert_eq!(e.path, "params.node_step_sizes.B");
        assert!(
            Params::from_value(
                "params",
                &json!({"method": "dag", "node": "A", "nodes": ["A"]})
            )
            .is_err()
        );
        assert_eq!(cyclic_nodes(&[0b10, 0b01, 0b011]), Some(vec![0, 1, 2]));
        assert_eq!(cyclic_nodes(&[0, 0b1, 0b11]), None);
    }
}

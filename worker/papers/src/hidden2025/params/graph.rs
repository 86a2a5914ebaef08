//! The multi-node part of HiDDeN's `params` (methods `dags` and `dag`, §4.4): the graph's
//! nodes, the candidate DAGs (each checked acyclic) or each node's candidate parents Ca(j), and
//! the per-node k_j, Gamma shape, step sizes and t₀.

use super::{MAX_DAG_NODES, Method, Params, Resolved};
use crate::hidden2025::datasets::DiscreteData;
use crate::params::ParamError;

/// The multi-node part of [`Resolved`] (`dags`, `dag`); every vector is indexed like `nodes`.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct GraphSpec {
    /// The nodes (column indices).
    pub nodes: Vec<usize>,
    /// k_j of each node.
    pub k: Vec<usize>,
    /// Gamma shape ρ_j/k_j of each node.
    pub shape: Vec<f64>,
    /// ε_j of each sampled node (empty for a node `dags` does not sample).
    pub step_sizes: Vec<Vec<f64>>,
    /// t₀ of each node (k_j values).
    pub t0: Vec<Vec<f64>>,
    /// `dags`: per candidate DAG, per node, its parents (column indices, YAML order).
    pub dags: Vec<Vec<Vec<usize>>>,
    /// `dags`: the positions (in `nodes`) of the nodes whose parent sets differ between the
    /// candidates, ascending: only they carry t_j.
    pub varying: Vec<usize>,
    /// `dag`: Ca(j) of each node, as positions in `nodes` (the earlier nodes of `order`, or
    /// every other node).
    pub candidates: Vec<Vec<usize>>,
}

/// Column `name` of `data` (errors at YAML path `p`, listing the columns).
fn column(data: &DiscreteData, p: &str, name: &str) -> Result<usize, ParamError> {
    data.index(name).ok_or_else(|| {
        ParamError::new(
            p,
            format!(
                "`{name}` is not a column (columns: {})",
                data.names.join(", ")
            ),
        )
    })
}

/// The position in `nodes` of column `name` (errors at `p`: not a column, not a node).
fn position(
    data: &DiscreteData,
    nodes: &[usize],
    p: &str,
    name: &str,
) -> Result<usize, ParamError> {
    let j = column(data, p, name)?;
    nodes
        .iter()
        .position(|&v| v == j)
        .ok_or_else(|| ParamError::new(p, format!("`{name}` is not one of the graph's nodes")))
}

/// Per node: k_j, the Gamma shape, ε (sampled nodes only) and t₀; and the warnings.
struct NodeSettings {
    k: Vec<usize>,
    shape: Vec<f64>,
    step_sizes: Vec<Vec<f64>>,
    t0: Vec<Vec<f64>>,
    warnings: Vec<String>,
}

impl Params {
    /// [`Params::resolve`] for `dags` and `dag`: the nodes, each node's k_j, shape, ε (sampled
    /// nodes only) and t₀, the candidate DAGs (each acyclic) or the candidate parents Ca(j).
    pub(super) fn resolve_graph(
        &self,
        section: &str,
        data: &DiscreteData,
    ) -> Result<Resolved, ParamError> {
        let nodes = self.graph_nodes(section, data)?;
        let dags = self.candidate_dags(section, data, &nodes)?;
        let candidates = if self.method == Method::Dag {
            self.candidate_parents(section, data, &nodes)?
        } else {
            Vec::new()
        };
        let varying: Vec<usize> = if self.method == Method::Dags {
            (0..nodes.len())
                .filter(|&j| {
                    dags.iter().any(|d: &Vec<Vec<usize>>| {
                        let mut a = d[j].clone();
                        let mut b = dags[0][j].clone();
                        a.sort_unstable();
                        b.sort_unstable();
                        a != b
                    })
                })
                .collect()
        } else {
            (0..nodes.len()).collect()
        };
        let NodeSettings {
            k: ks,
            shape: shapes,
            step_sizes: steps,
            t0: t0s,
            warnings,
        } = self.node_settings(section, data, &nodes, &varying)?;
        let prior = match &self.prior {
            Some(p) => p.clone(),
            None if dags.is_empty() => Vec::new(),
            None => vec![1.0 / dags.len() as f64; dags.len()],
        };
        Ok(Resolved {
            method: self.method,
            node: nodes[0],
            k: ks[0],
            parents: None,
            candidates: Vec::new(),
            shape: shapes[0],
            rate: self.b,
            c: self.c,
            d: self.d,
            step_sizes: steps[0].clone(),
            t0: t0s[0].clone(),
            init: self.init,
            adapt: self.adapt,
            block_size: 0,
            grid_points: self.grid_points,
            laplace_cutoff: self.laplace_cutoff,
            warnings,
            parent_sets: Vec::new(),
            prior,
            graph: Some(GraphSpec {
                nodes,
                k: ks,
                shape: shapes,
                step_sizes: steps,
                t0: t0s,
                dags,
                varying,
                candidates,
            }),
        })
    }

    /// The graph's nodes: `nodes` as listed (no repeats), else every column the DAGs name,
    /// ascending. Errors: an unknown column, a repeat, none or more than [`MAX_DAG_NODES`].
    fn graph_nodes(&self, section: &str, data: &DiscreteData) -> Result<Vec<usize>, ParamError> {
        let mut nodes: Vec<usize> = Vec::new();
        if let Some(list) = &self.nodes {
            for (i, name) in list.iter().enumerate() {
                let j = column(data, &format!("{section}.nodes[{i}]"), name)?;
                if nodes.contains(&j) {
                    return Err(ParamError::new(
                        format!("{section}.nodes[{i}]"),
                        format!("`{name}` is repeated"),
                    ));
                }
                nodes.push(j);
            }
        } else {
            let mut all = Vec::new();
            for (m, dag) in self.dags.iter().flatten().enumerate() {
                for (child, parents) in dag {
                    all.push(column(
                        data,
                        &format!("{section}.dags[{m}].{child}"),
                        child,
                    )?);
                    for p in parents {
                        all.push(column(data, &format!("{section}.dags[{m}].{child}"), p)?);
                    }
                }
            }
            all.sort_unstable();
            all.dedup();
            nodes = all;
        }
        if nodes.is_empty() || nodes.len() > MAX_DAG_NODES {
            return Err(ParamError::new(
                format!("{section}.nodes"),
                format!("{} nodes: allowed 1..={MAX_DAG_NODES}", nodes.len()),
            ));
        }
        Ok(nodes)
    }

    /// `dags`: per candidate DAG, per node, its parents (columns, YAML order). Errors: a node
    /// its own parent, a repeated parent, a directed cycle.
    fn candidate_dags(
        &self,
        section: &str,
        data: &DiscreteData,
        nodes: &[usize],
    ) -> Result<Vec<Vec<Vec<usize>>>, ParamError> {
        let mut dags = Vec::new();
        for (m, dag) in self.dags.iter().flatten().enumerate() {
            let mut pa: Vec<Vec<usize>> = vec![Vec::new(); nodes.len()];
            let mut masks = vec![0u64; nodes.len()];
            for (child, parents) in dag {
                let p = format!("{section}.dags[{m}].{child}");
                let c = position(data, nodes, &p, child)?;
                for name in parents {
                    let q = position(data, nodes, &p, name)?;
                    if q == c {
                        return Err(ParamError::new(&p, format!("`{name}` is its own parent")));
                    }
                    if masks[c] >> q & 1 == 1 {
                        return Err(ParamError::new(&p, format!("parent `{name}` is repeated")));
                    }
                    masks[c] |= 1 << q;
                    pa[c].push(nodes[q]);
                }
            }
            if let Some(cycle) = cyclic_nodes(&masks) {
                let names: Vec<&str> = cycle
                    .iter()
                    .map(|&i| data.names[nodes[i]].as_str())
                    .collect();
                return Err(ParamError::new(
                    format!("{section}.dags[{m}]"),
                    format!("the DAG has a directed cycle through {}", names.join(", ")),
                ));
            }
            dags.push(pa);
        }
        Ok(dags)
    }

    /// `dag`: Ca(j) of each node as positions in `nodes`: the earlier nodes of `order`, or
    /// without `order` every other node. Errors: an `order` that repeats or misses a node.
    fn candidate_parents(
        &self,
        section: &str,
        data: &DiscreteData,
        nodes: &[usize],
    ) -> Result<Vec<Vec<usize>>, ParamError> {
        let order: Vec<usize> = match &self.order {
            Some(list) => {
                let mut o = Vec::new();
                for (i, name) in list.iter().enumerate() {
                    let q = position(data, nodes, &format!("{section}.order[{i}]"), name)?;
                    if o.contains(&q) {
                        return Err(ParamError::new(
                            format!("{section}.order[{i}]"),
                            format!("`{name}` is repeated"),
                        ));
                    }
                    o.push(q);
                }
                if o.len() != nodes.len() {
                    return Err(ParamError::new(
                        format!("{section}.order"),
                        format!(
                            "{} names for {} nodes: `order` must list every node",
                            o.len(),
                            nodes.len()
                        ),
                    ));
                }
                o
            }
            None => Vec::new(),
        };
        Ok((0..nodes.len())
            .map(|j| match order.iter().position(|&q| q == j) {
                Some(r) => order[..r].to_vec(),
                None => (0..nodes.len()).filter(|&i| i != j).collect(),
            })
            .collect())
    }

    /// Each node's k_j (≥ 2), shape ρ_j/k_j, ε (the `varying` nodes only: `node_step_sizes.<name>`
    /// or `step_sizes`, k_j values) and t₀ (k_j values, default 1); a warning where ρ_j < k_j.
    /// Errors: a node with one category, missing or mis-sized step sizes or t₀, a
    /// `node_step_sizes` key that is not a node.
    fn node_settings(
        &self,
        section: &str,
        data: &DiscreteData,
        nodes: &[usize],
        varying: &[usize],
    ) -> Result<NodeSettings, ParamError> {
        let path = |k: &str| format!("{section}.{k}");
        let mut out = NodeSettings {
            k: Vec::new(),
            shape: Vec::new(),
            step_sizes: Vec::new(),
            t0: Vec::new(),
            warnings: Vec::new(),
        };
        for (i, &j) in nodes.iter().enumerate() {
            let name = &data.names[j];
            let k = data.k(j);
            if k < 2 {
                return Err(ParamError::new(
                    path("nodes"),
                    format!("node {name} has {k} category: HiDDeN needs k_j ≥ 2"),
                ));
            }
            let rho = self.rho.value(k);
            if rho < k as f64 && varying.contains(&i) {
                out.warnings.push(format!(
                    "{section}.rho: ρ_j = {rho} < k_j = {k} for node {name}: Theorem 2 (h_{{j,x}} log-concave) no longer holds"
                ));
            }
            let own = self.node_step_sizes.as_ref().and_then(|m| m.get(name));
            let (key, eps) = match own {
                Some(v) => (format!("node_step_sizes.{name}"), Some(v)),
                None => ("step_sizes".to_string(), self.step_sizes.as_ref()),
            };
            let eps = if varying.contains(&i) {
                let v = eps.ok_or_else(|| {
                    ParamError::new(path("step_sizes"), format!("node {name} needs step sizes (`node_step_sizes.{name}` or `step_sizes`)"))
                })?;
                if v.len() != k {
                    return Err(ParamError::new(
                        path(&key),
                        format!(
                            "node {name} has k_j = {k} categories but {key} has {} values",
                            v.len()
                        ),
                    ));
                }
                v.clone()
            } else {
                Vec::new()
            };
            let t0 = match &self.t0 {
                Some(v) if v.len() != k => {
                    return Err(ParamError::new(
                        path("t0"),
                        format!(
                            "node {name} has k_j = {k} categories but t0 has {} values",
                            v.len()
                        ),
                    ));
                }
                Some(v) => v.clone(),
                None => vec![1.0; k],
            };
            out.k.push(k);
            out.shape.push(rho / k as f64);
            out.step_sizes.push(eps);
            out.t0.push(t0);
        }
        for name in self.node_step_sizes.iter().flat_map(|m| m.keys()) {
            position(
                data,
                nodes,
                &format!("{section}.node_step_sizes.{name}"),
                name,
            )?;
        }
        Ok(out)
    }
}

impl GraphSpec {
    /// `dags`: each candidate DAG as one parent bit mask per node over positions in `nodes`
    /// (bit i of mask j ↦ `nodes[i]` → `nodes[j]`).
    pub fn dag_masks(&self) -> Vec<Vec<u64>> {
        self.dags
            .iter()
            .map(|dag| {
                dag.iter()
                    .map(|pa| position_mask(pa, &self.nodes))
                    .collect()
            })
            .collect()
    }
}

/// `set` as a bit mask over `pool` (bit i ↦ `pool[i]`; members not in `pool` are ignored).
pub fn position_mask(set: &[usize], pool: &[usize]) -> u64 {
    set.iter()
        .filter_map(|p| pool.iter().position(|q| q == p))
        .fold(0u64, |m, i| m | 1 << i)
}

/// The columns used by any of `sets`, ascending (Ca(j) of Algorithm 3, §4.3).
pub fn parent_set_union(sets: &[Vec<usize>]) -> Vec<usize> {
    let mut u: Vec<usize> = sets.iter().flatten().copied().collect();
    u.sort_unstable();
    u.dedup();
    u
}

/// The nodes on or downstream of a directed cycle of the graph with parent bit masks `parents` (bit i of
/// `parents[j]` ↦ i → j), by repeatedly removing nodes without remaining parents (Kahn);
/// `None` if the graph is acyclic.
pub fn cyclic_nodes(parents: &[u64]) -> Option<Vec<usize>> {
    let p = parents.len();
    let mut left: u64 = if p >= 64 { u64::MAX } else { (1u64 << p) - 1 };
    loop {
        let free: Vec<usize> = (0..p)
            .filter(|&j| left >> j & 1 == 1 && parents[j] & left == 0)
            .collect();
        if free.is_empty() {
            break;
        }
        for j in free {
            left &= !(1u64 << j);
        }
    }
    (left != 0).then(|| (0..p).filter(|&j| left >> j & 1 == 1).collect())
}

//! The node-by-node DAG sampler (§4.4): one iteration draws t_j of every node by Algorithm 1
//! given its current parents, then sweeps over the nodes, drawing each node's edge indicators
//! by Algorithm 2 (eq 13, γ_j integrated out) given t_j and the rest of the graph. An edge
//! j′ → j that would close a directed cycle has probability 0 (§4.4: "we automatically set
//! z_{j′j} = 0"), so the chain never leaves the acyclic graphs. With a fixed `order`,
//! Ca(j) = the earlier nodes and no cycle can form.
//!
//! The target is p(G, t | n) ∝ Π_j BB(z_j; c, d) p(t_j) f(n_j | Pa_j, t_j) restricted to DAGs,
//! where BB is the beta-binomial prior of the indicators over Ca(j) (§4.1).

use std::collections::HashMap;

use rand::RngExt;
use statrs::function::gamma::ln_gamma;

use super::edges::TableCache;
use super::node_t::{AdaptWindow, NodeT, node_summaries};
use super::{
    Defect, dag_label, finite_log_posterior, parent_set_label, resolve_params, visit_counts,
};
use crate::chain::{RunSpec, Sampler, SamplerError};
use crate::data::Matrix;
use crate::hidden2025::datasets::DiscreteData;
use crate::hidden2025::equations::{edge_log_weights, log_marginal_likelihood};
use crate::hidden2025::params::{GraphSpec, Init, Method, Params, Resolved};
use crate::math::log_add_exp;
use crate::seed::ChainRng;

/// Largest total number of candidate edges [`enumerate_dags`] accepts (2^24 combinations).
pub const MAX_ENUMERATED_EDGES: usize = 24;

/// Whether `to` is reachable from `from` along directed edges (`parents[b]` bit a ↦ a → b).
pub(crate) fn reaches(parents: &[u64], from: usize, to: usize) -> bool {
    let mut seen = 1u64 << from;
    let mut stack = vec![from];
    while let Some(a) = stack.pop() {
        if a == to {
            return true;
        }
        for (b, &pb) in parents.iter().enumerate() {
            if pb >> a & 1 == 1 && seen >> b & 1 == 0 {
                seen |= 1 << b;
                stack.push(b);
            }
        }
    }
    false
}

/// Every DAG whose parent sets lie within `candidates` (`candidates[j]` = Ca(j) as positions
/// 0..p), each as its parent bit masks over positions, in lexicographic order of the indicator
/// vector (25 graphs for 3 nodes with Ca(j) = the other nodes). Errors: more than
/// [`MAX_ENUMERATED_EDGES`] candidate edges.
pub fn enumerate_dags(candidates: &[Vec<usize>]) -> Result<Vec<Vec<u64>>, SamplerError> {
    let edges: Vec<(usize, usize)> = candidates
        .iter()
        .enumerate()
        .flat_map(|(j, ca)| ca.iter().map(move |&i| (i, j)))
        .collect();
    if edges.len() > MAX_ENUMERATED_EDGES {
        return Err(SamplerError::Input(format!(
            "{} candidate edges: at most {MAX_ENUMERATED_EDGES} can be enumerated",
            edges.len()
        )));
    }
    let mut out = Vec::new();
    for combo in 0..1u64 << edges.len() {
        let mut parents = vec![0u64; candidates.len()];
        for (e, &(i, j)) in edges.iter().enumerate() {
            if combo >> e & 1 == 1 {
                parents[j] |= 1 << i;
            }
        }
        if crate::hidden2025::params::cyclic_nodes(&parents).is_none() {
            out.push(parents);
        }
    }
    Ok(out)
}

/// One chain of the node-by-node DAG sampler (`method: dag`).
///
/// Trace: `log_posterior` (Σ_j of supplement B's log posterior of node j), `n_edges`,
/// `z_{i}_{j}` (edge from the i-th to the j-th of `nodes`, for each j and i ∈ Ca(j)),
/// `t_{j}_{x}`. Statistics: `accept_{j}_{x}`. Summaries (after burn-in): `t_mean`,
/// `acceptance`, `step_sizes` (nodes × max k_j, NaN-padded), `edge_probabilities` (p × p,
/// row = parent, column = child) and `dags` (visited DAGs × [count, frequency], most visited
/// first).
#[derive(serde::Serialize, serde::Deserialize)]
pub struct DagGibbsSampler {
    data: DiscreteData,
    cfg: Resolved,
    graph: GraphSpec,
    caches: Vec<TableCache>,
    /// Per node: indicator bit mask over its candidates (bit i ↦ `graph.candidates[j][i]`).
    masks: Vec<u64>,
    /// Per node: parent bit mask over positions in `nodes` (derived from `masks`).
    parents: Vec<u64>,
    nodes_t: Vec<NodeT>,
    log_post: f64,
    /// When ε adapts, and the iterations done.
    window: AdaptWindow,
    n_accum: u64,
    edge_sum: Vec<f64>,
    dag_counts: HashMap<Vec<u64>, u64>,
    defect: Option<Defect>,
}

impl DagGibbsSampler {
    /// Build a chain from the cell's `params` (method `dag`). Initial graph per `init`:
    /// `prior` draws each indicator from Bernoulli(c/(c+d)) and `full` sets each, node by node
    /// in `nodes` order, skipping an edge that would close a cycle; `empty` starts without
    /// edges. Errors: [`SamplerError::Input`] naming the parameter.
    pub fn new(
        data: &DiscreteData,
        params: &Params,
        rng: &mut ChainRng,
    ) -> Result<Self, SamplerError> {
        let cfg = resolve_params(params, data)?;
        let graph = match (&cfg.graph, cfg.method) {
            (Some(g), Method::Dag) => g.clone(),
            _ => {
                return Err(SamplerError::Input(
                    "params.method: DagGibbsSampler needs method dag".into(),
                ));
            }
        };
        let p = graph.nodes.len();
        let caches = (0..p)
            .map(|j| {
                let pool = graph.candidates[j]
                    .iter()
                    .map(|&i| graph.nodes[i])
                    .collect();
                TableCache::new(graph.nodes[j], pool)
            })
            .collect();
        let nodes_t = (0..p)
            .map(|j| {
                NodeT::new(
                    graph.shape[j],
                    cfg.rate,
                    graph.t0[j].clone(),
                    graph.step_sizes[j].clone(),
                    cfg.adapt,
                )
            })
            .collect();
        let mut s = DagGibbsSampler {
            data: data.clone(),
            caches,
            masks: vec![0; p],
            parents: vec![0; p],
            nodes_t,
            log_post: 0.0,
            window: AdaptWindow::new(cfg.adapt.is_some()),
            n_accum: 0,
            edge_sum: vec![0.0; p * p],
            dag_counts: HashMap::new(),
            defect: None,
            graph,
            cfg,
        };
        for j in 0..p {
            for (ci, &i) in s.graph.candidates[j].iter().enumerate() {
                let on = match s.cfg.init {
                    Init::Empty => false,
                    Init::Full => true,
                    Init::Prior => rng.random::<f64>() < s.cfg.c / (s.cfg.c + s.cfg.d),
                };
                if on && !reaches(&s.parents, j, i) {
                    s.masks[j] |= 1 << ci;
                    s.parents[j] |= 1 << i;
                }
            }
        }
        s.log_post = s.compute_log_posterior();
        Ok(s)
    }

    /// Switch on a deliberately broken kernel (negative-control tests only).
    #[cfg(feature = "testing")]
    pub fn with_defect(mut self, defect: impl Into<Option<Defect>>) -> Self {
        self.defect = defect.into();
        self
    }

    /// The graph's resolved description (nodes, k_j, Ca(j), ...).
    pub fn graph(&self) -> &GraphSpec {
        &self.graph
    }

    /// Current parent bit masks over positions in `nodes` (bit i of entry j ↦ i → j).
    pub fn parent_masks(&self) -> &[u64] {
        &self.parents
    }

    /// Current t_j of node position `j`.
    pub fn t(&self, j: usize) -> &[f64] {
        &self.nodes_t[j].t
    }

    /// Current log posterior (trace value).
    pub fn log_posterior(&self) -> f64 {
        self.log_post
    }

    /// Replace every node's t_j (`t[j]`: k_j values > 0) and, if given, the graph (parent bit
    /// masks over positions; each parent must be a candidate and the graph acyclic).
    pub fn set_state(
        &mut self,
        t: &[Vec<f64>],
        parents: Option<&[u64]>,
    ) -> Result<(), SamplerError> {
        let p = self.graph.nodes.len();
        if t.len() != p
            || t.iter()
                .zip(&self.graph.k)
                .any(|(v, &k)| v.len() != k || v.iter().any(|&x| !(x > 0.0 && x.is_finite())))
        {
            return Err(SamplerError::Input(format!(
                "t must hold k_j positive values for each of the {p} nodes"
            )));
        }
        if let Some(pa) = parents {
            if pa.len() != p || crate::hidden2025::params::cyclic_nodes(pa).is_some() {
                return Err(SamplerError::Input(format!(
                    "the graph must be {p} acyclic parent masks"
                )));
            }
            let mut masks = vec![0u64; p];
            for j in 0..p {
                for i in 0..p {
                    if pa[j] >> i & 1 == 1 {
                        let ci = self.graph.candidates[j].iter().position(|&c| c == i);
                        let Some(ci) = ci else {
                            return Err(SamplerError::Input(format!(
                                "edge {i} -> {j} is not a candidate"
                            )));
                        };
                        masks[j] |= 1 << ci;
                    }
                }
            }
            self.masks = masks;
            self.parents = pa.to_vec();
        }
        for (node, v) in self.nodes_t.iter_mut().zip(t) {
            node.t = v.clone();
        }
        self.log_post = self.compute_log_posterior();
        Ok(())
    }

    fn compute_log_posterior(&mut self) -> f64 {
        let (c, d) = (self.cfg.c, self.cfg.d);
        let mut total = 0.0;
        for j in 0..self.graph.nodes.len() {
            let m = self.graph.candidates[j].len();
            let ones = self.masks[j].count_ones() as usize;
            let node = &self.nodes_t[j];
            total +=
                log_marginal_likelihood(self.caches[j].table(&self.data, self.masks[j]), &node.t)
                    + node.log_prior_kernel()
                    + ln_gamma(ones as f64 + c)
                    + ln_gamma((m - ones) as f64 + d);
        }
        total
    }

    /// Algorithm 1 for every node given its current parents.
    pub fn update_t(&mut self, rng: &mut ChainRng) -> Result<(), SamplerError> {
        for j in 0..self.graph.nodes.len() {
            let table = self.caches[j].table(&self.data, self.masks[j]);
            self.nodes_t[j].update(table, rng, self.defect, &self.window)?;
        }
        Ok(())
    }

    /// One Gibbs sweep over the nodes, each node's indicators by Algorithm 2 given t and the
    /// rest of the graph; a cycle-closing edge stays absent (no draw is made for it).
    pub fn update_structure(&mut self, rng: &mut ChainRng) {
        let (c, d) = (self.cfg.c, self.cfg.d);
        for j in 0..self.graph.nodes.len() {
            let m = self.graph.candidates[j].len();
            for ci in 0..m {
                let i = self.graph.candidates[j][ci];
                let bit = 1u64 << ci;
                let without = self.masks[j] & !bit;
                let with = self.masks[j] | bit;
                let closes = self.masks[j] & bit == 0 && reaches(&self.parents, j, i);
                if closes && self.defect != Some(Defect::CyclesAllowed) {
                    continue;
                }
                let ones = without.count_ones() as usize;
                let t = &self.nodes_t[j].t;
                let lml0 = log_marginal_likelihood(self.caches[j].table(&self.data, without), t);
                let lml1 = log_marginal_likelihood(self.caches[j].table(&self.data, with), t);
                let (w0, w1) = edge_log_weights(c, d, ones, m - 1 - ones, lml0, lml1);
                let p1 = (w1 - log_add_exp(w0, w1)).exp();
                if rng.random::<f64>() < p1 {
                    self.masks[j] = with;
                    self.parents[j] |= 1 << i;
                } else {
                    self.masks[j] = without;
                    self.parents[j] &= !(1 << i);
                }
            }
        }
    }
}

impl Sampler for DagGibbsSampler {
    fn begin(&mut self, spec: &RunSpec) {
        self.window.begin(spec.burn_in);
    }

    fn trace_names(&self) -> Vec<String> {
        let mut v = vec!["log_posterior".to_string(), "n_edges".to_string()];
        for (j, ca) in self.graph.candidates.iter().enumerate() {
            v.extend(ca.iter().map(|i| format!("z_{i}_{j}")));
        }
        for (j, &k) in self.graph.k.iter().enumerate() {
            v.extend((0..k).map(|x| format!("t_{j}_{x}")));
        }
        v
    }

    fn step(&mut self, rng: &mut ChainRng) -> Result<(), SamplerError> {
        self.window.start_step();
        self.update_t(rng)?;
        self.update_structure(rng);
        self.window.iteration += 1;
        self.log_post = finite_log_posterior(self.compute_log_posterior(), String::new)?;
        Ok(())
    }

    fn record(&self, row: &mut Vec<f64>) {
        row.push(self.log_post);
        row.push(self.parents.iter().map(|m| m.count_ones()).sum::<u32>() as f64);
        for (j, ca) in self.graph.candidates.iter().enumerate() {
            row.extend((0..ca.len()).map(|ci| (self.masks[j] >> ci & 1) as f64));
        }
        for node in &self.nodes_t {
            row.extend_from_slice(&node.t);
        }
    }

    fn stat_names(&self) -> Vec<String> {
        let mut v = Vec::new();
        for (j, &k) in self.graph.k.iter().enumerate() {
            v.extend((0..k).map(|x| format!("accept_{j}_{x}")));
        }
        v
    }

    fn record_stats(&self, row: &mut Vec<f64>) {
        for node in &self.nodes_t {
            row.extend(node.accepted.iter().map(|&a| if a { 1.0 } else { 0.0 }));
        }
    }

    fn accumulate(&mut self) {
        self.window.accumulate();
        self.n_accum += 1;
        let p = self.graph.nodes.len();
        for j in 0..p {
            self.nodes_t[j].accumulate();
            for i in 0..p {
                self.edge_sum[i * p + j] += (self.parents[j] >> i & 1) as f64;
            }
        }
        *self.dag_counts.entry(self.parents.clone()).or_insert(0) += 1;
    }

    fn summary(&self) -> Vec<Matrix> {
        let n = self.n_accum.max(1) as f64;
        let p = self.graph.nodes.len();
        let names: Vec<String> = self
            .graph
            .nodes
            .iter()
            .map(|&j| self.data.names[j].clone())
            .collect();
        let refs: Vec<&NodeT> = self.nodes_t.iter().collect();
        let mut out = node_summaries(&names, &refs, n);
        let mut e = Matrix::new(
            "edge_probabilities",
            p,
            p,
            self.edge_sum.iter().map(|s| s / n).collect(),
        );
        e.row_names = names.clone();
        e.col_names = names;
        out.push(e);
        out.push(dag_counts_matrix(
            &self.data,
            &self.graph.nodes,
            &self.dag_counts,
            n,
        ));
        out
    }

    crate::serde_checkpoint!();
}

/// The `dags` summary: visited DAGs × [count, frequency], most visited first (ties: fewer
/// edges, then label order).
pub(crate) fn dag_counts_matrix(
    data: &DiscreteData,
    nodes: &[usize],
    counts: &HashMap<Vec<u64>, u64>,
    n: f64,
) -> Matrix {
    let mut rows: Vec<(String, u32, u64)> = counts
        .iter()
        .map(|(pa, &c)| {
            (
                dag_label(data, nodes, pa),
                pa.iter().map(|m| m.count_ones()).sum(),
                c,
            )
        })
        .collect();
    rows.sort_by(|a, b| b.2.cmp(&a.2).then(a.1.cmp(&b.1)).then(a.0.cmp(&b.0)));
    visit_counts("dags", rows.into_iter().map(|r| (r.0, r.2)).collect(), n)
}

/// Parent-set labels of one node (for callers that report a node's parents from a mask).
pub fn node_parents_label(data: &DiscreteData, nodes: &[usize], mask: u64) -> String {
    let mut pa: Vec<usize> = (0..nodes.len())
        .filter(|i| mask >> i & 1 == 1)
        .map(|i| nodes[i])
        .collect();
    pa.sort_unstable();
    parent_set_label(data, &pa)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chain::run_chain;
    use crate::hidden2025::samplers::tests::data;
    use crate::seed::chain_rng;

    #[test]
    fn structure_samplers_record_traces_and_summaries() {
        let spec = RunSpec {
            iterations: 200,
            burn_in: 50,
            thin: 1,
        };
        let mut rng = chain_rng(1, 0, 0, 0);
        let p = Params::from_value(
            "params",
            &serde_json::json!({"method": "dag", "nodes": ["A", "B", "C"], "init": "full",
                "step_sizes": [0.5, 0.5], "node_step_sizes": {"B": [0.4, 0.4, 0.4]}}),
        )
        .expect("params");
        let mut s = DagGibbsSampler::new(&data(), &p, &mut rng).expect("sampler");
        assert!(crate::hidden2025::params::cyclic_nodes(s.parent_masks()).is_none());
        assert_eq!(s.trace_names().len(), 2 + 6 + 7);
        let out = run_chain(&mut s, &spec, &mut rng, &mut |_, _| {}).expect("runs");
        let names: Vec<&str> = out.summary.iter().map(|m| m.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "t_mean",
                "acceptance",
                "step_sizes",
                "edge_probabilities",
                "dags"
            ]
        );
        let dags = &out.summary[4];
        assert!((dags.values.iter().skip(1).step_by(2).sum::<f64>() - 1.0).abs() < 1e-12);

        let p = Params::from_value(
            "params",
            &serde_json::json!({"method": "parent_sets", "node": "C",
                "parent_sets": [[], ["A"], ["B", "A"]], "step_sizes": [0.5, 0.5]}),
        )
        .expect("params");
        let mut s = super::super::ParentSetSampler::new(&data(), &p, &mut rng).expect("sampler");
        assert_eq!(
            s.trace_names(),
            ["log_posterior", "n_parents", "parent_set", "t_0", "t_1"]
        );
        let out = run_chain(&mut s, &spec, &mut rng, &mut |_, _| {}).expect("runs");
        let sets = &out.summary[3];
        assert_eq!(sets.row_names, ["(empty)", "A", "A;B"]);
        let edges = &out.summary[4];
        assert_eq!(edges.row_names, ["A", "B"]);
        assert!((edges.values[0] - sets.get(1, 1) - sets.get(2, 1)).abs() < 1e-12);

        let p = Params::from_value(
            "params",
            &serde_json::json!({"method": "dags", "dags": [{"C": ["A"]}, {"C": ["A", "B"]}],
                "step_sizes": [0.5, 0.5]}),
        )
        .expect("params");
        let mut s = super::super::DagSampler::new(&data(), &p, &mut rng).expect("sampler");
        assert_eq!(s.graph().varying, [2]);
        assert_eq!(
            s.trace_names(),
            ["log_posterior", "dag", "n_edges", "t_2_0", "t_2_1"]
        );
        let out = run_chain(&mut s, &spec, &mut rng, &mut |_, _| {}).expect("runs");
        let d = &out.summary[3];
        assert_eq!(d.row_names, ["A->C", "A->C;B->C"]);
    }
}

//! Algorithm 4 (§4.4): the DAG drawn among M candidate DAGs with prior probabilities,
//! Pr(G_m | −) ∝ Pr(G_m) Π_j f(n_j | Pa_j^m, t_j). A node whose parent set is the same in every
//! candidate contributes the same factor to each and cancels, so only the nodes whose parent
//! sets differ carry t_j (Algorithm 1); their tables are built once, when the sampler is built.

use super::dag_label;
use super::node_t::{AdaptWindow, NodeT, node_summaries};
use super::parent_sets::categorical;
use super::{Defect, finite_log_posterior, resolve_params};
use crate::chain::{RunSpec, Sampler, SamplerError};
use crate::data::Matrix;
use crate::hidden2025::datasets::{DiscreteData, ParentTable};
use crate::hidden2025::equations::log_marginal_likelihood;
use crate::hidden2025::params::{GraphSpec, Init, Method, Params, Resolved};
use crate::seed::ChainRng;

/// One chain of Algorithms 1 + 4 (`method: dags`).
///
/// Trace: `log_posterior` (Σ over the sampled nodes of eq 7 + supplement B's t terms, + log
/// Pr(G_m)), `dag` (index of the current candidate, YAML order), `n_edges`, `t_{j}_{x}` for each
/// sampled node (j = its position in `nodes`). Statistics: `accept_{j}_{x}`. Summaries (after
/// burn-in): `t_mean`, `acceptance`, `step_sizes` (sampled nodes × max k_j, NaN-padded), `dags`
/// (every candidate in YAML order × [count, frequency, prior]), `edge_probabilities` (p × p,
/// row = parent, column = child).
#[derive(serde::Serialize, serde::Deserialize)]
pub struct DagSampler {
    data: DiscreteData,
    cfg: Resolved,
    graph: GraphSpec,
    /// `tables[m][v]`: node `graph.varying[v]` under candidate m.
    tables: Vec<Vec<ParentTable>>,
    /// Parent bit masks over positions in `nodes`, per candidate.
    masks: Vec<Vec<u64>>,
    log_prior: Vec<f64>,
    current: usize,
    nodes_t: Vec<NodeT>,
    log_post: f64,
    /// When ε adapts, and the iterations done.
    window: AdaptWindow,
    n_accum: u64,
    counts: Vec<u64>,
    defect: Option<Defect>,
}

impl DagSampler {
    /// Build a chain from the cell's `params` (method `dags`): tables of every sampled node
    /// under every candidate, t at `t0`, the first DAG per `init` (`prior`: drawn from the
    /// prior, as §5.3; `empty`: the first candidate with the fewest edges; `full`: the first
    /// with the most; a candidate of prior 0 is never chosen). Errors: [`SamplerError::Input`].
    pub fn new(
        data: &DiscreteData,
        params: &Params,
        rng: &mut ChainRng,
    ) -> Result<Self, SamplerError> {
        let cfg = resolve_params(params, data)?;
        let graph = match (&cfg.graph, cfg.method) {
            (Some(g), Method::Dags) => g.clone(),
            _ => {
                return Err(SamplerError::Input(
                    "params.method: DagSampler needs method dags".into(),
                ));
            }
        };
        let tables: Vec<Vec<ParentTable>> = graph
            .dags
            .iter()
            .map(|dag| {
                graph
                    .varying
                    .iter()
                    .map(|&j| {
                        let mut pa = dag[j].clone();
                        pa.sort_unstable();
                        data.table(graph.nodes[j], &pa)
                    })
                    .collect()
            })
            .collect();
        let masks = graph.dag_masks();
        let edges = |m: usize| masks[m].iter().map(|x| x.count_ones()).sum::<u32>();
        let log_prior: Vec<f64> = cfg.prior.iter().map(|p| p.ln()).collect();
        let eligible: Vec<usize> = (0..masks.len()).filter(|&m| cfg.prior[m] > 0.0).collect();
        let current = match cfg.init {
            Init::Prior => categorical(&log_prior, rng),
            Init::Empty => eligible.iter().copied().min_by_key(|&m| edges(m)),
            Init::Full => eligible
                .iter()
                .copied()
                .max_by_key(|&m| (edges(m), usize::MAX - m)),
        }
        .ok_or_else(|| SamplerError::Input("params.prior: every prior probability is 0".into()))?;
        let nodes_t = graph
            .varying
            .iter()
            .map(|&j| {
                NodeT::new(
                    graph.shape[j],
                    cfg.rate,
                    graph.t0[j].clone(),
                    graph.step_sizes[j].clone(),
                    cfg.adapt,
                )
            })
            .collect();
        let mut s = DagSampler {
            data: data.clone(),
            counts: vec![0; masks.len()],
            tables,
            masks,
            log_prior,
            current,
            nodes_t,
            log_post: 0.0,
            window: AdaptWindow::new(cfg.adapt.is_some()),
            n_accum: 0,
            defect: None,
            graph,
            cfg,
        };
        s.log_post = s.compute_log_posterior();
        Ok(s)
    }

    /// Switch on a deliberately broken kernel (negative-control tests only).
    #[cfg(feature = "testing")]
    pub fn with_defect(mut self, defect: impl Into<Option<Defect>>) -> Self {
        self.defect = defect.into();
        self
    }

    /// The graph's resolved description (`varying` = the nodes that carry t_j).
    pub fn graph(&self) -> &GraphSpec {
        &self.graph
    }

    /// Index of the current candidate DAG (YAML order).
    pub fn current(&self) -> usize {
        self.current
    }

    /// Parent bit masks over positions in `nodes` of each candidate DAG.
    pub fn dag_masks(&self) -> &[Vec<u64>] {
        &self.masks
    }

    /// Current t_j of the v-th sampled node (`graph().varying[v]`).
    pub fn t(&self, v: usize) -> &[f64] {
        &self.nodes_t[v].t
    }

    /// Current log posterior (trace value).
    pub fn log_posterior(&self) -> f64 {
        self.log_post
    }

    /// Replace t of every sampled node (`t[v]`: k_j values > 0, v indexing `varying`) and, if
    /// given, the current candidate.
    pub fn set_state(
        &mut self,
        t: &[Vec<f64>],
        current: Option<usize>,
    ) -> Result<(), SamplerError> {
        let ok = t.len() == self.nodes_t.len()
            && t.iter().zip(&self.graph.varying).all(|(v, &j)| {
                v.len() == self.graph.k[j] && v.iter().all(|&x| x > 0.0 && x.is_finite())
            });
        if !ok {
            return Err(SamplerError::Input(format!(
                "t must hold k_j positive values for each of the {} sampled nodes",
                self.nodes_t.len()
            )));
        }
        if let Some(m) = current {
            if m >= self.masks.len() {
                return Err(SamplerError::Input(format!(
                    "DAG {m} is not one of the {} candidates",
                    self.masks.len()
                )));
            }
            self.current = m;
        }
        for (node, v) in self.nodes_t.iter_mut().zip(t) {
            node.t = v.clone();
        }
        self.log_post = self.compute_log_posterior();
        Ok(())
    }

    fn compute_log_posterior(&self) -> f64 {
        let mut total = self.log_prior[self.current];
        for (v, node) in self.nodes_t.iter().enumerate() {
            total += log_marginal_likelihood(&self.tables[self.current][v], &node.t)
                + node.log_prior_kernel();
        }
        total
    }

    /// Algorithm 1 for every sampled node given the current DAG.
    pub fn update_t(&mut self, rng: &mut ChainRng) -> Result<(), SamplerError> {
        for (v, node) in self.nodes_t.iter_mut().enumerate() {
            node.update(
                &self.tables[self.current][v],
                rng,
                self.defect,
                &self.window,
            )?;
        }
        Ok(())
    }

    /// Algorithm 4 given the current t of the sampled nodes.
    pub fn update_structure(&mut self, rng: &mut ChainRng) {
        let first_only = self.defect == Some(Defect::DagFirstNodeOnly);
        let logw: Vec<f64> = self
            .tables
            .iter()
            .zip(&self.log_prior)
            .map(|(tabs, &lp)| {
                if lp == f64::NEG_INFINITY {
                    return lp;
                }
                let used = if first_only {
                    tabs.len().min(1)
                } else {
                    tabs.len()
                };
                lp + tabs[..used]
                    .iter()
                    .zip(&self.nodes_t)
                    .map(|(table, node)| log_marginal_likelihood(table, &node.t))
                    .sum::<f64>()
            })
            .collect();
        if let Some(m) = categorical(&logw, rng) {
            self.current = m;
        }
    }
}

impl Sampler for DagSampler {
    fn begin(&mut self, spec: &RunSpec) {
        self.window.begin(spec.burn_in);
    }

    fn trace_names(&self) -> Vec<String> {
        let mut v = vec![
            "log_posterior".to_string(),
            "dag".to_string(),
            "n_edges".to_string(),
        ];
        for &j in &self.graph.varying {
            v.extend((0..self.graph.k[j]).map(|x| format!("t_{j}_{x}")));
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
        row.push(self.current as f64);
        row.push(
            self.masks[self.current]
                .iter()
                .map(|m| m.count_ones())
                .sum::<u32>() as f64,
        );
        for node in &self.nodes_t {
            row.extend_from_slice(&node.t);
        }
    }

    fn stat_names(&self) -> Vec<String> {
        let mut v = Vec::new();
        for &j in &self.graph.varying {
            v.extend((0..self.graph.k[j]).map(|x| format!("accept_{j}_{x}")));
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
        for node in &mut self.nodes_t {
            node.accumulate();
        }
        self.counts[self.current] += 1;
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
        let sampled: Vec<String> = self
            .graph
            .varying
            .iter()
            .map(|&j| names[j].clone())
            .collect();
        let refs: Vec<&NodeT> = self.nodes_t.iter().collect();
        let mut out = node_summaries(&sampled, &refs, n);
        let mut d = Matrix::new(
            "dags",
            self.masks.len(),
            3,
            (0..self.masks.len())
                .flat_map(|m| {
                    let c = self.counts[m] as f64;
                    [c, c / n, self.cfg.prior[m]]
                })
                .collect(),
        );
        d.row_names = self
            .masks
            .iter()
            .map(|pa| dag_label(&self.data, &self.graph.nodes, pa))
            .collect();
        d.col_names = vec!["count".into(), "frequency".into(), "prior".into()];
        out.push(d);
        let mut edges = vec![0.0; p * p];
        for (m, pa) in self.masks.iter().enumerate() {
            let f = self.counts[m] as f64 / n;
            for (j, &mask) in pa.iter().enumerate() {
                for (i, e) in edges.chunks_mut(p).enumerate() {
                    e[j] += f * (mask >> i & 1) as f64;
                }
            }
        }
        let mut e = Matrix::new("edge_probabilities", p, p, edges);
        e.row_names = names.clone();
        e.col_names = names;
        out.push(e);
        out
    }

    crate::serde_checkpoint!();
}

//! `method: mmle` as a one-transition [`Sampler`], the pattern of [`super::ExactSampler`]: the
//! first `step` computes supplement G's estimate ([`crate::hidden2025::evaluation::mmle`]) for the
//! node and its fixed `parents`, later steps do nothing, and the results are the chain's
//! summaries. One chain per cell is enough (every chain computes the same numbers).

use crate::chain::{Sampler, SamplerError};
use crate::data::Matrix;
use crate::hidden2025::datasets::DiscreteData;
use crate::hidden2025::evaluation::mmle::{BetaRule, Mmle, mmle, shrinkage_predictive};
use crate::hidden2025::params::{Method, Params, Resolved};
use crate::seed::ChainRng;

/// The MMLE of one node. Trace: `mmle_objective` (g(π̃), eq 19 as printed). Summaries:
/// `mmle` (1 × k_j: π̃, column names the categories), `mmle_fit` (1 × 5: beta, objective,
/// kkt_residual, iterations, converged as 0/1), `mmle_predictive` (eq 21: occupied parent
/// configurations × k_j, row names their labels) and `mmle_n` (n_Pa of those configurations, × 1).
#[derive(serde::Serialize, serde::Deserialize)]
pub struct MmleSampler {
    data: DiscreteData,
    cfg: Resolved,
    rule: BetaRule,
    result: Option<Mmle>,
}

impl MmleSampler {
    /// Resolve `params` (method `mmle`, with `parents` and `beta`) against `data`. Errors:
    /// [`SamplerError::Input`] with the parameter's path.
    pub fn new(data: &DiscreteData, params: &Params) -> Result<Self, SamplerError> {
        let cfg = super::resolve_params(params, data)?;
        let rule = params
            .beta
            .ok_or_else(|| SamplerError::Input("params.beta: method mmle needs `beta`".into()))?;
        if cfg.method != Method::Mmle || cfg.parents.is_none() {
            return Err(SamplerError::Input(
                "params.method: MmleSampler needs method mmle with `parents`".into(),
            ));
        }
        Ok(MmleSampler {
            data: data.clone(),
            cfg,
            rule,
            result: None,
        })
    }

    /// The estimate, once computed.
    pub fn result(&self) -> Option<&Mmle> {
        self.result.as_ref()
    }

    fn parents(&self) -> &[usize] {
        self.cfg.parents.as_deref().unwrap_or(&[])
    }
}

impl Sampler for MmleSampler {
    fn trace_names(&self) -> Vec<String> {
        vec!["mmle_objective".into()]
    }

    fn step(&mut self, _rng: &mut ChainRng) -> Result<(), SamplerError> {
        if self.result.is_none() {
            let table = self.data.table(self.cfg.node, self.parents());
            let beta = self.rule.beta(self.cfg.k);
            let r = mmle(&table, beta).map_err(|e| {
                SamplerError::Input(format!("node {}: {e}", self.data.names[self.cfg.node]))
            })?;
            self.result = Some(r);
        }
        Ok(())
    }

    fn record(&self, row: &mut Vec<f64>) {
        row.push(self.result.as_ref().map_or(f64::NAN, |r| r.objective));
    }

    fn summary(&self) -> Vec<Matrix> {
        let Some(r) = &self.result else {
            return Vec::new();
        };
        let k = self.cfg.k;
        let levels = self.data.levels[self.cfg.node].clone();
        let mut pi = Matrix::new("mmle", 1, k, r.pi_tilde.clone());
        pi.col_names = levels.clone();
        let mut fit = Matrix::new(
            "mmle_fit",
            1,
            5,
            vec![
                r.beta,
                r.objective,
                r.kkt_residual,
                r.iterations as f64,
                if r.converged { 1.0 } else { 0.0 },
            ],
        );
        fit.col_names = [
            "beta",
            "objective",
            "kkt_residual",
            "iterations",
            "converged",
        ]
        .map(String::from)
        .to_vec();
        let table = self.data.table(self.cfg.node, self.parents());
        let labels: Vec<String> = table
            .configs
            .iter()
            .map(|&c| self.data.config_label(self.parents(), c))
            .collect();
        let mut pred = Matrix::new(
            "mmle_predictive",
            table.occupied(),
            k,
            shrinkage_predictive(&table, &r.pi_tilde, r.beta),
        );
        pred.row_names = labels.clone();
        pred.col_names = levels;
        let mut n = Matrix::new(
            "mmle_n",
            table.occupied(),
            1,
            table.totals.iter().map(|&t| t as f64).collect(),
        );
        n.row_names = labels;
        n.col_names = vec!["n".into()];
        vec![pi, fit, pred, n]
    }

    crate::serde_checkpoint!();
}

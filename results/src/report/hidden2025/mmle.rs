//! `hidden2025.mmle`: supplement G of `002_d97ecc788b964f97.txt` (eqs 19–21)
//! experiment 7. Each `mmle` cell is a one-shot job (`causeway_papers::hidden2025::samplers::
//! MmleSampler`) whose summaries hold π̃_j, g(π̃) and the KKT residual.
//!
//! - `mmle`: `dataset, node, parents, beta_rule, beta, category, pi_tilde, objective,
//!   kkt_residual` (and `iterations`, `converged`), one row per cell × category.
//! - `mmle_predictive`: eq 21 per occupied parent configuration × category, beside the cell MLE
//!   n_{c,x}/n_c it shrinks (`dataset, node, parents, beta_rule, parent_config, n_parent_config,
//!   category, n_cell, mle, predictive`).
//!
//! The supplement reports no numbers, so there is no paper column.

use std::collections::HashMap;

use causeway_papers::hidden2025::datasets::DiscreteData;
use polars::prelude::*;

use crate::report::{Convergence, ReportError, Table, json_text};
use crate::rundir::{CellRecord, Manifest, RunDir, find};

fn other(e: impl std::fmt::Display) -> ReportError {
    ReportError::Other(format!("hidden2025.mmle: {e}"))
}

/// The dataset's label: `reported.dataset_names[<kind>]`, else its path, else its kind.
fn dataset_label(m: &Manifest, c: &CellRecord) -> String {
    let kind = c.dataset.get("kind").map(json_text).unwrap_or_default();
    m.reported
        .get("dataset_names")
        .and_then(|d| d.get(&kind))
        .map(json_text)
        .or_else(|| c.dataset.get("path").map(json_text))
        .unwrap_or(kind)
}

#[derive(Default)]
struct Rows {
    text: [Vec<String>; 5],
    beta: Vec<f64>,
    pi: Vec<f64>,
    objective: Vec<f64>,
    kkt: Vec<f64>,
    iterations: Vec<u64>,
    converged: Vec<bool>,
}

#[derive(Default)]
struct PredRows {
    text: [Vec<String>; 6],
    n_config: Vec<u64>,
    n_cell: Vec<u64>,
    mle: Vec<f64>,
    predictive: Vec<f64>,
}

/// The two tables (module docs).
pub fn mmle(rd: &RunDir, m: &Manifest, _conv: &Convergence) -> Result<Vec<Table>, ReportError> {
    let mut data_of: HashMap<String, DiscreteData> = HashMap::new();
    let (mut rows, mut pred) = (Rows::default(), PredRows::default());
    let mut not_converged = 0;
    for c in m.cells.iter() {
        let Some(job) = m
            .jobs
            .iter()
            .find(|j| j.cell == c.index && j.replicate == 0 && rd.chain_done(&j.job_id))
        else {
            continue;
        };
        if !data_of.contains_key(&c.dataset_id) {
            let ds = rd.read_dataset(&c.dataset_id, 0)?;
            let d = DiscreteData::from_matrices(&ds.observed).map_err(other)?;
            data_of.insert(c.dataset_id.clone(), d);
        }
        let data = &data_of[&c.dataset_id];
        let node_name = c.param("node").map(json_text).unwrap_or_default();
        let node = data
            .index(&node_name)
            .ok_or_else(|| other(format!("cell {}: {node_name} is not a column", c.index)))?;
        let parents: Vec<usize> = c
            .param("parents")
            .and_then(|v| v.as_array())
            .map(|a| a.iter().map(json_text).collect::<Vec<_>>())
            .unwrap_or_default()
            .iter()
            .map(|n| {
                data.index(n)
                    .ok_or_else(|| other(format!("cell {}: {n} is not a column", c.index)))
            })
            .collect::<Result<_, _>>()?;
        let mut sorted = parents.clone();
        sorted.sort_unstable();
        let parents_text = sorted
            .iter()
            .map(|&p| data.names[p].as_str())
            .collect::<Vec<_>>()
            .join(";");
        let rule = c.param("beta").map(json_text).unwrap_or_default();
        let label = dataset_label(m, c);
        let s = rd.read_summary(&job.job_id)?;
        let (Some(pi), Some(fit), Some(p)) = (
            find(&s, "mmle"),
            find(&s, "mmle_fit"),
            find(&s, "mmle_predictive"),
        ) else {
            return Err(other(format!("cell {}: no mmle summaries", c.index)));
        };
        let (beta, objective, kkt, iterations, converged) = (
            fit.get(0, 0),
            fit.get(0, 1),
            fit.get(0, 2),
            fit.get(0, 3),
            fit.get(0, 4) == 1.0,
        );
        not_converged += usize::from(!converged);
        for (x, cat) in pi.col_names.iter().enumerate() {
            for (col, v) in
                rows.text
                    .iter_mut()
                    .zip([&label, &node_name, &parents_text, &rule, cat])
            {
                col.push(v.clone());
            }
            rows.beta.push(beta);
            rows.pi.push(pi.get(0, x));
            rows.objective.push(objective);
            rows.kkt.push(kkt);
            rows.iterations.push(iterations as u64);
            rows.converged.push(converged);
        }
        // Eq 21, with the counts of the same table (its rows are the summary's rows).
        let table = data.table(node, &parents);
        if table.occupied() != p.rows {
            return Err(other(format!(
                "cell {}: {} configurations in the data, {} in the summary",
                c.index,
                table.occupied(),
                p.rows
            )));
        }
        for r in 0..p.rows {
            for (x, cat) in p.col_names.iter().enumerate() {
                for (col, v) in pred.text.iter_mut().zip([
                    &label,
                    &node_name,
                    &parents_text,
                    &rule,
                    &p.row_names[r],
                    cat,
                ]) {
                    col.push(v.clone());
                }
                let (n_c, n_x) = (table.totals[r], table.row(r)[x]);
                pred.n_config.push(u64::from(n_c));
                pred.n_cell.push(u64::from(n_x));
                pred.mle.push(f64::from(n_x) / f64::from(n_c));
                pred.predictive.push(p.get(r, x));
            }
        }
    }
    let [dataset, node, parents, beta_rule, category] = rows.text;
    let mmle_table = Table {
        name: "mmle".into(),
        title: "Supplement G: MMLE of π̃_j = t_j / β_j (eqs 19–20)".into(),
        df: DataFrame::new_infer_height(vec![
            Series::new("dataset".into(), dataset).into(),
            Series::new("node".into(), node).into(),
            Series::new("parents".into(), parents).into(),
            Series::new("beta_rule".into(), beta_rule).into(),
            Series::new("beta".into(), rows.beta).into(),
            Series::new("category".into(), category).into(),
            Series::new("pi_tilde".into(), rows.pi).into(),
            Series::new("objective".into(), rows.objective).into(),
            Series::new("kkt_residual".into(), rows.kkt).into(),
            Series::new("iterations".into(), rows.iterations).into(),
            Series::new("converged".into(), rows.converged).into(),
        ])?,
        notes: vec![
            "pi_tilde: argmin of eq 19 over the simplex by projected gradient descent (Chen & Ye 2011 projection, backtracking), stopped at a KKT residual (spread of eq 20's ∂g/∂ω(x) over x) below 1e-10. objective: g(π̃) as eq 19 prints it (without the ω-free terms lnΓ(β) − lnΓ(β + n_c)).".into(),
            "beta_rule: perks β = 1, jeffreys β = k_j/2, laplace β = k_j (G.2). Parents in column order; LUCAS0 with its true DAG, METABRIC's outcomes with Figure 5's median-DAG parents. The supplement reports no numbers.".into(),
            format!("{not_converged} cells did not reach the tolerance."),
        ],
    };
    let [dataset, node, parents, beta_rule, config, category] = pred.text;
    let pred_table = Table {
        name: "mmle_predictive".into(),
        title: "Supplement G: eq 21, the MLE shrunk towards π̃".into(),
        df: DataFrame::new_infer_height(vec![
            Series::new("dataset".into(), dataset).into(),
            Series::new("node".into(), node).into(),
            Series::new("parents".into(), parents).into(),
            Series::new("beta_rule".into(), beta_rule).into(),
            Series::new("parent_config".into(), config).into(),
            Series::new("n_parent_config".into(), pred.n_config).into(),
            Series::new("category".into(), category).into(),
            Series::new("n_cell".into(), pred.n_cell).into(),
            Series::new("mle".into(), pred.mle).into(),
            Series::new("predictive".into(), pred.predictive).into(),
        ])?,
        notes: vec![
            "predictive: eq 21, λ π̃(x) + (1 − λ) n_cx / n_c with λ = β / (β + n_c), for each occupied parent configuration (an empty one gives π̃). mle: n_cx / n_c.".into(),
        ],
    };
    Ok(vec![mmle_table, pred_table])
}

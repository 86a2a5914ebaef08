//! Tables and figures of paper 003 (`003_bf1ce321478f8175.txt`, Kurutmaz 2019, MSc thesis,
//! *Bayesian model selection for latent variable causal networks by sequential Monte Carlo*),
//! chapter 5, one file per table:
//!
//! | report kind | thesis | tables (files) |
//! |---|---|---|
//! | `kurutmaz2019.toy` | §5.2, Fig. 5.1 | `toy` ([`toy`](toy())) |
//! | `kurutmaz2019.synthetic` | §5.3, Fig. 5.2 | `synthetic_confusion`, `synthetic_summary`, `synthetic_accuracy_by` (`synthetic.rs`) |
//! | `kurutmaz2019.cep` | §5.4, Table 5.2, Fig. 5.3 | `cep_table5_2_<method>` (`cep_table5_2.rs`), `cep_cv` (`cep_cv.rs`), `cep_spurious` (`cep_spurious.rs`), `cep_author_smc` (`cep_author_smc.rs`); the kind, `log_ml.csv` and the ROC figure in `cep.rs` |
//! | `kurutmaz2019.abalone` | §5.5, Fig. 5.4 | `abalone_<method>_cell<i>`, `abalone_cells` (`abalone.rs`) |
//!
//! The computations (selection over R, decisions, cross-validation, statistics) are polars-free,
//! in `causeway_papers::kurutmaz2019::evaluation`; this module reads a run directory into them
//! and turns their results into tables. The CEP metrics are computed in the thesis's
//! **original** file orientation (see that module's documentation).

mod abalone;
mod cep;
mod cep_author_smc;
mod cep_cv;
mod cep_spurious;
mod cep_table5_2;
mod synthetic;
mod toy;

pub use abalone::abalone;
pub use cep::{cep, cep_rows, write_log_ml_csv};
pub use cep_author_smc::{AUTHOR_SMC_CSV, author_smc_comparison};
pub use synthetic::{synthetic, synthetic_cases};
pub use toy::toy;

use causeway_papers::kurutmaz2019::datasets::{PairMeta, parse_pairs_meta};

use super::{ReportError, json_text};
use crate::rundir::{Manifest, RunDir, find};

/// The project's copy of `data/cep/pairs_meta.csv`, compiled in so a run directory can be
/// reported without knowing where the data directory was.
pub const PAIRS_META_CSV: &str = include_str!("../../../../data/cep/pairs_meta.csv");

/// The compiled-in [`PAIRS_META_CSV`], parsed by
/// `causeway_papers::kurutmaz2019::datasets::parse_pairs_meta` (the parser the CEP dataset uses).
///
/// Errors: the compiled-in file fails to parse (a bug).
pub fn pairs_meta() -> Result<Vec<PairMeta>, ReportError> {
    parse_pairs_meta(PAIRS_META_CSV).map_err(ReportError::Other)
}

fn param<'a>(m: &'a Manifest, cell: usize, key: &str) -> Option<&'a serde_json::Value> {
    m.cells[cell].params.get(key)
}

fn param_str(m: &Manifest, cell: usize, key: &str) -> String {
    param(m, cell, key).map(json_text).unwrap_or_default()
}

fn param_usize(m: &Manifest, cell: usize, key: &str) -> Option<usize> {
    param(m, cell, key)
        .and_then(serde_json::Value::as_u64)
        .map(|v| v as usize)
}

fn data_str(m: &Manifest, cell: usize, key: &str) -> String {
    m.cells[cell]
        .dataset
        .get(key)
        .map(json_text)
        .unwrap_or_default()
}

fn data_usize(m: &Manifest, cell: usize, key: &str) -> Option<usize> {
    m.cells[cell]
        .dataset
        .get(key)
        .and_then(serde_json::Value::as_u64)
        .map(|v| v as usize)
}

/// The 1 × 1 summary `name` of every finished job of `cell`, in job order.
fn cell_scalars(
    rd: &RunDir,
    m: &Manifest,
    cell: usize,
    name: &str,
) -> Result<Vec<f64>, ReportError> {
    let mut out = Vec::new();
    for j in m.jobs.iter().filter(|j| j.cell == cell) {
        if !rd.chain_done(&j.job_id) {
            continue;
        }
        let s = rd.read_summary(&j.job_id)?;
        if let Some(v) = find(&s, name).and_then(|x| x.values.first().copied()) {
            out.push(v);
        }
    }
    Ok(out)
}

/// The value at `path` in the experiment's `reported` (the thesis's figures).
fn reported<'a>(m: &'a Manifest, path: &[&str]) -> Option<&'a serde_json::Value> {
    let mut v = &m.reported;
    for p in path {
        v = v.get(p)?;
    }
    Some(v)
}

fn reported_f64(m: &Manifest, path: &[&str]) -> f64 {
    reported(m, path)
        .and_then(serde_json::Value::as_f64)
        .unwrap_or(f64::NAN)
}

/// `[mean, sd]` in `reported` as "mean ± sd" text ("" if absent).
fn reported_pm(m: &Manifest, path: &[&str]) -> String {
    match reported(m, path).and_then(serde_json::Value::as_array) {
        Some(a) if a.len() == 2 => match (a[0].as_f64(), a[1].as_f64()) {
            (Some(x), Some(y)) => format!("{x:.2} ± {y:.2}"),
            _ => String::new(),
        },
        _ => String::new(),
    }
}

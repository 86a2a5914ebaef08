//! Tables and figures of paper 003 (`003_bf1ce321478f8175.txt`, Kurutmaz 2019, MSc thesis,
//! *Bayesian model selection for latent variable causal networks by sequential Monte Carlo*),
//! chapter 5, one file per table:
//!
//! | report kind | thesis | tables (files) |
//! |---|---|---|
//! | `kurutmaz2019.toy` | §5.2, Fig. 5.1 | `toy` (`toy.rs`) |
//! | `kurutmaz2019.synthetic` | §5.3, Fig. 5.2 | `synthetic_confusion`, `synthetic_summary`, `synthetic_accuracy_by` (`synthetic.rs`) |
//! | `kurutmaz2019.cep` | §5.4, Table 5.2, Fig. 5.3 | `cep_table5_2_<method>` (`cep_table5_2.rs`), `cep_cv` (`cep_cv.rs`), `cep_spurious` (`cep_spurious.rs`), `cep_author_smc` (`cep_author_smc.rs`); the kind, `units/log_ml.csv` and the ROC figure in `cep.rs` |
//! | `kurutmaz2019.abalone` | §5.5, Fig. 5.4 | `abalone_<method>_cell<i>`, `abalone_cells` (`abalone.rs`) |
//!
//! The computations (selection over R, decisions, cross-validation, statistics) are polars-free,
//! in `causeway_papers::kurutmaz2019::evaluation`; this module reads a run directory into them
//! and turns their results into tables. The CEP functions take plain rows (`LogMlRow`), so the
//! same code scores a run directory ([`cep_rows`]) and the thesis author's stored values
//! ([`thesis_fixture_rows`]; `results/tests/kurutmaz2019_cv.rs`). The CEP metrics are computed
//! in the thesis's **original** file orientation (see the evaluation module's documentation).

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
pub use cep_author_smc::{AUTHOR_SMC_CSV, author_smc_comparison, author_smc_rows};
pub use synthetic::{synthetic, synthetic_cases};
pub use toy::toy;

use std::collections::HashMap;

use causeway_papers::kurutmaz2019::Hypothesis;
use causeway_papers::kurutmaz2019::datasets::{
    PairMeta, csv_columns, pair_number, parse_pairs_meta, split_csv_line,
};
use causeway_papers::kurutmaz2019::evaluation::LogMlRow;

use super::{ReportError, json_text};
use crate::rundir::{Manifest, RunDir};

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

/// Rows of the thesis author's stored values (`tests/fixtures/cep/thesis_smc_log_ml.csv`,
/// `thesis_vb_elbo.csv`; §5.4): CSV `text` with columns `original_id, setting, n_latent,
/// hypothesis, <value_column>`, `hypothesis` in the **original** orientation (`x_to_y`,
/// `y_to_x`, `spurious`), mapped here onto the cdt orientation through `meta` (`->`: x = A).
/// `method` labels the rows; `seed` is 0.
///
/// Errors: a missing column, an unknown pair or hypothesis, an unparsable number.
pub fn thesis_fixture_rows(
    text: &str,
    value_column: &str,
    method: &str,
    meta: &[PairMeta],
) -> Result<Vec<LogMlRow>, ReportError> {
    let by_orig: HashMap<u32, &PairMeta> = meta.iter().map(|p| (p.original_id, p)).collect();
    let mut lines = text.lines();
    let ix = csv_columns(
        lines.next().unwrap_or(""),
        "fixture",
        &[
            "original_id",
            "setting",
            "n_latent",
            "hypothesis",
            value_column,
        ],
    )
    .map_err(ReportError::Other)?;
    let mut out = Vec::new();
    for (n, line) in lines.enumerate().filter(|(_, l)| !l.trim().is_empty()) {
        let f = split_csv_line(line);
        let get = |i: usize| f.get(i).map(|s| s.trim()).unwrap_or("");
        let bad = |what: String| ReportError::Other(format!("fixture line {}: {what}", n + 2));
        let orig =
            pair_number(get(ix[0])).ok_or_else(|| bad(format!("original_id {:?}", get(ix[0]))))?;
        let p = by_orig
            .get(&orig)
            .ok_or_else(|| bad(format!("pair {orig} is not in pairs_meta.csv")))?;
        let hypothesis = match (get(ix[3]), p.forward) {
            ("spurious", _) => Hypothesis::Spurious,
            ("x_to_y", true) | ("y_to_x", false) => Hypothesis::AToB,
            ("x_to_y", false) | ("y_to_x", true) => Hypothesis::BToA,
            (other, _) => return Err(bad(format!("hypothesis {other:?}"))),
        };
        let num = |i: usize| {
            get(i)
                .parse::<f64>()
                .map_err(|_| bad(format!("{:?} is not a number", get(i))))
        };
        out.push(LogMlRow {
            pair: p.pair.clone(),
            setting: num(ix[1])? as usize,
            hypothesis,
            n_latent: num(ix[2])? as usize,
            method: method.to_string(),
            seed: 0,
            value: num(ix[4])?,
        });
    }
    Ok(out)
}

fn param_str(m: &Manifest, cell: usize, key: &str) -> String {
    m.cells[cell].param(key).map(json_text).unwrap_or_default()
}

fn param_usize(m: &Manifest, cell: usize, key: &str) -> Option<usize> {
    m.cells[cell]
        .param(key)
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

/// Each cell's stored chains' first value of their summary matrix `name` (a 1 × 1 matrix
/// such as `log_marginal_likelihood`), in plan order; a chain without one gives none. One
/// pass over the plan, and only that matrix of each summary is read.
fn cell_scalars(
    rd: &RunDir,
    m: &Manifest,
    name: &str,
) -> Result<HashMap<usize, Vec<f64>>, ReportError> {
    let mut out: HashMap<usize, Vec<f64>> = HashMap::new();
    for j in m.jobs.iter() {
        if !rd.chain_done(&j.job_id) {
            continue;
        }
        let first = rd.read_summary_matrix(&j.job_id, name)?;
        if let Some(v) = first.and_then(|x| x.values.first().copied()) {
            out.entry(j.cell).or_default().push(v);
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

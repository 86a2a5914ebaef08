//! Tests of paper 002 (HiDDeN), model `hidden2025`: `cargo test --workspace hidden2025`.

mod authors;
mod checkpoint;
mod datasets;
mod evaluation;
mod mmle;
mod samplers;
mod sbc;
mod scores_pgmpy;
mod structures;
mod theorem3;

use causeway_papers::hidden2025::datasets::{DiscreteData, ParentTable};
use causeway_papers::hidden2025::params::Params;

/// A table from its occupied rows (configurations 0, 1, …; k counts each).
fn table(rows: &[&[u32]]) -> ParentTable {
    let k = rows[0].len();
    ParentTable {
        k,
        n_configs: rows.len() as u64,
        configs: (0..rows.len() as u64).collect(),
        counts: rows.iter().flat_map(|r| r.iter().copied()).collect(),
        totals: rows.iter().map(|r| r.iter().sum()).collect(),
    }
}

/// Cell params from JSON (valid by construction in the tests).
fn params(v: serde_json::Value) -> Params {
    Params::from_value("params", &v).expect("valid params")
}

/// Columns A (2 levels), B (3), C, D, E (2 each), levels named `0`, `1`, …: the samplers' and
/// structure samplers' synthetic data.
fn abcde(columns: Vec<Vec<u16>>) -> DiscreteData {
    let ks = [2usize, 3, 2, 2, 2];
    DiscreteData::new(
        ["A", "B", "C", "D", "E"]
            .iter()
            .map(|s| s.to_string())
            .collect(),
        ks.iter()
            .map(|&k| (0..k).map(|c| c.to_string()).collect())
            .collect(),
        columns,
    )
    .expect("valid data")
}

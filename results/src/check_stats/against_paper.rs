//! `causeway check RUN --against-paper`: the run's distance to the paper's values.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use super::number;
use crate::check::{TextTable, md};

/// `causeway check RUN --against-paper`: every table with a `z_paper` column (the cell's
/// distance to the paper's value in the combined standard errors, see the README) lists its
/// rows with |z| > `z_max`; tables that show a paper value without its uncertainty (a column
/// whose name starts with `paper` and no `z_paper`) are named as such. Returns the Markdown, the
/// number of cells with a `z_paper` value, and the number beyond `z_max`.
pub fn against_paper(tables: &BTreeMap<String, TextTable>, z_max: f64) -> (String, usize, usize) {
    let mut s = String::new();
    let mut tested = 0usize;
    let mut beyond = 0usize;
    let mut silent = Vec::new();
    for (name, t) in tables {
        let z_cols: Vec<usize> = (0..t.columns.len())
            .filter(|&i| t.columns[i].starts_with("z_paper"))
            .collect();
        if z_cols.is_empty() {
            if t.columns.iter().any(|c| c.starts_with("paper")) {
                silent.push(name.clone());
            }
            continue;
        }
        for ri in 0..t.rows.len() {
            for &zi in &z_cols {
                let z = number(t.rows[ri].get(zi));
                if z.is_nan() {
                    continue;
                }
                tested += 1;
                if z.abs() > z_max {
                    if beyond == 0 {
                        s.push_str("| table | row | column | z |\n|---|---|---|---|\n");
                    }
                    beyond += 1;
                    let row = t.rows[ri].first().cloned().unwrap_or_default();
                    let _ = writeln!(
                        s,
                        "| {} | {} (row {}) | {} | {z:.2} |",
                        md(name),
                        md(&row),
                        ri + 1,
                        md(&t.columns[zi])
                    );
                }
            }
        }
    }
    if !silent.is_empty() {
        let _ = writeln!(
            s,
            "\nThe paper gives no uncertainty for the values in: {} (not tested).",
            silent.join(", ")
        );
    }
    let _ = writeln!(
        s,
        "\n{tested} cells with a paper value and its uncertainty; {beyond} beyond |z| > {z_max}."
    );
    (s, tested, beyond)
}

//! `causeway check RUN --against-paper`: the run's distance to the paper's values.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use super::number;
use crate::check::{TextTable, md};

/// The outcome of [`against_paper`].
#[derive(Debug, Clone, Default)]
pub struct PaperCheck {
    /// The cells beyond, as a Markdown table, and the counts.
    pub markdown: String,
    /// Cells with a `z_paper` value.
    pub tested: usize,
    /// Cells with |z| > `z_max`.
    pub beyond: usize,
    /// Every table with a `z_paper` column and its cells beyond, as text.
    pub per_table: Vec<(String, Vec<String>)>,
}

/// `causeway check RUN --against-paper`: every table with a `z_paper` column (the cell's
/// distance to the paper's value in the combined standard errors, see the README) lists its
/// rows with |z| > `z_max`; tables that show a paper value without its uncertainty (a column
/// whose name starts with `paper` and no `z_paper`) are named as such.
pub fn against_paper(tables: &BTreeMap<String, TextTable>, z_max: f64) -> PaperCheck {
    let mut s = String::new();
    let mut tested = 0usize;
    let mut beyond = 0usize;
    let mut silent = Vec::new();
    let mut per_table = Vec::new();
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
        let mut fails = Vec::new();
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
                    fails.push(format!(
                        "{row} (row {}) / {}: z {z:.2}",
                        ri + 1,
                        t.columns[zi]
                    ));
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
        per_table.push((name.clone(), fails));
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
    PaperCheck {
        markdown: s,
        tested,
        beyond,
        per_table,
    }
}

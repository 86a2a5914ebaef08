//! Regression check of a run's reported tables (`causeway check RUN_DIR --baseline ...`).
//!
//! Every table of a run is `tables/<name>.csv`. A run is compared either
//!
//! - with a **baseline run directory**: every cell of every baseline table, row by row in
//!   order. Numeric cells must agree within `|a − b| ≤ atol + rtol·|b|` (defaults
//!   [`DEFAULT_RTOL`], [`DEFAULT_ATOL`]: the chains are seeded and byte-reproducible, so only
//!   floating-point noise across platforms is allowed); NaN matches NaN. Other cells must match
//!   exactly. A missing table, row or column is a regression; extra ones are reported but pass.
//!   Columns that hold wall-clock time (their name contains `seconds`, `elapsed`, `wall` or
//!   `time`: `seconds`, `seconds_mean`, `seconds_sd` of `wood2006.fig4`, and the same columns'
//!   `mean ± sd` text) are not deterministic and are skipped;
//! - with **expectations** ([`Expected`]): `{table, row, column, expected, tolerance}` taken
//!   from a paper, from an experiment YAML's `checks:` or a CSV with those columns. `row` is
//!   the value of the table's first column; when several rows share it, give the values of the
//!   leading columns joined by `/` (`smc/a_to_b`). A numeric `expected` passes when
//!   `|actual − expected| ≤ tolerance`; a text one must match exactly.
//!
//! The result is a [`CheckReport`], rendered as a Markdown diff table.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use polars::prelude::*;

/// Default relative tolerance against a baseline run.
pub const DEFAULT_RTOL: f64 = 1e-9;
/// Default absolute tolerance against a baseline run.
pub const DEFAULT_ATOL: f64 = 1e-12;

/// Words that mark a column as wall-clock time (skipped against a baseline run).
pub const NONDETERMINISTIC_COLUMN_WORDS: &[&str] = &["seconds", "elapsed", "wall", "time"];

/// A check that could not be carried out (unreadable input, not a regression).
#[derive(Debug, thiserror::Error)]
pub enum CheckError {
    #[error("{path}: {message}")]
    Input { path: PathBuf, message: String },
}

fn input_err(path: &Path, message: impl Into<String>) -> CheckError {
    CheckError::Input {
        path: path.to_path_buf(),
        message: message.into(),
    }
}

/// One table, every cell as text (as written).
#[derive(Debug, Clone, PartialEq)]
pub struct TextTable {
    pub columns: Vec<String>,
    pub rows: Vec<Vec<String>>,
}

impl TextTable {
    /// A table from literal column names and rows (tests, fixtures).
    pub fn new(columns: &[&str], rows: &[&[&str]]) -> Self {
        TextTable {
            columns: columns.iter().map(|s| s.to_string()).collect(),
            rows: rows
                .iter()
                .map(|r| r.iter().map(|s| s.to_string()).collect())
                .collect(),
        }
    }

    /// Rows whose leading cells match `key` (the first column, or `a/b/...` for the first few).
    pub fn find_rows(&self, key: &str) -> Vec<usize> {
        let exact: Vec<usize> = (0..self.rows.len())
            .filter(|&i| self.rows[i].first().is_some_and(|c| c == key))
            .collect();
        if !exact.is_empty() || !key.contains('/') {
            return exact;
        }
        let parts: Vec<&str> = key.split('/').map(str::trim).collect();
        (0..self.rows.len())
            .filter(|&i| {
                parts.len() <= self.rows[i].len()
                    && parts.iter().zip(&self.rows[i]).all(|(p, c)| c == p)
            })
            .collect()
    }
}

/// Read one CSV table, every column as text.
pub fn read_table(path: &Path) -> Result<TextTable, CheckError> {
    let df = CsvReadOptions::default()
        .with_has_header(true)
        .with_infer_schema_length(Some(0))
        .with_raise_if_empty(false)
        .try_into_reader_with_file_path(Some(path.to_path_buf()))
        .and_then(|r| r.finish())
        .map_err(|e| input_err(path, e.to_string()))?;
    let columns: Vec<String> = df
        .get_column_names()
        .iter()
        .map(|s| s.to_string())
        .collect();
    let mut rows = vec![Vec::with_capacity(columns.len()); df.height()];
    for col in df.columns() {
        let s = col
            .cast(&DataType::String)
            .map_err(|e| input_err(path, e.to_string()))?;
        let ca = s.str().map_err(|e| input_err(path, e.to_string()))?;
        for (i, v) in ca.iter().enumerate() {
            rows[i].push(v.unwrap_or("").to_string());
        }
    }
    Ok(TextTable { columns, rows })
}

/// Every `tables/*.csv` of a run directory, by file stem.
pub fn read_run_tables(run_dir: &Path) -> Result<BTreeMap<String, TextTable>, CheckError> {
    let dir = run_dir.join("tables");
    let entries = std::fs::read_dir(&dir).map_err(|e| input_err(&dir, e.to_string()))?;
    let mut out = BTreeMap::new();
    for entry in entries {
        let path = entry.map_err(|e| input_err(&dir, e.to_string()))?.path();
        if path.extension().and_then(|e| e.to_str()) != Some("csv") {
            continue;
        }
        let Some(stem) = path.file_stem().and_then(|s| s.to_str()) else {
            continue;
        };
        out.insert(stem.to_string(), read_table(&path)?);
    }
    Ok(out)
}

/// The verdict on one cell.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// Within tolerance.
    Ok,
    /// Outside tolerance, different text, or missing.
    Regression,
    /// Not compared (wall-clock column) or only in the new run.
    Skipped,
}

/// One compared (or missing, or skipped) cell.
#[derive(Debug, Clone, PartialEq)]
pub struct CheckRow {
    pub table: String,
    pub row: String,
    pub column: String,
    pub expected: String,
    pub actual: String,
    pub tolerance: String,
    pub status: Status,
    pub note: String,
}

/// Every comparison of a check.
#[derive(Debug, Clone, Default)]
pub struct CheckReport {
    pub rows: Vec<CheckRow>,
}

impl CheckReport {
    /// The regressions.
    pub fn regressions(&self) -> impl Iterator<Item = &CheckRow> {
        self.rows.iter().filter(|r| r.status == Status::Regression)
    }

    /// `true` if nothing regressed.
    pub fn passed(&self) -> bool {
        self.regressions().next().is_none()
    }

    /// Counts of (ok, regression, skipped).
    pub fn counts(&self) -> (usize, usize, usize) {
        let n = |s| self.rows.iter().filter(|r| r.status == s).count();
        (n(Status::Ok), n(Status::Regression), n(Status::Skipped))
    }

    /// A Markdown report: a summary line, then a diff table of the regressions and skipped
    /// cells (every compared cell when `all`).
    pub fn to_markdown(&self, all: bool) -> String {
        let (ok, bad, skipped) = self.counts();
        let mut s = format!(
            "{} cells compared: {ok} ok, {bad} regressions, {skipped} skipped\n",
            ok + bad
        );
        let shown: Vec<&CheckRow> = self
            .rows
            .iter()
            .filter(|r| all || r.status != Status::Ok)
            .collect();
        if shown.is_empty() {
            return s;
        }
        s.push_str("\n| status | table | row | column | expected | actual | tolerance | note |\n");
        s.push_str("|---|---|---|---|---|---|---|---|\n");
        for r in shown {
            let status = match r.status {
                Status::Ok => "ok",
                Status::Regression => "REGRESSION",
                Status::Skipped => "skipped",
            };
            let _ = writeln!(
                s,
                "| {status} | {} | {} | {} | {} | {} | {} | {} |",
                md(&r.table),
                md(&r.row),
                md(&r.column),
                md(&r.expected),
                md(&r.actual),
                md(&r.tolerance),
                md(&r.note)
            );
        }
        s
    }
}

/// A cell as Markdown table text (`|` escaped, one line).
pub(crate) fn md(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

fn number(s: &str) -> Option<f64> {
    s.trim().parse::<f64>().ok()
}

/// `true` if `a` is within `atol + rtol·|b|` of `b`; NaN equals NaN, infinities their sign.
pub fn close(a: f64, b: f64, rtol: f64, atol: f64) -> bool {
    if a.is_nan() || b.is_nan() {
        return a.is_nan() && b.is_nan();
    }
    if a.is_infinite() || b.is_infinite() {
        return a == b;
    }
    (a - b).abs() <= atol + rtol * b.abs()
}

/// `true` if `column` holds wall-clock time (see [`NONDETERMINISTIC_COLUMN_WORDS`]).
pub fn is_nondeterministic(column: &str) -> bool {
    let c = column.to_lowercase();
    NONDETERMINISTIC_COLUMN_WORDS.iter().any(|w| c.contains(w))
}

/// Every row's label: its first cell, with `(row i)` (1-based) where that cell is not unique in
/// the table. Linear in the rows (one count per distinct first cell).
pub(crate) fn row_labels(t: &TextTable) -> Vec<String> {
    let mut count: std::collections::HashMap<&str, usize> = Default::default();
    for r in &t.rows {
        *count
            .entry(r.first().map_or("", String::as_str))
            .or_default() += 1;
    }
    t.rows
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let first = r.first().map_or("", String::as_str);
            if count[first] > 1 {
                format!("{first} (row {})", i + 1)
            } else {
                first.to_string()
            }
        })
        .collect()
}

/// Compare every table of `run` with those of `baseline` (both run directories).
pub fn compare_runs(
    run: &Path,
    baseline: &Path,
    rtol: f64,
    atol: f64,
) -> Result<CheckReport, CheckError> {
    let new = read_run_tables(run)?;
    let old = read_run_tables(baseline)?;
    Ok(compare_tables(&new, &old, rtol, atol))
}

/// [`compare_runs`] on tables already read.
pub fn compare_tables(
    new: &BTreeMap<String, TextTable>,
    old: &BTreeMap<String, TextTable>,
    rtol: f64,
    atol: f64,
) -> CheckReport {
    let mut out = CheckReport::default();
    let tol = format!("rtol {rtol:e}, atol {atol:e}");
    // A finding about a whole table or column (no cell values).
    let mark = |out: &mut CheckReport, table: &str, column: &str, status, note: &str| {
        out.rows.push(CheckRow {
            table: table.to_string(),
            row: String::new(),
            column: column.to_string(),
            expected: String::new(),
            actual: String::new(),
            tolerance: String::new(),
            status,
            note: note.to_string(),
        })
    };
    for (name, base) in old {
        let Some(cur) = new.get(name) else {
            mark(&mut out, name, "", Status::Regression, "table missing");
            continue;
        };
        let labels = row_labels(base);
        for col in cur.columns.iter().filter(|c| !base.columns.contains(*c)) {
            mark(&mut out, name, col, Status::Skipped, "new column");
        }
        for (ci, col) in base.columns.iter().enumerate() {
            let Some(cj) = cur.columns.iter().position(|c| c == col) else {
                mark(&mut out, name, col, Status::Regression, "column missing");
                continue;
            };
            if is_nondeterministic(col) {
                mark(&mut out, name, col, Status::Skipped, "wall-clock time");
                continue;
            }
            for (ri, brow) in base.rows.iter().enumerate() {
                let e = brow.get(ci).cloned().unwrap_or_default();
                let a = cur
                    .rows
                    .get(ri)
                    .map(|r| r.get(cj).cloned().unwrap_or_default());
                let (status, note) = match (&a, number(&e), a.as_deref().and_then(number)) {
                    (None, ..) => (Status::Regression, "row missing".to_string()),
                    (_, Some(x), Some(y)) if close(y, x, rtol, atol) => (Status::Ok, String::new()),
                    (_, Some(x), Some(y)) => {
                        (Status::Regression, format!("differs by {:.3e}", y - x))
                    }
                    (Some(a), ..) if *a == e => (Status::Ok, String::new()),
                    _ => (Status::Regression, "text differs".to_string()),
                };
                out.rows.push(CheckRow {
                    table: name.clone(),
                    row: labels[ri].clone(),
                    column: col.clone(),
                    expected: e,
                    actual: a.unwrap_or_default(),
                    tolerance: tol.clone(),
                    status,
                    note,
                });
            }
        }
        if cur.rows.len() > base.rows.len() {
            let note = format!("{} new rows", cur.rows.len() - base.rows.len());
            mark(&mut out, name, "", Status::Skipped, &note);
        }
    }
    for name in new.keys().filter(|n| !old.contains_key(*n)) {
        mark(&mut out, name, "", Status::Skipped, "new table");
    }
    out
}

/// A value the paper (or a previous analysis) reports for one cell.
#[derive(Debug, Clone, PartialEq)]
pub struct Expected {
    /// Table file stem under `tables/` (`synthetic_summary`).
    pub table: String,
    /// Value of the table's first column, or `a/b/...` for the leading columns.
    pub row: String,
    pub column: String,
    pub expected: ExpectedValue,
    /// Absolute tolerance (numbers only).
    pub tolerance: f64,
}

/// A number compared within the tolerance, or text compared exactly.
#[derive(Debug, Clone, PartialEq)]
pub enum ExpectedValue {
    Number(f64),
    Text(String),
}

impl std::fmt::Display for ExpectedValue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ExpectedValue::Number(x) => write!(f, "{x}"),
            ExpectedValue::Text(s) => f.write_str(s),
        }
    }
}

/// Read expectations from a CSV with columns `table,row,column,expected,tolerance`
/// (`tolerance` may be empty: 0). An `expected` that parses as a number is compared as one.
pub fn expectations_from_csv(path: &Path) -> Result<Vec<Expected>, CheckError> {
    let t = read_table(path)?;
    let col = |name: &str| {
        t.columns
            .iter()
            .position(|c| c.trim() == name)
            .ok_or_else(|| {
                input_err(
                    path,
                    format!("no column {name:?}: the columns must be table,row,column,expected,tolerance"),
                )
            })
    };
    let (ti, ri, ci, ei, toli) = (
        col("table")?,
        col("row")?,
        col("column")?,
        col("expected")?,
        col("tolerance")?,
    );
    let mut out = Vec::new();
    for (n, r) in t.rows.iter().enumerate() {
        let cell = |i: usize| r.get(i).map(|s| s.trim().to_string()).unwrap_or_default();
        let tol_text = cell(toli);
        let tolerance = if tol_text.is_empty() {
            0.0
        } else {
            match number(&tol_text) {
                Some(x) if x >= 0.0 && x.is_finite() => x,
                _ => {
                    return Err(input_err(
                        path,
                        format!(
                            "line {}: tolerance {tol_text:?} must be a number ≥ 0",
                            n + 2
                        ),
                    ));
                }
            }
        };
        let e = cell(ei);
        out.push(Expected {
            table: cell(ti),
            row: cell(ri),
            column: cell(ci),
            expected: match number(&e) {
                Some(x) => ExpectedValue::Number(x),
                None => ExpectedValue::Text(e),
            },
            tolerance,
        });
    }
    Ok(out)
}

/// Check `expected` cells against the tables of `run`.
pub fn check_expected(run: &Path, expected: &[Expected]) -> Result<CheckReport, CheckError> {
    let tables = read_run_tables(run)?;
    Ok(check_expected_tables(&tables, expected))
}

/// [`check_expected`] on tables already read.
pub fn check_expected_tables(
    tables: &BTreeMap<String, TextTable>,
    expected: &[Expected],
) -> CheckReport {
    let mut out = CheckReport::default();
    for x in expected {
        let mut row = CheckRow {
            table: x.table.clone(),
            row: x.row.clone(),
            column: x.column.clone(),
            expected: x.expected.to_string(),
            actual: String::new(),
            tolerance: match x.expected {
                ExpectedValue::Number(_) => format!("± {}", x.tolerance),
                ExpectedValue::Text(_) => "exact".into(),
            },
            status: Status::Regression,
            note: String::new(),
        };
        let Some(t) = tables.get(&x.table) else {
            row.note = "table missing".into();
            out.rows.push(row);
            continue;
        };
        let Some(ci) = t.columns.iter().position(|c| c == &x.column) else {
            row.note = "column missing".into();
            out.rows.push(row);
            continue;
        };
        let found = t.find_rows(&x.row);
        let ri = match found.as_slice() {
            [i] => *i,
            [] => {
                row.note = "row missing".into();
                out.rows.push(row);
                continue;
            }
            many => {
                row.note = format!(
                    "{} rows match: give the leading columns as a/b/...",
                    many.len()
                );
                out.rows.push(row);
                continue;
            }
        };
        row.actual = t.rows[ri].get(ci).cloned().unwrap_or_default();
        let ok = match &x.expected {
            ExpectedValue::Number(e) => {
                number(&row.actual).is_some_and(|a| close(a, *e, 0.0, x.tolerance))
            }
            ExpectedValue::Text(e) => &row.actual == e,
        };
        if ok {
            row.status = Status::Ok;
        } else if let (ExpectedValue::Number(e), Some(a)) = (&x.expected, number(&row.actual)) {
            row.note = format!("off by {:.4}", a - e);
        } else {
            row.note = "differs".into();
        }
        out.rows.push(row);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(cols: &[&str], rows: &[&[&str]]) -> TextTable {
        TextTable::new(cols, rows)
    }

    #[test]
    fn runs_compare_cell_by_cell() {
        let t = table(
            &["method", "accuracy", "seconds", "note"],
            &[&["smc", "0.9", "1.5", "a"], &["vb", "NaN", "2.0", "b"]],
        );
        let mut old = BTreeMap::new();
        old.insert("s".to_string(), t.clone());
        let r = compare_tables(&old, &old, DEFAULT_RTOL, DEFAULT_ATOL);
        assert!(r.passed(), "{}", r.to_markdown(true));
        let mut changed = t.clone();
        changed.rows[0][1] = "0.91".into();
        changed.rows[1][2] = "99".into(); // wall clock: ignored
        let mut new = BTreeMap::new();
        new.insert("s".to_string(), changed);
        let r = compare_tables(&new, &old, DEFAULT_RTOL, DEFAULT_ATOL);
        let bad: Vec<_> = r.regressions().collect();
        assert_eq!(bad.len(), 1);
        assert_eq!(
            (bad[0].row.as_str(), bad[0].column.as_str()),
            ("smc", "accuracy")
        );
        assert!(
            r.to_markdown(false)
                .contains("| REGRESSION | s | smc | accuracy | 0.9 | 0.91")
        );
        let r = compare_tables(&BTreeMap::new(), &old, DEFAULT_RTOL, DEFAULT_ATOL);
        assert!(!r.passed());
    }

    #[test]
    fn expectations_find_rows_by_key() {
        let mut tables = BTreeMap::new();
        tables.insert(
            "c".to_string(),
            table(
                &["method", "true", "a"],
                &[&["smc", "x", "16"], &["smc", "y", "0"], &["vb", "x", "15"]],
            ),
        );
        let ex = |row: &str, e: f64, tol: f64| Expected {
            table: "c".into(),
            row: row.into(),
            column: "a".into(),
            expected: ExpectedValue::Number(e),
            tolerance: tol,
        };
        let r = check_expected_tables(&tables, &[ex("vb", 16.0, 1.0), ex("smc/y", 0.0, 0.0)]);
        assert!(r.passed(), "{}", r.to_markdown(true));
        let r = check_expected_tables(&tables, &[ex("smc", 16.0, 1.0), ex("vb", 18.0, 1.0)]);
        assert_eq!(r.counts(), (0, 2, 0), "{}", r.to_markdown(true));
    }
}

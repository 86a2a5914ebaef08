//! `causeway kl P.csv Q.csv [--k K] [--standardize-by T.csv] [--format json|table]`: the k-NN KL
//! divergence estimator of paper 004's Table 1 (Pérez-Cruz 2008; `004_74db43a26dbf0fa1.txt`
//! §5.1) on a user's own samples, the same code the `dallaire2014` runs use
//! ([`causeway_papers::dallaire2014::evaluation::KnnKl`]).
//!
//! Input: CSV files with a header row and identical column names, every cell a finite number.
//! Bad input is an error naming the file and the 1-based line or the column ([`KlInputError`]);
//! the binary exits with code 2 on it.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use causeway_papers::dallaire2014::evaluation::{KnnKl, Standardizer};

/// A numeric sample read from CSV: `rows × columns.len()` values, row-major.
#[derive(Debug, Clone, PartialEq)]
pub struct Sample {
    /// The header's column names, in file order.
    pub columns: Vec<String>,
    /// Number of data rows.
    pub rows: usize,
    /// Row-major values.
    pub values: Vec<f64>,
}

/// What is wrong with the input of `causeway kl`. Every variant names the file.
#[derive(Debug, thiserror::Error)]
pub enum KlInputError {
    #[error("{path}: {message}")]
    File { path: PathBuf, message: String },
    #[error("{path}: line {line}, column {column:?}: {message}")]
    Cell {
        path: PathBuf,
        line: u64,
        column: String,
        message: String,
    },
    #[error("{path}: line {line}: {message}")]
    Line {
        path: PathBuf,
        line: u64,
        message: String,
    },
    #[error("{0}")]
    Other(String),
}

/// The result of `causeway kl`, as printed in JSON.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct KlReport {
    /// D̂(P‖Q) in nats.
    pub kl: f64,
    pub k: usize,
    /// Rows of P.
    pub n: usize,
    /// Rows of Q.
    pub m: usize,
    /// Columns.
    pub d: usize,
    /// Σ_i #{j≠i: P_j = P_i} + Σ_i #{j: Q_j = P_i}: zero distances, skipped.
    pub zero_distance_ties: u64,
    /// Whether both samples were standardized by the mean and sd of `--standardize-by`.
    pub standardized: bool,
}

/// Read a numeric CSV with a header row.
///
/// Errors: an unreadable file, no header, a ragged row (its line), an empty, non-numeric, NaN or
/// infinite cell (its line and column name). A cell's text is never echoed: the file may be any
/// file the user can read.
pub fn read_sample(path: &Path) -> Result<Sample, KlInputError> {
    let file_err = |message: String| KlInputError::File {
        path: path.to_path_buf(),
        message,
    };
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(true)
        .flexible(false)
        .from_path(path)
        .map_err(|e| file_err(format!("cannot read: {e}")))?;
    let columns: Vec<String> = reader
        .headers()
        .map_err(|e| file_err(format!("cannot read the header row: {e}")))?
        .iter()
        .map(|h| h.trim().to_string())
        .collect();
    if columns.is_empty() || columns.iter().all(|c| c.is_empty()) {
        return Err(file_err(
            "no header row: the first line must name the columns".into(),
        ));
    }
    let mut values = Vec::new();
    let mut rows = 0;
    let mut record = csv::StringRecord::new();
    loop {
        match reader.read_record(&mut record) {
            Ok(false) => break,
            Ok(true) => {}
            Err(e) => {
                let line = e.position().map_or(0, |p| p.line());
                let message = match e.kind() {
                    csv::ErrorKind::UnequalLengths {
                        expected_len, len, ..
                    } => format!(
                        "{len} fields where the header has {expected_len}: every row needs one value per column"
                    ),
                    _ => format!("not readable as CSV ({e})"),
                };
                return Err(KlInputError::Line {
                    path: path.to_path_buf(),
                    line,
                    message,
                });
            }
        }
        let line = record.position().map_or(0, |p| p.line());
        for (j, cell) in record.iter().enumerate() {
            let cell = cell.trim();
            let bad = |message: &str| KlInputError::Cell {
                path: path.to_path_buf(),
                line,
                column: columns[j].clone(),
                message: message.to_string(),
            };
            if cell.is_empty() {
                return Err(bad("empty cell: every cell must be a finite number"));
            }
            let v: f64 = cell
                .parse()
                .map_err(|_| bad("not a number: every cell must be a finite number"))?;
            if !v.is_finite() {
                return Err(bad("NaN or infinite: every cell must be a finite number"));
            }
            values.push(v);
        }
        rows += 1;
    }
    Ok(Sample {
        columns,
        rows,
        values,
    })
}

/// `causeway kl`: D̂(P‖Q) with k neighbours, both samples optionally standardized by the mean and
/// sample sd (n − 1) of `standardize_by`.
///
/// Errors ([`KlInputError`]): any error of [`read_sample`]; different column names; n ≤ k or
/// m < k; a constant column of T; a point of P with fewer than k positive distances.
pub fn kl_files(
    p_path: &Path,
    q_path: &Path,
    k: usize,
    standardize_by: Option<&Path>,
) -> Result<KlReport, KlInputError> {
    if k == 0 {
        return Err(KlInputError::Other("--k 0: k must be at least 1".into()));
    }
    let mut p = read_sample(p_path)?;
    let mut q = read_sample(q_path)?;
    let same_header = |a: &Sample, b: &Sample, path: &Path| {
        if a.columns == b.columns {
            Ok(())
        } else {
            Err(KlInputError::File {
                path: path.to_path_buf(),
                message: format!(
                    "its columns {:?} differ from those of {} ({:?}): both files need identical headers",
                    b.columns,
                    p_path.display(),
                    a.columns
                ),
            })
        }
    };
    same_header(&p, &q, q_path)?;
    let d = p.columns.len();
    if p.rows <= k {
        return Err(KlInputError::File {
            path: p_path.to_path_buf(),
            message: format!("{} rows: P needs more than k = {k} rows", p.rows),
        });
    }
    if q.rows < k {
        return Err(KlInputError::File {
            path: q_path.to_path_buf(),
            message: format!("{} rows: Q needs at least k = {k} rows", q.rows),
        });
    }
    let standardized = if let Some(t_path) = standardize_by {
        let t = read_sample(t_path)?;
        same_header(&p, &t, t_path)?;
        let s = Standardizer::fit(&t.values, t.rows, d).map_err(|e| KlInputError::File {
            path: t_path.to_path_buf(),
            message: constant_column_message(&e, &t.columns),
        })?;
        s.apply(&mut p.values);
        s.apply(&mut q.values);
        true
    } else {
        false
    };
    let est = KnnKl::new(&p.values, p.rows, d, k)
        .and_then(|e| e.kl(&q.values))
        .map_err(|e| {
            KlInputError::Other(format!(
                "{} against {}: {e}",
                p_path.display(),
                q_path.display()
            ))
        })?;
    Ok(KlReport {
        kl: est.kl,
        k,
        n: p.rows,
        m: q.rows,
        d,
        zero_distance_ties: est.zero_distance_ties,
        standardized,
    })
}

/// Name the column in the standardizer's "column j is constant" message.
fn constant_column_message(e: &str, columns: &[String]) -> String {
    let named = e
        .strip_prefix("column ")
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|j| j.parse::<usize>().ok())
        .and_then(|j| columns.get(j));
    match named {
        Some(c) => format!("column {c:?} is constant: it cannot be standardized"),
        None => format!("cannot standardize: {e}"),
    }
}

/// The report as JSON (one line) or as a Markdown table.
pub fn render(report: &KlReport, table: bool) -> String {
    if !table {
        return serde_json::to_string(report).unwrap_or_default() + "\n";
    }
    let mut out = String::from("| kl | k | n | m | d | zero_distance_ties | standardized |\n");
    out.push_str("|---|---|---|---|---|---|---|\n");
    let _ = writeln!(
        out,
        "| {:.6} | {} | {} | {} | {} | {} | {} |",
        report.kl,
        report.k,
        report.n,
        report.m,
        report.d,
        report.zero_distance_ties,
        report.standardized
    );
    out
}

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

use causeway_papers::dallaire2014::evaluation::{KnnKl, Standardizer, power_of_two_scale};

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
    if !standardized {
        // D̂ is invariant under one common scale of both samples: values of extreme magnitude
        // are brought near 1 by a power of two (exact), so squared distances neither overflow
        // nor underflow. Ordinary data are left as they are.
        let c = power_of_two_scale(p.values.iter().chain(&q.values).copied());
        for v in p.values.iter_mut().chain(q.values.iter_mut()) {
            *v *= c;
        }
    }
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

/// Name the column in the standardizer's "column j is …" message.
fn constant_column_message(e: &str, columns: &[String]) -> String {
    let mut words = e.strip_prefix("column ").unwrap_or("").splitn(2, ' ');
    let named = words
        .next()
        .and_then(|j| j.parse::<usize>().ok())
        .and_then(|j| columns.get(j));
    match (named, words.next()) {
        (Some(c), Some(what)) => format!("column {c:?} {what}: it cannot be standardized"),
        _ => format!("cannot standardize: {e}"),
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

#[cfg(test)]
mod tests {
    use super::*;

    fn write(dir: &Path, name: &str, rows: &[[f64; 2]], scale: f64) -> std::path::PathBuf {
        let p = dir.join(name);
        let mut text = String::from("x,y\n");
        for r in rows {
            text.push_str(&format!("{:e},{:e}\n", r[0] * scale, r[1] * scale));
        }
        std::fs::write(&p, text).expect("write");
        p
    }

    /// Data of extreme magnitude (|x| ~ 1e160, whose squares overflow; ~ 1e-170, whose squares
    /// underflow) give the estimate of the same data at unit scale, plain and standardized,
    /// instead of "fewer than k distinct neighbours" or "column is constant".
    #[test]
    fn extreme_magnitudes_give_the_unit_scale_estimate() {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut state = 7u64;
        let mut next = || {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (state >> 11) as f64 / (1u64 << 53) as f64 + 0.5
        };
        let p: Vec<[f64; 2]> = (0..60).map(|_| [next(), next()]).collect();
        let q: Vec<[f64; 2]> = (0..80).map(|_| [next() * 1.3, next()]).collect();
        let est = |scale: f64, standardize: bool| {
            let pp = write(dir.path(), "p.csv", &p, scale);
            let qq = write(dir.path(), "q.csv", &q, scale);
            let t = standardize.then(|| pp.clone());
            kl_files(&pp, &qq, 1, t.as_deref()).map(|r| r.kl)
        };
        for standardize in [false, true] {
            let unit = est(1.0, standardize).expect("unit scale");
            for scale in [1e160, 1e-170, 1e300, 1e-300] {
                let got = est(scale, standardize)
                    .unwrap_or_else(|e| panic!("scale {scale:e} ({standardize}): {e}"));
                assert!(
                    (got - unit).abs() < 1e-9 * unit.abs().max(1.0),
                    "scale {scale:e} ({standardize}): {got} against {unit}"
                );
            }
        }
    }
}

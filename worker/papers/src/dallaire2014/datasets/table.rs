//! Numeric tables read from CSV files for the real datasets of paper `004_74db43a26dbf0fa1.txt`
//! (§5.1: Geyser, Iris, Abalone) and for a user's `csv`, their deterministic odd/even split, and
//! the checks that run on the coordinator before any chain starts (§6 "Bad input in
//! experiments").
//!
//! Format: comma-separated, one record per line (`\n` or `\r\n`), no quoted commas; a field may
//! be wrapped in double quotes, which are stripped. A file either has a header row of column names
//! or the caller gives the names (UCI's `abalone.data` has none). Trailing blank lines are
//! ignored; a blank line followed by data is refused.
//!
//! Errors are [`ParamError`]s with the caller's key (`dataset.path`, `dataset.train`, …) and a
//! message naming the file, the 1-based line and the 1-based column (with its name). A data cell
//! is shown only through [`crate::data::shown`], so an error never echoes a line of the file.

use std::path::Path;

use crate::data::{Matrix, shown};
use crate::params::ParamError;

/// How the cells of one selected column become numbers.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Cells<'a> {
    /// A finite decimal number (NaN and ±inf refused).
    Number,
    /// One of a fixed set of codes, each mapped to a number (Abalone's Sex: M, F, I → 1, 2, 3).
    Codes(&'a [(&'a str, f64)]),
}

/// What to read from a file.
#[derive(Debug, Clone)]
pub struct ReadSpec<'a> {
    /// The [`ParamError`] path of every error (`dataset.path`, `dataset.train`, …).
    pub key: &'a str,
    /// `None`: the first line is a header of column names. `Some(names)`: no header; the file has
    /// exactly these columns.
    pub names: Option<&'a [&'a str]>,
    /// Columns to keep, in this order; `None` keeps every column.
    pub columns: Option<&'a [String]>,
    /// Columns whose cells are codes rather than numbers (by name); every other kept column is
    /// [`Cells::Number`].
    pub codes: &'a [(&'a str, Cells<'a>)],
    /// Read only the first this many data rows (Abalone's rows 1–4000); fewer is an error.
    pub max_rows: Option<usize>,
}

/// Rows of selected numeric columns, in file order.
#[derive(Debug, Clone, PartialEq)]
pub struct NumericTable {
    /// The file as errors name it.
    pub file: String,
    /// Names of the kept columns, d.
    pub names: Vec<String>,
    /// 1-based position of each kept column in the file, d.
    pub file_columns: Vec<usize>,
    /// Row-major values, `n_rows × d`.
    pub values: Vec<f64>,
    /// 1-based file line of each row, `n_rows`.
    pub lines: Vec<usize>,
}

impl NumericTable {
    /// Number of kept columns d.
    pub fn d(&self) -> usize {
        self.names.len()
    }

    /// Number of rows.
    pub fn n_rows(&self) -> usize {
        self.lines.len()
    }

    /// The rows whose 0-based index i satisfies `keep(i)`, in order.
    fn rows_where(&self, keep: impl Fn(usize) -> bool) -> NumericTable {
        let d = self.d();
        let mut values = Vec::new();
        let mut lines = Vec::new();
        for (i, (row, line)) in self.values.chunks_exact(d).zip(&self.lines).enumerate() {
            if keep(i) {
                values.extend_from_slice(row);
                lines.push(*line);
            }
        }
        NumericTable {
            file: self.file.clone(),
            names: self.names.clone(),
            file_columns: self.file_columns.clone(),
            values,
            lines,
        }
    }

    /// The deterministic split: data rows 1, 3, 5, … (1-based, file order) train,
    /// rows 2, 4, 6, … test. n rows give ⌈n/2⌉ / ⌊n/2⌋.
    pub fn split_odd_even(&self) -> (NumericTable, NumericTable) {
        (
            self.rows_where(|i| i % 2 == 0),
            self.rows_where(|i| i % 2 == 1),
        )
    }

    /// A named `n_rows × d` [`Matrix`] with the column names.
    pub fn to_matrix(&self, name: &str) -> Matrix {
        let mut m = Matrix::new(name, self.n_rows(), self.d(), self.values.clone());
        m.col_names = self.names.clone();
        m
    }
}

/// Read `path` as [`ReadSpec`] says. Errors (path `spec.key`): unreadable or non-UTF-8 file;
/// empty file; empty or duplicate header names; an unknown selected column; a ragged row (line and
/// field counts); an empty, non-numeric, NaN or infinite cell, or an unknown code (line, column and
/// column name); a blank line inside the data; fewer data rows than `max_rows`.
pub fn read_numeric_csv(path: &Path, spec: &ReadSpec) -> Result<NumericTable, ParamError> {
    let file = path.display().to_string();
    let err = |msg: String| ParamError::new(spec.key, format!("{file}: {msg}"));
    let bytes = std::fs::read(path).map_err(|e| err(format!("cannot read: {e}")))?;
    let text = String::from_utf8(bytes).map_err(|e| {
        err(format!(
            "is not UTF-8 text (first bad byte at offset {})",
            e.utf8_error().valid_up_to()
        ))
    })?;
    let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
    let mut lines: Vec<(usize, &str)> = text
        .split('\n')
        .map(|l| l.strip_suffix('\r').unwrap_or(l))
        .enumerate()
        .map(|(i, l)| (i + 1, l))
        .collect();
    while lines.last().is_some_and(|(_, l)| l.trim().is_empty()) {
        lines.pop();
    }
    let mut lines = lines.into_iter();
    let names: Vec<String> = match spec.names {
        Some(given) => given.iter().map(|s| (*s).to_string()).collect(),
        None => {
            let (_, header) = lines
                .next()
                .ok_or_else(|| err("empty file (expected a header line)".into()))?;
            header.split(',').map(|s| unquote(s).to_string()).collect()
        }
    };
    for (j, nm) in names.iter().enumerate() {
        if nm.is_empty() {
            return Err(err(format!("column {} of the header has no name", j + 1)));
        }
        if names[..j].contains(nm) {
            return Err(err(format!(
                "column name {} appears twice in the header",
                shown(nm)
            )));
        }
    }
    let kept: Vec<usize> = match spec.columns {
        None => (0..names.len()).collect(),
        Some(cols) => {
            let mut kept = Vec::with_capacity(cols.len());
            for c in cols {
                let j = names.iter().position(|n| n == c).ok_or_else(|| {
                    err(format!(
                        "has no column {}: its columns are {}",
                        shown(c),
                        names
                            .iter()
                            .map(|n| shown(n))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ))
                })?;
                kept.push(j);
            }
            kept
        }
    };
    let cells: Vec<Cells> = kept
        .iter()
        .map(|&j| {
            spec.codes
                .iter()
                .find(|(n, _)| *n == names[j])
                .map_or(Cells::Number, |(_, c)| *c)
        })
        .collect();
    let ncol = names.len();
    let mut values = Vec::new();
    let mut rows = Vec::new();
    for (line, text) in lines {
        if spec.max_rows.is_some_and(|m| rows.len() >= m) {
            break;
        }
        if text.trim().is_empty() {
            return Err(err(format!(
                "line {line} is empty (blank lines are allowed only at the end)"
            )));
        }
        let fields: Vec<&str> = text.split(',').collect();
        if fields.len() != ncol {
            return Err(err(format!(
                "line {line} has {} fields, expected {ncol} ({})",
                fields.len(),
                if spec.names.is_some() {
                    "the file's fixed columns"
                } else {
                    "as many as the header"
                }
            )));
        }
        for (&j, c) in kept.iter().zip(&cells) {
            let cell = unquote(fields[j]);
            let at = || format!("line {line}, column {} ({})", j + 1, shown(&names[j]));
            let v = match c {
                Cells::Number => parse_number(cell).map_err(|m| err(format!("{}: {m}", at())))?,
                Cells::Codes(codes) => match codes.iter().find(|(code, _)| *code == cell) {
                    Some((_, v)) => *v,
                    None => {
                        return Err(err(format!(
                            "{}: unknown code {} (allowed: {})",
                            at(),
                            shown(cell),
                            codes.iter().map(|(c, _)| *c).collect::<Vec<_>>().join(", ")
                        )));
                    }
                },
            };
            values.push(v);
        }
        rows.push(line);
    }
    if let Some(m) = spec.max_rows
        && rows.len() < m
    {
        return Err(err(format!(
            "has {} data rows, fewer than the {m} to read",
            rows.len()
        )));
    }
    Ok(NumericTable {
        file,
        names: kept.iter().map(|&j| names[j].clone()).collect(),
        file_columns: kept.iter().map(|&j| j + 1).collect(),
        values,
        lines: rows,
    })
}

/// Trim blanks and one pair of surrounding double quotes.
fn unquote(s: &str) -> &str {
    let t = s.trim();
    t.strip_prefix('"')
        .and_then(|u| u.strip_suffix('"'))
        .unwrap_or(t)
        .trim()
}

/// A finite number, or a message that shows the cell only through [`shown`].
fn parse_number(cell: &str) -> Result<f64, String> {
    if cell.is_empty() {
        return Err("empty cell (every cell must be a finite number)".into());
    }
    match cell.parse::<f64>() {
        Ok(v) if v.is_finite() => Ok(v),
        Ok(_) => Err(format!(
            "value {} is not finite (NaN and inf are refused)",
            shown(cell)
        )),
        Err(_) => Err(format!("value {} is not a number", shown(cell))),
    }
}

/// The checks a training table must pass (§6): at least `min_rows` rows, and no
/// constant column (it cannot be standardized or min-max mapped). Errors name the file and the
/// column (1-based position in the file and name).
pub fn check_training(t: &NumericTable, key: &str, min_rows: usize) -> Result<(), ParamError> {
    if t.n_rows() < min_rows {
        return Err(ParamError::new(
            key,
            format!(
                "{}: the training set has {} row(s); at least {min_rows} are needed",
                t.file,
                t.n_rows()
            ),
        ));
    }
    let d = t.d();
    for j in 0..d {
        let mut col = t.values.iter().skip(j).step_by(d);
        if let Some(first) = col.next()
            && col.all(|v| v == first)
        {
            return Err(ParamError::new(
                key,
                format!(
                    "{}: column {} ({}) is constant over the {} training rows: it cannot be \
                     standardized or min-max mapped",
                    t.file,
                    t.file_columns[j],
                    shown(&t.names[j]),
                    t.n_rows()
                ),
            ));
        }
    }
    Ok(())
}

/// Check that a test table has at least `min_rows` rows (the k-NN KL needs n_test > k).
pub fn check_test(t: &NumericTable, key: &str, min_rows: usize) -> Result<(), ParamError> {
    if t.n_rows() < min_rows {
        return Err(ParamError::new(
            key,
            format!(
                "{}: the test set has {} row(s); at least {min_rows} are needed",
                t.file,
                t.n_rows()
            ),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(dir: &tempfile::TempDir, name: &str, text: &str) -> std::path::PathBuf {
        let p = dir.path().join(name);
        std::fs::write(&p, text).unwrap();
        p
    }

    fn spec<'a>() -> ReadSpec<'a> {
        ReadSpec {
            key: "dataset.path",
            names: None,
            columns: None,
            codes: &[],
            max_rows: None,
        }
    }

    #[test]
    fn dallaire2014_table_reads_splits_and_refuses() {
        let dir = tempfile::tempdir().unwrap();
        let p = write(
            &dir,
            "ok.csv",
            "\u{feff}a,\"b\"\r\n1,2\r\n3,4\r\n5,\"6\"\r\n\r\n",
        );
        let t = read_numeric_csv(&p, &spec()).unwrap();
        assert_eq!(t.names, ["a", "b"]);
        assert_eq!(t.values, [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
        assert_eq!(t.lines, [2, 3, 4]);
        let (tr, te) = t.split_odd_even();
        assert_eq!((tr.lines.clone(), te.lines.clone()), (vec![2, 4], vec![3]));
        assert!(check_training(&tr, "dataset.path", 2).is_ok());
        assert!(check_test(&te, "dataset.path", 2).is_err());
        let m = tr.to_matrix("x");
        assert_eq!(
            (m.rows, m.cols, m.col_names.clone()),
            (2, 2, vec!["a".into(), "b".into()])
        );

        let p = write(&dir, "blank.csv", "a,b\n1,2\n\n3,4\n");
        let e = read_numeric_csv(&p, &spec()).unwrap_err();
        assert!(e.message.contains("line 3 is empty"), "{e}");
        let p = write(&dir, "dup.csv", "a,a\n1,2\n");
        assert!(read_numeric_csv(&p, &spec()).is_err());
        let p = write(&dir, "codes.csv", "s,v\nM,1\nX,2\n");
        let codes = [("s", Cells::Codes(&[("M", 1.0), ("F", 2.0)]))];
        let e = read_numeric_csv(
            &p,
            &ReadSpec {
                codes: &codes,
                ..spec()
            },
        )
        .unwrap_err();
        assert!(
            e.message
                .contains("line 3, column 1 (\"s\"): unknown code \"X\""),
            "{e}"
        );
        assert_eq!(parse_number("-1.5e3"), Ok(-1500.0));
        assert!(parse_number("inf").is_err());
        assert!(parse_number("NaN").is_err());
        assert!(parse_number("").is_err());
        assert_eq!(unquote(" \" x \" "), "x");
    }
}

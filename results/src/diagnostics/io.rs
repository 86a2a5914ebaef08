//! `causeway diagnose FILE`: read draws from CSV or Parquet, diagnose every variable, and
//! render the result as JSON or as an aligned text table.
//!
//! File layout (both formats): columns `chain`, `draw` (integers) and one numeric column per
//! variable, one row per (chain, draw). Rows may come in any order; they are ordered by
//! `(chain, draw)`. Every chain must have the same number of draws, and each (chain, draw)
//! pair must appear once. A CSV field `NaN` is a NaN draw (every diagnostic of that
//! variable is then NaN); an empty field is a missing value and is refused.

use std::fmt::Write as _;
use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};

use polars::prelude::*;
use thiserror::Error;

use super::{Diagnostics, DiagnosticsError, Draws, TailProbs, diagnose_draws};

/// Why a draws file could not be diagnosed. Every message names the file, and the column or
/// chain at fault.
#[derive(Debug, Error)]
pub enum ReadError {
    /// The file could not be opened or read.
    #[error("{}: cannot read: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// Polars could not parse the file in the detected format.
    #[error("{}: cannot parse as {format}: {source}", path.display())]
    Parse {
        /// The file.
        path: PathBuf,
        /// `"CSV"` or `"Parquet"`.
        format: &'static str,
        /// Polars' error.
        source: PolarsError,
    },
    /// A required column (`chain` or `draw`) is absent.
    #[error(
        "{}: missing column `{column}` (expected header `chain,draw,<one column per variable>`; found: {found})",
        path.display()
    )]
    MissingColumn {
        /// The file.
        path: PathBuf,
        /// `"chain"` or `"draw"`.
        column: &'static str,
        /// The columns that are there, comma-separated.
        found: String,
    },
    /// `chain` or `draw` is not an integer column.
    #[error("{}: column `{column}` must hold integers, found type {dtype}", path.display())]
    NonIntegerIndex {
        /// The file.
        path: PathBuf,
        /// `"chain"` or `"draw"`.
        column: &'static str,
        /// Polars' name of the type found.
        dtype: String,
    },
    /// A variable column is not numeric.
    #[error(
        "{}: column `{column}` is not numeric (type {dtype}); every column besides chain and draw must hold numbers",
        path.display()
    )]
    NonNumericColumn {
        /// The file.
        path: PathBuf,
        /// The column.
        column: String,
        /// Polars' name of the type found.
        dtype: String,
    },
    /// A column has empty / null cells.
    #[error(
        "{}: column `{column}` has {count} missing value(s), the first in data row {row} (write NaN for a NaN draw)",
        path.display()
    )]
    MissingValues {
        /// The file.
        path: PathBuf,
        /// The column.
        column: String,
        /// Number of nulls.
        count: usize,
        /// 1-based data row (not counting the header) of the first null.
        row: usize,
    },
    /// Only `chain` and `draw` columns, or no rows.
    #[error("{}: {what}", path.display())]
    Empty {
        /// The file.
        path: PathBuf,
        /// What is missing.
        what: &'static str,
    },
    /// Chains of different lengths.
    #[error(
        "{}: chains have unequal lengths: chain {chain} has {len} draws but chain {first_chain} has {expected}",
        path.display()
    )]
    UnequalChainLengths {
        /// The file.
        path: PathBuf,
        /// First chain (in ascending id order) whose length differs.
        chain: i64,
        /// Its length.
        len: usize,
        /// The lowest chain id.
        first_chain: i64,
        /// Its length.
        expected: usize,
    },
    /// The same (chain, draw) pair on two rows.
    #[error("{}: chain {chain} has draw {draw} more than once", path.display())]
    DuplicateDraw {
        /// The file.
        path: PathBuf,
        /// The chain.
        chain: i64,
        /// The repeated draw index.
        draw: i64,
    },
    /// The draws of a variable cannot be diagnosed (e.g. fewer than 4 draws per chain).
    #[error("{}: variable `{variable}`: {source}", path.display())]
    Diagnostics {
        /// The file.
        path: PathBuf,
        /// The variable (column).
        variable: String,
        /// Why.
        source: DiagnosticsError,
    },
}

/// Draws read from a file: M chains × N draws for each variable, in file column order.
#[derive(Debug, Clone, PartialEq)]
pub struct DrawsTable {
    /// Chain ids in ascending order (M of them).
    pub chain_ids: Vec<i64>,
    /// Draws per chain N.
    pub n_draws: usize,
    /// `(variable name, values)` per variable column, in file order; `values` is M·N long,
    /// chain after chain (chains in `chain_ids` order, draws by ascending `draw`).
    pub variables: Vec<(String, Vec<f64>)>,
}

impl DrawsTable {
    /// Borrow one variable's values as [`Draws`] (M × N).
    pub fn draws(&self, variable: usize) -> Option<Result<Draws<'_>, DiagnosticsError>> {
        self.variables
            .get(variable)
            .map(|(_, v)| Draws::from_row_major(v, self.chain_ids.len()))
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Format {
    Csv,
    Parquet,
}

impl Format {
    fn name(self) -> &'static str {
        match self {
            Format::Csv => "CSV",
            Format::Parquet => "Parquet",
        }
    }
}

/// `.csv` → CSV, `.parquet`/`.pq` → Parquet; otherwise the Parquet magic bytes `PAR1` decide.
fn detect_format(path: &Path) -> Result<Format, ReadError> {
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    match ext.as_deref() {
        Some("csv") => return Ok(Format::Csv),
        Some("parquet") | Some("pq") => return Ok(Format::Parquet),
        _ => {}
    }
    let io = |source| ReadError::Io {
        path: path.to_path_buf(),
        source,
    };
    let mut magic = [0u8; 4];
    let mut f = File::open(path).map_err(io)?;
    let n = f.read(&mut magic).map_err(io)?;
    Ok(if n == 4 && &magic == b"PAR1" {
        Format::Parquet
    } else {
        Format::Csv
    })
}

fn read_frame(path: &Path) -> Result<DataFrame, ReadError> {
    let format = detect_format(path)?;
    // Open first so that a missing/unreadable file is reported as an I/O error.
    let file = File::open(path).map_err(|source| ReadError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    let parse = |source| ReadError::Parse {
        path: path.to_path_buf(),
        format: format.name(),
        source,
    };
    match format {
        Format::Csv => CsvReadOptions::default()
            .with_has_header(true)
            .with_infer_schema_length(None)
            .into_reader_with_file_handle(file)
            .finish()
            .map_err(parse),
        Format::Parquet => ParquetReader::new(file).finish().map_err(parse),
    }
}

fn first_null_row(col: &Column) -> usize {
    col.is_null()
        .iter()
        .position(|b| b == Some(true))
        .map_or(0, |r| r + 1)
}

fn index_column(path: &Path, df: &DataFrame, name: &'static str) -> Result<Vec<i64>, ReadError> {
    let found = || {
        df.get_column_names()
            .iter()
            .map(|s| s.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let col = df.column(name).map_err(|_| ReadError::MissingColumn {
        path: path.to_path_buf(),
        column: name,
        found: found(),
    })?;
    if !col.dtype().is_integer() {
        return Err(ReadError::NonIntegerIndex {
            path: path.to_path_buf(),
            column: name,
            dtype: col.dtype().to_string(),
        });
    }
    if col.null_count() > 0 {
        return Err(ReadError::MissingValues {
            path: path.to_path_buf(),
            column: name.to_string(),
            count: col.null_count(),
            row: first_null_row(col),
        });
    }
    let parse = |source| ReadError::Parse {
        path: path.to_path_buf(),
        format: "integers",
        source,
    };
    let cast = col.cast(&DataType::Int64).map_err(parse)?;
    let ca = cast.i64().map_err(parse)?;
    // No nulls (checked above), and a UInt64 above i64::MAX fails the strict cast.
    Ok(ca.iter().map(|v| v.unwrap_or(i64::MIN)).collect())
}

/// Read a draws file (CSV or Parquet, see the [module docs](self)) without diagnosing it.
///
/// Errors name the file and the offending column or chain: missing `chain`/`draw`,
/// non-integer index columns, non-numeric variable columns, missing values, unequal chain
/// lengths, duplicate (chain, draw) rows, unreadable or unparsable files.
pub fn read_draws_file(path: &Path) -> Result<DrawsTable, ReadError> {
    let df = read_frame(path)?;
    // A header-only file has no rows to type its columns by: say so before the type checks.
    if df.height() == 0 && df.column("chain").is_ok() && df.column("draw").is_ok() {
        return Err(ReadError::Empty {
            path: path.to_path_buf(),
            what: "no rows of draws",
        });
    }
    let chain = index_column(path, &df, "chain")?;
    let draw = index_column(path, &df, "draw")?;
    let p = || path.to_path_buf();

    let var_cols: Vec<&Column> = df
        .columns()
        .iter()
        .filter(|c| c.name().as_str() != "chain" && c.name().as_str() != "draw")
        .collect();
    if var_cols.is_empty() {
        return Err(ReadError::Empty {
            path: p(),
            what: "no variable columns besides `chain` and `draw`",
        });
    }
    if chain.is_empty() {
        return Err(ReadError::Empty {
            path: p(),
            what: "no rows of draws",
        });
    }
    for col in &var_cols {
        if !col.dtype().is_primitive_numeric() {
            return Err(ReadError::NonNumericColumn {
                path: p(),
                column: col.name().to_string(),
                dtype: col.dtype().to_string(),
            });
        }
    }

    // Row order by (chain, draw); group into chains.
    let mut order: Vec<usize> = (0..chain.len()).collect();
    order.sort_by_key(|&r| (chain[r], draw[r]));
    let mut chain_ids: Vec<i64> = Vec::new();
    let mut lengths: Vec<usize> = Vec::new();
    let mut prev: Option<(i64, i64)> = None;
    for &r in &order {
        let (c, d) = (chain[r], draw[r]);
        if prev == Some((c, d)) {
            return Err(ReadError::DuplicateDraw {
                path: p(),
                chain: c,
                draw: d,
            });
        }
        if prev.map(|(pc, _)| pc) != Some(c) {
            chain_ids.push(c);
            lengths.push(0);
        }
        if let Some(l) = lengths.last_mut() {
            *l += 1;
        }
        prev = Some((c, d));
    }
    let expected = lengths[0];
    if let Some(i) = lengths.iter().position(|&l| l != expected) {
        return Err(ReadError::UnequalChainLengths {
            path: p(),
            chain: chain_ids[i],
            len: lengths[i],
            first_chain: chain_ids[0],
            expected,
        });
    }

    let mut variables = Vec::with_capacity(var_cols.len());
    for col in var_cols {
        let name = col.name().to_string();
        if col.null_count() > 0 {
            return Err(ReadError::MissingValues {
                path: p(),
                column: name,
                count: col.null_count(),
                row: first_null_row(col),
            });
        }
        let parse = |source| ReadError::Parse {
            path: p(),
            format: "numbers",
            source,
        };
        let cast = col.cast(&DataType::Float64).map_err(parse)?;
        let ca = cast.f64().map_err(parse)?;
        let raw: Vec<f64> = ca.iter().map(|v| v.unwrap_or(f64::NAN)).collect();
        let values: Vec<f64> = order.iter().map(|&r| raw[r]).collect();
        variables.push((name, values));
    }
    Ok(DrawsTable {
        chain_ids,
        n_draws: expected,
        variables,
    })
}

/// Read a draws file and diagnose every variable: `(variable name, Diagnostics)` in file
/// column order (tail ESS with the ArviZ 0.23 quantiles 0.05/0.95).
///
/// This is what `causeway diagnose FILE` calls. Errors: those of [`read_draws_file`], and
/// [`ReadError::Diagnostics`] when a variable cannot be diagnosed (fewer than 4 draws).
pub fn diagnose_file(path: &Path) -> Result<Vec<(String, Diagnostics)>, ReadError> {
    let table = read_draws_file(path)?;
    let m = table.chain_ids.len();
    table
        .variables
        .iter()
        .map(|(name, values)| {
            let draws =
                Draws::from_row_major(values, m).map_err(|source| ReadError::Diagnostics {
                    path: path.to_path_buf(),
                    variable: name.clone(),
                    source,
                })?;
            Ok((name.clone(), diagnose_draws(&draws, TailProbs::default())))
        })
        .collect()
}

/// A float as a JSON value: shortest round-trip decimal, or `null` when not finite.
fn json_number(x: f64) -> String {
    serde_json::Number::from_f64(x).map_or_else(|| "null".to_string(), |n| n.to_string())
}

/// Render results as a JSON object with one member per variable (file column order), each an
/// object with the six keys `rhat, rhat_split, ess_bulk, ess_tail, ess_mean, mcse_mean`.
/// NaN and ±∞ are written as `null` (see [`Diagnostics`]). Ends with a newline.
pub fn render_json(results: &[(String, Diagnostics)]) -> String {
    let mut out = String::from("{");
    for (i, (name, d)) in results.iter().enumerate() {
        let key = serde_json::Value::String(name.clone()).to_string();
        // Writing to a String cannot fail.
        let _ = write!(
            out,
            "{}\n  {key}: {{\"rhat\": {}, \"rhat_split\": {}, \"ess_bulk\": {}, \"ess_tail\": {}, \"ess_mean\": {}, \"mcse_mean\": {}}}",
            if i == 0 { "" } else { "," },
            json_number(d.rhat),
            json_number(d.rhat_split),
            json_number(d.ess_bulk),
            json_number(d.ess_tail),
            json_number(d.ess_mean),
            json_number(d.mcse_mean),
        );
    }
    out.push_str(if results.is_empty() { "}\n" } else { "\n}\n" });
    out
}

/// R-hat for a table: `>100` above 100 (infinite included; JSON and CSV keep the value).
fn fmt_rhat(x: f64) -> String {
    if x > 100.0 {
        ">100".into()
    } else {
        fmt_fixed(x, 3)
    }
}

fn fmt_fixed(x: f64, decimals: usize) -> String {
    if x.is_finite() {
        format!("{x:.decimals$}")
    } else {
        non_finite(x)
    }
}

fn non_finite(x: f64) -> String {
    if x.is_nan() {
        "NaN".into()
    } else if x > 0.0 {
        "inf".into()
    } else {
        "-inf".into()
    }
}

/// Four significant digits, fixed notation for 1e-3 ≤ |x| < 1e5, else scientific.
fn fmt_sig4(x: f64) -> String {
    if !x.is_finite() {
        return non_finite(x);
    }
    let a = x.abs();
    if a == 0.0 {
        "0".into()
    } else if (1e-3..1e5).contains(&a) {
        let digits = (3 - a.log10().floor() as i32).max(0) as usize;
        format!("{x:.digits$}")
    } else {
        format!("{x:.3e}")
    }
}

/// Render results as an aligned text table (`causeway diagnose --format table`): one row
/// per variable, R-hats with 3 decimals (`>100` above 100), ESS rounded to whole draws, MCSE with 4 significant
/// digits, non-finite values as `NaN`/`inf`. Ends with a newline.
pub fn render_table(results: &[(String, Diagnostics)]) -> String {
    let header = [
        "variable",
        "rhat",
        "rhat_split",
        "ess_bulk",
        "ess_tail",
        "ess_mean",
        "mcse_mean",
    ];
    let rows: Vec<[String; 7]> = results
        .iter()
        .map(|(name, d)| {
            [
                name.clone(),
                fmt_rhat(d.rhat),
                fmt_rhat(d.rhat_split),
                fmt_fixed(d.ess_bulk, 0),
                fmt_fixed(d.ess_tail, 0),
                fmt_fixed(d.ess_mean, 0),
                fmt_sig4(d.mcse_mean),
            ]
        })
        .collect();
    let mut width: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
    for row in &rows {
        for (w, cell) in width.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let mut out = String::new();
    let mut line = |cells: &[&str]| {
        let mut s = String::new();
        for (i, (cell, &w)) in cells.iter().zip(&width).enumerate() {
            let pad = w - cell.chars().count();
            if i == 0 {
                s.push_str(cell);
                s.push_str(&" ".repeat(pad));
            } else {
                s.push_str("  ");
                s.push_str(&" ".repeat(pad));
                s.push_str(cell);
            }
        }
        out.push_str(s.trim_end());
        out.push('\n');
    };
    line(&header);
    for row in &rows {
        let cells: Vec<&str> = row.iter().map(String::as_str).collect();
        line(&cells);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sig4_formats() {
        assert_eq!(fmt_sig4(0.015416630933936418), "0.01542");
        assert_eq!(fmt_sig4(1.3092), "1.309");
        assert_eq!(fmt_sig4(18.61), "18.61");
        assert_eq!(fmt_sig4(2.5e-12), "2.500e-12");
        assert_eq!(fmt_sig4(f64::NAN), "NaN");
        assert_eq!(fmt_sig4(0.0), "0");
    }

    #[test]
    fn json_numbers() {
        assert_eq!(json_number(f64::NAN), "null");
        assert_eq!(json_number(f64::INFINITY), "null");
        assert_eq!(json_number(3000.0), "3000.0");
        assert_eq!(json_number(1.0007037575289472), "1.0007037575289472");
    }
}

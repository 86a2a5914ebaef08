//! Discrete CSV (`dataset: {kind: csv, path, columns, rename, levels, drop_missing, max_levels,
//! bins}`):
//! a header, one column per variable, values are category labels.
//!
//! Rules, in the order they are applied:
//! - records follow RFC 4180 (comma-separated, `"`-quoted fields may hold commas, newlines and
//!   `""`; CRLF or LF line ends); a record whose field count differs from the header's is refused
//!   (a ragged row), naming its line;
//! - `columns` selects and orders the variables (default: every column, in file order); `rename`
//!   maps a file column name to the variable's name; `levels` is keyed by either name;
//! - a cell that is empty after trimming spaces is missing: refused, or with `drop_missing: true`
//!   the row is dropped (only the selected columns count);
//! - a column's categories are its distinct values, ascending numerically when every value is an
//!   integer (`-3`, `0`, `12`, also `2.0`), else in byte order; `levels: {COL: [...]}` declares them
//!   instead (their order, and levels that never occur), and a value outside them is refused;
//! - `bins: {COL: [b0, …, bm]}` instead cuts a numeric column into (b0, b1], …, (b_{m−1}, bm]
//!   (labels as R's `cut`); a value outside is refused;
//! - without declared levels, a non-integer number (`0.5`, `1e-3`) is refused: "looks continuous:
//!   discretise it with `bins:`"; so are more than `max_levels` (default 32) distinct values and a
//!   single level (HiDDeN needs k_j ≥ 2; declared lists must also have ≥ 2 distinct labels).
//!
//! Every refusal is a [`ParamError`] whose path is the YAML key to fix (`dataset.path`,
//! `dataset.columns.2`, `dataset.rename.X`, `dataset.levels.COL`) and whose message names the
//! file, the line and the column.

use std::cmp::Ordering;
use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use super::DiscreteData;
use crate::params::ParamError;

/// Default largest number of distinct values of an undeclared column.
pub const DEFAULT_MAX_LEVELS: usize = 32;

/// The CSV records of one file: the header and the data records with their first line number.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CsvRecords {
    /// The file as named in messages.
    pub file: String,
    /// Header fields.
    pub header: Vec<String>,
    /// `(line, fields)` per data record, `line` 1-based (the header is line 1).
    pub rows: Vec<(usize, Vec<String>)>,
}

impl CsvRecords {
    /// The index of the header column `name`.
    pub fn column(&self, name: &str) -> Option<usize> {
        self.header.iter().position(|h| h == name)
    }
}

/// Options of a discrete CSV read (the keys of `kind: csv` other than `path`).
#[derive(Debug, Clone, PartialEq)]
pub struct CsvOptions {
    /// File columns to keep, in output order; `None` keeps every column in file order.
    pub columns: Option<Vec<String>>,
    /// File column name → variable name.
    pub rename: BTreeMap<String, String>,
    /// Declared categories, keyed by file column name or variable name.
    pub levels: BTreeMap<String, Vec<String>>,
    /// Drop rows with an empty selected cell instead of refusing them.
    pub drop_missing: bool,
    /// Largest number of distinct values of an undeclared column.
    pub max_levels: usize,
    /// Breaks b_0 < … < b_m per column (keyed like `levels`): the column is numeric and cut into
    /// the m right-closed intervals (b_{i−1}, b_i], labelled `(b_{i-1},b_i]` as R's `cut` does.
    pub bins: BTreeMap<String, Vec<f64>>,
}

impl Default for CsvOptions {
    fn default() -> Self {
        CsvOptions {
            columns: None,
            rename: BTreeMap::new(),
            levels: BTreeMap::new(),
            drop_missing: false,
            max_levels: DEFAULT_MAX_LEVELS,
            bins: BTreeMap::new(),
        }
    }
}

fn path_err(file: &str, line: Option<usize>, message: impl std::fmt::Display) -> ParamError {
    match line {
        Some(l) => ParamError::new("dataset.path", format!("{file}, line {l}: {message}")),
        None => ParamError::new("dataset.path", format!("{file}: {message}")),
    }
}

/// Split `text` into records (RFC 4180). Returns `(first line, fields)` per record; blank lines
/// are skipped. Errors: an unterminated quoted field or a quote inside an unquoted field, naming
/// the line.
pub fn split_records(file: &str, text: &str) -> Result<Vec<(usize, Vec<String>)>, ParamError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut out = Vec::new();
    let mut fields: Vec<String> = Vec::new();
    let mut field = String::new();
    let mut line = 1usize;
    let mut start = 1usize;
    let mut in_quotes = false;
    let mut quoted = false; // the current field was quoted
    let mut chars = text.chars().peekable();
    while let Some(ch) = chars.next() {
        if in_quotes {
            match ch {
                '"' if chars.peek() == Some(&'"') => {
                    chars.next();
                    field.push('"');
                }
                '"' => in_quotes = false,
                '\n' => {
                    line += 1;
                    field.push('\n');
                }
                c => field.push(c),
            }
            continue;
        }
        match ch {
            '"' if field.is_empty() && !quoted => {
                in_quotes = true;
                quoted = true;
            }
            '"' => {
                return Err(path_err(
                    file,
                    Some(line),
                    format!(
                        "field {} has a quote inside an unquoted or already closed field",
                        fields.len() + 1
                    ),
                ));
            }
            ',' => {
                fields.push(std::mem::take(&mut field));
                quoted = false;
            }
            '\r' if chars.peek() == Some(&'\n') => {}
            '\n' => {
                fields.push(std::mem::take(&mut field));
                quoted = false;
                if !(fields.len() == 1 && fields[0].trim().is_empty()) {
                    out.push((start, std::mem::take(&mut fields)));
                }
                fields.clear();
                line += 1;
                start = line;
            }
            c => {
                if quoted && !c.is_whitespace() {
                    return Err(path_err(
                        file,
                        Some(line),
                        format!(
                            "field {} has text after its closing quote",
                            fields.len() + 1
                        ),
                    ));
                }
                if !quoted {
                    field.push(c);
                }
            }
        }
    }
    if in_quotes {
        return Err(path_err(
            file,
            Some(start),
            "a quoted field is not closed before the end of the file",
        ));
    }
    if !fields.is_empty() || !field.is_empty() || quoted {
        fields.push(field);
        if !(fields.len() == 1 && fields[0].trim().is_empty()) {
            out.push((start, fields));
        }
    }
    Ok(out)
}

/// Read a CSV file into records, refusing an empty file, a duplicated header name and a ragged
/// row. `file` is the name used in messages.
pub fn read_records(path: &Path, file: &str) -> Result<CsvRecords, ParamError> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| path_err(file, None, format!("cannot read: {e}")))?;
    let mut records = split_records(file, &text)?.into_iter();
    let (_, header) = records
        .next()
        .ok_or_else(|| path_err(file, None, "the file is empty: a header is needed"))?;
    let header: Vec<String> = header.into_iter().map(|h| h.trim().to_string()).collect();
    // A set, not a scan of the names before: linear in the columns (10⁵ columns).
    let mut seen = std::collections::HashSet::with_capacity(header.len());
    for (i, h) in header.iter().enumerate() {
        if h.is_empty() {
            return Err(path_err(
                file,
                Some(1),
                format!("header column {} has no name", i + 1),
            ));
        }
        if !seen.insert(h.as_str()) {
            return Err(path_err(
                file,
                Some(1),
                format!("header column {h:?} is repeated"),
            ));
        }
    }
    let mut rows = Vec::new();
    for (line, fields) in records {
        if fields.len() != header.len() {
            return Err(path_err(
                file,
                Some(line),
                format!(
                    "ragged row: {} fields, the header has {}",
                    fields.len(),
                    header.len()
                ),
            ));
        }
        rows.push((line, fields));
    }
    Ok(CsvRecords {
        file: file.to_string(),
        header,
        rows,
    })
}

/// A label's numeric value if it is a plain decimal number (digits, sign, point, exponent; not
/// `inf` or `NaN`).
pub fn numeric_value(s: &str) -> Option<f64> {
    let ok = !s.is_empty()
        && s.chars().any(|c| c.is_ascii_digit())
        && s.chars()
            .all(|c| c.is_ascii_digit() || matches!(c, '+' | '-' | '.' | 'e' | 'E'));
    if !ok {
        return None;
    }
    s.parse::<f64>().ok().filter(|v| v.is_finite())
}

/// Order distinct labels as the CSV rules do: numerically when all are integers, else by bytes.
pub fn order_levels(mut labels: Vec<String>) -> Vec<String> {
    let nums: Option<Vec<f64>> = labels
        .iter()
        .map(|s| numeric_value(s).filter(|v| v.fract() == 0.0))
        .collect();
    if nums.is_some() {
        labels.sort_by(|a, b| {
            let (x, y) = (numeric_value(a), numeric_value(b));
            x.partial_cmp(&y)
                .unwrap_or(Ordering::Equal)
                .then_with(|| a.as_bytes().cmp(b.as_bytes()))
        });
    } else {
        labels.sort_by(|a, b| a.as_bytes().cmp(b.as_bytes()));
    }
    labels
}

/// Code the selected columns of `records` as discrete data (the rules of the module docs).
/// `names` are the variables' names (after `rename`), `cols` the file column indices.
pub fn discretise_records(
    records: &CsvRecords,
    opts: &CsvOptions,
) -> Result<DiscreteData, ParamError> {
    let file = records.file.as_str();
    let cols: Vec<usize> = match &opts.columns {
        None => (0..records.header.len()).collect(),
        Some(list) => {
            let mut v = Vec::with_capacity(list.len());
            for (i, name) in list.iter().enumerate() {
                let c = records.column(name).ok_or_else(|| {
                    ParamError::new(
                        format!("dataset.columns.{i}"),
                        format!(
                            "{file} has no column {name:?}: its columns are {}",
                            records.header.join(", ")
                        ),
                    )
                })?;
                if v.contains(&c) {
                    return Err(ParamError::new(
                        format!("dataset.columns.{i}"),
                        format!("column {name:?} is selected twice"),
                    ));
                }
                v.push(c);
            }
            v
        }
    };
    if cols.is_empty() {
        return Err(ParamError::new("dataset.columns", "no column is selected"));
    }
    for from in opts.rename.keys() {
        if !cols.iter().any(|&c| &records.header[c] == from) {
            return Err(ParamError::new(
                format!("dataset.rename.{from}"),
                format!("{from:?} is not a selected column of {file}"),
            ));
        }
    }
    let names: Vec<String> = cols
        .iter()
        .map(|&c| {
            let h = &records.header[c];
            opts.rename.get(h).cloned().unwrap_or_else(|| h.clone())
        })
        .collect();
    let mut seen = std::collections::HashSet::with_capacity(names.len());
    for n in &names {
        if !seen.insert(n.as_str()) {
            return Err(ParamError::new(
                "dataset.rename",
                format!("two variables are called {n:?}"),
            ));
        }
    }
    // Declared levels, per selected column.
    let mut declared: Vec<Option<(&str, &Vec<String>)>> = vec![None; cols.len()];
    for (key, list) in &opts.levels {
        let j = (0..cols.len())
            .find(|&j| &names[j] == key || &records.header[cols[j]] == key)
            .ok_or_else(|| {
                ParamError::new(
                    format!("dataset.levels.{key}"),
                    format!("{key:?} is not a selected column of {file}"),
                )
            })?;
        check_declared(&format!("dataset.levels.{key}"), list)?;
        declared[j] = Some((key.as_str(), list));
    }
    for key in opts.bins.keys() {
        if !(0..cols.len()).any(|j| &names[j] == key || &records.header[cols[j]] == key) {
            return Err(ParamError::new(
                format!("dataset.bins.{key}"),
                format!("{key:?} is not a selected column of {file}"),
            ));
        }
    }
    // Rows kept.
    let mut kept: Vec<&(usize, Vec<String>)> = Vec::with_capacity(records.rows.len());
    'rows: for row in &records.rows {
        for (j, &c) in cols.iter().enumerate() {
            if row.1[c].trim().is_empty() {
                if opts.drop_missing {
                    continue 'rows;
                }
                return Err(path_err(
                    file,
                    Some(row.0),
                    format!(
                        "column {:?} is empty (set `drop_missing: true` to drop such rows)",
                        names[j]
                    ),
                ));
            }
        }
        kept.push(row);
    }
    if kept.is_empty() {
        return Err(path_err(file, None, "no data rows are left"));
    }
    let mut levels = Vec::with_capacity(cols.len());
    let mut columns = Vec::with_capacity(cols.len());
    for (j, &c) in cols.iter().enumerate() {
        let binned = opts
            .bins
            .iter()
            .find(|(key, _)| *key == &names[j] || *key == &records.header[c]);
        let (lv, codes) = match binned {
            Some((key, breaks)) if declared[j].is_none() => {
                cut_column(file, &names[j], key, breaks, &kept, c)?
            }
            Some((key, _)) => {
                return Err(ParamError::new(
                    format!("dataset.bins.{key}"),
                    format!("column {:?} has both `levels` and `bins`", names[j]),
                ));
            }
            None => code_column(file, &names[j], declared[j], opts.max_levels, &kept, c)?,
        };
        levels.push(lv);
        columns.push(codes);
    }
    DiscreteData::new(names, levels, columns).map_err(|e| path_err(file, None, e))
}

/// Check a declared level list: at least two labels, none repeated or empty, at most
/// [`super::MAX_LEVELS`].
pub fn check_declared(path: &str, list: &[String]) -> Result<(), ParamError> {
    if list.len() < 2 {
        return Err(ParamError::new(
            path,
            format!(
                "{} declared level(s): HiDDeN needs at least 2 categories",
                list.len()
            ),
        ));
    }
    if list.len() > super::MAX_LEVELS {
        return Err(ParamError::new(
            path,
            format!("{} levels is too many", list.len()),
        ));
    }
    for (i, l) in list.iter().enumerate() {
        if l.trim().is_empty() {
            return Err(ParamError::new(format!("{path}.{i}"), "an empty label"));
        }
        if list[..i].contains(l) {
            return Err(ParamError::new(
                format!("{path}.{i}"),
                format!("{l:?} is declared twice"),
            ));
        }
    }
    Ok(())
}

/// Check a `bins` list: at least 3 finite, strictly increasing breaks (≥ 2 intervals).
pub fn check_breaks(path: &str, breaks: &[f64]) -> Result<(), ParamError> {
    if breaks.len() < 3 || breaks.len() > super::MAX_LEVELS {
        return Err(ParamError::new(
            path,
            format!(
                "{} breaks give {} intervals: HiDDeN needs at least 2 categories",
                breaks.len(),
                breaks.len().saturating_sub(1)
            ),
        ));
    }
    if breaks.iter().any(|b| !b.is_finite()) || breaks.windows(2).any(|w| w[0] >= w[1]) {
        return Err(ParamError::new(
            path,
            format!("breaks {breaks:?} must be finite and strictly increasing"),
        ));
    }
    Ok(())
}

fn cut_column(
    file: &str,
    name: &str,
    key: &str,
    breaks: &[f64],
    kept: &[&(usize, Vec<String>)],
    c: usize,
) -> Result<(Vec<String>, Vec<u16>), ParamError> {
    check_breaks(&format!("dataset.bins.{key}"), breaks)?;
    let mut codes = Vec::with_capacity(kept.len());
    for (line, f) in kept {
        let v = f[c].trim();
        let x = numeric_value(v).ok_or_else(|| {
            path_err(
                file,
                Some(*line),
                format!(
                    "column {}: {} is not a number to bin",
                    crate::data::shown(name),
                    crate::data::shown(v)
                ),
            )
        })?;
        let bin = breaks
            .windows(2)
            .position(|w| x > w[0] && x <= w[1])
            .ok_or_else(|| {
                path_err(
                    file,
                    Some(*line),
                    format!(
                        "column {name:?}: {x} is outside the bins ({}, {}]",
                        breaks[0],
                        breaks[breaks.len() - 1]
                    ),
                )
            })?;
        codes.push(bin as u16);
    }
    let lv = breaks
        .windows(2)
        .map(|w| format!("({},{}]", w[0], w[1]))
        .collect();
    Ok((lv, codes))
}

fn code_column(
    file: &str,
    name: &str,
    declared: Option<(&str, &Vec<String>)>,
    max_levels: usize,
    kept: &[&(usize, Vec<String>)],
    c: usize,
) -> Result<(Vec<String>, Vec<u16>), ParamError> {
    let value = |row: &(usize, Vec<String>)| row.1[c].trim().to_string();
    let levels: Vec<String> = match declared {
        Some((key, list)) => {
            for row in kept {
                let v = value(row);
                if !list.contains(&v) {
                    return Err(ParamError::new(
                        format!("dataset.levels.{key}"),
                        format!(
                            "{file}, line {}, column {}: {} is not a declared level ({})",
                            row.0,
                            crate::data::shown(name),
                            crate::data::shown(&v),
                            list.join(", ")
                        ),
                    ));
                }
            }
            list.clone()
        }
        None => {
            let mut seen: Vec<String> = Vec::new();
            let mut set: HashMap<String, ()> = HashMap::new();
            for row in kept {
                let v = value(row);
                if set.contains_key(&v) {
                    continue;
                }
                if numeric_value(&v).is_some_and(|x| x.fract() != 0.0) {
                    return Err(path_err(
                        file,
                        Some(row.0),
                        format!(
                            "column {}: {} looks continuous: discretise it with `bins:` \
                             (or declare its levels with `levels:`)",
                            crate::data::shown(name),
                            crate::data::shown(&v)
                        ),
                    ));
                }
                set.insert(v.clone(), ());
                seen.push(v);
                if seen.len() > max_levels {
                    return Err(path_err(
                        file,
                        Some(row.0),
                        format!(
                            "column {name:?} has more than max_levels = {max_levels} distinct \
                             values (raise `max_levels` or declare them with `levels:`)"
                        ),
                    ));
                }
            }
            if seen.len() < 2 {
                return Err(path_err(
                    file,
                    kept.first().map(|r| r.0),
                    format!(
                        "column {name:?} has a single level {:?}: HiDDeN needs at least 2 categories",
                        seen.first().map_or("", String::as_str)
                    ),
                ));
            }
            order_levels(seen)
        }
    };
    if levels.len() > super::MAX_LEVELS {
        return Err(path_err(
            file,
            None,
            format!("column {name:?}: too many levels"),
        ));
    }
    let index: HashMap<&str, u16> = levels
        .iter()
        .enumerate()
        .map(|(i, l)| (l.as_str(), i as u16))
        .collect();
    let codes = kept.iter().map(|row| index[value(row).as_str()]).collect();
    Ok((levels, codes))
}

/// Read a discrete CSV: [`read_records`] then [`discretise_records`].
pub fn read_discrete_csv(
    path: &Path,
    file: &str,
    opts: &CsvOptions,
) -> Result<DiscreteData, ParamError> {
    let records = read_records(path, file)?;
    discretise_records(&records, opts)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoted_fields_and_line_numbers() {
        let t = "a,b\n\"x,1\",\"say \"\"hi\"\"\"\r\n\n\"multi\nline\",2\n3,4";
        let r = split_records("t.csv", t).expect("valid");
        assert_eq!(r.len(), 4);
        assert_eq!(r[1], (2, vec!["x,1".to_string(), "say \"hi\"".to_string()]));
        assert_eq!(r[2], (4, vec!["multi\nline".to_string(), "2".to_string()]));
        assert_eq!(r[3].0, 6);
        let e = split_records("t.csv", "a\n\"open\n").unwrap_err();
        assert!(e.message.contains("line 2"), "{e}");
        let e = split_records("t.csv", "a,b\nx\"y,1\n").unwrap_err();
        assert!(e.message.contains("line 2"), "{e}");
    }

    #[test]
    fn level_order() {
        let v = |xs: &[&str]| xs.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(
            order_levels(v(&["10", "2", "-1", "1"])),
            v(&["-1", "1", "2", "10"])
        );
        assert_eq!(
            order_levels(v(&["10", "2", "4ER+"])),
            v(&["10", "2", "4ER+"])
        );
        assert_eq!(order_levels(v(&["b", "B", "a"])), v(&["B", "a", "b"]));
        assert_eq!(numeric_value("inf"), None);
        assert_eq!(numeric_value("1e-3"), Some(0.001));
    }
}

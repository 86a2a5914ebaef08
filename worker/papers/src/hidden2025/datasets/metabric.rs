//! METABRIC (`dataset: {kind: metabric, path}`): §6 and supplement D of `002_d97ecc788b964f97.txt`,
//! with this preprocessing:
//!
//! - keep the rows whose `Cancer Type` is `Breast Cancer`;
//! - the 12 variables of [`METABRIC_VARIABLES`], renamed, in that order;
//! - drop the rows missing any of the 12 (an empty cell);
//! - AAD (`Age`) in decades `[20,30)`, …, `[80,90)`, `[90,Inf)`, all 8 declared (an age below 20 is
//!   refused, naming its line);
//! - TSI (`Tumor Size`) in `(0,q1]`, `(q1,q2]`, `(q2,q3]`, `(q3,max]` with R's default (type 7)
//!   quartiles of the kept rows (a size ≤ 0 or tied quartiles are refused);
//! - every other column's categories as a `kind: csv` column's (integers numerically, else byte
//!   order), counting the levels present in the kept rows.
//!
//! On `data/metabric/metabric_clinical_kaggle_2509.csv` this leaves 1,839 rows (the paper's file had
//! 1,867), CTD 7 levels, INC 11, TSI 4 (q = 17, 23, 30).

use std::collections::BTreeSet;
use std::path::Path;

use super::DiscreteData;
use super::csv::{CsvRecords, numeric_value, order_levels, read_records};
use crate::params::ParamError;

/// The 12 variables: (name, source column of the Kaggle file), in output order.
pub const METABRIC_VARIABLES: [(&str, &str); 12] = [
    ("TBS", "Type of Breast Surgery"),
    ("CHT", "Chemotherapy"),
    ("DFC", "Patient's Vital Status"),
    ("CTD", "Cancer Type Detailed"),
    ("AAD", "Age"),
    ("TSI", "Tumor Size"),
    ("RTH", "Radio Therapy"),
    ("PTL", "Primary Tumor Laterality"),
    ("INC", "Integrative Cluster"),
    ("IMS", "Inferred Menopausal State"),
    ("HTH", "Hormone Therapy"),
    ("COH", "Cohort"),
];

/// The filter column and the value kept.
pub const CANCER_TYPE: (&str, &str) = ("Cancer Type", "Breast Cancer");

/// The default file, relative to the data directory.
pub const DEFAULT_METABRIC_PATH: &str = "metabric/metabric_clinical_kaggle_2509.csv";

/// R's `quantile(x, p, type = 7)` of sorted `x` (non-empty).
pub fn quantile_type7(sorted: &[f64], p: f64) -> f64 {
    let h = (sorted.len() - 1) as f64 * p;
    let lo = h.floor() as usize;
    let hi = (lo + 1).min(sorted.len() - 1);
    sorted[lo] + (h - lo as f64) * (sorted[hi] - sorted[lo])
}

fn err(file: &str, line: usize, msg: impl std::fmt::Display) -> ParamError {
    ParamError::new("dataset.path", format!("{file}, line {line}: {msg}"))
}

/// Read and preprocess the METABRIC file at `path` (`file` names it in messages).
pub fn read_metabric(path: &Path, file: &str) -> Result<DiscreteData, ParamError> {
    preprocess(&read_records(path, file)?)
}

/// The preprocessing of the module docs on already-read records.
pub fn preprocess(rec: &CsvRecords) -> Result<DiscreteData, ParamError> {
    let file = rec.file.as_str();
    let col = |name: &str| {
        rec.column(name).ok_or_else(|| {
            ParamError::new("dataset.path", format!("{file} has no column {name:?}"))
        })
    };
    let filter = col(CANCER_TYPE.0)?;
    let cols: Vec<usize> = METABRIC_VARIABLES
        .iter()
        .map(|(_, c)| col(c))
        .collect::<Result<_, _>>()?;
    let kept: Vec<&(usize, Vec<String>)> = rec
        .rows
        .iter()
        .filter(|(_, f)| f[filter].trim() == CANCER_TYPE.1)
        .filter(|(_, f)| cols.iter().all(|&c| !f[c].trim().is_empty()))
        .collect();
    if kept.len() < 4 {
        return Err(ParamError::new(
            "dataset.path",
            format!(
                "{file}: {} complete breast-cancer rows: too few",
                kept.len()
            ),
        ));
    }
    let mut levels = Vec::with_capacity(12);
    let mut columns = Vec::with_capacity(12);
    for (&(name, _), &c) in METABRIC_VARIABLES.iter().zip(&cols) {
        let (lv, codes) = match name {
            "AAD" => decades(file, &kept, c)?,
            "TSI" => quartiles(file, &kept, c)?,
            _ => categories(file, name, &kept, c)?,
        };
        levels.push(lv);
        columns.push(codes);
    }
    let names = METABRIC_VARIABLES
        .iter()
        .map(|(n, _)| n.to_string())
        .collect();
    DiscreteData::new(names, levels, columns).map_err(|e| ParamError::new("dataset.path", e))
}

fn number(file: &str, line: usize, name: &str, v: &str) -> Result<f64, ParamError> {
    numeric_value(v.trim()).ok_or_else(|| {
        err(
            file,
            line,
            format!(
                "column {}: {} is not a number",
                crate::data::shown(name),
                crate::data::shown(v)
            ),
        )
    })
}

fn decades(
    file: &str,
    kept: &[&(usize, Vec<String>)],
    c: usize,
) -> Result<(Vec<String>, Vec<u16>), ParamError> {
    let mut lv: Vec<String> = (2..9)
        .map(|d| format!("[{},{})", 10 * d, 10 * d + 10))
        .collect();
    lv.push("[90,Inf)".into());
    let mut codes = Vec::with_capacity(kept.len());
    for (line, f) in kept {
        let age = number(file, *line, "Age", &f[c])?;
        if age < 20.0 {
            return Err(err(
                file,
                *line,
                format!("column \"Age\": {age} is below 20, the first decade's lower bound"),
            ));
        }
        codes.push(((age / 10.0).floor() as usize).clamp(2, 9) as u16 - 2);
    }
    Ok((lv, codes))
}

fn quartiles(
    file: &str,
    kept: &[&(usize, Vec<String>)],
    c: usize,
) -> Result<(Vec<String>, Vec<u16>), ParamError> {
    let mut xs = Vec::with_capacity(kept.len());
    for (line, f) in kept {
        let x = number(file, *line, "Tumor Size", &f[c])?;
        if x <= 0.0 {
            return Err(err(
                file,
                *line,
                format!("column \"Tumor Size\": {x} is not in (0, max]"),
            ));
        }
        xs.push(x);
    }
    let mut sorted = xs.clone();
    sorted.sort_by(f64::total_cmp);
    let q = [
        0.0,
        quantile_type7(&sorted, 0.25),
        quantile_type7(&sorted, 0.5),
        quantile_type7(&sorted, 0.75),
        sorted[sorted.len() - 1],
    ];
    if q.windows(2).any(|w| w[0] >= w[1]) {
        return Err(ParamError::new(
            "dataset.path",
            format!("{file}: tumour-size quartile bins collapse (breaks {q:?})"),
        ));
    }
    let lv = (0..4).map(|b| format!("({},{}]", q[b], q[b + 1])).collect();
    let codes = xs
        .iter()
        .map(|&x| (1..4).filter(|&b| x > q[b]).count() as u16)
        .collect();
    Ok((lv, codes))
}

fn categories(
    file: &str,
    name: &str,
    kept: &[&(usize, Vec<String>)],
    c: usize,
) -> Result<(Vec<String>, Vec<u16>), ParamError> {
    let set: BTreeSet<String> = kept.iter().map(|(_, f)| f[c].trim().to_string()).collect();
    let lv = order_levels(set.into_iter().collect());
    if lv.len() < 2 {
        return Err(ParamError::new(
            "dataset.path",
            format!("{file}: variable {name} has a single level"),
        ));
    }
    let codes = kept
        .iter()
        .map(|(_, f)| lv.iter().position(|l| l == f[c].trim()).unwrap_or(0) as u16)
        .collect();
    Ok((lv, codes))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn type7_quantiles_match_r() {
        // R: quantile(c(1, 2, 4, 7, 11), c(.25, .5, .75)) = 2, 4, 7; quantile(1:4, .25) = 1.75.
        let x = [1.0, 2.0, 4.0, 7.0, 11.0];
        assert_eq!(quantile_type7(&x, 0.25), 2.0);
        assert_eq!(quantile_type7(&x, 0.75), 7.0);
        assert_eq!(quantile_type7(&[1.0, 2.0, 3.0, 4.0], 0.25), 1.75);
    }
}

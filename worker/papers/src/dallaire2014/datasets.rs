//! The datasets of paper `004_74db43a26dbf0fa1.txt` (§5.1 density estimation, §5.2 structure
//! identification): the YAML `dataset` section, parsed with [`parse_dataset`] and built with
//! [`DatasetSpec::build`].
//!
//! The section is an object tagged by `kind` (every split deterministic):
//!
//! | kind | data | train / test (defaults) |
//! |---|---|---|
//! | `ring` | angle U[0, 2π), radius 1 + `noise`·N(0,1), `noise` 0.1 | `n_train` 2000 / `n_test` 2000 independent draws |
//! | `pinwheel` | 4 arms, the recipe of [`synthetic::Pinwheel`], shuffled | `per_class_train` 500 × 4 / `per_class_test` 500 × 4 |
//! | `geyser` | `rdatasets/faithful.csv`: eruptions, waiting | odd / even rows in file order: 136 / 136 |
//! | `iris` | `rdatasets/iris.csv`: the 4 measurements, Species dropped | odd / even: 75 / 75 (25 per species each) |
//! | `abalone` | `abalone/abalone.data`: Sex coded M=1, F=2, I=3, the 7 measurements, Rings | rows 1–`n_rows` (4000), odd / even: 2000 / 2000 |
//! | `ngbn7` | the §5.2 network ([`ngbn7`]), observed u in (−1, 1) | `n_train` 2000 / `n_test` 2000 by ancestral sampling |
//! | `csv` | a user's file with a header row; optional `columns` | `path` split odd / even, or `train` and `test` files |
//! | `none` | `d` observed units and no rows: the posterior is the prior | 0 / none |
//! | `prior_predictive` | `d` observed units, `n` rows drawn from the prior of `params` (SBC only: [`crate::dallaire2014::prior`]) | `n` / none |
//!
//! Choices the paper leaves open (§7), each configurable here:
//! - **Splits.** The paper's were random and unstated ("halved", "75 were used for training and
//!   75 for testing"). Ours are odd rows (1-based, file order) train and even rows test, so they can
//!   be checked against independent computations; synthetic sets are independent draws, training
//!   set first.
//! - **Ring noise** 0.1 (the paper gives no level): `noise`.
//! - **Pinwheel parameters**: the common recipe (radial sd 0.3, tangential sd 0.05, rate 0.25,
//!   scale 10) with the paper's four arms: `classes`, `radial_sd`, `tangential_sd`, `rate`,
//!   `scale`.
//! - **Abalone coding**: the paper's "9 dimensions" ("7 positive continuous dimensions and 2
//!   discrete") imply Sex as one column; we code M = 1, F = 2, I = 3 and keep Rings as a number.
//!   The paper's 2000 + 2000 rows are our rows 1–4000 (`n_rows`), odd / even.
//!
//! Every built dataset has observed matrices `x` (training data, n × d, data units) and `test`
//! (n_test × d), both with `col_names`; `none` has `x` with 0 rows and no `test`. `ngbn7` also
//! ships `true_activations` (n × 7, every true unit's u at the training points), for evaluation
//! only: the sampler aligns its hidden units to them (§5.2's edge table). Truth: `ngbn7`'s
//! true network ([`ngbn7::ngbn7_truth`]); `pinwheel`'s arm of each point, `class_train`
//! (n × 1) and `class_test` (n_test × 1). The data sets live under the data directory
//! (repository `data/`; see `data/rdatasets/README.md` and `data/abalone/README.md`).
//!
//! Bad input is refused on the coordinator before any chain starts, as a [`ParamError`] with path
//! `dataset` or `dataset.<key>`, naming the file, the 1-based line and the column and never
//! echoing a data line ([`table`]): non-numeric, empty, NaN or infinite cells; ragged rows; an
//! unknown Abalone sex code; a constant column in the training set (it cannot be standardized or
//! min-max mapped); fewer than 2 training or test rows.

pub mod ngbn7;
pub mod synthetic;
pub mod table;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use self::synthetic::Pinwheel;
use self::table::{Cells, NumericTable, ReadSpec, check_test, check_training, read_numeric_csv};
use crate::data::{DataContext, Dataset, Matrix};
use crate::params::{ParamError, check_range_usize, parse, split_kind};
use crate::seed::ChainRng;

/// Largest number of rows of one generated set.
pub const MAX_ROWS: usize = 1_000_000;
/// Largest `d` of `kind: none`.
pub const MAX_D: usize = 10_000;
/// Fewest rows of a training or test set (the standardization needs 2 training rows, the k-NN KL
/// needs n_test > k ≥ 1).
pub const MIN_ROWS: usize = 2;

/// Default location of R's `faithful` under the data directory.
pub const GEYSER_PATH: &str = "rdatasets/faithful.csv";
/// Default location of R's `iris`.
pub const IRIS_PATH: &str = "rdatasets/iris.csv";
/// Default location of UCI's Abalone.
pub const ABALONE_PATH: &str = "abalone/abalone.data";
/// Geyser's columns.
pub const GEYSER_COLUMNS: [&str; 2] = ["eruptions", "waiting"];
/// Iris's measurement columns (Species dropped).
pub const IRIS_COLUMNS: [&str; 4] = ["Sepal.Length", "Sepal.Width", "Petal.Length", "Petal.Width"];
/// Abalone's 9 columns, in file order (UCI names; the file has no header).
pub const ABALONE_COLUMNS: [&str; 9] = [
    "Sex",
    "Length",
    "Diameter",
    "Height",
    "Whole weight",
    "Shucked weight",
    "Viscera weight",
    "Shell weight",
    "Rings",
];
/// Abalone's Sex coding: M = 1, F = 2, I (infant) = 3.
pub const ABALONE_SEX_CODES: [(&str, f64); 3] = [("M", 1.0), ("F", 2.0), ("I", 3.0)];

/// `kind: ring` (§5.1).
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct RingSpec {
    /// Training points. Default 2000 (§5.1).
    #[serde(default = "d_2000")]
    pub n_train: usize,
    /// Test points. Default 2000.
    #[serde(default = "d_2000")]
    pub n_test: usize,
    /// sd of the radius noise, ≥ 0. Default 0.1 (the paper gives none).
    #[serde(default = "d_ring_noise")]
    pub noise: f64,
}

/// `kind: pinwheel` (§5.1).
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct PinwheelSpec {
    /// Training points per arm. Default 500 (4 × 500 = the paper's 2000).
    #[serde(default = "d_500")]
    pub per_class_train: usize,
    /// Test points per arm. Default 500.
    #[serde(default = "d_500")]
    pub per_class_test: usize,
    /// Arms. Default 4 (the paper's "four Gaussian distributions").
    #[serde(default = "d_classes")]
    pub classes: usize,
    /// Radial sd, > 0. Default 0.3.
    #[serde(default = "d_radial")]
    pub radial_sd: f64,
    /// Tangential sd, > 0. Default 0.05.
    #[serde(default = "d_tangential")]
    pub tangential_sd: f64,
    /// Rotation rate, finite. Default 0.25.
    #[serde(default = "d_rate")]
    pub rate: f64,
    /// Output scale, > 0. Default 10.
    #[serde(default = "d_scale")]
    pub scale: f64,
}

/// `kind: geyser`, `kind: iris` and `kind: abalone` (§5.1): a file under the data directory.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct FileSpec {
    /// File relative to the data directory. Default [`GEYSER_PATH`], [`IRIS_PATH`] or
    /// [`ABALONE_PATH`].
    #[serde(default)]
    pub path: Option<String>,
    /// Abalone only: the first `n_rows` rows are split. Default 4000 (2000 + 2000, §5.1).
    #[serde(default)]
    pub n_rows: Option<usize>,
}

/// `kind: ngbn7` (§5.2).
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Ngbn7Spec {
    /// Training points. Default 2000.
    #[serde(default = "d_2000")]
    pub n_train: usize,
    /// Test points. Default 2000.
    #[serde(default = "d_2000")]
    pub n_test: usize,
}

/// `kind: csv`: a user's numeric CSV with a header row.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct CsvSpec {
    /// One file, split odd / even rows (like the real datasets). Exclusive with `train`/`test`.
    #[serde(default)]
    pub path: Option<String>,
    /// Training file (with `test`).
    #[serde(default)]
    pub train: Option<String>,
    /// Test file (with `train`); same columns as `train`.
    #[serde(default)]
    pub test: Option<String>,
    /// Columns to keep, in order. Default: every column (all must be numeric).
    #[serde(default)]
    pub columns: Option<Vec<String>>,
}

/// `kind: none`: no data, the posterior is the prior (§6's prior check).
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct NoneSpec {
    /// Observed units d ≥ 1. Required.
    pub d: usize,
}

/// `kind: prior_predictive`: `n` rows of `d` observed units drawn from the model's prior given
/// the cell's `params` (simulation-based calibration, an experiment's `sbc:` block; see
/// [`crate::dallaire2014::prior`]). Only an SBC cell can build it.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct PriorPredictiveSpec {
    /// Observed units d ≥ 1. Required.
    pub d: usize,
    /// Data points N ≥ 0 (0: the posterior is the prior). Required.
    pub n: usize,
}

fn d_2000() -> usize {
    2000
}
fn d_500() -> usize {
    500
}
fn d_ring_noise() -> f64 {
    synthetic::RING_NOISE
}
fn d_classes() -> usize {
    synthetic::PINWHEEL_CLASSES
}
fn d_radial() -> f64 {
    synthetic::PINWHEEL_RADIAL_SD
}
fn d_tangential() -> f64 {
    synthetic::PINWHEEL_TANGENTIAL_SD
}
fn d_rate() -> f64 {
    synthetic::PINWHEEL_RATE
}
fn d_scale() -> f64 {
    synthetic::PINWHEEL_SCALE
}

/// A parsed `dataset` section (module doc).
#[derive(Debug, Clone, PartialEq)]
pub enum DatasetSpec {
    /// `ring`.
    Ring(RingSpec),
    /// `pinwheel`.
    Pinwheel(PinwheelSpec),
    /// `geyser` (R's `faithful`).
    Geyser(FileSpec),
    /// `iris`.
    Iris(FileSpec),
    /// `abalone`.
    Abalone(FileSpec),
    /// `ngbn7` (§5.2).
    Ngbn7(Ngbn7Spec),
    /// `csv`.
    Csv(CsvSpec),
    /// `none`.
    NoData(NoneSpec),
    /// `prior_predictive` (simulation-based calibration).
    PriorPredictive(PriorPredictiveSpec),
}

/// The allowed `kind` values.
pub const DATASET_KINDS: &str =
    "ring, pinwheel, geyser, iris, abalone, ngbn7, csv, none, prior_predictive";

/// Parse and range-check a `dataset` section; no file is read. Errors ([`ParamError`], paths
/// `dataset.kind`, `dataset.<key>`): a missing or unknown kind; an unknown key (the message lists
/// the allowed ones); a size outside 2..=[`MAX_ROWS`]; `noise` < 0; a pinwheel sd or scale ≤ 0;
/// `d` outside 1..=[`MAX_D`]; `n_rows` on another kind than abalone; a data path that is absolute
/// or contains `..`; a `csv` without exactly one of `path` or `train` + `test`; an empty or
/// repeated entry of `columns`.
pub fn parse_dataset(v: &Value) -> Result<DatasetSpec, ParamError> {
    let (kind, rest) = split_kind("dataset", v, DATASET_KINDS)?;
    let rows =
        |key: &str, n: usize| check_range_usize(&format!("dataset.{key}"), n, MIN_ROWS, MAX_ROWS);
    let spec = match kind.as_str() {
        "ring" => {
            let s: RingSpec = parse("dataset", &rest)?;
            rows("n_train", s.n_train)?;
            rows("n_test", s.n_test)?;
            if !(s.noise.is_finite() && s.noise >= 0.0) {
                return Err(ParamError::new(
                    "dataset.noise",
                    format!(
                        "{} is out of range: allowed values are finite and >= 0",
                        s.noise
                    ),
                ));
            }
            DatasetSpec::Ring(s)
        }
        "pinwheel" => {
            let s: PinwheelSpec = parse("dataset", &rest)?;
            check_range_usize("dataset.classes", s.classes, 1, 1000)?;
            check_range_usize("dataset.per_class_train", s.per_class_train, 1, MAX_ROWS)?;
            check_range_usize("dataset.per_class_test", s.per_class_test, 1, MAX_ROWS)?;
            rows("per_class_train", s.per_class_train * s.classes)?;
            rows("per_class_test", s.per_class_test * s.classes)?;
            crate::params::check_positive("dataset.radial_sd", s.radial_sd)?;
            crate::params::check_positive("dataset.tangential_sd", s.tangential_sd)?;
            crate::params::check_positive("dataset.scale", s.scale)?;
            if !s.rate.is_finite() {
                return Err(ParamError::new("dataset.rate", "must be finite"));
            }
            DatasetSpec::Pinwheel(s)
        }
        "geyser" | "iris" | "abalone" => {
            let s: FileSpec = parse("dataset", &rest)?;
            if let Some(p) = &s.path {
                check_path("dataset.path", p)?;
            }
            match (kind.as_str(), s.n_rows) {
                ("abalone", Some(n)) => {
                    check_range_usize("dataset.n_rows", n, 2 * MIN_ROWS, MAX_ROWS)?
                }
                (_, Some(_)) => {
                    return Err(ParamError::new(
                        "dataset.n_rows",
                        format!("is an abalone key; {kind} uses every row of its file"),
                    ));
                }
                _ => {}
            }
            match kind.as_str() {
                "geyser" => DatasetSpec::Geyser(s),
                "iris" => DatasetSpec::Iris(s),
                _ => DatasetSpec::Abalone(s),
            }
        }
        "ngbn7" => {
            let s: Ngbn7Spec = parse("dataset", &rest)?;
            rows("n_train", s.n_train)?;
            rows("n_test", s.n_test)?;
            DatasetSpec::Ngbn7(s)
        }
        "csv" => {
            let s: CsvSpec = parse("dataset", &rest)?;
            match (&s.path, &s.train, &s.test) {
                (Some(p), None, None) => check_path("dataset.path", p)?,
                (None, Some(tr), Some(te)) => {
                    check_path("dataset.train", tr)?;
                    check_path("dataset.test", te)?;
                }
                _ => {
                    return Err(ParamError::new(
                        "dataset",
                        "a csv dataset needs either `path` (one file, split odd/even rows) or \
                         both `train` and `test`",
                    ));
                }
            }
            if let Some(cols) = &s.columns {
                if cols.is_empty() {
                    return Err(ParamError::new(
                        "dataset.columns",
                        "must name at least one column",
                    ));
                }
                for (j, c) in cols.iter().enumerate() {
                    if c.is_empty() || cols[..j].contains(c) {
                        return Err(ParamError::new(
                            format!("dataset.columns[{j}]"),
                            format!("{c:?} is empty or listed twice"),
                        ));
                    }
                }
            }
            DatasetSpec::Csv(s)
        }
        "none" => {
            let s: NoneSpec = parse("dataset", &rest)?;
            check_range_usize("dataset.d", s.d, 1, MAX_D)?;
            DatasetSpec::NoData(s)
        }
        "prior_predictive" => {
            let s: PriorPredictiveSpec = parse("dataset", &rest)?;
            check_range_usize("dataset.d", s.d, 1, MAX_D)?;
            check_range_usize("dataset.n", s.n, 0, MAX_ROWS)?;
            DatasetSpec::PriorPredictive(s)
        }
        other => {
            return Err(ParamError::new(
                "dataset.kind",
                format!("unknown kind {other:?}: allowed values are {DATASET_KINDS}"),
            ));
        }
    };
    Ok(spec)
}

/// Refuse an absolute path or one with `..` without touching the file system (the symlink check
/// runs in [`DataContext::resolve`] at build time).
fn check_path(key: &str, p: &str) -> Result<(), ParamError> {
    let probe = DataContext {
        data_dir: std::path::PathBuf::new(),
    };
    probe
        .resolve(p)
        .map(|_| ())
        .map_err(|e| ParamError::new(key, e))
}

/// Column names `x1`, …, `xd`.
pub(crate) fn generic_names(d: usize) -> Vec<String> {
    (1..=d).map(|j| format!("x{j}")).collect()
}

/// A named `rows × d` matrix with column names.
pub(crate) fn named(name: &str, d: usize, values: Vec<f64>, col_names: Vec<String>) -> Matrix {
    let rows = values.len().checked_div(d).unwrap_or(0);
    let mut m = Matrix::new(name, rows, d, values);
    m.col_names = col_names;
    m
}

/// A dataset from in-memory train and test values (synthetic kinds), after the same checks as
/// files get (file name `what`).
fn from_values(
    what: &str,
    d: usize,
    train: Vec<f64>,
    test: Vec<f64>,
    names: Vec<String>,
) -> Result<Dataset, ParamError> {
    let table = |values: Vec<f64>| NumericTable {
        file: what.to_string(),
        names: names.clone(),
        file_columns: (1..=d).collect(),
        lines: (1..=values.len() / d).collect(),
        values,
    };
    let (tr, te) = (table(train), table(test));
    check_training(&tr, "dataset", MIN_ROWS)?;
    check_test(&te, "dataset", MIN_ROWS)?;
    Ok(Dataset {
        observed: vec![tr.to_matrix("x"), te.to_matrix("test")],
        truth: Vec::new(),
    })
}

/// Train and test tables after the checks.
fn from_tables(
    train: &NumericTable,
    test: &NumericTable,
    key: &str,
) -> Result<Dataset, ParamError> {
    check_training(train, key, MIN_ROWS)?;
    check_test(test, key, MIN_ROWS)?;
    Ok(Dataset {
        observed: vec![train.to_matrix("x"), test.to_matrix("test")],
        truth: Vec::new(),
    })
}

impl DatasetSpec {
    /// [`parse_dataset`].
    pub fn parse(v: &Value) -> Result<Self, ParamError> {
        parse_dataset(v)
    }

    /// Number of observed units d, where it is known without reading a file.
    pub fn d(&self) -> Option<usize> {
        match self {
            DatasetSpec::Ring(_) | DatasetSpec::Pinwheel(_) | DatasetSpec::Geyser(_) => Some(2),
            DatasetSpec::Ngbn7(_) => Some(ngbn7::NGBN7_D),
            DatasetSpec::Iris(_) => Some(IRIS_COLUMNS.len()),
            DatasetSpec::Abalone(_) => Some(ABALONE_COLUMNS.len()),
            DatasetSpec::Csv(s) => s.columns.as_ref().map(Vec::len),
            DatasetSpec::NoData(s) => Some(s.d),
            DatasetSpec::PriorPredictive(s) => Some(s.d),
        }
    }

    /// Build the dataset (module doc): generate from `rng` (ring, pinwheel, ngbn7; the training
    /// set first, then the test set) or read the files through `ctx` ([`DataContext::resolve`]:
    /// no absolute path, no `..`, no symbolic link out of the data directory). Deterministic given
    /// `rng`; the file kinds do not touch it.
    ///
    /// Errors: see the module doc; paths `dataset`, `dataset.path`, `dataset.train`,
    /// `dataset.test`, each message naming the file and, for a bad cell, the line and column.
    pub fn build(&self, ctx: &DataContext, rng: &mut ChainRng) -> Result<Dataset, ParamError> {
        match self {
            DatasetSpec::Ring(s) => {
                let train = synthetic::ring(s.n_train, s.noise, rng);
                let test = synthetic::ring(s.n_test, s.noise, rng);
                from_values("ring", 2, train, test, generic_names(2))
            }
            DatasetSpec::Pinwheel(s) => {
                let p = Pinwheel {
                    classes: s.classes,
                    radial_sd: s.radial_sd,
                    tangential_sd: s.tangential_sd,
                    rate: s.rate,
                    scale: s.scale,
                };
                let (train, class_train) = p.sample(s.per_class_train, rng);
                let (test, class_test) = p.sample(s.per_class_test, rng);
                let mut ds = from_values("pinwheel", 2, train, test, generic_names(2))?;
                let labels = |name: &str, c: Vec<usize>| {
                    Matrix::new(name, c.len(), 1, c.into_iter().map(|c| c as f64).collect())
                };
                ds.truth = vec![
                    labels("class_train", class_train),
                    labels("class_test", class_test),
                ];
                Ok(ds)
            }
            DatasetSpec::Ngbn7(s) => {
                let units = ngbn7::ngbn7_sample_units(s.n_train, rng);
                let train: Vec<f64> = units
                    .chunks_exact(ngbn7::NGBN7_N_UNITS)
                    .flat_map(|u| u[..ngbn7::NGBN7_D].to_vec())
                    .collect();
                let test = ngbn7::ngbn7_sample(s.n_test, rng);
                let names = ngbn7::NGBN7_UNITS[..ngbn7::NGBN7_D]
                    .iter()
                    .map(|s| (*s).to_string())
                    .collect();
                let mut ds = from_values("ngbn7", ngbn7::NGBN7_D, train, test, names)?;
                ds.truth = ngbn7::ngbn7_truth();
                let mut acts =
                    Matrix::new("true_activations", s.n_train, ngbn7::NGBN7_N_UNITS, units);
                acts.col_names = ngbn7::NGBN7_UNITS.map(String::from).to_vec();
                // Shipped to the workers with the data (truth never is), for evaluation
                // only, like `test`: the sampler aligns its hidden units to these to count
                // §5.2's edge frequencies, and its moves never read them.
                ds.observed.push(acts);
                Ok(ds)
            }
            DatasetSpec::Geyser(s) => {
                let cols: Vec<String> = GEYSER_COLUMNS.iter().map(|c| (*c).to_string()).collect();
                file_split(ctx, s.path.as_deref().unwrap_or(GEYSER_PATH), &cols)
            }
            DatasetSpec::Iris(s) => {
                let cols: Vec<String> = IRIS_COLUMNS.iter().map(|c| (*c).to_string()).collect();
                file_split(ctx, s.path.as_deref().unwrap_or(IRIS_PATH), &cols)
            }
            DatasetSpec::Abalone(s) => {
                let path = s.path.as_deref().unwrap_or(ABALONE_PATH);
                let file = ctx
                    .resolve(path)
                    .map_err(|e| ParamError::new("dataset.path", e))?;
                let codes = [("Sex", Cells::Codes(&ABALONE_SEX_CODES))];
                let table = read_numeric_csv(
                    &file,
                    &ReadSpec {
                        key: "dataset.path",
                        names: Some(&ABALONE_COLUMNS),
                        columns: None,
                        codes: &codes,
                        max_rows: Some(s.n_rows.unwrap_or(4000)),
                    },
                )?;
                let (train, test) = table.split_odd_even();
                from_tables(&train, &test, "dataset.path")
            }
            DatasetSpec::Csv(s) => match (&s.path, &s.train, &s.test) {
                (Some(p), _, _) => file_split(ctx, p, s.columns.as_deref().unwrap_or(&[])),
                (None, Some(tr), Some(te)) => csv_pair(ctx, tr, te, s.columns.as_deref()),
                _ => Err(ParamError::new(
                    "dataset",
                    "a csv dataset needs either `path` or both `train` and `test`",
                )),
            },
            DatasetSpec::NoData(s) => Ok(Dataset {
                observed: vec![named("x", s.d, Vec::new(), generic_names(s.d))],
                truth: Vec::new(),
            }),
            DatasetSpec::PriorPredictive(_) => Err(ParamError::new(
                "dataset.kind",
                "prior_predictive data are drawn from the prior of params: use it in an \
                 experiment with an sbc: block",
            )),
        }
    }
}

/// Read one header file (`columns` empty = every column) and split it odd / even.
fn file_split(ctx: &DataContext, path: &str, columns: &[String]) -> Result<Dataset, ParamError> {
    let file = ctx
        .resolve(path)
        .map_err(|e| ParamError::new("dataset.path", e))?;
    let table = read_numeric_csv(
        &file,
        &ReadSpec {
            key: "dataset.path",
            names: None,
            columns: (!columns.is_empty()).then_some(columns),
            codes: &[],
            max_rows: None,
        },
    )?;
    let (train, test) = table.split_odd_even();
    from_tables(&train, &test, "dataset.path")
}

/// `csv` with separate `train` and `test` files: without `columns`, both headers must be
/// identical (names and order); with `columns`, both files must have them.
fn csv_pair(
    ctx: &DataContext,
    train: &str,
    test: &str,
    columns: Option<&[String]>,
) -> Result<Dataset, ParamError> {
    let read = |key: &str, path: &str, columns: Option<&[String]>| {
        let file = ctx.resolve(path).map_err(|e| ParamError::new(key, e))?;
        read_numeric_csv(
            &file,
            &ReadSpec {
                key,
                names: None,
                columns,
                codes: &[],
                max_rows: None,
            },
        )
    };
    let tr = read("dataset.train", train, columns)?;
    let te = read("dataset.test", test, columns)?;
    if te.names != tr.names {
        return Err(ParamError::new(
            "dataset.test",
            format!(
                "the header of {} differs from that of the training file {}: use the same \
                 columns in the same order, or select them with `columns`",
                te.file, tr.file
            ),
        ));
    }
    check_training(&tr, "dataset.train", MIN_ROWS)?;
    check_test(&te, "dataset.test", MIN_ROWS)?;
    Ok(Dataset {
        observed: vec![tr.to_matrix("x"), te.to_matrix("test")],
        truth: Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn dallaire2014_dataset_specs_parse_with_defaults_and_refuse_bad_keys() {
        let s = parse_dataset(&json!({"kind": "ring"})).unwrap();
        assert_eq!(
            s,
            DatasetSpec::Ring(RingSpec {
                n_train: 2000,
                n_test: 2000,
                noise: 0.1
            })
        );
        assert_eq!(s.d(), Some(2));
        let e = parse_dataset(&json!({"kind": "ring", "nosie": 0.2})).unwrap_err();
        assert_eq!(e.path, "dataset.nosie");
        assert!(
            e.message.contains("nosie") && e.message.contains("noise"),
            "{e}"
        );
        let e = parse_dataset(&json!({"kind": "ring", "n_train": 1})).unwrap_err();
        assert_eq!(e.path, "dataset.n_train");
        let e = parse_dataset(&json!({"kind": "ring", "noise": -0.1})).unwrap_err();
        assert_eq!(e.path, "dataset.noise");
        let e = parse_dataset(&json!({"kind": "rings"})).unwrap_err();
        assert_eq!(e.path, "dataset.kind");
        let e = parse_dataset(&json!({"n_train": 5})).unwrap_err();
        assert_eq!(e.path, "dataset.kind");
        let e = parse_dataset(&json!({"kind": "pinwheel", "radial_sd": 0})).unwrap_err();
        assert_eq!(e.path, "dataset.radial_sd");
        let e = parse_dataset(&json!({"kind": "iris", "n_rows": 10})).unwrap_err();
        assert_eq!(e.path, "dataset.n_rows");
        let e = parse_dataset(&json!({"kind": "geyser", "path": "../x.csv"})).unwrap_err();
        assert_eq!(e.path, "dataset.path");
        let e =
            parse_dataset(&json!({"kind": "csv", "path": "a.csv", "train": "b.csv"})).unwrap_err();
        assert_eq!(e.path, "dataset");
        let e = parse_dataset(&json!({"kind": "csv", "train": "/etc/passwd", "test": "b.csv"}))
            .unwrap_err();
        assert_eq!(e.path, "dataset.train");
        let e = parse_dataset(&json!({"kind": "csv", "path": "a.csv", "columns": ["a", "a"]}))
            .unwrap_err();
        assert_eq!(e.path, "dataset.columns[1]");
        let e = parse_dataset(&json!({"kind": "none"})).unwrap_err();
        assert!(
            e.path.starts_with("dataset") && e.message.contains('d'),
            "{e}"
        );
        let e = parse_dataset(&json!({"kind": "none", "d": 0})).unwrap_err();
        assert_eq!(e.path, "dataset.d");
        assert_eq!(
            parse_dataset(&json!({"kind": "abalone"})).unwrap().d(),
            Some(9)
        );
    }
}

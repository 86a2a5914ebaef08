//! Dataset specifications (`dataset` in the YAML) and how each is built.
//!
//! The spec is a JSON object tagged by `kind`:
//! - `ibp_synthetic` (§5, Figure 3): Z from IBP(α) with exactly `k_plus` causes (rejection
//!   sampling), Y from Eq. 4, X from Eq. 3.
//! - `fixed_structure` (§5, Figure 4): a given Z, then Y and X as above.
//! - `binary_csv` (§6 / LUCAS): a header CSV of 0/1 columns, some of which are hidden.
//!
//! Observed: `x`, N observed × T trials, 0.0/1.0. Truth: `z` (N × K_+) and `y` (K_+ × T) for the
//! synthetic kinds; `hidden` (n_hidden × T, row names = hidden column names) for `binary_csv`.

use super::equations::{ibp_existing_dish_prob, ibp_new_dish_rate, prob_x_one};
use crate::data::{DataContext, Dataset, Matrix};
use crate::params::{
    ParamError, check_open_unit, check_positive, check_range_usize, parse, split_kind,
};
use crate::seed::ChainRng;
use crate::wood2006::params::{d_alpha, d_epsilon, d_lambda, d_p};
use rand::RngExt;
use rand_distr::{Distribution, Poisson};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::path::PathBuf;

/// Upper bound on N × T for synthetic data (memory guard: 10⁸ entries).
pub const MAX_ENTRIES: usize = 100_000_000;

/// `kind: ibp_synthetic`. Defaults are the paper's §5 settings.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct IbpSynthetic {
    /// N, number of observed variables (rows of X). Required, ≥ 1.
    pub n_observed: usize,
    /// T, number of trials (columns of X). Default 500 (§5).
    #[serde(default = "d_trials")]
    pub n_trials: usize,
    /// IBP concentration α > 0. Default 3 (§5).
    #[serde(default = "d_alpha")]
    pub alpha: f64,
    /// λ ∈ (0, 1). Default 0.9.
    #[serde(default = "d_lambda")]
    pub lambda: f64,
    /// ε ∈ (0, 1). Default 0.01.
    #[serde(default = "d_epsilon")]
    pub epsilon: f64,
    /// p ∈ (0, 1). Default 0.1.
    #[serde(default = "d_p")]
    pub p: f64,
    /// Exact number of hidden causes K_+ of the true Z. Required.
    pub k_plus: usize,
    /// Cap on IBP draws in the rejection sampler. Default 100000.
    #[serde(default = "d_attempts")]
    pub max_attempts: u64,
}

/// `kind: fixed_structure`.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct FixedStructure {
    /// A name for tables and figures (e.g. `degree-1 (K=6)`); does not affect the data.
    #[serde(default)]
    pub label: Option<String>,
    /// The true Z as a list of N rows of K entries, each 0 or 1. Required.
    pub z: Vec<Vec<u8>>,
    /// T. Default 500.
    #[serde(default = "d_trials")]
    pub n_trials: usize,
    /// λ ∈ (0, 1). Default 0.9.
    #[serde(default = "d_lambda")]
    pub lambda: f64,
    /// ε ∈ (0, 1). Default 0.01.
    #[serde(default = "d_epsilon")]
    pub epsilon: f64,
    /// p ∈ (0, 1). Default 0.1.
    #[serde(default = "d_p")]
    pub p: f64,
}

/// `kind: prior_predictive`: only the shape; Z, Y, X and the hyperparameters are drawn from the
/// prior of the cell's `params` (simulation-based calibration, an experiment's `sbc:` block; see
/// [`crate::wood2006::prior`]).
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct PriorPredictive {
    /// N, observed variables. Required, ≥ 1.
    pub n_observed: usize,
    /// T, trials. Default 500.
    #[serde(default = "d_trials")]
    pub n_trials: usize,
}

/// `kind: binary_csv`.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct BinaryCsv {
    /// CSV file relative to the data directory (no `..`, not absolute). First line: column names;
    /// then one line per trial of 0/1 values. Required.
    pub path: String,
    /// Column names withheld from X and returned as truth `hidden`. Default none.
    #[serde(default)]
    pub hide: Vec<String>,
}

fn d_trials() -> usize {
    500
}
fn d_attempts() -> u64 {
    100_000
}

/// A parsed `dataset` spec.
#[derive(Debug, Clone, PartialEq)]
pub enum DatasetSpec {
    /// `kind: ibp_synthetic` (§5, Figure 3).
    IbpSynthetic(IbpSynthetic),
    /// `kind: fixed_structure` (§5, Figure 4).
    FixedStructure(FixedStructure),
    /// `kind: binary_csv` (real binary data, e.g. LUCAS).
    BinaryCsv(BinaryCsv),
    /// `kind: prior_predictive` (SBC only).
    PriorPredictive(PriorPredictive),
}

const KINDS: &str = "ibp_synthetic, fixed_structure, binary_csv, prior_predictive";

impl DatasetSpec {
    /// Parse and range-check a `dataset` object. Errors carry paths such as `dataset.kind`,
    /// `dataset.n_observed`, `dataset.z[2][1]`.
    pub fn from_json(value: &Value) -> Result<DatasetSpec, ParamError> {
        let (kind, rest) = split_kind("dataset", value, KINDS)?;
        let spec = match kind.as_str() {
            "ibp_synthetic" => DatasetSpec::IbpSynthetic(parse("dataset", &rest)?),
            "fixed_structure" => DatasetSpec::FixedStructure(parse("dataset", &rest)?),
            "binary_csv" => DatasetSpec::BinaryCsv(parse("dataset", &rest)?),
            "prior_predictive" => DatasetSpec::PriorPredictive(parse("dataset", &rest)?),
            other => {
                return Err(ParamError::new(
                    "dataset.kind",
                    format!("unknown kind {other:?}: allowed values are {KINDS}"),
                ));
            }
        };
        spec.check()?;
        Ok(spec)
    }

    /// Range checks (no file access).
    pub fn check(&self) -> Result<(), ParamError> {
        match self {
            DatasetSpec::IbpSynthetic(s) => {
                check_range_usize("dataset.n_observed", s.n_observed, 1, 100_000)?;
                check_range_usize("dataset.n_trials", s.n_trials, 1, MAX_ENTRIES)?;
                check_entries(s.n_observed, s.n_trials)?;
                check_positive("dataset.alpha", s.alpha)?;
                check_open_unit("dataset.lambda", s.lambda)?;
                check_open_unit("dataset.epsilon", s.epsilon)?;
                check_open_unit("dataset.p", s.p)?;
                check_range_usize("dataset.k_plus", s.k_plus, 0, 10_000)?;
                if s.max_attempts == 0 || s.max_attempts > 1_000_000_000 {
                    return Err(ParamError::new(
                        "dataset.max_attempts",
                        format!(
                            "{} is out of range: allowed values are 1..=1000000000",
                            s.max_attempts
                        ),
                    ));
                }
            }
            DatasetSpec::FixedStructure(s) => {
                if s.z.is_empty() {
                    return Err(ParamError::new("dataset.z", "must have at least one row"));
                }
                let k = s.z[0].len();
                if k == 0 {
                    return Err(ParamError::new(
                        "dataset.z[0]",
                        "must have at least one column",
                    ));
                }
                for (i, row) in s.z.iter().enumerate() {
                    if row.len() != k {
                        return Err(ParamError::new(
                            format!("dataset.z[{i}]"),
                            format!(
                                "has {} entries but row 0 has {k}: Z must be rectangular (N rows × K causes)",
                                row.len()
                            ),
                        ));
                    }
                    if let Some(j) = row.iter().position(|&v| v > 1) {
                        return Err(ParamError::new(
                            format!("dataset.z[{i}][{j}]"),
                            format!("{} is out of range: allowed values are 0 and 1", row[j]),
                        ));
                    }
                }
                check_range_usize("dataset.n_trials", s.n_trials, 1, MAX_ENTRIES)?;
                check_entries(s.z.len(), s.n_trials)?;
                check_open_unit("dataset.lambda", s.lambda)?;
                check_open_unit("dataset.epsilon", s.epsilon)?;
                check_open_unit("dataset.p", s.p)?;
            }
            DatasetSpec::PriorPredictive(s) => {
                check_range_usize("dataset.n_observed", s.n_observed, 1, 100_000)?;
                check_range_usize("dataset.n_trials", s.n_trials, 1, MAX_ENTRIES)?;
                check_entries(s.n_observed, s.n_trials)?;
            }
            DatasetSpec::BinaryCsv(s) => {
                let probe = DataContext {
                    data_dir: PathBuf::new(),
                };
                probe
                    .resolve(&s.path)
                    .map_err(|e| ParamError::new("dataset.path", e))?;
                for (j, h) in s.hide.iter().enumerate() {
                    if s.hide[..j].contains(h) {
                        return Err(ParamError::new(
                            format!("dataset.hide[{j}]"),
                            format!("{h:?} is listed twice"),
                        ));
                    }
                }
            }
        }
        Ok(())
    }

    /// Build one replicate: generate from `rng` (synthetic kinds) or read the CSV from `ctx`.
    /// Errors: `prior_predictive` (its data come from [`crate::sbc::build_dataset`]); rejection sampling exhausted (`dataset.k_plus`), unreadable or malformed CSV
    /// (`dataset.path`, message names the file and line), unknown hidden column (`dataset.hide`).
    pub fn build(&self, ctx: &DataContext, rng: &mut ChainRng) -> Result<Dataset, ParamError> {
        match self {
            DatasetSpec::IbpSynthetic(s) => {
                let (z, _) =
                    sample_ibp_with_k_plus(s.alpha, s.n_observed, s.k_plus, s.max_attempts, rng)
                        .map_err(|e| ParamError::new("dataset.k_plus", e))?;
                synthetic(z, s.n_trials, s.lambda, s.epsilon, s.p, rng)
            }
            DatasetSpec::FixedStructure(s) => {
                let n = s.z.len();
                let k = s.z[0].len();
                let z = BinaryMatrix {
                    rows: n,
                    cols: k,
                    data: s.z.iter().flatten().copied().collect(),
                };
                synthetic(z, s.n_trials, s.lambda, s.epsilon, s.p, rng)
            }
            DatasetSpec::BinaryCsv(s) => {
                let path = ctx
                    .resolve(&s.path)
                    .map_err(|e| ParamError::new("dataset.path", e))?;
                read_binary_csv(&path, &s.hide)
            }
            DatasetSpec::PriorPredictive(_) => Err(ParamError::new(
                "dataset.kind",
                "prior_predictive data are drawn from the prior of params: use it in an \
                 experiment with an sbc: block",
            )),
        }
    }
}

fn check_entries(n: usize, t: usize) -> Result<(), ParamError> {
    if n.saturating_mul(t) > MAX_ENTRIES {
        return Err(ParamError::new(
            "dataset.n_trials",
            format!("N × T = {n} × {t} exceeds the limit of {MAX_ENTRIES} entries"),
        ));
    }
    Ok(())
}

fn synthetic(
    z: BinaryMatrix,
    t: usize,
    lambda: f64,
    epsilon: f64,
    p: f64,
    rng: &mut ChainRng,
) -> Result<Dataset, ParamError> {
    let y = sample_y(z.cols, t, p, rng);
    let x = sample_x(&z, &y, lambda, epsilon, rng).map_err(|e| ParamError::new("dataset", e))?;
    Ok(Dataset {
        observed: vec![x.to_matrix("x")],
        truth: vec![z.to_matrix("z"), y.to_matrix("y")],
    })
}

/// Read a header CSV of 0/1 columns (rows = trials, columns = variables). Returns observed `x`
/// (kept variables × trials, row names = variable names) and, if `hide` is not empty, truth
/// `hidden` (hidden variables × trials, row names = their names, in `hide` order).
///
/// Errors (path `dataset.path` or `dataset.hide[j]`), each naming the file: unreadable file, empty
/// file, duplicate or empty column names, a line with the wrong number of fields, a value other
/// than `0`/`1`, no data rows, an unknown hidden column, nothing left to observe.
pub fn read_binary_csv(path: &std::path::Path, hide: &[String]) -> Result<Dataset, ParamError> {
    let shown = path.display();
    let err = |msg: String| ParamError::new("dataset.path", format!("{shown}: {msg}"));
    let text = std::fs::read_to_string(path).map_err(|e| err(format!("cannot read: {e}")))?;
    let mut lines = text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty());
    let (_, header) = lines
        .next()
        .ok_or_else(|| err("empty file (expected a header line)".into()))?;
    let names: Vec<String> = header
        .split(',')
        .map(|s| s.trim().trim_matches('"').to_string())
        .collect();
    for (j, nm) in names.iter().enumerate() {
        if nm.is_empty() {
            return Err(err(format!("column {} of the header has no name", j + 1)));
        }
        if names[..j].contains(nm) {
            return Err(err(format!(
                "column name {} appears twice in the header",
                crate::data::shown(nm)
            )));
        }
    }
    let ncol = names.len();
    // columns[j] = values of variable j over trials
    let mut columns: Vec<Vec<u8>> = vec![Vec::new(); ncol];
    for (lineno, line) in lines {
        let fields: Vec<&str> = line.split(',').collect();
        if fields.len() != ncol {
            return Err(err(format!(
                "line {} has {} fields, the header has {ncol}",
                lineno + 1,
                fields.len()
            )));
        }
        for (j, f) in fields.iter().enumerate() {
            let v = match f.trim().trim_matches('"') {
                "0" => 0,
                "1" => 1,
                other => {
                    return Err(err(format!(
                        "line {}, column {} {}: value {} is not binary (allowed values are 0 and 1)",
                        lineno + 1,
                        j + 1,
                        crate::data::shown(&names[j]),
                        crate::data::shown(other)
                    )));
                }
            };
            columns[j].push(v);
        }
    }
    let t = columns.first().map_or(0, Vec::len);
    if t == 0 {
        return Err(err("no data rows after the header".into()));
    }
    let mut hidden_idx = Vec::with_capacity(hide.len());
    for (j, h) in hide.iter().enumerate() {
        match names.iter().position(|n| n == h) {
            Some(c) => hidden_idx.push(c),
            None => {
                return Err(ParamError::new(
                    format!("dataset.hide[{j}]"),
                    format!(
                        "{shown} has no column {h:?}: its columns are {}",
                        names.join(", ")
                    ),
                ));
            }
        }
    }
    let kept: Vec<usize> = (0..ncol).filter(|c| !hidden_idx.contains(c)).collect();
    if kept.is_empty() {
        return Err(ParamError::new(
            "dataset.hide",
            format!("{shown}: every column is hidden; nothing is left to observe"),
        ));
    }
    let mk = |name: &str, idx: &[usize]| -> Matrix {
        let mut m = Matrix::new(
            name,
            idx.len(),
            t,
            idx.iter()
                .flat_map(|&c| columns[c].iter().map(|&v| f64::from(v)))
                .collect(),
        );
        m.row_names = idx.iter().map(|&c| names[c].clone()).collect();
        m
    };
    let mut ds = Dataset {
        observed: vec![mk("x", &kept)],
        truth: Vec::new(),
    };
    if !hidden_idx.is_empty() {
        ds.truth.push(mk("hidden", &hidden_idx));
    }
    Ok(ds)
}

// ----------------------------------------------------------------------------------------------
// Dense binary matrices (`X`, `Z`, `Y` of the paper) and their conversion to [`Matrix`].

/// A dense 0/1 matrix, row-major, `rows × cols`, one byte per entry (0 or 1).
///
/// Used for `X` (N observed × T trials), `Z` (N observed × K causes) and `Y` (K causes × T
/// trials) of Wood et al. (2006), §2.
#[derive(Debug, Clone, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub struct BinaryMatrix {
    /// Number of rows.
    pub rows: usize,
    /// Number of columns.
    pub cols: usize,
    /// Row-major entries, each 0 or 1; `data.len() == rows * cols`.
    pub data: Vec<u8>,
}

impl BinaryMatrix {
    /// An all-zero `rows × cols` matrix.
    pub fn zeros(rows: usize, cols: usize) -> Self {
        BinaryMatrix {
            rows,
            cols,
            data: vec![0; rows * cols],
        }
    }

    /// Entry `(i, j)` (panics if out of bounds, like slice indexing).
    pub fn get(&self, i: usize, j: usize) -> u8 {
        self.data[i * self.cols + j]
    }

    /// Set entry `(i, j)` to `v != 0`.
    pub fn set(&mut self, i: usize, j: usize, v: u8) {
        self.data[i * self.cols + j] = u8::from(v != 0);
    }

    /// Row `i` as a slice of length `cols`.
    pub fn row(&self, i: usize) -> &[u8] {
        &self.data[i * self.cols..(i + 1) * self.cols]
    }

    /// Convert to a named [`Matrix`] of 0.0/1.0 values.
    pub fn to_matrix(&self, name: &str) -> Matrix {
        Matrix::new(
            name,
            self.rows,
            self.cols,
            self.data.iter().map(|&v| f64::from(v)).collect(),
        )
    }

    /// Read a [`Matrix`] whose values are all exactly 0.0 or 1.0. Errors name the matrix and the
    /// first offending entry.
    pub fn from_matrix(m: &Matrix) -> Result<Self, String> {
        m.check()?;
        let mut data = Vec::with_capacity(m.values.len());
        for (j, &v) in m.values.iter().enumerate() {
            if v == 0.0 {
                data.push(0);
            } else if v == 1.0 {
                data.push(1);
            } else {
                return Err(format!(
                    "matrix {}: entry ({}, {}) is {v}; allowed values are 0 and 1",
                    m.name,
                    j / m.cols.max(1),
                    j % m.cols.max(1)
                ));
            }
        }
        Ok(BinaryMatrix {
            rows: m.rows,
            cols: m.cols,
            data,
        })
    }

    /// The transpose (`cols × rows`).
    pub fn transpose(&self) -> Self {
        let mut t = BinaryMatrix::zeros(self.cols, self.rows);
        for i in 0..self.rows {
            for j in 0..self.cols {
                t.data[j * self.rows + i] = self.data[i * self.cols + j];
            }
        }
        t
    }

    /// Number of ones.
    pub fn count_ones(&self) -> u64 {
        self.data.iter().map(|&v| u64::from(v)).sum()
    }
}

// ----------------------------------------------------------------------------------------------
// The generative model of §3: Z from the Indian buffet process (§3.2), Y from Eq. 4, X from the
// noisy-OR of Eq. 3. Used to build synthetic datasets (§5) and by the Geweke tests.

/// Draw a Poisson(rate) count; `rate ≤ 0` gives 0. Errors if the rate is not finite or too large
/// for rand_distr.
fn poisson<R: rand::Rng + ?Sized>(rate: f64, rng: &mut R) -> Result<usize, String> {
    if rate <= 0.0 {
        return Ok(0);
    }
    let d = Poisson::new(rate).map_err(|e| format!("Poisson({rate}): {e}"))?;
    let v: f64 = d.sample(rng);
    Ok(v as usize)
}

/// Draw Z (N observed × K_+ causes) from IBP(α) with N customers (§3.2): customer `i` takes each
/// previous dish with probability `m_k / i` and `Poisson(α / i)` new dishes. Columns come in order
/// of first appearance (left-ordered by first customer). If `stop_above` is given, the draw is
/// abandoned (returns `Ok(None)`) as soon as more than that many dishes exist.
///
/// Errors: α not finite and positive.
pub fn sample_ibp<R: rand::Rng + ?Sized>(
    alpha: f64,
    n: usize,
    stop_above: Option<usize>,
    rng: &mut R,
) -> Result<Option<BinaryMatrix>, String> {
    if !(alpha > 0.0 && alpha.is_finite()) {
        return Err(format!(
            "IBP concentration must be positive and finite, got {alpha}"
        ));
    }
    // columns[k] = rows that took dish k
    let mut columns: Vec<Vec<usize>> = Vec::new();
    for i in 1..=n {
        for col in columns.iter_mut() {
            if rng.random::<f64>() < ibp_existing_dish_prob(col.len(), i) {
                col.push(i - 1);
            }
        }
        let new = poisson(ibp_new_dish_rate(alpha, i), rng)?;
        if let Some(cap) = stop_above
            && columns.len() + new > cap
        {
            return Ok(None);
        }
        for _ in 0..new {
            columns.push(vec![i - 1]);
        }
    }
    let mut z = BinaryMatrix::zeros(n, columns.len());
    for (k, col) in columns.iter().enumerate() {
        for &i in col {
            z.set(i, k, 1);
        }
    }
    Ok(Some(z))
}

/// Rejection sampling of Z from IBP(α) conditioned on exactly `k_plus` non-zero columns (§5):
/// draw until `K_+ = k_plus`, at most `max_attempts` times. Returns the draw and the number of
/// attempts used. Errors: α invalid, or no draw hit `k_plus` (the message gives the prior mean
/// `α H_N` of `K_+`).
pub fn sample_ibp_with_k_plus<R: rand::Rng + ?Sized>(
    alpha: f64,
    n: usize,
    k_plus: usize,
    max_attempts: u64,
    rng: &mut R,
) -> Result<(BinaryMatrix, u64), String> {
    for attempt in 1..=max_attempts {
        if let Some(z) = sample_ibp(alpha, n, Some(k_plus), rng)?
            && z.cols == k_plus
        {
            return Ok((z, attempt));
        }
    }
    Err(format!(
        "no IBP(alpha = {alpha}) draw with N = {n} had exactly K+ = {k_plus} non-zero columns in {max_attempts} \
         attempts (the prior mean of K+ is alpha * H_N = {:.2}); choose k_plus nearer that mean or raise \
         max_attempts",
        alpha * super::equations::harmonic(n)
    ))
}

/// Draw Y (K causes × T trials) with i.i.d. Bernoulli(p) entries (Eq. 4).
pub fn sample_y<R: rand::Rng + ?Sized>(k: usize, t: usize, p: f64, rng: &mut R) -> BinaryMatrix {
    let mut y = BinaryMatrix::zeros(k, t);
    for v in y.data.iter_mut() {
        *v = u8::from(rng.random::<f64>() < p);
    }
    y
}

/// Draw X (N observed × T trials) from the noisy-OR of Eq. 3 given Z (N × K) and Y (K × T):
/// `P(x_{i,t} = 1) = 1 − (1−λ)^{z_{i,:}·y_{:,t}} (1−ε)`. Errors if the inner dimensions differ.
pub fn sample_x<R: rand::Rng + ?Sized>(
    z: &BinaryMatrix,
    y: &BinaryMatrix,
    lambda: f64,
    epsilon: f64,
    rng: &mut R,
) -> Result<BinaryMatrix, String> {
    if z.cols != y.rows {
        return Err(format!(
            "Z has {} columns but Y has {} rows",
            z.cols, y.rows
        ));
    }
    let (n, t) = (z.rows, y.cols);
    let mut x = BinaryMatrix::zeros(n, t);
    for i in 0..n {
        for tt in 0..t {
            let eta: u32 = (0..z.cols)
                .map(|k| u32::from(z.get(i, k) & y.get(k, tt)))
                .sum();
            let p1 = prob_x_one(eta, lambda, epsilon);
            x.set(i, tt, u8::from(rng.random::<f64>() < p1));
        }
    }
    Ok(x)
}

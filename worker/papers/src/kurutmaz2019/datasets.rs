//! Datasets of §5: synthetic pairs drawn from the model (§5.2–5.3), the Tuebingen Cause-Effect
//! Pairs (§5.4) and UCI Abalone (§5.5). Every dataset has one observed matrix `x`, 2 × T (row 0
//! = A, row 1 = B).
//!
//! Source: `003_bf1ce321478f8175.txt` ch. 5; `data/cep/README.md`, `data/abalone/README.md`.

use std::sync::Arc;

use rand::RngExt;
use rand_distr::{Distribution, Gamma, Normal};
use serde::Deserialize;
use serde_json::Value;

use crate::data::{DataContext, Dataset, Matrix};
use crate::kurutmaz2019::hyper::{Hyper, Hypothesis};
use crate::kurutmaz2019::hyper::{HyperKeys, resolve_hyper};
use crate::params::{ParamError, check_range_usize, parse};
use crate::seed::ChainRng;

/// `kind: synthetic` — data drawn from the generative model of App. B.3 (no standardisation).
/// Keys: `hypothesis`, `n_latent` (1..=5), `n_observations` (T ≥ 1), `setting` or `a1, b1, a2,
/// b2`, `gamma` (10), `m` (0), `lambda` (0.1). Truth: `r` (T × 1, labels 0..R−1), `hypothesis`
/// (1 × 1: 0 a_to_b, 1 b_to_a, 2 spurious), `pi` (R × 1, the drawn mixture weights).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SyntheticSpec {
    /// Always `synthetic`.
    pub kind: String,
    /// The generating network.
    pub hypothesis: Hypothesis,
    /// R.
    pub n_latent: usize,
    /// T.
    pub n_observations: usize,
    /// Table 5.1 setting (1..=36); exclusive with `a1, b1, a2, b2`.
    #[serde(default)]
    pub setting: Option<usize>,
    /// Cause's Gamma shape.
    #[serde(default)]
    pub a1: Option<f64>,
    /// Cause's Gamma rate.
    #[serde(default)]
    pub b1: Option<f64>,
    /// Effect's Gamma shape.
    #[serde(default)]
    pub a2: Option<f64>,
    /// Effect's Gamma rate.
    #[serde(default)]
    pub b2: Option<f64>,
    /// Dirichlet concentration γ (default 10).
    #[serde(default = "crate::kurutmaz2019::hyper::default_gamma")]
    pub gamma: f64,
    /// Prior mean m (default 0).
    #[serde(default)]
    pub m: f64,
    /// Prior precision scaling λ (default 0.1).
    #[serde(default = "crate::kurutmaz2019::hyper::default_lambda")]
    pub lambda: f64,
}

impl SyntheticSpec {
    fn keys(&self) -> HyperKeys {
        HyperKeys {
            setting: self.setting,
            a1: self.a1,
            b1: self.b1,
            a2: self.a2,
            b2: self.b2,
            gamma: self.gamma,
            m: self.m,
            lambda: self.lambda,
        }
    }
}

/// `kind: cep` — one Tuebingen pair, A (cause) in row 0 and B (effect) in row 1.
/// Keys: `pair` (cdt id `pair1`..`pair99`), `path` (`cep/Tuebingen_pairs.csv`), `meta_path`
/// (`cep/pairs_meta.csv`), `standardize` (true: each row to mean 0, sample sd (n − 1) 1, as the
/// author did). Truth: `hypothesis` (1 × 1, 0: A → B), `weight` (the thesis's pair weight),
/// `weight_v1`, `original_id` (the dataset's pair number), `in_thesis_set` (0/1), all 1 × 1.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CepSpec {
    /// Always `cep`.
    pub kind: String,
    /// cdt id, e.g. `pair1`.
    pub pair: String,
    /// Pairs CSV, relative to the data directory.
    #[serde(default = "default_cep_path")]
    pub path: String,
    /// Meta CSV, relative to the data directory.
    #[serde(default = "default_cep_meta")]
    pub meta_path: String,
    /// Standardise each variable (default true).
    #[serde(default = "yes")]
    pub standardize: bool,
}

/// `kind: abalone` — two UCI Abalone measurements (§5.5 uses `whole` and `height`).
/// Keys: `variables` (two of length, diameter, height, whole, shucked, viscera, shell, rings),
/// `path` (`abalone/abalone.data`), `standardize` (true). Truth: `rings` (T × 1, the age proxy).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AbaloneSpec {
    /// Always `abalone`.
    pub kind: String,
    /// Row 0 and row 1 of x.
    pub variables: [String; 2],
    /// Data file, relative to the data directory.
    #[serde(default = "default_abalone_path")]
    pub path: String,
    /// Standardise each variable (default true).
    #[serde(default = "yes")]
    pub standardize: bool,
}

fn default_cep_path() -> String {
    "cep/Tuebingen_pairs.csv".into()
}
fn default_cep_meta() -> String {
    "cep/pairs_meta.csv".into()
}
fn default_abalone_path() -> String {
    "abalone/abalone.data".into()
}
fn yes() -> bool {
    true
}

/// UCI Abalone column names (lower case, "weight" dropped), in file order.
pub const ABALONE_COLUMNS: [&str; 9] = [
    "sex", "length", "diameter", "height", "whole", "shucked", "viscera", "shell", "rings",
];

/// `kind: prior_predictive` — T only: the data are drawn from the prior of the cell's `params`
/// (simulation-based calibration, an experiment's `sbc:` block; see
/// [`crate::kurutmaz2019::prior`]).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PriorPredictiveSpec {
    /// Always `prior_predictive`.
    pub kind: String,
    /// T.
    pub n_observations: usize,
}

/// A parsed `dataset` section.
#[derive(Debug, Clone)]
pub enum DatasetSpec {
    /// Drawn from the prior of `params` (SBC only).
    PriorPredictive(PriorPredictiveSpec),
    /// Drawn from the model.
    Synthetic(SyntheticSpec, Hyper),
    /// A CEP pair.
    Cep(CepSpec),
    /// Abalone.
    Abalone(AbaloneSpec),
}

impl DatasetSpec {
    /// T if it is known without reading files (synthetic), or a lower bound on it (CEP: the
    /// shortest pair has 94 observations; Abalone: 4177 rows).
    pub fn min_len(&self) -> usize {
        match self {
            DatasetSpec::Synthetic(s, _) => s.n_observations,
            DatasetSpec::PriorPredictive(s) => s.n_observations,
            DatasetSpec::Cep(_) => 94,
            DatasetSpec::Abalone(_) => 4177,
        }
    }
}

/// Parse and range-check a `dataset` section (paths start with `dataset`).
pub fn parse_dataset(v: &Value) -> Result<DatasetSpec, ParamError> {
    let kind = v.get("kind").and_then(Value::as_str).ok_or_else(|| {
        ParamError::new(
            "dataset.kind",
            "missing: allowed values are synthetic, cep, abalone, prior_predictive",
        )
    })?;
    match kind {
        "synthetic" => {
            let s: SyntheticSpec = parse("dataset", v)?;
            check_range_usize("dataset.n_latent", s.n_latent, 1, 5)?;
            check_range_usize("dataset.n_observations", s.n_observations, 1, 10_000_000)?;
            let h = resolve_hyper("dataset", &s.keys())?;
            Ok(DatasetSpec::Synthetic(s, h))
        }
        "prior_predictive" => {
            let s: PriorPredictiveSpec = parse("dataset", v)?;
            check_range_usize("dataset.n_observations", s.n_observations, 1, 10_000_000)?;
            Ok(DatasetSpec::PriorPredictive(s))
        }
        "cep" => {
            let s: CepSpec = parse("dataset", v)?;
            if !s.pair.starts_with("pair") || s.pair[4..].parse::<usize>().is_err() {
                return Err(ParamError::new(
                    "dataset.pair",
                    format!("{:?} is not a cdt pair id (pair1..pair99)", s.pair),
                ));
            }
            Ok(DatasetSpec::Cep(s))
        }
        "abalone" => {
            let s: AbaloneSpec = parse("dataset", v)?;
            for (i, name) in s.variables.iter().enumerate() {
                let ok = ABALONE_COLUMNS.iter().skip(1).any(|c| c == name);
                if !ok {
                    return Err(ParamError::new(
                        format!("dataset.variables.{i}"),
                        format!(
                            "{name:?} is not a numeric Abalone column: allowed values are {}",
                            ABALONE_COLUMNS[1..].join(", ")
                        ),
                    ));
                }
            }
            if s.variables[0] == s.variables[1] {
                return Err(ParamError::new(
                    "dataset.variables",
                    "the two variables must differ",
                ));
            }
            Ok(DatasetSpec::Abalone(s))
        }
        other => Err(ParamError::new(
            "dataset.kind",
            format!(
                "unknown kind {other:?}: allowed values are synthetic, cep, abalone, \
                 prior_predictive"
            ),
        )),
    }
}

/// Build the dataset for `spec` (runs on the coordinator).
///
/// Errors: `prior_predictive` (its data come from [`crate::sbc::build_dataset`]); [`ParamError`] naming the file (and the pair) on unreadable or malformed input.
pub fn build(
    spec: &DatasetSpec,
    ctx: &DataContext,
    rng: &mut ChainRng,
) -> Result<Dataset, ParamError> {
    match spec {
        DatasetSpec::Synthetic(s, h) => {
            synthetic(s.hypothesis, s.n_latent, s.n_observations, h, rng)
        }
        DatasetSpec::Cep(s) => cep(s, ctx),
        DatasetSpec::Abalone(s) => abalone(s, ctx),
        DatasetSpec::PriorPredictive(_) => Err(ParamError::new(
            "dataset.kind",
            "prior_predictive data are drawn from the prior of params: use it in an experiment \
             with an sbc: block",
        )),
    }
}

fn dist_err(e: impl std::fmt::Display) -> ParamError {
    ParamError::new(
        "dataset",
        format!("cannot build a sampling distribution: {e}"),
    )
}

/// Draw π ~ Dirichlet(γ), per-class Normal-Gamma parameters, r_t ~ Categorical(π) and x^t from
/// the network of `hyp` (eqs. 3.1–3.4; App. B.3.1 (i), B.3.2 (i)).
///
/// Errors: [`ParamError`] if a distribution cannot be built (non-positive hyperparameters).
pub fn synthetic(
    hyp: Hypothesis,
    k: usize,
    t_len: usize,
    h: &Hyper,
    rng: &mut ChainRng,
) -> Result<Dataset, ParamError> {
    let g = Gamma::new(h.gamma, 1.0).map_err(dist_err)?;
    let mut pi: Vec<f64> = (0..k).map(|_| g.sample(rng)).collect();
    let tot: f64 = pi.iter().sum();
    if tot.is_nan() || tot <= 0.0 {
        return Err(ParamError::new(
            "dataset.gamma",
            "Dirichlet draw underflowed; use a larger gamma",
        ));
    }
    pi.iter_mut().for_each(|p| *p /= tot);
    let (a_eff, b_eff) = if hyp == Hypothesis::Spurious {
        (h.a1, h.b1)
    } else {
        (h.a2, h.b2)
    };
    let g1 = Gamma::new(h.a1, 1.0 / h.b1).map_err(dist_err)?;
    let g2 = Gamma::new(a_eff, 1.0 / b_eff).map_err(dist_err)?;
    let std = Normal::new(0.0, 1.0).map_err(dist_err)?;
    // Per class: (w1, ρ1) and (w2 = [intercept, slope], ρ2); w | ρ ~ N(m, (λρ)⁻¹ I).
    let mut p1 = Vec::with_capacity(k);
    let mut p2 = Vec::with_capacity(k);
    for _ in 0..k {
        let rho1: f64 = g1.sample(rng);
        let w1 = h.m + std.sample(rng) / (h.lambda * rho1).sqrt();
        p1.push((w1, rho1));
        let rho2: f64 = g2.sample(rng);
        let s = 1.0 / (h.lambda * rho2).sqrt();
        let w20 = h.m + std.sample(rng) * s;
        let w21 = h.m + std.sample(rng) * s;
        p2.push((w20, w21, rho2));
    }
    let mut r = Vec::with_capacity(t_len);
    let mut v1 = Vec::with_capacity(t_len);
    let mut v2 = Vec::with_capacity(t_len);
    for _ in 0..t_len {
        let u: f64 = rng.random();
        let mut acc = 0.0;
        let mut c = k - 1;
        for (i, p) in pi.iter().enumerate() {
            acc += p;
            if u < acc {
                c = i;
                break;
            }
        }
        let (w1, rho1) = p1[c];
        let x1 = w1 + std.sample(rng) / rho1.sqrt();
        let (w20, w21, rho2) = p2[c];
        let parent = if hyp == Hypothesis::Spurious { 0.0 } else { x1 };
        let x2 = w20 + w21 * parent + std.sample(rng) / rho2.sqrt();
        r.push(c as f64);
        v1.push(x1);
        v2.push(x2);
    }
    let (a, b) = match hyp {
        Hypothesis::AToB | Hypothesis::Spurious => (v1, v2),
        Hypothesis::BToA => (v2, v1),
    };
    if let Some(bad) = a.iter().chain(&b).find(|v| !v.is_finite()) {
        return Err(ParamError::new(
            "dataset",
            format!("synthetic draw produced {bad}; the hyperparameters are too extreme"),
        ));
    }
    let mut values = a;
    values.extend_from_slice(&b);
    let mut x = Matrix::new("x", 2, t_len, values);
    x.row_names = vec!["A".into(), "B".into()];
    Ok(Dataset {
        observed: vec![x],
        truth: vec![
            Matrix::new("r", t_len, 1, r),
            Matrix::scalar("hypothesis", hyp.index() as f64),
            Matrix::new("pi", k, 1, pi),
        ],
    })
}

/// Standardise to mean 0 and sample standard deviation (n − 1) 1.
///
/// Errors: a message if n < 2 or the variable is constant.
pub fn standardize(v: &mut [f64]) -> Result<(), String> {
    let n = v.len();
    if n < 2 {
        return Err(format!("cannot standardise {n} value(s)"));
    }
    let mean = v.iter().sum::<f64>() / n as f64;
    let var = v.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / (n - 1) as f64;
    let sd = var.sqrt();
    if !(sd > 0.0 && sd.is_finite()) {
        return Err(format!("standard deviation is {sd}"));
    }
    v.iter_mut().for_each(|x| *x = (*x - mean) / sd);
    Ok(())
}

/// The text of data file `rel` and its path as shown in messages ([`DataContext::read_text`]:
/// read once for a grid's many pairs); errors at `key`.
fn read(ctx: &DataContext, rel: &str, key: &str) -> Result<(String, Arc<str>), ParamError> {
    ctx.read_text(rel).map_err(|e| ParamError::new(key, e))
}

fn parse_values(s: &str, file: &str, pair: &str, col: &str) -> Result<Vec<f64>, ParamError> {
    s.split_whitespace()
        .enumerate()
        .map(|(i, tok)| {
            tok.parse::<f64>().ok().filter(|v| v.is_finite()).ok_or_else(|| {
                ParamError::new("dataset.path", format!("{file}: pair {pair}, column {col}, value {i}: {} is not a finite number", crate::data::shown(tok)))
            })
        })
        .collect()
}

/// One row of `data/cep/pairs_meta.csv`: a cdt pair, its number and orientation in the original
/// Tuebingen files, and its weights (§5.4 weights the pairs by `weight_thesis`).
#[derive(Debug, Clone, PartialEq)]
pub struct PairMeta {
    /// cdt id, e.g. `pair86`.
    pub pair: String,
    /// The dataset's own pair number (`pair0091` → 91): the thesis's numbering.
    pub original_id: u32,
    /// `original_orientation == "->"`: the original file's first column is the cause (x = A).
    pub forward: bool,
    /// `weight_v1` (NaN when empty or not a number).
    pub weight_v1: f64,
    /// The thesis's pair weight, `weight_thesis` (NaN when empty or not a number).
    pub weight: f64,
    /// `in_thesis_set == "1"`: one of the thesis's 95 evaluation pairs.
    pub in_thesis_set: bool,
    /// Cause label (empty when the column is absent or empty).
    pub cause_label: String,
    /// Effect label (empty when the column is absent or empty).
    pub effect_label: String,
}

/// Parse the text of `pairs_meta.csv` (columns `cdt_id, original_id, original_orientation,
/// weight_v1, weight_thesis, in_thesis_set`, optionally `cause_label, effect_label`; RFC 4180
/// quoting), one [`PairMeta`] per non-empty line. The one parser of this file: [`cep`] and the
/// §5.4 report both use it.
///
/// Errors: a message naming the missing column, or the line of an unparsable `original_id` or
/// of an `original_orientation` other than `->`/`<-`.
pub fn parse_pairs_meta(text: &str) -> Result<Vec<PairMeta>, String> {
    let mut lines = text.lines();
    let header = lines.next().unwrap_or("");
    let ix = csv_columns(
        header,
        "pairs_meta.csv",
        &[
            "cdt_id",
            "original_id",
            "original_orientation",
            "weight_v1",
            "weight_thesis",
            "in_thesis_set",
        ],
    )?;
    let labels = csv_columns(header, "pairs_meta.csv", &["cause_label", "effect_label"]).ok();
    let mut out = Vec::new();
    for (n, line) in lines.enumerate().filter(|(_, l)| !l.trim().is_empty()) {
        let f = split_csv_line(line);
        let get = |i: usize| f.get(i).map(|s| s.trim()).unwrap_or("");
        let bad = |what: &str| format!("pairs_meta.csv line {}: {what}", n + 2);
        let original_id =
            pair_number(get(ix[1])).ok_or_else(|| bad("original_id is not pairNNNN"))?;
        let forward = match get(ix[2]) {
            "->" => true,
            "<-" => false,
            other => {
                return Err(bad(&format!(
                    "original_orientation {} is not -> or <-",
                    crate::data::shown(other)
                )));
            }
        };
        let in_thesis_set = match get(ix[5]) {
            "1" => true,
            "0" => false,
            other => {
                return Err(bad(&format!(
                    "in_thesis_set {} is not 0 or 1",
                    crate::data::shown(other)
                )));
            }
        };
        let (cause_label, effect_label) = match &labels {
            Some(l) => (get(l[0]).to_string(), get(l[1]).to_string()),
            None => (String::new(), String::new()),
        };
        out.push(PairMeta {
            pair: get(ix[0]).to_string(),
            original_id,
            forward,
            weight_v1: get(ix[3]).parse::<f64>().unwrap_or(f64::NAN),
            weight: get(ix[4]).parse::<f64>().unwrap_or(f64::NAN),
            in_thesis_set,
            cause_label,
            effect_label,
        });
    }
    Ok(out)
}

/// Split one CSV line (RFC 4180 quoting: `"a, b"` is one field, `""` an escaped quote).
pub fn split_csv_line(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quoted = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' if quoted && chars.peek() == Some(&'"') => {
                cur.push('"');
                chars.next();
            }
            '"' => quoted = !quoted,
            ',' if !quoted => out.push(std::mem::take(&mut cur)),
            _ => cur.push(c),
        }
    }
    out.push(cur);
    out
}

/// Column indices of `cols` in a CSV header line; the error names `what` and the missing column.
pub fn csv_columns(header: &str, what: &str, cols: &[&str]) -> Result<Vec<usize>, String> {
    let names = split_csv_line(header);
    cols.iter()
        .map(|c| {
            names
                .iter()
                .position(|n| n.trim() == *c)
                .ok_or_else(|| format!("{what}: no column {c:?} in the header"))
        })
        .collect()
}

/// `pair0091` → 91 (also `pair86` → 86).
pub fn pair_number(s: &str) -> Option<u32> {
    s.trim().trim_start_matches("pair").parse().ok()
}

/// Read one CEP pair (`SampleID,A,B` rows with space-separated values).
///
/// Errors: [`ParamError`] at `dataset.path`/`dataset.meta_path` (unreadable or malformed file,
/// naming it and the pair) or `dataset.pair` (pair absent).
pub fn cep(s: &CepSpec, ctx: &DataContext) -> Result<Dataset, ParamError> {
    let (file, text) = read(ctx, &s.path, "dataset.path")?;
    let prefix = format!("{},", s.pair);
    let line = text
        .lines()
        .find(|l| l.starts_with(&prefix))
        .ok_or_else(|| {
            ParamError::new(
                "dataset.pair",
                format!("pair {:?} not found in {file}", s.pair),
            )
        })?;
    let mut parts = line.splitn(3, ',');
    let (_, ca, cb) = (parts.next(), parts.next(), parts.next());
    let (Some(ca), Some(cb)) = (ca, cb) else {
        return Err(ParamError::new(
            "dataset.path",
            format!("{file}: pair {}: expected SampleID,A,B", s.pair),
        ));
    };
    let mut a = parse_values(ca, &file, &s.pair, "A")?;
    let mut b = parse_values(cb, &file, &s.pair, "B")?;
    if a.len() != b.len() || a.is_empty() {
        return Err(ParamError::new(
            "dataset.path",
            format!(
                "{file}: pair {}: A has {} values, B has {}",
                s.pair,
                a.len(),
                b.len()
            ),
        ));
    }
    if s.standardize {
        standardize(&mut a).map_err(|e| {
            ParamError::new(
                "dataset.path",
                format!("{file}: pair {}, column A: {e}", s.pair),
            )
        })?;
        standardize(&mut b).map_err(|e| {
            ParamError::new(
                "dataset.path",
                format!("{file}: pair {}, column B: {e}", s.pair),
            )
        })?;
    }
    let t_len = a.len();
    let (mfile, meta) = read(ctx, &s.meta_path, "dataset.meta_path")?;
    let rows = parse_pairs_meta(&meta)
        .map_err(|e| ParamError::new("dataset.meta_path", format!("{mfile}: {e}")))?;
    let row = rows.iter().find(|r| r.pair == s.pair).ok_or_else(|| {
        ParamError::new(
            "dataset.pair",
            format!("pair {:?} not found in {mfile}", s.pair),
        )
    })?;
    let num = |v: f64, what: &str| -> Result<f64, ParamError> {
        if v.is_nan() {
            return Err(ParamError::new(
                "dataset.meta_path",
                format!("{mfile}: pair {}: {what} is not a number", s.pair),
            ));
        }
        Ok(v)
    };
    let truth = vec![
        Matrix::scalar("hypothesis", Hypothesis::AToB.index() as f64),
        Matrix::scalar("weight", num(row.weight, "weight_thesis")?),
        Matrix::scalar("weight_v1", num(row.weight_v1, "weight_v1")?),
        Matrix::scalar("original_id", f64::from(row.original_id)),
        Matrix::scalar("in_thesis_set", f64::from(u8::from(row.in_thesis_set))),
    ];
    let mut values = a;
    values.extend_from_slice(&b);
    let mut x = Matrix::new("x", 2, t_len, values);
    x.row_names = vec!["A".into(), "B".into()];
    Ok(Dataset {
        observed: vec![x],
        truth,
    })
}

/// Read two Abalone columns (and rings as truth).
///
/// Errors: [`ParamError`] at `dataset.path` naming the file and line on malformed input.
pub fn abalone(s: &AbaloneSpec, ctx: &DataContext) -> Result<Dataset, ParamError> {
    let (file, text) = read(ctx, &s.path, "dataset.path")?;
    let idx = |name: &str| ABALONE_COLUMNS.iter().position(|c| *c == name).unwrap_or(0);
    let (ia, ib) = (idx(&s.variables[0]), idx(&s.variables[1]));
    let (mut a, mut b, mut rings) = (Vec::new(), Vec::new(), Vec::new());
    for (ln, line) in text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
    {
        let cols: Vec<&str> = line.split(',').collect();
        if cols.len() != 9 {
            return Err(ParamError::new(
                "dataset.path",
                format!(
                    "{file}: line {}: expected 9 columns, found {}",
                    ln + 1,
                    cols.len()
                ),
            ));
        }
        let get = |i: usize| -> Result<f64, ParamError> {
            cols[i]
                .trim()
                .parse::<f64>()
                .ok()
                .filter(|v| v.is_finite())
                .ok_or_else(|| {
                    ParamError::new(
                        "dataset.path",
                        format!(
                            "{file}: line {}, column {}: {:?} is not a number",
                            ln + 1,
                            ABALONE_COLUMNS[i],
                            cols[i]
                        ),
                    )
                })
        };
        a.push(get(ia)?);
        b.push(get(ib)?);
        rings.push(get(8)?);
    }
    if a.is_empty() {
        return Err(ParamError::new("dataset.path", format!("{file}: no rows")));
    }
    if s.standardize {
        standardize(&mut a).map_err(|e| {
            ParamError::new("dataset.path", format!("{file}: {}: {e}", s.variables[0]))
        })?;
        standardize(&mut b).map_err(|e| {
            ParamError::new("dataset.path", format!("{file}: {}: {e}", s.variables[1]))
        })?;
    }
    let t_len = a.len();
    let mut values = a;
    values.extend_from_slice(&b);
    let mut x = Matrix::new("x", 2, t_len, values);
    x.row_names = vec![s.variables[0].clone(), s.variables[1].clone()];
    Ok(Dataset {
        observed: vec![x],
        truth: vec![Matrix::new("rings", t_len, 1, rings)],
    })
}

//! The `dataset` section of a HiDDeN experiment: one of `csv`, `bif_sample`, `metabric`,
//! `sparse_counts` (Table 1), `two_dags` (Table 3), `two_parent_sets` (Tables 7–8), and
//! `prior_predictive` (simulation-based calibration only: its data are drawn by
//! [`crate::hidden2025::prior`], and [`DatasetSpec::build`] refuses it). Parsed with
//! [`parse_dataset`] (unknown keys refused, listing the allowed ones; paths `dataset.<key>`) and
//! built with [`DatasetSpec::build`].
//!
//! A built [`Dataset`] has `observed` = [`DiscreteData::to_matrices`] and `truth` =
//! - `cpt:<node>`, one per node with a known CPT: `n_configs × k`, P(node = column | row), row
//!   names the configuration labels `P1=s1;P2=s2` (first parent fastest; one empty name for a
//!   root), column names the categories. Synthetic data: every node, over the *declared* levels.
//!   `bif_sample`: every kept node whose BIF parents are all kept (renamed), over the declared
//!   states. `csv` and `metabric`: none (the truth is not known).
//! - `adjacency` (`bif_sample` and synthetic data): p × p, 1 where the row variable is a true
//!   parent of the column variable, row and column names the variables.

use std::collections::BTreeMap;

use serde::Deserialize;
use serde_json::Value;

use super::authors;
use super::bif::BifNetwork;
use super::csv::{CsvOptions, DEFAULT_MAX_LEVELS, check_breaks, check_declared, read_discrete_csv};
use super::metabric::{DEFAULT_METABRIC_PATH, read_metabric};
use super::synthetic::{
    LevelsMode, TrueCpt, TwoParentTruth, sparse_counts, two_dags, two_parent_sets,
};
use super::{DiscreteData, MAX_LEVELS};
use crate::data::{DataContext, Dataset, Matrix};
use crate::params::{ParamError, check_range_usize, parse};
use crate::seed::ChainRng;

/// Largest number of rows a generator or sampler produces.
pub const MAX_ROWS: usize = 10_000_000;

/// `kind: csv` (see [`super::csv`]).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CsvSpec {
    /// Always `csv`.
    pub kind: String,
    /// File relative to the data directory.
    pub path: String,
    /// File columns to keep, in order (default: all).
    #[serde(default)]
    pub columns: Option<Vec<String>>,
    /// File column → variable name.
    #[serde(default)]
    pub rename: BTreeMap<String, String>,
    /// Declared categories per column.
    #[serde(default)]
    pub levels: BTreeMap<String, Vec<String>>,
    /// Drop rows with an empty selected cell (default false: refuse them).
    #[serde(default)]
    pub drop_missing: bool,
    /// Largest number of distinct values of an undeclared column (default 32).
    #[serde(default = "default_max_levels")]
    pub max_levels: usize,
    /// Breaks per numeric column, cut into right-closed intervals.
    #[serde(default)]
    pub bins: BTreeMap<String, Vec<f64>>,
}

/// `kind: bif_sample` (see [`super::bif`]): `rows` rows by ancestral sampling.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BifSampleSpec {
    /// Always `bif_sample`.
    pub kind: String,
    /// BIF file relative to the data directory.
    pub path: String,
    /// Number of rows.
    pub rows: usize,
    /// Network variables to keep, in order (default: all, in declaration order).
    #[serde(default)]
    pub columns: Option<Vec<String>>,
    /// Network variable → column name.
    #[serde(default)]
    pub rename: BTreeMap<String, String>,
    /// `declared` (default: every BIF state) or `present`.
    #[serde(default = "declared")]
    pub levels: LevelsMode,
}

/// `kind: metabric` (see [`super::metabric`]).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MetabricSpec {
    /// Always `metabric`.
    pub kind: String,
    /// File relative to the data directory.
    #[serde(default = "default_metabric_path")]
    pub path: String,
}

/// `kind: sparse_counts`: §5.1 / Table 1 ([`sparse_counts`]).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SparseCountsSpec {
    /// Always `sparse_counts`.
    pub kind: String,
    /// n (default 100).
    #[serde(default = "n100")]
    pub n: usize,
    /// K_Pa, the parent's number of levels.
    pub k_pa: usize,
    /// `present` (default) or `declared`.
    #[serde(default)]
    pub levels: LevelsMode,
    /// Read the authors' dataset drawn after `set.seed(authors_seed)` (1..=50; n = 100, k_pa ∈
    /// {2, 3, 5, 10}) instead of drawing one ([`super::authors`]).
    #[serde(default)]
    pub authors_seed: Option<u32>,
}

/// `kind: two_dags`: §5.3 / Table 3 ([`two_dags`]).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TwoDagsSpec {
    /// Always `two_dags`.
    pub kind: String,
    /// n (default 200).
    #[serde(default = "n200")]
    pub n: usize,
    /// k1, the levels of x1.
    pub k1: usize,
    /// `present` (default) or `declared`.
    #[serde(default)]
    pub levels: LevelsMode,
    /// Read the authors' dataset drawn after `set.seed(authors_seed)` (1..=100; n = 200, k1 ∈
    /// {5, 25, 100, 200}) instead of drawing one ([`super::authors`]).
    #[serde(default)]
    pub authors_seed: Option<u32>,
}

/// `kind: two_parent_sets`: supplement E / Tables 7–8 ([`two_parent_sets`]).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TwoParentSetsSpec {
    /// Always `two_parent_sets`.
    pub kind: String,
    /// n.
    pub n: usize,
    /// `g1` (Pa(x3) = {x2}) or `g2` (Pa(x3) = {x1, x2}).
    pub g_true: TwoParentTruth,
    /// Levels of x1 (default 5).
    #[serde(default = "five")]
    pub k1: usize,
    /// Levels of x2 (default 3).
    #[serde(default = "three")]
    pub k2: usize,
    /// `present` (default) or `declared`.
    #[serde(default)]
    pub levels: LevelsMode,
    /// Read the authors' dataset drawn after `set.seed(authors_seed)` (1..=100; n ∈ {50, 75,
    /// 100, 150}, k1 = 5, k2 = 3) instead of drawing one ([`super::authors`]).
    #[serde(default)]
    pub authors_seed: Option<u32>,
}

/// `kind: prior_predictive`: only the shape of the data; the values are drawn from the prior of
/// the cell's `params` (simulation-based calibration, an experiment's `sbc:` block; see
/// [`crate::hidden2025::prior`]).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PriorPredictiveSpec {
    /// Always `prior_predictive`.
    pub kind: String,
    /// n, the number of rows (≥ 1).
    pub n: usize,
    /// The variables' names, in column order (distinct; the node and its parents or candidates
    /// must be among them).
    pub columns: Vec<String>,
    /// k, the number of levels of each variable, in the order of `columns` (each ≥ 2);
    /// category labels `0`, `1`, ….
    pub k: Vec<usize>,
}

fn default_max_levels() -> usize {
    DEFAULT_MAX_LEVELS
}
fn default_metabric_path() -> String {
    DEFAULT_METABRIC_PATH.into()
}
fn declared() -> LevelsMode {
    LevelsMode::Declared
}
fn n100() -> usize {
    100
}
fn n200() -> usize {
    200
}
fn five() -> usize {
    5
}
fn three() -> usize {
    3
}

/// A parsed `dataset` section.
#[derive(Debug, Clone, PartialEq)]
pub enum DatasetSpec {
    /// A discrete CSV.
    Csv(CsvSpec),
    /// Rows sampled from a BIF network.
    BifSample(BifSampleSpec),
    /// The METABRIC preprocessing.
    Metabric(MetabricSpec),
    /// Table 1's generator.
    SparseCounts(SparseCountsSpec),
    /// Table 3's generator.
    TwoDags(TwoDagsSpec),
    /// Tables 7–8's generator.
    TwoParentSets(TwoParentSetsSpec),
    /// The shape of SBC's simulated data.
    PriorPredictive(PriorPredictiveSpec),
}

/// The allowed `kind` values.
pub const DATASET_KINDS: &str =
    "csv, bif_sample, metabric, sparse_counts, two_dags, two_parent_sets, prior_predictive";

/// Parse and range-check a `dataset` section (paths start with `dataset`).
pub fn parse_dataset(v: &Value) -> Result<DatasetSpec, ParamError> {
    let kind = v.get("kind").and_then(Value::as_str).ok_or_else(|| {
        ParamError::new(
            "dataset.kind",
            format!("missing: allowed values are {DATASET_KINDS}"),
        )
    })?;
    let levels_max = |path: &str, k: usize| check_range_usize(path, k, 2, MAX_LEVELS);
    let rows = |path: &str, n: usize| check_range_usize(path, n, 1, MAX_ROWS);
    match kind {
        "csv" => {
            let s: CsvSpec = parse("dataset", v)?;
            levels_max("dataset.max_levels", s.max_levels)?;
            for (k, list) in &s.levels {
                check_declared(&format!("dataset.levels.{k}"), list)?;
            }
            for (k, breaks) in &s.bins {
                check_breaks(&format!("dataset.bins.{k}"), breaks)?;
            }
            Ok(DatasetSpec::Csv(s))
        }
        "bif_sample" => {
            let s: BifSampleSpec = parse("dataset", v)?;
            rows("dataset.rows", s.rows)?;
            Ok(DatasetSpec::BifSample(s))
        }
        "metabric" => Ok(DatasetSpec::Metabric(parse("dataset", v)?)),
        "sparse_counts" => {
            let s: SparseCountsSpec = parse("dataset", v)?;
            rows("dataset.n", s.n)?;
            levels_max("dataset.k_pa", s.k_pa)?;
            if let Some(seed) = s.authors_seed {
                authors::check_sparse_counts(seed, s.n, s.k_pa)?;
            }
            Ok(DatasetSpec::SparseCounts(s))
        }
        "two_dags" => {
            let s: TwoDagsSpec = parse("dataset", v)?;
            rows("dataset.n", s.n)?;
            levels_max("dataset.k1", s.k1)?;
            if let Some(seed) = s.authors_seed {
                authors::check_two_dags(seed, s.n, s.k1)?;
            }
            Ok(DatasetSpec::TwoDags(s))
        }
        "two_parent_sets" => {
            let s: TwoParentSetsSpec = parse("dataset", v)?;
            rows("dataset.n", s.n)?;
            levels_max("dataset.k1", s.k1)?;
            levels_max("dataset.k2", s.k2)?;
            if let Some(seed) = s.authors_seed {
                authors::check_two_parent_sets(seed, s.n, s.k1, s.k2)?;
            }
            Ok(DatasetSpec::TwoParentSets(s))
        }
        "prior_predictive" => {
            let s: PriorPredictiveSpec = parse("dataset", v)?;
            rows("dataset.n", s.n)?;
            if s.k.len() != s.columns.len() {
                return Err(ParamError::new(
                    "dataset.k",
                    format!(
                        "{} values for {} columns: give one k per column",
                        s.k.len(),
                        s.columns.len()
                    ),
                ));
            }
            for (i, &k) in s.k.iter().enumerate() {
                levels_max(&format!("dataset.k[{i}]"), k)?;
            }
            if let Some(i) = (0..s.columns.len()).find(|&i| s.columns[..i].contains(&s.columns[i]))
            {
                return Err(ParamError::new(
                    format!("dataset.columns[{i}]"),
                    format!("`{}` is repeated", s.columns[i]),
                ));
            }
            Ok(DatasetSpec::PriorPredictive(s))
        }
        other => Err(ParamError::new(
            "dataset.kind",
            format!("unknown kind {other:?}: allowed values are {DATASET_KINDS}"),
        )),
    }
}

impl DatasetSpec {
    /// [`parse_dataset`].
    pub fn parse(v: &Value) -> Result<Self, ParamError> {
        parse_dataset(v)
    }

    /// The data and the known true CPTs (see the module docs), deterministic given `rng` (which
    /// only synthetic kinds and `bif_sample` use). Errors name the YAML key and, for files, the
    /// file, line and column or variable; `prior_predictive` is refused (its data come from
    /// [`crate::sbc::build_dataset`]).
    pub fn discrete(
        &self,
        ctx: &DataContext,
        rng: &mut ChainRng,
    ) -> Result<(DiscreteData, Vec<TrueCpt>), ParamError> {
        let resolve = |p: &str| {
            ctx.resolve(p)
                .map_err(|e| ParamError::new("dataset.path", e))
        };
        Ok(match self {
            DatasetSpec::Csv(s) => {
                let opts = CsvOptions {
                    columns: s.columns.clone(),
                    rename: s.rename.clone(),
                    levels: s.levels.clone(),
                    drop_missing: s.drop_missing,
                    max_levels: s.max_levels,
                    bins: s.bins.clone(),
                };
                (
                    read_discrete_csv(&resolve(&s.path)?, &s.path, &opts)?,
                    Vec::new(),
                )
            }
            DatasetSpec::Metabric(s) => (read_metabric(&resolve(&s.path)?, &s.path)?, Vec::new()),
            DatasetSpec::BifSample(s) => {
                let net = BifNetwork::read(&resolve(&s.path)?, &s.path)?;
                bif_sample(&net, s, rng)?
            }
            DatasetSpec::SparseCounts(s) => {
                let g = match s.authors_seed {
                    Some(seed) => {
                        let file = authors::SPARSE_COUNTS_PATH;
                        authors::sparse_counts(&resolve(file)?, file, s.k_pa, seed, s.levels)?
                    }
                    None => sparse_counts(s.n, s.k_pa, s.levels, rng),
                };
                (g.data, g.truth)
            }
            DatasetSpec::TwoDags(s) => {
                let g = match s.authors_seed {
                    Some(seed) => {
                        let file = authors::TWO_DAGS_PATH;
                        authors::two_dags(&resolve(file)?, file, s.k1, seed, s.levels)?
                    }
                    None => two_dags(s.n, s.k1, s.levels, rng),
                };
                (g.data, g.truth)
            }
            DatasetSpec::TwoParentSets(s) => {
                let g = match s.authors_seed {
                    Some(seed) => {
                        let file = authors::TWO_PARENT_SETS_PATH;
                        let path = resolve(file)?;
                        authors::two_parent_sets(&path, file, s.n, s.g_true, seed, s.levels)?
                    }
                    None => two_parent_sets(s.n, s.k1, s.k2, s.g_true, s.levels, rng),
                };
                (g.data, g.truth)
            }
            DatasetSpec::PriorPredictive(_) => {
                return Err(ParamError::new(
                    "dataset.kind",
                    "prior_predictive data are drawn from the prior of params: use it in an \
                     experiment with an sbc: block",
                ));
            }
        })
    }

    /// Build the dataset: `observed` = [`DiscreteData::to_matrices`], `truth` = [`truth_matrices`].
    pub fn build(&self, ctx: &DataContext, rng: &mut ChainRng) -> Result<Dataset, ParamError> {
        let (data, truth) = self.discrete(ctx, rng)?;
        let truth = match self {
            DatasetSpec::Csv(_) | DatasetSpec::Metabric(_) => Vec::new(),
            _ => truth_matrices(&data, &truth),
        };
        Ok(Dataset {
            observed: data.to_matrices(),
            truth,
        })
    }
}

/// Sample `s.rows` rows of `net`, keep and rename `s.columns`, and return the CPTs of the kept
/// nodes whose parents are all kept. Errors: an unknown column or rename key, a repeated name.
pub fn bif_sample(
    net: &BifNetwork,
    s: &BifSampleSpec,
    rng: &mut ChainRng,
) -> Result<(DiscreteData, Vec<TrueCpt>), ParamError> {
    let all: Vec<String> = net.variables.iter().map(|v| v.name.clone()).collect();
    let keep: Vec<usize> = match &s.columns {
        None => (0..all.len()).collect(),
        Some(cols) => {
            let mut v = Vec::with_capacity(cols.len());
            for (i, c) in cols.iter().enumerate() {
                let j = net.index(c).filter(|j| !v.contains(j)).ok_or_else(|| {
                    ParamError::new(
                        format!("dataset.columns.{i}"),
                        format!(
                            "{c:?} is not a variable of {} or is repeated: its variables are {}",
                            s.path,
                            all.join(", ")
                        ),
                    )
                })?;
                v.push(j);
            }
            v
        }
    };
    if keep.is_empty() {
        return Err(ParamError::new(
            "dataset.columns",
            "no variable is selected",
        ));
    }
    for k in s.rename.keys() {
        if !keep.iter().any(|&j| &all[j] == k) {
            return Err(ParamError::new(
                format!("dataset.rename.{k}"),
                format!("{k:?} is not a selected variable of {}", s.path),
            ));
        }
    }
    let name = |j: usize| {
        s.rename
            .get(&all[j])
            .cloned()
            .unwrap_or_else(|| all[j].clone())
    };
    let names: Vec<String> = keep.iter().map(|&j| name(j)).collect();
    if let Some(i) = (0..names.len()).find(|&i| names[..i].contains(&names[i])) {
        return Err(ParamError::new(
            "dataset.rename",
            format!("two variables are called {:?}", names[i]),
        ));
    }
    let sampled = net.sample(s.rows, rng);
    let mut data = sampled.select(&keep);
    data.names = names;
    if s.levels == LevelsMode::Present {
        data = data.drop_absent_levels();
    }
    let mut truth = Vec::new();
    for &j in &keep {
        let v = &net.variables[j];
        if v.parents.iter().all(|q| keep.contains(q)) {
            truth.push(TrueCpt {
                node: name(j),
                parents: v.parents.iter().map(|&q| name(q)).collect(),
                categories: v.states.clone(),
                config_labels: (0..net.n_configs(j))
                    .map(|c| {
                        // Relabel with the renamed parents.
                        let mut rest = c;
                        let mut parts = Vec::new();
                        for &q in &v.parents {
                            let k = net.k(q);
                            parts.push(format!(
                                "{}={}",
                                name(q),
                                net.variables[q].states[rest % k]
                            ));
                            rest /= k;
                        }
                        parts.join(";")
                    })
                    .collect(),
                probabilities: v.cpt.clone(),
            });
        }
    }
    Ok((data, truth))
}

/// `cpt:<node>` per true CPT and, when any is given, `adjacency` over `data`'s variables (see
/// the module docs).
pub fn truth_matrices(data: &DiscreteData, truth: &[TrueCpt]) -> Vec<Matrix> {
    let mut out = Vec::with_capacity(truth.len() + 1);
    let p = data.p();
    let mut adj = vec![0.0; p * p];
    for t in truth {
        let k = t.categories.len();
        let mut m = Matrix::new(
            format!("cpt:{}", t.node),
            t.config_labels.len(),
            k,
            t.probabilities.clone(),
        );
        m.row_names = t.config_labels.clone();
        m.col_names = t.categories.clone();
        out.push(m);
        if let Some(c) = data.index(&t.node) {
            for par in &t.parents {
                if let Some(r) = data.index(par) {
                    adj[r * p + c] = 1.0;
                }
            }
        }
    }
    if !truth.is_empty() {
        let mut m = Matrix::new("adjacency", p, p, adj);
        m.row_names = data.names.clone();
        m.col_names = data.names.clone();
        out.push(m);
    }
    out
}

//! Experiment files: YAML → validated grid cells → seeded jobs.
//!
//! ```yaml
//! name: fig3_k_sweep          # run directory name (runs/<name>/)
//! description: ...
//! model: wood2006             # a registry name (causeway_papers::registry::MODELS)
//! seed: 2006                  # base seed of every chain and dataset
//! chains: 4                   # chains per cell and replicate
//! replicates: 10              # dataset replications
//! run: {iterations: 500, burn_in: 100, thin: 1}   # burn_in: 0.2 is a fraction of iterations
//! data_dir: ../../data        # real datasets, relative to this file (default ../../data)
//! params: {...}               # the model's parameters shared by every cell
//! dataset: {...}              # the dataset spec shared by every cell
//! grid:
//!   product:                  # axes that multiply; keys are paths into the cell
//!     dataset.k_plus: [1, 2, 3]
//!   zip:                      # groups of axes that advance together (equal lengths)
//!     - {params.sampler: [gibbs, rjmcmc], params.init_k: [0, 1]}
//! monitor: [k_plus, log_joint]  # scalars reported with R-hat and ESS
//! report: [wood2006.fig3]     # tables and figures to build
//! reported: {...}             # the paper's values, shown beside ours
//! sbc: {simulations: 1000, draws: 100, thin: auto}  # optional: simulation-based calibration
//!                             # (experiment/sbc.rs: one replicate per simulation, chains: 1)
//! until: {rhat: 1.01, ess_bulk: 400, ess_tail: 400, max_iterations: 200000, max_chains: 16}
//!                             # optional: run in rounds until converged (experiment/until.rs)
//! checks:                     # optional: cells `causeway check RUN --baseline FILE` compares
//!   - {table: synthetic_summary, row: smc, column: accuracy, expected: 0.985, tolerance: 0.1}
//! profiles:                   # overrides of the keys above; quick and paper are required
//!   quick: {replicates: 2}
//!   paper: {}
//!   until: {until: {...}}     # optional: `--profile until`
//! ```
//! Every error names the file, line and column, and the allowed values where there is a set.

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::path::{Path, PathBuf};

use causeway_papers::{DataContext, RunSpec, registry};
use causeway_proto::CODE_VERSION;
use causeway_results::check::Expected;
use causeway_results::rundir::Manifest;
use serde::Deserialize;
use yaml_serde::{Mapping, Value};

pub use crate::positions::Positions;

mod checks;
mod grid;
mod jobs;
mod sbc_block;
mod until_block;
use causeway_results::rundir::Criterion;
use checks::{check_name, check_report_and_monitor, checks, non_finite};
use jobs::expand_jobs;
use sbc_block::SbcBlock;
use until_block::{BurnIn, UntilBlock};

/// An experiment-file error, located in the file.
#[derive(Debug, Clone, PartialEq)]
pub struct ExperimentError {
    pub file: PathBuf,
    /// 1-based line and column, when known.
    pub line: Option<usize>,
    pub column: Option<usize>,
    pub message: String,
}

impl fmt::Display for ExperimentError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.line, self.column) {
            (Some(l), Some(c)) => write!(f, "{}:{l}:{c}: {}", self.file.display(), self.message),
            _ => write!(f, "{}: {}", self.file.display(), self.message),
        }
    }
}

impl std::error::Error for ExperimentError {}

/// Which profile to run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ProfileName {
    Quick,
    Paper,
    /// A file's optional convergence-driven profile (`profiles.until`).
    Until,
}

impl ProfileName {
    pub fn as_str(self) -> &'static str {
        match self {
            ProfileName::Quick => "quick",
            ProfileName::Paper => "paper",
            ProfileName::Until => "until",
        }
    }
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct ExperimentFile {
    name: String,
    #[serde(default)]
    description: String,
    model: String,
    seed: u64,
    /// The chains' streams' seed when it is not `seed`: datasets keep `seed`.
    #[serde(default)]
    chain_seed: Option<u64>,
    #[serde(default = "one")]
    chains: u64,
    #[serde(default = "one")]
    replicates: u64,
    run: RunYaml,
    #[serde(default)]
    data_dir: Option<String>,
    #[serde(default)]
    params: Mapping,
    #[serde(default)]
    dataset: Mapping,
    #[serde(default)]
    grid: Grid,
    #[serde(default)]
    monitor: Vec<String>,
    #[serde(default)]
    report: Vec<String>,
    #[serde(default)]
    reported: Value,
    #[serde(default)]
    checks: Vec<CheckEntry>,
    #[serde(default)]
    checkpoint_every: Option<CheckpointEvery>,
    #[serde(default)]
    sbc: Option<SbcBlock>,
    #[serde(default)]
    until: Option<UntilBlock>,
    profiles: Profiles,
}

/// `run:` as written: `burn_in` may be a fraction (see [`BurnIn`]).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct RunYaml {
    iterations: u64,
    #[serde(default)]
    burn_in: BurnIn,
    #[serde(default = "one")]
    thin: u64,
}

/// `checkpoint_every: {seconds: S, iterations: N}`: when a running chain saves a checkpoint
///. Either may be left out; 0 switches that rule off. Not part of the run's
/// identity: it never changes a result.
#[derive(Debug, Clone, Copy, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct CheckpointEvery {
    pub seconds: Option<f64>,
    pub iterations: Option<u64>,
}

/// One `checks:` entry: a cell of a run's table and the value the paper reports for it.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct CheckEntry {
    table: String,
    row: Value,
    column: String,
    expected: Value,
    #[serde(default)]
    tolerance: f64,
}

fn one() -> u64 {
    1
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct Grid {
    #[serde(default)]
    product: Mapping,
    #[serde(default)]
    zip: Vec<Mapping>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct Profiles {
    quick: Profile,
    paper: Profile,
    #[serde(default)]
    until: Option<Profile>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct Profile {
    chains: Option<u64>,
    replicates: Option<u64>,
    run: Option<RunOverride>,
    params: Option<Mapping>,
    dataset: Option<Mapping>,
    grid: Option<Grid>,
    sbc: Option<SbcBlock>,
    until: Option<UntilBlock>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RunOverride {
    iterations: Option<u64>,
    burn_in: Option<BurnIn>,
    thin: Option<u64>,
}

/// Most grid cells one experiment may expand to.
pub const MAX_CELLS: usize = 1_000_000;
/// Most chains (cells × replicates × chains) one experiment may run.
pub const MAX_CHAINS: u64 = 10_000_000;
/// Most trace rows one chain may record (`iterations / thin`): 10⁷ rows of f64 scalars is about
/// 80 MB per traced scalar in a worker's memory and in the chain's Parquet file. Thin longer
/// runs.
pub const MAX_TRACE_ROWS: u64 = 10_000_000;

/// A validated, expanded experiment.
#[derive(Debug, Clone)]
pub struct Plan {
    pub file: PathBuf,
    /// The file's text exactly as read.
    pub text: String,
    pub profile: ProfileName,
    pub model: String,
    pub chains: u64,
    pub replicates: u64,
    pub data_dir: PathBuf,
    /// The `checks:` entries, for `causeway check`.
    pub checks: Vec<Expected>,
    /// The YAML's `checkpoint_every:` (all `None` when absent: the runner's defaults).
    pub checkpoint_every: CheckpointEvery,
    /// The `until:` criterion and caps of a convergence-driven run (`crate::until`), with
    /// `run.burn_in` as a fraction when the YAML gives one.
    pub until: Option<(Criterion, Option<f64>)>,
    /// Replicate 0's dataset of every dataset key (`CellRecord::dataset_key`), as the loader
    /// built it to check the cells: what `dataset_rng(base_seed, key, 0)` gives, so the runner
    /// stores and ships these rather than reading the files and drawing the data again.
    pub first_datasets: HashMap<u64, causeway_papers::Dataset>,
    /// What the run directory records of the plan (`manifest.json`): name, seed, monitored
    /// scalars, report kinds, the papers' values, every cell and every chain with its seed.
    /// Built once here; `causeway run` writes it as it is, adding the code versions.
    pub manifest: Manifest,
}

struct Ctx<'a> {
    file: &'a Path,
    pos: &'a Positions,
}

impl Ctx<'_> {
    fn err_at(&self, yaml_path: &str, message: impl Into<String>) -> ExperimentError {
        let (line, column) = match self.pos.locate(yaml_path) {
            Some((l, c)) => (Some(l), Some(c)),
            None => (None, None),
        };
        ExperimentError {
            file: self.file.to_path_buf(),
            line,
            column,
            message: message.into(),
        }
    }
}

/// Read, validate and expand an experiment file for `profile`. Nothing runs if this fails.
pub fn load(
    file: &Path,
    profile: ProfileName,
    data_dir_override: Option<&Path>,
) -> Result<Plan, ExperimentError> {
    let text = std::fs::read_to_string(file).map_err(|e| ExperimentError {
        file: file.to_path_buf(),
        line: None,
        column: None,
        message: format!("cannot read: {e}"),
    })?;
    plan_from_str(file, &text, profile, data_dir_override)
}

/// [`load`] on text already read (`file` names it in errors). The stages, in the order their
/// errors are reported: parse, resolve the profile and the run's counts, the `sbc:` and `until:`
/// blocks, the grid's axes, its size, then every cell built and validated with its first
/// dataset (`grid`), and last the report, monitors and checks.
pub fn plan_from_str(
    file: &Path,
    text: &str,
    profile: ProfileName,
    data_dir_override: Option<&Path>,
) -> Result<Plan, ExperimentError> {
    let pos = Positions::index(text);
    let ef = parse(file, text, &pos)?;
    let ctx = Ctx { file, pos: &pos };
    let model = registry::model(&ef.model).map_err(|e| ctx.err_at("model", e.message))?;
    check_name(&ctx, &ef.name)?;
    let prof = select_profile(&ctx, &ef, profile)?;
    let pp = format!("profiles.{}", profile.as_str());
    let counts = resolve_counts(&ctx, &ef, prof, &pp)?;
    let run = counts.run;
    let sbc = sbc_block::resolve(&ctx, &ef, prof, &pp, &run, counts.chains)?;
    sbc_block::check_report(&ctx, &ef.report, sbc.is_some())?;
    let replicates = sbc.map_or(counts.replicates, |s| s.simulations);
    let until = until_block::resolve(&ctx, &ef, prof, &pp, &run, counts.chains, sbc.is_some())?;
    // A convergence-driven run lists every chain a group may run (up to `max_chains`).
    let job_chains = until.map_or(counts.chains, |u| u.max_chains);
    let base = profile_overrides(&ef, prof, &pp);
    let axes = grid::axes(&ctx, &ef, prof, &pp)?;
    let n_cells = grid::count_cells(&ctx, &axes, replicates, job_chains, &pp)?;
    let data_dir = match data_dir_override {
        Some(d) => d.to_path_buf(),
        None => {
            let rel = ef.data_dir.clone().unwrap_or_else(|| "../../data".into());
            file.parent().unwrap_or(Path::new(".")).join(rel)
        }
    };
    let expansion = grid::Expansion {
        ef: &ef,
        model,
        axes: &axes,
        sbc,
        run,
        data_ctx: DataContext {
            data_dir: data_dir.clone(),
        },
    };
    let (cells, first_datasets) = grid::expand(&ctx, &expansion, n_cells, base)?;
    check_report_and_monitor(&ctx, &ef, model)?;
    let reported = to_json(&ctx, &ef.reported, "reported")?;
    let checks = checks(&ctx, &ef.checks)?;
    let jobs = expand_jobs(
        &cells,
        ef.chain_seed.unwrap_or(ef.seed),
        replicates,
        job_chains,
    );
    let mut report = ef.report;
    if sbc.is_some() && !report.iter().any(|r| r == sbc_block::REPORT) {
        report.push(sbc_block::REPORT.to_string());
    }
    Ok(Plan {
        file: file.to_path_buf(),
        text: text.to_string(),
        profile,
        model: ef.model,
        chains: counts.chains,
        replicates,
        data_dir,
        checks,
        checkpoint_every: counts.checkpoint_every,
        until: until.map(|u| (u, counts.burn_in.fraction())),
        first_datasets,
        manifest: Manifest {
            name: ef.name,
            description: ef.description,
            profile: profile.as_str().to_string(),
            code_version: CODE_VERSION.to_string(),
            code_versions: vec![CODE_VERSION.to_string()],
            base_seed: ef.seed,
            chain_seed: ef.chain_seed,
            defect: None,
            experiment_file: file.display().to_string(),
            monitor: ef.monitor,
            report,
            reported,
            cells: std::sync::Arc::new(cells),
            jobs: std::sync::Arc::new(jobs),
            until: None,
        },
    })
}

/// The YAML as [`ExperimentFile`], or an error at the line and column the parser gives (a
/// duplicate key at the key itself).
fn parse(file: &Path, text: &str, pos: &Positions) -> Result<ExperimentFile, ExperimentError> {
    yaml_serde::from_str(text).map_err(|e| {
        let loc = e.location();
        let message = strip_location(&e.to_string());
        // yaml_serde places a duplicate key at the start of its mapping: point at the key.
        if let Some((path, line, column)) = pos.duplicate_key()
            && message.contains("duplicate")
        {
            return ExperimentError {
                file: file.to_path_buf(),
                line: Some(line),
                column: Some(column),
                message: format!("duplicate key `{path}`: each key may appear once in its mapping"),
            };
        }
        ExperimentError {
            file: file.to_path_buf(),
            line: loc.as_ref().map(|l| l.line()),
            column: loc.as_ref().map(|l| l.column()),
            message,
        }
    })
}

/// The profile `profile` of the file (`until` must be written to be chosen).
fn select_profile<'f>(
    ctx: &Ctx<'_>,
    ef: &'f ExperimentFile,
    profile: ProfileName,
) -> Result<&'f Profile, ExperimentError> {
    match profile {
        ProfileName::Quick => Ok(&ef.profiles.quick),
        ProfileName::Paper => Ok(&ef.profiles.paper),
        ProfileName::Until => ef.profiles.until.as_ref().ok_or_else(|| {
            ctx.err_at(
                "profiles",
                "profile `until` is not defined in this file: allowed values are quick, paper",
            )
        }),
    }
}

/// The YAML path of a count the profile `pp` may override (`chains`, `run.thin`, ...): the
/// profile's own line where it writes one, else the base's.
fn count_path(pos: &Positions, pp: &str, key: &str) -> String {
    if pos.get(&format!("{pp}.{key}")).is_some() {
        format!("{pp}.{key}")
    } else {
        key.to_string()
    }
}

/// The run's counts with the profile merged over the base, each checked.
struct Counts {
    chains: u64,
    replicates: u64,
    /// `run.burn_in` as written (a count or a fraction of the iterations).
    burn_in: BurnIn,
    run: RunSpec,
    checkpoint_every: CheckpointEvery,
}

/// [`Counts`] of profile `prof` (path `pp`). Errors: a count of 0, a burn-in not below the
/// iterations, more than [`MAX_TRACE_ROWS`] rows a chain, a negative or non-finite
/// `checkpoint_every.seconds`.
fn resolve_counts(
    ctx: &Ctx<'_>,
    ef: &ExperimentFile,
    prof: &Profile,
    pp: &str,
) -> Result<Counts, ExperimentError> {
    let chains = prof.chains.unwrap_or(ef.chains);
    let replicates = prof.replicates.unwrap_or(ef.replicates);
    let mut run_yaml = ef.run.clone();
    if let Some(r) = &prof.run {
        run_yaml.iterations = r.iterations.unwrap_or(run_yaml.iterations);
        run_yaml.burn_in = r.burn_in.unwrap_or(run_yaml.burn_in);
        run_yaml.thin = r.thin.unwrap_or(run_yaml.thin);
    }
    let at = |key: &str| count_path(ctx.pos, pp, key);
    let run = RunSpec {
        iterations: run_yaml.iterations,
        burn_in: run_yaml
            .burn_in
            .of(run_yaml.iterations)
            .map_err(|e| ctx.err_at(&at("run.burn_in"), e))?,
        thin: run_yaml.thin,
    };
    if chains == 0 {
        return Err(ctx.err_at(&at("chains"), "chains must be at least 1"));
    }
    if replicates == 0 {
        return Err(ctx.err_at(&at("replicates"), "replicates must be at least 1"));
    }
    if run.iterations == 0 {
        return Err(ctx.err_at(&at("run.iterations"), "run.iterations must be at least 1"));
    }
    if run.thin == 0 {
        return Err(ctx.err_at(&at("run.thin"), "run.thin must be at least 1"));
    }
    let checkpoint_every = ef.checkpoint_every.unwrap_or_default();
    if let Some(sec) = checkpoint_every.seconds
        && !(sec >= 0.0 && sec.is_finite())
    {
        return Err(ctx.err_at(
            "checkpoint_every.seconds",
            format!("checkpoint_every.seconds must be a number of seconds ≥ 0 (0: not by time), not {sec}"),
        ));
    }
    if run.iterations / run.thin > MAX_TRACE_ROWS {
        return Err(ctx.err_at(
            &at("run.iterations"),
            format!(
                "run.iterations / run.thin = {} trace rows per chain is more than {MAX_TRACE_ROWS}: \
                 raise run.thin",
                run.iterations / run.thin
            ),
        ));
    }
    if run.burn_in >= run.iterations {
        return Err(ctx.err_at(
            &at("run.burn_in"),
            format!(
                "run.burn_in ({}) must be smaller than run.iterations ({})",
                run.burn_in, run.iterations
            ),
        ));
    }
    Ok(Counts {
        chains,
        replicates,
        burn_in: run_yaml.burn_in,
        run,
        checkpoint_every,
    })
}

/// The base `params` and `dataset` with the profile's keys set over them, and for every key the
/// profile sets, the YAML path it came from (errors point there).
fn profile_overrides(
    ef: &ExperimentFile,
    prof: &Profile,
    pp: &str,
) -> (Value, Value, HashMap<String, String>) {
    let mut params = Value::Mapping(ef.params.clone());
    let mut dataset = Value::Mapping(ef.dataset.clone());
    let mut origins: HashMap<String, String> = HashMap::new();
    if let Some(p) = &prof.params {
        for (k, v) in p {
            let key = key_str(k);
            set_path(&mut params, std::slice::from_ref(&key), v.clone());
            origins.insert(format!("params.{key}"), format!("{pp}.params.{key}"));
        }
    }
    if let Some(d) = &prof.dataset {
        for (k, v) in d {
            let key = key_str(k);
            set_path(&mut dataset, std::slice::from_ref(&key), v.clone());
            origins.insert(format!("dataset.{key}"), format!("{pp}.dataset.{key}"));
        }
    }
    (params, dataset, origins)
}

fn key_str(k: &Value) -> String {
    match k {
        Value::String(s) => s.clone(),
        other => yaml_serde::to_string(other)
            .map(|s| s.trim().to_string())
            .unwrap_or_default(),
    }
}

fn set_path(target: &mut Value, parts: &[String], val: Value) {
    let Some((first, rest)) = parts.split_first() else {
        *target = val;
        return;
    };
    if !matches!(target, Value::Mapping(_)) {
        *target = Value::Mapping(Mapping::new());
    }
    if let Value::Mapping(m) = target {
        let k = Value::String(first.clone());
        if !m.contains_key(&k) {
            m.insert(k.clone(), Value::Null);
        }
        if let Some(slot) = m.get_mut(&k) {
            set_path(slot, rest, val);
        }
    }
}

fn to_json(ctx: &Ctx<'_>, v: &Value, ypath: &str) -> Result<serde_json::Value, ExperimentError> {
    // JSON has no infinities or NaN: serde_json would turn `.inf` into null, and the model would
    // then say "invalid type: null". Say what is wrong, at the value.
    if let Some(at) = non_finite(v, ypath) {
        return Err(ctx.err_at(
            &at,
            format!("{at}: non-finite numbers (.inf, .nan) are not allowed"),
        ));
    }
    serde_json::to_value(v)
        .map_err(|e| ctx.err_at(ypath, format!("cannot be represented as data: {e}")))
}

fn strip_location(msg: &str) -> String {
    match msg.find(" at line ") {
        Some(i) => msg[..i].to_string(),
        None => msg.to_string(),
    }
}

/// Group the plan's cells by dataset: `dataset_id → (spec, cells)`.
pub fn datasets(plan: &Plan) -> BTreeMap<String, serde_json::Value> {
    plan.manifest
        .cells
        .iter()
        .map(|c| (c.dataset_id.clone(), c.dataset.clone()))
        .collect()
}

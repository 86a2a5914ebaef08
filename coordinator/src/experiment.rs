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

use causeway_papers::{DataContext, RunSpec, dataset_rng, registry, stable_hash};
use causeway_proto::wire::CODE_VERSION;
use causeway_results::check::Expected;
use causeway_results::rundir::{CellRecord, Manifest};
use serde::Deserialize;
use serde_yaml::{Mapping, Value};

pub use crate::positions::Positions;

mod checks;
mod jobs;
mod sbc;
mod until;
use causeway_results::until::Criterion;
use checks::{check_name, check_report_and_monitor, checks, located, non_finite};
use jobs::expand_jobs;
use sbc::SbcBlock;
use until::{BurnIn, UntilBlock};

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
    /// A file's optional convergence-driven profile (`profiles.until`, issue 13 §2).
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
    /// The chains' streams' seed when it is not `seed` (issue 18): datasets keep `seed`.
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
/// (issue 13). Either may be left out; 0 switches that rule off. Not part of the run's
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

/// [`load`] on text already read (`file` names it in errors).
pub fn plan_from_str(
    file: &Path,
    text: &str,
    profile: ProfileName,
    data_dir_override: Option<&Path>,
) -> Result<Plan, ExperimentError> {
    let pos = Positions::index(text);
    let ef: ExperimentFile = serde_yaml::from_str(text).map_err(|e| {
        let loc = e.location();
        let message = strip_location(&e.to_string());
        // serde_yaml places a duplicate key at the start of its mapping: point at the key.
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
    })?;
    let ctx = Ctx { file, pos: &pos };
    let model = registry::model(&ef.model).map_err(|e| ctx.err_at("model", e.message))?;
    check_name(&ctx, &ef.name)?;
    let prof = match profile {
        ProfileName::Quick => &ef.profiles.quick,
        ProfileName::Paper => &ef.profiles.paper,
        ProfileName::Until => ef.profiles.until.as_ref().ok_or_else(|| {
            ctx.err_at(
                "profiles",
                "profile `until` is not defined in this file: allowed values are quick, paper",
            )
        })?,
    };
    let pp = format!("profiles.{}", profile.as_str());

    // Merge the profile over the base.
    let chains = prof.chains.unwrap_or(ef.chains);
    let replicates = prof.replicates.unwrap_or(ef.replicates);
    let mut run_yaml = ef.run.clone();
    if let Some(r) = &prof.run {
        run_yaml.iterations = r.iterations.unwrap_or(run_yaml.iterations);
        run_yaml.burn_in = r.burn_in.unwrap_or(run_yaml.burn_in);
        run_yaml.thin = r.thin.unwrap_or(run_yaml.thin);
    }
    let count_path = |key: &str| {
        if pos.get(&format!("{pp}.{key}")).is_some() {
            format!("{pp}.{key}")
        } else {
            key.to_string()
        }
    };
    let run = RunSpec {
        iterations: run_yaml.iterations,
        burn_in: run_yaml
            .burn_in
            .of(run_yaml.iterations)
            .map_err(|e| ctx.err_at(&count_path("run.burn_in"), e))?,
        thin: run_yaml.thin,
    };
    if chains == 0 {
        return Err(ctx.err_at(&count_path("chains"), "chains must be at least 1"));
    }
    if replicates == 0 {
        return Err(ctx.err_at(&count_path("replicates"), "replicates must be at least 1"));
    }
    if run.iterations == 0 {
        return Err(ctx.err_at(
            &count_path("run.iterations"),
            "run.iterations must be at least 1",
        ));
    }
    if run.thin == 0 {
        return Err(ctx.err_at(&count_path("run.thin"), "run.thin must be at least 1"));
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
            &count_path("run.iterations"),
            format!(
                "run.iterations / run.thin = {} trace rows per chain is more than {MAX_TRACE_ROWS}: \
                 raise run.thin",
                run.iterations / run.thin
            ),
        ));
    }
    if run.burn_in >= run.iterations {
        return Err(ctx.err_at(
            &count_path("run.burn_in"),
            format!(
                "run.burn_in ({}) must be smaller than run.iterations ({})",
                run.burn_in, run.iterations
            ),
        ));
    }
    let sbc = sbc::resolve(&ctx, &ef, prof, &pp, &run, chains)?;
    sbc::check_report(&ctx, &ef.report, sbc.is_some())?;
    let replicates = sbc.map_or(replicates, |s| s.simulations);
    let until = until::resolve(&ctx, &ef, prof, &pp, &run, chains, sbc.is_some())?;
    // A convergence-driven run lists every chain a group may run (up to `max_chains`).
    let job_chains = until.map_or(chains, |u| u.max_chains);
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
    // Axes: (cell path, yaml path prefix, values).
    let mut product: Vec<(String, String, Vec<Value>)> = Vec::new();
    let mut product_index: HashMap<String, usize> = HashMap::new();
    let mut add_product = |axes: &Mapping, prefix: &str| -> Result<(), ExperimentError> {
        for (k, v) in axes {
            let key = key_str(k);
            let ypath = format!("{prefix}.product.{key}");
            check_axis_key(&ctx, &key, &ypath)?;
            let vals = axis_values(&ctx, v, &ypath)?;
            // A repeated value would make two identical cells (the same seeds, the same chains).
            for (j, b) in vals.iter().enumerate() {
                if let Some(i) = vals[..j].iter().position(|a| a == b) {
                    return Err(ctx.err_at(
                        &format!("{ypath}[{j}]"),
                        format!(
                            "duplicate grid value {} (also at position {i}): it would make two \
                             identical cells",
                            key_str(b)
                        ),
                    ));
                }
            }
            match product_index.get(&key) {
                Some(&i) => product[i] = (key.clone(), ypath, vals),
                None => {
                    product_index.insert(key.clone(), product.len());
                    product.push((key, ypath, vals));
                }
            }
        }
        Ok(())
    };
    add_product(&ef.grid.product, "grid")?;
    let mut zip_src = (&ef.grid.zip, "grid".to_string());
    if let Some(g) = &prof.grid {
        add_product(&g.product, &format!("{pp}.grid"))?;
        if !g.zip.is_empty() {
            zip_src = (&g.zip, format!("{pp}.grid"));
        }
    }
    let mut zips: Vec<Vec<(String, String, Vec<Value>)>> = Vec::new();
    for (gi, group) in zip_src.0.iter().enumerate() {
        let mut axes = Vec::new();
        let mut len = None;
        for (k, v) in group {
            let key = key_str(k);
            let ypath = format!("{}.zip[{gi}].{key}", zip_src.1);
            check_axis_key(&ctx, &key, &ypath)?;
            let vals = axis_values(&ctx, v, &ypath)?;
            if let Some(l) = len
                && l != vals.len()
            {
                return Err(ctx.err_at(
                    &ypath,
                    format!("zip axes must have equal lengths: {key} has {} values, the group's first axis {l}", vals.len()),
                ));
            }
            len = Some(vals.len());
            axes.push((key, ypath, vals));
        }
        // Within a zip group the tuples must differ (one axis may repeat a value).
        let n = len.unwrap_or(0);
        for j in 0..n {
            if let Some(i) = (0..j).find(|&i| axes.iter().all(|a| a.2[i] == a.2[j])) {
                return Err(ctx.err_at(
                    &format!("{}[{j}]", axes[0].1),
                    format!(
                        "zip entry {j} repeats entry {i} on every axis: it would make two \
                         identical cells"
                    ),
                ));
            }
        }
        if !axes.is_empty() {
            zips.push(axes);
        }
    }

    // An axis belongs to one place: the product, or one zip group.
    let mut zip_keys: HashMap<&str, &str> = HashMap::new();
    for (key, ypath, _) in zips.iter().flatten() {
        if product_index.contains_key(key) {
            return Err(ctx.err_at(
                ypath,
                format!("{key} is an axis of both product and zip: list it in one of them"),
            ));
        }
        if let Some(other) = zip_keys.insert(key, ypath) {
            return Err(ctx.err_at(
                ypath,
                format!("{key} is an axis of two zip groups (also at {other}): list it once"),
            ));
        }
    }

    // Expand: product axes (file order, first outermost), then zip groups.
    let mut dims: Vec<usize> = product.iter().map(|a| a.2.len()).collect();
    dims.extend(zips.iter().map(|g| g[0].2.len()));
    let n_cells = dims
        .iter()
        .try_fold(1usize, |n, &d| n.checked_mul(d))
        .filter(|&n| n <= MAX_CELLS)
        .ok_or_else(|| ctx.err_at("grid", format!("the grid has more than {MAX_CELLS} cells")))?;
    let n_chains = (n_cells as u64)
        .checked_mul(replicates)
        .and_then(|n| n.checked_mul(job_chains))
        .filter(|&n| n <= MAX_CHAINS);
    if n_chains.is_none() {
        // Point at the largest factor the file writes (a missing `replicates:` used to send
        // the error to line 1): the grid, or the `replicates:` or `chains:` line.
        let written = |path: &str| pos.get(path).is_some();
        let mut factors: Vec<(u64, String)> = vec![(n_cells as u64, "grid".to_string())];
        for (n, key) in [(replicates, "replicates"), (job_chains, "chains")] {
            let path = count_path(key);
            if written(&path) {
                factors.push((n, path));
            }
        }
        factors.retain(|(_, p)| written(p));
        let at = factors
            .iter()
            .max_by_key(|(n, _)| *n)
            .map_or_else(|| "grid".to_string(), |(_, p)| p.clone());
        return Err(ctx.err_at(
            &at,
            format!(
                "{n_cells} cells × {replicates} replicates × {job_chains} chains is more than \
                 {MAX_CHAINS} chains in all"
            ),
        ));
    }
    let data_dir = match data_dir_override {
        Some(d) => d.to_path_buf(),
        None => {
            let rel = ef.data_dir.clone().unwrap_or_else(|| "../../data".into());
            file.parent().unwrap_or(Path::new(".")).join(rel)
        }
    };
    let data_ctx = DataContext {
        data_dir: data_dir.clone(),
    };
    let mut first_replicates: HashMap<u64, causeway_papers::Dataset> = HashMap::new();
    let mut cells = Vec::with_capacity(n_cells);
    let base = (params, dataset);
    for index in 0..n_cells {
        // mixed-radix digits, last axis fastest
        let mut rem = index;
        let mut digits = vec![0usize; dims.len()];
        for d in (0..dims.len()).rev() {
            digits[d] = rem % dims[d];
            rem /= dims[d];
        }
        let (mut params, mut dataset) = base.clone();
        let mut cell_origins = origins.clone();
        let mut axes_json = serde_json::Map::new();
        let mut assign =
            |key: &str, ypath: &str, val: &Value, i: usize| -> Result<(), ExperimentError> {
                let parts: Vec<String> = key.split('.').map(str::to_string).collect();
                let target = if parts[0] == "params" {
                    &mut params
                } else {
                    &mut dataset
                };
                set_path(target, &parts[1..], val.clone());
                cell_origins.insert(key.to_string(), format!("{ypath}[{i}]"));
                axes_json.insert(
                    key.to_string(),
                    to_json(&ctx, val, &format!("{ypath}[{i}]"))?,
                );
                Ok(())
            };
        for (d, (key, ypath, vals)) in product.iter().enumerate() {
            assign(key, ypath, &vals[digits[d]], digits[d])?;
        }
        for (g, group) in zips.iter().enumerate() {
            let i = digits[product.len() + g];
            for (key, ypath, vals) in group {
                assign(key, ypath, &vals[i], i)?;
            }
        }
        let mut params_json = to_json(&ctx, &params, "params")?;
        let dataset_json = to_json(&ctx, &dataset, "dataset")?;
        if let Err(e) = model.validate(&params_json, &dataset_json) {
            return Err(located(&ctx, &cell_origins, e, &axes_json));
        }
        // An SBC cell's data are drawn from its params' prior: its datasets are its own.
        let dkey = stable_hash(
            match sbc {
                None => serde_json::json!({"model": ef.model, "dataset": dataset_json}),
                Some(_) => serde_json::json!({"model": ef.model, "params": params_json,
                                              "dataset": dataset_json}),
            }
            .to_string()
            .as_bytes(),
        );
        let own_params = params_json.clone(); // the model's own keys, without `sbc`
        if let Some(s) = sbc {
            sbc::mark_cell(&mut params_json, s);
        }
        let key = stable_hash(
            serde_json::json!({"model": ef.model, "params": params_json, "dataset": dataset_json})
                .to_string()
                .as_bytes(),
        );
        // Every dataset is built (files read, synthetic data drawn) once, here, so a missing
        // or malformed file, or params that do not fit the data, stop the run before any chain.
        if let std::collections::hash_map::Entry::Vacant(slot) = first_replicates.entry(dkey) {
            let mut rng = dataset_rng(ef.seed, dkey, 0);
            match causeway_papers::sbc::build_dataset(
                model,
                &params_json,
                &dataset_json,
                &data_ctx,
                &mut rng,
            ) {
                Ok(d) => {
                    slot.insert(d);
                }
                Err(e) => return Err(located(&ctx, &cell_origins, e, &axes_json)),
            }
        }
        if let Some(data) = first_replicates.get(&dkey)
            && let Err(e) = model.check_cell(&own_params, data)
        {
            return Err(located(&ctx, &cell_origins, e, &axes_json));
        }
        cells.push(CellRecord {
            index,
            key,
            model: ef.model.clone(),
            params: params_json,
            dataset: dataset_json,
            run,
            axes: axes_json,
            dataset_key: dkey,
            dataset_id: format!("d{dkey:016x}"),
        });
    }
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
    if sbc.is_some() && !report.iter().any(|r| r == sbc::REPORT) {
        report.push(sbc::REPORT.to_string());
    }
    Ok(Plan {
        file: file.to_path_buf(),
        text: text.to_string(),
        profile,
        model: ef.model,
        chains,
        replicates,
        data_dir,
        checks,
        checkpoint_every,
        until: until.map(|u| (u, run_yaml.burn_in.fraction())),
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
            cells,
            jobs,
            until: None,
        },
    })
}

fn check_axis_key(ctx: &Ctx<'_>, key: &str, ypath: &str) -> Result<(), ExperimentError> {
    let ok = (key.starts_with("params.") || key.starts_with("dataset."))
        && !key.ends_with('.')
        && !key.contains("..");
    if ok {
        Ok(())
    } else {
        Err(ctx.err_at(
            ypath,
            format!("grid axis {key:?} must be a path into the cell: allowed prefixes are `params.` and `dataset.`"),
        ))
    }
}

fn axis_values(ctx: &Ctx<'_>, v: &Value, ypath: &str) -> Result<Vec<Value>, ExperimentError> {
    match v {
        Value::Sequence(s) if !s.is_empty() => Ok(s.clone()),
        Value::Sequence(_) => Err(ctx.err_at(ypath, "a grid axis needs at least one value")),
        _ => Err(ctx.err_at(ypath, "a grid axis must be a list of values")),
    }
}

fn key_str(k: &Value) -> String {
    match k {
        Value::String(s) => s.clone(),
        other => serde_yaml::to_string(other)
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

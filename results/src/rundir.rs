//! The run directory: its layout, its manifest, and the one way a chain's output is stored.
//!
//! Layout (stable; scripts rely on it):
//! ```text
//! <out>/
//!   manifest.json                 experiment as run, code version, seeds, cells, jobs
//!   experiment.yaml               the YAML file exactly as given
//!   jobs.sqlite                   the durable job table (schema: [`schema`]; written by the
//!                                 coordinator's `store`): state per chain, checkpoints, and each
//!                                 done chain's timing: iteration, elapsed_seconds (wall clock;
//!                                 not deterministic; see [`timing`])
//!   journal/shard-<s>.journal     a finished chain's result, appended before its row says done,
//!                                 until its shard is sealed (the coordinator's `store::journal`)
//!   jobs.csv                      jobs.sqlite exported at the end: state, attempts, worker, error
//!   coordinator.url               with `run --listen`: the URL workers join with
//!   datasets/<dataset>.observed.parquet, <dataset>.truth.parquet
//!   chains/shard-<s>.trace.parquet  the chains of plan jobs s·m .. (s+1)·m, m = ⌈jobs / 256⌉
//!                                 (at most 256 shards; see [`shards`]): job_id, iteration and
//!                                 one f64 column per traced scalar (the draws: ArviZ's
//!                                 `posterior`); its footer (key `causeway.chains`, JSON) lists
//!                                 each chain's plan index, rows, columns and summary matrices
//!   chains/shard-<s>.sample_stats.parquet  job_id, iteration and one f64 column per sampler
//!                                 statistic (ArviZ's `sample_stats`: particle ESS,
//!                                 resamplings, VB iterations, ...); only if a chain has any
//!   chains/shard-<s>.summary.parquet  job_id, matrix, rows, cols, values (list of f64): one
//!                                 row per summary matrix of more than 64 values (their footer
//!                                 entry keeps the shape); only if a chain has one (written
//!                                 before: one row per value, job_id, matrix, row, col, value)
//!   chains/<job>.trace.parquet, <job>.sample_stats.parquet  only in run directories written
//!                                 before shards: one chain each, its summary in the trace's
//!                                 footer (key `causeway.summary`) or, older still, in
//!                                 <job>.summary.parquet (all still read)
//!   timing/<job>.parquet          only in run directories written before the job table held
//!                                 the timings (still read)
//!   tables/*.md, tables/*.csv     the paper's tables
//!   figures/*.svg                 figures
//! ```
//! Everything under `chains/` and `datasets/` is a deterministic function of the YAML and of
//! which chains are stored: the same file gives byte-identical Parquet whatever the worker
//! count, order or retries.

use std::fs;
use std::path::{Path, PathBuf};

use causeway_papers::{Dataset, Matrix};
use polars::prelude::*;
use serde::{Deserialize, Serialize};

mod chains;
mod completeness;
pub mod digest;
mod draws;
mod parquet;
pub mod schema;
pub mod shards;
pub mod timing;
mod until_record;
pub use chains::StoredIndex;
pub use completeness::{MissingChains, missing_summary};
pub use draws::{
    ChainDraws, StoredRows, chain_draws, chain_draws_of, columns_after_burn_in, stored_chains,
    stored_rows, trace_rows,
};
pub use parquet::{
    AtomicFile, SUMMARY_KEY, footer_value, parquet_bytes, parquet_frame_defect, read_matrices,
    read_parquet, summary_from_json, summary_to_json, write_atomic, write_csv, write_matrices,
    write_parquet, write_parquet_with,
};
pub use timing::ChainTiming;
pub use until_record::{Criterion, GroupRecord, GroupState, RoundRecord, UntilRecord};

/// Errors reading or writing a run directory.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}: {source}")]
    Polars { path: PathBuf, source: PolarsError },
    #[error("{path}: {message}")]
    Format { path: PathBuf, message: String },
}

impl StoreError {
    /// The file system is full or the user's quota is spent (ENOSPC, EDQUOT): every further
    /// write would fail the same way, so a run stops instead of failing chain after chain.
    pub fn is_storage_full(&self) -> bool {
        use std::io::ErrorKind::{QuotaExceeded, StorageFull};
        matches!(self, StoreError::Io { source, .. }
            if matches!(source.kind(), StorageFull | QuotaExceeded))
    }
}

fn io_err(path: &Path) -> impl FnOnce(std::io::Error) -> StoreError + '_ {
    move |source| StoreError::Io {
        path: path.to_path_buf(),
        source,
    }
}
fn pl_err(path: &Path) -> impl FnOnce(PolarsError) -> StoreError + '_ {
    move |source| StoreError::Polars {
        path: path.to_path_buf(),
        source,
    }
}

/// The seed coordinates of one chain (see `causeway_papers::seed`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeedRecord {
    pub base_seed: u64,
    pub cell: u64,
    pub replicate: u64,
    pub chain: u64,
}

/// One grid cell: a model, its parameters, its dataset spec and its run length.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CellRecord {
    /// Position in the expanded grid (0-based).
    pub index: usize,
    /// Stable hash of the cell's canonical JSON (its seed key).
    pub key: u64,
    pub model: String,
    pub params: serde_json::Value,
    pub dataset: serde_json::Value,
    pub run: causeway_papers::RunSpec,
    /// The axis values that distinguish this cell, as `path → value` (for table rows).
    pub axes: serde_json::Map<String, serde_json::Value>,
    /// Stable hash of the model and dataset spec: the dataset RNG key. Cells with equal
    /// dataset specs share their data.
    pub dataset_key: u64,
    /// `d<dataset_key as 16 hex digits>`; replicate r's files are `datasets/<id>-r<r>.*`.
    pub dataset_id: String,
}

impl CellRecord {
    /// The cell's parameter `key` (a top-level key of `params`), if set.
    pub fn param(&self, key: &str) -> Option<&serde_json::Value> {
        self.params.get(key)
    }

    /// Replace `out` with the cell's canonical JSON, as [`JobRecord::write_canonical`] does for
    /// a job: its keys sorted (the JSON values' maps are sorted already), compact, the text a
    /// `serde_json::Value` of the cell prints. A `Value` of every cell was a fifth of the
    /// coordinator's set-up on the CEP grid's 20,520 cells.
    fn write_canonical(&self, out: &mut Vec<u8>) {
        use std::io::Write as _;
        // Every field named, so that a new one cannot be left out of the text.
        let CellRecord {
            index,
            key,
            model,
            params,
            dataset,
            run,
            axes,
            dataset_key,
            dataset_id,
        } = self;
        let causeway_papers::RunSpec {
            iterations,
            burn_in,
            thin,
        } = run;
        out.clear();
        // Writing to a Vec cannot fail, nor can serde_json's writing of a string or a `Value`
        // (whose map keys are strings) into one.
        let _ = write!(out, r#"{{"axes":"#);
        let _ = serde_json::to_writer(&mut *out, axes);
        let _ = write!(out, r#","dataset":"#);
        let _ = serde_json::to_writer(&mut *out, dataset);
        let _ = write!(out, r#","dataset_id":"#);
        let _ = serde_json::to_writer(&mut *out, dataset_id);
        let _ = write!(
            out,
            r#","dataset_key":{dataset_key},"index":{index},"key":{key},"model":"#
        );
        let _ = serde_json::to_writer(&mut *out, model);
        let _ = write!(out, r#","params":"#);
        let _ = serde_json::to_writer(&mut *out, params);
        let _ = write!(
            out,
            r#","run":{{"burn_in":{burn_in},"iterations":{iterations},"thin":{thin}}}}}"#
        );
    }
}

/// One chain.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JobRecord {
    pub job_id: String,
    pub cell: usize,
    pub replicate: u64,
    pub chain: u64,
    pub seed: SeedRecord,
}

impl JobRecord {
    /// Replace `out` with the job's canonical JSON: its keys sorted, compact, as a
    /// `serde_json::Value` prints it (what [`Manifest::identity`] hashes), written directly: a
    /// `Value` per job was a third of the set-up of a run of 10⁵ one-iteration chains.
    fn write_canonical(&self, out: &mut Vec<u8>) {
        use std::io::Write as _;
        // Every field named, so that a new one cannot be left out of the text.
        let JobRecord {
            job_id,
            cell,
            replicate,
            chain,
            seed,
        } = self;
        let SeedRecord {
            base_seed,
            cell: seed_cell,
            replicate: seed_replicate,
            chain: seed_chain,
        } = seed;
        out.clear();
        // Writing to a Vec cannot fail (nor can serde_json's writing of a string into one).
        let _ = write!(out, r#"{{"cell":{cell},"chain":{chain},"job_id":"#);
        let _ = serde_json::to_writer(&mut *out, job_id);
        let _ = write!(
            out,
            r#","replicate":{replicate},"seed":{{"base_seed":{base_seed},"cell":{seed_cell},"chain":{seed_chain},"replicate":{seed_replicate}}}}}"#
        );
    }
}

/// Everything needed to rerun and to analyse a run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    pub name: String,
    pub description: String,
    pub profile: String,
    /// The code version of the latest `causeway run` on this directory.
    pub code_version: String,
    /// Every code version that ran chains of this run, oldest first: a run resumed after an
    /// upgrade lists both (the chains stored before the upgrade came from the older code).
    /// Absent in manifests written before this field existed.
    #[serde(default)]
    pub code_versions: Vec<String>,
    /// The experiment's seed: every dataset's stream, and the chains' unless `chain_seed` is
    /// set.
    pub base_seed: u64,
    /// The chains' streams' seed when it differs from `base_seed` (`chain_seed:` or
    /// `--chain-seed`); absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chain_seed: Option<u64>,
    /// The deliberately broken kernel every chain ran (`CAUSEWAY_DEFECT` in a `testing` build:
    /// a power run of `causeway check --statistical`, never a result); absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub defect: Option<String>,
    pub experiment_file: String,
    /// Scalars monitored for convergence (R-hat, ESS) in every table.
    pub monitor: Vec<String>,
    /// Report kinds to build (e.g. `wood2006.fig3`).
    pub report: Vec<String>,
    /// The papers' reported values, as written in the YAML, for side-by-side tables.
    pub reported: serde_json::Value,
    /// Shared, as `jobs` is: the plan and the manifests written from it hold this one list.
    pub cells: std::sync::Arc<Vec<CellRecord>>,
    /// Every chain the run may run; in a convergence-driven run, also the chains a group only
    /// runs if it needs more (`until.max_chains`): a chain without files was not run. Shared:
    /// the runner's tasks and the manifest it writes hold this one list (10⁶ chains: ≈ 100 MB).
    pub jobs: std::sync::Arc<Vec<JobRecord>>,
    /// The `until:` block and its rounds; absent for a run of fixed length.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub until: Option<UntilRecord>,
}

impl Manifest {
    /// The number of replicates: one more than the largest job replicate (0 without jobs).
    pub fn replicates(&self) -> u64 {
        self.jobs
            .iter()
            .map(|j| j.replicate)
            .max()
            .map_or(0, |r| r + 1)
    }

    /// The seed of the chains' streams: `chain_seed` if set, else `base_seed`.
    pub fn chains_seed(&self) -> u64 {
        self.chain_seed.unwrap_or(self.base_seed)
    }

    /// The run's identity: a stable hash (FNV-1a, 16 hex digits) of its cells and its chains
    /// with their seeds, i.e. of everything that decides what the stored chains are. Two plans
    /// with the same identity produce the same chains; the job table records it.
    ///
    /// The hashed text is the canonical JSON (sorted keys) of `{"cells": …, "jobs": […]}`, fed
    /// to the hash one job at a time: a run of 10⁵ chains would otherwise hold that whole text
    /// and its JSON tree at once (≈ 1.5 kB a chain at the start of the run).
    pub fn identity(&self) -> String {
        use causeway_papers::{STABLE_HASH_START, stable_hash_extend};
        /// `h` extended by `items`' canonical texts, comma-separated.
        fn extend_list<'a, T: 'a>(
            mut h: u64,
            items: impl Iterator<Item = &'a T>,
            write: impl Fn(&T, &mut Vec<u8>),
            text: &mut Vec<u8>,
        ) -> u64 {
            for (i, item) in items.enumerate() {
                if i > 0 {
                    h = stable_hash_extend(h, b",");
                }
                write(item, text);
                h = stable_hash_extend(h, text);
            }
            h
        }
        let mut text = Vec::new();
        let mut h = stable_hash_extend(STABLE_HASH_START, br#"{"cells":["#);
        h = extend_list(h, self.cells.iter(), CellRecord::write_canonical, &mut text);
        h = stable_hash_extend(h, br#"],"jobs":["#);
        h = extend_list(h, self.jobs.iter(), JobRecord::write_canonical, &mut text);
        h = stable_hash_extend(h, b"]}");
        format!("{h:016x}")
    }
}

/// A run directory on disk.
#[derive(Debug, Clone)]
pub struct RunDir {
    pub root: PathBuf,
    /// Which chains are stored, and the shards read last (shared by clones; see [`chains`]).
    chains: std::sync::Arc<std::sync::Mutex<chains::Cache>>,
}

impl RunDir {
    /// Create (or reopen) the directory tree under `root`.
    pub fn create(root: impl Into<PathBuf>) -> Result<Self, StoreError> {
        let rd = RunDir::open(root);
        for sub in ["chains", "datasets", "tables", "figures"] {
            let p = rd.root.join(sub);
            fs::create_dir_all(&p).map_err(io_err(&p))?;
        }
        Ok(rd)
    }

    /// Open an existing run directory (does not create anything).
    pub fn open(root: impl Into<PathBuf>) -> Self {
        RunDir {
            root: root.into(),
            chains: Default::default(),
        }
    }

    pub fn manifest_path(&self) -> PathBuf {
        self.root.join("manifest.json")
    }
    /// `timing/<job>.parquet`: where run directories written before the job table held the
    /// timings keep them ([`RunDir::read_timing`] reads either).
    pub fn timing_path(&self, job_id: &str) -> PathBuf {
        self.root.join("timing").join(format!("{job_id}.parquet"))
    }
    pub fn dataset_path(&self, dataset_id: &str, replicate: u64, part: &str) -> PathBuf {
        self.root
            .join("datasets")
            .join(format!("{dataset_id}-r{replicate}.{part}.parquet"))
    }
    pub fn tables_dir(&self) -> PathBuf {
        self.root.join("tables")
    }
    pub fn figures_dir(&self) -> PathBuf {
        self.root.join("figures")
    }
    /// `units/`: the per-unit rows behind a table (one row per job, per fold), as CSV. Not a
    /// table: a unit's single value carries no Monte Carlo error, so `causeway check` compares
    /// the tables built from them, not these.
    pub fn units_dir(&self) -> PathBuf {
        self.root.join("units")
    }

    /// Write the manifest (pretty JSON) atomically.
    pub fn write_manifest(&self, m: &Manifest) -> Result<(), StoreError> {
        let path = self.manifest_path();
        // Written as it is serialised: the text of 10⁶ chains is ≈ 270 MB.
        let mut out = AtomicFile::create(&path)?;
        serde_json::to_writer_pretty(&mut out, m).map_err(|e| StoreError::Format {
            path: out.tmp_path().to_path_buf(),
            message: e.to_string(),
        })?;
        out.commit()
    }

    /// Read the manifest.
    pub fn read_manifest(&self) -> Result<Manifest, StoreError> {
        let path = self.manifest_path();
        // Parsed as it is read: the text of 10⁶ chains is ≈ 270 MB.
        let file = fs::File::open(&path).map_err(io_err(&path))?;
        serde_json::from_reader(std::io::BufReader::new(file)).map_err(|e| StoreError::Format {
            path,
            message: e.to_string(),
        })
    }

    /// Remove the `*.tmp` files a killed writer left in `chains/` and `timing/` (see
    /// [`write_atomic`]); returns how many. Call it only while holding the directory's lock:
    /// a live writer's temporary file would go too.
    ///
    /// # Errors
    /// A file that exists and cannot be removed.
    pub fn remove_partial_files(&self) -> Result<usize, StoreError> {
        let mut removed = 0;
        for sub in ["chains", "timing"] {
            let Ok(entries) = fs::read_dir(self.root.join(sub)) else {
                continue;
            };
            for e in entries.flatten() {
                let path = e.path();
                if path.extension().is_some_and(|x| x == "tmp") {
                    fs::remove_file(&path).map_err(io_err(&path))?;
                    removed += 1;
                }
            }
        }
        Ok(removed)
    }

    /// Store a dataset replicate (observed and truth).
    pub fn write_dataset(
        &self,
        dataset_id: &str,
        replicate: u64,
        d: &Dataset,
    ) -> Result<(), StoreError> {
        write_matrices(
            &self.dataset_path(dataset_id, replicate, "observed"),
            &d.observed,
        )?;
        write_matrices(&self.dataset_path(dataset_id, replicate, "truth"), &d.truth)
    }

    /// Read a dataset replicate back.
    pub fn read_dataset(&self, dataset_id: &str, replicate: u64) -> Result<Dataset, StoreError> {
        Ok(Dataset {
            observed: read_matrices(&self.dataset_path(dataset_id, replicate, "observed"))?,
            truth: read_matrices(&self.dataset_path(dataset_id, replicate, "truth"))?,
        })
    }

    /// Start writing `jobs.csv`, the coordinator's job table exported: one row per chain, added
    /// with [`JobTableCsv::row`] as they are read, so that the table is never held in memory
    /// (10⁶ chains: ≈ 100 MB as columns). The file appears, atomically, at
    /// [`JobTableCsv::finish`].
    pub fn job_table_csv(&self) -> Result<JobTableCsv, StoreError> {
        let file = AtomicFile::create(&self.root.join("jobs.csv"))?;
        let tmp = file.tmp_path().to_path_buf();
        let mut out = csv::Writer::from_writer(file);
        out.write_record(["job_id", "state", "attempts", "worker", "error"])
            .map_err(csv_err(&tmp))?;
        Ok(JobTableCsv { tmp, out })
    }
}

/// `jobs.csv` being written (see [`RunDir::job_table_csv`]): columns job_id, state, attempts,
/// worker, error.
pub struct JobTableCsv {
    tmp: PathBuf,
    out: csv::Writer<AtomicFile>,
}

impl JobTableCsv {
    /// Add one chain's row.
    pub fn row(
        &mut self,
        job_id: &str,
        state: &str,
        attempts: u32,
        worker: &str,
        error: &str,
    ) -> Result<(), StoreError> {
        let attempts = attempts.to_string();
        self.out
            .write_record([job_id, state, &attempts, worker, error])
            .map_err(csv_err(&self.tmp))
    }

    /// Flush the rows and put the file in place.
    pub fn finish(self) -> Result<(), StoreError> {
        let tmp = self.tmp;
        self.out
            .into_inner()
            .map_err(|e| StoreError::Io {
                path: tmp,
                source: e.into_error(),
            })?
            .commit()
    }
}

fn csv_err(path: &Path) -> impl FnOnce(csv::Error) -> StoreError + '_ {
    move |e| StoreError::Format {
        path: path.to_path_buf(),
        message: e.to_string(),
    }
}

/// Find a summary matrix by name.
pub fn find<'a>(ms: &'a [Matrix], name: &str) -> Option<&'a Matrix> {
    ms.iter().find(|m| m.name == name)
}

#[cfg(test)]
mod tests {
    /// The identity's text of a cell, written directly, is the `serde_json::Value`'s text it
    /// stands for (sorted keys, nested maps too), whatever its strings and numbers hold.
    #[test]
    fn a_cells_canonical_text_is_its_json_values_text() {
        let params = serde_json::json!({
            "setting": 20, "n_latent": 1, "alpha": 0.1, "tiny": 1e-300, "neg": -2.5e17,
            "method": "smc", "nested": {"z": [1, 2.5, "q\"uote"], "a": null, "m": true},
        });
        for (i, model) in ["kurutmaz2019", "ünïcode ✓ \u{1} \" \\"]
            .into_iter()
            .enumerate()
        {
            let mut axes = serde_json::Map::new();
            axes.insert("params.setting".into(), serde_json::json!(20));
            axes.insert("dataset.pair".into(), serde_json::json!("pair86"));
            let cell = CellRecord {
                index: i * 7,
                key: u64::MAX - i as u64,
                model: model.to_string(),
                params: params.clone(),
                dataset: serde_json::json!({"pair": "pair86", "kind": "cep", "standardize": true}),
                run: causeway_papers::RunSpec {
                    iterations: 350_000,
                    burn_in: 200_000,
                    thin: 100,
                },
                axes,
                dataset_key: 42,
                dataset_id: format!("d{:016x}", 42),
            };
            let mut text = Vec::new();
            cell.write_canonical(&mut text);
            let want = serde_json::to_value(&cell).expect("value").to_string();
            assert_eq!(String::from_utf8(text).expect("utf-8"), want);
        }
    }

    /// The identity's text of a job, written directly, is the `serde_json::Value`'s text it
    /// stands for (sorted keys), whatever the job id holds.
    #[test]
    fn a_jobs_canonical_text_is_its_json_values_text() {
        for (id, n) in [
            ("cell0-rep0-chain0", 0u64),
            ("quote \" back \\ tab \t nl \n", 7),
            ("ünïcode ✓ \u{1}\u{1f}", u64::MAX),
        ] {
            let job = JobRecord {
                job_id: id.to_string(),
                cell: n as usize,
                replicate: n / 3,
                chain: 2,
                seed: SeedRecord {
                    base_seed: n,
                    cell: 11,
                    replicate: n / 5,
                    chain: 1,
                },
            };
            let mut text = Vec::new();
            job.write_canonical(&mut text);
            let want = serde_json::to_value(&job).expect("value").to_string();
            assert_eq!(String::from_utf8(text).expect("utf-8"), want);
        }
    }

    use super::*;

    /// `jobs.csv` appears only once finished (a killed run leaves the older file, not half a
    /// table), and an error text with a comma, a quote and a line break stays one field.
    #[test]
    fn the_job_table_csv_appears_whole_and_quotes_its_fields() {
        let dir = tempfile::tempdir().expect("tempdir");
        let rd = RunDir::create(dir.path()).expect("run dir");
        let path = dir.path().join("jobs.csv");
        let mut csv = rd.job_table_csv().expect("open");
        csv.row("cell0-rep0-chain0", "done", 1, "local-0", "")
            .expect("row");
        csv.row(
            "cell0-rep0-chain1",
            "failed",
            3,
            "w,1",
            "bad \"x\",\nline 2",
        )
        .expect("row");
        assert!(!path.exists(), "jobs.csv before finish");
        csv.finish().expect("finish");
        let df = polars::prelude::CsvReadOptions::default()
            .try_into_reader_with_file_path(Some(path))
            .and_then(|r| r.finish())
            .expect("read jobs.csv");
        assert_eq!(df.height(), 2);
        let col = |name: &str| df.column(name).expect("column").str().expect("str").get(1);
        assert_eq!(col("worker"), Some("w,1"));
        assert_eq!(col("error"), Some("bad \"x\",\nline 2"));
    }

    /// ENOSPC and EDQUOT (a cluster's inode or byte quota) stop a run; other I/O errors fail
    /// only the chain they hit.
    #[test]
    fn a_full_disk_or_a_spent_quota_is_storage_full() {
        let io = |e: std::io::Error| StoreError::Io {
            path: PathBuf::from("chains/x.trace.parquet"),
            source: e,
        };
        #[cfg(target_os = "linux")]
        for errno in [28, 122] {
            assert!(
                io(std::io::Error::from_raw_os_error(errno)).is_storage_full(),
                "{errno}"
            );
        }
        assert!(io(std::io::ErrorKind::StorageFull.into()).is_storage_full());
        assert!(!io(std::io::ErrorKind::PermissionDenied.into()).is_storage_full());
        assert!(
            !StoreError::Format {
                path: PathBuf::new(),
                message: "no space".into()
            }
            .is_storage_full()
        );
    }

    /// The identity hashed in pieces is the hash of the whole canonical text it replaced, so
    /// the job tables of existing run directories keep matching their plans.
    #[test]
    fn identity_in_pieces_equals_the_hash_of_the_whole_canonical_text() {
        let cell = |i: usize| {
            serde_json::json!({
                "index": i, "key": 7 + i, "model": "wood2006",
                "params": {"alpha": 1.5, "sampler": "gibbs"}, "dataset": {"kind": "ibp_synthetic"},
                "run": {"iterations": 10, "burn_in": 2, "thin": 1},
                "axes": {"params.alpha": 1.5}, "dataset_key": 99, "dataset_id": "d0000000000000063"
            })
        };
        let job = |c: usize, k: u64| {
            serde_json::json!({
                "job_id": format!("cell{c}-rep0-chain{k}"), "cell": c, "replicate": 0, "chain": k,
                "seed": {"base_seed": 5, "cell": 7 + c, "replicate": 0, "chain": k}
            })
        };
        let mut m: Manifest = serde_json::from_value(serde_json::json!({
            "name": "t", "description": "", "profile": "quick", "code_version": "x",
            "base_seed": 5, "experiment_file": "t.yaml", "monitor": [], "report": [],
            "reported": null, "cells": [cell(0), cell(1)],
            "jobs": [job(0, 0), job(0, 1), job(1, 0)]
        }))
        .expect("manifest");
        for n_jobs in [3, 1, 0] {
            std::sync::Arc::make_mut(&mut m.jobs).truncate(n_jobs);
            let whole = serde_json::json!({"cells": m.cells, "jobs": m.jobs}).to_string();
            let expected = format!("{:016x}", causeway_papers::stable_hash(whole.as_bytes()));
            assert_eq!(m.identity(), expected, "{n_jobs} jobs");
        }
    }
}

//! The run directory: its layout, its manifest, and the one way a chain's output is stored.
//!
//! Layout (stable; scripts rely on it):
//! ```text
//! <out>/
//!   manifest.json                 experiment as run, code version, seeds, cells, jobs
//!   experiment.yaml               the YAML file exactly as given
//!   jobs.sqlite                   the durable job table (coordinator's `store`): state per chain,
//!                                 and each done chain's timing: iteration, elapsed_seconds
//!                                 (wall clock; not deterministic; see [`timing`])
//!   jobs.csv                      jobs.sqlite exported at the end: state, attempts, worker, error
//!   coordinator.url               with `run --listen`: the URL workers join with
//!   datasets/<dataset>.observed.parquet, <dataset>.truth.parquet
//!   chains/<job>.trace.parquet    iteration + one f64 column per traced scalar (the draws:
//!                                 ArviZ's `posterior` group)
//!   chains/<job>.sample_stats.parquet  iteration + one f64 column per sampler statistic
//!                                 (ArviZ's `sample_stats`: particle ESS, resamplings, VB
//!                                 iterations, ...); only for samplers that record any
//!   chains/<job>.summary.parquet  one row per summary matrix (name, rows, cols, values, names)
//!   timing/<job>.parquet          only in run directories written before the job table held
//!                                 the timings (still read)
//!   tables/*.md, tables/*.csv     the paper's tables
//!   figures/*.svg                 figures
//! ```
//! Everything under `chains/` and `datasets/` is a deterministic function of the YAML: the same
//! file gives byte-identical Parquet whatever the worker count, order or retries.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use causeway_papers::{ChainOutput, Dataset, Matrix};
use polars::prelude::*;
use serde::{Deserialize, Serialize};

pub mod timing;
pub use timing::ChainTiming;

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
    pub cells: Vec<CellRecord>,
    /// Every chain the run may run; in a convergence-driven run, also the chains a group only
    /// runs if it needs more (`until.max_chains`): a chain without files was not run.
    pub jobs: Vec<JobRecord>,
    /// The `until:` block and its rounds (issue 13 §2); absent for a run of fixed length.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub until: Option<crate::until::UntilRecord>,
}

impl Manifest {
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
        fn canonical<T: Serialize>(x: &T) -> String {
            // A `Value` sorts the keys of every object (serde_json without `preserve_order`).
            serde_json::to_value(x).map_or_else(|e| e.to_string(), |v| v.to_string())
        }
        let mut h = stable_hash_extend(STABLE_HASH_START, br#"{"cells":"#);
        h = stable_hash_extend(h, canonical(&self.cells).as_bytes());
        h = stable_hash_extend(h, br#","jobs":["#);
        for (i, job) in self.jobs.iter().enumerate() {
            if i > 0 {
                h = stable_hash_extend(h, b",");
            }
            h = stable_hash_extend(h, canonical(job).as_bytes());
        }
        h = stable_hash_extend(h, b"]}");
        format!("{h:016x}")
    }
}

/// A run directory on disk.
#[derive(Debug, Clone)]
pub struct RunDir {
    pub root: PathBuf,
}

impl RunDir {
    /// Create (or reopen) the directory tree under `root`.
    pub fn create(root: impl Into<PathBuf>) -> Result<Self, StoreError> {
        let rd = RunDir { root: root.into() };
        for sub in ["chains", "datasets", "tables", "figures"] {
            let p = rd.root.join(sub);
            fs::create_dir_all(&p).map_err(io_err(&p))?;
        }
        Ok(rd)
    }

    /// Open an existing run directory (does not create anything).
    pub fn open(root: impl Into<PathBuf>) -> Self {
        RunDir { root: root.into() }
    }

    pub fn manifest_path(&self) -> PathBuf {
        self.root.join("manifest.json")
    }
    /// `chains/<job>.sample_stats.parquet`: the sampler's statistics, apart from the draws.
    pub fn sample_stats_path(&self, job_id: &str) -> PathBuf {
        self.root
            .join("chains")
            .join(format!("{job_id}.sample_stats.parquet"))
    }
    pub fn trace_path(&self, job_id: &str) -> PathBuf {
        self.root
            .join("chains")
            .join(format!("{job_id}.trace.parquet"))
    }
    pub fn summary_path(&self, job_id: &str) -> PathBuf {
        self.root
            .join("chains")
            .join(format!("{job_id}.summary.parquet"))
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
        let text = serde_json::to_string_pretty(m).map_err(|e| StoreError::Format {
            path: path.clone(),
            message: e.to_string(),
        })?;
        write_atomic(&path, text.as_bytes())
    }

    /// Read the manifest.
    pub fn read_manifest(&self) -> Result<Manifest, StoreError> {
        let path = self.manifest_path();
        let text = fs::read_to_string(&path).map_err(io_err(&path))?;
        serde_json::from_str(&text).map_err(|e| StoreError::Format {
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

    /// Store one chain's deterministic output: its sampler statistics (if any), summary and
    /// trace, in that order, each renamed into place whole. Its timing goes to the job table
    /// with the row that says it is done (see [`timing`]).
    pub fn write_chain(&self, job_id: &str, out: &ChainOutput) -> Result<(), StoreError> {
        if !out.stat_names.is_empty() {
            let path = self.sample_stats_path(job_id);
            let mut df = iteration_frame(&path, &out.iterations, &out.stat_names, &out.stats)?;
            write_parquet(&path, &mut df)?;
        }
        let path = self.trace_path(job_id);
        let mut df = iteration_frame(&path, &out.iterations, &out.trace_names, &out.trace)?;
        if out.elapsed_seconds.len() != out.iterations.len() {
            return Err(StoreError::Format {
                path,
                message: format!(
                    "{} timings for {} iterations",
                    out.elapsed_seconds.len(),
                    out.iterations.len()
                ),
            });
        }
        write_matrices(&self.summary_path(job_id), &out.summary)?;
        write_parquet(&path, &mut df)
    }

    /// Why a stored chain cannot be adopted, if it cannot: a file missing, or one that is not
    /// a complete Parquet file (checked from its frame: `PAR1` at both ends and a footer length
    /// that fits, which a truncated or overwritten file fails). Cheap enough to run on every
    /// chain of a resumed run.
    pub fn chain_defect(&self, job_id: &str) -> Option<String> {
        let stats = self.sample_stats_path(job_id);
        let mut files = vec![self.trace_path(job_id), self.summary_path(job_id)];
        if stats.exists() {
            files.push(stats);
        }
        files
            .iter()
            .find_map(|p| parquet_frame_defect(p).map(|why| format!("{}: {why}", p.display())))
    }

    /// Whether a job's files (summary, trace) are on disk. Each is renamed into place whole,
    /// and the trace is written last, so then the chain's files are complete (its job-table
    /// row says whether its timing is stored too).
    pub fn chain_done(&self, job_id: &str) -> bool {
        self.trace_path(job_id).exists() && self.summary_path(job_id).exists()
    }

    /// A chain's sampler statistics, if its sampler records any (`None` otherwise).
    pub fn read_sample_stats(&self, job_id: &str) -> Result<Option<DataFrame>, StoreError> {
        let path = self.sample_stats_path(job_id);
        if path.exists() {
            read_parquet(&path).map(Some)
        } else {
            Ok(None)
        }
    }
    /// A chain's trace as a DataFrame (`iteration` + one column per traced scalar).
    pub fn read_trace(&self, job_id: &str) -> Result<DataFrame, StoreError> {
        read_parquet(&self.trace_path(job_id))
    }

    /// A chain's summary matrices.
    pub fn read_summary(&self, job_id: &str) -> Result<Vec<Matrix>, StoreError> {
        read_matrices(&self.summary_path(job_id))
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

    /// Write `jobs.csv`, the coordinator's job table exported: one row per chain, the five
    /// columns given as equal-length slices.
    pub fn write_job_table(
        &self,
        job_id: &[&str],
        state: &[&str],
        attempts: &[u32],
        worker: &[&str],
        error: &[&str],
    ) -> Result<(), StoreError> {
        let path = self.root.join("jobs.csv");
        let mut df = df!(
            "job_id" => job_id,
            "state" => state,
            "attempts" => attempts,
            "worker" => worker,
            "error" => error,
        )
        .map_err(pl_err(&path))?;
        write_csv(&path, &mut df)
    }
}

/// Why `path` is not a complete Parquet file (`None` if its frame is sound): missing, shorter
/// than a header and footer, without the `PAR1` magic at either end, or with a footer length
/// that does not fit in the file.
pub fn parquet_frame_defect(path: &Path) -> Option<String> {
    use std::io::{Read, Seek, SeekFrom};
    let mut f = match fs::File::open(path) {
        Ok(f) => f,
        Err(e) => return Some(e.to_string()),
    };
    let len = match f.metadata() {
        Ok(m) => m.len(),
        Err(e) => return Some(e.to_string()),
    };
    if len < 12 {
        return Some(format!("{len} bytes is too short for a Parquet file"));
    }
    let mut head = [0u8; 4];
    let mut tail = [0u8; 8];
    let read = f
        .read_exact(&mut head)
        .and_then(|_| f.seek(SeekFrom::End(-8)))
        .and_then(|_| f.read_exact(&mut tail));
    if let Err(e) = read {
        return Some(e.to_string());
    }
    if &head != b"PAR1" || &tail[4..] != b"PAR1" {
        return Some("not a complete Parquet file (no PAR1 magic at both ends)".into());
    }
    let footer = u32::from_le_bytes([tail[0], tail[1], tail[2], tail[3]]) as u64;
    if footer + 12 > len {
        return Some(format!(
            "not a complete Parquet file (footer of {footer} bytes in a {len}-byte file)"
        ));
    }
    None
}

/// `iteration` + one f64 column per name, from row-major `values` (`iterations.len()` rows ×
/// `names.len()`). Errors if the sizes disagree.
fn iteration_frame(
    path: &Path,
    iterations: &[u64],
    names: &[String],
    values: &[f64],
) -> Result<DataFrame, StoreError> {
    let (n, k) = (iterations.len(), names.len());
    if values.len() != n * k {
        return Err(StoreError::Format {
            path: path.to_path_buf(),
            message: format!("{} values for {n}×{k}", values.len()),
        });
    }
    let mut cols: Vec<Column> = Vec::with_capacity(k + 1);
    cols.push(Series::new("iteration".into(), iterations).into());
    for (j, name) in names.iter().enumerate() {
        let v: Vec<f64> = (0..n).map(|i| values[i * k + j]).collect();
        cols.push(Series::new(name.as_str().into(), v).into());
    }
    DataFrame::new(n, cols).map_err(pl_err(path))
}

/// Write `bytes` to `path` through a temporary file and a rename, so a reader (or a resumed run)
/// never sees a half-written file. No fsync: the rename is atomic against a killed process,
/// which is what resume needs; an fsync per file tripled the per-chain cost.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), StoreError> {
    let tmp = path.with_extension(format!(
        "{}.tmp",
        path.extension().and_then(|e| e.to_str()).unwrap_or("")
    ));
    {
        let mut f = fs::File::create(&tmp).map_err(io_err(&tmp))?;
        f.write_all(bytes).map_err(io_err(&tmp))?;
    }
    fs::rename(&tmp, path).map_err(io_err(path))
}

/// Frames with fewer values than this are stored uncompressed and in plain encoding: zstd's
/// context costs more to set up (a sixth of a near-empty chain's whole cost through the runner)
/// than it saves on them, and so does polars' choice of dictionary encoding, which estimates each
/// float column's cardinality with a 16,384-register HyperLogLog (30% of the runner's profile at
/// 10,000 near-empty chains).
const COMPRESS_FROM_VALUES: usize = 8192;

/// Write a DataFrame as Parquet, atomically: polars' writer with zstd from
/// [`COMPRESS_FROM_VALUES`] values on; below, uncompressed and plain-encoded (see
/// [`small_parquet`]). Readers need not know: Parquet records the codec and the encoding per
/// column chunk.
pub fn write_parquet(path: &Path, df: &mut DataFrame) -> Result<(), StoreError> {
    let mut buf = Vec::new();
    if df.height() * df.width() >= COMPRESS_FROM_VALUES {
        ParquetWriter::new(&mut buf)
            .with_compression(ParquetCompression::Zstd(None))
            .set_parallel(false)
            .finish(df)
            .map_err(pl_err(path))?;
    } else {
        small_parquet(&mut buf, df).map_err(pl_err(path))?;
    }
    write_atomic(path, &buf)
}

/// A small frame as one uncompressed, plain-encoded row group, with polars' default statistics
/// and its Arrow schema in the footer (so that polars reads it back with the same types).
/// `ParquetWriter` cannot be told the encoding, hence polars-parquet's own writer.
fn small_parquet(buf: &mut Vec<u8>, df: &mut DataFrame) -> PolarsResult<()> {
    use polars_parquet::write::{
        CompressionOptions, Encoding, FileWriter, RowGroupIterator, StatisticsOptions, Version,
        WriteOptions,
    };
    /// One encoding per Parquet leaf column of an Arrow field.
    fn leaves(dtype: &ArrowDataType, out: &mut Vec<Encoding>) {
        match dtype {
            ArrowDataType::List(f)
            | ArrowDataType::LargeList(f)
            | ArrowDataType::FixedSizeList(f, _)
            | ArrowDataType::Map(f, _) => leaves(f.dtype(), out),
            ArrowDataType::Struct(fs) => fs.iter().for_each(|f| leaves(f.dtype(), out)),
            ArrowDataType::Extension(ext) => leaves(&ext.inner, out),
            _ => out.push(Encoding::Plain),
        }
    }
    df.rechunk_mut();
    let schema = df.schema().to_arrow(CompatLevel::newest());
    let encodings: Vec<Vec<Encoding>> = schema
        .iter_values()
        .map(|f| {
            let mut e = Vec::new();
            leaves(f.dtype(), &mut e);
            e
        })
        .collect();
    let options = WriteOptions {
        statistics: StatisticsOptions::default(),
        version: Version::V1,
        compression: CompressionOptions::Uncompressed,
        data_page_size: None,
    };
    let batches: Vec<_> = df
        .iter_chunks(CompatLevel::newest(), false)
        .filter(|b| b.height() > 0)
        .collect();
    let heights: Vec<usize> = batches.iter().map(|b| b.height()).collect();
    let row_groups = RowGroupIterator::try_new(
        batches.into_iter().map(Ok),
        &schema,
        options,
        encodings.into(),
    )?;
    let mut writer = FileWriter::try_new(buf, schema, options)?;
    for (rows, group) in heights.into_iter().zip(row_groups) {
        writer.write(rows as u64, group?)?;
    }
    writer.end(None)?;
    Ok(())
}

/// Read a Parquet file.
pub fn read_parquet(path: &Path) -> Result<DataFrame, StoreError> {
    let f = fs::File::open(path).map_err(io_err(path))?;
    ParquetReader::new(f).finish().map_err(pl_err(path))
}

/// Write a DataFrame as CSV, atomically.
pub fn write_csv(path: &Path, df: &mut DataFrame) -> Result<(), StoreError> {
    let mut buf = Vec::new();
    CsvWriter::new(&mut buf).finish(df).map_err(pl_err(path))?;
    write_atomic(path, &buf)
}

/// Store named matrices, one row each: `name`, `rows`, `cols`, `values` (list of f64,
/// row-major), `row_names`, `col_names` (lists of strings, possibly empty).
pub fn write_matrices(path: &Path, ms: &[Matrix]) -> Result<(), StoreError> {
    let names: Vec<&str> = ms.iter().map(|m| m.name.as_str()).collect();
    let rows: Vec<u64> = ms.iter().map(|m| m.rows as u64).collect();
    let cols: Vec<u64> = ms.iter().map(|m| m.cols as u64).collect();
    let values: Vec<Series> = ms
        .iter()
        .map(|m| Series::new("".into(), &m.values))
        .collect();
    let str_list = |f: &dyn Fn(&Matrix) -> &Vec<String>| -> Vec<Series> {
        ms.iter()
            .map(|m| {
                let v: Vec<&str> = f(m).iter().map(String::as_str).collect();
                Series::new("".into(), v)
            })
            .collect()
    };
    let row_names = str_list(&|m| &m.row_names);
    let col_names = str_list(&|m| &m.col_names);
    let mut df = DataFrame::new(
        ms.len(),
        vec![
            Series::new("name".into(), names).into(),
            Series::new("rows".into(), rows).into(),
            Series::new("cols".into(), cols).into(),
            list_column("values", &values, DataType::Float64),
            list_column("row_names", &row_names, DataType::String),
            list_column("col_names", &col_names, DataType::String),
        ],
    )
    .map_err(pl_err(path))?;
    write_parquet(path, &mut df)
}

fn list_column(name: &str, items: &[Series], inner: DataType) -> Column {
    if items.is_empty() {
        Series::new_empty(name.into(), &DataType::List(Box::new(inner))).into()
    } else {
        Series::new(name.into(), items).into()
    }
}

/// Read matrices written by [`write_matrices`].
pub fn read_matrices(path: &Path) -> Result<Vec<Matrix>, StoreError> {
    let df = read_parquet(path)?;
    let fmt = |message: String| StoreError::Format {
        path: path.to_path_buf(),
        message,
    };
    let pl = pl_err(path);
    let get = |c: &str| {
        df.column(c).map_err(|e| StoreError::Polars {
            path: path.to_path_buf(),
            source: e,
        })
    };
    let name = get("name")?.str().map_err(pl)?.clone();
    let rows = get("rows")?.u64().map_err(pl_err(path))?.clone();
    let cols = get("cols")?.u64().map_err(pl_err(path))?.clone();
    let values = get("values")?.list().map_err(pl_err(path))?.clone();
    let row_names = get("row_names")?.list().map_err(pl_err(path))?.clone();
    let col_names = get("col_names")?.list().map_err(pl_err(path))?.clone();
    let strings = |s: Option<Series>| -> Result<Vec<String>, StoreError> {
        match s {
            None => Ok(Vec::new()),
            Some(s) => Ok(s
                .str()
                .map_err(pl_err(path))?
                .iter()
                .map(|v| v.unwrap_or("").to_string())
                .collect()),
        }
    };
    let mut out = Vec::with_capacity(df.height());
    for i in 0..df.height() {
        let vals: Vec<f64> = match values.get_as_series(i) {
            None => Vec::new(),
            Some(s) => s
                .f64()
                .map_err(pl_err(path))?
                .iter()
                .map(|v| v.unwrap_or(f64::NAN))
                .collect(),
        };
        let m = Matrix {
            name: name.get(i).unwrap_or("").to_string(),
            rows: rows.get(i).unwrap_or(0) as usize,
            cols: cols.get(i).unwrap_or(0) as usize,
            values: vals,
            row_names: strings(row_names.get_as_series(i))?,
            col_names: strings(col_names.get_as_series(i))?,
        };
        m.check().map_err(fmt)?;
        out.push(m);
    }
    Ok(out)
}

/// Find a summary matrix by name.
pub fn find<'a>(ms: &'a [Matrix], name: &str) -> Option<&'a Matrix> {
    ms.iter().find(|m| m.name == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Frames below (polars-parquet's plain writer) and above (polars' zstd writer) the
    /// compression threshold, empty ones included, read back as written, with their types.
    #[test]
    fn small_and_large_frames_round_trip() {
        let dir = tempfile::tempdir().expect("tempdir");
        for n in [0usize, 3, COMPRESS_FROM_VALUES / 4] {
            let path = dir.path().join(format!("f{n}.parquet"));
            let v: Vec<f64> = (0..n).map(|i| (i as f64).sin()).collect();
            let it: Vec<u64> = (0..n as u64).collect();
            let s: Vec<String> = (0..n).map(|i| format!("r{i}")).collect();
            let l: Vec<Series> = (0..n).map(|i| Series::new("".into(), &v[..i])).collect();
            let mut df =
                df!("x" => &v, "iteration" => &it, "name" => &s, "values" => &l).expect("df");
            write_parquet(&path, &mut df).expect("write");
            assert_eq!(read_parquet(&path).expect("read"), df, "{n} rows");
        }
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
            m.jobs.truncate(n_jobs);
            let whole = serde_json::json!({"cells": m.cells, "jobs": m.jobs}).to_string();
            let expected = format!("{:016x}", causeway_papers::stable_hash(whole.as_bytes()));
            assert_eq!(m.identity(), expected, "{n_jobs} jobs");
        }
    }

    fn names(df: &DataFrame) -> Vec<String> {
        df.get_column_names()
            .iter()
            .map(|n| n.to_string())
            .collect()
    }

    fn output(stat_names: &[&str]) -> ChainOutput {
        let k = stat_names.len();
        ChainOutput {
            trace_names: vec!["log_marginal_likelihood".into()],
            iterations: vec![1, 2, 3],
            trace: vec![-1.0, -2.0, -3.0],
            stat_names: stat_names.iter().map(|s| s.to_string()).collect(),
            stats: (0..3 * k).map(|v| v as f64).collect(),
            summary: vec![Matrix::scalar("log_marginal_likelihood", -2.0)],
            elapsed_seconds: vec![0.1, 0.2, 0.3],
        }
    }

    #[test]
    fn sample_stats_are_stored_apart_from_the_draws() {
        let dir = std::env::temp_dir().join(format!("causeway-rundir-{}", std::process::id()));
        let rd = RunDir::create(&dir).expect("run dir");
        rd.write_chain("with", &output(&["ess_min", "n_resamples"]))
            .expect("write");
        let trace = rd.read_trace("with").expect("trace");
        assert_eq!(
            names(&trace),
            vec!["iteration", "log_marginal_likelihood"],
            "the trace holds the draws only"
        );
        let stats = rd
            .read_sample_stats("with")
            .expect("read")
            .expect("stats stored");
        assert_eq!(names(&stats), vec!["iteration", "ess_min", "n_resamples"]);
        let n = stats
            .column("n_resamples")
            .expect("column")
            .f64()
            .expect("f64");
        assert_eq!(
            n.into_no_null_iter().collect::<Vec<_>>(),
            vec![1.0, 3.0, 5.0]
        );
        assert!(rd.chain_done("with"));
        // A sampler without statistics writes no sample_stats file.
        rd.write_chain("without", &output(&[])).expect("write");
        assert!(rd.read_sample_stats("without").expect("read").is_none());
        // Sizes that disagree are refused, not written.
        let mut bad = output(&["ess_min"]);
        bad.stats.pop();
        assert!(rd.write_chain("bad", &bad).is_err());
        assert!(!rd.chain_done("bad"));
        std::fs::remove_dir_all(&dir).ok();
    }
}

//! The chains of a run directory in a bounded number of files: shards of consecutive plan jobs.
//!
//! A run with `n` jobs stores its chains in at most [`MAX_SHARDS`] shards; shard `s` holds the
//! jobs `s·m .. (s+1)·m` of the plan, `m = ⌈n / MAX_SHARDS⌉` ([`jobs_per_shard`]). A shard is
//! at most three files in `chains/`:
//!
//! - `shard-<s>.trace.parquet`: `job_id`, `iteration`, then one f64 column per traced scalar of
//!   any of its chains (null where a chain has no such column); a chain's rows are consecutive,
//!   the chains in plan order. The footer (key [`CHAINS_KEY`], JSON) lists each chain: its plan
//!   index, job id, row count, its own trace and statistics columns, and its summary matrices
//!   (the JSON of [`super::summary_to_json`], embedded as a value; directories written before
//!   embed it as a string, which reads too), those of more than
//!   [`summaries::FOOTER_VALUES_MAX`] values without their values, and how many such values
//!   it has (`summary_values`, left out when 0).
//! - `shard-<s>.sample_stats.parquet`: the same for the samplers' statistics, if any chain has
//!   them.
//! - `shard-<s>.summary.arrow`: the values of the larger summary matrices, if any chain has
//!   one, as an Arrow IPC file ([`summaries`]; `shard-<s>.summary.parquet` in directories
//!   written before, still read).
//!
//! Why Parquet row groups of many chains, and not one file per chain or a database: a file per
//! chain made the CEP paper grid 190,462 files and most of a near-empty chain's cost (inode
//! work); one SQLite or DuckDB table is not byte-identical across runs (its pages depend on the
//! insertion order) and is not what pandas, polars, pyarrow and ArviZ read. A shard is written
//! whole, from its chains sorted by plan index ("sealed"), so its bytes depend only on which
//! chains are stored, never on the worker count, the order they finished in or retries. Until
//! then a chain's result waits in its shard's journal file (the coordinator's `store::journal`),
//! appended before the transaction that marks it done; see [`RunDir::seal_shard`].

use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap};
use std::fs;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use causeway_papers::{ChainOutput, Matrix};
use polars::prelude::*;
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use super::digest::{Digest, digest_parts};
use super::parquet::{StoredMatrix, read_parquet_with, stored_summary};
use super::{
    RunDir, StoreError, io_err, parquet_bytes, parquet_frame_defect, pl_err, read_parquet,
    write_atomic,
};

pub mod summaries;

/// The most shards a run directory's chains are stored in (three files each at most).
pub const MAX_SHARDS: usize = 256;

/// The footer key of a shard's trace file that lists its chains (JSON, see the module doc).
pub const CHAINS_KEY: &str = "causeway.chains";

const PREFIX: &str = "shard-";
const TRACE: &str = ".trace.parquet";
const STATS: &str = ".sample_stats.parquet";
const SUMMARY: &str = ".summary.arrow";
/// The summary file of shards sealed before it was Arrow IPC (read, and removed when the shard
/// is sealed again).
const OLDER_SUMMARY: &str = ".summary.parquet";

/// Plan jobs per shard for a plan of `n_jobs` jobs: `⌈n_jobs / MAX_SHARDS⌉`, at least 1.
pub fn jobs_per_shard(n_jobs: usize) -> usize {
    n_jobs.div_ceil(MAX_SHARDS).max(1)
}

/// The shard that holds plan job `index` of a plan of `n_jobs` jobs.
pub fn shard_of(index: usize, n_jobs: usize) -> usize {
    index / jobs_per_shard(n_jobs)
}

/// The plan jobs of shard `shard` of a plan of `n_jobs` jobs.
pub fn shard_jobs(shard: usize, n_jobs: usize) -> Range<usize> {
    let m = jobs_per_shard(n_jobs);
    (shard * m).min(n_jobs)..((shard + 1) * m).min(n_jobs)
}

/// The shard number of a file name of `chains/` (`shard-00017.trace.parquet` → 17).
fn shard_number(name: &str) -> Option<usize> {
    name.strip_prefix(PREFIX)?.strip_suffix(TRACE)?.parse().ok()
}

/// One chain as a shard stores it: its plan index and job id, its rows (row-major, as
/// [`ChainOutput`]), its summary's footer JSON and its larger summary matrices
/// ([`summaries::split`]). Made only by
/// [`SealedChain::new`] (sizes checked) or read from a shard, so its sizes always fit.
#[derive(Debug, Clone)]
pub struct SealedChain {
    index: usize,
    job_id: String,
    iterations: Vec<u64>,
    trace_names: Vec<String>,
    trace: Vec<f64>,
    stat_names: Vec<String>,
    stats: Vec<f64>,
    summary: Box<RawValue>,
    large: Vec<Matrix>,
}

impl PartialEq for SealedChain {
    fn eq(&self, o: &Self) -> bool {
        (
            self.index,
            &self.job_id,
            &self.iterations,
            &self.trace_names,
        ) == (o.index, &o.job_id, &o.iterations, &o.trace_names)
            && (
                &self.trace,
                &self.stat_names,
                &self.stats,
                self.summary.get(),
                &self.large,
            ) == (&o.trace, &o.stat_names, &o.stats, o.summary.get(), &o.large)
    }
}

impl SealedChain {
    /// The chain's plan index.
    pub fn index(&self) -> usize {
        self.index
    }

    /// A chain's deterministic output (its timing is not stored here), its sizes checked.
    ///
    /// # Errors
    /// The trace or statistics hold a number of values other than rows × columns, or the
    /// timing another number of rows.
    pub fn new(index: usize, job_id: &str, out: ChainOutput) -> Result<Self, String> {
        check_sizes(
            job_id,
            out.iterations.len(),
            [
                (out.trace_names.len(), out.trace.len()),
                (out.stat_names.len(), out.stats.len()),
            ],
            out.elapsed_seconds.len(),
        )?;
        let (summary, large) = summaries::split(out.summary);
        Ok(SealedChain {
            index,
            job_id: job_id.to_string(),
            summary,
            large,
            iterations: out.iterations,
            trace_names: out.trace_names,
            trace: out.trace,
            stat_names: out.stat_names,
            stats: out.stats,
        })
    }
}

/// Whether a chain's sizes fit: `rows` iterations; per part (trace, then statistics) its
/// column count and value count (rows × columns); `timings` elapsed-seconds values (one a row).
///
/// # Errors
/// The first size that does not fit, as text naming `job_id`.
pub fn check_sizes(
    job_id: &str,
    rows: usize,
    parts: [(usize, usize); 2],
    timings: usize,
) -> Result<(), String> {
    for (what, (columns, values)) in ["trace", "statistics"].into_iter().zip(parts) {
        if values != rows * columns {
            return Err(format!(
                "{job_id}: {values} {what} values for {rows} rows × {columns} columns"
            ));
        }
    }
    if timings != rows {
        return Err(format!("{job_id}: {timings} timings for {rows} iterations"));
    }
    Ok(())
}

/// A chain's entry in its shard's footer, as read.
#[derive(Debug, Clone, Deserialize)]
struct ChainMeta {
    index: usize,
    job_id: String,
    rows: usize,
    trace_names: Vec<String>,
    stat_names: Vec<String>,
    #[serde(deserialize_with = "summary_value")]
    summary: Box<RawValue>,
    /// Its rows of the summary file (left out when 0: [`ChainMetaRef`]).
    #[serde(default)]
    summary_values: usize,
}

/// A chain's entry in its shard's footer, as written: [`ChainMeta`]'s fields, borrowed from the
/// sealed chain (the footer of a shard of many chains is written without copying them).
#[derive(Serialize)]
struct ChainMetaRef<'a> {
    index: usize,
    job_id: &'a str,
    rows: usize,
    trace_names: &'a [String],
    stat_names: &'a [String],
    summary: &'a RawValue,
    #[serde(skip_serializing_if = "is_zero")]
    summary_values: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// A footer's summary: the JSON value, or (directories written before) its text as a string.
fn summary_value<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Box<RawValue>, D::Error> {
    let raw = Box::<RawValue>::deserialize(d)?;
    if !raw.get().starts_with('"') {
        return Ok(raw);
    }
    let text: String = serde_json::from_str(raw.get()).map_err(serde::de::Error::custom)?;
    RawValue::from_string(text).map_err(serde::de::Error::custom)
}

/// A shard read whole but for its summary file (read when first asked for): its chains'
/// entries and where their rows start.
pub(super) struct Shard {
    path: PathBuf,
    chains: Vec<ChainMeta>,
    offsets: Vec<usize>,
    by_id: HashMap<String, usize>,
    trace: DataFrame,
    stats: Option<DataFrame>,
    summary_path: PathBuf,
    summary_offsets: Vec<usize>,
    /// The summary file's rows, all chains': their number, and the values once read.
    summary_total: usize,
    summary_values: OnceLock<Vec<f64>>,
}

/// The job ids a shard's trace file lists in its footer.
pub(super) fn shard_job_ids(path: &Path) -> Result<Vec<String>, StoreError> {
    Ok(read_chains(path)?.into_iter().map(|c| c.job_id).collect())
}

fn read_chains(path: &Path) -> Result<Vec<ChainMeta>, StoreError> {
    parse_chains(path, super::footer_value(path, CHAINS_KEY)?)
}

/// The chains listed under [`CHAINS_KEY`] (`text`: its value, if the footer has it).
fn parse_chains(path: &Path, text: Option<String>) -> Result<Vec<ChainMeta>, StoreError> {
    let text = text.ok_or_else(|| StoreError::Format {
        path: path.to_path_buf(),
        message: format!("no {CHAINS_KEY} in the footer"),
    })?;
    serde_json::from_str(&text).map_err(|e| StoreError::Format {
        path: path.to_path_buf(),
        message: format!("{CHAINS_KEY}: {e}"),
    })
}

impl Shard {
    pub(super) fn read(rd: &RunDir, shard: usize) -> Result<Shard, StoreError> {
        let path = rd.shard_path(shard, TRACE);
        let (trace, listed) = read_parquet_with(&path, CHAINS_KEY)?;
        let chains = parse_chains(&path, listed)?;
        let stats_path = rd.shard_path(shard, STATS);
        let stats = if chains.iter().any(|c| !c.stat_names.is_empty()) {
            Some(read_parquet(&stats_path)?)
        } else {
            None
        };
        let mut offsets = Vec::with_capacity(chains.len());
        let mut summary_offsets = Vec::with_capacity(chains.len());
        let (mut at, mut values) = (0, 0);
        for c in &chains {
            offsets.push(at);
            at += c.rows;
            summary_offsets.push(values);
            values += c.summary_values;
        }
        let short = |df: &DataFrame| df.height() != at;
        if short(&trace) || stats.as_ref().is_some_and(short) {
            return Err(StoreError::Format {
                path,
                message: format!("its chains list {at} rows, its files hold others"),
            });
        }
        let by_id = chains
            .iter()
            .enumerate()
            .map(|(k, c)| (c.job_id.clone(), k))
            .collect();
        Ok(Shard {
            path,
            chains,
            offsets,
            by_id,
            trace,
            stats,
            summary_path: rd.shard_summary_path(shard),
            summary_offsets,
            summary_total: values,
            summary_values: OnceLock::new(),
        })
    }

    /// Chain `k`'s rows of the summary file (read once, when first needed).
    fn summary_values(&self, k: usize) -> Result<&[f64], StoreError> {
        let n = self.chains[k].summary_values;
        if n == 0 {
            return Ok(&[]);
        }
        let all = match self.summary_values.get() {
            Some(v) => v,
            None => {
                let v = summaries::read_values(&self.summary_path, self.summary_total)?;
                self.summary_values.get_or_init(|| v)
            }
        };
        let at = self.summary_offsets[k];
        Ok(&all[at..at + n])
    }

    fn chain(&self, id: &str) -> Result<usize, StoreError> {
        self.by_id
            .get(id)
            .copied()
            .ok_or_else(|| StoreError::Format {
                path: self.path.clone(),
                message: format!("holds no chain {id}"),
            })
    }

    /// `iteration` and the chain's own columns of `df`, over its rows.
    fn rows(&self, df: &DataFrame, k: usize, names: &[String]) -> Result<DataFrame, StoreError> {
        let c = &self.chains[k];
        let cols = std::iter::once("iteration").chain(names.iter().map(String::as_str));
        df.slice(self.offsets[k] as i64, c.rows)
            .select(cols)
            .map_err(pl_err(&self.path))
    }

    /// Job `id`'s trace: `iteration` and its traced scalars.
    pub(super) fn trace(&self, id: &str) -> Result<DataFrame, StoreError> {
        let k = self.chain(id)?;
        self.rows(&self.trace, k, &self.chains[k].trace_names)
    }

    /// Job `id`'s sampler statistics (`None`: its sampler records none).
    pub(super) fn stats(&self, id: &str) -> Result<Option<DataFrame>, StoreError> {
        let k = self.chain(id)?;
        match &self.stats {
            Some(df) if !self.chains[k].stat_names.is_empty() => {
                self.rows(df, k, &self.chains[k].stat_names).map(Some)
            }
            _ => Ok(None),
        }
    }

    /// Job `id`'s summary matrices; only the one named `only`, if given (the summary file is
    /// then read only if that matrix is stored there).
    pub(super) fn summary(&self, id: &str, only: Option<&str>) -> Result<Vec<Matrix>, StoreError> {
        let k = self.chain(id)?;
        let stored = stored_summary(&self.path, self.chains[k].summary.get())?;
        let wanted = |s: &StoredMatrix| only.is_none_or(|name| name == s.name);
        let values = if stored.iter().any(|s| wanted(s) && s.values_elsewhere()) {
            self.summary_values(k)?
        } else {
            &[]
        };
        summaries::matrices(&self.path, stored, values, wanted)
    }

    /// Every chain back, to merge with newer results.
    fn sealed(&self) -> Result<Vec<SealedChain>, StoreError> {
        let pe = pl_err(&self.path);
        let iterations: Vec<u64> = self
            .trace
            .column("iteration")
            .and_then(|c| c.u64())
            .map_err(pe)?
            .into_no_null_iter()
            .collect();
        let mut out = Vec::with_capacity(self.chains.len());
        for (k, c) in self.chains.iter().enumerate() {
            let at = self.offsets[k];
            let values = |df: Option<&DataFrame>, names: &[String]| {
                row_major(df, names, at, c.rows).map_err(pl_err(&self.path))
            };
            out.push(SealedChain {
                index: c.index,
                job_id: c.job_id.clone(),
                iterations: iterations[at..at + c.rows].to_vec(),
                trace: values(Some(&self.trace), &c.trace_names)?,
                stats: values(self.stats.as_ref(), &c.stat_names)?,
                trace_names: c.trace_names.clone(),
                stat_names: c.stat_names.clone(),
                summary: c.summary.clone(),
                large: summaries::matrices(
                    &self.path,
                    stored_summary(&self.path, c.summary.get())?,
                    self.summary_values(k)?,
                    StoredMatrix::values_elsewhere,
                )?,
            });
        }
        Ok(out)
    }
}

/// Rows `at .. at + n` of `names`' columns of `df`, row-major (a null reads as NaN).
fn row_major(
    df: Option<&DataFrame>,
    names: &[String],
    at: usize,
    n: usize,
) -> PolarsResult<Vec<f64>> {
    let Some(df) = df.filter(|_| !names.is_empty()) else {
        return Ok(Vec::new());
    };
    let cols = names
        .iter()
        .map(|name| {
            let c = df.column(name)?.f64()?;
            Ok((at..at + n)
                .map(|r| c.get(r).unwrap_or(f64::NAN))
                .collect::<Vec<_>>())
        })
        .collect::<PolarsResult<Vec<_>>>()?;
    Ok((0..n)
        .flat_map(|r| cols.iter().map(move |c| c[r]))
        .collect())
}

/// `job_id`, `iteration` and the union of the chains' columns (in the order they first
/// appear), each chain's rows in turn, null where a chain lacks a column.
fn frame(
    path: &Path,
    chains: &[SealedChain],
    names: impl Fn(&SealedChain) -> &[String],
    values: impl Fn(&SealedChain) -> &[f64],
) -> Result<DataFrame, StoreError> {
    let mut union: Vec<&str> = Vec::new();
    for c in chains {
        for n in names(c) {
            if !union.contains(&n.as_str()) {
                union.push(n);
            }
        }
    }
    let rows: usize = chains.iter().map(|c| c.iterations.len()).sum();
    let mut job_id: Vec<&str> = Vec::with_capacity(rows);
    let mut iteration: Vec<u64> = Vec::with_capacity(rows);
    let mut cols: Vec<Vec<Option<f64>>> = vec![Vec::with_capacity(rows); union.len()];
    for c in chains {
        let n = c.iterations.len();
        job_id.extend(std::iter::repeat_n(c.job_id.as_str(), n));
        iteration.extend(&c.iterations);
        let own = names(c);
        let v = values(c);
        for (u, col) in union.iter().zip(cols.iter_mut()) {
            match own.iter().position(|x| x == u) {
                Some(j) => col.extend((0..n).map(|r| Some(v[r * own.len() + j]))),
                None => col.extend(std::iter::repeat_n(None, n)),
            }
        }
    }
    let mut columns: Vec<Column> = vec![
        Series::new("job_id".into(), job_id).into(),
        Series::new("iteration".into(), iteration).into(),
    ];
    for (u, col) in union.iter().zip(cols) {
        columns.push(Series::new((*u).into(), col).into());
    }
    DataFrame::new(rows, columns).map_err(pl_err(path))
}

thread_local! {
    /// A shard's summary file as written, kept for the next shard this thread seals: a shard
    /// of CEP-shaped chains has one of up to ≈ 10 MB, and a fresh buffer for each cost its
    /// pages' faults and zeroing (9% of the coordinator's CPU in the cluster bench).
    static SUMMARY_BYTES: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

impl RunDir {
    /// `chains/shard-<shard>` followed by `suffix`.
    fn shard_path(&self, shard: usize, suffix: &str) -> PathBuf {
        self.root
            .join("chains")
            .join(format!("{PREFIX}{shard:05}{suffix}"))
    }

    /// Shard `shard`'s trace file (its footer lists its chains).
    pub fn shard_trace_path(&self, shard: usize) -> PathBuf {
        self.shard_path(shard, TRACE)
    }

    /// Shard `shard`'s sampler-statistics file (present if any of its chains has statistics).
    pub fn shard_stats_path(&self, shard: usize) -> PathBuf {
        self.shard_path(shard, STATS)
    }

    /// Shard `shard`'s summary file (present if any of its chains has a summary matrix too
    /// large for the footer; [`summaries`]): `shard-<s>.summary.arrow`, or the Parquet file of
    /// a shard sealed before summaries were Arrow IPC when only that one exists.
    pub fn shard_summary_path(&self, shard: usize) -> PathBuf {
        let path = self.shard_path(shard, SUMMARY);
        let older = self.shard_path(shard, OLDER_SUMMARY);
        if !path.exists() && older.exists() {
            older
        } else {
            path
        }
    }

    /// The shards in `chains/`, by their trace files, in order.
    pub fn shards(&self) -> Vec<usize> {
        let mut out: Vec<usize> = fs::read_dir(self.root.join("chains"))
            .map(|entries| {
                entries
                    .flatten()
                    .filter_map(|e| shard_number(e.file_name().to_str()?))
                    .collect()
            })
            .unwrap_or_default();
        out.sort_unstable();
        out
    }

    /// Write shard `shard` with `chains` (newer results: they replace the shard's stored chains
    /// of the same plan index, the others are kept), in plan order, each file renamed into
    /// place whole, the statistics first. Removes older run directories' per-chain files of
    /// these chains. Returns the digest of the files' bytes (trace, then statistics), for the
    /// job table. A stored shard that cannot be read is replaced by `chains` alone (its other
    /// chains are then not stored, and a resume runs them again).
    ///
    /// # Errors
    /// A file that cannot be written (see [`StoreError::is_storage_full`]); a chain whose sizes
    /// disagree.
    pub fn seal_shard(&self, shard: usize, chains: Vec<SealedChain>) -> Result<Digest, StoreError> {
        let path = self.shard_path(shard, TRACE);
        let mut all: BTreeMap<usize, SealedChain> = BTreeMap::new();
        if path.exists()
            && let Ok(stored) = Shard::read(self, shard).and_then(|s| s.sealed())
        {
            all.extend(stored.into_iter().map(|c| (c.index, c)));
        }
        let fresh: Vec<String> = chains.iter().map(|c| c.job_id.clone()).collect();
        all.extend(chains.into_iter().map(|c| (c.index, c)));
        let chains: Vec<SealedChain> = all.into_values().collect();
        let meta: Vec<ChainMetaRef<'_>> = chains
            .iter()
            .map(|c| ChainMetaRef {
                index: c.index,
                job_id: &c.job_id,
                rows: c.iterations.len(),
                trace_names: &c.trace_names,
                stat_names: &c.stat_names,
                summary: &c.summary,
                summary_values: c.large.iter().map(|m| m.values.len()).sum(),
            })
            .collect();
        let meta = serde_json::to_string(&meta).map_err(|e| StoreError::Format {
            path: path.clone(),
            message: e.to_string(),
        })?;
        let stats_path = self.shard_path(shard, STATS);
        let mut stats = Vec::new();
        if chains.iter().any(|c| !c.stat_names.is_empty()) {
            let mut df = frame(&stats_path, &chains, |c| &c.stat_names, |c| &c.stats)?;
            stats = parquet_bytes(&stats_path, &mut df, Vec::new())?;
            write_atomic(&stats_path, &stats)?;
        } else if stats_path.exists() {
            fs::remove_file(&stats_path).map_err(io_err(&stats_path))?;
        }
        let summary_path = self.shard_path(shard, SUMMARY);
        let large = chains
            .iter()
            .map(|c| (c.job_id.as_str(), c.large.as_slice()));
        let mut summary = SUMMARY_BYTES.with_borrow_mut(std::mem::take);
        summary.clear();
        if let Some(mut df) = summaries::frame(&summary_path, large)? {
            summaries::write_ipc(&summary_path, &mut df, &mut summary)?;
            write_atomic(&summary_path, &summary)?;
        } else {
            remove_if_exists(&summary_path)?;
        }
        remove_if_exists(&self.shard_path(shard, OLDER_SUMMARY))?;
        let mut df = frame(&path, &chains, |c| &c.trace_names, |c| &c.trace)?;
        let trace = parquet_bytes(&path, &mut df, vec![(CHAINS_KEY.to_string(), meta)])?;
        write_atomic(&path, &trace)?;
        self.forget();
        for id in &fresh {
            self.remove_chain_files(id)?;
        }
        let digest = digest_parts(&digested(&trace, &stats, &summary));
        SUMMARY_BYTES.with_borrow_mut(|kept| *kept = summary);
        Ok(digest)
    }

    /// Store chains without a coordinator (tools, tests): `(plan index, job id, output)` of a
    /// plan of `n_jobs` jobs, each shard sealed once with the chains given for it.
    ///
    /// # Errors
    /// As [`RunDir::seal_shard`]; a chain whose sizes disagree ([`SealedChain::new`]).
    pub fn store_chains(
        &self,
        n_jobs: usize,
        chains: Vec<(usize, String, ChainOutput)>,
    ) -> Result<(), StoreError> {
        let mut by_shard: BTreeMap<usize, Vec<SealedChain>> = BTreeMap::new();
        for (i, id, out) in chains {
            let c = SealedChain::new(i, &id, out).map_err(|message| StoreError::Format {
                path: self.root.join("chains"),
                message,
            })?;
            by_shard.entry(shard_of(i, n_jobs)).or_default().push(c);
        }
        for (s, cs) in by_shard {
            self.seal_shard(s, cs)?;
        }
        Ok(())
    }

    /// The digest of shard `shard`'s files as [`RunDir::seal_shard`] computed it.
    ///
    /// # Errors
    /// A file that exists and cannot be read; a missing trace.
    pub fn shard_digest(&self, shard: usize) -> Result<Digest, StoreError> {
        files_digest(
            &self.shard_path(shard, TRACE),
            &self.shard_path(shard, STATS),
            Some(&self.shard_summary_path(shard)),
        )
    }

    /// Why shard `shard` cannot be used, if it cannot: a file that is not a complete Parquet
    /// file ([`parquet_frame_defect`]) or Arrow IPC file (the summary), or bytes whose digest
    /// is not `digest` (the one the job table recorded when it was sealed; `None`: no record,
    /// as after a damaged job table was moved aside: the frame alone is checked).
    pub fn shard_defect(&self, shard: usize, digest: Option<&Digest>) -> Option<String> {
        let mut files = vec![self.shard_path(shard, TRACE)];
        for path in [
            self.shard_path(shard, STATS),
            self.shard_summary_path(shard),
        ] {
            if path.exists() {
                files.push(path);
            }
        }
        if let Some(why) = files
            .iter()
            .find_map(|p| frame_defect(p).map(|why| format!("{}: {why}", p.display())))
        {
            return Some(why);
        }
        // No record: the frame alone.
        let want = digest?;
        match self.shard_digest(shard) {
            Err(e) => Some(e.to_string()),
            Ok(got) => (got != *want).then(|| {
                "its files' checksum differs from the one stored when they were written".into()
            }),
        }
    }

    /// Delete shard `shard`'s files (its chains are then not stored).
    ///
    /// # Errors
    /// A file that exists and cannot be removed.
    pub fn remove_shard(&self, shard: usize) -> Result<(), StoreError> {
        for suffix in [STATS, SUMMARY, OLDER_SUMMARY, TRACE] {
            remove_if_exists(&self.shard_path(shard, suffix))?;
        }
        self.forget();
        Ok(())
    }
}

/// The digest of a trace file's bytes, then its statistics file's (empty if there is none),
/// then its summary file's if there is one: a shard's, or a chain's own files in an older run
/// directory (no summary file).
///
/// # Errors
/// A file that exists and cannot be read; a missing trace.
pub(super) fn files_digest(
    trace: &Path,
    stats: &Path,
    summary: Option<&Path>,
) -> Result<Digest, StoreError> {
    let t = fs::read(trace).map_err(io_err(trace))?;
    let s = read_if_exists(stats)?;
    let m = match summary {
        Some(p) => read_if_exists(p)?,
        None => Vec::new(),
    };
    Ok(digest_parts(&digested(&t, &s, &m)))
}

/// The parts of a shard's digest: trace, statistics (maybe empty), and the summary file only
/// if it has one (so that shards sealed before summary files keep their digests).
fn digested<'a>(trace: &'a [u8], stats: &'a [u8], summary: &'a [u8]) -> Vec<&'a [u8]> {
    let mut parts = vec![trace, stats];
    if !summary.is_empty() {
        parts.push(summary);
    }
    parts
}

/// A file's bytes, or none if it does not exist.
fn read_if_exists(path: &Path) -> Result<Vec<u8>, StoreError> {
    match fs::read(path) {
        Ok(b) => Ok(b),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Vec::new()),
        Err(e) => Err(io_err(path)(e)),
    }
}

/// Why the stored file at `path` is not complete ([`parquet_frame_defect`]; for a summary file
/// as Arrow IPC, `summaries::ipc_frame_defect`), `None` if its frame is sound.
pub(super) fn frame_defect(path: &Path) -> Option<String> {
    if summaries::is_ipc(path) {
        summaries::ipc_frame_defect(path)
    } else {
        parquet_frame_defect(path)
    }
}

/// Delete `path` if it exists.
///
/// # Errors
/// A file that exists and cannot be removed.
pub(super) fn remove_if_exists(path: &Path) -> Result<(), StoreError> {
    match fs::remove_file(path) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(io_err(path)(e)),
    }
}

#[cfg(test)]
mod tests;

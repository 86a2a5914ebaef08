//! The schema of `jobs.sqlite`, the run's durable job table: one home for every table the
//! coordinator writes (its `store`) and the reports read (`timing`).
//!
//! - `jobs`: one row per chain (`idx` = its position in `manifest.json`'s jobs): state
//!   (`pending`, `running`, `done`, `failed`), attempts, worker, error, start and finish (Unix
//!   seconds).
//! - `run`: key → value; `identity` ties the table to its experiment.
//! - `checkpoints`, `ends`: a running chain's latest checkpoint and, in a convergence-driven run,
//!   the end state a later round extends (protobuf `ChainCheckpoint` bytes).
//! - `resumes`: every resumption of a chain from a checkpoint.
//! - `timing`: a done chain's wall-clock timing (little-endian u64 iterations and f64 seconds),
//!   written in the transaction that marks its row done ([`TIMING_INSERT_SQL`]).
//! - `journal`: in run directories written before the journal had files of its own (the
//!   coordinator's `store::journal`), a done chain's result (protobuf `ChainResult` bytes) until
//!   its shard is sealed, written in the transaction that marks its row done; sealing writes the
//!   shard's files, then deletes the shard's rows here and records its digest in `shards`.
//! - `shards`: a sealed shard's files' digest (`rundir::RunDir::shard_digest`); a resume adopts
//!   a shard only if its files still have it, and runs a damaged shard's chains again.
//! - `digests`: in run directories written before shards, a done chain's own files' digest
//!   (`rundir::RunDir::chain_digest`), checked the same way.
//! - Checkpoint blobs are sealed (`rundir::digest::seal`): a damaged one is never adopted.

/// The file name under the run directory.
pub const DB_FILE: &str = "jobs.sqlite";

/// Every table, created if absent (idempotent).
pub const JOBS_SCHEMA_SQL: &str = "CREATE TABLE IF NOT EXISTS jobs (
    idx INTEGER PRIMARY KEY,
    job_id TEXT NOT NULL UNIQUE,
    state TEXT NOT NULL DEFAULT 'pending',
    attempts INTEGER NOT NULL DEFAULT 0,
    worker TEXT NOT NULL DEFAULT '',
    error TEXT NOT NULL DEFAULT '',
    started REAL,
    finished REAL
);
CREATE TABLE IF NOT EXISTS run (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS checkpoints (
    idx INTEGER PRIMARY KEY,
    iteration INTEGER NOT NULL,
    code_version TEXT NOT NULL,
    checkpoint BLOB NOT NULL,
    saved REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS ends (
    idx INTEGER PRIMARY KEY,
    iteration INTEGER NOT NULL,
    code_version TEXT NOT NULL,
    checkpoint BLOB NOT NULL,
    saved REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS resumes (
    idx INTEGER NOT NULL,
    attempt INTEGER NOT NULL,
    iteration INTEGER NOT NULL,
    worker TEXT NOT NULL,
    checkpoint_saved REAL,
    started REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS journal (
    idx INTEGER PRIMARY KEY,
    result BLOB NOT NULL
);
CREATE TABLE IF NOT EXISTS shards (
    shard INTEGER PRIMARY KEY,
    xxh3_128 BLOB NOT NULL
);
CREATE TABLE IF NOT EXISTS digests (
    job_id TEXT PRIMARY KEY,
    xxh3_128 BLOB NOT NULL
);
CREATE TABLE IF NOT EXISTS timing (
    job_id TEXT PRIMARY KEY,
    iterations BLOB NOT NULL,
    elapsed_seconds BLOB NOT NULL
);";

/// Store (or replace) the timing of the job in row `idx` of table `jobs`; call it in the
/// transaction that marks the row done.
pub const TIMING_INSERT_SQL: &str = "INSERT OR REPLACE INTO timing (job_id, iterations, \
     elapsed_seconds) SELECT job_id, ?2, ?3 FROM jobs WHERE idx = ?1";

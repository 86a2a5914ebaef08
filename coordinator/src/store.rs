//! The durable job table, `<out>/jobs.sqlite` (SQLite in WAL mode).
//!
//! One row per chain of the plan: its state (`pending`, `running`, `done`, `failed`, `lost`),
//! attempts in the current run, the worker that last ran it, its last error, and when it last
//! started and finished (Unix seconds; `causeway status` estimates the time left from them).
//!
//! Ordering rule: a chain's result is appended to its shard's [`journal`] file before its row
//! says `done`, and sealed into the shard's files from there ([`seal`]), so a `done` row always
//! has its result; its wall-clock timing (table `timing`) is stored in the transaction that says
//! so. On start, [`JobStore::reconcile`]
//! repairs what a killed coordinator left: a `done` row whose files are missing goes back to
//! `pending`; a row not `done` whose files are all present is marked `done` (the rename is
//! atomic, so the files are complete; the results are kept, and only the chain's timing, which
//! was to be committed with the row, is missing: the cost table counts such chains apart);
//! `running`, `failed` and `lost` rows go back to `pending`.
//! Rows are updated by one writer thread ([`Writer`]) in small transactions (at most 256 events
//! or 50 ms each), so the database is never the per-chain bottleneck; every update is
//! idempotent, so a result stored twice leaves the same row.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, mpsc};
use std::thread::JoinHandle;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use causeway_proto::v1::ChainCheckpoint;
use causeway_results::rundir::digest::{Digest, seal, unseal};
use causeway_results::rundir::schema::{DB_FILE, JOBS_SCHEMA_SQL, TIMING_INSERT_SQL};
use causeway_results::rundir::{ChainTiming, RunDir};
use prost::Message as _;
use rusqlite::types::{FromSql, FromSqlError, FromSqlResult, ToSql, ToSqlOutput, ValueRef};
use rusqlite::{Connection, params};

/// Most events committed in one transaction.
const BATCH_ROWS: usize = 256;
/// Longest time an event waits for its transaction.
const BATCH_WAIT: Duration = Duration::from_millis(50);

/// The state of one chain in the job table (its `state` column holds [`JobState::as_str`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum JobState {
    /// Not run yet, or to run again.
    Pending,
    /// Handed to a worker; its result has not arrived.
    Running,
    /// Its result files are stored.
    Done,
    /// Out of attempts (`--max-attempts`), or failed deterministically; `error` says why.
    Failed,
    /// Its worker or lease was lost after the last attempt.
    Lost,
}

impl JobState {
    /// Every state, in the order `causeway status` lists them.
    pub const ALL: [JobState; 5] = [
        JobState::Pending,
        JobState::Running,
        JobState::Done,
        JobState::Failed,
        JobState::Lost,
    ];

    /// The text stored in `jobs.sqlite` and `jobs.csv`.
    pub fn as_str(self) -> &'static str {
        match self {
            JobState::Pending => "pending",
            JobState::Running => "running",
            JobState::Done => "done",
            JobState::Failed => "failed",
            JobState::Lost => "lost",
        }
    }

    /// The state whose text is `s`, if any.
    pub fn parse(s: &str) -> Option<JobState> {
        JobState::ALL.into_iter().find(|st| st.as_str() == s)
    }
}

impl std::fmt::Display for JobState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl ToSql for JobState {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        Ok(ToSqlOutput::from(self.as_str()))
    }
}

impl FromSql for JobState {
    fn column_result(value: ValueRef<'_>) -> FromSqlResult<Self> {
        let s = value.as_str()?;
        JobState::parse(s)
            .ok_or_else(|| FromSqlError::Other(format!("unknown job state {s:?}").into()))
    }
}

/// One row of the job table, as `causeway status` and `jobs.csv` show it.
#[derive(Debug, Clone, PartialEq)]
pub struct JobStatus {
    pub job_id: String,
    pub state: JobState,
    /// Attempts in the current run.
    pub attempts: u32,
    /// The worker that last ran it.
    pub worker: String,
    /// Its last error (empty if none).
    pub error: String,
}

/// Errors of the job table.
#[derive(Debug, thiserror::Error)]
pub enum JobTableError {
    #[error("{path}: {source}{}", sqlite_hint(source))]
    Sqlite {
        path: PathBuf,
        source: rusqlite::Error,
    },
    #[error("{path}: holds {found} jobs where the plan has {expected}, or other job ids")]
    Mismatch {
        path: PathBuf,
        found: usize,
        expected: usize,
    },
    /// The table was made for another plan (its run identity differs).
    #[error(
        "{path}: holds another experiment (run identity {found}, this plan's is {expected}); \
         choose another --out or remove the directory"
    )]
    OtherRun {
        path: PathBuf,
        found: String,
        expected: String,
    },
    /// The table has no run identity (made by an older causeway) and nothing else vouches
    /// for it.
    #[error(
        "{path}: cannot establish which experiment this run directory holds (its job table has \
         no run identity and manifest.json is missing or differs); choose another --out or \
         remove the directory"
    )]
    NoIdentity { path: PathBuf },
    /// A result could not be appended to the journal (the chain is not marked done).
    #[error("{path}: appending to the journal: {source}")]
    Journal {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("the job table's writer thread stopped")]
    WriterGone,
    /// Sealing a shard failed (its journal rows are kept: a rerun seals them).
    #[error("{path}: sealing a shard: {source}")]
    Seal { path: PathBuf, source: SealError },
}

/// What to do about a job table SQLite cannot use (empty for other errors).
fn sqlite_hint(e: &rusqlite::Error) -> &'static str {
    use rusqlite::ErrorCode::{
        CannotOpen, DatabaseCorrupt, DiskFull, NotADatabase, ReadOnly, SystemIoFailure,
    };
    match e {
        rusqlite::Error::SqliteFailure(f, _) => match f.code {
            DatabaseCorrupt | NotADatabase => {
                " (the job table is damaged: move jobs.sqlite aside and rerun the same command; \
                 the stored chains in chains/ are adopted again, checked as complete Parquet \
                 files, and the rest run)"
            }
            ReadOnly | CannotOpen | SystemIoFailure | DiskFull => {
                " (the run directory must be writable, on a file system with room)"
            }
            _ if e.to_string().contains("no such table") => {
                " (not a causeway job table: empty, or another program's database; a run \
                 directory holds the jobs.sqlite its run wrote)"
            }
            _ => "",
        },
        _ => "",
    }
}

/// A stored checkpoint: the iteration recorded beside it and its payload (its seal checked), or
/// why it cannot be used.
pub type Blob = Result<(u64, Vec<u8>), String>;

/// A change to one job's row, applied by the [`Writer`].
#[derive(Debug, Clone)]
pub enum Event {
    /// Attempt `attempt` started on `worker`, from the beginning or from the chain's checkpoint
    /// after iteration `resumed_from` (recorded in the `resumes` table).
    Started {
        index: usize,
        attempt: u32,
        worker: String,
        resumed_from: Option<u64>,
    },
    /// The chain's result: `result` (its journal entry, [`seal::journal_entry`]) is appended to
    /// the [`journal`] before the row is committed, with `timing` in the same transaction (so a
    /// done row has both: results' `rundir::timing`); the result moves to its shard's files
    /// when the shard is sealed.
    Done {
        index: usize,
        attempts: u32,
        worker: String,
        timing: ChainTiming,
        result: Box<JournalEntry>,
    },
    /// Given up after `attempts` (model failure or RPC failures), or its result could not be
    /// stored.
    Failed {
        index: usize,
        attempts: u32,
        worker: String,
        error: String,
    },
    /// Back in the queue after a failed attempt.
    Requeued {
        index: usize,
        attempts: u32,
        worker: String,
        error: String,
    },
    /// Not run: no worker was left to run it (a stopped run leaves its chains `pending`).
    Lost {
        index: usize,
        attempts: u32,
        error: String,
    },
}

pub(crate) fn now() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs_f64())
        .unwrap_or(0.0)
}

/// The job table of one run directory.
pub struct JobStore {
    conn: Connection,
    path: PathBuf,
    n_jobs: usize,
}

impl JobStore {
    /// Open (or create) `<dir>/jobs.sqlite` and make sure it holds exactly `job_ids`, in order
    /// (row `i` is job `i` of the plan).
    /// `identity` is the plan's run identity (`Manifest::identity`): a new table records it, an
    /// existing one must hold the same, so a directory whose manifest was lost can still not
    /// adopt another experiment's chains. A table from before identities existed is accepted
    /// only if `manifest_matches` (the caller compared `manifest.json` with the plan), and then
    /// gets the identity.
    pub fn open(
        dir: &Path,
        job_ids: &[String],
        identity: &str,
        manifest_matches: bool,
    ) -> Result<Self, JobTableError> {
        let path = dir.join(DB_FILE);
        let sq = |source| JobTableError::Sqlite {
            path: path.clone(),
            source,
        };
        let mut conn = Connection::open(&path).map_err(sq)?;
        conn.pragma_update(None, "journal_mode", "WAL")
            .map_err(sq)?;
        // WAL + NORMAL: a killed process loses nothing committed; only a power cut may.
        conn.pragma_update(None, "synchronous", "NORMAL")
            .map_err(sq)?;
        conn.busy_timeout(Duration::from_secs(10)).map_err(sq)?;
        conn.execute_batch(JOBS_SCHEMA_SQL).map_err(sq)?;
        let found = conn
            .query_row("SELECT COUNT(*) FROM jobs", [], |r| r.get::<_, i64>(0))
            .map_err(sq)? as usize;
        let stored: Option<String> = conn
            .query_row("SELECT value FROM run WHERE key = 'identity'", [], |r| {
                r.get(0)
            })
            .ok();
        match &stored {
            Some(s) if s != identity => {
                return Err(JobTableError::OtherRun {
                    path,
                    found: s.clone(),
                    expected: identity.to_string(),
                });
            }
            None if found > 0 && !manifest_matches => {
                return Err(JobTableError::NoIdentity { path });
            }
            _ => {}
        }
        if stored.is_none() {
            conn.execute(
                "INSERT OR REPLACE INTO run (key, value) VALUES ('identity', ?1)",
                [identity],
            )
            .map_err(sq)?;
        }
        if found == 0 {
            let tx = conn.transaction().map_err(sq)?;
            {
                let mut ins = tx
                    .prepare("INSERT INTO jobs (idx, job_id) VALUES (?1, ?2)")
                    .map_err(sq)?;
                for (i, id) in job_ids.iter().enumerate() {
                    ins.execute(params![i as i64, id]).map_err(sq)?;
                }
            }
            tx.commit().map_err(sq)?;
        } else {
            // Same plan (the manifest was checked first); a cheap check that rows line up.
            let last: Option<String> = conn
                .query_row(
                    "SELECT job_id FROM jobs WHERE idx = ?1",
                    [job_ids.len() as i64 - 1],
                    |r| r.get(0),
                )
                .ok();
            if found != job_ids.len() || last.as_ref() != job_ids.last() {
                return Err(JobTableError::Mismatch {
                    path,
                    found,
                    expected: job_ids.len(),
                });
            }
        }
        Ok(JobStore {
            conn,
            path,
            n_jobs: job_ids.len(),
        })
    }

    fn sq(&self) -> impl Fn(rusqlite::Error) -> JobTableError + '_ {
        |source| JobTableError::Sqlite {
            path: self.path.clone(),
            source,
        }
    }

    /// Make the table agree with the result files (`files_done(i)`: job `i`'s files are all
    /// present), then return the jobs still to run, in plan order.
    pub fn reconcile(
        &mut self,
        files_done: impl Fn(usize) -> bool,
    ) -> Result<Vec<usize>, JobTableError> {
        let path = self.path.clone();
        let sq = |source| JobTableError::Sqlite {
            path: path.clone(),
            source,
        };
        let rows: Vec<(usize, JobState)> = {
            let mut st = self
                .conn
                .prepare("SELECT idx, state FROM jobs ORDER BY idx")
                .map_err(sq)?;
            st.query_map([], |r| Ok((r.get::<_, i64>(0)? as usize, r.get(1)?)))
                .map_err(sq)?
                .collect::<Result<_, _>>()
                .map_err(sq)?
        };
        let mut todo = Vec::new();
        let tx = self.conn.transaction().map_err(sq)?;
        {
            let mut to_pending = tx
                .prepare(
                    "UPDATE jobs SET state = 'pending', attempts = 0, error = ?2 WHERE idx = ?1",
                )
                .map_err(sq)?;
            let mut to_done = tx
                .prepare("UPDATE jobs SET state = 'done', error = '' WHERE idx = ?1")
                .map_err(sq)?;
            for (i, state) in rows {
                let on_disk = files_done(i);
                match (state, on_disk) {
                    (JobState::Done, true) => {}
                    (JobState::Done, false) => {
                        to_pending
                            .execute(params![
                                i as i64,
                                "result files were missing or damaged: run again"
                            ])
                            .map_err(sq)?;
                        todo.push(i);
                    }
                    (_, true) => {
                        to_done.execute([i as i64]).map_err(sq)?;
                    }
                    (JobState::Pending, false) => todo.push(i),
                    (_, false) => {
                        to_pending.execute(params![i as i64, ""]).map_err(sq)?;
                        todo.push(i);
                    }
                }
            }
        }
        // A done chain needs no checkpoint (one left by a kill between the two writes).
        tx.execute(
            "DELETE FROM checkpoints WHERE idx IN (SELECT idx FROM jobs WHERE state = 'done')",
            [],
        )
        .map_err(sq)?;
        tx.commit().map_err(sq)?;
        Ok(todo)
    }

    /// After a stop: the chains that were running when it came (their results never
    /// arrived) go back to `pending`, so `causeway status` shows what a rerun will do.
    /// Returns how many.
    pub fn release_running(&self) -> Result<usize, JobTableError> {
        self.conn
            .execute(
                "UPDATE jobs SET state = 'pending' WHERE state = 'running'",
                [],
            )
            .map_err(self.sq())
    }

    /// The stored checkpoint of each of `jobs` that has one: the encoded `ChainCheckpoint`, with
    /// every row since iteration 1, or why it cannot be used (its seal is broken: damaged, or
    /// saved by an older causeway). A done chain's checkpoint is deleted when its result is
    /// stored.
    pub fn checkpoints(&self, jobs: &[usize]) -> Result<HashMap<usize, Blob>, JobTableError> {
        self.blobs("checkpoints", jobs)
    }

    /// The end state of each of `jobs` that has one (convergence-driven runs): the
    /// encoded `ChainCheckpoint` saved after the chain's last iteration, without rows (they are
    /// in the chain's files), or why it cannot be used. Kept after the chain is done; replaced
    /// when it is extended.
    pub fn ends(&self, jobs: &[usize]) -> Result<HashMap<usize, Blob>, JobTableError> {
        self.blobs("ends", jobs)
    }

    /// The digest of each done chain's own files, by job id, as stored when they were written
    /// (run directories written before shards; none for chains stored by an older causeway
    /// still).
    pub fn digests(&self) -> Result<HashMap<String, Digest>, JobTableError> {
        self.digest_table("SELECT job_id, xxh3_128 FROM digests")
    }

    /// The (key, digest) rows `sql` selects; a digest of another length is damage, and reads as
    /// all zeros, which never matches.
    fn digest_table<K: FromSql + std::hash::Hash + Eq>(
        &self,
        sql: &str,
    ) -> Result<HashMap<K, Digest>, JobTableError> {
        let mut st = self.conn.prepare(sql).map_err(self.sq())?;
        let rows = st
            .query_map([], |r| Ok((r.get::<_, K>(0)?, r.get::<_, Vec<u8>>(1)?)))
            .map_err(self.sq())?;
        let mut out = HashMap::new();
        for row in rows {
            let (key, bytes) = row.map_err(self.sq())?;
            out.insert(key, bytes.as_slice().try_into().unwrap_or([0; 16]));
        }
        Ok(out)
    }

    /// Seal every shard with journal rows (what a killed run left): see [`seal`].
    pub fn seal_journal(&mut self, rd: &RunDir) -> Result<(), JobTableError> {
        seal::seal_journal(&mut self.conn, rd, self.n_jobs).map_err(|source| JobTableError::Seal {
            path: self.path.clone(),
            source,
        })
    }

    /// The digest of each sealed shard's files, as recorded when it was sealed.
    pub fn shard_digests(&self) -> Result<HashMap<usize, Digest>, JobTableError> {
        self.digest_table::<i64>("SELECT shard, xxh3_128 FROM shards")
            .map(|m| m.into_iter().map(|(k, d)| (k as usize, d)).collect())
    }

    /// Record shard `shard`'s digest (a shard adopted without a record: the job table was
    /// replaced).
    pub fn record_shard(&self, shard: usize, digest: &Digest) -> Result<(), JobTableError> {
        self.conn
            .execute(
                "INSERT OR REPLACE INTO shards (shard, xxh3_128) VALUES (?1, ?2)",
                params![shard as i64, digest.as_slice()],
            )
            .map(|_| ())
            .map_err(self.sq())
    }

    /// Forget shard `shard`'s digest (its files were removed as damaged).
    pub fn forget_shard(&self, shard: usize) -> Result<(), JobTableError> {
        self.conn
            .execute("DELETE FROM shards WHERE shard = ?1", [shard as i64])
            .map(|_| ())
            .map_err(self.sq())
    }

    /// The rows of `table` (`checkpoints` or `ends`) of `jobs`, read in one pass over the
    /// table: it holds the chains that saved one, mostly far fewer than a run's jobs (a query
    /// per job was half the set-up of a run of 10⁵ short chains).
    fn blobs(&self, table: &str, jobs: &[usize]) -> Result<HashMap<usize, Blob>, JobTableError> {
        let mut wanted = vec![false; self.n_jobs];
        for &i in jobs {
            if let Some(w) = wanted.get_mut(i) {
                *w = true;
            }
        }
        let mut st = self
            .conn
            .prepare(&format!("SELECT idx, iteration, checkpoint FROM {table}"))
            .map_err(self.sq())?;
        let mut rows = st.query([]).map_err(self.sq())?;
        let mut out = HashMap::new();
        while let Some(r) = rows.next().map_err(self.sq())? {
            let i = r.get::<_, i64>(0).map_err(self.sq())?;
            let Some(i) = usize::try_from(i)
                .ok()
                .filter(|&i| wanted.get(i) == Some(&true))
            else {
                continue;
            };
            let it: i64 = r.get(1).map_err(self.sq())?;
            let bytes: Vec<u8> = r.get(2).map_err(self.sq())?;
            out.insert(i, unseal(&bytes).map(|b| (it as u64, b.to_vec())));
        }
        Ok(out)
    }

    /// Every row, in plan order (as written to `jobs.csv`), handed to `f` one at a time: the
    /// table is never held in memory (10⁶ chains: ≈ 100 MB).
    pub fn each_status<E: From<JobTableError>>(
        &self,
        mut f: impl FnMut(JobStatus) -> Result<(), E>,
    ) -> Result<(), E> {
        let sq = |e| E::from(self.sq()(e));
        let mut st = self.conn.prepare(&status_query("")).map_err(sq)?;
        let mut rows = st.query([]).map_err(sq)?;
        while let Some(r) = rows.next().map_err(sq)? {
            f(status_row(r).map_err(sq)?)?;
        }
        Ok(())
    }

    /// Hand the connection to a writer thread; with a `sealer`, it seals each shard once the
    /// run's chains of it have finished, and at the end every shard with journal rows.
    // The thread returns the store (and its first error) once, when it ends: size is no concern.
    #[allow(clippy::result_large_err)]
    pub fn into_writer(self, sealer: Option<Sealer>) -> Writer {
        let (tx, rx) = mpsc::channel::<Msg>();
        let failed = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let backlog = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let (flag, queued) = (failed.clone(), backlog.clone());
        let thread = std::thread::Builder::new()
            .name("jobs.sqlite writer".into())
            .spawn(move || write_loop(self, rx, &flag, &queued, sealer));
        let thread = match thread {
            Ok(h) => Some(h),
            Err(e) => {
                tracing::error!("cannot start the job table's writer: {e}");
                failed.store(true, std::sync::atomic::Ordering::SeqCst);
                None
            }
        };
        Writer {
            tx,
            thread,
            failed,
            backlog,
        }
    }
}

/// Rows `WHERE <filter>` (all rows if `filter` is empty), in plan order.
pub(crate) fn select_statuses(
    conn: &Connection,
    filter: &str,
) -> Result<Vec<JobStatus>, rusqlite::Error> {
    let mut st = conn.prepare(&status_query(filter))?;
    st.query_map([], status_row)?.collect()
}

fn status_query(filter: &str) -> String {
    let where_clause = if filter.is_empty() {
        String::new()
    } else {
        format!("WHERE {filter}")
    };
    format!("SELECT job_id, state, attempts, worker, error FROM jobs {where_clause} ORDER BY idx")
}

fn status_row(r: &rusqlite::Row<'_>) -> Result<JobStatus, rusqlite::Error> {
    Ok(JobStatus {
        job_id: r.get(0)?,
        state: r.get(1)?,
        attempts: r.get(2)?,
        worker: r.get(3)?,
        error: r.get(4)?,
    })
}

/// The most messages [`Writer::backlog`] should hold before its feeder waits. Each is a result
/// twice, its journal record and its decoded chain: ≈ 32 KB for a CEP-shaped chain (VB's
/// responsibilities), so ≈ 32 MB here. 4,096 held ≈ 100 MB more at the cluster bench's peak
/// for the same pace (`cargo bench -p causeway-tests --bench cluster`), and 1,024 still keeps
/// four of the writer's transactions (`BATCH_ROWS` each) queued.
pub const WRITER_BACKLOG_MAX: usize = 1024;

enum Msg {
    Event(Event),
    /// Replace job `index`'s stored checkpoint (`end`: its end state, table `ends`).
    Checkpoint {
        index: usize,
        checkpoint: Arc<ChainCheckpoint>,
        end: bool,
    },
    /// Delete job `index`'s checkpoint and end state.
    Forget(usize),
    Flush(mpsc::Sender<()>),
}

/// The single writer of the job table: events are applied in order, in small transactions.
pub struct Writer {
    tx: mpsc::Sender<Msg>,
    thread: Option<JoinHandle<Result<JobStore, (JobStore, JobTableError)>>>,
    /// A batch failed to commit (a full disk, an I/O error): the run should stop.
    failed: Arc<std::sync::atomic::AtomicBool>,
    /// Messages sent and not yet applied ([`Writer::backlog`]).
    backlog: Arc<std::sync::atomic::AtomicUsize>,
}

impl Writer {
    /// Whether a batch has failed to commit since the writer started.
    pub fn failed(&self) -> bool {
        self.failed.load(std::sync::atomic::Ordering::SeqCst)
    }

    /// Messages queued and not yet applied: the caller that feeds the writer faster than it
    /// commits waits while this is above [`WRITER_BACKLOG_MAX`] (results queued here are held
    /// in memory: a run of 10⁶ short chains grew by hundreds of MB without the wait).
    pub fn backlog(&self) -> usize {
        self.backlog.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Whether the caller should wait for the writer: its backlog is above
    /// [`WRITER_BACKLOG_MAX`] and it is still committing (a failed or stopped writer is never
    /// waited for).
    pub fn behind(&self) -> bool {
        self.backlog() > WRITER_BACKLOG_MAX
            && !self.failed()
            && self.thread.as_ref().is_some_and(|h| !h.is_finished())
    }

    fn queue(&self, m: Msg) -> bool {
        use std::sync::atomic::Ordering::Relaxed;
        self.backlog.fetch_add(1, Relaxed);
        let sent = self.tx.send(m).is_ok();
        if !sent {
            self.backlog.fetch_sub(1, Relaxed);
        }
        sent
    }

    /// Queue one event (never blocks).
    pub fn send(&self, ev: Event) {
        if !self.queue(Msg::Event(ev)) {
            tracing::error!("the job table's writer has stopped; the result files stay the truth");
        }
    }

    /// Queue job `index`'s new checkpoint (never blocks), with every row since iteration 1. It
    /// replaces the previous one in the same transaction, so a kill at any moment leaves one
    /// whole checkpoint or the previous. The writer thread encodes and seals it (the
    /// dispatcher hands a chain's checkpoint on at most every 100 ms, see `dispatch`).
    pub fn checkpoint(&self, index: usize, checkpoint: Arc<ChainCheckpoint>) {
        self.send_checkpoint(index, checkpoint, false);
    }

    /// Queue job `index`'s end state (never blocks): the `ChainCheckpoint` after its last
    /// iteration, without rows, kept in table `ends` once the chain is done.
    pub fn end_state(&self, index: usize, checkpoint: Arc<ChainCheckpoint>) {
        self.send_checkpoint(index, checkpoint, true);
    }

    fn send_checkpoint(&self, index: usize, checkpoint: Arc<ChainCheckpoint>, end: bool) {
        let m = Msg::Checkpoint {
            index,
            checkpoint,
            end,
        };
        if !self.queue(m) {
            tracing::error!("the job table's writer has stopped; a checkpoint was not stored");
        }
    }

    /// Queue the deletion of job `index`'s stored checkpoint and end state (never blocks): a
    /// worker refused them, so the chain starts again from iteration 1.
    pub fn forget_checkpoint(&self, index: usize) {
        if !self.queue(Msg::Forget(index)) {
            tracing::error!("the job table's writer has stopped; a refused checkpoint stays");
        }
    }

    /// Wait until every event sent so far is committed.
    pub fn flush(&self) -> Result<(), JobTableError> {
        let (ack, done) = mpsc::channel();
        if !self.queue(Msg::Flush(ack)) {
            return Err(JobTableError::WriterGone);
        }
        done.recv().map_err(|_| JobTableError::WriterGone)
    }

    /// Commit everything and get the table back.
    pub fn finish(mut self) -> Result<JobStore, JobTableError> {
        let Some(h) = self.thread.take() else {
            return Err(JobTableError::WriterGone);
        };
        drop(self.tx);
        match h.join() {
            Ok(Ok(store)) => Ok(store),
            Ok(Err((_, e))) => Err(e),
            Err(_) => Err(JobTableError::WriterGone),
        }
    }
}

pub mod journal;
pub mod seal;
mod writer;
pub use seal::{JournalEntry, SealError, Sealer};
use seal::{Sealed, record_sealed, seal_held};
use writer::write_loop;

#[cfg(test)]
mod tests;

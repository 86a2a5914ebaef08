//! Sealing: a shard's finished chains moved from the journal (`journal`: a file per shard,
//! appended as chains finish) into the shard's files (`causeway_results::rundir::shards`), in
//! plan order.
//!
//! Order of writes, so that a kill at any moment loses nothing and adopts nothing half-written:
//! the result is appended to its shard's journal file, then the row that says the chain is done
//! is committed; the shard's files are written whole and renamed into place; then one
//! transaction records the files' digest, and the journal file is removed. Killed between the
//! rename and the removal, the journal still holds the records, and sealing them again writes
//! the same bytes. Run directories written before the journal had files keep it in
//! `jobs.sqlite`'s table `journal`, committed with the done row; such rows are sealed the same
//! way and deleted in the digest's transaction.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::Path;

use causeway_proto::v1::ChainResult;
use causeway_results::rundir::RunDir;
use causeway_results::rundir::digest::Digest;
use causeway_results::rundir::shards::{SealedChain, shard_jobs, shard_of};
use causeway_worker::wire::chain_output_from_result;
use prost::Message as _;
use rusqlite::{Connection, params};

use super::journal;

/// A sealing that failed: the job table, or the shard's files (the journal keeps the rows; a
/// rerun seals them).
#[derive(Debug, thiserror::Error)]
pub enum SealError {
    #[error(transparent)]
    Sqlite(#[from] rusqlite::Error),
    #[error(transparent)]
    Files(#[from] causeway_results::rundir::StoreError),
}

impl SealError {
    /// The disk is full or the quota spent.
    pub fn is_storage_full(&self) -> bool {
        matches!(self, SealError::Files(e) if e.is_storage_full())
    }
}

/// A finished chain's result twice: as the journal stores it (`record`: [`journal::record`],
/// the protobuf `ChainResult` framed, until its shard is sealed) and as its shard will
/// (`chain`, held in memory so that sealing does not read the journal back).
#[derive(Debug, Clone)]
pub struct JournalEntry {
    pub record: Vec<u8>,
    pub chain: SealedChain,
}

/// Plan job `index` (`job_id`)'s result for the journal and its shard, its sizes and summary
/// matrices checked first, so that sealing it cannot fail on them.
///
/// # Errors
/// A summary matrix or sizes that do not fit (as [`SealedChain::new`] checks them), or a
/// result of 4 GiB or more.
pub fn journal_entry(
    index: usize,
    job_id: &str,
    result: ChainResult,
) -> Result<JournalEntry, String> {
    let record = journal::record(index, &result).map_err(|e| format!("{job_id}: {e}"))?;
    let chain = sealed_chain(index, job_id, result).map_err(|e| format!("{job_id}: {e}"))?;
    Ok(JournalEntry { record, chain })
}

/// Plan job `index` (`job_id`)'s result as its shard stores it: its summary matrices and sizes
/// checked ([`SealedChain::new`]).
fn sealed_chain(index: usize, job_id: &str, result: ChainResult) -> Result<SealedChain, String> {
    chain_output_from_result(result).and_then(|out| SealedChain::new(index, job_id, out))
}

/// Record a sealed shard's digest (table `shards`).
const DIGEST_SQL: &str = "INSERT OR REPLACE INTO shards (shard, xxh3_128) VALUES (?1, ?2)";

/// When shards are sealed during a run: once every chain of the shard that the run dispatches
/// has finished (done, or failed for good), from the chains held in memory; and at the end,
/// from the journal, every shard still with journal rows.
pub struct Sealer {
    rd: RunDir,
    n_jobs: usize,
    /// Chains of this run not yet finished, per shard.
    left: Vec<usize>,
    /// Whether a chain of this run is not yet finished.
    open: Vec<bool>,
    /// This run's done chains of shards not yet sealed.
    held: HashMap<usize, Vec<SealedChain>>,
}

impl Sealer {
    /// For a run of `n_jobs` plan jobs that dispatches `pending`.
    pub fn new(rd: RunDir, n_jobs: usize, pending: &[usize]) -> Self {
        let n_shards = shard_of(n_jobs.saturating_sub(1), n_jobs) + 1;
        let mut left = vec![0; n_shards];
        let mut open = vec![false; n_jobs];
        for &i in pending.iter().filter(|&&i| i < n_jobs) {
            if !open[i] {
                open[i] = true;
                left[shard_of(i, n_jobs)] += 1;
            }
        }
        Sealer {
            rd,
            n_jobs,
            left,
            open,
            held: HashMap::new(),
        }
    }

    /// The run directory the shards are written to.
    pub fn run_dir(&self) -> &RunDir {
        &self.rd
    }

    /// Hold a done chain (its journal row committed) until its shard is sealed; a chain this
    /// run has already seen finish (a duplicate) is left to the journal.
    pub fn hold(&mut self, chain: SealedChain) {
        let i = chain.index();
        if self.open.get(i).copied().unwrap_or(false) {
            let shard = shard_of(i, self.n_jobs);
            self.held.entry(shard).or_default().push(chain);
        }
    }

    /// Chain `index` finished (its event committed); returns its shard and the chains held for
    /// it if that was the run's last chain of it: the shard to seal now. A result stored again
    /// later (a duplicate) stays in the journal for [`Sealer::seal_all`].
    pub fn finished(&mut self, index: usize) -> Option<(usize, Vec<SealedChain>)> {
        if !self.open.get(index).copied().unwrap_or(false) {
            return None;
        }
        self.open[index] = false;
        let shard = shard_of(index, self.n_jobs);
        self.left[shard] -= 1;
        (self.left[shard] == 0).then(|| (shard, self.held.remove(&shard).unwrap_or_default()))
    }

    /// Seal every shard with journal rows (the end of a run).
    pub fn seal_all(&self, conn: &mut Connection) -> Result<(), SealError> {
        seal_journal(conn, &self.rd, self.n_jobs)
    }
}

/// A shard written from held chains: its plan indices (their journal rows are deleted once the
/// digest is recorded) and the files' digest.
pub struct Sealed {
    pub shard: usize,
    pub indices: Vec<usize>,
    pub digest: Result<Digest, causeway_results::rundir::StoreError>,
}

/// Write `chains` into shard `shard`'s files (merged with what it stores).
pub fn seal_held(rd: &RunDir, shard: usize, chains: Vec<SealedChain>) -> Sealed {
    let indices = chains.iter().map(SealedChain::index).collect();
    Sealed {
        shard,
        indices,
        digest: rd.seal_shard(shard, chains),
    }
}

/// Record shards written by [`seal_held`] in one transaction: each one's digest recorded (and
/// its rows of an older directory's journal table deleted), then its journal file removed. A
/// shard whose files failed keeps its journal (a rerun seals it); its error is returned after
/// the others are recorded.
pub fn record_sealed(
    conn: &mut Connection,
    rd: &RunDir,
    sealed: Vec<Sealed>,
) -> Result<(), SealError> {
    let tx = conn.transaction()?;
    let mut first_error = None;
    let mut done = Vec::new();
    {
        // An older directory's rows are sealed before a run starts, so during a run the table
        // is empty: one look at it spares a delete a chain.
        let older_rows: bool =
            tx.query_row("SELECT EXISTS (SELECT 1 FROM journal)", [], |r| r.get(0))?;
        let mut forget = tx.prepare_cached("DELETE FROM journal WHERE idx = ?1")?;
        let mut digest = tx.prepare_cached(DIGEST_SQL)?;
        for s in sealed {
            match s.digest {
                Ok(d) => {
                    if older_rows {
                        for i in s.indices {
                            forget.execute([i as i64])?;
                        }
                    }
                    digest.execute(params![s.shard as i64, d.as_slice()])?;
                    done.push(s.shard);
                }
                Err(e) => {
                    first_error.get_or_insert(SealError::Files(e));
                }
            }
        }
    }
    tx.commit()?;
    for shard in done {
        remove_journal(&rd.root, shard)?;
    }
    first_error.map_or(Ok(()), Err)
}

fn remove_journal(root: &Path, shard: usize) -> Result<(), SealError> {
    journal::remove(root, shard).map_err(journal_error(root, shard))
}

/// An I/O error on shard `shard`'s journal file, as a sealing error naming the file.
fn journal_error(root: &Path, shard: usize) -> impl FnOnce(std::io::Error) -> SealError + '_ {
    move |source| {
        SealError::Files(causeway_results::rundir::StoreError::Io {
            path: journal::path(root, shard),
            source,
        })
    }
}

/// Seal every shard that has a journal file or rows in the job table's journal: what a killed
/// run left, or the end of a run.
pub fn seal_journal(conn: &mut Connection, rd: &RunDir, n_jobs: usize) -> Result<(), SealError> {
    let mut shards: BTreeSet<usize> = {
        let mut st = conn.prepare("SELECT idx FROM journal")?;
        st.query_map([], |r| r.get::<_, i64>(0))?
            .map(|i| i.map(|i| shard_of(i as usize, n_jobs)))
            .collect::<Result<_, _>>()?
    };
    shards.extend(journal::shards(&rd.root));
    for s in shards {
        seal_shard(conn, rd, n_jobs, s)?;
    }
    journal::remove_dir_if_empty(&rd.root);
    Ok(())
}

/// Seal shard `shard`: its journal's records of done chains (the file's, then any rows of the
/// job table's journal) into its files, then the digest recorded (and the rows deleted) in one
/// transaction, and the journal file removed. A record that does not decode (damaged) is
/// dropped and its chain goes back to `pending`; a done chain whose record was lost is not in
/// the shard, and the run's reconciling sends it back to `pending`.
fn seal_shard(
    conn: &mut Connection,
    rd: &RunDir,
    n_jobs: usize,
    shard: usize,
) -> Result<(), SealError> {
    let range = shard_jobs(shard, n_jobs);
    let (lo, hi) = (range.start as i64, range.end as i64);
    let mut records: BTreeMap<usize, Vec<u8>> = {
        let mut st = conn.prepare_cached(
            "SELECT journal.idx, journal.result FROM journal \
             WHERE journal.idx >= ?1 AND journal.idx < ?2",
        )?;
        st.query_map(params![lo, hi], |r| {
            Ok((r.get::<_, i64>(0)? as usize, r.get(1)?))
        })?
        .collect::<Result<_, _>>()?
    };
    let (appended, torn) =
        journal::read(&rd.root, shard).map_err(journal_error(&rd.root, shard))?;
    if let Some(why) = torn {
        tracing::warn!(
            "{}: {why}; the chains it held after it run again",
            journal::path(&rd.root, shard).display()
        );
    }
    // The last record of a chain wins (a chain stored again holds the same bytes).
    records.extend(appended);
    let done: HashMap<usize, String> = {
        let mut st = conn.prepare_cached(
            "SELECT idx, job_id FROM jobs WHERE state = 'done' AND idx >= ?1 AND idx < ?2",
        )?;
        st.query_map(params![lo, hi], |r| {
            Ok((r.get::<_, i64>(0)? as usize, r.get(1)?))
        })?
        .collect::<Result<_, _>>()?
    };
    let mut chains = Vec::with_capacity(records.len());
    let mut damaged = Vec::new();
    for (i, blob) in records {
        // A record whose done row never committed: the chain runs again.
        let Some(id) = done.get(&i) else { continue };
        let chain = ChainResult::decode(blob.as_slice())
            .map_err(|e| e.to_string())
            .and_then(|r| sealed_chain(i, id, r));
        match chain {
            Ok(c) => chains.push(c),
            Err(e) => {
                tracing::warn!("{id}: its stored result is damaged ({e}); the chain runs again");
                damaged.push(i as i64);
            }
        }
    }
    let digest = (!chains.is_empty())
        .then(|| rd.seal_shard(shard, chains))
        .transpose()?;
    let tx = conn.transaction()?;
    tx.execute(
        "DELETE FROM journal WHERE idx >= ?1 AND idx < ?2",
        params![lo, hi],
    )?;
    for i in damaged {
        tx.execute(
            "UPDATE jobs SET state = 'pending', attempts = 0, \
             error = 'its stored result was damaged: run again' WHERE idx = ?1",
            [i],
        )?;
    }
    if let Some(d) = digest {
        tx.execute(DIGEST_SQL, params![shard as i64, d.as_slice()])?;
    }
    tx.commit()?;
    remove_journal(&rd.root, shard)
}

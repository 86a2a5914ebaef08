//! Sealing: a shard's finished chains moved from the job table's journal into the shard's files
//! (`causeway_results::rundir::shards`), in plan order.
//!
//! Order of writes, so that a kill at any moment loses nothing and adopts nothing half-written:
//! the journal row is committed with the row that says the chain is done; the shard's files are
//! written whole and renamed into place; then one transaction deletes the shard's journal rows
//! and records the files' digest. Killed between the rename and that transaction, the journal
//! still holds the rows, and sealing them again writes the same bytes.

use std::collections::BTreeSet;

use causeway_proto::v1::ChainResult;
use causeway_results::rundir::RunDir;
use causeway_results::rundir::shards::{SealedChain, check_sizes, shard_jobs, shard_of};
use causeway_worker::wire::{chain_output_from_result, matrix_from_wire};
use prost::Message as _;
use rusqlite::{Connection, params};

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

/// A finished chain's result as the journal stores it (protobuf `ChainResult`), its sizes and
/// summary matrices checked first, so that sealing it cannot fail on them.
///
/// # Errors
/// A summary matrix or sizes that do not fit (as [`SealedChain::new`] checks them).
pub fn journal_entry(result: &ChainResult) -> Result<Vec<u8>, String> {
    check_sizes(
        &result.job_id,
        result.iterations.len(),
        [
            (result.trace_names.len(), result.trace.len()),
            (result.stat_names.len(), result.stats.len()),
        ],
        result.elapsed_seconds.len(),
    )?;
    for m in &result.summary {
        matrix_from_wire(m.clone()).map_err(|e| format!("{}: {e}", result.job_id))?;
    }
    Ok(result.encode_to_vec())
}

/// When shards are sealed during a run: once every chain of the shard that the run dispatches
/// has finished (done, or failed for good), and at the end every shard still with journal rows.
pub struct Sealer {
    rd: RunDir,
    n_jobs: usize,
    /// Chains of this run not yet finished, per shard.
    left: Vec<usize>,
    /// Whether a chain of this run is not yet finished.
    open: Vec<bool>,
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
        }
    }

    /// Chain `index` finished (its event committed); returns its shard if that was the run's
    /// last chain of it: the shard to seal now. A result stored again later (a duplicate) waits
    /// for [`Sealer::seal_all`].
    pub fn finished(&mut self, index: usize) -> Option<usize> {
        if !self.open.get(index).copied().unwrap_or(false) {
            return None;
        }
        self.open[index] = false;
        let shard = shard_of(index, self.n_jobs);
        self.left[shard] -= 1;
        (self.left[shard] == 0).then_some(shard)
    }

    /// Seal shard `shard` now (nothing to do if it has no journal rows).
    pub fn seal(&self, conn: &mut Connection, shard: usize) -> Result<(), SealError> {
        seal_shard(conn, &self.rd, self.n_jobs, shard)
    }

    /// Seal every shard with journal rows (the end of a run).
    pub fn seal_all(&self, conn: &mut Connection) -> Result<(), SealError> {
        seal_journal(conn, &self.rd, self.n_jobs)
    }
}

/// Seal every shard that has rows in the journal: what a killed run left, or the end of a run.
pub fn seal_journal(conn: &mut Connection, rd: &RunDir, n_jobs: usize) -> Result<(), SealError> {
    let shards: BTreeSet<usize> = {
        let mut st = conn.prepare("SELECT idx FROM journal")?;
        st.query_map([], |r| r.get::<_, i64>(0))?
            .map(|i| i.map(|i| shard_of(i as usize, n_jobs)))
            .collect::<Result<_, _>>()?
    };
    for s in shards {
        seal_shard(conn, rd, n_jobs, s)?;
    }
    Ok(())
}

/// Seal shard `shard`: its journal rows into its files, then the rows deleted and the digest
/// recorded in one transaction. A journal row that does not decode (damaged) is dropped and its
/// chain goes back to `pending`.
fn seal_shard(
    conn: &mut Connection,
    rd: &RunDir,
    n_jobs: usize,
    shard: usize,
) -> Result<(), SealError> {
    let range = shard_jobs(shard, n_jobs);
    let (lo, hi) = (range.start as i64, range.end as i64);
    let rows: Vec<(i64, String, Vec<u8>)> = {
        let mut st = conn.prepare_cached(
            "SELECT journal.idx, jobs.job_id, journal.result FROM journal \
             JOIN jobs ON jobs.idx = journal.idx \
             WHERE journal.idx >= ?1 AND journal.idx < ?2 ORDER BY journal.idx",
        )?;
        st.query_map(params![lo, hi], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?
            .collect::<Result<_, _>>()?
    };
    let mut chains = Vec::with_capacity(rows.len());
    let mut damaged = Vec::new();
    for (i, id, blob) in rows {
        let chain = ChainResult::decode(blob.as_slice())
            .map_err(|e| e.to_string())
            .and_then(chain_output_from_result)
            .and_then(|out| SealedChain::new(i as usize, &id, out));
        match chain {
            Ok(c) => chains.push(c),
            Err(e) => {
                tracing::warn!("{id}: its stored result is damaged ({e}); the chain runs again");
                damaged.push(i);
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
        tx.execute(
            "INSERT OR REPLACE INTO shards (shard, xxh3_128) VALUES (?1, ?2)",
            params![shard as i64, d.as_slice()],
        )?;
    }
    tx.commit()?;
    Ok(())
}

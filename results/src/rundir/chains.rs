//! Reading a run directory's chains, wherever they are stored: in a sealed shard
//! ([`super::shards`]), or, in run directories written before shards, as a chain's own files
//! (`chains/<job>.trace.parquet`, `<job>.sample_stats.parquet`, and before the trace's footer
//! held it `<job>.summary.parquet`).
//!
//! Which chains are stored is listed once (one listing of `chains/` and each shard's footer)
//! and kept while `chains/` is unchanged (its modification time; writes through this
//! [`RunDir`] or a clone of it drop it at once); the last few shards read are kept whole, since
//! readers go through a run's chains in plan order.

use std::collections::HashSet;
use std::fs;
use std::path::PathBuf;
use std::sync::{Arc, MutexGuard};

use causeway_papers::Matrix;
use polars::prelude::*;

use super::shards::{Shard, files_digest, frame_defect, remove_if_exists, shard_job_ids};
use super::{
    RunDir, SUMMARY_KEY, StoreError, footer_value, read_matrices, read_parquet, summary_from_json,
};

/// Shards kept decoded.
const SHARDS_KEPT: usize = 4;

/// A chain's trace file in run directories written before shards is `chains/<job>` followed by
/// this.
const TRACE_SUFFIX: &str = ".trace.parquet";
/// ... and its statistics and (older still) summary files.
const STATS_SUFFIX: &str = ".sample_stats.parquet";
const SUMMARY_SUFFIX: &str = ".summary.parquet";

/// Which chains are stored, and the shards read last.
#[derive(Default)]
pub(super) struct Cache {
    index: Option<Arc<Index>>,
    /// The modification time of `chains/` when the index was made: a file created, renamed
    /// into place or removed there (by another `RunDir` or process) changes it.
    listed: Option<std::time::SystemTime>,
    shards: Vec<(usize, Arc<Shard>)>,
    /// Whether `chains/` holds files of single chains (written before shards), once looked:
    /// nothing writes such files any more, so the answer only changes from yes to no.
    own_files: Option<bool>,
}

impl std::fmt::Debug for Cache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("chains::Cache")
    }
}

#[derive(Default)]
struct Index {
    /// Job id → its shard.
    sealed: SealedIds,
    /// Jobs stored as their own files (older run directories).
    own_files: HashSet<String>,
}

impl Index {
    /// Where chain `id` is stored: a shard first, then its own files.
    fn place(&self, id: &str) -> Place {
        match self.sealed.get(id) {
            Some(s) => Place::Shard(s),
            None if self.own_files.contains(id) => Place::OwnFiles,
            None => Place::Nowhere,
        }
    }
}

/// Job id → shard of every sealed chain, compact: the ids' bytes in one buffer, and one entry
/// per chain sorted by its id. At 10⁶ chains it takes about 38 MB where a `HashMap<String,
/// usize>` took 90, for a lookup of about 20 comparisons.
#[derive(Default)]
struct SealedIds {
    bytes: String,
    /// (start in `bytes`, length, shard); sorted by id once every shard is listed.
    entries: Vec<(usize, u32, u32)>,
}

impl SealedIds {
    /// List `id` in `shard`. Job ids are short and shard numbers below `MAX_SHARDS`, so both
    /// fit a `u32`.
    fn push(&mut self, id: &str, shard: usize) {
        self.entries
            .push((self.bytes.len(), id.len() as u32, shard as u32));
        self.bytes.push_str(id);
    }

    /// Sort the entries by id, so that [`SealedIds::get`] can search them.
    fn sort(&mut self) {
        let bytes = &self.bytes;
        self.entries
            .sort_unstable_by(|a, b| Self::id_in(bytes, a).cmp(Self::id_in(bytes, b)));
    }

    fn id_in<'a>(bytes: &'a str, &(start, len, _): &(usize, u32, u32)) -> &'a str {
        &bytes[start..start + len as usize]
    }

    fn get(&self, id: &str) -> Option<usize> {
        self.entries
            .binary_search_by(|e| Self::id_in(&self.bytes, e).cmp(id))
            .ok()
            .map(|k| self.entries[k].2 as usize)
    }
}

/// The chains a run directory stored when [`RunDir::stored_index`] was called: its answers
/// are [`RunDir::chain_done`]'s and [`RunDir::in_own_files`]'s at that moment.
pub struct StoredIndex(Arc<Index>);

impl StoredIndex {
    /// Whether job `job_id`'s chain is stored.
    pub fn contains(&self, job_id: &str) -> bool {
        !matches!(self.0.place(job_id), Place::Nowhere)
    }

    /// Whether it is stored as its own files (an older run directory), not in a shard.
    pub fn in_own_files(&self, job_id: &str) -> bool {
        matches!(self.0.place(job_id), Place::OwnFiles)
    }
}

/// Where a chain is stored.
enum Place {
    Shard(usize),
    OwnFiles,
    Nowhere,
}

impl RunDir {
    fn cache(&self) -> MutexGuard<'_, Cache> {
        self.chains.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Drop what is known of the stored chains: they changed.
    pub(super) fn forget(&self) {
        let mut c = self.cache();
        c.index = None;
        c.shards.clear();
    }

    fn index(&self) -> Arc<Index> {
        let listed = fs::metadata(self.root.join("chains"))
            .and_then(|m| m.modified())
            .ok();
        {
            let mut c = self.cache();
            match &c.index {
                Some(ix) if c.listed == listed && listed.is_some() => return ix.clone(),
                _ => {
                    c.index = None;
                    c.shards.clear();
                }
            }
        }
        let mut ix = Index::default();
        if let Ok(entries) = fs::read_dir(self.root.join("chains")) {
            for e in entries.flatten() {
                let Ok(name) = e.file_name().into_string() else {
                    continue;
                };
                if let Some(id) = name.strip_suffix(TRACE_SUFFIX)
                    && !id.starts_with("shard-")
                {
                    ix.own_files.insert(id.to_string());
                }
            }
        }
        for shard in self.shards() {
            // A shard whose footer cannot be read stores nothing (a resume runs its chains).
            if let Ok(ids) = shard_job_ids(&self.shard_trace_path(shard)) {
                for id in &ids {
                    ix.sealed.push(id, shard);
                }
            }
        }
        ix.sealed.sort();
        let ix = Arc::new(ix);
        let mut c = self.cache();
        c.index = Some(ix.clone());
        c.listed = listed;
        ix
    }

    fn place(&self, id: &str) -> Place {
        self.index().place(id)
    }

    fn shard(&self, shard: usize) -> Result<Arc<Shard>, StoreError> {
        let mut c = self.cache();
        if let Some(k) = c.shards.iter().position(|(s, _)| *s == shard) {
            let hit = c.shards.remove(k);
            let out = hit.1.clone();
            c.shards.push(hit);
            return Ok(out);
        }
        let read = Arc::new(Shard::read(self, shard)?);
        if c.shards.len() >= SHARDS_KEPT {
            c.shards.remove(0);
        }
        c.shards.push((shard, read.clone()));
        Ok(read)
    }

    /// The chains stored now, listed once for many lookups (each [`RunDir::chain_done`] first
    /// checks whether `chains/` changed).
    pub fn stored_index(&self) -> StoredIndex {
        StoredIndex(self.index())
    }

    /// Whether a job's chain is stored, whole: a shard is written whole and renamed into place;
    /// an older directory's chain had its trace written last.
    pub fn chain_done(&self, job_id: &str) -> bool {
        !matches!(self.place(job_id), Place::Nowhere)
    }

    /// Whether job `job_id` is stored as its own files (an older run directory), not in a shard.
    pub fn in_own_files(&self, job_id: &str) -> bool {
        matches!(self.place(job_id), Place::OwnFiles)
    }

    /// The file that holds job `job_id`'s trace: its shard's, or its own in an older run
    /// directory (where it would be, if it is not stored).
    pub fn trace_path(&self, job_id: &str) -> PathBuf {
        match self.place(job_id) {
            Place::Shard(s) => self.shard_trace_path(s),
            _ => self.own_file(job_id, TRACE_SUFFIX),
        }
    }

    /// The file that holds job `job_id`'s sampler statistics (see [`RunDir::trace_path`]).
    pub fn sample_stats_path(&self, job_id: &str) -> PathBuf {
        match self.place(job_id) {
            Place::Shard(s) => self.shard_stats_path(s),
            _ => self.own_file(job_id, STATS_SUFFIX),
        }
    }

    /// `chains/<job><suffix>`: a chain's own file in an older run directory.
    fn own_file(&self, job_id: &str, suffix: &str) -> PathBuf {
        self.root.join("chains").join(format!("{job_id}{suffix}"))
    }

    /// Delete job `job_id`'s own files, if an older run directory has them (its chain is now in
    /// a shard).
    pub(super) fn remove_chain_files(&self, job_id: &str) -> Result<(), StoreError> {
        let any = *self.cache().own_files.get_or_insert_with(|| {
            fs::read_dir(self.root.join("chains")).is_ok_and(|entries| {
                entries.flatten().any(|e| {
                    e.file_name()
                        .to_str()
                        .is_some_and(|n| n.ends_with(TRACE_SUFFIX) && !n.starts_with("shard-"))
                })
            })
        });
        if !any {
            return Ok(());
        }
        for suffix in [TRACE_SUFFIX, STATS_SUFFIX, SUMMARY_SUFFIX] {
            remove_if_exists(&self.own_file(job_id, suffix))?;
        }
        Ok(())
    }

    /// Why a stored chain cannot be read, if it cannot: not stored, or a file of it that is not
    /// complete (a Parquet file without `PAR1` at both ends and a footer length that fits, or
    /// likewise an Arrow IPC summary file: `shards::frame_defect`). Cheap enough to run on
    /// every chain of a resumed run.
    pub fn chain_defect(&self, job_id: &str) -> Option<String> {
        let files = match self.place(job_id) {
            Place::Nowhere => return Some(format!("{job_id} is not stored")),
            Place::Shard(s) => vec![
                self.shard_trace_path(s),
                self.shard_stats_path(s),
                self.shard_summary_path(s),
            ],
            Place::OwnFiles => vec![
                self.own_file(job_id, TRACE_SUFFIX),
                self.own_file(job_id, STATS_SUFFIX),
                self.own_file(job_id, SUMMARY_SUFFIX),
            ],
        };
        files
            .iter()
            .enumerate()
            .filter(|(k, p)| *k == 0 || p.exists())
            .find_map(|(_, p)| frame_defect(p).map(|why| format!("{}: {why}", p.display())))
    }

    /// The digest of a chain's own files (an older run directory): its trace's bytes, then its
    /// statistics' (empty if it has none), as the job table recorded them.
    ///
    /// # Errors
    /// A file that exists and cannot be read; a missing trace.
    pub fn chain_digest(&self, job_id: &str) -> Result<super::digest::Digest, StoreError> {
        files_digest(
            &self.own_file(job_id, TRACE_SUFFIX),
            &self.own_file(job_id, STATS_SUFFIX),
            None,
        )
    }

    /// A chain's sampler statistics, if its sampler records any (`None` otherwise): `iteration`
    /// and one f64 column per statistic.
    ///
    /// # Errors
    /// The chain is not stored, or its files cannot be read.
    pub fn read_sample_stats(&self, job_id: &str) -> Result<Option<DataFrame>, StoreError> {
        if let Place::Shard(s) = self.place(job_id) {
            return self.shard(s)?.stats(job_id);
        }
        let path = self.own_file(job_id, STATS_SUFFIX);
        if path.exists() {
            read_parquet(&path).map(Some)
        } else {
            Ok(None)
        }
    }

    /// A chain's trace: `iteration` and one f64 column per traced scalar, one row per recorded
    /// iteration.
    ///
    /// # Errors
    /// The chain is not stored, or its files cannot be read.
    pub fn read_trace(&self, job_id: &str) -> Result<DataFrame, StoreError> {
        match self.place(job_id) {
            Place::Shard(s) => self.shard(s)?.trace(job_id),
            _ => read_parquet(&self.own_file(job_id, TRACE_SUFFIX)),
        }
    }

    /// A chain's summary matrices: from its shard, or in an older run directory from its
    /// trace's footer or, older still, its own summary file.
    ///
    /// # Errors
    /// The chain is not stored, no place holds a summary, or it does not parse.
    pub fn read_summary(&self, job_id: &str) -> Result<Vec<Matrix>, StoreError> {
        if let Place::Shard(s) = self.place(job_id) {
            return self.shard(s)?.summary(job_id, None);
        }
        let trace = self.own_file(job_id, TRACE_SUFFIX);
        if let Some(text) = footer_value(&trace, SUMMARY_KEY)? {
            return summary_from_json(&trace, &text);
        }
        let legacy = self.own_file(job_id, SUMMARY_SUFFIX);
        if legacy.exists() {
            return read_matrices(&legacy);
        }
        Err(StoreError::Format {
            path: trace,
            message: format!("no summary: no {SUMMARY_KEY} in the footer and no summary file"),
        })
    }

    /// One matrix of a chain's summary (`None`: it has none of that name): as
    /// [`RunDir::read_summary`], but a shard's summary file is read only if that matrix is
    /// stored there, so reading a chain's log marginal likelihood does not read its
    /// responsibilities.
    ///
    /// # Errors
    /// As [`RunDir::read_summary`].
    pub fn read_summary_matrix(
        &self,
        job_id: &str,
        name: &str,
    ) -> Result<Option<Matrix>, StoreError> {
        let found = match self.place(job_id) {
            Place::Shard(s) => self.shard(s)?.summary(job_id, Some(name))?,
            _ => self.read_summary(job_id)?,
        };
        Ok(found.into_iter().find(|m| m.name == name))
    }
}

#[cfg(test)]
mod tests {
    use super::SealedIds;

    #[test]
    fn sealed_ids_find_each_id_in_its_shard_and_nothing_else() {
        let mut ix = SealedIds::default();
        let listed = [
            ("job10", 3),
            ("job2", 0),
            ("job1", 7),
            ("cell0-rep0-chain9", 1),
        ];
        for (id, shard) in listed {
            ix.push(id, shard);
        }
        ix.sort();
        for (id, shard) in listed {
            assert_eq!(ix.get(id), Some(shard), "{id}");
        }
        for absent in ["job", "job100", "job3", "", "cell0-rep0-chain"] {
            assert_eq!(ix.get(absent), None, "{absent}");
        }
    }
}

//! Chains' wall-clock timings, in the run's job table (`jobs.sqlite`, table `timing`).
//!
//! A chain's timing (iteration, elapsed seconds) is the one part of its output that is not a
//! deterministic function of the YAML, and it was a third file per chain
//! (`timing/<job>.parquet`). Creating that file cost a quarter of the runner's time per
//! near-empty chain (the kernel's inode and directory work), so it now goes into
//! the job table, in the same transaction as the row that says the chain is done: a `done`
//! row always has its timing, and `chains/` holds only what is deterministic. Run directories
//! written before keep their `timing/` files, which [`RunDir::read_timing`] still reads.

use std::collections::HashMap;
use std::path::Path;

use rusqlite::{Connection, OpenFlags, OptionalExtension};

use super::schema::DB_FILE;
use super::{JobRecord, RunDir, StoreError, pl_err, read_parquet};

/// One chain's wall-clock timing: `elapsed_seconds[i]` seconds of sampling (on the worker's
/// clock) when iteration `iterations[i]` was recorded; both of the trace's length.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ChainTiming {
    pub iterations: Vec<u64>,
    pub elapsed_seconds: Vec<f64>,
}

impl ChainTiming {
    /// The two columns as the table's blobs: little-endian u64 and f64.
    pub fn to_blobs(&self) -> (Vec<u8>, Vec<u8>) {
        let its = self
            .iterations
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect();
        let secs = self
            .elapsed_seconds
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect();
        (its, secs)
    }

    /// Back from the blobs; `None` if either is not a whole number of 8-byte values or their
    /// lengths differ.
    pub fn from_blobs(its: &[u8], secs: &[u8]) -> Option<Self> {
        if !its.len().is_multiple_of(8) || its.len() != secs.len() {
            return None;
        }
        let word = |c: &[u8]| <[u8; 8]>::try_from(c).ok();
        Some(ChainTiming {
            iterations: its
                .chunks(8)
                .map(|c| word(c).map(u64::from_le_bytes))
                .collect::<Option<_>>()?,
            elapsed_seconds: secs
                .chunks(8)
                .map(|c| word(c).map(f64::from_le_bytes))
                .collect::<Option<_>>()?,
        })
    }

    /// The chain's sampling seconds: the largest `elapsed_seconds` (0 for no rows).
    pub fn seconds(&self) -> f64 {
        self.elapsed_seconds.iter().copied().fold(0.0, f64::max)
    }

    /// From an older run directory's `timing/<job>.parquet` (`iteration`, `elapsed_seconds`).
    fn read_file(path: &Path) -> Result<Self, StoreError> {
        let df = read_parquet(path)?;
        let column = |name: &str| df.column(name).map_err(pl_err(path));
        Ok(ChainTiming {
            iterations: column("iteration")?
                .u64()
                .map_err(pl_err(path))?
                .into_no_null_iter()
                .collect(),
            elapsed_seconds: column("elapsed_seconds")?
                .f64()
                .map_err(pl_err(path))?
                .into_no_null_iter()
                .collect(),
        })
    }
}

impl RunDir {
    /// `jobs.sqlite`, opened read-only (the coordinator may be writing it: WAL lets both), or
    /// `None` if it does not exist.
    fn job_table(&self) -> Result<Option<Connection>, StoreError> {
        let path = self.root.join(DB_FILE);
        if !path.exists() {
            return Ok(None);
        }
        Connection::open_with_flags(&path, OpenFlags::SQLITE_OPEN_READ_ONLY)
            .map(Some)
            .map_err(|e| sqlite_err(&path, e))
    }

    /// A chain's wall-clock timing: from the job table, or from `timing/<job>.parquet` in a
    /// run directory written before the table had timings; `None` if neither holds it (a
    /// coordinator killed after the chain's files were stored but before its row was
    /// committed: the results are kept, the timing is lost). For many chains, read them all at
    /// once with [`RunDir::read_timings`].
    ///
    /// Errors: a table or file that cannot be read, or a damaged timing.
    pub fn read_timing(&self, job_id: &str) -> Result<Option<ChainTiming>, StoreError> {
        let path = self.root.join(DB_FILE);
        if let Some(conn) = self.job_table()? {
            let row: Option<(Vec<u8>, Vec<u8>)> = conn
                .query_row(
                    "SELECT iterations, elapsed_seconds FROM timing WHERE job_id = ?1",
                    [job_id],
                    |r| Ok((r.get(0)?, r.get(1)?)),
                )
                .optional()
                .or_else(|e| no_table_is_no_row(&path, e))?;
            if let Some((its, secs)) = row {
                return decode(&path, job_id, &its, &secs).map(Some);
            }
        }
        let file = self.timing_path(job_id);
        if file.exists() {
            return ChainTiming::read_file(&file).map(Some);
        }
        Ok(None)
    }

    /// Every stored timing, by job id: the job table's in one query, and those of an older run
    /// directory's `timing/` files (see [`RunDir::read_timing`]).
    ///
    /// Errors: as [`RunDir::read_timing`].
    pub fn read_timings(&self) -> Result<HashMap<String, ChainTiming>, StoreError> {
        let mut out = HashMap::new();
        self.each_timing(|id, _, t| {
            out.entry(id.to_string()).or_insert(t);
        })?;
        Ok(out)
    }

    /// Every stored chain's sampling seconds ([`ChainTiming::seconds`]) by plan index (`jobs`,
    /// the manifest's): `None` for a chain without a timing. As [`RunDir::read_timings`],
    /// without holding every chain's rows or job id (10⁶ chains: 16 MB against ≈ 100 MB).
    ///
    /// Errors: as [`RunDir::read_timing`].
    pub fn read_timing_seconds(&self, jobs: &[JobRecord]) -> Result<Vec<Option<f64>>, StoreError> {
        let mut out = vec![None; jobs.len()];
        // The table's rows carry their plan index; job ids are mapped only for an older run
        // directory's files.
        let mut index: Option<HashMap<&str, usize>> = None;
        self.each_timing(|id, idx, t| {
            let i = match idx {
                Some(i) => (jobs.get(i).is_some_and(|j| j.job_id == id)).then_some(i),
                None => index
                    .get_or_insert_with(|| {
                        jobs.iter()
                            .enumerate()
                            .map(|(i, j)| (j.job_id.as_str(), i))
                            .collect()
                    })
                    .get(id)
                    .copied(),
            };
            if let Some(i) = i {
                out[i].get_or_insert(t.seconds());
            }
        })?;
        Ok(out)
    }

    /// Every stored timing handed to `f` with its job id and, for the job table's rows, its plan
    /// index: the table's rows in plan order (decoded as they are read; only those of a job in
    /// the table), then an older run directory's `timing/` files (see [`RunDir::read_timing`]).
    /// A chain may come twice, the table's first.
    fn each_timing(
        &self,
        mut f: impl FnMut(&str, Option<usize>, ChainTiming),
    ) -> Result<(), StoreError> {
        let path = self.root.join(DB_FILE);
        if let Some(conn) = self.job_table()? {
            match conn.prepare(
                // CROSS JOIN keeps `jobs` the outer loop: its rows in plan order, no sort.
                "SELECT timing.job_id, timing.iterations, timing.elapsed_seconds, jobs.idx \
                 FROM jobs CROSS JOIN timing ON timing.job_id = jobs.job_id ORDER BY jobs.idx",
            ) {
                Ok(mut st) => {
                    let mut rows = st.query([]).map_err(|e| sqlite_err(&path, e))?;
                    while let Some(r) = rows.next().map_err(|e| sqlite_err(&path, e))? {
                        let value = |k: usize| r.get_ref(k).map_err(|e| sqlite_err(&path, e));
                        let blob =
                            |k: usize| value(k)?.as_blob().map_err(|e| sqlite_err(&path, e.into()));
                        let id = value(0)?
                            .as_str()
                            .map_err(|e| sqlite_err(&path, e.into()))?;
                        let idx = value(3)?
                            .as_i64()
                            .map_err(|e| sqlite_err(&path, e.into()))?;
                        let t = decode(&path, id, blob(1)?, blob(2)?)?;
                        f(id, usize::try_from(idx).ok(), t);
                    }
                }
                Err(e) => no_table_is_no_row::<()>(&path, e)?,
            }
        }
        if let Ok(files) = std::fs::read_dir(self.root.join("timing")) {
            for file in files.flatten() {
                let name = file.file_name().to_string_lossy().into_owned();
                if let Some(id) = name.strip_suffix(".parquet") {
                    f(id, None, ChainTiming::read_file(&file.path())?);
                }
            }
        }
        Ok(())
    }
}

fn decode(path: &Path, job_id: &str, its: &[u8], secs: &[u8]) -> Result<ChainTiming, StoreError> {
    ChainTiming::from_blobs(its, secs).ok_or_else(|| StoreError::Format {
        path: path.to_path_buf(),
        message: format!(
            "chain {job_id}'s timing is damaged ({} and {} bytes)",
            its.len(),
            secs.len()
        ),
    })
}

fn sqlite_err(path: &Path, e: rusqlite::Error) -> StoreError {
    StoreError::Format {
        path: path.to_path_buf(),
        message: e.to_string(),
    }
}

/// A job table from before timings has no `timing` table: that is no row, not an error.
fn no_table_is_no_row<T: Default>(path: &Path, e: rusqlite::Error) -> Result<T, StoreError> {
    if e.to_string().contains("no such table") {
        Ok(T::default())
    } else {
        Err(sqlite_err(path, e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blobs_round_trip_and_damaged_blobs_are_refused() {
        let t = ChainTiming {
            iterations: vec![1, 2, 1000],
            elapsed_seconds: vec![0.5, 1.25, f64::MAX],
        };
        let (a, b) = t.to_blobs();
        assert_eq!(ChainTiming::from_blobs(&a, &b), Some(t));
        assert_eq!(ChainTiming::from_blobs(&a[..23], &b[..23]), None);
        assert_eq!(ChainTiming::from_blobs(&a, &b[..16]), None);
    }

    /// A run directory from before the job table held timings: its `timing/<job>.parquet`
    /// files are read, one by one, all at once and by plan index, and a chain without one has
    /// none; then a job table's rows are read by plan index too.
    #[test]
    fn timings_are_read_from_older_files_and_the_table_by_plan_index() {
        let dir = tempfile::tempdir().expect("tempdir");
        let rd = RunDir::open(dir.path());
        let t = ChainTiming {
            iterations: vec![1, 2, 3],
            elapsed_seconds: vec![0.5, 1.0, 2.5],
        };
        std::fs::create_dir_all(dir.path().join("timing")).expect("mkdir");
        let mut df = polars::df!(
            "iteration" => &t.iterations,
            "elapsed_seconds" => &t.elapsed_seconds
        )
        .expect("df");
        super::super::write_parquet(&rd.timing_path("old"), &mut df).expect("write");
        assert_eq!(rd.read_timing("old").expect("read"), Some(t.clone()));
        assert_eq!(rd.read_timing("lost").expect("read"), None);
        let all = rd.read_timings().expect("read all");
        assert_eq!(all.len(), 1);
        assert_eq!(all.get("old").map(ChainTiming::seconds), Some(2.5));
        let job = |id: &str| JobRecord {
            job_id: id.into(),
            cell: 0,
            replicate: 0,
            chain: 0,
            seed: super::super::SeedRecord {
                base_seed: 1,
                cell: 0,
                replicate: 0,
                chain: 0,
            },
        };
        let by_index = rd.read_timing_seconds(&[job("lost"), job("old")]);
        assert_eq!(by_index.expect("by index"), vec![None, Some(2.5)]);

        // The job table's rows, written out of plan order and with a gap, land at their
        // chains' plan indices; the table's timing wins over a file's.
        let conn = Connection::open(dir.path().join(DB_FILE)).expect("open");
        conn.execute_batch(super::super::schema::JOBS_SCHEMA_SQL)
            .expect("schema");
        for (i, id) in [(0i64, "a"), (1, "old"), (2, "c")] {
            conn.execute("INSERT INTO jobs (idx, job_id) VALUES (?1, ?2)", (i, id))
                .expect("job row");
        }
        for (idx, secs) in [(2i64, 3.0), (1, 7.0)] {
            let (its, secs) = ChainTiming {
                iterations: vec![1],
                elapsed_seconds: vec![secs],
            }
            .to_blobs();
            conn.execute(super::super::schema::TIMING_INSERT_SQL, (idx, its, secs))
                .expect("timing row");
        }
        drop(conn);
        let jobs = [job("a"), job("old"), job("c")];
        let by_index = rd.read_timing_seconds(&jobs).expect("by index");
        assert_eq!(by_index, vec![None, Some(7.0), Some(3.0)]);
    }
}

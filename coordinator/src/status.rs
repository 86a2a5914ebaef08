//! `causeway status`: what a run directory's job table says, also while the run goes (the
//! table is opened read-only), and whether a run holds the directory now (its `run.lock`).

use std::path::Path;
use std::time::Duration;

use rusqlite::{Connection, OpenFlags};

use causeway_results::rundir::schema::DB_FILE;

use crate::store::{JobState, JobStatus, JobTableError, now, select_statuses};

/// What `causeway status` shows.
#[derive(Debug, Clone, PartialEq)]
pub struct Status {
    pub total: usize,
    /// `(state, count)`, in the order of [`JobState::ALL`].
    pub counts: Vec<(JobState, usize)>,
    /// Failed (and lost) chains with their reasons.
    pub failures: Vec<JobStatus>,
    /// Chains finished per second over the last few minutes of completions, if any.
    pub rate: Option<f64>,
    /// Estimated seconds left at that rate (only while a run is going).
    pub eta_seconds: Option<f64>,
    /// A `causeway run` holds the directory's lock now.
    pub active: bool,
    /// Chains with a stored checkpoint: `(job id, iterations done, seconds since it
    /// was saved)`, in plan order. Empty for a run directory from before checkpoints.
    pub checkpoints: Vec<(String, u64, f64)>,
    /// Attempts that resumed from a checkpoint instead of starting at iteration 1.
    pub resumes: usize,
}

/// The job table opened read-only; on a read-only file system (where SQLite cannot create the
/// WAL's shared-memory file) it is opened `immutable`, which reads the file as it is.
fn open_read_only(path: &Path) -> Result<Connection, rusqlite::Error> {
    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let conn = Connection::open_with_flags(path, flags)?;
    match conn.query_row("SELECT COUNT(*) FROM jobs", [], |r| r.get::<_, i64>(0)) {
        Ok(_) => Ok(conn),
        Err(_) => {
            drop(conn);
            let uri = format!("file:{}?immutable=1", path.display());
            Connection::open_with_flags(uri, flags | OpenFlags::SQLITE_OPEN_URI)
        }
    }
}

/// Whether a `causeway run` holds `dir`'s lock (`run.lock`) now.
fn run_is_active(dir: &Path) -> bool {
    let Ok(f) = std::fs::File::open(dir.join("run.lock")) else {
        return false;
    };
    matches!(f.try_lock_shared(), Err(std::fs::TryLockError::WouldBlock))
}

/// Read the job table of `dir` (read-only: safe while a run is going).
pub fn status(dir: &Path) -> Result<Status, JobTableError> {
    let path = dir.join(DB_FILE);
    let sq = |source| JobTableError::Sqlite {
        path: path.clone(),
        source,
    };
    let conn = open_read_only(&path).map_err(sq)?;
    conn.busy_timeout(Duration::from_secs(5)).map_err(sq)?;
    let active = run_is_active(dir);
    let mut counts: Vec<(JobState, usize)> = JobState::ALL.iter().map(|s| (*s, 0)).collect();
    let mut total = 0;
    {
        let mut st = conn
            .prepare("SELECT state, COUNT(*) FROM jobs GROUP BY state")
            .map_err(sq)?;
        let rows = st
            .query_map([], |r| {
                Ok((r.get::<_, JobState>(0)?, r.get::<_, i64>(1)? as usize))
            })
            .map_err(sq)?;
        for row in rows {
            let (state, n) = row.map_err(sq)?;
            total += n;
            if let Some(c) = counts.iter_mut().find(|(s, _)| *s == state) {
                c.1 += n;
            }
        }
    }
    let failures = select_statuses(&conn, "state IN ('failed', 'lost')").map_err(sq)?;
    // Rate over the completions of the last 5 minutes before the latest one.
    let latest: Option<f64> = conn
        .query_row(
            "SELECT MAX(finished) FROM jobs WHERE state = 'done'",
            [],
            |r| r.get(0),
        )
        .map_err(sq)?;
    let mut rate = None;
    if let Some(latest) = latest {
        let (n, first): (i64, Option<f64>) = conn
            .query_row(
                "SELECT COUNT(*), MIN(finished) FROM jobs WHERE state = 'done' AND finished >= ?1",
                [latest - 300.0],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .map_err(sq)?;
        if let Some(first) = first {
            // While a run goes, the time since the last completion counts (a stall slows the
            // rate); once it has stopped, only the completions' own span does.
            let idle = if active { now() - latest } else { 0.0 };
            let span = (latest - first).max(idle).max(1e-3);
            if n > 1 {
                rate = Some((n - 1) as f64 / span);
            }
        }
    }
    let left: usize = counts
        .iter()
        .filter(|(s, _)| matches!(s, JobState::Pending | JobState::Running))
        .map(|(_, n)| n)
        .sum();
    // A stopped run has no time left to estimate: nothing is running.
    let eta_seconds = rate.filter(|r| *r > 0.0 && active).map(|r| left as f64 / r);
    // Tables an older causeway did not make read as empty.
    let t = now();
    let checkpoints = conn
        .prepare(
            "SELECT j.job_id, c.iteration, c.saved FROM checkpoints c JOIN jobs j \
             ON c.idx = j.idx ORDER BY c.idx",
        )
        .and_then(|mut st| {
            st.query_map([], |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    r.get::<_, i64>(1)? as u64,
                    t - r.get::<_, f64>(2)?,
                ))
            })?
            .collect::<Result<Vec<_>, _>>()
        })
        .unwrap_or_default();
    let resumes = conn
        .query_row("SELECT COUNT(*) FROM resumes", [], |r| r.get::<_, i64>(0))
        .map(|n| n as usize)
        .unwrap_or(0);
    Ok(Status {
        checkpoints,
        resumes,
        active,
        total,
        counts,
        failures,
        rate,
        eta_seconds,
    })
}

/// `causeway status` as text.
pub fn render_status(s: &Status) -> String {
    let mut out = format!("{} chains:", s.total);
    for (state, n) in &s.counts {
        out.push_str(&format!(" {state} {n},"));
    }
    out.pop();
    out.push('\n');
    let left: usize = s
        .counts
        .iter()
        .filter(|(st, _)| matches!(st, JobState::Pending | JobState::Running))
        .map(|(_, n)| n)
        .sum();
    match (s.active, s.rate, s.eta_seconds) {
        (true, Some(r), Some(eta)) => out.push_str(&format!(
            "rate {r:.2} chains/s, estimated time left {}\n",
            human_seconds(eta)
        )),
        (true, _, _) => {
            out.push_str("running; estimated time left: unknown (too few chains finished)\n")
        }
        (false, rate, _) => {
            if let Some(r) = rate {
                out.push_str(&format!("rate {r:.2} chains/s while it ran\n"));
            }
            if left > 0 {
                out.push_str(&format!(
                    "not running: {left} chains left; run the same command again to resume\n"
                ));
            } else {
                out.push_str("finished\n");
            }
        }
    }
    if !s.checkpoints.is_empty() || s.resumes > 0 {
        out.push_str(&format!(
            "checkpoints: {} chains saved, {} attempts resumed from one\n",
            s.checkpoints.len(),
            s.resumes
        ));
        for (job, it, age) in &s.checkpoints {
            out.push_str(&format!(
                "  {job}  iteration {it}  saved {} ago\n",
                human_seconds(*age)
            ));
        }
    }
    if !s.failures.is_empty() {
        out.push_str("failures:\n");
        out.push_str(&failure_table(&s.failures));
    }
    out
}

/// One line per failed or lost chain: `job_id state attempts worker: error`.
pub fn failure_table(failures: &[JobStatus]) -> String {
    let mut out = String::new();
    for f in failures {
        out.push_str(&format!(
            "  {}  {}  attempts={}  worker={}  {}\n",
            f.job_id,
            f.state,
            f.attempts,
            if f.worker.is_empty() { "-" } else { &f.worker },
            f.error
        ));
    }
    out
}

/// Seconds as `1h02m`, `3m05s` or `42s`.
pub fn human_seconds(s: f64) -> String {
    let s = s.max(0.0).round() as u64;
    if s >= 3600 {
        format!("{}h{:02}m", s / 3600, (s % 3600) / 60)
    } else if s >= 60 {
        format!("{}m{:02}s", s / 60, s % 60)
    } else {
        format!("{s}s")
    }
}

//! The job table's writer thread: batches of events and checkpoints, each batch one
//! transaction; checkpoints are encoded and sealed here, off the dispatcher. The shards whose
//! chains have finished are written by a thread of its own (`Sealing`) and recorded here.

use super::journal;
use super::*;
use causeway_results::rundir::shards::SealedChain;

// Returned once, when the writer thread ends (see `into_writer`).
#[allow(clippy::result_large_err)]
pub(super) fn write_loop(
    mut store: JobStore,
    rx: mpsc::Receiver<Msg>,
    failed: &std::sync::atomic::AtomicBool,
    backlog: &std::sync::atomic::AtomicUsize,
    sealer: Option<Sealer>,
) -> Result<JobStore, (JobStore, JobTableError)> {
    let mut first_error: Option<JobTableError> = None;
    let path = store.path.clone();
    let root = path.parent().map(Path::to_path_buf).unwrap_or_default();
    let mut record = |e: JobTableError| {
        tracing::error!("{e}");
        failed.store(true, std::sync::atomic::Ordering::SeqCst);
        first_error.get_or_insert(e);
    };
    let seal_error = |source: SealError| JobTableError::Seal {
        path: path.clone(),
        source,
    };
    let mut sealing = sealer.and_then(Sealing::start);
    let mut closed = false;
    while !closed {
        let Ok(first) = rx.recv() else { break };
        let mut batch = vec![first];
        let deadline = Instant::now() + BATCH_WAIT;
        while batch.len() < BATCH_ROWS && !matches!(batch.last(), Some(Msg::Flush(_))) {
            let left = deadline.saturating_duration_since(Instant::now());
            match rx.recv_timeout(left) {
                Ok(m) => batch.push(m),
                Err(mpsc::RecvTimeoutError::Timeout) => break,
                Err(mpsc::RecvTimeoutError::Disconnected) => {
                    closed = true;
                    break;
                }
            }
        }
        // The results first, then the rows that say they are done.
        let journaled = journal::append(
            &root,
            store.n_jobs,
            batch.iter().filter_map(|m| match m {
                Msg::Event(Event::Done { index, result, .. }) => {
                    Some((*index, result.record.as_slice()))
                }
                _ => None,
            }),
        );
        let applied = match journaled {
            Err(source) => {
                record(JobTableError::Journal {
                    path: root.join(journal::DIR),
                    source,
                });
                false
            }
            Ok(()) => match apply(&mut store.conn, &batch) {
                Ok(()) => true,
                Err(source) => {
                    record(JobTableError::Sqlite {
                        path: store.path.clone(),
                        source,
                    });
                    false
                }
            },
        };
        backlog.fetch_sub(batch.len(), std::sync::atomic::Ordering::Relaxed);
        let mut acks = Vec::new();
        for m in batch {
            match m {
                Msg::Flush(ack) => acks.push(ack),
                Msg::Event(ev) if applied => {
                    if let Some(s) = sealing.as_mut() {
                        s.committed(ev);
                    }
                }
                _ => {}
            }
        }
        if let Some(s) = sealing.as_mut()
            && let Err(e) = s.record(&mut store.conn, !acks.is_empty())
        {
            record(seal_error(e));
        }
        for ack in acks {
            let _ = ack.send(());
        }
    }
    // The end of the run: the shards being written, then every shard with journal rows, unless
    // the table is failing (a rerun seals them).
    if let Some(mut s) = sealing {
        s.jobs = None;
        if let Err(e) = s.record(&mut store.conn, true) {
            record(seal_error(e));
        }
        if let Some(t) = s.thread.take() {
            let _ = t.join();
        }
        if !failed.load(std::sync::atomic::Ordering::SeqCst)
            && let Err(e) = s.sealer.seal_all(&mut store.conn)
        {
            record(seal_error(e));
        }
    }
    match first_error {
        None => Ok(store),
        Some(e) => Err((store, e)),
    }
}

/// The most finished shards waiting for the sealer thread. Once it is this far behind, the
/// writer waits for it, its backlog grows and the dispatcher waits in turn
/// ([`WRITER_BACKLOG_MAX`]), so the chains held for sealing stay a few shards' worth however
/// slow the disk: unbounded, a sealer slower than the results would hold every finished shard's
/// chains in memory until the run's end.
const SEALING_QUEUE: usize = 2;

/// Shards written on a thread of their own from the chains held in memory, so that the job
/// table's writer goes on committing while a shard's files are encoded; each written shard is
/// recorded (journal rows deleted, digest stored) by the writer, after its files are in place.
struct Sealing {
    sealer: Sealer,
    jobs: Option<mpsc::SyncSender<(usize, Vec<SealedChain>)>>,
    done: mpsc::Receiver<Sealed>,
    in_flight: usize,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Sealing {
    fn start(sealer: Sealer) -> Option<Sealing> {
        let (jobs, rx) = mpsc::sync_channel::<(usize, Vec<SealedChain>)>(SEALING_QUEUE);
        let (tx, done) = mpsc::channel();
        let rd = sealer.run_dir().clone();
        let thread = std::thread::Builder::new()
            .name("shard sealer".into())
            .spawn(move || {
                for (shard, chains) in rx {
                    if tx.send(seal_held(&rd, shard, chains)).is_err() {
                        break;
                    }
                }
            });
        match thread {
            Ok(t) => Some(Sealing {
                sealer,
                jobs: Some(jobs),
                done,
                in_flight: 0,
                thread: Some(t),
            }),
            Err(e) => {
                // Without the thread, the journal keeps every result until the end's sealing.
                tracing::warn!("cannot start the shard sealer: {e}; shards are sealed at the end");
                None
            }
        }
    }

    /// An event of a committed batch: a done chain is held, and a shard whose last chain of
    /// this run finished goes to be written.
    fn committed(&mut self, ev: Event) {
        let index = ev.index();
        match ev {
            Event::Done { result, .. } => self.sealer.hold(result.chain),
            Event::Failed { .. } | Event::Lost { .. } => {}
            _ => return,
        }
        if let Some((shard, chains)) = self.sealer.finished(index)
            && !chains.is_empty()
            && let Some(jobs) = &self.jobs
            && jobs.send((shard, chains)).is_ok()
        {
            self.in_flight += 1;
        }
    }

    /// Record the shards written since the last call; with `wait`, every shard sent (a flush,
    /// or the end of the run).
    fn record(&mut self, conn: &mut Connection, wait: bool) -> Result<(), SealError> {
        let mut sealed = Vec::new();
        while self.in_flight > 0 {
            let next = if wait {
                self.done.recv().ok()
            } else {
                self.done.try_recv().ok()
            };
            let Some(s) = next else { break };
            self.in_flight -= 1;
            sealed.push(s);
        }
        if wait {
            self.in_flight = 0;
        }
        if sealed.is_empty() {
            return Ok(());
        }
        record_sealed(conn, self.sealer.run_dir(), sealed)
    }
}

impl Event {
    /// The row's new values: state, attempts, worker, error, and whether the event sets the
    /// start or the finish time (`None`: leave the column as it is).
    fn row(&self) -> (JobState, u32, Option<&str>, Option<&str>, bool, bool) {
        match self {
            Event::Started {
                attempt, worker, ..
            } => (JobState::Running, *attempt, Some(worker), None, true, false),
            Event::Done {
                attempts, worker, ..
            } => (
                JobState::Done,
                *attempts,
                Some(worker),
                Some(""),
                false,
                true,
            ),
            Event::Failed {
                attempts,
                worker,
                error,
                ..
            } => (
                JobState::Failed,
                *attempts,
                Some(worker),
                Some(error),
                false,
                true,
            ),
            Event::Requeued {
                attempts,
                worker,
                error,
                ..
            } => (
                JobState::Pending,
                *attempts,
                Some(worker),
                Some(error),
                false,
                false,
            ),
            Event::Lost {
                attempts, error, ..
            } => (JobState::Lost, *attempts, None, Some(error), false, false),
        }
    }

    fn index(&self) -> usize {
        match self {
            Event::Started { index, .. }
            | Event::Done { index, .. }
            | Event::Failed { index, .. }
            | Event::Requeued { index, .. }
            | Event::Lost { index, .. } => *index,
        }
    }
}

fn apply(conn: &mut Connection, batch: &[Msg]) -> Result<(), rusqlite::Error> {
    let t = now();
    let tx = conn.transaction()?;
    {
        // A done row only changes to done again (a result stored twice is the same row).
        let mut update = tx.prepare_cached(
            "UPDATE jobs SET state = ?2, attempts = ?3, worker = COALESCE(?4, worker), \
             error = COALESCE(?5, error), started = COALESCE(?6, started), \
             finished = COALESCE(?7, finished) WHERE idx = ?1 AND (state != 'done' OR ?2 = 'done')",
        )?;
        // A checkpoint of a chain already done is of no use (a late duplicate).
        let mut save = tx.prepare_cached(
            "INSERT OR REPLACE INTO checkpoints (idx, iteration, code_version, checkpoint, saved) \
             SELECT ?1, ?2, ?3, ?4, ?5 WHERE NOT EXISTS \
             (SELECT 1 FROM jobs WHERE idx = ?1 AND state = 'done')",
        )?;
        let mut save_end = tx.prepare_cached(
            "INSERT OR REPLACE INTO ends (idx, iteration, code_version, checkpoint, saved) \
             VALUES (?1, ?2, ?3, ?4, ?5)",
        )?;
        let mut forget = tx.prepare_cached("DELETE FROM checkpoints WHERE idx = ?1")?;
        let mut timed = tx.prepare_cached(TIMING_INSERT_SQL)?;
        let mut forget_end = tx.prepare_cached("DELETE FROM ends WHERE idx = ?1")?;
        let mut resumed = tx.prepare_cached(
            "INSERT INTO resumes (idx, attempt, iteration, worker, checkpoint_saved, started) \
             VALUES (?1, ?2, ?3, ?4, (SELECT saved FROM checkpoints WHERE idx = ?1), ?5)",
        )?;
        for m in batch {
            match m {
                Msg::Event(ev) => {
                    let (state, attempts, worker, error, started, finished) = ev.row();
                    update.execute(params![
                        ev.index() as i64,
                        state,
                        attempts,
                        worker,
                        error,
                        started.then_some(t),
                        finished.then_some(t),
                    ])?;
                    match ev {
                        Event::Done { index, timing, .. } => {
                            forget.execute([*index as i64])?;
                            let (its, secs) = timing.to_blobs();
                            timed.execute(params![*index as i64, its, secs])?;
                        }
                        Event::Started {
                            index,
                            attempt,
                            worker,
                            resumed_from: Some(it),
                        } => {
                            resumed.execute(params![
                                *index as i64,
                                attempt,
                                *it as i64,
                                worker,
                                t
                            ])?;
                        }
                        _ => {}
                    }
                }
                Msg::Checkpoint {
                    index,
                    checkpoint: c,
                    end,
                } => {
                    let stmt = if *end { &mut save_end } else { &mut save };
                    stmt.execute(params![
                        *index as i64,
                        c.iteration as i64,
                        c.code_version,
                        seal(&c.encode_to_vec()),
                        t
                    ])?;
                }
                Msg::Forget(index) => {
                    forget.execute([*index as i64])?;
                    forget_end.execute([*index as i64])?;
                }
                Msg::Flush(_) => {}
            }
        }
    }
    tx.commit()
}

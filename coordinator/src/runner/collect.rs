//! The run's collecting side: every outcome the dispatcher sends, stored as it arrives.

use std::sync::Arc;

use causeway_proto::v1::ChainResult;
use causeway_results::rundir::{ChainTiming, JobRecord};
use indicatif::ProgressBar;
use tokio::sync::mpsc;

use crate::dispatch::Outcome;
use crate::eta::CostEstimate;
use crate::round::Round;
use crate::store::JournalEntry;
use crate::store::seal::journal_entry;
use crate::store::{self, Event};

/// How often the time left is estimated again.
const ETA_EVERY: std::time::Duration = std::time::Duration::from_millis(250);

/// The time-left estimate of a run and the slots it divides by.
pub(super) struct Eta {
    pub estimate: CostEstimate,
    pub slots: usize,
}

/// Store every outcome the dispatcher sends until it is done: results checked and encoded on
/// blocking threads as they arrive, what has arrived together in one task (several tasks at
/// once, so the store never serialises the workers), then appended to the journal before the
/// row that says done is committed with the chain's timing (the writer seals shards from there), checkpoints and failures recorded,
/// progress shown; a full disk sends `stop`. Returns the chains stored.
#[allow(clippy::too_many_arguments)]
pub(super) async fn store_results(
    mut rx: mpsc::Receiver<Outcome>,
    writer: &store::Writer,
    jobs: &[JobRecord],
    round: Option<&Arc<Round>>,
    bar: &ProgressBar,
    eta: Eta,
    stop: &tokio::sync::watch::Sender<bool>,
) -> usize {
    let (mut eta, slots) = (eta.estimate, eta.slots);
    let mut ok = 0usize;
    let mut writes: tokio::task::JoinSet<Vec<Stored>> = tokio::task::JoinSet::new();
    let mut full: Option<String> = None;
    let mut last_eta: Option<std::time::Instant> = None;
    let max_writes = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(2)
        .clamp(2, 16);
    let mut ready: Vec<Finished> = Vec::new();
    while let Some(first) = rx.recv().await {
        // What has already arrived is taken with it, so that short chains' results go to the
        // blocking threads a batch per task, not a task per chain.
        let mut next = Some(first);
        while let Some(outcome) = next.take() {
            match outcome {
                Outcome::Finished {
                    index,
                    attempts,
                    result,
                } => {
                    eta.finished(
                        jobs[index].cell,
                        result.elapsed_seconds.last().copied().unwrap_or(f64::NAN),
                    );
                    ready.push((index, jobs[index].job_id.clone(), attempts, result));
                    bar.inc(1);
                }
                other => other_outcome(other, writer, jobs, round, bar, &mut eta),
            }
            if ready.len() < WRITE_BATCH {
                next = rx.try_recv().ok();
            }
        }
        // The estimate sums over the cells: once per redraw, not once per chain (the CEP grid
        // has 102,600 cells).
        if last_eta.is_none_or(|t| t.elapsed() >= ETA_EVERY)
            && let Some(s) = eta.seconds_left(slots)
        {
            bar.set_message(format!("eta {}", crate::status::human_seconds(s)));
            last_eta = Some(std::time::Instant::now());
        }
        if !ready.is_empty() {
            let batch = std::mem::take(&mut ready);
            writes.spawn_blocking(move || batch.into_iter().map(write_result).collect());
        }
        while writes.len() > max_writes {
            if let Some(Ok(done)) = writes.join_next().await {
                done.into_iter()
                    .for_each(|d| settle(writer, &mut ok, &mut full, d));
            }
        }
        while let Some(Ok(done)) = writes.try_join_next() {
            done.into_iter()
                .for_each(|d| settle(writer, &mut ok, &mut full, d));
        }
        stop_if_storage_failed(writer, &mut full, bar, stop);
        // Results wait in the dispatcher's bounded channel, not in the writer's queue.
        while writer.behind() {
            tokio::time::sleep(std::time::Duration::from_millis(1)).await;
        }
    }
    while let Some(joined) = writes.join_next().await {
        match joined {
            Ok(done) => done
                .into_iter()
                .for_each(|d| settle(writer, &mut ok, &mut full, d)),
            Err(e) => tracing::error!("a result writer stopped: {e}"),
        }
    }
    ok
}

/// The most results one blocking task checks and encodes.
const WRITE_BATCH: usize = 256;

/// A finished chain waiting for a blocking thread: (plan index, job id, attempts, result).
type Finished = (usize, String, u32, ChainResult);

/// Every outcome but a finished chain: checkpoints kept or dropped, rows (started, failed, …)
/// sent to the job table's writer.
fn other_outcome(
    outcome: Outcome,
    writer: &store::Writer,
    jobs: &[JobRecord],
    round: Option<&Arc<Round>>,
    bar: &ProgressBar,
    eta: &mut CostEstimate,
) {
    match outcome {
        // Batched by the caller.
        Outcome::Finished { .. } => {}
        Outcome::Checkpoint { index, checkpoint } => {
            if let Some(end) = round.as_ref().and_then(|r| r.end_state(index, &checkpoint)) {
                writer.end_state(index, Arc::new(end));
            }
            writer.checkpoint(index, checkpoint)
        }
        Outcome::CheckpointDropped { index, why } => {
            // Printed whether or not the progress bar is drawn (a log file too).
            bar.suspend(|| {
                eprintln!(
                    "warning: the checkpoint of {} was dropped ({why}); the chain runs \
                     from iteration 1",
                    jobs[index].job_id
                )
            });
            writer.forget_checkpoint(index);
        }
        Outcome::Row(ev) => {
            if let Event::Failed {
                index,
                attempts,
                error,
                ..
            } = &ev
            {
                bar.suspend(|| {
                    eprintln!(
                        "chain {} failed after {attempts} attempts: {error}",
                        jobs[*index].job_id
                    )
                });
                bar.inc(1);
                eta.dropped(jobs[*index].cell);
            }
            writer.send(ev);
        }
    }
}

/// A result ready for the journal: (plan index, attempts, worker, its timing and journal entry
/// or the error and whether the storage is full; then the chain is not failed: it stays to run
/// again, and the run stops).
type Stored = (
    usize,
    u32,
    String,
    Result<(ChainTiming, Box<JournalEntry>), (String, bool)>,
);

/// Check and encode plan job `index` (`job_id`)'s result for the journal and its shard (on a
/// blocking thread).
fn write_result((index, job_id, attempts, result): Finished) -> Stored {
    let worker = result.worker_id.clone();
    let timing = ChainTiming {
        iterations: result.iterations.clone(),
        elapsed_seconds: result.elapsed_seconds.clone(),
    };
    let stored = journal_entry(index, &job_id, result)
        .map(|entry| (timing, Box::new(entry)))
        .map_err(|e| (e, false));
    (index, attempts, worker, stored)
}

/// The job table's row for a written result: done with its timing and digest, failed, or (the
/// storage full) nothing, the reason kept in `full`.
fn settle(
    writer: &store::Writer,
    ok: &mut usize,
    full: &mut Option<String>,
    (index, attempts, worker, stored): Stored,
) {
    match stored {
        Ok((timing, result)) => {
            *ok += 1;
            writer.send(Event::Done {
                index,
                attempts,
                worker,
                timing,
                result,
            });
        }
        Err((e, true)) => {
            full.get_or_insert(e);
        }
        Err((e, false)) => writer.send(Event::Failed {
            index,
            attempts,
            worker,
            error: format!("storing the result: {e}"),
        }),
    }
}

/// Storage full (a result file, or the job table): every further write would fail the same
/// way. Stop dispatching once; what is not stored stays pending for a rerun.
fn stop_if_storage_failed(
    writer: &store::Writer,
    full: &mut Option<String>,
    bar: &ProgressBar,
    stop: &tokio::sync::watch::Sender<bool>,
) {
    if writer.failed() && full.is_none() {
        *full = Some("the job table could not be written (its error is above)".into());
    }
    if let Some(why) = full.as_ref()
        && !*stop.borrow()
    {
        bar.suspend(|| {
            eprintln!(
                "error: {why}: the storage is full or failing; dispatch stops. Free space \
                 and run the same command again: what is stored is kept"
            )
        });
        let _ = stop.send(true);
    }
}

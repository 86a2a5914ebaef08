//! A batch of short chains on one slot (`RunBatch`): each observed set converted once, the
//! chains run one after another in the batch's order, and their results sent several to a
//! message ([`RESULTS_PER_MESSAGE`], [`RESULT_DELAY`]), so that a message's cost (its HTTP/2
//! frame, the channel hop, the coordinator's wake-up) is shared. A
//! batched chain sends no checkpoints and cannot resume from one: batches are for chains that
//! take a fraction of an RPC's round trip, where a checkpoint would cost more than a rerun.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use causeway_papers::{CheckpointEvery, Dataset};
use causeway_proto::v1::{ChainEvent, ChainResult, ChainResults, JobBatch, chain_event};
use tokio::sync::mpsc;
use tonic::Status;

use crate::{Heartbeat, dataset_from_wire, execute_on, failed_result};

/// The most results in one message of a `RunBatch` stream.
pub const RESULTS_PER_MESSAGE: usize = 64;

/// A finished chain's result is sent with the first chain that finishes this long or more after
/// it (or with the batch's last): a result waits at most this plus the next chain's run time.
pub(crate) const RESULT_DELAY: Duration = Duration::from_millis(2);

/// Run `batch` (its observed sets converted, or taken from those the worker keeps, as `sets`)
/// to its end, or until the coordinator closes the stream (`beat.cancel`): the
/// chain then running stops between two iterations and the rest are not started (the
/// coordinator requeues every job without a result). A job that names an observed set the batch
/// lacks, or whose set is malformed, fails alone and for good (not retryable).
pub(crate) fn run(
    batch: JobBatch,
    sets: Vec<Result<Arc<Dataset>, String>>,
    worker_id: &str,
    tx: &mpsc::Sender<Result<ChainEvent, Status>>,
    beat: &Heartbeat,
) {
    run_grouped(batch, sets, worker_id, tx, beat, RESULT_DELAY);
}

/// [`run`], a result waiting at most `delay` (and the next chain) for others to join it.
fn run_grouped(
    batch: JobBatch,
    sets: Vec<Result<Arc<Dataset>, String>>,
    worker_id: &str,
    tx: &mpsc::Sender<Result<ChainEvent, Status>>,
    beat: &Heartbeat,
    delay: Duration,
) {
    beat.total.store(batch.jobs.len() as u64, Ordering::Relaxed);
    let no_checkpoints = CheckpointEvery {
        iterations: None,
        seconds: None,
        at_end: false,
    };
    let mut pending: Vec<ChainResult> = Vec::new();
    let mut since = Instant::now();
    let n = batch.jobs.len();
    for (k, mut job) in batch.jobs.into_iter().enumerate() {
        if beat.cancel.load(Ordering::Relaxed) {
            return;
        }
        let result: ChainResult = if job.resume.is_some() {
            let why = "a batched chain cannot resume from a checkpoint".to_string();
            failed_result(&job, worker_id, why, false)
        } else {
            // A job's own data (`observed_set` 0) is converted for it alone, whatever its key.
            let data = match job.observed_set {
                0 => dataset_from_wire(std::mem::take(&mut job.observed)).map(Arc::new),
                s => sets.get(s as usize - 1).map_or_else(
                    || {
                        Err(format!(
                            "observed set {s} of {}: not in the batch",
                            sets.len()
                        ))
                    },
                    Clone::clone,
                ),
            };
            match data {
                Ok(d) => execute_on(
                    &job,
                    &d,
                    worker_id,
                    &mut |_, _| {},
                    &beat.cancel,
                    no_checkpoints,
                    &mut |_| Ok(()),
                ),
                Err(e) => failed_result(&job, worker_id, e, false),
            }
        };
        beat.done.store(k as u64 + 1, Ordering::Relaxed);
        if pending.is_empty() {
            since = Instant::now();
        }
        pending.push(result);
        let due = pending.len() >= RESULTS_PER_MESSAGE || since.elapsed() >= delay;
        if due || k + 1 == n {
            let ev = ChainEvent {
                event: Some(chain_event::Event::Results(ChainResults {
                    results: std::mem::take(&mut pending),
                })),
            };
            if tx.blocking_send(Ok(ev)).is_err() {
                return;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::execute;
    use causeway_proto::PROTOCOL_VERSION;
    use causeway_proto::v1::{Job, Matrix, ObservedSet, Seed};
    use std::time::Duration;

    /// A one-iteration wood2006 chain on a 4 × 3 binary matrix.
    fn job(k: u64, observed_set: u32) -> Job {
        Job {
            protocol_version: PROTOCOL_VERSION,
            job_id: format!("j{k}"),
            model: "wood2006".into(),
            params_json: r#"{"sampler": "gibbs", "alpha": 1.0, "lambda": 0.9, "epsilon": 0.01, "p": 0.1, "init": "empty"}"#.into(),
            run_json: r#"{"iterations": 3, "burn_in": 0, "thin": 1}"#.into(),
            seed: Some(Seed {
                base_seed: 7,
                cell: k,
                replicate: 0,
                chain: 0,
            }),
            observed_set,
            ..Default::default()
        }
    }

    fn x() -> Vec<Matrix> {
        vec![Matrix {
            name: "x".into(),
            rows: 4,
            cols: 3,
            values: vec![1., 0., 1., 0., 1., 1., 1., 1., 0., 0., 0., 1.],
            ..Default::default()
        }]
    }

    /// Runs `batch` as the RPC would, results waiting up to `delay`; returns the results of
    /// each message, in the order sent.
    async fn messages(batch: JobBatch, delay: Duration) -> Vec<Vec<ChainResult>> {
        let (tx, mut rx) = mpsc::channel(64);
        let beat = Heartbeat::start(&tx, Duration::from_secs(1));
        tokio::task::spawn_blocking(move || {
            let mut batch = batch;
            let sets = std::mem::take(&mut batch.observed_sets)
                .into_iter()
                .map(|s| crate::dataset_from_wire(s.observed).map(Arc::new))
                .collect();
            run_grouped(batch, sets, "w", &tx, &beat, delay);
            beat.finish();
        });
        let mut out = Vec::new();
        while let Some(Ok(ev)) = rx.recv().await {
            match ev.event {
                Some(chain_event::Event::Results(rs)) => out.push(rs.results),
                Some(chain_event::Event::Result(r)) => out.push(vec![r]),
                _ => {}
            }
        }
        out
    }

    /// Runs `batch` as the RPC does; returns its results in the order sent.
    async fn results(batch: JobBatch) -> Vec<ChainResult> {
        messages(batch, RESULT_DELAY).await.concat()
    }

    /// Results go at most [`RESULTS_PER_MESSAGE`] to a message, in the batch's order; with no
    /// time limit, every message but the last is full, and with none of waiting each goes alone.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn results_travel_several_to_a_message_in_order() {
        let n = 2 * RESULTS_PER_MESSAGE + 3;
        let batch = || JobBatch {
            protocol_version: PROTOCOL_VERSION,
            jobs: (0..n as u64).map(|k| job(k, 1)).collect(),
            observed_sets: vec![ObservedSet {
                observed: x(),
                ..Default::default()
            }],
        };
        let full = messages(batch(), Duration::MAX).await;
        let sizes: Vec<usize> = full.iter().map(Vec::len).collect();
        assert_eq!(sizes, [RESULTS_PER_MESSAGE, RESULTS_PER_MESSAGE, 3]);
        let ids: Vec<String> = full.concat().into_iter().map(|r| r.job_id).collect();
        let expected: Vec<String> = (0..n).map(|k| format!("j{k}")).collect();
        assert_eq!(ids, expected);
        let alone = messages(batch(), Duration::ZERO).await;
        assert_eq!(alone.len(), n);
    }

    /// Each chain of a batch (its data sent once, or inline) is the chain run alone, bit for
    /// bit; a job naming a set the batch lacks fails alone and for good.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_batched_chain_is_the_chain_run_alone() {
        let inline = Job {
            observed: x(),
            ..job(2, 0)
        };
        let batch = JobBatch {
            protocol_version: PROTOCOL_VERSION,
            jobs: vec![job(0, 1), job(1, 1), inline, job(3, 9), job(4, 1)],
            observed_sets: vec![ObservedSet {
                observed: x(),
                ..Default::default()
            }],
        };
        let got = results(batch).await;
        assert_eq!(got.len(), 5);
        for (k, r) in got.iter().enumerate() {
            assert_eq!(r.job_id, format!("j{k}"));
            if k == 3 {
                assert!(!r.ok && !r.retryable, "{r:?}");
                assert!(r.error.contains("not in the batch"), "{}", r.error);
                continue;
            }
            let alone = execute(
                &Job {
                    observed: x(),
                    observed_set: 0,
                    ..job(k as u64, 0)
                },
                "w",
                &mut |_, _| {},
            );
            assert!(r.ok, "{}", r.error);
            let bits = |v: &[f64]| v.iter().map(|f| f.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&r.trace), bits(&alone.trace), "chain {k}");
            assert_eq!(r.trace_names, alone.trace_names);
            assert_eq!(r.summary, alone.summary);
        }
        // Different seeds: different chains (the comparison above can fail).
        assert_ne!(got[0].summary, got[1].summary);
    }
}

//! Batches of short chains: a slot task that sees its chains finish in a fraction of an RPC's
//! round trip sends the next ones in one `RunBatch` call, each (dataset, replicate) once, and
//! settles each chain as its result arrives (the worker sends them in the batch's order,
//! several to a message).
//!
//! A slot starts with single chains (`RunChain`, with heartbeats, leases, checkpoints and
//! resumes) and measures the workers' own seconds per chain (a result's `elapsed_seconds`; the
//! call's wall time when a result has none): the call's wall time would count the wait for a
//! busy coordinator, which grows with the slots, and keep short chains single. The next call
//! carries about [`BATCH_WALL`] of work, at most [`MAX_BATCH`] chains, at most half the queue's
//! share of one slot (the last chains of a run still spread over every slot), and at most the
//! slot's share of [`MAX_IN_BATCHES`]. Chains of
//! [`BATCH_WALL`] or more always go alone, and so do a chain with a stored checkpoint and every
//! chain of a convergence-driven round (it must end with a checkpoint). A batched chain's
//! result is vetted and settled exactly like a single chain's; a failed call (lost lease,
//! closed stream, an answer out of order) counts one attempt for each chain without a result.
//! A batched chain's row is not marked `running` (see [`run`]).

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use causeway_papers::RunSpec;
use causeway_proto::PROTOCOL_VERSION;
use causeway_proto::v1::{JobBatch, ObservedSet, chain_event};
use tokio::sync::mpsc;

use super::lease::within_lease;
use super::{
    Outcome, RpcError, Shared, WireJob, WorkerHandle, add_work, lease_lost, read_to_end, rpc_error,
    settle, vet,
};

/// The wall time a batch aims at: long enough that the RPC's own cost (≈ 0.1–0.5 ms) is a few
/// percent of it, short enough that a lost worker costs little and the last chains spread.
pub(super) const BATCH_WALL: Duration = Duration::from_millis(25);

/// The most chains in one batch.
pub(super) const MAX_BATCH: usize = 512;

/// The most chains all slots' batches hold together (each slot at most its share): batches
/// that together span more of the plan make the job table's writer update and insert rows far
/// apart (measured with `cargo bench --bench cluster`, 256 slots: near-empty chains in batches
/// of up to 32 took 1.6 times the wall time of batches of up to 8).
pub(super) const MAX_IN_BATCHES: usize = 2048;

/// A slot's batch size, from the wall time per chain it has seen.
#[derive(Debug, Default)]
pub(super) struct Pace {
    per_chain: Option<f64>,
    never: bool,
}

impl Pace {
    /// Chains for the next call (1: a single chain).
    pub(super) fn size(&self) -> usize {
        match self.per_chain {
            Some(t) if !self.never && t > 0.0 => {
                ((BATCH_WALL.as_secs_f64() / t).floor() as usize).clamp(1, MAX_BATCH)
            }
            _ => 1,
        }
    }

    /// This run's chains must go alone (they end with a checkpoint).
    pub(super) fn never(&mut self) {
        self.never = true;
    }

    /// A call of `n` chains took `elapsed` (the workers' seconds): the estimate moves halfway to
    /// its time per chain.
    pub(super) fn observe(&mut self, elapsed: Duration, n: usize) {
        let t = elapsed.as_secs_f64() / n.max(1) as f64;
        self.per_chain = Some(self.per_chain.map_or(t, |p| 0.5 * (p + t)));
    }
}

/// `first` and up to `size - 1` more queued chains without a stored checkpoint (a chain with
/// one goes alone, to resume), at most half the queue's share of one slot and the slot's share
/// of [`MAX_IN_BATCHES`].
pub(super) async fn take_more(shared: &Shared, first: (u32, u32), size: usize) -> Vec<(u32, u32)> {
    let mut v = vec![first];
    if size <= 1 {
        return v;
    }
    let mut q = shared.queue.lock().await;
    // Held only while the queue is read (no await under it).
    let Ok(checkpoints) = shared.checkpoints.lock() else {
        return v;
    };
    if checkpoints.contains_key(&first.0) {
        return v;
    }
    let slots = shared.slots.load(Ordering::SeqCst).max(1);
    let size = size
        .min(1 + q.len() / (2 * slots))
        .min((MAX_IN_BATCHES / slots).max(1));
    while v.len() < size {
        match q.front() {
            Some(&(i, a)) if !checkpoints.contains_key(&i) => {
                q.pop_front();
                v.push((i, a));
            }
            _ => break,
        }
    }
    v
}

/// Run `jobs` (plan index, attempts so far) in one `RunBatch` call on `w`, settling each chain
/// as its result comes; their sampling seconds are added to `work` (`add_work`). Returns
/// whether this worker keeps its slot.
pub(super) async fn run(
    w: &mut WorkerHandle,
    shared: &Shared,
    out: &mpsc::Sender<Outcome>,
    jobs: Vec<(u32, u32)>,
    work: &mut Option<f64>,
) -> bool {
    let lease = shared.opts.lease_timeout;
    let mut sets: Vec<ObservedSet> = Vec::new();
    // Keyed by the shared data's address (as usize: the map is held across awaits).
    let mut set_of: HashMap<usize, u32> = HashMap::new();
    // The keys whose data this call carries: the worker keeps them once it has sent a result
    // (it converts a batch's sets before its first chain).
    let mut carried = Vec::new();
    let mut ids = Vec::with_capacity(jobs.len());
    let mut specs: Vec<Option<RunSpec>> = Vec::with_capacity(jobs.len());
    let mut spec_of: HashMap<String, Option<RunSpec>> = HashMap::new();
    let mut wire = Vec::with_capacity(jobs.len());
    for &(index, _) in &jobs {
        let WireJob { mut job, observed } = (shared.build)(index as usize);
        job.observed_set = *set_of
            .entry(Arc::as_ptr(&observed.matrices) as usize)
            .or_insert_with(|| {
                let keeps = w.keeps(&observed.key);
                if !keeps {
                    carried.push(observed.key.clone());
                }
                sets.push(ObservedSet {
                    observed: if keeps {
                        Vec::new()
                    } else {
                        observed.matrices.as_ref().clone()
                    },
                    key: observed.key.to_string(),
                });
                sets.len() as u32
            });
        job.checkpoint_iterations = 0;
        job.checkpoint_seconds = 0.0;
        // A cell's run spec is parsed once per batch (its chains share the text).
        let spec = match spec_of.get(&job.run_json) {
            Some(spec) => *spec,
            None => {
                let spec = serde_json::from_str::<RunSpec>(&job.run_json).ok();
                spec_of.insert(job.run_json.clone(), spec);
                spec
            }
        };
        specs.push(spec);
        ids.push(job.job_id.clone());
        wire.push(job);
    }
    let batch = JobBatch {
        protocol_version: PROTOCOL_VERSION,
        jobs: wire,
        observed_sets: sets,
    };
    let mut stream = match within_lease(lease, w.client.run_batch(batch)).await {
        Err(_) => {
            *work = None;
            return fail_rest(w, shared, out, &jobs, lease_lost(lease)).await;
        }
        Ok(Err(s)) => {
            *work = None;
            return fail_rest(w, shared, out, &jobs, rpc_error(s)).await;
        }
        Ok(Ok(r)) => r.into_inner(),
    };
    // The worker answered: it holds a slot for these chains. Their rows go from pending to
    // done (or requeued, or failed) without a `running` row in between: a batch lasts about
    // `BATCH_WALL`, and a row written per chain and undone a few milliseconds later cost more
    // than the rest of a near-empty chain's bookkeeping. A coordinator that dies meanwhile finds
    // them pending, as it would find them running: either way they run again.
    let mut next = 0;
    let mut keep = true;
    let error = loop {
        if next == jobs.len() {
            read_to_end(&mut stream, lease).await;
            return keep;
        }
        let results = match within_lease(lease, stream.message()).await {
            Err(_) => break lease_lost(lease),
            Ok(Ok(Some(ev))) => match ev.event {
                Some(chain_event::Event::Results(rs)) => rs.results,
                Some(chain_event::Event::Result(r)) => vec![r],
                _ => continue,
            },
            Ok(Ok(None)) => {
                break RpcError::Failed(
                    "worker closed the stream before sending every result of its batch".into(),
                );
            }
            Ok(Err(s)) => break rpc_error(s),
        };
        for key in carried.drain(..) {
            w.now_keeps(&key);
        }
        let mut out_of_order = None;
        for r in results {
            let Some(expected) = ids.get(next) else {
                out_of_order = Some(format!(
                    "the worker answered chain {:?} after the last of its batch",
                    r.job_id
                ));
                break;
            };
            if &r.job_id != expected {
                out_of_order = Some(format!(
                    "the worker answered chain {:?} where {expected:?} was next in its batch",
                    r.job_id
                ));
                break;
            }
            let (index, attempts) = jobs[next];
            add_work(work, Some(&r));
            let outcome = vet(
                Ok(r),
                specs[next].as_ref(),
                false,
                shared,
                out,
                index as usize,
            );
            let outcome = outcome.await;
            keep &= settle(w, shared, out, index, attempts, outcome, false).await;
            next += 1;
        }
        if let Some(e) = out_of_order {
            break RpcError::Failed(e);
        }
    };
    *work = None;
    fail_rest(w, shared, out, &jobs[next..], error).await
}

/// Settle every chain of `jobs` with `error` (a failed or refused call); the worker loses its
/// slot. Logged once for the batch.
async fn fail_rest(
    w: &WorkerHandle,
    shared: &Shared,
    out: &mpsc::Sender<Outcome>,
    jobs: &[(u32, u32)],
    error: RpcError,
) -> bool {
    if let RpcError::Failed(e) = &error {
        tracing::warn!(worker = %w.addr, chains = jobs.len(), "batch RPC failed: {e}");
    }
    let mut keep = true;
    for &(index, attempts) in jobs {
        keep &= settle(w, shared, out, index, attempts, Err(error.clone()), false).await;
    }
    keep
}

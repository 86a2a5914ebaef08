//! Dispatch: send jobs to gRPC workers, retry a chain that fails on another worker, and hand
//! every event to the caller as it happens.
//!
//! Workers arrive on a channel at any time (static ones at the start, registered ones whenever
//! they join). Each worker gets one task per slot. A task pulls the next job index from a shared
//! queue, builds the wire `Job` only then (so pending chains cost a few bytes each), runs it with
//! `RunChain` under a lease, and forwards the result. The chain is reported started once the
//! worker has accepted it (answered the RPC, holding a slot), not when it is sent. Failures:
//!
//! - the RPC fails, or its stream is silent for `lease_timeout` of the coordinator's own running
//!   time (`lease`; worker killed, host hung, network cut): the RPC is dropped (which cancels
//!   the chain on a live worker), the job is requeued with one more attempt, and that task
//!   stops, so the retry lands elsewhere;
//! - the worker is draining (`UNAVAILABLE: draining`): requeued without counting an attempt;
//! - the worker does not keep the observed data the call named by its key (`FAILED_PRECONDITION:
//!   observed data not kept`: it restarted, or evicted them): requeued without counting an
//!   attempt, the next call to that worker carrying the data;
//! - the model failed (`ok = false`): requeued with one more attempt.
//!
//! After `max_attempts` a job is reported failed with its last reason. A chain's result depends
//! only on its seed, never on the worker, the order or the retries.
//!
//! Checkpoints: a worker's checkpoint events carry the rows since its previous one;
//! the slot task joins them to the rows it already holds (from the stored checkpoint it resumed
//! from, if any), reports the whole checkpoint as [`Outcome::Checkpoint`] for the store, and
//! keeps it, so a retry of the chain resumes there on any worker of the same code version.
//! The final result's rows are joined the same way: the caller always gets whole chains.
//!
//! Nothing is adopted unchecked ([`rows`]): a checkpoint whose rows are not exactly those of
//! its chain's plan up to its iteration is dropped before it is sent, and a result that is not
//! the whole chain is a failed attempt. A resumed chain that fails (the worker refused the
//! checkpoint, or the chain broke after it) drops its checkpoint and runs again from iteration
//! 1, without counting an attempt: a checkpoint can cost time, never a chain.

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use causeway_papers::RunSpec;
use causeway_proto::v1::worker_client::WorkerClient;
use causeway_proto::v1::{ChainCheckpoint, ChainResult, HelloRequest, Job, chain_event};
use causeway_proto::{CHECKPOINT_REFUSED, NOT_CACHED, PROTOCOL_VERSION};
use causeway_worker::auth::{self, AuthedChannel, Security};
use tokio::sync::{Mutex, Notify, mpsc, watch};
use tokio::task::JoinSet;

use crate::store::Event;

mod batch;
mod lease;
mod observed;
mod rows;

pub use self::observed::Observed;

use self::lease::within_lease;

/// A connected worker.
#[derive(Clone, Debug)]
pub struct WorkerHandle {
    pub addr: String,
    pub id: String,
    pub slots: u32,
    /// The worker's code version (a checkpoint only resumes on the version that saved it).
    pub code_version: String,
    pub client: WorkerClient<AuthedChannel>,
    /// Slot tasks of this worker still taking work (starts at `slots`; 0: the worker is gone
    /// for this run).
    pub live_slots: Arc<AtomicUsize>,
    /// The keys of the observed data this worker keeps: sent to it in a call it answered.
    pub kept: Arc<std::sync::Mutex<HashSet<Arc<str>>>>,
}

/// Connect to `addr` (`host:port` or a URL) and check the protocol version (local mode: no
/// token, no TLS).
pub async fn connect(addr: &str) -> anyhow::Result<WorkerHandle> {
    connect_secure(addr, &Security::default()).await
}

/// [`connect`] with the token and TLS of `security` (see `causeway_worker::auth`).
pub async fn connect_secure(addr: &str, security: &Security) -> anyhow::Result<WorkerHandle> {
    let channel = auth::connect_authed(addr, security).await?;
    let mut client = WorkerClient::new(channel)
        .max_decoding_message_size(256 << 20)
        .max_encoding_message_size(256 << 20);
    let hello = client
        .hello(HelloRequest {
            protocol_version: PROTOCOL_VERSION,
        })
        .await
        .map_err(|s| anyhow::anyhow!("worker {addr} refused: {:?}: {}", s.code(), s.message()))?
        .into_inner();
    if hello.protocol_version != PROTOCOL_VERSION {
        anyhow::bail!(
            "worker {addr} speaks protocol version {}, this coordinator speaks {PROTOCOL_VERSION}",
            hello.protocol_version
        );
    }
    let slots = hello.slots.clamp(1, MAX_WORKER_SLOTS);
    if slots != hello.slots.max(1) {
        tracing::warn!(
            "worker {addr} advertises {} slots: capped at {MAX_WORKER_SLOTS} (one task each)",
            hello.slots
        );
    }
    Ok(WorkerHandle {
        addr: addr.to_string(),
        id: hello.worker_id,
        slots,
        code_version: hello.code_version,
        client,
        live_slots: Arc::new(AtomicUsize::new(slots as usize)),
        kept: Arc::default(),
    })
}

/// The most chains one worker runs at once, whatever it advertises: the coordinator keeps one
/// task per slot, so a worker advertising 4·10⁹ slots would exhaust its memory.
pub const MAX_WORKER_SLOTS: u32 = 4096;

/// Builds the wire job of plan index `i` when it is dispatched.
pub type JobBuilder = Arc<dyn Fn(usize) -> WireJob + Send + Sync>;

/// A chain as it goes to a worker: its `Job` with `observed` empty, and its observed data,
/// shared by every chain of the same (dataset, replicate) (a batch sends each set once, and a
/// worker that keeps them gets their key alone).
#[derive(Clone, Debug, Default)]
pub struct WireJob {
    pub job: Job,
    pub observed: Observed,
}

/// What happened to a job.
#[derive(Debug)]
pub enum Outcome {
    /// The worker ran the chain to a result with `ok = true` (not yet stored).
    Finished {
        index: usize,
        attempts: u32,
        result: ChainResult,
    },
    /// The chain saved a checkpoint: its state and every row since iteration 1 (to be stored,
    /// so that a rerun of the run directory resumes there too).
    Checkpoint {
        index: usize,
        checkpoint: Arc<ChainCheckpoint>,
    },
    /// The chain's checkpoint was dropped (`why`): it runs from iteration 1. The stored one
    /// must go too.
    CheckpointDropped { index: usize, why: String },
    /// Any other change of the job's row: started, requeued, failed after `max_attempts`
    /// (model failures and RPC failures alike), or lost (no worker left, or stopped).
    Row(Event),
}

/// Dispatch options.
#[derive(Debug, Clone, Copy)]
pub struct DispatchOptions {
    /// Attempts per job (RPC failures, lost leases and model failures) before it fails.
    pub max_attempts: u32,
    /// A running chain whose stream is silent this long is taken back and requeued.
    pub lease_timeout: Duration,
    /// Ask workers for a checkpoint after this many iterations (`None`: not by count).
    pub checkpoint_iterations: Option<u64>,
    /// Ask workers for a checkpoint once this many seconds have passed since the last one
    /// (`None`: not by time).
    pub checkpoint_seconds: Option<f64>,
}

/// Default time between two checkpoints of a chain: a lost chain loses at most about this much
/// work.
pub const DEFAULT_CHECKPOINT_SECONDS: f64 = 60.0;

impl Default for DispatchOptions {
    fn default() -> Self {
        DispatchOptions {
            max_attempts: 3,
            lease_timeout: Duration::from_secs(10),
            checkpoint_iterations: None,
            checkpoint_seconds: Some(DEFAULT_CHECKPOINT_SECONDS),
        }
    }
}

struct Shared {
    /// `(plan index, attempts so far)`, both u32 to keep a 10^6-chain queue small.
    queue: Mutex<VecDeque<(u32, u32)>>,
    /// Jobs not yet finished or failed.
    remaining: AtomicUsize,
    /// Per plan index: a result was accepted (a late duplicate is dropped).
    done: Vec<AtomicBool>,
    /// Something changed: a job was requeued or the last one finished.
    wake: Notify,
    stopped: AtomicBool,
    build: JobBuilder,
    opts: DispatchOptions,
    /// The last checkpoint of each chain that has one, with every row since iteration 1.
    checkpoints: std::sync::Mutex<HashMap<u32, Arc<ChainCheckpoint>>>,
    /// Slot tasks taking work, on every worker.
    slots: AtomicUsize,
}

/// Run the jobs `pending` (plan indices, out of `total`) on the workers that arrive on
/// `workers`; every event is sent on `out`. Returns when every job is finished or failed, when
/// `stop` becomes true (what is still queued is reported lost, chains in flight are cancelled),
/// or when `workers` is closed and every worker is gone (what is left is reported lost).
/// `checkpoints` are the stored checkpoints of pending chains (whole, rows since iteration 1),
/// which resume on a worker of their code version.
#[allow(clippy::too_many_arguments)]
pub async fn dispatch(
    mut workers: mpsc::Receiver<WorkerHandle>,
    pending: Vec<usize>,
    total: usize,
    build: JobBuilder,
    opts: DispatchOptions,
    checkpoints: HashMap<usize, ChainCheckpoint>,
    mut stop: watch::Receiver<bool>,
    out: mpsc::Sender<Outcome>,
) {
    let shared = Arc::new(Shared {
        remaining: AtomicUsize::new(pending.len()),
        queue: Mutex::new(pending.into_iter().map(|i| (i as u32, 0)).collect()),
        done: (0..total).map(|_| AtomicBool::new(false)).collect(),
        wake: Notify::new(),
        stopped: AtomicBool::new(false),
        build,
        opts,
        checkpoints: std::sync::Mutex::new(
            checkpoints
                .into_iter()
                .map(|(i, c)| (i as u32, Arc::new(c)))
                .collect(),
        ),
        slots: AtomicUsize::new(0),
    });
    let mut slots: JoinSet<()> = JoinSet::new();
    let mut workers_open = true;
    let mut stop_open = true;
    // Stopped (SIGTERM): queued chains stay pending for the next run, not "lost".
    let mut stopped = false;
    loop {
        if shared.remaining.load(Ordering::SeqCst) == 0 {
            break;
        }
        if !workers_open && slots.is_empty() {
            break;
        }
        if *stop.borrow() {
            stopped = true;
            break;
        }
        tokio::select! {
            w = workers.recv(), if workers_open => match w {
                Some(w) => {
                    tracing::info!(worker = %w.id, addr = %w.addr, slots = w.slots, "worker joined");
                    for _ in 0..w.slots {
                        slots.spawn(slot_loop(w.clone(), shared.clone(), out.clone()));
                    }
                }
                None => workers_open = false,
            },
            _ = slots.join_next(), if !slots.is_empty() => {}
            changed = stop.changed(), if stop_open => {
                // The sender is gone: nobody can stop us any more; keep going.
                stop_open = changed.is_ok();
            }
            _ = shared.wake.notified() => {}
        }
    }
    shared.stopped.store(true, Ordering::SeqCst);
    shared.wake.notify_waiters();
    // Chains in flight are dropped: their RPCs are cancelled and the workers stop them.
    slots.abort_all();
    while slots.join_next().await.is_some() {}
    if stopped {
        return;
    }
    let mut q = shared.queue.lock().await;
    while let Some((index, attempts)) = q.pop_front() {
        let _ = out
            .send(Outcome::Row(Event::Lost {
                index: index as usize,
                attempts,
                error: "no worker left to run this chain".into(),
            }))
            .await;
    }
}

/// Decrements the worker's live slot count when a slot task ends, however it ends.
struct LiveSlot(Arc<AtomicUsize>);
impl Drop for LiveSlot {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

async fn next_job(shared: &Shared) -> Option<(u32, u32)> {
    loop {
        if shared.stopped.load(Ordering::SeqCst) {
            return None;
        }
        // Register interest before looking, so a wake between the two is not missed.
        let notified = shared.wake.notified();
        if let Some(j) = shared.queue.lock().await.pop_front() {
            return Some(j);
        }
        if shared.remaining.load(Ordering::SeqCst) == 0 {
            return None;
        }
        // A chain in flight elsewhere may still come back: wait for news.
        let _ = tokio::time::timeout(Duration::from_millis(500), notified).await;
    }
}

async fn slot_loop(mut w: WorkerHandle, shared: Arc<Shared>, out: mpsc::Sender<Outcome>) {
    let _live = LiveSlot(w.live_slots.clone());
    let _slot = SlotCount::new(&shared);
    let mut pace = batch::Pace::default();
    while let Some(first) = next_job(&shared).await {
        let started = std::time::Instant::now();
        let jobs = batch::take_more(&shared, first, pace.size()).await;
        let n = jobs.len();
        let mut work = Some(0.0);
        let keep = if n == 1 {
            let (index, attempts) = jobs[0];
            let (keep, batchable) =
                run_single(&mut w, &shared, &out, index, attempts, &mut work).await;
            if !batchable {
                pace.never();
            }
            keep
        } else {
            batch::run(&mut w, &shared, &out, jobs, &mut work).await
        };
        // The workers' own seconds, not the call's wall time: under load that is mostly the
        // wait for this coordinator, and would keep short chains from ever being batched.
        // (A worker's figures are not trusted to fit a Duration.)
        pace.observe(
            work.filter(|&s| s > 0.0)
                .and_then(|s| Duration::try_from_secs_f64(s).ok())
                .unwrap_or_else(|| started.elapsed()),
            n,
        );
        if !keep {
            // This worker failed an RPC or is draining: stop giving it work, so the retry goes
            // elsewhere. A worker that is still alive registers again and gets new slots.
            return;
        }
    }
}

/// Counts the slot tasks taking work (a batch takes a share of the queue, not all of it).
struct SlotCount(Arc<Shared>);
impl SlotCount {
    fn new(shared: &Arc<Shared>) -> SlotCount {
        shared.slots.fetch_add(1, Ordering::SeqCst);
        SlotCount(shared.clone())
    }
}
impl Drop for SlotCount {
    fn drop(&mut self) {
        self.0.slots.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Run chain `index` alone (`RunChain`: heartbeats, leases, checkpoints and resumes), and
/// settle its outcome; its sampling seconds are added to `work` ([`add_work`]). Returns whether
/// this worker keeps its slot, and whether the chain could have gone in a batch (it neither
/// resumed nor must end with a checkpoint).
async fn run_single(
    w: &mut WorkerHandle,
    shared: &Arc<Shared>,
    out: &mpsc::Sender<Outcome>,
    index: u32,
    attempts: u32,
    work: &mut Option<f64>,
) -> (bool, bool) {
    let i = index as usize;
    let attempt = attempts + 1;
    let WireJob { mut job, observed } = (shared.build)(i);
    let carried = !w.keeps(&observed.key);
    if carried {
        job.observed = observed.matrices.as_ref().clone();
    }
    job.observed_key = observed.key.to_string();
    job.checkpoint_iterations = shared.opts.checkpoint_iterations.unwrap_or(0);
    job.checkpoint_seconds = shared.opts.checkpoint_seconds.unwrap_or(0.0);
    let batchable = !job.checkpoint_at_end;
    let spec = serde_json::from_str::<RunSpec>(&job.run_json).ok();
    // Resume from the chain's last checkpoint if this worker can (same code version) and
    // its rows are exactly the chain's up to its iteration.
    let mut from = shared
        .checkpoints
        .lock()
        .ok()
        .and_then(|m| m.get(&index).cloned())
        .filter(|c| c.code_version == w.code_version);
    if let (Some(c), Some(s)) = (&from, &spec)
        && let Some(why) = rows::checkpoint_defect(c, s)
    {
        drop_checkpoint(
            shared,
            out,
            i,
            format!("its rows do not fit the chain: {why}"),
        )
        .await;
        from = None;
    }
    let resumed = from.is_some();
    // Written once the worker has accepted the chain (it holds a slot for it), so that
    // `running` in jobs.sqlite means running: a worker told to drain finishes such a chain.
    let started = Event::Started {
        index: i,
        attempt,
        worker: w.id.clone(),
        resumed_from: from.as_ref().map(|c| c.iteration),
    };
    if let Some(c) = &from {
        // The state alone: the worker needs no rows (the slot task keeps them).
        job.resume = Some(ChainCheckpoint {
            job_id: c.job_id.clone(),
            iteration: c.iteration,
            sampler_state: c.sampler_state.clone(),
            rng_word_pos: c.rng_word_pos.clone(),
            elapsed_seconds: c.elapsed_seconds.last().copied().into_iter().collect(),
            code_version: c.code_version.clone(),
            ..Default::default()
        });
    }
    let outcome = run_one(
        &mut w.client,
        job,
        shared.opts.lease_timeout,
        from,
        out.send(Outcome::Row(started)),
        &mut |c: Arc<ChainCheckpoint>| {
            if let Ok(mut m) = shared.checkpoints.lock() {
                m.insert(index, c.clone());
            }
            let out = out.clone();
            async move {
                let _ = out
                    .send(Outcome::Checkpoint {
                        index: i,
                        checkpoint: c,
                    })
                    .await;
            }
        },
    )
    .await;
    // A result means the worker took the call, and kept its data.
    if carried && outcome.is_ok() {
        w.now_keeps(&observed.key);
    }
    add_work(work, outcome.as_ref().ok());
    let outcome = vet(outcome, spec.as_ref(), resumed, shared, out, i).await;
    let keep = settle(w, shared, out, index, attempts, outcome, true).await;
    (keep, batchable && !resumed)
}

/// Add a result's sampling seconds (its last `elapsed_seconds`) to `work`, which becomes
/// `None` (unknown) for a call without a result or a result without them.
fn add_work(work: &mut Option<f64>, result: Option<&ChainResult>) {
    *work = match (*work, result.and_then(|r| r.elapsed_seconds.last())) {
        (Some(w), Some(&s)) if s.is_finite() && s >= 0.0 => Some(w + s),
        _ => None,
    };
}

/// Act on chain `index`'s outcome (attempt `attempts + 1`): a finished chain is handed on once
/// (a late duplicate is dropped); a failure requeues it, or fails it after `max_attempts` or
/// for good when it is not retryable. Returns whether this worker keeps its slot (false after
/// an RPC failure or a drain).
async fn settle(
    w: &WorkerHandle,
    shared: &Shared,
    out: &mpsc::Sender<Outcome>,
    index: u32,
    attempts: u32,
    outcome: Result<ChainResult, RpcError>,
    log_rpc_failure: bool,
) -> bool {
    let i = index as usize;
    let attempt = attempts + 1;
    let (error, counted, keep_worker, retryable) = match outcome {
        Ok(result) if result.ok => {
            // A finished chain's checkpoint is of no more use here (memory: one state per
            // checkpointed chain of the run otherwise).
            if let Ok(mut m) = shared.checkpoints.lock() {
                m.remove(&index);
            }
            if !shared.done[i].swap(true, Ordering::SeqCst) {
                let _ = out
                    .send(Outcome::Finished {
                        index: i,
                        attempts: attempt,
                        result,
                    })
                    .await;
                one_less(shared);
            }
            return true;
        }
        // A deterministic model failure would repeat with the same seed: no retry.
        Ok(result) => (
            format!("model failed: {}", result.error),
            true,
            true,
            result.retryable,
        ),
        Err(RpcError::Draining) => ("worker is draining".to_string(), false, false, true),
        Err(RpcError::NotCached) => {
            // It restarted or evicted them: every key is sent again.
            if let Ok(mut k) = w.kept.lock() {
                k.clear();
            }
            (
                "the worker no longer keeps the observed data".to_string(),
                false,
                true,
                true,
            )
        }
        Err(RpcError::Restart) => (
            "its checkpoint was dropped: it runs from iteration 1".to_string(),
            false,
            true,
            true,
        ),
        Err(RpcError::Failed(e)) => (e, true, false, true),
    };
    if !keep_worker && log_rpc_failure {
        tracing::warn!(worker = %w.addr, job = i, attempt, "chain RPC failed: {error}");
    }
    let attempts = if counted { attempt } else { attempts };
    let worker = w.id.clone();
    if counted && (attempts >= shared.opts.max_attempts || !retryable) {
        let ev = Event::Failed {
            index: i,
            attempts,
            worker,
            error,
        };
        let _ = out.send(Outcome::Row(ev)).await;
        one_less(shared);
    } else {
        let ev = Event::Requeued {
            index: i,
            attempts,
            worker,
            error,
        };
        let _ = out.send(Outcome::Row(ev)).await;
        shared.queue.lock().await.push_back((index, attempts));
        shared.wake.notify_waiters();
    }
    keep_worker
}

/// One job fewer left (finished or failed for good); the last one wakes the dispatcher.
fn one_less(shared: &Shared) {
    if shared.remaining.fetch_sub(1, Ordering::SeqCst) == 1 {
        shared.wake.notify_waiters();
    }
}

/// A chain's outcome as the dispatcher acts on it: a result that is not the whole chain (see
/// [`rows`]) is a failed attempt, and a resumed chain that failed for good runs again from
/// iteration 1, uncounted (its checkpoint was refused or led nowhere, and the chain without it
/// is the same chain); either drops the chain's checkpoint.
async fn vet(
    outcome: Result<ChainResult, RpcError>,
    spec: Option<&RunSpec>,
    resumed: bool,
    shared: &Shared,
    out: &mpsc::Sender<Outcome>,
    i: usize,
) -> Result<ChainResult, RpcError> {
    match (outcome, spec) {
        (Ok(r), Some(s)) if r.ok => match rows::result_defect(&r, s) {
            None => Ok(r),
            Some(why) => {
                drop_checkpoint(shared, out, i, format!("the result was not whole: {why}")).await;
                Err(RpcError::Failed(format!("result not whole: {why}")))
            }
        },
        (Ok(r), _) if resumed && !r.ok && !r.retryable => {
            let why = r.error.strip_prefix(CHECKPOINT_REFUSED).map_or_else(
                || format!("the chain failed after resuming from it ({})", r.error),
                |rest| format!("the worker refused it{rest}"),
            );
            drop_checkpoint(shared, out, i, why).await;
            Err(RpcError::Restart)
        }
        (o, _) => o,
    }
}

/// Forget chain `index`'s checkpoint here and in the store, and say why.
async fn drop_checkpoint(shared: &Shared, out: &mpsc::Sender<Outcome>, index: usize, why: String) {
    if let Ok(mut m) = shared.checkpoints.lock() {
        m.remove(&(index as u32));
    }
    let _ = out.send(Outcome::CheckpointDropped { index, why }).await;
}

#[derive(Clone)]
enum RpcError {
    /// The worker refused the chain because it is draining (not counted as an attempt).
    Draining,
    /// The worker does not keep the observed data the call named (not counted; the data go
    /// with the next call).
    NotCached,
    /// The chain's checkpoint was dropped; it runs again from iteration 1 (not counted).
    Restart,
    Failed(String),
}

fn rpc_error(s: tonic::Status) -> RpcError {
    if s.code() == tonic::Code::Unavailable && s.message() == causeway_proto::DRAINING {
        RpcError::Draining
    } else if s.code() == tonic::Code::FailedPrecondition && s.message().starts_with(NOT_CACHED) {
        RpcError::NotCached
    } else {
        RpcError::Failed(format!("{}: {}", s.code(), s.message()))
    }
}

fn lease_lost(lease: Duration) -> RpcError {
    RpcError::Failed(format!("lease lost: the worker was silent for {lease:?}"))
}

/// Read a stream to its end (the worker's trailers): a stream dropped before it ends is reset,
/// and HTTP/2 allows a connection only so many locally reset streams (h2: 1,024), after which
/// every chain on it fails.
async fn read_to_end(
    stream: &mut tonic::Streaming<causeway_proto::v1::ChainEvent>,
    lease: Duration,
) {
    let _ = within_lease(lease, async {
        while let Ok(Some(_)) = stream.message().await {}
    })
    .await;
}

/// Put `held` in front of `v`: the rows kept so far, then the new ones.
fn prepend<T: Clone>(held: &[T], v: &mut Vec<T>) {
    v.splice(0..0, held.iter().cloned());
}

/// Join a checkpoint's or a result's rows to the rows held so far (`held`).
fn join_rows(
    held: &ChainCheckpoint,
    it: &mut Vec<u64>,
    tr: &mut Vec<f64>,
    st: &mut Vec<f64>,
    el: &mut Vec<f64>,
) {
    prepend(&held.iterations, it);
    prepend(&held.trace, tr);
    prepend(&held.stats, st);
    prepend(&held.elapsed_seconds, el);
}

/// Most often a running chain's joined checkpoint is handed on (to the store, and to a retry):
/// a chain checkpointed every iteration would otherwise copy and write all its rows at each one,
/// quadratic in its length. A kill loses at most this much more than the worker's last
/// checkpoint.
const CHECKPOINT_HANDOFF_EVERY: Duration = Duration::from_millis(100);

/// Append `c`'s rows to `held`'s and take its state: `held` becomes the chain's checkpoint at
/// `c`'s iteration, with every row since iteration 1 (amortised O(new rows)).
fn absorb(held: &mut ChainCheckpoint, c: ChainCheckpoint) {
    held.iterations.extend(c.iterations);
    held.trace.extend(c.trace);
    held.stats.extend(c.stats);
    held.elapsed_seconds.extend(c.elapsed_seconds);
    held.job_id = c.job_id;
    held.iteration = c.iteration;
    held.sampler_state = c.sampler_state;
    held.rng_word_pos = c.rng_word_pos;
    held.code_version = c.code_version;
}

/// Run one chain on `client`, resuming from `from` if given. The worker's checkpoints are
/// joined to the rows held so far, and the whole checkpoint is handed to `on_checkpoint` at most
/// every [`CHECKPOINT_HANDOFF_EVERY`] (and, for a convergence-driven run, the last one before
/// the result, which carries the chain's end state); the result comes back with every row since
/// iteration 1.
async fn run_one<S, F, Fut>(
    client: &mut WorkerClient<AuthedChannel>,
    job: Job,
    lease: Duration,
    from: Option<Arc<ChainCheckpoint>>,
    on_started: S,
    on_checkpoint: &mut F,
) -> Result<ChainResult, RpcError>
where
    S: std::future::Future,
    F: FnMut(Arc<ChainCheckpoint>) -> Fut,
    Fut: std::future::Future<Output = ()>,
{
    let lost = || lease_lost(lease);
    let at_end = job.checkpoint_at_end;
    let mut held: Option<ChainCheckpoint> = from.map(Arc::unwrap_or_clone);
    // Whether the caller has `held` (it gave it, or it was handed on).
    let mut handed = true;
    let mut last_handoff: Option<std::time::Instant> = None;
    let mut stream = within_lease(lease, client.run_chain(job))
        .await
        .map_err(|_| lost())?
        .map_err(rpc_error)?
        .into_inner();
    // The worker answered: it holds a slot for this chain.
    let _ = on_started.await;
    loop {
        match within_lease(lease, stream.message()).await {
            Err(_) => return Err(lost()),
            Ok(Ok(Some(ev))) => match ev.event {
                Some(chain_event::Event::Result(mut r)) => {
                    if let Some(h) = &held {
                        if at_end && !handed && r.ok {
                            on_checkpoint(Arc::new(h.clone())).await;
                        }
                        if r.ok {
                            join_rows(
                                h,
                                &mut r.iterations,
                                &mut r.trace,
                                &mut r.stats,
                                &mut r.elapsed_seconds,
                            );
                        }
                    }
                    read_to_end(&mut stream, lease).await;
                    return Ok(r);
                }
                Some(chain_event::Event::Checkpoint(c)) => {
                    absorb(held.get_or_insert_with(Default::default), c);
                    handed = false;
                    if last_handoff.is_none_or(|t| t.elapsed() >= CHECKPOINT_HANDOFF_EVERY)
                        && let Some(h) = &held
                    {
                        on_checkpoint(Arc::new(h.clone())).await;
                        handed = true;
                        last_handoff = Some(std::time::Instant::now());
                    }
                }
                _ => {}
            },
            Ok(Ok(None)) => {
                return Err(RpcError::Failed(
                    "worker closed the stream before sending a result".into(),
                ));
            }
            Ok(Err(s)) => return Err(rpc_error(s)),
        }
    }
}

#[cfg(test)]
mod tests;

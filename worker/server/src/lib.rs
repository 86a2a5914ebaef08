//! # causeway-worker
//!
//! The thin gRPC side of a worker: it receives [`Job`]s, rebuilds the model's sampler from
//! `causeway-papers`, runs the chain on a blocking thread (off the async runtime), and streams
//! progress and then one [`ChainResult`] back. Between jobs it keeps only observed data (below).
//!
//! A model that fails (numerical error, invalid state, even a panic) yields a result with
//! `ok = false` and the reason; the worker itself never goes down on bad input.
//!
//! Liveness: while a chain runs, the stream carries a `Progress` event at least every heartbeat
//! interval ([`DEFAULT_HEARTBEAT`]), so a coordinator can hold a lease on it. When the
//! coordinator cancels the RPC (or goes away), the chain is stopped between two iterations.
//! A draining worker ([`WorkerService::drain`]) refuses new chains with
//! `Status::unavailable(DRAINING)` and finishes those in flight. [`keep_registered`] is the
//! worker's side of the coordinator's `Register` service (workers that join a run at any time).
//!
//! Observed data are kept between calls under the content key the coordinator gives them
//! (module `observed`), so that a dataset crosses the network once per worker.

use std::net::SocketAddr;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use crate::wire::{chain_result_from_output, checkpoint_to_wire, matrix_from_wire, rng_word_pos};
use causeway_papers::{
    ChainControl, CheckpointEvery, Dataset, Resume, RunSpec, SamplerError, chain_rng, drive_chain,
    registry,
};
use causeway_proto::PROTOCOL_VERSION;
use causeway_proto::v1::coordinator_client::CoordinatorClient;
use causeway_proto::v1::worker_server::{Worker, WorkerServer};
use causeway_proto::v1::{
    ChainCheckpoint, ChainEvent, ChainResult, HelloReply, HelloRequest, Job, JobBatch, Progress,
    RegisterRequest, chain_event,
};
use causeway_proto::{CHECKPOINT_REFUSED, CODE_VERSION, DRAINING};
use tokio::sync::{Semaphore, mpsc, oneshot};
use tokio_stream::wrappers::ReceiverStream;
use tonic::{Request, Response, Status};

pub mod auth;
mod batch;
pub mod node;
mod observed;
pub mod process;
pub mod wire;

pub use batch::RESULTS_PER_MESSAGE;
pub use observed::DEFAULT_KEPT_BYTES;

/// Default interval between two `Progress` events of a running chain (its heartbeat).
pub const DEFAULT_HEARTBEAT: Duration = Duration::from_secs(1);

/// The worker service. `slots` chains may run at once (default 1: a local worker per core).
#[derive(Clone)]
pub struct WorkerService {
    id: String,
    slots: Arc<Semaphore>,
    n_slots: u32,
    draining: Arc<AtomicBool>,
    heartbeat: Duration,
    kept: observed::Kept,
}

impl WorkerService {
    /// A worker called `id` that runs up to `slots` chains at once.
    pub fn new(id: impl Into<String>, slots: u32) -> Self {
        let n = slots.max(1);
        WorkerService {
            id: id.into(),
            slots: Arc::new(Semaphore::new(n as usize)),
            n_slots: n,
            draining: Arc::new(AtomicBool::new(false)),
            heartbeat: DEFAULT_HEARTBEAT,
            kept: observed::Kept::new(DEFAULT_KEPT_BYTES),
        }
    }

    /// Keep at most about `bytes` of observed values between calls (default
    /// [`DEFAULT_KEPT_BYTES`]; the newest dataset is kept however large).
    pub fn with_kept_bytes(mut self, bytes: usize) -> Self {
        self.kept = observed::Kept::new(bytes);
        self
    }

    /// Send a heartbeat `Progress` event at least this often while a chain runs.
    pub fn with_heartbeat(mut self, every: Duration) -> Self {
        self.heartbeat = every.max(Duration::from_millis(10));
        self
    }

    /// This worker's id (as reported by `Hello` and in every result).
    pub fn id(&self) -> &str {
        &self.id
    }

    /// Chains this worker runs at once.
    pub fn slots(&self) -> u32 {
        self.n_slots
    }

    /// Refuse new chains from now on (`Status::unavailable(DRAINING)`); chains in flight go on.
    pub fn drain(&self) {
        self.draining.store(true, Ordering::SeqCst);
    }

    /// Wait until no chain is running (every slot free).
    pub async fn wait_idle(&self) {
        // Holding every permit at once means nothing runs; they are released at once.
        let _all = self.slots.acquire_many(self.n_slots).await;
    }

    /// The tonic server wrapper, with message limits large enough for real datasets.
    pub fn into_server(self) -> WorkerServer<Self> {
        WorkerServer::new(self)
            .max_decoding_message_size(256 << 20)
            .max_encoding_message_size(256 << 20)
    }
}

/// The observed data of a job's wire matrices (their shapes checked).
fn dataset_from_wire(observed: Vec<causeway_proto::v1::Matrix>) -> Result<Dataset, String> {
    Ok(Dataset {
        observed: observed
            .into_iter()
            .map(matrix_from_wire)
            .collect::<Result<Vec<_>, _>>()?,
        truth: Vec::new(),
    })
}

/// Everything but the data that can go wrong before a chain starts, as the reason in a failed
/// result.
fn prepare(
    job: &Job,
) -> Result<
    (
        &'static dyn causeway_papers::Model,
        serde_json::Value,
        RunSpec,
    ),
    String,
> {
    let model = registry::model(&job.model).map_err(|e| e.to_string())?;
    let params: serde_json::Value =
        serde_json::from_str(&job.params_json).map_err(|e| format!("params_json: {e}"))?;
    let run: RunSpec = serde_json::from_str(&job.run_json).map_err(|e| format!("run_json: {e}"))?;
    Ok((model, params, run))
}

/// Run one job to a result, synchronously. Used by tests and benchmarks; the gRPC handler runs
/// [`execute_cancellable`] on a blocking thread.
pub fn execute(job: &Job, worker_id: &str, progress: &mut dyn FnMut(u64, u64)) -> ChainResult {
    execute_cancellable(
        job,
        worker_id,
        progress,
        &AtomicBool::new(false),
        &mut |_| Ok(()),
    )
}

/// The checkpoint policy a job asks for (zero or non-finite: not by that rule).
fn checkpoint_every(job: &Job) -> CheckpointEvery {
    CheckpointEvery {
        iterations: (job.checkpoint_iterations > 0).then_some(job.checkpoint_iterations),
        seconds: (job.checkpoint_seconds > 0.0 && job.checkpoint_seconds.is_finite())
            .then_some(job.checkpoint_seconds),
        at_end: job.checkpoint_at_end,
    }
}

/// [`execute`] that stops the chain (a failed result, "cancelled") once `cancel` is set, goes on
/// from `job.resume` if the job carries a checkpoint, and hands every checkpoint the job asks
/// for to `on_checkpoint` (an error there, e.g. a closed stream, cancels the chain).
pub fn execute_cancellable(
    job: &Job,
    worker_id: &str,
    progress: &mut dyn FnMut(u64, u64),
    cancel: &AtomicBool,
    on_checkpoint: &mut dyn FnMut(ChainCheckpoint) -> Result<(), String>,
) -> ChainResult {
    match dataset_from_wire(job.observed.clone()) {
        Ok(data) => execute_on(
            job,
            &data,
            worker_id,
            progress,
            cancel,
            checkpoint_every(job),
            on_checkpoint,
        ),
        Err(e) => failed_result(job, worker_id, e, false),
    }
}

/// A failed result of `job`. A chain is a deterministic function of its job: only a cancelled
/// one (`retryable`) may succeed if run again.
fn failed_result(job: &Job, worker_id: &str, error: String, retryable: bool) -> ChainResult {
    ChainResult {
        job_id: job.job_id.clone(),
        ok: false,
        error,
        worker_id: worker_id.to_string(),
        retryable,
        ..Default::default()
    }
}

/// [`execute_cancellable`] on `data` (the job's observed data, already converted: a batch
/// converts each of its observed sets once) with the checkpoint policy `every`.
fn execute_on(
    job: &Job,
    data: &Dataset,
    worker_id: &str,
    progress: &mut dyn FnMut(u64, u64),
    cancel: &AtomicBool,
    every: CheckpointEvery,
    on_checkpoint: &mut dyn FnMut(ChainCheckpoint) -> Result<(), String>,
) -> ChainResult {
    let failed = |error: String, retryable: bool| failed_result(job, worker_id, error, retryable);
    let (model, params, run) = match prepare(job) {
        Ok(x) => x,
        Err(e) => return failed(e, false),
    };
    let Some(seed) = job.seed else {
        return failed("job has no seed".into(), false);
    };
    // A checkpoint this worker cannot resume from is refused as such: the coordinator drops it
    // and runs the chain from iteration 1.
    let refused = |why: String| failed(format!("{CHECKPOINT_REFUSED}: {why}"), false);
    let resume = match &job.resume {
        None => None,
        Some(c) if c.code_version != CODE_VERSION => {
            return refused(format!(
                "saved by code version {}, this worker is {CODE_VERSION}",
                c.code_version
            ));
        }
        Some(c) => match rng_word_pos(c) {
            Ok(pos) => Some(Resume {
                iteration: c.iteration,
                sampler_state: &c.sampler_state,
                rng_word_pos: pos,
                elapsed_offset: c.elapsed_seconds.last().copied().unwrap_or(0.0),
            }),
            Err(e) => return refused(e),
        },
    };
    let mut rng = chain_rng(seed.base_seed, seed.cell, seed.replicate, seed.chain);
    let outcome = std::panic::catch_unwind(AssertUnwindSafe(|| {
        // An SBC cell's sampler ranks its truth (`causeway_papers::sbc`); others are the model's.
        let mut sampler = causeway_papers::sbc::chain_sampler(model, &params, data, &mut rng)?;
        drive_chain(
            sampler.as_mut(),
            &run,
            &mut rng,
            ChainControl {
                progress,
                cancel,
                resume,
                every,
                on_checkpoint: &mut |c| {
                    let at = c.iteration;
                    on_checkpoint(checkpoint_to_wire(&job.job_id, c)).map_err(|e| {
                        tracing::debug!("checkpoint at iteration {at} not sent: {e}");
                        SamplerError::Cancelled(at)
                    })
                },
            },
        )
    }));
    match outcome {
        Ok(Ok(out)) => chain_result_from_output(&job.job_id, worker_id, out),
        Ok(Err(SamplerError::Checkpoint(why))) => refused(why),
        Ok(Err(e)) => failed(e.to_string(), matches!(e, SamplerError::Cancelled(_))),
        Err(panic) => {
            let msg = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".into());
            failed(format!("sampler panicked: {msg}"), false)
        }
    }
}

type EventStream = ReceiverStream<Result<ChainEvent, Status>>;

#[tonic::async_trait]
impl Worker for WorkerService {
    async fn hello(&self, req: Request<HelloRequest>) -> Result<Response<HelloReply>, Status> {
        let v = req.into_inner().protocol_version;
        if v != PROTOCOL_VERSION {
            return Err(Status::failed_precondition(format!(
                "protocol version mismatch: coordinator speaks {v}, worker speaks {PROTOCOL_VERSION}"
            )));
        }
        Ok(Response::new(HelloReply {
            protocol_version: PROTOCOL_VERSION,
            worker_id: self.id.clone(),
            code_version: CODE_VERSION.to_string(),
            models: registry::MODELS
                .iter()
                .map(|m| m.name().to_string())
                .collect(),
            slots: self.n_slots,
        }))
    }

    type RunChainStream = EventStream;

    async fn run_chain(&self, req: Request<Job>) -> Result<Response<Self::RunChainStream>, Status> {
        let mut job = req.into_inner();
        let permit = self.slot(job.protocol_version).await?;
        let source = self.kept.source(
            std::mem::take(&mut job.observed_key),
            std::mem::take(&mut job.observed),
        )?;
        let kept = self.kept.clone();
        let (tx, rx) = mpsc::channel(16);
        let id = self.id.clone();
        let beat = Heartbeat::start(&tx, self.heartbeat);
        let (done, total, cancel) = (beat.done.clone(), beat.total.clone(), beat.cancel.clone());
        tokio::task::spawn_blocking(move || {
            let _permit = permit;
            let mut progress = |d: u64, t: u64| {
                done.store(d, Ordering::Relaxed);
                total.store(t, Ordering::Relaxed);
            };
            let ckpt_tx = tx.clone();
            let mut on_checkpoint = |c: ChainCheckpoint| {
                ckpt_tx
                    .blocking_send(Ok(ChainEvent {
                        event: Some(chain_event::Event::Checkpoint(c)),
                    }))
                    .map_err(|_| "the coordinator closed the stream".to_string())
            };
            let result = match kept.data(source) {
                Ok(data) => execute_on(
                    &job,
                    &data,
                    &id,
                    &mut progress,
                    &cancel,
                    checkpoint_every(&job),
                    &mut on_checkpoint,
                ),
                Err(e) => failed_result(&job, &id, e, false),
            };
            let _ = tx.blocking_send(Ok(ChainEvent {
                event: Some(chain_event::Event::Result(result)),
            }));
            beat.finish();
        });
        Ok(Response::new(ReceiverStream::new(rx)))
    }

    type RunBatchStream = EventStream;

    async fn run_batch(
        &self,
        req: Request<JobBatch>,
    ) -> Result<Response<Self::RunBatchStream>, Status> {
        let mut batch = req.into_inner();
        let permit = self.slot(batch.protocol_version).await?;
        let sources = std::mem::take(&mut batch.observed_sets)
            .into_iter()
            .map(|s| self.kept.source(s.key, s.observed))
            .collect::<Result<Vec<_>, Status>>()?;
        let kept = self.kept.clone();
        let (tx, rx) = mpsc::channel(64);
        let beat = Heartbeat::start(&tx, self.heartbeat);
        let id = self.id.clone();
        tokio::task::spawn_blocking(move || {
            let _permit = permit;
            let sets = sources.into_iter().map(|s| kept.data(s)).collect();
            batch::run(batch, sets, &id, &tx, &beat);
            beat.finish();
        });
        Ok(Response::new(ReceiverStream::new(rx)))
    }
}

impl WorkerService {
    /// A slot for one chain or one batch sent in protocol `version`: refused on another
    /// version, and (`UNAVAILABLE: draining`) once draining, also when the drain began while
    /// waiting for the slot.
    async fn slot(&self, version: u32) -> Result<tokio::sync::OwnedSemaphorePermit, Status> {
        if version != PROTOCOL_VERSION {
            return Err(Status::failed_precondition(format!(
                "protocol version mismatch: coordinator speaks {version}, worker speaks {PROTOCOL_VERSION}"
            )));
        }
        if self.draining.load(Ordering::SeqCst) {
            return Err(Status::unavailable(DRAINING));
        }
        let permit = self
            .slots
            .clone()
            .acquire_owned()
            .await
            .map_err(|_| Status::unavailable("worker is shutting down"))?;
        if self.draining.load(Ordering::SeqCst) {
            return Err(Status::unavailable(DRAINING));
        }
        Ok(permit)
    }
}

/// A running RPC's liveness: a `Progress` event with the latest `done` / `total` every
/// `every`, even when an iteration (or a batch's chain) is slow; a closed stream (the
/// coordinator cancelled or vanished) sets `cancel`, which stops the chain between two
/// iterations.
struct Heartbeat {
    done: Arc<AtomicU64>,
    total: Arc<AtomicU64>,
    cancel: Arc<AtomicBool>,
    finished: oneshot::Sender<()>,
}

impl Heartbeat {
    fn start(tx: &mpsc::Sender<Result<ChainEvent, Status>>, every: Duration) -> Heartbeat {
        let done = Arc::new(AtomicU64::new(0));
        let total = Arc::new(AtomicU64::new(0));
        let cancel = Arc::new(AtomicBool::new(false));
        let (finished, mut finished_rx) = oneshot::channel::<()>();
        let (tx, d, t, c) = (tx.clone(), done.clone(), total.clone(), cancel.clone());
        tokio::spawn(async move {
            let mut tick = tokio::time::interval_at(tokio::time::Instant::now() + every, every);
            loop {
                tokio::select! {
                    _ = &mut finished_rx => return,
                    _ = tx.closed() => {
                        c.store(true, Ordering::Relaxed);
                        return;
                    }
                    _ = tick.tick() => {
                        let ev = ChainEvent {
                            event: Some(chain_event::Event::Progress(Progress {
                                done: d.load(Ordering::Relaxed),
                                total: t.load(Ordering::Relaxed),
                            })),
                        };
                        let _ = tx.try_send(Ok(ev));
                    }
                }
            }
        });
        Heartbeat {
            done,
            total,
            cancel,
            finished,
        }
    }

    /// The RPC has sent its last event: the heartbeat stops.
    fn finish(self) {
        let _ = self.finished.send(());
    }
}

/// Serve `service` on an already-bound listener until `shutdown` resolves, with no token and no
/// TLS: the embedded local mode, refused on a non-loopback listener ([`auth`] has the policy).
pub async fn serve_listener(
    service: WorkerService,
    listener: tokio::net::TcpListener,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    auth::serve_listener(
        service.into_server(),
        listener,
        &auth::Security::default(),
        shutdown,
    )
    .await
}

/// Bind `addr` and serve until `shutdown` resolves, with the token and TLS of `security`.
/// Refuses a non-loopback `addr` without a token unless `security.insecure`.
pub async fn serve(
    service: WorkerService,
    addr: SocketAddr,
    security: &auth::Security,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    security.check_listen(addr)?;
    let listener = tokio::net::TcpListener::bind(addr).await?;
    auth::serve_listener(service.into_server(), listener, security, shutdown).await
}

/// How a worker finds and keeps its place in a run (`causeway worker --coordinator URL`).
#[derive(Debug, Clone)]
pub struct Registration {
    /// The coordinator's URL (the content of `<run dir>/coordinator.url`).
    pub coordinator: String,
    /// `host:port` the coordinator connects back to.
    pub addr: String,
    pub worker_id: String,
    pub slots: u32,
    /// Time between two registrations (the worker's liveness signal).
    pub every: Duration,
    /// After a first successful registration, give up once the coordinator has been
    /// unreachable this long (the run is over or its coordinator died).
    pub give_up_after: Duration,
    /// Token and TLS for the registration calls (the coordinator requires the same token).
    pub security: auth::Security,
}

/// Why [`keep_registered`] returned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RegistrationEnd {
    /// The coordinator said its run is finished.
    RunFinished,
    /// The coordinator was reachable once, then unreachable for `give_up_after`.
    CoordinatorGone,
    /// The coordinator refused this worker (e.g. another protocol version), with its reason.
    Refused(String),
}

/// Why a registration call failed: the coordinator could not be reached (retried), or it
/// answered with a refusal of this worker's credentials (wrong or missing token).
enum RegisterError {
    Unreachable(String),
    Refused(String),
}

impl std::fmt::Display for RegisterError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RegisterError::Unreachable(m) | RegisterError::Refused(m) => f.write_str(m),
        }
    }
}

/// Refusals of the credentials in a row after which a worker gives up (about 10 s at the
/// default `--register-every 2`).
pub const MAX_REFUSALS: u32 = 5;

async fn register_once(
    reg: &Registration,
    draining: bool,
) -> Result<causeway_proto::v1::RegisterReply, RegisterError> {
    let call = async {
        let channel = auth::connect_authed(&reg.coordinator, &reg.security)
            .await
            .map_err(|e| RegisterError::Unreachable(e.to_string()))?;
        CoordinatorClient::new(channel)
            .register(RegisterRequest {
                protocol_version: PROTOCOL_VERSION,
                worker_id: reg.worker_id.clone(),
                addr: reg.addr.clone(),
                slots: reg.slots,
                draining,
            })
            .await
            .map_err(|s| {
                let m = format!("{}: {}", s.code(), s.message());
                match s.code() {
                    tonic::Code::Unauthenticated | tonic::Code::PermissionDenied => {
                        RegisterError::Refused(m)
                    }
                    _ => RegisterError::Unreachable(m),
                }
            })
    };
    let reply = tokio::time::timeout(Duration::from_secs(5), call)
        .await
        .map_err(|_| RegisterError::Unreachable("no answer within 5 s".to_string()))??
        .into_inner();
    Ok(reply)
}

/// Register with the coordinator now and every `reg.every`, retrying until it is reachable.
/// Returns when the run is finished, the coordinator is gone, or it refuses this worker.
pub async fn keep_registered(reg: &Registration) -> RegistrationEnd {
    let mut last_ok: Option<Instant> = None;
    let mut refusals = 0u32;
    loop {
        match register_once(reg, false).await {
            Ok(reply) if !reply.accepted => return RegistrationEnd::Refused(reply.message),
            Ok(reply) if reply.run_finished => return RegistrationEnd::RunFinished,
            Ok(reply) => {
                last_ok = Some(Instant::now());
                refusals = 0;
                // Accepted, but the coordinator could not reach this worker back (a wrong
                // --advertise): without this line the worker would idle silently.
                if !reply.message.is_empty() {
                    tracing::warn!("{}: {}", reg.coordinator, reply.message);
                }
            }
            // Wrong or missing token: said at once (it was logged nowhere until SIGTERM), and
            // after a few refusals in a row the worker gives up.
            Err(RegisterError::Refused(m)) => {
                refusals += 1;
                tracing::warn!(
                    "the coordinator {} refused this worker's credentials ({refusals}/{MAX_REFUSALS}): {m}",
                    reg.coordinator
                );
                if refusals >= MAX_REFUSALS {
                    return RegistrationEnd::Refused(m);
                }
            }
            Err(e) => {
                tracing::debug!("registering with {}: {e}", reg.coordinator);
                if last_ok.is_some_and(|t| t.elapsed() >= reg.give_up_after) {
                    return RegistrationEnd::CoordinatorGone;
                }
            }
        }
        tokio::time::sleep(reg.every).await;
    }
}

/// Tell the coordinator this worker is draining (best effort, a few seconds at most).
pub async fn deregister(reg: &Registration) {
    if let Err(e) = register_once(reg, true).await {
        tracing::warn!("deregistering from {}: {e}", reg.coordinator);
    }
}

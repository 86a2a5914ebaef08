//! # causeway-worker
//!
//! The thin gRPC side of a worker: it receives [`Job`]s, rebuilds the model's sampler from
//! `causeway-samplers`, runs the chain on a blocking thread (off the async runtime), and streams
//! progress and then one [`ChainResult`] back. It holds no state between jobs.
//!
//! A model that fails (numerical error, invalid state, even a panic) yields a result with
//! `ok = false` and the reason; the worker itself never goes down on bad input.

use std::net::SocketAddr;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::time::{Duration, Instant};

use causeway_proto::PROTOCOL_VERSION;
use causeway_proto::v1::worker_server::{Worker, WorkerServer};
use causeway_proto::v1::{
    ChainEvent, ChainResult, HelloReply, HelloRequest, Job, Progress, chain_event,
};
use causeway_samplers::{ChainOutput, Dataset, Matrix, RunSpec, chain_rng, registry, run_chain};
use tokio::sync::{Semaphore, mpsc};
use tokio_stream::wrappers::ReceiverStream;
use tonic::{Request, Response, Status};

pub mod auth;

/// Code version reported to coordinators: crate version plus the git commit if known at build.
pub const CODE_VERSION: &str = concat!(env!("CARGO_PKG_VERSION"), "+", env!("CAUSEWAY_GIT_COMMIT"));

/// Converts between the wire `Matrix` and the library's `Matrix`.
pub fn matrix_to_wire(m: &Matrix) -> causeway_proto::v1::Matrix {
    causeway_proto::v1::Matrix {
        name: m.name.clone(),
        rows: m.rows as u64,
        cols: m.cols as u64,
        values: m.values.clone(),
        row_names: m.row_names.clone(),
        col_names: m.col_names.clone(),
    }
}

/// Wire `Matrix` → library `Matrix`, checking that the shape fits the values.
pub fn matrix_from_wire(m: causeway_proto::v1::Matrix) -> Result<Matrix, String> {
    let out = Matrix {
        name: m.name,
        rows: usize::try_from(m.rows).map_err(|_| "matrix rows overflow".to_string())?,
        cols: usize::try_from(m.cols).map_err(|_| "matrix cols overflow".to_string())?,
        values: m.values,
        row_names: m.row_names,
        col_names: m.col_names,
    };
    out.check()?;
    Ok(out)
}

/// The worker service. `slots` chains may run at once (default 1: a local worker per core).
#[derive(Clone)]
pub struct WorkerService {
    id: String,
    slots: Arc<Semaphore>,
    n_slots: u32,
}

impl WorkerService {
    /// A worker called `id` that runs up to `slots` chains at once.
    pub fn new(id: impl Into<String>, slots: u32) -> Self {
        let n = slots.max(1);
        WorkerService {
            id: id.into(),
            slots: Arc::new(Semaphore::new(n as usize)),
            n_slots: n,
        }
    }

    /// The tonic server wrapper, with message limits large enough for real datasets.
    pub fn into_server(self) -> WorkerServer<Self> {
        WorkerServer::new(self)
            .max_decoding_message_size(256 << 20)
            .max_encoding_message_size(256 << 20)
    }
}

/// Everything that can go wrong before a chain starts, as the reason in a failed result.
fn prepare(
    job: &Job,
) -> Result<
    (
        &'static dyn registry::Model,
        serde_json::Value,
        RunSpec,
        Dataset,
    ),
    String,
> {
    let model = registry::model(&job.model).map_err(|e| e.to_string())?;
    let params: serde_json::Value =
        serde_json::from_str(&job.params_json).map_err(|e| format!("params_json: {e}"))?;
    let run: RunSpec = serde_json::from_str(&job.run_json).map_err(|e| format!("run_json: {e}"))?;
    let observed = job
        .observed
        .iter()
        .cloned()
        .map(matrix_from_wire)
        .collect::<Result<Vec<_>, _>>()?;
    Ok((
        model,
        params,
        run,
        Dataset {
            observed,
            truth: Vec::new(),
        },
    ))
}

/// Run one job to a result, synchronously. Used by the gRPC handler on a blocking thread, and
/// directly by tests and benchmarks.
pub fn execute(job: &Job, worker_id: &str, progress: &mut dyn FnMut(u64, u64)) -> ChainResult {
    let failed = |error: String| ChainResult {
        job_id: job.job_id.clone(),
        ok: false,
        error,
        worker_id: worker_id.to_string(),
        ..Default::default()
    };
    let (model, params, run, data) = match prepare(job) {
        Ok(x) => x,
        Err(e) => return failed(e),
    };
    let Some(seed) = job.seed else {
        return failed("job has no seed".into());
    };
    let mut rng = chain_rng(seed.base_seed, seed.cell, seed.replicate, seed.chain);
    let outcome = std::panic::catch_unwind(AssertUnwindSafe(|| {
        let mut sampler = model
            .sampler(&params, &data, &mut rng)
            .map_err(|e| e.to_string())?;
        run_chain(sampler.as_mut(), &run, &mut rng, progress).map_err(|e| e.to_string())
    }));
    match outcome {
        Ok(Ok(out)) => to_result(job, worker_id, out),
        Ok(Err(e)) => failed(e),
        Err(panic) => {
            let msg = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".into());
            failed(format!("sampler panicked: {msg}"))
        }
    }
}

fn to_result(job: &Job, worker_id: &str, out: ChainOutput) -> ChainResult {
    ChainResult {
        job_id: job.job_id.clone(),
        ok: true,
        error: String::new(),
        trace_names: out.trace_names,
        iterations: out.iterations,
        trace: out.trace,
        summary: out.summary.iter().map(matrix_to_wire).collect(),
        elapsed_seconds: out.elapsed_seconds,
        worker_id: worker_id.to_string(),
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
        let job = req.into_inner();
        if job.protocol_version != PROTOCOL_VERSION {
            return Err(Status::failed_precondition(format!(
                "protocol version mismatch: coordinator speaks {}, worker speaks {PROTOCOL_VERSION}",
                job.protocol_version
            )));
        }
        let permit = self
            .slots
            .clone()
            .acquire_owned()
            .await
            .map_err(|_| Status::unavailable("worker is shutting down"))?;
        let (tx, rx) = mpsc::channel(16);
        let id = self.id.clone();
        tokio::task::spawn_blocking(move || {
            let _permit = permit;
            let mut last = Instant::now();
            let progress_tx = tx.clone();
            let mut progress = |done: u64, total: u64| {
                // At most ~5 progress events a second; never block the chain on a slow reader.
                if done == total || last.elapsed() >= Duration::from_millis(200) {
                    last = Instant::now();
                    let ev = ChainEvent {
                        event: Some(chain_event::Event::Progress(Progress { done, total })),
                    };
                    let _ = progress_tx.try_send(Ok(ev));
                }
            };
            let result = execute(&job, &id, &mut progress);
            let _ = tx.blocking_send(Ok(ChainEvent {
                event: Some(chain_event::Event::Result(result)),
            }));
        });
        Ok(Response::new(ReceiverStream::new(rx)))
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

//! Dispatch: send jobs to gRPC workers, retry a chain whose RPC fails on another worker, and
//! hand every result to the caller as it arrives.
//!
//! Each worker gets one task per slot. A task pulls the next job from a shared queue, runs it
//! with `RunChain`, and forwards the streamed result. If the RPC fails (worker gone, connection
//! reset), the job goes back to the queue and that task stops taking work, so the retry lands on
//! another worker. A chain's result depends only on its seed, never on the worker or the order.

use std::collections::VecDeque;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use causeway_proto::PROTOCOL_VERSION;
use causeway_proto::v1::worker_client::WorkerClient;
use causeway_proto::v1::{ChainResult, HelloRequest, Job, chain_event};
use causeway_worker::auth::{self, AuthedChannel, Security};
use tokio::sync::{Mutex, Notify, mpsc};

/// A connected worker.
#[derive(Clone, Debug)]
pub struct WorkerHandle {
    pub addr: String,
    pub id: String,
    pub slots: u32,
    pub client: WorkerClient<AuthedChannel>,
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
    Ok(WorkerHandle {
        addr: addr.to_string(),
        id: hello.worker_id,
        slots: hello.slots.max(1),
        client,
    })
}

/// A job waiting to run, with its attempt count.
#[derive(Debug, Clone)]
pub struct Pending {
    /// Index of the job in the plan.
    pub index: usize,
    pub job: Job,
    pub attempts: u32,
}

/// What became of a job.
#[derive(Debug)]
pub enum Outcome {
    /// The worker ran the chain (its result may still say the model failed: `ok = false`).
    Finished {
        index: usize,
        attempts: u32,
        result: ChainResult,
    },
    /// Every attempt's RPC failed, or no worker was left.
    Lost {
        index: usize,
        attempts: u32,
        worker: String,
        error: String,
    },
}

/// Dispatch options.
#[derive(Debug, Clone, Copy)]
pub struct DispatchOptions {
    /// RPC attempts per job before it is reported lost.
    pub max_attempts: u32,
}

impl Default for DispatchOptions {
    fn default() -> Self {
        DispatchOptions { max_attempts: 3 }
    }
}

struct Shared {
    queue: Mutex<VecDeque<Pending>>,
    /// Jobs not yet finished or lost.
    remaining: AtomicUsize,
    wake: Notify,
    opts: DispatchOptions,
}

/// Run `jobs` on `workers`; every outcome is sent on `out` as soon as it is known. Returns when
/// every job has an outcome (jobs left when all workers have failed are reported lost).
pub async fn dispatch(
    workers: Vec<WorkerHandle>,
    jobs: Vec<Pending>,
    opts: DispatchOptions,
    out: mpsc::Sender<Outcome>,
) {
    let shared = Arc::new(Shared {
        remaining: AtomicUsize::new(jobs.len()),
        queue: Mutex::new(jobs.into()),
        wake: Notify::new(),
        opts,
    });
    let mut tasks = Vec::new();
    for w in workers {
        for _ in 0..w.slots {
            let shared = shared.clone();
            let out = out.clone();
            let w = w.clone();
            tasks.push(tokio::spawn(async move { slot_loop(w, shared, out).await }));
        }
    }
    for t in tasks {
        let _ = t.await;
    }
    // No worker left: whatever is still queued is lost.
    let mut q = shared.queue.lock().await;
    while let Some(p) = q.pop_front() {
        let _ = out
            .send(Outcome::Lost {
                index: p.index,
                attempts: p.attempts,
                worker: String::new(),
                error: "no worker left to run this chain".into(),
            })
            .await;
    }
}

async fn slot_loop(mut w: WorkerHandle, shared: Arc<Shared>, out: mpsc::Sender<Outcome>) {
    loop {
        let next = shared.queue.lock().await.pop_front();
        let Some(mut p) = next else {
            if shared.remaining.load(Ordering::SeqCst) == 0 {
                return;
            }
            // Another slot may still hand a job back: wait for news.
            let _ = tokio::time::timeout(Duration::from_millis(200), shared.wake.notified()).await;
            continue;
        };
        p.attempts += 1;
        match run_one(&mut w.client, p.job.clone()).await {
            Ok(result) => {
                shared.remaining.fetch_sub(1, Ordering::SeqCst);
                shared.wake.notify_waiters();
                let _ = out
                    .send(Outcome::Finished {
                        index: p.index,
                        attempts: p.attempts,
                        result,
                    })
                    .await;
            }
            Err(error) => {
                tracing::warn!(worker = %w.addr, job = %p.job.job_id, attempt = p.attempts, "chain RPC failed: {error}");
                if p.attempts >= shared.opts.max_attempts {
                    shared.remaining.fetch_sub(1, Ordering::SeqCst);
                    let _ = out
                        .send(Outcome::Lost {
                            index: p.index,
                            attempts: p.attempts,
                            worker: w.addr.clone(),
                            error,
                        })
                        .await;
                } else {
                    shared.queue.lock().await.push_back(p);
                }
                shared.wake.notify_waiters();
                // This worker failed an RPC: stop giving it work so the retry goes elsewhere.
                return;
            }
        }
    }
}

async fn run_one(
    client: &mut WorkerClient<AuthedChannel>,
    job: Job,
) -> Result<ChainResult, String> {
    let mut stream = client
        .run_chain(job)
        .await
        .map_err(|s| format!("{}: {}", s.code(), s.message()))?
        .into_inner();
    loop {
        match stream.message().await {
            Ok(Some(ev)) => {
                if let Some(chain_event::Event::Result(r)) = ev.event {
                    return Ok(r);
                }
            }
            Ok(None) => return Err("worker closed the stream before sending a result".into()),
            Err(s) => return Err(format!("{}: {}", s.code(), s.message())),
        }
    }
}

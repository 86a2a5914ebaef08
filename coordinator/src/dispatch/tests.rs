//! Dispatch over real gRPC on loopback: single chains and batches.

use super::*;
use causeway_proto::v1::worker_server::{Worker, WorkerServer};
use causeway_proto::v1::{ChainEvent, HelloReply};
use tokio_stream::wrappers::ReceiverStream;
use tonic::{Request, Response, Status};

/// A worker that accepts a chain only when the test opens its gate, then finishes it at once.
#[derive(Clone)]
struct GatedWorker(Arc<Notify>);

#[tonic::async_trait]
impl Worker for GatedWorker {
    async fn hello(&self, _: Request<HelloRequest>) -> Result<Response<HelloReply>, Status> {
        Ok(Response::new(HelloReply {
            protocol_version: PROTOCOL_VERSION,
            worker_id: "gated".into(),
            slots: 1,
            ..Default::default()
        }))
    }

    type RunChainStream = ReceiverStream<Result<ChainEvent, Status>>;

    async fn run_chain(&self, _: Request<Job>) -> Result<Response<Self::RunChainStream>, Status> {
        self.0.notified().await;
        let (tx, rx) = mpsc::channel(1);
        let result = ChainResult {
            ok: true,
            ..Default::default()
        };
        let _ = tx
            .send(Ok(ChainEvent {
                event: Some(chain_event::Event::Result(result)),
            }))
            .await;
        Ok(Response::new(ReceiverStream::new(rx)))
    }

    type RunBatchStream = ReceiverStream<Result<ChainEvent, Status>>;

    async fn run_batch(
        &self,
        _: Request<causeway_proto::v1::JobBatch>,
    ) -> Result<Response<Self::RunBatchStream>, Status> {
        Err(Status::unimplemented("one chain at a time"))
    }
}

/// `running` in jobs.sqlite must mean that a worker holds the chain: a worker told to drain
/// between the coordinator's send and its own acceptance exits without the chain, which
/// then fails as an RPC error (CI saw a drained worker's chain counted as a failed attempt).
#[tokio::test]
async fn a_chain_is_started_only_once_the_worker_has_accepted_it() {
    let gate = Arc::new(Notify::new());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr").to_string();
    let service = WorkerServer::new(GatedWorker(gate.clone()));
    tokio::spawn(async move {
        let sec = Security::default();
        auth::serve_listener(service, listener, &sec, std::future::pending()).await
    });
    let worker = connect(&addr).await.expect("connect");
    let (wtx, wrx) = mpsc::channel(1);
    wtx.send(worker).await.expect("send worker");
    let (_stop_tx, stop) = watch::channel(false);
    let (out, mut events) = mpsc::channel(16);
    let build: JobBuilder = Arc::new(|_| WireJob::default());
    let run = tokio::spawn(dispatch(
        wrx,
        vec![0],
        1,
        build,
        DispatchOptions::default(),
        HashMap::new(),
        stop,
        out,
    ));
    let early = tokio::time::timeout(Duration::from_millis(500), events.recv()).await;
    assert!(
        early.is_err(),
        "an event before the worker accepted the chain: {early:?}"
    );
    gate.notify_one();
    let first = events.recv().await.expect("an event");
    assert!(
        matches!(
            first,
            Outcome::Row(Event::Started {
                index: 0,
                attempt: 1,
                ..
            })
        ),
        "{first:?}"
    );
    let second = events.recv().await.expect("an event");
    assert!(
        matches!(
            second,
            Outcome::Finished {
                index: 0,
                attempts: 1,
                ..
            }
        ),
        "{second:?}"
    );
    drop(wtx);
    run.await.expect("dispatch ends");
}

/// A worker whose chains finish at once (`ok`, empty rows): `run_batch` answers each job in
/// order, `per_message` results to a message (1: the one-result `result` event), and after
/// `fail_after` results of a batch breaks the call, as a worker that dies mid-batch does; with
/// `swap`, it answers a batch's second and third jobs in each other's place; with `slow`, every
/// call waits 40 ms before it answers (as a busy coordinator's calls take long). Each chain
/// reports `elapsed` seconds of sampling. Counts its calls.
#[derive(Clone)]
struct InstantWorker {
    id: &'static str,
    fail_after: Option<usize>,
    per_message: usize,
    swap: bool,
    slow: bool,
    elapsed: f64,
    singles: Arc<AtomicUsize>,
    batches: Arc<AtomicUsize>,
}

fn ok_result(job_id: String, elapsed: f64) -> ChainResult {
    ChainResult {
        job_id,
        ok: true,
        elapsed_seconds: vec![elapsed],
        ..Default::default()
    }
}

fn instant_result(job_id: String, elapsed: f64) -> Result<ChainEvent, Status> {
    Ok(ChainEvent {
        event: Some(chain_event::Event::Result(ok_result(job_id, elapsed))),
    })
}

/// `ids`' results in one event: the one-result `result` event for one, `results` for more.
fn results_event(ids: Vec<String>, elapsed: f64) -> Result<ChainEvent, Status> {
    let mut results: Vec<ChainResult> = ids.into_iter().map(|id| ok_result(id, elapsed)).collect();
    if results.len() == 1 {
        return Ok(ChainEvent {
            event: results.pop().map(chain_event::Event::Result),
        });
    }
    Ok(ChainEvent {
        event: Some(chain_event::Event::Results(
            causeway_proto::v1::ChainResults { results },
        )),
    })
}

#[tonic::async_trait]
impl Worker for InstantWorker {
    async fn hello(&self, _: Request<HelloRequest>) -> Result<Response<HelloReply>, Status> {
        Ok(Response::new(HelloReply {
            protocol_version: PROTOCOL_VERSION,
            worker_id: self.id.into(),
            slots: 2,
            ..Default::default()
        }))
    }

    type RunChainStream = ReceiverStream<Result<ChainEvent, Status>>;

    async fn run_chain(&self, r: Request<Job>) -> Result<Response<Self::RunChainStream>, Status> {
        self.singles.fetch_add(1, Ordering::SeqCst);
        if self.slow {
            tokio::time::sleep(Duration::from_millis(40)).await;
        }
        let (tx, rx) = mpsc::channel(1);
        let _ = tx
            .send(instant_result(r.into_inner().job_id, self.elapsed))
            .await;
        Ok(Response::new(ReceiverStream::new(rx)))
    }

    type RunBatchStream = ReceiverStream<Result<ChainEvent, Status>>;

    async fn run_batch(
        &self,
        r: Request<causeway_proto::v1::JobBatch>,
    ) -> Result<Response<Self::RunBatchStream>, Status> {
        self.batches.fetch_add(1, Ordering::SeqCst);
        if self.slow {
            tokio::time::sleep(Duration::from_millis(40)).await;
        }
        let batch = r.into_inner();
        let (tx, rx) = mpsc::channel(batch.jobs.len() + 1);
        let mut ids: Vec<String> = batch.jobs.into_iter().map(|j| j.job_id).collect();
        if self.swap && ids.len() > 2 {
            ids.swap(1, 2);
        }
        let mut pending = Vec::new();
        for (k, id) in ids.into_iter().enumerate() {
            if self.fail_after == Some(k) {
                if !pending.is_empty() {
                    let _ = tx
                        .send(results_event(std::mem::take(&mut pending), self.elapsed))
                        .await;
                }
                let _ = tx
                    .send(Err(Status::unavailable("the host went away")))
                    .await;
                return Ok(Response::new(ReceiverStream::new(rx)));
            }
            pending.push(id);
            if pending.len() == self.per_message {
                let _ = tx
                    .send(results_event(std::mem::take(&mut pending), self.elapsed))
                    .await;
            }
        }
        if !pending.is_empty() {
            let _ = tx.send(results_event(pending, self.elapsed)).await;
        }
        Ok(Response::new(ReceiverStream::new(rx)))
    }
}

async fn serve_instant(w: InstantWorker) -> WorkerHandle {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr").to_string();
    tokio::spawn(async move {
        let sec = Security::default();
        auth::serve_listener(WorkerServer::new(w), listener, &sec, std::future::pending()).await
    });
    connect(&addr).await.expect("connect")
}

fn instant(id: &'static str, fail_after: Option<usize>) -> InstantWorker {
    InstantWorker {
        id,
        fail_after,
        per_message: 1,
        swap: false,
        slow: false,
        elapsed: 1e-5,
        singles: Arc::new(AtomicUsize::new(0)),
        batches: Arc::new(AtomicUsize::new(0)),
    }
}

/// Dispatch `n` jobs on `workers`; returns every outcome.
async fn dispatch_all(workers: Vec<WorkerHandle>, n: usize) -> Vec<Outcome> {
    let (wtx, wrx) = mpsc::channel(workers.len().max(1));
    for w in workers {
        wtx.send(w).await.expect("send worker");
    }
    drop(wtx);
    let (_stop_tx, stop) = watch::channel(false);
    let (out, mut events) = mpsc::channel(64);
    let build: JobBuilder = Arc::new(|i| WireJob {
        job: Job {
            job_id: format!("job-{i}"),
            ..Default::default()
        },
        observed: Observed::default(),
    });
    let run = tokio::spawn(dispatch(
        wrx,
        (0..n).collect(),
        n,
        build,
        DispatchOptions::default(),
        HashMap::new(),
        stop,
        out,
    ));
    let mut all = Vec::new();
    let collect = async {
        while let Some(o) = events.recv().await {
            all.push(o);
        }
    };
    // A chain dropped on the floor keeps dispatch waiting for it: fail instead of hanging.
    tokio::time::timeout(Duration::from_secs(60), collect)
        .await
        .expect("dispatch settles every chain within 60 s");
    run.await.expect("dispatch ends");
    all
}

/// Every chain finished exactly once, none failed or lost.
fn each_finished_once(all: &[Outcome], n: usize) {
    let mut seen = vec![0u32; n];
    for o in all {
        match o {
            Outcome::Finished { index, result, .. } => {
                assert_eq!(result.job_id, format!("job-{index}"));
                seen[*index] += 1;
            }
            Outcome::Row(Event::Failed { .. } | Event::Lost { .. }) => panic!("{o:?}"),
            _ => {}
        }
    }
    assert!(seen.iter().all(|&c| c == 1), "finished counts: {seen:?}");
}

/// Dispatch `n` jobs on `w` alone, each finishing once; returns its single and batch calls.
async fn calls_for(w: InstantWorker, n: usize) -> (usize, usize) {
    let (singles, batches) = (w.singles.clone(), w.batches.clone());
    let all = dispatch_all(vec![serve_instant(w).await], n).await;
    each_finished_once(&all, n);
    (
        singles.load(Ordering::SeqCst),
        batches.load(Ordering::SeqCst),
    )
}

/// Chains that finish in a fraction of an RPC go in batches: far fewer calls than chains.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn short_chains_travel_in_batches() {
    let n = 5_000;
    let (s, b) = calls_for(instant("fast", None), n).await;
    assert!(b > 0, "no batch: {s} single calls");
    assert!(
        s + b < n / 10,
        "{s} single calls and {b} batches for {n} chains"
    );
}

/// Chains go in batches by the workers' own seconds a chain, not by the calls' wall time: calls
/// that take longer than a batch's aim (a coordinator busy with many slots) still batch chains
/// of 10 µs.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn short_chains_are_batched_by_their_own_time_not_the_calls() {
    let w = InstantWorker {
        slow: true,
        ..instant("slow calls", None)
    };
    assert!(Duration::from_millis(40) > batch::BATCH_WALL);
    let n = 400;
    let (s, b) = calls_for(w, n).await;
    assert!(
        b > 0 && s + b < n / 4,
        "{s} single calls and {b} batches for {n} chains"
    );
}

/// A worker's sampling seconds are its own figures: one too large for a `Duration` (or not a
/// number) paces by the call's wall time instead, and panics nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn absurd_sampling_seconds_from_a_worker_are_survived() {
    for elapsed in [1e300, f64::NAN, -1.0] {
        let w = InstantWorker {
            elapsed,
            ..instant("absurd", None)
        };
        calls_for(w, 50).await;
    }
}

/// A worker that breaks every batch call after 3 results: those chains are kept, the rest of
/// each batch is requeued with one attempt counted and finishes on the other worker; no chain
/// is lost or finished twice.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_worker_lost_mid_batch_loses_no_chain() {
    let bad = instant("dies-mid-batch", Some(3));
    let bad_batches = bad.batches.clone();
    let good = instant("good", None);
    let n = 3_000;
    let all = dispatch_all(vec![serve_instant(bad).await, serve_instant(good).await], n).await;
    each_finished_once(&all, n);
    assert!(
        bad_batches.load(Ordering::SeqCst) > 0,
        "the bad worker got no batch"
    );
    let requeued = all
        .iter()
        .filter(|o| matches!(o, Outcome::Row(Event::Requeued { attempts: 1, worker, .. }) if worker == "dies-mid-batch"))
        .count();
    assert!(requeued > 0, "nothing was requeued from the broken batch");
    let retried = all
        .iter()
        .any(|o| matches!(o, Outcome::Finished { attempts: 2, .. }));
    assert!(retried, "no requeued chain finished on its second attempt");
}

/// Results several to a message (as the worker sends them) settle each chain once, also when
/// the worker breaks the call in the middle of a batch.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn results_several_to_a_message_settle_each_chain_once() {
    let grouped = InstantWorker {
        per_message: 7,
        ..instant("grouped", None)
    };
    let breaks = InstantWorker {
        per_message: 5,
        ..instant("grouped-dies", Some(12))
    };
    let batches = grouped.batches.clone();
    let n = 3_000;
    let all = dispatch_all(
        vec![serve_instant(grouped).await, serve_instant(breaks).await],
        n,
    )
    .await;
    each_finished_once(&all, n);
    assert!(batches.load(Ordering::SeqCst) > 0, "no batch");
}

/// A worker whose grouped answer puts a batch's chains out of order: the chains before the
/// first one out of place are kept, the rest requeued with one attempt counted and finished on
/// the other worker; none is stored under another chain's id.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_batch_answered_out_of_order_loses_no_chain() {
    let bad = InstantWorker {
        per_message: 4,
        swap: true,
        ..instant("swaps", None)
    };
    let good = instant("good", None);
    let n = 2_000;
    let all = dispatch_all(vec![serve_instant(bad).await, serve_instant(good).await], n).await;
    each_finished_once(&all, n);
    let requeued = all
        .iter()
        .filter(|o| matches!(o, Outcome::Row(Event::Requeued { attempts: 1, worker, .. }) if worker == "swaps"))
        .count();
    assert!(
        requeued > 0,
        "nothing was requeued from the out-of-order batch"
    );
}

//! End to end: a coordinator and real gRPC workers on ephemeral loopback ports. The same YAML
//! run on 1 worker, on 3 workers, and on a flaky worker plus a good one must give byte-identical
//! per-chain Parquet (and datasets).

use std::collections::BTreeMap;
use std::path::Path;

use causeway_coordinator::experiment::{Plan, ProfileName, plan_from_str};
use causeway_coordinator::runner::{RunOptions, Workers, run, start_local_workers};
use causeway_proto::v1::worker_server::{Worker, WorkerServer};
use causeway_proto::v1::{ChainEvent, HelloReply, HelloRequest, Job, JobBatch};
use tonic::{Request, Response, Status};

const YAML: &str = r#"
name: e2e
model: wood2006
seed: 7
chains: 2
replicates: 2
run: {iterations: 40, burn_in: 10, thin: 2}
params: {sampler: gibbs, alpha: 1.0, lambda: 0.9, epsilon: 0.01, p: 0.1, init: empty}
dataset: {kind: ibp_synthetic, n_observed: 5, n_trials: 20, alpha: 1.0, lambda: 0.9, epsilon: 0.01, p: 0.1, k_plus: 2}
grid:
  product:
    params.sampler: [gibbs, rjmcmc]
    params.update_hyperparameters: [false, true]
monitor: [k_plus, log_joint]
profiles: {quick: {}, paper: {}}
"#;

fn files(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    for sub in ["chains", "datasets"] {
        let mut entries: Vec<_> = std::fs::read_dir(dir.join(sub))
            .expect("run dir")
            .flatten()
            .collect();
        entries.sort_by_key(|e| e.file_name());
        for e in entries {
            out.insert(
                format!("{sub}/{}", e.file_name().to_string_lossy()),
                std::fs::read(e.path()).expect("read"),
            );
        }
    }
    out
}

fn opts(out: &Path, workers: Workers) -> RunOptions {
    RunOptions::new(out, workers)
}

/// The quick profile of experiment `yaml`.
fn quick(yaml: &str) -> Plan {
    plan_from_str(
        Path::new("e2e.yaml"),
        yaml,
        ProfileName::Quick,
        Some(Path::new(".")),
    )
    .expect("valid YAML")
}

/// Serve `worker` on a loopback port; returns its address.
async fn serve<W: Worker>(worker: W) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr").to_string();
    tokio::spawn(async move {
        let incoming = tokio_stream::wrappers::TcpListenerStream::new(listener);
        let _ = tonic::transport::Server::builder()
            .add_service(WorkerServer::new(worker))
            .serve_with_incoming(incoming)
            .await;
    });
    addr
}

/// A worker that greets properly and then fails every chain RPC, as a dying host would.
struct Flaky;

#[tonic::async_trait]
impl Worker for Flaky {
    async fn hello(&self, _r: Request<HelloRequest>) -> Result<Response<HelloReply>, Status> {
        Ok(Response::new(HelloReply {
            protocol_version: causeway_proto::PROTOCOL_VERSION,
            worker_id: "flaky".into(),
            code_version: "test".into(),
            models: vec![],
            slots: 2,
        }))
    }
    type RunChainStream = tokio_stream::wrappers::ReceiverStream<Result<ChainEvent, Status>>;
    async fn run_chain(&self, _r: Request<Job>) -> Result<Response<Self::RunChainStream>, Status> {
        Err(Status::unavailable("flaky worker: connection reset"))
    }
    type RunBatchStream = tokio_stream::wrappers::ReceiverStream<Result<ChainEvent, Status>>;
    async fn run_batch(
        &self,
        _r: Request<JobBatch>,
    ) -> Result<Response<Self::RunBatchStream>, Status> {
        Err(Status::unavailable("flaky worker: connection reset"))
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn same_bytes_on_one_three_and_flaky_workers() {
    let plan = quick(YAML);
    assert_eq!(plan.manifest.cells.len(), 4);
    let tmp = tempfile::tempdir().expect("tempdir");
    let (a, b, c) = (
        tmp.path().join("one"),
        tmp.path().join("three"),
        tmp.path().join("flaky"),
    );

    let s1 = run(&plan, &opts(&a, Workers::Local(1)))
        .await
        .expect("run on 1 worker");
    assert_eq!(s1.total, 16);
    assert_eq!(s1.ok, 16, "failures: {:?}", s1.failed);
    let s3 = run(&plan, &opts(&b, Workers::Local(3)))
        .await
        .expect("run on 3 workers");
    assert_eq!(s3.ok, 16);

    // A flaky remote worker beside a good one: every chain it drops is retried elsewhere.
    let flaky_addr = serve(Flaky).await;
    let (good, _stops) = start_local_workers(1).await.expect("local worker");
    let sf = run(
        &plan,
        &opts(&c, Workers::Remote(vec![flaky_addr, good[0].clone()])),
    )
    .await
    .expect("run with flaky");
    assert_eq!(sf.ok, 16, "failures: {:?}", sf.failed);
    let jobs_csv = std::fs::read_to_string(c.join("jobs.csv")).expect("jobs.csv");
    assert!(
        jobs_csv.lines().skip(1).any(|l| l.contains(",2,")),
        "some chain needed a second attempt:\n{jobs_csv}"
    );

    let (fa, fb, fc) = (files(&a), files(&b), files(&c));
    // 2 Parquet files per chain (a shard each: the trace, its small summaries in the footer,
    // and the summary file for the larger ones); the 4 cells share one dataset spec: 2
    // replicates × (observed, truth).
    assert_eq!(fa.len(), 2 * 16 + 2 * 2);
    assert_eq!(fa.keys().collect::<Vec<_>>(), fb.keys().collect::<Vec<_>>());
    for (k, v) in &fa {
        assert!(fb[k] == *v, "{k} differs between 1 and 3 workers");
        assert!(fc[k] == *v, "{k} differs with a flaky worker");
    }
    // The manifest records every chain's seed and the code version.
    let manifest = std::fs::read_to_string(a.join("manifest.json")).expect("manifest");
    assert!(manifest.contains("\"base_seed\": 7") && manifest.contains("code_version"));
    assert!(a.join("tables/report.md").exists() && a.join("tables/convergence.csv").exists());
    let cost = std::fs::read_to_string(a.join("cost.md")).expect("cost.md");
    assert!(cost.contains("16 stored chains"), "{cost}");

    // Rerunning on a finished directory runs nothing again.
    let again = run(&plan, &opts(&a, Workers::Local(1)))
        .await
        .expect("resume");
    assert_eq!((again.skipped, again.ok), (16, 0));
    assert_eq!(files(&a), fa);
}

/// Paper 004 (`dallaire2014`): the CIBP/eCIBP MCMC (with its fantasy-data KL drawn from the
/// chain's second stream) and the DP mixture give byte-identical chain files on 1 and 3 workers.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dallaire2014_same_bytes_on_one_and_three_workers() {
    const D14: &str = r#"
name: e2e_dallaire2014
model: dallaire2014
seed: 11
chains: 2
replicates: 1
run: {iterations: 30, burn_in: 10, thin: 5}
params: {method: mcmc, prior: ecibp}
dataset: {kind: ring, n_train: 60, n_test: 40}
grid:
  product:
    params.method: [mcmc, dpmog]
    params.prior: [ecibp, cibp]
monitor: [kl]
report: [dallaire2014.table1, dallaire2014.table2]
profiles: {quick: {}, paper: {}}
"#;
    let plan = quick(D14);
    let tmp = tempfile::tempdir().expect("tempdir");
    let (a, b) = (tmp.path().join("one"), tmp.path().join("three"));
    let s1 = run(&plan, &opts(&a, Workers::Local(1)))
        .await
        .expect("run on 1 worker");
    assert_eq!((s1.total, s1.ok), (8, 8), "failures: {:?}", s1.failed);
    let s3 = run(&plan, &opts(&b, Workers::Local(3)))
        .await
        .expect("run on 3 workers");
    assert_eq!(s3.ok, 8, "failures: {:?}", s3.failed);
    let (fa, fb) = (files(&a), files(&b));
    assert_eq!(fa.keys().collect::<Vec<_>>(), fb.keys().collect::<Vec<_>>());
    for (k, v) in &fa {
        assert!(fb[k] == *v, "{k} differs between 1 and 3 workers");
    }
    let table = std::fs::read_to_string(a.join("tables/table1_kl.csv")).expect("table1_kl.csv");
    for method in ["ecibp", "cibp", "dpmog"] {
        assert!(table.contains(&format!("ring,{method},")), "{table}");
    }
    // Table 2 counts hidden units (§5.1): n_units less the ring's D = 2 observed units.
    let t2 = std::fs::read_to_string(a.join("tables/table2_structure.csv")).expect("table2");
    let mut lines = t2.lines();
    let head: Vec<&str> = lines.next().expect("header").split(',').collect();
    let col = |name: &str| head.iter().position(|h| *h == name).expect(name);
    let (hidden, all) = (col("hidden_units_mean"), col("n_units_mean"));
    let mut rows = 0;
    for line in lines {
        let v: Vec<&str> = line.split(',').collect();
        let (h, n): (f64, f64) = (
            v[hidden].parse().expect("f64"),
            v[all].parse().expect("f64"),
        );
        assert!(
            (n - h - 2.0).abs() < 1e-9,
            "hidden {h} against all units {n}: {t2}"
        );
        rows += 1;
    }
    assert_eq!(rows, 2, "one row per prior: {t2}");
    // `causeway report` rebuilds the same tables in a run directory that lost its tables/.
    std::fs::remove_dir_all(a.join("tables")).expect("remove tables/");
    causeway_results::report::build(&causeway_results::rundir::RunDir::open(&a))
        .expect("report without tables/");
    assert_eq!(
        std::fs::read_to_string(a.join("tables/table1_kl.csv")).expect("rebuilt"),
        table
    );
}

/// A real worker that keeps a single dataset (the newest) between calls, and counts the calls it
/// answers with `FAILED_PRECONDITION: observed data not kept`.
struct Forgetful {
    real: causeway_worker::WorkerService,
    not_kept: std::sync::Arc<std::sync::atomic::AtomicUsize>,
}

impl Forgetful {
    fn count<T>(&self, r: Result<T, Status>) -> Result<T, Status> {
        if let Err(s) = &r
            && s.code() == tonic::Code::FailedPrecondition
            && s.message().starts_with(causeway_proto::NOT_CACHED)
        {
            self.not_kept
                .fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        }
        r
    }
}

#[tonic::async_trait]
impl Worker for Forgetful {
    async fn hello(&self, r: Request<HelloRequest>) -> Result<Response<HelloReply>, Status> {
        self.real.hello(r).await
    }
    type RunChainStream = <causeway_worker::WorkerService as Worker>::RunChainStream;
    async fn run_chain(&self, r: Request<Job>) -> Result<Response<Self::RunChainStream>, Status> {
        let answer = self.real.run_chain(r).await;
        self.count(answer)
    }
    type RunBatchStream = <causeway_worker::WorkerService as Worker>::RunBatchStream;
    async fn run_batch(
        &self,
        r: Request<JobBatch>,
    ) -> Result<Response<Self::RunBatchStream>, Status> {
        let answer = self.real.run_batch(r).await;
        self.count(answer)
    }
}

/// A worker keeps a chain's observed data under their content key, and the coordinator then
/// sends the key alone; a worker that no longer keeps them (restarted, or evicted them) is sent
/// them again, without an attempt counted: the same bytes as a run on a local worker.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_worker_that_forgets_observed_data_is_sent_them_again() {
    let plan = quick(YAML);
    let tmp = tempfile::tempdir().expect("tempdir");
    let (a, b) = (tmp.path().join("local"), tmp.path().join("forgetful"));
    let s1 = run(&plan, &opts(&a, Workers::Local(1)))
        .await
        .expect("run on 1 worker");
    assert_eq!(s1.ok, 16, "failures: {:?}", s1.failed);

    // The 2 replicates' datasets alternate in the plan; this worker keeps only the newest.
    let not_kept = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let worker = Forgetful {
        real: causeway_worker::WorkerService::new("forgetful", 2).with_kept_bytes(0),
        not_kept: not_kept.clone(),
    };
    let addr = serve(worker).await;
    let s2 = run(&plan, &opts(&b, Workers::Remote(vec![addr])))
        .await
        .expect("run on the forgetful worker");
    assert_eq!(s2.ok, 16, "failures: {:?}", s2.failed);
    assert!(
        not_kept.load(std::sync::atomic::Ordering::SeqCst) > 0,
        "the worker was asked for data it no longer kept"
    );
    let jobs_csv = std::fs::read_to_string(b.join("jobs.csv")).expect("jobs.csv");
    assert!(
        jobs_csv.lines().skip(1).all(|l| !l.contains(",2,")),
        "no chain counted a second attempt:\n{jobs_csv}"
    );
    assert_eq!(files(&a), files(&b));
}

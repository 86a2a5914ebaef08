//! The cluster case on one machine: one coordinator (this process) driven by simulated workers
//! (child processes on loopback gRPC) that answer at once, so that the run's pace and CPU are
//! the coordinator's own, as on a cluster of many cores.
//!
//! A simulated worker runs each distinct chain shape once with the real sampler (one per model,
//! `params.method` and observed-data size) and answers every later chain of that shape with that
//! result under the chain's job id: the coordinator receives, vets, journals and seals results
//! of exactly the sizes a real run sends (for paper 003's Cause-Effect Pairs grid, a trace row, a
//! `sample_stats` row and VB's `r_marginals`), without waiting for any sampling. Each grid runs
//! twice against the same workers, and only the second run is measured: the first (the
//! warm-up, from a coordinator process of its own) is where the workers sample each shape.
//!
//! Prints, per grid: chains, wall seconds, chains/s, the coordinator's CPU seconds (user +
//! system of this process, from `/proc/self/stat`, and each apart: system time is the
//! kernel's, mostly the file system's) and its CPU per chain, the workers' CPU in the measured
//! run, and the coordinator's peak RSS (this process's so far: set `CLUSTER_GRIDS` to one grid
//! for that grid's own).
//!
//! `cargo bench -p causeway-tests --bench cluster` (also in `make bench`). `CLUSTER_WORKERS`
//! (default 4) worker processes of `CLUSTER_SLOTS` (default 64) slots each; `CLUSTER_GRIDS` a
//! comma-separated subset of `cep_shaped,near_empty` (default both); `CLUSTER_CHAINS` the
//! near-empty grid's size (default 100,000); `CLUSTER_WARMUP=0` measures the first run, the
//! workers' sampling in it. The run directory is a temporary directory under
//! `TMPDIR` (default `/tmp`): `TMPDIR=/dev/shm` puts it in memory, which leaves the file
//! system's own cost out of the coordinator's CPU.

use std::collections::HashMap;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::Mutex;
use std::time::Instant;

use causeway_coordinator::experiment::{Plan, ProfileName, load, plan_from_str};
use causeway_coordinator::runner::{RunOptions, RunSummary, Workers, run};
use causeway_proto::NOT_CACHED;
use causeway_proto::v1::worker_server::{Worker, WorkerServer};
use causeway_proto::v1::{
    ChainEvent, ChainResult, ChainResults, HelloReply, HelloRequest, Job, JobBatch, Matrix,
    chain_event,
};
use causeway_worker::WorkerService;
use tokio::sync::mpsc;
use tokio_stream::wrappers::ReceiverStream;
use tonic::{Request, Response, Status};

/// The `causeway` binary's allocator (`coordinator/src/main.rs`), so that the coordinator here
/// allocates as it does there.
#[cfg(not(target_env = "msvc"))]
#[global_allocator]
static GLOBAL: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

const CHILD: &str = "CAUSEWAY_CLUSTER_BENCH_WORKER";
/// The warm-up coordinator's grid and its workers' addresses (comma-separated).
const WARM_UP: &str = "CAUSEWAY_CLUSTER_BENCH_WARM_UP";
const WARM_UP_ADDRS: &str = "CAUSEWAY_CLUSTER_BENCH_WARM_UP_ADDRS";

/// A chain's shape: model, `params.method` (if any) and the observed matrices' sizes.
type Shape = (String, String, Vec<(u64, u64)>);

struct Simulated {
    real: WorkerService,
    results: Mutex<HashMap<Shape, ChainResult>>,
    /// Observed data kept by key, as a real worker keeps them (`Job.observed_key`).
    kept: Mutex<HashMap<String, Vec<Matrix>>>,
}

impl Simulated {
    /// The data sent as (`key`, `observed`), kept under `key`, or those kept under it.
    fn observed(&self, key: &str, observed: Vec<Matrix>) -> Result<Vec<Matrix>, Status> {
        let mut kept = self.kept.lock().expect("kept");
        if !observed.is_empty() || key.is_empty() {
            if !key.is_empty() {
                kept.insert(key.to_string(), observed.clone());
            }
            return Ok(observed);
        }
        kept.get(key)
            .cloned()
            .ok_or_else(|| Status::failed_precondition(format!("{NOT_CACHED}: {key}")))
    }

    /// Job `job`'s answer (its observed data inline): the real result of the first chain of its
    /// shape, under its own job id.
    fn answer(&self, job: &Job) -> ChainResult {
        let method = serde_json::from_str::<serde_json::Value>(&job.params_json)
            .ok()
            .and_then(|p| p.get("method")?.as_str().map(str::to_string))
            .unwrap_or_default();
        let sizes = job.observed.iter().map(|m| (m.rows, m.cols)).collect();
        let shape = (job.model.clone(), method, sizes);
        let mut cache = self.results.lock().expect("cache");
        let template = cache
            .entry(shape)
            .or_insert_with(|| causeway_worker::execute(job, self.real.id(), &mut |_, _| {}));
        ChainResult {
            job_id: job.job_id.clone(),
            ..template.clone()
        }
    }
}

fn result_event(r: ChainResult) -> Result<ChainEvent, Status> {
    Ok(ChainEvent {
        event: Some(chain_event::Event::Result(r)),
    })
}

type Events = ReceiverStream<Result<ChainEvent, Status>>;

#[tonic::async_trait]
impl Worker for Simulated {
    async fn hello(&self, req: Request<HelloRequest>) -> Result<Response<HelloReply>, Status> {
        self.real.hello(req).await
    }

    type RunChainStream = Events;

    async fn run_chain(&self, req: Request<Job>) -> Result<Response<Events>, Status> {
        let mut job = req.into_inner();
        job.observed = self.observed(&job.observed_key, std::mem::take(&mut job.observed))?;
        let (tx, rx) = mpsc::channel(1);
        let _ = tx.send(result_event(self.answer(&job))).await;
        Ok(Response::new(ReceiverStream::new(rx)))
    }

    type RunBatchStream = Events;

    async fn run_batch(&self, req: Request<JobBatch>) -> Result<Response<Events>, Status> {
        let batch = req.into_inner();
        let sets = batch
            .observed_sets
            .into_iter()
            .map(|s| self.observed(&s.key, s.observed))
            .collect::<Result<Vec<_>, Status>>()?;
        let (tx, rx) = mpsc::channel(batch.jobs.len() + 1);
        // As the real worker sends them: several to a message (its answers are instant, so
        // only the count limits a message).
        let mut pending = Vec::new();
        let n = batch.jobs.len();
        for (k, mut job) in batch.jobs.into_iter().enumerate() {
            if let Some(set) = (job.observed_set as usize)
                .checked_sub(1)
                .and_then(|s| sets.get(s))
            {
                job.observed = set.clone();
            }
            pending.push(self.answer(&job));
            if pending.len() == causeway_worker::RESULTS_PER_MESSAGE || k + 1 == n {
                let results = std::mem::take(&mut pending);
                let _ = tx
                    .send(Ok(ChainEvent {
                        event: Some(chain_event::Event::Results(ChainResults { results })),
                    }))
                    .await;
            }
        }
        Ok(Response::new(ReceiverStream::new(rx)))
    }
}

/// The child: serve a simulated worker of `CLUSTER_SLOTS` slots on loopback, print its port,
/// and serve until the parent closes our stdin.
fn serve_child(slots: u32) {
    let rt = tokio::runtime::Runtime::new().expect("runtime");
    rt.block_on(async {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        println!("{}", listener.local_addr().expect("addr"));
        let sim = Simulated {
            real: WorkerService::new(format!("sim-{}", std::process::id()), slots),
            results: Mutex::new(HashMap::new()),
            kept: Mutex::new(HashMap::new()),
        };
        let stdin_closed = async {
            let _ = tokio::task::spawn_blocking(|| std::io::stdin().lines().count()).await;
        };
        causeway_worker::auth::serve_listener(
            WorkerServer::new(sim),
            listener,
            &causeway_worker::auth::Security::default(),
            stdin_closed,
        )
        .await
        .expect("serve");
    });
}

/// User and system CPU seconds of process `pid` (`self` for this one).
fn cpu_seconds(pid: &str) -> (f64, f64) {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    // Fields after the command's closing parenthesis: utime and stime are the 12th and 13th.
    let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
    let mut f = rest
        .split_whitespace()
        .skip(11)
        .take(2)
        .map(|x| x.parse::<f64>().unwrap_or(0.0) / 100.0);
    (f.next().unwrap_or(0.0), f.next().unwrap_or(0.0))
}

fn env_or<T: std::str::FromStr>(key: &str, default: T) -> T {
    std::env::var(key)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn spawn_workers(n: usize, slots: u32) -> (Vec<Child>, Vec<String>) {
    let exe = std::env::current_exe().expect("this bench's path");
    let mut children = Vec::new();
    let mut addrs = Vec::new();
    for _ in 0..n {
        let mut child = Command::new(&exe)
            .env(CHILD, slots.to_string())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("start a simulated worker");
        let mut line = String::new();
        BufReader::new(child.stdout.take().expect("stdout"))
            .read_line(&mut line)
            .expect("its port");
        addrs.push(line.trim().to_string());
        children.push(child);
    }
    (children, addrs)
}

fn bench(rt: &tokio::runtime::Runtime, grid: &str, plan: &Plan, workers: usize, slots: u32) {
    let (mut children, addrs) = spawn_workers(workers, slots);
    let tmp = tempfile::tempdir().expect("tempdir");
    if env_or("CLUSTER_WARMUP", 1u8) != 0 {
        warm_up(grid, &addrs);
    }
    let worker_cpu0 = workers_cpu(&children);
    let (user0, system0) = cpu_seconds("self");
    let t = Instant::now();
    let s = run_remote(rt, plan, &tmp.path().join("run"), addrs);
    let wall = t.elapsed().as_secs_f64();
    let (user1, system1) = cpu_seconds("self");
    let (user, system) = (user1 - user0, system1 - system0);
    let cpu = user + system;
    let worker_cpu = workers_cpu(&children) - worker_cpu0;
    for c in &mut children {
        drop(c.stdin.take());
        let _ = c.wait();
    }
    let n = s.ok;
    let files = walk_count(&tmp.path().join("run"));
    println!(
        "cluster grid={grid} chains={n} workers={workers}x{slots} wall={wall:.2}s setup={:.2}s \
         chains_per_s={:.0} coordinator_cpu={cpu:.2}s coordinator_user={user:.2}s coordinator_system={system:.2}s cpu_per_chain={:.1}us worker_cpu={worker_cpu:.2}s \
         files={files} peak_rss={:.0}MiB",
        s.setup_seconds,
        n as f64 / wall,
        1e6 * cpu / n as f64,
        causeway_tests::peak_rss_mib().unwrap_or(f64::NAN),
    );
}

/// The CPU seconds (user + system) of the simulated workers `children` so far.
fn workers_cpu(children: &[Child]) -> f64 {
    children
        .iter()
        .map(|c| {
            let (u, s) = cpu_seconds(&c.id().to_string());
            u + s
        })
        .sum()
}

/// Run grid `grid` once through the simulated workers at `addrs`, from a coordinator process
/// of its own (this bench's binary), into a directory that is then removed: every worker
/// computes each shape's result here, with the real sampler, and answers at once in the
/// measured run. Left to the measured run, the first chain of a shape would hold its worker
/// (its cache's lock) for a real chain's time, and its shard open meanwhile; run in this
/// process, the warm-up would leave the measured coordinator the pages it freed.
fn warm_up(grid: &str, addrs: &[String]) {
    let exe = std::env::current_exe().expect("this bench's path");
    let status = Command::new(exe)
        .env(WARM_UP, grid)
        .env(WARM_UP_ADDRS, addrs.join(","))
        .status()
        .expect("start the warm-up coordinator");
    assert!(
        status.success(),
        "the warm-up run of {grid} failed: {status}"
    );
}

/// The warm-up coordinator (`warm_up`): grid `grid` through the workers at `addrs`.
fn warm_up_child(grid: &str, addrs: &str) {
    let rt = tokio::runtime::Runtime::new().expect("runtime");
    let tmp = tempfile::tempdir().expect("tempdir");
    let addrs = addrs.split(',').map(str::to_string).collect();
    run_remote(&rt, &plan_of(grid), &tmp.path().join("warmup"), addrs);
}

/// Run `plan` into `out` through the workers at `addrs`, without a report; every chain must
/// finish.
fn run_remote(
    rt: &tokio::runtime::Runtime,
    plan: &Plan,
    out: &Path,
    addrs: Vec<String>,
) -> RunSummary {
    let opts = RunOptions {
        report: false,
        ..RunOptions::new(out.to_path_buf(), Workers::Remote(addrs))
    };
    let s = rt.block_on(run(plan, &opts)).expect("run");
    assert!(s.failed.is_empty(), "failures: {:?}", &s.failed[..1]);
    s
}

/// Files under `dir`, recursively.
fn walk_count(dir: &Path) -> usize {
    std::fs::read_dir(dir).map_or(0, |entries| {
        entries
            .flatten()
            .map(|e| match e.file_type() {
                Ok(t) if t.is_dir() => walk_count(&e.path()),
                _ => 1,
            })
            .sum()
    })
}

/// The plan of grid `grid` (`cep_shaped` or `near_empty`).
fn plan_of(grid: &str) -> Plan {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    match grid {
        "cep_shaped" => load(
            &root.join("bench/scaling/cep_shaped.yaml"),
            ProfileName::Paper,
            None,
        ),
        "near_empty" => plan_from_str(
            Path::new("near_empty.yaml"),
            &causeway_tests::trivial_chains_yaml("near_empty", env_or("CLUSTER_CHAINS", 100_000)),
            ProfileName::Quick,
            Some(Path::new(".")),
        ),
        other => panic!("CLUSTER_GRIDS: {other}: cep_shaped or near_empty"),
    }
    .expect("valid experiment")
}

fn main() {
    if let Ok(slots) = std::env::var(CHILD) {
        serve_child(slots.parse().unwrap_or(64));
        return;
    }
    if let (Ok(grid), Ok(addrs)) = (std::env::var(WARM_UP), std::env::var(WARM_UP_ADDRS)) {
        warm_up_child(&grid, &addrs);
        return;
    }
    let workers = env_or("CLUSTER_WORKERS", 4usize);
    let slots = env_or("CLUSTER_SLOTS", 64u32);
    let grids = std::env::var("CLUSTER_GRIDS").unwrap_or("cep_shaped,near_empty".into());
    let rt = tokio::runtime::Runtime::new().expect("runtime");
    for grid in grids.split(',') {
        bench(&rt, grid, &plan_of(grid), workers, slots);
    }
}

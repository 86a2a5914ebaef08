//! `causeway run`: plan → datasets → jobs → workers → store → tables.
//!
//! Durability: every chain has a row in `<out>/jobs.sqlite` ([`crate::store`]); its result
//! files are written before its row says `done`, so a run killed at any point resumes where it
//! was (run the same command again): finished chains are never run again, none is lost.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::Context;
use causeway_papers::{DataContext, Model, dataset_rng, registry};
use causeway_proto::v1::{ChainCheckpoint, Job, Seed};
use causeway_proto::{CODE_VERSION, PROTOCOL_VERSION};
use causeway_results::rundir::digest::Digest;
use causeway_results::rundir::shards::shard_jobs;
use causeway_results::rundir::{JobRecord, Manifest, RunDir};
use causeway_worker::WorkerService;
use causeway_worker::wire::matrix_to_wire;
use indicatif::{ProgressBar, ProgressStyle};
use prost::Message;
use tokio::sync::{mpsc, oneshot, watch};

use crate::dispatch::{
    self, DispatchOptions, JobBuilder, Observed, Outcome, WireJob, WorkerHandle,
};
use crate::eta::CostEstimate;
use crate::experiment::Plan;
use crate::membership::{self, CoordinatorService};
use crate::round::Round;
use crate::store::{JobState, JobStatus, JobStore, Sealer};

mod collect;
use collect::{Eta, store_results};

/// Where chains run.
#[derive(Debug, Clone)]
pub enum Workers {
    /// Start this many in-process gRPC workers on 127.0.0.1 (ephemeral ports).
    Local(usize),
    /// Use these running workers (`host:port`).
    Remote(Vec<String>),
}

/// What a finished (or stopped) run reports.
#[derive(Debug, Clone)]
pub struct RunSummary {
    pub out: PathBuf,
    pub total: usize,
    /// Chains already stored when the run started.
    pub skipped: usize,
    /// Chains run and stored by this run.
    pub ok: usize,
    /// Chains not done at the end (failed, lost), with their reasons.
    pub failed: Vec<JobStatus>,
    /// Stopped by SIGTERM / Ctrl-C (or [`RunOptions::stop`]) before the end.
    pub interrupted: bool,
    /// Seconds from the start until dispatch began (manifest, datasets, job table, workers).
    pub setup_seconds: f64,
    pub seconds: f64,
}

/// Serve the `Coordinator` service so workers can join (`--listen`).
#[derive(Debug, Clone)]
pub struct Listen {
    pub addr: SocketAddr,
    /// The URL written to `<out>/coordinator.url` (see [`membership::coordinator_url`]).
    pub advertise: Option<String>,
}

/// Options of one run.
#[derive(Debug, Clone)]
pub struct RunOptions {
    pub out: PathBuf,
    pub workers: Workers,
    pub dispatch: DispatchOptions,
    /// Show a progress bar (only drawn when stderr is a terminal).
    pub progress: bool,
    /// Build the tables and figures at the end.
    pub report: bool,
    /// Accept workers that register at any time.
    pub listen: Option<Listen>,
    /// Stop cleanly on SIGTERM / SIGINT (the CLI); library callers use `stop` instead.
    pub handle_signals: bool,
    /// Stop cleanly once this becomes true.
    pub stop: Option<watch::Receiver<bool>>,
    /// Token and TLS for remote and registered workers and for the `--listen` service
    /// (`Security::default()`: local mode, loopback only). Local workers never need it.
    pub security: causeway_worker::auth::Security,
    /// A round of a convergence-driven run ([`crate::until`]): which chains run, to how many
    /// iterations, and from which end states. `None`: every chain, to `run.iterations`.
    pub round: Option<Arc<Round>>,
}

impl RunOptions {
    /// Options with the defaults: no progress bar, tables built, no listening, no signals.
    pub fn new(out: impl Into<PathBuf>, workers: Workers) -> Self {
        RunOptions {
            out: out.into(),
            workers,
            dispatch: DispatchOptions::default(),
            progress: false,
            report: true,
            listen: None,
            handle_signals: false,
            stop: None,
            security: Default::default(),
            round: None,
        }
    }
}

/// Start `n` local workers on 127.0.0.1; returns their addresses and a shutdown handle each.
pub async fn start_local_workers(
    n: usize,
) -> anyhow::Result<(Vec<String>, Vec<oneshot::Sender<()>>)> {
    start_local_workers_with(n, causeway_worker::DEFAULT_HEARTBEAT).await
}

/// [`start_local_workers`] with a given heartbeat interval (`n` may be 0).
pub async fn start_local_workers_with(
    n: usize,
    heartbeat: Duration,
) -> anyhow::Result<(Vec<String>, Vec<oneshot::Sender<()>>)> {
    let mut addrs = Vec::new();
    let mut stops = Vec::new();
    for i in 0..n {
        let listener = tokio::net::TcpListener::bind(SocketAddr::from(([127, 0, 0, 1], 0)))
            .await
            .context("binding a local worker on 127.0.0.1")?;
        let addr = listener.local_addr()?;
        let (tx, rx) = oneshot::channel::<()>();
        let svc = WorkerService::new(format!("local-{i}@{addr}"), 1).with_heartbeat(heartbeat);
        tokio::spawn(async move {
            if let Err(e) = causeway_worker::serve_listener(svc, listener, async {
                let _ = rx.await;
            })
            .await
            {
                tracing::error!("local worker {addr} stopped: {e}");
            }
        });
        addrs.push(addr.to_string());
        stops.push(tx);
    }
    Ok((addrs, stops))
}

/// Default number of local workers: one per core.
pub fn default_local_workers() -> usize {
    std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
}

/// The wire job of every plan index, built when it is dispatched: the cell's parameters as
/// JSON once per cell, the observed data shared per (dataset, replicate).
fn job_builder(
    plan: &Plan,
    jobs: Arc<Vec<JobRecord>>,
    data: &Shipped,
    round: Option<Arc<Round>>,
) -> anyhow::Result<JobBuilder> {
    struct CellWire {
        model: String,
        params_json: String,
        run_json: String,
        /// Observed data per replicate.
        observed: Vec<Observed>,
    }
    let mut cells = Vec::with_capacity(plan.manifest.cells.len());
    for cell in plan.manifest.cells.iter() {
        cells.push(CellWire {
            model: cell.model.clone(),
            params_json: cell.params.to_string(),
            run_json: serde_json::to_string(&cell.run)?,
            observed: (0..plan.replicates)
                .map(|r| {
                    data.get(&(cell.dataset_id.clone(), r))
                        .cloned()
                        .unwrap_or_default()
                })
                .collect(),
        });
    }
    Ok(Arc::new(move |i: usize| {
        let j = &jobs[i];
        let c = &cells[j.cell];
        let job = Job {
            protocol_version: PROTOCOL_VERSION,
            job_id: j.job_id.clone(),
            model: c.model.clone(),
            params_json: c.params_json.clone(),
            run_json: round
                .as_ref()
                .and_then(|r| r.run_json(i))
                .unwrap_or_else(|| c.run_json.clone()),
            seed: Some(Seed {
                base_seed: j.seed.base_seed,
                cell: j.seed.cell,
                replicate: j.seed.replicate,
                chain: j.seed.chain,
            }),
            // Sent once per chain or once per batch (see `dispatch`).
            observed: Vec::new(),
            observed_set: 0,
            observed_key: String::new(),
            // Set per dispatch (see `dispatch::slot_loop`).
            resume: None,
            checkpoint_iterations: 0,
            checkpoint_seconds: 0.0,
            checkpoint_at_end: round.is_some(),
        };
        WireJob {
            job,
            observed: c
                .observed
                .get(j.replicate as usize)
                .cloned()
                .unwrap_or_default(),
        }
    }))
}

/// The code versions that ran chains of a run resumed with `current`: the old manifest's list
/// (or its single `code_version`, for manifests older than the list), plus `current` if it
/// differs from the last.
fn code_versions_after_resume(old: &Manifest, current: &str) -> Vec<String> {
    let mut v = if old.code_versions.is_empty() {
        vec![old.code_version.clone()]
    } else {
        old.code_versions.clone()
    };
    if v.last().map(String::as_str) != Some(current) {
        v.push(current.to_string());
    }
    v
}

/// The manifest a directory already holds, if any: refused (an error) if it is another
/// experiment's.
fn existing_manifest(plan: &Plan, rd: &RunDir, out: &Path) -> anyhow::Result<Option<Manifest>> {
    if !rd.manifest_path().exists() {
        return Ok(None);
    }
    let old = rd
        .read_manifest()
        .with_context(|| format!("reading {}", rd.manifest_path().display()))?;
    if old.chain_seed != plan.manifest.chain_seed && old.cells == plan.manifest.cells {
        anyhow::bail!(
            "{} holds chains of chain seed {}, not {}: a run directory keeps one chain seed; \
             choose another --out",
            out.display(),
            old.chains_seed(),
            plan.manifest.chains_seed()
        );
    }
    if old.defect != plan.manifest.defect {
        anyhow::bail!(
            "{} holds chains run with deliberately broken kernel {:?}, not {:?}; choose another --out",
            out.display(),
            old.defect,
            plan.manifest.defect
        );
    }
    if old.cells != plan.manifest.cells || old.jobs != plan.manifest.jobs {
        anyhow::bail!(
            "{} holds a different experiment (cells or seeds differ); choose another --out or remove it",
            out.display()
        );
    }
    Ok(Some(old))
}

/// Write `experiment.yaml` and `manifest.json` (with the code versions that ran the chains of
/// a resumed run: those of `old`, then this one); returns the manifest written.
fn write_manifest(
    plan: &Plan,
    rd: &RunDir,
    out: &Path,
    old: Option<&Manifest>,
) -> anyhow::Result<Manifest> {
    let mut manifest = plan.manifest.clone();
    if let Some(old) = old {
        manifest.code_versions = code_versions_after_resume(old, CODE_VERSION);
        if old.code_version != CODE_VERSION {
            tracing::warn!(
                "resuming {} (started with code version {}) with code version {CODE_VERSION}: \
                 manifest.json lists both",
                out.display(),
                old.code_version
            );
        }
    }
    causeway_results::rundir::write_atomic(&out.join("experiment.yaml"), plan.text.as_bytes())?;
    rd.write_manifest(&manifest)?;
    Ok(manifest)
}

/// The exclusive lock of a run directory: `<out>/run.lock`, locked with the OS's file lock
/// (flock on Unix) for as long as the returned file is open, and holding the owner's PID and
/// host. A second `causeway run` on the same directory is refused, naming them; a lock left by
/// a killed process is released by the OS, so the next run takes it over. (On network file
/// systems without working locks, do not run twice on one directory.)
pub fn lock_run_dir(out: &Path) -> anyhow::Result<std::fs::File> {
    use std::io::{Read, Seek, Write};
    let path = out.join("run.lock");
    let mut f = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(&path)
        .with_context(|| format!("opening {}", path.display()))?;
    match f.try_lock() {
        Ok(()) => {}
        Err(std::fs::TryLockError::WouldBlock) => {
            let mut owner = String::new();
            let _ = f.read_to_string(&mut owner);
            let owner = owner.trim();
            anyhow::bail!(
                "{} is in use by another causeway run ({}): wait for it to finish or stop it, or \
                 choose another --out",
                out.display(),
                if owner.is_empty() {
                    "owner unknown"
                } else {
                    owner
                }
            );
        }
        Err(std::fs::TryLockError::Error(e)) => {
            return Err(e).with_context(|| format!("locking {}", path.display()));
        }
    }
    f.set_len(0)?;
    f.rewind()?;
    write!(
        f,
        "PID {} on host {}",
        std::process::id(),
        causeway_worker::process::hostname()
    )?;
    f.flush()?;
    Ok(f)
}

/// The observed matrices of every (dataset, replicate), as shipped to workers.
type Shipped = HashMap<(String, u64), Observed>;

/// Datasets: built once per (dataset, replicate) on the coordinator from the dataset's own
/// stream, stored under `datasets/`, and kept in wire form for the jobs.
fn build_datasets(plan: &Plan, model: &dyn Model, rd: &RunDir) -> anyhow::Result<Shipped> {
    let ctx = DataContext {
        data_dir: plan.data_dir.clone(),
    };
    let mut shipped = Shipped::new();
    for cell in plan.manifest.cells.iter() {
        for r in 0..plan.replicates {
            let k = (cell.dataset_id.clone(), r);
            if shipped.contains_key(&k) {
                continue;
            }
            let built;
            let data = match plan.first_datasets.get(&cell.dataset_key) {
                Some(d) if r == 0 => d,
                _ => {
                    let mut rng = dataset_rng(plan.manifest.base_seed, cell.dataset_key, r);
                    built = causeway_papers::sbc::build_dataset(
                        model,
                        &cell.params,
                        &cell.dataset,
                        &ctx,
                        &mut rng,
                    )
                    .map_err(|e| {
                        anyhow::anyhow!(
                            "{}: dataset of cell {}: {e}",
                            plan.file.display(),
                            cell.index
                        )
                    })?;
                    &built
                }
            };
            rd.write_dataset(&cell.dataset_id, r, data)?;
            shipped.insert(
                k,
                Observed::new(data.observed.iter().map(matrix_to_wire).collect()),
            );
        }
    }
    Ok(shipped)
}

/// Run a plan to completion (or until stopped; rerunning resumes).
pub async fn run(plan: &Plan, opts: &RunOptions) -> anyhow::Result<RunSummary> {
    let start = Instant::now();
    let model = registry::model(&plan.model).map_err(|e| anyhow::anyhow!("{e}"))?;
    let rd = RunDir::create(&opts.out)?;
    // One run per directory at a time; the lock is released when this process ends, however.
    let _lock = lock_run_dir(&opts.out)?;
    let jobs = plan.manifest.jobs.clone();
    // What the directory holds is established before anything is written or adopted: the job
    // table records the run identity, so a lost manifest.json cannot let another experiment
    // adopt these chains.
    let old = existing_manifest(plan, &rd, &opts.out)?;
    let job_ids: Vec<String> = jobs.iter().map(|j| j.job_id.clone()).collect();
    let mut table = JobStore::open(
        &opts.out,
        &job_ids,
        &plan.manifest.identity(),
        old.is_some(),
    )?;
    drop(job_ids);
    let round = opts.round.clone();
    // The table holds this run's identity: the manifest is written on a thread of its own
    // while the datasets are built and the table reconciled (other files), so that the set-up
    // takes the longer of the two, not their sum (on the CEP grid, each about a third of it).
    let (manifest, prepared) = std::thread::scope(|s| {
        let manifest = s.spawn(|| write_manifest(plan, &rd, &opts.out, old.as_ref()));
        let prepared = (|| {
            let shipped = build_datasets(plan, model, &rd)?;
            let build = job_builder(plan, jobs.clone(), &shipped, round.clone())?;
            drop(shipped);
            anyhow::Ok((build, reconcile(&mut table, &rd, &jobs, round.as_deref())?))
        })();
        let manifest = manifest
            .join()
            .unwrap_or_else(|_| Err(anyhow::anyhow!("writing manifest.json stopped")));
        (manifest, prepared)
    });
    let manifest = manifest?;
    let (build, (pending, checkpoints)) = prepared?;
    drop(old);
    let skipped = jobs.len() - pending.len();
    let n_pending = pending.len();
    let sealer = Sealer::new(rd.clone(), jobs.len(), &pending);
    let writer = table.into_writer(Some(sealer));

    let (stop_tx, stop_rx) = stop_channel(opts);

    let Connected {
        workers_rx,
        n_static,
        coordinator,
        stops,
    } = connect_workers(opts, n_pending).await?;

    let bar = if opts.progress {
        ProgressBar::new(jobs.len() as u64)
    } else {
        ProgressBar::hidden()
    };
    bar.set_style(
        ProgressStyle::with_template(
            "{spinner} [{elapsed_precise}] {bar:40} {pos}/{len} chains  {msg}",
        )
        .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    bar.set_position(skipped as u64);
    // Time left from the chains' own costs, per cell (see `crate::eta`).
    let eta = CostEstimate::new(
        plan.manifest.cells.len(),
        pending.iter().map(|&i| jobs[i].cell),
    );
    let slots = n_static.max(1);

    let setup_seconds = start.elapsed().as_secs_f64();
    let (tx, rx) = mpsc::channel::<Outcome>(256);
    let dispatcher = tokio::spawn(dispatch::dispatch(
        workers_rx,
        pending,
        jobs.len(),
        build,
        opts.dispatch,
        checkpoints,
        stop_rx.clone(),
        tx,
    ));
    let ok = store_results(
        rx,
        &writer,
        &jobs,
        round.as_ref(),
        &bar,
        Eta {
            estimate: eta,
            slots,
        },
        &stop_tx,
    )
    .await;
    let _ = dispatcher.await;
    let interrupted = *stop_rx.borrow();
    bar.finish_and_clear();
    let table = writer.finish()?;
    if interrupted {
        table.release_running()?;
    }
    // A convergence-driven run's chains not yet called for are pending, not failed.
    let failed = export_job_table(&rd, &table, round.as_deref())?;
    drop(table);
    if let Some((svc, server_stop)) = coordinator {
        if !interrupted {
            svc.finish();
            svc.linger(Duration::from_secs(3)).await;
        }
        let _ = server_stop.send(());
    }
    for s in stops {
        let _ = s.send(());
    }
    if opts.report
        && !interrupted
        && let Err(e) = causeway_results::report::build_with(&rd, &manifest)
    {
        if failed.is_empty() {
            return Err(e).context("building tables");
        }
        tracing::warn!("building tables with failed chains: {e:#}");
    }
    Ok(RunSummary {
        out: opts.out.clone(),
        total: jobs.len(),
        skipped,
        ok,
        failed,
        interrupted,
        setup_seconds,
        seconds: start.elapsed().as_secs_f64(),
    })
}

/// The job table reconciled with the result files already on disk (after removing what a
/// killed writer left half-written: the caller holds the directory's lock): the chains still to
/// run (of this round's, in a convergence-driven run), and the checkpoints they resume from.
fn reconcile(
    table: &mut JobStore,
    rd: &RunDir,
    jobs: &[JobRecord],
    round: Option<&Round>,
) -> anyhow::Result<(Vec<usize>, HashMap<usize, ChainCheckpoint>)> {
    rd.remove_partial_files()?;
    // What a killed run left in the journal goes to its shards first; then every shard is
    // checked against the digest recorded when it was sealed, and a damaged one removed: its
    // chains alone run again.
    table.seal_journal(rd)?;
    let shard_digests = table.shard_digests()?;
    for shard in rd.shards() {
        let recorded = shard_digests.get(&shard);
        if let Some(why) = rd.shard_defect(shard, recorded) {
            let range = shard_jobs(shard, jobs.len());
            let ids: Vec<&str> = jobs[range.clone()]
                .iter()
                .take(4)
                .map(|j| j.job_id.as_str())
                .collect();
            let more = if range.len() > ids.len() { ", …" } else { "" };
            eprintln!(
                "warning: {} is damaged and runs again (its chains: {}{more}): {why}",
                rd.shard_trace_path(shard).display(),
                ids.join(", ")
            );
            rd.remove_shard(shard)?;
            table.forget_shard(shard)?;
        } else if recorded.is_none() {
            table.record_shard(shard, &rd.shard_digest(shard)?)?;
        }
    }
    let mut pending = {
        let stored = rd.stored_index();
        let digests = table.digests()?;
        table.reconcile(|i| {
            let id = &jobs[i].job_id;
            // A chain of an older run directory, stored as its own files, is adopted only if
            // they are complete Parquet files whose bytes have the digest stored when they were
            // written (where one was: older directories still have none).
            stored.contains(id)
                && (!stored.in_own_files(id)
                    || match stored_chain_defect(rd, id, digests.get(id.as_str())) {
                        None => true,
                        Some(why) => {
                            eprintln!("warning: chain {id} is damaged and runs again: {why}");
                            false
                        }
                    })
                && round.is_none_or(|r| r.stored_at_target(rd, i))
        })?
    };
    pending.retain(|&i| round.is_none_or(|r| r.active(i)));
    let mut checkpoints = stored_checkpoints(table, &pending, jobs)?;
    if let Some(r) = round {
        r.end_states(table, rd, &pending, &mut checkpoints)?;
    }
    if !checkpoints.is_empty() {
        eprintln!(
            "{} chains resume from their checkpoints (iterations done: {})",
            checkpoints.len(),
            checkpoints.values().map(|c| c.iteration).sum::<u64>()
        );
    }
    Ok((pending, checkpoints))
}

/// Why chain `id`'s own files (an older run directory) cannot be adopted: a frame defect, or
/// bytes whose digest is not `digest`, the one stored with its done row.
fn stored_chain_defect(rd: &RunDir, id: &str, digest: Option<&Digest>) -> Option<String> {
    if let Some(why) = rd.chain_defect(id) {
        return Some(why);
    }
    match (digest, rd.chain_digest(id)) {
        (None, _) => None,
        (Some(_), Err(e)) => Some(e.to_string()),
        (Some(want), Ok(got)) => (got != *want).then(|| {
            "its files' checksum differs from the one stored when they were written".to_string()
        }),
    }
}

/// The run's stop: set by SIGTERM / SIGINT / SIGHUP (CLI), the caller's flag, or a full disk.
fn stop_channel(opts: &RunOptions) -> (Arc<watch::Sender<bool>>, watch::Receiver<bool>) {
    let (stop_tx, stop_rx) = watch::channel(false);
    let stop_tx = Arc::new(stop_tx);
    if opts.handle_signals {
        let stop_tx = stop_tx.clone();
        tokio::spawn(async move {
            causeway_worker::process::termination_signal().await;
            let _ = stop_tx.send(true);
        });
    }
    if let Some(mut external) = opts.stop.clone() {
        let stop_tx = stop_tx.clone();
        tokio::spawn(async move {
            while external.changed().await.is_ok() {
                if *external.borrow() {
                    let _ = stop_tx.send(true);
                    return;
                }
            }
        });
    }
    (stop_tx, stop_rx)
}

/// The workers of a run and the services that stop with it.
struct Connected {
    workers_rx: mpsc::Receiver<WorkerHandle>,
    /// Static workers reached (`--local-workers`, `--workers`).
    n_static: usize,
    /// `--listen`: the service workers register with, and its stop.
    coordinator: Option<(CoordinatorService, oneshot::Sender<()>)>,
    /// Stops of the local workers.
    stops: Vec<oneshot::Sender<()>>,
}

/// Static workers now, registered ones (`--listen`) whenever they come. Errors: `--listen`
/// refused or unbindable, or no static worker reachable without `--listen` while chains wait.
async fn connect_workers(opts: &RunOptions, n_pending: usize) -> anyhow::Result<Connected> {
    let (workers_tx, workers_rx) = mpsc::channel::<WorkerHandle>(64);
    let heartbeat = (opts.dispatch.lease_timeout / 4).min(causeway_worker::DEFAULT_HEARTBEAT);
    let local_mode = causeway_worker::auth::Security::default();
    let ((addrs, stops), security) = match &opts.workers {
        Workers::Local(n) => (start_local_workers_with(*n, heartbeat).await?, &local_mode),
        Workers::Remote(list) => ((list.clone(), Vec::new()), &opts.security),
    };
    let mut n_static = 0;
    for a in &addrs {
        match dispatch::connect_secure(a, security).await {
            Ok(h) => {
                n_static += 1;
                let _ = workers_tx.send(h).await;
            }
            Err(e) => tracing::warn!("{e}"),
        }
    }
    let mut coordinator: Option<(CoordinatorService, oneshot::Sender<()>)> = None;
    if let Some(listen) = &opts.listen {
        opts.security
            .check_listen(listen.addr)
            .with_context(|| format!("--listen {}", listen.addr))?;
        let listener = tokio::net::TcpListener::bind(listen.addr)
            .await
            .with_context(|| format!("--listen {}", listen.addr))?;
        let bound = listener.local_addr()?;
        let url = membership::coordinator_url(bound, listen.advertise.as_deref());
        causeway_results::rundir::write_atomic(
            &opts.out.join(membership::URL_FILE),
            format!("{url}\n").as_bytes(),
        )?;
        eprintln!("coordinator listening on {bound}; workers join with --coordinator {url}");
        let svc = CoordinatorService::new(workers_tx.clone(), opts.security.clone());
        let (tx, rx) = oneshot::channel::<()>();
        let server = svc.clone();
        let security = opts.security.clone();
        tokio::spawn(async move {
            if let Err(e) = membership::serve(server, listener, &security, async {
                let _ = rx.await;
            })
            .await
            {
                tracing::error!("coordinator service on {bound}: {e}");
            }
        });
        coordinator = Some((svc, tx));
    } else if n_static == 0 && n_pending > 0 {
        anyhow::bail!("no worker could be reached (tried {})", addrs.join(", "));
    }
    // Without --listen no worker comes later: dispatch ends when the static ones are gone.
    drop(workers_tx);
    Ok(Connected {
        workers_rx,
        n_static,
        coordinator,
        stops,
    })
}

/// `jobs.csv`: the job table as it ends.
/// Write `jobs.csv` from the job table, one row at a time, and return the chains that did not
/// finish (in a convergence-driven run, of those this round called for).
fn export_job_table(
    rd: &RunDir,
    table: &JobStore,
    round: Option<&Round>,
) -> anyhow::Result<Vec<JobStatus>> {
    let mut csv = rd.job_table_csv()?;
    let mut failed = Vec::new();
    let mut i = 0;
    table.each_status(|s| {
        csv.row(&s.job_id, s.state.as_str(), s.attempts, &s.worker, &s.error)?;
        if s.state != JobState::Done && round.is_none_or(|r| r.active(i)) {
            failed.push(s);
        }
        i += 1;
        anyhow::Ok(())
    })?;
    csv.finish()?;
    Ok(failed)
}

/// The stored checkpoints of the `pending` chains, decoded. One that cannot be decoded or
/// belongs to another chain is dropped with a warning: that chain starts again.
fn stored_checkpoints(
    table: &JobStore,
    pending: &[usize],
    jobs: &[JobRecord],
) -> anyhow::Result<HashMap<usize, ChainCheckpoint>> {
    let mut out = HashMap::new();
    for (i, bytes) in table.checkpoints(pending)? {
        let (iteration, bytes) = match bytes {
            Ok(b) => b,
            Err(why) => {
                eprintln!(
                    "warning: the checkpoint of {} is damaged ({why}); the chain starts again",
                    jobs[i].job_id
                );
                continue;
            }
        };
        match ChainCheckpoint::decode(bytes.as_slice()) {
            Ok(c) if c.job_id == jobs[i].job_id && c.iteration == iteration => {
                if c.code_version != CODE_VERSION {
                    eprintln!(
                        "warning: the checkpoint of {} was saved by code version {}: only a \
                         worker of that version resumes from it (this build, {CODE_VERSION}, \
                         runs the chain from iteration 1)",
                        jobs[i].job_id, c.code_version
                    );
                }
                out.insert(i, c);
            }
            Ok(c) if c.job_id == jobs[i].job_id => eprintln!(
                "warning: the checkpoint of {} says iteration {} where its row says \
                 {iteration}; the chain starts again",
                jobs[i].job_id, c.iteration
            ),
            Ok(c) => eprintln!(
                "warning: the checkpoint stored for {} is {}'s; the chain starts again",
                jobs[i].job_id, c.job_id
            ),
            Err(e) => eprintln!(
                "warning: the checkpoint of {} is damaged ({e}); the chain starts again",
                jobs[i].job_id
            ),
        }
    }
    Ok(out)
}

/// Default run directory: `runs/<experiment name>/`.
pub fn default_out(plan: &Plan) -> PathBuf {
    Path::new("runs").join(&plan.manifest.name)
}

#[cfg(test)]
mod tests;

//! `causeway run`: plan → datasets → jobs → workers → store → tables.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use anyhow::Context;
use causeway_proto::PROTOCOL_VERSION;
use causeway_proto::v1::{Job, Seed};
use causeway_results::rundir::{JobStatus, Manifest, RunDir};
use causeway_samplers::{ChainOutput, DataContext, dataset_rng, registry};
use causeway_worker::{CODE_VERSION, WorkerService, matrix_from_wire, matrix_to_wire};
use indicatif::{ProgressBar, ProgressStyle};
use tokio::sync::{mpsc, oneshot};

use crate::dispatch::{self, DispatchOptions, Outcome, Pending, WorkerHandle};
use crate::experiment::Plan;

/// Where chains run.
#[derive(Debug, Clone)]
pub enum Workers {
    /// Start this many in-process gRPC workers on 127.0.0.1 (ephemeral ports).
    Local(usize),
    /// Use these running workers (`host:port`).
    Remote(Vec<String>),
}

/// What a finished run reports.
#[derive(Debug, Clone)]
pub struct RunSummary {
    pub out: PathBuf,
    pub total: usize,
    pub skipped: usize,
    pub ok: usize,
    pub failed: Vec<JobStatus>,
    pub seconds: f64,
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
    /// Token and TLS for remote workers (`Security::default()`: local mode).
    pub security: causeway_worker::auth::Security,
}

/// Start `n` local workers on 127.0.0.1; returns their addresses and a shutdown handle each.
pub async fn start_local_workers(
    n: usize,
) -> anyhow::Result<(Vec<String>, Vec<oneshot::Sender<()>>)> {
    let mut addrs = Vec::new();
    let mut stops = Vec::new();
    for i in 0..n.max(1) {
        let listener = tokio::net::TcpListener::bind(SocketAddr::from(([127, 0, 0, 1], 0)))
            .await
            .context("binding a local worker on 127.0.0.1")?;
        let addr = listener.local_addr()?;
        let (tx, rx) = oneshot::channel::<()>();
        let svc = WorkerService::new(format!("local-{i}@{addr}"), 1);
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

/// Run a plan to completion.
pub async fn run(plan: &Plan, opts: &RunOptions) -> anyhow::Result<RunSummary> {
    let start = Instant::now();
    let model = registry::model(&plan.model).map_err(|e| anyhow::anyhow!("{e}"))?;
    let rd = RunDir::create(&opts.out)?;
    let jobs = plan.jobs();
    let manifest = Manifest {
        name: plan.name.clone(),
        description: plan.description.clone(),
        profile: plan.profile.as_str().to_string(),
        code_version: CODE_VERSION.to_string(),
        base_seed: plan.base_seed,
        experiment_file: plan.file.display().to_string(),
        monitor: plan.monitor.clone(),
        report: plan.report.clone(),
        reported: plan.reported.clone(),
        cells: plan.cells.clone(),
        jobs: jobs.clone(),
    };
    if rd.manifest_path().exists() {
        let old = rd
            .read_manifest()
            .with_context(|| format!("reading {}", rd.manifest_path().display()))?;
        if old.cells != manifest.cells || old.jobs != manifest.jobs {
            anyhow::bail!(
                "{} holds a different experiment (cells or seeds differ); choose another --out or remove it",
                opts.out.display()
            );
        }
    }
    causeway_results::rundir::write_atomic(
        &opts.out.join("experiment.yaml"),
        plan.text.as_bytes(),
    )?;
    rd.write_manifest(&manifest)?;

    // Datasets: built once per (dataset, replicate) on the coordinator, stored, shipped.
    let ctx = DataContext {
        data_dir: plan.data_dir.clone(),
    };
    let mut shipped: HashMap<(String, u64), Arc<Vec<causeway_proto::v1::Matrix>>> = HashMap::new();
    for cell in &plan.cells {
        for r in 0..plan.replicates {
            let k = (cell.dataset_id.clone(), r);
            if shipped.contains_key(&k) {
                continue;
            }
            let mut rng = dataset_rng(plan.base_seed, cell.dataset_key, r);
            let data = model.dataset(&cell.dataset, &ctx, &mut rng).map_err(|e| {
                anyhow::anyhow!(
                    "{}: dataset of cell {}: {e}",
                    plan.file.display(),
                    cell.index
                )
            })?;
            rd.write_dataset(&cell.dataset_id, r, &data)?;
            shipped.insert(
                k,
                Arc::new(data.observed.iter().map(matrix_to_wire).collect()),
            );
        }
    }

    // Jobs not yet on disk.
    let mut pending = Vec::new();
    let mut statuses: Vec<JobStatus> = jobs
        .iter()
        .map(|j| JobStatus {
            job_id: j.job_id.clone(),
            state: "pending".into(),
            attempts: 0,
            worker: String::new(),
            error: String::new(),
        })
        .collect();
    let mut skipped = 0;
    for (i, j) in jobs.iter().enumerate() {
        if rd.chain_done(&j.job_id) {
            statuses[i].state = "done".into();
            skipped += 1;
            continue;
        }
        let cell = &plan.cells[j.cell];
        let observed = shipped
            .get(&(cell.dataset_id.clone(), j.replicate))
            .cloned()
            .unwrap_or_default();
        pending.push(Pending {
            index: i,
            attempts: 0,
            job: Job {
                protocol_version: PROTOCOL_VERSION,
                job_id: j.job_id.clone(),
                model: cell.model.clone(),
                params_json: cell.params.to_string(),
                run_json: serde_json::to_string(&cell.run)?,
                seed: Some(Seed {
                    base_seed: j.seed.base_seed,
                    cell: j.seed.cell,
                    replicate: j.seed.replicate,
                    chain: j.seed.chain,
                }),
                observed: observed.as_ref().clone(),
            },
        });
    }

    // Workers.
    let (addrs, stops) = match &opts.workers {
        Workers::Local(n) => start_local_workers(*n).await?,
        Workers::Remote(list) => (list.clone(), Vec::new()),
    };
    let mut handles: Vec<WorkerHandle> = Vec::new();
    for a in &addrs {
        match dispatch::connect_secure(a, &opts.security).await {
            Ok(h) => handles.push(h),
            Err(e) => tracing::warn!("{e}"),
        }
    }
    if handles.is_empty() && !pending.is_empty() {
        anyhow::bail!("no worker could be reached (tried {})", addrs.join(", "));
    }

    let bar = if opts.progress {
        ProgressBar::new(jobs.len() as u64)
    } else {
        ProgressBar::hidden()
    };
    bar.set_style(
        ProgressStyle::with_template(
            "{spinner} [{elapsed_precise}] {bar:40} {pos}/{len} chains  eta {eta}  {msg}",
        )
        .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    bar.set_position(skipped as u64);

    let (tx, mut rx) = mpsc::channel::<Outcome>(64);
    let n_pending = pending.len();
    let dispatcher = tokio::spawn(dispatch::dispatch(handles, pending, opts.dispatch, tx));
    let mut ok = 0usize;
    let mut seen = 0usize;
    // Results are written on blocking threads as they arrive, several at once, so the store
    // never serialises the workers.
    let mut writes: tokio::task::JoinSet<(usize, Result<(), String>)> = tokio::task::JoinSet::new();
    let settle = |statuses: &mut Vec<JobStatus>,
                  ok: &mut usize,
                  index: usize,
                  stored: Result<(), String>| {
        let st = &mut statuses[index];
        match stored {
            Ok(()) => {
                st.state = "done".into();
                *ok += 1;
            }
            Err(e) => {
                st.state = "failed".into();
                st.error = format!("storing the result: {e}");
            }
        }
    };
    while let Some(outcome) = rx.recv().await {
        seen += 1;
        match outcome {
            Outcome::Finished {
                index,
                attempts,
                result,
            } => {
                let st = &mut statuses[index];
                st.attempts = attempts;
                st.worker = result.worker_id.clone();
                if result.ok {
                    let job_id = result.job_id.clone();
                    let rd2 = rd.clone();
                    writes.spawn_blocking(move || {
                        let stored = output_from_result(result).and_then(|out| {
                            rd2.write_chain(&job_id, &out).map_err(|e| e.to_string())
                        });
                        (index, stored)
                    });
                    while writes.len() > 8 {
                        if let Some(Ok((i, r))) = writes.join_next().await {
                            settle(&mut statuses, &mut ok, i, r);
                        }
                    }
                } else {
                    st.state = "failed".into();
                    st.error = result.error;
                    bar.println(format!("chain {} failed: {}", st.job_id, st.error));
                }
            }
            Outcome::Lost {
                index,
                attempts,
                worker,
                error,
            } => {
                let st = &mut statuses[index];
                st.state = "lost".into();
                st.attempts = attempts;
                st.worker = worker;
                st.error = error;
            }
        }
        bar.inc(1);
        if seen == n_pending {
            break;
        }
    }
    while let Some(joined) = writes.join_next().await {
        match joined {
            Ok((i, r)) => settle(&mut statuses, &mut ok, i, r),
            Err(e) => tracing::error!("a result writer stopped: {e}"),
        }
    }
    let _ = dispatcher.await;
    bar.finish_and_clear();
    for s in stops {
        let _ = s.send(());
    }
    rd.write_job_statuses(&statuses)?;
    if opts.report {
        causeway_results::report::build(&rd).context("building tables")?;
    }
    let failed: Vec<JobStatus> = statuses
        .iter()
        .filter(|s| s.state != "done")
        .cloned()
        .collect();
    Ok(RunSummary {
        out: opts.out.clone(),
        total: jobs.len(),
        skipped,
        ok,
        failed,
        seconds: start.elapsed().as_secs_f64(),
    })
}

/// Wire result → the library's chain output.
pub fn output_from_result(r: causeway_proto::v1::ChainResult) -> Result<ChainOutput, String> {
    Ok(ChainOutput {
        trace_names: r.trace_names,
        iterations: r.iterations,
        trace: r.trace,
        summary: r
            .summary
            .into_iter()
            .map(matrix_from_wire)
            .collect::<Result<Vec<_>, _>>()?,
        elapsed_seconds: r.elapsed_seconds,
    })
}

/// Default run directory: `runs/<experiment name>/`.
pub fn default_out(plan: &Plan) -> PathBuf {
    Path::new("runs").join(&plan.name)
}

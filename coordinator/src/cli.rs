//! The `causeway` command line.
//!
//! ```text
//! causeway run FILE [--profile quick|paper|until] [--out DIR] [--local-workers N] [--workers LIST] [--data-dir DIR]
//!              [--listen ADDR [--advertise URL]] [--max-attempts N] [--lease-timeout SECS]
//!              [--checkpoint-every SECS] [--checkpoint-iterations N] [--chain-seed N] [SECURITY]
//! causeway worker --listen ADDR [--advertise HOST:PORT] [--coordinator URL] [--slots N] [SECURITY]
//!   SECURITY: [--token-file FILE] [--insecure] [--tls-cert PEM --tls-key PEM] [--tls-ca PEM]
//! causeway status RUN_DIR
//! causeway check RUN_DIR --baseline RUN_DIR|YAML|CSV [--rtol X] [--atol X]
//!                [--statistical [--alpha A] [--correction holm|bh] [--strict]] [--junit FILE]
//! causeway check RUN_DIR --against-paper
//! causeway validate FILE [--profile quick|paper|until]
//! causeway report RUN_DIR
//! causeway diagnose FILE [--format json|table]
//! causeway kl P.csv Q.csv [--k K] [--standardize-by T.csv] [--format json|table]
//! causeway score DATA.csv --dag DAG.csv --type loglik|bic|aic|bde|bd [--iss X] [--alpha A|a1,...,ak] [--format table|json]
//! ```

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use causeway_results::check_stats::StatOptions;
use clap::{Parser, Subcommand, ValueEnum};

use crate::check_cmd::{CheckArgs, CorrectionArg, Verdict, check};

use crate::dispatch::{DEFAULT_CHECKPOINT_SECONDS, DispatchOptions};
use crate::experiment::{self, ProfileName};
use crate::runner::{self, RunOptions, Workers};
use crate::security_args::SecurityArgs;
use crate::status;

#[derive(Parser, Debug)]
#[command(name = "causeway", version = causeway_proto::CODE_VERSION, about = "Reproduce Bayesian structure-learning papers at cluster scale")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// `causeway run`'s arguments.
#[derive(Debug, clap::Args)]
struct RunArgs {
    /// The experiment YAML (e.g. experiments/wood2006/fig3.yaml).
    file: PathBuf,
    /// `quick` (minutes on 2 cores, same code) or `paper` (the paper's sizes).
    #[arg(long, value_enum, default_value = "quick")]
    profile: ProfileName,
    /// Run directory [default: runs/<experiment name>]. A rerun on the same directory
    /// resumes: chains already stored are not run again.
    #[arg(long)]
    out: Option<PathBuf>,
    /// Number of local gRPC workers on 127.0.0.1 (≥ 1) [default: one per core].
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=4096))]
    local_workers: Option<u64>,
    /// Use these remote workers instead of local ones: host:port,host:port,...
    #[arg(long, value_delimiter = ',')]
    workers: Option<Vec<String>>,
    /// Directory of real datasets [default: data_dir in the YAML, else ../../data from it].
    #[arg(long)]
    data_dir: Option<PathBuf>,
    /// Attempts per chain (failed RPCs and lost leases; a deterministic model failure is
    /// not retried) before it is marked failed (≥ 1).
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..))]
    max_attempts: u32,
    /// Seconds a running chain's stream may stay silent before the chain is taken back and
    /// run elsewhere (workers send a heartbeat every second); time the coordinator itself was
    /// not scheduled (a niced run on a loaded machine) does not count.
    #[arg(long, default_value_t = 10.0)]
    lease_timeout: f64,
    /// Serve the Coordinator service on ADDR (e.g. 0.0.0.0:7000) so that workers can join
    /// at any time with `causeway worker --coordinator URL`; the URL is written to
    /// <out>/coordinator.url. Without --workers/--local-workers no local worker starts.
    #[arg(long)]
    listen: Option<SocketAddr>,
    /// URL written to coordinator.url [default: http://<hostname>:<port> when --listen is
    /// unspecified (0.0.0.0), else http://<listen address>].
    #[arg(long, requires = "listen")]
    advertise: Option<String>,
    /// Seconds between two checkpoints of a running chain, the most work a lost chain
    /// loses (0: not by time) [default: checkpoint_every.seconds in the YAML, else 60].
    #[arg(long)]
    checkpoint_every: Option<f64>,
    /// Seed the chains' streams with N instead of the YAML's `seed` (or `chain_seed`); the
    /// datasets keep theirs, so two runs that differ only here estimate the same quantities.
    #[arg(long)]
    chain_seed: Option<u64>,
    /// Also save a checkpoint every N iterations (0: not by count) [default:
    /// checkpoint_every.iterations in the YAML, else not by count].
    #[arg(long)]
    checkpoint_iterations: Option<u64>,
    #[command(flatten)]
    security: SecurityArgs,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Run an experiment grid and build its tables.
    Run(RunArgs),
    /// Run a worker that serves chains over gRPC.
    Worker {
        /// Address to listen on, e.g. 0.0.0.0:7070 (port 0: any free port).
        #[arg(long)]
        listen: SocketAddr,
        /// host:port the coordinator connects to [default: <hostname>:<port> when --listen is
        /// unspecified (0.0.0.0), else the bound address].
        #[arg(long)]
        advertise: Option<String>,
        /// Join the run of this coordinator (the content of <run dir>/coordinator.url):
        /// register now and every --register-every seconds, retrying until it is reachable;
        /// exit 0 when the run is finished or the coordinator has been gone --give-up-after.
        #[arg(long)]
        coordinator: Option<String>,
        /// Chains run at once, 1..=4096 [default: one per core].
        #[arg(long, value_parser = clap::value_parser!(u32).range(1..=4096))]
        slots: Option<u32>,
        /// Seconds between two registrations.
        #[arg(long, default_value_t = 2.0)]
        register_every: f64,
        /// Seconds the coordinator may be unreachable (after a first registration) before the
        /// worker exits.
        #[arg(long, default_value_t = 30.0)]
        give_up_after: f64,
        /// Seconds between two heartbeats of a running chain.
        #[arg(long, default_value_t = 1.0)]
        heartbeat: f64,
        #[command(flatten)]
        security: SecurityArgs,
    },
    /// Compare a run's tables with a baseline (a previous run directory, an experiment YAML's
    /// `checks:`, or a CSV table,row,column,expected,tolerance); exit 1 on a regression.
    Check {
        run_dir: PathBuf,
        #[arg(long, required_unless_present = "against_paper")]
        baseline: Option<PathBuf>,
        /// Relative tolerance for numeric cells against a baseline run directory.
        #[arg(long, default_value_t = causeway_results::check::DEFAULT_RTOL)]
        rtol: f64,
        /// Absolute tolerance for numeric cells against a baseline run directory.
        #[arg(long, default_value_t = causeway_results::check::DEFAULT_ATOL)]
        atol: f64,
        /// Test every cell with an `_se` (in both runs) by Welch's t instead of exactly, for
        /// runs whose random streams differ (baseline run directory only).
        #[arg(long)]
        statistical: bool,
        /// Level of the multiplicity-adjusted p-values (with --statistical).
        #[arg(long, default_value_t = causeway_results::check_stats::DEFAULT_ALPHA, requires = "statistical")]
        alpha: f64,
        /// Multiplicity correction over every statistically tested cell (with --statistical).
        #[arg(long, value_enum, default_value_t = CorrectionArg::Holm, requires = "statistical")]
        correction: CorrectionArg,
        /// Fail on cells flagged unconverged (with --statistical; otherwise counted only).
        #[arg(long, requires = "statistical")]
        strict: bool,
        /// Also write a JUnit XML report (one test case per table) to FILE.
        #[arg(long)]
        junit: Option<PathBuf>,
        /// List the cells whose `z_paper` (distance to the paper's value in standard errors)
        /// exceeds 3 in absolute value; exit 1 if any does.
        #[arg(long, conflicts_with_all = ["baseline", "statistical", "rtol", "atol", "alpha", "correction", "strict"])]
        against_paper: bool,
    },
    /// Progress of a run, also while it runs: chains by state, failures and their reasons,
    /// estimated time left (from jobs.sqlite, opened read-only).
    Status { run_dir: PathBuf },
    /// Check an experiment file (every cell) without running anything.
    Validate {
        file: PathBuf,
        #[arg(long, value_enum, default_value = "quick")]
        profile: ProfileName,
        #[arg(long)]
        data_dir: Option<PathBuf>,
    },
    /// Rebuild the tables and figures of a run directory, and its page (`<run>/index.html`).
    Report { run_dir: PathBuf },
    /// Write the results site: for a run directory, its page (`<run>/index.html`); for a folder
    /// of runs (e.g. runs/), the index linking every run under it (`<folder>/index.html`), with
    /// the page of any run that has none. Opens from the file system, no server.
    Site { dir: PathBuf },
    /// Write a run's chains as ArviZ InferenceData: one Zarr v3 store per cell and replicate
    /// (`<out>/cell<k>-rep<r>.zarr`), groups `posterior` and `sample_stats`, dims (chain, draw)
    /// after the burn-in. Open with `xarray.open_datatree(path, engine="zarr")`, or in ArviZ 0.2x
    /// `az.InferenceData.from_datatree(...)` of it.
    Export {
        run_dir: PathBuf,
        /// Folder for the stores [default: <run dir>/inferencedata].
        #[arg(long)]
        out: Option<PathBuf>,
        /// Export only this grid cell (repeatable) [default: every cell, at most 1000 stores].
        #[arg(long = "cell")]
        cells: Vec<usize>,
    },
    /// Convergence diagnostics (R-hat, ESS, MCSE) of a draws file: CSV or Parquet with columns
    /// chain,draw,<one column per variable>.
    Diagnose {
        file: PathBuf,
        #[arg(long, value_enum, default_value = "json")]
        format: Format,
    },
    /// The k-nearest-neighbour KL divergence D̂(P‖Q) (Pérez-Cruz 2008) of two samples, as paper
    /// 004's Table 1 computes it: CSVs with a header row and identical columns, every cell a
    /// finite number. Exit code 2 on bad input.
    Kl {
        /// P: n rows × d columns (the reference sample, e.g. a test set).
        p: PathBuf,
        /// Q: m rows × d columns (e.g. samples from a model).
        q: PathBuf,
        /// The neighbour rank k (≥ 1; n must exceed k, m must reach it).
        #[arg(long, default_value_t = 1)]
        k: usize,
        /// Standardize both samples by this file's column means and sample sds first (a
        /// training set).
        #[arg(long)]
        standardize_by: Option<PathBuf>,
        #[arg(long, value_enum, default_value = "json")]
        format: Format,
    },
    /// The score of a DAG on discrete data, as bnlearn::score computes it (paper 002, HiDDeN):
    /// DATA.csv read as a `kind: csv` dataset, DAG.csv with the header parent,child and one arc
    /// per row. Exit code 2 on bad input.
    Score {
        /// Discrete data: a header, one column (node) per variable, category labels.
        data: PathBuf,
        /// The DAG: header `parent,child`, one arc per row; nodes without arcs are roots.
        #[arg(long)]
        dag: PathBuf,
        /// bnlearn's score type.
        #[arg(long = "type", value_enum)]
        score_type: crate::score::ScoreType,
        /// BDeu's imaginary sample size (`--type bde` only; default 1).
        #[arg(long, allow_hyphen_values = true)]
        iss: Option<f64>,
        /// BD's Dirichlet parameters (`--type bd` only): one value for every cell (1 is K2, 0.5
        /// bnlearn's bdj) or one per child category, separated by commas.
        #[arg(long, allow_hyphen_values = true)]
        alpha: Option<String>,
        /// `table` (Markdown, the default) or `json` (one line, numbers that round-trip).
        #[arg(long, value_enum, default_value = "table")]
        format: Format,
    },
}

#[derive(Copy, Clone, Debug, ValueEnum)]
enum Format {
    Json,
    Table,
}

/// Entry point of the binary: parse arguments, run, and map errors to exit codes
/// (0 success, 1 failure or failed chains, 2 bad usage).
/// Write `text` to standard output. A reader that has gone away (`causeway status | head`)
/// ends the output quietly, as for other Unix tools, instead of a panic from `print!`.
pub(crate) fn emit(text: &str) -> std::io::Result<()> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        other => other,
    }
}

pub fn main() -> ExitCode {
    let cli = Cli::parse();
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn")),
        )
        .with_writer(std::io::stderr)
        // Colour only on a terminal: a log file or a batch system's output gets plain text.
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .init();
    match dispatch_command(cli.command) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {}", render_error(&e));
            ExitCode::FAILURE
        }
    }
}

/// An error and its causes on one line, `a: b: c`, each cause once: most of our error types
/// already print their cause in their own message (`path: cause`) and also expose it as their
/// `source()`, so anyhow's `{:#}` printed it twice. A cause whose text is
/// already in the line is skipped.
pub fn render_error(e: &anyhow::Error) -> String {
    let mut out = e.to_string();
    for cause in e.chain().skip(1) {
        let c = cause.to_string();
        if !out.contains(&c) {
            out.push_str(": ");
            out.push_str(&c);
        }
    }
    out
}

/// `causeway check`'s exit: 0 passed, 1 a regression, 2 the check could not run (the error on
/// stderr), so a script tells a failure to run from a regression.
fn check_exit(v: anyhow::Result<Verdict>) -> anyhow::Result<ExitCode> {
    match v {
        Ok(v) => {
            emit(&v.text)?;
            Ok(if v.passed {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            })
        }
        Err(e) => {
            eprintln!("error: {}", render_error(&e));
            Ok(ExitCode::from(2))
        }
    }
}

fn runtime() -> anyhow::Result<tokio::runtime::Runtime> {
    Ok(tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?)
}

/// The broken kernel of `CAUSEWAY_DEFECT`, said on stderr: a `testing` build runs every local
/// chain with it (the power runs of `check --statistical`) and the manifest records it; any other
/// build ignores it (`None`).
fn defect_switch() -> Option<String> {
    use causeway_papers::model::{DEFECT_ENV, DEFECT_SWITCHES, requested_defect};
    let d = requested_defect()?;
    if DEFECT_SWITCHES {
        eprintln!(
            "warning: {DEFECT_ENV}={d}: every local chain runs this deliberately broken kernel"
        );
        Some(d)
    } else {
        eprintln!(
            "warning: {DEFECT_ENV}={d} is ignored: this build has no deliberate-bug switches \
             (`make power` builds one: --features testing)"
        );
        None
    }
}

/// `causeway site DIR`: a run directory's page, or the index of the runs under a folder.
fn site_command(dir: &std::path::Path) -> anyhow::Result<ExitCode> {
    let text = if dir.join("manifest.json").exists() {
        let rd = causeway_results::rundir::RunDir::open(dir);
        let m = rd.read_manifest()?;
        let page = causeway_results::site::write_run_page(&rd, &m)?;
        format!("{}\n", page.display())
    } else {
        let (index, n) = causeway_results::site::write_index(dir)?;
        format!("{} ({n} runs)\n", index.display())
    };
    emit(&text)?;
    Ok(ExitCode::SUCCESS)
}

/// `causeway export RUN_DIR`: one InferenceData store per cell and replicate, one line each.
fn export_command(
    run_dir: &std::path::Path,
    out: Option<PathBuf>,
    cells: &[usize],
) -> anyhow::Result<ExitCode> {
    let out = out.unwrap_or_else(|| run_dir.join("inferencedata"));
    let done = causeway_results::export::export_run(run_dir, &out, cells)?;
    let mut text = String::new();
    for e in &done {
        text.push_str(&format!(
            "{}: cell {} replicate {}, {} chains × {} draws\n",
            e.path.display(),
            e.cell,
            e.replicate,
            e.chains,
            e.draws
        ));
    }
    text.push_str(&format!("{} stores in {}\n", done.len(), out.display()));
    emit(&text)?;
    Ok(ExitCode::SUCCESS)
}

fn dispatch_command(cmd: Command) -> anyhow::Result<ExitCode> {
    match cmd {
        Command::Run(args) => run_command(args),
        Command::Worker {
            listen,
            advertise,
            coordinator,
            slots,
            register_every,
            give_up_after,
            heartbeat,
            security,
        } => {
            let security = security.load()?;
            security.check_listen(listen)?;
            let slots = slots.unwrap_or_else(|| runner::default_local_workers() as u32);
            let opts = causeway_worker::node::WorkerOptions {
                listen,
                advertise,
                coordinator,
                slots,
                register_every: seconds(register_every, "--register-every")?,
                give_up_after: seconds(give_up_after, "--give-up-after")?,
                heartbeat: seconds(heartbeat, "--heartbeat")?,
                security,
            };
            let ok = runtime()?.block_on(causeway_worker::node::run_worker(opts))?;
            Ok(if ok {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            })
        }
        Command::Check {
            run_dir,
            baseline,
            rtol,
            atol,
            statistical,
            alpha,
            correction,
            strict,
            junit,
            against_paper,
        } => check_exit(check(CheckArgs {
            run_dir,
            baseline,
            rtol,
            atol,
            statistical: statistical.then(|| StatOptions {
                alpha,
                correction: correction.into(),
                strict,
                rtol,
                atol,
            }),
            junit,
            against_paper,
        })),
        Command::Status { run_dir } => {
            let s = status::status(&run_dir)?;
            emit(&status::render_status(&s))?;
            // A convergence-driven run: its rounds (manifest.json's `until` record).
            let rd = causeway_results::rundir::RunDir::open(&run_dir);
            if let Some(u) = rd.read_manifest().ok().and_then(|m| m.until) {
                emit(&crate::converge::render_rounds(&u))?;
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Validate {
            file,
            profile,
            data_dir,
        } => match experiment::load(&file, profile, data_dir.as_deref()) {
            Ok(plan) => {
                emit(&format!(
                    "{}: ok: {} cells × {} replicates × {} chains\n",
                    file.display(),
                    plan.manifest.cells.len(),
                    plan.replicates,
                    plan.chains
                ))?;
                Ok(ExitCode::SUCCESS)
            }
            Err(e) => {
                eprintln!("error: {e}");
                Ok(ExitCode::from(2))
            }
        },
        Command::Report { run_dir } => {
            let rd = causeway_results::rundir::RunDir::open(&run_dir);
            causeway_results::report::build(&rd)?;
            emit(&format!("tables in {}\n", run_dir.join("tables").display()))?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Site { dir } => site_command(&dir),
        Command::Export {
            run_dir,
            out,
            cells,
        } => export_command(&run_dir, out, &cells),
        Command::Diagnose { file, format } => {
            let per_var = causeway_results::diagnostics::diagnose_file(&file)?;
            emit(&match format {
                Format::Json => causeway_results::diagnostics::render_json(&per_var) + "\n",
                Format::Table => causeway_results::diagnostics::render_table(&per_var),
            })?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Kl {
            p,
            q,
            k,
            standardize_by,
            format,
        } => match crate::kl::kl_files(&p, &q, k, standardize_by.as_deref()) {
            Ok(report) => {
                emit(&crate::kl::render(&report, matches!(format, Format::Table)))?;
                Ok(ExitCode::SUCCESS)
            }
            Err(e) => {
                eprintln!("error: {e}");
                Ok(ExitCode::from(2))
            }
        },
        Command::Score {
            data,
            dag,
            score_type,
            iss,
            alpha,
            format,
        } => match crate::score::parse_score(score_type, iss, alpha.as_deref())
            .and_then(|score| crate::score::score_files(&data, &dag, &score))
        {
            Ok(report) => {
                emit(&crate::score::render(
                    &report,
                    matches!(format, Format::Table),
                ))?;
                Ok(ExitCode::SUCCESS)
            }
            Err(e) => {
                eprintln!("error: {e}");
                Ok(ExitCode::from(2))
            }
        },
    }
}

/// `causeway run`: load and check the plan (exit 2 on a bad file), run it (in rounds with
/// `until:`), and report what was stored; exit 130 when stopped, 1 when a chain failed.
fn run_command(args: RunArgs) -> anyhow::Result<ExitCode> {
    let RunArgs {
        file,
        profile,
        out,
        local_workers,
        workers,
        data_dir,
        max_attempts,
        lease_timeout,
        listen,
        advertise,
        checkpoint_every,
        checkpoint_iterations,
        chain_seed,
        security,
    } = args;
    let security = security.load()?;
    let plan = match experiment::load(&file, profile, data_dir.as_deref()) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("error: {e}");
            return Ok(ExitCode::from(2));
        }
    };
    let mut plan = match chain_seed {
        Some(seed) => plan.with_chain_seed(seed),
        None => plan,
    };
    plan.manifest.defect = defect_switch();
    let out = out.unwrap_or_else(|| runner::default_out(&plan));
    let workers = match (workers, local_workers) {
        (Some(list), _) if !list.is_empty() => Workers::Remote(list),
        (_, Some(n)) => Workers::Local(n as usize),
        // --listen alone: wait for workers to register.
        _ if listen.is_some() => Workers::Local(0),
        _ => Workers::Local(runner::default_local_workers()),
    };
    let checkpoint_seconds = checkpoint_every
        .or(plan.checkpoint_every.seconds)
        .unwrap_or(DEFAULT_CHECKPOINT_SECONDS);
    if !(checkpoint_seconds >= 0.0 && checkpoint_seconds.is_finite()) {
        anyhow::bail!(
            "--checkpoint-every must be a number of seconds ≥ 0, not {checkpoint_seconds}"
        );
    }
    let checkpoint_iterations = checkpoint_iterations.or(plan.checkpoint_every.iterations);
    let opts = RunOptions {
        dispatch: DispatchOptions {
            max_attempts,
            lease_timeout: seconds(lease_timeout, "--lease-timeout")?,
            checkpoint_seconds: (checkpoint_seconds > 0.0).then_some(checkpoint_seconds),
            checkpoint_iterations: checkpoint_iterations.filter(|&n| n > 0),
        },
        progress: true,
        listen: listen.map(|addr| runner::Listen { addr, advertise }),
        handle_signals: true,
        security,
        ..RunOptions::new(out, workers)
    };
    let n_jobs = plan.manifest.cells.len() as u64 * plan.replicates * plan.chains;
    eprintln!(
        "{}: {} cells × {} replicates × {} chains = {n_jobs} chains ({} profile) → {}",
        plan.manifest.name,
        plan.manifest.cells.len(),
        plan.replicates,
        plan.chains,
        plan.profile.as_str(),
        opts.out.display()
    );
    let summary = match plan.until {
        Some((u, _)) => {
            eprintln!(
                "until: R-hat ≤ {}, ESS bulk ≥ {}, ESS tail ≥ {}; at most {} iterations × {} chains",
                u.rhat, u.ess_bulk, u.ess_tail, u.max_iterations, u.max_chains
            );
            runtime()?.block_on(crate::converge::run_until(&plan, &opts))?
        }
        None => runtime()?.block_on(runner::run(&plan, &opts))?,
    };
    if summary.interrupted {
        let done = summary.total - summary.failed.len();
        eprintln!(
            "stopped: {done} of {} chains stored, the job table is committed. Run the same \
             command again to resume ({} chains left).",
            summary.total,
            summary.failed.len()
        );
        return Ok(ExitCode::from(130));
    }
    // A convergence-driven run plans chains up to max_chains and runs an extended chain once
    // per round: count what its groups use, and chain runs apart from chains.
    let used = plan.until.and_then(|_| {
        let m = causeway_results::rundir::RunDir::open(&summary.out)
            .read_manifest()
            .ok()?;
        Some(m.until?.groups.iter().map(|g| g.chains).sum::<u64>())
    });
    match used {
        Some(used) => eprintln!(
            "{used} chains used by the groups ({} planned up to max_chains): {} chain runs in \
             this call's rounds (an extended chain runs once per round), {} failed, in {:.1} s. \
             Tables: {}",
            summary.total,
            summary.ok,
            summary.failed.len(),
            summary.seconds,
            summary.out.join("tables").display()
        ),
        None => eprintln!(
            "{} chains: {} run, {} already stored, {} failed, in {:.1} s. Tables: {}",
            summary.total,
            summary.ok,
            summary.skipped,
            summary.failed.len(),
            summary.seconds,
            summary.out.join("tables").display()
        ),
    }
    if !summary.failed.is_empty() {
        eprintln!("failed chains (also in jobs.csv and jobs.sqlite):");
        let shown = &summary.failed[..summary.failed.len().min(50)];
        eprint!("{}", status::failure_table(shown));
        if summary.failed.len() > shown.len() {
            eprintln!("  ... and {} more", summary.failed.len() - shown.len());
        }
    }
    Ok(if summary.failed.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// A positive, finite number of seconds from the command line.
/// The longest duration a flag accepts: a year. Longer ones are typing errors, and past
/// `Duration`'s range (about 1.8·10¹⁹ s) converting them would panic.
const MAX_FLAG_SECONDS: f64 = 365.0 * 24.0 * 3600.0;

fn seconds(v: f64, flag: &str) -> anyhow::Result<Duration> {
    if !(v.is_finite() && v > 0.0) {
        anyhow::bail!("{flag}: {v} is not a positive number of seconds")
    }
    if v > MAX_FLAG_SECONDS {
        anyhow::bail!(
            "{flag}: {v} seconds is more than a year: allowed values are 0 < seconds ≤ {MAX_FLAG_SECONDS}"
        )
    }
    Ok(Duration::from_secs_f64(v))
}

//! The `causeway` command line.
//!
//! ```text
//! causeway run FILE [--profile quick|paper] [--out DIR] [--local-workers N] [--workers LIST] [--data-dir DIR] [SECURITY]
//! causeway worker --listen ADDR [--slots N] [SECURITY]
//! causeway check RUN_DIR --baseline RUN_DIR|YAML|CSV [--rtol X] [--atol X]
//!   SECURITY: [--token-file FILE] [--insecure] [--tls-cert PEM --tls-key PEM] [--tls-ca PEM]
//! causeway validate FILE [--profile quick|paper]
//! causeway report RUN_DIR
//! causeway diagnose FILE [--format json|table]
//! ```

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};

use crate::dispatch::DispatchOptions;
use crate::experiment::{self, ProfileName};
use crate::runner::{self, RunOptions, Workers};
use crate::security_args::SecurityArgs;

#[derive(Parser, Debug)]
#[command(name = "causeway", version = causeway_worker::CODE_VERSION, about = "Reproduce Bayesian structure-learning papers at cluster scale")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Run an experiment grid and build its tables.
    Run {
        /// The experiment YAML (e.g. experiments/wood2006/fig3.yaml).
        file: PathBuf,
        /// `quick` (minutes on 2 cores, same code) or `paper` (the paper's sizes).
        #[arg(long, value_enum, default_value = "quick")]
        profile: ProfileName,
        /// Run directory [default: runs/<experiment name>]. A rerun on the same directory
        /// resumes: chains already stored are not run again.
        #[arg(long)]
        out: Option<PathBuf>,
        /// Number of local gRPC workers on 127.0.0.1 [default: one per core].
        #[arg(long)]
        local_workers: Option<usize>,
        /// Use these remote workers instead of local ones: host:port,host:port,...
        #[arg(long, value_delimiter = ',')]
        workers: Option<Vec<String>>,
        /// Directory of real datasets [default: data_dir in the YAML, else ../../data from it].
        #[arg(long)]
        data_dir: Option<PathBuf>,
        /// RPC attempts per chain before it is reported lost.
        #[arg(long, default_value_t = 3)]
        max_attempts: u32,
        #[command(flatten)]
        security: SecurityArgs,
    },
    /// Run a worker that serves chains over gRPC.
    Worker {
        /// Address to listen on, e.g. 0.0.0.0:7070.
        #[arg(long)]
        listen: SocketAddr,
        /// Chains run at once [default: one per core].
        #[arg(long)]
        slots: Option<u32>,
        #[command(flatten)]
        security: SecurityArgs,
    },
    /// Compare a run's tables with a baseline (a previous run directory, an experiment YAML's
    /// `checks:`, or a CSV table,row,column,expected,tolerance); exit 1 on a regression.
    Check {
        run_dir: PathBuf,
        #[arg(long)]
        baseline: PathBuf,
        /// Relative tolerance for numeric cells against a baseline run directory.
        #[arg(long, default_value_t = causeway_results::check::DEFAULT_RTOL)]
        rtol: f64,
        /// Absolute tolerance for numeric cells against a baseline run directory.
        #[arg(long, default_value_t = causeway_results::check::DEFAULT_ATOL)]
        atol: f64,
    },
    /// Check an experiment file (every cell) without running anything.
    Validate {
        file: PathBuf,
        #[arg(long, value_enum, default_value = "quick")]
        profile: ProfileName,
        #[arg(long)]
        data_dir: Option<PathBuf>,
    },
    /// Rebuild the tables and figures of a run directory.
    Report { run_dir: PathBuf },
    /// Convergence diagnostics (R-hat, ESS, MCSE) of a draws file: CSV or Parquet with columns
    /// chain,draw,<one column per variable>.
    Diagnose {
        file: PathBuf,
        #[arg(long, value_enum, default_value = "json")]
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
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn")),
        )
        .with_writer(std::io::stderr)
        .init();
    match dispatch_command(cli.command) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

fn runtime() -> anyhow::Result<tokio::runtime::Runtime> {
    Ok(tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?)
}

fn dispatch_command(cmd: Command) -> anyhow::Result<ExitCode> {
    match cmd {
        Command::Run {
            file,
            profile,
            out,
            local_workers,
            workers,
            data_dir,
            max_attempts,
            security,
        } => {
            let security = security.load()?;
            let plan = match experiment::load(&file, profile, data_dir.as_deref()) {
                Ok(p) => p,
                Err(e) => {
                    eprintln!("error: {e}");
                    return Ok(ExitCode::from(2));
                }
            };
            let out = out.unwrap_or_else(|| runner::default_out(&plan));
            let workers = match workers {
                Some(list) if !list.is_empty() => Workers::Remote(list),
                _ => Workers::Local(local_workers.unwrap_or_else(runner::default_local_workers)),
            };
            let opts = RunOptions {
                out,
                workers,
                dispatch: DispatchOptions {
                    max_attempts: max_attempts.max(1),
                },
                progress: true,
                report: true,
                security,
            };
            let n_jobs = plan.cells.len() as u64 * plan.replicates * plan.chains;
            eprintln!(
                "{}: {} cells × {} replicates × {} chains = {n_jobs} chains ({} profile) → {}",
                plan.name,
                plan.cells.len(),
                plan.replicates,
                plan.chains,
                plan.profile.as_str(),
                opts.out.display()
            );
            let summary = runtime()?.block_on(runner::run(&plan, &opts))?;
            eprintln!(
                "{} chains: {} run, {} already stored, {} failed, in {:.1} s. Tables: {}",
                summary.total,
                summary.ok,
                summary.skipped,
                summary.failed.len(),
                summary.seconds,
                summary.out.join("tables").display()
            );
            for f in summary.failed.iter().take(20) {
                eprintln!("  {} {}: {}", f.job_id, f.state, f.error);
            }
            Ok(if summary.failed.is_empty() {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            })
        }
        Command::Worker {
            listen,
            slots,
            security,
        } => {
            let security = security.load()?;
            security.check_listen(listen)?;
            let slots = slots.unwrap_or_else(|| runner::default_local_workers() as u32);
            let svc =
                causeway_worker::WorkerService::new(format!("{}@{listen}", hostname()), slots);
            eprintln!(
                "causeway worker {} listening on {listen} with {slots} slots ({})",
                causeway_worker::CODE_VERSION,
                security.describe()
            );
            runtime()?.block_on(async move {
                causeway_worker::serve(svc, listen, &security, async {
                    let _ = tokio::signal::ctrl_c().await;
                })
                .await
                .map_err(|e| anyhow::anyhow!("worker on {listen}: {e}"))
            })?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Check {
            run_dir,
            baseline,
            rtol,
            atol,
        } => crate::check_cmd::run(&run_dir, &baseline, rtol, atol),
        Command::Validate {
            file,
            profile,
            data_dir,
        } => match experiment::load(&file, profile, data_dir.as_deref()) {
            Ok(plan) => {
                println!(
                    "{}: ok: {} cells × {} replicates × {} chains",
                    file.display(),
                    plan.cells.len(),
                    plan.replicates,
                    plan.chains
                );
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
            println!("tables in {}", run_dir.join("tables").display());
            Ok(ExitCode::SUCCESS)
        }
        Command::Diagnose { file, format } => {
            let per_var = causeway_results::diagnostics::diagnose_file(&file)?;
            match format {
                Format::Json => {
                    println!("{}", causeway_results::diagnostics::render_json(&per_var))
                }
                Format::Table => {
                    print!("{}", causeway_results::diagnostics::render_table(&per_var))
                }
            }
            Ok(ExitCode::SUCCESS)
        }
    }
}

fn hostname() -> String {
    std::env::var("HOSTNAME").unwrap_or_else(|_| "worker".into())
}

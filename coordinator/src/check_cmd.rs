//! `causeway check RUN_DIR --baseline FILE`: the nightly regression check of a run's tables
//! (the comparison itself is `causeway_results::check`).

use std::path::Path;
use std::process::ExitCode;

use causeway_results::check::{self, CheckReport};

use crate::experiment::{self, ProfileName};

/// Compare `run_dir` with `baseline` (a run directory, an experiment YAML with `checks:`, or a
/// CSV `table,row,column,expected,tolerance`), print the Markdown diff table, and return exit
/// code 1 on a regression, 0 otherwise.
pub fn run(run_dir: &Path, baseline: &Path, rtol: f64, atol: f64) -> anyhow::Result<ExitCode> {
    let report = compare(run_dir, baseline, rtol, atol)?;
    crate::cli::emit(&format!(
        "# causeway check {} against {}\n\n{}",
        run_dir.display(),
        baseline.display(),
        report.to_markdown(false)
    ))?;
    Ok(if report.passed() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// The comparison behind [`run`].
pub fn compare(
    run_dir: &Path,
    baseline: &Path,
    rtol: f64,
    atol: f64,
) -> anyhow::Result<CheckReport> {
    if baseline.is_dir() {
        return Ok(check::compare_runs(run_dir, baseline, rtol, atol)?);
    }
    let ext = baseline
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or("")
        .to_ascii_lowercase();
    let expected = match ext.as_str() {
        "yaml" | "yml" => {
            let plan = experiment::load(baseline, ProfileName::Quick, None)?;
            if plan.checks.is_empty() {
                anyhow::bail!("{}: has no `checks:` entries", baseline.display());
            }
            plan.checks
        }
        "csv" => check::expectations_from_csv(baseline)?,
        _ => anyhow::bail!(
            "--baseline {}: expected a run directory, an experiment .yaml or a .csv",
            baseline.display()
        ),
    };
    Ok(check::check_expected(run_dir, &expected)?)
}

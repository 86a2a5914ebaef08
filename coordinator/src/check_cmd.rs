//! `causeway check`: a run's tables against a baseline (a run directory, an experiment YAML's
//! `checks:`, a CSV of expected values), statistically against another run, or against the
//! papers' values (`--against-paper`); the comparisons themselves are
//! `causeway_results::{check, check_stats}`.
//!
//! Exit codes: 0 passed, 1 a regression (a cell, or a run that is incomplete: fewer chains
//! stored than planned), 2 the check could not run (a missing directory, an unwritable
//! `--junit` path, bad flags, nothing to compare).

use std::path::{Path, PathBuf};

use causeway_results::check::{self, CheckReport};
use causeway_results::check_stats::{self, Correction, StatOptions};
use causeway_results::rundir::{RunDir, missing_summary};
use clap::ValueEnum;

use crate::experiment::{self, ProfileName};

/// What `causeway check` was asked.
pub struct CheckArgs {
    pub run_dir: PathBuf,
    pub baseline: Option<PathBuf>,
    pub rtol: f64,
    pub atol: f64,
    pub statistical: Option<StatOptions>,
    pub junit: Option<PathBuf>,
    pub against_paper: bool,
}

/// What `causeway check` prints, and whether it passed.
pub struct Verdict {
    pub text: String,
    pub passed: bool,
}

/// Run `causeway check`. Errors: the check could not run (the caller exits 2).
pub fn check(a: CheckArgs) -> anyhow::Result<Verdict> {
    match (&a.baseline, a.statistical) {
        _ if a.against_paper => against_paper_command(&a.run_dir, a.junit.as_deref()),
        (Some(b), Some(options)) => {
            check_statistical_command(&a.run_dir, b, options, a.junit.as_deref())
        }
        (Some(b), None) => check_command(&a.run_dir, b, a.rtol, a.atol, a.junit.as_deref()),
        (None, _) => Err(anyhow::anyhow!(
            "causeway check: give --baseline or --against-paper"
        )),
    }
}

/// Why `dir` (a run directory) is incomplete, if it is: its plan has chains whose files are not
/// stored (a killed run, failed chains), so its tables average fewer chains than planned.
/// Not a run directory (a YAML or CSV baseline), or no manifest: `None`.
fn incomplete(dir: &Path) -> Option<String> {
    let rd = RunDir::open(dir);
    let m = rd.read_manifest().ok()?;
    missing_summary(&rd.missing_chains(&m)).map(|line| format!("{}: {line}", dir.display()))
}

/// The incomplete runs among `dirs`, as Markdown (empty if none) and as one JUnit test case.
fn completeness(dirs: &[&Path]) -> (String, Vec<(String, Vec<String>)>) {
    let lines: Vec<String> = dirs.iter().filter_map(|d| incomplete(d)).collect();
    if lines.is_empty() {
        return (String::new(), Vec::new());
    }
    let md = format!(
        "## Incomplete runs (a regression: their tables average fewer chains than planned)\n\n{}\n\n",
        lines
            .iter()
            .map(|l| format!("- {l}"))
            .collect::<Vec<_>>()
            .join("\n")
    );
    (md, vec![("run completeness".to_string(), lines)])
}

/// A baseline that is the run itself compares nothing new: say so.
fn warn_if_self(run_dir: &Path, baseline: &Path) {
    let same = match (run_dir.canonicalize(), baseline.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    };
    if same {
        eprintln!(
            "warning: the baseline {} is the run itself: every cell agrees by construction",
            baseline.display()
        );
    }
}

/// `--correction` of `causeway check --statistical`.
#[derive(Copy, Clone, Debug, ValueEnum)]
pub enum CorrectionArg {
    /// Holm step-down (family-wise error rate).
    Holm,
    /// Benjamini–Hochberg step-up (false discovery rate).
    Bh,
}

impl From<CorrectionArg> for Correction {
    fn from(c: CorrectionArg) -> Self {
        match c {
            CorrectionArg::Holm => Correction::Holm,
            CorrectionArg::Bh => Correction::Bh,
        }
    }
}

/// `causeway check RUN_DIR --baseline FILE`: the nightly regression check of a run's tables.
/// Compare `run_dir` with `baseline` (a run directory, an experiment YAML with `checks:`, or a
/// CSV `table,row,column,expected,tolerance`), print the Markdown diff table, and return exit
/// code 1 on a regression, 0 otherwise.
///
/// On a failure against a run directory, say how many differing cells carry an `_se` and
/// suggest `--statistical`; `--junit FILE` writes one test case per table.
fn check_command(
    run_dir: &Path,
    baseline: &Path,
    rtol: f64,
    atol: f64,
    junit: Option<&Path>,
) -> anyhow::Result<Verdict> {
    warn_if_self(run_dir, baseline);
    let report = check_compare(run_dir, baseline, rtol, atol)?;
    let (incomplete_md, incomplete_cases) = completeness(&[run_dir, baseline]);
    let hint = if !report.passed() && baseline.is_dir() {
        check_stats::se_hint(
            &report,
            &check::read_run_tables(run_dir)?,
            &check::read_run_tables(baseline)?,
        )
    } else {
        String::new()
    };
    let text = format!(
        "# causeway check {} against {}\n\n{incomplete_md}{}{}",
        run_dir.display(),
        baseline.display(),
        report.to_markdown(false),
        if hint.is_empty() {
            String::new()
        } else {
            format!("\n{hint}")
        }
    );
    let passed = report.passed() && incomplete_cases.is_empty();
    if let Some(path) = junit {
        // The exact report as a statistical one without statistical cells: the same XML.
        let as_stat = check_stats::StatReport {
            exact: report,
            cells: Vec::new(),
            options: StatOptions {
                alpha: check_stats::DEFAULT_ALPHA,
                correction: Correction::Holm,
                strict: false,
                rtol,
                atol,
            },
        };
        write_junit(path, &as_stat.to_junit_with(&incomplete_cases))?;
    }
    Ok(Verdict { text, passed })
}

fn write_junit(path: &Path, xml: &str) -> anyhow::Result<()> {
    std::fs::write(path, xml)
        .map_err(|e| anyhow::anyhow!("--junit {}: cannot write: {e}", path.display()))
}

/// `causeway check RUN_DIR --baseline RUN_DIR --statistical`: see
/// `causeway_results::check_stats`. Prints the Markdown report (ending with the one-line
/// summary); exit 1 on a regression (or, with `--strict`, an unconverged cell).
fn check_statistical_command(
    run_dir: &Path,
    baseline: &Path,
    options: StatOptions,
    junit: Option<&Path>,
) -> anyhow::Result<Verdict> {
    warn_if_self(run_dir, baseline);
    let report = check_statistical(run_dir, baseline, options)?;
    let (incomplete_md, incomplete_cases) = completeness(&[run_dir, baseline]);
    let text = format!(
        "# causeway check {} against {} (statistical)\n\n{incomplete_md}{}",
        run_dir.display(),
        baseline.display(),
        report.to_markdown()
    );
    if let Some(path) = junit {
        write_junit(path, &report.to_junit_with(&incomplete_cases))?;
    }
    Ok(Verdict {
        text,
        passed: report.passed() && incomplete_cases.is_empty(),
    })
}

/// The comparison behind `causeway check --statistical` (a baseline run directory only).
/// Errors: a bad alpha, a baseline that is not a directory, unreadable tables, or nothing
/// compared.
pub fn check_statistical(
    run_dir: &Path,
    baseline: &Path,
    options: StatOptions,
) -> anyhow::Result<check_stats::StatReport> {
    if !(options.alpha > 0.0 && options.alpha < 1.0) {
        anyhow::bail!("--alpha {}: must lie in (0, 1)", options.alpha);
    }
    if !baseline.is_dir() {
        anyhow::bail!(
            "--statistical compares two run directories; --baseline {} is not one",
            baseline.display()
        );
    }
    let report = check_stats::compare_runs_statistical(run_dir, baseline, options)?;
    if report.compared() == 0 && report.unconverged() == 0 {
        anyhow::bail!(
            "{} compared nothing with {}: the baseline has no table rows",
            run_dir.display(),
            baseline.display()
        );
    }
    Ok(report)
}

/// `causeway check RUN_DIR --against-paper`: the cells beyond |z_paper| > 3 (exit 1 if any, or
/// if the run is incomplete); an error when no table has a `z_paper` value. `--junit FILE`:
/// one test case per table with a `z_paper` column.
fn against_paper_command(run_dir: &Path, junit: Option<&Path>) -> anyhow::Result<Verdict> {
    let tables = check::read_run_tables(run_dir)?;
    let paper = check_stats::against_paper(&tables, 3.0);
    let (incomplete_md, incomplete_cases) = completeness(&[run_dir]);
    let text = format!(
        "# causeway check {} against the papers\n\n{incomplete_md}{}",
        run_dir.display(),
        paper.markdown
    );
    // A check that compared nothing proves nothing (as against a baseline).
    if paper.tested == 0 {
        anyhow::bail!(
            "{}: no table has a `z_paper` value: nothing compared with the papers",
            run_dir.display()
        );
    }
    if let Some(path) = junit {
        let mut per: std::collections::BTreeMap<&str, Vec<String>> = paper
            .per_table
            .iter()
            .map(|(t, f)| (t.as_str(), f.clone()))
            .collect();
        for (name, fails) in &incomplete_cases {
            per.insert(name, fails.clone());
        }
        let summary = format!(
            "{} cells with a paper value; {} beyond |z| > 3",
            paper.tested, paper.beyond
        );
        write_junit(path, &check_stats::junit_xml(&per, &summary))?;
    }
    Ok(Verdict {
        text,
        passed: paper.beyond == 0 && incomplete_cases.is_empty(),
    })
}

/// The comparison behind `causeway check` (the comparison itself is `causeway_results::check`).
pub fn check_compare(
    run_dir: &Path,
    baseline: &Path,
    rtol: f64,
    atol: f64,
) -> anyhow::Result<CheckReport> {
    for (flag, v) in [("--rtol", rtol), ("--atol", atol)] {
        if !(v.is_finite() && v >= 0.0) {
            anyhow::bail!("{flag} {v}: a tolerance must be a finite number ≥ 0");
        }
    }
    let report = check_compare_inner(run_dir, baseline, rtol, atol)?;
    // A check that compared nothing proves nothing: an empty or header-only baseline, or a
    // checks file without entries, is an error, not a pass.
    let (ok, bad, _) = report.counts();
    if ok + bad == 0 {
        anyhow::bail!(
            "{} compared nothing with {}: the baseline has no table rows or checks",
            run_dir.display(),
            baseline.display()
        );
    }
    Ok(report)
}

fn check_compare_inner(
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

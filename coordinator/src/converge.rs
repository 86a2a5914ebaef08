//! Convergence-driven runs: `until: {rhat, ess_bulk, ess_tail, max_iterations,
//! max_chains}`.
//!
//! The run proceeds in rounds. Round 1 runs every (cell, replicate) group's `chains` chains for
//! `run.iterations`. After each round every group still running is judged on the monitored
//! scalars (`causeway_results::report::until_table::group_diagnostics`: R-hat, bulk and tail ESS, the
//! convergence table's figures) and, if short, grows by the rule:
//! - its iterations double, never past `max_iterations`: each chain goes on from its end state
//!   (the checkpoint the worker saves after the last iteration, table `ends` of `jobs.sqlite`;
//!   the rows already stored are read back from the chain's files and not run again);
//! - once at `max_iterations`, its chains double, never past `max_chains`: the new chains are
//!   chain numbers `chains ..`, each on its own stream of the one seeding function, run for the
//!   group's iterations;
//! - at both caps it stops, `capped`, with the diagnostics it stopped at.
//!
//! A chain extended in rounds is byte-identical to one run for its total iterations in one go
//! with the same `run.burn_in`: the sampler's own burn-in (its adaptation, the summaries it
//! accumulates) is the first round's `run.burn_in` for the chain's whole life. A fractional
//! `run.burn_in` (e.g. `0.5`) is re-applied to the diagnostics and trace-based tables of each
//! round: a group of N iterations drops its first ⌊0.5 N⌋.
//!
//! Durability: the round's targets are in `manifest.json` (its `until` record) before any
//! chain of the round runs, a chain's stored files are at the target only if their trace has
//! ⌊target / thin⌋ rows, and a chain stopped mid-extension resumes from its last checkpoint, so
//! a rerun of the same command after a kill -9 goes on where the run was.

use std::sync::Arc;
use std::time::Instant;

use anyhow::Context;
use causeway_results::report::until_table::group_diagnostics;
use causeway_results::rundir::RunDir;
use causeway_results::rundir::{Criterion, GroupRecord, GroupState, RoundRecord, UntilRecord};

use crate::experiment::Plan;
use crate::round::Round;
use crate::runner::{self, RunOptions, RunSummary};

/// The record of a new run: round 1, every group at `chains` × `run.iterations`.
fn first_record(plan: &Plan, criterion: Criterion, fraction: Option<f64>) -> UntilRecord {
    let mut groups = Vec::new();
    for c in plan.manifest.cells.iter() {
        for r in 0..plan.replicates {
            groups.push(GroupRecord {
                cell: c.index,
                replicate: r,
                iterations: c.run.iterations,
                chains: plan.chains,
                state: GroupState::Running,
                rhat: None,
                ess_bulk: None,
                ess_tail: None,
            });
        }
    }
    UntilRecord {
        criterion,
        burn_in_fraction: fraction,
        round: 1,
        rounds: Vec::new(),
        groups,
    }
}

/// The growth rule: a short group's iterations double (up to `max_iterations`), then its chains
/// (up to `max_chains`); `false` when it is at both caps.
pub fn grow(g: &mut GroupRecord, c: &Criterion) -> bool {
    if g.iterations < c.max_iterations {
        g.iterations = g.iterations.saturating_mul(2).min(c.max_iterations);
        true
    } else if g.chains < c.max_chains {
        g.chains = g.chains.saturating_mul(2).min(c.max_chains);
        true
    } else {
        false
    }
}

fn finite(x: f64) -> Option<f64> {
    (!x.is_nan()).then_some(x)
}

/// A group's worst R-hat for the record: none when a monitored scalar never moved (its R-hat is
/// NaN, so the worst is unknown, not the largest of the others).
fn judged_rhat(d: &causeway_results::report::CellConvergence) -> Option<f64> {
    if d.stuck { None } else { finite(d.rhat) }
}

/// Run `plan` (which has an `until:` block) in rounds until every group meets the criterion or
/// is capped, then build the report (if `opts.report`). A rerun on the same directory goes on
/// from the round `manifest.json` records. Returns the last round's summary with `ok` and
/// `seconds` over all rounds of this call; stopped early if a round is interrupted or a chain
/// fails.
pub async fn run_until(plan: &Plan, opts: &RunOptions) -> anyhow::Result<RunSummary> {
    let Some((criterion, fraction)) = plan.until else {
        anyhow::bail!("{} has no until: block", plan.file.display());
    };
    let start = Instant::now();
    let rd = RunDir::create(&opts.out)?;
    let old = rd.read_manifest().ok().filter(|m| {
        m.cells == plan.manifest.cells && m.jobs == plan.manifest.jobs && m.until.is_some()
    });
    let mut rec = match old.and_then(|m| m.until) {
        Some(mut r) => {
            eprintln!("until: going on from round {}", r.round);
            if r.criterion != criterion || r.burn_in_fraction != fraction {
                rejudge(&rd, plan, &mut r, criterion, fraction)?;
            }
            r
        }
        None => first_record(plan, criterion, fraction),
    };
    let mut ok = 0;
    let mut last: Option<RunSummary> = None;
    while rec.groups.iter().any(|g| g.state == GroupState::Running) {
        let round_start = Instant::now();
        let running = rec
            .groups
            .iter()
            .filter(|g| g.state == GroupState::Running)
            .count();
        eprintln!(
            "until: round {}: {running} of {} groups run",
            rec.round,
            rec.groups.len()
        );
        let (mut p, summary) = run_round(plan, &rec, opts).await?;
        ok += summary.ok;
        let stop = summary.interrupted || !summary.failed.is_empty();
        last = Some(summary);
        if stop {
            break;
        }
        // Judge every running group on its stored chains.
        let (mut short, mut capped) = (0, 0);
        for g in rec.groups.iter_mut() {
            if g.state != GroupState::Running {
                continue;
            }
            let d = group_diagnostics(&rd, &p.manifest, g.cell, g.replicate)
                .with_context(|| format!("diagnostics of cell {} rep {}", g.cell, g.replicate))?;
            (g.rhat, g.ess_bulk, g.ess_tail) =
                (judged_rhat(&d), finite(d.ess_bulk), finite(d.ess_tail));
            if criterion.met(&d) {
                g.state = GroupState::Met;
            } else if grow(g, &criterion) {
                short += 1;
            } else {
                g.state = GroupState::Capped;
                capped += 1;
            }
        }
        rec.rounds.push(RoundRecord {
            round: rec.round,
            groups_run: running,
            short,
            capped,
            seconds: round_start.elapsed().as_secs_f64(),
            criterion_before: None,
        });
        eprintln!(
            "until: round {} done in {:.1} s: {short} groups short (extended), {capped} capped",
            rec.round,
            round_start.elapsed().as_secs_f64()
        );
        if short > 0 {
            rec.round += 1;
        }
        p.manifest.until = Some(rec.clone());
        rd.write_manifest(&p.manifest)?;
    }
    let mut summary = match last {
        Some(mut s) => {
            s.ok = ok;
            s
        }
        // Every group was already settled: nothing to run (a rerun of a finished run).
        None => run_round(plan, &rec, opts).await?.1,
    };
    summary.seconds = start.elapsed().as_secs_f64();
    eprint!("{}", render_rounds(&rec));
    if opts.report && !summary.interrupted {
        let built = causeway_results::report::build(&rd);
        if summary.failed.is_empty() {
            built.context("building tables")?;
        } else if let Err(e) = built {
            tracing::warn!("building tables with failed chains: {e:#}");
        }
    }
    Ok(summary)
}

/// A rerun with another `until:` criterion (or burn-in fraction) than the record's: refused if a
/// cap is below what the groups already have (chains are never cut); otherwise every settled
/// group (met or capped) is judged again on its stored chains under the new criterion, those
/// now short grow and run in the next round, and the record says what changed. Groups still
/// running are judged under the new criterion after their round.
fn rejudge(
    rd: &RunDir,
    plan: &Plan,
    rec: &mut UntilRecord,
    criterion: Criterion,
    fraction: Option<f64>,
) -> anyhow::Result<()> {
    if let Some(g) = rec
        .groups
        .iter()
        .find(|g| g.iterations > criterion.max_iterations || g.chains > criterion.max_chains)
    {
        anyhow::bail!(
            "until: the criterion changed, and cell {} replicate {} already has {} chains of {} \
             iterations, beyond max_chains {} or max_iterations {}: caps may only grow on a run \
             directory (choose another --out to start again)",
            g.cell,
            g.replicate,
            g.chains,
            g.iterations,
            criterion.max_chains,
            criterion.max_iterations
        );
    }
    let before = rec.criterion;
    eprintln!(
        "until: the criterion changed ({}) to ({}): every settled group is judged again",
        criterion_text(&before),
        criterion_text(&criterion)
    );
    rec.criterion = criterion;
    rec.burn_in_fraction = fraction;
    let mut m = plan.manifest.clone();
    m.until = Some(rec.clone());
    let (mut short, mut capped) = (0, 0);
    for g in rec.groups.iter_mut() {
        if g.state == GroupState::Running {
            continue;
        }
        let d = group_diagnostics(rd, &m, g.cell, g.replicate)
            .with_context(|| format!("diagnostics of cell {} rep {}", g.cell, g.replicate))?;
        (g.rhat, g.ess_bulk, g.ess_tail) =
            (judged_rhat(&d), finite(d.ess_bulk), finite(d.ess_tail));
        g.state = if criterion.met(&d) {
            GroupState::Met
        } else if grow(g, &criterion) {
            short += 1;
            GroupState::Running
        } else {
            capped += 1;
            GroupState::Capped
        };
    }
    rec.rounds.push(RoundRecord {
        round: rec.round,
        groups_run: 0,
        short,
        capped,
        seconds: 0.0,
        criterion_before: Some(before),
    });
    if short > 0 {
        rec.round += 1;
    }
    m.until = Some(rec.clone());
    rd.write_manifest(&m)?;
    Ok(())
}

fn criterion_text(c: &Criterion) -> String {
    format!(
        "R-hat ≤ {}, ESS bulk ≥ {}, tail ≥ {}, max_iterations {}, max_chains {}",
        c.rhat, c.ess_bulk, c.ess_tail, c.max_iterations, c.max_chains
    )
}

/// Run the chains of round `rec` (without the report): the plan with the record, and the
/// runner's summary.
async fn run_round(
    plan: &Plan,
    rec: &UntilRecord,
    opts: &RunOptions,
) -> anyhow::Result<(Plan, RunSummary)> {
    let mut p = plan.clone();
    p.manifest.until = Some(rec.clone());
    let o = RunOptions {
        report: false,
        round: Some(Arc::new(Round::new(&p, rec))),
        ..opts.clone()
    };
    let summary = runner::run(&p, &o).await?;
    Ok((p, summary))
}

/// The rounds of a convergence-driven run, for `causeway status`: one line per finished round
/// (groups run, short, capped, seconds) and where the groups stand.
pub fn render_rounds(u: &UntilRecord) -> String {
    let mut s = String::from("until rounds:\n  round  groups run  short  capped  seconds\n");
    for r in &u.rounds {
        s.push_str(&format!(
            "  {:>5}  {:>10}  {:>5}  {:>6}  {:>7.1}\n",
            r.round, r.groups_run, r.short, r.capped, r.seconds
        ));
        if let Some(b) = &r.criterion_before {
            s.push_str(&format!(
                "         (criterion changed from {}: settled groups judged again)\n",
                criterion_text(b)
            ));
        }
    }
    let count = |st: GroupState| u.groups.iter().filter(|g| g.state == st).count();
    s.push_str(&format!(
        "  round {}: {} groups met, {} still short (running), {} capped, of {}\n",
        u.round,
        count(GroupState::Met),
        count(GroupState::Running),
        count(GroupState::Capped),
        u.groups.len()
    ));
    // Chains up to `max_chains` that no group has called for stay `pending` in the job table.
    let unused: u64 = u
        .groups
        .iter()
        .map(|g| u.criterion.max_chains.saturating_sub(g.chains))
        .sum();
    if unused > 0 {
        s.push_str(&format!(
            "  {unused} pending chains are ones no group has called for (up to max_chains {})\n",
            u.criterion.max_chains
        ));
    }
    s
}

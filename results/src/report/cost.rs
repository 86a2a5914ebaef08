//! What a run cost: the sampling time of every stored chain, as its worker timed it
//! (the job table's `timing`, the last `elapsed_seconds`), in total and broken down by each grid
//! axis with few values (method, R, hypothesis, …), and the least wall time the run needs on
//! a given number of cores, so that a sweep can be sized for a cluster before it is launched.
//!
//! These are wall-clock figures of the machine that ran the chains (including any sharing of
//! its cores with other load); unlike the tables they are not reproducible, so they are written
//! to `<out>/cost.{md,csv}`, beside `jobs.csv`, not under `tables/`.

use std::collections::BTreeMap;

use polars::prelude::*;

use super::{ReportError, Table, axis_names, fmt_f64, json_text};
use crate::rundir::{Manifest, RunDir};

/// Axes with more distinct values than this get no breakdown (e.g. 95 pairs).
const MAX_BREAKDOWN_VALUES: usize = 12;
/// Core counts for which the table states the least wall time.
const CORES: [usize; 4] = [2, 16, 64, 1024];

/// The coordinator's own time per chain (dispatch, durable job row, storing the chain's file):
/// 0.36 ms, the slowest of the measured runs of `cargo bench --workspace --bench runner --
/// 100000 8` (0.20–0.36 ms on ext4, the slow end right after another run's deletions;
/// README, "Performance"). One coordinator handles chains one after another at this rate, so
/// a run of N chains takes at least N × this however many cores sample them.
pub const RUNNER_SECONDS_PER_CHAIN: f64 = 0.36e-3;

/// The fewest cores beyond which the runner, not the sampling, bounds the wall time:
/// total / cores < N × [`RUNNER_SECONDS_PER_CHAIN`] (None for no chains).
pub fn runner_bound_cores(seconds: &[f64]) -> Option<f64> {
    let floor = seconds.len() as f64 * RUNNER_SECONDS_PER_CHAIN;
    (floor > 0.0).then(|| seconds.iter().sum::<f64>() / floor)
}

/// Least wall time of `seconds` (one entry per chain) on `cores` cores: no schedule beats
/// the total divided evenly, nor the longest chain.
pub fn least_wall_seconds(seconds: &[f64], cores: usize) -> f64 {
    let total: f64 = seconds.iter().sum();
    let longest = seconds.iter().copied().fold(0.0, f64::max);
    (total / cores.max(1) as f64).max(longest)
}

/// `<out>/cost.{md,csv}` (not under `tables/`, which is reproducible byte for byte): rows
/// `all` and one per value of each grid axis with at most 12 values; columns `axis`, `value`, `chains`, `sampler_seconds`, `mean_seconds`,
/// `max_seconds`, `share` (of the total). Chains not stored yet are left out.
///
/// Errors: timings that cannot be read ([`RunDir::read_timings`]).
pub fn cost_table(rd: &RunDir, m: &Manifest) -> Result<Table, ReportError> {
    // (cell, seconds) of every stored chain; the timings in one read (10⁵ chains: one query,
    // not 10⁵ opens).
    let timings = rd.read_timing_seconds(&m.jobs)?;
    let mut chains: Vec<(usize, f64)> = Vec::new();
    // Stored chains without a timing (their coordinator was killed between their files and
    // their row): counted, not timed.
    let mut untimed = 0usize;
    let stored = rd.stored_index();
    for (j, seconds) in m.jobs.iter().zip(timings) {
        if !stored.contains(&j.job_id) {
            continue;
        }
        match seconds {
            Some(seconds) => chains.push((j.cell, seconds)),
            None => untimed += 1,
        }
    }
    let all: Vec<f64> = chains.iter().map(|c| c.1).collect();
    let total: f64 = all.iter().sum();

    let mut groups: Vec<(String, String, Vec<f64>)> = vec![("all".into(), "all".into(), all)];
    for axis in axis_names(m) {
        let mut by: BTreeMap<String, Vec<f64>> = BTreeMap::new();
        for &(cell, s) in &chains {
            let v = m.cells[cell]
                .axes
                .get(&axis)
                .map(json_text)
                .unwrap_or_default();
            by.entry(v).or_default().push(s);
        }
        if by.len() > 1 && by.len() <= MAX_BREAKDOWN_VALUES {
            groups.extend(by.into_iter().map(|(v, s)| (axis.clone(), v, s)));
        }
    }

    let col_s =
        |f: &dyn Fn(&[f64]) -> f64| -> Vec<f64> { groups.iter().map(|g| f(&g.2)).collect() };
    let sum = |s: &[f64]| s.iter().sum::<f64>();
    let df = DataFrame::new_infer_height(vec![
        Series::new(
            "axis".into(),
            groups.iter().map(|g| g.0.clone()).collect::<Vec<_>>(),
        )
        .into(),
        Series::new(
            "value".into(),
            groups.iter().map(|g| g.1.clone()).collect::<Vec<_>>(),
        )
        .into(),
        Series::new(
            "chains".into(),
            groups.iter().map(|g| g.2.len() as u64).collect::<Vec<_>>(),
        )
        .into(),
        Series::new("sampler_seconds".into(), col_s(&sum)).into(),
        Series::new(
            "mean_seconds".into(),
            col_s(&|s| sum(s) / s.len().max(1) as f64),
        )
        .into(),
        Series::new(
            "max_seconds".into(),
            col_s(&|s| s.iter().copied().fold(0.0, f64::max)),
        )
        .into(),
        Series::new(
            "share".into(),
            col_s(&|s| {
                if total > 0.0 {
                    sum(s) / total
                } else {
                    f64::NAN
                }
            }),
        )
        .into(),
    ])?;
    let walls: Vec<String> = CORES
        .iter()
        .map(|&c| {
            format!(
                "{c} cores {} s",
                fmt_f64(least_wall_seconds(&groups[0].2, c))
            )
        })
        .collect();
    let mut notes = Vec::new();
    if untimed > 0 {
        notes.push(format!(
            "{untimed} stored chains have no timing (their coordinator was killed after their \
             files were stored but before their row was committed) and are left out."
        ));
    }
    Ok(Table {
        name: "cost".into(),
        title: "Cost: sampling time per chain, as the workers timed it".into(),
        df,
        notes: [notes, vec![
            format!(
                "{} stored chains, {} s of sampling in all. Least wall time, max(total / cores, longest chain), \
                 dispatch overhead not included: {}. The runner needs ≈ {} ms per chain itself \
                 (RUNNER_SECONDS_PER_CHAIN), at least {} s for these chains: it bounds the wall time beyond \
                 ≈ {} cores.",
                groups[0].2.len(),
                fmt_f64(total),
                walls.join(", "),
                fmt_f64(RUNNER_SECONDS_PER_CHAIN * 1e3),
                fmt_f64(groups[0].2.len() as f64 * RUNNER_SECONDS_PER_CHAIN),
                runner_bound_cores(&groups[0].2).map_or("-".into(), |c| format!("{c:.0}")),
            ),
            "Wall-clock seconds from the job table's timings on the machine that ran each chain, including any \
             sharing of its cores with other load: not reproducible, hence outside tables/."
                .into(),
        ]]
        .concat(),
    })
}

#[cfg(test)]
mod tests {
    use super::{RUNNER_SECONDS_PER_CHAIN, least_wall_seconds, runner_bound_cores};

    #[test]
    fn least_wall_is_the_even_share_or_the_longest_chain() {
        assert_eq!(least_wall_seconds(&[1.0, 1.0, 1.0, 1.0], 2), 2.0);
        assert_eq!(least_wall_seconds(&[10.0, 1.0, 1.0], 2), 10.0);
        assert_eq!(least_wall_seconds(&[3.0, 3.0], 64), 3.0);
        assert_eq!(least_wall_seconds(&[], 4), 0.0);
        assert_eq!(least_wall_seconds(&[2.0, 2.0], 0), 4.0);
    }

    /// 1,000 chains of 0.7 s: 700 s of sampling against 0.7 s of runner time, equal at 1,000 cores.
    #[test]
    fn the_runner_bounds_the_wall_time_beyond_total_over_its_own_time() {
        let c = runner_bound_cores(&vec![1e3 * RUNNER_SECONDS_PER_CHAIN; 1000]).unwrap();
        assert!((c - 1000.0).abs() < 1e-9, "{c}");
        assert_eq!(runner_bound_cores(&[]), None);
    }
}

//! One burn-in for every reader of stored draws: in a convergence-driven run with a fractional
//! `run.burn_in`, the draws the tables and the diagnostics read drop ⌊fraction × the group's
//! iterations⌋ iterations, not the cell's first-round `run.burn_in`.

use causeway_papers::ChainOutput;
use causeway_results::rundir::{Manifest, RunDir, chain_draws, chain_draws_of, stored_chains};

/// A run of one cell, two chains of `iterations` each (column `x` = the iteration number), whose
/// cell says `run.burn_in: cell_burn_in`; with `fraction`, an `until` record whose group ran
/// `iterations` with that burn-in fraction.
fn run_dir(
    iterations: u64,
    cell_burn_in: u64,
    fraction: Option<f64>,
) -> (tempfile::TempDir, RunDir, Manifest) {
    let dir = tempfile::tempdir().unwrap();
    let rd = RunDir::create(dir.path()).unwrap();
    let job = |chain: u64| {
        serde_json::json!({"job_id": format!("c0-r0-k{chain}"), "cell": 0, "replicate": 0, "chain": chain,
            "seed": {"base_seed": 1, "cell": 0, "replicate": 0, "chain": chain}})
    };
    let until = fraction.map(|f| {
        serde_json::json!({
            "criterion": {"rhat": 1.01, "ess_bulk": 400.0, "ess_tail": 400.0,
                          "max_iterations": iterations, "max_chains": 2},
            "burn_in_fraction": f, "round": 3, "rounds": [],
            "groups": [{"cell": 0, "replicate": 0, "iterations": iterations, "chains": 2,
                        "state": "met", "rhat": 1.0, "ess_bulk": 500.0, "ess_tail": 500.0}]
        })
    });
    let mut m = serde_json::json!({
        "name": "burn_in", "description": "", "profile": "quick", "code_version": "test",
        "base_seed": 1, "experiment_file": "burn_in.yaml", "monitor": ["x"], "report": [],
        "reported": {},
        "cells": [{"index": 0, "key": 7, "model": "wood2006", "params": {}, "dataset": {},
                   "run": {"iterations": iterations, "burn_in": cell_burn_in, "thin": 1},
                   "axes": {}, "dataset_key": 7, "dataset_id": "d0000000000000007"}],
        "jobs": [job(0), job(1)]
    });
    if let Some(u) = until {
        m["until"] = u;
    }
    let m: Manifest = serde_json::from_value(m).unwrap();
    rd.write_manifest(&m).unwrap();
    let mut stored_chains = Vec::new();
    for (i, j) in m.jobs.iter().enumerate() {
        let its: Vec<u64> = (1..=iterations).collect();
        let out = ChainOutput {
            trace_names: vec!["x".into()],
            trace: its.iter().map(|&i| i as f64).collect(),
            iterations: its,
            stat_names: Vec::new(),
            stats: Vec::new(),
            summary: Vec::new(),
            elapsed_seconds: vec![0.0; iterations as usize],
        };
        stored_chains.push((i, j.job_id.clone(), out));
    }
    rd.store_chains(m.jobs.len(), stored_chains).unwrap();
    (dir, rd, m)
}

#[test]
fn burn_in_fractional_until_run_drops_the_fraction_of_the_group_iterations() {
    // Round 3 of an until run: the group ran 400 iterations; the cell still says burn_in 20
    // (round 1's ⌊0.5 × 40⌋). Every reader drops ⌊0.5 × 400⌋ = 200.
    let (_dir, rd, m) = run_dir(400, 20, Some(0.5));
    assert_eq!(m.burn_in(0, 0), 200);
    let chains = stored_chains(&rd, &m, 0, 0, &["x"]).unwrap();
    assert_eq!(chains.len(), 2);
    for c in &chains {
        assert_eq!(
            (c.burn_in, c.iterations.len()),
            (200, 400),
            "every row, burn-in known"
        );
        let kept = c.kept_iterations();
        assert_eq!(kept.first(), Some(&201));
        assert_eq!(kept.len(), 200);
        let x = c.after_burn_in(0).unwrap();
        assert_eq!((x.len(), x[0]), (200, 201.0));
    }
    let draws = chain_draws(&rd, &m, 0, 0, "x").unwrap();
    assert_eq!(draws.len(), 2);
    assert!(draws.iter().all(|d| d.len() == 200 && d[0] == 201.0));
    let [x] =
        <[Vec<Vec<f64>>; 1]>::try_from(chain_draws_of(&rd, &m, 0, 0, &["x"]).unwrap()).unwrap();
    assert_eq!(x, draws);
}

#[test]
fn burn_in_fixed_length_run_drops_the_cell_burn_in() {
    let (_dir, rd, m) = run_dir(100, 30, None);
    assert_eq!(m.burn_in(0, 0), 30);
    let chains = stored_chains(&rd, &m, 0, 0, &["x", "missing"]).unwrap();
    for c in &chains {
        assert_eq!(c.kept_iterations(), (31..=100).collect::<Vec<u64>>());
        assert!(
            c.after_burn_in(1).is_none(),
            "a column the trace lacks is None"
        );
    }
    // A scalar the traces lack leaves that scalar's list empty.
    let per = chain_draws_of(&rd, &m, 0, 0, &["missing", "x"]).unwrap();
    assert!(per[0].is_empty());
    assert_eq!(per[1].len(), 2);
}

use causeway_papers::ChainOutput;

use super::*;

/// A run of `cells` cells × 1 replicate × 3 chains of 100 iterations (burn-in 30, thin 1):
/// trace `x` = 1000·chain + iteration and `k_plus` = chain; sampler statistic `accepted` =
/// iteration mod 2 (chain 1 of cell 0 not stored when `missing_chain`; no chain stored unless
/// `stored`).
fn run_dir(cells: usize, missing_chain: bool, stored: bool) -> (tempfile::TempDir, Manifest) {
    let dir = tempfile::tempdir().unwrap();
    let rd = RunDir::create(dir.path()).unwrap();
    let mut jobs = Vec::new();
    let mut cell_records = Vec::new();
    for cell in 0..cells {
        cell_records.push(
            serde_json::json!({"index": cell, "key": 7 + cell, "model": "wood2006",
            "params": {"alpha": 1.5, "setting": cell}, "dataset": {"kind": "toy"},
            "run": {"iterations": 100, "burn_in": 30, "thin": 1},
            "axes": {"params.setting": cell}, "dataset_key": 7, "dataset_id": "d0000000000000007"}),
        );
        for chain in 0..3u64 {
            jobs.push(
                serde_json::json!({"job_id": format!("cell{cell}-rep0-chain{chain}"),
                "cell": cell, "replicate": 0, "chain": chain,
                "seed": {"base_seed": 1, "cell": cell, "replicate": 0, "chain": chain}}),
            );
        }
    }
    let m: Manifest = serde_json::from_value(serde_json::json!({
        "name": "export", "description": "", "profile": "quick", "code_version": "abc123",
        "base_seed": 11, "experiment_file": "experiments/x.yaml", "monitor": ["x"],
        "report": [], "reported": {}, "cells": cell_records, "jobs": jobs
    }))
    .unwrap();
    rd.write_manifest(&m).unwrap();
    let mut stored_chains = Vec::new();
    for (i, j) in m.jobs.iter().enumerate() {
        if !stored || (missing_chain && j.cell == 0 && j.chain == 1) {
            continue;
        }
        let its: Vec<u64> = (1..=100).collect();
        let out = ChainOutput {
            trace_names: vec!["x".into(), "k_plus".into()],
            trace: its
                .iter()
                .flat_map(|&i| [1000.0 * j.chain as f64 + i as f64, j.chain as f64])
                .collect(),
            stat_names: vec!["accepted".into()],
            stats: its.iter().map(|&i| (i % 2) as f64).collect(),
            iterations: its,
            summary: Vec::new(),
            elapsed_seconds: vec![0.0; 100],
        };
        stored_chains.push((i, j.job_id.clone(), out));
    }
    rd.store_chains(m.jobs.len(), stored_chains).unwrap();
    (dir, m)
}

fn meta(store: &Path, node: &str) -> Value {
    serde_json::from_slice(&std::fs::read(store.join(node).join("zarr.json")).unwrap()).unwrap()
}

/// An array of the store as the Zarr v3 spec reads it: shape, dimension names, and the values
/// (chunks `c/<i>/0` of one row each for 2-d arrays, `c/0` for 1-d), each 8 little-endian bytes.
fn read_array(store: &Path, node: &str) -> (Vec<u64>, Vec<String>, Vec<[u8; 8]>) {
    let m = meta(store, node);
    assert_eq!(m["zarr_format"], 3);
    assert_eq!(m["node_type"], "array");
    assert_eq!(m["codecs"][0]["configuration"]["endian"], "little");
    let shape: Vec<u64> = serde_json::from_value(m["shape"].clone()).unwrap();
    let dims: Vec<String> = serde_json::from_value(m["dimension_names"].clone()).unwrap();
    let keys: Vec<String> = if shape.len() == 1 {
        vec!["c/0".into()]
    } else {
        (0..shape[0]).map(|i| format!("c/{i}/0")).collect()
    };
    let mut values = Vec::new();
    for k in keys {
        let bytes = std::fs::read(store.join(node).join(k)).unwrap();
        values.extend(
            bytes
                .chunks_exact(8)
                .map(|b| <[u8; 8]>::try_from(b).unwrap()),
        );
    }
    assert_eq!(values.len() as u64, shape.iter().product::<u64>());
    (shape, dims, values)
}

fn read_f64(store: &Path, node: &str) -> (Vec<u64>, Vec<f64>, Vec<String>) {
    let (shape, dims, raw) = read_array(store, node);
    (
        shape,
        raw.into_iter().map(f64::from_le_bytes).collect(),
        dims,
    )
}

fn read_i64(store: &Path, node: &str) -> Vec<i64> {
    read_array(store, node)
        .2
        .into_iter()
        .map(i64::from_le_bytes)
        .collect()
}

#[test]
fn export_writes_posterior_and_sample_stats_after_burn_in() {
    let (dir, _m) = run_dir(1, false, true);
    let out = dir.path().join("idata");
    let done = export_run(dir.path(), &out, &[]).unwrap();
    assert_eq!(done.len(), 1);
    assert_eq!((done[0].chains, done[0].draws), (3, 70));
    let store = done[0].path.clone();
    let (shape, x, dims) = read_f64(&store, "posterior/x");
    assert_eq!(shape, vec![3, 70]);
    assert_eq!(dims, vec!["chain", "draw"]);
    for c in 0..3 {
        let row = &x[c * 70..(c + 1) * 70];
        assert_eq!(
            row[0],
            1000.0 * c as f64 + 31.0,
            "first draw is iteration 31"
        );
        assert_eq!(row[69], 1000.0 * c as f64 + 100.0);
    }
    let (_, k, _) = read_f64(&store, "posterior/k_plus");
    assert_eq!(k[70], 1.0);
    let (shape, acc, _) = read_f64(&store, "sample_stats/accepted");
    assert_eq!(shape, vec![3, 70]);
    assert_eq!(acc[0], 1.0, "iteration 31 is odd");
    assert_eq!(read_i64(&store, "posterior/chain"), vec![0, 1, 2]);
    assert_eq!(
        read_i64(&store, "posterior/draw"),
        (0..70).collect::<Vec<i64>>()
    );
    assert_eq!(read_i64(&store, "sample_stats/chain"), vec![0, 1, 2]);
    let root = meta(&store, "");
    assert_eq!(root["node_type"], "group");
    assert_eq!(meta(&store, "posterior")["node_type"], "group");
    let attrs = &root["attributes"];
    assert_eq!(attrs["code_version"], "abc123");
    assert_eq!(attrs["burn_in"], 30);
    assert_eq!(attrs["params"]["alpha"], 1.5);
    assert_eq!(attrs["inference_library"], "causeway");
    assert_eq!(
        attrs["command"],
        "causeway run experiments/x.yaml --profile quick"
    );
}

#[test]
fn export_is_byte_identical_when_repeated() {
    let (dir, _m) = run_dir(2, false, true);
    let read_all = |root: &Path| {
        let mut files: Vec<(String, Vec<u8>)> = walk(root)
            .into_iter()
            .map(|p| {
                let rel = p.strip_prefix(root).unwrap().display().to_string();
                (rel, std::fs::read(&p).unwrap())
            })
            .collect();
        files.sort();
        files
    };
    let a = dir.path().join("a");
    let b = dir.path().join("b");
    export_run(dir.path(), &a, &[]).unwrap();
    export_run(dir.path(), &b, &[]).unwrap();
    let (fa, fb) = (read_all(&a), read_all(&b));
    assert!(fa.len() > 10, "{} files", fa.len());
    assert_eq!(fa, fb);
    // A second export into the same place replaces the stores.
    export_run(dir.path(), &a, &[]).unwrap();
    assert_eq!(read_all(&a), fb);
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}

#[test]
fn export_keeps_the_stored_chains_of_an_incomplete_cell_and_filters_cells() {
    let (dir, _m) = run_dir(3, true, true);
    let out = dir.path().join("idata");
    let done = export_run(dir.path(), &out, &[0, 2]).unwrap();
    assert_eq!(
        done.iter().map(|e| (e.cell, e.chains)).collect::<Vec<_>>(),
        vec![(0, 2), (2, 3)]
    );
    assert_eq!(
        read_i64(&done[0].path, "posterior/chain"),
        vec![0, 2],
        "the chain numbers of the plan"
    );
    assert!(!out.join(store_name(1, 0)).exists());
    let e = export_run(dir.path(), &out, &[3]).unwrap_err().to_string();
    assert!(e.contains("--cell 3") && e.contains("0..=2"), "{e}");
}

#[test]
fn export_refuses_more_stores_than_the_limit_without_a_cell_filter() {
    let (dir, _m) = run_dir(MAX_STORES + 1, false, false);
    let e = export_run(dir.path(), &dir.path().join("x"), &[])
        .unwrap_err()
        .to_string();
    assert!(e.contains("--cell") && e.contains("1001 cells"), "{e}");
    assert!(!dir.path().join("x").exists(), "nothing written");
}

//! A run's chains as ArviZ InferenceData: one Zarr (v3) store per (cell, replicate), with the
//! groups `posterior` (every traced scalar) and `sample_stats` (every sampler statistic), each
//! variable a float64 array of dims `(chain, draw)` after the burn-in every table drops
//! ([`Manifest::burn_in`]) and at the run's thinning, with int64 coordinates `chain` (the chain
//! numbers of the plan) and `draw` (0, 1, …, as ArviZ numbers draws). The stores carry the cell's
//! parameters, its axes and the run's provenance as attributes; ArviZ opens them with
//! `xarray.open_datatree(path, engine="zarr")` (ArviZ 1.x works on the tree; ArviZ 0.2x:
//! `az.InferenceData.from_datatree` of it).
//!
//! Why Zarr and not netCDF: netCDF-4 groups need the HDF5 C library at build and run time,
//! while a Zarr store is a folder of JSON metadata (`zarr.json`) and raw chunks, so the binary
//! still builds from crates.io alone. Zarr v3 carries each array's dimension names in its
//! metadata, which is what xarray reads. The part of the format this needs (regular chunks,
//! the `bytes` codec, little-endian, no compression) is written here: the `zarrs` crate turns
//! on serde_json's `preserve_order` for the whole build, and the chains' seeds hash the cells'
//! canonical JSON, whose keys must stay sorted (`seed_keys_hash_sorted_json` guards it).
//!
//! The files are deterministic: the same run directory exports the same bytes (no time stamp).
//! A store is written into a temporary folder beside its place, then renamed into it.

use std::path::{Path, PathBuf};

use serde_json::{Map, Value, json};

use crate::rundir::{Manifest, RunDir, StoreError, columns_after_burn_in, write_atomic};

/// Stores one export may write without a cell filter: a grid of one-shot chains (10⁵ cells)
/// would otherwise become 10⁵ directories.
pub const MAX_STORES: usize = 1000;

/// Why an export failed.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("{path}: {message}")]
    Zarr { path: PathBuf, message: String },
    #[error("{0}")]
    Usage(String),
}

fn zarr_err(path: &Path) -> impl Fn(String) -> ExportError + '_ {
    move |message| ExportError::Zarr {
        path: path.to_path_buf(),
        message,
    }
}

/// One exported store: where it is and what it holds.
#[derive(Debug, Clone, PartialEq)]
pub struct Exported {
    pub path: PathBuf,
    pub cell: usize,
    pub replicate: u64,
    /// Chains written (stored chains of the cell and replicate).
    pub chains: usize,
    /// Draws per chain after the burn-in (the longest chain's; shorter ones are NaN-padded).
    pub draws: usize,
}

/// One group's variables: names, and per variable M chains × N draws.
struct Group {
    names: Vec<String>,
    values: Vec<Vec<Vec<f64>>>,
}

/// Assemble per-chain column lists into one group (variables in the first chain's order).
fn group_of(chains: Vec<Vec<(String, Vec<f64>)>>) -> Group {
    let names: Vec<String> = chains
        .first()
        .map(|c| c.iter().map(|(n, _)| n.clone()).collect())
        .unwrap_or_default();
    let values = names
        .iter()
        .map(|name| {
            chains
                .iter()
                .map(|c| {
                    c.iter()
                        .find(|(n, _)| n == name)
                        .map(|(_, v)| v.clone())
                        .unwrap_or_default()
                })
                .collect()
        })
        .collect();
    Group { names, values }
}

/// The stored chains of (cell, replicate): the chain numbers and the two groups (`None`: no
/// chain records sampler statistics).
fn read_cell(
    rd: &RunDir,
    m: &Manifest,
    cell: usize,
    replicate: u64,
) -> Result<(Vec<u64>, Group, Option<Group>), ExportError> {
    let burn_in = m.burn_in(cell, replicate);
    let mut chain_ids = Vec::new();
    let mut posterior = Vec::new();
    let mut stats = Vec::new();
    for j in m
        .jobs
        .iter()
        .filter(|j| j.cell == cell && j.replicate == replicate && rd.chain_done(&j.job_id))
    {
        let trace = rd.read_trace(&j.job_id)?;
        posterior.push(
            columns_after_burn_in(&trace, burn_in).map_err(zarr_err(&rd.trace_path(&j.job_id)))?,
        );
        if let Some(df) = rd.read_sample_stats(&j.job_id)? {
            let path = rd.sample_stats_path(&j.job_id);
            stats.push(columns_after_burn_in(&df, burn_in).map_err(zarr_err(&path))?);
        }
        chain_ids.push(j.chain);
    }
    let stats = (stats.len() == chain_ids.len() && !stats.is_empty()).then(|| group_of(stats));
    Ok((chain_ids, group_of(posterior), stats))
}

/// The store's attributes: ArviZ's own keys plus the cell and the run's provenance.
fn attributes(m: &Manifest, cell: usize, replicate: u64) -> Map<String, Value> {
    let c = &m.cells[cell];
    let attrs = json!({
        "inference_library": "causeway",
        "inference_library_version": env!("CARGO_PKG_VERSION"),
        "code_version": m.code_version,
        "code_versions": m.code_versions,
        "experiment": m.name,
        "experiment_file": m.experiment_file,
        "profile": m.profile,
        "base_seed": m.base_seed,
        "chains_seed": m.chains_seed(),
        "cell": cell,
        "replicate": replicate,
        "model": c.model,
        "axes": c.axes,
        "params": c.params,
        "dataset": c.dataset,
        "iterations": c.run.iterations,
        "burn_in": m.burn_in(cell, replicate),
        "thin": c.run.thin,
        "command": format!("causeway run {} --profile {}", m.experiment_file, m.profile),
    });
    match attrs {
        Value::Object(map) => map,
        _ => Map::new(),
    }
}

/// A Zarr v3 group's `zarr.json`.
fn group_json(attrs: &Map<String, Value>) -> Value {
    json!({"zarr_format": 3, "node_type": "group", "attributes": attrs})
}

/// A Zarr v3 array's `zarr.json`: regular chunks of `chunk` elements, the `bytes` codec
/// (little-endian, no compression), chunk keys `c/i/j`.
fn array_json(shape: &[usize], chunk: &[usize], data_type: &str, dims: &[&str]) -> Value {
    let fill = if data_type == "float64" {
        json!("NaN")
    } else {
        json!(0)
    };
    json!({
        "zarr_format": 3,
        "node_type": "array",
        "shape": shape,
        "data_type": data_type,
        "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": chunk}},
        "chunk_key_encoding": {"name": "default", "configuration": {"separator": "/"}},
        "fill_value": fill,
        "codecs": [{"name": "bytes", "configuration": {"endian": "little"}}],
        "attributes": {},
        "dimension_names": dims,
    })
}

/// Write `bytes` at `dir/rel` (folders made).
fn put(dir: &Path, rel: &str, bytes: &[u8]) -> Result<(), ExportError> {
    let path = dir.join(rel);
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(|e| zarr_err(parent)(e.to_string()))?;
    }
    write_atomic(&path, bytes).map_err(|e| zarr_err(&path)(e.to_string()))
}

fn put_json(dir: &Path, rel: &str, v: &Value) -> Result<(), ExportError> {
    let text = serde_json::to_string_pretty(v).map_err(|e| zarr_err(dir)(e.to_string()))?;
    put(dir, rel, text.as_bytes())
}

/// Little-endian bytes of `values`, NaN-padded to `len` (a shorter chain).
fn f64_bytes(values: &[f64], len: usize) -> Vec<u8> {
    let pad = len.saturating_sub(values.len());
    values
        .iter()
        .copied()
        .chain(std::iter::repeat_n(f64::NAN, pad))
        .flat_map(f64::to_le_bytes)
        .collect()
}

/// Write one group (`posterior` or `sample_stats`) with its coordinates under `store`; returns
/// the draws per chain.
fn write_group(
    store: &Path,
    name: &str,
    chain_ids: &[u64],
    group: &Group,
    attrs: &Map<String, Value>,
) -> Result<usize, ExportError> {
    let draws = group
        .values
        .iter()
        .flat_map(|chains| chains.iter().map(Vec::len))
        .max()
        .unwrap_or(0);
    put_json(store, &format!("{name}/zarr.json"), &group_json(attrs))?;
    let coord = |dim: &str, values: Vec<i64>| -> Result<(), ExportError> {
        let n = values.len();
        let meta = array_json(&[n], &[n.max(1)], "int64", &[dim]);
        put_json(store, &format!("{name}/{dim}/zarr.json"), &meta)?;
        let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        put(store, &format!("{name}/{dim}/c/0"), &bytes)
    };
    coord("chain", chain_ids.iter().map(|&c| c as i64).collect())?;
    coord("draw", (0..draws as i64).collect())?;
    for (var, chains) in group.names.iter().zip(&group.values) {
        let shape = [chain_ids.len(), draws];
        let meta = array_json(&shape, &[1, draws.max(1)], "float64", &["chain", "draw"]);
        put_json(store, &format!("{name}/{var}/zarr.json"), &meta)?;
        for (c, values) in chains.iter().enumerate() {
            put(
                store,
                &format!("{name}/{var}/c/{c}/0"),
                &f64_bytes(values, draws),
            )?;
        }
    }
    Ok(draws)
}

/// Write (cell, replicate)'s InferenceData store at `path` (replaced if it exists). `None` when
/// no chain of it is stored.
pub fn export_cell(
    rd: &RunDir,
    m: &Manifest,
    cell: usize,
    replicate: u64,
    path: &Path,
) -> Result<Option<Exported>, ExportError> {
    let (chain_ids, posterior, stats) = read_cell(rd, m, cell, replicate)?;
    if chain_ids.is_empty() {
        return Ok(None);
    }
    // Written beside its place, then renamed over it: a reader never sees half a store.
    let name = path
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("store.zarr");
    let tmp = path.with_file_name(format!(".{name}.partial"));
    let io = |p: &Path, e: std::io::Error| ExportError::Zarr {
        path: p.to_path_buf(),
        message: e.to_string(),
    };
    if tmp.exists() {
        std::fs::remove_dir_all(&tmp).map_err(|e| io(&tmp, e))?;
    }
    let attrs = attributes(m, cell, replicate);
    put_json(&tmp, "zarr.json", &group_json(&attrs))?;
    let draws = write_group(&tmp, "posterior", &chain_ids, &posterior, &attrs)?;
    if let Some(stats) = &stats {
        write_group(&tmp, "sample_stats", &chain_ids, stats, &attrs)?;
    }
    if path.exists() {
        std::fs::remove_dir_all(path).map_err(|e| io(path, e))?;
    }
    std::fs::rename(&tmp, path).map_err(|e| io(path, e))?;
    Ok(Some(Exported {
        path: path.to_path_buf(),
        cell,
        replicate,
        chains: chain_ids.len(),
        draws,
    }))
}

/// The store name of (cell, replicate): `cell<k>-rep<r>.zarr`.
pub fn store_name(cell: usize, replicate: u64) -> String {
    format!("cell{cell}-rep{replicate}.zarr")
}

/// Export the run in `run_dir` into `out` (created): one store per (cell, replicate) with a
/// stored chain, for every cell or for `cells` only. Errors: an unreadable manifest or chain,
/// a cell index outside the grid, more than [`MAX_STORES`] stores without a cell filter, or a
/// store that cannot be written.
pub fn export_run(
    run_dir: &Path,
    out: &Path,
    cells: &[usize],
) -> Result<Vec<Exported>, ExportError> {
    let rd = RunDir::open(run_dir);
    let m = rd.read_manifest()?;
    if let Some(&bad) = cells.iter().find(|&&c| c >= m.cells.len()) {
        return Err(ExportError::Usage(format!(
            "--cell {bad}: the grid has cells 0..={}",
            m.cells.len().saturating_sub(1)
        )));
    }
    let mut units: Vec<(usize, u64)> = m
        .jobs
        .iter()
        .filter(|j| cells.is_empty() || cells.contains(&j.cell))
        .map(|j| (j.cell, j.replicate))
        .collect();
    units.sort_unstable();
    units.dedup();
    if cells.is_empty() && units.len() > MAX_STORES {
        return Err(ExportError::Usage(format!(
            "{}: {} cells × replicates to export, more than {MAX_STORES} stores: choose cells \
             with --cell (e.g. --cell 0 --cell 5)",
            m.name,
            units.len()
        )));
    }
    std::fs::create_dir_all(out).map_err(|e| ExportError::Zarr {
        path: out.to_path_buf(),
        message: e.to_string(),
    })?;
    let mut done = Vec::new();
    for (cell, rep) in units {
        if let Some(e) = export_cell(&rd, &m, cell, rep, &out.join(store_name(cell, rep)))? {
            done.push(e);
        }
    }
    Ok(done)
}

#[cfg(test)]
mod tests;

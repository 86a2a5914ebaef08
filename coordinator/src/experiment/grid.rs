//! The grid of an experiment file: its axes (`grid.product`, `grid.zip`, and the profile's), its
//! size, and its expansion into cells, each validated by the model and built with its first
//! dataset before any chain runs.

use std::collections::HashMap;

use causeway_papers::{DataContext, Model, RunSpec, dataset_rng, stable_hash};
use causeway_results::rundir::CellRecord;
use yaml_serde::{Mapping, Value};

use super::checks::located;
use super::sbc_block::Sbc;
use super::{
    Ctx, ExperimentError, ExperimentFile, MAX_CELLS, MAX_CHAINS, Profile, count_path, key_str,
    sbc_block, set_path, to_json,
};

/// One axis: (cell path such as `params.alpha`, its YAML path, its values).
type Axis = (String, String, Vec<Value>);

/// The grid's axes: the product's (file order, first outermost; a profile's axis replaces the
/// base's of the same name in place), then the zip groups (each a list of equal-length axes).
pub(super) struct Axes {
    product: Vec<Axis>,
    zips: Vec<Vec<Axis>>,
}

impl Axes {
    /// The length of every dimension: one per product axis, then one per zip group.
    fn dims(&self) -> Vec<usize> {
        let mut dims: Vec<usize> = self.product.iter().map(|a| a.2.len()).collect();
        dims.extend(self.zips.iter().map(|g| g[0].2.len()));
        dims
    }
}

/// The axes of the file's grid with profile `prof`'s (path `pp`) merged in. Errors, at the
/// axis: a key that is not a `params.`/`dataset.` path, an empty or non-list axis, a repeated
/// value (two identical cells), zip axes of unequal lengths or a repeated zip entry, and an
/// axis listed in two places.
pub(super) fn axes(
    ctx: &Ctx<'_>,
    ef: &ExperimentFile,
    prof: &Profile,
    pp: &str,
) -> Result<Axes, ExperimentError> {
    let mut product: Vec<Axis> = Vec::new();
    let mut product_index: HashMap<String, usize> = HashMap::new();
    let mut add_product = |axes: &Mapping, prefix: &str| -> Result<(), ExperimentError> {
        for (k, v) in axes {
            let key = key_str(k);
            let ypath = format!("{prefix}.product.{key}");
            check_axis_key(ctx, &key, &ypath)?;
            let vals = axis_values(ctx, v, &ypath)?;
            // A repeated value would make two identical cells (the same seeds, the same chains).
            for (j, b) in vals.iter().enumerate() {
                if let Some(i) = vals[..j].iter().position(|a| a == b) {
                    return Err(ctx.err_at(
                        &format!("{ypath}[{j}]"),
                        format!(
                            "duplicate grid value {} (also at position {i}): it would make two \
                             identical cells",
                            key_str(b)
                        ),
                    ));
                }
            }
            match product_index.get(&key) {
                Some(&i) => product[i] = (key.clone(), ypath, vals),
                None => {
                    product_index.insert(key.clone(), product.len());
                    product.push((key, ypath, vals));
                }
            }
        }
        Ok(())
    };
    add_product(&ef.grid.product, "grid")?;
    let mut zip_src = (&ef.grid.zip, "grid".to_string());
    if let Some(g) = &prof.grid {
        add_product(&g.product, &format!("{pp}.grid"))?;
        if !g.zip.is_empty() {
            zip_src = (&g.zip, format!("{pp}.grid"));
        }
    }
    let mut zips: Vec<Vec<Axis>> = Vec::new();
    for (gi, group) in zip_src.0.iter().enumerate() {
        let axes = zip_group(ctx, group, &format!("{}.zip[{gi}]", zip_src.1))?;
        if !axes.is_empty() {
            zips.push(axes);
        }
    }
    // An axis belongs to one place: the product, or one zip group.
    let mut zip_keys: HashMap<&str, &str> = HashMap::new();
    for (key, ypath, _) in zips.iter().flatten() {
        if product_index.contains_key(key) {
            return Err(ctx.err_at(
                ypath,
                format!("{key} is an axis of both product and zip: list it in one of them"),
            ));
        }
        if let Some(other) = zip_keys.insert(key, ypath) {
            return Err(ctx.err_at(
                ypath,
                format!("{key} is an axis of two zip groups (also at {other}): list it once"),
            ));
        }
    }
    Ok(Axes { product, zips })
}

/// One zip group at YAML path `at`: equal-length axes whose tuples all differ.
fn zip_group(ctx: &Ctx<'_>, group: &Mapping, at: &str) -> Result<Vec<Axis>, ExperimentError> {
    let mut axes = Vec::new();
    let mut len = None;
    for (k, v) in group {
        let key = key_str(k);
        let ypath = format!("{at}.{key}");
        check_axis_key(ctx, &key, &ypath)?;
        let vals = axis_values(ctx, v, &ypath)?;
        if let Some(l) = len
            && l != vals.len()
        {
            return Err(ctx.err_at(
                &ypath,
                format!("zip axes must have equal lengths: {key} has {} values, the group's first axis {l}", vals.len()),
            ));
        }
        len = Some(vals.len());
        axes.push((key, ypath, vals));
    }
    // Within a zip group the tuples must differ (one axis may repeat a value).
    let n = len.unwrap_or(0);
    for j in 0..n {
        if let Some(i) = (0..j).find(|&i| axes.iter().all(|a| a.2[i] == a.2[j])) {
            return Err(ctx.err_at(
                &format!("{}[{j}]", axes[0].1),
                format!(
                    "zip entry {j} repeats entry {i} on every axis: it would make two \
                     identical cells"
                ),
            ));
        }
    }
    Ok(axes)
}

/// The number of cells. Errors: more than [`MAX_CELLS`] cells, or more than [`MAX_CHAINS`]
/// chains in all (at the largest factor the file writes: the grid, `replicates:` or `chains:`).
pub(super) fn count_cells(
    ctx: &Ctx<'_>,
    axes: &Axes,
    replicates: u64,
    job_chains: u64,
    pp: &str,
) -> Result<usize, ExperimentError> {
    let n_cells = axes
        .dims()
        .iter()
        .try_fold(1usize, |n, &d| n.checked_mul(d))
        .filter(|&n| n <= MAX_CELLS)
        .ok_or_else(|| ctx.err_at("grid", format!("the grid has more than {MAX_CELLS} cells")))?;
    let n_chains = (n_cells as u64)
        .checked_mul(replicates)
        .and_then(|n| n.checked_mul(job_chains))
        .filter(|&n| n <= MAX_CHAINS);
    if n_chains.is_none() {
        // Point at the largest factor the file writes (a missing `replicates:` used to send
        // the error to line 1): the grid, or the `replicates:` or `chains:` line.
        let written = |path: &str| ctx.pos.get(path).is_some();
        let mut factors: Vec<(u64, String)> = vec![(n_cells as u64, "grid".to_string())];
        for (n, key) in [(replicates, "replicates"), (job_chains, "chains")] {
            let path = count_path(ctx.pos, pp, key);
            if written(&path) {
                factors.push((n, path));
            }
        }
        factors.retain(|(_, p)| written(p));
        let at = factors
            .iter()
            .max_by_key(|(n, _)| *n)
            .map_or_else(|| "grid".to_string(), |(_, p)| p.clone());
        return Err(ctx.err_at(
            &at,
            format!(
                "{n_cells} cells × {replicates} replicates × {job_chains} chains is more than \
                 {MAX_CHAINS} chains in all"
            ),
        ));
    }
    Ok(n_cells)
}

/// What every cell of an expansion shares.
pub(super) struct Expansion<'a> {
    pub ef: &'a ExperimentFile,
    pub model: &'static dyn Model,
    pub axes: &'a Axes,
    pub sbc: Option<Sbc>,
    pub run: RunSpec,
    pub data_ctx: DataContext,
}

/// Every cell of the grid (mixed-radix over the axes' values, last axis fastest), each validated
/// by the model, its first dataset built once per dataset key (a missing or malformed file, or
/// params that do not fit the data, stop the run before any chain), and checked against it.
/// `base` is the profile-merged `(params, dataset, origins)`. Returns the cells and, by
/// dataset key, the replicate-0 dataset each key's first cell was checked against (the runner
/// ships and stores these instead of building them again).
pub(super) fn expand(
    ctx: &Ctx<'_>,
    x: &Expansion<'_>,
    n_cells: usize,
    base: (Value, Value, HashMap<String, String>),
) -> Result<(Vec<CellRecord>, HashMap<u64, causeway_papers::Dataset>), ExperimentError> {
    let dims = x.axes.dims();
    let mut first_replicates: HashMap<u64, causeway_papers::Dataset> = HashMap::new();
    let mut cells = Vec::with_capacity(n_cells);
    for index in 0..n_cells {
        let mut rem = index;
        let mut digits = vec![0usize; dims.len()];
        for d in (0..dims.len()).rev() {
            digits[d] = rem % dims[d];
            rem /= dims[d];
        }
        cells.push(cell(ctx, x, index, &digits, &base, &mut first_replicates)?);
    }
    Ok((cells, first_replicates))
}

/// Cell `index`, at the axes' positions `digits`.
fn cell(
    ctx: &Ctx<'_>,
    x: &Expansion<'_>,
    index: usize,
    digits: &[usize],
    base: &(Value, Value, HashMap<String, String>),
    first_replicates: &mut HashMap<u64, causeway_papers::Dataset>,
) -> Result<CellRecord, ExperimentError> {
    let ef = x.ef;
    let (mut params, mut dataset, mut cell_origins) = base.clone();
    let mut axes_json = serde_json::Map::new();
    let mut assign =
        |key: &str, ypath: &str, val: &Value, i: usize| -> Result<(), ExperimentError> {
            let parts: Vec<String> = key.split('.').map(str::to_string).collect();
            let target = if parts[0] == "params" {
                &mut params
            } else {
                &mut dataset
            };
            set_path(target, &parts[1..], val.clone());
            cell_origins.insert(key.to_string(), format!("{ypath}[{i}]"));
            axes_json.insert(
                key.to_string(),
                to_json(ctx, val, &format!("{ypath}[{i}]"))?,
            );
            Ok(())
        };
    for (d, (key, ypath, vals)) in x.axes.product.iter().enumerate() {
        assign(key, ypath, &vals[digits[d]], digits[d])?;
    }
    for (g, group) in x.axes.zips.iter().enumerate() {
        let i = digits[x.axes.product.len() + g];
        for (key, ypath, vals) in group {
            assign(key, ypath, &vals[i], i)?;
        }
    }
    let mut params_json = to_json(ctx, &params, "params")?;
    let dataset_json = to_json(ctx, &dataset, "dataset")?;
    if let Err(e) = x.model.validate(&params_json, &dataset_json) {
        return Err(located(ctx, &cell_origins, e, &axes_json));
    }
    // An SBC cell's data are drawn from its params' prior: its datasets are its own.
    let dkey = stable_hash(
        match x.sbc {
            None => serde_json::json!({"model": ef.model, "dataset": dataset_json}),
            Some(_) => serde_json::json!({"model": ef.model, "params": params_json,
                                          "dataset": dataset_json}),
        }
        .to_string()
        .as_bytes(),
    );
    let own_params = params_json.clone(); // the model's own keys, without `sbc`
    if let Some(s) = x.sbc {
        sbc_block::mark_cell(&mut params_json, s);
    }
    let key = stable_hash(
        serde_json::json!({"model": ef.model, "params": params_json, "dataset": dataset_json})
            .to_string()
            .as_bytes(),
    );
    // Every dataset is built (files read, synthetic data drawn) once, here.
    if let std::collections::hash_map::Entry::Vacant(slot) = first_replicates.entry(dkey) {
        let mut rng = dataset_rng(ef.seed, dkey, 0);
        match causeway_papers::sbc::build_dataset(
            x.model,
            &params_json,
            &dataset_json,
            &x.data_ctx,
            &mut rng,
        ) {
            Ok(d) => {
                slot.insert(d);
            }
            Err(e) => return Err(located(ctx, &cell_origins, e, &axes_json)),
        }
    }
    if let Some(data) = first_replicates.get(&dkey)
        && let Err(e) = x.model.check_cell(&own_params, data)
    {
        return Err(located(ctx, &cell_origins, e, &axes_json));
    }
    Ok(CellRecord {
        index,
        key,
        model: ef.model.clone(),
        params: params_json,
        dataset: dataset_json,
        run: x.run,
        axes: axes_json,
        dataset_key: dkey,
        dataset_id: format!("d{dkey:016x}"),
    })
}

fn check_axis_key(ctx: &Ctx<'_>, key: &str, ypath: &str) -> Result<(), ExperimentError> {
    let ok = (key.starts_with("params.") || key.starts_with("dataset."))
        && !key.ends_with('.')
        && !key.contains("..");
    if ok {
        Ok(())
    } else {
        Err(ctx.err_at(
            ypath,
            format!("grid axis {key:?} must be a path into the cell: allowed prefixes are `params.` and `dataset.`"),
        ))
    }
}

fn axis_values(ctx: &Ctx<'_>, v: &Value, ypath: &str) -> Result<Vec<Value>, ExperimentError> {
    match v {
        Value::Sequence(s) if !s.is_empty() => Ok(s.clone()),
        Value::Sequence(_) => Err(ctx.err_at(ypath, "a grid axis needs at least one value")),
        _ => Err(ctx.err_at(ypath, "a grid axis must be a list of values")),
    }
}

#[cfg(test)]
mod tests {
    /// The cells' seed keys (`key`, `dkey` above) and the run's identity hash serde_json's text of
    /// a `Value`, which sorts object keys only while no crate of the build turns on serde_json's
    /// `preserve_order` feature (features unify across the workspace: one dependency that
    /// enables it changes every chain's stream). A dependency that does so fails here.
    #[test]
    fn seed_keys_hash_sorted_json() {
        let v = serde_json::json!({"b": 1, "a": {"d": 2, "c": 3}});
        assert_eq!(
            v.to_string(),
            r#"{"a":{"c":3,"d":2},"b":1}"#,
            "serde_json's preserve_order is on: some dependency enables it, and the chains' seeds \
             would change (cargo tree -e features -i serde_json)"
        );
    }
}

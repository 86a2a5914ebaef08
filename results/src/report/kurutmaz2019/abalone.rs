//! `kurutmaz2019.abalone` (§5.5, Fig. 5.4): one table `abalone_<method>_cell<i>` per cell and
//! `abalone_cells`.

use causeway_papers::kurutmaz2019::evaluation::{RINGS_BINS, concurrence, cramers_v};
use causeway_papers::metrics::mean_sd;
use polars::prelude::*;

use super::{param_str, param_usize};
use crate::report::{
    Convergence, ReportError, Table, append_convergence, axis_columns, json_text, pm, se,
};
use crate::rundir::{Manifest, RunDir, find};

/// One chain's §5.5 figures: its MAP log joint, the concurrence of its MAP classes with age
/// (classes relabelled by increasing mean rings), Cramér's V and the spread of the class means.
struct ChainFigures {
    log_joint: f64,
    table: Vec<Vec<u64>>,
    class_mean: Vec<f64>,
    v: f64,
    spread: f64,
}

fn chain_figures(map: &[f64], rings: &[f64], r: usize, log_joint: f64) -> ChainFigures {
    let (table, per) = concurrence(map, rings, r);
    let class_mean: Vec<f64> = per
        .iter()
        .map(|p| if p.is_empty() { f64::NAN } else { mean_sd(p).0 })
        .collect();
    let finite: Vec<f64> = class_mean
        .iter()
        .copied()
        .filter(|x| x.is_finite())
        .collect();
    let spread = finite.iter().copied().fold(f64::NEG_INFINITY, f64::max)
        - finite.iter().copied().fold(f64::INFINITY, f64::min);
    ChainFigures {
        log_joint,
        v: cramers_v(&table),
        table,
        class_mean,
        spread,
    }
}

/// `name` and its `_se`, `_n` over the chains' values `per_chain[row][chain]`
/// ([`se::mean_over_chains`]).
fn push_over_chains(cols: &mut Vec<Column>, name: &str, per_chain: &[Vec<f64>]) {
    let stats: Vec<(f64, f64, u64)> = per_chain.iter().map(|v| se::mean_over_chains(v)).collect();
    se::push_estimates(cols, name, &stats);
}

/// §5.5, Fig. 5.4: for each cell (PG, DEM), the concurrence of the MAP latent class r₁ with age
/// (rings binned by [`RINGS_BINS`]): per class (relabelled in each chain by increasing mean
/// rings, since labels are arbitrary; `evaluation::concurrence`) the number of abalones, their
/// mean rings and their count in each rings bin; plus one row per cell with the MAP log joint,
/// Cramér's V and the spread of the class mean rings, and its convergence columns
/// (`log_joint`).
///
/// Every figure is the mean over the cell's chains of the chain's own value (from its MAP
/// classes), with its error sd/√n over the n chains (`_se`, `_n`; [`se::mean_over_chains`]: none
/// where the chains agree exactly): the chains are independent, and the relabelling makes each
/// chain's figures label-invariant.
///
/// Errors: unreadable summaries or datasets; polars.
pub fn abalone(rd: &RunDir, m: &Manifest, conv: &Convergence) -> Result<Vec<Table>, ReportError> {
    let mut tables = Vec::new();
    let mut cell_ix = Vec::new();
    let mut cell_chains = Vec::new();
    let mut cell_figs: Vec<[Vec<f64>; 3]> = Vec::new();
    for c in m.cells.iter() {
        let method = param_str(m, c.index, "method");
        let r = param_usize(m, c.index, "n_latent").unwrap_or(1).max(1);
        let mut figs: Vec<ChainFigures> = Vec::new();
        // Each replicate's rings, read once for all of its chains.
        let mut rings_of: std::collections::HashMap<u64, Option<Vec<f64>>> =
            std::collections::HashMap::new();
        for j in m
            .jobs
            .iter()
            .filter(|j| j.cell == c.index && rd.chain_done(&j.job_id))
        {
            let s = rd.read_summary(&j.job_id)?;
            let lj = find(&s, "log_joint_map")
                .or_else(|| find(&s, "log_joint"))
                .and_then(|x| x.values.first().copied())
                .unwrap_or(f64::NAN);
            let Some(map) = find(&s, "r_map") else {
                continue;
            };
            let rings = match rings_of.entry(j.replicate) {
                std::collections::hash_map::Entry::Occupied(e) => e.into_mut(),
                std::collections::hash_map::Entry::Vacant(e) => {
                    let data = rd.read_dataset(&c.dataset_id, j.replicate)?;
                    e.insert(data.truth("rings").map(|x| x.values.clone()))
                }
            };
            let Some(rings) = rings else {
                continue;
            };
            figs.push(chain_figures(&map.values, rings, r, lj));
        }
        if figs.is_empty() {
            continue;
        }
        let classes = 1..=r as u64;
        let by_class = |f: &dyn Fn(&ChainFigures, usize) -> f64| -> Vec<Vec<f64>> {
            (0..r)
                .map(|k| figs.iter().map(|g| f(g, k)).collect())
                .collect()
        };
        let mut cols: Vec<Column> =
            vec![Series::new("r1 (by mean rings)".into(), classes.collect::<Vec<_>>()).into()];
        push_over_chains(
            &mut cols,
            "n",
            &by_class(&|g, k| g.table[k].iter().sum::<u64>() as f64),
        );
        push_over_chains(&mut cols, "rings_mean", &by_class(&|g, k| g.class_mean[k]));
        for (b, (label, _, _)) in RINGS_BINS.iter().enumerate() {
            push_over_chains(&mut cols, label, &by_class(&|g, k| g.table[k][b] as f64));
        }
        let vars = match m.cells[c.index].dataset.get("variables") {
            Some(serde_json::Value::Array(a)) => {
                a.iter().map(json_text).collect::<Vec<_>>().join(" and ")
            }
            Some(other) => json_text(other),
            None => String::new(),
        };
        let per_cell = [
            figs.iter().map(|g| g.log_joint).collect::<Vec<_>>(),
            figs.iter().map(|g| g.v).collect(),
            figs.iter().map(|g| g.spread).collect(),
        ];
        let [lj, v, spread] = per_cell.each_ref().map(|x| se::mean_over_chains(x));
        tables.push(Table {
            name: format!("abalone_{method}_cell{}", c.index),
            title: format!("§5.5 / Fig. 5.4: r1 ({method}) against age (rings), {vars}, {}, R = {r}, setting {}", param_str(m, c.index, "hypothesis"), param_str(m, c.index, "setting")),
            df: DataFrame::new_infer_height(cols)?,
            notes: vec![
                format!(
                    "Each chain's MAP latent class of each abalone, classes relabelled by increasing mean rings (the model's labels \
                     are arbitrary); every column is the mean over the {} chains with its error sd/√n (`_se`, `_n`; none where the chains agree exactly). Cramér's V between \
                     r1 and the rings bins: {}; spread of the class mean rings: {}; MAP log joint {}.",
                    figs.len(),
                    pm(v.0, v.1),
                    pm(spread.0, spread.1),
                    pm(lj.0, lj.1),
                ),
                "Thesis Fig. 5.4 (pictured only): the age distribution differs between the levels of r1 for both PG and DEM, \"potentially corresponding \
                 to young, medium, and older aged abalones\". Rings bins: the UCI data set's three age classes (1–8, 9–10, ≥ 11); the thesis's binning \
                 is not recoverable from its text."
                    .into(),
            ],
        });
        cell_ix.push(c.index);
        cell_chains.push(figs.len() as u64);
        cell_figs.push(per_cell);
    }
    let mut cols = axis_columns(m, &cell_ix);
    cols.push(Series::new("chains".into(), cell_chains).into());
    for (i, name) in [
        "MAP log joint",
        "Cramér's V (r1 × rings bin)",
        "spread of class mean rings",
    ]
    .iter()
    .enumerate()
    {
        let per: Vec<Vec<f64>> = cell_figs.iter().map(|f| f[i].clone()).collect();
        push_over_chains(&mut cols, name, &per);
    }
    append_convergence(&mut cols, m, conv, &cell_ix);
    tables.push(Table {
        name: "abalone_cells".into(),
        title: "§5.5: Abalone cells".into(),
        df: DataFrame::new_infer_height(cols)?,
        notes: vec![
            "Means over a cell's chains with their error sd/√n (`_se`, `_n`). Convergence of log_joint across chains: meaningful \
             for PG (an MCMC chain); for DEM, a deterministic ascent to a fixed point, R-hat only measures whether different starts \
             reach the same fixed point."
                .into(),
        ],
    });
    Ok(tables)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A chain's figures do not depend on how its sampler labelled the classes: permuting the
    /// labels gives the same table, class means, V and spread (what makes the mean over chains,
    /// and so the statistical check between two runs, meaningful).
    #[test]
    fn chain_figures_are_invariant_to_relabelling() {
        let rings = [3.0, 4.0, 9.0, 10.0, 12.0, 15.0, 8.0, 11.0, 9.0];
        let map = [0.0, 0.0, 1.0, 1.0, 2.0, 2.0, 0.0, 2.0, 1.0];
        let perm = [2.0, 0.0, 1.0];
        let relabelled: Vec<f64> = map.iter().map(|&l| perm[l as usize]).collect();
        let (a, b) = (
            chain_figures(&map, &rings, 3, -1.0),
            chain_figures(&relabelled, &rings, 3, -1.0),
        );
        assert_eq!(a.table, b.table);
        assert_eq!(a.class_mean, b.class_mean);
        assert_eq!((a.v, a.spread), (b.v, b.spread));
        // Classes come out by increasing mean rings: 5, 9.33, 12.67.
        assert_eq!(a.table[0].iter().sum::<u64>(), 3);
        assert!(a.class_mean.windows(2).all(|w| w[0] < w[1]));
        assert!((a.spread - (38.0 / 3.0 - 5.0)).abs() < 1e-12);
    }
}

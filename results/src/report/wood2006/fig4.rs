//! Figure 4 of paper 000: in-degree and structure errors against the number of iterations.

use polars::prelude::*;

use crate::report::{
    Convergence, ReportError, Table, append_convergence, f64s, mean_sd_by, pm_column, se, u64s,
};
use crate::rundir::{ChainTiming, Manifest, RunDir};
use std::collections::BTreeMap;

use crate::report::figures::{self, Line, Panel};
use causeway_papers::metrics::mean_sd;
use causeway_papers::wood2006::evaluation::zzt;

use super::{sampler_of, structure_label};
use causeway_papers::data::Matrix;
use causeway_papers::wood2006::evaluation::{
    checkpoints, errors_at, in_degree_error, structure_error, unpack_upper,
};

/// Figure 4: in-degree error, structure error and wall-clock seconds against the number of
/// iterations, mean ± sd over datasets, for each structure and sampler.
///
/// The errors of a dataset after r iterations are those of paper 000 (§5,
/// `000_64a353240e4f1919.txt`): sum absolute differences between `diag(Z Zᵀ)` (resp. the upper
/// triangle of `Z Zᵀ`) and `diag(E[Z Zᵀ])` (resp. its upper triangle), with E[Z Zᵀ] "computed over
/// samples" — here the samples of iterations 1..=r (no burn-in, as the paper) pooled over all the
/// dataset's chains ([`pooled_errors_at`]); beside them, `…, per chain`: the mean over the
/// dataset's chains of each chain's own errors (a chain stuck in its own mode scores worse
/// alone than pooled). Seconds are the mean over the chains of each chain's wall-clock time.
pub fn fig4(rd: &RunDir, m: &Manifest, conv: &Convergence) -> Result<Vec<Table>, ReportError> {
    let long = per_dataset(rd, m)?;
    let agg = mean_sd_by(
        &long,
        &["cell", "iterations"],
        &[
            "in_degree_error",
            "structure_error",
            "seconds",
            "in_degree_error_chain",
            "structure_error_chain",
        ],
    )?;
    let cells: Vec<usize> = u64s(&agg, "cell")?
        .into_iter()
        .map(|c| c as usize)
        .collect();
    let its = u64s(&agg, "iterations")?;
    let (im, isd) = (
        f64s(&agg, "in_degree_error_mean")?,
        f64s(&agg, "in_degree_error_sd")?,
    );
    let (sm, ssd) = (
        f64s(&agg, "structure_error_mean")?,
        f64s(&agg, "structure_error_sd")?,
    );
    let (tm, tsd) = (f64s(&agg, "seconds_mean")?, f64s(&agg, "seconds_sd")?);
    let (icm, icsd) = (
        f64s(&agg, "in_degree_error_chain_mean")?,
        f64s(&agg, "in_degree_error_chain_sd")?,
    );
    let (scm, scsd) = (
        f64s(&agg, "structure_error_chain_mean")?,
        f64s(&agg, "structure_error_chain_sd")?,
    );
    let mut cols: Vec<Column> = vec![
        Series::new(
            "structure".into(),
            cells
                .iter()
                .map(|&c| structure_label(m, c))
                .collect::<Vec<_>>(),
        )
        .into(),
        Series::new(
            "sampler".into(),
            cells.iter().map(|&c| sampler_of(m, c)).collect::<Vec<_>>(),
        )
        .into(),
        Series::new("iterations".into(), its.clone()).into(),
        pm_column("in-degree error", &im, &isd),
        pm_column("structure error", &sm, &ssd),
        pm_column("seconds", &tm, &tsd),
        pm_column("in-degree error, per chain", &icm, &icsd),
        pm_column("structure error, per chain", &scm, &scsd),
    ];
    for (n, v) in [
        ("in_degree_mean", &im),
        ("in_degree_sd", &isd),
        ("structure_mean", &sm),
        ("structure_sd", &ssd),
        ("seconds_mean", &tm),
        ("seconds_sd", &tsd),
        ("in_degree_chain_mean", &icm),
        ("in_degree_chain_sd", &icsd),
        ("structure_chain_mean", &scm),
        ("structure_chain_sd", &scsd),
    ] {
        cols.push(Series::new(n.into(), v.clone()).into());
    }
    let count = agg.column("count")?.clone().with_name("datasets".into());
    let n: Vec<u64> = count.u64()?.into_no_null_iter().collect();
    cols.push(count);
    // Monte Carlo error (docs/checking.md, "Monte Carlo error of a table cell"), over the datasets; the
    // wall-clock `seconds_*` get none (not compared).
    se::push_mean_sd_se(&mut cols, "in_degree_mean", "in_degree_sd", &isd, &n);
    se::push_mean_sd_se(&mut cols, "structure_mean", "structure_sd", &ssd, &n);
    se::push_mean_sd_se(
        &mut cols,
        "in_degree_chain_mean",
        "in_degree_chain_sd",
        &icsd,
        &n,
    );
    se::push_mean_sd_se(
        &mut cols,
        "structure_chain_mean",
        "structure_chain_sd",
        &scsd,
        &n,
    );
    append_convergence(&mut cols, m, conv, &cells);

    let notes = findings(m, &cells, &its, &sm);
    let series = Series4 {
        im: &im,
        isd: &isd,
        sm: &sm,
        ssd: &ssd,
        tm: &tm,
        tsd: &tsd,
    };
    figure(rd, m, &cells, &its, &series)?;
    Ok(vec![Table {
        name: "fig4".into(),
        title: "Figure 4: recovering causal structure (mean ± sd over datasets)".into(),
        df: DataFrame::new_infer_height(cols)?,
        notes,
    }])
}

/// One row per (cell, replicate, checkpoint): the pooled in-degree and structure errors and the
/// chains' mean seconds.
fn per_dataset(rd: &RunDir, m: &Manifest) -> Result<DataFrame, ReportError> {
    let mut rows_cell = Vec::new();
    let mut rows_rep = Vec::new();
    let mut rows_it = Vec::new();
    let mut rows_in = Vec::new();
    let mut rows_st = Vec::new();
    let mut rows_sec = Vec::new();
    let mut rows_in_chain = Vec::new();
    let mut rows_st_chain = Vec::new();
    let timings = rd.read_timings()?;
    let untimed = ChainTiming::default();
    for c in m.cells.iter() {
        let cps = checkpoints(c.run.iterations);
        for r in 0..m.replicates() {
            let data = rd.read_dataset(&c.dataset_id, r)?;
            let Some(z) = data.truth("z") else { continue };
            let n = z.rows;
            let zt = zzt(&z.values, n, z.cols);
            let mut all_draws: Vec<Matrix> = Vec::new();
            let mut per_chain: Vec<Vec<(f64, f64, f64)>> = Vec::new();
            for j in m
                .jobs
                .iter()
                .filter(|j| j.cell == c.index && j.replicate == r)
            {
                if !rd.chain_done(&j.job_id) {
                    continue;
                }
                let summary = rd.read_summary(&j.job_id)?;
                let Some(draws) = summary.into_iter().find(|m| m.name == "zzt_draws") else {
                    continue;
                };
                // A chain whose timing was lost (see `RunDir::read_timing`) has NaN seconds.
                let t = timings.get(&j.job_id).unwrap_or(&untimed);
                // Per chain: its seconds, and its own errors beside the pooled ones below.
                per_chain.push(errors_at(
                    &draws,
                    n,
                    &zt,
                    &cps,
                    &t.iterations,
                    &t.elapsed_seconds,
                ));
                all_draws.push(draws);
            }
            if per_chain.is_empty() {
                continue;
            }
            let pooled = pooled_errors_at(&all_draws, n, &zt, &cps);
            for (ci, &cp) in cps.iter().enumerate() {
                let k = per_chain.len() as f64;
                rows_cell.push(c.index as u64);
                rows_rep.push(r);
                rows_it.push(cp);
                rows_in.push(pooled[ci].0);
                rows_st.push(pooled[ci].1);
                rows_sec.push(per_chain.iter().map(|p| p[ci].2).sum::<f64>() / k);
                rows_in_chain.push(per_chain.iter().map(|p| p[ci].0).sum::<f64>() / k);
                rows_st_chain.push(per_chain.iter().map(|p| p[ci].1).sum::<f64>() / k);
            }
        }
    }
    Ok(df!(
        "cell" => rows_cell, "replicate" => rows_rep, "iterations" => rows_it,
        "in_degree_error" => rows_in, "structure_error" => rows_st, "seconds" => rows_sec,
        "in_degree_error_chain" => rows_in_chain, "structure_error_chain" => rows_st_chain
    )?)
}

/// The paper's finding (Gibbs below RJMCMC's structure error at ≤ 100 iterations), checked per
/// structure on the table's means `sm`.
fn findings(m: &Manifest, cells: &[usize], its: &[u64], sm: &[f64]) -> Vec<String> {
    let mut notes = vec![
        "Paper 000 §5, Figure 4 (plotted only): the Gibbs sampler recovers a structure close to the truth in few iterations; \
         RJMCMC performs poorly for all but the largest numbers of iterations. The four true Z matrices are reconstructions \
         of the pictured structures (see the experiment YAML)."
            .to_string(),
    ];
    let mut by_struct: BTreeMap<String, (Vec<f64>, Vec<f64>)> = BTreeMap::new();
    for i in 0..cells.len() {
        if its[i] > 100 {
            continue;
        }
        let e = by_struct.entry(structure_label(m, cells[i])).or_default();
        match sampler_of(m, cells[i]).as_str() {
            "gibbs" => e.0.push(sm[i]),
            "rjmcmc" => e.1.push(sm[i]),
            _ => {}
        }
    }
    for (s, (g, rj)) in &by_struct {
        if g.is_empty() || rj.is_empty() {
            continue;
        }
        let wins = g.iter().zip(rj).filter(|(a, b)| a < b).count();
        notes.push(format!(
            "Measured, {s}: Gibbs structure error below RJMCMC's at {wins} of {} checkpoints ≤ 100 iterations (mean {:.2} vs {:.2}).",
            g.len().min(rj.len()),
            mean_sd(g).0,
            mean_sd(rj).0
        ));
    }

    notes
}

/// The table's means and sds over datasets: in-degree error, structure error, seconds.
struct Series4<'a> {
    im: &'a [f64],
    isd: &'a [f64],
    sm: &'a [f64],
    ssd: &'a [f64],
    tm: &'a [f64],
    tsd: &'a [f64],
}

/// The figure (`figures/fig4_structure_recovery.svg`): rows seconds / in-degree / structure, a
/// column per structure.
fn figure(
    rd: &RunDir,
    m: &Manifest,
    cells: &[usize],
    its: &[u64],
    s4: &Series4<'_>,
) -> Result<(), ReportError> {
    let structs: Vec<String> = {
        let mut v: Vec<String> = cells.iter().map(|&c| structure_label(m, c)).collect();
        v.dedup();
        let mut seen = Vec::new();
        for s in v {
            if !seen.contains(&s) {
                seen.push(s);
            }
        }
        seen
    };
    let mut panels = Vec::new();
    for (metric, mean, sd) in [
        ("seconds", s4.tm, s4.tsd),
        ("in-degree error", s4.im, s4.isd),
        ("structure error", s4.sm, s4.ssd),
    ] {
        for s in &structs {
            let mut lines: BTreeMap<String, Vec<(f64, f64, f64)>> = BTreeMap::new();
            for i in 0..cells.len() {
                if &structure_label(m, cells[i]) == s {
                    lines.entry(sampler_of(m, cells[i])).or_default().push((
                        its[i] as f64,
                        mean[i],
                        sd[i],
                    ));
                }
            }
            panels.push(Panel {
                title: format!("{s}: {metric}"),
                x_label: "iterations".into(),
                y_label: metric.into(),
                log_x: true,
                square: false,
                scatter: false,
                lines: lines
                    .into_iter()
                    .map(|(name, points)| Line {
                        name,
                        reference: false,
                        points,
                    })
                    .collect(),
            });
        }
    }
    figures::line_panels(
        &rd.figures_dir().join("fig4_structure_recovery.svg"),
        &panels,
        structs.len().max(1),
    )?;
    Ok(())
}

/// Figure 4's `(in-degree error, structure error)` of one dataset at each checkpoint of `cps`
/// (iterations, ascending), from the pooled E[Z Zᵀ] of paper 000 §5: the mean of the packed
/// Z Zᵀ draws of iterations 1..=r over *all* the dataset's chains (each chain weighs equally:
/// every chain contributes its first r draws). The error of the pooled mean is at most the mean
/// of the per-chain errors (triangle inequality), with equality only when the chains' deviations
/// agree in sign.
///
/// `chains`: one R × N(N+1)/2 matrix of packed upper-triangular Z Zᵀ per chain (row r =
/// iteration r + 1, the `zzt_draws` summary); `n`: N observed variables; `zt`: the true Z Zᵀ,
/// N × N row-major. A checkpoint that no chain reached gives NaN; one that only some chains
/// reached pools those.
pub fn pooled_errors_at(chains: &[Matrix], n: usize, zt: &[f64], cps: &[u64]) -> Vec<(f64, f64)> {
    let p = n * (n + 1) / 2;
    // Running per-chain sums of the first r draws.
    let mut sums = vec![vec![0.0; p]; chains.len()];
    let mut out = Vec::with_capacity(cps.len());
    let mut r = 0usize;
    for &cp in cps {
        let cp = usize::try_from(cp).unwrap_or(usize::MAX);
        while r < cp && chains.iter().any(|d| d.rows > r) {
            for (sum, d) in sums.iter_mut().zip(chains) {
                if d.rows > r && d.cols == p {
                    for (s, v) in sum.iter_mut().zip(&d.values[r * p..(r + 1) * p]) {
                        *s += v;
                    }
                }
            }
            r += 1;
        }
        let reached: Vec<usize> = (0..chains.len())
            .filter(|&c| chains[c].rows >= cp && chains[c].cols == p)
            .collect();
        if r < cp || reached.is_empty() {
            out.push((f64::NAN, f64::NAN));
            continue;
        }
        let denom = (reached.len() * cp) as f64;
        let mut mean = vec![0.0; p];
        for &c in &reached {
            for (m, s) in mean.iter_mut().zip(&sums[c]) {
                *m += s / denom;
            }
        }
        let full = unpack_upper(&mean, n);
        out.push((in_degree_error(zt, &full, n), structure_error(zt, &full, n)));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use causeway_papers::wood2006::evaluation::zzt;

    /// Packed upper triangle (diagonal included) of a symmetric N × N matrix.
    fn pack(full: &[f64], n: usize) -> Vec<f64> {
        let mut v = Vec::new();
        for i in 0..n {
            for j in i..n {
                v.push(full[i * n + j]);
            }
        }
        v
    }

    /// Two chains that err in opposite directions: one holds an extra cause linking x1 and x2,
    /// the other misses the true cause. Pooled, E[Z Zᵀ] is the truth (errors 0); the mean of
    /// the per-chain errors (the old computation) is 2 (in-degree) and 1 (structure).
    #[test]
    fn errors_come_from_the_pooled_expectation_not_the_mean_over_chains() {
        let n = 2;
        // Truth: one cause linking x1 and x2.
        let truth = zzt(&[1.0, 1.0], n, 1);
        // Chain 1: two copies of it; chain 2: no cause.
        let over = zzt(&[1.0, 1.0, 1.0, 1.0], n, 2);
        let under = vec![0.0; n * n];
        let rows = 3;
        let chain = |full: &[f64]| {
            let row = pack(full, n);
            let mut v = Vec::new();
            for _ in 0..rows {
                v.extend_from_slice(&row);
            }
            Matrix::new("zzt_draws", rows, row.len(), v)
        };
        let chains = vec![chain(&over), chain(&under)];
        let cps = checkpoints(rows as u64);
        let pooled = pooled_errors_at(&chains, n, &truth, &cps);
        assert_eq!(pooled.len(), cps.len());
        for (e_in, e_st) in &pooled {
            assert_eq!((*e_in, *e_st), (0.0, 0.0));
        }
        // The mean over chains of the per-chain errors differs: that computation fails here.
        let t_it: Vec<u64> = (1..=rows as u64).collect();
        let t_s = vec![0.0; rows];
        let per: Vec<_> = chains
            .iter()
            .map(|d| errors_at(d, n, &truth, &cps, &t_it, &t_s))
            .collect();
        let mean_in = (per[0][0].0 + per[1][0].0) / 2.0;
        let mean_st = (per[0][0].1 + per[1][0].1) / 2.0;
        assert_eq!((mean_in, mean_st), (2.0, 1.0));
    }

    /// A single chain pools to its own errors, checkpoints past the chains give NaN, and a
    /// checkpoint only some chains reached pools those.
    #[test]
    fn pooled_errors_of_one_chain_and_of_short_chains() {
        let n = 2;
        let truth = zzt(&[1.0, 1.0], n, 1);
        // iterations: empty, truth, truth, double
        let rows = [
            [0.0, 0.0, 0.0],
            [1.0, 1.0, 1.0],
            [1.0, 1.0, 1.0],
            [2.0, 2.0, 2.0],
        ];
        let long = Matrix::new("zzt_draws", 4, 3, rows.concat());
        let cps = [1u64, 2, 4, 5];
        let t_it = [1u64, 2, 3, 4];
        let t_s = [0.0; 4];
        let single = pooled_errors_at(std::slice::from_ref(&long), n, &truth, &cps);
        let per = errors_at(&long, n, &truth, &cps, &t_it, &t_s);
        for (a, b) in single.iter().zip(&per).take(3) {
            assert_eq!((a.0, a.1), (b.0, b.1));
        }
        assert!(single[3].0.is_nan() && single[3].1.is_nan());
        // A second chain of 2 iterations at the truth: at r = 2 the pool is
        // (0 + 1 + 1 + 1) / 4 = 0.75 per entry → in-degree 0.5, structure 0.25; at r = 4 only the
        // long chain counts (mean (0 + 1 + 1 + 2) / 4 = 1: errors 0).
        let short = Matrix::new("zzt_draws", 2, 3, [rows[1], rows[1]].concat());
        let both = pooled_errors_at(&[long, short], n, &truth, &cps);
        assert_eq!((both[1].0, both[1].1), (0.5, 0.25));
        assert_eq!((both[2].0, both[2].1), (0.0, 0.0));
    }
}

//! The §6 analogue of paper 000 on LUCAS0 (Figures 5 and 6): hidden causes recovered.

use polars::prelude::*;

use crate::diagnostics::quantile_sorted;
use crate::report::figures;
use crate::report::se;
use crate::report::{Convergence, ReportError, Table, append_convergence, json_text};
use crate::rundir::{CellRecord, JobRecord, Manifest, RunDir, find, stored_chains};
use causeway_papers::Matrix;
use causeway_papers::metrics::{auc, mean_sd};

/// A hidden column's best-matching cause in one MAP sample.
struct HiddenMatch {
    /// Index of the cause (column of Z) whose posterior mean y_kt has the highest AUC.
    cause: Option<usize>,
    auc: f64,
    /// That cause's children include every true child.
    recovered: bool,
}

/// One chain's MAP sample, by figures that do not depend on the labels of its causes.
struct ChainMap {
    log_joint: f64,
    names: Vec<String>,
    /// Children of each cause (observed-variable names).
    children: Vec<Vec<String>>,
    /// Number of causes of each observed variable (in-degree in Z).
    n_causes: Vec<usize>,
    hidden: Vec<HiddenMatch>,
}

/// Describe a MAP sample: `z` (N observed × K causes), `y` (K × T posterior mean of y_kt given
/// Z), `hidden` (H hidden columns × T), `expected[h]` the true children of hidden column h.
fn chain_map(
    z: &Matrix,
    y: &Matrix,
    log_joint: f64,
    names: &[String],
    hidden: Option<&Matrix>,
    expected: &[Vec<String>],
) -> ChainMap {
    let name = |i: usize| names.get(i).cloned().unwrap_or_else(|| format!("x{i}"));
    let children: Vec<Vec<String>> = (0..z.cols)
        .map(|k| {
            (0..z.rows)
                .filter(|&i| z.get(i, k) > 0.5)
                .map(name)
                .collect()
        })
        .collect();
    let n_causes = (0..z.rows)
        .map(|i| (0..z.cols).filter(|&k| z.get(i, k) > 0.5).count())
        .collect();
    let hidden = hidden
        .map(|h| {
            (0..h.rows)
                .map(|hh| {
                    let labels: Vec<bool> = row(h, hh).iter().map(|v| *v > 0.5).collect();
                    let (cause, a) =
                        (0..z.cols.min(y.rows)).fold((None, f64::NAN), |(bk, ba), k| {
                            let a = auc(row(y, k), &labels, None);
                            if a.is_finite() && (ba.is_nan() || a > ba) {
                                (Some(k), a)
                            } else {
                                (bk, ba)
                            }
                        });
                    let exp = expected.get(hh).map_or(&[][..], Vec::as_slice);
                    let recovered = cause.is_some_and(|k| {
                        !exp.is_empty() && exp.iter().all(|e| children[k].contains(e))
                    });
                    HiddenMatch {
                        cause,
                        auc: a,
                        recovered,
                    }
                })
                .collect()
        })
        .unwrap_or_default();
    ChainMap {
        log_joint,
        names: (0..z.rows).map(name).collect(),
        children,
        n_causes,
        hidden,
    }
}

/// §6 analogue on LUCAS: traces and histograms of ε, λ, p, α and K+ (Figure 5) and their
/// posteriors (pooled mean, sd, 95% interval, the range of chain means); each chain's MAP
/// structure (Figure 6) by label-invariant figures (K+, links, the number of causes of each
/// observed variable) as means over chains with their se; and, per hidden true column, the AUC
/// of its best-matching inferred cause and whether that cause's children include the true ones,
/// over chains, beside what predicts it without the model (the best single observed column,
/// the sum of its true children). The best MAP sample's own causes are described in `MAP sample` columns and the
/// notes (reported, not tested by `check --statistical`).
///
/// Errors: unreadable traces, summaries or datasets; polars; figure output.
pub fn lucas(rd: &RunDir, m: &Manifest, conv: &Convergence) -> Result<Vec<Table>, ReportError> {
    let mut tables = Vec::new();
    for c in m.cells.iter() {
        let jobs: Vec<&JobRecord> = m
            .jobs
            .iter()
            .filter(|j| j.cell == c.index && rd.chain_done(&j.job_id))
            .collect();
        if jobs.is_empty() {
            continue;
        }
        trace_figure(rd, m, c.index)?;
        tables.extend(cell_tables(rd, m, conv, c, &jobs)?);
    }
    Ok(tables)
}

/// Figure 5 of cell `cell`: the traces of ε, λ, p, α and K+ (`figures/lucas_traces_cell<c>.svg`).
fn trace_figure(rd: &RunDir, m: &Manifest, cell: usize) -> Result<(), ReportError> {
    let vars = figures::trace_vars(rd, m, cell, &["epsilon", "lambda", "p", "alpha", "k_plus"])?;
    let path = rd
        .figures_dir()
        .join(format!("lucas_traces_cell{cell}.svg"));
    figures::trace_panels(&path, &vars)
}

/// Figure 6 of cell `cell`: the best MAP sample's Z, observed variables (rows) against causes
/// (columns), a red tile where the cause is a parent of the variable; a cause that best matches
/// a hidden column is labelled with its name (`figures/lucas_map_z_cell<c>.svg`).
fn map_figure(
    rd: &RunDir,
    cell: usize,
    best: &ChainMap,
    hidden_names: &[String],
) -> Result<(), ReportError> {
    let cols: Vec<String> = (0..best.children.len())
        .map(|k| {
            let matched: Vec<&str> = best
                .hidden
                .iter()
                .zip(hidden_names)
                .filter(|(h, _)| h.cause == Some(k))
                .map(|(_, n)| n.as_str())
                .collect();
            if matched.is_empty() {
                format!("{}", k + 1)
            } else {
                format!("{} {}", k + 1, matched.join("/"))
            }
        })
        .collect();
    let values: Vec<Vec<Option<f64>>> = best
        .names
        .iter()
        .map(|name| {
            best.children
                .iter()
                .map(|ch| ch.contains(name).then_some(1.0))
                .collect()
        })
        .collect();
    figures::heatmap(
        &rd.figures_dir().join(format!("lucas_map_z_cell{cell}.svg")),
        &format!(
            "Figure 6: the MAP sample's Z (log joint {:.2}); red: the cause (column) is a parent of the variable (row)",
            best.log_joint
        ),
        &best.names,
        &cols,
        &values,
    )
}

/// Cell `c`'s tables: the MAP structure per chain, the recovery of the hidden columns, and the
/// convergence (none when no chain stored a MAP sample).
fn cell_tables(
    rd: &RunDir,
    m: &Manifest,
    conv: &Convergence,
    c: &CellRecord,
    jobs: &[&JobRecord],
) -> Result<Vec<Table>, ReportError> {
    // Each chain's own MAP sample, described by label-invariant figures.
    let data = rd.read_dataset(&c.dataset_id, 0)?;
    let hidden = data.truth("hidden");
    let hidden_names: Vec<String> = hidden.map(|h| h.row_names.clone()).unwrap_or_default();
    let expected: Vec<Vec<String>> = {
        let reported = m
            .reported
            .get("true_children")
            .and_then(|v| v.as_object())
            .cloned()
            .unwrap_or_default();
        hidden_names
            .iter()
            .map(|hn| {
                reported
                    .get(hn)
                    .and_then(|v| v.as_array())
                    .map(|a| a.iter().map(json_text).collect())
                    .unwrap_or_default()
            })
            .collect()
    };
    let mut maps: Vec<ChainMap> = Vec::new();
    for j in jobs {
        let s = rd.read_summary(&j.job_id)?;
        let (Some(z), Some(y)) = (find(&s, "map_z"), find(&s, "map_y_mean")) else {
            continue;
        };
        let lj = find(&s, "map_log_joint")
            .and_then(|x| x.values.first().copied())
            .unwrap_or(f64::NEG_INFINITY);
        let names: Vec<String> = if z.row_names.len() == z.rows {
            z.row_names.clone()
        } else {
            data.observed("x")
                .map(|x| x.row_names.clone())
                .unwrap_or_default()
        };
        maps.push(chain_map(z, y, lj, &names, hidden, &expected));
    }
    // The best MAP sample over all chains: described (Figure 6), not tested.
    let Some(best) = maps
        .iter()
        .max_by(|a, b| a.log_joint.total_cmp(&b.log_joint))
    else {
        return Ok(Vec::new());
    };
    let n_obs = best.names.len();
    let mut notes = vec![format!(
        "Each of the {} chains' own MAP sample, described by figures that do not depend on how the sampler labelled its causes; \
         every value is the mean over the chains with its error (`_se`, `_n`): sd/√n (none where the chains agree exactly), or for `recovered` \
         the binomial se of a proportion of the chains. `MAP sample` columns describe the best of those samples (log joint {:.2}): one point of one run, \
         reported, not tested. Paper 000 §6 used the (non-public) stroke data bank; LUCAS0 is the public stand-in.",
        maps.len(),
        best.log_joint
    )];
    notes.push(format!(
        "The MAP sample's causes (Figure 6 analogue; children are the observed variables with z_ik = 1): {}.",
        (0..best.children.len())
            .map(|k| format!("cause {}: [{}]", k + 1, best.children[k].join(", ")))
            .collect::<Vec<_>>()
            .join("; ")
    ));
    let per = |f: &dyn Fn(&ChainMap) -> f64| -> (f64, f64, u64) {
        se::mean_over_chains(&maps.iter().map(f).collect::<Vec<_>>())
    };
    let mut figure = vec![
        "K+".to_string(),
        "links (Σ z_ik)".into(),
        "MAP log joint".into(),
    ];
    let mut stats = vec![
        per(&|c| c.children.len() as f64),
        per(&|c| c.n_causes.iter().sum::<usize>() as f64),
        per(&|c| c.log_joint),
    ];
    let mut map_value = vec![
        best.children.len() as f64,
        best.n_causes.iter().sum::<usize>() as f64,
        best.log_joint,
    ];
    for i in 0..n_obs {
        figure.push(format!("causes of {}", best.names[i]));
        stats.push(per(&|c| c.n_causes.get(i).copied().unwrap_or(0) as f64));
        map_value.push(best.n_causes[i] as f64);
    }
    let mut structure_cols: Vec<Column> = vec![Series::new("figure".into(), figure).into()];
    se::push_estimates(&mut structure_cols, "value", &stats);
    structure_cols.push(Series::new("MAP sample".into(), map_value).into());

    let baselines: Vec<Baseline> = match (data.observed("x"), hidden) {
        (Some(x), Some(h)) => baselines(x, h, &expected),
        _ => Vec::new(),
    };
    map_figure(rd, c.index, best, &hidden_names)?;
    let hidden_cols = hidden_columns(
        &maps,
        best,
        (&hidden_names, &expected),
        &baselines,
        &mut notes,
    )?;
    let cells_v = vec![c.index];
    let mut conv_cols: Vec<Column> = Vec::new();
    append_convergence(&mut conv_cols, m, conv, &cells_v);
    Ok(vec![
        Table {
        name: format!("lucas_map_structure_cell{}", c.index),
        title: "LUCAS: MAP structure per chain (K+, links, causes of each observed variable; Figure 6 analogue)"
            .into(),
        df: DataFrame::new_infer_height(structure_cols)?,
        notes,
    },
    Table {
        name: format!("lucas_hidden_auc_cell{}", c.index),
        title: "LUCAS: recovery of the hidden columns".into(),
        df: DataFrame::new_infer_height(hidden_cols)?,
        notes: vec!["Per chain: the AUC of the posterior mean of y_kt (given the chain's MAP Z and hyperparameters) against the hidden column, for the cause that matches it best; \
                     recovered: that cause's children include the true children.".into()],
    },
    posterior_table(rd, m, c.index)?,
    Table {
        name: format!("lucas_convergence_cell{}", c.index),
        title: "LUCAS: convergence".into(),
        df: DataFrame::new_infer_height(conv_cols)?,
        notes: vec![],
    },
    ])
}

/// The hyperparameters' and K+'s posteriors (paper 000 §6 reports ε, λ, p and α): pooled
/// post-burn-in draws of all chains (mean, sd, 2.5% and 97.5% quantiles) and the lowest and
/// highest chain mean, which tell chains that disagree apart from a wide posterior.
const POSTERIOR_SCALARS: [&str; 5] = ["epsilon", "lambda", "p", "alpha", "k_plus"];

/// Cell `cell`'s posterior table (see [`POSTERIOR_SCALARS`]).
fn posterior_table(rd: &RunDir, m: &Manifest, cell: usize) -> Result<Table, ReportError> {
    let chains = stored_chains(rd, m, cell, 0, &POSTERIOR_SCALARS)?;
    let (mut names, mut rows) = (Vec::new(), Vec::new());
    for (i, name) in POSTERIOR_SCALARS.iter().enumerate() {
        let per_chain: Vec<Vec<f64>> = chains
            .iter()
            .filter_map(|c| c.after_burn_in(i))
            .filter(|d| !d.is_empty())
            .collect();
        if per_chain.is_empty() {
            continue;
        }
        names.push(name.to_string());
        rows.push(posterior_row(&per_chain));
    }
    let col = |k: usize| rows.iter().map(|r| r[k]).collect::<Vec<f64>>();
    let mut cols: Vec<Column> = vec![Series::new("parameter".into(), names).into()];
    for (k, label) in [
        "posterior mean",
        "sd",
        "2.5%",
        "97.5%",
        "lowest chain mean",
        "highest chain mean",
        "chains",
    ]
    .into_iter()
    .enumerate()
    {
        cols.push(Series::new(label.into(), col(k)).into());
    }
    Ok(Table {
        name: format!("lucas_posterior_cell{cell}"),
        title: "LUCAS: posteriors of ε, λ, p, α and K+ (paper 000 §6, Figure 5)".into(),
        df: DataFrame::new_infer_height(cols)?,
        notes: vec![
            "Pooled post-burn-in draws of every chain; the interval is the 2.5% and 97.5% quantiles. Where the lowest and highest chain means lie outside each other's spread the chains disagree (see the convergence table's R-hat) and the pooled figures mix their modes."
                .into(),
        ],
    })
}

/// Pooled mean, sd, 2.5% and 97.5% quantiles of `per_chain`'s draws, then the lowest and
/// highest chain mean and the number of chains.
fn posterior_row(per_chain: &[Vec<f64>]) -> [f64; 7] {
    let mut pooled: Vec<f64> = per_chain.iter().flatten().copied().collect();
    pooled.sort_by(f64::total_cmp);
    let (mean, sd) = mean_sd(&pooled);
    let means: Vec<f64> = per_chain.iter().map(|d| mean_sd(d).0).collect();
    [
        mean,
        sd,
        quantile_sorted(&pooled, 0.025),
        quantile_sorted(&pooled, 0.975),
        means.iter().copied().fold(f64::INFINITY, f64::min),
        means.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        per_chain.len() as f64,
    ]
}

/// What a hidden column is predicted by without the model: the single observed column with the
/// highest AUC against it, and the sum of its true children (an oracle that knows the graph).
struct Baseline {
    best_single: String,
    best_single_auc: f64,
    children_sum_auc: f64,
}

/// Row `i` of `m`.
fn row(m: &Matrix, i: usize) -> &[f64] {
    &m.values[i * m.cols..(i + 1) * m.cols]
}

/// Baselines for each hidden column: `x` (N observed × T), `hidden` (H × T), `expected[h]` the
/// true children of hidden column h (names of rows of `x`).
fn baselines(x: &Matrix, hidden: &Matrix, expected: &[Vec<String>]) -> Vec<Baseline> {
    let t = x.cols;
    (0..hidden.rows)
        .map(|h| {
            let labels: Vec<bool> = row(hidden, h).iter().map(|v| *v > 0.5).collect();
            let (best, best_auc) = (0..x.rows)
                .map(|i| (i, auc(row(x, i), &labels, None)))
                .filter(|(_, a)| a.is_finite())
                .fold((None, f64::NAN), |(bi, ba), (i, a)| {
                    if ba.is_nan() || a > ba {
                        (Some(i), a)
                    } else {
                        (bi, ba)
                    }
                });
            let mut sum = vec![0.0; t];
            for name in expected.get(h).map_or(&[][..], Vec::as_slice) {
                if let Some(i) = x.row_names.iter().position(|n| n == name) {
                    sum.iter_mut().zip(row(x, i)).for_each(|(s, v)| *s += v);
                }
            }
            Baseline {
                best_single: best
                    .map(|i| {
                        x.row_names
                            .get(i)
                            .cloned()
                            .unwrap_or_else(|| format!("x{i}"))
                    })
                    .unwrap_or_default(),
                best_single_auc: best_auc,
                children_sum_auc: auc(&sum, &labels, None),
            }
        })
        .collect()
}

/// The hidden columns' table: each chain's best-matching cause (AUC of the posterior mean of
/// y_kt, and whether its children include the true ones) over the chains, and the MAP sample's;
/// beside them the `baselines` without the model; a note per hidden column goes to `notes`.
fn hidden_columns(
    maps: &[ChainMap],
    best: &ChainMap,
    (hidden_names, expected): (&[String], &[Vec<String>]),
    baselines: &[Baseline],
    notes: &mut Vec<String>,
) -> Result<Vec<Column>, ReportError> {
    let per = |f: &dyn Fn(&ChainMap) -> f64| -> (f64, f64, u64) {
        se::mean_over_chains(&maps.iter().map(f).collect::<Vec<_>>())
    };
    // Hidden columns: each chain's best-matching cause, and whether its children include
    // the true ones.
    let mut hidden_cols: Vec<Column> =
        vec![Series::new("hidden column".into(), hidden_names.to_vec()).into()];
    let auc_stats: Vec<(f64, f64, u64)> = (0..hidden_names.len())
        .map(|h| per(&|c| c.hidden[h].auc))
        .collect();
    se::push_estimates(&mut hidden_cols, "AUC of posterior mean y_kt", &auc_stats);
    if baselines.len() == hidden_names.len() {
        hidden_cols.extend([
            Series::new(
                "baseline: best single observed column".into(),
                baselines
                    .iter()
                    .map(|b| b.best_single.clone())
                    .collect::<Vec<_>>(),
            )
            .into(),
            Series::new(
                "baseline: its AUC".into(),
                baselines
                    .iter()
                    .map(|b| b.best_single_auc)
                    .collect::<Vec<_>>(),
            )
            .into(),
            Series::new(
                "baseline: AUC of the sum of the true children".into(),
                baselines
                    .iter()
                    .map(|b| b.children_sum_auc)
                    .collect::<Vec<_>>(),
            )
            .into(),
        ]);
    }
    let rec_stats: Vec<(f64, f64, u64)> = (0..hidden_names.len())
        .map(|h| {
            se::frequency_over_chains(
                &maps
                    .iter()
                    .map(|c| f64::from(u8::from(c.hidden[h].recovered)))
                    .collect::<Vec<_>>(),
            )
        })
        .collect();
    se::push_estimates(&mut hidden_cols, "recovered", &rec_stats);
    hidden_cols.push(
        Series::new(
            "true children".into(),
            expected.iter().map(|e| e.join(", ")).collect::<Vec<_>>(),
        )
        .into(),
    );
    let bh = &best.hidden;
    let text = |f: &dyn Fn(&HiddenMatch) -> String| bh.iter().map(f).collect::<Vec<_>>();
    hidden_cols.extend([
        Series::new(
            "MAP sample: best-matching cause".into(),
            text(&|h| {
                h.cause
                    .map_or_else(|| "none".into(), |k| format!("cause {}", k + 1))
            }),
        )
        .into(),
        Series::new(
            "MAP sample: AUC".into(),
            bh.iter().map(|h| h.auc).collect::<Vec<_>>(),
        )
        .into(),
        Series::new(
            "MAP sample: its children".into(),
            text(&|h| {
                h.cause
                    .map(|k| best.children[k].join(", "))
                    .unwrap_or_default()
            }),
        )
        .into(),
        Series::new(
            "MAP sample: recovered".into(),
            text(&|h| if h.recovered { "yes" } else { "no" }.into()),
        )
        .into(),
    ]);
    for (h, hn) in hidden_names.iter().enumerate() {
        notes.push(format!(
            "Measured: hidden {hn} is matched with AUC {} over the chains, recovered in {:.0}% of them; in the MAP sample by {} (AUC {:.3}).",
            crate::report::pm(auc_stats[h].0, auc_stats[h].1),
            100.0 * rec_stats[h].0,
            bh[h].cause
                .map_or_else(|| "none".into(), |k| format!("cause {}", k + 1)),
            bh[h].auc
        ));
        if let Some(b) = baselines.get(h) {
            notes.push(format!(
                "Without the model: {} alone predicts {hn} with AUC {:.3}, the sum of its true children with {:.3}; the chains' cause is {:+.3} from the first.",
                b.best_single,
                b.best_single_auc,
                b.children_sum_auc,
                auc_stats[h].0 - b.best_single_auc
            ));
        }
    }
    Ok(hidden_cols)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn matrix(rows: usize, cols: usize, values: Vec<f64>) -> Matrix {
        Matrix {
            name: String::new(),
            rows,
            cols,
            values,
            row_names: vec![],
            col_names: vec![],
        }
    }

    /// The baselines: a column equal to the hidden one predicts it perfectly; the sum of the
    /// true children ranks trials where either child is on above those where neither is, though
    /// each child alone misses some; a hidden column's own best single column is named.
    #[test]
    fn lucas_baselines_score_the_best_column_and_the_sum_of_the_true_children() {
        let h = matrix(2, 6, vec![1., 1., 1., 0., 0., 0., 1., 1., 0., 0., 0., 0.]);
        let mut x = matrix(
            3,
            6,
            vec![
                0., 1., 1., 0., 1., 0., // a
                1., 0., 1., 0., 0., 0., // b
                0., 1., 0., 0., 0., 0., // c
            ],
        );
        x.row_names = vec!["a".into(), "b".into(), "c".into()];
        let expected = vec![vec!["b".to_string(), "c".to_string()], vec![]];
        let b = baselines(&x, &h, &expected);
        assert_eq!(b.len(), 2);
        assert_eq!(b[0].best_single, "b");
        assert!(
            (b[0].best_single_auc - 5.0 / 6.0).abs() < 1e-12,
            "{}",
            b[0].best_single_auc
        );
        assert_eq!(b[0].children_sum_auc, 1.0);
        // No true children listed: the sum is constant, AUC one half.
        assert_eq!(b[1].children_sum_auc, 0.5);
    }

    /// Pooled figures over chains, and the chain means' range that shows chains disagreeing.
    #[test]
    fn lucas_posterior_row_pools_the_chains_and_keeps_their_means_apart() {
        let r = posterior_row(&[vec![1.0, 2.0, 3.0], vec![7.0, 8.0, 9.0]]);
        assert_eq!(r[0], 5.0);
        assert!((r[1] - (58.0f64 / 5.0).sqrt()).abs() < 1e-12);
        assert!(
            r[2] > 1.0 && r[2] < 1.2 && r[3] > 8.8 && r[3] < 9.0,
            "{r:?}"
        );
        assert_eq!((r[4], r[5], r[6]), (2.0, 8.0, 2.0));
    }

    /// A chain's figures do not depend on how its sampler labelled the causes: permuting the
    /// columns of Z (and the rows of y) gives the same K+, links, causes per variable, best
    /// AUC and recovery; only the best-matching cause's label moves. This is what makes their
    /// means over chains comparable between two runs' streams.
    #[test]
    fn chain_figures_are_invariant_to_relabelling_the_causes() {
        let names: Vec<String> = ["a", "b", "c"].iter().map(|s| s.to_string()).collect();
        // Z: 3 observed × 2 causes; cause 0 → {a, b}, cause 1 → {c}.
        let z = matrix(3, 2, vec![1.0, 0.0, 1.0, 0.0, 0.0, 1.0]);
        // y: 2 causes × 4 trials; hidden column h = [1, 1, 0, 0].
        let y = matrix(2, 4, vec![0.9, 0.8, 0.1, 0.2, 0.5, 0.1, 0.6, 0.4]);
        let h = matrix(1, 4, vec![1.0, 1.0, 0.0, 0.0]);
        let expected = vec![vec!["a".to_string(), "b".to_string()]];
        let zp = matrix(3, 2, vec![0.0, 1.0, 0.0, 1.0, 1.0, 0.0]);
        let yp = matrix(2, 4, vec![0.5, 0.1, 0.6, 0.4, 0.9, 0.8, 0.1, 0.2]);
        let (a, b) = (
            chain_map(&z, &y, -1.0, &names, Some(&h), &expected),
            chain_map(&zp, &yp, -1.0, &names, Some(&h), &expected),
        );
        assert_eq!(a.n_causes, vec![1, 1, 1]);
        assert_eq!(a.n_causes, b.n_causes);
        assert_eq!(a.children.len(), b.children.len());
        assert_eq!((a.hidden[0].auc, b.hidden[0].auc), (1.0, 1.0));
        assert_eq!((a.hidden[0].cause, b.hidden[0].cause), (Some(0), Some(1)));
        assert!(a.hidden[0].recovered && b.hidden[0].recovered);
        // Not recovered when the best cause lacks a true child.
        let missing = vec![vec!["a".to_string(), "c".to_string()]];
        assert!(!chain_map(&z, &y, -1.0, &names, Some(&h), &missing).hidden[0].recovered);
    }
}

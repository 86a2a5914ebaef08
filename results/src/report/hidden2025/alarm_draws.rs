//! `hidden2025.alarm_draws`: supplement F.3 of `002_d97ecc788b964f97.txt` (ALARM, Tables 10–11)
//! over many independent 200-row samples. The paper's one sample is 200 of bnlearn's
//! pre-simulated ALARM rows, which causeway cannot draw again; each replicate here is another
//! 200 rows from the same network (`bnrepository/alarm.bif`). For each node's `exact` cell (the
//! exact parent-set posterior by numerical integration over log t), table `alarm_draws` gives the
//! spread over the samples of every probability Tables 10 and 11 report (the paper's listed
//! parent sets, the edges LVF → node and HYP → node) and where the paper's value falls in it:
//! `share_below_paper`, the fraction of samples whose probability is below the paper's.
//! Figure `figures/alarm_draws.svg`: the empirical distribution function of each of those
//! probabilities over the samples, the paper's value as a dashed vertical line.

use causeway_papers::hidden2025::evaluation::alarm::edge_probability;
use polars::prelude::*;

use super::alarm::{exact_probs, rho_of, text};
use crate::diagnostics::quantile_sorted;
use crate::report::figures::{self, Line, Panel};
use crate::report::{ReportError, Table, json_text, se};
use crate::rundir::{CellRecord, Manifest, RunDir};

fn other(e: impl std::fmt::Display) -> ReportError {
    ReportError::Other(format!("hidden2025.alarm_draws: {e}"))
}

/// The candidate parent sets of a cell, each as its names in YAML order.
fn name_sets(c: &CellRecord) -> Vec<Vec<String>> {
    c.param("parent_sets")
        .and_then(|v| v.as_array())
        .map(|a| {
            a.iter()
                .map(|s| {
                    s.as_array()
                        .map(|n| n.iter().map(json_text).collect())
                        .unwrap_or_default()
                })
                .collect()
        })
        .unwrap_or_default()
}

/// One row of the table: a probability over the samples (`values`, one per sample; finite and
/// ascending once gathered) beside the paper's value.
struct Quantity {
    node: String,
    rho: String,
    what: String,
    paper: Option<f64>,
    values: Vec<f64>,
}

/// The quantities of one `exact` cell over the replicates: the paper's Table 10 sets of the node
/// and its Table 11 edges.
fn quantities(
    rd: &RunDir,
    m: &Manifest,
    c: &CellRecord,
    reps: u64,
) -> Result<Vec<Quantity>, ReportError> {
    let node = text(c, "node");
    let rho = rho_of(c);
    let sets = name_sets(c);
    let labels: Vec<String> = sets.iter().map(|s| s.join(";")).collect();
    let mut per_rep = Vec::new();
    for r in 0..reps {
        if let Some(p) = exact_probs(rd, m, c, r, &labels)? {
            per_rep.push(p);
        }
    }
    let mut out = Vec::new();
    let table10 = m.reported.get("table10").and_then(|t| t.get(&node));
    for (label, paper) in table10.and_then(|t| t.as_object()).into_iter().flatten() {
        let i = labels.iter().position(|l| l == label).ok_or_else(|| {
            other(format!(
                "{node}: the paper's set {label} is not a candidate"
            ))
        })?;
        out.push(Quantity {
            node: node.clone(),
            rho: rho.clone(),
            what: format!("Pa = {{{}}}", label.replace(';', ", ")),
            paper: paper.as_f64(),
            values: per_rep.iter().map(|p| p[i]).collect(),
        });
    }
    // Edges: sets as indices into one list of the names they use.
    let mut names: Vec<String> = sets.iter().flatten().cloned().collect();
    names.sort_unstable();
    names.dedup();
    let idx: Vec<Vec<usize>> = sets
        .iter()
        .map(|s| {
            s.iter()
                .filter_map(|n| names.iter().position(|x| x == n))
                .collect()
        })
        .collect();
    let table11 = m.reported.get("table11");
    for parent in ["LVF", "HYP"] {
        let (Some(p), Some(paper)) = (
            names.iter().position(|x| x == parent),
            table11
                .and_then(|t| t.get(parent))
                .and_then(|t| t.get(&node))
                .and_then(|v| v.as_f64()),
        ) else {
            continue;
        };
        out.push(Quantity {
            node: node.clone(),
            rho: rho.clone(),
            what: format!("edge {parent} → {node}"),
            paper: Some(paper),
            values: per_rep
                .iter()
                .map(|f| edge_probability(&idx, f, p))
                .collect(),
        });
    }
    Ok(out)
}

/// Table `alarm_draws` and figure `alarm_draws.svg` (see the module docs).
///
/// Errors: unreadable summaries; a set of `reported.table10` that is not a candidate of its
/// node's cell; polars; the figure's file.
pub fn alarm_draws(
    rd: &RunDir,
    m: &Manifest,
    _conv: &crate::report::Convergence,
) -> Result<Vec<Table>, ReportError> {
    let reps = m.replicates();
    let mut qs = Vec::new();
    for c in m.cells.iter().filter(|c| text(c, "method") == "exact") {
        qs.extend(quantities(rd, m, c, reps)?);
    }
    // Each quantity's finite values, ascending: the quantiles, the share below the paper's
    // value and the figure's distribution function read them in that order.
    for q in &mut qs {
        q.values.retain(|x| x.is_finite());
        q.values.sort_by(f64::total_cmp);
    }
    let n: Vec<u64> = qs.iter().map(|q| q.values.len() as u64).collect();
    let quant = |v: &[f64], p: f64| {
        if v.is_empty() {
            f64::NAN
        } else {
            quantile_sorted(v, p)
        }
    };
    let mut cols: Vec<Column> = vec![
        Series::new(
            "node".into(),
            qs.iter().map(|q| q.node.clone()).collect::<Vec<_>>(),
        )
        .into(),
        Series::new(
            "rho".into(),
            qs.iter().map(|q| q.rho.clone()).collect::<Vec<_>>(),
        )
        .into(),
        Series::new(
            "quantity".into(),
            qs.iter().map(|q| q.what.clone()).collect::<Vec<_>>(),
        )
        .into(),
        Series::new(
            "paper".into(),
            qs.iter().map(|q| q.paper).collect::<Vec<_>>(),
        )
        .into(),
        Series::new("samples".into(), n.clone()).into(),
    ];
    let means: Vec<(f64, f64, u64)> = qs.iter().map(|q| se::mean_over_units(&q.values)).collect();
    se::push_estimates(&mut cols, "mean", &means);
    for (name, p) in [
        ("q05", 0.05),
        ("q25", 0.25),
        ("median", 0.5),
        ("q75", 0.75),
        ("q95", 0.95),
    ] {
        cols.push(
            Series::new(
                name.into(),
                qs.iter().map(|q| quant(&q.values, p)).collect::<Vec<_>>(),
            )
            .into(),
        );
        let ses = qs.iter().map(|q| se::quantile_se(&q.values, p)).collect();
        se::push_se(&mut cols, name, ses, Some(n.clone()));
    }
    let below: Vec<(f64, f64, u64)> = qs
        .iter()
        .map(|q| {
            let v = &q.values;
            let share = q.paper.map_or(f64::NAN, |p| {
                v.partition_point(|&x| x < p) as f64 / v.len().max(1) as f64
            });
            (
                share,
                se::binomial_se(share, v.len() as u64),
                v.len() as u64,
            )
        })
        .collect();
    se::push_estimates(&mut cols, "share_below_paper", &below);
    let df = DataFrame::new_infer_height(cols)?;
    figure(rd, &qs)?;
    Ok(vec![Table {
        name: "alarm_draws".into(),
        title: "Tables 10–11 over independent 200-row ALARM samples: the exact posterior's spread beside the paper's one sample (supplement F.3)".into(),
        df,
        notes: vec![
            format!(
                "Each sample: 200 rows drawn from bnrepository/alarm.bif (the run's dataset stream, replicate r); {reps} samples. \
                 Probabilities from the exact method (numerical integration over log t) with the candidate sets and uniform \
                 prior of supplement F.3; an edge j' → j sums the sets containing j'."
            ),
            "paper: Tables 10 and 11 from the paper's one sample of bnlearn's pre-simulated rows. share_below_paper: the \
             fraction of samples whose probability is below the paper's value (near 0 or 1: the paper's sample is unusual \
             for the network, or its posterior differs from the exact one). q05 … q95: type-7 quantiles over the samples, \
             with the distribution-free se of a quantile."
                .into(),
        ],
    }])
}

/// The empirical distribution function of each quantity over the samples, the paper's value as
/// a dashed vertical line; one panel per quantity.
fn figure(rd: &RunDir, qs: &[Quantity]) -> Result<(), ReportError> {
    let panels: Vec<Panel> = qs
        .iter()
        .filter(|q| !q.values.is_empty())
        .map(|q| {
            let v = &q.values;
            let k = v.len() as f64;
            let mut lines = vec![Line {
                name: format!("{} samples", v.len()),
                reference: false,
                points: v
                    .iter()
                    .enumerate()
                    .map(|(i, &x)| (x, (i + 1) as f64 / k, f64::NAN))
                    .collect(),
            }];
            if let Some(p) = q.paper {
                lines.push(Line {
                    name: format!("paper {p}"),
                    reference: true,
                    points: vec![(p, 0.0, f64::NAN), (p, 1.0, f64::NAN)],
                });
            }
            Panel {
                title: format!("{}: {} (ρ = {})", q.node, q.what, q.rho),
                x_label: "posterior probability".into(),
                y_label: "share of samples ≤ x".into(),
                log_x: false,
                square: false,
                scatter: false,
                lines,
            }
        })
        .collect();
    figures::line_panels(&rd.figures_dir().join("alarm_draws.svg"), &panels, 3)
}

//! Tables and figures of a run: the tables of each report kind the experiment names (`report:`
//! in the YAML), then for every experiment a convergence table; and `<out>/cost.{md,csv}`
//! (`cost.rs`), kept out of `tables/` because it is wall-clock.
//!
//! Every table is written as `tables/<name>.md` and `tables/<name>.csv`; `tables/report.md`
//! collects them and ends with the convergence summary (cells with R-hat > 1.01 or bulk ESS <
//! 400 on any monitored scalar are flagged).

use std::collections::BTreeMap;
use std::fmt::Write as _;

use causeway_papers::Matrix;
use polars::prelude::*;

use crate::diagnostics;
use crate::rundir::{
    CellRecord, Manifest, RunDir, StoreError, chain_draws, missing_summary, write_atomic, write_csv,
};

pub mod cost;
pub mod dallaire2014;
pub mod figures;
pub mod hidden2025;
pub mod kurutmaz2019;
pub mod sbc_table;
pub mod se;
pub mod until_table;
pub mod wood2006;

/// R-hat above this flags a cell (Vehtari et al. 2021).
pub const RHAT_MAX: f64 = 1.01;
/// Bulk ESS below this flags a cell (Vehtari et al. 2021).
pub const ESS_BULK_MIN: f64 = 400.0;

/// A report that could not be built.
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("polars: {0}")]
    Polars(#[from] PolarsError),
    #[error("{0}")]
    Other(String),
}

/// A finished table: a polars frame plus a title, notes, and per-row convergence flags.
pub struct Table {
    /// File stem under `tables/`.
    pub name: String,
    pub title: String,
    pub df: DataFrame,
    /// Lines printed under the table in Markdown (sources, choices, the paper's values).
    pub notes: Vec<String>,
}

/// Worst convergence figures of a monitored scalar over a cell's replicates.
#[derive(Debug, Clone, Copy)]
pub struct CellConvergence {
    pub rhat: f64,
    pub ess_bulk: f64,
    pub ess_tail: f64,
    /// Some replicate had more than one chain and an R-hat of NaN: no chain moved (every draw
    /// of every chain equal), so nothing shows that they agree.
    pub stuck: bool,
    /// `(stored, planned)` chains when the cell has fewer stored chains than its plan (a
    /// killed run, failed chains): its figures come from the chains that exist.
    pub incomplete: Option<(u64, u64)>,
}

impl CellConvergence {
    /// No figures yet (NaN), nothing flagged.
    pub fn unknown() -> Self {
        CellConvergence {
            rhat: f64::NAN,
            ess_bulk: f64::NAN,
            ess_tail: f64::NAN,
            stuck: false,
            incomplete: None,
        }
    }

    /// R-hat > 1.01, bulk ESS < 400, or [`CellConvergence::stuck`]. A NaN R-hat of a single
    /// chain is not flagged on R-hat alone (one chain has no between-chain variance).
    pub fn flagged(&self) -> bool {
        self.rhat > RHAT_MAX
            || self.ess_bulk < ESS_BULK_MIN
            || self.stuck
            || self.incomplete.is_some()
    }

    /// Fold one replicate's chains (M chains of draws, cut to the shortest) into the worst
    /// figures so far: the largest R-hat, the smallest ESS, and `stuck` if M > 1 and R-hat is
    /// NaN. A replicate whose draws cannot be diagnosed (too few) changes nothing.
    pub fn fold_replicate(&mut self, chains: &[Vec<f64>]) {
        let n = chains.iter().map(Vec::len).min().unwrap_or(0);
        let views: Vec<&[f64]> = chains.iter().map(|d| &d[..n]).collect();
        let Ok(d) = diagnostics::diagnose(&views) else {
            return;
        };
        self.stuck |= views.len() > 1 && n > 0 && d.rhat.is_nan();
        self.rhat = nan_max(self.rhat, d.rhat);
        self.ess_bulk = nan_min(self.ess_bulk, d.ess_bulk);
        self.ess_tail = nan_min(self.ess_tail, d.ess_tail);
    }

    /// Why the scalar is flagged, for the summary (empty when it is not).
    pub fn reason(&self) -> String {
        if let Some((stored, planned)) = self.incomplete {
            format!("{stored} of {planned} chains stored")
        } else if self.stuck {
            "R-hat NaN: no chain moved".into()
        } else if self.flagged() {
            format!("R-hat {:.3}, ESS bulk {:.0}", self.rhat, self.ess_bulk)
        } else {
            String::new()
        }
    }
}

/// Per cell index, per monitored scalar (in `monitor` order).
pub type Convergence = BTreeMap<usize, Vec<(String, CellConvergence)>>;

/// Builds one report kind's tables (and writes its figures) from a finished run.
pub type BuildFn = fn(&RunDir, &Manifest, &Convergence) -> Result<Vec<Table>, ReportError>;

/// A report kind, as named in the YAML's `report:` list.
pub struct ReportKind {
    /// `<model>.<table>`, e.g. `wood2006.fig3`.
    pub name: &'static str,
    /// The registry name of the model whose runs it reads (`*`: any model's).
    pub model: &'static str,
    /// What it builds, for error messages and the README.
    pub what: &'static str,
    pub build: BuildFn,
}

/// Every report kind causeway knows, beside the model registry (`causeway_papers::registry`).
/// `causeway validate` (and `run`, before any chain) refuses a kind not listed here, or one of
/// another model.
pub static REPORTS: &[ReportKind] = &[
    ReportKind {
        name: "sbc",
        model: "*",
        what: "simulation-based calibration (an experiment's sbc: block): rank uniformity tests and figures",
        build: sbc_table::sbc,
    },
    ReportKind {
        name: "wood2006.fig3",
        model: "wood2006",
        what: "paper 000 Figure 3: posterior K against the true K",
        build: wood2006::fig3,
    },
    ReportKind {
        name: "wood2006.fig4",
        model: "wood2006",
        what: "paper 000 Figure 4: in-degree and structure errors by iteration",
        build: wood2006::fig4,
    },
    ReportKind {
        name: "wood2006.lucas",
        model: "wood2006",
        what: "paper 000 §6 analogue on LUCAS0: hidden causes recovered",
        build: wood2006::lucas,
    },
    ReportKind {
        name: "kurutmaz2019.toy",
        model: "kurutmaz2019",
        what: "paper 003 §5.2: SMC, VB and DEM against the exact evidence on toy pairs",
        build: |rd, m, _| kurutmaz2019::toy(rd, m),
    },
    ReportKind {
        name: "kurutmaz2019.synthetic",
        model: "kurutmaz2019",
        what: "paper 003 §5.3: hypothesis and R recovered on synthetic pairs",
        build: |rd, m, _| kurutmaz2019::synthetic(rd, m),
    },
    ReportKind {
        name: "kurutmaz2019.cep",
        model: "kurutmaz2019",
        what: "paper 003 §5.4: Cause-Effect Pairs, Table 5.2 and cross-validation",
        build: |rd, m, _| kurutmaz2019::cep(rd, m),
    },
    ReportKind {
        name: "kurutmaz2019.abalone",
        model: "kurutmaz2019",
        what: "paper 003 §5.5: UCI Abalone",
        build: kurutmaz2019::abalone,
    },
    ReportKind {
        name: "hidden2025.table1",
        model: "hidden2025",
        what: "paper 002 Table 1 (§5.1): RMSE of P(child = 1 | level) on sparse counts",
        build: hidden2025::table1,
    },
    ReportKind {
        name: "hidden2025.table2",
        model: "hidden2025",
        what: "paper 002 Table 2 (§5.2, C.2): LUCAS Markov blankets, Figure 3 edges, Table 6, Figure 4",
        build: hidden2025::table2,
    },
    ReportKind {
        name: "hidden2025.table3",
        model: "hidden2025",
        what: "paper 002 Table 3 (§5.3): proportion of datasets selecting G2 between two DAGs",
        build: hidden2025::table3,
    },
    ReportKind {
        name: "hidden2025.table7",
        model: "hidden2025",
        what: "paper 002 Tables 7 and 8 (supplement E): two candidate parent sets",
        build: hidden2025::table7,
    },
    ReportKind {
        name: "dallaire2014.table1",
        model: "dallaire2014",
        what: "paper 004 Table 1 (§5.1): KL(test ‖ model) per dataset and method, the reference KLs, the KDE's width",
        build: dallaire2014::table1,
    },
    ReportKind {
        name: "dallaire2014.table2",
        model: "dallaire2014",
        what: "paper 004 Table 2 (§5.1): posterior units, edges and depth of the CIBP and the eCIBP",
        build: dallaire2014::table2,
    },
    ReportKind {
        name: "dallaire2014.structure",
        model: "dallaire2014",
        what: "paper 004 §5.2: the structure of a known 7-unit network identified",
        build: dallaire2014::structure,
    },
    ReportKind {
        name: "dallaire2014.prior",
        model: "dallaire2014",
        what: "paper 004 §6: the structure prior sampled with no data and forward, against its exact moments",
        build: dallaire2014::prior,
    },
    ReportKind {
        name: "hidden2025.alarm",
        model: "hidden2025",
        what: "paper 002 supplement F (Tables 9-11, Figure 10): ALARM probabilities, parent sets, edges",
        build: hidden2025::alarm,
    },
    ReportKind {
        name: "hidden2025.alarm_draws",
        model: "hidden2025",
        what: "paper 002 supplement F.3 (Tables 10-11) over many 200-row ALARM samples: the spread beside the paper's one sample",
        build: hidden2025::alarm_draws,
    },
    ReportKind {
        name: "hidden2025.metabric",
        model: "hidden2025",
        what: "paper 002 §6 (Table 4, Figures 5-7): METABRIC edge probabilities, median DAG against HC/TABU, MCMC",
        build: hidden2025::metabric,
    },
    ReportKind {
        name: "hidden2025.mmle",
        model: "hidden2025",
        what: "paper 002 supplement G (eqs 19-21): MMLE of pi~ = t/beta for LUCAS0 and METABRIC",
        build: hidden2025::mmle,
    },
];

/// The report kind called `name`. The error lists the allowed names.
pub fn report_kind(name: &str) -> Result<&'static ReportKind, String> {
    REPORTS.iter().find(|k| k.name == name).ok_or_else(|| {
        let names: Vec<&str> = REPORTS.iter().map(|k| k.name).collect();
        format!(
            "unknown report kind {name:?}: allowed values are {}",
            names.join(", ")
        )
    })
}

/// Build every table and figure of the run in `rd`, and its page (`index.html`, [`crate::site`]).
pub fn build(rd: &RunDir) -> Result<(), ReportError> {
    build_with(rd, &rd.read_manifest()?)
}

/// [`build`] with the run's manifest `m` already in memory (the runner's, which shares the
/// plan's job list: at 10⁶ chains, reading it again took 100 MB more).
pub fn build_with(rd: &RunDir, m: &Manifest) -> Result<(), ReportError> {
    // A run directory copied or pruned without its tables (or made by an older version) still
    // reports: the folders are made here, not only by `run`.
    // Each folder is also tried for writing first, so that a read-only or full file system
    // is named by its path (the figure library's own error names none).
    for dir in [rd.tables_dir(), rd.figures_dir(), rd.units_dir()] {
        std::fs::create_dir_all(&dir)
            .map_err(|e| ReportError::Other(format!("{}: cannot create: {e}", dir.display())))?;
        let probe = dir.join(".causeway-write-probe");
        std::fs::write(&probe, b"")
            .and_then(|()| std::fs::remove_file(&probe))
            .map_err(|e| ReportError::Other(format!("{}: cannot write: {e}", dir.display())))?;
    }
    let conv = convergence(rd, m)?;
    let mut tables = Vec::new();
    for kind in &m.report {
        let k = report_kind(kind).map_err(ReportError::Other)?;
        tables.extend((k.build)(rd, m, &conv)?);
    }
    tables.push(convergence_table(m, &conv)?);
    if let Some(u) = &m.until {
        tables.push(until_table::until_table(m, u, &conv)?);
    }
    let chain_seed = m
        .chain_seed
        .map(|s| format!(", chain seed {s}"))
        .unwrap_or_default();
    let mut report = format!(
        "# {}\n\n{}\n\nProfile `{}`, code {}, seed {}{chain_seed}.\n\n",
        m.name, m.description, m.profile, m.code_version, m.base_seed
    );
    if let Some(line) = missing_summary(&rd.missing_chains(m)) {
        // Every table below averages the chains that exist: say so on each, and first here.
        report.push_str(&format!(
            "**Incomplete run: {line}.** Every table below is built from the chains that exist; \
             the cells concerned read `⚠ k of n chains` where a table has a `converged` column. \
             Rerun the same command to finish it.\n\n"
        ));
        for t in &mut tables {
            t.notes.push(format!("Incomplete run: {line}."));
        }
    }
    if let Some(d) = &m.defect {
        report.push_str(&format!(
            "**Every chain ran the deliberately broken kernel `{d}`** (`CAUSEWAY_DEFECT`): a power \
             run of the statistical check, not a result.\n\n"
        ));
    }
    for t in &mut tables {
        let md = write_table(rd, t)?;
        report.push_str(&md);
        report.push('\n');
    }
    report.push_str(&convergence_summary(m, &conv));
    write_atomic(&rd.tables_dir().join("report.md"), report.as_bytes())?;
    // Wall-clock, so kept apart from tables/ (which is reproducible byte for byte), like jobs.csv.
    let mut cost = cost::cost_table(rd, m)?;
    write_csv(&rd.root.join("cost.csv"), &mut cost.df)?;
    write_atomic(&rd.root.join("cost.md"), markdown(&cost).as_bytes())?;
    crate::site::write_run_page(rd, m).map_err(|e| ReportError::Other(e.to_string()))?;
    Ok(())
}

/// The summary matrices of every finished chain of (cell, replicate), in job order.
pub fn replicate_summaries(
    rd: &RunDir,
    m: &Manifest,
    cell: usize,
    replicate: u64,
) -> Result<Vec<Vec<Matrix>>, ReportError> {
    m.jobs
        .iter()
        .filter(|j| j.cell == cell && j.replicate == replicate && rd.chain_done(&j.job_id))
        .map(|j| Ok(rd.read_summary(&j.job_id)?))
        .collect()
}

/// `f` over `items` on plain threads (one chunk per core), results in `items`' order. Not rayon:
/// the chain and dataset reads call polars, whose own rayon pool, entered from a global rayon
/// worker, lets that worker steal further tasks while it waits; with hundreds of tasks the
/// nesting overflowed a worker's stack (measured on the quick profile's 960 tasks).
pub fn par_map<T: Sync, U: Send>(
    items: &[T],
    f: impl Fn(&T) -> Result<U, ReportError> + Sync,
) -> Result<Vec<U>, ReportError> {
    let threads = std::thread::available_parallelism().map_or(1, usize::from);
    let chunk = items.len().div_ceil(threads).max(1);
    std::thread::scope(|scope| {
        let handles: Vec<_> = items
            .chunks(chunk)
            .map(|c| scope.spawn(|| c.iter().map(&f).collect::<Result<Vec<U>, _>>()))
            .collect();
        let mut out = Vec::with_capacity(items.len());
        for h in handles {
            let part = h
                .join()
                .map_err(|_| ReportError::Other("a report thread panicked".into()))??;
            out.extend(part);
        }
        Ok(out)
    })
}

/// R-hat and ESS of every monitored scalar, worst over each cell's replicates.
pub fn convergence(rd: &RunDir, m: &Manifest) -> Result<Convergence, ReportError> {
    let reps = m.replicates();
    let incomplete: BTreeMap<usize, (u64, u64)> = rd
        .missing_chains(m)
        .into_iter()
        .map(|x| (x.cell, (x.stored, x.planned)))
        .collect();
    // Cells are independent: spread over the cores (trace reads and diagnostics); the map is
    // keyed by cell index, so the result does not depend on the order they finish in.
    let rows = par_map(
        &m.cells,
        |c| -> Result<(usize, Vec<(String, CellConvergence)>), ReportError> {
            let mut row = Vec::new();
            for s in &m.monitor {
                let mut worst = CellConvergence {
                    incomplete: incomplete.get(&c.index).copied(),
                    ..CellConvergence::unknown()
                };
                for r in 0..reps {
                    let draws = chain_draws(rd, m, c.index, r, s)?;
                    if draws.is_empty() {
                        continue;
                    }
                    worst.fold_replicate(&draws);
                }
                row.push((s.clone(), worst));
            }
            Ok((c.index, row))
        },
    )?;
    Ok(rows.into_iter().collect())
}

fn nan_max(a: f64, b: f64) -> f64 {
    if a.is_nan() {
        b
    } else if b.is_nan() {
        a
    } else {
        a.max(b)
    }
}
fn nan_min(a: f64, b: f64) -> f64 {
    if a.is_nan() {
        b
    } else if b.is_nan() {
        a
    } else {
        a.min(b)
    }
}

/// One row per cell: its axes, then R-hat, bulk and tail ESS of each monitored scalar.
fn convergence_table(m: &Manifest, conv: &Convergence) -> Result<Table, ReportError> {
    let cells: Vec<usize> = m.cells.iter().map(|c| c.index).collect();
    let mut cols = axis_columns(m, &cells);
    append_convergence(&mut cols, m, conv, &cells);
    Ok(Table {
        name: "convergence".into(),
        title: "Convergence of every cell (worst over its replicates)".into(),
        df: DataFrame::new_infer_height(cols)?,
        notes: vec![format!(
            "R-hat: rank-normalised split R-hat (Vehtari et al. 2021, as ArviZ 0.23); ESS bulk and tail (5%/95%). \
             Post-burn-in draws, across each cell's chains; the worst replicate is shown. ⚠ marks R-hat > {RHAT_MAX}, bulk ESS < {ESS_BULK_MIN}, or a NaN R-hat over more than one chain (no chain moved)."
        )],
    })
}

/// Columns `cell` and one per grid axis (values as text) for the given cells, named by the
/// axis path's last component, or by the full path where two axes share that component.
pub fn axis_columns(m: &Manifest, cells: &[usize]) -> Vec<Column> {
    let names = axis_names(m);
    let mut cols: Vec<Column> = vec![
        Series::new(
            "cell".into(),
            cells.iter().map(|&c| c as u64).collect::<Vec<_>>(),
        )
        .into(),
    ];
    for n in &names {
        let vals: Vec<String> = cells
            .iter()
            .map(|&c| m.cells[c].axes.get(n).map(json_text).unwrap_or_default())
            .collect();
        // The last path component, unless two axes share it (e.g. `dataset.setting` and
        // `params.setting`): then the full path, so column names stay unique.
        let short = short_of(n);
        let short = if names.iter().filter(|o| short_of(o) == short).count() > 1 {
            n.clone()
        } else {
            short
        };
        cols.push(Series::new(short.into(), vals).into());
    }
    cols
}

/// An axis path's last component (`params.precision_prior.rate` → `rate`).
fn short_of(path: &str) -> String {
    path.rsplit('.').next().unwrap_or(path).to_string()
}

/// Cell `c`'s grid axes other than the paths in `skip`, as `name=value` joined by ", ", each
/// named by its path's last component (e.g. `init=truth, rate=0.01`); empty if none.
pub fn axes_text(c: &CellRecord, skip: &[&str]) -> String {
    c.axes
        .iter()
        .filter(|(k, _)| !skip.contains(&k.as_str()))
        .map(|(k, v)| format!("{}={}", short_of(k), json_text(v)))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The grid's axis paths (e.g. `params.n_latent`), in order of first appearance over the cells.
pub fn axis_names(m: &Manifest) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for c in m.cells.iter() {
        for k in c.axes.keys() {
            if !names.contains(k) {
                names.push(k.clone());
            }
        }
    }
    names
}

/// A JSON value as compact text (strings unquoted).
pub fn json_text(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// Append, for each monitored scalar, `rhat(s)`, `ess_bulk(s)`, `ess_tail(s)` for `cells`, and
/// a `converged` column (`⚠` when any scalar is flagged).
pub fn append_convergence(
    cols: &mut Vec<Column>,
    m: &Manifest,
    conv: &Convergence,
    cells: &[usize],
) {
    for (si, s) in m.monitor.iter().enumerate() {
        let get = |c: usize| conv.get(&c).and_then(|v| v.get(si)).map(|x| x.1);
        let f = |sel: fn(&CellConvergence) -> f64| -> Vec<f64> {
            cells
                .iter()
                .map(|&c| get(c).map_or(f64::NAN, |x| sel(&x)))
                .collect()
        };
        cols.push(Series::new(format!("rhat({s})").into(), f(|x| x.rhat)).into());
        cols.push(Series::new(format!("ess_bulk({s})").into(), f(|x| x.ess_bulk)).into());
        cols.push(Series::new(format!("ess_tail({s})").into(), f(|x| x.ess_tail)).into());
    }
    let flags: Vec<String> = cells
        .iter()
        .map(|c| {
            let v = conv.get(c).map(Vec::as_slice).unwrap_or_default();
            if let Some((s, p)) = v.iter().find_map(|(_, x)| x.incomplete) {
                format!("⚠ {s} of {p} chains")
            } else if v.iter().any(|(_, x)| x.flagged()) {
                "⚠".into()
            } else {
                "ok".into()
            }
        })
        .collect();
    cols.push(Series::new("converged".into(), flags).into());
}

fn convergence_summary(m: &Manifest, conv: &Convergence) -> String {
    let flagged: Vec<usize> = conv
        .iter()
        .filter(|(_, v)| v.iter().any(|(_, x)| x.flagged()))
        .map(|(c, _)| *c)
        .collect();
    let mut s = String::from("## Convergence summary\n\n");
    if m.monitor.is_empty() {
        s.push_str("No scalars are monitored in this experiment.\n");
        return s;
    }
    let _ = writeln!(
        s,
        "{} of {} cells flagged (R-hat > {RHAT_MAX} or bulk ESS < {ESS_BULK_MIN} on any of: {}).",
        flagged.len(),
        conv.len(),
        m.monitor.join(", ")
    );
    for c in flagged.iter().take(50) {
        let axes: Vec<String> = m.cells[*c]
            .axes
            .iter()
            .map(|(k, v)| format!("{k}={}", json_text(v)))
            .collect();
        let why: Vec<String> = conv[c]
            .iter()
            .filter(|(_, x)| x.flagged())
            .map(|(n, x)| format!("{n}: {}", x.reason()))
            .collect();
        let _ = writeln!(s, "- cell {c} ({}): {}", axes.join(", "), why.join("; "));
    }
    if flagged.len() > 50 {
        let _ = writeln!(
            s,
            "- … and {} more (see convergence.csv)",
            flagged.len() - 50
        );
    }
    s
}

/// Write `tables/<name>.csv` and `tables/<name>.md`; returns the Markdown.
pub fn write_table(rd: &RunDir, t: &mut Table) -> Result<String, ReportError> {
    write_csv(&rd.tables_dir().join(format!("{}.csv", t.name)), &mut t.df)?;
    let md = markdown(t);
    write_atomic(
        &rd.tables_dir().join(format!("{}.md", t.name)),
        md.as_bytes(),
    )?;
    Ok(md)
}

/// Render a table as GitHub Markdown (floats to 4 significant decimals).
pub fn markdown(t: &Table) -> String {
    let df = &t.df;
    let mut s = format!("## {}\n\n", t.title);
    let names: Vec<String> = df
        .get_column_names()
        .iter()
        .map(|n| n.to_string())
        .collect();
    let _ = writeln!(s, "| {} |", names.join(" | "));
    let _ = writeln!(s, "|{}", names.iter().map(|_| "---|").collect::<String>());
    for i in 0..df.height() {
        let cells: Vec<String> = df
            .columns()
            .iter()
            .map(|c| {
                let v = c.get(i).ok();
                match v {
                    Some(AnyValue::Float64(x)) if c.name().contains("rhat") => rhat_text(x),
                    _ => cell_text(v),
                }
            })
            .collect();
        let _ = writeln!(s, "| {} |", cells.join(" | "));
    }
    for n in &t.notes {
        let _ = write!(s, "\n{n}\n");
    }
    s
}

fn cell_text(v: Option<AnyValue<'_>>) -> String {
    match v {
        None | Some(AnyValue::Null) => String::new(),
        Some(AnyValue::Float64(x)) => fmt_f64(x),
        Some(AnyValue::Float32(x)) => fmt_f64(f64::from(x)),
        Some(AnyValue::String(s)) => s.to_string(),
        Some(AnyValue::StringOwned(s)) => s.to_string(),
        Some(other) => other.to_string(),
    }
}

/// An R-hat for a Markdown table: above 100 (infinite included) it reads `>100`, a figure that
/// says "not converged at all" without 16 meaningless digits. The CSV keeps the exact
/// value (`inf` where infinite).
pub fn rhat_text(x: f64) -> String {
    if x > 100.0 { ">100".into() } else { fmt_f64(x) }
}

/// Human formatting of a float for tables.
pub fn fmt_f64(x: f64) -> String {
    if x.is_nan() {
        "NaN".into()
    } else if x.is_infinite() {
        if x > 0.0 { "inf".into() } else { "-inf".into() }
    } else if x == x.trunc() && x.abs() < 1e6 {
        format!("{x:.0}")
    } else if x.abs() >= 1000.0 {
        format!("{x:.1}")
    } else if x.abs() >= 1.0 {
        format!("{x:.3}")
    } else if x.abs() >= 1e-3 {
        format!("{x:.4}")
    } else {
        // Rounding noise and tiny differences (paper 003's R = 1 evidence, ~1e-13) stay visible.
        format!("{x:.2e}")
    }
}

/// Group `df` by `keys` and aggregate each of `values` into `<v>_mean` and `<v>_sd` (sample
/// sd, n − 1), plus `count` (rows per group); sorted by `keys`.
#[allow(deprecated)] // the eager group-by: polars is built without its lazy engine to keep cold builds short
pub fn mean_sd_by(
    df: &DataFrame,
    keys: &[&str],
    values: &[&str],
) -> Result<DataFrame, ReportError> {
    let gb = df.group_by(keys.iter().copied())?;
    let mut out = gb.clone().select(values.iter().copied()).mean()?;
    let sd = gb.clone().select(values.iter().copied()).std(1)?;
    for v in values {
        let mut c = sd.column(&format!("{v}_agg_std"))?.clone();
        c.rename(format!("{v}_sd").into());
        out.with_column(c)?;
    }
    if let Some(first) = values.first() {
        let cnt = gb.select([*first]).count()?;
        let mut c = cnt
            .column(&format!("{first}_count"))?
            .cast(&DataType::UInt64)?;
        c.rename("count".into());
        out.with_column(c)?;
    }
    Ok(out.sort(keys.iter().copied(), SortMultipleOptions::default())?)
}

/// Column `name` of `df` as f64 values (nulls → NaN).
pub fn f64s(df: &DataFrame, name: &str) -> Result<Vec<f64>, ReportError> {
    Ok(df
        .column(name)?
        .cast(&DataType::Float64)?
        .f64()?
        .iter()
        .map(|x| x.unwrap_or(f64::NAN))
        .collect())
}

/// Column `name` of `df` as u64 values (iteration numbers, cell indices; nulls skipped).
pub fn u64s(df: &DataFrame, name: &str) -> Result<Vec<u64>, ReportError> {
    Ok(df.column(name)?.u64()?.into_no_null_iter().collect())
}

/// A text column of `mean ± sd` pairs.
pub fn pm_column(name: &str, means: &[f64], sds: &[f64]) -> Column {
    let text: Vec<String> = means.iter().zip(sds).map(|(a, b)| pm(*a, *b)).collect();
    Series::new(name.into(), text).into()
}

/// `mean ± sd` text.
pub fn pm(mean: f64, sd: f64) -> String {
    format!("{} ± {}", fmt_f64(mean), fmt_f64(sd))
}

#[cfg(test)]
mod tests {
    #[test]
    fn an_rhat_above_100_reads_more_than_100_in_markdown_only() {
        assert_eq!(super::rhat_text(6_480_782_600_785_514.0), ">100");
        assert_eq!(super::rhat_text(f64::INFINITY), ">100");
        assert_eq!(super::rhat_text(1.0123), "1.012");
        assert_eq!(super::rhat_text(f64::NAN), "NaN");
    }

    use super::*;

    fn fresh() -> CellConvergence {
        CellConvergence::unknown()
    }

    /// chains that all sat still have a NaN R-hat, which used to read `ok`.
    #[test]
    fn chains_that_never_moved_are_flagged_but_a_single_chain_is_not() {
        let mut c = fresh();
        c.fold_replicate(&[vec![3.0; 200], vec![3.0; 200], vec![3.0; 200]]);
        assert!(c.rhat.is_nan() && c.stuck && c.flagged(), "{c:?}");
        assert_eq!(c.reason(), "R-hat NaN: no chain moved");
        let mut one = fresh();
        one.fold_replicate(&[vec![3.0; 1000]]);
        assert!(!one.stuck && !one.flagged(), "{one:?}");
        // Two mixing chains are not flagged; a later stuck replicate flags the cell.
        let wave = |p: f64| {
            (0..400)
                .map(|i| ((i as f64) * 0.618_034 + p).fract())
                .collect::<Vec<f64>>()
        };
        let mut moving = fresh();
        moving.fold_replicate(&[wave(0.0), wave(1.0)]);
        assert!(!moving.flagged(), "{moving:?}");
        moving.fold_replicate(&[vec![1.0; 50], vec![1.0; 50]]);
        assert!(moving.flagged() && moving.rhat.is_finite(), "{moving:?}");
    }
}

//! The statistical regression check (`causeway check RUN --baseline OLD --statistical`, issue
//! 18 §3), for runs whose samplers' random streams differ (a new move, a new chain seed).
//!
//! Every base-table column is given a role ([`ColumnRole`]):
//!
//! - **statistical**: a column `c` with a companion `c_se` in both tables (the convention of
//!   docs/checking.md, "Monte Carlo error of a table cell"; optional `c_n`, the number of independent
//!   units the se comes from; for a column `x_mean`, `x_se` and `x_n` also count, see
//!   [`companion`]). Each row is tested with Welch's t,
//!   `t = (new − old) / √(se_new² + se_old²)`, on the Welch–Satterthwaite degrees of freedom
//!   `(se_new² + se_old²)² / (se_new⁴/(n_new − 1) + se_old⁴/(n_old − 1))` when both `c_n` are
//!   given (both ≥ 2), else on the standard normal; two-sided p-values, then Holm (family-wise,
//!   the default) or Benjamini–Hochberg over every statistically tested cell of every table
//!   ([`adjust`]). A cell regresses when its adjusted p is below `alpha`. Both se zero and the
//!   values different is a regression (and not in the family); both values NaN agree. An se
//!   that cannot weigh a difference (missing, NaN, infinite, negative, or so large that the sum
//!   of the squares overflows) leaves the exact comparison: a value that changed beyond the
//!   exact tolerance without a usable se on both sides is a regression, never a skip;
//! - **p-value**: a column `…_p` is the p-value of a test the run made itself, whose null
//!   hypothesis is that nothing is wrong (SBC's `chi_square_p` and `ecdf_p`: the ranks are
//!   uniform). Under a correct sampler it is uniform whatever the stream, so two runs' values
//!   differ by chance and are not compared with each other: the new run's value joins the
//!   family above as it is (the baseline's is shown);
//! - **companion** (`c_se`, `c_n` of a column `c`) and **diagnostic** (`rhat…`, `ess…`,
//!   `mcse…`, `converged`, `…_converged`, coverage verdicts `…covers…`, `z_paper…`, a
//!   distance to the paper's value, and the statistic and per-cell verdict of a test whose
//!   p-value is tested, SBC's `chi_square` and `calibrated`, a sampler's `acceptance…`
//!   rates, and `in_map` / `in_median`, thresholds of an edge probability whose own column is
//!   tested, `MAP sample…` columns, the best single sample over a cell's chains, one point
//!   of one run whose label-invariant figures are tested as means over chains, and `best
//!   setting`, the argmax of estimated accuracies): reported, not tested;
//! - **rendering**: a text column with cells `a ± b` or intervals `[a, b]` (and otherwise only
//!   plain numbers, e.g. an exact row's value): a view of an estimate and its spread, whose
//!   numbers have their own columns or are quantiles of them; not tested;
//! - **exact**: every other column, compared exactly as without `--statistical`
//!   ([`check::compare_tables`], wall-clock columns skipped as there).
//!
//! A statistical cell is **unconverged** when its row's `c_converged` column (if the table has
//! one, per column) or else, for an se that is an MCSE over the cell's chains (no `c_n`), its
//! row's `converged` column reads anything but `ok` in either run (the `⚠` of
//! [`crate::report::append_convergence`]). An se over n independent units (`c_n` given) is
//! valid whether or not each unit's chains converged (sd/√n holds each unit's own Monte Carlo
//! noise), so only `c_converged` flags it. It is reported "unconverged, not compared" and
//! counted; with `--strict` the check fails on it.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use statrs::distribution::{ContinuousCDF, Normal, StudentsT};

use crate::check::{self, CheckError, CheckReport, Status, TextTable, md};

/// Default family-wise (Holm) or false-discovery (BH) level of `--statistical`.
pub const DEFAULT_ALPHA: f64 = 0.01;

/// How the p-values of all statistically tested cells are adjusted for multiplicity.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Correction {
    /// Holm (1979) step-down: controls the family-wise error rate (R `p.adjust(p, "holm")`).
    #[default]
    Holm,
    /// Benjamini–Hochberg (1995) step-up: controls the false discovery rate (R `p.adjust(p,
    /// "BH")`).
    Bh,
}

impl Correction {
    /// `holm` or `bh`.
    pub fn name(self) -> &'static str {
        match self {
            Correction::Holm => "holm",
            Correction::Bh => "bh",
        }
    }
}

/// Options of a statistical check.
#[derive(Debug, Clone, Copy)]
pub struct StatOptions {
    /// Level at which an adjusted p-value is a regression.
    pub alpha: f64,
    pub correction: Correction,
    /// Unconverged cells fail the check.
    pub strict: bool,
    /// Tolerances of the exact part (see [`check::compare_tables`]).
    pub rtol: f64,
    pub atol: f64,
}

/// Welch–Satterthwaite degrees of freedom of the difference of two means with standard errors
/// `se1`, `se2` from `n1`, `n2` units: `(se1² + se2²)² / (se1⁴/(n1 − 1) + se2⁴/(n2 − 1))`
/// (Welch 1947; R `t.test(x, y)$parameter`). `None` when either n < 2 or both se are zero.
pub fn welch_df(se1: f64, n1: f64, se2: f64, n2: f64) -> Option<f64> {
    if !(n1 >= 2.0 && n2 >= 2.0) {
        return None;
    }
    let (v1, v2) = (se1 * se1, se2 * se2);
    let den = v1 * v1 / (n1 - 1.0) + v2 * v2 / (n2 - 1.0);
    (den > 0.0 && den.is_finite()).then(|| (v1 + v2).powi(2) / den)
}

/// Two-sided p-value of `t` on Student's t with `df` degrees of freedom, or on the standard
/// normal when `df` is `None`.
pub fn two_sided_p(t: f64, df: Option<f64>) -> f64 {
    if t.is_nan() {
        return f64::NAN;
    }
    let upper = match df.and_then(|d| StudentsT::new(0.0, 1.0, d).ok()) {
        Some(st) => st.sf(t.abs()),
        None => Normal::standard().sf(t.abs()),
    };
    (2.0 * upper).min(1.0)
}

/// `p` adjusted for multiplicity, in `p`'s order, as R's `p.adjust`: Holm,
/// `p̃_(i) = max_{j ≤ i} min(1, (m − j + 1) p_(j))`; BH, `p̃_(i) = min_{j ≥ i} min(1, m p_(j) / j)`
/// (p sorted ascending, m = len).
pub fn adjust(p: &[f64], correction: Correction) -> Vec<f64> {
    let m = p.len();
    let mut order: Vec<usize> = (0..m).collect();
    order.sort_by(|&a, &b| p[a].total_cmp(&p[b]));
    let mut out = vec![f64::NAN; m];
    match correction {
        Correction::Holm => {
            let mut running = 0.0f64;
            for (j, &i) in order.iter().enumerate() {
                running = running.max(((m - j) as f64 * p[i]).min(1.0));
                out[i] = running;
            }
        }
        Correction::Bh => {
            let mut running = 1.0f64;
            for (j, &i) in order.iter().enumerate().rev() {
                running = running.min((m as f64 * p[i] / (j + 1) as f64).min(1.0));
                out[i] = running;
            }
        }
    }
    out
}

/// What the statistical check does with a column of the baseline table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ColumnRole {
    /// Tested with Welch's t against its `_se` (and `_n`).
    Statistical,
    /// A p-value computed by the run itself (`…_p`), of a test whose null is "nothing is wrong"
    /// (e.g. the uniformity of SBC ranks): it joins the family as it is.
    PValue,
    /// `c_se` or `c_n` of a column `c`.
    Companion,
    /// R-hat, ESS, MCSE, convergence flags: reported, not tested.
    Diagnostic,
    /// `a ± b` text.
    Rendering,
    /// Compared exactly.
    Exact,
}

/// `true` for the diagnostic columns (see the module doc).
pub fn is_diagnostic(column: &str) -> bool {
    let c = column.to_lowercase();
    c.starts_with("rhat")
        || c.starts_with("ess")
        || c.starts_with("mcse")
        || c == "converged"
        || c.ends_with("_converged")
        || c.contains("covers")
        || c.starts_with("z_paper")
        || c == "chi_square"
        || c == "calibrated"
        || c.starts_with("acceptance")
        || c == "in_map"
        || c == "in_median"
        || c.starts_with("map sample")
        || c == "best setting"
}

/// The column of `t` that is `col`'s companion `suffix` (`se`, `n`, `converged`): `col_suffix`,
/// or, for a column `x_mean`, `x_suffix` (the `x_mean, x_se` pairs of older tables such as
/// `dallaire2014.prior`).
pub fn companion(t: &TextTable, col: &str, suffix: &str) -> Option<usize> {
    col_index(t, &format!("{col}_{suffix}")).or_else(|| {
        let stem = col.strip_suffix("_mean")?;
        col_index(t, &format!("{stem}_{suffix}"))
    })
}

/// `true` if `column` is `c_se` or `c_n` of a column `c` (or `c_mean`) of `t`.
fn is_companion(column: &str, t: &TextTable) -> bool {
    let Some(stem) = column
        .strip_suffix("_se")
        .or_else(|| column.strip_suffix("_n"))
    else {
        return false;
    };
    col_index(t, stem).is_some() || col_index(t, &format!("{stem}_mean")).is_some()
}

/// The role of column `col` of `base` given the new table `cur`.
pub fn column_role(col: &str, base: &TextTable, cur: &TextTable) -> ColumnRole {
    if is_companion(col, base) {
        ColumnRole::Companion
    } else if is_diagnostic(col) {
        ColumnRole::Diagnostic
    } else if col.ends_with("_p") && col_index(cur, col).is_some() {
        ColumnRole::PValue
    } else if companion(base, col, "se").is_some()
        && companion(cur, col, "se").is_some()
        && col_index(cur, col).is_some()
    {
        ColumnRole::Statistical
    } else if is_rendering(base, col) {
        ColumnRole::Rendering
    } else {
        ColumnRole::Exact
    }
}

fn is_rendering(t: &TextTable, col: &str) -> bool {
    let Some(ci) = t.columns.iter().position(|c| c == col) else {
        return false;
    };
    let view = |s: &str| s.contains(" ± ") || (s.starts_with('[') && s.ends_with(']'));
    let filled: Vec<&String> = t
        .rows
        .iter()
        .filter_map(|r| r.get(ci))
        .filter(|s| !s.is_empty())
        .collect();
    filled.iter().any(|s| view(s))
        && filled
            .iter()
            .all(|s| view(s) || s.trim().parse::<f64>().is_ok())
}

/// One statistically compared cell.
#[derive(Debug, Clone, PartialEq)]
pub struct StatCell {
    pub table: String,
    pub row: String,
    pub column: String,
    /// Baseline and new value.
    pub old: f64,
    pub new: f64,
    pub se_old: f64,
    pub se_new: f64,
    /// Welch's t (NaN where not tested).
    pub t: f64,
    /// Welch–Satterthwaite df, `None` for the normal.
    pub df: Option<f64>,
    /// Two-sided p, and adjusted over the family.
    pub p: f64,
    pub p_adjusted: f64,
    pub outcome: StatOutcome,
}

/// The verdict on a statistically compared cell.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StatOutcome {
    /// Tested, adjusted p ≥ alpha (or both values NaN, or equal within the exact tolerance).
    Ok,
    /// Adjusted p < alpha, both se zero and values different, one value NaN, row missing, or
    /// the value changed and an se is unusable (missing, NaN, infinite, negative, overflowing).
    Regression,
    /// The row is flagged unconverged in either run: not compared.
    Unconverged,
}

/// The result of a statistical check: the exact part and the statistical cells.
#[derive(Debug, Clone)]
pub struct StatReport {
    pub exact: CheckReport,
    pub cells: Vec<StatCell>,
    pub options: StatOptions,
}

impl StatReport {
    fn count(&self, o: StatOutcome) -> usize {
        self.cells.iter().filter(|c| c.outcome == o).count()
    }

    /// Statistical regressions plus exact ones.
    pub fn regressions(&self) -> usize {
        self.count(StatOutcome::Regression) + self.exact.counts().1
    }

    /// Cells flagged unconverged (not compared).
    pub fn unconverged(&self) -> usize {
        self.count(StatOutcome::Unconverged)
    }

    /// No regression, and (with `strict`) no unconverged cell.
    pub fn passed(&self) -> bool {
        self.regressions() == 0 && !(self.options.strict && self.unconverged() > 0)
    }

    /// Cells compared at all (statistically or exactly); 0 means the check proved nothing.
    pub fn compared(&self) -> usize {
        let (ok, bad, _) = self.exact.counts();
        ok + bad + self.count(StatOutcome::Ok) + self.count(StatOutcome::Regression)
    }

    /// The smallest adjusted p over the tested cells (NaN if none).
    pub fn min_p_adjusted(&self) -> f64 {
        self.cells
            .iter()
            .map(|c| c.p_adjusted)
            .filter(|p| !p.is_nan())
            .fold(f64::NAN, f64::min)
    }

    /// The one-line summary that ends the report.
    pub fn summary(&self) -> String {
        let (ok, bad, skipped) = self.exact.counts();
        let stat = self.count(StatOutcome::Ok) + self.count(StatOutcome::Regression);
        let min_p = self.min_p_adjusted();
        format!(
            "{stat} cells compared statistically, {} exactly, {} unconverged (not compared), {} skipped; {} regressions; smallest adjusted p {} ({}, alpha {}{})",
            ok + bad,
            self.unconverged(),
            skipped,
            self.regressions(),
            if min_p.is_nan() {
                "–".to_string()
            } else {
                format!("{min_p:.3e}")
            },
            self.options.correction.name(),
            self.options.alpha,
            if self.options.strict { ", strict" } else { "" },
        )
    }

    /// The Markdown report: failing statistical cells (both values, both se, t, df, adjusted
    /// p), exact regressions, unconverged and se-less cells, then [`StatReport::summary`].
    pub fn to_markdown(&self) -> String {
        let mut s = String::new();
        let bad: Vec<&StatCell> = self
            .cells
            .iter()
            .filter(|c| c.outcome == StatOutcome::Regression)
            .collect();
        if !bad.is_empty() {
            s.push_str("## Statistical regressions\n\n| table | row | column | baseline | run | se baseline | se run | t | df | adjusted p |\n|---|---|---|---|---|---|---|---|---|---|\n");
            for c in bad {
                let _ = writeln!(
                    s,
                    "| {} | {} | {} | {} | {} | {} | {} | {} |",
                    md(&c.table),
                    md(&c.row),
                    md(&c.column),
                    c.old,
                    c.new,
                    c.se_old,
                    c.se_new,
                    tested_text(c)
                );
            }
            s.push('\n');
        }
        if self.exact.counts().1 > 0 {
            s.push_str("## Exact regressions\n\n| table | row | column | baseline | run | note |\n|---|---|---|---|---|---|\n");
            for r in self.exact.regressions() {
                let _ = writeln!(
                    s,
                    "| {} | {} | {} | {} | {} | {} |",
                    md(&r.table),
                    md(&r.row),
                    md(&r.column),
                    md(&r.expected),
                    md(&r.actual),
                    md(&r.note)
                );
            }
            s.push('\n');
        }
        for (outcome, title) in [(StatOutcome::Unconverged, "Unconverged, not compared")] {
            let list: Vec<String> = self
                .cells
                .iter()
                .filter(|c| c.outcome == outcome)
                .map(|c| format!("{} / {} / {}", c.table, c.row, c.column))
                .collect();
            if list.is_empty() {
                continue;
            }
            let _ = writeln!(s, "## {title} ({})\n", list.len());
            for l in list.iter().take(30) {
                let _ = writeln!(s, "- {l}");
            }
            if list.len() > 30 {
                let _ = writeln!(s, "- … and {} more", list.len() - 30);
            }
            s.push('\n');
        }
        s.push_str(&self.summary());
        s.push('\n');
        s
    }

    /// JUnit XML: one test case per table, failed when the table has a regression (or, with
    /// `strict`, an unconverged cell); the failure lists the cells.
    pub fn to_junit(&self) -> String {
        junit_xml(&self.failures_by_table(), &self.summary())
    }

    /// Per table (every table compared), its failing cells as text.
    fn failures_by_table(&self) -> BTreeMap<&str, Vec<String>> {
        let mut per: BTreeMap<&str, Vec<String>> = BTreeMap::new();
        for r in &self.exact.rows {
            let e = per.entry(r.table.as_str()).or_default();
            if r.status == Status::Regression {
                e.push(format!(
                    "{} / {}: {} → {} ({})",
                    r.row, r.column, r.expected, r.actual, r.note
                ));
            }
        }
        for c in self.cells.iter() {
            let e = per.entry(c.table.as_str()).or_default();
            let fails = c.outcome == StatOutcome::Regression
                || (self.options.strict && c.outcome == StatOutcome::Unconverged);
            if fails {
                e.push(format!(
                    "{} / {}: {} ± {} → {} ± {} (t {:.3}, adjusted p {:.3e}{})",
                    c.row,
                    c.column,
                    c.old,
                    c.se_old,
                    c.new,
                    c.se_new,
                    c.t,
                    c.p_adjusted,
                    if c.outcome == StatOutcome::Unconverged {
                        ", unconverged"
                    } else {
                        ""
                    }
                ));
            }
        }
        per
    }

    /// [`StatReport::to_junit`] with more test cases (`name`, failures), e.g. a run that is
    /// incomplete.
    pub fn to_junit_with(&self, extra: &[(String, Vec<String>)]) -> String {
        if extra.is_empty() {
            return self.to_junit();
        }
        let mut per: BTreeMap<&str, Vec<String>> = BTreeMap::new();
        for (name, fails) in extra {
            per.insert(name, fails.clone());
        }
        // Merge with the tables' own cases: rebuild them through `to_junit`'s grouping.
        for (name, fails) in self.failures_by_table() {
            per.entry(name).or_default().extend(fails);
        }
        junit_xml(&per, &self.summary())
    }
}

/// `t | df | adjusted p` of a failing cell, or why it failed untested.
fn tested_text(c: &StatCell) -> String {
    if !c.p.is_nan() && c.t.is_nan() {
        format!(
            "– | – (the run's own p-value {:.3e}) | {:.3e}",
            c.p, c.p_adjusted
        )
    } else if !c.p.is_nan() {
        let df = c.df.map_or("normal".to_string(), |d| format!("{d:.2}"));
        format!("{:.3} | {df} | {:.3e}", c.t, c.p_adjusted)
    } else if c.se_old == 0.0 && c.se_new == 0.0 {
        "– | – | – (both se 0, values differ)".into()
    } else if !c.old.is_nan() && !c.new.is_nan() && !usable_se(c.se_old, c.se_new) {
        "– | – | – (values differ, no usable se)".into()
    } else {
        "– | – | – (a value is NaN, or the row is missing)".into()
    }
}

fn number(s: Option<&String>) -> f64 {
    s.and_then(|s| s.trim().parse::<f64>().ok())
        .unwrap_or(f64::NAN)
}

/// Compare the tables of two run directories statistically (see the module doc).
pub fn compare_runs_statistical(
    run: &Path,
    baseline: &Path,
    options: StatOptions,
) -> Result<StatReport, CheckError> {
    let new = check::read_run_tables(run)?;
    let old = check::read_run_tables(baseline)?;
    Ok(compare_tables_statistical(&new, &old, options))
}

fn project(t: &TextTable, keep: &[&String]) -> TextTable {
    let idx: Vec<usize> = keep
        .iter()
        .filter_map(|k| t.columns.iter().position(|c| c == *k))
        .collect();
    TextTable {
        columns: idx.iter().map(|&i| t.columns[i].clone()).collect(),
        rows: t
            .rows
            .iter()
            .map(|r| {
                idx.iter()
                    .map(|&i| r.get(i).cloned().unwrap_or_default())
                    .collect()
            })
            .collect(),
    }
}

/// [`compare_runs_statistical`] on tables already read.
pub fn compare_tables_statistical(
    new: &BTreeMap<String, TextTable>,
    old: &BTreeMap<String, TextTable>,
    options: StatOptions,
) -> StatReport {
    let mut exact = CheckReport::default();
    let mut cells = Vec::new();
    for (name, base) in old {
        let Some(cur) = new.get(name) else {
            let one = BTreeMap::from([(name.clone(), base.clone())]);
            let r = check::compare_tables(&BTreeMap::new(), &one, options.rtol, options.atol);
            exact.rows.extend(r.rows);
            continue;
        };
        let roles: Vec<ColumnRole> = base
            .columns
            .iter()
            .map(|c| column_role(c, base, cur))
            .collect();
        // The exact part: the exact columns of the base, and every column the new table adds.
        let keep: Vec<&String> = base
            .columns
            .iter()
            .zip(&roles)
            .filter(|(_, r)| **r == ColumnRole::Exact)
            .map(|(c, _)| c)
            .chain(cur.columns.iter().filter(|c| !base.columns.contains(c)))
            .collect();
        let (b, c) = (project(base, &keep), project(cur, &keep));
        let r = check::compare_tables(
            &BTreeMap::from([(name.clone(), c)]),
            &BTreeMap::from([(name.clone(), b)]),
            options.rtol,
            options.atol,
        );
        exact.rows.extend(r.rows);
        for (col, role) in base.columns.iter().zip(&roles) {
            let note = match role {
                ColumnRole::Diagnostic => "diagnostic: reported, not tested",
                ColumnRole::Rendering => "± text: its numbers are tested",
                _ => continue,
            };
            exact.rows.push(check::CheckRow {
                table: name.clone(),
                row: String::new(),
                column: col.clone(),
                expected: String::new(),
                actual: String::new(),
                tolerance: String::new(),
                status: Status::Skipped,
                note: note.into(),
            });
        }
        for (col, role) in base.columns.iter().zip(&roles) {
            match role {
                ColumnRole::Statistical => statistical_column(name, col, base, cur, &mut cells),
                ColumnRole::PValue => p_value_column(name, col, base, cur, &mut cells),
                _ => {}
            }
        }
    }
    // Multiplicity over every tested cell of every table.
    let tested: Vec<usize> = (0..cells.len()).filter(|&i| !cells[i].p.is_nan()).collect();
    let p: Vec<f64> = tested.iter().map(|&i| cells[i].p).collect();
    for (&i, q) in tested.iter().zip(adjust(&p, options.correction)) {
        cells[i].p_adjusted = q;
        cells[i].outcome = if q < options.alpha {
            StatOutcome::Regression
        } else {
            StatOutcome::Ok
        };
    }
    StatReport {
        exact,
        cells,
        options,
    }
}

/// Index of `name` in `t`'s columns.
fn col_index(t: &TextTable, name: &str) -> Option<usize> {
    t.columns.iter().position(|c| c == name)
}

/// `true` if row `ri` of `t` is flagged unconverged for column `col`: by `col_converged` if
/// the table has it; else, unless the se comes from independent units (`col_n` present: sd/√n
/// holds each unit's own Monte Carlo noise, converged or not), by the row's `converged`.
fn unconverged(t: &TextTable, ri: usize, col: &str) -> bool {
    let marker = companion(t, col, "converged").or_else(|| {
        if companion(t, col, "n").is_some() {
            None
        } else {
            col_index(t, "converged")
        }
    });
    marker.is_some_and(|ci| {
        t.rows[ri]
            .get(ci)
            .is_some_and(|v| !v.is_empty() && v != "ok")
    })
}

/// Row `ri`'s label: its first cell, with the row number when that cell is not unique.
/// Every row of p-value column `col` (see the module doc): the new run's value is the cell's
/// p; a NaN there (or a missing row) where the baseline has a number is a regression.
fn p_value_column(
    table: &str,
    col: &str,
    base: &TextTable,
    cur: &TextTable,
    out: &mut Vec<StatCell>,
) {
    let (Some(bv), Some(cv)) = (col_index(base, col), col_index(cur, col)) else {
        return;
    };
    let labels = check::row_labels(base);
    for (ri, brow) in base.rows.iter().enumerate() {
        let new = number(cur.rows.get(ri).and_then(|r| r.get(cv)));
        let old = number(brow.get(bv));
        let valid = (0.0..=1.0).contains(&new);
        out.push(StatCell {
            table: table.to_string(),
            row: labels[ri].clone(),
            column: col.to_string(),
            old,
            new,
            se_old: f64::NAN,
            se_new: f64::NAN,
            t: f64::NAN,
            df: None,
            p: if valid { new } else { f64::NAN },
            p_adjusted: f64::NAN,
            outcome: if valid || (old.is_nan() && new.is_nan()) {
                StatOutcome::Ok
            } else {
                StatOutcome::Regression
            },
        });
    }
}

/// Test every row of statistical column `col` (p-values left unadjusted; the caller adjusts).
fn statistical_column(
    table: &str,
    col: &str,
    base: &TextTable,
    cur: &TextTable,
    out: &mut Vec<StatCell>,
) {
    let (Some(bv), Some(bs), Some(cv), Some(cs)) = (
        col_index(base, col),
        companion(base, col, "se"),
        col_index(cur, col),
        companion(cur, col, "se"),
    ) else {
        return;
    };
    let (bn, cn) = (companion(base, col, "n"), companion(cur, col, "n"));
    let labels = check::row_labels(base);
    for (ri, brow) in base.rows.iter().enumerate() {
        let mut cell = StatCell {
            table: table.to_string(),
            row: labels[ri].clone(),
            column: col.to_string(),
            old: number(brow.get(bv)),
            new: f64::NAN,
            se_old: number(brow.get(bs)),
            se_new: f64::NAN,
            t: f64::NAN,
            df: None,
            p: f64::NAN,
            p_adjusted: f64::NAN,
            outcome: StatOutcome::Regression,
        };
        let Some(crow) = cur.rows.get(ri) else {
            out.push(cell); // row missing
            continue;
        };
        cell.new = number(crow.get(cv));
        cell.se_new = number(crow.get(cs));
        let (x, y) = (cell.old, cell.new);
        if unconverged(base, ri, col) || unconverged(cur, ri, col) {
            cell.outcome = StatOutcome::Unconverged;
        } else if x.is_nan() || y.is_nan() {
            cell.outcome = if x.is_nan() && y.is_nan() {
                StatOutcome::Ok
            } else {
                StatOutcome::Regression
            };
        } else if check::close(y, x, check::DEFAULT_RTOL, check::DEFAULT_ATOL) {
            // Equal within the exact check's tolerance: not a regression whatever the se (a
            // deterministic value computed in another order carries an se of rounding noise).
            cell.outcome = StatOutcome::Ok;
        } else if !usable_se(cell.se_old, cell.se_new) {
            // Changed, and nothing can say by how much it may: a regression (t stays NaN).
            cell.outcome = StatOutcome::Regression;
        } else if cell.se_old == 0.0 && cell.se_new == 0.0 {
            cell.outcome = StatOutcome::Regression;
        } else {
            cell.t = (y - x) / (cell.se_old.powi(2) + cell.se_new.powi(2)).sqrt();
            cell.df = match (bn, cn) {
                (Some(bn), Some(cn)) => welch_df(
                    cell.se_old,
                    number(brow.get(bn)),
                    cell.se_new,
                    number(crow.get(cn)),
                ),
                _ => None,
            };
            cell.p = two_sided_p(cell.t, cell.df);
        }
        out.push(cell);
    }
}

/// Whether two standard errors can weigh a difference: both finite and non-negative, and the
/// sum of their squares finite (an se of 1e160 squares to infinity and would make every t 0).
fn usable_se(a: f64, b: f64) -> bool {
    a >= 0.0 && b >= 0.0 && (a * a + b * b).is_finite()
}

/// For a failed exact check: how many of its differing cells belong to a column that carries
/// an `_se` in either run, and the advice to use `--statistical` (empty when none does).
pub fn se_hint(
    report: &CheckReport,
    new: &BTreeMap<String, TextTable>,
    old: &BTreeMap<String, TextTable>,
) -> String {
    let differing: Vec<_> = report.regressions().filter(|r| !r.row.is_empty()).collect();
    let with_se = differing
        .iter()
        .filter(|r| {
            [new, old].iter().any(|m| {
                m.get(&r.table)
                    .is_some_and(|t| companion(t, &r.column, "se").is_some())
            })
        })
        .count();
    if with_se == 0 {
        return String::new();
    }
    format!(
        "{with_se} of the {} differing cells carry an `_se` (a Monte Carlo estimate): if a sampler's random stream changed (a new move, another `--chain-seed`), check them with `--statistical`.\n",
        differing.len()
    )
}

mod against_paper;
mod junit;
pub use against_paper::{PaperCheck, against_paper};
pub use junit::junit_xml;

#[cfg(test)]
mod tests;

//! The results site: a static HTML page per run directory (`<run>/index.html`, written with
//! its tables) and an index of a folder of runs (`causeway site runs/` → `runs/index.html`).
//! Pages open from the file system: no server, no network; the style and the few lines of
//! script are in the page. Tables come from the run's `tables/report.md` (every table beside the
//! paper's values, with its notes), rendered by `pulldown-cmark`; pages are laid out by
//! `minijinja` templates (`site/*.html`).
//!
//! At the top of each page, at a glance: chains stored against planned, cells flagged by the
//! convergence check, and the paper comparisons beyond 3 standard errors (`z_paper`, as
//! `causeway check --against-paper` counts them). In the tables, cells marked ⚠ and `z_paper`
//! values beyond ±3 are highlighted.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use minijinja::value::Serde;
use minijinja::{Environment, Value, context};
use pulldown_cmark::{Event, HeadingLevel, Options, Parser, Tag, TagEnd};
use serde::Serialize;

use crate::check::{TextTable, read_run_tables};
use crate::check_stats::against_paper;
use crate::rundir::{Manifest, RunDir, write_atomic};

/// Why a page could not be written.
#[derive(Debug, thiserror::Error)]
pub enum SiteError {
    #[error("{path}: {message}")]
    Io { path: PathBuf, message: String },
    #[error("site template: {0}")]
    Template(#[from] minijinja::Error),
    #[error(transparent)]
    Store(#[from] crate::rundir::StoreError),
}

fn io_err(path: &Path) -> impl Fn(String) -> SiteError + '_ {
    move |message| SiteError::Io {
        path: path.to_path_buf(),
        message,
    }
}

const STYLE: &str = include_str!("site/style.css");
const SCRIPT: &str = include_str!("site/mark.js");

fn environment() -> Result<Environment<'static>, SiteError> {
    let mut env = Environment::new();
    env.add_template("run.html", include_str!("site/run.html"))?;
    env.add_template("runs.html", include_str!("site/runs.html"))?;
    Ok(env)
}

/// A run at a glance (the top of its page, and its row in the index).
#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub struct Glance {
    pub name: String,
    pub description: String,
    pub profile: String,
    pub code_version: String,
    pub chains_stored: u64,
    pub chains_planned: u64,
    /// Cells the convergence check flags (`⚠` in `tables/convergence.csv`).
    pub cells_flagged: usize,
    pub cells: usize,
    /// Cells with a `z_paper` value, and those with |z| > 3.
    pub paper_tested: usize,
    pub paper_beyond: usize,
}

/// The glance of the run in `rd` (its tables as they are on disk).
pub fn glance(rd: &RunDir, m: &Manifest) -> Glance {
    let tables = read_run_tables(&rd.root).unwrap_or_default();
    let paper = against_paper(&tables, 3.0);
    let planned = m.jobs.len() as u64;
    let missing: u64 = rd
        .missing_chains(m)
        .iter()
        .map(|c| c.planned - c.stored)
        .sum();
    let flagged = tables.get("convergence").map_or(0, flagged_rows);
    Glance {
        name: m.name.clone(),
        description: m.description.clone(),
        profile: m.profile.clone(),
        code_version: m.code_version.clone(),
        chains_stored: planned.saturating_sub(missing),
        chains_planned: planned,
        cells_flagged: flagged,
        cells: m.cells.len(),
        paper_tested: paper.tested,
        paper_beyond: paper.beyond,
    }
}

/// Rows of a convergence table whose `converged` column carries ⚠.
fn flagged_rows(t: &TextTable) -> usize {
    let Some(i) = t.columns.iter().position(|c| c == "converged") else {
        return 0;
    };
    t.rows
        .iter()
        .filter(|r| r.get(i).is_some_and(|v| v.contains('⚠')))
        .count()
}

/// A section heading of the page: its anchor and its text.
#[derive(Debug, Clone, Serialize)]
struct Heading {
    id: String,
    text: String,
}

/// `text` as an HTML anchor: lower case, runs of other characters as `-`.
fn slug(text: &str, taken: &mut BTreeMap<String, usize>) -> String {
    let mut s = String::new();
    for ch in text.chars().flat_map(char::to_lowercase) {
        if ch.is_ascii_alphanumeric() {
            s.push(ch);
        } else if !s.ends_with('-') && !s.is_empty() {
            s.push('-');
        }
    }
    let base = s.trim_end_matches('-').to_string();
    let n = taken.entry(base.clone()).or_insert(0);
    *n += 1;
    if *n == 1 { base } else { format!("{base}-{n}") }
}

/// Markdown to HTML (tables on); every level-2 heading gets an anchor, returned in order for
/// the page's contents.
fn markdown_html(md: &str, taken: &mut BTreeMap<String, usize>) -> (String, Vec<Heading>) {
    let mut events = Vec::new();
    let mut headings = Vec::new();
    let mut in_heading: Option<(HeadingLevel, Vec<Event>)> = None;
    for ev in Parser::new_ext(md, Options::ENABLE_TABLES) {
        match ev {
            Event::Start(Tag::Heading { level, .. }) => in_heading = Some((level, Vec::new())),
            Event::End(TagEnd::Heading(_)) => {
                let Some((level, inner)) = in_heading.take() else {
                    continue;
                };
                let text: String = inner
                    .iter()
                    .filter_map(|e| match e {
                        Event::Text(t) | Event::Code(t) => Some(t.as_ref()),
                        _ => None,
                    })
                    .collect();
                let id = slug(&text, taken);
                let mut body = String::new();
                pulldown_cmark::html::push_html(&mut body, inner.into_iter());
                events.push(Event::Html(
                    format!("<{level} id=\"{id}\"><a href=\"#{id}\">{body}</a></{level}>\n").into(),
                ));
                if level == HeadingLevel::H2 {
                    headings.push(Heading { id, text });
                }
            }
            other => match &mut in_heading {
                Some((_, inner)) => inner.push(other),
                None => events.push(other),
            },
        }
    }
    let mut html = String::new();
    pulldown_cmark::html::push_html(&mut html, events.into_iter());
    (html, headings)
}

fn read_optional(path: &Path) -> Result<Option<String>, SiteError> {
    match std::fs::read_to_string(path) {
        Ok(s) => Ok(Some(s)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(io_err(path)(e.to_string())),
    }
}

/// File names in `dir` ending in `.ext`, sorted (none if `dir` does not exist).
fn files_with(dir: &Path, ext: &str) -> Vec<String> {
    let mut out: Vec<String> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| e.file_name().to_str().map(str::to_string))
        .filter(|n| n.ends_with(&format!(".{ext}")))
        .collect();
    out.sort();
    out
}

/// Write `<run>/index.html` from the run's manifest `m`, `tables/report.md`, `figures/*.svg` and
/// `cost.md`; returns its path. Errors: a file that exists but cannot be read, or the page
/// cannot be written.
pub fn write_run_page(rd: &RunDir, m: &Manifest) -> Result<PathBuf, SiteError> {
    let mut taken = BTreeMap::new();
    let report_path = rd.tables_dir().join("report.md");
    let report = read_optional(&report_path)?.unwrap_or_else(|| {
        "No tables yet: `causeway report` on this directory builds them.".to_string()
    });
    let (report_html, mut headings) = markdown_html(&report, &mut taken);
    let figures = files_with(&rd.figures_dir(), "svg");
    let cost = read_optional(&rd.root.join("cost.md"))?;
    let (cost_html, cost_headings) = cost
        .map(|c| markdown_html(&c, &mut taken))
        .unwrap_or_default();
    let fig_id = slug("Figures", &mut taken);
    if !figures.is_empty() {
        headings.push(Heading {
            id: fig_id.clone(),
            text: "Figures".into(),
        });
    }
    headings.extend(cost_headings);
    let tables: Vec<String> = files_with(&rd.tables_dir(), "csv");
    let command = format!(
        "causeway run {} --profile {} --out {}",
        m.experiment_file,
        m.profile,
        rd.root.display()
    );
    let html = environment()?.get_template("run.html")?.render(context! {
        glance => Value::from(Serde(glance(rd, m))),
        report_html,
        headings => Value::from(Serde(&headings)),
        figures,
        fig_id,
        cost_html,
        tables,
        command,
        code_versions => &m.code_versions,
        base_seed => m.base_seed,
        chain_seed => m.chain_seed,
        defect => &m.defect,
        experiment_file => &m.experiment_file,
        style => STYLE,
        script => SCRIPT,
    })?;
    let path = rd.root.join("index.html");
    write_atomic(&path, html.as_bytes())?;
    Ok(path)
}

/// One run in the index: its folder (relative to the index) and its glance.
#[derive(Debug, Clone, Serialize)]
struct RunRow {
    href: String,
    glance: Glance,
}

/// Write `<dir>/index.html` linking every run directory under `dir` (a folder with a
/// `manifest.json`, up to three levels down, e.g. `runs/nightly/<date>/<name>`), writing the
/// page of any run that has none; returns its path and the number of runs. Errors: `dir`
/// unreadable, or a page that cannot be written.
pub fn write_index(dir: &Path) -> Result<(PathBuf, usize), SiteError> {
    let mut rows = Vec::new();
    for rel in run_dirs(dir, 3)? {
        let rd = RunDir::open(dir.join(&rel));
        let Ok(m) = rd.read_manifest() else { continue };
        if !rd.root.join("index.html").exists() {
            write_run_page(&rd, &m)?;
        }
        rows.push(RunRow {
            href: format!("{}/index.html", rel.display()),
            glance: glance(&rd, &m),
        });
    }
    let html = environment()?.get_template("runs.html")?.render(context! {
        title => dir.file_name().and_then(|n| n.to_str()).unwrap_or("runs"),
        runs => Value::from(Serde(&rows)),
        style => STYLE,
        script => SCRIPT,
    })?;
    let path = dir.join("index.html");
    write_atomic(&path, html.as_bytes())?;
    Ok((path, rows.len()))
}

/// Folders under `dir` (relative, sorted) that hold a `manifest.json`, searched `depth` levels
/// down; a run directory's own subfolders are not searched.
fn run_dirs(dir: &Path, depth: usize) -> Result<Vec<PathBuf>, SiteError> {
    let mut out = Vec::new();
    let entries = std::fs::read_dir(dir).map_err(|e| io_err(dir)(e.to_string()))?;
    let mut subdirs: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    subdirs.sort();
    for sub in subdirs {
        let Some(name) = sub.file_name().map(PathBuf::from) else {
            continue;
        };
        if sub.join("manifest.json").exists() {
            out.push(name);
        } else if depth > 1 {
            out.extend(run_dirs(&sub, depth - 1)?.into_iter().map(|p| name.join(p)));
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests;

//! `causeway score DATA.csv --dag DAG.csv --type loglik|bic|aic|bde|bd [--iss X]
//! [--alpha A | --alpha a1,…,ak] [--format json|table]`: the score of a DAG on discrete data, as
//! `bnlearn::score` computes it (paper `002_d97ecc788b964f97.txt`,
//! §5.3 and supplement E), with the code of the `hidden2025` baselines
//! ([`causeway_papers::hidden2025::evaluation::scores`]).
//!
//! - DATA.csv is read as a `kind: csv` dataset with no options
//!   ([`causeway_papers::hidden2025::datasets::csv::read_discrete_csv`]): every column is a node,
//!   its categories are its distinct values, and the reader's errors (ragged row, empty cell,
//!   non-integer number, too many or a single level) name the file and the line. Every category
//!   therefore occurs in the data, so r and q count the same levels as R's `factor()` does.
//! - DAG.csv has the header `parent,child` and one arc per row
//!   ([`causeway_papers::hidden2025::evaluation::blankets::parents_from_edge_csv`]); nodes without
//!   arcs are roots. An unknown name, a self-loop, a repeated arc (naming its line) and a directed
//!   cycle (naming the nodes along it) are errors.
//! - `--iss` (default 1) applies to `bde` only, `--alpha` to `bd` only (required there): one value
//!   for every cell (1 is K2, 0.5 bnlearn's `bdj`), or one per child category (eq 7 at t_j = α),
//!   in which case every node must have that many categories.
//!
//! Output: a Markdown table (the default, for a terminal) with one row per node in column order
//! (node, its parents in column order joined by `;`, its score) and the total; or with
//! `--format json` one line `{"type": "bic", "n": 2000, "total": x, "nodes": {"<name>":
//! {"parents": [...], "score": x}}}` (nodes in column order, plus `iss` for `bde` and `alpha` for
//! `bd`), every number printed so that it parses back to the same f64. Scores are in nats, higher
//! is better; the total is the sum of the nodes' scores. The binary exits with code 2 on bad input.

use std::fmt::Write as _;
use std::path::Path;

use causeway_papers::hidden2025::datasets::DiscreteData;
use causeway_papers::hidden2025::datasets::csv::{CsvOptions, read_discrete_csv};
use causeway_papers::hidden2025::evaluation::Levels;
use causeway_papers::hidden2025::evaluation::blankets::parents_from_edge_csv;
use causeway_papers::hidden2025::evaluation::scores::{BdAlpha, Score, check_dag, node_score};
use serde::ser::{SerializeMap, Serializer};

/// The `--type` of `causeway score`: bnlearn's score names.
#[derive(Copy, Clone, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ScoreType {
    /// Log-likelihood at the MLE.
    Loglik,
    /// loglik − (log n / 2)(r − 1)q.
    Bic,
    /// loglik − (r − 1)q.
    Aic,
    /// BDeu with imaginary sample size `--iss`.
    Bde,
    /// Bayesian Dirichlet with the Dirichlet parameters `--alpha` (eq 7 at t_j = α).
    Bd,
}

/// What is wrong with the input of `causeway score`.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ScoreError {
    /// DATA.csv cannot be read as a `kind: csv` dataset: the reader's message, naming the file
    /// and the line.
    #[error("{0}")]
    Data(String),
    /// DAG.csv is not a DAG over the data's columns: names the file and the node(s), and the line
    /// when one line is at fault.
    #[error("{0}")]
    Dag(String),
    /// A bad option (`--iss`, `--alpha`) or an `--alpha` that does not fit a node.
    #[error("{0}")]
    Usage(String),
}

/// One node's row of the report.
#[derive(Debug, Clone, PartialEq)]
pub struct NodeScore {
    /// The node (the data column's name).
    pub name: String,
    /// Its parents, in column order.
    pub parents: Vec<String>,
    /// Its score, nats.
    pub score: f64,
}

/// The result of `causeway score`.
#[derive(Debug, Clone, PartialEq)]
pub struct ScoreReport {
    /// The score and its hyperparameter.
    pub score: Score,
    /// Rows of the data.
    pub n: usize,
    /// The DAG's score: the sum of the nodes' scores (in column order), nats.
    pub total: f64,
    /// One entry per data column, in column order.
    pub nodes: Vec<NodeScore>,
}

/// The score named by `--type`, `--iss` and `--alpha` (a number, or numbers separated by commas).
///
/// Errors ([`ScoreError::Usage`]): `--iss` with a type other than `bde`, `--alpha` with a type
/// other than `bd`, `bd` without `--alpha`, an `--alpha` item that is not a number, an iss or α
/// that is not finite and > 0.
pub fn parse_score(
    kind: ScoreType,
    iss: Option<f64>,
    alpha: Option<&str>,
) -> Result<Score, ScoreError> {
    let usage = |m: String| Err(ScoreError::Usage(m));
    if iss.is_some() && kind != ScoreType::Bde {
        return usage("--iss applies to --type bde only".into());
    }
    if alpha.is_some() && kind != ScoreType::Bd {
        return usage("--alpha applies to --type bd only".into());
    }
    let score = match kind {
        ScoreType::Loglik => Score::LogLik,
        ScoreType::Bic => Score::Bic,
        ScoreType::Aic => Score::Aic,
        ScoreType::Bde => Score::Bdeu {
            iss: iss.unwrap_or(1.0),
        },
        ScoreType::Bd => {
            let Some(text) = alpha else {
                return usage(
                    "--type bd needs --alpha: one value for every cell (1 is K2, 0.5 bnlearn's bdj) \
                     or one per child category, separated by commas"
                        .into(),
                );
            };
            let mut values = Vec::new();
            for (i, item) in text.split(',').enumerate() {
                match item.trim().parse::<f64>() {
                    Ok(v) => values.push(v),
                    Err(_) => {
                        return usage(format!(
                            "--alpha: item {} ({:?}) is not a number",
                            i + 1,
                            item.trim()
                        ));
                    }
                }
            }
            let alpha = match values.as_slice() {
                [a] => BdAlpha::Cell(*a),
                _ => BdAlpha::Categories(values),
            };
            Score::Bd { alpha }
        }
    };
    if let Err(e) = score.check() {
        return usage(match &score {
            Score::Bdeu { iss } => format!("--iss {iss}: the imaginary sample size must be > 0"),
            Score::Bd { .. } => "--alpha: every Dirichlet parameter must be > 0 and finite".into(),
            _ => e.to_string(),
        });
    }
    Ok(score)
}

/// Read DATA.csv as a `kind: csv` dataset with no options. Errors: the reader's, naming the file
/// and the line ([`ScoreError::Data`]).
pub fn read_data(path: &Path) -> Result<DiscreteData, ScoreError> {
    let file = path.display().to_string();
    read_discrete_csv(path, &file, &CsvOptions::default()).map_err(|e| ScoreError::Data(e.message))
}

/// Read DAG.csv over the columns of `data`: `parents[j]` lists node j's parents in column order.
/// Errors ([`ScoreError::Dag`]): an unreadable file, a bad header or line, an unknown name, a
/// self-loop, a repeated arc (each naming the file and line), a directed cycle (naming the file
/// and the nodes along it).
pub fn read_dag(path: &Path, data: &DiscreteData) -> Result<Vec<Vec<usize>>, ScoreError> {
    let file = path.display().to_string();
    let text = std::fs::read_to_string(path)
        .map_err(|e| ScoreError::Dag(format!("{file}: cannot read: {e}")))?;
    let mut parents = parents_from_edge_csv(&text, &file, &data.names)
        .map_err(|e| ScoreError::Dag(e.to_string()))?;
    check_dag(data, &parents).map_err(|e| ScoreError::Dag(format!("{file}: {e}")))?;
    for pa in &mut parents {
        pa.sort_unstable();
    }
    Ok(parents)
}

/// Score the DAG `parents` (one list per column of `data`) node by node; r and q count every
/// category of the data (all of which occur in it). Errors: a per-category `--alpha` whose length
/// is not a node's number of categories, naming the node ([`ScoreError::Usage`]).
pub fn score_dag(
    data: &DiscreteData,
    parents: &[Vec<usize>],
    score: &Score,
) -> Result<ScoreReport, ScoreError> {
    let mut nodes = Vec::with_capacity(data.p());
    for (j, pa) in parents.iter().enumerate() {
        let s = node_score(data, j, pa, score, Levels::Declared).map_err(|e| match score {
            Score::Bd {
                alpha: BdAlpha::Categories(_),
            } => ScoreError::Usage(format!("--alpha: {e}")),
            _ => ScoreError::Dag(e.to_string()),
        })?;
        nodes.push(NodeScore {
            name: data.names[j].clone(),
            parents: pa.iter().map(|&i| data.names[i].clone()).collect(),
            score: s,
        });
    }
    Ok(ScoreReport {
        score: score.clone(),
        n: data.n(),
        total: nodes.iter().map(|s| s.score).sum(),
        nodes,
    })
}

/// `causeway score`: [`read_data`], [`read_dag`], then [`score_dag`].
pub fn score_files(data: &Path, dag: &Path, score: &Score) -> Result<ScoreReport, ScoreError> {
    let d = read_data(data)?;
    let parents = read_dag(dag, &d)?;
    score_dag(&d, &parents, score)
}

/// The `nodes` object of the JSON report, in column order.
struct NodesJson<'a>(&'a [NodeScore]);

impl serde::Serialize for NodesJson<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        #[derive(serde::Serialize)]
        struct Entry<'a> {
            parents: &'a [String],
            score: f64,
        }
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for node in self.0 {
            map.serialize_entry(
                &node.name,
                &Entry {
                    parents: &node.parents,
                    score: node.score,
                },
            )?;
        }
        map.end()
    }
}

impl serde::Serialize for ScoreReport {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("type", self.score.type_name())?;
        match &self.score {
            Score::Bdeu { iss } => map.serialize_entry("iss", iss)?,
            Score::Bd {
                alpha: BdAlpha::Cell(a),
            } => map.serialize_entry("alpha", a)?,
            Score::Bd {
                alpha: BdAlpha::Categories(a),
            } => map.serialize_entry("alpha", a)?,
            Score::LogLik | Score::Bic | Score::Aic => {}
        }
        map.serialize_entry("n", &self.n)?;
        map.serialize_entry("total", &self.total)?;
        map.serialize_entry("nodes", &NodesJson(&self.nodes))?;
        map.end()
    }
}

/// The report as one line of JSON, or as a Markdown table (node | parents | score, then the
/// total). Scores are printed in full (Rust's shortest round-trip form) in both.
pub fn render(report: &ScoreReport, table: bool) -> String {
    if !table {
        return serde_json::to_string(report).unwrap_or_default() + "\n";
    }
    let hyper = match &report.score {
        Score::Bdeu { iss } => format!(", iss = {iss}"),
        Score::Bd {
            alpha: BdAlpha::Cell(a),
        } => format!(", alpha = {a}"),
        Score::Bd {
            alpha: BdAlpha::Categories(a),
        } => format!(
            ", alpha = ({})",
            a.iter().map(f64::to_string).collect::<Vec<_>>().join(", ")
        ),
        Score::LogLik | Score::Bic | Score::Aic => String::new(),
    };
    let mut out = format!(
        "score {}{hyper}, n = {} (nats, higher is better)\n\n| node | parents | score |\n|---|---|---|\n",
        report.score.type_name(),
        report.n
    );
    for node in &report.nodes {
        let _ = writeln!(
            out,
            "| {} | {} | {} |",
            node.name,
            node.parents.join(";"),
            node.score
        );
    }
    let _ = writeln!(out, "| **total** | | {} |", report.total);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use causeway_papers::hidden2025::evaluation::scores::dag_score;

    fn write(dir: &tempfile::TempDir, name: &str, text: &str) -> std::path::PathBuf {
        let p = dir.path().join(name);
        std::fs::write(&p, text).expect("write");
        p
    }

    /// A (2 levels), B (3 levels), C (2 levels); n = 6.
    const DATA: &str = "A,B,C\n0,x,1\n1,y,0\n0,z,0\n1,x,1\n0,y,1\n1,z,1\n";

    #[test]
    fn parse_score_options() {
        assert_eq!(parse_score(ScoreType::Bic, None, None), Ok(Score::Bic));
        assert_eq!(
            parse_score(ScoreType::Bde, None, None),
            Ok(Score::Bdeu { iss: 1.0 })
        );
        assert_eq!(
            parse_score(ScoreType::Bde, Some(10.0), None),
            Ok(Score::Bdeu { iss: 10.0 })
        );
        assert_eq!(parse_score(ScoreType::Bd, None, Some("1")), Ok(Score::K2));
        assert_eq!(
            parse_score(ScoreType::Bd, None, Some("0.5, 2,1")),
            Ok(Score::Bd {
                alpha: BdAlpha::Categories(vec![0.5, 2.0, 1.0])
            })
        );
        let err = |k, i, a| parse_score(k, i, a).expect_err("bad").to_string();
        assert!(err(ScoreType::Bd, None, None).contains("needs --alpha"));
        assert!(err(ScoreType::Bic, Some(1.0), None).contains("--iss applies"));
        assert!(err(ScoreType::Bde, None, Some("1")).contains("--alpha applies"));
        assert!(err(ScoreType::Bde, Some(0.0), None).contains("must be > 0"));
        assert!(err(ScoreType::Bd, None, Some("1,-1")).contains("must be > 0"));
        assert_eq!(
            err(ScoreType::Bd, None, Some("1,x")),
            "--alpha: item 2 (\"x\") is not a number"
        );
    }

    #[test]
    fn report_sums_nodes_and_matches_dag_score() {
        let dir = tempfile::tempdir().expect("tempdir");
        let data = write(&dir, "d.csv", DATA);
        let dag = write(&dir, "g.csv", "parent,child\nB,C\nA,C\nA,B\n");
        let d = read_data(&data).expect("data");
        let pa = read_dag(&dag, &d).expect("dag");
        assert_eq!(pa, vec![vec![], vec![0], vec![0, 1]]);
        for score in [
            Score::LogLik,
            Score::Bic,
            Score::Aic,
            Score::BDEU,
            Score::K2,
        ] {
            let r = score_files(&data, &dag, &score).expect("score");
            assert_eq!(r.n, 6);
            assert_eq!(r.nodes[2].parents, vec!["A", "B"]);
            let sum: f64 = r.nodes.iter().map(|n| n.score).sum();
            assert_eq!(r.total, sum);
            let direct = dag_score(&d, &pa, &score, Levels::Declared).expect("dag_score");
            assert!((r.total - direct).abs() < 1e-12 * direct.abs().max(1.0));
            assert!(r.total.is_finite() && r.total < 0.0);
        }
        // BIC of the root A by hand: loglik = 6 log(1/2), penalty (log 6 / 2) × 1.
        let r = score_files(&data, &dag, &Score::Bic).expect("bic");
        let a = 6.0 * 0.5f64.ln() - 0.5 * 6f64.ln();
        assert!((r.nodes[0].score - a).abs() < 1e-12);
    }

    #[test]
    fn json_round_trips_and_keeps_column_order() {
        let dir = tempfile::tempdir().expect("tempdir");
        let data = write(&dir, "d.csv", DATA);
        let dag = write(&dir, "g.csv", "parent,child\nC,A\n");
        let r = score_files(&data, &dag, &Score::Bdeu { iss: 10.0 }).expect("score");
        let text = render(&r, false);
        assert!(
            text.starts_with("{\"type\":\"bde\",\"iss\":10.0,\"n\":6,"),
            "{text}"
        );
        let v: serde_json::Value = serde_json::from_str(&text).expect("json");
        assert_eq!(v["total"].as_f64(), Some(r.total));
        assert_eq!(v["nodes"]["A"]["score"].as_f64(), Some(r.nodes[0].score));
        assert_eq!(v["nodes"]["A"]["parents"], serde_json::json!(["C"]));
        let a = text.find("\"A\"").expect("A");
        let b = text.find("\"B\"").expect("B");
        assert!(a < b);
        let table = render(&r, true);
        assert!(table.starts_with("score bde, iss = 10, n = 6"), "{table}");
        assert!(table.contains(&format!("| A | C | {} |", r.nodes[0].score)));
        assert!(table.contains(&format!("| **total** | | {} |", r.total)));
    }

    #[test]
    fn bad_dags_are_named() {
        let dir = tempfile::tempdir().expect("tempdir");
        let data = write(&dir, "d.csv", DATA);
        let d = read_data(&data).expect("data");
        let err = |text: &str| {
            let g = write(&dir, "g.csv", text);
            read_dag(&g, &d).expect_err("bad dag").to_string()
        };
        let e = err("parent,child\nA,B\nA,Z\n");
        assert!(e.contains("unknown node Z") && e.contains("g.csv:3"), "{e}");
        let e = err("parent,child\nB,B\n");
        assert!(
            e.contains("self-loop on node B") && e.contains("g.csv:2"),
            "{e}"
        );
        let e = err("parent,child\nA,B\nA,B\n");
        assert!(
            e.contains("repeated arc A -> B") && e.contains("g.csv:3"),
            "{e}"
        );
        let e = err("parent,child\nA,B\nB,C\nC,A\n");
        assert!(e.ends_with("g.csv: directed cycle A -> B -> C -> A"), "{e}");
        // A byte-order mark before the header is not part of it (the data file's is not either).
        let g = write(&dir, "bom.csv", "\u{feff}parent,child\nA,B\n");
        assert!(read_dag(&g, &d).is_ok(), "{:?}", read_dag(&g, &d).err());
        // Categories-wise α: B has 3 categories, A and C 2.
        let g = write(&dir, "g.csv", "parent,child\n");
        let two = parse_score(ScoreType::Bd, None, Some("1,1")).expect("alpha");
        let e = score_files(&data, &g, &two)
            .expect_err("B has 3")
            .to_string();
        assert!(
            e.contains("node B has 3 categories (x, y, z), but 2 Dirichlet parameters"),
            "{e}"
        );
    }
}

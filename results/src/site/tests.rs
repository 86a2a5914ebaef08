use super::*;

/// A run directory with a manifest (one cell, two chains, none stored), a report with one table
/// beside a paper value, a convergence table with one flagged cell, a figure and a cost table.
fn run_dir(root: &Path, name: &str, description: &str) -> RunDir {
    let rd = RunDir::create(root).unwrap();
    let job = |chain: u64| {
        serde_json::json!({"job_id": format!("cell0-rep0-chain{chain}"), "cell": 0, "replicate": 0,
            "chain": chain, "seed": {"base_seed": 5, "cell": 0, "replicate": 0, "chain": chain}})
    };
    let m: Manifest = serde_json::from_value(serde_json::json!({
        "name": name, "description": description, "profile": "quick", "code_version": "0.1.0+abc",
        "base_seed": 5, "experiment_file": "experiments/x.yaml", "monitor": ["k_plus"],
        "report": [], "reported": {},
        "cells": [{"index": 0, "key": 7, "model": "wood2006", "params": {}, "dataset": {},
                   "run": {"iterations": 10, "burn_in": 5, "thin": 1},
                   "axes": {}, "dataset_key": 7, "dataset_id": "d0000000000000007"}],
        "jobs": [job(0), job(1)]
    }))
    .unwrap();
    rd.write_manifest(&m).unwrap();
    std::fs::create_dir_all(rd.tables_dir()).unwrap();
    std::fs::create_dir_all(rd.figures_dir()).unwrap();
    std::fs::write(
        rd.tables_dir().join("report.md"),
        "# x\n\n## Table 1: K+\n\n| setting | k_plus | paper | z_paper |\n|---|---|---|---|\n| a | 3.1 | 3 | 4.2 |\n\n## Convergence\n\n| cell | converged |\n|---|---|\n| 0 | ⚠ R-hat |\n",
    )
    .unwrap();
    std::fs::write(
        rd.tables_dir().join("t1.csv"),
        "setting,k_plus,paper,z_paper\na,3.1,3,4.2\nb,2.9,3,-0.5\n",
    )
    .unwrap();
    std::fs::write(
        rd.tables_dir().join("convergence.csv"),
        "cell,converged\n0,⚠ R-hat 1.2\n",
    )
    .unwrap();
    std::fs::write(
        rd.figures_dir().join("k.svg"),
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"10\" height=\"10\"/>",
    )
    .unwrap();
    std::fs::write(
        rd.root.join("cost.md"),
        "## Cost\n\n| a | b |\n|---|---|\n| 1 | 2 |\n",
    )
    .unwrap();
    rd
}

#[test]
fn site_slugs_are_unique_and_plain() {
    let mut taken = BTreeMap::new();
    assert_eq!(slug("Table 1: K+ (Fig. 3)", &mut taken), "table-1-k-fig-3");
    assert_eq!(
        slug("Table 1: K+ (Fig. 3)", &mut taken),
        "table-1-k-fig-3-2"
    );
    assert_eq!(slug("R-hat ≤ 1.01", &mut taken), "r-hat-1-01");
}

#[test]
fn site_markdown_gets_anchors_and_tables() {
    let mut taken = BTreeMap::new();
    let (html, heads) = markdown_html(
        "# Run\n\n## Table `A` <b>\n\n| x |\n|---|\n| 1 |\n\n### detail\n",
        &mut taken,
    );
    assert_eq!(heads.len(), 1, "level-2 headings only");
    assert_eq!(heads[0].id, "table-a", "inline HTML is not text");
    assert!(html.contains("<h2 id=\"table-a\">"), "{html}");
    assert!(html.contains("<code>A</code>"), "{html}");
    assert!(
        html.contains("<table>") && html.contains("<td>1</td>"),
        "{html}"
    );
    assert!(html.contains("<h3 id=\"detail\">"), "{html}");
}

#[test]
fn site_run_page_holds_tables_figures_glance_and_provenance() {
    let dir = tempfile::tempdir().unwrap();
    let rd = run_dir(dir.path(), "wood2006_x", "desc");
    let path = write_run_page(&rd, &rd.read_manifest().unwrap()).unwrap();
    // minijinja escapes `/` as `&#x2f;`, which browsers read back as `/`.
    let html = std::fs::read_to_string(&path)
        .unwrap()
        .replace("&#x2f;", "/");
    assert_eq!(
        html.matches("<table>").count(),
        3,
        "report (2) and cost (1)"
    );
    assert!(html.contains("<img src=\"figures/k.svg\""), "{html}");
    assert!(
        html.contains("causeway run experiments/x.yaml --profile quick --out"),
        "{html}"
    );
    assert!(html.contains("href=\"tables/t1.csv\""));
    assert!(!html.contains("{{") && !html.contains("{%"));
    let g = glance(&rd, &rd.read_manifest().unwrap());
    assert_eq!(
        (
            g.chains_stored,
            g.chains_planned,
            g.cells_flagged,
            g.paper_tested,
            g.paper_beyond
        ),
        (0, 2, 1, 2, 1)
    );
    assert!(html.contains("0 / 2"), "chains tile");
}

#[test]
fn site_index_links_nested_runs_and_escapes_text() {
    let dir = tempfile::tempdir().unwrap();
    run_dir(&dir.path().join("a"), "run_a", "plain");
    run_dir(
        &dir.path().join("nightly/2026-01-01/b"),
        "run_b",
        "<script>alert(1)</script>",
    );
    std::fs::create_dir_all(dir.path().join("empty")).unwrap();
    let (path, n) = write_index(dir.path()).unwrap();
    assert_eq!(n, 2);
    let html = std::fs::read_to_string(path)
        .unwrap()
        .replace("&#x2f;", "/");
    assert!(html.contains("href=\"a/index.html\""));
    assert!(html.contains("href=\"nightly/2026-01-01/b/index.html\""));
    assert!(
        dir.path().join("nightly/2026-01-01/b/index.html").exists(),
        "page written"
    );
    assert!(!html.contains("<script>alert"), "escaped");
    assert!(html.contains("&lt;script&gt;"));
}

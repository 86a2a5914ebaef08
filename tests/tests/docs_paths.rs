//! Every repository path that `README.md` and `docs/` name exists, and every relative Markdown
//! link between them resolves: a reader who follows the documentation never meets a file that
//! is not there.
//!
//! A path is a `code span` whose first segment is a top-level entry of the repository (`proto/`,
//! `worker/`, `results/`, `Cargo.toml`, …) and that holds no placeholder (`<…>`, `*`, `…`,
//! spaces). Build outputs (`target/`) and run directories (`runs/`) are not in the repository.

use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// `README.md` and every Markdown file under `docs/`.
fn documents(root: &Path) -> Vec<PathBuf> {
    let mut out = vec![root.join("README.md")];
    let mut stack = vec![root.join("docs")];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "md") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// The code spans of `text` that name repository paths (see the module docs).
fn repository_paths(text: &str, top: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    for (i, span) in text.split('`').enumerate() {
        if i % 2 == 0 {
            continue;
        }
        let p = span.trim_end_matches([',', '.', ':']);
        if p.is_empty() || p.contains(['<', '>', '*', '…', ' ', '{', '$', '#']) {
            continue;
        }
        let first = p.split('/').next().unwrap_or("");
        if top.iter().any(|t| t == first) && (p.contains('/') || p.contains('.')) {
            out.push(p.to_string());
        }
    }
    out
}

/// The relative targets of Markdown links `[text](target)` in `text` (no scheme, no anchor only).
fn relative_links(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(i) = rest.find("](") {
        rest = &rest[i + 2..];
        let Some(j) = rest.find(')') else { break };
        let target = rest[..j].split('#').next().unwrap_or("");
        if !target.is_empty() && !target.contains("://") && !target.starts_with("mailto:") {
            out.push(target.to_string());
        }
        rest = &rest[j..];
    }
    out
}

#[test]
fn docs_paths_every_named_path_and_link_exists() {
    let root = root();
    let top: Vec<String> = std::fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n != "target" && n != "runs" && n != ".git")
        .collect();
    let mut missing = Vec::new();
    let mut checked = 0;
    for doc in documents(&root) {
        let text = std::fs::read_to_string(&doc).unwrap();
        let rel = doc.strip_prefix(&root).unwrap().display().to_string();
        for p in repository_paths(&text, &top) {
            checked += 1;
            if !root.join(&p).exists() {
                missing.push(format!("{rel}: `{p}`"));
            }
        }
        for l in relative_links(&text) {
            checked += 1;
            let base = doc.parent().unwrap();
            if !base.join(&l).exists() {
                missing.push(format!("{rel}: link ({l})"));
            }
        }
    }
    assert!(
        checked > 50,
        "only {checked} paths found: the scan is broken"
    );
    assert!(
        missing.is_empty(),
        "paths that do not exist:\n{}",
        missing.join("\n")
    );
}

#[test]
fn docs_paths_scan_finds_a_missing_path() {
    let top = vec!["worker".to_string(), "Cargo.toml".to_string()];
    let text = "see `worker/papers/src/no_such_file.rs`, `Cargo.toml` and `runs/<name>/tables/`";
    let found = repository_paths(text, &top);
    assert_eq!(
        found,
        vec!["worker/papers/src/no_such_file.rs", "Cargo.toml"]
    );
    assert!(!root().join(&found[0]).exists());
    assert_eq!(
        relative_links("[a](docs/x.md) [b](https://x.org) [c](#top)"),
        vec!["docs/x.md"]
    );
}

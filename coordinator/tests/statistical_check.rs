//! the small deterministic version that `make test` holds: a tiny wood2006
//! experiment run under two chain seeds passes `causeway check --statistical` (while the exact
//! check fails), and the same experiment with a broken kernel fails it. Also §3's
//! `--against-paper` on hand-written tables.
//!
//! The broken kernel is one of the harness's `Defect` switches, `DropNewCauseFactor` (eq 15
//! without its likelihood factor: new causes are drawn from their prior), switched on for a whole
//! experiment by the environment variable `CAUSEWAY_DEFECT`, which only a `testing` build of the
//! binary reads (`causeway_papers::testing::defect`; `cargo test` builds it so). The datasets
//! are the same in every run (the data seed does not change).

use std::path::Path;
use std::process::{Command, Output};

const BIN: &str = env!("CARGO_BIN_EXE_causeway");

/// The tiny experiment every run of these tests uses.
const YAML: &str = r#"name: statistical_check
model: wood2006
seed: 18
chains: 2
replicates: 6
run: {iterations: 80, burn_in: 20, thin: 1}
params: {sampler: gibbs, alpha: 2.0, lambda: 0.9, epsilon: 0.01, p: 0.1, init: empty}
dataset: {kind: ibp_synthetic, n_observed: 8, n_trials: 60, alpha: 2.0, lambda: 0.9, epsilon: 0.01, p: 0.1, k_plus: 2}
grid:
  product:
    dataset.k_plus: [1, 3]
monitor: [k_plus]
report: [wood2006.fig3]
profiles: {quick: {}, paper: {}}
"#;

/// `causeway run` of [`YAML`] into `dir/name` under `chain_seed`, with `defect` (a `Defect`
/// variant) switched on through `CAUSEWAY_DEFECT` (never inherited from the caller).
fn run_with(dir: &Path, name: &str, chain_seed: &str, defect: Option<&str>) -> Output {
    let file = dir.join(format!("{name}.yaml"));
    std::fs::write(&file, YAML).unwrap();
    let mut cmd = Command::new(BIN);
    cmd.arg("run")
        .arg(&file)
        .args(["--local-workers", "1", "--chain-seed", chain_seed, "--out"])
        .arg(dir.join(name))
        .env_remove("CAUSEWAY_DEFECT");
    if let Some(d) = defect {
        cmd.env("CAUSEWAY_DEFECT", d);
    }
    cmd.output().unwrap()
}

fn run(dir: &Path, name: &str, chain_seed: &str, defect: Option<&str>) {
    let o = run_with(dir, name, chain_seed, defect);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

fn check(dir: &Path, run: &str, base: &str, extra: &[&str]) -> Output {
    Command::new(BIN)
        .arg("check")
        .arg(dir.join(run))
        .arg("--baseline")
        .arg(dir.join(base))
        .args(extra)
        .output()
        .unwrap()
}

#[test]
fn two_chain_seeds_pass_the_statistical_check_and_a_broken_kernel_fails_it() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    run(d, "a", "1", None);
    run(d, "b", "2", None);
    run(d, "broken", "2", Some("DropNewCauseFactor"));
    // The broken run says so in its manifest and its report; the others do not.
    let manifest = std::fs::read_to_string(d.join("broken/manifest.json")).unwrap();
    assert!(
        manifest.contains(r#""defect": "DropNewCauseFactor""#),
        "{manifest}"
    );
    let report = std::fs::read_to_string(d.join("broken/tables/report.md")).unwrap();
    assert!(report.contains("deliberately broken kernel `DropNewCauseFactor`"));
    let clean = std::fs::read_to_string(d.join("b/manifest.json")).unwrap();
    assert!(!clean.contains("defect"), "{clean}");
    // A directory keeps one kernel: resuming it without the switch is refused, untouched.
    let again = run_with(d, "broken", "2", None);
    let err = String::from_utf8_lossy(&again.stderr);
    assert_ne!(again.status.code(), Some(0), "{err}");
    assert!(err.contains("deliberately broken kernel"), "{err}");
    assert_eq!(
        std::fs::read_to_string(d.join("broken/manifest.json")).unwrap(),
        manifest
    );

    // Exactly, another chain seed reads as a regression, and the report points at --statistical.
    let exact = check(d, "b", "a", &[]);
    let text = String::from_utf8_lossy(&exact.stdout);
    assert_eq!(exact.status.code(), Some(1), "{text}");
    assert!(
        text.contains("carry an `_se`") && text.contains("--statistical"),
        "{text}"
    );

    // Statistically, it passes; the JUnit file has one passing test case per table.
    let junit = d.join("check.xml");
    let stat = check(
        d,
        "b",
        "a",
        &["--statistical", "--junit", junit.to_str().unwrap()],
    );
    let text = String::from_utf8_lossy(&stat.stdout);
    assert_eq!(stat.status.code(), Some(0), "{text}");
    let summary = text.lines().last().unwrap_or_default();
    assert!(
        summary.contains("cells compared statistically") && summary.contains("; 0 regressions;"),
        "{summary}"
    );
    let xml = std::fs::read_to_string(&junit).unwrap();
    assert!(
        xml.contains("failures=\"0\"") && xml.contains("name=\"fig3\""),
        "{xml}"
    );

    // The broken kernel, same chain seed as `b`: flagged, with t and the adjusted p listed.
    let bad = check(
        d,
        "broken",
        "a",
        &["--statistical", "--junit", junit.to_str().unwrap()],
    );
    let text = String::from_utf8_lossy(&bad.stdout);
    assert_eq!(bad.status.code(), Some(1), "{text}");
    assert!(
        text.contains("## Statistical regressions") && text.contains("| fig3 |"),
        "{text}"
    );
    let xml = std::fs::read_to_string(&junit).unwrap();
    assert!(xml.contains("<failure"), "{xml}");
}

/// A defect name that the model does not have fails every chain with a message that names the
/// variable and lists the model's switches; the run exits 1 and nothing panics.
#[test]
fn an_unknown_defect_fails_the_chains_with_the_models_switches_listed() {
    let dir = tempfile::tempdir().unwrap();
    let o = run_with(dir.path(), "x", "1", Some("NoSuchKernel"));
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("CAUSEWAY_DEFECT=NoSuchKernel") && err.contains("DropNewCauseFactor"),
        "{err}"
    );
    assert!(!err.contains("panicked"), "{err}");
}

/// `--against-paper` lists the cells beyond |z_paper| > 3 (exit 1), names the tables whose paper
/// values come without an uncertainty, and refuses a run with no `z_paper` at all.
#[test]
fn against_paper_lists_cells_beyond_three_standard_errors() {
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("run");
    std::fs::create_dir_all(run.join("tables")).unwrap();
    std::fs::write(run.join("tables/u.csv"), "x,paper\na,1\n").unwrap();
    let against = |run: &Path| {
        Command::new(BIN)
            .arg("check")
            .arg(run)
            .arg("--against-paper")
            .output()
            .unwrap()
    };
    let none = against(&run);
    assert_ne!(none.status.code(), Some(0), "{none:?}");
    assert!(String::from_utf8_lossy(&none.stderr).contains("nothing compared"));
    std::fs::write(
        run.join("tables/t.csv"),
        "x,mean,paper_mean,z_paper\na,1,1.1,-0.5\nb,3,1,4.2\n",
    )
    .unwrap();
    let out = against(&run);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.contains("| t | b (row 2) | z_paper | 4.20 |"),
        "{text}"
    );
    assert!(
        text.contains("no uncertainty for the values in: u"),
        "{text}"
    );
}

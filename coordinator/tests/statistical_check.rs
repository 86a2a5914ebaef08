//! Issue 18 §4, the small deterministic version that `make test` holds: a tiny wood2006
//! experiment run under two chain seeds passes `causeway check --statistical` (while the exact
//! check fails), and the same experiment with a broken kernel fails it. Also §3's
//! `--against-paper` on hand-written tables.
//!
//! The broken kernel: the harness's `Defect` switches cannot be reached from a YAML (by design,
//! `params` never reaches a defect and release builds cannot run one; see
//! `causeway_papers::testing`), so the "broken" run is the same sampler targeting the wrong
//! posterior: its noise-model parameter `epsilon` (eq 3's leak) is 0.3 while the data were
//! drawn with 0.01, as a kernel that computed the likelihood with a wrong constant would. The
//! datasets are the same in every run (the data seed does not change).

use std::path::Path;
use std::process::{Command, Output};

const BIN: &str = env!("CARGO_BIN_EXE_causeway");

fn yaml(epsilon: f64) -> String {
    format!(
        r#"name: statistical_check
model: wood2006
seed: 18
chains: 2
replicates: 6
run: {{iterations: 80, burn_in: 20, thin: 1}}
params: {{sampler: gibbs, alpha: 2.0, lambda: 0.9, epsilon: {epsilon}, p: 0.1, init: empty}}
dataset: {{kind: ibp_synthetic, n_observed: 8, n_trials: 60, alpha: 2.0, lambda: 0.9, epsilon: 0.01, p: 0.1, k_plus: 2}}
grid:
  product:
    dataset.k_plus: [1, 3]
monitor: [k_plus]
report: [wood2006.fig3]
profiles: {{quick: {{}}, paper: {{}}}}
"#
    )
}

fn run(dir: &Path, name: &str, epsilon: f64, chain_seed: &str) {
    let file = dir.join(format!("{name}.yaml"));
    std::fs::write(&file, yaml(epsilon)).unwrap();
    let o = Command::new(BIN)
        .arg("run")
        .arg(&file)
        .args(["--local-workers", "1", "--chain-seed", chain_seed, "--out"])
        .arg(dir.join(name))
        .output()
        .unwrap();
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
    run(d, "a", 0.01, "1");
    run(d, "b", 0.01, "2");
    run(d, "broken", 0.3, "2");

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

//! The `sbc:` block: an SBC experiment runs through real workers and writes
//! `tables/sbc.csv`; bad values are refused at their file:line:column; simulation s keeps its
//! seeds when simulations are added.

use std::path::Path;
use std::process::{Command, Stdio};

use causeway_coordinator::experiment::{ProfileName, plan_from_str};

use crate::yaml_errors::err;

const BIN: &str = env!("CARGO_BIN_EXE_causeway");

/// 1 cell × 12 simulations, each a few milliseconds.
const YAML: &str = r#"name: sbc_test
model: wood2006
seed: 5
chains: 1
run: {iterations: 60, burn_in: 20}
sbc: {simulations: 12, draws: 9, thin: auto}
params: {sampler: gibbs, update_hyperparameters: true, alpha_prior: [2.0, 2.0]}
dataset: {kind: prior_predictive, n_observed: 4, n_trials: 10}
monitor: [k_plus]
profiles:
  quick: {}
  paper: {sbc: {simulations: 20}}
"#;

#[test]
fn sbc_experiment_runs_and_writes_its_table() {
    let dir = tempfile::tempdir().unwrap();
    let yaml = dir.path().join("sbc.yaml");
    std::fs::write(&yaml, YAML).unwrap();
    let out = dir.path().join("run");
    let o = Command::new(BIN)
        .arg("run")
        .arg(&yaml)
        .arg("--out")
        .arg(&out)
        .args(["--local-workers", "2"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    let csv = std::fs::read_to_string(out.join("tables/sbc.csv")).unwrap();
    let lines: Vec<&str> = csv.lines().collect();
    assert!(
        lines[0].contains("chi_square_p") && lines[0].contains("ecdf_p"),
        "{csv}"
    );
    // k_plus, alpha, lambda, epsilon, p; 12 simulations each, L = 9, thin auto = 40 / 9 = 4
    assert_eq!(lines.len(), 6, "{csv}");
    for name in ["k_plus", "alpha", "lambda", "epsilon", "p"] {
        let row = lines
            .iter()
            .find(|l| l.contains(&format!(",{name},")))
            .unwrap();
        assert!(row.contains(",12,9,"), "{row}");
    }
    assert!(out.join("figures/sbc_ranks_cell0.svg").exists());
    assert!(out.join("figures/sbc_ecdf_cell0.svg").exists());
}

#[test]
fn sbc_simulations_keep_their_seeds_when_more_are_added() {
    let quick = plan_from_str(Path::new("e.yaml"), YAML, ProfileName::Quick, None).unwrap();
    let paper = plan_from_str(Path::new("e.yaml"), YAML, ProfileName::Paper, None).unwrap();
    assert_eq!(quick.replicates, 12);
    assert_eq!(paper.replicates, 20);
    assert_eq!(quick.manifest.cells[0].params["sbc"]["thin"], 4);
    for (a, b) in quick.manifest.jobs.iter().zip(paper.manifest.jobs.iter()) {
        assert_eq!(a.seed, b.seed);
        assert_eq!(a.replicate, b.replicate);
    }
    assert_eq!(
        quick.manifest.cells[0].dataset_key,
        paper.manifest.cells[0].dataset_key
    );
}

#[test]
fn sbc_bad_values_are_refused_at_their_position() {
    let e = err(&YAML.replace("thin: auto}", "thin: sometimes}"));
    assert!(
        e.starts_with("exp.yaml:6:") && e.contains("sbc.thin must be `auto`"),
        "{e}"
    );
    let e = err(&YAML.replace("draws: 9", "draws: 0"));
    assert!(
        e.starts_with("exp.yaml:6:") && e.contains("sbc.draws"),
        "{e}"
    );
    let e = err(&YAML.replace("draws: 9, thin: auto", "draws: 9, thin: 10"));
    assert!(e.contains("draws × thin = 9 × 10 = 90"), "{e}");
    let e = err(&YAML.replace("chains: 1", "chains: 2"));
    assert!(
        e.starts_with("exp.yaml:4:") && e.contains("chains must be 1"),
        "{e}"
    );
    let e = err(&YAML.replace("chains: 1", "chains: 1\nreplicates: 3"));
    assert!(
        e.starts_with("exp.yaml:5:") && e.contains("replicates cannot be given"),
        "{e}"
    );
    let e = err(&YAML.replace("sbc: {simulations: 12, draws: 9, thin: auto}\n", ""));
    assert!(e.contains("prior_predictive"), "{e}");
    let e = err(&YAML
        .replace(
            "sbc: {simulations: 12, draws: 9, thin: auto}\n",
            "report: [sbc]\n",
        )
        .replace(
            "prior_predictive, n_observed: 4",
            "ibp_synthetic, k_plus: 1, n_observed: 4",
        ));
    assert!(
        e.starts_with("exp.yaml:6:") && e.contains("needs an sbc: block"),
        "{e}"
    );
    let e = err(&YAML.replace("kind: prior_predictive,", "kind: ibp_synthetic, k_plus: 1,"));
    assert!(e.contains("use kind prior_predictive"), "{e}");
}

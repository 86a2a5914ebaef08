//! Convergence-driven runs (`until:`), with real processes: chains extended in
//! rounds are byte-identical to chains run for their total iterations in one go, also when the
//! coordinator is killed with SIGKILL in the middle of an extension; and the block's errors.

use std::path::Path;
use std::time::Duration;

use causeway_coordinator::experiment::{ProfileName, plan_from_str};

use crate::durability::{check, query_f64, run_cmd, wait_for, write_yaml};
use crate::yaml_errors::err;

/// 2 cells × 1 replicate; a criterion no chain meets (bulk ESS ≥ 10⁶), so every group grows
/// by the rule: 2000 → 4000 → 8000 iterations (`max_iterations`), then 2 → 4 chains
/// (`max_chains`), then it is capped. Burn-in is half of the first round's 2000.
const UNTIL_YAML: &str = r#"
name: until_test
model: wood2006
seed: 14
chains: 2
replicates: 1
run: {iterations: 2000, burn_in: 0.5, thin: 4}
params: {sampler: gibbs, alpha: 2.0, lambda: 0.9, epsilon: 0.01, p: 0.1, update_hyperparameters: true, k_new_max: 10, init: empty}
dataset: {kind: ibp_synthetic, n_observed: 10, n_trials: 1000, alpha: 2.0, lambda: 0.9, epsilon: 0.01, p: 0.1, k_plus: 2}
grid:
  product:
    dataset.k_plus: [1, 3]
monitor: [k_plus, log_joint]
report: [wood2006.fig3]
until: {rhat: 1.01, ess_bulk: 1000000, ess_tail: 400, max_iterations: 8000, max_chains: 4}
profiles: {quick: {}, paper: {}}
"#;

/// The same chains in one go: 4 chains × 8000 iterations, the first round's burn-in (1000).
fn one_go_yaml() -> String {
    UNTIL_YAML
        .replace("chains: 2", "chains: 4")
        .replace("{iterations: 2000, burn_in: 0.5", "{iterations: 8000, burn_in: 1000")
        .replace(
            "until: {rhat: 1.01, ess_bulk: 1000000, ess_tail: 400, max_iterations: 8000, max_chains: 4}\n",
            "",
        )
}

/// Every chain file (the trace, its summary in the footer; Gibbs records no sample_stats) of a
/// run directory.
fn chain_files(dir: &Path) -> std::collections::BTreeMap<String, Vec<u8>> {
    std::fs::read_dir(dir.join("chains"))
        .expect("chains")
        .flatten()
        .map(|e| {
            (
                e.file_name().to_string_lossy().into_owned(),
                std::fs::read(e.path()).expect("read"),
            )
        })
        .collect()
}

fn assert_same_chains(got: &Path, want: &Path) {
    let (g, w) = (chain_files(got), chain_files(want));
    assert_eq!(
        g.keys().collect::<Vec<_>>(),
        w.keys().collect::<Vec<_>>(),
        "chain files differ"
    );
    let traces = g.keys().filter(|k| k.ends_with(".trace.parquet")).count();
    assert_eq!(
        traces,
        2 * 4,
        "2 cells × 4 chains, a shard (trace file) each"
    );
    for (k, v) in &w {
        assert!(g[k] == *v, "{k} differs from the chain run in one go");
    }
}

/// The until run, killed with SIGKILL once a chain has a checkpoint past the first round's
/// length (it is being extended), then rerun to the end; and the same run uninterrupted. Both
/// store exactly the files of 4 chains × 8000 iterations run in one go.
#[test]
fn chains_extended_in_rounds_are_the_chains_run_in_one_go_even_after_a_kill() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let go = tmp.path().join("go");
    std::fs::create_dir_all(&go).expect("dir");
    let yaml = write_yaml(&go, &one_go_yaml());
    let out = run_cmd(&yaml, &go.join("run"), &["--local-workers", "2"])
        .output()
        .expect("run");
    check(&out, "one-go run");

    // Uninterrupted rounds.
    let whole = tmp.path().join("whole");
    std::fs::create_dir_all(&whole).expect("dir");
    let yaml = write_yaml(&whole, UNTIL_YAML);
    let out = run_cmd(&yaml, &whole.join("run"), &["--local-workers", "2"])
        .output()
        .expect("run");
    check(&out, "until run");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("until: round 4"), "{err}");
    assert_same_chains(&whole.join("run"), &go.join("run"));
    // Rounds 2 and 3 went on from the end states (iterations 2000 and 4000), not from iteration 1.
    let resumed = |it: u64| {
        query_f64(
            &whole.join("run"),
            &format!("SELECT COUNT(*) FROM resumes WHERE iteration = {it}"),
        )
    };
    assert_eq!(resumed(2000), Some(4.0));
    assert_eq!(resumed(4000), Some(4.0));
    let table = std::fs::read_to_string(whole.join("run/tables/until.csv")).expect("until.csv");
    assert!(table.contains("iterations_max"), "{table}");
    for line in table.lines().skip(1) {
        assert!(
            line.contains(",8000,8000,4,4,0,1,no,"),
            "capped at both caps: {line}"
        );
    }
    let status = std::process::Command::new(crate::durability::BIN)
        .arg("status")
        .arg(whole.join("run"))
        .output()
        .expect("status");
    let text = String::from_utf8_lossy(&status.stdout);
    assert!(text.contains("until rounds:"), "{text}");
    assert!(text.contains("0 still short (running), 2 capped"), "{text}");

    // Killed during an extension, then rerun. The kill races the extension: on a starved
    // machine the test may see the checkpoint only after the chain has finished, so a kill
    // that came too late is tried again (in a fresh directory), up to three times; every
    // attempt must still give the one-go chains.
    let mut killed_mid_extension = false;
    for attempt in 0..3 {
        let killed = tmp.path().join(format!("killed{attempt}"));
        std::fs::create_dir_all(&killed).expect("dir");
        let yaml = write_yaml(&killed, UNTIL_YAML);
        let run = killed.join("run");
        let args = ["--local-workers", "1", "--checkpoint-iterations", "400"];
        let mut first = run_cmd(&yaml, &run, &args).spawn().expect("spawn");
        wait_for(
            "a checkpoint of an extension (past iteration 2000)",
            Duration::from_secs(120),
            || {
                query_f64(
                    &run,
                    "SELECT MAX(iteration) FROM checkpoints WHERE iteration < 4000",
                )
                .is_some_and(|it| it > 2000.0)
            },
        );
        first.kill().expect("SIGKILL the coordinator");
        let _ = first.wait();
        let second = run_cmd(&yaml, &run, &args).output().expect("rerun");
        check(&second, "resumed until run");
        let err = String::from_utf8_lossy(&second.stderr);
        assert!(err.contains("until: going on from round"), "{err}");
        assert_same_chains(&run, &go.join("run"));
        assert_eq!(
            std::fs::read(run.join("tables/until.csv")).expect("until.csv"),
            std::fs::read(whole.join("run/tables/until.csv")).expect("until.csv"),
            "the same report"
        );
        // The chain killed mid-extension went on from its last checkpoint (past 2000), the
        // others of round 2 from their end states at 2000 or were already stored.
        let mid = query_f64(
            &run,
            "SELECT COUNT(*) FROM resumes WHERE iteration > 2000 AND iteration < 4000",
        );
        if mid == Some(1.0) {
            assert!(err.contains("until: going on from round 2"), "{err}");
            killed_mid_extension = true;
            break;
        }
        eprintln!("attempt {attempt}: killed too late (resumes mid-extension: {mid:?}); again");
    }
    assert!(
        killed_mid_extension,
        "killed too late in three attempts: no chain went on from mid-extension"
    );
}

#[test]
fn until_errors_point_at_the_key() {
    let base = UNTIL_YAML.trim_start();
    let line_of = |needle: &str| base.lines().position(|l| l.contains(needle)).expect("line") + 1;
    let until_line = line_of("until:");
    for (from, to, says) in [
        ("rhat: 1.01", "rhat: 1.0", "until.rhat"),
        ("ess_bulk: 1000000", "ess_bulk: 0.5", "until.ess_bulk"),
        ("ess_tail: 400", "ess_tail: 0", "until.ess_tail"),
        (
            "max_iterations: 8000",
            "max_iterations: 1999",
            "until.max_iterations (1999)",
        ),
        ("max_chains: 4", "max_chains: 1", "until.max_chains (1)"),
        (
            "max_chains: 4",
            "max_chains: 4, maxchains: 3",
            "unknown field `maxchains`",
        ),
    ] {
        let e = err(&base.replace(from, to));
        assert!(
            e.starts_with(&format!("exp.yaml:{until_line}:")),
            "{from} → {to}: {e}"
        );
        assert!(e.contains(says), "{from} → {to}: {e}");
    }
    // Burn-in fractions are 0 ≤ x < 1.
    let e = err(&base.replace("burn_in: 0.5", "burn_in: 1.5"));
    assert!(
        e.starts_with(&format!("exp.yaml:{}:", line_of("run:"))),
        "{e}"
    );
    assert!(e.contains("run.burn_in") && e.contains("0 ≤ x < 1"), "{e}");
    // Not with sbc:.
    let sbc = base
        .replace("chains: 2", "chains: 1")
        .replace("replicates: 1\n", "")
        .replace("max_chains: 4", "max_chains: 1")
        .replace(
            "dataset: {kind: ibp_synthetic, n_observed: 10, n_trials: 1000, alpha: 2.0, lambda: 0.9, epsilon: 0.01, p: 0.1, k_plus: 2}",
            "dataset: {kind: prior_predictive, n_observed: 5, n_trials: 20}\nsbc: {simulations: 10, draws: 9}",
        )
        .replace("grid:\n  product:\n    dataset.k_plus: [1, 3]\n", "");
    let e = err(&sbc);
    assert!(e.contains("until: cannot be combined with sbc:"), "{e}");
    assert!(e.starts_with("exp.yaml:"), "{e}");
}

#[test]
fn until_plans_list_every_chain_up_to_max_chains_and_resolve_the_fraction() {
    let plan =
        plan_from_str(Path::new("exp.yaml"), UNTIL_YAML, ProfileName::Quick, None).expect("valid");
    assert_eq!(plan.chains, 2);
    assert_eq!(plan.manifest.jobs.len(), 2 * 4, "2 cells × max_chains");
    assert_eq!(plan.manifest.cells[0].run.burn_in, 1000, "0.5 × 2000");
    let (c, fraction) = plan.until.expect("until");
    assert_eq!((c.max_iterations, c.max_chains), (8000, 4));
    assert_eq!(fraction, Some(0.5));
    // The same grid without until: is a different run (its job list differs).
    let plain = plan_from_str(
        Path::new("exp.yaml"),
        &UNTIL_YAML.replace("max_chains: 4", "max_chains: 2"),
        ProfileName::Quick,
        None,
    )
    .expect("valid");
    assert_eq!(plain.manifest.jobs.len(), 2 * 2);
}

/// A finished `until:` run rerun with a stricter criterion is judged again and extended (the
/// record says the criterion changed and when); a rerun with a cap below what its chains
/// already have is refused with the cap named, and the record is left as it was.
#[test]
fn a_changed_criterion_is_judged_again_and_lower_caps_are_refused() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let out = tmp.path().join("run");
    let strict = "until: {rhat: 1.01, ess_bulk: 1000000, ess_tail: 400, max_iterations: 8000, max_chains: 4}";
    let lenient = UNTIL_YAML.replace(
        strict,
        "until: {rhat: 100, ess_bulk: 1, ess_tail: 1, max_iterations: 8000, max_chains: 4}",
    );
    let yaml = write_yaml(tmp.path(), &lenient);
    let first = run_cmd(&yaml, &out, &["--local-workers", "2"])
        .output()
        .expect("run");
    check(&first, "lenient run");
    let groups = |out: &Path| -> Vec<(String, u64, u64)> {
        let m: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(out.join("manifest.json")).expect("manifest"),
        )
        .expect("json");
        m["until"]["groups"]
            .as_array()
            .expect("groups")
            .iter()
            .map(|g| {
                (
                    g["state"].as_str().unwrap_or("").to_string(),
                    g["iterations"].as_u64().unwrap_or(0),
                    g["chains"].as_u64().unwrap_or(0),
                )
            })
            .collect()
    };
    // The k_plus = 3 group meets it early; the other's k_plus never moves (no R-hat), so it
    // grows to both caps.
    assert!(
        groups(&out).iter().any(|g| g.0 == "met" && g.1 < 8000),
        "{:?}",
        groups(&out)
    );

    // Stricter: every group is short again, grows to both caps and ends capped.
    let yaml = write_yaml(tmp.path(), UNTIL_YAML);
    let second = run_cmd(&yaml, &out, &["--local-workers", "2"])
        .output()
        .expect("rerun");
    check(&second, "stricter rerun");
    let err = String::from_utf8_lossy(&second.stderr);
    assert!(err.contains("the criterion changed"), "{err}");
    // Chain runs are counted apart from chains: an extended chain runs once per round.
    assert!(
        err.contains("8 chains used by the groups (8 planned up to max_chains)"),
        "{err}"
    );
    assert!(
        groups(&out)
            .iter()
            .all(|g| g == &("capped".into(), 8000, 4)),
        "{:?}",
        groups(&out)
    );
    let until = std::fs::read_to_string(out.join("tables/until.md")).expect("until.md");
    assert!(
        until.contains("a rerun changed the criterion from R-hat ≤ 100"),
        "{until}"
    );
    // A cell whose scalar never moved has no worst R-hat: NaN, not another scalar's figure.
    let mut r = csv::Reader::from_path(out.join("tables/until.csv")).expect("until.csv");
    let head = r.headers().expect("header").clone();
    let col = |n: &str| head.iter().position(|h| h == n).expect(n);
    let (rhat, short_on) = (col("rhat"), col("short_on"));
    let mut stuck = 0;
    for row in r.records() {
        let row = row.expect("row");
        if row[short_on].contains("no chain moved") {
            stuck += 1;
            assert!(row[rhat].is_empty() || row[rhat] == *"NaN", "{row:?}");
        }
    }
    assert!(stuck > 0, "{until}");

    // Lower caps than the chains have: refused, record unchanged.
    let before = std::fs::read(out.join("manifest.json")).expect("manifest");
    let lower = UNTIL_YAML.replace("max_iterations: 8000", "max_iterations: 4000");
    let yaml = write_yaml(tmp.path(), &lower);
    let third = run_cmd(&yaml, &out, &["--local-workers", "2"])
        .output()
        .expect("rerun");
    assert!(!third.status.success());
    let err = String::from_utf8_lossy(&third.stderr);
    assert!(err.contains("caps may only grow"), "{err}");
    assert_eq!(
        std::fs::read(out.join("manifest.json")).expect("manifest"),
        before
    );
}

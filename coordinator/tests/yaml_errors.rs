//! Invalid experiment files are refused before any chain starts, with file:line:column and the
//! allowed values.

use std::path::Path;

use causeway_coordinator::experiment::{ProfileName, plan_from_str};

const GOOD: &str = r#"name: t
model: wood2006
seed: 1
chains: 4
replicates: 2
run: {iterations: 20, burn_in: 5}
params:
  sampler: gibbs
  alpha: 1.0
  lambda: 0.9
  epsilon: 0.01
  p: 0.1
dataset: {kind: ibp_synthetic, n_observed: 4, n_trials: 10, alpha: 1.0, lambda: 0.9, epsilon: 0.01, p: 0.1, k_plus: 2}
grid:
  product:
    params.lambda: [0.5, 0.9]
profiles: {quick: {}, paper: {}}
"#;

/// The error `text` (as `exp.yaml`, quick profile) is refused with.
pub(crate) fn err(text: &str) -> String {
    plan_from_str(Path::new("exp.yaml"), text, ProfileName::Quick, None)
        .expect_err("must be refused")
        .to_string()
}

#[test]
fn good_file_expands() {
    let plan = plan_from_str(Path::new("exp.yaml"), GOOD, ProfileName::Quick, None).expect("valid");
    assert_eq!(plan.manifest.cells.len(), 2);
    assert_eq!(plan.manifest.jobs.len(), 2 * 2 * 4);
    // Seeds derive from the cell's content, not its position.
    assert_ne!(plan.manifest.cells[0].key, plan.manifest.cells[1].key);
}

#[test]
fn unknown_top_level_key_names_line_and_allowed_keys() {
    let e = err(&GOOD.replace("chains: 4", "chians: 4"));
    assert!(e.starts_with("exp.yaml:4:"), "{e}");
    assert!(e.contains("chians") && e.contains("chains"), "{e}");
}

#[test]
fn out_of_range_axis_value_points_at_the_value() {
    let e = err(&GOOD.replace("[0.5, 0.9]", "[0.5, 1.5]"));
    assert!(
        e.starts_with("exp.yaml:16:26:"),
        "points at the value 1.5 itself: {e}"
    );
    assert!(
        e.contains("params.lambda") && e.contains("0 < x < 1"),
        "{e}"
    );
}

#[test]
fn out_of_range_base_param_points_at_it() {
    let e = err(&GOOD.replace("alpha: 1.0\n  lambda", "alpha: -1.0\n  lambda"));
    assert!(e.starts_with("exp.yaml:9:"), "{e}");
    assert!(e.contains("params.alpha"), "{e}");
}

#[test]
fn wrong_type_and_bad_enum_list_allowed_values() {
    let e = err(&GOOD.replace("sampler: gibbs", "sampler: metropolis"));
    assert!(e.starts_with("exp.yaml:8:"), "{e}");
    assert!(e.contains("gibbs") && e.contains("rjmcmc"), "{e}");
    let e = err(&GOOD.replace("seed: 1", "seed: one"));
    assert!(e.starts_with("exp.yaml:3:"), "{e}");
}

#[test]
fn unknown_model_lists_models() {
    let e = err(&GOOD.replace("model: wood2006", "model: wood"));
    assert!(e.starts_with("exp.yaml:2:"), "{e}");
    assert!(e.contains("wood2006") && e.contains("kurutmaz2019"), "{e}");
}

#[test]
fn bad_profile_and_axis_are_refused() {
    let e = err(&GOOD.replace("{quick: {}, paper: {}}", "{quick: {}, full: {}}"));
    assert!(e.contains("quick") && e.contains("paper"), "{e}");
    let e = err(&GOOD.replace("params.lambda:", "lambda:"));
    assert!(
        e.contains("params.") && e.starts_with("exp.yaml:16:"),
        "{e}"
    );
    let e = err(&GOOD.replace("burn_in: 5", "burn_in: 50"));
    assert!(e.contains("burn_in"), "{e}");
}

#[test]
fn report_kind_typo_is_refused_before_any_chain_with_allowed_kinds() {
    let e = err(&GOOD.replace(
        "profiles:",
        "report: [wood2006.fig3, wood2006.fig33]\nprofiles:",
    ));
    assert!(
        e.starts_with("exp.yaml:17:"),
        "points at the report line: {e}"
    );
    assert!(e.contains("wood2006.fig33"), "{e}");
    assert!(
        e.contains("wood2006.fig4") && e.contains("kurutmaz2019.cep"),
        "lists the allowed kinds: {e}"
    );
    // A kind of another paper is refused too.
    let e = err(&GOOD.replace("profiles:", "report: [kurutmaz2019.toy]\nprofiles:"));
    assert!(e.contains("kurutmaz2019") && e.contains("wood2006"), "{e}");
}

#[test]
fn monitor_that_the_model_does_not_trace_is_refused() {
    let e = err(&GOOD.replace("profiles:", "monitor: [k_plus, kplus]\nprofiles:"));
    assert!(e.starts_with("exp.yaml:17:"), "{e}");
    assert!(e.contains("kplus") && e.contains("log_joint"), "{e}");
}

#[test]
fn missing_data_file_is_refused_before_any_chain() {
    let text = GOOD.replace(
        "dataset: {kind: ibp_synthetic, n_observed: 4, n_trials: 10, alpha: 1.0, lambda: 0.9, epsilon: 0.01, p: 0.1, k_plus: 2}",
        "dataset: {kind: binary_csv, path: lucas/no_such_file.csv}",
    );
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("../data");
    let e = plan_from_str(
        Path::new("exp.yaml"),
        &text,
        ProfileName::Quick,
        Some(&data),
    )
    .expect_err("a missing data file must be refused")
    .to_string();
    assert!(e.contains("no_such_file.csv"), "{e}");
    assert!(e.contains("dataset.path"), "{e}");
}

#[test]
fn names_that_are_not_one_plain_path_component_are_refused() {
    for bad in ["../../X", "\"\"", "a/b", "..", "."] {
        let e = err(&GOOD.replace("name: t", &format!("name: {bad}")));
        assert!(e.starts_with("exp.yaml:1:"), "{bad}: {e}");
        assert!(e.contains("plain directory name"), "{bad}: {e}");
    }
    assert!(
        plan_from_str(
            Path::new("exp.yaml"),
            &GOOD.replace("name: t", "name: wood2006_fig3.v2-b"),
            ProfileName::Quick,
            None
        )
        .is_ok()
    );
}

#[test]
fn duplicate_axis_values_and_axes_in_both_product_and_zip_are_refused() {
    let e = err(&GOOD.replace("[0.5, 0.9]", "[0.5, 0.9, 0.5]"));
    assert!(e.starts_with("exp.yaml:16:"), "{e}");
    assert!(e.contains("duplicate grid value 0.5"), "{e}");
    let both = GOOD.replace(
        "    params.lambda: [0.5, 0.9]\n",
        "    params.lambda: [0.5, 0.9]\n  zip:\n    - params.lambda: [0.7, 0.8]\n      params.p: [0.1, 0.2]\n",
    );
    let e = err(&both);
    assert!(e.contains("both product and zip"), "{e}");
    assert!(e.starts_with("exp.yaml:18:"), "points at the zip axis: {e}");
}

#[test]
fn repeated_zip_entries_are_refused_but_a_repeated_value_in_one_zip_axis_is_not() {
    let zip = |m: &str, p: &str| {
        GOOD.replace(
            "    params.lambda: [0.5, 0.9]\n",
            &format!(
                "    params.lambda: [0.5, 0.9]\n  zip:\n    - params.alpha: [{m}]\n      params.p: [{p}]\n"
            ),
        )
    };
    assert!(
        plan_from_str(
            Path::new("exp.yaml"),
            &zip("1.0, 1.0", "0.1, 0.2"),
            ProfileName::Quick,
            None
        )
        .is_ok()
    );
    let e = err(&zip("1.0, 1.0", "0.1, 0.1"));
    assert!(e.contains("repeats entry 0"), "{e}");
}

#[test]
fn a_trace_too_long_to_hold_is_refused_before_the_run() {
    let e = err(&GOOD.replace(
        "run: {iterations: 20, burn_in: 5}",
        "run: {iterations: 100000000, burn_in: 5}",
    ));
    assert!(e.starts_with("exp.yaml:6:"), "{e}");
    assert!(e.contains("raise run.thin"), "{e}");
    assert!(
        plan_from_str(
            Path::new("exp.yaml"),
            &GOOD.replace(
                "run: {iterations: 20, burn_in: 5}",
                "run: {iterations: 100000000, burn_in: 5, thin: 100}"
            ),
            ProfileName::Quick,
            None
        )
        .is_ok()
    );
}

/// An experiment can point causeway at any file of its data directory: the errors about it name
/// the line and column but never echo the file's text (`data_dir: /etc` printed two lines of
/// /etc/passwd).
#[test]
fn errors_about_a_data_file_do_not_echo_its_contents() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(
        dir.path().join("secret.csv"),
        "root:x:0:0:root:/root:/bin/bash\ndaemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin\n",
    )
    .expect("write");
    let text = GOOD.replace(
        "dataset: {kind: ibp_synthetic, n_observed: 4, n_trials: 10, alpha: 1.0, lambda: 0.9, epsilon: 0.01, p: 0.1, k_plus: 2}",
        "dataset: {kind: binary_csv, path: secret.csv}",
    );
    let e = plan_from_str(
        Path::new("exp.yaml"),
        &text,
        ProfileName::Quick,
        Some(dir.path()),
    )
    .expect_err("not a binary CSV")
    .to_string();
    assert!(e.contains("line 2") && e.contains("column 1"), "{e}");
    assert!(
        !e.contains("root") && !e.contains("daemon"),
        "echoes the file: {e}"
    );
    // A plain value is still shown, so a real data error stays easy to find.
    std::fs::write(dir.path().join("secret.csv"), "Smoking,Anxiety\n0,1\n2,0\n").expect("write");
    let e = plan_from_str(
        Path::new("exp.yaml"),
        &text,
        ProfileName::Quick,
        Some(dir.path()),
    )
    .expect_err("2 is not binary")
    .to_string();
    assert!(e.contains("\"Smoking\"") && e.contains("\"2\""), "{e}");
}

/// Paper 004 (`dallaire2014`): out-of-range hyperparameters are refused at their
/// YAML position, and bad data (a non-numeric, empty, NaN or inf cell; a constant column; an
/// unknown abalone sex code) with the data file, line and column, before any chain starts.
#[test]
fn dallaire2014_bad_hyperparameters_and_bad_data_are_refused_before_any_chain() {
    const D14: &str = "name: t\nmodel: dallaire2014\nseed: 1\nchains: 2\nrun: {iterations: 10}\n\
params:\n  alpha: 1.0\n  beta: 1.0\n  beta_prime: 1.0\n  mtm_tries: 5\n  observed_range: 0.9\n\
dataset: {kind: csv, path: d.csv}\nprofiles: {quick: {}, paper: {}}\n";
    let dir = tempfile::tempdir().expect("tempdir");
    let write = |text: &str| std::fs::write(dir.path().join("d.csv"), text).expect("write");
    let plan = |text: &str| {
        plan_from_str(
            Path::new("exp.yaml"),
            text,
            ProfileName::Quick,
            Some(dir.path()),
        )
        .map(|_| ())
        .map_err(|e| e.to_string())
    };
    let rows: String = (0..20).map(|i| format!("{i},{}\n", (i * 7) % 11)).collect();
    write(&format!("a,b\n{rows}"));
    plan(D14).expect("the good file is accepted");
    for (from, to, line, key) in [
        ("alpha: 1.0", "alpha: 0.0", 7, "params.alpha"),
        ("alpha: 1.0", "alpha: -2", 7, "params.alpha"),
        ("  beta: 1.0", "  beta: 0", 8, "params.beta"),
        (
            "beta_prime: 1.0",
            "beta_prime: -0.5",
            9,
            "params.beta_prime",
        ),
        ("mtm_tries: 5", "mtm_tries: 0", 10, "params.mtm_tries"),
        (
            "observed_range: 0.9",
            "observed_range: 1.0",
            11,
            "params.observed_range",
        ),
        (
            "observed_range: 0.9",
            "observed_range: 0",
            11,
            "params.observed_range",
        ),
    ] {
        let e = plan(&D14.replacen(from, to, 1)).expect_err(to);
        assert!(
            e.starts_with(&format!("exp.yaml:{line}:")) && e.contains(key),
            "{to}: {e}"
        );
        assert!(e.contains("allowed values"), "{to}: {e}");
    }
    for (text, want) in [
        ("a,b\n1,2\n3,x\n4,5\n", "line 3"),
        ("a,b\n1,2\n3,\n4,5\n", "line 3"),
        ("a,b\n1,2\n3,NaN\n4,5\n", "line 3"),
        ("a,b\n1,2\n3,inf\n4,5\n", "line 3"),
        ("a,b\n1,2\n5,5\n1,9\n2,4\n", "\"a\""),
    ] {
        // The constant-column case: column a is 1 in both training (odd) rows.
        write(text);
        let e = plan(D14).expect_err(text);
        assert!(e.contains("d.csv") && e.contains(want), "{text:?}: {e}");
    }
    let abalone = D14.replace("{kind: csv, path: d.csv}", "{kind: abalone, path: ab.data}");
    let mut lines = String::new();
    for i in 0..6 {
        let sex = if i == 4 { "X" } else { "M" };
        lines.push_str(&format!(
            "{sex},0.4{i},0.3{i},0.1{i},0.5{i},0.2{i},0.1{i},0.15{i},{}\n",
            7 + i
        ));
    }
    std::fs::write(dir.path().join("ab.data"), lines).expect("write");
    let e = plan(&abalone).expect_err("an unknown sex code");
    assert!(e.contains("ab.data") && e.contains("line 5"), "{e}");
}

/// a duplicate key is located at the duplicate, not at the start of its mapping;
/// the "more than 10^7 chains" error points at the factor the file writes (a missing
/// `replicates:` sent it to line 1).
#[test]
fn duplicate_keys_and_too_many_chains_point_at_the_right_line() {
    let e = err(&GOOD.replace("  lambda: 0.9\n", "  lambda: 0.9\n  alpha: 2.0\n"));
    assert!(e.starts_with("exp.yaml:11:3:"), "{e}");
    assert!(e.contains("duplicate key `params.alpha`"), "{e}");
    let e = err(&GOOD.replace("chains: 4", "chains: 9000000"));
    assert!(e.starts_with("exp.yaml:4:"), "{e}");
    assert!(e.contains("more than 10000000 chains"), "{e}");
    let no_reps = GOOD
        .replace("replicates: 2\n", "")
        .replace(
            "[0.5, 0.9]",
            &format!(
                "[{}]",
                (1..=99)
                    .map(|i| format!("0.{i:02}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        )
        .replace("chains: 4", "chains: 200000");
    let e = err(&no_reps);
    assert!(e.starts_with("exp.yaml:4:"), "the chains line: {e}");
}

/// a cause is printed once (`path: No such file…: No such file…` before).
#[test]
fn a_cause_is_printed_once() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_causeway"))
        .args(["report", "/nonexistent/run"])
        .output()
        .expect("run");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.matches("No such file").count(), 1, "{err}");
}

#[test]
fn checkpoint_every_is_read_and_a_bad_one_is_refused_at_its_line() {
    let with = |v: &str| GOOD.replace("profiles:", &format!("checkpoint_every: {v}\nprofiles:"));
    let plan = plan_from_str(
        Path::new("exp.yaml"),
        &with("{seconds: 5, iterations: 100}"),
        ProfileName::Quick,
        None,
    )
    .expect("valid");
    assert_eq!(plan.checkpoint_every.seconds, Some(5.0));
    assert_eq!(plan.checkpoint_every.iterations, Some(100));
    let e = err(&with("{seconds: -1}"));
    assert!(e.starts_with("exp.yaml:17:"), "{e}");
    assert!(
        e.contains("checkpoint_every.seconds") && e.contains("≥ 0"),
        "{e}"
    );
    let e = err(&with("{minutes: 1}"));
    assert!(e.starts_with("exp.yaml:17:"), "{e}");
    assert!(e.contains("minutes") && e.contains("seconds"), "{e}");
}

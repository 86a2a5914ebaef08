//! The `causeway` binary end to end: `diagnose` on a CSV the test writes, `validate` on a
//! bad experiment file, and output into a closed pipe.

use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_causeway");

#[test]
fn diagnose_csv_gives_json_per_variable() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("draws.csv");
    // 4 chains × 200 draws of two variables: `mu` mixes well, `stuck` has one chain shifted.
    let mut csv = String::from("chain,draw,mu,stuck\n");
    let mut state: u64 = 12345;
    let mut unif = || {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((state >> 11) as f64) / ((1u64 << 53) as f64)
    };
    for c in 0..4 {
        for d in 0..200 {
            let mu = unif() - 0.5;
            let stuck = unif() + if c == 3 { 5.0 } else { 0.0 };
            csv.push_str(&format!("{c},{d},{mu},{stuck}\n"));
        }
    }
    std::fs::write(&path, csv).expect("write csv");
    let out = Command::new(BIN)
        .arg("diagnose")
        .arg(&path)
        .output()
        .expect("run causeway");
    assert!(
        out.status.success(),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON on stdout");
    for var in ["mu", "stuck"] {
        for key in [
            "rhat",
            "rhat_split",
            "ess_bulk",
            "ess_tail",
            "ess_mean",
            "mcse_mean",
        ] {
            assert!(v[var][key].is_number(), "{var}.{key} missing in {v}");
        }
    }
    let rhat_mu = v["mu"]["rhat"].as_f64().unwrap_or(f64::NAN);
    let rhat_stuck = v["stuck"]["rhat"].as_f64().unwrap_or(f64::NAN);
    assert!(rhat_mu < 1.02, "iid draws: R-hat {rhat_mu}");
    assert!(rhat_stuck > 1.5, "a shifted chain: R-hat {rhat_stuck}");
    let ess = v["mu"]["ess_bulk"].as_f64().unwrap_or(0.0);
    assert!(ess > 400.0 && ess < 1200.0, "iid draws: ESS {ess}");

    let table = Command::new(BIN)
        .args(["diagnose", "--format", "table"])
        .arg(&path)
        .output()
        .expect("run");
    assert!(table.status.success());
    let text = String::from_utf8_lossy(&table.stdout);
    assert!(
        text.contains("ess_bulk") && text.contains("stuck"),
        "{text}"
    );

    // A malformed file is a clear error, not a panic.
    std::fs::write(&path, "chain,draw,x\n0,0,notanumber\n").expect("write");
    let bad = Command::new(BIN)
        .arg("diagnose")
        .arg(&path)
        .output()
        .expect("run");
    assert!(!bad.status.success());
    assert!(!String::from_utf8_lossy(&bad.stderr).contains("panicked"));
}

#[test]
fn validate_reports_file_line_column() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("bad.yaml");
    std::fs::write(
        &path,
        "name: t\nmodel: wood2006\nseed: 1\nrun: {iterations: 10}\nparams: {sampler: gibbs, epsilon: 2.0}\n\
         dataset: {kind: ibp_synthetic, n_observed: 3, k_plus: 1}\nprofiles: {quick: {}, paper: {}}\n",
    )
    .expect("write");
    let out = Command::new(BIN)
        .arg("validate")
        .arg(&path)
        .output()
        .expect("run causeway");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("bad.yaml:5:") && err.contains("params.epsilon"),
        "{err}"
    );
}

/// `causeway validate … | head -0`: a reader that has gone away ends the output quietly
/// (exit 0), instead of `print!`'s panic ("failed printing to stdout: Broken pipe").
#[test]
fn output_into_a_closed_pipe_is_not_a_panic() {
    let yaml = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../experiments/wood2006/lucas.yaml"
    );
    let mut child = Command::new(BIN)
        .args(["validate", yaml])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("run causeway");
    // Close the read end before the child gets to write (it parses the YAML first).
    drop(child.stdout.take());
    let out = child.wait_with_output().expect("wait for causeway");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "stderr: {stderr}");
    assert!(
        out.status.success(),
        "status {:?}, stderr: {stderr}",
        out.status
    );
}

/// `causeway check` that compared nothing is an error, not a pass; tolerances must be finite ≥ 0.
#[test]
fn check_that_compares_nothing_fails_and_bad_tolerances_are_refused() {
    let dir = tempfile::tempdir().expect("tempdir");
    let run = dir.path().join("run");
    std::fs::create_dir_all(run.join("tables")).expect("mkdir");
    std::fs::write(run.join("tables/t.csv"), "a,b\n1,2\n").expect("write");
    let empty = dir.path().join("empty.csv");
    std::fs::write(&empty, "table,row,column,expected,tolerance\n").expect("write");
    let out = Command::new(BIN)
        .args(["check"])
        .arg(&run)
        .arg("--baseline")
        .arg(&empty)
        .output()
        .expect("run causeway");
    assert_ne!(out.status.code(), Some(0), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("compared nothing"), "{err}");
    // A header-only baseline run directory compares nothing either.
    let base = dir.path().join("base");
    std::fs::create_dir_all(base.join("tables")).expect("mkdir");
    std::fs::write(base.join("tables/t.csv"), "a,b\n").expect("write");
    let out = Command::new(BIN)
        .args(["check"])
        .arg(&run)
        .arg("--baseline")
        .arg(&base)
        .output()
        .expect("run causeway");
    assert_ne!(out.status.code(), Some(0), "{out:?}");
    for tol in ["nan", "-1", "inf"] {
        let out = Command::new(BIN)
            .args(["check"])
            .arg(&run)
            .arg("--baseline")
            .arg(&run)
            .arg(format!("--rtol={tol}"))
            .output()
            .expect("run causeway");
        assert_ne!(out.status.code(), Some(0), "--rtol={tol}: {out:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("finite number"), "--rtol={tol}: {err}");
    }
    // The same run against itself compares one row and passes.
    let out = Command::new(BIN)
        .args(["check"])
        .arg(&run)
        .arg("--baseline")
        .arg(&run)
        .output()
        .expect("run causeway");
    assert_eq!(out.status.code(), Some(0), "{out:?}");
}

/// Clear refusals: a header-only draws file has "no rows of draws"; `.inf` in the YAML is named
/// as non-finite (it used to read "invalid type: null"); `--local-workers 0` and
/// `--max-attempts 0` are refused (they gave "no worker could be reached (tried )" and were
/// silently raised to 1).
#[test]
fn messages_name_the_actual_problem() {
    let dir = tempfile::tempdir().expect("tempdir");
    let csv = dir.path().join("h.csv");
    std::fs::write(&csv, "chain,draw,x\n").expect("write");
    let out = Command::new(BIN)
        .arg("diagnose")
        .arg(&csv)
        .output()
        .expect("run");
    assert_ne!(out.status.code(), Some(0));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("no rows of draws"), "{err}");
    let yaml = dir.path().join("inf.yaml");
    std::fs::write(
        &yaml,
        "name: t\nmodel: wood2006\nseed: 1\nrun: {iterations: 10}\nparams: {sampler: gibbs, alpha: .inf}\n\
         dataset: {kind: ibp_synthetic, n_observed: 3, k_plus: 1}\nprofiles: {quick: {}, paper: {}}\n",
    )
    .expect("write");
    let out = Command::new(BIN)
        .arg("validate")
        .arg(&yaml)
        .output()
        .expect("run");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("inf.yaml:5:") && err.contains("non-finite"),
        "{err}"
    );
    for flag in ["--local-workers", "--max-attempts"] {
        let out = Command::new(BIN)
            .arg("run")
            .arg(&yaml)
            .args([flag, "0"])
            .arg("--out")
            .arg(dir.path().join("never"))
            .output()
            .expect("run");
        assert_ne!(out.status.code(), Some(0), "{flag} 0");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("0 is not in"), "{flag} 0: {err}");
        assert!(
            !dir.path().join("never").exists(),
            "{flag} 0 wrote a run directory"
        );
    }
}

/// `causeway kl` (paper 004's KL estimator on a user's samples): the JSON of a good pair, and exit
/// code 2 naming the file and the line or column for each bad input.
#[test]
fn dallaire2014_kl_command_reports_json_and_refuses_bad_csv_with_exit_2() {
    let dir = tempfile::tempdir().expect("tempdir");
    let write = |name: &str, text: &str| {
        let p = dir.path().join(name);
        std::fs::write(&p, text).expect("write");
        p
    };
    // P = {0, 1, 3}, Q = {0, 2}: 1-NN distances within P are r = (1, 1, 2); from P to Q (the
    // tie P_0 = Q_0 skipped) s = (2, 1, 1). D̂ = (1/3) ln(2·1·½) + ln(2/2) = 0, one tie.
    let p = write("p.csv", "x\n0\n1\n3\n");
    let q = write("q.csv", "x\n0\n2\n");
    let out = Command::new(BIN)
        .arg("kl")
        .arg(&p)
        .arg(&q)
        .output()
        .expect("run");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert!(v["kl"].as_f64().expect("kl").abs() < 1e-12, "{v}");
    assert_eq!(v["zero_distance_ties"], 1, "{v}");
    assert_eq!(
        (v["n"].clone(), v["m"].clone(), v["d"].clone()),
        (3.into(), 2.into(), 1.into())
    );
    assert_eq!(v["standardized"], false);

    let cases: [(&str, &str, &[&str], &str); 7] = [
        (
            "nonnumeric.csv",
            "x\n0\nabc\n",
            &[],
            "line 3, column \"x\": not a number",
        ),
        (
            "empty.csv",
            "x,y\n0,1\n,2\n",
            &[],
            "line 3, column \"x\": empty cell",
        ),
        (
            "nan.csv",
            "x\n0\nNaN\n",
            &[],
            "line 3, column \"x\": NaN or infinite",
        ),
        ("inf.csv", "x\n0\ninf\n", &[], "NaN or infinite"),
        (
            "ragged.csv",
            "x,y\n0,1\n2\n",
            &[],
            "line 3: 1 fields where the header has 2",
        ),
        ("header.csv", "z\n0\n1\n", &[], "identical headers"),
        (
            "small.csv",
            "x\n0\n",
            &["--k", "2"],
            "Q needs at least k = 2 rows",
        ),
    ];
    for (name, text, extra, want) in cases {
        let bad = write(name, text);
        let out = Command::new(BIN)
            .arg("kl")
            .arg(&p)
            .arg(&bad)
            .args(extra)
            .output()
            .expect("run");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{name}: {err}");
        assert!(err.contains(name) && err.contains(want), "{name}: {err}");
        assert!(!err.contains("panicked"), "{err}");
    }
    // n ≤ k, and a constant column in the standardizing file.
    let out = Command::new(BIN)
        .arg("kl")
        .arg(&p)
        .arg(&q)
        .args(["--k", "3"])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("P needs more than k = 3 rows"));
    let t = write("t.csv", "x\n5\n5\n5\n");
    let out = Command::new(BIN)
        .arg("kl")
        .arg(&p)
        .arg(&q)
        .arg("--standardize-by")
        .arg(&t)
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("t.csv") && err.contains("column \"x\" is constant"),
        "{err}"
    );
}

/// `--chain-seed` changes the chains' streams and nothing else.
#[test]
fn a_chain_seed_changes_the_chains_and_keeps_the_datasets() {
    let dir = tempfile::tempdir().expect("tempdir");
    let yaml = dir.path().join("s.yaml");
    std::fs::write(
        &yaml,
        r#"name: chain_seed
model: wood2006
seed: 11
chains: 2
replicates: 2
run: {iterations: 30, burn_in: 10, thin: 1}
params: {sampler: gibbs, alpha: 2.0, lambda: 0.9, epsilon: 0.01, p: 0.1, init: empty}
dataset: {kind: ibp_synthetic, n_observed: 6, n_trials: 40, alpha: 2.0, lambda: 0.9, epsilon: 0.01, p: 0.1, k_plus: 2}
monitor: [k_plus]
report: [wood2006.fig3]
profiles: {quick: {}, paper: {}}
"#,
    )
    .expect("write yaml");
    let run = |out: &str, extra: &[&str]| {
        Command::new(BIN)
            .arg("run")
            .arg(&yaml)
            .args(["--local-workers", "1", "--out"])
            .arg(dir.path().join(out))
            .args(extra)
            .output()
            .expect("run causeway")
    };
    for (out, extra) in [
        ("a", &[][..]),
        ("b", &["--chain-seed", "7"][..]),
        ("c", &["--chain-seed", "11"][..]),
    ] {
        let o = run(out, extra);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    }
    let files = |out: &str, sub: &str| -> Vec<(String, Vec<u8>)> {
        let mut v: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir.path().join(out).join(sub))
            .expect("dir")
            .flatten()
            .map(|e| {
                (
                    e.file_name().to_string_lossy().into_owned(),
                    std::fs::read(e.path()).expect("read"),
                )
            })
            .collect();
        v.sort();
        v
    };
    assert_eq!(files("a", "datasets"), files("b", "datasets"));
    let (ca, cb) = (files("a", "chains"), files("b", "chains"));
    assert_eq!(ca.len(), cb.len());
    assert!(
        ca.iter().zip(&cb).all(|(x, y)| x.0 == y.0 && x.1 != y.1),
        "every chain differs under another chain seed"
    );
    // The experiment's own seed as chain seed is the same run.
    assert_eq!(ca, files("c", "chains"));
    let manifest = std::fs::read_to_string(dir.path().join("b/manifest.json")).expect("manifest");
    assert!(manifest.contains("\"chain_seed\": 7"), "{manifest}");
    let report = std::fs::read_to_string(dir.path().join("b/tables/report.md")).expect("report");
    assert!(report.contains("seed 11, chain seed 7"), "{report}");
    // A run directory keeps its chain seed.
    let o = run("b", &["--chain-seed", "8"]);
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("chain seed 7, not 8"), "{err}");
}

/// Duration flags past a year (1e20, 1e300 seconds) are refused with the flag's name and the
/// allowed range; converting them to a `Duration` used to panic (exit 101).
#[test]
fn duration_flags_refuse_absurd_values() {
    let yaml = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../experiments/wood2006/sbc.yaml"
    );
    let dir = tempfile::tempdir().expect("tempdir");
    let mut cases: Vec<(Vec<String>, &str)> = Vec::new();
    for v in ["1e20", "1e300"] {
        cases.push((
            vec![
                "run".into(),
                yaml.into(),
                "--out".into(),
                dir.path().join("r").display().to_string(),
                "--lease-timeout".into(),
                v.into(),
            ],
            "--lease-timeout",
        ));
    }
    for flag in ["--register-every", "--give-up-after", "--heartbeat"] {
        cases.push((
            vec![
                "worker".into(),
                "--listen".into(),
                "127.0.0.1:0".into(),
                flag.into(),
                "1e20".into(),
            ],
            flag,
        ));
    }
    for (args, flag) in cases {
        let out = Command::new(BIN)
            .args(&args)
            .output()
            .expect("run causeway");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_ne!(out.status.code(), Some(101), "{args:?} panicked: {err}");
        assert_ne!(out.status.code(), Some(0), "{args:?}: {err}");
        assert!(
            err.contains(flag) && err.contains("more than a year"),
            "{args:?}: {err}"
        );
    }
}

/// A worker refuses an absurd slot count before it starts (the coordinator also caps what a
/// worker advertises at `MAX_WORKER_SLOTS`, one task each).
#[test]
fn worker_slots_out_of_range_are_refused() {
    for slots in ["0", "4097", "4000000000"] {
        let out = Command::new(BIN)
            .args(["worker", "--listen", "127.0.0.1:0", "--slots", slots])
            .output()
            .expect("run causeway");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "--slots {slots}: {err}");
        assert!(
            err.contains("--slots") && err.contains("1..=4096"),
            "--slots {slots}: {err}"
        );
    }
}

/// Logs to a file or a pipe carry no ANSI colour codes (a batch system's output is read as
/// text); the warnings are still there. A worker whose coordinator cannot be reached warns when
/// it deregisters on SIGTERM.
#[test]
fn logs_to_a_pipe_are_plain_text() {
    let child = Command::new(BIN)
        .args([
            "worker",
            "--listen",
            "127.0.0.1:0",
            "--coordinator",
            "http://127.0.0.1:9",
        ])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("run causeway worker");
    std::thread::sleep(std::time::Duration::from_millis(500));
    crate::durability::send_signal(&child, libc::SIGTERM);
    let out = child.wait_with_output().expect("worker output");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("WARN"), "{err}");
    assert!(
        !err.contains('\u{1b}'),
        "ANSI escape in a piped log: {err:?}"
    );
}

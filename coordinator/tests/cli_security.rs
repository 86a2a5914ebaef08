//! `causeway worker` listening policy and `causeway check`, through the real binary.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn causeway() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_causeway"));
    c.env_remove("CAUSEWAY_TOKEN");
    c
}

#[test]
fn worker_on_all_interfaces_needs_a_token() {
    let out = causeway()
        .args(["worker", "--listen", "0.0.0.0:0", "--slots", "1"])
        .output()
        .expect("run causeway");
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("refusing to listen on 0.0.0.0:0 without a token")
            && err.contains("--insecure"),
        "{err}"
    );
}

/// Start `causeway worker ARGS`, wait for its "listening" line, then stop it.
fn starts(args: &[&str], envs: &[(&str, &str)]) {
    let mut child = causeway()
        .args(args)
        .envs(envs.iter().copied())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn causeway worker");
    let stderr = child.stderr.take().expect("stderr");
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    let deadline = Instant::now() + Duration::from_secs(20);
    let mut seen = Vec::new();
    let mut ok = false;
    while Instant::now() < deadline {
        match rx.recv_timeout(Duration::from_millis(200)) {
            Ok(l) => {
                ok |= l.contains("listening on");
                seen.push(l);
                if ok {
                    break;
                }
            }
            Err(_) => {
                if let Ok(Some(_)) = child.try_wait() {
                    break;
                }
            }
        }
    }
    // Still running after printing its banner: it started.
    std::thread::sleep(Duration::from_millis(200));
    let alive = matches!(child.try_wait(), Ok(None));
    let _ = child.kill();
    let _ = child.wait();
    assert!(ok && alive, "worker did not start: {seen:?}");
    for l in &seen {
        assert!(!l.contains("s3cret-token"), "the token was printed: {l}");
    }
}

#[test]
fn worker_on_all_interfaces_starts_with_insecure_or_a_token() {
    starts(
        &[
            "worker",
            "--listen",
            "0.0.0.0:0",
            "--slots",
            "1",
            "--insecure",
        ],
        &[],
    );
    starts(
        &["worker", "--listen", "0.0.0.0:0", "--slots", "1"],
        &[("CAUSEWAY_TOKEN", "s3cret-token")],
    );
    let dir = tempfile::tempdir().expect("tempdir");
    let f = dir.path().join("token");
    std::fs::write(&f, "s3cret-token\n").expect("write token");
    let f = f.to_string_lossy().to_string();
    starts(
        &[
            "worker",
            "--listen",
            "0.0.0.0:0",
            "--slots",
            "1",
            "--token-file",
            &f,
        ],
        &[],
    );
}

#[test]
fn missing_token_file_is_a_clear_error() {
    let out = causeway()
        .args([
            "worker",
            "--listen",
            "127.0.0.1:0",
            "--token-file",
            "/nonexistent/token",
        ])
        .output()
        .expect("run causeway");
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("cannot read token file /nonexistent/token"),
        "{err}"
    );
}

const SUMMARY: &str = "method,datasets,accuracy,seconds\nsmc,54,0.9259259259259259,1.5\nvb,54,0.9259259259259259,2.5\n";
const CONFUSION: &str =
    "method,true \\ predicted,a_to_b,b_to_a\nsmc,a_to_b,16,0\nsmc,b_to_a,0,16\n";

fn fake_run(dir: &Path, summary: &str) {
    std::fs::create_dir_all(dir.join("tables")).expect("mkdir");
    std::fs::write(dir.join("tables/summary.csv"), summary).expect("write");
    std::fs::write(dir.join("tables/confusion.csv"), CONFUSION).expect("write");
    std::fs::write(dir.join("tables/summary.md"), "| not | compared |").expect("write");
}

fn check(run: &Path, baseline: &Path) -> (i32, String) {
    let out = causeway()
        .arg("check")
        .arg(run)
        .arg("--baseline")
        .arg(baseline)
        .output()
        .expect("run causeway check");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.code().unwrap_or(-1), text)
}

#[test]
fn check_against_a_previous_run() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let (a, b, c) = (
        tmp.path().join("a"),
        tmp.path().join("b"),
        tmp.path().join("c"),
    );
    fake_run(&a, SUMMARY);
    fake_run(&b, &SUMMARY.replace("1.5", "9.75")); // wall clock differs: skipped
    let (code, text) = check(&b, &a);
    assert_eq!(code, 0, "{text}");
    assert!(text.contains("0 regressions"), "{text}");
    // Perturb one cell beyond the tolerance.
    fake_run(&c, &SUMMARY.replacen("0.9259259259259259", "0.9", 1));
    let (code, text) = check(&c, &a);
    assert_eq!(code, 1, "{text}");
    assert!(
        text.contains("| REGRESSION | summary | smc | accuracy | 0.9259259259259259 | 0.9 |"),
        "{text}"
    );
    // A missing table is a regression.
    std::fs::remove_file(c.join("tables/confusion.csv")).expect("rm");
    let (code, text) = check(&c, &a);
    assert_eq!(code, 1);
    assert!(text.contains("table missing"), "{text}");
}

/// A small valid experiment whose one `checks:` entry (line 8) has `tolerance`.
fn experiment_with_check(tolerance: &str) -> String {
    format!(
        "name: t\nmodel: wood2006\nseed: 1\nrun: {{iterations: 10, burn_in: 0, thin: 1}}\n\
         params: {{sampler: gibbs, alpha: 1.0, lambda: 0.9, epsilon: 0.01, p: 0.1, init: empty}}\n\
         dataset: {{kind: ibp_synthetic, n_observed: 5, n_trials: 20, alpha: 1.0, lambda: 0.9, epsilon: 0.01, p: 0.1, k_plus: 2}}\n\
         checks:\n  - {{table: summary, row: smc, column: accuracy, expected: 0.985, tolerance: {tolerance}}}\n\
         profiles: {{quick: {{}}, paper: {{}}}}\n"
    )
}

#[test]
fn check_against_expected_values() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let run = tmp.path().join("run");
    fake_run(&run, SUMMARY);
    let csv = tmp.path().join("expected.csv");
    std::fs::write(
        &csv,
        "table,row,column,expected,tolerance\nsummary,smc,accuracy,0.985,0.1\nconfusion,smc/b_to_a,b_to_a,16,0\n",
    )
    .expect("write");
    let (code, text) = check(&run, &csv);
    assert_eq!(code, 0, "{text}");
    std::fs::write(
        &csv,
        "table,row,column,expected,tolerance\nsummary,vb,accuracy,0.985,0.01\n",
    )
    .expect("write");
    let (code, text) = check(&run, &csv);
    assert_eq!(code, 1, "{text}");
    assert!(
        text.contains("| REGRESSION | summary | vb | accuracy | 0.985 |"),
        "{text}"
    );

    // The same through an experiment YAML's `checks:`.
    let yaml = tmp.path().join("exp.yaml");
    std::fs::write(&yaml, experiment_with_check("0.01")).expect("write");
    let (code, text) = check(&run, &yaml);
    assert_eq!(code, 1, "{text}");
    assert!(
        text.contains("| REGRESSION | summary | smc | accuracy | 0.985 |"),
        "{text}"
    );
}

#[test]
fn checks_key_errors_are_located() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let yaml = tmp.path().join("bad.yaml");
    std::fs::write(&yaml, experiment_with_check("-1")).expect("write");
    let out = causeway().arg("validate").arg(&yaml).output().expect("run");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("bad.yaml:8:") && err.contains("tolerance must be a finite number"),
        "{err}"
    );
}

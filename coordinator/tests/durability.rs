//! Durability and membership, with real processes: the `causeway` binary as coordinator and as
//! workers, killed with SIGKILL or stopped with SIGTERM mid-run. Whatever happens, every chain
//! is stored exactly once and the chain Parquet files and tables are byte-identical to those of
//! an uninterrupted run (the experiment's table, wood2006.fig3, has no wall-clock column).
// The signal tests send SIGTERM / SIGSTOP with libc::kill.
#![allow(unsafe_code)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

pub(crate) const BIN: &str = env!("CARGO_BIN_EXE_causeway");

/// A fig3-style grid: 3 cells × 2 replicates × 4 chains, each chain a fraction of a second.
pub(crate) const YAML: &str = r#"
name: durable
model: wood2006
seed: 11
chains: 4
replicates: 2
run: {iterations: 150, burn_in: 0, thin: 1}
params: {sampler: gibbs, alpha: 2.0, lambda: 0.9, epsilon: 0.01, p: 0.1, update_hyperparameters: false, k_new_max: 10, init: empty}
dataset: {kind: ibp_synthetic, n_observed: 10, n_trials: 200, alpha: 2.0, lambda: 0.9, epsilon: 0.01, p: 0.1, k_plus: 2}
grid:
  product:
    dataset.k_plus: [1, 3]
    params.sampler: [gibbs]
  zip:
    - params.init: [empty]
      params.init_k: [1]
monitor: [k_plus, log_joint]
report: [wood2006.fig3]
profiles: {quick: {replicates: 3}, paper: {}}
"#;

/// Fewer, slower chains (about a second each): a worker can be killed in the middle of one.
const SLOW_YAML: &str = r#"
name: durable_slow
model: wood2006
seed: 12
chains: 4
replicates: 1
run: {iterations: 2000, burn_in: 0, thin: 1}
params: {sampler: gibbs, alpha: 2.0, lambda: 0.9, epsilon: 0.01, p: 0.1, update_hyperparameters: false, k_new_max: 10, init: empty}
dataset: {kind: ibp_synthetic, n_observed: 10, n_trials: 500, alpha: 2.0, lambda: 0.9, epsilon: 0.01, p: 0.1, k_plus: 2}
grid:
  product:
    dataset.k_plus: [1, 3]
monitor: [k_plus, log_joint]
report: [wood2006.fig3]
profiles: {quick: {}, paper: {}}
"#;
const SLOW_CHAINS: usize = 8;

/// Two long chains (several seconds each), checkpointed every 200 iterations by the tests'
/// `--checkpoint-iterations 200`; the uninterrupted reference saves none (the default is every
/// 60 s), so equal files also show that checkpoints change nothing.
pub(crate) const LONG_YAML: &str = r#"
name: durable_long
model: wood2006
seed: 13
chains: 2
replicates: 1
run: {iterations: 12000, burn_in: 2000, thin: 10}
params: {sampler: gibbs, alpha: 2.0, lambda: 0.9, epsilon: 0.01, p: 0.1, update_hyperparameters: true, k_new_max: 10, init: empty}
dataset: {kind: ibp_synthetic, n_observed: 10, n_trials: 500, alpha: 2.0, lambda: 0.9, epsilon: 0.01, p: 0.1, k_plus: 2}
monitor: [k_plus, log_joint]
report: [wood2006.fig3]
profiles: {quick: {}, paper: {}}
"#;
const LONG_CHAINS: usize = 2;
const CHECKPOINTS: [&str; 2] = ["--checkpoint-iterations", "200"];

pub(crate) fn write_yaml(dir: &Path, text: &str) -> PathBuf {
    let p = dir.join("durable.yaml");
    std::fs::write(&p, text).expect("write yaml");
    p
}

pub(crate) fn run_cmd(yaml: &Path, out: &Path, extra: &[&str]) -> Command {
    let mut c = Command::new(BIN);
    c.arg("run")
        .arg(yaml)
        .arg("--out")
        .arg(out)
        .args(extra)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    c
}

pub(crate) fn check(out: &Output, what: &str) {
    assert!(
        out.status.success(),
        "{what} failed ({:?}):\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The uninterrupted run the tests compare with (run once per test binary and YAML).
fn reference(yaml: &str) -> &'static Path {
    static REF: OnceLock<tempfile::TempDir> = OnceLock::new();
    static SLOW_REF: OnceLock<tempfile::TempDir> = OnceLock::new();
    static LONG_REF: OnceLock<tempfile::TempDir> = OnceLock::new();
    let cell = match yaml {
        SLOW_YAML => &SLOW_REF,
        LONG_YAML => &LONG_REF,
        _ => &REF,
    };
    let dir = cell
        .get_or_init(|| {
            let tmp = tempfile::tempdir().expect("tempdir");
            let yaml = write_yaml(tmp.path(), yaml);
            let out = run_cmd(&yaml, &tmp.path().join("run"), &["--local-workers", "2"])
                .output()
                .expect("run causeway");
            check(&out, "reference run");
            tmp
        })
        .path()
        .join("run");
    Box::leak(dir.into_boxed_path())
}

/// Every deterministic file of a run directory: chains, datasets, tables and units (the
/// folders it has).
pub(crate) fn files(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    for sub in ["chains", "datasets", "tables", "units"] {
        let Ok(entries) = std::fs::read_dir(dir.join(sub)) else {
            continue;
        };
        for e in entries.flatten() {
            out.insert(
                format!("{sub}/{}", e.file_name().to_string_lossy()),
                std::fs::read(e.path()).expect("read"),
            );
        }
    }
    out
}

fn assert_same_as(dir: &Path, yaml: &str, chains: usize) {
    let (want, got) = (files(reference(yaml)), files(dir));
    assert_eq!(
        want.keys().collect::<Vec<_>>(),
        got.keys().collect::<Vec<_>>(),
        "file lists differ"
    );
    assert_eq!(
        want.keys()
            .filter(|k| k.starts_with("chains/") && k.ends_with(".trace.parquet"))
            .count(),
        chains,
        "one shard (a trace file, and a summary file for the larger summaries) per Gibbs chain \
         of these small plans"
    );
    for (k, v) in &want {
        assert!(got[k] == *v, "{k} differs from the uninterrupted run");
    }
}

/// `jobs.csv` rows as (job_id, state, attempts, worker).
fn jobs_csv(dir: &Path) -> Vec<(String, String, u32, String)> {
    let text = std::fs::read_to_string(dir.join("jobs.csv")).expect("jobs.csv");
    text.lines()
        .skip(1)
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            (
                f[0].to_string(),
                f[1].to_string(),
                f[2].parse().expect("attempts"),
                f[3].to_string(),
            )
        })
        .collect()
}

pub(crate) fn assert_n_done_once(dir: &Path, chains: usize) -> Vec<(String, String, u32, String)> {
    let rows = jobs_csv(dir);
    assert_eq!(rows.len(), chains);
    let mut ids: Vec<&String> = rows.iter().map(|r| &r.0).collect();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), chains, "duplicate rows in jobs.csv");
    for r in &rows {
        assert_eq!(r.1, "done", "{r:?}");
    }
    rows
}

pub(crate) fn wait_for(what: &str, timeout: Duration, mut cond: impl FnMut() -> bool) {
    let t = Instant::now();
    while !cond() {
        assert!(t.elapsed() < timeout, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Chains the job table says are stored (their results committed to its journal or sealed).
pub(crate) fn stored_chains(dir: &Path) -> usize {
    count_rows(dir, "state = 'done'")
}

/// Rows of the live job table matching `clause` (read-only, while the coordinator writes).
fn count_rows(dir: &Path, clause: &str) -> usize {
    let Ok(conn) = rusqlite::Connection::open_with_flags(
        dir.join("jobs.sqlite"),
        rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY,
    ) else {
        return 0;
    };
    conn.query_row(
        &format!("SELECT COUNT(*) FROM jobs WHERE {clause}"),
        [],
        |r| r.get::<_, i64>(0),
    )
    .map(|n| n as usize)
    .unwrap_or(0)
}

pub(crate) fn coordinator_url(dir: &Path) -> String {
    let path = dir.join("coordinator.url");
    wait_for("coordinator.url", Duration::from_secs(30), || path.exists());
    std::fs::read_to_string(&path)
        .expect("coordinator.url")
        .trim()
        .to_string()
}

/// `causeway run --local-workers 1 --listen 127.0.0.1:0 EXTRA...` and its coordinator URL.
fn listening_coordinator(yaml: &Path, out: &Path, extra: &[&str]) -> (Child, String) {
    let mut args = vec!["--local-workers", "1", "--listen", "127.0.0.1:0"];
    args.extend_from_slice(extra);
    let coord = run_cmd(yaml, out, &args)
        .spawn()
        .expect("spawn coordinator");
    (coord, coordinator_url(out))
}

pub(crate) fn spawn_worker(url: &str) -> Child {
    Command::new(BIN)
        .args(["worker", "--listen", "127.0.0.1:0", "--slots", "1"])
        .args([
            "--coordinator",
            url,
            "--register-every",
            "0.2",
            "--heartbeat",
            "0.2",
        ])
        .args(["--give-up-after", "5"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn worker")
}

/// A run with a listening coordinator (`--lease-timeout` etc. in `extra`) and one remote worker
/// that is running a chain when this returns: (temp dir, run dir, coordinator, worker).
fn remote_chain_running(yaml: &str, extra: &[&str]) -> (tempfile::TempDir, PathBuf, Child, Child) {
    let tmp = tempfile::tempdir().expect("tempdir");
    let yaml = write_yaml(tmp.path(), yaml);
    let out = tmp.path().join("run");
    let (coord, url) = listening_coordinator(&yaml, &out, extra);
    let worker = spawn_worker(&url);
    wait_for(
        "a chain running on the remote worker",
        Duration::from_secs(60),
        || count_rows(&out, "state = 'running' AND worker NOT LIKE 'local-%'") > 0,
    );
    (tmp, out, coord, worker)
}

/// Everything `child` wrote to its (piped) stderr.
fn stderr_text(child: &mut Child) -> String {
    let mut text = String::new();
    if let Some(mut e) = child.stderr.take() {
        let _ = std::io::Read::read_to_string(&mut e, &mut text);
    }
    text
}

pub(crate) fn wait_exit(child: &mut Child, timeout: Duration) -> std::process::ExitStatus {
    let t = Instant::now();
    loop {
        if let Some(st) = child.try_wait().expect("wait") {
            return st;
        }
        if t.elapsed() > timeout {
            let _ = child.kill();
            panic!("process did not exit within {timeout:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn sigterm(child: &Child) {
    send_signal(child, libc::SIGTERM)
}

pub(crate) fn send_signal(child: &Child, sig: libc::c_int) {
    let pid = libc::pid_t::try_from(child.id()).expect("pid");
    // SAFETY: kill(2) on the pid of a child we spawned and have not reaped.
    let rc = unsafe { libc::kill(pid, sig) };
    assert_eq!(rc, 0, "kill({sig})");
}

#[test]
fn coordinator_killed_then_rerun_resumes_byte_identical() {
    let tmp = tempfile::tempdir().expect("tempdir");
    // Chains of about a second: the whole 24-chain grid takes 0.1 s, over before a kill.
    let yaml = write_yaml(tmp.path(), SLOW_YAML);
    let out = tmp.path().join("run");
    let mut first = run_cmd(&yaml, &out, &["--local-workers", "2"])
        .spawn()
        .expect("spawn");
    wait_for("a few chains stored", Duration::from_secs(60), || {
        stored_chains(&out) >= 2
    });
    first.kill().expect("SIGKILL the coordinator");
    let _ = first.wait();
    let stored_before = stored_chains(&out);
    assert!(
        stored_before < SLOW_CHAINS,
        "killed too late to test resume"
    );

    let second = run_cmd(&yaml, &out, &["--local-workers", "2"])
        .output()
        .expect("rerun");
    check(&second, "resumed run");
    let err = String::from_utf8_lossy(&second.stderr);
    // "<total> chains: <ran> run, <skipped> already stored, 0 failed"
    let line = err
        .lines()
        .find(|l| l.contains("already stored"))
        .unwrap_or_else(|| panic!("no summary line in:\n{err}"));
    let nums: Vec<usize> = line
        .split(|c: char| !c.is_ascii_digit())
        .filter_map(|w| w.parse().ok())
        .collect();
    let (ran, skipped) = (nums[1], nums[2]);
    assert_eq!(ran + skipped, SLOW_CHAINS, "{line}");
    assert!(
        skipped >= stored_before,
        "{line}: {stored_before} were stored"
    );
    assert_n_done_once(&out, SLOW_CHAINS);
    assert_same_as(&out, SLOW_YAML, SLOW_CHAINS);

    // `status` on the finished run.
    let st = Command::new(BIN)
        .arg("status")
        .arg(&out)
        .output()
        .expect("status");
    check(&st, "status");
    let text = String::from_utf8_lossy(&st.stdout);
    assert!(text.contains(&format!("done {SLOW_CHAINS}")), "{text}");
}

#[test]
fn worker_killed_mid_chain_is_replaced() {
    let (_tmp, out, mut coord, mut worker) =
        remote_chain_running(SLOW_YAML, &["--lease-timeout", "2"]);
    worker.kill().expect("SIGKILL the worker");
    let _ = worker.wait();
    // `status` works while the run goes on.
    let st = Command::new(BIN)
        .arg("status")
        .arg(&out)
        .output()
        .expect("status");
    check(&st, "status while running");
    assert!(String::from_utf8_lossy(&st.stdout).contains("running"));
    let status = wait_exit(&mut coord, Duration::from_secs(120));
    let err = stderr_text(&mut coord);
    assert!(status.success(), "coordinator: {status:?}\n{err}");
    let rows = assert_n_done_once(&out, SLOW_CHAINS);
    assert!(
        rows.iter().any(|r| r.2 >= 2),
        "the killed worker's chain needed a second attempt: {rows:?}"
    );
    assert_same_as(&out, SLOW_YAML, SLOW_CHAINS);
}

#[test]
fn worker_joining_mid_run_takes_chains() {
    let tmp = tempfile::tempdir().expect("tempdir");
    // The slow chains (about a second each): on a loaded machine the 24 quick ones could all be
    // done by the one local worker before the joining worker had registered.
    let yaml = write_yaml(tmp.path(), SLOW_YAML);
    let out = tmp.path().join("run");
    let (mut coord, url) = listening_coordinator(&yaml, &out, &[]);
    wait_for("a first chain stored", Duration::from_secs(60), || {
        stored_chains(&out) >= 1
    });
    let mut worker = spawn_worker(&url);
    let status = wait_exit(&mut coord, Duration::from_secs(120));
    assert!(status.success(), "coordinator: {status:?}");
    // The worker learns that the run is finished and exits 0 by itself.
    let ws = wait_exit(&mut worker, Duration::from_secs(20));
    assert!(ws.success(), "worker: {ws:?}");
    let rows = assert_n_done_once(&out, SLOW_CHAINS);
    assert!(
        rows.iter().any(|r| !r.3.starts_with("local-")),
        "the joining worker ran some chains: {rows:?}"
    );
    assert!(rows.iter().any(|r| r.3.starts_with("local-")));
    assert_same_as(&out, SLOW_YAML, SLOW_CHAINS);
}

#[test]
fn worker_drains_on_sigterm() {
    // The slow chains (about a second each): with the quick ones, on a loaded machine the local
    // worker could finish every chain before the remote worker had one running.
    let (_tmp, out, mut coord, mut worker) = remote_chain_running(SLOW_YAML, &[]);
    sigterm(&worker);
    let ws = wait_exit(&mut worker, Duration::from_secs(30));
    let werr = stderr_text(&mut worker);
    assert!(ws.success(), "drained worker: {ws:?}\n{werr}");
    assert!(werr.contains("draining"), "{werr}");
    let status = wait_exit(&mut coord, Duration::from_secs(120));
    assert!(status.success(), "coordinator: {status:?}");
    let rows = assert_n_done_once(&out, SLOW_CHAINS);
    // The chain in flight finished on the draining worker: nothing it ran was run twice.
    let remote: Vec<_> = rows.iter().filter(|r| !r.3.starts_with("local-")).collect();
    assert!(!remote.is_empty(), "{rows:?}");
    assert!(remote.iter().all(|r| r.2 == 1), "{remote:?}");
    assert_same_as(&out, SLOW_YAML, SLOW_CHAINS);
}

#[test]
fn coordinator_sigterm_or_sighup_stops_cleanly_and_resumes() {
    // SIGHUP (a closed terminal, a batch system's hang-up) stops the run as SIGTERM does.
    for sig in [libc::SIGTERM, libc::SIGHUP] {
        stops_cleanly_on(sig);
    }
}

fn stops_cleanly_on(sig: libc::c_int) {
    let tmp = tempfile::tempdir().expect("tempdir");
    // Chains of about a second: the whole 24-chain grid takes 0.1 s, over before a signal.
    let yaml = write_yaml(tmp.path(), SLOW_YAML);
    let out = tmp.path().join("run");
    let mut first = run_cmd(&yaml, &out, &["--local-workers", "1"])
        .spawn()
        .expect("spawn");
    wait_for("a first chain stored", Duration::from_secs(60), || {
        stored_chains(&out) >= 1
    });
    send_signal(&first, sig);
    let st = wait_exit(&mut first, Duration::from_secs(30));
    let err = stderr_text(&mut first);
    assert_eq!(
        st.code(),
        Some(130),
        "signal {sig}: a stopped run exits 130"
    );
    assert!(err.contains("again to resume"), "{err}");
    let rows = jobs_csv(&out);
    let done = rows.iter().filter(|r| r.1 == "done").count();
    assert!((1..SLOW_CHAINS).contains(&done), "{rows:?}");
    // What is not stored is pending (not "lost", not "running"), and status lists no failures.
    assert!(
        rows.iter().all(|r| r.1 == "done" || r.1 == "pending"),
        "{rows:?}"
    );
    let status = Command::new(BIN)
        .arg("status")
        .arg(&out)
        .output()
        .expect("causeway status");
    let status = String::from_utf8_lossy(&status.stdout);
    assert!(!status.contains("failures"), "{status}");
    assert!(
        status.contains("running 0,") && status.contains("failed 0, lost 0\n"),
        "{status}"
    );
    let second = run_cmd(&yaml, &out, &["--local-workers", "2"])
        .output()
        .expect("rerun");
    check(&second, "resumed run");
    assert_n_done_once(&out, SLOW_CHAINS);
    assert_same_as(&out, SLOW_YAML, SLOW_CHAINS);
}

/// A run-time model failure: a Tuebingen-format pair whose values (±1e300, not standardised)
/// pass validation and loading but make the VB posterior degenerate. The good pair's chains
/// complete; the bad pair's are marked failed after the cap, with the reason, and the run exits
/// non-zero.
#[test]
fn model_failure_is_failed_after_the_cap() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let data = tmp.path().join("data");
    std::fs::create_dir_all(data.join("cep")).expect("mkdir");
    let huge = "1e300 -1e300 3e300 -2e300 5e299 1e300 -4e300 2e300";
    let fine = "0.1 0.5 -0.3 1.2 0.8 -0.7 0.05 0.9";
    std::fs::write(
        data.join("cep/pairs.csv"),
        format!("SampleID,A,B\npair1,{huge},{huge}\npair2,{fine},{fine}\n"),
    )
    .expect("write pairs");
    std::fs::write(
        data.join("cep/meta.csv"),
        "cdt_id,original_id,original_orientation,weight_v1,weight_thesis,in_thesis_set,dataset,cause_label,effect_label\n\
         pair1,pair0001,->,1,1,1,T,a,b\npair2,pair0002,->,1,1,1,T,c,d\n",
    )
    .expect("write meta");
    let yaml = write_yaml(
        tmp.path(),
        "name: mf\nmodel: kurutmaz2019\nseed: 3\nchains: 2\nreplicates: 1\nrun: {iterations: 5}\n\
         params: {method: vb, hypothesis: a_to_b, n_latent: 2, setting: 1, n_restarts: 1}\n\
         dataset: {kind: cep, pair: pair1, path: cep/pairs.csv, meta_path: cep/meta.csv, standardize: false}\n\
         grid: {product: {dataset.pair: [pair1, pair2]}}\nmonitor: []\nprofiles: {quick: {}, paper: {}}\n",
    );
    let valid = Command::new(BIN)
        .arg("validate")
        .arg(&yaml)
        .arg("--data-dir")
        .arg(&data)
        .output()
        .expect("validate");
    check(&valid, "validate");
    let out = tmp.path().join("run");
    let data_arg = data.to_string_lossy().into_owned();
    let run = run_cmd(
        &yaml,
        &out,
        &["--local-workers", "2", "--data-dir", &data_arg],
    )
    .output()
    .expect("run");
    assert_eq!(run.status.code(), Some(1), "{run:?}");
    let err = String::from_utf8_lossy(&run.stderr);
    assert!(err.contains("degenerate"), "{err}");
    let rows = jobs_csv(&out);
    assert_eq!(rows.len(), 4);
    for r in &rows {
        if r.0.starts_with("cell0") {
            // A deterministic model failure is not retried: one attempt, not --max-attempts.
            assert_eq!((r.1.as_str(), r.2), ("failed", 1), "{r:?}");
        } else {
            assert_eq!(r.1, "done", "{r:?}");
        }
    }
    let text = std::fs::read_to_string(out.join("jobs.csv")).expect("jobs.csv");
    assert!(text.contains("degenerate"), "{text}");
    let st = Command::new(BIN)
        .arg("status")
        .arg(&out)
        .output()
        .expect("status");
    check(&st, "status");
    let s = String::from_utf8_lossy(&st.stdout);
    assert!(s.contains("failed 2") && s.contains("degenerate"), "{s}");
}

/// A worker that hangs (SIGSTOP: its connections stay open, its stream goes silent) loses its
/// lease after `--lease-timeout`; the chain is run elsewhere and the run completes.
#[test]
fn hung_worker_loses_its_lease() {
    let (_tmp, out, mut coord, mut worker) =
        remote_chain_running(SLOW_YAML, &["--lease-timeout", "1.5"]);
    let pid = libc::pid_t::try_from(worker.id()).expect("pid");
    // SAFETY: kill(2) on the pid of a child we spawned and have not reaped.
    assert_eq!(
        unsafe { libc::kill(pid, libc::SIGSTOP) },
        0,
        "kill(SIGSTOP)"
    );
    let status = wait_exit(&mut coord, Duration::from_secs(120));
    worker.kill().expect("SIGKILL the stopped worker");
    let _ = worker.wait();
    assert!(status.success(), "coordinator: {status:?}");
    let text = std::fs::read_to_string(out.join("jobs.csv")).expect("jobs.csv");
    let rows = assert_n_done_once(&out, SLOW_CHAINS);
    assert!(
        rows.iter().any(|r| r.2 >= 2),
        "a chain was retried:\n{text}"
    );
    assert_same_as(&out, SLOW_YAML, SLOW_CHAINS);
}

/// A worker whose token the coordinator refuses says so at once and gives up with a non-zero
/// exit (it used to retry silently forever, logging nothing until SIGTERM).
#[test]
fn a_worker_with_a_wrong_token_says_so_and_exits_non_zero() {
    let dir = tempfile::tempdir().expect("tempdir");
    // Chains long enough that the run is still going when the worker knocks.
    let yaml = write_yaml(
        dir.path(),
        &SLOW_YAML.replace("iterations: 2000,", "iterations: 200000,"),
    );
    let out = dir.path().join("run");
    let mut coord = run_cmd(
        &yaml,
        &out,
        &["--local-workers", "1", "--listen", "127.0.0.1:0"],
    )
    .env("CAUSEWAY_TOKEN", "the-right-token-0123456789")
    .spawn()
    .expect("spawn coordinator");
    let url = coordinator_url(&out);
    let start = Instant::now();
    let worker = Command::new(BIN)
        .args(["worker", "--listen", "127.0.0.1:0", "--slots", "1"])
        .args(["--coordinator", &url, "--register-every", "0.2"])
        .env("CAUSEWAY_TOKEN", "a-wrong-token-9876543210")
        .stdin(Stdio::null())
        .output()
        .expect("run worker");
    let waited = start.elapsed();
    let _ = coord.kill();
    let _ = coord.wait();
    let err = String::from_utf8_lossy(&worker.stderr);
    assert_ne!(worker.status.code(), Some(0), "{err}");
    assert!(err.contains("refused this worker's credentials"), "{err}");
    assert!(err.contains("authentication credentials"), "{err}");
    assert!(
        !err.contains("a-wrong-token"),
        "the token is never printed: {err}"
    );
    assert!(waited < Duration::from_secs(30), "gave up after {waited:?}");
}

/// A single number from the live job table (read-only, while the coordinator writes).
pub(crate) fn query_f64(dir: &Path, sql: &str) -> Option<f64> {
    let conn = rusqlite::Connection::open_with_flags(
        dir.join("jobs.sqlite"),
        rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY,
    )
    .ok()?;
    conn.query_row(sql, [], |r| r.get::<_, Option<f64>>(0))
        .ok()
        .flatten()
}

/// Run `yaml` into `out` with `args` and kill the coordinator with SIGKILL once each of its
/// `chains` chains has a stored checkpoint at iteration `at` or later, before any has finished.
pub(crate) fn kill_when_checkpointed(
    yaml: &Path,
    out: &Path,
    args: &[&str],
    at: u64,
    chains: usize,
) {
    let mut first = run_cmd(yaml, out, args).spawn().expect("spawn");
    let sql = format!("SELECT COUNT(*) FROM checkpoints WHERE iteration >= {at}");
    wait_for(
        "checkpoints of every chain",
        Duration::from_secs(120),
        || query_f64(out, &sql).is_some_and(|n| n >= chains as f64),
    );
    first.kill().expect("SIGKILL the coordinator");
    let _ = first.wait();
    assert_eq!(
        stored_chains(out),
        0,
        "killed too late: a chain had finished"
    );
}

/// Copy a run directory (or any tree of plain files).
pub(crate) fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for e in std::fs::read_dir(from).expect("read dir").flatten() {
        let target = to.join(e.file_name());
        if e.file_type().expect("file type").is_dir() {
            copy_dir(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), &target).expect("copy");
        }
    }
}

/// A run directory's shards' trace files, sorted (one chain each in these small plans).
pub(crate) fn trace_files(dir: &Path) -> Vec<PathBuf> {
    let mut traces: Vec<PathBuf> = std::fs::read_dir(dir.join("chains"))
        .expect("chains")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.to_string_lossy().ends_with(".trace.parquet"))
        .collect();
    traces.sort();
    traces
}

fn unix_now() -> f64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("clock")
        .as_secs_f64()
}

/// a worker killed with SIGKILL in the middle of a long chain, after a checkpoint;
/// the chain resumes from it on the other worker, and the run is byte-identical to an
/// uninterrupted one (which saved no checkpoint).
#[test]
fn a_worker_killed_mid_chain_resumes_from_its_checkpoint() {
    let mut extra = vec!["--lease-timeout", "2"];
    extra.extend(CHECKPOINTS);
    let (_tmp, out, mut coord, mut worker) = remote_chain_running(LONG_YAML, &extra);
    let on_remote = "SELECT MAX(c.iteration) FROM checkpoints c JOIN jobs j ON c.idx = j.idx \
                     WHERE j.state = 'running' AND j.worker NOT LIKE 'local-%'";
    wait_for(
        "a checkpoint of the remote worker's chain",
        Duration::from_secs(60),
        || query_f64(&out, on_remote).is_some_and(|it| it >= 1000.0),
    );
    worker.kill().expect("SIGKILL the worker");
    let killed_at = unix_now();
    let _ = worker.wait();
    let status = wait_exit(&mut coord, Duration::from_secs(180));
    let err = stderr_text(&mut coord);
    assert!(status.success(), "coordinator: {status:?}\n{err}");
    assert_n_done_once(&out, LONG_CHAINS);
    let resumed_at = query_f64(&out, "SELECT MAX(iteration) FROM resumes")
        .expect("the killed chain resumed from a checkpoint");
    assert!(resumed_at >= 1000.0, "resumed at iteration {resumed_at}");
    let saved = query_f64(&out, "SELECT MAX(checkpoint_saved) FROM resumes").expect("saved");
    eprintln!(
        "worker killed: resumed at iteration {resumed_at}; work lost {:.2} s (kill − last checkpoint)",
        killed_at - saved
    );
    assert_same_as(&out, LONG_YAML, LONG_CHAINS);
}

/// the coordinator (and with it its local workers) killed with SIGKILL while two long
/// chains run; the rerun resumes both from their stored checkpoints, byte-identical.
#[test]
fn a_killed_coordinator_resumes_long_chains_from_their_checkpoints() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let yaml = write_yaml(tmp.path(), LONG_YAML);
    let out = tmp.path().join("run");
    let mut args = vec!["--local-workers", "2"];
    args.extend(CHECKPOINTS);
    kill_when_checkpointed(&yaml, &out, &args, 1000, LONG_CHAINS);

    let second = run_cmd(&yaml, &out, &args).output().expect("rerun");
    check(&second, "resumed run");
    let err = String::from_utf8_lossy(&second.stderr);
    assert!(
        err.contains("2 chains resume from their checkpoints"),
        "{err}"
    );
    assert_eq!(
        query_f64(&out, "SELECT COUNT(*) FROM resumes WHERE iteration >= 1000"),
        Some(2.0)
    );
    assert_eq!(
        query_f64(&out, "SELECT COUNT(*) FROM checkpoints"),
        Some(0.0),
        "a done chain keeps no checkpoint"
    );
    assert_n_done_once(&out, LONG_CHAINS);
    assert_same_as(&out, LONG_YAML, LONG_CHAINS);
}

/// A worker whose `--advertise` address is wrong (nothing listens there) is told so by the
/// coordinator at its next registration, and logs it: it does not idle silently.
#[test]
fn a_worker_advertising_a_wrong_address_is_told() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let yaml = write_yaml(tmp.path(), SLOW_YAML);
    let out = tmp.path().join("run");
    let (mut coord, url) = listening_coordinator(&yaml, &out, &[]);
    let mut worker = Command::new(BIN)
        .args([
            "worker",
            "--listen",
            "127.0.0.1:0",
            "--advertise",
            "127.0.0.1:9",
        ])
        .args(["--coordinator", &url, "--register-every", "0.2"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn worker");
    std::thread::sleep(Duration::from_secs(2));
    sigterm(&worker);
    let _ = wait_exit(&mut worker, Duration::from_secs(30));
    let err = stderr_text(&mut worker);
    assert!(
        err.contains("could not connect back to 127.0.0.1:9 (check --advertise)"),
        "{err}"
    );
    let _ = coord.kill();
    let _ = coord.wait();
}

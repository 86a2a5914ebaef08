//! A run directory's integrity: what a directory holds is established before anything
//! is adopted (the run identity lives in jobs.sqlite, not only in manifest.json), one run at a
//! time holds a directory (a lock naming its owner), and a damaged chain file is run again.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

const BIN: &str = env!("CARGO_BIN_EXE_causeway");

/// 2 cells × 1 replicate × 2 chains, each chain a few milliseconds.
const YAML: &str = r#"
name: integrity
model: wood2006
seed: 21
chains: 2
replicates: 1
run: {iterations: 30}
params: {sampler: gibbs, alpha: 2.0, lambda: 0.9, epsilon: 0.01, p: 0.1, init: empty}
dataset: {kind: ibp_synthetic, n_observed: 6, n_trials: 40, alpha: 2.0, lambda: 0.9, epsilon: 0.01, p: 0.1, k_plus: 2}
grid:
  product:
    dataset.k_plus: [1, 2]
monitor: [k_plus]
report: [wood2006.fig3]
profiles: {quick: {}, paper: {}}
"#;

fn yaml(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).expect("write yaml");
    p
}

fn run(yaml: &Path, out: &Path) -> Output {
    Command::new(BIN)
        .arg("run")
        .arg(yaml)
        .arg("--out")
        .arg(out)
        .args(["--local-workers", "1"])
        .stdin(Stdio::null())
        .output()
        .expect("run causeway")
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

#[test]
fn a_lost_manifest_does_not_let_another_experiment_adopt_the_chains() {
    let dir = tempfile::tempdir().expect("tempdir");
    let y = yaml(dir.path(), "a.yaml", YAML);
    let out = dir.path().join("R");
    let first = run(&y, &out);
    assert_eq!(first.status.code(), Some(0), "{}", text(&first));
    std::fs::remove_file(out.join("manifest.json")).expect("rm manifest");
    // Another seed: other chains. On main this printed "0 run, 4 already stored", rc 0.
    let other = yaml(dir.path(), "b.yaml", &YAML.replace("seed: 21", "seed: 7"));
    let refused = run(&other, &out);
    assert_ne!(refused.status.code(), Some(0), "{}", text(&refused));
    assert!(
        text(&refused).contains("another experiment"),
        "{}",
        text(&refused)
    );
    // The same experiment resumes: nothing to run, the manifest is written again.
    let again = run(&y, &out);
    assert_eq!(again.status.code(), Some(0), "{}", text(&again));
    assert!(
        text(&again).contains("0 run, 4 already stored"),
        "{}",
        text(&again)
    );
    assert!(out.join("manifest.json").exists());
}

#[test]
fn a_directory_in_use_is_refused_naming_its_owner_and_released_when_the_owner_ends() {
    let dir = tempfile::tempdir().expect("tempdir");
    let y = yaml(dir.path(), "a.yaml", YAML);
    let out = dir.path().join("R");
    std::fs::create_dir_all(&out).expect("mkdir");
    let lock = causeway_coordinator::runner::lock_run_dir(&out).expect("lock");
    let refused = run(&y, &out);
    assert_ne!(refused.status.code(), Some(0), "{}", text(&refused));
    let msg = text(&refused);
    assert!(msg.contains("in use by another causeway run"), "{msg}");
    assert!(
        msg.contains(&format!("PID {}", std::process::id())),
        "names the owner: {msg}"
    );
    assert!(
        !out.join("chains").exists()
            || std::fs::read_dir(out.join("chains")).map_or(0, |d| d.count()) == 0
    );
    drop(lock);
    let ok = run(&y, &out);
    assert_eq!(ok.status.code(), Some(0), "{}", text(&ok));
}

#[test]
fn a_damaged_chain_file_is_run_again_with_a_warning() {
    let dir = tempfile::tempdir().expect("tempdir");
    let y = yaml(dir.path(), "a.yaml", YAML);
    let out = dir.path().join("R");
    let first = run(&y, &out);
    assert_eq!(first.status.code(), Some(0), "{}", text(&first));
    // 4 jobs: a shard each, in plan order (cell1-rep0-chain1 is the fourth).
    let trace = out.join("chains/shard-00003.trace.parquet");
    let good = std::fs::read(&trace).expect("read trace");
    // 300 bytes of noise in place of the file (deterministic, not /dev/urandom).
    let noise: Vec<u8> = (0..300u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    std::fs::write(&trace, &noise).expect("corrupt");
    let again = run(&y, &out);
    assert_eq!(again.status.code(), Some(0), "{}", text(&again));
    let msg = text(&again);
    assert!(
        msg.contains("shard-00003") && msg.contains("cell1-rep0-chain1") && msg.contains("damaged"),
        "{msg}"
    );
    assert!(msg.contains("1 run, 3 already stored"), "{msg}");
    assert_eq!(
        std::fs::read(&trace).expect("read"),
        good,
        "rerun is byte-identical"
    );
    // A truncated file is caught too.
    std::fs::write(&trace, &good[..good.len() - 5]).expect("truncate");
    rerun_expecting(&y, &out, "1 run, 3 already stored", &trace, &good);
}

/// Run again: it must succeed, say `summary` ("<ran> run, <n> already stored") and leave
/// `trace` byte-identical to `good`.
fn rerun_expecting(y: &Path, out: &Path, summary: &str, trace: &Path, good: &[u8]) {
    let again = run(y, out);
    assert_eq!(again.status.code(), Some(0), "{}", text(&again));
    assert!(text(&again).contains(summary), "{}", text(&again));
    assert_eq!(std::fs::read(trace).expect("read"), good);
}

/// A process killed between writing a shard's temporary file and renaming it leaves
/// `<file>.tmp` behind; the resumed run removes it (it holds the directory's lock, so no other
/// writer can own it) and does not count it as a stored chain.
#[test]
fn a_killed_writers_temporary_files_are_removed_on_resume() {
    let dir = tempfile::tempdir().expect("tempdir");
    let y = yaml(dir.path(), "a.yaml", YAML);
    let out = dir.path().join("R");
    let first = run(&y, &out);
    assert_eq!(first.status.code(), Some(0), "{}", text(&first));
    let trace1 = out.join("chains/shard-00003.trace.parquet");
    let trace = out.join("chains/shard-00000.trace.parquet");
    let good = std::fs::read(&trace).expect("read trace");
    let good1 = std::fs::read(&trace1).expect("read trace");
    // The state a kill -9 mid-write leaves: the final file missing, its temporary half-written;
    // and a temporary of a chain that is stored (a second copy of it, from a chain whose lease
    // expired, was being written), which no rerun overwrites.
    let leftovers = [
        out.join("chains/shard-00003.trace.parquet.tmp"),
        out.join("chains/shard-00000.trace.parquet.tmp"),
    ];
    std::fs::rename(&trace1, &leftovers[0]).expect("rename");
    std::fs::write(&leftovers[1], &good[..good.len() / 2]).expect("write tmp");
    let again = run(&y, &out);
    assert_eq!(again.status.code(), Some(0), "{}", text(&again));
    assert!(
        text(&again).contains("1 run, 3 already stored"),
        "{}",
        text(&again)
    );
    for tmp in &leftovers {
        assert!(!tmp.exists(), "{} was left behind", tmp.display());
    }
    assert_eq!(std::fs::read(&trace).expect("read"), good);
    assert_eq!(std::fs::read(&trace1).expect("read"), good1);
}

/// `causeway status` on a finished run says so (its rate no longer decays with the clock and it
/// shows no time left); while a run holds the directory it reports it running.
#[test]
fn status_knows_a_finished_run_from_a_running_one() {
    let dir = tempfile::tempdir().expect("tempdir");
    let y = yaml(dir.path(), "a.yaml", YAML);
    let out = dir.path().join("R");
    let first = run(&y, &out);
    assert_eq!(first.status.code(), Some(0), "{}", text(&first));
    let status = || {
        let o = Command::new(BIN)
            .arg("status")
            .arg(&out)
            .output()
            .expect("status");
        text(&o)
    };
    let s = status();
    assert!(s.contains("finished"), "{s}");
    assert!(!s.contains("time left"), "{s}");
    let lock = causeway_coordinator::runner::lock_run_dir(&out).expect("lock");
    let s = status();
    assert!(s.contains("running"), "{s}");
    drop(lock);
}

/// A stored chain whose row does not say done and whose timing is missing (a job table that lost
/// its last transactions, as a power cut under WAL + NORMAL can): the resumed run adopts the
/// results (nothing is run again) and the cost table counts the chain apart, as one whose
/// seconds were lost.
#[test]
fn a_chain_stored_without_its_timing_is_kept_and_counted_untimed() {
    let dir = tempfile::tempdir().expect("tempdir");
    let y = yaml(dir.path(), "a.yaml", YAML);
    let out = dir.path().join("R");
    let first = run(&y, &out);
    assert_eq!(first.status.code(), Some(0), "{}", text(&first));
    let id = "cell1-rep0-chain1";
    let trace = out.join("chains/shard-00003.trace.parquet");
    let good = std::fs::read(&trace).expect("read trace");
    let rd = causeway_results::rundir::RunDir::open(&out);
    let stored = rd
        .read_timing(id)
        .expect("read")
        .expect("timing stored with the row");
    assert_eq!(stored.iterations.len(), 30, "one timing per iteration");
    assert_eq!(stored.elapsed_seconds.len(), 30);
    {
        let conn = rusqlite::Connection::open(out.join("jobs.sqlite")).expect("open");
        conn.execute("DELETE FROM timing WHERE job_id = ?1", [id])
            .expect("delete");
        conn.execute("UPDATE jobs SET state = 'running' WHERE job_id = ?1", [id])
            .expect("update");
    }
    rerun_expecting(&y, &out, "0 run, 4 already stored", &trace, &good);
    assert!(rd.read_timing(id).expect("read").is_none());
    let cost = std::fs::read_to_string(out.join("cost.md")).expect("cost.md");
    assert!(
        cost.contains("1 stored chains have no timing") && cost.contains("3 stored chains,"),
        "{cost}"
    );
}

/// A job table SQLite cannot use says what is wrong and what to do: an empty file is "not a
/// causeway job table" (`status`), a damaged one tells the user to move it aside, and doing so
/// adopts every stored chain (nothing runs again).
#[test]
fn a_damaged_job_table_says_what_to_do() {
    let dir = tempfile::tempdir().expect("tempdir");
    let y = yaml(dir.path(), "e.yaml", YAML);
    let out = dir.path().join("run");
    let first = run(&y, &out);
    assert!(first.status.success(), "{}", text(&first));
    let db = out.join("jobs.sqlite");
    for side in ["jobs.sqlite-wal", "jobs.sqlite-shm"] {
        let _ = std::fs::remove_file(out.join(side));
    }
    let good = std::fs::read(&db).expect("db");
    std::fs::write(&db, b"").expect("empty the table");
    let st = Command::new(BIN)
        .arg("status")
        .arg(&out)
        .output()
        .expect("status");
    assert!(!st.status.success());
    assert!(
        text(&st).contains("not a causeway job table"),
        "{}",
        text(&st)
    );

    let mut bad = good.clone();
    bad[100..4096].fill(0xff);
    std::fs::write(&db, &bad).expect("damage the table");
    let second = run(&y, &out);
    assert!(!second.status.success());
    assert!(
        text(&second).contains("move jobs.sqlite aside"),
        "{}",
        text(&second)
    );
    std::fs::rename(&db, out.join("jobs.sqlite.damaged")).expect("move aside");
    let third = run(&y, &out);
    assert!(third.status.success(), "{}", text(&third));
    assert!(
        text(&third).contains("0 run, 4 already stored"),
        "{}",
        text(&third)
    );
}

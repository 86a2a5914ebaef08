//! SIGKILL at random moments of a real paper grid: thesis 003's Cause-Effect Pairs
//! (`experiments/kurutmaz2019/cep.yaml`, quick profile: 1,296 one-shot SMC and VB chains, with
//! the real summaries, sample statistics and larger summary matrices). The coordinator is
//! killed ten times, at moments drawn from a seeded stream (a share of the chains stored, then a
//! few milliseconds more, and once after every chain was stored, while shards are sealed and
//! tables written), then remote workers are killed and replaced mid-run. Every resume must end
//! with the uninterrupted run's chains, datasets, tables and units, byte for byte, each chain
//! stored once.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use crate::durability::{
    BIN, assert_n_done_once, coordinator_url, files, spawn_worker, stored_chains, wait_exit,
    wait_for,
};

const CHAINS: usize = 1296;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// `causeway run` of the CEP grid into `out`, its stderr appended to `out`'s `.log` beside it
/// (a pipe nobody reads until the end could fill and stall it).
fn cep_run(out: &Path, extra: &[&str]) -> Command {
    let log = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(out.with_extension("log"))
        .expect("log");
    let mut c = Command::new(BIN);
    c.current_dir(repo())
        .arg("run")
        .arg("experiments/kurutmaz2019/cep.yaml")
        .arg("--out")
        .arg(out)
        .args(extra)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(log);
    c
}

fn log(out: &Path) -> String {
    std::fs::read_to_string(out.with_extension("log")).unwrap_or_default()
}

/// SplitMix64: the kill moments' seeded stream.
struct Moments(u64);

impl Moments {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

fn assert_same_files(got: &Path, want: &Path, what: &str) {
    let (want, got) = (files(want), files(got));
    assert_eq!(
        want.keys().collect::<Vec<_>>(),
        got.keys().collect::<Vec<_>>(),
        "{what}: file lists differ"
    );
    assert!(
        want.keys().any(|k| k.ends_with(".summary.arrow")),
        "the grid stores larger summary matrices in summary files"
    );
    for (k, v) in &want {
        assert!(
            got[k] == *v,
            "{what}: {k} differs from the uninterrupted run"
        );
    }
}

fn reference(tmp: &Path) -> PathBuf {
    let out = tmp.join("reference");
    let o = cep_run(&out, &["--local-workers", "2"])
        .status()
        .expect("reference run");
    assert!(o.success(), "uninterrupted run: {o:?}\n{}", log(&out));
    out
}

#[test]
fn kurutmaz2019_cep_killed_ten_times_resumes_byte_identical() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let want = reference(tmp.path());
    let out = tmp.path().join("killed");
    let mut moments = Moments(2019);
    // Ten kills: nine at increasing shares of the chains stored, then one after all are.
    let mut shares: Vec<usize> = (0..9)
        .map(|_| 1 + moments.below(CHAINS as u64 - 1) as usize)
        .collect();
    shares.sort_unstable();
    shares.push(CHAINS);
    let mut killed_running = 0;
    for &at in &shares {
        let mut run = cep_run(&out, &["--local-workers", "2"])
            .spawn()
            .expect("spawn");
        wait_for("the kill moment", Duration::from_secs(120), || {
            stored_chains(&out) >= at || run.try_wait().ok().flatten().is_some()
        });
        std::thread::sleep(Duration::from_millis(moments.below(30)));
        if run.try_wait().expect("wait").is_none() {
            killed_running += 1;
        }
        let _ = run.kill();
        let _ = run.wait();
    }
    eprintln!("{killed_running} of 10 kills landed while the run went on: {shares:?}");
    assert!(
        killed_running >= 5,
        "only {killed_running} of 10 kills landed while the run went on"
    );
    let o = cep_run(&out, &["--local-workers", "2"])
        .status()
        .expect("last run");
    assert!(o.success(), "resumed run: {o:?}\n{}", log(&out));
    assert_n_done_once(&out, CHAINS);
    assert_same_files(&out, &want, "after ten kills");
}

#[test]
fn kurutmaz2019_cep_with_workers_killed_mid_run_is_byte_identical() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let want = reference(tmp.path());
    let out = tmp.path().join("workers");
    let mut coord = cep_run(&out, &["--listen", "127.0.0.1:0", "--lease-timeout", "2"])
        .spawn()
        .expect("spawn coordinator");
    let url = coordinator_url(&out);
    let mut workers = vec![spawn_worker(&url), spawn_worker(&url)];
    let mut moments = Moments(2014);
    let mut at = 0;
    for _ in 0..4 {
        at += 1 + moments.below((CHAINS / 6) as u64) as usize;
        wait_for("the kill moment", Duration::from_secs(120), || {
            stored_chains(&out) >= at || coord.try_wait().ok().flatten().is_some()
        });
        std::thread::sleep(Duration::from_millis(moments.below(30)));
        let k = moments.below(workers.len() as u64) as usize;
        let mut w = workers.swap_remove(k);
        let _ = w.kill();
        let _ = w.wait();
        workers.push(spawn_worker(&url));
    }
    let status = wait_exit(&mut coord, Duration::from_secs(300));
    assert!(status.success(), "coordinator: {status:?}\n{}", log(&out));
    for mut w in workers {
        let _ = w.kill();
        let _ = w.wait();
    }
    assert_n_done_once(&out, CHAINS);
    assert_same_files(&out, &want, "with workers killed");
}

//! Damaged checkpoints and chain files, many seeded trials: a resumed run either finishes
//! byte-identical to an uninterrupted one (the damage detected, the chain run again from
//! iteration 1 with a warning) or is refused with a clear message; it never adopts a different
//! trace with exit status 0.
//!
//! One run is killed while both of its chains hold checkpoints; each trial copies that
//! directory, damages one chain's stored checkpoint in `jobs.sqlite` and resumes. Raw damage
//! (a flipped bit anywhere, a truncation, garbage, another chain's blob) breaks the seal;
//! resealed damage (what a bug could write: rows dropped, the iteration moved, a short RNG
//! position, a state the sampler cannot read, another code version) is caught by the check of
//! the rows against the chain's plan or refused by the worker.

use std::path::{Path, PathBuf};
use std::process::Output;
use std::sync::OnceLock;

use causeway_proto::v1::ChainCheckpoint;
use causeway_results::rundir::digest::{seal, unseal};
use prost::Message;

use crate::durability::{
    LONG_YAML, check, copy_dir, kill_when_checkpointed, run_cmd, trace_files, write_yaml,
};

/// The durability tests' two long chains, made longer (about 3 s each in the test build beside
/// the other tests, where the kill lands near iteration 2,600), checkpointed every 200
/// iterations by the tests' flags; the reference run saves none. Every trial runs a chain again
/// from iteration 1, so this length sets the test's time.
fn fuzz_yaml() -> String {
    LONG_YAML
        .replace("name: durable_long", "name: fuzz_ckpt")
        .replace("iterations: 12000", "iterations: 20000")
}
const FLAGS: [&str; 4] = ["--local-workers", "2", "--checkpoint-iterations", "200"];

/// A small seeded generator (xorshift64*): the trials are the same on every machine.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// (uninterrupted run, run directory killed with both chains checkpointed), made once.
fn fixtures() -> &'static (PathBuf, PathBuf) {
    static DIRS: OnceLock<(tempfile::TempDir, PathBuf, PathBuf)> = OnceLock::new();
    let (_, reference, killed) = DIRS.get_or_init(|| {
        let tmp = tempfile::tempdir().expect("tempdir");
        let yaml = write_yaml(tmp.path(), &fuzz_yaml());
        let reference = tmp.path().join("reference");
        let out = run_cmd(&yaml, &reference, &["--local-workers", "2"])
            .output()
            .expect("reference run");
        check(&out, "reference run");
        let killed = tmp.path().join("killed");
        kill_when_checkpointed(&yaml, &killed, &FLAGS, 400, 2);
        (tmp, reference, killed)
    });
    Box::leak(Box::new((reference.clone(), killed.clone())))
}

/// The files a run must reproduce exactly: chains, datasets, tables.
fn deterministic_files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    for sub in ["chains", "datasets", "tables"] {
        let mut names: Vec<_> = std::fs::read_dir(dir.join(sub))
            .expect("run dir")
            .flatten()
            .map(|e| e.path())
            .collect();
        names.sort();
        for p in names {
            let name = format!("{sub}/{}", p.file_name().expect("name").to_string_lossy());
            out.push((name, std::fs::read(&p).expect("read")));
        }
    }
    out
}

fn db(dir: &Path) -> rusqlite::Connection {
    rusqlite::Connection::open(dir.join("jobs.sqlite")).expect("open jobs.sqlite")
}

fn blob(dir: &Path, idx: i64) -> Vec<u8> {
    db(dir)
        .query_row(
            "SELECT checkpoint FROM checkpoints WHERE idx = ?1",
            [idx],
            |r| r.get(0),
        )
        .expect("a stored checkpoint")
}

fn set_blob(dir: &Path, idx: i64, bytes: &[u8]) {
    db(dir)
        .execute(
            "UPDATE checkpoints SET checkpoint = ?2 WHERE idx = ?1",
            rusqlite::params![idx, bytes],
        )
        .expect("write the damaged checkpoint");
}

/// Damage chain `idx`'s stored checkpoint in `dir` the way `kind` says; returns its name.
fn damage(dir: &Path, idx: i64, kind: usize, rng: &mut Rng) -> String {
    let raw = blob(dir, idx);
    let mut c =
        ChainCheckpoint::decode(unseal(&raw).expect("a sealed checkpoint")).expect("a checkpoint");
    let reseal = |c: &ChainCheckpoint| seal(&c.encode_to_vec());
    let (name, bytes) = match kind {
        0 => {
            let mut b = raw.clone();
            let at = rng.below(b.len());
            b[at] ^= 1 << rng.below(8);
            (format!("bit flip at byte {at} of {}", b.len()), b)
        }
        1 => {
            let at = rng.below(raw.len());
            (format!("truncated to {at} bytes"), raw[..at].to_vec())
        }
        2 => ("the other chain's checkpoint".into(), blob(dir, 1 - idx)),
        3 => {
            let n = 1 + rng.below(4096);
            let b = (0..n).map(|_| rng.next() as u8).collect();
            (format!("{n} bytes of garbage"), b)
        }
        4 => {
            let row = rng.below(c.iterations.len());
            c.iterations.remove(row);
            (
                format!("iteration of row {row} dropped, resealed"),
                reseal(&c),
            )
        }
        5 => {
            let n = c.iterations.len();
            let (w, s) = (c.trace.len() / n, c.stats.len() / n);
            let row = rng.below(n);
            c.iterations.remove(row);
            c.trace.drain(row * w..(row + 1) * w);
            c.stats.drain(row * s..(row + 1) * s);
            c.elapsed_seconds.remove(row);
            (format!("row {row} dropped whole, resealed"), reseal(&c))
        }
        6 => {
            c.iteration += 7;
            ("iteration advanced by 7, resealed".into(), reseal(&c))
        }
        7 => {
            c.iteration -= 7;
            ("iteration moved back by 7, resealed".into(), reseal(&c))
        }
        8 => {
            c.rng_word_pos.truncate(8);
            ("an 8-byte RNG position, resealed".into(), reseal(&c))
        }
        9 => {
            // CBOR of another type (a bare integer), then random bytes.
            c.sampler_state = if rng.below(2) == 0 {
                vec![0x01]
            } else {
                (0..64).map(|_| rng.next() as u8).collect()
            };
            (
                "a sampler state of the wrong type, resealed".into(),
                reseal(&c),
            )
        }
        _ => {
            c.code_version = "0.0.0+elsewhere".into();
            ("another code version, resealed".into(), reseal(&c))
        }
    };
    set_blob(dir, idx, &bytes);
    name
}

fn resume(dir: &Path) -> Output {
    let yaml = dir.with_extension("yaml");
    std::fs::write(&yaml, fuzz_yaml()).expect("yaml");
    run_cmd(&yaml, dir, &FLAGS).output().expect("resume")
}

/// Every kind of damage, on random chains at random places (seeded): each resume ends
/// byte-identical to the uninterrupted run, and says that a checkpoint was not used.
#[test]
fn damaged_checkpoints_never_change_a_chain() {
    let (reference, killed) = fixtures();
    let want = deterministic_files(reference);
    let mut rng = Rng(0x5eed_c0de_2026_1127);
    let tmp = tempfile::tempdir().expect("tempdir");
    let only: Option<usize> = std::env::var("FUZZ_KIND").ok().and_then(|k| k.parse().ok());
    for trial in 0..14 {
        let kind = trial % 11;
        if only.is_some_and(|k| k != kind) {
            continue;
        }
        let dir = tmp.path().join(format!("trial{trial}"));
        copy_dir(killed, &dir);
        let idx = rng.below(2) as i64;
        let what = damage(&dir, idx, kind, &mut rng);
        let out = resume(&dir);
        let err = String::from_utf8_lossy(&out.stderr);
        eprintln!("trial {trial} ({what}):\n{err}");
        assert!(
            out.status.success(),
            "trial {trial} ({what}): resume failed:\n{err}"
        );
        assert!(
            err.contains("warning") && err.contains("checkpoint"),
            "trial {trial} ({what}): no word of the damaged checkpoint:\n{err}"
        );
        let got = deterministic_files(&dir);
        assert_eq!(
            want.iter().map(|f| &f.0).collect::<Vec<_>>(),
            got.iter().map(|f| &f.0).collect::<Vec<_>>(),
            "trial {trial} ({what}): file lists differ"
        );
        for ((name, a), (_, b)) in want.iter().zip(&got) {
            assert!(
                a == b,
                "trial {trial} ({what}): {name} differs from the uninterrupted run"
            );
        }
        std::fs::remove_dir_all(&dir).ok();
    }
}

/// A finished run's chain file damaged on disk (a flipped bit in its data, a truncation): the
/// rerun finds it by its stored digest, runs that chain again with a warning, and ends
/// byte-identical. A Parquet frame check alone misses a flipped bit inside a data page.
#[test]
fn a_damaged_stored_chain_is_found_by_its_digest_and_run_again() {
    let (reference, _) = fixtures();
    let want = deterministic_files(reference);
    let mut rng = Rng(0xd16e_57ed);
    let tmp = tempfile::tempdir().expect("tempdir");
    for trial in 0..4 {
        let dir = tmp.path().join(format!("trial{trial}"));
        copy_dir(reference, &dir);
        let traces = trace_files(&dir);
        let path = &traces[rng.below(traces.len())];
        let mut bytes = std::fs::read(path).expect("read");
        // Inside the data pages: past the 4-byte magic, before the footer.
        let at = 4 + rng.below(bytes.len() / 2);
        let what = if trial % 2 == 0 {
            bytes[at] ^= 1 << rng.below(8);
            format!("bit flip at byte {at}")
        } else {
            bytes.truncate(at);
            format!("truncated to {at} bytes")
        };
        std::fs::write(path, &bytes).expect("write");
        let out = resume(&dir);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "trial {trial} ({what}):\n{err}");
        assert!(
            err.contains("is damaged and runs again"),
            "trial {trial} ({what}): no warning:\n{err}"
        );
        assert!(
            err.contains("1 run, 1 already stored"),
            "trial {trial} ({what}):\n{err}"
        );
        let got = deterministic_files(&dir);
        for ((name, a), (_, b)) in want.iter().zip(&got) {
            assert!(
                a == b,
                "trial {trial} ({what}): {name} differs from the uninterrupted run"
            );
        }
    }
}

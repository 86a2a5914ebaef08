//! Unit tests of the job table and its writer.
use super::*;
use crate::status::status;

/// A checkpoint at `iteration` whose sampler state is `state` (what the tests read back).
fn ckpt(iteration: u64, state: &[u8]) -> Arc<ChainCheckpoint> {
    Arc::new(ChainCheckpoint {
        iteration,
        sampler_state: state.to_vec(),
        code_version: "v1".into(),
        ..Default::default()
    })
}

/// The sampler state of a stored checkpoint blob.
fn state_of(b: &Blob) -> (u64, Vec<u8>) {
    let (it, bytes) = b.clone().expect("a sound checkpoint");
    (
        it,
        ChainCheckpoint::decode(bytes.as_slice())
            .expect("decode")
            .sampler_state,
    )
}

fn ids(n: usize) -> Vec<String> {
    (0..n).map(|i| format!("job{i}")).collect()
}

#[test]
fn events_are_committed_and_idempotent() {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = JobStore::open(dir.path(), &ids(4), "plan-a", false).expect("open");
    let w = store.into_writer(None);
    w.send(Event::Started {
        index: 0,
        attempt: 1,
        worker: "a".into(),
        resumed_from: None,
    });
    for _ in 0..2 {
        w.send(Event::Done {
            index: 0,
            attempts: 1,
            worker: "a".into(),
            timing: ChainTiming::default(),
            result: entry(0),
        });
    }
    w.send(Event::Failed {
        index: 1,
        attempts: 3,
        worker: "b".into(),
        error: "numerical failure".into(),
    });
    w.flush().expect("flush");
    let s = status(dir.path()).expect("status while open");
    assert_eq!(s.total, 4);
    assert!(s.counts.contains(&(JobState::Done, 1)));
    assert_eq!(s.failures.len(), 1);
    let mut store = w.finish().expect("finish");
    // Job 2's files appeared without its row (coordinator killed between the two); job 0's
    // files vanished.
    let todo = store.reconcile(|i| i == 2).expect("reconcile");
    assert_eq!(todo, vec![0, 1, 3]);
    let mut st = Vec::new();
    store
        .each_status(|s| {
            st.push(s);
            Ok::<_, JobTableError>(())
        })
        .expect("statuses");
    assert_eq!(st[2].state, JobState::Done);
    assert_eq!(st[0].state, JobState::Pending);
    assert_eq!(st[1].state, JobState::Pending);
    drop(store);
    // Reopening with another plan is refused.
    assert!(JobStore::open(dir.path(), &ids(5), "plan-a", false).is_err());
    assert!(JobStore::open(dir.path(), &ids(4), "plan-a", false).is_ok());
    // Another plan's identity is refused even with the same job ids.
    let e = JobStore::open(dir.path(), &ids(4), "plan-b", true)
        .err()
        .expect("another plan must be refused");
    assert!(e.to_string().contains("another experiment"), "{e}");
}

/// The writer's backlog counts what was queued and not applied: many events queued at once
/// put it above the bound (the collector then waits), a flush brings it to 0, and a finished
/// writer is never waited for.
#[test]
fn the_writers_backlog_counts_what_waits_and_drains_to_zero() {
    let dir = tempfile::tempdir().expect("tempdir");
    let n = 8 * WRITER_BACKLOG_MAX;
    let store = JobStore::open(dir.path(), &ids(n), "plan-a", false).expect("open");
    let w = store.into_writer(None);
    let mut most = 0;
    for index in 0..n {
        w.send(Event::Started {
            index,
            attempt: 1,
            worker: "a".into(),
            resumed_from: None,
        });
        most = most.max(w.backlog());
    }
    assert!(
        most > WRITER_BACKLOG_MAX,
        "queued faster than committed: {most}"
    );
    w.flush().expect("flush");
    assert_eq!(w.backlog(), 0);
    assert!(!w.behind());
    w.finish().expect("finish");
}

#[test]
fn a_checkpoint_replaces_the_last_and_goes_with_the_result() {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = JobStore::open(dir.path(), &ids(3), "plan-a", false).expect("open");
    let w = store.into_writer(None);
    for (it, bytes) in [(10, vec![1u8]), (20, vec![2u8, 2])] {
        w.checkpoint(0, ckpt(it, &bytes));
        w.checkpoint(1, ckpt(it, &bytes));
    }
    w.send(Event::Started {
        index: 1,
        attempt: 2,
        worker: "b".into(),
        resumed_from: Some(20),
    });
    w.send(Event::Done {
        index: 0,
        attempts: 1,
        worker: "a".into(),
        timing: ChainTiming::default(),
        result: entry(0),
    });
    // A late checkpoint of a done chain is not kept.
    w.checkpoint(0, ckpt(30, &[3]));
    let store = w.finish().expect("finish");
    let got = store.checkpoints(&[0, 1, 2]).expect("checkpoints");
    assert_eq!(got.len(), 1, "{got:?}");
    assert_eq!(state_of(&got[&1]), (20, vec![2, 2]));
    // Only the jobs asked for.
    assert!(store.checkpoints(&[0, 2]).expect("checkpoints").is_empty());
    let (records, torn) = journal::read(dir.path(), 0).expect("the journal");
    assert_eq!(
        records,
        vec![(0, journal::payload(&entry(0).record).to_vec())]
    );
    assert_eq!(torn, None);
    let resumes: (i64, i64, i64, Option<f64>) = store
        .conn
        .query_row(
            "SELECT idx, attempt, iteration, checkpoint_saved FROM resumes",
            [],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
        )
        .expect("one resume");
    assert_eq!((resumes.0, resumes.1, resumes.2), (1, 2, 20));
    assert!(
        resumes.3.is_some(),
        "the resumed-from checkpoint's save time"
    );
}

/// A stored checkpoint is sealed: a flipped bit or a truncation in `jobs.sqlite` is reported as
/// damage, never handed on as a checkpoint; a refused one is forgotten with its end state.
#[test]
fn a_damaged_stored_checkpoint_is_refused_and_a_forgotten_one_is_gone() {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = JobStore::open(dir.path(), &ids(3), "plan-a", false).expect("open");
    let w = store.into_writer(None);
    for i in 0..3 {
        w.checkpoint(i, ckpt(10, &[1, 2, 3, 4]));
    }
    w.end_state(2, ckpt(10, &[5]));
    w.forget_checkpoint(2);
    let store = w.finish().expect("finish");
    store
        .conn
        .execute(
            "UPDATE checkpoints SET checkpoint = CAST(substr(checkpoint, 1, length(checkpoint) - 1) \
             || x'05' AS BLOB) WHERE idx = 0",
            [],
        )
        .expect("flip the last byte");
    store
        .conn
        .execute(
            "UPDATE checkpoints SET checkpoint = CAST(substr(checkpoint, 1, 10) AS BLOB) \
             WHERE idx = 1",
            [],
        )
        .expect("truncate");
    let got = store.checkpoints(&[0, 1, 2]).expect("checkpoints");
    assert_eq!(got.len(), 2, "{got:?}");
    assert!(
        got[&0].as_ref().is_err_and(|e| e.contains("checksum")),
        "{got:?}"
    );
    assert!(got[&1].is_err(), "{got:?}");
    assert!(store.ends(&[2]).expect("ends").is_empty());
}

/// Job `i`'s journal entry.
fn entry(i: usize) -> Box<JournalEntry> {
    Box::new(seal::journal_entry(i, &format!("job{i}"), result(i)).expect("entry"))
}

/// Job `i` done on worker "w", at its first attempt.
fn done(i: usize) -> Event {
    Event::Done {
        index: i,
        attempts: 1,
        worker: "w".into(),
        timing: ChainTiming::default(),
        result: entry(i),
    }
}

/// Job `i`'s result as a worker sends it: two rows of one traced scalar.
fn result(i: usize) -> causeway_proto::v1::ChainResult {
    causeway_proto::v1::ChainResult {
        job_id: format!("job{i}"),
        ok: true,
        trace_names: vec!["x".into()],
        iterations: vec![1, 2],
        trace: vec![i as f64, 0.5],
        elapsed_seconds: vec![0.1, 0.2],
        ..Default::default()
    }
}

/// The files of `chains/`, by name, with their bytes.
fn chain_files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out: Vec<_> = std::fs::read_dir(dir.join("chains"))
        .map(|d| {
            d.flatten()
                .map(|e| {
                    let bytes = std::fs::read(e.path()).expect("read");
                    (e.file_name().to_string_lossy().into_owned(), bytes)
                })
                .collect()
        })
        .unwrap_or_default();
    out.sort();
    out
}

/// Results go to the journal with their rows; a shard is sealed once the run's chains of it
/// have finished (the rest at the end), the journal emptied and the shard's digest recorded;
/// whatever order the results came in, and whether the run sealed them or was killed before
/// and a rerun did, the shards are the same bytes.
#[test]
fn shards_are_sealed_from_the_journal_whatever_the_order() {
    let n = 600; // 3 jobs a shard
    let run = |order: &[usize], seal: bool| {
        let dir = tempfile::tempdir().expect("tempdir");
        let rd = RunDir::create(dir.path()).expect("run dir");
        let store = JobStore::open(dir.path(), &ids(n), "plan-a", false).expect("open");
        let all: Vec<usize> = (0..n).collect();
        let w = store.into_writer(seal.then(|| Sealer::new(rd.clone(), n, &all)));
        for (k, &i) in order.iter().enumerate() {
            w.send(done(i));
            if k == 2 && seal {
                w.flush().expect("flush");
                // Jobs 0-2 (shard 0) are done: it is sealed while the run goes on.
                assert_eq!(rd.shards(), vec![0], "{order:?}");
            }
        }
        let store = w.finish().expect("finish");
        (dir, rd, store)
    };
    let (a, _, store) = run(&(0..n).collect::<Vec<_>>(), true);
    assert!(journal::shards(a.path()).is_empty());
    assert!(!a.path().join(journal::DIR).exists(), "the journal is gone");
    assert_eq!(store.shard_digests().expect("digests").len(), 200);
    let files = chain_files(a.path());
    assert_eq!(files.len(), 200, "one trace file a shard, no statistics");

    let mut order: Vec<usize> = (3..n).rev().collect();
    order.splice(0..0, [1, 0, 2]);
    let (b, _, _) = run(&order, true);
    assert!(
        chain_files(b.path()) == files,
        "another order, the same bytes"
    );

    let (c, rd, mut store) = run(&order, false);
    assert!(chain_files(c.path()).is_empty(), "killed before sealing");
    assert_eq!(journal::shards(c.path()).len(), 200);
    store.seal_journal(&rd).expect("seal");
    assert!(
        chain_files(c.path()) == files,
        "sealed by the rerun, the same bytes"
    );
    let x = rd.read_trace("job7").expect("trace");
    assert_eq!(
        x.column("x").expect("x").f64().expect("f64").get(0),
        Some(7.0)
    );
}

/// Three done chains of one shard (of 600 jobs, 3 a shard), journaled without sealing: a run
/// killed before its shard was sealed. Returns the directory, its run directory and its table.
fn three_done_unsealed() -> (tempfile::TempDir, RunDir, JobStore) {
    let dir = tempfile::tempdir().expect("tempdir");
    let rd = RunDir::create(dir.path()).expect("run dir");
    let store = JobStore::open(dir.path(), &ids(600), "plan-a", false).expect("open");
    let w = store.into_writer(None);
    for i in 0..3 {
        w.send(done(i));
    }
    let store = w.finish().expect("finish");
    (dir, rd, store)
}

/// The journal's record of a chain is adopted only whole and intact: a torn last record (a
/// kill in the middle of an append) and a flipped byte are detected, the records before them
/// sealed, and the chains they held go back to `pending` (through the run's reconciling);
/// nothing of the damaged records reaches the shard.
#[test]
fn a_torn_or_damaged_journal_record_is_not_sealed_and_its_chain_runs_again() {
    let journal_bytes = |dir: &Path| std::fs::read(journal::path(dir, 0)).expect("journal");
    let record = entry(0).record.len();
    for (what, damage) in [
        (
            "torn",
            Box::new(|b: &mut Vec<u8>| b.truncate(b.len() - 5)) as Box<dyn Fn(&mut Vec<u8>)>,
        ),
        // The first byte of the second record's payload: x = 1.0 would read as another value.
        (
            "flipped",
            Box::new(move |b: &mut Vec<u8>| b[record + 28 + 3] ^= 0x10),
        ),
    ] {
        let (dir, rd, mut store) = three_done_unsealed();
        let mut bytes = journal_bytes(dir.path());
        assert_eq!(bytes.len(), 3 * record, "{what}");
        damage(&mut bytes);
        std::fs::write(journal::path(dir.path(), 0), &bytes).expect("damage");
        store.seal_journal(&rd).expect("seal");
        assert!(
            journal::shards(dir.path()).is_empty(),
            "{what}: the journal is sealed"
        );
        let stored = rd.stored_index();
        let kept: Vec<bool> = (0..3)
            .map(|i| stored.contains(&format!("job{i}")))
            .collect();
        let want = if what == "torn" {
            vec![true, true, false]
        } else {
            vec![true, false, false]
        };
        assert_eq!(kept, want, "{what}");
        let x = rd.read_trace("job0").expect("trace");
        assert_eq!(
            x.column("x").expect("x").f64().expect("f64").get(0),
            Some(0.0)
        );
        let todo = store
            .reconcile(|i| stored.contains(&format!("job{i}")))
            .expect("reconcile");
        let lost: Vec<usize> = (0..3).filter(|&i| !want[i]).collect();
        assert_eq!(
            todo[..lost.len()],
            lost,
            "{what}: their done rows go back to pending"
        );
    }
}

/// A record whose done row never committed (killed between the append and the transaction)
/// is not adopted: its chain stays pending and runs again.
#[test]
fn a_journal_record_without_its_done_row_is_not_adopted() {
    let (dir, rd, mut store) = three_done_unsealed();
    journal::append(dir.path(), 600, [(4, entry(4).record.as_slice())]).expect("append");
    store.seal_journal(&rd).expect("seal");
    let stored = rd.stored_index();
    assert!(stored.contains("job2"));
    assert!(!stored.contains("job4"), "a record without its done row");
    assert!(journal::shards(dir.path()).is_empty());
}

/// A run directory written before the journal had files keeps results in `jobs.sqlite`'s
/// table `journal`: a rerun seals them, and empties the table.
#[test]
fn an_older_directorys_journal_rows_are_sealed() {
    let dir = tempfile::tempdir().expect("tempdir");
    let rd = RunDir::create(dir.path()).expect("run dir");
    let mut store = JobStore::open(dir.path(), &ids(600), "plan-a", false).expect("open");
    store
        .conn
        .execute(
            "INSERT INTO journal (idx, result) VALUES (5, ?1)",
            [journal::payload(&entry(5).record)],
        )
        .expect("an old journal row");
    store
        .conn
        .execute("UPDATE jobs SET state = 'done' WHERE idx = 5", [])
        .expect("its row");
    store.seal_journal(&rd).expect("seal");
    assert!(rd.stored_index().contains("job5"));
    let rows: i64 = store
        .conn
        .query_row("SELECT COUNT(*) FROM journal", [], |r| r.get(0))
        .expect("count");
    assert_eq!(rows, 0);
}

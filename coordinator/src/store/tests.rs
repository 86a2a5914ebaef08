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
    let w = store.into_writer();
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
            digest: [7; 16],
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
    let st = store.statuses().expect("statuses");
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

#[test]
fn a_checkpoint_replaces_the_last_and_goes_with_the_result() {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = JobStore::open(dir.path(), &ids(3), "plan-a", false).expect("open");
    let w = store.into_writer();
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
        digest: [7; 16],
    });
    // A late checkpoint of a done chain is not kept.
    w.checkpoint(0, ckpt(30, &[3]));
    let store = w.finish().expect("finish");
    let got = store.checkpoints(&[0, 1, 2]).expect("checkpoints");
    assert_eq!(got.len(), 1, "{got:?}");
    assert_eq!(state_of(&got[&1]), (20, vec![2, 2]));
    assert_eq!(store.digests().expect("digests")["job0"], [7; 16]);
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
    let w = store.into_writer();
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

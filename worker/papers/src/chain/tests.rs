//! The chain driver's own tests: checkpoints, resumption and cancellation.

use rand::RngExt;

use super::*;
use crate::seed::chain_rng;
use crate::testing::assert_resumes_identically;
use crate::testing::checkpoint::drive_quietly;

/// A Gaussian random walk with a posterior-mean accumulator and a private RNG.
#[derive(Serialize, Deserialize)]
struct Walk {
    x: f64,
    sum: f64,
    n: u64,
    own: ChainRng,
    /// Skipped by the broken variant's state.
    #[serde(skip)]
    forgotten: f64,
    broken: bool,
}

impl Sampler for Walk {
    fn trace_names(&self) -> Vec<String> {
        vec!["x".into(), "forgotten".into()]
    }
    fn step(&mut self, rng: &mut ChainRng) -> Result<(), SamplerError> {
        self.x += rng.random::<f64>() - 0.5 + 0.1 * (self.own.random::<f64>() - 0.5);
        if self.broken {
            self.forgotten += 1.0;
        }
        Ok(())
    }
    fn record(&self, row: &mut Vec<f64>) {
        row.extend([self.x, self.forgotten]);
    }
    fn accumulate(&mut self) {
        self.sum += self.x;
        self.n += 1;
    }
    fn summary(&self) -> Vec<Matrix> {
        vec![Matrix::new("mean", 1, 1, vec![self.sum / self.n as f64])]
    }
    crate::serde_checkpoint!();
}

fn walk(broken: bool) -> impl Fn(&mut ChainRng) -> Box<dyn Sampler> {
    move |rng: &mut ChainRng| {
        let own = crate::seed::evaluation_rng(rng);
        Box::new(Walk {
            x: rng.random(),
            sum: 0.0,
            n: 0,
            own,
            forgotten: 0.0,
            broken,
        })
    }
}

const SPEC: RunSpec = RunSpec {
    iterations: 1000,
    burn_in: 300,
    thin: 7,
};

#[test]
fn a_resumed_chain_is_the_uninterrupted_chain() {
    let n = assert_resumes_identically(&walk(false), &chain_rng(1, 2, 3, 4), &SPEC, 97);
    assert_eq!(n, 10);
}

#[test]
#[should_panic(expected = "differs")]
fn a_state_that_forgets_a_field_is_detected() {
    assert_resumes_identically(&walk(true), &chain_rng(1, 2, 3, 4), &SPEC, 97);
}

#[test]
fn time_based_checkpoints_do_not_change_the_chain() {
    let rng = chain_rng(5, 0, 0, 1);
    let mut r = rng.clone();
    let mut s = walk(false)(&mut r);
    let full = run_chain(s.as_mut(), &SPEC, &mut r, &mut |_, _| {}).unwrap();
    let mut r = rng.clone();
    let mut s = walk(false)(&mut r);
    let mut rows = Vec::new();
    let mut n = 0;
    let tail = drive_quietly(
        s.as_mut(),
        &SPEC,
        &mut r,
        None,
        CheckpointEvery {
            iterations: None,
            seconds: Some(0.0),
            at_end: false,
        },
        &mut |c| {
            n += 1;
            rows.extend(c.trace);
            Ok(())
        },
    )
    .unwrap();
    rows.extend(tail.trace);
    assert_eq!(
        n, 999,
        "a zero interval saves after every iteration but the last"
    );
    assert_eq!(rows, full.trace);
}

#[test]
fn a_chain_extended_from_its_end_state_is_the_longer_chain() {
    // 400 iterations saved at the end, then taken on to 1,000 (same burn-in),
    // give the 1,000-iteration chain's rows and summary bit for bit.
    let rng = chain_rng(9, 1, 2, 3);
    let mut r = rng.clone();
    let mut s = walk(false)(&mut r);
    let full = run_chain(s.as_mut(), &SPEC, &mut r, &mut |_, _| {}).unwrap();
    let short = RunSpec {
        iterations: 400,
        ..SPEC
    };
    let mut r = rng.clone();
    let mut s = walk(false)(&mut r);
    let mut ends = Vec::new();
    let every = CheckpointEvery {
        at_end: true,
        ..CheckpointEvery::default()
    };
    let tail = drive_quietly(s.as_mut(), &short, &mut r, None, every, &mut |c| {
        ends.push(c);
        Ok(())
    })
    .unwrap();
    assert_eq!(ends.len(), 1, "one checkpoint, after the last iteration");
    assert!(tail.iterations.is_empty(), "the rows went with it");
    let end = &ends[0];
    assert_eq!(end.iteration, 400);
    let mut r = rng.clone();
    let mut s = walk(false)(&mut r);
    let rest = drive_quietly(
        s.as_mut(),
        &SPEC,
        &mut r,
        Some(Resume {
            iteration: end.iteration,
            sampler_state: &end.sampler_state,
            rng_word_pos: end.rng_word_pos,
            elapsed_offset: 0.0,
        }),
        CheckpointEvery::default(),
        &mut |_| Ok(()),
    )
    .unwrap();
    let mut rows = end.trace.clone();
    rows.extend(&rest.trace);
    let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    assert_eq!(bits(&rows), bits(&full.trace));
    assert_eq!(rest.summary, full.summary);
}

#[test]
fn a_resume_point_past_the_end_or_foreign_bytes_are_refused() {
    for (iteration, state) in [(2000, vec![]), (10, vec![1, 2, 3])] {
        let mut r = chain_rng(1, 0, 0, 0);
        let mut s = walk(false)(&mut r);
        let err = drive_quietly(
            s.as_mut(),
            &SPEC,
            &mut r,
            Some(Resume {
                iteration,
                sampler_state: &state,
                rng_word_pos: 0,
                elapsed_offset: 0.0,
            }),
            CheckpointEvery::default(),
            &mut |_| Ok(()),
        )
        .unwrap_err();
        assert!(matches!(err, SamplerError::Checkpoint(_)), "{err}");
    }
}

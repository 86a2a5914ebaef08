//! Checkpoint round trips: a chain saved every few iterations, and resumed from each
//! of its checkpoints on a freshly built sampler, must give the uninterrupted chain's trace,
//! statistics and summary bit for bit.

use std::sync::atomic::AtomicBool;

use crate::chain::{
    ChainControl, ChainOutput, Checkpoint, CheckpointEvery, Resume, RunSpec, Sampler, SamplerError,
    drive_chain, run_chain,
};
use crate::data::{DataContext, Dataset, Matrix};
use crate::seed::ChainRng;

/// [`drive_chain`] with no progress report and no cancellation: from `resume` if given, handing
/// the checkpoints `every` asks for to `on_checkpoint`.
pub fn drive_quietly(
    sampler: &mut dyn Sampler,
    spec: &RunSpec,
    rng: &mut ChainRng,
    resume: Option<Resume<'_>>,
    every: CheckpointEvery,
    on_checkpoint: &mut dyn FnMut(Checkpoint) -> Result<(), SamplerError>,
) -> Result<ChainOutput, SamplerError> {
    drive_chain(
        sampler,
        spec,
        rng,
        ChainControl {
            progress: &mut |_, _| {},
            cancel: &AtomicBool::new(false),
            resume,
            every,
            on_checkpoint,
        },
    )
}

fn bits(v: &[f64]) -> Vec<u64> {
    v.iter().map(|x| x.to_bits()).collect()
}

fn same_summary(a: &[Matrix], b: &[Matrix]) -> bool {
    a.len() == b.len()
        && a.iter().zip(b).all(|(x, y)| {
            x.name == y.name
                && x.rows == y.rows
                && x.cols == y.cols
                && x.row_names == y.row_names
                && x.col_names == y.col_names
                && bits(&x.values) == bits(&y.values)
        })
}

/// The rows of `parts` (checkpoints, in order) followed by `tail`'s, as one output.
fn joined(parts: &[Checkpoint], tail: &ChainOutput) -> (Vec<u64>, Vec<u64>, Vec<u64>) {
    let mut it = Vec::new();
    let mut tr = Vec::new();
    let mut st = Vec::new();
    for c in parts {
        it.extend_from_slice(&c.iterations);
        tr.extend(bits(&c.trace));
        st.extend(bits(&c.stats));
    }
    it.extend_from_slice(&tail.iterations);
    tr.extend(bits(&tail.trace));
    st.extend(bits(&tail.stats));
    (it, tr, st)
}

/// Panics unless a chain checkpointed every `every` iterations, and resumed from each of its
/// checkpoints, reproduces the uninterrupted chain bit for bit. `build(rng)` builds the sampler
/// from the chain's fresh RNG `rng` (as a worker does); `rng` is the chain's RNG as built from
/// its seed. Returns the number of checkpoints resumed from (at least one is required).
pub fn assert_resumes_identically(
    build: &dyn Fn(&mut ChainRng) -> Box<dyn Sampler>,
    rng: &ChainRng,
    spec: &RunSpec,
    every: u64,
) -> usize {
    let mut r = rng.clone();
    let mut s = build(&mut r);
    // Test harness (feature `testing`): a sampler error is the test's failure.
    let full = run_chain(s.as_mut(), spec, &mut r, &mut |_, _| {}).expect("uninterrupted chain");
    let want = (
        full.iterations.clone(),
        bits(&full.trace),
        bits(&full.stats),
    );

    // Saving checkpoints does not change the chain.
    let mut r = rng.clone();
    let mut s = build(&mut r);
    let mut saved: Vec<Checkpoint> = Vec::new();
    let tail = drive_quietly(
        s.as_mut(),
        spec,
        &mut r,
        None,
        CheckpointEvery {
            iterations: Some(every),
            seconds: None,
            at_end: false,
        },
        &mut |c| {
            saved.push(c);
            Ok(())
        },
    )
    // Test harness, as above.
    .expect("checkpointed chain");
    assert!(
        !saved.is_empty(),
        "no checkpoint was saved (does the sampler implement save_state?)"
    );
    assert_eq!(
        joined(&saved, &tail),
        want,
        "checkpointing changed the chain"
    );
    assert!(same_summary(&tail.summary, &full.summary));

    // Resuming from each checkpoint, on a new sampler, gives the same chain.
    for (k, c) in saved.iter().enumerate() {
        let mut r = rng.clone();
        let mut s = build(&mut r);
        let offset = c.elapsed_seconds.last().copied().unwrap_or(0.0);
        let tail = drive_quietly(
            s.as_mut(),
            spec,
            &mut r,
            Some(Resume {
                iteration: c.iteration,
                sampler_state: &c.sampler_state,
                rng_word_pos: c.rng_word_pos,
                elapsed_offset: offset,
            }),
            CheckpointEvery::default(),
            &mut |_| Ok(()),
        )
        .unwrap_or_else(|e| panic!("resuming at iteration {}: {e}", c.iteration));
        assert_eq!(
            joined(&saved[..=k], &tail),
            want,
            "the chain resumed at iteration {} differs",
            c.iteration
        );
        assert!(
            same_summary(&tail.summary, &full.summary),
            "the summary of the chain resumed at iteration {} differs",
            c.iteration
        );
    }
    saved.len()
}

/// A synthetic replicate of model `model`'s dataset `spec` (the YAML's `dataset` section as
/// JSON), drawn from `rng`; no file is read (the data directory is the system's temporary one).
/// Panics on an unknown model or a refused spec.
pub fn synthetic_dataset(model: &str, spec: &serde_json::Value, rng: &mut ChainRng) -> Dataset {
    let ctx = DataContext {
        data_dir: std::env::temp_dir(),
    };
    crate::registry::model(model)
        .and_then(|m| m.dataset(spec, &ctx, rng))
        .unwrap_or_else(|e| panic!("{model} dataset {spec}: {e}"))
}

/// [`assert_resumes_identically`] for the sampler a worker runs: model `model`'s sampler from
/// the registry, built from the cell's `params` (the YAML's `params` section as JSON) on `data`.
/// Returns the number of checkpoints resumed from; panics as that function does, or if the
/// sampler cannot be built.
pub fn assert_model_resumes_identically(
    model: &str,
    params: &serde_json::Value,
    data: &Dataset,
    rng: &ChainRng,
    spec: &RunSpec,
    every: u64,
) -> usize {
    let m = crate::registry::model(model).unwrap_or_else(|e| panic!("{e}"));
    let build = |rng: &mut ChainRng| {
        m.sampler(params, data, rng)
            .unwrap_or_else(|e| panic!("{model} sampler {params}: {e}"))
    };
    assert_resumes_identically(&build, rng, spec, every)
}

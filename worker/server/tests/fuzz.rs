//! Property tests (fuzzing) of the worker's input path: protobuf decoding of arbitrary bytes,
//! then `execute` on arbitrary and adversarial jobs. Whatever arrives, the worker must answer
//! with a `ChainResult` (failed, with a reason) and never panic.
//!
//! Deterministic: a fixed ChaCha seed and no failure persistence, so every run tries the same
//! cases (`PROPTEST_CASES` may raise the counts locally).

use causeway_proto::PROTOCOL_VERSION;
use causeway_proto::v1::{ChainEvent, Job, Matrix, Seed};
use causeway_worker::execute;
use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, RngSeed};
use prost::Message;

fn config(cases: u32, seed: u64) -> Config {
    Config {
        cases,
        failure_persistence: None,
        rng_algorithm: RngAlgorithm::ChaCha,
        rng_seed: RngSeed::Fixed(seed),
        ..Config::default()
    }
}

/// Run `job` and check the contract: a result for this job, with a reason when it failed.
fn run(job: &Job) {
    let mut calls = 0u64;
    let r = execute(job, "fuzz", &mut |_, _| calls += 1);
    assert_eq!(r.job_id, job.job_id);
    if !r.ok {
        assert!(!r.error.is_empty(), "a failed result must say why");
    }
}

fn number() -> impl Strategy<Value = f64> {
    prop_oneof![
        Just(0.0),
        Just(1.0),
        Just(0.5),
        Just(-1.0),
        Just(f64::NAN),
        Just(f64::INFINITY),
        Just(f64::NEG_INFINITY),
        Just(1e300),
        any::<f64>(),
    ]
}

fn size() -> impl Strategy<Value = u64> {
    prop_oneof![
        4 => 0u64..6,
        1 => Just(u64::MAX),
        1 => Just(1u64 << 32),
        1 => Just((1u64 << 62) + 1),
        1 => any::<u64>(),
    ]
}

fn matrix() -> impl Strategy<Value = Matrix> {
    (
        prop_oneof![Just("x".to_string()), Just("y".to_string()), ".{0,4}"],
        size(),
        size(),
        prop::collection::vec(number(), 0..24),
        prop::collection::vec(".{0,3}", 0..3),
    )
        .prop_map(|(name, rows, cols, values, row_names)| Matrix {
            name,
            rows,
            cols,
            values,
            row_names,
            col_names: vec![],
        })
}

/// A matrix whose shape fits its values: reaches the models' own checks.
fn fitting_matrix() -> impl Strategy<Value = Matrix> {
    (
        prop_oneof![Just("x".to_string()), Just("y".to_string())],
        0u64..4,
        0u64..12,
        prop_oneof![
            Just(0.0),
            Just(1.0),
            Just(f64::NAN),
            Just(-3.5),
            Just(1e308)
        ],
    )
        .prop_map(|(name, rows, cols, v)| Matrix {
            name,
            rows,
            cols,
            values: vec![v; (rows * cols) as usize],
            row_names: vec![],
            col_names: vec![],
        })
}

fn json_scalar() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("0".to_string()),
        Just("1".to_string()),
        Just("-1".to_string()),
        Just("1e308".to_string()),
        Just("18446744073709551615".to_string()),
        Just("0.5".to_string()),
        Just("\"NaN\"".to_string()),
        Just("null".to_string()),
        Just("true".to_string()),
        Just("[]".to_string()),
        Just("\"gibbs\"".to_string()),
        Just("\"smc\"".to_string()),
    ]
}

/// Params objects built from the models' real keys with hostile values, or plain garbage.
fn params_json() -> impl Strategy<Value = String> {
    let keys = prop::sample::subsequence(
        vec![
            "sampler",
            "alpha",
            "lambda",
            "epsilon",
            "p",
            "init",
            "init_k",
            "k_max",
            "method",
            "hypothesis",
            "n_latent",
            "setting",
            "n_particles",
            "resample_threshold",
            "resampling",
            "shuffle",
            "max_iterations",
            "tolerance",
            "n_restarts",
            "max_enumeration",
            "gamma",
            "m",
            "a1",
            "b1",
            "a2",
            "b2",
            "update_hyperparameters",
            "k_prior",
        ],
        0..10,
    );
    let object = (keys, prop::collection::vec(json_scalar(), 10)).prop_map(|(ks, vs)| {
        let body: Vec<String> = ks
            .iter()
            .zip(vs)
            .map(|(k, v)| format!("\"{k}\": {v}"))
            .collect();
        format!("{{{}}}", body.join(", "))
    });
    prop_oneof![
        3 => object,
        1 => ".{0,20}",
        1 => Just("{\"method\": \"exact\", \"hypothesis\": \"a_to_b\", \"n_latent\": 1, \"setting\": 1}".to_string()),
        1 => Just("{\"sampler\": \"gibbs\", \"alpha\": 1.0, \"lambda\": 0.9, \"epsilon\": 0.01, \"p\": 0.1, \"init\": \"empty\"}".to_string()),
    ]
}

fn run_json() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => (0u64..12, 0u64..14, 0u64..3).prop_map(|(i, b, t)| format!(
            "{{\"iterations\": {i}, \"burn_in\": {b}, \"thin\": {t}}}"
        )),
        1 => ".{0,12}",
        1 => Just("{\"iterations\": -1}".to_string()),
    ]
}

fn job() -> impl Strategy<Value = Job> {
    (
        prop_oneof![
            Just("wood2006".to_string()),
            Just("kurutmaz2019".to_string()),
            ".{0,8}"
        ],
        params_json(),
        run_json(),
        prop::option::of(any::<(u64, u64, u64, u64)>()),
        prop_oneof![
            prop::collection::vec(matrix(), 0..3),
            prop::collection::vec(fitting_matrix(), 0..3),
        ],
    )
        .prop_map(|(model, params_json, run_json, seed, observed)| Job {
            protocol_version: PROTOCOL_VERSION,
            job_id: "fuzz-job".into(),
            model,
            params_json,
            run_json,
            seed: seed.map(|(base_seed, cell, replicate, chain)| Seed {
                base_seed,
                cell,
                replicate,
                chain,
            }),
            observed,
            ..Default::default()
        })
}

proptest! {
    #![proptest_config(config(512, 0xC0FFEE))]

    /// Arbitrary bytes: decoding is Ok or Err, and a decoded Job is executed safely.
    #[test]
    fn decode_arbitrary_bytes(bytes in prop::collection::vec(any::<u8>(), 0..256)) {
        let _ = ChainEvent::decode(bytes.as_slice());
        if let Ok(job) = Job::decode(bytes.as_slice()) {
            run(&job);
        }
    }
}

proptest! {
    #![proptest_config(config(384, 0x5EED_0005))]

    /// Structured hostile jobs: garbage JSON, shapes that disagree with their values, huge
    /// sizes, NaN data, unknown models.
    #[test]
    fn execute_hostile_jobs(job in job()) {
        run(&job);
        // The same job after a wire round trip.
        let back = Job::decode(job.encode_to_vec().as_slice()).expect("round trip");
        prop_assert_eq!(&back.model, &job.model);
    }
}

#[test]
fn huge_shapes_fail_cleanly() {
    for (rows, cols) in [(u64::MAX, 2), (1 << 32, 1 << 32), (u64::MAX, u64::MAX)] {
        let job = Job {
            protocol_version: PROTOCOL_VERSION,
            job_id: "huge".into(),
            model: "wood2006".into(),
            params_json: "{}".into(),
            run_json: "{\"iterations\": 1, \"burn_in\": 0, \"thin\": 1}".into(),
            seed: Some(Seed::default()),
            observed: vec![Matrix {
                name: "x".into(),
                rows,
                cols,
                values: vec![1.0; 4],
                ..Default::default()
            }],
            ..Default::default()
        };
        let r = execute(&job, "fuzz", &mut |_, _| {});
        assert!(!r.ok);
        assert!(
            r.error.contains("values for shape") || r.error.contains("overflow"),
            "{}",
            r.error
        );
    }
}

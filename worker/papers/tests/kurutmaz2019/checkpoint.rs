//! Chain checkpoints: every method (SIS-CN, PG-CN, VB-CN, DEM-CN, exact), built
//! through the registry as a worker builds it, resumed from each of its checkpoints on a fresh
//! sampler, gives the uninterrupted chain bit for bit (`testing::checkpoint`).

use causeway_papers::testing::checkpoint::{assert_model_resumes_identically, synthetic_dataset};
use causeway_papers::{Dataset, RunSpec, chain_rng, dataset_rng};
use serde_json::{Value, json};

/// T = 12 observations from a_to_b, R = 2, setting 20.
fn synthetic() -> Dataset {
    let spec = json!({"kind": "synthetic", "hypothesis": "a_to_b", "n_latent": 2,
                      "n_observations": 12, "setting": 20});
    synthetic_dataset("kurutmaz2019", &spec, &mut dataset_rng(21, 1, 0))
}

/// Every `every` iterations of `spec`, the chain of `params` resumes bit for bit; returns the
/// number of checkpoints.
fn resumes(params: Value, spec: &RunSpec, every: u64) -> usize {
    let rng = chain_rng(22, 1, 0, 0);
    assert_model_resumes_identically("kurutmaz2019", &params, &synthetic(), &rng, spec, every)
}

/// 30 iterations, burn-in 10, thin 2; a checkpoint every 4 (two in burn-in).
const SPEC: RunSpec = RunSpec {
    iterations: 30,
    burn_in: 10,
    thin: 2,
};

#[test]
fn smc_sampler_resumes_bit_identically() {
    for (hypothesis, resampling, shuffle) in [
        ("a_to_b", "systematic", true),
        ("spurious", "multinomial", false),
    ] {
        let params = json!({"method": "smc", "hypothesis": hypothesis, "n_latent": 2,
                            "setting": 20, "n_particles": 40, "resampling": resampling,
                            "shuffle": shuffle});
        assert_eq!(resumes(params, &SPEC, 4), 7, "{hypothesis}");
    }
}

#[test]
fn pg_sampler_resumes_bit_identically() {
    let params = json!({"method": "pg", "hypothesis": "b_to_a", "n_latent": 2, "setting": 20,
                        "n_particles": 20});
    assert_eq!(resumes(params, &SPEC, 4), 7);
}

#[test]
fn vb_sampler_resumes_bit_identically() {
    let params = json!({"method": "vb", "hypothesis": "a_to_b", "n_latent": 2, "setting": 20,
                        "max_iterations": 50, "n_restarts": 2});
    assert_eq!(resumes(params, &SPEC, 4), 7);
}

#[test]
fn dem_sampler_resumes_bit_identically() {
    for init in ["random", "smc"] {
        let params = json!({"method": "dem", "hypothesis": "a_to_b", "n_latent": 2,
                            "setting": 20, "n_particles": 30, "init": init});
        assert_eq!(resumes(params, &SPEC, 4), 7, "{init}");
    }
}

#[test]
fn exact_sampler_resumes_bit_identically() {
    let params = json!({"method": "exact", "hypothesis": "spurious", "n_latent": 2,
                        "setting": 20});
    let spec = RunSpec {
        iterations: 3,
        burn_in: 0,
        thin: 1,
    };
    assert_eq!(resumes(params, &spec, 1), 2);
}

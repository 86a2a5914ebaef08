//! Chain checkpoints: every method (Algorithm 1 with and without step-size
//! adaptation, edges, parent sets, DAGs, the node-by-node DAG sampler, exact, MMLE), built
//! through the registry as a worker builds it, resumed from each of its checkpoints on a fresh
//! sampler, gives the uninterrupted chain bit for bit (`testing::checkpoint`).
//! The MALA adaptation runs during burn-in: the checkpoints fall inside it and after it.

use causeway_papers::testing::checkpoint::{assert_model_resumes_identically, synthetic_dataset};
use causeway_papers::{Dataset, RunSpec, chain_rng, dataset_rng};
use serde_json::{Value, json};

/// 60 rows of (x1 on 3 levels, x2, x3 binary), Table 3's generator.
fn two_dags() -> Dataset {
    let spec = json!({"kind": "two_dags", "n": 60, "k1": 3, "levels": "present"});
    synthetic_dataset("hidden2025", &spec, &mut dataset_rng(31, 1, 0))
}

/// 50 iterations, burn-in 20 (the adaptation's), thin 2; a checkpoint every 7: at 7 and 14
/// inside burn-in, 21 to 49 after it.
const SPEC: RunSpec = RunSpec {
    iterations: 50,
    burn_in: 20,
    thin: 2,
};

/// The chain of `params` on [`two_dags`] resumes bit for bit from every checkpoint; returns
/// their number.
fn resumes(params: Value, spec: &RunSpec, every: u64) -> usize {
    let rng = chain_rng(32, 1, 0, 0);
    assert_model_resumes_identically("hidden2025", &params, &two_dags(), &rng, spec, every)
}

#[test]
fn mala_sampler_resumes_bit_identically() {
    for adapt in [json!(null), json!({"target": 0.5, "decay": 0.7})] {
        let params = json!({"method": "mala", "node": "x3", "parents": ["x1", "x2"],
                            "step_sizes": [0.5, 0.5], "rho": 2.0, "adapt": adapt});
        assert_eq!(resumes(params, &SPEC, 7), 7, "adapt {adapt}");
    }
}

#[test]
fn edges_sampler_resumes_bit_identically() {
    let params = json!({"method": "edges", "node": "x3", "candidates": ["x1", "x2"],
                        "step_sizes": [0.5, 0.5], "rho": "k", "init": "prior", "adapt": {}});
    assert_eq!(resumes(params, &SPEC, 7), 7);
}

#[test]
fn parent_set_sampler_resumes_bit_identically() {
    let params = json!({"method": "parent_sets", "node": "x3",
                        "parent_sets": [["x2"], ["x1", "x2"], []], "prior": [0.5, 0.3, 0.2],
                        "step_sizes": [0.5, 0.5], "rho": 2.0, "adapt": {}});
    assert_eq!(resumes(params, &SPEC, 7), 7);
}

#[test]
fn dag_sampler_resumes_bit_identically() {
    let params = json!({"method": "dags",
                        "dags": [{"x2": ["x1"], "x3": ["x1"]}, {"x2": ["x1"], "x3": ["x1", "x2"]}],
                        "prior": [0.5, 0.5], "step_sizes": [0.9, 0.3], "rho": 2.0,
                        "init": "prior", "adapt": {}});
    assert_eq!(resumes(params, &SPEC, 7), 7);
}

#[test]
fn dag_gibbs_sampler_resumes_bit_identically() {
    for order in [json!(null), json!(["x1", "x2", "x3"])] {
        let params = json!({"method": "dag", "nodes": ["x1", "x2", "x3"], "order": order,
                            "step_sizes": [0.5, 0.5],
                            "node_step_sizes": {"x1": [0.4, 0.4, 0.4]},
                            "rho": 2.0, "init": "prior", "adapt": {}});
        assert_eq!(resumes(params, &SPEC, 7), 7, "order {order}");
    }
}

/// The one-transition methods: a checkpoint after the transition that computes everything.
#[test]
fn exact_and_mmle_samplers_resume_bit_identically() {
    let spec = RunSpec {
        iterations: 3,
        burn_in: 0,
        thin: 1,
    };
    let exact = json!({"method": "exact", "node": "x3", "candidates": ["x1", "x2"],
                       "rho": 2.0, "grid_points": 9});
    assert_eq!(resumes(exact, &spec, 1), 2);
    for beta in [json!("jeffreys"), json!(2.5)] {
        let mmle = json!({"method": "mmle", "node": "x3", "parents": ["x1", "x2"],
                          "beta": beta});
        assert_eq!(resumes(mmle, &spec, 1), 2, "beta {beta}");
    }
}

//! Chain checkpoints: the hidden-cause sampler, Gibbs and RJMCMC with and without
//! hyperparameter updates, built through the registry as a worker builds it, resumed from each
//! of its checkpoints on a fresh sampler, gives the uninterrupted chain bit for bit
//! (`testing::checkpoint`).

use causeway_papers::testing::checkpoint::{assert_model_resumes_identically, synthetic_dataset};
use causeway_papers::{RunSpec, chain_rng, dataset_rng};
use serde_json::json;

/// 60 iterations, burn-in 20, thin 2; a checkpoint every 9 (two in burn-in).
const SPEC: RunSpec = RunSpec {
    iterations: 60,
    burn_in: 20,
    thin: 2,
};

#[test]
fn hidden_cause_sampler_resumes_bit_identically() {
    let spec = json!({"kind": "ibp_synthetic", "n_observed": 6, "n_trials": 40, "k_plus": 3,
                      "alpha": 2.0, "lambda": 0.9, "epsilon": 0.05, "p": 0.2});
    let data = synthetic_dataset("wood2006", &spec, &mut dataset_rng(11, 1, 0));
    let cells = [
        json!({"sampler": "gibbs", "update_hyperparameters": true, "init": "empty"}),
        json!({"sampler": "gibbs", "update_hyperparameters": true, "init": "random",
               "init_k": 4}),
        json!({"sampler": "rjmcmc", "update_hyperparameters": true, "init": "empty"}),
        json!({"sampler": "rjmcmc", "update_hyperparameters": true, "init": "random",
               "init_k": 4, "k_prior": {"kind": "geometric", "q": 0.3}}),
        json!({"sampler": "rjmcmc", "alpha": 3.0, "k_new_max": 5}),
        json!({"sampler": "gibbs", "split_merge": 10, "init": "random", "init_k": 4}),
    ];
    for params in cells {
        let rng = chain_rng(12, 1, 0, 0);
        let n = assert_model_resumes_identically("wood2006", &params, &data, &rng, &SPEC, 9);
        assert_eq!(n, 6, "{params}");
    }
}

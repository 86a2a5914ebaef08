//! Chain checkpoints (issue 13): the hidden-cause sampler, Gibbs and RJMCMC with hyperparameter
//! updates, built through the registry as a worker builds it, resumed from each of its
//! checkpoints on a fresh sampler, gives the uninterrupted chain bit for bit
//! (`testing::assert_resumes_identically`).

use causeway_papers::testing::assert_resumes_identically;
use causeway_papers::{
    ChainRng, DataContext, Dataset, RunSpec, Sampler, chain_rng, dataset_rng, model,
};
use serde_json::{Value, json};

fn synthetic() -> Dataset {
    let spec = json!({"kind": "ibp_synthetic", "n_observed": 6, "n_trials": 40, "k_plus": 3,
                      "alpha": 2.0, "lambda": 0.9, "epsilon": 0.05, "p": 0.2});
    let ctx = DataContext {
        data_dir: std::env::temp_dir(),
    };
    model("wood2006")
        .unwrap()
        .dataset(&spec, &ctx, &mut dataset_rng(11, 1, 0))
        .unwrap()
}

/// 60 iterations, burn-in 20, thin 2; a checkpoint every 9.
const SPEC: RunSpec = RunSpec {
    iterations: 60,
    burn_in: 20,
    thin: 2,
};

#[test]
fn hidden_cause_sampler_resumes_bit_identically() {
    let data = synthetic();
    for sampler in ["gibbs", "rjmcmc"] {
        for (init, init_k) in [("empty", 1), ("random", 4)] {
            let params = json!({"sampler": sampler, "update_hyperparameters": true,
                                "init": init, "init_k": init_k});
            let data = data.clone();
            let build = move |rng: &mut ChainRng| -> Box<dyn Sampler> {
                model("wood2006")
                    .unwrap()
                    .sampler(&params, &data, rng)
                    .unwrap()
            };
            let n = assert_resumes_identically(&build, &chain_rng(12, 1, 0, 0), &SPEC, 9);
            assert_eq!(n, 6, "{sampler} from {init}");
        }
    }
}

/// Without hyperparameter updates too (the fixed values are part of the state).
#[test]
fn hidden_cause_sampler_with_fixed_hyperparameters_resumes_bit_identically() {
    let data = synthetic();
    let params: Value = json!({"sampler": "rjmcmc", "alpha": 3.0, "k_new_max": 5});
    let build = move |rng: &mut ChainRng| -> Box<dyn Sampler> {
        model("wood2006")
            .unwrap()
            .sampler(&params, &data, rng)
            .unwrap()
    };
    assert_eq!(
        assert_resumes_identically(&build, &chain_rng(13, 1, 0, 0), &SPEC, 9),
        6
    );
}

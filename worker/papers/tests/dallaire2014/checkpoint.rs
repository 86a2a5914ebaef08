//! Chain checkpoints: every sampler of the model, built through the registry as a
//! worker builds it, resumed from each of its checkpoints on a fresh sampler, gives the
//! uninterrupted chain bit for bit (`testing::checkpoint`).

use causeway_papers::testing::checkpoint::{assert_model_resumes_identically, synthetic_dataset};
use causeway_papers::{Dataset, RunSpec, chain_rng, dataset_rng, model};
use serde_json::{Value, json};

fn dataset(spec: Value) -> Dataset {
    synthetic_dataset("dallaire2014", &spec, &mut dataset_rng(7, 1, 0))
}

fn ring(n_train: usize, n_test: usize) -> Dataset {
    dataset(json!({"kind": "ring", "n_train": n_train, "n_test": n_test}))
}

/// 45 iterations, burn-in 16, thin 3; a checkpoint every 7: two in burn-in, four after it.
const SPEC: RunSpec = RunSpec {
    iterations: 45,
    burn_in: 16,
    thin: 3,
};

/// The chain of `params` on `data` resumes bit for bit from each of its 6 checkpoints.
fn assert_resumes(params: Value, data: &Dataset, seed: u64) {
    let n = assert_model_resumes_identically(
        "dallaire2014",
        &params,
        data,
        &chain_rng(seed, 1, 0, 0),
        &SPEC,
        7,
    );
    assert_eq!(n, 6, "{params}");
}

/// Both priors, with the KL's evaluation stream (a test set is given).
#[test]
fn network_sampler_resumes_bit_identically() {
    let data = ring(40, 30);
    for prior in ["ecibp", "cibp"] {
        assert_resumes(
            json!({"method": "mcmc", "prior": prior, "alpha": 2.0}),
            &data,
            3,
        );
    }
}

/// The aligned edge frequencies (§5.2, ngbn7's true network) are part of the state.
#[test]
fn network_sampler_with_alignment_resumes_bit_identically() {
    let data = dataset(json!({"kind": "ngbn7", "n_train": 30, "n_test": 25}));
    let params = json!({"method": "mcmc", "prior": "ecibp"});
    let mut rng = chain_rng(4, 1, 0, 0);
    let s = model("dallaire2014")
        .unwrap()
        .sampler(&params, &data, &mut rng)
        .unwrap();
    let names: Vec<String> = s.summary().into_iter().map(|m| m.name).collect();
    assert!(names.contains(&"edge_frequency".to_string()), "{names:?}");
    assert_resumes(params, &data, 4);
}

/// Forward draws (no data).
#[test]
fn forward_sampler_resumes_bit_identically() {
    let params = json!({"method": "forward", "prior": "ecibp", "alpha": 1.5});
    assert_resumes(params, &dataset(json!({"kind": "none", "d": 2})), 5);
}

#[test]
fn kde_sampler_resumes_bit_identically() {
    assert_resumes(json!({"method": "kde"}), &ring(40, 30), 6);
}

#[test]
fn dpmog_sampler_resumes_bit_identically() {
    assert_resumes(json!({"method": "dpmog"}), &ring(40, 30), 7);
}

/// The size of a network chain's state on the paper's ring (2000 × 2 training and test points),
/// printed (`--nocapture`) as the network grows to 9 units or more: each unit carries its N
/// activations and two N-vectors of caches (u, the residual), 3·N floats of 8 bytes plus the
/// encoding's framing (up to one byte each), and the state also holds the fixed test set, its
/// k-d tree and the parameters (below 100 kB here).
#[test]
fn network_sampler_state_size_on_the_ring() {
    let n = 2000.0;
    let params = json!({"method": "mcmc", "prior": "cibp", "mtm_tries": 5, "kl_k": 1});
    let mut rng = chain_rng(8, 1, 0, 0);
    let mut s = model("dallaire2014")
        .unwrap()
        .sampler(&params, &ring(2000, 2000), &mut rng)
        .unwrap();
    s.begin(&RunSpec {
        iterations: 1000,
        burn_in: 0,
        thin: 1,
    });
    let (mut row, mut units) = (Vec::new(), 0.0);
    for it in 1..=1000 {
        s.step(&mut rng).unwrap();
        row.clear();
        s.record(&mut row);
        if row[0] == units {
            continue;
        }
        units = row[0];
        let bytes = s.save_state().unwrap().unwrap().len() as f64;
        println!("ring 2000 x 2: {units} units at iteration {it}, state {bytes} bytes");
        assert!(
            bytes > 24.0 * n * units && bytes < 27.0 * n * units + 100_000.0,
            "{bytes} bytes for {units} units"
        );
        if units >= 9.0 {
            return;
        }
    }
    panic!("the network never reached 9 units");
}

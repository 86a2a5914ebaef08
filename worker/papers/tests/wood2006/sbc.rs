//! Simulation-based calibration of the wood2006 samplers, in process with the
//! functions the runner uses (`causeway_papers::sbc`: the coordinator's `build_dataset` on the
//! replicate's dataset stream, the worker's `SbcSampler` on the chain's stream), seeded exactly as
//! a run's simulation s would be. The correct sampler passes (every p-value of the χ² and the
//! ECDF tests ≥ 0.001, the ECDF's from 10,000 null simulations); a broken kernel fails the same
//! test (some p-value < 0.001).

use causeway_papers::sbc::uniformity::{chi_square, default_bins, ecdf_test};
use causeway_papers::sbc::{SbcSpec, simulate_ranks};
use causeway_papers::wood2006::samplers::Defect;
use causeway_papers::wood2006::{BinaryMatrix, HiddenCauseSampler, Params, Wood2006};
use causeway_papers::{
    ChainRng, Dataset, RunSpec, Sampler, SamplerError, chain_rng, dataset_rng, stable_hash,
};
use serde_json::{Value, json};

const SIMULATIONS: u64 = 200;
const SPEC: SbcSpec = SbcSpec { draws: 39, thin: 5 };
const RUN: RunSpec = RunSpec {
    iterations: 300,
    burn_in: 100,
    thin: 1,
};

/// The smallest p-value of each scalar's two tests, by name.
fn sbc_p_values(
    params: &Value,
    dataset: &Value,
    defect: Option<Defect>,
) -> Vec<(String, f64, f64)> {
    let cell = stable_hash(
        json!({"params": params, "dataset": dataset})
            .to_string()
            .as_bytes(),
    );
    let make =
        |p: &Value, d: &Dataset, rng: &mut ChainRng| -> Result<Box<dyn Sampler>, SamplerError> {
            let params = Params::from_json(p).map_err(|e| SamplerError::Input(e.to_string()))?;
            let x = BinaryMatrix::from_matrix(d.observed("x").unwrap()).unwrap();
            Ok(Box::new(
                HiddenCauseSampler::new(&params, &x, Vec::new(), rng)?.with_defect(defect),
            ))
        };
    let mut names = Vec::new();
    let mut ranks: Vec<Vec<u64>> = Vec::new();
    for s in 0..SIMULATIONS {
        let (n, r) = simulate_ranks(
            &Wood2006,
            params,
            dataset,
            SPEC,
            &RUN,
            (dataset_rng(13, cell, s), chain_rng(13, cell, s, 0)),
            &make,
        )
        .unwrap();
        names = n;
        ranks.resize(r.len(), Vec::new());
        for (acc, v) in ranks.iter_mut().zip(r) {
            acc.push(v);
        }
    }
    let bins = default_bins(SIMULATIONS as usize, SPEC.draws);
    names
        .into_iter()
        .zip(ranks)
        .map(|(name, r)| {
            let chi = chi_square(&r, SPEC.draws, bins).p_value;
            let ecdf = ecdf_test(&r, SPEC.draws, 0.95, 10_000, 2022).p_value;
            (name, chi, ecdf)
        })
        .collect()
}

fn gibbs_params() -> Value {
    json!({"sampler": "gibbs", "update_hyperparameters": true, "alpha_prior": [2.0, 2.0],
           "lambda_prior": [4.0, 2.0], "epsilon_prior": [1.0, 9.0], "p_prior": [2.0, 5.0],
           "lambda_step": 0.2, "epsilon_step": 0.1})
}

fn dataset() -> Value {
    json!({"kind": "prior_predictive", "n_observed": 5, "n_trials": 20})
}

#[test]
fn sbc_wood2006_gibbs_passes_and_a_broken_kernel_fails() {
    let good = sbc_p_values(&gibbs_params(), &dataset(), None);
    eprintln!("correct: {good:?}");
    assert_eq!(good.len(), 5, "k_plus, alpha, lambda, epsilon, p");
    for (name, chi, ecdf) in &good {
        assert!(
            *chi >= 1e-3 && *ecdf >= 1e-3,
            "{name}: χ² p = {chi}, ECDF p = {ecdf}"
        );
    }
    let bad = sbc_p_values(&gibbs_params(), &dataset(), Some(Defect::DropPriorTerm));
    eprintln!("DropPriorTerm: {bad:?}");
    assert!(worst(&bad) < 1e-3, "the broken kernel passed SBC: {bad:?}");
}

fn worst(p: &[(String, f64, f64)]) -> f64 {
    p.iter().map(|(_, c, e)| c.min(*e)).fold(1.0, f64::min)
}

#[test]
fn sbc_wood2006_rjmcmc_passes_and_a_dropped_alpha_jacobian_fails() {
    let mut params = gibbs_params();
    params["sampler"] = json!("rjmcmc");
    params["k_max"] = json!(20);
    let good = sbc_p_values(&params, &dataset(), None);
    eprintln!("rjmcmc: {good:?}");
    assert_eq!(good.len(), 6, "k_plus, k, alpha, lambda, epsilon, p");
    assert!(worst(&good) >= 1e-3, "{good:?}");
    let bad = sbc_p_values(&params, &dataset(), Some(Defect::DropAlphaJacobian));
    eprintln!("DropAlphaJacobian: {bad:?}");
    assert!(worst(&bad) < 1e-3, "the broken kernel passed SBC: {bad:?}");
}

#[test]
fn sbc_chain_resumes_identically_with_its_kept_draws_and_ranks() {
    use causeway_papers::sbc::build_dataset;
    use causeway_papers::testing::assert_resumes_identically;
    let mut params = gibbs_params();
    params["sbc"] = json!(SPEC);
    let ctx = causeway_papers::DataContext {
        data_dir: std::env::temp_dir(),
    };
    let data = build_dataset(
        &Wood2006,
        &params,
        &dataset(),
        &ctx,
        &mut dataset_rng(1, 2, 3),
    )
    .unwrap();
    let build = |rng: &mut ChainRng| -> Box<dyn Sampler> {
        causeway_papers::sbc::chain_sampler(&Wood2006, &params, &data, rng).unwrap()
    };
    let rng = chain_rng(1, 2, 3, 0);
    assert!(assert_resumes_identically(&build, &rng, &RUN, 37) >= 5);
    // the wrapper is what ranks: its summary carries one rank per scalar, in 0..=L
    let mut r = rng.clone();
    let mut s = build(&mut r);
    let out = causeway_papers::run_chain(s.as_mut(), &RUN, &mut r, &mut |_, _| {}).unwrap();
    let ranks = out.summary.iter().find(|m| m.name == "sbc_rank").unwrap();
    assert_eq!(ranks.cols, 5);
    assert!(
        ranks
            .values
            .iter()
            .all(|&v| (0.0..=SPEC.draws as f64).contains(&v))
    );
}

//! Simulation-based calibration of the CIBP / eCIBP MCMC of §4 (issue 17 §1, issue 13 §3), in
//! process with the functions the runner uses (`causeway_papers::sbc`: the coordinator's
//! `build_dataset` on the replicate's dataset stream, the worker's `SbcSampler` on the chain's
//! stream), seeded as a run's simulation s would be. θ̃ is a network from the prior
//! (`dallaire2014::prior`), the data are its d = 2 observed outputs at N = 3 points, and the
//! ranked scalars are the structure counts and the means of W, γ and ln ν. The correct sampler
//! passes (every p-value of the χ² and the ECDF tests ≥ 0.001); eq 12 as printed
//! (`jump_prior: paper`: a jump edge can never start) fails the same test (some p-value < 0.001).
//! (`birth_death: paper` is no use here: from the empty start its networks grow without bound.)
//! α = 0.5 and 8,000 iterations: shorter chains, or α = 1, do not reach the prior's heavy tail
//! from the empty start (the experiment file `experiments/dallaire2014/sbc.yaml` gives the
//! figures).

use causeway_papers::dallaire2014::Dallaire2014;
use causeway_papers::registry::Model;
use causeway_papers::sbc::uniformity::{chi_square, default_bins, ecdf_test};
use causeway_papers::sbc::{SbcSpec, simulate_ranks};
use causeway_papers::{
    ChainRng, Dataset, RunSpec, Sampler, SamplerError, chain_rng, dataset_rng, stable_hash,
};
use serde_json::{Value, json};

const SIMULATIONS: u64 = 200;
const SPEC: SbcSpec = SbcSpec {
    draws: 19,
    thin: 315,
};
const RUN: RunSpec = RunSpec {
    iterations: 8000,
    burn_in: 2000,
    thin: 1,
};

/// `(name, χ² p, ECDF p)` of each ranked scalar.
fn sbc_p_values(params: &Value) -> Vec<(String, f64, f64)> {
    let dataset = json!({"kind": "prior_predictive", "d": 2, "n": 3});
    let cell = stable_hash(
        json!({"params": params, "dataset": dataset})
            .to_string()
            .as_bytes(),
    );
    let make = |p: &Value,
                d: &Dataset,
                rng: &mut ChainRng|
     -> Result<Box<dyn Sampler>, SamplerError> { Dallaire2014.sampler(p, d, rng) };
    let mut names = Vec::new();
    let mut ranks: Vec<Vec<u64>> = Vec::new();
    for s in 0..SIMULATIONS {
        let (n, r) = simulate_ranks(
            &Dallaire2014,
            params,
            &dataset,
            SPEC,
            &RUN,
            (dataset_rng(17, cell, s), chain_rng(17, cell, s, 0)),
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
            let ecdf = ecdf_test(&r, SPEC.draws, 0.95, 10_000, 2014).p_value;
            (name, chi, ecdf)
        })
        .collect()
}

fn params(prior: &str) -> Value {
    json!({"prior": prior, "alpha": 0.5, "beta": 1.0, "beta_prime": 2.0,
           "observed_map": "identity", "precision_prior": {"shape": 2.0, "rate": 1.0}})
}

fn worst(p: &[(String, f64, f64)]) -> f64 {
    p.iter().map(|(_, c, e)| c.min(*e)).fold(1.0, f64::min)
}

#[test]
fn sbc_dallaire2014_ecibp_passes_and_the_printed_jump_prior_fails() {
    let good = sbc_p_values(&params("ecibp"));
    eprintln!("ecibp: {good:?}");
    assert_eq!(good.len(), 7, "counts (4) and the means of W, γ, ln ν");
    assert!(worst(&good) >= 1e-3, "{good:?}");
    let mut bad = params("ecibp");
    bad["jump_prior"] = json!("paper");
    let bad = sbc_p_values(&bad);
    eprintln!("jump_prior: paper: {bad:?}");
    assert!(worst(&bad) < 1e-3, "the broken kernel passed SBC: {bad:?}");
}

#[test]
fn sbc_dallaire2014_cibp_passes() {
    let good = sbc_p_values(&params("cibp"));
    eprintln!("cibp: {good:?}");
    assert_eq!(good.len(), 6, "counts (3) and the means of W, γ, ln ν");
    assert!(worst(&good) >= 1e-3, "{good:?}");
}

#[test]
fn sbc_dallaire2014_refuses_what_it_cannot_calibrate() {
    let ds = json!({"kind": "prior_predictive", "d": 2, "n": 3});
    let mut rng = dataset_rng(1, 2, 3);
    let mut p = params("ecibp");
    p["observed_map"] = json!("minmax");
    let e = Dallaire2014.sample_prior(&p, &ds, &mut rng).unwrap_err();
    assert!(e.to_string().contains("params.observed_map"), "{e}");
    let mut p = params("ecibp");
    p["method"] = json!("forward");
    let e = Dallaire2014.sample_prior(&p, &ds, &mut rng).unwrap_err();
    assert!(e.to_string().contains("params.method"), "{e}");
    let e = Dallaire2014
        .sample_prior(&params("ecibp"), &json!({"kind": "none", "d": 2}), &mut rng)
        .unwrap_err();
    assert!(e.to_string().contains("prior_predictive"), "{e}");
    // outside SBC the kind cannot be built
    let ctx = causeway_papers::DataContext {
        data_dir: std::env::temp_dir(),
    };
    let e = Dallaire2014.dataset(&ds, &ctx, &mut rng).unwrap_err();
    assert!(e.to_string().contains("sbc"), "{e}");
}

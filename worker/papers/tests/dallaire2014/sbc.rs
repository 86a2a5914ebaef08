//! Simulation-based calibration of the CIBP / eCIBP MCMC of §4, in
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

use causeway_papers::Model;
use causeway_papers::dallaire2014::Dallaire2014;
use causeway_papers::sbc::SbcSpec;
use causeway_papers::testing::{SbcCheck, SbcPValues, sbc_p_values, worst_p_value};
use causeway_papers::{ChainRng, Dataset, RunSpec, Sampler, SamplerError, dataset_rng};
use serde_json::{Value, json};

const CHECK: SbcCheck = SbcCheck {
    simulations: 200,
    spec: SbcSpec {
        draws: 19,
        thin: 315,
    },
    run: RunSpec {
        iterations: 8000,
        burn_in: 2000,
        thin: 1,
    },
    seed: 17,
    ecdf_seed: 2014,
};

/// The two uniformity p-values of each ranked scalar.
fn p_values(params: &Value) -> Vec<SbcPValues> {
    let dataset = json!({"kind": "prior_predictive", "d": 2, "n": 3});
    let make = |p: &Value,
                d: &Dataset,
                rng: &mut ChainRng|
     -> Result<Box<dyn Sampler>, SamplerError> { Dallaire2014.sampler(p, d, rng) };
    sbc_p_values(&Dallaire2014, params, &dataset, &CHECK, &make).unwrap()
}

fn params(prior: &str) -> Value {
    json!({"prior": prior, "alpha": 0.5, "beta": 1.0, "beta_prime": 2.0,
           "observed_map": "identity", "precision_prior": {"shape": 2.0, "rate": 1.0}})
}

#[test]
fn sbc_dallaire2014_ecibp_passes_and_the_printed_jump_prior_fails() {
    let good = p_values(&params("ecibp"));
    eprintln!("ecibp: {good:?}");
    assert_eq!(good.len(), 7, "counts (4) and the means of W, γ, ln ν");
    assert!(worst_p_value(&good) >= 1e-3, "{good:?}");
    let mut bad = params("ecibp");
    bad["jump_prior"] = json!("paper");
    let bad = p_values(&bad);
    eprintln!("jump_prior: paper: {bad:?}");
    assert!(
        worst_p_value(&bad) < 1e-3,
        "the broken kernel passed SBC: {bad:?}"
    );
}

#[test]
fn sbc_dallaire2014_cibp_passes() {
    let good = p_values(&params("cibp"));
    eprintln!("cibp: {good:?}");
    assert_eq!(good.len(), 6, "counts (3) and the means of W, γ, ln ν");
    assert!(worst_p_value(&good) >= 1e-3, "{good:?}");
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
